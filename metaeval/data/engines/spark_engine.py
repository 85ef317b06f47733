"""The Spark alignment engine: the alignment plan run by Spark SQL, on one machine or a cluster.

:func:`align_spark` loads both judgment sets into Spark (paths, globs and folders; pandas, polars or
Arrow tables; Spark DataFrames), numbers their rows as the pandas readers do (``_source``: the file;
``_line``: the line, or the record for Parquet; ``_rid``: the pandas path's row order), and runs the
alignment of :mod:`metaeval.data.engines.plan` (the SQL DuckDB also runs, in its Spark dialect).
Only aggregated tables come back to the driver.

pyspark is an optional dependency (``pip install "metaeval[spark]"``, plus a Java runtime): importing
this module (or metaeval) does not import it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.scale import Scale
from .base import AlignmentCounts
from .plan import QRELS_LINE, SPARK, SideInput, check_policies, column_kind, run_plan

__all__ = ["align_spark", "local_session"]

INSTALL_HINT = ('pip install "metaeval[spark]" (pyspark), and a Java runtime 17 or later '
                '(on Debian: apt-get install default-jre-headless)')

#: The local session :func:`local_session` built (None until then).
_LOCAL = None

_BOOKKEEPING = ("_rid", "_line", "_source")


def _pyspark():
    """Import pyspark's SparkSession, or say in one line how to install it."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError('engine="spark" needs pyspark, which is not installed', source="<engine>",
                         fix=INSTALL_HINT) from None
    return SparkSession


def local_session():
    """The local Spark session metaeval uses when it is given none (built once, then reused).

    An active session (a notebook's, ``spark-submit``'s) is used as it is. Otherwise a local one:
    two cores (``local[2]``), no web UI or progress bars, 2 shuffle partitions, 1 GB of driver
    memory, logs at ERROR.

    Returns
    -------
    pyspark.sql.SparkSession

    Raises
    ------
    InputError
        pyspark is not installed, or there is no Java runtime (the message says what to install).

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("pyspark")
    >>> local_session() is local_session()
    True
    """
    global _LOCAL
    SparkSession = _pyspark()
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        raise InputError('engine="spark" needs a Java runtime: there is no java on the PATH and no JAVA_HOME',
                         source="<engine>", fix=INSTALL_HINT)
    builder = (SparkSession.builder.master("local[2]").appName("metaeval")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.driver.memory", "1g")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.log.level", "ERROR"))
    try:
        with _quiet():
            _LOCAL = builder.getOrCreate()
    except Exception as exc:  # the JVM did not start (JAVA_GATEWAY_EXITED and the like)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise InputError(f"could not start a local Spark session ({type(exc).__name__}: {first[:160]})",
                         source="<engine>", fix=INSTALL_HINT) from None
    _LOCAL.sparkContext.setLogLevel("ERROR")
    with contextlib.suppress(Exception):  # Spark logs every failed query as a JSON stack trace: not here
        jvm = _LOCAL.sparkContext._jvm
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
            "SQLQueryContextLogger", jvm.org.apache.logging.log4j.Level.OFF)
    return _LOCAL


