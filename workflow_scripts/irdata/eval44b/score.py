"""Run one arm over the mined test queries and write its result record (see `arms`)."""

from __future__ import annotations

import logging

from ..provenance import sha256_file
from ..tsv import read_id_text_tsv
from .arms import BASE_ARMS, chance_check, score_arm
from .jsonl import read_jsonl, write_json

log = logging.getLogger(__name__)


def read_collection(path) -> dict:
    table = read_id_text_tsv(path)
    return dict(zip(table.column("id").to_pylist(), table.column("text").to_pylist()))


def cross_encoder_scorer(spec: dict):
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(spec["model"], device="cpu")

    def score(query, docs):
        return [
            float(s)
            for s in model.predict(
                [(query, d) for d in docs], batch_size=spec.get("batch_size", 32), show_progress_bar=False
            )
        ]

    return score


def arm_spec(arm: str, settings: dict) -> dict:
    """What the arm needs: {"kind": base | cross_encoder | llm, ...}."""
    if arm in BASE_ARMS:
        return {"kind": arm}
    if arm.startswith("cross_encoder-"):
        name = arm.removeprefix("cross_encoder-")
        for spec in settings["cross_encoders"]:
            if spec["name"] == name:
                return {"kind": "cross_encoder", **spec}
    if arm == "llm":
        return {"kind": "llm", **settings["llm"]}
    raise ValueError(f"arm {arm!r} is not configured")


def run_arm(arm, mined_path, queries_path, collection_path, out_path, settings) -> dict:
    rows = sorted(read_jsonl(mined_path), key=lambda r: r["note_id"])
    queries = {q["note_id"]: q["text"] for q in read_jsonl(queries_path)}
    collection = read_collection(collection_path)
    spec = arm_spec(arm, settings)
    scorer = None
    extra = {}
    if spec["kind"] == "cross_encoder":
        scorer = cross_encoder_scorer(spec)
        extra["model"] = spec["model"]
    elif spec["kind"] == "llm":
        from .llm_arm import LlmScorer

        if spec.get("max_queries"):
            rows = rows[: spec["max_queries"]]
        scorer = LlmScorer(settings["llm_settings"], settings["prompt"])
        extra["model"] = scorer.model_name
        extra["prompt_sha256"] = sha256_file(settings["prompt"])
    elif spec["kind"] in ("dense", "hybrid_rrf"):
        extra["model"] = settings["retrieval"]["dense"]["model"]
    result = score_arm(arm, rows, queries, collection, settings, scorer=scorer)
    if spec["kind"] == "llm":
        extra["failures"] = scorer.failures
        scorer.close()
    if arm == "random":
        extra["chance"] = chance_check(result, 1 + settings["negatives"])
        log.info("random arm: chance check %s", extra["chance"])
    result.update(extra)
    write_json(out_path, result)
    return result
