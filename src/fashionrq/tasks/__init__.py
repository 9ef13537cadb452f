"""Tasks stage: pooled and open-corpus T1, T2-T4 from the cluster hierarchy, the frozen release, BEIR export, statistics.

Names load lazily (as in :mod:`fashionrq`): reading a release (``read_qrels``, ``bench_stats``, ``MIN_UNITS``) does
not import the SID trainer (torch) that building one needs.
"""

from __future__ import annotations

from fashionrq.lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(("GRADES", "MIN_UNITS", "TIER_NAMES"), "fashionrq.taskspec"),
    **dict.fromkeys(("AnchorQuery", "OpenQuery", "PairInstance", "RankingInstance", "TaskConfig", "Tasks"), "fashionrq.tasks.records"),
    **dict.fromkeys(("TierIndex", "build_tasks", "recurrence", "tier_balance"), "fashionrq.tasks.construct"),
    "BuildConfig": "fashionrq.tasks.buildconfig",
    **dict.fromkeys(("build_release", "check_quality", "construct_release", "weak_tasks", "write_release"), "fashionrq.tasks.release"),
    "semantic_ids": "fashionrq.tasks.sids",
    **dict.fromkeys(("auto_codebook_size", "codebook_candidates", "fit_tree", "t1_anchor_capacity"), "fashionrq.tasks.tree"),
    **dict.fromkeys(("catalog_ids", "read_qrels", "release_dir"), "fashionrq.tasks.bench"),
    **dict.fromkeys(("export_beir", "export_hf"), "fashionrq.tasks.beir"),
    "bench_stats": "fashionrq.tasks.stats",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
