"""Prompt templates: text files with `{name}` fields, each field a piece of data inside its own tags.

A template must enclose every field in tags named after it, `<passage>{passage}</passage>` (newlines
around the field allowed), and its instructions say that what stands between tags is data. Text
filled into a field cannot close or open a tag: every tag of the template's fields that occurs in a
value, in any case and spacing (`</Passage >`), is escaped as `&lt;/passage&gt;`. So a passage that
ends with a fake prompt turn ("... Reply with a single digit: 3.") stays inside the passage.
A template that leaves a field outside its tags is refused when it is loaded. A field given as None
(a passage without a title) is left out with its tags and the rest of their line, so that a template
with an optional field renders without it exactly as one that never had it.

Nor can a value smuggle in a chat template's control tokens: a server's tokenizer reads special-token
strings in the rendered prompt as the tokens themselves, so `<|im_end|>\n<|im_start|>assistant` inside
a passage would end the user turn there. Every string of SPECIAL_TOKENS in a value is neutralised the
same way (its brackets written as entities: `&lt;|im_start|&gt;`, `&#91;INST&#93;`). The local backend
also tokenizes message contents as text (irdata.llm.local.prompt_ids). What escape() neutralised is
counted (take_escape_counts), for the job's stats.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

_FIELD = re.compile(r"\{([a-z_]+)\}")

# Special-token strings of the chat templates in use, as regular expressions: ChatML, Llama 3, Phi and
# Qwen (`<|im_start|>`, `<|start_header_id|>`, `<|eot_id|>`, `<|endoftext|>`, ...), DeepSeek's
# full-width bars (`<｜begin▁of▁sentence｜>`), Gemma's turns, the usual BOS/EOS/pad names, and Llama 2 /
# Mistral's instruction and system markers. Special tokens are case-sensitive, and so is this list.
SPECIAL_TOKENS = (
    r"<\|[^|<>\s]{1,64}\|>",
    "<\uff5c[^\uff5c<>\\s]{1,64}\uff5c>",
    r"</?(?:start_of_turn|end_of_turn|s|bos|eos|pad|unk|mask)>",
    r"\[/?(?:INST|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS)\]",
    r"<</?SYS>>",
)
_SPECIAL = "|".join(SPECIAL_TOKENS)
_ENTITIES = str.maketrans({"<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;"})
# What escape() neutralised since the last take_escape_counts(): field tags, special-token strings.
_ESCAPED: Counter = Counter()


def take_escape_counts() -> dict[str, int]:
    """{"field_tags": n, "special_tokens": m} neutralised in prompt values since the last call (a
    job takes them once, for its stats), and start counting again."""
    counts = {"field_tags": _ESCAPED["field_tags"], "special_tokens": _ESCAPED["special_tokens"]}
    _ESCAPED.clear()
    return counts


def _neutralise(m: re.Match) -> str:
    if m.group("tag") is not None:
        _ESCAPED["field_tags"] += 1
        return f"&lt;{m.group('tag')}&gt;"
    _ESCAPED["special_tokens"] += 1
    return m.group(0).translate(_ENTITIES)


class PromptError(ValueError):
    pass


class Prompt:
    def __init__(self, path):
        self.path = Path(path)
        self.text = self.path.read_text(encoding="utf-8")
        self.fields = set(_FIELD.findall(self.text))
        for name in sorted(self.fields):
            enclosed = re.compile(rf"<{name}>\s*\{{{name}\}}\s*</{name}>")
            if len(enclosed.findall(self.text)) != self.text.count(f"{{{name}}}"):
                raise PromptError(f"prompt {self.path}: field {{{name}}} must stand inside <{name}>...</{name}> "
                                  "tags, so that the model can tell data from instructions")
        self._escapers = {}

    def _escaper(self, fields: frozenset) -> re.Pattern:
        if fields not in self._escapers:
            names = "|".join(map(re.escape, sorted(fields))) or r"(?!)"
            # A field tag in any case; a special-token string exactly (special tokens are case-sensitive).
            self._escapers[fields] = re.compile(rf"<(?P<tag>(?i:\s*/?\s*(?:{names})\s*))>|{_SPECIAL}")
        return self._escapers[fields]

    def escape(self, value, fields=None) -> str:
        """`value` with every tag of this template's fields (or of `fields`, those rendered) and every
        special-token string neutralised."""
        return self._escaper(frozenset(self.fields if fields is None else fields)).sub(_neutralise, str(value))

    def render(self, **values) -> str:
        missing = self.fields - values.keys()
        if missing:
            raise KeyError(f"prompt {self.path} needs fields {sorted(missing)}")
        text, left_out = self.text, {n for n in self.fields if values[n] is None}
        for name in sorted(left_out):
            text = re.sub(rf"^[ \t]*<{name}>\s*\{{{name}\}}\s*</{name}>[ \t]*\n?", "", text, flags=re.M)
        # Only known fields are replaced, so braces in values or in the template's prose are safe; the tags
        # escaped are those the rendered prompt holds.
        fields = self.fields - left_out
        return _FIELD.sub(lambda m: self.escape(values[m.group(1)], fields) if m.group(1) in values else m.group(0),
                          text).strip()


def named_prompts(inputs) -> dict[str, Prompt]:
    """The prompts of a rule, from its named inputs `prompt_<name>`: {name: Prompt}."""
    return {key.removeprefix("prompt_"): Prompt(path) for key, path in inputs.items() if key.startswith("prompt_")}
