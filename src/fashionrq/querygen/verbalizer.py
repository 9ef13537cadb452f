"""The built-in, offline query writer: turns a cluster's evidence into varied shopper queries.

Every query asserts only attribute values that at least 90 % of the cluster's items hold (jointly, not
just one by one); see docs/querygen.md for the design of sub-type coverage under that rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import fashionrq.querygen.heldout as heldout
import fashionrq.querygen.surface as surface
from fashionrq.catalog.schema import distinct_ignoring_case
from fashionrq.hierarchy import Cluster
from fashionrq.querygen.evidence import (
    ATTRIBUTE_TO_PHI,
    MIN_SUPPORT,
    SUBTYPE_SHARE,
    PRODUCT_AXES,
    CatalogValues,
    Evidence,
    Siblings,
    required_subtypes,
    subtype_axis,
)
from fashionrq.querygen.records import CATCH_ALL, GeneratedQuery, QuerySet
from fashionrq.seeding import stream
from fashionrq.vocab import PRICE_TIERS

MIN_QUERIES, MAX_QUERIES = 6, 12
MAX_TYPES_PER_QUERY = 4
MAX_MODIFIERS = 4
WIDE_PRICE_RATE = 0.35  # chance a drawn two-tier price range is written
SOURCE = "verbalizer"

#: (name, template); ``{np}`` is the noun phrase with its trailing phrases.
FRAMES: tuple[tuple[str, str], ...] = (
    ("bare", "{np}"),
    ("show", "Show me {np}"),
    ("need", "I need {np}"),
    ("looking", "Looking for {np}"),
    ("any", "Any {np}?"),
    ("buy", "I want to buy {np}"),
    ("find", "Can you find me {np}?"),
    ("where", "Where can I get {np}?"),
    ("best", "best {np}"),
    ("some", "need some {np}"),
)
_FALLBACK_NOUN = "styles"  # when no product type is supported by >= 90 % of the cluster
_KIDS_GENDERS = frozenset({"Boys", "Girls"})


@dataclass(frozen=True)
class Clause:
    """One assertion: φ key and the (disjunctive) value set it claims, with its priority for selection."""

    key: str
    values: tuple[str, ...]
    priority: float


@dataclass(frozen=True)
class _Spec:
    product: tuple[str, ...] | None
    covers: str | None


def _usable_type(value: str, axis: str, catalog: CatalogValues) -> bool:
    """A coarse category whose preferred spelling names an article type would be read as that type."""
    return axis == "article_type" or catalog.type_forms(value)[0] not in catalog.article_spellings


def _cover_set(first: str, shares: list[tuple[str, float]], ev: Evidence, usable) -> tuple[str, ...] | None:
    """``first`` plus the largest other usable values of its axis until the set covers >= 90 % of the items."""
    chosen = [first]
    for value, _ in shares:
        if ev.support("product_type", chosen) >= MIN_SUPPORT:
            break
        if value not in chosen and usable(value):
            if len(chosen) == MAX_TYPES_PER_QUERY:
                return None
            chosen.append(value)
    return tuple(chosen) if ev.support("product_type", chosen) >= MIN_SUPPORT else None


def _general_products(ev: Evidence, catalog: CatalogValues) -> list[tuple[str, ...]]:
    """Product-type assertions >= 90 % of the items support, finest first: a single article type, else a
    pair of article types and/or a single coarser category, else the smallest article-type set (<= 4)."""
    shares = ev.axis_shares("article_type")
    if shares and shares[0][1] >= MIN_SUPPORT:
        return [(shares[0][0],)]
    options = []
    pair = _cover_set(shares[0][0], shares, ev, lambda v: True) if shares else None
    if pair is not None and len(pair) <= 2:
        options.append(pair)
    for axis in PRODUCT_AXES[1:]:
        top = ev.axis_shares(axis)
        if top and top[0][1] >= MIN_SUPPORT and _usable_type(top[0][0], axis, catalog):
            options.append((top[0][0],))
            break
    if not options and pair is not None:
        options.append(pair)
    return options


def _catch_all_product(ev: Evidence, axis: str, catalog: CatalogValues) -> tuple[str, ...] | None:
    """The finest single category coarser than the sub-type axis that >= 90 % of the items share."""
    for coarser in PRODUCT_AXES[PRODUCT_AXES.index(axis) + 1:]:
        shares = ev.axis_shares(coarser)
        if shares and shares[0][1] >= MIN_SUPPORT and _usable_type(shares[0][0], coarser, catalog):
            return (shares[0][0],)
    return None


def _priorities(cluster: Cluster) -> dict[tuple[str, str], float]:
    """Weight of (φ key, value): lift over siblings and parent, and membership in a discriminating signature."""
    weight: dict[tuple[str, str], float] = {}

    def bump(attr: str, value: str, amount: float) -> None:
        key = ATTRIBUTE_TO_PHI.get(attr)
        if key is not None and amount > 0:
            weight[(key, value)] = weight.get((key, value), 0.0) + amount

    for c in cluster.sibling_contrast:
        bump(c.attribute, c.value, 2.0 * c.lift)
    for c in cluster.parent_contrast:
        bump(c.attribute, c.value, c.lift)
    for sig in cluster.discriminating:
        for attr, value in sig.attributes:
            bump(attr, value, 0.5)
    return weight


def _modifier_clauses(ev: Evidence, cluster: Cluster) -> list[Clause]:
    """Every non-product assertion the evidence supports, highest priority first."""
    weight = _priorities(cluster)
    candidates: list[tuple[str, tuple[str, ...]]] = []

    def top(key: str, column: int = 0) -> list[tuple[str, float]]:
        return ev.shares(key, column)

    for key in ("gender", "brand", "pattern", "material"):
        shares = top(key)
        if key == "gender" and shares and shares[0][0] not in surface.GENDER_FORMS:
            continue  # a value no mapping read as a gender (a resale store's "life & living" department) is never said as one
        if shares and shares[0][1] >= MIN_SUPPORT:
            candidates.append((key, (shares[0][0],)))
    age = top("age_group")
    if age and age[0][0] != "adult" and age[0][1] >= MIN_SUPPORT:
        candidates.append(("age_group", (age[0][0],)))
    colours = top("color")
    if colours:
        if colours[0][1] >= MIN_SUPPORT:
            candidates.append(("color", (colours[0][0],)))
        elif len(colours) > 1 and ev.support("color", [colours[0][0], colours[1][0]]) >= MIN_SUPPORT:
            candidates.append(("color", tuple(sorted((colours[0][0], colours[1][0])))))
    occasions = ev.values("occasion")
    best = max(occasions, key=lambda v: (ev.support("occasion", [v]), v), default=None)
    if best is not None and ev.support("occasion", [best]) >= MIN_SUPPORT:
        candidates.append(("occasion", (best,)))
    price_sets = [(t,) for t in PRICE_TIERS] + [("budget", "mid-range"), ("mid-range", "premium")]
    price = next((s for s in price_sets if ev.support("price_hint", s) >= MIN_SUPPORT), None)
    if price is not None:
        candidates.append(("price_hint", price))
    styles = ev.values("style_tags")
    candidates += [("style_tags", (v,)) for v in styles if ev.support("style_tags", [v]) >= MIN_SUPPORT]
    clauses = [Clause(k, vals, 0.1 + sum(weight.get((k, v), 0.0) for v in vals)) for k, vals in candidates]
    return sorted(clauses, key=lambda c: (-c.priority, c.key, c.values))


def _joint_mask(product: tuple[str, ...] | None, chosen: list[Clause], ev: Evidence) -> np.ndarray:
    """The items the product type and the chosen clauses hold for together."""
    mask = ev.mask("product_type", product).copy() if product else np.ones(ev.n, dtype=bool)
    for clause in chosen:
        mask &= ev.mask(clause.key, clause.values)
    return mask


def _joint_ok(product: tuple[str, ...] | None, chosen: list[Clause], ev: Evidence) -> bool:
    """The product type and the chosen clauses hold together for >= 90 % of the items."""
    return bool(_joint_mask(product, chosen, ev).mean() >= MIN_SUPPORT) if ev.n else False


def _sharpen(product: tuple[str, ...] | None, chosen: list[Clause], clauses: list[Clause], ev: Evidence,
             siblings: Siblings | None) -> list[Clause]:
    """Add, while a sibling leaf still holds the query, the supported clause that tells the most such siblings
    apart (§8.0.2: queries discriminate from their siblings); stop when none helps or at :data:`MAX_MODIFIERS`."""
    if siblings is None:
        return chosen
    chosen = list(chosen)
    left = siblings.matched(_joint_mask(product, chosen, siblings.evidence))
    while left.any() and len(chosen) < MAX_MODIFIERS:
        used = {c.key for c in chosen if c.key != "style_tags"}
        best, best_left = None, left
        for clause in clauses:
            if clause in chosen or clause.key in used or _repeats_a_word(clause, chosen) or not _joint_ok(product, chosen + [clause], ev):
                continue
            still = left & siblings.matched(_joint_mask(product, chosen + [clause], siblings.evidence))
            if still.sum() < best_left.sum():
                best, best_left = clause, still
        if best is None:
            break
        chosen.append(best)
        left = best_left
    return chosen


def _pick(rng: np.random.Generator, options) -> str:
    return options[int(rng.integers(len(options)))]


def _noun_phrase(product: tuple[str, ...] | None, mods: list[Clause], rng: np.random.Generator,
                 want_tail: bool, price_forms: dict, english: bool = True) -> tuple[str, dict[str, list[str]], tuple[str, ...]]:
    """Render the noun phrase; return it, the φ attributes it expresses and the keys written in a held-out
    wording (:mod:`fashionrq.querygen.heldout`). ``price_forms``: :func:`surface.price_forms` of the catalog;
    ``english``: whether its names are English (:attr:`CatalogValues.english_names`)."""
    held_out: list[str] = []

    def wording(key: str, values: tuple[str, ...], adjs, tails):
        """A clause's spellings: its held-out wording, drawn at :data:`heldout.HELD_OUT_RATE`, else the lexicon's."""
        forms = heldout.forms(key, values)
        if forms is not None and rng.random() < heldout.HELD_OUT_RATE:
            held_out.append(key)
            return forms
        return adjs, tails

    noun = surface.type_display(product, english) if product else _FALLBACK_NOUN
    if product and len(product) == 1 and product[0] in heldout.TYPE and rng.random() < heldout.HELD_OUT_RATE:
        noun = heldout.TYPE[product[0]]
        held_out.append("product_type")
    by_key: dict[str, list[Clause]] = {}
    for clause in mods:
        by_key.setdefault(clause.key, []).append(clause)
    pre: list[str] = []
    post: list[str] = []
    expressed: dict[str, list[str]] = {}
    if product:
        expressed["product_type"] = sorted(product)

    def use(clause: Clause) -> None:
        expressed.setdefault(clause.key, [])
        expressed[clause.key] = sorted(set(expressed[clause.key]) | set(clause.values))

    for_tails: list[str] = []  # at most one "for ..." phrase reads naturally

    def adj_or_tail(clause: Clause, adjs, tails, prefer_tail: bool = False) -> tuple[str | None, str | None]:
        if for_tails and adjs:
            tails = tuple(t for t in tails if not t.startswith("for "))
        if tails and (not adjs or prefer_tail or rng.random() < 0.4):
            tail = _pick(rng, tails)
            if tail.startswith("for "):
                for_tails.append(tail)
            return None, tail
        return (_pick(rng, adjs), None) if adjs else (None, None)

    o_adj = o_tail = None
    for clause in by_key.get("occasion", []):
        adjs, tails = wording("occasion", clause.values, *surface.adj_tail_forms(surface.OCCASION_FORMS, clause.values[0]))
        o_adj, o_tail = adj_or_tail(clause, adjs, tails, prefer_tail=want_tail)
        use(clause)
    price_adj = price_tail = None
    for clause in by_key.get("price_hint", []):
        adjs, tails = wording("price_hint", clause.values, *price_forms[clause.values])
        price_adj, price_tail = adj_or_tail(clause, adjs, tails)
        use(clause)
    if price_adj:
        pre.append(price_adj)
    for clause in by_key.get("brand", []):
        pre.append(clause.values[0])
        use(clause)
    gender_tail = None
    genders = by_key.get("gender", [])
    for clause in genders:
        before, after = wording("gender", clause.values,
                                *surface.gender_forms(clause.values[0]))
        g_adj, gender_tail = adj_or_tail(clause, before, after)
        if g_adj:
            pre.append(g_adj)
        use(clause)
    kid_gender = any(c.values[0] in _KIDS_GENDERS for c in genders)
    for clause in by_key.get("age_group", []):
        if kid_gender:
            continue  # "boys'" already says it; do not stack "kids' ... for boys"
        before, after = wording("age_group", clause.values, *surface.AGE_FORMS[clause.values[0]])
        a_adj, a_tail = adj_or_tail(clause, before, after if gender_tail is None else ())
        if a_adj:
            pre.append(a_adj)
        if a_tail:
            post.append(a_tail)
        use(clause)
    for clause in by_key.get("color", []):
        # "Grey" and "grey" (free-text colours), or two colours of one spelling, are said once; "black/white" never
        forms = [_pick(rng, [f for f in surface.colour_forms(value)[:2] if "/" not in f])
                 for value in distinct_ignoring_case(clause.values)]
        pre.append(" or ".join(distinct_ignoring_case(forms)))
        use(clause)
    for key, forms in (("pattern", surface.pattern_forms), ("material", surface.material_forms)):
        for clause in by_key.get(key, []):
            pre.append(forms(clause.values[0])[0])
            use(clause)
    for clause in by_key.get("style_tags", []):
        adjs, tails = wording("style_tags", clause.values, *surface.adj_tail_forms(surface.STYLE_FORMS, clause.values[0]))
        s_adj, s_tail = adj_or_tail(clause, adjs, tails)
        if s_adj:
            pre.append(s_adj)
        if s_tail:
            post.append(s_tail)
        use(clause)
    if o_adj:
        pre.append(o_adj)
    if o_tail:
        post.append(o_tail)
    brand = by_key["brand"][0].values[0] if by_key.get("brand") else None
    if brand is not None and pre and pre[-1] == brand and surface.same_word(brand.split()[-1], noun.split()[0]):
        post.insert(0, f"from {pre.pop()}")  # "F Sports sports shoes" reads "sports shoes from F Sports"
    elif brand is not None and by_key.get("color") and surface.says_a_colour(brand):
        pre.remove(brand)
        post.insert(0, f"from {brand}")  # "Red Tape brown casual shoes" reads "brown casual shoes from Red Tape"
    if gender_tail:
        post.append(gender_tail)
    if price_tail:
        post.append(price_tail)
    return " ".join(pre + [noun] + post), expressed, tuple(dict.fromkeys(held_out))


def _render(spec: _Spec, mods: list[Clause], frame: tuple[str, str], rng: np.random.Generator,
            price_forms: dict, english: bool) -> tuple[str, dict[str, list[str]], tuple[str, ...]]:
    name, template = frame
    phrase, expressed, held_out = _noun_phrase(spec.product, mods, rng, name == "need", price_forms, english)
    text = template.format(np=phrase)
    if name not in ("bare", "best", "some"):
        text = text[0].upper() + text[1:]
    return " ".join(text.split()), expressed, held_out


def _usable_mods(spec: _Spec, clauses: list[Clause], english: bool = True) -> list[Clause]:
    """Drop an occasion, gender, age group, material, pattern or colour the product noun already names ("casual
    shoes" needs no "casual", a category "Men's Clothing" no "men's", "silk handkerchief" no "silk": never "men's
    men's clothing", "silk silk handkerchief")."""
    if not spec.product:
        return clauses
    noun = f" {surface.type_display(spec.product, english)} "
    return [c for c in clauses if not any(f" {form} " in noun for form in _noun_words(c))]


#: Keys whose one value is said as written before the noun.
_WRITTEN_BEFORE_NOUN = ("occasion", "material", "pattern", "color")


def _noun_words(clause: Clause) -> tuple[str, ...]:
    """The words before a noun that say ``clause`` when it is an occasion, a material, a pattern or one colour, a
    gender or an age group; else none."""
    value = clause.values[0]
    if clause.key in _WRITTEN_BEFORE_NOUN:
        return (value.lower(),) if len(clause.values) == 1 else ()
    if clause.key == "gender":
        return surface.gender_forms(value)[0]
    return surface.AGE_FORMS[value][0] if clause.key == "age_group" and value in surface.AGE_FORMS else ()


def _choose_mods(product: tuple[str, ...] | None, clauses: list[Clause], rng: np.random.Generator, ev: Evidence, need_one: bool) -> list[Clause]:
    if not clauses:
        return []
    # at least one modifier when the evidence offers one: a bare "t-shirts" cannot tell siblings apart
    k = int(rng.choice([1, 1, 2, 2, 3, 4])) if not need_one else int(rng.integers(1, 4))
    k = min(k, len(clauses), MAX_MODIFIERS)
    weights = np.array([c.priority for c in clauses], dtype=float)
    order = rng.choice(len(clauses), size=len(clauses), replace=False, p=weights / weights.sum())
    chosen: list[Clause] = []
    for i in order:
        if len(chosen) == k:
            break
        if any(c.key == clauses[i].key and c.key != "style_tags" for c in chosen):
            continue
        if _repeats_a_word(clauses[i], chosen):
            continue
        if clauses[i].key == "price_hint" and len(clauses[i].values) > 1 and rng.random() >= WIDE_PRICE_RATE:
            continue  # a two-tier range ("up to ₹1,500") holds for many clusters: keep it from crowding every query
        if _joint_ok(product, chosen + [clauses[i]], ev):
            chosen.append(clauses[i])
    return chosen


def _repeats_a_word(clause: Clause, chosen: list[Clause]) -> bool:
    """Whether ``clause`` says a colour, material or pattern word a chosen clause says (a silver material beside the
    colours "metallic or silver": never "metallic or silver silver rings")."""
    return bool(_said_words(clause) & {w for c in chosen for w in _said_words(c)})


def _said_words(clause: Clause) -> set[str]:
    """The words a colour, material or pattern clause says (``{"metallic", "silver"}``); none for other keys."""
    return {w for v in clause.values for w in v.lower().split()} if clause.key in ("color", "material", "pattern") else set()


def _norm(text: str) -> str:
    return " ".join(text.lower().strip(" ?.!").split())


def verbalize(cluster: Cluster, items: pd.DataFrame, seed: int = 0, catalog: CatalogValues | None = None,
              siblings=()) -> QuerySet:
    """6-12 unique, faithful shopper queries for ``cluster`` (``items`` is the whole items frame; pass
    ``catalog = CatalogValues(items)`` when verbalizing many clusters). ``siblings``: the item rows of each sibling
    leaf; a query one of them also holds is sharpened with a clause that tells it apart (:func:`_sharpen`)."""
    catalog = catalog or CatalogValues(items)
    ev = catalog.evidence(cluster.item_rows)
    sibling_items = Siblings.of(catalog, siblings)
    rng = stream(seed, "verbalizer", cluster.cluster_id)
    generals = _general_products(ev, catalog)
    general = generals[0] if generals else None
    axis = subtype_axis(cluster)
    axis_shares = ev.axis_shares(axis)
    gaps: list[str] = []
    specs: list[_Spec] = []
    def usable(value: str) -> bool:
        return _usable_type(value, axis, catalog)

    for value, _ in required_subtypes(cluster, ev):
        if general and value in general:
            specs.append(_Spec(general, value))
            continue
        cover = _cover_set(value, axis_shares, ev, usable) if usable(value) else None
        if cover is None:  # too spread to name: a coarser category >= 90 % share that holds every such item
            held = ev.mask("product_type", [value])
            cover = next((g for g in generals if len(g) == 1 and not (held & ~ev.mask("product_type", g)).any()), None)
        if cover is None:
            gaps.append(value)
        else:
            specs.append(_Spec(cover, value))
    if any(share < SUBTYPE_SHARE for _, share in axis_shares):
        specs.append(_Spec(_catch_all_product(ev, axis, catalog), CATCH_ALL))
    if len(specs) > MAX_QUERIES:
        gaps += [s.covers for s in specs[MAX_QUERIES - 1:-1]]
        specs = specs[: MAX_QUERIES - 1] + specs[-1:]
    target = int(np.clip(len(specs) + rng.integers(5, 11), MIN_QUERIES, MAX_QUERIES))
    # Without one product type for the whole cluster, the general queries rotate over the coverage sets.
    options = generals or [s.product for s in specs if s.product and s.covers != CATCH_ALL]
    # Named types read better than a bare category: a coarse category is one general query in three.
    weights = np.array([2.0 if len(o) > 1 or o[0] in dict(axis_shares) else 1.0 for o in options])
    for _ in range(target - len(specs) if options else 0):
        product = options[int(rng.choice(len(options), p=weights / weights.sum()))]
        dominant = product[0] if product and len(product) == 1 and any(v == product[0] for v, _ in axis_shares) else None
        specs.append(_Spec(product, dominant))

    clauses = _modifier_clauses(ev, cluster)
    price_forms = surface.price_forms(catalog.price_tiers)
    frames = [FRAMES[i] for i in rng.permutation(len(FRAMES))]
    queries: list[GeneratedQuery] = []
    seen: set[str] = set()
    for i, spec in enumerate(specs):
        mods_pool = _usable_mods(spec, clauses, catalog.english_names)
        need_one = spec.product is None
        if need_one and not mods_pool:
            continue
        for attempt in range(40):
            frame = frames[(i + attempt) % len(frames)]
            # once the modifier wordings run out, the bare product type is a wording too
            bare = attempt >= 20 and not need_one and rng.random() < 0.5
            mods = [] if bare else _sharpen(spec.product, _choose_mods(spec.product, mods_pool, rng, ev, need_one), mods_pool, ev,
                                            sibling_items)
            if need_one and not mods:
                continue
            text, expressed, held_out = _render(spec, mods, frame, rng, price_forms, catalog.english_names)
            if _norm(text) not in seen:
                seen.add(_norm(text))
                queries.append(GeneratedQuery(text, cluster.cluster_id, expressed, spec.covers, SOURCE, held_out=held_out))
                break
    # a sub-type is a gap only if no query ended up covering it (a general query may run out of new wordings)
    covered = {q.covers for q in queries}
    gaps += [s.covers for s in specs if s.covers is not None and s.covers not in covered and s.covers not in gaps]
    return QuerySet(cluster_id=cluster.cluster_id, queries=queries, coverage_gaps=gaps)
