"""Validation of the raw MS MARCO-format inputs, run before any expensive stage."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from .errors import InputError
from .passage_store import write_passage_store
from .provenance import sha256_file
from .tsv import check_ids_known, read_id_text_tsv, read_trec_qrels


def read_queries(path) -> pa.Table:
    return read_id_text_tsv(path, "query_id", "text")


def read_collection(path) -> pa.Table:
    return read_id_text_tsv(path, "passage_id", "text")


def read_reference_answers(path, known_query_ids: set[str] | None = None) -> dict[str, list[str]]:
    """Read dev reference answers, one JSON object `{"query_id": str, "answers": [str, ...]}` a line."""
    path = Path(path)
    answers: dict[str, list[str]] = {}
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise InputError(path, "not valid UTF-8", line=number) from exc
            except json.JSONDecodeError as exc:
                raise InputError(path, f"not a JSON object: {exc.msg}", line=number) from exc
            if not isinstance(record, dict):
                raise InputError(path, "expected a JSON object", line=number)
            qid = record.get("query_id")
            if not isinstance(qid, str) or not qid:
                raise InputError(path, "missing or non-string query_id", line=number, field="query_id")
            values = record.get("answers")
            if not isinstance(values, list) or not all(isinstance(a, str) for a in values):
                raise InputError(path, "answers must be a list of strings", line=number, field="answers")
            if qid in answers:
                raise InputError(path, f"duplicate query_id {qid!r}", line=number, field="query_id")
            if known_query_ids is not None and qid not in known_query_ids:
                raise InputError(path, f"query_id {qid!r} is not a dev query", line=number, field="query_id")
            answers[qid] = values
    if not answers:
        raise InputError(path, "file is empty; expected at least one record")
    return answers


def validate_msmarco_inputs(collection, train_queries, train_qrels, dev_queries, dev_qrels,
                            dev_answers, heldout_queries, passage_store=None) -> dict:
    """Read and check every input; return a report with row counts and sha256 of each file.

    Raises InputError at the first problem, naming the file, line and field. Once every input is
    valid, the collection parsed here is written as the passage store `passage_store` (when given),
    so that no later stage parses the TSV again.
    """
    passages = read_collection(collection)
    pids = passages.column("passage_id")
    report = {"files": {}, "rows": {"collection": passages.num_rows}}
    for name, queries_path, qrels_path in (("train", train_queries, train_qrels),
                                           ("dev", dev_queries, dev_qrels)):
        queries = read_queries(queries_path)
        qrels = read_trec_qrels(qrels_path)
        check_ids_known(qrels_path, qrels, "passage_id", pids, f"the collection {collection}")
        check_ids_known(qrels_path, qrels, "query_id", queries.column("query_id"), f"the queries {queries_path}")
        report["rows"][f"{name}_queries"] = queries.num_rows
        report["rows"][f"{name}_qrels"] = qrels.num_rows
        if name == "dev":
            dev_ids = set(queries.column("query_id").to_pylist())
    report["rows"]["dev_answers"] = len(read_reference_answers(dev_answers, dev_ids))
    for path in heldout_queries:
        report["rows"][f"heldout:{path}"] = read_queries(path).num_rows
    inputs = [collection, train_queries, train_qrels, dev_queries, dev_qrels, dev_answers, *heldout_queries]
    for path in dict.fromkeys(inputs):
        report["files"][str(path)] = {"sha256": sha256_file(path), "bytes": Path(path).stat().st_size}
    if passage_store is not None:
        write_passage_store(passages.rename_columns(["id", "text"]), passage_store)
    return report
