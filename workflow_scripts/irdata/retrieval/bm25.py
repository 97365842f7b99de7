"""BM25 (Lucene variant) with bm25s: build an index from a collection, load it memory-mapped, search.

bm25s precomputes every (passage, term) score into a sparse matrix, so a query costs a few
column slices and one top-k. The index folder holds bm25s's arrays and vocabulary, the passage ids
and the tokenizer settings; queries are tokenized with the same settings and mapped through the
saved vocabulary, and an index built with other settings is refused.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from ..atomic import atomic_dir
from ..logs import peak_rss_mb
from .common import (
    Hits,
    IdMap,
    check_settings,
    collection_table,
    ids_digest,
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


def sort_vocabulary(retriever: bm25s.BM25, block: int = 1 << 16) -> None:
    """Renumber an indexed vocabulary in sorted token order, permuting the score matrix to match.

    With a stemmer, bm25s numbers the stems in the order of a Python set, which PYTHONHASHSEED
    salts per process, so two builds of one collection would write different (equivalent) files.
    Columns move in blocks, so the extra memory stays a fraction of the matrix.
    """
    scores, vocab = retriever.scores, retriever.vocab_dict
    indptr = scores["indptr"]
    columns = len(indptr) - 1
    tokens = sorted(token for token, column in vocab.items() if column < columns)
    old = np.fromiter((vocab[token] for token in tokens), dtype=np.int64, count=len(tokens))
    lengths = np.diff(indptr)[old]
    new_indptr = np.zeros_like(indptr)
    np.cumsum(lengths, out=new_indptr[1:])
    data, indices = np.empty_like(scores["data"]), np.empty_like(scores["indices"])
    for first in range(0, columns, block):
        cols = slice(first, min(first + block, columns))
        lo, hi = new_indptr[cols.start], new_indptr[cols.stop]
        gather = np.repeat(indptr[old[cols]] - new_indptr[cols], lengths[cols]) + np.arange(lo, hi)
        data[lo:hi], indices[lo:hi] = scores["data"][gather], scores["indices"][gather]
    retriever.scores = {**scores, "data": data, "indices": indices, "indptr": new_indptr}
    # tokens without a column (bm25s's empty token) keep their ids, after the sorted ones
    retriever.vocab_dict = {token: rank for rank, token in enumerate(tokens)} | {
        token: column for token, column in vocab.items() if column >= columns}
    retriever.unique_token_ids_set = set(retriever.vocab_dict.values())


def build_bm25_index(collection, out_dir, settings: dict, show_progress: bool = True) -> dict:
    """Index a collection (a `pid<TAB>text` path, or an (id, text) table) into `out_dir`, atomically."""
    start = time.perf_counter()
    table = collection_table(collection)
    texts = table.column("text").to_pylist()
    tokens = bm25s.tokenize(texts, lower=True, token_pattern=TOKEN_PATTERN, stopwords=settings["stopwords"],
                            stemmer=_stemmer(settings["stemmer"]), return_ids=True, show_progress=show_progress)
    del texts
    retriever = bm25s.BM25(k1=settings["k1"], b=settings["b"], method=METHOD)
    retriever.index(tokens, show_progress=show_progress)
    sort_vocabulary(retriever)
    stats = {"passages": table.num_rows, "vocabulary": len(retriever.vocab_dict),
             "postings": int(len(retriever.scores["data"]))}
    with atomic_dir(out_dir) as tmp:
        retriever.save(tmp, show_progress=False)
        write_ids(tmp, table.column("id"))
        write_settings(tmp, {"kind": "bm25", "method": METHOD, "token_pattern": TOKEN_PATTERN, "lower": True,
                             "bm25s": bm25s.__version__, "ids_sha256": ids_digest(table.column("id")),
                             **{key: settings[key] for key in BUILD_KEYS}, **stats})
        stats["bytes"] = sum(f.stat().st_size for f in tmp.iterdir())
    stats.update(seconds=round(time.perf_counter() - start, 1), peak_rss_mb=round(peak_rss_mb()))
    log.info("BM25 index %s: %s", out_dir, stats)
    return stats


class BM25Index:
    """A built BM25 index, memory-mapped; refuses one built with settings other than `settings`."""

    def __init__(self, directory, settings: dict):
        directory = Path(directory)
        self.settings = settings
        self.stored = read_settings(directory, "bm25")
        check_settings(directory, self.stored, {"method": METHOD, "token_pattern": TOKEN_PATTERN,
                                                **{key: settings[key] for key in BUILD_KEYS}},
                       "Rebuild it (rule index_bm25) or set retrieval.bm25 in the config to the index's values.")
        self.retriever = bm25s.BM25.load(directory, mmap=True, load_vocab=True)
        self.vocab = self.retriever.vocab_dict
        self.vocab.pop("", None)  # bm25s's placeholder for empty documents is no query term
        self.ids = IdMap(directory)
        self.ids_sha256 = self.stored["ids_sha256"]

    def __len__(self) -> int:
        return len(self.ids)

    def token_ids(self, queries: list[str]) -> list[list[int]]:
        """Vocabulary ids of each query's tokens; words the collection never uses are dropped."""
        return [[self.vocab[t] for t in query if t in self.vocab] for query in tokenize(queries, self.settings)]

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


def reference_bm25(corpus_tokens: list[list[str]], settings: dict):
    """rank_bm25 (the design card's implementation) scoring the same Lucene variant, for checks.

    rank_bm25's Okapi idf floors negative values; Lucene's idf, log(1 + (N - df + .5) / (df + .5)),
    is what bm25s computes. The tf part matches bm25s's times (k1 + 1), which leaves rankings alone.
    """
    import math

    from rank_bm25 import BM25Okapi

    class LuceneBM25(BM25Okapi):
        def _calc_idf(self, nd):
            self.idf = {w: math.log(1 + (self.corpus_size - df + 0.5) / (df + 0.5)) for w, df in nd.items()}

    return LuceneBM25(corpus_tokens, k1=settings["k1"], b=settings["b"])
