"""Join the ids of a Doubting MS MARCO config with the original MS MARCO text. Needs only pyarrow.

    python examples/join_text.py --config judgments --split dev \
        --collection collection.tsv --queries queries.dev.small.tsv --out dev_judgments_text.parquet

The TSV files are the official ones (id TAB text, no header, no quoting). The collection is read in
batches and only the passages the config refers to are kept, so memory follows the config, not the
8.8M-passage collection. Every column of the config is kept, `origin` included for judgments: one
pair can carry both an agent grade and an official-positive grade. Adds query_text and
passage_text (positive_text for train_queries); an id missing from the TSV gives a null text.
"""

import argparse
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
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


def text_of(ids, table):
    index = pc.index_in(ids, value_set=table.column("id"))
    return pc.take(table.column("text"), index)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--config", required=True,
                        choices=["qrels", "judgments", "train_queries", "dev_queries", "generated_answers"])
    parser.add_argument("--split", required=True, choices=["train", "dev"])
    parser.add_argument("--queries", required=True, help="queries.train.tsv or queries.dev.small.tsv")
    parser.add_argument("--collection", help="collection.tsv (not needed for dev_queries, generated_answers)")
    parser.add_argument("--out", required=True, help="output parquet file")
    args = parser.parse_args(argv)

    table = pq.read_table(Path(args.package) / args.config / f"{args.split}.parquet")
    query_ids = pc.unique(table.column("query_id"))
    queries = read_tsv(args.queries, query_ids)
    table = table.append_column("query_text", text_of(table.column("query_id"), queries))
    column = PASSAGE_COLUMN.get(args.config)
    if column:
        if not args.collection:
            parser.error(f"--collection is needed for {args.config}")
        ids = pc.drop_null(pc.unique(table.column(column)))
        passages = read_tsv(args.collection, ids)
        name = "positive_text" if column == "positive_id" else "passage_text"
        table = table.append_column(name, text_of(table.column(column), passages))
    pq.write_table(table, args.out)
    print(f"wrote {table.num_rows:,} rows with columns {table.column_names} to {args.out}")


if __name__ == "__main__":
    main()
