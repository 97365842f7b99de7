"""The input check of a BEIR folder (doubting.source.format: beir): the checked files every later stage reads.

It writes what validate_msmarco_inputs writes (the passage store, the TREC qrels of train and dev, the dev
answers as JSON lines: none, BEIR has no reference answers) plus the queries of train, dev and the held-out
splits as checked `qid<TAB>text` files, so that the dedup, the shards and the LLM stages read one format
whatever the source. A query belongs to a split through that split's qrels (BEIR's rule); the held-out
queries are those of every other qrels split of the folder (the dev split first), then the query files
listed in `source.heldout_queries`, each (id, text) once: a query in several of them is held out once, and an
id with another text in an extra file (numbered apart from the folder) is another query, held out too (the
dedup reads the file with dedup.read_heldout_queries). Nothing is written before every input passed.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open, write_json_atomic, write_jsonl_atomic
from .beir import check_qrels_ids_known, read_beir_corpus, read_beir_qrels, read_beir_queries
from .errors import InputError
from .msmarco_inputs import raw_input_paths, read_queries, write_qrels
from .passage_store import write_passage_store
from .plain_bytes import refuse_stream
from .provenance import sha256_file
from .tsv import JSON_BLANK, _line_of_record, header_lines

# the checked files the input check writes (rules/queries.smk names them)
CHECKED_FILES = ("train_qrels", "dev_qrels", "dev_answers", "train_queries", "dev_queries", "heldout_queries")


def beir_paths(folder, split: str) -> dict[str, Path]:
    """The files of a BEIR folder that one split reads."""
    folder = Path(folder)
    return {"corpus": folder / "corpus.jsonl", "queries": folder / "queries.jsonl",
            "qrels": folder / "qrels" / f"{split}.tsv"}


def qrels_splits(folder) -> list[str]:
    """The splits of a BEIR folder: the names of its qrels/*.tsv files, sorted."""
    return sorted(p.stem for p in (Path(folder) / "qrels").glob("*.tsv"))


def raw_beir_paths(source: dict) -> list[str]:
    """The raw files a BEIR source names, each once: corpus, queries, every split's qrels, the extra
    held-out query files. Their paths are in the input check's settings, as the MS MARCO files are."""
    if not source.get("folder"):
        raise ValueError("doubting.source.folder: format beir reads a BEIR folder; name it")
    folder = Path(source["folder"])
    paths = [folder / "corpus.jsonl", folder / "queries.jsonl",
             *(folder / "qrels" / f"{s}.tsv" for s in qrels_splits(folder)), *source["heldout_queries"]]
    return list(dict.fromkeys(map(str, paths)))


def source_input_paths(config: dict) -> list[str]:
    """The raw input files of the config's source (doubting.source.format), each once."""
    source = config["doubting"]["source"]
    return raw_beir_paths(source) if source["format"] == "beir" else raw_input_paths(config)


def _split_queries(queries: pa.Table, qrels: pa.Table) -> pa.Table:
    """The queries of one split: those its qrels name, in queries.jsonl order."""
    return queries.filter(pc.is_in(queries.column("id"), value_set=qrels.column("query_id").unique()))


def _refuse_tsv_breaking(path, queries: pa.Table, all_queries: pa.Table) -> None:
    """A query text with a tab or line break cannot become a `qid<TAB>text` line (the TSV readers would
    read another query): refused, naming its line of queries.jsonl."""
    bad = pc.match_substring_regex(queries.column("text"), r"[\t\r\n]")
    if pc.any(bad).as_py():
        qid = queries.column("id")[pc.index(bad, True).as_py()].as_py()
        row = pc.index(all_queries.column("id"), qid).as_py()
        raise InputError(path, f"query {qid!r}: its text holds a tab or a line break; write it on one line "
                         "without tabs", line=_line_of_record(Path(path), row, JSON_BLANK), field="text")


def write_queries_tsv(table: pa.Table, path) -> None:
    """`id<TAB>text` lines, in the table's order."""
    lines = pc.binary_join_element_wise(table.column("id"), table.column("text"), "\t")
    with atomic_open(path) as fh:
        for chunk in lines.chunks:
            if len(chunk):
                fh.write("\n".join(chunk.to_pylist()) + "\n")


def validate_beir_inputs(folder, train_split: str, dev_split: str, heldout_queries: list[str],
                         checked: dict | None = None, passage_store=None) -> dict:
    """Read and check a BEIR folder; return a report with row counts and the sha256 of each file.

    Raises InputError at the first problem, naming the file, line and field. `checked`, when given, names
    the files later stages read: train_qrels, dev_qrels (TREC qrels), dev_answers (empty: BEIR has no
    reference answers, so the dev split grades query_only) and train_queries, dev_queries,
    heldout_queries (`qid<TAB>text`). `passage_store` receives the corpus with its titles.
    """
    folder = Path(folder)
    for path in raw_beir_paths({"folder": folder, "heldout_queries": heldout_queries}):
        refuse_stream(path, "the input check reads each input twice, its records and then its sha256")
    splits = qrels_splits(folder)
    for name, split in (("train_split", train_split), ("dev_split", dev_split)):
        if split not in splits:
            raise InputError(folder / "qrels" / f"{split}.tsv", f"no such qrels file: doubting.source.{name} names "
                             f"split {split!r}, the folder has {', '.join(splits) or 'no qrels/*.tsv'}",
                             field=name)
    if train_split == dev_split:
        raise InputError(folder / "qrels", f"train_split and dev_split are both {train_split!r}; a dev query "
                         "would be annotated as train", field="dev_split")
    paths = beir_paths(folder, train_split)
    corpus = read_beir_corpus(paths["corpus"])
    queries = read_beir_queries(paths["queries"])
    report = {"format": "beir", "files": {}, "rows": {"collection": corpus.num_rows, "queries": queries.num_rows},
              "qrels_dropped": {"train": 0, "dev": 0}}
    by_split = {}
    for split in [dev_split, train_split, *(s for s in splits if s not in (train_split, dev_split))]:
        path = folder / "qrels" / f"{split}.tsv"
        qrels = read_beir_qrels(path)
        check_qrels_ids_known(path, qrels, corpus, queries)
        by_split[split] = (path, qrels, _split_queries(queries, qrels))
        report["rows"][f"qrels:{split}"] = qrels.num_rows
    for role, split in (("train", train_split), ("dev", dev_split)):
        report["rows"][f"{role}_queries"] = by_split[split][2].num_rows
        report["rows"][f"{role}_qrels"] = by_split[split][1].num_rows
    report["rows"]["dev_answers"] = 0
    heldout = [by_split[s][2] for s in by_split if s != train_split]
    for path in heldout_queries:
        extra = read_queries(path).rename_columns(["id", "text"])
        heldout.append(extra)
        report["rows"][f"heldout:{path}"] = extra.num_rows
    heldout = pa.concat_tables(heldout)
    # a query held out by several sources once; an id with another text (an extra file numbered apart from the
    # folder) is another query, held out too
    pairs = pc.binary_join_element_wise(heldout.column("id"), heldout.column("text"), "\t")
    first = ~pairs.to_pandas().duplicated(keep="first").to_numpy()
    report["rows"]["heldout_repeats"] = int(heldout.num_rows - first.sum())
    heldout = heldout.filter(pa.array(first))
    report["rows"]["heldout_queries"] = heldout.num_rows
    for split in by_split:
        _refuse_tsv_breaking(paths["queries"], by_split[split][2], queries)
    for path in raw_beir_paths({"folder": folder, "heldout_queries": heldout_queries}):
        report["files"][path] = {"sha256": sha256_file(path), "bytes": Path(path).stat().st_size}
    report["header_lines"] = {str(path): 1 for path in heldout_queries if header_lines(path)}
    # only once every input passed: a refused one leaves none of the files later stages read
    if checked:
        for role, split in (("train", train_split), ("dev", dev_split)):
            qrels = by_split[split][1]
            write_qrels(qrels.add_column(1, "iteration", pa.array(["0"] * qrels.num_rows, pa.string())),
                        checked[f"{role}_qrels"])
            write_queries_tsv(by_split[split][2], checked[f"{role}_queries"])
        write_queries_tsv(heldout, checked["heldout_queries"])
        write_jsonl_atomic(checked["dev_answers"], [])
    if passage_store is not None:
        write_passage_store(corpus, passage_store)
    return report


def run_validate_beir_inputs(*, raw_inputs, train_qrels, dev_qrels, dev_answers, train_queries, dev_queries,
                             heldout_queries, report, checked, store, settings: dict) -> dict:
    """The validate_beir_inputs rule: check the BEIR folder of `settings` (its files: `raw_inputs`), write the
    checked files (CHECKED_FILES), the passage `store`, the `report` and the record `checked` of the inputs."""
    source = settings["source"]
    files = {"train_qrels": train_qrels, "dev_qrels": dev_qrels, "dev_answers": dev_answers,
             "train_queries": train_queries, "dev_queries": dev_queries, "heldout_queries": heldout_queries}
    result = validate_beir_inputs(source["folder"], source["train_split"], source["dev_split"],
                                  source["heldout_queries"], checked={key: files[key] for key in CHECKED_FILES},
                                  passage_store=store)
    write_json_atomic(report, result)
    write_json_atomic(checked, {"inputs": list(result["files"])})
    return result
