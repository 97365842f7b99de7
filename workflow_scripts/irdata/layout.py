"""Where every file of the working folder lies: the one place a path of the work tree is spelled.

The rules name their inputs, outputs, logs and benchmarks from here (rules/*.smk), the stages' settings and the
builds' defaults take their paths from here (irdata/<family>/stages.py, irdata/builds.py), and what the README, docs/
and the cards print is found here or in a built demo (tests/unit/test_layout.py). Paths are relative to the working
folder (`snakemake -d DIR`: irdata/workdir.py). A function of a build, collection, split or shard returns the pattern
with its wildcard (`{build}`) unless it is given a value: a rule names the pattern, planning code the path.

    work/store/<collection>/            each collection's passage store (a Doubting build's collection is named
    work/index/<collection>/            as the build; the 44b papers are `papers44b`) and its indexes
    work/doubting/<build>/              everything a Doubting build writes before its release; its per-shard files
                                        by kind (irdata/shard_files.py, their formats); downstream/: its comparison
    work/eval44b/                       everything the 44b Eval writes before its release
    results/44b-eval                    the 44b Eval's published release, unless its config names another
    work/report/                        the figures and tables of `snakemake --report`
    results/<build>                     a Doubting build's published release, unless its config names another
    logs/<rule>/..., benchmarks/<rule>/...   a log and a benchmark file per job, under its rule's name
    cache/llm_journal/                  the LLM calls' journals (llm.journal_dir): they outlive every output

Planning imports this module and no rule script does: a job gets its paths as inputs, outputs and params, so a path
moved here reruns the jobs whose files move and no other (tests/unit/test_planning_imports.py).
"""

from __future__ import annotations

from .shard_files import LAYOUT as SHARD_FILES
from .shard_files import shard_file as _shard_file

WORK = "work"
RESULTS = "results"
LOGS = "logs"
BENCHMARKS = "benchmarks"
CACHE = "cache"
# the LLM calls' journals, one per job (the default of llm.journal_dir: schemas/llm.schema.yaml)
LLM_JOURNALS = f"{CACHE}/llm_journal"


# -- logs and benchmarks, as PyPSA-Eur's path providers: the rule's own part of the path stays in the rule ---------

def logs(path: str) -> str:
    """A job's log: `path` (starting with its rule's name) under logs/."""
    return f"{LOGS}/{path}"


def benchmarks(path: str) -> str:
    """A job's benchmark file: `path` under benchmarks/; with its folders joined by `_` it starts with the rule's
    name (irdata.stage_costs reads them by that)."""
    return f"{BENCHMARKS}/{path}"


# -- collections: each one's passage store and indexes ----------------------------------------------------------------

# the 44b Eval's collection (a Doubting build's is named as the build)
PAPERS44B = "papers44b"
# an index is a folder declared by its files rather than as a directory() output: Snakemake keeps checksums of files,
# so a touched index reruns nothing downstream
INDEX_FILES = {
    "bm25": ("settings.json", "ids.arrow", "vocab.arrow", "params.index.json", "vocab.index.json",
             "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"),
    "dense": ("settings.json", "ids.arrow", "index.faiss"),
}


def store(collection: str = "{collection}") -> str:
    """A collection's passage store (irdata.passage_store), which its indexes and every later stage read."""
    return f"{WORK}/store/{collection}/passages.arrow"


def index_dir(collection: str, kind: str) -> str:
    """The folder of a collection's index of one kind (bm25 or dense)."""
    return f"{WORK}/index/{collection}/{kind}"


def index_files(folder: str, kind: str) -> list[str]:
    """The files an index of `kind` in `folder` is made of."""
    return [f"{folder}/{name}" for name in INDEX_FILES[kind]]


def encoded_passages(collection: str = "{collection}", shard: str = "{shard}", ext: str = "npy") -> str:
    """One encoding job's passage vectors (`npy`) or their record (`json`), which the dense index merges."""
    return f"{WORK}/index/{collection}/encoded/{shard}.{ext}"


# -- a Doubting build -------------------------------------------------------------------------------------------------

