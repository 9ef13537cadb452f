"""The main job: catalog -> benchmark -> baselines -> committed scores -> paired verdicts -> report.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from fashionrq.errors import InputError
from fashionrq.io import atomic_write_json, atomic_write_text
from fashionrq.report.leaderboard import leaderboard, markdown
from fashionrq.report.page import write_report
from fashionrq.timing import StageTimer, stage

#: The offline baselines the demo runs by default: (label, system, reranker). One encoder embeds the
#: catalog (int8 minilm, also used for the semantic IDs); ``minilm``, ``e5-small`` and ``splade-tiny``
#: each cost another full pass over the catalog (docs/benchmarks.md), so they are opt-in (``--systems``).
DEMO_SYSTEMS: tuple[tuple[str, str, str | None], ...] = (
    ("random", "random", None),
    ("bm25", "bm25", None),
    ("minilm-int8", "minilm-int8", None),
    ("hybrid", "hybrid", None),
    ("hybrid+verifier", "hybrid", "verifier"),
)


def parse_systems(spec: str) -> tuple[tuple[str, str, str | None], ...]:
    """``"bm25,minilm,hybrid+verifier"`` -> demo system entries (``+verifier`` adds the verifier reranker)."""
    out = []
    for label in (part.strip() for part in spec.split(",")):
        if label:
            system, _, rerank = label.partition("+")
            out.append((label, system, rerank or None))
    if not out:
        raise InputError("--systems is empty: name at least one system, e.g. random,bm25,minilm-int8.")
    return tuple(out)


@dataclass(frozen=True)
class DemoConfig:
    """What the demo builds and evaluates; every field is recorded in the report."""

    catalog: str = "bundled"
    encoder: str = "minilm-int8"
    sid_method: str = "rqvae"
    seed: int = 0
    resamples: int = 10_000
    rerank_depth: int = 50
    images: str | None = None  # folder of <item_id>.jpg: thumbnails in report.html
    systems: Sequence[tuple[str, str, str | None]] = DEMO_SYSTEMS
    #: What ``hybrid`` fuses in the demo: the systems whose item vectors the demo computes anyway.
    hybrid_components: tuple[str, ...] = ("bm25", "minilm-int8")


def ingest_markdown(report: dict) -> str:
    """The ingest report as Markdown: counts, repairs, rejections and the missing count of every field."""
    lines = [
        f"{report['source']}: {report['rows_read']:,} rows read, {report['rows_written']:,} items written, "
        f"{report['repaired_rows']} rows repaired, {report['rejected_rows']} rows rejected.", "",
    ]
    for reason, entry in report["repaired"].items():
        lines.append(f"- repaired ({reason}): {entry['count']} — ids {', '.join(entry['ids'])}")
    for row in report["rejected"]:
        lines.append(f"- rejected {row['row']}: {row['reason']}")
    for reason, entry in report["values_nulled"].items():
        lines.append(f"- values set to null ({reason}): {entry['count']}")
    lines += [f"- note: {note}" for note in report["notes"]]
    rows = [[name, f"{count:,}", f"{count / max(report['rows_written'], 1):.1%}"] for name, count in report["missing"].items()]
    return "\n".join(lines) + "\n\n" + markdown("Missing values per field", ["field", "missing", "share"], rows)


def sid_markdown(report: dict) -> str:
    """Per-level semantic-ID diagnostics as Markdown."""
    rows = []
    for level in report["levels"]:
        purity = level["purity"]
        rows.append([str(level["level"]), f"{level['clusters']:,}", f"{level['codebook_usage']:.1%}", f"{level['perplexity']:.1f}",
                     f"{level['mean_cluster_size']:.1f}", f"{level['unique_fraction']:.1%}",
                     *(f"{purity[a]['weighted']:.3f}" for a in ("article_type", "sub_category", "base_colour", "gender"))])
    header = ["level", "clusters", "usage", "perplexity", "mean size", "unique", "purity articleType", "purity subCategory",
              "purity colour", "purity gender"]
    return markdown("Semantic IDs per level (weighted purity)", header, rows)


def stats_markdown(stats: dict) -> str:
    """Benchmark statistics (paper Tables 1, 7, 8) as Markdown."""
    clusters = [[str(lv), f"{c['prefixes']:,}", f"{c['qualified']:,}"] for lv, c in sorted(stats["clusters"].items())]
    tasks = [[t.upper(), f"{v['queries']:,}", f"{v['anchor_leaves']:,}"] for t, v in stats["tasks"].items()]
    tiers = ("exact", "sibling", "related", "irrelevant")
    labels = [[t.upper(), *(f"{v[k]['count']:,} ({v[k]['share']:.1%})" for k in tiers)] for t, v in stats["labels"].items()]
    tags = stats["attribute_tags"]
    tag_rows = [[a, f"{n:,}"] for a, n in sorted(tags["per_attribute"].items(), key=lambda kv: -kv[1])]
    cov = stats["catalog_coverage"]
    return "\n".join([
        markdown("Clusters per level (Table 1)", ["level", "prefixes", "qualified"], clusters),
        markdown("Queries per task (Table 7)", ["task", "queries", "anchor leaves"], tasks),
        markdown("Relevance-label balance (Table 8)", ["task", *tiers], labels),
        markdown(f"Attribute tags of φ(q) over {tags['queries']:,} T1 queries", ["attribute", "queries"], tag_rows),
        f"Catalog coverage: {cov['items_touched']:,} of {cov['catalog_items']:,} items touched ({cov['share']:.1%}).\n",
    ])


def run_demo(out: str | Path, config: DemoConfig = DemoConfig(), console: Console | None = None, verbose: bool = False) -> Path:
    """Build the benchmark from ``config.catalog``, run, commit and score every baseline, compare them, write the report.

    ``out`` must be a new or empty folder. Every stage's wall time, CPU time and peak RSS go into the report (section 8) and ``stages.json``;
    ``verbose`` also prints each stage as it ends.
    """
    from fashionrq.protocol.manifest import check_folder_output

    console = console or Console(stderr=True)
    out = check_folder_output(out, what="demo folder")  # a rerun never mixes with (or overwrites) an earlier demo
    out.mkdir(parents=True, exist_ok=True)
    sections: list[str] = [f"# fashionrq demo report\n\nConfiguration: `{json.dumps(_config_dict(config), sort_keys=True)}`\n"]

    def section(title: str, body: str) -> None:
        sections.append(f"## {title}\n\n{body}\n")
        console.print(f"\n## {title}\n\n{body}", markup=False, highlight=False, soft_wrap=True)

    timer = StageTimer(on_stage=(lambda s: console.print(f"[stage] {s}", markup=False, highlight=False)) if verbose else None)
    with timer.active():
        bench = _build(out, config, console, section)
        runs = _run_all(bench, out / "runs", config, console)
        section("4. Leaderboard", leaderboard(bench, runs))
        comparison = _compare(bench, runs, out, config, console, section)
        probes = _probes(bench, runs, out, config, console, section)
        with stage("report.html"):
            write_report(bench, runs, out / "report.html", comparison=comparison, images=config.images, force=True,
                         title="fashionrq demo report", probes=probes)
    section("8. Time and memory per stage", timer.to_markdown())
    atomic_write_json(out / "stages.json", timer.to_dict())
    report = out / "report.md"
    atomic_write_text(report, "\n".join(sections))
    return report


def _build(out: Path, config: DemoConfig, console: Console, section) -> Path:
    """Ingest, then the frozen release (embed, semantic IDs, hierarchy, queries, tasks); report sections 1-3."""
    from fashionrq.catalog import ingest, save_ingest
    from fashionrq.sid.io import read_sids
    from fashionrq.sid.report import sid_report
    from fashionrq.tasks import bench_stats, build_release

    with stage("ingest"):
        ingested = ingest(config.catalog)
        save_ingest(ingested, out / "catalog", force=True)  # a rerun of the demo into the same folder
    section("1. Catalog", ingest_markdown(ingested.report.to_dict()))
    bench = out / "bench"
    console.print("building the benchmark (embed, semantic IDs, clusters, queries, tasks) …")
    build_release(config.catalog, bench, encoder=config.encoder, sid_method=config.sid_method, seed=config.seed,
                  ingested=ingested)
    _, sids = read_sids(bench / "labels" / "sids.parquet")  # written in the order of ingested.table
    section("2. Semantic-ID hierarchy", sid_markdown(sid_report(sids, ingested.table)))
    section("3. Benchmark", stats_markdown(bench_stats(bench)))
    return bench


def first_stage_labels(systems: Sequence[tuple[str, str, str | None]]) -> dict[str, str]:
    """``{two-stage label: label of its first stage}`` for each ``X+reranker`` entry whose ``X`` is also listed.

    One run writes both (``run_system(..., first_stage_out=...)``), so the first stage is not computed twice.
    """
    plain = {system: label for label, system, rerank in systems if rerank is None}
    return {label: plain[system] for label, system, rerank in systems if rerank and system in plain}


def _run_all(bench: Path, folder: Path, config: DemoConfig, console: Console) -> list[Path]:
    """Every system of ``config`` run, committed and scored, in the order listed (a first stage comes with its two-stage run)."""
    first_of = first_stage_labels(config.systems)
    written = set(first_of.values())
    for label, system, rerank in config.systems:
        if label not in written:
            first = first_of.get(label)
            _run_and_score(bench, folder / label, system, rerank, config, console, folder / first if first else None)
    return [folder / label for label, _, _ in config.systems]


def _run_and_score(bench: Path, run_dir: Path, system: str, rerank: str | None, config: DemoConfig, console: Console,
                   first_stage_dir: Path | None = None) -> None:
    """One label-blind run (and its first stage alone, into ``first_stage_dir``), committed, then scored (scores.json)."""
    from fashionrq.protocol.commitment import commit_run
    from fashionrq.protocol.scoring import score_run, write_json
    from fashionrq.systems import get_reranker, get_system, run_system

    dirs = [run_dir] + ([first_stage_dir] if first_stage_dir else [])
    console.print(f"running {' and '.join(d.name for d in dirs)} …")
    with stage(f"run {run_dir.name}"):
        params = {"components": config.hybrid_components} if system == "hybrid" else {}
        run_system(bench, get_system(system, **params), run_dir, reranker=get_reranker(rerank) if rerank else None,
                   depth=config.rerank_depth, first_stage_out=first_stage_dir)
        for folder in dirs:
            commit_run(folder, bench)
    for folder in dirs:
        with stage(f"score {folder.name}"):
            write_json(score_run(bench, folder).report, folder / "scores.json")


def _compare(bench: Path, runs: list[Path], out: Path, config: DemoConfig, console: Console, section) -> dict:
    """Paired cluster bootstrap over every pair of runs; report sections 5-6; returns the comparison."""
    from fashionrq.protocol.compare import compare_runs, verdict_markdown
    from fashionrq.protocol.scoring import write_json

    console.print(f"paired cluster bootstrap over {len(runs)} runs ({config.resamples:,} resamples) …")
    with stage("bootstrap"):
        comparison = compare_runs(bench, runs, resamples=config.resamples, seed=config.seed)
    write_json(comparison, out / "comparison.json")
    flags = comparison["analysis"]["flags"]
    flag_text = "\n".join(f"- {flag}" for flag in flags) if flags else "- no system pair changes order between micro and macro aggregation."
    section("5. Verdicts (conjunctive promotion gate)", verdict_markdown(comparison))
    section("6. What the headline is made of", "Aggregation sensitivity (pairs whose order flips):\n\n" + flag_text)
    return comparison


def _probes(bench: Path, runs: list[Path], out: Path, config: DemoConfig, console: Console, section) -> dict:
    """Every label-blind probe and the query-blind baseline against random's interval, the demo's runs beside them
    (docs/protocol.md, "Adversarial probes"); report section 7 and ``probes/probe.json``; returns the probe report."""
    from fashionrq.protocol.probe import probe_release

    console.print("adversarial probes (label-blind attacks on the public files) …")
    with stage("probes"):
        report = probe_release(bench, out=out / "probes", against=runs, resamples=config.resamples, seed=config.seed,
                               query_blind_encoder=config.encoder, force=True)
    section("7. Adversarial probes", str(report))
    return report.to_dict()


def _config_dict(config: DemoConfig) -> dict:
    data = {k: getattr(config, k) for k in ("catalog", "encoder", "sid_method", "seed", "resamples", "rerank_depth")}
    data["hybrid_components"] = list(config.hybrid_components)
    data["systems"] = [label for label, _, _ in config.systems]
    return data
