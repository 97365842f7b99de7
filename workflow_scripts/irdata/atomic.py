"""Atomic writes: a reader (or Snakemake) never sees a half-written output."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

# mkstemp makes files private (0600); an output gets the permissions a plain open() would give it
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_dir(path):
    """Yield a temporary folder beside `path`; it replaces `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        for file in tmp.rglob("*"):
            if file.is_file():
                with open(file, "rb") as fh:
                    os.fsync(fh.fileno())
        tmp.chmod(0o755)  # mkdtemp makes the folder private; an output folder is for every reader
        if path.exists():
            old = path.with_name(f".{path.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
            shutil.rmtree(old)
        os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = "\n"):
    """Open a temporary file beside `path` for writing; it replaces `path` when the block succeeds."""
    if "b" in mode:
        encoding = newline = None
    with atomic_path(path) as tmp:
        with open(tmp, mode, encoding=encoding, newline=newline) as fh:
            yield fh


def write_text_atomic(path, text: str) -> None:
    with atomic_open(path) as fh:
        fh.write(text)


def write_lines_atomic(path, lines) -> None:
    with atomic_open(path) as fh:
        for line in lines:
            fh.write(f"{line}\n")


def write_parquet_atomic(table, path) -> None:
    """Write a pyarrow table as parquet, atomically, with settings that give identical bytes for
    identical tables (no statistics that vary, one row group order as given)."""
    import pyarrow.parquet as pq

    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def json_text(obj) -> str:
    """The bytes of every JSON file the workflow writes: sorted keys, UTF-8 as it is, indented."""
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json_atomic(path, obj) -> None:
    write_text_atomic(path, json_text(obj))


def write_jsonl_atomic(path, records, sort_keys: bool = True) -> int:
    """One record a line, UTF-8 as it is, keys sorted unless the records' order is the format's;
    returns how many were written."""
    n = 0
    with atomic_open(path) as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False, sort_keys=sort_keys) + "\n")
            n += 1
    return n
