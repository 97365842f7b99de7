"""The input check of a BEIR folder (doubting.source.format: beir): the checked files every later stage reads.

It writes what validate_msmarco_inputs writes (the passage store, the TREC qrels of train and dev, the dev
answers as JSON lines: none, BEIR has no reference answers, and the held-out queries with their sources) plus the
queries of train and dev as checked `qid<TAB>text` files, so that the dedup, the shards and the LLM stages read
one format whatever the source. A query belongs to a split through that split's qrels (BEIR's rule); the held-out
queries are those of every other qrels split of the folder (the dev split first), then those of the query files
listed in `source.heldout_queries` and of the label audit (source_heldout_files), each (id, text) once: a
query in several of them is held out once, and an id with another text in an extra file (numbered apart from the
folder) is another query, held out too. A split is every file qrels/<split>.tsv, whatever the case of its name and
also compressed (COMPRESSION_SUFFIXES): the beir package reads qrels/<split>.tsv alone, but a split named otherwise
is still a split whose queries must not reach train, so any other file in qrels/ is refused rather than skipped.
Nothing is written before every input passed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import write_json_atomic, write_jsonl_atomic
from ..beir import check_qrels_ids_known, read_beir_corpus, read_beir_qrels, read_beir_queries
from ..errors import InputError
from ..heldout import (
    Source,
    combine_heldout,
    refuse_train_held_out,
    sources_record,
    write_checked_heldout,
)
from ..passage_store import write_passage_store
from ..path_kinds import FILE, FOLDER
from ..plain_bytes import refuse_stream
from ..provenance import sha256_file
from ..qrels_files import write_qrels
from ..query_files import line_breaking_row, read_queries, write_queries
from ..tsv import JSON_BLANK, _line_of_record, header_lines
from .base import CardWords, InputSource, listed_paths, qrels_relevances, source_heldout_files

# the checked files the input check writes (rules/queries.smk names them)
CHECKED_FILES = ("train_qrels", "dev_qrels", "dev_answers", "train_queries", "dev_queries", "heldout_queries")
# the compressions a qrels file may carry, as a last suffix after .tsv: those the input readers decompress (gzip,
# bzip2, xz, zstd; they recognise them by content, but a split's file is found by its name)
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
_QRELS_NAME = re.compile(r"(?P<split>.+?)\.tsv(?P<suffix>\.[^.]+)?", re.IGNORECASE)


def _qrels_entries(folder) -> list[tuple[Path, str | None, str | None]]:
    """(path, split, problem) of every entry of the folder's qrels/ but hidden ones, by name: a qrels file has its
    split (the name before `.tsv`) and no problem; anything else a problem and no split."""
    qrels = Path(folder) / "qrels"
    entries = []
    for path in sorted(qrels.iterdir()) if qrels.is_dir() else []:
        match = _QRELS_NAME.fullmatch(path.name)
        if path.name.startswith("."):
            continue
        if not path.is_file() or not match:
            entries.append((path, None, "not a qrels file (qrels/<split>.tsv, or compressed as "
                            f"{', '.join(f'<split>.tsv{s}' for s in COMPRESSION_SUFFIXES)})"))
        elif match["suffix"] and match["suffix"].lower() not in COMPRESSION_SUFFIXES:
            entries.append((path, None, f"a qrels file compressed as {match['suffix']}, which the readers do not "
                            f"read (they read {', '.join(COMPRESSION_SUFFIXES)}); decompress it or recompress it"))
        else:
            entries.append((path, match["split"], None))
    return entries


def qrels_files(folder) -> dict[str, list[Path]]:
    """The qrels files of a BEIR folder by split, the split's name case-folded (`Dev.TSV` and `dev.tsv.gz` are
    split dev), in the order of their names; files that are not qrels files are left to the input check."""
    files: dict[str, list[Path]] = {}
    for path, split, problem in _qrels_entries(folder):
        if problem is None:
            files.setdefault(split.casefold(), []).append(path)
    return dict(sorted(files.items()))


def checked_qrels_files(folder) -> dict[str, Path]:
    """The one qrels file of each split of a BEIR folder; an entry of qrels/ that is not a qrels file, or a
    split given by several files, is refused: the queries of a split the check cannot read would reach train."""
    for path, _, problem in _qrels_entries(folder):
        if problem is not None:
            raise InputError(path, f"{problem}: a qrels split the input check cannot read would not be held out; "
                             "move the file out of qrels/ or give it a qrels name")
    files = qrels_files(folder)
    for split, paths in files.items():
        if len(paths) > 1:
            raise InputError(paths[1], f"split {split!r} is given by {len(paths)} files "
                             f"({', '.join(p.name for p in paths)}); keep one")
    return {split: paths[0] for split, paths in files.items()}


def split_name(path: Path) -> str:
    """A qrels file's split as its name writes it."""
    return _QRELS_NAME.fullmatch(path.name)["split"]


