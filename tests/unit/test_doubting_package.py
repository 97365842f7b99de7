"""`package` of Doubting MS MARCO: the card's invariants checked on built packages, loading with
`datasets` offline, the example scripts (evaluate.py == ir_measures), MANIFEST.json, SHA256SUMS,
determinism and the frozen release version."""

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from irdata.doubting.assemble import assemble, shard_paths_for
from irdata.doubting.manifest import ReleaseFrozenError, code_files
from irdata.doubting.package import build_package, publish_package
from irdata.provenance import sha256_file
from synthetic_doubting import Work, edge_cases, synthetic_split

REPO = Path(__file__).resolve().parents[2]
S, I8, I32, F64, B = "string", "int8", "int32", "double", "bool"
# the Schema section of the card, typed in here independently of the code
CARD_SCHEMA = {
    "qrels": [("query_id", S), ("passage_id", S), ("grade", I8)],
    "judgments": [("query_id", S), ("passage_id", S), ("origin", S), ("grade", I8), ("grading", S),
                  ("agent_rank", I32), ("wood", F64), ("train_eligible", B), ("official_positive", B)],
    "train_queries": [("query_id", S), ("acquisition_batch", S), ("agent_row", B), ("n_agent", I32),
                      ("n_eligible", I32), ("n_eligible_grade3", I32), ("n_official", I32), ("positive_id", S),
                      ("positive_source", S), ("positive_agent_grade", I8), ("positive_official_grade", I8),
                      ("positive_wood", F64)],
    "dev_queries": [("query_id", S), ("acquisition_batch", S), ("strict_subset", B), ("n_agent", I32),
                    ("n_official", I32), ("n_judged", I32), ("n_strict", I32)],
    "generated_answers": [("query_id", S), ("answer", S)],
}
SPLITS = {"qrels": ["train", "dev"], "judgments": ["train", "dev"], "train_queries": ["train"],
          "dev_queries": ["dev"], "generated_answers": ["train"]}
BATCH_DESCRIPTIONS = {"train": {"train-pilot": "a pilot run"}, "dev": {}}


def build(root: Path, kw: dict, version="v0.1-test", repo_id="Shroedingercat/doubting-ms-marco", ledger=None,
          out="pkg"):
    """Stage the release (as stage_release does), then publish it at root/out (package)."""
    assemble(root / "assembled", **kw)
    base = Work(root / "w").base
    ledger = ledger or root / "ledger.json"
    manifest = build_package(root / "assembled", root / "staged", version, repo_id, base / "inputs.json",
                             base / "llm_identity.json", {"doubting": {"version": version}, "sample_queries": True},
                             REPO, code_files(REPO), BATCH_DESCRIPTIONS, ledger, package_dir=root / out)
    publish_package(root / "staged", root / out, ledger)
    return manifest


def synthetic_kw(root: Path) -> dict:
    w = Work(root / "w")
    tq, tids = synthetic_split(w, "train", 400, 3, 10, 60, 1.2, grade_failure=0.01, wood_null=0.02, no_agent=0.03,
                               answer_failure=0.02)
    dq, dids = synthetic_split(w, "dev", 60, 2, 30, 400, 1.2, no_agent=0.05)
    w.ids(tids, dids, [("x1", "repeat", tids[0])])
    w.meta()
    return dict(ids={k: str(w.base / "ids" / f"{k}.{'tsv' if k == 'train_excluded' else 'txt'}")
                     for k in ("train_collection", "train_excluded", "dev_all")},
                shards={s: shard_paths_for(str(w.root / "work"), s, n) for s, n in (("train", 3), ("dev", 2))},
                train_qrels=str(tq), dev_qrels=str(dq),
                acquisition_batches={"train": {"default": "train-main"}, "dev": {"default": "dev-main"}},
                grading={"train": "query_only", "dev": "answer_hinted"})


@pytest.fixture(scope="module")
def edge_pkg(tmp_path_factory):
    root = tmp_path_factory.mktemp("edgepkg")
    build(root, edge_cases(root / "w"))
    return root / "pkg"


@pytest.fixture(scope="module")
def synth_pkg(tmp_path_factory):
    root = tmp_path_factory.mktemp("synthpkg")
    build(root, synthetic_kw(root))
    return root / "pkg"


def table(pkg, config, split) -> pd.DataFrame:
    return pq.read_table(pkg / config / f"{split}.parquet").to_pandas(types_mapper=pd.ArrowDtype)


