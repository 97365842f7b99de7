"""MS MARCO-format inputs (doubting.source.format: msmarco): a collection TSV, the train and dev query TSVs and
TREC qrels, the dev reference answers; their check, run before any expensive stage, writes the checked qrels, answers
and held-out queries every later stage reads, and the passage store. The query files are read as named."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..atomic import write_json_atomic, write_jsonl_atomic
from ..errors import InputError
from ..heldout import (
    Source,
    audit_queries,
    combine_heldout,
    grouped,
    refuse_train_held_out,
    same_file_how,
    sources_record,
    write_checked_heldout,
)
from ..passage_store import write_passage_store
from ..path_kinds import FILE
from ..plain_bytes import refuse_stream
from ..provenance import sha256_file
from ..qrels_files import check_qrels, write_qrels
from ..query_files import read_queries
from ..reference_answers import read_answers
from ..tsv import header_lines, read_id_text_tsv, read_trec_qrels
from .base import CardWords, InputSource, listed_paths, qrels_relevances


def read_collection(path) -> pa.Table:
    return read_id_text_tsv(path, "passage_id", "text")


def answers_of_dev_queries(path, dev_queries_path, dev_ids: list[str]) -> tuple[dict[str, list[str]], dict]:
    """The reference answers of the dev queries (in `dev_ids` order) and their counts for inputs.json.

    Answers of other queries are ignored (an official QnA file covers all of its queries, the dev set
    is a subset); none matching is an error, since the ids then come from another id space. So is a
    file keyed by query_id_v1_1: MS MARCO QnA v1.1 ids are another numbering than the passage ranking
    query ids (some coincide by chance), so its answers would attach to unrelated queries.
    """
    everything, keys = read_answers(path)
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


def heldout_files(doubting: dict) -> list[Source]:
    """The query files an MS MARCO-format build holds out, in precedence order (the first source of a held-out
    text is the one named): its dev queries, the files of `heldout_queries` in their order, the audit's queries."""
    return grouped([("dev_queries", doubting["dev_queries"]),
                    *((f"heldout_queries[{i}]", p) for i, p in enumerate(doubting["heldout_queries"])),
                    *audit_queries(doubting)])


def train_heldout_conflicts(doubting: dict, folder: Path, where: str) -> list[str]:
    """One line per key of a held-out query file that is the train queries' file, or a file of the same bytes
    (`<where><key>: ...`, naming the train key too); relative paths from the working `folder`."""
    lines = []
    for source in heldout_files(doubting):
        how = same_file_how(folder / doubting["train_queries"], folder / source.file)
        if how is None:
            continue
        lines += [f"{where}{key}: {source.file} {how} {where}train_queries ({doubting['train_queries']}): its "
                  "queries would be held out and trained on at once; name the train queries' own file"
                  for key in (source.key, *source.also)]
    return lines


def validate_msmarco_inputs(collection, train_queries, train_qrels, dev_queries, dev_qrels,
                            dev_answers, heldout_queries: list[Source], qrels_missing_passages: str = "error",
                            checked: dict | None = None, passage_store=None) -> dict:
    """Read and check every input; return a report with row counts and sha256 of each file.

    Raises InputError at the first problem, naming the file, line and field; a TSV or qrels file's header line
    is skipped and counted (`header_lines`, irdata.tsv.header_lines). `heldout_queries`: the held-out sources
    (heldout_files: the dev queries, the listed files, the audit's queries) in precedence
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
        heldout_queries = heldout_files({"dev_queries": str(dev_queries), "audit": {"queries": None},
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
# held-out query files after them: heldout_files)
RAW_FILE_KEYS = ("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels", "dev_answers")


def raw_input_paths(config: dict) -> list[str]:
    """The raw input files the config names (doubting.*), each once, in input_paths's order."""
    d = config["doubting"]
    return input_paths(*(d[key] for key in RAW_FILE_KEYS), [source.file for source in heldout_files(d)])


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


class MsMarcoSource(InputSource):
    name = "msmarco"
    reference_answers = True
    writes_queries = False
    file_keys = (*((key,) for key in RAW_FILE_KEYS), ("heldout_queries",))

    def input_paths(self, doubting: dict) -> list[tuple[str, str, str]]:
        return ([(key, doubting[key], FILE) for key in RAW_FILE_KEYS]
                + listed_paths("heldout_queries", doubting["heldout_queries"]))

    def raw_inputs(self, doubting: dict) -> list[str]:
        return raw_input_paths({"doubting": doubting})

    def rule_inputs(self, doubting: dict) -> dict:
        return {"collection": doubting["collection"], "train_queries": doubting["train_queries"],
                "raw_train_qrels": doubting["train_qrels"], "dev_queries": doubting["dev_queries"],
                "raw_dev_qrels": doubting["dev_qrels"], "raw_dev_answers": doubting["dev_answers"],
                # the dev queries, the listed files and the audit's queries (irdata/heldout.py)
                "raw_heldout_queries": [source.file for source in heldout_files(doubting)]}


    def query_files(self, doubting: dict) -> dict[str, str]:
        return {"train": doubting["train_queries"], "dev": doubting["dev_queries"]}

    def heldout_files(self, doubting: dict) -> list[Source]:
        return heldout_files(doubting)

    def train_heldout_conflicts(self, doubting: dict, folder: Path, where: str) -> list[str]:
        return train_heldout_conflicts(doubting, folder, where)

    def check_settings(self, doubting: dict) -> dict:
        return {"qrels_missing_passages": doubting["qrels_missing_passages"],
                "inputs": self.raw_inputs(doubting),
                "heldout": [source.record() for source in heldout_files(doubting)]}

    def size_path(self, doubting: dict) -> str:
        return doubting["collection"]

    def train_qrels(self, doubting: dict):
        return doubting["train_qrels"], qrels_relevances(doubting["train_qrels"], 4)

    def other_data(self, ours: dict, theirs: dict, same_file) -> list[str]:
        return [key for key in RAW_FILE_KEYS if key in ours and not same_file(ours[key], theirs.get(key, ""))]

    def card_words(self, doubting: dict, corpus: str) -> CardWords:
        collection, train_q, dev_q = doubting["collection"], doubting["train_queries"], doubting["dev_queries"]
        return CardWords(origin=(f"{corpus + ': ' if corpus else ''}the passages of `{collection}` and the queries of "
                                 f"`{train_q}` and `{dev_q}`"),
                         dev_set=f"the dev query file {dev_q}",
                         heldout_own="its development queries and the label audit's",
                         heldout_listed="heldout_queries", join_key="doubting.collection", collection=collection,
                         queries=[train_q, dev_q])


MSMARCO = MsMarcoSource()
