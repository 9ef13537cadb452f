"""The FastAPI application of ``fashionrq serve`` (``create_app``); routes are listed in docs/server.md.

Every response is built from ``BENCH/manifest.json``, ``BENCH/public/``, the ledger and label-free score summaries
(``board``); no route opens ``BENCH/labels/``. Errors are one sentence in ``{"detail": ...}``.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from fastapi import Depends, FastAPI, File, Form, HTTPException, Path as PathParam, Query, Request, UploadFile
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel

from fashionrq.errors import FashionRQError
from fashionrq.io import atomic_write_bytes
from fashionrq.layout import MANIFEST, PUBLIC
from fashionrq.release import release_hash, verify_release
from fashionrq.server import auth, ledger as chain, store
from fashionrq.server.board import Board, Entry
from fashionrq.server.db import jobs, ledger

API = "/api/v1"
#: the most rows one ledger page holds
PAGE = 1000
#: the largest row id (the database's 32-bit integer)
MAX_ID = 2**31 - 1


@dataclass
class Settings:
    """What a server needs: the release, its data folder, the database and the limits."""

    bench: Path
    data: Path
    url: str
    quota: int = 5
    max_upload: int = 256 << 20
    resamples: int = 10_000
    auth_failures: int = 20


class SubmissionOut(BaseModel):
    id: int
    team: str
    state: str
    commitment: str
    ledger_hash: str
    created_at: str
    system: str | None = None
    publish: bool = False
    attempts: int = 0
    error: str | None = None


class ScoresOut(BaseModel):
    id: int
    state: str
    summary: dict | None = None
    gate_vs_champion: dict | None = None
    error: str | None = None


class BodyLimit:
    """Refuse a request body past ``limit`` bytes (by its Content-Length, or as it streams in) with 413."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await _too_large(send, self.limit)
        seen, started = 0, False

        async def counted():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise store.UploadTooLarge("too large")
            return message

        async def tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except store.UploadTooLarge:
            if not started:
                await _too_large(send, self.limit)


