"""Mining independent of the arms: a miner with its own settings gets an index of its own, built with
its own model, and the Searcher refuses to mine that index with the arms' model; the manifest says
which arms share a miner's model."""

import json
from pathlib import Path

import pytest
import yaml

from irdata.eval44b.mine_run import build_miner_index, index_recipe
from irdata.eval44b.package import shared_models
from irdata.passage_store import write_passage_store
from irdata.retrieval.common import IndexMismatchError
from irdata.retrieval.search import Searcher
from unit.eval44b_tiny import tiny_sentence_transformer

REPO = Path(__file__).resolve().parents[2]
BM25 = {"k1": 0.9, "b": 0.4, "stopwords": "en", "stemmer": "english"}
# the schema's dense settings (schemas/retrieval.schema.yaml), with the packaged MiniLM on the CPU
MINILM = {**{key: spec["default"] for key, spec in yaml.safe_load(
    (REPO / "schemas/retrieval.schema.yaml").read_text())["properties"]["dense"]["properties"].items()},
    "batch_size": 8, "device": "cpu"}


def test_a_miner_mines_with_its_own_model_and_bm25(tmp_path):
    tsv = tmp_path / "papers.tsv"
    tsv.write_text(
        "".join(f"p:{i}\tA paper about topic {i}: {w} methods.\n" for i, w in enumerate(["graph", "speech", "robot"]))
    )
    collection = tmp_path / "passages.arrow"
    write_passage_store(tsv, collection)
    own = {"bm25": {**BM25, "k1": 1.2}, "dense": {**MINILM, "model": tiny_sentence_transformer(tmp_path)}}
    for kind in ("bm25", "dense"):
        build_miner_index(kind=kind, collection=collection, index_files=[], index_dir=tmp_path / kind,
                          settings=own[kind])
    assert json.loads((tmp_path / "bm25/settings.json").read_text())["k1"] == 1.2
    searcher = Searcher(own, bm25_dir=tmp_path / "bm25", dense_dir=tmp_path / "dense")
    assert len(searcher.dense("speech", k=3, exclude=["p:0"])) == 2
    assert index_recipe(searcher)["dense"]["model"] == own["dense"]["model"]
    with pytest.raises(IndexMismatchError):  # the arms' model may not search the miner's index
        Searcher({"bm25": BM25, "dense": MINILM}, dense_dir=tmp_path / "dense")
    with pytest.raises(IndexMismatchError):
        Searcher({"bm25": BM25, "dense": MINILM}, bm25_dir=tmp_path / "bm25")


def test_the_manifest_names_the_arms_that_share_a_miners_model():
    arms = {
        "random": {"kind": "random"},
        "bm25": {"kind": "bm25", "bm25": BM25},
        "dense": {"kind": "dense", "dense": MINILM},
        "hybrid_rrf": {"kind": "hybrid_rrf", "bm25": BM25, "dense": MINILM},
        "finetuned_bi_encoder": {"kind": "dense", "dense": {**MINILM, "model": "work/eval44b/models/bi_encoder"}},
    }
    same = shared_models({"bm25": BM25, "dense": MINILM}, arms)
    assert same["lexical"]["arms_with_the_same_model"] == ["bm25", "hybrid_rrf"]
    assert same["dense"]["arms_with_the_same_model"] == ["dense", "hybrid_rrf"]
    other = shared_models({"bm25": {**BM25, "k1": 1.2}, "dense": {**MINILM, "model": "text-embedding-3-small"}}, arms)
    assert other["lexical"]["arms_with_the_same_model"] == [] and other["dense"]["arms_with_the_same_model"] == []
    assert other["dense"]["settings"]["model"] == "text-embedding-3-small"
