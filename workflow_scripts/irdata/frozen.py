"""Frozen release versions at planning: which builds' versions the release ledger records with another config.

Asking is never refused: a dry-run, --summary, --list-changes or --report plans as usual and gets one line per
such build (frozen_notices); a real run stops before its first job, in Snakemake's onstart (frozen_stop), naming
the build, its version, the keys that differ and the command that sets a new version. stage_release still checks
the built content against the ledger (irdata/doubting/manifest.py check_ledger).
"""

from __future__ import annotations

from dataclasses import dataclass

from .doubting.manifest import planned_version_differences
from .doubting.release_code import planned_code_differences
from .doubting.stages import config_used
from .stage import canonical

SHOWN_KEYS = 3


@dataclass(frozen=True)
class FrozenBuild:
    name: str
    version: str
    ledger: str
    keys: tuple[str, ...]  # the config keys that differ from the recorded config (config_used's paths), and
    # `code: <file>` for each module or other code file whose meaning differs from the recorded code's

    @property
    def keys_shown(self) -> str:
        more = f" and {len(self.keys) - SHOWN_KEYS} more" if len(self.keys) > SHOWN_KEYS else ""
        return ", ".join(self.keys[:SHOWN_KEYS]) + more

    @property
    def new_version_command(self) -> str:
        """The --config that sets a new version of this build, as Snakemake parses it (YAML after `=`)."""
        return f"--config 'builds={{{self.name}: {{version: {next_version(self.version)}}}}}'"


def next_version(version: str) -> str:
    """A version after `version` to suggest: its last number plus one, or `-2` appended."""
    head = version.rstrip("0123456789")
    tail = version[len(head):]
    return f"{head}{int(tail) + 1}" if tail else f"{version}-2"


def frozen_builds(builds: dict[str, dict], code_root) -> list[FrozenBuild]:
    """The builds (name -> whole config, irdata/builds.py) whose version the ledger records with another config
    or other code (what MANIFEST.json's `code` records, irdata/doubting/release_code.py; `code_root`: the workflow
    folder)."""
    frozen = []
    for name, config in builds.items():
        doubting = config["doubting"]
        ledger, version = doubting["release_ledger"], doubting["version"]
        keys = [key for key, _, _ in planned_version_differences(ledger, version, canonical(config_used(config)))]
        keys += [f"code: {rel}" for rel in planned_code_differences(ledger, version, code_root)]
        if keys:
            frozen.append(FrozenBuild(name, version, ledger, tuple(keys)))
    return frozen


def frozen_notices(frozen: list[FrozenBuild]) -> list[str]:
    """One line per frozen build, for a planning that runs nothing."""
    return [f"build {b.name}: version {b.version} is frozen and {b.keys_shown} changed; a real run that builds it "
            f"would stop; set builds.{b.name}.version (e.g. {b.new_version_command}, or an overlay line)"
            for b in frozen]


def frozen_stop(frozen: list[FrozenBuild]) -> str:
    """Why a real run stops before its first job: per build its version, ledger, differing keys and the fix."""
    lines = ["Frozen release versions: this run would build other content under a published version."]
    for b in frozen:
        lines.append(f"  build {b.name}: version {b.version} (release ledger {b.ledger}) was built with other "
                     f"values of {b.keys_shown}.")
        lines.append(f"    Set a new version: add {b.new_version_command} to the command, or "
                     f"`builds: {{{b.name}: {{version: ...}}}}` to your overlay.")
    return "\n".join(lines)
