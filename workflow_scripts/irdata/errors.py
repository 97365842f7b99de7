"""Errors that point a user at the exact place in their input that is wrong."""

from __future__ import annotations


class StopError(Exception):
    """A stop whose message is the whole report (what is wrong, where, the fix): a rule script logs it as that
    message, once, its traceback only under Snakemake's --verbose (irdata/logs.py)."""


class InputError(StopError, ValueError):
    """Bad input: names the file, the line (1-based) and the field, and says what to do."""

    def __init__(self, path, problem: str, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        where = self.path
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {problem}")
