"""Content-keyed cache of deterministic stage outputs: ``$FASHIONRQ_CACHE/stages/<kind>/<key>``.

A stage whose output is a pure function of its inputs (a release built from one catalog with one seed and
configuration, a named system's sealed run over one release, the bootstrap over a set of scored runs) is kept
once under a key that hashes those inputs together with the fashionrq code (every file of the installed
package) and the versions of the libraries that compute it. A hit copies the stored files back byte for byte,
so a warm run writes exactly what the cold run wrote; any change to the code, an input or a version is a miss.

The folder holds labels (a release's ``labels/``), so a sealed system is denied it like the SID cache.
Clear it with ``rm -rf "$FASHIONRQ_CACHE/stages"`` (embeddings and SIDs live beside it and are kept).
"""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from fashionrq.io import atomic_directory, atomic_write_bytes, atomic_write_json, read_json, sha256_file
from fashionrq.layout import MANIFEST, STAGES_CACHE, check_folder_output, default_cache_dir
from fashionrq.taskspec import refuse_committed

_LIBRARIES = ("numpy", "pyarrow", "scipy", "scikit-learn", "torch", "onnxruntime", "tokenizers", "sentence-transformers")


def stages_dir(cache_dir: str | Path | None = None) -> Path:
    """``$FASHIONRQ_CACHE/stages`` (or ``cache_dir/stages``)."""

    return Path(cache_dir or default_cache_dir()) / STAGES_CACHE


@lru_cache(maxsize=1)
def code_version() -> str:
    """sha256 over every file of the fashionrq package (path and bytes) and the versions of its numeric libraries."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + sha256_file(path).encode())
    for name in _LIBRARIES:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=absent".encode())
    return digest.hexdigest()


def stage_key(kind: str, inputs: dict) -> str:
    """The cache key of stage ``kind`` over ``inputs`` (JSON-able: hashes, names, numbers) and the code version."""
    text = json.dumps({"kind": kind, "inputs": inputs, "code": code_version()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def folder_digest(folder: str | Path) -> str:
    """sha256 over the relative paths and contents of every file under ``folder``."""
    folder = Path(folder)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + sha256_file(path).encode())
    return digest.hexdigest()


def cached_folder(kind: str, inputs: dict, out: Path, build: Callable[[Path], object],
                  cache_dir: str | Path | None = None) -> bool:
    """Fill the new folder ``out`` with stage ``kind``'s output: a copy of the cached one, or ``build(out)``
    (which must create ``out``) stored afterwards. Returns True on a cache hit."""
    return cached_folders(kind, {Path(out): inputs}, lambda missing: build(missing[0]), cache_dir)[Path(out)]


def cached_folders(kind: str, wanted: dict[Path, dict], build: Callable[[list[Path]], object],
                   cache_dir: str | Path | None = None) -> dict[Path, bool]:
    """:func:`cached_folder` for many folders (``wanted``: new folder -> its inputs) at once: every hit is copied, then
    ``build`` is called once with the list of the missed folders (it must create each) and each is stored under its
    own key. Returns ``{folder: cache hit}``."""
    entries = {Path(out): stages_dir(cache_dir) / kind / stage_key(kind, inputs) for out, inputs in wanted.items()}
    missing = [out for out, entry in entries.items() if not entry.is_dir()]
    for out, entry in entries.items():
        if out not in missing:
            with atomic_directory(out, force=True, what=f"{kind} folder") as tmp:
                shutil.copytree(entry, tmp, dirs_exist_ok=True)
    if missing:
        build(missing)
    for out in missing:
        with atomic_directory(entries[out], force=True, what=f"cached {kind}") as tmp:
            shutil.copytree(out, tmp, dirs_exist_ok=True)
    return {out: out not in missing for out in entries}


def _cached_file(kind: str, inputs: dict, compute: Callable[[], object], cache_dir, suffix: str,
                 load: Callable[[Path], object], store: Callable[[Path, object], None]):
    path = stages_dir(cache_dir) / kind / f"{stage_key(kind, inputs)}.{suffix}"
    if path.is_file():
        return load(path)
    result = compute()
    store(path, result)
    return result


def cached_json(kind: str, inputs: dict, compute: Callable[[], dict], cache_dir: str | Path | None = None) -> dict:
    """Stage ``kind``'s JSON result over ``inputs``: the cached one, or ``compute()`` stored afterwards."""
    return _cached_file(kind, inputs, compute, cache_dir, "json", read_json, atomic_write_json)


def cached_object(kind: str, inputs: dict, compute: Callable[[], object], cache_dir: str | Path | None = None):
    """Stage ``kind``'s Python result over ``inputs`` (pickled: the folder is the user's own and sealed systems are
    denied it): the cached one, or ``compute()`` stored afterwards."""
    return _cached_file(kind, inputs, compute, cache_dir, "pickle", lambda path: pickle.loads(path.read_bytes()),
                        lambda path, value: atomic_write_bytes(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)))


def cached_run(bench: str | Path, out: str | Path, run: Callable[[Path], object], inputs: dict, force: bool = False,
               cache_dir: str | Path | None = None) -> bool:
    """Write a built-in system's sealed run on release ``bench`` into the new folder ``out``: a copy of the cached
    one when the same system (``inputs``: its name, parameters, regime, …) ran on the same release and code
    before, else ``run(out)``. ``out`` is checked like any run folder first (a committed run is never replaced;
    an existing folder only with ``force``). The caller still commits and scores it. Returns True on a cache hit."""
    return cached_runs(bench, {Path(out): inputs}, lambda missing: run(missing[0]), force, cache_dir)[Path(out)]


def cached_runs(bench: str | Path, wanted: dict[Path, dict], run: Callable[[list[Path]], object], force: bool = False,
                cache_dir: str | Path | None = None) -> dict[Path, bool]:
    """:func:`cached_run` for many run folders (``wanted``: new folder -> its inputs): the hits are copied, and
    ``run`` gets every missed folder in one call (one sealed child for them all, ``systems.run_systems``); each run is
    cached under its own key, so a later single run finds it. Returns ``{folder: cache hit}``."""

    for out in wanted:
        refuse_committed(out)
        check_folder_output(out, force, "run folder")
    release = sha256_file(Path(bench) / MANIFEST)
    return cached_folders("run", {Path(out): {"release": release, **inputs} for out, inputs in wanted.items()}, run, cache_dir)
