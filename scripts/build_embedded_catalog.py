"""Build the embedded default catalog shipped in ``src/fashionrq/data/myntra/`` from the full Myntra copy.

Usage: python scripts/build_embedded_catalog.py [--source ../shared/data/myntra]

The output is a compact Myntra-layout folder: ``styles.csv.gz`` (the original styles.csv, byte for byte)
and ``styles_json.jsonl.gz`` (each item's JSON ``data`` record reduced to the fields fashionrq reads).
Both are gzipped with mtime 0 and records are in ascending id order, so a rebuild gives identical bytes.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from pathlib import Path

KEPT_FIELDS = (
    "id", "price", "discountedPrice", "brandName", "ageGroup", "gender", "baseColour", "colour1", "colour2",
    "season", "year", "usage", "articleAttributes",
)
ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "fashionrq" / "data" / "myntra"


def compact_record(data: dict) -> dict:
    """Keep the fields the Myntra reader uses; the description keeps its raw HTML."""
    out = {key: data[key] for key in KEPT_FIELDS if key in data}
    description = ((data.get("productDescriptors") or {}).get("description") or {}).get("value")
    if description:
        out["productDescriptors"] = {"description": {"value": description}}
    return out


def gzip_bytes(payload: bytes) -> bytes:
    return gzip.compress(payload, compresslevel=9, mtime=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT.parent / "shared" / "data" / "myntra")
    args = parser.parse_args()
    TARGET.mkdir(parents=True, exist_ok=True)
    styles = (args.source / "styles.csv").read_bytes()
    (TARGET / "styles.csv.gz").write_bytes(gzip_bytes(styles))
    lines = []
    with gzip.open(args.source / "styles_json.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)["data"]
            lines.append((int(data["id"]), json.dumps(compact_record(data), ensure_ascii=False, separators=(",", ":"), sort_keys=True)))
    lines.sort()
    payload = ("\n".join(text for _, text in lines) + "\n").encode("utf-8")
    (TARGET / "styles_json.jsonl.gz").write_bytes(gzip_bytes(payload))
    for name in ("styles.csv.gz", "styles_json.jsonl.gz"):
        digest = hashlib.sha256((TARGET / name).read_bytes()).hexdigest()
        print(f"{name}: {(TARGET / name).stat().st_size:,} bytes sha256 {digest}")
    print(f"styles.csv source sha256 {hashlib.sha256(styles).hexdigest()}; {len(lines)} JSON records")


if __name__ == "__main__":
    main()