async def _too_large(send, limit: int) -> None:
    body = json.dumps({"detail": f"the request is larger than this server's limit of {limit:,} bytes; send a smaller run."}).encode()
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json"),
                                                                         (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def public_tar(bench: Path, data: Path, release: str) -> Path:
    """``DATA/public-<release>.tar``: manifest.json and public/ (sorted, mtime 0, no owner: the same bytes every time)."""
    path = data / f"public-{release[:16]}.tar"
    if path.is_file():
        return path
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for file in [bench / MANIFEST, *sorted(p for p in (bench / PUBLIC).rglob("*") if p.is_file() and not p.is_symlink())]:
            info = tarfile.TarInfo(file.relative_to(bench).as_posix())
            info.size, info.mode, info.mtime = file.stat().st_size, 0o644, 0
            with file.open("rb") as handle:
                tar.addfile(info, handle)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def create_app(settings: Settings, engine) -> FastAPI:
    """The application over a migrated ``engine`` (see :func:`fashionrq.server.db.connect`)."""

    bench, data = Path(settings.bench), Path(settings.data)
    report = verify_release(bench, strict=True)
    if not report.ok:
        raise FashionRQError(report.sentence(), 10)
    release = release_hash(bench)
    tar = public_tar(bench, data, release)
    board = Board(bench, data, engine, settings.resamples)
    board.html()  # imports the report's code and renders once now, so the first visitor does not wait for it
    throttle = auth.Throttle(settings.auth_failures)
    bearer = HTTPBearer(auto_error=False)
    app = FastAPI(title="fashionrq serve", version="1", description="A sealed evaluation server: submit committed runs, "
                  "read your own scores and the public leaderboard; labels never leave the server (docs/server.md).")

    def team(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> str:
        client = request.client.host if request.client else "?"
        if throttle.blocked(client):
            raise HTTPException(429, "too many wrong tokens from this address; wait a minute.")
        found = auth.team_of(engine, credentials.credentials if credentials else None)
        if found is None:
            throttle.failed(client)
            raise HTTPException(401, "missing, unknown or revoked token; ask the host for one (fashionrq token issue).",
                                headers={"WWW-Authenticate": "Bearer"})
        return found

    @app.exception_handler(FashionRQError)
    async def _refused(_request, err: FashionRQError):
        status = 413 if isinstance(err, store.UploadTooLarge) else 400
        return JSONResponse({"detail": str(err).replace(str(data), "DATA")}, status_code=status)

    @app.get("/health")
    def health() -> dict:
        """Liveness, the release served and the queue."""
        with engine.connect() as conn:
            states = dict(conn.execute(sa.select(jobs.c.state, sa.func.count()).group_by(jobs.c.state)).all())
            head = chain.head(conn)
        return {"status": "ok", "release": release, "ledger_head": head, "jobs": states}

    @app.get(f"{API}/manifest")
    def manifest() -> Response:
        """The release's manifest.json, byte for byte."""
        return Response((bench / MANIFEST).read_bytes(), media_type="application/json")

    @app.get(f"{API}/public.tar")
    def public() -> Response:
        """manifest.json and public/ as one tar file (what a system may see)."""
        return FileResponse(tar, media_type="application/x-tar", filename=f"public-{release[:12]}.tar")

    @app.post(f"{API}/submissions", status_code=202, response_model=SubmissionOut)
    def submit(files: list[UploadFile] = File(...), publish: bool = Form(False), who: str = Depends(team)) -> SubmissionOut:
        """Submit a committed run folder (run.json, commitments.jsonl, prediction files); the latest commitment is
        checked against the files and recorded in the ledger before the run is scored."""
        folder = store.receive(data, ((f.filename, f.file) for f in files), settings.max_upload)
        try:
            body = store.commit_upload(folder, release)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        store.settle(data, folder, body["commitment"])
        body["publish"] = publish
        queue = lambda conn, row: conn.execute(jobs.insert().values(submission=row["id"], state="queued"))  # noqa: E731
        try:
            row = chain.append(engine, "submit", body["commitment"], who, None, body, check=auth.quota_check(who, settings.quota), also=queue)
        except chain.Duplicate:
            raise HTTPException(409, f"commitment {body['commitment'][:12]}… was submitted before; commit again to submit a new run.") from None
        except auth.QuotaExceeded as err:
            raise HTTPException(429, str(err)) from None
        return _status(row["id"], who)

    def _status(ident: int, who: str) -> SubmissionOut:
        with engine.connect() as conn:
            row = conn.execute(sa.select(ledger, jobs.c.state, jobs.c.attempts).join(jobs, jobs.c.submission == ledger.c.id)
                               .where(ledger.c.id == ident, ledger.c.kind == "submit", ledger.c.team == who)).first()
            if row is None:
                raise HTTPException(404, f"you have no submission {ident}.")
            result = conn.execute(sa.select(ledger.c.body).where(ledger.c.submission == ident, ledger.c.kind == "score")).scalar()
        body, result = json.loads(row.body), json.loads(result) if result else {}
        return SubmissionOut(id=row.id, team=row.team, state=row.state, commitment=body["commitment"], ledger_hash=row.hash,
                             created_at=row.created_at, system=body.get("system"), publish=bool(body.get("publish")),
                             attempts=row.attempts, error=result.get("error"))

    @app.get(f"{API}/submissions", response_model=list[SubmissionOut])
    def mine(who: str = Depends(team)) -> list[SubmissionOut]:
        """Your team's submissions, oldest first."""
        with engine.connect() as conn:
            ids = conn.execute(sa.select(ledger.c.id).where(ledger.c.kind == "submit", ledger.c.team == who).order_by(ledger.c.id)).scalars().all()
        return [_status(i, who) for i in ids]

    @app.get(f"{API}/submissions/{{ident}}", response_model=SubmissionOut)
    def status(ident: int = PathParam(ge=1, le=MAX_ID), who: str = Depends(team)) -> SubmissionOut:
        """One of your submissions: its state (queued, scoring, scored, rejected) and ledger hash."""
        return _status(ident, who)

    @app.get(f"{API}/submissions/{{ident}}/scores", response_model=ScoresOut)
    def scores(ident: int = PathParam(ge=1, le=MAX_ID), who: str = Depends(team)) -> ScoresOut:
        """Your submission's scores (aggregates with their 95% intervals; no per-query value) and its promotion gate
        against the current champion, once scored."""
        state = _status(ident, who)
        if state.state != "scored":
            return ScoresOut(id=ident, state=state.state, error=state.error)
        with engine.connect() as conn:
            result = json.loads(conn.execute(sa.select(ledger.c.body, ledger.c.created_at)
                                             .where(ledger.c.submission == ident, ledger.c.kind == "score")).first().body)
        entry = Entry(ident, who, state.commitment, state.publish, result["summary"], "")
        return ScoresOut(id=ident, state=state.state, summary=result["summary"], gate_vs_champion=board.verdict(entry))

    @app.get(f"{API}/leaderboard")
    def leaderboard() -> dict:
        """The public leaderboard: one row per team, ordered, each with its gate against the champion."""
        return board.state()[0]

    @app.get("/leaderboard", response_class=HTMLResponse)
    def leaderboard_page() -> HTMLResponse:
        """The leaderboard as one offline HTML page (the report's leaderboard and verdict sections)."""
        return HTMLResponse(board.html())

    @app.get(f"{API}/ledger")
    def ledger_rows(after: int = Query(0, ge=0, le=MAX_ID), limit: int = Query(PAGE, ge=1, le=PAGE)) -> dict:
        """Ledger rows with id > ``after``, oldest first (each body as its sha256 only), and the current head."""
        with engine.connect() as conn:
            rows = conn.execute(sa.select(ledger).where(ledger.c.id > after).order_by(ledger.c.id).limit(limit)).all()
            head = chain.head(conn)
        return {"rows": [chain.public_row(r) for r in rows], "head": head, "genesis": chain.GENESIS}

    @app.get(f"{API}/ledger/head")
    def ledger_head() -> dict:
        """The newest row's id and hash: record it elsewhere (a git commit) to anchor the history so far."""
        with engine.connect() as conn:
            row = conn.execute(sa.select(ledger.c.id, ledger.c.hash, ledger.c.created_at).order_by(ledger.c.id.desc()).limit(1)).first()
            count = conn.execute(sa.select(sa.func.count()).select_from(ledger)).scalar()
        return {"id": row.id if row else 0, "hash": row.hash if row else chain.GENESIS, "rows": count,
                "created_at": row.created_at if row else None}

    app.add_middleware(BodyLimit, limit=settings.max_upload)
    return app
