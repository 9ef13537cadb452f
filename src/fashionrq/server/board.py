"""What a submitter and the public may read: label-free score summaries, the leaderboard and its page.

Nothing here carries a label. A summary keeps each task's aggregate metrics, their 95% intervals and unit counts,
and the headline metric over the queries expressing an attribute where that cell and its complement each hold at
least :data:`MIN_CELL_QUERIES` queries. It drops everything finer (smaller attribute cells, per-constraint
breakdowns, T2's confusion matrix and per-class scores), since a breakdown over a handful of queries is close to a
per-query score, and per-query scores read beside one's own ranking give grades away (docs/server.md).

The public leaderboard shows one submission per team: the newest scored one the team marked ``publish`` when it
submitted (a pre-registered choice), else its best. "Best" and the row order are the same order: T1's registered
headline metric, ties broken by T2's, then T3's, T4's and T1-open's (an order over tasks, never an average). The
top row is the champion; every other row carries the promotion gate (``protocol.compare``) against it.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from html import escape
from pathlib import Path

import sqlalchemy as sa

from fashionrq.protocol.compare import compare_scored
from fashionrq.protocol.scoring import ScoredRun, score_run
from fashionrq.report import html
from fashionrq.report.tables import Scored
from fashionrq.server.db import ledger
from fashionrq.server.ledger import head
from fashionrq.server.store import run_folder
from fashionrq.taskspec import OPEN, TASKS

#: the fields of a task's score entry a summary keeps
TASK_FIELDS = ("aggregate", "interval", "n_units", "n_clusters", "unit", "leakage_unit", "headline")
#: The fewest queries a served per-attribute cell aggregates, and the fewest outside it (the task's aggregate less a
#: cell gives the cell's complement, so a cell is served only when both are this large): one query moves a served
#: number by at most 1/50 of its range, no more than a task aggregate of 50 queries, which small releases serve anyway.
MIN_CELL_QUERIES = 50


def public_summary(report: dict) -> dict:
    """A score report cut down to what may be served (see the module docstring)."""
    return {
        "release": report["release"],
        "system": report.get("system"),
        "isolation": report.get("isolation"),
        "commitment": {key: report["commitment"][key] for key in ("hash", "timestamp")},
        "bootstrap": report.get("bootstrap"),
        "not_scored": report.get("not_scored", {}),
        "tasks": {task: {**{key: entry[key] for key in TASK_FIELDS if key in entry}, **_attribute_cells(entry)}
                  for task, entry in report["tasks"].items()},
    }


def _attribute_cells(entry: dict) -> dict:
    """The score report's per-attribute breakdown cut to the headline metric over the queries expressing each
    attribute, for the cells large enough to serve (:data:`MIN_CELL_QUERIES`): ``{"breakdowns": {"by_attribute":
    {attribute: {"present": {"n": queries, headline: value}}}}}``, or ``{}``."""
    headline = entry.get("headline")
    cells = {}
    for attribute, split in (entry.get("breakdowns") or {}).get("by_attribute", {}).items():
        present, absent = split.get("present") or {}, split.get("absent") or {}
        if min(present.get("n", 0), absent.get("n", 0)) >= MIN_CELL_QUERIES and present.get(headline) is not None:
            cells[attribute] = {"present": {"n": present["n"], headline: present[headline]}}
    return {"breakdowns": {"by_attribute": cells}} if cells else {}


def rank_order() -> tuple[str, ...]:
    """The order of tasks in which the headline metrics rank submissions: the pooled tasks, then the open corpus."""
    return (*(key for key, spec in TASKS.items() if spec.kind != OPEN), *(key for key, spec in TASKS.items() if spec.kind == OPEN))


def rank_key(summary: dict) -> tuple:
    """Sort key (descending) of a summary: the headline metric of each task in :func:`rank_order` (missing: -inf)."""
    out = []
    for task in rank_order():
        entry = summary["tasks"].get(task)
        value = entry["aggregate"].get(entry.get("headline") or "") if entry else None
        out.append(float("-inf") if value is None else value)
    return tuple(out)


@dataclass
class Entry:
    """One scored submission as the board sees it."""

    submission: int
    team: str
    commitment: str
    publish: bool
    summary: dict
    scored_at: str

    @property
    def label(self) -> str:
        return f"{self.team} #{self.submission}"


def scored_entries(conn) -> list[Entry]:
    """Every scored submission (rejected ones aside), oldest first."""
    score = ledger.alias("score")
    rows = conn.execute(sa.select(ledger.c.id, ledger.c.team, ledger.c.body, score.c.body.label("score"), score.c.created_at)
                        .join(score, sa.and_(score.c.submission == ledger.c.id, score.c.kind == "score"))
                        .where(ledger.c.kind == "submit").order_by(ledger.c.id)).all()
    out = []
    for row in rows:
        body, result = json.loads(row.body), json.loads(row.score)
        if result.get("status") == "scored":
            out.append(Entry(row.id, row.team, body["commitment"], bool(body.get("publish")), result["summary"], row.created_at))
    return out


def published(entries: list[Entry]) -> list[Entry]:
    """Each team's shown submission (its newest ``publish`` one, else its best), best first (see the module docstring)."""
    by_team: dict[str, list[Entry]] = {}
    for entry in entries:
        by_team.setdefault(entry.team, []).append(entry)
    chosen = []
    for team_entries in by_team.values():
        marked = [e for e in team_entries if e.publish]
        chosen.append(marked[-1] if marked else max(team_entries, key=lambda e: (rank_key(e.summary), -e.submission)))
    return sorted(chosen, key=lambda e: (tuple(-v for v in rank_key(e.summary)), e.submission))


