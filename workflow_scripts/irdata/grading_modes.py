"""The grading modes (annotation.grading, by split): the prompt a mode fills, the data it sees and how the
dataset card describes it. The card (core env) reads the same registry the grading stage (LLM env) runs."""

from __future__ import annotations

from dataclasses import dataclass

from .sources import source_of


@dataclass(frozen=True)
class GradingMode:
    name: str
    prompt: str  # template, relative to the workflow folder
    description: str  # for the dataset card: what the grading call sees ({src}: "MS MARCO " for MS MARCO ids)
    sees_answers: bool = False  # the reference answers fill the prompt's {answers}


GRADING_MODES = {mode.name: mode for mode in [
    GradingMode("query_only", "prompts/grade_query_only.txt", "only the query and the passage"),
    GradingMode("answer_hinted", "prompts/grade_answer_hinted.txt",
                "also the {src}reference answer, as a fallible hint; other correct answers count",
                sees_answers=True),
]}


# the dev split's mode of a build whose source has no reference answers and that sets none (irdata/builds.py)
NO_ANSWERS_DEV_MODE = "query_only"


class GradingModeError(ValueError):
    """A mode that no job could run: `key` the config key that sets it, `problem` what is wrong and the fix."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"{key}: {problem}")
        self.key, self.problem = key, problem


def mode_named(name: str, where: str, answers: bool, default: str | None = None) -> GradingMode:
    """The registered mode `name`, set at config key `where`; `answers`: whether reference answers exist there;
    `default`: what `where` defaults to, named in the fix."""
    if name not in GRADING_MODES:
        raise GradingModeError(where, f"unknown grading mode {name!r}; known: {sorted(GRADING_MODES)}")
    mode = GRADING_MODES[name]
    if mode.sees_answers and not answers:
        fix = f"leave it out (it defaults to {default})" if default else "set it to query_only"
        raise GradingModeError(where, f"mode {name!r} needs reference answers, which only the dev split of MS "
                                      f"MARCO-format inputs has; {fix}")
    return mode


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
