"""Fail-closed validation of prediction files against BENCH/public only (pools and ids, never labels).

Every rule raises its own ProtocolError subclass (distinct exit code) with one sentence; nothing is
ever filled in with a default. The same rules apply to every task.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fashionrq.errors import (
    DuplicateError,
    EmptyFileError,
    ExtraIdsError,
    MissingIdsError,
    NonFiniteScoreError,
    OutOfPoolError,
    RankOrderError,
    ReleaseTamperedError,
    UnparseableLineError,
    WrongTypeError,
    examples,
)
from fashionrq.layout import ITEMS, T2_PAIRS, queries_file
from fashionrq.metrics import Run
from fashionrq.metrics.trec import read_columns
from fashionrq.release import Release
from fashionrq.taskspec import GROUPED, OPEN, PAIRS, POOLED, POOLED_KINDS, TARGETED, TASKS, TaskSpec, run_files, tasks_of

LABELS = (0, 1, 2, 3)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NONFINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_RANK = re.compile(r"\d+")


@dataclass(frozen=True)
class Pools:
    """What a system may see and must answer, read from BENCH/public."""

    ranked: dict[str, dict[str, frozenset[str]]]  # task -> qid -> its pool (pooled, targeted and grouped tasks)
    group_of: dict[str, dict[str, str]]  # grouped task -> qid -> its paraphrase group
    t2_split: dict[str, str]
    t1o: frozenset[str] = frozenset()  # open-corpus T1 query ids: each ranks the whole catalog
    catalog: frozenset[str] = frozenset()  # item ids of public/items.parquet
    open_depth: int = 100

    def ranking(self, task: str) -> dict[str, frozenset[str]]:
        return self.ranked[task]

    def t2_required(self) -> set[str]:
        """Pairs a T2 prediction file must cover: the test split (dev pairs are optional)."""
        return {pair for pair, split in self.t2_split.items() if split == "test"}


def _candidate_sets(release: Release, name: str, key: str) -> dict[str, frozenset[str]]:
    return {row[key]: frozenset(row["candidates"]) for row in release.jsonl(name, fields=(key, "candidates"))}


def _group_of(release: Release, spec: TaskSpec) -> dict[str, str]:
    return {row["qid"]: row["group_id"] for row in release.jsonl(spec.public[0], fields=("qid", "group_id"))}


def _own_pools(release: Release, spec: TaskSpec, group_of: dict[str, str]) -> dict[str, frozenset[str]]:
    """A pooled task's pools: public/{key}_candidates.jsonl."""
    return _candidate_sets(release, spec.public[1], "qid")


def _carried_pools(release: Release, spec: TaskSpec, group_of: dict[str, str]) -> dict[str, frozenset[str]]:
    """A targeted task's pools: the candidates each query carries."""
    return _candidate_sets(release, spec.public[0], "qid")


def _group_pools(release: Release, spec: TaskSpec, group_of: dict[str, str]) -> dict[str, frozenset[str]]:
    """A grouped task's pools: its query's paraphrase group's shared pool."""
    groups = _candidate_sets(release, spec.public[1], "group_id")
    unknown = {group for group in group_of.values() if group not in groups}
    if unknown:
        raise ReleaseTamperedError(f"{release.path(spec.public[0])} names groups missing from {spec.public[1]} ({examples(unknown)}); rebuild the release.")
    return {qid: groups[group] for qid, group in group_of.items()}


#: How a ranking task's pools are read, by kind.
POOL_READERS = {POOLED: _own_pools, TARGETED: _carried_pools, GROUPED: _group_pools}


def load_pools(bench: str | Path) -> Pools:
    """Read the candidate pools and ids of every task from BENCH/public (labels are not touched)."""
    release = Release(bench, verify=False)
    group_of = {task: _group_of(release, TASKS[task]) for task in tasks_of(GROUPED)}
    ranked = {task: POOL_READERS[TASKS[task].kind](release, TASKS[task], group_of.get(task, {})) for task in tasks_of(*POOLED_KINDS)}
    t2 = {row["pair_id"]: row["split"] for row in release.jsonl(T2_PAIRS, fields=("pair_id", "split"))}
    t1o = frozenset(row["qid"] for row in release.jsonl(queries_file("t1o"), fields=("qid", "text")))
    catalog = frozenset(pq.read_table(release.path(ITEMS), columns=["item_id"]).column("item_id").to_pylist())
    depth = int(release.manifest.get("protocol", {}).get("open_depth", 100))
    return Pools(ranked=ranked, group_of=group_of, t2_split=t2, t1o=t1o, catalog=catalog, open_depth=depth)


