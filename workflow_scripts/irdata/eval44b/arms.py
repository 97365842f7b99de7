"""Arms: each reranks every query's 9 candidates (positive + 8 negatives) and is scored on the ranks.

Text as the card scores it: the query truncated to `query_chars` characters (600), each candidate's
title + ". " + abstract to `document_chars` (900). Ties are broken by one seeded permutation of the
candidates per query, shared by all arms, so a tie neither helps nor hurts the positive.

- random: seeded uniform scores (checks chance: P@1 = 1/9).
- bm25: BM25 with the `retrieval.bm25` settings and tokenizer (bm25s, Lucene variant); term
  statistics over the truncated text of the whole collection, scores of the 9 candidates.
- dense: the `retrieval.dense` model's embeddings of the truncated query and documents, inner
  product (cosine when normalised), as the dense miner uses.
- hybrid_rrf: reciprocal-rank fusion of the bm25 and dense rankings of the 9, 1/(k + rank), k = 60.
- cross_encoder:<name>: a sentence-transformers CrossEncoder's score of each (query, document) pair.
- llm: the LLM layer's grade 0-3 of each (query, document) pair (pointwise).
"""

from __future__ import annotations

import time

from .metrics import metrics_from_ranks, query_rng, rank_of_positive

BASE_ARMS = ("random", "bm25", "dense", "hybrid_rrf")


def truncate(text: str, chars: int) -> str:
    return text[:chars] if chars else text


def candidate_keys(row) -> list[str]:
    """Positive first, then the 8 negatives in their file order."""
    return [row["positive"]] + [neg["key"] for neg in row["negatives"]]


def tie_order(seed: int, note_id: str, n: int) -> list[int]:
    order = list(range(n))
    query_rng(seed, f"ties:{note_id}").shuffle(order)
    return order


class Bm25Scorer:
    """BM25 scores of given candidates, with the retrieval section's BM25 settings and tokenizer.

    Term statistics come from the whole collection, each document truncated as scored.
    """

    def __init__(self, collection: dict, document_chars: int, bm25_settings: dict):
        import bm25s

        from ..retrieval.bm25 import METHOD, tokenize

        self._tokenize = lambda texts: tokenize(texts, bm25_settings)
        self.keys = list(collection)
        self.index = {key: i for i, key in enumerate(self.keys)}
        self.retriever = bm25s.BM25(k1=bm25_settings["k1"], b=bm25_settings["b"], method=METHOD)
        self.retriever.index(
            self._tokenize([truncate(collection[k], document_chars) for k in self.keys]), show_progress=False
        )

    def __call__(self, query: str, keys: list[str]) -> list[float]:
        qtok = [t for t in self._tokenize([query])[0] if t in self.retriever.vocab_dict]
        if not qtok:
            return [0.0] * len(keys)
        scores = self.retriever.get_scores(qtok)
        return [float(scores[self.index[k]]) for k in keys]


class DenseScorer:
    """Inner product of the retrieval section's dense model's embeddings (cosine when it normalises).

    `prepare` encodes every query and document of the run in batches once; scoring then looks them up.
    """

    def __init__(self, dense_settings: dict, model=None):
        from ..retrieval.dense import load_model

        self.settings = dense_settings
        self.model = model if model is not None else load_model(dense_settings)
        self.queries: dict = {}
        self.docs: dict = {}

    def _encode(self, texts, query: bool):
        fn = self.model.encode_query if query else self.model.encode_document
        vectors = fn(
            list(texts),
            batch_size=self.settings["batch_size"],
            convert_to_numpy=True,
            normalize_embeddings=self.settings["normalize"],
            show_progress_bar=False,
        )
        return dict(zip(texts, vectors))

    def prepare(self, queries, docs) -> None:
        self.queries.update(self._encode(sorted(set(queries) - set(self.queries)), True))
        self.docs.update(self._encode(sorted(set(docs) - set(self.docs)), False))

    def __call__(self, query: str, docs: list[str]) -> list[float]:
        self.prepare([query], docs)
        q = self.queries[query]
        return [float(self.docs[d] @ q) for d in docs]


