# Builds the Doubting MS MARCO and 44b Eval releases. Only wiring here: rules in rules/,
# logic in workflow_scripts/irdata/. See README.md.
import os
import sys

from snakemake.utils import min_version, validate

sys.path.insert(0, os.path.join(workflow.basedir, "workflow_scripts"))
from irdata.config_check import ConfigError, check_config, files_by_precedence
from irdata.demo_identity import check_own_identity
from irdata.frozen import PUBLISH_RULES, release_stop

min_version("9.0")


# the workflow folder's own config first, also when the working folder is elsewhere (-d DIR)
configfile: os.path.join(workflow.basedir, "config.yaml")


# a mistake in a few lines (file, key, what is expected); then Snakemake's validate fills in the defaults
try:
    check_config(
        config,
        os.path.join(workflow.basedir, "schemas"),
        files_by_precedence(workflow.configfiles, workflow.overwrite_configfiles),
        workflow.config_settings.config,
    )
    # other inputs than the demo's: the keys that name a release are the user's, not config.yaml's
    check_own_identity(
        config,
        os.path.join(workflow.basedir, "config.yaml"),
        files_by_precedence(workflow.configfiles, workflow.overwrite_configfiles),
        workflow.config_settings.config,
        os.path.join(workflow.basedir, "schemas"),
    )
except ConfigError as error:
    raise WorkflowError(str(error)) from None
validate(config, "schemas/config.schema.yaml")


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/queries.smk"
include: "rules/retrieval.smk"
include: "rules/annotate.smk"
include: "rules/package.smk"
include: "rules/downstream.smk"
include: "rules/eval44b.smk"
include: "rules/report.smk"


for _build in BUILDS:

    rule:
        name:
            _build
        input:
            build_targets(_build),


rule doubting:
    input:
        [build_targets(build) for build in BUILDS],


# The downstream comparison alone, of every build that runs one (also part of its build unless
# doubting.downstream.enabled is false).
rule downstream:
    input:
        [
            path.format(build=build)
            for build, built in BUILDS.items()
            if built["doubting"]["downstream"]["enabled"]
            for path in (*rules.downstream_compare.output, *rules.report_downstream.output)
        ],


rule eval44b:
    input:
        rules.publish_44b.output,
        rules.report_eval44b.output,


rule all:
    default_target: True
    input:
        rules.doubting.input,
        rules.eval44b.input,


# a release that a real run must not build (a frozen version, a damaged ledger, a published folder that would lose
# something) stops it here, before its first job, when the run builds that release (irdata/frozen.py); a dry-run
# only says so, in one line per release (rules/common.smk)
onstart:
    jobs = list(workflow.dag.needrun_jobs())
    building = {release_of(job) for job in jobs}
    stopped = [problem for problem in RELEASE_PROBLEMS if problem.release.key in building]
    if stopped:
        raise WorkflowError(release_stop(stopped))
    PUBLISHING.extend(job for job in jobs if job.rule.name in PUBLISH_RULES)


# the last lines of a run say what it published where, and which release it set aside (rules/common.smk)
onsuccess:
    log_publications()


onerror:
    log_publications()
