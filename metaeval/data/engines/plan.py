"""The alignment of :func:`metaeval.align` as SQL, written once for every SQL engine (DuckDB, Spark SQL).

An engine loads each side as a view with the side's original columns plus three bookkeeping columns
(``_rid``: a number that orders the rows as the pandas path orders them; ``_line``: the line or
record number the pandas readers report; ``_source``: the file the row came from) and hands the
plan an :class:`Executor`. :func:`run_plan` then runs the steps of the pandas path
(``metaeval.data.alignment._side`` and ``align``) as SQL statements, in the same order, so that it
raises the same errors first and builds the same :class:`~metaeval.data.alignment.AlignmentReport`:

1. keys normalized (integral floats as integer text, text stripped; empty → ``missing_key``),
   labels as numbers (a text label that is not a number is an error naming its file and line),
   refusals (a truthy flag or the sentinel label), ``missing_label``, out-of-scale labels;
2. one group-by over the rows left on both sides (their union) gives, per key and side, the count,
   the first (or last) row and its label and whether the labels conflict: identical repeats collapse
   to the first row, conflicting ones merge by the ``duplicates`` policy (the examples: the first 50
   conflicting keys, in order of first appearance), and a key's presence on each side is the outer
   join (matched / unmatched / unjudged);
3. the keys counted per group and label pair (the ``cells``); rows travel back only when asked for.

Only aggregates leave the engine: a handful of counts, the out-of-scale values, at most 50 conflict
examples, the cells (groups × K² rows), and the first offending row of an error.

The SQL differences between engines sit in :class:`Dialect` (the two instances :data:`DUCKDB` and
:data:`SPARK`): text types, ``TRY_CAST``, trimming, regular-expression matching, string literals.
Everything else is SQL both accept (``min_by``/``max_by``, ``row_number()``, ``FULL OUTER JOIN``).
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from ...core.errors import InputError, MetaevalWarning
from ...core.scale import Scale, infer_from_pairs
from .base import AlignmentCounts

__all__ = ["Dialect", "DUCKDB", "SPARK", "Executor", "SideInput", "run_plan", "check_policies",
           "QRELS_LINE", "QRELS_LABEL_DIGITS", "LABEL_MISSING", "TRUTHY", "column_kind"]

#: Text a label column may hold for a missing label (compared stripped and lower-cased), as
#: ``metaeval.data.io._label_numeric`` has it.
LABEL_MISSING = ("", "na", "nan", "null", "none", "n/a")
#: Values of a text refusal flag that count as true, as ``metaeval.data.alignment._truthy`` has it.
TRUTHY = ("1", "true", "yes", "y", "t", "1.0")
#: What Python's ``str.strip()`` removes (the ASCII and the common Unicode white space).
_WHITESPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
#: A number pandas' ``to_numeric`` accepts (TRY_CAST alone would also take ``1_000``).
_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$|^(?i)[+-]?(inf|infinity)$"
#: The digits of the longest relevance label a fast qrels reader vouches for (below 2⁵³, so exact as a
#: double); a longer one sends the file to :func:`metaeval.read_qrels`, which decides (it takes
#: integers up to 2⁵³ and names the line of any other).
QRELS_LABEL_DIGITS = 15
#: A clean qrels line (``query_id iteration doc_id relevance``, integer relevance). Lines that do not
#: match, and are not blank, send the file to :func:`metaeval.read_qrels`, whose errors name them.
QRELS_LINE = (r"^([^ \t\r\x0b\x0c\x00]+)[ \t]+([^ \t\r\x0b\x0c\x00]+)[ \t]+([^ \t\r\x0b\x0c\x00]+)[ \t]+"
              rf"(-?[0-9]{{1,{QRELS_LABEL_DIGITS}}})$")

_DUP_POLICIES = ("error", "first", "last", "majority", "mean")
_OOS_POLICIES = ("error", "clip", "drop", "missing")


@dataclass(frozen=True)
class Dialect:
    """The few SQL spellings that differ between engines.

    Attributes
    ----------
    name : str
        ``"duckdb"`` or ``"spark"``.
    text : str
        The text type in casts.
    literal : callable
        A Python string → an SQL string literal.
    strip : callable
        An SQL text expression → the expression with leading and trailing white space removed.
    matches : callable
        ``(expression, pattern)`` → a boolean expression: the pattern (RE2/Java syntax) matches.
    try_double : callable
        An SQL text expression → a DOUBLE, NULL where it is not a number.
    intdiv : callable
        ``(a, b)`` → the integer quotient of two non-negative BIGINT expressions.
    isinf : callable
        A DOUBLE expression → true where it is infinite (Spark SQL has no ``isinf``).
    hash64 : callable
        A list of SQL expressions → a 64-bit hash of them (DuckDB ``hash``, Spark ``xxhash64``).
    bigint_types : frozenset of str
        The integer types (as ``typeof`` names them, upper case) whose every value is a BIGINT.
    """

    name: str
    text: str
    literal: Callable[[str], str]
    strip: Callable[[str], str]
    matches: Callable[[str, str], str]
    try_double: Callable[[str], str]
    intdiv: Callable[[str, str], str]
    isinf: Callable[[str], str]
    hash64: Callable[[Sequence[str]], str]
    bigint_types: frozenset = frozenset()


def _duck_literal(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _spark_literal(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


#: The code points of :data:`_WHITESPACE`: a value is trimmed only when it starts or ends with one
#: (several times faster than trimming every value).
_WS_CODES = "(" + ", ".join(str(ord(c)) for c in _WHITESPACE) + ")"

DUCKDB = Dialect(
    name="duckdb", text="VARCHAR", literal=_duck_literal,
    strip=lambda e: (f"CASE WHEN ascii({e}) BETWEEN 33 AND 126 AND ascii(right({e}, 1)) BETWEEN 33 AND 126 THEN {e} "
                     f"WHEN ascii({e}) IN {_WS_CODES} OR ascii(right({e}, 1)) IN {_WS_CODES} "
                     f"THEN trim({e}, {_duck_literal(_WHITESPACE)}) ELSE {e} END"),
    matches=lambda e, p: f"regexp_matches({e}, {_duck_literal(p)})",
    try_double=lambda e: f"TRY_CAST({e} AS DOUBLE)",
    intdiv=lambda a, b: f"({a} // {b})",
    isinf=lambda e: f"isinf({e})",
    hash64=lambda es: f"hash({', '.join(es)})",
    bigint_types=frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"}))

SPARK = Dialect(
    name="spark", text="STRING", literal=_spark_literal,
    strip=lambda e: f"trim(BOTH {_spark_literal(_WHITESPACE)} FROM {e})",
    matches=lambda e, p: f"({e} RLIKE {_spark_literal(p)})",
    try_double=lambda e: f"TRY_CAST({e} AS DOUBLE)",
    intdiv=lambda a, b: f"({a} DIV {b})",
    isinf=lambda e: f"(abs({e}) = CAST('Infinity' AS DOUBLE))",
    hash64=lambda es: f"xxhash64({', '.join(es)})",
    bigint_types=frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT"}))


class Executor(Protocol):
    """What an engine gives the plan: run SQL, fetch small results, describe and hold tables."""

    dialect: Dialect

    def materialize(self, name: str, select: str) -> None:
        """Hold the result of ``select`` as the temporary table (or cached view) ``name``."""

    def rows(self, sql: str) -> list[tuple]:
        """The (small) result of a query as tuples."""

    def frame(self, sql: str) -> pd.DataFrame:
        """The (small) result of a query as a pandas DataFrame."""

    def drop(self, name: str) -> None:
        """Drop a table made by :meth:`materialize` or :meth:`upload`."""

    def upload(self, name: str, frame: pd.DataFrame) -> None:
        """Hold a (small) pandas DataFrame as the temporary table ``name``."""


def column_kind(sql_type: str) -> str:
    """The kind of an SQL column type the plan cares about: int, float, bool, str or other.

    (A reader may also declare ``"clean"``: text with no white space to trim.)

    Parameters
    ----------
    sql_type : str
        A type name as DuckDB's DESCRIBE or Spark's ``simpleString`` prints it.

    Returns
    -------
    str

    Examples
    --------
    >>> column_kind("BIGINT"), column_kind("DOUBLE"), column_kind("VARCHAR"), column_kind("decimal(10,2)")
    ('int', 'float', 'str', 'float')
    """
    t = sql_type.upper()
    if t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
             "UBIGINT", "UHUGEINT", "INT", "LONG", "SHORT", "BYTE", "INT8", "INT4", "INT2"):
        return "int"
    if t in ("DOUBLE", "FLOAT", "REAL", "FLOAT4", "FLOAT8") or t.startswith("DECIMAL"):
        return "float"
    if t in ("BOOLEAN", "BOOL"):
        return "bool"
    if t in ("VARCHAR", "STRING", "TEXT") or t.startswith("VARCHAR") or t.startswith("CHAR"):
        return "str"
    return "other"


@dataclass
class SideInput:
    """One side as the engine loaded it.

    Attributes
    ----------
    view : str
        The name of the view or table (original columns + ``_rid, _line, _source``).
    name : str
        The source name of the report (file, glob, folder or ``"<DataFrame>"``).
    columns : dict
        Original column → kind (:func:`column_kind`), in the input's order.
    check : str, optional
        For a fast reader that reads the file before it is validated: an SQL condition, true on a
        row the reader cannot vouch for (then, or when the row count is not ``expect_rows``, the
        plan calls ``fallback`` for a side read by the pandas reader, which raises its error).
    expect_rows : int, optional
        The number of rows the fast reader must produce (e.g. the file's line count).
    fallback : callable, optional
        Returns the side read another way (see ``check``).
    materialize : bool
        Hold the side's prepared rows as a table (the default; Spark's tables are cached views) or
        read them through a view over the input (DuckDB: the common case reads each side twice, once
        for its counts and once for the key group-by, which is cheaper than writing the rows).
    files : tuple of str
        The files read (a folder's or a glob's matches; empty for data in memory).
    rows : int, optional
        The rows the input holds, when the reader knows it without a pass (line counts, Parquet
        footers, tables in memory): what the spill estimate counts.
    stable_rid : bool
        Whether ``_rid`` is a stored column (Parquet row numbers, a frame's positions) rather than the
        order in which the engine reads the input (``row_number() OVER ()``): views over the latter
        are only read with the engine keeping rows in order.
    counted : str, optional
        A view of the same rows without their numbers (``_rid`` and ``_line`` NULL), for a pass that
        only counts: numbering the rows as the engine reads them holds the input in order, which
        costs more than the count itself (the DuckDB engine's qrels files).
    """

    view: str
    name: str
    columns: dict
    check: str | None = None
    expect_rows: int | None = None
    fallback: Callable[[], SideInput] | None = None
    materialize: bool = True
    stable_rid: bool = True
    files: tuple = ()
    rows: int | None = None
    counted: str | None = None


def check_policies(on, duplicates, out_of_scale, refusals, unjudged, names, label):
    """The argument checks of :func:`metaeval.align` (same ValueErrors); returns (on, names, labels).

    Parameters
    ----------
    on, duplicates, out_of_scale, refusals, unjudged, names, label
        As :func:`metaeval.align` takes them.

    Returns
    -------
    (tuple, tuple, tuple)
        The key columns, the two names and the two label columns.

    Examples
    --------
    >>> check_policies("query_id", "first", "clip", "keep", "drop", ("r", "c"), "relevance")
    (('query_id',), ('r', 'c'), ('relevance', 'relevance'))
    """
    on = (on,) if isinstance(on, str) else tuple(on)
    if not on:
        raise ValueError("on must name at least one key column")
    if duplicates not in _DUP_POLICIES:
        raise ValueError(f"duplicates must be one of {_DUP_POLICIES}, got {duplicates!r}")
    if out_of_scale not in _OOS_POLICIES:
        raise ValueError(f"out_of_scale must be one of {_OOS_POLICIES}, got {out_of_scale!r}")
    if not (refusals in ("keep", "drop") or (isinstance(refusals, (int, float)) and not isinstance(refusals, bool))):
        raise ValueError(f"refusals must be 'keep', 'drop' or a label, got {refusals!r}")
    if not (unjudged in ("drop", "keep") or (isinstance(unjudged, (int, float)) and not isinstance(unjudged, bool))):
        raise ValueError(f"unjudged must be 'drop', 'keep' or a label, got {unjudged!r}")
    names = tuple(names)
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two distinct strings, got {names!r}")
    labels = (label, label) if isinstance(label, str) else tuple(label)
    return on, names, labels


def _num(v):
    f = float(v)
    return int(f) if f.is_integer() else f


def _q(name: str) -> str:
    """A quoted identifier in DuckDB (Spark passes its own: backticks)."""
    return f'"{name}"'


def _double(v) -> str:
    f = float(v)
    if np.isnan(f) or np.isinf(f):
        raise ValueError(f"not a finite label: {v!r}")
    return f"CAST({f!r} AS DOUBLE)"


class _Plan:
    def __init__(self, ex: Executor, quote: Callable[[str], str]):
        self.ex = ex
        self.d = ex.dialect
        self.q = quote
        self.tag = "_me" + uuid.uuid4().hex[:10]
        self.made: list[str] = []
        #: key columns held as integers (see :func:`_integer_keys`); every other key is text
        self.int_keys: frozenset = frozenset()

    def table(self, suffix: str, select: str) -> str:
        name = f"{self.tag}_{suffix}"
        self.ex.materialize(name, select)
        self.made.append(name)
        return name

    def view(self, suffix: str, select: str) -> str:
        """A view when the engine makes them (else a table)."""
        if not hasattr(self.ex, "view"):
            return self.table(suffix, select)
        name = f"{self.tag}_{suffix}"
        self.ex.view(name, select)
        self.made.append(name)
        return name

    def cleanup(self):
        for name in reversed(self.made):
            try:
                self.ex.drop(name)
            except Exception:  # pragma: no cover - best effort
                pass

    # -- expressions -------------------------------------------------------------------------
    def key_expr(self, col: str, kind: str, integral: bool) -> str:
        """A key column as the plan compares it: text, or BIGINT for a key in ``int_keys``."""
        c, t = self.q(col), self.d.text
        if col in self.int_keys:
            return f"CAST({c} AS BIGINT)"
        if kind == "int":
            return f"CAST({c} AS {t})"
        if kind == "float":
            inner = f"CAST(CAST({c} AS BIGINT) AS {t})" if integral else f"CAST({c} AS {t})"
            return f"CASE WHEN {c} IS NULL OR isnan({c}) THEN NULL ELSE {inner} END"
        if kind == "bool":
            return f"CASE WHEN {c} THEN 'True' WHEN NOT {c} THEN 'False' END"
        if kind == "clean":  # text a reader vouched for: nothing to trim
            return c
        if kind == "str":
            return self.d.strip(c)
        return self.d.strip(f"CAST({c} AS {t})")

    def missing_key(self, col: str, k: str) -> str:
        """The condition of a missing key: NULL, or empty text (an integer key cannot be empty)."""
        return f"{k} IS NULL" + ("" if col in self.int_keys else f" OR {k} = ''")

    def label_exprs(self, col: str, kind: str) -> tuple[str, str]:
        """(number or NULL, is-not-a-number) expressions for a label column."""
        c = self.q(col)
        if kind in ("int", "float"):
            x = f"CAST({c} AS DOUBLE)"
            return f"CASE WHEN isnan({x}) THEN NULL ELSE {x} END", "FALSE"
        if kind == "bool":
            return f"CASE WHEN {c} THEN CAST(1 AS DOUBLE) WHEN NOT {c} THEN CAST(0 AS DOUBLE) END", "FALSE"
        s = c if kind in ("str", "clean") else f"CAST({c} AS {self.d.text})"
        st = self.d.strip(s)
        missing = f"({s} IS NULL OR lower({st}) IN ({', '.join(self.d.literal(v) for v in LABEL_MISSING)}))"
        num = f"CASE WHEN {missing} THEN NULL WHEN {self.d.matches(st, _NUMBER)} THEN {self.d.try_double(st)} END"
        return num, f"(NOT {missing} AND ({num}) IS NULL)"

    def flag_expr(self, col: str, kind: str) -> str:
        c = self.q(col)
        if kind in ("int", "float"):
            x = f"CAST({c} AS DOUBLE)"
            return f"({c} IS NOT NULL AND NOT isnan({x}) AND {x} <> 0)"
        if kind == "bool":
            return f"coalesce({c}, FALSE)"
        s = c if kind in ("str", "clean") else f"CAST({c} AS {self.d.text})"
        return f"coalesce(lower({self.d.strip(s)}) IN ({', '.join(self.d.literal(v) for v in TRUTHY)}), FALSE)"


def run_plan(ex: Executor, sides: Sequence[SideInput], *, on, labels, scale: Scale | None, out_of_scale: str,
             duplicates: str, refusal_flag, refusal_value, refusals, unjudged, names, by=(), rows: bool = False,
             quote: Callable[[str], str] = _q) -> AlignmentCounts:
    """Run the alignment on two loaded sides; the report equals the pandas path's field by field.

    Parameters
    ----------
    ex : Executor
        The engine's SQL runner.
    sides : (SideInput, SideInput)
        Reference and candidate.
    on : tuple of str
        The key columns.
    labels : (str, str)
        The label column of each side.
    scale : Scale or None
        The declared scale (None: inferred from the paired labels, nothing out of scale).
    out_of_scale, duplicates, refusal_flag, refusal_value, refusals, unjudged, names
        The policies of :func:`metaeval.align` (checked by :func:`check_policies`).
    by : sequence of str
        Group columns of the cells: key columns or reference metadata columns.
    rows : bool
        Also bring back the pairs (and the unjudged rows) as :func:`metaeval.align` returns them.
    quote : callable
        Column name → quoted identifier (double quotes for DuckDB, backticks for Spark).

    Returns
    -------
    AlignmentCounts

    Raises
    ------
    InputError
        As :func:`metaeval.align`: a missing key, label or flag column, a label that is not a number,
        an out-of-scale label with ``out_of_scale="error"``, conflicting labels with
        ``duplicates="error"``; the message names the file and the line.

    References
    ----------
    ``metaeval.data.alignment._side`` and ``align`` (the pandas path): tests/test_engines_duckdb.py
    compares the two field by field on the messy pairs of tests/messy_inputs.py and on random inputs.

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval.data.engines.duckdb_engine import align_duckdb
    >>> ref = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["a", "b", "a"], "relevance": [0, 2, 3]})
    >>> cand = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2]})
    >>> align_duckdb(ref, cand, by=("query_id",)).cells.values.tolist()
    [['1', 0.0, 1.0, 1], ['1', 2.0, 2.0, 1]]
    """
    p = _Plan(ex, quote)
    try:
        return _run(p, sides, on=tuple(on), labels=tuple(labels), scale=scale, out_of_scale=out_of_scale,
                    duplicates=duplicates, refusal_flag=refusal_flag, refusal_value=refusal_value,
                    refusals=refusals, unjudged=unjudged, names=tuple(names), by=tuple(by), rows=rows)
    finally:
        p.cleanup()


def _run(p: _Plan, sides, *, on, labels, scale, out_of_scale, duplicates, refusal_flag, refusal_value, refusals,
         unjudged, names, by, rows):
    from ..alignment import AlignmentReport, _cells

    ex, q = p.ex, p.q
    sides = list(sides)
    p.int_keys = _integer_keys(p, sides, on, rows)
    # a group column is a key, else a reference column, else a candidate column (the pairs' naming)
    by_side = {}
    for c in by:
        if c in on:
            continue
        for si, (s, lab) in enumerate(zip(sides, labels)):
            if c in s.columns and c != lab:
                by_side[c] = si
                break
    by_meta = ([c for c in by if by_side.get(c) == 0], [c for c in by if by_side.get(c) == 1])
    counts, notes, oos_rows, conflict_rows, n_input, sources = {}, {}, [], [], {}, {}
    keys = [f"_k{i}" for i in range(len(on))]
    # sides read by a fast reader are checked first (the pandas path reads both files before anything
    # else): a row the reader cannot vouch for sends the file to the pandas reader, which raises its error
    built = [None, None]
    # the common case in one pass over each side: the fates counted inside the key group-by (_merged)
    group_exprs = [keys[on.index(c)] if c in on else q("_m_" + c) for c in by]
    cat = "CASE WHEN _n0 = 0 THEN 'right' WHEN _n1 = 0 THEN 'left' ELSE 'both' END"
    sel = ", ".join([f"{g_} AS _g{i}" for i, g_ in enumerate(group_exprs)]
                    + ["_lab0 AS reference", "_lab1 AS candidate", f"{cat} AS _m"])
    gcols = [f"_g{i}" for i in range(len(by))]
    grouped = ", ".join(gcols + ["reference", "candidate", "_m"])
    merged = None
    if (not rows and not any(by_meta) and all(c in on for c in by) and refusal_flag is None and refusal_value is None
            and not (scale is not None and out_of_scale == "clip")
            and all(_columns_ok(s, on, lab) and s.rows is not None and s.rows < 2 ** 31
                    for s, lab in zip(sides, labels))
            # up to group_rows only: beyond, on 2 x 100M integer keys, the one pass took 6 min where
            # the two passes take about 1 (the wider group key, likely run again in hash passes)
            and _over_group_rows(p, [(None, {"n": s.rows, "fates": {}}) for s in sides]) <= 1):
        try:
            merged = _merged(p, sides, on, keys, labels, scale, out_of_scale, refusals,
                             [keys[on.index(c)] for c in by if c in on], grouped)
        except InputError:
            raise
        except Exception as exc:  # a fast reader that fails outright: the two-pass path hands it over
            if getattr(ex, "interrupted", lambda e: False)(exc):
                raise
            merged = None
        if merged is not None:
            built = merged[0]
    for si, (s, lab) in enumerate(zip(sides, labels)):
        if s.check is None or merged is not None:
            continue
        try:  # the reader may also fail outright (a line with too many fields, bad UTF-8)
            if _columns_ok(s, on, lab):
                built[si] = _build(p, s, si, on, keys, lab, scale, out_of_scale, refusal_flag, refusal_value,
                                   refusals, by_meta[si])
                ok = _vouched(s, built[si][1])
            else:
                n, n_chk = ex.rows(f"SELECT count(*), sum(CASE WHEN {s.check} THEN 1 ELSE 0 END) FROM {s.view}")[0]
                ok = _vouched(s, {"n": int(n or 0), "check": int(n_chk or 0)})
        except InputError:
            raise
        except Exception as exc:
            if getattr(ex, "interrupted", lambda e: False)(exc):  # a signal: stop, never read again
                raise
            ok = False
        if not ok:
            if built[si] is not None:
                ex.drop(built[si][0])
            built[si] = None
            sides[si] = s.fallback()
    if refusal_flag is not None and not any(refusal_flag in s.columns for s in sides):
        raise InputError(f"no refusal flag column {refusal_flag!r} on either side",
                         source=f"{sides[0].name} / {sides[1].name}", fix="check refusal_flag=")
    for s in sides:
        _check_columns(s, on, None)
    nowhere = [c for c in by if c not in on and c not in by_side]
    if nowhere:
        raise InputError(f"by= names a column neither side has: {nowhere[0]!r}",
                         source=f"{sides[0].name} / {sides[1].name}",
                         expected=f"key columns {', '.join(on)} or columns of either side",
                         fix="pass by= with existing columns (by=() for one pooled table)")
    for si, (s, lab) in enumerate(zip(sides, labels)):
        sources[names[si]] = s.name
        if si == 0:
            _check_columns(s, on, lab)
        if built[si] is None and _columns_ok(s, on, lab):
            built[si] = _build(p, s, si, on, keys, lab, scale, out_of_scale, refusal_flag, refusal_value,
                               refusals, by_meta[si])
    # every row has its number now: the engine may reorder them (unless a view numbers them as it reads)
    _order_matters(ex, not _numbered(sides, built))
    # the reference side's checks (errors in the pandas path's order: labels, out of scale, conflicts),
    # then the candidate's; the duplicates of both sides are resolved by one group-by over both (over
    # the reference alone when the candidate lacks a column: its error comes after the reference's)
    _side(p, sides[0], 0, names[0], lab_=labels[0], scale=scale, out_of_scale=out_of_scale, refusals=refusals,
          counts=counts, notes=notes, oos_rows=oos_rows, n_input=n_input, built=built[0])
    # -- the outer join is the group-by's: counted per group and label pair ------------------------------
    fill = None if isinstance(unjudged, str) else _double(unjudged)
    checked = []

    def check_candidate():  # the candidate's checks come after the reference's duplicates
        if checked:
            return
        checked.append(True)
        _check_columns(sides[1], on, labels[1])
        _side(p, sides[1], 1, names[1], lab_=labels[1], scale=scale, out_of_scale=out_of_scale, refusals=refusals,
              counts=counts, notes=notes, oos_rows=oos_rows, n_input=n_input, built=built[1])

    if built[1] is not None and any(np.isinf(v) for v in built[1][1]["labels"]):
        check_candidate()  # an infinite label (an error, or out of scale) before the pairing, which needs finite ones
    agg = None
    if not rows:
        # the common case first: the key group-by streamed straight into the counts per group and label
        # pair (see _fused). Conflicting labels (their examples, the policies) take the exact path
        # below, which holds the key table.
        fused = merged[1] if merged is not None else \
            _fused(p, built, keys, [keys[on.index(c)] for c in by if c in on], by_meta, sel, grouped)
        if fused is not None and not (fused["_c0"].astype(bool).any() or fused["_c1"].astype(bool).any()):
            m_, n_keys = fused["_m"].to_numpy(), fused["n"].astype(np.int64)

            def identical(si, absent):  # identical repeats: the side's rows left less its keys
                ident = _left(built[si]) - int(n_keys[m_ != absent].sum()) if built[si] is not None else 0
                if ident:
                    counts[(names[si], "duplicate_identical")] = ident

            identical(0, "right")
            check_candidate()
            identical(1, "left")
            agg = fused[gcols + ["reference", "candidate", "_m", "n"]].copy()
    if agg is None:
        # the exact path reads each side several times: views become tables first (read once more)
        for si, b in enumerate(built):
            if b is not None and not b[1]["table"]:
                b[1]["table"] = True
                built[si] = (p.table(f"s{si}_t", f"SELECT * FROM {b[0]}"), b[1])
        _order_matters(ex, not _numbered(sides, built))
        g = _group(p, built, keys, by_meta, duplicates)
        adjust = [_dups(p, g, built[0][0], 0, names[0], keys, duplicates, counts, notes, conflict_rows)]
        check_candidate()
        adjust.append(_dups(p, g, built[1][0], 1, names[1], keys, duplicates, counts, notes, conflict_rows))
        k = _final(p, g, adjust, keys, by_meta)
        agg = ex.frame(f"SELECT {grouped}, count(*) AS n FROM (SELECT {sel} FROM {k}) t GROUP BY {grouped}")
    agg["n"] = agg["n"].astype(np.int64)
    m = agg["_m"].to_numpy()
    n_both = int(agg.loc[m == "both", "n"].sum())
    n_left = int(agg.loc[m == "left", "n"].sum())
    n_right = int(agg.loc[m == "right", "n"].sum())
    left_fate = {"drop": "unmatched", "keep": "unjudged"}.get(unjudged, "unjudged_filled") \
        if isinstance(unjudged, str) else "unjudged_filled"
    for side, fate, n in ((names[0], "matched", n_both), (names[1], "matched", n_both),
                          (names[0], left_fate, n_left), (names[1], "unmatched", n_right)):
        if n:
            counts[(side, fate)] = counts.get((side, fate), 0) + n

    pairs = agg.loc[m == "both"].copy()
    if fill is not None:
        left = agg.loc[m == "left"].copy()
        left["candidate"] = float(unjudged)
        pairs = pd.concat([pairs, left], ignore_index=True)
    pairs["reference"] = pairs["reference"].astype(float)
    pairs["candidate"] = pairs["candidate"].astype(float)
    cells = _cells(pairs.rename(columns=dict(zip(gcols, by))), by, weights="n")
    unj = None
    if unjudged == "keep":
        left = agg.loc[m == "left"].copy()
        left["reference"] = left["reference"].astype(float)
        # the unjudged rows hold the keys and the reference label: their counts are by the key columns
        by_k = [c for c in by if c in on]
        unj = _cells(left.rename(columns=dict(zip(gcols, by))), by_k, labels=("reference",), weights="n")

    if scale is None:
        if len(pairs):
            scale = infer_from_pairs(pairs["reference"].to_numpy(), pairs["candidate"].to_numpy(), names=names,
                                     counts=pairs["n"].to_numpy())
        else:
            scale = Scale((0, 1))
    report = AlignmentReport(
        names=names, sources=sources, n_input=n_input, counts=counts, notes=notes,
        out_of_scale=pd.DataFrame(oos_rows, columns=["side", "value", "count", "first_line", "policy"]),
        conflicts=pd.DataFrame(conflict_rows, columns=["side", "key", "labels", "lines"]),
        n_pairs=n_both, engine=ex.dialect.name,
        read={names[si]: list(s.files) for si, s in enumerate(sides) if len(s.files) > 1})
    row_frame = unj_rows = None
    if rows:
        _order_matters(ex, True)
        row_frame, unj_rows = _rows(p, sides, k, on, keys, labels, names, fill, unjudged)
    return AlignmentCounts(report=report, on=on, by=by, cells=cells, scale=scale, names=names,
                           rows=row_frame, unjudged=unj_rows if (rows and unjudged == "keep") else unj)


#: The label-code bit mask of a key in the streamed group-bys: side 0's codes in bits 0-30, side 1's
#: in bits 31-61 (one BIGINT holds both).
_SIDE_BITS = 31

#: Hash partitions of the keys the rows carry for a group-by in passes (the passes take them modulo).
_PARTS = 720720


def _passes_ok(ex) -> bool:
    """Whether the engine groups large inputs in passes (it sets ``group_rows`` and can append)."""
    return bool(getattr(ex, "group_rows", None)) and hasattr(ex, "append")


def _left(b) -> int:
    """The rows of a built side left after the row-by-row fates (those the key group-by reads)."""
    return b[1]["n"] - sum(b[1]["fates"].values())


def _labels_left(built) -> list:
    """The distinct labels of the rows left on both sides, sorted."""
    return sorted(set().union(*(b[1]["labels"] for b in built if b is not None)))


def _over_group_rows(p: _Plan, built) -> int:
    """How many times the rows left exceed the engine's ``group_rows`` (rounded up; 0: the engine has
    no such bound)."""
    per_pass = getattr(p.ex, "group_rows", None)
    return -(-sum(_left(b) for b in built if b is not None) // int(per_pass)) if per_pass else 0


def _numbered(sides, built) -> bool:
    """Whether every side's rows carry their numbers (a table, or a view of stored row numbers)."""
    return all(s.stable_rid or (b is not None and b[1]["table"]) for s, b in zip(sides, built))


