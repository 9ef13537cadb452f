"""MCMR runs on an MCMR release (``fashionrq build --mcmr``): every system in every candidate regime, label-blind,
committed and scored (the unchanged MODA protocol); ``report.mcmr.MCMRAblation`` draws the tables from them.

:func:`photographed_ablation` is the demo's MCMR part: an MCMR release built on the catalog's photographed items (from
the stage cache when built before), then :func:`modality_ablation` on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from fashionrq.catalog import load_items
from fashionrq.encoders import get_encoder
from fashionrq.encoders.cache import remember_items
from fashionrq.errors import FashionRQError, InputError
from fashionrq.layout import MCMR, label_file
from fashionrq.limits import available_cores
from fashionrq.pipeline.runs import commit_and_score, run_many
from fashionrq.stagecache import cached_folder, folder_digest
from fashionrq.systems import get_system
from fashionrq.systems.regimes import check_regime
from fashionrq.tasks import BuildConfig, build_release
from fashionrq.timing import stage

#: The default systems: the floor, lexical, text-dense, the image descriptor, and a fusion of lexical + image.
ABLATION_SYSTEMS = ("random", "bm25", "minilm-int8", "image-descriptor", "hybrid")


@dataclass(frozen=True)
class AblationRun:
    """One system in one candidate regime: its run folder and score report."""

    system: str
    regime: str
    run: Path
    scores: dict

    def by_variant(self, task: str) -> dict[str, dict]:
        return self.scores["tasks"].get(task, {}).get("breakdowns", {}).get("by_constraints", {}).get("by_variant", {})


def system_for(name: str, regime: str):
    """``hybrid`` fuses bm25 with the image descriptor where photos are visible, bm25 + minilm-int8 in ``text``."""
    if name == "hybrid":
        return get_system("hybrid", components="bm25,minilm-int8" if regime == "text" else "bm25,image-descriptor")
    return get_system(name)


def _sealed_group(bench: Path, regime: str, group: list[tuple[str, Path]], force: bool) -> None:
    """Every ``(system, run folder)`` of one candidate regime: copied from the stage cache or run together in one
    sealed child (``systems.run_systems``: one start-up, one copy of the photos)."""
    run_many(bench, {run: (system_for(name, regime), {}) for name, run in group},
             {run: {"system": name, "regime": regime} for name, run in group}, regime=regime, force=force)


def _scored(bench: Path, run: Path, name: str, regime: str) -> AblationRun:
    with stage(f"mcmr score {name} ({regime})"):
        scores = commit_and_score(bench, run, relevance=False, force=True).report
    return AblationRun(name, regime, run, scores)


def _sealed_runs(bench: Path, jobs: list[tuple[str, str, Path]], force: bool, workers: int) -> None:
    """Every ``(system, regime, run folder)`` job's sealed run: one sealed child per regime, ``workers`` of them at
    once (one stage for all: they overlap); each run's files are those it gets alone."""
    groups: dict[str, list[tuple[str, Path]]] = {}
    for name, regime, run in jobs:
        groups.setdefault(regime, []).append((name, run))
    label = f"mcmr runs ({len(jobs)} in {len(groups)} sealed children, {min(max(workers, 1), len(groups))} at a time)"
    with stage(label), ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        for future in [pool.submit(_sealed_group, bench, regime, group, force) for regime, group in groups.items()]:
            future.result()


def modality_ablation(bench: str | Path, out: str | Path, systems: Sequence[str] = ABLATION_SYSTEMS,
                      regimes: Sequence[str] = ("text", "image", "fused"), force: bool = False,
                      workers: int = 1) -> tuple[AblationRun, ...]:
    """Run, commit and score every ``system`` in every candidate regime of ``regimes`` on the MCMR release ``bench``.

    Run folders are ``out/<system>-<regime>``. A system that refuses a regime (it reads photos, and text-only
    candidates show none) is left out of that regime. Each regime's systems run together in one sealed child;
    ``workers``: such children at once (the run files do not depend on it); the scoring follows, one run at a time.
    """
    bench, out = Path(bench), Path(out)
    if not (bench / label_file(MCMR)).is_file():
        raise InputError(f"{bench} is not an MCMR release (no labels/mcmr.jsonl); build one with `fashionrq build --mcmr`.")
    for regime in regimes:
        check_regime(regime)
    # text-only candidates show no photo: a system that reads photos (image-descriptor) has nothing to read there
    jobs = [(name, regime, out / f"{name}-{regime}") for name in systems for regime in regimes
            if not (regime == "text" and getattr(system_for(name, regime), "reads_photos", False))]
    _sealed_runs(bench, jobs, force, workers)
    return tuple(_scored(bench, run, name, regime) for name, regime, run in jobs)


def mcmr_codebook_size(photographed: int) -> int:
    """Codes per SID level of the demo's MCMR release: leaves of a few items (16 for the bundled 2,946 photos)."""
    return int(min(16, max(4, round(photographed / 180))))


@dataclass(frozen=True)
class PhotographedAblation:
    """The demo's MCMR part: the ablation's runs, or why it did not run (``runs`` is then None)."""

    photos: int
    runs: tuple[AblationRun, ...] | None = None
    why_not: str | None = None


def photographed_ablation(catalog: Path, bench: Path, runs: Path, *, encoder: str, seed: int, systems: Sequence[str],
                          console: Console) -> PhotographedAblation:
    """An MCMR release ``bench`` on the photographed items of the ingested ``catalog`` folder (from the stage cache
    when built before from the same items), then ``systems`` in every candidate regime into ``runs``."""
    photos = len(load_items(catalog).column("image_path").drop_null())
    if photos == 0:
        return PhotographedAblation(0, why_not="the catalog has no photos. Point a Myntra catalog at its images "
                                               "(`fashionrq ingest DIR --images IMAGES`) or map an image column, then `fashionrq build --mcmr`.")
    console.print(f"MCMR: release on the {photos:,} photographed items, then {', '.join(systems)} in every regime …")
    codebook_size = mcmr_codebook_size(photos)
    inputs = {"items": folder_digest(catalog), "encoder": encoder, "seed": seed, "queries": "mcmr",
              "fingerprint": get_encoder(encoder).fingerprint, "sid_method": "rkmeans", "codebook_size": codebook_size}

    def build(path: Path) -> None:
        remember_items(load_items(catalog), encoder)  # the photographed items' rows are gathered from them
        # the photographed subset is small (2,946 bundled items), so its tasks are few-unit by nature: the MCMR
        # section reads results by constraint count, and compare flags its weak intervals
        build_release(BuildConfig(catalog=catalog, out=path, encoder=encoder, seed=seed, queries_backend="mcmr",
                                  sid_method="rkmeans", codebook_size=codebook_size, allow_weak=True))

    try:
        cached_folder("release", inputs, bench, build)
        return PhotographedAblation(photos, modality_ablation(bench, runs, systems, workers=available_cores()))
    except FashionRQError as err:  # e.g. too few photographed items for a release: the section says why
        return PhotographedAblation(photos, why_not=str(err))
