"""`assemble` of Doubting MS MARCO: selection, eligibility and fallback rules on hand-made cases,
the intermediate-format validation, and streaming over shards (irdata.doubting)."""

import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from irdata.doubting.assemble import SCHEMAS, assemble, assembled_files
from irdata.errors import InputError
from irdata.shards import read_id_list
from synthetic_doubting import Work, edge_cases, synthetic_split


def rows(path):
    return pq.read_table(path).to_pylist()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("edge")
    kw = edge_cases(root)
    stats = assemble(root / "out", **kw)
    return root / "out", stats, kw


def by_query(out, name):
    return {r["query_id"]: r for r in rows(out / name)}


def test_every_file_written_with_exact_schema(built):
    out, _, _ = built
    for rel in assembled_files():
        assert (out / rel).is_file(), rel
    for config, split in [("qrels", "train"), ("qrels", "dev"), ("judgments", "train"), ("judgments", "dev"),
                          ("train_queries", "train"), ("dev_queries", "dev"), ("generated_answers", "train")]:
        schema = pq.read_schema(out / config / f"{split}.parquet")
        assert schema.remove_metadata() == SCHEMAS[config], (config, split)


def test_selection_by_highest_wood_with_ties(built):
    q = by_query(built[0], "train_queries/train.parquet")
    # equal WOOD and grade: the earlier agent_rank
    assert (q["q1"]["positive_id"], q["q1"]["positive_source"]) == ("p2", "wood")
    # equal WOOD: the higher grade
    assert q["q1b"]["positive_id"] == "p2" and q["q1b"]["positive_agent_grade"] == 3
    assert q["q1b"]["positive_official_grade"] is None        # not an official positive: null, not 0
    # an official positive also proposed and selected by WOOD keeps its official grade
    assert q["q5"] == {**q["q5"], "positive_id": "p8", "positive_source": "wood", "positive_agent_grade": 3,
                       "positive_official_grade": 1, "positive_wood": 0.9}


def test_fallback_rules(built):
    q = by_query(built[0], "train_queries/train.parquet")
    # no eligible proposal (grade 1, and grade 3 without finite WOOD): best official grade, then relevance
    assert q["q2"] == {**q["q2"], "positive_id": "o9", "positive_source": "official_fallback",
                       "positive_agent_grade": None, "positive_official_grade": 3, "positive_wood": None,
                       "agent_row": True, "n_eligible": 0}
    # no agent row: a graded official positive beats one whose grading failed
    assert q["q3"] == {**q["q3"], "positive_id": "40", "positive_source": "official_fallback", "agent_row": False,
                       "n_agent": 0, "n_eligible": 0, "n_eligible_grade3": 0, "n_official": 2}
    # official positive also proposed: keeps its agent grade, official grade and WOOD
    assert q["q4"] == {**q["q4"], "positive_id": "p7", "positive_source": "official_fallback",
                       "positive_agent_grade": 1, "positive_official_grade": 2, "positive_wood": 0.3}
    # same grade and relevance: the smallest passage_id as a string ("10" < "9")
    assert q["q8"]["positive_id"] == "10"
    # nothing to select: null, never a made-up value
    assert q["q7"]["positive_id"] is None and q["q7"]["positive_source"] is None


def test_counts_and_eligibility(built):
    out, stats, _ = built
    q = by_query(out, "train_queries/train.parquet")
    assert (q["q1"]["n_agent"], q["q1"]["n_eligible"], q["q1"]["n_eligible_grade3"]) == (3, 3, 2)
    # the failed grading call is not a judgment and not counted as a proposal
    assert (q["q6"]["n_agent"], q["q6"]["n_eligible"]) == (1, 1)
    judg = rows(out / "judgments/train.parquet")
    pairs = {(r["query_id"], r["passage_id"], r["origin"]) for r in judg}
    assert ("q6", "f1", "agent") not in pairs and ("q3", "5", "official") not in pairs
    # agent and official rows of the same pair are both kept
    assert ("q4", "p7", "agent") in pairs and ("q4", "p7", "official") in pairs
    for r in judg:
        if r["origin"] == "official":
            assert r["agent_rank"] is None and r["wood"] is None and r["train_eligible"] is None
            assert r["official_positive"] is True
        else:
            assert r["train_eligible"] == (r["grade"] >= 2 and r["wood"] is not None and math.isfinite(r["wood"]))
    assert [r for r in judg if r["query_id"] == "q2" and r["passage_id"] == "p4"][0]["train_eligible"] is False
    failures = stats["splits"]["train"]["grading_failures"]
    assert {(f["query_id"], f["passage_id"], f["origin"], f["failure"]) for f in failures} == {
        ("q6", "f1", "agent", "unparseable reply"), ("q3", "5", "official", "timeout")}
    qrels = {(r["query_id"], r["passage_id"]): r["grade"] for r in rows(out / "qrels/train.parquet")}
    assert qrels == {(r["query_id"], r["passage_id"]): r["grade"] for r in judg if r["train_eligible"]}
    t = stats["splits"]["train"]
    assert (t["selected_wood"], t["selected_fallback"], t["selected_none"]) == (4, 4, 1)
    assert t["agent_queries_without_positive"] == 2 and t["queries_without_agent_rows"] == 3
    assert t["excluded"] == {"heldout": 1, "repeat": 1} and t["assigned"] == 11


