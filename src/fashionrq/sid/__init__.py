"""Semantic IDs: RQ-VAE with attribute exclusivity, vanilla RQ-VAE and residual k-means tokenizers, and diagnostics.

Names load lazily (as in :mod:`fashionrq`): reading ``sids.parquet`` or the method names does not import torch and
scikit-learn, which training needs.
"""

from __future__ import annotations

from fashionrq.lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(("Tokenizer", "attributes_from_items", "dedup_level"), "fashionrq.sid.base"),
    **dict.fromkeys(("load_tokenizer", "save_tokenizer"), "fashionrq.sid.io"),
    **dict.fromkeys(("read_sids", "write_sids"), "fashionrq.sid.sids_file"),
    "ResidualKMeans": "fashionrq.sid.kmeans",
    "split_leaves": "fashionrq.sid.leaves",
    "METHODS": "fashionrq.sid.names",
    "make_tokenizer": "fashionrq.sid.methods",
    **dict.fromkeys(("collisions", "purity", "report_table", "sid_report"), "fashionrq.sid.report"),
    **dict.fromkeys(("DEFAULT_LEVEL_ATTRIBUTES", "RQVAE"), "fashionrq.sid.rqvae"),
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
