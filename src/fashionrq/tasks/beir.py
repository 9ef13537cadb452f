"""Export open-corpus T1 of a release for IR tooling: the BEIR layout and the MTEB retrieval layout (``datasets``).

Both hold the same three parts: the whole catalog as corpus (``_id``, ``title``, ``text``), the open-corpus T1
(``t1o``) queries (``_id``, ``text``) and their graded qrels (``query-id``, ``corpus-id``, ``score``; 3/2/1 by
shared prefix length, every unlisted item irrelevant). Pooled T1 (re-ranking) stays in ``public/t1_candidates.jsonl``.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fashionrq.encoders import item_text
from fashionrq.io import READABLE_JSON, atomic_directory, atomic_write_jsonl
from fashionrq.layout import ITEMS, check_folder_output, qrels_file, queries_file
from fashionrq.release import Release, release_hash
from fashionrq.tasks.bench import read_qrels, release_dir

#: Hugging Face dataset-card front matter of the MTEB retrieval layout: qrels are the default config.
HF_CONFIGS = """configs:
- config_name: default
  data_files:
  - split: test
    path: qrels/test.parquet
- config_name: corpus
  data_files:
  - split: corpus
    path: corpus/corpus.parquet
- config_name: queries
  data_files:
  - split: queries
    path: queries/queries.parquet"""


def t1_records(bench: Path) -> tuple[list[dict], list[dict], list[dict]]:
    """``(corpus, queries, qrels)`` rows of open-corpus T1 in the BEIR/MTEB field names."""
    release = Release(bench, verify=False)
    items = pq.read_table(release.path(ITEMS))
    corpus = [{"_id": row["item_id"], "title": row["name"] or "", "text": item_text(row)} for row in items.to_pylist()]
    queries = [{"_id": row["qid"], "text": row["text"]} for row in release.jsonl(queries_file("t1o"))]
    qrels = [{"query-id": q, "corpus-id": i, "score": g} for q, i, g in read_qrels(release.label_path(qrels_file("t1o")))]
    return corpus, queries, qrels


def export_beir(bench: str | Path, out: str | Path, force: bool = False) -> Path:
    """Write open-corpus T1 as a BEIR dataset in ``out``: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/test.tsv``."""
    bench = release_dir(bench)
    out = check_folder_output(out, force, "export folder")  # never inside a release
    corpus, queries, qrels = t1_records(bench)
    with atomic_directory(out, force=True, what="export folder") as tmp:
        atomic_write_jsonl(tmp / "corpus.jsonl", corpus, READABLE_JSON)
        atomic_write_jsonl(tmp / "queries.jsonl", queries, READABLE_JSON)
        (tmp / "qrels").mkdir()
        with open(tmp / "qrels" / "test.tsv", "w", encoding="utf-8", newline="\n") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            fh.writelines(f"{r['query-id']}\t{r['corpus-id']}\t{r['score']}\n" for r in qrels)
    return Path(out)


def export_hf(bench: str | Path, out: str | Path, force: bool = False) -> Path:
    """Write open-corpus T1 in the MTEB retrieval layout: corpus, queries and qrels as Parquet configs, and a dataset card.

    ``datasets.load_dataset(out)`` loads the qrels (config ``default``, split ``test``); ``"corpus"`` and
    ``"queries"`` name the other configs. The card (``README.md``) carries the release's manifest hash.
    """

    bench = release_dir(bench)
    out = check_folder_output(out, force, "export folder")  # never inside a release
    corpus, queries, qrels = t1_records(bench)
    schemas = {"corpus": pa.schema([("_id", pa.string()), ("title", pa.string()), ("text", pa.string())]),
               "queries": pa.schema([("_id", pa.string()), ("text", pa.string())]),
               "qrels": pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])}
    with atomic_directory(out, force=True, what="export folder") as tmp:
        for name, rows, file in (("corpus", corpus, "corpus/corpus.parquet"), ("queries", queries, "queries/queries.parquet"),
                                 ("qrels", qrels, "qrels/test.parquet")):
            (tmp / file).parent.mkdir()
            pq.write_table(pa.Table.from_pylist(rows, schema=schemas[name]), tmp / file)
        (tmp / "README.md").write_text(_card(bench, release_hash(bench), len(corpus), len(queries), len(qrels)), encoding="utf-8")
    return Path(out)


def _card(bench: Path, release: str, n_corpus: int, n_queries: int, n_qrels: int) -> str:
    return (f"---\n{HF_CONFIGS}\ntask_categories:\n- text-retrieval\ntags:\n- mteb\n- fashionrq\n"
            f"fashionrq_release_sha256: {release}\n---\n\n"
            f"# fashionrq T1 retrieval ({bench.name})\n\n"
            f"Exported by `fashionrq export hf` from the frozen release whose `manifest.json` has SHA-256 `{release}`.\n\n"
            f"- corpus: {n_corpus:,} products (`_id`, `title`, `text`)\n- queries: {n_queries:,} T1 queries (`_id`, `text`)\n"
            f"- qrels (default config, split `test`): {n_qrels:,} graded judgments (`query-id`, `corpus-id`, `score`: "
            "3 Exact, 2 Sibling, 1 Related, 0 Irrelevant)\n\n"
            "Load with `datasets.load_dataset(path)` (qrels), `load_dataset(path, \"corpus\")` and `load_dataset(path, \"queries\")`.\n")
