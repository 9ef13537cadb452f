"""The main job: catalog -> benchmark -> baselines -> committed scores -> paired verdicts -> report.md."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_write_json, atomic_write_text
from fashionrq.layout import ITEMS, SIDS, check_folder_output
from fashionrq.release import Release, release_hash
from fashionrq.report.leaderboard import labelled, leaderboard_of, markdown
from fashionrq.report.page import render
from fashionrq.timing import StageTimer, adopt, stage

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
    encoder: str = DEFAULT_ENCODER
    sid_method: str = "rqvae"
    seed: int = 0
    resamples: int = 10_000
    rerank_depth: int = 50
    images: str | None = None  # folder of <item_id>.jpg: thumbnails in report.html
    systems: Sequence[tuple[str, str, str | None]] = DEMO_SYSTEMS
    #: What ``hybrid`` fuses in the demo: the systems whose item vectors the demo computes anyway.
    hybrid_components: tuple[str, ...] = ("bm25", "minilm-int8")
    #: Systems of the MCMR part (an MCMR release on the photographed items, every candidate regime); () skips it.
    mcmr_systems: tuple[str, ...] = ("bm25", "image-descriptor")
    #: Build the main release even when a task has fewer than ``MIN_UNITS`` bootstrap units (the quality gate).
    allow_weak: bool = False


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


def run_demo(out: str | Path, config: DemoConfig = DemoConfig(), console: Console | None = None, verbose: bool = False,
             force: bool = False) -> Path:
    """Build the benchmark from ``config.catalog``, run, commit and score every baseline, compare them, write the report.

    ``out`` must be a new or empty folder; ``force`` replaces an earlier demo's folder (never another folder).
    The release, each system's sealed run and the bootstrap are taken from the stage cache
    (:mod:`fashionrq.stagecache`) when their inputs and the code are unchanged; every run is still committed and
    scored. Every stage's wall time, CPU time and peak RSS go into the report (section 8) and ``stages.json``;
    ``verbose`` also prints each stage as it ends.
    """
    console = console or Console(stderr=True)
    out = _fresh_demo_folder(Path(out), force)
    sections: list[str] = [f"# fashionrq demo report\n\nConfiguration: `{json.dumps(_config_dict(config), sort_keys=True)}`\n"]

    def section(title: str, body: str) -> None:
        sections.append(f"## {title}\n\n{body}\n")
        console.print(f"\n## {title}\n\n{body}", markup=False, highlight=False, soft_wrap=True)

    timer = StageTimer(on_stage=(lambda s: console.print(f"[stage] {s}", markup=False, highlight=False)) if verbose else None)
    with timer.active():
        ingested, items = _ingest_and_embed(out, config, section)
        with _mcmr_beside(out, config) as mcmr_process:  # it needs only the catalog and its cached vectors
            bench = _build(out, ingested, items, config, console, section)
            runs = [out / "runs" / label for label, _, _ in config.systems]
            with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as beside:
                pending = []  # the label audit starts once the demo's own runs are scored, beside the probes' runs
                scored = _run_all(bench, out / "runs", config, console,
                                  lambda: pending.append(_audit_beside(beside, bench, runs, config, console)))
                shown = labelled([(s, run / "scores.json") for s, run in zip(scored, runs)], bench)
                with stage("leaderboard"):
                    section("4. Leaderboard", leaderboard_of(bench, shown))
                comparison = _compare(scored, out, config, console, section)
                probes = _probes(bench, scored, out, config, console, section)
                audit = _audit(pending[0], out)
            mcmr, mcmr_text = _mcmr_join(mcmr_process) if mcmr_process else (None, None)
        with stage("report.html"):
            atomic_write_text(out / "report.html", render(bench, shown, comparison, config.images, "fashionrq demo report",
                                                          probes, mcmr, audit))
    section("8. Time and memory per stage", timer.to_markdown())
    if mcmr_text is not None:
        section("9. MCMR on the photographed items (text / image / fused regimes, controlled constraint count)", mcmr_text)
    section("10. Label audit (full matches of the hidden φ(q) by grade; the attribute oracle of every run)",
            "```\n" + str(audit) + "\n```")
    atomic_write_json(out / "stages.json", timer.to_dict())
    report = out / "report.md"
    atomic_write_text(report, "\n".join(sections))
    return report


#: What a demo folder holds; ``--force`` replaces only a folder holding nothing else.
DEMO_ENTRIES = frozenset({"catalog", "bench", "runs", "probes", "mcmr-bench", "mcmr-runs", "comparison.json", "audit.json",
                          "report.html", "report.md", "stages.json"})


def _fresh_demo_folder(out: Path, force: bool) -> Path:
    """``out`` empty and ready: a new or empty folder, or (``force``) an earlier demo's folder, removed first."""

    check_folder_output(out, force, what="demo folder")  # a rerun never mixes with (or silently overwrites) an earlier demo
    if out.is_dir() and any(out.iterdir()):
        strangers = sorted(p.name for p in out.iterdir() if p.name not in DEMO_ENTRIES)
        if strangers:
            raise InputError(f"--out {out} holds {strangers[0]}, which no demo writes; --force replaces only an earlier demo's folder, so choose another --out.")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _ingest_and_embed(out: Path, config: DemoConfig, section):
    """Ingest into ``out/catalog`` (report section 1), then the item vectors into the encoder cache, where the release
    and the MCMR section (started next, beside the release's mostly single-threaded later stages) find them; returns
    the ingest result and its items file."""
    from fashionrq.catalog import ingest, save_ingest
    from fashionrq.encoders import embed_items

    with stage("ingest"):
        ingested = ingest(config.catalog)
        items = save_ingest(ingested, out / "catalog")
    section("1. Catalog", ingest_markdown(ingested.report.to_dict()))
    with stage(f"encode items ({config.encoder})"):
        embed_items(ingested.table, config.encoder)
    return ingested, items


