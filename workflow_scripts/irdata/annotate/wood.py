"""WOOD (Weighted Output Odds Differential), train only.

WOOD of a proposal = mean log p(answer token | passage, query) - mean log p(answer token | query),
over the generated answer's tokens, each side's mean taken over its own tokenisation of the answer
(they can differ at the boundary). The answer is scored where the model would write it: on its own
line after the prompt's closing "Answer:" (context = prompt + "\n", continuation = the answer as
generated), so its first token is not an unnatural " " after a newline.

Null when the query has no answer (not available, the only null without a failure kind), when a
log-likelihood call failed (its kind), or when a side's mean is not finite or has no tokens to take
it over (kind `non_finite`): the row's failure_kind and failure say why, so a null from a failure is
never mistaken for "not available".
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow as pa

from ..atomic import write_parquet_atomic
from ..llm import LLMCallError
from ..passage_store import PassageStore
from ..shard_files import WOOD_SCHEMA
from .common import Failures, LLMJob, finish_job, read_parquet_frame, run_with_client
from .passages import TextStore

NON_FINITE = "non_finite"


def _mean(logprobs: list[float]) -> float:
    """The mean log-probability; NaN when there is none (a continuation of no tokens) or when the sum
    leaves the float range (fsum raises rather than return inf)."""
    try:
        return math.fsum(logprobs) / len(logprobs) if logprobs else math.nan
    except OverflowError:
        return math.nan


def _failure(result) -> tuple[str, str] | None:
    if isinstance(result, LLMCallError):
        return result.kind, result.reason
    return None


def _value(with_passage: list[float], query_only: list[float]) -> tuple[float | None, tuple[str, str] | None]:
    """(WOOD, None), or (None, the non_finite failure) when either mean or their difference is not finite."""
    mean_a, mean_b = _mean(with_passage), _mean(query_only)
    value = mean_a - mean_b
    if math.isfinite(value):
        return value, None
    return None, (NON_FINITE, f"mean log-probability not finite: with the passage {mean_a!r} over "
                              f"{len(with_passage)} token(s), query only {mean_b!r} over {len(query_only)} token(s)")


async def wood_scores(client, agent: pd.DataFrame, answers: dict[str, str], queries: TextStore,
                      passages, with_passage, query_only, stage: str = "wood") -> pa.Table:
    """WOOD for every agent proposal, in the order of `agent` sorted by (query, agent_rank)."""
    rows = agent.sort_values(["query_id", "agent_rank"], kind="stable")
    scored = rows[rows["query_id"].isin(answers.keys())]
    base_ids = sorted(set(scored["query_id"]))
    pairs = [(query_only.render(query=queries[q]) + "\n", answers[q]) for q in base_ids]
    pairs += [(with_passage.render(query=queries[q], passage=passages[p]) + "\n", answers[q])
              for q, p in zip(scored["query_id"], scored["passage_id"])]
    logprobs = await client.loglikelihood_many(pairs, stage=stage, on_error="return",
                                               routes=[*base_ids, *scored["query_id"]])
    base = dict(zip(base_ids, logprobs[: len(base_ids)]))
    with_passage_results = dict(zip(zip(scored["query_id"], scored["passage_id"]), logprobs[len(base_ids):]))

    values, kinds, reasons = [], [], []
    for q, p in zip(rows["query_id"], rows["passage_id"]):
        if q not in answers:
            values.append(None), kinds.append(None), reasons.append(None)
            continue
        a, b = with_passage_results[(q, p)], base[q]
        failure = _failure(a) or _failure(b)
        value = None
        if failure is None:
            value, failure = _value(a, b)
        values.append(value)
        kinds.append(failure and failure[0]), reasons.append(failure and failure[1])
    return pa.table({
        "query_id": rows["query_id"].tolist(),
        "passage_id": rows["passage_id"].tolist(),
        "wood": pa.array(values, pa.float64()),
        "failure_kind": pa.array(kinds, pa.string()),
        "failure": pa.array(reasons, pa.string()),
    }, schema=WOOD_SCHEMA)


def run_wood(*, agent, answers, queries, collection, prompts: dict, settings: dict, job: LLMJob, wood, stats) -> dict:
    """The wood rule: WOOD for every train proposal of the shard."""
    texts = TextStore.queries(queries)
    passages = PassageStore(collection)
    generated = read_parquet_frame(answers)
    answer_of = dict(zip(generated["query_id"], generated["answer"]))

    async def wood_of(client):
        return await wood_scores(client, read_parquet_frame(agent), answer_of, texts, passages,
                                 prompts["with_passage"], prompts["query_only"])

    scores, client = run_with_client(job, wood_of)
    write_parquet_atomic(scores, wood)
    frame = scores.to_pandas()
    # the unit is a proposal: a failed query-only call fails every proposal of its query
    failures = Failures("proposals", len(frame))
    for kind in frame["failure_kind"].dropna():
        failures.add(kind)
    summary = {"proposals": len(frame), "null_wood": int(frame["wood"].isna().sum()),
               "not_available": int((frame["wood"].isna() & frame["failure_kind"].isna()).sum())}
    finish_job(job, stats, "wood", client, failures, **summary)
    return summary