class Board:
    """The leaderboard of one server, recomputed only when the ledger's head moves."""

    def __init__(self, bench: Path, data: Path, engine, resamples: int = 10_000, seed: int = 0) -> None:
        self.bench, self.data, self.engine, self.resamples, self.seed = Path(bench), Path(data), engine, resamples, seed
        self._lock = threading.Lock()
        self._cached: tuple[str, dict, list, dict | None] | None = None

    def _scored(self, entry: Entry):
        """The submission's scoring with per-unit values, held in memory only (the worker's scoring, from the cache)."""
        scored = score_run(self.bench, run_folder(self.data, entry.commitment), relevance=False,
                           cache_dir=self.data / "cache", unsealed=True)
        return ScoredRun(report={**scored.report, "system": entry.label}, units=scored.units)

    def state(self) -> tuple[dict, list, dict | None]:
        """``(leaderboard JSON, shown entries, comparison)`` for the current ledger head."""
        with self._lock:
            with self.engine.connect() as conn:
                now, entries = head(conn), scored_entries(conn)
            if self._cached is None or self._cached[0] != now:
                shown = published(entries)
                comparison = self._compare(shown) if len(shown) >= 2 else None
                self._cached = (now, self._json(now, shown, comparison), shown, comparison)
            return self._cached[1:]

    def _compare(self, entries: list[Entry]) -> dict:
        """The protocol's comparison of ``entries`` (their scorings with per-unit values, :meth:`_scored`)."""
        return compare_scored([self._scored(e) for e in entries], resamples=self.resamples, seed=self.seed)

    def _json(self, now: str, shown: list[Entry], comparison: dict | None) -> dict:
        champion = shown[0] if shown else None
        rows = []
        for rank, entry in enumerate(shown, 1):
            gate = None
            if comparison is not None and entry is not champion:
                cell = comparison["matrix"][entry.label][champion.label]
                gate = {"champion": champion.label, **{k: cell[k] for k in ("promoted", "binding", "failing")}}
            rows.append({"rank": rank, "team": entry.team, "submission": entry.submission, "label": entry.label,
                         "system": entry.summary.get("system"), "scored_at": entry.scored_at,
                         "sealed": bool((entry.summary.get("isolation") or {}).get("sealed")),
                         "tasks": {t: {"headline": e.get("headline"), "n_clusters": e.get("n_clusters"),
                                       "metrics": {m: {"value": v, "interval": (e.get("interval") or {}).get(m)}
                                                   for m, v in e["aggregate"].items()},
                                       "by_attribute": {a: cell["present"] for a, cell in
                                                        e.get("breakdowns", {}).get("by_attribute", {}).items()}}
                                   for t, e in entry.summary["tasks"].items()},
                         "gate_vs_champion": gate})
        return {"release": shown[0].summary["release"] if shown else None, "ledger_head": now,
                "champion": champion.label if champion else None, "order": list(rank_order()),
                "rule": "one row per team: its newest submission marked publish, else its best; rows ordered by each task's "
                        "registered headline metric in the order of 'order' (never averaged); the gate is the protocol's promotion "
                        "gate of the row over the champion (paired cluster bootstrap)",
                "bootstrap": {"resamples": self.resamples, "seed": self.seed} if comparison else None,
                "rows": rows}

    def verdict(self, entry: Entry) -> dict | None:
        """The promotion gate of one scored submission against the current champion (None: it is the champion, or
        there is none)."""
        with self.engine.connect() as conn:
            shown = published(scored_entries(conn))
        if not shown or shown[0].submission == entry.submission:
            return None
        champion = shown[0]
        result = self._compare([entry, champion])
        cell = result["matrix"][entry.label][champion.label]
        return {"champion": champion.label, **{k: cell[k] for k in ("promoted", "binding", "failing")}}

    def html(self, title: str = "fashionrq leaderboard") -> str:
        """The leaderboard page: the report's leaderboard and verdict sections (``fashionrq.report.html``) over the
        shown submissions, one offline file like report.html."""
        board, shown, comparison = self.state()
        scored = [Scored(e.label, e.summary, Path(e.label), None) for e in shown]
        if scored:
            heads = html.headline_metrics(scored, comparison)
            body = (f'<section id="leaderboard"><h2>Leaderboard</h2>{html.leaderboard_section(scored, heads)}</section>'
                    f'<section id="verdicts"><h2>Promotion verdicts</h2>{html.verdict_section(comparison)}</section>'
                    f'<section id="by-attribute"><h2>{html.ATTRIBUTE_BREAKDOWN_TITLE}</h2>'
                    f'{html.attribute_breakdown_section(scored, heads)}</section>')
        else:
            body = '<section id="leaderboard"><h2>Leaderboard</h2><p class="notrun">no submission scored yet.</p></section>'
        champion = f"Champion: {escape(board['champion'])}. " if board["champion"] else ""
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
                f"<title>{escape(title)}</title><style>{html.STYLE}</style></head><body data-ledger-head=\"{board['ledger_head']}\">"
                f"<h1>{escape(title)}</h1><p class=note>Release {escape(str(board['release']))} · {champion}"
                f"{escape(board['rule'])}.</p>{body}<script>{html.SELF_CHECK}</script></body></html>\n")