# a build's files by name, relative to its folder (its per-shard files: SHARD_FILES)
BUILD_FILES = {
    # the input check's record and the inputs as it checked them: what every later stage reads instead of the raw
    # files (each source's input check: irdata/sources/)
    "inputs_report": "inputs.json",
    "inputs_checked": "inputs/checked.json",
    "train_qrels": "inputs/train.qrels",
    "dev_qrels": "inputs/dev.qrels",
    "dev_answers": "inputs/dev_answers.jsonl",
    "heldout_queries": "inputs/heldout.queries.tsv",
    "train_queries": "inputs/train.queries.tsv",  # where a source's input check writes them (BEIR, ir_datasets)
    "dev_queries": "inputs/dev.queries.tsv",
    "acquisition_batches": "inputs/acquisition_batches.json",
    # the dedup's ids and its report (irdata/dedup.py)
    "train_collection": "ids/train_collection.txt",
    "train_excluded": "ids/train_excluded.tsv",
    "dev_all": "ids/dev_all.txt",
    "dedup_report": "dedup.json",
    "llm_identity": "llm_identity.json",
    # the label audit (irdata/annotate/audit.py, irdata/doubting/audit_ranking.py); its runs: audit_run
    "audit_grades": "audit/grades.parquet",
    "audit": "audit/audit.json",
    "audit_stats": "stats/audit_labels/audit.json",
    "audit_ranking": "audit/ranking.json",
    # the blinded human audit (irdata/doubting/human_audit.py)
    "human_audit_sheet": "human_audit/sheet.csv",
    "human_audit_label_studio": "human_audit/sheet.labelstudio.json",
    "human_audit_key": "human_audit/key.json",
    "human_audit": "human_audit/results.json",
    # the release: assembled, gated, staged and published (rules/package.smk)
    "assembled": "assembled",
    "bm25_dev_run": "bm25_dev.trec",
    "failures": "failures.json",
    "staged": "release",
    "published": "published.json",
}


def build_dir(build: str = "{build}") -> str:
    """A Doubting build's folder of intermediate files."""
    return f"{WORK}/doubting/{build}"


def build_file(name: str, build: str = "{build}") -> str:
    """A build's file (or folder) by its name in BUILD_FILES."""
    return f"{build_dir(build)}/{BUILD_FILES[name]}"


def build_files(names, build: str = "{build}") -> dict[str, str]:
    """Several of a build's files, by name: a rule's named inputs or outputs."""
    return {name: build_file(name, build) for name in names}


def audit_run(run: str, build: str = "{build}") -> str:
    """One of the label audit's own runs over the judged audit queries (irdata/doubting/audit_ranking.py)."""
    return f"{build_dir(build)}/audit/runs/{run}.trec"


def shard_path(kind: str, split: str = "{split}", shard="{shard}", rule: str | None = None,
               build: str = "{build}") -> str:
    """One shard's file of a kind (SHARD_FILES) in a build's folder; `shard` a number or the name `NNNN`."""
    return _shard_file(build_dir(build), kind, split, shard, rule)


def shard_paths(build: str, kind: str, split: str, shards: int, rule: str | None = None) -> list[str]:
    """Every shard's file of one kind of a build, in shard order."""
    return [shard_path(kind, split, i, rule, build) for i in range(shards)]


def llm_retry_state(rule: str, split: str, shard: str = "{shard}", build: str = "{build}") -> str:
    """Where a per-shard LLM job records whether its last run left retryable failures (not an output: its `retry`
    param reads it, irdata/annotate/retry.py)."""
    return shard_path("retry", split, shard, rule, build)


def audit_retry_state(build: str = "{build}") -> str:
    """The label audit's retry state: one job per build."""
    return f"{build_dir(build)}/retry/audit_labels.json"


def release_ledger(build: str) -> str:
    """A build's release ledger unless its config names one (doubting.release_ledger): outside every output."""
    return f"{WORK}/doubting/{build}-release-ledger.json"


def package_dir(build: str) -> str:
    """Where a build's release is published unless its config names another folder (doubting.package_dir)."""
    return f"{RESULTS}/{build}"


# -- a Doubting build's downstream comparison (irdata/downstream/) -----------------------------------------------------

def downstream_dir(build: str = "{build}") -> str:
    return f"{build_dir(build)}/downstream"


def downstream_file(name: str, build: str = "{build}") -> str:
    """The comparison's result (`downstream.json`, MANIFEST.json's `downstream`) or its training set (`training.jsonl`
    with its report `training.json`)."""
    return f"{downstream_dir(build)}/{name}"


def downstream_models(build: str = "{build}") -> str:
    """The folder of the trained models: `<base>/<arm>/` each (not in the release)."""
    return f"{downstream_dir(build)}/models"


def downstream_model_dir(base: str = "{dsbase}", arm: str = "{dsarm}", build: str = "{build}") -> str:
    """The folder the downstream_train job of (base, arm) writes its model to."""
    return f"{downstream_models(build)}/{base}/{arm}"


def downstream_beir(collection: str = "{dscoll}", name: str = "passages.arrow", build: str = "{build}") -> str:
    """A BEIR evaluation set's files as downstream_beir_inputs writes them: its passage store, its judged queries and
    qrels, and its input report."""
    return f"{downstream_dir(build)}/beir/{collection}/{name}"


def downstream_encoded(base: str = "{dsbase}", model: str = "{dsmodel}", collection: str = "{dscoll}",
                       shard="{shard}", ext: str = "npy", build: str = "{build}") -> str:
    """A model's encoded shard of a collection (`npy`: the vectors, `json`: their record)."""
    name = f"{shard:04d}" if isinstance(shard, int) else shard
    return f"{downstream_dir(build)}/encoded/{base}/{model}/{collection}/{name}.{ext}"


