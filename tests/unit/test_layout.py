"""irdata/layout.py is where every path of the work tree is spelled: each `work/`, `results/`, `logs/`,
`benchmarks/` and `cache/` path that the README, docs/ and the cards print is one of its patterns (or a folder of
one), with a build's name where the pattern has a build: a path printed without its build, or of a file that moved,
fails here."""

import ast
import itertools
import re
from pathlib import Path

import pytest
import yaml

from irdata import layout
from irdata.provenance import script_files

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("work", "results", "logs", "benchmarks", "cache")
# a path as printed: a root folder, then path characters; `<name>` placeholders and `{a,b}` alternatives included
PRINTED = re.compile(r"(?<![\w./~<-])((?:%s)/[\w./<>{},@*-]*)" % "|".join(ROOTS))
# a published release that a new version replaced, kept beside its folder as <folder>@<its version>
# (irdata/publish.py)
KEPT_ASIDE = re.compile(r"^(results/[^/]+)@[^/]+$")
# the wildcards whose value is a build's name (a collection is a build's or the 44b papers)
BUILD_WILDCARDS = {"build": (), "collection": (layout.PAPERS44B,)}

# the text the cards are written from: their templates, and the modules that write their prose
CARD_MODULES = ("doubting/card.py", "doubting/card_parts.py", "eval44b/card.py", "eval44b/card_hub.py",
                "downstream/compare.py", "card_text.py")


def documents() -> dict[str, str]:
    """The README, docs/ and the cards' templates and prose, by path."""
    paths = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
             *sorted((REPO / "workflow_scripts/irdata").glob("*/templates/**/*.tmpl"))]
    texts = {str(p.relative_to(REPO)): p.read_text(encoding="utf-8") for p in paths}
    for rel in CARD_MODULES:
        tree = ast.parse((REPO / "workflow_scripts/irdata" / rel).read_text(encoding="utf-8"))
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        texts[f"workflow_scripts/irdata/{rel}"] = "\n".join(strings)
    return texts


def alternatives(path: str) -> list[str]:
    """`a/{b,c}/` as `a/b/` and `a/c/` (the README's shorthand for several folders)."""
    parts = re.split(r"\{([^{}]*,[^{}]*)\}", path)
    return ["".join(choice) for choice in itertools.product(*[[p] if i % 2 == 0 else p.split(",")
                                                               for i, p in enumerate(parts)])]


def printed_paths(text: str) -> list[str]:
    found = []
    for match in PRINTED.finditer(text):
        path = match.group(1).rstrip(".,:")
        found += alternatives(path)
    return found


def yaml_values(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from yaml_values(value)
    elif isinstance(node, list):
        for value in node:
            yield from yaml_values(value)
    elif isinstance(node, str):
        yield node


def configs() -> list[dict]:
    """The configs the repository ships and the README's and docs' examples of one (```yaml blocks)."""
    loaded = [yaml.safe_load(p.read_text()) for p in (REPO / "config.yaml", *sorted((REPO / "config").glob("*.yaml")))]
    for text in (REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))):
        for block in re.findall(r"```yaml\n(.*?)```", text.read_text(encoding="utf-8"), re.S):
            try:
                loaded.append(yaml.safe_load(block))
            except yaml.YAMLError:
                continue
    return [c for c in loaded if isinstance(c, dict)]


def build_names() -> set[str]:
    return {name for config in configs() for name in (config.get("builds") or {})}


def config_paths() -> set[str]:
    """The work-tree paths a config names itself (a build's package_dir or release_ledger, say)."""
    return {value.rstrip("/") for config in configs() for value in yaml_values(config)
            if value.split("/")[0] in ROOTS}


def segment_pattern(segment: str, builds: set[str]) -> re.Pattern:
    """A layout pattern's path segment as a regex: a build's wildcard takes a build's name or a printed placeholder
    (`<build>`), any other wildcard any name."""
    regex = ""
    for i, part in enumerate(re.split(r"\{(\w+)\}", segment)):
        if i % 2 == 0:
            regex += re.escape(part)
        elif part in BUILD_WILDCARDS:
            names = sorted(builds | set(BUILD_WILDCARDS[part]), key=len, reverse=True)
            regex += "(?:" + "|".join([*map(re.escape, names), r"<[^/>]+>"]) + ")"
        else:
            regex += r"[^/]+"
    return re.compile(regex)


def in_layout(path: str, patterns: list[list[re.Pattern]], named: set[str]) -> bool:
    """Whether `path` is a layout pattern, or a folder of one, segment by segment; a printed placeholder
    (`<rule>`, `<folder>@<version>`) stands for any name. A path a config names itself needs no pattern."""
    path = KEPT_ASIDE.sub(r"\1", path.rstrip("/"))
    parts = path.split("/")
    if path in named:
        return True
    for pattern in patterns:
        if len(parts) <= len(pattern) and all("<" in part or regex.fullmatch(part)
                                              for part, regex in zip(parts, pattern)):
            return True
    return False


@pytest.fixture(scope="module")
def patterns():
    builds = build_names()
    assert {"demo", "beir-example"} <= builds
    return [[segment_pattern(s, builds) for s in p.split("/")] for p in layout.patterns()]


def test_every_printed_work_tree_path_is_in_the_layout(patterns):
    named = config_paths()
    printed = {(doc, path) for doc, text in documents().items() for path in printed_paths(text)}
    assert len(printed) > 40, "the printed paths were not found: has the documents' form changed?"
    assert sorted((doc, path) for doc, path in printed if not in_layout(path, patterns, named)) == []


@pytest.mark.parametrize("path", ["work/doubting/inputs.json", "work/doubting/release/",
                                  "work/doubting/downstream/models/<base>/<arm>/", "work/doubting/demo/nothing.json",
                                  "results/x/y/z"])
def test_a_path_without_its_build_or_not_in_the_layout_is_refused(patterns, path):
    assert not in_layout(path, patterns, set())


@pytest.mark.parametrize("path", ["work/doubting/<build>/inputs.json", "work/doubting/demo/release/",
                                  "work/doubting/<build>/downstream/models/<base>/<arm>/", "logs/<rule>/<build>/",
                                  "work/doubting/<build>/{agent,grades}/", "results/<folder>@<version>/"])
def test_a_build_s_path_and_its_folders_are_found(patterns, path):
    assert all(in_layout(p, patterns, set()) for p in alternatives(path))


def test_the_schemas_defaults_are_the_layout_s():
    """A schema cannot import the layout: its path defaults are checked against it."""
    schemas = {name: yaml.safe_load((REPO / f"schemas/{name}.schema.yaml").read_text()) for name in ("eval44b", "llm")}
    assert schemas["eval44b"]["properties"]["release"]["default"] == layout.EVAL44B_PACKAGE_DIR
    assert schemas["eval44b"]["properties"]["release_ledger"]["default"] == layout.EVAL44B_RELEASE_LEDGER
    assert schemas["llm"]["properties"]["journal_dir"]["default"] == layout.LLM_JOURNALS


def test_no_rule_script_imports_the_layout():
    """A job gets its paths from its rule: a rule script that imported the layout would rerun on every move."""
    scripts = sorted((REPO / "workflow_scripts").glob("*.py"))
    assert scripts and [s.name for s in scripts if any(p.name == "layout.py" for p in script_files(s))] == []
