"""The acquisition batches' id files (doubting.acquisition_batches), checked against the build's queries by the rule
check_acquisition_batches before any annotation, so that a user's batch never silently becomes "every query in the
default batch".

An id file is the ids of its batch, one a line (irdata.shards.read_id_list: UTF-8 with or without a byte-order
mark, LF or CRLF, no whitespace or control character around or in an id, no repeat). Every id must be a query of
the build: of its train or its dev queries (as the build reads them: MS MARCO's files, a BEIR folder's splits as
its input check wrote them). An id of the other split is left out, so that one file may serve both splits; the
queries of its split that the build does not annotate (outside the sample, excluded by the dedup) keep their
batch in nothing, as they are in no config. Refused, naming the file, the line and what the id matched:
- an id that is no query of the build (the count of such ids and the first; a hint when it is a query id written
  as a spreadsheet's number, `784277.0`, or holding an invisible character, a zero-width space or a byte-order
  mark inside the file): a batch that loses part of its ids silently is a batch assigned wrongly;
- a file with no id, or none of whose ids is a query of its split (a file listed under the wrong split);
- a query listed in two batches of one split.

The record (`{split: {default, batches: [{name, query_ids_file, ids, listed, other_split}]}}`, `ids` the batch's
queries of its split in file order) is what assemble reads.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import write_json_atomic
from ..errors import InputError
from ..shards import read_id_list
from ..tsv import read_id_text_tsv
from .release_files import STRING

SPLITS = ("train", "dev")
# characters an editor shows as nothing: format characters (zero-width space and joiners, a byte-order mark inside a
# file, direction marks, the soft hyphen), private-use and unassigned code points
_INVISIBLE = ("Cf", "Co", "Cn")
_NUMBER = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?")


def _key(split: str, i: int) -> str:
    return f"doubting.acquisition_batches.{split}.batches[{i}].query_ids_file"


def _line_numbers(path) -> list[int]:
    """The line of each id of an id file that read_id_list read (blank lines hold none)."""
    text = Path(path).read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8").replace("\r\n", "\n")
    return [number for number, line in enumerate(text.split("\n"), start=1) if line]


def _hint(value: str, known) -> str:
    """Why an id that is no query may have been meant as one: an invisible character, a number's format."""
    invisible = next(((i, c) for i, c in enumerate(value) if unicodedata.category(c) in _INVISIBLE), None)
    if invisible is not None:
        i, c = invisible
        name = unicodedata.name(c, "an unassigned or private-use character")
        hint = f"; it holds U+{ord(c):04X} {name} (character {i + 1}), which editors do not show"
        visible = "".join(c for c in value if unicodedata.category(c) not in _INVISIBLE)
        return hint + (f": without it, it is the query {visible!r}" if visible in known else "")
    if _NUMBER.fullmatch(value):
        number = float(value)
        if number.is_integer() and str(int(number)) in known and str(int(number)) != value:
            return (f"; the query {str(int(number))!r} written as a number ({value}, a spreadsheet's number format?): "
                    "save the column as text")
    return ""


def check_batches(batches: dict, split_ids: dict[str, pa.Array]) -> dict:
    """The checked record of `batches` (doubting.acquisition_batches) against each split's query ids (see the
    module); an id file that cannot be a batch of its split is an InputError naming its file, line and key."""
    record = {}
    for split in SPLITS:
        other = next(s for s in SPLITS if s != split)
        owner: dict[str, str] = {}
        entries = []
        for i, batch in enumerate(batches[split].get("batches", [])):
            path = batch["query_ids_file"]
            try:
                ids = pa.array(read_id_list(path), STRING)
            except InputError as error:  # a line no id can be (a BOM inside the file): named under the batch's key
                if error.line is None:
                    raise
                raise InputError(error.path, error.problem, line=error.line, field=_key(split, i)) from None
            if not len(ids):
                raise InputError(path, f"lists no query id; a batch needs the ids of its {split} queries, one a line",
                                 field=_key(split, i))
            in_split = pc.is_in(ids, value_set=split_ids[split])
            in_other = pc.is_in(ids, value_set=split_ids[other])
            unknown = pc.invert(pc.or_(in_split, in_other))
            if pc.any(unknown).as_py():
                first = pc.index(unknown, True).as_py()
                value = ids[first].as_py()
                known = set(split_ids[split].to_pylist()) | set(split_ids[other].to_pylist())
                n = pc.sum(unknown).as_py()
                raise InputError(path, f"id {value!r} is no query of the build (neither a {split} nor a {other} query)"
                                 f"{_hint(value, known)}; {n} of its {len(ids)} ids match{'es' if n == 1 else ''} no "
                                 "query: every id must be a query id of the build", line=_line_numbers(path)[first],
                                 field=_key(split, i))
            members = ids.filter(in_split).to_pylist()
            if not members:
                raise InputError(path, f"none of its {len(ids)} ids is a {split} query (all are {other} queries): list "
                                 f"the file under acquisition_batches.{other}", field=_key(split, i))
            for qid in members:
                if qid in owner:
                    line = _line_numbers(path)[ids.to_pylist().index(qid)]
                    raise InputError(path, f"query {qid!r} is also in acquisition batch {owner[qid]!r}; a query "
                                     "belongs to one batch", line=line, field=_key(split, i))
                owner[qid] = batch["name"]
            entries.append({"name": batch["name"], "query_ids_file": path, "ids": members, "listed": len(ids),
                            "other_split": len(ids) - len(members)})
        record[split] = {"default": batches[split]["default"], "batches": entries}
    return record


def unbatched(batches: dict) -> dict:
    """The record of doubting.acquisition_batches that list no batch: each split's default alone."""
    listed = [split for split in SPLITS if batches[split].get("batches")]
    if listed:
        raise ValueError(f"acquisition_batches.{listed[0]} lists batches: assemble needs check_acquisition_batches' "
                         "record of them")
    return {split: {"default": batches[split]["default"], "batches": []} for split in SPLITS}


def run_check_acquisition_batches(*, train_queries, dev_queries, batch_files, checked, settings: dict) -> dict:
    """The check_acquisition_batches rule: the record of the batches of `settings` against the build's train and
    dev queries, written to `checked`. The batches' id files are read by the paths the settings give them;
    `batch_files`, the same paths, are the rule's inputs so that editing one reruns the check."""
    split_ids = {split: read_id_text_tsv(path).column("id").combine_chunks()
                 for split, path in (("train", train_queries), ("dev", dev_queries))}
    record = check_batches(settings["acquisition_batches"], split_ids)
    write_json_atomic(checked, record)
    return record
