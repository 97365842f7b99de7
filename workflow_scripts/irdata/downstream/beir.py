"""A BEIR-format evaluation set (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) as the workflow reads
collections: a passage store of the corpus with its titles (the encoder joins title and text as BEIR's dense
models do: PassageStore.index_texts), the judged queries' texts and TREC qrels. Read and checked by the BEIR
readers of the release's own input check (irdata/beir.py): a bad line is an InputError naming file, line,
field."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..beir import check_qrels_ids_known, read_beir_corpus, read_beir_qrels, read_beir_queries
from ..beir_inputs import beir_paths, write_queries_tsv
from ..msmarco_inputs import write_qrels
from ..passage_store import write_passage_store


def convert_beir(folder, split: str, out_store, out_queries, out_qrels) -> dict:
    """Write the set's passage store, its judged queries (id TAB text, whitespace folded) and its qrels
    (TREC); return counts."""
    paths = beir_paths(folder, split)
    corpus = read_beir_corpus(paths["corpus"])
    queries = read_beir_queries(paths["queries"])
    qrels = read_beir_qrels(paths["qrels"])
    check_qrels_ids_known(paths["qrels"], qrels, corpus, queries)
    judged = queries.filter(pc.is_in(queries.column("id"), value_set=qrels.column("query_id").unique()))
    # a TSV line holds no tab or line break: whitespace folded, as the evaluation reads the words only
    folded = pc.utf8_trim_whitespace(pc.replace_substring_regex(judged.column("text"), r"\s+", " "))
    judged = judged.set_column(1, "text", folded).sort_by("id")
    qrels = qrels.sort_by([("query_id", "ascending"), ("passage_id", "ascending")])
    write_passage_store(corpus, out_store)
    write_queries_tsv(judged, out_queries)
    write_qrels(qrels.add_column(1, "iteration", pa.array(["0"] * qrels.num_rows, pa.string())), out_qrels)
    return {"passages": corpus.num_rows, "queries": judged.num_rows, "qrels": qrels.num_rows}
