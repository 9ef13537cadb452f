"""``image-descriptor``: text queries against the candidates' image descriptors, with no model weights.

The query's colour words (:data:`fashionrq.vocab.COLOURS`) and pattern words become a query descriptor in the
same space as :func:`fashionrq.images.descriptor.image_descriptor`: colour mass on the CIELAB cells of the
named colours, and as texture the mean texture block of the corpus photos whose derived pattern is the one
asked for (label-free: derived from pixels). The score is the cosine of the two descriptors (tie-stable,
:mod:`fashionrq.systems.stable`); a query naming
no colour and no pattern scores every item 0. Items without a photo score 0.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from fashionrq.errors import InputError
from fashionrq.images.descriptor import A_BINS, B_BINS, L_BINS, WEIGHTS, lab_bin, unit_vector
from fashionrq.images.store import EXTRACTOR_VERSION, extract_items
from fashionrq.colour import srgb_to_lab
from fashionrq.systems.base import BaseRetriever
from fashionrq.systems.regimes import regime_of
from fashionrq.exact import Grid
from fashionrq.systems.stable import stable_scores
from fashionrq.vocab import COLOURS, PATTERN_TERMS, colour_rgb, find_terms

COLOUR_CELLS = L_BINS * A_BINS * B_BINS
#: Query pattern words -> derived pattern class.
PATTERN_WORDS = {
    "solid": "solid", "plain": "solid", "striped": "striped", "stripes": "striped", "pinstripe": "striped",
    "checked": "checked", "check": "checked", "plaid": "checked", "tartan": "checked", "gingham": "checked",
    "printed": "printed", "print": "printed", "floral print": "printed", "floral": "printed", "graphic print": "printed",
    "graphic": "printed", "abstract": "printed", "geometric": "printed", "animal print": "printed", "typography": "printed",
}


class ImageDescriptorRetriever(BaseRetriever):
    """Cosine of a query descriptor built from colour and pattern words with each photo's descriptor."""

    name = "image-descriptor"
    reads_photos = True  # refuses text-only candidates

    def __init__(self, cache_dir: str | None = None, workers: int = 1) -> None:
        self.cache_dir = cache_dir
        self.workers = workers

    def fit(self, items: pa.Table) -> ImageDescriptorRetriever:
        if regime_of(items) == "text":
            raise InputError("system 'image-descriptor' reads photos, which text-only candidates do not show; run it with --regime image or fused.")
        attributes = extract_items(items, cache_dir=self.cache_dir, workers=self.workers)
        self.documents = attributes.descriptors(items.column("item_id").to_pylist())
        self.grid = Grid.of(self.documents)
        patterns = np.array([getattr(attributes.get(i), "pattern", "") for i in items.column("item_id").to_pylist()])
        texture = self.documents[:, COLOUR_CELLS:]
        self.prototypes = {p: texture[patterns == p].mean(axis=0) for p in sorted(set(patterns) - {""})}
        return self

    def query_descriptor(self, query: str) -> np.ndarray:
        """The descriptor a query's colour and pattern words ask for (all zeros when it names neither)."""
        colours = [c for c in find_terms(query, tuple(COLOURS)) if colour_rgb(c) is not None]
        colour = np.zeros(COLOUR_CELLS)
        if colours:
            np.add.at(colour, lab_bin(srgb_to_lab(np.array([colour_rgb(c) for c in colours], dtype=np.float64))), 1.0)
        patterns = [PATTERN_WORDS[t] for t in find_terms(query, PATTERN_TERMS) if t in PATTERN_WORDS]
        texture = self.prototypes.get(patterns[0], np.zeros(self.documents.shape[1] - COLOUR_CELLS)) if patterns else \
            np.zeros(self.documents.shape[1] - COLOUR_CELLS)
        return unit_vector(np.concatenate([WEIGHTS["colour"] * unit_vector(np.sqrt(colour)), texture])).astype(np.float32)

    def score(self, query: str, candidate_rows: np.ndarray) -> np.ndarray:
        self._check_fitted()
        return stable_scores(self.query_descriptor(query), self.grid.take(np.asarray(candidate_rows, dtype=np.int64)))

    def config(self) -> dict:
        return {"extractor_version": EXTRACTOR_VERSION}
