"""Constrained tool calls: how a reply in the text tool protocol is held to one valid action.

`action_schema(tools, max_tokens)` is the JSON schema of one action of the protocol in
actions.py, {"tool": NAME, "arguments": {...}}, one alternative per tool, its arguments per the
tool's own JSON schema, bounded so that every action it admits is at most `max_tokens - 1` bytes
as JSON with ", " and ": " separators and no other whitespace (the form the conversation history
uses). A token is at least one byte, so an admitted action can never be cut off at max_tokens,
and one token is left for the end of the reply. To make the byte count exact, strings hold
printable ASCII without quote or backslash (no escapes, one byte a character): the tools' ids and
search words; integers need a maximum. Strings and arrays without their own bound share what the
tool's fixed parts leave of the budget (capped at MAX_FREE). One action per reply: the agent's
system prompt asks for exactly one tool a step, and a list would split the budget.

The local backend compiles the schema with llguidance (`ActionMatcher`) and masks the logits at
every step, so greedy decoding gives the same constrained reply for the same prompt; the openai
backend sends it as a `response_format` JSON schema (vLLM structured outputs). Final answers in
plain text are not admitted: the agent's `finish` tool ends an episode.

How each chat call with tools was constrained (`constraint_path`) is recorded per agent turn.
"""

from __future__ import annotations

import json
from functools import lru_cache

from .actions import _tool_fn

# Which way an agent turn's action was constrained (ChatResult.constraint).
TOOL_PATHS = ("grammar", "structured_outputs", "tool_choice_required", "tool_choice_auto", "none")

# One JSON-safe printable ASCII character: not '"' (0x22), not '\\' (0x5c).
SAFE_CHAR = r"[ !#-\[\]-~]"
ITEM_SEP, KEY_SEP = ", ", ": "
# Most characters of a free string (or items of a free array) whatever the budget: keeps the grammar small.
MAX_FREE = 400
_COMPILE_OPTIONS = {"whitespace_flexible": False, "item_separator": ITEM_SEP, "key_separator": KEY_SEP}


class ActionBudgetError(ValueError):
    """The token cap leaves no room for some tool's smallest action."""


def constraint_path(tool_constraint: str, backend: str, tool_protocol: str, tool_choice) -> str:
    """The TOOL_PATHS entry a chat call with tools takes under these settings: `grammar` (local,
    text protocol), `structured_outputs` (a server, text protocol, tool_constraint grammar),
    `tool_choice_<choice>` (native protocol: what is sent), else `none`."""
    if tool_protocol == "native":
        if backend == "local":  # the local model has no native tool calls: its replies are free text
            return "none"
        return "tool_choice_required" if tool_choice == "required" else "tool_choice_auto"
    if tool_constraint == "none" or (tool_constraint == "auto" and backend != "local"):
        return "none"
    return "grammar" if backend == "local" else "structured_outputs"


def _string_schema(length: int) -> dict:
    return {"type": "string", "pattern": f"^{SAFE_CHAR}{{1,{length}}}$"}


def _bounded(prop: str, schema: dict, free: int | None) -> tuple[dict, int, int]:
    """(bounded schema, its most bytes as JSON, bytes each unit of `free` adds) of one argument.

    `free` is the length given to an unbounded string or array (None: the smallest, 1)."""
    kind = schema.get("type")
    n = 1 if free is None else free
    if kind == "string":
        if "enum" in schema:
            return schema, max(len(json.dumps(v)) for v in schema["enum"]), 0
        if "maxLength" in schema:
            return _string_schema(schema["maxLength"]), schema["maxLength"] + 2, 0
        return _string_schema(n), n + 2, 1
    if kind == "integer":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if lo is None or hi is None:
            raise ActionBudgetError(f"tool argument {prop!r}: an integer needs a minimum and a maximum to be "
                                    "held to a token budget")
        return {"type": "integer", "minimum": lo, "maximum": hi}, max(len(str(lo)), len(str(hi))), 0
    if kind == "array":
        item, item_bytes, item_free = _bounded(prop, schema.get("items", {}), None)
        if item_free:
            raise ActionBudgetError(f"tool argument {prop!r}: array items need their own bound (maxLength)")
        k = schema["maxItems"] if "maxItems" in schema else n
        bounded = {"type": "array", "items": item, "minItems": 1, "maxItems": k}
        most = 2 + k * item_bytes + (k - 1) * len(ITEM_SEP)
        return bounded, most, 0 if "maxItems" in schema else item_bytes + len(ITEM_SEP)
    raise ActionBudgetError(f"tool argument {prop!r}: type {kind!r} cannot be held to a token budget")


