"""Lazy re-exports for a package's ``__init__``: a name's module is imported when the name is first used, so importing
the package stays cheap (``fashionrq``, ``fashionrq.tasks``, ``fashionrq.sid``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str],
                 eager: tuple[str, ...] = ()) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, whose name ``n`` in ``exports`` is ``exports[n]``'s
    attribute of that name, imported on first use (PEP 562); ``eager`` are names the package defines itself."""
    names = sorted([*eager, *exports])

    def __getattr__(name: str):
        if name in exports:
            return getattr(importlib.import_module(exports[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return names

    return __getattr__, __dir__, names
