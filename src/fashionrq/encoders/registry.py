"""``get_encoder(name)``: the one place encoder names are resolved."""

from __future__ import annotations

from collections.abc import Callable

from fashionrq.encoders.base import Encoder
from fashionrq.encoders.clip import OpenClipEncoder
from fashionrq.encoders.e5 import E5SmallEncoder
from fashionrq.encoders.sentence import SentenceTransformerEncoder, minilm
from fashionrq.encoders.splade import SpladeEncoder
from fashionrq.errors import FashionRQError

#: The encoder ``build``, ``demo``, ``sid`` and ``embed`` use when none is named: one default, so the vectors a build
#: caches are the ones the demo's and ``run``'s dense systems read.
DEFAULT_ENCODER = "minilm-int8"


def _minilm_int8() -> Encoder:
    # deferred: numba (minilm-int8's compiled kernels)
    from fashionrq.encoders.minilm_int8 import MiniLMInt8Encoder

    return MiniLMInt8Encoder()


#: The built-in encoders by name.
BUILTINS: dict[str, Callable[[], Encoder]] = {"minilm": minilm, "minilm-int8": _minilm_int8, "e5-small": E5SmallEncoder,
                                             "splade-tiny": SpladeEncoder}


#: The model weights behind each built-in encoder name: two names with the same weights are one component
#: when the leaderboard flags systems that share a model with the benchmark's construction.
ENCODER_MODELS = {"minilm": "all-MiniLM-L6-v2", "minilm-int8": "all-MiniLM-L6-v2", "e5-small": "multilingual-e5-small",
                  "splade-tiny": "splade-tiny"}


def encoder_model(name: str) -> str:
    """The model weights behind encoder ``name``: ``minilm`` and ``minilm-int8`` are both all-MiniLM-L6-v2;
    ``st:<id>`` and ``open_clip:<id>`` are their id's last path part; any other name is its own model."""
    if name in ENCODER_MODELS:
        return ENCODER_MODELS[name]
    return name.partition(":")[2].rstrip("/").rsplit("/", 1)[-1] if name.startswith(("st:", "open_clip:")) else name


#: Encoders built so far in this process (models load once).
_LOADED: dict[str, Encoder] = {}


def encoder_names() -> list[str]:
    """The offline encoder names; ``st:<id>`` and ``open_clip:<id>`` are accepted too."""
    return sorted(BUILTINS)


def get_encoder(name: str) -> Encoder:
    """The encoder called ``name`` (built once per process)."""
    if name in _LOADED:
        return _LOADED[name]
    if name in BUILTINS:
        encoder = BUILTINS[name]()
    elif name.startswith("st:") and len(name) > 3:
        encoder = SentenceTransformerEncoder(name, name[3:])
    elif name.startswith("open_clip:") and len(name) > 10:
        encoder = OpenClipEncoder(name[10:])
    else:
        raise FashionRQError(
            f"unknown encoder '{name}': use one of {', '.join(encoder_names())}, "
            "st:<sentence-transformers id or folder>, or open_clip:<model id>."
        )
    _LOADED[name] = encoder
    return encoder
