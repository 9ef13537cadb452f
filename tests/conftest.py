"""Shared fixtures: real products cut from the Myntra catalog (see scripts/build_test_fixture.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
MYNTRA_SMALL = FIXTURES / "myntra_small"
OTHER_SCHEMA = FIXTURES / "other_schema"


@pytest.fixture(scope="session")
def fixture_items():
    """The 2,181-item Myntra fixture as a canonical items table."""
    from fashionrq.catalog import ingest

    return ingest(MYNTRA_SMALL).table


#: How the small test release is built: real minilm-int8 embeddings and the default settings (RQ-VAE SIDs, the
#: codebook size whose task plan gives the weakest task the most bootstrap units among 4-9: 9 codes per level for
#: 2,181 items, every task 22 units or more; leaves of >= 20 items split). The release is the same bytes on every x86
#: CPU (tests/test_determinism.py pins its manifest hash), so it must pass the quality gate.
SMALL_BUILD = {"encoder": "minilm-int8", "seed": 0}


@pytest.fixture(scope="session")
def small_bench(tmp_path_factory, worker_id):
    """A frozen release built from the fixture catalog (shared read-only by the task and system tests). Under
    pytest-xdist the workers share one build: the first to arrive builds it (atomically) while the others wait."""
    from filelock import FileLock

    from fashionrq.tasks import build_release

    if worker_id == "master":
        out = tmp_path_factory.mktemp("small-bench") / "BENCH"
        build_release(MYNTRA_SMALL, out, **SMALL_BUILD)
        return out
    shared = tmp_path_factory.getbasetemp().parent
    out = shared / "small-bench" / "BENCH"
    with FileLock(str(shared / "small-bench.lock")):
        if not out.is_dir():
            out.parent.mkdir(exist_ok=True)
            build_release(MYNTRA_SMALL, out, **SMALL_BUILD)
    return out


@pytest.fixture(scope="session")
def us_tops(tmp_path_factory) -> Path:
    """A US-export-shaped catalog in dollars (catalog.csv and mapping.toml) derived from the fixture by
    scripts/derive_catalog_shapes.py."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("us-tops")
    done = subprocess.run([sys.executable, str(Path(__file__).parents[1] / "scripts" / "derive_catalog_shapes.py"),
                           "--source", str(MYNTRA_SMALL), "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def main_code(args: list[str]) -> int:
    """The exit code of ``fashionrq ARGS`` run in-process (0 when it returns normally)."""
    from fashionrq.cli import main

    try:
        main(args)
    except SystemExit as exit:
        return exit.code or 0
    return 0
