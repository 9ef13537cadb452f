#!/usr/bin/env bash
# Create .venv and install fashionrq: `bash scripts/setup.sh` installs what the CLI and the demo need,
# `bash scripts/setup.sh test` adds the test extras (pytest, the parity references, the server's). torch is pinned
# to the CPU build 2.13.0 (constraints.txt) and installed first, so nothing later can pull a multi-GB CUDA build.
# uv installs (installed into .venv by pip, reading pip's configuration), pip where uv cannot.
# A rerun returns at once when nothing changed: .venv/.fashionrq-setup holds the hash of pyproject.toml,
# constraints.txt and this script as last installed, with the extras installed then (the test set-up covers the
# plain one), and the venv must still import this clone's fashionrq.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
    "") extras="" ;;
    test) extras="[test]" ;;
    *) echo "usage: bash scripts/setup.sh [test]  ('$1' is not an option: 'test' adds the test extras)" >&2; exit 2 ;;
esac
stamp=.venv/.fashionrq-setup
want=$(cat pyproject.toml constraints.txt scripts/setup.sh | sha256sum | cut -d' ' -f1)
read -r had had_extras 2>/dev/null < "$stamp" || true
if [ -x .venv/bin/python ] && [ "${had:-}" = "$want" ] && { [ "${had_extras:-}" = "[test]" ] || [ -z "$extras" ]; } \
    && .venv/bin/python -c "import sys, fashionrq; sys.exit(not fashionrq.__file__.startswith(sys.argv[1]))" "$PWD/src/" 2>/dev/null; then
    exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
rm -f "$stamp"
# The installer: uv, with pip's own configuration (its find-links, indexes and constraints, so the CPU wheel of
# torch is found where pip finds it) and pip's choice among indexes (the best version anywhere); it installs the
# same packages as pip in a fifth of the time. pip itself where uv cannot be installed or fails.
# --no-compile: a module is byte-compiled when first imported (below), not every file of every package now.
uv_options() {
    .venv/bin/python - <<'PY'
import subprocess, sys
flags = {"find-links": "--find-links", "extra-index-url": "--extra-index-url", "index-url": "--index-url", "constraint": "-c"}
listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
pairs = []
for line in listed.splitlines():
    key, _, value = line.partition("=")
    flag = flags.get(key.rpartition(".")[2])
    for item in value.strip("'\"").split() if flag else ():
        if (flag, item) not in pairs:
            pairs.append((flag, item))
print(" ".join(f"{flag} {item}" for flag, item in pairs))
PY
}
install() {
    if { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q uv 2>/dev/null; } && \
        .venv/bin/uv pip install -q --python .venv/bin/python --index-strategy unsafe-best-match ${uv_flags:=$(uv_options)} "$@"; then
        return
    fi
    echo "setup: uv could not install $*; installing with pip" >&2
    .venv/bin/python -m pip install -q --no-compile "$@"
}
install -c constraints.txt torch==2.13.0
install -c constraints.txt -e ".$extras"
# Bytecode and compiled kernels for what fashionrq's processes load, written once here: every worker and sealed
# child then reads them instead of compiling again (bytecode: about 3.5 s of CPU a process; the numba kernels of the
# encoder, the T2 calibrator and the bootstrap: about 15 s in each of the first processes of a fresh clone), also
# where PYTHONDONTWRITEBYTECODE is set, as in many containers (Python still reads bytecode then; a sealed child
# could not write it anyway)
PYTHONDONTWRITEBYTECODE= .venv/bin/python - <<'PY'
import numpy as np
import fashionrq.cli.commands, fashionrq.protocol.probe, fashionrq.report.demo, fashionrq.systems.probes, fashionrq.systems.run
import fashionrq.tasks.release, onnx, onnxruntime, safetensors.numpy, tokenizers
from fashionrq.encoders.minilm_int8 import MiniLMInt8Encoder
from fashionrq.protocol.bootstrap import resample_counts, weighted
from fashionrq.systems.t2 import GradeCalibrator
MiniLMInt8Encoder(threads=1).encode_documents(["red cotton kurta for women"])
features = np.arange(24, dtype=np.float64).reshape(12, 2) % 5
GradeCalibrator().fit(features, np.arange(12) % 4).predict(features)
weighted(resample_counts(3, 2, 0), np.ones((3, 1)))
PY
echo "$want ${extras:-[]}" > "$stamp"
