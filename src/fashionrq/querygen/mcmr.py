"""MCMR queries with controlled constraint counts (seed 003 §3, §5.2): k text- and k image-derived constraints.

Every qualified leaf is one *intent*. Its text constraints are catalog fields the candidates' text view shows
(gender, occasion, season, brand, fabric, fit, sleeves, neck; price and year are in no candidate view, so they
are not asked), its image constraints are facets of the photos
(:func:`fashionrq.images.verbalize.photo_facets`: colour, accent, pattern, tone, saturation, silhouette,
outline). A constraint holds for the leaf when at least :data:`MIN_SHARE` of its items have the value (missing
values and items without a photo count against it); each modality's constraints are ordered most distinctive
first (the leaf's share of the value minus the catalog's), so the first k are the ones that set the leaf apart,
and taken in that order only while at least :data:`MIN_JOINT` of the leaf's items hold all of them together
(text first, then image), so every variant has items that satisfy every condition. An image constraint whose
value the text view of most of the leaf's items states (a photo colour named by the base colour) is skipped: an
image-only condition must not be answerable from the text (MCMR's validator). A leaf with fewer than ``k_max``
of either kind is not an intent (counted in the report).

From one intent the verbalizer writes, over the leaf's product type:

* ``fused`` queries with the first ``k`` text and the first ``k`` image constraints, ``k = 1 … k_max``
  (k_T = k_I: MCMR Table 8, the constraint-count curve);
* a ``text`` query (the ``k_max`` text constraints only) and an ``image`` query (the ``k_max`` image
  constraints only): with the ``fused`` ``k_max`` query, the query-side ablation of MCMR Table 7.

Each query carries its :class:`ConstraintSet` (which constraint came from which modality), which the release
keeps in ``labels/mcmr.jsonl`` only. Relevance is MCMR's: an item is relevant to a query only if it satisfies
every one of its conditions (the head product type and each constraint, on the item's own fields and photo;
:class:`ConstraintMatches`), so the relevant set shrinks as k grows.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd

from fashionrq.catalog.language import names_in_english
from fashionrq.encoders.text import item_text
from fashionrq.hierarchy import Cluster, attribute_frame
from fashionrq.images.verbalize import FACETS, facet_phrase, look_phrase, photo_facets
from fashionrq.querygen.evidence import ATTRIBUTE_TO_PHI
from fashionrq.querygen.records import Constraint, ConstraintSet, GeneratedQuery
from fashionrq.querygen.surface import type_forms

SOURCE = "mcmr"
#: A constraint holds for a leaf when at least this share of its items have the value.
MIN_SHARE = 0.5
#: Text-derived constraint attributes (columns of ``attribute_frame`` the text view shows), in tie-break order.
TEXT_ATTRIBUTES = ("gender", "usage", "season", "brand", "Fabric", "Fit", "Sleeve Length", "Neck")
#: The order text clauses are written in after the head noun.
WRITE_ORDER = ("brand", "Fabric", "Fit", "Sleeve Length", "Neck", "usage", "season")
#: Constraints are added only while at least this many of the leaf's items hold all of them (MCMR writes a query
#: from one target item, so at least that item is relevant).
MIN_JOINT = 1
VARIANTS = ("fused", "text", "image")
#: Attribute -> value -> share of the catalog's items holding it.
Background = dict[str, dict[str, float]]
_GENDER_WORDS = {"Men": "men's", "Women": "women's", "Boys": "boys'", "Girls": "girls'", "Unisex": "unisex"}
_TEXT_PHRASES = {"usage": "for {} wear", "season": "for {}", "brand": "by {}", "Fabric": "made of {}", "Fit": "with a {}", "Sleeve Length": "with {}", "Neck": "with a {}"}
#: Image facets that have a φ key (the rest have none; their record stays in ``labels/mcmr.jsonl``).
_IMAGE_TO_PHI = {"photo_colour": "color", "photo_accent": "color", "photo_pattern": "pattern"}
_PATTERN_PHI = {"plain": "Solid", "striped": "Striped", "checked": "Checked", "printed": "Printed"}


def phrase(constraint: Constraint) -> str:
    """How the verbalizer writes one constraint: ``by Roadster``, ``for casual wear``, ``dark-toned``."""
    if constraint.modality == "image":
        return facet_phrase(constraint.attribute, constraint.value)
    value = constraint.value if constraint.attribute == "brand" else constraint.value.lower()
    return _TEXT_PHRASES[constraint.attribute].format(value)


def _ranked(values: list, modality: str, attribute: str) -> Constraint | None:
    """The plurality value of ``values`` as a constraint when its share reaches :data:`MIN_SHARE`."""
    present = Counter(v for v in values if v is not None and v == v)
    if not present:
        return None
    value, count = min(present.items(), key=lambda kv: (-kv[1], str(kv[0])))
    share = count / len(values)
    return Constraint(attribute, str(value), modality, share) if share >= MIN_SHARE else None


def _ordered(candidates: list[Constraint | None], order: tuple[str, ...], background: Background) -> tuple[Constraint, ...]:
    """Most distinctive first: the leaf's share of the value minus the catalog's (ties in ``order``); an attribute
    with one value in the whole catalog (every item by one brand) is no condition, as it leaves no item out."""
    kept = [c for c in candidates if c is not None and len(background[c.attribute]) > 1]
    return tuple(sorted(kept, key=lambda c: (-(c.share - background[c.attribute].get(c.value, 0.0)), order.index(c.attribute))))


def _holds(constraint: Constraint, table: pd.DataFrame, facets: list[dict[str, str]], rows) -> np.ndarray:
    """Which of ``rows`` hold ``constraint`` on their own field (text) or photo facet (image)."""
    if constraint.modality == "text":
        return np.array([v is not None and v == v and str(v) == constraint.value for v in table[constraint.attribute].iloc[rows]], dtype=bool)
    return np.array([facets[r].get(constraint.attribute) == constraint.value for r in rows], dtype=bool)


def _jointly(ordered: tuple[Constraint, ...], held: np.ndarray, table, facets, rows) -> tuple[tuple[Constraint, ...], np.ndarray]:
    """``ordered`` taken in order while at least :data:`MIN_JOINT` rows (``held`` so far) hold every one taken."""
    chosen = []
    for constraint in ordered:
        joint = held & _holds(constraint, table, facets, rows)
        if joint.sum() >= MIN_JOINT:
            chosen.append(constraint)
            held = joint
    return tuple(chosen), held


def text_answerable(constraint: Constraint, texts: list[str]) -> bool:
    """An image constraint whose value most of ``texts`` (the items' text view) name as a word."""
    word = re.compile(rf"\b{re.escape(constraint.value.lower())}\b")
    return sum(bool(word.search(t.lower())) for t in texts) * 2 > len(texts)


def text_constraints(rows: list[int], table: pd.DataFrame, background: Background) -> tuple[Constraint, ...]:
    """The leaf's text-derived constraints (``table``: :func:`catalog_table`), most distinctive first."""
    return _ordered([_ranked(table[a].iloc[rows].tolist(), "text", a) for a in TEXT_ATTRIBUTES], TEXT_ATTRIBUTES, background)


def image_constraints(rows: list[int], facets: list[dict[str, str]], background: Background,
                      texts: list[str] | None = None) -> tuple[Constraint, ...]:
    """The leaf's image-derived constraints (``facets``: per item row), most distinctive first, without those the
    text view of the leaf's items (``texts``) answers."""
    found = _ordered([_ranked([facets[r].get(f) for r in rows], "image", f) for f in FACETS], FACETS, background)
    return tuple(c for c in found if texts is None or not text_answerable(c, texts))


def background_shares(table: pd.DataFrame, facets: list[dict[str, str]]) -> Background:
    """``{attribute: {value: share of all items}}`` for every text attribute and image facet."""
    n = max(len(table), 1)
    shares = {a: {str(v): c / n for v, c in Counter(x for x in table[a] if x is not None and x == x).items()} for a in TEXT_ATTRIBUTES}
    shares.update({f: {v: c / n for v, c in Counter(x[f] for x in facets if f in x).items()} for f in FACETS})
    return shares


def catalog_table(items: pd.DataFrame) -> pd.DataFrame:
    """The text attribute columns of every item: ``attribute_frame`` plus the catalog year as a string."""
    table = attribute_frame(items.reset_index(drop=True))
    years = items["year"].reset_index(drop=True)
    table["year"] = [None if pd.isna(y) else str(int(y)) for y in years]
    return table


def render(head: str, constraints: tuple[Constraint, ...]) -> str:
    """The query text: gender before the head noun, the other text clauses after it (in :data:`WRITE_ORDER`),
    then the photo's look and shape (:func:`fashionrq.images.verbalize.look_phrase`)."""
    text = {c.attribute: c for c in constraints if c.modality == "text"}
    gender = text.pop("gender", None)
    words = ([_GENDER_WORDS.get(gender.value, gender.value.lower())] if gender else []) + [head]
    words += [phrase(text[a]) for a in WRITE_ORDER if a in text]
    looks = look_phrase({c.attribute: c.value for c in constraints if c.modality == "image"}, lead="in ")
    out = " ".join(words) + (", " + looks if looks else "")
    return out[0].upper() + out[1:]


def expressed(head_value: str, constraints: tuple[Constraint, ...]) -> dict[str, list[str]]:
    """The query's hidden φ: the head as product type, text constraints under their φ key, colour and pattern facets."""
    out: dict[str, list[str]] = {"product_type": [head_value]}
    for c in constraints:
        if c.modality == "text" and c.attribute in ATTRIBUTE_TO_PHI:
            out.setdefault(ATTRIBUTE_TO_PHI[c.attribute], []).append(c.value)
        elif c.attribute in _IMAGE_TO_PHI:
            value = _PATTERN_PHI.get(c.value, c.value) if c.attribute == "photo_pattern" else c.value.title()
            out.setdefault(_IMAGE_TO_PHI[c.attribute], []).append(value)
    return {k: sorted(set(v)) for k, v in out.items()}


def variants(text: tuple[Constraint, ...], image: tuple[Constraint, ...], k_max: int) -> list[tuple[str, tuple[Constraint, ...]]]:
    """``(variant, constraints)``: fused with k = 1 … k_max of each modality, then text-only and image-only at k_max."""
    fused = [("fused", text[:k] + image[:k]) for k in range(1, k_max + 1)]
    return fused + [("text", text[:k_max]), ("image", image[:k_max])]


def intent_constraints(cluster: Cluster, table: pd.DataFrame, facets: list[dict[str, str]], background: Background,
                       texts: list[str]) -> tuple[tuple[Constraint, ...], tuple[Constraint, ...], int]:
    """The leaf's text and image constraints, each taken while :data:`MIN_JOINT` items hold all so far (text first),
    and how many image constraints were skipped as answerable from the text view."""
    rows = list(cluster.item_rows)
    leaf_texts = [texts[r] for r in rows]
    found = image_constraints(rows, facets, background)
    unanswered = image_constraints(rows, facets, background, leaf_texts)
    text, held = _jointly(text_constraints(rows, table, background), np.ones(len(rows), dtype=bool), table, facets, rows)
    image, _ = _jointly(unanswered, held, table, facets, rows)
    return text, image, len(found) - len(unanswered)


def intent_queries(cluster: Cluster, table: pd.DataFrame, facets: list[dict[str, str]], background: Background,
                   k_max: int, texts: list[str], english: bool = True) -> tuple[list[GeneratedQuery], int]:
    """Every variant of one leaf's intent, or ``[]`` when it has fewer than ``k_max`` constraints of a modality; and
    how many image constraints the text view answered. ``english``: whether the catalog's names are English
    (:mod:`fashionrq.catalog.language`; else its types are said as written)."""
    rows = list(cluster.item_rows)
    text, image, answerable = intent_constraints(cluster, table, facets, background, texts)
    if len(text) < k_max or len(image) < k_max:
        return [], answerable
    head_value = cluster.primary_value if cluster.primary_axis == "article_type" else table["article_type"].iloc[rows].mode().iloc[0]
    head = type_forms(head_value, english)[0]
    out = []
    for variant, chosen in variants(text, image, k_max):
        record = ConstraintSet(cluster.cluster_id, variant, head, chosen)
        out.append(GeneratedQuery(render(head, chosen), cluster.cluster_id, expressed(head_value, chosen), None, SOURCE, record))
    return out, answerable


class ConstraintMatches:
    """MCMR relevance (seed 003): an item is relevant to a query only if it satisfies every condition, its head
    product type (the item's article type) and each constraint on its own field or photo facet. The interface of
    :class:`fashionrq.tasks.validity.QueryMatches` that the release's grading reads (``mask``, ``grades``,
    ``contradicted``)."""

    def __init__(self, items: pd.DataFrame, photos, queries) -> None:
        self.table = catalog_table(items)
        self.facets = [photo_facets(photos.get(i)) for i in items["item_id"].tolist()]
        self.queries = queries
        self.n = len(self.table)

    def mask(self, qi: int, rows: np.ndarray | None = None) -> np.ndarray:
        rows = np.arange(self.n) if rows is None else np.asarray(rows, dtype=np.int64)
        query = self.queries[qi]
        held = np.isin(self.table["article_type"].iloc[rows].to_numpy(dtype=object), query.expressed["product_type"])
        for constraint in query.constraints.constraints:
            held &= _holds(constraint, self.table, self.facets, rows)
        return held

    @staticmethod
    def grades(qi: int, prefix_grades: np.ndarray, rows: np.ndarray, full: np.ndarray) -> np.ndarray:
        """Binary, as MCMR grades: Exact (3) for an item that satisfies every condition (``full``), else 0 (``qi``,
        ``prefix_grades`` and ``rows`` unread: the call of :meth:`fashionrq.tasks.validity.QueryMatches.grades`)."""
        return np.where(full, 3, 0)

    def contradicted(self, qi: int, rows: np.ndarray | None = None) -> np.ndarray:
        """No item: MCMR's pools keep their prefix grades (its relevance is the open corpus's, every condition)."""
        return np.zeros(self.n if rows is None else len(rows), dtype=bool)


def mcmr_queries(leaves: list[Cluster], items: pd.DataFrame, photos, k_max: int = 5) -> tuple[list[GeneratedQuery], dict]:
    """Controlled MCMR queries of every leaf that supports ``k_max`` constraints of each modality, and a report.

    ``photos``: the :class:`fashionrq.images.store.ImageAttributeSet` of ``items``.
    """
    table = catalog_table(items)
    facets = [photo_facets(photos.get(i)) for i in items["item_id"].tolist()]
    texts = [item_text(row) for row in items.astype(object).where(items.notna(), None).to_dict("records")]
    background = background_shares(table, facets)
    queries, short, english = [], Counter(), names_in_english(items)
    for cluster in leaves:
        made, answerable = intent_queries(cluster, table, facets, background, k_max, texts, english)
        queries += made
        short["image_constraints_answerable_from_text"] += answerable
        if not made:
            text, image, _ = intent_constraints(cluster, table, facets, background, texts)
            short["text"] += len(text) < k_max
            short["image"] += len(image) < k_max
    report = {"k_max": k_max, "min_share": MIN_SHARE, "min_joint": MIN_JOINT, "leaves": len(leaves),
              "intents": len({q.cluster_id for q in queries}),
              "leaves_short_of_text_constraints": short["text"], "leaves_short_of_image_constraints": short["image"],
              "image_constraints_skipped_as_answerable_from_text": short["image_constraints_answerable_from_text"],
              "not_asked": ["price_tier", "year"], "photographed_items": int(np.sum([bool(f) for f in facets]))}
    return queries, report
