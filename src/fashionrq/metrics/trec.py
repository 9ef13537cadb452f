"""TREC qrels and run files: the ``Qrels`` and ``Run`` containers, fast readers with clear errors, writers.

A qrels line is ``qid iter docno grade`` (4 fields, ``iter`` ignored, ``grade`` an integer).
A run line is ``qid Q0 docno rank score tag`` (6 fields; ``Q0`` and ``rank`` are ignored as trec_eval
ignores them; the ranking is defined by ``score`` alone, ties broken by docno descending).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from fashionrq.io import atomic_writer
from fashionrq.errors import InputError

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "grade")


def arrow_int64(values: np.ndarray) -> pa.Array:
    """Integers (positions, grades) as an Arrow int64 array, zero-copy. ``pa.array`` would first import numpy.ma
    to rule out a masked array: tens of milliseconds at start-up, which ``fashionrq trec-eval`` is timed on."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def distinct_ints(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values of an integer array: ``np.unique`` by hashing, without its numpy.ma import."""
    return np.sort(pc.unique(arrow_int64(values)).to_numpy())


def _dictionary_ranks(vocab: pa.Array) -> np.ndarray:
    """Rank of each dictionary entry in sorted (byte) order of the entries."""
    order = pc.sort_indices(vocab).to_numpy()
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    return rank_of


def _sorted_codes(encoded: pa.DictionaryArray) -> tuple[np.ndarray, pa.Array]:
    """Return (ordinal of each value in sorted order of the distinct values, the sorted distinct values)."""
    rank_of = _dictionary_ranks(encoded.dictionary)
    sorted_vocab = encoded.dictionary.take(arrow_int64(np.argsort(rank_of)))
    return rank_of[encoded.indices.to_numpy()], sorted_vocab


def _as_float32(score: np.ndarray) -> np.ndarray:
    """Scores as trec_eval stores them, in 32-bit floats (a magnitude beyond float32's range becomes infinite)."""
    with np.errstate(over="ignore"):
        return score.astype(np.float32)


def _descending_score_bits(score: np.ndarray) -> np.ndarray:
    """uint32 keys whose ascending order is the float32 scores' descending order; -0.0 ties 0.0.

    A negative float's bits already grow as it falls, and sit above every non-negative one; a non-negative
    float's bits grow with it, so they are flipped below the sign bit."""
    as_float = _as_float32(score)
    as_float += np.float32(0.0)  # -0.0 becomes 0.0
    bits = as_float.view(np.uint32)
    positive_mask = bits >> np.uint32(31)
    positive_mask -= np.uint32(1)
    positive_mask >>= np.uint32(1)  # 0x7FFFFFFF where the sign bit is clear, else 0
    bits ^= positive_mask
    return bits


def _ranking_by_key(query_rank: np.ndarray, num_queries: int, score: np.ndarray, doc_rank: np.ndarray,
                    num_docs: int) -> np.ndarray | None:
    """trec_eval order from one uint64 key (query rank, score descending, docno rank descending), or None when the
    key needs more than 64 bits. A timsort: a file written query by query in rank order is a set of sorted runs."""
    query_bits, doc_bits = max(1, (num_queries - 1).bit_length()), max(1, (num_docs - 1).bit_length())
    if query_bits + 32 + doc_bits > 64:
        return None
    key = query_rank.astype(np.uint64)
    key <<= np.uint64(32)
    key |= _descending_score_bits(score)
    key <<= np.uint64(doc_bits)
    key |= np.subtract(num_docs - 1, doc_rank, dtype=np.int64).view(np.uint64)
    return np.argsort(key, kind="stable")


def group_positions(groups: np.ndarray) -> np.ndarray:
    """0-based position of each element within its block of equal, contiguous values (e.g. rank within query)."""
    n = len(groups)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))


