"""Progress where no bar renders (a log, CI): a long step prints lines with its time left, a short one nothing."""

from __future__ import annotations

import io
import time

from rich.console import Console

from fashionrq import progress
from fashionrq.progress import ProgressLog, duration, track


def _logged(monkeypatch) -> io.StringIO:
    text = io.StringIO()
    monkeypatch.setattr(progress, "console", Console(file=text, force_terminal=False, width=200))
    return text


def _slow(n: int, pause: float):
    for i in range(n):
        time.sleep(pause)
        yield i


def test_a_long_step_logs_its_progress_and_the_time_left(monkeypatch):
    text = _logged(monkeypatch)
    assert list(track(_slow(4, 0.03), "encoding items", total=4, every=0.05)) == [0, 1, 2, 3]
    lines = text.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("encoding items: ") for line in lines)
    assert any(", about " in line and line.endswith(" s left") for line in lines[:-1])
    assert lines[-1].startswith("encoding items: 4/4 done,") and "left" not in lines[-1]


def test_a_short_step_prints_nothing_and_an_unknown_total_counts(monkeypatch):
    text = _logged(monkeypatch)
    assert list(track(range(3), "reading", total=3)) == [0, 1, 2]
    assert text.getvalue() == ""
    log = ProgressLog("scanning", None, every=0.0, out=progress.console)
    log.update(7)
    assert text.getvalue().startswith("scanning: 7 done, 0 s elapsed")


def test_the_last_count_is_printed_once(monkeypatch):
    """A step whose last update already printed the final count (a codebook search's sixth size) does not print the
    same line again when it ends; one that printed an earlier count does print the final one."""
    text = _logged(monkeypatch)
    log = ProgressLog("codebook search", 6, every=0.0, out=progress.console)
    log.update(5)
    log.update(6)
    log.finish(6)
    assert [line.split(",")[0] for line in text.getvalue().splitlines()] == ["codebook search: 5/6 done", "codebook search: 6/6 done"]
    log = ProgressLog("embedding", 3, every=0.0, out=progress.console)
    log.update(1)
    log.every = 3600.0
    log.update(2)
    log.finish(3)
    assert [line.split(",")[0] for line in text.getvalue().splitlines()[2:]] == ["embedding: 1/3 done", "embedding: 3/3 done"]


def test_a_terminal_gets_the_bar_not_the_lines():
    text = io.StringIO()
    log = ProgressLog("encoding", 10, every=0.0, out=Console(file=text, force_terminal=True))
    log.update(5)
    log.finish(10)
    assert text.getvalue() == ""


def test_durations_read_as_minutes_and_seconds():
    assert duration(42.4) == "42 s" and duration(187) == "3 min 07 s"
