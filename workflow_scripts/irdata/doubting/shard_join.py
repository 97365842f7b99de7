"""One shard's stage files joined on (query, passage): every agent proposal with its grade row and
its WOOD row, every official grade row with the official positive it grades.

Reads and checks the agent, grades and (train) WOOD files (intermediate.py), then checks the rows
against each other: exactly one `agent` grade row per proposal, one WOOD row per proposal, and one
`official` grade row per official positive of the shard's queries, either for all of them
(`official_rows="all"`, train) or for those the agent did not propose (`"not_proposed"`, dev).
A pair is an int64 key: the query's position in the shard list times the number of distinct passage
ids of the shard, plus the passage id's code in one dictionary shared by all the shard's tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from . import intermediate as im
from .pair_keys import SortedKeys, check_same_pairs, pair_codes
from .release_files import FLOAT64


@dataclass
class ShardPaths:
    """The stage files of one shard (irdata/shard_files.py's layout)."""
    ids: str
    agent: str
    grades: str
    answers: str | None = None   # train only
    wood: str | None = None      # train only


@dataclass
class AgentJudgments:
    """The shard's graded agent proposals (agent rows of `judgments`), in the agent file's order."""
    rows: pa.Table         # the agent file's rows: query_id, passage_id, agent_rank, cited
    query: np.ndarray      # position of the row's query in the shard list
    pairs: SortedKeys      # pair keys (module doc); pairs.rows: the rows in the agent file
    grade: pa.Array        # int8, 0-3
    wood: pa.Array         # float64; null when failed or not finite, and on dev (no WOOD file)
    rank: np.ndarray       # agent_rank, int64

    @cached_property
    def grade_values(self) -> np.ndarray:
        return self.grade.to_numpy(zero_copy_only=False).astype(np.int64)


@dataclass
class OfficialJudgments:
    """The shard's graded `official` grade rows (official rows of `judgments`), in the grades file's order."""
    rows: pa.Table         # the grade rows: query_id, passage_id, origin, grade, ...
    query: np.ndarray
    pairs: SortedKeys      # pairs.rows: the rows in the grades file
    grade: pa.Array        # int8, 0-3

    @cached_property
    def grade_values(self) -> np.ndarray:
        return self.grade.to_numpy(zero_copy_only=False).astype(np.int64)


@dataclass
class OfficialPositives:
    """The official positives of the shard's queries (qrels relevance >= 1), graded or not."""
    rows: pa.Table         # qrels rows: query_id, iteration, passage_id, relevance
    query: np.ndarray
    pairs: SortedKeys      # one per row


@dataclass
class JoinedShard:
    query_ids: pa.Array              # the shard list
    agent: AgentJudgments
    official: OfficialJudgments
    positives: OfficialPositives
    proposed: np.ndarray             # per query of the shard list: has an agent proposal, graded or not
    max_agent_rank: int
    ungraded_proposals: int          # proposals whose grading call failed (not judgments)
    wood_failed: int                 # graded proposals whose WOOD call failed
    cited_proposals: int
    grade_paths: dict[str, int]      # grade rows by grade_path
    failures: list[dict] = field(default_factory=list)   # the grading failures, agent then official

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)


def _column(table: pa.Table, name: str) -> pa.Array:
    column = table.column(name)
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _rows_where(table: pa.Table, mask: np.ndarray) -> pa.Table:
    return table if mask.all() else table.filter(pa.array(mask))


def _values_where(values: pa.Array, mask: np.ndarray) -> pa.Array:
    return values if mask.all() else values.filter(pa.array(mask))


def grading_failures(split: str, origin: str, grades: pa.Table, rows: np.ndarray) -> list[dict]:
    """One record per failed grade row (`rows` of the grades file), in the order of `rows`."""
    if not len(rows):
        return []
    failed = grades.take(pa.array(rows, pa.int64())).select(["query_id", "passage_id", "failure_kind", "failure"])
    return [{"split": split, "origin": origin, "query_id": r["query_id"], "passage_id": r["passage_id"],
             "kind": r["failure_kind"] or "unknown", "failure": r["failure"] or "unknown"} for r in failed.to_pylist()]


