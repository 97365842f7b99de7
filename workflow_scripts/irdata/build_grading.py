"""The grading modes a build's config sets (annotation.grading.<split>, doubting.audit.grading), looked up in the
registry (irdata/grading_modes.py) and checked against the build's source: a mode that sees reference answers needs a
source that has them. Planning checks them (grading_mistakes) before a job's input function would stop on one; the
grading stage's settings take their prompt and mode from here."""

from __future__ import annotations

from .grading_modes import NO_ANSWERS_DEV_MODE, GradingMode, GradingModeError, mode_named
from .sources.registry import source_of


def build_key(config: dict, key: str) -> str:
    """The config key `key` (`annotation.grading.dev`, `doubting.audit.grading`) as the build whose config this is
    sets it for itself: `builds.<name>.annotation.grading.dev`, `builds.<name>.audit.grading` (irdata/builds.py)."""
    if "build" not in config:
        return key
    return f"builds.{config['build']}.{key.removeprefix('doubting.')}"


def grading_mode(config: dict, split: str) -> GradingMode:
    """A split's mode (annotation.grading.<split>). Reference answers exist for the dev split of a source that has
    them (irdata/sources/: MS MARCO-format inputs) only: a build of another has none, and its dev split grades
    query_only unless the build sets another mode (irdata/builds.py)."""
    answers = split == "dev" and source_of(config["doubting"]).reference_answers
    return mode_named(config["annotation"]["grading"][split], build_key(config, f"annotation.grading.{split}"),
                      answers=answers, default=NO_ANSWERS_DEV_MODE if split == "dev" and not answers else None)


def audit_mode(config: dict) -> GradingMode:
    """The label audit's mode (doubting.audit.grading): its pairs have no reference answers."""
    return mode_named(config["doubting"]["audit"]["grading"], build_key(config, "doubting.audit.grading"),
                      answers=False)


def grading_mistakes(config: dict) -> list[GradingModeError]:
    """The mode settings of a build's whole config that no job could run: checked when the workflow plans,
    before a job's input function would stop on one."""
    mistakes = []
    for check in (lambda: grading_mode(config, "train"), lambda: grading_mode(config, "dev"),
                  lambda: audit_mode(config)):
        try:
            check()
        except GradingModeError as error:
            mistakes.append(error)
    return mistakes
