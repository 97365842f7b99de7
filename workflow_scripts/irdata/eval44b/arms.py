"""Arms: each reranks every query's 9 candidates (positive + 8 negatives) and is scored on the ranks.

Text as the card scores it: the query truncated to `query_chars` characters (600), each candidate's
title + ". " + abstract to `document_chars` (900). Ties are broken by one seeded permutation of the
candidates per query, shared by all arms, so a tie neither helps nor hurts the positive.

An arm is an entry of `ARMS`, its kind (settings["kind"]) -> a factory(settings, collection) that
returns a scorer; adding an arm is one entry. The kinds:

- random: seeded uniform scores (checks chance: P@1 = 1/9).
- bm25: BM25 with the arm's `bm25` settings and tokenizer (bm25s, Lucene variant); term statistics
  over the truncated text of the whole collection, scores of the 9 candidates.
- dense: the arm's `dense` model's embeddings of the truncated query and documents, inner product
  (cosine when normalised). The off-the-shelf arm and the fine-tuned bi-encoder are both this kind.
- hybrid_rrf: reciprocal-rank fusion (irdata.retrieval.search.rrf) of the bm25 and dense rankings of
  the 9, 1/(k + rank), k = 60.
- cross_encoder: a sentence-transformers CrossEncoder's score of each (query, document) pair, by local
  path or model name: a reranker the user brings, and the one the workflow fine-tunes.
- llm: the LLM layer's grade 0-3 of each (query, document) pair (pointwise); a failed grade is counted,
  never a score (llm_arm).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..truncation import truncate
from .metrics import metrics_from_ranks, query_rng


def candidate_keys(row) -> list[str]:
    """Positive first, then the 8 negatives in their file order."""
    return [row["positive"]] + [neg["key"] for neg in row["negatives"]]


def tie_order(seed: int, note_id: str, n: int) -> list[int]:
    order = list(range(n))
    query_rng(seed, f"ties:{note_id}").shuffle(order)
    return order


@dataclass(frozen=True)
class Item:
    """One query's candidate set as every scorer sees it (texts already truncated)."""

    note_id: str
    query: str
    keys: list
    docs: list
    order: list


class Scorer:
    """Base of the arms' scorers: `__call__(item)` -> one score per candidate, higher is better; None for a
    candidate it could not score (the LLM arm's failed grade, counted by the scorer), which leaves the
    query unranked: out of the ranks and metrics, counted in the result's `queries_unranked`.

    `prepare` sees every query and document of the run first (batch encoding); `extras(result)` adds
    the arm's own fields to its result record; `max_queries` limits the queries scored (None: all).
    A scorer that answers from a journal of earlier calls (`replays`, the LLM arm) counts those answers
    in `replayed_calls()`: a query answered so is not timed, since its time is the journal's, not the model's.
    """

    max_queries = None
    replays = False

    def replayed_calls(self) -> int:
        """How many calls so far were answered from a journal rather than made."""
        return 0

    def prepare(self, queries, docs) -> None:
        pass

    def __call__(self, item: Item) -> list[float]:
        raise NotImplementedError

    def extras(self, result: dict) -> dict:
        return {}

    def close(self) -> None:
        pass


class PairScorer(Scorer):
    """Wraps f(query, docs) -> scores (a model that scores pairs)."""

    def __init__(self, fn, info: dict | None = None):
        self.fn = fn
        self.info = info or {}

    def __call__(self, item):
        return self.fn(item.query, item.docs)

    def extras(self, result):
        return dict(self.info)


class RandomScorer(Scorer):
    def __init__(self, seed: int, n_candidates: int):
        self.seed = seed
        self.n_candidates = n_candidates

    def __call__(self, item):
        rng = query_rng(self.seed, f"random:{item.note_id}")
        return [rng.random() for _ in item.keys]

    def extras(self, result):
        return {"chance": chance_check(result, self.n_candidates)}


