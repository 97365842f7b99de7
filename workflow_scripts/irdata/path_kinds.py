"""What a path a user names is, when it is not what the workflow can use there: a folder where a file belongs (or
a file where a folder belongs), a named pipe, socket or device (a job reads its inputs more than once and hashes
them; a pipe would hang the reader or be read empty), a symbolic link to nothing, a path that is missing or that
this user cannot read or write. Each problem is one phrase, `<what>; <fix>`, for a line that names the config key
(irdata/input_keys.py) or an error that names the file (irdata.errors.InputError).

Only os.stat and os.access: cheap enough for the planning of every run.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

FILE, FOLDER, EITHER = "file", "folder", "file or folder"

# the kinds of file that are neither a regular file nor a folder, by their stat test
_SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _dangling(path: Path, kind: str) -> str | None:
    """Why a path that os.stat does not find cannot be made or named: a link to nothing, a file on its way."""
    if os.path.islink(path):
        return (f"a symbolic link to {os.readlink(path)}, which does not exist; point the link at the {kind} or name "
                f"the {kind} itself")
    for parent in path.parents:
        if os.path.lexists(parent):
            if os.path.exists(parent) and not os.path.isdir(parent):
                return f"{parent} is a file, not a folder; correct the path"
            break
    return None


def _unreachable(error: OSError, kind: str) -> str:
    if error.errno == errno.ELOOP:
        return f"a loop of symbolic links; name the {kind} itself"
    if error.errno == errno.EACCES:
        return "a folder on its path cannot be searched by this user (permissions); grant it (chmod +x) or move it"
    if error.errno == errno.ENAMETOOLONG:
        return f"a name too long for the file system; name the {kind} by a shorter path"
    return f"cannot be looked up ({error.strerror}); name another {kind}"


def _mode(st_mode: int) -> str:
    return stat.filemode(st_mode)


def path_problem(path, kind: str = FILE) -> str | None:
    """Why `path` cannot be read as a `kind` (FILE, FOLDER or EITHER), as `<what>; <fix>`, or None."""
    path = Path(path)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return _dangling(path, kind) or f"no such file or folder; name an existing {kind}"
    except OSError as error:
        return _unreachable(error, kind)
    if stat.S_ISDIR(st.st_mode):
        if kind == FILE:
            return "a folder, not a file; name the file itself"
        if not os.access(path, os.R_OK | os.X_OK):
            return (f"a folder this user cannot list ({_mode(st.st_mode)}); make it readable (chmod u+rx) or name "
                    "a readable copy")
        return None
    if not stat.S_ISREG(st.st_mode):
        what = next(name for test, name in _SPECIAL if test(st.st_mode))
        return (f"{what}, not a regular file: a job reads its inputs more than once and hashes them; write the data "
                "to a file and name that")
    if kind == FOLDER:
        return "a file, not a folder; name the folder"
    if not os.access(path, os.R_OK):
        return f"not readable by this user ({_mode(st.st_mode)}); make it readable (chmod u+r) or name a readable copy"
    return None


def writable_folder_problem(path) -> str | None:
    """Why a job could not create or write files in the folder `path` (made on first use when it is missing,
    as the LLM journals' folder is), as `<what>; <fix>`, or None."""
    path = Path(path)
    if not os.path.exists(path):
        problem = _dangling(path, FOLDER)
        if problem:
            return problem
        parent = next((p for p in path.parents if os.path.exists(p)), Path("."))
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"cannot be made: this user cannot write in {parent}; name a folder this user can write in"
        return None
    problem = path_problem(path, FOLDER)
    if problem:
        return problem
    if not os.access(path, os.W_OK | os.X_OK):
        return (f"this user cannot write in it ({_mode(os.stat(path).st_mode)}); grant it (chmod u+w) or name "
                "another folder")
    return None
