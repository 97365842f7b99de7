"""What rules/eval44b.smk wires: the staged release's files, the miners' indexes, the fine-tuned models' files and
the per-split files. Plain functions of the config, so that the rules only name them."""

from __future__ import annotations

from ..doubting.release_code import ReleaseCode, release_code
from ..layout import (
    PAPERS44B,
    eval44b_file,
    eval44b_mined,
    eval44b_miner_index,
    eval44b_model_dir,
    eval44b_queries,
    index_dir,
    index_files,
)
from ..layout import (
    training_report as _training_report,
)
from ..training.models import MODEL_FILES
from .release_files import RELEASE_FILES
from .stages import ARM_PROMPT, FINETUNED_ARMS, miner_has_own_index

# the release's code (irdata/doubting/release_code.py): the rule scripts of the 44b Eval build, with the papers44b
# collection's store and indexes, and the modules they import (the Doubting scripts are not: editing them changes
# nothing here; every script rules/eval44b.smk names is here: tests/unit/test_release_scripts.py); its other files,
# relative to the workflow folder (the config is recorded in manifest.json's `config`)
CODE = ReleaseCode(
    scripts=("split_papers", "select_queries", "papers_store", "index_bm25", "encode_passages", "index_dense",
             "index_44b_miner", "mine_negatives", "fine_tune_44b", "score_arms", "package_44b", "publish_44b"),
    patterns=("Snakefile", "rules/common.smk", "rules/retrieval.smk", "rules/eval44b.smk", "envs/core.yaml",
              "envs/eval44b.yaml", "envs/llm.yaml", "envs/retrieval.yaml", "schemas/*.yaml", "requirements*.txt"),
    exclude=("schemas/doubting.schema.yaml",))


def staged_release() -> dict[str, str]:
    """The release as package_44b stages it, by output name."""
    return {name: f"{eval44b_file('staged')}/{file}" for name, file in RELEASE_FILES.items()}


def miner_own_index_files(kind: str) -> list[str]:
    """The files of a miner's own index (rule index_44b_miner_<kind>)."""
    return index_files(eval44b_miner_index(kind), kind)


def miner_index_dir(config: dict, kind: str) -> str:
    """The index a miner searches: the shared papers44b one when its settings are the retrieval section's,
    else its own."""
    return eval44b_miner_index(kind) if miner_has_own_index(config, kind) else index_dir(PAPERS44B, kind)


def miner_index_files(config: dict, kind: str) -> list[str]:
    return index_files(miner_index_dir(config, kind), kind)


def model_files(kind: str) -> list[str]:
    """The files a fine-tune of `kind` writes (irdata.layout.eval44b_model_dir)."""
    return [f"{eval44b_model_dir(kind)}/{name}" for name in MODEL_FILES[kind]]


def training_report(kind: str) -> str:
    return _training_report(eval44b_model_dir(kind))


def arm_model_inputs(arm: str) -> dict:
    """A fine-tuned arm's inputs: its model's files and its training report; nothing for another arm."""
    kind = FINETUNED_ARMS.get(arm)
    return {"model": model_files(kind), "training": training_report(kind)} if kind else {}


def query_files(splits) -> dict[str, str]:
    """select_queries' query file of each split, by split."""
    return {split: eval44b_queries(split) for split in splits}


def mined_files(splits) -> dict[str, str]:
    """mine_negatives' rows and report of each split, as package_44b's inputs `mined_<split>`, `report_<split>`."""
    return {**{f"mined_{split}": eval44b_mined(split) for split in splits},
            **{f"report_{split}": eval44b_mined(split, report=True) for split in splits}}


def code_record(root, config: dict) -> dict:
    """manifest.json's `code`: what the release's code means (irdata.doubting.release_code, relative to the workflow
    folder `root`), with the LLM arm's prompt when it runs; its version is frozen with it, as a Doubting build's."""
    prompts = [ARM_PROMPT] if config["eval44b"]["scoring"]["llm"]["enabled"] else []
    return release_code(root, prompts, CODE)