class Bm25Scorer(Scorer):
    """BM25 scores of given candidates, with BM25 settings and tokenizer as the retrieval layer's.

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

    def scores(self, query: str, keys: list[str]) -> list[float]:
        qtok = [t for t in self._tokenize([query])[0] if t in self.retriever.vocab_dict]
        if not qtok:
            return [0.0] * len(keys)
        scores = self.retriever.get_scores(qtok)
        return [float(scores[self.index[k]]) for k in keys]

    def __call__(self, item):
        return self.scores(item.query, item.keys)


class DenseScorer(Scorer):
    """Inner product of a sentence-transformers model's embeddings (cosine when it normalises).

    `prepare` encodes every query and document of the run in batches once; scoring then looks them up.
    A model passed in (one being trained) is not the folder the settings name: no fingerprint then.
    """

    def __init__(self, dense_settings: dict, model=None):
        from ..retrieval.dense import load_model

        self.settings = dense_settings
        self.loaded = model is None
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

    def scores(self, query: str, docs: list[str]) -> list[float]:
        self.prepare([query], docs)
        q = self.queries[query]
        return [float(self.docs[d] @ q) for d in docs]

    def __call__(self, item):
        return self.scores(item.query, item.docs)

    def extras(self, result):
        from ..retrieval.dense import model_fingerprint

        return {
            "model": self.settings["model"],
            **({"model_sha256": model_fingerprint(self.settings["model"])} if self.loaded else {}),
        }


def ranks_from_scores(scores, order) -> list[int]:
    """1-based rank of every candidate (ties broken by `order`)."""
    position = {idx: pos for pos, idx in enumerate(order)}
    ranking = sorted(range(len(scores)), key=lambda i: (-scores[i], position[i]))
    ranks = [0] * len(scores)
    for r, i in enumerate(ranking, start=1):
        ranks[i] = r
    return ranks


def fuse_ranks(rankings, k: int = 60) -> list[float]:
    """RRF score of each candidate from its 1-based rank in each ranking, by the retrieval layer's rrf."""
    from ..retrieval.common import Hits
    from ..retrieval.search import rrf

    runs = []
    for ranks in rankings:
        best_first = np.argsort(np.asarray(ranks), kind="stable")
        runs.append(Hits(best_first, np.zeros(len(ranks), dtype=np.float32), best_first.astype(np.int64)))
    fused = rrf(runs, k)
    scores = np.zeros(len(rankings[0]), dtype=np.float64)
    scores[fused.rows] = fused.scores
    return scores.tolist()


class HybridScorer(Scorer):
    def __init__(self, bm25: Bm25Scorer, dense: DenseScorer, k: int):
        self.bm25, self.dense, self.k = bm25, dense, k

    def prepare(self, queries, docs):
        self.dense.prepare(queries, docs)

    def __call__(self, item):
        rankings = [ranks_from_scores(self.bm25(item), item.order), ranks_from_scores(self.dense(item), item.order)]
        return fuse_ranks(rankings, self.k)

    def extras(self, result):
        return self.dense.extras(result)


class CrossEncoderScorer(Scorer):
    """A sentence-transformers CrossEncoder (local folder or model name) scoring each (query, document)."""

    def __init__(self, spec: dict):
        from sentence_transformers import CrossEncoder

        from ..retrieval.dense import model_fingerprint, model_path

        self.spec = spec
        self.model = CrossEncoder(model_path(spec["model"]), device=spec.get("device"))
        if spec.get("max_length"):
            self.model.max_seq_length = spec["max_length"]
        self.fingerprint = model_fingerprint(spec["model"])

    def __call__(self, item):
        pairs = [(item.query, d) for d in item.docs]
        scores = self.model.predict(pairs, batch_size=self.spec.get("batch_size", 32), show_progress_bar=False)
        return [float(s) for s in scores]

    def extras(self, result):
        return {"model": self.spec["model"], "model_sha256": self.fingerprint}


