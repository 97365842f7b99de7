"""The release ledger of a release (each Doubting build's, the 44b Eval's): a JSON file outside Snakemake's outputs
(Snakemake deletes outputs before a rerun) recording each published version with the sha256 of its SHA256SUMS,
the folder it was published to and the config and code its manifest records. A version recorded with other content
is never built again (check_ledger); planning compares the config about to be built with the recorded one
(planned_version_differences; the code: irdata.doubting.release_code.planned_code_differences).

The ledger is read strictly: a file that is not what record_ledger writes (empty, `{}`, a list, cut short, an entry
without its fields) is a LedgerError naming the file and the fix, and is never written over, so no publish drops
the versions it records. A byte-order mark, as an editor may write, is read past.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .atomic import remove_leftovers, write_json_atomic
from .errors import InputError

RELEASES = "releases"
# the fields record_ledger writes for every version (config and code: when the manifest records them)
ENTRY_FIELDS = {"sha256sums_sha256": str, "package": str}
OPTIONAL_FIELDS = {"config": dict, "code": dict}
_SHA256 = re.compile(r"[0-9a-f]{64}")
LEDGER_FIX = ("restore it from your backup (it is JSON: {\"releases\": {\"<version>\": {\"sha256sums_sha256\": ..., "
              "\"package\": ...}}}), or remove it to forget every version it froze")


class LedgerError(InputError):
    """A release ledger that is not one: `what` says what is wrong; the message adds the fix."""

    def __init__(self, path, what: str):
        super().__init__(path, f"the release ledger is damaged: {what}; {LEDGER_FIX}")
        self.what = what


class ReleaseFrozenError(InputError):
    """A version built again with other content than the ledger records for it."""


def content_hash(sha256sums_text: str) -> str:
    return hashlib.sha256(sha256sums_text.encode("utf-8")).hexdigest()


def _type_name(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(value), "a number")


def _checked(path: Path, ledger) -> dict:
    if not isinstance(ledger, dict):
        raise LedgerError(path, f"{_type_name(ledger)}, not an object with `releases`")
    if RELEASES not in ledger:
        raise LedgerError(path, "no `releases`")
    releases = ledger[RELEASES]
    if not isinstance(releases, dict):
        raise LedgerError(path, f"`releases` is {_type_name(releases)}, not an object of versions")
    for version, entry in releases.items():
        if not isinstance(entry, dict):
            raise LedgerError(path, f"`releases.{version}` is {_type_name(entry)}, not an object")
        for field, kind in (ENTRY_FIELDS | OPTIONAL_FIELDS).items():
            if field not in entry:
                if field in ENTRY_FIELDS:
                    raise LedgerError(path, f"`releases.{version}` has no `{field}`")
            elif not isinstance(entry[field], kind):
                raise LedgerError(path, f"`releases.{version}.{field}` is {_type_name(entry[field])}")
        if not _SHA256.fullmatch(entry["sha256sums_sha256"]):
            raise LedgerError(path, f"`releases.{version}.sha256sums_sha256` is not a sha256")
    return ledger


def read_ledger(path) -> dict:
    """The ledger at `path` ({"releases": {}} when there is none yet); a damaged one raises LedgerError."""
    path = Path(path)
    if not path.exists():
        return {RELEASES: {}}
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LedgerError(path, f"not UTF-8 text (byte {exc.start + 1})") from None
    if not text.strip():
        raise LedgerError(path, "the file is empty")
    try:
        ledger = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = ", the file ends inside it" if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated") else ""
        raise LedgerError(path, f"not JSON ({exc.msg}, line {exc.lineno}, column {exc.colno}{cut})") from None
    return _checked(path, ledger)


def recorded_versions(path) -> dict[str, dict]:
    """The versions the ledger at `path` records, each with its entry."""
    return read_ledger(path)[RELEASES]


def check_ledger(path, version: str, digest: str, version_key: str) -> bool:
    """True when `version` is new, False when it is recorded with this same content; raise ReleaseFrozenError
    otherwise, naming the config key that sets a new version (`version_key`)."""
    recorded = recorded_versions(path).get(version)
    if recorded is None:
        return True
    if recorded["sha256sums_sha256"] != digest:
        raise ReleaseFrozenError(
            path, f"release {version} was already built with different content (sha256 of its SHA256SUMS "
            f"{recorded['sha256sums_sha256']}, this build {digest}). A release version is frozen: set a new "
            f"{version_key} to build new content under a new version.")
    return False


def record_ledger(path, version: str, digest: str, package_dir, config: dict | None = None,
                  code: dict | None = None) -> None:
    """Record `version` with its content hash, the folder it is published to, `config` (its manifest's config,
    planned_version_differences) and `code` (its manifest's record of the code, irdata/doubting/release_code.py,
    planned_code_differences). The versions recorded before stay; a damaged ledger is refused, never rewritten."""
    remove_leftovers(path)  # the temporary file of a publish killed while it wrote the ledger
    ledger = read_ledger(path)
    ledger[RELEASES][version] = {"sha256sums_sha256": digest, "package": str(package_dir),
                                 **({"config": config} if config is not None else {}),
                                 **({"code": code} if code is not None else {})}
    write_json_atomic(path, ledger)


def _differences(recorded, current, path=()) -> list[tuple[str, object, object]]:
    """(key path, recorded value, current value) of every leaf where two configs differ."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        return [d for key in sorted(set(recorded) | set(current), key=str)
                for d in _differences(recorded.get(key), current.get(key), (*path, str(key)))]
    return [] if recorded == current else [(".".join(path), recorded, current)]


def planned_version_differences(path, version: str, config: dict) -> list[tuple[str, object, object]]:
    """(key path, recorded value, current value) of each config key in which building `config` as `version`
    differs from the config the release ledger at `path` records for it; empty when it records none."""
    recorded = recorded_versions(path).get(version, {}).get("config")
    return [] if recorded is None else _differences(recorded, config)
