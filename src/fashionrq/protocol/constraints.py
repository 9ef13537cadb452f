"""Scores by controlled constraint count and query modality (MCMR Tables 7 and 8), from ``labels/mcmr.jsonl``.

An MCMR release (``fashionrq build --mcmr``) writes each intent (an anchor leaf) as ``fused`` queries with
k_T = k_I = k constraints, k = 1 … k_max, and as a ``text``-only and an ``image``-only query at k_max. All of
them share the intent's candidates and grades. The breakdown compares them only over *complete* intents: those
with every variant in the task (deduplication may have dropped a short query), so each row of the curve is
the same set of intents asked with a different number of constraints.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np


def variant_label(row: dict) -> str:
    """``"1T+1I"`` … ``"5T+5I"`` for fused queries, ``"5T"`` / ``"5I"`` for the text- and image-only ones."""
    if row["variant"] == "fused":
        return f"{row['k_text']}T+{row['k_image']}I"
    return f"{row['k_text']}T" if row["variant"] == "text" else f"{row['k_image']}I"


def complete_intents(rows: list[dict]) -> set[str]:
    """Intents whose every variant is among ``rows`` (the label set of the intent with the most variants)."""
    labels: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        labels[row["intent"]].add(variant_label(row))
    full = max(labels.values(), key=len, default=set())
    return {intent for intent, have in labels.items() if have == full}


def constraint_breakdown(ids: list[str], values: dict[str, np.ndarray], mcmr: dict[str, dict]) -> dict | None:
    """Mean of every metric per variant label over the complete intents; ``None`` when no query is an MCMR query.

    ``ids``: the task's query ids in the order of ``values``' columns; ``mcmr``: ``labels/mcmr.jsonl`` by qid.
    """
    rows = [mcmr[q] for q in ids if q in mcmr]
    if not rows:
        return None
    complete = complete_intents(rows)
    labels = np.array([variant_label(mcmr[q]) if q in mcmr and mcmr[q]["intent"] in complete else "" for q in ids])
    groups = {}
    for label in sorted(set(labels) - {""}, key=_order):
        mask = labels == label
        groups[label] = {"n": int(mask.sum()), **{name: float(column[mask].mean()) for name, column in values.items()}}
    return {"complete_intents": len(complete), "intents": len({r["intent"] for r in rows}), "by_variant": groups}


def _order(label: str) -> tuple[int, int]:
    """Fused 1T+1I … kT+kI first, then text-only, then image-only."""
    kind = 0 if "+" in label else 1 if label.endswith("T") else 2
    return kind, int(label.rstrip("TI").split("T")[0])