def join_shard(split: str, paths: ShardPaths, query_ids: pa.Array, positives: pa.Table,
               official_rows: str) -> JoinedShard:
    """Read, check and join one shard's files (module doc); `positives`: the shard's official positives."""
    positive_query = im.query_positions("official qrels", positives, query_ids)
    agent, agent_query = im.read_agent(paths.agent, query_ids)
    grades, grade_query = im.read_grades(paths.grades, query_ids)
    wood, wood_query = im.read_wood(paths.wood, query_ids) if paths.wood else (None, None)

    tables = [agent, grades, positives] + ([wood] if wood is not None else [])
    codes, n_codes = pair_codes(*(t.column("passage_id") for t in tables))
    agent_pairs = SortedKeys(agent_query * n_codes + codes[0])
    agent_pairs.check_unique(paths.agent, agent, ("query_id", "passage_id"))
    # a pair may have an agent and an official grade row: unique within each origin
    grade_pairs = SortedKeys(grade_query * n_codes + codes[1])
    is_agent = pc.equal(grades.column("origin"), "agent").to_numpy(zero_copy_only=False)
    agent_grade_pairs, official_grade_pairs = grade_pairs.subset(is_agent), grade_pairs.subset(~is_agent)
    for origin_pairs in (agent_grade_pairs, official_grade_pairs):
        origin_pairs.check_unique(paths.grades, grades, ("query_id", "passage_id", "origin"))
    check_same_pairs(paths.grades, "origin", agent_grade_pairs, grades, agent_pairs, agent,
                     "an origin=agent grade row", f"an agent proposal of {paths.agent}")
    positive_pairs = SortedKeys(positive_query * n_codes + codes[2])
    if official_rows == "all":
        graded_positives = positive_pairs
        what = f"an official positive of the {split} qrels"
    else:
        graded_positives = positive_pairs.subset(~agent_pairs.contains(positive_pairs.keys))
        what = f"an official positive of the {split} qrels that the agent did not propose"
    check_same_pairs(paths.grades, "origin", official_grade_pairs, grades, graded_positives, positives,
                     "an origin=official grade row", what)

    grade_column = grades.column("grade")
    agent_grade_rows = agent_grade_pairs.table_rows(agent_grade_pairs.matching(agent_pairs))   # per proposal
    agent_grade = grade_column.take(agent_grade_rows).combine_chunks()
    graded = pc.is_valid(agent_grade).to_numpy(zero_copy_only=False)
    official_grade_rows = official_grade_pairs.rows    # in the grades file's order
    official_graded = pc.is_valid(grade_column.take(official_grade_rows)).to_numpy(zero_copy_only=False)
    failures = (grading_failures(split, "agent", grades, agent_grade_rows[~graded])
                + grading_failures(split, "official", grades, official_grade_rows[~official_graded]))
    grade_paths = {entry["values"]: entry["counts"]
                   for entry in pc.value_counts(grades.column("grade_path").drop_null()).to_pylist()}

    if wood is not None:
        wood_pairs = SortedKeys(wood_query * n_codes + codes[3])
        wood_pairs.check_unique(paths.wood, wood, ("query_id", "passage_id"))
        check_same_pairs(paths.wood, "passage_id", wood_pairs, wood, agent_pairs, agent, "a WOOD row",
                         f"an agent proposal of {paths.agent}")
        wood_rows = wood_pairs.matching(agent_pairs)   # per proposal
        agent_wood = wood.column("wood").take(wood_rows).combine_chunks()
        wood_failed = pc.is_valid(wood.column("failure_kind").take(wood_rows)).to_numpy(zero_copy_only=False)
    else:
        agent_wood = pa.nulls(len(agent_pairs), FLOAT64)
        wood_failed = np.zeros(len(agent_pairs), bool)

    rank = agent.column("agent_rank").to_numpy()
    proposed = np.zeros(len(query_ids), bool)
    proposed[agent_query] = True
    # judgments: the graded rows only
    official_judged = grades.take(pa.array(official_grade_rows[official_graded], pa.int64()))
    return JoinedShard(
        query_ids=query_ids,
        agent=AgentJudgments(rows=_rows_where(agent, graded), query=agent_query[graded],
                             pairs=agent_pairs.subset(graded), grade=_values_where(agent_grade, graded),
                             wood=_values_where(agent_wood, graded), rank=rank[graded].astype(np.int64)),
        official=OfficialJudgments(rows=official_judged, query=grade_query[official_grade_rows[official_graded]],
                                   pairs=official_grade_pairs.subset(official_graded),
                                   grade=_column(official_judged, "grade")),
        positives=OfficialPositives(rows=positives, query=positive_query, pairs=positive_pairs),
        proposed=proposed, max_agent_rank=int(rank.max(initial=0)), ungraded_proposals=int((~graded).sum()),
        wood_failed=int(wood_failed[graded].sum()), cited_proposals=int(pc.sum(agent.column("cited")).as_py() or 0),
        grade_paths=grade_paths, failures=failures)


def shard_answers(paths: ShardPaths, query_ids: pa.Array, proposed: np.ndarray) -> tuple[pa.Table, np.ndarray]:
    """The shard's generated answers in shard-list order (only queries with proposals may have one),
    and per query whether it has one."""
    answers, query = im.read_answers(paths.answers, query_ids)
    unproposed = ~proposed[query]
    if unproposed.any():
        row = int(np.flatnonzero(unproposed)[0])
        raise InputError(paths.answers, f"answer for query {answers.column('query_id')[row].as_py()!r} (row "
                         f"{row}), which has no agent proposal in {paths.agent}", field="query_id")
    has_answer = np.zeros(len(query_ids), bool)
    has_answer[query] = True
    return answers.take(pa.array(np.argsort(query, kind="stable"))), has_answer
