"""Routing changes no output: the demo's LLM stages built against one server and again against three
(tests/model_server.py, each with its own prefix cache, calls routed by query id) publish byte-identical
releases, MANIFEST.json included; the tokens the calls spent are counted per stage, the cached ones
(which depend on the routing) only in the release gate's record."""

import json

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


def build(wf, servers, journal: str, *extra):
    overlay = {"llm": {"backend": "openai", "model": "routing", "base_urls": [s.url for s in servers],
                       "max_retries": 1, "backoff_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 5,
                       "journal_dir": f"cache/{journal}", "extra_body": {}},
               "doubting": {"version": "v-routing"}}
    path = wf.root / f"{journal}.yaml"
    path.write_text(yaml.safe_dump(overlay))
    wf.snakemake("--profile", "profiles/local", "--cores", "2", PUBLISHED, *wf.args, path.name, *extra, timeout=2400)
    package = wf.root / PACKAGE
    files = {p.relative_to(package).as_posix(): p.read_bytes() for p in sorted(package.rglob("*")) if p.is_file()}
    return files, json.loads((wf.root / "work/doubting/failures.json").read_text())


def test_one_server_or_three_give_the_same_release_byte_for_byte(wf):
    servers = [ModelServer(prefix_cache_blocks=4096) for _ in range(4)]
    try:
        one, gate_one = build(wf, servers[:1], "one")
        # a fresh journal and every LLM job again: each call is made anew, on three servers
        three, gate_three = build(wf, servers[1:], "three", "--forcerun", *LLM_RULES)
    finally:
        for s in servers:
            s.close()
    assert servers[0].received("agent") and servers[0].received("grade")
    # which of the three a query hashes to depends on their ports (tests/llm/test_tokens.py checks the spread)
    assert all(any(s.received(kind) for s in servers[1:]) for kind in ("agent", "grade"))
    assert sorted(one) == sorted(three)
    assert [name for name in one if one[name] != three[name]] == []

    tokens = json.loads(one["MANIFEST.json"])["tokens"]
    for stage in ("agent_search", "grade", "generate_answer", "wood"):
        assert tokens[stage]["calls"] > 0 and tokens[stage]["prompt_tokens"] > tokens[stage]["calls"]
        assert "cached_prompt_tokens" not in tokens[stage]
        assert gate_one["tokens"][stage]["prompt_tokens"] == gate_three["tokens"][stage]["prompt_tokens"]
    # the agent re-sends its conversation each turn: one server's cache serves it
    agent = gate_one["tokens"]["agent_search"]
    assert agent["cached_prompt_tokens"] > 0.3 * agent["prompt_tokens"]
