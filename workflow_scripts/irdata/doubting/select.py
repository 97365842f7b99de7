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
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SOURCE_WOOD = "wood"
SOURCE_FALLBACK = "official_fallback"


def train_eligible(grade: np.ndarray, wood_valid: np.ndarray) -> np.ndarray:
    """grade 2-3 and finite WOOD (wood_valid is False where wood is null)."""
    return (grade >= 2) & wood_valid


def first_per_group(sorted_groups: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values in an already sorted array."""
    mask = np.ones(len(sorted_groups), dtype=bool)
    mask[1:] = sorted_groups[1:] != sorted_groups[:-1]
    return mask


def select_by_wood(qpos: np.ndarray, wood: np.ndarray, grade: np.ndarray,
                   rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Among eligible rows (all rows passed in are eligible), the winner per query.

    Returns (queries, row indices into the passed arrays), queries ascending.
    """
    if len(qpos) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.lexsort((rank, -grade.astype(np.int64), -wood, qpos))
    first = first_per_group(qpos[order])
    rows = order[first]
    return qpos[rows], rows


def select_fallback(qpos: np.ndarray, passage_id: pa.Array, official_grade: pa.Array,
                    relevance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Winner per query among its official positives (rule 2 of the module doc).

    official_grade: int8 with nulls (grading failed). Returns (queries, row indices) ascending.
    """
    if len(qpos) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    table = pa.table({
        "q": pa.array(qpos, pa.int64()),
        "g": pc.fill_null(pc.cast(official_grade, pa.int64()), -1),
        "r": pa.array(relevance, pa.int64()),
        "p": passage_id,
        "i": pa.array(np.arange(len(qpos)), pa.int64()),
    })
    table = table.sort_by([("q", "ascending"), ("g", "descending"), ("r", "descending"), ("p", "ascending")])
    q = table.column("q").to_numpy()
    first = first_per_group(q)
    return q[first], table.column("i").to_numpy()[first]