def test_dev_strict_subset(built):
    out, stats, _ = built
    d = by_query(out, "dev_queries/dev.parquet")
    got = {k: (v["strict_subset"], v["n_agent"], v["n_official"], v["n_judged"], v["n_strict"]) for k, v in d.items()}
    assert got == {
        "d1": (True, 2, 2, 3, 2), "d2": (False, 2, 1, 3, 0), "d3": (False, 0, 1, 1, 0), "d4": (True, 0, 1, 1, 1)}
    judg = rows(out / "judgments/dev.parquet")
    assert all(r["wood"] is None and r["train_eligible"] is None and r["grading"] == "answer_hinted" for r in judg)
    # an official positive the agent proposed has only its agent row on dev
    assert [(r["origin"], r["official_positive"]) for r in judg if (r["query_id"], r["passage_id"]) == ("d1", "a")] == [
        ("agent", True)]
    strict = sorted((r["query_id"], r["passage_id"]) for r in rows(out / "qrels/dev.parquet"))
    assert strict == [("d1", "a"), ("d1", "c"), ("d4", "y")]
    trec = sorted(tuple(line.split()) for line in (out / "trec/dev.strict.qrels").read_text().splitlines())
    assert trec == [("d1", "0", "a", "3"), ("d1", "0", "c", "3"), ("d4", "0", "y", "3")]
    assert (out / "ids/dev_strict.txt").read_text().split() == ["d1", "d4"]   # dev_all order
    s = stats["splits"]["dev"]
    assert (s["nonstrict_with_agent"], s["nonstrict_without_agent"], s["official_positives"]) == (1, 1, 5)


def test_acquisition_batches_and_answers(built):
    out, stats, _ = built
    q = by_query(out, "train_queries/train.parquet")
    assert {k for k, v in q.items() if v["acquisition_batch"] == "train-pilot"} == {"q2", "q3"}
    assert all(v["acquisition_batch"] == "dev-main" for v in by_query(out, "dev_queries/dev.parquet").values())
    answers = by_query(out, "generated_answers/train.parquet")
    assert set(answers) == {"q1", "q1b", "q2", "q4", "q5"}           # q6's generation failed
    assert stats["splits"]["train"]["agent_queries_without_answer"] == 1


def test_shard_count_changes_order_only(tmp_path):
    a = assemble(tmp_path / "a", **edge_cases(tmp_path / "wa", 1, 1))
    b = assemble(tmp_path / "b", **edge_cases(tmp_path / "wb", 3, 2))
    assert a["rows"] == b["rows"]
    for rel in ("judgments/train.parquet", "train_queries/train.parquet", "qrels/dev.parquet"):
        ta, tb = pq.read_table(tmp_path / "a" / rel), pq.read_table(tmp_path / "b" / rel)
        key = [(c, "ascending") for c in ta.column_names if c in ("query_id", "passage_id", "origin")]
        assert ta.sort_by(key).equals(tb.sort_by(key))


