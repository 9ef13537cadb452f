"""Write the frozen release ``BENCH/`` (public files, labels, manifest) and the end-to-end ``build_release``."""

from __future__ import annotations

import gc
import hashlib
import json
from dataclasses import asdict
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.catalog import write_items
from fashionrq.catalog.synth import is_synthetic
from fashionrq.errors import InputError
from fashionrq.hierarchy import Hierarchy, build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.io import atomic_writer, sha256_file
from fashionrq.tasks.construct import TaskConfig, Tasks, build_tasks
from fashionrq.timing import stage

MANIFEST = "manifest.json"
RELEASE_FORMAT = 1
_PACKAGES = ("fashionrq", "numpy", "pandas", "pyarrow", "scikit-learn", "torch", "sentence-transformers")


def sha256_array(array: np.ndarray) -> str:
    """sha256 of an array's dtype, shape and bytes."""
    array = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(array.tobytes())
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _jsonl(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("".join(_ENCODE(row) + "\n" for row in rows))


def _sorted_lines(path: Path, lines: list[str]) -> None:
    """Write preformatted lines in string order: qrels ``"qid 0 item_id grade"`` (qids have one width and
    item ids no whitespace, so this is (qid, item_id) order) or JSON lines that start with their id."""
    lines.sort()
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + ("\n" if lines else ""))


def _opaque(rng: np.random.Generator, n: int, prefix: str) -> list[str]:
    """``n`` ids ``prefix0001…`` in a seeded random order, so an id says nothing about the row it names."""
    width = max(len(str(n)), 4)
    return [f"{prefix}{i + 1:0{width}d}" for i in rng.permutation(n)]


def check_out(out: str | Path, force: bool = False) -> Path:
    """The output folder: refused inside another release, when it exists (unless ``force``), and, even with
    ``force``, when it holds anything but a release (a build never replaces other data)."""
    from fashionrq.io import refuse_existing
    from fashionrq.protocol.manifest import refuse_in_release

    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST).is_file())):
        raise InputError(f"output folder {out} exists and is not a release; pass a new folder to --out.")
    if out.exists() and any(out.iterdir()):
        refuse_existing(out, force, "release folder")
    if out.parent != out:
        refuse_in_release(out.parent, "release folder")
    return out


def write_release(
    out: str | Path,
    items: pa.Table,
    sids: np.ndarray,
    hierarchy: Hierarchy,
    tasks: Tasks,
    phi: list[dict],
    seed: int,
    manifest_info: dict,
    force: bool = False,
) -> Path:
    """Write ``out/public``, ``out/labels`` and ``out/manifest.json``; return the manifest path.

    The release is written into a temporary folder beside ``out`` and renamed into place when complete, so
    an interrupted build leaves no half-written release; ``force`` replaces an existing release.
    """
    from fashionrq.io import atomic_directory

    check_out(out, force)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a million small rows: collection passes would cost more than the writing
    try:
        with atomic_directory(out, force=True, what="release folder") as tmp:
            _write_release(tmp, items, sids, hierarchy, tasks, phi, seed, manifest_info)
        return Path(out) / MANIFEST
    finally:
        if gc_was_enabled:
            gc.enable()


