# Builds the Doubting releases (one a named build) and the 44b Eval release. Only wiring here: rules in rules/,
# logic in workflow_scripts/irdata/. See README.md.
import os
import sys

from snakemake.utils import min_version, validate

sys.path.insert(0, os.path.join(workflow.basedir, "workflow_scripts"))
from irdata import console
from irdata.builds import name_clashes
from irdata.config_check import check_config, yaml_mistake
from irdata.config_mistakes import ConfigError, config_mistakes, files_by_precedence
from irdata.demo_identity import check_own_identity
from irdata.frozen import PUBLISH_RULES, release_stop
from irdata.local_run import local_defaults

min_version("9.0")

# A run on this machine that names neither --cores nor --jobs (a bare `snakemake demo`) runs with profiles/local's
# cores and llm_slots; a cluster run (--jobs: profiles/slurm) keeps its own (irdata/local_run.py)
_cores, _resources = local_defaults(
    os.path.join(workflow.basedir, "profiles/local/config.yaml"),
    workflow.resource_settings.cores,
    workflow.resource_settings.nodes,
    workflow.global_resources,
)
if _cores is not None:
    workflow.resource_settings.cores = workflow.global_resources["_cores"] = _cores
for _name, _value in _resources.items():
    workflow.global_resources[_name] = _value

# a YAML mistake in the workflow's own config names its file and line (Snakemake's message names neither; an
# overlay given with --configfile Snakemake reads before this file runs: README 'What a run prints')
_yaml_mistake = yaml_mistake(os.path.join(workflow.basedir, "config.yaml"))
if _yaml_mistake:
    raise WorkflowError(_yaml_mistake)


# the workflow folder's own config first, also when the working folder is elsewhere (-d DIR)
configfile: os.path.join(workflow.basedir, "config.yaml")


# the config files in precedence order and the --config values: a config mistake names where it was set
CONFIG_FILES = files_by_precedence(workflow.configfiles, workflow.overwrite_configfiles)
CONFIG_OVERRIDES = workflow.config_settings.config

# a mistake in a few lines (file, key, what is expected); then Snakemake's validate fills in the defaults
try:
    check_config(config, os.path.join(workflow.basedir, "schemas"), CONFIG_FILES, CONFIG_OVERRIDES)
    # other inputs than the demo's: the keys that name a release are the user's, not config.yaml's
    check_own_identity(
        config,
        os.path.join(workflow.basedir, "config.yaml"),
        CONFIG_FILES,
        CONFIG_OVERRIDES,
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


# each build is a target of its own name (`snakemake demo`): a name that is already a rule's or a target's is a
# config mistake (irdata/builds.py), not Snakemake's CreateRuleException
_clashes = name_clashes(BUILDS, [named.name for named in workflow.rules])
if _clashes:
    raise WorkflowError(str(config_mistakes(_clashes, CONFIG_FILES, CONFIG_OVERRIDES)))

for _build in BUILDS:

    rule:
        name:
            _build
        input:
            build_targets(_build),


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


# Snakemake's console: short job lines and reasons, errors without what the failed script already said, a mistyped
# target answered with the targets there are (irdata/console.py)
console.install(
    logger,
    workflow.output_settings.dryrun,
    [named.name for named in workflow.rules if not named.output and named.name not in BUILDS],
    list(BUILDS),
)
