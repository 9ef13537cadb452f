"""A trec_eval drop-in: every measure pytrec_eval supports, with trec_eval's names, parameters and output.

    result = trec_eval(qrels, run, ["official", "ndcg_cut.5,10", "ndcg.3=100,2=10,1=1"])
    result.per_query["ndcg_cut_10"]    # numpy array, one value per evaluated query (result.qids)
    print(result.format(per_query=True), end="")

Measures are computed and printed in trec_eval's table order; ``-m`` specs follow trec_eval's syntax
(``name.params``; nicknames ``official``, ``set``, ``all_trec``). Without specs the ``official`` set is used.
"""

from __future__ import annotations

import math
from itertools import chain
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from fashionrq.errors import InputError
from fashionrq.ieee import log_array
from fashionrq.metrics import trec_gains as tg
from fashionrq.metrics import trec_measures as tm
from fashionrq.metrics.trec import Qrels, Run

LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
# name -> (parameter kind, default parameters); the order is trec_eval's measure table (measures.c)
MEASURES: dict[str, tuple[str, tuple]] = {
    "runid": ("none", ()), "num_q": ("none", ()), "num_ret": ("none", ()), "num_rel": ("none", ()),
    "num_rel_ret": ("none", ()), "map": ("none", ()), "gm_map": ("none", ()), "Rprec": ("none", ()),
    "bpref": ("none", ()), "recip_rank": ("none", ()), "iprec_at_recall": ("float_cuts", RECALL_POINTS),
    "P": ("long_cuts", LONG_CUTS), "relstring": ("floats", (10.0,)), "recall": ("long_cuts", LONG_CUTS),
    "infAP": ("none", ()), "gm_bpref": ("none", ()),
    "Rprec_mult": ("float_cuts", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    "utility": ("floats", (1.0, -1.0, 0.0, 0.0)), "11pt_avg": ("floats", RECALL_POINTS), "binG": ("none", ()),
    "G": ("pairs", ()), "ndcg": ("pairs", ()), "ndcg_rel": ("pairs", ()), "Rndcg": ("pairs", ()),
    "ndcg_cut": ("long_cuts", LONG_CUTS), "map_cut": ("long_cuts", LONG_CUTS), "relative_P": ("long_cuts", LONG_CUTS),
    "success": ("long_cuts", (1, 5, 10)), "set_P": ("none", ()), "set_relative_P": ("none", ()),
    "set_recall": ("none", ()), "set_map": ("none", ()), "set_F": ("floats", (1.0,)), "num_nonrel_judged_ret": ("none", ()),
}
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": tuple(MEASURES),
}
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}  # printed as integers, summed in 'all'
SUMMARY_ONLY = {"runid", "num_q", "gm_map", "gm_bpref"}  # no per-query line


@dataclass(frozen=True)
class MeasureSpec:
    """One requested trec_eval measure: its name, parameters, and the printed parameter text (if given)."""

    name: str
    params: tuple
    printable: str | None = None


def _parse_params(name: str, text: str | None) -> tuple[tuple, str | None]:
    kind, default = MEASURES[name]
    if text is None:
        return default, None
    if kind == "none":
        raise InputError(f"measure {name!r} takes no parameters but got {text!r}; write -m {name}.")
    if kind == "pairs":
        return tuple(tg.parse_gain_pairs(text, where=f"measure {name}")), text
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise InputError(f"measure {name!r}: parameters {text!r} are not comma-separated numbers; e.g. -m {name}.5,10.") from None
    if kind == "floats":
        return tuple(values), text
    if kind == "long_cuts":
        values = [int(v) for v in values]
        if any(v < 1 for v in values):
            raise InputError(f"measure {name!r}: cutoffs {text!r} must be positive integers, e.g. -m {name}.5,10.")
    if len(set(values)) != len(values):
        raise InputError(f"measure {name!r}: cutoffs {text!r} repeat a value; give each cutoff once.")
    return tuple(sorted(values)), None


