"""The two label sets of the downstream comparison and the hard negatives they share.

- release: each train query's selected positive (train_queries.positive_id: positive_source wood, or
  official_fallback for a query without a qualifying pair), or with positives = "all" every qrels/train pair of
  the query (grade 2-3, finite WOOD), a query with none taking its official fallback.
- official: the same query's official positives (relevance >= 1 in the checked train qrels), all of them.

Only queries with both a release and an official positive take part, and both arms get every one of them.
Hard negatives are mined once per query and shared: the best passage of the workflow's hybrid (BM25 + dense,
reciprocal-rank fusion) ranking of the query text that is neither graded 2 or 3 for it (judgments, any origin)
nor an official positive of it. A query whose ranking has no such passage is left out of both arms (counted).
Everything is in query_id order and depends on nothing else, so the training files are byte-identical.
"""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa
import pyarrow.compute as pc

POSITIVES = ("selected", "all")
ARMS = ("release", "official")


def _pairs(table: pa.Table, query: str = "query_id", passage: str = "passage_id") -> dict[str, list[str]]:
    """query -> sorted passage ids of the table's rows."""
    out: dict[str, set] = defaultdict(set)
    for q, p in zip(table.column(query).to_pylist(), table.column(passage).to_pylist()):
        out[q].add(p)
    return {q: sorted(ps) for q, ps in out.items()}


def label_sets(train_queries: pa.Table, release_qrels: pa.Table, official_qrels: pa.Table,
               positives: str = "selected") -> dict:
    """{"queries": [...], "release": {qid: [pids]}, "official": {qid: [pids]}, "differ": n, "counts": {...}}.

    train_queries: the release's train_queries/train (query_id, positive_id, positive_source);
    release_qrels: its qrels/train (query_id, passage_id, grade); official_qrels: TREC qrels as read by
    irdata.tsv.read_trec_qrels (query_id, passage_id, relevance)."""
    if positives not in POSITIVES:
        raise ValueError(f"downstream positives must be one of {POSITIVES}, got {positives!r}")
    selected = train_queries.filter(pc.is_valid(train_queries.column("positive_id")))
    selected_by_query = dict(zip(selected.column("query_id").to_pylist(), selected.column("positive_id").to_pylist()))
    release = {q: [p] for q, p in selected_by_query.items()}
    if positives == "all":
        graded = _pairs(release_qrels.filter(pc.greater_equal(release_qrels.column("grade"), 2)))
        release.update({q: ps for q, ps in graded.items() if q in release})
    official = _pairs(official_qrels.filter(pc.greater_equal(official_qrels.column("relevance"), 1)))
    queries = sorted(set(release) & set(official))
    return {"queries": queries, "release": {q: release[q] for q in queries},
            "official": {q: official[q] for q in queries},
            "differ": sum(release[q] != official[q] for q in queries),
            "counts": {"train_queries": train_queries.num_rows, "with_release_positive": len(release),
                       "with_official_positive": len(official), "both": len(queries)}}


def excluded_passages(judgments: pa.Table, official_qrels: pa.Table) -> dict[str, set[str]]:
    """Per query, the passages no hard negative may be: graded 2 or 3 (any origin) or officially positive."""
    graded = _pairs(judgments.filter(pc.greater_equal(judgments.column("grade"), 2)))
    official = _pairs(official_qrels.filter(pc.greater_equal(official_qrels.column("relevance"), 1)))
    return {q: set(graded.get(q, ())) | set(official.get(q, ())) for q in set(graded) | set(official)}


def first_allowed(ranked: list[str], excluded: set[str]) -> str | None:
    """The best-ranked passage that is not excluded, or None."""
    return next((p for p in ranked if p not in excluded), None)


def hard_negatives(queries: list[str], ranked: dict[str, list[str]], excluded: dict[str, set[str]]) -> dict:
    """{qid: pid} of the queries with an allowed passage in their ranking (ranked: qid -> ids, best first)."""
    chosen = {q: first_allowed(ranked.get(q, []), excluded.get(q, set())) for q in queries}
    return {q: p for q, p in chosen.items() if p is not None}


