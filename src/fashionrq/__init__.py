"""fashionrq: build graded, attribute-aware fashion-retrieval benchmarks and evaluate retrievers on them.

The flat API (names load lazily, so ``import fashionrq`` stays cheap)::

    bench = fashionrq.load_benchmark("BENCH")
    run = fashionrq.evaluate("bm25", bench)
    print(fashionrq.compare(bench, [run, fashionrq.evaluate("random", bench)]))
"""

from __future__ import annotations

from fashionrq.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "Benchmark": "fashionrq.api", "load_benchmark": "fashionrq.api", "evaluate": "fashionrq.api", "compare": "fashionrq.api",
    "Evaluation": "fashionrq.results", "Comparison": "fashionrq.results",
    "Retriever": "fashionrq.systems", "SearchRetriever": "fashionrq.systems", "BaseRetriever": "fashionrq.systems",
    "get_system": "fashionrq.systems", "read_qrels": "fashionrq.metrics", "read_run": "fashionrq.metrics",
    "write_report": "fashionrq.report.page", "FashionRQError": "fashionrq.errors", "InputError": "fashionrq.errors",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, eager=("__version__",))
