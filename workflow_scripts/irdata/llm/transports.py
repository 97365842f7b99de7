"""How requests of the `openai` backend travel (llm.transport): plain aiohttp, or the openai SDK.

The SDK costs ~4 ms of CPU per request, which caps a 2-core client near 250 requests/s; plain
aiohttp sustains several thousand (bench/bench_llm_client.py), so at ~21M calls the GPUs, not the
client, are the limit. Both send the same requests and classify failures the same way: a
TransientError (worth retrying elsewhere or later: connection, timeout, 429, 5xx, a malformed
body) or a RequestFailed (the request itself is wrong: other 4xx; a reply that cannot be stored).
Neither retries; spreading.py does.

A failure's reason names what failed (a kind, an HTTP status, the error's class), never the base URL
or a connection setting: reasons reach released files (a grade's `failure`, MANIFEST.json), which
must not depend on where or how a call travelled. The log lines around them name the URL.

A request is `fields` (a small dict) plus, for chat, the conversation, which the client has
already encoded as JSON for the call's journal key: the aiohttp transport splices that text
into the body instead of encoding the conversation a second time.
"""

from __future__ import annotations

import asyncio
import errno
import json
import sys

from .results import RequestFailed
from .settings import LLMSettings


def _compact_json_encoder(sort_keys: bool):
    """JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=...).encode, the same text,
    without its set-up on every call: the C encoder is built once, with no circular-reference
    bookkeeping (a cycle raises RecursionError rather than ValueError). 1-1.3 us less per encode,
    and a call encodes three times (its request, its conversation, its journal line)."""
    plain = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    make = getattr(json.encoder, "c_make_encoder", None)
    try:
        c_encode = make(None, plain.default, json.encoder.encode_basestring, None, ":", ",", sort_keys, False, True)
    except TypeError:  # no C accelerator, or another signature: the plain encoder
        return plain.encode

    def encode(obj) -> str:
        return "".join(c_encode(obj, 0))

    probe = {"b": [1, 2.5, None, True, "é\n"], "a": {"x": -0.0}, "c": "\u2028"}
    return encode if encode(probe) == plain.encode(probe) else plain.encode


# The compact JSON of the wire, the journal and the request keys (sorted: a key must not depend
# on the order a dict was built in).
encode_json = _compact_json_encoder(sort_keys=False)
encode_json_sorted = _compact_json_encoder(sort_keys=True)


class TransientError(Exception):
    """A failure worth retrying: the server or the network, not the request."""

    def __init__(self, reason: str, kind: str, retry_after: float | None = None):
        super().__init__(reason)
        self.kind = kind
        self.retry_after = retry_after


def retry_after(headers) -> float | None:
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None


def _status_error(status: int, body: bytes, headers) -> Exception:
    if status == 429 or status >= 500:
        return TransientError(f"HTTP {status}", f"http_{status}", retry_after(headers))
    return RequestFailed(f"HTTP {status}: {body[:300].decode(errors='replace')}", f"http_{status}")


def _timeout() -> TransientError:
    return TransientError("timeout: no answer within llm.timeout_s", "timeout")


def _connection_error(e: Exception) -> TransientError:
    """A connection failure named by its class and errno: the libraries' own messages name the host."""
    seen, cause = set(), e
    while cause is not None and id(cause) not in seen and not (isinstance(cause, OSError) and cause.errno):
        seen.add(id(cause))
        cause = getattr(cause, "os_error", None) or cause.__cause__ or cause.__context__
    code = errno.errorcode.get(cause.errno) if cause is not None else None
    return TransientError(f"connection error ({type(e).__name__}{f', {code}' if code else ''})", "connection")


# A lone surrogate arrives as a \ud800-\udfff escape, or as its bytes (json decodes them with surrogatepass).
_SURROGATE_MARKS = (b"\\ud", b"\\uD", b"\xed")


def decode(body: bytes) -> dict:
    """The JSON object of a /v1 answer; a body that is not one with `choices` is transient, and one
    holding a lone surrogate (no UTF-8 for it: it could be neither journaled nor written) fails as
    `unencodable`."""
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or not data.get("choices"):
            raise ValueError("no `choices`")
    except ValueError as e:
        raise TransientError(f"malformed response: {e}: {body[:120]!r}", "malformed_response") from e
    if any(mark in body for mark in _SURROGATE_MARKS):  # rare: a full check only then
        try:
            encode_json(data).encode()
        except UnicodeEncodeError as e:
            raise RequestFailed(f"unencodable: the reply holds a lone surrogate ({e.object[e.start:e.end]!r}), "
                                "which has no UTF-8 form: the answer cannot be stored", "unencodable") from e
    return data


