"""The demo's report: each step of the pipeline (``fashionrq.pipeline.demo``) rendered into report.md as it ends and
printed, then report.html, the time and memory per stage, the MCMR section and the label audit."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from fashionrq.catalog.report import summary_counts, summary_lines
from fashionrq.io import atomic_write_json, atomic_write_text
from fashionrq.layout import SCORES
from fashionrq.pipeline.demo import DemoConfig, DemoResults, run_pipeline
from fashionrq.pipeline.mcmr import PhotographedAblation
from fashionrq.protocol.compare import verdict_markdown
from fashionrq.report.leaderboard import labelled, leaderboard_of
from fashionrq.report.mcmr import MCMRAblation
from fashionrq.report.page import render
from fashionrq.report.tables import Scored, markdown
from fashionrq.sid.report import purity_text
from fashionrq.timing import StageTimer, stage


def ingest_markdown(report: dict) -> str:
    """The ingest report as Markdown: counts, repairs, rejections (as many as the CLI prints, the rest counted) and
    the missing count of every field."""
    lines = [f"{report['source']}: {summary_counts(report)}.", "", *(f"- {line}" for line in summary_lines(report))]
    rows = [[name, f"{count:,}", f"{count / max(report['rows_written'], 1):.1%}"] for name, count in report["missing"].items()]
    return "\n".join(lines) + "\n\n" + markdown("Missing values per field", ["field", "missing", "share"], rows)


def sid_markdown(report: dict) -> str:
    """Per-level semantic-ID diagnostics as Markdown."""
    rows = []
    for level in report["levels"]:
        purity = level["purity"]
        rows.append([str(level["level"]), f"{level['clusters']:,}", f"{level['codebook_usage']:.1%}", f"{level['perplexity']:.1f}",
                     f"{level['mean_cluster_size']:.1f}", f"{level['unique_fraction']:.1%}",
                     *(purity_text(purity[a]["weighted"]) for a in ("article_type", "sub_category", "base_colour", "gender"))])
    header = ["level", "clusters", "usage", "perplexity", "mean size", "unique", "purity articleType", "purity subCategory",
              "purity colour", "purity gender"]
    return markdown("Semantic IDs per level (weighted purity)", header, rows)


def stats_markdown(stats: dict) -> str:
    """Benchmark statistics (paper Tables 1, 7, 8) as Markdown."""
    clusters = [[str(lv), f"{c['prefixes']:,}", f"{c['qualified']:,}"] for lv, c in sorted(stats["clusters"].items())]
    tasks = [[t.upper(), f"{v['queries']:,}", f"{v['anchor_leaves']:,}"] for t, v in stats["tasks"].items()]
    tiers = ("exact", "sibling", "related", "irrelevant")
    labels = [[t.upper(), *(f"{v[k]['count']:,} ({v[k]['share']:.1%})" for k in tiers)] for t, v in stats["labels"].items()]
    tags = stats["attribute_tags"]
    tag_rows = [[a, f"{n:,}"] for a, n in sorted(tags["per_attribute"].items(), key=lambda kv: -kv[1])]
    cov = stats["catalog_coverage"]
    return "\n".join([
        markdown("Clusters per level (Table 1)", ["level", "prefixes", "qualified"], clusters),
        markdown("Queries per task (Table 7)", ["task", "queries", "anchor leaves"], tasks),
        markdown("Relevance-label balance (Table 8)", ["task", *tiers], labels),
        markdown(f"Attribute tags of φ(q) over {tags['queries']:,} T1 queries", ["attribute", "queries"], tag_rows),
        f"Catalog coverage: {cov['items_touched']:,} of {cov['catalog_items']:,} items touched ({cov['share']:.1%}).\n",
    ])


def run_demo(out: str | Path, config: DemoConfig = DemoConfig(), console: Console | None = None, verbose: bool = False,
             force: bool = False) -> Path:
    """Build the benchmark from ``config.catalog``, run, commit and score every baseline, compare them, write the report
    (``fashionrq.pipeline.demo.run_pipeline``, rendered here).

    ``out`` must be a new or empty folder; ``force`` replaces an earlier demo's folder (never another folder).
    The release, each system's sealed run and the bootstrap are taken from the stage cache
    (:mod:`fashionrq.stagecache`) when their inputs and the code are unchanged; every run is still committed and
    scored. Every stage's wall time, CPU time and peak RSS go into the report (section 8) and ``stages.json``;
    ``verbose`` also prints each stage as it ends.
    """
    console = console or Console(stderr=True, emoji=False)
    report = DemoReport(config, console)
    timer = StageTimer(on_stage=(lambda s: console.print(f"[stage] {s}", markup=False, highlight=False)) if verbose else None)
    with timer.active():
        results = run_pipeline(out, config, console=console, force=force, show=report.show)
        with stage("report.html"):
            atomic_write_text(results.out / "report.html", render(
                results.bench, report.shown, results.comparison, config.images, "fashionrq demo report",
                results.probes.to_dict(), mcmr_ablation(results.mcmr), results.audit))
    return report.finish(results, timer)


class DemoReport:
    """report.md's sections, each printed to the console as the pipeline step it renders ends."""

    def __init__(self, config: DemoConfig, console: Console) -> None:
        self.console = console
        self.sections = [f"# fashionrq demo report\n\nConfiguration: `{json.dumps(_config_dict(config), sort_keys=True)}`\n"]
        self.shown: list[Scored] = []  # the scored runs as the leaderboard labels them

    def section(self, title: str, body: str) -> None:
        self.sections.append(f"## {title}\n\n{body}\n")
        self.console.print(f"\n## {title}\n\n{body}", markup=False, highlight=False, soft_wrap=True)

    def show(self, step: str, results: DemoResults) -> None:
        """Render the pipeline step ``step`` (``catalog``, ``release``, ``runs``, ``comparison`` or ``probes``)."""
        getattr(self, f"_{step}")(results)

    def _catalog(self, results: DemoResults) -> None:
        self.section("1. Catalog", ingest_markdown(results.ingest))

    def _release(self, results: DemoResults) -> None:
        self.section("2. Semantic-ID hierarchy", sid_markdown(results.sids))
        self.section("3. Benchmark", stats_markdown(results.stats))

    def _runs(self, results: DemoResults) -> None:
        self.shown = labelled([(s, run / SCORES) for s, run in zip(results.scored, results.runs)], results.bench)
        with stage("leaderboard"):
            self.section("4. Leaderboard", leaderboard_of(results.bench, self.shown))

    def _comparison(self, results: DemoResults) -> None:
        flags = results.comparison["analysis"]["flags"]
        flag_text = "\n".join(f"- {flag}" for flag in flags) if flags else "- no system pair changes order between micro and macro aggregation."
        self.section("5. Verdicts (conjunctive promotion gate)", verdict_markdown(results.comparison))
        self.section("6. What the headline is made of", "Aggregation sensitivity (pairs whose order flips):\n\n" + flag_text)

    def _probes(self, results: DemoResults) -> None:
        self.section("7. Adversarial probes", str(results.probes))

    def finish(self, results: DemoResults, timer: StageTimer) -> Path:
        """Sections 8-10 (time and memory per stage, MCMR, label audit), ``stages.json`` and ``report.md``."""
        self.section("8. Time and memory per stage", timer.to_markdown())
        if results.mcmr is not None:
            self.section("9. MCMR on the photographed items (text / image / fused regimes, controlled constraint count)",
                         mcmr_markdown(results.mcmr))
        self.section("10. Label audit (full matches of the hidden φ(q) by grade; the attribute oracle of every run)",
                     "```\n" + str(results.audit) + "\n```")
        atomic_write_json(results.out / "stages.json", timer.to_dict())
        report = results.out / "report.md"
        atomic_write_text(report, "\n".join(self.sections))
        return report


def mcmr_ablation(result: PhotographedAblation | None) -> MCMRAblation | None:
    """The MCMR tables of the demo's MCMR part, None when it did not run."""
    return MCMRAblation.of(result.runs) if result is not None and result.runs is not None else None


def mcmr_markdown(result: PhotographedAblation) -> str:
    """Report section 9: the MCMR tables, or why they are missing."""
    if result.runs is not None:
        return "Release `mcmr-bench/` (`fashionrq build --mcmr`), runs in `mcmr-runs/`.\n\n" + MCMRAblation.of(result.runs).to_markdown()
    if result.photos == 0:
        return f"Not run: {result.why_not}"
    return f"Not run on the {result.photos:,} photographed items: {result.why_not}"


def _config_dict(config: DemoConfig) -> dict:
    data = {k: getattr(config, k) for k in ("catalog", "encoder", "sid_method", "seed", "resamples", "rerank_depth")}
    if config.mapping:
        data["mapping"] = config.mapping
    data["hybrid_components"] = list(config.hybrid_components)
    data["systems"] = [label for label, _, _ in config.systems]
    data["mcmr_systems"] = list(config.mcmr_systems)
    if config.allow_weak:
        data["allow_weak"] = True
    return data
