"""The mine_negatives job: the retrieval layer's Searcher as the dense and lexical miners."""

from __future__ import annotations

import logging

from ..retrieval.search import Searcher
from .jsonl import read_jsonl, write_json, write_jsonl
from .mining import mine
from .screen import Screen

log = logging.getLogger(__name__)


def searchers_from(searcher: Searcher) -> dict:
    """Miner name -> f(texts, k, exclude) -> list of key lists, best first."""

    def dense(texts, k, exclude):
        return [hits.ids.tolist() for hits in searcher.dense_batch(texts, k, exclude)]

    def lexical(texts, k, exclude):
        return [hits.ids.tolist() for hits in searcher.bm25_batch(texts, k, exclude)]

    return {"dense": dense, "lexical": lexical}


def index_recipe(searcher: Searcher) -> dict:
    """What the miners really ran on, for the manifest: index kinds and their build settings."""
    dense = searcher._dense.stored if searcher._dense is not None else {}
    bm25 = searcher._bm25.stored if searcher._bm25 is not None else {}
    return {
        "dense": {
            "index": dense.get("index"),
            "model": dense.get("model"),
            "ef_search": searcher.settings["dense"].get("ef_search"),
            "metric": "inner product of normalised embeddings"
            if searcher.settings["dense"].get("normalize")
            else "inner product",
        },
        "lexical": {
            "method": bm25.get("method"),
            **{k: bm25.get(k) for k in ("k1", "b", "stopwords", "stemmer")},
            "text": "title + '. ' + abstract",
        },
    }


def run_mining(
    queries_path, papers_path, bm25_dir, dense_dir, out_rows, out_report, settings: dict, retrieval: dict
) -> dict:
    queries = read_jsonl(queries_path)
    papers = {p["key"]: p for p in read_jsonl(papers_path)}
    screen = Screen(papers, settings["title_threshold"], settings["title_normalisation"])
    searcher = Searcher(retrieval, bm25_dir=bm25_dir, dense_dir=dense_dir)
    split_of = {key: p["split"] for key, p in papers.items()}
    rows, report = mine(queries, screen, searchers_from(searcher), settings, settings["batch_size"], split_of)
    report["indexes"] = index_recipe(searcher)
    write_jsonl(out_rows, rows)
    write_json(out_report, report)
    log.info(
        "%d of %d queries got %d clean negatives; %d lacking; by miner %s; screen %s",
        len(rows),
        len(queries),
        settings["negatives"],
        report["queries_lacking_negatives"],
        report["negatives_by_miner"],
        report["screen"],
    )
    return report
