"""Grading: a separate LLM call per (query, passage), without the search history, on the card's 0-3 scale.

How a split's pairs are graded is a grading mode, chosen in the config (`annotation.grading`, by
split) from the registry irdata.grading_modes.GRADING_MODES: the prompt it fills and the data it sees. `query_only` sees
the query and the passage (train); `answer_hinted` also sees the reference answers as a fallible hint
(dev). A new mode is one registry entry, its prompt file and the config key that selects it.

Official positives are graded by the same mode as the proposals of their split: on train all of them
get their own `official` row (a passage that is both keeps both rows); on dev only those the agent did
not propose. A reply that never parses keeps grade null with its failure kind and reason: counted,
never stored as a grade.
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow as pa

from ..atomic import write_parquet_atomic
from ..grade_scale import CHOICES
from ..passage_store import PassageStore
from ..reference_answers import read_reference_answers
from ..shard_files import GRADES_SCHEMA
from ..shards import read_id_list
from .common import Failures, LLMJob, finish_job, official_positives, read_parquet_frame, run_with_client
from .passages import TextStore


def pairs_to_grade(official_rows: str, shard_ids: list[str], agent: pd.DataFrame,
                   official: pd.DataFrame) -> pd.DataFrame:
    """Rows (query_id, passage_id, origin) to grade for one shard, agent rows first, in a fixed order.

    `agent` has query_id, passage_id, agent_rank; `official` has query_id, passage_id (positives);
    official_rows: "all" or "not_proposed" (OFFICIAL_ROWS).
    """
    in_shard = set(shard_ids)
    agent_rows = agent.sort_values(["query_id", "agent_rank"], kind="stable")[["query_id", "passage_id"]]
    official_rows_ = official[official["query_id"].isin(in_shard)][["query_id", "passage_id"]]
    if official_rows == "not_proposed":
        proposed = pd.MultiIndex.from_frame(agent_rows)
        official_rows_ = official_rows_[~pd.MultiIndex.from_frame(official_rows_).isin(proposed)]
    official_rows_ = official_rows_.sort_values(["query_id", "passage_id"], kind="stable")
    return pd.concat([agent_rows.assign(origin="agent"), official_rows_.assign(origin="official")],
                     ignore_index=True)


def grading_messages(prompt, query: str, passage: str, answers: list[str] | None, sees_answers: bool,
                     title: str | None = None) -> list[dict]:
    """The grading prompt of one pair; a passage's title (a BEIR corpus) in its own tag, none when empty."""
    values = {"query": query, "passage": passage, "title": title or None}
    if sees_answers:
        values["answers"] = " | ".join(answers) if answers else "(none given)"
    return [{"role": "user", "content": prompt.render(**values)}]


def _probability(result) -> float | None:
    """The model's probability of its grade among the choices, when the backend returned them all
    (choice_logprobs are renormalised over the choices)."""
    if not result.choice_logprobs or result.label is None:
        return None
    return math.exp(result.choice_logprobs[result.label])


async def grade_pairs(client, pairs: pd.DataFrame, queries: TextStore, passages, prompt, sees_answers: bool,
                      answers: dict[str, list[str]] | None = None, stage: str = "grade") -> pa.Table:
    """Grade every pair; returns the grades table (shard_files.GRADES_SCHEMA) in the order of `pairs`."""
    query_ids = pairs["query_id"].tolist()
    conversations = [grading_messages(prompt, queries[q], passages[p], (answers or {}).get(q), sees_answers,
                                      passages.title(p))
                     for q, p in zip(query_ids, pairs["passage_id"])]
    # issued query by query (a query's official pairs follow all agent pairs in `pairs`), each
    # routed by its query, so its shared prompt prefix is still in the server's cache
    order = sorted(range(len(query_ids)), key=query_ids.__getitem__)
    issued = await client.grade_many([conversations[i] for i in order], choices=CHOICES, stage=stage,
                                     routes=[query_ids[i] for i in order])
    results = [None] * len(order)
    for i, result in zip(order, issued):
        results[i] = result
    failed = [r.label is None for r in results]
    return pa.table({
        "query_id": pairs["query_id"].tolist(),
        "passage_id": pairs["passage_id"].tolist(),
        "origin": pairs["origin"].tolist(),
        "grade": pa.array([None if r.label is None else int(r.label) for r in results], pa.int8()),
        "grade_path": pa.array([None if f else r.path for r, f in zip(results, failed)], pa.string()),
        "grade_probability": pa.array([_probability(r) for r in results], pa.float32()),
        "failure_kind": pa.array([r.failure_kind or "unknown" if f else None for r, f in zip(results, failed)],
                                 pa.string()),
        "failure": pa.array([r.failure or "no reason given" if f else None for r, f in zip(results, failed)],
                            pa.string()),
    }, schema=GRADES_SCHEMA)


def _counts(column: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in column.dropna().value_counts().sort_index().items()}


def run_grade(*, shard, agent, queries, collection, qrels, prompts: dict, settings: dict, job: LLMJob, grades,
              stats, answers=None) -> dict:
    """The grade rule: every proposal and official positive of the shard, graded once (`answers`: the reference
    answers, for a grading mode that sees them)."""
    texts = TextStore.queries(queries)
    passages = PassageStore(collection)
    pairs = pairs_to_grade(settings["official_rows"], read_id_list(shard), read_parquet_frame(agent),
                           official_positives(qrels))
    reference = read_reference_answers(answers) if settings["sees_answers"] else None

    async def grades_of(client):
        return await grade_pairs(client, pairs, texts, passages, prompts["grade"], settings["sees_answers"],
                                 reference)

    graded, client = run_with_client(job, grades_of)
    write_parquet_atomic(graded, grades)
    frame = graded.to_pandas()
    failures = Failures("pairs", len(frame))
    for kind in frame["failure_kind"].dropna():
        failures.add(kind)
    summary = {"grading": settings["mode"], "pairs": len(frame), "grades": _counts(frame["grade"]),
               "grade_paths": _counts(frame["grade_path"])}
    finish_job(job, stats, "grade", client, failures, **summary)
    return summary
