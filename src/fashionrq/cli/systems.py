"""``fashionrq run`` (a system over a release, label-blind) and ``fashionrq leaderboard`` (score tables)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from fashionrq.errors import InputError
from fashionrq.progress import console
from fashionrq.limits import DEFAULT_MEMORY_LIMIT_GIB, DEFAULT_TIME_LIMIT_S


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
    system: str = typer.Option(..., "--system", help="random, bm25, tfidf, minilm, minilm-int8, e5-small, splade-tiny, hybrid, image-descriptor, st:<model>, open_clip:<model>, a probe-* attack or query-blind (see `fashionrq probe`), an entry point, or module:Class."),
    out: Path = typer.Option(..., "--out", help="The run folder to write (run.json, t1o.run, t1.run, t3.run, t4.run, t2.jsonl)."),
    first_stage_out: Path = typer.Option(None, "--first-stage-out", help="With --rerank: also write the first stage alone, as its own run folder (the run --system alone would write)."),
    param: list[str] = typer.Option(None, "--param", help="Constructor parameter of the system, KEY=VALUE (repeatable), e.g. k=30."),
    rerank: str = typer.Option(None, "--rerank", help="Pointwise second stage: 'verifier' (per-condition attribute checks) or module:Class."),
    depth: int = typer.Option(50, "--depth", min=1, help="How many first-stage candidates per query the reranker re-scores (ties keep first-stage rank)."),
    regime: str = typer.Option("text", "--regime", help="Candidate regime: text (catalog fields), image (the photo: derived attributes, descriptor, pixels) or fused (both)."),
    engine: str = typer.Option(None, "--engine", help="Open-corpus search in engine chunks: local or ray (needs pip install fashionrq[ray]); both give byte-identical runs. Default: in the sealed process."),
    address: str = typer.Option(None, "--address", help="Ray cluster to join with --engine ray: auto, HOST:PORT or ray://HOST:10001 (default: start a local one)."),
    chunk_rows: int = typer.Option(4096, "--chunk-rows", min=1, help="Queries per engine chunk; the same value gives the same bytes on every engine."),
    index: str = typer.Option("exact", "--index", help="Open-corpus dense index: exact (faiss IndexFlatIP, or numpy without faiss), hnsw or ivf (approximate; their recall against exact goes into run.json; need pip install fashionrq[scale])."),
    force: bool = typer.Option(False, "--force", help="Replace an existing, uncommitted run folder."),
    time_limit: float = typer.Option(DEFAULT_TIME_LIMIT_S, "--time-limit", help="Wall-clock seconds the sealed child may run before it and every process it started are killed."),
    memory_limit: float = typer.Option(DEFAULT_MEMORY_LIMIT_GIB, "--memory-limit", help="Memory (GiB) of the sealed run: the address space of each of its processes (RLIMIT_AS) and the memory they hold together."),
) -> None:
    """Run a retrieval system, sealed in a child process that sees only the release's public files, and write a run folder."""
    from fashionrq.systems import run_system
    from fashionrq.limits import Limits

    run = run_system(bench, system, out, reranker=rerank or None, regime=regime, depth=depth, first_stage_out=first_stage_out,
                     params=parse_params(param), engine=engine, address=address, chunk_rows=chunk_rows, index=index,
                     force=force, limits=Limits(time_limit, memory_limit))
    console.print(f"wrote {out}: {', '.join(['run.json', 't1o.run', 't1.run', 't3.run', 't4.run', 't2.jsonl'])} for system {run['system']} "
                  f"(release {run['release'][:12]}, isolation: {run['isolation']['mechanism']})")
    if first_stage_out is not None:
        console.print(f"wrote {first_stage_out}: its first stage alone, for the before/after-rerank table (`fashionrq leaderboard`)")
    recall = {k: v for k, v in run["config"].get("open_corpus_index", {}).items() if k.startswith("recall@")}
    for name, value in recall.items():
        console.print(f"open-corpus index {index}: {name} {value:.4f} (share of the exact top hits it returned)")


def leaderboard_command(
    bench: Path = typer.Argument(..., help="The release folder the scores belong to."),
    scores: list[Path] = typer.Argument(..., help="Score JSON files written by `fashionrq score`, or run folders holding them."),
    depth: int = typer.Option(None, "--depth", min=1, help="Top-k of the 'hit in the first stage' condition (default: the run's rerank depth, else 50)."),
    out: Path = typer.Option(None, "--out", help="Also write the tables as Markdown to this file."),
    unsealed: bool = typer.Option(False, "--unsealed", help="Show runs made without a sealed process (labelled unsealed)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
) -> None:
    """Print the task table (Table 2), the attribute table (Table 3), the conditional-on-hit table and, for each
    two-stage run given with its first stage, open-corpus T1 before and after reranking.

    Every number is verified first: each run is rescored from its committed predictions, and a score file
    that was edited or is stale is refused."""
    from fashionrq.protocol.scoring import check_output, write_output
    from fashionrq.report.leaderboard import leaderboard

    if out is not None:
        check_output(out, force)
    text = leaderboard(bench, scores, depth=depth, console=console, unsealed=unsealed)
    if out is not None:
        console.print(f"wrote {write_output(text, out, force)}")


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)
    app.command("leaderboard")(leaderboard_command)
