from irdata.eval44b.package import package
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    manifest = package(**job_args(snakemake))
    for line in manifest["scoring"]["llm_failures"].get("over_limit", []):
        log.warning("accepted over the limit, metrics withheld: %s", line)
    log.info(
        "released %s; disjointness %s",
        manifest["counts"]["files"],
        {k: v for k, v in manifest["disjointness"].items() if not k.endswith("_ids")},
    )
