#!/usr/bin/env bash
# Install llama-cpp-python's OpenAI-compatible server, used by tests/llm to test the `openai`
# backend against a real server. Usage: tools/install_llama_cpp_server.sh [PIP]
#
# It compiles llama.cpp from source (~20 min on 2 cores; pip caches the built wheel). The
# default native build uses AMX instructions and dies with SIGILL on CPUs without them, so
# it is built portable: AVX2/FMA/F16C on, AMX and host-native tuning off.
set -euo pipefail
PIP="${1:-pip}"
PYTHON="$(dirname "$(command -v "$PIP")")/python"
[ -x "$PYTHON" ] || PYTHON=python

if "$PYTHON" -c "import llama_cpp.server" 2>/dev/null; then
    echo "llama_cpp.server already importable with $PYTHON; nothing to do"
    exit 0
fi

CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF" \
    "$PIP" install 'llama-cpp-python[server]==0.3.36'
"$PYTHON" -c "import llama_cpp.server"
