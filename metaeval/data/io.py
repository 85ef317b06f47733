"""Readers and writers of judgment data, returning tidy frames with canonical columns.

Every reader raises :class:`metaeval.InputError` on bad input, with a message that names the file,
the line, the offending text, what was expected and how to fix it. Ids are always strings.

Canonical columns
-----------------
qrels           ``query_id, doc_id, relevance``
runs            ``query_id, doc_id, score, rank, run_id``
judgments       the item key column(s), ``label``, ``judge`` (when given), plus metadata columns
battles         ``item_id, model_a, model_b, judge, outcome`` (+ metadata)
score tables    ``system, query_id, measure, value``
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import stat
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.errors import InputError

if TYPE_CHECKING:
    #: What a reader reads: a path, an open binary file, or a frame to validate.
    Source = str | os.PathLike | IO[bytes] | pd.DataFrame

__all__ = [
    "read_qrels",
    "read_run",
    "read_runs",
    "read_judgments",
    "read_battles",
    "read_score_table",
    "write_qrels",
    "write_run",
    "write_table",
    "OUTCOMES",
]

#: The normalized outcomes of a pairwise battle. ``invalid`` marks a parse failure or refusal.
OUTCOMES = ("A", "B", "tie", "tie_a", "tie_b", "invalid")

_OUTCOME_ALIASES = {
    "a": "A", "model_a": "A", "1": "A", "first": "A", "left": "A", "a>b": "A",
    "b": "B", "model_b": "B", "2": "B", "second": "B", "right": "B", "b>a": "B",
    "tie": "tie", "draw": "tie", "0": "tie", "tie (bothbad)": "tie", "both_bad": "tie",
    "both_good": "tie", "=": "tie", "a=b": "tie",
    "tie_a": "tie_a", "tie(a)": "tie_a", "tie (a)": "tie_a", "tie-a": "tie_a", "tie_model_a": "tie_a",
    "tie_b": "tie_b", "tie(b)": "tie_b", "tie (b)": "tie_b", "tie-b": "tie_b", "tie_model_b": "tie_b",
    "invalid": "invalid", "parse_error": "invalid", "parse_failure": "invalid", "error": "invalid",
    "refusal": "invalid", "failed": "invalid",
}


# --------------------------------------------------------------------------------------------
# low-level helpers
# --------------------------------------------------------------------------------------------

def _name(source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return getattr(source, "name", None) or "<stream>"


#: The most bytes a gzipped input may expand to in a reader that holds the text in memory (the readers
#: here and the pandas engine of :func:`metaeval.align`). Decompression is streamed and stops at this
#: size with an :class:`~metaeval.InputError`, so that a small file that expands enormously (a "gzip
#: bomb") costs at most this much memory; a text file with a NUL byte stops at its first one. Raise it
#: (assign ``metaeval.data.io.MAX_DECOMPRESSED_BYTES``, or set the environment variable
#: ``METAEVAL_MAX_DECOMPRESSED_BYTES``, in bytes) for larger inputs; the DuckDB engine reads gzipped
#: qrels streamed, without this limit.
MAX_DECOMPRESSED_BYTES = 2 ** 30

#: The longest line the streamed scan of a text file (:func:`scan_text`: the DuckDB engine's gzipped and
#: irregular qrels) accepts; longer lines are an :class:`~metaeval.InputError` naming the line. Raise
#: it by assignment or with the environment variable ``METAEVAL_MAX_LINE_BYTES`` (bytes).
MAX_LINE_BYTES = 2 ** 28

_CHUNK = 1 << 20


#: The limits as shipped (what an error suggests).
_LIMIT_DEFAULTS = {"MAX_DECOMPRESSED_BYTES": MAX_DECOMPRESSED_BYTES, "MAX_LINE_BYTES": MAX_LINE_BYTES}


def _limit(name: str, value=None, default=None, owner: str = "metaeval.data.io") -> int:
    """The byte limit ``name`` (:data:`MAX_DECOMPRESSED_BYTES`, :data:`MAX_LINE_BYTES`, or another
    module's, given as ``value`` with its ``default`` and ``owner``): the environment variable
    ``METAEVAL_<name>`` when set, else the module's value; either must be a positive whole number of
    bytes (an InputError naming the variable, or the attribute, otherwise)."""
    default = _LIMIT_DEFAULTS[name] if default is None else default
    env = os.environ.get(f"METAEVAL_{name}")
    if env is not None and env.strip():
        try:
            number = int(env.strip())
        except ValueError:
            number = None
        if number is None or number < 1:
            raise InputError(f"METAEVAL_{name} is not a positive whole number of bytes: {env!r}",
                             source="<environment>", expected=f"a whole number of bytes of at least 1, e.g. {default}",
                             fix=f"set METAEVAL_{name}={default} (or unset it for the default)") from None
        return number
    value = globals()[name] if value is None else value
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{owner}.{name} is not a positive whole number of bytes: {value!r}",
                         source="<settings>", expected=f"a whole number of bytes of at least 1, e.g. {default}",
                         fix=f"assign {owner}.{name} = {default}")
    return int(value)


def file_states(paths) -> dict:
    """What :func:`check_unchanged` compares: per existing file its device, inode, size and modification
    time (nanoseconds); files that cannot be stat'ed are left out."""
    out = {}
    for path in paths:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            out[str(path)] = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def check_unchanged(before: dict) -> None:
    """Refuse a run whose input files changed while it read them (replaced, truncated, appended to,
    rewritten): the rows it counted may belong to neither version.

    Parameters
    ----------
    before : dict
        :func:`file_states` taken before the reading started.

    Raises
    ------
    InputError
        A file that was replaced (another inode), removed, or whose size or modification time changed.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "q.txt")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("1 0 d1 1\\n")
    >>> before = file_states([path])
    >>> with open(path, "a") as fh:
    ...     _ = fh.write("1 0 d2 0\\n")
    >>> check_unchanged(before)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: .../q.txt: the file changed while it was read (size 9 -> 18 bytes)...
    """
    after = file_states(before)
    for path, (dev, ino, size, mtime) in before.items():
        now = after.get(path)
        if now == (dev, ino, size, mtime):
            continue
        if now is None:
            what = "removed"
        elif now[:2] != (dev, ino):
            what = "replaced by another file"
        elif now[2] != size:
            what = f"size {size} -> {now[2]} bytes"
        else:
            what = "rewritten: its modification time changed"
        raise InputError(f"the file changed while it was read ({what}); the rows counted may belong to neither "
                         "version", source=path, expected="input files that stay as they are during a run",
                         fix="run again once the file is complete (or align a copy of it)")


def check_limits() -> None:
    """Check the byte limits (:data:`MAX_DECOMPRESSED_BYTES`, :data:`MAX_LINE_BYTES` and their environment
    variables) before a read: a setting that is not a positive whole number is an InputError naming it."""
    for name in _LIMIT_DEFAULTS:
        _limit(name)


_SPECIAL = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
            (stat.S_ISSOCK, "a socket"))