# kind -> factory(settings, collection) -> Scorer; the LLM arm, which needs the LLM layer, is added
# by score.py (the rule that scores the release's arms), so that fine-tuning does not depend on it
ARMS = {
    "random": lambda s, c: RandomScorer(s["seed"], 1 + s["negatives"]),
    "bm25": lambda s, c: Bm25Scorer(c, s["document_chars"], s["bm25"]),
    "dense": lambda s, c: DenseScorer(s["dense"]),
    "hybrid_rrf": lambda s, c: HybridScorer(
        Bm25Scorer(c, s["document_chars"], s["bm25"]), DenseScorer(s["dense"]), s["rrf_k"]
    ),
    "cross_encoder": lambda s, c: CrossEncoderScorer(s["cross_encoder"]),
}


def make_scorer(settings: dict, collection: dict, registry: dict = ARMS) -> Scorer:
    kind = settings["kind"]
    if kind not in registry:
        raise ValueError(f"unknown arm kind {kind!r}; expected one of {sorted(registry)}")
    return registry[kind](settings, collection)


def score_arm(arm: str, rows, queries: dict, collection: dict, settings: dict, scorer: Scorer | None = None,
              registry: dict = ARMS) -> dict:
    """Score one arm on the mined rows. `queries`: note_id -> text; `collection`: key -> text.

    `scorer` defaults to the registry's for settings["kind"] (closed at the end). Returns the arm's result record with
    per-query ranks and the scorer's extras; `queries` counts the ranked queries, which the metrics are over.
    """
    qchars, dchars, seed = settings["query_chars"], settings["document_chars"], settings["seed"]
    record_timing = settings.get("record_timing", True)
    if scorer is None:
        scorer = make_scorer(settings, collection, registry)
        try:
            return score_arm(arm, rows, queries, collection, settings, scorer)
        finally:
            scorer.close()
    if scorer.max_queries:
        rows = rows[: scorer.max_queries]
    ranks, per_query, unranked = [], [], 0
    # wall time of the queries whose calls were all made here (the batch encoding counts to them); a query
    # answered from the journal of an earlier build is replayed, never a measure of the model's speed
    timed, replayed = 0, 0
    begun = time.perf_counter()
    scorer.prepare(
        [truncate(queries[r["note_id"]], qchars) for r in rows],
        [truncate(collection[k], dchars) for r in rows for k in candidate_keys(r)],
    )
    timed_s = time.perf_counter() - begun
    for row in rows:
        begun, hits = time.perf_counter(), scorer.replayed_calls()
        keys = candidate_keys(row)
        item = Item(
            note_id=row["note_id"],
            query=truncate(queries[row["note_id"]], qchars),
            keys=keys,
            docs=[truncate(collection[k], dchars) for k in keys],
            order=tie_order(seed, row["note_id"], len(keys)),
        )
        scores = scorer(item)
        if scorer.replayed_calls() > hits:
            replayed += 1
        else:
            timed_s += time.perf_counter() - begun
            timed += 1
        if None in scores:  # never a rank from tie order: the query is not ranked
            unranked += 1
            continue
        # every candidate's rank, positive first (test.jsonl's order): the release's ranks.jsonl
        candidate_ranks = ranks_from_scores(scores, item.order)
        ranks.append(candidate_ranks[0])
        per_query.append({"note_id": row["note_id"], "rank": candidate_ranks[0], "candidate_ranks": candidate_ranks})
    result = {
        "arm": arm,
        "queries": len(per_query),
        "queries_unranked": unranked,
        "candidates_per_query": 1 + settings["negatives"],
        "metrics": metrics_from_ranks(ranks),
        "ms_per_query": round(1000 * timed_s / timed, 3) if timed and record_timing else None,
        "truncation": {"query_chars": qchars, "document_chars": dchars},
        "ranks": per_query,
    }
    if scorer.replays and record_timing:  # what the timing left out; without timing, nothing that varies by run
        result["queries_replayed"] = replayed
    result.update(scorer.extras(result))
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
