"""``run_system``: score every task of a release with one system, sealed in a child process that sees only BENCH/public/."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fashionrq.encoders.text import item_text
from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_directory, atomic_write_json, atomic_write_jsonl, atomic_writer
from fashionrq.layout import MANIFEST, RUN_JSON, T2_DEV_LABELS, T2_PAIRS, check_folder_output, queries_file
from fashionrq.limits import Limits
from fashionrq.progress import track
from fashionrq.release import Release
from fashionrq.systems.adapter import as_retriever
from fashionrq.systems.base import Retriever, ranking_order
from fashionrq.systems.regimes import candidate_view, check_regime
from fashionrq.systems.t2 import (FIRST_STAGE_FEATURES, RERANKER_FEATURES, GradeCalibrator, corpus_percentile, set_closeness,
                                  within_sets)
from fashionrq.systems.twostage import DEFAULT_DEPTH, check_depth, check_reranker, rerank
from fashionrq.taskspec import GROUPED, POOLED_KINDS, TARGETED, TASKS, refuse_committed, run_files, tasks_of

#: Queries scored per call in T2 corpus scoring (bounds memory at chunk x corpus size floats).
T2_CHUNK = 64


def _tag(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.:+-]", "_", name) or "system"


def ranking_task(bench: Release, task: str) -> tuple[list[str], list[str], list[list[str]]]:
    """``(qids, texts, candidate id lists)`` of a pooled, targeted or grouped task (T1, T3, T4) from the public files."""
    spec = TASKS[task]
    queries = bench.jsonl(spec.public[0])
    if spec.kind == TARGETED:
        cands = [q.get("candidates") for q in queries]
    elif spec.kind == GROUPED:
        pools = {g["group_id"]: g["candidates"] for g in bench.jsonl(spec.public[1])}
        cands = [pools.get(q.get("group_id")) for q in queries]
    else:
        pools = {r["qid"]: r["candidates"] for r in bench.jsonl(spec.public[1])}
        cands = [pools.get(q["qid"]) for q in queries]
    for q, pool in zip(queries, cands):
        if not pool:
            raise InputError(f"{bench.public}: {task} query {q.get('qid')} has no candidates; the release is incomplete, rebuild it.")
    return [q["qid"] for q in queries], [q["text"] for q in queries], cands


def write_trec(path: Path, qids: Sequence[str], candidates: Sequence[Sequence[str]], scores: Sequence[np.ndarray], tag: str) -> None:
    """TREC run lines ``qid Q0 item_id rank score tag``, every candidate ranked, scores finite."""
    with atomic_writer(path) as handle:
        for qid, pool, values in zip(qids, candidates, scores):
            values = np.asarray(values, dtype=np.float64)
            if len(values) != len(pool) or not np.all(np.isfinite(values)):
                raise FashionRQError(f"the system returned {len(values)} scores, some not finite, for {len(pool)} candidates of query {qid}; fix its score().")
            for rank, i in enumerate(ranking_order(values, pool), start=1):
                handle.write(f"{qid} Q0 {pool[i]} {rank} {values[i]:.10g} {tag}\n")


class _Rows:
    """item_id -> row of the items table."""

    def __init__(self, item_ids: Sequence[str], source: Path) -> None:
        self.item_ids = list(item_ids)
        self.row = {item_id: i for i, item_id in enumerate(item_ids)}
        self.source = source

    def __call__(self, ids: Sequence[str]) -> np.ndarray:
        try:
            return np.fromiter((self.row[i] for i in ids), dtype=np.int64, count=len(ids))
        except KeyError as err:
            raise InputError(f"{self.source} names item {err.args[0]} that is not in public/items.parquet; rebuild the release.") from None


def _first_scores(system, texts, rows) -> list[np.ndarray]:
    return [np.asarray(s, dtype=np.float64) for s in system.score_batch(texts, rows)]


def _t2_pairs(bench: Release) -> tuple[list[dict], dict[str, str], dict[str, np.ndarray]]:
    """T2 pairs in file order, query texts by qid, and each query's pair indices (its candidate set), by qid."""
    pairs = bench.jsonl(T2_PAIRS)
    text_of = {q["qid"]: q["text"] for q in bench.jsonl(queries_file("t2"))}
    by_query: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        if p["qid"] not in text_of:
            raise InputError(f"{bench.path('t2_pairs.jsonl')}: pair {p['pair_id']} names query {p['qid']} missing from t2_queries.jsonl; rebuild the release.")
        by_query.setdefault(p["qid"], []).append(i)
    return pairs, text_of, {q: np.asarray(by_query[q], dtype=np.int64) for q in sorted(by_query)}


