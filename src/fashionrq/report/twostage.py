"""Two-stage retrieval over the whole catalog (MCMR §4): open-corpus T1 before and after a pointwise rerank.

A two-stage run (``fashionrq run --rerank ... --depth D``) and its first stage (the same system, config and
regime without a reranker, e.g. written by ``--first-stage-out``) are paired among verified score files. The
pairing is checked on the committed ``t1o.run`` files: per query, the two-stage top ``D`` holds exactly the
first stage's top ``D`` items, and every position below ``D`` is the first stage's. The table gives each
run's R@1/5/10/50/100, nDCG@1/5/10/50 and MRR@10 with its own 95% interval, the paired difference with a
95% cluster-bootstrap interval over the task's bootstrap units, and the first stage's R@D, the reranker's
ceiling (no reordering of the top D can change it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

import numpy as np

from fashionrq.errors import InputError
from fashionrq.layout import QUERY_RECORDS
from fashionrq.protocol import check_commitment, load_pools, validate_run
from fashionrq.protocol.bootstrap import DIFFERENCE_RANGE, mean_interval_bounds, resample_counts
from fashionrq.protocol.scoring import RUN_BOOTSTRAP
from fashionrq.release import Release
from fashionrq.report import svg
from fashionrq.report.tables import Scored, html_table, markdown, value_text, with_interval

#: (score JSON key of open-corpus T1, column header), in the order of MCMR's tables.
TWO_STAGE_METRICS: tuple[tuple[str, str], ...] = (
    ("recall@1", "R@1"), ("recall@5", "R@5"), ("recall@10", "R@10"), ("recall@50", "R@50"), ("recall@100", "R@100"),
    ("ndcg@1", "nDCG@1"), ("ndcg@5", "nDCG@5"), ("ndcg@10", "nDCG@10"), ("ndcg@50", "nDCG@50"), ("mrr@10", "MRR@10"),
)


@dataclass(frozen=True)
class TwoStagePair:
    """A two-stage run, its first stage and the rerank depth, both verified on the same release."""

    first: Scored
    second: Scored
    depth: int
    reranker: str


def _config(s: Scored) -> dict:
    return s.run_config().get("config") or {}


def _is_first_stage(first: Scored, second: Scored) -> bool:
    a, b = _config(first), _config(second)
    rerank = b.get("rerank") or {}
    return (a.get("rerank") is None and bool(rerank) and a.get("system_config") == b.get("system_config")
            and a.get("regime") == b.get("regime") and first.report.get("system") is not None
            and second.report.get("system") == f"{first.report['system']}+{rerank.get('name')}")


def _check_pairing(bench: Path, pair: TwoStagePair) -> None:
    """Refuse a pair whose committed t1o.run files are not one first stage and its rerank at ``depth``."""
    pools = load_pools(bench)
    ranked = []
    for s in (pair.first, pair.second):
        run = Path(s.report["run"])
        check_commitment(run)
        ranked.append(validate_run(run, pools, tasks=["t1o"])["t1o"])
    for qid in sorted(ranked[0]):
        first, second = ([item for item, _ in r.get(qid, [])] for r in ranked)
        if set(first[:pair.depth]) != set(second[:pair.depth]) or first[pair.depth:] != second[pair.depth:]:
            raise InputError(f"{pair.second.report['run']} is not a rerank of {pair.first.report['run']} at depth {pair.depth}: "
                             f"open-corpus query {qid} differs outside the reranked top; run both from one "
                             "`fashionrq run --rerank ... --first-stage-out`.")


def two_stage_pairs(bench: str | Path, scored: Sequence[Scored]) -> list[TwoStagePair]:
    """Every two-stage run among ``scored`` whose first stage is also there (checked on the committed t1o.run files)."""
    pairs = []
    for second in scored:
        first = next((f for f in scored if f is not second and _is_first_stage(f, second)), None)
        if first is not None and "t1o" in first.report.get("tasks", {}) and "t1o" in second.report.get("tasks", {}):
            rerank = _config(second)["rerank"]
            pair = TwoStagePair(first, second, int(rerank.get("depth", 50)), str(rerank.get("name")))
            _check_pairing(Path(bench), pair)
            pairs.append(pair)
    return pairs


def _paired_intervals(bench: Path, pair: TwoStagePair) -> list[tuple[float, float]]:
    """95% cluster-bootstrap interval of the mean per-query difference (two-stage − first) of every metric."""
    first, second = (s.per_unit("t1o") for s in (pair.first, pair.second))
    qids = sorted(first)
    unit_of = {row["qid"]: row["unit"] for row in Release(bench, verify=False).label_jsonl(QUERY_RECORDS)}
    clusters = sorted({unit_of[q] for q in qids})
    index = np.searchsorted(np.asarray(clusters), np.asarray([unit_of[q] for q in qids]))
    diffs = np.array([[second[q][m] - first[q][m] for m, _ in TWO_STAGE_METRICS] for q in qids])
    counts = resample_counts(len(clusters), RUN_BOOTSTRAP["resamples"], RUN_BOOTSTRAP["seed"])
    return mean_interval_bounds(diffs, index, len(clusters), counts, RUN_BOOTSTRAP["level"], DIFFERENCE_RANGE)


def two_stage_table(bench: str | Path, pair: TwoStagePair) -> tuple[str, list[str], list[list[str]]]:
    """``(title, header, rows)``: first stage, two-stage and Δ [paired 95% interval] over :data:`TWO_STAGE_METRICS`."""
    header = ["stage", *(name for _, name in TWO_STAGE_METRICS)]
    rows = [[f"{label}: {s.label}", *(with_interval(s.aggregate("t1o", m), s.interval("t1o", m)) for m, _ in TWO_STAGE_METRICS)]
            for label, s in (("first stage", pair.first), (f"after rerank (top {pair.depth})", pair.second))]
    bounds = _paired_intervals(Path(bench), pair)
    deltas = [pair.second.aggregate("t1o", m) - pair.first.aggregate("t1o", m) for m, _ in TWO_STAGE_METRICS]
    rows.append(["Δ (after − before)", *(f"{d:+.4f} [{lo:+.4f}, {hi:+.4f}]" for d, (lo, hi) in zip(deltas, bounds))])
    ceiling = pair.first.aggregate("t1o", f"recall@{pair.depth}")
    title = (f"Two-stage retrieval over the catalog (T1-open): {pair.first.label} top {pair.depth} reranked by {pair.reranker}; "
             f"reranker ceiling (first-stage R@{pair.depth}) = {value_text(ceiling)}; [95% interval]")
    return title, header, rows


def two_stage_markdown(bench: str | Path, scored: Sequence[Scored]) -> str:
    """Every pair's table as Markdown ('' when no two-stage run has its first stage among ``scored``)."""
    return "\n".join(markdown(*two_stage_table(bench, pair)) for pair in two_stage_pairs(bench, scored))


def two_stage_section(bench: str | Path, scored: Sequence[Scored]) -> str:
    """The report.html section: per pair, the table and a chart of nDCG@K and R@K before and after reranking."""
    pairs = two_stage_pairs(bench, scored)
    if not pairs:
        return ('<p class="notrun">not run: no two-stage run with its first stage among the runs (`fashionrq run --rerank '
                'verifier --depth 50 --first-stage-out DIR`).</p>')
    parts = []
    for pair in pairs:
        title, header, rows = two_stage_table(bench, pair)
        body = ["<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows]
        labels = [pair.first.label, pair.second.label]
        charts = [svg.line_chart([name for m, name in TWO_STAGE_METRICS if m.startswith(kind)], labels,
                                 [[s.aggregate("t1o", m) for m, _ in TWO_STAGE_METRICS if m.startswith(kind)] for s in (pair.first, pair.second)],
                                 f"T1-open {kind} before and after rerank", "cutoff K")
                  for kind in ("ndcg", "recall")]
        parts.append(f"<h3>{escape(title)}</h3>" + html_table(header, body) + "".join(charts))
    return "".join(parts)
