"""fashionrq serve as a real process on loopback, over SQLite and a real PostgreSQL 15: load, kill -9, fuzzing,
a rewritten database row, and the leaderboard page in headless Chromium (all marked slow)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import main_code
from serve_support import SRC, LiveServer, Postgres, free_port, label_needles, leaked, write_run

pytest.importorskip("fastapi", reason="needs the serve extra (pip install fashionrq[serve])")
pytestmark = pytest.mark.slow

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="module")
def postgres():
    pytest.importorskip("psycopg", reason="PostgreSQL needs psycopg (the serve extra)")
    cluster = Postgres()
    yield cluster
    cluster.stop()


@pytest.fixture
def db(request, postgres):
    """None (SQLite in DATA) or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return None
    return postgres.url(f"t{os.getpid()}_{time.time_ns()}")


@pytest.fixture
def live(small_bench, tmp_path, db):
    servers = []

    def start(**kwargs) -> LiveServer:
        (tmp_path / "DATA").mkdir(exist_ok=True)
        server = LiveServer(small_bench, tmp_path / "DATA", db, **kwargs)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _engine(server: LiveServer):
    from fashionrq.server.db import connect, database_url

    return connect(database_url(server.db, server.data), migrate=False)


def _counts(server: LiveServer) -> dict:
    """Per submission: its job state, attempts and how many score rows the ledger holds for it, read in one
    statement (one snapshot: two reads would see a submission that finished between them as scored, no score row)."""
    import sqlalchemy as sa

    from fashionrq.server.db import jobs, ledger

    scores = sa.alias(ledger, "scores")
    score_rows = (sa.select(sa.func.count()).select_from(scores)
                  .where(scores.c.kind == "score", scores.c.submission == ledger.c.id).scalar_subquery())
    query = (sa.select(ledger.c.id, jobs.c.state, jobs.c.attempts, score_rows)
             .select_from(ledger.outerjoin(jobs, jobs.c.submission == ledger.c.id)).where(ledger.c.kind == "submit"))
    engine = _engine(server)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    engine.dispose()
    return {sub: (state, attempts or 0, count) for sub, state, attempts, count in rows}


def _wait_all_scored(server: LiveServer, n: int, timeout: float = 900) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        counts = _counts(server)
        if len(counts) == n and all(state in ("scored", "rejected") for state, _, _ in counts.values()):
            return counts
        time.sleep(1)
    raise AssertionError(f"not all {n} submissions finished: {_counts(server)}")


def _why_not_all_scored(server: LiveServer, counts: dict) -> str:
    """The counts, every refusal's sentence from the ledger and the end of the server's log (for a failing assert)."""
    import sqlalchemy as sa

    from fashionrq.server.db import ledger

    engine = _engine(server)
    with engine.connect() as conn:
        bodies = conn.execute(sa.select(ledger.c.body).where(ledger.c.kind == "score")).scalars().all()
    engine.dispose()
    refusals = [json.loads(body).get("error") for body in bodies if json.loads(body).get("status") != "scored"]
    return f"counts {counts}; refusals {refusals}; log: {Path(server.log.name).read_text()[-4000:]}"


def _runs(bench: Path, root: Path, n: int, first: int = 0) -> list[Path]:
    return [write_run(bench, root / f"run{i}", i) for i in range(first, first + n)]


@pytest.mark.parametrize("db", BACKENDS, indirect=True)
def test_200_concurrent_submissions_from_10_teams_are_each_scored_once(live, small_bench, tmp_path):
    from fashionrq.server.client import upload

    server = live(workers=2)
    teams = {f"team{i}": server.token(f"team{i}") for i in range(10)}
    runs = _runs(small_bench, tmp_path / "runs", 200)

    def send(index: int) -> list[int]:
        token = teams[f"team{index}"]
        return [upload(run, server.url, token)["id"] for run in runs[index::10]]

    with ThreadPoolExecutor(10) as pool:
        ids = [i for batch in pool.map(send, range(10)) for i in batch]
    assert len(set(ids)) == 200
    counts = _wait_all_scored(server, 200)
    assert {state for state, _, _ in counts.values()} == {"scored"}
    assert all(scores == 1 for _, _, scores in counts.values())  # each scored exactly once, none lost
    assert all(attempts == 1 for _, attempts, _ in counts.values())
    assert main_code(["verify-ledger", server.url]) == 0
    board = __import__("httpx").get(server.url + "/api/v1/leaderboard", timeout=120).json()
    assert sorted(row["team"] for row in board["rows"]) == sorted(teams)


def _worker_pids(data: Path) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"fashionrq.server.worker" in cmd and str(data).encode() in cmd:
            pids.append(int(proc.name))
    return pids