def _order_matters(ex, yes: bool):
    """Tell an engine that can relax row order whether it matters (see ``_Duck.order_matters``)."""
    if hasattr(ex, "order_matters"):
        ex.order_matters(yes)


def _columns_ok(s: SideInput, on, lab) -> bool:
    return all(c in s.columns for c in on) and lab in s.columns


def _check_columns(s: SideInput, on, lab):
    cols = s.columns
    for c in on:
        if c not in cols:
            raise InputError(f"no key column {c!r}", source=s.name, line=1,
                             expected=f"key columns {', '.join(on)}; found {', '.join(map(str, cols))}",
                             fix="rename the column or pass on=")
    if lab is not None and lab not in cols:
        raise InputError(f"no label column {lab!r}", source=s.name, line=1,
                         expected=f"one of {', '.join(map(str, cols))}", fix="name the label column with label=")


def _integer_keys(p: _Plan, sides, on, rows: bool) -> frozenset:
    """The key columns both sides hold as integers, kept as integers (the others become text).

    Two integers are equal exactly when their text is (the text of an integer is canonical), so the
    pairs and every count are those of text keys; a fixed-width group key is hashed and compared
    without making 2 x 10⁸ strings, and needs no fingerprint to stay within memory (see
    :func:`_fused`). Not when rows are brought back (their keys are text, as the pandas path gives
    them), and not for a side a fast reader loaded (it may hand the file to the pandas reader, whose
    keys are text).
    """
    if rows or any(s.check is not None for s in sides):
        return frozenset()
    out = set()
    for c in on:
        if not all(s.columns.get(c) == "int" for s in sides):
            continue
        # only types whose every value is a BIGINT (an unsigned 64-bit or a 128-bit id is not: text)
        types = [p.ex.rows(f"SELECT typeof({p.q(c)}) FROM {s.view} LIMIT 1") for s in sides]
        if all(t and str(t[0][0]).upper() in p.d.bigint_types for t in types):
            out.add(c)
    return frozenset(out)


