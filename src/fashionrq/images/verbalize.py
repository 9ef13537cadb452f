"""Image attributes as words: discrete facets of one photo (what an MCMR query may ask of the pixels) and a phrase.

Each facet is a value a shopper can see in the photo and name in a few words: the dominant colour, a second
colour, the pattern class, the tone (lightness of the dominant colour), its saturation, the silhouette (the
product mask's aspect ratio) and its left-right symmetry. Thresholds split the bundled catalog's 2,946 photos
into classes of comparable size (``docs/images.md``, "Facets"). :func:`describe` writes them as the
candidate text of the image regimes; ``fashionrq.querygen.mcmr`` writes them into queries, so both sides speak
the same words.
"""

from __future__ import annotations

import math

from fashionrq.images.records import ImageAttributes

#: Colours with at least this share of the product's pixels are named (the second one is the accent).
MIN_SHARE = 0.2
#: CIELAB lightness of the dominant colour: below DARK is dark, above LIGHT is light.
DARK, LIGHT = 35.0, 70.0
#: CIELAB chroma of the dominant colour below which it reads as muted.
MUTED = 10.0
#: Mask aspect ratio (height / width): at least LONG is a long silhouette, below WIDE a wide one.
LONG, WIDE = 1.3, 0.9
#: Mirror IoU of the mask at least this is a symmetric outline.
SYMMETRIC = 0.75

#: Facet name -> how a value is written (``{}`` is the value). The first five describe the look, the last two the shape.
PHRASES = {
    "photo_colour": "{}",
    "photo_accent": "{} accents",
    "photo_pattern": "{}",
    "photo_tone": "{}-toned",
    "photo_saturation": "{} colours",
    "photo_silhouette": "{a} {} silhouette",
    "photo_symmetry": "{a} {} outline",
}
FACETS = tuple(PHRASES)
#: Pattern classes as a shopper writes them.
PATTERN_WORDS = {"solid": "plain", "striped": "striped", "checked": "checked", "printed": "printed"}


def _tone(lightness: float) -> str:
    return "dark" if lightness < DARK else "light" if lightness > LIGHT else "mid"


def _silhouette(aspect: float) -> str:
    return "long" if aspect >= LONG else "wide" if aspect < WIDE else "square"


def photo_facets(record: ImageAttributes | None) -> dict[str, str]:
    """``{facet: value}`` of one photo (empty without a photo); ``photo_accent`` only when a second colour is large."""
    if record is None or not record.colours:
        return {}
    name, _, (lightness, a, b) = record.colours[0]
    facets = {"photo_colour": name.lower()}
    accent = next((n.lower() for n, share, _ in record.colours[1:] if share >= MIN_SHARE and n.lower() != name.lower()), None)
    if accent:
        facets["photo_accent"] = accent
    facets.update({
        "photo_pattern": PATTERN_WORDS.get(record.pattern, record.pattern),
        "photo_tone": _tone(lightness),
        "photo_saturation": "muted" if math.hypot(a, b) < MUTED else "vivid",
        "photo_silhouette": _silhouette(record.shape.get("aspect_ratio", 1.0)),
        "photo_symmetry": "symmetric" if record.shape.get("symmetry", 0.0) >= SYMMETRIC else "asymmetric",
    })
    return facets


def facet_phrase(facet: str, value: str) -> str:
    """How one facet value is written: ``photo_tone=dark`` -> ``dark-toned``, ``photo_symmetry=asymmetric`` ->
    ``an asymmetric outline``."""
    return PHRASES[facet].format(value, a="an" if value[:1] in "aeiou" else "a")


def describe(record: ImageAttributes | None) -> str | None:
    """``"Photo: navy blue with white, striped, dark-toned, muted colours, with a long silhouette and a symmetric
    outline."``; ``None`` without a photo. Every facet of :func:`photo_facets`."""
    facets = photo_facets(record)
    return f"Photo: {look_phrase(facets)}." if facets else None


def look_phrase(facets: dict[str, str], lead: str = "") -> str:
    """Facets as words: ``lead`` + the look (``navy blue with white, striped, dark-toned``), then ``with`` the shape
    (``with a long silhouette and an asymmetric outline``); an accent without its main colour is ``white accents``."""
    colour, accent = facets.get("photo_colour"), facets.get("photo_accent")
    colours = f"{colour} with {accent}" if colour and accent else colour or (facet_phrase("photo_accent", accent) if accent else None)
    look = [p for p in [colours] + [facet_phrase(f, facets[f]) for f in FACETS[2:5] if f in facets] if p]
    shape = [facet_phrase(f, facets[f]) for f in FACETS[5:] if f in facets]
    return ", ".join(([lead + ", ".join(look)] if look else []) + (["with " + " and ".join(shape)] if shape else []))
