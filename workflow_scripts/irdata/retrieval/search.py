"""The one search API of the workflow: BM25, dense and reciprocal-rank fusion over a collection.

    searcher = Searcher(settings=config["retrieval"], bm25_dir="work/index/msmarco/bm25",
                        dense_dir="work/index/msmarco/dense", threads=snakemake.threads)
    searcher.prepare(shard_queries)   # their query vectors in batched model calls, kept for dense()/hybrid()
    hits = searcher.bm25("what is a corporate bond", k=100, exclude={"7067032"})
    for pid, score, rank in hits: ...

Every method returns `Hits` (ids, scores, rows, ranks; best first; ties broken by id). A query that
tokenizes to nothing (only stopwords, or words absent from the collection) gets empty BM25 hits.
Both indexes are memory-mapped: opening them reads almost nothing, and their pages are shared by the
jobs of a node. A query's vector can differ in the last bits (~1e-7) with the batch it was encoded
in, as with torch's thread count: for identical rankings across runs, prepare the same lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .bm25 import BM25Index
from .common import Hits, IndexMismatchError, rank_rows
from .dense import DenseIndex


def rrf(runs: Sequence[Hits], k: int = 60, depth: int | None = None) -> Hits:
    """Reciprocal-rank fusion: score(p) = sum over runs of 1 / (k + rank of p in that run).

    Runs must index the same collection (rows are joined on). `depth` keeps the best `depth`.
    """
    runs = [run for run in runs if len(run)]
    if not runs:
        return Hits.empty()
    rows = np.concatenate([run.rows for run in runs])
    contrib = np.concatenate([1.0 / (k + run.ranks.astype(np.float64)) for run in runs])
    unique, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    fused = np.bincount(inverse, weights=contrib, minlength=len(unique))
    top_rows, top = rank_rows(unique, fused, len(unique) if depth is None else depth)
    ids = np.concatenate([run.ids for run in runs])[first][np.searchsorted(unique, top_rows)]
    return Hits(ids, top.astype(np.float32), top_rows)




class Searcher:
    """BM25 and/or dense search over one collection, with the settings of config["retrieval"].

    Either index may be omitted; calling its methods then raises. Indexes built with settings other
    than `settings` (tokenizer, BM25 parameters, model) are refused with IndexMismatchError.
    """

    def __init__(self, settings: dict, bm25_dir=None, dense_dir=None, model=None, threads: int | None = None):
        self.settings = settings
        self._bm25 = BM25Index(bm25_dir, settings["bm25"]) if bm25_dir is not None else None
        self._dense = (DenseIndex(dense_dir, settings["dense"], model=model, threads=threads)
                       if dense_dir is not None else None)
        if self._bm25 is not None and self._dense is not None and self._bm25.ids_sha256 != self._dense.ids_sha256:
            raise IndexMismatchError(f"{bm25_dir} and {dense_dir} index different collections; rebuild one")

    @property
    def ids(self):
        """The collection's passage ids, in index row order (irdata.retrieval.common.IdMap)."""
        return self._need(self._bm25 or self._dense, "bm25 or dense").ids

    def _need(self, index, name):
        if index is None:
            raise ValueError(f"this Searcher has no {name} index; pass {name}_dir=")
        return index

    @staticmethod
    def _excludes(index, exclude, n: int) -> list[np.ndarray]:
        """Excluded rows per query from `exclude`: None, or one collection of ids per query."""
        if exclude is None:
            return [np.empty(0, dtype=np.int64)] * n
        if isinstance(exclude, str) or len(exclude) != n:
            raise ValueError(f"exclude must hold one collection of ids per query ({n}), "
                             f"got {type(exclude).__name__} of length {len(exclude)}")
        return [index.ids.rows_of(ids) for ids in exclude]

    def prepare(self, queries: Iterable[str]) -> None:
        """Encode the queries' vectors now, in batches, for later dense() and hybrid() calls of them.

        Call it with a shard's queries before its episodes, and with each batch of reformulations;
        without a dense index it does nothing.
        """
        if self._dense is not None:
            self._dense.query_vectors(list(queries))

    def bm25_batch(self, queries: Sequence[str], k: int = 10, exclude=None) -> list[Hits]:
        index = self._need(self._bm25, "bm25")
        excludes = self._excludes(index, exclude, len(queries))
        return [index.search_ids(ids, k, rows) for ids, rows in zip(index.token_ids(list(queries)), excludes)]

    def dense_batch(self, queries: Sequence[str], k: int = 10, exclude=None) -> list[Hits]:
        index = self._need(self._dense, "dense")
        excludes = self._excludes(index, exclude, len(queries))
        return index.search_vectors(index.query_vectors(list(queries)), k, excludes)

    def hybrid_batch(self, queries: Sequence[str], k: int = 10, depth: int = 100, exclude=None) -> list[Hits]:
        """RRF (k = retrieval.rrf_k) of the top-`depth` BM25 and dense hits, cut to k."""
        lexical = self.bm25_batch(queries, depth, exclude)
        dense = self.dense_batch(queries, depth, exclude)
        return [rrf([a, b], self.settings["rrf_k"], k) for a, b in zip(lexical, dense)]

    def bm25(self, query: str, k: int = 10, exclude: Iterable[str] = ()) -> Hits:
        return self.bm25_batch([query], k, [list(exclude)])[0]

    def dense(self, query: str, k: int = 10, exclude: Iterable[str] = ()) -> Hits:
        return self.dense_batch([query], k, [list(exclude)])[0]

    def hybrid(self, query: str, k: int = 10, depth: int = 100, exclude: Iterable[str] = ()) -> Hits:
        return self.hybrid_batch([query], k, depth, [list(exclude)])[0]
