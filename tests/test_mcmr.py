"""The MCMR release (``build --mcmr``) on 300 real photographed Myntra items: controlled k_T = k_I queries, the modality
record kept in the labels, grades from the construction, every candidate regime, and the MCMR tables and report."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, main_code

from fashionrq.images.store import catalog_vocabulary, extract_items
from fashionrq.images.verbalize import FACETS, photo_facets
from fashionrq.io import read_jsonl
from fashionrq.encoders.text import item_text
from fashionrq.querygen.mcmr import MIN_JOINT, MIN_SHARE, TEXT_ATTRIBUTES, catalog_table, text_answerable
from fashionrq.querygen.records import Constraint
from fashionrq.release import Release
from fashionrq.sid.sids_file import read_sids
from fashionrq.tasks import BuildConfig, TaskConfig, build_release

#: Whole-module sealed runs and release builds over the fixture: tens of seconds; CI runs them with -m slow.
pytestmark = pytest.mark.slow

#: 50 photographed items of each of the 6 commonest article types, with their 72 x 96 bundled thumbnails
#: (``python scripts/build_image_subset.py --out tests/fixtures/myntra_images --types 6 --per-type 50``).
MYNTRA_IMAGES = FIXTURES / "myntra_images"
#: Leaves of about 2-3 items; 20 anchor leaves spread so that T2 has a dev and a test split.
MCMR_TASKS = TaskConfig(pool_size=8, max_anchor_leaves=20, shares=(("t1", 0.4), ("t1o", 0.2), ("t2", 0.25), ("t3", 0.15)))


@pytest.fixture(scope="module")
def mcmr_bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("mcmr") / "BENCH"
    build_release(BuildConfig(catalog=MYNTRA_IMAGES, out=out, encoder="minilm", seed=0, sid_method="rkmeans", codebook_size=5,
                              queries_backend="mcmr", task_config=MCMR_TASKS, allow_weak=True))  # the 30 photographed fixture items give a handful of units
    return out


@pytest.fixture(scope="module")
def records(mcmr_bench):
    return {row["qid"]: row for row in read_jsonl(mcmr_bench / "labels" / "mcmr.jsonl")}


def _queries(bench: Path) -> dict[str, str]:
    return {row["qid"]: row["text"] for path in sorted((bench / "public").glob("t*_queries.jsonl")) for row in read_jsonl(path)}


def test_every_query_combines_exactly_k_text_and_k_image_constraints(mcmr_bench, records):
    texts = _queries(mcmr_bench)
    assert set(records) == set(texts)  # every public query has its hidden record
    variants = defaultdict(set)
    for qid, row in records.items():
        modalities = [c["modality"] for c in row["constraints"]]
        assert row["k_text"] == modalities.count("text") and row["k_image"] == modalities.count("image")
        assert {c["attribute"] for c in row["constraints"] if c["modality"] == "text"} <= set(TEXT_ATTRIBUTES)
        assert {c["attribute"] for c in row["constraints"] if c["modality"] == "image"} <= set(FACETS)
        expected = {"fused": (row["k_text"], row["k_text"]), "text": (5, 0), "image": (0, 5)}[row["variant"]]
        assert (row["k_text"], row["k_image"]) == expected and 1 <= row["k_text"] + row["k_image"] <= 10
        assert row["head"] in texts[qid].lower()
        variants[row["intent"]].add((row["variant"], row["k_text"], row["k_image"]))
    full = {("fused", k, k) for k in range(1, 6)} | {("text", 5, 0), ("image", 0, 5)}
    assert all(v <= full for v in variants.values())
    assert sum(v == full for v in variants.values()) >= 5  # complete intents for the controlled curve


def test_constraints_hold_for_the_intent_leaf_and_nest_as_k_grows(mcmr_bench, records):
    items = Release(mcmr_bench).items()  # photos resolved under public/images/, as a sealed run sees them
    ids, sids = read_sids(mcmr_bench / "labels" / "sids.parquet")
    assert ids == items.column("item_id").to_pylist()
    table = catalog_table(items.to_pandas())
    photos = extract_items(items, vocabulary=catalog_vocabulary(items))
    facets = [photo_facets(photos.get(i)) for i in ids]
    leaf_of = ["-".join(map(str, row)) for row in sids]
    by_intent = defaultdict(dict)
    for row in records.values():
        rows = [r for r, leaf in enumerate(leaf_of) if leaf == row["intent"]]
        for c in row["constraints"]:
            values = [facets[r].get(c["attribute"]) for r in rows] if c["modality"] == "image" else table[c["attribute"]].iloc[rows].tolist()
            share = sum(str(v) == c["value"] for v in values if v is not None) / len(rows)
            assert share >= MIN_SHARE and share == pytest.approx(c["share"], abs=1e-4), (row["qid"], c)
        assert sum(_satisfies(row, r, table, facets) for r in rows) >= MIN_JOINT, row["qid"]  # jointly held
        if row["variant"] == "fused":
            by_intent[row["intent"]][row["k_text"]] = {(c["attribute"], c["value"]) for c in row["constraints"]}
    for ks in by_intent.values():
        assert all(ks[k] < ks[k + 1] for k in ks if k + 1 in ks)


def _views(bench: Path):
    """The release's public items (photos resolved as a sealed run sees them), text fields, facets and leaves."""
    items = Release(bench).items()
    ids, sids = read_sids(bench / "labels" / "sids.parquet")
    assert ids == items.column("item_id").to_pylist()
    photos = extract_items(items, vocabulary=catalog_vocabulary(items))
    return items, catalog_table(items.to_pandas()), [photo_facets(photos.get(i)) for i in ids], ids, sids


