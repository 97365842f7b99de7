"""Publishing a staged release folder, the same way for both releases.

The staged folder must hold exactly the files its SHA256SUMS lists, plus SHA256SUMS; they are copied into a
hidden folder beside the published one, each copy checked against its line, and only a complete, checked copy
replaces the published folder, in one step (irdata.atomic.atomic_dir: what a reader can find, also on
filesystems without an atomic exchange, is said there). A stray file, a missing one or a byte that differs
stops the publication naming the file; the published release stays as it was.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path, PurePosixPath

from .atomic import atomic_dir
from .errors import InputError
from .provenance import sha256_file

SHA256SUMS = "SHA256SUMS"
# a line `sha256sum -c --strict` reads: the digest, a space, the mode (" " text, "*" binary), the path
_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)")


def read_sha256sums(path) -> dict[str, tuple[str, int]]:
    """{relative path: (sha256, line number)} of a SHA256SUMS file; a line `sha256sum -c --strict` would refuse,
    a path outside the folder or a path listed twice raises InputError naming the line."""
    path = Path(path)
    listed: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line and number > 1:
            continue  # the text ends with a newline
        match = _LINE.fullmatch(line)
        if match is None:
            raise InputError(path, "not a `<sha256>  <path>` line", line=number)
        digest, name = match.groups()
        parts = PurePosixPath(name).parts
        if name.startswith(("/", "\\")) or ".." in parts or name == SHA256SUMS:
            raise InputError(path, f"{name!r} is not a file of the release folder", line=number)
        if name in listed:
            raise InputError(path, f"{name!r} is listed twice (lines {listed[name][1]} and {number})", line=number)
        listed[name] = (digest, number)
    return listed


def publish_release(staged, dest, stage_rule: str) -> dict:
    """Publish the release staged at `staged` at `dest` (see the module's docstring); return the record
    {release, files, sha256sums_sha256}. `stage_rule`: the rule that stages it, named in the errors."""
    staged, dest = Path(staged), Path(dest)
    sums = staged / SHA256SUMS
    if not sums.is_file():
        raise InputError(sums, f"missing: the release is not staged; rerun {stage_rule}")
    listed = read_sha256sums(sums)
    held = sorted(p.relative_to(staged).as_posix() for p in staged.rglob("*") if not p.is_dir())
    for name in held:
        if name != SHA256SUMS and name not in listed:
            raise InputError(staged / name, f"not listed in {sums}: a release holds exactly the files its "
                             f"SHA256SUMS lists; remove the file, or rerun {stage_rule}")
    for name, (_, number) in listed.items():
        if not (staged / name).is_file():
            raise InputError(staged / name, f"missing, listed in {sums} line {number}; rerun {stage_rule}")
    text = sums.read_bytes()
    with atomic_dir(dest) as tmp:
        for name, (digest, number) in listed.items():
            copy = tmp / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staged / name, copy)
            if (found := sha256_file(copy)) != digest:
                # refused here, the hidden copy is removed and the published folder stays as it was
                raise InputError(staged / name, f"sha256 {found}, but {sums} line {number} lists {digest}: the "
                                 f"file changed after it was staged; rerun {stage_rule}")
        (tmp / SHA256SUMS).write_bytes(text)
    return {"release": str(dest), "files": len(listed) + 1, "sha256sums_sha256": hashlib.sha256(text).hexdigest()}
