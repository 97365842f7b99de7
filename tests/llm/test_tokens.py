"""Tokens counted where they are spent, and calls routed for a server's prefix cache: the client
counts each call's usage by kind (never a journal hit's), the simulated vLLM prefix cache of
tests/model_server.py reuses exactly the blocks a prompt shares, and a query's calls stay on one
URL while it is healthy and within ROUTE_SLACK of the least busy."""

from __future__ import annotations

import json
import time

import pytest
from llm_testlib import fake_settings, run

from irdata.doubting.gate import collect_tokens, read_stats
from irdata.doubting.manifest import llm_tokens
from irdata.errors import InputError
from irdata.llm import Stats, load_settings, make_client
from irdata.llm.openai_backend import usage
from irdata.llm.spreading import ROUTE_SLACK, RetryLog, URLPool
from irdata.report import tokens_html
from model_server import ModelServer, PrefixCache

GRADE = [{"role": "user", "content": "Rate how well a passage answers a query. <query>cats</query>"}]
ANSWER = [{"role": "user", "content": "Write an answer: cats are small felines"}]


# -- the simulated prefix cache ------------------------------------------------------------------


def test_prefix_cache_reuses_whole_shared_blocks_and_never_the_last_token():
    cache = PrefixCache(capacity=100, block_size=4)
    first = list(range(10))  # blocks [0-3] [4-7], 2 tokens left over
    assert cache.serve(first) == 0
    assert cache.serve(first) == 8  # both full blocks
    assert cache.serve(first[:8]) == 4  # block-aligned and all cached: the last block is computed again
    assert cache.serve([*first[:6], 99, 98, 97]) == 4  # diverges inside the second block
    assert cache.serve([7, *first[1:10]]) == 0  # a block counts only after the same whole prefix


def test_prefix_cache_evicts_least_recently_used_blocks_tail_first():
    cache = PrefixCache(capacity=3, block_size=2)
    a, b = [1, 1, 2, 2, 3, 3, 0], [5, 5, 6, 6, 0]
    cache.serve(a)  # 3 blocks: full
    cache.serve(b)  # 2 more: a's tail (3,3) then (2,2) go first, its head stays
    assert cache.serve(a) == 2
    assert PrefixCache(capacity=0, block_size=2).serve(a) == 0


# -- counting ----------------------------------------------------------------------------------


def test_usage_is_read_as_vllm_reports_it():
    assert usage({"usage": {"prompt_tokens": 30, "completion_tokens": 2,
                            "prompt_tokens_details": {"cached_tokens": 16}}}) == (30, 2, 16)
    assert usage({"usage": {"prompt_tokens": 30, "completion_tokens": 2, "prompt_tokens_details": None}}) == (30, 2, 0)
    assert usage({"choices": []}) is None


def test_stats_count_tokens_per_kind_and_calls_without_usage():
    stats = Stats()
    stats.spent("grade", (100, 1, 64))
    stats.spent("grade", (50, 1, 0))
    stats.spent("chat", None)
    tokens = stats.as_dict()["tokens"]
    assert tokens["grade"] == {"calls": 2, "prompt_tokens": 150, "completion_tokens": 2,
                               "cached_prompt_tokens": 64, "calls_without_usage": 0}
    assert tokens["chat"]["calls_without_usage"] == 1 and tokens["chat"]["prompt_tokens"] == 0
    assert "grade tokens: 150 prompt (64 cached), 2 completion" in stats.summary_line()


@pytest.fixture(scope="module")
def cached_server():
    server = ModelServer(prefix_cache_blocks=1000)
    yield server
    server.close()


