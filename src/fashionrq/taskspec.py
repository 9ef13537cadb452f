"""The task table: one :class:`TaskSpec` per task (T1-open, T1, T2, T3, T4), in the order every report lists them.

Scoring, compare, commitment, validation, probes, reports, the leaderboard server and the systems runner read each
task's key, name, files, metrics and bootstrap unit from here. A task's ``kind`` says how its public files are laid
out and so which validator, scorer (``fashionrq.protocol.scoring.SCORERS``) and runner read them. Adding a task is
one :func:`register_task` call (or one entry below) plus its builder, and a scorer when no kind fits
(docs/architecture.md, "The task table").

Low in the stack, beside :mod:`fashionrq.layout`, whose file names it uses: it imports nothing of fashionrq but
``errors`` and ``layout``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fashionrq.errors import CommitmentMismatchError
from fashionrq.layout import LEDGER, RUN_JSON, T2_PAIRS, T2_TEST, T4_GROUPS, candidates_file, qrels_file, queries_file

#: Kinds of task: how a task's queries, candidates and predictions are laid out.
POOLED = "pooled"  # each query ranks its own pool (public/{key}_candidates.jsonl)
OPEN = "open"  # each query ranks the whole catalog, to the release's open depth
TARGETED = "targeted"  # each query ranks the candidates it carries; one target (grade 3) among distractors
GROUPED = "grouped"  # paraphrase groups rank their shared pool (public/t4_groups.jsonl)
PAIRS = "pairs"  # each (query, item) pair is given a grade
#: Kinds whose queries rank a pool given in the public files (the systems runner ranks them alike).
POOLED_KINDS = (POOLED, TARGETED, GROUPED)

#: The relevance grades (§8.0.4: shared prefix length) and their tier names.
GRADES = (3, 2, 1, 0)
TIER_NAMES = {3: "exact", 2: "sibling", 1: "related", 0: "irrelevant"}
#: Fewest bootstrap units a task needs for a meaningful interval (docs/benchmark.md, "Quality gate"): below it a
#: build is refused unless ``allow_weak``, and ``compare`` and the report flag the task's intervals in words.
MIN_UNITS = 8


@dataclass(frozen=True)
class TaskSpec:
    """One task: its key (file and JSON key), display name, kind, files, metrics and bootstrap unit."""

    key: str
    name: str
    kind: str
    public: tuple[str, ...]  # public/ files of its queries and pools
    labels: str  # labels/ file of its judgments
    run_file: str  # the prediction file of a run folder
    headline: str  # registered in manifest.json at build time (docs/benchmark.md, "Headroom")
    secondary: str  # shown beside the headline in the leaderboard
    #: Metrics a probe is judged on besides the headline: a tuple names alternatives, the first the scorer reports is
    #: used (releases before the leak-proof construction name Exact recall "recall@k(rel=3)"). Label-free metrics
    #: (consistency@k) are left out: any ranking that ignores the query text scores 1.0 on them.
    probe_metrics: tuple[str | tuple[str, ...], ...]
    #: The smallest unit whose candidate lists share no item with another's (manifest protocol.bootstrap_unit).
    bootstrap_unit: str
    #: Ranking metrics: reported name -> fashionrq.metrics name. "recall@k" and "mrr@10" count Exact items only
    #: (grade 3; for T3 the target); "(rel=1)" names the older variants that count grades 1-3. Empty for pairs.
    measures: tuple[tuple[str, str], ...] = ()


def _ranking(key: str, name: str, kind: str, public: tuple[str, ...], **fields) -> TaskSpec:
    return TaskSpec(key, name, kind, public, qrels_file(key), f"{key}.run", **fields)


#: Every task, in report order.
TASKS: dict[str, TaskSpec] = {spec.key: spec for spec in (
    _ranking("t1o", "T1-open", OPEN, (queries_file("t1o"),), headline="ndcg@10", secondary="recall@100",
             probe_metrics=("ndcg@10", "recall@100"),
             bootstrap_unit="anchor leaf (its queries share the open corpus' qrels)",
             measures=(("ndcg@1", "ndcg@1"), ("ndcg@5", "ndcg@5"), ("ndcg@10", "ndcg@10"), ("ndcg@50", "ndcg@50"),
                       ("recall@1", "recall@1(rel=3)"), ("recall@5", "recall@5(rel=3)"), ("recall@10", "recall@10(rel=3)"),
                       ("recall@50", "recall@50(rel=3)"), ("recall@100", "recall@100(rel=3)"), ("mrr@10", "mrr@10(rel=3)"))),
    _ranking("t1", "T1", POOLED, (queries_file("t1"), candidates_file("t1")), headline="recall@10", secondary="ndcg@10",
             probe_metrics=("ndcg@10", ("recall@10(rel=3)", "recall@10")),
             bootstrap_unit="T1 pool component (pools sharing no item; one pool per unit of two sibling leaves)",
             measures=(("ndcg@5", "ndcg@5"), ("ndcg@10", "ndcg@10"), ("recall@5", "recall@5(rel=3)"),
                       ("recall@10", "recall@10(rel=3)"), ("mrr@10", "mrr@10(rel=3)"), ("recall@5(rel=1)", "recall@5"),
                       ("recall@10(rel=1)", "recall@10"))),
    TaskSpec("t2", "T2", PAIRS, (queries_file("t2"), T2_PAIRS), T2_TEST, "t2.jsonl", headline="macro_f1", secondary="accuracy",
             probe_metrics=("balanced_accuracy",),
             bootstrap_unit="T2 pair-unit component (units of two sibling leaves sharing no item)"),
    _ranking("t3", "T3", TARGETED, (queries_file("t3"),), headline="recall@1", secondary="ndcg@3",
             probe_metrics=(("recall@1(rel=3)", "recall@1"), "ndcg@3"),
             bootstrap_unit="T3 candidate group (one item from each of up to 5 neighbouring leaves)",
             measures=(("graded_ndcg@1", "ndcg@1"), ("graded_ndcg@3", "ndcg@3"))),
    _ranking("t4", "T4", GROUPED, (queries_file("t4"), T4_GROUPS), headline="recall@10", secondary="consistency@10",
             probe_metrics=("ndcg@10",), bootstrap_unit="T1 pool component (T4 groups use their leaf's T1 pool)",
             measures=(("ndcg@10", "ndcg@10"), ("recall@10", "recall@10(rel=3)"))),
)}


def register_task(spec: TaskSpec) -> None:
    """Add ``spec`` to :data:`TASKS` (after the built-in tasks); its key must be new."""
    if spec.key in TASKS:
        raise ValueError(f"task {spec.key} is already registered")
    TASKS[spec.key] = spec


def headlines() -> dict[str, str]:
    """``{task: headline metric}`` of every registered task (what manifest.json registers at build time)."""
    return {key: spec.headline for key, spec in TASKS.items()}


def tasks_of(*kinds: str) -> list[str]:
    """Keys of the registered tasks of ``kinds``, in report order."""
    return [key for key, spec in TASKS.items() if spec.kind in kinds]


def run_files() -> dict[str, str]:
    """``{task: file name}`` of a run folder's prediction files."""
    return {key: spec.run_file for key, spec in TASKS.items()}


def refuse_committed(path: str | Path) -> None:
    """Refuse, always, to write a committed run folder or onto its committed files (predictions, run.json, ledger)."""
    path = Path(path)
    if (path / LEDGER).is_file():
        raise CommitmentMismatchError(f"{path} is a committed run; its files are evidence and are never replaced, so write to a new folder.")
    if (path.parent / LEDGER).is_file() and path.name in {RUN_JSON, LEDGER, *run_files().values()}:
        raise CommitmentMismatchError(f"{path} is a committed file of run {path.parent} and is never replaced; write to another path.")
