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
    combine_heldout,
    refuse_train_held_out,
    sources_record,
    write_checked_heldout,
)
from ..passage_store import write_passage_store
from ..provenance import sha256_file
from ..qrels_files import check_qrels, write_qrels
from ..query_files import line_breaking_row, read_queries, write_queries
from ..tsv import _check_ids, _first_duplicate, _first_wordless, header_lines
from .base import CardWords, InputSource, listed_paths, source_heldout_files

PREFIX = "ir_datasets:"  # how the inputs record and the held-out sources name an id (it is not a file)


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


def version() -> str:
    import ir_datasets

    return ir_datasets.__version__


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


# records turned into an Arrow batch at a time: the docs never stand as Python lists whole (8.8M of MS MARCO)
BATCH_ROWS = 65_536


class BadRecord(Exception):
    """A record whose value the checked files cannot hold (its message names the record)."""


def _read(key: str, dataset_id: str, what: str, columns: dict, types: dict | None = None) -> pa.Table:
    """The `what` (docs, queries, qrels) of `dataset_id` as a table of `columns` (name -> how a record gives it; a
    string unless `types` says otherwise), read from the cache only, a batch of BATCH_ROWS records at a time; an id
    without any is refused."""
    dataset = load(dataset_id)
    if not getattr(dataset, f"has_{what}")():
        raise InputError(f"{PREFIX}{dataset_id}", f"the ir_datasets id has no {what} (doubting.source.{key}); name "
                         f"one that has", field=key)
    schema = pa.schema([(name, (types or {}).get(name, pa.string())) for name in columns])
    batches, values = [], {name: [] for name in columns}

    def flush():
        batches.append(pa.record_batch([pa.array(values[f.name], f.type) for f in schema], schema=schema))
        for column in values.values():
            column.clear()

    try:
        with cached_only():
            for record in getattr(dataset, f"{what}_iter")():
                for name, get in columns.items():
                    values[name].append(get(record))
                if len(values["id" if "id" in values else "query_id"]) == BATCH_ROWS:
                    flush()
    except NotCached as error:
        raise _refuse_uncached(key, dataset_id, error) from None
    except BadRecord as error:
        raise InputError(f"{PREFIX}{dataset_id}", f"{error} (doubting.source.{key})", field=key) from None
    except Exception as error:  # ir_datasets' own parse errors (RuntimeError, ValueError, ...): a line, not a trace
        raise InputError(f"{PREFIX}{dataset_id}", f"ir_datasets could not read its {what} (doubting.source.{key}): "
                         f"{type(error).__name__}: {error}", field=key) from None
    flush()
    table = pa.Table.from_batches(batches, schema)
    if not table.num_rows:
        raise InputError(f"{PREFIX}{dataset_id}", f"the ir_datasets id's {what} are empty (doubting.source.{key}); "
                         "expected at least one record", field=key)
    return table


def _text(record) -> str:
    text = record.text if "text" in record._fields else record.default_text()
    if text is None:
        raise BadRecord(f"{type(record).__name__} {record[0]!r} has no text")
    return text


def _title(doc) -> str:
    return doc.title or ""  # a doc without a title (None) is a doc whose title is empty, as in a BEIR corpus


def _relevance(qrel) -> int:
    value = qrel.relevance
    if isinstance(value, bool) or not isinstance(value, int) or not -10**9 < value < 10**9:
        raise BadRecord(f"qrel of query {qrel.query_id!r} and doc {qrel.doc_id!r}: relevance {value!r} is not an "
                        "integer of at most 9 digits")
    return value


def _refuse_ids(dataset_id: str, table: pa.Table, id_name: str, what: str) -> None:
    """An id the checked files cannot hold (empty, whitespace, control characters: irdata.tsv.id_problem) or one
    given twice, refused naming it."""
    where = f"{PREFIX}{dataset_id}"
    _check_ids(where, table, id_name, line_of=lambda row: None)
    repeated = _first_duplicate(table.column(id_name))
    if repeated is not None:
        raise InputError(where, f"{what} {table.column(id_name)[repeated].as_py()!r}: its id is given twice",
                         field=id_name)


def read_docs(key: str, dataset_id: str) -> pa.Table:
    """The docs of `dataset_id` as `id`, `text` (and `title` where its docs have a text and a title field: a doc
    without a text field gives its default text, which holds its title already), in ir_datasets' order."""
    columns = {"id": lambda d: d.doc_id, "text": _text}
    fields = load(dataset_id).docs_cls()._fields
    if "title" in fields and "text" in fields:
        columns["title"] = _title
    docs = _read(key, dataset_id, "docs", columns)
    _refuse_ids(dataset_id, docs, "id", "doc")
    return docs


