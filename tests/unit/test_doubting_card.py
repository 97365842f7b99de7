"""The Doubting MS MARCO card from the build: rendered from MANIFEST.json alone, the grading modes the
config used (from the grading-mode registry), the Hub front matter, the graded dev qrels and the BM25
baseline run of examples/."""

import json
import re
from collections import Counter

import pyarrow.parquet as pq
import pytest
import yaml
from snakemake.utils import validate
from test_doubting_package import BATCH_DESCRIPTIONS, REPO, build

from irdata.doubting import card
from irdata.doubting.baseline_run import DEPTH, run_counts
from irdata.doubting.hub_metadata import size_category
from irdata.errors import InputError
from irdata.passage_store import write_passage_store
from irdata.retrieval.baseline_run import write_bm25_run
from irdata.retrieval.bm25 import build_bm25_index
from irdata.retrieval.search import Searcher
from irdata.sources.registry import card_words
from irdata.stage_registry import STAGES
from synthetic_doubting import Work, edge_cases


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    root = tmp_path_factory.mktemp("cardpkg")
    build(root, edge_cases(root / "w"))
    return root


def manifest_of(root) -> dict:
    return json.loads((root / "pkg/MANIFEST.json").read_text())


def rendered(root, manifest: dict) -> str:
    inputs = json.loads((Work(root / "w").base / "inputs.json").read_text())
    return card.render(manifest, inputs, BATCH_DESCRIPTIONS, card_words(manifest["config"]["doubting"]))


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_card_is_rendered_from_the_manifest(released):
    assert rendered(released, manifest_of(released)) == (released / "pkg/README.md").read_text()


def test_the_card_states_the_grading_modes_the_config_used(released):
    default = flat((released / "pkg/README.md").read_text())
    # the demo's kind of build: its own corpus and answers, not MS MARCO's
    assert ("Training grades see only the query and the passage (grading = query_only). Development grades see also "
            "the reference answer, as a fallible hint; other correct answers count (grading = answer_hinted)."
            in default)
    assert "MS MARCO reference answer" not in default
    assert "Train and dev grades therefore come from different settings" in default
    assert "| grading | string | query_only (train) or answer_hinted (dev) |" in default

    manifest = manifest_of(released)
    manifest["config"]["doubting"]["ids_refer_to"] = "msmarco-v1"
    assert ("Development grades see also the MS MARCO reference answer, as a fallible hint; other correct answers "
            "count (grading = answer_hinted).") in flat(rendered(released, manifest))
    manifest["config"]["annotation"]["grading"]["dev"] = "query_only"
    text = flat(rendered(released, manifest))
    assert "Development grades see only the query and the passage (grading = query_only)." in text
    assert "answer_hinted" not in text and "reference answer, as a fallible hint" not in text
    assert "Development grades see also" not in text
    assert "Train and dev grades come from the same setting." in text
    assert "| grading | string | query_only (the grading mode; the same on train and dev) |" in text


def test_a_beir_build_is_named_for_its_corpus_and_its_join_recipe(released):
    manifest = manifest_of(released)
    d = manifest["config"]["doubting"]
    d.update(title="Doubting SciFact", ids_refer_to="collection", corpus_description="",
             source={"format": "beir", "folder": "data/scifact", "train_split": "train", "dev_split": "test",
                     "heldout_queries": []})
    manifest["config"]["annotation"]["grading"]["dev"] = "query_only"
    text = rendered(released, manifest)
    assert text.startswith("---\npretty_name: Doubting SciFact\n") and "# Doubting SciFact" in text
    assert "Doubting MS MARCO" not in text.replace("in the format of the Doubting MS MARCO release", "")
    body = flat(text)
    assert ("the BEIR folder `data/scifact`: the passages of its corpus.jsonl (with their titles) and the queries of "
            "its qrels split `train` (train) and `test` (dev); BEIR gives no reference answers, so the dev split was "
            "graded with the query and the passage only (query_only)") in body
    assert "The ids refer to the corpus in `doubting.source.folder`" in body
    rel = "../../data/scifact"  # package_dir results/doubting-ms-marco: the command runs from the package
    assert f"--collection {rel}/corpus.jsonl \\ --queries {rel}/queries.jsonl" in body


