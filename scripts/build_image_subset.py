"""Write a Myntra-layout catalog of only the photographed items, for an MCMR-style release on the image subset.

Usage: python scripts/build_image_subset.py --out image-catalog [--source src/fashionrq/data/myntra]
       [--types N --per-type M]   (the test fixture: tests/fixtures/myntra_images is --types 6 --per-type 50)

Copies the ``styles.csv`` lines (header kept, malformed lines kept as they are, so ingest repairs and counts
them) and the per-item JSON lines of every id with ``images/<id>.jpg`` in ``--source``, and copies those
images. The default source is the bundled catalog with its 72 x 96 thumbnails; pass the shared copy for
the 225 x 300 photos. ``--types N --per-type M`` keeps a seeded sample of M photographed items of each of the N
commonest article types (a small fixture with pure leaves). Then: ``fashionrq build --catalog image-catalog --mcmr --out BENCH``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import shutil
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _read(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode("utf-8") if path.suffix == ".gz" else path.read_text(encoding="utf-8")


def sample_by_type(lines: list[str], ids: set[str], types: int, per_type: int, seed: int = 7) -> set[str]:
    """``per_type`` ids (seeded) of each of the ``types`` commonest article types among the photographed ``ids``."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for row in csv.reader(lines[1:]):
        if row and row[0].strip() in ids and len(row) > 4:
            by_type[row[4]].append(row[0].strip())
    common = [t for t, _ in Counter({t: len(v) for t, v in by_type.items()}).most_common(types)]
    rnd = random.Random(seed)
    return {i for t in common for i in rnd.sample(sorted(by_type[t]), min(per_type, len(by_type[t])))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT / "src" / "fashionrq" / "data" / "myntra")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--types", type=int, default=None, help="keep only the commonest article types (with --per-type)")
    parser.add_argument("--per-type", type=int, default=50)
    args = parser.parse_args()
    source, out = args.source, args.out
    ids = {p.stem for p in (source / "images").glob("*.jpg")}
    styles = next(p for p in (source / "styles.csv", source / "styles.csv.gz") if p.exists())
    lines = _read(styles).splitlines()
    if args.types:
        ids = sample_by_type(lines, ids, args.types, args.per_type)
    kept = [lines[0]] + [line for line in lines[1:] if line.split(",", 1)[0].strip() in ids]
    jsonl = next(p for p in (source / "styles_json.jsonl.gz", source / "styles_json.jsonl") if p.exists())
    records = [line for line in _read(jsonl).splitlines()
               if line.strip() and str(json.loads(line).get("data", {}).get("id", json.loads(line).get("id"))) in ids]
    (out / "images").mkdir(parents=True, exist_ok=False)
    (out / "styles.csv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    (out / "styles_json.jsonl.gz").write_bytes(gzip.compress(("\n".join(records) + "\n").encode(), mtime=0))
    for item_id in sorted(ids):
        shutil.copyfile(source / "images" / f"{item_id}.jpg", out / "images" / f"{item_id}.jpg")
    print(f"wrote {out}: {len(kept) - 1:,} styles.csv rows, {len(records):,} JSON records, {len(ids):,} images")


if __name__ == "__main__":
    main()
