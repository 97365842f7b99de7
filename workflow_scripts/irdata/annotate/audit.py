"""The label audit: human-judged pairs graded through the release's own grading path and model, and how
well the model's grades agree with the human ones.

Input: TREC qrels with human grades 0-3 (e.g. TREC DL 2019/2020 for MS MARCO) and the queries they
judge; their passages come from the release's collection. A judged passage missing from the collection
is an error, or, with `missing_passages: drop`, dropped and counted. `per_grade` draws that many pairs
of each human grade (seeded by the pair, so the draw does not depend on file order); null keeps all.

Agreement: the 4x4 confusion matrix (rows the human grade, columns the model's), Cohen's kappa with
linear and quadratic weights, and binary agreement at >= 2 (relevant or not). A pair whose grading
failed is counted as a failure, left out of the agreement, never read as a grade, and gated by the
release gate like the release's grades.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pyarrow as pa

from ..atomic import write_json_atomic, write_parquet_atomic
from ..errors import InputError
from ..grade_scale import GRADES
from ..passage_store import PassageStore
from ..tsv import read_trec_qrels
from .common import Failures, LLMJob, finish_job, run_with_client
from .grading import _counts, grade_pairs
from .passages import TextStore


def audit_pairs(qrels_path, queries: TextStore, passages, per_grade: int | None, seed: int,
                missing_passages: str) -> tuple[pd.DataFrame, dict]:
    """The judged pairs to grade (query_id, passage_id, human), and what was dropped."""
    qrels = read_trec_qrels(qrels_path, grades=GRADES).to_pandas()
    unknown = qrels[~qrels["query_id"].map(lambda q: q in queries)]
    if len(unknown):
        raise InputError(qrels_path, f"query {unknown['query_id'].iloc[0]!r} is not in the audit queries "
                         f"({len(unknown)} such row(s))", field="query_id")
    absent = ~qrels["passage_id"].map(lambda p: p in passages)
    if absent.any() and missing_passages != "drop":
        raise InputError(qrels_path, f"passage {qrels.loc[absent, 'passage_id'].iloc[0]!r} is not in the collection "
                         f"({int(absent.sum())} such row(s)); set doubting.audit.missing_passages: drop to leave "
                         "them out", field="passage_id")
    pairs = qrels[~absent].rename(columns={"relevance": "human"})[["query_id", "passage_id", "human"]]
    if per_grade is not None:
        key = [hashlib.sha256(f"{seed}:{q}:{p}".encode()).hexdigest() for q, p in zip(pairs["query_id"],
                                                                                     pairs["passage_id"])]
        pairs = pairs.assign(key=key).sort_values(["human", "key"]).groupby("human").head(per_grade)
    pairs = pairs.sort_values(["query_id", "passage_id"], kind="stable").reset_index(drop=True)
    return pairs, {"judged": len(qrels), "passages_missing": int(absent.sum())}


def kappa(confusion: np.ndarray, weights: str) -> float | None:
    """Cohen's kappa of a k x k confusion matrix with linear or quadratic disagreement weights."""
    n = confusion.sum()
    if n == 0:
        return None
    k = confusion.shape[0]
    i, j = np.indices((k, k))
    w = np.abs(i - j) / (k - 1) if weights == "linear" else ((i - j) / (k - 1)) ** 2
    expected = np.outer(confusion.sum(1), confusion.sum(0)) / n
    denominator = (w * expected).sum()
    return None if denominator == 0 else float(1 - (w * confusion).sum() / denominator)


def agreement(human: np.ndarray, model: np.ndarray) -> dict:
    """Confusion, kappas and binary agreement of graded pairs (both arrays of grades 0-3)."""
    confusion = np.zeros((len(GRADES), len(GRADES)), np.int64)
    np.add.at(confusion, (human, model), 1)
    return {"pairs": int(len(human)), "confusion": confusion.tolist(),
            "kappa_linear": kappa(confusion, "linear"), "kappa_quadratic": kappa(confusion, "quadratic"),
            "binary_agreement_at_2": float(np.mean((human >= 2) == (model >= 2))) if len(human) else None,
            "exact_agreement": float(np.mean(human == model)) if len(human) else None,
            "model_grades": {str(g): int((model == g).sum()) for g in GRADES},
            "human_grades": {str(g): int((human == g).sum()) for g in GRADES}}


def run_audit(*, qrels, queries, collection, prompts: dict, settings: dict, job: LLMJob, grades, audit, stats) -> dict:
    """The audit_labels rule: grade the judged pairs, write them and the agreement."""
    texts = TextStore.queries(queries)
    passages = PassageStore(collection)
    pairs, dropped = audit_pairs(qrels, texts, passages, settings["per_grade"], settings["seed"],
                                 settings["missing_passages"])

    async def grades_of(client):
        return await grade_pairs(client, pairs.assign(origin="audit"), texts, passages, prompts["grade"],
                                 sees_answers=False)

    graded_pairs, client = run_with_client(job, grades_of)
    frame = graded_pairs.to_pandas().assign(human=pairs["human"].to_numpy())
    write_parquet_atomic(graded_pairs.append_column("human", pa.array(pairs["human"].to_numpy(), pa.int8())), grades)
    graded = frame[frame["grade"].notna()]
    failures = Failures("pairs", len(frame))
    for kind in frame["failure_kind"].dropna():
        failures.add(kind)
    result = {"qrels": str(qrels), "grades_from": settings["grades_from"], "grading": settings["mode"], **dropped,
              **agreement(graded["human"].to_numpy(np.int64), graded["grade"].to_numpy(np.int64)),
              "failures": failures.as_dict()}
    write_json_atomic(audit, result)
    # gated like the release's own grades (annotation.failure_limits.audit_labels)
    finish_job(job, stats, "audit_labels", client, failures, pairs=len(frame),
               grade_paths=_counts(frame["grade_path"]))
    return result