def _build(out: Path, ingested, items: Path, config: DemoConfig, console: Console, section) -> Path:
    """The frozen release from the ingested catalog (semantic IDs, hierarchy, queries, tasks; from the stage cache
    when built before from the same items, configuration and code); report sections 2-3."""
    import pyarrow.parquet as pq

    from fashionrq.encoders import get_encoder
    from fashionrq.io import sha256_file
    from fashionrq.sid.io import read_sids
    from fashionrq.sid.report import sid_report
    from fashionrq.stagecache import cached_folder
    from fashionrq.tasks import BuildConfig, bench_stats, build_release

    bench = out / "bench"
    console.print("building the benchmark (semantic IDs, clusters, queries, tasks) …")
    inputs = {"items": sha256_file(items), "catalog": config.catalog, "encoder": config.encoder, "seed": config.seed,
              "fingerprint": get_encoder(config.encoder).fingerprint, "sid_method": config.sid_method,
              "allow_weak": config.allow_weak}
    with stage("release"):
        hit = cached_folder("release", inputs, bench, lambda path: build_release(BuildConfig(
            catalog=config.catalog, out=path, encoder=config.encoder, sid_method=config.sid_method, seed=config.seed,
            allow_weak=config.allow_weak), ingested=ingested))
    if hit:
        console.print("release: the same items, configuration and code were built before; copied from the stage cache.")
    release = Release(bench, verify=False)
    _, sids = read_sids(release.label_path(SIDS))  # in the order of public/items.parquet
    section("2. Semantic-ID hierarchy", sid_markdown(sid_report(sids, pq.read_table(release.path(ITEMS)))))
    section("3. Benchmark", stats_markdown(bench_stats(bench)))
    return bench


def first_stage_labels(systems: Sequence[tuple[str, str, str | None]]) -> dict[str, str]:
    """``{two-stage label: label of its first stage}`` for each ``X+reranker`` entry whose ``X`` is also listed.

    One run writes both (``run_system(..., first_stage_out=...)``), so the first stage is not computed twice.
    """
    plain = {system: label for label, system, rerank in systems if rerank is None}
    return {label: plain[system] for label, system, rerank in systems if rerank and system in plain}


#: Sealed runs the demo keeps going at once, each in its own process with its scoring (most are single-threaded).
PARALLEL_RUNS = 2
#: The probes' runs go to the runs' workers in this many parts (one sealed child each), so that both workers finish
#: close together after the demo's own runs.
PROBE_RUN_PARTS = 3


