"""Scale inputs: the synthetic catalog and bring-your-own embeddings (``--embeddings``)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from fashionrq.catalog.synth import is_synthetic, synthesize
from fashionrq.encoders.given import item_vectors, load_given_embeddings, save_embeddings
from fashionrq.errors import InputError
from fashionrq.io import write_vectors_parquet


@pytest.fixture(scope="module")
def synthetic(fixture_items):
    return synthesize(6000, seed=5, dim=32, base=fixture_items)


def _shares(column) -> dict[str, float]:
    counts = pc.value_counts(pc.fill_null(column, "")).to_pylist()
    total = sum(c["counts"] for c in counts)
    return {c["values"]: c["counts"] / total for c in counts}


def test_synthetic_catalog_is_seeded_and_labelled(fixture_items, synthetic):
    again = synthesize(6000, seed=5, dim=32, base=fixture_items)
    assert again.items.equals(synthetic.items) and np.array_equal(again.embeddings, synthetic.embeddings)
    other = synthesize(6000, seed=6, dim=32, base=fixture_items)
    assert not np.array_equal(other.embeddings, synthetic.embeddings)
    assert is_synthetic(synthetic.items) and not is_synthetic(fixture_items)
    assert synthetic.items.schema.remove_metadata().equals(fixture_items.schema.remove_metadata())
    assert len(pc.unique(synthetic.items.column("item_id"))) == 6000


def test_synthetic_attributes_follow_the_catalog(fixture_items, synthetic):
    real, fake = _shares(fixture_items.column("article_type")), _shares(synthetic.items.column("article_type"))
    assert set(fake) <= set(real)
    # total-variation distance of the article-type distribution (6,000 draws: sampling noise is ~0.05)
    assert 0.5 * sum(abs(real[k] - fake.get(k, 0.0)) for k in real) < 0.08
    # brand and colour are drawn within the article type: every (type, brand) and (type, colour) pair is a real one
    for field in ("brand", "base_colour"):
        pairs = lambda t: set(zip(t.column("article_type").to_pylist(), t.column(field).to_pylist()))  # noqa: E731
        assert pairs(synthetic.items) <= pairs(fixture_items)
    names = synthetic.items.column("name").to_pylist()
    brands = synthetic.items.column("brand").to_pylist()
    assert sum(n.startswith(b) for n, b in zip(names, brands) if b) / len(names) > 0.95


def test_synthetic_embeddings_cluster_by_attribute(synthetic):
    X = synthetic.embeddings[:1500]
    assert np.allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-5)
    types = np.array(synthetic.items.column("article_type").to_pylist()[:1500], dtype=object)
    same = types[:, None] == types[None, :]
    sims = X @ X.T
    assert sims[same].mean() - sims[~same].mean() > 0.3


@pytest.mark.slow  # a synthetic catalog written and checked through the CLI (about 10 s)
def test_synth_command_writes_a_labelled_folder_and_refuses_to_overwrite(tmp_path):
    out = tmp_path / "syn"
    cmd = [sys.executable, "-m", "fashionrq", "synth", "--items", "300", "--seed", "2", "--dim", "8", "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "synth.json").read_text())["synthetic"] is True
    assert "not real products" in (out / "SYNTHETIC.md").read_text()
    items = pq.read_table(out / "items.parquet")
    assert is_synthetic(items) and items.num_rows == 300
    given = load_given_embeddings(out / "embeddings.parquet", items.column("item_id"))
    assert given.vectors.shape == (300, 8) and given.encoder["name"] == "synthetic-prototypes"
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stdout + again.stderr


@pytest.fixture()
def ids():
    return pa.array([f"i{k}" for k in range(6)], pa.string())


def _parquet(tmp_path, ids, vectors, name="emb.parquet"):
    path = tmp_path / name
    write_vectors_parquet(path, ids, vectors)
    return path


def test_given_embeddings_are_aligned_to_item_order(tmp_path, ids):
    vectors = np.arange(12, dtype=np.float32).reshape(6, 2)
    path = _parquet(tmp_path, ids.take(pa.array([5, 4, 3, 2, 1, 0])), vectors[::-1])
    got = load_given_embeddings(path, ids)
    assert np.array_equal(got.vectors, vectors) and got.encoder["name"] == "given"
    npy = tmp_path / "emb.npy"
    save_embeddings(npy, ids.to_pylist(), vectors, {"name": "x"})
    assert np.array_equal(load_given_embeddings(npy, ids).vectors, vectors)


@pytest.mark.parametrize(
    "case, expected",
    [
        ("missing", "has no vector for 1 catalog item(s) (first: 'i5')"),
        ("extra", "1 id(s) that are not in the catalog (first: 'zz')"),
        ("duplicate", "lists item id 'i0' more than once"),
        ("nan", "1 vector(s) with NaN or infinite values (first at row 3)"),
        ("inf", "1 vector(s) with NaN or infinite values (first at row 2)"),
        ("ragged", "row 2 has a vector of a different length"),
        ("dimension", "has 2-dimensional vectors but 3 are expected"),
        ("no-ids", "needs its item ids, one per line"),
        ("id-count", "lists 5 ids but"),
        ("no-id-column", "has no item_id column"),
        ("not-parquet", "is not readable Parquet"),
        ("absent", "does not exist"),
    ],
)
def test_given_embeddings_refuse_bad_files(tmp_path, ids, case, expected):
    vectors = np.ones((6, 2), dtype=np.float32)
    dim = None
    if case == "missing":
        path = _parquet(tmp_path, ids.slice(0, 5), vectors[:5])
    elif case == "extra":
        path = _parquet(tmp_path, pa.concat_arrays([ids, pa.array(["zz"])]), np.ones((7, 2), np.float32))
    elif case == "duplicate":
        path = _parquet(tmp_path, pa.concat_arrays([ids, pa.array(["i0"])]), np.ones((7, 2), np.float32))
    elif case in ("nan", "inf"):
        vectors[2 if case == "nan" else 1, 1] = np.nan if case == "nan" else np.inf
        path = _parquet(tmp_path, ids, vectors)
    elif case == "ragged":
        path = tmp_path / "ragged.parquet"
        pq.write_table(pa.table({"item_id": ids, "v": pa.array([[1.0, 2.0], [1.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])}), path)
    elif case == "dimension":
        path, dim = _parquet(tmp_path, ids, vectors), 3
    elif case in ("no-ids", "id-count"):
        path = tmp_path / "emb.npy"
        np.save(path, vectors)
        if case == "id-count":
            (tmp_path / "emb.ids.txt").write_text("\n".join(ids.to_pylist()[:5]) + "\n")
    elif case == "no-id-column":
        path = tmp_path / "noid.parquet"
        pq.write_table(pa.table({"id": ids, "v": pa.array([[1.0]] * 6)}), path)
    elif case == "not-parquet":
        path = tmp_path / "bad.parquet"
        path.write_bytes(b"not parquet at all")
    else:
        path = tmp_path / "absent.parquet"
    with pytest.raises(InputError) as err:
        load_given_embeddings(path, ids, dim=dim)
    assert expected in str(err.value) and str(path) in str(err.value)


def test_embed_command_reports_a_bad_embeddings_file_in_one_sentence(tmp_path, fixture_items):
    items = tmp_path / "items.parquet"
    pq.write_table(fixture_items.slice(0, 20), items)
    path = _parquet(tmp_path, fixture_items.column("item_id").slice(0, 19), np.ones((19, 4), np.float32))
    done = subprocess.run([sys.executable, "-m", "fashionrq", "embed", str(items), "--embeddings", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "has no vector for 1 catalog item(s)" in done.stderr and "Traceback" not in done.stdout + done.stderr


def test_embeddings_written_by_embed_reproduce_the_computed_ones(tmp_path, fixture_items):
    items = fixture_items.slice(0, 64)
    computed, encoder = item_vectors(items, "minilm-int8", None, tmp_path / "cache")
    path = save_embeddings(tmp_path / "minilm.parquet", items.column("item_id"), computed, encoder)
    given, given_encoder = item_vectors(items, "ignored", path, None)
    assert given.dtype == computed.dtype and np.array_equal(given, computed)
    assert given_encoder == encoder


def test_an_items_table_is_read_back_column_wise_and_ids_rechecked(tmp_path, fixture_items, synthetic):
    from fashionrq.catalog import ingest
    from fashionrq.catalog.ingest import write_items

    path = tmp_path / "items.parquet"
    write_items(fixture_items, path)
    result = ingest(path)
    assert result.report.layout == "items-table" and result.table.equals(fixture_items)
    assert result.report.missing == ingest("tests/fixtures/myntra_small").report.missing
    synthetic_path = tmp_path / "synthetic.parquet"
    write_items(synthetic.items, synthetic_path)
    assert is_synthetic(ingest(synthetic_path).table)
    for bad_id, expected in (("has space", "contains whitespace"), (fixture_items.column("item_id")[0].as_py(), "appears more than once")):
        ids = fixture_items.column("item_id").to_pylist()
        ids[5] = bad_id
        write_items(fixture_items.set_column(0, "item_id", pa.array(ids, pa.string())), path)
        with pytest.raises(InputError, match=expected):
            ingest(path)


def _build_from(tmp_path, name: str, embeddings) -> dict:
    from conftest import MYNTRA_SMALL, SMALL_BUILD

    from fashionrq.tasks import BuildConfig, build_release

    config = BuildConfig(catalog=MYNTRA_SMALL, out=tmp_path / name, embeddings=embeddings, seed=SMALL_BUILD["seed"],
                         codebook_size=SMALL_BUILD["codebook_size"])
    return json.loads(build_release(config).read_text())


@pytest.mark.slow  # a second fixture build from exported vectors (about 10 s)
def test_a_build_from_exported_embeddings_writes_the_computed_builds_manifest(small_bench, fixture_items, tmp_path):
    """The vectors the computed build cached, exported with their encoder (``save_embeddings``, as ``embed --out``
    does), give a build whose manifest.json equals the computed build's, byte for byte."""
    from conftest import SMALL_BUILD

    vectors, encoder = item_vectors(fixture_items, SMALL_BUILD["encoder"], None, None)  # the cache small_bench filled
    path = save_embeddings(tmp_path / "vectors.parquet", fixture_items.column("item_id"), vectors, encoder)
    assert _build_from(tmp_path, "BENCH", path) == json.loads((small_bench / "manifest.json").read_text())
    assert (tmp_path / "BENCH" / "manifest.json").read_bytes() == (small_bench / "manifest.json").read_bytes()


