# Doubting MS MARCO, last stages: assemble the per-shard LLM stage outputs into the release configs
# (rule assemble), then build the release folder with its card, manifest and checksums (rule package).
# Formats of the per-shard files: workflow_scripts/irdata/doubting/intermediate.py.

from irdata.doubting.assemble import assembled_files as _assembled_files
from irdata.doubting.manifest import code_files as _code_files

DOUBTING_ASSEMBLED = f"{WORK}/doubting/assembled"
DOUBTING_BATCHES = DOUBTING["acquisition_batches"]


# per-shard parquet files of each LLM stage, aligned with shard_paths(split)
DOUBTING_STAGE_FILES = {
    (stage, split): [f"{WORK}/doubting/{stage}/{split}/{i:04d}.parquet" for i in range(DOUBTING["shards"][split])]
    for stage, split in [("agent", "train"), ("agent", "dev"), ("grades", "train"), ("grades", "dev"),
                         ("wood", "train"), ("answers", "train")]
}
# code, prompt, env and schema files whose sha256 MANIFEST.json records (irdata.doubting.manifest)
DOUBTING_CODE_FILES = _code_files(workflow.basedir)
# the config the release depends on, defaults filled in, as recorded in MANIFEST.json
DOUBTING_CONFIG_USED = {key: config[key] for key in ("queries", "doubting", "annotation", "llm", "retrieval")}
DOUBTING_BATCH_DESCRIPTIONS = {
    split: {DOUBTING_BATCHES[split]["default"]: DOUBTING_BATCHES[split].get("default_description", ""),
            **{b["name"]: b.get("description", "") for b in DOUBTING_BATCHES[split].get("batches", [])}}
    for split in ("train", "dev")
}


rule assemble:
    input:
        train_collection=DOUBTING_IDS["train_collection"],
        train_excluded=DOUBTING_IDS["train_excluded"],
        dev_all=DOUBTING_IDS["dev_all"],
        train_shards=train_shards(),
        dev_shards=dev_shards(),
        train_agent=DOUBTING_STAGE_FILES["agent", "train"],
        dev_agent=DOUBTING_STAGE_FILES["agent", "dev"],
        train_grades=DOUBTING_STAGE_FILES["grades", "train"],
        dev_grades=DOUBTING_STAGE_FILES["grades", "dev"],
        train_wood=DOUBTING_STAGE_FILES["wood", "train"],
        train_answers=DOUBTING_STAGE_FILES["answers", "train"],
        train_qrels=DOUBTING_CHECKED["train_qrels"],
        dev_qrels=DOUBTING_CHECKED["dev_qrels"],
        batch_files=[b["query_ids_file"] for s in ("train", "dev") for b in DOUBTING_BATCHES[s].get("batches", [])],
    output:
        [f"{DOUBTING_ASSEMBLED}/{rel}" for rel in _assembled_files()],
    params:
        code=code_hash("workflow_scripts/assemble.py", settings={"acquisition_batches": DOUBTING_BATCHES}),
        work=lambda wildcards, input: str(Path(input.train_collection).parent.parent),
        out_dir=lambda wildcards, output: str(Path(output[-1]).parent),
        acquisition_batches=DOUBTING_BATCHES,
    log:
        "logs/assemble.log",
    conda:
        "../envs/core.yaml"
    script:
        "../workflow_scripts/assemble.py"


rule package:
    input:
        assembled=rules.assemble.output,
        inputs_json=f"{WORK}/doubting/inputs.json",
        llm_identity=f"{WORK}/doubting/llm_identity.json",
    output:
        directory(DOUBTING["package_dir"]),
    params:
        code=code_hash("workflow_scripts/package.py", prompts=DOUBTING_CODE_FILES,
                       settings={"version": DOUBTING["version"], "repo_id": DOUBTING["repo_id"],
                                 "config": DOUBTING_CONFIG_USED}),
        assembled=lambda wildcards, input: str(Path(input.assembled[-1]).parent),
        version=DOUBTING["version"],
        repo_id=DOUBTING["repo_id"],
        config_used=DOUBTING_CONFIG_USED,
        code_files=DOUBTING_CODE_FILES,
        batch_descriptions=DOUBTING_BATCH_DESCRIPTIONS,
        ledger=DOUBTING["release_ledger"],
    log:
        "logs/package.log",
    conda:
        "../envs/core.yaml"
    script:
        "../workflow_scripts/package.py"
