"""The demo's pipeline: catalog -> benchmark -> baselines -> committed scores -> paired verdicts, probes, label audit
and the MCMR part, scheduled on worker processes and the stage cache; ``report.demo`` renders what it returns."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq
from rich.console import Console

from fashionrq.catalog import ingest, save_ingest
from fashionrq.encoders import embed_items, get_encoder
from fashionrq.encoders.registry import DEFAULT_ENCODER
from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_write_json, sha256_file
from fashionrq.layout import ITEMS, SIDS, check_folder_output
from fashionrq.limits import available_cores
from fashionrq.pipeline.mcmr import PhotographedAblation, photographed_ablation
from fashionrq.pipeline.probes import prepare_probe_runs, probe_release
from fashionrq.pipeline.runs import run_commit_score
from fashionrq.protocol.audit import LabelAudit, audit_release
from fashionrq.protocol.commitment import prediction_files
from fashionrq.protocol.compare import compare_with_analysis, runs_record
from fashionrq.protocol.probe import ProbeReport
from fashionrq.protocol.scoring import ScoredRun, write_json
from fashionrq.release import Release, release_hash
from fashionrq.sid.sids_file import read_sids
from fashionrq.sid.report import sid_report
from fashionrq.stagecache import cached_folder, cached_json, cached_object
from fashionrq.tasks import BuildConfig, bench_stats, build_release
from fashionrq.timing import adopt, stage, timed

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
#: What a demo folder holds; ``--force`` replaces only a folder holding nothing else.
DEMO_ENTRIES = frozenset({"catalog", "bench", "runs", "probes", "mcmr-bench", "mcmr-runs", "comparison.json", "audit.json",
                          "report.html", "report.md", "stages.json"})
#: Sealed runs the demo keeps going at once, each in its own process with its scoring (most are single-threaded).
PARALLEL_RUNS = 2
#: The probes' runs go to the runs' workers in this many parts (one sealed child each), so that both workers finish
#: close together after the demo's own runs.
PROBE_RUN_PARTS = 3


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
    mapping: str | None = None  # TOML mapping of a catalog in another schema
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


@dataclass
class DemoResults:
    """What the demo computed, filled in step by step (each step is handed to ``show`` as it ends)."""

    out: Path
    config: DemoConfig
    ingest: dict | None = None  # the ingest report ("catalog")
    bench: Path | None = None  # the release ("release", with the two below)
    sids: dict | None = None  # per-level diagnostics of its semantic IDs (``sid.report.sid_report``)
    stats: dict | None = None  # its statistics (``tasks.bench_stats``)
    scored: list[ScoredRun] = field(default_factory=list)  # every system's run, in the order listed ("runs")
    comparison: dict | None = None  # the paired bootstrap, as comparison.json ("comparison")
    probes: ProbeReport | None = None  # ("probes")
    audit: LabelAudit | None = None
    mcmr: PhotographedAblation | None = None  # None when the demo has no MCMR systems

    @property
    def runs(self) -> list[Path]:
        """Every system's run folder, in the order listed."""
        return [self.out / "runs" / label for label, _, _ in self.config.systems]


def run_pipeline(out: str | Path, config: DemoConfig = DemoConfig(), *, console: Console, force: bool = False,
                 show: Callable[[str, DemoResults], None] = lambda step, results: None) -> DemoResults:
    """Build the benchmark from ``config.catalog``, run, commit and score every baseline, compare them, probe the
    release and audit its labels, and run the MCMR part beside; returns everything computed.

    ``out`` must be a new or empty folder; ``force`` replaces an earlier demo's folder (never another folder).
    The release, each system's sealed run and the bootstrap are taken from the stage cache
    (:mod:`fashionrq.stagecache`) when their inputs and the code are unchanged; every run is still committed and
    scored. ``show(step, results)`` is called as each of the steps ``catalog``, ``release``, ``runs``,
    ``comparison`` and ``probes`` ends.
    """
    results = DemoResults(_fresh_demo_folder(Path(out), force), config)
    ingested, items = _ingest_and_embed(results, lambda: show("catalog", results))
    with _mcmr_beside(results.out, config) as mcmr_process:  # it needs only the catalog and its cached vectors
        _build(results, ingested, items, console)
        show("release", results)
        with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as beside:
            pending = []  # the label audit starts once the demo's own runs are scored, beside the probes' runs
            results.scored = _run_all(results.bench, results.out / "runs", config, console,
                                      lambda: pending.append(_audit_beside(beside, results, console)))
            probing = _probes_beside(beside, results, console)  # beside the leaderboard and the bootstrap
            show("runs", results)
            results.comparison = _compare(results, console)
            show("comparison", results)
            results.probes = _probes(probing)
            show("probes", results)
            results.audit = _audit(pending[0], results.out)
        results.mcmr = _mcmr_join(mcmr_process) if mcmr_process else None
    return results


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