def _lines(path: Path, allow_empty: bool = False) -> list[tuple[int, str]]:
    """Numbered text lines; refuses an empty file (unless ``allow_empty``: the release expects no line), bytes that
    are not UTF-8, and blank lines."""
    data = path.read_bytes()
    if allow_empty and not data:
        return []
    if not data.strip():
        raise EmptyFileError(f"{path} is empty; write one prediction per line.")
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    lines = []
    for number, chunk in enumerate(raw, start=1):
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError:
            raise UnparseableLineError(f"{path} line {number} is not valid UTF-8; write the file as UTF-8 text.") from None
        if not text.strip():
            raise UnparseableLineError(f"{path} line {number} is blank; remove blank lines.")
        lines.append((number, text))
    return lines


def _score(path: Path, number: int, token, text: bool = True) -> float:
    """A finite score from a TREC token (``text``) or a JSON number."""
    if isinstance(token, str) and text:
        if _NONFINITE.fullmatch(token):
            raise NonFiniteScoreError(f"{path} line {number}: score {token!r} is not finite; every score must be a finite number.")
        if not _NUMBER.fullmatch(token):
            raise WrongTypeError(f"{path} line {number}: score {token[:40]!r} is not a number; write a decimal number.")
    elif isinstance(token, bool) or not isinstance(token, (int, float)):
        raise WrongTypeError(f"{path} line {number}: score {token!r} is a {type(token).__name__}, not a number; write a number.")
    try:
        value = float(token)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise NonFiniteScoreError(f"{path} line {number}: score {str(token)[:40]} is not finite; every score must be a finite number.")
    return value


def _collect(kind: type, path: Path, what: str, ids, fix: str) -> None:
    if ids:
        raise kind(f"{path}: {len(ids)} {what} ({examples(ids)}); {fix}")


#: A rank and a score token as :data:`_RANK` and :data:`_NUMBER` accept them, for Arrow's (RE2, ASCII) matcher.
_RANK_ARROW, _NUMBER_ARROW = rf"^{_RANK.pattern}$", rf"^{_NUMBER.pattern}$"
#: Whitespace other than one space between fields (``str.split`` splits on it; Arrow's reader would not), or a blank
#: line (Arrow skips it; the line-by-line reader refuses it).
_NOT_SINGLE_SPACED = re.compile(rb"[\t\r\x0b\x0c\x1c-\x1f]|\n\n|\A\n")


def _well_formed_rows(path: Path) -> dict[str, list[tuple[int, str, float]]] | None:
    """The rows of a well-formed non-empty TREC run (six single-space fields a line), parsed and checked column-wise
    with Arrow; None when anything is off, so the line-by-line reader names the first bad line."""
    with path.open("rb") as handle:
        data = handle.read()
    if not data.isascii() or _NOT_SINGLE_SPACED.search(data):
        return None
    columns = ("qid", "q0", "item", "rank", "score", "tag")
    table = read_columns(path, columns, {name: pa.string() for name in columns})
    if table is None or min(pc.min(pc.utf8_length(table.column(name))).as_py() for name in columns) == 0:
        return None
    ranks, scores = table.column("rank"), table.column("score")
    if not (pc.all(pc.equal(table.column("q0"), "Q0")).as_py() and pc.all(pc.match_substring_regex(ranks, _RANK_ARROW)).as_py()
            and pc.all(pc.match_substring_regex(scores, _NUMBER_ARROW)).as_py()):
        return None
    rank_values, score_values = list(map(int, ranks.to_pylist())), list(map(float, scores.to_pylist()))
    if min(rank_values) < 1 or not all(map(math.isfinite, score_values)):
        return None
    rows: dict[str, list[tuple[int, str, float]]] = {}
    for qid, item, rank, score in zip(table.column("qid").to_pylist(), table.column("item").to_pylist(), rank_values, score_values):
        rows.setdefault(qid, []).append((rank, item, score))
    return rows


