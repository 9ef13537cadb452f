"""``fashionrq sid train|assign|report|ablation``: semantic-ID tokenizers on an items table."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from fashionrq.cli.engine_options import ADDRESS_OPTION, CHUNK_OPTION, ENGINE_OPTION, make_engine
from fashionrq.io import atomic_write_text
from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.errors import InputError
from fashionrq.layout import check_file_output, check_folder_output
from fashionrq.progress import console

#: The file in a model folder naming the encoder `sid train` embedded the items with.
TRAINED_ENCODER = "encoder.json"

sid_app = typer.Typer(help="Semantic IDs: train a tokenizer, assign SIDs, report on them, run the codebook ablation.", no_args_is_help=True)


def _items(items: str):
    from fashionrq.catalog import BUNDLED, bundled_items, load_items

    return bundled_items() if items == BUNDLED else load_items(items)


def _embeddings(table, encoder: str, embeddings: Path | None = None):
    from fashionrq.encoders.given import item_vectors

    return item_vectors(table, encoder, embeddings, None)[0]


EMBEDDINGS_HELP = "Precomputed item vectors (Parquet item_id + list column, or .npy + .ids.txt) used instead of --encoder."


def _int_list(text: str, option: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"{option} must be comma-separated integers such as 64,128,256, got {text!r}.") from None


@sid_app.command("train")
def train_command(
    items: str = typer.Option(..., "--items", help="items.parquet (or its folder), or 'bundled'."),
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder", help="Encoder name for fashionrq.encoders.embed_items."),
    embeddings: Path = typer.Option(None, "--embeddings", help=EMBEDDINGS_HELP),
    out: Path = typer.Option(..., "--out", help="Model folder to write (config.json + state.pt, and encoder.json naming the encoder for `sid assign`)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    method: str = typer.Option("rqvae", "--method", help="rqvae | vanilla | rkmeans."),
    seed: int = typer.Option(0, "--seed"),
    codebook_size: int = typer.Option(64, "--codebook-size"),
    epochs: int = typer.Option(None, "--epochs", help="Training epochs (RQ-VAE methods; default of the model)."),
    dedup: bool = typer.Option(False, "--dedup", help="Append a 4th code that makes every SID unique."),
) -> None:
    """Train a semantic-ID tokenizer on the items' embeddings and save it."""
    from fashionrq.sid import DEFAULT_LEVEL_ATTRIBUTES, attributes_from_items, make_tokenizer, report_table, save_tokenizer, sid_report

    check_folder_output(out, force, "model folder")
    table = _items(items)
    X = _embeddings(table, encoder, embeddings)
    params = {"codebook_size": codebook_size, "seed": seed, "dedup": dedup}
    if epochs is not None:
        params["epochs"] = epochs
    model = make_tokenizer(method, **params)
    model.fit(X, attributes_from_items(table, DEFAULT_LEVEL_ATTRIBUTES))
    save_tokenizer(model, out)
    if embeddings is None:  # `sid assign` embeds with the same encoder unless told otherwise
        atomic_write_text(out / TRAINED_ENCODER, json.dumps({"encoder": encoder}) + "\n")
    console.print(report_table(sid_report(model.transform(X), table, X, model)))
    console.print(f"wrote {out}")


def _trained_encoder(model: Path) -> str:
    """The encoder `sid train` recorded in ``model`` (a model trained on given embeddings records none)."""
    try:
        return json.loads((model / TRAINED_ENCODER).read_text())["encoder"]
    except FileNotFoundError:
        return DEFAULT_ENCODER
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{model / TRAINED_ENCODER} is damaged; pass --encoder with the encoder the model was trained on.") from None


