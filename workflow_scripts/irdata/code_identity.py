"""Code identity: what a stage's code does, which decides its reruns (each rule's `code` param) and which a release
records (MANIFEST.json's `code`).

Comments, docstrings, formatting and a module's place in the tree change nothing a stage does, so none of them
enters an identity:

- a module's identity (module_identity) is its syntax tree (as `ast.dump` writes it, without line and column: no
  formatting, no comment, no `# noqa`), without docstrings or other lone strings, and with each import of an
  `irdata` module reduced to the names it imports and binds: the closure holds the imported modules themselves, so
  no path enters, and a module moved to another folder with its imports updated keeps its identity. Its templates
  (irdata.provenance.module_templates: prose the module reads) enter by their bytes and their paths inside the
  module's template folder. A docstring that code reads (`__doc__`) is output: it enters the identity of the module
  that reads it. A module left empty (a package's `__init__.py` that only has a docstring) adds nothing.
- a stage's identity (code_identity) is the sorted multiset of the identities of the modules of its script's
  closure (irdata.provenance.module_closure) with its prompt files, by path and bytes;
- any other file's identity (file_identity): a Snakefile's or `.smk`'s tokens without comments, a YAML file's value,
  else the sha256 of its bytes.

Each identity is computed once per version of a file (its mtime and size): a planning asks again for every job.
irdata.provenance.code_hash, the bytes of the same files with their paths, is the scheme the workflow used before:
irdata/code_upgrade.py recognizes the records made with it.

What a module-level identity does not see: which of two modules of a closure an import takes a name from, when both
stay in the closure (the import binds the same name either way).
"""

from __future__ import annotations

import ast
import gc
import hashlib
import inspect
import io
import json
import tokenize
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from .provenance import PACKAGE, TEMPLATES, _module_file, _module_name, module_closure, module_templates

# the scheme's name: it starts every stage identity and names MANIFEST.json's record
SCHEME = "irdata-code-identity-1"

