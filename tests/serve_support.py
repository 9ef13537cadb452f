"""Helpers of the server tests (tests/test_server.py, tests/test_server_slow.py): runs written from the public pools,
the label bytes no response may hold, a real PostgreSQL cluster and a real ``fashionrq serve`` on loopback."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _order(ids, salt: str) -> list[str]:
    return sorted(ids, key=lambda i: hashlib.sha256(f"{salt}:{i}".encode()).hexdigest())


def write_run(bench: Path, out: Path, variant: int, *, system: str = "hash-order", commit: bool = True) -> Path:
    """A run made without any system: every pool in a hash order salted by ``variant``, T2 labels from the same hash.
    Distinct variants give distinct predictions and run.json; committed unless ``commit`` is False."""
    from fashionrq.protocol import load_pools
    from fashionrq.protocol.commitment import commit_run
    from fashionrq.release import release_hash

    pools = load_pools(bench)
    out.mkdir(parents=True)
    for task in ("t1", "t3", "t4"):
        lines = []
        for qid in sorted(pools.ranking(task)):
            for rank, item in enumerate(_order(pools.ranking(task)[qid], f"{variant}:{qid}"), 1):
                lines.append(f"{qid} Q0 {item} {rank} {1000 - rank} {system}\n")
        (out / f"{task}.run").write_text("".join(lines))
    pairs = sorted(pools.t2_required())
    (out / "t2.jsonl").write_text("".join(json.dumps({"pair_id": p, "label": int(hashlib.sha256(f"{variant}:{p}".encode()).hexdigest(), 16) % 4,
                                                      "score": 1.0}) + "\n" for p in pairs))
    (out / "run.json").write_text(json.dumps({"system": system, "config": {"variant": variant}, "release": release_hash(bench)}))
    if commit:
        commit_run(out, bench)
    return out


def label_needles(bench: Path, per_file: int = 400) -> list[bytes]:
    """Byte strings that only a label file holds: from every text label file, lines of 20+ bytes and pairs of
    consecutive lines (a qrels line alone is short and common), and from every other label file, 64-byte windows;
    at most ``per_file`` of each kind per file, spread evenly; none that the public files or the manifest hold."""
    public = b"\n".join(p.read_bytes() for p in (bench / "public").rglob("*") if p.is_file())
    manifest = (bench / "manifest.json").read_bytes()
    needles = set()
    for path in sorted((bench / "labels").rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix in (".jsonl", ".qrels", ".json", ".txt", ".tsv"):
            lines = [line.strip() for line in data.splitlines() if line.strip()]
            kinds = [[line for line in lines if len(line) >= 20], [a + b"\n" + b for a, b in zip(lines, lines[1:])]]
        else:
            kinds = [[data[i:i + 64] for i in range(0, max(len(data) - 64, 1), 64)]]
        for pieces in kinds:
            step = max(len(pieces) // per_file, 1)
            needles.update(p for p in pieces[::step] if p not in public and p not in manifest)
    return sorted(needles)


def leaked(body: bytes, needles: list[bytes]) -> bytes | None:
    return next((n for n in needles if n in body), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throwaway PostgreSQL 15 cluster on loopback (Debian's server binaries), run as the unprivileged ``postgres``
    user when the tests run as root; ``url(name)`` creates a database and returns its URL."""

    def __init__(self) -> None:
        if not (PG_BIN / "initdb").is_file():
            pytest.skip(f"PostgreSQL server binaries are not in {PG_BIN} (.ci/run installs postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="fashionrq-pg-"))
        self.as_user = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        data = self.root / "data"
        self._run(PG_BIN / "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        self._run(PG_BIN / "pg_ctl", "-D", data, "-l", self.root / "log", "-w", "start",
                  "-o", f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c max_connections=300")

    def _run(self, *args) -> None:
        done = subprocess.run([*self.as_user, *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    def url(self, name: str) -> str:
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        subprocess.run([*self.as_user, str(PG_BIN / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


class LiveServer:
    """``python -m fashionrq serve`` as a real process on a loopback port; ``kill()`` is kill -9."""

    def __init__(self, bench: Path, data: Path, db: str | None, *, workers: int = 2, lease: float = 30.0, quota: int = 1000,
                 env: dict | None = None, max_upload_mb: int = 256) -> None:
        self.bench, self.data, self.db = bench, data, db
        self.args = dict(workers=workers, lease=lease, quota=quota, max_upload_mb=max_upload_mb)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.start(env)

    def start(self, env: dict | None = None) -> None:
        a = self.args
        cmd = [sys.executable, "-m", "fashionrq", "serve", str(self.bench), "--data", str(self.data), "--port", str(self.port),
               "--workers", str(a["workers"]), "--lease", str(a["lease"]), "--quota", str(a["quota"]), "--resamples", "200",
               "--max-upload-mb", str(a["max_upload_mb"])] + (["--db", self.db] if self.db else [])
        full = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
        self.log = open(self.data.parent / f"serve-{self.port}-{time.time_ns()}.log", "w")
        self.proc = subprocess.Popen(cmd, env=full, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        import httpx

        while time.monotonic() < deadline:
            assert self.proc.poll() is None, Path(self.log.name).read_text()[-3000:]
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError("the server did not answer /health within 120 s")

    def token(self, team: str) -> str:
        done = subprocess.run([sys.executable, "-m", "fashionrq", "token", "issue", str(self.bench), team, "--data", str(self.data)]
                              + (["--db", self.db] if self.db else []), env={**os.environ, "PYTHONPATH": str(SRC)},
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def kill(self) -> None:
        """kill -9 of the server process only (its workers die with it: PR_SET_PDEATHSIG)."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()
