"""Write the frozen release ``BENCH/`` (public files, labels, manifest) and the end-to-end ``build_release``."""

from __future__ import annotations

import gc
import json
from dataclasses import asdict, replace
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.catalog import ingest, write_items
from fashionrq.catalog.report import missing_counts, types_nearly_one_each
from fashionrq.catalog.synth import is_synthetic
from fashionrq.catalog.tiers import price_tiers_of
from fashionrq.encoders.given import item_vectors
from fashionrq.errors import InputError, WeakReleaseError
from fashionrq.hierarchy import Hierarchy, build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.images.store import catalog_vocabulary, extract_items, photographed
from fashionrq.io import READABLE_JSON, atomic_directory, atomic_write_jsonl, link_or_copy, refuse_existing, sha256_file
from fashionrq.layout import (
    CLUSTERS, ITEM_IDS, ITEMS, LABELS, MANIFEST, MCMR, PHI, PHOTOS, PUBLIC, QUERY_RECORDS, SIDS, T2_DEV_LABELS, T2_PAIRS, T2_TEST, T4_GROUPS,
    candidates_file, label_file, public_file, qrels_file, queries_file, refuse_in_release,
)
from fashionrq.limits import available_cores
from fashionrq.querygen.evidence import CatalogValues
from fashionrq.querygen.mcmr import ConstraintMatches
from fashionrq.querygen.surface import said_list
from fashionrq.release import with_digest
from fashionrq.relevance.fullmatch import FullMatch
from fashionrq.relevance.matcher import shipped_weights
from fashionrq.relevance.similarity import SIMILARITY_ENCODER
from fashionrq.sid import write_sids
from fashionrq.tasks.buildconfig import BuildConfig
from fashionrq.tasks.construct import TierIndex, build_tasks
from fashionrq.tasks.queries import anchor_queries, hidden_phis, parser_agreement, verbalize_undescribed_leaves
from fashionrq.tasks.records import Tasks
from fashionrq.taskspec import MIN_UNITS
from fashionrq.tasks.secret import ConstructionSecret
from fashionrq.tasks.sids import sha256_array
from fashionrq.tasks.tree import fit_tree
from fashionrq.tasks.validity import QueryMatches, query_grades
from fashionrq.taskspec import TASKS, headlines
from fashionrq.timing import stage

RELEASE_FORMAT = 3
_PACKAGES = ("fashionrq", "numpy", "pandas", "pyarrow", "scikit-learn", "torch", "sentence-transformers")


def _versions() -> dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


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
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST).is_file())):
        raise InputError(f"output folder {out} exists and is not a release; pass a new folder to --out.")
    if out.exists() and any(out.iterdir()):
        refuse_existing(out, force, "release folder")
    if out.parent != out:
        refuse_in_release(out.parent, "release folder")
    return out


def write_release(config: BuildConfig, items: pa.Table, sids: np.ndarray, hierarchy: Hierarchy, tasks: Tasks,
                  phi: dict[int, dict], manifest_info: dict) -> Path:
    """Write ``config.out``'s ``public/``, ``labels/`` and ``manifest.json``; return the manifest path.

    ``phi`` maps each used query index to its hidden φ(q); ``config.secret`` seeds the opaque ids (and is stored in
    labels/). The release is written into a temporary folder beside ``out`` and renamed into place when complete, so
    an interrupted build leaves no half-written release; ``config.force`` replaces an existing release.
    """
    check_out(config.out, config.force)  # just before the swap: a long build never replaces a folder made meanwhile
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a million small rows: collection passes would cost more than the writing
    try:
        with atomic_directory(config.out, force=True, what="release folder") as tmp:
            _write_release(tmp, items, sids, hierarchy, tasks, phi, config.secret, manifest_info)
        return Path(config.out) / MANIFEST
    finally:
        if gc_was_enabled:
            gc.enable()


