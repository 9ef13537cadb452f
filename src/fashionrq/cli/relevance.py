"""``fashionrq weights estimate``: attribute weights for weighted query relevance from a relevance oracle."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import typer
from rich.table import Table

from fashionrq.io import atomic_write_text
from fashionrq.layout import check_file_output
from fashionrq.progress import console

weights_app = typer.Typer(help="Attribute weights for weighted query relevance R(q, p).", no_args_is_help=True)


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_estimate(result: dict) -> None:
    """Print the twin-pair ablation, the ridge cross-check and the blended weights."""
    from fashionrq.relevance import ATTRIBUTES

    table = Table(title=f"attribute weights (oracle {result['oracle']})", show_edge=False)
    for name in ("attribute", "twins", "mean Δ", "95% CI", "sign", "ridge coef", "VIF", "weight"):
        table.add_column(name, justify="left" if name == "attribute" else "right")
    reg = result["regression"]
    for attr in ATTRIBUTES:
        abl = result["ablation"][attr]
        ci = "-" if abl["ci95"] is None else f"[{abl['ci95'][0]:.3f}, {abl['ci95'][1]:.3f}]"
        table.add_row(
            attr, str(abl["n"]), _fmt(abl["mean_delta"]), ci, _fmt(abl["sign_consistency"]),
            _fmt(reg["coef"][attr]), _fmt(reg["vif"][attr]), f"{result['weights'][attr]:.3f}",
        )
    console.print(table)
    console.print(
        f"ridge R² {reg['r2']:.3f} on {reg['n']:,} pairs; Spearman(ablation, ridge) {_fmt(result['spearman'])}; "
        f"{result['queries']['n']:,} {result['queries']['source']} queries"
    )


@weights_app.command("estimate")
def estimate_command(
    out: Path = typer.Option(..., "--out", help="Where to write the weights JSON."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    oracle: str = typer.Option("minilm", "--oracle", help="minilm (bundled bi-encoder) or st:<cross-encoder or bi-encoder id>."),
    items: str = typer.Option("bundled", "--items", help="items.parquet (or its folder), or 'bundled'."),
    queries: Path = typer.Option(None, "--queries", help="JSONL of {text, phi}; default: synthesise from catalog attributes."),
    n_queries: int = typer.Option(400, "--n-queries", min=1, help="Queries to synthesise when --queries is not given."),
    pool_size: int = typer.Option(1500, "--pool-size", min=2, help="Seeded sample of items twin pairs are drawn from."),
    pairs: int = typer.Option(3, "--pairs-per-attribute", min=1, help="Twin pairs per query and expressed attribute."),
    regression_items: int = typer.Option(8, "--regression-items", min=1, help="Products per query for the ridge fit."),
    seed: int = typer.Option(0, "--seed", help="Seed for every sampling step."),
) -> None:
    """Estimate attribute weights (twin-pair ablation + ridge cross-check) against a relevance oracle."""
    check_file_output(out, force, "weights file")
    from fashionrq.catalog import BUNDLED, bundled_items, load_items
    from fashionrq.relevance.weights import estimate_weights, load_oracle, read_queries

    scorer = load_oracle(oracle)
    table = bundled_items() if items == BUNDLED else load_items(items)
    given = read_queries(queries) if queries is not None else None
    result = estimate_weights(
        table, scorer, queries=given, n_queries=n_queries, pool_size=pool_size,
        pairs_per_attribute=pairs, regression_items=regression_items, seed=seed,
    )
    command = ["fashionrq", "weights", "estimate", "--oracle", oracle, "--items", items]
    command += ["--queries", str(queries)] if queries is not None else ["--n-queries", str(n_queries)]
    command += ["--pool-size", str(pool_size), "--pairs-per-attribute", str(pairs),
                "--regression-items", str(regression_items), "--seed", str(seed), "--out", str(out)]
    result["command"] = shlex.join(command)
    atomic_write_text(out, json.dumps(result, indent=2) + "\n")
    print_estimate(result)
    console.print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(weights_app, name="weights")
