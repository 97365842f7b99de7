"""Pieces every LLM rule shares: reading shard inputs, running a stage with a client, stats files."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pyarrow.parquet as pq

from ..atomic import write_text_atomic
from ..llm import make_client
from ..tsv import read_trec_qrels


def read_parquet_frame(path) -> pd.DataFrame:
    return pq.read_table(path).to_pandas()


def official_positives(qrels_path) -> pd.DataFrame:
    qrels = read_trec_qrels(qrels_path).to_pandas()
    return qrels[qrels["relevance"] >= 1][["query_id", "passage_id"]]


def run_with_client(llm_settings, journal, fn):
    """Run `await fn(client)` with a fresh client; return (result, client) (the client is closed)."""
    async def go():
        client = make_client(llm_settings, journal_path=journal)
        try:
            return await fn(client), client
        finally:
            await client.aclose()

    return asyncio.run(go())


def write_stats(path, stage: str, client, **summary) -> None:
    record = {"stage": stage, "llm": client.stats.as_dict(), **summary}
    write_text_atomic(path, json.dumps(record, indent=2, sort_keys=True) + "\n")


def write_llm_identity(llm_settings, out_path) -> dict:
    async def identity(client):
        return client.identity()

    value, _ = run_with_client(llm_settings, None, identity)
    write_text_atomic(out_path, json.dumps(value, indent=2, sort_keys=True) + "\n")
    return value
