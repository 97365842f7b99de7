"""No import circle among the irdata modules: each module's imports, at the top, in functions and under
TYPE_CHECKING alike, read from its syntax tree, form no cycle. A circle makes the order of imports matter and
hides which module a name belongs to; a function-level import that closes one only defers the problem."""

import ast
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "workflow_scripts"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules(root: Path, package: str = "irdata") -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that `name` imports anywhere in its file. `from package import name` takes the
    submodule when `name` is one (a package's submodule importing a sibling does not import the package's own
    code for it), else the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = package_modules(root)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def test_no_import_circle_in_irdata():
    graph = import_graph(PACKAGE_ROOT)
    assert len(graph) > 100 and graph["irdata.builds"], "the irdata modules were not read"
    assert import_circles(graph) == []


def write_modules(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_a_function_level_or_type_only_import_closes_a_circle(tmp_path):
    write_modules(tmp_path, {
        "irdata/__init__.py": "",
        "irdata/a.py": "from .b import x\n",
        "irdata/b.py": "def f():\n    from .a import y\n",
        "irdata/sub/__init__.py": "from .c import z\n",
        "irdata/sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..d import w\n",
        "irdata/d.py": "from irdata.sub import c\n",
    })
    assert import_circles(import_graph(tmp_path)) == [["irdata.a", "irdata.b"], ["irdata.d", "irdata.sub.c"]]


def test_a_submodule_importing_a_sibling_is_no_circle_with_its_package(tmp_path):
    write_modules(tmp_path, {
        "irdata/__init__.py": "",
        "irdata/llm/__init__.py": "from .client import Client\n",
        "irdata/llm/client.py": "from . import grammar\n",
        "irdata/llm/grammar.py": "",
    })
    assert import_circles(import_graph(tmp_path)) == []
