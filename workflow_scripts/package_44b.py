from irdata.eval44b.package import RELEASE_KEYS, package
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    splits = ("train", "val", "test")
    paths = {
        "papers": snakemake.input.papers,
        "split_report": snakemake.input.split_report,
        "queries_report": snakemake.input.queries_report,
        "mined": {s: snakemake.input[f"mined_{s}"] for s in splits},
        "mining_reports": {s: snakemake.input[f"report_{s}"] for s in splits},
        "arms": list(snakemake.input.arms),
        "inputs": {"papers": snakemake.input.raw_papers, "reviews": snakemake.input.raw_reviews},
    }
    out = {k: snakemake.output[k] for k in (*RELEASE_KEYS, "sums")}
    manifest = package(paths, out, snakemake.params.settings)
    for line in manifest["scoring"]["llm_failures"].get("over_limit", []):
        log.warning("accepted over the limit, metrics withheld: %s", line)
    log.info(
        "released %s; disjointness %s",
        manifest["counts"]["files"],
        {k: v for k, v in manifest["disjointness"].items() if not k.endswith("_ids")},
    )