def _ranking_rows(path: Path, allow_empty: bool = False) -> dict[str, list[tuple[int, str, float]]]:
    """``{qid: [(rank, item, score), ...]}`` from a TREC run, every line checked for its six fields (an empty file
    only with ``allow_empty``: the release has no query for the task)."""
    rows = _well_formed_rows(path)
    if rows is not None:
        return rows
    rows = {}
    for number, text in _lines(path, allow_empty):
        fields = text.split()
        if len(fields) != 6:
            raise UnparseableLineError(f"{path} line {number} has {len(fields)} fields, not 6; write 'qid Q0 item_id rank score tag'.")
        qid, q0, item, rank, score, _tag = fields
        if q0 != "Q0":
            raise WrongTypeError(f"{path} line {number}: field 2 is {q0[:20]!r}, not 'Q0'; write the literal Q0.")
        if not _RANK.fullmatch(rank) or not rank.isascii() or int(rank) < 1:
            raise WrongTypeError(f"{path} line {number}: rank {rank[:20]!r} is not a positive integer; number ranks 1, 2, 3, ...")
        rows.setdefault(qid, []).append((int(rank), item, _score(path, number, score)))
    return rows


def _ordered(path: Path, rows: dict[str, list[tuple[int, str, float]]]) -> dict[str, list[tuple[str, float]]]:
    result = {}
    for qid, ranked in rows.items():
        ranked.sort()
        if [rank for rank, _, _ in ranked] != list(range(1, len(ranked) + 1)):
            raise RankOrderError(f"{path}: ranks of query {qid} are not 1..{len(ranked)} without gaps or repeats; renumber them.")
        if any(later[2] > earlier[2] for earlier, later in zip(ranked, ranked[1:])):
            raise RankOrderError(f"{path}: query {qid} has a higher score at a lower rank; scores must not increase down the ranking.")
        result[qid] = [(item, score) for _, item, score in ranked]
    return result


def _common_checks(path: Path, rows, queries) -> None:
    extra = set(rows) - set(queries)
    _collect(ExtraIdsError, path, "query id(s) not in this release", extra, "remove them or use the release's query file.")
    duplicates = {f"{qid}/{item}" for qid, ranked in rows.items()
                  for item, count in Counter(item for _, item, _ in ranked).items() if count > 1}
    _collect(DuplicateError, path, "(query, item) pair(s) listed more than once", duplicates, "rank each candidate once.")


def validate_ranking(path: str | Path, pools: dict[str, frozenset[str]]) -> dict[str, list[tuple[str, float]]]:
    """Validate a TREC run ("qid Q0 item_id rank score tag") against ``{qid: pool}``.

    Every query of the pool table must rank its whole pool exactly once, ranks 1..n with scores
    non-increasing by rank. Returns ``{qid: [(item_id, score), ...]}`` in rank order.
    """
    path = Path(path)
    rows = _ranking_rows(path, allow_empty=not pools)
    _common_checks(path, rows, pools)
    outside = {f"{qid}/{item}" for qid, ranked in rows.items() for _, item, _ in ranked if item not in pools[qid]}
    _collect(OutOfPoolError, path, "ranked item(s) outside the query's candidate pool", outside, "rank only the candidates the release gives for that query.")
    missing = set(pools) - set(rows)
    _collect(MissingIdsError, path, "query id(s) with no ranking", missing, "rank every query of the release.")
    unranked = {f"{qid}/{item}" for qid, ranked in rows.items() for item in pools[qid] - {item for _, item, _ in ranked}}
    _collect(MissingIdsError, path, "candidate(s) missing from their query's ranking", unranked, "rank the whole candidate pool of every query.")
    return _ordered(path, rows)


def validate_open_ranking(path: str | Path, queries: frozenset[str], catalog: frozenset[str], depth: int) -> dict[str, list[tuple[str, float]]]:
    """Validate an open-corpus run: every query ranks 1..``depth`` catalog items (at most ``depth``), each once."""
    path = Path(path)
    rows = _ranking_rows(path, allow_empty=not queries)
    _common_checks(path, rows, queries)
    outside = {f"{qid}/{item}" for qid, ranked in rows.items() for _, item, _ in ranked if item not in catalog}
    _collect(OutOfPoolError, path, "ranked item(s) not in public/items.parquet", outside, "rank only catalog items.")
    deep = {qid for qid, ranked in rows.items() if len(ranked) > depth}
    _collect(RankOrderError, path, f"query id(s) ranking more than {depth} items", deep, f"submit the top {depth} items per query.")
    missing = set(queries) - set(rows)
    _collect(MissingIdsError, path, "query id(s) with no ranking", missing, "rank every query of the release.")
    return _ordered(path, rows)


