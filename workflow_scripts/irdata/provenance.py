"""Content hashes that make Snakemake's rerun decisions follow what a rule really depends on.

Snakemake tracks only a `script:`'s modification time, not the modules it imports. Each rule
therefore carries as a param the hash of its script, of every `irdata` module the script
imports (followed transitively) with the module's templates, of its prompt files and of the
settings it reads; with the `params` rerun trigger, a change to any of them reruns the rule, and a
touched mtime does not.

A module's templates are the files under `templates/<module name>/` beside it (a dataset card's
prose): text the module reads at run time, so its code as much as the module itself.
"""

from __future__ import annotations

import ast
import hashlib
import json
from functools import lru_cache
from pathlib import Path

PACKAGE = "irdata"
TEMPLATES = "templates"


def _module_file(module: str, search_dir: Path) -> Path | None:
    """Map a dotted `irdata...` module name to its source file under `search_dir`, or None."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = search_dir.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path, search_dir: Path) -> str:
    rel = path.relative_to(search_dir).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=None)
def _imports_of_version(path: Path, search_dir: Path, mtime_ns: int, size: int) -> frozenset[str]:
    """Names of the `irdata` modules a source file imports (absolute or relative imports)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    is_package_file = path.name == "__init__.py"
    own = _module_name(path, search_dir) if path.is_relative_to(search_dir / PACKAGE) else None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if own is None:
                    continue
                anchor = own.split(".")
                anchor = anchor if is_package_file else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.add(base)
            # `from irdata import tsv` imports the module irdata.tsv
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(n for n in names if n == PACKAGE or n.startswith(PACKAGE + "."))


def _module_deps(path: Path, search_dir: Path) -> tuple[Path, ...]:
    """The `irdata` source files a source file's imports run (for `irdata.a.b`, irdata/__init__.py and
    irdata/a/__init__.py too), found once per version of the file (a planning asks for every script)."""
    st = path.stat()
    return _deps_of_version(path, search_dir, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=None)
def _deps_of_version(path: Path, search_dir: Path, mtime_ns: int, size: int) -> tuple[Path, ...]:
    found: dict[Path, None] = {}
    for name in sorted(_imports_of_version(path, search_dir, mtime_ns, size)):
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            module = _module_file(".".join(parts[:i]), search_dir)
            if module is not None:
                found[module] = None
    return tuple(found)


def module_closure(script: Path) -> tuple[Path, ...]:
    """The script and every `irdata` source file it imports, directly or through other modules.

    The package is the `irdata` folder beside the script, as Snakemake puts the script's folder
    on `sys.path`.
    """
    script = Path(script).resolve()
    search_dir = script.parent
    seen: dict[Path, None] = {}
    todo = [script]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen[path] = None
        todo.extend(dep for dep in _module_deps(path, search_dir) if dep not in seen)
    return tuple(sorted(seen))


@lru_cache(maxsize=None)
def module_templates(module: Path) -> tuple[Path, ...]:
    """The template files of a module: every file under templates/<module name>/ beside it."""
    folder = module.parent / TEMPLATES / module.stem
    return tuple(sorted(p for p in folder.rglob("*") if p.is_file())) if folder.is_dir() else ()


def script_files(script: Path) -> tuple[Path, ...]:
    """The files whose content is a script's code: the script, the `irdata` modules it imports
    (module_closure) and their templates."""
    modules = module_closure(script)
    return tuple(sorted({*modules, *(t for m in modules for t in module_templates(m))}))


def _file_digest(path: Path) -> str:
    """sha256 of a file, computed once per version of it (a DAG of thousands of jobs asks again and again)."""
    st = path.stat()
    return _digest_of_version(path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=None)
def _digest_of_version(path: Path, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def code_hash(script, root, prompts=(), settings=None) -> str:
    """Hash of a rule's script, the package modules it imports with their templates, its prompt files
    and its settings.

    Paths enter the hash relative to `root` (the workflow folder), so a clone elsewhere gives the
    same hash.
    """
    root = Path(root).resolve()
    files = list(script_files(root / script)) + [(root / p).resolve() for p in prompts]
    digest = hashlib.sha256()
    for path in sorted(set(files)):
        digest.update(f"{path.relative_to(root).as_posix()}\0{_file_digest(path)}\n".encode())
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:20]


def sha256_file(path, chunk_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def sha256sums_text(folder, names) -> str:
    """GNU `sha256sum` lines (`<hex>  <path>`) of `names` under `folder`, sorted by path in code-point
    order (the byte order of UTF-8, as `LC_ALL=C sort`), so that `sha256sum -c --strict` passes."""
    folder = Path(folder)
    for name in names:
        if any(c in name for c in "\\\n\r"):
            raise ValueError(f"file name {name!r} would need escaping in SHA256SUMS")
    return "".join(f"{sha256_file(folder / name)}  {name}\n" for name in sorted(names))
