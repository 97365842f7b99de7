"""Each release's code names the rule scripts its rules run (irdata/doubting/release_code.py DOUBTING_SCRIPTS,
irdata/eval44b/wiring.py CODE), checked against the `script:` of every rule in rules/*.smk: a rule added without
its script in its release's list fails here, as does a listed script no rule runs."""

import re
from pathlib import Path

from irdata.doubting.release_code import DOUBTING_SCRIPTS, doubting_code
from irdata.eval44b.wiring import CODE as EVAL44B_CODE
from irdata.provenance import module_closure
from irdata.sources.registry import SOURCES

REPO = Path(__file__).resolve().parents[2]
SCRIPT = re.compile(r'^\s*script:\s*\n\s*"\.\./workflow_scripts/(\w+)\.py"', re.M)

# the rule files by release: a Doubting build's own rules, the 44b Eval's, the collections' store and indexes (a
# build's and papers44b), and the report's figures (no release's code)
DOUBTING_FILES = ("queries.smk", "annotate.smk", "package.smk", "downstream.smk")
EVAL44B_FILES = ("eval44b.smk",)
SHARED_FILES = ("retrieval.smk",)
REPORT_FILES = ("report.smk",)


def rule_scripts() -> dict[str, set[str]]:
    """The scripts each rules/*.smk file's rules run, by file name."""
    return {path.name: set(SCRIPT.findall(path.read_text(encoding="utf-8")))
            for path in sorted((REPO / "rules").glob("*.smk"))}


def test_every_rule_file_belongs_to_a_release_or_the_report():
    known = {*DOUBTING_FILES, *EVAL44B_FILES, *SHARED_FILES, *REPORT_FILES, "common.smk"}
    assert set(rule_scripts()) == known


def test_every_rule_script_is_in_its_releases_code_and_no_other():
    scripts = rule_scripts()
    doubting, eval44b = set(DOUBTING_SCRIPTS), set(EVAL44B_CODE.scripts)
    assert sum(len(found) for found in scripts.values()) > 30, "no rule script found: has the rules' form changed?"
    for name in DOUBTING_FILES:
        assert scripts[name] - doubting == set(), f"rules/{name}: scripts missing from DOUBTING_SCRIPTS"
        assert scripts[name] & eval44b == set(), f"rules/{name}: a Doubting rule's script in the 44b Eval's code"
    for name in EVAL44B_FILES:
        assert scripts[name] - eval44b == set(), f"rules/{name}: scripts missing from the 44b Eval's CODE"
        assert scripts[name] & doubting == set(), f"rules/{name}: a 44b rule's script in the Doubting code"
    for name in SHARED_FILES:
        assert scripts[name] - doubting - eval44b == set(), f"rules/{name}: scripts in neither release's code"
    for name in REPORT_FILES:
        assert scripts[name] & (doubting | eval44b) == set(), f"rules/{name}: the report is no release's code"
    run = set().union(*scripts.values())
    assert doubting - run == set() and eval44b - run == set(), "listed scripts that no rule runs"


def test_each_sources_input_check_is_its_own_script_and_in_its_builds_code_alone():
    """A source's input check runs its own script (rules/common.smk declares the rule per source), which imports no
    other source's module: editing one source reruns no build of another and freezes none of their releases."""
    assert 'f"../workflow_scripts/{source.rule}.py"' in (REPO / "rules/common.smk").read_text()
    for source in SOURCES.values():
        script = REPO / "workflow_scripts" / f"{source.rule}.py"
        modules = {path.stem for path in module_closure(script) if path.parent.name == "sources"}
        assert modules == {"__init__", "base", source.name}, source.rule
        assert doubting_code(source.rule).scripts == (source.rule, *DOUBTING_SCRIPTS)
    for name in DOUBTING_SCRIPTS:
        modules = {path.stem for path in module_closure(REPO / "workflow_scripts" / f"{name}.py")
                   if path.parent.name == "sources"}
        assert modules <= {"__init__", "base"}, name
