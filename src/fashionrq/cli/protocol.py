"""``fashionrq commit | verify | score | compare | audit``: the evaluation protocol's gates from the command line."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from fashionrq.layout import refuse_in_release
from fashionrq.progress import console, results
from fashionrq.protocol.commitment import commit_run, ledger_is_torn
from fashionrq.protocol.components import SHARED_MARK
from fashionrq.errors import ReleaseTamperedError
from fashionrq.release import verify_release


def commit_command(
    run: Path = typer.Argument(..., help="Run folder with run.json and prediction files (t1.run, t2.jsonl, t3.run, t4.run)."),
    bench: Path = typer.Option(None, "--bench", help="Release the run was made for; refuses a run.json naming another release."),
) -> None:
    """Hash the prediction files and append a commitment to RUN/commitments.jsonl (before any label is opened)."""
    refuse_in_release(run, "run folder")
    torn = ledger_is_torn(run)
    record = commit_run(run, bench)
    if torn:
        console.print(f"repaired {run / 'commitments.jsonl'}: dropped its half-written last line (an interrupted commit)", soft_wrap=True)
    for name, entry in sorted(record["files"].items()):
        console.print(f"  {name}: {entry['rows']:,} rows, sha256 {entry['sha256']}", soft_wrap=True)
    console.print(f"committed {run} as {record['hash']} (release {record['release'][:12]}…, {record['timestamp']})", soft_wrap=True)


def verify_command(
    bench: Path = typer.Argument(..., help="Release folder (BENCH) with manifest.json."),
) -> None:
    """Re-hash every file listed in BENCH/manifest.json and report changed, missing and unlisted files."""
    report = verify_release(bench)
    if not report.ok:
        raise ReleaseTamperedError(report.sentence())
    console.print(report.sentence())


def _print_scores(report: dict) -> None:
    table = Table(title=f"{report['system']} — commitment {report['commitment']['hash'][:12]}", show_edge=False)
    for column in ("task", "metric", "mean over units", "mean over clusters", "units", "clusters"):
        table.add_column(column, justify="left" if column in ("task", "metric") else "right")
    for task, entry in report["tasks"].items():
        for metric, value in entry["aggregate"].items():
            macro = entry["cluster_macro"].get(metric)
            table.add_row(task.upper(), metric, f"{value:.4f}", "" if macro is None else f"{macro:.4f}",
                          f"{entry['n_units']:,}", f"{entry['n_clusters']:,}")
    console.print(table)
    from fashionrq.taskspec import MIN_UNITS

    for task, why in report.get("not_scored", {}).items():
        console.print(f"{task.upper()}: not scored ({why})")
    weak = [f"{task.upper()} ({entry['n_clusters']})" for task, entry in report["tasks"].items() if entry["n_clusters"] < MIN_UNITS]
    if weak:
        console.print(f"[yellow]weak:[/] fewer than {MIN_UNITS} bootstrap units (clusters) in {', '.join(weak)}: "
                      "their intervals are too wide to rank systems by", soft_wrap=True)
    if "relevance" in report:
        rel = report["relevance"]
        attrs = Table(title=f"T1 weighted relevance R@10 = {rel['R@10']:.4f}; AttrScore with annotation coverage", show_edge=False)
        for column in ("attribute", "AttrScore", "coverage", "queries"):
            attrs.add_column(column, justify="left" if column == "attribute" else "right")
        for attr, entry in rel["attributes"].items():
            if entry["attr_score"] is not None:
                attrs.add_row(attr, f"{entry['attr_score']:.4f}", f"{entry['coverage']:.1%}", f"{entry['n_queries']:,}")
        console.print(attrs)


def score_command(
    run: Path = typer.Argument(..., help="Committed run folder."),
    bench: Path = typer.Option(..., "--bench", help="Release folder (BENCH)."),
    out: Path = typer.Option(None, "--out", help="Score JSON to write (default: RUN/scores.json)."),
    relevance: bool = typer.Option(True, "--relevance/--no-relevance", help="Also compute weighted relevance R@10 and AttrScore on T1."),
    gain: str = typer.Option(None, "--gain", help="Gain per grade for nDCG in trec_eval's syntax, e.g. ESCI's 3=1,2=0.1,1=0.01 (unmapped grades keep their value)."),
    unsealed: bool = typer.Option(False, "--unsealed", help="Score a run made without a sealed process (marked unsealed in the output)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing score file."),
) -> None:
    """Score a committed run: refuses a tampered release, an uncommitted, changed or unsealed run, and any malformed file."""
    from fashionrq.protocol.scoring import check_output, score_run, write_json

    target = check_output(out or Path(run) / "scores.json", force)  # refused before the (slower) scoring
    scored = score_run(bench, run, relevance=relevance, gains=gain, unsealed=unsealed)
    path = write_json(scored.report, target, force)
    _print_scores(scored.report)
    if not scored.report["isolation"]["sealed"]:
        console.print(f"[bold yellow]unsealed run[/]: made without isolation (mechanism {scored.report['isolation']['mechanism']}); its scores are marked unsealed.")
    elif scored.report["isolation"]["mechanism"] == "mount-namespace":
        console.print("[bold yellow]weaker seal[/]: made under mount-namespace, a deny-list that hid the release but left other "
                      "folders, copies of the release among them, readable (docs/protocol.md, \"Threat model\").")
    console.print(f"wrote {path}")


def _print_comparison(result: dict) -> None:
    from fashionrq.protocol.compare import cell_text
    from fashionrq.taskspec import TASKS

    boot = result["bootstrap"]
    heads = result["headline"]
    table = Table(title=f"paired cluster bootstrap, {boot['resamples']:,} resamples, seed {boot['seed']}, {boot['level']:.0%} interval; Δ = B − A",
                  show_edge=False)
    for column in ("B", "A", *(f"{t.upper()} {m}" for t, m in heads.items())):
        table.add_column(column)
    for pair in result["pairs"]:
        cells = []
        for task in heads:
            entry = pair["gate"]["tasks"][task]
            cells.append(cell_text(entry))
        table.add_row(*(f"{n} {SHARED_MARK}" if result["runs"][n].get("shares_construction") else n for n in (pair["b"], pair["a"])), *cells)
    console.print(table)
    corr = result["correction"]
    console.print(f"multiple comparisons: {corr['method']} over the {corr['family']} (alpha {corr['alpha']:.2f})", soft_wrap=True)
    for pair in result["pairs"]:
        holm = "promoted" if pair["gate"]["promoted_holm"] else "not promoted"
        console.print(f"  {pair['b']} over {pair['a']}: {pair['gate']['verdict']}; Holm p {pair['gate']['p_holm']:.4f}: {holm}",
                      soft_wrap=True, highlight=False)
    if result.get("not_scored"):
        console.print("  not scored (no queries in this release): " + ", ".join(TASKS[t].name for t in result["not_scored"]), soft_wrap=True)
    for flag in result.get("analysis", {}).get("flags", []):
        console.print(f"  aggregation flip: {flag}", soft_wrap=True)
    for name, entry in result["runs"].items():
        if not (entry.get("isolation") or {}).get("sealed"):
            console.print(f"  [bold yellow]unsealed run[/]: {name} was made without isolation", soft_wrap=True)
        if entry.get("shares_construction"):
            console.print(f"  {SHARED_MARK} {name} shares with the construction: {', '.join(entry['shares_construction'])}",
                          soft_wrap=True, highlight=False, markup=False)


def compare_command(
    runs: list[Path] = typer.Argument(..., help="Two or more committed run folders."),
    bench: Path = typer.Option(..., "--bench", help="Release folder (BENCH)."),
    resamples: int = typer.Option(10_000, "--resamples", help="Bootstrap resamples."),
    seed: int = typer.Option(0, "--seed", help="Seed of the resampling (recorded in the output)."),
    level: float = typer.Option(0.95, "--level", help="Level of the few-cluster intervals (t(G-1) · bootstrap SE)."),
    headline: str = typer.Option(None, "--headline", help="Override headline metrics, e.g. 't1=ndcg@5,t3=recall@1(rel=3)'."),
    relevance: bool = typer.Option(False, "--relevance/--no-relevance", help="Also score weighted relevance (slower) for AttrScore sensitivity."),
    out: Path = typer.Option(None, "--out", help="Comparison JSON to write (default: print only)."),
    markdown: Path = typer.Option(None, "--markdown", help="Also write the verdict table as Markdown to this file."),
    unsealed: bool = typer.Option(False, "--unsealed", help="Accept runs made without a sealed process (marked unsealed)."),
    force: bool = typer.Option(False, "--force", help="Replace existing --out and --markdown files."),
) -> None:
    """Paired cluster bootstrap of every pair of runs on every task, with the conjunctive promotion gate."""
    from fashionrq.protocol.compare import compare_runs, verdict_markdown
    from fashionrq.protocol.scoring import check_output, write_json, write_output

    for path in (out, markdown):
        if path is not None:
            check_output(path, force)
    result = compare_runs(bench, runs, resamples=resamples, seed=seed, level=level, headline=headline, relevance=relevance,
                          unsealed=unsealed)
    _print_comparison(result)
    if out is not None:
        console.print(f"wrote {write_json(result, out, force)}")
    if markdown is not None:
        console.print(f"wrote {write_output(verdict_markdown(result), markdown, force)}")


#: Exit code of ``fashionrq audit`` when a label bar fails (as ``fashionrq probe`` exits 1 on a leak).
AUDIT_FAILED_EXIT_CODE = 1


def audit_command(
    bench: Path = typer.Argument(..., help="Release folder (BENCH); the audit reads its labels."),
    against: list[Path] = typer.Option(None, "--against", help="A run folder whose attribute oracle to show beside it; give --against once per run."),
    resamples: int = typer.Option(1000, "--resamples", min=1, help="Bootstrap resamples for the oracle's 95% interval."),
    seed: int = typer.Option(0, "--seed", help="Seed of the resampling."),
    as_json: bool = typer.Option(False, "--json", help="Print the audit as JSON."),
) -> None:
    """Audit the labels against the queries: full matches by grade, ambiguous T3 queries, query precision and sibling
    separation, and the attribute oracle; exit 1 when a label fails a bar (docs/benchmark.md, "Label audit")."""
    import json

    from fashionrq.protocol.audit import audit_release

    audit = audit_release(bench, runs=against or (), resamples=resamples, seed=seed)
    if as_json:
        print(json.dumps(audit.to_dict(), indent=2, sort_keys=True))
    else:
        results.print(str(audit), markup=False, highlight=False, soft_wrap=True)
    if not audit.passed:
        raise typer.Exit(AUDIT_FAILED_EXIT_CODE)


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_command)
    app.command("commit")(commit_command)
    app.command("verify")(verify_command)
    app.command("score")(score_command)
    app.command("compare")(compare_command)
