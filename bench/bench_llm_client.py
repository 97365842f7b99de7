"""Client overhead of the LLM layer against a server that answers instantly.

Prints calls/s of irdata.llm (backend `openai`, journal on as in production) at 64 and 256 in
flight, next to a bare aiohttp loop posting the same requests in the same run, and the client's
CPU time per call: the layer's against the bare loop's is what the layer itself costs (request
key, journal line, coalescing, spreading, stats). The server runs in its own process, pinned to
its own core where there are two, so that it shares neither the client's interpreter lock nor
its core.

Calls/s of one run on a shared 2-core VM swing by a third either way with how the two processes
happen to interleave, more than the layer costs. So each cell is the median of --rounds runs,
the arms interleaved and their order alternated round by round, and the ratio is the median of
the rounds' own ratios (each round's arms ran back to back, under the same conditions).

A third arm, `bare+gc`, is the bare loop under the collector settings a client's requests in flight use
(irdata.llm.client.hold_gc): layer/bare is what a user sees against a plain aiohttp loop;
layer/(bare+gc) is the layer's own code with the collector's part taken out.

usage: python bench/bench_llm_client.py [--calls N] [--levels 64,256] [--rounds 9] [--no-journal]
Target: layer >= 0.9x the bare loop's calls/s with the journal on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow_scripts"))

ANSWER = json.dumps({"id": "c", "object": "chat.completion", "model": "bench",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": "2"}}],
                     "usage": {"prompt_tokens": 40, "completion_tokens": 1, "total_tokens": 41}}).encode()


def serve(port: int, ready) -> None:
    from aiohttp import web

    pin(server=True)

    async def chat(request):
        await request.read()
        return web.Response(body=ANSWER, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    ready.set()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, backlog=1024)


def pin(server: bool) -> None:
    """The server on the last core, the client on the others (where there are two or more)."""
    if not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= 2:
        os.sched_setaffinity(0, {cores[-1]} if server else set(cores[:-1]))


# The bare loop sends exactly what the layer sends, from the same list of conversations, and
# keeps each reply, so the ratio is the layer's own cost.
HEADERS = {"Authorization": "Bearer no-key", "Content-Type": "application/json"}


def body(messages: list) -> dict:
    return {"model": "bench", "temperature": 0, "seed": 0, "repeat_penalty": 1.0, "messages": messages,
            "max_tokens": 1}


def messages(i: int) -> list[dict]:
    return [{"role": "system", "content": "Grade the passage's relevance to the query 0-3."},
            {"role": "user", "content": f"Query {i}: what is bm25? Passage: BM25 is a ranking function."}]


async def bare_aiohttp(url: str, convos: list, width: int) -> list:
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=width), headers=HEADERS) as s:
        it = iter(range(len(convos)))
        out = [None] * len(convos)

        async def worker():
            for i in it:
                async with s.post(f"{url}/chat/completions", data=json.dumps(body(convos[i]))) as r:
                    r.raise_for_status()
                    out[i] = json.loads(await r.read())["choices"][0]["message"]["content"]

        await asyncio.gather(*(worker() for _ in range(width)))
        return out


async def layer(url: str, convos: list, width: int, journal: Path | None) -> list:
    from irdata.llm import make_client

    settings = {"backend": "openai", "model": "bench", "base_urls": [url], "max_in_flight": width, "max_tokens": 1}
    async with make_client(settings, journal_path=journal) as c:
        res = await c.chat_many(convos, progress=False)
        n = len(convos)
        assert c.stats.calls == n and c.stats.failures == c.stats.retries == 0 and res[-1].text == "2", c.stats
        return res


async def bare_aiohttp_gc(url: str, convos: list, width: int) -> list:
    from irdata.llm.client import hold_gc, release_gc

    hold_gc()
    try:
        return await bare_aiohttp(url, convos, width)
    finally:
        release_gc()


def timed(coro_fn, *args) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds. CPU per call is the client's own cost and
    barely moves when other jobs load the machine; requests/s does."""
    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(coro_fn(*args))
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000, help="calls per run")
    ap.add_argument("--levels", default="64,256")
    ap.add_argument("--no-journal", action="store_true", help="no journal (production journals every call)")
    ap.add_argument("--rounds", type=int, default=9, help="runs of each arm per cell, interleaved; medians reported")
    args = ap.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ready = mp.Event()
    server = mp.Process(target=serve, args=(port, ready), daemon=True)
    server.start()
    pin(server=False)
    ready.wait(10)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)

    print(f"{'in flight':>9} {'bare/s':>7} {'bare+gc/s':>9} {'layer/s':>7} {'layer/bare':>10} "
          f"{'layer/(bare+gc)':>15} {'us/call bare':>12} {'bare+gc':>7} {'layer':>5}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for width in map(int, args.levels.split(",")):
                n = args.calls
                rate: dict[str, list] = {}
                cpu: dict[str, list] = {}
                arms = [("bare", bare_aiohttp), ("bare+gc", bare_aiohttp_gc), ("layer", layer)]
                for rnd in range(args.rounds):
                    journal = None if args.no_journal else Path(tmp) / f"j{width}-{rnd}.jsonl"
                    for name, fn in (arms if rnd % 2 == 0 else arms[::-1]):
                        extra = (journal,) if fn is layer else ()
                        convos = [messages(i) for i in range(n)]
                        wall, used = timed(fn, url, convos, width, *extra)
                        rate.setdefault(name, []).append(n / wall)
                        cpu.setdefault(name, []).append(used / n * 1e6)
                med = {k: statistics.median(v) for k, v in rate.items()}
                ratio = statistics.median(a / b for a, b in zip(rate["layer"], rate["bare"]))
                ratio_gc = statistics.median(a / b for a, b in zip(rate["layer"], rate["bare+gc"]))
                us = {k: statistics.median(v) for k, v in cpu.items()}
                print(f"{width:>9} {med['bare']:>7.0f} {med['bare+gc']:>9.0f} {med['layer']:>7.0f} {ratio:>10.2f} "
                      f"{ratio_gc:>15.2f} {us['bare']:>12.0f} {us['bare+gc']:>7.0f} {us['layer']:>5.0f}", flush=True)
    finally:
        server.terminate()
        server.join(5)


if __name__ == "__main__":
    main()
