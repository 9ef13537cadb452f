"""The label audit and the full-match rule on the Myntra fixture: labels credit every item that satisfies the query."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import main_code
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.protocol.audit import ORACLE_METRICS, ReleaseMatches, audit_release
from fashionrq.protocol.commitment import commit_run
from fashionrq.protocol.scoring import score_run
from fashionrq.querygen.evidence import CatalogValues
from fashionrq.relevance.fullmatch import FullMatch
from fashionrq.systems import run_system
from fashionrq.io import read_jsonl
from fashionrq.tasks import read_qrels


@pytest.fixture(scope="module")
def full(fixture_items) -> FullMatch:
    return FullMatch(CatalogValues(items_frame(fixture_items)))


@pytest.fixture(scope="module")
def frame(fixture_items):
    return items_frame(fixture_items)


def test_a_full_match_satisfies_every_stated_condition_on_the_items_own_fields(full, frame):
    phi = {"product_type": ["Tshirts"], "gender": ["Men"], "color": ["Black"]}
    rows = full.rows(phi)
    assert len(rows) > 5
    picked = frame.iloc[rows]
    assert set(picked["article_type"]) == {"Tshirts"} and set(picked["gender"]) == {"Men"}
    # every item holding all three is found, and nothing else
    expected = np.flatnonzero((frame["article_type"] == "Tshirts") & (frame["gender"] == "Men") & (frame["base_colour"] == "Black"))
    assert rows.tolist() == expected.tolist()
    # product type matches at any category level; "Shirts" is not satisfied by a T-shirt (substring of "Tshirts")
    assert (frame.iloc[full.rows({"product_type": ["Topwear"]})]["sub_category"] == "Topwear").all()
    assert not (frame.iloc[full.rows({"product_type": ["Shirts"]})]["article_type"] == "Tshirts").any()


def test_an_item_contradicts_a_query_only_by_a_known_value_far_from_every_stated_one(full, frame):
    """A green bag contradicts "red handbags", a maroon one does not (ΔE under 60: near, if no full match); a unisex
    item contradicts no gender, a missing colour nothing; a full match never contradicts."""
    colour, gender = frame["base_colour"].to_numpy(), frame["gender"].to_numpy()
    red = full.contradicts({"color": ["Red"]})
    assert red[colour == "Green"].all() and not red[np.isin(colour, ["Red", "Maroon"])].any()
    unpriced = pd.isna(frame["price"]).to_numpy()
    premium = full.contradicts({"price_hint": ["premium"]})
    assert unpriced.any() and not premium[unpriced].any() and premium[~unpriced].any()
    women = full.contradicts({"gender": ["Women"]})
    assert women[gender == "Men"].all() and not women[np.isin(gender, ["Women", "Unisex"])].any() and (gender == "Unisex").any()
    phi = {"product_type": ["Tshirts"], "gender": ["Men"], "color": ["Black"]}
    assert not (full.mask(phi) & full.contradicts(phi)).any()
    assert full.contradicts(phi)[(frame["article_type"] == "Shirts").to_numpy()].all()
    # a catalog of types only (a Shopee scrape's: no sub or master category): another type still contradicts
    typed_only = FullMatch(CatalogValues(frame.assign(master_category=None, sub_category=None)))
    shoes = typed_only.contradicts({"product_type": ["Casual Shoes"]})
    assert shoes[(frame["article_type"] == "Caps").to_numpy()].all() and not shoes[(frame["article_type"] == "Casual Shoes").to_numpy()].any()
    # a colour far from every stated one (beige for "turquoise", ΔE 52) contradicts; a near one (maroon for red) not
    assert full.contradicts({"color": ["Turquoise Blue"]})[colour == "Beige"].all() and (colour == "Beige").any()


def test_brand_is_matched_without_case_and_colour_by_cie76(full, frame):
    brands = frame["brand"].dropna()
    brand = brands.iloc[0]
    assert (full.mask({"brand": [brand.upper()]}) == full.mask({"brand": [brand.lower()]})).all()
    assert full.mask({"brand": [brand.upper()]}).sum() == (frame["brand"].str.lower() == brand.lower()).sum()
    # "Off White" is within ΔE 18 of "White" (score >= 0.85), "Black" is not
    white = full.mask({"color": ["White"]})
    assert white[(frame["base_colour"] == "Off White").to_numpy()].all()
    assert not white[(frame["base_colour"] == "Black").to_numpy()].any()


def test_values_match_however_an_llm_spells_them(full):
    from fashionrq.relevance.fullmatch import value_key

    assert value_key("T-shirts") == value_key("tshirt") == value_key("Tshirts") == "tshirt"
    assert value_key("Dresses") == value_key("dress") and value_key("Accessories") == value_key("accessory")
    assert (full.mask({"product_type": ["t-shirt"]}) == full.mask({"product_type": ["Tshirts"]})).all()


def test_a_missing_value_or_an_empty_phi_satisfies_nothing(full, frame):
    no_colour = frame["base_colour"].isna().to_numpy()
    colours = sorted(frame["base_colour"].dropna().unique())
    any_colour = np.zeros(len(frame), dtype=bool)
    for colour in colours:
        any_colour |= full.mask({"color": [colour]})
    assert not any_colour[no_colour].any()
    assert not full.mask({"gender": None, "color": []}).any()


def test_style_tags_are_each_asserted(full, frame):
    maps = [dict(a) if a is not None else {} for a in frame["attributes"]]
    fits = sorted({m["Fit"] for m in maps if m.get("Fit")})
    sleeves = sorted({m["Sleeve Length"] for m in maps if m.get("Sleeve Length")})
    both = full.mask({"style_tags": [fits[0], sleeves[0]]})
    assert (both == (full.mask({"style_tags": [fits[0]]}) & full.mask({"style_tags": [sleeves[0]]}))).all()


@pytest.fixture(scope="module")
def audit(small_bench):
    """The fixture release's audit (about 1.3 s), read by the tests that leave the release as it is."""
    return audit_release(small_bench)


