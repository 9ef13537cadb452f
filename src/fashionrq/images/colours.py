"""Dominant garment colours: seeded k-means in CIELAB on product pixels, named with a colour vocabulary.

Pixels are weighted before clustering: a Gaussian centre prior (a model's garment sits mid-frame, the face
and feet at the edges) and a strong down-weight for skin tones, so the named colour is the product's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from fashionrq.colour import lab_distance, srgb_to_lab
from fashionrq.ieee import exp_array, log_array
from fashionrq.vocab import colour_rgb, normalise_colour

#: Clusters per image and Lloyd iterations.
CLUSTERS = 3
ITERATIONS = 12
#: Pixels clustered per image (a seeded, weighted sample of the product pixels).
SAMPLE = 3000
#: Weight kept by a skin-tone pixel, and the centre prior's standard deviation as a share of height/width.
SKIN_WEIGHT = 0.08
CENTRE_SIGMA = 0.35
#: Chroma under which a cluster is named black/white/grey, and under which a vocabulary colour counts as one.
ACHROMATIC = 6.0
GREY_NAME_CHROMA = 10.0
#: Lightness and chroma weights of the chromatic naming distance (hue counts fully).
K_L, K_C = 0.25, 0.1
#: Weight of the catalog's name frequencies in naming (0 = nearest colour only).
PRIOR_WEIGHT = 3.0
#: Percentile of a cluster's lightness taken as its colour's lightness.
LIT_PERCENTILE = 75

#: Colour families for tolerant scoring: every resolvable Myntra ``baseColour`` and its family.
COLOUR_FAMILIES: dict[str, str] = {
    "black": "black", "charcoal": "black",
    "grey": "grey", "grey melange": "grey", "silver": "grey", "steel": "grey", "metallic": "grey",
    "white": "white", "off white": "white", "cream": "white",
    "blue": "blue", "navy blue": "blue", "turquoise blue": "blue", "teal": "blue",
    "red": "red", "maroon": "red", "burgundy": "red", "rust": "red", "rose": "red",
    "pink": "pink", "magenta": "pink", "peach": "pink", "mauve": "pink",
    "purple": "purple", "lavender": "purple",
    "green": "green", "olive": "green", "sea green": "green", "lime green": "green", "fluorescent green": "green",
    "yellow": "yellow", "mustard": "yellow", "gold": "yellow",
    "orange": "orange", "bronze": "orange", "copper": "orange",
    "brown": "brown", "coffee brown": "brown", "mushroom brown": "brown", "tan": "brown", "taupe": "brown",
    "beige": "beige", "khaki": "beige", "skin": "beige", "nude": "beige",
}


def colour_family(name: str | None) -> str | None:
    """The family of a colour name (``navy blue`` -> ``blue``); unknown names are their own family."""
    if name is None:
        return None
    key = normalise_colour(name)
    return COLOUR_FAMILIES.get(key, key)


class ColourVocabulary:
    """Named colours and their CIELAB coordinates; names without one sRGB value (``Multi``) are left out.

    Naming separates achromatic from chromatic colours, because product photos are desaturated by lighting:
    a pixel cluster with chroma below :data:`ACHROMATIC` gets the nearest (ΔE76) black/white/grey name, any
    other the chromatic name nearest by hue first, ``sqrt((K_L ΔL)² + (K_C ΔC)² + ΔH²)`` (ΔH as in CIE94).
    With ``counts`` (how often the catalog uses each name), the distance is lowered by
    ``PRIOR_WEIGHT * log(share of the name)``, so an ambiguous dark cluster is called ``black`` (common)
    rather than ``charcoal`` (rare).
    """

    def __init__(self, names: Iterable[str], counts: Mapping[str, int] | None = None) -> None:
        resolvable = sorted({normalise_colour(n) for n in names if n and colour_rgb(n) is not None})
        self.names = tuple(resolvable)
        counts = {normalise_colour(k): v for k, v in (counts or {}).items()}
        self.counts = {n: int(counts.get(n, 0)) for n in self.names} if counts else {}
        frequency = np.array([self.counts.get(n, 0) + 1 for n in self.names], dtype=np.float64)
        self.log_prior = log_array(frequency / frequency.sum()) if self.counts else np.zeros(len(self.names))
        self.lab = srgb_to_lab(np.array([colour_rgb(n) for n in self.names], dtype=np.float64)).reshape(-1, 3)
        self.achromatic = chroma(self.lab) < GREY_NAME_CHROMA

    def distances(self, lab: np.ndarray) -> np.ndarray:
        """``(n, names)`` naming distances of CIELAB rows (infinite across the achromatic/chromatic divide)."""
        lab = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
        delta = lab[:, None, :] - self.lab[None]
        c1, c2 = chroma(lab)[:, None], chroma(self.lab)[None]
        dh2 = np.maximum((delta[..., 1:] ** 2).sum(axis=2) - (c1 - c2) ** 2, 0.0)
        chromatic = np.sqrt((K_L * delta[..., 0]) ** 2 + (K_C * (c1 - c2)) ** 2 + dh2)
        grey = lab_distance(lab[:, None, :], self.lab[None])
        is_grey = c1 < ACHROMATIC
        out = np.where(is_grey, grey, chromatic)
        return np.where(is_grey == self.achromatic[None], out, np.inf)

    def nearest(self, lab: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The name of each CIELAB row in ``lab`` and its naming distance (before the frequency prior)."""
        distances = self.distances(lab)
        distances = np.where(np.isinf(distances).all(axis=1, keepdims=True), lab_distance(
            np.asarray(lab, dtype=np.float64).reshape(-1, 3)[:, None], self.lab[None]), distances)
        best = (distances - PRIOR_WEIGHT * self.log_prior[None]).argmin(axis=1)
        return [self.names[i] for i in best], distances[np.arange(len(best)), best]