def test_the_card_states_the_agent_budgets_of_the_config(released):
    manifest = manifest_of(released)
    manifest["config"]["annotation"]["agent"]["dev"]["max_proposals"] = 123
    assert "A proposal list may hold 123 passages per query on the development run and 60 on train" in flat(
        rendered(released, manifest))


@pytest.mark.parametrize("rows, bucket", [
    (0, "n<1K"), (999, "n<1K"), (1_000, "1K<n<10K"), (9_999, "1K<n<10K"), (10_000, "10K<n<100K"),
    (238_184, "100K<n<1M"), (1_000_000, "1M<n<10M"), (8_100_490, "1M<n<10M"), (11_817_930, "10M<n<100M"),
    (10**9, "1B<n<10B"), (10**12, "n>1T")])
def test_size_category_is_the_hubs_bucket(rows, bucket):
    assert size_category(rows) == bucket


def test_size_category_refuses_a_negative_count():
    with pytest.raises(ValueError, match="row count must be >= 0"):
        size_category(-1)


def test_front_matter_is_yaml_with_the_hub_keys(released):
    text = (released / "pkg/README.md").read_text()
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["language"] == ["en"] and header["license"] == "other"
    assert header["task_categories"] == ["text-retrieval"] and header["task_ids"] == ["document-retrieval"]
    largest = max(sum(splits.values()) for splits in manifest_of(released)["rows"].values())
    assert header["size_categories"] == [size_category(largest)]
    assert header["configs"][0] == {"config_name": "qrels", "default": True, "data_files": [
        {"split": "train", "path": "qrels/train.parquet"}, {"split": "dev", "path": "qrels/dev.parquet"}]}


def test_graded_dev_qrels_hold_every_dev_judgment_in_order(released):
    pkg = released / "pkg"
    judgments = pq.read_table(pkg / "judgments/dev.parquet").to_pylist()
    graded = (pkg / "trec/dev.graded.qrels").read_text().splitlines()
    assert graded == [f"{j['query_id']} 0 {j['passage_id']} {j['grade']}" for j in judgments]
    assert len({tuple(line.split()[::2]) for line in graded}) == len(graded)  # one line per pair
    strict = (pkg / "trec/dev.strict.qrels").read_text().splitlines()
    assert set(strict) == {line for line in graded if line.endswith(" 3")}
    trec = manifest_of(released)["trec"]
    at_least = {str(g): len({j["query_id"] for j in judgments if j["grade"] >= g}) for g in (1, 2, 3)}
    assert trec["trec/dev.graded.qrels"] == {"lines": len(graded), "queries_grade2": at_least["2"],
                                             "queries_min_grade": at_least}
    assert trec["trec/dev.strict.qrels"]["lines"] == len(strict)
    sums = (pkg / "SHA256SUMS").read_text()
    assert "  trec/dev.graded.qrels\n" in sums and "  examples/bm25_dev.trec\n" in sums
    text = flat((pkg / "README.md").read_text())
    assert "nDCG@10 with graded gains: use trec/dev.graded.qrels" in text
    assert "MRR@10 and Recall@100: use trec/dev.strict.qrels" in text


WORDS = "river bank money loan interest rate water flow fish boat bridge city tower light".split()


