"""``fashionrq build`` / ``export`` / ``stats``: build a frozen release, export it for BEIR, print its statistics."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from fashionrq.cli.catalog import CATALOG_ARGUMENT, one_catalog
from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.errors import InputError
from fashionrq.progress import console, print_table, results


def build_command(
    catalog_argument: str = CATALOG_ARGUMENT,
    catalog: str = typer.Option("bundled", "--catalog", help="A Myntra-layout folder, a CSV/TSV/JSON(L)/Parquet/XML/Excel (.xlsx) catalog file, a folder of product JSON files or of CSV/TSV parts of one table (with --mapping), an ingested folder, or 'bundled'."),
    mapping: Path = typer.Option(None, "--mapping", help="TOML file mapping the catalog's columns to the canonical fields (docs/catalog.md; `fashionrq draft-mapping CATALOG` writes a first one)."),
    images: Path = typer.Option(None, "--images", help="Folder of photos named by item id (<item_id>.jpg, also in folders below it) for the items whose catalog names no photo (docs/catalog.md, \"Photos named by item id\")."),
    out: Path = typer.Option(..., "--out", help="Release folder to write (BENCH/)."),
    encoder: str = typer.Option(DEFAULT_ENCODER, "--encoder", help="Item encoder for the semantic IDs."),
    embeddings: Path = typer.Option(None, "--embeddings", help="Precomputed item vectors (Parquet item_id + list column, or .npy + .ids.txt) used instead of --encoder."),
    sid_method: str = typer.Option("rqvae", "--sid-method", help="Semantic-ID tokenizer: rqvae, vanilla or rkmeans."),
    seed: int = typer.Option(None, "--seed", help="Seed of every random choice; given without --secret, the same seed gives a byte-identical (and replayable) release (default: 0, with a construction secret drawn at build time)."),
    secret: str = typer.Option(None, "--secret", help="Construction secret mixed into every construction choice (stored in BENCH/labels/secret.txt); the same --seed and --secret rebuild the same public and label files (default: drawn at build time unless --seed is given)."),
    queries_backend: str = typer.Option("verbalizer", "--queries-backend", help="Query generator: verbalizer or llm."),
    mcmr: bool = typer.Option(False, "--mcmr", help="MCMR-style release: only the items with a photo, queries of k text- and k image-derived constraints (k = 1-5) and their text-only / image-only variants (docs/images.md)."),
    codebook_size: int = typer.Option(None, "--codebook-size", help="Codes per SID level (default: 64 from 22,400 items up; below, of up to six sizes from half to one and a half times n/350, the one whose task plan gives the weakest task the most bootstrap units)."),
    split_leaves: bool = typer.Option(True, "--split-leaves/--no-split-leaves", help="Split leaves big enough for two T1 pool tiers into balanced parts (docs/benchmark.md)."),
    pool_size: int = typer.Option(None, "--pool-size", help="T1/T4 candidates per pool, a quarter per relevance tier [default: 40]."),
    max_anchor_leaves: int = typer.Option(1000, "--max-anchor-leaves", help="Anchor leaves over all tasks (0 keeps every qualified leaf)."),
    min_purity: float = typer.Option(0.80, "--min-purity", help="Article-type purity a cluster needs to qualify."),
    min_size: int = typer.Option(2, "--min-size", help="Items a cluster needs to qualify."),
    llm_concurrency: int = typer.Option(4, "--llm-concurrency", help="LLM backend: most calls in flight (halved while timeouts occur); 1 for a single-slot local server."),
    llm_timeout: float = typer.Option(60.0, "--llm-timeout", help="LLM backend: seconds to wait for one answer (a retry after a timeout waits up to 4x)."),
    llm_max_tokens: int = typer.Option(1024, "--llm-max-tokens", help="LLM backend: most tokens per answer, so a looping model stops."),
    llm_max_failure_rate: float = typer.Option(0.5, "--llm-max-failure-rate", help="LLM backend: stop once more than this share of calls failed."),
    llm_response_format: str = typer.Option("json_object", "--llm-response-format", help="LLM backend: how each call asks for JSON of the answer's schema: json_object (llama-cpp-python's server), json_schema (OpenAI structured outputs: llama-server, vLLM, Gemini) or none; a server that refuses it gets the call again without one."),
    force: bool = typer.Option(False, "--force", help="Replace an existing release in --out (only once the new one is complete)."),
    allow_weak: bool = typer.Option(False, "--allow-weak", help="Write the release even when a task has fewer than 8 bootstrap units (the quality gate refuses it otherwise, exit code 4); compare and the report flag those tasks."),
) -> None:
    """Build the frozen benchmark release: ingest, embed, SIDs, hierarchy, queries, tasks, manifest."""
    from fashionrq.tasks import BuildConfig, TaskConfig

    if mcmr and queries_backend != "verbalizer":
        raise InputError(f"--mcmr writes its queries with its own verbalizer; drop --queries-backend {queries_backend}.")
    sizes = {"pool_size": pool_size} if pool_size is not None else {}
    sizes["max_anchor_leaves"] = max_anchor_leaves or None
    llm_options = {"max_concurrency": llm_concurrency, "timeout": llm_timeout, "max_tokens": llm_max_tokens,
                   "max_failure_rate": llm_max_failure_rate, "response_format": llm_response_format}
    catalog = one_catalog(catalog_argument, catalog)
    config = BuildConfig(  # every option checked before the ingest (an unknown --queries-backend), as before the long steps
        catalog=catalog, mapping=mapping, images=images, out=out, encoder=encoder, embeddings=embeddings, sid_method=sid_method,
        codebook_size=codebook_size, split_leaves=split_leaves, seed=seed, secret=secret,
        queries_backend="mcmr" if mcmr else queries_backend, llm_options=llm_options, min_purity=min_purity,
        min_size=min_size, task_config=TaskConfig(**sizes), force=force, allow_weak=allow_weak)
    from fashionrq.catalog import ingest
    from fashionrq.tasks.release import build_release, check_out  # deferred past the checks: torch, scikit-learn

    check_out(out, force)
    ingested = ingest(catalog, mapping=mapping, images=images)
    for note in ingested.report.notes:  # what to check or fix, before the long steps (the price tiers among them)
        console.print(f"note: {note}", soft_wrap=True, markup=False)
    source = ingested.report.counts()  # said before the build, which may refuse a weak release
    console.print(f"catalog: {source['rows_read']:,} rows read, {ingested.table.num_rows:,} items, {source['rejected_rows']:,} rows rejected, "
                  f"{sum(source['values_nulled'].values()):,} values nulled, {sum(source['placeholders'].values()):,} placeholders read as null "
                  "(details: `fashionrq ingest`)", soft_wrap=True)
    path = build_release(config, ingested=ingested)
    manifest = json.loads(path.read_text())
    counts = manifest["counts"]
    levels = ", ".join(f"L{k}: {v['qualified']}/{v['prefixes']}" for k, v in sorted(counts["clusters"].items()))
    console.print(f"qualified clusters per level {levels}")
    console.print("queries per task " + ", ".join(f"{k}: {v:,}" for k, v in counts["queries"].items()), soft_wrap=True)
    _print_units(manifest["report"]["tasks"])
    _print_parser_warnings(manifest["report"].get("querygen", {}).get("parser_agreement_lexicon_worded") or {})
    _print_photos(path.parent / "public" / "images", counts["photos"])
    console.print(f"wrote {path.parent} (manifest {path})")


def _print_units(report: dict) -> None:
    """The quality gate's table: bootstrap units per task, each weak task (allowed by --allow-weak) warned of."""
    from fashionrq.tasks import MIN_UNITS, weak_tasks

    units = report["bootstrap_units"]
    weak = weak_tasks(units)
    rows = [(task, n, "weak: intervals flagged" if task in weak else "ok") for task, n in units.items()]
    print_table(_table(f"bootstrap units per task (quality gate: >= {MIN_UNITS})", ("task", "units", "gate"), rows))
    if "task_plan" in report:
        console.print(f"task plan rebalanced for small tasks: T1 capped at {report['task_plan']['t1_leaf_cap']} anchor "
                      "leaves (manifest report.tasks.task_plan)", soft_wrap=True)
    if weak:
        console.print(f"[yellow]warning:[/] {', '.join(weak)} have fewer than {MIN_UNITS} bootstrap units (written "
                      "because of --allow-weak); compare and the report flag their intervals.", soft_wrap=True)


