"""Atomic writes: a reader (or Snakemake) never sees a half-written output.

A file is written beside its path and renamed onto it (`atomic_path`); a folder is built beside its path and
swapped with it in one step (`atomic_dir`, `replace_dir`): on Linux (renameat2 RENAME_EXCHANGE) and macOS
(renamex_np RENAME_SWAP) a reader finds either the whole old folder or the whole new one at every moment.
Where the filesystem refuses the exchange (NFS, some FUSE and cluster filesystems: EINVAL, ENOTSUP;
ENOSYS on an old kernel), the old folder is renamed away and the new one renamed in: a reader may then find
no folder for the instant between the two renames, never a part of one, and a kill in that instant leaves
the path missing, the old folder complete under its leftover name, until the next run publishes again.
Each rename is made durable by fsyncing its folder. One writer per folder at a time (Snakemake's lock):
a writer first removes the leftovers of a killed one, the hidden `.<name>.*.tmp` and `.<name>.*.old` beside it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import json
import logging
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

# mkstemp makes files private (0600); an output gets the permissions a plain open() would give it
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK

# what a platform answers for a folder it cannot fsync (Linux: EINVAL on some filesystems)
_NO_DIR_FSYNC = {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}
# what a filesystem or kernel answers for an exchange it does not support
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 2  # macOS sys/stdio.h
# renameat2's syscall number, for a C library older than its wrapper (glibc < 2.28) on a newer kernel
_SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}


def fsync_dir(folder) -> None:
    """Make the renames and new names in `folder` durable; skipped where the platform cannot fsync a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as e:
        if e.errno in _NO_DIR_FSYNC:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in _NO_DIR_FSYNC:
            raise
    finally:
        os.close(fd)


def _exchange_call(libc, use_wrapper: bool = True):
    """The C call that swaps two paths, as f(a: bytes, b: bytes) -> int, or None on a platform without one."""
    if sys.platform.startswith("linux"):
        if use_wrapper and hasattr(libc, "renameat2"):
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            return lambda a, b: fn(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE)
        number = _SYS_RENAMEAT2.get(platform.machine())
        if number is None:
            return None
        return lambda a, b: libc.syscall(ctypes.c_long(number), ctypes.c_int(_AT_FDCWD), a, ctypes.c_int(_AT_FDCWD),
                                         b, ctypes.c_uint(_RENAME_EXCHANGE))
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        fn = libc.renamex_np
        fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
        return lambda a, b: fn(a, b, _RENAME_SWAP)
    return None


def exchange(a, b, use_wrapper: bool = True) -> bool:
    """Swap the existing paths `a` and `b` in one step; False where the platform or filesystem cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    call = _exchange_call(libc, use_wrapper)
    if call is None:
        return False
    if call(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    err = ctypes.get_errno()
    if err in _NO_EXCHANGE:
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


def leftovers(path) -> list[Path]:
    """The temporary and old folders (or files) a killed writer of `path` left beside it."""
    path = Path(path)
    pattern = glob.escape(str(path.parent / f".{path.name}.")) + "*"
    return sorted(Path(p) for p in glob.glob(pattern) if p.endswith((".tmp", ".old")))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def remove_leftovers(path) -> None:
    """Remove what a killed writer of `path` left; what cannot be removed is named in a warning and kept."""
    for leftover in leftovers(path):
        try:
            _remove(leftover)
        except OSError as e:
            log.warning("could not remove %s, left by an earlier run: %s; the next run tries again", leftover, e)


def replace_dir(new, path) -> None:
    """Put the complete folder `new` at `path` in one step (see the module's docstring), then remove the old
    folder. A failed removal (NFS: "Directory not empty" while a reader holds a file) leaves the new folder
    published: a warning names the old one, kept as `.<name>.<token>.old`, and the next writer removes it."""
    new, path = Path(new), Path(path)
    old = new.with_name(new.name.removesuffix(".tmp") + ".old")
    if not os.path.lexists(path):
        os.rename(new, path)
        fsync_dir(path.parent)
        return
    if exchange(new, path):
        fsync_dir(path.parent)
        os.rename(new, old)  # the old folder is at new's name now; .old says what it is
    else:
        os.rename(path, old)
        try:
            os.rename(new, path)
        except OSError:
            os.rename(old, path)
            raise
    fsync_dir(path.parent)
    try:
        shutil.rmtree(old)
    except OSError as e:
        log.warning("published %s, but could not remove its old folder %s: %s; the next run removes it",
                    path, old, e)


def _fsync_tree(folder: Path) -> None:
    """Every file, then every folder, under `folder` and itself, deepest first."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            with open(os.path.join(root, name), "rb") as fh:
                os.fsync(fh.fileno())
        fsync_dir(root)


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
        fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_dir(path):
    """Yield a temporary folder beside `path`; it replaces `path` in one step (replace_dir) only if the block
    succeeds. Leftovers of a killed earlier writer are removed first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        _fsync_tree(tmp)
        tmp.chmod(0o755)  # mkdtemp makes the folder private; an output folder is for every reader
        replace_dir(tmp, path)
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
