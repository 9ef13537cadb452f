"""Build the bundled thumbnail set ``src/fashionrq/data/myntra/images/`` from the Myntra image sample.

Usage: python scripts/build_thumbnails.py [--source ../shared/data/myntra] [--side 96] [--quality 80]

Every photo listed in ``SOURCE/images_manifest.csv`` (its sha256 is checked first) is shrunk with Pillow's
box filter so its longer side is ``--side`` pixels, and saved as a baseline JPEG (quality ``--quality``,
4:2:0 chroma subsampling, no EXIF, no ICC profile, not optimised, not progressive). The output names are
``<id>.jpg``; a ``thumbnails_manifest.csv`` lists id, bytes, width, height and sha256 of each thumbnail and the
sha256 of its source. With the same Pillow (and so libjpeg) version a rebuild gives identical bytes; the
script prints one sha256 over the manifest to compare builds.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import shutil
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "fashionrq" / "data" / "myntra" / "images"
MANIFEST = "thumbnails_manifest.csv"


def thumbnail(data: bytes, side: int, quality: int) -> tuple[bytes, tuple[int, int]]:
    """JPEG bytes of the image in ``data`` shrunk so its longer side is ``side``, and its size."""
    with Image.open(io.BytesIO(data)) as image:
        image = image.convert("RGB")
        scale = side / max(image.size)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        small = image.resize(size, Image.Resampling.BOX)
    out = io.BytesIO()
    small.save(out, format="JPEG", quality=quality, subsampling=2, optimize=False, progressive=False)
    return out.getvalue(), size


def build(source: Path, target: Path, side: int, quality: int) -> list[dict]:
    """Write every thumbnail into a fresh ``target``; return the manifest rows in id order."""
    with open(source / "images_manifest.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda r: int(r["id"]))
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    manifest = []
    for row in rows:
        data = (source / row["file"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            raise SystemExit(f"{source / row['file']} does not match its sha256 in images_manifest.csv; restore it.")
        jpeg, (width, height) = thumbnail(data, side, quality)
        (tmp / f"{row['id']}.jpg").write_bytes(jpeg)
        manifest.append({"id": row["id"], "bytes": len(jpeg), "width": width, "height": height,
                         "sha256": hashlib.sha256(jpeg).hexdigest(), "source_sha256": row["sha256"]})
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT.parent / "shared" / "data" / "myntra")
    parser.add_argument("--side", type=int, default=96)
    parser.add_argument("--quality", type=int, default=80)
    args = parser.parse_args()
    manifest = build(args.source, TARGET, args.side, args.quality)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(manifest[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(manifest)
    (TARGET.parent / MANIFEST).write_text(text.getvalue(), encoding="utf-8")
    total = sum(r["bytes"] for r in manifest)
    digest = hashlib.sha256(text.getvalue().encode()).hexdigest()
    print(f"{len(manifest):,} thumbnails, {total:,} bytes, manifest sha256 {digest} (Pillow {Image.__version__})")


if __name__ == "__main__":
    main()
