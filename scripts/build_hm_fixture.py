"""Cut the H&M-layout test fixture (``tests/fixtures/hm_schema``) from the full Myntra catalog copy.

Usage: python scripts/build_hm_fixture.py [--source ../shared/data/myntra]

About 3,000 real Myntra products (a seeded sample stratified by master category and article type) are ingested
with fashionrq and re-exported as one Parquet file laid out like H&M's ``articles`` table: other column names,
ten-digit zero-padded ``article_id`` strings, department names instead of genders (``Ladieswear``,
``Menswear`` ...), the colours as a ``list<string>``, the item attributes as a ``map<string, string>``, the
pattern as ``graphical_appearance_name`` and plain-text descriptions. Like H&M's own export it spells missing
values ``Unknown`` / ``undefined`` / ``-``, and a few prices are NaN or infinite, so the fixture also checks that
placeholders and bad prices never reach a query. The selection and the injected values are seeded, so a rebuild
gives identical files. ``mapping.toml`` beside it maps it onto the canonical fields.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from build_embedded_catalog import compact_record, gzip_bytes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from fashionrq.catalog import ingest  # noqa: E402

TARGET = ROOT / "tests" / "fixtures" / "hm_schema"
SIZE = 3000
SEED = 11
DEPARTMENTS = {"Men": "Menswear", "Women": "Ladieswear", "Boys": "Children Boys", "Girls": "Children Girls", "Unisex": "Unisex"}
PLACEHOLDERS = ("Unknown", "undefined", "-", "N/A", "")
DESCRIPTION_CHARS = 400


def sample_ids(styles: Path) -> set[str]:
    """A seeded sample of about SIZE ids, stratified by (master category, article type), one per type at least."""
    by_type: dict[tuple[str, str], list[str]] = defaultdict(list)
    rows = list(csv.reader(io.StringIO(styles.read_text(encoding="utf-8"))))[1:]
    for fields in rows:
        if len(fields) == 10:  # the 22 rows with unquoted commas in the name are left to the Myntra fixture
            by_type[(fields[2], fields[4])].append(fields[0])
    rng = random.Random(SEED)
    share = SIZE / len(rows)
    chosen: set[str] = set()
    for _, ids in sorted(by_type.items()):
        chosen.update(rng.sample(sorted(ids), min(len(ids), max(1, round(len(ids) * share)))))
    return chosen


def myntra_subset(source: Path, chosen: set[str], folder: Path) -> None:
    """A Myntra-layout folder holding only the chosen products (JSON records compacted as in the embedded copy)."""
    lines = (source / "styles.csv").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines[1:] if line.split(",", 1)[0] in chosen]
    (folder / "styles.csv").write_text("\n".join([lines[0], *kept]) + "\n", encoding="utf-8")
    records = []
    with gzip.open(source / "styles_json.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)["data"]
            if str(data["id"]) in chosen:
                records.append(json.dumps({"data": compact_record(data)}, ensure_ascii=False, sort_keys=True))
    (folder / "styles_json.jsonl.gz").write_bytes(gzip_bytes(("\n".join(records) + "\n").encode("utf-8")))


def placeholder(rng: random.Random, value: str | None, share: float) -> str | None:
    """``value``, or (with probability ``share``, and always when missing) an H&M-style placeholder spelling."""
    return rng.choice(PLACEHOLDERS) if value is None or rng.random() < share else value


def hm_row(item: dict, rng: random.Random) -> dict:
    """One Myntra item in the H&M ``articles`` layout."""
    attributes = dict(item["attributes"])
    pattern = attributes.pop("Pattern", None)
    details = {k: placeholder(rng, v, 0.03) for k, v in sorted(attributes.items())}
    price = item["price"]
    roll = rng.random()
    if roll < 0.002:
        price = float("inf")
    elif roll < 0.01:
        price = float("nan")
    return {
        "article_id": f"{int(item['item_id']):010d}",
        "prod_name": item["name"],
        "brand_name": item["brand"],
        "product_type_name": item["article_type"],
        "product_group_name": item["sub_category"],
        "garment_group_name": item["master_category"],
        "index_group_name": placeholder(rng, DEPARTMENTS.get(item["gender"]), 0.02),
        "age_segment": item["age_group"],
        "colour_group_name": placeholder(rng, item["base_colour"], 0.05),
        "colour_names": [placeholder(rng, c, 0.05) for c in item["colours"]] or ["undefined"],
        "graphical_appearance_name": placeholder(rng, pattern, 0.0),
        "season_name": placeholder(rng, item["season"], 0.02),
        "launch_year": item["year"],
        "occasion": placeholder(rng, item["usage"], 0.02),
        "price": price,
        "detail_desc": (item["description"] or "")[:DESCRIPTION_CHARS] or None,
        "details": details,
    }


SCHEMA = pa.schema([
    ("article_id", pa.string()), ("prod_name", pa.string()), ("brand_name", pa.string()),
    ("product_type_name", pa.string()), ("product_group_name", pa.string()), ("garment_group_name", pa.string()),
    ("index_group_name", pa.string()), ("age_segment", pa.string()), ("colour_group_name", pa.string()),
    ("colour_names", pa.list_(pa.string())), ("graphical_appearance_name", pa.string()), ("season_name", pa.string()),
    ("launch_year", pa.int32()), ("occasion", pa.string()), ("price", pa.float64()), ("detail_desc", pa.string()),
    ("details", pa.map_(pa.string(), pa.string())),
])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT.parent / "shared" / "data" / "myntra")
    args = parser.parse_args()
    chosen = sample_ids(args.source / "styles.csv")
    with tempfile.TemporaryDirectory() as tmp:
        myntra_subset(args.source, chosen, Path(tmp))
        items = ingest(tmp).table.to_pylist()
    rng = random.Random(SEED)
    rows = [hm_row(item, rng) for item in items if item["name"]]
    rows.sort(key=lambda r: r["article_id"])
    for row in rows:
        row["details"] = list(row["details"].items())
    TARGET.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), TARGET / "articles.parquet", compression="zstd",
                   write_statistics=False)
    print(f"{len(rows)} products in {TARGET / 'articles.parquet'}")


if __name__ == "__main__":
    main()
