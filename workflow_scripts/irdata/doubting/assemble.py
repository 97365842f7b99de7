"""`assemble`: the five parquet configs, the dev TREC qrels (trec/dev.strict.qrels, trec/dev.graded.qrels)
and ids/ from the per-shard files.

Streams shard by shard (memory bounded by a few shards), all columnar. Row order of every output:
shard order (0000, 0001, ...), then the query's position in its shard list (which keeps the order of
ids/train_collection.txt / ids/dev_all.txt), then within a query the agent rows by agent_rank and the
official rows by passage_id. The shard count therefore enters the row order, and a build is
byte-identical for identical inputs and config (whatever `threads`). Also writes stats.json, every
count the card and MANIFEST.json report.

Definitions: a judgment is a graded pair; a pair whose grading call failed (grade null in the
grades file) is not a judgment and is listed as a grading failure. n_agent and agent_row count
the query's agent judgments (graded proposals); n_official counts the query's official positives
in the MS MARCO qrels of the split (relevance >= 1), graded or not; n_judged (dev) all its
judgments; n_strict (dev) its grade-3 judgments, of either origin.

Where the parts are: the output files and schemas, release_files.py; the split-wide inputs,
split_inputs.py; the per-shard formats, intermediate.py; one shard's join, shard_join.py, on the
keys of pair_keys.py; the judgment rows, judgments.py; eligibility and the selected positive,
select.py; the counts, query_stats.py; the streaming writer, release_writer.py.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import atomic_path, write_json_atomic, write_lines_atomic
from ..grade_scale import GRADES, STRICT
from ..json_files import read_json
from ..shard_files import OFFICIAL_ROWS, SPLIT_FILES, shard_file
from ..shards import read_id_list
from ..train_excluded import REASON_HELDOUT
from .acquisition_batches import unbatched
from .judgments import ShardJudgments, qrels_rows, shard_judgments
from .query_stats import SplitStats, grade_counts, per_query
from .release_files import (
    CONFIG_SPLITS,
    DATA_FILES,
    ID_FILES,
    SCHEMAS,
    STATS,
    STRING,
    TREC_GRADED,
    TREC_STRICT,
    assembled_files,
)
from .release_writer import ReleaseWriters, ShardTables, in_shard_order
from .select import select_positives, train_eligible
from .shard_join import JoinedShard, ShardPaths, join_shard, shard_answers
from .split_inputs import Batches, OfficialQrels, read_excluded, read_shard_lists

# the release's files and schemas (declared in release_files.py) and ShardPaths: readers import them from here
__all__ = ["CONFIG_SPLITS", "DATA_FILES", "ID_FILES", "SCHEMAS", "STATS", "TREC_GRADED", "TREC_STRICT", "ShardPaths",
           "assemble", "assembled_files", "shard_paths_for"]

log = logging.getLogger(__name__)



@dataclass
class SplitInputs:
    """What `assemble` reads for one split."""
    name: str                     # train | dev
    ids: list[str]                # ids/train_collection.txt or ids/dev_all.txt, in order
    ids_path: str
    shards: list[ShardPaths]
    qrels: str                    # the split's official MS MARCO qrels
    batches: dict                 # the split's acquisition batches (acquisition_batches.check_batches' record)
    grading: str                  # the grading mode (the judgments' `grading` column)


@dataclass
class QueryColumns:
    """The columns train_queries and dev_queries share, one row per query of the shard list."""
    query_id: pa.Array
    acquisition_batch: pa.Array
    n_agent: np.ndarray
    n_official: np.ndarray


@dataclass
class ShardResult:
    """What one shard contributes: its rows of every config and its statistics."""
    tables: ShardTables
    stats: SplitStats


def _query_columns(shard: JoinedShard, batches: Batches, stats: SplitStats) -> QueryColumns:
    acquisition_batch = batches.assign(shard.query_ids)
    names, counts = np.unique(acquisition_batch.to_numpy(zero_copy_only=False).astype(str), return_counts=True)
    stats.batches.update({str(name): int(count) for name, count in zip(names, counts)})
    queries = QueryColumns(shard.query_ids, acquisition_batch, per_query(shard.agent.query, shard.n_queries),
                           per_query(shard.positives.query, shard.n_queries))
    stats.add_per_query(n_agent=queries.n_agent, n_official=queries.n_official)
    return queries


def _train_tables(shard: JoinedShard, judgments: ShardJudgments, eligible: np.ndarray, queries: QueryColumns,
                  paths: ShardPaths, out: ShardResult) -> None:
    """qrels/train (the eligible judgments), train_queries and generated_answers of one train shard."""
    agent, stats = shard.agent, out.stats
    grade = agent.grade_values
    n_eligible = per_query(agent.query, shard.n_queries, eligible)
    n_eligible_grade3 = per_query(agent.query, shard.n_queries, eligible & (grade == 3))
    stats.add_per_query(n_eligible=n_eligible, n_eligible_grade3=n_eligible_grade3)
    stats.counts.update(wood_null=agent.wood.null_count, wood_failed=shard.wood_failed,
                        grade3_agent=int((grade == 3).sum()))
    out.tables.add("qrels", "train", qrels_rows(judgments, pc.fill_null(judgments.table.column("train_eligible"),
                                                                         False)))
    positives = select_positives(shard, eligible)
    stats.counts.update(positives.counts)
    out.tables.add("train_queries", "train", pa.table({
        "query_id": queries.query_id, "acquisition_batch": queries.acquisition_batch,
        "agent_row": pa.array(queries.n_agent > 0), "n_agent": queries.n_agent, "n_eligible": n_eligible,
        "n_eligible_grade3": n_eligible_grade3, "n_official": queries.n_official, **positives.columns}))
    answers, has_answer = shard_answers(paths, shard.query_ids, shard.proposed)
    out.tables.add("generated_answers", "train", answers)
    stats.counts.update(answers=answers.num_rows,
                        agent_queries_without_answer=int((shard.proposed & ~has_answer).sum()))


def _dev_tables(shard: JoinedShard, judgments: ShardJudgments, queries: QueryColumns, out: ShardResult) -> None:
    """qrels/dev (the strict judgments: grade 3) and dev_queries of one dev shard."""
    strict = judgments.grade == STRICT
    n_judged = per_query(judgments.query, shard.n_queries)
    n_strict = per_query(judgments.query, shard.n_queries, strict)
    out.stats.add_per_query(n_judged=n_judged, n_strict=n_strict)
    out.stats.counts.update(strict_pairs=int(strict.sum()))
    out.tables.add("qrels", "dev", qrels_rows(judgments, pa.array(strict)))
    out.tables.add("dev_queries", "dev", pa.table({
        "query_id": queries.query_id, "acquisition_batch": queries.acquisition_batch,
        "strict_subset": pa.array(n_strict > 0), "n_agent": queries.n_agent, "n_official": queries.n_official,
        "n_judged": n_judged, "n_strict": n_strict}))
    out.stats.strict_ids.append(shard.query_ids.filter(pa.array(n_strict > 0)))


def _assemble_shard(split: SplitInputs, paths: ShardPaths, query_ids: pa.Array, positives: pa.Table,
                    batches: Batches) -> ShardResult:
    """Check one shard's files; its rows of every config and what it adds to the split's statistics."""
    shard = join_shard(split.name, paths, query_ids, positives, OFFICIAL_ROWS[split.name])
    agent, official = shard.agent, shard.official
    out = ShardResult(ShardTables(), SplitStats(max_agent_rank=shard.max_agent_rank, grade_paths=shard.grade_paths,
                                                failures=shard.failures))
    out.stats.counts.update(
        queries_with_proposals=int(shard.proposed.sum()), proposals_ungraded=shard.ungraded_proposals,
        cited_proposals=shard.cited_proposals, agent_pairs=agent.rows.num_rows, official_rows=official.rows.num_rows,
        official_also_proposed=int(agent.pairs.contains(official.pairs.keys).sum()))
    out.stats.agent_grades += grade_counts(agent.grade_values)
    out.stats.official_grades += grade_counts(official.grade_values)
    eligible = None
    if split.name == "train":
        eligible = train_eligible(agent.grade_values, pc.is_valid(agent.wood).to_numpy(zero_copy_only=False))
    judgments = shard_judgments(shard, split.grading, eligible)
    out.tables.add("judgments", split.name, judgments.table)
    queries = _query_columns(shard, batches, out.stats)
    if split.name == "train":
        _train_tables(shard, judgments, eligible, queries, paths, out)
    else:
        _dev_tables(shard, judgments, queries, out)
    return out


def _default_threads() -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(4, cpus)


def _assemble_split(split: SplitInputs, writers: ReleaseWriters, threads: int) -> tuple[dict, list[pa.Array]]:
    """Write the split's shards; return its section of stats.json and its strict query ids (dev)."""
    shard_ids = read_shard_lists(split.name, split.shards, split.ids, split.ids_path)
    official = OfficialQrels(split.qrels, shard_ids)
    batches = Batches.from_record(split.batches)
    stats = SplitStats()
    results = in_shard_order(lambda i: _assemble_shard(split, split.shards[i], shard_ids[i], official.shard(i),
                                                       batches), len(split.shards), threads)
    for i, result in enumerate(results):
        writers.write(result.tables)
        stats.merge(result.stats)
        if (i + 1) % 50 == 0 or i + 1 == len(split.shards):
            log.info("%s: %d/%d shards", split.name, i + 1, len(split.shards))
    section = stats.summary(split.name, len(split.ids), official.table.num_rows)
    section["acquisition_batches"] = {name: stats.batches[name] for name in batches.names}
    section["grading_failures"] = stats.failures
    return section, stats.strict_ids