def test_the_fixture_release_meets_every_label_bar(audit):
    assert audit.passed, audit.failures
    tasks = audit.tasks
    assert tasks["t1o"]["full_matches"]["grade 0"] == 0 and tasks["t1o"]["queries"] > 50
    assert tasks["t3"]["ambiguous_queries"] == 0 and tasks["t3"]["target_not_full_match"] == 0
    for task in ("t1", "t2", "t4"):
        grades = tasks[task]["by_grade"]
        assert grades["related"]["full_matches"] == grades["irrelevant"]["full_matches"] == 0
        assert grades["exact"]["share"] > 0.9
    assert "every bar met" in str(audit)


def test_the_audit_reports_the_items_graded_2_that_are_of_another_type(small_bench, audit):
    """A Shopify crawl's open-corpus T1 graded a tote bag 2 for "black or purple tees" (28% of its grade-2 pairs;
    the grade is the shared prefix's, seed 000 §8.0.4), and the audit said nothing. It now reports, per task, the
    share of the pairs graded 2 whose item is of another type than the query states (no bar). Recounted here from
    the public items' three category levels and the hidden φ: a type the query names at none of them."""
    import pyarrow.parquet as pq

    from fashionrq.relevance.fullmatch import value_key

    items = {r["item_id"]: r for r in pq.read_table(small_bench / "public" / "items.parquet").to_pylist()}
    phis = {r["qid"]: r["phi"] for r in read_jsonl(small_bench / "labels" / "phi.jsonl")}
    tasks = audit.tasks
    for task in ("t1o", "t1", "t2", "t3", "t4"):
        if task == "t2":  # the pairs, their dev labels public and their test labels withheld
            labels = {r["pair_id"]: r["label"] for name in ("public/t2_dev_labels.jsonl", "labels/t2_test.jsonl")
                      for r in read_jsonl(small_bench / name)}
            qrels = [(r["qid"], r["item_id"], labels[r["pair_id"]]) for r in read_jsonl(small_bench / "public" / "t2_pairs.jsonl")]
        else:
            qrels = read_qrels(small_bench / "labels" / f"{task}.qrels")
        pairs = [(q, i) for q, i, g in qrels if g == 2]
        other = sum(bool(phis[q].get("product_type")) and not {value_key(t) for t in phis[q]["product_type"]} & {
            value_key(items[i][level]) for level in ("master_category", "sub_category", "article_type") if items[i][level]}
            for q, i in pairs)
        assert tasks[task]["graded_2_other_type"] == other, task
        assert tasks[task]["graded_2_other_type_share"] == (round(other / len(pairs), 4) if pairs else None)
    assert tasks["t1"]["graded_2_other_type"] > 0  # the fixture's pooled Sibling tiers hold other types
    assert "items graded 2 of another type: " in str(audit)


