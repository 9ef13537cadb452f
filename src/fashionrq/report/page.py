"""Assemble ``report.html`` from score files, an optional comparison and the release; ``write_report`` is the entry point."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from pathlib import Path

from fashionrq.io import atomic_write_text, refuse_existing
from fashionrq.report import html
from fashionrq.report.leaderboard import load_scores
from fashionrq.report.tables import Scored, html_table
from fashionrq.report.twostage import two_stage_section
from fashionrq.report.worst import WorstQueries, WorstQuery
from fashionrq.taskspec import TASKS

SECTIONS = ("leaderboard", "verdicts", "two-stage", "attributes", "by-attribute", "constraints", "sid-tree", "tiers", "probes", "worst-queries")


def _worst_table(rows: Sequence[WorstQuery], metric: str) -> str:
    body = []
    for q in rows:
        phi = ", ".join(f"{a}={'/'.join(map(str, v)) if isinstance(v, list) else v}" for a, v in q.phi.items())
        items = []
        for item in q.top:
            image = f'<img alt="{escape(item.item_id)}" src="{item.thumbnail}">' if item.thumbnail else ""
            failed = f'<span class="fail">fails {escape(", ".join(item.failed))}</span>' if item.failed else "meets every attribute"
            grade = "–" if item.grade is None else str(item.grade)
            items.append(f"<td>{image}#{item.rank} {escape(item.name)} <span class=ci>({escape(item.item_id)})</span>"
                         f"<br>grade <b>{grade}</b><br>{failed}</td>")
        body.append(f"<tr><td><b>{escape(q.text)}</b><br><span class=ci>{escape(q.qid)}</span></td><td>{escape(phi)}</td>"
                    f"<td class=num>{q.value:.4f}</td>{''.join(items)}</tr>")
    return html_table(["query", "φ(q)", metric, "#1", "#2", "#3", "#4", "#5"], body, "worst")


def worst_section(bench: Path, scored: Sequence[Scored], heads: dict[str, str], images: Path | None, n: int = 5) -> str:
    """Per run: its ``n`` lowest-scoring T1 queries with φ(q) and the top 5, grades, failed attributes and thumbnails."""
    metric = heads.get("t1")
    if metric is None:
        return '<p class="notrun">not run: no T1 scores.</p>'
    view = WorstQueries(bench, images)
    parts = []
    for s in scored:
        per_unit = s.per_unit("t1")
        run_file = _run_file(s)
        if not per_unit or run_file is None:
            parts.append(f'<h3>{escape(s.label)}</h3><p class="notrun">not available: no T1 per-query scores or t1.run.</p>')
            continue
        parts.append(f"<h3>{escape(s.label)}</h3>" + _worst_table(view.of_run(per_unit, metric, run_file, n), metric))
    note = "" if images else '<p class="note">No image folder given (<code>--images DIR</code>): thumbnails omitted.</p>'
    return note + "".join(parts)


def _run_file(s: Scored) -> Path | None:
    for folder in (Path(s.report.get("run", "")), s.path.parent):
        if (folder / TASKS["t1"].run_file).is_file():
            return folder / TASKS["t1"].run_file
    return None


def render(bench: str | Path, scored: Sequence[Scored], comparison: dict | None = None, images: str | Path | None = None,
           title: str = "fashionrq report", probes: dict | None = None, mcmr=None, audit=None) -> str:
    """The whole page as one HTML string (no external resource); ``probes``: a ``probe.json`` dict; ``mcmr``: an
    ``MCMRAblation`` and ``audit`` a ``LabelAudit`` (``fashionrq.protocol.audit``) to add as sections."""
    bench = Path(bench)
    heads = html.headline_metrics(scored, comparison)
    images = Path(images) if images else None
    bodies = {
        "leaderboard": ("Leaderboard", html.leaderboard_section(scored, heads)),
        "verdicts": ("Promotion verdicts", html.verdict_section(comparison)),
        "two-stage": ("Two-stage retrieval over the catalog", two_stage_section(bench, scored)),
        "attributes": ("Per-attribute AttrScore", html.attribute_section(scored)),
        "by-attribute": (html.ATTRIBUTE_BREAKDOWN_TITLE, html.attribute_breakdown_section(scored, heads)),
        "constraints": ("nDCG against the number of constraints", html.constraint_section(scored, heads)),
        "sid-tree": ("Semantic-ID tree", html.sid_tree_section(bench)),
        "tiers": ("Tier balance", html.tier_section(bench)),
        "probes": ("Probes and query-blind baseline", html.probe_section(scored, heads, probes)),
        "worst-queries": ("Worst queries per system", worst_section(bench, scored, heads, images)),
    }
    keys = SECTIONS
    if audit is not None:
        bodies["label-audit"] = ("Label audit: full matches of the hidden φ(q) and the attribute oracle", audit.to_html())
        keys += ("label-audit",)
    if mcmr is not None:
        bodies["mcmr"] = ("MCMR on the photographed items: modalities and constraint count", mcmr.to_html())
        keys += ("mcmr",)
    release = scored[0].report.get("release", "")
    toc = "".join(f'<li><a href="#{key}">{escape(bodies[key][0])}</a></li>' for key in keys)
    sections = "".join(f'<section id="{key}"><h2>{escape(bodies[key][0])}</h2>{bodies[key][1]}</section>' for key in keys)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            f"<title>{escape(title)}</title><style>{html.STYLE}</style></head><body>"
            f"<h1>{escape(title)}</h1><p class=note>Release {escape(release)} · runs: {escape(', '.join(s.label for s in scored))}</p>"
            f"<ul>{toc}</ul>{sections}<script>{html.SELF_CHECK}</script></body></html>\n")


def write_report(bench: str | Path, runs: Sequence[str | Path], out: str | Path, *, comparison: dict | str | Path | None = None,
                 images: str | Path | None = None, force: bool = False, title: str = "fashionrq report",
                 probes: dict | str | Path | None = None, mcmr=None) -> Path:
    """Write ``report.html`` for score files or RUN folders ``runs`` on ``bench``; ``comparison`` and ``probes`` (the
    ``probe.json`` of ``fashionrq probe --out``) are dicts or their JSON files; ``mcmr`` an ``MCMRAblation``
    (``fashionrq.report.mcmr``) shown as its own section."""
    out = Path(out)
    refuse_existing(out, force)
    scored = load_scores(bench, runs)
    if isinstance(comparison, (str, Path)):
        comparison = json.loads(Path(comparison).read_text(encoding="utf-8"))
    if isinstance(probes, (str, Path)):
        probes = json.loads(Path(probes).read_text(encoding="utf-8"))
    atomic_write_text(out, render(bench, scored, comparison, images, title, probes, mcmr))
    return out
