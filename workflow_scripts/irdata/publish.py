"""Publishing a staged release folder, the same way for both releases.

The staged folder must hold exactly the files its SHA256SUMS lists, plus SHA256SUMS; they are copied into a
hidden folder beside the published one, each copy checked against its line, and only a complete, checked copy
replaces the published folder, in one step (irdata.atomic.atomic_dir: what a reader can find, also on
filesystems without an atomic exchange, is said there). A stray file, a missing one or a byte that differs
stops the publication naming the file; the published release stays as it was.

A release is published under its version (publish_version): the release ledger (irdata/ledger.py) refuses other
content under a recorded version and records a new one. A folder holding another version keeps it: that release is
set aside first, as `<folder>@<its version>` beside it (its files hard-linked, so that readers find a whole release
at the folder throughout), and never deleted. Publishing stops, before anything moves, when the folder holds files
its SHA256SUMS does not list (a user's own: they would be moved aside with the old release or dropped with the
same one), or when it holds another version and the one to publish is recorded as published before (it would put
an earlier release back in place of a later one). Planning makes the same checks (planned_swap, irdata/frozen.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .atomic import atomic_dir
from .errors import InputError
from .json_files import read_json
from .ledger import check_ledger, content_hash, record_ledger, recorded_versions
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


# the version of a published folder whose manifest records none (a release published before releases had versions)
UNVERSIONED = "unversioned"
SHOWN_FILES = 3


@dataclass(frozen=True)
class Swap:
    """What publishing a version at a folder would replace: the version held there (None: nothing published), the
    files there its SHA256SUMS does not list, and whether the version to publish is an earlier one, recorded as
    published before, coming back in place of another."""

    held: str | None
    unlisted: tuple[str, ...]
    going_back: bool

    def unlisted_problem(self, folder) -> str:
        shown = ", ".join(self.unlisted[:SHOWN_FILES])
        more = f" and {len(self.unlisted) - SHOWN_FILES} more" if len(self.unlisted) > SHOWN_FILES else ""
        return f"{folder} holds files its SHA256SUMS does not list: {shown}{more}"

    def unlisted_fix(self, folder) -> str:
        return (f"a release folder holds exactly what its SHA256SUMS lists, and publishing would move them aside "
                f"with release {self.held} or drop them: move them out of {folder}, then run again")


def published_version(folder, manifest_name: str) -> str | None:
    """The version of the release published at `folder` (its manifest's), UNVERSIONED for one whose manifest records
    none, None when no file is published there."""
    folder = Path(folder)
    if not folder.is_dir() or not any(p.is_file() for p in folder.rglob("*")):
        return None
    manifest = folder / manifest_name
    return (read_json(manifest).get("version") if manifest.is_file() else None) or UNVERSIONED


def unlisted_files(folder) -> list[str]:
    """The files under a published `folder` that its SHA256SUMS does not list (every file, when it has none)."""
    folder = Path(folder)
    sums = folder / SHA256SUMS
    listed = set(read_sha256sums(sums)) if sums.is_file() else set()
    return sorted(rel for p in folder.rglob("*") if not p.is_dir()
                  and (rel := p.relative_to(folder).as_posix()) != SHA256SUMS and rel not in listed)


def planned_swap(folder, version: str, recorded, manifest_name: str) -> Swap:
    """What publishing `version` at `folder` would replace; `recorded`: the versions its ledger records. A published
    SHA256SUMS that is not one raises InputError naming its line."""
    held = published_version(folder, manifest_name)
    if held is None:
        return Swap(None, (), False)
    going_back = held not in (UNVERSIONED, version) and version in recorded
    return Swap(held, tuple(unlisted_files(folder)), going_back)


def set_aside(folder: Path, held: str) -> Path:
    """Keep the release `held` published at `folder` as `<folder>@<held>`, its files hard-linked (copied where links
    are refused), so that replacing the folder deletes none of its bytes and readers find a release at `folder`
    throughout; return where it is kept. Again after a killed publish, the same copy is kept."""
    aside = folder.with_name(f"{folder.name}@{held}")
    if aside.exists():
        if (aside / SHA256SUMS).is_file() and (aside / SHA256SUMS).read_bytes() == (folder / SHA256SUMS).read_bytes():
            return aside
        raise InputError(aside, f"exists: cannot set the release {held} published in {folder} aside; move one of "
                         "them away")
    with atomic_dir(aside) as tmp:
        for src in folder.rglob("*"):
            if src.is_file():
                dest = tmp / src.relative_to(folder)
                dest.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(src, dest)
                except OSError:  # a filesystem without hard links
                    shutil.copyfile(src, dest)
    return aside


def publish_version(staged, folder, ledger, stage_rule: str, manifest_name: str, version_key: str) -> dict:
    """Publish the release staged at `staged` at `folder` under its version, its manifest's (see the module's
    docstring); `version_key`: the config key that sets it, named when the ledger refuses it. Return the record
    {version, sha256sums_sha256, package, before (the version published there before, or None), set_aside (where
    that one is kept, or None)}."""
    staged, folder = Path(staged), Path(folder)
    manifest = read_json(staged / manifest_name)
    version = manifest.get("version")
    if not version:
        raise InputError(staged / manifest_name, f"records no version: staged before releases had versions; rerun "
                         f"{stage_rule}")
    digest = content_hash((staged / SHA256SUMS).read_text(encoding="utf-8"))
    is_new = check_ledger(ledger, version, digest, version_key)
    swap = planned_swap(folder, version, recorded_versions(ledger), manifest_name)
    if swap.unlisted:
        raise InputError(folder, f"{swap.unlisted_problem(folder)}; {swap.unlisted_fix(folder)}")
    if swap.going_back:
        raise InputError(folder, f"holds release {swap.held}; publishing {version}, which the release ledger {ledger} "
                         f"records as published before, would put it back in its place. To build {swap.held}, run "
                         f"with the config it was built with; to publish {version} there again, move {folder} away "
                         "first")
    aside = set_aside(folder, swap.held) if swap.held not in (None, version) else None
    publish_release(staged, folder, stage_rule)
    if is_new:
        record_ledger(ledger, version, digest, folder, manifest.get("config"), manifest.get("code"))
    return {"version": version, "sha256sums_sha256": digest, "package": str(folder), "before": swap.held,
            "set_aside": str(aside) if aside else None}
