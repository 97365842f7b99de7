"""ir_datasets ids as a build's source (doubting.source.format: ir_datasets): the collection's docs, the train and
dev queries and qrels, read through ir_datasets' own API from its cache (IR_DATASETS_HOME, by default
~/.ir_datasets), as `source: {format: ir_datasets, train_id: msmarco-passage/train/judged, dev_id:
msmarco-passage/dev/small}` or `{train_id: beir/scifact/train, dev_id: beir/scifact/test}`.

The input check never downloads: a file the cache does not hold is refused, naming the id and the cache folder
(cached_only), and a build reads offline what `ir_datasets export` or a first `ir_datasets.load(...)` run on a machine
with a network left in the cache. It writes what every input check writes (the passage store, with the docs' titles
where they have one, the TREC qrels of train and dev, the dev answers: none, ir_datasets gives no reference answers,
so the dev split grades query_only, and the held-out queries with their sources) plus the train and dev queries as
`qid<TAB>text` files. Held out are the dev id's queries, those of every id `source.heldout_ids` lists, of every file
`source.heldout_queries` lists and of the label audit (irdata/heldout.py), each (id, text) once. ir_datasets is
imported only where a build of this source is planned or checked (its import registers every dataset it knows).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import write_json_atomic, write_jsonl_atomic
from ..errors import InputError
from ..heldout import (
    Source,
    audit_queries,
    combine_heldout,
    grouped,
    refuse_train_held_out,
    sources_record,
    write_checked_heldout,
)
from ..passage_store import write_passage_store
from ..path_kinds import FILE
from ..provenance import sha256_file
from ..qrels_files import check_qrels, write_qrels
from ..query_files import line_breaking_row, read_queries, write_queries
from ..tsv import header_lines
from .base import CardWords, InputSource

PREFIX = "ir_datasets:"  # how the inputs record and the held-out sources name an id (it is not a file)
ID_KEYS = ("docs_id", "train_id", "dev_id")


def cache_folder() -> str:
    """ir_datasets' cache folder, as ir_datasets.util.home_path gives it (without importing ir_datasets)."""
    return os.environ.get("IR_DATASETS_HOME", str(Path.home() / ".ir_datasets"))


class NotCached(Exception):
    """A file of a dataset that the cache does not hold: reading it would download it."""


@contextlib.contextmanager
def cached_only():
    """While open, a download ir_datasets would start raises NotCached: a file is read from the cache or not at all.
    Every remote file of ir_datasets is a util.download.Download (its mirrors are the URLs); local files are not."""
    from ir_datasets.util import download

    path, stream = download.Download.path, download.Download.stream

    def refuse(self):
        urls = ", ".join(getattr(m, "url", None) or getattr(m, "uri", None) or repr(m) for m in self.mirrors)
        raise NotCached(f"{self._cache_path or 'a file'} is not in the cache (ir_datasets would download {urls})")

    def cached_path(self, force=True):
        if force and self._path is None and not (self._cache_path and os.path.exists(self._cache_path)):
            refuse(self)
        return path(self, force)

    def cached_stream(self):
        if self._stream:
            refuse(self)
        return stream(self)

    download.Download.path, download.Download.stream = cached_path, cached_stream
    try:
        yield
    finally:
        download.Download.path, download.Download.stream = path, stream


def known(dataset_id: str) -> bool:
    """Whether ir_datasets registers `dataset_id` (by name or by one of its patterns)."""
    import ir_datasets

    return dataset_id in ir_datasets.registry


def load(dataset_id: str):
    """The ir_datasets dataset of `dataset_id` (a KeyError where ir_datasets registers no such id)."""
    import ir_datasets

    return ir_datasets.load(dataset_id)


def _refuse_uncached(key: str, dataset_id: str, error: NotCached):
    return InputError(f"{PREFIX}{dataset_id}", f"not available offline from the ir_datasets cache {cache_folder()} "
                      f"(doubting.source.{key}): {error}. The build never downloads: read the id once where there is "
                      "a network (ir_datasets downloads a dataset's files the first time its docs, queries or qrels "
                      "are read) and copy that cache folder here, or set IR_DATASETS_HOME to a cache that holds it",
                      field=key)