def _print_parser_warnings(agreement: dict) -> None:
    """A warning per attribute the public parser reads badly, held-out wordings left out (docs/querygen.md,
    "Hidden φ(q) of a release vs the public parser")."""
    from fashionrq.querygen import parser_warnings

    for sentence in parser_warnings(agreement):
        console.print(f"[yellow]warning:[/] {sentence}", soft_wrap=True)


def _print_photos(folder: Path, photos: dict) -> None:
    """How many photos public/images/ holds under public ids, and how many of their bytes were copied (not linked)."""
    if photos["count"]:
        copied = sum(p.stat().st_size for p in folder.iterdir() if p.stat().st_nlink == 1)
        console.print(f"photos: {photos['count']:,} in {folder} named by public item id ({photos['bytes'] / 1e6:.1f} MB, "
                      f"{copied / 1e6:.1f} MB of it copied, the rest hard links to the catalog's files)")


def export_command(
    fmt: str = typer.Argument(..., help="Export format: beir or hf."),
    bench: Path = typer.Option(..., "--bench", help="Release folder (BENCH/)."),
    out: Path = typer.Option(..., "--out", help="Folder to write the export to (outside the release)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing export folder."),
) -> None:
    """Export T1 of a release: ``beir`` (corpus.jsonl, queries.jsonl, qrels/test.tsv) or ``hf`` (MTEB layout, Parquet + card)."""
    from fashionrq.tasks import export_beir, export_hf

    writers = {"beir": export_beir, "hf": export_hf}
    if fmt not in writers:
        raise InputError(f"unknown export format {fmt!r}; use 'beir' or 'hf'.")
    path = writers[fmt](bench, out, force=force)
    console.print(f"wrote {fmt} export of T1 to {path}")


