"""Uploaded runs: checked file names, a size limit, and a run folder written whole before it is committed.

An upload is a run folder's files (``run.json``, ``commitments.jsonl`` and the prediction files, nothing else: a
name with a folder in it, ``..`` or any other name is refused before a byte is written). They are written into a
fresh folder under ``DATA/incoming/``, the run's own latest commitment is checked against them
(:func:`fashionrq.protocol.commitment.check_commitment`) and against this release, and only then is the folder
renamed to ``DATA/runs/<commitment hash>``: the worker scores exactly the bytes the ledger row names.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from fashionrq.errors import FashionRQError, InputError, ReleaseMismatchError
from fashionrq.layout import LEDGER, RUN_JSON
from fashionrq.protocol.commitment import check_commitment, read_run_config
from fashionrq.taskspec import run_files

ALLOWED = frozenset({RUN_JSON, LEDGER, *run_files().values()})


class UploadTooLarge(FashionRQError):
    """An upload past the server's size limit (HTTP 413)."""


def check_name(name: str | None) -> str:
    """The upload's file name if it is one of :data:`ALLOWED` (no folder, no ``..``), else refuse."""
    if name not in ALLOWED:
        shown = repr(name)[:80]
        raise InputError(f"upload file name {shown} is not one of {', '.join(sorted(ALLOWED))}; send the run folder's files by name only.")
    return name


def receive(data: Path, files, limit: int) -> Path:
    """Write ``files`` (``(name, binary file object)`` pairs) into a new folder under ``DATA/incoming`` and return it.

    Refuses a bad or repeated name and more than ``limit`` bytes in all; a refused upload leaves nothing behind.
    """
    incoming = Path(data) / "incoming"
    incoming.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="upload-", dir=incoming))
    try:
        total, seen = 0, set()
        for name, stream in files:
            name = check_name(name)
            if name in seen:
                raise InputError(f"upload names {name} twice; send each file once.")
            seen.add(name)
            with open(folder / name, "xb") as out:
                while chunk := stream.read(1 << 20):
                    total += len(chunk)
                    if total > limit:
                        raise UploadTooLarge(f"the upload is larger than this server's limit of {limit:,} bytes; send a smaller run.")
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
        for required in (RUN_JSON, LEDGER):
            if required not in seen:
                raise InputError(f"the upload has no {required}; run `fashionrq commit RUN` and send the whole run folder (fashionrq submit does).")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def commit_upload(folder: Path, release: str) -> dict:
    """Check an uploaded folder's latest commitment against its files and this release; return the ledger body."""
    config = read_run_config(folder)
    if config["release"] != release:
        raise ReleaseMismatchError(f"run.json names release {config['release'][:12]}…, not this server's {release[:12]}…; run the system on this release.")
    try:
        commitment = check_commitment(folder)
        files = {name: {"sha256": str(entry["sha256"]), "rows": int(entry["rows"])} for name, entry in commitment["files"].items()}
    except (KeyError, TypeError, AttributeError, ValueError):  # a record that hashes to itself but is not a commitment
        raise InputError(f"{LEDGER} does not hold a fashionrq commitment record; commit the run with `fashionrq commit RUN`.") from None
    if commitment.get("release") != release:
        raise ReleaseMismatchError(f"the latest commitment names release {str(commitment.get('release'))[:12]}…, not {release[:12]}…; commit again.")
    return {"commitment": commitment["hash"], "committed_at": str(commitment.get("timestamp")), "files": files,
            "config_sha256": commitment["config_sha256"], "release": release, "system": str(config.get("system"))[:200]}


def settle(data: Path, folder: Path, commitment: str) -> Path:
    """Rename the checked upload to ``DATA/runs/<commitment>`` (an identical folder already there is kept)."""
    runs = Path(data) / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    target = runs / commitment
    try:
        os.rename(folder, target)
    except OSError:  # the same commitment was uploaded before (a replay, or a retry after a crash): same bytes
        shutil.rmtree(folder, ignore_errors=True)
    return target


def run_folder(data: Path, commitment: str) -> Path:
    return Path(data) / "runs" / commitment