def _read(key: str, dataset_id: str, what: str, columns):
    """The `what` (docs, queries, qrels) of `dataset_id` as a table of `columns` (name -> how a record gives it),
    read from the cache only."""
    dataset = load(dataset_id)
    if not getattr(dataset, f"has_{what}")():
        raise InputError(f"{PREFIX}{dataset_id}", f"the ir_datasets id has no {what} (doubting.source.{key}); name "
                         f"one that has", field=key)
    values = {name: [] for name in columns}
    try:
        with cached_only():
            for record in getattr(dataset, f"{what}_iter")():
                for name, get in columns.items():
                    values[name].append(get(record))
    except NotCached as error:
        raise _refuse_uncached(key, dataset_id, error) from None
    except Exception as error:  # ir_datasets' own parse errors (RuntimeError, ValueError, ...): a line, not a trace
        raise InputError(f"{PREFIX}{dataset_id}", f"ir_datasets could not read its {what} (doubting.source.{key}): "
                         f"{type(error).__name__}: {error}", field=key) from None
    return pa.table({name: pa.array(v, pa.string() if name != "relevance" else pa.int64())
                     for name, v in values.items()})


def _text(record) -> str:
    return record.text if "text" in record._fields else record.default_text()


def read_docs(key: str, dataset_id: str) -> pa.Table:
    """The docs of `dataset_id` as `id`, `text` (and `title` where its docs have one), in ir_datasets' order."""
    columns = {"id": lambda d: d.doc_id, "text": _text}
    if "title" in load(dataset_id).docs_cls()._fields:
        columns["title"] = lambda d: d.title
    return _read(key, dataset_id, "docs", columns)


def read_id_queries(key: str, dataset_id: str) -> pa.Table:
    """The queries of `dataset_id` as `query_id`, `text`, refused (naming the id and query) where an id repeats, or
    a text is blank or holds a tab or a line break, which a `qid<TAB>text` line cannot hold."""
    table = _read(key, dataset_id, "queries", {"query_id": lambda q: q.query_id, "text": _text})
    ids, texts = table.column("query_id"), table.column("text")

    def refuse(row: int, what: str, field: str):
        raise InputError(f"{PREFIX}{dataset_id}", f"query {ids[row].as_py()!r}: {what}", field=field)

    if pc.count_distinct(ids).as_py() < table.num_rows:
        counts = pc.value_counts(ids)
        repeated = counts.field("values")[pc.index(pc.greater(counts.field("counts"), 1), True).as_py()]
        refuse(pc.index(ids, repeated).as_py(), "its id is given twice", "query_id")
    bad = line_breaking_row(texts)
    if bad is not None:
        refuse(bad, "its text holds a tab or a line break, which the query files cannot hold", "text")
    blank = pc.equal(pc.utf8_trim_whitespace(texts), "")
    if pc.any(blank).as_py():
        refuse(pc.index(blank, True).as_py(), "its text is blank", "text")
    return table


def read_id_qrels(key: str, dataset_id: str) -> pa.Table:
    """The qrels of `dataset_id` as query_id, iteration, passage_id, relevance."""
    return _read(key, dataset_id, "qrels", {"query_id": lambda q: q.query_id,
                                            "iteration": lambda q: str(getattr(q, "iteration", "0")),
                                            "passage_id": lambda q: q.doc_id, "relevance": lambda q: q.relevance})


def named_ids(source: dict) -> list[tuple[str, str]]:
    """(key, id) of every ir_datasets id a source names: docs (the train id's when docs_id is null), train, dev and
    each held-out id."""
    return [("docs_id", source["docs_id"] or source["train_id"]), ("train_id", source["train_id"]),
            ("dev_id", source["dev_id"]), *((f"heldout_ids[{i}]", d) for i, d in enumerate(source["heldout_ids"]))]


def heldout_files(doubting: dict) -> list[Source]:
    """The query files held out beside the dev id's and the held-out ids' queries: the files of
    `source.heldout_queries` in their order, the audit's queries."""
    listed = doubting["source"]["heldout_queries"]
    return grouped([*((f"source.heldout_queries[{i}]", p) for i, p in enumerate(listed)), *audit_queries(doubting)])