class _Writer:
    """Collects the rows of every release file; opaque ids come from one seeded permutation per id kind."""

    def __init__(self, tasks: Tasks, item_ids: list[str], phi: dict[int, dict], rng: np.random.Generator) -> None:
        self.tasks, self.item_ids, self.phi = tasks, item_ids, phi
        t2_queries = sorted({p.query for p in tasks.t2})
        rows = [("t1", i) for i in range(len(tasks.t1))] + [("t1o", i) for i in range(len(tasks.t1o))] + \
               [("t2", q) for q in t2_queries] + [("t3", i) for i in range(len(tasks.t3))] + \
               [("t4", n) for n in range(sum(len(g.queries) for g in tasks.t4))]
        self.qids = dict(zip(rows, _opaque(rng, len(rows), "q")))
        self.t2_queries = t2_queries
        self.files: dict[str, list] = {}
        self.meta: list[dict] = []
        self.phi_rows: list[dict] = []
        self.mcmr_rows: list[dict] = []

    def remember(self, qid: str, task: str, qi: int, unit: str) -> None:
        q = self.tasks.queries[qi]
        self.meta.append({"qid": qid, "task": task, "cluster": q.leaf, "leaf": q.leaf, "level": q.leaf.count("-") + 1,
                          "unit": unit, "covers": q.covers, "source": q.source, "held_out": list(q.held_out)})
        self.phi_rows.append({"qid": qid, "phi": self.phi[qi], "expressed": sorted(k for k, v in self.phi[qi].items() if v)})
        if q.constraints is not None:
            self.mcmr_rows.append({"qid": qid, "task": task, **q.constraints.to_dict()})

    def qrels(self, qid: str, rows, grades) -> list[str]:
        return [f"{qid} 0 {self.item_ids[r]} {g}" for r, g in zip(rows, grades)]

    def ranking(self, task: str, insts, pooled_file: bool) -> None:
        """T1 (queries + candidates files) or T3 (candidates inside the queries file) and their qrels."""
        queries, cands, qrels = [], [], []
        for i, inst in enumerate(insts):
            qid, qi = self.qids[(task, i)], inst.queries[0]
            ids = [self.item_ids[r] for r in inst.candidates]
            if pooled_file:
                queries.append({"qid": qid, "text": self.tasks.queries[qi].text})
                cands.append({"qid": qid, "candidates": ids})
            else:
                queries.append({"qid": qid, "text": self.tasks.queries[qi].text, "candidates": ids})
            qrels += self.qrels(qid, inst.candidates, inst.grades)
            self.remember(qid, task, qi, inst.unit)
        self.files[public_file(queries_file(task))] = queries
        if pooled_file:
            self.files[public_file(candidates_file(task))] = cands
        self.files[label_file(qrels_file(task))] = qrels

    def open_corpus(self, index: TierIndex, out: Path, matches: QueryMatches | None) -> None:
        """Open-corpus T1: query texts only; qrels grade every item sharing the anchor's level-1 prefix and every
        full match of the query (at least grade 2, :func:`fashionrq.tasks.validity.credited`).

        The qrels (queries x a level-1 cluster: tens of millions of lines at 10^6 items) are written as they are
        formed, one query at a time in qid order, each line built by Arrow, never held as Python strings."""
        queries, order = [], []
        for i, oq in enumerate(self.tasks.t1o):
            qid = self.qids[("t1o", i)]
            queries.append({"qid": qid, "text": self.tasks.queries[oq.query].text})
            order.append((qid, oq.leaf, oq.query))
            self.remember(qid, "t1o", oq.query, oq.unit)
        self.files[public_file(queries_file("t1o"))] = queries
        self.t1o_judged = _write_open_qrels(out / label_file(qrels_file("t1o")), sorted(order), index, self.item_ids, matches)

    def pairs(self, rng: np.random.Generator) -> None:
        """T2: one qid per query with pairs, opaque pair ids, public dev labels, hidden test labels."""
        queries, pairs, dev, test = [], [], [], []
        for q in self.t2_queries:
            qid = self.qids[("t2", q)]
            queries.append({"qid": qid, "text": self.tasks.queries[q].text})
        units = {p.query: p.unit for p in self.tasks.t2}
        for q in self.t2_queries:
            self.remember(self.qids[("t2", q)], "t2", q, units[q])
        for pid, pair in zip(_opaque(rng, len(self.tasks.t2), "p"), self.tasks.t2):
            item = READABLE_JSON(self.item_ids[pair.row])
            pairs.append(f'{{"pair_id": "{pid}", "qid": "{self.qids[("t2", pair.query)]}", "item_id": {item}, "split": "{pair.split}"}}')
            (dev if pair.split == "dev" else test).append(f'{{"pair_id": "{pid}", "label": {pair.grade}}}')
        self.files[public_file(queries_file("t2"))] = queries
        self.files[public_file(T2_PAIRS)] = pairs
        self.files[public_file(T2_DEV_LABELS)] = dev
        self.files[label_file(T2_TEST)] = test

    def groups(self, rng: np.random.Generator) -> None:
        """T4: paraphrase groups with one shared pool (the T1 pool of their leaf), each query graded as in T1 (an
        Exact candidate that contradicts it is a Sibling for it: :func:`~fashionrq.tasks.validity.query_grades`)."""
        gids = _opaque(rng, len(self.tasks.t4), "g")
        groups, queries, qrels = [], [], []
        n = 0
        for gid, group in zip(gids, self.tasks.t4):
            groups.append({"group_id": gid, "candidates": [self.item_ids[r] for r in group.candidates]})
            for qi in group.queries:
                qid = self.qids[("t4", n)]
                n += 1
                queries.append({"qid": qid, "text": self.tasks.queries[qi].text, "group_id": gid})
                qrels += self.qrels(qid, group.candidates, query_grades(self.tasks.matches, qi, group.candidates, group.grades))
                self.remember(qid, "t4", qi, group.unit)
        self.files[public_file(queries_file("t4"))] = queries
        self.files[public_file(T4_GROUPS)] = groups
        self.files[label_file(qrels_file("t4"))] = qrels

    def write(self, out: Path) -> None:
        self.files[label_file(PHI)] = self.phi_rows
        self.files[label_file(QUERY_RECORDS)] = self.meta
        if self.mcmr_rows:
            self.files[label_file(MCMR)] = self.mcmr_rows
        for name, rows in sorted(self.files.items()):
            if rows and isinstance(rows[0], str):
                _sorted_lines(out / name, rows)
            else:
                key = "group_id" if name == public_file(T4_GROUPS) else "qid"
                atomic_write_jsonl(out / name, sorted(rows, key=lambda r: r[key]), READABLE_JSON)


