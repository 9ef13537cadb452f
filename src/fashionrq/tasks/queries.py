"""Queries of the anchor (qualified leaf) clusters: generate, deduplicate globally, enrich with φ(q)."""

from __future__ import annotations

import random
from collections import Counter

import pandas as pd

from fashionrq.errors import InputError
from fashionrq.progress import console
from fashionrq.hierarchy import Hierarchy
from fashionrq.tasks.construct import AnchorQuery

BACKENDS = ("verbalizer", "llm")


def deduplicate(queries: list[AnchorQuery]) -> tuple[list[AnchorQuery], dict[str, int]]:
    """Drop repeated texts (keyed by ``querygen.normalise_query``): a text generated for two different leaves
    is ambiguous and dropped everywhere; repeats within one leaf keep their first occurrence."""
    from fashionrq.querygen import normalise_query

    leaves: dict[str, set[str]] = {}
    for q in queries:
        leaves.setdefault(normalise_query(q.text), set()).add(q.leaf)
    seen: set[str] = set()
    kept: list[AnchorQuery] = []
    cross = within = 0
    for q in queries:
        key = normalise_query(q.text)
        if len(leaves[key]) > 1:
            cross += 1
        elif key in seen:
            within += 1
        else:
            seen.add(key)
            kept.append(q)
    return kept, {"generated": len(queries), "dropped_cross_cluster": cross, "dropped_within_cluster": within, "kept": len(kept)}


def sample_leaves(queries: list[AnchorQuery], max_leaves: int | None, seed: int) -> list[AnchorQuery]:
    """Keep the queries of a seeded sample of at most ``max_leaves`` anchor leaves (all of them when ``None``)."""
    leaves = sorted({q.leaf for q in queries}, key=lambda p: tuple(int(c) for c in p.split("-")))
    if max_leaves is None or len(leaves) <= max_leaves:
        return queries
    kept = set(random.Random(seed).sample(leaves, max_leaves))
    return [q for q in queries if q.leaf in kept]


def anchor_queries(hierarchy: Hierarchy, items: pd.DataFrame, backend: str = "verbalizer", seed: int = 0,
                   max_leaves: int | None = None, llm_options: dict | None = None) -> tuple[list[AnchorQuery], list[dict], dict]:
    """Generate queries for every qualified leaf, deduplicate them globally and enrich each with φ(q).

    Deduplication runs over every leaf's queries (a text two leaves share is ambiguous and dropped) before
    ``max_leaves`` anchor leaves are sampled with ``seed``, so the sample keeps only unambiguous queries.

    ``backend="llm"`` uses ``querygen.LLMBackend`` (configured by the ``FASHIONRQ_LLM_*`` variables, and
    ``llm_options``: its keyword arguments such as ``max_concurrency``, ``timeout``, ``max_tokens``) for both
    generation and enrichment; ``"verbalizer"`` is offline and deterministic. Returns the queries, their φ
    dicts (aligned) and a report (counts, malformed/failed LLM answers, coverage gaps).
    """
    from fashionrq import querygen

    if backend not in BACKENDS:
        raise InputError(f"unknown queries backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
    leaves = hierarchy.qualified(level=hierarchy.levels)
    lexicon = querygen.LexiconParser(items)
    llm = querygen.LLMBackend(seed=seed, **(llm_options or {})) if backend == "llm" else None
    query_sets = querygen.generate_all(leaves, items, backend=llm or "verbalizer", seed=seed, parser=lexicon)
    generated = [
        AnchorQuery(text=g.text, leaf=qs.cluster_id, expressed={k: list(v) for k, v in g.expressed.items()}, covers=g.covers, source=g.source)
        for qs in query_sets for g in qs.queries
    ]
    queries, report = deduplicate(generated)
    queries = sample_leaves(queries, max_leaves, seed)
    report["kept_after_leaf_sample"] = len(queries)
    parser = querygen.LLMEnricher(llm, lexicon) if llm else lexicon
    phi = querygen.enrich([q.text for q in queries], parser)
    report.update({
        "backend": backend,
        "leaves": len(leaves),
        "leaves_with_queries": len({q.leaf for q in queries}),
        "generation_malformed": sum(qs.malformed for qs in query_sets),
        "generation_failed": sum(qs.failed for qs in query_sets),
        "coverage_gaps": sum(len(qs.coverage_gaps) for qs in query_sets),
        "unsupported": sum(len(qs.unsupported) for qs in query_sets),
        "enrichment_malformed": getattr(parser, "malformed", 0),
        "enrichment_failed": getattr(parser, "failed", 0),
        "sources": dict(sorted(Counter(q.source for q in queries).items())),
    })
    if llm is not None:  # how the calls went differs between a first run and a rerun from the cache: printed only
        report["llm_answers_truncated"] = llm.truncated
        console.print(f"LLM calls: {llm.requests:,} requests, {llm.cache_hits:,} answers from the cache, {llm.failures:,} failed, "
                      f"{llm.timeouts:,} timeouts, {llm.truncated:,} answers cut at max_tokens, concurrency "
                      f"{llm.lowest_concurrency}-{llm.max_concurrency}", soft_wrap=True, highlight=False)
    return queries, phi, report