_PATHS = {"chat": "/chat/completions", "completions": "/completions"}


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

    async def post(self, base_url: str, kind: str, fields: dict, messages=None, fields_json: str | None = None,
                   messages_json: str | None = None):
        """POST fields (+ messages) to a /v1 endpoint; the decoded answer. Parts already encoded
        as JSON text are spliced in as they are."""
        import aiohttp

        text = fields_json or encode_json(fields)
        if messages is not None:
            text = f'{text[:-1]},"messages":{messages_json or encode_json(messages)}}}'
        try:
            async with self._sess().post(base_url + _PATHS[kind], data=text.encode()) as r:
                body = await r.read()
                status = r.status
                if status >= 400:
                    raise _status_error(status, body, r.headers)
        except asyncio.TimeoutError as e:
            raise _timeout() from e
        except aiohttp.ClientError as e:
            raise _connection_error(e) from e
        return decode(body)

    async def post_raw(self, base_url: str, path: str, payload: dict) -> tuple[int, bytes]:
        """POST to a server path outside /v1 (e.g. /tokenize): (status, body)."""
        import aiohttp

        url = base_url.removesuffix("/v1") + path
        try:
            async with self._sess().post(url, data=encode_json(payload).encode()) as r:
                return r.status, await r.read()
        except asyncio.TimeoutError as e:
            raise _timeout() from e
        except aiohttp.ClientError as e:
            raise _connection_error(e) from e

    async def get_raw(self, base_url: str, path: str, timeout_s: float) -> tuple[int, bytes]:
        """GET base_url + path (e.g. /models, the servers' check): (status, body)."""
        import aiohttp

        url = base_url + path
        try:
            async with self._sess().get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as r:
                return r.status, await r.read()
        except asyncio.TimeoutError as e:
            raise TransientError(f"timeout after {timeout_s:g} s", "timeout") from e
        except aiohttp.ClientError as e:
            raise _connection_error(e) from e

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


# Named parameters of the SDK's create(); anything else travels in extra_body.
_SDK_ARGS = {
    "chat": {"model", "messages", "max_tokens", "temperature", "seed", "tools", "tool_choice", "logit_bias",
             "logprobs", "top_logprobs"},
    "completions": {"model", "prompt", "echo", "logprobs", "max_tokens", "temperature", "seed", "logit_bias"},
}


class SDKTransport:
    """Requests through the `openai` package (its retries off: spreading.py retries)."""

    name = "openai"

    def __init__(self, settings: LLMSettings, key: str):
        import openai  # ~0.5 s of imports, which the default transport does without

        self.s = settings
        self._clients = {
            url.rstrip("/"): openai.AsyncOpenAI(base_url=url, api_key=key, max_retries=0, timeout=settings.timeout_s)
            for url in settings.base_urls}

    async def post(self, base_url: str, kind: str, fields: dict, messages=None, fields_json: str | None = None,
                   messages_json: str | None = None):
        import openai

        client = self._clients[base_url]
        body = dict(fields) if messages is None else {**fields, "messages": messages}
        extra = {k: body.pop(k) for k in list(body) if k not in _SDK_ARGS[kind]}
        api = client.chat.completions if kind == "chat" else client.completions
        try:
            raw = await api.with_raw_response.create(**body, extra_body=extra or None)
        except openai.APIStatusError as e:
            raise _status_error(e.status_code, e.response.content, e.response.headers) from e
        except openai.APITimeoutError as e:
            raise _timeout() from e
        except openai.APIConnectionError as e:
            raise _connection_error(e.__cause__ or e) from e
        return decode(raw.content)

    def _http(self, base_url: str):
        """The HTTP client module of the SDK's own client (httpx, or httpx2 in newer SDKs): the one
        whose exceptions its raw requests raise."""
        cls = next(c for c in type(self._clients[base_url]._client).__mro__ if c.__module__.startswith("httpx"))
        return sys.modules[cls.__module__.partition(".")[0]]

    async def post_raw(self, base_url: str, path: str, payload: dict) -> tuple[int, bytes]:
        httpx = self._http(base_url)
        url = base_url.removesuffix("/v1") + path
        try:
            r = await self._clients[base_url]._client.post(url, json=payload, timeout=self.s.timeout_s)
        except httpx.TimeoutException as e:
            raise _timeout() from e
        except httpx.TransportError as e:
            raise _connection_error(e) from e
        return r.status_code, r.content

    async def get_raw(self, base_url: str, path: str, timeout_s: float) -> tuple[int, bytes]:
        httpx = self._http(base_url)
        url = base_url + path
        try:
            client = self._clients[base_url]
            # the SDK's own httpx client carries no key: the SDK adds it per request
            r = await client._client.get(url, timeout=timeout_s, headers={"Authorization": f"Bearer {client.api_key}"})
        except httpx.TimeoutException as e:
            raise TransientError(f"timeout after {timeout_s:g} s", "timeout") from e
        except httpx.TransportError as e:
            raise _connection_error(e) from e
        return r.status_code, r.content

    async def aclose(self) -> None:
        for c in self._clients.values():
            await c.close()
