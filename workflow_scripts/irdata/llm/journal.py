"""Append-only per-job journal of completed LLM calls: a rerun repeats none of them.

One line per call: `<sha256 of the line body> <body>` where the body is compact JSON
{"k": request key, "v": response}. Lines reach the kernel through an O_APPEND descriptor at
most FLUSH_INTERVAL_S after their call completed, the calls completed in that time in one
os.write (a write per event-loop step was nearly a write per call when each step completes
only a few calls), so a kill -9 loses at most the calls of the last interval and those in
progress; they are made again on the rerun. A kill mid-write can leave a torn last line: on
open, every line is checked against its checksum, and a torn last line (the start of a journal line,
without its line end) is cut off so that new lines do not glue onto it; its call is made again. Nothing
else is ever cut: a journal with any other line that is not sound (edited, converted to CRLF line ends,
compressed) is refused, naming the file and the line, and left as it is, for the user to restore or move
away. The journal is a cache outside Snakemake's outputs, not an output, so it is appended to rather than
written atomically.

A write that fails (disk full, a file-size limit) must not lose answers silently: a short write
is continued, and when a write fails the bytes of a line it left half written are cut off, so the
file holds whole lines only, and the journal is marked failed. From then on every call of the job
(journal.get, journal.append) and close() raise JournalError, naming the file, the cause and how
many answered calls could not be kept: the job stops rather than paying for answers it cannot
keep, and its rerun, once there is space, repeats none of the calls on disk and asks the others
again. The timer's own flush only records the failure: an error raised in a timer callback is
merely logged by asyncio.

In memory each answer is kept as its JSON text, decoded on a hit: text is compact and not
traversed by the garbage collector, which a dict per call is (measured: ~10% of the CPU of a
job of thousands of calls).
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import json
import logging
import os
import re
from pathlib import Path

from ..errors import InputError, StopError
from ..path_kinds import FILE, path_problem, writable_folder_problem
from .transports import encode_json

log = logging.getLogger(__name__)

# How long a completed call's line may wait in memory before it is written.
FLUSH_INTERVAL_S = 0.1

_HEAD, _MID = b'{"k":"', b'","v":'  # the body's layout: _HEAD + 64 hex digits + _MID + value + b"}"


# errno -> (cause, what to do), for the errors a full disk or a size limit gives a writer.
_CAUSES = {
    errno.ENOSPC: ("disk full (ENOSPC)", "free space and rerun"),
    errno.EDQUOT: ("disk quota exceeded (EDQUOT)", "free space or raise the quota and rerun"),
    errno.EFBIG: ("file too large (EFBIG: a file-size limit such as ulimit -f)", "raise the limit and rerun"),
}


class JournalError(StopError, RuntimeError):
    """The journal could not be written: the job stops (not a call failure a stage counts and
    carries on after), naming the file, the cause and the answers that will be asked again."""

    def __init__(self, path, cause: OSError, lost: int, kept: int):
        name = errno.errorcode.get(cause.errno, "")
        what, fix = _CAUSES.get(cause.errno, (f"{cause.strerror or cause} ({name})" if name else str(cause),
                                              "fix it and rerun"))
        super().__init__(f"{what} writing {path}: {fix}; {lost} answered call(s) could not be kept and will be "
                         f"asked again ({kept} on disk will not be)")
        self.path = str(path)
        self.lost = lost
        self.kept = kept


def _line(key: str, value_json: str) -> bytes:
    body = f'{{"k":"{key}","v":{value_json}}}'.encode()  # keys are hex digests: nothing to escape
    return hashlib.sha256(body).hexdigest().encode("ascii") + b" " + body + b"\n"


# the start of a journal line (64 hex digits of the checksum, a space, the body's JSON object), as a writer
# stopped mid-line leaves it
_TORN = re.compile(rb"[0-9a-f]{0,64}|[0-9a-f]{64} (\{.*)?", re.DOTALL)


def _unsound(line: bytes) -> str:
    """What is wrong with a line that is not a sound journal line, and what to do."""
    if line.endswith(b"\r") and _parse(line[:-1]) is not None:
        return ("its lines end in CRLF (converted by an editor or a text-mode transfer): convert them back to LF "
                "(dos2unix), or move the journal away to make its calls again")
    return ("not a line the journal writes (the sha256 of its body, a space, the body), or its checksum does not "
            "match: edited or damaged. Restore the journal, or move it away to make its calls again")


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


def journal_file_problem(path) -> str | None:
    """Why a job could not keep its calls in the journal `path` (a folder, a pipe, a link to nothing, a file it may
    not write), as `<what>; <fix>`, or None (also for a missing one: the job makes it)."""
    if not os.path.lexists(path):
        return None
    problem = path_problem(path, FILE)
    if problem:  # `<what>; <fix>`: the fix for an input file, where this one is the job's own
        return f"{problem.partition(';')[0]}, where the job keeps its LLM calls in a file; move it away"
    if not os.access(path, os.W_OK):
        return "a journal this user cannot append to; make it writable (chmod u+w)"
    return None


class Journal:
    """Completed calls of one job, loaded from and appended to `path`."""

    def __init__(self, path):
        self.path = Path(path)
        # llm.journal_dir and the job's file: refused in a line (at planning already: irdata/input_keys.py)
        problem = writable_folder_problem(self.path.parent)
        if problem:
            raise InputError(self.path.parent, f"{problem} (llm.journal_dir: the folder of the LLM call journals)")
        problem = journal_file_problem(self.path)
        if problem:
            raise InputError(self.path, problem)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.entries: dict[str, str] = {}  # request key -> answer as JSON text
        self.dropped = 0  # a torn last line cut on open
        self.kept = 0  # sound lines on disk: read on open or written since
        self.lost = 0  # answers that could not be written (after a failure)
        self._error: OSError | None = None  # the write's failure; set once, the journal writes no more
        self._pending: list[bytes] = []
        self._flush_timer: asyncio.TimerHandle | None = None
        self._load()
        self.kept = len(self.entries)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data.startswith(b"\x1f\x8b"):
            raise InputError(self.path, "gzip-compressed, not a journal the job can append to: decompress it (gunzip), "
                             "or move it away to make its calls again")
        end = data.rfind(b"\n") + 1  # just past the last whole line
        pos, number = 0, 0
        while pos < end:
            nl = data.find(b"\n", pos)
            number += 1
            parsed = _parse(data[pos:nl])
            if parsed is None:
                raise InputError(self.path, _unsound(data[pos:nl]), line=number)
            self.entries[parsed[0]] = parsed[1]
            pos = nl + 1
        tail = data[end:]
        if not tail:
            return
        whole = _parse(tail)
        if whole is None and not _TORN.fullmatch(tail):
            raise InputError(self.path, _unsound(tail), line=number + 1)
        with open(self.path, "r+b") as fh:
            if whole is not None:  # a whole line whose line end the writer did not reach: ended, kept
                self.entries[whole[0]] = whole[1]
                fh.seek(len(data))
                fh.write(b"\n")
            else:  # the start of a line: cut, so that appends start on a clean line
                fh.truncate(end)
                self.dropped = 1
                log.warning("journal %s: cut its torn last line (a writer stopped mid-line); that call will be made "
                            "again", self.path)

    def get(self, key: str):
        """The journaled answer of a call, or None. Raises JournalError once a write failed."""
        if self._error is not None:
            self._raise()
        text = self.entries.get(key)
        return None if text is None else json.loads(text)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def append(self, key: str, value) -> None:
        """Keep an answer; it is written within FLUSH_INTERVAL_S. Raises JournalError (the answer
        counted as lost) once a write failed."""
        if self._error is not None:
            self.lost += 1
            self._raise()
        text = encode_json(value)
        self.entries[key] = text
        self._pending.append(_line(key, text))
        if len(self._pending) == 1:
            try:
                self._flush_timer = asyncio.get_running_loop().call_later(FLUSH_INTERVAL_S, self._write)
            except RuntimeError:  # no event loop: write now
                self.flush()

    def flush(self) -> None:
        """Write the pending lines now; raises JournalError if this or an earlier write failed."""
        self._write()
        if self._error is not None:
            self._raise()

    def _write(self) -> None:
        """Write the pending lines in one os.write where the kernel takes them all (the timer's
        callback: records a failure, never raises)."""
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        if not self._pending or self._fd < 0 or self._error is not None:
            return
        data = b"".join(self._pending)
        lines = len(self._pending)
        self._pending.clear()
        view, done = memoryview(data), 0
        try:
            while done < len(data):  # a short write (a full disk, a size limit) is continued
                n = os.write(self._fd, view[done:])
                if n == 0:
                    raise OSError(errno.EIO, "os.write wrote nothing")
                done += n
        except OSError as e:
            self._error = e
            whole = data.rfind(b"\n", 0, done) + 1  # end of the last line written whole
            kept = data.count(b"\n", 0, whole)
            self.kept += kept
            self.lost += lines - kept
            if whole < done:  # a line half written: cut it, or a rerun's lines would glue onto it
                try:
                    os.ftruncate(self._fd, os.fstat(self._fd).st_size - (done - whole))
                except OSError:  # the next open cuts a torn tail as well
                    log.warning("journal %s: could not cut a half-written line", self.path, exc_info=True)
            log.error("%s", JournalError(self.path, e, self.lost, self.kept))
            return
        self.kept += lines

    def _raise(self):
        raise JournalError(self.path, self._error, self.lost, self.kept) from self._error

    def close(self) -> None:
        """Write what is pending and close; raises JournalError if a write failed."""
        if self._fd >= 0:
            try:
                self._write()
            finally:
                os.close(self._fd)
                self._fd = -1
        if self._error is not None:
            self._raise()
