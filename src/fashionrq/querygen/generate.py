"""``generate_queries`` / ``generate_all``: the entry points the benchmark builder calls."""

from __future__ import annotations

import multiprocessing
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor

import pandas as pd
import pyarrow as pa

from fashionrq.errors import InputError
from fashionrq.hierarchy import Cluster
from fashionrq.limits import available_cores
from fashionrq.progress import track
from fashionrq.querygen.enrich import normalise_query
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.querygen.evidence import MIN_SUPPORT, CatalogValues, required_subtypes
from fashionrq.querygen.llm import ChatResult, LLMBackend, parse_generation_answer
from fashionrq.querygen.parser import LexiconParser
from fashionrq.querygen.prompt import GENERATION_SCHEMA, generation_messages
from fashionrq.querygen.records import GeneratedQuery, QuerySet
from fashionrq.querygen.verbalizer import MAX_QUERIES, verbalize

VERBALIZER = "verbalizer"


def _check(clusters: Sequence[Cluster], frame: pd.DataFrame, backend) -> None:
    for cluster in clusters:
        if cluster.item_rows and max(cluster.item_rows) >= len(frame):
            raise InputError(f"cluster {cluster.cluster_id} refers to item row {max(cluster.item_rows)} but the items table has {len(frame)} rows; pass the items table the hierarchy was built from.")
    if backend != VERBALIZER and not isinstance(backend, LLMBackend):
        raise InputError(f"unknown query backend {backend!r}; pass 'verbalizer' or an LLMBackend.")


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _covered(answer, required: list[str], queries: list[str], parser: LexiconParser) -> tuple[list[str], dict[str, str]]:
    """Required types the coverage map (or, for free-text answers, the parsed queries) leaves uncovered, and
    each query's covered type."""
    by_key = {_key(t): t for t in required}
    covers: dict[str, str] = {}
    covered: set[str] = set()
    if answer.coverage_map is not None:
        norm = {normalise_query(q): q for q in queries}
        for name, refs in answer.coverage_map.items():
            refs = refs if isinstance(refs, list) else [refs]
            hits = []
            for ref in refs:
                if isinstance(ref, int) and not isinstance(ref, bool) and 0 <= ref < len(queries):
                    hits.append(queries[ref])
                elif isinstance(ref, str) and normalise_query(ref) in norm:
                    hits.append(norm[normalise_query(ref)])
            required_name = by_key.get(_key(str(name)))
            if hits and required_name is not None:
                covered.add(required_name)
                for q in hits:
                    covers.setdefault(q, required_name)
    else:
        for q, phi in zip(queries, parser.parse_many(queries)):
            for t in phi["product_type"] or ():
                if t in required:
                    covered.add(t)
                    covers.setdefault(q, t)
    return [t for t in required if t not in covered], covers


def _from_answer(cluster: Cluster, frame: pd.DataFrame, catalog: CatalogValues, result: ChatResult, backend: LLMBackend,
                 parser: LexiconParser, seed: int, siblings) -> QuerySet:
    if not result.ok:
        fallback = verbalize(cluster, frame, seed=seed, catalog=catalog, siblings=siblings)
        fallback.failed = 1
        return fallback
    answer = parse_generation_answer(result.text)
    queries: list[str] = []
    seen: set[str] = set()
    for q in answer.queries:
        if normalise_query(q) not in seen:
            seen.add(normalise_query(q))
            queries.append(q)
    queries = queries[:MAX_QUERIES]
    if not queries:
        fallback = verbalize(cluster, frame, seed=seed, catalog=catalog, siblings=siblings)
        fallback.malformed = 1
        return fallback
    ev = catalog.evidence(cluster.item_rows)
    required = [t for t, _ in required_subtypes(cluster, ev)]
    gaps, covers = _covered(answer, required, queries, parser)
    out = []
    unsupported = []
    for text, phi in zip(queries, parser.parse_many(queries)):
        expressed = {k: v for k, v in phi.items() if v}
        # naming required sub-types is the coverage rule, not a universal claim; every other value needs 90 %
        claims = {k: v for k, v in expressed.items() if not (k == "product_type" and set(v) <= set(required))}
        if any(s < MIN_SUPPORT for s in ev.clause_support(claims).values()):
            unsupported.append(text)
        out.append(GeneratedQuery(text, cluster.cluster_id, expressed, covers.get(text), f"llm:{backend.model}"))
    return QuerySet(cluster.cluster_id, out, coverage_gaps=gaps, malformed=int(answer.malformed), unsupported=unsupported)


