"""Commitment of prediction files before any label is opened: an append-only, hash-chained ledger.

``commit_run`` hashes every prediction file, run.json and the release it targets, and appends the
record to RUN/commitments.jsonl; each record carries the previous record's hash. ``check_commitment``
re-hashes the files against the latest record and refuses any change.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from datetime import datetime, timezone
from pathlib import Path

from fashionrq.errors import (
    CommitmentMismatchError,
    CommitmentMissingError,
    LedgerCorruptError,
    MissingPredictionFileError,
    ReleaseMismatchError,
    RunConfigError,
    UnsealedRunError,
    examples,
)
from fashionrq.io import atomic_write_text, sha256_file
from fashionrq.layout import LEDGER, MANIFEST, RUN_JSON
from fashionrq.release import release_hash
from fashionrq.taskspec import run_files

LEDGER_VERSION = 1
#: Isolation mechanisms (run.json "isolation.mechanism", see fashionrq.systems.sandbox) under which a run is sealed.
SEALED = ("landlock", "mount-namespace")


def read_run_config(run: str | Path) -> dict:
    """RUN/run.json as a dict; it must hold the release hash the run was made for."""
    path = Path(run) / RUN_JSON
    if not path.is_file():
        raise RunConfigError(f"{path} does not exist; a run folder needs run.json with system, config and release.")
    try:
        config = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise RunConfigError(f"{path} is not valid UTF-8 JSON; rewrite it as a JSON object.") from None
    if not isinstance(config, dict) or not isinstance(config.get("release"), str):
        raise RunConfigError(f'{path} lacks a string "release" field (sha256 of BENCH/manifest.json); add it.')
    return config


def check_sealed(run: str | Path, unsealed: bool = False) -> dict:
    """``{"mechanism", "sealed"}`` of RUN; refuses a run made without isolation unless ``unsealed`` accepts it."""
    isolation = read_run_config(run).get("isolation")
    mechanism = isolation.get("mechanism") if isinstance(isolation, dict) else None
    sealed = mechanism in SEALED
    if not sealed and not unsealed:
        raise UnsealedRunError(
            f"{Path(run) / RUN_JSON} records no sealed isolation (mechanism {mechanism or 'none'}), so the system may have read "
            "the labels; make the run with `fashionrq run`, or pass --unsealed to score it marked as unsealed."
        )
    return {"mechanism": mechanism or "none", "sealed": sealed}


def check_release(run: str | Path, bench: str | Path) -> str:
    """Raise ReleaseMismatchError unless run.json names this release; return the release hash."""
    expected = release_hash(bench)
    found = read_run_config(run)["release"]
    if found != expected:
        raise ReleaseMismatchError(
            f"{Path(run) / RUN_JSON} was made for release {found[:12]}…, but {Path(bench) / MANIFEST} "
            f"has hash {expected[:12]}…; rerun the system on this release."
        )
    return expected


def prediction_files(run: str | Path) -> dict[str, Path]:
    """``{task: path}`` for the prediction files present in RUN."""
    root = Path(run)
    return {task: root / name for task, name in run_files().items() if (root / name).is_file()}


def count_rows(path: Path) -> int:
    """Number of lines in a file (a last line without a newline counts)."""
    rows = 0
    last = b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            rows += chunk.count(b"\n")
            last = chunk[-1:]
    return rows + (last != b"\n")


def record_hash(record: dict) -> str:
    """SHA-256 of a record's canonical JSON, without its own ``hash`` field."""
    body = {key: value for key, value in record.items() if key != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("ascii")).hexdigest()


