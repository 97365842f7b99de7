"""The grading modes (annotation.grading, by split): the prompt a mode fills, the data it sees and how the
dataset card describes it. The card (core env) reads the same registry the grading stage (LLM env) runs; a build's
modes are looked up and checked against its source in irdata/build_grading.py."""

from __future__ import annotations

from dataclasses import dataclass


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
