"""The files `assemble` writes: the five parquet configs of the release with their schemas, the TREC
qrels of the dev judgments (strict: grade 3; graded: every grade 0-3), the id lists and stats.json
(meanings: the card, spec/doubting-ms-marco).

Readers import the schemas and paths from here (card.py, package.py, report.py, rules/package.smk),
through irdata.doubting.assemble, which re-exports them.
"""

from __future__ import annotations

import pyarrow as pa

STRING, INT8, INT32, FLOAT64, BOOL = pa.string(), pa.int8(), pa.int32(), pa.float64(), pa.bool_()


def _required(name: str, type_: pa.DataType) -> pa.Field:
    return pa.field(name, type_, nullable=False)


def _nullable(name: str, type_: pa.DataType) -> pa.Field:
    return pa.field(name, type_)


SCHEMAS = {
    "qrels": pa.schema([_required("query_id", STRING), _required("passage_id", STRING), _required("grade", INT8)]),
    "judgments": pa.schema([
        _required("query_id", STRING), _required("passage_id", STRING), _required("origin", STRING),
        _required("grade", INT8), _required("grading", STRING), _nullable("agent_rank", INT32),
        _nullable("wood", FLOAT64), _nullable("train_eligible", BOOL), _required("official_positive", BOOL)]),
    "train_queries": pa.schema([
        _required("query_id", STRING), _required("acquisition_batch", STRING), _required("agent_row", BOOL),
        _required("n_agent", INT32), _required("n_eligible", INT32), _required("n_eligible_grade3", INT32),
        _required("n_official", INT32), _nullable("positive_id", STRING), _nullable("positive_source", STRING),
        _nullable("positive_agent_grade", INT8), _nullable("positive_official_grade", INT8),
        _nullable("positive_wood", FLOAT64)]),
    "dev_queries": pa.schema([
        _required("query_id", STRING), _required("acquisition_batch", STRING), _required("strict_subset", BOOL),
        _required("n_agent", INT32), _required("n_official", INT32), _required("n_judged", INT32),
        _required("n_strict", INT32)]),
    "generated_answers": pa.schema([_required("query_id", STRING), _required("answer", STRING)]),
}
# (config, split) pairs of the package, in card order; the first config is the default
CONFIG_SPLITS = [("qrels", "train"), ("qrels", "dev"), ("judgments", "train"), ("judgments", "dev"),
                 ("train_queries", "train"), ("dev_queries", "dev"), ("generated_answers", "train")]
DATA_FILES = {cs: f"{cs[0]}/{cs[1]}.parquet" for cs in CONFIG_SPLITS}
TREC_STRICT = "trec/dev.strict.qrels"
TREC_GRADED = "trec/dev.graded.qrels"
ID_FILES = {"train_collection": "ids/train_collection.txt", "train_excluded": "ids/train_excluded.tsv",
            "dev_all": "ids/dev_all.txt", "dev_strict": "ids/dev_strict.txt"}
STATS = "stats.json"
# dictionary encoding only for the low-cardinality columns: on passage ids it costs time and bytes
PARQUET_OPTIONS = dict(compression="zstd", compression_level=1, write_statistics=True, version="2.6",
                       use_dictionary=["query_id", "origin", "grading", "acquisition_batch", "positive_source"])


def assembled_files() -> list[str]:
    """Every file `assemble` writes, relative to its output folder."""
    return [*DATA_FILES.values(), TREC_STRICT, TREC_GRADED, *ID_FILES.values(), STATS]