def _closeness(system, items, item_rows: np.ndarray, sets: list[np.ndarray]) -> np.ndarray:
    """:func:`~fashionrq.systems.t2.set_closeness` of every pair's item within its query's candidate set
    (computed once per distinct set: the queries of one T2 unit share theirs), minus the set's mean."""
    closeness, done = np.zeros(len(item_rows)), {}
    for at in sets:
        key = tuple(sorted(item_rows[at].tolist()))
        if key not in done:
            rows = np.asarray(key, dtype=np.int64)
            texts = [item_text(row) for row in items.take(rows).to_pylist()]
            done[key] = dict(zip(key, set_closeness(system, texts, rows)))
        closeness[at] = [done[key][row] for row in item_rows[at].tolist()]
    return within_sets(closeness, sets)[1]


def _t2_features(bench: Release, system, reranker, rows_of: _Rows, items) -> tuple[list[dict], np.ndarray]:
    """T2 pairs and their label-free features (:data:`~fashionrq.systems.t2.FIRST_STAGE_FEATURES`, then with a
    reranker :data:`~fashionrq.systems.t2.RERANKER_FEATURES`)."""
    pairs, text_of, at_of = _t2_pairs(bench)
    qids, sets = list(at_of), list(at_of.values())
    item_rows = rows_of([p["item_id"] for p in pairs])
    features = np.zeros((len(pairs), len(FIRST_STAGE_FEATURES) + (len(RERANKER_FEATURES) if reranker is not None else 0)))
    all_rows = np.arange(items.num_rows)
    chunks = range(0, len(qids), T2_CHUNK)
    for start in track(chunks, f"{system.name}: T2 pairs", total=len(chunks)):
        chunk = qids[start:start + T2_CHUNK]
        corpus = system.score_batch([text_of[q] for q in chunk], [all_rows] * len(chunk))
        for qid, scores in zip(chunk, corpus):
            scores = np.asarray(scores, dtype=np.float64)
            at = at_of[qid]
            features[at, 0] = scores[item_rows[at]]
            features[at, 1] = corpus_percentile(scores, features[at, 0])
    features[:, 2], features[:, 3] = within_sets(features[:, 0], sets)
    features[:, 4] = _closeness(system, items, item_rows, sets)
    if reranker is not None:
        first = len(FIRST_STAGE_FEATURES)
        features[:, first] = reranker.score_pairs([text_of[p["qid"]] for p in pairs], item_rows)
        features[:, first + 1], features[:, first + 2] = within_sets(features[:, first], sets)
    if not np.all(np.isfinite(features)):
        raise FashionRQError(f"system '{system.name}' returned non-finite T2 scores; fix its score().")
    return pairs, features


def calibrated_t2(bench: Release, pairs: list[dict], features: np.ndarray, calibrator: GradeCalibrator) -> list[dict]:
    """Fit ``calibrator`` on the public dev labels of ``pairs`` (rows of ``features``) and label every test pair
    (none when the release has no T2 pair: a catalog too small for a dev/test split gets no T2)."""
    if not pairs:
        return []
    dev = {r["pair_id"]: int(r["label"]) for r in bench.jsonl(T2_DEV_LABELS)}
    split = {p["pair_id"]: p.get("split") for p in pairs}
    leaked = sorted(pair for pair in dev if split.get(pair) != "dev")
    if leaked:
        raise InputError(f"{bench.path('t2_dev_labels.jsonl')} labels pair {leaked[0]}, which is not a dev pair of t2_pairs.jsonl; rebuild the release.")
    fit = np.flatnonzero([p["pair_id"] in dev for p in pairs])
    calibrator.fit(features[fit], np.array([dev[pairs[i]["pair_id"]] for i in fit]))
    test = np.flatnonzero([p.get("split") == "test" for p in pairs])
    labels, expected = calibrator.predict(features[test])
    return [{"pair_id": pairs[i]["pair_id"], "label": int(label), "score": round(float(score), 6)}
            for i, label, score in zip(test, labels, expected)]


def open_depth(bench: Release) -> int:
    """Items per open-corpus T1 query, as the release's manifest registers it (protocol.open_depth; 100 in a sealed
    child's staged copy, which holds public/ only)."""
    manifest = bench.manifest if (bench.root / MANIFEST).is_file() else {}
    return int(manifest.get("protocol", {}).get("open_depth", 100))


@dataclass(frozen=True)
class Output:
    """One run folder the sealed child writes: the first stage alone (``reranker`` None) or the two-stage run."""

    folder: Path
    name: str
    reranker: object = None

    @property
    def tag(self) -> str:
        return _tag(self.name)

    def scores(self, texts, rows, first, item_ids: np.ndarray, depth: int) -> list[np.ndarray]:
        return first if self.reranker is None else rerank(self.reranker, texts, rows, first, item_ids, depth)


