"""Derived attributes of a whole catalog: parallel, deterministic extraction, an Arrow table and a disk cache.

The cache entry is keyed by content only: the extractor version, seed, colour vocabulary and the set of the
photos' sha256 digests (not item ids, paths or order), so a changed photo or a new vocabulary is a new entry,
and the same photos under other names (a release's ``public/images/<public id>.jpg`` in a sealed run) reuse it.
An entry holds one record per distinct photo, labelled by its digest. Entries are written atomically
(:mod:`fashionrq.io`), so parallel runs are safe.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq import cachedigest
from fashionrq.errors import InputError
from fashionrq.images.colours import ColourVocabulary
from fashionrq.images.descriptor import DIM
from fashionrq.images.extract import MAX_SIDE, extract_image
from fashionrq.images.records import ImageAttributes
from fashionrq.io import atomic_writer, sha256_file
from fashionrq.layout import default_cache_dir
from fashionrq.progress import track
from fashionrq.vocab import COLOURS

#: Bump when extraction changes its output, so old cache entries are not reused.
EXTRACTOR_VERSION = "3"
#: Schema-metadata key under which a table carries its colour vocabulary.
VOCABULARY_KEY = b"fashionrq.colour_vocabulary"
#: Images per task handed to a worker process.
CHUNK = 64

SCHEMA = pa.schema([
    pa.field("item_id", pa.string()),
    pa.field("colour", pa.string()),
    pa.field("colours", pa.string()),
    pa.field("pattern", pa.string()),
    pa.field("texture", pa.string()),
    pa.field("shape", pa.string()),
    pa.field("foreground", pa.float64()),
    pa.field("descriptor", pa.list_(pa.float32(), DIM)),
])


class ImageAttributeSet:
    """``item_id -> ImageAttributes`` for the items that have a photo, in catalog order."""

    def __init__(self, records: Sequence[ImageAttributes]) -> None:
        self.records = {r.item_id: r for r in records}

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[ImageAttributes]:
        return iter(self.records.values())

    def get(self, item_id: str) -> ImageAttributes | None:
        return self.records.get(item_id)

    def descriptors(self, item_ids: Sequence[str]) -> np.ndarray:
        """``(len(item_ids), DIM)`` float32 descriptors; zero rows for items without a photo."""
        out = np.zeros((len(item_ids), DIM), dtype=np.float32)
        for i, item_id in enumerate(item_ids):
            if item_id in self.records:
                out[i] = self.records[item_id].descriptor
        return out

    def to_table(self) -> pa.Table:
        rows = [r.to_dict() for r in self]
        columns = {
            "item_id": [r["item_id"] for r in rows],
            "colour": [r.colour for r in self],
            "colours": [json.dumps(r["colours"], sort_keys=True) for r in rows],
            "pattern": [r["pattern"] for r in rows],
            "texture": [json.dumps(r["texture"], sort_keys=True) for r in rows],
            "shape": [json.dumps(r["shape"], sort_keys=True) for r in rows],
            "foreground": [r["foreground"] for r in rows],
            "descriptor": [r["descriptor"] for r in rows],
        }
        return pa.table(columns, schema=SCHEMA)

    @classmethod
    def from_table(cls, table: pa.Table) -> ImageAttributeSet:
        records = []
        for row in table.to_pylist():
            colours = tuple((c["name"], c["share"], tuple(c["lab"])) for c in json.loads(row["colours"]))
            records.append(ImageAttributes(
                item_id=row["item_id"], colours=colours, pattern=row["pattern"], texture=json.loads(row["texture"]),
                shape=json.loads(row["shape"]), foreground=row["foreground"],
                descriptor=np.asarray(row["descriptor"], dtype=np.float32),
            ))
        return cls(records)

    def write(self, path: str | Path) -> None:
        """Write the set as deterministic Parquet, atomically."""
        with atomic_writer(path, "wb") as handle:
            pq.write_table(self.to_table(), handle, compression="zstd", write_statistics=False)

    @classmethod
    def read(cls, path: str | Path) -> ImageAttributeSet:
        path = Path(path)
        if not path.is_file():
            raise InputError(f"image attributes {path} do not exist; write them with `fashionrq images attributes`.")
        table = pq.read_table(path)
        if table.schema.names != SCHEMA.names:
            raise InputError(f"{path} is not an image-attributes file (columns {table.schema.names}); rewrite it with `fashionrq images attributes`.")
        return cls.from_table(table)


def catalog_vocabulary(items: pa.Table) -> ColourVocabulary:
    """The catalog's own colour names (its ``base_colour`` and ``colours`` values) as a naming vocabulary.

    A table made by :func:`with_vocabulary` (a candidate view whose colour fields are hidden) carries the
    names in its schema metadata; a catalog without any colour name gets every name of
    :data:`fashionrq.vocab.COLOURS`.
    """
    stored = (items.schema.metadata or {}).get(VOCABULARY_KEY)
    if stored:
        stored = json.loads(stored)
        return ColourVocabulary(stored["names"], stored["counts"])
    counts = Counter(items.column("base_colour").drop_null().to_pylist())
    names = set(counts) | {c for cs in items.column("colours").drop_null().to_pylist() for c in cs or []}
    return ColourVocabulary(names, counts) if names else ColourVocabulary(COLOURS)


def with_vocabulary(table: pa.Table, vocabulary: ColourVocabulary) -> pa.Table:
    """``table`` carrying ``vocabulary``'s names in its schema metadata (see :func:`catalog_vocabulary`)."""
    stored = json.dumps({"names": vocabulary.names, "counts": vocabulary.counts}, sort_keys=True).encode()
    return table.replace_schema_metadata({**(table.schema.metadata or {}), VOCABULARY_KEY: stored})


