"""Weighted query relevance R(q, p), attribute matches m_a(q, p), AttrScore and annotation coverage."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pyarrow as pa

import fashionrq.relevance.comparators as cmp
from fashionrq.catalog.tiers import price_tiers_of
from fashionrq.errors import InputError
from fashionrq.progress import track
from fashionrq.relevance.similarity import SIMILARITY_ENCODER, TextSimilarity
from fashionrq.vocab import MATERIAL_TERMS, OCCASION_TERMS, PATTERN_TERMS, STYLE_TERMS, VALUELESS, find_terms

#: The φ(q) attributes, in the order of the architecture contract.
ATTRIBUTES: tuple[str, ...] = (
    "product_type", "gender", "age_group", "color", "pattern", "material", "occasion", "brand", "price_hint",
    "style_tags",
)
#: The four soft attributes and, for each, the items' ``attributes`` keys its values are read from.
SOFT_KEYS: dict[str, tuple[str, ...]] = {
    "material": ("Fabric", "Fabric 2", "Fabric 3", "Material"),
    "pattern": ("Pattern", "Print or Pattern Type", "Weave Pattern"),
    "occasion": ("Occasion", "Sport"),
    "style_tags": (
        "Fit", "Sleeve Length", "Sleeve Styling", "Neck", "Collar", "Type", "Length", "Waist Rise", "Hemline",
        "Ankle Height", "Heel Type", "Toe Shape", "Fastening",
    ),
}
#: Keys ending like this also count (``Saree Fabric``, ``Strap Material``, ``Dial Pattern`` ...).
SOFT_KEY_SUFFIXES: dict[str, tuple[str, ...]] = {
    "material": (" Fabric", " Material"), "pattern": (" Pattern",), "occasion": (), "style_tags": (),
}
#: The vocabulary matched against name + description when the attribute map yields nothing.
SOFT_VOCAB: dict[str, tuple[str, ...]] = {
    "material": MATERIAL_TERMS, "pattern": PATTERN_TERMS, "occasion": OCCASION_TERMS, "style_tags": STYLE_TERMS,
}
#: Words of the description kept for the free-text fallbacks (the encoder truncates long inputs anyway).
DESCRIPTION_WORDS = 40
#: Sources of a match: catalog field, vocabulary found in name/description, free-text comparison, or neutral.
SOURCES = ("structured", "backfill", "text", "missing")


def shipped_weights() -> dict:
    """``fashionrq/data/attribute_weights.json``: the shipped weights (``weights``) and how they were estimated
    (``oracle`` ...)."""
    return json.loads(resources.files("fashionrq").joinpath("data/attribute_weights.json").read_text(encoding="utf-8"))


def default_weights() -> dict[str, float]:
    """The shipped attribute weights (:func:`shipped_weights`)."""
    return {a: float(w) for a, w in shipped_weights()["weights"].items()}


def load_weights(path: str | Path) -> dict[str, float]:
    """Attribute weights from a JSON file: either ``{"weights": {...}}`` (as estimated) or a flat ``{attr: w}``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise InputError(f"weights file {path} is unreadable ({err}): pass a JSON file written by `fashionrq weights estimate`.") from None
    weights = data.get("weights", data) if isinstance(data, dict) else None
    if not isinstance(weights, dict):
        raise InputError(f"weights file {path} holds no {{attribute: weight}} mapping: write one with `fashionrq weights estimate`.")
    return check_weights(weights)


def check_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """Validate attribute weights: known attribute names, finite, non-negative, not all zero."""
    if not isinstance(weights, Mapping):
        raise InputError("attribute weights must be a mapping {attribute: weight}.")
    unknown = sorted(set(weights) - set(ATTRIBUTES))
    if unknown:
        raise InputError(f"attribute weight '{unknown[0]}' is not a φ attribute: use one of {', '.join(ATTRIBUTES)}.")
    out = {}
    for attr in ATTRIBUTES:
        value = weights.get(attr, 0.0)
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise InputError(f"attribute weight for '{attr}' is {value!r}: weights must be finite and >= 0.")
        out[attr] = float(value)
    if sum(out.values()) <= 0:
        raise InputError("attribute weights are all zero: give at least one attribute a positive weight.")
    return out


