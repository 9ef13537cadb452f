"""Pacing LLM calls to what the server can take: an adaptive concurrency limit and progress with an estimate.

A local server (llama.cpp, Ollama) often has one slot: concurrent requests queue behind each other, time out,
and a timed-out request keeps the server busy until it finishes. So a timeout halves the concurrency limit,
and the abandoned request keeps holding its slot for ``hold`` seconds; retries therefore wait for the server
instead of stacking up behind it. Successes grow the limit back by one at a time (AIMD).
"""

from __future__ import annotations

import threading
import time
from collections import Counter

from fashionrq.progress import console, duration, progress_bar


class AdaptiveLimit:
    """At most ``limit`` calls in flight (``1 <= limit <= maximum``), adapted to timeouts as described above."""

    def __init__(self, maximum: int, hold: float) -> None:
        self.maximum = max(1, int(maximum))
        self.limit = self.maximum
        self.lowest = self.maximum
        self.hold = hold
        self.in_flight = 0
        self._held: list[float] = []  # when each abandoned (timed-out) request is assumed to be finished
        self._streak = 0
        self._cond = threading.Condition()
        self.stopped = False

    def _busy(self, now: float) -> int:
        self._held = [t for t in self._held if t > now]
        return self.in_flight + len(self._held)

    def acquire(self) -> bool:
        """Wait for a free slot; ``False`` when the limit was stopped meanwhile."""
        with self._cond:
            while not self.stopped and self._busy(time.monotonic()) >= self.limit:
                wait = min(self._held) - time.monotonic() if self._held and self.in_flight < self.limit else None
                self._cond.wait(timeout=wait)
            if self.stopped:
                return False
            self.in_flight += 1
            return True

    def release(self, timed_out: bool) -> None:
        """Free the slot of a finished call; a timed-out call shrinks the limit and keeps its slot a while."""
        with self._cond:
            self.in_flight -= 1
            if timed_out:
                self._held.append(time.monotonic() + self.hold)
                self.limit = max(1, self.limit // 2)
                self.lowest = min(self.lowest, self.limit)
                self._streak = 0
            else:
                self._streak += 1
                if self._streak >= self.limit and self.limit < self.maximum:
                    self.limit += 1
                    self._streak = 0
            self._cond.notify_all()

    def stop(self) -> None:
        """Wake every waiting caller and refuse further slots."""
        with self._cond:
            self.stopped = True
            self._cond.notify_all()


class CallProgress:
    """Counts finished calls and shows progress with an estimate of the time left: a bar on a terminal, else one
    line at most every ``every`` seconds (and at the end)."""

    def __init__(self, total: int, label: str, every: float = 15.0) -> None:
        self.total, self.label, self.every = total, label, every
        self.done = self.cached = self.failed = 0
        self.errors: Counter[str] = Counter()
        self._start = self._last = time.monotonic()
        self._bar = progress_bar()
        self._task = self._bar.add_task(label, total=total)
        self._bar.start()

    @property
    def asked(self) -> int:
        """Calls answered by the server or failed (not from the cache)."""
        return self.done - self.cached

    def eta(self) -> float | None:
        """Seconds left at the pace of the calls the server answered so far (``None`` before the first)."""
        if not self.asked:
            return None
        return (time.monotonic() - self._start) / self.asked * (self.total - self.done)

    def advance(self, cached: bool, error: str | None, limit: int) -> None:
        self.done += 1
        self.cached += int(cached)
        if error is not None:
            self.failed += 1
            self.errors[error] += 1
        self._bar.update(self._task, advance=1, description=f"{self.label} (concurrency {limit}, {self.failed} failed)")
        now = time.monotonic()
        if not console.is_terminal and (now - self._last >= self.every or self.done == self.total):
            self._last = now
            console.print(self.line(limit), soft_wrap=True, highlight=False)

    def line(self, limit: int) -> str:
        eta = self.eta()
        left = "" if eta is None or self.done == self.total else f", about {duration(eta)} left"
        return (f"{self.label}: {self.done:,}/{self.total:,} calls done ({self.cached:,} from the cache, "
                f"{self.failed:,} failed), concurrency {limit}, {duration(time.monotonic() - self._start)} elapsed{left}")

    def close(self) -> None:
        self._bar.stop()