def _string_array(values: object) -> pa.Array | pa.ChunkedArray:
    """Arrow strings; a chunked array (as the CSV reader gives) stays chunked: combining would copy every id."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values if values.type == pa.string() else values.cast(pa.string())
    return pa.array(values, type=pa.string())


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    """A numeric column as one numpy array (``ChunkedArray.to_numpy`` would import pandas)."""
    return np.concatenate([chunk.to_numpy() for chunk in column.chunks])


def _dictionary_encode(values: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """One hash pass; a chunked input gives chunks sharing one dictionary, so combining them joins only indices."""
    encoded = pc.dictionary_encode(values)
    return encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded


def judged_values(qrels: Qrels, run: Run, values: np.ndarray, missing: int) -> np.ndarray:
    """For every run row (file order), ``values`` of the qrels row judging the same (qid, docno), else ``missing``.

    Qrels ids are coded with the run's own query and docno dictionaries (through the qrels' dictionaries, so
    only distinct ids are hashed); pairs become int64 keys ``query * distinct docnos + docno`` (exact below
    2^63), which are searched among the run's sorted keys.
    """
    _, query_ids, doc_ids = run._pair_codes
    query = _recode(qrels._encoded[0], query_ids)
    doc = _recode(qrels._encoded[1], doc_ids)
    out = np.full(len(run), missing, dtype=values.dtype)
    rows = np.flatnonzero((query >= 0) & (doc >= 0))
    if not len(rows):
        return out
    judged = query[rows]
    judged *= len(doc_ids)
    judged += doc[rows]
    order, sorted_keys = run._sorted_pairs
    slot = np.minimum(np.searchsorted(sorted_keys, judged), len(sorted_keys) - 1)
    found = sorted_keys[slot] == judged
    out[order[slot[found]]] = values[rows[found]]
    return out


def _recode(encoded: pa.DictionaryArray, value_set: pa.Array) -> np.ndarray:
    """Each value's index in ``value_set`` (int64, -1 where absent), looking up only the distinct values."""
    index = pc.fill_null(pc.index_in(encoded.dictionary, value_set=value_set), -1).to_numpy().astype(np.int64)
    return index[encoded.indices.to_numpy()]


