"""Queries of the anchor (qualified leaf) clusters: generate, deduplicate globally, enrich with φ(q)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from fashionrq import querygen
from fashionrq.errors import InputError
from fashionrq.hierarchy import Hierarchy
from fashionrq.progress import console
from fashionrq.querygen import PHI_KEYS, normalise_query
from fashionrq.querygen.mcmr import mcmr_queries
from fashionrq.querygen.verbalizer import SOURCE as VERBALIZER
from fashionrq.seeding import stream
from fashionrq.tasks.records import AnchorQuery
from fashionrq.tasks.validity import QueryMatches, describes_leaf

BACKENDS = ("verbalizer", "llm", "mcmr")


def deduplicate(queries: list[AnchorQuery]) -> tuple[list[AnchorQuery], dict[str, int]]:
    """Drop repeated texts (keyed by ``querygen.normalise_query``): a text generated for two different leaves
    is ambiguous and dropped everywhere; repeats within one leaf keep their first occurrence."""
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


def hidden_phi(query: AnchorQuery) -> dict[str, list[str] | None]:
    """The hidden φ(q) of a verbalizer query: what its clauses asserted (``expressed``), every φ key present,
    ``None`` when not asserted. It never comes from the public ``LexiconParser`` a system may call."""
    return {key: sorted(query.expressed[key]) if query.expressed.get(key) else None for key in PHI_KEYS}


class _NoParse:
    """Fallback of the LLM enricher: a failed enrichment asserts nothing, and an answered value is kept as the model
    wrote it rather than respelled by the public parser (the hidden φ never comes from that parser)."""

    def parse(self, text: str) -> dict:
        return dict.fromkeys(PHI_KEYS)

    def parse_many(self, texts: list[str]) -> list[dict]:
        return [self.parse(text) for text in texts]


def hidden_phis(queries: list[AnchorQuery], used: list[int], backend: str, seed: int,
                llm_options: dict | None = None) -> tuple[dict[int, dict], dict]:
    """Hidden φ of the ``used`` queries: the verbalizer's record (:func:`hidden_phi`), or with ``backend="llm"``
    a second LLM call per LLM-written query (``querygen.LLMEnricher``; a failed call asserts nothing and is counted).
    A query the verbalizer wrote because the LLM's answer failed keeps the verbalizer's record."""
    if backend != "llm":
        return {qi: hidden_phi(queries[qi]) for qi in used}, {"phi_source": "verbalizer record (GeneratedQuery.expressed)"}
    asked = [qi for qi in used if queries[qi].source != VERBALIZER]
    phis = {qi: hidden_phi(queries[qi]) for qi in used if queries[qi].source == VERBALIZER}
    llm = querygen.LLMBackend(seed=seed, **(llm_options or {}))
    enricher = querygen.LLMEnricher(llm, _NoParse())
    phis.update(zip(asked, querygen.enrich([queries[qi].text for qi in asked], enricher)))
    return phis, {"phi_source": "LLM enrichment (querygen.LLMEnricher, no parser fallback) of the LLM's queries; the "
                                "verbalizer's record of its fallback queries",
                  "phi_from_verbalizer_record": len(used) - len(asked), "enrichment_malformed": enricher.malformed,
                  "enrichment_failed": enricher.failed, "enrichment_answers_truncated": print_llm_calls(llm, "enrichment")}


def print_llm_calls(llm, stage: str) -> int:
    """Print how a stage's LLM calls went (this differs between a first run and a rerun from the response cache,
    so it is printed, not put in the manifest); return the answers cut at max_tokens, which the release records."""
    console.print(f"LLM calls ({stage}): {llm.requests:,} requests, {llm.cache_hits:,} answers from the cache, {llm.failures:,} "
                  f"failed, {llm.timeouts:,} timeouts, {llm.truncated:,} answers cut at max_tokens, concurrency "
                  f"{llm.lowest_concurrency}-{llm.max_concurrency}, response format {llm.response_format} "
                  f"({llm.schema_refused:,} refused by the server)", soft_wrap=True, highlight=False)
    return llm.truncated


def sample_leaves(hierarchy: Hierarchy, max_leaves: int | None, seed: int = 0) -> tuple[list, dict]:
    """The qualified leaves to write queries for: all of them, or, when there are more than ``max_leaves``, the
    qualified leaves of a seeded sample of whole level-2 prefixes holding about ``max_leaves`` of them.

    Whole level-2 groups keep what the tasks need together: a leaf's siblings (T1/T2 pair units, partners) and
    the texts most likely to repeat across leaves (deduplication compares them). Returns the leaves in prefix
    order and a report of the sample.
    """
    leaves = hierarchy.qualified(level=hierarchy.levels)
    report = {"qualified": len(leaves), "sampled": False}
    if max_leaves is None or len(leaves) <= max_leaves:
        return leaves, {**report, "verbalized": len(leaves)}
    by_mid: dict[str, list] = {}
    for leaf in leaves:
        by_mid.setdefault(leaf.parent, []).append(leaf)
    mids = sorted(by_mid, key=lambda p: tuple(int(c) for c in p.split("-")))
    chosen, total = set(), 0
    for i in stream(seed, "leaf-sample").permutation(len(mids)):
        if total >= max_leaves:
            break
        chosen.add(mids[i])
        total += len(by_mid[mids[i]])
    kept = [leaf for leaf in leaves if leaf.parent in chosen]
    return kept, {**report, "sampled": True, "verbalized": len(kept), "level2_prefixes": len(chosen)}


def sibling_rows(hierarchy: Hierarchy, leaves) -> dict[str, list[tuple[int, ...]]]:
    """The item rows of each other leaf under every leaf's level-2 prefix (the leaves its queries must tell apart)."""
    clusters = hierarchy.clusters
    return {leaf.cluster_id: [clusters[s].item_rows for s in clusters[leaf.parent].children if s != leaf.cluster_id]
            for leaf in leaves}


