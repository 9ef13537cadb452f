"""Sealed runs: no route from a plug-in reaches BENCH/labels/ (Landlock, else a private mount namespace).

The in-process tests seal a throwaway child over a small folder and try every route at once; the slow
tests run each attack plug-in of tests/sealed_attacks.py through ``fashionrq run`` on a real release,
then commit and score it, and a control run without isolation shows the same attack does steal the labels.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import types
import threading
from pathlib import Path

import pytest

import sealed_attacks
from fashionrq.errors import FashionRQError, UnsealedRunError
from fashionrq.io import process_alive
from fashionrq.protocol.commitment import commit_run
from fashionrq.protocol.scoring import score_run
from fashionrq.release import verify_release
from fashionrq.systems import sandbox, sealed
from fashionrq.systems.sandbox import landlock_abi, plan

SRC = Path(__file__).resolve().parents[1] / "src"
TESTS = Path(__file__).resolve().parent

ROUTES_SCRIPT = textwrap.dedent("""
    import ctypes, json, os, signal, socket, stat, subprocess, sys
    from pathlib import Path
    import pyarrow as pa, pyarrow.csv as csv
    bench, writable, other, port = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    secret = bench / "labels" / "t1.qrels"
    def libc_read():
        fd = ctypes.CDLL(None).open(str(secret).encode(), os.O_RDONLY)
        return os.read(fd, 100).decode() if fd >= 0 else ""
    def raw_disk(path):
        with open(path, "rb") as disk:
            return "secret: %d raw bytes of the disk" % len(disk.read(4096))
    def block_device():
        dev = os.stat(bench).st_dev
        uevent = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/uevent").read_text()
        return "/dev/" + dict(line.split("=", 1) for line in uevent.split())["DEVNAME"]
    def mknod_disk():
        os.mknod(writable / "disk", stat.S_IFBLK | 0o600, os.stat(bench).st_dev)
        return raw_disk(writable / "disk")
    def network():
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"secret over the network")
        return "secret sent"
    deny_list = {  # the release itself: refused by every sealed mechanism
        "open": lambda: secret.read_text(),
        "subprocess": lambda: subprocess.run(["cat", str(secret)], capture_output=True, text=True).stdout,
        "link": lambda: (os.link(secret, writable / "x"), (writable / "x").read_text())[1],
        "pyarrow": lambda: ",".join(csv.read_csv(secret).column_names),
        "memory_map": lambda: pa.memory_map(str(secret)).read().decode(),
        "ctypes": libc_read,
        "dir_fd": lambda: os.read(os.open("t1.qrels", os.O_RDONLY, dir_fd=os.open(bench / "labels", os.O_RDONLY)), 100).decode(),
        "listdir": lambda: ",".join(os.listdir(bench / "labels")),
        "rename": lambda: (os.rename(bench / "labels", writable / "moved"), (writable / "moved" / "t1.qrels").read_text())[1],
        "network": network,
    }
    allow_list = {  # everything else a plug-in could reach: refused by Landlock's allow-list
        "scored_run": lambda: (other / "scores.json").read_text(),
        "partial_build": lambda: (other / ".BENCH.1.x.partial" / "t1.qrels").read_text(),
        "proc_parent_root": lambda: Path(f"/proc/{os.getppid()}/root{other}/scores.json").read_text(),
        "delete_other": lambda: ((other / "victim.txt").unlink(), "secret deleted")[1],
        "write_other": lambda: ((other / "planted.txt").write_text("x"), "secret planted")[1],
        "signal_parent": lambda: (os.kill(os.getppid(), signal.SIGCONT), "secret signal")[1],
        "raw_disk": lambda: raw_disk(block_device()),  # a root child reads the disk the release is on, past any file rule
        "mknod_disk": mknod_disk,
    }
    out = {}
    for group, routes in (("deny_list", deny_list), ("allow_list", allow_list)):
        for name, route in routes.items():
            try:
                out[name] = (group, route())
            except Exception as err:
                out[name] = (group, "refused: " + type(err).__name__)
    (writable / "ok.txt").write_text("written")
    print(json.dumps(out))