def _write_open_qrels(path: Path, queries: list[tuple[str, str, int]], index: TierIndex, item_ids: list[str],
                      matches: QueryMatches | None) -> int:
    """Write ``"qid 0 item_id grade"`` for every (qid, leaf, query index) of ``queries`` (sorted by qid): every item of
    the leaf's level-1 prefix and every full match of the query (:meth:`QueryMatches.grades`), in (qid, item_id)
    order; return the line count."""
    import pyarrow.compute as pc

    ids = pa.array(item_ids, pa.string())
    by_id = np.asarray(pc.sort_indices(ids), dtype=np.int64)  # rows in item_id (code point) order
    rank = np.empty(len(by_id), dtype=np.int64)
    rank[by_id] = np.arange(len(by_id))
    grades = pa.array([f" {g}\n" for g in range(4)])
    lines = 0
    with open(path, "wb") as fh:
        for qid, leaf, qi in queries:
            rows = index.rows(leaf.split("-")[0])
            full = None if matches is None else matches.mask(qi)
            if full is not None:
                rows = np.union1d(rows, np.flatnonzero(full))
            graded = index.grade(leaf, rows) if full is None else matches.grades(qi, index.grade(leaf, rows), rows, full[rows])
            order = np.argsort(rank[rows], kind="stable")
            text = pc.binary_join_element_wise(pa.scalar(f"{qid} 0 "), ids.take(rows[order]),
                                               grades.take(pa.array(graded[order])), "")
            _, offsets, data = text.buffers()
            ends = np.frombuffer(offsets, dtype=np.int32, count=len(text) + 1, offset=4 * text.offset)
            fh.write(memoryview(data)[int(ends[0]):int(ends[-1])])
            lines += len(rows)
    return lines


class PublicItems(NamedTuple):
    """The catalog under opaque ids: ``ids[r]`` names catalog row ``r``; ``order`` lists the catalog rows in id order,
    the order of ``table`` (the public items) and ``id_map`` (public id -> catalog id, a label)."""

    ids: list[str]
    order: np.ndarray
    table: pa.Table
    id_map: pa.Table


