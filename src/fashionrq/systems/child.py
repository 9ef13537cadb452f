"""The sealed child, ``python -m fashionrq.systems.child WORK``, started by :func:`fashionrq.systems.sealed.run_sealed`
under the seal it planned: it unpickles the job from ``WORK/job`` and runs it over ``WORK/public`` into ``WORK/out``."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

from fashionrq.errors import FashionRQError
from fashionrq.io import atomic_write_json
from fashionrq.layout import PUBLIC
from fashionrq.systems.execute import execute_job
from fashionrq.systems.job import ERROR, JOB, RESULT, Batch, Job
from fashionrq.systems.sandbox import is_denial


def _fail(out: Path, message: str, exit_code: int, denied: bool = False) -> None:
    atomic_write_json(out / ERROR, {"message": message, "exit_code": exit_code, "denied": denied})
    sys.exit(exit_code)


def child_main(work: Path) -> None:
    """The sealed child (sealed before it started): build the systems (of one job or a batch) and write WORK/out/*."""
    out = work / "out"
    try:
        with open(work / "job" / JOB, "rb") as handle:
            job: Job | Batch = pickle.load(handle)
        result = execute_job(job, work / PUBLIC, out)
    except FashionRQError as err:
        _fail(out, str(err), err.exit_code)
    except OSError as err:
        if not is_denial(err):
            raise
        _fail(out, f"the system was refused access to {err.filename or 'a file'} ({err.strerror}): a sealed run may read only "
                   "its private copy of BENCH/public/, so remove that access.", 3, denied=True)
    atomic_write_json(out / RESULT, {"runs": result})


if __name__ == "__main__":
    child_main(Path(sys.argv[1]))
