"""Agent actions from the real SmolLM2-135M under the action grammar (irdata.llm.tool_grammar),
and what a server is sent for each llm.tool_constraint (fake server): validity, not quality."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from llm_testlib import fake_settings, run

from irdata.annotate.agent import AgentBudget, agent_tools
from irdata.llm import make_client
from irdata.llm.tool_grammar import action_schema
from irdata.prompts import Prompt

REPO = Path(__file__).resolve().parents[2]
_defaults = yaml.safe_load((REPO / "schemas/annotation.schema.yaml").read_text())["$defs"]["budget"]["properties"]
BUDGET = AgentBudget(**{k: v["default"] for k, v in _defaults.items()})
TOOLS = agent_tools(BUDGET, id_chars=4)
CASES = [
    ("what is bcg vaccine", "[1012] BCG is a vaccine against tuberculosis made from a weakened strain.\n"
                            "[1021] When pain continues for three months after shingles clears."),
    ("how many rings does neptune have", "[1024] Neptune has a faint system of five main rings.\n"
                                         "[1012] BCG is a vaccine against tuberculosis."),
    ("who wrote hamlet", "No results."),
]


def _conversation(query: str, results: str) -> list[dict]:
    system, task = Prompt(REPO / "prompts/agent_system.txt"), Prompt(REPO / "prompts/agent_task.txt")
    return [{"role": "system", "content": system.render()},
            {"role": "user", "content": task.render(query=query, results=results)}]


def _shown(results: str) -> list[str]:
    return re.findall(r"^\[(\d+)\]", results, re.M)


@pytest.mark.llm
def test_the_real_model_writes_valid_actions_under_the_grammar(local_settings):
    """Each reply is one action naming its tool first, and ids only of the passages shown (the agent's
    choices: irdata.annotate.agent.SearchAgent._id_choices)."""
    async def go(settings, cases):
        async with make_client(settings) as c:
            return [await c.chat(_conversation(q, r), tools=TOOLS, max_tokens=BUDGET.max_action_tokens,
                                 choices={"propose": {"passage_ids": _shown(r)},
                                          "read_passage": {"passage_id": _shown(r)}})
                    for q, r in cases]

    *replies, again = run(go(local_settings, [*CASES, CASES[0]]))
    for reply, (_, results) in zip(replies, CASES):
        assert reply.constraint == "grammar" and reply.finish_reason == "stop", reply.text
        assert reply.protocol_error is None and len(reply.tool_calls) == 1, reply.text
        assert reply.text.startswith('{"tool": '), reply.text
        call = reply.tool_calls[0]
        spec = next(t["function"] for t in TOOLS if t["function"]["name"] == call.name)
        jsonschema.validate(call.arguments, spec["parameters"])
        named = call.arguments.get("passage_ids", [call.arguments["passage_id"]] if "passage_id" in call.arguments
                                   else [])
        assert set(named) <= set(_shown(results)), reply.text
    assert again.text == replies[0].text  # greedy under the grammar: same prompt, same reply
    (free,) = run(go({**local_settings, "tool_constraint": "none"}, CASES[:1]))
    assert free.constraint == "none"


def test_a_server_is_sent_the_path_the_constraint_names(fake_server):
    """grammar over the text protocol: the action schema as response_format; auto on a server: no
    constraint; native: tool_choice as given. Each reply carries the path it took."""
    convo = [{"role": "user", "content": 'REPLY:{"tool": "finish", "arguments": {}}'}]

    async def go(**overrides):
        async with make_client(fake_settings(fake_server, **overrides)) as c:
            return await c.chat(convo, tools=TOOLS, max_tokens=96)

    reply = run(go(tool_constraint="grammar"))
    body = fake_server.bodies[-1]
    assert reply.constraint == "structured_outputs" and [c.name for c in reply.tool_calls] == ["finish"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "action", "strict": True, "schema": action_schema(TOOLS, 96)}}
    assert "action_schema" not in body and "tools" not in body
    assert run(go()).constraint == "none" and "response_format" not in fake_server.bodies[-1]

    async def native(choice):
        async with make_client(fake_settings(fake_server, tool_protocol="native")) as c:
            return await c.chat(convo, tools=TOOLS, max_tokens=96, tool_choice=choice)

    assert run(native("required")).constraint == "tool_choice_required"
    assert fake_server.bodies[-1]["tool_choice"] == "required" and "response_format" not in fake_server.bodies[-1]
    assert run(native("auto")).constraint == "tool_choice_auto"