def _satisfies(row, r, table, facets) -> bool:
    """Item row ``r`` meets every condition of an MCMR record, read straight from its fields and photo."""
    for c in row["constraints"]:
        value = facets[r].get(c["attribute"]) if c["modality"] == "image" else table[c["attribute"]].iloc[r]
        if value is None or value != value or str(value) != c["value"]:
            return False
    return True


def test_open_corpus_relevance_is_every_condition_satisfied_and_pools_keep_the_prefix(mcmr_bench, records):
    """MCMR relevance (seed 003): an open-corpus item is relevant (3) only if it satisfies the head type and every
    constraint, so the relevant set nests as k grows; pooled T1 keeps the shared-prefix grades of its one pool."""
    items, table, facets, ids, sids = _views(mcmr_bench)
    phi = {r["qid"]: r["phi"] for r in read_jsonl(mcmr_bench / "labels" / "phi.jsonl")}
    judged = defaultdict(dict)
    for line in (mcmr_bench / "labels" / "t1o.qrels").read_text().splitlines():
        qid, _, item, grade = line.split()
        judged[qid][item] = int(grade)
    relevant_by_k = defaultdict(dict)
    for qid, grades in judged.items():
        row = records[qid]
        heads = set(phi[qid]["product_type"])
        expected = {ids[r] for r in range(len(ids)) if table["article_type"].iloc[r] in heads and _satisfies(row, r, table, facets)}
        assert {i for i, g in grades.items() if g > 0} == expected and set(grades.values()) <= {0, 3}, qid
        assert expected, qid  # every query has items that satisfy all its conditions (MIN_JOINT)
        if row["variant"] == "fused":
            relevant_by_k[row["intent"]][row["k_text"]] = expected
    assert any(len(ks) > 1 for ks in relevant_by_k.values())
    for ks in relevant_by_k.values():
        assert all(ks[k + 1] <= ks[k] for k in ks if k + 1 in ks)
    code = dict(zip(ids, (tuple(r) for r in sids)))
    pools = {row["qid"]: row["candidates"] for row in read_jsonl(mcmr_bench / "public" / "t1_candidates.jsonl")}
    by_intent = defaultdict(set)
    for line in (mcmr_bench / "labels" / "t1.qrels").read_text().splitlines():
        qid, _, item, grade = line.split()
        anchor = tuple(int(c) for c in records[qid]["intent"].split("-"))
        assert int(grade) == int(np.cumprod(np.array(code[item]) == np.array(anchor)).sum())
        by_intent[records[qid]["intent"]].add(tuple(pools[qid]))
    assert all(len(p) == 1 for p in by_intent.values())


def test_no_image_condition_is_answerable_from_the_text_view_and_no_hidden_field_is_asked(mcmr_bench, records):
    """MCMR's validator: an image-only condition is not named by the text view of most of its leaf's items; price
    and year, which no candidate view shows, are never asked."""
    items, table, facets, ids, sids = _views(mcmr_bench)
    texts = [item_text(r) for r in items.to_pylist()]
    leaf_of = ["-".join(map(str, row)) for row in sids]
    checked = 0
    for row in records.values():
        assert not {c["attribute"] for c in row["constraints"]} & {"price_tier", "year"}
        leaf_texts = [texts[r] for r, leaf in enumerate(leaf_of) if leaf == row["intent"]]
        for c in row["constraints"]:
            if c["modality"] == "image":
                assert not text_answerable(Constraint(c["attribute"], c["value"], "image", c["share"]), leaf_texts), (row["qid"], c)
                checked += 1
    assert checked > 50
    manifest = json.loads((mcmr_bench / "manifest.json").read_text())
    assert manifest["report"]["querygen"]["mcmr"]["image_constraints_skipped_as_answerable_from_text"] > 0


