"""Routing changes no output: the demo's LLM stages built against one server and again against two
(tests/model_server.py, each with its own prefix cache, calls routed by query id) publish byte-identical
releases, MANIFEST.json included, in which no server address, port or key appears, though grades failed
(HTTP 500) and their reasons are published; the tokens the calls spent are counted per stage, the cached
ones (which depend on the routing) only in the release gate's record."""

import json
import re

import pytest
import yaml

from model_server import ModelServer
from workflow.test_llm_failures import PACKAGE, PUBLISHED
from workflow_run import Workflow

pytestmark = pytest.mark.workflow

LLM_RULES = ("agent_search", "grade", "generate_answer", "wood", "audit_labels", "llm_identity")


@pytest.fixture
def wf(served_wf) -> Workflow:
    return served_wf  # tests/workflow/conftest.py


KEY_ENV, KEY = "IRDATA_ROUTING_KEY", "sk-routing-test-key-0123456789"


def build(wf, servers, journal: str, *extra):
    # breaker_failures: the failing grades (sticky HTTP 500) are not an ill server
    overlay = {"llm": {"backend": "openai", "model": "routing", "base_urls": [s.url for s in servers],
                       "max_retries": 1, "backoff_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 5,
                       "breaker_failures": 1000, "api_key_env": KEY_ENV, "journal_dir": f"cache/{journal}",
                       "extra_body": {}},
               "builds": {"demo": {"version": "v-routing"}}, "accept_llm_failures": True}
    path = wf.root / f"{journal}.yaml"
    path.write_text(yaml.safe_dump(overlay))
    wf.snakemake("--profile", "profiles/local", "--cores", "2", PUBLISHED, *wf.args, path.name, *extra, timeout=2400)
    package = wf.root / PACKAGE
    files = {p.relative_to(package).as_posix(): p.read_bytes() for p in sorted(package.rglob("*")) if p.is_file()}
    return files, json.loads((wf.root / "work/doubting/demo/failures.json").read_text())


def test_one_server_or_two_give_the_same_release_byte_for_byte_naming_neither(wf, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    # a tenth of the grades fail for good (HTTP 500 on every attempt, on any server): their reasons are published
    servers = [ModelServer(prefix_cache_blocks=4096, faults={"500": 0.1}, fault_kinds=("grade",), sticky=True)
               for _ in range(3)]
    try:
        one, gate_one = build(wf, servers[:1], "one")
        # a fresh journal and every LLM job again: each call is made anew, on two servers on other ports
        two, gate_two = build(wf, servers[1:], "two", "--forcerun", *LLM_RULES)
    finally:
        for s in servers:
            s.close()
    assert servers[0].received("agent") and servers[0].received("grade")
    # which of the two a query hashes to depends on their ports (tests/llm/test_tokens.py checks the spread)
    assert all(s.received(kind) for s in servers[1:] for kind in ("agent", "grade"))
    assert sorted(one) == sorted(two)
    assert [name for name in one if one[name] != two[name]] == []

    failed = json.loads(one["MANIFEST.json"])["grading_failures"]
    assert failed["total"] > 0 and failed["by_kind"] == {"http_500": failed["total"]}, failed
    # no address, port or key in any released file (issue 26, item 5): before, "HTTP 500 from
    # http://127.0.0.1:<port>/v1" was in MANIFEST.json, and the identity named unreachable URLs
    leaks = [KEY, "127.0.0.1", "localhost", *(f":{s.port}" for s in servers)]
    found = {(name, leak) for files in (one, two) for name, data in files.items() for leak in leaks
             if leak.encode() in data}
    assert found == set(), found
    assert not any(re.search(rb"https?://[^/\s\"]*:\d+", data) for data in one.values())  # no host:port at all
    print(f"one server or two: {len(one)} released files byte-identical, {failed['total']} failed grades "
          f"published with reasons {sorted(failed['by_reason'])}; no key, address or port of "
          f"{[s.port for s in servers]} in them")

    tokens = json.loads(one["MANIFEST.json"])["tokens"]
    for stage in ("agent_search", "grade", "generate_answer", "wood"):
        assert tokens[stage]["calls"] > 0 and tokens[stage]["prompt_tokens"] > tokens[stage]["calls"]
        assert "cached_prompt_tokens" not in tokens[stage]
        assert gate_one["tokens"][stage]["prompt_tokens"] == gate_two["tokens"][stage]["prompt_tokens"]
    # the agent re-sends its conversation each turn: one server's cache serves it
    agent = gate_one["tokens"]["agent_search"]
    assert agent["cached_prompt_tokens"] > 0.3 * agent["prompt_tokens"]
