"""``fashionrq probe``: label-blind attacks on a release's public files, each cell judged against its chance band."""

from __future__ import annotations

from pathlib import Path

import typer

from fashionrq.progress import console

#: Exit status when a probe scores above its chance band (a leak); user errors keep their own codes.
LEAK_EXIT_CODE = 1


def probe_command(
    bench: Path = typer.Argument(..., help="The release folder (only BENCH/public/ is read by the probes)."),
    out: Path = typer.Option(None, "--out", help="Keep the probe runs and probe.json in this folder (default: discard them)."),
    against: list[Path] = typer.Option(None, "--against", help="A committed run of a real system to show beside the probes; give --against once per run."),
    system: list[str] = typer.Option(None, "--system", help="Run only this probe-* or query-blind (repeatable; default: all)."),
    resamples: int = typer.Option(10_000, "--resamples", min=1, help="Bootstrap resamples for random's interval and the chance bands."),
    seed: int = typer.Option(0, "--seed", help="Seed of the resampling."),
    level: float = typer.Option(0.95, "--level", min=0.5, max=0.9999, help="Level of random's interval; the chance bands hold it family-wise over the judged cells."),
    query_blind_encoder: str = typer.Option("minilm", "--query-blind-encoder", help="Dense encoder of the query-blind baseline's item vectors."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out folder."),
) -> None:
    """Run every probe-* attack, the query-blind baseline and random; exit 1 when a probe scores above its chance band."""
    from fashionrq.pipeline.probes import probe_release

    report = probe_release(bench, out=out, against=against or (), systems=system or None, resamples=resamples, seed=seed,
                           level=level, force=force, query_blind_encoder=query_blind_encoder)
    console.print(str(report), markup=False, highlight=False, soft_wrap=True)
    if out is not None:
        console.print(f"wrote {out}/probe.json and one run folder per system")
    if not report.passed:
        raise typer.Exit(LEAK_EXIT_CODE)


def register(app: typer.Typer) -> None:
    app.command("probe")(probe_command)
