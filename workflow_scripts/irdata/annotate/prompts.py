"""Prompt templates: text files with `{name}` fields, filled strictly (a missing field is an error)."""

from __future__ import annotations

import re
from pathlib import Path

_FIELD = re.compile(r"\{([a-z_]+)\}")


class Prompt:
    def __init__(self, path):
        self.path = Path(path)
        self.text = self.path.read_text(encoding="utf-8")
        self.fields = set(_FIELD.findall(self.text))

    def render(self, **values) -> str:
        missing = self.fields - values.keys()
        if missing:
            raise KeyError(f"prompt {self.path} needs fields {sorted(missing)}")
        # Only known fields are replaced, so braces in values or in the template's prose are safe.
        return _FIELD.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), self.text).strip()
