"""The grading modes (annotation.grading, by split): the prompt a mode fills, the data it sees and how the
dataset card describes it. A module without dependencies, so the card (core env) reads the same registry
the grading stage (LLM env) runs."""

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


def mode_named(name: str, where: str, answers: bool) -> GradingMode:
    """The registered mode `name`, set at config key `where`; `answers`: whether reference answers exist there."""
    if name not in GRADING_MODES:
        raise ValueError(f"{where}: unknown grading mode {name!r}; known: {sorted(GRADING_MODES)}")
    mode = GRADING_MODES[name]
    if mode.sees_answers and not answers:
        raise ValueError(f"{where}: mode {name!r} needs reference answers, which only the dev split of MS MARCO-format "
                         "inputs has (a BEIR folder has none: use query_only)")
    return mode


def grading_mode(config: dict, split: str) -> GradingMode:
    """A split's mode. Reference answers exist for the dev split of MS MARCO-format inputs only: a BEIR folder
    has none, so its dev split grades query_only."""
    answers = split == "dev" and config["doubting"].get("source", {}).get("format", "msmarco") != "beir"
    return mode_named(config["annotation"]["grading"][split], f"annotation.grading.{split}", answers=answers)
