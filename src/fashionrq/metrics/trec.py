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


def _sorted_codes(encoded: pa.DictionaryArray) -> tuple[np.ndarray, pa.Array]:
    """Return (ordinal of each value in sorted order of the distinct values, the sorted distinct values)."""
    vocab = encoded.dictionary
    order = pc.sort_indices(vocab).to_numpy()
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    return rank_of[encoded.indices.to_numpy()], vocab.take(pa.array(order))


def group_positions(groups: np.ndarray) -> np.ndarray:
    """0-based position of each element within its block of equal, contiguous values (e.g. rank within query)."""
    n = len(groups)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))


def _string_array(values: object) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return values if values.type == pa.string() else values.cast(pa.string())
    return pa.array(values, type=pa.string())


def _sorted_unique(values: pa.Array) -> pa.Array:
    distinct = pc.unique(values)
    return distinct.take(pc.sort_indices(distinct))


def judged_positions(qrels: Qrels, run: Run) -> np.ndarray:
    """For every run row, the qrels row judging the same (qid, docno), or -1.

    Qrels ids are coded with the run's own query and docno dictionaries; pairs become int64 keys
    ``query * distinct docnos + docno`` (exact below 2^63), and the sorted qrels keys are searched.
    """
    run_keys, query_ids, doc_ids = run._pair_codes
    query = pc.index_in(qrels.qid, value_set=query_ids)
    doc = pc.index_in(qrels.docno, value_set=doc_ids)
    rows = np.flatnonzero(pc.and_(query.is_valid(), doc.is_valid()).to_numpy(zero_copy_only=False))
    positions = np.full(len(run), -1, dtype=np.int64)
    if not len(rows):
        return positions
    judged = (pc.fill_null(query, 0).to_numpy()[rows].astype(np.int64) * len(doc_ids)
              + pc.fill_null(doc, 0).to_numpy()[rows])
    order = np.argsort(judged, kind="stable")
    slot = np.minimum(np.searchsorted(judged[order], run_keys), len(order) - 1)
    found = judged[order][slot] == run_keys
    positions[found] = rows[order[slot[found]]]
    return positions


class _Pairs:
    """Shared part of Qrels and Run: one value per (qid, docno) pair, held as Arrow strings and a numpy column."""

    qid: pa.Array
    docno: pa.Array
    source: str

    def _set_ids(self, qid: object, docno: object, values: np.ndarray, source: str) -> None:
        self.qid, self.docno, self.source = _string_array(qid), _string_array(docno), source
        if not len(self.qid) == len(self.docno) == len(values):
            raise InputError(
                f"{source}: got {len(self.qid)} query ids, {len(self.docno)} document ids and {len(values)} values; "
                "give one of each per pair."
            )

    def _check_unique(self) -> None:
        keys = self._pair_codes[0]
        ordered = np.sort(keys, kind="stable")  # timsort: fast on keys grouped by query, as TREC files are
        repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
        if len(repeated):
            row = int(np.flatnonzero(keys == ordered[repeated[0]])[1])
            raise InputError(
                f"{self.source}: query {self.qid[row].as_py()!r} lists document {self.docno[row].as_py()!r} twice; "
                "keep one entry per query and document."
            )

    @cached_property
    def _encoded(self) -> tuple[pa.DictionaryArray, pa.DictionaryArray]:
        """The query ids and docnos dictionary-encoded (one hash pass over each column, shared by every use)."""
        return pc.dictionary_encode(self.qid), pc.dictionary_encode(self.docno)

    @cached_property
    def _pair_codes(self) -> tuple[np.ndarray, pa.Array, pa.Array]:
        """(int64 key per row ``query code * distinct docnos + docno code``, query ids, docnos): hash-coded, exact."""
        query, doc = self._encoded
        keys = query.indices.to_numpy().astype(np.int64) * len(doc.dictionary) + doc.indices.to_numpy()
        return keys, query.dictionary, doc.dictionary

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
        table = pa.table({"q": self._query_codes[0], "s": self.score.astype(np.float32), "d": _sorted_codes(self._encoded[1])[0]})
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
    table = table.combine_chunks() if table.num_rows else table
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


def read_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file (``qid iter docno grade``) into :class:`Qrels`; raises InputError on a bad line."""
    path = _existing(path)
    table = read_columns(path, QRELS_FIELDS, {"qid": pa.string(), "docno": pa.string(), "grade": pa.int64()})
    if table is not None:
        try:
            grades = table.column("grade").chunk(0).to_numpy()  # one chunk; ChunkedArray.to_numpy imports pandas
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
            scores = table.column("score").chunk(0).to_numpy()
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
    run_ids, qrels_ids = _sorted_unique(run.qid), _sorted_unique(qrels.qid)
    unknown = run_ids.filter(pc.invert(pc.is_in(run_ids, value_set=qrels_ids))).to_pylist()
    missing = qrels_ids.filter(pc.invert(pc.is_in(qrels_ids, value_set=run_ids))).to_pylist()
    check = RunCheck(unknown=unknown, missing=missing)
    if strict and unknown:
        raise InputError(check.describe(run.source, qrels.source)[0])
    return check
