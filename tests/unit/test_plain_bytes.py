"""A file is read by its content (irdata.plain_bytes): what is compressed is decompressed whatever the name, what no
reader reads is refused in one line saying what the file is and what to do, a pipe is read once."""

import bz2
import gzip
import io
import lzma
import os
import tarfile
import threading
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from irdata.errors import InputError
from irdata.plain_bytes import open_plain, plain_path
from irdata.tsv import read_id_text_tsv

TEXT = b"1\tfirst passage\n2\tsecond passage\n"


def _arrow_codec(codec):
    def pack(data):
        sink = pa.BufferOutputStream()
        with pa.CompressedOutputStream(sink, codec) as out:
            out.write(data)
        return sink.getvalue().to_pybytes()
    return pack


def _tar(data, mode):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tar:
        info = tarfile.TarInfo("collection.tsv")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _zip(data):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("corpus.jsonl", data)
    return out.getvalue()


def _parquet(_):
    out = io.BytesIO()
    pq.write_table(pa.table({"id": ["1", "2"], "text": ["a", "b"]}), out)
    return out.getvalue()


@pytest.mark.parametrize("pack", [
    lambda d: gzip.compress(d, mtime=0), bz2.compress, lzma.compress, _arrow_codec("zstd"),
    lambda d: gzip.compress(d[:10]) + gzip.compress(d[10:]),  # two gzip members, as `cat a.gz b.gz` makes
], ids=["gzip", "bzip2", "xz", "zstd", "gzip-members"])
@pytest.mark.parametrize("name", ["c.tsv", "c.tsv.gz", "c.bz2", "c"])
def test_compressed_files_are_read_by_their_content_whatever_the_name(tmp_path, pack, name):
    path = tmp_path / name
    path.write_bytes(pack(TEXT))
    with open_plain(path) as fh:
        assert fh.read() == TEXT
    with plain_path(path) as plain:
        assert plain != path and plain.read_bytes() == TEXT
        temporary = plain
    assert not temporary.exists()
    assert read_id_text_tsv(path).equals(read_id_text_tsv(_plain_twin(tmp_path)))


def _plain_twin(tmp_path):
    path = tmp_path / "plain.gz"  # plain text named .gz is read as the text it is
    path.write_bytes(TEXT)
    return path


def test_a_plain_file_is_read_where_it_is(tmp_path):
    path = _plain_twin(tmp_path)
    with plain_path(path) as plain:
        assert plain == path


@pytest.mark.parametrize("pack, words", [
    (lambda d: _tar(d, "w"), "a tar archive (first member collection.tsv): extract it and name the file inside "
     "(tar -tf {path} lists them)"),
    (lambda d: _tar(d, "w:gz"), "a tar archive, gzip-compressed (first member collection.tsv)"),
    (lambda d: _tar(d, "w:bz2"), "a tar archive, bzip2-compressed (first member collection.tsv)"),
    (_zip, "a zip archive (first member corpus.jsonl): extract it and name the file inside (unzip -l {path} lists"),
    (lambda d: b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(24), "a 7-Zip archive: extract it"),
    (lambda d: b"Rar!\x1a\x07\x01\x00" + bytes(24), "a RAR archive: extract it"),
    (_arrow_codec("lz4"), "LZ4-compressed data: decompress it (lz4 -d {path})"),
    (lambda d: gzip.compress(gzip.compress(d)), "gzip-compressed data inside gzip (compressed twice)"),
    (lambda d: gzip.compress(lzma.compress(d)), "xz-compressed data inside gzip (compressed twice)"),
    (lambda d: d.decode().encode("utf-16"), "UTF-16 text (byte-order mark FF FE), not UTF-8: re-encode it as UTF-8, "
     "e.g. iconv -f UTF-16 -t UTF-8 {path} > new-file"),
    (lambda d: d.decode().encode("utf-16-le"), "UTF-16LE text (no byte-order mark), not UTF-8: re-encode it as "
     "UTF-8, e.g. iconv -f UTF-16LE -t UTF-8 {path} > new-file"),
    (lambda d: d.decode().encode("utf-16-be"), "UTF-16BE text (no byte-order mark)"),
    (lambda d: "1\t\u0100b\n2\tx\n".encode("utf-16-be"), "UTF-16BE text (no byte-order mark)"),  # 01 00
    (lambda d: b"\xfe\xff" + d.decode().encode("utf-16-be"), "UTF-16 text (byte-order mark FE FF)"),
    (lambda d: d.decode().encode("utf-32"), "UTF-32 text (byte-order mark FF FE 00 00)"),
    (lambda d: d.decode().encode("utf-32-be"), "UTF-32BE text (no byte-order mark)"),
    (lambda d: gzip.compress(d.decode().encode("utf-16")), "UTF-16 text (byte-order mark FF FE), gzip-compressed, "
     "not UTF-8: re-encode it as UTF-8, e.g. zcat {path} | iconv -f UTF-16 -t UTF-8 > new-file"),
    (_parquet, "a Parquet file, not text ("),
    (lambda d: bytes(range(256)) * 8, "binary data, not text (208 of its first 2,048 bytes are control bytes, 8 of "
     "them NUL): is it the right file?"),
])
def test_what_no_reader_reads_is_refused_saying_what_it_is(tmp_path, pack, words):
    path = tmp_path / "collection.tsv"
    path.write_bytes(pack(TEXT))
    for read in (lambda p: open_plain(p).__enter__().read(), lambda p: plain_path(p).__enter__(), read_id_text_tsv):
        with pytest.raises(InputError) as info:
            read(path)
        assert info.value.path == str(path) and info.value.line is None
        assert words.format(path=path) in info.value.problem


