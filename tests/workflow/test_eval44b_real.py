"""44b Eval on real data: the ICLR 2017/2018 papers and reviews in ../shared/data/openreview-iclr,
built end to end by Snakemake (format openreview-iclr), then the card's invariants checked. The two
fine-tuned arms train a few steps (the test checks the wiring, not the quality: the numbers of a
full training are in the 44b notes). Required in CI: with CI=true a missing data folder fails.

By default the build takes half of the papers (a fixed half, by a hash of the paper id: ICLR 2017 papers
with their reviews and 2018 distractors alike), which halves its time; IRDATA_ICLR_PAPERS=all takes all
1,401 papers and 1,511 reviews."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from croissant_check import NO_DATE, NOT_SEMVER, check_croissant
from irdata.eval44b.card_hub import size_category
from irdata.eval44b.stages import CARD_KEYS
from release_loading import load_every_config
from repo_copy import REPO

pytestmark = pytest.mark.workflow

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "openreview-iclr"
SALT = "44b-training-pairs-2026-07-31:"
RELEASE = "results/44b-eval-iclr"
FILES = [
    "SHA256SUMS",
    "README.md",
    "manifest.json",
    "results.jsonl",
    "ranks.jsonl",
    "test.jsonl",
    "train_pairs.jsonl",
    "val_pairs.jsonl",
    "croissant.json",
]
# a few steps of each fine-tune on the train queries (~990 of all the papers), early-stopped on 16 val queries
FINETUNE = {
    "val_queries": 16,
    "cross_encoder": {"max_length": 128, "max_steps": 6, "batch_queries": 4, "negatives_per_step": 3, "eval_every": 3},
    "bi_encoder": {"max_length": 128, "max_steps": 6, "batch_queries": 4, "eval_every": 3},
}


def real_benchmark_card() -> dict:
    """The eval44b keys that say what the release is, at the schema's defaults (the real benchmark's: public
    ids, CC-BY-4.0): restated over config.yaml's demo values, as a user's overlay does (README)."""
    section: dict = {}
    validate(section, str(REPO / "schemas/eval44b.schema.yaml"))
    return {key: section[key] for key in CARD_KEYS}


def split_of(key: str) -> str:
    value = int(hashlib.sha256((SALT + key).encode()).hexdigest()[:16], 16) / 2**64
    return "train" if value < 0.8 else "val" if value < 0.9 else "test"


def read_jsonl(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def write_iclr_input(folder: Path) -> Path:
    """The papers and reviews the build reads: all of DATA, or the fixed half (module docstring)."""
    folder.mkdir(parents=True)
    every = os.environ.get("IRDATA_ICLR_PAPERS") == "all"
    papers = [p for p in read_jsonl(DATA / "papers.jsonl")
              if every or hashlib.sha256(p["paper_id"].encode()).digest()[0] < 128]
    kept = {p["paper_id"] for p in papers}
    for name, rows in (("papers.jsonl", papers),
                       ("reviews.jsonl", [r for r in read_jsonl(DATA / "reviews.jsonl") if r["paper_id"] in kept])):
        (folder / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def iclr_build(tmp_path_factory):
    if not (DATA / "papers.jsonl").is_file() or not (DATA / "reviews.jsonl").is_file():
        message = f"real ICLR data not found at {DATA} (shared/data is absent here)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; CI must run this test")
        pytest.skip(message)
    from conftest import Workflow, copy_repo

    wf = Workflow(copy_repo(tmp_path_factory.mktemp("iclr") / "wf"))
    data = write_iclr_input(wf.root / "iclr-data")
    extra = {
        "eval44b": {
            "papers": str(data / "papers.jsonl"),
            "reviews": str(data / "reviews.jsonl"),
            "format": "openreview-iclr",
            "release": RELEASE,
            "version": "v0.1-iclr",  # its own release, beside the demo's (irdata/demo_identity.py)
            # byte-comparable arms; the LLM arm (SmolLM2-135M on a CPU, ~30 s a query) is left out
            "scoring": {"record_timing": False, "llm": {"enabled": False}},
            "finetune": FINETUNE,
            **real_benchmark_card(),
        }
    }
    (wf.root / "iclr.yaml").write_text(yaml.safe_dump(extra))
    # the published folder is no Snakemake output: publish_44b's record is the target (rules/eval44b.smk)
    proc = wf.snakemake("publish_44b", "--cores", "2", "--configfile", "iclr.yaml", timeout=3000)
    assert sorted(path.name for path in (wf.root / RELEASE).iterdir()) == sorted(FILES)
    # the run's last lines say what it published where
    assert f"44b Eval: published release v0.1-iclr at {RELEASE}." in proc.stderr.splitlines()[-4:], proc.stderr[-2000:]
    return wf


def test_iclr_release_keeps_the_card_invariants(iclr_build):
    wf = iclr_build
    rel = wf.root / RELEASE
    papers = {p["paper_id"]: p for p in read_jsonl(wf.root / "iclr-data/papers.jsonl")}
    reviews = {r["note_id"]: r for r in read_jsonl(wf.root / "iclr-data/reviews.jsonl")}
    manifest = json.loads((rel / "manifest.json").read_text())
    test = read_jsonl(rel / "test.jsonl")
    train = read_jsonl(rel / "train_pairs.jsonl")
    val = read_jsonl(rel / "val_pairs.jsonl")
    assert test and train and val

    for split, rows in (("test", test), ("train", train), ("val", val)):
        for row in rows:
            review = reviews[row["note_id"]]
            pos = row["positive"]
            # the positive is the reviewed paper, in this split by the salted hash recomputed here
            assert pos == {
                "scheme": "openreview",
                "id": review["paper_id"],
                "url": f"https://openreview.net/forum?id={review['paper_id']}",
            }
            assert split_of(f"openreview:{pos['id']}") == split
            assert len(" ".join((review["summary_first_paragraph"] or "").split())) >= 200
            negs = row["negatives"]
            assert len(negs) == 8 and len({n["id"] for n in negs}) == 8 and pos["id"] not in {n["id"] for n in negs}
            for n in negs:
                assert n["id"] in papers
            titles = [" ".join(papers[n["id"]]["title"].lower().split()) for n in negs]
            assert " ".join(papers[pos["id"]]["title"].lower().split()) not in titles
    for row in test:
        assert list(row) == ["note_id", "note_url", "kind", "positive", "negatives"]
        assert all(list(n) == ["scheme", "id", "url"] for n in row["negatives"])

    proof = manifest["disjointness"]
    test_papers = {r["positive"]["id"] for r in test}
    train_negs = {n["id"] for r in train for n in r["negatives"]}
    assert proof["test_papers_positive_in_train"] == 0
    assert not test_papers & {r["positive"]["id"] for r in train}
    assert proof["test_papers"] == len(test_papers)
    assert proof["test_papers_as_train_negatives"] == len(test_papers & train_negs) == 0  # withheld by default
    assert manifest["mining"]["train_negatives_exclude"] == ["test"]
    counts = manifest["counts"]
    assert counts["queries_released"] == {"train": len(train), "val": len(val), "test": len(test)}
    for split in ("train", "val", "test"):
        assert (
            counts["queries"][split] == counts["queries_released"][split] + counts["queries_lacking_negatives"][split]
        )
    assert manifest["id_schemes"]["collection"] == {"openreview": len(papers)}

    results = {r["arm"]: r for r in read_jsonl(rel / "results.jsonl")}
    assert set(results) == {"random", "bm25", "dense", "hybrid_rrf", "finetuned_cross_encoder", "finetuned_bi_encoder"}
    for r in results.values():
        assert r["queries"] == len(test) and r["truncation"] == {"query_chars": 600, "document_chars": 900}
    assert results["random"]["chance"]["within"] is True
    assert results["bm25"]["P@1"] > results["random"]["P@1"]
    for arm, kind in (("finetuned_cross_encoder", "cross_encoder"), ("finetuned_bi_encoder", "bi_encoder")):
        training = results[arm]["training"]
        report = json.loads((wf.root / f"work/eval44b/models/{kind}.train.json").read_text())
        assert training["model_sha256"] == report["model_sha256"] == results[arm]["model_sha256"]
        assert 22_000_000 < training["parameters"] < 23_000_000 and training["steps"] <= 6
        assert training["train_seconds"] is None  # record_timing false
        assert manifest["scoring"]["fine_tuned"][arm] == training
    assert manifest["mining"]["shared_with_arms"]["dense"]["arms_with_the_same_model"] == ["dense", "hybrid_rrf"]
    card = (rel / "README.md").read_text()
    assert f"{len(test)} test queries over {len(test_papers)} papers" in card and "finetuned_cross_encoder" in card
    assert counts["papers_released"]["test"] == len(test_papers)
    header = yaml.safe_load(card.split("---\n", 2)[1])
    assert header["license"] == "cc-by-4.0"
    # real ids: the benchmark's wording, with the fetch instructions and the citation
    assert card.split("---\n", 2)[2].lstrip("\n").startswith("# 44b Eval\n\nA frozen 9-way reranking benchmark")
    assert "**Rebuilding the text.**" in card and "```bibtex\n@misc{44beval2026," in card and "invented" not in card
    assert header["size_categories"] == [size_category(sum(counts["queries_released"].values()))]
    # ranks.jsonl: a row per (arm, query), each arm's metrics recomputed from it
    ranks = read_jsonl(rel / "ranks.jsonl")
    assert len(ranks) == len(results) * len(test) == manifest["files"]["ranks.jsonl"]["rows"]
    for arm, r in results.items():
        mine = [q["rank"] for q in ranks if q["arm"] == arm]
        assert r["MRR"] == pytest.approx(sum(1 / k for k in mine) / len(mine)), arm
    # every config of the header loads with datasets, offline (results.jsonl mixes the arms' extra fields)
    loaded = load_every_config(rel, header["configs"], wf.root / "hf")
    assert loaded["results"] == {"test": len(results)} and loaded["ranks"] == {"test": len(ranks)}
    assert loaded["default"] == {"test": len(test)}

    if shutil.which("sha256sum"):
        subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=rel, check=True)
    check_croissant(rel, (NO_DATE, NOT_SEMVER))
    print(
        "\n44b on ICLR:",
        json.dumps({"counts": counts, "disjointness": {k: v for k, v in proof.items() if not k.endswith("_ids")}}),
    )
    for r in results.values():
        print(
            f"{r['arm']:<14} P@1 {r['P@1']:.3f} P@2 {r['P@2']:.3f} P@3 {r['P@3']:.3f} MRR {r['MRR']:.3f} "
            f"mean rank {r['mean_rank']:.3f}"
        )


def test_iclr_mining_and_scoring_rerun_byte_identical(iclr_build):
    """Mining the test split again, and scoring the random and BM25 arms again, give the same bytes.
    (The whole build twice, and packaging, are compared byte for byte in tests/unit/test_eval44b_package.py;
    a second full build of the real data would double this test's time.)"""
    wf = iclr_build
    files = ["work/eval44b/mined/test.jsonl", "work/eval44b/mined/test.report.json"]
    arms = ["work/eval44b/arms/random.json", "work/eval44b/arms/bm25.json"]
    before = {name: (wf.root / name).read_bytes() for name in files + arms}
    wf.snakemake(*files, "--cores", "2", "--forcerun", "mine_negatives", "--configfile", "iclr.yaml")
    wf.snakemake(*arms, "--cores", "2", "--forcerun", "score_arms", "--configfile", "iclr.yaml")
    for name in files + arms:
        assert (wf.root / name).read_bytes() == before[name], name


def test_iclr_cross_encoder_brought_by_path_scores_like_the_trained_arm(iclr_build):
    """A user's cross-encoder arm (eval44b.scoring.cross_encoders) pointing at a copy of the model the
    workflow trained gives the fine-tuned arm's ranks, on the same 9-candidate sets. Another arm is another release:
    under the published version a real run stops before its first job; under a new one it is published, the first
    kept beside it, as the run's last lines say."""
    wf = iclr_build
    shutil.copytree(wf.root / "work/eval44b/models/cross_encoder", wf.root / "brought-reranker")
    spec = {"name": "brought", "model": "brought-reranker", "max_length": FINETUNE["cross_encoder"]["max_length"]}
    config = yaml.safe_load((wf.root / "iclr.yaml").read_text())
    config["eval44b"]["scoring"]["cross_encoders"] = [spec]
    (wf.root / "brought.yaml").write_text(yaml.safe_dump(config))
    arm = "work/eval44b/arms/cross_encoder-brought.json"
    frozen = wf.snakemake(arm, "--cores", "2", "--configfile", "brought.yaml", check=False)
    assert frozen.returncode != 0 and "Frozen release versions" in frozen.stderr and not (wf.root / arm).exists()
    assert "add --config 'eval44b={version: v0.1-iclr-2}' to the command" in frozen.stderr
    first = (wf.root / RELEASE / "SHA256SUMS").read_bytes()
    proc = wf.snakemake("publish_44b", "--cores", "2", "--configfile", "brought.yaml", "--config",
                        "eval44b={version: v0.1-iclr-2}")
    assert (f"44b Eval: published release v0.1-iclr-2 at {RELEASE}; release v0.1-iclr, published there before, is "
            f"kept at {RELEASE}@v0.1-iclr.") in proc.stderr.splitlines()[-4:], proc.stderr[-2000:]
    assert (wf.root / f"{RELEASE}@v0.1-iclr/SHA256SUMS").read_bytes() == first
    for folder in (RELEASE, f"{RELEASE}@v0.1-iclr"):
        subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=wf.root / folder, check=True)
    assert "cross_encoder-brought" in (wf.root / RELEASE / "results.jsonl").read_text()
    brought = json.loads((wf.root / arm).read_text())
    trained = json.loads((wf.root / "work/eval44b/arms/finetuned_cross_encoder.json").read_text())
    assert brought["ranks"] == trained["ranks"] and brought["metrics"] == trained["metrics"]
    assert brought["model_sha256"] == trained["model_sha256"] and "training" not in brought
