"""``fashionrq trec-eval``: trec_eval-style evaluation of a TREC run file against a qrels file."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from fashionrq.progress import console

DEFAULT_METRICS = ["ndcg_cut.10", "recall.10", "recip_rank"]


def trec_eval_command(
    qrels_path: Path = typer.Argument(..., metavar="QRELS", help="TREC qrels file: 'qid iter docno grade' lines."),
    run_path: Path = typer.Argument(..., metavar="RUN", help="TREC run file: 'qid Q0 docno rank score tag' lines."),
    metric: list[str] = typer.Option(
        None,
        "-m",
        "--metric",
        help="Metric, repeatable: ndcg_cut.K, recall.K, P.K, recip_rank, map, or ndcg@K, ndcg_exp@K, recall@K, "
        "capped_recall@K, hit_rate@K, mrr@K, precision@K; '(rel=N)' sets a binary metric's relevance level. "
        "Default: ndcg_cut.10, recall.10, recip_rank.",
    ),
    per_query: bool = typer.Option(False, "-q", "--per-query", help="Also print every query's value before the 'all' means."),
    complete: bool = typer.Option(
        False, "-c", "--complete", help="Average over every judged query; queries without results score 0 (trec_eval -c)."
    ),
    level: int = typer.Option(1, "-l", "--level", help="Relevance level: grades >= LEVEL count as relevant (trec_eval -l)."),
) -> None:
    """Evaluate a TREC run against qrels and print 'metric<TAB>qid<TAB>value' lines like trec_eval."""
    import numpy as np  # imported here so other commands start without the metrics stack

    from fashionrq.metrics import check_run_against_qrels, evaluate, parse_metrics, read_qrels, read_run

    names = metric or DEFAULT_METRICS
    parsed = parse_metrics(names)
    # trec_eval prints its measures in its own table order (cutoffs ascending); fashionrq names follow in given order
    parsed = sorted(parsed, key=lambda m: (m.trec_position is None, m.trec_position or 0, m.k or 0))  # stable sort
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    for sentence in check_run_against_qrels(run, qrels).describe(str(run_path), str(qrels_path)):
        console.print(f"[yellow]warning:[/] {sentence}", highlight=False, soft_wrap=True)
    values = evaluate(qrels, run, [m.name for m in parsed], per_query=True, relevance_level=level, complete=complete)
    lines = []
    if per_query:
        for qid, row in values.items():
            lines.extend(f"{m.label:<22s}\t{qid}\t{row[m.name]:6.4f}\n" for m in parsed)
    for m in parsed:
        mean = float(np.mean([row[m.name] for row in values.values()]))
        lines.append(f"{m.label:<22s}\tall\t{mean:6.4f}\n")
    sys.stdout.write("".join(lines))


def register(app: typer.Typer) -> None:
    app.command("trec-eval")(trec_eval_command)
