"""A catalog in another schema builds in one command through a mapping file, keeping its attributes, with no
placeholder value in any query. The fixture is H&M's ``articles`` layout cut from Myntra by
scripts/build_hm_fixture.py: other column names, department names for genders, list colours, a map of
attributes, ``Unknown``/``undefined``/``-``/``N/A``/empty placeholders and a few NaN and infinite prices."""

from __future__ import annotations

import json
import math
import re

import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES
from fashionrq.catalog.schema import PLACEHOLDERS, clean_string
from fashionrq.cli import main
from fashionrq.io import read_jsonl
from fashionrq.tasks import catalog_ids

HM = FIXTURES / "hm_schema"
#: Placeholder spellings a query could show as words ("-" and "" cannot be seen in text).
PLACEHOLDER_WORDS = re.compile(r"(?<![\w-])(unknown|undefined|n/a|n\.a\.|null|none|nan|na)(?![\w-])", re.IGNORECASE)
#: Embedding 3,035 items takes about 100 s of CPU, so the module is marked slow.
pytestmark = pytest.mark.slow
BUILD = ["--seed", "0", "--encoder", "minilm", "--sid-method", "rkmeans", "--codebook-size", "16", "--pool-size", "40",
         "--max-anchor-leaves", "200"]  # 200: every task gets >= 8 bootstrap units, so the quality gate passes


def run(*args) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    assert stop.value.code in (0, None)


@pytest.fixture(scope="module")
def hm_bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("hm") / "BENCH"
    run("build", "--catalog", HM / "articles.parquet", "--mapping", HM / "mapping.toml", "--out", out, *BUILD)
    return out


def _expected_attributes(row: dict) -> dict[str, str]:
    expected = {k: v for k, v in row["details"] if clean_string(v) is not None}
    if clean_string(row["graphical_appearance_name"]) is not None:
        expected["Pattern"] = row["graphical_appearance_name"]
    return expected


def test_every_attribute_survives_the_one_command_build(hm_bench):
    source = {r["article_id"]: r for r in pq.read_table(HM / "articles.parquet").to_pylist()}
    items = pq.read_table(hm_bench / "public" / "items.parquet").to_pylist()
    article = catalog_ids(hm_bench)  # the release publishes opaque item ids; labels/ maps them to the catalog's
    assert len(items) == len(source) == 3035
    for item in items:
        assert dict(item["attributes"]) == _expected_attributes(source[article[item["item_id"]]]), item["item_id"]
    assert sum(bool(item["attributes"]) for item in items) > 0.75 * len(items)
    assert {i["gender"] for i in items} == {"Men", "Women", "Boys", "Girls", "Unisex", None}
    for item in items:  # no placeholder is stored in any field
        for name in ("brand", "gender", "base_colour", "season", "usage", "article_type", "description"):
            assert item[name] is None or item[name].strip().lower() not in PLACEHOLDERS, (name, item[name])
        assert all(c.strip().lower() not in PLACEHOLDERS for c in item["colours"])
        assert item["price"] is None or math.isfinite(item["price"])


def test_no_generated_query_holds_a_placeholder(hm_bench):
    texts = [q["text"] for task in ("t1", "t2", "t3", "t4") for q in read_jsonl(hm_bench / "public" / f"{task}_queries.jsonl")]
    assert len(texts) > 100
    assert [t for t in texts if PLACEHOLDER_WORDS.search(t)] == []
    phis = [r["phi"] for r in read_jsonl(hm_bench / "labels" / "phi.jsonl")]
    values = {v.lower() for phi in phis for vs in phi.values() if vs for v in vs}
    assert not values & PLACEHOLDERS
    tagged = {key for phi in phis for key, vs in phi.items() if vs}
    assert tagged & {"pattern", "material", "style_tags"}  # attributes from the map reach the queries


def test_manifest_counts_the_cleaning_and_stats_json_is_strict(hm_bench, capsys):
    manifest = json.loads((hm_bench / "manifest.json").read_text())
    source = pq.read_table(HM / "articles.parquet", columns=["price"]).column("price").to_pylist()
    catalog = manifest["catalog"]
    assert catalog["values_nulled"]["non_finite_price"] == sum(p is not None and math.isinf(p) for p in source) > 0
    assert catalog["values_nulled"]["unparsable_price"] == sum(p is not None and math.isnan(p) for p in source) > 0
    assert catalog["placeholders"]["colours"] > 0 and catalog["rejected_rows"] == 0
    assert manifest["config"]["mapping"].endswith("mapping.toml")
    capsys.readouterr()
    run("stats", hm_bench, "--json")

    def refuse(constant: str):
        raise AssertionError(f"stats --json wrote {constant}")

    stats = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert stats["items"] == 3035 and stats["catalog_coverage"]["price"]["max"] < 1e6
