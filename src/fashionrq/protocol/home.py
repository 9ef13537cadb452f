"""Home advantage: how much an encoder gains on a benchmark whose semantic IDs were built from its own embeddings.

Two releases are built from one catalog, one with SIDs (and hard negatives) from encoder A, one from encoder B,
and both encoders are evaluated as retrievers on both. On each release the paired difference Δ = A − B of a
headline metric comes from the paired cluster bootstrap over that release's bootstrap units. The home
advantage is the difference in differences

    H = Δ(release A) − Δ(release B) = [A − B on A's release] − [A − B on B's release],

how much the pair's gap swings toward whichever encoder built the benchmark; the difficulty of each release
cancels out. The two releases have independent units, so H's interval resamples each release independently
(seeds ``seed`` and ``seed + 1``). H = 0: the construction does not favour its own encoder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fashionrq.protocol.bootstrap import DIFFERENCE_RANGE, Interval, degrees_of_freedom, summarise
from fashionrq.protocol.compare import pair_draws, registered_headline, resample_draws
from fashionrq.errors import ComparisonError
from fashionrq.protocol.scoring import ScoredRun
from fashionrq.taskspec import TASKS

#: H is a difference of two differences of metrics in [0, 1], so it lies in [-2, 2] (its interval is cut there).
HOME_RANGE = (-2.0, 2.0)


@dataclass(frozen=True)
class HomeAdvantage:
    """One headline metric's 2×2 table (system × release), the per-release Δ = A − B and the home advantage H."""

    task: str
    metric: str
    encoders: tuple[str, str]
    #: (system encoder, release encoder) -> the system's score on that release
    scores: Mapping[tuple[str, str], float]
    #: release encoder -> Δ = A − B on that release (paired cluster bootstrap)
    delta: Mapping[str, Interval]
    advantage: Interval

    def own_gain(self, encoder: str) -> float:
        """The encoder's score on its own release minus on the other one (unpaired; includes release difficulty)."""
        other = next(e for e in self.encoders if e != encoder)
        return self.scores[(encoder, encoder)] - self.scores[(encoder, other)]

    def to_dict(self) -> dict:
        return {"task": self.task, "metric": self.metric, "encoders": list(self.encoders),
                "scores": {f"{s} on {r}": v for (s, r), v in self.scores.items()},
                "delta_a_minus_b": {r: iv.to_dict() for r, iv in self.delta.items()},
                "own_gain": {e: self.own_gain(e) for e in self.encoders}, "home_advantage": self.advantage.to_dict()}

    def __str__(self) -> str:
        return home_markdown([self])


def _interval(iv: Interval) -> str:
    return f"{iv.delta:+.4f} [{iv.lower:+.4f}, {iv.upper:+.4f}]"


def home_markdown(results: Sequence[HomeAdvantage]) -> str:
    """One Markdown 2×2 table per headline metric, with Δ = A − B per release and the home advantage H."""
    blocks = []
    for r in results:
        a, b = r.encoders
        lines = [f"**{TASKS[r.task].name} {r.metric}** (A = {a}, B = {b})", "",
                 f"| system \\ release built from | {a} | {b} | own gain (home − away) |", "|---|---|---|---|"]
        lines += [f"| {s} | {r.scores[(s, a)]:.4f} | {r.scores[(s, b)]:.4f} | {r.own_gain(s):+.4f} |" for s in r.encoders]
        lines.append(f"| Δ = A − B [{r.advantage.level:.0%}] | {_interval(r.delta[a])} | {_interval(r.delta[b])} | "
                     f"H = {_interval(r.advantage)} |")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _check_runs(runs: Mapping[tuple[str, str], ScoredRun], encoders: tuple[str, str]) -> None:
    missing = [f"{s} on {r}" for s in encoders for r in encoders if (s, r) not in runs]
    if missing:
        raise ComparisonError(f"the home-advantage table lacks the run {missing[0]}; score every encoder on both releases.")


def home_advantage(runs: Mapping[tuple[str, str], ScoredRun], encoders: tuple[str, str], *, resamples: int = 10_000,
                   seed: int = 0, level: float = 0.95) -> list[HomeAdvantage]:
    """The home advantage on every task's registered headline metric.

    ``runs[(system, release)]``: the scored run of encoder ``system`` on the release whose SIDs came from ``release``.
    """
    _check_runs(runs, encoders)
    a, b = encoders
    draws, units = {}, {}
    for offset, release in enumerate(encoders):
        pair = [runs[(b, release)], runs[(a, release)]]
        clusters, counts = resample_draws(pair, resamples, seed + offset)
        draws[release] = {task: pair_draws(*pair, task, counts[task], clusters[task])
                          for task in TASKS if all(task in s.units for s in pair)}
        units[release] = {task: np.bincount(pair[0].units[task].cluster_index(clusters[task]), minlength=len(clusters[task]))
                          for task in draws[release]}
    heads = registered_headline(list(runs.values()))
    out = []
    for task in (t for t in TASKS if t in draws[a] and t in draws[b]):
        metric = heads[task]
        (home_a, resampled_a), (home_b, resampled_b) = draws[a][task][metric], draws[b][task][metric]
        scores = {key: s.report["tasks"][task]["aggregate"][metric] for key, s in runs.items()}
        sizes_a, sizes_b = units[a][task], units[b][task]
        # H spans both releases' independent draws; its t takes the release with fewer degrees of freedom (conservative)
        fewer = min((sizes_a, sizes_b), key=lambda sizes: degrees_of_freedom(sizes)[1])
        out.append(HomeAdvantage(task, metric, encoders, scores,
                                 {a: summarise(home_a, resampled_a, level, sizes_a).within(DIFFERENCE_RANGE),
                                  b: summarise(home_b, resampled_b, level, sizes_b).within(DIFFERENCE_RANGE)},
                                 summarise(home_a - home_b, resampled_a - resampled_b, level, fewer).within(HOME_RANGE)))
    return out
