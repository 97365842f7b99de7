"""TREC qrels as the input checks write them (irdata/sources/), and the check of a qrels table against its
collection and queries. The reader is irdata.tsv.read_trec_qrels."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open
from .errors import InputError
from .tsv import check_ids_known

# what a qrels row whose passage is not in the collection does (doubting.qrels_missing_passages)
QRELS_MISSING_PASSAGES = ("error", "drop")


def check_qrels(qrels_path, qrels: pa.Table, passage_ids, collection, query_ids, queries_path,
                missing_passages: str = "error") -> tuple[pa.Table, int]:
    """Check a qrels table against the collection and the queries; return it and the rows dropped.

    A row whose passage is not in the collection is an error, or with missing_passages="drop" is
    left out and counted (a qrels row whose query is not in the queries is always an error).
    """
    if missing_passages not in QRELS_MISSING_PASSAGES:
        raise ValueError(f"qrels_missing_passages must be one of {QRELS_MISSING_PASSAGES}, got {missing_passages!r}")
    dropped, rows = 0, None
    if missing_passages == "drop":
        known = pc.is_in(qrels.column("passage_id"), value_set=pa.chunked_array(passage_ids).combine_chunks())
        dropped = qrels.num_rows - int(pc.sum(known).as_py() or 0)
        if dropped == qrels.num_rows:
            raise InputError(qrels_path, f"no row's passage_id is in the collection {collection} (all "
                             f"{qrels.num_rows:,} dropped); are these qrels of another corpus?", field="passage_id")
        qrels = qrels.filter(known)
        rows = np.flatnonzero(known.to_numpy(zero_copy_only=False))  # the file's record of each row kept
    else:
        check_ids_known(qrels_path, qrels, "passage_id", passage_ids,
                        f"the collection {collection} (set doubting.qrels_missing_passages: drop to leave such rows "
                        "out)")
    check_ids_known(qrels_path, qrels, "query_id", query_ids, f"the queries {queries_path}", rows)
    return qrels, dropped


def write_qrels(table: pa.Table, path) -> None:
    """TREC qrels, tab-separated, in the table's row order."""
    columns = [table.column(c) for c in ("query_id", "iteration", "passage_id")]
    lines = pc.binary_join_element_wise(*columns, pc.cast(table.column("relevance"), pa.string()), "\t")
    with atomic_open(path) as fh:
        for chunk in lines.chunks:
            if len(chunk):
                fh.write("\n".join(chunk.to_pylist()) + "\n")