def training_rows(labels: dict, negatives: dict[str, str]) -> list[dict]:
    """One row per query that has a hard negative: its positives of both arms and the negative (the
    training file both arms read)."""
    return [{"query_id": q, "release": labels["release"][q], "official": labels["official"][q],
             "negative": negatives[q]} for q in labels["queries"] if q in negatives]


def arm_examples(rows: list[dict], arm: str, queries: dict[str, str], passages, query_chars: int,
                 document_chars: int) -> list[dict]:
    """The fine-tune examples of one arm (irdata.training.examples' format): one per (query, positive), the
    query's text, the positive, then the shared hard negative; texts truncated as the 44b arms truncate."""
    from ..truncation import truncate

    if arm not in ARMS:
        raise ValueError(f"downstream arm must be one of {ARMS}, got {arm!r}")
    return [{"note_id": f"{row['query_id']}\t{pid}", "query": truncate(queries[row["query_id"]], query_chars),
             "docs": [truncate(passages[pid], document_chars), truncate(passages[row["negative"]], document_chars)]}
            for row in rows for pid in row[arm]]


def run_training_set(*, train_queries, qrels_train, judgments_train, official_qrels, queries, bm25, dense, rows,
                     report, bm25_dir, dense_dir, settings: dict, threads: int | None = None) -> dict:
    """The downstream_training_set job: from the release's train_queries, qrels_train and judgments_train
    (parquet), the checked official qrels (TREC) and the train `queries` (TSV), with the hard negatives searched
    in the MS MARCO indexes (the files `bm25`, `dense`, in `bm25_dir`, `dense_dir`), write the training `rows`
    and a `report`."""
    import pyarrow.parquet as pq

    from ..atomic import write_json_atomic, write_jsonl_atomic
    from ..retrieval.search import Searcher
    from ..tsv import read_id_text_tsv, read_trec_qrels

    official = read_trec_qrels(official_qrels)
    labels = label_sets(pq.read_table(train_queries), pq.read_table(qrels_train), official,
                        settings["positives"])
    if not labels["queries"]:  # before the search: nothing to train on, whatever the negatives
        c = labels["counts"]
        raise ValueError(f"{train_queries}: no train query of the release has both a release and an official positive "
                         f"({c['train_queries']} train queries, {c['with_release_positive']} with a release positive; "
                         f"{c['with_official_positive']} queries with an official one in {official_qrels}), so the "
                         "downstream comparison has nothing to train on: annotate more train queries "
                         "(doubting.train_sample.size) or set doubting.downstream.enabled: false")
    excluded = excluded_passages(pq.read_table(judgments_train, columns=["query_id", "passage_id", "grade"]),
                                 official)
    table = read_id_text_tsv(queries, "query_id", "text")
    texts = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    searcher = Searcher(settings["search"], bm25_dir=bm25_dir, dense_dir=dense_dir, threads=threads)
    labelled = labels["queries"]
    searcher.prepare(texts[q] for q in labelled)
    depth = settings["negative_depth"]
    hits = searcher.hybrid_batch([texts[q] for q in labelled], k=depth, depth=depth,
                                 exclude=[sorted(excluded.get(q, ())) for q in labelled])
    negatives = hard_negatives(labelled, {q: list(h.ids) for q, h in zip(labelled, hits)}, excluded)
    built = training_rows(labels, negatives)
    write_jsonl_atomic(rows, built)
    counts = {**labels["counts"], "positives": settings["positives"], "queries": len(built),
              "no_negative": len(labelled) - len(built),
              "differ": sum(r["release"] != r["official"] for r in built),
              "release_pairs": sum(len(r["release"]) for r in built),
              "official_pairs": sum(len(r["official"]) for r in built)}
    write_json_atomic(report, counts)
    return counts
