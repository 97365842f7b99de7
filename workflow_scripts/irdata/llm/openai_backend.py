"""Backend `openai`: any OpenAI-compatible server (vLLM in production, llama-cpp-python in tests).

Transport (llm.transport): `aiohttp` (default) or the `openai` package. The SDK costs ~4 ms
of CPU per request, which caps a 2-core client near 250 requests/s; plain aiohttp sustains
several thousand (bench/bench_llm_client.py), so at ~21M calls the GPUs, not the client, are
the limit. Both carry the same requests, and this module retries connection errors, timeouts,
429, 5xx and malformed bodies on either, with exponential backoff and full jitter, honouring
Retry-After. Bodies are read as plain JSON, not as the SDK's pydantic models.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random

import openai

from .results import RequestFailed
from .settings import LLMSettings

log = logging.getLogger(__name__)

# Sent as the key when none is configured: local servers ignore it, and the SDK needs one.
NO_KEY = "no-key"


class TransientError(Exception):
    """A failure worth retrying: the server or the network, not the request."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.retry_after = retry_after


def _retry_after(headers) -> float | None:
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None


class SDKTransport:
    """Requests through the `openai` package (its retries off: the backend retries)."""

    name = "openai"

    def __init__(self, settings: LLMSettings, key: str):
        self.s = settings
        self._clients = {
            url.rstrip("/"): openai.AsyncOpenAI(base_url=url, api_key=key, max_retries=0, timeout=settings.timeout_s)
            for url in settings.base_urls}

    async def post(self, base_url: str, kind: str, payload: dict) -> bytes:
        client = self._clients[base_url]
        body = dict(payload)
        extra = {k: body.pop(k) for k in list(body) if k not in _SDK_ARGS[kind]}
        api = client.chat.completions if kind == "chat" else client.completions
        try:
            raw = await api.with_raw_response.create(**body, extra_body=extra or None)
            return raw.content
        except openai.APIStatusError as e:
            if e.status_code == 429 or e.status_code >= 500:
                raise TransientError(f"HTTP {e.status_code} from {base_url}", _retry_after(e.response.headers)) from e
            raise RequestFailed(f"HTTP {e.status_code} from {base_url}: {str(e)[:300]}", 1) from e
        except openai.APITimeoutError as e:
            raise TransientError(f"timeout after {self.s.timeout_s}s at {base_url}") from e
        except openai.APIConnectionError as e:
            raise TransientError(f"connection error at {base_url}: {e.__cause__ or e}") from e

    async def post_raw(self, url: str, payload: dict) -> tuple[int, bytes]:
        r = await next(iter(self._clients.values()))._client.post(url, json=payload, timeout=self.s.timeout_s)
        return r.status_code, r.content

    async def aclose(self) -> None:
        for c in self._clients.values():
            await c.close()