class _Pairs:
    """Shared part of Qrels and Run: one value per (qid, docno) pair, held as Arrow strings and a numpy column."""

    qid: pa.Array | pa.ChunkedArray
    docno: pa.Array | pa.ChunkedArray
    source: str

    def _set_ids(self, qid: object, docno: object, values: np.ndarray, source: str) -> None:
        self.qid, self.docno, self.source = _string_array(qid), _string_array(docno), source
        if not len(self.qid) == len(self.docno) == len(values):
            raise InputError(
                f"{source}: got {len(self.qid)} query ids, {len(self.docno)} document ids and {len(values)} values; "
                "give one of each per pair."
            )

    def _check_unique(self) -> None:
        order, ordered = self._sorted_pairs
        repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
        if len(repeated):
            row = int(order[repeated[0] + 1])  # a stable sort: the later of the two rows
            raise InputError(
                f"{self.source}: query {self.qid[row].as_py()!r} lists document {self.docno[row].as_py()!r} twice; "
                "keep one entry per query and document."
            )

    @cached_property
    def _encoded(self) -> tuple[pa.DictionaryArray, pa.DictionaryArray]:
        """The query ids and docnos dictionary-encoded (one hash pass over each column, shared by every use)."""
        return _dictionary_encode(self.qid), _dictionary_encode(self.docno)

    @cached_property
    def _pair_codes(self) -> tuple[np.ndarray, pa.Array, pa.Array]:
        """(int64 key per row ``query code * distinct docnos + docno code``, query ids, docnos): hash-coded, exact."""
        query, doc = self._encoded
        keys = query.indices.to_numpy().astype(np.int64)
        keys *= len(doc.dictionary)
        keys += doc.indices.to_numpy()
        return keys, query.dictionary, doc.dictionary

    @cached_property
    def _sorted_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(row order sorting the pair keys, the sorted keys); timsort: fast on keys grouped by query, as TREC files are."""
        keys = self._pair_codes[0]
        order = np.argsort(keys, kind="stable")
        return order, keys[order]

    @cached_property
    def _query_codes(self) -> tuple[np.ndarray, pa.Array]:
        """(rank of each row's query id among the sorted distinct ids, the sorted distinct ids)."""
        return _sorted_codes(self._encoded[0])

    @property
    def query_ids(self) -> list[str]:
        """Query ids in sorted (byte) order."""
        return self._query_codes[1].to_pylist()


def _flatten(nested: Mapping[str, Mapping[str, object]]) -> tuple[list[str], list[str], list[object]]:
    qids, docnos, values = [], [], []
    for qid, docs in nested.items():
        for docno, value in docs.items():
            qids.append(str(qid))
            docnos.append(str(docno))
            values.append(value)
    return qids, docnos, values


class Qrels(_Pairs):
    """Graded relevance judgments ``{qid: {docno: grade}}`` (integer grades; 3/2/1/0 in fashionrq)."""

    def __init__(self, judgments: Mapping[str, Mapping[str, int]], source: str = "qrels") -> None:
        qids, docnos, grades = _flatten(judgments)
        for qid, docno, grade in zip(qids, docnos, grades):
            if not isinstance(grade, Integral) or isinstance(grade, bool):
                raise InputError(
                    f"{source}: the grade of query {qid!r}, document {docno!r} is {grade!r}, not an integer; "
                    "use integer grades such as 3, 2, 1, 0."
                )
        self._init(qids, docnos, np.asarray(grades, dtype=np.int64), source)

    @classmethod
    def from_arrays(cls, qid: object, docno: object, grade: object, source: str = "qrels") -> Qrels:
        """Build from parallel columns (query ids, document ids, integer grades); pairs must be unique."""
        grade = np.asarray(grade)
        if grade.size and not np.issubdtype(grade.dtype, np.integer):
            raise InputError(f"{source}: grades have type {grade.dtype}, not integers; use integer grades such as 3, 2, 1, 0.")
        qrels = cls.__new__(cls)
        qrels._init(qid, docno, grade.astype(np.int64), source)
        return qrels

    def _init(self, qid: object, docno: object, grade: np.ndarray, source: str) -> None:
        self._set_ids(qid, docno, grade, source)
        self.grade = grade
        self._check_unique()

    def __len__(self) -> int:
        return len(self.grade)

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        """``(qid, docno, grade)`` triples in file order."""
        return zip(self.qid.to_pylist(), self.docno.to_pylist(), self.grade.tolist())

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{qid: {docno: grade}}``."""
        out: dict[str, dict[str, int]] = {}
        for qid, docno, grade in zip(self.qid.to_pylist(), self.docno.to_pylist(), self.grade.tolist()):
            out.setdefault(qid, {})[docno] = grade
        return out


class Run(_Pairs):
    """Scored retrieval results ``{qid: {docno: score}}`` named ``name`` (the TREC tag)."""

    def __init__(self, scores: Mapping[str, Mapping[str, float]], name: str = "run", source: str = "run") -> None:
        qids, docnos, values = _flatten(scores)
        for qid, docno, score in zip(qids, docnos, values):
            if not isinstance(score, Real) or isinstance(score, bool):
                raise InputError(
                    f"{source}: the score of query {qid!r}, document {docno!r} is {score!r}; give every document a finite number."
                )
        self._init(qids, docnos, np.asarray(values, dtype=np.float64), name, source)

    @classmethod
    def from_arrays(cls, qid: object, docno: object, score: object, name: str = "run", source: str = "run") -> Run:
        """Build from parallel columns (query ids, document ids, finite scores); pairs must be unique."""
        run = cls.__new__(cls)
        run._init(qid, docno, np.asarray(score, dtype=np.float64), name, source)
        return run

    def _init(self, qid: object, docno: object, score: np.ndarray, name: str, source: str) -> None:
        self._set_ids(qid, docno, score, source)
        self.score, self.name = score, name
        bad = np.flatnonzero(~np.isfinite(score))
        if len(bad):
            row = int(bad[0])
            raise InputError(
                f"{source}: the score of query {self.qid[row].as_py()!r}, document {self.docno[row].as_py()!r} is "
                f"{float(score[row])!r}; give every document a finite number."
            )
        self._check_unique()

    def __len__(self) -> int:
        return len(self.score)

    @cached_property
    def ranking(self) -> np.ndarray:
        """Row indices in trec_eval order: query id ascending, then score descending, then docno descending.

        Scores are compared as 32-bit floats, as trec_eval stores them: two scores equal in float32 are a tie.
        """
        # docnos by their rank in byte order: integer keys sort faster than strings, in the same order
        query_rank, query_ids = self._query_codes
        docs = self._encoded[1]
        doc_rank = _dictionary_ranks(docs.dictionary)[docs.indices.to_numpy()]
        order = _ranking_by_key(query_rank, len(query_ids), self.score, doc_rank, len(docs.dictionary))
        if order is not None:
            return order
        table = pa.table({"q": query_rank, "s": _as_float32(self.score), "d": doc_rank})
        keys = [("q", "ascending"), ("s", "descending"), ("d", "descending")]
        return pc.sort_indices(table, sort_keys=keys).to_numpy()

    def ranked(self, k: int | None = None) -> dict[str, list[str]]:
        """``{qid: [docno, ...]}`` in trec_eval order, cut to the top ``k`` when given."""
        order = self.ranking
        if k is not None:
            order = order[group_positions(self._query_codes[0][order]) < k]
        out: dict[str, list[str]] = {}
        for qid, docno in zip(self.qid.take(pa.array(order)).to_pylist(), self.docno.take(pa.array(order)).to_pylist()):
            out.setdefault(qid, []).append(docno)
        return out

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docno: score}}``."""
        out: dict[str, dict[str, float]] = {}
        for qid, docno, score in zip(self.qid.to_pylist(), self.docno.to_pylist(), self.score.tolist()):
            out.setdefault(qid, {})[docno] = score
        return out


# ----------------------------------------------------------------------------------------------- reading


def read_columns(path: Path, names: tuple[str, ...], types: dict[str, pa.DataType]) -> pa.Table | None:
    """Parse a well-formed file with Arrow's CSV reader (on every core: the one step of trec-eval that splits
    well, for a little more CPU than one thread); None when anything looks off."""
    with path.open("rb") as handle:
        head = handle.readline()
    delimiter = "\t" if b"\t" in head and b" " not in head.strip() else " "
    try:
        table = pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(column_names=list(names), block_size=1 << 20, use_threads=True),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(
                column_types=types, include_columns=list(types), null_values=[], strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None
    if table.num_rows == 0:
        return None
    # every line has exactly len(names) single-delimiter fields here, so no id can be empty; nulls mean trouble
    if any(table.column(name).null_count for name in types):
        return None
    return table


def _slow_columns(path: Path, fields: tuple[str, ...], numeric: str, parse: type) -> tuple[list, list, list, str | None]:
    """Parse line by line, raising an InputError that names the first bad line and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: byte {err.start} is not UTF-8 text; save the file as UTF-8.") from None
    what = " ".join(fields)
    qids, docnos, values, tag = [], [], [], None
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != len(fields):
            raise InputError(
                f"{path}, line {number}: expected {len(fields)} whitespace-separated fields ({what}) but found {len(parts)}; "
                "fix or remove the line."
            )
        raw = parts[fields.index(numeric)]
        try:
            value = parse(raw)
        except ValueError:
            kind = "an integer" if parse is int else "a number"
            raise InputError(f"{path}, line {number}: field '{numeric}' is {raw!r}, not {kind}; write {kind} there.") from None
        if parse is float and not math.isfinite(value):
            raise InputError(
                f"{path}, line {number}: field '{numeric}' is {raw!r}; scores must be finite numbers (no nan or inf)."
            )
        key = (parts[0], parts[2])
        if key in seen:
            raise InputError(
                f"{path}, line {number}: query {key[0]!r} lists document {key[1]!r} again (first on line {seen[key]}); "
                "keep one line per query and document."
            )
        seen[key] = number
        qids.append(parts[0])
        docnos.append(parts[2])
        values.append(value)
        tag = tag or (parts[5] if len(parts) == 6 else None)
    if not qids:
        raise InputError(f"{path}: the file is empty; write one '{what}' line per query and document.")
    return qids, docnos, values, tag


def _existing(path: str | Path) -> Path:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file; give the path of a TREC file.")
    return path


def read_qrels(path: str | Path, allow_empty: bool = False) -> Qrels:
    """Read a TREC qrels file (``qid iter docno grade``) into :class:`Qrels`; raises InputError on a bad line, and
    on an empty file unless ``allow_empty`` (a release's task with no queries has one: it reads as no judgment)."""
    path = _existing(path)
    if allow_empty and not path.read_bytes().strip():
        return Qrels({}, source=str(path))
    table = read_columns(path, QRELS_FIELDS, {"qid": pa.string(), "docno": pa.string(), "grade": pa.int64()})
    if table is not None:
        try:
            grades = _numbers(table.column("grade"))
            return Qrels.from_arrays(table.column("qid"), table.column("docno"), grades, source=str(path))
        except InputError:
            pass  # the line-by-line parser below names the offending line
    qids, docnos, grades, _ = _slow_columns(path, QRELS_FIELDS, "grade", int)
    return Qrels.from_arrays(qids, docnos, np.asarray(grades, dtype=np.int64), source=str(path))


def read_run(path: str | Path) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``) into :class:`Run` named by its first tag."""
    path = _existing(path)
    table = read_columns(path, RUN_FIELDS, {"qid": pa.string(), "docno": pa.string(), "score": pa.float64()})
    if table is not None:
        with path.open("rb") as handle:
            tag = next(line for line in handle if line.strip()).split()[5].decode()
        try:
            scores = _numbers(table.column("score"))
            return Run.from_arrays(table.column("qid"), table.column("docno"), scores, name=tag, source=str(path))
        except InputError:
            pass  # the line-by-line parser below names the offending line
    qids, docnos, scores, tag = _slow_columns(path, RUN_FIELDS, "score", float)
    return Run.from_arrays(qids, docnos, np.asarray(scores, dtype=np.float64), name=tag or "run", source=str(path))


# ----------------------------------------------------------------------------------------------- writing


def _check_tokens(values: pa.Array, what: str, target: Path) -> None:
    bad = pc.match_substring_regex(values, r"\s|^$")
    if pc.any(bad).as_py():
        example = values.filter(bad)[0].as_py()
        raise InputError(f"{target}: {what} {example!r} is empty or contains whitespace; TREC files need single-token ids.")


def _write_lines(lines: Iterable[str], path: Path) -> None:
    with atomic_writer(path) as handle:
        handle.writelines(lines)


def write_run(run: Run, path: str | Path, tag: str | None = None) -> Path:
    """Write ``run`` as a TREC run file in trec_eval order (qid ascending, score descending, docno descending).

    Ranks are 1-based within each query; scores are written with the shortest round-trip repr, so the same
    run always gives the same bytes and reading the file back gives the same scores.
    """
    path = Path(path)
    tag = run.name if tag is None else tag
    if not tag or any(ch.isspace() for ch in tag):
        raise InputError(f"{path}: run tag {tag!r} is empty or contains whitespace; use a single token such as 'bm25'.")
    _check_tokens(run.qid, "query id", path)
    _check_tokens(run.docno, "document id", path)
    order = run.ranking
    ranks = group_positions(run._query_codes[0][order]) + 1
    take = pa.array(order)
    rows = zip(run.qid.take(take).to_pylist(), run.docno.take(take).to_pylist(), ranks.tolist(), run.score[order].tolist())
    _write_lines((f"{qid} Q0 {docno} {rank} {score!r} {tag}\n" for qid, docno, rank, score in rows), path)
    return path


def write_qrels(qrels: Qrels, path: str | Path) -> Path:
    """Write ``qrels`` as a TREC qrels file (``qid 0 docno grade``), sorted by qid then docno."""
    path = Path(path)
    _check_tokens(qrels.qid, "query id", path)
    _check_tokens(qrels.docno, "document id", path)
    table = pa.table({"qid": qrels.qid, "docno": qrels.docno, "grade": qrels.grade})
    table = table.take(pc.sort_indices(table, sort_keys=[("qid", "ascending"), ("docno", "ascending")]))
    rows = zip(table.column("qid").to_pylist(), table.column("docno").to_pylist(), table.column("grade").to_pylist())
    _write_lines((f"{qid} 0 {docno} {grade}\n" for qid, docno, grade in rows), path)
    return path


# ----------------------------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class RunCheck:
    """Query ids of a run that qrels do not judge (``unknown``) and judged ones the run lacks (``missing``)."""

    unknown: list[str]
    missing: list[str]

    def describe(self, run_source: str, qrels_source: str, examples: int = 3) -> list[str]:
        """One sentence per problem, with counts and the first ``examples`` ids."""
        lines = []
        if self.unknown:
            lines.append(
                f"{run_source} has {len(self.unknown)} query id(s) not in {qrels_source} "
                f"(e.g. {', '.join(self.unknown[:examples])}); "
                "they are not evaluated — check that the run and qrels belong to the same task."
            )
        if self.missing:
            lines.append(
                f"{run_source} has no results for {len(self.missing)} query id(s) of {qrels_source} "
                f"(e.g. {', '.join(self.missing[:examples])}); "
                "they are skipped, or score 0 in complete mode."
            )
        return lines


def check_run_against_qrels(run: Run, qrels: Qrels, strict: bool = False) -> RunCheck:
    """Compare query ids; with ``strict=True`` raise InputError when the run has query ids the qrels lack."""
    run_ids, qrels_ids = run._query_codes[1], qrels._query_codes[1]  # sorted distinct query ids
    unknown = run_ids.filter(pc.invert(pc.is_in(run_ids, value_set=qrels_ids))).to_pylist()
    missing = qrels_ids.filter(pc.invert(pc.is_in(qrels_ids, value_set=run_ids))).to_pylist()
    check = RunCheck(unknown=unknown, missing=missing)
    if strict and unknown:
        raise InputError(check.describe(run.source, qrels.source)[0])
    return check
