"""The named random streams of a build: each seeded numpy stream split off a build's seed is defined here, by purpose.

A build has two base seeds (:class:`fashionrq.tasks.secret.ConstructionSecret`): the construction seed and the
tokenizer seed. Each purpose below names one ``numpy.random.default_rng`` stream drawn from one of them, and how
its entropy is formed from the base seed (and the stream's key, where one stream per key is drawn). The salts are
arbitrary but fixed: changing one changes every release built since, so they stay as first written.

Code holding the :class:`~fashionrq.tasks.secret.ConstructionSecret` asks it, ``secret.rng(purpose)``; code below
the tasks stage, which is given the base seed as an int, asks :func:`stream`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class Stream(NamedTuple):
    """One random stream: its base seed (``construction`` or ``tokenizer``), what it draws, and its entropy."""

    base: str
    draws: str
    entropy: Callable[..., list[int]]


STREAMS: dict[str, Stream] = {
    "release-ids": Stream("construction", "the opaque query, pair and group ids of the release files",
                          lambda seed: [seed, 7]),
    "item-ids": Stream("construction", "the opaque public item ids (and so the public items' row order)",
                       lambda seed: [seed, 11]),
    "leaf-sample": Stream("construction", "the level-2 prefixes whose leaves get queries, past max_leaves",
                          lambda seed: [seed, 13]),
    "verbalizer": Stream("construction", "one cluster's verbalized queries (key: its cluster id)",
                         lambda seed, cluster_id: [int(seed), zlib.crc32(cluster_id.encode())]),
    "sid-sample": Stream("tokenizer", "the rows an RQ-VAE tokenizer is fitted on, past its sample size",
                         lambda seed: [seed, 0x5A3]),
}


def stream(seed: int, purpose: str, *key) -> np.random.Generator:
    """The generator of ``purpose`` (a key of :data:`STREAMS`) from its base ``seed`` and ``key``."""
    return np.random.default_rng(STREAMS[purpose].entropy(seed, *key))
