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


def counted(n, singular: str, plural: str | None = None) -> str:
    """A count with its noun in the number it takes: counted(1, "pair") is "1 pair", counted(2, "query",
    "queries") "2 queries"; the noun may carry its verb ("query has", "queries have")."""
    return f"{count(n)} {singular if n == 1 else plural or singular + 's'}"


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


def loading_head(repo_id: str, on_hub: bool, folder: str) -> str:
    """The first lines of a card's `datasets` example, up to `repo = ...`: the Hub repository of a release
    published there (`on_hub`), else this build's folder (as the workflow's folder sees it, or the current
    folder from inside it; `datasets` 5.2 cannot load the path "." itself) with the line to use once pushed."""
    if on_hub:
        return f'from datasets import load_dataset\n\nrepo = "{repo_id}"  # or the path of a local copy of this folder'
    return (f"import os\n\nfrom datasets import load_dataset\n\n"
            f"# this build is not on the Hub: load it from its folder (inside the folder: repo = os.getcwd());\n"
            f'# once pushed to the Hub as {repo_id}: repo = "{repo_id}"\n'
            f'repo = os.path.abspath("{folder}")  # the folder, from the workflow\'s working folder')


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
