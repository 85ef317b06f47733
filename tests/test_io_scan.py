"""The one newline scanner (``metaeval.data.io._scan_text``): lines, CSV records, longest line, UTF-8,
ASCII and watched bytes, plain and gzipped, checked against Python's own splitting (``bytes.split``,
the ``csv`` module, ``bytes.decode``) on hypothesis-generated files. It replaced three scanners (the
readers' streamed scan, the DuckDB engine's CSV record count and its qrels line count)."""

from __future__ import annotations

import csv
import gzip
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.data import io as mio

ALPHABET = [b"a", b"1", b" ", b"\t", b"\n", b"\r", b'"', b",", b"\xc3\xa9", b"\xff", b"\x0b"]


def _reference(data: bytes) -> dict:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines = lines[:-1]
    out = {"lines": len(lines), "longest": max((len(x) for x in lines), default=0),
           "ascii": all(b < 128 for b in data), "watched": {b for b in (9, 11) if bytes([b]) in data}}
    try:
        data.decode("utf-8")
        out["utf8"] = True
    except UnicodeDecodeError:
        out["utf8"] = False
    return out


def _records(data: bytes) -> int:
    """CSV records as the quote-parity rule counts them: newlines outside double quotes, plus a last
    record without a newline (the csv module agrees on well-formed quoting)."""
    n, inside = 0, False
    for b in data:
        if b == 34:
            inside = not inside
        elif b == 10 and not inside:
            n += 1
    return n + (1 if data and data[-1:] != b"\n" else 0)


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.sampled_from(ALPHABET), max_size=60), gz=st.booleans())
def scanner_equals_python_test(tmp_path_factory, parts, gz):
    data = b"".join(parts)
    path = tmp_path_factory.mktemp("scan") / ("f.gz" if gz else "f.txt")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    got = mio._scan_text(path, quotes=True, utf8=True, watch=bytes([9, 11]), limit=False)
    want = _reference(data)
    assert got["utf8"] == want["utf8"]
    if not want["utf8"]:
        return  # the scan stops at the first chunk that is not UTF-8
    for k in ("lines", "longest", "ascii", "watched"):
        assert got[k] == want[k], (k, data)
    assert got["records"] == _records(data)
    assert got["bytes"] == len(data) and got["gzip"] == gz
    # the counting-only scan (no line located: the DuckDB engine's clean qrels files)
    fast = mio._scan_text(path, watch=bytes([9, 11]), limit=False, longest=False)
    for k in ("lines", "ascii", "watched", "bytes"):
        assert fast[k] == (want[k] if k != "bytes" else len(data)), (k, data)
    assert fast["longest"] is None


def records_match_the_csv_module_test(tmp_path):
    data = b'a,b\n"x\ny",1\n"q""\n",2\nlast,3'
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    got = mio._scan_text(path, quotes=True, utf8=True)
    assert got["records"] == len(list(csv.reader(io.StringIO(data.decode())))) == 4
    assert got["lines"] == 6 and got["longest"] == 6


def scan_spans_chunks_test(tmp_path, monkeypatch):
    """Quotes, lines and UTF-8 sequences cut by the chunk boundary (chunks of 7 bytes here)."""
    monkeypatch.setattr(mio, "_CHUNK", 7)
    data = ('h1,h2\n"a\nb\u00e9\u00e9",1\n' * 5 + "end,\u00e9").encode()
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    got = mio._scan_text(path, quotes=True, utf8=True)
    assert got["records"] == 11 and got["lines"] == 16 and got["utf8"] and not got["ascii"]
    assert got["longest"] == max(len(x) for x in data.split(b"\n"))
    fast = mio._scan_text(path, limit=False, longest=False)
    assert fast["lines"] == 16 and not fast["ascii"]


def counting_scan_still_sees_control_bytes_test(tmp_path, monkeypatch):
    """The counting-only scan skips its byte searches in a chunk whose only byte below 32 is the
    newline; a NUL, a vertical tab or a tab anywhere (here in the third 7-byte chunk) is still seen,
    and a watched byte of 32 or more (the space of a tab-separated file) is always searched."""
    monkeypatch.setattr(mio, "_CHUNK", 7)
    for byte, key in ((b"\x00", "nul"), (b"\x0b", 11), (b"\t", 9)):
        path = tmp_path / "f.txt"
        path.write_bytes(b"q 0 d 1\nq 0 e" + byte + b" 2\nq 0 f 3\n")
        got = mio._scan_text(path, watch=bytes([9, 11]), limit=False, longest=False)
        assert got["nul"] if key == "nul" else (got["watched"] == {key} and got["lines"] == 3)
    path.write_bytes(b"q\t0\td 1\n" * 3)
    assert mio._scan_text(path, watch=bytes([32]), limit=False, longest=False)["watched"] == {32}
    path.write_bytes(b"q\t0\td\t1\n" * 3)
    got = mio._scan_text(path, watch=bytes([32, 11]), limit=False, longest=False)
    assert got["watched"] == set() and got["lines"] == 3