def _open_corpus(bench: Release, system, item_ids: np.ndarray, outputs: list[Output], depth: int, job) -> dict:
    """Open-corpus T1: the top ``open_depth`` catalog items per query through the system's cached index
    (``systems.open_search.corpus_search`` on the job's engine and index); a two-stage output reranks their top
    ``depth``. Returns the index record (kind, backend and, for hnsw/ivf, recall against exact search)."""
    from fashionrq.systems.index import IndexConfig
    from fashionrq.systems.open_search import corpus_search

    queries = bench.jsonl(queries_file("t1o"))
    qids, texts = [q["qid"] for q in queries], [q["text"] for q in queries]
    engine = None
    if job.engine is not None:
        from fashionrq.engine import get_engine

        engine = get_engine(job.engine, job.address, job.chunk_rows)
    hits = corpus_search(system, texts, open_depth(bench), IndexConfig(kind=job.index), engine)
    first = [np.asarray(s, dtype=np.float64) for s in hits.scores]
    for output in outputs:
        write_trec(output.folder / TASKS["t1o"].run_file, qids, [list(item_ids[rs]) for rs in hits.rows],
                   output.scores(texts, hits.rows, first, item_ids, depth), output.tag)
    return hits.index


#: Subfolder of the child's output where a two-stage job also writes its first stage alone.
FIRST_STAGE = "first-stage"


def execute_job(job, public: Path, out: Path) -> dict[str, dict]:
    """Inside the sealed child: one :class:`~fashionrq.systems.sealed.Job` (:func:`execute`) or a
    :class:`~fashionrq.systems.sealed.Batch` (:func:`execute_batch`)."""
    from fashionrq.systems.sealed import Batch

    return execute_batch(job.jobs, public, out) if isinstance(job, Batch) else execute(job, public, out)


def execute_batch(jobs, public: Path, out: Path) -> dict[str, dict]:
    """Inside the sealed child: each job in turn, job ``i`` into ``out/<i>`` (its records keyed ``<i>``, and
    ``<i>/<subfolder>`` for a first stage); the pool systems share one read of the public view."""
    shared: dict = {}
    records = {}
    for i, job in enumerate(track(jobs, f"sealed runs of {len(jobs)} systems", total=len(jobs))):
        (out / str(i)).mkdir()
        records.update({str(Path(str(i), key)): record for key, record in execute(job, public, out / str(i), shared).items()})
    return records


def execute(job, public: Path, out: Path, shared: dict | None = None) -> dict[str, dict]:
    """Inside the sealed child: build the job's systems, fit them on the staged public files, write ``out/*``.

    Returns ``{subfolder: run record}`` (system, config; the parent adds release and isolation): ``""`` for
    ``out``, and for a two-stage job with ``job.first_stage`` also :data:`FIRST_STAGE`, the first stage alone.
    ``shared``: what the jobs of one batch share (the public view a pool system reads).
    """
    from fashionrq.systems.registry import get_reranker, get_system

    system = get_system(job.system, **job.params) if isinstance(job.system, str) else as_retriever(job.system)
    reranker = job.reranker
    if isinstance(reranker, str):
        reranker = get_reranker(reranker, **job.reranker_params)
    elif reranker is not None:
        reranker = check_reranker(reranker, type(reranker).__name__)
    calibrator = job.calibrator or GradeCalibrator()
    bench = Release(public.parent, verify=False, release=job.release)
    if hasattr(system, "score_pool"):
        from fashionrq.systems.probes.run import execute_pool, public_view

        if reranker is not None:
            raise InputError(f"system '{system.name}' scores whole pools from the public files and takes no reranker; drop --rerank.")
        return {"": execute_pool(bench, system, out, calibrator, public_view(bench, shared))}
    items = candidate_view(bench.items(), job.regime)  # what candidates show in the job's regime
    rows_of = _Rows(items.column("item_id").to_pylist(), bench.path("items.parquet"))
    system.fit(items)
    if reranker is not None:
        reranker.fit(items)
    outputs = _outputs(system, reranker, out, job.first_stage)
    index = _write_runs(bench, system, reranker, rows_of, items, outputs, job, calibrator)
    records = {}
    for key, output in outputs.items():
        config = {"system_config": system.config() if hasattr(system, "config") else {}, "regime": job.regime,
                  "rerank": {**output.reranker.config(), "depth": job.depth} if output.reranker is not None else None,
                  "t2": {**calibrator.config(), "features": _t2_feature_names(output)}, "open_corpus_index": index}
        records[key] = {"system": output.name, "config": config}
    return records


