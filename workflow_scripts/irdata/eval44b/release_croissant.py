"""croissant.json of the 44b Eval release: every file with its sha256, and a record set per JSON Lines
file with the fields package.card_row, pair_row and result_line write.

Order (no file lists a hash of a file that lists its own): croissant.json is written after every other
file of the release and lists them all but SHA256SUMS; SHA256SUMS, written last, lists croissant.json.
manifest.json lists no release file, so it is written before croissant.json and listed in it.
"""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_json_atomic
from ..croissant import BOOLEAN, FLOAT, INTEGER, TEXT, URL, Column, RecordSet, croissant_metadata, hub_url
from .card_hub import INVENTED

# a license identifier of the card as Croissant wants it, a URL, where one is known
LICENSE_URLS = {"cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/"}
DESCRIPTION = ("A frozen 9-way reranking benchmark over machine-learning papers, queried by their peer reviews: "
               "for each query, an OpenReview review, its paper (the positive) and eight mined hard-negative papers, "
               "as identifiers with their public URLs, and the scored result of every arm. No review or paper text.")
INVENTED_DESCRIPTION = ("Not the 44b Eval benchmark: a build of its workflow from {corpus}, whose papers, reviews and "
                        "ids are invented and resolve nowhere. In the benchmark's format: for each query, a review, "
                        "its paper (the positive) and eight mined hard-negative papers, as identifiers, and the "
                        "scored result of every arm. No review or paper text.")

_REF = (Column("scheme", TEXT, "arxiv, openalex, s2 or another identifier scheme"), Column("id", TEXT),
        Column("url", URL), Column("resolvable", BOOLEAN, "false for a candidate without a third-party "
                                   "identifier; absent otherwise"))
_MINED = (Column("miner", TEXT, "the miner that found the negative"), Column("rank", INTEGER, "its rank there"))
_QUERY = (Column("note_id", TEXT, "OpenReview note id of the review"), Column("note_url", URL),
          Column("kind", TEXT, "official_review or meta_review"))


def _query_columns(negative: tuple[Column, ...]) -> tuple[Column, ...]:
    return (*_QUERY, Column("positive", description="the reviewed paper", sub=_REF),
            Column("negatives", description="the hard negatives", sub=negative, repeated=True))


_RESULTS = (Column("arm", TEXT), *(Column(m, FLOAT) for m in ("P@1", "P@2", "P@3", "MRR", "mean_rank")),
            Column("ms_per_query", FLOAT, "wall time per query, over the queries whose model calls were all made in "
                   "this build; null when the build does not record timing or every query was replayed from the LLM "
                   "journal"),
            Column("queries", INTEGER),
            Column("truncation", description="characters kept at scoring",
                   sub=(Column("query_chars", INTEGER), Column("document_chars", INTEGER))),
            Column("model", TEXT, "the model of a model arm"), Column("model_sha256", TEXT),
            Column("queries_unranked", INTEGER, "the LLM arm's queries with a failed grade: not ranked, out of its "
                   "metrics"),
            Column("queries_replayed", INTEGER, "the LLM arm's queries with a grade answered from the LLM journal (an "
                   "identical call made before) rather than by a call made for it: not timed in ms_per_query"),
            Column("metrics_withheld", TEXT, "why the LLM arm's metrics are null (over its failure limit, published "
                   "with accept_llm_failures); null when they are given"))
# package()'s out keys of the files croissant.json lists: (description, the columns of its record set)
FILES = {
    "test": ("the test queries: one line a query, with its positive and negatives", _query_columns(_REF)),
    "results": ("the scorer's output per arm (some arms add chance, failures or training: see README.md)",
                _RESULTS),
    "ranks": ("each arm's rank of the positive per query and every candidate's rank, in test.jsonl's candidate order",
              (Column("arm", TEXT), Column("note_id", TEXT, "OpenReview note id of the review"),
               Column("rank", INTEGER, "the positive's rank, 1 best"),
               Column("candidate_ranks", INTEGER, "each candidate's rank, positive first", repeated=True))),
    "manifest": ("split rule and seed, counts, disjointness proof, negative-mining recipe, ID-scheme census", None),
    "train_pairs": ("the train split's queries as test.jsonl, each negative with its miner and rank",
                    _query_columns(_REF + _MINED)),
    "val_pairs": ("the val split's queries, the same shape as train_pairs.jsonl", _query_columns(_REF + _MINED)),
    "card": ("the dataset card", None),
}


def release_croissant(out: dict, release: dict, version: str) -> None:
    """Write out["croissant"]; `out`: package()'s paths, every file of FILES written, in the folder of
    out["sums"]; `release`: the package settings' release (repository id, ids, license, citation); `version`: the
    release's."""
    folder = Path(out["sums"]).parent
    rel = {key: Path(out[key]).relative_to(folder).as_posix() for key in FILES}
    record_sets = [RecordSet(key, rel[key], columns, description)
                   for key, (description, columns) in FILES.items() if columns]
    repo_id = release["repo_id"]
    summary = (INVENTED_DESCRIPTION.format(corpus=release["corpus_description"] or "invented data")
               if release["ids_refer_to"] == INVENTED else DESCRIPTION)
    metadata = croissant_metadata(folder, repo_id, summary, LICENSE_URLS.get(release["license"], release["license"]),
                                  hub_url(repo_id, release["on_hub"]), version, release["citation"],
                                  {rel[key]: description for key, (description, _) in FILES.items()}, record_sets)
    write_json_atomic(out["croissant"], metadata)
