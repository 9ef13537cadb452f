"""Plug-ins that try to read BENCH/labels/ by every route the issue lists; loaded as "sealed_attacks:<Class>".

Each is a working retriever: when a route yields the labels it ranks by the stolen grades (a perfect T1
score); when the route is refused it records the error and ranks by nothing. ``config()`` reports what it got.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from fashionrq.systems import BaseRetriever


class Attack(BaseRetriever):
    """Steals ``BENCH/labels/t1.qrels`` in ``fit`` (or where ``when`` says) by :meth:`steal`."""

    name = "attack"
    when = "fit"

    def __init__(self, bench: str = "") -> None:
        self.bench = Path(bench)
        self.stolen = ""
        self.errors: list[str] = []
        if self.when == "init":
            self._attempt()

    def steal(self) -> str:
        raise NotImplementedError

    def _attempt(self) -> None:
        try:
            self.stolen = self.steal()
        except Exception as err:  # a refused route is the expected outcome
            self.errors.append(f"{type(err).__name__}: {err}"[:200])

    def fit(self, items):
        if self.when == "fit":
            self._attempt()
        grades = {}
        for line in self.stolen.splitlines():
            qid, _, item, grade = line.split()
            grades[(qid, item)] = int(grade)
        text_qids: dict[str, list[str]] = {}
        for row in map(json.loads, Path("public/t1_queries.jsonl").read_text().splitlines()):
            text_qids.setdefault(row["text"], []).append(row["qid"])
        self.grades, self.text_qids, self.ids = grades, text_qids, items.column("item_id").to_pylist()
        return self

    def score(self, query, candidate_rows):
        qids = self.text_qids.get(query, [])
        return np.array([max([self.grades.get((q, self.ids[r]), 0) for q in qids], default=0) for r in candidate_rows],
                        dtype=np.float64)

    def config(self) -> dict:
        if self.when == "config":
            self._attempt()
        return {"route": type(self).__name__, "leaked_bytes": len(self.stolen), "errors": self.errors}

    @property
    def qrels(self) -> Path:
        return self.bench / "labels" / "t1.qrels"


class OpenInInit(Attack):
    when = "init"

    def steal(self) -> str:
        return self.qrels.read_text()


class OpenInConfig(Attack):
    when = "config"

    def steal(self) -> str:
        return self.qrels.read_text()


class Subprocess(Attack):
    def steal(self) -> str:
        return subprocess.run(["cat", str(self.qrels)], capture_output=True, text=True, check=True).stdout


class HardLink(Attack):
    def steal(self) -> str:
        copy = Path(tempfile.mkdtemp()) / "stolen.qrels"
        os.link(self.qrels, copy)
        return copy.read_text()


class PyArrowReader(Attack):
    def steal(self) -> str:
        import pyarrow.csv as csv

        table = csv.read_csv(self.qrels, read_options=csv.ReadOptions(column_names=["q", "z", "i", "g"]),
                             parse_options=csv.ParseOptions(delimiter=" "))
        return "\n".join(" ".join(map(str, row.values())) for row in table.to_pylist())


class MemoryMap(Attack):
    def steal(self) -> str:
        import pyarrow as pa

        return pa.memory_map(str(self.qrels)).read().decode()


class CtypesOpen(Attack):
    def steal(self) -> str:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.open(str(self.qrels).encode(), os.O_RDONLY)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "libc open refused")
        chunks, buffer = [], ctypes.create_string_buffer(1 << 16)
        while (n := libc.read(fd, buffer, len(buffer))) > 0:
            chunks.append(buffer.raw[:n])
        libc.close(fd)
        return b"".join(chunks).decode()


class DirFd(Attack):
    def steal(self) -> str:
        folder = os.open(self.bench / "labels", os.O_RDONLY | os.O_DIRECTORY)
        fd = os.open("t1.qrels", os.O_RDONLY, dir_fd=folder)
        with os.fdopen(fd) as handle:
            return handle.read()


class RenameLabels(Attack):
    def steal(self) -> str:
        moved = self.bench / "public" / "moved-labels"
        os.rename(self.bench / "labels", moved)
        return (moved / "t1.qrels").read_text()


class ProcParentRoot(Attack):
    """Through the parent's root as /proc shows it (the mount-namespace fallback did not hide that one)."""

    def steal(self) -> str:
        return Path(f"/proc/{os.getppid()}/root{self.qrels.resolve()}").read_text()


ROUTES = [OpenInInit, OpenInConfig, Subprocess, HardLink, PyArrowReader, MemoryMap, CtypesOpen, DirFd, RenameLabels, ProcParentRoot]


