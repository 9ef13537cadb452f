"""Ingest of mapped catalogs in real export shapes: rows and bytes per second, and peak memory, against what the
machine can read.

The catalogs are derived from the bundled Myntra data by ``scripts/derive_catalog_shapes.py`` (the US tops export,
the Google Merchant feed, one row per size, as TSV and as Google's RSS 2.0 XML, the Shopify export, one row per colour and size with a product's fields
on its first row, the WooCommerce export, whose variation rows name their parent row, and the Amazon flat file,
with two lines above its header, the 2014 Amazon metadata dump, a gzipped file of Python-dict lines, the ASOS-style
scrape, whose cells are Python literals, and the folder of 44,000 product JSON files; ``--shapes workbook`` adds the
Excel product master, and ``myntra-products`` (types read from the names), ``shopify-json`` (Shopify's products.json)
and ``amazon-2023`` (JSON lines) are there to name too) and ingested with the mappings written beside them, each in a process of its own (``fashionrq
ingest``), so its peak RSS is its own. The bound is the speed at which this machine reads the same bytes into Python
text as ingest does (``fashionrq.catalog.files.read_text`` of the file, or of every JSON file of the folder,
gunzipping a ``.gz``; a workbook's bytes as they are, since it is zipped XML; cached in memory): ingest is Python per
row, so its MB/s (of the bytes on disk) are reported as a share of that.

    python benchmarks/bench_ingest.py [--shapes us-tops,merchant,merchant-xml,shopify,woocommerce,amazon,amazon-2014,asos,scrape-folder] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fashionrq.catalog.files import read_text

ROOT = Path(__file__).resolve().parents[1]
FILES = {"us-tops": "catalog.csv", "merchant": "catalog.tsv", "merchant-xml": "catalog.xml", "shopify": "products_export.csv",
         "woocommerce": "wc-product-export.csv", "amazon": "Flat.File.Clothing.txt", "workbook": "product_master.xlsx",
         "amazon-2014": "meta_Clothing_Shoes_and_Jewelry.json.gz", "asos": "products_asos.csv", "scrape-folder": "scrape",
         "myntra-products": "myntra_products_catalog.csv", "shopify-json": "products.json",
         "amazon-2023": "meta_Clothing_Shoes_and_Jewelry.jsonl"}
DEFAULT_SHAPES = "us-tops,merchant,merchant-xml,shopify,woocommerce,amazon,amazon-2014,asos,scrape-folder"


def _derive(shape: str, folder: Path) -> Path:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "derive_catalog_shapes.py"), "--shape", shape, "--source", "bundled",
                    "--out", str(folder)], check=True, capture_output=True)
    return folder


def _catalog_files(catalog: Path) -> list[Path]:
    """The files ingest reads: the catalog file, or a folder's JSON files."""
    if not catalog.is_dir():
        return [catalog]
    return sorted(p for p in catalog.rglob("*") if p.is_file() and p.name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz")))


def _read_bound(files: list[Path], repeat: int) -> float:
    """Best seconds to read the files into Python text as ingest does (a workbook's bytes as they are; the page cache
    holds them after the first read)."""
    best = float("inf")
    for _ in range(repeat + 1):
        start = time.perf_counter()
        for path in files:
            path.read_bytes() if path.suffix == ".xlsx" else read_text(path)
        best = min(best, time.perf_counter() - start)
    return best


#: Runs ``fashionrq ARGS`` and writes the process's own peak RSS (KiB, ``VmHWM`` of /proc/self/status) to stderr's last
#: line. ``ru_maxrss`` would not do: RUSAGE_CHILDREN gives the largest of all the children so far, and a child's own
#: RUSAGE_SELF keeps the high-water mark of the benchmark process it was forked from, across exec.
_WITH_PEAK_RSS = ("import re, sys\nfrom fashionrq.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as stop:\n"
                  "    code = stop.code\nelse:\n    code = 0\n"
                  "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1), file=sys.stderr)\nsys.exit(code)")


def _ingest_once(folder: Path, catalog: Path, out: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _WITH_PEAK_RSS, "ingest", str(catalog), "--mapping", str(folder / "mapping.toml"),
                           "--out", str(out), "--force"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads((out / "ingest_report.json").read_text(encoding="utf-8"))
    return {"wall_s": wall, "cpu_s": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "peak_rss_mib": int(done.stderr.strip().splitlines()[-1]) / 1024, "rows": report["rows_read"], "items": report["rows_written"]}


def measure(shape: str, repeat: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        folder = _derive(shape, Path(tmp) / shape)
        catalog = folder / FILES[shape]
        runs = [_ingest_once(folder, catalog, Path(tmp) / f"items-{i}") for i in range(repeat)]
        best = min(runs, key=lambda r: r["wall_s"])
        files = _catalog_files(catalog)
        megabytes = sum(f.stat().st_size for f in files) / 1e6
        read_s = _read_bound(files, repeat)
        return {"shape": shape, "file_mb": round(megabytes, 1), "rows": best["rows"], "items": best["items"],
                "wall_s": round(best["wall_s"], 2), "cpu_s": round(best["cpu_s"], 2),
                "peak_rss_mib": round(max(r["peak_rss_mib"] for r in runs)),
                "rows_per_s": round(best["rows"] / best["wall_s"]), "mb_per_s": round(megabytes / best["wall_s"], 2),
                "read_mb_per_s": round(megabytes / read_s), "share_of_read": round(read_s / best["wall_s"], 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default=DEFAULT_SHAPES)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = [measure(shape, args.repeat) for shape in args.shapes.split(",")]
    print("| shape | file (MB) | rows | items | wall (s) | CPU (s) | peak RSS (MiB) | rows/s | MB/s | read bound (MB/s) | share of the bound |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['shape']} | {r['file_mb']} | {r['rows']:,} | {r['items']:,} | {r['wall_s']} | {r['cpu_s']} | {r['peak_rss_mib']:,} | "
              f"{r['rows_per_s']:,} | {r['mb_per_s']} | {r['read_mb_per_s']:,} | {r['share_of_read']:.2%} |")


if __name__ == "__main__":
    main()
