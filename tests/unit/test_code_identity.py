"""Code identity (irdata/code_identity.py): comments, docstrings, formatting and a module's place in the tree change
no stage's identity; a real change changes exactly the identities of the stages whose scripts import it."""

import ast
import os
import shutil
from pathlib import Path

import pytest

from code_edits import (
    add_comment,
    change_a_function,
    code_tree,
    edit_docstring,
    imports_cleanly,
    move_module,
    ruff_format,
)
from irdata.code_identity import closure_identities, code_identity, file_identity, module_identity
from irdata.doubting.release_code import release_code
from irdata.provenance import module_templates

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = "workflow_scripts"


@pytest.fixture
def tree(tmp_path) -> Path:
    """A copy of the workflow's code."""
    return code_tree(tmp_path)


def stage_identities(root: Path) -> dict[str, str]:
    """Every rule script's code identity, by script name (the grading scripts with a prompt)."""
    prompts = {"grade": ["prompts/grade_query_only.txt"]}
    return {script.stem: code_identity(script.relative_to(root), root, prompts.get(script.stem, ()))
            for script in sorted((root / SCRIPTS).glob("*.py"))}


def importers(root: Path, module: str) -> set[str]:
    """The rule scripts whose closure holds `module` (a path under the root)."""
    return {script.stem for script in (root / SCRIPTS).glob("*.py")
            if (root / module).resolve() in closure_identities([script])}


def rewrite(path: Path, text: str) -> None:
    """`text` as the file's new version, though of the same size and written within the clock's resolution: an
    identity is computed once per version of a file (its mtime and size)."""
    mtime = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(mtime + 10**9, mtime + 10**9))


def test_a_comment_and_a_docstring_change_no_identity(tree):
    before, release = stage_identities(tree), release_code(tree)
    for module in ("irdata/tsv.py", "irdata/annotate/wood.py", "irdata/__init__.py", "grade.py"):
        add_comment(tree / SCRIPTS / module)
        edit_docstring(tree / SCRIPTS / module)
    for rules in ("Snakefile", "rules/common.smk", "envs/core.yaml"):
        add_comment(tree / rules)
    assert stage_identities(tree) == before and release_code(tree) == release


def test_ruff_format_of_the_tree_changes_no_identity_and_not_the_release_code(tree):
    before, release = stage_identities(tree), release_code(tree)
    assert ruff_format(tree) > 10  # the tree is not in ruff's format: the formatter changes many files
    assert stage_identities(tree) == before
    # the release's shipped examples are its content: the project's ruff settings leave them as they are
    assert release_code(tree) == release


def test_a_module_moved_with_its_imports_updated_keeps_every_identity(tree):
    before, release = stage_identities(tree), release_code(tree)
    moved = move_module(tree, "tsv", "readers")
    imports_cleanly(tree, "irdata.sources.msmarco")  # the move is real: its importers find it
    assert not (tree / SCRIPTS / "irdata/tsv.py").exists() and moved.exists()
    assert stage_identities(tree) == before and release_code(tree) == release


def test_a_real_change_changes_exactly_the_identities_of_the_stages_importing_it(tree):
    before = stage_identities(tree)
    module = "workflow_scripts/irdata/annotate/wood.py"
    change_a_function(tree / module)
    after = stage_identities(tree)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == importers(tree, module) and "wood" in changed and "grade" not in changed


@pytest.mark.parametrize("old, new", [
    ("X = 1\n", "X = 2\n"),  # a constant
    ("def f():\n    return 1\n", "def f():\n    return 2\n"),  # a function's body
    ("from .b import f\n", "from .b import g as f\n"),  # an import of another name
    ("from .b import f\n", "from .b import f as g\n"),  # a name bound by an import
    ("import os\n", "import sys as os\n"),  # another module outside the package
    ('X = "a"\n', 'X = "b"\n'),  # a string constant: output
    ('X = f"{y}!"\n', 'X = f"{y}?"\n'),  # an f-string
    ('__all__ = ["f"]\n', '__all__ = ["g"]\n'),
])
def test_a_real_change_changes_the_module_identity(tmp_path, old, new):
    module = tmp_path / "irdata" / "a.py"
    module.parent.mkdir()
    module.write_text(old)
    before = module_identity(module, tmp_path)
    rewrite(module, new)
    assert module_identity(module, tmp_path) != before


@pytest.mark.parametrize("old, new", [
    ("X = 1\n", "X = 1  # noqa: E501\n"),
    ("X = 1\n", "X = (\n    1\n)\n"),
    ("X = 'a'\n", 'X = "a"\n'),
    ("from .b import f\n", "from ..sub.b import f\n"),  # the module path of a package import
    ("from .b import f\n", "from irdata.b import f\n"),
    ("def f():\n    return 1\n", 'def f():\n    """Return one."""\n    return 1\n'),
    ("X = 1\n", 'X = 1\n"""What X is."""\n'),
])
def test_a_change_of_form_keeps_the_module_identity(tmp_path, old, new):
    module = tmp_path / "irdata" / "a.py"
    module.parent.mkdir()
    module.write_text(old)
    before = module_identity(module, tmp_path)
    rewrite(module, new)
    assert module_identity(module, tmp_path) == before


