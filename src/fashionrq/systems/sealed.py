"""Sealed runs: every system is built and run in a child process that sees a private copy of BENCH/public/ only.

The parent (:func:`run_sealed`) copies the verified ``BENCH/public/`` files into a fresh temporary folder WORK,
pickles the job (system and reranker names or instances, their parameters, the calibrator) into ``WORK/job/`` and
starts ``python -m fashionrq.systems.child WORK`` under the seal it planned itself (``fashionrq.systems.sandbox``):
the child may read ``WORK/public``, ``WORK/job``, the Python installation and the system folders, and write
``WORK/out`` and ``WORK/tmp``. The child unpickles the job — so a plug-in's module import, ``__init__``, ``fit``,
``score`` and ``config`` all run sealed — and writes the run files into ``WORK/out``. It is never told where the
release is. The parent trusts nothing the child wrote (:func:`read_child_file`): it reads back only regular files
of the expected names, without following links and up to a size limit, and records the isolation it set up.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cloudpickle

from fashionrq.cachedigest import DIGESTS, SEALED_ENV
from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_write_bytes, process_alive
from fashionrq.layout import PHOTOS, PUBLIC, SIDS_CACHE, STAGES_CACHE, default_cache_dir
from fashionrq.limits import Limits
from fashionrq.release import LabelAccessError
from fashionrq.systems.job import ERROR, JOB, RESULT, Batch, Job
from fashionrq.systems.sandbox import SandboxError, plan

WORK_PREFIX = "fashionrq-sealed-"
#: Cache folders the parent shares with sealed runs, read-only to them: vectors and the
#: photos' derived attributes, all written by the parent (none holds a label). A sealed run trusts an entry only
#: with the digest the parent recorded (``fashionrq.cachedigest``, in ``digests/``, read-only to it too) and
#: computes what is missing without caching it.
SHARED_CACHE_FOLDERS = ("embeddings", "images")
#: Each sealed run's own cache folders, in its work folder (``WORK/cache``, its ``FASHIONRQ_CACHE``, where the shared
#: folders and ``digests/`` appear as links) and removed with it: its indexes and verifier strings, so no sealed
#: run can change what another reads.
PRIVATE_CACHE_FOLDERS = ("indexes", "relevance")
#: Cache folders that hold labels or label-derived data: the SIDs and cached stage outputs (releases, runs).
DENIED_CACHE_FOLDERS = (SIDS_CACHE, STAGES_CACHE)
#: System folders the child may read (libraries, programs, ``/etc``, ``/proc`` and ``/sys`` for CPU and memory
#: facts).
SYSTEM_FOLDERS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc", "/sys")
#: The devices it may read and write: no disk, no terminal, no other device.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/shm")
#: The most bytes the parent reads back of one file the child wrote.
MAX_CHILD_FILE = 1 << 30
MAX_CHILD_RECORD = 16 << 20
#: How often (seconds) the parent checks the sealed child's time and the resident memory of its processes.
WATCH_INTERVAL_S = 0.25
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def staged_public(public: Path, photos: bool = False):
    """A temporary folder WORK holding a private copy of every file in ``public`` (``WORK/public``), ``WORK/job``,
    ``WORK/out`` and ``WORK/tmp``; with ``photos`` also of ``public/images/`` (copies, not links: the child must not
    reach the release's files). Folders a killed parent left behind are removed first."""
    _remove_stale_work()
    work = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-"))
    try:
        for name in (PUBLIC, "job", "out", "tmp"):
            (work / name).mkdir()
        _copy_files(public, work / PUBLIC)
        if photos and (public / PHOTOS).is_dir():
            (work / PUBLIC / PHOTOS).mkdir()
            _copy_files(public / PHOTOS, work / PUBLIC / PHOTOS)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _remove_stale_work() -> None:
    for entry in Path(tempfile.gettempdir()).glob(f"{WORK_PREFIX}*-*"):
        pid = entry.name[len(WORK_PREFIX):].split("-")[0]
        if pid.isdigit() and entry.is_dir() and not entry.is_symlink() and not process_alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _copy_files(source: Path, target: Path) -> None:
    """Copy the regular files directly in ``source`` (no links, no subfolders) into ``target``."""
    for path in sorted(source.iterdir()):
        if path.is_file() and not path.is_symlink():
            shutil.copyfile(path, target / path.name)


def _import_path() -> list[str]:
    """This process's import path (``''`` is the working folder): the child's PYTHONPATH."""
    return list(dict.fromkeys(os.path.abspath(p or os.getcwd()) for p in sys.path))


def _python_folders() -> list[Path]:
    """The Python installation and every folder on the import path (the child imports from them)."""
    folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *_import_path()]
    return [Path(os.path.realpath(p)) for p in dict.fromkeys(folders)]


