"""Release statistics: equivalents of Tables 1, 7 and 8 plus attribute-tag and catalog coverage (§8.0.3)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from fashionrq.layout import ITEMS, PHI, QUERY_RECORDS, T2_DEV_LABELS, T2_PAIRS, T2_TEST, T4_GROUPS, qrels_file
from fashionrq.release import Release
from fashionrq.tasks.bench import read_qrels, release_dir
from fashionrq.taskspec import TIER_NAMES

PHI_ATTRIBUTES = ("product_type", "gender", "age_group", "color", "pattern", "material", "occasion", "brand", "price_hint", "style_tags")


def _balance(grades: list[int]) -> dict:
    counts = Counter(grades)
    total = max(len(grades), 1)
    return {TIER_NAMES[g]: {"count": counts.get(g, 0), "share": round(counts.get(g, 0) / total, 4)} for g in (3, 2, 1, 0)}


def _per_query(rows: list[tuple[str, str, int]]) -> dict:
    sizes = np.array(list(Counter(q for q, _, _ in rows).values()) or [0])
    return {"mean": round(float(sizes.mean()), 2), "min": int(sizes.min()), "max": int(sizes.max())}


def bench_stats(bench: str | Path) -> dict:
    """Statistics of a release: clusters per level, queries per task, label balance, φ coverage, catalog coverage."""
    release = Release(release_dir(bench), verify=False)
    manifest = release.manifest
    items = pq.read_table(release.path(ITEMS), columns=["item_id", "master_category", "gender", "price"]).to_pandas()
    meta = release.label_jsonl(QUERY_RECORDS)
    phi = {r["qid"]: r["phi"] for r in release.label_jsonl(PHI)}
    qrels = {t: read_qrels(release.label_path(qrels_file(t))) for t in ("t1", "t1o", "t3", "t4")}
    pairs = release.jsonl(T2_PAIRS)
    t2_labels = release.jsonl(T2_DEV_LABELS) + release.label_jsonl(T2_TEST)

    tasks: dict[str, dict] = {}
    for task in ("t1", "t1o", "t2", "t3", "t4"):
        rows = [m for m in meta if m["task"] == task]
        tasks[task] = {"queries": len(rows), "anchor_leaves": len({m["leaf"] for m in rows}),
                       "bootstrap_units": len({m["unit"] for m in rows})}
    for task in ("t1", "t3", "t4"):
        tasks[task]["judged_pairs"] = len(qrels[task])
        tasks[task]["candidates_per_query"] = _per_query(qrels[task])
    tasks["t1o"]["judged_pairs"] = len(qrels["t1o"])
    tasks["t2"]["pairs"] = dict(Counter(p["split"] for p in pairs))
    tasks["t4"]["groups"] = len(release.jsonl(T4_GROUPS))
    labels = {task: _balance([r["label"] for r in t2_labels] if task == "t2" else [g for _, _, g in qrels[task]])
              for task in ("t1", "t2", "t3", "t4")}

    t1_qids = [m["qid"] for m in meta if m["task"] == "t1"]
    tags = [[a for a in PHI_ATTRIBUTES if (phi.get(q) or {}).get(a)] for q in t1_qids]
    tag_counts = Counter(a for t in tags for a in t)
    n_tags = np.array([len(t) for t in tags] or [0])

    touched = {i for t, rows in qrels.items() if t != "t1o" for _, i, _ in rows} | {p["item_id"] for p in pairs}
    pair_items = items.set_index("item_id").loc[[p["item_id"] for p in pairs]] if pairs else items.iloc[:0]
    touched_items = items[items["item_id"].isin(touched)]
    price = touched_items["price"][np.isfinite(touched_items["price"])]  # never NaN or Infinity in --json
    coverage = {
        "items_touched": len(touched),
        "catalog_items": len(items),
        "share": round(len(touched) / max(len(items), 1), 4),
        "t2_pairs_by_master_category": dict(Counter(pair_items["master_category"].dropna()).most_common()),
        "t2_pairs_by_gender": dict(Counter(pair_items["gender"].dropna()).most_common()),
        "touched_by_master_category": dict(Counter(touched_items["master_category"].dropna()).most_common()),
        "touched_by_gender": dict(Counter(touched_items["gender"].dropna()).most_common()),
        "price": {"min": float(price.min()), "max": float(price.max()), "median": float(price.median()),
                  "mean": round(float(price.mean()), 2)} if len(price) else None,
    }
    return {
        "items": len(items),
        "clusters": manifest["counts"]["clusters"],
        "anchor_queries": manifest["counts"]["queries"]["anchor"],
        "tasks": tasks,
        "labels": labels,
        "attribute_tags": {
            "queries": len(t1_qids),
            "per_attribute": {a: tag_counts.get(a, 0) for a in PHI_ATTRIBUTES},
            "tags_per_query": {"mean": round(float(n_tags.mean()), 2), "min": int(n_tags.min()), "max": int(n_tags.max())},
        },
        "catalog_coverage": coverage,
        "headline": manifest.get("protocol", {}).get("headline"),
        "recurrence": manifest.get("report", {}).get("tasks", {}).get("recurrence"),
        "parser_agreement": manifest.get("report", {}).get("querygen", {}).get("parser_agreement"),
        "parser_agreement_lexicon_worded": manifest.get("report", {}).get("querygen", {}).get("parser_agreement_lexicon_worded"),
    }
