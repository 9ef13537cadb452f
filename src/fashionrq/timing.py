"""Per-stage time budget: wall time, CPU time and peak memory of named stages.

    timer = StageTimer()
    with timer.active():                    # stages opened anywhere below are recorded by this timer
        with stage("ingest"):
            ...
    print(timer.to_markdown())

:func:`stage` is a no-op when no timer is active, so library code (``build_release``, ``score_run``) can
mark its stages without taking a timer argument. CPU time is user + system of this process and of the
worker processes it has waited for (``os.times``), so encoders that run in processes are counted. Peak
RSS is the high-water mark of resident memory during the stage: this process's, reset at the start of
every stage where Linux allows it (``/proc/self/clear_refs``), and the largest a finished child reached.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import resource
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

_ACTIVE: contextvars.ContextVar[StageTimer | None] = contextvars.ContextVar("fashionrq_stage_timer", default=None)


@dataclass(frozen=True)
class StageTime:
    """One measured stage."""

    stage: str
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    #: 0 for a top-level stage, 1 for a stage inside another one, ...
    depth: int = 0

    def __str__(self) -> str:
        return f"{'  ' * self.depth}{self.stage}: {self.wall_s:.1f} s wall, {self.cpu_s:.1f} s CPU, peak RSS {self.peak_rss_mib:,.0f} MiB"


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _reset_peak_rss() -> None:
    """Reset this process's resident-memory high-water mark (Linux); elsewhere the lifetime peak is kept."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_rss_mib() -> float:
    """max(this process's high-water mark since the last reset, the largest finished child's peak), in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        with open("/proc/self/status") as handle:
            own = next(int(line.split()[1]) for line in handle if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        pass
    return max(own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


@dataclass
class StageTimer:
    """Collects :class:`StageTime` records in the order stages finish.

    ``on_stage``: called with each record as its stage ends (``--verbose`` prints them there).
    """

    on_stage: Callable[[StageTime], None] | None = None
    stages: list[StageTime] = field(default_factory=list)
    #: Peak RSS seen so far by each open stage, outermost first (a nested stage resets the high-water mark).
    _open: list[float] = field(default_factory=list, repr=False)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Measure the enclosed block as stage ``name`` (recorded even when it raises). Stages may nest:
        an inner stage is recorded with ``depth`` + 1 and is left out of the totals."""
        if self._open:
            peak = _peak_rss_mib()
            self._open = [max(p, peak) for p in self._open]
        _reset_peak_rss()
        self._open.append(0.0)
        wall, cpu = time.perf_counter(), _cpu_seconds()
        try:
            yield
        finally:
            peak = max(self._open.pop(), _peak_rss_mib())
            self._open = [max(p, peak) for p in self._open]
            record = StageTime(name, time.perf_counter() - wall, _cpu_seconds() - cpu, peak, depth=len(self._open))
            self.stages.append(record)
            if self.on_stage is not None:
                self.on_stage(record)

    def adopt(self, stages: Sequence[StageTime], prefix: str) -> None:
        """Record another process's stages (named ``prefix`` + their name) inside the stage open now, as if nested
        in it: the open stage's own wall time is this process's, and its CPU time includes the reaped child's."""
        for s in stages:
            record = StageTime(prefix + s.stage, s.wall_s, s.cpu_s, s.peak_rss_mib, depth=len(self._open) + s.depth)
            self.stages.append(record)
            if self.on_stage is not None:
                self.on_stage(record)

    @contextmanager
    def active(self) -> Iterator[StageTimer]:
        """Make this the timer that :func:`stage` records into, for the enclosed block."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    @property
    def peak_rss_mib(self) -> float:
        """The highest peak RSS of any stage (resetting the high-water mark per stage also resets the
        process's lifetime ``ru_maxrss`` on Linux, so this is the whole run's peak)."""
        return max((s.peak_rss_mib for s in self.stages), default=_peak_rss_mib())

    def to_dict(self) -> list[dict]:
        return [asdict(s) for s in self.stages]

    def to_markdown(self) -> str:
        """The stages as a Markdown table in the order they finished (an inner stage before its outer one,
        marked ↳), with a total over the top-level stages (peak RSS: the highest of any stage)."""
        rows = [f"| {'↳ ' * s.depth}{s.stage} | {s.wall_s:,.1f} | {s.cpu_s:,.1f} | {s.peak_rss_mib:,.0f} |" for s in self.stages]
        top = [s for s in self.stages if s.depth == 0]
        wall, cpu = sum(s.wall_s for s in top), sum(s.cpu_s for s in top)
        rows.append(f"| **total** | **{wall:,.1f}** | **{cpu:,.1f}** | **{self.peak_rss_mib:,.0f}** |")
        head = "| stage | wall (s) | CPU (s) | peak RSS (MiB) |\n|---|---:|---:|---:|"
        return head + "\n" + "\n".join(rows) + "\n"

    def __str__(self) -> str:
        return "\n".join(str(s) for s in self.stages)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Record the enclosed block as stage ``name`` in the active :class:`StageTimer`, if there is one."""
    timer = _ACTIVE.get()
    if timer is None:
        yield
        return
    with timer.stage(name):
        yield


def adopt(stages: Sequence[StageTime], prefix: str = "") -> None:
    """:meth:`StageTimer.adopt` into the active timer, if there is one (stages another process measured)."""
    timer = _ACTIVE.get()
    if timer is not None:
        timer.adopt(stages, prefix)


def timed(name: str | None, function: Callable, *args, **kwargs) -> tuple[object, list[StageTime]]:
    """``function(*args, **kwargs)`` under a timer of its own, inside stage ``name`` (none when None): its result and
    the stages it recorded, for a worker process whose parent takes them in (:func:`adopt`)."""
    timer = StageTimer()
    with timer.active(), (stage(name) if name else contextlib.nullcontext()):
        result = function(*args, **kwargs)
    return result, timer.stages
