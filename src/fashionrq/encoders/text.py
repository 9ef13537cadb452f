"""The item-text template: one deterministic string per row of the items table."""

from __future__ import annotations

from collections.abc import Mapping

#: Attributes copied into the text, in this order, when the item has them.
KEY_ATTRIBUTES = (
    "Fabric", "Material", "Pattern", "Print or Pattern Type", "Occasion", "Fit", "Sleeve Length",
    "Neck", "Collar", "Length", "Type", "Main Trend",
)

#: Words, then characters, of the description kept (the rest is mostly washing and model-size boilerplate).
#: 12 words: item texts average 56 tokens instead of 71 (25 words), every encoder does about 21% less work,
#: and T1 nDCG@10 moved by -0.0007 (benchmarks/bench_item_text.py, docs/benchmarks.md).
DESCRIPTION_WORDS = 12
DESCRIPTION_CHARS = 200


#: The items-table columns :func:`item_text` reads.
TEXT_COLUMNS = ("name", "brand", "article_type", "gender", "base_colour", "usage", "season", "attributes", "description")


def _attributes(value) -> dict[str, str]:
    """The ``attributes`` cell as a dict, whether Arrow gave a dict or a list of (key, value) pairs."""
    return dict(value) if value else {}


def item_text(row: Mapping) -> str:
    """The text an encoder sees for one item.

    Template (fields that are null are left out, with their label)::

        {name}. {brand} {article_type} for {gender}. Colour: {base_colour}. Usage: {usage}.
        Season: {season}. {Attr}: {value}; ... . {description: first 12 words, at most 200 characters}

    ``Attr`` runs over :data:`KEY_ATTRIBUTES` in that order.
    """
    parts: list[str] = []
    if row.get("name"):
        parts.append(f"{row['name']}.")
    head = " ".join(v for v in (row.get("brand"), row.get("article_type")) if v)
    if head:
        parts.append(f"{head} for {row['gender']}." if row.get("gender") else f"{head}.")
    elif row.get("gender"):
        parts.append(f"For {row['gender']}.")
    for label, field in (("Colour", "base_colour"), ("Usage", "usage"), ("Season", "season")):
        if row.get(field):
            parts.append(f"{label}: {row[field]}.")
    attributes = _attributes(row.get("attributes"))
    pairs = [f"{key}: {attributes[key]}" for key in KEY_ATTRIBUTES if attributes.get(key)]
    if pairs:
        parts.append("; ".join(pairs) + ".")
    description = row.get("description")
    if description:
        parts.append(" ".join(description.split()[:DESCRIPTION_WORDS])[:DESCRIPTION_CHARS].strip())
    return " ".join(parts)