def downstream_evaluation(base: str = "{dsbase}", model: str = "{dsmodel}", collection: str = "{dscoll}",
                          build: str = "{build}") -> str:
    """A model's per-query scores on a collection."""
    return f"{downstream_dir(build)}/eval/{base}/{model}/{collection}.json"


# -- the 44b Eval -----------------------------------------------------------------------------------------------------

EVAL44B = f"{WORK}/eval44b"
# its files by name, relative to its folder
EVAL44B_FILES = {
    "collection": "papers.tsv",  # the papers as a collection (written from the raw papers file): papers44b's source
    "papers": "papers.jsonl",
    "reviews": "reviews.jsonl",
    "split": "split.json",
    "queries_report": "queries/report.json",
    "staged": "release",
    "published": "published.json",
}


# where the 44b Eval is published and its release ledger, unless its config names others: the defaults of
# schemas/eval44b.schema.yaml (`release`, `release_ledger`; a schema cannot import them: tests/unit/test_layout.py)
EVAL44B_PACKAGE_DIR = f"{RESULTS}/44b-eval"
EVAL44B_RELEASE_LEDGER = f"{WORK}/eval44b-release-ledger.json"


def eval44b_file(name: str) -> str:
    """A file (or folder) of the 44b Eval by its name in EVAL44B_FILES."""
    return f"{EVAL44B}/{EVAL44B_FILES[name]}"


def eval44b_queries(split: str = "{e44split}") -> str:
    return f"{EVAL44B}/queries/{split}.jsonl"


def eval44b_mined(split: str = "{e44split}", report: bool = False) -> str:
    """A split's mined negatives, or (`report`) the miners' report of them."""
    return f"{EVAL44B}/mined/{split}.{'report.json' if report else 'jsonl'}"


def eval44b_miner_index(kind: str) -> str:
    """The folder of a miner's own index (rule index_44b_miner_<kind>), for a miner with settings of its own."""
    return f"{EVAL44B}/miners/{kind}"


def eval44b_model_dir(kind: str) -> str:
    """The folder a fine-tune of `kind` writes its model to (the fine-tuned arm's `model` setting)."""
    return f"{EVAL44B}/models/{kind}"


def eval44b_arm(arm: str = "{e44arm}") -> str:
    """An arm's scores of the test queries."""
    return f"{EVAL44B}/arms/{arm}.json"


def eval44b_retry_state(arm: str = "{e44arm}") -> str:
    """Where the LLM arm records whether its last run left retryable failures (irdata/annotate/retry.py)."""
    return f"{EVAL44B}/retry/score_arms/{arm}.json"


def training_report(model_dir: str) -> str:
    """A trained model's report, beside its folder (both families' fine-tunes: irdata/training/)."""
    return f"{model_dir}.train.json"


# -- the report -------------------------------------------------------------------------------------------------------

REPORT = f"{WORK}/report"


def doubting_report(name: str, build: str = "{build}") -> str:
    """A figure or table of a build's section of the report (`name`: its file name)."""
    return f"{REPORT}/doubting/{build}/{name}"


def eval44b_report(name: str) -> str:
    return f"{REPORT}/eval44b/{name}"


def patterns() -> list[str]:
    """Every file and folder pattern of the layout, with its wildcards: what the README, docs/ and the cards may
    print (tests/unit/test_layout.py)."""
    build = [build_file(name) for name in BUILD_FILES]
    build += [audit_run("{run}"), llm_retry_state("{rule}", "{split}"), audit_retry_state()]
    build += [shard_path(kind, rule="{rule}") for kind in SHARD_FILES]
    collections = [store(), *(f for kind in INDEX_FILES for f in index_files(index_dir("{collection}", kind), kind)),
                   encoded_passages(ext="npy"), encoded_passages(ext="json")]
    downstream = [downstream_file(name) for name in ("downstream.json", "training.jsonl", "training.json")]
    downstream += [downstream_model_dir(), training_report(downstream_model_dir()), downstream_evaluation(),
                   *(downstream_beir(name=name) for name in ("passages.arrow", "queries.tsv", "qrels.trec",
                                                             "inputs.json")),
                   *(downstream_encoded(ext=ext) for ext in ("npy", "json"))]
    eval44b = [eval44b_file(name) for name in EVAL44B_FILES]
    eval44b += [eval44b_queries(), eval44b_mined(), eval44b_mined(report=True), eval44b_miner_index("{kind}"),
                eval44b_model_dir("{kind}"), training_report(eval44b_model_dir("{kind}")), eval44b_arm(),
                eval44b_retry_state()]
    report = [doubting_report("{name}"), eval44b_report("{name}")]
    defaults = [release_ledger("{build}"), package_dir("{build}"), EVAL44B_PACKAGE_DIR, EVAL44B_RELEASE_LEDGER,
                LLM_JOURNALS, logs("{rule}/{job}"), benchmarks("{rule}/{job}")]
    return [*collections, *build, *downstream, *eval44b, *report, *defaults]
