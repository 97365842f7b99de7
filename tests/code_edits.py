"""Edits of a workflow folder's code that change what it looks like and not what it does (a comment, a docstring,
`ruff format`, a module moved to another folder with its imports updated), and one that changes what a function does:
the code identity tests (tests/unit/test_code_identity.py) and the rerun audit on the built demo
(tests/workflow/test_demo_build.py) make them alike."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

from repo_copy import REPO

RUFF = Path(sys.executable).parent / "ruff"
PACKAGE = "workflow_scripts/irdata"


def add_comment(path: Path) -> None:
    path.write_text(path.read_text() + "# a comment, and a blank line before it\n\n")


def edit_docstring(path: Path) -> None:
    """The module's docstring says a word more (a module without one gets one)."""
    tree = ast.parse(path.read_text())
    text = path.read_text()
    if ast.get_docstring(tree) is None:
        path.write_text('"""A docstring."""\n' + text)
    else:
        lines = text.splitlines(keepends=True)
        last = lines[tree.body[0].end_lineno - 1]
        end = max(last.rfind('"""'), last.rfind("'''"))
        lines[tree.body[0].end_lineno - 1] = last[:end] + " Edited." + last[end:]
        path.write_text("".join(lines))


def code_tree(root: Path) -> Path:
    """The workflow's code (irdata/doubting/release_code.py: scripts, modules, prompts, rules, envs, schemas,
    requirements) and its ruff settings, copied to `root`."""
    for folder in ("workflow_scripts", "rules", "envs", "schemas", "prompts"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("Snakefile", "requirements.txt", "requirements-nodeps.txt", "requirements-test.txt",
                 "pyproject.toml"):
        shutil.copy(REPO / name, root / name)
    return root


def ruff_format(root: Path) -> int:
    """`ruff format` of every Python file under the folder's workflow_scripts/, with the folder's ruff settings
    (pyproject.toml); returns how many it changed."""
    done = subprocess.run([str(RUFF), "format", "workflow_scripts"], cwd=root, capture_output=True, text=True,
                          check=True)
    match = re.search(r"(\d+) files? reformatted", done.stdout + done.stderr)
    return int(match.group(1)) if match else 0


def move_module(root: Path, name: str, folder: str) -> Path:
    """Move irdata/<name>.py into the new package irdata/<folder>/ (its __init__.py only a docstring) and update every
    import of it in the folder's workflow_scripts/; returns the new path. Its own relative imports reach one level
    higher; every import of it names irdata.<folder>.<name>."""
    package = root / PACKAGE
    old, new = package / f"{name}.py", package / folder / f"{name}.py"
    new.parent.mkdir()
    (new.parent / "__init__.py").write_text(f'"""The modules moved into {folder}/."""\n')
    new.write_text(re.sub(r"^(\s*from )\.", r"\1..", old.read_text(), flags=re.M))
    old.unlink()
    importing = re.compile(rf"^(\s*from )(?:\.+|irdata\.){name} import", re.M)
    for path in (root / "workflow_scripts").rglob("*.py"):
        text = path.read_text()
        if importing.search(text):
            path.write_text(importing.sub(rf"\1irdata.{folder}.{name} import", text))
    return new


def change_a_function(path: Path) -> str:
    """A statement more in the module's first top-level function: what it does changes. Returns the function's name."""
    text = path.read_text()
    function = next(node for node in ast.parse(text).body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    last = function.body[-1]
    lines = text.splitlines(keepends=True)
    lines.insert(last.lineno - 1, " " * last.col_offset + "_edited = 1\n")
    path.write_text("".join(lines))
    return function.name


def imports_cleanly(root: Path, module: str) -> None:
    """Import `module` from the folder's workflow_scripts/ in a fresh interpreter (a moved module's imports work)."""
    subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root / "workflow_scripts", check=True,
                   capture_output=True, text=True)
