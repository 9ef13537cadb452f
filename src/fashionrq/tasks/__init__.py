"""Tasks stage: pooled and open-corpus T1, T2-T4 from the cluster hierarchy, the frozen release, BEIR export, statistics."""

from fashionrq.tasks.records import (
    BOOTSTRAP_UNITS, GRADES, HEADLINE, TASK_KEYS, TIER_NAMES, AnchorQuery, OpenQuery, PairInstance, RankingInstance,
    TaskConfig, Tasks,
)
from fashionrq.tasks.construct import TierIndex, build_tasks, recurrence, tier_balance
from fashionrq.tasks.release import (
    MANIFEST, build_release, construct_release, semantic_ids, write_release,
)
from fashionrq.tasks.tree import auto_codebook_size, codebook_candidates, fit_tree, t1_anchor_capacity
from fashionrq.tasks.bench import read_jsonl, read_qrels, release_dir
from fashionrq.tasks.beir import export_beir, export_hf
from fashionrq.tasks.stats import bench_stats

__all__ = [
    "BOOTSTRAP_UNITS", "GRADES", "HEADLINE", "MANIFEST", "TASK_KEYS", "TIER_NAMES", "AnchorQuery", "OpenQuery",
    "PairInstance", "RankingInstance", "TaskConfig", "Tasks", "TierIndex", "auto_codebook_size", "bench_stats",
    "build_release", "build_tasks", "codebook_candidates", "fit_tree", "t1_anchor_capacity", "construct_release", "export_beir", "export_hf", "read_jsonl", "read_qrels",
    "recurrence", "release_dir", "semantic_ids", "tier_balance", "write_release",
]
