"""A trained model on disk: the files sentence-transformers saves for each kind (the training rules' declared
outputs), written atomically with no model card (it would carry dates), and where a job's checkpoints live."""

from __future__ import annotations

from ..atomic import atomic_dir, write_json_atomic

_COMMON_FILES = [
    "config.json",
    "config_sentence_transformers.json",
    "model.safetensors",
    "modules.json",
    "sentence_bert_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
]
# what sentence-transformers 6.2 saves for each kind, declared as the rule's outputs
MODEL_FILES = {
    "cross_encoder": _COMMON_FILES,
    "bi_encoder": [*_COMMON_FILES, "1_Pooling/config.json", "2_Normalize/config.json"],
}


def save_model(model, kind: str, out_dir) -> None:
    """Save the model's files into out_dir (atomically), refusing a layout other than MODEL_FILES[kind]."""
    with atomic_dir(out_dir) as tmp:
        model.save(str(tmp), create_model_card=False)
        written = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
        if written != sorted(MODEL_FILES[kind]):
            raise RuntimeError(
                f"sentence-transformers saved {written}, expected {sorted(MODEL_FILES[kind])}: update MODEL_FILES"
            )


def save_trained(model, kind: str, report: dict, record_timing: bool, out_dir, out_report) -> dict:
    """Save a trained model and its report (with the model's sha256 and files); return the report."""
    from ..retrieval.dense import model_fingerprint

    if not record_timing:
        report["train_seconds"] = None  # a wall time would make the report differ from run to run
    save_model(model, kind, out_dir)
    report["model_sha256"] = model_fingerprint(str(out_dir))
    report["files"] = MODEL_FILES[kind]
    write_json_atomic(out_report, report)
    return report


def checkpoint_folder(model_dir) -> str:
    """Where a training job's checkpoints live: beside its model folder under work/, not one of its outputs (so
    Snakemake keeps them when it removes a killed job's outputs)."""
    return f"{str(model_dir).rstrip('/')}.checkpoints"