def check_regular(path, name: str | None = None) -> None:
    """Refuse a path that is a device, a FIFO or a socket (reading one never ends, or blocks).

    Parameters
    ----------
    path : str or os.PathLike
        The path to check (symbolic links are followed). A path that does not exist passes (the reader
        then says "file not found").
    name : str, optional
        The name in the message (default: ``path``).

    Raises
    ------
    InputError
        The path is a character or block device (``/dev/zero``), a FIFO or a socket.

    Examples
    --------
    >>> check_regular("/dev/zero")
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: /dev/zero: is a character device, not a regular file. Fix: save the data to a file (or pass a DataFrame) and read that
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    for test, what in _SPECIAL:
        if test(mode):
            raise InputError(f"is {what}, not a regular file", source=name or str(path),
                             fix="save the data to a file (or pass a DataFrame) and read that")


def _gunzip(fh, name: str, *, text: bool, limit: int | None = None, too_big=None) -> bytes:
    """Decompress a gzip stream (CRC checked), at most :data:`MAX_DECOMPRESSED_BYTES`; a text stream
    stops at its first NUL byte with the error of :func:`_check_text`. A caller with a lower bound of
    its own passes ``limit`` and ``too_big`` (bytes so far → the InputError to raise): the stream
    stops as soon as it is passed, not at the general bound."""
    general = _limit("MAX_DECOMPRESSED_BYTES")
    own = limit is not None and too_big is not None and limit < general
    limit = limit if own else general
    chunks, total = [], 0
    try:
        with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
            while True:
                chunk = gz.read(_CHUNK)
                if not chunk:
                    break
                total += len(chunk)
                if text and chunk.find(b"\x00") >= 0:  # binary: say so now, not after gigabytes
                    _nul_error(chunks, chunk, gz, name)
                if total > limit:
                    if own:
                        raise too_big(total)
                    raise InputError(f"the gzip data expands to more than {limit} bytes", source=name,
                                     expected=f"at most metaeval.data.io.MAX_DECOMPRESSED_BYTES = {limit} bytes "
                                              "of decompressed data for a reader that holds it in memory",
                                     fix="raise the limit (environment variable METAEVAL_MAX_DECOMPRESSED_BYTES, in "
                                         "bytes) if the file is genuine; align(..., engine='duckdb') streams gzipped qrels")
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"corrupt gzip data ({exc})", source=name,
                         fix="re-download or re-compress the file") from None
    return b"".join(chunks)


def _nul_error(chunks, chunk, gz, name):
    """Raise the error :func:`_check_text` gives for the whole text, from the text up to the end of the
    line of the first NUL byte (read on by at most a few chunks)."""
    head = [*chunks, chunk]
    nul = sum(map(len, chunks)) + chunk.find(b"\x00")
    for _ in range(4):
        if b"\n" in chunk[chunk.find(b"\x00"):] or not chunk:
            break
        chunk = gz.read(_CHUNK)
        head.append(chunk)
    data = _lone_cr_to_lf(b"".join(head))
    end = data.find(b"\n", nul)
    _check_text(data if end < 0 else data[:end + 1], name)


def _read_bytes(source, *, text: bool = True) -> bytes:
    """Read a path or binary/text stream; transparently gunzip (streamed, bounded: see
    :data:`MAX_DECOMPRESSED_BYTES`). Errors become InputError. ``text``: the data must be text (a NUL
    byte in gzipped data stops the decompression at once)."""
    name = _name(source)
    check_limits()  # a bad setting is named before any reading
    try:
        if isinstance(source, (str, os.PathLike)):
            check_regular(source, name)
            before = file_states([source])
            with open(source, "rb") as fh:
                if fh.read(2) == b"\x1f\x8b":
                    fh.seek(0)
                    data = _gunzip(fh, name, text=text)
                    check_unchanged(before)
                    return data
                fh.seek(0)
                data = fh.read()
            check_unchanged(before)
        elif hasattr(source, "read"):
            data = source.read()
            if isinstance(data, str):
                data = data.encode("utf-8")
        else:
            raise InputError(f"cannot read an object of type {type(source).__name__}", source=name,
                             expected="a file path, an open file, or a pandas DataFrame")
    except FileNotFoundError:
        raise InputError("file not found", source=name, fix="check the path") from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=name,
                         fix="pass a file, or use read_runs() for a directory of runs") from None
    except PermissionError:
        raise InputError("permission denied", source=name, fix="check the file's permissions") from None
    if data[:2] == b"\x1f\x8b":
        return _gunzip(io.BytesIO(data), name, text=text)
    return data


_BLANK_LINES = re.compile(rb"^[ \t]*\r?$", re.M)


def _scan_text(path, *, blank: bool = False, stop_at: int | None = None, quotes: bool = False, utf8: bool = False,
               watch: bytes = b"", limit: bool = True, longest: bool = True) -> dict:
    """Stream a text file, plain or gzipped, once and in bounded memory (CRC checked): the one newline
    scanner of the package (the readers' limits, the DuckDB engine's line and record counts).

    Returns ``lines`` (a last line without a newline counts), ``blank`` (lines of only spaces, tabs
    and a carriage return; counted with ``blank=True``), ``longest`` (bytes of the longest line, without
    its newline), ``bytes`` (decompressed), ``gzip`` and ``nul`` (a NUL byte seen: the scan stopped there;
    the caller hands the file to the full reader, whose error names the line), ``ascii`` (no byte over
    127), ``watched`` (which bytes of ``watch`` occur). ``quotes``: also ``records``, the newlines outside
    double quotes (a CSV's records: a quote inside a quoted field is doubled, so the parity of the
    quotes before a newline tells) plus a last record without a newline. ``utf8``: also ``utf8``, whether
    the bytes are valid UTF-8 (the scan stops at the first invalid chunk). ``stop_at``: stop once this
    many bytes are read (``complete`` is then False). ``longest=False`` (with ``limit=False``, ``blank`` and
    ``quotes`` off): ``longest`` is not measured (None), and the newlines are counted without locating
    each (several times faster). Raises InputError for corrupt gzip data and, with ``limit``, for a line
    longer than :data:`MAX_LINE_BYTES`.
    """
    import codecs

    name = str(path)
    check_regular(path, name)
    _limit("MAX_DECOMPRESSED_BYTES")
    limit_bytes = _limit("MAX_LINE_BYTES") if limit else None
    out = {"lines": 0, "blank": 0, "longest": 0, "bytes": 0, "gzip": False, "nul": False, "complete": True,
           "ascii": True, "watched": set()}
    count_only = not (longest or limit or blank or quotes)  # newlines counted, not located
    if count_only:
        out["longest"] = None
    if quotes:
        out["records"] = 0
    if utf8:
        out["utf8"] = True
        dec = codecs.getincrementaldecoder("utf-8")()
    cur, carry, parity, last = 0, b"", 0, b""  # the unfinished line: its length, its text while short

    def too_long(line):
        return InputError(f"a line longer than {limit_bytes} bytes", source=name, line=line,
                          expected=f"lines of at most metaeval.data.io.MAX_LINE_BYTES = {limit_bytes} bytes",
                          fix="check that this is the right file; raise the limit with the environment "
                              "variable METAEVAL_MAX_LINE_BYTES if the line is genuine")

    try:
        with open(path, "rb") as raw:
            out["gzip"] = raw.read(2) == b"\x1f\x8b"
            raw.seek(0)
            fh = gzip.GzipFile(fileobj=raw, mode="rb") if out["gzip"] else raw
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                last = chunk[-1:]
                controls = True  # whether a byte below 32 other than the newline may be in the chunk
                if count_only:  # one counting pass says whether the searches for such bytes are needed
                    arr = np.frombuffer(chunk, dtype=np.uint8)
                    k = int(np.count_nonzero(arr == 10))
                    controls = int(np.count_nonzero(arr < 32)) != k
                if controls and chunk.find(b"\x00") >= 0:
                    out["nul"] = True
                    return out
                for w in watch:
                    if w not in out["watched"] and (controls or w >= 32 or w == 10) and chunk.find(bytes([w])) >= 0:
                        out["watched"].add(w)
                if out["ascii"] and not chunk.isascii():
                    out["ascii"] = False
                if utf8 and (not out["ascii"] or dec.getstate()[0]):
                    try:
                        dec.decode(chunk)
                    except UnicodeDecodeError:
                        out["utf8"] = False
                        return out
                out["bytes"] += len(chunk)
                if count_only:
                    out["lines"] += k
                    cur = len(chunk) - chunk.rfind(b"\n") - 1 if k else cur + len(chunk)
                    if stop_at is not None and out["bytes"] >= stop_at:
                        out["complete"] = False
                        return out
                    continue
                arr = np.frombuffer(chunk, dtype=np.uint8)
                is_nl = arr == 10
                nl = np.flatnonzero(is_nl)
                if quotes:
                    q = arr == 34
                    if q.any():
                        odd = (np.cumsum(q, dtype=np.uint8) + parity) % 2  # uint8 wraps at 256: parity holds
                        parity = int(odd[-1])
                        out["records"] += int(np.count_nonzero(is_nl & (odd == 0)))
                    else:
                        out["records"] += len(nl) if parity == 0 else 0
                if not len(nl):
                    cur += len(chunk)
                    carry = (carry + chunk[:4096])[:4096]
                    if limit_bytes is not None and cur > limit_bytes:
                        raise too_long(out["lines"] + 1)
                else:
                    first = cur + int(nl[0])
                    gaps = np.diff(nl) - 1
                    top = max(first, int(gaps.max()) if len(gaps) else 0)
                    if limit_bytes is not None and top > limit_bytes:
                        at = 0 if first > limit_bytes else int(np.flatnonzero(gaps > limit_bytes)[0]) + 1
                        raise too_long(out["lines"] + at + 1)
                    out["longest"] = max(out["longest"], top)
                    out["lines"] += len(nl)
                    if blank:
                        head = carry + chunk[:int(nl[0])]
                        if first < 4096 and _BLANK_LINES.fullmatch(head):
                            out["blank"] += 1
                        if len(nl) > 1:
                            body = chunk[int(nl[0]) + 1:int(nl[-1])]
                            if body[:1] in (b" ", b"\t", b"\r") or any(  # a line that starts with white space
                                    body.find(w) >= 0 for w in (b"\n ", b"\n\t", b"\n\r")):
                                out["blank"] += len(_BLANK_LINES.findall(body))
                            else:  # only empty lines can be blank
                                out["blank"] += int(np.count_nonzero(gaps == 0))
                    tail = chunk[int(nl[-1]) + 1:]
                    cur, carry = len(tail), tail[:4096]
                    if limit_bytes is not None and cur > limit_bytes:
                        raise too_long(out["lines"] + 1)
                if stop_at is not None and out["bytes"] >= stop_at:
                    out["complete"] = False
                    return out
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"corrupt gzip data ({exc})", source=name,
                         fix="re-download or re-compress the file") from None
    if utf8:
        try:
            dec.decode(b"", final=True)
        except UnicodeDecodeError:
            out["utf8"] = False
    if cur:
        out["lines"] += 1
        if not count_only:
            out["longest"] = max(out["longest"], cur)
        if blank and cur < 4096 and _BLANK_LINES.fullmatch(carry):
            out["blank"] += 1
    if quotes and last and last != b"\n":
        out["records"] += 1
    return out


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _line_text(data: bytes, line: int) -> str:
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return ""
    end = data.find(b"\n", start)
    raw = data[start:] if end < 0 else data[start:end]
    return raw.decode("utf-8", errors="replace")


_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # what bytes.strip() strips, without copying the data


def _check_text(data: bytes, name: str) -> None:
    """Reject binary junk and bad encodings, naming the line."""
    if _NOT_SPACE.search(data) is None:
        raise InputError("the file is empty", source=name, fix="check that the file was written completely")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = _line_of_offset(data, nul)
        raise InputError("binary data (a NUL byte) in a text file", source=name, line=line,
                         text=_line_text(data, line), expected="UTF-8 text",
                         fix="check that this is the right file and that it is not compressed "
                             "with something other than gzip")
    if data.isascii():  # much faster than decoding, and ASCII is valid UTF-8
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = _line_of_offset(data, exc.start)
        raise InputError(f"invalid UTF-8 ({exc.reason} at byte {exc.start})", source=name, line=line,
                         text=_line_text(data, line), expected="UTF-8 text",
                         fix="re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None


_EXPECTED_IN_LINE = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_EOF_IN_STRING = re.compile(r"EOF inside string starting at row (\d+)")
_LONE_CR = re.compile(rb"\r(?!\n)")
_LEADING_BLANK = re.compile(rb"(?:[ \t\r]*\n)*")


def _lone_cr_to_lf(data: bytes) -> bytes:
    """A carriage return not followed by a newline (old Mac line ends) ends a line for pandas; make it a
    newline so that line numbers are counted the same way everywhere."""
    if b"\r" in data and _LONE_CR.search(data):
        data = _LONE_CR.sub(b"\n", data)
    return data


_UNUSED_FIELDS = {"iteration", "Q0"}


def _fast_split(data, fields: tuple[str, ...], int_fields: tuple[str, ...] = (), *, check_utf8: bool = False):
    """Fast path of :func:`_parse_whitespace` for a clean file, or None.

    A clean file has one delimiter (a single space or a single tab, not both), no blank lines, no
    leading or trailing delimiters and exactly ``len(fields)`` non-empty fields on every line; pyarrow
    splits it several times faster than pandas' ``sep=r"\\s+"`` with string columns. Anything else (or
    no pyarrow) returns None and the pandas path, which produces the error messages, runs instead.
    ``int_fields`` are parsed as int64 right away when the file has no ``x``/``X`` (pyarrow would read
    ``0x10`` as hex, where pandas sees text); the caller still checks their range.
    """
    has_tab, has_space = data.find(b"\t") >= 0, data.find(b" ") >= 0  # find(): bytes or mmap
    if has_tab == has_space:
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv

        ints = set(int_fields) if data.find(b"x") < 0 and data.find(b"X") < 0 else set()
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),  # no copy of the bytes (or of the mapped file)
            read_options=pacsv.ReadOptions(column_names=list(fields), use_threads=True, block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter="\t" if has_tab else " ", quote_char=False,
                                             escape_char=False, newlines_in_values=False,
                                             ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                # large_string: what pandas' str dtype holds, so to_pandas() does not cast
                column_types={f: pa.int64() if f in ints else pa.large_string() for f in fields},
                strings_can_be_null=False, quoted_strings_can_be_null=False, null_values=[],
                check_utf8=check_utf8))  # by default, UTF-8 was checked before
        if table.num_rows == 0 or any(pc.any(pc.equal(col, "")).as_py() for col in table.columns
                                      if pa.types.is_large_string(col.type)):
            return None  # doubled, leading or trailing delimiters, or whitespace-only lines
        # the constant columns (qrels' iteration, runs' Q0) are checked above but never used: converting
        # them to pandas would cost a third of the read
        raw = table.drop_columns([f for f in fields if f in _UNUSED_FIELDS]).to_pandas()
    except Exception:  # any pyarrow failure (wrong field count, long line, old version): use pandas
        return None
    strings = [f for f in raw.columns if raw[f].dtype.kind != "i"]
    raw[strings] = raw[strings].astype(str)  # the dtype pandas gives for dtype=str (a no-op with pandas 3)
    return raw


def _fast_file(source, fields: tuple[str, ...], int_fields: tuple[str, ...] = ()):
    """The fast path straight from a plain (not gzipped) file, memory-mapped, or None.

    Only for files that need none of the repairs or messages of the full path: no NUL byte, no
    carriage return, no leading whitespace, valid UTF-8 (checked by pyarrow while it parses). Anything
    else returns None, and the caller reads the bytes and takes the full path.
    """
    import mmap

    if not isinstance(source, (str, os.PathLike)):
        return None
    check_regular(source)
    try:
        with open(source, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < (1 << 20):  # small files: the full path is fast enough
                return None
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        if mm[:2] == b"\x1f\x8b" or mm[:1] in (b" ", b"\t", b"\n", b"\r", b"\xef"):
            return None
        if mm.find(b"\x00") >= 0 or mm.find(b"\r") >= 0:
            return None
        view = np.frombuffer(mm, dtype=np.uint8)
        ascii_only = bool(view.max() < 128)  # then no UTF-8 check is needed (cheaper than pyarrow's)
        del view  # release the export, or mm.close() fails
        return _fast_split(mm, fields, int_fields, check_utf8=not ascii_only)
    finally:
        try:
            mm.close()
        except BufferError:  # pragma: no cover - an exported buffer still alive (pyarrow copied it)
            pass


def _fast_int(values: pd.Series):
    """Decimal integer strings as float64 via pyarrow (much faster than pd.to_numeric), or None."""
    if values.dtype.kind == "i":  # already parsed by _fast_split
        out = values.to_numpy().astype(float)
        return out if len(out) and np.abs(out).max() <= 2.0 ** 53 else None
    if not pd.api.types.is_string_dtype(values.dtype):
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(values, from_pandas=True)
        # only plain decimal integers: pyarrow would also accept hex (0x10) where pandas does not
        if arr.null_count or not pc.all(pc.ascii_is_decimal(pc.utf8_ltrim(arr, "-"))).as_py():
            return None
        out = pc.cast(arr, pa.int64()).to_numpy(zero_copy_only=False).astype(float)
    except Exception:
        return None
    return out if len(out) and np.abs(out).max() <= 2.0 ** 53 else None


def _parse_whitespace(data: bytes, name: str, fields: tuple[str, ...], *, min_fields: int | None = None,
                      int_fields: tuple[str, ...] = ()):
    """Split whitespace-separated lines into string columns; every line must have len(fields) fields.

    Returns a DataFrame with one row per *non-blank* line and an integer array of line numbers.
    ``data`` must have been through :func:`_lone_cr_to_lf` (the callers keep it for ``_line_text``).
    """
    _check_text(data, name)
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark (it may precede a blank line)
        data = data[3:]
    n = len(fields)
    # pandas takes the number of columns from the first line, so leading blank lines are skipped here
    # and counted back into the line numbers
    lead = _LEADING_BLANK.match(data).end()
    skip = data.count(b"\n", 0, lead)
    if not lead:
        raw = _fast_split(data, fields, int_fields)
        if raw is not None:
            return raw, np.arange(1, len(raw) + 1)
    try:
        raw = pd.read_csv(io.BytesIO(data[lead:] if lead else data), sep=r"\s+", header=None, dtype=str,
                          engine="c", skip_blank_lines=False, quoting=csv.QUOTE_NONE, na_filter=False,
                          comment=None, encoding="utf-8")
    except pd.errors.ParserError as exc:
        m = _EXPECTED_IN_LINE.search(str(exc))
        if m and int(m.group(1)) != n and int(m.group(3)) == n:
            # pandas takes the width from the first line: here that line is the odd one out
            line = skip + 1
            raise InputError(f"found {m.group(1)} fields", source=name, line=line, text=_line_text(data, line),
                             expected=f"{n} whitespace-separated fields ({' '.join(fields)})",
                             fix="complete or delete the line (a header or a stray line at the top?)") from None
        if m:
            line = int(m.group(2)) + skip
            # pandas infers the width from the first line; report relative to the format's width
            raise InputError(f"found {m.group(3)} fields, but earlier lines have {m.group(1)}", source=name,
                             line=line, text=_line_text(data, line),
                             expected=f"{n} whitespace-separated fields ({' '.join(fields)})",
                             fix="remove the extra fields; ids must not contain spaces") from None
        raise InputError(f"cannot parse the file ({exc})", source=name,
                         expected=f"{n} whitespace-separated fields ({' '.join(fields)})") from None
    except pd.errors.EmptyDataError:
        raise InputError("the file is empty", source=name, fix="check that the file was written completely") from None
    width = raw.shape[1]
    if width != n and not (min_fields is not None and min_fields <= width < n):
        first = int(np.flatnonzero((raw != "").any(axis=1).to_numpy())[0]) + 1 + skip
        raise InputError(f"found {width} fields", source=name, line=first, text=_line_text(data, first),
                         expected=f"{n} whitespace-separated fields ({' '.join(fields)})",
                         fix="check that this file has the expected format (qrels: 4 fields, runs: 6)")
    lines = np.arange(1 + skip, len(raw) + 1 + skip)
    empty = raw.iloc[:, -1].to_numpy() == ""
    if empty.any():
        blank = (raw == "").all(axis=1).to_numpy()
        short = empty & ~blank
        if short.any():
            line = int(lines[short][0])
            nf = len(_line_text(data, line).split())
            raise InputError(f"found {nf} fields", source=name, line=line, text=_line_text(data, line),
                             expected=f"{n} whitespace-separated fields ({' '.join(fields)})",
                             fix="complete or delete the line")
        if blank.any():
            raw = raw.loc[~blank].reset_index(drop=True)
            lines = lines[~blank]
    if len(raw) == 0:
        raise InputError("the file has no data lines", source=name)
    raw.columns = list(fields[:raw.shape[1]])
    return raw, lines


def _to_number(values: pd.Series, lines: np.ndarray, name: str, column: str, *, integer: bool,
               data: bytes | None = None, allow_nan: bool = False, header_hint: bool = False) -> np.ndarray:
    """Convert a string column to numbers, raising InputError at the first bad value."""
    if integer:
        fast = _fast_int(values)
        if fast is not None:
            return fast
    out = pd.to_numeric(values, errors="coerce")
    arr = np.asarray(out, dtype=float)
    bad = np.isnan(arr)
    if allow_nan and bad.any():
        lit = values.to_numpy()[bad].astype(str)
        ok = np.char.lower(lit) == "nan"
        idx = np.flatnonzero(bad)
        bad[idx[ok]] = False
    if integer:
        finite = np.isfinite(arr)
        bad |= ~finite & ~bad & ~np.isnan(arr)  # +-inf
        nonint = finite & ((arr != np.round(arr)) | (np.abs(arr) > 2.0 ** 53))  # beyond 2**53: not exact, overflows
        bad |= nonint
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        line = int(lines[i])
        text = _line_text(data, line) if data is not None else str(values.iloc[i])
        kind = "an integer" if integer else "a number"
        if i == 0 and header_hint and np.isnan(arr[i]):  # text, not a wrong number
            raise InputError(f"this looks like a header line ({column} is {values.iloc[i]!r})", source=name,
                             line=line, text=text, expected=f"{kind} in column {column}; this format has no header",
                             fix="delete the header line")
        raise InputError(f"{column} is not {kind}: {values.iloc[i]!r}", source=name, line=line, text=text,
                         expected=f"{kind} in column {column}",
                         fix=f"correct the value, or delete the line ({int(bad.sum())} such line(s) in all)")
    return arr


class LineNumbers(np.ndarray):
    """The source line of each row (an int array kept in ``df.attrs["lines"]``).

    It compares by identity: pandas compares ``attrs`` with ``==`` when it concatenates frames, and a
    plain array there raises "truth value of an array is ambiguous" (pandas 3).
    """

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = None


def _line_numbers(lines) -> LineNumbers:
    return np.asarray(lines, dtype=np.int64).view(LineNumbers)


def _finish(df: pd.DataFrame, name: str, lines: np.ndarray) -> pd.DataFrame:
    df.attrs["source"] = name
    df.attrs["lines"] = _line_numbers(lines)
    return df


# --------------------------------------------------------------------------------------------
# qrels and runs
# --------------------------------------------------------------------------------------------

_QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")
_RUN_FIELDS = ("query_id", "Q0", "doc_id", "rank", "score", "tag")


def read_qrels(source: Source) -> pd.DataFrame:
    """Read TREC qrels (``query_id iteration doc_id relevance``), plain or gzipped.

    Parameters
    ----------
    source : path, open binary file, or DataFrame
        A whitespace-separated qrels file. A DataFrame with ``query_id, doc_id, relevance`` is
        validated and returned as a copy.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64); one row per line, in file
        order. ``df.attrs["source"]`` is the file name and ``df.attrs["lines"]`` the line number of each
        row. ``#`` is an ordinary character (MS MARCO v2.1 segment ids contain it), not a comment.

    Raises
    ------
    InputError
        Wrong number of fields, a non-integer relevance, a header line, an empty file, binary data or
        bad encoding; the message names the file and the line.

    References
    ----------
    The TREC qrels format as trec_eval reads it. tests/test_io.py covers the format's variants and
    errors (each naming its line); tests/test_io_realdata.py reads the TREC DL 2019–2021, LLMJudge
    and TREC RAG 2025 UMBRELA qrels and checks every row against its line and the label counts
    against the data sets' PROVENANCE.md.

    Examples
    --------
    >>> import io
    >>> read_qrels(io.BytesIO(b"q1 0 msmarco_v2.1_doc_1#2_3 2\\n")).to_dict("records")
    [{'query_id': 'q1', 'doc_id': 'msmarco_v2.1_doc_1#2_3', 'relevance': 2}]
    >>> import metaeval as me
    >>> q = read_qrels(me.datasets.path("trec_dl_like") / "qrels.human.txt")
    >>> q.dtypes.astype(str).tolist(), q["relevance"].value_counts().sort_index().tolist()
    (['str', 'str', 'int64'], [4444, 1531, 948, 811])
    """
    if isinstance(source, pd.DataFrame):
        return _validate_frame(source, ("query_id", "doc_id", "relevance"), "qrels", integer=("relevance",))
    name = _name(source)
    raw = _fast_file(source, _QRELS_FIELDS, int_fields=("relevance",))
    if raw is not None:
        data, lines = None, np.arange(1, len(raw) + 1)
    else:
        data = _lone_cr_to_lf(_read_bytes(source))  # so that _line_text() below counts lines as the parser did
        raw, lines = _parse_whitespace(data, name, _QRELS_FIELDS, min_fields=3, int_fields=("relevance",))
    if "relevance" not in raw.columns:
        raise InputError("found 3 fields: this is an unlabelled pool (query_id iteration doc_id), not qrels",
                         source=name, line=int(lines[0]), text=_line_text(data, int(lines[0])),
                         expected="4 fields (query_id iteration doc_id relevance)",
                         fix="use the labelled qrels file, or read the pool with read_judgments()")
    rel = _to_number(raw["relevance"], lines, name, "relevance", integer=True, data=data, header_hint=True)
    out = pd.DataFrame({"query_id": raw["query_id"], "doc_id": raw["doc_id"],
                        "relevance": rel.astype(np.int64)})
    return _finish(out, name, lines)


def read_run(source: Source, *, run_id: str | None = None) -> pd.DataFrame:
    """Read one TREC run (``query_id Q0 doc_id rank score tag``), plain or gzipped.

    Parameters
    ----------
    source : path, open binary file, or DataFrame
        A whitespace-separated run file (``.gz`` is read as gzip). A DataFrame with ``query_id,
        doc_id, score`` is validated and returned as a copy (with ``run_id`` added when missing).
    run_id : str, optional
        The run's name, instead of the tag column.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id, doc_id`` (str), ``score`` (float64; a literal ``nan`` is kept as NaN and left
        for the evaluation to report), ``rank`` (int64), ``run_id`` (str, the tag column unless
        ``run_id`` is given). File order is kept; ``df.attrs["lines"]`` holds each row's line.

    Raises
    ------
    InputError
        Wrong number of fields, a non-numeric score or rank, a header line, an empty file, binary
        data or bad encoding; the message names the file and the line.

    References
    ----------
    The TREC run format as trec_eval reads it. tests/test_io.py (columns, dtypes, errors) and
    tests/test_io_realdata.py (the official TREC DL runs, row by row against the files' lines).

    Examples
    --------
    >>> import metaeval as me
    >>> r = read_run(me.datasets.path("trec_dl_like") / "runs" / "run_01.txt.gz")
    >>> r.columns.tolist(), len(r), r["run_id"].iloc[0]
    (['query_id', 'doc_id', 'score', 'rank', 'run_id'], 4000, 'run_01')
    """
    if isinstance(source, pd.DataFrame):
        df = _validate_frame(source, ("query_id", "doc_id", "score"), "run")
        if "run_id" not in df:
            df["run_id"] = run_id or "run"
        return df
    name = _name(source)
    raw = _fast_file(source, _RUN_FIELDS, int_fields=("rank",))
    if raw is not None:
        data, lines = None, np.arange(1, len(raw) + 1)
    else:
        data = _lone_cr_to_lf(_read_bytes(source))  # so that _line_text() below counts lines as the parser did
        raw, lines = _parse_whitespace(data, name, _RUN_FIELDS, int_fields=("rank",))
    rank = _to_number(raw["rank"], lines, name, "rank", integer=True, data=data, header_hint=True)
    score = _to_number(raw["score"], lines, name, "score", integer=False, data=data, allow_nan=True,
                       header_hint=True)
    out = pd.DataFrame({"query_id": raw["query_id"], "doc_id": raw["doc_id"], "score": score,
                        "rank": rank.astype(np.int64),
                        "run_id": raw["tag"] if run_id is None else pd.Series(run_id, index=raw.index, dtype="str")})
    return _finish(out, name, lines)


def read_runs(sources: str | os.PathLike | Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Read several runs: a list of paths, or a directory (every non-hidden file in it, sorted by name).

    Parameters
    ----------
    sources : path or sequence of paths
        A directory of run files, one run file, or a list of them.

    Returns
    -------
    pandas.DataFrame
        One frame with the columns of :func:`read_run`, the files one after the other;
        ``df.attrs["source"]`` lists the files.

    Raises
    ------
    InputError
        Two files with the same tag (their rows would be merged silently otherwise), an empty
        directory or list, or any error of :func:`read_run`.

    References
    ----------
    As :func:`read_run`; tests/test_io_realdata.py reads the 159 official TREC DL 2019–2021 runs.

    Examples
    --------
    >>> import metaeval as me
    >>> runs = read_runs(me.datasets.path("trec_dl_like") / "runs")
    >>> runs["run_id"].nunique(), len(runs)
    (30, 120000)
    """
    if isinstance(sources, (str, os.PathLike)) and Path(sources).is_dir():
        paths = sorted(p for p in Path(sources).iterdir() if p.is_file() and not p.name.startswith("."))
        if not paths:
            raise InputError("the directory holds no run files", source=str(sources))
    elif isinstance(sources, (str, os.PathLike)):
        paths = [Path(sources)]
    else:
        paths = list(sources)
    if not paths:
        raise InputError("no run files given", source="<list>", expected="at least one path")
    frames, seen = [], {}
    for p in paths:
        df = read_run(p)
        for tag in df["run_id"].unique():
            if tag in seen:
                line = int(df.attrs["lines"][np.flatnonzero(df["run_id"].to_numpy() == tag)[0]])
                raise InputError(f"run tag {tag!r} also occurs in {seen[tag]}", source=str(p), line=line,
                                 fix="give every run a distinct tag")
            seen[tag] = str(p)
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["source"] = [str(p) for p in paths]
    return out


# --------------------------------------------------------------------------------------------
# tables: judgments, battles, score tables
# --------------------------------------------------------------------------------------------

_TABLE_EXT = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "tsv", ".json": "json",
              ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


def _table_format(name: str, fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in {"csv", "tsv", "json", "jsonl", "parquet"}:
            raise InputError(f"unknown format {fmt!r}", source=name,
                             expected="one of csv, tsv, json, jsonl, parquet")
        return fmt
    base = name[:-3] if name.endswith(".gz") else name
    ext = os.path.splitext(base)[1].lower()
    if ext not in _TABLE_EXT:
        raise InputError(f"cannot tell the table format from the extension {ext!r}", source=name,
                         fix="rename the file (.csv, .tsv, .json, .jsonl, .parquet) or pass format=")
    return _TABLE_EXT[ext]


def _read_table(source, fmt: str | None = None) -> tuple[pd.DataFrame, str, int]:
    """Read a CSV/TSV/JSON/JSONL/Parquet table as strings (numbers converted later).

    Returns the frame, the source name and the line number of its first data row (rows are then
    consecutive, except for JSON arrays and Parquet where "line" means record number).
    """
    if isinstance(source, pd.DataFrame):
        df = source.copy()
        df.columns = [str(c) for c in df.columns]
        return df.reset_index(drop=True), "<DataFrame>", 1
    name = _name(source)
    fmt = _table_format(name, fmt)
    data = _read_bytes(source, text=fmt != "parquet")
    if fmt == "parquet":
        try:
            df = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # pyarrow raises several types
            raise InputError(f"not a readable Parquet file ({type(exc).__name__}: {exc})", source=name,
                             fix="check that the file is Parquet, or rename it to its real format") from None
        return df.reset_index(drop=True), name, 1
    data = _lone_cr_to_lf(data)
    _check_text(data, name)
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        try:
            df = pd.read_csv(io.BytesIO(data), sep=sep, dtype=str, engine="c", keep_default_na=False,
                             skip_blank_lines=True, encoding="utf-8")
        except pd.errors.ParserError as exc:
            m = _EXPECTED_IN_LINE.search(str(exc))
            if m:
                line = int(m.group(2))
                raise InputError(f"found {m.group(3)} fields, the header has {m.group(1)}", source=name,
                                 line=line, text=_line_text(data, line),
                                 expected=f"{m.group(1)} {'comma' if sep == ',' else 'tab'}-separated fields",
                                 fix="quote fields that contain the separator, or remove the extra fields") from None
            m = _EOF_IN_STRING.search(str(exc))
            if m:  # pandas counts rows from 0
                line = int(m.group(1)) + 1
                raise InputError("a quote that is never closed", source=name, line=line,
                                 text=_line_text(data, line), expected="quotes in pairs",
                                 fix="close the quote, or double it (\"\") inside a quoted field") from None
            raise InputError(f"cannot parse the table ({exc})", source=name) from None
        except pd.errors.EmptyDataError:
            raise InputError("the file is empty", source=name) from None
        # lines the parser skips as blank: only spaces, tabs (unless tab is the separator) and \r
        blank_chars = b" \r" if sep == "\t" else b" \t\r"
        header_line, lines = 1, None
        if re.search(rb"(?:\A|\n)[" + blank_chars + rb"]*(?:\n|\Z)", data[:-1] if data.endswith(b"\n") else data):
            # blank lines are skipped by the parser, so line numbers need a map
            nonblank = [i + 1 for i, ln in enumerate(data.split(b"\n")) if ln.strip(blank_chars)]
            header_line, lines = nonblank[0], _line_numbers(nonblank[1:1 + len(df)])
            df.attrs["lines"] = lines
        repeated = [c for c in df.columns if re.fullmatch(r"(.+)\.\d+", str(c))
                    and re.fullmatch(r"(.+)\.\d+", str(c)).group(1) in df.columns]
        if repeated:  # pandas renames a repeated name x to x.1; check the header as written
            written = next(csv.reader([_line_text(data, header_line)], delimiter=sep), [])
            repeated = len(written) != len(set(written))
        if repeated or any(str(c).startswith("Unnamed: ") for c in df.columns):
            raise InputError("the header has empty or repeated column names", source=name, line=header_line,
                             text=_line_text(data, header_line), fix="give every column a distinct name")
        if not isinstance(df.index, pd.RangeIndex):
            # the first data row has one field more than the header: pandas silently makes it the index
            line = int(lines[0]) if lines is not None and len(lines) else header_line + 1
            raise InputError(f"found {len(df.columns) + df.index.nlevels} fields, the header has {len(df.columns)}",
                             source=name, line=line, text=_line_text(data, line),
                             expected=f"{len(df.columns)} {'comma' if sep == ',' else 'tab'}-separated fields",
                             fix="quote fields that contain the separator, or remove the extra field")
        if len(df) == 0:  # a header line only: say so here, not as "0 pairs" and a numpy error later
            raise InputError(f"only a header line ({', '.join(map(str, df.columns))}), no data rows", source=name,
                             line=header_line, expected="one data row per judgment after the header",
                             fix="check that the file was written completely")
        return df, name, 2
    if fmt == "jsonl":
        records, lines = [], []
        # split on \n only: str.splitlines() also splits at U+2028, U+0085 etc., legal inside JSON strings
        for i, raw in enumerate(data.decode("utf-8-sig").split("\n"), start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except RecursionError:
                raise InputError("JSON nested too deeply", source=name, line=i, text=raw,
                                 expected="one flat JSON object per line") from None
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON ({exc.msg})", source=name, line=i, text=raw,
                                 expected="one JSON object per line", fix="correct or delete the line") from None
            if not isinstance(rec, dict):
                raise InputError("a JSON line that is not an object", source=name, line=i, text=raw,
                                 expected="one JSON object per line")
            records.append(rec)
            lines.append(i)
        if not records:
            raise InputError("the file has no records", source=name)
        df = pd.DataFrame.from_records(records)
        df.attrs["lines"] = _line_numbers(lines)
        return df, name, 1
    # json: an array of records, or {"column": [...]} / {"column": {...}}
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except RecursionError:
        raise InputError("JSON nested too deeply", source=name,
                         expected="an array of objects (records) or an object of equal-length columns") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", source=name, line=exc.lineno,
                         text=_line_text(data, exc.lineno), fix="correct the JSON") from None
    if isinstance(obj, list) and all(isinstance(r, dict) for r in obj) and obj:
        df = pd.DataFrame.from_records(obj)
    elif isinstance(obj, dict) and obj and all(isinstance(v, (list, dict)) for v in obj.values()):
        try:
            df = pd.DataFrame(obj)
        except ValueError as exc:
            raise InputError(f"JSON columns do not form a table ({exc})", source=name) from None
    else:
        raise InputError("JSON that is not a table", source=name,
                         expected="an array of objects (records) or an object of equal-length columns")
    return df.reset_index(drop=True), name, 1


def _frame_source(df: pd.DataFrame, numbered: bool = True) -> tuple[pd.DataFrame, str, np.ndarray | None]:
    """A DataFrame given in place of a file, as (frame with a fresh index, source name, line numbers):
    the ``source`` and ``lines`` its reader left in ``attrs`` when they still fit its rows, else
    ``"<DataFrame>"`` and 1..n (so that errors name a row either way; None with ``numbered=False``,
    for an engine that numbers the rows itself)."""
    df = df.reset_index(drop=True)
    name = df.attrs.get("source", "<DataFrame>")
    lines = df.attrs.get("lines")
    if not isinstance(name, str) or lines is None or len(lines) != len(df):
        name = name if isinstance(name, str) else "<DataFrame>"
        return df, name, np.arange(1, len(df) + 1) if numbered else None
    return df, name, np.asarray(lines)


def _row_lines(df: pd.DataFrame, first: int) -> np.ndarray:
    lines = df.attrs.get("lines")
    if lines is not None and len(lines) == len(df):
        return np.asarray(lines)
    return np.arange(first, first + len(df))


def _require_columns(df: pd.DataFrame, cols, name: str, what: str, param: str | None = None) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        have = ", ".join(map(str, df.columns[:20]))
        raise InputError(f"missing column(s) {', '.join(map(repr, missing))} for {what}", source=name, line=1,
                         expected=f"columns {', '.join(map(str, cols))}; the file has: {have}",
                         fix=f"rename the column(s) or name them with {param or 'the column arguments'}")


def _as_id(series: pd.Series, lines: np.ndarray, name: str, column: str) -> pd.Series:
    """Ids as strings; integer-valued floats from JSON/Parquet lose their '.0'."""
    s = series
    if s.dtype.kind == "f":
        vals = s.to_numpy()
        if np.all(np.isnan(vals) | (vals == np.round(vals))):
            s = pd.Series([None if np.isnan(v) else str(int(v)) for v in vals], index=s.index, dtype="str")
    s = s.astype("str")
    blank = s.isna().to_numpy() | (s.str.strip() == "").to_numpy()
    if blank.any():
        i = int(np.flatnonzero(blank)[0])
        raise InputError(f"empty id in column {column!r} ({int(blank.sum())} row(s))", source=name,
                         line=int(lines[i]), expected="a non-empty id on every row",
                         fix="fill in the id, or delete the row")
    return s


def _label_numeric(series: pd.Series, lines: np.ndarray, name: str, column: str) -> np.ndarray:
    """Labels as float64 with NaN for missing (empty, NA, NaN, null)."""
    if series.dtype.kind in "biuf":
        return series.to_numpy(dtype=float)
    if series.dtype.kind == "b":
        return series.to_numpy(dtype=float)
    s = series.astype("object")
    missing = s.isna().to_numpy() | s.map(lambda v: isinstance(v, str) and v.strip().lower()
                                          in {"", "na", "nan", "null", "none", "n/a"}).to_numpy()
    vals = pd.to_numeric(s.where(~missing, None), errors="coerce").to_numpy(dtype=float)
    bad = np.isnan(vals) & ~missing
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{column} is not a number: {s.iloc[i]!r} ({int(bad.sum())} such row(s))", source=name,
                         line=int(lines[i]), expected=f"a numeric label in column {column!r} (or empty for missing)",
                         fix="map text labels to numbers first, or pass numeric=False")
    return vals


