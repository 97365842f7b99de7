# Shared wiring helpers: paths, shard lists, and the settings and code params that drive rerun decisions.
import functools
import inspect
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow_scripts"))

from snakemake.common import overwrite_function_params

from irdata.logs import TRACEBACK_ENV as _TRACEBACK_ENV
from irdata.doubting import wiring as _doubting
from irdata.doubting.human_audit import sheet_inputs as _human_audit_sheet_inputs
from irdata.doubting.release_code import doubting_code as _doubting_code, release_code as _release_code
from irdata.doubting.audit_ranking import (
    OWN_RUNS as AUDIT_OWN_RUNS,
    run_files as _audit_run_files,
    run_selection_lines as _audit_run_lines,
)
from irdata.config_check import CONFIG_SECTIONS, build_key_path as _build_key_path
from irdata.config_mistakes import ConfigError
from irdata.builds import validated_builds as _validated_builds
from irdata.build_grading import grading_mistakes as _grading_mistakes
from irdata.input_keys import missing_inputs as _missing_inputs
from irdata.frozen import (
    doubting_release as _doubting_release,
    eval44b_release as _eval44b_release,
    job_release as _job_release,
    publication_lines as _publication_lines,
    release_notices as _release_notices,
    release_problems as _release_problems,
)
from irdata.layout import (
    PAPERS44B,
    audit_run,
    benchmarks,
    build_dir,
    build_file,
    build_files,
    downstream_beir,
    downstream_encoded,
    downstream_evaluation,
    downstream_file,
    doubting_report,
    encoded_passages,
    eval44b_arm,
    eval44b_file,
    eval44b_mined,
    eval44b_queries,
    eval44b_report,
    index_dir,
    index_files,
    logs,
    shard_path,
    store,
)
from irdata.layout import shard_paths as _shard_paths
from irdata.shards import size_shard_count as _size_shard_count
from irdata.sources.registry import (
    SOURCES as INPUT_SOURCES,
    source_of as _source_of,
    train_heldout_conflicts as _train_heldout_conflicts,
)
from irdata.stage_registry import StageWiring
from irdata.workdir import resolve_config_inputs, workflow_file as _workflow_file
from irdata.doubting.release_files import DATA_FILES as _DS_DATA_FILES
from irdata.downstream import wiring as _ds
from irdata.downstream.plan import check_downstream_plan as _check_downstream_plan
from irdata.downstream.stages import ARMS as _DS_ARMS, MODELS as _DS_MODELS, collections as _ds_collections

# Config sections, each validated against schemas/<section>.schema.yaml (defaults filled in; a mistake was
# reported in a few lines by the Snakefile's check_config already). `doubting` holds the builds' shared
# defaults: each build is validated whole below.
for _section in CONFIG_SECTIONS:
    if _section == "doubting":
        continue
    try:
        validate(config[_section], f"../schemas/{_section}.schema.yaml")
    except WorkflowError as error:
        raise WorkflowError(f"In config section {_section!r} (schemas/{_section}.schema.yaml):", error)

# `snakemake -d DIR`: the config's input files that only the workflow folder holds (the demo's) are read
# from there; outputs go to the working folder (irdata/workdir.py)
resolve_config_inputs(config, workflow.basedir)

# The named Doubting builds (irdata/builds.py): each build's whole config, its sections' defaults filled in.
# Every rule reads its job's build through build_config(wildcards) or the Stage wiring below.
try:
    BUILDS = _validated_builds(config, os.path.join(workflow.basedir, "schemas"))
except WorkflowError as error:
    raise WorkflowError("In a Doubting build (schemas/doubting.schema.yaml):", error)
for _built in BUILDS.values():
    resolve_config_inputs(_built, workflow.basedir)

# A grading mode no job of a build could run (answer_hinted without reference answers, as on a BEIR build's dev
# split) is a config mistake naming the key that sets it, not a job's InputFunctionException
_modes = {
    (tuple(_build_key_path(config, e.key.split("."))), e.problem): None
    for b in BUILDS.values()
    for e in _grading_mistakes(b)
}
if _modes:
    raise WorkflowError(str(config_mistakes(_modes, CONFIG_FILES, CONFIG_OVERRIDES)))

