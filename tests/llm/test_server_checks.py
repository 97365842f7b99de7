"""Operator mistakes and server outages against fake servers on 127.0.0.1: a job that no server can
serve stops in seconds naming each URL and its fix; one bad URL of several is left out; a server
restarted mid-run is waited for; past llm.outage_limit_s the remaining calls fail as `outage`;
probes tell a transient answer from a refusal; every URL's echo alignment is checked before it
scores."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest
from llm_testlib import FakeServer, dead_url, fake_settings, run

from irdata.annotate.common import NOT_RETRIED
from irdata.llm import LLMCallError, make_client
from irdata.llm.preflight import UNREACHABLE_FIX
from irdata.llm.results import ServersUnusable

CONVOS = [[{"role": "user", "content": f"REPLY:{i}"}] for i in range(20)]


async def _chat_many(settings, convos=CONVOS, journal=None):
    async with make_client(settings, journal_path=journal) as c:
        return await c.chat_many(convos, on_error="return", progress=False), c.stats


def _unusable(settings, op="chat"):
    """The error of a job of 20 calls of `op` that no server can serve, and the seconds it took."""
    async def go():
        async with make_client(settings) as c:
            if op == "chat":
                return await c.chat_many(CONVOS, on_error="return", progress=False)
            if op == "grade":
                return await c.grade_many(CONVOS, progress=False)
            return await c.loglikelihood_many([("a b", " c")] * 20, on_error="return", progress=False)

    t0 = time.monotonic()
    with pytest.raises(ServersUnusable) as info:
        run(go())
    return str(info.value), time.monotonic() - t0


@pytest.mark.parametrize("op", ["chat", "grade", "loglikelihood"])
@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_a_dead_url_stops_the_job_in_seconds(op, transport):
    if transport == "openai":
        import openai  # noqa: F401  (its import takes seconds on a loaded machine: not part of the stop)
    url = dead_url()
    # production-like retry settings: without the check, the calls would wait behind the breaker
    message, seconds = _unusable({**fake_settings(url, transport=transport), "max_retries": 6, "backoff_max_s": 30,
                                  "breaker_cooldown_s": 5}, op)
    assert url in message and UNREACHABLE_FIX in message and "unreachable" in message
    assert seconds < 5, seconds  # three connection attempts 0.5 s and 1 s apart
    print(f"dead URL ({op}, {transport}): stopped in {seconds:.2f} s")


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_a_wrong_model_name_stops_the_job_naming_the_served_ones(fake_server, transport):
    fake_server.served_models = ["Qwen/Qwen3-8B", "qwen3-lora"]
    message, seconds = _unusable(fake_settings(fake_server, model="qwen3-8b", transport=transport))
    assert "model 'qwen3-8b' is not served (served: 'Qwen/Qwen3-8B', 'qwen3-lora')" in message
    assert "set llm.model" in message and fake_server.url in message
    assert fake_server.requests == 0 and seconds < 5  # no call was sent (the openai SDK takes ~1 s to import)


@pytest.mark.parametrize("transport", ["aiohttp", "openai"])
def test_a_wrong_api_key_stops_the_job_naming_the_setting(fake_server, monkeypatch, transport):
    fake_server.served_models, fake_server.key = ["fake"], "right-key"
    monkeypatch.setenv("IRDATA_TEST_KEY", "wrong-key")
    message, _ = _unusable(fake_settings(fake_server, api_key_env="IRDATA_TEST_KEY", transport=transport))
    assert "refused the API key (HTTP 401)" in message and "$IRDATA_TEST_KEY (llm.api_key_env)" in message
    assert "wrong-key" not in message and fake_server.requests == 0
    message, _ = _unusable(fake_settings(fake_server, transport=transport))  # no key configured at all
    assert "name that variable in llm.api_key_env" in message
    monkeypatch.setenv("IRDATA_TEST_KEY", "right-key")
    results, stats = run(_chat_many(fake_settings(fake_server, api_key_env="IRDATA_TEST_KEY", transport=transport)))
    assert [r.text for r in results] == [str(i) for i in range(20)] and stats.failures == 0


def test_every_url_is_named_with_its_own_fix(fake_server):
    fake_server.served_models = ["other"]
    dead = dead_url()
    message, _ = _unusable(fake_settings(dead, fake_server))
    lines = message.splitlines()
    assert len(lines) == 3 and dead in lines[1] and UNREACHABLE_FIX in lines[1]
    assert fake_server.url in lines[2] and "served: 'other'" in lines[2]


def test_one_dead_url_of_several_is_left_out_with_a_warning_and_probed_later(caplog):
    caplog.set_level(logging.INFO, logger="irdata.llm")
    good, other = FakeServer(), FakeServer()
    good.served_models = other.served_models = ["fake"]
    dead = dead_url()
    try:
        t0 = time.monotonic()
        results, stats = run(_chat_many(fake_settings(dead, good, other, max_in_flight=8, breaker_cooldown_s=30,
                                                      backoff_max_s=30), convos=CONVOS * 20))
        seconds = time.monotonic() - t0
    finally:
        good.close()
        other.close()
    assert [r.text for r in results] == [str(i) for i in range(20)] * 20
    assert stats.failures == 0 and stats.retries == 0  # the dead URL never took a call
    # the same conversation twice in flight at once is sent once (coalesced): every call is served once
    assert stats.calls + stats.coalesced == 400
    assert good.requests + other.requests == stats.calls and min(good.requests, other.requests) >= 150
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and dead in warnings[0] and "left out until it answers" in warnings[0]
    print(f"one dead URL of three: 400 calls in {seconds:.2f} s, 0 retries")


def test_a_url_serving_another_model_is_left_out_for_the_job(caplog):
    caplog.set_level(logging.WARNING, logger="irdata.llm")
    right, wrong = FakeServer(), FakeServer()
    right.served_models, wrong.served_models = ["fake"], ["llama-3"]
    try:
        results, stats = run(_chat_many(fake_settings(wrong, right)))
    finally:
        right.close()
        wrong.close()
    assert [r.text for r in results] == [str(i) for i in range(20)] and stats.failures == 0
    assert wrong.requests == 0 and right.requests == 20
    assert "left out for this job: model 'fake' is not served (served: 'llama-3')" in caplog.text


def test_a_server_without_v1_models_is_used_unchecked_and_says_so(fake_server, caplog):
    caplog.set_level(logging.INFO, logger="irdata.llm")
    results, _ = run(_chat_many(fake_settings(fake_server)))  # FakeServer.served_models None: HTTP 404
    assert [r.text for r in results] == [str(i) for i in range(20)]
    assert "used unchecked: no /v1/models (HTTP 404)" in caplog.text
    assert fake_server.paths["/v1/models"] == 1  # checked once per job, not per call


@pytest.mark.parametrize("faults, checks", [(["500", "429"], 3), (["503"] * 5, 3), (["timeout"] * 2, 3)])
def test_transient_answers_to_the_check_are_asked_again_not_read_as_unusable(fake_server, faults, checks):
    fake_server.served_models, fake_server.models_faults, fake_server.slow_s = ["fake"], faults, 1.0
    results, stats = run(_chat_many(fake_settings(fake_server, timeout_s=0.3)))
    assert [r.text for r in results] == [str(i) for i in range(20)] and stats.failures == 0
    assert fake_server.paths["/v1/models"] == checks


# -- outages ---------------------------------------------------------------------------------------


def _restart_after(server: FakeServer, down_s: float) -> threading.Thread:
    def bounce():
        server.stop()
        time.sleep(down_s)
        server.start()

    thread = threading.Thread(target=bounce)
    thread.start()
    return thread


def test_a_server_restarted_mid_run_is_waited_for_and_every_call_succeeds(fake_server):
    fake_server.served_models, fake_server.delay_s = ["fake"], 0.05
    settings = fake_settings(fake_server, max_in_flight=16, max_retries=6, breaker_cooldown_s=0.2,
                             backoff_max_s=1.0, outage_limit_s=60)
    convos = [[{"role": "user", "content": f"REPLY:{i}"}] for i in range(200)]

    async def go():
        async with make_client(settings) as c:
            first = await c.chat(convos[0])  # checked and serving
            batch = asyncio.ensure_future(c.chat_many(convos, on_error="return", progress=False))
            await asyncio.sleep(0.2)  # calls in flight, then the server goes down for 3 s
            bounce = _restart_after(fake_server, 3.0)
            t0 = time.monotonic()
            results = await batch
            bounce.join()
            return first, results, time.monotonic() - t0, c.stats

    first, results, seconds, stats = run(go())
    assert first.text == "0" and [r.text for r in results] == [str(i) for i in range(200)]
    assert stats.failures == 0 and stats.retries_by_kind.get("connection", 0) > 0
    assert 3.0 <= seconds < 3.0 + 4.0, seconds  # waited out the restart; back within about a cool-down
    print(f"restart: 200 calls, server down 3 s, all answered {seconds:.2f} s after it went down; "
          f"retries {stats.retries_by_kind}")


def test_past_the_outage_limit_the_remaining_calls_fail_fast_as_outage_and_a_rerun_retries_them(
        fake_server, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="irdata.llm")
    fake_server.served_models = ["fake"]
    journal = tmp_path / "j.jsonl"
    settings = fake_settings(fake_server, max_in_flight=8, max_retries=50, breaker_cooldown_s=0.2,
                             backoff_max_s=0.5, outage_limit_s=1.5)
    convos = [[{"role": "user", "content": "REPLY:first"}]] + [[{"role": "user", "content": f"REPLY:{i}"}]
                                                                for i in range(100)]

    async def go():
        async with make_client(settings, journal_path=journal) as c:
            await c.chat(convos[0])
            fake_server.stop()
            t0 = time.monotonic()
            results = await c.chat_many(convos[1:], on_error="return", progress=False)
            return results, time.monotonic() - t0, c.stats

    results, seconds, stats = run(go())
    assert all(isinstance(r, LLMCallError) and r.kind == "outage" for r in results)
    # the reason names the setting, not the server nor the time waited: it may be published
    assert "llm.outage_limit_s" in results[0].reason and str(fake_server.port) not in results[0].reason
    assert len({r.reason for r in results}) == 1
    assert stats.failures_by_kind == {"outage": 100}
    assert seconds < 1.5 + 2.0, seconds  # the limit, then every remaining call at once
    assert "outage" not in NOT_RETRIED  # the stages count them as retryable: a rerun retries them
    assert caplog.text.count("longer than llm.outage_limit_s (1.5 s;") == 1 and fake_server.url in caplog.text
    print(f"outage: 100 calls failed `outage` {seconds:.2f} s after the server went (limit 1.5 s)")

    fake_server.start()
    again, stats = run(_chat_many(settings, convos=convos, journal=journal))
    assert [r.text for r in again] == ["first", *map(str, range(100))]
    assert (stats.journal_hits, stats.calls) == (1, 100)


# -- probes: transient answers are not refusals ----------------------------------------------------


GRADE = [{"role": "user", "content": "REPLY:2"}]


@pytest.mark.parametrize("mode", ["auto", "structured_outputs"])
@pytest.mark.parametrize("fault", ["429", "500"])
def test_a_transient_answer_to_the_constraint_probe_is_retried_not_read_as_no_constraint(fake_server, mode, fault):
    fake_server.structured, fake_server.retry_after = "structured_outputs", "0"
    fake_server.faults = [fault] * 4  # the probe's four attempts (max_retries 3)

    async def go():
        async with make_client(fake_settings(fake_server, grade_constraint=mode)) as c:
            return await c.grade(GRADE), await c.grade(GRADE), c.stats

    first, second, stats = run(go())
    assert first.label is None and first.failure_kind == f"http_{fault}" and first.failure_kind not in NOT_RETRIED
    assert second.label == "2" and second.path == "structured_outputs"  # probed again, and found
    assert stats.grade_paths == {"structured_outputs": 1}


@pytest.mark.parametrize("status", ["400", "422"])
def test_a_refused_constraint_field_is_a_negative(fake_server, status):
    fake_server.faults = [status, status]  # structured_outputs, then guided_choice refused

    async def go(mode):
        async with make_client(fake_settings(fake_server, grade_constraint=mode)) as c:
            return await c.grade(GRADE)

    got = run(go("auto"))
    assert got.label == "2" and got.path == "parsed"
    fake_server.faults = [status, status]
    got = run(go("structured_outputs"))
    assert got.failure_kind == "unsupported_model" and f"refused (http_{status})" in got.failure


# -- echo alignment on every base URL --------------------------------------------------------------


def test_a_shifted_url_serves_no_log_likelihood_while_an_aligned_one_does(caplog):
    from llm_testlib import fake_logprob, fake_tokens

    caplog.set_level(logging.WARNING, logger="irdata.llm")
    good, shifted = FakeServer(), FakeServer()
    shifted.echo = "shifted"
    pairs = [(f"the cat number{i} sat", " on the mat") for i in range(30)]
    try:
        got, stats = run(_ll(fake_settings(shifted, good, max_in_flight=8), pairs))
    finally:
        good.close()
        shifted.close()
    for (ctx, cont), values in zip(pairs, got):
        toks = fake_tokens(ctx + cont, False)
        assert values == [fake_logprob(t, i) for i, t in enumerate(toks)][-3:]
    assert stats.failures == 0
    assert shifted.paths["/v1/completions"] == 2  # its check (one generation, one echo), then nothing
    assert good.paths["/v1/completions"] == 2 + 30
    assert f"LLM server {shifted.url} serves no log-likelihoods: misaligned: the server scores" in caplog.text


def test_when_every_url_is_shifted_log_likelihoods_fail_with_the_fix_and_the_urls_are_logged(caplog):
    caplog.set_level(logging.WARNING, logger="irdata.llm")
    a, b = FakeServer(), FakeServer()
    a.echo = b.echo = "shifted"
    try:
        got, stats = run(_ll(fake_settings(a, b), [("the cat sat", " on"), ("the dog", " ran")]))
        (alone,), _ = run(_ll(fake_settings(a), [("the cat sat", " on")]))
    finally:
        a.close()
        b.close()
    assert all(isinstance(r, LLMCallError) and r.kind == "misaligned" for r in got)
    assert "loglikelihood_bos: always" in got[0].reason
    # the reason (published with a failed WOOD value) is the refusal's own, the same on one server or two
    assert got[0].reason == alone.reason and str(a.port) not in alone.reason and str(b.port) not in alone.reason
    assert stats.failures_by_kind == {"misaligned": 2}
    assert f"no LLM server can serve log-likelihoods: {a.url}, {b.url} refused" in caplog.text


def test_a_dead_url_and_a_misaligned_one_fail_log_likelihoods_at_once_not_as_an_outage(caplog):
    """No server is out, so there is no outage to wait out: the fix is the refusal's (issue 26, item 7)."""
    caplog.set_level(logging.WARNING, logger="irdata.llm")
    shifted, dead = FakeServer(), dead_url()
    shifted.echo = "shifted"
    # production retry settings: the outage limit is what the calls waited out before
    settings = {**fake_settings(dead, shifted), "max_retries": 6, "backoff_s": 1, "backoff_max_s": 30,
                "breaker_cooldown_s": 5, "outage_limit_s": 180, "max_in_flight": 16}
    pairs = [(f"the cat number{i} sat", " on") for i in range(50)]

    async def go():
        async with make_client(settings) as c:
            t0 = time.monotonic()
            got = await c.loglikelihood_many(pairs, on_error="return", progress=False)
            seconds = time.monotonic() - t0
            chat = await c.chat(CONVOS[0])  # the live server still serves what it is not refused for
            return got, seconds, chat.text, c.stats

    try:
        got, seconds, text, stats = run(go())
    finally:
        shifted.close()
    assert all(isinstance(r, LLMCallError) and r.kind == "misaligned" for r in got), got[:2]
    assert "set llm.loglikelihood_bos: always" in got[0].reason and "outage" not in got[0].reason
    assert stats.failures_by_kind == {"misaligned": 50} and text == "0"
    assert seconds < 60, seconds  # against the 180 s outage limit; seconds less in fact
    assert "every LLM server is out" not in caplog.text
    assert f"{dead} unreachable since the job started" in caplog.text
    assert shifted.paths["/v1/completions"] == 2  # its check only
    print(f"a dead URL and a misaligned one: {len(pairs)} log-likelihoods failed `misaligned` in {seconds:.2f} s")