def expressed(phi: Mapping) -> list[str]:
    """The attributes A(q) a φ expresses (non-null, non-empty value lists), in :data:`ATTRIBUTES` order."""
    return [a for a in ATTRIBUTES if phi.get(a)]


def _phi_variants(phi, where: str) -> list[dict[str, tuple[str, ...]]]:
    """A φ (or a list of φ intent variants) as a list of {attr: tuple of strings} over expressed attributes."""
    variants = phi if isinstance(phi, list) else [phi]
    out = []
    for variant in variants:
        if not isinstance(variant, Mapping):
            raise InputError(f"φ of {where} is {type(variant).__name__}: give a dict (or a list of dicts for multi-intent).")
        unknown = sorted(set(variant) - set(ATTRIBUTES))
        if unknown:
            raise InputError(f"φ of {where} has unknown attribute '{unknown[0]}': use {', '.join(ATTRIBUTES)}.")
        parsed = {}
        for attr in expressed(variant):
            values = variant[attr]
            values = [values] if isinstance(values, str) else values
            if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
                raise InputError(f"φ of {where}: '{attr}' must be null or a list of strings, not {values!r}.")
            values = tuple(v for v in values if v.strip())
            if values:
                parsed[attr] = values
        if parsed:
            out.append(parsed)
    if not out:
        raise InputError(f"φ of {where} expresses no attribute: give at least one non-empty attribute list.")
    return out


@dataclass
class Profile:
    """The prepared product side of every comparator for one item."""

    levels: tuple[str, ...]
    gender: str | None
    age_group: str | None
    colours: tuple[str, ...]
    brand: str | None
    tier: str | None
    description: str | None
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    fallback: dict[str, str | None] = field(default_factory=dict)


