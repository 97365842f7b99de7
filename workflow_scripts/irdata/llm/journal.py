"""Append-only per-job journal of completed LLM calls: a rerun repeats none of them.

One line per call: `<sha256 of the line body> <body>` where the body is compact JSON
{"k": request key, "v": response}. Lines reach the kernel through an O_APPEND descriptor at
most FLUSH_INTERVAL_S after their call completed, the calls completed in that time in one
os.write (a write per event-loop step was nearly a write per call when each step completes
only a few calls), so a kill -9 loses at most the calls of the last interval and those in
progress; they are made again on the rerun. A kill mid-write can leave a torn last line: on
open, every line is checked against its checksum; bad lines are dropped (never trusted) and a
torn tail is cut off so that new lines do not glue onto it. The journal is a cache outside
Snakemake's outputs, not an output, so it is appended to rather than written atomically.

In memory each answer is kept as its JSON text, decoded on a hit: text is compact and not
traversed by the garbage collector, which a dict per call is (measured: ~10% of the CPU of a
job of thousands of calls).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
from pathlib import Path

from .transports import encode_json

log = logging.getLogger(__name__)

# How long a completed call's line may wait in memory before it is written.
FLUSH_INTERVAL_S = 0.1

_HEAD, _MID = b'{"k":"', b'","v":'  # the body's layout: _HEAD + 64 hex digits + _MID + value + b"}"


def _line(key: str, value_json: str) -> bytes:
    body = f'{{"k":"{key}","v":{value_json}}}'.encode()  # keys are hex digests: nothing to escape
    return hashlib.sha256(body).hexdigest().encode("ascii") + b" " + body + b"\n"


def _parse(line: bytes):
    """(key, value JSON text) of a sound line, or None for a corrupt one."""
    digest, sep, body = line.partition(b" ")
    if not sep or hashlib.sha256(body).hexdigest().encode("ascii") != digest:
        return None
    if body.startswith(_HEAD) and body[70:76] == _MID and body.endswith(b"}"):
        return body[6:70].decode("ascii"), body[76:-1].decode("utf-8")
    try:  # a sound line in another layout: read it as JSON
        rec = json.loads(body)
        return rec["k"], encode_json(rec["v"])
    except (ValueError, KeyError, TypeError):
        return None


class Journal:
    """Completed calls of one job, loaded from and appended to `path`."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.entries: dict[str, str] = {}  # request key -> answer as JSON text
        self.dropped = 0
        self._pending: list[bytes] = []
        self._flush_timer: asyncio.TimerHandle | None = None
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
        """The journaled answer of a call, or None."""
        text = self.entries.get(key)
        return None if text is None else json.loads(text)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def append(self, key: str, value) -> None:
        text = encode_json(value)
        self.entries[key] = text
        self._pending.append(_line(key, text))
        if len(self._pending) == 1:
            try:
                self._flush_timer = asyncio.get_running_loop().call_later(FLUSH_INTERVAL_S, self.flush)
            except RuntimeError:  # no event loop: write now
                self.flush()

    def flush(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        if self._pending and self._fd >= 0:
            os.write(self._fd, b"".join(self._pending))
        self._pending.clear()

    def close(self) -> None:
        if self._fd >= 0:
            self.flush()
            os.close(self._fd)
            self._fd = -1