""")


#: `auto` seals with Landlock or refuses: the plug-in runs below need it.
needs_landlock = pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock, so `auto` refuses to seal")


def _env(**extra) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(TESTS)]), **extra}


def _listener():
    """A loopback TCP listener (never an outside address) and what it received, gathered in a thread."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(20)
    got: list[bytes] = []

    def accept():
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            got.append(conn.recv(100))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return server, got


def _sealed_routes(tmp_path: Path, mechanism: str) -> tuple[dict, list[bytes]]:
    """Run ROUTES_SCRIPT under the seal ``mechanism`` as fashionrq.systems.sealed plans it; returns the routes' results and
    what the loopback listener received."""
    bench, work, other = tmp_path / "BENCH", tmp_path / "work", tmp_path / "runs"
    for folder in (bench / "labels", work / "out", other / ".BENCH.1.x.partial"):
        folder.mkdir(parents=True)
    for path in (bench / "labels" / "t1.qrels", other / "scores.json", other / ".BENCH.1.x.partial" / "t1.qrels", other / "victim.txt"):
        path.write_text("q1 0 item-secret 3\n")
    server, got = _listener()
    readable, writable = sealed._access(work, tmp_path / "cache")
    seal = plan([*readable, SRC, TESTS], [work / "out"], [bench], 8 << 30)  # FASHIONRQ_SANDBOX=mechanism
    done = subprocess.run([sys.executable, "-c", ROUTES_SCRIPT, str(bench), str(work / "out"), str(other), str(server.getsockname()[1])],
                          capture_output=True, text=True, env=_env(), timeout=120, preexec_fn=seal.apply)
    seal.close()
    server.close()
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), got


@pytest.mark.parametrize("mechanism", ["landlock", "mount-namespace"])
def test_seal_refuses_every_route(tmp_path, mechanism, monkeypatch):
    if mechanism == "landlock" and landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock")
    if mechanism == "mount-namespace" and os.geteuid() != 0:
        pytest.skip("a private mount namespace needs root")
    monkeypatch.setenv(sandbox.ENV, mechanism)
    routes, got = _sealed_routes(tmp_path, mechanism)
    groups = ("deny_list", "allow_list") if mechanism == "landlock" else ("deny_list",)
    leaked = {name: value for name, (group, value) in routes.items() if group in groups and ("secret" in value or "t1.qrels" in value)}
    assert not leaked, leaked
    assert not got  # the loopback listener received nothing
    assert (tmp_path / "work" / "out" / "ok.txt").read_text() == "written"  # the output folder stays writable
    assert (tmp_path / "BENCH" / "labels" / "t1.qrels").read_text() == "q1 0 item-secret 3\n"  # the labels stay where they were
    if mechanism == "landlock":  # the allow-list: no other folder is touched (mount-namespace guarantees less)
        assert (tmp_path / "runs" / "victim.txt").is_file() and not (tmp_path / "runs" / "planted.txt").exists()


def _disk_readable(folder: Path) -> bool:
    """Whether this process can read the block device ``folder`` is on."""
    dev = folder.stat().st_dev
    try:
        uevent = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/uevent").read_text()
        with open("/dev/" + dict(line.split("=", 1) for line in uevent.split())["DEVNAME"], "rb") as disk:
            return bool(disk.read(1))
    except (OSError, KeyError):
        return False


def test_every_route_works_without_the_seal(tmp_path, monkeypatch):
    """Control: unsealed, the same script reads, deletes, plants, signals and sends over the network."""
    monkeypatch.setenv(sandbox.ENV, "none")
    routes, got = _sealed_routes(tmp_path, "none")
    diskless = set() if _disk_readable(tmp_path / "BENCH") else {"raw_disk", "mknod_disk"}  # e.g. no root, a device cgroup
    assert {name for name, (_, value) in routes.items() if "secret" not in value} - diskless == {"listdir"}, routes
    assert routes["listdir"][1] == "t1.qrels"
    assert got == [b"secret over the network"]