def _write_trec_qrels(path, parquet) -> dict:
    """`query_id 0 passage_id grade` lines of a parquet file's rows, in its order (a dev pair has one
    judgment: official rows are only those the agent did not propose); return its counts for the card:
    lines, queries with a pair of grade >= 2 (those evaluate.py averages over by default) and, for every
    positive grade g, the queries with a pair of grade >= g (those it averages over at `--min-rel g`)."""
    table = pq.read_table(parquet, columns=["query_id", "passage_id", "grade"])
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for batch in table.to_batches():
                if batch.num_rows:
                    lines = pc.binary_join_element_wise(batch.column("query_id"), "0", batch.column("passage_id"),
                                                        pc.cast(batch.column("grade"), STRING), " ")
                    fh.write("\n".join(lines.to_pylist()) + "\n")
    def queries_at_least(grade: int) -> int:
        return len(pc.unique(table.filter(pc.greater_equal(table.column("grade"), grade)).column("query_id")))

    return {"lines": table.num_rows, "queries_grade2": queries_at_least(2),
            "queries_min_grade": {str(g): queries_at_least(g) for g in GRADES if g > 0}}


def assemble(out_dir, ids: dict, shards: dict[str, list[ShardPaths]], train_qrels, dev_qrels,
             acquisition_batches: dict, grading: dict[str, str], threads: int | None = None) -> dict:
    """Build every assembled file under `out_dir` (see `assembled_files`); return the stats written.
    `acquisition_batches`: each split's batches, as check_acquisition_batches records them.

    The output does not depend on `threads` (default: the CPUs this process may use, at most 4).
    """
    threads = _default_threads() if threads is None else threads
    out_dir = Path(out_dir)
    collection = read_id_list(ids["train_collection"])
    dev_all = read_id_list(ids["dev_all"])
    excluded = read_excluded(ids["train_excluded"])
    stats: dict = {"splits": {}}
    strict_ids: list[pa.Array] = []
    with contextlib.ExitStack() as stack:
        writers = ReleaseWriters(out_dir, stack)
        for split in (SplitInputs("train", collection, ids["train_collection"], shards["train"], train_qrels,
                                  acquisition_batches["train"], grading["train"]),
                      SplitInputs("dev", dev_all, ids["dev_all"], shards["dev"], dev_qrels,
                                  acquisition_batches["dev"], grading["dev"])):
            stats["splits"][split.name], split_strict = _assemble_split(split, writers, threads)
            strict_ids += split_strict
        stats["rows"] = {f"{config}/{split}": n for (config, split), n in writers.rows.items()}
    strict = set(pa.chunked_array(strict_ids, STRING).to_pylist()) if strict_ids else set()
    dev_strict = [q for q in dev_all if q in strict]   # in dev_all order
    write_lines_atomic(out_dir / ID_FILES["dev_strict"], dev_strict)
    for name in ("train_collection", "train_excluded", "dev_all"):
        with atomic_path(out_dir / ID_FILES[name]) as tmp:
            shutil.copyfile(ids[name], tmp)
    # strict (grade 3, from qrels/dev) for MRR and recall; graded (every dev judgment, 0-3) for nDCG
    stats["trec"] = {TREC_STRICT: _write_trec_qrels(out_dir / TREC_STRICT, out_dir / DATA_FILES[("qrels", "dev")]),
                     TREC_GRADED: _write_trec_qrels(out_dir / TREC_GRADED, out_dir / DATA_FILES[("judgments", "dev")])}
    train = stats["splits"]["train"]
    train["excluded"] = dict(sorted(Counter(row[1] for row in excluded).items()))
    # the held-out queries that excluded train queries, by source (config key, file), in ids/train_excluded.tsv's order
    by_source = Counter((key, file) for _, reason, _, key, file in excluded if reason == REASON_HELDOUT)
    train["heldout_sources"] = [{"key": key, "file": file, "queries": n} for (key, file), n in by_source.items()]
    train["assigned"] = len(collection) + len(excluded)
    stats["ids"] = {"train_collection": len(collection), "train_excluded": len(excluded), "dev_all": len(dev_all),
                    "dev_strict": len(dev_strict)}
    write_json_atomic(out_dir / STATS, stats)
    return stats