def _table(title: str, header: tuple[str, ...], rows: list[tuple]) -> Table:
    table = Table(title=title, show_edge=False)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*[f"{v:,}" if isinstance(v, int) else str(v) for v in row])
    return table


def stats_command(
    bench: Path = typer.Argument(..., help="Release folder (BENCH/)."),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
) -> None:
    """Print a release's statistics (Tables 1, 7, 8): clusters, queries per task, label balance, coverage."""
    from fashionrq.tasks import bench_stats

    s = bench_stats(bench)
    if as_json:
        print(json.dumps(s, indent=2, sort_keys=True))
        return
    print_table(out=results, table=_table("Table 1: clusters per level", ("level", "prefixes", "qualified"),
                         [(lv, c["prefixes"], c["qualified"]) for lv, c in sorted(s["clusters"].items())]))
    results.print(f"items {s['items']:,}; anchor queries {s['anchor_queries']:,}")
    from fashionrq.tasks import MIN_UNITS

    print_table(out=results, table=_table("Table 7: per-task composition", ("task", "queries", "bootstrap units", "anchor leaves", "candidates/query",
                                                          "judged pairs"), [
        (t, v["queries"], f"{v['bootstrap_units']:,}" + (" (weak)" if v["bootstrap_units"] < MIN_UNITS else ""), v["anchor_leaves"],
         "no queries" if not v["queries"] else
         f"{v['candidates_per_query']['mean']} ({v['candidates_per_query']['min']}-{v['candidates_per_query']['max']})" if "candidates_per_query" in v
         else "whole catalog" if t == "t1o" else "pairs " + ", ".join(f"{k} {n:,}" for k, n in sorted(v["pairs"].items())),
         v.get("judged_pairs", sum(v.get("pairs", {}).values())))
        for t, v in s["tasks"].items()]))
    weak = [t for t, v in s["tasks"].items() if v["bootstrap_units"] < MIN_UNITS]
    if weak:
        results.print(f"weak tasks (fewer than {MIN_UNITS} bootstrap units; built with --allow-weak): {', '.join(weak)}; "
                      "their intervals are too wide to rank systems, and a task with no queries is not scored", soft_wrap=True)
    tiers = ("exact", "sibling", "related", "irrelevant")
    print_table(out=results, table=_table("Table 8: relevance-label balance", ("task",) + tiers, [
        (t, *[f"{v[k]['count']:,} ({v[k]['share']:.1%})" for k in tiers]) for t, v in s["labels"].items()]))
    tags = s["attribute_tags"]
    print_table(out=results, table=_table(f"attribute tags of φ(q) over {tags['queries']:,} T1 queries (mean {tags['tags_per_query']['mean']} per query)",
                         ("attribute", "queries"), sorted(tags["per_attribute"].items(), key=lambda kv: -kv[1])))
    agreement, worded = s.get("parser_agreement") or {}, s.get("parser_agreement_lexicon_worded") or {}
    print_table(out=results, table=_table("public LexiconParser vs hidden φ(q) (the generator's record; lexicon-worded: without the held-out "
                       "wordings it misses by design)", ("attribute", "precision", "recall", "support", "lexicon-worded P / R"),
                       [(a, f"{v['precision']:.3f}", f"{v['recall']:.3f}", v["support"],
                         f"{worded[a]['precision']:.3f} / {worded[a]['recall']:.3f}" if a in worded else "-")
                        for a, v in sorted(agreement.items())]))
    _print_parser_warnings(worded)
    results.print("headline metrics: " + ", ".join(f"{t} {m}" for t, m in sorted((s.get("headline") or {}).items())))
    cov = s["catalog_coverage"]
    results.print(f"catalog coverage: {cov['items_touched']:,} of {cov['catalog_items']:,} items touched ({cov['share']:.1%})")
    for key in ("t2_pairs_by_master_category", "t2_pairs_by_gender"):
        results.print(f"  {key.replace('_', ' ')}: " + (", ".join(f"{k} {v:,}" for k, v in cov[key].items()) or "none"), soft_wrap=True)
    if cov["price"]:
        p = cov["price"]
        results.print(f"  price of touched items: {p['min']:,.0f}-{p['max']:,.0f} (median {p['median']:,.0f}, mean {p['mean']:,.0f})")


def register(app: typer.Typer) -> None:
    app.command("build")(build_command)
    app.command("export")(export_command)
    app.command("stats")(stats_command)
