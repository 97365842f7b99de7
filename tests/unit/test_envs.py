"""Every rule's conda env lists what its script imports: the script and the irdata modules it imports,
followed transitively, each third-party import resolved to its distribution (lazy imports inside
functions included; `importlib.util.find_spec("pkg")` counts as an import of pkg)."""

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest
import yaml

from irdata.provenance import module_closure
from irdata.sources.registry import SOURCES

REPO = Path(__file__).resolve().parents[2]
RULE = re.compile(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)+)", re.M)
# conda-forge names of distributions whose PyPI name differs
CONDA_NAMES = {"pytorch": "torch", "matplotlib-base": "matplotlib"}


def rules() -> list[tuple[str, str, str]]:
    """(rule, script, env file) of every rule with a script: the input checks' (one per source, rules/queries.smk)
    and every `rule <name>:`."""
    out = [(s.rule, f"workflow_scripts/{s.rule}.py", f"envs/{s.env}.yaml") for s in SOURCES.values()]
    for smk in sorted((REPO / "rules").glob("*.smk")):
        for name, body in RULE.findall(smk.read_text()):
            script = re.search(r"script:\s*\n\s*\"\.\./(workflow_scripts/[\w/]+\.py)\"", body)
            env = re.search(r"conda:\s*\n\s*\"\.\./(envs/[\w.]+\.yaml)\"", body)
            if script:
                assert env, f"rule {name} ({smk.name}) has a script but no conda env"
                out.append((name, script.group(1), env.group(1)))
    return out


def imported_top_level(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "find_spec" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"irdata", "__future__"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def env_distributions(env_file: str) -> set[str]:
    env = yaml.safe_load((REPO / env_file).read_text())
    names = set()
    for dep in env["dependencies"]:
        specs = dep["pip"] if isinstance(dep, dict) else [dep]
        for spec in specs:
            name = normalise(re.split(r"[=<>!~ \[]", spec, maxsplit=1)[0])
            names.add(normalise(CONDA_NAMES.get(name, name)))
    return names


DISTRIBUTIONS = {module: [normalise(d) for d in dists]
                 for module, dists in importlib.metadata.packages_distributions().items()}


@pytest.mark.parametrize("rule, script, env_file", rules(), ids=[r[0] for r in rules()])
def test_the_rule_env_has_every_distribution_its_script_imports(rule, script, env_file):
    modules = set()
    for path in module_closure(REPO / script):
        modules |= imported_top_level(Path(path))
    listed = env_distributions(env_file)
    missing = {}
    for module in sorted(modules):
        dists = DISTRIBUTIONS.get(module)
        assert dists, f"{script} imports {module!r}, which no installed distribution provides"
        if not set(dists) & listed:
            missing[module] = dists
    assert not missing, f"rule {rule}: {env_file} lacks {missing} (imported by {script} or its irdata modules)"


def test_no_two_envs_are_copies():
    texts = {}
    for env in sorted((REPO / "envs").glob("*.yaml")):
        body = yaml.safe_load(env.read_text())["dependencies"]
        key = repr(body)
        assert key not in texts, f"{env.name} repeats {texts[key]}: use one env"
        texts[key] = env.name
