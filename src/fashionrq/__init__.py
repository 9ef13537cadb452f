"""fashionrq: build graded, attribute-aware fashion-retrieval benchmarks and evaluate retrievers on them.

The flat API (names load lazily, so ``import fashionrq`` stays cheap)::

    bench = fashionrq.load_benchmark("BENCH")
    run = fashionrq.evaluate("bm25", bench)
    print(fashionrq.compare(bench, [run, fashionrq.evaluate("random", bench)]))
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Benchmark": "fashionrq.api", "load_benchmark": "fashionrq.api", "evaluate": "fashionrq.api", "compare": "fashionrq.api",
    "Evaluation": "fashionrq.results", "Comparison": "fashionrq.results",
    "Retriever": "fashionrq.systems", "SearchRetriever": "fashionrq.systems", "BaseRetriever": "fashionrq.systems",
    "get_system": "fashionrq.systems", "read_qrels": "fashionrq.metrics", "read_run": "fashionrq.metrics",
    "write_report": "fashionrq.report.page", "FashionRQError": "fashionrq.errors", "InputError": "fashionrq.errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'fashionrq' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
