"""``fashionrq report``: one self-contained report.html (and its Markdown twin) from a release and scored runs."""

from __future__ import annotations

from pathlib import Path

import typer

from fashionrq.progress import console


def report_command(
    bench: Path = typer.Argument(..., help="The release folder (BENCH) the runs were scored on."),
    runs: list[Path] = typer.Argument(..., help="Scored run folders (holding scores.json) or score JSON files."),
    out: Path = typer.Option(Path("report.html"), "--out", help="The HTML file to write."),
    images: Path = typer.Option(None, "--images", help="Folder of <item_id>.jpg product images: thumbnails in the worst-queries view."),
    comparison: Path = typer.Option(None, "--comparison", help="Comparison JSON from `fashionrq compare --out`; default: compare the runs now."),
    resamples: int = typer.Option(10_000, "--resamples", min=1, help="Bootstrap resamples when the runs are compared now."),
    seed: int = typer.Option(0, "--seed", help="Seed of that bootstrap."),
    probes: Path = typer.Option(None, "--probes", help="probe.json written by `fashionrq probe --out DIR`: the probes section shows its table."),
    markdown: Path = typer.Option(None, "--markdown", help="Also write the plain-text twin (leaderboard and verdict tables) here."),
    force: bool = typer.Option(False, "--force", help="Replace existing output files."),
) -> None:
    """Write report.html: leaderboard with intervals, verdicts, AttrScore, constraints, SID tree, tiers, probes, worst queries."""
    from fashionrq.io import atomic_write_text, refuse_existing
    from fashionrq.protocol.compare import compare_runs, verdict_markdown
    from fashionrq.report.leaderboard import leaderboard
    from fashionrq.report.page import write_report

    refuse_existing(out, force)
    if markdown is not None:
        refuse_existing(markdown, force)
    result = None
    if comparison is None and len(runs) >= 2:
        console.print(f"comparing {len(runs)} runs ({resamples:,} resamples) …")
        result = compare_runs(bench, [r if r.is_dir() else r.parent for r in runs], resamples=resamples, seed=seed)
    path = write_report(bench, runs, out, comparison=result or comparison, images=images, force=force,
                        probes=probes)
    if markdown is not None:
        text = leaderboard(bench, runs) + ("\n" + verdict_markdown(result) if result else "")
        atomic_write_text(markdown, text)
        console.print(f"wrote {markdown}")
    console.print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    app.command("report")(report_command)