def test_bm25_dev_run_is_the_searchers_ranking_as_a_trec_run(tmp_path):
    tsv = tmp_path / "collection.tsv"
    tsv.write_text("".join(f"{pid}\t{' '.join(WORDS[(pid * k) % len(WORDS)] for k in range(1, 6))}\n"
                           for pid in range(40)))
    write_passage_store(tsv, tmp_path / "passages.arrow")
    retrieval = {}
    validate(retrieval, str(REPO / "schemas/retrieval.schema.yaml"))
    build_bm25_index(tmp_path / "passages.arrow", tmp_path / "bm25", retrieval["bm25"], show_progress=False)
    (tmp_path / "dev_all.txt").write_text("q2\nq1\nq3\n")
    queries = {"q1": "river bank loan", "q2": "fish boat", "q3": "the of and", "q9": "not a dev query"}
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\t{text}\n" for q, text in queries.items()))
    settings = STAGES["bm25_dev_run"].settings({"retrieval": retrieval})

    counts = write_bm25_run(dev_all=tmp_path / "dev_all.txt", queries=tmp_path / "queries.tsv", bm25=[],
                            run=tmp_path / "run.trec", settings=settings, bm25_dir=tmp_path / "bm25")
    searcher = Searcher({"bm25": retrieval["bm25"]}, bm25_dir=tmp_path / "bm25")
    expected = [f"{q} Q0 {pid} {rank} {score:.6f} bm25" for q in ("q2", "q1", "q3")
                for pid, score, rank in searcher.bm25(queries[q], k=DEPTH)]
    lines = (tmp_path / "run.trec").read_text().splitlines()
    assert lines == expected and lines and not any(line.startswith("q3 ") for line in lines)
    assert counts == {"queries": 3, "queries_with_hits": 2, "lines": len(lines)}
    # what the card says of the file is counted from it: here no query reaches DEPTH (40 passages)
    per_query = Counter(line.split()[0] for line in lines)
    run = run_counts(tmp_path / "run.trec")
    assert run == {"depth": DEPTH, "lines": len(lines), "queries_with_lines": 2, "queries_at_depth": 0,
                   "fewest_lines": min(per_query.values())}
    graded = {"lines": 2, "queries_grade2": 1, "queries_min_grade": {"1": 1, "2": 1, "3": 1}}
    text = card.bm25_run_text({"retrieval": retrieval}, {"queries": 3}, run,
                              {"trec/dev.strict.qrels": {"lines": 1}, "trec/dev.graded.qrels": graded})
    assert f"at most {DEPTH} passages a query, those that share a term with it" in text
    fewest = min(per_query.values())
    assert f"It has {len(lines)} lines on 2 queries; 0 have {DEPTH}, 2 fewer (the fewest {fewest}" in text
    assert "1 has no line (no query term is in the index)" in text
    (tmp_path / "empty.trec").write_text("")
    assert run_counts(tmp_path / "empty.trec")["queries_with_lines"] == 0
    before = (tmp_path / "run.trec").read_bytes()
    write_bm25_run(dev_all=tmp_path / "dev_all.txt", queries=tmp_path / "queries.tsv", bm25=[],
                   run=tmp_path / "run.trec", settings=settings, bm25_dir=tmp_path / "bm25")
    assert (tmp_path / "run.trec").read_bytes() == before

    (tmp_path / "dev_all.txt").write_text("q1\nq7\n")
    with pytest.raises(InputError, match=r"queries.tsv: 1 dev query ids of .*dev_all.txt have no text here"):
        write_bm25_run(dev_all=tmp_path / "dev_all.txt", queries=tmp_path / "queries.tsv", bm25=[],
                       run=tmp_path / "x.trec", settings=settings, bm25_dir=tmp_path / "bm25")


