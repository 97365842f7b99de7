"""ir_datasets ids as a build's source (irdata/sources/ir_datasets.py): read through ir_datasets' own API into the
checked files every input check writes, held out as every held-out rule says, refused offline when the cache does
not hold them, and planned by the workflow. Every dataset is made here (tests/ir_datasets_cache.py), never
downloaded."""

import os
import subprocess
import sys
import textwrap
from collections import namedtuple
from typing import NamedTuple

import pyarrow.compute as pc
import pytest
import yaml

from demo_config import workflow_builds
from ir_datasets_cache import SCIFACT_DOCS, readme_overlay, register_local, scifact_cache
from irdata.build_grading import grading_mode
from irdata.dedup import dedup_train_queries
from irdata.errors import InputError
from irdata.heldout import Source, read_checked_heldout
from irdata.input_keys import missing_inputs
from irdata.passage_store import PassageStore
from irdata.query_files import read_queries
from irdata.sources.ir_datasets import (
    IR_DATASETS,
    BadRecord,
    _relevance,
    cache_folder,
    read_docs,
    validate_ir_datasets_inputs,
)
from irdata.sources.registry import SOURCES, source_of, train_heldout_conflicts
from irdata.tsv import read_trec_qrels
from repo_copy import REPO, copy_repo
from workflow_run import Workflow

CHECKED = ("train_qrels", "dev_qrels", "dev_answers", "train_queries", "dev_queries", "heldout_queries")
DOCS = [("p1", "the alpha passage"), ("p2", "the beta passage"), ("p3", "the gamma passage")]
# train query t3 repeats eval query e1 under the text rule, t2 repeats dev query d1 under another id
SPLITS = {"train": ([("t1", "what is alpha"), ("t2", "Where is BETA?"), ("t3", "gamma, again"), ("t4", "no qrels")],
                    [("t1", "p1", 1), ("t2", "p2", 0), ("t3", "p3", 2)]),
          "dev": ([("d1", "where is beta")], [("d1", "p2", 1)]),
          "eval": ([("e1", "Gamma again")], [("e1", "p3", 1)])}


def source(ids, **over) -> dict:
    return {"format": "ir_datasets", "docs_id": ids["docs"], "train_id": ids["train"], "dev_id": ids["dev"],
            "heldout_ids": [ids["eval"]], "heldout_queries": [], **over}


def check(tmp_path, src, heldout=(), **kw):
    out = {key: tmp_path / "out" / key for key in CHECKED}
    report = validate_ir_datasets_inputs(src, list(heldout), checked=out, passage_store=tmp_path / "p.arrow", **kw)
    return out, report


def test_the_ids_are_read_into_the_files_every_input_check_writes(tmp_path):
    ids = register_local(tmp_path / "files", DOCS, SPLITS)
    out, report = check(tmp_path, source(ids))
    # the same formats as the MS MARCO and BEIR checks: TREC qrels, qid TAB text queries, answers as JSON lines
    qrels = read_trec_qrels(out["train_qrels"])
    assert qrels.column("query_id").to_pylist() == ["t1", "t2", "t3"]
    assert qrels.column("relevance").to_pylist() == [1, 0, 2]
    assert out["train_qrels"].read_text() == "t1\t0\tp1\t1\nt2\t0\tp2\t0\nt3\t0\tp3\t2\n"
    assert read_queries(out["train_queries"]).column("query_id").to_pylist() == ["t1", "t2", "t3", "t4"]
    assert out["dev_queries"].read_text() == "d1\twhere is beta\n"
    assert out["dev_answers"].read_text() == ""  # ir_datasets gives no reference answers
    store = PassageStore(tmp_path / "p.arrow")
    assert len(store) == 3 and store.get("p2") == "the beta passage"
    assert report["rows"] | {"collection": 3, "train_queries": 4, "train_qrels": 3, "dev_queries": 1,
                             "dev_qrels": 1, "dev_answers": 0} == report["rows"]
    # the inputs are the ids, named apart from files
    assert report["inputs"] == [f"ir_datasets:{ids[k]}" for k in ("docs", "train", "dev", "eval")]
    assert report["train_source"] == {"keys": ["source.train_id"], "file": f"ir_datasets:{ids['train']}"}


