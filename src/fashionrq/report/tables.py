"""The table primitives every report shares: a scored run as reports show it (:class:`Scored`), number formats,
and a table in Markdown or HTML."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from fashionrq.layout import RUN_JSON
from fashionrq.protocol.scoring import ScoredRun


@dataclass
class Scored:
    """One score JSON and the run it came from; ``scored`` is its fresh scoring, whose per-unit values no file holds."""

    label: str
    report: dict
    path: Path
    scored: ScoredRun
    #: what the run shares with the release's construction (``protocol.components``); its label then ends in †
    shares: tuple[str, ...] = ()

    def per_unit(self, task: str) -> dict[str, dict[str, float]]:
        return self.scored.per_unit(task)

    def aggregate(self, task: str, metric: str) -> float | None:
        return self.report.get("tasks", {}).get(task, {}).get("aggregate", {}).get(metric)

    def interval(self, task: str, metric: str) -> list[float] | None:
        """The run's own 95% bootstrap interval of ``metric`` (score files written before intervals have none)."""
        return (self.report.get("tasks", {}).get(task, {}).get("interval") or {}).get(metric)

    def run_config(self) -> dict:
        path = Path(self.report.get("run", "")) / RUN_JSON
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}


def value_text(value: float | None) -> str:
    """A metric value with four decimals, ``–`` for none."""
    return "–" if value is None else f"{value:.4f}"


def with_interval(value: float | None, interval: list[float] | None) -> str:
    """A metric value and its interval: ``0.4123 [0.3900, 0.4350]``."""
    return value_text(value) + (f" [{interval[0]:.4f}, {interval[1]:.4f}]" if value is not None and interval else "")


def markdown(title: str, header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table with a heading."""
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def html_table(header: Sequence[str], rows: Sequence[str], cls: str = "") -> str:
    """An HTML table of ``header`` cells and ready ``<tr>`` rows."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
