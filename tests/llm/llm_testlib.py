"""Test helpers of tests/llm: a fake OpenAI-compatible server whose faults and quirks a test scripts."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections import Counter
from pathlib import Path

BOS_TEXT = "<s>"  # the fake model's BOS
BOS_ID = 1
GEN = " gen"  # the one token the fake model generates on /v1/completions


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dead_url() -> str:
    """A base URL where nothing listens: every request is refused."""
    return f"http://127.0.0.1:{free_port()}/v1"


def fake_tokens(prompt: str, adds_bos: bool) -> list[str]:
    """The fake model's tokens of a prompt: words with their leading space, BOS text as one token."""
    lead = []
    if prompt.startswith(BOS_TEXT):
        lead, prompt = [BOS_TEXT], prompt[len(BOS_TEXT):]
    elif adds_bos:
        lead = [BOS_TEXT]
    words = prompt.split(" ")
    return lead + [w for w in [words[0]] + [" " + w for w in words[1:]] if w]


def fake_logprob(token: str, position: int) -> float:
    """The fake model's log-probability of `token` at `position` (0-based, BOS counted)."""
    return -float(len(token)) - 0.5 * position


def fake_token_id(text: str) -> list[int]:
    if text == BOS_TEXT:
        return [BOS_ID]
    if text.isdigit():
        return [10 + int(ch) for ch in text]  # "10" is two tokens
    return [1000 + sum(map(ord, text)) % 9000]