# An input path the config names that a job could not read (missing, a folder where a file belongs, a pipe, a
# link to nothing, unreadable; an LLM's GGUF, its journals' folder) stops the planning in a line naming its key,
# before Snakemake would name only the file in a rule's MissingInputException or a job would stop in a traceback
# (the targets are not known here)
_missing = _missing_inputs(BUILDS, config, Path.cwd())
if _missing:
    raise WorkflowError(
        "The config names input files that do not exist or cannot be read as they are; fix each path at the key "
        "named first:\n  " + "\n  ".join(_missing)
    )
# A held-out query file that is the train queries' file (or a copy of it) stops the planning too, naming both keys
# (irdata/heldout.py, each build's source: irdata/sources/; the input check refuses a held-out file holding every
# train query under another name)
_conflicts = _train_heldout_conflicts(BUILDS, Path.cwd())
if _conflicts:
    raise WorkflowError(
        "A build's train queries are also held out (a query is trained on or held out, never both); fix the key "
        "named first or the train queries' key:\n  " + "\n  ".join(_conflicts)
    )

# and so does a runs folder of the audit that gives no run (a backup, a subfolder's runs) or two runs of one name
# (a run and its .gz copy): a copy would be ranked as another system
_run_problems = _audit_run_lines(BUILDS, Path.cwd())
if _run_problems:
    raise WorkflowError(
        "The label audit's runs (doubting.audit.runs) are chosen, not swept up; fix the key named first:\n  "
        + "\n  ".join(_run_problems)
    )


def build_config(wildcards):
    """The whole config of the job's build (the {build} wildcard), as PyPSA-Eur's config_provider."""
    return BUILDS[wildcards.build]


def build_doubting(wildcards):
    return BUILDS[wildcards.build]["doubting"]


# Every release, versioned alike: each Doubting build's and the 44b Eval's. A version frozen with another config or
# code, a damaged release ledger, a published folder that would lose a later version or a user's files: planning
# never stops on it (a dry-run, --summary, --list-changes and --report answer, with one line per release); a real
# run that builds the release stops in onstart, before its first job (irdata/frozen.py; the staging rules check
# the content, the publishing rules the folder).
RELEASES = {
    release.key: release
    for release in (*(_doubting_release(name, built) for name, built in BUILDS.items()), _eval44b_release(config))
}
RELEASE_PROBLEMS = _release_problems(list(RELEASES.values()), workflow.basedir)
for _line in _release_notices(RELEASE_PROBLEMS):
    logger.warning(_line)
# the jobs of this run that publish a release, as onstart finds them (the Snakefile's last lines say what they did)
PUBLISHING = []


def release_of(job):
    """The key of the release a job builds (a build's name, eval44b), or None."""
    return _job_release(job.rule.name, job.wildcards_dict)


def log_publications():
    """What the publishing jobs that finished in this run published, and what they set aside (irdata/frozen.py)."""
    finished = [job for job in PUBLISHING if workflow.dag.finished(job)]
    for line in _publication_lines([(RELEASES[release_of(job)].label, job.output[0]) for job in finished]):
        logger.info(line)


# A build's downstream comparison that cannot run stops the planning: an unavailable base model, eval set names
# that collide, train qrels without a positive (irdata/downstream/plan.py), rather than failing after its first jobs
for _name, _built in BUILDS.items():
    try:
        _check_downstream_plan(_built["doubting"])
    except ConfigError as _error:
        raise WorkflowError(f"Build {_name!r}: {_error}") from None

# rule scripts log a bad input's traceback only when Snakemake's own --verbose asks (irdata/logs.py)
os.environ[_TRACEBACK_ENV] = "1" if workflow.output_settings.verbose else "0"


wildcard_constraints:
    build="|".join(re.escape(name) for name in BUILDS),


def builds_where(test):
    """The builds whose doubting section passes `test`, as a {build} constraint (a pattern that matches none
    when there are none)."""
    names = [name for name, built in BUILDS.items() if test(built["doubting"])]
    return "|".join(re.escape(name) for name in names) or "(?!)"


