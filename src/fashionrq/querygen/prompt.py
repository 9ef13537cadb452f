"""The cluster-conditioned generation prompt (§8.0.2) and the φ(q) enrichment prompt (§3)."""

from __future__ import annotations

import json

import numpy as np

import fashionrq.querygen.surface as surface
from fashionrq.hierarchy import Cluster
from fashionrq.querygen.evidence import MIN_SUPPORT, SUBTYPE_SHARE, CatalogValues, Evidence, required_subtypes, subtype_axis
from fashionrq.querygen.records import PHI_KEYS

SYSTEM = "You are an expert analyst of hierarchical fashion semantic ID clusters and a specialist in e-commerce search behavior."
MAX_NAMES = 12
TOP_VALUES = 6

INSTRUCTIONS = f"""Write search queries a real shopper would type to find the products of this cluster.
Rules:
1. Return 6-12 natural, complete shopper-style queries (mix short noun phrases and full requests such as "show me ...", "I need ... for ...", "looking for ...").
2. Coverage: every product type listed under required_product_types (each holds >= {SUBTYPE_SHARE:.0%} of the cluster) must get at least one query, plus one catch-all query for the minority types.
3. Use the discriminating signatures and sibling differences so the queries separate this cluster from its siblings; check each query against the sibling differences.
4. No unsupported universal claims: state an attribute value as true of the products only if it is listed in universal_values (shared by >= {MIN_SUPPORT:.0%} of the items). Never base a query solely on an attribute value unless all items share it.
5. Mention a brand only if it is in universal_values. Ground the wording in the product names and descriptions.
Answer with one JSON object and nothing else:
{{"queries": ["..."], "insights": "what the cluster is and how it differs from parent and siblings", "validation_checks": ["..."], "coverage_map": {{"<product type>": [<indices into queries, 0-based>]}}}}"""

ENRICH_INSTRUCTIONS = """Convert the shopper query into its structured attributes. Answer with one JSON object with exactly these keys:
{keys}.
Each value is null when the query does not express it, else a list of strings (several values allowed).
brand only when a brand is explicitly named; price_hint values are "budget", "mid-range" or "premium".
Query: {query}"""


#: The JSON schema of a generation answer (sent as the request's ``response_format``, so a server that supports it
#: constrains a small model's output to parseable JSON).
GENERATION_SCHEMA = {
    "type": "object",
    "properties": {
        "queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 12},
        "insights": {"type": "string"},
        "validation_checks": {"type": "array", "items": {"type": "string"}, "maxItems": 12},
        "coverage_map": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer"}}},
    },
    "required": ["queries"],
}
#: The JSON schema of an enrichment answer: every φ key, null or a list of strings.
ENRICH_SCHEMA = {
    "type": "object",
    "properties": {key: {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "string"}, "maxItems": 6}]}
                   for key in PHI_KEYS},
    "required": list(PHI_KEYS),
}


def _top(pairs, k: int = TOP_VALUES) -> list[list]:
    return [[v, round(float(s), 3)] for v, s in list(pairs)[:k]]


def universal_values(ev: Evidence) -> dict[str, list[str]]:
    """Per φ key, the single values at least 90 % of the items hold (what a query may state as universal)."""
    out: dict[str, list[str]] = {}
    for key in PHI_KEYS:
        values = ev.values(key)
        held = [v for v in values if ev.support(key, [v]) >= MIN_SUPPORT]
        if held:
            out[key] = held
    return out


def data_context(cluster: Cluster, items, seed: int = 0, catalog: CatalogValues | None = None) -> dict:
    """The DATA CONTEXT block: prefix metadata, signatures, distributions, parent stats, sibling differences
    and exclusivity constraints of one cluster (``items`` is the whole items frame)."""
    sub = items.iloc[list(cluster.item_rows)]
    catalog = catalog or CatalogValues(items)
    ev = catalog.evidence(cluster.item_rows)
    rng = np.random.default_rng(seed)
    names = sub["name"].dropna().tolist()
    picked = sorted(rng.choice(len(names), size=min(MAX_NAMES, len(names)), replace=False).tolist()) if names else []
    required = required_subtypes(cluster, ev)
    axis_shares = ev.axis_shares(subtype_axis(cluster))
    return {
        "prefix": {"cluster_id": cluster.cluster_id, "level": cluster.level, "size": cluster.size,
                   "article_type_purity": cluster.purity, "primary_axis": cluster.primary_axis,
                   "primary_value": cluster.primary_value, "parent": cluster.parent, "children": len(cluster.children)},
        "required_product_types": {v: round(s, 3) for v, s in required},
        "minority_product_types": {v: round(s, 3) for v, s in axis_shares if s < SUBTYPE_SHARE},
        "discriminating_signatures": [{"attributes": [list(a) for a in s.attributes], "coverage": round(s.coverage, 3),
                                       "precision": round(s.precision, 3)} for s in cluster.discriminating],
        "coverage_signatures": [{"attributes": [list(a) for a in s.attributes], "coverage": round(s.coverage, 3),
                                 "precision": round(s.precision, 3)} for s in cluster.coverage_signatures],
        "attribute_distributions": {a: _top(v) for a, v in sorted(cluster.distributions.items())},
        "parent_stats": [{"attribute": c.attribute, "value": c.value, "cluster_share": round(c.cluster_share, 3),
                          "parent_share": round(c.reference_share, 3)} for c in cluster.parent_contrast],
        "sibling_differences": [{"attribute": c.attribute, "value": c.value, "cluster_share": round(c.cluster_share, 3),
                                 "sibling_share": round(c.reference_share, 3)} for c in cluster.sibling_contrast],
        "exclusivity_constraints": {
            "universal_values": universal_values(ev),
            "avoid_sibling_values": sorted({f"{c.attribute}={c.value}" for c in cluster.sibling_contrast if c.lift < 0}),
        },
        "sample_product_names": [names[i] for i in picked],
        # what each price_tier value means in this catalog's currency ("under $9"); empty when it has no tiers
        "price_tiers": {key[0]: tails[0] for key, (_, tails) in surface.price_forms(catalog.price_tiers).items()
                        if len(key) == 1 and tails},
    }


def generation_messages(cluster: Cluster, items, seed: int = 0, catalog: CatalogValues | None = None) -> list[dict[str, str]]:
    """Chat messages asking for the queries of one cluster."""
    context = json.dumps(data_context(cluster, items, seed, catalog), ensure_ascii=False, sort_keys=True)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{INSTRUCTIONS}\n\nDATA CONTEXT:\n{context}"}]


def enrichment_messages(query: str) -> list[dict[str, str]]:
    """Chat messages asking for φ(q) of one query."""
    return [{"role": "user", "content": ENRICH_INSTRUCTIONS.format(keys=", ".join(PHI_KEYS), query=query)}]