def parse_measures(specs: Sequence[str] | None) -> list[MeasureSpec]:
    """Parse trec_eval ``-m`` specs (``official``, ``P.5,10``, ``ndcg.1=0.1,2=1``) into table-ordered specs."""
    chosen: dict[str, MeasureSpec] = {}
    for spec in specs or ["official"]:
        name, dot, text = spec.partition(".")
        if name in NICKNAMES and not dot:
            for member in NICKNAMES[name]:
                chosen.setdefault(member, MeasureSpec(member, MEASURES[member][1]))
            continue
        if name not in MEASURES:
            raise InputError(
                f"measure {spec!r} is not a trec_eval measure; use one of {', '.join(MEASURES)} "
                f"or a nickname ({', '.join(NICKNAMES)})."
            )
        params, printable = _parse_params(name, text if dot else None)
        chosen[name] = MeasureSpec(name, params, printable)
    return [chosen[name] for name in MEASURES if name in chosen]


def _fixed(value: float) -> str:
    """C's ``%6.4f``; a NaN prints as glibc prints x86's default NaN (0.0 / 0.0), ``-nan``."""
    return f"{'-nan':>6s}" if value != value else f"{value:6.4f}"


def _label(spec: MeasureSpec, param: object = None) -> str:
    if spec.printable is not None:
        return f"{spec.name}_{spec.printable}"
    if param is None:
        return spec.name
    return f"{spec.name}_{param}" if isinstance(param, int) else f"{spec.name}_{param:3.2f}"


_SINGLE = {
    "map": tm.average_precision, "Rprec": tm.rprec, "bpref": tm.bpref, "recip_rank": tm.recip_rank,
    "infAP": tm.infap, "binG": tm.bin_g, "num_nonrel_judged_ret": tm.num_nonrel_judged_ret,
}
_CUT = {"P": tm.precision_at, "recall": tm.recall_at, "relative_P": tm.relative_precision_at,
        "success": tm.success_at, "ndcg_cut": tg.ndcg_cut, "map_cut": tm.average_precision,
        "Rprec_mult": tm.rprec_mult}
_GAINS = {"ndcg": tg.ndcg, "ndcg_rel": tg.ndcg_rel, "Rndcg": tg.rndcg, "G": tg.g_measure}


def _compute(spec: MeasureSpec, rr: tm.ResRels, num_docs: int) -> dict[str, np.ndarray]:
    """Per-query values of one measure: ``{printed name: array over rr.qids}``."""
    name, params = spec.name, spec.params
    if name in ("num_ret", "num_rel", "num_rel_ret"):
        return {name: getattr(rr, name).astype(np.float64)}
    if name == "num_q":
        return {name: np.ones(rr.n)}
    if name in _SINGLE:
        return {name: _SINGLE[name](rr)}
    if name in ("gm_map", "gm_bpref"):
        base = tm.average_precision(rr) if name == "gm_map" else tm.bpref(rr)
        return {name: log_array(np.maximum(base, tm.MIN_GEO_MEAN))}
    if name in _CUT:
        return {_label(spec, p): _CUT[name](rr, p) for p in params}
    if name == "iprec_at_recall":
        values = tm.interpolated_precision(rr, list(params))
        return {_label(spec, p): values[:, c] for c, p in enumerate(params)}
    if name == "11pt_avg":
        return {_label(spec): tm.interpolated_precision(rr, list(params)).mean(axis=1)}
    if name in _GAINS:
        return {_label(spec): _GAINS[name](rr, params)}
    if name == "utility":
        return {_label(spec): tm.utility(rr, list(params), num_docs)}
    if name.startswith("set_"):
        return {_label(spec): tm.set_measures(rr, name, *params)}
    return {}  # runid and relstring are text, formatted from rr directly