def _rule_script(name):
    """The script the named rule runs, relative to the workflow folder (the file its code identity covers); a rule
    generated per build (shard_queries_<build>) runs the same script for each."""
    named = workflow.get_rule(name)
    if named.script is None:  # a target over the rules generated per build (shard_queries_<build>)
        named = workflow.get_rule(f"{name}_{next(iter(BUILDS))}")
    return os.path.relpath(named.basedir.join(named.script).get_path_or_uri(secret_free=True), workflow.basedir)


# the params and prompt inputs of every rule (irdata/stage_registry.py)
STAGE = StageWiring(config, workflow.basedir, _rule_script, builds=BUILDS)
# Every path below comes from irdata/layout.py, as a pattern of the job's wildcards ({build}, {split}, {shard}, ...).
# the dedup's query ids (irdata/dedup.py)
DOUBTING_IDS = build_files(("train_collection", "train_excluded", "dev_all"))


# the train and dev query files of a build as its input check writes them, where its source (doubting.source.format,
# irdata/sources/) reads other inputs than query files as named (a BEIR folder, ir_datasets ids)
CHECKED_QUERIES = build_files(("train_queries", "dev_queries"))


def build_queries(build):
    """The train and dev query files every later stage of a build reads: as the config names them, or as its input
    check wrote them (the held-out queries: DOUBTING_CHECKED)."""
    doubting = BUILDS[build]["doubting"]
    return _source_of(doubting).query_files(doubting) or {
        split: CHECKED_QUERIES[f"{split}_queries"].format(build=build) for split in ("train", "dev")
    }


def queries(split):
    """The job's build's query file of `split` (train, dev), as an input function."""
    return lambda wildcards: build_queries(wildcards.build)[split]


DOUBTING_INPUTS_REPORT = build_file("inputs_report")
# the inputs as the input check (validate_<format>_inputs) checked them: what every later stage reads instead of the raw
# files (qrels minus the rows dropped per doubting.qrels_missing_passages; answers of the dev queries
# only, as JSON lines, whatever format doubting.dev_answers has; every held-out query with its source,
# irdata/heldout.py)
DOUBTING_CHECKED = build_files(("train_qrels", "dev_qrels", "dev_answers", "heldout_queries"))


def workflow_file(path):
    """A file of the workflow folder (a prompt, a resource) as a rule's input or param names it."""
    return _workflow_file(path, workflow.basedir)


# One way rules get their params (as PyPSA-Eur's config_provider): `**stage_params(<rule>)`, from the Stage
# its family's stages module declares. Snakemake reads a param function's signature for every job; read once.
def stage_params(name, build=None):
    """A rule's params: settings, code identity and, for an LLM job, its journal name and retry state (`build`: the
    Doubting build of a rule generated per build, without the {build} wildcard)."""
    return {key: _signature_read_once(value) for key, value in STAGE.params(name, build).items()}


def _signature_read_once(value):
    if callable(value):
        overwrite_function_params(value, inspect.signature(value).parameters)
    return value


def stage_prompts(name):
    """The prompt files of a stage's jobs, as named inputs `prompt_<name>`."""
    return lambda wildcards: STAGE.prompt_inputs(name, wildcards)


# Params naming the folder of an input or output: functions of the job's files, so Snakemake records no value
# of them (a param it records reruns its jobs when it changes; these follow their files anyway).
def input_folder(name):
    """The folder of the job's input `name` (a list of files in one folder, as an index)."""
    return lambda wildcards, input: os.path.dirname(input[name][0])


def output_folder(name=None):
    """The folder of the job's output `name`, or of its first output."""
    return lambda wildcards, output: os.path.dirname((output[name] if name else output)[0])


def shard_paths(build, split, kind="ids", rule=None):
    """Every shard's file of one kind of a build (irdata/shard_files.py), in shard order: its config's shard count."""
    return _shard_paths(build, kind, split, BUILDS[build]["doubting"]["shards"][split], rule)


# Collections that the retrieval rules index, by name (the {collection} wildcard): each build's, under its
# name, and the 44b papers. Their passage store is what the indexes read: a build's is written by its input
# check, the 44b one by papers_store.
COLLECTIONS = [*BUILDS, PAPERS44B]
STORES = {name: store(name) for name in COLLECTIONS}
# the store of the job's build, as a pattern of the {build} wildcard
BUILD_STORE = store("{build}")


