"""Content digests of cache entries, kept apart in ``$FASHIONRQ_CACHE/digests/``, which a sealed run may read but
not write: an entry whose bytes no longer match the digest recorded when it was written was changed since (a
plug-in that overwrote it, a damaged disk) and is not used.

A sealed child (``FASHIONRQ_SEALED_CHILD`` set by ``fashionrq.systems.sealed``) reads the shared cache folders but
may not write them (:func:`sealed_child`): it trusts only entries with the digest the parent recorded and computes
anything else without caching it, so no sealed run can change what another one, or the parent, reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from fashionrq.io import atomic_write_text, sha256_file

DIGESTS = "digests"
SEALED_ENV = "FASHIONRQ_SEALED_CHILD"


def _sidecar(root: Path, path: Path) -> Path:
    relative = path.relative_to(root)  # by name: a sealed run's cache reaches the shared folders through links
    return root / DIGESTS / relative.with_name(relative.name + ".sha256")


def sealed_child() -> bool:
    """Whether this process is a sealed run, to which the shared cache folders are read-only."""
    return bool(os.environ.get(SEALED_ENV))


def record(root: Path, path: Path) -> None:
    """Record the digest of the cache entry ``path`` (under the cache folder ``root``); a sealed child records none."""
    if not sealed_child():
        atomic_write_text(_sidecar(root, path), sha256_file(path) + "\n")


def trusted(root: Path, path: Path) -> bool:
    """Whether the entry ``path`` matches its recorded digest (an entry without one is not trusted)."""
    sidecar = _sidecar(root, path)
    if not sidecar.is_file():
        return False
    return sidecar.read_text(encoding="utf-8").strip() == sha256_file(path)
