"""Validation of the raw MS MARCO-format inputs, run before any expensive stage."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open, write_json_atomic, write_jsonl_atomic
from .errors import InputError
from .heldout import (
    Source,
    combine_heldout,
    msmarco_heldout_files,
    refuse_train_held_out,
    sources_record,
    write_checked_heldout,
)
from .json_files import jsonl_records
from .passage_store import write_passage_store
from .plain_bytes import open_plain, refuse_stream
from .provenance import sha256_file
from .tsv import check_ids_known, header_lines, read_id_text_tsv, read_trec_qrels


def read_queries(path) -> pa.Table:
    return read_id_text_tsv(path, "query_id", "text")


def read_collection(path) -> pa.Table:
    return read_id_text_tsv(path, "passage_id", "text")


BOM = b"\xef\xbb\xbf"
# MS MARCO QnA's answer for a query without one
NO_ANSWER = "No Answer Present."
ANSWER_ID_KEYS = ("query_id", "query_id_v1_1")
QRELS_MISSING_PASSAGES = ("error", "drop")


def _answer_id(path, value, line=None, row=None) -> str:
    where = f"row {row!r}: " if row is not None else ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value or value != value.strip():
        raise InputError(path, f"{where}query_id must be a non-empty string or an integer, got {value!r}", line=line,
                         field="query_id")
    return value


def _answer_list(path, value, line=None, row=None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        where = f"row {row!r}: " if row is not None else ""
        raise InputError(path, f"{where}answers must be a list of strings", line=line, field="answers")
    return [a for a in value if a != NO_ANSWER]


def _record_answers(path, record, line=None) -> tuple[str, str, list[str]]:
    if not isinstance(record, dict):
        raise InputError(path, "expected a JSON object", line=line)
    key = next((k for k in ANSWER_ID_KEYS if k in record), None)
    if key is None:
        raise InputError(path, f"missing query id (one of {', '.join(ANSWER_ID_KEYS)})", line=line, field="query_id")
    return key, _answer_id(path, record[key], line), _answer_list(path, record.get("answers"), line)


def _columnar_answers(path, obj: dict):
    """MS MARCO QnA v2.1 JSON: {"query_id": {row: id}, "answers": {row: [...]}, ...}."""
    ids, answers = obj.get("query_id"), obj.get("answers")
    if not isinstance(ids, dict):
        raise InputError(path, "expected query_id keyed by row, as in the MS MARCO QnA v2.1 JSON", field="query_id")
    for row, qid in ids.items():
        if row not in answers:
            raise InputError(path, f"row {row!r} has a query_id but no answers", field="answers")
        try:
            json.dumps([qid, answers[row]], ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(path, f"row {row!r}: a lone surrogate escape (half a UTF-16 pair, which no UTF-8 text "
                             "holds); write the whole pair", field="answers") from None
        yield None, "query_id", _answer_id(path, qid, row=row), _answer_list(path, answers[row], row=row)


def _answer_records(path, fh):
    """(line, id key, query id, answers) of every answer in the open file `fh`, read once: JSON lines when its first
    non-blank line is a record, the QnA v2.1 JSON when it is the whole object on one line, or `{` alone, which
    opens it pretty-printed."""
    lines = enumerate(fh, start=1)
    read = []  # the lines read up to the first non-blank one, which a pretty-printed file is parsed from
    for number, raw in lines:
        read.append(raw.removeprefix(BOM) if number == 1 else raw)
        if read[-1].strip():
            break
    else:
        raise InputError(path, "file is empty; expected at least one record")
    first = read[-1]
    try:
        head = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        head = None
    if isinstance(head, dict) and isinstance(head.get("answers"), dict):
        return _columnar_answers(path, head)
    if head is not None or first.strip() != b"{":  # the JSON lines reader names a bad line
        return ((number, *_record_answers(path, record, number))
                for number, record in jsonl_records(path, itertools.chain([(len(read), first)], lines)))
    data = b"".join(read) + fh.read()
    try:  # a pretty-printed QnA v2.1 JSON spans many lines
        whole = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(path, "not valid UTF-8; re-encode the file as UTF-8",
                         line=data.count(b"\n", 0, exc.start) + 1) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg} (character {exc.colno})", line=exc.lineno) from None
    if isinstance(whole, dict) and isinstance(whole.get("answers"), dict):
        return _columnar_answers(path, whole)
    raise InputError(path, "neither JSON lines of answer records nor the MS MARCO QnA v2.1 JSON")


def _read_answers(path) -> tuple[dict[str, list[str]], set[str]]:
    """The answers and the id keys the file used (query_id, query_id_v1_1); the file, plain or compressed, is read
    once."""
    answers: dict[str, list[str]] = {}
    keys = set()
    with open_plain(path) as fh:
        for line, key, qid, values in _answer_records(path, fh):
            if qid in answers:
                raise InputError(path, f"duplicate query_id {qid!r}", line=line, field="query_id")
            answers[qid] = values
            keys.add(key)
    if not answers:
        raise InputError(path, "file is empty; expected at least one record")
    return answers, keys


def read_reference_answers(path) -> dict[str, list[str]]:
    """Read dev reference answers, {query_id: [answer, ...]}, from any of the formats MS MARCO uses:

    - JSON lines, one record a line: `{"query_id": ..., "answers": [...]}`, with `query_id_v1_1` in
      place of `query_id` (MS MARCO QnA v1.1 reference answers), or whole QnA v1.1 records (their
      other fields are ignored);
    - the MS MARCO QnA v2.1 JSON (dev_v2.1.json): one object whose fields are keyed by row,
      `{"query_id": {"0": 1102432, ...}, "answers": {"0": [...], ...}, ...}`.

    Integer ids become strings; "No Answer Present." (QnA's marker of an unanswered query) is no
    answer. Queries outside the dev set are kept here: validate_msmarco_inputs ignores and counts them.
    """
    return _read_answers(path)[0]


def answers_of_dev_queries(path, dev_queries_path, dev_ids: list[str]) -> tuple[dict[str, list[str]], dict]:
    """The reference answers of the dev queries (in `dev_ids` order) and their counts for inputs.json.

    Answers of other queries are ignored (an official QnA file covers all of its queries, the dev set
    is a subset); none matching is an error, since the ids then come from another id space. So is a
    file keyed by query_id_v1_1: MS MARCO QnA v1.1 ids are another numbering than the passage ranking
    query ids (some coincide by chance), so its answers would attach to unrelated queries.
    """
    everything, keys = _read_answers(path)
    matched = {q: everything[q] for q in dev_ids if q in everything}
    if "query_id_v1_1" in keys:
        raise InputError(path, f"answers keyed by query_id_v1_1 are MS MARCO QnA v1.1 ids, not the query ids of "
                         f"{dev_queries_path} ({len(matched):,} of its {len(dev_ids):,} ids occur in the file by "
                         "coincidence of numbering). Give the QnA v2.1 dev file (dev_v2.1.json), whose query_id are "
                         "the passage ranking dev ids; if your dev queries do carry v1.1 ids, rename the key to "
                         "query_id", field="query_id")
    if not matched:
        example = next(iter(everything))
        raise InputError(path, f"none of its {len(everything):,} answers is for a query of {dev_queries_path} "
                         f"(first query_id {example!r}); are the answers of another query set? For "
                         "queries.dev.small.tsv give the QnA v2.1 dev file (dev_v2.1.json)",
                         field="query_id")
    counts = {"dev_answers": len(matched), "dev_answers_other_queries": len(everything) - len(matched),
              "dev_queries_without_answer": sum(1 for q in dev_ids if not matched.get(q))}
    return matched, counts


def check_qrels(qrels_path, qrels: pa.Table, passage_ids, collection, query_ids, queries_path,
                missing_passages: str = "error") -> tuple[pa.Table, int]:
    """Check a qrels table against the collection and the queries; return it and the rows dropped.

    A row whose passage is not in the collection is an error, or with missing_passages="drop" is
    left out and counted (a qrels row whose query is not in the queries is always an error).
    """
    if missing_passages not in QRELS_MISSING_PASSAGES:
        raise ValueError(f"qrels_missing_passages must be one of {QRELS_MISSING_PASSAGES}, got {missing_passages!r}")
    dropped, rows = 0, None
    if missing_passages == "drop":
        known = pc.is_in(qrels.column("passage_id"), value_set=pa.chunked_array(passage_ids).combine_chunks())
        dropped = qrels.num_rows - int(pc.sum(known).as_py() or 0)
        if dropped == qrels.num_rows:
            raise InputError(qrels_path, f"no row's passage_id is in the collection {collection} (all "
                             f"{qrels.num_rows:,} dropped); are these qrels of another corpus?", field="passage_id")
        qrels = qrels.filter(known)
        rows = np.flatnonzero(known.to_numpy(zero_copy_only=False))  # the file's record of each row kept
    else:
        check_ids_known(qrels_path, qrels, "passage_id", passage_ids,
                        f"the collection {collection} (set doubting.qrels_missing_passages: drop to leave such rows "
                        "out)")
    check_ids_known(qrels_path, qrels, "query_id", query_ids, f"the queries {queries_path}", rows)
    return qrels, dropped


def write_qrels(table: pa.Table, path) -> None:
    """TREC qrels, tab-separated, in the table's row order."""
    columns = [table.column(c) for c in ("query_id", "iteration", "passage_id")]
    lines = pc.binary_join_element_wise(*columns, pc.cast(table.column("relevance"), pa.string()), "\t")
    with atomic_open(path) as fh:
        for chunk in lines.chunks:
            if len(chunk):
                fh.write("\n".join(chunk.to_pylist()) + "\n")


def validate_msmarco_inputs(collection, train_queries, train_qrels, dev_queries, dev_qrels,
                            dev_answers, heldout_queries: list[Source], qrels_missing_passages: str = "error",
                            checked: dict | None = None, passage_store=None) -> dict:
    """Read and check every input; return a report with row counts and sha256 of each file.

    Raises InputError at the first problem, naming the file, line and field; a TSV or qrels file's header line
    is skipped and counted (`header_lines`, irdata.tsv.header_lines). `heldout_queries`: the held-out sources
    (irdata.heldout.msmarco_heldout_files: the dev queries, the listed files, the audit's queries) in precedence
    order, or the listed files alone (the dev queries are then held out before them); one that holds every train
    query is refused (irdata.heldout.refuse_train_held_out). `checked`, when given,
    names the files every later stage reads instead of the raw ones: {"train_qrels", "dev_qrels"}
    (TREC qrels, minus the rows dropped per qrels_missing_passages), "dev_answers" (JSON lines of
    the dev queries' answers, in dev_queries order, whatever the input format) and "heldout_queries" (every
    held-out query with its source, irdata.heldout.write_checked_heldout; the report's `heldout_sources` names
    them). Once every input is valid, the collection parsed here is written as the passage store
    `passage_store` (when given), so that no later stage parses the TSV again. A pipe or a device is refused:
    each input is read again for its sha256.
    """
    if not all(isinstance(source, Source) for source in heldout_queries):  # files listed as heldout_queries
        heldout_queries = msmarco_heldout_files({"dev_queries": str(dev_queries), "audit": {"queries": None},
                                                 "heldout_queries": [str(path) for path in heldout_queries]})
    for path in input_paths(collection, train_queries, train_qrels, dev_queries, dev_qrels, dev_answers,
                            [source.file for source in heldout_queries]):
        refuse_stream(path, "the input check reads each input twice, its records and then its sha256")
    passages = read_collection(collection)
    pids = passages.column("passage_id")
    report = {"files": {}, "rows": {"collection": passages.num_rows}, "qrels_dropped": {}}
    checked_qrels, split_queries = {}, {}
    for name, queries_path, qrels_path in (("train", train_queries, train_qrels),
                                           ("dev", dev_queries, dev_qrels)):
        queries = split_queries[name] = read_queries(queries_path)
        qrels, dropped = check_qrels(qrels_path, read_trec_qrels(qrels_path), pids, collection,
                                     queries.column("query_id"), queries_path, qrels_missing_passages)
        report["rows"][f"{name}_queries"] = queries.num_rows
        report["rows"][f"{name}_qrels"] = qrels.num_rows
        report["qrels_dropped"][name] = dropped
        checked_qrels[name] = qrels
    dev_ids = split_queries["dev"].column("query_id").to_pylist()
    answers, counts = answers_of_dev_queries(dev_answers, dev_queries, dev_ids)
    report["rows"].update(counts)
    heldout = [(source, read_queries(source.file)) for source in heldout_queries]
    for source, table in heldout:
        report["rows"][f"heldout:{source.file}"] = table.num_rows
    train_source = Source("train_queries", str(train_queries))
    refuse_train_held_out(train_source, split_queries["train"], heldout)
    heldout_table, heldout_counts = combine_heldout(heldout)
    report["rows"].update(heldout_counts)
    report["train_source"] = train_source.record()
    report["heldout_sources"] = sources_record(heldout, heldout_table)
    paths = input_paths(collection, train_queries, train_qrels, dev_queries, dev_qrels, dev_answers,
                        [source.file for source in heldout_queries])
    for path in paths:
        report["files"][path] = {"sha256": sha256_file(path), "bytes": Path(path).stat().st_size}
    trec = {str(train_qrels), str(dev_qrels)}
    report["header_lines"] = {path: 1 for path in paths
                              if path != str(dev_answers) and header_lines(path, trec=path in trec)}
    # only once every input passed: a refused one leaves none of the files later stages read
    if checked:
        for name, qrels in checked_qrels.items():
            write_qrels(qrels, checked[f"{name}_qrels"])
        write_jsonl_atomic(checked["dev_answers"], ({"query_id": q, "answers": a} for q, a in answers.items()))
        write_checked_heldout(heldout_table, checked["heldout_queries"])
    if passage_store is not None:
        write_passage_store(passages.rename_columns(["id", "text"]), passage_store)
    return report


def input_paths(collection, train_queries, train_qrels, dev_queries, dev_qrels, dev_answers,
                heldout_queries) -> list[str]:
    """The raw input files, each once, in the order inputs.json records them."""
    return list(dict.fromkeys(str(p) for p in (collection, train_queries, train_qrels, dev_queries, dev_qrels,
                                               dev_answers, *heldout_queries)))


# the keys of a Doubting section that name its MS MARCO-format input files, in input_paths's order (with the
# held-out query files after them: irdata.heldout.msmarco_heldout_files)
RAW_FILE_KEYS = ("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels", "dev_answers")


def raw_input_paths(config: dict) -> list[str]:
    """The raw input files the config names (doubting.*), each once, in input_paths's order."""
    d = config["doubting"]
    return input_paths(*(d[key] for key in RAW_FILE_KEYS), [source.file for source in msmarco_heldout_files(d)])


def checked_record_name(paths: list[str]) -> str:
    """The file name of the input check's record of the input `paths`: named by a hash of the paths, so
    that other paths name a file that does not exist (rules/queries.smk says why)."""
    return f"checked-{hashlib.sha256(json.dumps(list(paths)).encode()).hexdigest()[:16]}.json"


_REBUILD = ("To build the release from the inputs the config names, rerun the input check and every stage "
            "after it: add -R validate_msmarco_inputs to the snakemake command (or restore the files it was "
            "built from).")


def check_inputs_current(report_path, report: dict, paths: list[str]) -> None:
    """Refuse a release whose work/ was built from other raw inputs than `paths`, the ones the config
    names now: other paths, or files whose content changed since the input check (inputs.json,
    `report`, holds each file's sha256)."""
    recorded, named = report["files"], list(dict.fromkeys(map(str, paths)))
    if set(recorded) != set(named):
        then = ", ".join(p for p in recorded if p not in named)
        now = ", ".join(p for p in named if p not in recorded)
        raise InputError(report_path, f"the work/ outputs were built from other inputs than the config names: "
                         f"checked then {then}; named now {now}. {_REBUILD}", field="files")
    for path in named:
        if not Path(path).is_file():
            raise InputError(report_path, f"{path}, an input the work/ outputs were built from, is gone. {_REBUILD}",
                             field="files")
        then, now = recorded[path], {"sha256": sha256_file(path), "bytes": Path(path).stat().st_size}
        if now["sha256"] != then["sha256"]:
            raise InputError(report_path, f"{path} changed since the input check built the work/ outputs from it "
                             f"(sha256 {then['sha256']}, {then['bytes']:,} bytes then; {now['sha256']}, "
                             f"{now['bytes']:,} bytes now). {_REBUILD}", field="files")


def run_validate_msmarco_inputs(*, collection, train_queries, raw_train_qrels, dev_queries, raw_dev_qrels,
                                raw_dev_answers, raw_heldout_queries, train_qrels, dev_qrels, dev_answers,
                                heldout_queries, report, checked, store, settings: dict) -> dict:
    """The validate_msmarco_inputs rule: check the raw inputs, write the checked files (`train_qrels`,
    `dev_qrels`, `dev_answers`, `heldout_queries`), the passage `store`, the `report` and the record `checked` of
    the inputs. The held-out files `raw_heldout_queries` are named by their keys in settings["heldout"]."""
    keys = {record["file"]: record["keys"] for record in settings["heldout"]}
    sources = [Source.from_record({"keys": keys[str(path)], "file": str(path)}) for path in raw_heldout_queries]
    result = validate_msmarco_inputs(
        collection, train_queries, raw_train_qrels, dev_queries, raw_dev_qrels, raw_dev_answers, sources,
        qrels_missing_passages=settings["qrels_missing_passages"],
        checked={"train_qrels": train_qrels, "dev_qrels": dev_qrels, "dev_answers": dev_answers,
                 "heldout_queries": heldout_queries}, passage_store=store,
    )
    write_json_atomic(report, result)
    write_json_atomic(checked, {"inputs": list(result["files"])})
    return result