def rrf(rankings, k: int = 60) -> list[float]:
    """Fused scores: sum over rankings of 1/(k + rank); `rankings` are lists of 1-based ranks per candidate."""
    n = len(rankings[0])
    return [sum(1.0 / (k + ranking[i]) for ranking in rankings) for i in range(n)]


def ranks_from_scores(scores, order) -> list[int]:
    """1-based rank of every candidate (ties broken by `order`)."""
    position = {idx: pos for pos, idx in enumerate(order)}
    ranking = sorted(range(len(scores)), key=lambda i: (-scores[i], position[i]))
    ranks = [0] * len(scores)
    for r, i in enumerate(ranking, start=1):
        ranks[i] = r
    return ranks


def score_arm(arm: str, rows, queries: dict, collection: dict, settings: dict, scorer=None) -> dict:
    """Score one arm on the mined rows. `queries`: note_id -> text; `collection`: key -> text.

    `scorer` for model arms: f(query, docs) -> scores (a cross-encoder or the LLM); bm25/dense/hybrid
    build their own. Returns the arm's result record with per-query ranks.
    """
    qchars, dchars, seed = settings["query_chars"], settings["document_chars"], settings["seed"]
    bm25 = dense = None
    if arm in ("bm25", "hybrid_rrf"):
        bm25 = Bm25Scorer(collection, dchars, settings["retrieval"]["bm25"])
    if arm in ("dense", "hybrid_rrf"):
        dense = scorer if isinstance(scorer, DenseScorer) else DenseScorer(settings["retrieval"]["dense"])
    ranks, per_query = [], []
    start = time.perf_counter()
    if dense is not None:
        dense.prepare(
            [truncate(queries[r["note_id"]], qchars) for r in rows],
            [truncate(collection[k], dchars) for r in rows for k in candidate_keys(r)],
        )
    for row in rows:
        keys = candidate_keys(row)
        query = truncate(queries[row["note_id"]], qchars)
        docs = [truncate(collection[k], dchars) for k in keys]
        order = tie_order(seed, row["note_id"], len(keys))
        if arm == "random":
            rng = query_rng(seed, f"random:{row['note_id']}")
            scores = [rng.random() for _ in keys]
        elif arm == "bm25":
            scores = bm25(query, keys)
        elif arm == "dense":
            scores = dense(query, docs)
        elif arm == "hybrid_rrf":
            rankings = [ranks_from_scores(bm25(query, keys), order), ranks_from_scores(dense(query, docs), order)]
            scores = rrf(rankings, settings["rrf_k"])
        else:
            if scorer is None:
                raise ValueError(f"arm {arm!r} needs a scorer")
            scores = scorer(query, docs)
        rank = rank_of_positive(scores, 0, order)
        ranks.append(rank)
        per_query.append({"note_id": row["note_id"], "rank": rank})
    elapsed = time.perf_counter() - start
    result = {
        "arm": arm,
        "queries": len(rows),
        "candidates_per_query": 1 + settings["negatives"],
        "metrics": metrics_from_ranks(ranks),
        "ms_per_query": round(1000 * elapsed / len(rows), 3) if rows and settings.get("record_timing", True) else None,
        "truncation": {"query_chars": qchars, "document_chars": dchars},
        "ranks": per_query,
    }
    return result


def chance_check(result: dict, n_candidates: int = 9, z: float = 3.0) -> dict:
    """Is a random arm's P@1 within z binomial standard errors of 1/n? (n queries)."""
    p = 1 / n_candidates
    n = result["queries"]
    observed = result["metrics"]["P@1"]
    if not n:
        return {"expected_P@1": p, "observed_P@1": None, "within": None}
    tolerance = z * (p * (1 - p) / n) ** 0.5
    return {
        "expected_P@1": p,
        "observed_P@1": observed,
        "tolerance": tolerance,
        "z": z,
        "within": abs(observed - p) <= tolerance,
    }
