"""The publish_44b job: the release package_44b staged, published (irdata.publish), with its record."""

from __future__ import annotations

from ..atomic import write_json_atomic
from ..publish import publish_release


def publish(*, staged_files, staged, record, settings: dict) -> dict:
    """The publish_44b job: publish the release package_44b staged in the folder `staged` (its files
    `staged_files`) at settings["release"]; write the publication's `record` and return it."""
    published = publish_release(staged, settings["release"], "package_44b")
    write_json_atomic(record, published)
    return published