def test_a_text_with_a_stray_nul_is_text_its_nul_named_by_line(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(TEXT + b"3\tth\x00ird\n")
    with pytest.raises(InputError) as info:
        read_id_text_tsv(path)
    assert (info.value.line, info.value.field) == (3, "text") and "a NUL byte" in info.value.problem


@pytest.mark.parametrize("cut, words", [
    (lambda d: d[:-9], "gzip-compressed, but the compressed data ends early (cut short) after"),
    (lambda d: d[:30] + bytes([d[30] ^ 0xFF]) + d[31:], "gzip-compressed, but the compressed data is damaged"),
])
def test_a_damaged_gzip_file_is_refused_naming_it_and_the_line_it_stops_in(tmp_path, cut, words):
    text = b"".join(b"%d\tpassage number %d\n" % (i, i) for i in range(2000))
    path = tmp_path / "c.tsv.gz"
    path.write_bytes(cut(gzip.compress(text)))
    with pytest.raises(InputError) as info:
        read_id_text_tsv(path)
    assert info.value.path == str(path) and words in info.value.problem
    assert 1 <= info.value.line <= text.count(b"\n") + 1


def test_a_missing_file_and_a_folder(tmp_path):
    for read in (open_plain, plain_path):
        with pytest.raises(InputError, match="file not found; check the path"):
            read(tmp_path / "nope.tsv").__enter__()
        with pytest.raises(InputError, match="a folder, not a file"):
            read(tmp_path).__enter__()


def _write_into(fifo, data):
    with open(fifo, "wb") as out:
        out.write(data)


@pytest.mark.parametrize("packed", [False, True])
def test_a_named_pipe_is_read_once_as_its_file(tmp_path, packed):
    """mkfifo, or a shell's <(zcat ...): read once, the gzip recognised in the stream."""
    data = gzip.compress(TEXT) if packed else TEXT
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=_write_into, args=(fifo, data))
    writer.start()
    table = read_id_text_tsv(fifo)
    writer.join()
    assert table.equals(read_id_text_tsv(_plain_twin(tmp_path)))


def test_a_full_temporary_disk_is_named_with_what_to_do(tmp_path, monkeypatch):
    import errno

    from irdata import plain_bytes

    def full(*_):
        raise OSError(errno.ENOSPC, "No space left on device")

    path = tmp_path / "c.tsv.gz"
    path.write_bytes(gzip.compress(TEXT))
    monkeypatch.setattr(plain_bytes.shutil, "copyfileobj", full)
    with pytest.raises(InputError) as info:
        read_id_text_tsv(path)
    assert info.value.path == str(path) and "no space left under" in info.value.problem
    assert "set TMPDIR" in info.value.problem
