"""Scoring worker processes: ``python -m fashionrq.server.worker BENCH DATA LEASE PARENT`` runs one
(``fashionrq serve`` starts them); the database URL comes in ``FASHIONRQ_SERVER_DB``, never on the command line.

A worker first binds itself to the server that started it (it dies with it), then loads the scorer and runs its
loop (:mod:`fashionrq.server.scorer`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

DB_ENV = "FASHIONRQ_SERVER_DB"


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to SIGKILL this worker when the server that started it dies (Linux ``PR_SET_PDEATHSIG``)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    if os.getppid() != parent:  # the server died before the request took effect
        os._exit(1)


def main(argv: list[str]) -> None:
    bench, data, lease, parent = Path(argv[0]), Path(argv[1]), float(argv[2]), int(argv[3])
    _die_with_parent(parent)
    # deferred: sqlalchemy, numba and pandas (seconds to load, after the worker has bound itself to the server)
    from fashionrq.server.scorer import work

    work(bench, data, os.environ[DB_ENV], lease=lease)


if __name__ == "__main__":
    main(sys.argv[1:])
