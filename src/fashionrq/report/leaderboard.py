"""Leaderboard tables from score JSON files (``fashionrq score``): tasks side by side, attributes, rerank conditionals.

Every score file is verified before it is shown (``fashionrq.pipeline.scores``): its run is rescored from the
committed predictions and the labels, and a file that differs in any number is refused.

* Table 2 equivalent: each task's metrics in its own columns, one row per run, never averaged over tasks.
* Table 3 equivalent: weighted relevance R@10 and, per φ attribute, AttrScore with its annotation coverage;
  a companion table gives T1 Recall@10 over the queries that express each attribute.
* Two-stage retrieval over the catalog (:mod:`fashionrq.report.twostage`): open-corpus T1 before and after
  reranking, for every two-stage run given with its first stage.
* Rerank conditional: T1 metrics over the queries whose run has an Exact (grade 3) item in its top ``depth``
  — for a verifier run, whose top ``depth`` set is the first stage's, these are exactly the queries the
  first stage had a hit for, so the first-stage run scored on the same release gets the same subset.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from fashionrq.errors import InputError
from fashionrq.layout import qrels_file
from fashionrq.pipeline.scores import as_written, verified_scores
from fashionrq.progress import print_table
from fashionrq.protocol import check_commitment, load_pools
from fashionrq.protocol.components import SHARED_MARK, run_shares, shared_note
from fashionrq.protocol.scoring import ScoredRun
from fashionrq.protocol.validate import validate_ranking
from fashionrq.release import Release
from fashionrq.report.tables import Scored, markdown, value_text, with_interval
from fashionrq.report.twostage import two_stage_pairs, two_stage_table
from fashionrq.tasks.bench import read_qrels
from fashionrq.taskspec import MIN_UNITS, TASKS

#: Short column labels of metric names (by prefix).
SHORT_METRICS = {"ndcg@": "nDCG@", "recall@": "R@", "consistency@": "Cons@", "macro_f1": "Macro-F1", "accuracy": "Acc"}
#: T1 metrics of the conditional table ("recall@10" and "mrr@10" count Exact items; "(rel=1)" grades 1-3).
CONDITIONAL_METRICS = ("ndcg@10", "recall@10", "recall@10(rel=1)", "mrr@10")


def load_scores(bench: str | Path, paths: Sequence[str | Path], unsealed: bool = False) -> list[Scored]:
    """Score JSON files (or RUN folders holding ``scores.json``), each verified by rescoring its run
    (``pipeline.scores.verified_scores``), as labelled :class:`Scored` runs."""
    return labelled(verified_scores(bench, paths, unsealed), bench)


def labelled(reports: Sequence[tuple[ScoredRun, Path]], bench: str | Path | None = None) -> list[Scored]:
    """``(scored run, score file path)`` pairs as :class:`Scored` runs with distinct labels; with ``bench``, a run that
    shares a model with its construction is marked † (``protocol.components``)."""
    out: list[Scored] = []
    taken: set[str] = set()
    for scored, path in reports:
        report = as_written(scored.report)
        shares = tuple(run_shares(bench, report["run"])) if bench is not None else ()
        base = str(report.get("system") or path.parent.name) + ("" if report["isolation"]["sealed"] else " (unsealed)")
        label = base if base not in taken else f"{base} ({path.parent.name})"
        taken.add(label)
        out.append(Scored(label + (f" {SHARED_MARK}" if shares else ""), report, path, scored, shares))
    if not out:
        raise InputError("no score files given; pass at least one score JSON or RUN folder.")
    return out


def _mark_best(rows: list[list[str]], values: list[list[float | None]], start: int) -> list[list[str]]:
    """Wrap the best value of each numeric column in ``**`` and the second best in ``_``."""
    for col in range(start, len(rows[0]) if rows else 0):
        column = sorted({v[col - start] for v in values if v[col - start] is not None}, reverse=True)
        for row, vals in zip(rows, values):
            value = vals[col - start]
            if value is not None and len(values) > 1:
                if value == column[0]:
                    row[col] = f"**{row[col]}**"
                elif len(column) > 1 and value == column[1]:
                    row[col] = f"_{row[col]}_"
    return rows


def short_metric(metric: str) -> str:
    """A metric's column label: ``recall@10`` -> ``R@10``."""
    prefix = next((p for p in SHORT_METRICS if metric.startswith(p)), None)
    return metric if prefix is None else SHORT_METRICS[prefix] + metric[len(prefix):]


