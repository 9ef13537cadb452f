"""MCMR tables from the runs of a modality ablation (``fashionrq.pipeline.mcmr.modality_ablation``): candidate side,
query side, constraint curve.

:class:`MCMRAblation` draws the tables of seed 003 from the scored runs:

* **candidate side (Table 3)**: each system under text-only, image-only and fused candidates, on the fused
  k_max queries;
* **query side (Table 7)**: fused candidates, the same intents asked as fused, text-only and image-only queries;
* **constraint count (Table 8, Fig. 4)**: fused candidates, fused queries with k_T = k_I = 1 … k_max.

All three read the ``by_constraints`` breakdown the scorer writes from ``labels/mcmr.jsonl``
(:mod:`fashionrq.protocol.constraints`), over the intents that have every query variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fashionrq.pipeline.mcmr import AblationRun
from fashionrq.report import svg
from fashionrq.report.html import text_table
from fashionrq.report.tables import markdown

#: Metrics of the tables (score names of the open-corpus task), as MCMR reports them.
METRICS = ("recall@10", "recall@50", "recall@100", "ndcg@10", "mrr@10")
CURVE_METRICS = ("recall@10", "ndcg@10")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


@dataclass(frozen=True)
class MCMRAblation:
    """The runs of a modality ablation and the MCMR tables drawn from their scores (values in %)."""

    runs: tuple[AblationRun, ...]
    task: str = "t1o"

    @classmethod
    def of(cls, runs: Sequence[AblationRun]) -> MCMRAblation:
        """The tables of ``runs`` on the open-corpus task when the release has it (all photographed items ranked),
        else on pooled T1."""
        return cls(tuple(runs), "t1o" if any("t1o" in r.scores["tasks"] for r in runs) else "t1")

    def _labels(self) -> list[str]:
        seen = {label: None for r in self.runs for label in r.by_variant(self.task)}
        return list(seen)

    def _fused_labels(self) -> list[str]:
        return [label for label in self._labels() if "+" in label]

    def _n(self, label: str) -> int:
        return max((r.by_variant(self.task).get(label, {}).get("n", 0) for r in self.runs), default=0)

    def candidate_table(self) -> tuple[list[str], list[list[str]]]:
        """Table 3: system x candidate regime, on the fused k_max queries."""
        label = (self._fused_labels() or ["-"])[-1]
        header = ["system", "candidates", *METRICS]
        rows = [[r.system, r.regime, *(_pct(r.by_variant(self.task).get(label, {}).get(m)) for m in METRICS)] for r in self.runs]
        return header, rows

    def query_table(self) -> tuple[list[str], list[list[str]]]:
        """Table 7: fused candidates; fused, text-only and image-only queries of the same intents."""
        labels = [x for x in self._labels() if "+" not in x]
        labels = self._fused_labels()[-1:] + labels
        header = ["system", "query", *METRICS]
        rows = [[r.system, f"{label} (n={self._n(label):,})", *(_pct(r.by_variant(self.task).get(label, {}).get(m)) for m in METRICS)]
                for r in self.runs if r.regime == "fused" for label in labels]
        return header, rows

    def curve_table(self, metric: str = "recall@10") -> tuple[list[str], list[list[str]]]:
        """Table 8: fused candidates, ``metric`` per k_T = k_I (one column per k)."""
        labels = self._fused_labels()
        header = ["system", *(f"{label} (n={self._n(label):,})" for label in labels)]
        rows = [[r.system, *(_pct(r.by_variant(self.task).get(label, {}).get(metric)) for label in labels)]
                for r in self.runs if r.regime == "fused"]
        return header, rows

    def curve_svg(self, metric: str = "recall@10") -> str:
        fused = [r for r in self.runs if r.regime == "fused"]
        labels = self._fused_labels()
        values = [[r.by_variant(self.task).get(label, {}).get(metric) for label in labels] for r in fused]
        return svg.line_chart(labels, [r.system for r in fused], values, f"{self.task.upper()} {metric} by constraint count (fused candidates)",
                              "text + image constraints in the query (k_T = k_I)")

    def tables(self) -> list[tuple[str, list[str], list[list[str]]]]:
        task = self.task.upper()
        return [
            (f"Candidate-side modality ablation (MCMR Table 3), {task}, fused k_max queries, %", *self.candidate_table()),
            (f"Query-side modality ablation (MCMR Table 7), {task}, fused candidates, %", *self.query_table()),
            *((f"Constraint count k_T = k_I (MCMR Table 8), {task} {m}, fused candidates, %", *self.curve_table(m)) for m in CURVE_METRICS),
        ]

    def to_markdown(self) -> str:
        return "\n".join(markdown(title, header, rows) for title, header, rows in self.tables())

    def to_html(self) -> str:
        charts = "".join(self.curve_svg(m) for m in CURVE_METRICS)
        return f'<div class="charts">{charts}</div>' + "".join(f"<h3>{title}</h3>{text_table(header, rows)}" for title, header, rows in self.tables())

    def to_dict(self) -> dict:
        return {"task": self.task, "runs": [{"system": r.system, "regime": r.regime, "run": str(r.run),
                                             "by_variant": r.by_variant(self.task)} for r in self.runs]}

    def __str__(self) -> str:
        return self.to_markdown()
