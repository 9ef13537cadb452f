"""Tasks stage: pooled and open-corpus T1, T2-T4 from the cluster hierarchy, the frozen release, BEIR export, statistics."""

from fashionrq.tasks.records import (
    GRADES, MIN_UNITS, TIER_NAMES, AnchorQuery, OpenQuery, PairInstance, RankingInstance,
    TaskConfig, Tasks,
)
from fashionrq.tasks.construct import TierIndex, build_tasks, recurrence, tier_balance
from fashionrq.tasks.buildconfig import BuildConfig
from fashionrq.tasks.release import (
    build_release, check_quality, construct_release, weak_tasks, write_release,
)
from fashionrq.tasks.sids import semantic_ids
from fashionrq.tasks.tree import auto_codebook_size, codebook_candidates, fit_tree, t1_anchor_capacity
from fashionrq.tasks.bench import catalog_ids, read_qrels, release_dir
from fashionrq.tasks.beir import export_beir, export_hf
from fashionrq.tasks.stats import bench_stats

__all__ = [
    "GRADES", "MIN_UNITS", "TIER_NAMES", "AnchorQuery", "BuildConfig", "OpenQuery",
    "PairInstance", "RankingInstance", "TaskConfig", "Tasks", "TierIndex", "auto_codebook_size", "bench_stats", "catalog_ids",
    "build_release", "build_tasks", "check_quality", "codebook_candidates", "construct_release", "export_beir", "export_hf", "fit_tree",
    "read_qrels", "t1_anchor_capacity",
    "recurrence", "release_dir", "semantic_ids", "tier_balance", "weak_tasks", "write_release",
]
