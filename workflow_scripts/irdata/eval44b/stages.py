"""What the 44b Eval rules read (irdata/stage.py): the split, the queries, the miners and their own
indexes, the fine-tunes, the scored arms, the package and its publication.

rules/eval44b.smk only wires these; the merged miner settings (`mining_retrieval`) and each key
subset are spelled once here or in the retrieval layer (irdata/retrieval/stages.py, search.py).
"""

from __future__ import annotations

from ..annotate.common import llm_params
from ..layout import eval44b_model_dir, eval44b_retry_state
from ..retrieval.stages import dense_index_settings, encode_settings, search_settings
from ..stage import Stage, canonical

FINETUNE_KINDS = ("cross_encoder", "bi_encoder")
# the fine-tuned arms and the kind of model each scores with
FINETUNED_ARMS = {"finetuned_cross_encoder": "cross_encoder", "finetuned_bi_encoder": "bi_encoder"}
ARM_PROMPT = "prompts/grade_44b_pair.txt"
SPLIT_KEYS = ("format", "salt", "key_format", "split")
# the eval44b keys that say what the release is (its card and croissant.json), not how it is built
CARD_KEYS = ("repo_id", "on_hub", "ids_refer_to", "corpus_description", "license", "license_note", "citation")
ARM_COMMON_KEYS = ("query_chars", "document_chars", "seed", "record_timing")
# the config key that sets the release's version (irdata/frozen.py names it in its messages)
VERSION_KEY = "eval44b.version"


def card_settings(e44: dict) -> dict:
    """What the card and croissant.json say the release is (CARD_KEYS), and its folder, from which a card
    not on the Hub loads the build."""
    return {**{key: e44[key] for key in CARD_KEYS}, "folder": e44["release"]}


def arms(config: dict) -> list[str]:
    """The scored arms: retrieval and fine-tuned arms, then cross-encoders, then the LLM."""
    scoring = config["eval44b"]["scoring"]
    return (list(scoring["arms"]) + [f"cross_encoder-{spec['name']}" for spec in scoring["cross_encoders"]]
            + (["llm"] if scoring["llm"]["enabled"] else []))


def mining_retrieval(config: dict) -> dict:
    """The retrieval section as the miners search it: eval44b.mining.bm25 / .dense over its settings
    (by default the same BM25 and dense model as the arms score with; the card mined with other ones)."""
    retrieval, mining = config["retrieval"], config["eval44b"]["mining"]
    return {**retrieval, "bm25": {**retrieval["bm25"], **mining["bm25"]},
            "dense": {**retrieval["dense"], **mining["dense"]}}


def miner_has_own_index(config: dict, kind: str) -> bool:
    """A miner whose settings are the retrieval section's searches the shared papers44b index; one with
    its own settings gets an index of its own (rule index_44b_miner_<kind>)."""
    return mining_retrieval(config)[kind] != config["retrieval"][kind]


def miner_index_settings(config: dict, kind: str) -> dict:
    """What a miner's own index is built from: the retrieval layer's key subsets of its settings."""
    merged = mining_retrieval(config)[kind]
    return merged if kind == "bm25" else {**encode_settings(merged), **dense_index_settings(merged)}


def scoring_settings(config: dict) -> dict:
    """eval44b.scoring as the package records it: its keys but the arm list, the negatives per query and
    the retrieval settings the arms score with."""
    e44, retrieval = config["eval44b"], config["retrieval"]
    return {**{k: v for k, v in e44["scoring"].items() if k != "arms"},
            "negatives": e44["mining"]["negatives"],
            "retrieval": {"bm25": retrieval["bm25"], "dense": retrieval["dense"]}, "rrf_k": retrieval["rrf_k"]}


def arm_common(config: dict) -> dict:
    """What every arm and fine-tune reads of the scoring: truncation, seed, candidates, timing."""
    scoring = config["eval44b"]["scoring"]
    return {**{k: scoring[k] for k in ARM_COMMON_KEYS}, "negatives": config["eval44b"]["mining"]["negatives"]}


def finetune_settings(config: dict, kind: str) -> dict:
    """What a fine-tune reads: the keys shared by both kinds and its kind's own section."""
    finetune = config["eval44b"]["finetune"]
    return {**{k: v for k, v in finetune.items() if k not in FINETUNE_KINDS}, **finetune[kind]}