class AttributeMatcher:
    """Attribute matches m_a(q, p) and weighted relevance R(q, p) over one items table.

    Parameters
    ----------
    items : the items table (architecture contract); its price tiers are the ones it records
        (:func:`fashionrq.catalog.tiers.price_tiers_of`: a release's ``public/items.parquet`` carries its catalog's).
    weights : {attribute: w_a}; default: the shipped ``attribute_weights.json``.
    encoder : text encoder name for sim(.,.) (``fashionrq.encoders.get_encoder``); default ``minilm-int8`` (int8 ONNX; the strings are embedded once and cached).
    cache_dir : root of the on-disk string-embedding store (default: ``$FASHIONRQ_CACHE``); ``False``: memory only.
    """

    def __init__(
        self,
        items: pa.Table,
        weights: Mapping[str, float] | None = None,
        encoder: str = SIMILARITY_ENCODER,
        cache_dir: str | Path | bool | None = None,
    ) -> None:
        self.items = items
        self.weights = check_weights(default_weights() if weights is None else weights)
        self.sim = TextSimilarity(encoder, cache_dir=cache_dir)
        needed = ("item_id", "name", "brand", "gender", "age_group", "master_category", "sub_category",
                  "article_type", "base_colour", "colours", "usage", "price", "description", "attributes")
        missing = [c for c in needed if c not in items.column_names]
        if missing:
            raise InputError(f"items table lacks column '{missing[0]}': load it with fashionrq.catalog.load_items.")
        self._columns = {c: items.column(c).to_pylist() for c in needed}
        self._ids = {item_id: i for i, item_id in enumerate(self._columns["item_id"])}
        self.price_tiers = price_tiers_of(items)
        self._profiles: dict[int, Profile] = {}

    # -- product side -------------------------------------------------------------------------------
    def index_of(self, item) -> int:
        """Row index of an item given as a row index (int) or an ``item_id`` (str)."""
        if isinstance(item, str):
            if item not in self._ids:
                raise InputError(f"item_id '{item}' is not in the items table: rank items of this catalog only.")
            return self._ids[item]
        index = int(item)
        if not 0 <= index < len(self._ids):
            raise InputError(f"item index {index} is out of range 0..{len(self._ids) - 1}.")
        return index

    def profile(self, index: int) -> Profile:
        """The product side of every comparator for row ``index`` (built once)."""
        found = self._profiles.get(index)
        if found is not None:
            return found
        col = {c: v[index] for c, v in self._columns.items()}
        attributes = dict(col["attributes"] or [])
        levels = tuple(v for v in (col["master_category"], col["sub_category"], col["article_type"]) if v)
        description = col["description"]
        short = " ".join(description.split()[:DESCRIPTION_WORDS]) if description else None
        colours = tuple(col["colours"] or ([col["base_colour"]] if col["base_colour"] else []))
        profile = Profile(
            levels=levels, gender=col["gender"], age_group=col["age_group"], colours=colours, brand=col["brand"],
            tier=self.price_tiers.tier(col["price"]), description=short,
        )
        name_text = " ".join(v for v in (col["name"], description) if v)
        path_text = " > ".join(levels)
        for attr, keys in SOFT_KEYS.items():
            suffixes = SOFT_KEY_SUFFIXES[attr]
            values = [v for k, v in attributes.items() if k in keys or k.endswith(suffixes)]
            if attr == "occasion" and col["usage"]:
                values.insert(0, col["usage"])
            values = tuple(dict.fromkeys(v for v in values if v and v.strip().lower() not in VALUELESS))
            source = "structured"
            if not values:
                values, source = tuple(find_terms(name_text, SOFT_VOCAB[attr])), "backfill"
            if attr == "material":
                fallback = short
            else:
                fallback = " ".join(v for v in (short, path_text) if v) or None
            profile.values[attr] = values
            profile.sources[attr] = source if values else ("text" if fallback else "missing")
            profile.fallback[attr] = fallback
        self._profiles[index] = profile
        return profile

    def prepare(self, items: Sequence | None = None, attributes: Sequence[str] = ATTRIBUTES) -> None:
        """Build profiles and embed, in one batch, every product string ``attributes`` may compare against.

        ``items``: row indices or item ids (default: the whole table). Free-text fallbacks (descriptions)
        are embedded only for items whose attribute has no value list.
        """
        indices = range(len(self._ids)) if items is None else [self.index_of(i) for i in items]
        strings: set[str] = set()
        for index in indices:
            p = self.profile(index)
            if "product_type" in attributes and p.levels:
                strings.update(p.levels)
                strings.add(" > ".join(p.levels))
            if "color" in attributes:
                strings.update(c for c in p.colours if cmp.colour_lab(c) is None)
                if not p.colours and p.description:
                    strings.add(p.description)
            for attr in SOFT_KEYS:
                if attr in attributes:
                    strings.update(p.values[attr])
                    if not p.values[attr] and p.fallback[attr]:
                        strings.add(p.fallback[attr])
        self.sim.add(strings)

    # -- scoring ------------------------------------------------------------------------------------
    def _match_one(self, attr: str, query: tuple[str, ...], p: Profile) -> tuple[float | None, str]:
        if attr == "product_type":
            return cmp.product_type_score(query, p.levels, self.sim), "structured"
        if attr == "gender":
            return cmp.gender_score(query, p.gender), "structured"
        if attr == "age_group":
            return cmp.age_score(query, p.age_group), "structured"
        if attr == "color":
            return cmp.colour_score(query, p.colours, p.description, self.sim), "structured" if p.colours else "text"
        if attr == "brand":
            return cmp.brand_score(query, p.brand), "structured"
        if attr == "price_hint":
            return cmp.price_score(query, p.tier), "structured"
        return cmp.soft_score(query, p.values[attr], p.fallback[attr], self.sim), p.sources[attr]

    def _match_variant(self, variant: dict[str, tuple[str, ...]], index: int) -> dict[str, tuple[float, str]]:
        p = self.profile(index)
        out = {}
        for attr, query in variant.items():
            score, source = self._match_one(attr, query, p)
            out[attr] = (cmp.NEUTRAL, "missing") if score is None else (score, source)
        return out

    def _relevance(self, matches: Mapping[str, tuple[float, str]]) -> float:
        """Σ w_a m_a / Σ w_a over the expressed attributes; the plain mean when those weights are all 0."""
        total = sum(self.weights[a] for a in matches)
        if total <= 0:
            return sum(m for m, _ in matches.values()) / len(matches)
        return sum(self.weights[a] * m for a, (m, _) in matches.items()) / total

    def _best(self, variants, index: int) -> tuple[float, dict[str, tuple[float, str]]]:
        best_r, best_m = -1.0, {}
        for variant in variants:
            matches = self._match_variant(variant, index)
            r = self._relevance(matches)
            if r > best_r:
                best_r, best_m = r, matches
        return best_r, best_m

    def match(self, phi, item) -> dict[str, tuple[float, bool]]:
        """m_a(q, p) for every attribute φ expresses: ``{attr: (score, covered)}``.

        ``covered`` is False when the product had no value and the neutral 0.5 was used. For a multi-intent
        φ (a list), the matches of the best-scoring variant are returned.
        """
        _, matches = self._best(_phi_variants(phi, "the query"), self.index_of(item))
        return {a: (m, source != "missing") for a, (m, source) in matches.items()}

    def relevance(self, phi, item) -> float:
        """R(q, p) = Σ_{a∈A(q)} w_a m_a / Σ_{a∈A(q)} w_a; for a multi-intent φ, the best variant's R."""
        return self._best(_phi_variants(phi, "the query"), self.index_of(item))[0]

    def relevances(self, phi, items: Sequence) -> list[float]:
        """:meth:`relevance` of one φ against each of ``items`` (φ is checked and parsed once)."""
        variants = _phi_variants(phi, "the query")
        return [self._best(variants, self.index_of(item))[0] for item in items]

    def score_run(self, phis: Mapping[str, object], ranked: Mapping[str, Sequence], k: int = 10) -> dict:
        """Weighted relevance and attribute-level scores of a ranked run.

        ``phis``: {qid: φ or list of φ variants}; ``ranked``: {qid: [item index or item_id, ...]} best first.
        Per query, R@k = Σ R(q, p) over the top-k / k (positions the run leaves empty count 0). AttrScore(a)
        is the mean over queries expressing a of the mean m_a over that query's retrieved top-k; coverage(a)
        is the share of those (query, item) cells where the product had a value (not the neutral 0.5).
        """
        if k < 1:
            raise InputError(f"k is {k}: use k >= 1.")
        unknown = sorted(set(ranked) - set(phis))
        if unknown:
            raise InputError(f"run has query '{unknown[0]}' that has no φ: score runs against their own benchmark.")
        parsed = {qid: _phi_variants(phi, f"query {qid}") for qid, phi in phis.items()}
        tops = {qid: [self.index_of(i) for i in list(ranked.get(qid, []))[:k]] for qid in parsed}
        attrs = {a for variants in parsed.values() for v in variants for a in v}
        self.prepare(sorted({i for top in tops.values() for i in top}), attributes=tuple(attrs))
        self.sim.add({s for variants in parsed.values() for v in variants for vals in v.values() for s in vals})

        per_query: dict[str, float] = {}
        attr_sum = {a: 0.0 for a in ATTRIBUTES}
        attr_n = {a: 0 for a in ATTRIBUTES}
        cells = {a: {s: 0 for s in SOURCES} for a in ATTRIBUTES}
        for qid in track(sorted(parsed), "relevance: scoring queries", total=len(parsed)):
            per_attr: dict[str, list[float]] = {}
            total = 0.0
            for index in tops[qid]:
                r, matches = self._best(parsed[qid], index)
                total += r
                for attr, (m, source) in matches.items():
                    per_attr.setdefault(attr, []).append(m)
                    cells[attr][source] += 1
            per_query[qid] = total / k
            for attr, values in per_attr.items():
                attr_sum[attr] += sum(values) / len(values)
                attr_n[attr] += 1
        coverage, sources = {}, {}
        for attr in ATTRIBUTES:
            n_cells = sum(cells[attr].values())
            coverage[attr] = (1 - cells[attr]["missing"] / n_cells) if n_cells else None
            sources[attr] = {s: c / n_cells for s, c in cells[attr].items()} if n_cells else None
        return {
            "k": k,
            "R@k": sum(per_query.values()) / len(per_query) if per_query else None,
            "n_queries": len(per_query),
            "per_query": per_query,
            "attr_score": {a: attr_sum[a] / attr_n[a] if attr_n[a] else None for a in ATTRIBUTES},
            "attr_queries": attr_n,
            "coverage": coverage,
            "sources": sources,
            "weights": dict(self.weights),
        }
