"""The quality gate (docs/benchmark.md, "Quality gate"): a release with a task of fewer than MIN_UNITS bootstrap
units is refused unless --allow-weak, and a weak release's empty and few-unit tasks are handled and flagged by
stats, score, compare, the leaderboard and the report. The catalog is the first 110 products of the Myntra fixture,
built with the default (CPU-independent) encoder: t1 and t4 get no unit, t1o, t2 and t3 a few (with the pinned
SID stage, 120 products left t2 none too)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from conftest import MYNTRA_SMALL
from fashionrq import compare, evaluate
from fashionrq.errors import WeakReleaseError
from fashionrq.protocol.audit import audit_release
from fashionrq.tasks import MIN_UNITS, bench_stats, codebook_candidates
from fashionrq.tasks.release import check_quality

PRODUCTS = 110


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fashionrq", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def small_catalog(tmp_path_factory) -> Path:
    """A Myntra-layout folder holding the fixture's first 110 products (their per-item JSON file is kept whole)."""
    folder = tmp_path_factory.mktemp("catalog250")
    lines = (MYNTRA_SMALL / "styles.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "styles.csv").write_text("".join(lines[:PRODUCTS + 1]), encoding="utf-8")
    shutil.copy(MYNTRA_SMALL / "styles_json.jsonl.gz", folder)
    return folder


@pytest.fixture(scope="module")
def refused(small_catalog, tmp_path_factory):
    out = tmp_path_factory.mktemp("gate") / "BENCH"
    return run_cli("build", "--catalog", str(small_catalog), "--out", str(out), "--seed", "0"), out


@pytest.fixture(scope="module")
def weak(small_catalog, tmp_path_factory, refused):  # after `refused`: the encoder and SID caches are warm
    out = tmp_path_factory.mktemp("weak") / "BENCH"
    result = run_cli("build", str(small_catalog), "--out", str(out), "--seed", "0", "--allow-weak")  # CATALOG, as ingest takes it
    return result, out


def test_build_takes_the_catalog_as_its_argument_or_option_but_not_two_of_them(small_catalog, tmp_path):
    result = run_cli("build", str(small_catalog), "--catalog", str(tmp_path), "--out", str(tmp_path / "BENCH"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert " ".join(result.stderr.split()) == f"error: the catalog is given twice ({small_catalog} and --catalog {tmp_path}); give it once."


def test_a_weak_release_is_refused_in_one_sentence_with_nothing_written(refused):
    result, out = refused
    assert result.returncode == 4, result.stderr
    message = " ".join(result.stderr.split())
    assert f"fewer than {MIN_UNITS} bootstrap units" in message and "--allow-weak" in message
    assert "units per task: t1 0," in message and "Traceback" not in result.stderr
    assert not out.exists()
    # the ingest counts are said before the refusal (a trial's refused build had shown none)
    assert f"catalog: {PRODUCTS:,} rows read, {PRODUCTS:,} items, 0 rows rejected" in result.stderr


def test_the_refusal_names_mapping_more_fields_first_when_the_items_say_little_but_their_type(fixture_items):
    """A public Digikala scrape's items have a name, type, gender and price only: its weak tasks come from queries
    that can ask for little else, so the fix named first is to map the fields it lacks; the fixture's items, which
    have them, are told to bring more items per type."""
    units = {"t1": 6, "t1o": 279, "t2": 57, "t3": 4, "t4": 6}
    bare = fixture_items
    for field in ("brand", "base_colour", "usage", "attributes"):
        column = bare.column(field)
        bare = bare.set_column(bare.schema.get_field_index(field), field, pa.nulls(len(bare), column.type))
    with pytest.raises(WeakReleaseError) as refused:
        check_quality(units, "BENCH", False, bare)
    assert "its items have no brand, colour, usage or attributes (nine in ten or more), so its queries can ask for little " \
           "but a type, gender and price" in str(refused.value) and "--allow-weak" in str(refused.value)
    with pytest.raises(WeakReleaseError) as refused:
        check_quality(units, "BENCH", False, fixture_items)
    assert "; give the catalog more items per product type, or rebuild with --allow-weak" in str(refused.value)
    check_quality(units, "BENCH", True, bare)  # --allow-weak: written
    # a Mercado Livre dump of titles only, read as its own types: no gender or price to ask for, and a type per item
    titles = bare
    for field in ("gender", "price"):
        titles = titles.set_column(titles.schema.get_field_index(field), field, pa.nulls(len(titles), titles.column(field).type))
    with pytest.raises(WeakReleaseError) as refused:
        check_quality(units, "BENCH", False, titles)
    assert "so its queries can ask for little but a type, which tell few clusters apart" in str(refused.value)
    titles = titles.set_column(titles.schema.get_field_index("article_type"), "article_type", titles.column("name"))
    with pytest.raises(WeakReleaseError) as refused:
        check_quality(units, "BENCH", False, titles)
    assert f"its {len(titles):,} items have " in str(refused.value) and "nearly one each" in str(refused.value)


def test_allow_weak_writes_it_and_the_build_prints_the_units_and_a_warning(weak):
    result, out = weak
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stderr.split())
    assert f"bootstrap units per task (quality gate: >= {MIN_UNITS})" in text
    assert "weak: intervals flagged" in text and "written because of --allow-weak" in text
    manifest = json.loads((out / "manifest.json").read_text())
    units = manifest["report"]["tasks"]["bootstrap_units"]
    assert units["t1"] == units["t4"] == 0 and all(units[t] > 0 for t in ("t1o", "t2", "t3")), units
    # the codebook search: every candidate's weakest task has 0 units, so the tie goes to the largest size
    codebook = manifest["construction"]["codebook"]
    assert sorted(map(int, codebook["candidates"])) == codebook_candidates(PRODUCTS) == [4, 5, 6]
    assert all(min(plan.values()) == 0 for plan in codebook["candidates"].values()) and codebook["size"] == 6
    assert codebook["candidates"]["6"] == units and codebook["chosen_by"].endswith("(the larger on a tie)")
    assert all(units[t] < MIN_UNITS for t in ("t2", "t3")), units


def test_the_audit_says_which_tasks_had_no_query_to_audit(weak):
    """A release written with --allow-weak whose T1 and T4 have no query: "every bar met" says those tasks had nothing
    to audit (a reviewer had read it as all five tasks audited)."""
    _, out = weak
    audit = audit_release(out)
    assert audit.unaudited == ["t1", "t4"] and audit.to_dict()["unaudited"] == ["t1", "t4"]
    assert audit.passed and audit.verdict == "every bar met (no query in t1, t4: nothing there to audit)"
    assert str(audit).endswith("verdict: every bar met (no query in t1, t4: nothing there to audit)")


def test_stats_reads_the_empty_tasks_and_flags_the_weak_ones(weak):
    _, out = weak
    stats = bench_stats(out)
    assert stats["tasks"]["t1"]["queries"] == 0 and stats["tasks"]["t4"]["judged_pairs"] == 0
    shown = run_cli("stats", str(out))
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split() + shown.stderr.split())
    assert "no queries" in text and "(weak)" in text and "weak tasks (fewer than 8 bootstrap units" in text


def test_score_compare_and_report_skip_empty_tasks_and_flag_weak_intervals(weak, tmp_path):
    _, out = weak
    runs = [evaluate(name, out, out=tmp_path / name, relevance=False) for name in ("random", "bm25")]
    for run in runs:
        assert set(run.report["not_scored"]) == {"t1", "t4"} and "t1" not in run.report["tasks"]
    result = compare(out, runs, resamples=200).to_dict()
    assert set(result["not_scored"]) == {"t1", "t4"}
    assert result["weak_tasks"] and all(n < MIN_UNITS for n in result["weak_tasks"].values())
    for pair in result["pairs"]:
        assert "weak: " in pair["gate"]["verdict"] and not pair["gate"]["promoted"]
    # few units: the t intervals would reach past the metrics' range; they are cut to it, and say so
    deltas = [iv for pair in result["pairs"] for task in pair["tasks"].values() for iv in task["metrics"].values()
              if iv["lower"] is not None]  # a task of one unit has no interval
    assert all(-1 <= iv["lower"] <= iv["delta"] <= iv["upper"] <= 1 for iv in deltas) and any(iv.get("clipped") for iv in deltas)
    assert all(0 <= lower <= upper <= 1 for run in runs for task in run.report["tasks"].values() for lower, upper in task["interval"].values())
    shown = run_cli("compare", *(str(r.run) for r in runs), "--bench", str(out), "--resamples", "200")
    assert shown.returncode == 0, shown.stderr
    assert "(weak: " in shown.stdout + shown.stderr and "not scored (no queries in this release): T1, T4" in shown.stdout + shown.stderr
    printed = " ".join((shown.stdout + shown.stderr).split())
    assert "cut to the" in printed and "[-1.0000, " in printed  # T3 on 3 units: a bound at the range, said so
    report = tmp_path / "report.html"
    made = run_cli("report", str(out), *(str(r.run) for r in runs), "--out", str(report), "--markdown", str(tmp_path / "report.md"),
                   "--resamples", "200")
    assert made.returncode == 0, made.stderr
    markdown = (tmp_path / "report.md").read_text()
    assert "Not scored (no queries in this release): T1, T4." in markdown and "Weak tasks (fewer than 8" in markdown
    assert "(weak: " in markdown and 'class="note weak"' in report.read_text()
