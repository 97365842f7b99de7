"""Unit tests of the LLM layer's pure parts: settings, journal, the grade grammar, echo
alignment, the action protocol, stats."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irdata.errors import InputError
from irdata.llm import (
    ANSWER_SETTINGS,
    CONNECTION_SETTINGS,
    GRADE_REASK,
    Stats,
    connection_settings,
    load_settings,
    parse_grade,
    settings_from_parts,
)
from irdata.llm.actions import parse_action, parse_native, to_text_protocol
from irdata.llm.grading import choice_distribution
from irdata.llm.journal import FLUSH_INTERVAL_S, Journal, JournalError
from irdata.llm.loglikelihood import align_echo, continuation_start
from irdata.llm.results import RequestFailed
from irdata.llm.settings import schema
from irdata.llm.spreading import RetryLog
from irdata.llm.transports import encode_json

TOOLS = [{"type": "function", "function": {
    "name": "search", "description": "BM25 search.",
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]
DIGITS = ("0", "1", "2", "3")


# -- settings -------------------------------------------------------------------------------------


def test_defaults_come_from_the_schema_and_stages_override():
    s = load_settings({"stages": {"wood": {"temperature": 0.7, "base_urls": ["http://h:1/v1"]}}})
    assert s.backend == "local" and s.threads == 1 and s.temperature == 0 and s.max_in_flight == 64
    assert s.for_stage("wood").temperature == 0.7 and s.for_stage("wood").base_urls == ("http://h:1/v1",)
    assert s.for_stage("grade") is s
    props = schema()["properties"]
    assert all("default" in spec for spec in props.values()), "every optional key needs a default"


def test_every_key_is_an_answer_or_a_connection_setting():
    props = set(schema()["properties"]) - {"stages"}
    assert set(ANSWER_SETTINGS) | set(CONNECTION_SETTINGS) == props
    assert not set(ANSWER_SETTINGS) & set(CONNECTION_SETTINGS)


def test_settings_from_parts_rebuild_the_stage_settings():
    section = {"backend": "openai", "model": "m", "base_urls": ["http://a:1/v1"], "timeout_s": 9,
               "stages": {"grade": {"temperature": 0.3, "base_urls": ["http://b:1/v1"], "max_in_flight": 8}}}
    full = load_settings(section)
    answer = full.for_stage("grade").answer_settings()
    conn = connection_settings(section)
    assert conn == {"base_urls": ["http://a:1/v1"], "timeout_s": 9,
                    "stages": {"grade": {"base_urls": ["http://b:1/v1"], "max_in_flight": 8}}}
    rebuilt = settings_from_parts(json.loads(json.dumps(answer)), conn)  # a param travels as JSON
    eff = rebuilt.for_stage("grade")
    assert eff.answer_settings() == answer and eff.temperature == 0.3
    assert (eff.base_urls, eff.max_in_flight, eff.timeout_s) == (("http://b:1/v1",), 8, 9)
    # Changing a server changes no answer setting (so no rule param, no journal key).
    other = load_settings({**section, "base_urls": ["http://c:2/v1"], "max_retries": 1})
    assert other.answer_settings() == full.answer_settings()
    with pytest.raises(ValueError, match="base_urls.*not answer settings"):
        settings_from_parts({**answer, "base_urls": ["http://a:1/v1"]}, conn)
    with pytest.raises(ValueError, match="temperature.*not connection settings"):
        settings_from_parts(answer, {**conn, "temperature": 1})


@pytest.mark.parametrize("section, message", [
    ({"backend": "vllm"}, "llm.backend"),
    ({"threads": 0}, "llm.threads"),
    ({"stages": {"grade": {"journal_dir": "x"}}}, "llm.stages.grade"),
    ({"backend": "openai"}, "needs `base_urls`"),
    ({"stages": {"arm": {"backend": "openai"}}}, "llm.stages.arm: backend `openai` needs"),
    ({"base_urls": ["http://gpu1:8000"]}, r"llm.base_urls\[0\]: 'http://gpu1:8000' has no path ending in /v1 "
                                          r"\(e.g. http://gpu1:8000/v1\)"),
    ({"base_urls": ["http://a:1/v1", "https://u:pw@b:2/api"]}, r"llm.base_urls\[1\]: 'https://b:2/api'"),
    ({"stages": {"x": {"base_urls": ["http://a:1/"]}}}, r"llm.stages.x.base_urls\[0\]"),
])
def test_bad_config_names_the_key(section, message):
    with pytest.raises(ValueError, match=message):
        load_settings(section)


@pytest.mark.parametrize("value", ["sk-proj-Abc123def456ghi789", "sk_live_abcdefghijklmnop123",
                                   "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "ABCdef123456GHIjkl789012mnoP",
                                   "my key=value"])
def test_a_key_pasted_as_api_key_env_is_refused_without_echoing_it(value):
    for section in ({"api_key_env": value}, {"stages": {"grade": {"api_key_env": value}}}):
        with pytest.raises(ValueError, match="NAME of an environment variable") as err:
            load_settings(section)
        assert value not in str(err.value) and value[:8] not in str(err.value)


@pytest.mark.parametrize("url, shown", [("http://user:tok3n-s3cret@gpu1:8000/v1", "http://gpu1:8000/v1"),
                                        ("https://tok3n-s3cret@gpu1/v1", "https://gpu1/v1"),
                                        ("http://gpu1:8000/v1?api_key=tok3n-s3cret", "http://gpu1:8000/v1"),
                                        ("ftp://user:tok3n-s3cret@gpu1/v1", "ftp://gpu1/v1")])
def test_a_base_url_with_credentials_is_refused_without_echoing_them(url, shown):
    """Base URLs are written into logs and messages; a key goes in llm.api_key_env (issue 26, item 5). Before,
    the aiohttp transport failed each call with a raw ValueError, and the manifest recorded the URL."""
    for section, where in (({"base_urls": ["http://a:1/v1", url]}, "llm.base_urls[1]"),
                           ({"stages": {"grade": {"base_urls": [url]}}}, "llm.stages.grade.base_urls[0]")):
        with pytest.raises(ValueError) as err:
            load_settings(section)
        message = str(err.value)
        assert message.startswith(f"{where}: {shown!r} carries credentials") and "llm.api_key_env" in message
        assert "tok3n" not in message and "user" not in message.split("carries")[0]


def test_plain_env_var_names_are_accepted():
    for name in ("VLLM_API_KEY", "OPENAI_API_KEY", "my_key_2"):
        assert load_settings({"api_key_env": name}).api_key_env == name


# -- journal ---------------------------------------------------------------------------------------


def _five_answers(path):
    j = Journal(path)
    for i in range(5):
        j.append(f"{i:064d}", {"text": str(i)})
    j.close()
    return path.read_bytes()


def test_journal_cuts_a_torn_last_line_and_nothing_else(tmp_path):
    path = tmp_path / "j.jsonl"
    data = _five_answers(path)
    path.write_bytes(data + data[:90])  # a writer stopped mid-line
    j = Journal(path)
    assert len(j.entries) == 5 and "c" not in j and j.dropped == 1 and path.read_bytes() == data
    j.append("d", {"text": "4"})
    j.close()
    j = Journal(path)
    assert len(j.entries) == 6 and j.dropped == 0 and len(path.read_bytes().splitlines()) == 6
    j.close()
    # a whole last line whose line end was not written is kept and ended
    path.write_bytes(data[:-1])
    j = Journal(path)
    assert len(j.entries) == 5 and j.dropped == 0 and path.read_bytes() == data
    j.close()


@pytest.mark.parametrize("damage, line, words", [
    (lambda data: data.replace(b"\n", b"\r\n"), 1, "CRLF"),
    (lambda data: gzip.compress(data, mtime=0), None, "gzip-compressed"),
    (lambda data: data.replace(b'"text":"2"', b'"text":"3"'), 3, "checksum does not match"),  # an edited answer
    (lambda data: data + b"\n", 6, "not a line the journal writes"),
    (lambda data: data + b"a note", 6, "not a line the journal writes"),  # no torn journal line: kept
])
def test_an_unreadable_journal_is_refused_naming_the_file_and_kept(tmp_path, damage, line, words):
    """Before, opening it truncated everything after its last sound line: a CRLF or gzipped journal of 5 answers
    became 0 bytes."""
    path = tmp_path / "j.jsonl"
    damaged = damage(_five_answers(path))
    path.write_bytes(damaged)
    with pytest.raises(InputError) as error:
        Journal(path)
    assert (error.value.path, error.value.line) == (str(path), line) and words in error.value.problem
    assert path.read_bytes() == damaged


journal_values = st.dictionaries(st.text(max_size=4), st.text(max_size=12) | st.integers() | st.none(), max_size=3)


@settings(max_examples=80, deadline=None)
@given(values=st.lists(journal_values, min_size=1, max_size=6), cut=st.integers(0, 1 << 12),
       stray=st.binary(min_size=1, max_size=3), at=st.integers(0, 1 << 12))
def test_a_journal_is_never_shortened_beyond_a_torn_last_line(tmp_path_factory, values, cut, stray, at):
    """Cut anywhere, a journal keeps every whole line and loses at most the torn one; with stray bytes anywhere
    it is read the same way or refused naming the file, and kept byte for byte."""
    path = tmp_path_factory.mktemp("journal") / "j.jsonl"
    j = Journal(path)
    for i, value in enumerate(values):
        j.append(f"{i:064d}", value)
    j.close()
    data = path.read_bytes()
    cut = data[:cut % (len(data) + 1)]
    path.write_bytes(cut)
    j = Journal(path)
    whole = cut.count(b"\n") + (path.read_bytes() == cut + b"\n")  # a whole last line without its line end: kept
    assert j.entries == {f"{i:064d}": encode_json(v) for i, v in enumerate(values[:whole])}
    assert path.read_bytes() in (cut[:cut.rfind(b"\n") + 1], cut, cut + b"\n")
    j.close()
    at = at % (len(data) + 1)
    damaged = data[:at] + stray + data[at:]
    path.write_bytes(damaged)
    try:
        j = Journal(path)
    except InputError as error:
        assert error.path == str(path) and path.read_bytes() == damaged
    else:
        assert all(j.entries[k] == encode_json(values[int(k)]) for k in j.entries)
        assert damaged.startswith(path.read_bytes()) or path.read_bytes() == damaged + b"\n"
        j.close()


def test_journal_reads_sound_lines_of_another_layout_and_batches_writes(tmp_path):
    import hashlib

    path = tmp_path / "j.jsonl"
    body = json.dumps({"v": {"text": "x"}, "k": "a" * 64}).encode()  # other key order and spacing
    path.write_bytes(hashlib.sha256(body).hexdigest().encode() + b" " + body + b"\n")
    j = Journal(path)
    assert j.get("a" * 64) == {"text": "x"}

    async def burst():
        for i in range(5):
            j.append(f"{i:064d}", {"text": str(i)})
        before = len(path.read_bytes().splitlines())
        await asyncio.sleep(0)
        still = len(path.read_bytes().splitlines())
        await asyncio.sleep(2 * FLUSH_INTERVAL_S)  # the burst's timer fires first: one write
        return before, still

    assert asyncio.run(burst()) == (1, 1) and len(path.read_bytes().splitlines()) == 6
    j.close()
    assert Journal(path).get(f"{4:064d}") == {"text": "4"}


def test_journal_continues_short_writes(tmp_path, monkeypatch):
    import os

    path = tmp_path / "j.jsonl"
    j = Journal(path)
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:7]) if fd == j._fd else data))

    async def burst():
        for i in range(3):
            j.append(f"{i:064d}", {"text": str(i)})
        await asyncio.sleep(2 * FLUSH_INTERVAL_S)

    asyncio.run(burst())
    j.close()
    monkeypatch.undo()
    again = Journal(path)
    assert (len(again.entries), again.dropped, again.kept) == (3, 0, 3)
    again.close()


def test_journal_write_past_a_file_size_limit_keeps_whole_lines_and_raises(tmp_path, caplog):
    import resource
    import signal

    path = tmp_path / "j.jsonl"
    j = Journal(path)
    j.append("a" * 64, {"text": "first"})  # no event loop: written now
    size = path.stat().st_size
    limit = 3 * size + size // 2  # room for two more lines and half a third

    async def burst():
        for i in range(3):
            j.append(f"{i:064d}", {"text": "abcde"})  # the same length as the first line
        await asyncio.sleep(2 * FLUSH_INTERVAL_S)  # the timer's write fails: recorded, not raised

    old_limit, old_handler = resource.getrlimit(resource.RLIMIT_FSIZE), signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old_limit[1]))
    try:
        asyncio.run(burst())
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)
    assert "file too large (EFBIG" in caplog.text
    # The half line is cut: the file holds whole lines only, and nothing is written any more.
    assert path.stat().st_size == 3 * size and path.read_bytes().endswith(b"\n")
    with pytest.raises(JournalError, match="1 answered call"):
        j.get("a" * 64)
    with pytest.raises(JournalError, match="2 answered call"):
        j.append("b" * 64, {"text": "lost"})  # the call's answer is counted, then the job is stopped
    with pytest.raises(JournalError) as err:
        j.close()
    assert str(err.value) == (f"file too large (EFBIG: a file-size limit such as ulimit -f) writing {path}: raise "
                              "the limit and rerun; 2 answered call(s) could not be kept and will be asked again "
                              "(3 on disk will not be)")
    again = Journal(path)
    assert set(again.entries) == {"a" * 64, f"{0:064d}", f"{1:064d}"} and again.dropped == 0
    again.append("c" * 64, {"text": "x"})  # appends onto a whole line
    again.close()
    again = Journal(path)
    assert (again.dropped, again.kept) == (0, 4)
    again.close()


# -- the grade grammar -----------------------------------------------------------------------------

GRADE_TABLE = [
    # bare: the whole reply is the choice
    ("2", "2"), (" 3.", "3"), ("**0**", "0"), ('"1"', "1"), ("'2'.", "2"), ("`3`", "3"), ("2\n", "2"),
    # keyed: the prompts' keyword on the reply's last line, after any reasoning
    ("Grade: 1", "1"), ("Grade: 2.", "2"), ("grade:3", "3"), ("GRADE: 0", "0"), ("**Grade:** 2", "2"),
    ("Grade: **2**", "2"), ("  *Grade: 1*  \n", "1"),
    ("The passage defines BM25 but not its parameters.\nGrade: 2", "2"),
    ("It mentions the query terms. It does not answer the question.\nGrade: 1.", "1"),
    ("Reasoning first.\n\n**Grade: 3**", "3"),
    ("<think>The passage is about cats, the query about dogs. 0 or 1?</think>\n0", "0"),
    ("<think>relevant... maybe 3</think>Grade: 2", "2"),
    ("It matches partly.\nGrade: 1\nGrade: 2", "2"),  # the last line wins
    # unparseable
    ("Step 1: read the passage. It is irrelevant.", None),
    ("The query asks about 3 things", None),
    ("-1", None), ("I would not give it a 3", None), ("10", None), ("2.5", None), ("", None),
    ("Reply with a single digit: 0, 1, 2 or 3.", None),  # an echo of the instructions
    ("Answer with exactly one of: 0, 1, 2, 3. Reply with that single character and nothing else.", None),
    ("between 1 and 2", None), ("maybe", None), ("Grade: 2/3", None), ("Grade: 2 out of 3", None),
    ("Grade: 0-3", None), ("Grade: 2\n\nExplanation: it defines the term.", None),
    ("1 or 2, hard to say", None), ("<think>It is clearly a 3 because", None),  # reasoning cut off
    ("Relevance (0-3): 2", None), ("I'd say 2", None), ("2 because it mentions BM25", None),
    ("Grade: 4", None), ("The grade is not 2", None),
    # another keyword, or the keyword not on the last line of its own (a passage's copied tail)
    ("Final answer: 3", None), ("Answer: 0", None), ("Final grade: 1", None), ("The answer is 2", None),
    ("The answer is 3.", None), ("The grade is 3", None), ("... Final answer: 3", None),
    ("It mentions the query terms. Grade: 1.", None), ("It matches partly. Grade: 1. Final answer: 2", None),
    ("Grade:\n2", None), ("Grade: 2\nor 3", None),
]


@pytest.mark.parametrize("reply, label", GRADE_TABLE)
def test_grade_grammar(reply, label):
    assert parse_grade(reply, DIGITS) == label


def test_grade_table_is_big_enough_and_reask_cannot_be_copied_into_a_grade():
    assert len(GRADE_TABLE) >= 30
    assert parse_grade(GRADE_REASK, DIGITS) is None
    assert parse_grade(GRADE_REASK, ("yes", "no")) is None
    assert not any(d in GRADE_REASK for d in DIGITS)
    assert parse_grade("Yes.", ("yes", "no")) == "yes" and parse_grade("Grade: NO", ("yes", "no")) == "no"


def test_choice_distribution_renormalises_over_the_choices():
    dist = choice_distribution({"0": -3.0, "1": -2.0, "2": -1.0, "3": -0.5, "The": -0.1}, DIGITS)
    assert set(dist) == set(DIGITS) and abs(sum(2.718281828459045 ** v for v in dist.values()) - 1) < 1e-12
    assert dist["3"] - dist["2"] == pytest.approx(0.5)
    assert choice_distribution({"0": -1.0, "1": -2.0}, DIGITS) is None


# -- log-likelihood alignment ------------------------------------------------------------------------


def test_continuation_start_refuses_straddles_and_unconditioned_continuations():
    spans = [(0, 3), (3, 7), (7, 11)]  # "The", " cat", " sat"
    assert continuation_start(spans, 7, "The cat", " sat") == 2
    with pytest.raises(RequestFailed, match="spans the boundary") as err:
        continuation_start(spans, 5, "The c", "at sat")
    assert err.value.kind == "misaligned"
    with pytest.raises(RequestFailed, match="nothing to condition on"):
        continuation_start(spans, 0, "", "The cat sat")
    with pytest.raises(RequestFailed, match="has no tokens"):
        continuation_start(spans, 11, "The cat sat", "")


ECHO = dict(sent="The cat sat on", context="The cat sat", continuation=" on")


@pytest.mark.parametrize("tokens, values, prompt_tokens, completion_tokens, bos_in_prompt", [
    # vLLM: BOS echoed (value null), generated token included
    (["<s>", "The", " cat", " sat", " on", " gen"], [None, -1, -2, -3, -4, -5], 5, 1, True),
    # llama-cpp-python with BOS: BOS dropped, first value nulled, generated token included
    (["The", " cat", " sat", " on", " gen"], [None, -2, -3, -4, -5], 5, 1, True),
    # a server that leaves the generated token out
    (["The", " cat", " sat", " on"], [None, -2, -3, -4], 4, 1, None),
    # no BOS, generated token included
    (["The", " cat", " sat", " on", " gen"], [None, -2, -3, -4, -5], 4, 1, False),
])
def test_align_echo_handles_bos_and_generated_tokens_either_way(tokens, values, prompt_tokens, completion_tokens,
                                                                bos_in_prompt):
    got = align_echo(tokens, values, echoed_text="The cat sat on gen", prompt_tokens=prompt_tokens,
                     completion_tokens=completion_tokens, bos_in_prompt=bos_in_prompt, **ECHO)
    assert got == [-4.0]


def test_align_echo_refuses_what_it_cannot_align():
    with pytest.raises(RequestFailed, match="cannot be aligned") as err:  # counts fit no split
        align_echo(["The", " cat", " sat", " on", " gen"], [None, -2, -3, -4, -5], echoed_text="The cat sat on gen",
                   prompt_tokens=7, completion_tokens=1, bos_in_prompt=False, **ECHO)
    assert err.value.kind == "misaligned"
    with pytest.raises(RequestFailed, match="cannot be aligned"):  # texts do not spell the prompt
        align_echo(["The", " dog", " sat", " on"], [None, -2, -3, -4], echoed_text=None, prompt_tokens=4,
                   completion_tokens=0, bos_in_prompt=False, **ECHO)
    with pytest.raises(RequestFailed, match="spans the boundary"):
        align_echo(["The", " cat", " sat", " on"], [None, -2, -3, -4], echoed_text=None, prompt_tokens=4,
                   completion_tokens=0, bos_in_prompt=False, sent="The cat sat on", context="The cat sa",
                   continuation="t on")


# -- actions ---------------------------------------------------------------------------------------


def test_text_protocol_round_trip():
    history = [
        {"role": "system", "content": "You are a search agent."},
        {"role": "user", "content": "find cats"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "search", "arguments": '{"q": "cats"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "d1 d2"},
    ]
    msgs = to_text_protocol(history, TOOLS)
    assert msgs[0]["role"] == "system" and "search" in msgs[0]["content"]
    assert "You are a search agent." in msgs[0]["content"]
    assert json.loads(msgs[2]["content"]) == {"tool": "search", "arguments": {"q": "cats"}}
    assert msgs[3] == {"role": "user", "content": "Result of tool search:\nd1 d2"}
    _, calls, err = parse_action('Sure.\n```json\n{"tool": "search", "arguments": {"q": "dogs"}}\n```', TOOLS)
    assert err is None and [(c.name, c.arguments) for c in calls] == [("search", {"q": "dogs"})]
    _, calls, err = parse_action('{"tool": "delete_all", "arguments": {}}', TOOLS)
    assert calls == [] and "unknown tool 'delete_all'" in err
    _, calls, err = parse_action("The answer is d1.", TOOLS)
    assert calls == [] and err is None


def test_parallel_actions_are_all_returned():
    _, calls, err = parse_action('[{"tool": "search", "arguments": {"q": "a"}}, '
                                 '{"tool": "search", "arguments": {"q": "b"}}]', TOOLS)
    assert err is None and [c.arguments["q"] for c in calls] == ["a", "b"] and calls[0].id != calls[1].id
    text = ('{"tool": "search", "arguments": {"q": "a"}}\n{"tool": "search", "arguments": {"q": "a"}}\n'
            '{"tool": "nope", "arguments": {}}')
    _, calls, err = parse_action(text, TOOLS)
    assert [c.arguments["q"] for c in calls] == ["a", "a"] and "unknown tool 'nope'" in err
    # An arguments object with a "name" key is not an action of its own.
    _, calls, _ = parse_action('{"tool": "search", "arguments": {"name": "search", "q": "x"}}', TOOLS)
    assert len(calls) == 1


def test_native_tool_calls_all_returned_and_bad_arguments_reported():
    calls, err = parse_native([{"id": "x", "function": {"name": "search", "arguments": '{"q": "a"}'}},
                               {"id": "y", "function": {"name": "search", "arguments": '{"q": "b"}'}}])
    assert err is None and [c.arguments for c in calls] == [{"q": "a"}, {"q": "b"}]
    calls, err = parse_native([{"id": "x", "function": {"name": "search", "arguments": '{"q": '}},
                               {"id": "y", "function": {"name": "search", "arguments": '{"q": "b"}'}}])
    assert [c.id for c in calls] == ["y"] and "not valid JSON" in err


# -- stats -----------------------------------------------------------------------------------------


def test_stats_summary_line_and_deterministic_dict():
    st = Stats(calls=10, journal_hits=3)
    st.retry("http_500")
    st.retry("http_500")
    st.retry("timeout")
    st.fail("unparseable")
    st.grade_path("logit_bias")
    line = st.summary_line()
    assert line.startswith("LLM: 10 calls, 3 journal hits, 0 coalesced, 3 retries (http_500: 2, timeout: 1), "
                           "1 failures (unparseable: 1), grade paths (logit_bias: 1); ")
    assert line.endswith(" s")
    assert "elapsed" not in json.dumps(st.as_dict()) and st.as_dict()["retries_by_kind"] == {"http_500": 2,
                                                                                           "timeout": 1}


def test_retry_log_aggregates_to_one_line_per_interval(caplog):
    caplog.set_level(logging.INFO, logger="irdata.llm.spreading")
    rl = RetryLog(interval_s=3600)
    for _ in range(50):
        rl.note("http_500", "http://a/v1")
    rl.note("timeout", "http://b/v1")
    rl.flush()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2  # the first retry at once, the rest in one line
    assert lines[0] == "LLM retries so far: 1 (http_500 at http://a/v1: 1)"
    assert "50 (http_500 at http://a/v1: 49, timeout at http://b/v1: 1)" in lines[1]


def test_slots_bound_holders_and_pass_a_slot_on_when_a_waiter_is_cancelled():
    import asyncio

    from irdata.llm.backend import Slots

    async def go():
        slots = Slots(1)
        assert slots.take() and not slots.take()
        order = []

        async def holder(name):
            await slots.wait()
            order.append(name)
            await asyncio.sleep(0)
            slots.release()

        a = asyncio.create_task(holder("a"))
        b = asyncio.create_task(holder("b"))
        await asyncio.sleep(0)
        slots.release()  # handed to a
        a.cancel()  # a is cancelled after the hand-over: b must get the slot
        await asyncio.gather(a, b, return_exceptions=True)
        return order, slots.free

    order, free = asyncio.run(go())
    assert order == ["b"] and free == 1


def test_calls_in_flight_hold_the_collector_and_the_last_to_end_restores_it():
    import asyncio
    import gc

    from irdata.llm import make_client
    from irdata.llm.client import GC_YOUNG_THRESHOLD, hold_gc, release_gc

    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0 and before[0] < GC_YOUNG_THRESHOLD

    def state():
        return gc.get_threshold(), gc.get_freeze_count() > 0

    hold_gc()
    hold_gc()
    release_gc()
    assert state() == ((GC_YOUNG_THRESHOLD, *before[1:]), True)  # one holder left
    release_gc()
    assert state() == (before, False)

    async def go():
        client = make_client({"backend": "openai", "base_urls": ["http://127.0.0.1:9/v1"]})
        opened = state()  # an open client with no request in flight holds nothing
        await client.aclose()
        return opened

    assert asyncio.run(go()) == (before, False)
