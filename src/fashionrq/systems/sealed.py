"""Sealed runs: every system is built and run in a child process that sees a private copy of BENCH/public/ only.

The parent (:func:`run_sealed`) copies the verified ``BENCH/public/`` files into a fresh temporary folder,
pickles the job (system and reranker names or instances, their parameters, the calibrator) and starts
``python -m fashionrq.systems.sealed JOB``. The child seals itself (:func:`fashionrq.systems.sandbox.seal`:
the release folder, the SID cache and the stage cache become unreadable), and only then unpickles the job — so a plug-in's
module import, ``__init__``, ``fit``, ``score`` and ``config`` all run sealed — and writes the run files into
the temporary folder. It is never told where the release is.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cloudpickle

from fashionrq.errors import FashionRQError
from fashionrq.io import atomic_write_bytes, atomic_write_json
from fashionrq.systems.bench import PHOTOS

JOB = "job.pickle"
POLICY = "policy.json"
RESULT = "result.json"
ERROR = "error.json"
#: Cache folders a sealed system may write (query vectors, indexes, image attributes, rebuilt models, strings the
#: verifier compares).
CHILD_CACHE_FOLDERS = ("embeddings", "indexes", "images", "models", "relevance")
#: Cache folders that hold labels or label-derived data: the SIDs and cached stage outputs (releases, runs).
DENIED_CACHE_FOLDERS = ("sids", "stages")


@dataclass(frozen=True)
class Job:
    """What the child runs: ``system``/``reranker`` are names (built in the child) or ready instances."""

    system: object
    params: dict = field(default_factory=dict)
    reranker: object = None
    reranker_params: dict = field(default_factory=dict)
    regime: str = "text"
    calibrator: object = None
    release: str = ""
    depth: int = 50  # candidates per query the reranker re-scores
    first_stage: bool = False  # also write the first stage alone (two-stage jobs)
    engine: str | None = None  # open-corpus search: None (in the child), "local" or "ray"
    address: str | None = None
    chunk_rows: int = 4096
    index: str = "exact"


@dataclass(frozen=True)
class Batch:
    """Several jobs for one sealed child (``fashionrq.systems.run.run_systems``): job ``i`` writes ``WORK/out/<i>/``."""

    jobs: tuple[Job, ...]


@contextlib.contextmanager
def staged_public(public: Path, photos: bool = False):
    """A temporary folder holding a private copy of every file in ``public`` (``WORK/public``) and ``WORK/out``;
    with ``photos`` also of ``public/images/`` (copies, not links: the child may write below WORK, and must not
    reach the release's files)."""
    work = Path(tempfile.mkdtemp(prefix="fashionrq-sealed-"))
    try:
        (work / "public").mkdir()
        (work / "out").mkdir()
        _copy_files(public, work / "public")
        if photos and (public / PHOTOS).is_dir():
            (work / "public" / PHOTOS).mkdir()
            _copy_files(public / PHOTOS, work / "public" / PHOTOS)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _copy_files(source: Path, target: Path) -> None:
    """Copy the regular files directly in ``source`` (no links, no subfolders) into ``target``."""
    for path in sorted(source.iterdir()):
        if path.is_file() and not path.is_symlink():
            shutil.copyfile(path, target / path.name)


def _child_env() -> dict[str, str]:
    from fashionrq.encoders import default_cache_dir

    paths = [os.path.abspath(p or os.getcwd()) for p in sys.path]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
            "FASHIONRQ_CACHE": str(default_cache_dir().resolve())}


def _writable(work: Path) -> list[str]:
    from fashionrq.encoders import default_cache_dir

    home_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [str(p) for p in (work, default_cache_dir(), home_cache, Path(tempfile.gettempdir()), Path("/dev"))]


def run_sealed(job: Job | Batch, bench: Path, work: Path, label: str) -> dict:
    """Run ``job`` (or every job of a batch, in turn) in a sealed child over ``work`` (see :func:`staged_public`);
    return the child's result.

    The result is ``{"runs": {subfolder of WORK/out: run record}, "isolation": {...}}`` (see
    ``fashionrq.systems.run.execute`` and ``execute_batch``).
    """
    from fashionrq.encoders import default_cache_dir
    from fashionrq.io import read_json

    cache = default_cache_dir()
    for name in (*CHILD_CACHE_FOLDERS, *DENIED_CACHE_FOLDERS):  # the seal admits writes below existing folders only
        (cache / name).mkdir(parents=True, exist_ok=True)
    policy = {"denied": [str(bench.resolve()), *(str((cache / name).resolve()) for name in DENIED_CACHE_FOLDERS)],
              "writable": _writable(work)}
    atomic_write_json(work / POLICY, policy)
    try:
        # cloudpickle sends importable classes by reference and the rest (a plug-in defined in a notebook,
        # a script's __main__ or exec'd code) by value, so the child needs no import of the caller's module
        atomic_write_bytes(work / JOB, cloudpickle.dumps(job))
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        raise FashionRQError(f"system {label} cannot be sent to the sealed child process ({err}); pass it by name (module:Class) instead.") from None
    code = subprocess.run([sys.executable, "-m", "fashionrq.systems.sealed", str(work)], cwd=work, env=_child_env(),
                          close_fds=True).returncode
    if (work / ERROR).is_file():
        error = read_json(work / ERROR)
        from fashionrq.systems.bench import LabelAccessError

        kind = LabelAccessError if error.get("denied") else FashionRQError
        raise kind(error["message"], int(error.get("exit_code", 2)))
    if code != 0 or not (work / RESULT).is_file():
        raise FashionRQError(f"system {label} failed inside the sealed child process (exit {code}); its traceback is printed above.")
    return read_json(work / RESULT)


def _fail(work: Path, message: str, exit_code: int, denied: bool = False) -> None:
    atomic_write_json(work / ERROR, {"message": message, "exit_code": exit_code, "denied": denied})
    sys.exit(exit_code)


def child_main(work: Path) -> None:
    """The sealed child: seal, then build the systems (of one job or a batch) and write WORK/out/* and WORK/result.json."""
    from fashionrq.io import read_json
    from fashionrq.systems.sandbox import is_denial, seal

    policy = read_json(work / POLICY)
    (work / POLICY).unlink()  # the system must not even learn where the release is
    try:
        isolation = seal(policy["denied"], policy["writable"])
        with open(work / JOB, "rb") as handle:
            job: Job | Batch = pickle.load(handle)
        from fashionrq.systems.run import execute_job

        result = execute_job(job, work / "public", work / "out")
    except FashionRQError as err:
        _fail(work, str(err), err.exit_code)
    except OSError as err:
        if not is_denial(err):
            raise
        _fail(work, f"the system was refused access to {err.filename or 'a file'} ({err.strerror}): a sealed run may read only "
                    "its private copy of BENCH/public/, so remove that access.", 3, denied=True)
    atomic_write_json(work / RESULT, {"runs": result, "isolation": {**isolation, "process": "sealed child"}})


if __name__ == "__main__":
    child_main(Path(sys.argv[1]))
