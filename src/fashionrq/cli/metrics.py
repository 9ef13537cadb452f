"""``fashionrq trec-eval``: a drop-in for trec_eval (every measure pytrec_eval supports, trec_eval's output)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fashionrq.progress import console


def lighten_process(args: list[str]) -> None:
    """In a process that only runs ``trec-eval``: keep pyarrow from importing pandas, use the system allocator.

    pyarrow imports pandas (0.3 s of CPU) on first use just to recognise pandas objects; trec-eval never passes
    any. Called only from the process entry point, never in-process, so no other caller is affected.
    """
    if args[:1] != ["trec-eval"]:
        return
    if "pandas" not in sys.modules:
        sys.meta_path.insert(0, _NoPandas())
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())  # fewer page faults than mimalloc here: ~0.3 s less system CPU


class _NoPandas:
    """An import finder that reports pandas as absent, which pyarrow handles as 'pandas not installed'."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"pandas is not loaded by fashionrq trec-eval ({name})", name=name)


def _is_fashionrq_name(spec: str) -> bool:
    return "@" in spec or "(rel=" in spec


def trec_eval_command(
    qrels_path: Path = typer.Argument(..., metavar="QRELS", help="TREC qrels file: 'qid iter docno grade' lines."),
    run_path: Path = typer.Argument(..., metavar="RUN", help="TREC run file: 'qid Q0 docno rank score tag' lines."),
    measure: list[str] = typer.Option(
        None,
        "-m",
        "--measure",
        "--metric",
        help="Measure, repeatable, in trec_eval syntax: official (the default), all_trec, set, map, P.5,10, "
        "ndcg_cut.5,10,20, success.1,5,10, iprec_at_recall, Rprec, bpref, num_rel, ... and gain maps such as "
        "ndcg.3=100,2=10,1=1. fashionrq names (ndcg@10, recall@10(rel=3), ...) are printed after them.",
    ),
    per_query: bool = typer.Option(False, "-q", "--per-query", help="Print every query's values before the 'all' summary."),
    complete: bool = typer.Option(
        False, "-c", "--complete", help="Average over every query in the qrels (those without results count as 0), as trec_eval -c."
    ),
    level: int = typer.Option(1, "-l", "--level", help="Relevance level: grades >= LEVEL count as relevant (trec_eval -l)."),
    judged_only: bool = typer.Option(False, "-J", help="Drop unjudged documents from the ranking first (trec_eval -J)."),
    max_docs: int = typer.Option(None, "-M", min=1, help="Evaluate only the top MAX documents of each query (trec_eval -M)."),
    num_docs: int = typer.Option(0, "-N", min=0, help="Documents in the collection, for utility (trec_eval -N)."),
) -> None:
    """Evaluate a TREC run against qrels and print trec_eval's output, line for line."""
    from fashionrq.metrics.ranking import parse_metrics
    from fashionrq.metrics.trec import check_run_against_qrels, read_qrels, read_run
    from fashionrq.metrics.trec_eval import parse_measures, trec_eval

    specs = list(measure or [])
    ours = [s for s in specs if _is_fashionrq_name(s)]
    trec_specs = [s for s in specs if not _is_fashionrq_name(s)] or ([] if ours else None)
    parse_measures(trec_specs), parse_metrics(ours)  # refuse a bad name before reading any file
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    for sentence in check_run_against_qrels(run, qrels).describe(str(run_path), str(qrels_path)):
        console.print(f"[yellow]warning:[/] {sentence}", highlight=False, soft_wrap=True)
    text = ""
    if trec_specs is None or trec_specs:
        result = trec_eval(qrels, run, trec_specs, relevance_level=level, complete=complete, judged_only=judged_only,
                           max_docs=max_docs, num_docs=num_docs)
        for warning in result.warnings():
            console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
        text = result.format(per_query=per_query)
    if ours:
        text += _fashionrq_lines(qrels, run, ours, per_query, level, complete)
    sys.stdout.write(text)


def _fashionrq_lines(qrels, run, names: list[str], per_query: bool, level: int, complete: bool) -> str:
    """fashionrq-named metrics (ndcg@10, recall@10(rel=3), ...) in trec_eval's line format, after its measures."""
    from fashionrq.metrics.ranking import evaluate, parse_metrics

    parsed = parse_metrics(names)
    values = evaluate(qrels, run, [m.name for m in parsed], per_query=True, relevance_level=level, complete=complete)
    lines = []
    if per_query:
        for qid, row in values.items():
            lines.extend(f"{m.label:<22s}\t{qid}\t{row[m.name]:6.4f}\n" for m in parsed)
    for m in parsed:
        mean = sum(row[m.name] for row in values.values()) / len(values)
        lines.append(f"{m.label:<22s}\tall\t{mean:6.4f}\n")
    return "".join(lines)


def register(app: typer.Typer) -> None:
    app.command("trec-eval")(trec_eval_command)
