"""A synthetic catalog of any size for scale tests, drawn from the bundled catalog's joint distributions.

Never use it for quality claims: its items are recombinations of real Myntra rows and its embeddings are
attribute prototypes plus noise. Every output says so (``synthetic`` in the Parquet metadata, ``synth.json``
and ``SYNTHETIC.md``).

How an item is drawn (all vectorised, seeded):

* the core attributes (gender, age group, master/sub category, article type, season, usage, year) are one
  real row, sampled uniformly, so their joint distribution is the catalog's;
* brand, base colour and the article-attribute map each come from another real row of the same article
  type, so each follows its distribution given the article type;
* the name is the core row's real name with that row's brand and colour swapped for the drawn ones
  ("Turtle Check Men Navy Blue Shirt" -> "Roadster Check Men Olive Shirt"); a name that does not start with
  its brand or does not name its colour falls back to "{brand} {gender} {colour} {article type}";
* the price is the brand row's price times a seeded log-normal factor;
* the embedding is a weighted sum of seeded Gaussian prototypes of the item's article type, sub category,
  colour, gender, usage and season, plus isotropic noise, L2-normalised, so items cluster by attribute.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fashionrq.catalog.ingest import ITEMS_FILE, bundled_items, write_items
from fashionrq.catalog.schema import ITEMS_SCHEMA, SYNTHETIC_KEY
from fashionrq.catalog.tiers import currency_of, with_price_tiers
from fashionrq.errors import InputError
from fashionrq.ieee import exp_array
from fashionrq.io import atomic_directory, atomic_write_json, atomic_write_text, write_vectors_parquet

EMBEDDINGS_FILE = "embeddings.parquet"
#: Row-group size of the written Parquet files (bounded memory for readers of 10^6+ items).
ROW_GROUP = 131_072
#: Embedding prototype weight of each attribute; the rest of the vector is noise.
PROTOTYPE_WEIGHTS = {"article_type": 1.0, "sub_category": 0.5, "base_colour": 0.6, "gender": 0.4, "usage": 0.3, "season": 0.2}
NOISE = 0.35
_CORE = ("gender", "age_group", "master_category", "sub_category", "article_type", "season", "year", "usage", "description")


@dataclass(frozen=True)
class SyntheticCatalog:
    """A synthetic items table (canonical schema) and its attribute-clustered embeddings, row-aligned."""

    items: pa.Table
    embeddings: np.ndarray
    seed: int

    def write(self, out: str | Path, force: bool = False) -> Path:
        """Write ``items.parquet``, ``embeddings.parquet``, ``synth.json`` and ``SYNTHETIC.md`` into ``out``."""
        with atomic_directory(out, force=force, what="synthetic catalog folder") as tmp:
            write_items(self.items, tmp / ITEMS_FILE, row_group_size=ROW_GROUP)
            write_vectors_parquet(tmp / EMBEDDINGS_FILE, self.items.column("item_id"), self.embeddings,
                                  {b"fashionrq.encoder": json.dumps({"name": "synthetic-prototypes", "fingerprint": f"seed={self.seed}"}).encode(),
                                   SYNTHETIC_KEY: b"true"}, row_group_size=ROW_GROUP)
            atomic_write_json(tmp / "synth.json", self.info())
            atomic_write_text(tmp / "SYNTHETIC.md", _README.format(**self.info()))
        return Path(out)

    def info(self) -> dict:
        return {"synthetic": True, "items": self.items.num_rows, "seed": self.seed, "dim": int(self.embeddings.shape[1]),
                "source": "bundled Myntra catalog joint distributions", "prototype_weights": PROTOTYPE_WEIGHTS, "noise": NOISE}


_README = """# Synthetic catalog: not real products