@contextlib.contextmanager
def _quiet():
    """pyspark warns that pandas >= 3 is not fully supported (and trips pandas' deprecations); the
    conversions used here work."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                                category=FutureWarning)
        warnings.filterwarnings("ignore", module=r"pyspark\.")  # pandas deprecations inside pyspark
        yield


def _qi(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


# --------------------------------------------------------------------------------------------
# the plan's executor
# --------------------------------------------------------------------------------------------

class _SparkExec:
    """The :class:`~metaeval.data.engines.plan.Executor` over a SparkSession: a table the plan
    materializes is a persisted temporary view (memory, spilling to disk; filled by the first query
    that reads it), unpersisted and dropped afterwards."""

    dialect = SPARK

    def __init__(self, spark):
        self.spark = spark
        self.held = {}

    def _sql(self, sql):
        return self.spark.sql(sql)

    def materialize(self, name, select):
        from pyspark import StorageLevel

        df = self._sql(select).persist(StorageLevel.MEMORY_AND_DISK)  # filled by the first query that reads it
        df.createOrReplaceTempView(name)
        self.held[name] = df

    def rows(self, sql):
        return [tuple(r) for r in self._sql(sql).collect()]

    def frame(self, sql):
        with _quiet():
            return self._sql(sql).toPandas()

    def upload(self, name, frame):
        types = {"f": "double", "i": "bigint", "u": "bigint", "b": "boolean"}
        schema = ", ".join(f"{_qi(str(c))} {types.get(frame[c].dtype.kind, 'string')}" for c in frame.columns)
        with _quiet():
            df = self.spark.createDataFrame(frame, schema=schema) if len(frame) else \
                self.spark.createDataFrame([], schema=schema)
        df.createOrReplaceTempView(name)
        self.held[name] = df

    def drop(self, name):
        df = self.held.pop(name, None)
        if df is not None:
            df.unpersist(blocking=False)
        self.spark.catalog.dropTempView(name)


# --------------------------------------------------------------------------------------------
# loading a side: a temporary view with the source's columns plus _rid, _line and _source
# --------------------------------------------------------------------------------------------

def _ext(name: str) -> str:
    base = name[:-3] if name.endswith(".gz") else name
    return os.path.splitext(base)[1].lower()


def _is_remote(path: str) -> bool:
    return bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", path)) and not path.startswith("file://")


def _local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def _hadoop_path(path: str) -> str:
    """A local file as Spark reads it literally: absolute, Hadoop's glob characters escaped."""
    return re.sub(r"([\\{}\[\]*?])", r"\\\1", os.path.abspath(path))


def _uri_path(uri: str) -> str:
    """A file URI as Spark's ``input_file_name()`` gives it, as a plain path."""
    from urllib.parse import unquote

    return unquote(re.sub(r"^file:(//)?", "", uri)) if uri.startswith("file:") else uri


def _number(spark, df, source_of, hold: list | None = None):
    """Number the rows of a scan per file, in file order, without a shuffle.

    ``df`` has a column ``_path`` (the file of each row). Adds ``_line`` (1-based position in its
    file) and ``_rid`` (an ordinal in (file, position) order, files sorted by path), and sets
    ``_source`` to ``source_of(path)``. Spark keeps each file's splits in offset order across the
    partitions and reads a split's rows in order, so a row's position is its partition's offset for
    that file plus its place in the partition (``monotonically_increasing_id`` counts it); the offsets
    come from one aggregate of (partitions × files) rows. With ``hold`` (a list), the numbered rows are
    persisted (and appended to it, to unpersist later), for inputs whose partitions could change
    between two evaluations (a Spark DataFrame that comes out of a shuffle).
    """
    from pyspark.sql import functions as F

    df = df.withColumn("_pid", F.spark_partition_id()).withColumn("_mid", F.monotonically_increasing_id())
    if hold is not None:
        from pyspark import StorageLevel

        df = df.persist(StorageLevel.MEMORY_AND_DISK)
        hold.append(df)
    stats = df.groupBy("_pid", "_path").agg(F.count(F.lit(1)).alias("_n"), F.min("_mid").alias("_m0")).collect()
    per_file: dict = {}
    for r in stats:
        per_file.setdefault(r["_path"], []).append((int(r["_pid"]), int(r["_n"]), int(r["_m0"])))
    rows, start = [], 0
    for path in sorted(per_file, key=_uri_path):
        offset = 0
        for pid, n, m0 in sorted(per_file[path]):
            rows.append((pid, path, offset, start + offset, m0, source_of(path)))
            offset += n
        start += offset
    bases = spark.createDataFrame(
        rows, schema="_pid int, _path string, _b_line long, _b_rid long, _m0 long, _src string")
    df = df.join(F.broadcast(bases), on=["_pid", "_path"], how="inner")
    return (df.withColumn("_line", F.col("_mid") - F.col("_m0") + F.col("_b_line") + 1)
              .withColumn("_rid", F.col("_mid") - F.col("_m0") + F.col("_b_rid"))
              .withColumn("_source", F.col("_src"))
              .drop("_pid", "_mid", "_m0", "_b_line", "_b_rid", "_src", "_path"))


def _errors(source: str):
    """Spark's errors about an input as one-line InputErrors (not a Java stack trace)."""
    @contextlib.contextmanager
    def ctx():
        try:
            yield
        except InputError:
            raise
        except Exception as exc:
            text = str(exc).strip()
            if "PATH_NOT_FOUND" in text or "Path does not exist" in text:
                raise InputError("file not found", source=source, fix="check the path") from None
            if type(exc).__module__.startswith(("pyspark", "py4j")):
                first = text.splitlines()[0] if text else type(exc).__name__
                raise InputError(f"Spark could not read it ({first[:200]})", source=source) from None
            raise
    return ctx()