def test_row_order_of_the_stage_files_does_not_matter(tmp_path):
    kw = edge_cases(tmp_path / "w", 2, 2)
    a = assemble(tmp_path / "a", **kw)
    w = Work(tmp_path / "w")
    for stage, split, shard in [(st, "train", i) for st in ("agent", "grades", "wood", "answers") for i in (0, 1)] + [
            (st, "dev", i) for st in ("agent", "grades") for i in (0, 1)]:
        _edit(w.path(stage, split, shard), lambda t: t.take(pa.array(list(range(t.num_rows))[::-1], pa.int64())))
    b = assemble(tmp_path / "b", **kw)
    for rel in assembled_files():
        if rel != "stats.json":
            assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
    # the grading failures are listed in file order
    for stats in (a, b):
        for split in stats["splits"].values():
            split["grading_failures"].sort(key=lambda f: (f["origin"], f["query_id"], f["passage_id"]))
    assert a == b


def test_select_by_wood_matches_the_rule_on_random_ties():
    """The columnar selection against the rule written plainly: highest WOOD, then grade, then smaller rank."""
    import numpy as np

    from irdata.doubting.select import select_by_wood

    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(0, 200))
        qpos = rng.integers(0, 20, n)
        wood = rng.choice([0.1, 0.5, 0.9, 0.0, -0.0], n)     # many ties, and 0.0 == -0.0
        grade = rng.integers(2, 4, n).astype(np.int8)
        rank = rng.permutation(n) + 1
        queries, rows = select_by_wood(qpos, wood, grade, rank)
        expected = {}
        for i in range(n):
            best = expected.get(qpos[i])
            if best is None or (wood[i], grade[i], -rank[i]) > (wood[best], grade[best], -rank[best]):
                expected[qpos[i]] = i
        assert queries.tolist() == sorted(expected) and rows.tolist() == [expected[q] for q in sorted(expected)]


# -- validation of the intermediate formats ----------------------------------------------------

def _edit(path, fn):
    table = pq.read_table(path)
    pq.write_table(fn(table), path)


@pytest.mark.parametrize("stage, edit, message, field", [
    ("agent", lambda t: t.set_column(2, "agent_rank", pa.array([str(x) for x in t.column("agent_rank").to_pylist()])),
     "type string where int32", "agent_rank"),
    ("agent", lambda t: t.drop_columns(["agent_rank"]), "missing column", "agent_rank"),
    ("agent", lambda t: t.append_column("extra", pa.array([1] * t.num_rows)), "unexpected column", "extra"),
    ("agent", lambda t: t.set_column(2, "agent_rank", pa.array([0] * t.num_rows, pa.int32())), "1-based", "agent_rank"),
    ("agent", lambda t: t.set_column(0, "query_id", pa.array(["nope"] * t.num_rows)), "not a query of this shard",
     "query_id"),
    ("agent", lambda t: pa.concat_tables([t, t.slice(0, 1)]), "must be unique", None),
    ("grades", lambda t: t.set_column(2, "origin", pa.array(["llm"] * t.num_rows)), "expected one of", "origin"),
    ("grades", lambda t: t.set_column(3, "grade", pa.array([7] * t.num_rows, pa.int8())), "grades are 0-3", "grade"),
    ("grades", lambda t: t.filter(pa.array([r != 0 for r in range(t.num_rows)])), "no row for", "origin"),
    ("wood", lambda t: t.slice(1), "no row for", "passage_id"),
    ("answers", lambda t: t.set_column(1, "answer", pa.array([None] * t.num_rows, pa.string())), "null value",
     "answer"),
])
def test_bad_intermediate_named(tmp_path, stage, edit, message, field):
    kw = edge_cases(tmp_path / "w", 1, 1)
    path = Work(tmp_path / "w").path(stage, "train", 0)
    _edit(path, edit)
    with pytest.raises(InputError) as err:
        assemble(tmp_path / "out", **kw)
    assert str(path) in str(err.value) and message in str(err.value)
    if field:
        assert err.value.field == field


def test_official_grade_rows_must_match_qrels(tmp_path):
    kw = edge_cases(tmp_path / "w", 1, 1)
    path = Work(tmp_path / "w").path("grades", "dev", 0)
    # on dev an official positive the agent proposed must not have an official row
    _edit(path, lambda t: pa.concat_tables([t, pa.table({"query_id": ["d1"], "passage_id": ["a"],
                                                         "origin": ["official"],
                                                         "grade": pa.array([3], pa.int8()),
                                                         "grade_path": ["parsed"],
                                                         "grade_probability": pa.array([None], pa.float32()),
                                                         "failure_kind": pa.array([None], pa.string()),
                                                         "failure": pa.array([None], pa.string())}, schema=t.schema)]))
    with pytest.raises(InputError, match="the agent did not propose"):
        assemble(tmp_path / "out", **kw)