def test_client_counts_what_the_server_reports_and_nothing_for_journal_hits(cached_server, tmp_path):
    settings = fake_settings(cached_server, grade_retries=0)
    journal = tmp_path / "j.jsonl"

    async def go():
        async with make_client(settings, journal_path=journal) as c:
            g = await c.grade_many([GRADE, GRADE + [{"role": "user", "content": "and dogs?"}]], progress=False)
            a = await c.chat(ANSWER, route="q1")
            ll = await c.loglikelihood("The query: cats\nAnswer:", " small felines")
            return g, a, ll, c.stats

    grades, answer, logprobs, stats = run(go())
    assert all(g.label is not None for g in grades) and logprobs
    assert "usage" not in answer.raw  # cache-dependent counts never reach a value or the journal
    assert "usage" not in journal.read_text()
    t = stats.as_dict()["tokens"]
    assert set(t) == {"chat", "grade", "loglikelihood"}
    assert t["grade"]["calls"] == 2 and t["chat"]["calls"] == 1 and t["loglikelihood"]["calls"] == 1
    # the second grade repeats the first's whole conversation: its full blocks are cached
    assert t["grade"]["cached_prompt_tokens"] >= 16
    assert all(v["prompt_tokens"] > v["cached_prompt_tokens"] for v in t.values())
    assert all(v["completion_tokens"] >= 1 for v in t.values())

    _, _, _, again = run(go())  # every call from the journal: nothing spent
    assert again.journal_hits == 4 and again.as_dict()["tokens"] == {}


# -- routing -----------------------------------------------------------------------------------


def _pool(n: int) -> URLPool:
    return URLPool(load_settings(fake_settings(*[f"http://h{i}:1/v1" for i in range(n)])), None, Stats(), RetryLog())


def test_a_query_goes_to_one_url_and_queries_spread_over_all():
    pool = _pool(8)
    picks = {q: pool.pick(route=q) for q in map(str, range(400))}
    assert all(pool.pick(route=q) == i for q, i in picks.items())  # the same URL every time
    counts = [list(picks.values()).count(i) for i in range(8)]
    assert min(counts) >= 25  # ~50 each: rendezvous hashing spreads the keys
    assert [pool.pick() for _ in range(8)] == list(range(8))  # no key: least busy, round robin


def test_a_routed_call_falls_back_when_its_url_is_open_or_too_busy():
    pool = _pool(3)
    i = pool.pick(route="q7")
    # another URL's rank for this key: where it goes when its own is left out
    pool.health[i].open_until = time.monotonic() + 60
    j = pool.pick(route="q7")
    assert j != i and pool.pick(route="q7") == j
    pool.health[i].open_until = 0.0
    pool.health[i].in_flight = ROUTE_SLACK  # within the bound: still its own URL
    assert pool.pick(route="q7") == i
    pool.health[i].in_flight = ROUTE_SLACK + 1  # over it: the least busy
    assert pool.pick(route="q7") != i
    assert pool.pick(avoid=i, route="q7") != i  # a retry goes elsewhere


# -- per stage, in the gate's record, the manifest and the report --------------------------------


def _stats_file(path, tokens: dict):
    path.write_text(json.dumps({"stage": "grade", "failures": {}, "llm": {"tokens": tokens}}))
    return str(path)


def test_tokens_summed_per_stage_and_the_manifest_keeps_what_routing_cannot_change(tmp_path):
    one = {"calls": 2, "prompt_tokens": 100, "completion_tokens": 2, "cached_prompt_tokens": 32,
           "calls_without_usage": 0}
    files = {("grade", "train"): [_stats_file(tmp_path / "a.json", {"grade": one})],
             ("grade", "dev"): [_stats_file(tmp_path / "b.json", {"grade": one, "chat": one})]}
    tokens = collect_tokens(read_stats(files))
    assert tokens["grade"]["prompt_tokens"] == 300 and tokens["grade"]["cached_prompt_tokens"] == 96
    assert tokens["grade"]["by_op"]["grade"]["calls"] == 4 and tokens["grade"]["by_op"]["chat"]["calls"] == 2
    assert tokens["wood"]["calls"] == 0
    manifest = llm_tokens({"tokens": tokens})
    assert manifest["grade"] == {"calls": 6, "prompt_tokens": 300, "completion_tokens": 6, "calls_without_usage": 0}
    assert "300" in tokens_html({"tokens": manifest})
    assert "not available" in tokens_html({})

    bad = tmp_path / "old.json"
    bad.write_text(json.dumps({"stage": "grade", "failures": {}, "llm": {"calls": 1}}))
    with pytest.raises(InputError, match="llm.tokens"):
        read_stats({("grade", "train"): [str(bad)]})
