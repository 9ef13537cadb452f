"""Measure the lexicon parser: ``python -m fashionrq.querygen.agreement [CATALOG] [--seed N]``.

Two measurements on a catalog (default: the bundled Myntra catalog):

1. parser vs verbalizer: every qualified cluster of a catalog-structure hierarchy (master category >
   sub-category > article type as the three SID levels) gets verbalizer queries; the parser's φ(q) is scored
   against ``GeneratedQuery.expressed`` (:func:`fashionrq.querygen.parser_agreement`).
2. parser vs catalog on product names: each ``name`` (productDisplayName, text the verbalizer never wrote) is
   parsed and scored against the item's own article type, gender, base colour and brand.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from fashionrq.catalog import ingest
from fashionrq.hierarchy import build_hierarchy
from fashionrq.hierarchy.attributes import items_frame
from fashionrq.querygen.enrich import parser_agreement
from fashionrq.querygen.generate import generate_all
from fashionrq.querygen.parser import LexiconParser

NAME_KEYS = {"product_type": ("article_type", "sub_category", "master_category"), "gender": ("gender",),
             "color": ("base_colour",), "brand": ("brand",)}


def catalog_structure_clusters(table):
    """Qualified clusters of the hierarchy whose SIDs are master category > sub-category > article type."""
    frame = table.to_pandas()
    codes = np.column_stack([pd.factorize(frame[c].fillna("?"), sort=True)[0] for c in ("master_category", "sub_category", "article_type")])
    return [c for c in build_hierarchy(table, codes).clusters.values() if c.qualified]


def name_agreement(items: pd.DataFrame, parser: LexiconParser) -> dict[str, dict[str, float]]:
    """Parser vs catalog on product names: precision over parsed values (any catalog level counts as right for
    product type), recall of the item's article type / gender / base colour / brand."""
    counts = {k: [0, 0, 0, 0] for k in NAME_KEYS}  # parsed-right, parsed, gold-found, gold
    for phi, (_, row) in zip(parser.parse_many(items["name"].fillna("").tolist()), items.iterrows()):
        for key, columns in NAME_KEYS.items():
            allowed = {row[c] for c in columns if isinstance(row[c], str)}
            got = set(phi[key] or ())
            gold = row[columns[0]]
            counts[key][0] += len(got & allowed)
            counts[key][1] += len(got)
            if isinstance(gold, str):
                counts[key][2] += gold in got
                counts[key][3] += 1
    return {k: {"precision": round(a / b, 4) if b else 1.0, "recall": round(c / d, 4) if d else 1.0, "support": d}
            for k, (a, b, c, d) in counts.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("catalog", nargs="?", default="bundled")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    table = ingest(args.catalog).table
    items = items_frame(table)  # carries the catalog's price tiers
    parser = LexiconParser(items)
    clusters = catalog_structure_clusters(table)
    queries = [q for qs in generate_all(clusters, items, seed=args.seed) for q in qs.queries]
    report = {"catalog": args.catalog, "seed": args.seed, "clusters": len(clusters), "queries": len(queries),
              "verbalizer_queries": {k: {m: round(v, 4) if isinstance(v, float) else v for m, v in s.items()}
                                     for k, s in parser_agreement(queries, parser).items()},
              "product_names": name_agreement(items, parser)}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
