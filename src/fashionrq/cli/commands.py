"""The typer app of the ``fashionrq`` command line: thin wrappers that parse arguments and call the Python API.

``fashionrq.cli.main`` is the entry point; it runs ``trec-eval`` without this app (see ``fashionrq.cli.trec_eval``).
"""

from __future__ import annotations

import errno
import sys

import typer
from rich.markup import escape

from fashionrq.errors import FashionRQError
from fashionrq.progress import console

app = typer.Typer(
    name="fashionrq",
    help="Build graded, attribute-aware fashion-retrieval benchmarks from a product catalog and evaluate retrievers on them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def _print_version(value: bool) -> None:
    """``--version``: an eager option callback, so it answers before click asks for a command."""
    if value:
        from fashionrq import __version__

        typer.echo(f"fashionrq {__version__}")  # stdout, for scripts (console writes progress to stderr)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", help="Print the fashionrq version and exit.", is_eager=True,
                                 callback=_print_version),
) -> None:
    """Build graded, attribute-aware fashion-retrieval benchmarks from a product catalog and evaluate retrievers on them."""


# Each stage registers its commands here (one module per stage).
from fashionrq.cli import catalog as _catalog  # noqa: E402

_catalog.register(app)
from fashionrq.cli import encoders as _encoders  # noqa: E402
_encoders.register(app)
from fashionrq.cli import metrics as _metrics  # noqa: E402

_metrics.register(app)
from fashionrq.cli import bench as _bench  # noqa: E402
_bench.register(app)
from fashionrq.cli import relevance as _relevance  # noqa: E402
_relevance.register(app)
from fashionrq.cli import protocol as _protocol  # noqa: E402
_protocol.register(app)
from fashionrq.cli import sid as _sid  # noqa: E402
_sid.register(app)
from fashionrq.cli import systems as _systems  # noqa: E402
_systems.register(app)
from fashionrq.cli import demo as _demo  # noqa: E402
_demo.register(app)
from fashionrq.cli import report as _report  # noqa: E402
_report.register(app)
from fashionrq.cli import synth as _synth  # noqa: E402
_synth.register(app)
from fashionrq.cli import images as _images  # noqa: E402
_images.register(app)
from fashionrq.cli import probe as _probe  # noqa: E402
_probe.register(app)
from fashionrq.cli import serve as _serve  # noqa: E402

_serve.register(app)


def run(argv: list[str] | None = None) -> None:
    """Run the typer app, turning user errors into one sentence and a non-zero exit code."""
    try:
        app(args=argv, standalone_mode=True)
    except FashionRQError as err:
        console.print(f"[bold red]error:[/] {escape(str(err))}", highlight=False, soft_wrap=True)
        sys.exit(err.exit_code)
    except OSError as err:
        if err.errno not in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
            raise
        console.print(f"[bold red]error:[/] could not write {err.filename or 'an output'} ({err.strerror}); free disk space "
                      "or raise the file-size limit and run again (nothing half-written was kept).", highlight=False, soft_wrap=True)
        sys.exit(2)