def test_the_card_names_the_held_out_sources_and_the_text_rule(released):
    """The train coverage names each held-out source that excluded train queries, every source the build held out
    (inputs.json) and the one text rule (irdata/query_text.py)."""
    text = flat((released / "pkg/README.md").read_text())
    assert "minus 1 whose text equals that of a held-out development or test query (from `dev_queries`) and 1" in text
    assert ("texts compared under one rule: format characters (zero-width characters, soft hyphens, byte-order marks "
            "and the other default-ignorable code points) removed, Unicode NFKC normalization, case folding, "
            "punctuation removed and whitespace collapsed (ids/train_excluded.tsv names, for each, the query it "
            "duplicates and that query's source: its config key and file)." in text)
    assert ("Held out, whether heldout_queries lists them or not, are the build's own evaluation queries (its "
            "development queries and the label audit's) with every file heldout_queries lists, each query under the "
            "first source holding it: `dev_queries`, `heldout_queries[0]`: queries.dev.tsv (7 queries); "
            "`audit.queries`: queries.audit.tsv (1 query)." in text)
    manifest = manifest_of(released)
    manifest["counts"]["train"]["heldout_sources"].append({"key": "audit.queries", "file": "a.tsv", "queries": 2})
    inputs = json.loads((Work(released / "w").base / "inputs.json").read_text())
    manifest["config"]["doubting"]["source"] = {"format": "beir", "folder": "beir", "train_split": "train",
                                                "dev_split": "test", "heldout_queries": []}
    manifest["config"]["annotation"]["grading"]["dev"] = "query_only"  # a BEIR build's: it has no answers
    beir = {**inputs, "format": "beir", "heldout_sources": [
        {"keys": ["source.dev_split"], "file": "beir/qrels/test.tsv", "queries": 3},
        {"keys": ["source.folder"], "file": "beir/qrels/Dev.tsv.gz", "queries": 1}]}
    text = flat(card.render(manifest, beir, BATCH_DESCRIPTIONS, card_words(manifest["config"]["doubting"])))
    assert "held-out development or test query (1 from `dev_queries`, 2 from `audit.queries`) and" in text
    assert ("Held out, whether source.heldout_queries lists them or not, are the build's own evaluation queries "
            "(every qrels split of its folder but the train split, and the label audit's queries) with every file "
            "source.heldout_queries lists, each query under the first source holding it: `source.dev_split`: "
            "beir/qrels/test.tsv (3 queries); `source.folder`: beir/qrels/Dev.tsv.gz (1 query)." in text)



def test_an_ir_datasets_build_card_names_its_ids_and_joins_with_ir_datasets(released):
    """A build read through ir_datasets (irdata/sources/ir_datasets.py): its card names the ids it was built from,
    its held-out ids, and joins texts with ir_datasets rather than with files."""
    manifest = manifest_of(released)
    inputs = json.loads((Work(released / "w").base / "inputs.json").read_text())
    manifest["config"]["doubting"]["ids_refer_to"] = "collection"
    manifest["config"]["doubting"]["source"] = {
        "format": "ir_datasets", "docs_id": None, "train_id": "beir/scifact/train", "dev_id": "beir/scifact/test",
        "heldout_ids": ["beir/scifact/dev"], "heldout_queries": []}
    manifest["config"]["annotation"]["grading"]["dev"] = "query_only"
    irds = {**inputs, "format": "ir_datasets", "heldout_sources": [
        {"keys": ["source.dev_id"], "file": "ir_datasets:beir/scifact/test", "queries": 3}]}
    text = flat(card.render(manifest, irds, BATCH_DESCRIPTIONS, card_words(manifest["config"]["doubting"])))
    assert "built by its workflow from the ir_datasets ids `beir/scifact/train` (the passages), " in text
    assert "`beir/scifact/test` (dev queries and qrels), read from the ir_datasets cache" in text
    assert "This is not MS MARCO: the ids are those of these datasets." in text
    assert "the ir_datasets id `beir/scifact/test`" in text
    assert ("Held out, whether source.heldout_queries lists them or not, are the build's own evaluation queries (the "
            "queries of `beir/scifact/test`, `beir/scifact/dev` and the label audit's)") in text
    assert "The ids refer to the ir_datasets datasets of `doubting.source` of the build config" in text
    assert "`queries_iter()` of the query's dataset" in text and "examples/join_text.py" not in text

AUDIT = {"pairs": 215, "qrels": "qrels.dl19.txt", "grading": "query_only", "kappa_linear": 0.41234,
         "kappa_quadratic": 0.5876, "binary_agreement_at_2": 0.84, "exact_agreement": 0.5,
         "confusion": [[30, 5, 2, 1], [6, 10, 4, 2], [3, 4, 20, 6], [1, 2, 5, 19]],
         "failures": {"failed": 3}, "passages_missing": 0}


def opening(text: str) -> str:
    """The card's first paragraph after its title."""
    return flat(text.split("\n# ", 1)[1].split("\n\n")[1])