def public_items(items: pa.Table, rng: np.random.Generator) -> PublicItems:
    """Opaque ids ``i00001…`` for the catalog's rows from a seeded permutation, and the items table under them with
    its rows sorted by id, so that neither ids nor rows keep the catalog's order (neighbouring catalog rows are
    often one product line)."""
    ids = _opaque(rng, items.num_rows, "i")
    order = np.argsort(np.asarray(ids), kind="stable")
    opaque = pa.array(ids, pa.string())
    index = items.schema.get_field_index("item_id")
    table = items.set_column(index, items.schema.field(index), opaque).take(order)
    return PublicItems(ids, order, table, pa.table({"item_id": opaque, "catalog_id": items.column("item_id")}).take(order))


def _write_release(out, items, sids, hierarchy, tasks, phi, secret: ConstructionSecret, manifest_info) -> Path:
    out = Path(out)
    public, labels = out / PUBLIC, out / LABELS
    public.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    rng = secret.rng("release-ids")
    published = public_items(items, secret.rng("item-ids"))
    writer = _Writer(tasks, published.ids, phi, rng)
    writer.ranking("t1", tasks.t1, pooled_file=True)
    writer.open_corpus(TierIndex(hierarchy), out, tasks.matches)
    writer.pairs(rng)
    writer.ranking("t3", tasks.t3, pooled_file=False)
    writer.groups(rng)
    items, photos = publish_photos(published.table, public)
    write_items(items, public / ITEMS)
    writer.write(out)
    pq.write_table(pa.Table.from_pandas(hierarchy.to_frame(), preserve_index=False), labels / CLUSTERS,
                   compression="zstd", write_statistics=False)
    write_sids(published.id_map.column("item_id").to_pylist(), sids[published.order], labels / SIDS)
    pq.write_table(published.id_map, labels / ITEM_IDS, compression="zstd", write_statistics=False)
    secret.write(labels)
    return _write_manifest(out, items, hierarchy, tasks, writer, secret, manifest_info, photos)


def publish_photos(items: pa.Table, public: Path) -> tuple[pa.Table, dict]:
    """Every photo as ``public/images/<public item id><suffix>``, and ``image_path`` pointing there relative to
    public/: a catalog's photo file name is often its catalog id (Myntra's is), which the release must not carry.

    A photo is a hard link to the catalog's file where the filesystem allows, else a copy (same bytes either way,
    so the manifest does not depend on it). Returns the table and ``{"count", "bytes"}`` of the photos.
    """
    relative, total = {}, 0
    for item_id, source in photographed(items):  # refuses a photo that is not a file, naming its item
        name = f"{item_id}{Path(source).suffix.lower()}"
        (public / PHOTOS).mkdir(exist_ok=True)
        link_or_copy(source, public / PHOTOS / name)
        relative[item_id] = f"{PHOTOS}/{name}"
        total += Path(source).stat().st_size
    index = items.schema.get_field_index("image_path")
    paths = pa.array([relative.get(i) for i in items.column("item_id").to_pylist()], pa.string())
    return items.set_column(index, items.schema.field(index), paths), {"count": len(relative), "bytes": total}


