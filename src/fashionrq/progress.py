"""One shared rich progress bar for every step that can take more than a couple of seconds."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

T = TypeVar("T")

console = Console(stderr=True)


def print_table(table, out: Console | None = None) -> None:
    """Print a rich table whole: on a terminal to its width, and when piped or redirected (rich would assume 80
    columns) as wide as the table needs, never cut."""
    out = out or console
    if out.is_terminal:
        out.print(table)
        return
    width = max(out.width, out.measure(table, options=out.options.update_width(1 << 16)).maximum)
    Console(file=out.file, width=width, color_system=None, force_terminal=False).print(table)


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


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate over ``items`` while showing a progress bar named ``description``."""
    with progress_bar() as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)
