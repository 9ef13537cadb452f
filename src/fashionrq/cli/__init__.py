"""The ``fashionrq`` command line. ``main`` is the entry point: ``trec-eval`` starts without typer and rich (its
whole-process time is compared with trec_eval's); every other command runs through the typer app
(:mod:`fashionrq.cli.commands`)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Run ``fashionrq ARGV`` (``sys.argv[1:]`` when None); a user error prints one sentence and exits non-zero."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["trec-eval"]:
        from fashionrq.cli.trec_eval import main as trec_eval_main

        trec_eval_main(args[1:], whole_process=argv is None)
        sys.exit(0)  # as the typer app ends every command
    from fashionrq.cli.commands import run

    run(argv)


def __getattr__(name: str):
    if name == "app":  # ``from fashionrq.cli import app``: the typer app, built on first use
        from fashionrq.cli.commands import app

        return app
    raise AttributeError(f"module 'fashionrq.cli' has no attribute {name!r}")
