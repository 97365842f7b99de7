"""Run one arm over the mined test queries and write its result record (see `arms`)."""

from __future__ import annotations

import logging

from ..annotate.common import finish_job
from ..atomic import write_json_atomic
from ..json_files import read_json, read_jsonl
from .arms import ARMS, make_scorer, score_arm
from .inputs import read_texts_by_id
from .llm_arm import LlmScorer

log = logging.getLogger(__name__)

# what a fine-tuned arm's result (and results.jsonl) carries from its training report
TRAINING_FIELDS = ("base_model", "parameters", "train_seconds", "threads", "model_sha256", "best", "steps", "epochs")


# every arm a release scores: the registry's, and the LLM (pointwise grades through the LLM layer)
RELEASE_ARMS = {**ARMS, "llm": lambda s, c: LlmScorer(s["job"], s["prompt"], max_queries=s["llm"].get("max_queries"))}


def run_arm(*, arm, mined, queries, collection, result, settings, prompts=None, job=None, model=None,
            training=None) -> dict:
    """The score_arms job: score `arm` (its kind in settings["kind"]) on the `mined` test rows of the `queries`
    over the `collection` (TSV); write its `result` record and return it. A fine-tuned arm's model files
    (`model`) are the ones its settings name; its training report (`training`) adds `training`.

    The LLM arm (its LLMJob `job`, its prompt `prompts["pair"]`) writes its record as an LLM job's stats
    (finish_job): with its failures by kind, its calls and tokens, and its retry state, so that a plain rerun
    retries exactly its failed calls."""
    if job is not None:
        settings = {**settings, "job": job, "prompt": str(prompts["pair"].path)}
    rows = sorted(read_jsonl(mined), key=lambda r: r["note_id"])
    texts = {q["note_id"]: q["text"] for q in read_jsonl(queries)}
    documents = read_texts_by_id(collection)
    scorer = make_scorer(settings, documents, RELEASE_ARMS)
    try:
        record = score_arm(arm, rows, texts, documents, settings, scorer)
    finally:
        scorer.close()
    if training is not None:
        report = read_json(training)
        record["training"] = {k: report[k] for k in TRAINING_FIELDS}
    if "chance" in record:
        log.info("random arm: chance check %s", record["chance"])
    if isinstance(scorer, LlmScorer):
        summary = {k: v for k, v in record.items() if k != "failures"}  # finish_job writes them, as its stats
        finish_job(scorer.job, result, scorer.stage, scorer.client, scorer.failures, **summary)
    else:
        write_json_atomic(result, record)
    return record