def registered_columns() -> list[tuple[str, str, str]]:
    """(task, metric key in the score JSON, column header) of each task's headline and secondary metric."""
    return [(key, metric, f"{spec.name} {short_metric(metric)}") for key, spec in TASKS.items() for metric in (spec.headline, spec.secondary)]


def task_columns(scored: Sequence[Scored]) -> list[tuple[str, str, str]]:
    """The :func:`registered_columns` some score file has; a task with none of them gets every metric its scores hold."""
    columns = [c for c in registered_columns() if any(s.aggregate(c[0], c[1]) is not None for s in scored)]
    for task in sorted({t for s in scored for t in s.report.get("tasks", {})}):
        if not any(c[0] == task for c in columns):
            metrics = sorted({m for s in scored for m in s.report["tasks"][task].get("aggregate", {})})
            columns += [(task, m, f"{task.upper()} {m}") for m in metrics]
    return columns


def weak_units(scored: Sequence[Scored]) -> dict[str, int]:
    """The scored tasks with fewer than ``MIN_UNITS`` bootstrap units (clusters), and their counts."""
    clusters = {task: entry["n_clusters"] for s in scored for task, entry in s.report.get("tasks", {}).items() if "n_clusters" in entry}
    return {task: n for task, n in clusters.items() if n < MIN_UNITS}


def weak_label(task: str, weak: dict[str, int]) -> str:
    """`` (weak: N units)`` for a weak task (:func:`weak_units`), else ``""``."""
    return f" (weak: {weak[task]} unit{'s' if weak[task] != 1 else ''})" if task in weak else ""


def quality_notes(scored: Sequence[Scored]) -> list[str]:
    """One sentence each for the tasks a weak release could not score and for its weak tasks (none: ``[]``)."""
    notes = []
    unscored = sorted({t for s in scored for t in s.report.get("not_scored", {})})
    if unscored:
        notes.append(f"Not scored (no queries in this release): {', '.join(t.upper() for t in unscored)}.")
    weak = weak_units(scored)
    if weak:
        notes.append(f"Weak tasks (fewer than {MIN_UNITS} bootstrap units, built with --allow-weak): "
                     + ", ".join(f"{t.upper()} ({n})" for t, n in weak.items()) + "; their intervals are too wide to rank systems by.")
    return notes


def task_table(scored: Sequence[Scored]) -> tuple[list[str], list[list[str]]]:
    """Table 2: one row per run, every task's metrics side by side (no cross-task average), each with its 95% interval;
    a weak task's columns say so (:func:`weak_units`)."""
    columns = task_columns(scored)
    weak = weak_units(scored)
    header = ["system", *(name + weak_label(task, weak) for task, _, name in columns)]
    values = [[s.aggregate(task, metric) for task, metric, _ in columns] for s in scored]
    rows = [[s.label, *(with_interval(v, s.interval(t, m)) for v, (t, m, _) in zip(vals, columns))]
            for s, vals in zip(scored, values)]
    return header, _mark_best(rows, values, 1)


def _attributes(scored: Sequence[Scored]) -> dict[str, int]:
    """Every φ attribute any run reports, with the number of T1 queries expressing it (annotation count)."""
    counts: dict[str, int] = {}
    for s in scored:
        for attr, entry in (s.report.get("relevance") or {}).get("attributes", {}).items():
            if entry.get("n_queries"):
                counts[attr] = max(counts.get(attr, 0), int(entry["n_queries"]))
        for attr, entry in s.report.get("tasks", {}).get("t1", {}).get("breakdowns", {}).get("by_attribute", {}).items():
            n = (entry.get("present") or {}).get("n")
            if n:
                counts[attr] = max(counts.get(attr, 0), int(n))
    return counts