def test_a_docstring_that_code_reads_is_output(tree):
    """irdata/doubting/package.py writes select.py's docstring into MANIFEST.json (selection_rules): editing it reruns
    the stages importing package.py; its formatting does not."""
    before = stage_identities(tree)
    select = tree / SCRIPTS / "irdata/doubting/select.py"
    text = select.read_text()
    select.write_text(text.replace('"""', '"""  ', 1))  # spaces before its first word: a formatter strips them
    assert stage_identities(tree) == before
    edit_docstring(select)
    after = stage_identities(tree)
    assert {name for name in before if before[name] != after[name]} == {"stage_release", "package"}


def test_templates_count_by_content_and_their_path_inside_the_module_folder(tree):
    before = stage_identities(tree)
    template = tree / SCRIPTS / "irdata/doubting/templates/card/README.md.tmpl"
    template.write_text(template.read_text() + "\n")
    after = stage_identities(tree)
    assert {name for name in before if before[name] != after[name]} == {"stage_release", "package"}


def test_a_module_with_its_templates_moves_freely(tmp_path):
    package = tmp_path / "irdata"
    (package / "templates" / "card").mkdir(parents=True)
    (package / "card.py").write_text("X = 1\n")
    (package / "templates" / "card" / "a.tmpl").write_text("# $title\n")
    before = module_identity(package / "card.py", tmp_path)
    (package / "sub").mkdir()
    shutil.move(package / "card.py", package / "sub" / "card.py")
    shutil.move(package / "templates", package / "sub" / "templates")
    assert module_identity(package / "sub" / "card.py", tmp_path) == before
    (package / "sub" / "templates" / "card" / "a.tmpl").rename(package / "sub" / "templates" / "card" / "b.tmpl")
    module_templates.cache_clear()  # a planning finds a module's templates once
    assert module_identity(package / "sub" / "card.py", tmp_path) != before


def test_an_empty_package_module_adds_nothing(tmp_path):
    (tmp_path / "irdata").mkdir()
    (tmp_path / "irdata" / "__init__.py").write_text('"""Only a docstring."""\n')
    assert module_identity(tmp_path / "irdata" / "__init__.py", tmp_path) is None


def test_prompts_count_by_path_and_bytes(tree):
    script = "workflow_scripts/grade.py"
    before = code_identity(script, tree, ["prompts/grade_query_only.txt"])
    prompt = tree / "prompts/grade_query_only.txt"
    prompt.write_text(prompt.read_text() + " ")
    assert code_identity(script, tree, ["prompts/grade_query_only.txt"]) != before


def test_the_identity_is_the_same_wherever_the_checkout_is(tree):
    assert stage_identities(tree) == stage_identities(REPO)


@pytest.mark.parametrize("name, old, new, same", [
    ("rules/a.smk", 'rule a:\n    input: "x"\n', '# why\nrule a:\n\n    input:   "x"  # the input\n', True),
    ("rules/a.smk", 'rule a:\n    input: "x"\n', "rule a:\n    input: 'x'\n", True),
    ("rules/a.smk", 'rule a:\n    input: "x"\n', 'rule a:\n    input: "y"\n', False),
    ("Snakefile", 'include: "rules/a.smk"\n', 'include: "rules/b.smk"\n', False),
    ("envs/core.yaml", "dependencies:\n  - python=3.11\n", "# pinned\ndependencies: [python=3.11]\n", True),
    ("envs/core.yaml", "dependencies:\n  - python=3.11\n", "dependencies:\n  - python=3.12\n", False),
    ("prompts/p.txt", "Grade it.\n", "Grade it. \n", False),
])
def test_other_files_count_by_what_they_mean(tmp_path, name, old, new, same):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(old)
    before = file_identity(path)
    rewrite(path, new)
    assert (file_identity(path) == before) is same


def test_a_newer_python_s_empty_fields_change_nothing():
    """Python 3.12 gives a function a `type_params` field, empty unless it has type parameters; 3.13's ast.dump leaves
    empty fields out. The identity leaves them out too (this tree measured alike on 3.11, 3.12 and 3.13)."""
    from irdata.code_identity import _dump

    tree = ast.parse("def f(x):\n    return x\n")
    before = _dump(tree)
    tree.body[0].type_params = []
    tree.body[0]._fields = (*tree.body[0]._fields, "type_params")
    assert _dump(tree) == before
