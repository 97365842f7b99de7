"""The blinded human audit: do the release's strict positives answer their queries more often than the
official positives do?

Sheet (rule human_audit_sheet): a seeded draw of `sample_queries` queries of the release's `split` that
have an official positive; for each, one of its official positives and, when the release has one, one
release positive: on dev one of its strict positives (grade 3, trec/dev.strict.qrels), on train its
selected positive (train_queries.positive_id), each drawn by a hash of (seed, query, passage). The
release's positive keeps the origin name `strict` on both splits. The
items are shuffled by a hash of (seed, item) and written without their origin: a CSV for people and
the same items as a Label Studio import. An item is its (query_id, passage_id), so a filled sheet stays
valid across rebuilds; a pair drawn for both origins is one item counted for both. The key from item
to origin stays in work/ (key.json). An item id joins the query and passage id with "-", each id with "%" and
"-" escaped (item_id), so no two pairs share one whatever their ids hold.

Results (rule human_audit_results): the filled sheets of `sheets`, one per annotator, read as spreadsheets save
them (UTF-8 with or without a byte order mark, Windows-1252, UTF-16; fields between , or ; or tabs); one sheet
listed twice (the same file, or a byte-for-byte copy of a filled one: read_sheets) is refused, two annotators
whose answers agree are not. A sheet is refused, naming file, line and field, for a changed header, an item id
that names no dev query or no passage of the collection, a duplicated item, a query or passage text other than
the one the release holds, an answer outside ALLOWED, or an empty answer beside a changed question or allowed
cell (an answer typed in the wrong column). An item's label is its annotators' majority (a tie is not "fully answers").
Per origin: items, judged, not yet judged, the share judged "yes" (fully answers) with its 95% Wilson
interval; the strict minus official difference with Newcombe's hybrid-score 95% interval (method 10);
with 2 annotators Cohen's kappa, with more Fleiss' kappa, over the items every annotator judged. Items of
a sheet outside the current sample are counted and left out; sample items no sheet judged are listed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
from pathlib import Path

from ..annotate.passages import TextStore
from ..atomic import write_json_atomic, write_text_atomic
from ..errors import InputError
from ..json_files import read_json
from ..passage_store import PassageStore
from ..path_kinds import FILE, path_problem
from ..shards import read_id_list
from ..tsv import read_trec_qrels
from .release_files import DATA_FILES, ID_FILES, TREC_STRICT

QUESTION = "Does the passage fully answer the query?"
ALLOWED = ("yes", "partly", "no")
ALLOWED_CELL = "|".join(ALLOWED)  # what the sheet writes in the `allowed` column of every row
COLUMNS = ("item_id", "query", "passage", "question", "answer", "allowed")
ORIGINS = ("strict", "official")
Z95 = 1.959963984540054


def _hash(*parts) -> str:
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()


# an item id joins the query and the passage id with "-"; in each, "%" and "-" are written as %25 and %2D, so
# that exactly one "-" separates them whatever the ids hold (ids without either read as they are)
_ESCAPES = {"%": "%25", "-": "%2D"}


def _escape(value: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in value)


def _unescape(value: str) -> str:
    return value.replace("%2D", "-").replace("%25", "%")


def item_id(query_id: str, passage_id: str) -> str:
    return f"{_escape(query_id)}-{_escape(passage_id)}"


def parse_item_id(item: str) -> tuple[str, str] | None:
    """The (query_id, passage_id) of an item id as item_id writes it, or None for a string it does not write."""
    parts = item.split("-")
    if len(parts) != 2:
        return None
    pair = (_unescape(parts[0]), _unescape(parts[1]))
    return pair if item_id(*pair) == item else None


def sheet_inputs(split: str, assembled: str, checked_qrels: dict, queries: dict) -> dict[str, str]:
    """The human_audit_sheet rule's inputs for `split`: the queries to draw from (`ids`: an id list on dev, the
    train_queries parquet on train), the release's positives (`release`), the official qrels and query texts."""
    if split == "dev":
        return {"ids": f"{assembled}/{ID_FILES['dev_all']}", "release": f"{assembled}/{TREC_STRICT}",
                "official": checked_qrels["dev_qrels"], "queries": queries["dev"]}
    parquet = f"{assembled}/{DATA_FILES[('train_queries', 'train')]}"
    return {"ids": parquet, "release": parquet, "official": checked_qrels["train_qrels"], "queries": queries["train"]}


