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