def _run_all(bench: Path, folder: Path, config: DemoConfig, console: Console, own_runs_done: Callable[[], None]) -> list:
    """Every system of ``config`` run, committed and scored (a first stage comes with its two-stage run),
    :data:`PARALLEL_RUNS` at a time, two-stage and fused runs (the longest) started first, then the probes' runs;
    ``own_runs_done`` is called once the systems' own runs are scored, while the probes' may still run. Returns the
    ScoredRuns in the order listed. Each run's stages join the timer under one stage, in that order."""
    from fashionrq.images.store import available_cores

    first_of = first_stage_labels(config.systems)
    written = set(first_of.values())
    jobs = {}
    for label, system, rerank in config.systems:
        if label not in written:
            first = first_of.get(label)
            jobs[label] = ([folder / label] + ([folder / first] if first else []), system, rerank)
    started = sorted(jobs, key=lambda label: (jobs[label][2] is None, jobs[label][1] != "hybrid"))  # stable
    workers = max(1, min(PARALLEL_RUNS, len(jobs), available_cores()))
    scored = {}
    with stage(f"runs ({len(jobs)} sealed, {workers} at a time, each scored in its process; then the probes' runs)"):
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            pending = {}
            for label in started:
                console.print(f"running {' and '.join(d.name for d in jobs[label][0])} …")
                pending[label] = pool.submit(_timed_run_and_score, bench, *jobs[label], config)
            # the probes' runs, in parts that the workers take as they come free, into the stage cache
            probe_runs = [pool.submit(_timed_probe_runs, bench, config, (i, PROBE_RUN_PARTS)) for i in range(PROBE_RUN_PARTS)]
            results = {label: future.result() for label, future in pending.items()}
            own_runs_done()
            for future in probe_runs:
                adopt(future.result())
        for label in jobs:  # the order listed
            runs, hit, stages = results[label]
            if hit:
                console.print(f"{label}: this system ran on this release before; its sealed run files were copied from the stage cache.")
            scored.update(zip((d.name for d in jobs[label][0]), runs))
            adopt(stages)
    return [scored[label] for label, _, _ in config.systems]


def _timed_run_and_score(bench: Path, dirs: list[Path], system: str, rerank: str | None, config: DemoConfig):
    """:func:`_run_and_score` in a worker process, with a stage timer of its own: (ScoredRuns, cache hit, stages)."""
    timer = StageTimer()
    with timer.active():
        scored, hit = _run_and_score(bench, dirs, system, rerank, config)
    return scored, hit, timer.stages


def _timed_probe_runs(bench: Path, config: DemoConfig, part: tuple[int, int]) -> list:
    """A part of the probes' sealed runs (``protocol.probe.prepare_probe_runs``, as :func:`_probes` will ask for
    them) in a worker process beside the demo's own runs, into the stage cache; returns its stages."""
    from fashionrq.protocol.probe import prepare_probe_runs

    timer = StageTimer()
    with timer.active(), stage(f"probe runs, part {part[0] + 1} of {part[1]} (beside the runs, kept for the probes)"):
        prepare_probe_runs(bench, query_blind_encoder=config.encoder, part=part)
    return timer.stages


def _run_and_score(bench: Path, dirs: list[Path], system: str, rerank: str | None, config: DemoConfig) -> tuple[list, bool]:
    """One label-blind run into ``dirs[0]`` (and its first stage alone into ``dirs[1]``), from the stage cache when
    this system ran on this release before, committed, then scored (scores.json); returns the ScoredRuns and
    whether the run came from the stage cache."""
    from fashionrq.protocol.commitment import commit_run
    from fashionrq.protocol.scoring import score_run, write_json
    from fashionrq.stagecache import cached_run
    from fashionrq.systems import get_reranker, get_system, run_system

    params = {"components": list(config.hybrid_components)} if system == "hybrid" else {}
    inputs = {"system": system, "params": params, "rerank": rerank, "rerank_depth": config.rerank_depth,
              "first_stage": len(dirs) > 1}
    with stage(f"run {dirs[0].name}"):

        def build(path: Path) -> None:
            run_system(bench, get_system(system, **params), path / "run", reranker=get_reranker(rerank) if rerank else None,
                       depth=config.rerank_depth, first_stage_out=path / "first" if len(dirs) > 1 else None)

        staging = dirs[0].with_name(f".{dirs[0].name}.staging")
        hit = ":" not in system and cached_run(bench, staging, build, inputs)
        if ":" in system:  # a plug-in (module:Class, st:model) is code or weights outside the code version: never cached
            build(staging)
        for name, folder in zip(("run", "first"), dirs):
            os.replace(staging / name, folder)
        shutil.rmtree(staging)
        for folder in dirs:
            commit_run(folder, bench)
    scored = []
    for folder in dirs:
        with stage(f"score {folder.name}"):
            scored.append(score_run(bench, folder))
            write_json(scored[-1].report, folder / "scores.json")
    return scored, hit


