"""A fault-injecting OpenAI-compatible server of the tests' own on 127.0.0.1, for runs of the whole
workflow (tests/workflow, tests/llm). It answers like a very simple, deterministic model so that every
stage has something to do: the agent proposes the first ids it was shown and then finishes, a grade is
a digit chosen by a hash of the prompt, an answer is a fixed sentence, and log-likelihoods are echoed
per whitespace-separated token. It is not a model and proves nothing about labels: it exists to inject
faults (HTTP 500, 503 and 429, timeouts, cut-off JSON, dropped connections, unparseable grades) at chosen
rates, deterministically per request body and attempt (or per body alone: `sticky`), and to log every
request it received. With `misaligned_echo` it is a server whose echoed log-probabilities the
client's echo check refuses.

With `prefix_cache_blocks` set it also counts tokens as a vLLM server would: prompts tokenized with
the demo model's real tokenizer (SmolLM2's, from the converted weights folder of irdata.llm.local;
chat through its chat template), and an automatic prefix cache per server like vLLM's (PrefixCache),
whose hits are reported as usage.prompt_tokens_details.cached_tokens.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from irdata.llm.prefix_cache import PrefixBlocks

FAULTS = ("500", "503", "429", "timeout", "malformed", "drop", "garbage")
_TOKEN = re.compile(r"\S+|\s+")
_WORD = re.compile(r"\s*\S+|\s+")  # a word with its leading space: one token, as a generated word is
_SHOWN = re.compile(r"^\[([^\]\s]+)\]", re.M)


def demo_tokenizer(cache_dir: str = "~/.cache/irdata/models"):
    """The tokenizer of the demo model (SmolLM2-135M-Instruct), loaded from the folder its local
    backend converts the GGUF to (converted once, then reused); cache_dir: llm.weights_cache_dir."""
    from transformers import AutoTokenizer

    from irdata.llm.local import _gguf_sha, converted_weights, default_gguf

    gguf = default_gguf()
    return AutoTokenizer.from_pretrained(converted_weights(gguf, _gguf_sha(gguf), Path(cache_dir).expanduser()))


class PrefixCache(PrefixBlocks):
    """vLLM's automatic prefix caching, counted (irdata/llm/prefix_cache.py): the blocks are kept
    without values, only to count the tokens a vLLM server would have reused."""

    def __init__(self, capacity: int, block_size: int = 16):
        super().__init__(capacity, block_size)

    def serve(self, token_ids: list[int]) -> int:
        """The prompt's cached tokens; the prompt's blocks are cached afterwards."""
        keys = self.keys(token_ids)
        hits = len(self.reusable(keys[:(len(token_ids) - 1) // self.block_size]))
        self.store(keys, [None] * len(keys))
        return hits * self.block_size


def chat_text_messages(messages: list[dict], tools) -> list[dict]:
    """A request's conversation as plain role/content turns for the chat template: tool calls as
    their JSON, tool schemas before the system prompt (where vLLM's templates render them)."""
    out = []
    for m in messages:
        content = str(m.get("content") or "")
        if m.get("tool_calls"):
            content += json.dumps(m["tool_calls"], sort_keys=True)
        out.append({"role": "user" if m["role"] == "tool" else m["role"], "content": content})
    if tools:
        schemas = json.dumps(tools, sort_keys=True)
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": schemas + "\n" + out[0]["content"]}
        else:
            out.insert(0, {"role": "system", "content": schemas})
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request_kind(body: dict) -> str:
    """agent, grade, answer or loglikelihood: what a request asks, read from its prompt."""
    if "prompt" in body:
        return "loglikelihood"
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if "You are a search agent" in text:
        return "agent"
    if "Rate how" in text:
        return "grade"
    return "answer"


@dataclass
class Received:
    kind: str
    key: str  # sha256 of the request body (without the attempt)
    fault: str | None


@dataclass
class ModelServer:
    faults: dict[str, float] = field(default_factory=dict)  # fault -> rate per attempt
    fault_kinds: tuple[str, ...] = ("agent", "grade", "answer", "loglikelihood")  # requests that may fault
    # True: the draw ignores the attempt, so a request that faults faults on every attempt and on every
    # server sharing `faults`: a failure for good, of the same calls however they are spread
    sticky: bool = False
    # True: /v1/completions without echo answers as a generation of the one word " x" at log-probability
    # -1.0, which the echo path scores otherwise (tokens are words with their leading space): the
    # client's echo check refuses the server as misaligned (llama-cpp-python 0.3.36 without a BOS first)
    misaligned_echo: bool = False
    slow_s: float = 3.0
    # brief: the agent proposes the first two ids it was shown, then finishes; deep: each turn it
    # proposes every id just shown and reads the next page of BM25 results for the query (the
    # harness's reach at production budgets); never_tool: plain text, never a tool call (a server
    # without a tool parser)
    agent_policy: str = "brief"
    # The served model names: listed on /v1/models, and a request naming another is answered 404 as
    # vLLM does. None: any name is served, and /v1/models answers 404 (a job uses the server unchecked).
    models: tuple[str, ...] | None = None
    # None: usage counts whitespace-separated words (no tokenizer loaded); a number: real tokens and a
    # prefix cache of that many blocks (0: tokens counted, nothing cached)
    prefix_cache_blocks: int | None = None
    block_size: int = 16
    log: list[Received] = field(default_factory=list)

    def __post_init__(self):
        self._tok = None if self.prefix_cache_blocks is None else demo_tokenizer()
        self.cache = None if self.prefix_cache_blocks is None else PrefixCache(self.prefix_cache_blocks,
                                                                              self.block_size)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._attempts: Counter = Counter()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("model server did not start")

    # -- plumbing --------------------------------------------------------------------------------
    def _run(self):
        from aiohttp import web

        app = web.Application(client_max_size=64 << 20)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        self._runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(self._runner.setup())
        self._loop.run_until_complete(web.TCPSite(self._runner, "127.0.0.1", self.port).start())
        self._ready.set()
        self._loop.run_forever()

    def close(self):
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _choose_fault(self, kind: str, key: str) -> str | None:
        attempt = self._attempts[key]
        self._attempts[key] += 1
        if kind not in self.fault_kinds:
            return None
        draw_key = key if self.sticky else f"{key}:{attempt}"
        draw = int.from_bytes(hashlib.sha256(draw_key.encode()).digest()[:8], "big") / 2**64
        for fault in FAULTS:
            rate = self.faults.get(fault, 0.0)
            if draw < rate:
                return fault
            draw -= rate
        return None

    async def _faulty(self, request, body: dict):
        """(kind, fault, a response for a transport fault or None)."""
        from aiohttp import web

        kind = request_kind(body)
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        fault = self._choose_fault(kind, key)
        self.log.append(Received(kind, key, fault))
        if fault in ("500", "503"):
            return kind, fault, web.json_response({"error": "injected"}, status=int(fault))
        if fault == "429":
            return kind, fault, web.json_response({"error": "slow down"}, status=429, headers={"Retry-After": "0"})
        if fault == "timeout":
            await asyncio.sleep(self.slow_s)
        if fault == "malformed":
            return kind, fault, web.Response(text='{"choices": [', content_type="application/json")
        if fault == "drop":
            resp = web.StreamResponse(headers={"Content-Type": "application/json", "Content-Length": "4000"})
            await resp.prepare(request)
            await resp.write(b'{"id": "x", "choices": [{"index": 0, "mess')
            request.transport.close()
            return kind, fault, resp
        return kind, fault, None

    async def _models(self, request):
        from aiohttp import web

        if self.models is None:
            return web.json_response({"detail": "Not Found"}, status=404)
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})

    def _unknown_model(self, body: dict):
        from aiohttp import web

        if self.models is None or body.get("model") in self.models:
            return None
        return web.json_response({"error": {"message": f"The model `{body.get('model')}` does not exist."}},
                                 status=404)

    # -- answers ---------------------------------------------------------------------------------
    def _agent_actions(self, messages) -> list[tuple[str, dict]]:
        last = str(messages[-1].get("content") or "")
        shown = _SHOWN.findall(last)
        if self.agent_policy == "deep":
            first = next(str(m.get("content")) for m in messages if m["role"] == "user")
            query = first.split("<query>", 1)[1].split("</query>", 1)[0].strip()
            turn = sum(m["role"] == "assistant" for m in messages)
            return ([("propose", {"passage_ids": shown})] if shown else []) + [
                ("search_bm25", {"query": query, "page": turn + 1})]
        if "Accepted " not in last and shown:
            return [("propose", {"passage_ids": shown[:2]})]
        return [("finish", {})]

    @staticmethod
    def _message(actions, native: bool) -> dict:
        """The assistant message: native tool calls, or the text protocol's JSON actions."""
        if native:
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(actions)]}
        return {"role": "assistant", "content": "\n".join(json.dumps({"tool": name, "arguments": args})
                                                          for name, args in actions)}

    async def _chat(self, request):
        from aiohttp import web

        body = await request.json()
        unknown = self._unknown_model(body)
        if unknown is not None:
            return unknown
        kind, fault, response = await self._faulty(request, body)
        if response is not None:
            return response
        prompt = "\n".join(str(m.get("content") or "") for m in body["messages"])
        finish = "stop"
        if kind == "agent" and self.agent_policy == "never_tool":
            message = {"role": "assistant", "content": "I would search the passages for the answer."}
        elif kind == "agent":
            message = self._message(self._agent_actions(body["messages"]), native=bool(body.get("tools")))
            finish = "tool_calls" if message.get("tool_calls") else "stop"
        elif kind == "grade":
            digit = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 4
            message = {"role": "assistant", "content": "I cannot tell." if fault == "garbage" else f"Grade: {digit}"}
        else:
            message = {"role": "assistant", "content": "A short answer from the passages."}
        if self._tok is None:
            usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": 8,
                     "total_tokens": len(prompt.split()) + 8}
        else:
            tok = self._tok
            text = tok.apply_chat_template(chat_text_messages(body["messages"], body.get("tools")),
                                           add_generation_prompt=True, tokenize=False)
            ids = tok(text, add_special_tokens=False)["input_ids"]
            reply = message.get("content") or json.dumps(message.get("tool_calls"))
            usage = self._usage(ids, len(tok(reply, add_special_tokens=False)["input_ids"]) + 1)  # + end of turn
        return web.json_response({
            "id": "c", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": finish, "message": message}], "usage": usage})

    def _usage(self, prompt_ids: list[int], completion_tokens: int) -> dict:
        """vLLM's usage object, with the prefix cache's hits."""
        n = len(prompt_ids)
        return {"prompt_tokens": n, "completion_tokens": completion_tokens, "total_tokens": n + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": self.cache.serve(prompt_ids)}}

    def _prompt_tokens(self, prompt: str) -> tuple[list[str], list[int] | None]:
        """The prompt's tokens as text pieces that join to it, and their ids (None: split by whitespace)."""
        if self._tok is None:
            return (_WORD if self.misaligned_echo else _TOKEN).findall(prompt), None
        enc = self._tok(prompt, add_special_tokens=False, return_offsets_mapping=True)
        starts = [0] + [a for a, _ in enc["offset_mapping"][1:]] + [len(prompt)]
        return [prompt[a:b] for a, b in zip(starts, starts[1:])], enc["input_ids"]

    async def _completions(self, request):
        from aiohttp import web

        body = await request.json()
        unknown = self._unknown_model(body)
        if unknown is not None:
            return unknown
        _, _, response = await self._faulty(request, body)
        if response is not None:
            return response
        prompt = body["prompt"]
        if self.misaligned_echo and not body.get("echo"):
            return web.json_response({
                "id": "c", "object": "text_completion", "model": body.get("model"),
                "choices": [{"index": 0, "text": " x", "finish_reason": "length",
                             "logprobs": {"tokens": [" x"], "token_logprobs": [-1.0], "text_offset": [len(prompt)],
                                          "top_logprobs": None}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        tokens, ids = self._prompt_tokens(prompt)
        offsets, at = [], 0
        for token in tokens:
            offsets.append(at)
            at += len(token)
        values = [None] + [-0.05 * len(t) - 0.1 for t in tokens[1:]]
        # vLLM's shape: the echoed prompt tokens, then the generated one
        return web.json_response({
            "id": "c", "object": "text_completion", "model": body.get("model"),
            "choices": [{"index": 0, "text": prompt + " x", "finish_reason": "length",
                         "logprobs": {"tokens": tokens + [" x"], "token_logprobs": values + [-1.0],
                                      "text_offset": offsets + [len(prompt)], "top_logprobs": None}}],
            "usage": {"prompt_tokens": len(tokens), "completion_tokens": 1, "total_tokens": len(tokens) + 1}
            if ids is None else self._usage(ids, 1)})

    # -- what it saw ----------------------------------------------------------------------------
    def received(self, kind: str | None = None) -> list[Received]:
        return [r for r in self.log if kind is None or r.kind == kind]

    def faulted(self, kind: str) -> set[str]:
        """Bodies of `kind` that got a transport fault (not an unparseable reply) at least once."""
        return {r.key for r in self.received(kind) if r.fault not in (None, "garbage")}