def _collection_source(name):
    """A file that exists when the DAG is built and bounds the collection's size: the number of encoding jobs
    is known then (the 44b papers.tsv is written from the raw papers file; a build's: its source's size_path)."""
    if name == PAPERS44B:
        return config["eval44b"]["papers"]
    doubting = BUILDS[name]["doubting"]
    return _source_of(doubting).size_path(doubting)


COLLECTION_SOURCES = {name: _collection_source(name) for name in COLLECTIONS}


def collection_store(wildcards):
    return STORES[wildcards.collection]


def encode_shard_count(collection):
    """Encoding jobs of a collection: its source file's size over retrieval.dense.encode_shard_mb."""
    return _size_shard_count(COLLECTION_SOURCES[collection], config["retrieval"]["dense"]["encode_shard_mb"])


# Indexes are folders, declared by their files (irdata/layout.py).
def bm25_index_files(collection):
    return index_files(index_dir(collection, "bm25"), "bm25")


def dense_index_files(collection):
    return index_files(index_dir(collection, "dense"), "dense")


def encoded_shards(wildcards, ext):
    shards = encode_shard_count(wildcards.collection)
    return [encoded_passages(wildcards.collection, f"{i:04d}", ext) for i in range(shards)]


def split_queries(wildcards):
    return build_queries(wildcards.build)[wildcards.split]


# The LLM stages (rules/annotate.smk)
def grade_inputs(wildcards):
    """The reference answers, for a grading mode that sees them."""
    if STAGE.settings("grade", wildcards)["sees_answers"]:
        return {"answers": DOUBTING_CHECKED["dev_answers"]}
    return {}


# The label audit's own runs (rules/package.smk): its system-ranking agreement ranks them with the configured ones
# (irdata/doubting/audit_ranking.py)
DOUBTING_AUDIT_RUNS = {name: audit_run(name) for name in AUDIT_OWN_RUNS}


def release_audit(wildcards):
    """The label audit and the human audit, when the build asks for them (doubting.audit)."""
    audit = build_doubting(wildcards)["audit"]
    audits = build_files(["human_audit"]) if audit["human"]["sample_queries"] else {}
    if not audit["qrels"]:
        return audits
    return {**audits, **build_files(("audit", "audit_ranking"))}


# the downstream comparison's result (MANIFEST.json's `downstream`)
DS_RESULT = downstream_file("downstream.json")


def release_downstream(wildcards):
    """The downstream comparison (rules/downstream.smk), when the build runs one (doubting.downstream)."""
    return {"downstream": DS_RESULT} if build_doubting(wildcards)["downstream"]["enabled"] else {}


# The downstream comparison (rules/downstream.smk): what irdata/downstream/wiring.py computes, by wildcards,
# over every build's (its {dsbase} and {dscoll} take any build's names)
DS_BASES = sorted({b for built in BUILDS.values() for b in built["doubting"]["downstream"]["base_models"]})
DS_COLLECTIONS = sorted({c for built in BUILDS.values() for c in _ds_collections(built)})


def ds_beir_files(wildcards):
    return _ds.beir_files(build_config(wildcards), wildcards.dscoll)


def ds_store(wildcards):
    return _ds.store(wildcards.dscoll, wildcards.build, STORES[wildcards.build])


def ds_shard_count(wildcards):
    return _ds.shard_count(build_config(wildcards), wildcards.dscoll, COLLECTION_SOURCES[wildcards.build])


def ds_model_inputs(wildcards):
    return _ds.model_inputs(wildcards.dsbase, wildcards.dsmodel)


def ds_encoded(wildcards, ext):
    return _ds.encoded(wildcards.dsbase, wildcards.dsmodel, wildcards.dscoll, ds_shard_count(wildcards), ext)


def ds_qrels_sets(wildcards):
    return _ds.qrels_sets(build_config(wildcards), wildcards.dscoll, DOUBTING_ASSEMBLED, DOUBTING_CHECKED["dev_qrels"])


def ds_qrels_grades(wildcards):
    return _ds.qrels_grades(ds_qrels_sets(wildcards))