def _compare(scored: list, out: Path, config: DemoConfig, console: Console, section) -> dict:
    """Paired cluster bootstrap over every pair of scored runs (cached by their scores); report sections 5-6."""
    from fashionrq.protocol.compare import compare_with_analysis, runs_record, verdict_markdown
    from fashionrq.protocol.scoring import write_json
    from fashionrq.stagecache import cached_json

    console.print(f"paired cluster bootstrap over {len(scored)} runs ({config.resamples:,} resamples) …")
    # the key is every score but the commitment (a timestamped event) and the run's path, with the per-unit values
    # the bootstrap resamples (no score file holds them)
    inputs = {"scores": [{k: v for k, v in s.report.items() if k not in ("commitment", "run")} for s in scored],
              "per_unit": [{task: s.per_unit(task) for task in sorted(s.units)} for s in scored],
              "resamples": config.resamples, "seed": config.seed}
    with stage("bootstrap"):
        comparison = cached_json("bootstrap", inputs, lambda: json.loads(json.dumps(
            compare_with_analysis(scored, resamples=config.resamples, seed=config.seed), sort_keys=True)))
        comparison["runs"] = json.loads(json.dumps(runs_record(scored), sort_keys=True))  # this demo's commitments
    write_json(comparison, out / "comparison.json")
    flags = comparison["analysis"]["flags"]
    flag_text = "\n".join(f"- {flag}" for flag in flags) if flags else "- no system pair changes order between micro and macro aggregation."
    section("5. Verdicts (conjunctive promotion gate)", verdict_markdown(comparison))
    section("6. What the headline is made of", "Aggregation sensitivity (pairs whose order flips):\n\n" + flag_text)
    return comparison


def mcmr_codebook_size(photographed: int) -> int:
    """Codes per SID level of the demo's MCMR release: leaves of a few items (16 for the bundled 2,946 photos)."""
    return int(min(16, max(4, round(photographed / 180))))


@contextmanager
def _mcmr_beside(out: Path, config: DemoConfig):
    """The MCMR section (it needs only the ingested catalog and the encoder cache) started in its own process, so it
    runs beside the release's single-threaded stages (semantic IDs, hierarchy, queries, tasks); yields ``(process, pipe)`` for
    :func:`_mcmr_join` (``None`` when the demo has no MCMR systems), and stops the process if the demo fails first."""
    if not config.mcmr_systems:
        yield None
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_mcmr_process, args=(out, config, send), name="fashionrq-mcmr")
    process.start()
    send.close()
    try:
        yield process, receive
    finally:
        if process.is_alive():
            process.terminate()
            process.join()


def _mcmr_process(out: Path, config: DemoConfig, send) -> None:
    """The MCMR section's process: :func:`_mcmr` with a stage timer of its own; sends (ablation, text, stages)."""
    timer = StageTimer()
    with timer.active():
        ablation, text = _mcmr(out, config, Console(stderr=True))
    send.send((ablation, text, timer.stages))
    send.close()


def _mcmr_join(started):
    """Wait for the MCMR process; its stages join the timer under the stage that waited (which counts its CPU)."""
    process, receive = started
    with stage("mcmr (own process, started after the item vectors)"):
        try:
            ablation, text, stages = receive.recv()
        except EOFError:
            ablation = text = stages = None
        process.join()
        if stages is not None:
            adopt(stages, "mcmr: ")
    if stages is None:
        raise FashionRQError(f"the MCMR section's process failed (exit code {process.exitcode}); its traceback is printed above.")
    return ablation, text


