"""The validator's bulk (Arrow) reader of TREC runs accepts exactly what its line-by-line reader accepts, with the
same rows: seeded byte mutations of a run ranking fixture items, each file read both ways."""

from __future__ import annotations

import csv
import random

import pytest
from conftest import MYNTRA_SMALL

from fashionrq.protocol import validate
from fashionrq.errors import ProtocolError

MUTATIONS = (b" ", b"  ", b"\t", b"\n", b"\n\n", b"\r", b"\x1f", b"\xc2\xa0", b"x", b"-", b"+", b"0", b".", b"e",
             b"nan", b"inf", b"\xff", b"Q0", b"1e999", b"\xd9\xa1", b"1_0", b"1.5e3")


def _run_text() -> bytes:
    """20 queries ranking 10 fixture items each, as `fashionrq run` writes them."""
    with open(MYNTRA_SMALL / "styles.csv", encoding="utf-8") as handle:
        items = [row["id"] for _, row in zip(range(200), csv.DictReader(handle))]
    lines = [f"q{q:04d} Q0 {items[q * 10 + r]} {r + 1} {1.0 - r / 10:.10f} fixture" for q in range(20) for r in range(10)]
    return ("\n".join(lines) + "\n").encode()


def _read(path, bulk: bool, monkeypatch):
    with monkeypatch.context() as patch:
        if not bulk:
            patch.setattr(validate, "_well_formed_rows", lambda _: None)
        try:
            return "ok", validate._ranking_rows(path)
        except ProtocolError as err:
            return "error", type(err).__name__


def test_bulk_and_line_by_line_readers_agree_on_mutated_runs(tmp_path, monkeypatch):
    base, rng = _run_text(), random.Random(0)
    path = tmp_path / "t1.run"
    path.write_bytes(base)
    assert validate._well_formed_rows(path) is not None  # the clean file takes the bulk path
    outcomes = set()
    for _ in range(600):
        data = bytearray(base)
        for _ in range(rng.randint(1, 2)):
            at, mutation = rng.randrange(len(data)), rng.choice(MUTATIONS)
            data[at:at + (rng.random() < 0.5)] = mutation
        path.write_bytes(bytes(data))
        bulk, line_by_line = _read(path, True, monkeypatch), _read(path, False, monkeypatch)
        assert bulk == line_by_line, bytes(data)
        outcomes.add(bulk[0] if bulk[0] == "ok" else bulk[1])
    assert {"ok", "UnparseableLineError", "WrongTypeError"} <= outcomes  # the mutations reach both readers' checks


@pytest.mark.parametrize("text", [b"", b"\n", b"q1 Q0 i1 1 0.5 t\n\nq1 Q0 i2 2 0.4 t\n", b"q1 Q0 i1 1 0.5 t\r\n"])
def test_what_the_bulk_reader_leaves_to_the_line_reader(tmp_path, text):
    path = tmp_path / "t1.run"
    path.write_bytes(text)
    assert validate._well_formed_rows(path) is None