def _validate_frame(df: pd.DataFrame, cols, what: str, integer=()) -> pd.DataFrame:
    _require_columns(df, cols, "<DataFrame>", what)
    out = df.copy().reset_index(drop=True)
    lines = np.arange(1, len(out) + 1)
    for c in ("query_id", "doc_id", "run_id", "item_id", "system"):
        if c in out:
            out[c] = _as_id(out[c], lines, "<DataFrame>", c)
    for c in integer:
        vals = _label_numeric(out[c], lines, "<DataFrame>", c)
        _to_number(pd.Series(vals), lines, "<DataFrame>", c, integer=True)
        out[c] = vals.astype(np.int64)
    return _finish(out, "<DataFrame>", lines)


def read_judgments(source: Source, *, item: str | Sequence[str] = "item_id", label: str = "label", judge: str | None = None,
                   format: str | None = None, numeric: bool = True) -> pd.DataFrame:
    """Read judgments (one row per judged item) from CSV, TSV, JSON, JSONL, Parquet or a DataFrame.

    Parameters
    ----------
    source : path or DataFrame
        The table; the format follows the extension (``.csv``, ``.tsv``, ``.json``, ``.jsonl``,
        ``.parquet``, each optionally ``.gz``) unless ``format`` is given.
    item : str or sequence of str
        The column(s) that identify an item, e.g. ``("query_id", "doc_id")``. A single column is
        renamed to ``item_id``; several keep their names. Ids become strings.
    label : str
        The column with the label; renamed to ``label``. Empty, ``NA``, ``NaN`` and ``null`` are
        missing labels (kept as NaN; :func:`metaeval.align` counts them).
    judge : str, optional
        A column naming who judged each row (renamed to ``judge``), or, if no such column exists, a
        constant judge name for every row.
    format : {"csv", "tsv", "json", "jsonl", "parquet"}, optional
        The table format, when the extension does not tell it.
    numeric : bool
        Labels must be numbers (default). With False, labels are kept as strings.

    Returns
    -------
    pandas.DataFrame
        The key column(s), ``label``, ``judge`` (if given), then every other column unchanged
        (response text or length, generator, flags, ...).

    Raises
    ------
    InputError
        A missing column, a non-numeric label (with ``numeric=True``), an empty id, or an unreadable
        table; the message names the file, the line and the fix.

    References
    ----------
    pandas' CSV/JSON/Parquet readers with explicit dtypes; tests/test_io.py (every format, errors
    naming the line) and tests/test_io_fuzz.py (random malformed input raises an InputError).

    Examples
    --------
    The ImageCLEF-like validation sample, keyed by (query, document), with the human's label:

    >>> import metaeval as me
    >>> v = read_judgments(me.datasets.path("imageclef_like") / "validation.csv",
    ...                    item=("query_id", "doc_id"), label="human")
    >>> v.columns.tolist(), len(v)
    (['query_id', 'doc_id', 'label', 'judge', 'few_shot', 'refusal'], 202)
    """
    df, name, first = _read_table(source, format)
    keys = [item] if isinstance(item, str) else list(item)
    need = keys + [label] + ([judge] if judge is not None and judge in df.columns else [])
    _require_columns(df, keys + [label], name, "judgments", "item= and label=")
    lines = _row_lines(df, first)
    out = pd.DataFrame(index=df.index)
    for k in keys:
        out["item_id" if len(keys) == 1 else k] = _as_id(df[k], lines, name, k)
    out["label"] = _label_numeric(df[label], lines, name, label) if numeric else df[label].astype("str")
    if judge is not None:
        out["judge"] = df[judge].astype("str") if judge in df.columns else judge
    for c in df.columns:
        if c not in need and c not in out.columns:
            out[c] = df[c]
    return _finish(out.reset_index(drop=True), name, lines)


