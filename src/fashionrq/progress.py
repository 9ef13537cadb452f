"""One shared rich progress bar for every step that can take more than a couple of seconds; where no bar renders
(output piped to a log, CI), a step that runs longer than :data:`LOG_EVERY_S` prints a line with its progress and
an estimate of the time left instead, at most one per :data:`LOG_EVERY_S` seconds, and one when it ends."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

T = TypeVar("T")

#: Where progress and reports go; never reads ``:name:`` in a catalog's text as an emoji (``catalog.tsv:100:``).
console = Console(stderr=True, emoji=False)
#: Where a command whose product is a report (``stats``, ``audit``) prints it: standard output, so that ``fashionrq
#: stats BENCH > stats.txt`` keeps it while progress and warnings stay on the terminal.
results = Console(emoji=False)
#: Seconds between two progress lines in a log (the first comes once a step has run this long).
LOG_EVERY_S = 15.0


def print_table(table, out: Console | None = None) -> None:
    """Print a rich table whole: on a terminal to its width, and when piped or redirected (rich would assume 80
    columns) as wide as the table needs, never cut."""
    out = out or console
    if out.is_terminal:
        out.print(table)
        return
    width = max(out.width, out.measure(table, options=out.options.update_width(1 << 16)).maximum)
    Console(file=out.file, width=width, color_system=None, force_terminal=False, emoji=False).print(table)


def progress_bar() -> Progress:
    """A rich progress bar writing to stderr; it renders only on a terminal."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
        disable=not console.is_terminal,
    )


def duration(seconds: float) -> str:
    """``42 s`` or ``3 min 07 s``."""
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class ProgressLog:
    """Progress lines for a log: :meth:`update` prints one at most every ``every`` seconds (the first after
    ``every``), with the time left at the pace so far when the total is known; :meth:`finish` prints the last one
    if any was printed and that one was not already it. Silent on a terminal, where the bar shows the same."""

    def __init__(self, label: str, total: int | None, every: float = LOG_EVERY_S, out: Console | None = None) -> None:
        self.label, self.total, self.every = label, total, every
        self.out = out or console
        self.start = self.last = time.monotonic()
        self.printed: int | None = None  # the count the last line printed

    def line(self, done: int) -> str:
        elapsed = time.monotonic() - self.start
        if self.total is None:
            return f"{self.label}: {done:,} done, {duration(elapsed)} elapsed"
        left = "" if done >= self.total or not done else f", about {duration(elapsed / done * (self.total - done))} left"
        return f"{self.label}: {done:,}/{self.total:,} done, {duration(elapsed)} elapsed{left}"

    def update(self, done: int) -> None:
        now = time.monotonic()
        if not self.out.is_terminal and now - self.last >= self.every:
            self.last, self.printed = now, done
            self.out.print(self.line(done), soft_wrap=True, highlight=False, markup=False)

    def finish(self, done: int) -> None:
        if self.printed is not None and self.printed != done:
            self.out.print(self.line(done), soft_wrap=True, highlight=False, markup=False)


def track(items: Iterable[T], description: str, total: int | None = None, every: float = LOG_EVERY_S) -> Iterator[T]:
    """Iterate over ``items`` while showing a progress bar named ``description`` (in a log: :class:`ProgressLog`)."""
    log = ProgressLog(description, total, every)
    done = 0
    with progress_bar() as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            done += 1
            bar.advance(task)
            log.update(done)
    log.finish(done)