def _write_manifest(out: Path, items, hierarchy, tasks: Tasks, writer: _Writer, secret: ConstructionSecret, manifest_info: dict,
                    photos: dict) -> Path:
    files = {p.relative_to(out).as_posix(): sha256_file(p) for p in sorted(out.rglob("*")) if p.is_file() and p.name != MANIFEST}
    f = writer.files
    counts = {
        "items": items.num_rows,
        "clusters": hierarchy.level_counts(),
        "queries": {"anchor": len(tasks.used_queries()), **{t: len(f[public_file(queries_file(t))]) for t in ("t1", "t1o", "t2", "t3", "t4")}},
        "t1_candidates": len(f[label_file(qrels_file("t1"))]),
        "t1o_judged": writer.t1o_judged,
        "t2_pairs": {"dev": len(f[public_file(T2_DEV_LABELS)]), "test": len(f[label_file(T2_TEST)])},
        "t3_candidates": len(f[label_file(qrels_file("t3"))]),
        "t4_groups": len(f[public_file(T4_GROUPS)]),
        "photos": photos,
    }
    manifest = {"format": RELEASE_FORMAT, **manifest_info, "seed": secret.seed, "versions": _versions(), "counts": counts,
                "files": files, "protocol": protocol_record(tasks, tasks.report["open_depth"])}
    manifest.setdefault("construction", {})["secret"] = secret.record()
    manifest.setdefault("report", {})["tasks"] = tasks.report
    # the tiers public/items.parquet records too (its schema metadata), so a parser reading the release uses them
    manifest.setdefault("catalog", {})["price_tiers"] = price_tiers_of(items).to_dict()

    path = out / MANIFEST
    path.write_text(json.dumps(with_digest(manifest), indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def protocol_record(tasks: Tasks, open_depth: int) -> dict:
    """What the protocol fixes before any run: headline metric and bootstrap unit per task, open-corpus depth."""
    units = tasks.report.get("bootstrap_units", {})
    return {"headline": headlines(), "open_depth": open_depth,
            "bootstrap_unit": {key: {"unit": TASKS[key].bootstrap_unit, "n_units": units.get(key, 0)} for key in sorted(TASKS)}}


def construct_release(config: BuildConfig, items: pa.Table, sids: np.ndarray, *, vectors: np.ndarray | None = None,
                      manifest_info: dict | None = None) -> Path:
    """The construction stage: items + SIDs -> hierarchy -> queries -> tasks -> ``config.out``; returns the manifest path.

    Of ``config`` it reads the output, seed and secret, queries backend (and ``llm_options``), cluster qualification,
    task sizes, ``cache_dir`` and the quality gate (``allow_weak``: write the release even when a task has fewer than
    ``MIN_UNITS`` bootstrap units; :func:`check_quality` refuses it otherwise, before anything is written).
    ``vectors``: the construction encoder's item vectors, used to draw hard negatives (docs/benchmark.md).
    """
    check_out(config.out, config.force)
    return _construct(config, items, sids, vectors, manifest_info)


def _construct(config: BuildConfig, items: pa.Table, sids: np.ndarray, vectors: np.ndarray | None,
               manifest_info: dict | None) -> Path:
    """:func:`construct_release` once ``config.out`` has been checked."""
    queries_backend, llm_options, task_config = config.queries_backend, config.llm_options, config.task_config
    seed = config.secret.construction_seed
    with stage("hierarchy"):
        frame = items_frame(items)
        hierarchy = build_hierarchy(frame, sids, min_purity=config.min_purity, min_size=config.min_size)
    with stage("queries"):
        photos = _photos(items, config.cache_dir) if queries_backend == "mcmr" else None
        queries, query_report = anchor_queries(hierarchy, frame, backend=queries_backend, seed=seed, llm_options=llm_options,
                                               max_leaves=task_config.query_leaves, photos=photos)
    with stage("tasks"):
        phi, phi_report = hidden_phis(queries, list(range(len(queries))), queries_backend, seed, llm_options)
        full = None if queries_backend == "mcmr" else FullMatch(CatalogValues(frame))
        if queries_backend == "llm":
            queries, phi, query_report["verbalized_undescribed_leaves"] = verbalize_undescribed_leaves(
                hierarchy, frame, queries, phi, full, seed)
        vectors = None if vectors is None else np.asarray(vectors, dtype=np.float32)
        tasks = build_tasks(hierarchy, queries, task_config, seed=seed, embeddings=vectors,
                            matches=None if full is None else QueryMatches(full, [phi[qi] for qi in range(len(queries))]))
        if queries_backend == "mcmr":  # MCMR relevance: every condition satisfied (open-corpus grades only)
            tasks = replace(tasks, matches=ConstraintMatches(frame, photos, queries))
        tasks.report["open_depth"] = task_config.open_depth
        check_quality(tasks.report["bootstrap_units"], config.out, config.allow_weak, items)
        used = tasks.used_queries()
        query_report.update(phi_report, kept_in_tasks=len(used))
        query_report["parser_agreement"], query_report["parser_agreement_lexicon_worded"] = parser_agreement(
            [queries[qi] for qi in used], [phi[qi] for qi in used], frame)
    info = dict(manifest_info or {})
    info.setdefault("config", {}).update({
        "queries_backend": queries_backend, "hierarchy": hierarchy.config, "tasks": asdict(task_config),
    })
    info.setdefault("report", {})["querygen"] = query_report
    info.setdefault("construction", {})["components"] = construction_components(info)
    info["sids_sha256"] = sha256_array(np.asarray(sids, dtype=np.int64))
    with stage("write release"):
        return write_release(config, items, sids, hierarchy, tasks, phi, info)


def weak_tasks(units: dict[str, int]) -> dict[str, int]:
    """The tasks with fewer than ``MIN_UNITS`` bootstrap units, and their unit counts (docs/benchmark.md, "Quality gate")."""
    return {task: n for task, n in units.items() if n < MIN_UNITS}


#: The item fields a query may ask about beyond its type, gender and price, as the refusal names them.
DESCRIBING_FIELDS = {"brand": "brand", "base_colour": "colour", "usage": "usage", "attributes": "attributes"}


def check_quality(units: dict[str, int], out: str | Path, allow_weak: bool, items: pa.Table | None = None) -> None:
    """The quality gate: refuse a release with a weak task (:func:`weak_tasks`) unless ``allow_weak``; the fix it
    names first is to map a column of types when ``items`` have nearly one type each (the name read as the type), or to
    map more fields when they lack nearly every field that describes an item beyond its type, gender and price."""
    weak = weak_tasks(units)
    if weak and not allow_weak:
        counts = ", ".join(f"{task} {n}" for task, n in units.items())
        missing = missing_counts(items) if items is not None and items.num_rows else {}
        lacking = [word for field, word in DESCRIBING_FIELDS.items() if missing and missing[field] >= 0.9 * items.num_rows]
        fix = "give the catalog more items per product type"
        if len(lacking) >= 3:
            said = ["a type"] + [word for field, word in (("gender", "gender"), ("price", "price")) if missing[field] < 0.9 * items.num_rows]
            fix = (f"its items have no {said_list(lacking)} (nine in ten or more), so its queries can ask "
                   f"for little but {said_list(said, ' and ')}, which tell few clusters apart: map those fields if the catalog "
                   f"has them (docs/catalog.md), or {fix}")
        if items is not None and (types := types_nearly_one_each(items)) is not None:
            fix = (f"its {items.num_rows:,} items have {types:,} product types, nearly one each, so no type groups items: map "
                   "article_type to a column of types, not to the name (docs/catalog.md, \"Types only in the names\")")
        raise WeakReleaseError(
            f"the release would give {', '.join(weak)} fewer than {MIN_UNITS} bootstrap units, too few for a meaningful "
            f"interval (units per task: {counts}), so nothing was written to {out}; {fix}, or rebuild with --allow-weak (in "
            "Python, allow_weak=True) to write it anyway, its weak tasks flagged by compare and the report.")


def _photos(items: pa.Table, cache_dir: str | Path | None):
    """The derived image attributes of ``items``, named with the catalog's colour vocabulary (extracted on every
    core when not cached; the release's sealed image and fused runs read them from the same cache entry)."""
    return extract_items(items, cache_dir=cache_dir, workers=available_cores(), vocabulary=catalog_vocabulary(items))


def photographed_only(result) -> tuple[pa.Table, dict]:
    """The items of an ingest result that have a photo (an MCMR release is built on them) and what was dropped."""
    import pyarrow.compute as pc

    items = result.table
    kept = items.filter(pc.is_valid(items.column("image_path")))
    if kept.num_rows == 0:
        raise InputError(f"catalog {result.report.source} has no item with a photo, which an MCMR release needs; point "
                         "the Myntra reader at the images with --images or map an image column.")
    return kept, {"items_with_photo": kept.num_rows, "items_without_photo_dropped": items.num_rows - kept.num_rows}


def construction_components(info: dict) -> dict:
    """Models the construction used: a system built on one of them is flagged on the leaderboard (docs/benchmark.md)."""
    backend = info.get("config", {}).get("queries_backend")
    return {
        "sid_encoder": info.get("encoder", {}).get("name"),
        "hard_negative_encoder": info.get("encoder", {}).get("name"),
        "comparator_similarity": SIMILARITY_ENCODER,
        "weight_oracle": shipped_weights().get("oracle"),
        "phi": info.get("report", {}).get("querygen", {}).get("phi_source"),
        # the verbalizer writes each asserted value in one of querygen.surface's spellings, which the public
        # LexiconParser reads back: a system calling that parser recovers the hidden φ of verbalizer queries
        "phi_lexicon": "querygen.surface" if backend == "verbalizer" else None,
        "query_generator": backend,
    }


def build_release(config: BuildConfig, *, ingested=None) -> Path:
    """ingest -> embed -> SIDs -> hierarchy -> queries -> tasks -> frozen release in ``config.out``; returns the
    manifest path. :class:`~fashionrq.tasks.buildconfig.BuildConfig` describes the settings. ``ingested``: the
    ``IngestResult`` of ``config.catalog`` when the caller already has it (it is not ingested again).
    """
    c = config
    check_out(c.out, c.force)
    result = ingested if ingested is not None else ingest(c.catalog, mapping=c.mapping, images=c.images)
    items, subset = photographed_only(result) if c.queries_backend == "mcmr" else (result.table, {})
    with stage(f"read embeddings ({Path(c.embeddings).name})" if c.embeddings is not None else f"encode items ({c.encoder})"):
        X, encoder_info = item_vectors(items, c.encoder, c.embeddings, c.cache_dir)
    with stage(f"SID training ({c.sid_method})"):
        sids, tokenizer_config, construction = fit_tree(items, X, c.sid_method, c.codebook_size, c.secret.tokenizer_seed,
                                                        c.sid_params, c.cache_dir, max(c.task_config.per_tier, c.min_size),
                                                        plan_units(c, items, X), split=c.split_leaves)
    info = {
        "config": {"catalog": _name_of(c.catalog), "mapping": _name_of(c.mapping) if c.mapping else None,
                   **({"images": _name_of(c.images)} if c.images is not None else {}), "encoder": encoder_info["name"], "sid_method": c.sid_method, "levels": c.levels,
                   "codebook_size": construction["codebook"]["size"], "min_purity": c.min_purity, "min_size": c.min_size},
        "construction": construction,
        "catalog": {"source": _name_of(result.report.source), "items": items.num_rows, "synthetic": is_synthetic(items),
                    **result.report.counts(), **subset},
        "encoder": {**encoder_info, "embeddings_sha256": sha256_array(np.asarray(X))},
        "tokenizer": c.secret.redact(tokenizer_config),
    }
    return _construct(c, items, sids, X if isinstance(X, np.ndarray) else None, info)


def plan_units(config: BuildConfig, items: pa.Table, X: np.ndarray):
    """What :func:`fashionrq.tasks.tree.fit_tree` compares codebook sizes by: ``units(sids)``, the bootstrap units per
    task of the task plan those SIDs give, with the verbalizer's queries whatever the build's backend (an LLM is not
    asked once per candidate size) and the construction's seed, so on a verbalizer build the chosen size's units are
    the release's."""
    task_config, seed = config.task_config, config.secret.construction_seed
    frame = items_frame(items)
    full = FullMatch(CatalogValues(frame))
    vectors = np.asarray(X, dtype=np.float32)

    def units(sids: np.ndarray) -> dict[str, int]:
        hierarchy = build_hierarchy(frame, sids, min_purity=config.min_purity, min_size=config.min_size)
        queries, _ = anchor_queries(hierarchy, frame, backend="verbalizer", seed=seed, max_leaves=task_config.query_leaves)
        phi, _ = hidden_phis(queries, list(range(len(queries))), "verbalizer", seed)
        matches = QueryMatches(full, [phi[qi] for qi in range(len(queries))])
        return build_tasks(hierarchy, queries, task_config, seed=seed, embeddings=vectors, matches=matches).report["bootstrap_units"]

    return units


def _name_of(source: str | Path) -> str:
    """A catalog, mapping or photo folder as the manifest names it: its file or folder name (or ``bundled``), never its path, so the
    same inputs give the same manifest wherever they sit, and the builder's folders stay out of the release."""
    return Path(str(source)).name or str(source)