def generate_all(clusters: Sequence[Cluster], items: pd.DataFrame | pa.Table, backend=VERBALIZER, seed: int = 0,
                 parser: LexiconParser | None = None, siblings: Mapping[str, Sequence] | None = None,
                 processes: int | None = None) -> list[QuerySet]:
    """Queries of many clusters (LLM calls run concurrently); ``parser`` reads what LLM queries express.
    ``processes``: the verbalizer's processes, 1 or 2 (default: 2 from :data:`PARALLEL_MIN_CLUSTERS` clusters on a
    second core); the queries are the same either way.

    A failed LLM call, or an answer without a single query, falls back to the verbalizer for that cluster
    and is counted in ``QuerySet.failed`` / ``QuerySet.malformed``. ``siblings`` maps a cluster id to the item rows
    of each of its sibling leaves, which the verbalizer's queries are sharpened against.
    """
    frame = items_frame(items)
    _check(clusters, frame, backend)
    catalog = CatalogValues(frame)
    siblings = siblings or {}
    if backend == VERBALIZER:
        return _verbalize_all(clusters, frame, seed, catalog, siblings, processes)
    parser = parser or LexiconParser(frame)
    results = backend.chat_many([generation_messages(c, frame, seed, catalog) for c in clusters], schema=GENERATION_SCHEMA)
    return [_from_answer(c, frame, catalog, r, backend, parser, seed, siblings.get(c.cluster_id, ()))
            for c, r in zip(clusters, results)]


#: The verbalizer shares the clusters with a second process when there are at least this many and a second core:
#: the bundled catalog's 3,000 leaves take about 25 s on one core, and the second process costs about 2 s to start.
PARALLEL_MIN_CLUSTERS = 400


def _verbalize_all(clusters: Sequence[Cluster], frame: pd.DataFrame, seed: int, catalog: CatalogValues,
                   siblings: Mapping[str, Sequence], processes: int | None = None) -> list[QuerySet]:
    """:func:`verbalize` of every cluster, in order. Each cluster's queries depend on that cluster alone (its own
    random stream), so with 2 ``processes`` every other cluster goes to a second process and the result is the same."""
    if processes not in (None, 1, 2):
        raise InputError(f"processes={processes!r}: the verbalizer runs in 1 or 2 processes (or None: chosen by size).")
    if processes is None:
        processes = 2 if len(clusters) >= PARALLEL_MIN_CLUSTERS and available_cores() > 1 else 1
    if processes == 1:
        return _verbalize_part(clusters, frame, seed, catalog, siblings, progress=True)
    theirs = clusters[1::2]
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending = pool.submit(_verbalize_part, theirs, frame, seed, catalog, {c.cluster_id: siblings.get(c.cluster_id, ()) for c in theirs})
        mine = _verbalize_part(clusters[0::2], frame, seed, catalog, siblings, progress=True)
        out = [None] * len(clusters)
        out[0::2], out[1::2] = mine, pending.result()
    return out


def _verbalize_part(clusters: Sequence[Cluster], frame: pd.DataFrame, seed: int, catalog: CatalogValues,
                    siblings: Mapping[str, Sequence], progress: bool = False) -> list[QuerySet]:
    shown = track(clusters, "Writing queries", total=len(clusters)) if progress else clusters
    return [verbalize(c, frame, seed=seed, catalog=catalog, siblings=siblings.get(c.cluster_id, ())) for c in shown]


def generate_queries(cluster: Cluster, items: pd.DataFrame | pa.Table, backend=VERBALIZER, seed: int = 0) -> QuerySet:
    """6-12 shopper queries for one cluster; ``backend`` is ``"verbalizer"`` (offline default) or an ``LLMBackend``."""
    return generate_all([cluster], items, backend=backend, seed=seed)[0]