def test_held_out_ids_and_files_dedup_the_train_queries_across_ids(tmp_path):
    ids = register_local(tmp_path / "files", DOCS, SPLITS)
    listed = tmp_path / "more.tsv"
    listed.write_text("x1\tWHAT is alpha\n")
    out, report = check(tmp_path, source(ids), [Source("source.heldout_queries[0]", str(listed))])
    # the dev id first, then the held-out ids, then the listed files: each (id, text) once, with its source
    assert [s["keys"] for s in report["heldout_sources"]] == [
        ["source.dev_id"], ["source.heldout_ids[0]"], ["source.heldout_queries[0]"]]
    held = read_checked_heldout(out["heldout_queries"])
    assert held.column("query_id").to_pylist() == ["d1", "e1", "x1"]
    sources = [(Source.from_record(record), held.filter(pc.equal(held.column("source"), i)))
               for i, record in enumerate(report["heldout_sources"])]
    result = dedup_train_queries((Source.from_record(report["train_source"]), read_queries(out["train_queries"])),
                                 sources)
    excluded = result.excluded.set_index("query_id")
    # query-text normalization: case, punctuation and whitespace do not keep a held-out text in train
    assert result.collection == ["t4"]
    assert excluded.loc["t1", "source_key"] == "source.heldout_queries[0]"
    assert excluded.loc["t2", "source_key"] == "source.dev_id" and excluded.loc["t2", "duplicate_of"] == "d1"
    assert excluded.loc["t3", "source_key"] == "source.heldout_ids[0]"
    assert excluded.loc["t3", "source_file"] == f"ir_datasets:{ids['eval']}"


def test_a_held_out_id_holding_every_train_query_is_refused(tmp_path):
    ids = register_local(tmp_path / "files", DOCS, SPLITS)
    with pytest.raises(InputError, match="source.heldout_ids"):
        check(tmp_path, source(ids, heldout_ids=[ids["train"]]))
    assert not (tmp_path / "out").exists() and not (tmp_path / "p.arrow").exists()


def test_a_qrels_row_of_a_doc_not_in_the_docs_is_refused_or_dropped(tmp_path):
    splits = {**SPLITS, "dev": ([("d1", "where is beta")], [("d1", "p2", 1), ("d1", "p9", 1)])}
    ids = register_local(tmp_path / "files", DOCS, splits)
    with pytest.raises(InputError, match="p9") as error:
        check(tmp_path, source(ids))
    assert f"ir_datasets:{ids['dev']}" in str(error.value)
    _, report = check(tmp_path, source(ids), qrels_missing_passages="drop")
    assert report["qrels_dropped"] == {"train": 0, "dev": 1}


@pytest.mark.parametrize("queries, said", [
    ([("d1", "where is beta"), ("d2", "x"), ("d1", "again")], "query 'd1': its id is given twice"),
    ([("d1", "where is beta"), ("d2", "   ")], "query 'd2': its text has no word"),
    # punctuation only: the dedup's text rule would leave it empty and merge it with every other such query
    ([("d1", "where is beta"), ("d2", "?!")], "query 'd2': its text has no word"),
    # a line ir_datasets' TSV reader refuses (three fields): its error, in a line naming the id
    ([("d1", "where\tis beta")], "ir_datasets could not read its queries (doubting.source.dev_id): RuntimeError: "
                                 "expected 2 fields, got 3")])
def test_queries_the_query_files_could_not_hold_are_refused_naming_the_id(tmp_path, queries, said):
    ids = register_local(tmp_path / "files", DOCS, {**SPLITS, "dev": (queries, [("d1", "p2", 1)])})
    with pytest.raises(InputError) as error:
        check(tmp_path, source(ids))
    assert str(error.value).startswith(f"ir_datasets:{ids['dev']}") and said in str(error.value)
    assert not (tmp_path / "out").exists()


def test_qrels_and_docs_the_checked_files_could_not_hold_are_refused_naming_the_id(tmp_path):
    """A (query, doc) pair given twice and a doc id given twice, as the readers of the checked files refuse them;
    nothing written."""
    ids = register_local(tmp_path / "files", DOCS, {**SPLITS, "dev": ([("d1", "where is beta")],
                                                                      [("d1", "p2", 1), ("d1", "p2", 2)])})
    with pytest.raises(InputError, match="the pair of query 'd1' and doc 'p2' is given twice") as error:
        check(tmp_path, source(ids))
    assert str(error.value).startswith(f"ir_datasets:{ids['dev']}")
    ids = register_local(tmp_path / "again", [*DOCS, ("p1", "a second p1")], SPLITS)
    with pytest.raises(InputError, match="doc 'p1': its id is given twice"):
        check(tmp_path, source(ids))
    assert not (tmp_path / "out").exists() and not (tmp_path / "p.arrow").exists()