def read_id_queries(key: str, dataset_id: str) -> pa.Table:
    """The queries of `dataset_id` as `query_id`, `text`, refused (naming the id and query) where an id is not one
    or repeats, or a text holds a tab or a line break, which a `qid<TAB>text` line cannot hold, or has no word
    (the dedup's text rule leaves it empty)."""
    table = _read(key, dataset_id, "queries", {"query_id": lambda q: q.query_id, "text": _text})
    _refuse_ids(dataset_id, table, "query_id", "query")
    ids, texts = table.column("query_id"), table.column("text")

    def refuse(row: int, what: str, field: str):
        raise InputError(f"{PREFIX}{dataset_id}", f"query {ids[row].as_py()!r}: {what}", field=field)

    bad = line_breaking_row(texts)
    if bad is not None:
        refuse(bad, "its text holds a tab or a line break, which the query files cannot hold", "text")
    wordless = _first_wordless(texts)
    if wordless is not None:
        refuse(wordless, "its text has no word (empty, or punctuation and whitespace only)", "text")
    return table


def read_id_qrels(key: str, dataset_id: str) -> pa.Table:
    """The qrels of `dataset_id` as query_id, iteration, passage_id, relevance (int32, as irdata.tsv.read_trec_qrels
    reads them back), refused where an id is not one or a (query, doc) pair repeats."""
    qrels = _read(key, dataset_id, "qrels", {"query_id": lambda q: q.query_id,
                                             "iteration": lambda q: str(getattr(q, "iteration", "0")),
                                             "passage_id": lambda q: q.doc_id, "relevance": _relevance},
                  types={"relevance": pa.int32()})
    where = f"{PREFIX}{dataset_id}"
    for name in ("query_id", "iteration", "passage_id"):
        _check_ids(where, qrels, name, line_of=lambda row: None)
    pairs = pc.binary_join_element_wise(qrels.column("query_id"), qrels.column("passage_id"), "\t")
    repeated = _first_duplicate(pairs)
    if repeated is not None:
        raise InputError(where, f"the pair of query {qrels.column('query_id')[repeated].as_py()!r} and doc "
                         f"{qrels.column('passage_id')[repeated].as_py()!r} is given twice", field="passage_id")
    return qrels


def named_ids(source: dict) -> list[tuple[str, str]]:
    """(key, id) of every ir_datasets id a source names: docs (the train id's when docs_id is null), train, dev and
    each held-out id."""
    return [("docs_id", source["docs_id"] or source["train_id"]), ("train_id", source["train_id"]),
            ("dev_id", source["dev_id"]), *((f"heldout_ids[{i}]", d) for i, d in enumerate(source["heldout_ids"]))]


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
        return listed_paths("source.heldout_queries", doubting["source"]["heldout_queries"])

    def unavailable(self, doubting: dict) -> list[str]:
        return [f"source.{key}: {dataset_id!r} is no ir_datasets id (ir_datasets {version()} lists its ids: "
                "https://ir-datasets.com); name one it registers" for key, dataset_id in named_ids(doubting["source"])
                if not known(dataset_id)]

    def raw_inputs(self, doubting: dict) -> list[str]:
        return raw_inputs(doubting["source"], source_heldout_files(doubting))

    def rule_inputs(self, doubting: dict) -> dict:
        return {"heldout_files_in": [listed.file for listed in source_heldout_files(doubting)]}


    def heldout_files(self, doubting: dict) -> list[Source]:
        return source_heldout_files(doubting)

    def train_heldout_conflicts(self, doubting: dict, folder: Path, where: str) -> list[str]:
        source = doubting["source"]
        return [f"{where}source.{key}: {dataset_id} is also {where}source.train_id: its queries would be held out "
                "and trained on at once; name another id" for key, dataset_id in named_ids(source)[2:]
                if dataset_id == source["train_id"]]

    def check_settings(self, doubting: dict) -> dict:
        return {"source": doubting["source"], "inputs": self.raw_inputs(doubting),
                "qrels_missing_passages": doubting["qrels_missing_passages"],
                "heldout": [source.record() for source in source_heldout_files(doubting)]}

    def size_path(self, doubting: dict) -> str | None:
        """The docs' file in the cache where their handler names one (TSV docs, as msmarco-passage's), else None."""
        source = doubting["source"]
        try:
            handler = load(source["docs_id"] or source["train_id"]).docs_handler()
            return str(handler.docs_path(force=False)) if hasattr(handler, "docs_path") else None
        # an unknown id is refused at planning (unavailable); some handlers' docs_path takes no `force` (args.me,
        # touche), and calling it without would download
        except (KeyError, NotImplementedError, TypeError):
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
