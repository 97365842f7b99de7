"""`assemble`: the five parquet configs, trec/dev.strict.qrels and ids/ from the per-shard files.

Streams shard by shard (memory bounded by the largest shard), all columnar. Row order of every
output: shard order (0000, 0001, ...), then the query's position in its shard list (which keeps
the order of ids/train_collection.txt / ids/dev_all.txt), then within a query the agent rows by
agent_rank and the official rows by passage_id. The shard count therefore enters the row order,
and a build is byte-identical for identical inputs and config. Formats read: intermediate.py;
selection rules: select.py. Also writes stats.json, every count the card and MANIFEST.json report.

Definitions: a judgment is a graded pair; a pair whose grading call failed (grade null in the
grades file) is not a judgment and is listed as a grading failure. n_agent and agent_row count
the query's agent judgments (graded proposals); n_official counts the query's official positives
in the MS MARCO qrels of the split (relevance >= 1), graded or not; n_judged (dev) all its
judgments; n_strict (dev) its grade-3 judgments, of either origin.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..atomic import atomic_path, write_lines_atomic, write_text_atomic
from ..errors import InputError
from ..shard_files import SPLIT_FILES, shard_file
from ..shards import read_id_list
from ..tsv import read_trec_qrels
from . import intermediate as im
from .release_files import (
    BOOL,
    CONFIG_SPLITS,
    DATA_FILES,
    FLOAT64,
    ID_FILES,
    INT32,
    PARQUET_OPTIONS,
    SCHEMAS,
    STATS,
    STRING,
    TREC_STRICT,
    assembled_files,
)
from .select import SOURCE_FALLBACK, SOURCE_WOOD, select_by_wood, select_fallback, train_eligible

# the release's files and schemas, declared in release_files.py; readers import them from here
__all__ = ["CONFIG_SPLITS", "DATA_FILES", "ID_FILES", "SCHEMAS", "STATS", "TREC_STRICT", "ShardPaths", "assemble",
           "assembled_files", "shard_paths_for"]

log = logging.getLogger(__name__)

@dataclass
class ShardPaths:
    ids: str
    agent: str
    grades: str
    answers: str | None = None   # train only
    wood: str | None = None      # train only


@dataclass
class Batches:
    """Acquisition batches of one split: a query's batch is the batch whose id file lists it, else `default`."""
    default: str
    batches: list[tuple[str, pa.Array]] = field(default_factory=list)

    @classmethod
    def from_config(cls, conf: dict, split: str) -> "Batches":
        out, seen = [], {}
        for batch in conf.get("batches", []):
            ids = read_id_list(batch["query_ids_file"])
            for qid in ids:
                if qid in seen:
                    raise InputError(batch["query_ids_file"], f"query {qid!r} is also in acquisition batch "
                                     f"{seen[qid]!r}; a query belongs to one batch", field="query_id")
                seen[qid] = batch["name"]
            out.append((batch["name"], pa.array(ids, STRING)))
        return cls(conf["default"], out)

    def assign(self, shard_ids: pa.Array) -> pa.Array:
        names = np.full(len(shard_ids), self.default, dtype=object)
        for name, ids in self.batches:
            names[pc.is_in(shard_ids, value_set=ids).to_numpy(zero_copy_only=False)] = name
        return pa.array(names, STRING)


class _Writers:
    """One streaming ParquetWriter per (config, split), created up front so every file exists."""

    def __init__(self, out_dir: Path, stack):
        self.writers, self.counts = {}, {}
        for cs, rel in DATA_FILES.items():
            tmp = stack.enter_context(atomic_path(out_dir / rel))
            self.writers[cs] = stack.enter_context(pq.ParquetWriter(tmp, SCHEMAS[cs[0]], **PARQUET_OPTIONS))
            self.counts[cs] = 0

    def write(self, config: str, split: str, table: pa.Table) -> None:
        if table.num_rows:
            self.writers[(config, split)].write_table(table.cast(SCHEMAS[config]), row_group_size=1 << 20)
            self.counts[(config, split)] += table.num_rows