def _generated(hierarchy: Hierarchy, items: pd.DataFrame, backend: str, seed: int, llm_options: dict | None, photos,
               max_leaves: int | None) -> tuple[list, dict]:
    """The generated queries of the qualified leaves (a seeded sample of at most about ``max_leaves``, see
    :func:`sample_leaves`) and the generation counters."""
    leaves, sample = sample_leaves(hierarchy, max_leaves, seed)
    if backend == "mcmr":
        queries, report = mcmr_queries(leaves, items, photos)
        return queries, [], {"leaves": len(leaves), "leaf_sample": sample, "mcmr": report}
    lexicon = querygen.LexiconParser(items)
    llm = querygen.LLMBackend(seed=seed, **(llm_options or {})) if backend == "llm" else None
    query_sets = querygen.generate_all(leaves, items, backend=llm or "verbalizer", seed=seed, parser=lexicon,
                                       siblings=sibling_rows(hierarchy, leaves))
    broad = broad_anchors(hierarchy, leaves) if backend == "verbalizer" else []
    broad_sets = querygen.generate_all(broad, items, seed=seed, siblings=sibling_rows(hierarchy, broad))
    report = {
        "leaves": len(leaves),
        "leaf_sample": sample,
        "broad_anchors": len(broad),
        "generation_malformed": sum(qs.malformed for qs in query_sets),
        "generation_failed": sum(qs.failed for qs in query_sets),
        "coverage_gaps": sum(len(qs.coverage_gaps) for qs in query_sets),
        "unsupported": sum(len(qs.unsupported) for qs in query_sets),
    }
    if llm is not None:
        report["generation_answers_truncated"] = print_llm_calls(llm, "generation")
    return [g for qs in query_sets for g in qs.queries], [g for qs in broad_sets for g in general_queries(qs)], report


#: How many general queries (``covers`` is ``None``) each broad anchor keeps.
BROAD_QUERIES = 2


def broad_anchors(hierarchy: Hierarchy, leaves) -> list:
    """The level-2 clusters that anchor broad queries (§3: relevance sets at several hierarchy levels): the
    qualified parents of at least two of ``leaves``, in prefix order."""
    children = Counter(leaf.parent for leaf in leaves)
    clusters = hierarchy.clusters
    return [clusters[p] for p in sorted(children, key=lambda p: tuple(int(c) for c in p.split("-")))
            if children[p] >= 2 and clusters[p].qualified]


def general_queries(query_set) -> list:
    """The first :data:`BROAD_QUERIES` queries of a broad anchor written for the whole cluster, not one sub-type."""
    return [q for q in query_set.queries if q.covers is None][:BROAD_QUERIES]


def _anchor_query(g) -> AnchorQuery:
    return AnchorQuery(text=g.text, leaf=g.cluster_id, expressed={k: list(v) for k, v in g.expressed.items()}, covers=g.covers,
                       source=g.source, constraints=g.constraints, held_out=g.held_out)


