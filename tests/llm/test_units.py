"""Unit tests of the LLM layer's pure parts: settings, journal, parsing, the action protocol."""

from __future__ import annotations

import json

import pytest

from irdata.llm import load_settings, parse_choice
from irdata.llm.actions import parse_action, parse_native, to_text_protocol
from irdata.llm.journal import Journal, request_key
from irdata.llm.openai_backend import continuation_tail
from irdata.llm.results import RequestFailed
from irdata.llm.settings import schema

TOOLS = [{"type": "function", "function": {
    "name": "search", "description": "BM25 search.",
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]


def test_defaults_come_from_the_schema_and_stages_override():
    s = load_settings({"stages": {"wood": {"temperature": 0.7, "base_urls": ["http://h:1/v1"]}}})
    assert s.backend == "local" and s.threads == 1 and s.temperature == 0 and s.max_in_flight == 64
    assert s.for_stage("wood").temperature == 0.7 and s.for_stage("wood").base_urls == ("http://h:1/v1",)
    assert s.for_stage("grade") is s
    props = schema()["properties"]
    assert all("default" in spec for spec in props.values()), "every optional key needs a default"


@pytest.mark.parametrize("section, message", [
    ({"backend": "vllm"}, "llm.backend"),
    ({"threads": 0}, "llm.threads"),
    ({"stages": {"grade": {"journal_dir": "x"}}}, "llm.stages.grade"),
    ({"backend": "openai"}, "needs `base_urls`"),
    ({"stages": {"arm": {"backend": "openai"}}}, "llm.stages.arm: backend `openai` needs"),
])
def test_bad_config_names_the_key(section, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("`", ".")):
        load_settings(section)


def test_journal_drops_torn_and_corrupt_lines(tmp_path):
    path = tmp_path / "j.jsonl"
    j = Journal(path)
    j.append("a", {"text": "1"})
    j.append("b", {"text": "2"})
    j.close()
    lines = path.read_bytes().splitlines(keepends=True)
    tampered = lines[1].replace(b'"2"', b'"3"')  # checksum no longer matches
    path.write_bytes(lines[0] + tampered + b'deadbeef {"k": "c", "v"')  # and a torn tail
    j = Journal(path)
    assert j.get("a") == {"text": "1"} and "b" not in j and "c" not in j and j.dropped == 2
    j.append("d", {"text": "4"})
    j.close()
    j = Journal(path)
    # The bad bytes after the last good line were cut on the first open: d is a whole line.
    assert set(j.entries) == {"a", "d"} and j.dropped == 0 and len(path.read_bytes().splitlines()) == 2
    j.close()


def test_request_key_is_order_independent_and_content_sensitive():
    assert request_key({"a": 1, "b": [1, 2]}) == request_key({"b": [1, 2], "a": 1})
    assert request_key({"a": 1}) != request_key({"a": 2})


@pytest.mark.parametrize("reply, label", [
    ("2", "2"), (" 3.", "3"), ("Grade: 1", "1"), ("**0**", "0"),
    ("between 1 and 2", None), ("maybe", None), ("10", None), ("2.5", None), ("", None),
])
def test_parse_choice(reply, label):
    assert parse_choice(reply, ("0", "1", "2", "3")) == label


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
    assert err is None and calls[0].name == "search" and calls[0].arguments == {"q": "dogs"}
    _, calls, err = parse_action('{"tool": "delete_all", "arguments": {}}', TOOLS)
    assert calls == [] and "unknown tool 'delete_all'" in err
    _, calls, err = parse_action("The answer is d1.", TOOLS)
    assert calls == [] and err is None


def test_native_tool_calls_with_bad_arguments_are_reported():
    calls, err = parse_native([{"id": "x", "function": {"name": "search", "arguments": '{"q": "a"}'}}])
    assert err is None and calls[0].arguments == {"q": "a"}
    calls, err = parse_native([{"id": "x", "function": {"name": "search", "arguments": '{"q": '}}])
    assert calls == [] and "not valid JSON" in err


def test_continuation_tail():
    tokens = ["The", " cat", " sat", " on", " the", " mat"]
    values = [None, -1.0, -2.0, -3.0, -4.0, -5.0]
    assert continuation_tail(tokens, values, "The cat sat", " on the mat") == [-3.0, -4.0, -5.0]
    with pytest.raises(RequestFailed, match="token boundary"):
        continuation_tail(tokens, values, "The cat sat o", "n the mat")
    with pytest.raises(RequestFailed, match="no preceding token"):
        continuation_tail(tokens, values, "", "The cat sat on the mat")