def test_answer_for_query_without_proposal(tmp_path):
    kw = edge_cases(tmp_path / "w", 1, 1)
    Work(tmp_path / "w").answers(0, [("q3", "an answer")])
    with pytest.raises(InputError, match="no agent proposal") as err:
        assemble(tmp_path / "out", **kw)
    assert err.value.field == "query_id"


def test_shards_must_partition_the_queries(tmp_path):
    kw = edge_cases(tmp_path / "w", 2, 1)
    first, second = kw["shards"]["train"][0].ids, kw["shards"]["train"][1].ids
    with open(second, "a") as fh:
        fh.write(open(first).read().split()[0] + "\n")
    with pytest.raises(InputError, match="overlap|not a query of this shard|in no"):
        assemble(tmp_path / "out", **kw)


def test_nan_and_infinite_wood_read_as_null(tmp_path):
    kw = edge_cases(tmp_path / "w", 1, 1)
    path = Work(tmp_path / "w").path("wood", "train", 0)
    _edit(path, lambda t: t.set_column(2, "wood", pa.array([float("nan") if v is None else v
                                                            for v in t.column("wood").to_pylist()], pa.float64())))
    assemble(tmp_path / "out", **kw)
    judg = rows(tmp_path / "out/judgments/train.parquet")
    assert [r["wood"] for r in judg if (r["query_id"], r["passage_id"]) == ("q2", "p4")] == [None]


def test_synthetic_shards_stream(tmp_path):
    w = Work(tmp_path)
    tq, tids = synthetic_split(w, "train", 600, 5, 12, 60, 1.1, grade_failure=0.01, wood_null=0.01, no_agent=0.02)
    dq, dids = synthetic_split(w, "dev", 80, 3, 40, 400, 1.1)
    w.ids(tids, dids)
    from irdata.doubting.assemble import shard_paths_for

    stats = assemble(tmp_path / "out", {"train_collection": str(w.base / "ids/train_collection.txt"),
                                        "train_excluded": str(w.base / "ids/train_excluded.tsv"),
                                        "dev_all": str(w.base / "ids/dev_all.txt")},
                     {s: shard_paths_for(str(w.root / "work"), s, n) for s, n in (("train", 5), ("dev", 3))},
                     tq, dq, {"train": {"default": "t", "batches": []}, "dev": {"default": "d", "batches": []}},
                     {"train": "query_only", "dev": "answer_hinted"})
    t = stats["splits"]["train"]
    assert stats["rows"]["train_queries/train"] == 600 and stats["rows"]["dev_queries/dev"] == 80
    assert t["selected_wood"] + t["selected_fallback"] + t["selected_none"] == 600
    assert t["selected_wood"] == t["positive_queries"]
    assert stats["rows"]["judgments/train"] == t["agent_pairs"] + t["official_rows"]
    assert t["grading_failure_count"] == len(t["grading_failures"]) > 0
    assert read_id_list(tmp_path / "out/ids/train_collection.txt") == tids


# -- config and id files -----------------------------------------------------------------------

def test_schema_defaults_for_batches_ledger_and_package():
    from pathlib import Path

    from snakemake.utils import validate

    from demo_config import demo_build

    repo = Path(__file__).resolve().parents[2]
    section = demo_build()["doubting"]  # the batch names default from the build's name
    assert section["acquisition_batches"]["train"]["default"] == "demo-train"
    assert section["acquisition_batches"]["dev"]["default"] == "demo-dev"
    assert section["package_dir"] == "results/doubting-ms-marco"
    assert section["release_ledger"] and section["repo_id"]
    bad = dict(section, acquisition_batches={"train": {"default": "x", "batches": [{"name": "b"}]}})
    with pytest.raises(Exception, match="query_ids_file"):
        validate(bad, str(repo / "schemas/doubting.schema.yaml"))


@pytest.mark.parametrize("text, message, line", [
    ("a\nb \n", "whitespace", 2), ("a\nb\na\n", "duplicate id 'a'", 3), ("a\n\tb\n", "whitespace", 2)])
def test_id_file_errors(tmp_path, text, message, line):
    (tmp_path / "ids.txt").write_text(text)
    with pytest.raises(InputError, match=message) as err:
        read_id_list(tmp_path / "ids.txt")
    assert err.value.line == line
