"""Image-derived attributes on the fixture's real Myntra photos, their accuracy, the CLI and the candidate regimes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import MYNTRA_SMALL, main_code
from test_determinism import _supported_caps

from fashionrq.errors import InputError
from fashionrq.images import ColourVocabulary, colour_family, extract_image
from fashionrq.images import store
from fashionrq.images.accuracy import attribute_accuracy
from fashionrq.images.descriptor import DIM
from fashionrq.images.pattern import PATTERNS
from fashionrq.images.store import ImageAttributeSet, catalog_vocabulary, extract_items
from fashionrq.images.verbalize import describe
from fashionrq.protocol import load_pools, validate_run
from fashionrq.systems import candidate_view, get_system, regime_of, run_system
from fashionrq.systems.dense import EncoderRetriever


@pytest.fixture(scope="module")
def photographed(fixture_items):
    """The fixture items that have a photo (30 real Myntra JPEGs)."""
    mask = [p is not None for p in fixture_items.column("image_path").to_pylist()]
    return fixture_items.filter(mask)


@pytest.fixture(scope="module")
def derived(photographed, tmp_path_factory):
    return extract_items(photographed, cache_dir=tmp_path_factory.mktemp("image-cache"))


def test_every_photo_gets_named_colours_a_pattern_shape_and_a_unit_descriptor(photographed, derived):
    vocabulary = catalog_vocabulary(photographed)
    assert len(derived) == photographed.num_rows == 30
    for record in derived:
        assert record.colour in vocabulary.names and record.pattern in PATTERNS
        shares = [share for _, share, _ in record.colours]
        assert shares == sorted(shares, reverse=True) and 0.99 <= sum(shares) <= 1.01
        assert 0.02 < record.foreground < 0.98  # the product is separated from the backdrop, not the whole frame
        assert 0 < record.shape["fill_ratio"] <= 1 and 0 <= record.shape["symmetry"] <= 1
        assert record.descriptor.shape == (DIM,) and abs(float(np.linalg.norm(record.descriptor)) - 1) < 1e-5


def test_extraction_is_deterministic_and_independent_of_workers(photographed, derived, tmp_path):
    again = extract_items(photographed, cache_dir=tmp_path, workers=2)
    assert again.to_table().equals(derived.to_table())
    row = photographed.to_pylist()[0]
    one = extract_image(row["image_path"], row["item_id"], catalog_vocabulary(photographed))
    assert one.to_dict() == derived.get(row["item_id"]).to_dict()


RAW_FEATURES_SCRIPT = """
import hashlib, sys
from pathlib import Path
import numpy as np
from fashionrq.colour import COLOURS, srgb_to_lab
from fashionrq.images import ColourVocabulary, extract_image
from fashionrq.images.colours import pixel_weights, skin_tone
from fashionrq.images.load import load_rgb
from fashionrq.images.pattern import _colour_entropy, _orientation_histogram, _periodicity, garment_region
from fashionrq.images.segment import foreground_mask
vocabulary = ColourVocabulary(COLOURS, {"black": 90, "blue": 40, "charcoal": 3})
digest = hashlib.sha256(vocabulary.log_prior.tobytes() + vocabulary.distances(vocabulary.lab[::3] + 1.5).tobytes())
for path in sorted(Path(sys.argv[1]).glob("*.jpg")):
    rgb = load_rgb(path, max_side=200)
    lab = srgb_to_lab(rgb)
    mask = foreground_mask(lab)
    region = garment_region(mask, skin_tone(rgb))
    density, hist = _orientation_histogram(lab[..., 0], region)
    raw = [pixel_weights(rgb, mask), hist, np.array([density, _periodicity(lab[..., 0], region), _colour_entropy(lab, region)]),
           extract_image(path, path.stem, vocabulary).descriptor]
    digest.update(b"".join(np.ascontiguousarray(a).tobytes() for a in raw))
