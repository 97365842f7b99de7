# Builds the Doubting MS MARCO and 44b Eval releases. Only wiring here: rules in rules/,
# logic in workflow_scripts/irdata/. See README.md.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


validate(config, "schemas/config.schema.yaml")


include: "rules/common.smk"
include: "rules/queries.smk"
include: "rules/retrieval.smk"
include: "rules/annotate.smk"
include: "rules/package.smk"
include: "rules/eval44b.smk"


rule all:
    input:
        DOUBTING["package_dir"],
        list(EVAL44B_RELEASE.values()),
    default_target: True


# one release alone: `snakemake doubting`, `snakemake eval44b`
rule doubting:
    input:
        DOUBTING["package_dir"],


rule eval44b:
    input:
        list(EVAL44B_RELEASE.values()),
