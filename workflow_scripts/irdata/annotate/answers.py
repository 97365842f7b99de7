"""Generated answers (train): the short answer WOOD scores, written from up to three proposals.

Which three, a fixed rule: a query's agent proposals ordered by grade (3 first, ungraded last),
then by agent_rank; the first three. A failed call or an empty reply leaves the query without an
answer (and so without WOOD), counted by kind in the stats.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..atomic import write_parquet_atomic
from ..llm import LLMCallError
from ..passage_store import PassageStore
from ..shard_files import ANSWERS_SCHEMA
from .common import Failures, LLMJob, finish_job, read_parquet_frame, run_with_client
from .passages import TextStore


def answer_passages(agent: pd.DataFrame, grades: pd.DataFrame, n: int) -> dict[str, list[str]]:
    """Per query, the (up to) n proposals the answer is written from."""
    graded = agent.merge(grades[grades["origin"] == "agent"][["query_id", "passage_id", "grade"]],
                         on=["query_id", "passage_id"], how="left")
    graded["order"] = -graded["grade"].astype("float64").fillna(-1)
    graded = graded.sort_values(["query_id", "order", "agent_rank"], kind="stable")
    top = graded.groupby("query_id", sort=True).head(n)
    return {q: group["passage_id"].tolist() for q, group in top.groupby("query_id", sort=True)}


async def generate_answers(client, chosen: dict[str, list[str]], queries: TextStore, passages,
                           prompt, max_tokens: int, stage: str = "answer") -> tuple[pa.Table, list[dict]]:
    """One answer per query; returns the answers table and the failures (query_id, kind, reason)."""
    query_ids = sorted(chosen)
    conversations = [[{"role": "user", "content": prompt.render(
        query=queries[q],
        passages="\n".join(f"Passage {i}: {passages[p]}" for i, p in enumerate(chosen[q], start=1)))}]
        for q in query_ids]
    results = await client.chat_many(conversations, max_tokens=max_tokens, stage=stage, on_error="return",
                                     routes=query_ids)
    answers, failures = [], []
    for qid, result in zip(query_ids, results):
        if isinstance(result, LLMCallError):
            failures.append({"query_id": qid, "kind": result.kind,
                             "reason": result.reason})
        elif not result.text.strip():
            failures.append({"query_id": qid, "kind": "empty_answer", "reason": "the model wrote no answer"})
        else:
            answers.append((qid, " ".join(result.text.split())))
    table = pa.table({"query_id": [a[0] for a in answers], "answer": [a[1] for a in answers]},
                     schema=ANSWERS_SCHEMA)
    return table, failures


def run_generate_answers(*, agent, grades, queries, collection, prompts: dict, settings: dict, job: LLMJob, answers,
                         stats) -> dict:
    """The generate_answer rule: one answer per train query with proposals."""
    texts = TextStore.queries(queries)
    passages = PassageStore(collection)
    chosen = answer_passages(read_parquet_frame(agent), pq.read_table(grades).to_pandas(), settings["passages"])

    async def answers_of(client):
        return await generate_answers(client, chosen, texts, passages, prompts["answer"], settings["max_tokens"])

    (generated, failed), client = run_with_client(job, answers_of)
    write_parquet_atomic(generated, answers)
    failures = Failures("queries", len(chosen))
    for f in failed:
        failures.add(f["kind"])
    summary = {"queries": len(chosen), "answers": generated.num_rows, "failed_queries": failed}
    finish_job(job, stats, "generate_answer", client, failures, **summary)
    return summary