def _t2_feature_names(output: Output) -> list[str]:
    return [*FIRST_STAGE_FEATURES, *(RERANKER_FEATURES if output.reranker is not None else ())]


def _outputs(system, reranker, out: Path, first_stage: bool) -> dict[str, Output]:
    if reranker is None:
        return {"": Output(out, system.name)}
    outputs = {"": Output(out, f"{system.name}+{reranker.name}", reranker)}
    if first_stage:
        (out / FIRST_STAGE).mkdir()
        outputs[FIRST_STAGE] = Output(out / FIRST_STAGE, system.name)
    return outputs


def _write_runs(bench: Release, system, reranker, rows_of: _Rows, items, outputs: dict[str, Output], job,
                calibrator: GradeCalibrator) -> dict:
    """Every output's ranking files and T2 labels; the first stage is scored once for all of them. Returns the
    open-corpus index record."""
    depth = job.depth
    item_ids = np.asarray(rows_of.item_ids, dtype=object)
    for task in tasks_of(*POOLED_KINDS):
        qids, texts, cands = ranking_task(bench, task)
        rows = [rows_of(pool) for pool in cands]
        first = _first_scores(system, texts, rows)
        for output in outputs.values():
            write_trec(output.folder / f"{task}.run", qids, cands, output.scores(texts, rows, first, item_ids, depth), output.tag)
    index = _open_corpus(bench, system, item_ids, list(outputs.values()), depth, job)
    pairs, features = _t2_features(bench, system, reranker, rows_of, items)
    for output in outputs.values():
        columns = features if output.reranker is not None else features[:, :len(FIRST_STAGE_FEATURES)]
        atomic_write_jsonl(output.folder / TASKS["t2"].run_file, calibrated_t2(bench, pairs, columns, calibrator))
    return index


def check_search(engine: str | None, address: str | None, chunk_rows: int, index: str) -> None:
    """Refuse a bad ``--engine``/``--address``/``--chunk-rows``/``--index`` before the sealed child starts."""
    from fashionrq.systems.index import INDEX_KINDS

    if index not in INDEX_KINDS:
        raise InputError(f"--index {index!r} is unknown: use {', '.join(INDEX_KINDS)}.")
    if engine is None:
        if address is not None:
            raise InputError("--address names a Ray cluster; it needs --engine ray.")
        return
    from fashionrq.engine import get_engine

    get_engine(engine, address, chunk_rows)  # validates, and fails fast without ray


def _label(system, reranker) -> str:
    names = [s if isinstance(s, str) else getattr(s, "name", type(s).__name__) for s in (system, reranker) if s is not None]
    return "'" + "+".join(map(str, names)) + "'"


def run_system(
    bench: str | Path,
    system: str | Retriever,
    out: str | Path,
    reranker=None,
    regime: str = "text",
    calibrator: GradeCalibrator | None = None,
    *,
    depth: int = DEFAULT_DEPTH,
    first_stage_out: str | Path | None = None,
    params: dict | None = None,
    reranker_params: dict | None = None,
    engine: str | None = None,
    address: str | None = None,
    chunk_rows: int = 4096,
    index: str = "exact",
    force: bool = False,
    limits: Limits = Limits(),
) -> dict:
    """Run ``system`` sealed (see :mod:`fashionrq.systems.sealed`) over BENCH/public/ and write the run folder ``out``.

    ``system`` and ``reranker`` are names (``get_system``/``get_reranker`` specs, built inside the sealed
    child with ``params``/``reranker_params``) or instances (pickled to the child). The child fits the
    system on the items, ranks T1/T3/T4 candidates and classifies T2 test pairs. With ``reranker`` (a
    :class:`~fashionrq.systems.twostage.PointwiseReranker`) the run is two-stage: each query's top ``depth``
    candidates are re-sorted by the reranker's pair scores, ties by first-stage rank, and ``first_stage_out``
    (optional) receives the first stage alone, the very run ``system`` without a reranker writes, at no
    extra first-stage cost. Writes ``run.json`` (with ``isolation``: the mechanism that held), ``t1o.run``
    (the top ``protocol.open_depth`` catalog items per open-corpus query), ``t1.run``, ``t3.run``, ``t4.run``
    and ``t2.jsonl`` into a new folder ``out`` (an existing one is refused unless ``force``; a committed run
    or a folder inside a release never) and returns run.json.

    Open-corpus T1 searches the system's cached index (``index``: ``exact`` faiss ``IndexFlatIP`` or numpy, or the
    approximate ``hnsw``/``ivf``, whose recall against exact search run.json records); ``engine`` (``local`` or
    ``ray``, with ``address``/``chunk_rows``) runs dense query encoding and search in engine chunks, byte-identical
    on both; ``None`` searches in the sealed process itself. ``limits``: the child's wall-clock and memory limits.
    """
    from fashionrq.systems.sealed import Job, run_sealed, staged_public

    check_regime(regime)
    depth = check_depth(depth)
    check_search(engine, address, chunk_rows, index)
    targets = _targets(out, first_stage_out, reranker, force)
    public = Release(bench)
    job = Job(system, dict(params or {}), reranker, dict(reranker_params or {}), regime, calibrator, public.release,
              depth, first_stage_out is not None, engine, address, chunk_rows, index)
    with staged_public(public.public, photos=regime != "text") as work:  # the text regime shows no photo
        records, isolation = run_sealed(job, Path(bench), work, _label(system, reranker), limits)
        runs = {key: _run_record(records, key, public.release, isolation) for key in targets}
        for key, target in targets.items():
            _write_run_folder(work / "out", key, target, runs[key], bench)
    return runs[""]