def _model_folders() -> list[Path]:
    """Where downloaded model weights live (Hugging Face, torch); the child reads them (it has no network to
    download more)."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [Path(p) for p in (os.environ.get("HF_HOME") or home / "huggingface", os.environ.get("TORCH_HOME") or home / "torch")]


def _access(work: Path, cache: Path) -> tuple[list[Path], list[Path]]:
    """``(readable, writable)`` folders of the sealed child: it writes only its own work folder's ``out``, ``tmp``
    and ``cache`` (and a few devices); it reads its staged ``public``, its job, the shared cache folders, the
    digests, the model folders, Python and the system's libraries."""
    shared = [cache / name for name in (*SHARED_CACHE_FOLDERS, DIGESTS)]
    readable = [work / PUBLIC, work / "job", *shared, *_model_folders(), *_python_folders(), *map(Path, SYSTEM_FOLDERS)]
    return readable, [work / "out", work / "tmp", work / "cache", *map(Path, DEVICES)]


def _ray_folder() -> Path:
    """Ray's temporary root (``$RAY_TMPDIR``, default ``/tmp/ray``), where its drivers keep session logs."""
    folder = Path(os.environ.get("RAY_TMPDIR") or "/tmp/ray")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _refuse_reachable(readable: list[Path], writable: list[Path], hidden: list[Path]) -> None:
    for folder in (*readable, *writable):
        inside = [h for h in hidden if h == folder or folder in h.parents]
        if inside:
            raise InputError(f"{str(inside[0])[:200]} lies inside {str(folder)[:200]}, which a sealed run may read (a folder "
                             "Python imports from: the script's or working folder of `python -m`, PYTHONPATH; or a system "
                             "or model folder); keep releases and caches out of it, e.g. run from another folder.")


def _child_env(work: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(_import_path()), "FASHIONRQ_CACHE": str(work / "cache"),
            "TMPDIR": str(work / "tmp"), SEALED_ENV: "1"}


def _cache_folder() -> Path:
    """``$FASHIONRQ_CACHE`` with every folder the seal names (Landlock admits rules on existing folders only)."""

    cache = default_cache_dir().resolve()
    for name in (*SHARED_CACHE_FOLDERS, *DENIED_CACHE_FOLDERS, DIGESTS):
        (cache / name).mkdir(parents=True, exist_ok=True)
    return cache


def _private_cache(work: Path, cache: Path) -> None:
    """``WORK/cache``: the run's own cache folders, and links to the shared ones and to ``digests/``."""
    for name in PRIVATE_CACHE_FOLDERS:
        (work / "cache" / name).mkdir(parents=True, exist_ok=True)
    for name in (*SHARED_CACHE_FOLDERS, DIGESTS):
        if not os.path.lexists(work / "cache" / name):
            (work / "cache" / name).symlink_to(cache / name, target_is_directory=True)


