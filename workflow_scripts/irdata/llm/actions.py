"""Tool calls as plain text: the JSON action protocol.

Servers differ in native tool support (llama-cpp-python returns tool calls only when
`tool_choice` names a function, see openai_backend.py; SmolLM2's chat template ignores `tools`),
so the agent can run on a protocol every model can follow: the tools are described in a system
message and the model replies with one or more actions, each a JSON object
{"tool": NAME, "arguments": {...}} (several objects, or a JSON list of them); a reply without one
calls no tool (the agent counts it as a protocol error and ends episodes with its finish tool).
The conversation history is rewritten to the same convention. Both parsers return every call of a
reply; the agent decides how many to execute.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict = field(default_factory=dict)


def _tool_fn(tool: dict) -> dict:
    """The function part of an OpenAI-style tool spec (accepts the bare function too)."""
    return tool.get("function", tool)


def tool_names(tools) -> list[str]:
    return [_tool_fn(t)["name"] for t in tools or ()]


def tools_instruction(tools) -> str:
    lines = [
        "You can call tools. To call one, reply with only a JSON object, nothing else:",
        '{"tool": "<tool name>", "arguments": {<arguments>}}',
        "To call several at once, reply with a JSON list of such objects.",
        "Every reply is a tool call: a reply in plain text calls nothing.",
        "Tools:",
    ]
    for t in tools:
        fn = _tool_fn(t)
        params = json.dumps(fn.get("parameters", {}), separators=(",", ":"))
        lines.append(f"- {fn['name']}: {fn.get('description', '').strip()} Arguments (JSON schema): {params}")
    return "\n".join(lines)


def _action_text(call) -> str:
    fn = call["function"] if "function" in call else call
    args = fn.get("arguments", {})
    if isinstance(args, str):
        args = json.loads(args or "{}")
    return json.dumps({"tool": fn["name"], "arguments": args}, ensure_ascii=False)


def to_text_protocol(messages, tools) -> list[dict]:
    """Rewrite an OpenAI-style conversation (tool specs, assistant tool_calls, tool results)
    into plain system/user/assistant turns that follow the text protocol."""
    instruction = tools_instruction(tools)
    out: list[dict] = []
    names_by_id: dict[str, str] = {}
    for m in messages:
        role = m["role"]
        if role == "assistant" and m.get("tool_calls"):
            for c in m["tool_calls"]:
                names_by_id[c.get("id", "")] = (c.get("function") or c)["name"]
            text = "\n".join(_action_text(c) for c in m["tool_calls"])
            out.append({"role": "assistant", "content": text})
        elif role == "tool":
            name = m.get("name") or names_by_id.get(m.get("tool_call_id", ""), "tool")
            out.append({"role": "user", "content": f"Result of tool {name}:\n{m.get('content', '')}"})
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    if out and out[0]["role"] == "system":
        out[0] = {"role": "system", "content": out[0]["content"] + "\n\n" + instruction}
    else:
        out.insert(0, {"role": "system", "content": instruction})
    return out


def _json_values(text: str):
    """Every JSON object or list that starts at a '{' or '[' in text (fenced or not), in order,
    outermost only: the arguments object inside an action is not an action of its own."""
    decoder = json.JSONDecoder()
    i, n = 0, len(text)
    while i < n:
        if text[i] in "{[":
            try:
                obj, end = decoder.raw_decode(text, i)
            except ValueError:
                i += 1
                continue
            yield obj
            i = end
        else:
            i += 1


def _actions(text: str):
    for value in _json_values(text):
        for obj in value if isinstance(value, list) else [value]:
            if isinstance(obj, dict) and isinstance(obj.get("tool", obj.get("name")), str):
                yield obj


def parse_action(text: str, tools) -> tuple[str, list[ToolCall], str | None]:
    """(text, tool calls, protocol error) of a reply in the text protocol: every action of the
    reply, in order.

    A reply with no action object calls no tool. An action that names an unknown tool or
    has non-object arguments is reported in the protocol error rather than dropped silently
    (the other actions of the reply are still returned).
    """
    known = set(tool_names(tools))
    calls: list[ToolCall] = []
    errors: list[str] = []
    for obj in _actions(text):
        name = obj.get("tool", obj.get("name"))
        args = obj.get("arguments", obj.get("parameters", {}))
        if name not in known:
            errors.append(f"reply names unknown tool {name!r} (known: {sorted(known)})")
            continue
        if not isinstance(args, dict):
            errors.append(f"arguments of tool {name!r} are not a JSON object")
            continue
        digest = hashlib.sha256(f"{len(calls)}\0{name}\0{json.dumps(args, sort_keys=True)}".encode()).hexdigest()
        calls.append(ToolCall("call_" + digest[:12], name, args))
    return text, calls, "; ".join(errors) or None


def native_messages(messages) -> list[dict]:
    """Messages as servers accept them: llama-cpp-python (and others) reject an assistant turn
    with tool_calls whose content is null. The list itself when nothing needs changing."""
    for m in messages:  # a plain loop: this runs on every call
        if m.get("tool_calls") and m.get("content") is None:
            return [{**m, "content": ""} if m.get("tool_calls") and m.get("content") is None else m
                    for m in messages]
    return messages if isinstance(messages, list) else list(messages)


def parse_native(tool_calls) -> tuple[list[ToolCall], str | None]:
    """ToolCalls from an OpenAI `message.tool_calls` list, all of them (arguments arrive as a
    JSON string); calls whose arguments are not a JSON object are reported in the error."""
    if not tool_calls:
        return [], None
    calls, errors = [], []
    for c in tool_calls or ():
        fn = c.get("function") or {}
        raw = fn.get("arguments") or "{}"
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            errors.append(f"tool {fn.get('name')!r}: arguments are not valid JSON: {raw[:200]!r}")
            continue
        if not isinstance(args, dict):
            errors.append(f"tool {fn.get('name')!r}: arguments are not a JSON object")
            continue
        calls.append(ToolCall(c.get("id", ""), fn.get("name", ""), args))
    return calls, "; ".join(errors) or None