@sid_app.command("assign")
def assign_command(
    model: Path = typer.Option(..., "--model", help="Model folder written by `fashionrq sid train`."),
    items: str = typer.Option(..., "--items", help="items.parquet (or its folder), or 'bundled'."),
    encoder: str = typer.Option(None, "--encoder", help="The encoder the model was trained on (default: the one `sid train` recorded in the model folder, else minilm-int8)."),
    embeddings: Path = typer.Option(None, "--embeddings", help=EMBEDDINGS_HELP),
    out: Path = typer.Option(..., "--out", help="sids.parquet to write (item_id, sid_1 … sid_L int16)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    engine: str = ENGINE_OPTION,
    address: str = ADDRESS_OPTION,
    chunk_rows: int = CHUNK_OPTION,
) -> None:
    """Assign semantic IDs to every item and write sids.parquet."""
    check_file_output(out, force, "SIDs file")
    from fashionrq.engine.stages import assign_with_engine
    from fashionrq.sid import load_tokenizer, write_sids

    runner = make_engine(engine, address, chunk_rows)
    tokenizer = load_tokenizer(model)
    table = _items(items)
    encoder = encoder or _trained_encoder(model)
    X = _embeddings(table, encoder, embeddings)
    if X.shape[1] != tokenizer.dim_:
        raise InputError(f"encoder {encoder!r} gives {X.shape[1]}-d embeddings but the model in {model} was trained on {tokenizer.dim_}-d ones; use the training encoder.")
    path = write_sids(table.column("item_id").to_pylist(), assign_with_engine(runner, tokenizer, X), out)
    console.print(f"wrote {path} ({table.num_rows:,} items)")


@sid_app.command("report")
def report_command(
    sids: Path = typer.Option(..., "--sids", help="sids.parquet written by `fashionrq sid assign`."),
    items: str = typer.Option(..., "--items", help="items.parquet (or its folder), or 'bundled'."),
    json_path: Path = typer.Option(None, "--json", help="Also write the report as JSON here."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
    codebook_size: int = typer.Option(None, "--codebook-size", help="Codes per level (default: largest code + 1)."),
) -> None:
    """Print codebook usage, fragmentation, collisions and attribute purity of a SID assignment."""
    check_file_output(json_path, force, "report JSON")
    import numpy as np

    from fashionrq.sid import read_sids, report_table, sid_report

    item_ids, codes = read_sids(sids)
    table = _items(items)
    position = {item_id: row for row, item_id in enumerate(table.column("item_id").to_pylist())}
    unknown = [item_id for item_id in item_ids if item_id not in position]
    if unknown:
        raise InputError(f"{sids} names item {unknown[0]!r} (and {len(unknown) - 1} more) absent from the items table; report against the items the SIDs were assigned to.")
    table = table.take(np.array([position[item_id] for item_id in item_ids], dtype=np.int64))
    report = sid_report(codes, table, codebook_size=codebook_size)
    console.print(report_table(report))
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(report, indent=2) + "\n")
        console.print(f"wrote {json_path}")


@sid_app.command("ablation")
def ablation_command(
    items: str = typer.Option(..., "--items", help="items.parquet (or its folder), or 'bundled'."),
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder"),
    embeddings: Path = typer.Option(None, "--embeddings", help=EMBEDDINGS_HELP),
    sizes: str = typer.Option("64,128,256", "--sizes", help="Comma-separated codebook sizes."),
    methods: str = typer.Option("rqvae", "--methods", help="Comma-separated methods among rqvae, vanilla, rkmeans."),
    seeds: str = typer.Option("0", "--seeds", help="Comma-separated seeds to average over."),
    epochs: int = typer.Option(None, "--epochs", help="Training epochs (RQ-VAE methods; default of the model)."),
    json_path: Path = typer.Option(None, "--json", help="Also write every run's report and the summary as JSON here."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
) -> None:
    """Codebook-size / method ablation: weighted purity per attribute and level (Table 5) and fragmentation (Table 6)."""
    check_file_output(json_path, force, "ablation JSON")
    from fashionrq.sid import METHODS
    from fashionrq.sid.ablation import fragmentation_table, purity_table, run_ablation, summarize

    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    bad = [m for m in chosen if m not in METHODS]
    if bad:
        raise InputError(f"--methods has unknown method {bad[0]!r}; choose among {', '.join(METHODS)}.")
    table = _items(items)
    X = _embeddings(table, encoder, embeddings)
    params = {} if epochs is None else {"epochs": epochs}
    rows = run_ablation(X, table, chosen, _int_list(sizes, "--sizes"), _int_list(seeds, "--seeds"), **params)
    summary = summarize(rows)
    console.print(purity_table(summary))
    console.print(fragmentation_table(summary))
    if json_path is not None:
        atomic_write_text(json_path, json.dumps({"runs": rows, "summary": summary}, indent=2) + "\n")
        console.print(f"wrote {json_path}")


def register(app: typer.Typer) -> None:
    app.add_typer(sid_app, name="sid")
