"""The downstream_compare job: the comparison (irdata.downstream.compare) of the evaluation and training
reports, kept apart from compare.py, which the Doubting release's card and manifest import."""

from __future__ import annotations

from ..atomic import write_json_atomic
from ..json_files import read_json
from .compare import compare


def run_compare(*, training_set, training_reports, evaluation_results, result, trainings, evaluations,
                settings: dict) -> dict:
    """The downstream_compare job: compare() of the `evaluation_results` (one per (base, model, collection) of
    `evaluations`), the `training_reports` (one per (base, arm) of `trainings`) and the `training_set`'s report;
    write the `result` and return it."""
    by_model: dict = {}
    for (base, model, collection), path in zip(evaluations, evaluation_results):
        by_model.setdefault(base, {}).setdefault(model, {})[collection] = read_json(path)
    by_arm: dict = {}
    for (base, arm), path in zip(trainings, training_reports):
        by_arm.setdefault(base, {})[arm] = read_json(path)
    compared = compare(by_model, by_arm, read_json(training_set), settings)
    write_json_atomic(result, compared)
    return compared
