from pathlib import Path

from irdata.doubting.package import build_package
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    s, i = snakemake.params.settings, snakemake.input
    manifest = build_package(
        snakemake.params.assembled, snakemake.params.staged, s["version"], s["repo_id"], i.inputs_json, i.llm_identity,
        dict(s["config"]), Path(snakemake.scriptdir).parent, list(snakemake.params.code_files),
        dict(s["batch_descriptions"]),
        s["ledger"], i.bm25_run, failures_json=i.failures, package_dir=s["package_dir"], audit_json=i.get("audit"),
        audit_ranking_json=i.get("audit_ranking"), human_audit_json=i.get("human_audit"),
        raw_inputs=list(s["raw_inputs"]), downstream_json=i.get("downstream"),
    )
    log.info("staged %s %s: %s", s["repo_id"], s["version"], manifest["rows"])
