"""A BEIR-format evaluation set (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) as the workflow reads
collections: a passage store of the corpus (title and text joined by a space, as BEIR's dense models encode
them), the judged queries' texts and TREC qrels. A malformed line is an InputError naming file, line, field."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from ..atomic import write_lines_atomic
from ..errors import InputError
from ..passage_store import write_passage_store


def _jsonl(path: Path, fields: tuple[str, ...]):
    """(line number, record) of each non-blank line, each with `fields` as strings."""
    if not path.is_file():
        raise InputError(path, "missing: a BEIR set needs corpus.jsonl, queries.jsonl and qrels/<split>.tsv")
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(path, f"not JSON: {error.msg}", line=number) from None
            for field in fields:
                if not isinstance(record.get(field, ""), str) or (field == "_id" and not record.get(field)):
                    raise InputError(path, "must be a non-empty string" if field == "_id" else "must be a string",
                                     line=number, field=field)
            yield number, record


def read_qrels(path: Path) -> dict:
    """qrels/<split>.tsv: a header line, then query-id, corpus-id, score (an integer)."""
    if not path.is_file():
        raise InputError(path, "missing: a BEIR set needs qrels/<split>.tsv")
    qrels: dict = {}
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            parts = line.rstrip("\n").split("\t")
            if number == 1 or not line.strip():
                continue
            if len(parts) != 3:
                raise InputError(path, f"expected 3 tab-separated fields, got {len(parts)}", line=number)
            try:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
            except ValueError:
                raise InputError(path, f"score {parts[2]!r} is not an integer", line=number, field="score") from None
    return qrels


def convert_beir(folder, split: str, out_store, out_queries, out_qrels) -> dict:
    """Write the set's passage store, its judged queries (id TAB text) and its qrels (TREC); return counts."""
    folder = Path(folder)
    ids, texts = [], []
    for _, record in _jsonl(folder / "corpus.jsonl", ("_id", "title", "text")):
        ids.append(record["_id"])
        texts.append(" ".join(t for t in (record.get("title", ""), record.get("text", "")) if t))
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    known = set(ids)
    for q, judged in qrels.items():
        unknown = sorted(set(judged) - known)
        if unknown:
            raise InputError(folder / "qrels" / f"{split}.tsv", f"corpus-id {unknown[0]!r} (query {q}) is not in "
                             "corpus.jsonl", field="corpus-id")
    queries = {}
    for _, record in _jsonl(folder / "queries.jsonl", ("_id", "text")):
        if record["_id"] in qrels:
            queries[record["_id"]] = " ".join(record["text"].split())
    unjudged = sorted(set(qrels) - set(queries))
    if unjudged:
        raise InputError(folder / "queries.jsonl", f"query {unjudged[0]!r} of qrels/{split}.tsv has no line here",
                         field="_id")
    texts = [" ".join(t.split()) for t in texts]  # a store line holds no tab or newline
    write_passage_store(pa.table({"id": ids, "text": texts}), out_store)
    write_lines_atomic(out_queries, [f"{q}\t{queries[q]}" for q in sorted(queries)])
    write_lines_atomic(out_qrels, [f"{q} 0 {p} {g}" for q in sorted(qrels) for p, g in sorted(qrels[q].items())])
    return {"passages": len(ids), "queries": len(queries), "qrels": sum(map(len, qrels.values()))}