def _ingest_and_embed(results: DemoResults, ingested_shown: Callable[[], None]):
    """Ingest into ``out/catalog``, then the item vectors into the encoder cache, where the release and the MCMR part
    (started next, beside the release's mostly single-threaded later stages) find them; returns the ingest result
    and its items file."""
    config = results.config
    with stage("ingest"):
        ingested = ingest(config.catalog, mapping=config.mapping)
        items = save_ingest(ingested, results.out / "catalog")
    results.ingest = ingested.report.to_dict()
    ingested_shown()
    with stage(f"encode items ({config.encoder})"):
        embed_items(ingested.table, config.encoder)
    return ingested, items


def _build(results: DemoResults, ingested, items: Path, console: Console) -> None:
    """The frozen release from the ingested catalog (semantic IDs, hierarchy, queries, tasks; from the stage cache
    when built before from the same items, configuration and code), its SID diagnostics and statistics."""
    config, bench = results.config, results.out / "bench"
    console.print("building the benchmark (semantic IDs, clusters, queries, tasks) …")
    inputs = {"items": sha256_file(items), "catalog": config.catalog, "encoder": config.encoder, "seed": config.seed,
              "mapping": sha256_file(Path(config.mapping)) if config.mapping else None,
              "fingerprint": get_encoder(config.encoder).fingerprint, "sid_method": config.sid_method,
              "allow_weak": config.allow_weak}
    with stage("release"):
        hit = cached_folder("release", inputs, bench, lambda path: build_release(BuildConfig(
            catalog=config.catalog, mapping=config.mapping, out=path, encoder=config.encoder, sid_method=config.sid_method, seed=config.seed,
            allow_weak=config.allow_weak), ingested=ingested))
    if hit:
        console.print("release: the same items, configuration and code were built before; copied from the stage cache.")
    release = Release(bench, verify=False)
    _, sids = read_sids(release.label_path(SIDS))  # in the order of public/items.parquet
    results.bench, results.sids = bench, sid_report(sids, pq.read_table(release.path(ITEMS)))
    results.stats = bench_stats(bench)


def first_stage_labels(systems: Sequence[tuple[str, str, str | None]]) -> dict[str, str]:
    """``{two-stage label: label of its first stage}`` for each ``X+reranker`` entry whose ``X`` is also listed.

    One run writes both (``run_commit_score(..., first_stage_out=...)``), so the first stage is not computed twice.
    """
    plain = {system: label for label, system, rerank in systems if rerank is None}
    return {label: plain[system] for label, system, rerank in systems if rerank and system in plain}


def _run_all(bench: Path, folder: Path, config: DemoConfig, console: Console, own_runs_done: Callable[[], None]) -> list:
    """Every system of ``config`` run, committed and scored (a first stage comes with its two-stage run),
    :data:`PARALLEL_RUNS` at a time, two-stage and fused runs (the longest) started first, then the probes' runs;
    ``own_runs_done`` is called once the systems' own runs are scored, while the probes' may still run. Returns the
    ScoredRuns in the order listed. Each run's stages join the timer under one stage, in that order."""
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
                pending[label] = pool.submit(timed, None, _run_and_score, bench, *jobs[label], config)
            # the probes' runs, in parts that the workers take as they come free, into the stage cache
            probe_runs = [pool.submit(timed, f"probe runs, part {i + 1} of {PROBE_RUN_PARTS} (beside the runs, kept for the probes)",
                                      prepare_probe_runs, bench, query_blind_encoder=config.encoder, part=(i, PROBE_RUN_PARTS))
                          for i in range(PROBE_RUN_PARTS)]
            results = {label: future.result() for label, future in pending.items()}
            own_runs_done()
            for future in probe_runs:
                adopt(future.result()[1])
        for label in jobs:  # the order listed
            (runs, hit), stages = results[label]
            if hit:
                console.print(f"{label}: this system ran on this release before; its sealed run files were copied from the stage cache.")
            scored.update(zip((d.name for d in jobs[label][0]), runs))
            adopt(stages)
    return [scored[label] for label, _, _ in config.systems]


