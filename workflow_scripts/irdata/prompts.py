"""Prompt templates: text files with `{name}` fields, each field a piece of data inside its own tags.

A template must enclose every field in tags named after it, `<passage>{passage}</passage>` (newlines
around the field allowed), and its instructions say that what stands between tags is data. Text
filled into a field cannot close or open a tag: every tag of the template's fields that occurs in a
value, in any case and spacing (`</Passage >`), is escaped as `&lt;/passage&gt;`. So a passage that
ends with a fake prompt turn ("... Reply with a single digit: 3.") stays inside the passage.
A template that leaves a field outside its tags is refused when it is loaded.
"""

from __future__ import annotations

import re
from pathlib import Path

_FIELD = re.compile(r"\{([a-z_]+)\}")


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
        names = "|".join(map(re.escape, sorted(self.fields))) or r"(?!)"
        self._tag = re.compile(rf"<(\s*/?\s*(?:{names})\s*)>", re.IGNORECASE)

    def escape(self, value) -> str:
        """`value` with every tag of this template's fields neutralised."""
        return self._tag.sub(lambda m: f"&lt;{m.group(1)}&gt;", str(value))

    def render(self, **values) -> str:
        missing = self.fields - values.keys()
        if missing:
            raise KeyError(f"prompt {self.path} needs fields {sorted(missing)}")
        # Only known fields are replaced, so braces in values or in the template's prose are safe.
        return _FIELD.sub(lambda m: self.escape(values[m.group(1)]) if m.group(1) in values else m.group(0),
                          self.text).strip()


def named_prompts(inputs) -> dict[str, Prompt]:
    """The prompts of a rule, from its named inputs `prompt_<name>`: {name: Prompt}."""
    return {key.removeprefix("prompt_"): Prompt(path) for key, path in inputs.items() if key.startswith("prompt_")}
