"""What a process may use: the cores it may run on, and what a sealed child may use (``fashionrq run
--time-limit/--memory-limit``); a module of its own, so the CLI reads the defaults without importing the systems."""

from __future__ import annotations

import os
from dataclasses import dataclass

from fashionrq.errors import InputError


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity): how many workers a parallel step starts."""
    return max(1, len(os.sched_getaffinity(0)))


#: Default limits of ``fashionrq run --time-limit/--memory-limit``.
DEFAULT_TIME_LIMIT_S = 4 * 3600
DEFAULT_MEMORY_LIMIT_GIB = 16


@dataclass(frozen=True)
class Limits:
    """What a sealed child may use: wall-clock seconds, and GiB of memory (each process's address space, ``RLIMIT_AS``,
    and the proportional set size of all its processes together)."""

    time_s: float = DEFAULT_TIME_LIMIT_S
    memory_gib: float = DEFAULT_MEMORY_LIMIT_GIB

    def __post_init__(self) -> None:
        if not (self.time_s > 0 and self.memory_gib > 0):
            raise InputError(f"--time-limit {self.time_s} and --memory-limit {self.memory_gib} must both be positive.")