def test_a_relevance_that_is_no_integer_is_refused_not_truncated():
    qrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    assert _relevance(qrel("q1", "d1", -1, "0")) == -1
    for value in (1.5, "2", True, 10**9):
        with pytest.raises(BadRecord, match=f"query 'q1' and doc 'd1': relevance {value!r} is not an integer"):
            _relevance(qrel("q1", "d1", value, "0"))


class TitledDoc(NamedTuple):
    """A doc without a text field, as msmarco-document's: its default text holds its title."""

    doc_id: str
    title: str
    body: str

    def default_text(self):
        return f"{self.title} {self.body}"


def test_a_doc_without_a_text_field_is_its_default_text_and_its_title_is_not_added_again(tmp_path):
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TsvDocs
    from ir_datasets.util import LocalDownload

    (tmp_path / "docs.tsv").write_text("p1\tAlpha\tthe alpha passage\np2\t\tthe beta passage\n")
    ir_datasets.registry.register("irdata-test-titled", Dataset(TsvDocs(LocalDownload(tmp_path / "docs.tsv"),
                                                                        TitledDoc, namespace="irdata-test-titled")))
    docs = read_docs("docs_id", "irdata-test-titled")
    assert docs.column_names == ["id", "text"]
    assert docs.column("text").to_pylist() == ["Alpha the alpha passage", " the beta passage"]


def test_a_docs_file_the_handler_cannot_name_without_downloading_sizes_nothing(tmp_path):
    """Some handlers' docs_path takes no `force` (args.me, touche): the size hint is then None, not a traceback."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset

    class Handler:
        def docs_handler(self):
            return self

        def docs_path(self):
            raise AssertionError("would download")

        def docs_cls(self):
            return TitledDoc

    ir_datasets.registry.register("irdata-test-noforce", Dataset(Handler()))
    assert IR_DATASETS.size_path({"source": {"docs_id": None, "train_id": "irdata-test-noforce"}}) is None


def test_an_id_the_cache_does_not_hold_is_refused_naming_it_and_the_cache_folder(tmp_path):
    """A dataset whose file would be downloaded: refused before any download, nothing written."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TsvDocs
    from ir_datasets.util import Download, RequestsDownload

    ids = register_local(tmp_path / "files", DOCS, SPLITS)
    remote = Download([RequestsDownload("https://example.invalid/docs.tsv")], cache_path=str(tmp_path / "docs.tsv"))
    ir_datasets.registry.register(f"{ids['docs']}-remote", Dataset(TsvDocs(remote)))
    with pytest.raises(InputError) as error:
        check(tmp_path, source(ids, docs_id=f"{ids['docs']}-remote"))
    message = str(error.value)
    assert message.startswith(f"ir_datasets:{ids['docs']}-remote")
    assert cache_folder() in message and "https://example.invalid/docs.tsv" in message
    assert "doubting.source.docs_id" in message
    assert not (tmp_path / "docs.tsv").exists() and not (tmp_path / "out").exists()


RUN_CHECK = textwrap.dedent("""
    import json, sys
    from irdata.sources.ir_datasets import validate_ir_datasets_inputs
    out = sys.argv[1]
    src = {"format": "ir_datasets", "docs_id": None, "train_id": "beir/scifact/train",
           "dev_id": "beir/scifact/test", "heldout_ids": [], "heldout_queries": []}
    report = validate_ir_datasets_inputs(src, [], checked={k: f"{out}/{k}" for k in sys.argv[2:]},
                                         passage_store=f"{out}/p.arrow")
    print(json.dumps(report["rows"]))
""")


