"""``fashionrq serve | token | submit | verify-ledger``: the evaluation server, its admin and its client (docs/server.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from fashionrq.errors import InputError
from fashionrq.layout import MANIFEST
from fashionrq.progress import console

DATA_HELP = "The server's data folder (uploaded runs, the SQLite database by default); default: BENCH's sibling BENCH.serve."


def _data(bench: Path, data: Path | None) -> Path:
    return data if data is not None else bench.with_name(bench.name + ".serve")


def serve_command(
    bench: Path = typer.Argument(..., help="Release folder (BENCH) the server holds, labels included."),
    data: Path = typer.Option(None, "--data", help=DATA_HELP),
    db: str = typer.Option(None, "--db", help="Database URL: sqlite:///PATH (default DATA/server.db) or postgresql://USER@HOST:PORT/NAME."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
    workers: int = typer.Option(1, "--workers", min=1, help="Scoring worker processes."),
    quota: int = typer.Option(5, "--quota", min=1, help="Submissions per team per day (UTC)."),
    max_upload_mb: int = typer.Option(256, "--max-upload-mb", min=1, help="Largest upload accepted, in MiB."),
    resamples: int = typer.Option(10_000, "--resamples", min=1, help="Bootstrap resamples of the promotion gate."),
    lease: float = typer.Option(60.0, "--lease", min=1.0, help="Seconds a worker's claim on a submission lasts without renewal (a dead worker's submission is rescored after it)."),
) -> None:
    """Serve a release: submissions, per-team scores, the public leaderboard and the ledger; labels never leave."""
    from fashionrq.server import require_extra

    require_extra()
    from fashionrq.server.app import Settings
    from fashionrq.server.db import database_url
    from fashionrq.server.run import serve

    if not (bench / MANIFEST).is_file():
        raise InputError(f"{bench} holds no manifest.json; pass a release folder built by `fashionrq build`.")
    data = _data(bench, data)
    settings = Settings(bench=bench.resolve(), data=data.resolve(), url=database_url(db, data), quota=quota,
                        max_upload=max_upload_mb << 20, resamples=resamples)
    console.print(f"serving {bench} on http://{host}:{port} (leaderboard: /leaderboard, API: /docs)", soft_wrap=True)
    serve(settings, host=host, port=port, workers=workers, lease=lease)


token_app = typer.Typer(help="Issue and revoke team tokens of a server (run on the host, against its database).", no_args_is_help=True)


def _engine(bench: Path, data: Path | None, db: str | None):
    from fashionrq.server import require_extra

    require_extra()
    from fashionrq.server.db import connect, database_url

    folder = _data(bench, data)
    if db is None:
        folder.mkdir(parents=True, exist_ok=True)
    return connect(database_url(db, folder))


@token_app.command("issue")
def token_issue(
    bench: Path = typer.Argument(..., help="Release folder the server holds."),
    team: str = typer.Argument(..., help="Team name (letters, digits, '_', '.', '-')."),
    data: Path = typer.Option(None, "--data", help=DATA_HELP),
    db: str = typer.Option(None, "--db", help="Database URL (as given to fashionrq serve)."),
) -> None:
    """Print a new token for TEAM (only its sha256 is stored: keep it, it is shown once)."""
    from fashionrq.server.auth import issue_token

    typer.echo(issue_token(_engine(bench, data, db), team))


@token_app.command("revoke")
def token_revoke(
    bench: Path = typer.Argument(..., help="Release folder the server holds."),
    team: str = typer.Argument(..., help="Team whose tokens to revoke."),
    data: Path = typer.Option(None, "--data", help=DATA_HELP),
    db: str = typer.Option(None, "--db", help="Database URL (as given to fashionrq serve)."),
) -> None:
    """Revoke every live token of TEAM."""
    from fashionrq.server.auth import revoke

    n = revoke(_engine(bench, data, db), team)
    if n == 0:
        raise InputError(f"team {team[:64]} has no live token; nothing was revoked.")
    console.print(f"revoked {n} token{'s' if n != 1 else ''} of {team}")


def submit_command(
    run: Path = typer.Argument(..., help="Run folder written by `fashionrq run` (committed here first)."),
    server: str = typer.Option(..., "--server", help="The server's URL, e.g. http://127.0.0.1:8000."),
    token: str = typer.Option(..., "--token", envvar="FASHIONRQ_TOKEN", help="Your team's token (or FASHIONRQ_TOKEN)."),
    publish: bool = typer.Option(False, "--publish", help="Pre-register this submission as the one the public leaderboard shows for your team."),
    no_wait: bool = typer.Option(False, "--no-wait", help="Return once the server has recorded the submission."),
) -> None:
    """Commit RUN locally, upload it, wait for its scores and print them with the gate against the champion."""
    from fashionrq.protocol.commitment import commit_run
    from fashionrq.server.client import upload, wait

    if not run.is_dir():
        raise InputError(f"{run} is not a folder; pass a run folder written by `fashionrq run`.")
    record = commit_run(run)
    console.print(f"committed {run} as {record['hash']}", soft_wrap=True)
    sent = upload(run, server, token, publish=publish)
    console.print(f"submission {sent['id']} recorded in the ledger as {sent['ledger_hash']}", soft_wrap=True)
    if no_wait:
        return
    with console.status("queued") as status:
        result = wait(server, token, sent["id"], progress=lambda state: status.update(f"submission {sent['id']}: {state}"))
    if result["state"] == "rejected":
        raise InputError(f"submission {sent['id']} was rejected by the scorer: {result.get('error')}")
    _print_scores(result)


def _print_scores(result: dict) -> None:
    from rich.table import Table

    summary = result["summary"]
    table = Table(title=f"submission {result['id']}: {summary.get('system')}", show_edge=False)
    for column in ("task", "metric", "value", "95% interval", "clusters"):
        table.add_column(column, justify="left" if column in ("task", "metric") else "right")
    for task, entry in summary["tasks"].items():
        for metric, value in entry["aggregate"].items():
            lower, upper = (entry.get("interval") or {}).get(metric) or (None, None)
            interval = "" if lower is None else f"[{lower:.4f}, {upper:.4f}]"
            table.add_row(task.upper(), metric + (" (headline)" if metric == entry.get("headline") else ""), f"{value:.4f}",
                          interval, f"{entry.get('n_clusters', 0):,}")
    console.print(table)
    gate = result.get("gate_vs_champion")
    if gate is None:
        console.print("verdict: this submission is the champion (or the first scored).")
    elif gate["promoted"]:
        console.print(f"verdict: promoted over the champion {gate['champion']} on every task's headline metric.", soft_wrap=True)
    else:
        console.print(f"verdict: not promoted over the champion {gate['champion']} (fails {', '.join(t.upper() for t in gate['failing'])}).", soft_wrap=True)


def verify_ledger_command(
    url: str = typer.Argument(..., help="The server's URL."),
    anchor: str = typer.Option(None, "--anchor", help="A head hash recorded earlier (GET /api/v1/ledger/head): the chain must pass through it."),
) -> None:
    """Fetch a server's ledger and check every row's hash and the chain; print the head to anchor elsewhere."""
    from fashionrq.server.client import verify_ledger

    result = verify_ledger(url, anchor)
    console.print(f"ledger verifies: {result['rows']:,} rows ({result['submissions']:,} submissions, {result['scores']:,} scores); "
                  f"head {result['head']}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
    app.command("submit")(submit_command)
    app.command("verify-ledger")(verify_ledger_command)
    app.add_typer(token_app, name="token")
