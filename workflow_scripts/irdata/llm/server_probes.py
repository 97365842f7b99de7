"""What one OpenAI-compatible server can do, learnt once per job with probe requests.

- its tokenizer endpoint (vLLM's /tokenize, llama-cpp-python's /extras/tokenize) and the BOS it
  puts before a text, so token ids can be checked (the BOS of llama-cpp-python's answers is
  stripped: it would make every digit two tokens and turn logit_bias off);
- for each set of grade choices, the constraint that holds (llm.grade_constraint): a probe
  request whose answer shows whether structured outputs or logit_bias are honoured;
- how llm.loglikelihood_bos is applied to its prompts.

Each is an `Once`: found by one request at a time however many calls wait, kept when found,
tried again when the probe failed for a transient reason (never remembered as "unsupported").
Only a refusal is a negative: an answer 400, 404 or 422 (REFUSALS), a field ignored, no endpoint,
a choice of two tokens; it is kept and logged. A 429, 5xx or timeout during a probe is retried like
any request and, when the retries run out, fails the call that waited on it with that retryable
kind, in every mode: never "no structured outputs", never `unsupported_model`.
"""

from __future__ import annotations

import json
import logging
import os

from .backend import Once
from .results import RequestFailed
from .settings import LLMSettings

log = logging.getLogger(__name__)

# A probe of a grade constraint: choices no unconstrained model would write.
_PROBE_MESSAGES = [{"role": "user", "content": "Say one word."}]
_PROBE_CHOICES = ["~@~", "#^#"]
# Answers that refuse a field (vLLM: 400 or 422 for an unknown or unsupported field; 404 where a
# route is missing). 401/403 are the key (preflight.py), 429/5xx transient.
REFUSALS = frozenset({"http_400", "http_404", "http_422"})