def _run(bench: Path, route: str, out: Path, *args: str, labels: Path | None = None, **env) -> subprocess.CompletedProcess:
    """``fashionrq run`` of the attack ``route`` on ``bench``; the plug-in reaches for ``labels`` (default: the release's)."""
    return subprocess.run([sys.executable, "-m", "fashionrq", "run", "--bench", str(bench), "--system", f"sealed_attacks:{route}",
                           "--param", f"bench={labels or bench}", "--out", str(out), *args], capture_output=True, text=True,
                          env=_env(**env), timeout=600)


def _t1_ndcg(bench: Path, run: Path, **kwargs) -> float:
    commit_run(run, bench)
    return score_run(bench, run, relevance=False, **kwargs).report["tasks"]["t1"]["aggregate"]["ndcg@10"]


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("route", [cls.__name__ for cls in sealed_attacks.ROUTES])
def test_no_attack_plugin_reads_the_labels(small_bench, tmp_path, route):
    bench = small_bench
    if route == "RenameLabels":  # would move the shared release's labels if it worked
        bench = tmp_path / "BENCH"
        shutil.copytree(small_bench, bench)
    done = _run(bench, route, tmp_path / "run")
    assert verify_release(bench).ok  # nothing in the release moved or changed
    if done.returncode != 0:
        assert done.returncode == 3 and "Traceback" not in done.stdout + done.stderr, done.stderr
        assert not (tmp_path / "run").exists()
        return
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["isolation"]["mechanism"] in ("landlock", "mount-namespace")
    assert config["config"]["system_config"]["leaked_bytes"] == 0 and config["config"]["system_config"]["errors"]
    assert "item" not in json.dumps(config["config"]["system_config"]["errors"]).lower().replace("items", "")
    assert _t1_ndcg(bench, tmp_path / "run") < 0.9


@pytest.mark.slow
def test_the_attack_works_without_isolation_and_is_refused_then_marked(small_bench, tmp_path):
    """Control: with FASHIONRQ_SANDBOX=none the same plug-in gets a perfect score, so the tests above can fail."""
    done = _run(small_bench, "PyArrowReader", tmp_path / "run", FASHIONRQ_SANDBOX="none")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["isolation"]["mechanism"] == "none" and config["config"]["system_config"]["leaked_bytes"] > 0
    with pytest.raises(UnsealedRunError, match="--unsealed"):
        _t1_ndcg(small_bench, tmp_path / "run")
    assert score_run(small_bench, tmp_path / "run", relevance=False, unsealed=True).report["isolation"] == {"mechanism": "none", "sealed": False}
    assert _t1_ndcg(small_bench, tmp_path / "run", unsealed=True) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def scored_run(small_bench, tmp_path_factory):
    """A committed random run on the small release, scored, with its scores.json written."""
    from fashionrq.protocol.scoring import write_json
    from fashionrq.systems import run_system

    run = tmp_path_factory.mktemp("scored") / "random"
    run_system(small_bench, "random", run)
    commit_run(run, small_bench)
    scored = score_run(small_bench, run, relevance=False)
    write_json(scored.report, run / "scores.json")
    return run, scored


def _truth(bench: Path) -> tuple[dict[str, int], dict[str, str]]:
    grades = {row["pair_id"]: row["label"] for row in map(json.loads, (bench / "labels" / "t2_test.jsonl").read_text().splitlines())}
    targets = {line.split()[0]: line.split()[2] for line in (bench / "labels" / "t3.qrels").read_text().splitlines()
               if line.split()[3] == "3"}
    return grades, targets


@needs_landlock
def test_a_score_file_holds_no_label(small_bench, scored_run):
    """Issue 26: a plug-in reading a scored run's scores.json got every T2 grade and T3 target. The control decodes
    the per-unit values the file used to hold (still in memory) and gets them all; the file itself gives none."""
    run, scored = scored_run
    truth = _truth(small_bench)
    held_before = {"tasks": {task: {"per_unit": scored.per_unit(task)} for task in ("t2", "t3")}}
    assert sealed_attacks.grades_from_scores(held_before, run / "t3.run") == truth  # control: T2 F1 1.0, T3 R@1 1.0
    written = json.loads((run / "scores.json").read_text())
    assert sealed_attacks.grades_from_scores(written, run / "t3.run") == ({}, {})
    text = (run / "scores.json").read_text()
    assert not [key for key in (*truth[0], *truth[1]) if key in text]  # no pair id, no T3 qid: no per-unit entry at all