def test_public_files_carry_no_modality_record_and_no_grade(mcmr_bench, records):
    public = mcmr_bench / "public"
    assert not (public / "mcmr.jsonl").exists()
    for path in public.glob("*.jsonl"):
        text = path.read_text(encoding="utf-8")
        assert all(word not in text for word in ('"intent"', '"variant"', '"k_text"', '"modality"', '"share"')), path
    for path in public.glob("t*_queries.jsonl"):
        assert all(set(row) <= {"qid", "text", "candidates", "group_id"} for row in read_jsonl(path))
    manifest = json.loads((mcmr_bench / "manifest.json").read_text())
    assert manifest["config"]["queries_backend"] == "mcmr" and manifest["catalog"]["items_with_photo"] == 300
    assert "labels/mcmr.jsonl" in manifest["files"]


def test_a_label_blind_probe_cannot_read_the_grades(mcmr_bench, tmp_path):
    from fashionrq.pipeline.probes import probe_release
    from fashionrq.protocol.probe import QUERY_BLIND

    report = probe_release(mcmr_bench, systems=["probe-copool", "probe-frequency", "probe-qid-order", QUERY_BLIND],
                           resamples=500, out=tmp_path / "probe")
    assert report.passed, str(report)


@pytest.fixture(scope="module")
def ablation(mcmr_bench, tmp_path_factory):
    from fashionrq.pipeline.mcmr import modality_ablation
    from fashionrq.report.mcmr import MCMRAblation

    return MCMRAblation.of(modality_ablation(mcmr_bench, tmp_path_factory.mktemp("mcmr-runs"), ["bm25", "image-descriptor"], workers=2))


def test_every_regime_runs_and_scores_by_constraint_count(ablation):
    assert [(r.system, r.regime) for r in ablation.runs] == [
        ("bm25", "text"), ("bm25", "image"), ("bm25", "fused"), ("image-descriptor", "image"), ("image-descriptor", "fused")]
    for run in ablation.runs:
        assert json.loads((run.run / "run.json").read_text())["config"]["regime"] == run.regime
        assert json.loads((run.run / "scores.json").read_text()) == run.scores
        by_variant = run.by_variant(ablation.task)
        assert list(by_variant) == ["1T+1I", "2T+2I", "3T+3I", "4T+4I", "5T+5I", "5T", "5I"]
        assert len({v["n"] for v in by_variant.values()}) == 1  # the same complete intents in every row
    text, image, fused = (ablation.runs[i].by_variant(ablation.task)["5T+5I"]["ndcg@10"] for i in range(3))
    assert text != image and fused != image  # the regimes show the system different candidates


def test_a_regime_batch_writes_what_a_single_run_writes(ablation, mcmr_bench, tmp_path):
    from fashionrq.systems import run_system

    run_system(mcmr_bench, "image-descriptor", tmp_path / "single", regime="image")  # alone, in its own sealed child
    batched = next(r.run for r in ablation.runs if (r.system, r.regime) == ("image-descriptor", "image"))
    for name in ("t1.run", "t1o.run", "t2.jsonl", "t3.run", "t4.run", "run.json"):
        assert (tmp_path / "single" / name).read_bytes() == (batched / name).read_bytes(), name


def test_mcmr_tables_and_the_report_section(ablation, mcmr_bench, tmp_path):
    from fashionrq.report.page import write_report

    text = ablation.to_markdown()
    for title in ("Table 3", "Table 7", "Table 8"):
        assert title in text
    header, rows = ablation.curve_table("recall@10")
    assert header[1].startswith("1T+1I") and header[-1].startswith("5T+5I") and len(rows) == 2
    fused = next(r for r in ablation.runs if r.system == "bm25" and r.regime == "fused")
    assert rows[0][1:] == [f"{100 * fused.by_variant(ablation.task)[h.split()[0]]['recall@10']:.1f}" for h in header[1:]]
    page = write_report(mcmr_bench, [fused.run], tmp_path / "report.html", mcmr=ablation).read_text()
    assert 'id="mcmr"' in page and "by constraint count" in page and "5T+5I" in page
    assert "controlled, MCMR Table 8" in page  # the report's own constraint section reads the controlled counts


def test_build_mcmr_on_the_command_line_refuses_a_catalog_without_photos(tmp_path):
    assert main_code(["build", "--catalog", str(FIXTURES / "other_schema" / "catalog.csv"), "--mapping",
                      str(FIXTURES / "other_schema" / "mapping.toml"), "--mcmr", "--out", str(tmp_path / "b")]) == 2
    assert main_code(["build", "--mcmr", "--queries-backend", "llm", "--out", str(tmp_path / "c")]) == 2
    assert main_code(["images", "ablation", "--bench", str(tmp_path / "nothing"), "--out", str(tmp_path / "r")]) == 2
