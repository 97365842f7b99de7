"""Query files: `qid<TAB>text` lines, as MS MARCO's queries.*.tsv and the query files every input check writes
(irdata/sources/), which the dedup, the shards and the LLM stages read whatever the build's source."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open
from .tsv import read_id_text_tsv


def read_queries(path) -> pa.Table:
    """A query file, plain or compressed, as the columns query_id and text (irdata.tsv.read_id_text_tsv's rules)."""
    return read_id_text_tsv(path, "query_id", "text")


def line_breaking_row(texts) -> int | None:
    """The first text that holds a tab or a line break, which a `qid<TAB>text` line cannot hold (the readers would
    read another query), or None."""
    bad = pc.match_substring_regex(texts, r"[\t\r\n]")
    return pc.index(bad, True).as_py() if pc.any(bad).as_py() else None


def write_queries(table: pa.Table, path) -> None:
    """The table's first two columns (id, text) as `id<TAB>text` lines, in its order; its texts hold no tab or line
    break (line_breaking_row)."""
    lines = pc.binary_join_element_wise(table.column(0), table.column(1), "\t")
    with atomic_open(path) as fh:
        for chunk in lines.chunks:
            if len(chunk):
                fh.write("\n".join(chunk.to_pylist()) + "\n")