def test_open_corpus_answers_sit_in_public_lists_as_often_as_the_catalogs_items(audit):
    """The hard-negative draws balance every open-corpus grade's listed share (ItemClaims.draw(balance=True)), so
    putting the never-listed items first gains nothing on open-corpus T1 (probe-rarity). Before the balance weighed
    every (query, item) pair, the fixture's Sibling pairs were listed 60.2% against the catalog's 57.7%."""
    listing = audit.tasks["t1o"]["listing"]
    catalog = listing["catalog_listed_share"]
    assert 0.3 < catalog < 0.9
    for grade, share in listing["pairs_listed_share"].items():
        assert abs(share - catalog) <= 0.02, (grade, share, catalog)
    ndcg = listing["expected_ndcg@10"]
    assert 0.98 <= ndcg["never_listed_first"] / ndcg["random"] <= 1.02, ndcg


def _copy(bench: Path, tmp_path: Path) -> Path:
    out = tmp_path / "BENCH"
    shutil.copytree(bench, out, ignore=shutil.ignore_patterns("images"))
    return out


def test_the_audit_fails_a_release_that_grades_an_item_contradicting_its_query_exact(small_bench, audit, tmp_path):
    """The fixture release grades no Exact item that contradicts its query (a Vestiaire Collective scrape's "Show me
    women's red handbags" had graded the anchor leaf's green bag 3; the leaf's support rule leaves a tenth of it
    out of any condition); graded by the prefix alone again, the audit fails it and names the share."""
    assert all(audit.tasks[t]["exact_contradicting"] == 0 for t in ("t1o", "t1", "t2", "t3", "t4"))
    bench = _copy(small_bench, tmp_path)
    found = ReleaseMatches.load(bench)
    path = bench / "labels" / "t1.qrels"
    lines = path.read_text().splitlines()
    raised = [" ".join([*line.split()[:3], "3"]) if line.split()[3] == "2" and found.meta[line.split()[0]]["leaf"]
              == found.leaf_of[found.row_of[line.split()[2]]] else line for line in lines]
    assert sum(a != b for a, b in zip(lines, raised)) > 10
    path.write_text("\n".join(raised) + "\n")
    raised_audit = audit_release(bench)
    assert raised_audit.tasks["t1"]["exact_contradicting"] == sum(a != b for a, b in zip(lines, raised))
    assert any(f.startswith("pooled T1 Exact items that contradict their query") for f in raised_audit.failures)
    assert main_code(["audit", str(bench)]) == 1


def test_the_audit_fails_a_release_that_grades_full_matches_0(small_bench, tmp_path):
    """Judging only the anchor's level-2 prefix in the open corpus (a stricter form of the old rule, which judged its
    level-1 prefix: on the fixture that one now grades 3 % of the full matches 0, under the 5 % bar) fails the audit,
    which names the share."""
    bench = _copy(small_bench, tmp_path)
    found = ReleaseMatches.load(bench)
    path = bench / "labels" / "t1o.qrels"
    kept = [line for line in path.read_text().splitlines()
            if found.meta[line.split()[0]]["leaf"].split("-")[:2] == found.leaf_of[found.ids.index(line.split()[2])].split("-")[:2]]
    assert len(kept) < len(path.read_text().splitlines())
    path.write_text("\n".join(kept) + "\n")
    audit = audit_release(bench)
    assert not audit.passed and audit.tasks["t1o"]["full_matches"]["grade 0"] > 0
    assert any(f.startswith("open-corpus full matches graded 0") for f in audit.failures)
    assert main_code(["audit", str(bench)]) == 1
    # the audit is the command's product: on standard output, so that `fashionrq audit BENCH > audit.txt` keeps it
    done = subprocess.run([sys.executable, "-m", "fashionrq", "audit", str(small_bench)], capture_output=True, text=True)
    assert done.returncode == 0 and "verdict: every bar met" in done.stdout and "verdict" not in done.stderr, done.stderr


