"""Rule scripts read what their rules pass them (params, inputs, outputs): the one exception is the LLM
connection settings (servers, timeouts, concurrency), read from config["llm"] because they change no
output and so must not be params (a changed param reruns the job)."""

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_scripts_read_the_config_only_for_llm_connections():
    found = []
    for path in sorted((REPO / "workflow_scripts").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for use in re.findall(r"snakemake\.config\S*", line):
                if not use.startswith('snakemake.config["llm"]'):
                    found.append(f"{path.relative_to(REPO)}:{number}: {use}")
    assert not found, "scripts must read settings from snakemake.params:\n" + "\n".join(found)


# A script hands its rule's files to the package by name: `run_x(**job_args(snakemake), threads=...)`. A
# positional argument (a path, mostly) could be swapped with its neighbour without an error.
def irdata_names(tree: ast.Module) -> dict[str, str]:
    """{name bound in the script: the irdata module it comes from} of its `from irdata... import` lines."""
    return {alias.asname or alias.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
            and node.module and node.module.split(".")[0] == "irdata" for alias in node.names}


def is_job_args_splat(keyword: ast.keyword) -> bool:
    value = keyword.value
    return keyword.arg is None and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id == "job_args"


def positional_calls(source: str) -> list[str]:
    """The calls of irdata functions that pass positional arguments (other than `snakemake` itself, which
    job_args and rule_logging take), or spread anything but job_args(snakemake): `line: name`."""
    tree = ast.parse(source)
    names = irdata_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
            loose = [a for a in node.args if not (isinstance(a, ast.Name) and a.id == "snakemake")]
            loose += [k for k in node.keywords if k.arg is None and not is_job_args_splat(k)]
            if loose:
                found.append(f"{node.lineno}: {node.func.id}")
    return found


def test_the_check_finds_a_positional_path():
    script = ("from irdata.job_args import job_args\nfrom irdata.x import run_x\n"
              "run_x(**job_args(snakemake), threads=2)\nrun_x(snakemake.input.a, out=snakemake.output[0])\n"
              "run_x(**dict(snakemake.input.items()))\n")
    assert positional_calls(script) == ["4: run_x", "5: run_x"]


def test_scripts_call_the_package_with_keywords_only():
    found = [f"{path.relative_to(REPO)}:{call}" for path in sorted((REPO / "workflow_scripts").glob("*.py"))
             for call in positional_calls(path.read_text())]
    assert not found, "call irdata as run_x(**job_args(snakemake), ...), keywords only:\n" + "\n".join(found)


@pytest.fixture(scope="module")
def workflow_rules():
    """The rules of the demo workflow as Snakemake parses them (no DAG: a few seconds), with those of the BEIR
    example's input check."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    rules = {}
    for configfiles in ([], [REPO / "config" / "beir-example.yaml"]):
        with SnakemakeApi(OutputSettings()) as api:
            workflow = api.workflow(resource_settings=ResourceSettings(cores=1),
                                    config_settings=ConfigSettings(configfiles=configfiles),
                                    storage_settings=StorageSettings(), snakefile=REPO / "Snakefile", workdir=REPO)
            rules.update({rule.name: rule for rule in workflow._workflow.rules})
    return rules


def script_call(path: Path, rule: str):
    """The function a script calls with **job_args(snakemake), and the keywords the script adds: a function of the
    package, or the one a function of the package gives for the rule (`input_check(rule=snakemake.rule)`, the input
    checks' script)."""
    tree = ast.parse(path.read_text())
    names = irdata_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and any(is_job_args_splat(k) for k in node.keywords):
            called = node.func.func if isinstance(node.func, ast.Call) else node.func
            function = getattr(importlib.import_module(names[called.id]), called.id)
            if isinstance(node.func, ast.Call):
                function = function(rule=rule)
            return function, {k.arg for k in node.keywords if k.arg is not None}
    return None, set()


def rule_arguments(rule) -> tuple[set[str], bool]:
    """The keyword arguments job_args makes of a rule's static names, and whether unpacked inputs add more."""
    from snakemake.io import is_flagged

    from irdata.job_args import BOOKKEEPING_PARAMS

    names = {*rule.input._names, *rule.output._names, *(set(rule.params._names) - BOOKKEEPING_PARAMS)}
    return names, any(is_flagged(f, "unpack") for f in rule.input)


def test_each_rule_names_what_its_function_takes(workflow_rules):
    checked, found = [], []
    for name, rule in sorted(workflow_rules.items()):
        if not rule.script:
            continue
        function, extra = script_call((REPO / "rules" / rule.script).resolve(), name)
        if function is None:
            continue
        names, unpacked = rule_arguments(rule)
        parameters = inspect.signature(function).parameters.values()
        if any(p.kind is not p.KEYWORD_ONLY for p in parameters if p.kind is not p.VAR_KEYWORD):
            found.append(f"{name}: {function.__name__} takes arguments that are not keyword-only")
        keywords = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}
        required = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
        # an unpacked input function names its inputs per job (the prompts, grade's optional answers, a BEIR
        # set's files): what the function requires is then known per job only; what the rule names must fit
        missing = set() if unpacked else required - names - extra
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            unknown = set()
        else:
            unknown = (names | extra) - keywords
        if missing or unknown:
            found.append(f"{name}: {function.__name__} lacks {sorted(unknown)}; the rule lacks {sorted(missing)}")
        checked.append(name)
    assert not found, "\n".join(found)
    assert {"grade", "stage_release", "audit_runs", "validate_beir_inputs", "validate_msmarco_inputs"} <= set(checked)