def chroma(lab: np.ndarray) -> np.ndarray:
    """The CIELAB chroma sqrt(a² + b²) of each row (from IEEE operations; numpy's hypot is libm's)."""
    return np.sqrt(lab[:, 1] * lab[:, 1] + lab[:, 2] * lab[:, 2])


def skin_tone(rgb: np.ndarray) -> np.ndarray:
    """Boolean mask of skin-tone pixels (the classic YCbCr box: 133 <= Cr <= 173, 77 <= Cb <= 127, Y > 60)."""
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
    cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    return (y > 60) & (cr >= 133) & (cr <= 173) & (cb >= 77) & (cb <= 127)


def pixel_weights(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``(h, w)`` weights: zero off the product, a centre prior on it, skin tones down-weighted."""
    h, w = mask.shape
    ys, xs = np.mgrid[0:h, 0:w]
    prior = exp_array(-0.5 * (((ys - h / 2) / (CENTRE_SIGMA * h)) ** 2 + ((xs - w / 2) / (CENTRE_SIGMA * w)) ** 2))
    weights = prior * mask
    return np.where(skin_tone(rgb), weights * SKIN_WEIGHT, weights)


def weighted_kmeans(points: np.ndarray, weights: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted Lloyd k-means with seeded k-means++ starts: ``(centres, share of weight per centre)``."""
    rng = np.random.default_rng(seed)
    k = min(k, len(points))
    centres = [points[rng.choice(len(points), p=weights / weights.sum())]]
    for _ in range(1, k):
        d = np.min(lab_distance(points[:, None], np.array(centres)[None]), axis=1) ** 2 * weights
        centres.append(points[rng.choice(len(points), p=d / d.sum())] if d.sum() > 0 else centres[-1])
    centres = np.array(centres)
    previous = None
    for _ in range(ITERATIONS):
        assign = lab_distance(points[:, None], centres[None]).argmin(axis=1)
        if previous is not None and np.array_equal(assign, previous):
            break  # a fixed point: the same members give bit-identical centres, so the remaining steps change nothing
        previous = assign
        for j in range(k):
            member = assign == j
            if weights[member].sum() > 0:
                centres[j] = np.average(points[member], axis=0, weights=weights[member])
    assign = lab_distance(points[:, None], centres[None]).argmin(axis=1)
    shares = np.bincount(assign, weights=weights, minlength=k) / weights.sum()
    for j in range(k):
        if np.any(assign == j):  # the lit part of a cluster shows its colour; shadows only darken it
            centres[j, 0] = np.percentile(points[assign == j, 0], LIT_PERCENTILE)
    return centres, shares


def dominant_colours(lab: np.ndarray, weights: np.ndarray, vocabulary: ColourVocabulary, seed: int = 0) -> list[tuple[str, float, tuple]]:
    """``[(name, share, (L, a, b))]`` of the product's colours, largest share first; names merged when equal."""
    flat, w = lab.reshape(-1, 3), weights.ravel()
    keep = np.flatnonzero(w > 0)
    if len(keep) == 0:
        keep, w = np.arange(len(flat)), np.ones(len(flat))
    if len(keep) > SAMPLE:  # systematic weighted sample: deterministic, and cheaper than choice(p=...)
        cumulative = np.cumsum(w[keep])
        offset = np.random.default_rng(seed).random()
        picks = np.searchsorted(cumulative, (np.arange(SAMPLE) + offset) * cumulative[-1] / SAMPLE)
        keep, sample_w = keep[np.minimum(picks, len(keep) - 1)], np.ones(SAMPLE)
    else:
        sample_w = w[keep]
    centres, shares = weighted_kmeans(flat[keep], sample_w, CLUSTERS, seed)
    names, _ = vocabulary.nearest(centres)
    merged: dict[str, list] = {}
    for name, share, centre in sorted(zip(names, shares, centres.tolist()), key=lambda t: -t[1]):
        if name in merged:
            merged[name][0] += share
        else:
            merged[name] = [share, tuple(round(c, 2) for c in centre)]
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return [(name, round(float(share), 4), centre) for name, (share, centre) in ranked if share > 0]
