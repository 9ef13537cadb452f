"""The flat API: the README's example runs verbatim, result objects convert, qrels readers agree, __all__ is explicit."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import fashionrq

README = Path(__file__).parent.parent / "README.md"


def readme_example() -> str:
    """The Python block under '## Python API' in README.md, verbatim."""
    found = re.search(r"^## Python API\n.*?```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S | re.M)
    assert found, "README.md has no ```python block under '## Python API'"
    return found.group(1)


@pytest.mark.slow  # builds a release and runs systems: ~45 s
def test_readme_example_runs_verbatim_and_prints_a_comparison(small_bench, tmp_path, monkeypatch):
    code = readme_example()
    assert len(code.strip().splitlines()) <= 12
    (tmp_path / "BENCH").symlink_to(small_bench, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    text = printed.getvalue()
    assert text.startswith("Comparison: Δ = B − A") and "Holm-Bonferroni" in text
    rows = [line.split() for line in text.splitlines()[2:4]]
    assert {r[0] for r in rows} == {"NameMatch", "bm25"} and all(r[-1] in ("True", "False") for r in rows)


def test_flat_namespace_is_explicit():
    assert set(fashionrq.__all__) >= {"load_benchmark", "evaluate", "compare", "Evaluation", "Comparison", "Retriever"}
    assert all(getattr(fashionrq, name) is not None for name in fashionrq.__all__)
    with pytest.raises(AttributeError):
        fashionrq.no_such_name  # noqa: B018


def test_one_qrels_reader(small_bench, tmp_path):
    """The release's qrels reader is the TREC one, except that it reads a weak release's empty task file."""
    import fashionrq.metrics
    import fashionrq.tasks
    from fashionrq.errors import InputError

    path = small_bench / "labels" / "t1.qrels"
    qrels = fashionrq.tasks.read_qrels(path)
    assert qrels.to_dict() == fashionrq.metrics.read_qrels(path).to_dict()
    first = path.read_text().split("\n", 1)[0].split()
    assert next(iter(qrels)) == (first[0], first[2], int(first[3])) and len(list(qrels)) == len(qrels)
    empty = tmp_path / "t4.qrels"
    empty.write_text("")
    assert len(fashionrq.tasks.read_qrels(empty)) == 0
    with pytest.raises(InputError, match="the file is empty"):
        fashionrq.metrics.read_qrels(empty)


def test_results_convert(small_bench, tmp_path):
    bench = fashionrq.load_benchmark(small_bench)
    assert len(bench.release) == 64 and str(bench).startswith("fashionrq benchmark")
    run = fashionrq.evaluate("random", bench, out=tmp_path / "random", relevance=False)
    frame = run.to_dataframe()
    t1 = frame[(frame.task == "t1") & (frame.metric == "ndcg@10")].iloc[0]
    assert t1.value == run.to_dict()["tasks"]["t1"]["aggregate"]["ndcg@10"] and t1.lower <= t1.value <= t1.upper
    assert "ndcg@10" in str(run) and r"\toprule" in run.to_latex() and run.to_html().startswith("<table>")
    with pytest.raises(fashionrq.FashionRQError, match="is a committed run"):
        fashionrq.evaluate("random", bench, out=tmp_path / "random")
    with pytest.raises(fashionrq.FashionRQError, match="needs fit"):
        fashionrq.evaluate(object(), bench)
    comparison = fashionrq.compare(bench, [run, run.run], resamples=200)
    pairs = comparison.to_dataframe()
    assert list(pairs["B"]) == ["random", "random#2"] and not pairs["promoted"].any() and not pairs["promoted_holm"].any()
    assert comparison.to_dict()["correction"]["method"] in str(comparison)
    assert r"\bottomrule" in comparison.to_latex() and "<caption>Comparison" in comparison.to_html()
