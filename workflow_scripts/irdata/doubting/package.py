"""`package`: the release folder of Doubting MS MARCO from the assembled files.

Copies the assembled parquet configs, trec/ and ids/, the example scripts, renders README.md (the
dataset card, counts from the data), writes MANIFEST.json and SHA256SUMS; all in a temporary
folder beside the destination that is renamed onto it at the end. Before the rename the release
ledger is checked: a version already built with different content is refused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..atomic import atomic_dir
from ..errors import InputError
from . import card, manifest, select
from .assemble import DATA_FILES, ID_FILES, STATS, TREC_STRICT

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
EXAMPLES = ["load.py", "join_text.py", "evaluate.py"]


def _read_json(path) -> dict:
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg}", line=exc.lineno) from exc
    if not isinstance(value, dict):
        raise InputError(path, "expected a JSON object")
    return value


def selection_rules() -> str:
    doc = select.__doc__ or ""
    return " ".join(doc.split("\n\n", 1)[1].split()) if "\n\n" in doc else doc


def build_package(assembled_dir, out_dir, version: str, repo_id: str, inputs_json, identity_json, config: dict,
                  code_root, code_paths: list[str], batch_descriptions: dict, ledger) -> dict:
    """Build the package at `out_dir`; return the manifest. Raises ReleaseFrozenError per the ledger."""
    assembled_dir, out_dir = Path(assembled_dir), Path(out_dir)
    stats = _read_json(assembled_dir / STATS)
    inputs = _read_json(inputs_json)
    identity = _read_json(identity_json)
    with atomic_dir(out_dir) as tmp:
        for rel in [*DATA_FILES.values(), TREC_STRICT, *ID_FILES.values()]:
            src = assembled_dir / rel
            if not src.exists():
                raise InputError(src, "assembled file missing; rerun assemble")
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, tmp / rel)
        (tmp / "examples").mkdir()
        for name in EXAMPLES:
            shutil.copyfile(EXAMPLES_DIR / name, tmp / "examples" / name)
        (tmp / "README.md").write_text(card.render(stats, version, repo_id, identity, inputs, batch_descriptions,
                                                   config), encoding="utf-8", newline="\n")
        code = manifest.file_hashes(code_root, code_paths)
        man = manifest.build_manifest(stats, version, repo_id, inputs.get("files", inputs), identity, config, code,
                                      selection_rules())
        (tmp / manifest.MANIFEST).write_text(manifest.dumps(man), encoding="utf-8", newline="\n")
        sums = manifest.write_sha256sums(tmp)
        digest = manifest.content_hash(sums)
        # refused here, the temporary folder is removed and an existing release stays untouched
        is_new = manifest.check_ledger(ledger, version, digest)
    if is_new:
        manifest.record_ledger(ledger, version, digest, out_dir)
    return man
