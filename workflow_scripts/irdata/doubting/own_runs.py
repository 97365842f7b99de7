"""The workflow's own runs of the label audit's system ranking (irdata.retrieval.audit_runs writes one TREC
file each, irdata.doubting.audit_ranking ranks them), and their names in the ranking: a module of their own,
so that the card reads the names without importing the ranking's statistics."""

# in this order
OWN_RUNS = ("bm25", "dense", "hybrid_rrf", "random")


def own_run_name(name: str) -> str:
    """The name of one of the workflow's own runs (OWN_RUNS) in the ranking."""
    return f"workflow:{name}"
