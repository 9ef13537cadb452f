"""The flat API: ``load_benchmark``, ``evaluate`` and ``compare`` (ranx/MTEB style), re-exported by ``fashionrq``.

    >>> bench = fashionrq.load_benchmark("BENCH")
    >>> mine = fashionrq.evaluate(MyRetriever(), bench)      # label-blind run, commitment, scores
    >>> print(fashionrq.compare(bench, [mine, fashionrq.evaluate("bm25", bench)]))
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fashionrq.pipeline.runs import run_commit_score
from fashionrq.protocol.compare import compare_runs
from fashionrq.release import Release, verify_release
from fashionrq.results import Comparison, Evaluation
from fashionrq.systems import as_retriever
from fashionrq.tasks.bench import release_dir


@dataclass(frozen=True)
class Benchmark:
    """A verified, frozen release: its folder, release hash (sha256 of manifest.json) and manifest."""

    path: Path
    release: str
    manifest: dict

    def __str__(self) -> str:
        counts = self.manifest.get("counts", {})
        return f"fashionrq benchmark {self.path} (release {self.release[:12]}…, {counts.get('items', '?'):,} items)"


def load_benchmark(path: str | Path) -> Benchmark:
    """Open the release at ``path`` after verifying every file against its manifest (raises if tampered)."""
    folder = release_dir(path)
    verify_release(folder, strict=True)
    release = Release(folder, verify=False)
    return Benchmark(folder, release.release, release.manifest)


def _bench(bench: Benchmark | str | Path) -> Benchmark:
    return bench if isinstance(bench, Benchmark) else load_benchmark(bench)


def evaluate(system, bench: Benchmark | str | Path, *, out: str | Path | None = None, reranker=None, depth: int = 50,
             relevance: bool = True, force: bool = False, **params) -> Evaluation:
    """Run ``system`` label-blind on ``bench``, commit the predictions, score them and return the :class:`Evaluation`.

    ``system`` is a name (``"bm25"``, ``"st:<model>"``, ``"module:Class"``; ``params`` go to its constructor) or
    any object with ``fit(items)`` and ``score(query, candidate_rows)`` (or ``search(query, k)``). ``out`` is the
    run folder (default: a new temporary folder); it also receives ``scores.json``. ``reranker`` (a name such as
    ``"verifier"`` or a pointwise reranker) re-scores each query's top ``depth`` first-stage candidates.
    """
    bench = _bench(bench)
    if not isinstance(system, str):
        system = as_retriever(system)  # refuses, in this process, an object that is no retriever
    out = Path(tempfile.mkdtemp(prefix="fashionrq-run-")) if out is None else Path(out)
    (scored,), _ = run_commit_score(bench.path, system, out, reranker=reranker, depth=depth, params=params,
                                    relevance=relevance, force=force)
    return Evaluation(scored.report["system"], out, scored.report)


def compare(bench: Benchmark | str | Path, runs: Sequence[Evaluation | str | Path], *, resamples: int = 10_000, seed: int = 0,
            level: float = 0.95, headline: str | dict | None = None) -> Comparison:
    """Paired cluster bootstrap of every pair of ``runs`` with the promotion gate and Holm correction."""
    bench = _bench(bench)
    paths = [r.run if isinstance(r, Evaluation) else Path(r) for r in runs]
    return Comparison(compare_runs(bench.path, paths, resamples=resamples, seed=seed, level=level, headline=headline))