print(digest.hexdigest())
"""


def test_photo_features_are_the_same_bits_under_every_libraries_lowest_caps():
    """The unrounded features (the pixel weights' exp, the names' log prior, the orientation histogram, the
    periodicity's window and spectrum, the colour entropy's log2, the descriptor's norms) of the fixture photos,
    natively and under the caps of tests/test_determinism.py: numpy's exp, log2, arctan2 and hypot and BLAS's
    norm gave other last bits under the caps, so they come from fashionrq.ieee and IEEE operations."""
    hashes = []
    for env in ({}, _supported_caps()):
        done = subprocess.run([sys.executable, "-c", RAW_FEATURES_SCRIPT, str(MYNTRA_SMALL / "images")], capture_output=True,
                              text=True, env={**os.environ, **env}, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        hashes.append(done.stdout.strip())
    assert hashes[0] == hashes[1] and len(hashes[0]) == 64


def test_a_second_extraction_reads_the_cache(photographed, tmp_path, monkeypatch):
    first = extract_items(photographed, cache_dir=tmp_path)
    assert len(list((tmp_path / "images").glob("attributes-*.parquet"))) == 1
    monkeypatch.setattr(store, "_extract_chunk", lambda job: pytest.fail("the cache was not used"))
    assert extract_items(photographed, cache_dir=tmp_path).to_table().equals(first.to_table())


def _as_public(items: pa.Table, folder) -> pa.Table:
    """``items`` as a sealed run sees them: reversed, renamed ``p<n>``, each photo copied to ``folder/p<n>.jpg``."""
    items = items.take(list(range(items.num_rows))[::-1])
    ids = [f"p{n}" for n in range(items.num_rows)]
    folder.mkdir()
    for public_id, path in zip(ids, items.column("image_path").to_pylist()):
        shutil.copyfile(path, folder / f"{public_id}.jpg")
    items = items.set_column(items.schema.get_field_index("item_id"), "item_id", pa.array(ids))
    return items.set_column(items.schema.get_field_index("image_path"), "image_path", pa.array([str(folder / f"{i}.jpg") for i in ids]))


def test_the_cache_is_keyed_by_photo_content_so_sealed_runs_reuse_the_query_stage(photographed, tmp_path, monkeypatch):
    from fashionrq.tasks.release import _photos

    queries = _photos(photographed, tmp_path)  # what the MCMR query stage extracts
    public = _as_public(photographed, tmp_path / "public-images")
    monkeypatch.setattr(store, "_extract_chunk", lambda job: pytest.fail("the cache was not used"))
    runs = extract_items(public, cache_dir=tmp_path)
    assert len(list((tmp_path / "images").glob("attributes-*.parquet"))) == 1
    originals = photographed.column("item_id").to_pylist()[::-1]
    for public_id, item_id in zip(public.column("item_id").to_pylist(), originals):
        assert runs.get(public_id).to_dict() == {**queries.get(item_id).to_dict(), "item_id": public_id}
    image = candidate_view(public, "image", cache_dir=tmp_path)  # a sealed image-regime run's candidates
    assert image.column("name").to_pylist() == [describe(queries.get(i)) for i in originals]


def test_derived_colours_agree_with_the_catalog_above_the_majority_baseline(photographed, derived):
    colour, pattern = attribute_accuracy(photographed, derived, catalog_vocabulary(photographed))
    assert colour.n >= 25 and pattern.n + sum(pattern.skipped.values()) == 30
    assert colour.tolerant["family"] > colour.majority  # better than always answering the commonest colour
    assert colour.tolerant["family"] >= colour.exact and colour.tolerant["in top 3"] >= colour.exact


def test_black_photos_are_named_black_and_white_ones_light():
    vocabulary = ColourVocabulary(["Black", "White", "Grey", "Blue", "Red", "Navy Blue"])
    names, _ = vocabulary.nearest(np.array([[5.0, 0, 0], [96.0, 1, 2], [40.0, 10, -45], [45.0, 60, 45]]))
    assert names == ["black", "white", "blue", "red"]
    assert colour_family("Navy Blue") == colour_family("blue") and colour_family("Charcoal") == "black"


def test_a_missing_photo_is_refused_with_its_item(photographed, tmp_path):
    broken = photographed.slice(0, 1).set_column(
        photographed.schema.get_field_index("image_path"), "image_path", [[str(tmp_path / "gone.jpg")]])
    with pytest.raises(InputError, match=r"gone\.jpg does not exist"):
        extract_items(broken, cache_dir=tmp_path)


def test_cli_writes_attributes_and_the_accuracy_table(tmp_path, monkeypatch):
    monkeypatch.setenv("FASHIONRQ_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "attributes.parquet"
    args = ["images", "attributes", "--catalog", str(MYNTRA_SMALL), "--out", str(out)]
    assert main_code(args) == 0
    assert ImageAttributeSet.read(out).to_table().num_rows == 30 and pq.read_table(out).num_rows == 30
    assert main_code(args) == 2  # an existing output is refused without --force
    report = tmp_path / "accuracy.md"
    assert main_code(["images", "accuracy", "--catalog", str(MYNTRA_SMALL), "--attributes", str(out), "--out", str(report)]) == 0
    text = report.read_text()
    assert "| colour |" in text and "| pattern |" in text and "family" in text


# --- candidate regimes -------------------------------------------------------------------------------------


def test_candidate_views_hide_what_each_regime_does_not_show(fixture_items, tmp_path):
    derived = extract_items(fixture_items, cache_dir=tmp_path)  # named with the whole fixture's colour vocabulary
    text = candidate_view(fixture_items, "text", cache_dir=tmp_path)
    assert regime_of(text) == "text" and text.column("image_path").null_count == text.num_rows
    assert text.column("name").equals(fixture_items.column("name"))
    image = candidate_view(fixture_items, "image", cache_dir=tmp_path)
    rows = image.to_pylist()
    with_photo = [r for r in rows if r["image_path"]]
    assert regime_of(image) == "image" and len(with_photo) == 30
    assert all(r["brand"] is None and r["description"] is None and r["base_colour"] is None for r in rows)
    assert all(r["name"] == describe(derived.get(r["item_id"])) for r in with_photo)
    assert all(r["name"] is None for r in rows if not r["image_path"])
    fused = candidate_view(fixture_items, "fused", cache_dir=tmp_path).to_pylist()
    originals = fixture_items.to_pylist()
    for view, original in zip(fused, originals):
        assert view["name"] == original["name"] and view["image_path"] == original["image_path"]
        if original["image_path"]:
            assert view["description"].startswith(describe(derived.get(original["item_id"])))


def test_image_descriptor_ranks_photos_of_the_asked_colour_first(photographed, derived, tmp_path):
    view = candidate_view(photographed, "image", cache_dir=tmp_path)
    system = get_system("image-descriptor", cache_dir=str(tmp_path)).fit(view)
    ids = photographed.column("item_id").to_pylist()
    for colour in sorted({r.colour for r in derived if sum(x.colour == r.colour for x in derived) >= 3}):
        scores = system.score(f"{colour} shirt", np.arange(len(ids)))
        shows = np.array([colour in [c[0] for c in derived.get(i).colours] for i in ids])
        assert shows[int(np.argmax(scores))] and scores[shows].mean() > scores[~shows].mean(), colour
    with pytest.raises(InputError, match="--regime image or fused"):
        get_system("image-descriptor").fit(candidate_view(photographed, "text"))


def tiny_clip_system():
    from test_encoders import tiny_factory

    from fashionrq.encoders.clip import OpenClipEncoder

    return EncoderRetriever(encoder=OpenClipEncoder("tiny", factory=tiny_factory))


def test_open_clip_image_and_fused_candidates_use_the_photos(fixture_items, tmp_path):
    encoder = tiny_clip_system()
    rows = [i for i, p in enumerate(fixture_items.column("image_path").to_pylist()) if p]
    image = encoder.fit(candidate_view(fixture_items, "image", cache_dir=tmp_path)).documents
    photos = encoder.encoder.encode_images([fixture_items.column("image_path")[i].as_py() for i in rows])
    np.testing.assert_allclose(image[rows], photos, atol=1e-6)
    assert not np.any(np.delete(image, rows, axis=0))  # no photo, no image-only representation
    text = tiny_clip_system().fit(candidate_view(fixture_items, "text")).documents
    fused = tiny_clip_system().fit(candidate_view(fixture_items, "fused", cache_dir=tmp_path)).documents
    assert np.allclose(np.linalg.norm(fused[rows], axis=1), 1, atol=1e-5)
    assert not np.allclose(fused[rows], text[rows])


#: Per regime, an offline system beside the tiny open_clip model (bm25 in the text regime is tested in test_systems).
REGIME_SYSTEMS = {"text": None, "image": ("image-descriptor", {}), "fused": ("hybrid", {"components": "bm25,image-descriptor"})}


@pytest.mark.parametrize("regime", [pytest.param(r, marks=pytest.mark.slow) if r != "text" else r for r in sorted(REGIME_SYSTEMS)])
def test_every_regime_runs_label_blind_on_the_fixture_release(small_bench, regime, tmp_path):
    pools = load_pools(small_bench)
    systems = [("clip", tiny_clip_system())]
    if REGIME_SYSTEMS[regime]:
        name, params = REGIME_SYSTEMS[regime]
        systems.append((name, get_system(name, **params)))
    for name, system in systems:
        run = run_system(small_bench, system, tmp_path / name, regime=regime)
        assert run["config"]["regime"] == regime
        validate_run(tmp_path / name, pools)


def test_image_runs_see_private_copies_of_the_public_photos_and_text_runs_none(small_bench, tmp_path):
    from fashionrq.systems.sealed import staged_public

    public = small_bench / "public"
    with staged_public(public, photos=False) as work:
        assert not (work / "public" / "images").exists()
    with staged_public(public, photos=True) as work:
        staged = sorted((work / "public" / "images").iterdir())
        assert [p.name for p in staged] == sorted(p.name for p in (public / "images").iterdir()) and len(staged) == 30
        for path in staged:  # copies, not links: the child may write below its folder but not reach the release
            assert path.read_bytes() == (public / "images" / path.name).read_bytes()
            assert not path.samefile(public / "images" / path.name)
    run = run_system(small_bench, "image-descriptor", tmp_path / "image", regime="image")  # reads every photo, sealed
    assert run["config"]["regime"] == "image" and run["isolation"]["process"] == "sealed child"
    validate_run(tmp_path / "image", load_pools(small_bench))


def test_bundled_thumbnails_match_their_manifest_and_fit_the_budget():
    import csv

    from fashionrq.catalog import bundled_catalog_dir
    from fashionrq.io import sha256_file

    folder = bundled_catalog_dir()
    with open(folder / "thumbnails_manifest.csv", newline="", encoding="utf-8") as handle:
        manifest = list(csv.DictReader(handle))
    files = sorted((folder / "images").glob("*.jpg"))
    assert len(manifest) == len(files) == 2946
    assert sum(f.stat().st_size for f in files) <= 10 * 1024 * 1024
    for row in manifest:
        path = folder / "images" / f"{row['id']}.jpg"
        assert sha256_file(path) == row["sha256"] and path.stat().st_size == int(row["bytes"])
        assert max(int(row["width"]), int(row["height"])) == 96
