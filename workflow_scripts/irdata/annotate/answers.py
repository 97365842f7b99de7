"""Generated answers (train): the short answer WOOD scores, written from up to three proposals.

Which three, a fixed rule: a query's agent proposals ordered by grade (3 first, ungraded last),
then by agent_rank; the first three.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..atomic import write_parquet_atomic
from ..llm import LLMCallError
from .common import read_parquet_frame, run_with_client, write_stats
from .passages import TextStore
from .prompts import Prompt

ANSWER_SCHEMA = pa.schema([("query_id", pa.string()), ("answer", pa.string())])
ANSWER_PASSAGES = 3

def answer_passages(agent: pd.DataFrame, grades: pd.DataFrame) -> dict[str, list[str]]:
    """Per query, the (up to) three proposals the answer is written from."""
    graded = agent.merge(grades[grades["origin"] == "agent"][["query_id", "passage_id", "grade"]],
                         on=["query_id", "passage_id"], how="left")
    graded["order"] = -graded["grade"].astype("float64").fillna(-1)
    graded = graded.sort_values(["query_id", "order", "agent_rank"], kind="stable")
    top = graded.groupby("query_id", sort=True).head(ANSWER_PASSAGES)
    return {q: group["passage_id"].tolist() for q, group in top.groupby("query_id", sort=True)}


async def generate_answers(client, chosen: dict[str, list[str]], queries: TextStore, passages: TextStore,
                           prompt: Prompt, max_tokens: int, stage: str = "answer") -> tuple[pa.Table, list[dict]]:
    """One answer per query; returns the answers table and the failures (query_id, reason)."""
    query_ids = sorted(chosen)
    conversations = [[{"role": "user", "content": prompt.render(
        query=queries[q],
        passages="\n".join(f"Passage {i}: {passages[p]}" for i, p in enumerate(chosen[q], start=1)))}]
        for q in query_ids]
    results = await client.chat_many(conversations, max_tokens=max_tokens, stage=stage, on_error="return")
    answers, failures = [], []
    for qid, result in zip(query_ids, results):
        if isinstance(result, LLMCallError):
            failures.append({"query_id": qid, "reason": result.reason})
        elif not result.text.strip():
            failures.append({"query_id": qid, "reason": "empty answer"})
        else:
            answers.append((qid, " ".join(result.text.split())))
    table = pa.table({"query_id": [a[0] for a in answers], "answer": [a[1] for a in answers]}, schema=ANSWER_SCHEMA)
    return table, failures


def run_generate_answers(agent_path, grades_path, queries_path, collection_path, llm_settings, journal,
                         prompt_path, max_tokens, out_answers, out_stats) -> dict:
    """The generate_answer rule: one answer per train query with proposals."""
    queries = TextStore.queries(queries_path)
    passages = TextStore.collection(collection_path)
    chosen = answer_passages(read_parquet_frame(agent_path), pq.read_table(grades_path).to_pandas())

    async def answers_of(client):
        return await generate_answers(client, chosen, queries, passages, Prompt(prompt_path), max_tokens)

    (answers, failures), client = run_with_client(llm_settings, journal, answers_of)
    write_parquet_atomic(answers, out_answers)
    summary = {"queries": len(chosen), "answers": answers.num_rows, "failures": failures}
    write_stats(out_stats, "generate_answer", client, **summary)
    return summary