def _object_bytes(parts: list[tuple[str, int]]) -> int:
    """Most bytes of a JSON object with these (key, most value bytes) members."""
    return 2 + sum(len(json.dumps(k)) + len(KEY_SEP) + b for k, b in parts) + len(ITEM_SEP) * max(len(parts) - 1, 0)


def _action(fn: dict, budget: int) -> dict:
    """The schema of one action of tool `fn` whose JSON is at most `budget` bytes."""
    name = fn["name"]
    params = fn.get("parameters") or {}
    props = params.get("properties") or {}
    smallest = {p: _bounded(p, s, None) for p, s in props.items()}
    most = _object_bytes([("tool", len(json.dumps(name))),
                          ("arguments", _object_bytes([(p, b[1]) for p, b in smallest.items()]))])
    growing = [p for p, b in smallest.items() if b[2]]
    if most > budget:
        raise ActionBudgetError(f"a {name!r} action can take {most} tokens (one a byte at worst), more than the "
                                f"{budget} the reply's token cap leaves: raise max_action_tokens")
    # what is left goes to the unbounded strings and arrays, shared evenly
    arguments = {}
    for p, s in props.items():
        if p in growing:
            extra = (budget - most) // len(growing) // smallest[p][2]
            arguments[p] = _bounded(p, s, min(1 + extra, MAX_FREE))[0]
        else:
            arguments[p] = smallest[p][0]
    return {"type": "object", "additionalProperties": False, "required": ["tool", "arguments"],
            "properties": {"tool": {"const": name}, "arguments": {
                "type": "object", "additionalProperties": False, "properties": arguments,
                "required": [p for p in params.get("required", []) if p in props]}}}


def _with_choices(fn: dict, choices: dict) -> dict | None:
    """`fn` with each argument named in `choices` held to those values (a string argument, or the
    items of an array); None when some argument has no value to take (the tool cannot be called)."""
    if any(not values for values in choices.values()):
        return None
    fn = json.loads(json.dumps(fn))
    props = (fn.get("parameters") or {}).get("properties") or {}
    for prop, values in choices.items():
        spec = props[prop]
        target = spec["items"] if spec.get("type") == "array" else spec
        target.pop("maxLength", None)
        target["enum"] = list(values)
    return fn


def action_schema(tools, max_tokens: int, choices: dict | None = None) -> dict:
    """The JSON schema of one action of any of `tools` that fits in `max_tokens` (see the module
    docstring); raises ActionBudgetError when some tool's smallest action does not fit.

    `choices` ({tool: {argument: values}}) holds arguments to the values a caller can act on (the
    agent: the passage ids the episode has shown); a tool with an argument that has no value is left out."""
    fns = [_tool_fn(t) for t in tools]
    if choices:
        fns = [_with_choices(f, choices[f["name"]]) if f["name"] in choices else f for f in fns]
    return {"anyOf": [_action(fn, max_tokens - 1) for fn in fns if fn is not None]}


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> str:
    import llguidance

    return llguidance.LLMatcher.grammar_from_json_schema(schema_json, overrides=_COMPILE_OPTIONS)


class ActionMatcher:
    """llguidance over one tokenizer: masks of the tokens an action may continue with.

    Building the tokenizer bridge takes about a second, so one is made per loaded model."""

    def __init__(self, hf_tokenizer):
        import llguidance.hf

        self.tokenizer = llguidance.hf.from_tokenizer(hf_tokenizer)

    def matcher(self, schema: dict):
        import llguidance

        # the schema's own property order: an action names its tool before the arguments
        m = llguidance.LLMatcher(self.tokenizer, _grammar(json.dumps(schema)), log_level=0)
        if m.is_error():
            raise ValueError(f"the action grammar does not compile: {m.get_error()}")
        return m