def _mcmr(out: Path, config: DemoConfig, console: Console):
    """An MCMR release on the catalog's photographed items and its systems in every candidate regime: the ablation
    (``None`` without photos) and the text of report section 9."""
    from fashionrq.catalog import load_items
    from fashionrq.encoders import get_encoder
    from fashionrq.encoders.cache import remember_items
    from fashionrq.images.store import available_cores
    from fashionrq.report.mcmr import modality_ablation
    from fashionrq.stagecache import cached_folder, folder_digest
    from fashionrq.tasks import BuildConfig, build_release

    photos = load_items(out / "catalog").column("image_path").drop_null()
    if len(photos) == 0:
        return None, ("Not run: the catalog has no photos. Point a Myntra catalog at its images (`fashionrq ingest DIR "
                      "--images IMAGES`) or map an image column, then `fashionrq build --mcmr`.")
    console.print(f"MCMR: release on the {len(photos):,} photographed items, then {', '.join(config.mcmr_systems)} in every regime …")
    bench = out / "mcmr-bench"
    codebook_size = mcmr_codebook_size(len(photos))
    inputs = {"items": folder_digest(out / "catalog"), "encoder": config.encoder, "seed": config.seed, "queries": "mcmr",
              "fingerprint": get_encoder(config.encoder).fingerprint, "sid_method": "rkmeans", "codebook_size": codebook_size}
    def build(path: Path) -> None:
        remember_items(load_items(out / "catalog"), config.encoder)  # the photographed items' rows are gathered from them
        # the photographed subset is small (2,946 bundled items), so its tasks are few-unit by nature: the MCMR
        # section reads results by constraint count, and compare flags its weak intervals
        build_release(BuildConfig(catalog=out / "catalog", out=path, encoder=config.encoder, seed=config.seed,
                                  queries_backend="mcmr", sid_method="rkmeans", codebook_size=codebook_size, allow_weak=True))

    try:
        cached_folder("release", inputs, bench, build)
        ablation = modality_ablation(bench, out / "mcmr-runs", config.mcmr_systems, workers=available_cores())
    except FashionRQError as err:  # e.g. too few photographed items for a release: the section says why
        return None, f"Not run on the {len(photos):,} photographed items: {err}"
    return ablation, "Release `mcmr-bench/` (`fashionrq build --mcmr`), runs in `mcmr-runs/`.\n\n" + ablation.to_markdown()


def _probes(bench: Path, scored: list, out: Path, config: DemoConfig, console: Console, section) -> dict:
    """Every label-blind probe and the query-blind baseline against its chance band, the demo's scored runs beside
    them (docs/protocol.md, "Adversarial probes"); report section 7 and ``probes/probe.json``; returns the probe report."""
    from fashionrq.protocol.probe import probe_release

    console.print("adversarial probes (label-blind attacks on the public files) …")
    with stage("probes"):
        report = probe_release(bench, out=out / "probes", against=scored, resamples=config.resamples, seed=config.seed,
                               query_blind_encoder=config.encoder, force=True)
    section("7. Adversarial probes", str(report))
    return report.to_dict()


def _audit_beside(pool: ProcessPoolExecutor, bench: Path, runs: list[Path], config: DemoConfig, console: Console) -> Future:
    """The label audit with every run's attribute oracle (docs/benchmark.md, "Label audit"), started in ``pool``'s
    process so that it runs beside the probes' runs and the probes (each is mostly single-threaded)."""
    console.print("label audit (full matches of every query against its labels), beside the probes …")
    return pool.submit(_cached_audit, bench, runs, min(config.resamples, 1000), config.seed)


def _cached_audit(bench: Path, runs: list[Path], resamples: int, seed: int):
    """:func:`~fashionrq.protocol.audit.audit_release` of ``runs``, from the stage cache when the same release, run
    names and run files were audited before with the same resamples and seed."""
    from fashionrq.io import sha256_file
    from fashionrq.protocol.audit import audit_release
    from fashionrq.protocol.commitment import prediction_files
    from fashionrq.stagecache import cached_object

    inputs = {"release": release_hash(bench), "resamples": resamples, "seed": seed,
              "runs": {run.name: {task: sha256_file(path) for task, path in prediction_files(run).items()} for run in runs}}
    return cached_object("audit", inputs, lambda: audit_release(bench, runs=runs, resamples=resamples, seed=seed))


def _audit(pending: Future, out: Path):
    """The audit :func:`_audit_beside` started (report section 10 and ``audit.json``); its stage is the wait for it."""
    with stage("label audit"):
        audit = pending.result()
    atomic_write_json(out / "audit.json", audit.to_dict())
    return audit


def _config_dict(config: DemoConfig) -> dict:
    data = {k: getattr(config, k) for k in ("catalog", "encoder", "sid_method", "seed", "resamples", "rerank_depth")}
    data["hybrid_components"] = list(config.hybrid_components)
    data["systems"] = [label for label, _, _ in config.systems]
    data["mcmr_systems"] = list(config.mcmr_systems)
    if config.allow_weak:
        data["allow_weak"] = True
    return data
