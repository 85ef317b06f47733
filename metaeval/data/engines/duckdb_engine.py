"""The DuckDB alignment engine: :func:`metaeval.align`'s accounting on inputs of any size, streamed.

Inputs are read by DuckDB where it can (TREC qrels text, plain or gzipped, as lines; CSV/TSV; Parquet
files, globs and hive-partitioned folders) and registered without a copy where they already live in
memory (pandas, polars, Arrow, DuckDB relations). The alignment itself is :mod:`.plan` (SQL written
once, also run by Spark). DuckDB works under a memory limit and spills to a temporary folder (under
:func:`tempfile.gettempdir`, removed afterwards), so that inputs larger than memory align.

Anything the fast readers find unusual (a qrels line that is not four clean fields, blank lines in a
CSV, a byte-order mark, a parse error) is read by the pandas readers of :mod:`metaeval.data.io`
instead, so that errors carry the same messages (file, line, text) and odd files the same rows.
"""

from __future__ import annotations

import atexit
import csv
import mmap
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.procs import pid_alive
from ...core.scale import Scale
from ..io import _frame_source, _scan_text, check_limits, check_regular
from .base import AlignmentCounts
from .paths import duckdb_path, resolve
from .plan import DUCKDB, QRELS_LABEL_DIGITS, QRELS_LINE, SideInput, check_policies, column_kind, run_plan

__all__ = ["align_duckdb", "DEFAULT_MEMORY_LIMIT"]

#: DuckDB's memory limit when the engine opens its own connection (beyond it DuckDB spills to a
#: temporary folder). Measured on two 10M-line qrels files (2 cores under load):
#: 1GB: 47-66 s, 1.18 GB peak RSS of the whole process; 1600MB: 31 s, 1.71 GB. 1500MB keeps the peak
#: under 2 GB with room for the statistics; pass ``memory_limit=`` for more, or set the environment
#: variable ``METAEVAL_DUCKDB_MEMORY_LIMIT`` (e.g. ``4GB``; it also reaches ``metaeval.align``).
DEFAULT_MEMORY_LIMIT = "1500MB"

#: Rows (of both sides) beyond which the group-by that pairs the keys does not group on the key text:
#: the common case's streamed group-by (``plan._fused``) groups on a 128-bit fingerprint of the keys
#: instead, and the exact path (conflicting labels, ``rows=True``) groups in passes over hash partitions
#: of the keys, this many rows a pass (one group-by on the text of 2 x 100M
#: Parquet rows ran out of memory at a 1.5 GB and a 3 GB limit). Environment variable:
#: ``METAEVAL_DUCKDB_GROUP_ROWS``.
GROUP_ROWS = 30_000_000

_TABLE_EXT = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": None, ".json": "json", ".jsonl": "jsonl",
              ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


_UNITS = {"b": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "kib": 2**10, "mib": 2**20,
          "gib": 2**30, "tib": 2**40}


