"""Cut the small Myntra test fixture (``tests/fixtures/myntra_small``) from the full catalog copy.

Usage: python scripts/build_test_fixture.py [--source ../shared/data/myntra]

About 2,000 products: every master category (all rows of the rare ones), a seeded sample of the rest
stratified by article type, all 22 rows with unquoted commas, two ids with no JSON record, and 30 images.
The selection is seeded, so a rebuild gives identical files.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import shutil
from collections import defaultdict
from pathlib import Path

from build_embedded_catalog import compact_record, gzip_bytes

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "tests" / "fixtures" / "myntra_small"
SIZE = 2000
IMAGES = 30
SEED = 7
REPAIRED_IDS = {"44065", "3413", "23101", "23108", "4854", "23109", "23100", "23107", "59768", "23114", "23112",
                "23115", "23124", "3428", "23103", "3418", "23110", "23117", "23116", "23111", "23118", "23127"}
NO_JSON_IDS = {"12347", "39401"}


OTHER_TARGET = ROOT / "tests" / "fixtures" / "other_schema"
GENDER_CODES = {"Men": "M", "Women": "F", "Boys": "B", "Girls": "G", "Unisex": "U"}


def write_other_schema(records: list[str], styles: dict[str, list[str]]) -> None:
    """A 200-product catalog in a storefront-export schema (other column names, gender codes, colour lists)."""
    OTHER_TARGET.mkdir(parents=True, exist_ok=True)
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["sku", "title", "vendor", "department", "category", "product_type", "colors", "list_price",
                     "body_html", "fabric", "pattern"])
    for line in records:
        data = json.loads(line)["data"]
        row = styles[str(data["id"])]
        attrs = data.get("articleAttributes") or {}
        colours = [c for c in (data.get("baseColour"), data.get("colour1"), data.get("colour2")) if c and c != "NA"]
        description = ((data.get("productDescriptors") or {}).get("description") or {}).get("value", "")
        writer.writerow([f"SKU-{data['id']}", ",".join(row[9:]), data.get("brandName", ""), GENDER_CODES.get(row[1], ""),
                         row[2], row[4], "|".join(colours), data.get("price", ""), description,
                         attrs.get("Fabric", ""), attrs.get("Pattern", "")])
    (OTHER_TARGET / "catalog.csv").write_text(out.getvalue(), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT.parent / "shared" / "data" / "myntra")
    args = parser.parse_args()
    lines = (args.source / "styles.csv").read_text(encoding="utf-8").splitlines()
    header, body = lines[0], lines[1:]
    by_type: dict[tuple[str, str], list[str]] = defaultdict(list)
    line_of = {}
    for line in body:
        fields = next(csv.reader(io.StringIO(line)))
        line_of[fields[0]] = line
        by_type[(fields[2], fields[4])].append(fields[0])
    rng = random.Random(SEED)
    chosen = set(REPAIRED_IDS) | NO_JSON_IDS
    share = SIZE / len(body)
    for (master, _), ids in sorted(by_type.items()):
        take = len(ids) if master in {"Home", "Sporting Goods", "Free Items"} else max(1, round(len(ids) * share))
        chosen.update(rng.sample(sorted(ids), min(take, len(ids))))
    kept = [line for line in body if line.split(",", 1)[0] in chosen]
    if TARGET.exists():
        shutil.rmtree(TARGET)
    (TARGET / "images").mkdir(parents=True)
    (TARGET / "styles.csv").write_text("\n".join([header, *kept]) + "\n", encoding="utf-8")
    records = []
    with gzip.open(args.source / "styles_json.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)["data"]
            if str(data["id"]) in chosen:
                records.append(json.dumps({"data": compact_record(data)}, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
    (TARGET / "styles_json.jsonl.gz").write_bytes(gzip_bytes(("\n".join(records) + "\n").encode("utf-8")))
    with_images = sorted(i for i in chosen if (args.source / "images" / f"{i}.jpg").exists())
    for item_id in rng.sample(with_images, min(IMAGES, len(with_images))):
        shutil.copy(args.source / "images" / f"{item_id}.jpg", TARGET / "images" / f"{item_id}.jpg")
    styles = {line.split(",", 1)[0]: next(csv.reader(io.StringIO(line))) for line in kept}
    write_other_schema(records[:200], styles)
    print(f"{len(kept)} products, {len(records)} JSON records, {len(list((TARGET / 'images').glob('*.jpg')))} images in {TARGET}")


if __name__ == "__main__":
    main()
