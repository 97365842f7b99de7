"""Named Doubting builds: `builds:` maps each build's name to its overrides of the `doubting:` defaults.

A build's config is the whole config with `doubting` replaced by the defaults deep-merged with its overrides
(and `annotation` / `retrieval` likewise, where the build overrides them), so every Stage reads one build's
settings as it reads a one-build config. The keys that name a release (title, package folder, repository id,
release ledger) default from the build's name, never from another build's. A BEIR build has no reference answers:
its dev split grades query_only unless the build sets `annotation.grading.dev` itself (the shared mode is for
builds that have answers). A build set to null in an overlay is not built (`builds: {demo: null}` leaves the
demo out). A build's name is a target of its own: it may not be a rule's (name_clashes).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from .config_mistakes import ConfigError, has_path
from .grading_modes import NO_ANSWERS_DEV_MODE
from .layout import PAPERS44B, package_dir, release_ledger
from .sources.registry import source_of

# a build's name is a path part and a wildcard value: letters, digits, `-` and `_`, starting with a letter
NAME = r"[A-Za-z][A-Za-z0-9_-]*"
# names a build may not take that are not rules (the rules' and targets' names are the workflow's own:
# name_clashes): the 44b Eval's collection (work/store/papers44b/, the retrieval rules' {collection})
RESERVED = frozenset({PAPERS44B, "builds"})
# the sections a build may override besides its `doubting` keys
SHARED_SECTIONS = ("annotation", "retrieval")


class BuildError(ConfigError):
    """A build's name or mapping that cannot be a build: `parts` its key path, `problem` what is wrong."""

    def __init__(self, parts: list, problem: str):
        super().__init__(f"{'.'.join(map(str, parts))}: {problem}")
        self.parts, self.problem = parts, problem


def deep_merge(base: dict, over: dict) -> dict:
    """`over` on `base`, nested mappings merged key by key (as Snakemake layers config files)."""
    merged = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def declared_builds(config: dict) -> dict[str, dict]:
    """The builds to build, by name, each its overrides (null builds dropped); a bad name raises ConfigError."""
    builds = config.get("builds") or {}
    if not isinstance(builds, dict):
        raise BuildError(["builds"], f"a mapping of build names to their settings is expected, not {builds!r}")
    for name, over in builds.items():
        if not isinstance(name, str) or not re.fullmatch(NAME, name):
            raise BuildError(["builds", name], "a build's name is letters, digits, '-' and '_', starting with a "
                              "letter (it names folders and the `snakemake <name>` target)")
        if name in RESERVED:
            raise BuildError(["builds", name], f"{name!r} names a collection of the workflow; choose another name")
        if over is not None and not isinstance(over, dict):
            raise BuildError(["builds", name], f"a mapping of doubting keys is expected (or null to leave it out), "
                              f"not {over!r}")
    declared = {name: over for name, over in builds.items() if over is not None}
    if not declared:
        raise BuildError(["builds"], "no Doubting build is declared; add one (README.md, 'Several builds')")
    return declared


def name_defaults(name: str) -> dict:
    """The keys that name a build's release, from its name (a repository id not on the Hub unless set)."""
    return {"title": f"Doubting {name}", "package_dir": package_dir(name), "repo_id": f"local/{name}",
            "release_ledger": release_ledger(name),
            "acquisition_batches": {"train": {"default": f"{name}-train"}, "dev": {"default": f"{name}-dev"}}}


def build_doubting(config: dict, name: str, over: dict) -> dict:
    """A build's `doubting` section before the schema fills its defaults: the shared defaults, its name's
    defaults, then its own keys (its `annotation` / `retrieval` overrides left out)."""
    own = {key: value for key, value in over.items() if key not in SHARED_SECTIONS}
    return deep_merge(deep_merge(name_defaults(name), config.get("doubting") or {}), own)


def build_config(config: dict, name: str, over: dict) -> dict:
    """The whole config as build `name` sees it (sections not yet filled with their defaults)."""
    built = {key: value for key, value in config.items() if key != "builds"}
    built["doubting"] = build_doubting(config, name, over)
    for section in SHARED_SECTIONS:
        if section in over:
            built[section] = deep_merge(config.get(section) or {}, over[section])
    if not source_of(built["doubting"]).reference_answers and not has_path(over, ["annotation", "grading", "dev"]):
        built["annotation"] = deep_merge(built.get("annotation") or {}, {"grading": {"dev": NO_ANSWERS_DEV_MODE}})
    built["build"] = name
    return built


def name_clashes(builds, rule_names) -> list[tuple[list, str]]:
    """(key path, problem) of each build whose name is already a rule's or a target's (`rule_names`: every rule
    of the workflow before the builds' own targets are added): `snakemake <name>` would be two things."""
    taken = set(rule_names)
    return [(["builds", name], f"{name!r} is the name of a rule or target of the workflow (`snakemake {name}` "
                               "would name both); choose another name") for name in builds if name in taken]


def validated_builds(config: dict, schema_dir) -> dict[str, dict]:
    """Each declared build's whole config, its sections' defaults filled in by Snakemake's validate (which
    raises on a mistake; check_config has named it in a few lines first)."""
    from snakemake.utils import validate

    builds = {}
    for name, over in declared_builds(config).items():
        built = build_config(config, name, over)
        for section in ("doubting", *(s for s in SHARED_SECTIONS if s in over)):
            validate(built[section], str(Path(schema_dir) / f"{section}.schema.yaml"))
        builds[name] = built
    return builds