def ds_evaluate_inputs(wildcards):
    return _ds.evaluate_inputs(
        build_config(wildcards),
        wildcards.dsbase,
        wildcards.dsmodel,
        wildcards.dscoll,
        build_queries(wildcards.build)["dev"],
        ds_qrels_sets(wildcards),
    )


# The input checks, the release and the report of a build (rules/queries.smk, package.smk, report.smk; the
# targets in the Snakefile)
def source_inputs(wildcards):
    """The named input files of the job's build's input check (its source's rule_inputs)."""
    doubting = build_doubting(wildcards)
    return _source_of(doubting).rule_inputs(doubting)


def human_audit_sheet_inputs(wildcards):
    """What the blinded human audit draws from: the dev or the train queries (doubting.audit.human.split)."""
    return _human_audit_sheet_inputs(
        build_doubting(wildcards)["audit"]["human"]["split"],
        DOUBTING_ASSEMBLED,
        DOUBTING_CHECKED,
        build_queries(wildcards.build),
    )


@functools.cache
def doubting_release_code(build):
    """The identity of a build's release's code: its modules, prompts, rules, envs and schemas (MANIFEST.json's
    `code`, irdata/doubting/release_code.py), once per build (the files do not change while Snakemake plans)."""
    code = _doubting_code(_source_of(BUILDS[build]["doubting"]).rule)
    return _release_code(workflow.basedir, _doubting.prompt_paths(STAGE, _LLM_RULES, build), code)


def llm_job_stats(wildcards):
    """The stats file of every LLM job of the build, by rule and split (the release gate's inputs)."""
    audited = build_doubting(wildcards)["audit"]["qrels"]
    return _doubting.llm_job_stats(
        functools.partial(shard_paths, wildcards.build), _LLM_RULES, DOUBTING_AUDIT_STATS if audited else None
    )


def batch_files(wildcards):
    """The query id files of the build's doubting.acquisition_batches."""
    return _doubting.batch_files(build_doubting(wildcards)["acquisition_batches"])


def assemble_inputs(wildcards):
    """assemble's per-shard inputs and, when the build lists acquisition batches, their checked record."""
    batches = build_files(["acquisition_batches"], wildcards.build) if batch_files(wildcards) else {}
    return _doubting.assemble_shard_inputs(functools.partial(shard_paths, wildcards.build)) | batches


def audit_input(key):
    return lambda wildcards: build_doubting(wildcards)["audit"][key]


# each build's figures and tables under its own title (doubting.title)
def DOUBTING_REPORT_CATEGORY(wildcards):
    return build_doubting(wildcards)["title"]


# One target per release: `snakemake doubting` builds every declared Doubting build, `snakemake <name>` one of
# them (README.md, "Several builds"), `snakemake eval44b` the 44b Eval; `all`, the default, builds them all.
def build_targets(build):
    """What `snakemake <build>` builds: its input check, its published release and its report figures and tables."""
    return [
        path.format(build=build)
        for path in (
            DOUBTING_INPUTS_CHECKED,  # first: for other input paths, plans the input check again
            *rules.package.output,
            *rules.report_doubting.output,
            *(rules.report_downstream.output if BUILDS[build]["doubting"]["downstream"]["enabled"] else []),
        )
    ]

# fmt: off
# An input check's rule, declared for one source (rules/queries.smk calls it for each; snakefmt formats no rule
# inside a def)
def input_check_rule(source):
    rule:
        name:
            source.rule
        input:
            unpack(source_inputs),
        output:
            **DOUBTING_CHECKED,
            **(CHECKED_QUERIES if source.writes_queries else {}),
            report=DOUBTING_INPUTS_REPORT,
            checked=DOUBTING_INPUTS_CHECKED,
            store=BUILD_STORE,  # the collection, with its titles where it has them, as the passage store
        log:
            logs(f"{source.rule}/{{build}}.log"),
        benchmark:
            benchmarks(f"{source.rule}/{{build}}.tsv")
        wildcard_constraints:
            build=builds_where(lambda doubting: _source_of(doubting) is source),
        priority: 100
        conda:
            f"../envs/{source.env}.yaml"
        params:
            **stage_params(source.rule),
        script:
            f"../workflow_scripts/{source.rule}.py"
# fmt: on
