"""``run_system``: score every task of a release with one system, sealed in a child process that sees only BENCH/public/."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fashionrq.engine import get_engine
from fashionrq.errors import FashionRQError, InputError
from fashionrq.io import atomic_directory, atomic_write_json
from fashionrq.layout import RUN_JSON, check_folder_output
from fashionrq.limits import Limits
from fashionrq.release import Release
from fashionrq.systems.base import Retriever
from fashionrq.systems.index import INDEX_KINDS
from fashionrq.systems.job import FIRST_STAGE, Batch, Job
from fashionrq.systems.regimes import check_regime
from fashionrq.systems.sealed import read_child_file, run_sealed, staged_public
from fashionrq.systems.t2 import GradeCalibrator
from fashionrq.systems.twostage import DEFAULT_DEPTH, check_depth
from fashionrq.taskspec import refuse_committed, run_files


def check_search(engine: str | None, address: str | None, chunk_rows: int, index: str) -> None:
    """Refuse a bad ``--engine``/``--address``/``--chunk-rows``/``--index`` before the sealed child starts."""
    if index not in INDEX_KINDS:
        raise InputError(f"--index {index!r} is unknown: use {', '.join(INDEX_KINDS)}.")
    if engine is None:
        if address is not None:
            raise InputError("--address names a Ray cluster; it needs --engine ray.")
        return
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
    # deferred: pyarrow.compute (run validation; the sealed child, which imports this module, never validates)
    from fashionrq.protocol.validate import load_pools, validate_run

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
