"""Synthetic per-shard files in the exact formats of irdata/shard_files.py: hand-made cases for the
tests, and MS MARCO-scale shards for bench/bench_assemble.py. Not used by the workflow."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from irdata.dedup import EXCLUDED_COLUMNS
from irdata.doubting.acquisition_batches import check_batches
from irdata.doubting.assemble import shard_paths_for
from irdata.shard_files import AGENT_SCHEMA, ANSWERS_SCHEMA, GRADES_SCHEMA, WOOD_SCHEMA, shard_file
from irdata.shards import shard_of


def write_ids(path, ids) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")


def write_parquet(path, columns: dict, schema: pa.Schema) -> None:
    """Columns missing from `columns` are null."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    rows = len(next(iter(columns.values()))) if columns else 0
    pq.write_table(pa.table({n: columns.get(n, [None] * rows) for n in schema.names}, schema=schema), path)


def write_qrels(path, rows) -> None:
    """rows: (query_id, passage_id, relevance)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("".join(f"{q}\t0\t{p}\t{r}\n" for q, p, r in rows), encoding="utf-8")


# inputs.json's held-out sources (irdata/heldout.py): the dev file, listed too, and the audit's queries
HELDOUT_SOURCES = [{"keys": ["dev_queries", "heldout_queries[0]"], "file": "queries.dev.tsv", "queries": 7},
                   {"keys": ["audit.queries"], "file": "queries.audit.tsv", "queries": 1}]


class Work:
    """A `work/doubting`-like folder written from Python rows (tests) or numpy arrays (bench)."""

    def __init__(self, root):
        self.root = Path(root)
        self.base = self.root / "work" / "doubting"

    def ids(self, train_collection, dev_all, excluded=()):
        """`excluded`: (query_id, reason, duplicate_of) rows; a held-out duplicate's source is dev_queries'."""
        write_ids(self.base / "ids/train_collection.txt", train_collection)
        write_ids(self.base / "ids/dev_all.txt", dev_all)
        source = {"repeat": "train_queries\tqueries.train.tsv", "heldout": "dev_queries\tqueries.dev.tsv"}
        (self.base / "ids/train_excluded.tsv").write_text(
            "\t".join(EXCLUDED_COLUMNS) + "\n" + "".join(f"{a}\t{b}\t{c}\t{source[b]}\n" for a, b, c in excluded),
            encoding="utf-8")

    def shard_files(self, split, n):
        return [shard_file(self.root / "work", "ids", split, i) for i in range(n)]

    def shards(self, split, ids, n):
        """Split ids over n shards as shard_queries does (blake2b of the id)."""
        shard = shard_of(ids, n) if len(ids) else np.zeros(0, int)
        ids = np.asarray(ids, dtype=object)
        for i, f in enumerate(self.shard_files(split, n)):
            write_ids(f, ids[shard == i].tolist())
        return [ids[shard == i].tolist() for i in range(n)]

    def path(self, stage, split, shard):
        return Path(shard_file(self.root / "work", stage, split, shard))

    def agent(self, split, shard, rows):
        """rows: (query_id, passage_id, agent_rank[, cited])."""
        rows = [(*r, False) if len(r) == 3 else r for r in rows]
        write_parquet(self.path("agent", split, shard),
                      _cols(rows, ["query_id", "passage_id", "agent_rank", "cited"]), AGENT_SCHEMA)

    def grades(self, split, shard, rows):
        """rows: (query_id, passage_id, origin, grade or None, failure or None); a failure's kind is its
        first word."""
        rows = [(q, p, o, g, None if f is None else "parsed", None, None if f is None else f.split()[0], f)
                for q, p, o, g, f in rows]
        write_parquet(self.path("grades", split, shard),
                      _cols(rows, ["query_id", "passage_id", "origin", "grade", "grade_path", "grade_probability",
                                   "failure_kind", "failure"]), GRADES_SCHEMA)

    def wood(self, shard, rows):
        write_parquet(self.path("wood", "train", shard), _cols(rows, ["query_id", "passage_id", "wood"]),
                      WOOD_SCHEMA)

    def answers(self, shard, rows):
        write_parquet(self.path("answers", "train", shard), _cols(rows, ["query_id", "answer"]), ANSWERS_SCHEMA)

    def meta(self, inputs=None, identity=None):
        self.base.mkdir(parents=True, exist_ok=True)
        (self.base / "inputs.json").write_text(json.dumps(inputs or {
            "files": {"synthetic/collection.tsv": {"bytes": 0, "sha256": hashlib.sha256(b"").hexdigest()}},
            "rows": {"collection": 8_841_823}, "heldout_sources": HELDOUT_SOURCES}, indent=2, sort_keys=True))
        (self.base / "llm_identity.json").write_text(json.dumps(
            identity or {"model": "SmolLM2-135M-Instruct", "backend": "local", "server": None},
            indent=2, sort_keys=True))


def _cols(rows, names):
    rows = list(rows)
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}


def synthetic_split(work: Work, split: str, n_queries: int, n_shards: int, mean_proposals: float,
                    max_proposals: int, official_per_query: float, seed: int = 0, answer_failure: float = 0.001,
                    grade_failure: float = 1e-5, no_agent: float = 0.0025, wood_null: float = 4e-6):
    """Write ids, shards, agent, grades (and wood, answers on train) and qrels for one split.

    Columnar: 10M proposals are generated in seconds. Returns the qrels path and the query ids.
    """
    rng = np.random.default_rng(seed + (0 if split == "train" else 1))
    prefix = "" if split == "train" else "9"
    qids = np.array([f"{prefix}{i}" for i in range(1, n_queries + 1)], dtype=object)
    shard = shard_of(qids.tolist(), n_shards)
    qrels = []
    for i, f in enumerate(work.shard_files(split, n_shards)):
        write_ids(f, qids[shard == i].tolist())
    n_prop = np.minimum(rng.poisson(mean_proposals, n_queries), max_proposals)
    n_prop[rng.random(n_queries) < no_agent] = 0
    n_off = np.maximum(1, rng.poisson(official_per_query - 1, n_queries) + 1)
    for s in range(n_shards):
        members = np.flatnonzero(shard == s)
        q = qids[members]
        npq, noq = n_prop[members], n_off[members]
        a_q = np.repeat(q, npq)
        a_rank = np.concatenate([np.arange(1, k + 1) for k in npq] + [np.zeros(0, int)]).astype(np.int32)
        # distinct within a query: a per-query base plus rank * 7919 (< 8.8M for rank <= 1,000)
        a_pid = (np.repeat(rng.integers(0, 8_841_823, len(q)), npq) + a_rank.astype(np.int64) * 7919) % 8_841_823
        o_q = np.repeat(q, noq)
        o_rank = np.concatenate([np.arange(1, k + 1) for k in noq] + [np.zeros(0, int)])
        # the first official positive is often also proposed by the agent (rank 1)
        first_prop = np.full(len(q), -1, dtype=np.int64)
        starts = np.r_[0, np.cumsum(npq)[:-1]]
        has = npq > 0
        first_prop[has] = a_pid[starts[has]]
        o_pid = np.where((o_rank == 1) & np.repeat(first_prop >= 0, noq) & (rng.random(len(o_q)) < 0.5),
                         np.repeat(first_prop, noq), 9_000_000 + rng.integers(0, 10**6, len(o_q)) * 10 + o_rank)
        a_pid_s = a_pid.astype(str).astype(object)
        o_pid_s = o_pid.astype(str).astype(object)
        qrels.append(pa.table({"q": pa.array(o_q, pa.string()), "p": pa.array(o_pid_s, pa.string())}))
        work.agent(split, s, []) if len(a_q) == 0 else pq.write_table(pa.table({
            "query_id": pa.array(a_q, pa.string()), "passage_id": pa.array(a_pid_s, pa.string()),
            "agent_rank": pa.array(a_rank, pa.int32()), "cited": pa.array(np.zeros(len(a_q), bool))},
            schema=AGENT_SCHEMA), _mk(work.path("agent", split, s)))
        a_grade = rng.choice(4, len(a_q), p=[0.11, 0.07, 0.23, 0.59]).astype(np.int8)
        a_fail = rng.random(len(a_q)) < grade_failure
        if split == "train":
            off_keep = np.ones(len(o_q), bool)
        else:
            a_keys = set(zip(a_q.tolist(), a_pid_s.tolist()))
            off_keep = np.array([(a, b) not in a_keys for a, b in zip(o_q.tolist(), o_pid_s.tolist())], bool)
        o_grade = rng.choice(4, off_keep.sum(), p=[0.07, 0.03, 0.15, 0.75]).astype(np.int8)
        o_fail = rng.random(off_keep.sum()) < grade_failure
        grade = np.r_[a_grade, o_grade]
        fail = np.r_[a_fail, o_fail]
        pq.write_table(pa.table({
            "query_id": pa.array(np.r_[a_q, o_q[off_keep]], pa.string()),
            "passage_id": pa.array(np.r_[a_pid_s, o_pid_s[off_keep]], pa.string()),
            "origin": pa.array(np.r_[np.full(len(a_q), "agent", object),
                                     np.full(off_keep.sum(), "official", object)], pa.string()),
            "grade": pa.array(grade, pa.int8(), mask=fail),
            "grade_path": pa.array(np.where(fail, None, "structured_outputs"), pa.string()),
            "grade_probability": pa.nulls(len(grade), pa.float32()),
            "failure_kind": pa.array(np.where(fail, "unparseable", None), pa.string()),
            "failure": pa.array(np.where(fail, "unparseable reply", None), pa.string()),
        }, schema=GRADES_SCHEMA), _mk(work.path("grades", split, s)))
        if split == "train":
            wood = rng.normal(0.2, 0.3, len(a_q))
            pq.write_table(pa.table({
                "query_id": pa.array(a_q, pa.string()), "passage_id": pa.array(a_pid_s, pa.string()),
                "wood": pa.array(wood, pa.float64(), mask=rng.random(len(a_q)) < wood_null),
                "failure_kind": pa.nulls(len(a_q), pa.string()), "failure": pa.nulls(len(a_q), pa.string())},
                schema=WOOD_SCHEMA), _mk(work.path("wood", "train", s)))
            aq = q[(npq > 0) & (rng.random(len(q)) >= answer_failure)]
            pq.write_table(pa.table({"query_id": pa.array(aq, pa.string()),
                                     "answer": pa.array(np.full(len(aq), "a generated answer", object), pa.string())},
                                    schema=ANSWERS_SCHEMA), _mk(work.path("answers", "train", s)))
    qrels_path = work.root / f"qrels.{split}.tsv"
    table = pa.concat_tables(qrels)
    with open(qrels_path, "w", encoding="utf-8") as fh:
        for a, b in zip(table.column("q").to_pylist(), table.column("p").to_pylist()):
            fh.write(f"{a}\t0\t{b}\t1\n")
    return qrels_path, qids.tolist()


def _mk(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# -- hand-made edge cases (tests) -------------------------------------------------------------

EDGE_TRAIN = ["q1", "q1b", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]
EDGE_DEV = ["d1", "d2", "d3", "d4"]
BATCH_TRAIN = ["q2", "q3", "zz-of-the-other-split"]


def edge_cases(root, n_train_shards: int = 2, n_dev_shards: int = 2, dev_grade_cap: int = 3) -> dict:
    """Write the hand-made cases; return the keyword arguments of assemble() (minus out_dir). Every dev
    grade is at most `dev_grade_cap` (1: as on the demo, no strict pair and none of grade 2).

    train:
    - q1: two grade-3 proposals with equal WOOD: the smaller agent_rank wins (p2, rank 1)
    - q1b: equal WOOD, grades 2 and 3: the higher grade wins (p2)
    - q2: no eligible proposal (grade 1; grade 3 with null WOOD); official positives o10 and o9 both
      graded 3, o9 with MS MARCO relevance 2: fallback o9 (relevance before passage_id)
    - q3: no agent row; official positives 5 (grading failed) and 40 (grade 1): fallback 40
    - q4: official positive p7 also proposed (agent grade 1, WOOD 0.3; official grade 2): fallback p7
      with both grades and its WOOD; both rows in judgments
    - q5: official positive p8 also proposed, grade 3 with the best WOOD: selected by WOOD, official grade kept
    - q6: a proposal whose grading failed (not a judgment, a grading failure) and an eligible one
    - q7: no agent row and no official positive: no selected positive
    - q8: official positives "10" and "9", same grade and relevance: fallback "10" (string order)
    dev:
    - d1: proposals a (3), b (2); official a (proposed: no official row), c (official row, 3): strict a, c
    - d2: proposals graded 0 and 1 only: not strict, has agent rows
    - d3: no proposal; official x graded 2: not strict, no agent row
    - d4: no proposal; official y graded 3: strict through the official row
    """
    w = Work(root)
    w.ids(EDGE_TRAIN, EDGE_DEV, [("q0", "repeat", "q1"), ("q00", "heldout", "d1")])
    train_shards = w.shards("train", EDGE_TRAIN, n_train_shards)
    dev_shards = w.shards("dev", EDGE_DEV, n_dev_shards)
    agent = {
        "q1": [("p1", 2, 3, 0.5), ("p2", 1, 3, 0.5), ("p3", 3, 2, 0.1)],
        "q1b": [("p1", 1, 2, 0.5), ("p2", 2, 3, 0.5)],
        "q2": [("p3", 1, 1, 0.9), ("p4", 2, 3, None)],
        "q4": [("p7", 1, 1, 0.3), ("p6", 2, 0, 0.8)],
        "q5": [("p8", 1, 3, 0.9), ("p9", 2, 3, 0.2)],
        "q6": [("f1", 1, None, 0.4), ("p10", 2, 2, 0.1)],
    }
    official_train = {"q1": [("p2", 1)], "q1b": [("o1", 1)], "q2": [("o10", 1), ("o9", 2)], "q3": [("5", 1), ("40", 1)],
                      "q4": [("p7", 1)], "q5": [("p8", 1)], "q6": [("o6", 1)], "q8": [("10", 1), ("9", 1)]}
    official_grade = {("q1", "p2"): 3, ("q1b", "o1"): 2, ("q2", "o10"): 3, ("q2", "o9"): 3, ("q3", "5"): None,
                      ("q3", "40"): 1, ("q4", "p7"): 2, ("q5", "p8"): 1, ("q6", "o6"): 3, ("q8", "10"): 2,
                      ("q8", "9"): 2}
    for s, members in enumerate(train_shards):
        a_rows, g_rows, w_rows, ans = [], [], [], []
        for q in members:
            for p, rank, grade, wood in agent.get(q, []):
                a_rows.append((q, p, rank))
                g_rows.append((q, p, "agent", grade, None if grade is not None else "unparseable reply"))
                w_rows.append((q, p, wood))
            for p, _ in official_train.get(q, []):
                g = official_grade[(q, p)]
                g_rows.append((q, p, "official", g, None if g is not None else "timeout"))
            if q in agent and q != "q6":
                ans.append((q, f"answer to {q}"))
        w.agent("train", s, a_rows)
        w.grades("train", s, g_rows)
        w.wood(s, w_rows)
        w.answers(s, ans)
    dev_agent = {"d1": [("a", 1, 3), ("b", 2, 2)], "d2": [("e", 1, 0), ("f", 2, 1)]}
    official_dev = {"d1": ["a", "c"], "d2": ["g"], "d3": ["x"], "d4": ["y"]}
    dev_official_grade = {("d1", "c"): 3, ("d2", "g"): 1, ("d3", "x"): 2, ("d4", "y"): 3}
    for s, members in enumerate(dev_shards):
        a_rows, g_rows = [], []
        for q in members:
            proposed = set()
            for p, rank, grade in dev_agent.get(q, []):
                a_rows.append((q, p, rank))
                g_rows.append((q, p, "agent", min(grade, dev_grade_cap), None))
                proposed.add(p)
            for p in official_dev.get(q, []):
                if p not in proposed:
                    g_rows.append((q, p, "official", min(dev_official_grade[(q, p)], dev_grade_cap), None))
        w.agent("dev", s, a_rows)
        w.grades("dev", s, g_rows)
    write_qrels(w.root / "qrels.train.tsv", [(q, p, r) for q, ps in official_train.items() for p, r in ps]
                + [("q0", "p1", 1), ("unrelated", "p1", 1), ("q1", "neg", 0)])
    write_qrels(w.root / "qrels.dev.tsv", [(q, p, 1) for q, ps in official_dev.items() for p in ps])
    write_ids(w.root / "batch_train.txt", BATCH_TRAIN)
    w.meta(inputs={"files": {"resources/demo/collection.tsv": {"bytes": 1, "sha256": "0" * 64}},
                   "rows": {"collection": 1000, "dev_queries": 6}, "heldout_sources": HELDOUT_SOURCES})
    return dict(
        ids={"train_collection": str(w.base / "ids/train_collection.txt"),
             "train_excluded": str(w.base / "ids/train_excluded.tsv"), "dev_all": str(w.base / "ids/dev_all.txt")},
        shards={"train": shard_paths_for(str(w.root / "work"), "train", n_train_shards),
                "dev": shard_paths_for(str(w.root / "work"), "dev", n_dev_shards)},
        train_qrels=str(w.root / "qrels.train.tsv"), dev_qrels=str(w.root / "qrels.dev.tsv"),
        # the batches as check_acquisition_batches records them: the pilot's third id is a query of the other split
        acquisition_batches=check_batches(
            {"train": {"default": "train-main", "batches": [
                {"name": "train-pilot", "query_ids_file": str(w.root / "batch_train.txt"), "description": "a pilot"}]},
             "dev": {"default": "dev-main", "batches": []}},
            {"train": pa.array(EDGE_TRAIN), "dev": pa.array([*EDGE_DEV, BATCH_TRAIN[-1]])}),
        grading={"train": "query_only", "dev": "answer_hinted"},
    )
