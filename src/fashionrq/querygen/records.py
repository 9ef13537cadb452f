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
class Constraint:
    """One condition of a query: an attribute, its value, the modality it is derived from and its leaf share."""

    attribute: str
    value: str
    modality: str  # "text" | "image"
    share: float

    def to_dict(self) -> dict:
        return {"attribute": self.attribute, "value": self.value, "modality": self.modality, "share": round(self.share, 4)}


@dataclass(frozen=True)
class ConstraintSet:
    """The constraints one query composes, with its intent (anchor leaf), variant and product head noun."""

    intent: str
    variant: str  # "fused" | "text" | "image"
    head: str
    constraints: tuple[Constraint, ...]

    @property
    def k_text(self) -> int:
        return sum(c.modality == "text" for c in self.constraints)

    @property
    def k_image(self) -> int:
        return sum(c.modality == "image" for c in self.constraints)

    def to_dict(self) -> dict:
        return {"intent": self.intent, "variant": self.variant, "head": self.head, "k_text": self.k_text,
                "k_image": self.k_image, "constraints": [c.to_dict() for c in self.constraints]}


@dataclass(frozen=True)
class GeneratedQuery:
    """One shopper query for a cluster and the φ-style attributes its text asserts.

    ``expressed`` maps φ keys to canonical catalog values (``{"product_type": ["Shirts", "Tshirts"],
    "gender": ["Men"]}``); a multi-valued entry is a disjunction ("shirts or t-shirts") except
    ``style_tags``, whose values are each asserted. ``covers`` is the sub-type this query was written to
    cover, :data:`CATCH_ALL` for the catch-all, ``None`` for a general query. ``constraints``: the
    constraints an MCMR query composes and their modalities (``fashionrq.querygen.mcmr``), else ``None``.
    ``held_out``: the φ keys its text states in a wording the public lexicon does not read.
    """

    text: str
    cluster_id: str
    expressed: dict[str, list[str]] = field(hash=False)
    covers: str | None
    source: str
    constraints: ConstraintSet | None = field(default=None, hash=False)  # MCMR queries: the modality record
    held_out: tuple[str, ...] = ()  # φ keys written in a held-out wording (fashionrq.querygen.heldout)


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
