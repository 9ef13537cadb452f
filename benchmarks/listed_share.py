"""How often open-corpus anchors' items sit in a public list, against the whole catalog (a script, not a test).

    python benchmarks/listed_share.py BENCH

Reads ``BENCH/labels`` (SIDs, query meta, open-corpus qrels) and every ``BENCH/public/*.jsonl`` and prints both
shares, and the share listed of the items each open-corpus grade holds (an item graded for several queries counts in
each of its grades): the balancing of the hard-negative tiers (``ItemClaims.draw(balance=True)``, docs/benchmark.md)
keeps the anchors' items close to the catalog, so that "never listed" says nothing about open-corpus answers
(``probe-rarity``); the grades show what it does not balance (the Sibling items of grade 2).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow.parquet as pq

from fashionrq.io import read_jsonl


def main(bench: Path) -> None:
    sids = pq.read_table(bench / "labels" / "sids.parquet").to_pylist()
    leaf = {r["item_id"]: f'{r["sid_1"]}-{r["sid_2"]}-{r["sid_3"]}' for r in sids}
    open_leaves = {m["leaf"] for m in read_jsonl(bench / "labels" / "queries.jsonl")
                   if m["task"] == "t1o" and m["leaf"].count("-") == 2}
    listed = set()
    for path in (bench / "public").glob("*.jsonl"):
        for row in read_jsonl(path):
            listed.update(row.get("candidates", []))
            if "item_id" in row:
                listed.add(row["item_id"])
    open_items = [item for item, prefix in leaf.items() if prefix in open_leaves]
    share = lambda items: sum(i in listed for i in items) / max(len(items), 1)  # noqa: E731
    print(f"catalog listed {share(list(leaf)):.3f} of {len(leaf)}; "
          f"open-corpus anchors' items listed {share(open_items):.3f} of {len(open_items)}")
    graded: dict[int, set[str]] = {}
    for line in (bench / "labels" / "t1o.qrels").read_text(encoding="utf-8").splitlines():
        _, _, item, grade = line.split()
        graded.setdefault(int(grade), set()).add(item)
    print("open-corpus items listed, by grade for some query: " + "; ".join(
        f"grade {grade} {share(items):.3f} of {len(items)}" for grade, items in sorted(graded.items(), reverse=True)))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