def selected_positives(train_queries) -> tuple[list[str], dict[str, list[str]]]:
    """The train queries of the release (train_queries parquet) and each one's selected positive, if any."""
    import pyarrow.parquet as pq

    table = pq.read_table(train_queries, columns=["query_id", "positive_id"])
    ids, positives = table.column("query_id").to_pylist(), table.column("positive_id").to_pylist()
    return ids, {q: [p] for q, p in zip(ids, positives) if p is not None}


def draw_sample(queries: list[str], official: dict[str, list[str]], strict: dict[str, list[str]], n: int,
                seed: int) -> dict:
    """{item_id: {query_id, passage_id, origins}} of `n` drawn queries (those of `queries` with an official
    positive), in the sheet's shuffled order."""
    eligible = sorted((q for q in set(queries) if official.get(q)), key=lambda q: _hash(seed, q))[:n]
    items: dict[str, dict] = {}
    for q in eligible:
        for origin, positives in (("strict", strict.get(q, [])), ("official", official[q])):
            if not positives:
                continue
            p = min(positives, key=lambda p: _hash(seed, q, p))
            item = items.setdefault(item_id(q, p), {"query_id": q, "passage_id": p, "origins": []})
            item["origins"].append(origin)
    order = sorted(items, key=lambda i: _hash(seed, "order", i))
    return {"queries": eligible, "items": {i: items[i] for i in order}}


