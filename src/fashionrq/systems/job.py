"""What the parent and the sealed child agree on: the job it runs, and the files of its work folder WORK."""

from __future__ import annotations

from dataclasses import dataclass, field

#: ``WORK/job/``: the pickled job; ``WORK/out/``: the child's run records, or its error.
JOB = "job.pickle"
RESULT = "result.json"
ERROR = "error.json"
#: Subfolder of the child's output where a two-stage job also writes its first stage alone.
FIRST_STAGE = "first-stage"


@dataclass(frozen=True)
class Job:
    """What the child runs: ``system``/``reranker`` are names (built in the child) or ready instances."""

    system: object
    params: dict = field(default_factory=dict)
    reranker: object = None
    reranker_params: dict = field(default_factory=dict)
    regime: str = "text"
    calibrator: object = None
    release: str = ""
    depth: int = 50  # candidates per query the reranker re-scores
    first_stage: bool = False  # also write the first stage alone (two-stage jobs)
    engine: str | None = None  # open-corpus search: None (in the child), "local" or "ray"
    address: str | None = None
    chunk_rows: int = 4096
    index: str = "exact"


@dataclass(frozen=True)
class Batch:
    """Several jobs for one sealed child (``fashionrq.systems.run.run_systems``): job ``i`` writes ``WORK/out/<i>/``."""

    jobs: tuple[Job, ...]

