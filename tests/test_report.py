"""report.html on the fixture release, opened in real headless Chromium with the network switched off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import MYNTRA_SMALL, main_code
from fashionrq.report.browser import Page, find_chromium
from fashionrq.report.page import SECTIONS, write_report

needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed (.ci/run installs it)")

CELLS = ("Array.from(document.querySelectorAll('td[data-value]')).map(function(td){"
         "return {run: td.dataset.run, task: td.dataset.task, metric: td.dataset.metric, attribute: td.dataset.attribute || null, "
         "value: td.dataset.value, text: td.textContent};})")
SECTION_STATE = ("Array.from(document.querySelectorAll('section')).map(function(s){var r=s.getBoundingClientRect();"
                 "return {id: s.id, height: r.height, plots: s.querySelectorAll('svg.chart').length, "
                 "notrun: s.querySelectorAll('.notrun').length};})")
IMAGES = "Array.from(document.images).map(function(i){return [i.alt, i.complete && i.naturalWidth > 0];})"


@pytest.fixture(scope="module")
def scored_runs(small_bench, tmp_path_factory) -> list[Path]:
    """random and bm25 run, committed and scored on the fixture release (bm25 with weighted relevance)."""
    from fashionrq.protocol.commitment import commit_run
    from fashionrq.protocol.scoring import score_run, write_json
    from fashionrq.systems import get_system, run_system

    root = tmp_path_factory.mktemp("report-runs")
    runs = []
    for name in ("random", "bm25"):
        out = root / name
        run_system(small_bench, get_system(name), out)
        commit_run(out, small_bench)
        write_json(score_run(small_bench, out, relevance=(name == "bm25")).report, out / "scores.json")
        runs.append(out)
    return runs


@pytest.fixture(scope="module")
def comparison(small_bench, scored_runs) -> dict:
    from fashionrq.protocol.compare import compare_runs

    return compare_runs(small_bench, scored_runs, resamples=500, seed=0)


@pytest.fixture(scope="module")
def report_html(small_bench, scored_runs, comparison, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    return write_report(small_bench, scored_runs, out, comparison=comparison, images=MYNTRA_SMALL / "images")


def test_report_is_one_offline_file(report_html, comparison, small_bench, scored_runs):
    from fashionrq.report.leaderboard import load_scores
    from fashionrq.report.page import render

    text = report_html.read_text(encoding="utf-8")
    assert render(small_bench, load_scores(small_bench, scored_runs), comparison, MYNTRA_SMALL / "images") == text  # deterministic
    assert "<script src" not in text and "<link" not in text and "http://" not in text and "https://" not in text
    assert all(f'<section id="{key}">' in text for key in SECTIONS)
    assert "Holm-Bonferroni" in text and "promoted" in text
    with pytest.raises(Exception, match="already exists"):
        write_report(report_html.parent.parent, [], report_html)


@needs_chromium
def test_report_renders_in_chromium_offline(report_html, scored_runs):
    with Page() as page:
        page.open(report_html)
        assert page.evaluate("document.body.dataset.selfcheck") == "done"
        plots, empty = int(page.evaluate("document.body.dataset.plots")), int(page.evaluate("document.body.dataset.emptyPlots"))
        sections = {s["id"]: s for s in page.evaluate(SECTION_STATE)}
        cells, images = page.evaluate(CELLS), page.evaluate(IMAGES)
        assert page.errors() == []
        assert all(url.startswith(("file:", "data:")) for url in page.requests())
    assert plots >= 8 and empty == 0
    assert set(sections) == set(SECTIONS) and all(s["height"] > 40 for s in sections.values())
    for key in ("leaderboard", "attributes", "constraints", "sid-tree", "tiers"):
        assert sections[key]["plots"] >= 1 and sections[key]["notrun"] == 0, key
    assert sections["probes"]["notrun"] == 1  # no probe run was passed
    assert all(ok for _, ok in images)  # every thumbnail shown decoded (the fixture has 30 images)
    scores = {json.loads((run / "scores.json").read_text())["system"]: json.loads((run / "scores.json").read_text()) for run in scored_runs}
    assert {c["run"] for c in cells} == set(scores)
    by_attribute = [c for c in cells if c["attribute"]]
    assert {c["attribute"] for c in by_attribute} == set(scores["bm25"]["tasks"]["t1"]["breakdowns"]["by_attribute"])
    for cell in by_attribute:
        value = scores[cell["run"]]["tasks"][cell["task"]]["breakdowns"]["by_attribute"][cell["attribute"]]["present"][cell["metric"]]
        assert float(cell["value"]) == value and cell["text"] == f"{value:.4f}"
    for cell in (c for c in cells if not c["attribute"]):
        task = scores[cell["run"]]["tasks"][cell["task"]]
        value = task["aggregate"][cell["metric"]]
        lower, upper = task["interval"][cell["metric"]]
        assert float(cell["value"]) == value
        assert cell["text"] == f"{value:.4f} [{lower:.4f}, {upper:.4f}]"
        assert lower <= value <= upper


@needs_chromium
def test_the_browser_check_catches_errors_and_network_use(tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text('<html><body><img src="https://example.invalid/x.png"><script>console.error("boom");</script></body></html>')
    with Page() as page:
        page.open(broken)
        assert any("boom" in e for e in page.errors())
        assert any(url.startswith("https:") for url in page.requests())


def test_report_command_writes_html_and_markdown(small_bench, scored_runs, tmp_path):
    from typer.testing import CliRunner

    from fashionrq.cli import app

    out, md = tmp_path / "r.html", tmp_path / "r.md"
    result = CliRunner().invoke(app, ["report", str(small_bench), *map(str, scored_runs), "--out", str(out),
                                      "--markdown", str(md), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<!DOCTYPE html>") and "Worst queries" in out.read_text()
    assert "| bm25 |" in md.read_text() and "Holm" in md.read_text()


def test_thumbnails_are_downscaled_inline_jpegs(tmp_path):
    import base64
    import io

    from PIL import Image

    from fashionrq.report.worst import THUMBNAIL_PX, thumbnail

    image_dir = MYNTRA_SMALL / "images"
    item = sorted(image_dir.glob("*.jpg"))[0].stem
    uri = thumbnail(image_dir, item)
    assert uri.startswith("data:image/jpeg;base64,")
    with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as small:
        assert max(small.size) == THUMBNAIL_PX
    assert thumbnail(image_dir, "no-such-item") is None and thumbnail(None, item) is None


@pytest.mark.slow  # a demo of its own: about a minute
def test_the_demo_runs_on_a_catalog_in_another_schema_with_its_mapping(tmp_path, flipkart_crawl):
    """`fashionrq demo --catalog FILE --mapping MAP`: the main job on a catalog of another schema (the Flipkart-crawl
    shape of the fixture's real products, with the mapping written from docs/catalog.md) builds, runs, scores and
    reports; the release's manifest and the report name the mapping, and the MCMR part says why it did not run (the
    crawl's photos are web addresses)."""
    catalog, mapping = flipkart_crawl / "flipkart_com-ecommerce_sample.csv", flipkart_crawl / "mapping.toml"
    out = tmp_path / "demo"
    assert main_code(["demo", "--catalog", str(catalog), "--mapping", str(mapping), "--systems", "random,bm25",
                      "--resamples", "200", "--allow-weak", "--out", str(out)]) == 0
    manifest = json.loads((out / "bench" / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["config"]["catalog"], manifest["config"]["mapping"]) == (catalog.name, mapping.name)
    text = (out / "report.md").read_text(encoding="utf-8")
    assert f'"mapping": "{mapping}"' in text and "## 9. MCMR" in text and "Not run: the catalog has no photos" in text
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["bm25", "random"]
    assert (out / "catalog" / "ingest_report.json").is_file() and (out / "report.html").is_file()


@pytest.mark.slow
def test_demo_writes_report_html(tmp_path):
    from fashionrq.pipeline.demo import DemoConfig
    from fashionrq.report.demo import run_demo

    config = DemoConfig(catalog=str(MYNTRA_SMALL), sid_method="rkmeans", resamples=200, images=str(MYNTRA_SMALL / "images"),
                        systems=(("random", "random", None), ("bm25", "bm25", None), ("minilm-int8", "minilm-int8", None)))
    report = run_demo(tmp_path / "demo", config)
    page = (tmp_path / "demo" / "report.html").read_text(encoding="utf-8")
    assert report.name == "report.md" and page.startswith("<!DOCTYPE html>")
    assert all(f'<section id="{key}">' in page for key in SECTIONS) and 'data-run="bm25"' in page
    text = report.read_text(encoding="utf-8")
    assert "## 7. Adversarial probes" in text and "probe-cooccurrence" in text and "## 8. Time and memory per stage" in text
    # the MCMR section ran in its own process beside the runs, timed under the stage that waited (its own stages join
    # under an "mcmr: " prefix when it computes anything: a warm cache, as on a second run of the suite, leaves none)
    stages = [s["stage"] for s in json.loads((tmp_path / "demo" / "stages.json").read_text(encoding="utf-8"))]
    assert "## 9. MCMR" in text and "mcmr (own process, started after the item vectors)" in stages
    # the label audit is its own section, with the attribute oracle of every run (and its verdict) in audit.json
    audit = json.loads((tmp_path / "demo" / "audit.json").read_text(encoding="utf-8"))
    assert "## 10. Label audit" in text and "label audit" in stages and audit["passed"]
    assert '<section id="label-audit">' in page and "attribute oracle" in page
    assert [r["run"] for r in audit["oracle"]["t1"]] == ["random", "bm25", "minilm-int8"]
    probes = json.loads((tmp_path / "demo" / "probes" / "probe.json").read_text(encoding="utf-8"))
    assert all(f'data-probe="{c["system"]}" data-task="{c["task"]}"' in page for c in probes["cells"] if c["kind"] != "against")
    # the demo evaluates the encoder that built its semantic IDs, and both reports flag it
    flag = "minilm-int8 † shares with the construction: SID encoder (minilm-int8)"
    assert flag in report.read_text(encoding="utf-8") and flag in page and "bm25 †" not in page