def _normalize_outcomes(values: pd.Series, lines, name, column, mapping) -> pd.Series:
    table = dict(_OUTCOME_ALIASES)
    if mapping:
        table.update({str(k).strip().lower(): v for k, v in mapping.items()})
    bad_targets = {v for v in table.values() if v not in OUTCOMES}
    if bad_targets:
        raise InputError(f"outcomes= maps to {sorted(bad_targets)}", source=name,
                         expected=f"targets among {', '.join(OUTCOMES)}")
    s = values.astype("object")
    # numeric outcomes come back as floats (1.0) from JSON/Parquet columns with a null: key them as "1"
    key = s.map(lambda v: None if v is None or (isinstance(v, float) and np.isnan(v))
                else str(int(v)) if isinstance(v, float) and v.is_integer() else str(v).strip().lower())
    out = key.map(table)
    unknown = out.isna().to_numpy() & key.notna().to_numpy()
    if unknown.any():
        vc = key[unknown].value_counts()
        i = int(np.flatnonzero(unknown)[0])
        listing = ", ".join(f"{k!r} ({n})" for k, n in vc.head(8).items())
        raise InputError(f"unknown outcome(s) in column {column!r}: {listing}", source=name, line=int(lines[i]),
                         expected=f"one of {', '.join(OUTCOMES)} (or a known spelling such as model_a, draw)",
                         fix="map them with outcomes={'<value>': 'A'|'B'|'tie'|'tie_a'|'tie_b'|'invalid'}")
    return out.astype("str")


