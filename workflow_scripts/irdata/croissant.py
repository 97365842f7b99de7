"""croissant.json: MLCommons Croissant 1.0 metadata of a release folder, as plain JSON-LD dicts.

A release lists its files (FileObjects with sha256 and encodingFormat) and describes the rows of its
parquet and JSON Lines files (RecordSets whose Fields read their columns and keys). Text and TSV files
(id lists, TREC qrels) are listed without a record set: mlcroissant reads them with pandas' type
inference, which turns an id "007" into 7, and TREC qrels have no header. The JSON is written by the
workflow itself, so building a release needs no mlcroissant; the tests validate it with mlcroissant.
Bytes are deterministic (atomic.json_text: sorted keys; lists in the order given).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pyarrow as pa

from .errors import InputError
from .provenance import sha256_file

CROISSANT = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
# the standard @context of Croissant 1.0 (that of the spec's example datasets): with another one,
# mlcroissant warns that the context is not standard
CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
# encodingFormat by suffix, for the releases' files (TREC qrels: space-separated text without a header)
ENCODING_FORMATS = {".parquet": "application/x-parquet", ".jsonl": "application/jsonlines", ".json": "application/json",
                    ".tsv": "text/tab-separated-values", ".txt": "text/plain", ".qrels": "text/plain",
                    ".trec": "text/plain",
                    ".md": "text/markdown", ".py": "text/x-python"}
TEXT, INTEGER, FLOAT, BOOLEAN, URL = "sc:Text", "sc:Integer", "sc:Float", "sc:Boolean", "sc:URL"


class Column(NamedTuple):
    """A column of a record set: a leaf with its Croissant dataType, or a JSON object with `sub` columns,
    leaves (`repeated`: a list of such objects)."""
    name: str
    data_type: str | None = None
    description: str | None = None
    sub: tuple[Column, ...] = ()
    repeated: bool = False


class RecordSet(NamedTuple):
    """The rows of one parquet or JSON Lines file of the release."""
    id: str
    file: str
    columns: tuple[Column, ...]
    description: str | None = None


def data_type(type_: pa.DataType) -> str:
    """The Croissant dataType of a pyarrow type."""
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return TEXT
    if pa.types.is_integer(type_):
        return INTEGER
    if pa.types.is_floating(type_):
        return FLOAT
    if pa.types.is_boolean(type_):
        return BOOLEAN
    raise ValueError(f"no Croissant dataType for the pyarrow type {type_}")


def schema_columns(schema: pa.Schema, descriptions: dict[str, str] | None = None) -> tuple[Column, ...]:
    descriptions = descriptions or {}
    return tuple(Column(f.name, data_type(f.type), descriptions.get(f.name)) for f in schema)


def file_object(folder: Path, rel: str, description: str | None = None) -> dict:
    path = folder / rel
    if not path.is_file():
        raise InputError(path, "release file missing: cannot describe it in croissant.json")
    suffix = Path(rel).suffix
    if suffix not in ENCODING_FORMATS:
        raise ValueError(f"{rel}: no encodingFormat for the suffix {suffix!r}")
    out = {"@type": "cr:FileObject", "@id": rel, "name": rel, "contentUrl": rel,
           "encodingFormat": ENCODING_FORMATS[suffix], "sha256": sha256_file(path)}
    if description:
        out["description"] = description
    return out


def _field(parent_id: str, column: Column, source: dict) -> dict:
    """A Field reading `column`; a sub-field of a JSON object takes its key from the parent's value
    (mlcroissant reads a JSON Lines file into columns, one per top-level key)."""
    field_id = f"{parent_id}/{column.name}"
    out = {"@type": "cr:Field", "@id": field_id, "name": column.name}
    if column.description:
        out["description"] = column.description
    if column.repeated:
        out["repeated"] = True
    if column.sub:
        if any(sub.sub for sub in column.sub):
            raise ValueError(f"{field_id}: objects nest one level deep (a sub-field's source is its parent's)")
        out["subField"] = [_field(field_id, sub, {**source, "transform": {"jsonPath": sub.name}})
                           for sub in column.sub]
    else:
        out["dataType"] = column.data_type
        out["source"] = source
    return out


def record_set(spec: RecordSet) -> dict:
    out = {"@type": "cr:RecordSet", "@id": spec.id, "name": spec.id}
    if spec.description:
        out["description"] = spec.description
    out["field"] = [_field(spec.id, c, {"fileObject": {"@id": spec.file}, "extract": {"column": c.name}})
                    for c in spec.columns]
    return out


def hub_url(repo_id: str, on_hub: bool) -> str | None:
    """The Hugging Face page of a release published there as `repo_id`; None for a build that is on no Hub (its
    repo_id, e.g. local/<build>, names no repository that exists)."""
    return f"https://huggingface.co/datasets/{repo_id}" if on_hub else None


def croissant_metadata(folder, name: str, description: str, license_: str, url: str | None, version: str | None,
                       citation: str | None, files: dict[str, str | None], record_sets: list[RecordSet]) -> dict:
    """The metadata of the release at `folder`: `files` {path relative to it: description or None}, in
    the order to list them; every record set reads one of them. `url`, `version`, `citation`: None leaves
    them out."""
    folder = Path(folder)
    unknown = sorted({rs.file for rs in record_sets} - set(files))
    if unknown:
        raise ValueError(f"record sets read files not listed in croissant.json: {unknown}")
    out = {"@context": CONTEXT, "@type": "sc:Dataset", "conformsTo": CONFORMS_TO, "name": name,
           "description": description, "license": license_,
           "distribution": [file_object(folder, rel, desc) for rel, desc in files.items()],
           "recordSet": [record_set(rs) for rs in record_sets]}
    if url:
        out["url"] = url
    if version:
        out["version"] = version
    if citation:
        out["citeAs"] = citation
    return out
