"""Fault injection against fake servers on 127.0.0.1: every call ends with a correct answer or a
clear failure counted by kind; dead URLs are routed around; the journal makes a rerun after
kill -9 repeat no completed call; server quirks (BOS, echo shapes, tokenizers, constraints) are
detected, not guessed."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from llm_testlib import BOS_TEXT, FakeServer, dead_url, fake_logprob, fake_settings, journal_lines, run

from irdata.llm import LLMCallError, SyncClient, make_client
from irdata.llm.journal import Journal
from irdata.llm.transports import TransientError

HERE = Path(__file__).resolve().parent
USER = [{"role": "user", "content": "REPLY:hello"}]


async def _chat_once(settings, messages=USER, journal=None):
    async with make_client(settings, journal_path=journal) as c:
        try:
            result = await c.chat(messages)
        except LLMCallError as e:
            result = e
        return result, c.stats


# -- transport faults ------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
@pytest.mark.parametrize("fault, kind", [("500", "http_500"), ("429", "http_429"), ("timeout", "timeout"),
                                         ("malformed", "malformed_response"), ("drop", "connection")])
def test_transient_fault_is_retried_to_the_right_answer(fake_server, fault, kind, transport):
    fake_server.faults = [fault, fault]
    fake_server.retry_after = "0"
    fake_server.slow_s = 1.0
    result, stats = run(_chat_once(fake_settings(fake_server, timeout_s=0.4, transport=transport)))
    assert result.text == "hello" and result.finish_reason == "stop"
    assert stats.retries == 2 and stats.retries_by_kind == {kind: 2}
    assert stats.failures == 0 and stats.calls == 1
    assert fake_server.requests == 3


def test_retry_after_is_honoured(fake_server):
    fake_server.faults = ["429"]
    fake_server.retry_after = "1"
    t0 = time.monotonic()
    result, stats = run(_chat_once(fake_settings(fake_server, backoff_max_s=5)))
    assert result.text == "hello" and stats.retries == 1
    assert time.monotonic() - t0 >= 1.0


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_persistent_fault_is_a_failure_counted_by_kind(fake_server, transport):
    fake_server.faults = ["500"] * 10
    result, stats = run(_chat_once(fake_settings(fake_server, max_retries=2, transport=transport)))
    assert isinstance(result, LLMCallError) and result.kind == "http_500"
    assert result.reason == "HTTP 500 (every retry failed too)"
    assert stats.failures == 1 and stats.failures_by_kind == {"http_500": 1} and stats.retries == 2
    assert fake_server.requests == 3


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
@pytest.mark.parametrize("status", ["400", "404"])
def test_client_error_is_not_retried(fake_server, transport, status):
    fake_server.faults = [status]
    result, stats = run(_chat_once(fake_settings(fake_server, transport=transport)))
    assert isinstance(result, LLMCallError) and f"HTTP {status}" in str(result) and result.kind == f"http_{status}"
    assert stats.retries == 0 and stats.failures_by_kind == {f"http_{status}": 1} and fake_server.requests == 1


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
@pytest.mark.parametrize("fault, kind", [("500", "http_500"), ("timeout", "timeout"),
                                         ("malformed", "malformed_response"), ("drop", "connection"),
                                         ("400", "http_400")])
def test_failure_reasons_name_no_server(fake_server, fault, kind, transport):
    """A reason may be published (a grade's `failure`, MANIFEST.json): it names the kind and the HTTP status,
    never the base URL nor a connection setting's value, so a release does not depend on where it was built."""
    fake_server.faults, fake_server.slow_s = [fault] * 3, 1.0
    result, _ = run(_chat_once(fake_settings(fake_server, timeout_s=0.4, max_retries=2, transport=transport)))
    assert isinstance(result, LLMCallError) and result.kind == kind, result
    for leak in (fake_server.url, f":{fake_server.port}", "127.0.0.1", "0.4"):
        assert leak not in result.reason, result.reason


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_a_connection_error_names_its_class_and_errno_not_the_host(transport):
    from irdata.llm import load_settings
    from irdata.llm.transports import AiohttpTransport, SDKTransport

    url = dead_url()
    settings = load_settings(fake_settings(url, transport=transport))

    async def go():
        t = (AiohttpTransport if transport == "aiohttp" else SDKTransport)(settings, "no-key")
        try:
            await t.post(url, "chat", {"model": "fake"}, USER)
        except TransientError as e:
            return e
        finally:
            await t.aclose()

    error = run(go())
    assert error.kind == "connection" and "ECONNREFUSED" in str(error), error
    assert "127.0.0.1" not in str(error) and url.rsplit(":", 1)[1].removesuffix("/v1") not in str(error)


def test_mixed_faults_in_a_batch(fake_server):
    fake_server.faults = ["500", "drop", "malformed", "429", None, "timeout", "500", None] * 3
    fake_server.retry_after = "0"
    fake_server.slow_s = 1.0
    convos = [[{"role": "user", "content": f"REPLY:answer {i}"}] for i in range(30)]

    async def go():
        async with make_client(fake_settings(fake_server, timeout_s=0.5, max_in_flight=8, max_retries=4)) as c:
            return await c.chat_many(convos, on_error="return", progress=False), c.stats

    results, stats = run(go())
    ok = [r for r in results if not isinstance(r, LLMCallError)]
    assert [r.text for r in ok] == [f"answer {i}" for i in range(30) if not isinstance(results[i], LLMCallError)]
    assert len(ok) + stats.failures == 30
    assert stats.retries + stats.failures >= 18  # each injected fault was retried or ended its call
    assert set(stats.retries_by_kind) <= {"http_500", "connection", "malformed_response", "http_429", "timeout"}


def test_failed_calls_are_not_journaled_and_a_rerun_retries_exactly_them(fake_server, tmp_path):
    journal = tmp_path / "j.jsonl"
    convos = [[{"role": "user", "content": f"REPLY:{i}"}] for i in range(6)]
    fake_server.faults = ["400", None, "400"]  # not retried: calls 0 and 2 fail (max_in_flight 1: in order)

    async def go():
        async with make_client(fake_settings(fake_server, max_in_flight=1), journal_path=journal) as c:
            res = await c.chat_many(convos, on_error="return", progress=False)
            return res, c.stats

    first, s1 = run(go())
    assert [isinstance(r, LLMCallError) for r in first] == [True, False, True, False, False, False]
    assert s1.failures_by_kind == {"http_400": 2} and len(journal_lines(journal)) == 4
    before = dict(fake_server.prompts)
    second, s2 = run(go())
    assert [r.text for r in second] == [str(i) for i in range(6)]
    assert (s2.calls, s2.journal_hits, s2.failures) == (2, 4, 0)
    assert {p: n - before.get(p, 0) for p, n in fake_server.prompts.items() if n != before.get(p, 0)} == {
        "REPLY:0": 1, "REPLY:2": 1}


# -- spreading over base URLs ----------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
@pytest.mark.parametrize("fault", ["surrogate", "surrogate_bytes"])
def test_a_reply_with_a_lone_surrogate_is_an_unencodable_failure_not_journaled(fake_server, tmp_path, fault,
                                                                              transport):
    """No UTF-8 can hold it: neither the journal nor a Parquet file could store the answer. Before, the job
    crashed on it, the same way on every rerun."""
    journal = tmp_path / "j.jsonl"
    fake_server.faults = [fault, None, fault]
    convos = [[{"role": "user", "content": f"REPLY:{i}"}] for i in range(3)]

    async def go():
        async with make_client(fake_settings(fake_server, transport=transport, max_in_flight=1),
                               journal_path=journal) as c:
            chats = await c.chat_many(convos, on_error="return", progress=False)
            grade = await c.grade([{"role": "user", "content": "REPLY:2"}])
            return chats, grade, c.stats

    fake_server.faults.append(fault)  # the grade's reply too
    chats, grade, stats = run(go())
    assert isinstance(chats[0], LLMCallError) and chats[0].kind == "unencodable", chats[0]
    assert "lone surrogate" in chats[0].reason and chats[1].text == "1" and chats[2].kind == "unencodable"
    assert grade.label is None and grade.failure_kind == "unencodable"
    assert stats.failures_by_kind == {"unencodable": 3} and stats.retries == 0  # the same reply would come again
    assert len(journal_lines(journal)) == 1  # only the answer that can be stored

    from irdata.annotate.common import NOT_RETRIED

    assert "unencodable" in NOT_RETRIED  # it comes from the model's answer: a plain rerun does not retry it


def test_one_dead_url_of_two_loses_no_call_and_is_left_out():
    good = FakeServer()
    try:
        async def go():
            settings = fake_settings(dead_url(), good, max_in_flight=16, max_retries=2, breaker_failures=3,
                                     breaker_cooldown_s=30, backoff_max_s=30, backoff_s=0.001)
            async with make_client(settings) as c:
                res = await c.chat_many([[{"role": "user", "content": f"REPLY:{i}"}] for i in range(400)],
                                        on_error="return", progress=False)
                return res, c.stats

        results, stats = run(go())
    finally:
        good.close()
    assert [r.text for r in results] == [str(i) for i in range(400)]
    assert stats.failures == 0 and good.requests == 400
    # The servers' check found the dead URL unreachable: it started with its breaker open, and its
    # cool-down (30 s) outlasts the batch, so no call was sent there.
    assert stats.retries == 0


def test_a_retry_goes_to_another_healthy_url():
    from irdata.llm import Stats, load_settings
    from irdata.llm.spreading import RetryLog, URLPool

    pool = URLPool(load_settings(fake_settings("http://a:1/v1", "http://b:1/v1")), None, Stats(), RetryLog())
    assert [pool.pick() for _ in range(4)] == [0, 1, 0, 1]  # equals share by round robin
    pool.health[1].in_flight = 3
    assert pool.pick() == 0 and pool.pick() == 0  # the least busy first ...
    assert pool.pick(avoid=0) == 1  # ... but a retry goes elsewhere while another URL is healthy
    pool.health[1].open_until = time.monotonic() + 60
    assert pool.pick(avoid=0) == 0  # the other is open: back to the same one rather than none


def test_an_open_url_is_probed_and_taken_back(caplog):
    a, b = FakeServer(), FakeServer()
    caplog.set_level(logging.INFO, logger="irdata.llm")
    try:
        a.faults = ["500"] * 3

        async def go():
            settings = fake_settings(a, b, max_in_flight=1, breaker_failures=3, breaker_cooldown_s=0.3, backoff_max_s=1,
                                     backoff_s=0.001)
            async with make_client(settings) as c:
                first = await c.chat_many([[{"role": "user", "content": f"REPLY:{i}"}] for i in range(10)],
                                          progress=False)
                used_a = a.requests
                await asyncio.sleep(0.35)  # the cool-down ends: the next call probes a, which answers
                later = await c.chat_many([[{"role": "user", "content": f"REPLY:x{i}"}] for i in range(10)],
                                          progress=False)
                return first, later, used_a

        first, later, used_a = run(go())
    finally:
        a.close()
        b.close()
    assert [r.text for r in first] == [str(i) for i in range(10)] and len(later) == 10
    assert used_a == 3  # three failures in a row, then left out
    assert a.requests - used_a >= 4  # probed, answered, and back in the rotation
    assert "left out for 0.3 s" in caplog.text and "answers again" in caplog.text


def test_loadspread_and_api_key_kept_out_of_journal(tmp_path, monkeypatch):
    a, b = FakeServer(), FakeServer()
    monkeypatch.setenv("IRDATA_TEST_KEY", "sk-secret-123")
    journal = tmp_path / "j.jsonl"
    try:
        async def go():
            async with make_client(fake_settings(a, b, api_key_env="IRDATA_TEST_KEY", max_in_flight=8),
                                   journal_path=journal) as c:
                await c.chat_many([[{"role": "user", "content": f"REPLY:{i}"}] for i in range(16)], progress=False)
                return c.identity()

        ident = run(go())
    finally:
        a.close()
        b.close()
    assert a.requests > 0 and b.requests > 0 and a.requests + b.requests == 16
    assert set(a.auth + b.auth) == {"Bearer sk-secret-123"}
    assert "sk-secret" not in journal.read_text() and "sk-secret" not in json.dumps(ident)


def test_api_key_not_in_failure_messages(fake_server, monkeypatch, caplog):
    monkeypatch.setenv("IRDATA_TEST_KEY", "sk-secret-456")
    fake_server.faults = ["500", "400"]
    caplog.set_level("DEBUG")
    result, stats = run(_chat_once(fake_settings(fake_server, api_key_env="IRDATA_TEST_KEY")))
    assert isinstance(result, LLMCallError) and stats.failures == 1
    assert "sk-secret" not in str(result) and "sk-secret" not in caplog.text


def test_missing_api_key_env_says_what_to_do(fake_server, monkeypatch):
    monkeypatch.delenv("IRDATA_NOPE", raising=False)
    with pytest.raises(RuntimeError, match=r"IRDATA_NOPE.*export it"):
        run(_chat_once(fake_settings(fake_server, api_key_env="IRDATA_NOPE")))


def test_identical_calls_in_flight_are_sent_once(fake_server, tmp_path):
    fake_server.delay_s = 0.2

    async def go():
        async with make_client(fake_settings(fake_server), journal_path=tmp_path / "j.jsonl") as c:
            res = await asyncio.gather(*(c.chat(USER) for _ in range(5)), c.chat([{"role": "user", "content": "x"}]))
            return [r.text for r in res], c.stats

    texts, stats = run(go())
    assert texts == ["hello"] * 5 + ["echo: x"]
    assert fake_server.requests == 2 and stats.calls == 2 and stats.coalesced == 4
    assert len(journal_lines(tmp_path / "j.jsonl")) == 2


def test_the_collector_is_held_while_a_request_is_in_flight_only(fake_server):
    import gc

    from irdata.llm.client import GC_YOUNG_THRESHOLD

    fake_server.delay_s = 0.3
    before = gc.get_threshold()

    async def go():
        async with make_client(fake_settings(fake_server)) as c:
            call = asyncio.ensure_future(c.chat(USER))
            await asyncio.sleep(0.15)
            during = gc.get_threshold()[0], gc.get_freeze_count() > 0
            await call
            after = gc.get_threshold(), gc.get_freeze_count() > 0
        return during, after

    during, after = run(go())
    assert during == (max(GC_YOUNG_THRESHOLD, before[0]), True) and after == (before, False)


def test_coalesced_failures_are_counted_per_call(fake_server):
    fake_server.delay_s = 0.1
    fake_server.faults = ["400"]

    async def go():
        async with make_client(fake_settings(fake_server)) as c:
            res = await asyncio.gather(*(c.chat(USER) for _ in range(3)), return_exceptions=True)
            return res, c.stats

    res, stats = run(go())
    assert all(isinstance(r, LLMCallError) and r.kind == "http_400" for r in res)
    assert fake_server.requests == 1 and stats.failures == 3 and stats.coalesced == 2


def test_job_ends_with_a_summary_line_and_retries_logged_at_info(fake_server, caplog):
    caplog.set_level(logging.INFO, logger="irdata.llm")
    fake_server.faults = ["500", "500", "timeout"]
    fake_server.slow_s = 1.0

    async def go():
        async with make_client(fake_settings(fake_server, timeout_s=0.3, max_in_flight=1)) as c:
            await c.chat_many([[{"role": "user", "content": f"REPLY:{i}"}] for i in range(4)], progress=False)

    run(go())
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    retry_lines = [m for m in infos if m.startswith("LLM retries")]
    assert len(retry_lines) == 2  # the first at once, the rest aggregated into one line at the end
    assert retry_lines[0].startswith("LLM retries so far: 1 (http_500 at ")
    assert "2 (" in retry_lines[1] and "timeout at" in retry_lines[1]
    assert infos[-1].startswith("LLM: 4 calls, 0 journal hits, 0 coalesced, 3 retries (http_500: 2, timeout: 1), "
                                "0 failures")


# -- grades ----------------------------------------------------------------------------------------


def test_unparseable_grade_is_a_failure_never_a_zero(fake_server):
    async def go():
        async with make_client(fake_settings(fake_server, grade_retries=2)) as c:
            bad = await c.grade([{"role": "user", "content": "REPLY:maybe, hard to say"}])
            echo = await c.grade([{"role": "user", "content": "REPLY:Reply with a single digit: 0, 1, 2 or 3."}])
            good = await c.grade([{"role": "user", "content": "REPLY:Grade: 2."}])
            return bad, echo, good, c.stats

    bad, echo, good, stats = run(go())
    assert bad.label is None and bad.raw_reply == "maybe, hard to say" and "unparseable grade" in bad.failure
    assert bad.failure_kind == "unparseable" and echo.label is None
    assert good.label == "2" and good.failure is None and good.path == "parsed"
    assert stats.unparsed_grades == 2 and stats.failures_by_kind == {"unparseable": 2}
    assert stats.grade_paths == {"parsed": 1}
    assert fake_server.requests == 3 + 3 + 1  # asked again twice, then given up
    reasks = [b["messages"][-1]["content"] for b in fake_server.bodies if len(b["messages"]) > 1]
    assert reasks and not any(d in m for m in reasks for d in "0123")  # nothing to copy into a grade
    assert all(b["max_tokens"] >= 64 for b in fake_server.bodies)  # room for "Grade: N" after reasoning


@pytest.mark.parametrize("structured", ["structured_outputs", "guided_choice"])
def test_auto_grades_use_structured_outputs_where_the_server_has_them(fake_server, structured):
    fake_server.structured = structured

    async def go():
        async with make_client(fake_settings(fake_server, grade_constraint="auto")) as c:
            res = await c.grade_many([[{"role": "user", "content": f"REPLY:{d}"}] for d in "0123xy"], progress=False)
            return res, c.stats, c.identity()

    res, stats, ident = run(go())
    assert [r.label for r in res] == ["0", "1", "2", "3", "0", "0"]
    assert {r.path for r in res} == {"structured_outputs"} and stats.grade_paths == {"structured_outputs": 6}
    assert res[2].choice_logprobs["3"] > res[2].choice_logprobs["0"]
    grades = [b for b in fake_server.bodies if b["messages"][0]["content"].startswith("REPLY:")]
    field = grades[0][structured]
    assert (field["choice"] if structured == "structured_outputs" else field) == ["0", "1", "2", "3"]
    probes = fake_server.prompts["Say one word."]
    assert probes == (1 if structured == "structured_outputs" else 2)  # found once per job, not per grade
    # the path is recorded per grade (and counted in the stats), not claimed for the job in the identity
    assert "grade_constraint_paths" not in ident and "structured_outputs" not in json.dumps(ident)


@pytest.mark.parametrize("tokenizer, adds_bos", [("llama", True), ("llama", False), ("vllm", True)])
def test_auto_grades_fall_back_to_verified_logit_bias(fake_server, tokenizer, adds_bos):
    fake_server.tokenizer, fake_server.adds_bos, fake_server.honour_logit_bias = tokenizer, adds_bos, True

    async def go():
        async with make_client(fake_settings(fake_server, grade_constraint="auto", max_in_flight=64)) as c:
            res = await c.grade_many([[{"role": "user", "content": f"REPLY:{i % 4}"}] for i in range(64)],
                                     progress=False)
            return res, c.stats

    res, stats = run(go())
    assert [r.label for r in res] == [str(i % 4) for i in range(64)] and stats.grade_paths == {"logit_bias": 64}
    grade_bodies = [b for b in fake_server.bodies if b["messages"][0]["content"].startswith("REPLY:")]
    assert all(b["logit_bias"] == {"10": 100, "11": 100, "12": 100, "13": 100} and b["max_tokens"] == 1
               for b in grade_bodies)  # the BOS (id 1) stripped from every choice's tokens
    endpoint = "/tokenize" if tokenizer == "vllm" else "/extras/tokenize"
    assert fake_server.paths[endpoint] == 1 + 4  # one probe per job, then one per choice: not 64 x 4


def test_grades_without_a_constraint_are_parsed_and_say_so(fake_server, caplog):
    caplog.set_level(logging.WARNING)

    async def go():
        async with make_client(fake_settings(fake_server, grade_constraint="auto")) as c:
            res = await c.grade_many([[{"role": "user", "content": "REPLY:Grade: 1"}]] * 3 +
                                     [[{"role": "user", "content": "REPLY:It answers it.\nGrade: 3"}]],
                                     progress=False)
            return res, c.stats

    res, stats = run(go())
    assert [r.label for r in res] == ["1", "1", "1", "3"] and stats.grade_paths == {"parsed": 4}
    assert "NOT constrained" in caplog.text and caplog.text.count("NOT constrained") == 1
    assert "no tokenizer endpoint" in caplog.text


def test_multi_token_choices_and_explicit_modes(fake_server):
    fake_server.tokenizer = "vllm"

    async def go(mode, choices):
        async with make_client(fake_settings(fake_server, grade_constraint=mode)) as c:
            return await c.grade([{"role": "user", "content": "REPLY:10"}], choices=choices), c.stats

    got, _ = run(go("auto", ("0", "10")))
    assert got.label == "10" and got.path == "parsed"  # "10" is two tokens: no logit_bias
    got, stats = run(go("logit_bias", ("0", "10")))
    assert got.label is None and got.failure_kind == "unsupported_model" and "is 2 tokens" in got.failure
    assert stats.failures_by_kind == {"unsupported_model": 1}
    got, _ = run(go("structured_outputs", ("0", "1")))
    assert got.failure_kind == "unsupported_model" and "supports neither field" in got.failure


def test_a_failed_tokenizer_probe_is_retried_not_remembered(fake_server):
    fake_server.tokenizer = "llama"
    fake_server.honour_logit_bias = True

    async def go():
        async with make_client(fake_settings(fake_server, grade_constraint="logit_bias", max_retries=0)) as c:
            backend = c._stage(None)[1]
            real = backend.pool.transport.post_raw
            calls = {"n": 0}

            async def flaky(base_url, path, payload):
                calls["n"] += 1
                if calls["n"] == 1:
                    raise TransientError("connection reset by peer", "connection")
                return await real(base_url, path, payload)

            backend.pool.transport.post_raw = flaky
            first = await c.grade([{"role": "user", "content": "REPLY:2"}])
            second = await c.grade([{"role": "user", "content": "REPLY:2"}])
            return first, second

    first, second = run(go())
    assert first.label is None and first.failure_kind == "tokenizer"
    assert second.label == "2" and second.path == "logit_bias"


# -- log-likelihoods -------------------------------------------------------------------------------


async def _ll(settings, pairs):
    async with make_client(settings) as c:
        return await c.loglikelihood_many(pairs, on_error="return", progress=False), c.stats


def _expected(context, continuation, bos):
    from llm_testlib import fake_tokens

    toks = fake_tokens(context + continuation, bos)
    n = len(fake_tokens(continuation, False))
    return [fake_logprob(t, i) for i, t in enumerate(toks)][-n:]


@pytest.mark.parametrize("echo", ["vllm", "llama", "omit_generated"])
@pytest.mark.parametrize("adds_bos", [False, True])
def test_echo_log_likelihoods_align_on_every_server_shape(fake_server, echo, adds_bos):
    fake_server.echo, fake_server.adds_bos = echo, adds_bos
    pairs = [("the cat sat", " on the mat"), ("a", " b"), ("", "a b")]
    (got, short, unconditioned), stats = run(_ll(fake_settings(fake_server), pairs))
    assert got == _expected("the cat sat", " on the mat", adds_bos) and short == _expected("a", " b", adds_bos)
    if adds_bos and echo == "vllm":  # the BOS is echoed: the first word has a value
        assert unconditioned == _expected("", "a b", True)
    else:  # nothing precedes "a", or the server (llama-cpp-python) nulls the first echoed token's value
        assert isinstance(unconditioned, LLMCallError) and unconditioned.kind == "misaligned"
    assert stats.failures == (0 if adds_bos and echo == "vllm" else 1)


def test_prompt_logprobs_path(fake_server):
    (got,), _ = run(_ll(fake_settings(fake_server, loglikelihood_api="prompt_logprobs"), [("the cat sat", " on")]))
    assert got == _expected("the cat sat", " on", False)


def test_a_shifted_echo_is_detected_and_refused_once(fake_server):
    fake_server.echo = "shifted"  # llama-cpp-python 0.3.36 without BOS
    (a, b), stats = run(_ll(fake_settings(fake_server), [("the cat sat", " on"), ("the dog", " ran")]))
    assert isinstance(a, LLMCallError) and a.kind == "misaligned" and "loglikelihood_bos: always" in a.reason
    assert isinstance(b, LLMCallError) and stats.failures_by_kind == {"misaligned": 2}
    assert fake_server.paths["/v1/completions"] == 2  # the check ran once: one generation, one echo


def test_bos_always_puts_the_bos_text_first_and_fixes_a_shifting_server(fake_server):
    fake_server.echo, fake_server.tokenizer = "shifted", "llama"  # aligned only with BOS first
    settings = fake_settings(fake_server, loglikelihood_bos="always", loglikelihood_bos_text=BOS_TEXT)
    (got,), stats = run(_ll(settings, [("the cat sat", " on")]))
    assert got == _expected(BOS_TEXT + "the cat sat", " on", False) and stats.failures == 0
    assert fake_server.prompts[BOS_TEXT + "the cat sat on"] == 1


@pytest.mark.parametrize("tokenizer, adds_bos, rule, bos_text, outcome", [
    ("vllm", True, "always", None, "server_bos"),  # the server adds it: nothing to prepend
    ("llama", False, "always", None, "set llm.loglikelihood_bos_text"),
    (None, False, "always", BOS_TEXT, "needs the server's tokenizer endpoint"),
    ("vllm", True, "never", None, "no_bos"),  # vLLM: add_special_tokens false
    ("llama", True, "never", None, "llama-cpp-python puts the model's BOS"),
    ("llama", False, "always", "<not one>", "is not one token"),
])
def test_bos_rules_on_servers(fake_server, tokenizer, adds_bos, rule, bos_text, outcome):
    fake_server.tokenizer, fake_server.adds_bos = tokenizer, adds_bos
    settings = fake_settings(fake_server, loglikelihood_bos=rule, loglikelihood_bos_text=bos_text)
    (got,), stats = run(_ll(settings, [("the cat sat", " on")]))
    if outcome == "server_bos":
        assert got == _expected("the cat sat", " on", True)
    elif outcome == "no_bos":
        assert got == _expected("the cat sat", " on", False)
        assert all(b.get("add_special_tokens") is False for b in fake_server.bodies)
    else:
        assert isinstance(got, LLMCallError) and got.kind == "unsupported_model" and outcome in got.reason


def test_unchanged_rerun_calls_nothing(fake_server, tmp_path):
    journal = tmp_path / "j.jsonl"
    convos = [[{"role": "user", "content": f"REPLY:{i}"}] for i in range(5)]

    async def go():
        async with make_client(fake_settings(fake_server), journal_path=journal) as c:
            res = await c.chat_many(convos, progress=False)
            ll = await c.loglikelihood("the cat", " sat")
            return [r.text for r in res], ll, c.stats

    first, ll1, s1 = run(go())
    requests = fake_server.requests
    second, ll2, s2 = run(go())
    assert first == second == [str(i) for i in range(5)] and ll1 == ll2
    assert (s1.calls, s1.journal_hits) == (6, 0) and (s2.calls, s2.journal_hits) == (0, 6)
    assert fake_server.requests == requests  # not even the alignment check runs again


def test_changing_only_connection_settings_keeps_the_journal(fake_server, tmp_path):
    journal = tmp_path / "j.jsonl"
    other = FakeServer()
    try:
        run(_chat_once(fake_settings(fake_server), journal=journal))
        result, stats = run(_chat_once(fake_settings(other, timeout_s=7, max_retries=1, max_in_flight=3,
                                                     transport="openai"), journal=journal))
    finally:
        other.close()
    assert result.text == "hello" and stats.journal_hits == 1 and other.requests == 0


def test_kill_9_mid_journal_then_rerun_repeats_no_completed_call(fake_server, tmp_path):
    n = 40
    fake_server.delay_s = 0.05
    journal = tmp_path / "job.jsonl"
    out = tmp_path / "out.json"
    cmd = [sys.executable, str(HERE / "journal_worker.py"), fake_server.url, str(journal), str(out), str(n)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(cmd, env=env)
    deadline = time.monotonic() + 60
    while len(journal_lines(journal)) < 10:
        assert proc.poll() is None, "the worker ended before it could be killed"
        assert time.monotonic() < deadline, "the worker journaled nothing in 60 s"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    # The worker may die mid-line; make sure a torn tail is there in any case (the start of a line). A whole
    # last line whose line end was not written yet is an answer kept.
    data = journal.read_bytes()
    whole, tail = data[:data.rfind(b"\n") + 1], data[data.rfind(b"\n") + 1:]
    if not tail:
        with open(journal, "ab") as fh:
            fh.write(data[:data.index(b'"v"')])
    digest, _, body = tail.partition(b" ")
    answered = whole.splitlines() + ([tail] if hashlib.sha256(body).hexdigest().encode() == digest else [])
    done_before = [json.loads(line.split(b" ", 1)[1])["v"]["text"] for line in answered]
    assert 10 <= len(done_before) < n

    subprocess.run(cmd, env=env, check=True, timeout=120)
    result = json.loads(out.read_text())
    assert result["texts"] == [f"item {i}" for i in range(n)]
    assert result["stats"]["journal_hits"] == len(done_before)
    assert result["stats"]["calls"] == n - len(done_before)
    for text in done_before:  # each completed call was made once, before the kill
        assert fake_server.prompts[f"REPLY:{text}"] == 1
    assert len(journal_lines(journal)) == n  # the torn line is gone, every call journaled once


def _fill_the_disk_then_rerun(fake_server, journal, out, n, pad, cause, limit_fsize=None, free_space=None):
    """Run the journal worker until its journal's disk is full, check that it stopped naming the
    cause and left whole lines only, free space, rerun, check what was asked again."""
    fake_server.delay_s = 0.05
    cmd = [sys.executable, str(HERE / "journal_worker.py"), fake_server.url, str(journal), str(out), str(n), str(pad)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    first = subprocess.run(cmd + ([str(limit_fsize)] if limit_fsize else []), env=env, capture_output=True,
                           text=True, timeout=120)
    assert first.returncode != 0 and not out.exists()
    error = first.stderr.splitlines()[-1]  # the job's last words: the error it stopped with
    match = re.search(r"(\d+) answered call\(s\) could not be kept and will be asked again \((\d+) on disk", error)
    assert error.startswith(f"irdata.llm.journal.JournalError: {cause} writing {journal}: ") and match, first.stderr
    asked_first = Counter(fake_server.prompts)
    data = journal.read_bytes()
    assert data.endswith(b"\n")  # whole lines only: no torn tail for a rerun's lines to glue onto
    sound = Journal(journal)
    assert sound.dropped == 0 and journal.read_bytes() == data  # every line sound, nothing cut on open
    sound.close()
    kept = {json.loads(line.split(b" ", 1)[1])["v"]["text"] for line in data.splitlines()}
    lost = int(match[1])
    asked = sum(asked_first.values())  # calls in flight when the job stopped were asked, never answered
    assert 0 < len(kept) == int(match[2]) and len(kept) + lost <= asked < n

    if free_space:
        free_space()
    subprocess.run(cmd, env=env, check=True, timeout=120)
    texts = [f"item {i}" + "." * pad for i in range(n)]
    result = json.loads(out.read_text())
    assert result["texts"] == texts
    assert (result["stats"]["journal_hits"], result["stats"]["calls"]) == (len(kept), n - len(kept))
    for text in texts:  # a call on disk is never asked again; every other one is asked once more
        assert fake_server.prompts[f"REPLY:{text}"] == asked_first[f"REPLY:{text}"] + (text not in kept)
    asked_again = sum(1 for text in texts if asked_first[f"REPLY:{text}"] and text not in kept)
    sound = Journal(journal)
    assert sound.dropped == 0 and len(sound.entries) == len(journal_lines(journal)) == n
    sound.close()
    print(f"{cause}: {asked} asked, {len(kept) + lost} answered, {len(kept)} kept on disk, {lost} lost; rerun: "
          f"{len(kept)} from the journal, {asked_again} asked again, {n - asked} asked for the first time")


def test_a_file_size_limit_stops_the_job_and_the_rerun_asks_again_only_what_was_not_kept(fake_server, tmp_path):
    # ~200-byte lines: 7 and part of an 8th fit, reached within the first batches.
    _fill_the_disk_then_rerun(fake_server, tmp_path / "job.jsonl", tmp_path / "out.json", 40, 0, "file too large "
                              "(EFBIG: a file-size limit such as ulimit -f)", limit_fsize=1500)


def test_a_full_filesystem_stops_the_job_and_the_rerun_asks_again_only_what_was_not_kept(fake_server, tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(small)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs is not permitted here")
    try:
        _fill_the_disk_then_rerun(  # ~400-byte lines: 10 and part of an 11th fit in 4 KiB
            fake_server, small / "job.jsonl", tmp_path / "out.json", 60, 200, "disk full (ENOSPC)",
            free_space=lambda: subprocess.run(["mount", "-o", "remount,size=1m", str(small)], check=True))
    finally:
        subprocess.run(["umount", str(small)], check=True)


def test_sync_wrapper(fake_server):
    with SyncClient(fake_settings(fake_server)) as c:
        assert c.chat(USER).text == "hello"
        assert c.grade([{"role": "user", "content": "REPLY:3"}]).label == "3"
        assert c.stats.calls == 2


def test_stage_overrides_reach_the_server(fake_server, tmp_path):
    settings = fake_settings(fake_server, stages={"arm44b": {"model": "big", "temperature": 0.5}})

    async def go():
        async with make_client(settings, journal_path=tmp_path / "j.jsonl") as c:
            a = await c.chat(USER)
            b = await c.chat(USER, stage="arm44b")
            return a.text, b.text, c.stats, c.identity()

    a, b, stats, ident = run(go())
    assert a == b == "hello" and stats.calls == 2 and stats.journal_hits == 0  # different keys
    assert fake_server.models == {"fake": 1, "big": 1}
    assert ident["model"] == "fake" and ident["stages"]["arm44b"]["model"] == "big"
    assert ident["stages"]["arm44b"]["temperature"] == 0.5


def test_tool_choice_and_parallel_native_calls_pass_through(fake_server):
    async def go():
        async with make_client(fake_settings(fake_server, tool_protocol="native")) as c:
            tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
            await c.chat(USER, tools=tools, tool_choice="required")
            await c.chat(USER, tools=tools, tool_choice={"type": "function", "function": {"name": "search"}})

    run(go())
    assert [b["tool_choice"] for b in fake_server.bodies] == [
        "required", {"type": "function", "function": {"name": "search"}}]
