"""Per-query rules of the Doubting MS MARCO card: eligibility, the selected training positive, the
deterministic official fallback. Columnar (numpy/pyarrow) over one shard's rows.

Eligibility (train agent proposals): grade 2 or 3 and a finite WOOD score (`train_eligible`; the
qrels train rule). Null for official rows and on dev.

Selected positive (train, one per query):
1. `wood`: among the query's eligible proposals, the highest WOOD; ties by the higher grade, then
   by the smaller agent_rank (earlier in the agent's proposal list). agent_rank is unique per
   query, so the choice is total.
2. `official_fallback`, when no proposal is eligible (including a query with no agent row): among
   the query's official MS MARCO positives (relevance >= 1 in the official train qrels), the one
   with the highest grade of its own `official` judgment row (a failed grading call ranks below
   grade 0), then the highest official relevance, then the smallest passage_id as a string
   (Unicode code point order, so "10" < "9"). Every official positive is a candidate, graded or not.
3. A query with neither has no selected positive (positive_id and positive_source null); the card
   counts it.

`select_positives` applies them to one shard: the positive_* columns of train_queries. Whatever its
source, a selected passage carries its agent grade and WOOD if the agent proposed it (and it was
graded), and its official grade if it is a graded official positive; null otherwise, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .pair_keys import take
from .shard_join import JoinedShard

SOURCE_WOOD = "wood"
SOURCE_FALLBACK = "official_fallback"
NO_POSITIVE, BY_WOOD, BY_FALLBACK = 0, 1, 2
SOURCE_NAMES = pa.array([None, SOURCE_WOOD, SOURCE_FALLBACK], pa.string())   # by NO_POSITIVE, BY_WOOD, ...


def train_eligible(grade: np.ndarray, wood_valid: np.ndarray) -> np.ndarray:
    """grade 2-3 and finite WOOD (wood_valid is False where wood is null)."""
    return (grade >= 2) & wood_valid


def first_per_group(sorted_groups: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values in an already sorted array."""
    mask = np.ones(len(sorted_groups), dtype=bool)
    mask[1:] = sorted_groups[1:] != sorted_groups[:-1]
    return mask


def select_by_wood(query: np.ndarray, wood: np.ndarray, grade: np.ndarray,
                   rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Among eligible rows (all rows passed in are eligible), the winner per query (rule 1).

    Returns (queries, row indices into the passed arrays), queries ascending. The ties (equal WOOD,
    rare) are sorted among the rows with their query's highest WOOD only, not among all rows.
    """
    if len(query) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    by_query = np.argsort(query, kind="stable")
    sorted_wood = wood[by_query]
    starts = np.flatnonzero(first_per_group(query[by_query]))
    query_best = np.maximum.reduceat(sorted_wood, starts)
    best = by_query[sorted_wood == np.repeat(query_best, np.diff(np.r_[starts, len(by_query)]))]
    order = best[np.lexsort((rank[best], -grade[best].astype(np.int64), query[best]))]
    rows = order[first_per_group(query[order])]
    return query[rows], rows


def select_fallback(query: np.ndarray, passage_id: pa.Array, official_grade: pa.Array,
                    relevance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Winner per query among its official positives (rule 2).

    official_grade: int8 with nulls (grading failed). Returns (queries, row indices) ascending.
    """
    if len(query) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    candidates = pa.table({
        "query": pa.array(query, pa.int64()),
        "grade": pc.fill_null(pc.cast(official_grade, pa.int64()), -1),   # a failed call ranks below grade 0
        "relevance": pa.array(relevance, pa.int64()),
        "passage_id": passage_id,
        "row": pa.array(np.arange(len(query)), pa.int64()),
    })
    ranked = candidates.sort_by([("query", "ascending"), ("grade", "descending"), ("relevance", "descending"),
                                 ("passage_id", "ascending")])
    ranked_query = ranked.column("query").to_numpy()
    first = first_per_group(ranked_query)
    return ranked_query[first], ranked.column("row").to_numpy()[first]


@dataclass
class SelectedPositives:
    columns: dict[str, pa.Array]   # positive_id, positive_source, positive_agent_grade, positive_official_grade,
    #                                positive_wood: one row per query of the shard list
    counts: dict[str, int]         # selected_wood, selected_fallback, selected_none, fallback_with_*_grade


def select_positives(shard: JoinedShard, eligible: np.ndarray) -> SelectedPositives:
    """The selected training positive of every query of the shard; `eligible` per agent judgment."""
    agent, official, positives = shard.agent, shard.official, shard.positives
    eligible_rows = np.flatnonzero(eligible)
    wood = pc.fill_null(agent.wood, 0.0).to_numpy(zero_copy_only=False)
    grade = agent.grade_values
    won_by_wood, winners = select_by_wood(agent.query[eligible_rows], wood[eligible_rows], grade[eligible_rows],
                                          agent.rank[eligible_rows])
    source = np.full(shard.n_queries, NO_POSITIVE, np.int8)
    agent_row = np.full(shard.n_queries, -1, np.int64)       # selected by WOOD: its row in shard.agent
    positive_row = np.full(shard.n_queries, -1, np.int64)    # by the fallback: its row in shard.positives
    selected_pair = np.full(shard.n_queries, -1, np.int64)   # -1 matches no pair key
    source[won_by_wood] = BY_WOOD
    agent_row[won_by_wood] = eligible_rows[winners]
    selected_pair[won_by_wood] = agent.pairs.keys[eligible_rows[winners]]

    candidates = np.flatnonzero(source[positives.query] == NO_POSITIVE)
    if len(candidates):
        candidate_grade = take(official.grade, official.pairs.index_of(positives.pairs.keys[candidates]))
        passage_ids = positives.rows.column("passage_id").combine_chunks().take(pa.array(candidates))
        relevance = positives.rows.column("relevance").to_numpy()[candidates]
        won_by_fallback, winners = select_fallback(positives.query[candidates], passage_ids, candidate_grade,
                                                   relevance)
        source[won_by_fallback] = BY_FALLBACK
        positive_row[won_by_fallback] = candidates[winners]
        selected_pair[won_by_fallback] = positives.pairs.keys[candidates[winners]]

    as_agent = agent.pairs.index_of(selected_pair)
    agent_grade, agent_wood = take(agent.grade, as_agent), take(agent.wood, as_agent)
    official_grade = take(official.grade, official.pairs.index_of(selected_pair))
    positive_id = pc.coalesce(take(agent.rows.column("passage_id"), agent_row),
                              take(positives.rows.column("passage_id"), positive_row))
    by_fallback = source == BY_FALLBACK
    counts = {
        "selected_wood": int((source == BY_WOOD).sum()),
        "selected_fallback": int(by_fallback.sum()),
        "selected_none": int((source == NO_POSITIVE).sum()),
        "fallback_with_official_grade": int((by_fallback & pc.is_valid(official_grade).to_numpy(
            zero_copy_only=False)).sum()),
        "fallback_with_agent_grade": int((by_fallback & pc.is_valid(agent_grade).to_numpy(
            zero_copy_only=False)).sum()),
    }
    return SelectedPositives(columns={
        "positive_id": positive_id, "positive_source": SOURCE_NAMES.take(source),
        "positive_agent_grade": agent_grade, "positive_official_grade": official_grade, "positive_wood": agent_wood,
    }, counts=counts)