def _reject_constant(token: str):
    raise ValueError(token)


def validate_classification(path: str | Path, split: dict[str, str]) -> dict[str, tuple[int, float]]:
    """Validate T2 predictions (JSONL ``{"pair_id", "label", "score"}``) against ``{pair_id: split}``.

    Test pairs are required, dev pairs optional, anything else refused. Returns ``{pair_id: (label, score)}``.
    """
    path = Path(path)
    seen: dict[str, tuple[int, float]] = {}
    duplicates = set()
    for number, text in _lines(path, allow_empty="test" not in split.values()):
        try:
            row = json.loads(text, parse_constant=_reject_constant)
        except ValueError as err:
            if str(err) in ("NaN", "Infinity", "-Infinity"):
                raise NonFiniteScoreError(f"{path} line {number} holds {err}; every score must be a finite number.") from None
            raise UnparseableLineError(f"{path} line {number} is not JSON; write one JSON object per line.") from None
        except RecursionError:
            raise UnparseableLineError(f"{path} line {number} is nested too deeply to be a prediction; write one flat JSON object per line.") from None
        if not isinstance(row, dict):
            raise UnparseableLineError(f"{path} line {number} is a JSON {type(row).__name__}, not an object; write {{\"pair_id\", \"label\", \"score\"}}.")
        for name in ("pair_id", "label", "score"):
            if name not in row:
                raise WrongTypeError(f"{path} line {number} lacks field {name!r}; every line needs pair_id, label and score.")
        pair, label = row["pair_id"], row["label"]
        if not isinstance(pair, str):
            raise WrongTypeError(f"{path} line {number}: pair_id {str(pair)[:40]!r} is not a string; copy the id from t2_pairs.jsonl.")
        if isinstance(label, bool) or not isinstance(label, int) or label not in LABELS:
            raise WrongTypeError(f"{path} line {number}: label {str(label)[:40]!r} is not one of 0, 1, 2, 3; write an integer grade.")
        score = _score(path, number, row["score"], text=False)
        if pair in seen:
            duplicates.add(pair)
        seen[pair] = (label, score)
    extra = set(seen) - set(split)
    _collect(ExtraIdsError, path, "pair id(s) not in this release", extra, "predict only pairs from t2_pairs.jsonl.")
    _collect(DuplicateError, path, "pair id(s) listed more than once", duplicates, "predict each pair once.")
    missing = {pair for pair, name in split.items() if name == "test"} - set(seen)
    _collect(MissingIdsError, path, "test pair id(s) with no prediction", missing, "predict every test pair of t2_pairs.jsonl.")
    return seen


def validate_run(run: str | Path, pools: Pools, tasks=None) -> dict:
    """Validate every prediction file of RUN (or only ``tasks``); returns ``{task: parsed predictions}``."""
    root = Path(run)
    out = {}
    for task, name in run_files().items():
        path = root / name
        if (tasks is not None and task not in tasks) or not path.is_file():
            continue
        if TASKS[task].kind == PAIRS:
            out[task] = validate_classification(path, pools.t2_split)
        elif TASKS[task].kind == OPEN:
            out[task] = validate_open_ranking(path, pools.t1o, pools.catalog, pools.open_depth)
        else:
            out[task] = validate_ranking(path, pools.ranking(task))
    return out


def submitted_order(ranked: dict[str, list[tuple[str, float]]], name: str) -> Run:
    """A metrics Run whose scores reproduce a validated ranking's submitted rank order exactly (n, n-1, ..., 1):
    the order every protocol number is computed on, whatever ties its scores hold."""
    qids, docnos, scores = [], [], []
    for qid, items in ranked.items():  # columns, not a nested dict: the rows are validated, no per-value type check
        qids.extend([qid] * len(items))
        docnos.extend(item for item, _ in items)
        scores.extend(range(len(items), 0, -1))
    return Run.from_arrays(qids, docnos, np.asarray(scores, dtype=np.float64), name=name)
