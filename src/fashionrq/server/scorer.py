"""The scoring loop of a worker: it claims one committed submission at a time, scores it with the protocol's
fail-closed scorer and appends the result to the ledger.

A claim is a lease (``jobs.lease_until``) the worker renews while it scores. A worker killed mid-score (``kill -9``
of it or of the server, which takes its workers with it) leaves the lease to run out; any worker then reclaims the
submission, so none is lost. The score row's ``ref`` is unique and is appended only while the worker still holds
its claim, in the same transaction that marks the job done, so none is scored twice.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import traceback
import uuid
from pathlib import Path

import sqlalchemy as sa

from fashionrq.errors import FashionRQError
from fashionrq.io import crash_point
from fashionrq.protocol.scoring import score_run
from fashionrq.server.board import public_summary
from fashionrq.server.db import connect, jobs, ledger
from fashionrq.server.ledger import Duplicate, append
from fashionrq.server.store import run_folder


class LostClaim(Exception):
    """Another worker reclaimed the submission (this one's lease ran out)."""


def claim(engine, lease: float) -> dict | None:
    """Claim the oldest queued submission, or one whose lease ran out; None when there is none."""
    with engine.begin() as conn:
        now = time.time()
        free = sa.or_(jobs.c.state == "queued", sa.and_(jobs.c.state == "scoring", jobs.c.lease_until < now))
        row = conn.execute(sa.select(jobs).where(free).order_by(jobs.c.submission).limit(1)
                           .with_for_update(skip_locked=True)).first()
        if row is None:
            return None
        token = uuid.uuid4().hex
        done = conn.execute(sa.update(jobs).where(jobs.c.submission == row.submission, jobs.c.state == row.state,
                                                  jobs.c.lease_until == row.lease_until)
                            .values(state="scoring", claim=token, lease_until=now + lease, attempts=jobs.c.attempts + 1))
        if done.rowcount != 1:
            return None
        sub = conn.execute(sa.select(ledger.c.team, ledger.c.body).where(ledger.c.id == row.submission)).first()
    return {"submission": row.submission, "claim": token, "team": sub.team, **json.loads(sub.body)}


@contextlib.contextmanager
def renewing(engine, job: dict, lease: float):
    """Renew ``job``'s lease every third of ``lease`` seconds while the block runs."""
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease / 3):
            with contextlib.suppress(Exception), engine.begin() as conn:
                conn.execute(sa.update(jobs).where(jobs.c.submission == job["submission"], jobs.c.claim == job["claim"])
                             .values(lease_until=time.time() + lease))

    thread = threading.Thread(target=renew, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def score_body(bench: Path, data: Path, job: dict) -> dict:
    """The score row's body: the public summary of a scoring, or the scorer's one-sentence refusal."""
    run = run_folder(data, job["commitment"])
    try:
        scored = score_run(bench, run, relevance=False, cache_dir=Path(data) / "cache", unsealed=True)
    except FashionRQError as err:
        return {"submission": job["submission"], "status": "rejected", "exit_code": err.exit_code,
                "error": str(err).replace(str(run), "the submitted run")}
    except Exception as err:  # a scorer bug must not make the submission kill every worker that claims it
        traceback.print_exc()
        return {"submission": job["submission"], "status": "rejected", "exit_code": None,
                "error": f"the scorer failed ({type(err).__name__}); the host's log has the details."}
    crash_point("server-score")  # test hook: a worker killed after scoring, before its score row is appended
    return {"submission": job["submission"], "status": "scored", "summary": public_summary(scored.report)}


def finish(engine, job: dict, body: dict) -> dict:
    """Append the score row and mark the job done in one transaction, only while the claim is still held."""
    def held(conn) -> None:
        if conn.execute(sa.select(jobs.c.claim).where(jobs.c.submission == job["submission"])).scalar() != job["claim"]:
            raise LostClaim(job["submission"])

    def done(conn, _row) -> None:
        updated = conn.execute(sa.update(jobs).where(jobs.c.submission == job["submission"], jobs.c.claim == job["claim"])
                               .values(state=body["status"], lease_until=0))
        if updated.rowcount != 1:
            raise LostClaim(job["submission"])

    return append(engine, "score", f"score:{job['submission']}", job["team"], job["submission"], body, check=held, also=done)


def work(bench: Path, data: Path, url: str, *, lease: float = 60.0, poll: float = 0.2, once: bool = False) -> int:
    """Score submissions until stopped (or, with ``once``, until none is left); returns how many it scored."""
    engine = connect(url, migrate=False)
    count = 0
    while True:
        job = claim(engine, lease)
        if job is None:
            if once:
                return count
            time.sleep(poll)
            continue
        with renewing(engine, job, lease):
            body = score_body(bench, data, job)
        with contextlib.suppress(LostClaim, Duplicate):
            finish(engine, job, body)
            count += 1
