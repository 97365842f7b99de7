"""Readers for the 44b inputs, and converters from other formats to them.

The core works on one shape of records:

- paper: {"scheme", "id", "url", "title", "abstract", "s2_id"} (s2_id may be null)
- review: {"note_id", "note_url", "kind", "paper": "<scheme>:<id>", "summary"}

`format: 44b` reads files already in that shape (the demo's papers44b.jsonl / reviews44b.jsonl).
`format: openreview-iclr` converts the ICLR dump in shared/data/openreview-iclr/ (papers
`{paper_id, title, abstract, url, ...}`, reviews `{note_id, note_id_is_synthetic, paper_id, kind,
summary_first_paragraph, ...}`): scheme "openreview", id = forum id, url the forum page, no
Semantic Scholar id; a review's summary is its `summary_first_paragraph`.

An id (scheme, id, note_id, paper) holding whitespace or a control character, or a text holding a NUL,
is an InputError (irdata.tsv.id_problem, text_problem): the collection TSV and the id lists hold them.
"""

from __future__ import annotations

from ..errors import InputError
from ..json_files import iter_jsonl
from ..tsv import id_problem, read_id_text_tsv, text_problem

FORMATS = ("44b", "openreview-iclr")
KINDS = ("official_review", "meta_review")
OPENREVIEW_FORUM = "https://openreview.net/forum?id={id}"


def _text(record, field, path, line, required=True, is_id=False):
    value = record.get(field)
    if value is None and not required:
        return None
    if value is None or not isinstance(value, str):
        raise InputError(path, f"expected a string, got {value!r}", line=line, field=field)
    problem = id_problem(value, field) if is_id else text_problem(value, field)
    if problem:
        raise InputError(path, problem, line=line, field=field)
    return value


def _paper_44b(record, path, line):
    paper = {field: _text(record, field, path, line, is_id=field in ("scheme", "id"))
             for field in ("scheme", "id", "url", "title")}
    paper["abstract"] = _text(record, "abstract", path, line, required=False) or ""
    s2 = record.get("s2_id")
    paper["s2_id"] = None if s2 in (None, "") else str(s2)
    return paper


def _paper_openreview(record, path, line):
    forum = _text(record, "paper_id", path, line, is_id=True)
    return {
        "scheme": "openreview",
        "id": forum,
        "url": record.get("url") or OPENREVIEW_FORUM.format(id=forum),
        "title": _text(record, "title", path, line),
        "abstract": _text(record, "abstract", path, line, required=False) or "",
        "s2_id": None,
    }


def _review_44b(record, path, line):
    review = {field: _text(record, field, path, line, is_id=field in ("note_id", "paper"))
              for field in ("note_id", "note_url", "kind", "paper")}
    review["summary"] = _text(record, "summary", path, line, required=False) or ""
    return review


def _review_openreview(record, path, line):
    note = _text(record, "note_id", path, line, is_id=True)
    forum = _text(record, "paper_id", path, line, is_id=True)
    url = OPENREVIEW_FORUM.format(id=forum)
    if not record.get("note_id_is_synthetic"):
        url += f"&noteId={note}"  # a synthetic note id (ICLR 2017) has no page of its own
    return {
        "note_id": note,
        "note_url": url,
        "kind": _text(record, "kind", path, line),
        "paper": f"openreview:{forum}",
        "summary": _text(record, "summary_first_paragraph", path, line, required=False) or "",
    }


_PAPERS = {"44b": _paper_44b, "openreview-iclr": _paper_openreview}
_REVIEWS = {"44b": _review_44b, "openreview-iclr": _review_openreview}


def _check_format(fmt):
    if fmt not in FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of {FORMATS}")


def load_papers(path, fmt: str = "44b") -> list[dict]:
    """Papers in file order; a repeated `<scheme>:<id>` or a field of the wrong type is an InputError."""
    _check_format(fmt)
    papers, seen = [], {}
    for line, record in iter_jsonl(path):
        paper = _PAPERS[fmt](record, path, line)
        if ":" in paper["scheme"]:
            raise InputError(path, "the scheme must be free of ':'", line=line, field="scheme")
        key = f"{paper['scheme']}:{paper['id']}"
        if key in seen:
            raise InputError(path, f"paper {key} repeats the one on line {seen[key]}", line=line, field="id")
        seen[key] = line
        papers.append(paper)
    if not papers:
        raise InputError(path, "no papers; expected at least one record")
    return papers


def load_reviews(path, fmt: str = "44b") -> list[dict]:
    """Reviews in file order; a repeated note_id or an unknown kind is an InputError."""
    _check_format(fmt)
    reviews, seen = [], {}
    for line, record in iter_jsonl(path):
        review = _REVIEWS[fmt](record, path, line)
        if review["kind"] not in KINDS:
            raise InputError(path, f"kind {review['kind']!r} is not one of {KINDS}", line=line, field="kind")
        if review["note_id"] in seen:
            raise InputError(
                path, f"note_id repeats the one on line {seen[review['note_id']]}", line=line, field="note_id"
            )
        seen[review["note_id"]] = line
        reviews.append(review)
    return reviews


def paper_key(paper) -> str:
    """The paper's key everywhere in the build: `<scheme>:<id>`."""
    return f"{paper['scheme']}:{paper['id']}"


def paper_text(paper) -> str:
    """Title + ". " + abstract on one line (tabs and newlines become spaces), as the collection holds it."""
    title = paper["title"].strip().rstrip(".")
    text = f"{title}. {paper['abstract'].strip()}".strip()
    return " ".join(text.split())


def read_texts_by_id(path) -> dict:
    """An id<TAB>text file as a dict id -> text (the 44b collection, papers.tsv)."""
    table = read_id_text_tsv(path, wordless=True)  # a paper without title and abstract is a text of "." there
    return dict(zip(table.column("id").to_pylist(), table.column("text").to_pylist()))