def _build(p: _Plan, s: SideInput, si, on, keys, lab, scale, out_of_scale, refusal_flag, refusal_value, refusals,
           by_meta, count: bool = True, view: str | None = None):
    """A side's rows with their keys, labels and first fates, as a table (``s.materialize``) or a view,
    and its counts (one pass over the input); returns (table or view, stats) with stats ``n, bad, ref,
    oos, check`` (rows the fast reader did not vouch for). ``view``: read this view of the side
    instead of ``s.view`` (its ``counted`` view, in a pass that needs no row numbers)."""
    ex, q = p.ex, p.q
    cols = s.columns
    # integral float key columns become integer text, as in the pandas path
    integral = {}
    for c in on:
        if cols[c] == "float":
            qc = q(c)
            bad = ex.rows(f"SELECT count(*) FROM {s.view} WHERE {qc} IS NOT NULL AND NOT isnan({qc}) "
                          f"AND ({qc} <> floor({qc}) OR {p.d.isinf(qc)})")[0][0]
            integral[c] = int(bad) == 0
    # text keys of a view: the counting pass also counts the values trimming changes; when there are
    # none, the view is made again without the trimming (the key group-by then reads the ids as they are)
    # a text label column is parsed by regular expressions: then the rows are held as a table at once
    # (reading the view again would parse them again)
    as_table = s.materialize or cols[lab] not in ("int", "float", "bool")
    trim_check = [i for i, c in enumerate(on) if cols[c] == "str"] if not as_table and count else []

    def select(kinds):
        key_sel = ", ".join(f"{p.key_expr(c, kinds[c], integral.get(c, False))} AS {k}" for c, k in zip(on, keys))
        raw_sel = "".join(f", {q(on[i])} AS _raw{i}" for i in trim_check)
        lab_num, lab_bad = p.label_exprs(lab, kinds[lab])
        flag = p.flag_expr(refusal_flag, kinds[refusal_flag]) if refusal_flag is not None and refusal_flag in kinds \
            else "FALSE"
        meta_sel = "".join(f", {q(c)} AS {q('_m_' + c)}" for c in by_meta)
        chk = f"({s.check})" if s.check else "FALSE"
        inner = (f"SELECT _rid, _line, _source, {key_sel}{raw_sel}, {lab_num} AS _lab, {lab_bad} AS _bad, "
                 f"{flag} AS _flg, {chk} AS _chk{meta_sel} FROM {view or s.view}")
        mk = " OR ".join(p.missing_key(c, k) for c, k in zip(on, keys))
        ref_cond = "_flg" + (f" OR _lab = {_double(refusal_value)}" if refusal_value is not None else "")
        relabel = not isinstance(refusals, str)
        lab2 = f"CASE WHEN _ref THEN {_double(refusals)} ELSE _lab END" if relabel else "_lab"
        pre = ("CASE WHEN _mk THEN 'missing_key'"
               + (" WHEN _ref THEN 'refusal_dropped'" if refusals == "drop" else "")
               + " WHEN _lab2 IS NULL THEN 'missing_label' END")
        if scale is not None:
            levels = ", ".join(_double(v) for v in scale.levels)
            oos = f"(_pre IS NULL AND _lab2 NOT IN ({levels}))"
            lo, hi = _double(min(scale.levels)), _double(max(scale.levels))
        else:
            oos = "FALSE"
        fate_oos = {"drop": "'out_of_scale_dropped'", "missing": "'out_of_scale_missing'"}.get(out_of_scale, "NULL")
        lab3 = f"CASE WHEN _oos THEN least(greatest(_lab2, {lo}), {hi}) ELSE _lab2 END" \
            if (scale is not None and out_of_scale == "clip") else "_lab2"
        meta_cols = "".join(f", {q('_m_' + c)}" for c in by_meta)
        raw_cols = "".join(f", _raw{i}" for i in trim_check)
        step1 = f"SELECT *, ({mk}) AS _mk FROM ({inner}) t0"
        step2 = f"SELECT *, (NOT _mk AND ({ref_cond})) AS _ref FROM ({step1}) t1"
        step3 = f"SELECT *, {lab2} AS _lab2 FROM ({step2}) t2"
        step4 = f"SELECT *, {pre} AS _pre FROM ({step3}) t3"
        step5 = f"SELECT *, {oos} AS _oos FROM ({step4}) t4"
        return (f"SELECT _rid, _line, _source, {', '.join(keys)}, _bad, _ref, _oos, _chk, _lab2, {lab3} AS _lab3, "
                f"CASE WHEN _oos THEN {fate_oos} ELSE _pre END AS _fate{meta_cols}{raw_cols} FROM ({step5}) t5")

    # held as a table where the engine caches (Spark) or as a view that each query reads again (DuckDB,
    # which reads the common case's two passes faster than it writes the rows)
    b = p.table(f"s{si}_b", select(cols)) if as_table else p.view(f"s{si}_b", select(cols))
    if not count:  # the counts come from the one-pass group-by (_merged)
        return b, {"table": as_table}
    # one pass: the fates decided row by row, the distinct labels of the rows left, and the counts
    stats = {"n": 0, "bad": 0, "ref": 0, "oos": 0, "check": 0, "fates": {}, "labels": []}
    trims = "".join(f", sum(CASE WHEN _k{i} IS DISTINCT FROM _raw{i} THEN 1 ELSE 0 END)" for i in trim_check)
    n_trimmed = 0
    # (no row numbers here: a view that numbers rows as it reads them then reads in parallel)
    for fate, v, c, nbad, n_ref, n_oos, n_chk, *trimmed in ex.rows(
            f"SELECT _fate, CASE WHEN _fate IS NULL THEN _lab3 END AS _v, count(*), "
            f"sum(CASE WHEN _bad THEN 1 ELSE 0 END), sum(CASE WHEN _ref THEN 1 ELSE 0 END), "
            f"sum(CASE WHEN _oos THEN 1 ELSE 0 END), sum(CASE WHEN _chk THEN 1 ELSE 0 END){trims} "
            f"FROM {b} GROUP BY _fate, _v"):
        for k, x in (("n", c), ("bad", nbad), ("ref", n_ref), ("oos", n_oos), ("check", n_chk)):
            stats[k] += int(x or 0)
        n_trimmed += sum(int(x or 0) for x in trimmed)
        if fate is not None:
            stats["fates"][fate] = stats["fates"].get(fate, 0) + int(c)
        elif v is not None:
            stats["labels"].append(float(v))
    stats["labels"].sort()
    stats["table"] = as_table
    if trim_check and not n_trimmed:
        clean = dict(cols)
        for i in trim_check:
            clean[on[i]] = "clean"
        trim_check = []
        b = p.view(f"s{si}_b", select(clean))
    if n_trimmed:  # a view that trims keys costs more to read again than to hold: a table
        stats["table"] = True
        trim_check = []  # (without the untrimmed keys)
        b = p.table(f"s{si}_t", select(cols))
    return b, stats