def attribute_table(scored: Sequence[Scored]) -> tuple[list[str], list[list[str]]]:
    """Table 3: one row per run; weighted relevance R@10, then AttrScore (annotation coverage) per attribute."""
    counts = _attributes(scored)
    header = ["system", "Rel (R@10)", *(f"{a} (n={n:,})" for a, n in counts.items())]
    rows, values = [], []
    for s in scored:
        relevance = s.report.get("relevance") or {}
        entries = [relevance.get("attributes", {}).get(a) or {} for a in counts]
        vals = [relevance.get("R@10"), *(e.get("attr_score") for e in entries)]
        cells = [value_text(vals[0])]
        for e in entries:
            score, coverage = e.get("attr_score"), e.get("coverage")
            cells.append(value_text(score) + (f" ({coverage:.0%})" if score is not None and coverage is not None else ""))
        rows.append([s.label, *cells])
        values.append(vals)
    return header, _mark_best(rows, values, 1)


def attribute_recall_table(scored: Sequence[Scored]) -> tuple[list[str], list[list[str]]]:
    """T1 Recall@10 over the queries expressing each attribute (from the score's breakdowns), one row per run."""
    counts = _attributes(scored)
    header = ["system", "all queries", *(f"{a} (n={n:,})" for a, n in counts.items())]
    rows, values = [], []
    for s in scored:
        t1 = s.report.get("tasks", {}).get("t1", {})
        by_attr = t1.get("breakdowns", {}).get("by_attribute", {})
        vals = [t1.get("aggregate", {}).get("recall@10"),
                *((by_attr.get(a, {}).get("present") or {}).get("recall@10") for a in counts)]
        rows.append([s.label, *map(value_text, vals)])
        values.append(vals)
    return header, _mark_best(rows, values, 1)


def controlled_counts(scored: Sequence[Scored]) -> tuple[str | None, list[str]]:
    """The task and fused variant labels (``1T+1I`` … ``5T+5I``) of the controlled constraint counts of an MCMR
    release (``by_constraints``, open-corpus T1 first); ``(None, [])`` when no score file has them."""
    for task in ("t1o", "t1"):
        tables = [s.report.get("tasks", {}).get(task, {}).get("breakdowns", {}).get("by_constraints", {}).get("by_variant", {})
                  for s in scored]
        labels = list(dict.fromkeys(k for table in tables for k in table if "+" in k))
        if labels:
            return task, labels
    return None, []


def constraint_count_table(scored: Sequence[Scored], metric: str = "ndcg@10") -> tuple[list[str], list[list[str]]]:
    """``metric`` by constraint count, one row per run: the controlled k_T = k_I queries of an MCMR release
    (seed 003 §5.2) when the score files have them, else T1 by the number of attributes φ(q) happens to express."""
    task, labels = controlled_counts(scored)
    if task is not None:
        tables = [s.report["tasks"][task]["breakdowns"]["by_constraints"]["by_variant"] if task in s.report["tasks"] else {}
                  for s in scored]
        keys, names = labels, {k: f"{task.upper()} {k}" for k in labels}
    else:
        tables = [s.report.get("tasks", {}).get("t1", {}).get("breakdowns", {}).get("by_n_attributes", {}) for s in scored]
        keys, names = sorted({k for t in tables for k in t}, key=int), {}
    counts = {k: max(int((t.get(k) or {}).get("n", 0)) for t in tables) for k in keys}
    header = ["system", *(f"{names.get(k, f'{k} attributes')} (n={counts[k]:,})" for k in keys)]
    rows, values = [], []
    for s, table in zip(scored, tables):
        vals = [(table.get(k) or {}).get(metric) for k in keys]
        rows.append([s.label, *map(value_text, vals)])
        values.append(vals)
    return header, _mark_best(rows, values, 1)


def _exact_hits(bench: Path, run_dir: Path, depth: int) -> tuple[set[str], int]:
    """T1 queries whose run (in submitted rank order) has a grade-3 item in its top ``depth``, and the T1 query count."""
    check_commitment(run_dir)
    qrels = read_qrels(Release(bench, verify=False).label_path(qrels_file("t1"))).to_dict()
    ranked = validate_ranking(run_dir / TASKS["t1"].run_file, load_pools(bench).ranking("t1"))
    hits = {qid for qid, items in ranked.items()
            if any(qrels.get(qid, {}).get(item, 0) >= 3 for item, _ in items[:depth])}
    return hits, len(ranked)


