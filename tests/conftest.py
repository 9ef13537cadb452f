"""Shared fixtures: real products cut from the Myntra catalog (see scripts/build_test_fixture.py)."""

from __future__ import annotations

import copy
import csv
import functools
import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from xdist.scheduler import LoadFileScheduling

FIXTURES = Path(__file__).parent / "fixtures"
MYNTRA_SMALL = FIXTURES / "myntra_small"
OTHER_SCHEMA = FIXTURES / "other_schema"


@pytest.fixture(scope="session")
def fixture_items():
    """The 2,181-item Myntra fixture as a canonical items table."""
    from fashionrq.catalog import ingest

    return ingest(MYNTRA_SMALL).table


#: How the small test release is built: real minilm-int8 embeddings and the default settings but the codebook size
#: (RQ-VAE SIDs; leaves of >= 20 items split), given as 9 codes per level: the size the default codebook search over
#: 4-9 chooses for these 2,181 items (its weakest task gets the most bootstrap units), which the slow
#: test_the_fixture_release_its_runs_scores_and_comparison_are_the_same_under_caps checks by searching; given, the fast
#: suite's build trains one size instead of six. The release is the same bytes on every x86 CPU
#: (tests/test_determinism.py pins its manifest hash), so it must pass the quality gate.
SMALL_BUILD = {"encoder": "minilm-int8", "seed": 0, "codebook_size": 9}


def build_shared_release(shared: Path) -> Path:
    """The fixture release in ``shared/small-bench/BENCH``, built once for all xdist workers: whoever holds the lock
    first builds it (atomically) while the others wait."""
    from filelock import FileLock

    from fashionrq.tasks import BuildConfig, build_release

    out = shared / "small-bench" / "BENCH"
    with FileLock(str(shared / "small-bench.lock")):
        if not out.is_dir():
            out.parent.mkdir(exist_ok=True)
            build_release(BuildConfig(catalog=MYNTRA_SMALL, out=out, **SMALL_BUILD))
    return out