def run_systems(bench: str | Path, runs: Mapping[str | Path, tuple[str | Retriever, dict]], *, regime: str = "text",
                force: bool = False, limits: Limits = Limits()) -> dict[Path, dict]:
    """Run several systems sealed in ONE child process over one private copy of BENCH/public/: one start-up, and one
    read of the public view for every pool system (the probes). ``runs``: run folder -> ``(system, params)``.

    Each folder gets exactly the files ``run_system(bench, system, folder, regime=regime, params=params)`` writes
    (no reranker, exact open-corpus search); returns each folder's run.json.
    """
    from fashionrq.systems.sealed import Batch, Job, run_sealed, staged_public

    check_regime(regime)
    targets = [Path(out) for out in runs]
    if len({target.resolve() for target in targets}) < len(targets):
        raise InputError("two runs of one batch name the same run folder; give each system its own folder.")
    for target in targets:
        _targets(target, None, None, force)
    public = Release(bench)
    jobs = tuple(Job(system, dict(params), regime=regime, release=public.release, depth=DEFAULT_DEPTH) for system, params in runs.values())
    with staged_public(public.public, photos=regime != "text") as work:  # the text regime shows no photo
        label = ", ".join(_label(system, None) for system, _ in runs.values())
        records, isolation = run_sealed(Batch(jobs), Path(bench), work, label, limits)
        written = {target: _run_record(records, str(i), public.release, isolation) for i, target in enumerate(targets)}
        for i, target in enumerate(targets):
            _write_run_folder(work / "out", str(i), target, written[target], bench)
    return written


def _run_record(records: dict[str, dict], key: str, release: str, isolation: dict) -> dict:
    """run.json of the child's subfolder ``key``: its system and config, with the release and isolation this process knows."""
    if key not in records:
        raise FashionRQError(f"the sealed child reported no run for {key or 'its output'}; the system broke the run.")
    return {**records[key], "release": release, "isolation": isolation}


def _write_run_folder(out: Path, key: str, target: Path, record: dict, bench: str | Path) -> None:
    """The run folder ``target``: the child's run files from ``out/key`` (plain files only, read without following a
    link, each validated against the public pools) and ``record`` as run.json."""
    from fashionrq.protocol.validate import load_pools, validate_run
    from fashionrq.systems.sealed import read_child_file

    with atomic_directory(target, force=True, what="run folder") as tmp:
        for name in run_files().values():
            data = read_child_file(out, (*Path(key).parts, name))
            if data is None:
                raise FashionRQError(f"the sealed child wrote no {name} for {record['system'][:80]}; the system broke the run.")
            (tmp / name).write_bytes(data)
        validate_run(tmp, load_pools(bench))
        atomic_write_json(tmp / RUN_JSON, record)


def _targets(out, first_stage_out, reranker, force: bool) -> dict[str, Path]:
    """``{child subfolder: run folder}``, each checked as a new run folder (see :func:`run_system`)."""

    targets = {"": Path(out)}
    if first_stage_out is not None:
        if reranker is None:
            raise InputError("a first-stage folder needs a second stage: add --rerank, or drop --first-stage-out.")
        targets[FIRST_STAGE] = Path(first_stage_out)
        if targets[FIRST_STAGE].resolve() == targets[""].resolve():
            raise InputError(f"--first-stage-out {first_stage_out} is --out itself; give the first stage its own folder.")
    for target in targets.values():
        refuse_committed(target)
        check_folder_output(target, force, "run folder")
    return targets
