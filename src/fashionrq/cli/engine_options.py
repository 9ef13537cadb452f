"""The ``--engine / --address / --chunk-rows`` options shared by the commands that can run on Ray."""

from __future__ import annotations

import typer

ENGINE_OPTION = typer.Option("local", "--engine", help="local (this process) or ray (a Ray Data pipeline; needs pip install fashionrq[ray]). Both give byte-identical results.")
ADDRESS_OPTION = typer.Option(None, "--address", help="Ray cluster to join with --engine ray: auto, HOST:PORT or ray://HOST:10001 (default: start a local one).")
CHUNK_OPTION = typer.Option(4096, "--chunk-rows", min=1, help="Rows per engine chunk (a multiple of the encoder batch size); the same value gives the same bytes on every engine.")


def make_engine(engine: str, address: str | None, chunk_rows: int):
    """The engine the options name (validated: an unknown name, or --address without ray, is one InputError)."""
    from fashionrq.engine import get_engine

    return get_engine(engine, address, chunk_rows)
