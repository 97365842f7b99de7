from irdata.doubting.package import run_stage_release
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    s = snakemake.params.settings
    manifest = run_stage_release(**job_args(snakemake))
    log.info("staged %s %s: %s", s["repo_id"], s["version"], manifest["rows"])
