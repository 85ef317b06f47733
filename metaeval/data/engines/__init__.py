"""Alignment engines: pandas (in memory), DuckDB (embedded, beyond memory), Spark (a cluster).

Every engine runs the same alignment (the policies of :func:`metaeval.align`) and returns an
:class:`~metaeval.data.engines.base.AlignmentCounts`. :func:`choose_engine` picks one for
``engine="auto"``; :func:`run_alignment` runs the chosen one.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pandas as pd

from .base import AlignmentCounts

__all__ = ["ENGINES", "AUTO_DUCKDB_BYTES", "AUTO_DUCKDB_ROWS", "choose_engine", "run_alignment", "align_pandas",
           "AlignmentCounts"]

#: The engines ``metaeval.align(..., engine=)`` accepts.
ENGINES = ("auto", "pandas", "duckdb", "spark")

#: ``engine="auto"`` uses DuckDB for text files (qrels, CSV, TSV, JSON) from this size on (both sides
#: together). Measured on this project's 2-core machine while other jobs ran
#: (load average 6-8, so absolute times are slow), two qrels files of n lines each (18 bytes a line),
#: ``align(..., by="query_id", rows=False)``, best of two, pandas path vs DuckDB engine:
#: n = 100k: 0.21 s / 0.39 s; 300k: 0.53 s / 0.74 s; 1M: 1.85 s / 2.75 s; 2M: 4.25 s / 5.36 s;
#: 10M: 51.8 s and 3.24 GB peak RSS / 37-48 s and 1.18 GB. The switch sat near 3.5M lines a side:
#: 128 MB of text for both files. Since the DuckDB engine streams its key group-by (third session of
#: quiet machine, 39-byte lines, best of two): 20k lines: 0.05 s / 0.12 s; 100k: 0.14 s /
#: 0.18 s; 300k: 0.47 s / 0.37 s; 1M: 1.23 s / 0.96 s. DuckDB now leads from ~200k lines, but by
#: less than a second below the switch, where the pandas engine's rows (a ``Paired``, which every
#: analysis takes) are worth more than the time; the switch stays where DuckDB's memory limit starts
#: to matter.
AUTO_DUCKDB_BYTES = 128 * 2 ** 20
#: ``engine="auto"`` uses DuckDB for in-memory pandas frames from this many rows (both sides together);
#: a frame is already in memory, so the point is speed, where the pandas path leads below a few million
#: rows a side (as for text files).
AUTO_DUCKDB_ROWS = 8_000_000

def _is_big_input(source, glob: bool | None = None) -> bool | None:
    """True: DuckDB's kind of input; False: small enough for pandas; None: measure with the other side."""
    from .paths import is_pattern

    if isinstance(source, pd.DataFrame):
        return None
    if isinstance(source, (str, os.PathLike)):
        name = str(source)
        if os.path.isdir(name) or is_pattern(name, glob):
            return True
        base = name[:-3] if name.endswith(".gz") else name
        if base.lower().endswith((".parquet", ".pq")):
            return True
        return None
    mod = type(source).__module__.split(".")[0]
    if mod in ("duckdb", "polars", "pyarrow"):
        return True
    return None


def _size(source) -> tuple[int, int]:
    """(bytes, rows) of an input that is not decided by its kind: a file's size, a gzip's decompressed
    size (streamed, up to :data:`AUTO_DUCKDB_BYTES`: a gzip may expand a thousandfold), a frame's rows."""
    import stat

    from ...core.errors import InputError
    from ..io import _scan_text

    if isinstance(source, pd.DataFrame):
        return 0, len(source)
    try:
        st = os.stat(str(source))
        if not stat.S_ISREG(st.st_mode):
            return 0, 0  # a device or a FIFO: the readers refuse it
        with open(str(source), "rb") as fh:
            gz = fh.read(2) == b"\x1f\x8b"
    except OSError:
        return 0, 0
    if not gz:
        return st.st_size, 0
    try:
        return _scan_text(str(source), stop_at=AUTO_DUCKDB_BYTES)["bytes"], 0
    except InputError:  # corrupt: the reader of either engine says so
        return st.st_size, 0


