"""fashionrq serve, in process (FastAPI's TestClient over SQLite, the worker run inline): submit, score, read;
every refusal of docs/server.md's threat model that needs no live server. Live-server tests: test_server_slow.py."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from conftest import main_code
from serve_support import label_needles, leaked, write_run

from fashionrq.protocol.scoring import score_run
from fashionrq.server.board import MIN_CELL_QUERIES

pytest.importorskip("fastapi", reason="needs the serve extra (pip install fashionrq[serve])")
pytest.importorskip("sqlalchemy", reason="needs the serve extra (pip install fashionrq[serve])")


@pytest.fixture(scope="module")
def served(small_bench, tmp_path_factory):
    """A server on the fixture release (SQLite, quota 3, 4 MiB uploads), its tokens, and every response body seen."""
    from fastapi.testclient import TestClient

    from fashionrq.server.app import Settings, create_app
    from fashionrq.server.auth import issue_token
    from fashionrq.server.db import connect, database_url

    data = tmp_path_factory.mktemp("serve") / "DATA"
    data.mkdir()
    url = database_url(None, data)
    engine = connect(url)
    settings = Settings(bench=small_bench, data=data, url=url, quota=3, max_upload=4 << 20, resamples=200, auth_failures=5)
    client = TestClient(create_app(settings, engine), client=("10.0.0.1", 1))
    tokens = {team: issue_token(engine, team) for team in ("alpha", "beta")}
    bodies: list[bytes] = []
    original = client.request

    def recording(*args, **kwargs):
        response = original(*args, **kwargs)
        bodies.append(response.content)
        return response

    client.request = recording
    return {"client": client, "engine": engine, "data": data, "url": url, "tokens": tokens, "bodies": bodies,
            "runs": tmp_path_factory.mktemp("serve-runs"), "bench": small_bench}


def _files(run):
    return [("files", (p.name, p.read_bytes())) for p in sorted(run.iterdir())]


def _auth(served, team):
    return {"Authorization": f"Bearer {served['tokens'][team]}"}


def _score_all(served) -> int:
    from fashionrq.server.scorer import work

    return work(served["bench"], served["data"], served["url"], once=True)


def test_submit_score_and_read_only_your_own(served):
    client = served["client"]
    ids = []
    for team, variant in (("alpha", 1), ("beta", 2)):
        run = write_run(served["bench"], served["runs"] / f"{team}-{variant}", variant)
        response = client.post("/api/v1/submissions", files=_files(run), headers=_auth(served, team))
        assert response.status_code == 202, response.text
        assert response.json()["state"] == "queued"
        ids.append(response.json()["id"])
    assert _score_all(served) == 2
    assert _score_all(served) == 0  # nothing is scored twice
    mine = client.get(f"/api/v1/submissions/{ids[0]}/scores", headers=_auth(served, "alpha")).json()
    assert mine["state"] == "scored"
    tasks = mine["summary"]["tasks"]
    assert set(tasks) == {"t1", "t2", "t3", "t4"}
    for entry in tasks.values():  # aggregates and intervals: no confusion matrix or per-unit value
        assert set(entry) <= {"aggregate", "interval", "n_units", "n_clusters", "unit", "leakage_unit", "headline", "breakdowns"}
        for metric, value in entry["aggregate"].items():
            lower, upper = entry["interval"][metric]
            assert lower <= value <= upper
    # per-attribute cells: each task's headline over the queries expressing an attribute, only where that cell and its
    # complement both hold MIN_CELL_QUERIES queries; the full scoring has smaller cells, which are left out
    full = score_run(served["bench"], served["runs"] / "alpha-1", relevance=False, unsealed=True).report["tasks"]
    for task, entry in full.items():
        split = entry.get("breakdowns", {}).get("by_attribute", {})
        large = {a for a, c in split.items() if min(c["present"]["n"], c["absent"]["n"]) >= MIN_CELL_QUERIES}
        served_cells = tasks[task].get("breakdowns", {}).get("by_attribute", {})
        assert set(served_cells) == large
        for attribute, cell in served_cells.items():
            present = split[attribute]["present"]
            assert cell == {"present": {"n": present["n"], entry["headline"]: present[entry["headline"]]}}
    assert tasks["t1"]["breakdowns"]["by_attribute"] and set(tasks["t1"]["breakdowns"]["by_attribute"]) != set(full["t1"]["breakdowns"]["by_attribute"])
    # one team never reads another's submission: the same answer as for an id that does not exist
    for path in (f"/api/v1/submissions/{ids[1]}", f"/api/v1/submissions/{ids[1]}/scores", "/api/v1/submissions/999"):
        assert client.get(path, headers=_auth(served, "alpha")).status_code == 404
    assert [s["id"] for s in client.get("/api/v1/submissions", headers=_auth(served, "alpha")).json()] == [ids[0]]
    board = client.get("/api/v1/leaderboard").json()
    assert [row["team"] for row in board["rows"]] and {row["team"] for row in board["rows"]} == {"alpha", "beta"}
    assert board["rows"][0]["gate_vs_champion"] is None and board["rows"][1]["gate_vs_champion"]["champion"] == board["champion"]
    page = client.get("/leaderboard").text
    assert all(f'data-run="{row["label"]}"' in page for row in board["rows"])
    assert client.get("/health").json()["jobs"] == {"scored": 2}


def test_downloads_are_the_public_release(served):
    import io
    import tarfile

    client, bench = served["client"], served["bench"]
    assert client.get("/api/v1/manifest").content == (bench / "manifest.json").read_bytes()
    body = client.get("/api/v1/public.tar").content
    served["bodies"].pop()  # checked here, file by file
    assert client.get("/api/v1/public.tar").content == body  # the same bytes every time
    served["bodies"].pop()
    tar = tarfile.open(fileobj=io.BytesIO(body))
    names = tar.getnames()
    assert names[0] == "manifest.json" and all(n.startswith("public/") for n in names[1:])
    assert set(names[1:]) == {p.relative_to(bench).as_posix() for p in (bench / "public").rglob("*") if p.is_file()}
    for name in names:  # each member is the release's own file, byte for byte: nothing from labels/
        assert tar.extractfile(name).read() == (bench / name).read_bytes()


@pytest.mark.parametrize("name", ["../t1.run", "/etc/passwd", "public/../../labels/t1.qrels", "t1.run\x00", "labels.txt", ""])
def test_upload_names_outside_the_run_are_refused(served, name, tmp_path):
    run = write_run(served["bench"], tmp_path / "run", 7, commit=True)
    files = _files(run) + [("files", (name, b"x"))]
    response = served["client"].post("/api/v1/submissions", files=files, headers=_auth(served, "alpha"))
    assert response.status_code in (400, 422), response.text
    assert not list((served["data"] / "incoming").iterdir())  # nothing kept
    assert not (served["data"].parent / "t1.run").exists()


def test_forged_replayed_oversized_and_unauthorised_submissions_are_refused(served, tmp_path):
    client = served["client"]
    run = write_run(served["bench"], tmp_path / "forged", 11)
    with (run / "t1.run").open("a") as handle:  # changed after its commitment
        handle.write("")
    text = (run / "t1.run").read_text().splitlines(keepends=True)
    (run / "t1.run").write_text("".join(text[1:2] + text[:1] + text[2:]))
    response = client.post("/api/v1/submissions", files=_files(run), headers=_auth(served, "alpha"))
    assert response.status_code == 400 and "does not match its latest commitment" in response.json()["detail"]
    assert str(served["data"]) not in response.text
    odd = write_run(served["bench"], tmp_path / "odd", 13)  # a ledger record that hashes to itself but lists no files
    from fashionrq.protocol.commitment import record_hash

    record = {**json.loads((odd / "commitments.jsonl").read_text()), "files": []}
    record["hash"] = record_hash(record)
    (odd / "commitments.jsonl").write_text(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
    response = client.post("/api/v1/submissions", files=_files(odd), headers=_auth(served, "alpha"))
    assert response.status_code == 400, response.text
    good = write_run(served["bench"], tmp_path / "good", 12)
    assert client.post("/api/v1/submissions", files=_files(good), headers=_auth(served, "alpha")).status_code == 202
    replay = client.post("/api/v1/submissions", files=_files(good), headers=_auth(served, "beta"))
    assert replay.status_code == 409  # the same commitment, by anyone, is recorded once
    big = [("files", ("t1.run", b"0" * (5 << 20)))]
    assert client.post("/api/v1/submissions", files=big, headers=_auth(served, "alpha")).status_code == 413
    assert client.post("/api/v1/submissions", files=_files(good)).status_code == 401
    assert client.post("/api/v1/submissions", files=_files(good), headers={"Authorization": "Bearer frq_guess"}).status_code == 401


def test_the_daily_quota_holds(served, tmp_path):
    client = served["client"]
    codes = [client.post("/api/v1/submissions", files=_files(write_run(served["bench"], tmp_path / f"q{i}", 100 + i)),
                         headers=_auth(served, "beta")).status_code for i in range(3)]
    assert codes == [202, 202, 429]  # beta had 1 of its 3 submissions for today already


def test_token_brute_force_is_throttled(served):
    from fastapi.testclient import TestClient

    client = TestClient(served["client"].app, client=("10.0.0.9", 1))
    codes = [client.get("/api/v1/submissions", headers={"Authorization": f"Bearer frq_{i}"}).status_code for i in range(7)]
    assert codes == [401] * 5 + [429] * 2
    # the right token from that address waits too; other addresses are unaffected
    assert client.get("/api/v1/submissions", headers=_auth(served, "alpha")).status_code == 429
    assert served["client"].get("/api/v1/submissions", headers=_auth(served, "alpha")).status_code == 200


def test_sql_injection_reaches_no_query(served):
    client = served["client"]
    for token in ("' OR '1'='1", "x'; DROP TABLE ledger; --"):
        assert client.get("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"}).status_code in (401, 429)
    assert client.get("/api/v1/submissions/1 OR 1=1", headers=_auth(served, "alpha")).status_code == 422
    assert client.get("/api/v1/ledger", params={"after": "0; DELETE FROM ledger"}).status_code == 422
    assert main_code(["token", "issue", str(served["bench"]), "x'); DROP TABLE tokens; --", "--db", served["url"]]) == 2
    rows = client.get("/api/v1/ledger").json()["rows"]
    assert rows and rows[0]["prev"] == "0" * 64


def test_no_response_holds_a_label_byte(served):
    needles = label_needles(served["bench"])
    for path in (served["bench"] / "labels").iterdir():  # the check finds a dump of any label file
        assert leaked(path.read_bytes(), needles) is not None, path.name
    assert len(served["bodies"]) > 30  # the tests above ran first in this module
    for body in served["bodies"]:  # public.tar's bodies are checked file by file in test_downloads_are_the_public_release
        assert leaked(body, needles) is None


def test_a_rewritten_row_breaks_the_chain(served):
    from fashionrq.server.ledger import LedgerError, verify_rows

    client = served["client"]
    rows = client.get("/api/v1/ledger").json()["rows"]
    result = verify_rows(rows)
    assert result["head"] == client.get("/api/v1/ledger/head").json()["hash"]
    with pytest.raises(LedgerError, match="anchored head"):
        verify_rows(rows, anchor="f" * 64)
    path = served["data"] / "server.db"
    with sqlite3.connect(path) as db:
        body = db.execute("SELECT body FROM ledger WHERE kind='score' ORDER BY id LIMIT 1").fetchone()[0]
        forged = body.replace('"status":"scored"', '"status":"scored","x":1')
        db.execute("UPDATE ledger SET body=? WHERE body=?", (forged, body))
    with pytest.raises(LedgerError, match="does not match its own hash"):
        verify_rows(client.get("/api/v1/ledger").json()["rows"])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE ledger SET body=? WHERE body=?", (body, forged))
    assert verify_rows(client.get("/api/v1/ledger").json()["rows"])["head"] == result["head"]


def test_migrations_are_alembics_and_rerun_safely(served):
    from fashionrq.server.db import connect

    connect(served["url"])  # an up-to-date database: a no-op
    with sqlite3.connect(served["data"] / "server.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [("0001",)]


def test_serve_without_the_extra_says_which_to_install(small_bench, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "fastapi", None)
    assert main_code(["serve", str(small_bench)]) == 2
    assert "pip install 'fashionrq[serve]'" in capsys.readouterr().err.replace("\n", "")


def test_bad_input_is_one_sentence(small_bench, tmp_path, capsys):
    import socket

    assert main_code(["serve", str(tmp_path)]) == 2
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        assert main_code(["serve", str(small_bench), "--data", str(tmp_path / "D"), "--port", port]) == 2
    assert main_code(["verify-ledger", "ftp://nowhere"]) == 2
    assert main_code(["submit", str(tmp_path / "missing"), "--server", "http://127.0.0.1:9", "--token", "t"]) == 2
    out = capsys.readouterr().err
    assert "Traceback" not in out and out.count("error:") == 4 and "cannot listen on" in out