def _vouched(s: SideInput, stats) -> bool:
    """Whether a fast reader's rows hold (every row checked, and as many rows as expected)."""
    if s.check is None:
        return True
    return stats["check"] == 0 and stats["n"] > 0 and (s.expect_rows is None or stats["n"] == s.expect_rows)


def _side(p: _Plan, s: SideInput, si, side, *, lab_, scale, out_of_scale, refusals, counts, notes, oos_rows,
          n_input, built):
    """A side's counts and notes before the duplicates, and its errors (labels, out of scale)."""
    ex, q = p.ex, p.q
    lab = lab_
    b, stats = built
    n, nbad, n_ref, n_oos = stats["n"], stats["bad"], stats["ref"], stats["oos"]
    n_input[side] = n
    if n == 0:
        warnings.warn(f"{s.name}: the {side} side has no rows, so there are no pairs (check that the "
                      f"{side} data was read or filtered correctly)", MetaevalWarning, stacklevel=5)

    # -- a label that is not a number -----------------------------------------------------------
    if nbad:
        _order_matters(ex, True)  # the input view is read again: its row numbers need the order
        rid, line, src = ex.rows(f"SELECT _rid, _line, _source FROM {b} WHERE _bad ORDER BY _rid LIMIT 1")[0]
        value = ex.rows(f"SELECT {q(lab)} FROM {s.view} WHERE _rid = {int(rid)}")[0][0]
        raise InputError(f"{lab} is not a number: {value!r} ({nbad} such row(s))", source=src,
                         line=int(line), expected=f"a numeric label in column {lab!r} (or empty for missing)",
                         fix="map text labels to numbers first, or pass numeric=False")
    # -- refusals ---------------------------------------------------------------------------------
    if n_ref:
        if refusals == "keep":
            notes[(side, "refusals kept as recorded")] = n_ref
        elif refusals != "drop":
            notes[(side, f"refusals relabelled to {refusals}")] = n_ref
    # -- out of scale -----------------------------------------------------------------------------
    if n_oos:
        vals = ex.rows(f"SELECT _lab2, count(*), min_by(_line, _rid) FROM {b} WHERE _oos GROUP BY _lab2 "
                       f"ORDER BY _lab2")
        for v, c, fl in vals:
            oos_rows.append((side, _num(v), int(c), int(fl), out_of_scale))
        if out_of_scale == "error":
            v0, line, src = ex.rows(f"SELECT _lab2, _line, _source FROM {b} WHERE _oos ORDER BY _rid LIMIT 1")[0]
            listing = ", ".join(f"{_num(v)} (x{int(c)})" for v, c, _ in vals)
            raise InputError(f"label(s) outside the scale {scale.levels}: {listing}", source=src,
                             line=int(line), text=f"{lab}={_num(v0)}", expected=f"labels in {scale.levels}",
                             fix="pass out_of_scale='clip', 'drop' or 'missing' to choose a policy")
        if out_of_scale == "clip":
            notes[(side, "out-of-scale labels clipped")] = n_oos
    if scale is None:
        _check_finite(p, lab, built)
    # -- the fates decided row by row --------------------------------------------------------------
    for fate, c in stats["fates"].items():
        counts[(side, fate)] = c