def qrels_file(folder, split: str) -> Path:
    """The qrels file of `split` in a BEIR folder: its file whatever the case of its name or its compression, or
    qrels/<split>.tsv where the folder has none (or several: the input check names them)."""
    paths = qrels_files(folder).get(split.casefold(), [])
    return paths[0] if len(paths) == 1 else Path(folder) / "qrels" / f"{split}.tsv"


def beir_paths(folder, split: str) -> dict[str, Path]:
    """The files of a BEIR folder that one split reads."""
    folder = Path(folder)
    return {"corpus": folder / "corpus.jsonl", "queries": folder / "queries.jsonl",
            "qrels": qrels_file(folder, split)}


def raw_beir_paths(folder, heldout_queries=()) -> list[str]:
    """The raw files of a BEIR source, each once: corpus, queries, every split's qrels, the held-out query files
    its config names (source_heldout_files). Their paths are in the input check's settings, as the MS MARCO
    files are."""
    if not folder:
        raise ValueError("doubting.source.folder: format beir reads a BEIR folder; name it")
    folder = Path(folder)
    qrels = [path for paths in qrels_files(folder).values() for path in paths]
    paths = [folder / "corpus.jsonl", folder / "queries.jsonl", *qrels, *heldout_queries]
    return list(dict.fromkeys(map(str, paths)))


def _split_queries(queries: pa.Table, qrels: pa.Table) -> pa.Table:
    """The queries of one split: those its qrels name, in queries.jsonl order."""
    return queries.filter(pc.is_in(queries.column("id"), value_set=qrels.column("query_id").unique()))


def _refuse_tsv_breaking(path, queries: pa.Table, all_queries: pa.Table) -> None:
    """A query text with a tab or line break cannot become a `qid<TAB>text` line (the TSV readers would
    read another query): refused, naming its line of queries.jsonl."""
    bad = line_breaking_row(queries.column("text"))
    if bad is not None:
        qid = queries.column("id")[bad].as_py()
        row = pc.index(all_queries.column("id"), qid).as_py()
        raise InputError(path, f"query {qid!r}: its text holds a tab or a line break; write it on one line "
                         "without tabs", line=_line_of_record(Path(path), row, JSON_BLANK), field="text")


