"""The per-stage time budget (wall, CPU and peak RSS of nested stages, the no-timer no-op) and a light CLI start."""

from __future__ import annotations

import time

import numpy as np
import pytest

from fashionrq.timing import StageTimer, adopt, stage, timed


def _burn_cpu(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_stages_record_wall_cpu_and_peak_rss_and_nest():
    seen = []
    timer = StageTimer(on_stage=seen.append)
    with timer.active():
        with stage("outer"):
            _burn_cpu(0.2)
            with stage("allocate"):
                block = np.ones(300 * 2**20 // 8)  # 300 MiB touched
                del block
            time.sleep(0.2)
    inner, outer = timer.stages
    assert [s.stage for s in seen] == ["allocate", "outer"] and (inner.depth, outer.depth) == (1, 0)
    assert outer.cpu_s >= 0.2 and outer.wall_s >= outer.cpu_s - 0.05 + 0.15  # sleeping costs wall, not CPU
    assert inner.peak_rss_mib >= 300 and outer.peak_rss_mib >= inner.peak_rss_mib  # an inner peak counts outside
    table = timer.to_markdown()
    assert "| ↳ allocate |" in table and "| outer |" in table
    total = next(line for line in table.splitlines() if line.startswith("| **total**"))
    assert f"**{outer.wall_s:,.1f}**" in total  # the inner stage is not counted twice
    assert timer.peak_rss_mib == outer.peak_rss_mib and f"**{outer.peak_rss_mib:,.0f}**" in total
    assert [r["stage"] for r in timer.to_dict()] == ["allocate", "outer"]


def test_a_stage_that_raises_is_still_recorded():
    timer = StageTimer()
    with timer.active(), pytest.raises(ValueError):
        with stage("fails"):
            raise ValueError("boom")
    assert [s.stage for s in timer.stages] == ["fails"]


def test_stage_without_an_active_timer_records_nothing():
    timer = StageTimer()
    with stage("unobserved"):
        pass
    assert timer.stages == []


def _sum_in_stage(values):
    with stage("sum"):
        return sum(values)


def test_timed_returns_the_result_and_its_own_stages_for_a_parent_to_adopt():
    result, stages = timed("outer", _sum_in_stage, [1, 2, 3])
    assert result == 6 and [s.stage for s in stages] == ["sum", "outer"] and stages[1].depth == 0
    assert [s.stage for s in timed(None, _sum_in_stage, [4])[1]] == ["sum"]  # no outer stage
    timer = StageTimer()
    with timer.active(), stage("waiting"):
        adopt(stages)
    assert [s.stage for s in timer.stages] == ["sum", "outer", "waiting"]


def test_cli_help_imports_no_model_library():
    """`fashionrq --help` (and the start of every command) stays light: stages import their heavy libraries lazily."""
    import subprocess
    import sys

    code = ("import sys; from fashionrq.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers', 'onnxruntime', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_cli_version_answers_without_a_command():
    """`fashionrq --version` prints the version and exits 0 (it once fell through to click's "Missing command")."""
    import subprocess
    import sys

    from fashionrq import __version__

    done = subprocess.run([sys.executable, "-m", "fashionrq", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"fashionrq {__version__}", done.stdout + done.stderr
