"""Kill-and-rerun: a command SIGKILLed at a crash point (FASHIONRQ_CRASH_AT) leaves no half-written file behind,
and the rerun works or is refused with a sentence naming what to do; an interrupted embedding resumes."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fashionrq.errors import LedgerCorruptError
from fashionrq.layout import LEDGER
from fashionrq.protocol.commitment import check_commitment, commit_run, read_ledger
from fashionrq.release import release_hash, verify_release

from conftest import MYNTRA_SMALL, SMALL_BUILD

SRC = Path(__file__).resolve().parents[1] / "src"
KILLED = -9


def _python(code: str, *args: str, crash: str | None = None, cwd: Path | None = None, limit: int | None = None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(Path(__file__).parent)])}
    env.pop("FASHIONRQ_CRASH_AT", None)
    if crash:
        env["FASHIONRQ_CRASH_AT"] = crash
    preexec = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))) if limit else None
    return subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=900, preexec_fn=preexec)


def _cli(*args: str, **kwargs):
    return _python("import sys; from fashionrq.cli import main; main(sys.argv[1:])", *args, **kwargs)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".partial")))


def _t1_run(bench: Path, run: Path, reverse: bool = False) -> Path:
    """A valid T1-only run (candidates in id order), made by hand: scored with --unsealed."""
    run.mkdir()
    lines = []
    for row in map(json.loads, (bench / "public" / "t1_candidates.jsonl").read_text().splitlines()):
        for rank, item in enumerate(sorted(row["candidates"], reverse=reverse), start=1):
            lines.append(f"{row['qid']} Q0 {item} {rank} {-rank} hand")
    (run / "t1.run").write_text("\n".join(lines) + "\n")
    (run / "run.json").write_text(json.dumps({"system": "by-id", "release": release_hash(bench)}))
    return run


# --- the ledger -------------------------------------------------------------------------------------------


def test_a_torn_last_ledger_line_is_reported_then_repaired_by_the_next_commit(small_bench, tmp_path):
    run = _t1_run(small_bench, tmp_path / "run")
    first = commit_run(run, small_bench)
    with open(run / LEDGER, "ab") as handle:  # what an append cut short by a crash leaves
        handle.write(b'{"version":1,"files":{"t1.run":{"sha')
    with pytest.raises(LedgerCorruptError, match="half-written record.*fashionrq commit"):
        check_commitment(run)
    done = _cli("commit", str(run), "--bench", str(small_bench))
    assert done.returncode == 0 and "dropped its half-written last line" in done.stderr.replace("\n", " ")
    records = read_ledger(run)
    assert [r["hash"] for r in records][:1] == [first["hash"]] and len(records) == 2 and records[1]["prev"] == first["hash"]
    assert check_commitment(run) == records[1]
    # an edited (not torn) line is still refused as an edit
    text = (run / LEDGER).read_text().replace('"timestamp":"2', '"timestamp":"1', 1)
    (run / LEDGER).write_text(text)
    with pytest.raises(LedgerCorruptError, match="was edited"):
        read_ledger(run)


@pytest.mark.parametrize("point", ["write:1"])
def test_commit_killed_before_the_rename_leaves_the_old_ledger(small_bench, tmp_path, point):
    run = _t1_run(small_bench, tmp_path / "run")
    first = commit_run(run, small_bench)
    before = (run / LEDGER).read_bytes()
    done = _cli("commit", str(run), "--bench", str(small_bench), crash=point)
    assert done.returncode == KILLED
    assert (run / LEDGER).read_bytes() == before and check_commitment(run) == first
    assert _cli("commit", str(run), "--bench", str(small_bench)).returncode == 0
    assert len(read_ledger(run)) == 2
    assert all(n.startswith(f".{LEDGER}.") for n in _leftovers(run))  # at most the killed commit's temporary file, never read


# --- score ------------------------------------------------------------------------------------------------


@pytest.mark.slow  # 25 s: six `fashionrq score` processes, killed, out of disk and refused; the fast suite stays under 5 minutes with an empty cache
def test_score_killed_or_out_of_disk_leaves_no_scores_json(small_bench, tmp_path):
    run = _t1_run(small_bench, tmp_path / "run")
    commit_run(run, small_bench)
    args = ("score", str(run), "--bench", str(small_bench), "--no-relevance", "--unsealed")
    killed = _cli(*args, crash="write:1")
    assert killed.returncode == KILLED and not (run / "scores.json").exists()
    full = _cli(*args, limit=4_000)  # `ulimit -f`: the file cannot be written whole
    assert full.returncode == 2 and "Traceback" not in full.stderr and "free disk space" in full.stderr.replace("\n", " ")
    assert not (run / "scores.json").exists()
    assert _cli(*args).returncode == 0
    good = (run / "scores.json").read_bytes()
    assert json.loads(good)["isolation"] == {"mechanism": "none", "sealed": False}
    again = _cli(*args, "--force", limit=len(good) // 2)
    assert again.returncode == 2 and (run / "scores.json").read_bytes() == good  # the old file survives intact
    refused = _cli(*args)
    assert refused.returncode == 2 and "already exists" in refused.stderr and "--force" in refused.stderr


# --- the SID and embedding caches -------------------------------------------------------------------------


def test_a_damaged_sid_cache_file_is_named_and_recomputed(fixture_items, tmp_path, capsys):
    from fashionrq.tasks import semantic_ids

    X = np.random.default_rng(0).normal(size=(len(fixture_items), 8)).astype(np.float32)
    sids, config = semantic_ids(fixture_items, X, "rkmeans", 3, 4, 0, {}, tmp_path)
    [path] = (tmp_path / "sids").glob("*.npy")
    path.write_bytes(path.read_bytes()[:100])  # an interrupted write of the old code
    again, _ = semantic_ids(fixture_items, X, "rkmeans", 3, 4, 0, {}, tmp_path)
    assert np.array_equal(again, sids) and str(path) in capsys.readouterr().err.replace("\n", "")
    assert np.array_equal(np.load(path), sids)


EMBED = """
import json, sys
from pathlib import Path
import fashionrq.encoders.cache as cache
from fashionrq.catalog import ingest
from fashionrq.encoders import get_encoder
texts = cache.item_texts(ingest(sys.argv[1]).table)[:48]
encoder, counted = get_encoder("minilm"), []
original = encoder.encode_documents
encoder.encode_documents = lambda chunk: (counted.append(len(chunk)), original(chunk))[1]
cache.EMBED_CHUNK = encoder.batch_size = 16  # a chunk is a whole number of batches
vectors = cache.embed_texts(texts, encoder, kind="document", cache_dir=Path(sys.argv[2]))
import numpy as np
print(json.dumps({"encoded": sum(counted), "same_as_unchunked": bool(np.array_equal(vectors, original(texts)))}))
"""


@pytest.mark.slow  # kills and resumes a real encoding: ~13 s
def test_an_interrupted_embedding_resumes_where_it_stopped(tmp_path):
    killed = _python(EMBED, str(MYNTRA_SMALL), str(tmp_path), crash="embed-chunk:2")
    assert killed.returncode == KILLED
    [parts] = list((tmp_path / "embeddings").rglob("*.parts"))
    assert len(list(parts.glob("*.npy"))) == 2
    done = _python(EMBED, str(MYNTRA_SMALL), str(tmp_path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"encoded": 16, "same_as_unchunked": True}  # only the third chunk was encoded again
    assert not parts.exists() and len(list((tmp_path / "embeddings").rglob("*.npy"))) == 1


# --- build and run ----------------------------------------------------------------------------------------

BUILD = """
import sys
from fashionrq.tasks import BuildConfig, build_release
build_release(BuildConfig(catalog=sys.argv[1], out=sys.argv[2], **{SMALL_BUILD!r}))
""".replace("{SMALL_BUILD!r}", repr(SMALL_BUILD))


@pytest.mark.slow
def test_build_killed_at_several_points_leaves_no_release_and_reruns(tmp_path):
    out = tmp_path / "BENCH"
    for point in ("write:1", "directory:1"):  # mid-way through the release files; complete but not renamed
        killed = _python(BUILD, str(MYNTRA_SMALL), str(out), crash=point)
        assert killed.returncode == KILLED, killed.stderr
        assert not out.exists()
    done = _python(BUILD, str(MYNTRA_SMALL), str(out))
    assert done.returncode == 0, done.stderr
    assert verify_release(out).ok
    refused = _cli("build", "--catalog", str(MYNTRA_SMALL), "--out", str(out))
    assert refused.returncode == 2 and "already exists" in refused.stderr and "--force" in refused.stderr
    (out / "notes.txt").write_text("a user's file")  # --force builds afresh: nothing foreign is hashed
    assert _python(BUILD.replace("**", "force=True, **"), str(MYNTRA_SMALL), str(out)).returncode == 0
    assert "notes.txt" not in json.loads((out / "manifest.json").read_text())["files"] and verify_release(out).ok


@pytest.mark.slow
def test_run_killed_before_the_rename_leaves_no_run_folder(small_bench, tmp_path):
    args = ("run", "--bench", str(small_bench), "--system", "random", "--out", str(tmp_path / "run"))
    killed = _cli(*args, crash="directory:1")
    assert killed.returncode == KILLED and not (tmp_path / "run").exists()
    assert _cli(*args).returncode == 0
    assert json.loads((tmp_path / "run" / "run.json").read_text())["isolation"]["mechanism"] != "none"
    refused = _cli(*args)
    assert refused.returncode == 2 and "already exists" in refused.stderr
    commit_run(tmp_path / "run", small_bench)
    committed = _cli(*args, "--force")
    assert committed.returncode == 14 and "committed run" in committed.stderr


PARTIAL_BUILD = """
import sys
from pathlib import Path
from fashionrq.io import atomic_directory
with atomic_directory(Path(sys.argv[1])) as tmp:
    (tmp / "labels").mkdir()
    (tmp / "labels" / "t1.qrels").write_text("q1 0 i00001 3\\n")
