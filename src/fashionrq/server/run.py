"""``fashionrq serve``: the HTTP server (uvicorn) plus its scoring workers, restarted whenever one dies."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from fashionrq.errors import InputError
from fashionrq.server.app import Settings, create_app
from fashionrq.server.db import connect
from fashionrq.server.worker import DB_ENV


class Workers:
    """``n`` worker processes (``python -m fashionrq.server.worker``); a watcher thread restarts any that exits."""

    def __init__(self, settings: Settings, n: int, lease: float) -> None:
        self.settings, self.n, self.lease = settings, n, lease
        self.procs: list[subprocess.Popen] = []
        self._stop = threading.Event()

    def _start(self) -> subprocess.Popen:
        env = {**os.environ, DB_ENV: self.settings.url}
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
        return subprocess.Popen([sys.executable, "-m", "fashionrq.server.worker", str(self.settings.bench),
                                 str(self.settings.data), str(self.lease), str(os.getpid())], env=env)

    def start(self) -> None:
        self.procs = [self._start() for _ in range(self.n)]
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while not self._stop.wait(1.0):
            self.procs = [p if p.poll() is None else self._start() for p in self.procs]

    def stop(self) -> None:
        self._stop.set()
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _check_port(host: str, port: int) -> None:
    """Refuse, in one sentence, an address this process cannot listen on (in use, or not this machine's)."""
    import socket

    try:
        with socket.create_server((host, port)):
            pass
    except OSError as err:
        raise InputError(f"cannot listen on {host}:{port} ({err.strerror or err}); choose another --port or --host.") from None


def serve(settings: Settings, *, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, lease: float = 60.0,
          log_level: str = "warning") -> None:
    """Migrate the database, start ``workers`` scoring processes and serve until interrupted."""
    import uvicorn

    _check_port(host, port)
    Path(settings.data).mkdir(parents=True, exist_ok=True)
    engine = connect(settings.url)
    app = create_app(settings, engine)
    pool = Workers(settings, workers, lease)
    pool.start()
    try:
        uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
    finally:
        pool.stop()