def _check_finite(p: _Plan, lab, built):
    """An infinite label without a scale is an error naming its file and line (as in the pandas path);
    with a scale it is out of scale."""
    b, stats = built
    n_inf = sum(1 for v in stats["labels"] if np.isinf(v))
    if not n_inf:
        return
    _order_matters(p.ex, True)
    v0, line, src = p.ex.rows(f"SELECT _lab3, _line, _source FROM {b} WHERE _fate IS NULL AND {p.d.isinf('_lab3')} "
                              f"ORDER BY _rid LIMIT 1")[0]
    raise InputError(f"{lab} is infinite: {float(v0)!r}", source=src, line=int(line), text=f"{lab}={float(v0)!r}",
                     expected=f"finite numeric labels in column {lab!r}",
                     fix="correct the value (or leave it empty for a missing label), or declare scale= with "
                         "out_of_scale='drop', 'missing' or 'clip'")


def _fingerprint(p: _Plan, keys) -> tuple[str, str]:
    """The two 64-bit hashes of a key's 128-bit fingerprint: of the key columns, and of their text
    joined in reverse order (see :func:`_fused`)."""
    rev = f"concat_ws(chr(31), {', '.join(reversed(keys))})" if len(keys) > 1 else f"concat({keys[0]}, chr(31))"
    return p.d.hash64(keys), p.d.hash64([rev])


#: The one-pass group-by (:func:`_merged`) groups text keys on their fingerprint above this share of
#: the engine's ``group_rows`` (rows of both sides): 2 x 10M qrels lines held as text spilled at the
#: default 1.5 GB limit (7-14 s, 5.6-6.0 s at 4 GB) where their 16-byte fingerprints did not.
MERGED_TEXT_SHARE = 0.25