def shard_paths_for(work: str, split: str, n_shards: int) -> list[ShardPaths]:
    """The per-shard files of a split (irdata/shard_files.py's layout), in shard order."""
    kinds = SPLIT_FILES[split]
    return [ShardPaths(ids=shard_file(work, "ids", split, i), agent=shard_file(work, "agent", split, i),
                       grades=shard_file(work, "grades", split, i),
                       answers=shard_file(work, "answers", split, i) if "answers" in kinds else None,
                       wood=shard_file(work, "wood", split, i) if "wood" in kinds else None)
            for i in range(n_shards)]


def run_assemble(*, train_collection, train_excluded, dev_all, train_ids, train_agent, train_grades, train_answers,
                 train_wood, dev_ids, dev_agent, dev_grades, train_qrels, dev_qrels, assembled, settings: dict, out_dir,
                 acquisition_batches=None) -> dict:
    """The assemble rule: the release's files under `out_dir` (the folder of `assembled`) from the per-shard
    files, listed in shard order (`acquisition_batches`: check_acquisition_batches' record, for a build whose
    splits list batches)."""
    shards = {"train": [ShardPaths(*p) for p in zip(train_ids, train_agent, train_grades, train_answers, train_wood)],
              "dev": [ShardPaths(*p) for p in zip(dev_ids, dev_agent, dev_grades)]}
    ids = {"train_collection": train_collection, "train_excluded": train_excluded, "dev_all": dev_all}
    batches = read_json(acquisition_batches) if acquisition_batches else unbatched(settings["acquisition_batches"])
    return assemble(out_dir, ids, shards, train_qrels, dev_qrels, batches, dict(settings["grading"]))
