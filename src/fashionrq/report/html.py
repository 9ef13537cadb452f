"""``report.html``: one self-contained, offline page (inline SVG, no script or style from the network).

Sections: leaderboard with each run's 95% interval, promotion verdicts with the binding constraint and Holm
correction, per-attribute AttrScore, nDCG by number of constraints, the SID tree, tier balance, probes and
the query-blind baseline, and the worst queries of every run. Metric names come from the score files and the
comparison, never from a fixed list. Every number shown from a score file carries ``data-run``, ``data-task``,
``data-metric`` and ``data-value`` so a test can check it against ``scores.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

import pyarrow.parquet as pq

from fashionrq.layout import CLUSTERS, label_file
from fashionrq.protocol.probe import probe_mark
from fashionrq.release import Release
from fashionrq.report import svg
from fashionrq.report.leaderboard import (
    constraint_count_table,
    constraint_count_title,
    controlled_counts,
    quality_notes,
    weak_label,
    weak_units,
)
from fashionrq.report.tables import Scored, html_table
from fashionrq.tasks import bench_stats

#: Score-file system names of the integrity checks: adversarial probes and the query-blind baseline.
PROBE_PREFIX = "probe-"
QUERY_BLIND = "query-blind"

STYLE = """
body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:2em}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.ci{color:#666;font-size:11px}
.promoted{background:#d9f0d3}.notpromoted{background:#f6f6f6}.self{background:#fff}.charts{display:flex;flex-wrap:wrap;gap:16px}
.notrun{color:#a00;font-style:italic}.worst img{width:56px;height:auto;display:block}.fail{color:#b00}.note{color:#555;font-size:13px}
"""

#: Runs in the page after load: counts plots with marks and writes the result into the DOM for tests and readers.
SELF_CHECK = """
(function(){var charts=document.querySelectorAll('svg.chart');var empty=0;
charts.forEach(function(s){if(!s.querySelector('.mark')){empty++;}});
var b=document.body;b.setAttribute('data-plots',String(charts.length));b.setAttribute('data-empty-plots',String(empty));
b.setAttribute('data-selfcheck','done');})();
"""


def headline_metrics(scored: Sequence[Scored], comparison: dict | None) -> dict[str, str]:
    """Headline metric per task: the comparison's, else the manifest-registered one, else the first metric scored."""
    tasks = sorted({t for s in scored for t in s.report.get("tasks", {})})
    registered = {t: e["headline"] for s in scored for t, e in s.report.get("tasks", {}).items() if e.get("headline")}
    chosen = {**registered, **((comparison or {}).get("headline") or {})}
    out = {}
    for task in tasks:
        known = sorted({m for s in scored for m in s.report["tasks"].get(task, {}).get("aggregate", {})})
        preferred = chosen.get(task)
        if known:
            out[task] = preferred if preferred in known else known[0]
    return out


def _value_cell(s: Scored, task: str, metric: str) -> str:
    entry = s.report.get("tasks", {}).get(task, {})
    value = entry.get("aggregate", {}).get(metric)
    if value is None:
        return '<td class="num">–</td>'
    interval = (entry.get("interval") or {}).get(metric)
    ci = f' <span class="ci">[{interval[0]:.4f}, {interval[1]:.4f}]</span>' if interval else ""
    return (f'<td class="num" data-run="{escape(s.label)}" data-task="{task}" data-metric="{escape(metric)}" '
            f'data-value="{value!r}">{value:.4f}{ci}</td>')


def _shared_note(scored: Sequence[Scored]) -> str:
    """One line per run that shares a model with the release's construction (its label ends in †)."""
    lines = [f"{escape(s.label)} shares with the construction: {escape(', '.join(s.shares))}." for s in scored if s.shares]
    if not lines:
        return ""
    return ('<p class="note shared">' + "<br>".join(lines) + " A run marked † is scored on labels partly built from "
            "its own components (docs/benchmark.md, “Labels independent of systems”).</p>")


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of plain-text cells (numbers right-aligned)."""
    cell = lambda v: f'<td class="num">{escape(v)}</td>' if v[:1].isdigit() or v == "-" else f"<td>{escape(v)}</td>"  # noqa: E731
    return html_table(header, ["<tr>" + "".join(cell(str(v)) for v in row) + "</tr>" for row in rows])


def leaderboard_section(scored: Sequence[Scored], heads: dict[str, str]) -> str:
    """Headline table (tasks side by side, never averaged), interval charts, and every metric in a details block."""
    rows = [f"<tr><td>{escape(s.label)}</td>" + "".join(_value_cell(s, t, m) for t, m in heads.items()) + "</tr>" for s in scored]
    weak = weak_units(scored)
    table = html_table(["system", *(f"{t.upper()} {m}{weak_label(t, weak)}" for t, m in heads.items())], rows, "leaderboard")
    charts = []
    for task, metric in heads.items():
        bars = []
        for s in scored:
            entry = s.report["tasks"].get(task, {})
            value = entry.get("aggregate", {}).get(metric)
            if value is not None:
                lower, upper = (entry.get("interval") or {}).get(metric) or (None, None)
                bars.append((s.label, value, lower, upper))
        charts.append(svg.interval_bars(bars, f"{task.upper()} {metric} (95% interval)"))
    full = []
    for task in heads:
        metrics = sorted({m for s in scored for m in s.report["tasks"].get(task, {}).get("aggregate", {})})
        body = [f"<tr><td>{escape(s.label)}</td>" + "".join(_value_cell(s, task, m) for m in metrics) + "</tr>" for s in scored]
        full.append(f"<h3>{task.upper()}</h3>" + html_table(["system", *metrics], body))
    boot = next((s.report.get("bootstrap") for s in scored if s.report.get("bootstrap")), None)
    note = (f'<p class="note">Each score carries its own {boot["level"]:.0%} interval: {escape(boot["method"])}, '
            f'{boot["resamples"]:,} resamples, seed {boot["seed"]}. Tasks are never averaged.</p>') if boot else ""
    note += "".join(f'<p class="note weak">{escape(line)}</p>' for line in quality_notes(scored))
    return (table + note + _shared_note(scored) + f'<div class="charts">{"".join(charts)}</div>'
            + f"<details><summary>Every metric of every task</summary>{''.join(full)}</details>")


def verdict_section(comparison: dict | None) -> str:
    """The promotion matrix: row B over column A, with the binding constraint and the Holm-corrected verdict."""
    if not comparison:
        return '<p class="notrun">not run: a comparison needs at least two runs.</p>'
    names = list(comparison["runs"])
    corr = comparison.get("correction") or {}
    rows = []
    for b in names:
        cells = []
        for a in names:
            entry = comparison["matrix"][b][a]
            if entry is None:
                cells.append('<td class="self">—</td>')
                continue
            holm = entry.get("promoted_holm")
            state = "promoted" if entry["promoted"] else "notpromoted"
            failing = ", ".join(t.upper() for t in entry["failing"])
            text = ("promoted" + ("" if holm is None else " (Holm ✓)" if holm else " (Holm ✗)")) if entry["promoted"] else f"fails {failing}"
            binding = f"binding {entry['binding'].upper()}" if entry.get("binding") else ""
            p = f"p<sub>Holm</sub> {entry['p_holm']:.4f}" if "p_holm" in entry else ""
            cells.append(f'<td class="{state}" data-b="{escape(b)}" data-a="{escape(a)}">{escape(text)}<br>'
                         f'<span class="ci">{binding} {p}</span></td>')
        rows.append(f"<tr><th>{escape(b)}</th>{''.join(cells)}</tr>")
    heads = ", ".join(f"{t.upper()} {m}" for t, m in comparison["headline"].items())
    boot = comparison["bootstrap"]
    note = (f'<p class="note">Row B over column A. Promoted only if the lower bound of Δ = B − A is above 0 on every headline '
            f'({escape(heads)}); the binding constraint is the task with the lowest lower bound. Paired cluster bootstrap, '
            f'{boot["resamples"]:,} resamples, {boot["level"]:.0%} interval. Multiple comparisons: '
            f'{escape(corr.get("method", "none"))} over the {escape(corr.get("family", "pairs"))}.</p>')
    return html_table(["B \\ A", *names], rows, "verdicts") + note + _attribute_verdicts(comparison.get("by_attribute"))


def _bounds(lower: float | None, upper: float | None, spec: str) -> str:
    """``[lower, upper]``, or ``[one cluster]`` for an interval without bounds."""
    return "[one cluster]" if lower is None or upper is None else f"[{lower:{spec}}, {upper:{spec}}]"


def _attribute_verdicts(by_attribute: dict | None) -> str:
    if not by_attribute or not by_attribute.get("cells"):
        return ""
    rows = [f"<tr><td>{escape(c['b'])}</td><td>{escape(c['a'])}</td><td>{escape(c['attribute'])}</td><td class=num>{c['n']:,}</td>"
            f"<td class=num>{c['delta']:+.4f} <span class=ci>{_bounds(c['lower'], c['upper'], '+.4f')}</span></td>"
            f"<td class=num>{c['p_holm']:.4f}</td><td>{escape(c['verdict'])}</td></tr>" for c in by_attribute["cells"]]
    return (f"<details><summary>Per-attribute T1 {escape(by_attribute['metric'])} verdicts ({escape(by_attribute['method'])} "
            f"over {escape(by_attribute['family'])})</summary>"
            + html_table(["B", "A", "attribute", "queries", "Δ [interval]", "p Holm", "verdict"], rows) + "</details>")


ATTRIBUTE_BREAKDOWN_TITLE = "Headline metric over the queries expressing each attribute"


def attribute_breakdown_section(scored: Sequence[Scored], heads: dict[str, str]) -> str:
    """Per task with a per-attribute breakdown (T1, T1-open, T3, T4): its headline metric over all queries, then over
    the queries whose φ(q) expresses each attribute, one row per run (the column head gives the queries). The Markdown
    leaderboard's T1-only twin is ``leaderboard.attribute_recall_table``."""
    tables = []
    for task, metric in heads.items():
        splits = [s.report["tasks"].get(task, {}).get("breakdowns", {}).get("by_attribute", {}) for s in scored]
        sizes = {}
        for split in splits:
            for attribute, cell in split.items():
                if (cell.get("present") or {}).get(metric) is not None:
                    sizes[attribute] = max(sizes.get(attribute, 0), cell["present"]["n"])
        if not sizes:
            continue
        rows = []
        for s, split in zip(scored, splits):
            cells = [_value_cell(s, task, metric)]
            for attribute in sizes:
                value = ((split.get(attribute) or {}).get("present") or {}).get(metric)
                cells.append('<td class="num">–</td>' if value is None else
                             f'<td class="num" data-run="{escape(s.label)}" data-task="{task}" data-attribute="{escape(attribute)}" '
                             f'data-metric="{escape(metric)}" data-value="{value!r}">{value:.4f}</td>')
            rows.append(f"<tr><td>{escape(s.label)}</td>{''.join(cells)}</tr>")
        header = ["system", "all queries", *(f"{a} (n={n:,})" for a, n in sizes.items())]
        tables.append(f"<h3>{task.upper()} {escape(metric)}</h3>" + html_table(header, rows))
    if not tables:
        return '<p class="notrun">not run: no per-attribute breakdown in the score files.</p>'
    return "".join(tables)


def attribute_section(scored: Sequence[Scored]) -> str:
    """Per-attribute AttrScore bars, one bar per run, annotation coverage in the tooltip table below."""
    have = [s for s in scored if (s.report.get("relevance") or {}).get("attributes")]
    if not have:
        return '<p class="notrun">not run: score with relevance on (`fashionrq score` default) to get AttrScore.</p>'
    attrs = sorted({a for s in have for a, e in s.report["relevance"]["attributes"].items() if e.get("attr_score") is not None})
    values = [[s.report["relevance"]["attributes"].get(a, {}).get("attr_score") for a in attrs] for s in have]
    return svg.grouped_bars(attrs, [s.label for s in have], values, "AttrScore per φ attribute (T1 top 10)")


def constraint_section(scored: Sequence[Scored], heads: dict[str, str]) -> str:
    """Metric against the number of constraints (seed 003 §5.2): the controlled k_T = k_I curve of an MCMR release,
    else T1's headline by the number of attributes φ(q) happens to express."""
    task, labels = controlled_counts(scored)
    if task is not None:
        charts = []
        for metric in ("recall@10", "ndcg@10"):
            values = [[s.report["tasks"].get(task, {}).get("breakdowns", {}).get("by_constraints", {}).get("by_variant", {})
                       .get(label, {}).get(metric) for label in labels] for s in scored]
            charts.append(svg.line_chart(labels, [s.label for s in scored], values, f"{task.upper()} {metric} by constraint count",
                                         "text + image constraints (k_T = k_I)"))
        header, rows = constraint_count_table(scored)
        return (f'<div class="charts">{"".join(charts)}</div><h3>{escape(constraint_count_title(scored))}</h3>'
                + text_table(header, [[c.strip("*_") for c in row] for row in rows])
                + '<p class="note">Each column asks the same intents (complete ones: every variant kept) with more constraints.</p>')
    metric = heads.get("t1")
    by_n = [s.report["tasks"].get("t1", {}).get("breakdowns", {}).get("by_n_attributes", {}) for s in scored]
    counts = sorted({int(n) for table in by_n for n in table}, key=int)
    if metric is None or not counts:
        return '<p class="notrun">not run: no T1 breakdown by number of constraints in the score files.</p>'
    values = [[(table.get(str(n)) or {}).get(metric) for n in counts] for table in by_n]
    sizes = ", ".join(f"{n}: {max((t.get(str(n)) or {}).get('n', 0) for t in by_n):,}" for n in counts)
    return (svg.line_chart([str(n) for n in counts], [s.label for s in scored], values, f"T1 {metric} by number of constraints",
                           "attributes expressed by φ(q) (not controlled)") + f'<p class="note">Queries per count — {escape(sizes)}.</p>')


def sid_tree_section(bench: Path) -> str:
    """Treemap of level-1 clusters split into their level-2 clusters, area = items, colour = article-type purity."""
    path = bench / label_file(CLUSTERS)
    if not path.is_file():
        return '<p class="notrun">not available: the release has no labels/clusters.parquet.</p>'
    rows = pq.read_table(path, columns=["cluster_id", "level", "size", "purity", "parent"]).to_pylist()
    by_parent: dict[str, list[dict]] = {}
    for row in rows:
        if row["level"] == 2:
            by_parent.setdefault(row["parent"], []).append({"id": row["cluster_id"], "size": row["size"], "purity": row["purity"]})
    nodes = [{"id": r["cluster_id"], "size": r["size"], "purity": r["purity"], "children": by_parent.get(r["cluster_id"], [])}
             for r in rows if r["level"] == 1]
    levels = sorted({r["level"] for r in rows})
    counts = ", ".join(f"level {lv}: {sum(1 for r in rows if r['level'] == lv):,}" for lv in levels)
    return (svg.treemap(nodes, "SID tree: level-1 clusters (outlined) split into level-2 clusters; colour = purity")
            + f'<p class="note">Clusters per level — {escape(counts)}. Purity colour: red ≤ 0.5, yellow 0.75, green 1.0. '
            f'Hover a cell for its id, size and purity.</p>')


def tier_section(bench: Path) -> str:
    """Relevance-tier shares per task (from the release's labels) and the manifest's tier-balance report."""
    labels = bench_stats(bench)["labels"]
    tiers = list(next(iter(labels.values())))
    rows = [(task.upper(), [labels[task][t]["share"] for t in tiers]) for task in labels]
    manifest = Release(bench, verify=False).manifest
    balance = ((manifest.get("report") or {}).get("tasks") or {}).get("tier_balance") or {}
    table = html_table(["task", *tiers, "within tolerance"],
                   [f"<tr><td>{t.upper()}</td>" + "".join(f"<td class=num>{b.get('counts', {}).get(x, 0):,}</td>" for x in tiers)
                    + f"<td>{b.get('within_tolerance', '–')}</td></tr>" for t, b in sorted(balance.items())]) if balance else ""
    return svg.stacked_bars(rows, tiers, "Share of judged items per relevance tier") + table


def probe_section(scored: Sequence[Scored], heads: dict[str, str], probes: dict | None = None) -> str:
    """``probes`` (a ``probe.json`` dict, ``fashionrq probe --out``): its table of random's intervals, every probe's
    chance band and the verdict; without it the integrity runs present (``probe-*`` and query-blind) beside random; 'not run' otherwise."""
    if probes is not None:
        return probe_report_table(probes)
    probes = [s for s in scored if str(s.report.get("system") or "").startswith((PROBE_PREFIX, QUERY_BLIND))]
    if not probes:
        return (f'<p class="notrun">not run: no probe (<code>{PROBE_PREFIX}*</code>) or <code>{QUERY_BLIND}</code> run was passed. '
                "Pass their run folders, or <code>--probes PROBE_DIR/probe.json</code>, to <code>fashionrq report</code> to show them here.</p>")
    refs = [s for s in scored if s.report.get("system") == "random"] + [s for s in scored if s not in probes and s.report.get("system") != "random"]
    rows = [f"<tr><td>{escape(s.label)}</td>" + "".join(_value_cell(s, t, m) for t, m in heads.items()) + "</tr>" for s in [*probes, *refs]]
    return (html_table(["run", *(f"{t.upper()} {m}" for t, m in heads.items())], rows, "probes")
            + '<p class="note">A probe reads only public files; it should score like random on every task (<code>fashionrq probe</code> '
              "judges each cell against its chance band). "
              "The query-blind baseline never reads the query; the best real system should beat it clearly.</p>")


def _band(cell: dict) -> str:
    if cell.get("band_lower") is None or cell["verdict"] == "untestable":
        return ""
    return f' <span class=ci>[{cell["band_lower"]:.3f}, {cell["band_upper"]:.3f}]</span>'


def _probe_mark(cell: dict) -> str:
    return probe_mark(cell["verdict"], leak=bool(cell.get("leak")), silent=bool(cell.get("silent")), gated=cell.get("gated", True))


def probe_report_table(probes: dict) -> str:
    """Random's own interval per judged metric, every probe's and the query-blind score with its mark and chance band,
    and the verdict."""
    bands = probes["bands"]
    heads = [(b["task"], b["metric"]) for b in bands]
    rows = ["<tr><td>random</td>" + "".join(f'<td class=num>{b["score"]:.3f} <span class=ci>{_bounds(b["lower"], b["upper"], ".3f")}</span></td>'
                                            for b in bands) + "</tr>"]
    cells = {(c["system"], c["task"], c["metric"]): c for c in probes["cells"]}
    for system in dict.fromkeys(c["system"] for c in probes["cells"] if c["kind"] != "against"):
        row = [cells.get((system, t, m)) for t, m in heads]
        rows.append(f"<tr><td>{escape(system)}</td>" + "".join(
            "<td>–</td>" if c is None else f'<td class=num data-probe="{escape(system)}" data-task="{t}" data-metric="{escape(m)}" '
            f'data-score="{c["score"]}">{c["score"]:.3f} {_probe_mark(c)}{_band(c)}</td>' for (t, m), c in zip(heads, row)) + "</tr>")
    boot = probes.get("bootstrap") or {}
    return (html_table(["system", *(f"{t.upper()} {m}" + ("" if b.get("gated", True) else " †") for (t, m), b in zip(heads, bands))], rows, "probes")
            + f'<p class="note"><b>{escape(probes.get("verdict") or "")}.</b> Each probe cell shows its chance band: random\'s '
              f'score ± t(G−1) times the paired cluster-bootstrap standard error of Δ over random, G the task\'s bootstrap '
              f'units ({boot.get("resamples", 0):,} resamples), at the family-wise level {boot.get("family_level", 0.95):.4f}. '
              "▲ above it (a leak), · inside, ▼ below, ? untestable (the band reaches 1: too few units), △ above and not "
              "judged, ∅ silent (the attack scored every candidate alike; not judged), † shown, not judged. Random's row gives "
              "its own few-cluster interval. A probe reads only public files; the query-blind baseline never reads the query "
              "and is shown, not judged (docs/protocol.md).</p>")