def validate_ir_datasets_inputs(source: dict, heldout_queries: list[Source], qrels_missing_passages: str = "error",
                                checked: dict | None = None, passage_store=None) -> dict:
    """Read and check the ids `source` names from the ir_datasets cache; return a report of row counts (its
    `inputs`: the ids, named `ir_datasets:<id>`, and every held-out file; its `files`: the held-out files' sha256).

    InputError names the id (or file) and what is wrong: an id not in the cache (nothing is downloaded), a qrels row
    of a query not in its id's queries or of a doc not in the docs (or, with qrels_missing_passages "drop", left
    out and counted), a held-out source holding every train query. `checked` names the files later stages read
    (train_qrels, dev_qrels, dev_answers: none, train_queries, dev_queries, heldout_queries); `passage_store` receives
    the docs. Nothing is written before every input passed."""
    ids = named_ids(source)
    docs_key, docs_id = ids[0]
    docs = read_docs(docs_key, docs_id)
    report = {"format": "ir_datasets", "files": {}, "rows": {"collection": docs.num_rows}, "qrels_dropped": {}}
    split_queries, split_qrels = {}, {}
    for role in ("train", "dev"):
        key, dataset_id = f"{role}_id", source[f"{role}_id"]
        queries = split_queries[role] = read_id_queries(key, dataset_id)
        qrels, dropped = check_qrels(f"{PREFIX}{dataset_id}", read_id_qrels(key, dataset_id), docs.column("id"),
                                     f"{PREFIX}{docs_id}", queries.column("query_id"), f"{PREFIX}{dataset_id}",
                                     qrels_missing_passages)
        split_qrels[role] = qrels
        report["rows"][f"{role}_queries"] = queries.num_rows
        report["rows"][f"{role}_qrels"] = qrels.num_rows
        report["qrels_dropped"][role] = dropped
    report["rows"]["dev_answers"] = 0
    heldout = [(Source("source.dev_id", f"{PREFIX}{source['dev_id']}"), split_queries["dev"])]
    heldout += [(Source(f"source.{key}", f"{PREFIX}{dataset_id}"), read_id_queries(key, dataset_id))
                for key, dataset_id in ids[3:]]
    heldout += [(listed, read_queries(listed.file)) for listed in heldout_queries]
    for held, table in heldout:
        report["rows"][f"heldout:{held.file}"] = table.num_rows
    train_source = Source("source.train_id", f"{PREFIX}{source['train_id']}")
    refuse_train_held_out(train_source, split_queries["train"], heldout)
    heldout_table, counts = combine_heldout(heldout)
    report["rows"].update(counts)
    report["train_source"] = train_source.record()
    report["heldout_sources"] = sources_record(heldout, heldout_table)
    report["inputs"] = raw_inputs(source, heldout_queries)
    for listed in heldout_queries:
        report["files"][listed.file] = {"sha256": sha256_file(listed.file), "bytes": Path(listed.file).stat().st_size}
    report["header_lines"] = {listed.file: 1 for listed in heldout_queries if header_lines(listed.file)}
    # only once every input passed: a refused one leaves none of the files later stages read
    if checked:
        for role in ("train", "dev"):
            write_qrels(split_qrels[role], checked[f"{role}_qrels"])
            write_queries(split_queries[role], checked[f"{role}_queries"])
        write_checked_heldout(heldout_table, checked["heldout_queries"])
        write_jsonl_atomic(checked["dev_answers"], [])
    if passage_store is not None:
        write_passage_store(docs, passage_store)
    return report


def raw_inputs(source: dict, heldout_queries: list[Source]) -> list[str]:
    """The ids a source reads (`ir_datasets:<id>`) and its held-out query files, each once."""
    return list(dict.fromkeys([*(f"{PREFIX}{d}" for _, d in named_ids(source)),
                               *(listed.file for listed in heldout_queries)]))


def run_validate_ir_datasets_inputs(*, heldout_files_in, train_qrels, dev_qrels, dev_answers, train_queries,
                                    dev_queries, heldout_queries, report, checked, store, settings: dict) -> dict:
    """The validate_ir_datasets_inputs rule: check the ids of settings["source"] and the held-out query files
    `heldout_files_in` (by their keys: settings["heldout"]), write the checked files, the passage `store`, the
    `report` and the record `checked` of the inputs."""
    del heldout_files_in  # named by settings["heldout"], with their keys; an input so that a change reruns the check
    result = validate_ir_datasets_inputs(
        settings["source"], [Source.from_record(record) for record in settings["heldout"]],
        settings["qrels_missing_passages"],
        checked={"train_qrels": train_qrels, "dev_qrels": dev_qrels, "dev_answers": dev_answers,
                 "train_queries": train_queries, "dev_queries": dev_queries, "heldout_queries": heldout_queries},
        passage_store=store)
    write_json_atomic(report, result)
    write_json_atomic(checked, {"inputs": result["inputs"]})
    return result


