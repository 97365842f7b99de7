"""The `judgments` rows of one shard, in the release's row order, and the `qrels` rows drawn from them.

Row order within a shard: the query's position in the shard list, then the query's agent rows by
agent_rank, then its official rows by passage_id. An agent row carries agent_rank, wood and (train)
train_eligible; an official row has them null. official_positive: the pair is an official positive
of the split's qrels (always true on an official row).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .release_files import BOOL, FLOAT64, INT32, STRING
from .shard_join import JoinedShard

QRELS_COLUMNS = ["query_id", "passage_id", "grade"]


@dataclass
class ShardJudgments:
    table: pa.Table        # SCHEMAS["judgments"]'s columns, in row order
    query: np.ndarray      # query position of each row
    grade: np.ndarray      # int64 grade of each row


def _column(table: pa.Table, name: str) -> pa.Array:
    column = table.column(name)
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _repeat(value: str, n: int) -> pa.Array:
    return pa.repeat(pa.scalar(value, STRING), n)


def shard_judgments(shard: JoinedShard, grading: str, eligible: np.ndarray | None) -> ShardJudgments:
    """Agent then official judgment rows; `eligible` per agent row (train), None where not defined (dev)."""
    agent, official = shard.agent, shard.official
    n_agent, n_official = agent.rows.num_rows, official.rows.num_rows
    official_positive = np.zeros(n_agent, bool)   # looked up from the (fewer) positives' side
    as_agent = agent.pairs.index_of(shard.positives.pairs.keys)
    official_positive[as_agent[as_agent >= 0]] = True
    agent_eligible = pa.nulls(n_agent, BOOL) if eligible is None else pa.array(eligible, BOOL)
    table = pa.table({
        "query_id": pa.concat_arrays([_column(agent.rows, "query_id"), _column(official.rows, "query_id")]),
        "passage_id": pa.concat_arrays([_column(agent.rows, "passage_id"), _column(official.rows, "passage_id")]),
        "origin": pa.concat_arrays([_repeat("agent", n_agent), _repeat("official", n_official)]),
        "grade": pa.concat_arrays([agent.grade, official.grade]),
        "grading": _repeat(grading, n_agent + n_official),
        "agent_rank": pa.concat_arrays([_column(agent.rows, "agent_rank"), pa.nulls(n_official, INT32)]),
        "wood": pa.concat_arrays([agent.wood, pa.nulls(n_official, FLOAT64)]),
        "train_eligible": pa.concat_arrays([agent_eligible, pa.nulls(n_official, BOOL)]),
        "official_positive": pa.array(np.r_[official_positive, np.ones(n_official, bool)], BOOL),
    })
    # the row order as one unique int64 key: query, then agent rows by rank, then official rows by
    # passage_id (their place in passage_id order); below 2^63 for any shard under 2^31 queries
    passage_order = np.empty(n_official, np.int64)
    passage_order[pc.sort_indices(official.rows.column("passage_id")).to_numpy()] = np.arange(n_official)
    query = np.concatenate([agent.query, official.query])
    span = max(int(agent.rank.max(initial=0)), n_official) + 1
    order = np.argsort(np.concatenate([query[:n_agent] * 2 * span + agent.rank,
                                       (query[n_agent:] * 2 + 1) * span + passage_order]))
    grade = np.r_[agent.grade_values, official.grade_values]
    return ShardJudgments(table=table.take(pa.array(order, pa.int64())), query=query[order], grade=grade[order])


def qrels_rows(judgments: ShardJudgments, keep) -> pa.Table:
    """The qrels config's rows: the judgments where `keep` (a boolean mask), in judgment order."""
    return judgments.table.filter(keep).select(QRELS_COLUMNS)
