"""Export open-corpus T1 of a release in the BEIR layout (corpus.jsonl, queries.jsonl, qrels/test.tsv) for BEIR/MTEB tooling."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from fashionrq.encoders import item_text
from fashionrq.io import atomic_directory
from fashionrq.protocol.manifest import check_folder_output
from fashionrq.tasks.bench import read_jsonl, read_qrels, release_dir


def export_beir(bench: str | Path, out: str | Path, force: bool = False) -> Path:
    """Write open-corpus T1 as a BEIR dataset in the new folder ``out``: the whole catalog as corpus, the t1o queries
    and their graded qrels (3/2/1 by shared prefix length; every other item is irrelevant). ``out`` inside a release
    is refused, an existing ``out`` unless ``force``; it appears only when complete."""
    bench = release_dir(bench)
    final = check_folder_output(out, force, "export folder")
    with atomic_directory(final, force=True, what="export folder") as tmp:
        _write_beir(bench, tmp)
    return final


def _write_beir(bench: Path, out: Path) -> None:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    items = pq.read_table(bench / "public" / "items.parquet")
    with open(out / "corpus.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for row in items.to_pylist():
            fh.write(json.dumps({"_id": row["item_id"], "title": row["name"] or "", "text": item_text(row)}, ensure_ascii=False) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for row in read_jsonl(bench / "public" / "t1o_queries.jsonl"):
            fh.write(json.dumps({"_id": row["qid"], "text": row["text"]}, ensure_ascii=False) + "\n")
    with open(out / "qrels" / "test.tsv", "w", encoding="utf-8", newline="\n") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, item, grade in read_qrels(bench / "labels" / "t1o.qrels"):
            fh.write(f"{qid}\t{item}\t{grade}\n")