class _Loader:
    def __init__(self, spark, glob: bool | None = None):
        self.spark = spark
        self.glob = glob
        self.views: list[str] = []
        self.held: list = []  # persisted Spark DataFrame inputs, numbered once

    def _register(self, df, name: str) -> SideInput:
        view = f"_me_spark_in{len(self.views)}_{id(self):x}"
        df.createOrReplaceTempView(view)
        self.views.append(view)
        cols = {f.name: column_kind(f.dataType.simpleString()) for f in df.schema.fields
                if f.name not in _BOOKKEEPING}
        return SideInput(view, name, cols)

    def drop(self):
        for v in self.views:
            with contextlib.suppress(Exception):
                self.spark.catalog.dropTempView(v)
        for df in self.held:
            with contextlib.suppress(Exception):
                df.unpersist(blocking=False)

    # -- in memory -------------------------------------------------------------------------------
    def frame(self, df: pd.DataFrame, name: str | None = None, lines=None) -> SideInput:
        from ..io import _frame_source
        from .duckdb_engine import _object_to_text

        if name is None:
            df, name, lines = _frame_source(df, numbered=False)
        else:
            df = df.reset_index(drop=True)
        out = _object_to_text(df).copy(deep=False)
        out.attrs = {}
        out.columns = [str(c) for c in out.columns]
        n = len(out)
        out["_rid"] = np.arange(n, dtype=np.int64)
        out["_line"] = np.arange(1, n + 1, dtype=np.int64) if lines is None else np.asarray(lines, dtype=np.int64)
        out["_source"] = name
        with _quiet():
            sdf = self.spark.createDataFrame(out)
        return self._register(sdf, name)

    def spark_frame(self, sdf, name: str = "<Spark DataFrame>") -> SideInput:
        from pyspark.sql import functions as F

        if "_line" in sdf.columns and "_rid" in sdf.columns:  # numbered by the caller
            if "_source" not in sdf.columns:
                sdf = sdf.withColumn("_source", F.lit(name))
            return self._register(sdf, name)
        sdf = _number(self.spark, sdf.drop(*[c for c in _BOOKKEEPING if c in sdf.columns])
                      .withColumn("_path", F.lit(name)), lambda p: name, hold=self.held)
        return self._register(sdf, name)

    # -- files ------------------------------------------------------------------------------------
    def path(self, source, glob: bool | None = None) -> SideInput:
        from ..io import check_regular
        from .paths import is_pattern, resolve

        name = str(source)
        if _is_remote(name):
            return self.remote(name)
        local = _local(name)
        if is_pattern(local, glob):  # a path that exists is read as it is (see .paths)
            files = resolve(local, glob)[1]
            exts = {_ext(f) if not f.endswith(".gz") else "gz" for f in files}
            if exts <= {".parquet", ".pq"}:
                return self.parquet(name, files)
            if not any(_is_table(f) for f in files):
                return self.qrels(name, files)
            raise InputError("a glob of text tables", source=name,
                             fix="point to Parquet files or qrels files, or read the tables one by one")
        if os.path.isdir(local):
            files = sorted(os.path.join(r, f) for r, _, fs in os.walk(local) for f in fs
                           if _ext(f) in (".parquet", ".pq") and not f.startswith((".", "_")))
            if not files:
                raise InputError("no Parquet files in the folder", source=name,
                                 fix="point to a folder of .parquet files (hive-partitioned or not), or a file")
            return self.parquet(name, files)
        if not os.path.exists(local):
            raise InputError("file not found", source=name, fix="check the path")
        check_regular(local, name)
        if not _is_table(local):
            return self.qrels(name, [local])
        ext = _ext(local)
        if ext in (".parquet", ".pq") and not local.endswith(".gz"):
            return self.parquet(name, [local])
        if ext in (".csv", ".tsv", ".tab") and not local.endswith(".gz"):
            side = self.csv(name, local, "," if ext == ".csv" else "\t")
            if side is not None:
                return side
        return self.pandas_table(name)

    def pandas_table(self, name: str) -> SideInput:
        """JSON, gzipped tables and CSV files with blank lines, a byte-order mark or odd headers: the
        pandas reader reads them (and names the line of any error), Spark gets the rows."""
        from .. import io as mio

        df, name, first = mio._read_table(name)
        return self.frame(df, name, mio._row_lines(df, first))

    def _source_of(self, name: str, files: Sequence[str]):
        single = len(files) == 1

        def source_of(uri):
            return name if single else _uri_path(uri)
        return source_of

    def parquet(self, name: str, files: Sequence[str]) -> SideInput:
        from pyspark.sql import functions as F

        with _errors(name):
            reader = self.spark.read
            if os.path.isdir(_local(name)):
                reader = reader.option("basePath", _local(name))
                df = reader.parquet(*[_hadoop_path(f) for f in files])
            else:
                df = reader.parquet(*[_hadoop_path(f) for f in files])
            df = _number(self.spark, df.withColumn("_path", F.input_file_name()), self._source_of(name, files))
            return self._register(df, name)

    def csv(self, name: str, local: str, sep: str) -> SideInput | None:
        """A plain CSV/TSV file read by Spark (every column as text), or None for the pandas reader."""
        from pyspark.sql import functions as F

        header = _plain_csv_header(local, sep)
        if header is None:
            return None
        schema = ", ".join(f"{_qi(h)} STRING" for h in header)
        with _errors(name):
            df = (self.spark.read.option("header", True).option("sep", sep).option("quote", '"')
                  .option("escape", '"').option("mode", "FAILFAST").option("nullValue", "\x02")
                  .option("emptyValue", "").option("enforceSchema", False).schema(schema).csv(_hadoop_path(local)))
            df = _number(self.spark, df.withColumn("_path", F.input_file_name()), lambda p: name)
            df = df.withColumn("_line", F.col("_line") + 1)  # the header is line 1
            side = self._register(df, name)
            try:
                self.spark.sql(f"SELECT count(*) FROM {side.view}").collect()
            except Exception:
                self.views.pop()
                return None  # a malformed row: the pandas reader says where
            return side

    def qrels(self, name: str, files: Sequence[str]) -> SideInput:
        """TREC qrels text (plain or gzipped) read by Spark as lines, each line checked; a file with any
        line that is not four clean fields (or blank) is read by :func:`metaeval.read_qrels`, which
        raises its error naming the line (or reads the odd but valid file)."""
        from pyspark.sql import functions as F

        with _errors(name):
            raw = self.spark.read.text([f if _is_remote(f) else _hadoop_path(f) for f in files])
            raw = _number(self.spark, raw.withColumn("_path", F.input_file_name()), self._source_of(name, files))
            pat = QRELS_LINE[:-1] + r"\r?$"
            blank = F.col("value").rlike(r"^[ \t]*\r?$")
            parsed = raw.select(
                "_rid", "_line", "_source", blank.alias("_blank"),
                F.regexp_extract("value", pat, 1).alias("query_id"),
                F.regexp_extract("value", pat, 3).alias("doc_id"),
                F.regexp_extract("value", pat, 4).alias("_rel"),
                F.col("value").startswith("\ufeff").alias("_bom"), F.col("value").alias("_text"))
            view = f"_me_spark_q{len(self.views)}_{id(self):x}"
            parsed.createOrReplaceTempView(view + "_p")
            self.views.append(view + "_p")
            bad = self.spark.sql(
                f"SELECT _source, min(_rid) FROM {view}_p WHERE (NOT _blank AND query_id = '') OR _bom "
                f"GROUP BY _source").collect()
            good = self.spark.sql(f"SELECT count(*) FROM {view}_p WHERE NOT _blank").collect()[0][0]
        if (bad or not good) and _is_remote(name):  # no local file for the pandas reader: say it here
            if not good:
                raise InputError("the file has no data lines", source=name)
            src, line, text = self.spark.sql(
                f"SELECT _source, _line, _text FROM {view}_p WHERE (NOT _blank AND query_id = '') OR _bom "
                f"ORDER BY _rid LIMIT 1").collect()[0]
            raise InputError(f"not a qrels line ({len(str(text).split())} fields)", source=src, line=int(line),
                             text=text, expected="4 whitespace-separated fields (query_id iteration doc_id "
                             "relevance), an integer relevance", fix="correct or delete the line")
        if bad or not good:
            from .. import io as mio

            frames = []
            for f in files:  # the reader raises its error naming the file and line
                df = mio.read_qrels(f)
                frames.append(df)
            if len(frames) == 1:
                df = frames[0]
                return self.frame(df, name, df.attrs["lines"])
            lines = np.concatenate([np.asarray(d.attrs["lines"]) for d in frames])
            srcs = np.concatenate([np.full(len(d), f, dtype=object) for d, f in zip(frames, files)])
            df = pd.concat([d.reset_index(drop=True) for d in frames], ignore_index=True)
            df.attrs = {}
            side = self.frame(df, name, lines)
            sdf = self.spark.table(side.view).drop("_source")
            with _quiet():
                src = self.spark.createDataFrame(pd.DataFrame({"_rid": np.arange(len(df), dtype=np.int64),
                                                               "_source": srcs.astype(str)}))
            return self._register(sdf.join(src, on="_rid"), name)
        df = self.spark.sql(f"SELECT query_id, doc_id, CAST(_rel AS BIGINT) AS relevance, _rid, _line, _source "
                            f"FROM {view}_p WHERE NOT _blank")
        return self._register(df, name)

    def remote(self, name: str) -> SideInput:
        """A path Spark reads itself (hdfs://, s3a://, ...): Parquet, CSV/TSV, JSON lines or qrels."""
        from pyspark.sql import functions as F

        ext = _ext(name.rstrip("/"))
        with _errors(name):
            if ext in (".csv", ".tsv", ".tab"):
                df = (self.spark.read.option("header", True).option("sep", "," if ext == ".csv" else "\t")
                      .option("escape", '"').option("mode", "FAILFAST").option("nullValue", "\x02").csv(name))
                df = _number(self.spark, df.withColumn("_path", F.input_file_name()), _uri_path)
                return self._register(df.withColumn("_line", F.col("_line") + 1), name)
            if ext in (".json", ".jsonl", ".ndjson"):
                df = self.spark.read.option("mode", "FAILFAST").json(name)
                df = _number(self.spark, df.withColumn("_path", F.input_file_name()), _uri_path)
                return self._register(df, name)
            if ext in (".parquet", ".pq", ""):
                df = self.spark.read.parquet(name)
                df = _number(self.spark, df.withColumn("_path", F.input_file_name()), _uri_path)
                return self._register(df, name)
        return self.qrels(name, [name])

    def load(self, source) -> SideInput:
        if isinstance(source, pd.DataFrame):
            return self.frame(source)
        if isinstance(source, (str, os.PathLike)):
            return self.path(source, self.glob)
        mod = type(source).__module__.split(".")[0]
        if mod == "pyspark":
            return self.spark_frame(source)
        if mod == "polars":
            import polars as pl

            if isinstance(source, pl.LazyFrame):
                source = source.collect()
            return self.frame(source.to_pandas(), "<DataFrame>")
        if mod == "pyarrow":
            import pyarrow as pa

            if isinstance(source, pa.RecordBatchReader):
                source = source.read_all()
            if isinstance(source, pa.Table):
                return self.frame(source.to_pandas(), "<DataFrame>")
        raise InputError(f"cannot align an object of type {type(source).__name__}",
                         expected="a DataFrame (pandas, polars or Spark), an Arrow table, or a path")