class IrDatasetsSource(InputSource):
    name = "ir_datasets"
    reference_answers = False
    writes_queries = True
    file_keys = (("source", "heldout_queries"),)

    def input_paths(self, doubting: dict) -> list[tuple[str, str, str]]:
        return [(f"source.heldout_queries[{i}]", str(p), FILE)
                for i, p in enumerate(doubting["source"]["heldout_queries"])]

    def unavailable(self, doubting: dict) -> list[str]:
        return [f"source.{key}: {dataset_id!r} is no ir_datasets id (ir_datasets 0.6.3 lists its ids: "
                "https://ir-datasets.com); name one it registers" for key, dataset_id in named_ids(doubting["source"])
                if not known(dataset_id)]

    def raw_inputs(self, doubting: dict) -> list[str]:
        return raw_inputs(doubting["source"], heldout_files(doubting))

    def rule_inputs(self, doubting: dict) -> dict:
        return {"heldout_files_in": [listed.file for listed in heldout_files(doubting)]}

    run_check = staticmethod(run_validate_ir_datasets_inputs)

    def heldout_files(self, doubting: dict) -> list[Source]:
        return heldout_files(doubting)

    def train_heldout_conflicts(self, doubting: dict, folder: Path, where: str) -> list[str]:
        source = doubting["source"]
        return [f"{where}source.{key}: {dataset_id} is also {where}source.train_id: its queries would be held out "
                "and trained on at once; name another id" for key, dataset_id in named_ids(source)[2:]
                if dataset_id == source["train_id"]]

    def check_settings(self, doubting: dict) -> dict:
        return {"source": doubting["source"], "inputs": self.raw_inputs(doubting),
                "qrels_missing_passages": doubting["qrels_missing_passages"],
                "heldout": [source.record() for source in heldout_files(doubting)]}

    def size_path(self, doubting: dict) -> str | None:
        """The docs' file in the cache where their handler names one (TSV docs, as msmarco-passage's), else None."""
        source = doubting["source"]
        try:
            handler = load(source["docs_id"] or source["train_id"]).docs_handler()
            return str(handler.docs_path(force=False)) if hasattr(handler, "docs_path") else None
        except (KeyError, NotImplementedError):  # an unknown id is refused at planning (unavailable)
            return None

    def train_qrels(self, doubting: dict):
        dataset_id = doubting["source"]["train_id"]

        def relevances():
            try:
                with cached_only():
                    for qrel in load(dataset_id).qrels_iter():
                        yield qrel.relevance
            except (KeyError, NotCached):  # the input check names it
                return

        return f"{PREFIX}{dataset_id}", relevances()

    def other_data(self, ours: dict, theirs: dict, same_file) -> list[str]:
        return ["source"] if (theirs.get("source") or {}) != ours["source"] else []

    def card_words(self, doubting: dict, corpus: str) -> CardWords:
        source = doubting["source"]
        docs = source["docs_id"] or source["train_id"]
        heldout = "".join(f", `{d}`" for d in source["heldout_ids"])
        return CardWords(
            origin=(f"the ir_datasets ids `{docs}` (the passages{', ' + corpus if corpus else ''}), "
                    f"`{source['train_id']}` (train queries and qrels) and `{source['dev_id']}` (dev queries and "
                    "qrels), read from the ir_datasets cache; ir_datasets gives no reference answers, so the dev "
                    "split was graded with the query and the passage only (query_only)"),
            dev_set=f"the ir_datasets id `{source['dev_id']}`",
            heldout_own=f"the queries of `{source['dev_id']}`{heldout} and the label audit's",
            heldout_listed="source.heldout_queries", join_key="doubting.source",
            collection=f"{PREFIX}{docs}", queries=[f"{PREFIX}{source['train_id']}", f"{PREFIX}{source['dev_id']}"],
            files=False)


IR_DATASETS = IrDatasetsSource()