def conditional_table(bench: str | Path, scored: Sequence[Scored], depth: int | None) -> tuple[list[str], list[list[str]]]:
    """T1 end to end and conditional on an Exact item in the run's top ``depth`` (default: its rerank depth or 50)."""
    header = ["system", "rerank", "depth", "queries hit/total"]
    header += [f"{m}" for m in CONDITIONAL_METRICS] + [f"{m} given hit" for m in CONDITIONAL_METRICS]
    rows = []
    for s in scored:
        per_unit = s.per_unit("t1")
        run_dir = Path(s.report.get("run", ""))
        if not per_unit or not (run_dir / TASKS["t1"].run_file).is_file():
            continue
        rerank = (s.run_config().get("config") or {}).get("rerank") or {}
        k = depth or rerank.get("depth") or 50
        hits, total = _exact_hits(Path(bench), run_dir, k)
        end = [sum(u[m] for u in per_unit.values()) / len(per_unit) for m in CONDITIONAL_METRICS]
        sub = [per_unit[q] for q in per_unit if q in hits]
        cond = [sum(u[m] for u in sub) / len(sub) if sub else None for m in CONDITIONAL_METRICS]
        rows.append([s.label, rerank.get("name", "–"), str(k), f"{len(hits):,}/{total:,}", *map(value_text, end), *map(value_text, cond)])
    return header, rows


def _rich(title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = Table(title=title, show_edge=False)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(c.replace("**", "[bold]", 1).replace("**", "[/bold]", 1) if c.startswith("**") else
                        f"[underline]{c[1:-1]}[/underline]" if c.startswith("_") and c.endswith("_") else c for c in row))
    return table


def constraint_count_title(scored: Sequence[Scored], metric: str = "nDCG@10") -> str:
    task, _ = controlled_counts(scored)
    if task is None:
        return f"T1 {metric} by the number of attributes in φ(q) (constraint count)"
    return f"{task.upper()} {metric} by constraint count: k text- and k image-derived constraints per query (controlled, MCMR Table 8)"


def leaderboard(bench: str | Path, paths: Sequence[str | Path], depth: int | None = None, console=None,
                unsealed: bool = False) -> str:
    """Build the tables from verified score JSON files (see :func:`load_scores`); print them to ``console`` (rich)
    if given; return Markdown."""
    return leaderboard_of(bench, load_scores(bench, paths, unsealed), depth, console)


def leaderboard_of(bench: str | Path, scored: Sequence[Scored], depth: int | None = None, console=None) -> str:
    """:func:`leaderboard` over runs already scored; the T1 tables are left out when the release has no T1 query."""
    has_t1 = any("t1" in s.report.get("tasks", {}) for s in scored)
    tables = [("Tasks (Table 2): best in bold, second in italics; tasks are never averaged; [95% interval of the run]", *task_table(scored))]
    if has_t1:
        tables += [
            ("Weighted relevance R@10 and AttrScore (annotation coverage) per attribute (Table 3), T1 top 10",
             *attribute_table(scored)),
            ("T1 Recall@10 over the queries expressing each attribute", *attribute_recall_table(scored)),
        ]
    if has_t1 or controlled_counts(scored)[0] is not None:
        tables.append((constraint_count_title(scored), *constraint_count_table(scored)))
    if has_t1:
        tables.append(("T1 end to end and given a hit (an Exact item in the run's top depth; pools no larger than depth always hit)",
                       *conditional_table(bench, scored, depth)))
    tables += [two_stage_table(bench, pair) for pair in two_stage_pairs(bench, scored)]
    note = "\n".join(n for n in [shared_note({s.label: list(s.shares) for s in scored}), *quality_notes(scored)] if n)
    if console is not None:
        for title, header, rows in tables:
            print_table(_rich(title, header, rows), console)
        if note:
            console.print(note, markup=False, highlight=False, soft_wrap=True)
    return "\n".join(markdown(title, header, rows) for title, header, rows in tables) + (f"\n{note}" if note else "")