def _write_release(out, items, sids, hierarchy, tasks, phi, seed, manifest_info) -> Path:
    from fashionrq.sid import write_sids

    out = Path(out)
    public, labels = out / "public", out / "labels"
    public.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, 7])
    item_ids = items.column("item_id").to_pylist()
    if any(len(i.split()) != 1 for i in item_ids):
        bad = next(i for i in item_ids if len(i.split()) != 1)
        raise InputError(f"item_id {bad!r} contains whitespace, which TREC qrels cannot hold; map item ids without spaces in the catalog mapping.")
    queries = tasks.queries

    # Opaque ids: one qid per (task, query) row; T2 has one qid per query with pairs.
    t2_queries = sorted({p["query"] for p in tasks.t2})
    t4_rows = [(gi, qi) for gi, g in enumerate(tasks.t4) for qi in g["queries"]]
    rows = [("t1", i) for i in range(len(tasks.t1))] + [("t2", q) for q in t2_queries] + \
           [("t3", i) for i in range(len(tasks.t3))] + [("t4", i) for i in range(len(t4_rows))]
    qids = dict(zip(rows, _opaque(rng, len(rows), "q")))
    pids = _opaque(rng, len(tasks.t2), "p")
    gids = _opaque(rng, len(tasks.t4), "g")

    meta: list[dict] = []
    phi_rows: list[dict] = []

    def remember(qid: str, task: str, qi: int) -> None:
        q = queries[qi]
        meta.append({"qid": qid, "task": task, "cluster": q.leaf, "leaf": q.leaf, "level": q.leaf.count("-") + 1,
                     "covers": q.covers, "source": q.source})
        phi_rows.append({"qid": qid, "phi": phi[qi], "expressed": sorted(q.expressed)})

    # T1
    t1_q, t1_c, t1_qrels = [], [], []
    for i, inst in enumerate(tasks.t1):
        qid = qids[("t1", i)]
        t1_q.append({"qid": qid, "text": queries[inst["query"]].text})
        t1_c.append({"qid": qid, "candidates": [item_ids[r] for r in inst["candidates"]]})
        t1_qrels += [f"{qid} 0 {item_ids[r]} {g}" for r, g in zip(inst["candidates"], inst["grades"])]
        remember(qid, "t1", inst["query"])
    # T2
    t2_q = []
    for q in t2_queries:
        qid = qids[("t2", q)]
        t2_q.append({"qid": qid, "text": queries[q].text})
        remember(qid, "t2", q)
    # The (many) T2 rows are formatted directly; only the catalog's item id needs JSON escaping.
    t2_pairs, t2_dev, t2_test = [], [], []
    for pid, pair in zip(pids, tasks.t2):
        item = _ENCODE(item_ids[pair["row"]])
        t2_pairs.append(f'{{"pair_id": "{pid}", "qid": "{qids[("t2", pair["query"])]}", "item_id": {item}, "split": "{pair["split"]}"}}')
        (t2_dev if pair["split"] == "dev" else t2_test).append(f'{{"pair_id": "{pid}", "label": {pair["grade"]}}}')
    # T3
    t3_q, t3_qrels = [], []
    for i, inst in enumerate(tasks.t3):
        qid = qids[("t3", i)]
        t3_q.append({"qid": qid, "text": queries[inst["query"]].text, "candidates": [item_ids[r] for r in inst["candidates"]]})
        t3_qrels += [f"{qid} 0 {item_ids[r]} {g}" for r, g in zip(inst["candidates"], inst["grades"])]
        remember(qid, "t3", inst["query"])
    # T4
    t4_q, t4_g, t4_qrels = [], [], []
    for gid, group in zip(gids, tasks.t4):
        t4_g.append({"group_id": gid, "candidates": [item_ids[r] for r in group["candidates"]]})
    for i, (gi, qi) in enumerate(t4_rows):
        qid = qids[("t4", i)]
        group = tasks.t4[gi]
        t4_q.append({"qid": qid, "text": queries[qi].text, "group_id": gids[gi]})
        t4_qrels += [f"{qid} 0 {item_ids[r]} {g}" for r, g in zip(group["candidates"], group["grades"])]
        remember(qid, "t4", qi)

    def by(key: str, rows: list[dict]) -> list[dict]:
        return sorted(rows, key=lambda r: r[key])

    write_items(items, public / "items.parquet")
    _jsonl(public / "t1_queries.jsonl", by("qid", t1_q))
    _jsonl(public / "t1_candidates.jsonl", by("qid", t1_c))
    _jsonl(public / "t2_queries.jsonl", by("qid", t2_q))
    _sorted_lines(public / "t2_pairs.jsonl", t2_pairs)
    _sorted_lines(public / "t2_dev_labels.jsonl", t2_dev)
    _jsonl(public / "t3_queries.jsonl", by("qid", t3_q))
    _jsonl(public / "t4_queries.jsonl", by("qid", t4_q))
    _jsonl(public / "t4_groups.jsonl", by("group_id", t4_g))
    _sorted_lines(labels / "t1.qrels", t1_qrels)
    _sorted_lines(labels / "t3.qrels", t3_qrels)
    _sorted_lines(labels / "t4.qrels", t4_qrels)
    _sorted_lines(labels / "t2_test.jsonl", t2_test)
    _jsonl(labels / "phi.jsonl", by("qid", phi_rows))
    _jsonl(labels / "queries.jsonl", by("qid", meta))
    pq.write_table(pa.Table.from_pandas(hierarchy.to_frame(), preserve_index=False), labels / "clusters.parquet",
                   compression="zstd", write_statistics=False)
    write_sids(item_ids, sids, labels / "sids.parquet")

    files = {p.relative_to(out).as_posix(): sha256_file(p) for p in sorted(out.rglob("*")) if p.is_file() and p.name != MANIFEST}
    counts = {
        "items": items.num_rows,
        "clusters": hierarchy.level_counts(),
        "queries": {"anchor": len(queries), "t1": len(t1_q), "t2": len(t2_q), "t3": len(t3_q), "t4": len(t4_q)},
        "t1_candidates": len(t1_qrels),
        "t2_pairs": {"dev": len(t2_dev), "test": len(t2_test)},
        "t3_candidates": len(t3_qrels),
        "t4_groups": len(t4_g),
    }
    manifest = {
        "format": RELEASE_FORMAT,
        **manifest_info,
        "seed": seed,
        "versions": _versions(),
        "counts": counts,
        "files": files,
    }
    manifest.setdefault("report", {})["tasks"] = tasks.report
    path = out / MANIFEST
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def check_backend(backend: str, seed: int, llm_options: dict | None = None) -> None:
    """Fail before any work when the query backend is unknown or (``llm``) has no endpoint configured."""
    from fashionrq.tasks.queries import BACKENDS

    if backend not in BACKENDS:
        raise InputError(f"unknown queries backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
    if backend == "llm":
        from fashionrq.querygen import LLMBackend

        LLMBackend(seed=seed, **(llm_options or {}))  # raises InputError naming the FASHIONRQ_LLM_* variables when unset


def construct_release(
    out: str | Path,
    items: pa.Table,
    sids: np.ndarray,
    seed: int = 0,
    queries_backend: str = "verbalizer",
    min_purity: float = 0.80,
    min_size: int = 2,
    task_config: TaskConfig = TaskConfig(),
    manifest_info: dict | None = None,
    llm_options: dict | None = None,
    force: bool = False,
) -> Path:
    """The construction stage: items + SIDs -> hierarchy -> queries -> tasks -> ``out``; returns the manifest path.

    ``llm_options``: keyword arguments of ``querygen.LLMBackend`` for ``queries_backend="llm"``."""
    from fashionrq.tasks.queries import anchor_queries

    check_out(out, force)
    check_backend(queries_backend, seed, llm_options)
    with stage("hierarchy"):
        frame = items_frame(items)
        hierarchy = build_hierarchy(frame, sids, min_purity=min_purity, min_size=min_size)
    with stage("queries"):
        queries, phi, query_report = anchor_queries(hierarchy, frame, backend=queries_backend, seed=seed,
                                                   max_leaves=task_config.max_anchor_leaves, llm_options=llm_options)
    with stage("tasks"):
        tasks = build_tasks(hierarchy, queries, task_config, seed=seed)
    info = dict(manifest_info or {})
    info.setdefault("config", {}).update({
        "queries_backend": queries_backend, "hierarchy": hierarchy.config, "tasks": asdict(task_config),
    })
    info.setdefault("report", {})["querygen"] = query_report
    info["sids_sha256"] = sha256_array(np.asarray(sids, dtype=np.int64))
    with stage("write release"):
        return write_release(out, items, sids, hierarchy, tasks, phi, seed, info, force)


def build_release(
    catalog: str | Path = "bundled",
    out: str | Path = "BENCH",
    encoder: str = "minilm",
    sid_method: str = "rqvae",
    seed: int = 0,
    queries_backend: str = "verbalizer",
    levels: int = 3,
    codebook_size: int = 64,
    min_purity: float = 0.80,
    min_size: int = 2,
    task_config: TaskConfig = TaskConfig(),
    sid_params: dict | None = None,
    cache_dir: str | Path | None = None,
    ingested=None,
    mapping: str | Path | None = None,
    llm_options: dict | None = None,
    embeddings: str | Path | None = None,
    force: bool = False,
) -> Path:
    """ingest -> embed -> SIDs -> hierarchy -> queries -> tasks -> frozen release in ``out``; returns the manifest path.

    ``mapping``: the TOML mapping file of a catalog in another schema (see docs/catalog.md).
    ``llm_options``: keyword arguments of ``querygen.LLMBackend`` (``max_concurrency``, ``timeout``, ``max_tokens``,
    ``max_failure_rate`` ...) for ``queries_backend="llm"``.
    ``ingested``: the ``IngestResult`` of ``catalog`` when the caller already has it (it is not ingested again).
    ``embeddings``: a file of precomputed item vectors (``fashionrq.encoders.given``) used instead of ``encoder``.
    An existing release in ``out`` is refused unless ``force``.
    """
    from fashionrq.catalog import ingest
    from fashionrq.encoders.given import item_vectors

    if levels != 3:
        raise InputError(f"the benchmark tasks need levels=3 (got {levels}); rebuild with --levels 3.")
    check_out(out, force)
    check_backend(queries_backend, seed, llm_options)
    result = ingested if ingested is not None else ingest(catalog, mapping=mapping)
    items = result.table
    with stage(f"read embeddings ({Path(embeddings).name})" if embeddings is not None else f"encode items ({encoder})"):
        X, encoder_info = item_vectors(items, encoder, embeddings, cache_dir)
    with stage(f"SID training ({sid_method})"):
        sids, tokenizer_config = semantic_ids(items, X, sid_method, levels, codebook_size, seed, sid_params or {}, cache_dir)
    info = {
        "config": {"catalog": str(catalog), "mapping": str(mapping) if mapping else None, "encoder": encoder_info["name"],
                   "sid_method": sid_method, "levels": levels, "codebook_size": codebook_size,
                   "min_purity": min_purity, "min_size": min_size},
        "catalog": {"source": result.report.source, "items": items.num_rows, "synthetic": is_synthetic(items),
                    **result.report.counts()},
        "encoder": {**encoder_info, "embeddings_sha256": sha256_array(np.asarray(X))},
        "tokenizer": tokenizer_config,
    }
    return construct_release(out, items, sids, seed=seed, queries_backend=queries_backend, min_purity=min_purity,
                             min_size=min_size, task_config=task_config, manifest_info=info, llm_options=llm_options,
                             force=force)


def semantic_ids(items: pa.Table, X: np.ndarray, method: str, levels: int, codebook_size: int, seed: int,
                 params: dict, cache_dir: str | Path | None = None) -> tuple[np.ndarray, dict]:
    """Fit the tokenizer on ``X`` and return the SIDs and the tokenizer's config, cached on disk by content."""
    from fashionrq.encoders import default_cache_dir
    from fashionrq.sid import attributes_from_items, make_tokenizer

    tokenizer = make_tokenizer(method, levels=levels, codebook_size=codebook_size, seed=seed, **params)
    config = tokenizer.config() if hasattr(tokenizer, "config") else {"method": method}
    key = hashlib.sha256((sha256_array(np.asarray(X)) + json.dumps(config, sort_keys=True)).encode()).hexdigest()[:32]
    path = Path(cache_dir or default_cache_dir()) / "sids" / f"{method}-{key}.npy"
    sids = _cached_sids(path, len(X))
    if sids is None:
        names = [a for a in getattr(tokenizer, "level_attributes", ()) if a]
        sids = tokenizer.fit(X, attributes_from_items(items, names) if names else None).transform(X)
        with atomic_writer(path, "wb") as handle:
            np.save(handle, sids)
    return sids, {"config": config, "cache_key": key}


def _cached_sids(path: Path, rows: int) -> np.ndarray | None:
    """The cached SIDs at ``path``, or None when absent; an unreadable or wrong-sized file is reported and recomputed."""
    if not path.is_file():
        return None
    try:
        sids = np.load(path, allow_pickle=False)
        if sids.ndim == 2 and len(sids) == rows:
            return sids
    except (OSError, ValueError, EOFError):
        pass
    from fashionrq.progress import console

    console.print(f"SID cache file {path} is damaged (an interrupted write?); recomputing it.", soft_wrap=True)
    return None