def test_a_build_without_a_label_audit_opens_by_saying_its_labels_are_not_measured(released):
    """As a build whose audit shows the labels mean nothing: what was not measured and the keys that measure it
    come first; the counts of positives that follow are the model's grades, said as such."""
    manifest = manifest_of(released)
    assert manifest["audit"] is None
    text = rendered(released, manifest)
    first = opening(text)
    assert first.startswith("**The labels of this build are not measured.** No label audit was run "
                            "(doubting.audit.qrels is null): how well its model (SmolLM2-135M-Instruct) grades")
    assert "set doubting.audit.qrels" in first and "doubting.audit.queries" in first
    body = flat(text)
    assert body.index("are not measured") < body.index("training-positive pair")
    assert "By its model's unverified grades it provides 8 training-positive pairs and 3 strict-positive pairs" in body
    assert "It provides" not in body

    # an audit with a kappa of moderate agreement: no banner, the counts as they are
    text = flat(rendered(released, {**manifest, "audit": AUDIT}))
    assert "not measured" not in text.split("## Label audit")[0] and "mean nothing" not in text
    assert "It provides 8 training-positive pairs and 3 strict-positive pairs covering 2 development queries" in text
    # an audit whose kappa is below slight agreement: the banner that says so, and the counts as the model's
    low = flat(rendered(released, {**manifest, "audit": {**AUDIT, "kappa_linear": 0.05}}))
    assert low.split("# Doubting MS MARCO (v0.1-test) ")[1].startswith("**The labels of this build mean nothing.**")
    assert "By its model's unverified grades it provides" in low


def test_a_beir_builds_dev_queries_are_those_of_its_split_not_the_whole_query_file(released):
    manifest = manifest_of(released)
    manifest["config"]["doubting"].update(
        ids_refer_to="collection", source={"format": "beir", "folder": "data/mine", "train_split": "train",
                                           "dev_split": "test", "heldout_queries": []})
    manifest["config"]["annotation"]["grading"]["dev"] = "query_only"
    inputs = json.loads((Work(released / "w").base / "inputs.json").read_text())
    inputs["rows"]["dev_queries"] = manifest["counts"]["dev"]["queries"]  # the queries of qrels/test.tsv
    text = flat(card.render(manifest, inputs, BATCH_DESCRIPTIONS, card_words(manifest["config"]["doubting"])))
    assert ("**Dev.** All 4 queries of the BEIR split `test` (the queries of data/mine/qrels/test.tsv in "
            "data/mine/queries.jsonl).") in text
    assert "dev query file" not in text


def test_counts_take_the_number_of_their_noun(released):
    """A count of 1 is never followed by a plural noun, wherever the card prints one."""
    manifest = manifest_of(released)
    rows = manifest["rows"]
    rows["qrels"]["train"] = 1
    manifest["counts"]["dev"]["official_positives"] = 1
    text = flat(rendered(released, manifest))
    assert "provides 1 training-positive pair and 3 strict-positive pairs covering 2 development queries" in text
    assert "the dev set has 1 official positive pair in total" in text
    assert "1 proposal has no finite WOOD score" in text  # edge_cases: one train proposal without WOOD
    assert "for the 1 train proposal without a finite score" in text
    for noun in ("pairs", "queries", "proposals", "positives", "passages", "runs", "items", "lines", "searches",
                 "calls", "judgments", "rows", "positive pairs", "graded pairs"):
        assert not re.search(rf"(?<![\d,.]) 1 {noun}\b", " " + text), noun


def test_a_local_build_names_no_hub_url_and_a_published_one_its_page(released, tmp_path):
    croissant = json.loads((released / "pkg/croissant.json").read_text())
    assert "url" not in croissant and croissant["citeAs"] == "Shroedingercat/doubting-ms-marco v0.1-test"
    for name in ("croissant.json", "README.md", "MANIFEST.json"):
        assert "huggingface.co" not in (released / "pkg" / name).read_text(), name
    build(tmp_path, edge_cases(tmp_path / "w"), on_hub=True)
    croissant = json.loads((tmp_path / "pkg/croissant.json").read_text())
    page = "https://huggingface.co/datasets/Shroedingercat/doubting-ms-marco"
    assert croissant["url"] == page and croissant["citeAs"] == f"Shroedingercat/doubting-ms-marco v0.1-test, {page}"
