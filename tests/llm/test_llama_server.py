"""The `openai` backend against a real server: llama-cpp-python on the same SmolLM2 GGUF.

Echo scoring costs ~70 ms per prompt token there, so prompts are short.
"""

from __future__ import annotations

import pytest
from llm_testlib import run

from irdata.llm import LLMCallError, make_client
from irdata.llm.results import ServersUnusable

pytestmark = pytest.mark.llm

SMOLLM2_BOS = "<|im_start|>"
# The same text scored three ways must agree this closely where the tokenisation is the same.
EXACT = 1e-3
# llama.cpp's Q4_1 kernels (activations quantised to 8 bits) against transformers' fp32
# dequantised weights on the same GGUF: measured up to 0.37 nat per token on these pairs.
QUANTISED = 0.5
# No pair shares a prefix beyond BOS with another or with the alignment check's probe prompts,
# so the server evaluates each one after its cached BOS in one batch, as _llama_cpp_by_hand does
# (llama.cpp's numbers depend on how a prompt is batched: up to 4e-3 nat otherwise).
PAIRS = [("Cats are", " small pets."), ("Question: what do cats eat?\nAnswer:", " Cats eat meat and fish."),
         ("Water boils at", " 100 degrees.")]
TOOLS = [{"type": "function", "function": {"name": "search", "description": "Search passages with BM25.",
                                           "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                                                          "required": ["query"]}}}]
GRADE = [{"role": "system", "content": "Grade relevance 0-3. Reply with one digit."},
         {"role": "user", "content": "Query: cats. Passage: Cats are small pets."}]


@pytest.fixture
def server_settings(llama_server):
    return {"backend": "openai", "model": "smollm2", "base_urls": [llama_server], "max_tokens": 16,
            "timeout_s": 60}


@pytest.fixture
def bos_settings(server_settings):
    """SmolLM2's tokenizer adds no BOS, and llama-cpp-python aligns echoes only after one."""
    return {**server_settings, "loglikelihood_bos": "always", "loglikelihood_bos_text": SMOLLM2_BOS}


def test_chat_and_grade(server_settings):
    async def go():
        async with make_client(server_settings) as c:
            chat = await c.chat([{"role": "user", "content": "What is the capital of France?"}])
            again = await c.chat([{"role": "user", "content": "What is the capital of France?"}])
            grades = await c.grade_many([GRADE, [{"role": "user", "content": "Grade 0-3: cats?"}]], progress=False)
            return chat, again, grades, c.identity(), c.stats

    chat, again, grades, ident, stats = run(go())
    assert chat.text.strip() and chat.text == again.text  # temperature 0, seed 0: deterministic
    assert chat.finish_reason in {"stop", "length"}
    assert all(g.label in {"0", "1", "2", "3"} and g.failure is None for g in grades)
    # The probe found logit_bias working on single-token digits (no structured outputs on llama-cpp-python).
    assert {g.path for g in grades} == {"logit_bias"} and stats.grade_paths == {"logit_bias": 2}
    assert "grade_constraint_paths" not in ident  # the path is per grade (above), not the job's
    assert ident["backend"] == "openai" and ident["server"]["models"][0]["id"] == "smollm2"
    assert stats.failures == 0 and stats.retries == 0


def test_the_servers_check_refuses_a_model_name_the_server_does_not_serve(server_settings):
    """llama-cpp-python answers any model name; the check reads /v1/models and stops the job."""
    async def go():
        async with make_client({**server_settings, "model": "SmolLM2-135M"}) as c:
            return await c.chat([{"role": "user", "content": "Hi"}])

    with pytest.raises(ServersUnusable, match=r"model 'SmolLM2-135M' is not served \(served: 'smollm2'\)"):
        run(go())


def test_a_dead_url_beside_the_real_server_is_left_out(server_settings, caplog):
    import logging

    from llm_testlib import dead_url

    caplog.set_level(logging.WARNING, logger="irdata.llm")
    dead = dead_url()

    async def go():
        async with make_client({**server_settings, "base_urls": [dead, *server_settings["base_urls"]],
                                "max_tokens": 4}) as c:
            return await c.chat_many([[{"role": "user", "content": f"Say {w}."}] for w in ("yes", "no", "maybe")],
                                     progress=False), c.stats

    results, stats = run(go())
    assert all(r.text.strip() for r in results) and stats.failures == 0 and stats.retries == 0
    assert f"LLM server {dead} left out until it answers" in caplog.text


def test_echo_without_bos_is_refused_as_misaligned(server_settings):
    async def go():
        async with make_client(server_settings) as c:
            return await c.loglikelihood_many(PAIRS[:2], on_error="return", progress=False), c.stats

    results, stats = run(go())
    assert all(isinstance(r, LLMCallError) and r.kind == "misaligned" for r in results)
    assert "loglikelihood_bos: always" in results[0].reason and stats.failures_by_kind == {"misaligned": 2}


def _llama_cpp_by_hand(gguf_path, pairs):
    """Per-token log-probabilities of each continuation computed in process with llama-cpp-python
    on the same GGUF: BOS + tokens of context + continuation, logits of every position."""
    import numpy as np
    from llama_cpp import Llama

    llm = Llama(model_path=str(gguf_path), logits_all=True, n_ctx=512, n_threads=1, n_threads_batch=1,
                seed=0, verbose=False)
    out = []
    for ctx, cont in pairs:
        ctx_ids = llm.tokenize(ctx.encode(), add_bos=False, special=True)
        ids = [llm.token_bos()] + llm.tokenize((ctx + cont).encode(), add_bos=False, special=True)
        assert ids[1:1 + len(ctx_ids)] == ctx_ids  # the same split as the backend's
        llm.reset()
        llm.eval(ids[:1])  # the server has the BOS cached from the previous request
        llm.eval(ids[1:])
        logits = np.asarray(llm.scores[:len(ids)], dtype=np.float64)
        logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
        start = 1 + len(ctx_ids)
        out.append([float(logp[i - 1, ids[i]]) for i in range(start, len(ids))])
    llm.close()
    return out


def test_log_likelihoods_agree_three_ways(bos_settings, local_settings, gguf_path):
    """Server == llama-cpp-python by hand (same kernels) within 1e-3 a token; server vs the local
    backend (fp32) within the quantisation gap, measured."""
    async def go(settings):
        async with make_client({**settings, "max_in_flight": 1}) as c:
            return await c.loglikelihood_many(PAIRS, progress=False), c.stats

    remote, stats = run(go(bos_settings))
    assert stats.failures == 0
    by_hand = _llama_cpp_by_hand(gguf_path, PAIRS)
    local, _ = run(go({**local_settings, "loglikelihood_bos": "always"}))
    exact = worst = 0.0
    for r, h, loc in zip(remote, by_hand, local):
        assert len(r) == len(h) == len(loc)
        exact = max(exact, max(abs(a - b) for a, b in zip(r, h)))
        worst = max(worst, max(abs(a - b) for a, b in zip(r, loc)))
    print(f"per token, max: server vs llama-cpp-python by hand {exact:.2e}, server vs local backend {worst:.4f} nat")
    assert exact < EXACT
    assert worst < QUANTISED


def test_native_tool_call_and_follow_up_turn(server_settings):
    messages = [{"role": "user", "content": "Find passages about cats."}]

    async def go():
        async with make_client({**server_settings, "tool_protocol": "native"}) as c:
            # llama-cpp-python returns tool calls only when tool_choice names the function
            named = await c.chat(messages, tools=TOOLS, max_tokens=48,
                                 tool_choice={"type": "function", "function": {"name": "search"}})
            auto = await c.chat(messages, tools=TOOLS, max_tokens=16, tool_choice="auto")
            follow = [*messages, {"role": "assistant", "content": None, "tool_calls": named.raw["tool_calls"]},
                      {"role": "tool", "tool_call_id": named.raw["tool_calls"][0]["id"], "content": "d1: Cats purr."}]
            second = await c.chat(follow, max_tokens=16)
            return named, auto, second

    named, auto, second = run(go())
    assert named.raw["tool_calls"][0]["function"]["name"] == "search"
    # Arguments cut by max_tokens are reported, not dropped.
    assert (named.tool_calls and named.tool_calls[0].name == "search") or "search" in named.protocol_error
    assert auto.raw["tool_calls"] == [] and auto.tool_calls == []  # "auto": text only, on the default handler
    assert second.text.strip()  # the null-content assistant turn was accepted


def test_text_tool_protocol_over_the_server(server_settings):
    async def go():
        async with make_client(server_settings) as c:
            return await c.chat([{"role": "user", "content": "Find passages about cats."}], tools=TOOLS, max_tokens=32)

    res = run(go())
    assert isinstance(res.text, str)
    assert res.tool_calls or res.protocol_error or res.text.strip()


def test_both_transports_give_the_same_answers(bos_settings):
    async def go(transport):
        async with make_client({**bos_settings, "transport": transport}) as c:
            chat = await c.chat([{"role": "user", "content": "Name a color."}], max_tokens=8)
            grade = await c.grade(GRADE)
            return chat.text, grade.label, await c.loglikelihood("Cats are", " small pets.")

    assert run(go("openai")) == run(go("aiohttp"))


def test_prompt_logprobs_on_a_server_without_them_is_a_clear_failure(bos_settings):
    async def go():
        async with make_client({**bos_settings, "loglikelihood_api": "prompt_logprobs"}) as c:
            res = await c.loglikelihood_many([("Cats are", " pets.")], on_error="return", progress=False)
            return res, c.stats

    (err,), stats = run(go())
    assert isinstance(err, LLMCallError) and "loglikelihood_api: echo" in str(err)
    assert err.kind == "unsupported_model" and stats.failures == 1
