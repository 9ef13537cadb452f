"""What a label-blind attacker sees: every pool, query text, item id and dev label in BENCH/public/.

The view is built generically. The scored pools come from the same readers as every other system
(:func:`fashionrq.systems.runfiles.ranking_task` and ``t2_pairs.jsonl``); the evidence an attack may use comes
from scanning every ``*.jsonl`` file of ``public/``: any record with a ``text`` is a query, any ``candidates``
list or ``item_id`` is an occurrence of items, and any ``qid`` or other ``*_id`` value ties records together. A release that
adds public files is therefore attacked through them without changing the probes.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from fashionrq.layout import T2_DEV_LABELS, T2_PAIRS, queries_file
from fashionrq.release import Release, named_items
from fashionrq.systems.lexical import tokenize
from fashionrq.systems.runfiles import ranking_task
from fashionrq.taskspec import POOLED_KINDS, tasks_of


@dataclass(frozen=True)
class Pool:
    """One scored unit: a query and the items it ranks (T1/T3/T4; open-corpus T1: the whole catalog) or classifies
    (T2: the items of the query's pairs)."""

    task: str
    qid: str
    text: str
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class Record:
    """One public record an attack may use: its file, the ids that tie it to other records, its text and items."""

    source: str
    links: tuple[str, ...]
    text: str | None
    items: tuple[str, ...]

    @property
    def task(self) -> str:
        """The task a file belongs to, from its name (``t1_candidates`` -> ``t1``)."""
        return self.source.split("_", 1)[0]


def is_link_field(key: str) -> bool:
    """Fields whose values tie records of different files together: ``qid`` and every ``*_id`` but ``item_id``."""
    return key == "qid" or (key.endswith("_id") and key != "item_id")


def intent_key(text: str) -> str:
    """Texts with the same key are "the same intent": equal token sets, order and punctuation ignored."""
    return " ".join(sorted(set(tokenize(text))))


def _record(source: str, row: dict) -> Record:
    text = row.get("text") if isinstance(row.get("text"), str) else None
    links = [f"{key}:{value}" for key, value in sorted(row.items()) if is_link_field(key) and isinstance(value, str)]
    if text:
        links.append(f"text:{intent_key(text)}")
    return Record(source, tuple(links), text, tuple(named_items(row)))


def scan_public(bench: Release) -> list[Record]:
    """Every record of every ``public/*.jsonl`` file, in file-name then line order."""
    return [_record(source, row) for source, row in bench.public_records()]


def _t2_pools(bench: Release) -> list[Pool]:
    """One pool per T2 query: the items of its pairs, in file order."""
    text_of = {q["qid"]: q["text"] for q in bench.jsonl(queries_file("t2"), required=False)}
    items: dict[str, list[str]] = defaultdict(list)
    for pair in bench.jsonl(T2_PAIRS, required=False):
        items[pair["qid"]].append(pair["item_id"])
    return [Pool("t2", qid, text_of.get(qid, ""), tuple(items[qid])) for qid in sorted(items)]


@dataclass
class PublicView:
    """Pools to score per task, every public record, the items table and the public T2 dev labels."""

    pools: dict[str, list[Pool]]
    records: list[Record]
    items: pa.Table
    dev_labels: dict[str, int]
    #: The item ids of the items table in order (the candidates of every open-corpus pool, one shared tuple).
    catalog: tuple[str, ...] = ()
    _components: dict[str, list[int]] | None = field(default=None, repr=False)
    _rows: dict[str, int] | None = field(default=None, repr=False)

    @classmethod
    def read(cls, bench: Release) -> PublicView:
        pools = {}
        for task in tasks_of(*POOLED_KINDS):
            qids, texts, cands = ranking_task(bench, task)
            pools[task] = [Pool(task, q, t, tuple(c)) for q, t, c in zip(qids, texts, cands)]
        pools["t2"] = _t2_pools(bench)
        items = bench.items()
        catalog = tuple(str(i) for i in items.column("item_id").to_pylist())
        pools["t1o"] = [Pool("t1o", q["qid"], q["text"], catalog) for q in bench.jsonl(queries_file("t1o"), required=False)]
        dev = {r["pair_id"]: int(r["label"]) for r in bench.jsonl(T2_DEV_LABELS, required=False)}
        return cls(pools, scan_public(bench), items, dev, catalog)

    def values(self, table: Mapping[str, float], candidates: tuple[str, ...]) -> np.ndarray:
        """``table[c]`` (0 when absent) for every candidate; for the whole catalog, scattered by row in one pass."""
        if candidates is not self.catalog:
            return np.array([table.get(c, 0.0) for c in candidates], dtype=np.float64)
        if self._rows is None:
            self._rows = {item: i for i, item in enumerate(self.catalog)}
        out = np.zeros(len(self.catalog))
        for item, value in table.items():
            if item in self._rows:
                out[self._rows[item]] = value
        return out

    def linked(self, qid: str) -> list[int]:
        """Indices of the records of ``qid``'s intent: joined through shared qids, pair and group ids, or equal texts.

        Every qid of one intent gets the same list object, so callers may cache per ``id()`` of it.
        """
        if self._components is None:
            self._components = _components(self.records)
        return self._components.get(f"qid:{qid}", [])

    def dev_label(self, record: Record) -> int | None:
        """The public dev label of a T2 pair record, else None."""
        for link in record.links:
            if link.startswith("pair_id:") and link[8:] in self.dev_labels:
                return self.dev_labels[link[8:]]
        return None


def _components(records: list[Record]) -> dict[str, list[int]]:
    """Link key -> indices of every record in its connected component (union-find over shared link keys)."""
    parent = list(range(len(records)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, record in enumerate(records):
        for key in record.links:
            if key in first:
                parent[find(i)] = find(first[key])
            else:
                first[key] = i
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(records)):
        members[find(i)].append(i)
    return {key: members[find(i)] for key, i in first.items()}


def _tie_rng(seed: int, key: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}\x00{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def tie_broken(primary: np.ndarray, seed: int, key: str) -> np.ndarray:
    """Scores with the order of ``primary`` and ties broken by a seeded shuffle (never by item id or position)."""
    primary = np.asarray(primary, dtype=np.float64)
    order = np.argsort(primary, kind="stable")
    if np.any(primary[order[1:]] == primary[order[:-1]]):  # ties: a stable sort of a seeded shuffle breaks them at random
        shuffled = _tie_rng(seed, key).permutation(len(primary))
        order = shuffled[np.argsort(primary[shuffled], kind="stable")]
    scores = np.empty(len(primary))
    scores[order] = np.arange(1, len(primary) + 1, dtype=np.float64)
    return scores


#: The seeded shuffle is read from its end (:func:`shuffle_tail`, about a microsecond a step in Python) instead of
#: drawn whole (a few nanoseconds an item in C) when the rows expected to be read are at most 1/TAIL_SHARE of the pool.
TAIL_SHARE = 64


def shuffle_tail(seed: int, key: str, n: int) -> Iterator[int]:
    """``_tie_rng(seed, key).permutation(n)`` from its last entry backwards, each entry drawn only when it is read.

    NumPy's ``Generator.permutation(n)`` shuffles ``arange(n)`` by Fisher-Yates from the end: step ``i`` (``n - 1``
    down to 1) swaps entries ``i`` and ``j``, ``j`` uniform on ``[0, i]`` (``random_interval``: the low, then the high
    half of each 64-bit PCG64 output, masked to the smallest all-ones mask covering ``i`` and redrawn while above
    ``i``), and entry ``i`` never moves again. So the last ``k`` entries take ``k`` steps, not a shuffle of the whole
    catalog; tests/test_top_rows.py checks them against ``permutation`` itself.
    """
    halves = _uint32_halves(_tie_rng(seed, key).bit_generator)
    moved: dict[int, int] = {}
    for i in range(n - 1, 0, -1):
        mask = (1 << i.bit_length()) - 1
        j = next(halves) & mask
        while j > i:
            j = next(halves) & mask
        yield moved.get(j, j)
        moved[j] = moved.get(i, i)
    if n:
        yield moved.get(0, 0)


def _uint32_halves(bits) -> Iterator[int]:
    """The 32-bit draws of a PCG64 generator, as its ``next_uint32`` hands them out."""
    while True:
        for raw in bits.random_raw(64).tolist():
            yield raw & 0xFFFFFFFF
            yield raw >> 32


@dataclass(frozen=True)
class Head:
    """The rows of a score array that can reach its top ``depth``: every row above the ``depth``-th largest value
    (``threshold``), best first and ties in row order, and the rows holding the threshold itself, in row order."""

    depth: int
    above: np.ndarray
    threshold: float
    tied: np.ndarray

    @classmethod
    def of(cls, primary: np.ndarray, depth: int) -> Head:
        """``primary``'s head for ``depth`` (``1 <= depth <= len(primary)``), partitioning only rows above its minimum
        (a probe's open-corpus scores are mostly zero)."""
        lowest = primary.min()
        over = np.flatnonzero(primary > lowest)
        threshold = lowest
        if len(over) >= depth:
            threshold = np.partition(primary[over], len(over) - depth)[len(over) - depth]
        above = np.flatnonzero(primary > threshold)
        return cls(depth, above[np.argsort(-primary[above], kind="stable")], float(threshold),
                   np.flatnonzero(primary == threshold))


def top_tie_broken(primary: np.ndarray, seed: int, key: str, depth: int, head: Head | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``depth`` best positions of :func:`tie_broken` (``primary``, ``seed``, ``key``) and their scores, best
    first, without sorting the whole array: the same rows and scores as the full ranking's top ``depth``.

    ``head``: ``Head.of(primary, depth)`` when the caller ranks the same scores for many keys. Ties go by the position in
    tie_broken's seeded shuffle: one tied row needs none, rows tied at the threshold only need the shuffle's tail."""
    primary = np.asarray(primary, dtype=np.float64)
    n = len(primary)
    depth = min(depth, n)
    if depth == 0:
        return np.arange(0), np.zeros(0)
    if np.isnan(primary).any():
        rows = np.flatnonzero(primary >= np.partition(primary, n - depth)[n - depth])
        return _by_shuffle(primary, rows, seed, key)[:depth], n - np.arange(depth, dtype=np.float64)
    head = head if head is not None and head.depth == depth else Head.of(primary, depth)
    need = depth - len(head.above)
    if len(np.unique(primary[head.above])) < len(head.above):  # ties above the threshold: the whole shuffle decides
        rows = _by_shuffle(primary, np.concatenate([head.above, head.tied]), seed, key)[:depth]
    elif len(head.tied) == 1:
        rows = np.concatenate([head.above, head.tied])
    elif need * TAIL_SHARE <= len(head.tied):
        tail = (row for row in shuffle_tail(seed, key, n) if primary[row] == head.threshold)
        rows = np.concatenate([head.above, np.fromiter(tail, dtype=np.int64, count=need)])
    else:
        rows = np.concatenate([head.above, _by_shuffle(primary, head.tied, seed, key)[:need]])
    return rows, n - np.arange(depth, dtype=np.float64)


def _by_shuffle(primary: np.ndarray, rows: np.ndarray, seed: int, key: str) -> np.ndarray:
    """``rows`` by descending ``primary``, ties by descending position in the seeded shuffle of tie_broken."""
    shuffle = _tie_rng(seed, key).permutation(len(primary))
    chosen = np.zeros(len(primary), dtype=bool)
    chosen[rows] = True
    by_position = shuffle[np.flatnonzero(chosen[shuffle])][::-1]
    return by_position[np.argsort(-primary[by_position], kind="stable")]
