#!/usr/bin/env bash
# Installs the workflow and what its tests need, then runs every test. `.ci/run` calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install.sh
.venv/bin/python -m pip --disable-pip-version-check -q install -r requirements-test.txt
# The real OpenAI-compatible server the `openai` backend is tested against (compiles once, ~20 min).
bash tools/install_llama_cpp_server.sh .venv/bin/pip
# The headless browser the report is opened in (tests/workflow/test_beir_build.py).
bash tools/install_chromium.sh
# style: the rules with snakefmt, the Python with ruff (both configured in pyproject.toml)
.venv/bin/snakefmt --check Snakefile rules/
.venv/bin/ruff check .
# two processes, each test file whole in one of them (its module fixtures, such as a shared build, built once)
.venv/bin/python -m pytest -n 2 --dist loadfile "$@"