class FakeServer:
    """An OpenAI-compatible server whose faults and quirks the test scripts.

    `faults` is consumed one per /v1 request: "500", "429" (Retry-After: retry_after), "timeout"
    (answers after `slow_s`), "malformed" (200 with a broken JSON body), "drop" (headers and half
    a body, then the connection is closed), "400", "404", "422", "surrogate" (a 200 whose reply holds a
    lone surrogate as the JSON escape \\ud800), "surrogate_bytes" (the same as its bytes); None or an
    empty list answers normally.

    Chat: the answer is the first user message with "REPLY:" stripped, or "echo: <it>". With
    `structured` set to "structured_outputs" or "guided_choice", a request carrying that field
    is answered with a choice (the scripted reply when it is one, else the first); with
    `honour_logit_bias`, a request with logit_bias is answered with a biased token. Asked for
    logprobs, the first position's top_logprobs hold `choice_logprobs`.

    Completions: the fake model's tokens are words (fake_tokens), each token's log-probability
    fake_logprob(token, position), and it generates GEN. `adds_bos`: the server puts BOS_TEXT
    before a prompt. `echo` picks how echo=True comes back: "vllm" (BOS echoed, generated token
    included), "llama" (BOS dropped, generated token included), "omit_generated" (BOS dropped,
    generated token left out), "shifted" (llama-cpp-python 0.3.36: as "llama" when the prompt
    starts with BOS, else each token scored with the distribution after it and the generated
    token left out). prompt_logprobs answers as vLLM.
    `tokenizer`: "vllm" (/tokenize), "llama" (/extras/tokenize, BOS prepended) or None (404).

    GET /v1/models: `served_models` None answers 404 (a server without the route); a list is served
    there, and a /v1 request naming another model is answered 404 as vLLM does. `models_faults`
    is consumed one per GET /v1/models (a status such as "503", or "timeout"). `key`: every request without
    `Authorization: Bearer <key>` is answered 401. stop() and start() take the server down and up
    again on the same port (a restart).
    """

    def __init__(self):
        self.faults: list = []
        self.retry_after = "1"
        self.slow_s = 5.0
        self.delay_s = 0.0
        self.requests = 0
        self.paths: Counter = Counter()
        self.prompts: Counter = Counter()
        self.models: Counter = Counter()
        self.bodies: list[dict] = []
        self.auth: list[str] = []
        self.structured: str | None = None
        self.honour_logit_bias = False
        self.choice_logprobs = {"0": -3.0, "1": -2.0, "2": -1.0, "3": -0.5}
        self.adds_bos = False
        self.echo = "vllm"
        self.tokenizer: str | None = None
        self.served_models: list[str] | None = None
        self.models_faults: list = []
        self.key: str | None = None
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self):
        self._loop.run_until_complete(self._serve())
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self):
        from aiohttp import web

        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/tokenize", self._tokenize_vllm)
        app.router.add_post("/extras/tokenize", self._tokenize_llama)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def stop(self):
        """Take the server down (open connections are cut, new ones refused) until start()."""
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._runner = None

    def start(self):
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(10)

    def _refusal(self, request, model):
        from aiohttp import web

        if self.key is not None and request.headers.get("Authorization") != f"Bearer {self.key}":
            return web.json_response({"error": "Unauthorized"}, status=401)
        if self.served_models is not None and model is not None and model not in self.served_models:
            return web.json_response({"error": {"message": f"The model `{model}` does not exist."}}, status=404)
        return None

    async def _models(self, request):
        from aiohttp import web

        self.paths[request.path] += 1
        fault = self.models_faults.pop(0) if self.models_faults else None
        if fault is not None and fault.isdigit():
            return web.json_response({"error": "busy"}, status=int(fault))
        if fault == "timeout":
            await asyncio.sleep(self.slow_s)
        refused = self._refusal(request, None)
        if refused is not None:
            return refused
        if self.served_models is None:
            return web.json_response({"detail": "Not Found"}, status=404)
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model"}
                                                             for m in self.served_models]})

    async def _fault(self, request, model=None):
        from aiohttp import web

        self.requests += 1
        self.paths[request.path] += 1
        self.auth.append(request.headers.get("Authorization", ""))
        refused = self._refusal(request, model)
        if refused is not None:
            return refused
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        fault = self.faults.pop(0) if self.faults else None
        if fault in ("400", "404", "422"):
            return web.json_response({"error": {"message": "bad request"}}, status=int(fault))
        if fault == "500":
            return web.json_response({"error": "boom"}, status=500)
        if fault == "429":
            return web.json_response({"error": "slow down"}, status=429, headers={"Retry-After": self.retry_after})
        if fault == "timeout":
            await asyncio.sleep(self.slow_s)
        if fault == "malformed":
            return web.Response(text='{"choices": [', content_type="application/json")
        if fault in ("surrogate", "surrogate_bytes"):
            lone = b"\\ud800" if fault == "surrogate" else "\ud800".encode("utf-8", "surrogatepass")
            return web.Response(body=b'{"id": "x", "choices": [{"index": 0, "finish_reason": "stop", "message": '
                                     b'{"role": "assistant", "content": "bad ' + lone + b' reply"}}]}',
                                content_type="application/json")
        if fault == "drop":
            resp = web.StreamResponse(headers={"Content-Type": "application/json", "Content-Length": "4000"})
            await resp.prepare(request)
            await resp.write(b'{"id": "x", "choices": [{"index": 0, "mess')
            request.transport.close()
            return resp
        return None

    async def _chat(self, request):
        from aiohttp import web

        body = await request.json()
        self.bodies.append(body)
        self.models[body["model"]] += 1
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        self.prompts[users[-1]] += 1
        faulty = await self._fault(request, body["model"])
        if faulty is not None:
            return faulty
        first = users[0]
        text = first[len("REPLY:"):] if first.startswith("REPLY:") else f"echo: {first}"
        if self.structured and self.structured in body:
            field = body[self.structured]
            choices = field["choice"] if isinstance(field, dict) else field
            text = text if text in choices else choices[0]
        elif self.honour_logit_bias and body.get("logit_bias"):
            allowed = {str(fake_token_id(str(d))[0]): str(d) for d in range(10)}
            biased = [allowed[k] for k in body["logit_bias"] if k in allowed]
            text = text if text in biased else biased[0]
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
        if body.get("logprobs"):
            top = [{"token": t, "logprob": v} for t, v in self.choice_logprobs.items()]
            choice["logprobs"] = {"content": [{"token": text[:1], "logprob": self.choice_logprobs.get(text, -9.0),
                                               "top_logprobs": top}]}
        return web.json_response({"id": "c", "object": "chat.completion", "model": body["model"], "choices": [choice],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    async def _completions(self, request):
        from aiohttp import web

        body = await request.json()
        self.bodies.append(body)
        prompt = body["prompt"]
        self.prompts[prompt] += 1
        faulty = await self._fault(request, body["model"])
        if faulty is not None:
            return faulty
        adds_bos = self.adds_bos and body.get("add_special_tokens", True)
        toks = fake_tokens(prompt, adds_bos)
        values = [None] + [fake_logprob(t, i) for i, t in enumerate(toks) if i > 0]
        gen_value = fake_logprob(GEN, len(toks))
        usage = {"prompt_tokens": len(toks), "completion_tokens": 1, "total_tokens": len(toks) + 1}
        out = {"id": "c", "object": "text_completion", "model": body["model"], "usage": usage}
        choice = {"index": 0, "text": GEN, "finish_reason": "length", "logprobs": None}
        if "prompt_logprobs" in body:  # vLLM's shape: per prompt position {token id: entry}
            choice["prompt_logprobs"] = [None] + [
                {str(fake_token_id(t)[0]): {"logprob": v, "rank": 1, "decoded_token": t}}
                for t, v in zip(toks[1:], values[1:])]
        elif body.get("echo"):
            choice["text"] = prompt + GEN
            gen_tokens, gen_values = [GEN], [gen_value]
            if self.echo == "shifted" and toks[:1] != [BOS_TEXT]:
                values = [None] + [fake_logprob(t, i + 1) for i, t in enumerate(toks[1:], start=1)]
                gen_tokens, gen_values = [], []
            elif self.echo == "omit_generated":
                gen_tokens, gen_values = [], []
            tokens, values = toks + gen_tokens, values + gen_values
            if self.echo != "vllm" and tokens and tokens[0] == BOS_TEXT:
                tokens, values = tokens[1:], values[1:]
                values[0] = None  # llama-cpp-python nulls the first echoed token's value
            choice["logprobs"] = {"tokens": tokens, "token_logprobs": values,
                                  "text_offset": [sum(map(len, tokens[:i])) for i in range(len(tokens))],
                                  "top_logprobs": None}
        elif body.get("logprobs"):
            choice["logprobs"] = {"tokens": [GEN], "token_logprobs": [gen_value], "text_offset": [len(prompt)],
                                  "top_logprobs": [{GEN: gen_value}]}
        out["choices"] = [choice]
        return web.json_response(out)

    async def _tokenize(self, text: str, with_bos: bool):
        from aiohttp import web

        ids = [BOS_ID] if with_bos else []
        for t in fake_tokens(text, False):
            ids += fake_token_id(t.strip() if t.strip() else t)
        return web.json_response({"tokens": ids})

    async def _tokenize_vllm(self, request):
        from aiohttp import web

        self.paths[request.path] += 1
        if self.tokenizer != "vllm":
            return web.json_response({"detail": "Not Found"}, status=404)
        body = await request.json()
        return await self._tokenize(body["prompt"], self.adds_bos and body.get("add_special_tokens", True))

    async def _tokenize_llama(self, request):
        from aiohttp import web

        self.paths[request.path] += 1
        if self.tokenizer != "llama":
            return web.json_response({"detail": "Not Found"}, status=404)
        body = await request.json()
        return await self._tokenize(body["input"], self.adds_bos)

    def close(self):
        if self._runner is not None:
            self.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def fake_settings(*servers, **overrides) -> dict:
    """Settings for fake servers (or base URLs): fast retries, grades parsed unless a test asks
    for a constraint (the probes would add requests to every count)."""
    urls = [s if isinstance(s, str) else s.url for s in servers]
    return {"backend": "openai", "model": "fake", "base_urls": urls, "max_retries": 3, "backoff_s": 0.01,
            "backoff_max_s": 0.05, "timeout_s": 5, "breaker_cooldown_s": 0.05, "grade_constraint": "none",
            **overrides}


def run(coro):
    return asyncio.run(coro)


def journal_lines(path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines() if Path(path).exists() else []
