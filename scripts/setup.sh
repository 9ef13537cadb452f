#!/usr/bin/env bash
# Create .venv and install fashionrq with its test extras. torch is pinned to the CPU build 2.13.0
# (constraints.txt) and installed first, so nothing later can pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -c constraints.txt torch==2.13.0
.venv/bin/python -m pip install -q -c constraints.txt -e ".[test]"