class AiohttpTransport:
    """Plain aiohttp requests: the same API, about 10x the requests/s of the `openai` package
    on 2 cores (bench/bench_llm_client.py), which matters at ~21M calls."""

    name = "aiohttp"

    def __init__(self, settings: LLMSettings, key: str):
        self.s = settings
        self._headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self._session = None  # made inside the running event loop, on first use

    def _sess(self):
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(
                headers=self._headers, timeout=aiohttp.ClientTimeout(total=self.s.timeout_s),
                connector=aiohttp.TCPConnector(limit=self.s.max_in_flight, limit_per_host=0))
        return self._session

    async def post(self, base_url: str, kind: str, payload: dict) -> bytes:
        import aiohttp

        path = "/chat/completions" if kind == "chat" else "/completions"
        try:
            async with self._sess().post(base_url + path, data=json.dumps(payload)) as r:
                body = await r.read()
                status, headers = r.status, r.headers
        except asyncio.TimeoutError as e:
            raise TransientError(f"timeout after {self.s.timeout_s}s at {base_url}") from e
        except aiohttp.ClientError as e:
            raise TransientError(f"connection error at {base_url}: {type(e).__name__}: {e}") from e
        if status == 429 or status >= 500:
            raise TransientError(f"HTTP {status} from {base_url}", _retry_after(headers))
        if status >= 400:
            raise RequestFailed(f"HTTP {status} from {base_url}: {body[:300].decode(errors='replace')}", 1)
        return body

    async def post_raw(self, url: str, payload: dict) -> tuple[int, bytes]:
        async with self._sess().post(url, data=json.dumps(payload)) as r:
            return r.status, await r.read()

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class OpenAIBackend:
    def __init__(self, settings: LLMSettings):
        self.s = settings
        key = NO_KEY
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise RuntimeError(
                    f"llm.api_key_env names ${settings.api_key_env}, which is not set: export it before running"
                )
        self.transport = (AiohttpTransport if settings.transport == "aiohttp" else SDKTransport)(settings, key)
        self._urls = [u.rstrip("/") for u in settings.base_urls]
        self._in_flight = [0] * len(self._urls)
        self._next = 0
        self.semaphore = asyncio.Semaphore(settings.max_in_flight)
        self._server_info: dict | None = None
        self._choice_ids: dict[tuple, dict | None] = {}
        self._decoding_fields = {"model": settings.model, "temperature": settings.temperature, "seed": settings.seed,
                                 **settings.extra_body}

    # -- transport ---------------------------------------------------------------------------
    def _pick(self) -> int:
        """The least loaded base URL, round robin among equals, so all servers share the work."""
        n = len(self._urls)
        if n == 1:
            return 0
        start = self._next
        self._next = (self._next + 1) % n
        return min(((start + i) % n for i in range(n)), key=lambda i: self._in_flight[i])

    async def _post_once(self, kind: str, payload: dict) -> dict:
        i = self._pick()
        self._in_flight[i] += 1
        try:
            body = await self.transport.post(self._urls[i], kind, payload)
        finally:
            self._in_flight[i] -= 1
        try:
            data = json.loads(body)
            if not isinstance(data, dict) or not data.get("choices"):
                raise ValueError("no `choices`")
            return data
        except ValueError as e:
            raise TransientError(f"malformed response from {self._urls[i]}: {e}: {body[:120]!r}") from e

    async def post(self, kind: str, payload: dict, stats) -> dict:
        attempt = 0
        while True:
            try:
                return await self._post_once(kind, payload)
            except TransientError as e:
                if attempt >= self.s.max_retries:
                    raise RequestFailed(f"{e} (gave up after {attempt + 1} attempts)", attempt + 1) from e
                delay = random.uniform(0, min(self.s.backoff_max_s, self.s.backoff_s * 2 ** attempt))
                if e.retry_after is not None:
                    delay = max(delay, min(e.retry_after, self.s.backoff_max_s))
                attempt += 1
                stats.retries += 1
                log.debug("retry %d in %.2fs: %s", attempt, delay, e)
                await asyncio.sleep(delay)

    # -- operations ------------------------------------------------------------------------
    async def execute(self, op: str, request: dict, stats) -> dict:
        if op == "chat":
            return await self._chat(request, stats)
        if op == "grade":
            return await self._grade(request, stats)
        return await self._loglikelihood(request, stats)

    async def _chat(self, request: dict, stats) -> dict:
        payload = {**self._decoding_fields, "messages": _native_messages(request["messages"]),
                   "max_tokens": request["max_tokens"]}
        if request.get("tools"):
            payload["tools"] = request["tools"]
            if request.get("tool_choice") is not None:
                payload["tool_choice"] = request["tool_choice"]
        data = await self.post("chat", payload, stats)
        choice = data["choices"][0]
        msg = choice.get("message") or {}
        return {"text": msg.get("content") or "", "tool_calls": msg.get("tool_calls") or [],
                "finish_reason": choice.get("finish_reason")}

    async def _grade(self, request: dict, stats) -> dict:
        payload = {**self._decoding_fields, "messages": request["messages"], "max_tokens": 8}
        bias = await self._choice_bias(tuple(request["choices"]))
        if bias:
            # Only the choice tokens can come out: one token is the whole answer.
            payload["logit_bias"] = bias
            payload["max_tokens"] = 1
        data = await self.post("chat", payload, stats)
        return {"reply": (data["choices"][0].get("message") or {}).get("content") or "",
                "constrained": bool(bias)}

    async def _loglikelihood(self, request: dict, stats) -> dict:
        ctx, cont = request["context"], request["continuation"]
        # lm-evaluation-harness's way: the prompt's log-probabilities; max_tokens=1 because vLLM
        # refuses 0 (and llama-cpp-python reads 0 as unlimited); the generated token is dropped.
        payload = {**self._decoding_fields, "prompt": ctx + cont, "max_tokens": 1}
        if self.s.loglikelihood_api == "prompt_logprobs":
            # vLLM: with 0 it returns only each prompt token's own entry (first position null).
            payload["prompt_logprobs"] = 0
            data = await self.post("completions", payload, stats)
            entries = data["choices"][0].get("prompt_logprobs")
            if not entries:
                raise RequestFailed("server ignored prompt_logprobs (only vLLM supports it): "
                                    "set llm.loglikelihood_api: echo", 1)
            tokens, values = [""], [None]
            for e in entries[1:]:
                (only,) = e.values()
                tokens.append(only.get("decoded_token") or "")
                values.append(only["logprob"])
        else:
            payload.update(echo=True, logprobs=1)
            data = await self.post("completions", payload, stats)
            lp = data["choices"][0].get("logprobs") or {}
            tokens, values = lp.get("tokens"), lp.get("token_logprobs")
            if not tokens or values is None or len(tokens) != len(values):
                raise RequestFailed("server returned no prompt log-probabilities for echo=True, logprobs=1 "
                                    "(llama-cpp-python needs --logits_all true)", 1)
            generated = (data.get("usage") or {}).get("completion_tokens", 1)
            tokens, values = tokens[: len(tokens) - generated], values[: len(values) - generated]
        return {"logprobs": continuation_tail(tokens, values, ctx, cont)}

    async def _choice_bias(self, choices: tuple) -> dict | None:
        """logit_bias that allows only the choice tokens, via the server's tokenizer endpoint;
        None when the server has none or a choice is not one token (replies are parsed then)."""
        if choices not in self._choice_ids:
            ids = {}
            for c in choices:
                toks = await self._tokenize(c)
                if toks is None or len(toks) != 1:
                    ids = None
                    break
                ids[str(toks[0])] = 100
            if ids is None:
                log.warning("grades on %s are not constrained by logit_bias (no single-token ids for %s); "
                            "replies are parsed", self.s.base_urls[0], choices)
            self._choice_ids[choices] = ids
        return self._choice_ids[choices]

    async def _tokenize(self, text: str) -> list[int] | None:
        root = self._urls[0].removesuffix("/v1")
        for url, body in ((f"{root}/tokenize", {"model": self.s.model, "prompt": text, "add_special_tokens": False}),
                          (f"{root}/extras/tokenize", {"input": text})):
            try:
                status, content = await self.transport.post_raw(url, body)
                if status == 200:
                    return list(json.loads(content)["tokens"])
            except Exception as e:  # any failure means: no tokenizer endpoint here
                log.debug("tokenize via %s failed: %s", url, e)
        return None

    # -- identity ----------------------------------------------------------------------------
    def answer_identity(self) -> dict:
        return self.s.answer_settings()

    def identity(self) -> dict:
        if self._server_info is None:
            self._server_info = _probe(self.s)
        return {**self.s.answer_settings(), "base_urls": list(self.s.base_urls), "transport": self.transport.name,
                "server": self._server_info,
                "loglikelihood_method": f"/v1/completions {self.s.loglikelihood_api}, max_tokens=1, continuation "
                                        "counted back from the end of the prompt, generated token dropped"}

    async def aclose(self) -> None:
        await self.transport.aclose()


