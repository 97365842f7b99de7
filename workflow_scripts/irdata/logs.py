"""Per-rule logging: every rule script writes what it did, sizes, time and memory to its `log:` file; the console
gets only what a user must read while the build runs (warnings, errors and what a script marks CONSOLE)."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import sys
import time

from .errors import StopError

# set by the workflow (rules/common.smk) when Snakemake runs with --verbose: a stop's traceback is logged too;
# without it the message that names the file, line or key and the fix is the whole report
TRACEBACK_ENV = "IRDATA_TRACEBACK"
# `log.info(..., extra=CONSOLE)`: an INFO line that the console shows too (the rule's log holds every line)
CONSOLE = {"console": True}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _for_console(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING or getattr(record, "console", False)


def _detach(handlers: list[logging.Handler]) -> None:
    root = logging.getLogger()
    for handler in handlers:
        handler.flush()
        root.removeHandler(handler)


@contextlib.contextmanager
def rule_logging(snakemake, name: str | None = None):
    """Send logging (and uncaught errors) of a rule script to its first `log:` file, and its warnings, errors and
    CONSOLE lines to stderr too (Snakemake's console). What else the script's libraries write to sys.stderr
    (progress bars, Python warnings) goes to the log file alone.

    A failure is logged once and the script exits with status 1, so Python prints no second traceback: a StopError
    (a bad input, a config mistake, the release gate's stop) as its message (file, line or key, what to do), with
    the traceback only under Snakemake's --verbose; any other error with its traceback.
    """
    log_path = snakemake.log[0] if len(snakemake.log) else None
    console = logging.StreamHandler(sys.stderr)
    console.addFilter(_for_console)
    handlers: list[logging.Handler] = [console]
    with contextlib.ExitStack() as stack:
        if log_path:
            # one line-buffered stream for the log's records and for what is written to sys.stderr, in order
            log_file = stack.enter_context(open(log_path, "w", encoding="utf-8", buffering=1))
            handlers.append(logging.StreamHandler(log_file))
            stack.enter_context(contextlib.redirect_stderr(log_file))
        # detached before the log file closes: nothing logged later (at exit) writes to a closed file
        stack.callback(_detach, handlers)
        logging.basicConfig(
            level=logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            handlers=handlers,
            force=True,
        )
        log = logging.getLogger(name or snakemake.rule)
        start = time.perf_counter()
        try:
            yield log
        except StopError as error:
            log.error("%s: %s", type(error).__name__, error, exc_info=os.environ.get(TRACEBACK_ENV) == "1")
            raise SystemExit(1) from None
        except Exception:
            log.exception("rule %s failed", snakemake.rule)
            raise SystemExit(1) from None
        log.info("done in %.1f s, peak RSS %.0f MB", time.perf_counter() - start, peak_rss_mb())
