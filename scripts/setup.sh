#!/usr/bin/env bash
# Create .venv and install fashionrq: `bash scripts/setup.sh` installs what the CLI and the demo need,
# `bash scripts/setup.sh test` adds the test extras (pytest, the parity references, the server's). torch is pinned
# to the CPU build 2.13.0 (constraints.txt) and installed first, so nothing later can pull a multi-GB CUDA build.
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
# --no-compile: a module is byte-compiled when first imported (below), not every file of every package now
.venv/bin/python -m pip install -q --no-compile -c constraints.txt torch==2.13.0
.venv/bin/python -m pip install -q --no-compile -c constraints.txt -e ".$extras"
# Bytecode for what fashionrq's processes load, written once here: every worker and sealed child then reads it
# instead of compiling its imports again (about 3.5 s of CPU each), also where PYTHONDONTWRITEBYTECODE is set, as
# in many containers (Python still reads bytecode then; a sealed child could not write it anyway)
PYTHONDONTWRITEBYTECODE= .venv/bin/python -c "import fashionrq.report.demo, fashionrq.protocol.probe, \
fashionrq.systems.probes, fashionrq.systems.run, fashionrq.encoders.minilm_int8, fashionrq.tasks.release, \
fashionrq.cli.commands, onnxruntime, onnx, tokenizers, safetensors.numpy"
echo "$want ${extras:-[]}" > "$stamp"