"""


def test_a_crashed_build_leaves_its_labels_only_until_the_next_start(tmp_path):
    """Issue 26: a build killed before the rename left a full release (labels too) in ``.BENCH.*.partial``, where a
    plug-in could read it. It is still left by the crash (the control), and the next build of that folder removes it;
    another live process's half-built folder is kept."""
    out = tmp_path / "BENCH"
    assert _python(PARTIAL_BUILD, str(out), crash="directory:1").returncode == KILLED
    (left,) = _leftovers(tmp_path)
    assert (tmp_path / left / "labels" / "t1.qrels").read_text().startswith("q1")  # the crash left the labels
    live = tmp_path / f".BENCH.{os.getpid()}.abcd1234.partial"
    live.mkdir()
    assert _python(PARTIAL_BUILD, str(out)).returncode == 0
    assert _leftovers(tmp_path) == [live.name] and (out / "labels" / "t1.qrels").is_file()


CONCURRENT_COMMIT = """
import sys, time
from pathlib import Path
from fashionrq.protocol import commitment
read = commitment.read_ledger
def slow_read(*args, **kwargs):  # every committer reads the ledger before any has written: the race, made certain
    records = read(*args, **kwargs)
    time.sleep(1.0)
    return records
commitment.read_ledger = slow_read
if sys.argv[2] == "unlocked":
    import contextlib
    commitment._locked = lambda folder: contextlib.nullcontext()
commitment.commit_run(Path(sys.argv[1]))
"""


@pytest.mark.parametrize("lock", ["locked", "unlocked"])
def test_concurrent_commits_of_one_run_all_land(tmp_path, lock):
    """Issue 26: two concurrent commits both exited 0 and left one record. Under the lock, four commits that all read
    the ledger before any writes leave four chained records; the control without it loses all but one."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "t1.run").write_text("q1 Q0 i00001 1 1.0 hand\n")
    (run / "run.json").write_text(json.dumps({"system": "hand", "release": "0" * 64}))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT_COMMIT, str(run), lock], env=env) for _ in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    assert len(read_ledger(run)) == (4 if lock == "locked" else 1)
