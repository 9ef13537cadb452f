"""Content digests of cache entries, kept apart in ``$FASHIONRQ_CACHE/digests/``, which a sealed run may read but
not write: an entry whose bytes no longer match the digest recorded when it was written was changed since (a
plug-in that overwrote it, a damaged disk) and is not used.

A sealed child (``FASHIONRQ_SEALED_CHILD`` set by ``fashionrq.systems.sealed``) records no digest, so the
entries it writes are trusted by sealed children only; the parent computes them again before its own use.
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


def record(root: Path, path: Path) -> None:
    """Record the digest of the cache entry ``path`` (under the cache folder ``root``); a sealed child records none."""
    if not os.environ.get(SEALED_ENV):
        atomic_write_text(_sidecar(root, path), sha256_file(path) + "\n")


def trusted(root: Path, path: Path) -> bool:
    """Whether the entry ``path`` matches its recorded digest (a sealed child also trusts an entry without one)."""
    sidecar = _sidecar(root, path)
    if not sidecar.is_file():
        return bool(os.environ.get(SEALED_ENV))
    return sidecar.read_text(encoding="utf-8").strip() == sha256_file(path)
