"""System names -> retrievers: the built-ins, ``st:<model>``, ``module:Class`` plug-ins and entry points.

A table of names: the systems sit above it, each imported only when its name is asked for."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from fashionrq.errors import FashionRQError
from fashionrq.systems.adapter import as_retriever
from fashionrq.systems.base import BatchRetriever
from fashionrq.systems.twostage import check_reranker

#: Entry-point group through which installed packages register systems (``name = "pkg.module:Class"``).
ENTRY_POINT_GROUP = "fashionrq.systems"

#: Built-in dense encoders (names of the encoders registry).
DENSE_ENCODERS = ("minilm", "minilm-int8", "e5-small")
SPARSE_ENCODERS = ("splade-tiny",)
#: The class every encoder system builds, with ``encoder=<its name>`` (a built-in encoder, ``st:`` or ``open_clip:``).
ENCODER_SYSTEM = "fashionrq.systems.dense:EncoderRetriever"
#: Built-in system names -> ``module:Class``, imported when asked for (as a plug-in's is), so naming one system never
#: loads another's libraries (the probes' torch, the image descriptor's pandas).
BUILTIN_SYSTEMS = {
    "random": "fashionrq.systems.lexical:RandomRetriever",
    "bm25": "fashionrq.systems.lexical:BM25Retriever",
    "tfidf": "fashionrq.systems.lexical:TfidfRetriever",
    **dict.fromkeys((*DENSE_ENCODERS, *SPARSE_ENCODERS), ENCODER_SYSTEM),
    "hybrid": "fashionrq.systems.hybrid:HybridRetriever",
    "image-descriptor": "fashionrq.systems.imagedesc:ImageDescriptorRetriever",
    "probe-cooccurrence": "fashionrq.systems.probes.attacks:CooccurrenceProbe",
    "probe-frequency": "fashionrq.systems.probes.attacks:FrequencyProbe",
    "probe-rarity": "fashionrq.systems.probes.attacks:RarityProbe",
    "probe-linkage": "fashionrq.systems.probes.attacks:LinkageProbe",
    "probe-copool": "fashionrq.systems.probes.attacks:CopoolProbe",
    "probe-position": "fashionrq.systems.probes.attacks:PositionProbe",
    "probe-id-proximity": "fashionrq.systems.probes.attacks:IdProximityProbe",
    "probe-row-proximity": "fashionrq.systems.probes.attacks:RowProximityProbe",
    "probe-qid-order": "fashionrq.systems.probes.attacks:QidOrderProbe",
    "query-blind": "fashionrq.systems.probes.centroid:QueryBlindCentroid",
    "query-blind-structure": "fashionrq.systems.probes.structure:QueryBlindStructure",
}
#: Built-in rerankers (pointwise second stages) by name.
BUILTIN_RERANKERS = {"verifier": "fashionrq.systems.verifier:VerifierReranker"}


def _builtin(name: str):
    if name.startswith(("st:", "open_clip:")) or BUILTIN_SYSTEMS.get(name) == ENCODER_SYSTEM:
        encoder_system = load_object(ENCODER_SYSTEM)
        return lambda **params: encoder_system(encoder=name, **params)
    return load_object(BUILTIN_SYSTEMS[name]) if name in BUILTIN_SYSTEMS else None


def builtin_systems() -> list[str]:
    """Names of the built-in systems (plus the ``st:<model>`` and ``open_clip:<model>`` families)."""
    return [*BUILTIN_SYSTEMS, "st:<model id or folder>", "open_clip:<model id>"]


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
    if spec in BUILTIN_RERANKERS:
        factory = load_object(BUILTIN_RERANKERS[spec])
    elif ":" in spec:
        factory = load_object(spec)
    else:
        raise FashionRQError(f"unknown reranker '{spec}': use {', '.join(map(repr, BUILTIN_RERANKERS))} or module:Class.")
    try:
        reranker = factory(**params)
    except TypeError as err:
        raise FashionRQError(f"reranker '{spec}' does not accept parameters {sorted(params)} ({err}).") from None
    return check_reranker(reranker, spec)