def read_battles(source: Source, *, item: str = "item_id", model_a: str = "model_a", model_b: str = "model_b",
                 outcome: str = "outcome", judge: str = "judge", outcomes: dict | None = None,
                 format: str | None = None, preference: str | None = None) -> pd.DataFrame:
    """Read pairwise battles and normalize outcomes to ``A, B, tie, tie_a, tie_b`` (and ``invalid``).

    ``tie_a``/``tie_b`` are ties that lean to one side (OpenING's force-dividing tie). Parse failures
    and refusals (``parse_error``, ``refusal``, ``invalid`` ...) become ``invalid``, kept for the
    analysis to decide about; an empty outcome is missing (NaN). Unknown spellings raise an InputError
    listing them; map them with ``outcomes=``.

    Parameters
    ----------
    source : path or DataFrame
        The table (CSV, TSV, JSON, JSONL, Parquet, optionally gzipped), or a frame.
    item, model_a, model_b, outcome : str
        Column names of the item (prompt) id, the two models and the outcome.
    judge : str
        The column naming who judged each row; when there is no such column, a constant judge
        name for every row.
    outcomes : dict, optional
        Extra spellings: value → one of :data:`OUTCOMES` (case and surrounding blanks ignored).
    format : {"csv", "tsv", "json", "jsonl", "parquet"}, optional
        The table format, when the extension does not tell it.
    preference : str, optional
        Column of soft preferences p ∈ [1, 2] (AlpacaEval: 1 = the first answer is better, 2 =
        the second, 1.5 = a tie). It is returned as the float column ``preference``; the
        ``outcome`` column is then optional and, when absent, derived from p (``A`` below 1.5,
        ``B`` above, ``tie`` at 1.5; an empty p is missing), as AlpacaEval counts wins, losses
        and draws. Pass ``preference="preference"`` on to :func:`metaeval.win_rates`,
        :func:`metaeval.position_bias` or :func:`metaeval.length_controlled_win_rate`.

    Returns
    -------
    pandas.DataFrame
        ``item_id, model_a, model_b, judge, outcome`` (and ``preference``) and every other column
        unchanged.

    Raises
    ------
    InputError
        A missing column, an empty id, an unknown outcome (listed with counts and the line of the
        first), or a preference that is not a number in [1, 2] (with the line of the first).

    References
    ----------
    OpenING's outcome labels (Zhou et al. 2024: A, B, tie, and ties leaning to A or B);
    tests/test_io.py checks the normalization table and the errors.

    Examples
    --------
    >>> import metaeval as me
    >>> b = read_battles(me.datasets.path("battles_like") / "battles.csv")
    >>> b.columns[:5].tolist(), b["outcome"].value_counts().to_dict()
    (['item_id', 'model_a', 'model_b', 'judge', 'outcome'], {'A': 554, 'B': 470, 'tie': 179, 'tie_b': 79, 'tie_a': 69, 'invalid': 8})

    Soft preferences (AlpacaEval's annotations):

    >>> import io
    >>> s = read_battles(io.BytesIO(b"instruction,generator_1,generator_2,preference\\n"
    ...                             b"q1,base,m,1.9\\nq2,base,m,1.5\\nq3,base,m,1.2\\n"), format="csv",
    ...                  item="instruction", model_a="generator_1", model_b="generator_2", preference="preference")
    >>> s["preference"].tolist(), s["outcome"].tolist()
    ([1.9, 1.5, 1.2], ['B', 'tie', 'A'])
    """
    df, name, first = _read_table(source, format)
    need = [item, model_a, model_b] + ([outcome] if preference is None else [preference])
    _require_columns(df, need, name, "battles",
                     "item=, model_a=, model_b=, " + ("outcome=" if preference is None else "preference="))
    lines = _row_lines(df, first)
    out = pd.DataFrame(index=df.index)
    out["item_id"] = _as_id(df[item], lines, name, item)
    out["model_a"] = _as_id(df[model_a], lines, name, model_a)
    out["model_b"] = _as_id(df[model_b], lines, name, model_b)
    out["judge"] = df[judge].astype("str") if judge in df.columns else (judge or "judge")
    if preference is not None:
        p = _preferences(df[preference], lines, name, preference)
    if preference is None or outcome in df.columns:
        raw = df[outcome].astype("object").where(df[outcome].astype("str").str.strip() != "", None)
        out["outcome"] = _normalize_outcomes(raw, lines, name, outcome, outcomes)
    else:
        out["outcome"] = pd.Series(np.where(p > 1.5, "B", np.where(p < 1.5, "A", "tie")),
                                   index=df.index, dtype="object").where(~np.isnan(p), np.nan)
    if preference is not None:
        out["preference"] = p
    used = {item, model_a, model_b, outcome, judge} | ({preference} if preference is not None else set())
    for c in df.columns:
        if c not in used and c not in out.columns:
            out[c] = df[c]
    return _finish(out.reset_index(drop=True), name, lines)


