"""Result objects of the flat API: one evaluated run, and a comparison of runs.

Both print as a table (``__str__``) and convert with ``to_dict``, ``to_dataframe``, ``to_latex`` and ``to_html``
(ranx's ``Report`` is the model). The numbers are the protocol's own: ``scores.json`` and ``compare_runs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

import pandas as pd

from fashionrq.protocol.compare import cell_text


def _interval_text(value: float, interval: list[float] | None) -> str:
    return f"{value:.4f}" + (f" [{interval[0]:.4f}, {interval[1]:.4f}]" if interval else "")


class _Tabular:
    """``__str__`` / ``to_latex`` / ``to_html`` from :meth:`to_dataframe`."""

    def to_dataframe(self) -> pd.DataFrame:
        raise NotImplementedError

    def _display(self) -> pd.DataFrame:
        return self.to_dataframe()

    def __str__(self) -> str:
        return f"{self.title()}\n{self._display().to_string(index=False)}"

    def title(self) -> str:
        raise NotImplementedError

    def to_latex(self) -> str:
        """A LaTeX ``tabular`` (booktabs rules) of :meth:`to_dataframe`."""
        frame = self._display()
        columns = "l" * len(frame.columns)
        cell = lambda v: str(v).replace("_", r"\_").replace("%", r"\%").replace("&", r"\&").replace("#", r"\#")  # noqa: E731
        rows = [" & ".join(cell(c) for c in frame.columns) + r" \\", r"\midrule"]
        rows += [" & ".join(cell(v) for v in record) + r" \\" for record in frame.itertuples(index=False)]
        return "\n".join([rf"\begin{{tabular}}{{{columns}}}", r"\toprule", *rows, r"\bottomrule", r"\end{tabular}"]) + "\n"

    def to_html(self) -> str:
        """An HTML ``<table>`` of :meth:`to_dataframe`, with the title as caption."""
        frame = self._display()
        head = "".join(f"<th>{escape(str(c))}</th>" for c in frame.columns)
        body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in record) + "</tr>" for record in frame.itertuples(index=False))
        return f"<table><caption>{escape(self.title())}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass(frozen=True)
class Evaluation(_Tabular):
    """One system's committed and scored run: ``run`` folder and its score report (``scores.json``)."""

    system: str
    run: Path
    report: dict

    def title(self) -> str:
        return f"{self.system} — run {self.run}, commitment {self.report['commitment']['hash'][:12]}"

    def to_dict(self) -> dict:
        """The score report, as written to ``RUN/scores.json``."""
        return self.report

    def to_dataframe(self) -> pd.DataFrame:
        """One row per (task, metric): value, its own 95% interval, units and clusters."""
        rows = []
        for task, entry in self.report["tasks"].items():
            for metric, value in sorted(entry["aggregate"].items()):
                lower, upper = (entry.get("interval") or {}).get(metric) or (None, None)
                rows.append({"task": task, "metric": metric, "value": value, "lower": lower, "upper": upper,
                             "units": entry["n_units"], "clusters": entry["n_clusters"]})
        return pd.DataFrame(rows)

    def _display(self) -> pd.DataFrame:
        frame = self.to_dataframe()
        frame["score [95% interval]"] = [_interval_text(v, None if lo is None else [lo, hi])
                                         for v, lo, hi in zip(frame["value"], frame["lower"], frame["upper"])]
        return frame[["task", "metric", "score [95% interval]", "units", "clusters"]]


@dataclass(frozen=True)
class Comparison(_Tabular):
    """Every ordered pair of runs: Δ = B − A per headline metric, the promotion gate and its Holm correction."""

    result: dict

    def title(self) -> str:
        boot, corr = self.result["bootstrap"], self.result["correction"]
        return (f"Comparison: Δ = B − A, paired cluster bootstrap ({boot['resamples']:,} resamples, {boot['level']:.0%} interval); "
                f"multiple comparisons: {corr['method']} over the {corr['family']}")

    def to_dict(self) -> dict:
        """The comparison as ``compare_runs`` returns it (pairs, matrix, headline, correction, per-attribute cells)."""
        return self.result

    def to_dataframe(self) -> pd.DataFrame:
        """One row per ordered pair: Δ and interval of every headline metric, verdict, Holm-adjusted p and verdict."""
        rows = []
        for pair in self.result["pairs"]:
            gate = pair["gate"]
            row = {"B": pair["b"], "A": pair["a"]}
            for task, metric in self.result["headline"].items():
                entry = gate["tasks"][task]
                label = f"{task.upper()} {metric}"
                row[label] = cell_text(entry)
            row.update({"promoted": gate["promoted"], "binding": (gate["binding"] or "").upper(),
                        "p_holm": round(gate["p_holm"], 4), "promoted_holm": gate["promoted_holm"]})
            rows.append(row)
        return pd.DataFrame(rows)
