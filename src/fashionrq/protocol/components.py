"""Which models of a benchmark's construction a run shares (issue 9: labels independent of systems).

A release records the models its construction used in ``manifest.json`` ``construction.components`` (SID and
hard-negative encoder, the relevance comparators' similarity model, the weight oracle, the φ lexicon). A run
records what its system and reranker are made of in ``run.json`` ``config``: every ``encoder`` it names (a
dense retriever's, each hybrid component's, the verifier's comparator model), the ``parser`` the verifier
calls and the relevance ``weights`` it scores with. A run that shares one of them is evaluated on a benchmark
partly built from itself; the leaderboard, ``compare`` and the report mark it with † and name what it shares.
Encoder names are compared by model weights (``minilm`` and ``minilm-int8`` are one model).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from fashionrq.encoders import encoder_model
from fashionrq.errors import FashionRQError
from fashionrq.layout import RUN_JSON
from fashionrq.relevance import ATTRIBUTES, default_weights
from fashionrq.release import Release

#: The mark the leaderboard puts after a run that shares a component with the construction.
SHARED_MARK = "†"
#: construction.components role -> how the leaderboard names it.
ENCODER_ROLES = {"sid_encoder": "SID encoder", "hard_negative_encoder": "hard-negative encoder",
                 "comparator_similarity": "comparator similarity model", "weight_oracle": "weight oracle"}


def _walk(config, key: str) -> Iterator:
    """Every value stored under ``key`` anywhere in a nested run config."""
    if isinstance(config, dict):
        for k, value in config.items():
            if k == key:
                yield value
            yield from _walk(value, key)
    elif isinstance(config, list):
        for value in config:
            yield from _walk(value, key)


def construction_components(bench: str | Path) -> dict:
    """``manifest.json`` ``construction.components`` of a release ({} for a release built before they were recorded)."""
    try:
        manifest = Release(bench, verify=False).manifest
    except FashionRQError:
        return {}
    return (manifest.get("construction") or {}).get("components") or {}


def _label_weights(weights) -> bool:
    """Whether ``weights`` are the shipped attribute weights, the ones the relevance labels R(q, p) are computed with."""
    shipped = default_weights()
    return isinstance(weights, dict) and all(weights.get(a, 0.0) == shipped.get(a, 0.0) for a in ATTRIBUTES)


def shared_components(components: dict, run_config: dict) -> list[str]:
    """What a run (its ``run.json``) shares with a construction's ``components``, e.g. ``"SID encoder (minilm)"``."""
    config = run_config.get("config") or {}
    models = {encoder_model(name) for name in _walk(config, "encoder") if isinstance(name, str)}
    shared = [f"{label} ({components[role]})" for role, label in ENCODER_ROLES.items()
              if components.get(role) and encoder_model(str(components[role])) in models]
    if components.get("phi_lexicon") and any(_walk(config, "parser")):
        shared.append(f"φ lexicon ({components['phi_lexicon']}, read by its parser)")
    if components.get("weight_oracle") and any(map(_label_weights, _walk(config, "weights"))):
        shared.append("relevance weights (the labels' own)")
    return shared


def run_shares(bench: str | Path, run: str | Path) -> list[str]:
    """:func:`shared_components` of the run folder ``run`` on release ``bench`` ([] when either records nothing)."""
    try:
        run_config = json.loads((Path(run) / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return shared_components(construction_components(bench), run_config)


def shared_note(shares: dict[str, list[str]]) -> str:
    """One Markdown line per flagged run (``shares``: marked run name -> what it shares), e.g.
    ``minilm † shares with the construction: SID encoder (minilm), ...``."""
    lines = [f"{name} shares with the construction: {', '.join(what)}." for name, what in shares.items() if what]
    if not lines:
        return ""
    return ("\n".join(lines) + "\nA run marked † is scored on labels partly built from its own components "
            "(docs/benchmark.md, \"Labels independent of systems\").\n")
