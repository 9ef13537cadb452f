"""Run a float computation in a child process whose numeric libraries take one code path on every x86-64 CPU.

The SID stages train and cluster in float64, and their result hangs on thousands of argmin decisions: on the
bundled catalog, the last-bit differences between the kernels that MKL, OpenBLAS, numpy and ATen pick for a CPU
(AVX2 on one, AVX-512 on another, Intel's own paths on Intel only) grew into other SIDs. Each library has a switch
to a fixed code path; it must be set before the library loads, so :func:`run_pinned` starts a fresh interpreter with
:func:`pinned_environment` and runs the function there (docs/architecture.md, "What depends on the CPU").

``python -m fashionrq.pinned CALL RESULT`` is that child: it unpickles ``(function, args)`` from CALL and pickles
``(True, result)`` or ``(False, exception)`` to RESULT. Inside :func:`pinned_session`, one such child (a spawned
worker started with the same environment) serves every call instead, so a codebook search over six sizes starts
one interpreter, not twelve (each start imports torch: about 3 s).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

from fashionrq.io import atomic_writer

T = TypeVar("T")

#: Each library's switch to one code path (values read when the library loads): ATen's scalar kernels (no AVX2 or
#: AVX-512 variants); MKL's conditional numerical reproducibility for its matrix products (its vector math is not
#: covered: fashionrq.sid.portable replaces it); oneDNN capped at SSE4.1; OpenBLAS's Sandy Bridge kernels whatever
#: the CPU; one thread everywhere.
PINNED_ENV = {
    "ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE", "ONEDNN_MAX_CPU_ISA": "SSE41",
    "OPENBLAS_CORETYPE": "Sandybridge", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
}


def pinned_environment() -> dict[str, str]:
    """This process's environment with :data:`PINNED_ENV`, numpy's dispatch limited to its baseline (every dispatch
    target above it that this CPU has, e.g. ``X86_V3,X86_V4,AVX512_ICL,AVX512_SPR``, disabled), and the folder
    this fashionrq was imported from first on ``PYTHONPATH``."""
    package_root = str(Path(__file__).resolve().parents[1])  # the child imports fashionrq from where this one did
    path = os.pathsep.join([package_root, *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**os.environ, **PINNED_ENV, "NPY_DISABLE_CPU_FEATURES": ",".join(numpy_dispatch_targets()),
            "PYTHONPATH": path}


def numpy_dispatch_targets() -> list[str]:
    """numpy's dispatch targets above its baseline that this CPU has (numpy 2.4: ``X86_V3``, ``X86_V4``,
    ``AVX512_ICL``, ``AVX512_SPR``): the value of ``NPY_DISABLE_CPU_FEATURES`` that leaves numpy on its baseline
    loops (numpy refuses to disable a target the CPU lacks)."""
    return [target for target in __cpu_dispatch__ if __cpu_features__.get(target)]


_sessions: list[ProcessPoolExecutor] = []  # the pinned worker of the innermost pinned_session, if any


@contextmanager
def pinned_session() -> Iterator[None]:
    """Every :func:`run_pinned` call inside runs in one pinned child, started here and stopped at the end (so its
    memory is returned); nested sessions share the outer one."""
    if _sessions:
        yield
        return
    worker = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    outside = dict(os.environ)
    os.environ.update(pinned_environment())  # a spawned child inherits the environment it starts with
    try:
        worker.submit(int).result()  # starts it now, while the environment is pinned
    finally:
        os.environ.clear()
        os.environ.update(outside)
    _sessions.append(worker)
    try:
        yield
    finally:
        _sessions.pop()
        worker.shutdown(cancel_futures=True)


def run_pinned(function: Callable[..., T], *args) -> T:
    """``function(*args)`` computed in a child interpreter with :func:`pinned_environment` (its output goes to this
    process's terminal); an exception it raises is raised here. ``function`` and ``args`` must pickle."""
    if _sessions:
        try:
            return _sessions[-1].submit(function, *args).result()
        except BrokenProcessPool:
            raise RuntimeError(f"the pinned-kernel process for {function.__qualname__} ended with no result "
                               "(killed for memory?)") from None
    with tempfile.TemporaryDirectory(prefix="fashionrq-pinned-") as folder:
        call, result = Path(folder) / "call.pickle", Path(folder) / "result.pickle"
        with atomic_writer(call, "wb") as handle:
            pickle.dump((function, args), handle, protocol=pickle.HIGHEST_PROTOCOL)
        done = subprocess.run([sys.executable, "-m", "fashionrq.pinned", str(call), str(result)], env=pinned_environment())
        if not result.is_file():
            raise RuntimeError(f"the pinned-kernel process for {function.__qualname__} ended with exit code {done.returncode} "
                               "and no result (killed for memory?)")
        with result.open("rb") as handle:
            ok, value = pickle.load(handle)
    if not ok:
        raise value
    return value


def _main(call: str, result: str) -> None:
    with open(call, "rb") as handle:
        function, args = pickle.load(handle)
    try:
        outcome = (True, function(*args))
    except Exception as err:  # noqa: BLE001 - handed to the parent, which raises it
        outcome = (False, err)
    with atomic_writer(Path(result), "wb") as handle:
        pickle.dump(outcome, handle, protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == "__main__":
    _main(*sys.argv[1:3])
