"""Join the ids of a Doubting MS MARCO config with the original text. Needs only pyarrow.

    python examples/join_text.py --config judgments --split dev \
        --collection collection.tsv --queries queries.dev.small.tsv --out dev_judgments_text.parquet

The TSV files are the official ones (id TAB text, no header, no quoting). The collection is read in
batches and only the passages the config refers to are kept, so memory follows the config, not the
8.8M-passage collection. Every column of the config is kept, `origin` included for judgments: one
pair can carry both an agent grade and an official-positive grade. Adds query_text and
passage_text (positive_text for train_queries); an id missing from the file gives a null text.
A build from a BEIR folder: give its corpus.jsonl and queries.jsonl (files ending in .jsonl are read as
BEIR's JSON lines); the passage's title is added too, as passage_title (positive_title).
"""

import argparse
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

PASSAGE_COLUMN = {"qrels": "passage_id", "judgments": "passage_id", "train_queries": "positive_id"}


def read_tsv(path, wanted=None, block_size=64 << 20):
    """id/text table of a TSV, keeping only ids in `wanted` (a pyarrow array) when given."""
    reader = pacsv.open_csv(
        path, read_options=pacsv.ReadOptions(column_names=["id", "text"], block_size=block_size),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(column_types={"id": pa.string(), "text": pa.string()}))
    parts = []
    for batch in reader:
        table = pa.Table.from_batches([batch])
        if wanted is not None:
            table = table.filter(pc.is_in(table.column("id"), value_set=wanted))
        parts.append(table)
    return pa.concat_tables(parts) if parts else pa.table({"id": pa.array([], pa.string()),
                                                             "text": pa.array([], pa.string())})


def read_jsonl(path, wanted=None):
    """id/text (and title, when any record has one) of a BEIR JSON-lines file, kept as read_tsv keeps them."""
    fields = [("_id", pa.string()), ("title", pa.string()), ("text", pa.string())]
    table = pajson.read_json(path, parse_options=pajson.ParseOptions(
        explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore"))
    table = table.select(["_id", "title", "text"]).rename_columns(["id", "title", "text"])
    if wanted is not None:
        table = table.filter(pc.is_in(table.column("id"), value_set=wanted))
    return table if pc.any(pc.is_valid(table.column("title"))).as_py() else table.drop_columns(["title"])


def read_texts(path, wanted=None):
    return read_jsonl(path, wanted) if str(path).endswith(".jsonl") else read_tsv(path, wanted)


def text_of(ids, table, column="text"):
    index = pc.index_in(ids, value_set=table.column("id"))
    return pc.take(table.column(column), index)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--config", required=True,
                        choices=["qrels", "judgments", "train_queries", "dev_queries", "generated_answers"])
    parser.add_argument("--split", required=True, choices=["train", "dev"])
    parser.add_argument("--queries", required=True, help="queries.train.tsv, queries.dev.small.tsv or queries.jsonl")
    parser.add_argument("--collection", help="collection.tsv or corpus.jsonl (not needed for dev_queries, "
                        "generated_answers)")
    parser.add_argument("--out", required=True, help="output parquet file")
    args = parser.parse_args(argv)

    table = pq.read_table(Path(args.package) / args.config / f"{args.split}.parquet")
    query_ids = pc.unique(table.column("query_id"))
    queries = read_texts(args.queries, query_ids)
    table = table.append_column("query_text", text_of(table.column("query_id"), queries))
    column = PASSAGE_COLUMN.get(args.config)
    if column:
        if not args.collection:
            parser.error(f"--collection is needed for {args.config}")
        ids = pc.drop_null(pc.unique(table.column(column)))
        passages = read_texts(args.collection, ids)
        prefix = "positive" if column == "positive_id" else "passage"
        table = table.append_column(f"{prefix}_text", text_of(table.column(column), passages))
        if "title" in passages.column_names:
            table = table.append_column(f"{prefix}_title", text_of(table.column(column), passages, "title"))
    pq.write_table(table, args.out)
    print(f"wrote {table.num_rows:,} rows with columns {table.column_names} to {args.out}")


if __name__ == "__main__":
    main()
