"""A release's croissant.json checked with mlcroissant, offline (its @context is inline, so mlcroissant
fetches nothing): it validates, lists every file of the folder but itself and SHA256SUMS with the sha256
of its bytes, and SHA256SUMS lists it."""

import json
import math
from pathlib import Path

import mlcroissant as mlc

from irdata.croissant import CROISSANT
from irdata.provenance import sha256_file

# the warning every release gets: no datePublished (a release holds no date, so that a rebuild gives the
# same bytes)
NO_DATE = '"https://schema.org/datePublished" is recommended'
# the releases' versions ("v0.1-preview", "v1") are not semantic versions
NOT_SEMVER = "Version doesn't follow MAJOR.MINOR.PATCH"
# a build without a citation (eval44b.citation null: the 44b demo, whose data are invented)
NO_CITATION = '"http://mlcommons.org/croissant/citeAs" is recommended'


def check_croissant(folder, allowed_warnings=(NO_DATE,)) -> mlc.Dataset:
    folder = Path(folder)
    path = folder / CROISSANT
    dataset = mlc.Dataset(jsonld=str(path))  # raises mlc.ValidationError when there is any error
    issues = dataset.metadata.issues
    assert not issues.errors, issues.report()
    assert not [w for w in issues.warnings if not any(a in w for a in allowed_warnings)], issues.report()
    listed = {f["contentUrl"]: f["sha256"] for f in json.loads(path.read_text(encoding="utf-8"))["distribution"]}
    held = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert set(listed) == held - {CROISSANT, "SHA256SUMS"}
    assert {rel: sha256_file(folder / rel) for rel in listed} == listed
    sums = (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert {line.split("  ", 1)[1] for line in sums} == held - {"SHA256SUMS"}
    return dataset


def _plain(value, prefix: str):
    """A record as the file holds it: mlcroissant gives text as bytes and keys as field ids."""
    if isinstance(value, dict):
        return {k.removeprefix(prefix): _plain(v, f"{k}/") for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, prefix) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def croissant_records(dataset: mlc.Dataset, record_set: str) -> list[dict]:
    return [_plain(record, f"{record_set}/") for record in dataset.records(record_set)]
