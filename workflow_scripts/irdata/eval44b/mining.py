"""Hard negatives: dense and lexical candidates, screened, a seeded mix of 8 per query.

For each query the dense miner (nearest neighbours of the query text in embedding space) and
the lexical miner (BM25 over title + abstract) each return their top `depth` papers. Each list
is screened (never the positive, its Semantic Scholar id, or a near-identical title; see
`screen`). Then, miner by miner in the order of `mix`, a seeded generator that depends only on
(seed, note_id) draws that miner's quota from its first `pool` clean candidates, skipping any that
clash with a negative already chosen (same paper, S2 id or near-identical title); when the pool
runs dry the miner's later candidates are taken in rank order. A miner short of its quota is made
up from the other miners' remaining clean candidates in rank order (counted in the report). A
query left with fewer than `negatives` clean negatives is reported and dropped, never padded.
"""

from __future__ import annotations

from collections import Counter

from .metrics import query_rng
from .screen import Screen

RECIPE = {
    "query": (
        "the review's summary text (whole), searched against every paper of the collection, all splits, "
        "less the papers of the train_negatives_exclude splits for a train query"
    ),
    "dense_miner": "nearest neighbours of the query embedding among the paper embeddings (title + '. ' + abstract)",
    "lexical_miner": "BM25 over title + '. ' + abstract",
    "screen": (
        "never the positive, never a paper with the positive's Semantic Scholar id, never a title "
        "near-identical to the positive's; among the chosen, no two that are the same paper, share an S2 id "
        "or have near-identical titles"
    ),
    "title_similarity": "difflib.SequenceMatcher(autojunk=False).ratio() of normalised titles >= title_threshold",
    "selection": (
        "miner by miner in mix order: a generator seeded by sha256('<seed>:<note_id>') draws the miner's "
        "quota from its first `pool` clean candidates, then later ones in rank order; a miner's "
        "shortfall is made up from the other miners' clean candidates by rank; a query with fewer than "
        "`negatives` clean negatives is reported and dropped, never padded"
    ),
    "rank": "1-based rank of the negative in the list of the miner that found it",
}


def choose_negatives(note_id: str, positive: str, ranked: dict, screen: Screen, settings: dict):
    """Negatives for one query.

    `ranked`: miner name -> candidate keys, best first (as the miner returned them).
    Returns (negatives [{"key", "miner", "rank"}], counters of screen rejections and fills).
    """
    n = settings["negatives"]
    mix = settings["mix"]
    pool_size = settings["pool"]
    rng = query_rng(settings["seed"], note_id)
    stats = Counter()
    clean = {}
    for miner, keys in ranked.items():
        ok, seen = [], set()
        for rank, key in enumerate(keys, start=1):
            if key in seen:
                continue
            seen.add(key)
            reason = screen.reject(key, positive)
            if reason:
                stats[f"rejected_{reason}"] += 1
                continue
            ok.append((key, rank))
        clean[miner] = ok

    chosen: list[dict] = []
    duplicates: set[str] = set()

    def fits(key):
        for neg in chosen:
            reason = screen.clash(key, neg["key"])
            if reason:
                if key not in duplicates:
                    duplicates.add(key)
                    stats[f"duplicate_{reason}"] += 1
                return False
        return True

    def take(miner, candidates, quota):
        taken = 0
        for key, rank in candidates:
            if taken == quota:
                break
            if any(neg["key"] == key for neg in chosen):
                continue
            if fits(key):
                chosen.append({"key": key, "miner": miner, "rank": rank})
                taken += 1
        return taken

    for miner, quota in mix.items():
        candidates = clean.get(miner, [])
        pool = candidates[:pool_size]
        drawn = rng.sample(pool, len(pool))
        got = take(miner, drawn, quota)
        if got < quota:
            got += take(miner, candidates[pool_size:], quota - got)
        if got < quota:
            stats[f"short_{miner}"] += quota - got
    if len(chosen) < n:
        # make up a miner's shortfall from the others, in rank order, interleaving the miners
        leftovers = [
            (rank, order, miner, key) for order, (miner, cands) in enumerate(clean.items()) for key, rank in cands
        ]
        for rank, _, miner, key in sorted(leftovers):
            if len(chosen) == n:
                break
            if any(neg["key"] == key for neg in chosen):
                continue
            if fits(key):
                chosen.append({"key": key, "miner": miner, "rank": rank})
                stats["filled_from_other_miner"] += 1
    return chosen[:n], stats


def mine(queries, screen: Screen, searchers: dict, settings: dict, batch_size: int = 64, split_of: dict | None = None):
    """Mine every query. `searchers`: miner name -> f(texts, k, exclude) -> list of key lists.

    Returns (rows for complete queries, report). A row keeps the query's fields, its positive key
    and its negatives with miner and rank.
    """
    n, depth = settings["negatives"], settings["depth"]
    if sum(settings["mix"].values()) != n:
        raise ValueError(f"mix {settings['mix']} must add up to negatives = {n}")
    unknown = set(settings["mix"]) - set(searchers)
    if unknown:
        raise ValueError(f"no searcher for miner(s) {sorted(unknown)}")
    # papers of the splits in train_negatives_exclude never become negatives of train queries
    withheld = {}
    if settings.get("train_negatives_exclude"):
        if split_of is None:
            raise ValueError("train_negatives_exclude needs the split of every paper (split_of)")
        withheld["train"] = sorted(k for k, s in split_of.items() if s in settings["train_negatives_exclude"])
    rows, lacking, totals = [], [], Counter()
    miner_counts = Counter()
    for start in range(0, len(queries), batch_size):
        batch = queries[start : start + batch_size]
        texts = [q["text"] for q in batch]
        excludes = [[q["paper"], *withheld.get(q["split"], ())] for q in batch]
        results = {miner: searchers[miner](texts, depth, excludes) for miner in settings["mix"]}
        for i, query in enumerate(batch):
            ranked = {miner: results[miner][i] for miner in settings["mix"]}
            negatives, stats = choose_negatives(query["note_id"], query["paper"], ranked, screen, settings)
            totals.update(stats)
            if len(negatives) < n:
                lacking.append(
                    {"note_id": query["note_id"], "paper": query["paper"], "clean_negatives": len(negatives)}
                )
                continue
            miner_counts.update(neg["miner"] for neg in negatives)
            rows.append(
                {
                    **{k: query[k] for k in ("note_id", "note_url", "kind", "split")},
                    "positive": query["paper"],
                    "negatives": negatives,
                }
            )
    report = {
        "queries_in": len(queries),
        "queries_out": len(rows),
        "queries_lacking_negatives": len(lacking),
        "lacking": lacking,
        "negatives_by_miner": dict(sorted(miner_counts.items())),
        "screen": dict(sorted(totals.items())),
    }
    return rows, report
