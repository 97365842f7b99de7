"""Render the config reference (README.md) from the schemas, so the two cannot drift apart.

    python tools/config_reference.py          # rewrite the section of README.md between the markers
    python tools/config_reference.py --check  # exit 1 if README.md is out of date (a test runs this)
"""

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- config-reference:start -->", "<!-- config-reference:end -->"


def sections() -> list[str]:
    sys.path.insert(0, str(ROOT / "workflow_scripts"))
    from irdata.config_check import CONFIG_SECTIONS

    return list(CONFIG_SECTIONS)


def _type(schema: dict) -> str:
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    kind = schema.get("type", "object" if "properties" in schema else "")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def _rows(schema: dict, prefix: str, root: dict, filled=None):
    """The rows of `schema`'s keys; `filled`: the default its parent fills it with, which gives the keys the
    object itself requires their default (acquisition_batches.train.default)."""
    for key, sub in schema.get("properties", {}).items():
        if "$ref" in sub and sub["$ref"].startswith("#/$defs/"):
            sub = {**root["$defs"][sub["$ref"].split("/")[-1]], **{k: v for k, v in sub.items() if k != "$ref"}}
        name = f"{prefix}{key}"
        required = key in schema.get("required", [])
        if required and isinstance(filled, dict) and key in filled:
            default = f"`{json.dumps(filled[key])}`"
        elif required:
            default = "required"
        else:
            default = f"`{json.dumps(sub['default'])}`" if "default" in sub and not sub.get("properties") else ""
        description = " ".join(str(sub.get("description", "")).split()).replace("|", "\\|")
        yield f"| `{name}` | {_type(sub)} | {default} | {description} |"
        if sub.get("properties"):
            yield from _rows(sub, f"{name}.", root, sub.get("default"))


def render() -> str:
    lines = [START, "", "| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    top = yaml.safe_load((ROOT / "schemas" / "config.schema.yaml").read_text())
    for key, sub in top["properties"].items():
        if key not in sections():
            lines += list(_rows({"properties": {key: sub}}, "", top))
    for section in sections():
        schema = yaml.safe_load((ROOT / "schemas" / f"{section}.schema.yaml").read_text())
        lines += list(_rows(schema, f"{section}.", schema))
    return "\n".join(lines + ["", END])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    readme = ROOT / "README.md"
    text = readme.read_text()
    updated = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: render(), text, flags=re.S)
    if args.check:
        if updated != text:
            sys.exit("README.md's config reference is out of date: run python tools/config_reference.py")
        return
    readme.write_text(updated)


if __name__ == "__main__":
    main()
