"""Image attributes as a short phrase, so text retrievers can match what the photo shows."""

from __future__ import annotations

from fashionrq.images.records import ImageAttributes

#: Colours with at least this share of the product's pixels are named.
MIN_SHARE = 0.2


def describe(record: ImageAttributes | None) -> str | None:
    """``"Photo: navy blue and white, striped."`` (colours by share, then the pattern); ``None`` without a photo."""
    if record is None:
        return None
    names = [name for name, share, _ in record.colours if share >= MIN_SHARE] or [n for n, _, _ in record.colours[:1]]
    colours = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"Photo: {colours}, {record.pattern}." if colours else f"Photo: {record.pattern}."
