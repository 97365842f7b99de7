"""What a build prints on the console: Snakemake's own messages, kept short, and at the end what it published.

Snakemake's console handler keeps its formatter; this one rewrites a few of its records first (Snakemake's log file
under .snakemake/log/ keeps every detail):
- a job that starts, in a real run: its rule, wildcards, log and reason, without the lists of files and resources
  (a dry-run, the audit view, keeps them);
- a reason `Params have changed since last execution`: which settings changed, old and new, or that the code
  changed, instead of both whole params dicts;
- a failed job: no `message: None`, and no CalledProcessError of a rule script that exited 1, which has printed
  its own error (irdata/logs.py); no `Shell command: None` of a script rule (profiles/slurm prints shell commands);
- a target that no rule makes: the targets there are, and the closest.
"""

from __future__ import annotations

import ast
import difflib
import logging
import re

# the script of a `script:` rule as Snakemake runs it; exit status 1: the script has reported its error itself
_REPORTED = re.compile(r"CalledProcessError in file .*\nCommand '.*\.snakemake/scripts/[^']*' returned non-zero "
                       r"exit status 1\.\s*$", re.S)
_PARAMS = "Params have changed since last execution"
_UNION = "Union of exclusive params before and now across all output: "
_FILE_LISTS = ("Missing output files", "Incomplete output files", "Updated input files",
               "Input files updated by another job")
# the one part of a reason that Snakemake puts after the params change
_SOFTWARE = "; Software environment definition has changed since last execution"
_HASH = re.compile(r"[0-9a-f]{16,}")