{items:,} items drawn by `fashionrq synth --seed {seed}` from the bundled Myntra catalog's joint
attribute distributions, with {dim}-dimensional attribute-prototype embeddings. For scale and speed tests
only: never quote a quality number measured on it.
"""


def synthesize(n_items: int, seed: int = 0, dim: int = 64, base: pa.Table | None = None) -> SyntheticCatalog:
    """Draw ``n_items`` synthetic items (and their embeddings) from ``base`` (default: the bundled catalog)."""
    if n_items < 1:
        raise InputError(f"--items must be at least 1 (got {n_items}).")
    if dim < 2:
        raise InputError(f"--dim must be at least 2 (got {dim}).")
    if base is None:
        base = bundled_items()
    rng = np.random.default_rng(seed)
    core = rng.integers(0, base.num_rows, n_items)
    same_type = _same_type_sampler(base, rng)
    brand_row, colour_row, attr_row = (same_type(core) for _ in range(3))
    items = with_price_tiers(_assemble(base, core, brand_row, colour_row, attr_row, rng, seed), currency_of(base))
    return SyntheticCatalog(items=items, embeddings=prototype_embeddings(items, dim, seed, rng), seed=seed)


def _same_type_sampler(base: pa.Table, rng: np.random.Generator):
    """A function mapping base rows to random base rows of the same article type."""
    codes = pc.dictionary_encode(pc.fill_null(base.column("article_type"), "")).combine_chunks().indices.to_numpy()
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])

    def draw(rows: np.ndarray) -> np.ndarray:
        group = codes[rows]
        offset = (rng.random(len(rows)) * counts[group]).astype(np.int64)
        return order[starts[group] + offset]

    return draw


def _assemble(base, core, brand_row, colour_row, attr_row, rng, seed) -> pa.Table:
    take = lambda name, rows: base.column(name).take(pa.array(rows))  # noqa: E731
    brand = take("brand", brand_row)
    colour = take("base_colour", colour_row)
    colours = pc.list_slice(take("colours", colour_row), 0, 3)
    prefix, middle, suffix = _name_parts(base)
    has_colour = pc.is_valid(take("base_colour", core))
    name = pc.binary_join_element_wise(
        pc.fill_null(brand, ""), take_np(prefix, core),
        pc.if_else(has_colour, pc.fill_null(colour, ""), ""), take_np(suffix, core), "")
    generic = pc.binary_join_element_wise(*(pc.fill_null(c, "") for c in (brand, take("gender", core), colour, take("article_type", core))), " ")
    name = pc.utf8_trim_whitespace(pc.if_else(pc.equal(take_np(middle, core), 1), name, generic))
    factor = exp_array(rng.normal(0.0, 0.15, len(core)))
    price = pc.round(pc.multiply(take("price", brand_row), pa.array(factor)), 0)
    columns = {
        "item_id": pa.array(np.char.add("syn", np.arange(len(core)).astype(str)).astype(object), pa.string()),
        "name": name, "brand": brand, "base_colour": colour, "colours": colours, "price": price,
        "discounted_price": price, "attributes": take("attributes", attr_row),
        "image_path": pa.nulls(len(core), pa.string()),
        **{f: take(f, core) for f in _CORE},
    }
    metadata = {SYNTHETIC_KEY: b"true", b"fashionrq.synth_seed": str(seed).encode()}
    return pa.table([columns[f].cast(ITEMS_SCHEMA.field(f).type) for f in ITEMS_SCHEMA.names],
                    schema=ITEMS_SCHEMA.with_metadata(metadata))


def take_np(values: np.ndarray, rows: np.ndarray) -> pa.Array:
    return pa.array(values[rows])


def _name_parts(base: pa.Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each real name split around its brand and colour: (text after the brand up to the colour, template ok, text after)."""
    names = base.column("name").to_pylist()
    brands = base.column("brand").to_pylist()
    colours = base.column("base_colour").to_pylist()
    prefix, ok, suffix = [], [], []
    for name, brand, colour in zip(names, brands, colours):
        name = name or ""
        fits = bool(brand) and name.startswith(brand)
        rest = name[len(brand):] if fits else name
        cut = rest.find(f" {colour} ") if colour else -1
        prefix.append(rest[: cut + 1] if cut >= 0 else rest)
        suffix.append(rest[cut + 1 + len(colour):] if cut >= 0 else "")
        ok.append(int(fits and cut >= 0))
    return np.array(prefix, dtype=object), np.array(ok), np.array(suffix, dtype=object)


def prototype_embeddings(items: pa.Table, dim: int, seed: int, rng: np.random.Generator) -> np.ndarray:
    """Attribute-prototype embeddings: sum of weighted per-value Gaussian prototypes plus noise, L2-normalised."""
    X = rng.normal(0.0, NOISE / np.sqrt(dim), (items.num_rows, dim)).astype(np.float32)
    for field, weight in PROTOTYPE_WEIGHTS.items():
        encoded = pc.dictionary_encode(pc.fill_null(items.column(field), "")).combine_chunks()
        prototypes = np.stack([_prototype(seed, field, value, dim) for value in encoded.dictionary.to_pylist()])
        X += weight * prototypes[encoded.indices.to_numpy()]
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


def _prototype(seed: int, field: str, value: str, dim: int) -> np.ndarray:
    """A seeded unit-variance-per-dimension Gaussian vector for one attribute value (independent of draw order)."""
    key = int.from_bytes(hashlib.sha256(json.dumps([seed, field, value]).encode()).digest()[:8], "little")
    return (np.random.default_rng(key).normal(0.0, 1.0, dim) / np.sqrt(dim)).astype(np.float32)


def is_synthetic(table: pa.Table) -> bool:
    """Whether an items table was written by ``synthesize``."""
    return bool(table.schema.metadata and table.schema.metadata.get(SYNTHETIC_KEY) == b"true")