def run_check(tmp_path, home):
    env = dict(os.environ, IR_DATASETS_HOME=str(home), PYTHONPATH=str(REPO / "workflow_scripts"))
    return subprocess.run([sys.executable, "-c", RUN_CHECK, str(tmp_path), *CHECKED], env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_beir_id_is_read_offline_from_a_cache_laid_out_as_ir_datasets_lays_it_out(tmp_path):
    proc = run_check(tmp_path, scifact_cache(tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = PassageStore(tmp_path / "p.arrow")
    assert len(store) == len(SCIFACT_DOCS) and store.title("d1") == "Alpha" and store.title("d2") == ""
    # a split's queries are those of its qrels (ir_datasets' beir/<name>/<split>)
    assert (tmp_path / "dev_queries").read_text() == "q2\twhere is delta\nq3\tWhat is zeta?\n"
    assert read_queries(tmp_path / "train_queries").column("query_id").to_pylist() == ["q1", "q4", "q5"]


def test_an_empty_cache_is_refused_in_a_few_lines_naming_the_id_and_the_folder(tmp_path):
    home = tmp_path / "empty-home"
    proc = run_check(tmp_path, home)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert "ir_datasets:beir/scifact/train" in last and f"ir_datasets cache {home}" in last
    assert not (home / "beir/scifact/source.zip").exists() and not (tmp_path / "train_qrels").exists()


def test_planning_refuses_unknown_ids_and_a_train_id_held_out():
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["builds"]["mine"] = {"version": "v1", "source": {
        "format": "ir_datasets", "train_id": "beir/scifact/train", "dev_id": "beir/scifact/train",
        "heldout_ids": ["no/such/id"]}}
    built = workflow_builds(config)["mine"]
    lines = missing_inputs({"mine": built}, config, REPO)
    assert "builds.mine.source.heldout_ids[0]: 'no/such/id' is no ir_datasets id" in "\n".join(lines)
    assert train_heldout_conflicts({"mine": built}, REPO) == [
        "builds.mine.source.dev_id: beir/scifact/train is also builds.mine.source.train_id: its queries would be held "
        "out and trained on at once; name another id"]
    # no reference answers: the dev split grades query_only, as a BEIR build's
    assert grading_mode(built, "dev").name == "query_only"
    assert source_of(built["doubting"]) is IR_DATASETS is SOURCES["ir_datasets"]
    assert IR_DATASETS.raw_inputs(built["doubting"]) == [
        "ir_datasets:beir/scifact/train", "ir_datasets:no/such/id"]


def test_an_ir_datasets_build_plans_in_a_copy_of_the_repository(tmp_path, monkeypatch):
    root = copy_repo(tmp_path / "repo")
    (root / "my-irds.yaml").write_text(readme_overlay())
    monkeypatch.setenv("IR_DATASETS_HOME", str(scifact_cache(tmp_path / "home")))
    rules = Workflow(root).planned_rules("scifact", "--configfile", "config.yaml", "my-irds.yaml")
    assert "validate_ir_datasets_inputs" in rules
    assert {"dedup_train_queries", "shard_queries_scifact", "agent_search", "stage_release"} <= set(rules)
    assert "validate_msmarco_inputs" not in rules and "validate_beir_inputs" not in rules
    assert "validate_ir_datasets_inputs" in Workflow(root).planned_rules(
        "irds-msmarco", "--configfile", "config.yaml", "my-irds.yaml")
    # an id ir_datasets does not register stops the planning, naming its key
    (root / "typo.yaml").write_text("builds: {scifact: {source: {dev_id: beir/scifact/tset}}}\n")
    proc = Workflow(root).snakemake("-n", "scifact", "--configfile", "config.yaml", "my-irds.yaml", "typo.yaml",
                                    check=False)
    assert proc.returncode != 0
    assert "builds.scifact.source.dev_id: 'beir/scifact/tset' is no ir_datasets id" in proc.stdout + proc.stderr


def test_planning_sizes_the_encoding_from_the_docs_file_and_reads_the_train_qrels_lazily(tmp_path):
    from irdata.downstream.plan import training_query_problem

    ids = register_local(tmp_path / "files", DOCS, SPLITS)
    doubting = {"source": source(ids)}
    # the docs' file as ir_datasets names it, without a pass over the docs
    assert IR_DATASETS.size_path(doubting) == str(tmp_path / "files/docs.tsv")
    name, relevances = IR_DATASETS.train_qrels(doubting)
    assert name == f"ir_datasets:{ids['train']}" and list(relevances) == [1, 0, 2]
    assert training_query_problem(doubting) is None
    unjudged = register_local(tmp_path / "unjudged", DOCS, {**SPLITS, "train": (SPLITS["train"][0], [("t1", "p1", 0)])})
    assert training_query_problem({"source": source(unjudged)}) == (
        f"the train qrels ir_datasets:{unjudged['train']} hold no positive pair (relevance 1 or more), so no train "
        "query has the official positive both arms train on: the comparison can have no training query")