def _a(x) -> pa.Array:
    """A plain Array from an Array or ChunkedArray."""
    return x.combine_chunks() if isinstance(x, pa.ChunkedArray) else x


def _null(n: int, type_) -> pa.Array:
    return pa.nulls(n, type_)


def _bincount(qpos: np.ndarray, n: int, mask: np.ndarray | None = None) -> np.ndarray:
    return np.bincount(qpos if mask is None else qpos[mask], minlength=n).astype(np.int32)


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if len(values) else 0.0


def _hist(grades: np.ndarray) -> dict:
    return {str(g): int((grades == g).sum()) for g in range(4)}


class OfficialQrels:
    """Official positives (relevance >= 1) of one split, grouped by shard."""

    def __init__(self, path, shard_ids: list[pa.Array]):
        table = read_trec_qrels(path)
        table = table.filter(pc.greater_equal(table.column("relevance"), 1))
        all_ids = pa.chunked_array(shard_ids, STRING).combine_chunks() if shard_ids else pa.array([], STRING)
        shard_of_id = np.concatenate([np.full(len(a), i) for i, a in enumerate(shard_ids)] + [np.zeros(0, int)])
        pos = pc.index_in(table.column("query_id"), value_set=all_ids)
        # positives of queries outside the split (excluded or not sampled) are not used
        keep = pc.is_valid(pos)
        table, pos = table.filter(keep), pos.filter(keep).to_numpy(zero_copy_only=False)
        shard = shard_of_id[pos] if len(pos) else np.zeros(0, int)
        order = np.argsort(shard, kind="stable")
        self.table = table.take(pa.array(order, pa.int64()))
        self.bounds = np.searchsorted(shard[order], np.arange(len(shard_ids) + 1))

    def shard(self, i: int) -> pa.Table:
        return self.table.slice(self.bounds[i], self.bounds[i + 1] - self.bounds[i])


def _check_partition(split: str, shard_ids: list[pa.Array], shard_paths: list[ShardPaths], all_ids: list[str],
                     all_path):
    """The shard lists partition the split's ids: one membership test over all shards at once."""
    total = sum(len(a) for a in shard_ids)
    listed = pa.chunked_array(shard_ids, STRING).combine_chunks() if shard_ids else pa.array([], STRING)
    if pc.count_distinct(listed).as_py() != total:
        raise InputError(shard_paths[0].ids, f"the {split} shard lists overlap; shards must partition the queries")
    outside = pc.invert(pc.is_in(listed, value_set=pa.array(all_ids, STRING)))
    if pc.any(outside).as_py():
        row = pc.index(outside, True).as_py()
        shard = int(np.searchsorted(np.cumsum([len(a) for a in shard_ids]), row, side="right"))
        raise InputError(shard_paths[shard].ids, f"query {listed[row].as_py()!r} is not in {all_path}",
                         field="query_id")
    if total != len(all_ids):
        raise InputError(all_path, f"{len(all_ids) - total} query id(s) are in no {split} shard list; "
                         "rerun shard_queries")


def _failures(split, origin, table: pa.Table, grade, kind, failure) -> list[dict]:
    failed = pc.is_null(grade)
    if not pc.any(failed).as_py():
        return []
    q = table.column("query_id").filter(failed).to_pylist()
    p = table.column("passage_id").filter(failed).to_pylist()
    k = _a(kind).filter(failed).to_pylist()
    f = _a(failure).filter(failed).to_pylist()
    return [{"split": split, "origin": origin, "query_id": a, "passage_id": b, "kind": c or "unknown",
             "failure": d or "unknown"} for a, b, c, d in zip(q, p, k, f)]


