"""A script's closure (the irdata modules it imports, followed transitively), and the scheme of code hashes before code
identities (irdata.provenance.code_hash: bytes and paths), which the upgrade of a checkout built with it recomputes
(irdata/code_upgrade.py): it follows the script, the modules it imports, prompts and settings."""

import shutil
from pathlib import Path

import pytest

import irdata.provenance as provenance

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path):
    pkg = tmp_path / "workflow_scripts" / "irdata"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("X = 1\n")
    (pkg / "c.py").write_text("Y = 2\n")
    (pkg / "sub" / "__init__.py").write_text("from .d import f\n")
    (pkg / "sub" / "d.py").write_text("from ..c import Y\ndef f(): return Y\n")
    (tmp_path / "workflow_scripts" / "rule_a.py").write_text("from irdata.a import b\n")
    (tmp_path / "workflow_scripts" / "rule_s.py").write_text("import irdata.sub\n")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.txt").write_text("grade this\n")
    yield tmp_path


def names(paths, root):
    return sorted(p.relative_to(root).as_posix() for p in paths)


def test_closure_follows_relative_and_package_imports(tree):
    assert names(provenance.module_closure(tree / "workflow_scripts/rule_a.py"), tree) == [
        "workflow_scripts/irdata/__init__.py", "workflow_scripts/irdata/a.py",
        "workflow_scripts/irdata/b.py", "workflow_scripts/rule_a.py"]
    assert names(provenance.module_closure(tree / "workflow_scripts/rule_s.py"), tree) == [
        "workflow_scripts/irdata/__init__.py", "workflow_scripts/irdata/c.py",
        "workflow_scripts/irdata/sub/__init__.py", "workflow_scripts/irdata/sub/d.py",
        "workflow_scripts/rule_s.py"]


def test_hash_changes_exactly_with_dependencies(tree):
    def h(script="workflow_scripts/rule_a.py", **kw):
        return provenance.code_hash(script, tree, **kw)

    base = h(prompts=["prompts/p.txt"], settings={"k": 1})
    assert base == h(prompts=["prompts/p.txt"], settings={"k": 1})
    assert base != h(prompts=["prompts/p.txt"], settings={"k": 2})
    (tree / "prompts/p.txt").write_text("grade this, carefully\n")
    assert base != h(prompts=["prompts/p.txt"], settings={"k": 1})
    plain = h()
    (tree / "workflow_scripts/irdata/c.py").write_text("Y = 3\n")   # not imported by rule_a
    assert plain == h()
    (tree / "workflow_scripts/irdata/b.py").write_text("X = 2\n")   # imported through a
    assert plain != h()


def test_hash_independent_of_checkout_location(tmp_path):
    copy = tmp_path / "clone"
    shutil.copytree(REPO / "workflow_scripts", copy / "workflow_scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    script = "workflow_scripts/dedup_train_queries.py"
    assert provenance.code_hash(script, REPO) == provenance.code_hash(script, copy)
    assert len(provenance.module_closure(copy / script)) > 3


def test_a_stages_prompts_are_named_so_their_order_changes_nothing(tmp_path):
    """Prompts reach a script by name (`prompt_<name>` inputs), and the code hash sorts them: listing a
    stage's prompts in another order changes neither its inputs nor its code param."""
    from irdata.stage import Stage
    from irdata.stage_registry import StageWiring

    repo = Path(__file__).resolve().parents[2]
    pair = {"with_passage": "prompts/wood_with_passage.txt", "query_only": "prompts/wood_query_only.txt"}
    swapped = dict(reversed(list(pair.items())))
    wirings = [StageWiring({}, str(repo), lambda name: "workflow_scripts/wood.py",
                           {"wood": Stage("wood", lambda config, **_: {}, lambda config, p=p, **_: p)})
               for p in (pair, swapped)]
    assert wirings[0].prompt_inputs("wood") == wirings[1].prompt_inputs("wood") == {
        "prompt_query_only": "prompts/wood_query_only.txt", "prompt_with_passage": "prompts/wood_with_passage.txt"}
    assert wirings[0].code("wood") == wirings[1].code("wood")