def _ledger_lines(path: Path) -> tuple[list[bytes], bool]:
    """The complete lines of the ledger, and whether it ends in a torn line (an append cut short, never newline-terminated).

    Only a last line without its newline that is not a JSON object counts as torn: anything else that fails
    its hash is an edit.
    """
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends in a newline
    if not tail.strip():
        return lines, False
    try:
        json.loads(tail.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return lines, True
    return lines + [tail], False


def read_ledger(run: str | Path, *, allow_torn: bool = False) -> list[dict]:
    """Every record of RUN/commitments.jsonl, after checking each record's hash and the chain.

    A torn last line (an interrupted append) is refused with the fix, or skipped when ``allow_torn``.
    """
    path = Path(run) / LEDGER
    if not path.is_file():
        return []
    lines, torn = _ledger_lines(path)
    if torn and not allow_torn:
        raise LedgerCorruptError(f"{path} ends in a half-written record from an interrupted commit; run `fashionrq commit {Path(run)}` "
                                 "to drop it and commit again, then score.")
    records: list[dict] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise LedgerCorruptError(f"{path} line {number} is not JSON; the ledger was edited, commit again in a fresh run folder.") from None
        if not isinstance(record, dict) or record.get("hash") != record_hash(record):
            raise LedgerCorruptError(f"{path} line {number} does not match its own hash; the ledger was edited.")
        previous = records[-1]["hash"] if records else None
        if record.get("prev") != previous:
            raise LedgerCorruptError(f"{path} line {number} does not chain to the record before it; the ledger was edited.")
        records.append(record)
    return records


def ledger_is_torn(run: str | Path) -> bool:
    """Whether RUN/commitments.jsonl ends in a half-written line (the next commit drops it)."""
    path = Path(run) / LEDGER
    return path.is_file() and _ledger_lines(path)[1]


def _canonical(record: dict) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"


def _snapshot(run: Path) -> dict:
    files = prediction_files(run)
    if not files:
        raise MissingPredictionFileError(
            f"{run} has no prediction file ({', '.join(run_files().values())}); write at least one before committing."
        )
    config = read_run_config(run)
    return {
        "files": {path.name: {"sha256": sha256_file(path), "rows": count_rows(path)} for path in files.values()},
        "release": config["release"],
        "config_sha256": sha256_file(run / RUN_JSON),
    }


def commit_run(run: str | Path, bench: str | Path | None = None, *, now: datetime | None = None) -> dict:
    """Hash RUN's prediction files and run.json and append the commitment record to RUN/commitments.jsonl.

    With ``bench``, first refuse a run whose run.json names another release. The append is atomic (the
    ledger is rewritten under a temporary name, then renamed); a half-written last line left by an
    interrupted older append is dropped (see :func:`ledger_is_torn`). Returns the record.
    """
    root = Path(run)
    if bench is not None:
        check_release(root, bench)
    with _locked(root):  # concurrent commits of one run each append their record, one after the other
        ledger = read_ledger(root, allow_torn=True)
        stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")
        record = {"version": LEDGER_VERSION, **_snapshot(root), "timestamp": stamp,
                  "prev": ledger[-1]["hash"] if ledger else None}
        record["hash"] = record_hash(record)
        # the whole ledger is rewritten under a temporary name and renamed: an interrupted commit leaves the old
        # ledger or the new one, and a torn line left by an older writer is dropped here
        atomic_write_text(root / LEDGER, "".join(_canonical(r) for r in ledger) + _canonical(record))
    return record


@contextlib.contextmanager
def _locked(folder: Path):
    """An exclusive lock on the run folder itself (``flock`` on its descriptor: no lock file is left in the run)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise RunConfigError(f"{str(folder)[:200]} is not a readable folder ({err.strerror}); commit a run folder.") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def check_commitment(run: str | Path) -> dict:
    """Re-hash RUN against its latest commitment; return that record or refuse with one sentence."""
    root = Path(run)
    ledger = read_ledger(root)
    if not ledger:
        raise CommitmentMissingError(
            f"{root} has no commitment ({LEDGER} is missing or empty); run `fashionrq commit {root}` before scoring."
        )
    latest = ledger[-1]
    now = _snapshot(root)
    committed = latest.get("files", {})
    changed = sorted(name for name in committed.keys() & now["files"].keys()
                     if committed[name]["sha256"] != now["files"][name]["sha256"])
    added = sorted(now["files"].keys() - committed.keys())
    removed = sorted(committed.keys() - now["files"].keys())
    problems = []
    if changed:
        problems.append(f"changed after commit: {examples(changed)}")
    if added:
        problems.append(f"added after commit: {examples(added)}")
    if removed:
        problems.append(f"removed after commit: {examples(removed)}")
    if now["config_sha256"] != latest.get("config_sha256"):
        problems.append(f"{RUN_JSON} changed after commit")
    if problems:
        raise CommitmentMismatchError(
            f"{root} does not match its latest commitment {latest['hash'][:12]}… ({'; '.join(problems)}); "
            "predictions must not change after commit — commit again only if this is a new, declared submission."
        )
    return latest
