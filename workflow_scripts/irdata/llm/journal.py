"""Append-only per-job journal of completed LLM calls: a rerun repeats none of them.

One line per call: `<sha256 of the line body> <body>` where the body is compact JSON
{"k": request key, "v": response}. Each line goes to the kernel in one os.write on an
O_APPEND descriptor as soon as the call completes, so a kill -9 loses at most the call in
progress. A kill mid-write can leave a torn last line: on open, every line is checked
against its checksum; bad lines are dropped (never trusted) and a torn tail is cut off so
that new lines do not glue onto it. The journal is a cache outside Snakemake's outputs,
not an output, so it is appended to rather than written atomically.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _line(key: str, value) -> bytes:
    body = f'{{"k":"{key}","v":{_encode(value)}}}'.encode()  # keys are hex digests: nothing to escape
    return hashlib.sha256(body).hexdigest().encode("ascii") + b" " + body + b"\n"


def _parse(line: bytes):
    """(key, value) of a sound line, or None for a corrupt one."""
    digest, sep, body = line.partition(b" ")
    if not sep or hashlib.sha256(body).hexdigest().encode("ascii") != digest:
        return None
    try:
        rec = json.loads(body)
        return rec["k"], rec["v"]
    except (ValueError, KeyError, TypeError):
        return None


class Journal:
    """Completed calls of one job, loaded from and appended to `path`."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.entries: dict[str, object] = {}
        self.dropped = 0
        self._load()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        good_end = 0  # byte offset just past the last sound, newline-terminated line
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if nl < 0:  # torn tail: the writer was killed mid-line
                self.dropped += 1
                break
            parsed = _parse(data[pos:nl])
            if parsed is None:
                self.dropped += 1
            else:
                self.entries[parsed[0]] = parsed[1]
                good_end = nl + 1
            pos = nl + 1
        if good_end < len(data):
            # Cut corrupt bytes after the last good line so appends start on a clean line.
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        if self.dropped:
            log.warning("journal %s: dropped %d corrupt line(s) (a killed writer); those calls will be made again",
                        self.path, self.dropped)

    def get(self, key: str):
        return self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def append(self, key: str, value) -> None:
        self.entries[key] = value
        os.write(self._fd, _line(key, value))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
