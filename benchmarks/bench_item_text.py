"""What a shorter item text costs: tokens per item and T1 ranking quality as the description is cut.

    python benchmarks/bench_item_text.py [--catalog tests/fixtures/myntra_small] [--encoder minilm-int8] [--words 25,12,0]

Builds one release from the catalog with the default item text (the queries, labels and pools stay fixed),
then for each description length (``fashionrq.encoders.text.DESCRIPTION_WORDS``) runs the dense system
``--encoder`` label-blind over it and prints the mean tokens per item text, encoder CPU seconds and T1
nDCG@10 / recall@10 — the quality a cut would give up for the tokens (and FLOPs) it saves.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", default="tests/fixtures/myntra_small")
    parser.add_argument("--encoder", default="minilm-int8")
    parser.add_argument("--words", default="25,12,0")
    args = parser.parse_args()

    from fashionrq.catalog import ingest
    from fashionrq.encoders import item_texts, text
    from fashionrq.encoders.minilm_int8 import minilm_tokenizer
    from fashionrq.metrics import evaluate, read_qrels, read_run
    from fashionrq.systems import get_system, run_system
    from fashionrq.tasks import BuildConfig, TaskConfig, build_release

    tokenizer = minilm_tokenizer()
    items = ingest(args.catalog).table
    with tempfile.TemporaryDirectory(prefix="fashionrq-item-text-") as scratch:
        bench = Path(scratch) / "BENCH"
        build_release(BuildConfig(catalog=args.catalog, out=bench, encoder=args.encoder, sid_method="rkmeans", codebook_size=16,
                                  seed=0, task_config=TaskConfig(pool_size=40)))
        qrels = read_qrels(bench / "labels" / "t1.qrels")
        default = text.DESCRIPTION_WORDS
        for words in (int(w) for w in args.words.split(",")):
            text.DESCRIPTION_WORDS = words
            tokens = [len(e.ids) for e in tokenizer.encode_batch(item_texts(items))]
            cpu = time.process_time()
            run_system(bench, get_system(args.encoder), Path(scratch) / f"run-{words}")
            cpu = time.process_time() - cpu
            scores = evaluate(qrels, read_run(Path(scratch) / f"run-{words}" / "t1.run"), ["ndcg@10", "recall@10"])
            print(json.dumps({"description_words": words, "tokens_mean": round(sum(tokens) / len(tokens), 1),
                              "run_cpu_s": round(cpu, 1), **{k: round(v, 4) for k, v in scores.items()}}), flush=True)
        text.DESCRIPTION_WORDS = default


if __name__ == "__main__":
    main()
