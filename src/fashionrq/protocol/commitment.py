"""Commitment of prediction files before any label is opened: an append-only, hash-chained ledger.

``commit_run`` hashes every prediction file, run.json and the release it targets, and appends the
record to RUN/commitments.jsonl; each record carries the previous record's hash. ``check_commitment``
re-hashes the files against the latest record and refuses any change.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from fashionrq.protocol.errors import (
    CommitmentMismatchError,
    CommitmentMissingError,
    LedgerCorruptError,
    MissingPredictionFileError,
    ReleaseMismatchError,
    RunConfigError,
    examples,
)
from fashionrq.protocol.manifest import release_hash, sha256_file

TASK_FILES = {"t1o": "t1o.run", "t1": "t1.run", "t2": "t2.jsonl", "t3": "t3.run", "t4": "t4.run"}
RUN_JSON = "run.json"
LEDGER = "commitments.jsonl"
LEDGER_VERSION = 1


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


def check_release(run: str | Path, bench: str | Path) -> str:
    """Raise ReleaseMismatchError unless run.json names this release; return the release hash."""
    expected = release_hash(bench)
    found = read_run_config(run)["release"]
    if found != expected:
        raise ReleaseMismatchError(
            f"{Path(run) / RUN_JSON} was made for release {found[:12]}…, but {Path(bench) / 'manifest.json'} "
            f"has hash {expected[:12]}…; rerun the system on this release."
        )
    return expected


def prediction_files(run: str | Path) -> dict[str, Path]:
    """``{task: path}`` for the prediction files present in RUN."""
    root = Path(run)
    return {task: root / name for task, name in TASK_FILES.items() if (root / name).is_file()}


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


def read_ledger(run: str | Path) -> list[dict]:
    """Every record of RUN/commitments.jsonl, after checking each record's hash and the chain."""
    path = Path(run) / LEDGER
    if not path.is_file():
        return []
    records: list[dict] = []
    for number, line in enumerate(path.read_bytes().split(b"\n"), start=1):
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


def _snapshot(run: Path) -> dict:
    files = prediction_files(run)
    if not files:
        raise MissingPredictionFileError(
            f"{run} has no prediction file ({', '.join(TASK_FILES.values())}); write at least one before committing."
        )
    config = read_run_config(run)
    return {
        "files": {path.name: {"sha256": sha256_file(path), "rows": count_rows(path)} for path in files.values()},
        "release": config["release"],
        "config_sha256": sha256_file(run / RUN_JSON),
    }


def commit_run(run: str | Path, bench: str | Path | None = None, *, now: datetime | None = None) -> dict:
    """Hash RUN's prediction files and run.json and append the commitment record to RUN/commitments.jsonl.

    With ``bench``, first refuse a run whose run.json names another release. Returns the record.
    """
    root = Path(run)
    if bench is not None:
        check_release(root, bench)
    ledger = read_ledger(root)
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")
    record = {"version": LEDGER_VERSION, **_snapshot(root), "timestamp": stamp,
              "prev": ledger[-1]["hash"] if ledger else None}
    record["hash"] = record_hash(record)
    with open(root / LEDGER, "a", encoding="ascii") as handle:
        handle.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
    return record


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