def _done(run: Path) -> dict:
    return json.loads((run / "run.json").read_text())["config"]["system_config"]


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("copy", ["BENCH.backup", ".BENCH.4242.abcd1234.partial"])
def test_a_copy_of_the_release_elsewhere_is_unreadable(small_bench, tmp_path, copy):
    """Issue 26: a backup copy of the release, or the folder a crashed build leaves, gave 1.000 (the deny-list named
    only BENCH/). The allow-list refuses it; the control (unsealed) reads it and scores 1.0."""
    shutil.copytree(small_bench, tmp_path / copy)
    done = _run(small_bench, "OpenInConfig", tmp_path / "run", labels=tmp_path / copy)
    assert done.returncode == 0, done.stderr
    assert _done(tmp_path / "run")["leaked_bytes"] == 0 and _t1_ndcg(small_bench, tmp_path / "run") < 0.9
    control = _run(small_bench, "OpenInInit", tmp_path / "control", labels=tmp_path / copy, FASHIONRQ_SANDBOX="none")
    assert control.returncode == 0, control.stderr
    assert _t1_ndcg(small_bench, tmp_path / "control", unsealed=True) == pytest.approx(1.0)


def test_the_parent_copies_no_link_and_no_special_file(tmp_path):
    """Issue 26, the confused deputy: a run file made a link to the qrels was copied by the parent (shutil.copyfile
    follows links, the control); read_child_file refuses the link, a linked folder and a FIFO."""
    qrels = tmp_path / "labels" / "t1.qrels"
    qrels.parent.mkdir()
    qrels.write_text("q1 0 i00001 3\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "t1.run").symlink_to(qrels)
    shutil.copyfile(out / "t1.run", tmp_path / "copied")
    assert (tmp_path / "copied").read_text() == qrels.read_text()  # the control: what the parent used to do
    with pytest.raises(FashionRQError, match="link"):
        sealed.read_child_file(out, ("t1.run",))
    (out / "first-stage").symlink_to(qrels.parent)
    with pytest.raises(FashionRQError, match="link"):
        sealed.read_child_file(out, ("first-stage", "t1.qrels"))
    os.mkfifo(out / "t3.run")
    with pytest.raises(FashionRQError, match="special file"):
        sealed.read_child_file(out, ("t3.run",))
    (out / "t4.run").write_bytes(b"x" * 11)
    with pytest.raises(FashionRQError, match="over the limit"):
        sealed.read_child_file(out, ("t4.run",), limit=10)
    assert sealed.read_child_file(out, ("t2.jsonl",)) is None


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("sandbox_env", ["auto", "none"])
def test_a_plugin_linking_its_outputs_to_the_labels_gets_no_run(small_bench, tmp_path, sandbox_env):
    done = _run(small_bench, "SymlinkOutputs", tmp_path / "run", FASHIONRQ_SANDBOX=sandbox_env)
    assert done.returncode == 2 and "link" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_a_forged_result_claims_nothing(small_bench, tmp_path):
    """Issue 26: unsealed, a plug-in wrote its own result.json claiming Landlock and `score` took the run as sealed.
    The parent did read the forged file (its system name is in run.json) and still records what it set up: none."""
    done = _run(small_bench, "ForgedResult", tmp_path / "run", FASHIONRQ_SANDBOX="none")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["system"] == "forged" and config["isolation"]["mechanism"] == "none"
    with pytest.raises(UnsealedRunError):
        _t1_ndcg(small_bench, tmp_path / "run")


@needs_landlock
@pytest.mark.slow
def test_a_plugin_cannot_delete_another_run(small_bench, scored_run, tmp_path):
    victim = tmp_path / "victim"
    shutil.copytree(scored_run[0], victim)
    done = _run(small_bench, "DeleteOtherRun", tmp_path / "run", "--param", f"target={victim}")
    assert done.returncode == 0 and "Error" in str(_done(tmp_path / "run")["errors"]), done.stderr
    assert (victim / "scores.json").is_file() and (victim / "commitments.jsonl").stat().st_size > 0
    control = _run(small_bench, "DeleteOtherRun", tmp_path / "control", "--param", f"target={victim}", FASHIONRQ_SANDBOX="none")
    assert control.returncode == 0 and _done(tmp_path / "control")["done"] == "deleted"
    assert not (victim / "scores.json").exists()


@needs_landlock
@pytest.mark.slow
def test_a_sealed_plugin_writes_only_its_own_folders(small_bench, tmp_path):
    """The shared cache (vectors, photo attributes, digests) is read-only to a sealed run, through its own
    path or the links in the run's cache; the run's own cache folders are its alone and go with it."""
    cache = tmp_path / "cache"
    runs = [_run(small_bench, "PoisonCache", tmp_path / f"run{i}", "--param", f"target={cache}", FASHIONRQ_CACHE=str(cache))
            for i in (1, 2)]
    outcomes = [json.loads(_done(tmp_path / f"run{i}")["done"]) for i in (1, 2)]
    for done, outcome in zip(runs, outcomes):
        assert done.returncode == 0, done.stderr
        assert {outcome[k] for k in ("embeddings", "images", "digests", "via_link")} == {"PermissionError"}, outcome
        assert outcome["own"] == "written" and outcome["seen"] == [], outcome  # the first run's mark went with it
    assert not [p for p in cache.rglob("*poison*")]
    control = _run(small_bench, "PoisonCache", tmp_path / "control", "--param", f"target={cache}", FASHIONRQ_CACHE=str(cache),
                   FASHIONRQ_SANDBOX="none")
    assert control.returncode == 0 and json.loads(_done(tmp_path / "control")["done"])["embeddings"] == "written"


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("sandbox_env", ["auto", "none"])
def test_a_sealed_plugin_reaches_no_listener(small_bench, tmp_path, sandbox_env):
    server, got = _listener()
    done = _run(small_bench, "Network", tmp_path / "run", "--param", f"port={server.getsockname()[1]}", FASHIONRQ_SANDBOX=sandbox_env)
    server.close()
    assert done.returncode == 0, done.stderr
    assert got == ([] if sandbox_env == "auto" else [b"labels over the network"])  # the control receives it


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("sandbox_env", ["auto", "none"])
def test_a_sealed_plugin_cannot_kill_its_parent(small_bench, tmp_path, sandbox_env):
    if sandbox_env == "auto" and landlock_abi() < 6:
        pytest.skip("Landlock scopes signals from ABI 6 on")
    done = _run(small_bench, "KillParent", tmp_path / "run", FASHIONRQ_SANDBOX=sandbox_env)
    if sandbox_env == "auto":
        assert done.returncode == 0 and _done(tmp_path / "run")["done"] == "", done.stderr
        return
    assert done.returncode == -9  # the control: killed, its sealed temp folder left behind ...
    pids = {p: p.name.split("-")[2] for p in Path(tempfile.gettempdir()).glob(f"{sealed.WORK_PREFIX}*-*")}
    left = [p for p, pid in pids.items() if pid.isdigit() and not process_alive(int(pid))]
    assert left
    assert _run(small_bench, "OpenInInit", tmp_path / "next").returncode == 0
    assert not any(p.exists() for p in left)  # ... and removed by the next run


@needs_landlock
@pytest.mark.slow
@pytest.mark.parametrize("sandbox_env", ["auto", "none"])
def test_no_process_of_a_sealed_run_outlives_it(small_bench, tmp_path, sandbox_env):
    if sandbox_env == "auto" and not sandbox._network_flags(False)[0]:
        pytest.skip("no network namespace here: a daemon that leaves the process group is not found")
    done = _run(small_bench, "Daemon", tmp_path / "run", FASHIONRQ_SANDBOX=sandbox_env)
    assert done.returncode == 0, done.stderr
    pid = int(_done(tmp_path / "run")["done"])
    alive = process_alive(pid) and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    if alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == (sandbox_env == "none")  # the control's daemon, in a session of its own, outlived the run


@needs_landlock
@pytest.mark.slow
def test_time_and_memory_limits_stop_a_run(small_bench, tmp_path):
    slept = _run(small_bench, "Sleeper", tmp_path / "slept", "--param", "seconds=600", "--time-limit", "20")
    assert slept.returncode == 2 and "wall-clock limit of 20 s" in slept.stderr and not (tmp_path / "slept").exists(), slept.stderr
    hog = _run(small_bench, "Hog", tmp_path / "hog", "--param", "gib=3", "--memory-limit", "2.5")
    assert hog.returncode == 0 and "MemoryError" in str(_done(tmp_path / "hog")["errors"]), hog.stderr
    control = _run(small_bench, "Hog", tmp_path / "control", "--param", "gib=3", "--memory-limit", "8")
    assert control.returncode == 0 and _done(tmp_path / "control")["done"] == "allocated 3 GiB"


@needs_landlock
@pytest.mark.slow
def test_the_memory_limit_holds_for_all_processes_of_a_run_together(small_bench, tmp_path):
    """RLIMIT_AS bounds each process: four forked processes filling 1.25 GiB each fit a 4 GiB limit one by one (the
    sealed interpreter reserves about 2.3 GiB of address space). The parent's watch of the memory they hold together
    kills the run; the control, under 8 GiB, holds all four."""
    tree = _run(small_bench, "ForkHog", tmp_path / "tree", "--param", "gib=1.25", "--param", "seconds=20", "--memory-limit", "4")
    assert tree.returncode == 2 and "memory limit of 4 GiB" in tree.stderr and not (tmp_path / "tree").exists(), tree.stderr
    control = _run(small_bench, "ForkHog", tmp_path / "control", "--param", "gib=1.25", "--param", "seconds=2", "--memory-limit", "8")
    assert control.returncode == 0, control.stderr
    assert _done(tmp_path / "control")["done"] == "4 processes held 1.25 GiB each; exit codes [0, 0, 0, 0]"


def test_a_cache_path_that_is_a_file_is_one_sentence(small_bench, tmp_path, monkeypatch, capsys):
    """Issue 26: FASHIONRQ_CACHE pointing at a file ended in a traceback."""
    from conftest import main_code

    (tmp_path / "cache").write_text("not a folder")
    monkeypatch.setenv("FASHIONRQ_CACHE", str(tmp_path / "cache"))
    assert main_code(["run", "--bench", str(small_bench), "--system", "random", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and "Traceback" not in err


def test_a_release_on_the_import_path_is_refused_before_the_run(small_bench, tmp_path):
    """The folders Python imports from are readable to a sealed run, so `python -m fashionrq` started beside the
    release (its working folder is on the import path) is refused, naming both, rather than run with the release
    readable."""
    shutil.copytree(small_bench, tmp_path / "BENCH")
    done = subprocess.run([sys.executable, "-m", "fashionrq", "run", "--bench", "BENCH", "--system", "random", "--out", "run"],
                          capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "lies inside" in done.stderr and not (tmp_path / "run").exists()


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="a private mount namespace needs root")
def test_the_weaker_mount_namespace_seal_is_asked_for_recorded_and_shown(small_bench, tmp_path):
    done = _run(small_bench, "OpenInInit", tmp_path / "run", FASHIONRQ_SANDBOX="mount-namespace")
    assert done.returncode == 0, done.stderr
    isolation = json.loads((tmp_path / "run" / "run.json").read_text())["isolation"]
    assert isolation["mechanism"] == "mount-namespace" and isolation["allow_list"] is False
    commit_run(tmp_path / "run", small_bench)
    scored = subprocess.run([sys.executable, "-m", "fashionrq", "score", str(tmp_path / "run"), "--bench", str(small_bench), "--no-relevance"],
                            capture_output=True, text=True, env=_env(), timeout=300)
    assert scored.returncode == 0 and "weaker seal" in scored.stdout + scored.stderr, scored.stderr


KERNELS_SCRIPT = textwrap.dedent("""
    import numba
    import numpy as np
    from fashionrq.encoders.minilm_int8 import MiniLMInt8Encoder
    from fashionrq.ieee import exp_array, log_array
    from fashionrq.systems.t2 import GradeCalibrator
    vector = MiniLMInt8Encoder(threads=1).encode_documents(["red cotton kurta for women"])
    print(exp_array(np.array([0.0]))[0], log_array(np.array([1.0]))[0])
    features = np.arange(24, dtype=np.float64).reshape(12, 2) % 5
    print(GradeCalibrator().fit(features, np.arange(12) % 4).predict(features)[0])
    print(numba.config.CACHE_DIR, vector.shape)
""")


def test_a_sealed_run_loads_the_kernels_compiled_beside_the_encoder_ieee_and_the_calibrator(tmp_path, monkeypatch):
    """A sealed child cannot write beside minilm_int8.py, ieee.py or logistic.py, where numba caches; it loads the
    kernels compiled there by an unsealed process from a copy in its temporary folder instead of compiling them again
    (about 3.5 s of CPU for the encoder's, 6 s for the T2 calibrator's, which every sealed run had compiled again)."""
    if landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock")
    monkeypatch.setenv(sandbox.ENV, "landlock")
    unsealed = subprocess.run([sys.executable, "-c", KERNELS_SCRIPT], capture_output=True, text=True, env=_env(), timeout=300)
    assert unsealed.returncode == 0, unsealed.stderr  # compiles and caches beside the module, or finds them there
    work = tmp_path / "work"
    for folder in (work / "out", work / "tmp"):
        folder.mkdir(parents=True)
    readable, _ = sealed._access(work, tmp_path / "cache")
    seal = plan([*readable, SRC, TESTS], [work / "tmp"], [], 8 << 30)
    done = subprocess.run([sys.executable, "-c", KERNELS_SCRIPT], capture_output=True, text=True, timeout=300,
                          env=_env(TMPDIR=str(work / "tmp"), NUMBA_DEBUG_CACHE="1"), preexec_fn=seal.apply)
    seal.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(str(work / "tmp" / "fashionrq-numba-")), done.stdout[-500:]  # a copy under TMPDIR
    loaded = [line for line in done.stdout.splitlines() if line.startswith("[cache] data loaded")]
    compiled = [line for line in done.stdout.splitlines() if line.startswith("[cache] data saved")]
    assert loaded and not compiled, done.stdout[-2000:]
    assert {"minilm_int8", "ieee", "logistic"} <= {Path(line.split()[-1]).name.split(".")[0] for line in loaded}, loaded
    assert not list((work / "tmp").iterdir())  # the copy is removed when the process ends


def test_a_kernel_written_outside_a_module_file_is_compiled_in_memory():
    """:func:`fashionrq.ieee.kernel` looks for the compiled copies beside its function's module; a kernel written in a
    notebook or by ``python -c`` has no module file (kernel had raised AttributeError there) and is compiled in
    memory, as numba caches it nowhere."""
    cell = types.ModuleType("notebook_cell")
    sys.modules[cell.__name__] = cell
    try:
        exec("from fashionrq.ieee import kernel\n@kernel\ndef add_one(x):\n    return x + 1.0\n", cell.__dict__)
        assert cell.add_one(1.0) == 2.0
    finally:
        del sys.modules[cell.__name__]


def test_the_memory_watch_reads_the_costly_pss_only_when_the_resident_sum_is_over_the_limit(monkeypatch):
    """A process's Pss never exceeds its Rss, so the watch sums the cheap Rss first: under the limit it is done; over
    it, the Pss decides. Checked on two real processes (this one and a forked copy, which share most pages)."""
    from fashionrq.systems import sealed

    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the copy waits until the test has measured it
        os.close(writer)
        os.read(reader, 1)
        os._exit(0)
    try:
        pids = [os.getpid(), child]
        rss, pss = sealed._statm_resident_bytes(pids), sealed._proportional_bytes(pids)
        assert 0 < pss < rss  # the two share their pages, which Pss counts once
        walks = []
        monkeypatch.setattr(sealed, "_proportional_bytes", lambda p: walks.append(p) or pss)
        assert not sealed._holds_more_than(pids, 2 * rss) and walks == []
        assert not sealed._holds_more_than(pids, (rss + pss) / 2) and walks == [pids]
        assert sealed._holds_more_than(pids, pss - (1 << 20))
    finally:
        os.close(writer)
        os.waitpid(child, 0)
