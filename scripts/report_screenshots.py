"""Screenshot every section of a report.html in headless Chromium (network off): docs/img/report-<section>.png.

    python scripts/report_screenshots.py REPORT.html docs/img
"""

from __future__ import annotations

import sys
from pathlib import Path

from fashionrq.report.browser import Page
from fashionrq.report.page import SECTIONS


def main(report: str, out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with Page(width=1200, height=900) as page:
        page.open(report)
        errors = page.errors()
        if errors:
            raise SystemExit(f"{report} logged console errors: {errors[:3]}")
        for section in SECTIONS:
            print(page.screenshot(f"#{section}", folder / f"report-{section}.png"))


if __name__ == "__main__":
    main(*sys.argv[1:3])
