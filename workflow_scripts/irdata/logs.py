"""Per-rule logging: every rule script writes what it did, sizes, time and memory to its `log:` file."""

from __future__ import annotations

import contextlib
import logging
import resource
import sys
import time


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def rule_logging(snakemake, name: str | None = None):
    """Send logging (and uncaught errors) of a rule script to its first `log:` file.

    Progress bars (tqdm) write to stderr, which Snakemake shows on the console.
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
    except Exception:
        log.exception("rule %s failed", snakemake.rule)
        raise
    log.info("done in %.1f s, peak RSS %.0f MB", time.perf_counter() - start, peak_rss_mb())
