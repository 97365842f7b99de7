"""The demo's identity does not carry into a build of other data.

config.yaml is the demo, and every other config is an overlay on it (Snakemake always reads config.yaml
first). A Doubting build of another name names its release from its name (irdata/builds.py); but a build that
config.yaml declares (the demo) given other input files by an overlay builds another release, so the keys that
name a release (its version, repository id, the card's corpus and license wording, the batch names) must come
from the user's overlay or `--config`, not from config.yaml, which holds the demo's. So must the 44b section's,
whose schema defaults are the benchmark's. Checked with the config, before anything is planned; the keys to set
are in README.md, "Your own data and server".
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from .builds import build_doubting, declared_builds, name_defaults
from .config_mistakes import ConfigError, has_path
from .sources.msmarco import RAW_FILE_KEYS
from .sources.registry import source_of

# per section: (its input files: for a build, the demo's source's, whose other_data says which a build changed; the
# keys that name its release)
OWN_IDENTITY = {
    "doubting": (RAW_FILE_KEYS,
                 ("version", "repo_id", "corpus_description", "license_note", "acquisition_batches.train.default",
                  "acquisition_batches.dev.default")),
    "eval44b": (("papers", "reviews"), ("version", "repo_id", "ids_refer_to", "corpus_description", "license_note")),
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


def _sections(config: dict, demo: dict):
    """(key path of a section, ours, the demo's, its identity keys, its input keys): each build config.yaml
    declares too, and the 44b section."""
    inputs, identity = OWN_IDENTITY["doubting"]
    demo_builds = demo.get("builds") or {}
    for name, over in declared_builds(config).items():
        if demo_builds.get(name) is not None:
            yield (["builds", name], build_doubting(config, name, over),
                   build_doubting(demo, name, demo_builds[name]), identity, inputs)
    yield ["eval44b"], config.get("eval44b") or {}, demo.get("eval44b") or {}, *reversed(OWN_IDENTITY["eval44b"])


def check_own_identity(config: dict, demo_config_file, config_files=(), overrides=None, schema_dir=None) -> None:
    """Raise ConfigError naming every identity key a section with other inputs than the demo's leaves at the
    demo's value (set in `demo_config_file`, its name's default or a schema default, not in another of
    `config_files` nor in `overrides`); `schema_dir` shows a schema default's value."""
    from snakemake.utils import validate

    demo_file = Path(demo_config_file).resolve()
    basedir = demo_file.parent
    demo = _load(demo_file)
    own = [_load(f) for f in config_files if Path(f).resolve() != demo_file] + [dict(overrides or {})]
    lines, moved = [], []
    for where_parts, ours, theirs, identity, inputs in _sections(config, demo):
        section = ".".join(where_parts)
        same = lambda a, b: _same_file(a, b, basedir)  # noqa: E731
        changed = (source_of(ours).other_data(ours, theirs, same) if where_parts[0] == "builds"
                   else [k for k in inputs if k in ours and not same(ours[k], theirs.get(k, ""))])
        if not changed:
            continue
        moved += [f"{section}.{k}" for k in changed]
        filled = copy.deepcopy(ours)
        if schema_dir is not None:
            validate(filled, str(Path(schema_dir) / f"{where_parts[0] if len(where_parts) == 1 else 'doubting'}"
                                                    ".schema.yaml"))
        named = name_defaults(where_parts[1]) if len(where_parts) == 2 else {}
        for key in identity:
            parts = key.split(".")
            # set by the user's own files: for a build, in its mapping or in the shared defaults
            shared = ["doubting", *parts] if len(where_parts) == 2 else None
            if any(has_path(data, [*where_parts, *parts]) or (shared and has_path(data, shared)) for data in own):
                continue
            where = ("config.yaml" if has_path(demo, [*where_parts, *parts])
                     else "its name's default" if has_path(named, parts) else "the schema's default")
            value = repr(_get(filled, parts)) if has_path(filled, parts) else "unset"
            lines.append(f"  {section}.{key}: {value if len(value) <= 40 else value[:36] + '...'} ({where})")
    if lines:
        raise ConfigError(
            f"These inputs are not the demo's ({', '.join(moved)}), but these keys still hold the demo's values, "
            "which would name the release as the demo; set them in your overlay, or declare a build of your own "
            "name (README.md, 'Your own data and server'):\n" + "\n".join(lines))
