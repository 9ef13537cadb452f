"""``fashionrq trec-eval`` in the typer app: listed in ``fashionrq --help``; the command itself is
:mod:`fashionrq.cli.trec_eval` (argparse, no typer), which ``fashionrq.cli.main`` calls directly."""

from __future__ import annotations

import typer

from fashionrq.cli.trec_eval import DESCRIPTION


def trec_eval_command(ctx: typer.Context) -> None:
    from fashionrq.cli.trec_eval import main

    main(list(ctx.args))


def register(app: typer.Typer) -> None:
    app.command("trec-eval", help=DESCRIPTION + " Run `fashionrq trec-eval --help` for its options.", add_help_option=False,
                context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(trec_eval_command)