class ServerProbes:
    def __init__(self, settings: LLMSettings, pool, decoding: dict):
        self.s = settings
        self.pool = pool
        self._decoding = decoding
        self._tokenizer = Once(self._probe_tokenizer)
        self._constraints: dict[tuple, Once] = {}
        self.bos = Once(self._bos_plan)

    def constraint(self, choices: tuple) -> Once:
        """The Once of the (path, detail) of grades with these choices."""
        once = self._constraints.get(choices)
        if once is None:
            once = self._constraints[choices] = Once(lambda: self._resolve_constraint(choices))
        return once

    async def _probe_tokenizer(self) -> dict | None:
        """The server's tokenizer endpoint and the tokens it puts before a text (its BOS), or None
        when it has no tokenizer endpoint. Transient failures raise (and are retried later)."""
        for path, body in (("/tokenize", {"model": self.s.model, "prompt": "", "add_special_tokens": True}),
                           ("/extras/tokenize", {"input": ""})):
            status, content = await self.pool.post_raw(path, body)
            if status == 200:
                try:
                    bos = [int(t) for t in json.loads(content)["tokens"]]
                except (ValueError, KeyError, TypeError):
                    continue
                return {"endpoint": path, "bos_ids": bos}
        return None

    async def tokenize(self, text: str) -> list[int] | None:
        """Token ids of `text` without BOS, as the server tokenizes it (special tokens parsed);
        None when the server has no tokenizer endpoint."""
        try:
            info = await self._tokenizer.get()
            if info is None:
                return None
            if info["endpoint"] == "/tokenize":
                body = {"model": self.s.model, "prompt": text, "add_special_tokens": False}
            else:
                body = {"input": text}
            status, content = await self.pool.post_raw(info["endpoint"], body)
        except RequestFailed as e:
            raise RequestFailed(f"the server's tokenizer endpoint failed: {e}", "tokenizer", e.attempts) from e
        if status != 200:
            raise RequestFailed(f"tokenizing {text[:20]!r} on {info['endpoint']} gave HTTP {status}", "tokenizer")
        ids = [int(t) for t in json.loads(content)["tokens"]]
        bos = info["bos_ids"]
        if info["endpoint"] == "/extras/tokenize" and bos and ids[:len(bos)] == bos:
            ids = ids[len(bos):]  # llama-cpp-python always adds the model's BOS there
        return ids

    async def _probe_reply(self, fields: dict) -> tuple[str, str | None]:
        """(the reply to a probe request, the kind of a refusal or None). Transient failures raise: a
        loaded server is not one without the feature, and the probe is tried again later."""
        try:
            data = await self.pool.post("chat", fields, _PROBE_MESSAGES)
        except RequestFailed as e:
            if e.kind in REFUSALS:
                return "", e.kind
            raise
        return (data["choices"][0].get("message") or {}).get("content") or "", None

    async def _structured_works(self, field: str) -> tuple[bool, str]:
        fields = {**self._decoding, "max_tokens": 8,
                  field: {"choice": _PROBE_CHOICES} if field == "structured_outputs" else _PROBE_CHOICES}
        reply, refused = await self._probe_reply(fields)
        if refused:
            return False, f"`{field}` refused ({refused})"
        if reply.strip() in _PROBE_CHOICES:
            return True, ""
        return False, f"`{field}` ignored (probe reply {reply[:30]!r})"

    async def _logit_bias(self, choices: tuple) -> tuple[dict | None, str]:
        bias = {}
        for c in choices:
            ids = await self.tokenize(c)
            if ids is None:
                return None, "no tokenizer endpoint (/tokenize, /extras/tokenize) to find the choices' token ids"
            if len(ids) != 1:
                return None, f"choice {c!r} is {len(ids)} tokens ({ids}) for this model"
            bias[str(ids[0])] = 100
        fields = {**self._decoding, "max_tokens": 1, "logit_bias": bias}
        reply, refused = await self._probe_reply(fields)
        if refused:
            return None, f"logit_bias refused ({refused})"
        if reply.strip() not in choices:
            return None, f"logit_bias ignored (probe reply {reply[:30]!r})"
        return bias, ""

    async def _resolve_constraint(self, choices: tuple) -> tuple[str, dict]:
        """(path, detail) of the grades with these choices: the constraint a probe showed to work."""
        mode = self.s.grade_constraint
        if mode == "none":
            return "parsed", {"reason": "llm.grade_constraint: none"}
        reasons = []
        if mode in ("auto", "structured_outputs"):
            for field in ("structured_outputs", "guided_choice"):
                works, why = await self._structured_works(field)
                if works:
                    log.info("grades on %s: constrained by structured outputs (`%s`)", self.pool.urls[0], field)
                    return "structured_outputs", {"field": field}
                reasons.append(why)
            if mode == "structured_outputs":
                raise RequestFailed("llm.grade_constraint is structured_outputs, but the server supports neither "
                                    f"field: {'; '.join(reasons)}", "unsupported_model")
        if mode in ("auto", "logit_bias"):
            bias, why = await self._logit_bias(choices)
            if bias:
                log.info("grades on %s: constrained by logit_bias on token ids %s", self.pool.urls[0], sorted(bias))
                return "logit_bias", {"bias": bias}
            reasons.append(why)
            if mode == "logit_bias":
                raise RequestFailed(f"llm.grade_constraint is logit_bias, but {why}", "unsupported_model")
        log.warning("grades on %s are NOT constrained (%s): free replies are parsed by the grade grammar",
                    self.pool.urls[0], "; ".join(reasons))
        return "parsed", {"reason": "; ".join(reasons)}

    async def _bos_plan(self) -> tuple[str, dict, bool | None]:
        """(text put before the prompt, extra payload fields, whether a BOS starts the prompt
        (None: as the server's tokenizer decides)) for llm.loglikelihood_bos."""
        rule = self.s.loglikelihood_bos
        if rule == "auto":
            return "", {}, None  # the server applies its tokenizer's default: the rule itself
        info = await self._tokenizer.get()
        if info is None:
            raise RequestFailed(f"llm.loglikelihood_bos: {rule} needs the server's tokenizer endpoint (/tokenize or "
                                "/extras/tokenize) to tell whether it adds BOS itself; use auto", "unsupported_model")
        adds = bool(info["bos_ids"])
        if rule == "always":
            if adds:
                return "", {}, True
            text = self.s.loglikelihood_bos_text
            if not text:
                raise RequestFailed("llm.loglikelihood_bos: always, and the server adds no BOS to prompts itself: "
                                    "set llm.loglikelihood_bos_text to the model's BOS text", "unsupported_model")
            ids = await self.tokenize(text)
            if ids is None or len(ids) != 1:
                raise RequestFailed(f"llm.loglikelihood_bos_text {text!r} is not one token on this server ({ids})",
                                    "unsupported_model")
            return text, {}, True
        if not adds:
            return "", {}, False
        if info["endpoint"] == "/tokenize":  # vLLM
            return "", {"add_special_tokens": False}, False
        raise RequestFailed("llm.loglikelihood_bos: never, but llama-cpp-python puts the model's BOS before every "
                            "text prompt; use auto", "unsupported_model")


def server_identity(s: LLMSettings) -> dict:
    """Server identity for the manifest: vLLM's /version and the served models, from the first
    base URL that answers (one may be down). Best effort: when none answers that is recorded, not
    an error (a journaled rerun needs no server), and the URLs and errors are logged, not recorded:
    the manifest says what served the model, not where."""
    import httpx

    headers = {"Authorization": f"Bearer {os.environ.get(s.api_key_env, '')}"} if s.api_key_env else {}
    unreachable = []
    for url in s.base_urls:
        root = url.rstrip("/").removesuffix("/v1")
        info: dict = {"version": None}
        try:
            with httpx.Client(timeout=min(10.0, s.timeout_s), headers=headers) as h:
                r = h.get(f"{root}/version")
                if r.status_code == 200 and "version" in r.text:
                    info["version"] = r.json().get("version")
                r = h.get(f"{root}/v1/models")
                if r.status_code == 200:
                    info["models"] = [{k: m.get(k) for k in ("id", "owned_by", "max_model_len") if k in m}
                                      for m in r.json().get("data", [])]
            return info
        except Exception as e:  # logged, not raised: see docstring
            unreachable.append(f"{url}: {type(e).__name__}: {e}")
    log.warning("server identity: no base URL answered (%s); the manifest records none", "; ".join(unreachable))
    return {"version": None, "unreachable": "no base URL answered GET /version or /v1/models"}