def lines(path):
    return Path(path).read_text(encoding="utf-8").splitlines()


def none(x):
    return x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))


def check_card_invariants(pkg: Path) -> None:
    """Every rule of the card's Contents, Coverage and Schema sections that the files can show."""
    # files and schemas
    for config, splits in SPLITS.items():
        for split in splits:
            schema = pq.read_schema(pkg / config / f"{split}.parquet")
            assert [(f.name, str(f.type)) for f in schema] == CARD_SCHEMA[config], (config, split)
    for rel in ["README.md", "MANIFEST.json", "SHA256SUMS", "trec/dev.strict.qrels", "ids/train_collection.txt",
                "ids/train_excluded.tsv", "ids/dev_all.txt", "ids/dev_strict.txt", "examples/load.py",
                "examples/join_text.py", "examples/evaluate.py"]:
        assert (pkg / rel).is_file(), rel
    collection, dev_all = lines(pkg / "ids/train_collection.txt"), lines(pkg / "ids/dev_all.txt")
    excluded = pd.read_csv(pkg / "ids/train_excluded.tsv", sep="\t", dtype=str)
    assert list(excluded.columns) == ["query_id", "reason", "duplicate_of"]
    assert set(excluded["reason"]) <= {"heldout", "repeat"} and not set(excluded["query_id"]) & set(collection)

    for split in ("train", "dev"):
        j = table(pkg, "judgments", split)
        assert not j.duplicated(["query_id", "passage_id", "origin"]).any()
        assert set(j["origin"]) <= {"agent", "official"}
        assert j["grade"].notna().all() and j["grade"].between(0, 3).all()
        assert (j["grading"] == {"train": "query_only", "dev": "answer_hinted"}[split]).all()
        agent, official = j[j["origin"] == "agent"], j[j["origin"] == "official"]
        assert agent["agent_rank"].notna().all() and official["agent_rank"].isna().all()
        assert official["wood"].isna().all() and official["train_eligible"].isna().all()
        assert official["official_positive"].all() and j["official_positive"].notna().all()
        assert set(j["query_id"]) <= set(collection if split == "train" else dev_all)
        if split == "train":
            eligible = (agent["grade"] >= 2) & agent["wood"].notna()
            assert (agent["train_eligible"] == eligible).all()
            qrels = table(pkg, "qrels", "train")
            expect = agent[agent["train_eligible"]][["query_id", "passage_id", "grade"]].reset_index(drop=True)
            pd.testing.assert_frame_equal(qrels, expect, check_dtype=False)
            assert qrels["grade"].isin([2, 3]).all()
        else:
            assert j["wood"].isna().all() and j["train_eligible"].isna().all()
            assert not j.duplicated(["query_id", "passage_id"]).any()   # official rows only when not proposed
            qrels = table(pkg, "qrels", "dev")
            expect = j[j["grade"] == 3][["query_id", "passage_id", "grade"]].reset_index(drop=True)
            pd.testing.assert_frame_equal(qrels, expect, check_dtype=False)
            trec = [f"{a} 0 {b} 3" for a, b in zip(qrels["query_id"], qrels["passage_id"])]
            assert lines(pkg / "trec/dev.strict.qrels") == trec

    # train_queries
    j = table(pkg, "judgments", "train")
    agent = j[j["origin"] == "agent"]
    official = j[j["origin"] == "official"].set_index(["query_id", "passage_id"])
    tq = table(pkg, "train_queries", "train")
    assert sorted(tq["query_id"]) == sorted(collection) and tq["query_id"].is_unique
    n_agent = agent.groupby("query_id").size()
    n_elig = agent[agent["train_eligible"]].groupby("query_id").size()
    n_elig3 = agent[agent["train_eligible"] & (agent["grade"] == 3)].groupby("query_id").size()
    a_idx = agent.set_index(["query_id", "passage_id"])
    for r in tq.itertuples():
        assert r.n_agent == n_agent.get(r.query_id, 0) and r.agent_row == (r.n_agent > 0)
        assert r.n_eligible == n_elig.get(r.query_id, 0) and r.n_eligible_grade3 == n_elig3.get(r.query_id, 0)
        assert r.n_official >= (official.index.get_level_values(0) == r.query_id).sum()
        key = (r.query_id, r.positive_id)
        if r.n_eligible > 0:
            assert r.positive_source == "wood"
            best = agent[(agent["query_id"] == r.query_id) & agent["train_eligible"]]["wood"].max()
            assert a_idx.loc[key, "train_eligible"] and a_idx.loc[key, "wood"] == best == r.positive_wood
        elif none(r.positive_source):
            assert none(r.positive_id) and r.n_official == 0
        else:
            assert r.positive_source == "official_fallback" and r.n_official > 0
        if not none(r.positive_id):
            in_agent = key in a_idx.index
            assert none(r.positive_agent_grade) != in_agent
            if in_agent:
                assert r.positive_agent_grade == a_idx.loc[key, "grade"]
                assert none(r.positive_wood) == none(a_idx.loc[key, "wood"])
            else:
                assert none(r.positive_wood)
            if key in official.index:
                assert r.positive_official_grade == official.loc[key, "grade"]
            else:
                assert none(r.positive_official_grade)
        else:
            assert none(r.positive_agent_grade) and none(r.positive_official_grade) and none(r.positive_wood)
    ans = table(pkg, "generated_answers", "train")
    assert ans["query_id"].is_unique and set(ans["query_id"]) <= set(tq[tq["agent_row"]]["query_id"])
    assert ans["answer"].notna().all()

    # dev_queries
    dj = table(pkg, "judgments", "dev")
    dq = table(pkg, "dev_queries", "dev")
    assert sorted(dq["query_id"]) == sorted(dev_all) and dq["query_id"].is_unique
    judged = dj.groupby("query_id").size()
    strict = dj[dj["grade"] == 3].groupby("query_id").size()
    d_agent = dj[dj["origin"] == "agent"].groupby("query_id").size()
    for r in dq.itertuples():
        assert (r.n_judged, r.n_strict, r.n_agent) == (judged.get(r.query_id, 0), strict.get(r.query_id, 0),
                                                       d_agent.get(r.query_id, 0))
        assert r.strict_subset == (r.n_strict > 0)
    strict_ids = set(dq[dq["strict_subset"]]["query_id"])
    assert lines(pkg / "ids/dev_strict.txt") == [q for q in dev_all if q in strict_ids]

    # MANIFEST.json and the card's numbers
    man = json.loads((pkg / "MANIFEST.json").read_text())
    for config, splits in SPLITS.items():
        for split in splits:
            assert man["rows"][config][split] == pq.ParquetFile(pkg / config / f"{split}.parquet").metadata.num_rows
    for rel, digest in man["code"].items():
        assert sha256_file(REPO / rel) == digest
    assert man["llm"]["model"] and man["inputs"] and man["config"] and "grading_failures" in man
    readme = " ".join((pkg / "README.md").read_text().split())     # the card's prose is hard-wrapped
    for config, splits in SPLITS.items():
        for split in splits:
            assert f"| {man['rows'][config][split]:,} |" in readme
    assert f"({man['version']})" in readme and f"{len(strict_ids):,} queries of the strict subset" in readme
    subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=pkg, check=True)