def photographed(items: pa.Table) -> list[tuple[str, str]]:
    """``(item_id, image_path)`` of every item with a photo; a path that is not a file is refused."""
    pairs = [(i, p) for i, p in zip(items.column("item_id").to_pylist(), items.column("image_path").to_pylist()) if p]
    for item_id, path in pairs:
        if not Path(path).is_file():
            raise InputError(f"item {item_id}'s image {path} does not exist; restore it or re-ingest the catalog with the right --images folder.")
    return pairs


def _cache_file(digests: Sequence[str], vocabulary: ColourVocabulary, seed: int, cache_dir: Path) -> Path:
    """The cache entry of the photos with sha256 ``digests``: keyed by content, whatever the items are called."""
    photos = sorted(set(digests))
    digest = hashlib.sha256(json.dumps([EXTRACTOR_VERSION, MAX_SIDE, seed, vocabulary.names, vocabulary.counts], sort_keys=True).encode())
    digest.update("".join(f"{photo}\n" for photo in photos).encode())
    return cache_dir / "images" / f"attributes-{digest.hexdigest()[:24]}-{len(photos)}.parquet"


def _extract_chunk(job: tuple) -> list[ImageAttributes]:
    pairs, names, counts, seed = job
    vocabulary = ColourVocabulary(names, counts)
    return [extract_image(path, item_id, vocabulary, seed=seed) for item_id, path in pairs]


def extract_items(items: pa.Table, cache_dir: str | Path | None = None, workers: int = 1, seed: int = 0,
                  vocabulary: ColourVocabulary | None = None) -> ImageAttributeSet:
    """Derived attributes of every item of ``items`` with an ``image_path`` (cached under ``cache_dir/images``).

    Each distinct photo is extracted once, in digest order; the result is in catalog order and does not depend on
    ``workers`` (chunks are fixed and reassembled in order).
    """

    pairs = photographed(items)
    vocabulary = vocabulary or catalog_vocabulary(items)
    digests = [sha256_file(path) for _, path in pairs]
    path = _cache_file(digests, vocabulary, seed, Path(cache_dir or default_cache_dir()))
    if path.is_file():
        by_photo = ImageAttributeSet.read(path)
    else:
        by_photo = _extract_photos(sorted(dict(zip(digests, (p for _, p in pairs))).items()), vocabulary, seed, workers)
        if not cachedigest.sealed_child():  # the shared cache is read-only to a sealed run
            by_photo.write(path)
    return ImageAttributeSet([replace(by_photo.get(digest), item_id=item_id) for (item_id, _), digest in zip(pairs, digests)])


def _extract_photos(photos: Sequence[tuple[str, str]], vocabulary: ColourVocabulary, seed: int, workers: int) -> ImageAttributeSet:
    """The attributes of every ``(digest, path)`` photo, each labelled by its digest, in the order given."""
    jobs = [(photos[i:i + CHUNK], vocabulary.names, vocabulary.counts, seed) for i in range(0, len(photos), CHUNK)]
    label = f"image attributes: {len(photos):,} photos"
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunks = list(track(pool.map(_extract_chunk, jobs), label, total=len(jobs)))
    else:
        chunks = [_extract_chunk(job) for job in track(jobs, label, total=len(jobs))]
    return ImageAttributeSet([record for chunk in chunks for record in chunk])
