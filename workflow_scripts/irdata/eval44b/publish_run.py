"""The publish_44b job: the release package_44b staged, published under its version (irdata.publish), with its
record."""

from __future__ import annotations

from ..atomic import write_json_atomic
from ..publish import publish_version
from .release_files import RELEASE_FILES


def publish(*, staged_files, staged, record, settings: dict) -> dict:
    """The publish_44b job: publish the release package_44b staged in the folder `staged` (its files
    `staged_files`) at settings["release"], recorded in its release ledger; write the publication's `record` and
    return it."""
    published = publish_version(staged, settings["release"], settings["ledger"], "package_44b",
                                RELEASE_FILES["manifest"], settings["version_key"])
    write_json_atomic(record, published)
    return published