def sheet_csv(items: dict, query_text, passage_text) -> str:
    """The annotation sheet: no origin, an empty answer column, the allowed answers on every row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for i, item in items.items():
        writer.writerow([i, query_text(item["query_id"]), passage_text(item["passage_id"]), QUESTION, "",
                         ALLOWED_CELL])
    return out.getvalue()


def label_studio_tasks(items: dict, query_text, passage_text) -> list[dict]:
    """The same items as a Label Studio import (a list of tasks; `item_id` keys the answers)."""
    return [{"data": {"item_id": i, "query": query_text(item["query_id"]), "passage": passage_text(item["passage_id"]),
                      "question": QUESTION, "allowed": list(ALLOWED)}} for i, item in items.items()]


def write_sheet(sample: dict, query_text, passage_text, out_csv, out_json, out_key) -> None:
    items = sample["items"]
    write_text_atomic(out_csv, sheet_csv(items, query_text, passage_text))
    write_json_atomic(out_json, label_studio_tasks(items, query_text, passage_text))
    write_json_atomic(out_key, sample)


# how spreadsheets save a sheet: UTF-8 (with a byte order mark: Excel's "CSV UTF-8"), Windows-1252 (Excel's "CSV
# (Comma delimited)" on a Western Windows), UTF-16 (Excel's "Unicode Text"); fields between , or ; (a European
# locale) or tabs
SEPARATORS = (",", ";", "\t")
_SAVE_AS = "save it from the spreadsheet as \"CSV UTF-8 (Comma delimited)\""


def _sheet_text(path) -> tuple[str, str]:
    """(the sheet's text, the encoding it was read in). A sheet that is neither is refused naming the line where
    its expected encoding (UTF-16 after its byte order mark, else UTF-8) fails."""
    problem = path_problem(path, FILE)  # a folder, a pipe (whose read would hang), a link to nothing
    if problem:
        raise InputError(path, problem, field="doubting.audit.human.sheets")
    data = Path(path).read_bytes()
    utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
    # a byte order mark says which; without one, UTF-8, or else Excel's Windows-1252
    if utf16:
        encodings = ("utf-16",)
    elif data.startswith(b"\xef\xbb\xbf"):
        data, encodings = data[3:], ("utf-8",)
    else:
        encodings = ("utf-8", "cp1252")
    nul = -1 if utf16 else data.find(b"\0")
    if nul >= 0:  # before the encoding is guessed: a NUL inside a character would send the text to Windows-1252
        line_start = data.rfind(b"\n", 0, nul) + 1
        raise InputError(path, f"a NUL byte (byte {nul - line_start + 1} of the line), which no spreadsheet writes in "
                         f"a CSV; {_SAVE_AS}", line=data.count(b"\n", 0, nul) + 1)
    first = None
    for encoding in encodings:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError as exc:
            first = first or exc
    before = data[:first.start].decode(first.encoding, "replace")
    what = {1: "not UTF-16" if utf16 else "not UTF-8", 2: "neither UTF-8 nor Windows-1252"}[len(encodings)]
    raise InputError(path, f"{what} text (character {len(before) - before.rfind(chr(10))} of the line); {_SAVE_AS}",
                     line=before.count("\n") + 1)


def _csv_rows(path, text: str, separator: str):
    """(first line, fields) of each row of the sheet's text; a row CSV cannot read is an InputError."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    end = 0
    try:
        for row in reader:
            start, end = end + 1, reader.line_num
            yield start, row
    except csv.Error as exc:
        raise InputError(path, f"cannot be read as CSV ({exc}); save the sheet again from the spreadsheet",
                         line=reader.line_num or 1) from None


def _sheet_rows(path, text: str):
    """(line, fields) of each row after the header, in the separator that reads the header as COLUMNS; rows of
    empty cells are no rows."""
    for separator in SEPARATORS:
        rows = _csv_rows(path, text, separator)
        line, header = next(((line, row) for line, row in rows if any(field.strip() for field in row)), (1, []))
        if tuple(header) == COLUMNS:
            break
    else:
        found = ",".join(header)[:80]
        raise InputError(path, f"the header must be {','.join(COLUMNS)} (the sheet as written; fields between , or ; "
                         f"or tabs); found {found!r}", line=line, field="header")
    for line, row in rows:
        if any(field.strip() for field in row):
            yield line, row


def _refuse_answer_elsewhere(path, line: int, record: dict[str, str]) -> None:
    """An unanswered row whose question or allowed cell holds something other than the sheet wrote: an answer
    typed in the wrong column, which would count as not judged, is refused naming its column."""
    for field, written in (("allowed", ALLOWED_CELL), ("question", QUESTION)):
        cell = record[field].strip()
        if cell and cell != written:
            said = f"the answer {cell!r}" if cell.lower() in ALLOWED else repr(cell[:40])
            raise InputError(path, f"the answer cell is empty and the {field} column holds {said} (the sheet wrote "
                             f"{written!r} there): an answer typed in another column would count as not judged; type "
                             f"it in the answer column and leave the {field} column as written", line=line, field=field)


def read_sheet(path, query_text, passage_text) -> dict[str, str]:
    """{item_id: answer} of one filled sheet ("" when not answered); a bad row is an InputError. The sheet is read
    as spreadsheets save it (_sheet_text, SEPARATORS); empty trailing cells are ignored."""
    text, encoding = _sheet_text(path)
    answers: dict[str, str] = {}
    for line, row in _sheet_rows(path, text):
        while len(row) > len(COLUMNS) and not row[-1].strip():
            row = row[:-1]
        if len(row) != len(COLUMNS):
            raise InputError(path, f"expected {len(COLUMNS)} fields, got {len(row)}", line=line)
        record = dict(zip(COLUMNS, row))
        pair = parse_item_id(record["item_id"])
        query, passage = (query_text(pair[0]), passage_text(pair[1])) if pair else (None, None)
        if query is None or passage is None:
            raise InputError(path, f"unknown item {record['item_id']!r}: no such query and passage",
                             line=line, field="item_id")
        if record["item_id"] in answers:
            raise InputError(path, f"item {record['item_id']!r} appears twice", line=line, field="item_id")
        for field, value in (("query", query), ("passage", passage)):
            if record[field] != value:
                hint = "" if encoding != "cp1252" else (
                    "; the sheet is not UTF-8 and was read as Windows-1252, which lacks characters the release's "
                    f"text holds: {_SAVE_AS}")
                raise InputError(path, f"the {field} text was changed (it must be the release's text){hint}",
                                 line=line, field=field)
        answer = record["answer"].strip().lower()
        if not answer:
            _refuse_answer_elsewhere(path, line, record)
        elif answer not in ALLOWED:
            raise InputError(path, f"answer {record['answer']!r} is not one of {', '.join(ALLOWED)}",
                             line=line, field="answer")
        answers[record["item_id"]] = answer
    return answers


def _copy_of(path, data: bytes | None, read: list[tuple[Path, bytes | None]]) -> str | None:
    """How the sheet at `path` is one of those `read` (path, bytes of a filled one): the same file (one path twice,
    a symbolic or hard link to it) or, filled (`data` its bytes), a byte-for-byte copy of a filled one; or None."""
    for other, other_data in read:
        if os.path.samefile(path, other):
            return f"the same file as {other}"
        if data is not None and data == other_data:
            return f"a byte-for-byte copy of {other}"
    return None


def read_sheets(paths, query_text, passage_text) -> dict[str, dict[str, str]]:
    """{file name: its answers} of the filled sheets, one per annotator. One sheet listed twice would count one
    annotator twice, so a sheet that is the same file as another (by path or link: os.path.samefile) or, once
    anything is answered, the same bytes (a copy) is refused. Equal answers alone are not the same sheet: two
    annotators may agree on every item, and their sheets differ in a byte as soon as one typed "Yes" where the
    other typed "yes" or saved it otherwise. Two sheets of one file name are refused too (results name the
    sheets by file name)."""
    sheets: dict[str, dict[str, str]] = {}
    read: list[tuple[Path, bytes | None]] = []
    for path in paths:
        name = Path(path).name
        answers = read_sheet(path, query_text, passage_text)
        data = Path(path).read_bytes() if any(answers.values()) else None
        copy = _copy_of(path, data, read)
        if copy:
            raise InputError(path, f"{copy}: one annotator's sheet listed twice would count as two; list each "
                             "annotator's sheet once", field="doubting.audit.human.sheets")
        if name in sheets:
            raise InputError(path, f"two sheets are named {name!r}; name each annotator's sheet apart",
                             field="doubting.audit.human.sheets")
        sheets[name] = answers
        read.append((Path(path), data))
    return sheets


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of k successes in n."""
    if n == 0:
        return None
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float] | None:
    """p1 - p2 and its 95% interval by Newcombe's hybrid score method (his method 10)."""
    if n1 == 0 or n2 == 0:
        return None
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson(k1, n1), wilson(k2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    """Unweighted Cohen's kappa of two annotators' answers to the same items."""
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    expected = sum((a.count(c) / n) * (b.count(c) / n) for c in ALLOWED)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def fleiss_kappa(ratings: list[list[str]]) -> float | None:
    """Fleiss' kappa of items each answered by the same number (>= 2) of annotators."""
    if not ratings:
        return None
    m = len(ratings[0])
    counts = [[r.count(c) for c in ALLOWED] for r in ratings]
    agreement = sum((sum(x * x for x in row) - m) / (m * (m - 1)) for row in counts) / len(counts)
    shares = [sum(row[j] for row in counts) / (len(counts) * m) for j in range(len(ALLOWED))]
    expected = sum(s * s for s in shares)
    return None if expected == 1 else (agreement - expected) / (1 - expected)


def agreement(sheets: list[dict[str, str]], items) -> dict | None:
    """Annotator agreement over the sample items every sheet answered (None with one sheet)."""
    if len(sheets) < 2:
        return None
    shared = [i for i in items if all(s.get(i) for s in sheets)]
    if len(sheets) == 2:
        value = cohen_kappa([sheets[0][i] for i in shared], [sheets[1][i] for i in shared])
        method = "cohen"
    else:
        value = fleiss_kappa([[s[i] for s in sheets] for i in shared])
        method = "fleiss"
    return {"method": method, "annotators": len(sheets), "items": len(shared), "kappa": value}


def majority_yes(answers: list[str]) -> bool:
    """The item's label: more than half of its annotators said it fully answers."""
    return sum(a == "yes" for a in answers) * 2 > len(answers)


def human_results(sample: dict, sheets: dict[str, dict[str, str]]) -> dict:
    """The results of the filled sheets (by file name) over the sample (key.json)."""
    items = sample["items"]
    per_item = {i: [s[i] for s in sheets.values() if s.get(i)] for i in items}
    origins = {}
    for origin in ORIGINS:
        ids = [i for i, item in items.items() if origin in item["origins"]]
        judged = [i for i in ids if per_item[i]]
        yes = sum(majority_yes(per_item[i]) for i in judged)
        interval = wilson(yes, len(judged))
        origins[origin] = {"items": len(ids), "judged": len(judged), "not_judged": len(ids) - len(judged),
                           "fully_answers": yes, "share": yes / len(judged) if judged else None,
                           "ci95": list(interval) if interval else None}
    s, o = origins["strict"], origins["official"]
    diff = newcombe(s["fully_answers"], s["judged"], o["fully_answers"], o["judged"])
    outside = sorted({i for sheet in sheets.values() for i, a in sheet.items() if a and i not in items})
    return {"split": sample.get("split", "dev"), "sample_queries": len(sample["queries"]), "items": len(items),
            "queries_with_strict": len({items[i]["query_id"] for i in items if "strict" in items[i]["origins"]}),
            "question": QUESTION, "allowed": list(ALLOWED), "sheets": sorted(sheets),
            "origins": origins,
            "difference": None if diff is None else {"strict_minus_official": diff[0], "ci95": [diff[1], diff[2]]},
            "agreement": agreement(list(sheets.values()), list(items)),
            "missing_items": [i for i in items if not per_item[i]], "judged_outside_sample": len(outside)}


def qrels_positives(path) -> dict[str, list[str]]:
    """{query_id: [passage_id, ...]} of the pairs of a TREC qrels file with a grade >= 1; an empty file
    (strict qrels of a release without a grade 3) has none."""
    if Path(path).stat().st_size == 0:
        return {}
    table = read_trec_qrels(path)
    out: dict[str, list[str]] = {}
    for q, p, g in zip(*(table.column(c).to_pylist() for c in ("query_id", "passage_id", "relevance"))):
        if g >= 1:
            out.setdefault(q, []).append(p)
    return out


def run_human_audit_sheet(*, ids, release, official, queries, collection, sheet, label_studio, key,
                          settings: dict) -> dict:
    """The human_audit_sheet rule: the blinded sheet (`sheet`, and as Label Studio tasks `label_studio`) of a
    sample of the queries of `ids` (sheet_inputs), and its `key`; return the sample."""
    s = settings
    texts, passages = TextStore.queries(queries), PassageStore(collection)
    drawn, positives = (read_id_list(ids), qrels_positives(release)) if s["split"] == "dev" \
        else selected_positives(release)
    sample = draw_sample(drawn, qrels_positives(official), positives, s["sample_queries"], s["seed"])
    write_sheet({"split": s["split"], **sample}, texts.get, passages.get, sheet, label_studio, key)
    return sample


def run_human_audit_results(*, key, sheets, queries, collection, results, settings: dict) -> dict:
    """The human_audit_results rule: the filled `sheets` read back against the `key`, written to `results`."""
    texts, passages = TextStore.queries(queries), PassageStore(collection)
    result = human_results(read_json(key), read_sheets(list(sheets), texts.get, passages.get))
    write_json_atomic(results, result)
    return result
