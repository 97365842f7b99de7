"""Run one arm over the mined test queries and write its result record (see `arms`)."""

from __future__ import annotations

import logging

from ..atomic import write_json_atomic
from ..json_files import read_json, read_jsonl
from .arms import ARMS, score_arm
from .inputs import read_texts_by_id
from .llm_arm import LlmScorer

log = logging.getLogger(__name__)

# what a fine-tuned arm's result (and results.jsonl) carries from its training report
TRAINING_FIELDS = ("base_model", "parameters", "train_seconds", "threads", "model_sha256", "best", "steps", "epochs")


# every arm a release scores: the registry's, and the LLM (pointwise grades through the LLM layer)
RELEASE_ARMS = {**ARMS, "llm": lambda s, c: LlmScorer(s["llm_answer"], s["llm_config"], s["prompt"],
                                                     max_queries=s["llm"].get("max_queries"))}


def run_arm(arm, mined_path, queries_path, collection_path, out_path, settings, training_report=None) -> dict:
    """Score `arm` (its kind in settings["kind"]); a fine-tuned arm's training report adds `training`."""
    rows = sorted(read_jsonl(mined_path), key=lambda r: r["note_id"])
    queries = {q["note_id"]: q["text"] for q in read_jsonl(queries_path)}
    collection = read_texts_by_id(collection_path)
    result = score_arm(arm, rows, queries, collection, settings, registry=RELEASE_ARMS)
    if training_report is not None:
        report = read_json(training_report)
        result["training"] = {k: report[k] for k in TRAINING_FIELDS}
    if "chance" in result:
        log.info("random arm: chance check %s", result["chance"])
    write_json_atomic(out_path, result)
    return result
