"""User-facing errors: one clear sentence and a distinct exit code, never a traceback."""

from __future__ import annotations


class FashionRQError(Exception):
    """An error caused by user input. The CLI prints ``str(err)`` and exits with ``exit_code``."""

    exit_code: int = 2

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class InputError(FashionRQError):
    """Bad catalog, mapping, embeddings or other input file (exit code 2)."""

    exit_code = 2


class WeakReleaseError(FashionRQError):
    """The quality gate refused a release: a task has too few bootstrap units for a meaningful interval (exit code 4)."""

    exit_code = 4
