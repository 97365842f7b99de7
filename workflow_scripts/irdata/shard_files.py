"""The per-shard files of a Doubting build: where they live and what they hold, declared once.

The LLM stages write them (annotate/), `assemble` reads them (doubting/intermediate.py checks every
rule below), the rules wire them (rules/annotate.smk, rules/package.smk). Per split (`train`, `dev`)
and shard `NNNN` (shards partition the queries; all rows of a query are in its shard; the shard's
query ids are `shards/{split}/{shard}.txt`):

- `agent/{split}/{shard}.parquet`: query_id, passage_id, agent_rank int32 (1-based position in the
  proposal list), cited bool (proposed through ids cited in a reply that broke the tool protocol).
  (query_id, passage_id) and (query_id, agent_rank) are unique. A query without a valid proposal
  has no row.
- `grades/{split}/{shard}.parquet`: query_id, passage_id, origin (`agent`|`official`), grade int8
  (0-3; null: no grade, see failure_kind), grade_path (how the grade was obtained: the LLM layer's
  constraint path; null when failed), grade_probability float32 (the model's probability of the
  grade among the choices, when the backend returns it), failure_kind (null, or the class of the
  failure: `unparseable`, `timeout`, `http_500`, ...), failure (its message). (query_id, passage_id,
  origin) is unique. Rows: exactly one `agent` row per agent proposal; `official` rows for the
  official positives of the shard's queries: on train all of them, on dev those the agent did not
  propose.
- `answers/train/{shard}.parquet`: query_id, answer (not null); at most one row per query, only for
  queries with agent proposals. A query whose answer failed has no row (its failure is in the stats).
- `wood/train/{shard}.parquet`: query_id, passage_id, wood float64 (null: see failure_kind, e.g.
  `non_finite`; no failure_kind means not available: the query has no answer), failure_kind,
  failure; exactly one row per train agent proposal.
- `stats/{rule}/{split}/{shard}.json`: the job's counts and failures (annotate/common.py finish_job).
"""

from __future__ import annotations

import pyarrow as pa

STRING = pa.string()

AGENT_SCHEMA = pa.schema([("query_id", STRING), ("passage_id", STRING), ("agent_rank", pa.int32()),
                   ("cited", pa.bool_())])
GRADES_SCHEMA = pa.schema([("query_id", STRING), ("passage_id", STRING), ("origin", STRING), ("grade", pa.int8()),
                    ("grade_path", STRING), ("grade_probability", pa.float32()), ("failure_kind", STRING),
                    ("failure", STRING)])
ANSWERS_SCHEMA = pa.schema([("query_id", STRING), ("answer", STRING)])
WOOD_SCHEMA = pa.schema([("query_id", STRING), ("passage_id", STRING), ("wood", pa.float64()), ("failure_kind", STRING),
                  ("failure", STRING)])
SCHEMAS = {"agent": AGENT_SCHEMA, "grades": GRADES_SCHEMA, "answers": ANSWERS_SCHEMA, "wood": WOOD_SCHEMA}
# columns that may hold nulls; every other column must not
NULLABLE = {"grade", "grade_path", "grade_probability", "failure_kind", "failure", "wood"}
ORIGINS = ("agent", "official")
# which official positives get their own `official` grade row: the card's rule per split
OFFICIAL_ROWS = {"train": "all", "dev": "not_proposed"}

# the LLM stages and the files of their jobs, relative to the workflow's work folder
LAYOUT = {
    "ids": "shards/{split}/{shard}.txt",
    "agent": "agent/{split}/{shard}.parquet",
    "traces": "traces/{split}/{shard}.jsonl",
    "grades": "grades/{split}/{shard}.parquet",
    "answers": "answers/{split}/{shard}.parquet",
    "wood": "wood/{split}/{shard}.parquet",
    "stats": "stats/{rule}/{split}/{shard}.json",
    # not an output: whether the job's last run left failures a rerun would retry (annotate/common.py)
    "retry": "retry/{rule}/{split}/{shard}.json",
}
# the stage files of each split, and the LLM rule that writes each kind
SPLIT_FILES = {"train": ("agent", "grades", "answers", "wood"), "dev": ("agent", "grades")}
WRITTEN_BY = {"agent": "agent_search", "grades": "grade", "answers": "generate_answer", "wood": "wood"}


def rule_splits(rule: str) -> list[str]:
    """The splits an LLM rule runs on."""
    return [split for split, kinds in SPLIT_FILES.items() if any(WRITTEN_BY[k] == rule for k in kinds)]


def shard_name(i: int) -> str:
    return f"{i:04d}"


def shard_file(work, kind: str, split: str, shard, rule: str | None = None) -> str:
    """The path of one shard's file in a build's folder `work` (work/doubting/<build>, or the pattern with
    {build}); `shard` an int or the name `NNNN` (or a wildcard `{shard}`)."""
    name = shard_name(shard) if isinstance(shard, int) else shard
    return f"{work}/" + LAYOUT[kind].format(split=split, shard=name, rule=rule)


def shard_files(work, kind: str, split: str, n: int, rule: str | None = None) -> list[str]:
    return [shard_file(work, kind, split, i, rule) for i in range(n)]
