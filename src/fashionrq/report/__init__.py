"""Reports: leaderboard tables, report.md and the self-contained report.html, rendered from the results they are given."""