class SideEffect(Attack):
    """An attack whose harm is not reading: ``act`` runs in ``fit`` and reports what it did in ``config()["done"]``."""

    def __init__(self, bench: str = "", target: str = "", port: int = 0, seconds: float = 0, gib: float = 0) -> None:
        self.target, self.port, self.seconds, self.gib, self.done = Path(target), port, seconds, gib, ""
        super().__init__(bench)

    def steal(self) -> str:
        self.done = self.act()
        return ""

    def act(self) -> str:
        raise NotImplementedError

    def config(self) -> dict:
        return {**super().config(), "done": self.done}


class DeleteOtherRun(SideEffect):
    """Deletes another committed run's scores.json and empties its ledger."""

    def act(self) -> str:
        (self.target / "scores.json").unlink()
        (self.target / "commitments.jsonl").write_text("")
        return "deleted"


class PoisonCache(SideEffect):
    """Writes into the shared cache folders (``target``: the parent's ``FASHIONRQ_CACHE``) and into its own cache, and
    reports which writes landed and whether an earlier run's mark is in its own cache."""

    def act(self) -> str:
        own = Path(os.environ["FASHIONRQ_CACHE"])
        seen = sorted(p.name for p in (own / "indexes").glob("mark-*"))
        outcome = {"seen": seen}
        for name, path in (("embeddings", self.target / "embeddings" / "poison.npy"),
                           ("images", self.target / "images" / "poison.parquet"), ("digests", self.target / "digests" / "poison.sha256"),
                           ("via_link", own / "embeddings" / "poison-link.npy"), ("own", own / "indexes" / f"mark-{os.getpid()}")):
            try:
                path.write_bytes(b"poison")
                outcome[name] = "written"
            except OSError as err:
                outcome[name] = type(err).__name__
        return json.dumps(outcome, sort_keys=True)


class Network(SideEffect):
    """Sends data to a loopback listener of the test (never an outside address)."""

    def act(self) -> str:
        import socket

        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.sendall(b"labels over the network")
        return "sent"


class KillParent(SideEffect):
    def act(self) -> str:
        import signal

        os.kill(os.getppid(), signal.SIGKILL)
        return "killed"


class Daemon(SideEffect):
    """Starts a process in a session of its own, out of the child's process group, meant to outlive the run."""

    def act(self) -> str:
        return str(subprocess.Popen(["sleep", "600"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)


class Sleeper(SideEffect):
    def act(self) -> str:
        import time

        time.sleep(self.seconds)
        return "slept"


class Hog(SideEffect):
    """Reserves ``gib`` GiB of address space (untouched, so the control costs no memory)."""

    def act(self) -> str:
        self.block = np.empty(int(self.gib * (1 << 30)), dtype=np.uint8)
        return f"allocated {self.gib} GiB"


class ForkHog(SideEffect):
    """Forks four processes that each fill ``gib`` GiB for ``seconds``: each stays under the per-process address-space
    limit, together they hold more than the memory limit."""

    def act(self) -> str:
        pids = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                try:
                    block = np.ones(int(self.gib * (1 << 30)), dtype=np.uint8)
                    time.sleep(self.seconds)
                    os._exit(int(block[0]) - 1)
                finally:
                    os._exit(1)
            pids.append(pid)
        codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
        return f"{len(pids)} processes held {self.gib:g} GiB each; exit codes {codes}"


class SymlinkOutputs(SideEffect):
    """The confused deputy: after writing its runs, replaces t1.run with a link to the qrels for the parent to copy."""

    def config(self) -> dict:
        out = Path("out/t1.run")
        out.unlink()
        out.symlink_to(self.qrels)
        return super().config()

    def act(self) -> str:
        return "linked"


class ForgedResult(SideEffect):
    """Writes its own result.json claiming Landlock and exits before the child writes the real one."""

    def config(self) -> dict:
        record = {"system": "forged", "config": {}, "release": "", "isolation": {"mechanism": "landlock", "landlock_abi": 7}}
        Path("out/result.json").write_text(json.dumps({"runs": {"": record}, "isolation": record["isolation"]}))
        os._exit(0)

    def act(self) -> str:
        return "forged"


def grades_from_scores(scores: dict, t3_run: Path) -> tuple[dict[str, int], dict[str, str]]:
    """What a plug-in learns from a scored run's ``scores.json`` (and that run's ``t3.run``): every T2 test pair's true
    grade and every T3 query's target (the item at rank 1 / mrr); empty when the file holds no per-unit value."""
    tasks = scores.get("tasks", {})
    grades = {pair: int(row["label"]) for pair, row in tasks.get("t2", {}).get("per_unit", {}).items()}
    mrr = {qid: row["mrr"] for qid, row in tasks.get("t3", {}).get("per_unit", {}).items()}
    targets = {}
    for line in t3_run.read_text().splitlines():
        qid, _, item, rank, _, _ = line.split()
        if mrr.get(qid) and round(1 / mrr[qid]) == int(rank):
            targets[qid] = item
    return grades, targets