@dataclass
class TrecEvalResult:
    """Per-query values of every measure (``per_query[printed name]``, aligned with ``qids``) and the summary."""

    specs: list[MeasureSpec]
    res_rels: tm.ResRels
    per_query: dict[str, np.ndarray] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)  # measure -> its printed names
    complete: bool = False

    @property
    def qids(self) -> list[str]:
        return self.res_rels.qids.to_pylist()

    def summary(self) -> dict[str, float]:
        """trec_eval's 'all' values: means (over num_q_rels with -c), sums for counts, geometric means for gm_*."""
        rr = self.res_rels
        divisor = rr.num_q_rels if self.complete else rr.n
        out = {}
        for spec in self.specs:
            for name in self.names[spec.name]:
                values = self.per_query[name]
                if spec.name == "num_rel" and self.complete:
                    out[name] = float(rr.qrels_positive)  # m_num_rel.c: with -c, every qrels line with grade > 0
                elif spec.name in COUNTS:
                    out[name] = float(values.sum())
                elif spec.name == "num_q":
                    out[name] = float(divisor)
                elif spec.name in ("gm_map", "gm_bpref"):
                    missing = divisor - rr.n
                    out[name] = math.exp((float(values.sum()) + missing * math.log(tm.MIN_GEO_MEAN)) / divisor)
                else:
                    out[name] = float(values.sum()) / divisor
        return out

    def warnings(self) -> list[str]:
        """One sentence per gain map that trec_eval's integer comparator sorts out of order on these qrels."""
        levels = set(self.res_rels.num_rel_levels.tolist())
        return [
            f"measure {spec.name}.{spec.printable}: trec_eval orders gains with an integer comparator, so gains less "
            "than 1 apart leave its ideal ranking out of order; the values below reproduce trec_eval, but they are not "
            "a true nDCG. Multiply every gain by the same factor (e.g. 3=100,2=10,1=1 for 1/0.1/0.01): nDCG is unchanged."
            for spec in self.specs
            if spec.params and MEASURES[spec.name][0] == "pairs"
            and not all(tg.gain_map_is_ordered(spec.params, n) for n in levels)
        ]

    def format(self, per_query: bool = False) -> str:
        """trec_eval's output: ``%-22s\\t%s\\t%6.4f`` lines (integers for counts), per query with ``-q``, then 'all'."""
        lines: list[str] = []
        if per_query:
            lines.extend(self._query_lines())
        summary = self.summary()
        for spec in self.specs:
            if spec.name == "runid":
                lines.append(f"{'runid':<22s}\tall\t{self.res_rels.runid}\n")
            for name in self.names[spec.name]:
                value = summary[name]
                text = str(int(value)) if spec.name in COUNTS or spec.name == "num_q" else _fixed(value)
                lines.append(f"{name:<22s}\tall\t{text}\n")
        return "".join(lines)

    def _query_lines(self) -> list[str]:
        """Per-query lines: query by query, measures in table order (one list comprehension per printed name)."""
        qids = self.qids
        columns = []
        for spec in (s for s in self.specs if s.name not in SUMMARY_ONLY):
            if spec.name == "relstring":
                label = f"{_label(spec):<22s}"
                strings = tm.relstring(self.res_rels, int(spec.params[0]))
                columns.append([f"{label}\t{q}\t'{s}'\n" for q, s in zip(qids, strings)])
                continue
            for name in self.names[spec.name]:
                label, values = f"{name:<22s}", self.per_query[name].tolist()
                if spec.name in COUNTS:
                    columns.append([f"{label}\t{q}\t{int(v)}\n" for q, v in zip(qids, values)])
                elif np.isnan(self.per_query[name]).any():
                    columns.append([f"{label}\t{q}\t{_fixed(v)}\n" for q, v in zip(qids, values)])
                else:
                    columns.append([f"{label}\t{q}\t{v:6.4f}\n" for q, v in zip(qids, values)])
        return list(chain.from_iterable(zip(*columns)))


def trec_eval(qrels: Qrels, run: Run, measures: Sequence[str] | None = None, *, relevance_level: int = 1,
              complete: bool = False, judged_only: bool = False, max_docs: int | None = None,
              num_docs: int = 0) -> TrecEvalResult:
    """Evaluate ``run`` like ``trec_eval [-c] [-J] [-l L] [-M N] [-N D] -m ...``; see the module docstring."""
    if relevance_level < 0:
        raise InputError(f"relevance level {relevance_level} is negative; use a grade such as 1 (any relevant) or 3 (exact).")
    specs = parse_measures(measures)
    rr = tm.build_res_rels(qrels, run, relevance_level, judged_only, max_docs)
    if rr.n == 0:
        raise InputError(
            f"no query of {run.source} is judged in {qrels.source}; check that the run and the qrels belong to the same task."
        )
    result = TrecEvalResult(specs, rr, complete=complete)
    for spec in specs:
        values = _compute(spec, rr, num_docs)
        result.per_query.update(values)
        result.names[spec.name] = list(values)
    return result
