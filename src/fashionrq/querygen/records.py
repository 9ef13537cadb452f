"""Query records: what query generation hands to the benchmark builder."""

from __future__ import annotations

from dataclasses import dataclass, field

#: The keys of φ(q) (docs/architecture.md); every value is ``None`` or a list of strings.
PHI_KEYS: tuple[str, ...] = (
    "product_type", "gender", "age_group", "color", "pattern", "material", "occasion", "brand", "price_hint",
    "style_tags",
)
#: ``GeneratedQuery.covers`` of the catch-all query that covers the cluster's minority product types.
CATCH_ALL = "*catch-all*"


@dataclass(frozen=True)
class GeneratedQuery:
    """One shopper query for a cluster and the φ-style attributes its text asserts.

    ``expressed`` maps φ keys to canonical catalog values (``{"product_type": ["Shirts", "Tshirts"],
    "gender": ["Men"]}``); a multi-valued entry is a disjunction ("shirts or t-shirts") except
    ``style_tags``, whose values are each asserted. ``covers`` is the sub-type this query was written to
    cover, :data:`CATCH_ALL` for the catch-all, ``None`` for a general query.
    """

    text: str
    cluster_id: str
    expressed: dict[str, list[str]] = field(hash=False)
    covers: str | None
    source: str


@dataclass
class QuerySet:
    """The queries of one cluster, the required sub-types no query covers, and answer-quality counters."""

    cluster_id: str
    queries: list[GeneratedQuery]
    coverage_gaps: list[str] = field(default_factory=list)
    malformed: int = 0  # LLM answers that were not the requested JSON
    failed: int = 0  # LLM calls that failed after every retry (the verbalizer stood in)
    unsupported: list[str] = field(default_factory=list)  # LLM queries asserting a value < 90 % of items share

    @property
    def texts(self) -> list[str]:
        return [q.text for q in self.queries]