class _SplitStats:
    def __init__(self):
        self.per_query = {k: [] for k in ("n_agent", "n_eligible", "n_eligible_grade3", "n_official", "n_judged",
                                          "n_strict")}
        self.agent_grades = np.zeros(4, np.int64)
        self.official_grades = np.zeros(4, np.int64)
        self.c = dict(agent_pairs=0, official_rows=0, official_also_proposed=0, wood_null=0, grade3_agent=0,
                      max_agent_rank=0, proposals_ungraded=0, queries_with_proposals=0, answers=0,
                      agent_queries_without_answer=0, selected_wood=0, selected_fallback=0, selected_none=0,
                      fallback_with_official_grade=0, fallback_with_agent_grade=0, strict_pairs=0,
                      cited_proposals=0, wood_failed=0)
        self.batches: dict[str, int] = {}
        self.grade_paths: dict[str, int] = {}
        self.failures: list[dict] = []
        self.strict_ids: list[pa.Array] = []

    def merge(self, other: "_SplitStats") -> None:
        for k, v in other.per_query.items():
            self.per_query[k] += v
        self.agent_grades += other.agent_grades
        self.official_grades += other.official_grades
        for k, v in other.c.items():
            self.c[k] = max(self.c[k], v) if k == "max_agent_rank" else self.c[k] + v
        for k, v in other.batches.items():
            self.batches[k] = self.batches.get(k, 0) + v
        for k, v in other.grade_paths.items():
            self.grade_paths[k] = self.grade_paths.get(k, 0) + v
        self.failures += other.failures
        self.strict_ids += other.strict_ids


class _Output(list):
    """The tables one shard contributes, in order: (config, split, table)."""

    def write(self, config: str, split: str, table: pa.Table) -> None:
        self.append((config, split, table))


