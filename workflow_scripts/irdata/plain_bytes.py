"""The plain text bytes of a file a user names: compressed files read by their content, other containers refused
saying what they are.

MS MARCO, TREC DL and ir_datasets ship gzip files, and pandas and ir_datasets read them; a file may be named
`.tsv` and hold gzip, or be named `.gz` and hold plain text. So the readers go by the first bytes, never the
name: gzip, bzip2, xz and zstd are decompressed; an archive (tar, zip, 7-Zip, RAR), LZ4, UTF-16 or UTF-32 text
and binary data are refused in one line that says what the file is and what to do.

`open_plain` streams the plain bytes, for the readers that pass over a file once (JSON lines, the answers, the
line of a record). `plain_path` gives a file of them, for the pyarrow readers and their memory-mapped scans:
the file itself when it is plain text, else a temporary file under $TMPDIR (decompressed once at constant
memory, as large as the plain text, removed after); an InputError about the temporary file names the user's
file, its line the line `zcat` shows. A pipe or a device (process substitution, /dev/stdin) is read once, so it
reads as the file it streams.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import tempfile
import zlib
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa

from .errors import InputError

HEAD = 8192  # the bytes a file is recognised by
_CHUNK = 1 << 20


def _zstd(fileobj):
    return pa.CompressedInputStream(pa.PythonFile(fileobj, mode="r"), "zstd")


# how a compressed file starts (bzip2: its header, then the magic of a block or of the end of the stream), its
# reader, and the command that prints its text
CODECS = {
    "gzip": (re.compile(rb"\x1f\x8b"), lambda f: gzip.GzipFile(fileobj=f, mode="rb"), "zcat"),
    "bzip2": (re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)"), lambda f: bz2.BZ2File(f, mode="rb"), "bzcat"),
    "xz": (re.compile(rb"\xfd7zXZ\x00"), lambda f: lzma.LZMAFile(f, mode="rb"), "xzcat"),
    "zstd": (re.compile(rb"\x28\xb5\x2f\xfd"), _zstd, "zstdcat"),
}
_DAMAGED = (OSError, EOFError, zlib.error, lzma.LZMAError, pa.ArrowException)

_EXTRACT = "extract it and name the file inside"
# archives, by their first bytes: what they are and what to do
ARCHIVES = (
    (b"PK\x03\x04", "a zip archive", f"{_EXTRACT} (unzip -l {{path}} lists them)"),
    (b"PK\x05\x06", "an empty zip archive", "is it the right file?"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", f"{_EXTRACT} (7z l {{path}} lists them)"),
    (b"Rar!\x1a\x07", "a RAR archive", f"{_EXTRACT} (unrar l {{path}} lists them)"),
    (b"\x04\x22\x4d\x18", "LZ4-compressed data", "decompress it (lz4 -d {path}) or compress it with gzip"),
)
# binary files named by their first bytes (a file is binary by its control bytes first, so a text that happens
# to start so is text)
BINARY = ((b"PAR1", "a Parquet file"), (b"ARROW1", "an Arrow IPC file"), (b"SQLite format 3\x00", "an SQLite database"),
          (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE2 file (an .xls or .doc?)"), (b"\x93NUMPY", "a NumPy array"),
          (b"\x89HDF\r\n\x1a\n", "an HDF5 file"), (b"%PDF-", "a PDF document"), (b"\x89PNG", "a PNG image"))
# byte-order marks of the encodings that are not UTF-8, longest first (FF FE 00 00 is UTF-32's, FF FE UTF-16's)
BOMS = ((b"\x00\x00\xfe\xff", "UTF-32BE"), (b"\xff\xfe\x00\x00", "UTF-32LE"), (b"\xfe\xff", "UTF-16BE"),
        (b"\xff\xfe", "UTF-16LE"))
# bytes no text holds (C0 controls but TAB, LF, VT, FF, CR and ESC)
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def _read_head(fh, size: int = HEAD) -> bytes:
    """Up to `size` bytes; a pipe gives fewer a read, so read until there are enough or the stream ends."""
    parts, got = [], 0
    while got < size and (part := fh.read(size - got)):
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _unmarked_utf16_or_32(head: bytes) -> str | None:
    """UTF-16 or UTF-32 without a byte-order mark, by its NULs: text mostly of ASCII characters puts a NUL in the
    high byte of each (one byte of two, or three of four, always at the same places), few elsewhere (U+0100 and
    the like). At least half the characters so: a text with stray NULs is not taken for it."""
    for name, width, zero_at in (("UTF-32LE", 4, (1, 2, 3)), ("UTF-32BE", 4, (0, 1, 2)), ("UTF-16LE", 2, (1,)),
                                 ("UTF-16BE", 2, (0,))):
        units = [head[i:i + width] for i in range(0, len(head) - len(head) % width, width)]
        if len(units) < 2:
            continue
        ascii_like = sum(all(u[i] == 0 for i in zero_at) and any(u[i] for i in range(width) if i not in zero_at)
                         for u in units)
        others = sum(1 for u in units for i in range(width) if i not in zero_at and u[i] == 0)
        if ascii_like * 2 >= len(units) and ascii_like >= 2 and others * 4 <= ascii_like:
            return name
    return None


def _not_text(path, head: bytes, codec: str | None) -> InputError | None:
    """Why the (decompressed) `head` is no UTF-8 text a reader can read, or None."""
    packed = f", {codec}-compressed" if codec else ""
    if _codec_of(head):
        return InputError(path, f"{_codec_of(head)}-compressed data inside {codec} (compressed twice): decompress it "
                          "to plain text and name that file")
    if head[257:262] == b"ustar":
        first = head[:100].split(b"\0")[0].decode("utf-8", "replace")
        return InputError(path, f"a tar archive{packed} (first member {first}): {_EXTRACT} (tar -tf {path} lists "
                          "them)")
    for magic, what, todo in ARCHIVES:
        if head.startswith(magic):
            if magic == b"PK\x03\x04" and len(head) >= 30:
                size = int.from_bytes(head[26:28], "little")
                what += f" (first member {head[30:30 + size].decode('utf-8', 'replace')})"
            return InputError(path, f"{what}{packed}: {todo.format(path=path)}")
    marked = next(((name, mark) for mark, name in BOMS if head.startswith(mark)), None)
    unmarked = None if marked or 0 not in head else _unmarked_utf16_or_32(head)
    if marked or unmarked:
        # iconv reads a byte-order mark when named the encoding without its byte order
        encoding, how = (marked[0][:6], f"byte-order mark {marked[1].hex(' ').upper()}") if marked else \
            (unmarked, "no byte-order mark")
        iconv = f"iconv -f {encoding} -t UTF-8"
        command = f"{CODECS[codec][2]} {path} | {iconv}" if codec else f"{iconv} {path}"
        return InputError(path, f"{encoding} text ({how}){packed}, not UTF-8: re-encode it as UTF-8, e.g. {command} "
                          "> new-file")
    controls, nuls = len(_CONTROL.findall(head)), head.count(0)
    named = next((what for magic, what in BINARY if head.startswith(magic)), None)
    # binary: NULs and other control bytes, more than a text damaged here and there holds (its stray NUL is
    # refused naming its line)
    if nuls and controls >= 8 and (named or nuls >= max(4, len(head) // 256) and controls >= len(head) // 100):
        return InputError(path, f"{named or 'binary data'}{packed}, not text ({controls} of its first {len(head):,} "
                          f"bytes are control bytes, {nuls} of them NUL): is it the right file?")
    return None


def _codec_of(head: bytes) -> str | None:
    return next((name for name, (magic, _, _) in CODECS.items() if magic.match(head)), None)


class _Prefixed(io.RawIOBase):
    """`head`, then the rest of `stream` (the bytes read to recognise a pipe are not read again)."""

    def __init__(self, head: bytes, stream):
        self._head, self._stream = memoryview(head), stream

    def readable(self):
        return True

    def readinto(self, buffer):
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n], self._head = self._head[:n], self._head[n:]
            return n
        data = self._stream.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


class _Decompressed(io.RawIOBase):
    """The text of a compressed stream; damaged or cut-short data is an InputError naming the user's file and the
    line it stops in, as `zcat` shows it."""

    def __init__(self, stream, path, codec: str):
        self._stream, self._path, self._codec = stream, path, codec
        self._lines = self._bytes = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        try:
            data = self._stream.read(len(buffer))
        except _DAMAGED as exc:
            what = "ends early (cut short)" if isinstance(exc, EOFError) or "runcated" in str(exc) else \
                f"is damaged ({exc})"
            raise InputError(self._path, f"{self._codec}-compressed, but the compressed data {what} after "
                             f"{self._bytes:,} bytes of text: download or compress the file again",
                             line=self._lines + 1) from None
        buffer[:len(data)] = data
        self._lines += data.count(b"\n")
        self._bytes += len(data)
        return len(data)


def _regular(path) -> bool:
    """A regular file (one that can be read again), after following links; a missing path or a folder is an
    InputError."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(path, "file not found; check the path in config.yaml") from None
    if stat.S_ISDIR(mode):
        raise InputError(path, "a folder, not a file; name the file")
    return stat.S_ISREG(mode)