def anchor_queries(hierarchy: Hierarchy, items: pd.DataFrame, backend: str = "verbalizer",
                   seed: int = 0, llm_options: dict | None = None, photos=None,
                   max_leaves: int | None = None) -> tuple[list[AnchorQuery], dict]:
    """Generate queries for the qualified leaves (a seeded sample of at most about ``max_leaves``, see
    :func:`sample_leaves`) and deduplicate them globally.

    A text two leaves share is ambiguous and dropped. ``backend="llm"`` uses ``querygen.LLMBackend``
    (configured by the ``FASHIONRQ_LLM_*`` variables); ``"verbalizer"`` is offline and deterministic. Each
    query keeps the attributes its generator asserted (its hidden φ, see :func:`hidden_phi`). ``"mcmr"`` writes the
    controlled k_T = k_I queries of ``querygen.mcmr`` from the catalog fields and ``photos`` (the
    ``ImageAttributeSet`` of ``items``). Returns the queries and a report (counts, malformed/failed LLM answers,
    coverage gaps).
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown queries backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
    generated, broad, generation = _generated(hierarchy, items, backend, seed, llm_options, photos, max_leaves)
    queries, report = deduplicate([_anchor_query(g) for g in generated])
    taken = {normalise_query(q.text) for q in queries}
    kept, broad_report = deduplicate([_anchor_query(g) for g in broad if normalise_query(g.text) not in taken])
    queries += kept
    report["broad"] = {**broad_report, "dropped_as_a_leaf_query": len(broad) - broad_report["generated"]}
    report.update(generation, backend=backend, leaves_with_queries=len({q.leaf for q in queries}),
                  sources=dict(sorted(Counter(q.source for q in queries).items())))
    return queries, report


def parser_agreement(queries: list[AnchorQuery], phis: list[dict], items: pd.DataFrame) -> tuple[dict, dict]:
    """Per φ attribute: precision and recall of the public ``LexiconParser`` against the hidden φ ``phis``, over every
    condition and over those not written in a held-out wording (:func:`fashionrq.querygen.parser_agreement`)."""
    gold = [AnchorQuery(q.text, q.leaf, {k: v for k, v in phi.items() if v}, q.covers, q.source, held_out=q.held_out)
            for q, phi in zip(queries, phis)]
    parser = querygen.LexiconParser(items)
    return tuple({k: {"precision": round(v["precision"], 4), "recall": round(v["recall"], 4), "support": v["support"]}
                  for k, v in querygen.parser_agreement(gold, parser, held_out).items()} for held_out in (True, False))


def verbalize_undescribed_leaves(hierarchy: Hierarchy, items: pd.DataFrame, queries: list[AnchorQuery],
                                 phis: dict[int, dict], full, seed: int) -> tuple[list[AnchorQuery], dict[int, dict], dict]:
    """Verbalizer queries for the leaves none of whose LLM-written queries describes them.

    An LLM query whose hidden φ (its enrichment) holds for under ``validity.MIN_COVERAGE`` of its leaf's items is
    dropped by the tasks (:func:`~fashionrq.tasks.validity.describes_leaf`); a weak model can leave a leaf with
    none. Such a leaf gets the verbalizer's queries, as a leaf whose LLM answer failed does (a text another query
    already has is left out). ``full``: the :class:`~fashionrq.relevance.fullmatch.FullMatch` of ``items``.
    Returns the queries and hidden φ with the new ones appended, and a report.
    """
    clusters = hierarchy.clusters
    matches = QueryMatches(full, [phis[qi] for qi in range(len(queries))])
    described: dict[str, bool] = {}  # leaf -> some query describes it, or the verbalizer already wrote its queries
    for qi, q in enumerate(queries):
        if not described.get(q.leaf):
            rows = np.asarray(clusters[q.leaf].item_rows, dtype=np.int64)
            described[q.leaf] = q.source == VERBALIZER or describes_leaf(matches, qi, rows)
    leaves = [clusters[leaf] for leaf, ok in described.items() if not ok]
    report = {"leaves": len(leaves), "queries": 0}
    if not leaves:
        return queries, phis, report
    taken = {normalise_query(q.text) for q in queries}
    sets = querygen.generate_all(leaves, items, seed=seed, siblings=sibling_rows(hierarchy, leaves))
    added = [_anchor_query(g) for qs in sets for g in qs.queries if normalise_query(g.text) not in taken]
    phis = {**phis, **{len(queries) + i: hidden_phi(q) for i, q in enumerate(added)}}
    return queries + added, phis, {**report, "queries": len(added)}