def _preferences(series: pd.Series, lines: np.ndarray, name: str, column: str) -> np.ndarray:
    """Soft preferences as floats in [1, 2] (an empty cell is NaN); anything else is an InputError."""
    text = series.astype("object").where(series.notna(), "").astype("str").str.strip()
    p = pd.to_numeric(text.where(text != "", None), errors="coerce").to_numpy(dtype=float)
    bad = (np.isnan(p) & (text != "").to_numpy()) | (~np.isnan(p) & ((p < 1 - 1e-9) | (p > 2 + 1e-9)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{int(bad.sum())} preference(s) in column {column!r} are not numbers in [1, 2]",
                         source=name, line=int(lines[i]), text=str(series.iloc[i]),
                         expected="1 = the first answer better, 2 = the second, 1.5 = a tie (AlpacaEval)",
                         fix="rescale the column to [1, 2], or read discrete verdicts with outcome=")
    return p


_SCORE_ALIASES = {"system": ("system", "run_id", "run", "runid", "system_id"),
                  "query_id": ("query_id", "qid", "topic", "query"),
                  "measure": ("measure", "metric"),
                  "value": ("value", "score")}


def read_score_table(source: Source, *, system: str | None = None, format: str | None = None,
                     keep_all: bool = False) -> pd.DataFrame:
    """Read per-query scores: ``trec_eval -q`` output, or a table ``system, query_id, measure, value``.

    ``trec_eval -q`` output has three whitespace-separated fields ``measure query_id value``; its
    ``runid`` line names the system (or pass ``system=``). Tables may use the common aliases
    (``run_id``/``run``, ``qid``/``topic``, ``metric``); other columns (e.g. ``qrels_source``) are kept.

    Parameters
    ----------
    source : path, open binary file, or DataFrame
        ``trec_eval -q`` output (any name without a table extension) or a table.
    system : str, optional
        The system's name when the file has no ``runid`` line (default: the file name) or holds
        several; for a table without a system column, the name of every row.
    format : {"csv", "tsv", "json", "jsonl", "parquet"}, optional
        Read as a table in this format.
    keep_all : bool
        Rows with ``query_id == "all"`` are trec_eval's own averages: they are dropped unless
        ``keep_all=True``, and their count is in ``df.attrs["dropped_all_rows"]``.

    Returns
    -------
    pandas.DataFrame
        ``system, query_id, measure`` (str), ``value`` (float64), then any other column of a table.
        Measure names are kept as written (:func:`metaeval.scores_from_table` maps trec_eval names
        to ir-measures').

    Raises
    ------
    InputError
        A malformed line, a non-numeric value, several ``runid`` lines without ``system=``, or a
        table without the needed columns.

    References
    ----------
    trec_eval's ``-q`` output format. tests/test_io.py; tests/test_io_realdata.py and
    tests/test_ranking_realdata.py read SynDL's per-query tables (their means equal trec_eval's
    ``all`` rows).

    Examples
    --------
    >>> import io
    >>> t = read_score_table(io.BytesIO(b"runid all bm25\\nndcg_cut_10 q1 0.5\\nndcg_cut_10 q2 0.25\\n"
    ...                                 b"ndcg_cut_10 all 0.375\\n"))
    >>> t.values.tolist(), t.attrs["dropped_all_rows"]
    ([['bm25', 'q1', 'ndcg_cut_10', 0.5], ['bm25', 'q2', 'ndcg_cut_10', 0.25]], 1)
    """
    name = _name(source) if not isinstance(source, pd.DataFrame) else "<DataFrame>"
    is_table = isinstance(source, pd.DataFrame) or format is not None or os.path.splitext(
        name[:-3] if name.endswith(".gz") else name)[1].lower() in set(_TABLE_EXT) - {".txt"}
    if not is_table:
        data = _lone_cr_to_lf(_read_bytes(source))  # so that _line_text() below counts lines as the parser did
        raw, lines = _parse_whitespace(data, name, ("measure", "query_id", "value"))
        is_runid = raw["measure"].to_numpy() == "runid"
        sysname = system
        if is_runid.any():
            names = pd.unique(raw.loc[is_runid, "value"])
            if system is None:
                if len(names) > 1:
                    second = int(lines[np.flatnonzero(is_runid & (raw["value"].to_numpy() == names[1]))[0]])
                    raise InputError(f"several runid lines ({', '.join(map(str, names[:5]))})", source=name,
                                     line=second, text=_line_text(data, second),
                                     fix="split the file per run, or pass system=")
                sysname = str(names[0])
        if sysname is None:
            sysname = Path(name).name
        keep = ~is_runid
        raw, lines_k = raw.loc[keep].reset_index(drop=True), lines[keep]
        val = _to_number(raw["value"], lines_k, name, "value", integer=False, data=data, allow_nan=True)
        out = pd.DataFrame({"system": pd.Series(sysname, index=raw.index, dtype="str"),
                            "query_id": raw["query_id"], "measure": raw["measure"], "value": val})
    else:
        df, name, first = _read_table(source, format)
        lines_k = _row_lines(df, first)
        cols = {}
        for canon, aliases in _SCORE_ALIASES.items():
            found = [a for a in aliases if a in df.columns]
            if canon == "system" and not found and system is not None:
                continue
            if not found:
                _require_columns(df, [canon], name, "a score table (system, query_id, measure, value)")
            cols[canon] = found[0]
        out = pd.DataFrame(index=df.index)
        out["system"] = (_as_id(df[cols["system"]], lines_k, name, cols["system"]) if "system" in cols
                         else system)
        out["query_id"] = _as_id(df[cols["query_id"]], lines_k, name, cols["query_id"])
        out["measure"] = df[cols["measure"]].astype("str")
        vals = _label_numeric(df[cols["value"]], lines_k, name, cols["value"])
        out["value"] = vals
        for c in df.columns:
            if c not in cols.values() and c not in out.columns:
                out[c] = df[c]
    is_all = out["query_id"].to_numpy() == "all"
    n_all = int(is_all.sum())
    if not keep_all and n_all:
        out = out.loc[~is_all].reset_index(drop=True)
        lines_k = np.asarray(lines_k)[~is_all]
    out = _finish(out.reset_index(drop=True), name, np.asarray(lines_k))
    out.attrs["dropped_all_rows"] = n_all if not keep_all else 0
    return out


# --------------------------------------------------------------------------------------------
# writers
# --------------------------------------------------------------------------------------------

def _open_text_out(path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        raw = open(path, "wb")
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
        return io.TextIOWrapper(gz, encoding="utf-8", newline="\n"), (gz, raw)
    return open(path, "w", encoding="utf-8", newline="\n"), ()


def write_qrels(qrels: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``query_id 0 doc_id relevance`` lines (gzipped if the name ends in ``.gz``).

    Parameters
    ----------
    qrels : pandas.DataFrame
        ``query_id, doc_id, relevance`` (as :func:`read_qrels` returns).
    path : str or os.PathLike
        The file; its folder is created. A ``.gz`` file is written with no name and time stamp in
        its header, so the bytes are the same on every run.

    Returns
    -------
    None
        The file is written; nothing is returned.

    Raises
    ------
    InputError
        When ``qrels`` lacks one of the columns ``query_id``, ``doc_id``, ``relevance`` (the
        message names the missing column).

    See Also
    --------
    read_qrels : reads the file back.
    write_run, write_table : the other writers.

    Notes
    -----
    Relevance labels are written as integers (``int(label)``), with ``0`` in the iteration column,
    one line per row in the frame's order.

    References
    ----------
    The TREC qrels format; :func:`read_qrels` reads the file back to the same frame
    (tests/test_io.py).

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> from metaeval import read_qrels, write_qrels
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> q = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d7", "d9"], "relevance": [2, 0]})
    >>> write_qrels(q, p)
    >>> p.read_text()
    'q1 0 d7 2\\nq1 0 d9 0\\n'
    >>> read_qrels(p)[["query_id", "doc_id", "relevance"]].equals(q)
    True
    """
    _require_columns(qrels, ["query_id", "doc_id", "relevance"], "<DataFrame>", "qrels")
    fh, extra = _open_text_out(path)
    with fh:
        rel = qrels["relevance"].to_numpy()
        for q, d, r in zip(qrels["query_id"].astype(str), qrels["doc_id"].astype(str), rel):
            fh.write(f"{q} 0 {d} {int(r)}\n")
    for f in extra:
        f.close()


def write_run(run: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``query_id Q0 doc_id rank score run_id`` lines (gzipped if the name ends in ``.gz``).

    Parameters
    ----------
    run : pandas.DataFrame
        ``query_id, doc_id, rank, score, run_id`` (as :func:`read_run` returns).
    path : str or os.PathLike
        The file; its folder is created. Scores are written with ``repr`` (the shortest text that
        reads back to the same float). A name ending in ``.gz`` writes a gzipped file with no name
        and time stamp in its header.

    Returns
    -------
    None
        The file is written; nothing is returned.

    Raises
    ------
    InputError
        When ``run`` lacks one of the columns ``query_id``, ``doc_id``, ``rank``, ``score``,
        ``run_id``.

    See Also
    --------
    read_run : reads the file back.
    write_qrels, write_table : the other writers.

    Notes
    -----
    Rows are written in the frame's order with the ranks given (not recomputed from the scores).

    References
    ----------
    The TREC run format; :func:`read_run` reads the file back to the same frame (tests/test_io.py).

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> from metaeval import read_run, write_run
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> write_run(pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d7", "d9"], "rank": [1, 2],
    ...                         "score": [12.5, 0.1], "run_id": ["bm25", "bm25"]}), p)
    >>> p.read_text()
    'q1 Q0 d7 1 12.5 bm25\\nq1 Q0 d9 2 0.1 bm25\\n'
    >>> read_run(p)["score"].tolist()
    [12.5, 0.1]
    """
    _require_columns(run, ["query_id", "doc_id", "rank", "score", "run_id"], "<DataFrame>", "a run")
    fh, extra = _open_text_out(path)
    with fh:
        for q, d, k, s, t in zip(run["query_id"].astype(str), run["doc_id"].astype(str), run["rank"],
                                 run["score"], run["run_id"].astype(str)):
            fh.write(f"{q} Q0 {d} {int(k)} {float(s)!r} {t}\n")
    for f in extra:
        f.close()


def write_table(df: pd.DataFrame, path: str | os.PathLike, *, float_format: str = "%.10g") -> None:
    """Write a tidy table as CSV, TSV, JSON, JSONL or Parquet (by extension), deterministically.

    Parameters
    ----------
    df : pandas.DataFrame
        The table (the index is not written).
    path : str or os.PathLike
        The file; ``.csv``, ``.tsv``, ``.json``, ``.jsonl`` or ``.parquet``. Its folder is created.
    float_format : str
        printf format of floats in CSV/TSV (JSON keeps 10 significant digits).

    Returns
    -------
    None
        The file is written; nothing is returned.

    Raises
    ------
    InputError
        When the extension names no table format.

    See Also
    --------
    read_judgments : reads CSV, TSV, JSON, JSONL and Parquet tables of labels.
    write_qrels, write_run : the TREC writers.

    Notes
    -----
    Line endings are ``\\n`` on every platform, JSON is written as a list of records (JSONL one
    record a line), and a Parquet file carries no pandas ``attrs`` (a reader's line numbers), so
    the bytes depend only on the table.

    References
    ----------
    pandas' writers with fixed line endings and float formats; the demo report's tables are
    byte-identical on a rerun (tests/test_demo.py).

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> from metaeval import write_table
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> t = pd.DataFrame({"statistic": ["kappa"], "estimate": [2 / 3]})
    >>> write_table(t, folder / "t.csv")
    >>> (folder / "t.csv").read_text()
    'statistic,estimate\\nkappa,0.6666666667\\n'
    >>> write_table(t, folder / "t.jsonl")
    >>> (folder / "t.jsonl").read_text()
    '{"statistic":"kappa","estimate":0.6666666667}\\n'
    """
    path = Path(path)
    try:
        fmt = _table_format(str(path), None)
    except InputError:
        raise InputError(f"cannot tell the table format from the file name {path.name!r}", source=str(path),
                         expected="a name ending in .csv, .tsv, .json, .jsonl or .parquet") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        df = df.copy(deep=False)
        df.attrs = {}          # a reader's line numbers are not Parquet metadata
        df.to_parquet(path, index=False)
    elif fmt in ("csv", "tsv"):
        df.to_csv(path, sep="," if fmt == "csv" else "\t", index=False, float_format=float_format,
                  lineterminator="\n")
    elif fmt == "jsonl":
        df.to_json(path, orient="records", lines=True, double_precision=10)
    else:
        df.to_json(path, orient="records", double_precision=10, indent=1)