def _run_and_score(bench: Path, dirs: list[Path], system: str, rerank: str | None, config: DemoConfig):
    """One label-blind run into ``dirs[0]`` (and its first stage alone into ``dirs[1]``), from the stage cache when
    this system ran on this release before, committed and scored: (ScoredRuns, cache hit)."""
    params = {"components": list(config.hybrid_components)} if system == "hybrid" else {}
    return run_commit_score(bench, system, dirs[0], reranker=rerank, depth=config.rerank_depth, params=params,
                            first_stage_out=dirs[1] if len(dirs) > 1 else None, cached=True)


def _compare(results: DemoResults, console: Console) -> dict:
    """Paired cluster bootstrap over every pair of scored runs (cached by their scores), written to comparison.json."""
    config, scored = results.config, results.scored
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
    write_json(comparison, results.out / "comparison.json")
    return comparison


@contextmanager
def _mcmr_beside(out: Path, config: DemoConfig):
    """The MCMR part (it needs only the ingested catalog and the encoder cache) started in its own process, so it
    runs beside the release's single-threaded stages (semantic IDs, hierarchy, queries, tasks); yields ``(process, pipe)`` for
    :func:`_mcmr_join` (``None`` when the demo has no MCMR systems), and stops the process if the demo fails first."""
    if not config.mcmr_systems:
        yield None
        return
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
    """The MCMR part's process: :func:`~fashionrq.pipeline.mcmr.photographed_ablation` with a stage timer of its own;
    sends (result, stages)."""
    send.send(timed(None, photographed_ablation, out / "catalog", out / "mcmr-bench", out / "mcmr-runs",
                    encoder=config.encoder, seed=config.seed, systems=config.mcmr_systems, console=Console(stderr=True, emoji=False)))
    send.close()


def _mcmr_join(started) -> PhotographedAblation:
    """Wait for the MCMR process; its stages join the timer under the stage that waited (which counts its CPU)."""
    process, receive = started
    with stage("mcmr (own process, started after the item vectors)"):
        try:
            result, stages = receive.recv()
        except EOFError:
            result = stages = None
        process.join()
        if stages is not None:
            adopt(stages, "mcmr: ")
    if stages is None:
        raise FashionRQError(f"the MCMR section's process failed (exit code {process.exitcode}); its traceback is printed above.")
    return result


def _probes_beside(pool: ProcessPoolExecutor, results: DemoResults, console: Console) -> Future:
    """Every label-blind probe and the query-blind baseline against its chance band, the demo's scored runs beside
    them (docs/protocol.md, "Adversarial probes"), kept in ``probes/`` with ``probe.json``: started in ``pool``'s
    process, beside the leaderboard and the bootstrap (each is single-threaded)."""
    console.print("adversarial probes (label-blind attacks on the public files), beside the bootstrap …")
    config = results.config
    return pool.submit(timed, "probes", probe_release, results.bench, out=results.out / "probes", against=results.scored,
                       resamples=config.resamples, seed=config.seed, query_blind_encoder=config.encoder, force=True)


def _probes(pending: Future) -> ProbeReport:
    """The probes :func:`_probes_beside` started; their stages join the timer under the stage that waited for them."""
    with stage("probes, the wait (they ran beside the leaderboard and the bootstrap)"):
        report, stages = pending.result()
        adopt(stages)
    return report


def _audit_beside(pool: ProcessPoolExecutor, results: DemoResults, console: Console) -> Future:
    """The label audit with every run's attribute oracle (docs/benchmark.md, "Label audit"), started in ``pool``'s
    process so that it runs beside the probes' runs and the probes (each is mostly single-threaded)."""
    console.print("label audit (full matches of every query against its labels), beside the probes …")
    return pool.submit(_cached_audit, results.bench, results.runs, min(results.config.resamples, 1000), results.config.seed)


def _cached_audit(bench: Path, runs: list[Path], resamples: int, seed: int) -> LabelAudit:
    """:func:`~fashionrq.protocol.audit.audit_release` of ``runs``, from the stage cache when the same release, run
    names and run files were audited before with the same resamples and seed."""
    inputs = {"release": release_hash(bench), "resamples": resamples, "seed": seed,
              "runs": {run.name: {task: sha256_file(path) for task, path in prediction_files(run).items()} for run in runs}}
    return cached_object("audit", inputs, lambda: audit_release(bench, runs=runs, resamples=resamples, seed=seed))


def _audit(pending: Future, out: Path) -> LabelAudit:
    """The audit :func:`_audit_beside` started, written to ``audit.json``; its stage is the wait for it."""
    with stage("label audit"):
        audit = pending.result()
    atomic_write_json(out / "audit.json", audit.to_dict())
    return audit