def run_sealed(job: Job | Batch, bench: Path, work: Path, label: str, limits: Limits = Limits()) -> tuple[dict, dict]:
    """Run ``job`` (or every job of a batch, in turn) in a sealed child over ``work`` (see :func:`staged_public`);
    return ``({subfolder of WORK/out: the child's record}, isolation)``.

    Each record is ``{"system", "config"}`` as the child reports it (checked to be a name and a JSON object);
    ``isolation`` is what this process set up (``fashionrq.systems.sandbox``), with the limits.
    """
    cache = _cache_folder()
    _private_cache(work, cache)
    readable, writable = _access(work, cache)
    hidden = [Path(os.path.realpath(bench)), *(cache / name for name in DENIED_CACHE_FOLDERS)]
    _refuse_reachable(readable, writable, hidden)
    try:
        # cloudpickle sends importable classes by reference and the rest (a plug-in defined in a notebook,
        # a script's __main__ or exec'd code) by value, so the child needs no import of the caller's module
        atomic_write_bytes(work / "job" / JOB, cloudpickle.dumps(job))
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        raise FashionRQError(f"system {label} cannot be sent to the sealed child process ({err}); pass it by name (module:Class) instead.") from None
    jobs = job.jobs if isinstance(job, Batch) else (job,)
    ray = any(j.engine == "ray" for j in jobs)
    if ray:  # a Ray driver writes its logs into the cluster's session folder: the seal leaves that folder open too
        writable = [*writable, _ray_folder()]
    seal = plan(readable, writable, hidden, int(limits.memory_gib * (1 << 30)), network=ray)
    try:
        code = _supervise(work, seal, limits, label)
    except subprocess.SubprocessError:
        raise SandboxError(f"the sealed child of system {label} could not be started under {seal.record['mechanism']}; "
                           "set FASHIONRQ_SANDBOX=none to run it unsealed.") from None
    finally:
        seal.close()
    isolation = {**seal.record, "process": "sealed child", "limits": {"time_s": float(limits.time_s), "memory_gib": float(limits.memory_gib)}}
    return _child_records(work / "out", code, label, limits), isolation


def _supervise(work: Path, seal, limits: Limits, label: str) -> int:
    """Start the child under ``seal``, wait up to the time limit while its processes together stay within the
    memory limit, then kill its process group (and every process left in its network namespace); returns its exit
    code."""
    child = subprocess.Popen([sys.executable, "-m", "fashionrq.systems.child", str(work)], cwd=work, env=_child_env(work),
                             close_fds=True, start_new_session=True, preexec_fn=seal.apply)
    namespace = _namespace(child.pid) if seal.network_flags else None
    if namespace == _namespace(os.getpid()):  # not a namespace of its own: it tells the run's processes from no others
        namespace = None
    deadline = time.monotonic() + limits.time_s
    try:
        while (code := child.poll()) is None:
            if time.monotonic() > deadline:
                raise FashionRQError(f"system {label} ran past its wall-clock limit of {limits.time_s:g} s and was killed; "
                                     "raise it with --time-limit SECONDS.")
            if _holds_more_than(_processes(child.pid, namespace), limits.memory_gib * (1 << 30)):
                raise FashionRQError(f"system {label} held more than its memory limit of {limits.memory_gib:g} GiB "
                                     "(resident, all its processes together) and was killed; raise it with --memory-limit GIB.")
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=WATCH_INTERVAL_S)
        return code
    finally:
        _kill_all(child.pid, namespace)
        child.wait()


def _processes(session: int, namespace: str | None) -> list[int]:
    """The sealed child's processes: its session (it leads one of its own) and every process in ``namespace``, its
    own network namespace when it has one (a process that left the session)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            pid = int(entry.name)
            with contextlib.suppress(OSError):
                if os.getsid(pid) == session or (namespace is not None and _namespace(pid) == namespace):
                    found.append(pid)
    return found


def _holds_more_than(pids: list[int], limit: float) -> bool:
    """Whether ``pids`` together hold more than ``limit`` bytes of proportional set size (:func:`_proportional_bytes`).
    Their resident sizes are summed first (``/proc/PID/statm``, which costs next to nothing): no process's ``Pss`` is
    above its ``Rss``, so only a sum over ``limit`` needs the costly ``smaps_rollup`` walk (read four times a second
    for a whole run, it took about 7 % of a core)."""
    return _statm_resident_bytes(pids) > limit and _proportional_bytes(pids) > limit


def _statm_resident_bytes(pids: list[int]) -> int:
    """The resident sizes of ``pids`` summed (second field of ``/proc/PID/statm``, in pages); a process gone meanwhile counts 0."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE
    return total