def _fused(p: _Plan, built, keys, hashed, by_meta, sel, grouped) -> pd.DataFrame | None:
    """The key group-by of the common case streamed into the counts per group and label pair.

    Each key's rows of both sides (the rows left) are grouped by the key. The only aggregate is one
    bit mask of the label codes each side holds (side 0 in bits 0-30, side 1 in bits 31-61): a side
    holds the key when its bits are not all zero, its label is the code of its one bit, and two bits or
    more are conflicting labels (then the caller takes the exact path).

    Above the engine's ``group_rows`` (DuckDB: :data:`~.duckdb_engine.GROUP_ROWS` rows of both sides
    together at the default memory limit, in proportion to the limit), where a group-by on text keys
    runs out of memory, the group key is instead a 128-bit fingerprint of the key (two 64-bit hashes:
    of the key columns, and of their text joined in reverse order): fixed-width group keys, spilled
    well beyond memory. The key columns the cells are grouped by (``hashed``) are then carried as an
    aggregate of each group (they are a function of the key), never as a group column: a text column
    in the group key whose value changes from row to row (keys in document order, topics interleaved)
    made DuckDB's group-by run out of memory at any limit the input exceeded by about ten times,
    where the same text constant over long runs (rows sorted by topic) or fixed-width keys did not
    (measured on 2 x 10M rows at a 150 MB limit and 2 x 100M at 1.5 GB). Two
    distinct keys merge only when both hashes collide: for n keys, a chance of about n² / 2¹²⁹
    (below 10⁻²² at 10⁸ keys). Keys that are all integers (:func:`_integer_keys`) are fixed-width
    already: they stay the group key, exact.

    When the engine runs out of memory all the same (an engine that says so: ``ex.out_of_memory``),
    the group-by runs again in passes over hash partitions of the key (4, then 16, then 64 passes; each
    pass reads the inputs again and holds a quarter of the groups or less); past the last, the error
    goes to the caller (DuckDB: an InputError naming the memory limit to set).

    Returns the counts (``sel``'s columns grouped by ``grouped``, ``n`` and the conflict flags ``_c0``,
    ``_c1``), or None when the labels are not few (over 31 distinct) or the cells need metadata columns.
    """
    labels_all = _labels_left(built)
    if not 0 < len(labels_all) <= _SIDE_BITS or any(by_meta):
        return None
    code = "CASE _lab3 " + " ".join(f"WHEN {_double(v)} THEN {i}" for i, v in enumerate(labels_all)) + " END"
    part = p.d.hash64(keys)
    if _over_group_rows(p, built) > 1 and len(p.int_keys) < len(keys):  # integer keys: fixed width already
        h, h2 = _fingerprint(p, keys)
        gcols = f"{', '.join(hashed + [''])}{h} AS _h, {h2} AS _h2"
        gkeys = "_h, _h2"
        carried = "".join(f", any_value({k}) AS {k}" for k in hashed)  # a function of the key: not grouped on
        part = "_h"
    else:
        gcols = gkeys = ", ".join(keys)
        carried = ""
    outs = ", ".join(hashed + [gkeys]) if carried else gkeys
    low, high = f"(_mask % {2 ** _SIDE_BITS})", p.d.intdiv("_mask", str(2 ** _SIDE_BITS))

    def label(m):
        return "CASE " + " ".join(f"WHEN {m} = {2 ** i} THEN {_double(v)}" for i, v in enumerate(labels_all)) + " END"

    def query(passes, i):
        where = "_fate IS NULL" + (f" AND {part if part == '_h' else p.d.hash64(keys)} % {passes} = {i}"
                                   if passes > 1 else "")
        parts = [f"SELECT * FROM (SELECT {gcols}, CAST(pow(2, {code} + {_SIDE_BITS * si}) AS BIGINT) AS _bit, _fate "
                 f"FROM {b[0]}) s{si} WHERE {where}" for si, b in enumerate(built) if b is not None]
        inner = (f"SELECT {outs}, {low} AS _n0, {high} AS _n1, {label(low)} AS _lab0, {label(high)} AS _lab1, "
                 f"(({low}) & ({low} - 1)) <> 0 AS _conf0, (({high}) & ({high} - 1)) <> 0 AS _conf1 "
                 f"FROM (SELECT {gkeys}{carried}, bit_or(_bit) AS _mask FROM ({' UNION ALL '.join(parts)}) u "
                 f"GROUP BY {gkeys}) g0")
        return p.ex.frame(f"SELECT {grouped}, count(*) AS n, max(_conf0) AS _c0, max(_conf1) AS _c1 "
                          f"FROM (SELECT {sel}, _conf0, _conf1 FROM ({inner}) g) t GROUP BY {grouped}")

    return _in_passes(p, query, [c.strip() for c in grouped.split(",")])


#: Labels the one-pass group-by codes without knowing them first (no declared scale): the integers
#: 0-29; any other label takes code 30, and the two-pass path (:func:`_fused`) runs instead.
_INT_CODES = 30


def _merged(p: _Plan, sides, on, keys, labels, scale, out_of_scale, refusals, hashed, grouped):
    """The common case in one pass over each side: :func:`_fused`'s key group-by with the fates counted
    inside it, instead of a counting pass over each side first (which cost as much again as the
    group-by).

    The label codes need no first pass: the declared scale's levels (out-of-scale rows leave the
    group-by with a fate), or without a scale the integers 0-29 (another label, a conflict, a row a
    fast reader cannot vouch for or an input of unknown size: None, and the caller takes the two-pass
    path). Rows with a fate decided row by row do not join the key groups: each goes to a group of
    its own per side, fate and flag (``_x``, NULL for the rows left), so that one group-by counts
    both. Each row weighs 1 on side 0 and W on side 1 (``_w``): the sum per group holds both sides'
    rows. W = 2²⁶ as a DOUBLE when each side has under 2²⁵ rows (every sum stays an integer below 2⁵³,
    so exact; DuckDB sums doubles faster than it sums BIGINTs into 128 bits), else 2³² as a BIGINT
    (inputs under 2³¹ rows a side).

    Returns (built, counts): the sides as :func:`_build` holds them, with the statistics its counting
    pass gives, and :func:`_fused`'s counts; or None.
    """
    built = [_build(p, s, si, on, keys, lab, scale, out_of_scale, None, None, refusals, [], count=False,
                    view=s.counted) for si, (s, lab) in enumerate(zip(sides, labels))]
    if scale is not None:
        levels = [float(v) for v in scale.levels]
        if len(levels) > _INT_CODES:
            return None

        def bits(si):  # each level's bit as a constant (no arithmetic per row)
            return ("CASE _lab3 " + " ".join(f"WHEN {_double(v)} THEN CAST({2 ** (i + _SIDE_BITS * si)} AS BIGINT)"
                                             for i, v in enumerate(levels)) + " END")
    else:
        levels = [float(i) for i in range(_INT_CODES)]
        code = (f"CASE WHEN _lab3 >= 0 AND _lab3 < {_INT_CODES} AND _lab3 = floor(_lab3) "
                f"THEN CAST(_lab3 AS INTEGER) ELSE {_INT_CODES} END")

        def bits(si):
            if p.d.name == "duckdb":
                return f"(CAST(1 AS BIGINT) << ({code} + {_SIDE_BITS * si}))"
            return f"CAST(pow(2, {code} + {_SIDE_BITS * si}) AS BIGINT)"
    # (up to group_rows: the group key is the key text, or above MERGED_TEXT_SHARE of it the key's
    # fingerprint; beyond, the caller takes the two-pass path).
    # A row with a fate is a group of its own per side, fate and flag (_x). With several key columns it
    # leaves the first ones NULL (a row left has every key, none empty) and holds _x in the last: the
    # group key stays the key columns (one column fewer to hash and compare than keys + _x).
    alive = "(_fate IS NULL AND NOT _oos AND NOT _chk)"
    gsel = ", ".join([f"{k} AS _g{i}" for i, k in enumerate(hashed)] + ["_mask", "_x"])
    gby = ", ".join([f"_g{i}" for i in range(len(hashed))] + ["_mask", "_x"])
    per_pass = getattr(p.ex, "group_rows", None)
    fp = (len(p.int_keys) < len(keys) and per_pass is not None
          and sum(s.rows for s in sides) > MERGED_TEXT_SHARE * per_pass)  # text keys, many: their fingerprint
    folded = len(keys) > 1 and not p.int_keys and not fp  # (a fate's text goes into a text key column)
    small = all(s.rows < 2 ** 25 for s in sides)
    w1, wtype, wsum = (2 ** 26, "DOUBLE", "sum(_w)") if small else (2 ** 32, "BIGINT", "CAST(sum(_w) AS BIGINT)")

    def flag(c):
        return f"CASE WHEN {c} THEN '1' ELSE '0' END"

    def side(si, b, where):
        x = (f"concat('{si}|', coalesce(_fate, ''), '|', {flag('_bad')}, {flag('_oos')}, {flag('_chk')})")
        if fp:  # the fingerprint (NULL for a row with a fate) and the cells' key columns as values
            h, h2 = _fingerprint(p, keys)
            kcols = (f"CASE WHEN _a THEN {h} END AS _h, CASE WHEN _a THEN {h2} END AS _h2, "
                     f"CASE WHEN _a THEN NULL ELSE {x} END AS _x" + "".join(f", {k}" for k in hashed))
        elif folded:
            kcols = ", ".join([f"CASE WHEN _a THEN {k} END AS {k}" for k in keys[:-1]]
                              + [f"CASE WHEN _a THEN {keys[-1]} ELSE {x} END AS {keys[-1]}"])
        else:
            kcols = f"{', '.join(keys)}, CASE WHEN _a THEN NULL ELSE {x} END AS _x"
        return (f"SELECT {kcols}, CASE WHEN _a THEN {bits(si)} ELSE CAST(0 AS BIGINT) END AS _bit, "
                f"CAST({w1 if si else 1} AS {wtype}) AS _w FROM (SELECT *, {alive} AS _a FROM {b[0]}) s{si}"
                f"{where}")

    def query(passes, i):
        where = f" WHERE {p.d.hash64(keys)} % {passes} = {i}" if passes > 1 else ""
        parts = [side(si, b, where) for si, b in enumerate(built)]
        if fp:
            gkeys = "_h, _h2, _x"
            cols = gkeys + "".join(f", any_value({k}) AS {k}" for k in hashed)  # a function of the key
        else:
            gkeys = ", ".join(keys if folded else keys + ["_x"])
            cols = ", ".join(keys) + ", " + (f"CASE WHEN {keys[0]} IS NULL THEN {keys[-1]} END AS _x" if folded
                                             else "_x")
        # the keys' label masks counted per group: the few masks are decoded here, not per key in SQL
        inner = (f"SELECT {cols}, bit_or(_bit) AS _mask, {wsum} AS _cnt "
                 f"FROM ({' UNION ALL '.join(parts)}) u GROUP BY {gkeys}")
        return p.ex.frame(f"SELECT {gsel}, count(*) AS n, CAST(sum(_cnt) AS BIGINT) AS _rows "
                          f"FROM ({inner}) g GROUP BY {gby}")

    # rows that carry no numbers (or stored ones) may be read in any order; the order is kept again
    # after (the engine's state before: a view that numbers rows as it reads them needs it)
    relax = all(s.stable_rid or s.counted for s in sides)
    if relax:
        _order_matters(p.ex, False)
    try:
        out = _in_passes(p, query, [c.strip() for c in gby.split(",")])
    finally:
        if relax:
            _order_matters(p.ex, True)
    # what follows (an error naming a line, the exact path) reads the sides with their row numbers
    built = [(_build(p, s, si, on, keys, lab, scale, out_of_scale, None, None, refusals, [], count=False)[0],
              b[1]) if s.counted else b for si, (s, lab, b) in enumerate(zip(sides, labels, built))]
    x = out["_x"]
    fated, left = out[x.notna()], out[x.isna()].drop(columns="_x").reset_index(drop=True)
    mask = left["_mask"].to_numpy(dtype=np.int64)
    lo, hi = mask & (2 ** _SIDE_BITS - 1), mask >> _SIDE_BITS
    if ((lo & (lo - 1)) != 0).any() or ((hi & (hi - 1)) != 0).any():
        return None  # conflicting labels: the exact path
    table = np.array(levels + [np.nan])

    def decode(m):  # one bit: its level (no bit: NaN; the code past the levels: NaN too)
        code = np.where(m > 0, np.log2(np.maximum(m, 1)).round().astype(np.int64), len(levels))
        return table[np.minimum(code, len(levels))]

    left["reference"], left["candidate"] = decode(lo), decode(hi)
    left["_m"] = np.where(lo == 0, "right", np.where(hi == 0, "left", "both"))

    def side_rows(packed, si):  # a side's rows out of the weighted sums (side 0 weighs 1, side 1 w1)
        return packed // w1 if si else packed % w1

    packed = left["_rows"].to_numpy(dtype=np.int64)
    m_ = left["_m"].to_numpy()
    for si, b in enumerate(built):
        st = b[1]
        st.update(n=int(side_rows(packed, si).sum()), bad=0, ref=0, oos=0, check=0, fates={})
        present = m_ != ("right" if si == 0 else "left")
        labs = left[("reference", "candidate")[si]].to_numpy()[present]
        if np.isnan(labs).any():  # a label without a code: the two-pass path
            return None
        st["labels"] = [float(v) for v in np.unique(labs)]
    for xs, r in zip(fated["_x"], fated["_rows"].to_numpy(dtype=np.int64)):
        si, fate, flags = xs.split("|")
        si = int(si)
        c = int(side_rows(r, si))
        st = built[si][1]
        st["n"] += c
        if fate:
            st["fates"][fate] = st["fates"].get(fate, 0) + c
        st["bad"] += c * (flags[0] == "1")
        st["oos"] += c * (flags[1] == "1")
        st["check"] += c * (flags[2] == "1")
    if not all(_vouched(s, b[1]) for s, b in zip(sides, built)):
        return None  # the two-pass path hands the file to the pandas reader
    grouped_cols = [c.strip() for c in grouped.split(",")]
    left["_c0"] = left["_c1"] = False
    agg = (left.groupby(grouped_cols, dropna=False, sort=False)
           .agg(n=("n", "sum"), _c0=("_c0", "max"), _c1=("_c1", "max")).reset_index())
    return built, agg


