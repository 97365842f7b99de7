"""The config against its schemas, each mistake in a line (irdata/config_mistakes.py): its key, what was expected, a
close match.

Snakemake's own `validate` prints the whole schema of the section and the whole config (hundreds of lines for
an unknown key). The workflow checks the config against the same schemas first, without filling defaults,
and turns the first error of each key into one line; only a config that passes reaches `validate`, which
then fills the defaults. Each named build is checked as it is merged (irdata/builds.py).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import yaml

from .builds import SHARED_SECTIONS, BuildError, build_config, declared_builds
from .config_mistakes import config_mistakes, has_path, shown

# the config's sections, each with its own schema file (schemas/<section>.schema.yaml)
CONFIG_SECTIONS = ("doubting", "annotation", "llm", "retrieval", "eval44b")


def _schema(schema_dir: Path, name: str) -> dict:
    # libyaml's loader where PyYAML has it: the schemas are read on every planning
    with open(schema_dir / f"{name}.schema.yaml", encoding="utf-8") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _describe(error) -> tuple[list, str]:
    """(key path, problem) of one jsonschema error, in a line."""
    parts = list(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        key = unknown[0]
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        hint = f"did you mean `{close[0]}`?" if close else f"the keys here are: {', '.join(allowed)}"
        return [*parts, key], f"unknown key; {hint}"
    if error.validator == "required":
        return parts, error.message.replace("is a required property", "is required here")
    if error.validator == "enum":
        return parts, f"{error.instance!r} is not one of {', '.join(map(repr, error.validator_value))}"
    if error.validator in ("oneOf", "anyOf") and error.context:
        best = min(error.context, key=lambda e: len(e.absolute_path))
        return parts, best.message
    return parts, error.message


def config_errors(config: dict, schema_dir) -> list[tuple[list, str]]:
    """(key path, problem) of each key that does not match its schema: the top level's, or, when it is right,
    each section's. Empty when the config is valid."""
    schema_dir = Path(schema_dir)
    checks = [((), _schema(schema_dir, "config"), config)]
    # `doubting` holds the builds' shared defaults: each build is checked, merged (irdata/builds.py)
    checks += [((s,), _schema(schema_dir, s), config[s]) for s in CONFIG_SECTIONS
               if s != "doubting" and isinstance(config.get(s), dict)]
    found = _errors(checks, stop_at_first_section=True)
    if found:  # a section's own errors come only after the top level is right
        return found
    try:
        builds = declared_builds(config)
    except BuildError as error:
        return [(error.parts, error.problem)]
    for name, over in builds.items():
        built = build_config(config, name, over)
        checks = [(("builds", name), _schema(schema_dir, "doubting"), built["doubting"])]
        checks += [(("builds", name, s), _schema(schema_dir, s), built[s]) for s in SHARED_SECTIONS if s in over]
        # a shared default's mistake is one, whatever the number of builds
        found += [e for e in ((build_key_path(config, parts), problem) for parts, problem in _errors(checks))
                  if e not in found]
    return found


def build_key_path(config: dict, parts: list) -> list:
    """A build's key path (`builds.<name>.<key>`) as the config sets it: a key the build leaves to the shared
    settings is `doubting`'s, or the shared section's for `annotation` and `retrieval` keys."""
    rest = parts[2:]
    shared = rest if rest and rest[0] in SHARED_SECTIONS else ["doubting", *rest]
    if has_path(config, parts) or not has_path(config, shared):
        return parts
    return shared


def _errors(checks, stop_at_first_section=False) -> list[tuple[list, str]]:
    from jsonschema import Draft202012Validator

    found = []
    for prefix, schema, data in checks:
        validator = Draft202012Validator(schema)
        for error in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
            parts, problem = _describe(error)
            found.append(([*prefix, *parts], problem))
        if found and stop_at_first_section:
            break
    return found


def yaml_mistake(path) -> str | None:
    """What makes the YAML file `path` unreadable, naming its file, line and column; None when it reads."""
    try:
        with open(path, encoding="utf-8") as fh:
            yaml.safe_load(fh)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{shown(path)}, line {mark.line + 1}, column {mark.column + 1}" if mark else shown(path)
        tabs = "; indent with spaces: YAML takes no tabs" if "'\\t'" in str(error.problem) else ""
        return f"{where}: not valid YAML: {error.problem or error.context}{tabs}"
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        return f"{shown(path)}: not valid YAML: {error}"
    return None


def check_config(config: dict, schema_dir, config_files=(), overrides=None) -> None:
    """Raise ConfigError naming, for each mistake, the file (`config_files` in precedence order, or `--config`
    for `overrides`) that set it, the key path and the problem; nothing when the config matches the schemas."""
    found = config_errors(config, schema_dir)
    if found:
        raise config_mistakes(found, config_files, overrides)
