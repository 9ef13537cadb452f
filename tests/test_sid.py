"""Semantic-ID tokenizers on the real Myntra fixture (2,181 items) with cached minilm embeddings."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

from fashionrq.catalog import ingest, write_items
from fashionrq.cli import main
from fashionrq.encoders import embed_items
from fashionrq.errors import FashionRQError
from fashionrq.sid import (
    RQVAE, ResidualKMeans, attributes_from_items, collisions, load_tokenizer, make_tokenizer, read_sids,
    report_table, save_tokenizer, sid_report, split_leaves,
)
from fashionrq.sid.exclusivity import conditional_entropy

FIXTURE = "tests/fixtures/myntra_small"
LEVEL_ATTRIBUTES = ("sub_category", "article_type", "base_colour")
FAST = {"codebook_size": 16, "epochs": 4, "batch_size": 256}


@pytest.fixture(scope="module")
def items():
    return ingest(FIXTURE).table


@pytest.fixture(scope="module")
def X(items):
    return embed_items(items, "minilm-int8")


@pytest.fixture(scope="module")
def attrs(items):
    return attributes_from_items(items, LEVEL_ATTRIBUTES)


@pytest.fixture(scope="module")
def fitted(X, attrs):
    return RQVAE(seed=0, **FAST).fit(X, attrs)


def test_shapes_and_code_range(fitted, X):
    sids = fitted.transform(X)
    assert sids.shape == (len(X), 3)
    assert sids.dtype == np.int64
    assert sids.min() >= 0 and sids.max() < 16


def test_same_seed_gives_identical_sids_and_other_seed_differs(fitted, X, attrs):
    again = RQVAE(seed=0, **FAST).fit(X, attrs).transform(X)
    assert np.array_equal(again, fitted.transform(X))
    other = RQVAE(seed=1, **FAST).fit(X, attrs).transform(X)
    assert not np.array_equal(other, again)
    km = ResidualKMeans(codebook_size=16, seed=3)
    assert np.array_equal(km.fit(X).transform(X), ResidualKMeans(codebook_size=16, seed=3).fit(X).transform(X))


def test_fit_does_not_change_global_torch_state(X, attrs):
    threads = torch.get_num_threads()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    RQVAE(seed=5, **{**FAST, "epochs": 1}).fit(X, attrs)
    assert torch.equal(torch.rand(3), expected)
    assert not torch.are_deterministic_algorithms_enabled()
    assert torch.get_num_threads() == threads


def test_residual_kmeans_codes_are_nearest_codewords(X):
    km = ResidualKMeans(levels=2, codebook_size=16, seed=0).fit(X)
    sids = km.transform(X)
    residual = X / np.linalg.norm(X, axis=1, keepdims=True)
    for level in range(2):
        book = km.codebooks_[level]
        dist = ((residual[:, None, :] - book[None]) ** 2).sum(-1)
        assert np.array_equal(sids[:, level], dist.argmin(1))
        residual = residual - book[sids[:, level]]


def test_split_leaves_cuts_only_big_leaves_into_parts_of_min_items(X, items):
    sids = ResidualKMeans(levels=3, codebook_size=4, seed=0).fit(X).transform(X)  # few codes: leaves of up to ~100 items
    out, report = split_leaves(sids, X, 10, seed=0)
    assert np.array_equal(out[:, :2], sids[:, :2])  # coarser levels untouched
    before = {tuple(s): np.flatnonzero((sids == s).all(1)) for s in np.unique(sids, axis=0)}
    parts = {}
    for leaf, rows in before.items():
        new = {tuple(s) for s in out[rows]}
        assert all(s[:2] == leaf[:2] for s in new)
        if len(rows) < 20:
            assert len(new) == 1  # too small for two parts of 10
        else:
            assert len(new) >= 2 and all(int((out[rows] == s).all(1).sum()) >= 10 for s in new)
        parts[leaf] = new
    assert sum(len(p) for p in parts.values()) == report["leaves_after"] == len(np.unique(out, axis=0))
    assert report["leaves_before"] == len(before) and report["leaves_split"] == sum(len(r) >= 20 for r in before.values()) > 0
    for parent in {leaf[:2] for leaf in before}:  # last codes renumbered 0..n-1 within each parent
        codes = sorted({s[2] for leaf, new in parts.items() if leaf[:2] == parent for s in new})
        assert codes == list(range(len(codes)))
    assert np.array_equal(split_leaves(sids, X, 10, seed=0)[0], out)


def test_level1_codebook_usage_at_least_75_percent(fitted, X, items):
    report = sid_report(fitted.transform(X), items, X, fitted)
    assert report["levels"][0]["codebook_usage"] >= 0.75
    assert report["reconstruction_error"] < 2.0


@pytest.mark.slow  # 15 s: two RQ-VAE trainings (README command 2 keeps under 5 minutes; CI runs it with -m slow)
def test_exclusivity_loss_raises_article_type_purity_over_vanilla_at_levels_2_and_3(X, attrs, items):
    params = {"codebook_size": 16, "epochs": 15, "batch_size": 256}
    gains = []
    for seed in (0, 1):
        with_loss = RQVAE(seed=seed, exclusivity_weight=0.05, **params).fit(X, attrs)
        vanilla = make_tokenizer("vanilla", seed=seed, **params).fit(X, attrs)
        for level in (1, 2):
            purity = [sid_report(m.transform(X), items)["levels"][level]["purity"]["article_type"]["weighted"] for m in (with_loss, vanilla)]
            gains.append(purity[0] - purity[1])
    assert min(gains) > 0.0 and np.mean(gains) > 0.03


def test_conditional_entropy_values():
    labels = torch.tensor([0, 0, 1, 1, 2, -1])
    pure = torch.nn.functional.one_hot(torch.tensor([0, 0, 1, 1, 2, 0]), 3).float()
    assert float(conditional_entropy(pure, labels)) == pytest.approx(0.0, abs=1e-6)
    uniform = torch.full((6, 4), 0.25)
    share = np.array([2, 2, 1]) / 5
    assert float(conditional_entropy(uniform, labels)) == pytest.approx(-(share * np.log(share)).sum(), rel=1e-5)
    # one code shared by values 0 and 1 is impure on its own, but pure within each parent prefix
    shared = torch.nn.functional.one_hot(torch.tensor([0, 0, 0, 0]), 2).float()
    values = torch.tensor([0, 0, 1, 1])
    assert float(conditional_entropy(shared, values)) == pytest.approx(np.log(2), rel=1e-5)
    assert float(conditional_entropy(shared, values, torch.tensor([5, 5, 7, 7]))) == pytest.approx(0.0, abs=1e-6)


def test_report_matches_a_direct_computation(fitted, X, items):
    sids = fitted.transform(X)
    report = sid_report(sids, items, codebook_size=16)
    frame = pd.DataFrame({"c1": sids[:, 0], "c2": sids[:, 1], "at": items.column("article_type").to_pylist(),
                          "colour": items.column("base_colour").to_pylist()})
    level1 = report["levels"][0]
    assert level1["codes_used"] == frame["c1"].nunique()
    assert level1["codebook_usage"] == pytest.approx(frame["c1"].nunique() / 16)
    assert level1["mean_cluster_size"] == pytest.approx(len(frame) / frame["c1"].nunique())
    level2 = report["levels"][1]
    groups = frame.dropna(subset=["colour"]).groupby(["c1", "c2"])["colour"]
    majority = groups.agg(lambda s: s.value_counts().iloc[0])
    assert level2["purity"]["base_colour"]["weighted"] == pytest.approx(majority.sum() / groups.size().sum())
    assert level2["purity"]["base_colour"]["unweighted"] == pytest.approx((majority / groups.size()).mean())
    for entry in report["levels"]:
        for values in entry["purity"].values():
            assert 0.0 <= values["unweighted"] <= 1.0 and 0.0 <= values["weighted"] <= 1.0
    sizes = frame.groupby(["c1", "c2"]).size()
    assert level2["median_cluster_size"] == pytest.approx(float(sizes.median()))


def test_an_attribute_no_item_has_has_no_purity_in_the_report_its_json_and_its_tables(fitted, X, items):
    """A catalog without colours (the public Flipkart crawl's): its colour purity is None (JSON null, never NaN, which
    is no JSON) and the tables say "–", never "nan"; the other attributes keep theirs."""
    from rich.console import Console

    from fashionrq.report.demo import sid_markdown
    from fashionrq.sid.ablation import purity_table, run_ablation, summarize

    colourless = items.set_column(items.schema.get_field_index("base_colour"), "base_colour",
                                  pa.nulls(len(items), pa.string()))
    report = sid_report(fitted.transform(X), colourless, codebook_size=16)
    assert all(level["purity"]["base_colour"] == {"weighted": None, "unweighted": None} for level in report["levels"])
    assert all(0 < level["purity"]["article_type"]["weighted"] <= 1 for level in report["levels"])
    json.dumps(report, allow_nan=False)
    console = Console(width=200, record=True)
    console.print(report_table(report))
    console.print(purity_table(summarize(run_ablation(X, colourless, ["rkmeans"], [8], [0]))))
    text = console.export_text() + sid_markdown(report)
    assert "nan" not in text.lower() and "– / –" in text and "| – |" in text


def test_collisions_and_dedup_level_make_ids_unique(X, attrs):
    sids = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 4], [1, 2, 3]])
    assert collisions(sids) == {"colliding_items": 3, "colliding_fraction": 0.75, "shared_ids": 1, "largest_group": 3}
    model = RQVAE(seed=0, dedup=True, **FAST).fit(X, attrs)
    with_dedup = model.transform(X)
    assert with_dedup.shape == (len(X), 4)
    assert len(np.unique(with_dedup, axis=0)) == len(X)
    model.dedup = False
    assert np.array_equal(with_dedup[:, :3], model.transform(X))


@pytest.mark.parametrize("method", ["rqvae", "rkmeans"])
def test_save_load_roundtrip(method, fitted, X, tmp_path):
    model = fitted if method == "rqvae" else make_tokenizer("rkmeans", codebook_size=16).fit(X)
    save_tokenizer(model, tmp_path / "m")
    loaded = load_tokenizer(tmp_path / "m")
    assert type(loaded) is type(model)
    assert np.array_equal(loaded.transform(X), model.transform(X))
    assert loaded.reconstruction_error(X) == pytest.approx(model.reconstruction_error(X))


def test_bad_input_raises_one_sentence_errors(X, attrs, items):
    with pytest.raises(FashionRQError, match="values but the embeddings have"):
        RQVAE(**FAST).fit(X[:-5], attrs)
    nan = X.copy()
    nan[7, 3] = np.nan
    with pytest.raises(FashionRQError, match="NaN or infinite values in 1 row.*row 7"):
        RQVAE(**FAST).fit(nan, attrs)
    with pytest.raises(FashionRQError, match="only 10 items for 16 codes"):
        ResidualKMeans(codebook_size=16).fit(X[:10])
    with pytest.raises(FashionRQError, match="attribute column 'base_colour' is missing"):
        RQVAE(**FAST).fit(X, {k: v for k, v in attrs.items() if k != "base_colour"})
    with pytest.raises(FashionRQError, match="no column colour_family"):
        attributes_from_items(items, ["article_type", "colour_family"])
    with pytest.raises(FashionRQError, match="unknown semantic-ID method"):
        make_tokenizer("lsh")


def _cli(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as done:
        main(argv)
    return done.value.code


def test_cli_train_assign_report(items, tmp_path):
    write_items(items, tmp_path / "items.parquet")
    model_dir, sids_path, report_path = tmp_path / "model", tmp_path / "sids.parquet", tmp_path / "report.json"
    assert _cli(["sid", "train", "--items", str(tmp_path), "--encoder", "minilm-int8", "--out", str(model_dir),
                 "--method", "rqvae", "--codebook-size", "16", "--epochs", "2"]) == 0
    # no --encoder: assign embeds with the encoder train recorded (minilm), not the default (minilm-int8)
    assert _cli(["sid", "assign", "--model", str(model_dir), "--items", str(tmp_path), "--out", str(sids_path)]) == 0
    item_ids, sids = read_sids(sids_path)
    assert item_ids == items.column("item_id").to_pylist()
    assert sids.shape == (items.num_rows, 3)
    assert [str(t) for t in pq.read_schema(sids_path).types] == ["string", "int16", "int16", "int16"]
    assert np.array_equal(sids, load_tokenizer(model_dir).transform(embed_items(items, "minilm-int8")))
    assert _cli(["sid", "report", "--sids", str(sids_path), "--items", str(tmp_path), "--json", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert report["items"] == items.num_rows and len(report["levels"]) == 3
    assert _cli(["sid", "assign", "--model", str(tmp_path / "nope"), "--items", str(tmp_path), "--out", str(sids_path)]) == 2
    assert _cli(["sid", "ablation", "--items", str(tmp_path), "--methods", "kmeans"]) == 2


def test_cli_assign_with_a_damaged_encoder_record_is_one_sentence(items, tmp_path, capsys):
    """`sid assign` without --encoder reads the encoder `sid train` recorded; a damaged record is one sentence."""
    write_items(items, tmp_path / "items.parquet")
    model_dir = tmp_path / "model"
    assert _cli(["sid", "train", "--items", str(tmp_path), "--encoder", "minilm-int8", "--out", str(model_dir),
                 "--method", "rkmeans", "--codebook-size", "4"]) == 0
    (model_dir / "encoder.json").write_text("{not json")
    capsys.readouterr()
    assert _cli(["sid", "assign", "--model", str(model_dir), "--items", str(tmp_path), "--out", str(tmp_path / "s.parquet")]) == 2
    err = capsys.readouterr().err
    assert "encoder.json is damaged; pass --encoder" in err.replace("\n", " ") and "Traceback" not in err
    assert not (tmp_path / "s.parquet").exists()


def test_ablation_summary_averages_seeds_and_renders(X, items):
    from rich.console import Console

    from fashionrq.sid.ablation import fragmentation_table, purity_table, run_ablation, summarize

    rows = run_ablation(X, items, ["rkmeans"], [8, 16], [0, 1])
    assert [(r["codebook_size"], r["seed"]) for r in rows] == [(8, 0), (8, 1), (16, 0), (16, 1)]
    summary = summarize(rows)
    assert [s["codebook_size"] for s in summary] == [8, 16]
    expected = np.mean([r["report"]["levels"][1]["purity"]["article_type"]["weighted"] for r in rows[2:]])
    assert summary[1]["levels"][1]["purity"]["article_type"]["weighted"] == pytest.approx(expected)
    assert summary[0]["levels"][0]["mean_cluster_size"] == pytest.approx(len(X) / 8)
    console = Console(width=120, record=True)
    console.print(purity_table(summary))
    console.print(fragmentation_table(summary))
    text = console.export_text()
    assert f"{summary[1]['levels'][1]['purity']['article_type']['weighted']:.3f}" in text
