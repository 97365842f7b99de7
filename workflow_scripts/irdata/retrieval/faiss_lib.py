"""faiss, imported once for the whole package without its loader's noise.

faiss's loader tries each CPU-specific build it knows (AVX512-SPR, AVX512, AVX2) before the generic one and logs
every try at INFO, a ModuleNotFoundError for each build the installed wheel does not hold: nine lines in every
job that imports it, and no fault. Those lines are dropped here; a build that exists but fails to load is still
logged, and a faiss that cannot load at all still raises ImportError.
"""

from __future__ import annotations

import logging


def _not_noise(record: logging.LogRecord) -> bool:
    message = record.getMessage()
    if record.levelno >= logging.WARNING or not message.startswith(("Loading faiss", "Successfully loaded faiss",
                                                                    "Could not load library")):
        return True
    return message.startswith("Could not load library") and "ModuleNotFoundError" not in message


logging.getLogger("faiss.loader").addFilter(_not_noise)

import faiss  # noqa: E402  (after its loader's filter)

__all__ = ["faiss"]