def _process_shard(split, grading: str, paths: ShardPaths, shard_ids, official: pa.Table, batches: Batches,
                   writers: _Output, st: _SplitStats):
    """Validate one shard's files, write its rows of every config, add to the split's statistics."""
    nq = len(shard_ids)
    o_qpos = im.query_positions("official qrels", official, shard_ids)
    agent, a_qpos = im.read_agent(paths.agent, shard_ids)
    grades, g_qpos = im.read_grades(paths.grades, shard_ids)
    wood = None
    if split == "train":
        wood, w_qpos = im.read_wood(paths.wood, shard_ids)
    # one dictionary of the shard's passage ids turns every pair into an int64 key
    tables = [agent, grades, official] + ([wood] if wood is not None else [])
    codes, n_codes = im.pair_codes(*(t.column("passage_id") for t in tables))
    a_key, g_key, o_key = (q * n_codes + c for q, c in zip((a_qpos, g_qpos, o_qpos), codes[:3]))
    im.check_unique(paths.agent, a_key, agent, ("query_id", "passage_id"))
    is_agent = pc.equal(grades.column("origin"), "agent").to_numpy(zero_copy_only=False)
    im.check_unique(paths.grades, g_key * 2 + ~is_agent, grades, ("query_id", "passage_id", "origin"))
    g_agent, g_off = grades.filter(pa.array(is_agent)), grades.filter(pa.array(~is_agent))
    ga_key, go_key = g_key[is_agent], g_key[~is_agent]
    im.check_same_pairs(paths.grades, "origin", ga_key, g_agent, a_key, agent, "an origin=agent grade row",
                        f"an agent proposal of {paths.agent}")
    if split == "train":
        expected = np.ones(len(o_key), bool)
        what = "an official positive of the train qrels"
    else:
        expected = ~im.isin(o_key, a_key)
        what = "an official positive of the dev qrels that the agent did not propose"
    im.check_same_pairs(paths.grades, "origin", go_key, g_off, o_key[expected], official.filter(pa.array(expected)),
                        "an origin=official grade row", what)
    gi = im.lookup(a_key, ga_key)
    a_grade = im.take(g_agent.column("grade"), gi)
    st.failures += _failures(split, "agent", agent, a_grade, im.take(g_agent.column("failure_kind"), gi),
                             im.take(g_agent.column("failure"), gi))
    st.failures += _failures(split, "official", g_off, g_off.column("grade"), g_off.column("failure_kind"),
                             g_off.column("failure"))
    st.c["cited_proposals"] += int(pc.sum(agent.column("cited")).as_py() or 0)
    for entry in pc.value_counts(grades.column("grade_path").drop_null()).to_pylist():
        st.grade_paths[entry["values"]] = st.grade_paths.get(entry["values"], 0) + entry["counts"]
    if wood is not None:
        w_key = w_qpos * n_codes + codes[3]
        im.check_unique(paths.wood, w_key, wood, ("query_id", "passage_id"))
        im.check_same_pairs(paths.wood, "passage_id", w_key, wood, a_key, agent, "a WOOD row",
                            f"an agent proposal of {paths.agent}")
        w_rows = im.lookup(a_key, w_key)
        a_wood = im.take(wood.column("wood"), w_rows)
        a_wood_failed = pc.is_valid(im.take(wood.column("failure_kind"), w_rows)).to_numpy(zero_copy_only=False)
    else:
        a_wood = _null(len(a_key), FLOAT64)
    rank_all = agent.column("agent_rank").to_numpy()
    st.c["max_agent_rank"] = max(st.c["max_agent_rank"], int(rank_all.max(initial=0)))
    proposed = np.zeros(nq, bool)
    proposed[a_qpos] = True
    st.c["queries_with_proposals"] += int(proposed.sum())

    # agent judgment rows: graded proposals only
    gm = pc.is_valid(a_grade).to_numpy(zero_copy_only=False)
    st.c["proposals_ungraded"] += int((~gm).sum())
    gm_arr = pa.array(gm)
    ag = agent.filter(gm_arr)
    ag_qpos, ag_key = a_qpos[gm], a_key[gm]
    ag_grade, ag_wood = a_grade.filter(gm_arr), a_wood.filter(gm_arr)
    g = ag_grade.to_numpy(zero_copy_only=False).astype(np.int64)
    ag_rank = rank_all[gm].astype(np.int64)
    if split == "train":
        wood_valid = pc.is_valid(ag_wood).to_numpy(zero_copy_only=False)
        elig = train_eligible(g, wood_valid)
        elig_arr = pa.array(elig, BOOL)
    else:
        elig = np.zeros(len(g), bool)
        elig_arr = _null(len(g), BOOL)

    # official judgment rows: graded official rows
    om = pc.is_valid(g_off.column("grade")).to_numpy(zero_copy_only=False)
    of = g_off.filter(pa.array(om))
    of_qpos, of_key = g_qpos[~is_agent][om], go_key[om]
    of_grade = _a(of.column("grade"))

    n_a, n_o = ag.num_rows, of.num_rows
    judg = pa.table({
        "query_id": pa.concat_arrays([_a(ag.column("query_id")), _a(of.column("query_id"))]),
        "passage_id": pa.concat_arrays([_a(ag.column("passage_id")), _a(of.column("passage_id"))]),
        "origin": pa.concat_arrays([pa.repeat("agent", n_a).cast(STRING), pa.repeat("official", n_o).cast(STRING)]),
        "grade": pa.concat_arrays([ag_grade, of_grade]),
        "grading": pa.repeat(grading, n_a + n_o).cast(STRING),
        "agent_rank": pa.concat_arrays([_a(ag.column("agent_rank")), _null(n_o, INT32)]),
        "wood": pa.concat_arrays([ag_wood, _null(n_o, FLOAT64)]),
        "train_eligible": pa.concat_arrays([elig_arr, _null(n_o, BOOL)]),
        "official_positive": pa.array(np.r_[im.isin(ag_key, o_key), np.ones(n_o, bool)], BOOL),
    })
    # order: query position, agent rows by rank, then official rows by passage_id
    off_order = np.empty(n_o, np.int64)
    off_order[pc.sort_indices(of.column("passage_id")).to_numpy()] = np.arange(n_o)
    jq = np.r_[ag_qpos, of_qpos]
    order = np.lexsort((np.r_[ag_rank, off_order], np.r_[np.zeros(n_a, np.int8), np.ones(n_o, np.int8)], jq))
    judg = judg.take(pa.array(order, pa.int64()))
    jq = jq[order]
    jg = np.r_[g, of_grade.to_numpy(zero_copy_only=False).astype(np.int64)][order]
    writers.write("judgments", split, judg)

    st.c["agent_pairs"] += n_a
    st.c["official_rows"] += n_o
    st.agent_grades += np.bincount(g, minlength=4)[:4]
    st.official_grades += np.bincount(of_grade.to_numpy(zero_copy_only=False).astype(np.int64), minlength=4)[:4]
    st.c["official_also_proposed"] += int(im.isin(of_key, ag_key).sum())
    n_agent = _bincount(ag_qpos, nq)
    n_official = _bincount(o_qpos, nq)
    batch_names = batches.assign(shard_ids)
    for name, count in zip(*np.unique(batch_names.to_numpy(zero_copy_only=False).astype(str), return_counts=True)):
        st.batches[str(name)] = st.batches.get(str(name), 0) + int(count)
    st.per_query["n_agent"].append(n_agent)
    st.per_query["n_official"].append(n_official)

    if split == "train":
        st.c["wood_null"] += int((~wood_valid).sum())
        st.c["wood_failed"] += int(a_wood_failed[gm].sum())
        st.c["grade3_agent"] += int((g == 3).sum())
        n_elig = _bincount(ag_qpos, nq, elig)
        n_elig3 = _bincount(ag_qpos, nq, elig & (g == 3))
        st.per_query["n_eligible"].append(n_elig)
        st.per_query["n_eligible_grade3"].append(n_elig3)
        is_elig = pc.fill_null(judg.column("train_eligible"), False)
        writers.write("qrels", "train", judg.filter(is_elig).select(["query_id", "passage_id", "grade"]))
        _select_and_write(shard_ids, nq, ag, ag_qpos, ag_key, ag_grade, ag_wood, g, ag_rank, elig, official, o_qpos,
                          o_key, of_key, of_grade, n_agent, n_elig, n_elig3, n_official, batch_names, writers, st)
        answers, ans_qpos = im.read_answers(paths.answers, shard_ids)
        bad = ~proposed[ans_qpos]
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(paths.answers, f"answer for query {answers.column('query_id')[row].as_py()!r} (row "
                             f"{row}), which has no agent proposal in {paths.agent}", field="query_id")
        writers.write("generated_answers", "train", answers.take(pa.array(np.argsort(ans_qpos, kind="stable"))))
        st.c["answers"] += answers.num_rows
        has_answer = np.zeros(nq, bool)
        has_answer[ans_qpos] = True
        st.c["agent_queries_without_answer"] += int((proposed & ~has_answer).sum())
    else:
        strict = jg == 3
        n_judged = _bincount(jq, nq)
        n_strict = _bincount(jq, nq, strict)
        st.per_query["n_judged"].append(n_judged)
        st.per_query["n_strict"].append(n_strict)
        st.c["strict_pairs"] += int(strict.sum())
        writers.write("qrels", "dev", judg.filter(pa.array(strict)).select(["query_id", "passage_id", "grade"]))
        writers.write("dev_queries", "dev", pa.table({
            "query_id": shard_ids, "acquisition_batch": batch_names, "strict_subset": pa.array(n_strict > 0),
            "n_agent": n_agent, "n_official": n_official, "n_judged": n_judged, "n_strict": n_strict}))
        st.strict_ids.append(shard_ids.filter(pa.array(n_strict > 0)))