_DOC_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _version(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_mtime_ns, st.st_size


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _in_package(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")


def _is_lone_string(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _docstring_text(text: str) -> str:
    """A docstring as its reader gets it, but for its indentation and trailing spaces (which a formatter changes)."""
    return "\n".join(line.rstrip() for line in inspect.cleandoc(text).splitlines())


def _reduced(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements without lone strings (docstrings among them), each import of an `irdata` module reduced to the
    names it imports and binds; the same in every statement list inside them. Expressions hold no statement, so
    nothing below them is visited (a planning reduces every module of the workflow)."""
    kept = []
    for stmt in body:
        if _is_lone_string(stmt):
            continue
        if isinstance(stmt, ast.Import):
            # `import irdata.a.b` binds `irdata`; `import irdata.a.b as c` binds `c` to the module `b`
            stmt.names = [ast.alias(name=alias.name.rsplit(".", 1)[-1] if alias.asname else PACKAGE,
                                    asname=alias.asname) if _in_package(alias.name) else alias
                          for alias in stmt.names]
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.level or _in_package(stmt.module or ""):
                stmt = ast.ImportFrom(module=None, names=stmt.names, level=0)
        else:
            for field in ("body", "orelse", "finalbody"):
                if statements := getattr(stmt, field, None):
                    setattr(stmt, field, _reduced(statements))
            for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
                part.body = _reduced(part.body)
        kept.append(stmt)
    return kept


def _bindings(tree: ast.Module, own: str, is_package: bool) -> dict[str, str]:
    """The names a module's imports of `irdata` bind, each to the dotted name it imports."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _in_package(alias.name):
                    bound[alias.asname or PACKAGE] = alias.name if alias.asname else PACKAGE
        elif isinstance(node, ast.ImportFrom) and (node.level or _in_package(node.module or "")):
            if node.level:
                anchor = own.split(".") if is_package else own.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    return bound


def _dotted(node: ast.AST) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"], or None for any other expression."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute) and (head := _dotted(node.value)) is not None:
        return [*head, node.attr]
    return None


def _docstring_sources(tree: ast.Module, path: Path, search_dir: Path) -> tuple[bool, tuple[Path, ...]]:
    """Whose docstrings a module reads: (its own, the `irdata` module files whose docstrings it reads). `x.__doc__`
    of a name an `irdata` import binds reads that module's (the module of the longest prefix of the imported name);
    `__doc__`, `x.__doc__` of anything else and a string "__doc__" count as its own."""
    reads = [node for node in ast.walk(tree) if (isinstance(node, ast.Name) and node.id == "__doc__")
             or (isinstance(node, ast.Attribute) and node.attr == "__doc__")
             or (isinstance(node, ast.Constant) and node.value == "__doc__")]  # getattr(x, "__doc__")
    own_name = _module_name(path, search_dir) if path.is_relative_to(search_dir / PACKAGE) else path.stem
    bound = _bindings(tree, own_name, path.name == "__init__.py")
    own, sources = False, {}
    for node in reads:
        chain = _dotted(node.value) if isinstance(node, ast.Attribute) else None
        if chain is None or chain[0] not in bound:
            own = True
            continue
        parts = [*bound[chain[0]].split("."), *chain[1:]]
        module = next((found for i in range(len(parts), 0, -1)
                       if (found := _module_file(".".join(parts[:i]), search_dir)) is not None), None)
        if module is None:
            own = True
        else:
            sources[module.resolve()] = None
    return own, tuple(sorted(sources))


def _docstrings(tree: ast.Module) -> str:
    """Every docstring of a module (its own, its classes' and functions'), as their readers get them."""
    return "\0".join(_docstring_text(node.body[0].value.value) for node in ast.walk(tree)
                      if isinstance(node, _DOC_OWNERS) and node.body and _is_lone_string(node.body[0]))


def _dump(node) -> str:
    """A tree as text, as `ast.dump` without positions, but leaving out empty fields (None, []): Python versions add
    fields (3.12 a function's `type_params`) and `ast.dump` itself leaves them out from 3.13, so that a new Python
    gives the same identities."""
    if isinstance(node, ast.AST):
        fields = [f"{name}={_dump(value)}" for name in node._fields
                  if (value := getattr(node, name, None)) is not None and value != []]
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(_dump(item) for item in node)}]"
    return repr(node)


@contextmanager
def _collector_paused():
    """The cyclic garbage collector paused while a tree is built and written: a tree holds no cycle, and the
    collections its many small objects trigger would scan a planning's whole heap (here they doubled the cost)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@lru_cache(maxsize=None)
def _module_of_version(path: Path, search_dir: Path, mtime_ns: int, size: int) -> tuple[str, str, tuple[Path, ...]]:
    """(digest of the module's reduced tree, or "" when nothing is left of it; its docstrings when it reads them,
    else ""; the other modules whose docstrings it reads)."""
    data = path.read_bytes()
    with _collector_paused():
        tree = ast.parse(data, filename=str(path))
        own, sources, docstrings = False, (), ""
        if b"__doc__" in data:  # a full walk of every module would double the cost of a planning
            own, sources = _docstring_sources(tree, path, search_dir)
            docstrings = _docstrings(tree) if own else ""
        tree.body = _reduced(tree.body)
        return (_sha256(_dump(tree).encode()) if tree.body else ""), docstrings, sources


@lru_cache(maxsize=None)
def _docstrings_of_version(path: Path, mtime_ns: int, size: int) -> str:
    return _docstrings(ast.parse(path.read_bytes(), filename=str(path)))


def module_identity(path: Path, search_dir: Path) -> str | None:
    """The identity of a module (of the package under `search_dir`, where Snakemake puts a script's folder on
    sys.path): what it does, its templates and the docstrings it reads; None for a module that does nothing."""
    path = Path(path)
    meaning, docstrings, sources = _module_of_version(path, search_dir, *_version(path))
    folder = path.parent / TEMPLATES / path.stem
    parts = [f"templates/{t.relative_to(folder).as_posix()}\0{_file_digest(t)}" for t in module_templates(path)]
    parts += [f"docstrings\0{docstrings}"] if docstrings else []
    parts += [f"docstrings\0{_docstrings_of_version(s, *_version(s))}" for s in sources]
    if not meaning and not parts:
        return None
    return _sha256("\n".join([meaning, *parts]).encode())


def closure_identities(scripts) -> dict[Path, str]:
    """Each module of the scripts' closures (each script and every `irdata` module it imports, once each) that does
    something, with its identity. Reading a closure parses its modules too (irdata.provenance): the collector is
    paused for both."""
    modules: dict[Path, Path] = {}
    with _collector_paused():
        for script in scripts:
            script = Path(script).resolve()
            modules.update({module: script.parent for module in module_closure(script)})
        return {module: identity for module, search_dir in sorted(modules.items())
                if (identity := module_identity(module, search_dir)) is not None}


def modules_identity(scripts) -> list[str]:
    """The sorted multiset of the identities of the scripts' modules: no path enters it."""
    return sorted(closure_identities(scripts).values())


def _file_digest(path: Path) -> str:
    return _digest_of_version(path, *_version(path))


@lru_cache(maxsize=None)
def _digest_of_version(path: Path, mtime_ns: int, size: int) -> str:
    return _sha256(path.read_bytes())


def _tokens(data: bytes) -> str:
    """A Snakefile's tokens, without comments, blank lines or the spaces between tokens; a plain string literal as
    its value (quotes and prefixes chosen by a formatter change nothing)."""
    out = []
    for token in tokenize.tokenize(io.BytesIO(data).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
            continue
        text = token.string
        if token.type == tokenize.STRING:
            try:
                text = repr(ast.literal_eval(text))
            except (ValueError, SyntaxError):  # an f-string
                pass
        elif token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE):
            text = ""
        out.append(f"{tokenize.tok_name[token.type]} {text}")
    return "\n".join(out)


@lru_cache(maxsize=None)
def _file_identity_of_version(path: Path, mtime_ns: int, size: int) -> str:
    data = path.read_bytes()
    if path.name == "Snakefile" or path.suffix == ".smk":
        try:
            return _sha256(_tokens(data).encode())
        except (tokenize.TokenError, SyntaxError):
            return _sha256(data)
    if path.suffix in (".yaml", ".yml"):
        import yaml  # the Snakemake process has it; no rule script imports this module

        try:
            return _sha256(json.dumps(yaml.safe_load(data), sort_keys=True, default=str).encode())
        except yaml.YAMLError:
            return _sha256(data)
    return _sha256(data)


def file_identity(path) -> str:
    """The identity of a file other than a module: a Snakefile's or `.smk`'s tokens without comments, a YAML file's
    value, else the sha256 of its bytes (a prompt's, a template's, a shipped example's: their bytes are output)."""
    path = Path(path)
    return _file_identity_of_version(path, *_version(path))


def code_identity(script, root, prompts=()) -> str:
    """A stage's code identity: the sorted multiset of the identities of its script's closure and its prompt files
    (relative to the workflow folder `root`) by path and bytes."""
    root = Path(root).resolve()
    digest = hashlib.sha256(f"{SCHEME}\n".encode())
    for identity in modules_identity([root / script]):
        digest.update(f"{identity}\n".encode())
    for rel in sorted({Path(p).as_posix() for p in prompts}):
        digest.update(f"{rel}\0{file_identity(root / rel)}\n".encode())
    return digest.hexdigest()[:20]
