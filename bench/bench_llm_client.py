"""Client overhead of the LLM layer against a server that answers instantly.

Prints requests/s of irdata.llm (backend `openai`) at 1, 64 and 256 in flight, next to bare
`httpx` and `aiohttp` loops posting the same requests in the same run, and the client's CPU
time per call: the layer's against the faster bare loop's is what the layer itself costs.
The server runs in its own process so that it does not share the client's interpreter lock.

usage: python bench/bench_llm_client.py [--calls N] [--levels 1,64,256] [--journal]
Target: layer overhead < 10% of the bare loop and >= 1,000 calls/s on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import socket
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

    async def chat(request):
        await request.read()
        return web.Response(body=ANSWER, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    ready.set()
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None, backlog=1024)


# The bare loops send exactly what the layer sends, so the ratio is the layer's own cost.
HEADERS = {"Authorization": "Bearer no-key", "Content-Type": "application/json"}


def body(i: int) -> dict:
    return {"model": "bench", "temperature": 0, "seed": 0, "repeat_penalty": 1.0, "messages": messages(i),
            "max_tokens": 1}


def messages(i: int) -> list[dict]:
    return [{"role": "system", "content": "Grade the passage's relevance to the query 0-3."},
            {"role": "user", "content": f"Query {i}: what is bm25? Passage: BM25 is a ranking function."}]


async def bare_httpx(url: str, n: int, width: int) -> None:
    import httpx

    limits = httpx.Limits(max_connections=width, max_keepalive_connections=width)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60, headers=HEADERS) as h:
        it = iter(range(n))

        async def worker():
            for i in it:
                r = await h.post("/chat/completions", content=json.dumps(body(i)))
                r.raise_for_status()
                json.loads(r.content)["choices"][0]["message"]["content"]

        await asyncio.gather(*(worker() for _ in range(width)))


async def bare_aiohttp(url: str, n: int, width: int) -> None:
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=width), headers=HEADERS) as s:
        it = iter(range(n))

        async def worker():
            for i in it:
                async with s.post(f"{url}/chat/completions", data=json.dumps(body(i))) as r:
                    r.raise_for_status()
                    json.loads(await r.read())["choices"][0]["message"]["content"]

        await asyncio.gather(*(worker() for _ in range(width)))


async def layer(url: str, n: int, width: int, journal: Path | None) -> None:
    from irdata.llm import make_client

    settings = {"backend": "openai", "model": "bench", "base_urls": [url], "max_in_flight": width, "max_tokens": 1}
    async with make_client(settings, journal_path=journal) as c:
        res = await c.chat_many([messages(i) for i in range(n)], progress=False)
        assert c.stats.calls == n and c.stats.failures == c.stats.retries == 0 and res[-1].text == "2", c.stats


def timed(coro_fn, *args) -> tuple[float, float]:
    """Wall seconds and this process's CPU seconds. CPU per call is the client's own cost and
    barely moves when other jobs load the machine; requests/s does."""
    t0, c0 = time.perf_counter(), time.process_time()
    asyncio.run(coro_fn(*args))
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--levels", default="1,64,256")
    ap.add_argument("--journal", action="store_true", help="journal every call too (the production setting)")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs per cell (shared cores are noisy)")
    args = ap.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ready = mp.Event()
    server = mp.Process(target=serve, args=(port, ready), daemon=True)
    server.start()
    ready.wait(10)
    url = f"http://127.0.0.1:{port}/v1"
    import httpx

    for _ in range(100):
        try:
            httpx.post(f"{url}/chat/completions", json={}, timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)

    print(f"{'in flight':>9} {'httpx/s':>8} {'aiohttp/s':>9} {'layer/s':>8} {'layer/bare':>10} "
          f"{'bare us/call':>12} {'layer us/call':>13} {'cpu overhead':>12}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for width in map(int, args.levels.split(",")):
                n = args.calls if width > 1 else max(args.calls // 3, 200)
                rate, cpu = {}, {}
                for rep in range(args.repeats):
                    journal = Path(tmp) / f"j{width}-{rep}.jsonl" if args.journal else None
                    for name, fn, extra in (("httpx", bare_httpx, ()), ("aiohttp", bare_aiohttp, ()),
                                            ("layer", layer, (journal,))):
                        wall, used = timed(fn, url, n, width, *extra)
                        rate[name] = max(rate.get(name, 0.0), n / wall)
                        cpu[name] = min(cpu.get(name, float("inf")), used / n * 1e6)
                bare = max(("httpx", "aiohttp"), key=rate.get)
                print(f"{width:>9} {rate['httpx']:>8.0f} {rate['aiohttp']:>9.0f} {rate['layer']:>8.0f} "
                      f"{rate['layer'] / rate[bare]:>10.2f} {cpu[bare]:>12.0f} {cpu['layer']:>13.0f} "
                      f"{cpu['layer'] / cpu[bare] - 1:>12.0%}", flush=True)
    finally:
        server.terminate()
        server.join(5)


if __name__ == "__main__":
    main()
