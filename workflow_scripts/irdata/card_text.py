"""What the two dataset cards (irdata.doubting.card, irdata.eval44b.card) share: their prose in template
files, their number formats, their markdown tables and their YAML front matter (the Hugging Face Hub's
dataset metadata).

A card's prose is in string.Template files under templates/<module name>/ beside the module that fills
them: irdata.provenance counts those files as that module's code, so editing one reruns the card's rule.
The module computes only what fills the fields, from the release's manifest.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

from .provenance import TEMPLATES

MISSING = "—"  # a number the build did not record (an arm's withheld metric, an untimed run)


def fill(module_file, name: str, fields: dict) -> str:
    """The template `name` of the module at `module_file` (its __file__), every $field filled."""
    module = Path(module_file).resolve()
    path = module.parent / TEMPLATES / module.stem / name
    return Template(path.read_text(encoding="utf-8")).substitute(fields)


def part(module_file, name: str, fields: dict) -> str:
    """A template filled to go into another's field: without the newline that ends its file."""
    return fill(module_file, name, fields).removesuffix("\n")


def count(x) -> str:
    return f"{int(x):,}"


def decimal(x, digits: int = 3) -> str:
    return MISSING if x is None else f"{x:.{digits}f}"


def percent(share) -> str:
    return MISSING if share is None else f"{share:.1%}"


def median(x) -> str:
    return f"{x:g}"


def md_row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def md_table(header, rows) -> str:
    return "\n".join([md_row(header), md_row("---" for _ in header), *(md_row(row) for row in rows)])


def front_matter(metadata: dict, configs: dict[str, list[tuple[str, str]]], scalar=str) -> str:
    """The card's YAML header: `metadata`'s keys in order, a list value as a block sequence, then
    `configs:` ({config: [(split, file), ...]}, the first the default); `scalar` writes a value."""
    lines = ["---"]
    for key, value in metadata.items():
        lines += ([f"{key}:", *(f"- {scalar(v)}" for v in value)] if isinstance(value, list) else
                  [f"{key}: {scalar(value)}"])
    lines.append("configs:")
    for i, (config, splits) in enumerate(configs.items()):
        lines.append(f"- config_name: {scalar(config)}")
        if i == 0:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split, path in splits:
            lines += [f"  - split: {scalar(split)}", f"    path: {scalar(path)}"]
    lines.append("---")
    return "\n".join(lines) + "\n"