def _is_table(name: str) -> bool:
    """What the pandas path reads as a table (everything else is qrels text)."""
    from ..alignment import _TABLE_EXTS

    base = name[:-3] if name.endswith(".gz") else name
    return base.lower().endswith(_TABLE_EXTS)


def _plain_csv_header(path: str, sep: str):
    """The header of a CSV/TSV file Spark can read as the pandas reader does, or None (a byte-order
    mark, gzip, a NUL byte, blank lines, lone carriage returns, an empty or repeated column name)."""
    import csv
    import mmap

    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                return None
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                if mm[:3] == b"\xef\xbb\xbf" or mm[:2] == b"\x1f\x8b" or mm.find(b"\x00") >= 0:
                    return None
                blank = b" \r" if sep == "\t" else b" \t\r"
                if re.search(rb"(?:\A|\n)[" + blank + rb"]*(?:\n|\Z)", mm[:-1] if mm[-1:] == b"\n" else mm):
                    return None
                if re.search(rb"\r(?!\n)", mm):
                    return None
                end = mm.find(b"\n")
                head = (mm[:end] if end >= 0 else mm[:]).decode("utf-8").rstrip("\r")
            finally:
                mm.close()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    header = next(csv.reader([head], delimiter=sep), [])
    if not header or len(set(header)) != len(header) or any(h == "" for h in header):
        return None
    return header


