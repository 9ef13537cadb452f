"""How well the derived colour and pattern agree with the catalog's own ``baseColour`` and ``Pattern`` fields.

Only items whose catalog value is comparable are scored: a colour with one sRGB value in the vocabulary
(``Multi`` and ``Metallic`` are not), a pattern among solid/striped/checked/printed. Every item left out is
counted by reason. Majority-class baselines are reported beside each accuracy.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from fashionrq.colour import lab_distance
from fashionrq.images.colours import ColourVocabulary, colour_family
from fashionrq.images.pattern import PATTERNS
from fashionrq.images.store import ImageAttributeSet
from fashionrq.vocab import normalise_colour

#: ΔE76 between the catalog colour's and the derived name's reference colours under which a name is "close".
CLOSE_DELTA_E = 25.0
#: Catalog ``Pattern`` values that name one of the derived classes.
CATALOG_PATTERNS = {"solid": "solid", "striped": "striped", "checked": "checked", "printed": "printed"}


@dataclass(frozen=True)
class AttributeAccuracy:
    """One attribute's agreement: exact and tolerant accuracy, majority baselines, the top confusions."""

    attribute: str
    n: int
    exact: float
    tolerant: dict[str, float]
    majority: float
    balanced: float
    confusions: tuple[tuple[str, str, int], ...]
    skipped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"attribute": self.attribute, "n": self.n, "exact": self.exact, "tolerant": self.tolerant,
                "majority": self.majority, "balanced": self.balanced,
                "confusions": [list(c) for c in self.confusions], "skipped": self.skipped}


def _balanced(truth: list[str], predicted: list[str]) -> float:
    """Mean per-class recall over the catalog's classes."""
    classes = sorted(set(truth))
    return float(np.mean([np.mean([p == c for t, p in zip(truth, predicted) if t == c]) for c in classes]))


def _summary(attribute, truth, predicted, tolerant, skipped) -> AttributeAccuracy:
    errors = Counter((t, p) for t, p in zip(truth, predicted) if t != p)
    n = len(truth)
    return AttributeAccuracy(
        attribute=attribute, n=n,
        exact=float(np.mean([t == p for t, p in zip(truth, predicted)])) if n else 0.0,
        tolerant=tolerant, majority=Counter(truth).most_common(1)[0][1] / n if n else 0.0,
        balanced=_balanced(truth, predicted) if n else 0.0,
        confusions=tuple((t, p, c) for (t, p), c in errors.most_common(8)), skipped=dict(sorted(skipped.items())),
    )


def colour_accuracy(pairs: list[tuple[str | None, object]], vocabulary: ColourVocabulary) -> AttributeAccuracy:
    """Dominant derived colour vs catalog base colour: exact name, same family, ΔE-close names, in the top 3."""
    lab = dict(zip(vocabulary.names, vocabulary.lab))
    truth, predicted, top3, skipped = [], [], [], Counter()
    for catalog, record in pairs:
        name = normalise_colour(catalog) if catalog else None
        if name not in lab:
            skipped["no single colour in the catalog" if name else "no catalog colour"] += 1
            continue
        truth.append(name)
        predicted.append(record.colour)
        top3.append(name in [c[0] for c in record.colours])
    close = [float(lab_distance(lab[t], lab[p])) <= CLOSE_DELTA_E for t, p in zip(truth, predicted)]
    tolerant = {
        "family": float(np.mean([colour_family(t) == colour_family(p) for t, p in zip(truth, predicted)])),
        f"ΔE76 ≤ {CLOSE_DELTA_E:g}": float(np.mean(close)),
        "in top 3": float(np.mean(top3)),
    } if truth else {}
    return _summary("colour", truth, predicted, tolerant, skipped)


def pattern_accuracy(pairs: list[tuple[str | None, object]]) -> AttributeAccuracy:
    """Derived pattern class vs catalog ``Pattern``: exact class, and solid-vs-patterned."""
    truth, predicted, skipped = [], [], Counter()
    for catalog, record in pairs:
        name = CATALOG_PATTERNS.get(catalog.lower()) if catalog else None
        if name is None:
            skipped[f"catalog pattern '{catalog}'" if catalog else "no catalog pattern"] += 1
            continue
        truth.append(name)
        predicted.append(record.pattern)
    binary = [(t == "solid") == (p == "solid") for t, p in zip(truth, predicted)]
    return _summary("pattern", truth, predicted, {"solid vs patterned": float(np.mean(binary))} if truth else {}, skipped)


def attribute_accuracy(items: pa.Table, attributes: ImageAttributeSet, vocabulary: ColourVocabulary) -> list[AttributeAccuracy]:
    """Colour and pattern accuracy of ``attributes`` against the catalog fields of ``items``."""
    colour_pairs, pattern_pairs = [], []
    for row in items.select(["item_id", "base_colour", "attributes"]).to_pylist():
        record = attributes.get(row["item_id"])
        if record is not None:
            colour_pairs.append((row["base_colour"], record))
            pattern_pairs.append((dict(row["attributes"] or {}).get("Pattern"), record))
    return [colour_accuracy(colour_pairs, vocabulary), pattern_accuracy(pattern_pairs)]


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def accuracy_markdown(results: list[AttributeAccuracy]) -> str:
    """The accuracy table, then the top confusions and the skipped counts, as Markdown."""
    lines = ["| attribute | items scored | exact % | tolerant % | balanced % | majority class % |", "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        tolerant = "; ".join(f"{k}: {_pct(v)}" for k, v in r.tolerant.items())
        lines.append(f"| {r.attribute} | {r.n:,} | {_pct(r.exact)} | {tolerant} | {_pct(r.balanced)} | {_pct(r.majority)} |")
    for r in results:
        lines += ["", f"Top {r.attribute} confusions (catalog → derived, count): "
                  + ", ".join(f"{t} → {p} {c}" for t, p, c in r.confusions) + "."]
        if r.skipped:
            lines.append("Not scored: " + ", ".join(f"{k} {v:,}" for k, v in r.skipped.items()) + ".")
    return "\n".join(lines) + "\n"


__all__ = ["PATTERNS", "AttributeAccuracy", "accuracy_markdown", "attribute_accuracy", "colour_accuracy", "pattern_accuracy"]