def test_card_invariants_edge_cases(edge_pkg):
    check_card_invariants(edge_pkg)
    readme = " ".join((edge_pkg / "README.md").read_text().split())
    assert "4 chosen by WOOD and 4 official fallbacks" in readme and "1 queries have neither" in readme
    assert "train-pilot: 2 queries, a pilot run; train-main: 7 queries" in readme or \
        "train-main: 7 queries; train-pilot: 2 queries, a pilot run" in readme


def test_card_invariants_synthetic(synth_pkg):
    check_card_invariants(synth_pkg)


def test_sha256sums_format(synth_pkg):
    entries = lines(synth_pkg / "SHA256SUMS")
    paths = [e.split("  ", 1)[1] for e in entries]
    assert paths == sorted(paths) and "SHA256SUMS" not in paths
    everything = sorted(p.relative_to(synth_pkg).as_posix() for p in synth_pkg.rglob("*") if p.is_file())
    assert paths == [p for p in everything if p != "SHA256SUMS"]
    assert all(len(e.split("  ", 1)[0]) == 64 for e in entries)


def test_manifest_counts_failures(synth_pkg):
    man = json.loads((synth_pkg / "MANIFEST.json").read_text())
    failures = man["grading_failures"]
    assert failures["total"] == len(failures["pairs"]) > 0
    counts = man["counts"]
    assert failures["total"] == counts["train"]["grading_failure_count"] + counts["dev"]["grading_failure_count"]
    assert man["version"] == "v0.1-test" and "workflow_scripts/irdata/doubting/assemble.py" in man["code"]
    assert not any("44b" in rel for rel in man["code"])
    assert not any(name in rel for rel in man["code"] for name in
                   ("split_papers", "select_queries", "mine_negatives", "score_arms", "synthetic"))


