"""The demo's identity does not carry into a build of other data.

config.yaml is the demo, and every other config is an overlay on it (Snakemake always reads config.yaml
first). A section whose input files are not the demo's builds another release, so the keys that name a release
(its version, repository id, the card's corpus and license wording, the batch names) must come from the
user's overlay or `--config`, not from config.yaml or the schemas' defaults, which are the demo's. Checked
with the config, before anything is planned; the keys to set are in README.md, "Your own data and server".
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from .config_check import ConfigError, has_path

# per section: (its input files, the keys that name its release)
OWN_IDENTITY = {
    "doubting": (("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels", "dev_answers"),
                 ("version", "repo_id", "corpus_description", "license_note", "acquisition_batches.train.default",
                  "acquisition_batches.dev.default")),
    "eval44b": (("papers", "reviews"), ("repo_id", "ids_refer_to", "corpus_description", "license_note")),
}


def _get(data, parts):
    for part in parts:
        data = data[part]
    return data


def _same_file(a, b, basedir) -> bool:
    return os.path.realpath(os.path.join(basedir, str(a))) == os.path.realpath(os.path.join(basedir, str(b)))


def _load(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


def check_own_identity(config: dict, demo_config_file, config_files=(), overrides=None, schema_dir=None) -> None:
    """Raise ConfigError naming every identity key a section with other inputs than the demo's leaves at the
    demo's value (set in `demo_config_file` or a schema default, not in another of `config_files` nor in
    `overrides`); `schema_dir` shows a schema default's value."""
    from snakemake.utils import validate

    demo_file = Path(demo_config_file).resolve()
    basedir = demo_file.parent
    demo = _load(demo_file)
    own = [_load(f) for f in config_files if Path(f).resolve() != demo_file] + [dict(overrides or {})]
    lines, moved = [], []
    for section, (inputs, identity) in OWN_IDENTITY.items():
        ours, theirs = config.get(section) or {}, demo.get(section) or {}
        changed = [k for k in inputs if k in ours and not _same_file(ours[k], theirs.get(k, ""), basedir)]
        # a BEIR folder is other data whatever the MS MARCO file keys still say (they are not read then)
        if (ours.get("source") or {}).get("format") == "beir":
            changed.append("source.folder")
        if not changed:
            continue
        moved += [f"{section}.{k}" for k in changed]
        filled = copy.deepcopy(ours)
        if schema_dir is not None:
            validate(filled, str(Path(schema_dir) / f"{section}.schema.yaml"))
        for key in identity:
            parts = [section, *key.split(".")]
            if any(has_path(data, parts) for data in own):
                continue
            where = "config.yaml" if has_path(demo, parts) else "the schema's default"
            value = repr(_get(filled, parts[1:])) if has_path(filled, parts[1:]) else "unset"
            lines.append(f"  {section}.{key}: {value if len(value) <= 40 else value[:36] + '...'} ({where})")
    if lines:
        raise ConfigError(
            f"These inputs are not the demo's ({', '.join(moved)}), but these keys still hold the demo's values, "
            "which would name the release as the demo; set them in your overlay (README.md, 'Your own data and "
            "server'):\n" + "\n".join(lines))
