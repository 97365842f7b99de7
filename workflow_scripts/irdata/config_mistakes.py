"""A config mistake in a few lines: which file set the key, its path, what is wrong.

Every check of the config reports in this form (the schemas: irdata/config_check.py; a build's name and modes:
irdata/builds.py, irdata/grading_modes.py; a downstream plan: irdata/downstream/plan.py): a ConfigError whose message
names, per mistake, the key path, the problem and the file (or `--config`) that set it.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .errors import StopError


class ConfigError(StopError, ValueError):
    """A config that does not match its schema: the message is the whole report."""


def _key_path(parts) -> str:
    return ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in parts).replace(".[", "[")


def has_path(data, parts) -> bool:
    for part in parts:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return False
    return True


def source_of(parts, config_files, overrides) -> str:
    """Where the value at `parts` was given: `--config`, or the last config file that sets it."""
    if overrides and has_path(overrides, parts):
        return "--config"
    for path in reversed(list(config_files)):
        try:
            with open(path, encoding="utf-8") as fh:
                data = yaml.safe_load(fh)
        except (OSError, yaml.YAMLError):
            continue
        if has_path(data, parts):
            return shown(path)
    return "the config"


def shown(path) -> str:
    """A config file as the user named it: relative to the working folder when it is inside."""
    path = Path(path).absolute()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def files_by_precedence(loaded, command_line) -> list:
    """Snakemake's config files, the one that wins last: the Snakefile's `configfile:` first, then each
    `--configfile` in the order given (Snakemake lists the command line's first)."""
    command_line = list(command_line)
    return [f for f in loaded if f not in command_line] + command_line


def config_mistakes(found, config_files=(), overrides=None) -> ConfigError:
    """The ConfigError that names, for each (key path, problem) of `found`, the key, the problem and the file
    (`config_files` in precedence order, or `--config` for `overrides`) that set it: a few lines, whichever check
    found the mistakes (the schemas here; the workflow's own names and modes where it plans)."""
    overrides = dict(overrides or {})
    lines = []
    for parts, problem in found:
        where = source_of(parts, config_files, overrides)
        lines.append(f"  {_key_path(parts) or '(top level)'}: {problem} (in {where})")
    noun = "mistake" if len(lines) == 1 else "mistakes"
    return ConfigError(f"Config {noun} (schemas/ say what each key takes; README 'Config reference'):\n"
                       + "\n".join(lines))
