"""Per-rule logging: every rule script writes what it did, sizes, time and memory to its `log:` file."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import sys
import time

from .errors import InputError

# set by the workflow (rules/common.smk) when Snakemake runs with --verbose: a bad input's traceback is
# logged too; without it the one line that names the file, line and field is the whole message
TRACEBACK_ENV = "IRDATA_TRACEBACK"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def rule_logging(snakemake, name: str | None = None):
    """Send logging (and uncaught errors) of a rule script to its first `log:` file and to stderr.

    A failure is logged once and the script exits with status 1, so Python prints no second traceback:
    an InputError as its one line (file, line, field, what to do), with the traceback only under
    Snakemake's --verbose; any other error with its traceback. Progress bars (tqdm) write to stderr,
    which Snakemake shows on the console.
    """
    log_path = snakemake.log[0] if len(snakemake.log) else None
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
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
    except InputError as error:
        log.error("%s: %s", type(error).__name__, error, exc_info=os.environ.get(TRACEBACK_ENV) == "1")
        raise SystemExit(1) from None
    except Exception:
        log.exception("rule %s failed", snakemake.rule)
        raise SystemExit(1) from None
    log.info("done in %.1f s, peak RSS %.0f MB", time.perf_counter() - start, peak_rss_mb())
