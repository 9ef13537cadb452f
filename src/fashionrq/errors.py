"""User-facing errors: one clear sentence and a distinct exit code, never a traceback.

The protocol rejections (``ProtocolError`` and below) have one exit code per rule (table in docs/protocol.md)."""

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


class ProtocolError(FashionRQError):
    """Base of every protocol rejection."""

    exit_code = 10


class ReleaseTamperedError(ProtocolError):
    """A release file is missing, extra, or its SHA-256 differs from manifest.json."""

    exit_code = 10


class ReleaseMismatchError(ProtocolError):
    """The run was made for another release (run.json "release" != sha256 of BENCH/manifest.json)."""

    exit_code = 11


class RunConfigError(ProtocolError):
    """RUN/run.json is missing, unreadable or lacks a required field."""

    exit_code = 12


class CommitmentMissingError(ProtocolError):
    """No commitment in RUN/commitments.jsonl: predictions were never committed."""

    exit_code = 13


class CommitmentMismatchError(ProtocolError):
    """A prediction file or run.json changed (or appeared, or vanished) after the latest commitment."""

    exit_code = 14


class LedgerCorruptError(ProtocolError):
    """RUN/commitments.jsonl is unparseable or its hash chain is broken."""

    exit_code = 15


class UnsealedRunError(ProtocolError):
    """The run was not made in a sealed process (run.json "isolation"), and ``--unsealed`` was not given."""

    exit_code = 16


class MissingPredictionFileError(ProtocolError):
    """The run has no prediction file at all, or a file a command needs is absent."""

    exit_code = 20


class EmptyFileError(ProtocolError):
    """A prediction file has no lines."""

    exit_code = 21


class UnparseableLineError(ProtocolError):
    """A line is not UTF-8, not JSON, or has the wrong number of fields."""

    exit_code = 22


class WrongTypeError(ProtocolError):
    """A field has the wrong type or an out-of-range value (label not in {0,1,2,3}, score a string)."""

    exit_code = 23


class NonFiniteScoreError(ProtocolError):
    """A score is NaN or infinite."""

    exit_code = 24


class DuplicateError(ProtocolError):
    """The same (query, item) or pair id appears twice."""

    exit_code = 25


class MissingIdsError(ProtocolError):
    """Query, pair or candidate ids of the release have no prediction."""

    exit_code = 26


class ExtraIdsError(ProtocolError):
    """Predictions name query or pair ids that the release does not have."""

    exit_code = 27


class OutOfPoolError(ProtocolError):
    """A ranked item is not in the query's candidate pool."""

    exit_code = 28


class RankOrderError(ProtocolError):
    """Ranks of a query are not 1..n, or disagree with the score order."""

    exit_code = 29


class ComparisonError(ProtocolError):
    """A comparison cannot be made (fewer than two runs, unknown headline metric, bad interval level)."""

    exit_code = 30


def examples(ids, limit: int = 5, width: int = 60) -> str:
    """Format up to ``limit`` ids (sorted) as ``a, b, c`` for an error sentence, each cut to ``width`` characters."""
    shown = sorted(ids)[:limit]
    more = len(ids) - len(shown)
    cut = (text if len(text) <= width else f"{text[:width]}… ({len(text):,} characters)" for text in map(str, shown))
    return ", ".join(cut) + (f" (+{more} more)" if more > 0 else "")
