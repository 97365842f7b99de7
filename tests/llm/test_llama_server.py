"""The `openai` backend against a real server: llama-cpp-python on the same SmolLM2 GGUF.

Echo scoring costs ~70 ms per prompt token there, so prompts are short.
"""

from __future__ import annotations

import pytest
from llm_testlib import BOS, run

from irdata.llm import LLMCallError, make_client

pytestmark = pytest.mark.llm

# Per-token agreement of llama.cpp's quantized kernels with transformers' fp32 dequantized
# weights on the same GGUF: measured up to 0.16 nat per token on these prompts (0.19 on a
# 12-token passage).
LOGPROB_TOL = 0.3
PAIRS = [("The capital of France is", " Paris."), ("Cats are", " small pets.")]
TOOLS = [{"type": "function", "function": {"name": "search", "description": "Search passages with BM25.",
                                           "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                                                          "required": ["query"]}}}]


@pytest.fixture
def server_settings(llama_server):
    return {"backend": "openai", "model": "smollm2", "base_urls": [llama_server], "max_tokens": 16,
            "timeout_s": 60, "loglikelihood_prefix": BOS}


def test_chat_and_grade(server_settings):
    async def go():
        async with make_client(server_settings) as c:
            chat = await c.chat([{"role": "user", "content": "What is the capital of France?"}])
            again = await c.chat([{"role": "user", "content": "What is the capital of France?"}])
            grade = await c.grade([{"role": "user", "content": "Grade 0-3: query cats, passage: cats are pets."}])
            graw = await c._call(None, "grade", {"messages": [{"role": "user", "content": "Grade 0-3: cats?"}],
                                                 "choices": ["0", "1", "2", "3"]})
            return chat, again, grade, graw, c.identity(), c.stats

    chat, again, grade, graw, ident, stats = run(go())
    assert chat.text.strip() and chat.text == again.text  # temperature 0, seed 0: deterministic
    assert grade.label in {"0", "1", "2", "3"} and grade.failure is None
    assert graw["constrained"] is True and graw["reply"] in {"0", "1", "2", "3"}  # logit_bias on the digits
    assert ident["backend"] == "openai" and ident["server"]["models"][0]["id"] == "smollm2"
    assert stats.failures == 0 and stats.retries == 0


def test_loglikelihood_agrees_with_the_local_backend(server_settings, local_settings):
    async def go(settings):
        async with make_client(settings) as c:
            return await c.loglikelihood_many(PAIRS, progress=False)

    remote = run(go(server_settings))
    local = run(go({**local_settings, "loglikelihood_prefix": BOS}))
    for r, loc in zip(remote, local):
        assert len(r) == len(loc)
        assert max(abs(a - b) for a, b in zip(r, loc)) < LOGPROB_TOL, (r, loc)


def test_native_tool_call_and_follow_up_turn(server_settings):
    messages = [{"role": "user", "content": "Find passages about cats."}]

    async def go():
        async with make_client({**server_settings, "tool_protocol": "native"}) as c:
            # llama-cpp-python returns tool calls only when tool_choice names the function
            first = await c.chat(messages, tools=TOOLS, max_tokens=48,
                                 tool_choice={"type": "function", "function": {"name": "search"}})
            follow = [*messages, {"role": "assistant", "content": None, "tool_calls": first.raw["tool_calls"]},
                      {"role": "tool", "tool_call_id": first.raw["tool_calls"][0]["id"], "content": "d1: Cats purr."}]
            second = await c.chat(follow, max_tokens=16)
            return first, second

    first, second = run(go())
    assert first.raw["tool_calls"][0]["function"]["name"] == "search"
    # Arguments cut by max_tokens are reported, not dropped.
    assert (first.tool_calls and first.tool_calls[0].name == "search") or "search" in first.protocol_error
    assert second.text.strip()  # the null-content assistant turn was accepted


def test_text_tool_protocol_over_the_server(server_settings):
    async def go():
        async with make_client(server_settings) as c:
            return await c.chat([{"role": "user", "content": "Find passages about cats."}], tools=TOOLS, max_tokens=32)

    res = run(go())
    assert isinstance(res.text, str)
    assert res.tool_calls or res.protocol_error or res.text.strip()


def test_both_transports_give_the_same_answers(server_settings):
    async def go(transport):
        async with make_client({**server_settings, "transport": transport}) as c:
            chat = await c.chat([{"role": "user", "content": "Name a color."}], max_tokens=8)
            return chat.text, await c.loglikelihood("Cats are", " small pets.")

    assert run(go("openai")) == run(go("aiohttp"))


def test_prompt_logprobs_on_a_server_without_them_is_a_clear_failure(server_settings):
    async def go():
        async with make_client({**server_settings, "loglikelihood_api": "prompt_logprobs"}) as c:
            res = await c.loglikelihood_many([("Cats are", " pets.")], on_error="return", progress=False)
            return res, c.stats

    (err,), stats = run(go())
    assert isinstance(err, LLMCallError) and "loglikelihood_api: echo" in str(err)
    assert stats.failures == 1