def _values(text: str) -> list | None:
    text = text.strip()
    if text == "<nothing exclusive>":
        return []
    try:
        return ast.literal_eval(f"[{text}]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _before_now(text: str) -> tuple[list, list] | None:
    """The params only before and only now, from Snakemake's `before: <reprs> now: <reprs>` (the reprs are joined
    by commas; a repr may hold ` now: ` itself, so each split is tried)."""
    if not text.startswith("before: "):
        return None
    body = text[len("before: "):]
    for match in re.finditer(" now: ", body):
        before, now = _values(body[:match.start()]), _values(body[match.end():])
        if before is not None and now is not None:
            return before, now
    return None


def _flat(value, prefix=()) -> dict:
    if isinstance(value, dict) and value:
        return {k: v for key, sub in value.items() for k, v in _flat(sub, (*prefix, str(key))).items()}
    return {".".join(prefix): value}


def _shown(value, width: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def settings_diff(before: dict, now: dict, most: int = 3) -> str:
    """`key: old -> new` of the settings keys that differ, the first `most` of them."""
    old, new = _flat(before), _flat(now)
    keys = sorted(k for k in old.keys() | new.keys() if old.get(k, "<unset>") != new.get(k, "<unset>"))
    shown = [f"{k or '(all)'}: {_shown(old.get(k, '<unset>'))} -> {_shown(new.get(k, '<unset>'))}"
             for k in keys[:most]]
    more = f" and {len(keys) - most} more" if len(keys) > most else ""
    return ", ".join(shown) + more


def params_change(text: str) -> str:
    """What Snakemake's ParamsChange text says, short: the settings keys that changed (old -> new), `code` for a
    changed code hash (a module, script or prompt of the rule), and any other param that changed."""
    parsed = _before_now(text.removeprefix(_UNION))
    if parsed is None:
        return text
    before, now = parsed
    parts = []
    old_dicts, new_dicts = [v for v in before if isinstance(v, dict)], [v for v in now if isinstance(v, dict)]
    if len(old_dicts) == 1 and len(new_dicts) == 1:
        parts.append("settings " + settings_diff(old_dicts[0], new_dicts[0]))
    elif old_dicts or new_dicts:
        parts.append("settings")
    if any(isinstance(v, str) and _HASH.fullmatch(v) for v in (*before, *now)):
        parts.append("code")
    old_rest, new_rest = ([v for v in values if not isinstance(v, dict) and not (isinstance(v, str) and
                                                                               _HASH.fullmatch(v))]
                          for values in (before, now))
    if old_rest or new_rest:
        parts.append(f"other params {', '.join(map(_shown, old_rest)) or '-'} -> "
                     f"{', '.join(map(_shown, new_rest)) or '-'}")
    return "; ".join(parts) or text


def _cut_lists(reason: str, files: int | None) -> str:
    if files is None or not reason:
        return reason
    parts = []
    for part in reason.split("; "):
        if part.startswith(_FILE_LISTS) and ": " in part:
            head, listed = part.split(": ", 1)
            names = listed.split(", ")
            part = f"{head}: {', '.join(names[:files])}" + (f" and {len(names) - files} more"
                                                            if len(names) > files else "")
        parts.append(part)
    return "; ".join(parts)


def short_reason(reason: str, files: int | None = None) -> str:
    """A job's reason with the params change said in a line (params_change) and, when `files` is given, each list
    of files cut to that many. (The params' reprs may hold "; ", which joins the reason's parts: the params part
    runs to the one part Snakemake puts after it, or to the end.)"""
    start = reason.find(f"{_PARAMS}: ")
    if start < 0:
        return _cut_lists(reason, files)
    end = reason.find(_SOFTWARE, start)
    end = len(reason) if end < 0 else end
    change = params_change(reason[start + len(_PARAMS) + 2:end].rstrip())
    return _cut_lists(reason[:start], files) + f"{_PARAMS}: {change}" + reason[end:]


def missing_target_hint(name: str, targets, builds) -> str:
    """What to say of a target that no rule makes: the workflow's targets and builds, and the closest name."""
    close = difflib.get_close_matches(name, [*targets, *builds], n=1)
    hint = f" Did you mean `{close[0]}`?" if close else ""
    return (f"`{name}` is neither a target of this workflow nor a file a rule writes. The targets: "
            f"{', '.join(sorted(targets))}; the builds (each a target): {', '.join(builds) or 'none'} "
            f"(README 'Several builds').{hint}")


class ConsoleFormatter(logging.Formatter):
    """Snakemake's console formatter `inner`, given the records rewritten as the module says."""

    def __init__(self, inner: logging.Formatter, dryrun: bool, targets, builds):
        super().__init__()
        self.inner, self.dryrun, self.targets, self.builds = inner, dryrun, list(targets), list(builds)

    def format(self, record: logging.LogRecord) -> str:
        from snakemake_interface_logger_plugins.common import LogEvent

        event = getattr(record, "event", None)
        changes = {}
        if event == LogEvent.JOB_INFO:
            changes["reason"] = short_reason(record.reason, files=None if self.dryrun else 2)
            if not self.dryrun:
                changes |= {"input": [], "output": [], "benchmark": None, "resources": {}, "priority": 0}
        elif event == LogEvent.JOB_ERROR:
            changes = {"input": [], "output": []}
            if getattr(record, "rule_msg", None) is None:
                changes["msg"] = None
        elif event == LogEvent.SHELLCMD and not getattr(record, "shellcmd", None):
            return ""
        elif event == LogEvent.ERROR:
            message = record.getMessage()
            if _REPORTED.search(message):
                return ""
            missing = re.search(r"No rule to produce (\S+)", message)
            if getattr(record, "exception", None) == "MissingRuleException" and missing:
                changes = {"msg": f"{message}\n{missing_target_hint(missing.group(1), self.targets, self.builds)}",
                           "args": ()}
        if not changes:
            return self.inner.format(record)
        return self.inner.format(logging.makeLogRecord({**record.__dict__, **changes}))


def install(logger: logging.Logger, dryrun: bool, targets, builds) -> None:
    """Give Snakemake's console handler (DefaultStreamHandler; a logger plugin's own handler is left as it is)
    the ConsoleFormatter over its formatter."""
    for handler in logger.handlers:
        if handler.name == "DefaultStreamHandler" and not isinstance(handler.formatter, ConsoleFormatter):
            handler.setFormatter(ConsoleFormatter(handler.formatter, dryrun, targets, builds))
