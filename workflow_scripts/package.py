from pathlib import Path

from irdata.doubting.package import build_package
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    params = snakemake.params
    manifest = build_package(
        params.assembled, snakemake.output[0], params.version, params.repo_id, snakemake.input.inputs_json,
        snakemake.input.llm_identity, dict(params.config_used), Path(snakemake.scriptdir).parent,
        list(params.code_files), dict(params.batch_descriptions), params.ledger,
    )
    log.info("package %s %s: %s", params.repo_id, params.version, manifest["rows"])