def test_log_likelihoods_do_not_wait_forever_when_only_a_misaligned_url_is_up():
    good, shifted = FakeServer(), FakeServer()
    shifted.echo = "shifted"
    settings = fake_settings(shifted, good, max_retries=50, breaker_cooldown_s=0.2, backoff_max_s=0.5,
                             outage_limit_s=1.0)

    async def go():
        async with make_client(settings) as c:
            first = await c.loglikelihood("the cat sat", " on")  # both checked: one aligned, one not
            good.stop()
            t0 = time.monotonic()
            rest = await c.loglikelihood_many([("the dog", f" ran{i}") for i in range(10)], on_error="return",
                                              progress=False)
            return first, rest, time.monotonic() - t0

    try:
        first, rest, seconds = run(go())
    finally:
        good.close()
        shifted.close()
    assert len(first) == 1 and all(isinstance(r, LLMCallError) and r.kind == "outage" for r in rest)
    assert seconds < 1.0 + 2.0, seconds


async def _ll(settings, pairs):
    async with make_client(settings) as c:
        return await c.loglikelihood_many(pairs, on_error="return", progress=False), c.stats


def test_the_manifest_identity_comes_from_the_first_url_that_answers(fake_server, caplog):
    from irdata.llm import load_settings
    from irdata.llm.server_probes import server_identity

    fake_server.served_models = ["fake"]
    dead = dead_url()
    assert server_identity(load_settings(fake_settings(dead, fake_server))) == {"version": None,
                                                                               "models": [{"id": "fake"}]}
    caplog.set_level(logging.WARNING, logger="irdata.llm")
    gone = server_identity(load_settings(fake_settings(dead)))
    # recorded without the URL (the manifest says what served, not where); the log names it
    assert gone == {"version": None, "unreachable": "no base URL answered GET /version or /v1/models"}
    assert dead in caplog.text
