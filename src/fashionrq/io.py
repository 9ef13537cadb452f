"""Crash-safe file output and the small readers every stage shares.

Every file fashionrq writes goes to a temporary name in the same folder, is flushed and fsynced, and is
then renamed into place, so a crash or a full disk leaves either the old file or the new one, never half
of each. An output that already exists is refused unless the caller passes ``force=True``.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from fashionrq.errors import FashionRQError, InputError

#: Test hook: ``NAME:N`` makes the process SIGKILL itself at the N-th pass of crash point NAME (see crash_point).
CRASH_ENV = "FASHIONRQ_CRASH_AT"
_PASSES: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Kill this process (SIGKILL, no cleanup) at the N-th pass of ``name`` when ``FASHIONRQ_CRASH_AT=name:N``.

    The kill-and-rerun tests use it to stop a command between two steps; unset, it does nothing.
    """
    target = os.environ.get(CRASH_ENV)
    if not target or target.rpartition(":")[0] != name:
        return
    _PASSES[name] = _PASSES.get(name, 0) + 1
    if str(_PASSES[name]) == target.rpartition(":")[2]:
        os.kill(os.getpid(), signal.SIGKILL)


def refuse_existing(path: str | Path, force: bool = False, what: str = "output") -> None:
    """Raise unless ``path`` is free, or ``force`` allows replacing it."""
    path = Path(path)
    if path.exists() and not force:
        raise InputError(f"{what} {path} already exists; choose another path, delete it, or pass --force to replace it.")


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it is fsynced and renamed onto ``path``.

    On any exception the temporary file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, 0o666 & ~_umask())
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding, newline=None if binary else "\n") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        crash_point("write")  # the temporary file is complete, the target not yet replaced
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` newlines) to ``path`` atomically."""
    with atomic_writer(path, "w") as handle:
        handle.write(text)


def atomic_write_json(path: str | Path, obj, indent: int | None = 2) -> None:
    """Write ``obj`` as JSON with sorted keys to ``path`` atomically; non-finite floats are refused."""
    atomic_write_text(path, json.dumps(obj, indent=indent, sort_keys=True, allow_nan=False) + "\n")


#: Canonical JSON lines: sorted keys, compact, ASCII escapes, no NaN (run files, whose bytes are committed and compared).
CANONICAL_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False).encode
#: Readable JSON lines: each record's own key order, ``", "`` and ``": "``, UTF-8 text (release and export files).
READABLE_JSON = json.JSONEncoder(ensure_ascii=False).encode


def atomic_write_jsonl(path: str | Path, records: Iterable[dict], encode: Callable[[object], str] = CANONICAL_JSON) -> None:
    """Write one JSON object per line (``encode``: :data:`CANONICAL_JSON` or :data:`READABLE_JSON`) to ``path`` atomically."""
    with atomic_writer(path, "w") as handle:
        for record in records:
            handle.write(encode(record) + "\n")


@contextlib.contextmanager
def atomic_directory(path: str | Path, force: bool = False, what: str = "output folder") -> Iterator[Path]:
    """Build a folder under a temporary name beside ``path``, then rename it into place.

    Yields the temporary folder to fill. An existing ``path`` is refused unless ``force``; with ``force`` it
    is replaced only once the new folder is complete.
    """
    path = Path(path)
    refuse_existing(path, force, what)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".partial", dir=path.parent))
    os.chmod(tmp, 0o777 & ~_umask())
    try:
        yield tmp
        crash_point("directory")  # the folder is complete, not yet renamed into place
        if path.exists():
            old = path.with_name(f".{path.name}.old-{os.getpid()}")
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_dir(path.parent)


def remove_stale_partials(path: Path) -> None:
    """Delete what crashed writers of the folder ``path`` left beside it: ``.NAME.PID.*.partial`` (a half-built
    folder: a release's holds its labels) and ``.NAME.old-PID`` (the folder it replaced) of a process no longer
    alive, and ``.NAME.*.partial`` of older versions, which name no process."""
    for entry in sorted(path.parent.glob(f".{glob.escape(path.name)}.*")):
        middle = entry.name[len(path.name) + 2:]
        if middle.endswith(".partial"):
            pid = middle.split(".")[0]
        elif middle.startswith("old-"):
            pid = middle[4:]
        else:
            continue
        if entry.is_dir() and not entry.is_symlink() and not (pid.isdigit() and process_alive(int(pid))):
            shutil.rmtree(entry, ignore_errors=True)


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (this user's or another's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def _umask() -> int:
    """The process umask (read by setting and restoring it), so temporary files get ordinary permissions."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def link_or_copy(source: str | Path, target: str | Path) -> bool:
    """Make ``target`` (a new file, e.g. inside an :func:`atomic_directory`) hold ``source``'s bytes: a hard link
    where the filesystem allows (no bytes copied), else a copy. True when linked."""
    try:
        os.link(source, target)
        return True
    except OSError:  # another filesystem, a read-only mount, no hard links, too many links
        shutil.copyfile(source, target)
        return False


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def read_jsonl(path: str | Path, fields: tuple[str, ...] = (), error: type[FashionRQError] = InputError,
               fix: str = "regenerate the file or fix that line") -> Iterator[dict]:
    """Yield the JSON object on each non-blank line of ``path``, each holding ``fields``; a missing or unreadable
    file or a bad line raises ``error``, one sentence naming the file (and line) and ``fix``."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, start=1):
                if line.strip():
                    yield _record(path, lineno, line, fields, error, fix)
    except (OSError, UnicodeDecodeError) as err:
        raise error(f"{path} cannot be read as UTF-8 text ({getattr(err, 'strerror', None) or err.reason}); {fix}.") from None


def _record(path: Path, lineno: int, line: str, fields: tuple[str, ...], error: type[FashionRQError], fix: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise error(f"{path} line {lineno} is not valid JSON ({err.msg}); {fix}.") from None
    if not isinstance(record, dict):
        raise error(f"{path} line {lineno} is not a JSON object (one {{...}} record per line); {fix}.")
    missing = [name for name in fields if name not in record]
    if missing:
        raise error(f"{path} line {lineno} lacks {', '.join(missing)}; {fix}.")
    return record


def read_json(path: str | Path) -> dict:
    """The JSON object in ``path``; a file that is not one raises an error naming the file and the fix."""
    path = Path(path)
    try:
        record = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise InputError(f"{path} is not valid JSON ({err}); delete it and write it again with fashionrq.") from None
    if not isinstance(record, dict):
        raise InputError(f"{path} is not a JSON object; delete it and write it again with fashionrq.")
    return record


def write_vectors_parquet(path: str | Path, item_ids, vectors, metadata: dict[bytes, bytes] | None = None,
                          row_group_size: int = 131_072) -> None:
    """Write ``item_id`` plus a fixed-size-list float32 ``embedding`` column atomically (the ``--embeddings`` layout)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    column = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), type=pa.float32()), vectors.shape[1])
    table = pa.table({"item_id": item_ids, "embedding": column})
    if metadata:
        table = table.replace_schema_metadata(metadata)
    with atomic_writer(path, "wb") as handle:
        pq.write_table(table, handle, compression="zstd", row_group_size=row_group_size, write_statistics=False)