@pytest.mark.parametrize("db", BACKENDS, indirect=True)
def test_kill_9_during_scoring_then_restart_finishes_every_submission(live, small_bench, tmp_path):
    from fashionrq.server.client import upload

    # each worker kills itself (SIGKILL) at its second scoring, after scoring and before its score row is appended;
    # the server restarts it, and the submission it held is reclaimed once its lease runs out
    server = live(workers=2, lease=3, env={"FASHIONRQ_CRASH_AT": "server-score:2"})
    token = server.token("crash")
    ids = [upload(run, server.url, token)["id"] for run in _runs(small_bench, tmp_path / "runs", 12)]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # kill -9 the server while a submission is being scored, after a worker died
        counts = _counts(server)
        if any(a >= 2 for _, a, _ in counts.values()) and any(s == "scoring" for s, _, _ in counts.values()):
            break
        time.sleep(0.05)
    server.kill()
    time.sleep(1.5)
    assert _worker_pids(server.data) == []  # the workers died with the server
    before = _counts(server)
    assert any(state != "scored" for state, _, _ in before.values())
    server.start()  # no crash point this time
    counts = _wait_all_scored(server, len(ids))
    assert all(state == "scored" and scores == 1 for state, _, scores in counts.values()), _why_not_all_scored(server, counts)
    assert any(attempts >= 2 for _, attempts, _ in counts.values())  # a killed scoring was redone, once
    assert main_code(["verify-ledger", server.url]) == 0


@pytest.mark.parametrize("db", BACKENDS, indirect=True)
def test_a_rewritten_database_row_fails_verify_ledger(live, small_bench, tmp_path, capsys):
    import httpx
    import sqlalchemy as sa

    from fashionrq.server.client import upload
    from fashionrq.server.db import ledger

    server = live(workers=1)
    token = server.token("tamper")
    for run in _runs(small_bench, tmp_path / "runs", 3):
        upload(run, server.url, token)
    _wait_all_scored(server, 3)
    anchor = httpx.get(server.url + "/api/v1/ledger/head").json()["hash"]
    assert main_code(["verify-ledger", server.url, "--anchor", anchor]) == 0
    engine = _engine(server)
    with engine.begin() as conn:  # one score row's body edited in place, as an attacker with the database would
        row = conn.execute(sa.select(ledger.c.id, ledger.c.body).where(ledger.c.kind == "score").order_by(ledger.c.id)).first()
        body = json.loads(row.body)
        task = next(iter(body["summary"]["tasks"].values()))
        metric = next(iter(task["aggregate"]))
        task["aggregate"][metric] = 0.999
        conn.execute(sa.update(ledger).where(ledger.c.id == row.id).values(body=json.dumps(body)))
    capsys.readouterr()
    assert main_code(["verify-ledger", server.url]) == 15
    assert f"ledger row {row.id} does not match its own hash" in capsys.readouterr().err.replace("\n", "")
    with engine.begin() as conn:  # ... or the row rehashed to match: the next row no longer chains to it
        from fashionrq.server.ledger import row_hash

        full = conn.execute(sa.select(ledger).where(ledger.c.id == row.id)).first()._asdict()
        conn.execute(sa.update(ledger).where(ledger.c.id == row.id).values(hash=row_hash(full)))
    assert main_code(["verify-ledger", server.url]) == 15
    engine.dispose()


