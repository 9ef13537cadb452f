"""Tasks stage: T1-T4 instances from the cluster hierarchy, the frozen release, BEIR export and statistics."""

from fashionrq.tasks.construct import GRADES, TIER_NAMES, AnchorQuery, TaskConfig, Tasks, TierIndex, build_tasks, tier_balance
from fashionrq.tasks.release import MANIFEST, build_release, construct_release, semantic_ids, write_release
from fashionrq.tasks.bench import read_jsonl, read_qrels, release_dir
from fashionrq.tasks.beir import export_beir, export_hf
from fashionrq.tasks.stats import bench_stats

__all__ = [
    "GRADES", "MANIFEST", "TIER_NAMES", "AnchorQuery", "TaskConfig", "Tasks", "TierIndex", "bench_stats", "build_release",
    "build_tasks", "construct_release", "export_beir", "export_hf", "read_jsonl", "read_qrels", "release_dir", "semantic_ids",
    "tier_balance", "write_release",
]