# --------------------------------------------------------------------------------------------

def align_spark(reference, candidate, *, on: str | Sequence[str] = ("query_id", "doc_id"),
                labels: str | tuple[str, str] = "relevance", scale: Scale | None = None,
                out_of_scale: str = "error", duplicates: str = "error", refusal_flag: str | None = None,
                refusal_value=None, refusals="keep", unjudged="drop", names=("reference", "candidate"),
                by: str | Sequence[str] = (), rows: bool = False, spark=None,
                glob: bool | None = None) -> AlignmentCounts:
    """Align two judgment sets in Spark; the report equals :func:`metaeval.align`'s, only counts come back.

    What travels back to the driver is bounded by the number of groups and labels, never by the
    number of judgments: the cells (at most ``groups × K²`` rows for ``K`` labels; ``K²`` without
    ``by``), the counts per fate and note (at most 11 fates × 2 sides), the distinct out-of-scale
    values, at most 50 conflict examples per side, the first offending row of an error, and small
    bookkeeping (partitions × files rows to number the lines). The rows come back only with
    ``rows=True``.

    Parameters
    ----------
    reference, candidate : path, glob, folder, DataFrame, Arrow table or Spark DataFrame
        A TREC qrels file (plain or ``.gz``) or a glob of them; a ``.csv/.tsv/.json/.jsonl/.parquet``
        file; a glob of Parquet files, or a folder of them (hive-partitioned or not); a remote path
        Spark reads (``hdfs://``, ``s3a://``: Parquet, CSV/TSV, JSON lines, qrels); a pandas or polars
        DataFrame, a pyarrow Table, or a Spark DataFrame (its rows numbered once in its partitions'
        order and persisted for the alignment, unless it has ``_rid`` and ``_line`` columns).
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
    spark : pyspark.sql.SparkSession, optional
        The session to run in (a cluster's); default: the active session, else a local one
        (:func:`local_session`).
    glob : bool, optional
        Whether a local path is a pattern: None (default) only when no file of that name exists, True
        always, False never (:func:`metaeval.data.engines.paths.resolve`); files are read literally.

    Returns
    -------
    AlignmentCounts
        The report, the cells (``*by, reference, candidate, n``) and, when asked, the rows.

    Raises
    ------
    InputError
        pyspark or Java missing (saying what to install), and the errors of :func:`metaeval.align`
        with the same one-line messages: a file that does not exist, a missing column, a label that
        is not a number, an out-of-scale label with ``out_of_scale="error"``, conflicting labels with
        ``duplicates="error"``.

    References
    ----------
    :func:`metaeval.align` (the pandas path) and the DuckDB engine run the same policies:
    tests/test_engines_spark.py checks the report, the cells and the rows against both for every
    policy case of tests/messy_inputs.py and every input form, and on a messy 200k-row pair
    (benchmarks/bench_spark.py prints the comparison and the timings).

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("pyspark")
    >>> import metaeval as me
    >>> d = me.datasets.path("trec_dl_like")
    >>> res = align_spark(d / "qrels.human.txt", d / "qrels.judge.txt", by="query_id")
    >>> res.report.n_pairs, int(res.cells["n"].sum()), res.cells.columns.tolist()
    (7731, 7731, ['query_id', 'reference', 'candidate', 'n'])
    """
    on, names, labels = check_policies(on, duplicates, out_of_scale, refusals, unjudged, names, labels)
    by = (by,) if isinstance(by, str) else tuple(by)
    session = spark if spark is not None else local_session()
    loader = _Loader(session, glob)
    try:
        sides = [loader.load(reference), loader.load(candidate)]
        with _errors(f"{sides[0].name} / {sides[1].name}"):
            return run_plan(_SparkExec(session), sides, on=on, labels=labels, scale=scale,
                            out_of_scale=out_of_scale, duplicates=duplicates, refusal_flag=refusal_flag,
                            refusal_value=refusal_value, refusals=refusals, unjudged=unjudged, names=names,
                            by=by, rows=rows, quote=_qi)
    finally:
        loader.drop()
