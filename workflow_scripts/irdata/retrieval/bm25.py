"""BM25 (Lucene variant) with bm25s: build an index from a passage store in chunks, load it memory-mapped, search.

bm25s precomputes every (passage, term) score into a sparse matrix, so a query costs a few
column slices and one top-k. The index folder holds bm25s's arrays and vocabulary, the sorted
vocabulary as an Arrow column (searched by binary search, so a searcher never parses the JSON one),
the passage ids and the tokenizer settings; queries are tokenized with the same settings, and an
index built with other settings is refused.

The build tokenizes the collection CHUNK_ROWS passages at a time (with bm25s's tokenizer) and keeps
only numpy arrays of (term, count) per passage; document frequencies and the average length are
known once every chunk is in, and then each chunk's scores go straight into their place in the
column-major (CSC) matrix. bm25s's own `index` holds every token of the collection as Python lists
(~25 GB at 8.8M passages); this writes the same files, byte for byte, in a fraction of that.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing as mp
import time
from pathlib import Path

import bm25s
import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import Stemmer
from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

from ..atomic import atomic_dir
from ..id_order import IdLookup
from ..logs import peak_rss_mb
from ..passage_store import open_store
from .common import (
    Hits,
    IdMap,
    check_settings,
    read_settings,
    top_k_rows,
    write_ids,
    write_settings,
)

log = logging.getLogger(__name__)
logging.getLogger("bm25s").setLevel(logging.INFO)  # bm25s sets its logger to DEBUG on import

METHOD = "lucene"
TOKEN_PATTERN = r"(?u)\b\w\w+\b"  # bm25s's (scikit-learn's) default, recorded so queries match
# Settings that change the index's contents; all must match between the index and the config.
BUILD_KEYS = ("k1", "b", "stopwords", "stemmer")
VOCAB_FILE = "vocab.arrow"
CHUNK_ROWS = 200_000  # passages tokenized at once: bounds the Python token lists alive at any time


def _stemmer(name):
    if name is None:
        return None
    try:
        return Stemmer.Stemmer(name)
    except KeyError:
        raise ValueError(f"unknown stemmer {name!r}; choose one of {sorted(Stemmer.algorithms())} or null") from None


def tokenize(texts: list[str], settings: dict, show_progress: bool = False) -> list[list[str]]:
    """Lower-cased word tokens minus stopwords, stemmed: exactly what the index was built from."""
    return bm25s.tokenize(texts, lower=True, token_pattern=TOKEN_PATTERN, stopwords=settings["stopwords"],
                          stemmer=_stemmer(settings["stemmer"]), return_ids=False, show_progress=show_progress)


def chunk_terms(texts: list[str], settings: dict) -> tuple:
    """Tokenize passages: (stems, and per (passage, term) pair in passage order: the term's index
    in `stems` and its count; terms per passage; tokens per passage)."""
    tokenized = bm25s.tokenize(texts, lower=True, token_pattern=TOKEN_PATTERN, stopwords=settings["stopwords"],
                               stemmer=_stemmer(settings["stemmer"]), return_ids=True, show_progress=False)
    stems = [""] * len(tokenized.vocab)
    for stem, number in tokenized.vocab.items():
        stems[number] = stem
    lengths = np.fromiter(map(len, tokenized.ids), dtype=np.int64, count=len(texts))
    flat = np.fromiter(itertools.chain.from_iterable(tokenized.ids), dtype=np.int64, count=int(lengths.sum()))
    width = max(len(stems), 1)
    pairs, counts = np.unique(np.repeat(np.arange(len(texts), dtype=np.int64), lengths) * width + flat,
                              return_counts=True)
    return (stems, (pairs % width).astype(np.int32),
            counts.astype(np.min_scalar_type(int(counts.max(initial=0)))),
            np.bincount(pairs // width, minlength=len(texts)).astype(np.int32), lengths.astype(np.int32))


def _rows_terms(task) -> tuple:
    path, start, end, settings = task
    return chunk_terms(open_store(path).index_texts(start, end), settings)


@contextlib.contextmanager
def _chunks_of(store, ranges, settings: dict, workers: int):
    """chunk_terms of each row range, in order; in `workers` forked processes when above 1."""
    if workers <= 1 or len(ranges) <= 1:
        yield (chunk_terms(store.index_texts(start, end), settings) for start, end in ranges)
        return
    # fork, not spawn: a Snakemake script has no __main__ guard, spawn would run it again
    with mp.get_context("fork").Pool(min(workers, len(ranges))) as pool:
        yield pool.imap(_rows_terms, [(str(store.path), start, end, settings) for start, end in ranges])


def build_bm25_index(collection, out_dir, settings: dict, show_progress: bool = True, workers: int = 1,
                     chunk_rows: int = CHUNK_ROWS) -> dict:
    """Index a passage store (a PassageStore or its path) into `out_dir`, atomically."""
    from tqdm import tqdm

    start_time = time.perf_counter()
    store = open_store(collection)
    n = len(store)
    _stemmer(settings["stemmer"])  # an unknown stemmer fails before any work
    vocab: dict[str, int] = {}  # stem -> column, numbered in first-seen order until the end
    chunks = []
    ranges = [(first, min(first + chunk_rows, n)) for first in range(0, n, chunk_rows)]
    with _chunks_of(store, ranges, settings, workers) as results:
        for (first, _), (stems, terms, counts, per_passage, lengths) in tqdm(
                zip(ranges, results), total=len(ranges), desc="BM25 tokenize", unit="chunk",
                disable=not show_progress):
            column = np.fromiter((vocab.setdefault(stem, len(vocab)) for stem in stems), dtype=np.int32,
                                 count=len(stems))
            chunks.append((first, column[terms], counts, per_passage, lengths))
    if not vocab:
        raise ValueError("no passage has a word to index: every text is empty or only stopwords")
    tokenized = time.perf_counter() - start_time
    retriever = bm25s.BM25(k1=settings["k1"], b=settings["b"], method=METHOD)
    retriever.scores, tokens = _score_matrix(chunks, vocab, n, settings)
    retriever.nonoccurrence_array = None  # the Lucene variant has none
    # bm25s's vocabulary (as its `index` makes it, in sorted order): "" scores empty passages, no column
    retriever.vocab_dict = {token: rank for rank, token in enumerate(tokens)} | {"": len(tokens)}
    stats = {"passages": n, "vocabulary": len(retriever.vocab_dict), "postings": int(len(retriever.scores["data"]))}
    with atomic_dir(out_dir) as tmp:
        retriever.save(tmp, show_progress=False)
        with ipc.new_file(tmp / VOCAB_FILE, pa.schema([("token", pa.string())])) as writer:
            writer.write_table(pa.table({"token": pa.array(tokens, pa.string())}))
        write_ids(tmp, store.ids)
        write_settings(tmp, {"kind": "bm25", "method": METHOD, "token_pattern": TOKEN_PATTERN, "lower": True,
                             "bm25s": bm25s.__version__, "ids_sha256": store.ids_sha256,
                             **{key: settings[key] for key in BUILD_KEYS}, **stats})
        stats["bytes"] = sum(f.stat().st_size for f in tmp.iterdir())
    stats.update(seconds=round(time.perf_counter() - start_time, 1), tokenize_seconds=round(tokenized, 1),
                 peak_rss_mb=round(peak_rss_mb()), workers=workers)
    log.info("BM25 index %s: %s", out_dir, stats)
    return stats


def _score_matrix(chunks: list, vocab: dict, n: int, settings: dict) -> tuple[dict, list[str]]:
    """bm25s's CSC score matrix (columns in sorted token order) from the chunks, which it empties.

    The arithmetic is bm25s's (its idf and tf functions, float64 then float32), so the scores are
    bit for bit those of bm25s's `index`; rows ascend within a column, as its CSC builder leaves them.
    """
    size = len(vocab)
    df = np.zeros(size, dtype=np.int64)
    total_tokens = 0
    for _, terms, _, _, lengths in chunks:
        df += np.bincount(terms, minlength=size)
        total_tokens += int(lengths.sum(dtype=np.int64))
    avg_len = np.float64(total_tokens) / n  # = bm25s's np.mean of the lengths (an exact integer sum)
    idf_of, tfc_of = _select_idf_scorer(METHOD), _select_tfc_scorer(METHOD)
    idf = np.array([idf_of(d, N=n) for d in df.tolist()], dtype=np.float32)
    first_seen = list(vocab)
    order = sorted(range(size), key=first_seen.__getitem__)
    sorted_column = np.empty(size, dtype=np.int64)
    sorted_column[order] = np.arange(size)
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(df[order], out=indptr[1:])
    data, indices = np.empty(indptr[-1], dtype=np.float32), np.empty(indptr[-1], dtype=np.int32)
    heads = indptr[:-1].copy()  # next free slot of each column
    chunks.reverse()
    while chunks:  # popped, so each chunk's arrays are freed once placed
        first, terms, counts, per_passage, lengths = chunks.pop()
        rows = np.repeat(np.arange(first, first + len(per_passage), dtype=np.int32), per_passage)
        tfc = tfc_of(tf_array=counts.astype(np.float32), l_d=np.repeat(lengths, per_passage), l_avg=avg_len,
                     k1=settings["k1"], b=settings["b"])
        scores = (idf[terms] * tfc).astype(np.float32)
        columns = sorted_column[terms]
        by_column = np.argsort(columns, kind="stable")  # keeps rows ascending within a column
        columns = columns[by_column]
        starts = np.flatnonzero(np.r_[True, columns[1:] != columns[:-1]])
        sizes = np.diff(np.r_[starts, len(columns)])
        slots = heads[columns] + np.arange(len(columns)) - np.repeat(starts, sizes)
        data[slots], indices[slots] = scores[by_column], rows[by_column]
        heads[columns[starts]] += sizes
    return ({"data": data, "indices": indices, "indptr": indptr, "num_docs": n},
            [first_seen[i] for i in order])


class BM25Index:
    """A built BM25 index, memory-mapped (bm25s's arrays, the vocabulary and the ids); refuses one
    built with settings other than `settings`."""

    def __init__(self, directory, settings: dict):
        directory = Path(directory)
        self.settings = settings
        self.stored = read_settings(directory, "bm25")
        check_settings(directory, self.stored, {"method": METHOD, "token_pattern": TOKEN_PATTERN,
                                                **{key: settings[key] for key in BUILD_KEYS}},
                       "Rebuild it (rule index_bm25) or set retrieval.bm25 in the config to the index's values.")
        self.retriever = bm25s.BM25.load(directory, mmap=True, load_vocab=False)
        vocab = ipc.open_file(pa.memory_map(str(directory / VOCAB_FILE))).read_all()
        self.vocab = IdLookup(vocab.column("token"), None)  # sorted tokens: a token's row is its column
        self.ids = IdMap(directory)
        self.ids_sha256 = self.stored["ids_sha256"]

    def __len__(self) -> int:
        return len(self.ids)

    def token_ids(self, queries: list[str]) -> list[list[int]]:
        """Vocabulary ids of each query's tokens; words the collection never uses are dropped."""
        return [[int(c) for c in self.vocab.find(query) if c >= 0] for query in tokenize(queries, self.settings)]

    def search_ids(self, token_ids: list[int], k: int, exclude_rows: np.ndarray | None = None) -> Hits:
        """Top-k passages sharing a term with the query; none when no query term is in the collection."""
        if not token_ids or k <= 0:
            return Hits.empty()
        scores = self.retriever.get_scores_from_ids(token_ids)
        if exclude_rows is not None and len(exclude_rows):
            scores[exclude_rows] = 0
        # Lucene idf is positive, so score > 0 exactly for passages that contain a query term
        rows, top = top_k_rows(scores, k, 0.0)
        return Hits(self.ids.take(rows), top.astype(np.float32), rows)


def run_index_bm25(*, store, index, settings: dict, index_dir, threads: int = 1) -> dict:
    """The index_bm25 rule: the index (its files: `index`) in `index_dir`, tokenized by `threads` processes."""
    return build_bm25_index(store, index_dir, settings, workers=threads)
