"""Reports: leaderboard tables (tasks side by side, attribute-level scores, rerank conditionals) from score JSON."""

from fashionrq.report.leaderboard import (
    attribute_recall_table,
    attribute_table,
    conditional_table,
    constraint_count_table,
    leaderboard,
    load_scores,
    task_table,
)

__all__ = ["attribute_recall_table", "attribute_table", "conditional_table", "constraint_count_table", "leaderboard", "load_scores", "task_table"]