def _select_and_write(shard_ids, nq, ag, ag_qpos, ag_key, ag_grade, ag_wood, g, ag_rank, elig, official, o_qpos,
                      o_key, of_key, of_grade, n_agent, n_elig, n_elig3, n_official, batch_names, writers, st):
    """The selected training positive of every query of the shard (rules in select.py)."""
    e_idx = np.flatnonzero(elig)
    wood_np = pc.fill_null(ag_wood, 0.0).to_numpy(zero_copy_only=False)
    q_w, rows_w = select_by_wood(ag_qpos[e_idx], wood_np[e_idx], g[e_idx], ag_rank[e_idx])
    sel_row = np.full(nq, -1, np.int64)       # row in `ag` (wood) or in `official` (fallback)
    source = np.zeros(nq, np.int8)            # 0 none, 1 wood, 2 fallback
    sel_row[q_w], source[q_w] = e_idx[rows_w], 1
    sel_key = np.full(nq, -1, np.int64)
    sel_key[q_w] = ag_key[e_idx[rows_w]]
    cand = source[o_qpos] == 0
    if cand.any():
        c_idx = np.flatnonzero(cand)
        c_grade = im.take(of_grade, im.lookup(o_key[c_idx], of_key))
        q_f, rows_f = select_fallback(o_qpos[c_idx], _a(official.column("passage_id")).take(pa.array(c_idx)),
                                      c_grade, official.column("relevance").to_numpy()[c_idx])
        sel_row[q_f], source[q_f] = c_idx[rows_f], 2
        sel_key[q_f] = o_key[c_idx[rows_f]]
    wood_rows = np.where(source == 1, sel_row, -1)
    fb_rows = np.where(source == 2, sel_row, -1)
    positive = pc.coalesce(im.take(ag.column("passage_id"), wood_rows), im.take(official.column("passage_id"), fb_rows))
    no_key = np.where(source == 0, -2, sel_key)   # never matches a key
    pos_agent_grade = im.take(ag_grade, im.lookup(no_key, ag_key))
    pos_wood = im.take(ag_wood, im.lookup(no_key, ag_key))
    pos_off_grade = im.take(of_grade, im.lookup(no_key, of_key))
    names = np.array([None, SOURCE_WOOD, SOURCE_FALLBACK], dtype=object)
    st.c["selected_wood"] += int((source == 1).sum())
    st.c["selected_fallback"] += int((source == 2).sum())
    st.c["selected_none"] += int((source == 0).sum())
    is_fb = source == 2
    for key, values in (("fallback_with_official_grade", pos_off_grade),
                        ("fallback_with_agent_grade", pos_agent_grade)):
        st.c[key] += int((is_fb & pc.is_valid(values).to_numpy(zero_copy_only=False)).sum())
    writers.write("train_queries", "train", pa.table({
        "query_id": shard_ids, "acquisition_batch": batch_names, "agent_row": pa.array(n_agent > 0),
        "n_agent": n_agent, "n_eligible": n_elig, "n_eligible_grade3": n_elig3, "n_official": n_official,
        "positive_id": positive, "positive_source": pa.array(names[source].tolist(), STRING),
        "positive_agent_grade": pos_agent_grade, "positive_official_grade": pos_off_grade, "positive_wood": pos_wood}))