def _memory_bytes(text: str) -> int | None:
    """A DuckDB memory size (``"1500MB"``, ``"1.3 GiB"``) in bytes, or None when it is not one."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _UNITS | {"": 1}:
        return None
    return int(float(m.group(1)) * _UNITS.get(m.group(2).lower(), 1))


#: The smallest memory limit the engine accepts (DuckDB cannot open a connection much below it).
MIN_MEMORY_BYTES = 10 ** 6


def memory_limit_setting(value: str | None = None) -> str:
    """The memory limit of the engine's own connection: ``value`` (the ``memory_limit=`` keyword), else
    the environment variable ``METAEVAL_DUCKDB_MEMORY_LIMIT``, else :data:`DEFAULT_MEMORY_LIMIT`; checked.

    DuckDB would take a negative size as "80% of the machine's memory" and fail on ``0`` or ``abc``
    deep inside a query: here either is an InputError naming the setting, what it must be and the fix.
    """
    env = os.environ.get("METAEVAL_DUCKDB_MEMORY_LIMIT")
    if value is None and env is not None and env.strip():
        value, where, source = env, "the environment variable METAEVAL_DUCKDB_MEMORY_LIMIT", "<environment>"
        fix = f"set METAEVAL_DUCKDB_MEMORY_LIMIT=4GB (or unset it for the default {DEFAULT_MEMORY_LIMIT})"
    elif value is None:
        return DEFAULT_MEMORY_LIMIT
    else:
        where, source, fix = "memory_limit", None, "pass memory_limit='4GB'"
    text = str(value).strip()
    size = _memory_bytes(text) if re.search(r"[A-Za-z]$", text) else None  # DuckDB needs the unit
    if size is None or size < MIN_MEMORY_BYTES:
        raise InputError(f"{where} is not a usable memory size: {str(value)!r}", source=source,
                         expected="a size of at least 1MB with its unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB), "
                                  f"e.g. {DEFAULT_MEMORY_LIMIT} or 4GB", fix=fix)
    return text


def group_rows_setting() -> int | None:
    """The environment variable ``METAEVAL_DUCKDB_GROUP_ROWS`` as a positive whole number, None when
    unset (an InputError naming it when it is not one)."""
    env = os.environ.get("METAEVAL_DUCKDB_GROUP_ROWS")
    if env is None or not env.strip():
        return None
    try:
        n = int(env.strip())
    except ValueError:
        n = 0
    if n < 1:
        raise InputError(f"the environment variable METAEVAL_DUCKDB_GROUP_ROWS is not a positive whole number: "
                         f"{env!r}", source="<environment>",
                         expected=f"rows per group-by pass, a whole number of at least 1 (default {GROUP_ROWS} "
                                  f"at the {DEFAULT_MEMORY_LIMIT} memory limit)",
                         fix=f"set METAEVAL_DUCKDB_GROUP_ROWS={GROUP_ROWS} (or unset it)")
    return n


def _group_rows(con, limit: str | None = None) -> int:
    """:data:`GROUP_ROWS` scaled by the connection's memory limit over :data:`DEFAULT_MEMORY_LIMIT`: a
    group-by on the key text needs memory in proportion to its rows (2 x 10M rows with topics interleaved
    ran out of memory at 250 MB and fit in 500 MB)."""
    limit = _memory_bytes(limit) if limit else None
    if limit is None:  # a connection of the caller's: its setting as DuckDB prints it (rounded)
        try:
            limit = _memory_bytes(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])
        except Exception:  # pragma: no cover - a setting DuckDB does not print as a size
            limit = None
    if not limit:
        return GROUP_ROWS
    return max(1, int(GROUP_ROWS * limit / _memory_bytes(DEFAULT_MEMORY_LIMIT)))


def _interrupted(exc: BaseException) -> bool:
    """Whether a DuckDB error is a stop asked for by a signal: SIGINT ("Query interrupted") or SIGTERM
    (its handler removed the spill folders, so any later error of the run is its consequence). Such an
    error must never be taken for a file the fast reader cannot read."""
    import duckdb

    return (_sigterm["received"] or isinstance(exc, (duckdb.InterruptException, KeyboardInterrupt))
            or str(exc).strip() == "Query interrupted")


class _Duck:
    """The :class:`~.plan.Executor` over a DuckDB connection."""

    #: the plan re-raises these instead of falling back to another reader (see :func:`_interrupted`)
    interrupted = staticmethod(_interrupted)

    dialect = DUCKDB

    def __init__(self, con, temp: bool = True, memory_limit: str | None = None):
        self.con = con
        # the engine's own connection is a database file in its spill folder: its tables are then
        # compressed and held by the buffer manager, which writes them out under the memory limit
        # (TEMP tables live in an in-memory catalog)
        self.kind = "TEMP TABLE" if temp else "TABLE"
        self.own = not temp
        #: rows of both sides up to which the plan groups on the key text, and per pass of the exact
        #: path's group-by (see ``plan._fused``, ``plan._group``): GROUP_ROWS at the default memory
        #: limit, in proportion to the connection's limit
        self.group_rows = group_rows_setting() or _group_rows(con, memory_limit)
        import duckdb

        #: what the plan catches to run a group-by again in more passes (``plan._in_passes``)
        self.out_of_memory = duckdb.OutOfMemoryException

    def materialize(self, name, select):
        self.con.execute(f"CREATE OR REPLACE {self.kind} {name} AS {select}")

    def append(self, name, select):
        self.con.execute(f"INSERT INTO {name} {select}")

    def order_matters(self, yes: bool):
        """Whether DuckDB must keep the rows in order: not while the plan works on rows that carry their
        numbers (``_rid``; DuckDB then neither buffers nor orders what it writes), but again where it
        reads an input view, whose numbers may come from ``row_number() OVER ()``. Only on the engine's
        own connection (a user's connection keeps its settings)."""
        if self.own:
            self.con.execute(f"SET preserve_insertion_order = {'true' if yes else 'false'}")

    def rows(self, sql):
        return self.con.execute(sql).fetchall()

    def frame(self, sql):
        return self.con.execute(sql).df()

    def view(self, name, select):
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {select}")

    def drop(self, name):
        try:
            self.con.execute(f"DROP TABLE IF EXISTS {name}")
        except Exception:  # a view
            self.con.execute(f"DROP VIEW IF EXISTS {name}")

    def upload(self, name, frame):
        self.con.register(name + "_df", frame)
        try:
            self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM {name}_df")
        finally:
            self.con.unregister(name + "_df")


def _columns(con, view) -> dict:
    out = {}
    for name, typ, *_ in con.execute(f"DESCRIBE {view}").fetchall():
        if name not in ("_rid", "_line", "_source"):
            out[name] = column_kind(str(typ))
    return out


def _folder_files(name: str) -> list[str]:
    """The Parquet files of a folder (hive-partitioned or not); a folder that holds other files too (a
    shared temporary folder, another data set's text) is refused, naming them: reading only its
    Parquet files would align data nobody pointed to, or part of it. Hidden files and markers (names
    starting with ``.`` or ``_``, Hadoop's convention: ``_SUCCESS``, ``.part-0.parquet.crc``) are
    skipped, as Parquet readers skip them."""
    files, other = [], []
    for p in sorted(Path(name).rglob("*")):
        rel = p.relative_to(name).parts
        if any(part.startswith((".", "_")) for part in rel) or not p.is_file():
            continue
        (files if _ext(str(p)) in (".parquet", ".pq") and not str(p).endswith(".gz") else other).append(str(p))
    if other:
        shown = ", ".join(os.path.relpath(f, name) for f in other[:3]) + (" ..." if len(other) > 3 else "")
        raise InputError(f"the folder holds {len(other)} file(s) that are not Parquet ({shown}) beside "
                         f"{len(files)} Parquet file(s)", source=name,
                         expected="a folder of one data set's .parquet files (hive-partitioned or not)",
                         fix="move the other files out, or name the Parquet files with a glob (e.g. DIR/*.parquet)")
    if not files:
        raise InputError("no Parquet files in the folder", source=name,
                         fix="point to a folder of .parquet files (hive-partitioned or not), or a file")
    return files


def _parquet_rows(files: Sequence[str]) -> int | None:
    """The rows of Parquet files from their footers (None when one cannot be read: the reader says why)."""
    import pyarrow.parquet as pq

    try:
        return sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    except Exception:
        return None


#: Bytes of spill per input row (both sides) beyond the memory limit that the spill check assumes:
#: two 100M-row Parquet files (integer and string keys) spilled 8.5-11 GB at the 1.5 GB default limit
#: (runs of benchmarks/bench_align.py and bench_shapes.py), 43-55 bytes a row; rounded up.
SPILL_BYTES_PER_ROW = 56


def _check_spill_room(folder: str, sides, limit: str) -> None:
    """Refuse, before DuckDB fills the disk, inputs whose spill would not fit the spill folder's free
    space: an estimate of :data:`SPILL_BYTES_PER_ROW` per input row beyond the memory limit (rows from
    the readers' counts and Parquet footers; sides of unknown size count 0)."""
    rows = sum(s.rows or 0 for s in sides)
    need = rows * SPILL_BYTES_PER_ROW - (_memory_bytes(limit) or 0)
    if need <= 0:
        return
    try:
        free = shutil.disk_usage(folder).free
    except OSError:  # pragma: no cover - the folder vanished: DuckDB says so
        return
    if free >= need:
        return
    where = os.path.dirname(folder.rstrip(os.sep)) or folder
    raise InputError(f"not enough free disk space to spill: aligning {rows:,} rows may spill about "
                     f"{_gb(need)} beyond the memory limit {limit}, and {where} has {_gb(free)} free",
                     source=" / ".join(s.name for s in sides),
                     expected=f"free space for DuckDB's spill (about {SPILL_BYTES_PER_ROW} bytes per input row "
                              "beyond the memory limit)",
                     fix="set TMPDIR to a folder on a disk with more free space, free space there, or raise "
                         "METAEVAL_DUCKDB_MEMORY_LIMIT (memory_limit=) so that less is spilled")


def _gb(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


def _same_schema(files: Sequence[str], name: str) -> None:
    """Parquet files read as one side must have the same columns (a one-line error naming two files
    that differ, instead of DuckDB's error or a union of unrelated columns)."""
    import pyarrow.parquet as pq

    first = None
    for f in files:
        try:
            cols = tuple(pq.read_schema(f).names)
        except Exception:  # not Parquet at all: the reader names it
            return
        if first is None:
            first = (f, cols)
        elif set(cols) != set(first[1]):
            raise InputError(f"the Parquet files have different columns: {os.path.relpath(first[0], name) if os.path.isdir(name) else first[0]} "
                             f"({', '.join(first[1])}) / {os.path.relpath(f, name) if os.path.isdir(name) else f} "
                             f"({', '.join(cols)})", source=name,
                             expected="Parquet files of one data set, with the same columns",
                             fix="give every file the same columns, or align the files one by one")


def _ext(name: str) -> str:
    base = name[:-3] if name.endswith(".gz") else name
    return os.path.splitext(base)[1].lower()


def _is_table(name: str) -> bool:
    """What the pandas path reads as a table (everything else is qrels text)."""
    from ..alignment import _TABLE_EXTS

    base = name[:-3] if name.endswith(".gz") else name
    return base.lower().endswith(_TABLE_EXTS)


def _object_to_text(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns that hold more than text (numbers, booleans) as text, as the pandas path sees
    them (``str(v)``); missing values stay missing."""
    out = None
    for c in df.columns:
        col = df[c]
        if col.dtype != object:
            continue
        vals = col.to_numpy()
        if all(v is None or isinstance(v, str) for v in vals):
            continue
        conv = [None if (v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v))) else str(v) for v in vals]
        if out is None:
            out = df.copy()
        out[c] = pd.Series(conv, dtype=object, index=df.index)
    return df if out is None else out


class _Loader:
    def __init__(self, con, glob: bool | None = None):
        self.con = con
        self.glob = glob
        self.n = 0
        self.keep = []  # Arrow tables registered with the connection

    def _view(self) -> str:
        self.n += 1
        return f"_me_in{self.n}_{id(self):x}"

    # -- in memory ---------------------------------------------------------------------------------
    def frame(self, df: pd.DataFrame, name: str | None = None, lines=None) -> SideInput:
        import pyarrow as pa

        if name is None:
            df, name, lines = _frame_source(df, numbered=False)
        else:
            df = df.reset_index(drop=True)
        df = _object_to_text(df)
        if df.attrs:
            df = df.copy(deep=False)
            df.attrs = {}  # the line numbers are passed on as a column, not as Arrow metadata
        table = pa.Table.from_pandas(df, preserve_index=False)
        return self.arrow(table, name, lines)

    def arrow(self, table, name: str, lines=None) -> SideInput:
        import pyarrow as pa

        n = table.num_rows
        table = table.rename_columns([str(c) for c in table.column_names])
        lines = np.arange(1, n + 1, dtype=np.int64) if lines is None else np.asarray(lines, dtype=np.int64)
        table = (table.append_column("_rid", pa.array(np.arange(n, dtype=np.int64)))
                 .append_column("_line", pa.array(lines)))
        view = self._view()
        self.keep.append(table)
        self.con.register(view + "_t", table)
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT *, {DUCKDB.literal(name)} AS _source "
                         f"FROM {view}_t")
        return SideInput(view, name, _columns(self.con, view), materialize=False, rows=n)

    def relation(self, rel, name: str) -> SideInput:
        view = self._view()
        try:
            rel.create_view(view + "_r", replace=True)
            self.con.execute(f"SELECT 1 FROM {view}_r LIMIT 0")
        except Exception as exc:  # a relation of another connection: bring it over as Arrow
            if _interrupted(exc):
                raise
            return self.arrow(rel.fetch_arrow_table(), name)
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT *, _n - 1 AS _rid, _n AS _line, "
                         f"{DUCKDB.literal(name)} AS _source FROM (SELECT *, row_number() OVER () AS _n "
                         f"FROM {view}_r) t")
        cols = _columns(self.con, view)
        cols.pop("_n", None)
        return SideInput(view, name, cols, materialize=False, stable_rid=False)

    # -- files ---------------------------------------------------------------------------------------
    def path(self, source, glob: bool | None = None) -> SideInput:
        side = self._path(source, glob)
        if not side.files:
            side.files = (str(source),)
        return side

    def _path(self, source, glob: bool | None = None) -> SideInput:
        name = str(source)
        kind, files = resolve(name, glob)  # a path that exists is read literally (see .paths)
        if kind == "dir":
            return self.parquet(_folder_files(name), name, hive=True)
        if kind == "glob":
            if all(_ext(f) in (".parquet", ".pq") and not f.endswith(".gz") for f in files):
                return self.parquet(files, name, hive=False)
            side = self.union([self.path(f, glob=False) for f in files], name)
            side.files = tuple(files)
            return side
        if not os.path.exists(name):
            raise InputError("file not found", source=name, fix="check the path")
        check_regular(name)  # a device or a FIFO: reading it never ends, or blocks
        if not _is_table(name):
            return self.qrels(name)
        ext = _ext(name)
        if ext in (".parquet", ".pq") and not name.endswith(".gz"):
            return self.parquet([name], name, hive=False)
        if ext in (".csv", ".tsv", ".tab") and not name.endswith(".gz"):
            side = self.csv(name, "," if ext == ".csv" else "\t")
            if side is not None:
                return side
        return self.pandas_table(name)

    def pandas_table(self, name: str) -> SideInput:
        from .. import io as mio

        df, name, first = mio._read_table(name)
        return self.frame(df, name, mio._row_lines(df, first))

    def parquet(self, files: Sequence[str], name: str, hive: bool) -> SideInput:
        if len(files) > 1:
            _same_schema(files, name)
        view = self._view()
        flist = "[" + ", ".join(DUCKDB.literal(duckdb_path(f)) for f in files) + "]"  # glob characters escaped
        try:
            if len(files) == 1:
                self.con.execute(
                    f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT * EXCLUDE (file_row_number), "
                    f"CAST(file_row_number AS BIGINT) AS _rid, CAST(file_row_number AS BIGINT) + 1 AS _line, "
                    f"{DUCKDB.literal(files[0] if name == files[0] else files[0])} AS _source "
                    f"FROM read_parquet({flist}, file_row_number = true, hive_partitioning = {str(hive).lower()})")
            else:
                # DuckDB's filename is the absolute name it read; the report names the file as matched
                idx = ", ".join(f"({DUCKDB.literal(os.path.abspath(f))}, {i}, {DUCKDB.literal(f)})"
                                for i, f in enumerate(files))
                self.con.execute(f"CREATE OR REPLACE TEMP TABLE {view}_f AS SELECT * FROM (VALUES {idx}) t(_f, _i, _n)")
                self.con.execute(
                    f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT p.* EXCLUDE (file_row_number, filename), "
                    f"f._i * 1099511627776 + CAST(p.file_row_number AS BIGINT) AS _rid, "
                    f"CAST(p.file_row_number AS BIGINT) + 1 AS _line, f._n AS _source "
                    f"FROM read_parquet({flist}, file_row_number = true, filename = true, "
                    f"hive_partitioning = {str(hive).lower()}) p JOIN {view}_f f ON p.filename = f._f")
            cols = _columns(self.con, view)
        except InputError:
            raise
        except Exception as exc:
            if _interrupted(exc):
                raise
            for f in files:  # the pandas reader names the unreadable file
                self.pandas_table(f)
            first = str(exc).strip().split("\n", 1)[0]
            raise InputError(f"DuckDB cannot read the Parquet files together ({first})", source=name,
                             expected="Parquet files of one data set: the same columns with the same types",
                             fix="give every file the same schema, or align the files one by one") from None
        return SideInput(view, name, cols, materialize=False, files=tuple(files), rows=_parquet_rows(files))

    def union(self, parts: Sequence[SideInput], name: str) -> SideInput:
        cols = list(parts[0].columns)
        for p in parts[1:]:
            if list(p.columns) != cols:
                raise InputError(f"the files have different columns ({', '.join(cols)} / {', '.join(p.columns)})",
                                 source=p.name, fix="give every file of the glob the same columns")
        sel = " UNION ALL ".join(
            f"SELECT {', '.join(_qi(c) for c in cols)}, {i} * 1099511627776 + _rid AS _rid, _line, _source "
            f"FROM {p.view}" for i, p in enumerate(parts))
        view = self._view()
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS {sel}")
        return SideInput(view, name, _columns(self.con, view), materialize=False,
                         stable_rid=all(p.stable_rid for p in parts),
                         rows=None if any(p.rows is None for p in parts) else sum(p.rows for p in parts))

    def csv(self, name: str, sep: str) -> SideInput | None:
        """A plain CSV/TSV file through DuckDB, or None when the pandas reader must read it.

        The file is scanned first (memory-mapped, in chunks): it must be valid UTF-8 (else the pandas
        reader names the line), and its records are counted (newlines outside quotes) so that DuckDB's
        row count is checked against them; DuckDB's ``max_line_size`` is set from the longest line
        (by default it silently drops a last row of 32 MB or more).
        """
        try:
            with open(name, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size == 0:
                    return None
                mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                try:
                    if mm[:3] == b"\xef\xbb\xbf" or mm[:2] == b"\x1f\x8b" or mm.find(b"\x00") >= 0:
                        return None
                    blank = b" \r" if sep == "\t" else b" \t\r"
                    if re.search(rb"(?:\A|\n)[" + blank + rb"]*(?:\n|\Z)", mm[:-1] if mm[-1:] == b"\n" else mm):
                        return None  # blank lines: the pandas reader maps the line numbers
                    if re.search(rb"\r(?!\n)", mm):
                        return None
                    end = mm.find(b"\n")
                    head = (mm[:end] if end >= 0 else mm[:]).decode("utf-8").rstrip("\r")
                finally:
                    mm.close()
            scan = _scan_text(name, quotes=True, utf8=True, limit=False)
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if scan["nul"] or not scan["utf8"]:  # not UTF-8: the pandas reader names the line
            return None
        records, longest = scan["records"], scan["longest"]
        header = next(csv.reader([head], delimiter=sep), [])
        if not header or len(set(header)) != len(header) or any(h == "" for h in header):
            return None
        view = self._view()
        columns = "{" + ", ".join(f"{DUCKDB.literal(h)}: 'VARCHAR'" for h in header) + "}"
        try:
            self.con.execute(
                f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT * EXCLUDE (_n), _n - 1 AS _rid, _n + 1 AS _line, "
                f"{DUCKDB.literal(name)} AS _source FROM (SELECT *, row_number() OVER () AS _n FROM "
                f"read_csv({DUCKDB.literal(duckdb_path(name))}, columns = {columns}, header = true, "
                f"delim = {DUCKDB.literal(sep)}, quote = '\"', escape = '\"', auto_detect = false, "
                f"strict_mode = true, null_padding = false, nullstr = '\x02', "
                f"max_line_size = {max(_DUCK_LINE, longest + 2)})) t")
            n = self.con.execute(f"SELECT count(*) FROM {view}").fetchall()[0][0]
        except Exception as exc:
            if _interrupted(exc):
                raise
            return None
        if n == 0 or n != records - 1:  # every record but the header is a row, or the pandas reader reads it
            return None
        return SideInput(view, name, _columns(self.con, view), materialize=False, stable_rid=False, rows=n)

    def qrels(self, name: str) -> SideInput:
        """TREC qrels text read by DuckDB, with line numbers by position.

        The view is not materialized here: the plan reads it once, checking every row on the way
        (``SideInput.check``); a file with a row the reader cannot vouch for (not four clean fields with
        an integer label, or a blank line where the line count says so) is read by
        :func:`metaeval.read_qrels` instead, which raises its error naming the line.
        """
        view = self._view()

        def fallback():
            from .. import io as mio

            df = mio.read_qrels(name)  # raises the reader's error, naming the line
            return self.frame(df, name, df.attrs["lines"])

        with open(name, "rb") as fh:
            head = fh.read(1 << 16)
            size = os.fstat(fh.fileno()).st_size
        if head[:3] == b"\xef\xbb\xbf" or size == 0:
            return fallback()
        gz = head[:2] == b"\x1f\x8b"
        first = head.split(b"\n", 1)[0].rstrip(b"\r")
        tab, space = b"\t" in first, b" " in first
        src = DUCKDB.literal(duckdb_path(name))  # glob characters escaped: the file named, nothing else
        if not gz and tab != space and first[:1] not in (b" ", b"\t"):
            # the common clean file: one delimiter; DuckDB splits it (and skips empty lines, so the line
            # count must equal the row count for the line numbers to hold)
            # the line count, and whether the ids need no trimming (ASCII without the control characters
            # Python's str.strip removes); not when the file holds the other delimiter or a NUL byte (then
            # the pandas reader splits it differently)
            other = 32 if tab else 9
            scan = _scan_text(name, watch=bytes([other, 11, 12, 28, 29, 30, 31]), limit=False, longest=False)
            if not scan["nul"] and other not in scan["watched"]:
                n_lines, clean = scan["lines"], scan["ascii"] and not scan["watched"]
                kind = "clean" if clean else "str"  # ids without white space to trim
                delim = "\t" if tab else " "
                read = (f"read_csv({src}, columns = {{'q': 'VARCHAR', 'i': 'VARCHAR', 'd': 'VARCHAR', "
                        f"'r': 'VARCHAR'}}, delim = {DUCKDB.literal(delim)}, quote = '', escape = '', "
                        f"header = false, auto_detect = false, strict_mode = true, null_padding = false, "
                        f"compression = 'none')")

                def define(v, numbers):  # numbers: "row_number() OVER ()" (in reading order) or NULL
                    self.con.execute(
                        f"CREATE OR REPLACE TEMP VIEW {v} AS SELECT q AS query_id, d AS doc_id, "
                        f"TRY_CAST(r AS BIGINT) AS relevance, _n AS _rid, _n AS _line, {DUCKDB.literal(name)} AS _source, "
                        f"(q IS NULL OR i IS NULL OR d IS NULL OR r IS NULL OR CASE WHEN length(r) = 1 "
                        f"THEN r < '0' OR r > '9' "  # one digit: canonical as it is
                        f"ELSE length(ltrim(r, '-')) > {QRELS_LABEL_DIGITS} "
                        f"OR CAST(TRY_CAST(r AS BIGINT) AS VARCHAR) IS DISTINCT FROM r END) AS _bad_line "
                        f"FROM (SELECT {numbers} AS _n, * FROM {read}) t")

                try:
                    define(view, "row_number() OVER ()")
                    define(view + "_c", "CAST(NULL AS BIGINT)")  # the same rows unnumbered, for counting
                    return SideInput(view, name, {"query_id": kind, "doc_id": kind, "relevance": "int"},
                                     check="_bad_line", expect_rows=n_lines, fallback=fallback, rows=n_lines,
                                     materialize=False, stable_rid=False, counted=view + "_c")
                except Exception as exc:
                    if _interrupted(exc):
                        raise
        # any other file, plain or gzipped: lines, split by a regular expression; blank lines are
        # skipped but keep their numbers. One streamed pass first: a gzip's CRC (DuckDB does not check
        # it), the lines DuckDB must give back (no row without a fate), the longest line (DuckDB's
        # max_line_size) and a NUL byte (the pandas reader's error names its line)
        scan = _scan_text(name, blank=True)
        if scan["nul"]:
            return fallback()
        pattern = DUCKDB.literal(QRELS_LINE[:-1] + "\\r?$")
        try:
            self.con.execute(
                f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT s.q AS query_id, s.d AS doc_id, "
                f"TRY_CAST(s.r AS BIGINT) AS relevance, _n AS _rid, _n AS _line, {DUCKDB.literal(name)} AS _source, "
                f"(s.q = '') AS _bad_line FROM (SELECT _n, regexp_extract(line, {pattern}, ['q', 'i', 'd', 'r']) AS s "
                f"FROM (SELECT row_number() OVER () AS _n, line FROM read_csv({src}, columns = {{'line': 'VARCHAR'}}, "
                f"delim = '\x01', quote = '', escape = '', header = false, auto_detect = false, "
                f"max_line_size = {max(_DUCK_LINE, scan['longest'] + 2)}, "
                f"compression = '{'gzip' if gz else 'none'}')) t WHERE line IS NOT NULL "
                f"AND NOT regexp_matches(line, '^[ \\t]*\\r?$')) u")
            self.con.execute(f"SELECT * FROM {view} LIMIT 0")
        except Exception as exc:
            if _interrupted(exc):
                raise
            return fallback()
        return SideInput(view, name, {"query_id": "str", "doc_id": "str", "relevance": "int"},
                         check="_bad_line", expect_rows=scan["lines"] - scan["blank"], fallback=fallback,
                         rows=scan["lines"] - scan["blank"],
                         materialize=False, stable_rid=False)

    def load(self, source) -> SideInput:
        if isinstance(source, pd.DataFrame):
            return self.frame(source)
        if isinstance(source, (str, os.PathLike)):
            return self.path(source, self.glob)
        mod = type(source).__module__.split(".")[0]
        if mod == "duckdb":
            return self.relation(source, "<DataFrame>")
        if mod == "polars":
            import polars as pl

            if isinstance(source, pl.LazyFrame):
                source = source.collect()
            return self.arrow(source.to_arrow(), "<DataFrame>")
        if mod == "pyarrow":
            import pyarrow as pa

            if isinstance(source, pa.RecordBatchReader):
                source = source.read_all()
            if isinstance(source, pa.Table):
                return self.arrow(source, "<DataFrame>")
        raise InputError(f"cannot align an object of type {type(source).__name__}",
                         expected="a DataFrame (pandas or polars), an Arrow table, a DuckDB relation, or a path")


#: DuckDB's default ``max_line_size`` (bytes).
_DUCK_LINE = 2_097_152


def _qi(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# -- spill folders -------------------------------------------------------------------------------------
#: A spill folder's name: the prefix, the owner's process id, a random part (``tempfile.mkdtemp``).
SPILL_PREFIX = "metaeval-duckdb-"
_SPILL_NAME = re.compile(re.escape(SPILL_PREFIX) + r"([0-9]+)-")
_spill: set[str] = set()  # this process's folders
_sigterm = {"previous": None, "installed": False, "received": False}
_spill_lock = threading.Lock()


def _remove_stale(base: str | None = None) -> list[str]:
    """Remove the spill folders whose owner process is gone (killed before it could clean up: SIGKILL,
    a crash, a power cut); returns them. Folders of live processes, and names without a process id
    (metaeval before 0.3), are left alone. Not on Windows (no cheap liveness check without psutil)."""
    if os.name == "nt":  # pragma: no cover - os.kill(pid, 0) would terminate the process there
        return []
    base = base or tempfile.gettempdir()
    gone = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return gone
    for e in entries:
        m = _SPILL_NAME.match(e.name)
        if not m or not e.is_dir(follow_symlinks=False):
            continue
        pid = int(m.group(1))
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(e.path, ignore_errors=True)
            gone.append(e.path)
    return gone


def _spill_folder() -> str:
    """A new spill folder of this process (named with its pid), removed at exit and on SIGTERM; stale
    folders of dead processes are removed first."""
    _remove_stale()
    tmp = tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-")
    with _spill_lock:
        _spill.add(tmp)
    _watch_sigterm()
    return tmp


def _release(tmp: str) -> None:
    """Remove a spill folder now (its connection is closed)."""
    shutil.rmtree(tmp, ignore_errors=True)
    with _spill_lock:
        _spill.discard(tmp)
        last = not _spill
    if last:
        _unwatch_sigterm()


@atexit.register
def _release_all() -> None:
    for tmp in list(_spill):
        shutil.rmtree(tmp, ignore_errors=True)
    with _spill_lock:
        _spill.clear()


def _on_sigterm(signum, frame):
    """SIGTERM while spill folders exist: remove them, then die as the signal would (exit status
    128 + 15), or hand over to the handler that was there before."""
    _sigterm["received"] = True
    _release_all()
    prev = _sigterm["previous"]
    if callable(prev):
        prev(signum, frame)
        return
    raise SystemExit(128 + signum)


def _watch_sigterm() -> None:
    """Install :func:`_on_sigterm` (main thread only; not over an ignored SIGTERM)."""
    if _sigterm["installed"] or threading.current_thread() is not threading.main_thread():
        return
    try:
        prev = signal.getsignal(signal.SIGTERM)
        if prev in (signal.SIG_IGN, None):  # ignored, or a handler set outside Python: leave it
            return
        signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - no signals here
        return
    _sigterm.update(previous=prev, installed=True)
    _wake_on_sigterm()


# DuckDB runs a query without returning to the interpreter, so a Python signal handler waits for the
# query to end (DuckDB looks for SIGINT only between the tasks the main thread runs). Python's C-level
# handler also writes the signal's number to the "wakeup fd" at once: a thread reading it interrupts
# the running queries (SIGTERM, and SIGINT under Python's default handler), and the Python handler
# then runs as soon as the query returns.
_wake: dict = {"w": None, "installed": False}
_running: set = set()  # connections running a query of the engine now (interrupted on SIGTERM)


def _wakeup_loop(fd: int) -> None:
    while True:
        try:
            data = os.read(fd, 512)
        except OSError:  # pragma: no cover - the pipe is gone
            return
        if not data:  # pragma: no cover
            return
        term = signal.SIGTERM in data
        if term:
            _sigterm["received"] = True
        # SIGINT too: DuckDB checks for it only between the tasks the main thread runs, which may
        # take minutes (a scan); the handler raises KeyboardInterrupt when the query has returned
        if term or (signal.SIGINT in data and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            with _spill_lock:
                cons = list(_running)
            for con in cons:
                try:
                    con.interrupt()
                except Exception:  # pragma: no cover - closed meanwhile
                    pass


def _wake_on_sigterm() -> None:
    """Point the signal wakeup fd at the thread that interrupts DuckDB (unless someone else's fd, e.g.
    asyncio's, is there: then SIGTERM waits for the query to end, as before)."""
    if _wake["w"] is None:
        r, w = os.pipe()
        os.set_blocking(w, False)
        threading.Thread(target=_wakeup_loop, args=(r,), daemon=True, name="metaeval-sigterm").start()
        _wake["w"] = w
    try:
        prev = signal.set_wakeup_fd(_wake["w"], warn_on_full_buffer=False)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        return
    if prev not in (-1, _wake["w"]):
        signal.set_wakeup_fd(prev)
        return
    _wake["installed"] = True


def _unwatch_sigterm() -> None:
    """Put back the SIGTERM handler there was before (when no spill folder is left)."""
    if not _sigterm["installed"] or threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) is _on_sigterm:
            signal.signal(signal.SIGTERM, _sigterm["previous"])
        if _wake["installed"]:
            prev = signal.set_wakeup_fd(-1)
            if prev not in (-1, _wake["w"]):  # pragma: no cover - someone else's since: theirs stays
                signal.set_wakeup_fd(prev)
    except (ValueError, OSError):  # pragma: no cover
        return
    _wake["installed"] = False
    _sigterm.update(previous=None, installed=False)


def connect(*, memory_limit: str | None = None, threads: int | None = None, temp_directory: str | None = None,
            database: str = ":memory:"):
    """A DuckDB connection set up as the engine uses it (memory limit, spill folder, all cores).

    Parameters
    ----------
    memory_limit : str, optional
        DuckDB's memory limit (default: the environment variable ``METAEVAL_DUCKDB_MEMORY_LIMIT``, else
        :data:`DEFAULT_MEMORY_LIMIT`).
    threads : int, optional
        Worker threads (default: the machine's cores).
    temp_directory : str, optional
        Where DuckDB spills (default: a new folder ``metaeval-duckdb-<pid>-*`` under
        :func:`tempfile.gettempdir`, removed when the process exits or receives SIGTERM; folders left
        by a process that is gone, e.g. after SIGKILL, are removed by the next call).
    database : str
        The database: ``":memory:"`` or a file (the engine uses a file in its spill folder).

    Returns
    -------
    duckdb.DuckDBPyConnection

    Examples
    --------
    >>> con = connect(memory_limit="256MB", threads=1)
    >>> con.execute("SELECT current_setting('threads')").fetchall()
    [(1,)]
    >>> con.close()
    """
    import duckdb

    tmp = temp_directory
    if tmp is None:  # a folder of our own: removed at exit or SIGTERM (DuckDB may spill into it until then)
        tmp = _spill_folder()
    con = duckdb.connect(database, config={
        "memory_limit": memory_limit_setting(memory_limit), "threads": int(threads or os.cpu_count() or 1),
        "temp_directory": tmp, "preserve_insertion_order": True})
    con.execute("SET enable_progress_bar = false")  # no progress bars on the user's terminal
    return con


def _out_of_memory(exc, reference, candidate, limit) -> InputError:
    """The InputError for a DuckDB run out of memory even in passes: what to set."""
    first = str(exc).split("\n", 1)[0].strip()
    where = " / ".join(str(x) if isinstance(x, (str, os.PathLike)) else f"<{type(x).__name__}>"
                       for x in (reference, candidate))
    if limit is None:
        return InputError(f"DuckDB ran out of memory under the connection's memory limit ({first})", source=where,
                          fix="raise the connection's limit (SET memory_limit = '4GB'), or leave connection= "
                              "unset to use the engine's own connection")
    return InputError(f"DuckDB ran out of memory at the memory limit {limit} ({first})",
                      source=where, expected="a memory limit the inputs' distinct keys fit (about 30M rows of "
                      "both sides per 1.5 GB)",
                      fix="set the environment variable METAEVAL_DUCKDB_MEMORY_LIMIT (e.g. 4GB), or pass "
                          "memory_limit='4GB' to metaeval.data.engines.duckdb_engine.align_duckdb")


def align_duckdb(reference, candidate, *, on: str | Sequence[str] = ("query_id", "doc_id"),
                 labels: str | tuple[str, str] = "relevance", scale: Scale | None = None,
                 out_of_scale: str = "error", duplicates: str = "error", refusal_flag: str | None = None,
                 refusal_value=None, refusals="keep", unjudged="drop", names=("reference", "candidate"),
                 by: str | Sequence[str] = (), rows: bool = False, connection=None,
                 memory_limit: str | None = None, threads: int | None = None,
                 glob: bool | None = None) -> AlignmentCounts:
    """Align two judgment sets in DuckDB; the report equals :func:`metaeval.align`'s, only counts come back.

    Parameters
    ----------
    reference, candidate : path, glob, folder, DataFrame, Arrow table or DuckDB relation
        A TREC qrels file (plain or ``.gz``), a ``.csv/.tsv/.json/.jsonl/.parquet`` file, a glob of
        such files, a folder of Parquet files (hive-partitioned or not), a pandas or polars
        DataFrame, a pyarrow Table, or a DuckDB relation (of ``connection``, to stream it).
    on : str or sequence of str
        Key column(s).
    labels : str or (str, str)
        The label column, or one per side.
    scale : Scale, optional
        The declared scale (None: inferred from the paired labels; nothing is out of scale).
    out_of_scale : {"error", "clip", "drop", "missing"}
        As :func:`metaeval.align`.
    duplicates : {"error", "first", "last", "majority", "mean"}
        As :func:`metaeval.align`.
    refusal_flag : str, optional
        A column whose truthy values mark refusals.
    refusal_value : number, optional
        A sentinel label marking refusals.
    refusals : {"keep", "drop"} or number
        As :func:`metaeval.align`.
    unjudged : {"drop", "keep"} or number
        As :func:`metaeval.align`.
    names : (str, str)
        The two sides' names.
    by : str or sequence of str
        Group columns of the cells (key columns or reference metadata columns); ``()`` pools.
    rows : bool
        Also return the pairs as :attr:`metaeval.Paired.data` holds them (brings every pair back).
    connection : duckdb.DuckDBPyConnection, optional
        Run in this connection (its settings as they are); default: a new in-memory connection with
        :data:`DEFAULT_MEMORY_LIMIT`, all cores and a spill folder, closed afterwards.
    memory_limit : str, optional
        DuckDB's memory limit for a new connection (e.g. ``"4GB"``; default: the environment variable
        ``METAEVAL_DUCKDB_MEMORY_LIMIT``, else :data:`DEFAULT_MEMORY_LIMIT`).
    threads : int, optional
        Threads of a new connection (default: the machine's cores).
    glob : bool, optional
        Whether a path is a pattern: None (default) only when no file of that name exists, True always,
        False never (:func:`metaeval.data.engines.paths.resolve`). A file is read literally: DuckDB
        sees its name with the glob characters escaped.

    Returns
    -------
    AlignmentCounts
        The report, the cells (``*by, reference, candidate, n``) and, when asked, the rows.

    Raises
    ------
    InputError
        The errors of :func:`metaeval.align` with the same messages: a file that does not exist, a
        missing column, a label that is not a number, an out-of-scale label with
        ``out_of_scale="error"``, conflicting labels with ``duplicates="error"``.

    References
    ----------
    :func:`metaeval.align` (the pandas path) is the reference: tests/test_engines_duckdb.py checks
    every field of the report, the cells and the rows against it for every policy case of
    tests/messy_inputs.py and every input form, and on random inputs (hypothesis).

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.path("trec_dl_like")
    >>> res = align_duckdb(d / "qrels.human.txt", d / "qrels.judge.txt", by="query_id")
    >>> res.report.n_pairs, int(res.cells["n"].sum()), res.cells.columns.tolist()
    (7731, 7731, ['query_id', 'reference', 'candidate', 'n'])
    """
    on, names, labels = check_policies(on, duplicates, out_of_scale, refusals, unjudged, names, labels)
    by = (by,) if isinstance(by, str) else tuple(by)
    check_limits()  # the settings first: a bad one is named before any reading
    group_rows_setting()
    import duckdb

    own = connection is None
    tmp = limit = None
    _sigterm["received"] = False
    if own:
        limit = memory_limit_setting(memory_limit)
        tmp = _spill_folder()
        con = connect(memory_limit=limit, threads=threads, temp_directory=tmp,
                      database=os.path.join(tmp, "align.duckdb"))
    else:
        con = connection
    loader = _Loader(con, glob)
    with _spill_lock:
        _running.add(con)
    try:
        try:
            sides = [loader.load(reference), loader.load(candidate)]
            if own:  # the engine's own spill folder: is there room for what it may spill?
                _check_spill_room(tmp, sides, limit)
            return run_plan(_Duck(con, temp=not own, memory_limit=limit), sides, on=on, labels=labels, scale=scale,
                            out_of_scale=out_of_scale, duplicates=duplicates, refusal_flag=refusal_flag,
                            refusal_value=refusal_value, refusals=refusals, unjudged=unjudged, names=names, by=by,
                            rows=rows, quote=_qi)
        except Exception as exc:
            # SIGINT (or our SIGTERM handler, which removed the spill folders) stops a query with "Query
            # interrupted" (a RuntimeError or InterruptException): a KeyboardInterrupt the CLI prints in
            # one line, or the exit status of SIGTERM (whatever failed after the handler ran, its consequence)
            if _sigterm["received"]:
                raise SystemExit(128 + signal.SIGTERM) from None
            if isinstance(exc, duckdb.OutOfMemoryException):
                raise _out_of_memory(exc, reference, candidate, limit) from None
            if _interrupted(exc):  # Ctrl-C: DuckDB reports it as "Query interrupted"
                raise KeyboardInterrupt("interrupted (DuckDB query stopped)") from None
            raise
    except KeyboardInterrupt:  # also Python's own, once the interrupted query has returned
        if _sigterm["received"]:
            raise SystemExit(128 + signal.SIGTERM) from None
        raise KeyboardInterrupt("interrupted (DuckDB query stopped)") from None
    finally:
        with _spill_lock:
            _running.discard(con)
        if own:
            con.close()
            _release(tmp)
        else:
            for i in range(1, loader.n + 1):
                base = f"_me_in{i}_{id(loader):x}"
                for stmt in (f"DROP VIEW IF EXISTS {base}", f"DROP TABLE IF EXISTS {base}_l",
                             f"DROP TABLE IF EXISTS {base}_f", f"DROP VIEW IF EXISTS {base}_r", f"DROP VIEW IF EXISTS {base}_c"):
                    try:
                        con.execute(stmt)
                    except Exception:
                        pass
                try:
                    con.unregister(base + "_t")
                except Exception:
                    pass
