"""``fashionrq run`` (a system over a release, label-blind) and ``fashionrq leaderboard`` (score tables)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from fashionrq.errors import InputError
from fashionrq.progress import console


def parse_params(values: list[str]) -> dict:
    """``["k=30", "components=bm25,minilm"]`` -> ``{"k": 30, "components": "bm25,minilm"}`` (JSON values when they parse)."""
    params = {}
    for value in values or []:
        key, sep, raw = value.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--param '{value}' is not KEY=VALUE; write e.g. --param k=30.")
        try:
            params[key.strip()] = json.loads(raw)
        except ValueError:
            params[key.strip()] = raw
    return params


def run_command(
    bench: Path = typer.Option(..., "--bench", help="The release folder (only BENCH/public/ is read)."),
    system: str = typer.Option(..., "--system", help="random, bm25, tfidf, minilm, minilm-int8, e5-small, splade-tiny, hybrid, st:<model>, a probe-* attack or query-blind (see `fashionrq probe`), an entry point, or module:Class."),
    out: Path = typer.Option(..., "--out", help="The run folder to write (run.json, t1.run, t3.run, t4.run, t2.jsonl)."),
    param: list[str] = typer.Option(None, "--param", help="Constructor parameter of the system, KEY=VALUE (repeatable), e.g. k=30."),
    rerank: str = typer.Option(None, "--rerank", help="Second stage: 'verifier' (per-condition attribute checks) or module:Class."),
    depth: int = typer.Option(50, "--depth", min=1, help="How many first-stage candidates per query the reranker reorders."),
    alpha: float = typer.Option(None, "--alpha", min=0.0, max=1.0, help="Verifier: weight of the first-stage score against the constraint score."),
    regime: str = typer.Option("text", "--regime", help="Candidate regime: text (image and fused need an image encoder)."),
) -> None:
    """Run a retrieval system over a release's public files (never its labels) and write a run folder."""
    from fashionrq.systems import get_reranker, get_system, run_system

    retriever = get_system(system, **parse_params(param))
    reranker = None
    if rerank:
        options = {"depth": depth} | ({"alpha": alpha} if alpha is not None else {})
        reranker = get_reranker(rerank, **options)
    run = run_system(bench, retriever, out, reranker=reranker, regime=regime)
    console.print(f"wrote {out}: {', '.join(['run.json', 't1.run', 't3.run', 't4.run', 't2.jsonl'])} for system {run['system']} (release {run['release'][:12]})")


def leaderboard_command(
    bench: Path = typer.Argument(..., help="The release folder the scores belong to."),
    scores: list[Path] = typer.Argument(..., help="Score JSON files written by `fashionrq score`, or run folders holding them."),
    depth: int = typer.Option(None, "--depth", min=1, help="Top-k of the 'hit in the first stage' condition (default: the run's rerank depth, else 50)."),
    out: Path = typer.Option(None, "--out", help="Also write the tables as Markdown to this file."),
) -> None:
    """Print the task table (Table 2), the attribute table (Table 3) and the conditional-on-hit table."""
    from fashionrq.report import leaderboard

    text = leaderboard(bench, scores, depth=depth, console=console)
    if out is not None:
        out.write_text(text, encoding="utf-8")
        console.print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)
    app.command("leaderboard")(leaderboard_command)
