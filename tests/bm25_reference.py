"""rank_bm25 (the design card's implementation) as the reference that bm25s's results are checked against,
one definition for the tests and bench/bench_bm25.py (a module without pytest, so a bench runs without it)."""

from __future__ import annotations

import math


def reference_bm25(corpus_tokens: list[list[str]], settings: dict):
    """rank_bm25 scoring the same Lucene variant as bm25s.

    rank_bm25's Okapi idf floors negative values; Lucene's idf, log(1 + (N - df + .5) / (df + .5)),
    is what bm25s computes. The tf part matches bm25s's times (k1 + 1), which leaves rankings alone.
    """
    from rank_bm25 import BM25Okapi

    class LuceneBM25(BM25Okapi):
        def _calc_idf(self, nd):
            self.idf = {w: math.log(1 + (self.corpus_size - df + 0.5) / (df + 0.5)) for w, df in nd.items()}

    return LuceneBM25(corpus_tokens, k1=settings["k1"], b=settings["b"])