def test_load_dataset_offline_every_config(synth_pkg, tmp_path):
    script = f"""
import json, sys
from datasets import load_dataset
pkg = {str(synth_pkg)!r}
out = {{}}
for config, splits in {SPLITS!r}.items():
    for split in splits:
        out[config + "/" + split] = load_dataset(pkg, config, split=split).num_rows
dd = load_dataset(pkg, "qrels")
out["qrels_splits"] = sorted(dd.keys())
out["default"] = sorted(load_dataset(pkg).keys())
row = load_dataset(pkg, "train_queries", split="train")[0]
out["row_keys"] = sorted(row)
print(json.dumps(out))
"""
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"),
               HF_DATASETS_CACHE=str(tmp_path / "hf/datasets"))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    man = json.loads((synth_pkg / "MANIFEST.json").read_text())
    for config, splits in SPLITS.items():
        for split in splits:
            assert got[f"{config}/{split}"] == man["rows"][config][split]
    assert got["qrels_splits"] == ["dev", "train"] and got["default"] == ["dev", "train"]
    assert got["row_keys"] == sorted(n for n, _ in CARD_SCHEMA["train_queries"])
    proc = subprocess.run([sys.executable, str(synth_pkg / "examples/load.py")], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"== judgments / dev: {man['rows']['judgments']['dev']:,} rows" in proc.stdout


def _write_run(pkg: Path, path: Path, seed=0):
    """A run over the strict queries: judged and unjudged passages, tied scores, missing queries."""
    rng = random.Random(seed)
    qrels = table(pkg, "judgments", "dev")
    queries = sorted(set(lines(pkg / "ids/dev_strict.txt")))
    with open(path, "w") as fh:
        for i, q in enumerate(queries):
            if i % 7 == 3:
                continue                                      # missing from the run: counts 0
            docs = list(qrels[qrels["query_id"] == q]["passage_id"])
            docs = rng.sample(docs, min(len(docs), rng.randint(0, 12))) + [f"u{rng.randint(0, 50)}" for _ in range(120)]
            for rank, d in enumerate(dict.fromkeys(docs), start=1):
                fh.write(f"{q} Q0 {d} {rank} {rng.choice([1.0, 0.5, 0.25, rng.random()]):.6f} run\n")
        fh.write("not-a-dev-query Q0 x 1 1.0 run\n")


def test_evaluate_matches_ir_measures(synth_pkg, tmp_path):
    import ir_measures
    from ir_measures import RR, R, nDCG

    run = tmp_path / "run.trec"
    _write_run(synth_pkg, run)
    proc = subprocess.run([sys.executable, str(synth_pkg / "examples/evaluate.py"), "--qrels",
                           str(synth_pkg / "trec/dev.strict.qrels"), "--run", str(run), "--json"],
                          capture_output=True, text=True, check=True)
    ours = json.loads(proc.stdout)
    ref = ir_measures.calc_aggregate([RR @ 10, nDCG @ 10, R @ 100],
                                     list(ir_measures.read_trec_qrels(str(synth_pkg / "trec/dev.strict.qrels"))),
                                     list(ir_measures.read_trec_run(str(run))))
    assert ours["queries"] == len(lines(synth_pkg / "ids/dev_strict.txt")) and ours["queries_missing_from_run"] > 0
    assert ours["MRR@10"] == pytest.approx(ref[RR @ 10], abs=1e-12)
    assert ours["nDCG@10"] == pytest.approx(ref[nDCG @ 10], abs=1e-12)
    assert ours["Recall@100"] == pytest.approx(ref[R @ 100], abs=1e-12)
    # graded qrels (train grades 2 and 3): nDCG uses the grade as gain, as ir_measures
    export = tmp_path / "train.qrels"
    subprocess.run([sys.executable, str(synth_pkg / "examples/evaluate.py"), "--export-train-qrels", str(export),
                    "--package", str(synth_pkg)], check=True, capture_output=True)
    q = table(synth_pkg, "qrels", "train")
    assert lines(export) == [f"{a} 0 {b} {g}" for a, b, g in zip(q["query_id"], q["passage_id"], q["grade"])]
    run2 = tmp_path / "run2.trec"
    with open(run2, "w") as fh:
        for i, (a, b) in enumerate(zip(q["query_id"], q["passage_id"])):
            if i % 3:
                fh.write(f"{a} Q0 {b} 1 {i % 5 / 5:.1f} r\n")
    proc = subprocess.run([sys.executable, str(synth_pkg / "examples/evaluate.py"), "--qrels", str(export), "--run",
                           str(run2), "--json"], capture_output=True, text=True, check=True)
    ours = json.loads(proc.stdout)
    ref = ir_measures.calc_aggregate([RR @ 10, nDCG @ 10, R @ 100], list(ir_measures.read_trec_qrels(str(export))),
                                     list(ir_measures.read_trec_run(str(run2))))
    assert (ours["MRR@10"], ours["nDCG@10"], ours["Recall@100"]) == pytest.approx(
        (ref[RR @ 10], ref[nDCG @ 10], ref[R @ 100]), abs=1e-12)


def test_join_text_keeps_origin(edge_pkg, tmp_path):
    judg = table(edge_pkg, "judgments", "train")
    (tmp_path / "collection.tsv").write_text("".join(f"{p}\ttext of {p}\n" for p in sorted(set(judg["passage_id"])))
                                             + "unused\tnever\n")
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\tquery {q}\n" for q in sorted(set(judg["query_id"]))))
    out = tmp_path / "joined.parquet"
    subprocess.run([sys.executable, str(edge_pkg / "examples/join_text.py"), "--config", "judgments", "--split",
                    "train", "--collection", str(tmp_path / "collection.tsv"),
                    "--queries", str(tmp_path / "queries.tsv"),
                    "--out", str(out)], check=True, capture_output=True)
    joined = pq.read_table(out).to_pandas()
    assert list(joined.columns) == [n for n, _ in CARD_SCHEMA["judgments"]] + ["query_text", "passage_text"]
    assert len(joined) == len(judg) and (joined["passage_text"] == "text of " + joined["passage_id"]).all()
    both = joined[(joined["query_id"] == "q4") & (joined["passage_id"] == "p7")]
    assert sorted(both["origin"]) == ["agent", "official"]


def test_two_builds_identical(tmp_path):
    build(tmp_path / "a", edge_cases(tmp_path / "a" / "w"))
    build(tmp_path / "b", edge_cases(tmp_path / "b" / "w"))
    assert (tmp_path / "a/pkg/SHA256SUMS").read_bytes() == (tmp_path / "b/pkg/SHA256SUMS").read_bytes()
    # and the same with a different shard count: no (the row order follows the shards), but the same rows
    build(tmp_path / "c", edge_cases(tmp_path / "c" / "w", 3, 1))
    assert json.loads((tmp_path / "a/pkg/MANIFEST.json").read_text())["rows"] == \
        json.loads((tmp_path / "c/pkg/MANIFEST.json").read_text())["rows"]


def test_release_version_is_frozen(tmp_path):
    kw = edge_cases(tmp_path / "w")
    ledger = tmp_path / "ledger.json"
    build(tmp_path, kw, version="v1", ledger=ledger)
    first = (tmp_path / "pkg/SHA256SUMS").read_bytes()
    build(tmp_path, kw, version="v1", ledger=ledger)                      # same content: fine
    assert (tmp_path / "pkg/SHA256SUMS").read_bytes() == first
    with pytest.raises(ReleaseFrozenError, match="bump doubting.version"):
        build(tmp_path, kw, version="v1", repo_id="someone/else", ledger=ledger)
    assert (tmp_path / "pkg/SHA256SUMS").read_bytes() == first           # the built release is untouched
    assert not [p for p in tmp_path.iterdir() if p.name.startswith((".pkg.", ".staged."))]   # no temp folder left
    build(tmp_path, kw, version="v2", repo_id="someone/else", ledger=ledger)
    assert set(json.loads(ledger.read_text())["releases"]) == {"v1", "v2"}
    # the published v1 is set aside, not deleted
    assert (tmp_path / "pkg@v1/SHA256SUMS").read_bytes() == first
    assert json.loads((tmp_path / "pkg/MANIFEST.json").read_text())["version"] == "v2"