#: The passes a group-by that ran out of memory is tried again in (see :func:`_fused`).
RETRY_PASSES = (4, 16, 64)


def _in_passes(p: _Plan, query, grouped_cols, first: int = 1) -> pd.DataFrame:
    """``query(passes, i)`` for i < passes, in one pass (``first``) and, when the engine runs out of
    memory, again in more (:data:`RETRY_PASSES`); the passes' counts summed per group."""
    oom = getattr(p.ex, "out_of_memory", ())
    tries = [first] + [n for n in RETRY_PASSES if n > first]
    for t, passes in enumerate(tries):
        try:
            frames = [query(passes, i) for i in range(passes)]
        except oom:
            if t + 1 == len(tries):
                raise
            continue
        if passes == 1:
            return frames[0]
        out = pd.concat(frames, ignore_index=True)
        aggs = {c: (c, how) for c, how in (("n", "sum"), ("_c0", "max"), ("_c1", "max"), ("_rows", "sum"))
                if c in out.columns}
        return out.groupby(grouped_cols, dropna=False, sort=False).agg(**aggs).reset_index()
    raise AssertionError("unreachable")  # pragma: no cover


def _group(p: _Plan, built, keys, by_meta, duplicates) -> str:
    """One row per key present (alive) on either side, with each side's count, first row and label under
    the policy, and whether its labels conflict: both sides' duplicates and their outer join in one
    group-by (suffix 0: reference, 1: candidate). Returns the table."""
    q = p.q
    klist = ", ".join(keys)
    last = duplicates == "last"
    present = [b for b in built if b is not None]
    labels_all = _labels_left(built)
    max_rid = max(int(p.ex.rows(f"SELECT max(_rid) FROM {b[0]}")[0][0] or 0) for b in present)
    metas = [(si, c) for si in (0, 1) for c in by_meta[si]]
    parts = []
    for si in (0, 1):
        if built[si] is None:
            continue
        mcols = "".join(f", {q('_m_' + c) if sj == si else 'NULL'} AS {q('_m_' + c)}" for sj, c in metas)
        # an engine that groups in passes (DuckDB) gets each row's hash partition of its keys
        pcol = f", CAST({p.d.hash64(keys)} % {_PARTS} AS INTEGER) AS _p" if _passes_ok(p.ex) else ""
        parts.append(f"SELECT {klist}, {si} AS _s, _rid, _lab3{pcol}{mcols} FROM {built[si][0]} WHERE _fate IS NULL")
    union = " UNION ALL ".join(parts)
    aggs, outer = [], []
    coded = 0 < len(labels_all) <= 62 and int(max_rid) < 2 ** 56
    if coded:
        # the common case: few distinct labels. Each row's label gets a code 0..61, packed below its row
        # number, so that min() gives the first row and its label at once, and a bit mask of the codes
        # tells conflicting keys (two bits or more) from identical repeats: integer aggregates, much
        # faster than min_by/min/max over doubles.
        lo = labels_all[0]
        if all(float(v).is_integer() for v in labels_all) and labels_all[-1] - lo <= 61:
            # integer labels in a span of 62: the code is the label minus the lowest (no lookup)
            code = f"CAST(_lab3 - {_double(lo)} AS BIGINT)"
            bit = f"CAST(pow(2, _lab3 - {_double(lo)}) AS BIGINT)"

            def decode(e):
                return f"(CAST({e} AS DOUBLE) + {_double(lo)})"
        else:
            code = "CASE _lab3 " + " ".join(f"WHEN {_double(v)} THEN {i}" for i, v in enumerate(labels_all)) + " END"
            bit = "CASE _lab3 " + " ".join(f"WHEN {_double(v)} THEN CAST({2 ** i} AS BIGINT)"
                                            for i, v in enumerate(labels_all)) + " END"

            def decode(e):
                return ("CASE " + " ".join(f"WHEN {e} = {i} THEN {_double(v)}" for i, v in enumerate(labels_all))
                        + " END")
        src = f"SELECT *, {code} AS _c, {bit} AS _bit FROM ({union}) u"
    else:
        src = union
    for si in (0, 1):
        on_s = f"CASE WHEN _s = {si} THEN"
        aggs.append(f"count(CASE WHEN _s = {si} THEN 1 END) AS _n{si}")
        if coded:
            aggs += [f"min({on_s} _rid * 64 + _c END) AS _pf{si}", f"bit_or({on_s} _bit END) AS _mask{si}"]
            if last:
                aggs.append(f"max({on_s} _rid * 64 + _c END) AS _pl{si}")
            conf = f"coalesce((_mask{si} & (_mask{si} - 1)) <> 0, FALSE)"
            first_lab, first_rid = decode(f"(_pf{si} % 64)"), p.d.intdiv(f"_pf{si}", "64")
            lab = f"CASE WHEN {conf} THEN {decode(f'(_pl{si} % 64)')} ELSE {first_lab} END" if last else first_lab
            rid = f"CASE WHEN {conf} THEN {p.d.intdiv(f'_pl{si}', '64')} ELSE {first_rid} END" if last else first_rid
        else:
            aggs += [f"min({on_s} _lab3 END) AS _lo{si}", f"max({on_s} _lab3 END) AS _hi{si}",
                     f"min({on_s} _rid END) AS _f{si}", f"min_by(_lab3, _rid) FILTER (WHERE _s = {si}) AS _lf{si}"]
            if last:
                aggs += [f"max({on_s} _rid END) AS _l{si}", f"max_by(_lab3, _rid) FILTER (WHERE _s = {si}) AS _ll{si}"]
            conf = f"coalesce(_lo{si} <> _hi{si}, FALSE)"
            first_rid = f"_f{si}"
            lab = f"CASE WHEN {conf} THEN _ll{si} ELSE _lf{si} END" if last else f"_lf{si}"
            rid = f"CASE WHEN {conf} THEN _l{si} ELSE _f{si} END" if last else f"_f{si}"
        outer += [f"_n{si}", f"{conf} AS _conf{si}", f"{first_rid} AS _first{si}", f"{lab} AS _lab{si}",
                  f"{rid} AS _rid{si}"]
        for c in by_meta[si]:
            m = q("_m_" + c)
            aggs.append(f"min_by({m}, _rid) FILTER (WHERE _s = {si}) AS {q('_mf_' + c)}")
            if last:
                aggs.append(f"max_by({m}, _rid) FILTER (WHERE _s = {si}) AS {q('_ml_' + c)}")
                outer.append(f"CASE WHEN {conf} THEN {q('_ml_' + c)} ELSE {q('_mf_' + c)} END AS {m}")
            else:
                outer.append(f"{q('_mf_' + c)} AS {m}")
    def select(where):
        return (f"SELECT {klist}, {', '.join(outer)} FROM (SELECT {klist}, {', '.join(aggs)} "
                f"FROM ({src}) t{where} GROUP BY {klist}) g0")

    # an engine that can append (DuckDB) groups a large input in passes, each over the keys of one
    # hash partition: a pass's groups fit in memory (one group-by over 200M rows of string keys ran
    # out of memory at a 3 GB limit, spilling or not)
    passes = 1 if not _passes_ok(p.ex) else min(_PARTS, max(1, _over_group_rows(p, built)))
    if passes == 1:
        return p.table("g", select(""))
    part = f"(_p % {passes})"
    name = p.table("g", select(f" WHERE {part} = 0"))
    for i in range(1, passes):
        p.ex.append(name, select(f" WHERE {part} = {i}"))
    return name