def _arm_own(config: dict, arm: str) -> dict:
    """An arm's kind (arms.ARMS) and its models' settings, so changing one arm's settings reruns only it."""
    retrieval, e44 = config["retrieval"], config["eval44b"]
    finetune = e44["finetune"]
    if arm == "random":
        return {"kind": "random"}
    if arm in ("bm25", "dense"):
        return {"kind": arm, arm: retrieval[arm]}
    if arm == "hybrid_rrf":
        return {"kind": arm, "bm25": retrieval["bm25"], "dense": retrieval["dense"], "rrf_k": retrieval["rrf_k"]}
    if arm == "finetuned_cross_encoder":
        return {"kind": "cross_encoder", "cross_encoder": {
            "model": eval44b_model_dir("cross_encoder"), "max_length": finetune["cross_encoder"]["max_length"],
            "batch_size": finetune["batch_size"]}}
    if arm == "finetuned_bi_encoder":
        return {"kind": "dense", "dense": {
            **retrieval["dense"], "model": eval44b_model_dir("bi_encoder"),
            "max_seq_length": finetune["bi_encoder"]["max_length"], "batch_size": finetune["batch_size"]}}
    if arm == "llm":
        # the LLM settings that change answers; the arm reads only the connection settings from the config
        return {"kind": "llm", "llm": e44["scoring"]["llm"], "llm_answer": llm_params(config["llm"], "arm44b"),
                "prompt": ARM_PROMPT}
    for spec in e44["scoring"]["cross_encoders"]:
        if arm == f"cross_encoder-{spec['name']}":
            return {"kind": "cross_encoder", "cross_encoder": spec}
    raise KeyError(f"unknown 44b arm {arm!r}; the config's arms are {arms(config)}")


def arm_settings(config: dict, arm: str) -> dict:
    return {**arm_common(config), **_arm_own(config, arm)}


def config_used(config: dict) -> dict:
    """The config the release depends on, as its manifest records it and its release ledger freezes its version
    with: the eval44b section, the retrieval settings its indexes are built from, its miners search with and its
    arms score with, and, with the LLM arm, the LLM settings that change the arm's answers. Not the failure
    limit and its override, which decide whether to publish, not what (package_44b refuses a version recorded
    with other content)."""
    e44 = config["eval44b"]
    return {"eval44b": e44, "retrieval": config["retrieval"],
            "llm": llm_params(config["llm"], "arm44b") if e44["scoring"]["llm"]["enabled"] else None}


def package_settings(config: dict) -> dict:
    """What the package reads; `release`: what the card and croissant.json say the release is (its ids, repository
    id, license, citation); `llm_gate`: the LLM arm's grades are held to the Doubting grades' limit (the
    same unit, pairs without a grade), with the same override (eval44b/package.py); `version`, `ledger` and
    `config`: the version the release is built under, the ledger that freezes it and what it is frozen with."""
    e44, mining = config["eval44b"], mining_retrieval(config)
    return {"version": e44["version"], "version_key": VERSION_KEY, "ledger": e44["release_ledger"],
            "config": config_used(config), "split": e44["split"], "unresolvable_schemes": e44["unresolvable_schemes"],
            "mining_recipe": e44["mining"], "mining_search": {"bm25": mining["bm25"], "dense": mining["dense"]},
            "scoring": scoring_settings(config), "arms": {arm: arm_settings(config, arm) for arm in arms(config)},
            "llm_gate": {"limit": config["annotation"]["failure_limits"]["grade"],
                         "accept": config["accept_llm_failures"]},
            "release": card_settings(e44)}


def _miner_index_stage(kind: str) -> Stage:
    return Stage(name=f"index_44b_miner_{kind}",
                 settings=lambda config, **_: canonical(miner_index_settings(config, kind)))


def _fine_tune_stage(kind: str) -> Stage:
    return Stage(name=f"fine_tune_44b_{kind}", settings=lambda config, **_: canonical(
        {"finetune": finetune_settings(config, kind), "scoring": arm_common(config)}))


STAGES = (
    Stage(name="split_papers", settings=lambda config, **_: canonical({k: config["eval44b"][k] for k in SPLIT_KEYS})),
    Stage(name="select_queries", settings=lambda config, **_: {"min_chars": config["eval44b"]["min_query_chars"]}),
    *(_miner_index_stage(kind) for kind in ("bm25", "dense")),
    Stage(name="mine_negatives", settings=lambda config, **_: canonical({"mining": config["eval44b"]["mining"],
                                                  "search": search_settings(mining_retrieval(config))})),
    *(_fine_tune_stage(kind) for kind in FINETUNE_KINDS),
    # the LLM arm's `retry` param goes up after a run that left retryable failures, so a plain rerun retries
    # exactly its failed calls (irdata/annotate/retry.py); no other arm writes a retry state
    Stage(name="score_arms", retry_state=eval44b_retry_state(),
          settings=lambda config, e44arm, **_: canonical(arm_settings(config, e44arm)),
          prompts=lambda config, e44arm, **_: {"pair": ARM_PROMPT} if e44arm == "llm" else {}),
    Stage(name="package_44b", settings=lambda config, **_: canonical(package_settings(config))),
    Stage(name="publish_44b", settings=lambda config, **_: {"release": config["eval44b"]["release"],
                                                            "ledger": config["eval44b"]["release_ledger"],
                                                            "version_key": VERSION_KEY}),
)
