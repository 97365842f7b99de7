"""Fault injection against a fake server: every call ends with a correct answer or a clear,
counted failure; the journal makes a rerun after kill -9 repeat no completed call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_testlib import FakeServer, fake_settings, journal_lines, run

from irdata.llm import LLMCallError, SyncClient, make_client

HERE = Path(__file__).resolve().parent
USER = [{"role": "user", "content": "REPLY:hello"}]


async def _chat_once(settings, messages=USER, journal=None):
    async with make_client(settings, journal_path=journal) as c:
        try:
            result = await c.chat(messages)
        except LLMCallError as e:
            result = e
        return result, c.stats


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
@pytest.mark.parametrize("fault", ["500", "429", "timeout", "malformed", "drop"])
def test_transient_fault_is_retried_to_the_right_answer(fake_server, fault, transport):
    fake_server.faults = [fault, fault]
    fake_server.retry_after = "0"
    fake_server.slow_s = 1.0
    result, stats = run(_chat_once(fake_settings(fake_server, timeout_s=0.4, transport=transport)))
    assert result.text == "hello"
    assert stats.retries == 2 and stats.failures == 0 and stats.calls == 1
    assert fake_server.requests == 3


def test_retry_after_is_honoured(fake_server):
    fake_server.faults = ["429"]
    fake_server.retry_after = "1"
    t0 = time.monotonic()
    result, stats = run(_chat_once(fake_settings(fake_server, backoff_max_s=5)))
    assert result.text == "hello" and stats.retries == 1
    assert time.monotonic() - t0 >= 1.0


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_persistent_fault_is_a_counted_failure(fake_server, transport):
    fake_server.faults = ["500"] * 10
    result, stats = run(_chat_once(fake_settings(fake_server, max_retries=2, transport=transport)))
    assert isinstance(result, LLMCallError)
    assert "HTTP 500" in str(result) and "gave up after 3 attempts" in str(result)
    assert stats.failures == 1 and stats.retries == 2 and fake_server.requests == 3


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_client_error_is_not_retried(fake_server, transport):
    fake_server.faults = ["400"]
    result, stats = run(_chat_once(fake_settings(fake_server, transport=transport)))
    assert isinstance(result, LLMCallError) and "HTTP 400" in str(result)
    assert stats.retries == 0 and stats.failures == 1 and fake_server.requests == 1


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


def test_unparseable_grade_is_a_failure_never_a_zero(fake_server):
    async def go():
        async with make_client(fake_settings(fake_server, grade_retries=2)) as c:
            bad = await c.grade([{"role": "user", "content": "REPLY:maybe, hard to say"}])
            good = await c.grade([{"role": "user", "content": "REPLY:Grade: 2"}])
            return bad, good, c.stats

    bad, good, stats = run(go())
    assert bad.label is None and bad.raw_reply == "maybe, hard to say" and "unparseable grade" in bad.failure
    assert good.label == "2" and good.failure is None
    assert stats.unparsed_grades == 1 and stats.failures == 1
    assert fake_server.requests == 3 + 1  # asked again twice, then given up


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


@pytest.mark.parametrize("api", ["echo", "prompt_logprobs"])
def test_loglikelihood_counts_the_continuation_back_from_the_end(fake_server, api):
    async def go():
        async with make_client(fake_settings(fake_server, loglikelihood_api=api)) as c:
            return await c.loglikelihood("the cat sat", " on the mat")

    # fake logprob of a token is -len(token): " on" " the" " mat"; the generated token is dropped
    assert run(go()) == [-3.0, -4.0, -4.0]


def test_unchanged_rerun_calls_nothing(fake_server, tmp_path):
    journal = tmp_path / "j.jsonl"
    convos = [[{"role": "user", "content": f"REPLY:{i}"}] for i in range(5)]

    async def go():
        async with make_client(fake_settings(fake_server), journal_path=journal) as c:
            res = await c.chat_many(convos, progress=False)
            return [r.text for r in res], c.stats

    first, s1 = run(go())
    second, s2 = run(go())
    assert first == second == [str(i) for i in range(5)]
    assert (s1.calls, s1.journal_hits) == (5, 0) and (s2.calls, s2.journal_hits) == (0, 5)
    assert fake_server.requests == 5


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
    # The worker may die mid-line; make sure a torn tail is there in any case.
    with open(journal, "ab") as fh:
        fh.write(b'0123abcd {"k": "torn')
    done_before = [json.loads(line.split(" ", 1)[1])["v"]["text"] for line in journal_lines(journal)[:-1]]
    assert 10 <= len(done_before) < n

    subprocess.run(cmd, env=env, check=True, timeout=120)
    result = json.loads(out.read_text())
    assert result["texts"] == [f"item {i}" for i in range(n)]
    assert result["stats"]["journal_hits"] == len(done_before)
    assert result["stats"]["calls"] == n - len(done_before)
    for text in done_before:  # each completed call was made once, before the kill
        assert fake_server.prompts[f"REPLY:{text}"] == 1
    assert len(journal_lines(journal)) == n  # the torn line is gone, every call journaled once


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