def test_the_audit_counts_a_single_full_match_graded_0_and_an_ambiguous_t3_query(small_bench, tmp_path):
    bench = _copy(small_bench, tmp_path)
    found = ReleaseMatches.load(bench)
    # one open-corpus full match dropped from the qrels: counted as graded 0
    path = bench / "labels" / "t1o.qrels"
    lines = path.read_text().splitlines()
    qid, item = next((q, i) for q, _, i, g in (line.split() for line in lines)
                     if found.ids.index(i) in set(found.matches[q].tolist()) and g == "2")
    path.write_text("\n".join(line for line in lines if line.split()[::2] != [qid, item]) + "\n")
    # one T3 target's grade swapped with a distractor: the query now has a non-target full match and a
    # target that is not one
    t3 = bench / "labels" / "t3.qrels"
    rows = [line.split() for line in t3.read_text().splitlines()]
    first = rows[0][0]
    target = next(r for r in rows if r[0] == first and r[3] == "3")
    other = next(r for r in rows if r[0] == first and r[3] != "3")
    target[3], other[3] = other[3], "3"
    t3.write_text("\n".join(" ".join(r) for r in rows) + "\n")
    audit = audit_release(bench)
    assert audit.tasks["t1o"]["full_matches"]["grade 0"] == 1
    assert audit.tasks["t3"]["ambiguous_queries"] == 1 and audit.tasks["t3"]["target_not_full_match"] == 1


def test_the_attribute_oracle_reaches_a_real_run(small_bench, tmp_path):
    """Ranking the query's full matches first never loses to the run it reorders (the oracle's interval reaches it)."""
    run = tmp_path / "bm25"
    run_system(small_bench, "bm25", run)
    audit = audit_release(small_bench, runs=[run], resamples=200)
    assert set(audit.oracle) == {"t1", "t1o", "t3", "t4"}
    for task, rows in audit.oracle.items():
        (row,) = rows
        assert row["oracle_reaches_run"] and row["oracle"] >= row["run_score"] - 1e-9, (task, row)
    assert audit.oracle["t1"][0]["oracle"] > audit.oracle["t1"][0]["run_score"]
    # the run's score splits into the queries worded in the lexicon's spellings and those with a held-out wording
    meta = {m["qid"]: m for m in read_jsonl(small_bench / "labels" / "queries.jsonl")}
    t1 = [m for m in meta.values() if m["task"] == "t1"]
    share = sum(bool(m["held_out"]) for m in t1) / len(t1)
    row = audit.oracle["t1"][0]
    mixed = share * row["run_held_out_worded"] + (1 - share) * row["run_lexicon_worded"]
    assert 0 < share < 1 and abs(mixed - row["run_score"]) < 1e-3, (share, row)
    # the run's score is the scorer's, on the submitted rank order (bm25's tied scores are many; trec_eval's order,
    # which breaks them by docno, gave other numbers than the leaderboard's)
    commit_run(run, small_bench)
    scored = score_run(small_bench, run, relevance=False).report["tasks"]
    for task, (_, metric) in ORACLE_METRICS.items():
        assert audit.oracle[task][0]["run_score"] == round(scored[task]["aggregate"][metric.split("(")[0]], 4), task


def test_every_kept_pooled_query_tells_its_exact_tier_apart(small_bench):
    """No pooled query has a Related or Irrelevant full match, and at most 1 of its 10 Sibling candidates is one."""
    found = ReleaseMatches.load(small_bench)
    index = {item: r for r, item in enumerate(found.ids)}
    for task in ("t1", "t4"):
        judged: dict[str, dict[str, int]] = defaultdict(dict)
        for qid, item, grade in read_qrels(small_bench / "labels" / f"{task}.qrels"):
            judged[qid][item] = grade
        for qid, grades in judged.items():
            matched = set(found.matches[qid].tolist())
            hits = defaultdict(int)
            for item, grade in grades.items():
                hits[grade] += index[item] in matched
            assert hits[0] == hits[1] == 0 and hits[2] <= 1, (task, qid, dict(hits))
    assert {m["task"] for m in read_jsonl(small_bench / "labels" / "queries.jsonl")} == {"t1", "t1o", "t2", "t3", "t4"}


def test_the_audit_of_a_release_without_labels_is_one_sentence(small_bench, tmp_path, capsys):
    bench = _copy(small_bench, tmp_path)
    (bench / "labels" / "phi.jsonl").unlink()
    assert main_code(["audit", str(bench)]) == 2
    err = capsys.readouterr().err
    assert "phi.jsonl is missing" in err.replace("\n", "") and "Traceback" not in err


def test_an_oracle_against_a_folder_without_runs_is_one_sentence(small_bench, tmp_path, capsys):
    assert main_code(["audit", str(small_bench), "--against", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no t1o.run" in err.replace("\n", "") and "Traceback" not in err
