"""A BEIR-format evaluation set (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) as the workflow reads
collections: a passage store of the corpus with its titles (the encoder joins title and text as BEIR's dense
models do: PassageStore.index_texts), the judged queries' texts and TREC qrels. Read and checked by the BEIR
readers of the release's own input check (irdata/beir.py): a bad line is an InputError naming file, line,
field."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import write_json_atomic
from ..beir import check_qrels_ids_known, read_beir_corpus, read_beir_qrels, read_beir_queries
from ..passage_store import write_passage_store
from ..qrels_files import write_qrels
from ..query_files import write_queries


def convert_beir(*, corpus, queries, qrels, store, judged_queries, judged_qrels, report, settings: dict) -> dict:
    """The downstream_beir_inputs job: from the set's `corpus`, `queries` and `qrels` (the files of its folder
    and split, settings["path"] and settings["split"]: irdata.sources.beir.beir_paths), write its passage
    `store`, its judged queries (id TAB text, whitespace folded) and its qrels (TREC); write and return counts."""
    passages = read_beir_corpus(corpus)
    texts = read_beir_queries(queries)
    judgments = read_beir_qrels(qrels)
    check_qrels_ids_known(qrels, judgments, passages, texts)
    judged = texts.filter(pc.is_in(texts.column("id"), value_set=judgments.column("query_id").unique()))
    # a TSV line holds no tab or line break: whitespace folded, as the evaluation reads the words only
    folded = pc.utf8_trim_whitespace(pc.replace_substring_regex(judged.column("text"), r"\s+", " "))
    judged = judged.set_column(1, "text", folded).sort_by("id")
    judgments = judgments.sort_by([("query_id", "ascending"), ("passage_id", "ascending")])
    write_passage_store(passages, store)
    write_queries(judged, judged_queries)
    write_qrels(judgments.add_column(1, "iteration", pa.array(["0"] * judgments.num_rows, pa.string())), judged_qrels)
    counts = {"passages": passages.num_rows, "queries": judged.num_rows, "qrels": judgments.num_rows}
    write_json_atomic(report, counts)
    return counts