@pytest.fixture(scope="session")
def bundled(tmp_path_factory, worker_id) -> tuple[pa.Table, dict]:
    """The embedded 44,446-item catalog ingested (its items table and ingest report), once for all xdist workers
    (about 7 s each time): whoever holds the lock first ingests it and writes both, the others read them."""
    from filelock import FileLock

    from fashionrq.catalog import ingest, load_items, save_ingest

    if worker_id == "master":
        result = ingest("bundled")
        return result.table, result.report.to_dict()
    shared = tmp_path_factory.getbasetemp().parent / "bundled"
    with FileLock(str(shared) + ".lock"):
        if not shared.is_dir():
            save_ingest(ingest("bundled"), shared)
    return load_items(shared / "items.parquet"), json.loads((shared / "ingest_report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def small_bench(tmp_path_factory, worker_id):
    """A frozen release built from the fixture catalog (shared read-only by the task and system tests); under
    pytest-xdist one build serves every worker (:func:`build_shared_release`, started early by
    :func:`pytest_collection_modifyitems`)."""
    if worker_id == "master":
        from fashionrq.tasks import BuildConfig, build_release

        out = tmp_path_factory.mktemp("small-bench") / "BENCH"
        build_release(BuildConfig(catalog=MYNTRA_SMALL, out=out, **SMALL_BUILD))
        return out
    return build_shared_release(tmp_path_factory.getbasetemp().parent)


def pytest_collection_modifyitems(config, items):
    """Modules that need no fixture release run first, and under xdist the first worker starts building the release
    in a process of its own at once: the workers run those modules meanwhile instead of waiting for the build
    (the fast suite's longest wait). A failed background build is simply built again, with its error, by the
    fixture."""
    needing = {item.module.__name__ for item in items if "small_bench" in item.fixturenames}
    items.sort(key=lambda item: item.module.__name__ in needing)  # stable: each module's tests stay together, in order
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker == "gw0" and needing:
        shared = config._tmp_path_factory.getbasetemp().parent
        code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import conftest; conftest.build_shared_release(__import__('pathlib').Path({str(shared)!r}))"
        config._fixture_build = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


#: The one test file whose tests pytest-xdist spreads over the workers one by one: each builds the whole bundled
#: catalog (minutes), and as one unit they would queue on one worker for over an hour while the other idles.
SPREAD_FILE = "tests/test_bundled_builds.py"


class FilesButBundledBuilds(LoadFileScheduling):
    """``--dist loadfile`` (each file's tests on one worker, its module fixtures built once), except that each test of
    :data:`SPREAD_FILE` is a unit of its own."""

    def _split_scope(self, nodeid: str) -> str:
        return nodeid if nodeid.startswith(SPREAD_FILE + "::") else super()._split_scope(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """The suite's scheduler under ``--dist loadfile`` (pyproject.toml's addopts); any other ``--dist`` as asked."""
    return FilesButBundledBuilds(config, log) if config.getvalue("dist") == "loadfile" else None


def pytest_unconfigure(config):
    """Wait for the background fixture build, so no build outlives the test session."""
    build = getattr(config, "_fixture_build", None)
    if build is not None:
        build.wait()


DERIVE_SCRIPT = Path(__file__).parents[1] / "scripts" / "derive_catalog_shapes.py"


@functools.cache
def _derive_script():
    """scripts/derive_catalog_shapes.py as a module (imported once per process)."""
    spec = importlib.util.spec_from_file_location("derive_catalog_shapes", DERIVE_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=1)
def _source_rows(source: Path | str) -> list[dict]:
    return _derive_script().ingest(source).table.to_pylist()


def derive_shape(out: Path, shape: str, source: Path | str = MYNTRA_SMALL, via_script: bool = False) -> Path:
    """``out``, holding the catalog of ``shape`` and its mapping, derived from ``source`` by
    scripts/derive_catalog_shapes.py: in this process (the script's ``write_shape``, the source read once), or with
    ``via_script`` by running the script."""
    if not via_script:
        _derive_script().write_shape(copy.deepcopy(_source_rows(source)), shape, out)  # a copy: no shape sees another's edits
        return out
    done = subprocess.run([sys.executable, str(DERIVE_SCRIPT), "--shape", shape, "--source", str(source), "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def table_rows(path: Path, delimiter: str = ",", skip_lines: int = 0) -> list[dict[str, str]]:
    """The rows of a derived shape's CSV or TSV file, keyed by its header (the line after ``skip_lines`` lines)."""
    text = path.read_text(encoding="utf-8").split("\n", skip_lines)[skip_lines]
    return list(csv.DictReader(io.StringIO(text), delimiter=delimiter))


@pytest.fixture(scope="session")
def us_tops(tmp_path_factory) -> Path:
    """A US-export-shaped catalog in dollars (catalog.csv and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py."""
    return derive_shape(tmp_path_factory.mktemp("us-tops"), "us-tops")


@pytest.fixture(scope="session")
def merchant_feed(tmp_path_factory) -> Path:
    """A Google-Merchant-feed-shaped catalog (catalog.tsv, one row per size, and mapping.toml) derived from the fixture
    by scripts/derive_catalog_shapes.py --shape merchant."""
    return derive_shape(tmp_path_factory.mktemp("merchant"), "merchant")


@pytest.fixture(scope="session")
def merchant_xml(tmp_path_factory) -> Path:
    """The Google Merchant feed as Google's RSS 2.0 XML (catalog.xml: one <item> per row of the TSV feed, g: names, a
    <g:shipping> block, 1-2 <g:additional_image_link>; and mapping.toml, the TSV feed's) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape merchant-xml."""
    return derive_shape(tmp_path_factory.mktemp("merchant-xml"), "merchant-xml")


@pytest.fixture(scope="session")
def shopify_export(tmp_path_factory) -> Path:
    """A Shopify-product-export-shaped catalog (products_export.csv: one row per colour and size, a product's fields on
    its first row only, image rows; and mapping.toml) derived from the fixture by scripts/derive_catalog_shapes.py
    --shape shopify."""
    return derive_shape(tmp_path_factory.mktemp("shopify"), "shopify")


@pytest.fixture(scope="session")
def shopify_products_json(tmp_path_factory) -> Path:
    """A Shopify storefront's products.json (a product object each, its variants, options, tags and photos; and
    mapping.toml) derived from the fixture by scripts/derive_catalog_shapes.py --shape shopify-json."""
    return derive_shape(tmp_path_factory.mktemp("shopify-json"), "shopify-json")


@pytest.fixture(scope="session")
def magento_export(tmp_path_factory) -> Path:
    """A Magento-2-product-export-shaped catalog (export_catalog_product.csv: simple products with their colour and
    size in additional_attributes, then the configurable row listing them in configurable_variations; and
    mapping.toml) derived from the fixture by scripts/derive_catalog_shapes.py --shape magento."""
    return derive_shape(tmp_path_factory.mktemp("magento"), "magento")


@pytest.fixture(scope="session")
def woocommerce_export(tmp_path_factory) -> Path:
    """A WooCommerce-product-export-shaped catalog (wc-product-export.csv: variable products' rows, their variation
    rows naming them in Parent, simple products; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape woocommerce."""
    return derive_shape(tmp_path_factory.mktemp("woocommerce"), "woocommerce")


@pytest.fixture(scope="session")
def amazon_flat_file(tmp_path_factory) -> Path:
    """An Amazon-Seller-Central-flat-file-shaped catalog (Flat.File.Clothing.txt: tab-separated, two lines above the
    header, parent rows named by their children; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape amazon."""
    return derive_shape(tmp_path_factory.mktemp("amazon"), "amazon")


@pytest.fixture(scope="session")
def hm_articles(tmp_path_factory) -> Path:
    """H&M's articles table (articles.csv: H&M's product types, colour groups and graphical appearances, no brand,
    no price; and mapping.toml) derived from the fixture by scripts/derive_catalog_shapes.py --shape hm."""
    return derive_shape(tmp_path_factory.mktemp("hm"), "hm")


@pytest.fixture(scope="session")
def myntra_products(tmp_path_factory) -> Path:
    """A storefront scrape in the layout of the public Myntra products catalog (myntra_products_catalog.csv: no
    product-type column, the currency in the price column's name; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape myntra-products."""
    return derive_shape(tmp_path_factory.mktemp("myntra-products"), "myntra-products")


@pytest.fixture(scope="session")
def amazon_2023_metadata(tmp_path_factory) -> Path:
    """Item metadata in the layout of the public Amazon Reviews 2023 data (meta_Clothing_Shoes_and_Jewelry.jsonl: a
    JSON object per product, categories a list, the department in details; and mapping.toml) derived from the fixture
    by scripts/derive_catalog_shapes.py --shape amazon-2023."""
    return derive_shape(tmp_path_factory.mktemp("amazon-2023"), "amazon-2023")


@pytest.fixture(scope="session")
def abo_listings(tmp_path_factory) -> Path:
    """Listings in the layout of Amazon Berkeley Objects (listings/metadata/listings_<0-f>.json.gz, language-tagged
    values, browse node paths, image ids with images/metadata/images.csv.gz and images/small/) and mapping.toml,
    derived from the fixture by scripts/derive_catalog_shapes.py --shape abo."""
    return derive_shape(tmp_path_factory.mktemp("abo"), "abo")


@pytest.fixture(scope="session")
def zara_store(tmp_path_factory) -> Path:
    """A retailer's own catalog in the layout of the public Zara products dataset (store_zara.csv: semicolons, one
    brand, the type and gender in columns named terms and section; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape zara."""
    return derive_shape(tmp_path_factory.mktemp("zara"), "zara")


@pytest.fixture(scope="session")
def myntra_2023(tmp_path_factory) -> Path:
    """A scrape in the layout of the public 2023 Myntra fashion products dataset (p_id, products for the type, the
    attributes a Python dict in a cell; and mapping.toml) derived from the fixture by scripts/derive_catalog_shapes.py
    --shape myntra-2023."""
    return derive_shape(tmp_path_factory.mktemp("myntra-2023"), "myntra-2023")


@pytest.fixture(scope="session")
def flipkart_crawl(tmp_path_factory) -> Path:
    """A Flipkart-crawl-shaped catalog (flipkart_com-ecommerce_sample.csv: specifications as a Ruby hash, a category
    tree as a JSON list of one ">>" path; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape flipkart."""
    return derive_shape(tmp_path_factory.mktemp("flipkart"), "flipkart")


@pytest.fixture(scope="session")
def amazon_2014_dump(tmp_path_factory) -> Path:
    """A 2014-Amazon-metadata-shaped catalog (meta_Clothing_Shoes_and_Jewelry.json.gz: one Python dict per line,
    category paths as lists of lists, no colour field; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape amazon-2014."""
    return derive_shape(tmp_path_factory.mktemp("amazon-2014"), "amazon-2014")


@pytest.fixture(scope="session")
def asos_scrape(tmp_path_factory) -> Path:
    """An ASOS-scrape-shaped catalog (products_asos.csv: Python-literal lists and one-key dicts in its cells; and
    mapping.toml) derived from the fixture by scripts/derive_catalog_shapes.py --shape asos."""
    return derive_shape(tmp_path_factory.mktemp("asos"), "asos")


@pytest.fixture(scope="session")
def scrape_folder(tmp_path_factory) -> Path:
    """A scrape saved as one JSON file per product (scrape/products/<group>/<id>.json, the free items as one page
    file holding an array, the photos under scrape/images; and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py --shape scrape-folder."""
    return derive_shape(tmp_path_factory.mktemp("scrape-folder"), "scrape-folder")


@pytest.fixture(scope="session")
def product_workbook(tmp_path_factory) -> Path:
    """A retailer's product master workbook (product_master.xlsx: an Instructions sheet, then Products with a title and
    a blank row above the header, number, date and formula cells, then Codes; and mapping.toml) derived from the fixture
    by scripts/derive_catalog_shapes.py --shape workbook."""
    return derive_shape(tmp_path_factory.mktemp("workbook"), "workbook")


def mapping_file(folder: Path, text: str) -> Path:
    """``folder/mapping.toml`` holding ``text``."""
    path = folder / "mapping.toml"
    path.write_text(text, encoding="utf-8")
    return path


def main_code(args: list[str]) -> int:
    """The exit code of ``fashionrq ARGS`` run in-process (0 when it returns normally)."""
    from fashionrq.cli import main

    try:
        main(args)
    except SystemExit as exit:
        return exit.code or 0
    return 0