def validate_beir_inputs(folder, train_split: str, dev_split: str, heldout_queries: list[Source],
                         checked: dict | None = None, passage_store=None) -> dict:
    """Read and check a BEIR folder; return a report with row counts and the sha256 of each file.

    Raises InputError at the first problem, naming the file, line and field. `heldout_queries`: the query files
    held out beside the folder's other splits (source_heldout_files, or the listed files alone). A
    held-out source that holds every train query is refused (irdata.heldout.refuse_train_held_out). `checked`,
    when given, names the files later
    stages read: train_qrels, dev_qrels (TREC qrels), dev_answers (empty: BEIR has no reference answers, so the
    dev split grades query_only), train_queries, dev_queries (`qid<TAB>text`) and heldout_queries (with their
    sources, irdata.heldout.write_checked_heldout). `passage_store` receives the corpus with its titles.
    """
    folder = Path(folder)
    if not all(isinstance(source, Source) for source in heldout_queries):  # files listed as source.heldout_queries
        heldout_queries = source_heldout_files({"source": {"heldout_queries": [str(p) for p in heldout_queries]},
                                              "audit": {"queries": None}})
    for path in raw_beir_paths(folder, [source.file for source in heldout_queries]):
        refuse_stream(path, "the input check reads each input twice, its records and then its sha256")
    files = checked_qrels_files(folder)
    names = ", ".join(split_name(path) for path in files.values()) or "no qrels/*.tsv"
    for name, split in (("train_split", train_split), ("dev_split", dev_split)):
        if split.casefold() not in files:
            raise InputError(folder / "qrels" / f"{split}.tsv", f"no such qrels file: doubting.source.{name} names "
                             f"split {split!r}, the folder has {names}", field=name)
    train_key, dev_key = train_split.casefold(), dev_split.casefold()
    if train_key == dev_key:
        raise InputError(folder / "qrels", f"train_split and dev_split are both {train_split!r}; a dev query "
                         "would be annotated as train", field="dev_split")
    paths = beir_paths(folder, train_split)
    corpus = read_beir_corpus(paths["corpus"])
    queries = read_beir_queries(paths["queries"])
    report = {"format": "beir", "files": {}, "rows": {"collection": corpus.num_rows, "queries": queries.num_rows},
              "qrels_dropped": {"train": 0, "dev": 0}}
    by_split = {}
    for split in [dev_key, train_key, *(s for s in files if s not in (train_key, dev_key))]:
        path = files[split]
        qrels = read_beir_qrels(path)
        check_qrels_ids_known(path, qrels, corpus, queries)
        by_split[split] = (path, qrels, _split_queries(queries, qrels))
        report["rows"][f"qrels:{split_name(path)}"] = qrels.num_rows
    for role, split in (("train", train_key), ("dev", dev_key)):
        report["rows"][f"{role}_queries"] = by_split[split][2].num_rows
        report["rows"][f"{role}_qrels"] = by_split[split][1].num_rows
    report["rows"]["dev_answers"] = 0
    # the dev split first, then the folder's other splits, then the files the config names
    heldout = [(Source("source.dev_split" if split == dev_key else "source.folder", str(path)), split_queries)
               for split, (path, _, split_queries) in by_split.items() if split != train_key]
    for source in heldout_queries:
        extra = read_queries(source.file)
        heldout.append((source, extra))
        report["rows"][f"heldout:{source.file}"] = extra.num_rows
    train_source = Source("source.train_split", str(by_split[train_key][0]))
    refuse_train_held_out(train_source, by_split[train_key][2], heldout)
    heldout_table, counts = combine_heldout(heldout)
    report["rows"].update(counts)
    report["train_source"] = train_source.record()
    report["heldout_sources"] = sources_record(heldout, heldout_table)
    for split in by_split:
        _refuse_tsv_breaking(paths["queries"], by_split[split][2], queries)
    for path in raw_beir_paths(folder, [source.file for source in heldout_queries]):
        report["files"][path] = {"sha256": sha256_file(path), "bytes": Path(path).stat().st_size}
    report["header_lines"] = {source.file: 1 for source in heldout_queries if header_lines(source.file)}
    # only once every input passed: a refused one leaves none of the files later stages read
    if checked:
        for role, split in (("train", train_key), ("dev", dev_key)):
            qrels = by_split[split][1]
            write_qrels(qrels.add_column(1, "iteration", pa.array(["0"] * qrels.num_rows, pa.string())),
                        checked[f"{role}_qrels"])
            write_queries(by_split[split][2], checked[f"{role}_queries"])
        write_checked_heldout(heldout_table, checked["heldout_queries"])
        write_jsonl_atomic(checked["dev_answers"], [])
    if passage_store is not None:
        write_passage_store(corpus, passage_store)
    return report