def _dups(p: _Plan, g, b, si, side, keys, duplicates, counts, notes, conflict_rows):
    """A side's duplicate counts, conflict examples and error; returns the table of the labels the
    policy gives its conflicting keys (majority, mean), or None."""
    ex = p.ex
    klist = ", ".join(keys)
    ident, conf_rows, conf_keys = ex.rows(
        f"SELECT sum(CASE WHEN _n{si} > 1 AND NOT _conf{si} THEN _n{si} - 1 ELSE 0 END), "
        f"sum(CASE WHEN _conf{si} THEN _n{si} - 1 ELSE 0 END), sum(CASE WHEN _conf{si} THEN 1 ELSE 0 END) "
        f"FROM {g}")[0]
    ident, conf_rows, conf_keys = int(ident or 0), int(conf_rows or 0), int(conf_keys or 0)
    if ident:
        counts[(side, "duplicate_identical")] = ident
    if not conf_keys:
        return None
    counts[(side, "duplicate_conflict")] = conf_rows
    notes[(side, "keys with conflicting labels")] = conf_keys
    jk = " AND ".join(f"b.{k} = e.{k}" for k in keys)
    ex_rows = ex.rows(f"SELECT {', '.join('b.' + k for k in keys)}, b._lab3, b._line, b._source, e._first{si} "
                      f"FROM {b} b JOIN (SELECT {klist}, _first{si} FROM {g} WHERE _conf{si} ORDER BY _first{si} "
                      f"LIMIT 50) e ON {jk} WHERE b._fate IS NULL ORDER BY e._first{si}, b._rid")
    examples: list = []
    for r in ex_rows:
        key = tuple(str(v) for v in r[:len(keys)])  # integer keys as their text (as the pandas path)
        if not examples or examples[-1][0] != key:
            examples.append((key, [], [], r[len(keys) + 2]))
        examples[-1][1].append(_num(r[len(keys)]))
        examples[-1][2].append(int(r[len(keys) + 1]))
    for key, labs, lines, _ in examples:
        conflict_rows.append((side, " ".join(map(str, key)), labs, lines))
    if duplicates == "error":
        key0, labs0, lines0, src0 = examples[0]
        key0 = key0[0] if len(key0) == 1 else key0
        raise InputError(f"{conf_keys} key(s) judged more than once with different labels; first: "
                         f"{key0} with labels {labs0} on lines {lines0}", source=src0, line=lines0[0],
                         fix="pass duplicates='first', 'last', 'majority' or 'mean'")
    jk = " AND ".join(f"b.{k} = g.{k}" for k in keys)
    if duplicates == "mean":
        # the mean of each conflicting key's labels, computed by pandas over the labels in row order
        # (as the pandas path does), so that the last bit agrees: the engines' sums are not ordered
        conf_df = ex.frame(f"SELECT {', '.join('b.' + k for k in keys)}, b._lab3 FROM {b} b JOIN {g} g "
                           f"ON {jk} WHERE b._fate IS NULL AND g._conf{si} ORDER BY b._rid")
        means = conf_df.groupby(keys, sort=False)["_lab3"].mean().reset_index().rename(columns={"_lab3": "_v"})
        name = f"{p.tag}_s{si}_adj"
        ex.upload(name, means)
        p.made.append(name)
        return name
    if duplicates == "majority":  # ties to the earliest of the most frequent labels
        return p.table(f"s{si}_adj", (
            f"SELECT {klist}, _lab3 AS _v FROM (SELECT {klist}, _lab3, row_number() OVER (PARTITION BY {klist} "
            f"ORDER BY _c DESC, _f) AS _rn FROM (SELECT {', '.join('b.' + k for k in keys)}, b._lab3, "
            f"count(*) AS _c, min(b._rid) AS _f FROM {b} b JOIN {g} g ON {jk} WHERE b._fate IS NULL "
            f"AND g._conf{si} GROUP BY {', '.join('b.' + k for k in keys)}, b._lab3) t) u WHERE _rn = 1"))
    return None


def _final(p: _Plan, g, adjust, keys, by_meta) -> str:
    """The group table with the labels of the conflicting keys replaced as the policy says."""
    if all(a is None for a in adjust):
        return g
    q = p.q
    cols = [f"g.{k}" for k in keys]
    joins = []
    for si in (0, 1):
        cols += [f"g._n{si}", f"g._rid{si}"]
        if adjust[si] is None:
            cols.append(f"g._lab{si}")
        else:
            jm = " AND ".join(f"g.{k} = a{si}.{k}" for k in keys)
            joins.append(f"LEFT JOIN {adjust[si]} a{si} ON {jm}")
            cols.append(f"CASE WHEN g._conf{si} THEN a{si}._v ELSE g._lab{si} END AS _lab{si}")
        cols += [f"g.{q('_m_' + c)}" for c in by_meta[si]]
    return p.table("k", f"SELECT {', '.join(cols)} FROM {g} g {' '.join(joins)}")


def _rows(p: _Plan, sides, k, on, keys, labels, names, fill, unjudged):
    """The pairs as ``Paired.data`` holds them, and the unjudged rows as ``Paired.unjudged``."""
    ex, q = p.ex, p.q
    rv, cv = sides[0].view, sides[1].view
    reserved = set(on) | {"reference", "candidate"}
    rmeta = [c for c in sides[0].columns if c not in reserved and c != labels[0]]
    cmeta = [c for c in sides[1].columns if c not in set(on) and c != labels[1]]
    out_names = list(on) + ["reference", "candidate"] + rmeta
    cnames = []
    for c in cmeta:
        cnames.append(c if c not in out_names and c not in cnames else f"{c}_{names[1]}")
    cand = "k._lab1" if fill is None else f"CASE WHEN k._n1 = 0 THEN {fill} ELSE k._lab1 END"
    where = "k._n0 > 0 AND k._n1 > 0" if fill is None else "k._n0 > 0"
    sel = ", ".join([f"k.{key} AS {q('_o' + str(i))}" for i, key in enumerate(keys)]
                    + ["k._lab0 AS reference", f"{cand} AS candidate"]
                    + [f"ri.{q(c)} AS {q('_r' + str(i))}" for i, c in enumerate(rmeta)]
                    + [f"ci.{q(c)} AS {q('_c' + str(i))}" for i, c in enumerate(cmeta)])
    data = ex.frame(f"SELECT {sel} FROM {k} k LEFT JOIN {rv} ri ON ri._rid = k._rid0 "
                    f"LEFT JOIN {cv} ci ON ci._rid = k._rid1 WHERE {where} ORDER BY k._rid0")
    data.columns = list(on) + ["reference", "candidate"] + rmeta + cnames
    data["reference"] = data["reference"].astype(float)
    data["candidate"] = data["candidate"].astype(float)
    unj = None
    if unjudged == "keep":
        unj = ex.frame(f"SELECT {', '.join(f'{key} AS {q(c)}' for key, c in zip(keys, on))}, _lab0 AS reference "
                       f"FROM {k} WHERE _n0 > 0 AND _n1 = 0 ORDER BY _rid0")
        unj["reference"] = unj["reference"].astype(float)
    return data, unj