# Named parameters of the SDK's create(); anything else travels in extra_body.
_SDK_ARGS = {
    "chat": {"model", "messages", "max_tokens", "temperature", "seed", "tools", "tool_choice", "logit_bias"},
    "completions": {"model", "prompt", "echo", "logprobs", "max_tokens", "temperature", "seed", "logit_bias"},
}


def _native_messages(messages) -> list[dict]:
    # Servers (llama-cpp-python among them) reject an assistant turn with tool_calls whose
    # content is null.
    return [{**m, "content": ""} if m.get("tool_calls") and m.get("content") is None else m for m in messages]


def continuation_tail(tokens, values, context: str, continuation: str) -> list[float]:
    """Log-probabilities of the prompt tokens that spell `continuation` at the end of the prompt.

    The continuation is found by counting its tokens back from the end (text_offset does not
    index the echoed text on llama-cpp-python; counting works on vLLM too). A token that
    straddles context and continuation makes the split ambiguous, so it is refused.
    """
    acc = ""
    i = len(tokens)
    while len(acc) < len(continuation) and i > 0:
        i -= 1
        acc = (tokens[i] or "") + acc
    if acc != continuation:
        raise RequestFailed(
            f"continuation {continuation[:40]!r} does not start on a token boundary after context "
            f"...{context[-20:]!r} (tokens there: {tokens[max(i - 1, 0):i + 2]}); start the continuation "
            f"with a space or end the context with whitespace", 1)
    if i == 0 or any(v is None for v in values[i:]):
        raise RequestFailed("the continuation has no preceding token to condition on: give a non-empty "
                            "context or set llm.loglikelihood_prefix", 1)
    return [float(v) for v in values[i:]]


def _probe(s: LLMSettings) -> dict:
    """Server identity for the manifest: vLLM's /version and the served models. Best effort:
    an unreachable server is recorded as such, not an error (a journaled rerun needs none)."""
    import httpx

    root = s.base_urls[0].rstrip("/").removesuffix("/v1")
    info: dict = {"version": None}
    headers = {"Authorization": f"Bearer {os.environ.get(s.api_key_env, '')}"} if s.api_key_env else {}
    try:
        with httpx.Client(timeout=min(10.0, s.timeout_s), headers=headers) as h:
            r = h.get(f"{root}/version")
            if r.status_code == 200 and "version" in r.text:
                info["version"] = r.json().get("version")
            r = h.get(f"{root}/v1/models")
            if r.status_code == 200:
                info["models"] = [{k: m.get(k) for k in ("id", "owned_by", "max_model_len") if k in m}
                                  for m in r.json().get("data", [])]
    except Exception as e:  # recorded, not raised: see docstring
        info["unreachable"] = f"{type(e).__name__}: {e}"
    return info