def _read_excluded(path) -> list[list[str]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split("\t") != ["query_id", "reason", "duplicate_of"]:
        raise InputError(path, "header must be query_id<TAB>reason<TAB>duplicate_of", line=1)
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        parts = line.split("\t")
        if len(parts) != 3 or not all(parts):
            raise InputError(path, "expected 3 non-empty tab-separated fields", line=number)
        rows.append(parts)
    return rows


def _summary(values: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(values) if values else np.zeros(0, np.int32)


def _shard_results(split, grading, paths, shard_ids, official, batches, threads: int):
    """(tables, stats) of every shard in shard order; up to `threads` shards are processed at once
    (pyarrow and numpy release the GIL) and at most threads + 1 results wait to be written."""
    def run(i):
        out, st = _Output(), _SplitStats()
        _process_shard(split, grading, paths[i], shard_ids[i], official.shard(i), batches, out, st)
        return out, st

    if threads <= 1:
        for i in range(len(paths)):
            yield run(i)
        return
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        for i in range(len(paths)):
            pending.append(pool.submit(run, i))
            if len(pending) > threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def assemble(out_dir, ids: dict, shards: dict[str, list[ShardPaths]], train_qrels, dev_qrels,
             acquisition_batches: dict, grading: dict[str, str], threads: int | None = None) -> dict:
    """Build every assembled file under `out_dir` (see `assembled_files`); return the stats written.

    The output does not depend on `threads` (default: the CPUs this process may use, at most 4).
    """
    import contextlib

    if threads is None:
        threads = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)

    out_dir = Path(out_dir)
    collection = read_id_list(ids["train_collection"])
    dev_all = read_id_list(ids["dev_all"])
    excluded = _read_excluded(ids["train_excluded"])
    stats: dict = {"splits": {}}
    with contextlib.ExitStack() as stack:
        writers = _Writers(out_dir, stack)
        strict_ids: list[pa.Array] = []
        for split, all_ids, all_path, qrels_path in (("train", collection, ids["train_collection"], train_qrels),
                                                       ("dev", dev_all, ids["dev_all"], dev_qrels)):
            paths = shards[split]
            shard_ids = [pa.array(read_id_list(p.ids), STRING) for p in paths]
            _check_partition(split, shard_ids, paths, all_ids, all_path)
            official = OfficialQrels(qrels_path, shard_ids)
            batches = Batches.from_config(acquisition_batches[split], split)
            st = _SplitStats()
            for i, (out, shard_st) in enumerate(_shard_results(split, grading[split], paths, shard_ids, official,
                                                                     batches, threads)):
                for config, split_, table in out:
                    writers.write(config, split_, table)
                st.merge(shard_st)
                if (i + 1) % 50 == 0 or i + 1 == len(paths):
                    log.info("%s: %d/%d shards", split, i + 1, len(paths))
            strict_ids += st.strict_ids
            stats["splits"][split] = _split_summary(split, st, len(all_ids), official.table.num_rows)
            stats["splits"][split]["acquisition_batches"] = {b: st.batches.get(b, 0) for b in
                                                             [batches.default] + [n for n, _ in batches.batches]}
            stats["splits"][split]["grading_failures"] = st.failures
        stats["rows"] = {f"{c}/{s}": n for (c, s), n in writers.counts.items()}
    strict = pa.chunked_array(strict_ids, STRING).to_pylist() if strict_ids else []
    # ids in dev_all order
    strict_set = set(strict)
    strict_ordered = [q for q in dev_all if q in strict_set]
    write_lines_atomic(out_dir / ID_FILES["dev_strict"], strict_ordered)
    for name in ("train_collection", "train_excluded", "dev_all"):
        with atomic_path(out_dir / ID_FILES[name]) as tmp:
            shutil.copyfile(ids[name], tmp)
    dev_qrels_table = pq.read_table(out_dir / DATA_FILES[("qrels", "dev")])
    with atomic_path(out_dir / TREC_STRICT) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for q, p, g in zip(*(dev_qrels_table.column(c).to_pylist() for c in ("query_id", "passage_id", "grade"))):
                fh.write(f"{q} 0 {p} {g}\n")
    reasons: dict[str, int] = {}
    for _, reason, _ in excluded:
        reasons[reason] = reasons.get(reason, 0) + 1
    stats["splits"]["train"]["excluded"] = dict(sorted(reasons.items()))
    stats["splits"]["train"]["assigned"] = len(collection) + len(excluded)
    stats["ids"] = {"train_collection": len(collection), "train_excluded": len(excluded), "dev_all": len(dev_all),
                    "dev_strict": len(strict_ordered)}
    write_text_atomic(out_dir / STATS, json.dumps(stats, indent=1, sort_keys=True) + "\n")
    return stats


def _split_summary(split: str, st: _SplitStats, n_queries: int, n_official_positives: int) -> dict:
    pq_ = {k: _summary(v) for k, v in st.per_query.items() if v}
    n_agent = pq_["n_agent"]
    out = {
        "queries": n_queries,
        "queries_with_agent_rows": int((n_agent > 0).sum()),
        "queries_without_agent_rows": int((n_agent == 0).sum()),
        "queries_with_proposals": st.c["queries_with_proposals"],
        "agent_pairs": st.c["agent_pairs"],
        "agent_grades": _hist(np.repeat(np.arange(4), st.agent_grades)),
        "official_rows": st.c["official_rows"],
        "official_grades": _hist(np.repeat(np.arange(4), st.official_grades)),
        "official_positives": n_official_positives,
        "official_rows_also_proposed": st.c["official_also_proposed"],
        "judgments": st.c["agent_pairs"] + st.c["official_rows"],
        "max_agent_rank": st.c["max_agent_rank"],
        "proposals_without_grade": st.c["proposals_ungraded"],
        "grading_failure_count": len(st.failures),
        "cited_proposals": st.c["cited_proposals"],
        "grade_paths": dict(sorted(st.grade_paths.items())),
    }
    if split == "train":
        n_elig, n_elig3 = pq_["n_eligible"], pq_["n_eligible_grade3"]
        out.update({
            "wood_null": st.c["wood_null"],
            "wood_null_failed": st.c["wood_failed"],
            "positive_pairs": int(n_elig.sum()),
            "positive_queries": int((n_elig > 0).sum()),
            "positive_mean_per_query": float(n_elig.mean()) if len(n_elig) else 0.0,
            "positive_median_per_query": _median(n_elig),
            "agent_queries_without_positive": int(((n_agent > 0) & (n_elig == 0)).sum()),
            "grade3_eligible_pairs": int(n_elig3.sum()),
            "grade3_eligible_queries": int((n_elig3 > 0).sum()),
            "grade3_agent_pairs": st.c["grade3_agent"],
            "selected_wood": st.c["selected_wood"],
            "selected_fallback": st.c["selected_fallback"],
            "selected_none": st.c["selected_none"],
            "fallback_with_official_grade": st.c["fallback_with_official_grade"],
            "fallback_with_agent_grade": st.c["fallback_with_agent_grade"],
            "answers": st.c["answers"],
            "agent_queries_without_answer": st.c["agent_queries_without_answer"],
        })
    else:
        n_strict = pq_["n_strict"]
        out.update({
            "strict_pairs": st.c["strict_pairs"],
            "strict_queries": int((n_strict > 0).sum()),
            "strict_mean_per_query": float(n_strict.mean()) if len(n_strict) else 0.0,
            "strict_median_per_query": _median(n_strict),
            "nonstrict_with_agent": int(((n_strict == 0) & (n_agent > 0)).sum()),
            "nonstrict_without_agent": int(((n_strict == 0) & (n_agent == 0)).sum()),
        })
    return out


def shard_paths_for(work: str, split: str, n_shards: int) -> list[ShardPaths]:
    """The per-shard files of a split (irdata/shard_files.py's layout), in shard order."""
    has = SPLIT_FILES[split]
    return [ShardPaths(ids=shard_file(work, "ids", split, i), agent=shard_file(work, "agent", split, i),
                       grades=shard_file(work, "grades", split, i),
                       answers=shard_file(work, "answers", split, i) if "answers" in has else None,
                       wood=shard_file(work, "wood", split, i) if "wood" in has else None)
            for i in range(n_shards)]
