"""Grading: a separate LLM call per (query, passage), without the search history, on the card's 0-3 scale.

Train pairs see the query and the passage (`query_only`); dev pairs also see the reference answer as
a fallible hint (`answer_hinted`). Official positives are graded by the same rule as the proposals of
their split: on train all of them get their own `official` row (a passage that is both keeps both
rows); on dev only those the agent did not propose. A reply that never parses keeps grade null and
its failure reason: it is counted, never stored as a grade.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from ..atomic import write_parquet_atomic
from ..msmarco_inputs import read_reference_answers
from ..shards import read_id_list
from .common import official_positives, read_parquet_frame, run_with_client, write_stats
from .passages import TextStore
from .prompts import Prompt

GRADE_SCHEMA = pa.schema([
    ("query_id", pa.string()), ("passage_id", pa.string()), ("origin", pa.string()),
    ("grade", pa.int8()), ("failure", pa.string()),
])
GRADING = {"train": "query_only", "dev": "answer_hinted"}


def pairs_to_grade(split: str, shard_ids: list[str], agent: pd.DataFrame, official: pd.DataFrame) -> pd.DataFrame:
    """Rows (query_id, passage_id, origin) to grade for one shard, agent rows first, in a fixed order.

    `agent` has query_id, passage_id, agent_rank; `official` has query_id, passage_id (positives).
    """
    in_shard = set(shard_ids)
    agent_rows = agent.sort_values(["query_id", "agent_rank"], kind="stable")[["query_id", "passage_id"]]
    official_rows = official[official["query_id"].isin(in_shard)][["query_id", "passage_id"]]
    if split == "dev":
        proposed = pd.MultiIndex.from_frame(agent_rows)
        official_rows = official_rows[~pd.MultiIndex.from_frame(official_rows).isin(proposed)]
    official_rows = official_rows.sort_values(["query_id", "passage_id"], kind="stable")
    return pd.concat([agent_rows.assign(origin="agent"), official_rows.assign(origin="official")],
                     ignore_index=True)


def grading_messages(split: str, prompt: Prompt, query: str, passage: str, answers: list[str] | None) -> list[dict]:
    if split == "dev":
        hint = " | ".join(answers) if answers else "(none given)"
        return [{"role": "user", "content": prompt.render(query=query, passage=passage, answers=hint)}]
    return [{"role": "user", "content": prompt.render(query=query, passage=passage)}]


async def grade_pairs(client, split: str, pairs: pd.DataFrame, queries: TextStore, passages: TextStore,
                      prompt: Prompt, answers: dict[str, list[str]] | None = None, stage: str = "grade") -> pa.Table:
    """Grade every pair; returns the grades table (GRADE_SCHEMA) in the order of `pairs`."""
    conversations = [
        grading_messages(split, prompt, queries[q], passages[p], (answers or {}).get(q))
        for q, p in zip(pairs["query_id"], pairs["passage_id"])
    ]
    results = await client.grade_many(conversations, choices=("0", "1", "2", "3"), stage=stage)
    return pa.table({
        "query_id": pairs["query_id"].tolist(),
        "passage_id": pairs["passage_id"].tolist(),
        "origin": pairs["origin"].tolist(),
        "grade": pa.array([None if r.label is None else int(r.label) for r in results], pa.int8()),
        "failure": pa.array([r.failure if r.label is None else None for r in results], pa.string()),
    }, schema=GRADE_SCHEMA)


def run_grade(split, shard, agent_path, queries_path, collection_path, qrels_path, answers_path,
              llm_settings, journal, prompt_path, out_grades, out_stats) -> dict:
    """The grade rule: every proposal and official positive of the shard, graded once."""
    queries = TextStore.queries(queries_path)
    passages = TextStore.collection(collection_path)
    pairs = pairs_to_grade(split, read_id_list(shard), read_parquet_frame(agent_path), official_positives(qrels_path))
    answers = read_reference_answers(answers_path) if split == "dev" else None

    async def grades_of(client):
        return await grade_pairs(client, split, pairs, queries, passages, Prompt(prompt_path), answers)

    grades, client = run_with_client(llm_settings, journal, grades_of)
    write_parquet_atomic(grades, out_grades)
    frame = grades.to_pandas()
    summary = {"grading": GRADING[split], "pairs": len(frame), "failed": int(frame["grade"].isna().sum()),
               "grades": {str(int(k)): int(v) for k, v in frame["grade"].dropna().value_counts().sort_index().items()}}
    write_stats(out_stats, "grade", client, **summary)
    return summary