def _proportional_bytes(pids: list[int]) -> int:
    """The memory ``pids`` hold together: each one's proportional set size (``Pss`` of ``/proc/PID/smaps_rollup``, so
    pages that forked processes share count once); a process gone meanwhile counts 0."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, StopIteration):
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
            total += int(next(line for line in rollup if line.startswith("Pss:")).split()[1]) << 10
    return total


def _namespace(pid: int) -> str | None:
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/{pid}/ns/net")
    return None


def _kill_all(group: int, namespace: str | None) -> None:
    """SIGKILL the child's process group and every other process of its (:func:`_processes`: a daemon that left the
    group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    for pid in _processes(group, namespace):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def read_child_file(folder: Path, parts: tuple[str, ...], limit: int = MAX_CHILD_FILE) -> bytes | None:
    """The bytes of ``folder/parts...`` written by the child, read without following any link (each part is opened
    ``O_NOFOLLOW`` below the one before); ``None`` when absent. Refuses a link, a special file (a FIFO, a device) or
    a file over ``limit`` bytes."""
    where = "/".join(parts)
    fds = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)]
    try:
        for i, part in enumerate(parts):
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_DIRECTORY if i < len(parts) - 1 else 0)
            try:
                fds.append(os.open(part, flags, dir_fd=fds[-1]))
            except FileNotFoundError:
                return None
            except OSError:
                raise FashionRQError(f"the sealed child left {where[:200]} as a link or not a folder; a run writes plain files only.") from None
        info = os.fstat(fds[-1])
        if not stat.S_ISREG(info.st_mode):
            raise FashionRQError(f"the sealed child left {where[:200]} as a special file (a FIFO, socket or device); a run writes plain files only.")
        if info.st_size > limit:
            raise FashionRQError(f"the sealed child wrote {where[:200]} of {info.st_size:,} bytes, over the limit of {limit:,}; write smaller files.")
        with os.fdopen(os.dup(fds[-1]), "rb") as handle:
            return handle.read(limit + 1)[:limit]
    finally:
        for fd in fds:
            os.close(fd)


def _child_json(out: Path, name: str) -> dict | None:
    data = read_child_file(out, (name,), MAX_CHILD_RECORD)
    if data is None:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        record = None
    if not isinstance(record, dict):
        raise FashionRQError(f"the sealed child wrote a {name} that is not a JSON object; the system broke the run.")
    return record


def _child_records(out: Path, code: int, label: str, limits: Limits) -> dict:
    """The run records the child wrote (``WORK/out/result.json``), each checked; its error (``error.json``) raised."""

    error = _child_json(out, ERROR)
    if error is not None:
        exit_code = error.get("exit_code")
        kind = LabelAccessError if error.get("denied") is True else FashionRQError
        raise kind(str(error.get("message"))[:500], exit_code if isinstance(exit_code, int) and 2 <= exit_code <= 30 else 2)
    result = _child_json(out, RESULT) if code == 0 else None
    if result is None:
        raise FashionRQError(f"system {label} failed inside the sealed child process (exit {code}); its traceback is printed "
                             f"above (memory limit {limits.memory_gib:g} GiB: raise it with --memory-limit GIB).")
    runs = result.get("runs")
    if not isinstance(runs, dict) or not all(_is_record(r) for r in runs.values()):
        raise FashionRQError(f"system {label}: the sealed child's result.json names no run records; the system broke the run.")
    return {key: {"system": record["system"][:200], "config": record["config"]} for key, record in runs.items()}


def _is_record(record) -> bool:
    return isinstance(record, dict) and isinstance(record.get("system"), str) and isinstance(record.get("config"), dict)