def rereadable(path) -> bool:
    """Whether `path` can be read again to name a line: a regular file, not a pipe or a device read once already."""
    return Path(path).is_file()


def refuse_stream(path, why: str) -> None:
    """A pipe or a device where a file is read more than once (`why`) is an InputError, before anything reads it
    (opening a named pipe with no writer would wait for ever); a missing path or a folder is left to the reader."""
    if os.path.exists(path) and not os.path.isdir(path) and not rereadable(path):
        raise InputError(path, f"a pipe or a device, not a file: {why}; write it to a file and name that")


def _rewound(raw, head: bytes):
    """`raw` from its first byte again: seeked back, or for a pipe the `head` read from it, then the rest."""
    if raw.seekable():
        raw.seek(0)
        return raw
    return io.BufferedReader(_Prefixed(head, raw), _CHUNK)


@contextmanager
def open_plain(path):
    """A binary stream of the plain text of `path` (decompressed when compressed), read once; a container or an
    encoding no reader reads is an InputError saying what the file is."""
    _regular(path)
    with open(path, "rb") as raw:
        head = _read_head(raw)
        codec = _codec_of(head)
        if codec is None:
            refused = _not_text(path, head, None)
            if refused:
                raise refused
            yield _rewound(raw, head)
            return
        text = _Decompressed(CODECS[codec][1](_rewound(raw, head)), path, codec)
        head = _read_head(text)
        refused = _not_text(path, head, codec)
        if refused:
            raise refused
        yield io.BufferedReader(_Prefixed(head, text), _CHUNK)


@contextmanager
def plain_path(path):
    """A path of the plain text of `path`: `path` itself when it is a regular file of plain text, else a temporary
    file, removed on exit. An InputError about the temporary file is raised naming `path`."""
    if _regular(path):
        with open(path, "rb") as fh:
            head = _read_head(fh)
        if _codec_of(head) is None:
            refused = _not_text(path, head, None)
            if refused:
                raise refused
            yield Path(path)
            return
    fd, name = tempfile.mkstemp(prefix="irdata-", suffix=".plain")
    try:
        with open(fd, "wb") as out, open_plain(path) as text:
            try:
                shutil.copyfileobj(text, out, _CHUNK)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                raise InputError(path, f"no space left under {tempfile.gettempdir()} for its text, which the readers "
                                 "read from a file: set TMPDIR to a folder on a larger disk") from None
        try:
            yield Path(name)
        except InputError as error:
            if error.path != name:
                raise
            raise InputError(path, error.problem, error.line, error.field) from None
    finally:
        os.unlink(name)
