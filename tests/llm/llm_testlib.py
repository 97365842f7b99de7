"""Test helpers of tests/llm: a fake OpenAI-compatible server whose faults a test scripts."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections import Counter
from pathlib import Path

# SmolLM2's BOS text: llama-cpp-python's echoed log-probabilities are shifted by one token
# without it, so every cross-backend comparison puts it first on both sides.
BOS = "<|im_start|>"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeServer:
    """An OpenAI-compatible server whose faults the test scripts.

    `faults` is consumed one per request: "500", "429" (Retry-After: retry_after), "timeout"
    (answers after `slow_s`), "malformed" (200 with a broken JSON body), "drop" (headers and
    half a body, then the connection is closed), "400"; None or an empty list answers normally.
    A normal chat answer is the first user message with "REPLY:" stripped, or "echo: <it>";
    a completions answer echoes the prompt split at spaces, each token's logprob -1.0 * its
    length, and one generated token (or, asked for prompt_logprobs, answers as vLLM does).
    """

    def __init__(self):
        self.faults: list = []
        self.retry_after = "1"
        self.slow_s = 5.0
        self.delay_s = 0.0
        self.requests = 0
        self.prompts: Counter = Counter()
        self.models: Counter = Counter()
        self.auth: list[str] = []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _run(self):
        from aiohttp import web

        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(runner.setup())
        self._loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
        self._runner = runner
        self._ready.set()
        self._loop.run_forever()

    async def _fault(self, request):
        from aiohttp import web

        self.requests += 1
        self.auth.append(request.headers.get("Authorization", ""))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        fault = self.faults.pop(0) if self.faults else None
        if fault == "500":
            return web.json_response({"error": "boom"}, status=500)
        if fault == "400":
            return web.json_response({"error": {"message": "bad request"}}, status=400)
        if fault == "429":
            return web.json_response({"error": "slow down"}, status=429, headers={"Retry-After": self.retry_after})
        if fault == "timeout":
            await asyncio.sleep(self.slow_s)
        if fault == "malformed":
            return web.Response(text='{"choices": [', content_type="application/json")
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
        self.models[body["model"]] += 1
        users = [m["content"] for m in body["messages"] if m["role"] == "user"]
        self.prompts[users[-1]] += 1
        faulty = await self._fault(request)
        if faulty is not None:
            return faulty
        first = users[0]
        text = first[len("REPLY:"):] if first.startswith("REPLY:") else f"echo: {first}"
        return web.json_response({"id": "c", "object": "chat.completion", "model": body["model"],
                                  "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": text}}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    async def _completions(self, request):
        from aiohttp import web

        body = await request.json()
        self.prompts[body["prompt"]] += 1
        faulty = await self._fault(request)
        if faulty is not None:
            return faulty
        words = body["prompt"].split(" ")
        tokens = [words[0]] + [" " + w for w in words[1:]] + ["<gen>"]
        values = [None] + [-1.0 * len(t) for t in tokens[1:]]
        if "prompt_logprobs" in body:  # vLLM's shape: per prompt position {token id: entry}
            prompt_lp = [None] + [{str(100 + i): {"logprob": v, "rank": 1, "decoded_token": t}}
                                  for i, (t, v) in enumerate(zip(tokens[1:-1], values[1:-1]))]
            return web.json_response({"id": "c", "object": "text_completion", "model": body["model"],
                                      "choices": [{"index": 0, "text": "<gen>", "finish_reason": "length",
                                                   "logprobs": None, "prompt_logprobs": prompt_lp}]})
        return web.json_response({"id": "c", "object": "text_completion", "model": body["model"],
                                  "choices": [{"index": 0, "text": body["prompt"] + "<gen>", "finish_reason": "length",
                                               "logprobs": {"tokens": tokens, "token_logprobs": values,
                                                            "text_offset": list(range(len(tokens))),
                                                            "top_logprobs": None}}],
                                  "usage": {"prompt_tokens": len(tokens) - 1, "completion_tokens": 1,
                                            "total_tokens": len(tokens)}})

    def close(self):
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def fake_settings(*servers, **overrides) -> dict:
    return {"backend": "openai", "model": "fake", "base_urls": [s.url for s in servers], "max_retries": 3,
            "backoff_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5, **overrides}


def run(coro):
    return asyncio.run(coro)


def journal_lines(path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines() if Path(path).exists() else []

