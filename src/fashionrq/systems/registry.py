"""System names -> retrievers: the built-ins, ``st:<model>``, ``module:Class`` plug-ins and entry points."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from fashionrq.errors import FashionRQError
from fashionrq.systems.adapter import as_retriever
from fashionrq.systems.base import BatchRetriever

#: Entry-point group through which installed packages register systems (``name = "pkg.module:Class"``).
ENTRY_POINT_GROUP = "fashionrq.systems"

#: Built-in dense encoders (names of the encoders registry).
DENSE_ENCODERS = ("minilm", "minilm-int8", "e5-small")
SPARSE_ENCODERS = ("splade-tiny",)


def _builtin(name: str):
    from fashionrq.systems.dense import EncoderRetriever
    from fashionrq.systems.hybrid import HybridRetriever
    from fashionrq.systems.lexical import BM25Retriever, RandomRetriever, TfidfRetriever

    from fashionrq.systems.imagedesc import ImageDescriptorRetriever
    from fashionrq.systems.probes import POOL_SYSTEMS

    classes = {"random": RandomRetriever, "bm25": BM25Retriever, "tfidf": TfidfRetriever, "hybrid": HybridRetriever,
               "image-descriptor": ImageDescriptorRetriever, **POOL_SYSTEMS}
    if name in classes:
        return classes[name]
    if name in DENSE_ENCODERS + SPARSE_ENCODERS or name.startswith(("st:", "open_clip:")):
        return lambda **params: EncoderRetriever(encoder=name, **params)
    return None


def builtin_systems() -> list[str]:
    """Names of the built-in systems (plus the ``st:<model>`` family)."""
    from fashionrq.systems.probes import POOL_SYSTEMS

    return ["random", "bm25", "tfidf", *DENSE_ENCODERS, *SPARSE_ENCODERS, "hybrid", "image-descriptor", *POOL_SYSTEMS,
            "st:<model id or folder>", "open_clip:<model id>"]


def _plugin_entry_points() -> dict:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_object(spec: str):
    """Import ``module:attribute`` (the attribute may be dotted)."""
    module_name, _, attribute = spec.partition(":")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as err:
        raise FashionRQError(f"system '{spec}': cannot import module '{module_name}' ({err}); check the name and that it is on PYTHONPATH.") from None
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise FashionRQError(f"system '{spec}': module '{module_name}' has no attribute '{attribute}'; check the class name.")
        obj = getattr(obj, part)
    return obj


def get_system(spec: str, **params) -> BatchRetriever:
    """A new, unfitted retriever for ``spec``: a built-in name, ``st:<model>``, ``module:Class`` or an entry point.

    ``params`` go to the constructor (e.g. ``get_system("hybrid", k=30)``). A plug-in needs only ``fit`` and
    ``score`` (or ``search``); :func:`~fashionrq.systems.adapter.as_retriever` supplies the rest.
    """
    factory = _builtin(spec)
    if factory is None:
        plugins = _plugin_entry_points()
        if spec in plugins:
            factory = plugins[spec].load()
        elif ":" in spec:
            factory = load_object(spec)
        else:
            raise FashionRQError(
                f"unknown system '{spec}': use one of {', '.join(builtin_systems())}, an installed "
                f"'{ENTRY_POINT_GROUP}' entry point ({', '.join(sorted(plugins)) or 'none installed'}), or module:Class."
            )
    try:
        system = factory(**params)
    except TypeError as err:
        raise FashionRQError(f"system '{spec}' does not accept parameters {sorted(params)} ({err}); check --param names.") from None
    return as_retriever(system, spec)


def get_reranker(spec: str, **params):
    """A new, unfitted pointwise second stage: ``verifier`` or ``module:Class`` (``params`` go to the constructor)."""
    from fashionrq.systems.twostage import check_reranker

    if spec == "verifier":
        from fashionrq.systems.verifier import VerifierReranker

        factory = VerifierReranker
    elif ":" in spec:
        factory = load_object(spec)
    else:
        raise FashionRQError(f"unknown reranker '{spec}': use 'verifier' or module:Class.")
    try:
        reranker = factory(**params)
    except TypeError as err:
        raise FashionRQError(f"reranker '{spec}' does not accept parameters {sorted(params)} ({err}).") from None
    return check_reranker(reranker, spec)
