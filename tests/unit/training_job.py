"""A training job the resume tests run in a subprocess (and kill):

    python tests/unit/training_job.py KIND TINY_MODEL OUT_DIR SETTINGS_JSON

KIND downstream trains the release arm of tests/unit/test_downstream.py's data for a fixed number of steps;
cross_encoder / bi_encoder fine-tune on tests/unit/test_eval44b_finetune.py's data with val-based selection.
Checkpoints go to OUT_DIR/model.checkpoints; the model to OUT_DIR/model, the report to OUT_DIR/report.json."""

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "workflow_scripts"), str(REPO / "tests")]


def main(kind: str, tiny: str, out: Path, settings: dict) -> dict:
    from irdata.atomic import write_json_atomic
    from irdata.training.models import checkpoint_folder, save_model
    from irdata.training.trainer import remove_checkpoints

    checkpoints = checkpoint_folder(out / "model")
    if kind == "downstream":
        from irdata.downstream.training import train_arm
        from unit.test_downstream import PASSAGES, SETTINGS, TRAIN, rows

        model, report = train_arm("release", rows(False), TRAIN, PASSAGES,
                                  {**SETTINGS, "base_model": tiny, **settings}, checkpoints)
        model_kind = "bi_encoder"
    else:
        from irdata.eval44b.finetune import fine_tune, training_examples
        from unit.test_eval44b_finetune import COLLECTION, QUERIES, ROWS, SCORE, SETTINGS

        val = {"rows": ROWS[:6], "queries": QUERIES, "collection": COLLECTION, "settings": SCORE}
        model, report = fine_tune(kind, training_examples(ROWS, QUERIES, COLLECTION, 600, 900), val,
                                  {**SETTINGS, "base_model": tiny, **settings}, checkpoints)
        model_kind = kind
    save_model(model, model_kind, out / "model")
    remove_checkpoints(checkpoints)
    report["train_seconds"] = None
    write_json_atomic(out / "report.json", report)
    return report


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), json.loads(sys.argv[4]))