@pytest.mark.parametrize("db", BACKENDS, indirect=True)
def test_fuzzing_the_openapi_schema_finds_no_500_and_no_label_byte(live, small_bench, tmp_path):
    schemathesis = pytest.importorskip("schemathesis", reason="the fuzzer is in the test extra (pip install fashionrq[test])")
    from hypothesis import HealthCheck, given, settings

    from fashionrq.server.client import upload

    server = live(workers=1, max_upload_mb=8)
    token = server.token("fuzz")
    for run in _runs(small_bench, tmp_path / "runs", 2):
        upload(run, server.url, token)
    _wait_all_scored(server, 2)
    needles = label_needles(small_bench)
    import io
    import tarfile

    import httpx

    tar = httpx.get(server.url + "/api/v1/public.tar", timeout=60).content  # manifest.json and public/ only:
    assert all(n == "manifest.json" or n.startswith("public/") for n in tarfile.open(fileobj=io.BytesIO(tar)).getnames())
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    seen = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def fuzz(case):
            for headers in ({"Authorization": f"Bearer {token}"}, None):
                response = case.call(base_url=server.url, headers=headers, timeout=120)
                seen.append((operation.label, response.status_code))
                assert response.status_code < 500, (operation.label, response.status_code, response.text[:300])
                if response.content == tar:  # the public files (checked above), compared whole
                    continue
                assert leaked(response.content, needles) is None, operation.label

        fuzz()
    labels = {label for label, _ in seen}
    assert len(labels) >= 10 and len(seen) > 1000
    assert main_code(["verify-ledger", server.url]) == 0


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_leaderboard_page_in_chromium_shows_the_json_numbers(live, small_bench, tmp_path):
    import httpx

    from fashionrq.report.browser import Page, find_chromium
    from fashionrq.server.board import MIN_CELL_QUERIES
    from fashionrq.server.client import upload

    if find_chromium() is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    server = live(workers=2)
    for team in ("ann", "bob", "cyd"):
        token = server.token(team)
        for run in _runs(small_bench, tmp_path / team, 2, first=hash(team) % 1000 * 10):
            upload(run, server.url, token)
    _wait_all_scored(server, 6)
    board = httpx.get(server.url + "/api/v1/leaderboard", timeout=120).json()
    page_file = tmp_path / "leaderboard.html"
    page_file.write_bytes(httpx.get(server.url + "/leaderboard", timeout=120).content)
    cells_js = ("Array.from(document.querySelectorAll('td[data-value]')).map(function(td){return {run: td.dataset.run, "
                "task: td.dataset.task, metric: td.dataset.metric, attribute: td.dataset.attribute || null, "
                "value: td.dataset.value, text: td.textContent};})")
    with Page() as page:
        page.open(page_file)
        assert page.evaluate("document.body.dataset.selfcheck") == "done"
        cells, plots = page.evaluate(cells_js), int(page.evaluate("document.body.dataset.plots"))
        verdicts = page.evaluate("Array.from(document.querySelectorAll('td[data-b]')).map(function(td){"
                                 "return {b: td.dataset.b, a: td.dataset.a, promoted: td.className === 'promoted'};})")
        assert page.errors() == []
        assert all(url.startswith(("file:", "data:")) for url in page.requests())
    rows = {row["label"]: row for row in board["rows"]}
    assert len(rows) == 3 and plots >= 4
    assert {c["run"] for c in cells} == set(rows)
    by_attribute = [c for c in cells if c["attribute"]]
    assert by_attribute  # the fixture's T1 has attributes whose cell and complement both reach MIN_CELL_QUERIES
    for cell in by_attribute:
        entry = rows[cell["run"]]["tasks"][cell["task"]]["by_attribute"][cell["attribute"]]
        assert entry["n"] >= MIN_CELL_QUERIES
        assert float(cell["value"]) == entry[cell["metric"]] and cell["text"] == f"{entry[cell['metric']]:.4f}"
    for cell in (c for c in cells if not c["attribute"]):
        entry = rows[cell["run"]]["tasks"][cell["task"]]["metrics"][cell["metric"]]
        lower, upper = entry["interval"]
        assert float(cell["value"]) == entry["value"]
        assert cell["text"] == f"{entry['value']:.4f} [{lower:.4f}, {upper:.4f}]"
    champion = board["champion"]
    for row in board["rows"][1:]:
        shown = next(v for v in verdicts if v["b"] == row["label"] and v["a"] == champion)
        assert shown["promoted"] == row["gate_vs_champion"]["promoted"]


def _readme_commands() -> list[str]:
    """The commands of README's "Host a leaderboard" block, comments dropped."""
    text = (Path(__file__).parents[1] / "README.md").read_text()
    block = text.split("## Host a leaderboard", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]


def test_the_readme_host_a_leaderboard_commands_work(small_bench, tmp_path):
    """README's three commands as written (BENCH, the run, the port and TOKEN filled in), then a wrong token."""
    import shlex

    import httpx

    issue, serve, submit = _readme_commands()
    assert issue.startswith("fashionrq token issue BENCH") and serve.startswith("fashionrq serve BENCH") and submit.startswith("fashionrq submit")
    bench = tmp_path / "BENCH"
    shutil.copytree(small_bench, bench)
    run = write_run(small_bench, tmp_path / "runs" / "bm25", 5, commit=False)
    port = str(free_port())
    env = {**os.environ, "PYTHONPATH": str(SRC)}

    def argv(command: str) -> list[str]:
        words = shlex.split(command.replace("BENCH", str(bench)).replace("runs/bm25", str(run)).replace("8000", port))
        assert words[0] == "fashionrq"
        return [sys.executable, "-m", "fashionrq", *words[1:]]

    token = subprocess.run(argv(issue), capture_output=True, text=True, env=env, check=True).stdout.strip()
    log = open(tmp_path / "serve.log", "w")
    server = subprocess.Popen(argv(serve), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(600):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        done = subprocess.run(argv(submit.replace("TOKEN", token)), capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "committed" in done.stderr and "verdict: this submission is the champion" in done.stderr
        assert (run / "commitments.jsonl").is_file() and (tmp_path / "BENCH.serve" / "server.db").is_file()
        wrong = subprocess.run(argv(submit.replace("TOKEN", "wrong")), capture_output=True, text=True, env=env, timeout=600)
        assert wrong.returncode == 2 and "401" in wrong.stderr and "Traceback" not in wrong.stderr
        assert main_code(["verify-ledger", f"http://127.0.0.1:{port}"]) == 0
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
