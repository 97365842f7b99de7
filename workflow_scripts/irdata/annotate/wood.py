"""WOOD (Weighted Output Odds Differential), train only.

WOOD of a proposal = mean log p(answer token | passage, query) - mean log p(answer token | query),
over the generated answer's tokens, each side's mean taken over its own tokenisation of the answer
(they can differ at the boundary). Null when either side is missing or not finite, or the query
has no answer.
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow as pa

from ..atomic import write_parquet_atomic
from ..llm import LLMCallError
from .common import read_parquet_frame, run_with_client, write_stats
from .passages import TextStore
from .prompts import Prompt

WOOD_SCHEMA = pa.schema([("query_id", pa.string()), ("passage_id", pa.string()), ("wood", pa.float64())])


def _mean(logprobs) -> float | None:
    if isinstance(logprobs, LLMCallError) or not logprobs:
        return None
    value = math.fsum(logprobs) / len(logprobs)
    return value if math.isfinite(value) else None


async def wood_scores(client, agent: pd.DataFrame, answers: dict[str, str], queries: TextStore,
                      passages: TextStore, with_passage: Prompt, query_only: Prompt,
                      stage: str = "wood") -> tuple[pa.Table, int]:
    """WOOD for every agent proposal, in the order of `agent`; returns the table and the failed calls."""
    rows = agent.sort_values(["query_id", "agent_rank"], kind="stable")
    scored = rows[rows["query_id"].isin(answers.keys())]
    base_ids = sorted(set(scored["query_id"]))
    continuation = {q: " " + answers[q] for q in base_ids}
    pairs = [(query_only.render(query=queries[q]) + "\n", continuation[q]) for q in base_ids]
    pairs += [(with_passage.render(query=queries[q], passage=passages[p]) + "\n", continuation[q])
              for q, p in zip(scored["query_id"], scored["passage_id"])]
    logprobs = await client.loglikelihood_many(pairs, stage=stage, on_error="return")
    failed = sum(isinstance(x, LLMCallError) for x in logprobs)
    base = dict(zip(base_ids, (_mean(x) for x in logprobs[: len(base_ids)])))
    with_mean = {(q, p): _mean(x) for q, p, x in
                 zip(scored["query_id"], scored["passage_id"], logprobs[len(base_ids):])}

    def score(q, p):
        a, b = with_mean.get((q, p)), base.get(q)
        if a is None or b is None:
            return None
        value = a - b
        return value if math.isfinite(value) else None

    table = pa.table({
        "query_id": rows["query_id"].tolist(),
        "passage_id": rows["passage_id"].tolist(),
        "wood": pa.array([score(q, p) for q, p in zip(rows["query_id"], rows["passage_id"])], pa.float64()),
    }, schema=WOOD_SCHEMA)
    return table, failed


def run_wood(agent_path, answers_path, queries_path, collection_path, llm_settings, journal,
             with_passage_prompt, query_only_prompt, out_wood, out_stats) -> dict:
    """The wood rule: WOOD for every train proposal of the shard."""
    queries = TextStore.queries(queries_path)
    passages = TextStore.collection(collection_path)
    answers = read_parquet_frame(answers_path)
    answer_of = dict(zip(answers["query_id"], answers["answer"]))

    async def wood_of(client):
        return await wood_scores(client, read_parquet_frame(agent_path), answer_of, queries, passages,
                                 Prompt(with_passage_prompt), Prompt(query_only_prompt))

    (wood, failed_calls), client = run_with_client(llm_settings, journal, wood_of)
    write_parquet_atomic(wood, out_wood)
    summary = {"proposals": wood.num_rows, "null_wood": wood.column("wood").null_count, "failed_calls": failed_calls}
    write_stats(out_stats, "wood", client, **summary)
    return summary