def run_validate_beir_inputs(*, raw_inputs, train_qrels, dev_qrels, dev_answers, train_queries, dev_queries,
                             heldout_queries, report, checked, store, settings: dict) -> dict:
    """The validate_beir_inputs rule: check the BEIR folder of `settings` (its files: `raw_inputs`; the held-out
    query files it names, by their keys: settings["heldout"]), write the checked files (CHECKED_FILES), the passage
    `store`, the `report` and the record `checked` of the inputs."""
    source = settings["source"]
    files = {"train_qrels": train_qrels, "dev_qrels": dev_qrels, "dev_answers": dev_answers,
             "train_queries": train_queries, "dev_queries": dev_queries, "heldout_queries": heldout_queries}
    result = validate_beir_inputs(source["folder"], source["train_split"], source["dev_split"],
                                  [Source.from_record(record) for record in settings["heldout"]],
                                  checked={key: files[key] for key in CHECKED_FILES}, passage_store=store)
    write_json_atomic(report, result)
    write_json_atomic(checked, {"inputs": list(result["files"])})
    return result


def folder_paths(key: str, folder: str, splits: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(key, path, kind) of a BEIR folder: the folder itself, then its corpus and queries under `key`, and each
    (split key, split)'s qrels file under its key."""
    files = [beir_paths(folder, split) for _, split in splits]
    return ([(key, str(folder), FOLDER)] + [(key, str(files[0][name]), FILE) for name in ("corpus", "queries")]
            + [(split_key, str(paths["qrels"]), FILE) for (split_key, _), paths in zip(splits, files)])


class BeirSource(InputSource):
    name = "beir"
    reference_answers = False
    writes_queries = True
    file_keys = (("source", "folder"), ("source", "heldout_queries"))

    def input_paths(self, doubting: dict) -> list[tuple[str, str, str]]:
        source = doubting["source"]
        return (folder_paths("source.folder", source["folder"], [("source.train_split", source["train_split"]),
                                                                  ("source.dev_split", source["dev_split"])])
                + listed_paths("source.heldout_queries", source["heldout_queries"]))

    def raw_inputs(self, doubting: dict) -> list[str]:
        return raw_beir_paths(doubting["source"]["folder"], [source.file for source in source_heldout_files(doubting)])

    def rule_inputs(self, doubting: dict) -> dict:
        return {"raw_inputs": self.raw_inputs(doubting)}


    def heldout_files(self, doubting: dict) -> list[Source]:
        return source_heldout_files(doubting)

    def check_settings(self, doubting: dict) -> dict:
        return {"source": doubting["source"], "inputs": self.raw_inputs(doubting),
                "heldout": [source.record() for source in source_heldout_files(doubting)]}

    def size_path(self, doubting: dict) -> str:
        return f"{doubting['source']['folder']}/corpus.jsonl"

    def train_qrels(self, doubting: dict):
        source = doubting["source"]
        path = qrels_file(source["folder"], source["train_split"])
        return str(path), qrels_relevances(path, 3)

    def other_data(self, ours: dict, theirs: dict, same_file) -> list[str]:
        # a BEIR folder is other data whatever the MS MARCO file keys still say (they are not read then)
        return ["source.folder"] if (theirs.get("source") or {}) != ours["source"] else []

    def card_words(self, doubting: dict, corpus: str) -> CardWords:
        source = doubting["source"]
        dev = beir_paths(source["folder"], source["dev_split"])
        return CardWords(
            origin=(f"the BEIR folder `{source['folder']}`{' (' + corpus + ')' if corpus else ''}: the passages of its "
                    f"corpus.jsonl (with their titles) and the queries of its qrels split `{source['train_split']}` "
                    f"(train) and `{source['dev_split']}` (dev); BEIR gives no reference answers, so the dev split "
                    "was graded with the query and the passage only (query_only)"),
            dev_set=f"the BEIR split `{source['dev_split']}` (the queries of {dev['qrels']} in {dev['queries']})",
            heldout_own="every qrels split of its folder but the train split, and the label audit's queries",
            heldout_listed="source.heldout_queries", join_key="doubting.source.folder",
            collection=str(dev["corpus"]), queries=[str(dev["queries"])])

    def report_splits(self, doubting: dict) -> dict:
        source = doubting["source"]
        return {"folder": source["folder"], "qrels": {"train": source["train_split"], "dev": source["dev_split"]}}


BEIR = BeirSource()