@pytest.mark.slow
def test_embeddings_without_an_encoder_record_change_only_the_encoder_identity(small_bench, fixture_items, tmp_path):
    """A vectors file with no encoder metadata is recorded as encoder "given" (name and fingerprint unknown); the
    vectors' hash, the SIDs and every file of the release stay those of the computed build."""
    from conftest import SMALL_BUILD

    vectors, _ = item_vectors(fixture_items, SMALL_BUILD["encoder"], None, None)
    path = tmp_path / "plain.parquet"
    write_vectors_parquet(path, fixture_items.column("item_id"), vectors)
    given, computed = _build_from(tmp_path, "BENCH", path), json.loads((small_bench / "manifest.json").read_text())
    assert given["encoder"] == {**computed["encoder"], "name": "given", "fingerprint": None}
    assert given["config"] == {**computed["config"], "encoder": "given"}
    components = computed["construction"]["components"]
    assert given["construction"]["components"] == {**components, "sid_encoder": "given", "hard_negative_encoder": "given"}
    # manifest_sha256 digests the manifest itself, encoder identity included, so it differs with it
    same = ("encoder", "config", "construction", "manifest_sha256")
    assert {k: v for k, v in given.items() if k not in same} == {k: v for k, v in computed.items() if k not in same}
    assert given["manifest_sha256"] != computed["manifest_sha256"]