def choose_engine(reference, candidate, engine: str = "auto", *, glob: bool | None = None) -> str:
    """The engine that runs an alignment: ``engine`` itself, or for ``"auto"`` the faster one.

    Parameters
    ----------
    reference, candidate : path, glob, folder, DataFrame, Arrow/polars table, DuckDB relation or Spark DataFrame
        The two judgment sets.
    engine : {"auto", "pandas", "duckdb", "spark"}
        ``"auto"``: ``"spark"`` for a Spark DataFrame; ``"duckdb"`` for Parquet files, globs, folders,
        DuckDB relations, Arrow and polars tables, text files of :data:`AUTO_DUCKDB_BYTES` or more
        and pandas frames of :data:`AUTO_DUCKDB_ROWS` rows or more (both sides together);
        ``"pandas"`` otherwise. A gzipped file counts by its decompressed size (streamed, at most
        :data:`AUTO_DUCKDB_BYTES` of it read).
    glob : bool, optional
        Whether a path is a pattern (:func:`metaeval.data.engines.paths.resolve`): None (default) only
        when it does not exist, True always, False never.

    Returns
    -------
    str
        One of ``"pandas"``, ``"duckdb"``, ``"spark"``.

    Raises
    ------
    ValueError
        An unknown engine.

    References
    ----------
    The thresholds are measured (see :data:`AUTO_DUCKDB_BYTES`); tests/test_engines_duckdb.py checks
    the choice for each kind of input.

    Examples
    --------
    >>> import pandas as pd
    >>> small = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    >>> choose_engine(small, small), choose_engine("a/*.parquet", "b/*.parquet"), choose_engine(small, small, "duckdb")
    ('pandas', 'duckdb', 'duckdb')
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine != "auto":
        return engine
    sources = (reference, candidate)
    if any(type(s).__module__.startswith("pyspark") for s in sources):
        return "spark"
    kinds = [_is_big_input(s, glob) for s in sources]
    if any(kinds):
        return "duckdb"
    sizes = [_size(s) for s in sources]
    if sum(b for b, _ in sizes) >= AUTO_DUCKDB_BYTES or sum(r for _, r in sizes) >= AUTO_DUCKDB_ROWS:
        return "duckdb"
    return "pandas"


def align_pandas(reference, candidate, *, on=("query_id", "doc_id"), labels="relevance", scale=None,
                 out_of_scale="error", duplicates="error", refusal_flag=None, refusal_value=None, refusals="keep",
                 unjudged="drop", names=("reference", "candidate"), by=(), rows=False,
                 glob: bool | None = None) -> AlignmentCounts:
    """The pandas path (:func:`metaeval.align`) with the engines' result: the pairs counted by group.

    Parameters
    ----------
    reference, candidate : DataFrame or path
        As :func:`metaeval.align` takes them.
    on, labels, scale, out_of_scale, duplicates, refusal_flag, refusal_value, refusals, unjudged, names
        As :func:`metaeval.align` (``labels`` is its ``label``).
    by : str or sequence of str
        Group columns of the cells (key or reference metadata columns).
    rows : bool
        Keep the pairs (``Paired.data``) and the unjudged rows in the result.
    glob : bool, optional
        As :func:`metaeval.align`: the pandas path reads one file a side, so a pattern is an error.

    Returns
    -------
    AlignmentCounts

    References
    ----------
    :func:`metaeval.align`; the cells are ``Paired.data`` grouped by ``by`` and the label pair
    (tests/test_engines_duckdb.py compares them with the DuckDB engine's).

    Examples
    --------
    >>> import pandas as pd
    >>> ref = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [0, 2]})
    >>> align_pandas(ref, ref, by="query_id").cells.values.tolist()
    [['1', 0.0, 0.0, 1], ['1', 2.0, 2.0, 1]]
    """
    from ..alignment import align

    by = (by,) if isinstance(by, str) else tuple(by)
    kw = dict(on=on, label=labels, scale=scale, out_of_scale=out_of_scale, duplicates=duplicates,
              refusal_flag=refusal_flag, refusal_value=refusal_value, refusals=refusals, unjudged=unjudged,
              names=names)
    if "engine" in inspect.signature(align).parameters:
        kw["engine"] = "pandas"
    if glob is not None:
        kw["glob"] = glob
    p = align(reference, candidate, **kw)
    data = p.data
    for c in by:
        if c not in data.columns:
            from ...core.errors import InputError

            raise InputError(f"no column {c!r} to group the pairs by", source=p.report.sources.get(p.names[0]),
                             expected=f"one of {', '.join(map(str, data.columns))}", fix="check by=")
    cells = _count(data, by, ["reference", "candidate"])
    unj = None
    if p.unjudged is not None and unjudged == "keep":
        unj = p.unjudged if rows else _count(p.unjudged, tuple(c for c in by if c in p.unjudged.columns), ["reference"])
    return AlignmentCounts(report=p.report, on=p.on, by=by, cells=cells, scale=p.scale, names=p.names,
                           rows=data if rows else None, unjudged=unj)


def _count(data: pd.DataFrame, by, labels) -> pd.DataFrame:
    cols = list(by) + list(labels)
    if not len(data):
        return pd.DataFrame({c: pd.Series(dtype=object if c in by else float) for c in cols}
                            | {"n": pd.Series(dtype=np.int64)})
    frame = pd.DataFrame({c: [None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
                              for v in data[c].tolist()] for c in by})
    for c in labels:
        frame[c] = data[c].to_numpy(dtype=float)
    out = frame.groupby(cols, sort=False, dropna=False).size().reset_index(name="n")
    out = out.sort_values(cols, kind="stable", na_position="last").reset_index(drop=True)
    out["n"] = out["n"].astype(np.int64)
    for c in by:  # text, None when missing (as every engine gives them)
        out[c] = pd.Series([v if isinstance(v, str) else None for v in out[c]], dtype=object, index=out.index)
    return out


def run_alignment(engine: str, reference, candidate, **policies) -> AlignmentCounts:
    """Run one engine's alignment (after :func:`choose_engine` for ``"auto"``).

    Parameters
    ----------
    engine : {"auto", "pandas", "duckdb", "spark"}
        The engine.
    reference, candidate : inputs
        The two judgment sets (what the engine reads; see :func:`choose_engine`).
    **policies
        The keywords of :func:`metaeval.data.engines.duckdb_engine.align_duckdb`: ``on, labels`` (or
        ``label``), ``scale, out_of_scale, duplicates, refusal_flag, refusal_value, refusals, unjudged,
        names, by, rows``; ``connection``, ``memory_limit``, ``threads`` (DuckDB only); ``spark`` (a
        SparkSession, Spark only). Keywords another engine does not take are dropped.

    Returns
    -------
    AlignmentCounts

    References
    ----------
    tests/test_engines_duckdb.py: every engine gives the same report and cells on the messy cases.

    Examples
    --------
    >>> import pandas as pd
    >>> ref = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "relevance": [0, 2]})
    >>> res = run_alignment("duckdb", ref, ref, label="relevance", by="query_id")
    >>> res.report.n_pairs, res.cells["n"].tolist()
    (2, [1, 1])
    """
    policies = dict(policies)
    if "label" in policies:
        policies["labels"] = policies.pop("label")
    duck_only = ("connection", "memory_limit", "threads")
    engine = choose_engine(reference, candidate, engine, glob=policies.get("glob"))
    if engine == "duckdb":
        from .duckdb_engine import align_duckdb

        policies.pop("spark", None)
        return align_duckdb(reference, candidate, **policies)
    if engine == "spark":
        from .spark_engine import align_spark

        for k in duck_only:
            policies.pop(k, None)
        return align_spark(reference, candidate, **policies)
    for k in duck_only + ("spark",):
        policies.pop(k, None)
    return align_pandas(reference, candidate, **policies)
