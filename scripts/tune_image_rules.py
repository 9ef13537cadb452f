"""Reproduce the choice of the pattern thresholds and the colour-name prior weight of ``fashionrq.images``.

Usage: python scripts/tune_image_rules.py --catalog ../shared/data/myntra --attributes attributes.parquet

The labelled photos (catalog ``Pattern`` in solid/striped/checked/printed; a resolvable ``baseColour``) are
split by position into an even half, on which a small grid is searched, and an odd half, on which the
chosen setting is reported. Pattern: balanced accuracy of the rule in ``fashionrq.images.pattern``.
Colour: colour-family accuracy of the dominant cluster's name as the prior weight varies.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

from fashionrq.cli.images import load_catalog
from fashionrq.images import colour_family
from fashionrq.images.accuracy import CATALOG_PATTERNS
from fashionrq.images.store import ImageAttributeSet, catalog_vocabulary


def classify(f: dict, solid_edges, solid_entropy, checked_edges, striped_axis, periodic) -> str:
    if f["edge_density"] < solid_edges and f["colour_entropy"] < solid_entropy:
        return "solid"
    if f["edge_density"] >= checked_edges:
        return "checked"
    return "striped" if f["periodicity"] >= periodic and f["axis_share"] >= striped_axis else "printed"


def balanced(data, params) -> float:
    return float(np.mean([np.mean([classify(f, *params) == c for t, f in data if t == c]) for c in sorted({t for t, _ in data})]))


def tune_patterns(rows, attributes) -> None:
    data = [(CATALOG_PATTERNS[p.lower()], attributes.get(i).texture) for i, _, p in rows if p and p.lower() in CATALOG_PATTERNS]
    grid = itertools.product([0.1, 0.15, 0.2, 0.25, 0.3], [1.5, 2.0, 2.5, 9], [0.45, 0.55, 0.65, 0.75], [0.3, 0.35, 0.4, 0.45, 0.5], [0.03, 0.04, 0.05, 0.06, 0.08])
    best = max(grid, key=lambda p: balanced(data[0::2], p))
    print(f"pattern: {len(data)} photos; best (solid_edges, solid_entropy, checked_edges, striped_axis, periodic) = {best}; "
          f"balanced accuracy even {balanced(data[0::2], best):.3f}, odd (held out) {balanced(data[1::2], best):.3f}")


def tune_prior(rows, attributes, vocabulary) -> None:
    data = [(c.lower(), attributes.get(i).colours[0][2]) for i, c, _ in rows if c and c.lower() in vocabulary.names]
    distances = vocabulary.distances(np.array([lab for _, lab in data]))
    truth = [t for t, _ in data]
    for weight in (0, 1, 2, 3, 4, 6):
        names = [vocabulary.names[b] for b in (distances - weight * vocabulary.log_prior[None]).argmin(axis=1)]
        scores = [(np.mean([colour_family(t) == colour_family(n) for t, n in zip(truth[h::2], names[h::2])]),
                   np.mean([t == n for t, n in zip(truth[h::2], names[h::2])])) for h in (0, 1)]
        print(f"colour prior weight {weight}: family/exact even {scores[0][0]:.3f}/{scores[0][1]:.3f}, odd {scores[1][0]:.3f}/{scores[1][1]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", required=True)
    parser.add_argument("--attributes", type=Path, required=True)
    args = parser.parse_args()
    items = load_catalog(args.catalog, None)
    attributes = ImageAttributeSet.read(args.attributes)
    rows = [(r["item_id"], r["base_colour"], dict(r["attributes"] or {}).get("Pattern"))
            for r in items.select(["item_id", "base_colour", "attributes"]).to_pylist() if attributes.get(r["item_id"])]
    tune_patterns(rows, attributes)
    tune_prior(rows, attributes, catalog_vocabulary(items))


if __name__ == "__main__":
    main()
