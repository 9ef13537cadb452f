"""Inside the sealed child: build a job's systems, fit them on the staged public files and write its run files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fashionrq.encoders.text import item_text
from fashionrq.engine import get_engine
from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_write_jsonl
from fashionrq.layout import T2_PAIRS, queries_file
from fashionrq.progress import track
from fashionrq.release import Release
from fashionrq.systems.adapter import as_retriever
from fashionrq.systems.index import IndexConfig
from fashionrq.systems.job import FIRST_STAGE, Batch, Job
from fashionrq.systems.open_search import corpus_search
from fashionrq.systems.registry import get_reranker, get_system
from fashionrq.systems.regimes import candidate_view
from fashionrq.systems.runfiles import calibrated_t2, open_depth, ranking_task, run_tag, write_trec
from fashionrq.systems.t2 import (FIRST_STAGE_FEATURES, RERANKER_FEATURES, GradeCalibrator, corpus_percentile, set_closeness,
                                  within_sets)
from fashionrq.systems.twostage import check_reranker, rerank
from fashionrq.taskspec import POOLED_KINDS, TASKS, tasks_of

#: Queries scored per call in T2 corpus scoring (bounds memory at chunk x corpus size floats).
T2_CHUNK = 64


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


@dataclass(frozen=True)
class Output:
    """One run folder the sealed child writes: the first stage alone (``reranker`` None) or the two-stage run."""

    folder: Path
    name: str
    reranker: object = None

    @property
    def tag(self) -> str:
        return run_tag(self.name)

    def scores(self, texts, rows, first, item_ids: np.ndarray, depth: int) -> list[np.ndarray]:
        return first if self.reranker is None else rerank(self.reranker, texts, rows, first, item_ids, depth)


def _open_corpus(bench: Release, system, item_ids: np.ndarray, outputs: list[Output], depth: int, job: Job) -> dict:
    """Open-corpus T1: the top ``open_depth`` catalog items per query through the system's cached index
    (``systems.open_search.corpus_search`` on the job's engine and index); a two-stage output reranks their top
    ``depth``. Returns the index record (kind, backend and, for hnsw/ivf, recall against exact search)."""
    queries = bench.jsonl(queries_file("t1o"))
    qids, texts = [q["qid"] for q in queries], [q["text"] for q in queries]
    engine = None if job.engine is None else get_engine(job.engine, job.address, job.chunk_rows)
    hits = corpus_search(system, texts, open_depth(bench), IndexConfig(kind=job.index), engine)
    first = [np.asarray(s, dtype=np.float64) for s in hits.scores]
    for output in outputs:
        write_trec(output.folder / TASKS["t1o"].run_file, qids, [list(item_ids[rs]) for rs in hits.rows],
                   output.scores(texts, hits.rows, first, item_ids, depth), output.tag)
    return hits.index


def execute_job(job: Job | Batch, public: Path, out: Path) -> dict[str, dict]:
    """Inside the sealed child: one :class:`~fashionrq.systems.job.Job` (:func:`execute`) or a
    :class:`~fashionrq.systems.job.Batch` (:func:`execute_batch`)."""
    return execute_batch(job.jobs, public, out) if isinstance(job, Batch) else execute(job, public, out)


def execute_batch(jobs: tuple[Job, ...], public: Path, out: Path) -> dict[str, dict]:
    """Inside the sealed child: each job in turn, job ``i`` into ``out/<i>`` (its records keyed ``<i>``, and
    ``<i>/<subfolder>`` for a first stage); the pool systems share one read of the public view."""
    shared: dict = {}
    records = {}
    for i, job in enumerate(track(jobs, f"sealed runs of {len(jobs)} systems", total=len(jobs))):
        (out / str(i)).mkdir()
        records.update({str(Path(str(i), key)): record for key, record in execute(job, public, out / str(i), shared).items()})
    return records


def execute(job: Job, public: Path, out: Path, shared: dict | None = None) -> dict[str, dict]:
    """Inside the sealed child: build the job's systems, fit them on the staged public files, write ``out/*``.

    Returns ``{subfolder: run record}`` (system, config; the parent adds release and isolation): ``""`` for
    ``out``, and for a two-stage job with ``job.first_stage`` also :data:`FIRST_STAGE`, the first stage alone.
    ``shared``: what the jobs of one batch share (the public view a pool system reads).
    """
    system = get_system(job.system, **job.params) if isinstance(job.system, str) else as_retriever(job.system)
    reranker = job.reranker
    if isinstance(reranker, str):
        reranker = get_reranker(reranker, **job.reranker_params)
    elif reranker is not None:
        reranker = check_reranker(reranker, type(reranker).__name__)
    calibrator = job.calibrator or GradeCalibrator()
    bench = Release(public.parent, verify=False, release=job.release)
    if hasattr(system, "score_pool"):
        # deferred: scikit-learn (the probes' k-means, fashionrq.sid.kmeans), which no other system needs at start-up
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
