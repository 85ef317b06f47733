"""Reports: every table as CSV and LaTeX (booktabs), every figure, Markdown, self-contained HTML, JSON.

A :class:`Report` collects sections, tables and figures and writes, into one folder:

* ``report.md`` and ``report.html`` (figures embedded as data URIs, no external resources);
* ``tables/<name>.csv`` and ``tables/<name>.tex`` for every table;
* ``figures/<name>.{png,svg,pdf}`` for every figure, and ``figures/<name>.tex`` (its LaTeX ``figure``);
* ``report.tex``, a LaTeX document that inputs every table and figure (:meth:`Report.to_latex`);
* ``results.json`` with all tables, the package versions and the seeds.

Files are deterministic: same inputs and seed → byte-identical output (no timestamps; rounding only
here, in the rendering). :func:`run_study` runs a study file (TOML) through the library; the bundled
demo study is ``metaeval/data_samples/demo_study.toml``.
"""

from __future__ import annotations

import base64
import json
import os
import platform
import re
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

import numpy as np
import pandas as pd

from .. import __version__
from ..core.errors import InputError
from . import escape as esc

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Report", "NOTE_FIELDS", "NOTE_ATTR", "INTERVAL_EXTRAS", "LONGTABLE_ROWS", "MAX_LATEX_ROWS",
           "LATEX_PACKAGES", "paper_table", "interval_note", "column_label", "to_latex", "versions", "progress"]

T = TypeVar("T")


def versions() -> dict[str, str | None]:
    """Versions of Python, metaeval and its main dependencies (recorded in results.json).

    Returns
    -------
    dict of str to str or None
        Package name → installed version (None when the package is not installed).

    Examples
    --------
    >>> import metaeval
    >>> v = versions()
    >>> v["metaeval"] == metaeval.__version__ and "numpy" in v
    True
    """
    import importlib.metadata as md

    out = {"python": platform.python_version(), "metaeval": __version__}
    for pkg in ("numpy", "scipy", "pandas", "statsmodels", "pyarrow", "matplotlib", "ir-measures", "pingouin"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:  # pragma: no cover
            out[pkg] = None
    return out


def progress(iterable: Iterable[T], desc: str = "", total: int | None = None, stream: TextIO | None = None
             ) -> Iterator[T]:
    """Yield from ``iterable``, drawing a one-line progress bar on a terminal.

    Quiet when the stream is not a TTY (piped output, files) or when ``CI`` is set.

    Parameters
    ----------
    iterable : iterable
    desc : str
        Written before the bar.
    total : int, optional
        Number of items (default: ``len`` of the items, which are then read into a list first).
    stream : file-like, optional
        Where to draw (default ``sys.stderr``).

    Yields
    ------
    object
        The items of ``iterable``, unchanged.

    Examples
    --------
    >>> import io
    >>> buf = io.StringIO()                       # not a terminal: no bar
    >>> list(progress(range(3), desc="analyses", stream=buf)), buf.getvalue()
    ([0, 1, 2], '')
    """
    stream = stream or sys.stderr
    quiet = not getattr(stream, "isatty", lambda: False)() or os.environ.get("CI")
    if quiet:
        yield from iterable
        return
    items = list(iterable) if total is None else iterable
    total = len(items) if total is None else total
    for i, item in enumerate(items, start=1):
        done = int(30 * i / max(total, 1))
        stream.write(f"\r{desc} [{'#' * done}{'.' * (30 - done)}] {i}/{total}")
        stream.flush()
        yield item
    stream.write("\n")


# --------------------------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------------------------

def _fmt(v, digits=4) -> str:
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return ""
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}f}"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    return str(v)


# columns that describe how the intervals were computed: one line in the caption, not columns
_RESAMPLING = ("confidence_level", "ci_method", "n_resamples", "seed", "unit", "n_units")
# columns that are not for the paper's table (kept in the CSV)
_DROP = ("se", "bias")
# counts: printed as integers
_COUNTS = {"n", "count", "support", "rows", "times", "wins", "lean_wins", "ties", "lean_losses", "losses", "agree"}
#: The key of ``DataFrame.attrs`` under which :meth:`Report.table` keeps a table's interval note.
NOTE_ATTR = "metaeval_interval_note"


def _is_count(name: str) -> bool:
    return name in _COUNTS or name.startswith("n_")


def column_label(name, fmt: str = "text") -> str:
    """How a statistic or method name is shown: the registry's label, as text or as LaTeX.

    The one lookup of the writers (:func:`metaeval.core.registry.display_label`): a declared
    statistic's label (weights included), a ranking method's (``kendall_b`` → τ_b, ``tau_ap`` →
    τ_AP, ``rbo`` → RBO, ``spearman`` → ρ), else the name itself.

    Parameters
    ----------
    name : str
        A statistic or method name (``cohen_kappa``, ``kappa_max``, ``kendall_b``, ...), or any text.
    fmt : {"text", "latex"}
        ``"text"``: plain text, for Markdown, HTML and figures (each writer escapes it);
        ``"latex"``: LaTeX source, *already escaped* (math in ``$...$``): put it in a ``.tex`` file as
        it is, never through :func:`metaeval.output.escape.latex` again.

    Returns
    -------
    str

    Examples
    --------
    >>> column_label("kappa_max"), column_label("kappa_max", fmt="latex")
    ('κ_max', '$\\\\kappa_{\\\\max}$')
    >>> column_label("kendall_b", fmt="latex"), column_label("cohen_kappa", fmt="latex")
    ("Kendall's $\\\\tau_b$", "Cohen's $\\\\kappa$")
    >>> column_label("my_judge", fmt="latex")          # not a registered name: the text, escaped
    'my\\\\_judge'
    """
    from ..core import registry

    if fmt not in ("text", "latex"):
        raise InputError(f"fmt must be 'text' or 'latex', got {fmt!r}")
    lab = registry.display_label(name) if isinstance(name, str) else registry.Label(_fmt(name))
    if fmt == "text":
        return lab.text
    return lab.latex if lab.latex is not None else esc.latex(lab.text)


def _label(name) -> str:
    """The registry's reader-facing label of a statistic or method (the code name when it has none)."""
    return column_label(name) if isinstance(name, str) else _fmt(name)


def _values(df: pd.DataFrame, col: str) -> list:
    return list(dict.fromkeys(v for v in df[col].tolist() if not (v is None or (isinstance(v, float) and np.isnan(v)))))


def _int_or(v, digits):
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
        return str(int(v))
    return _fmt(v, digits)


# --------------------------------------------------------------------------------------------
# the caption's interval note: built from the estimates' metadata, in this one place
# --------------------------------------------------------------------------------------------

#: ``extra`` entries of an estimate that say how its interval was computed (read by :func:`interval_note`;
#: a DataFrame passed instead of estimates may carry them as columns).
INTERVAL_EXTRAS = ("quantile", "df", "cov_type", "variance", "fpc", "population_size", "n_labelled", "n_unlabelled")
_BOOTSTRAP = {"bca": "BCa bootstrap", "percentile": "percentile bootstrap", "basic": "basic bootstrap",
              "debiased": "bias-corrected bootstrap (θ̂ − bias ± z·SE, SE by a double bootstrap)",
              "bootstrap-t": "bootstrap-t",
              "studentized": "studentized bootstrap"}
_ANALYTIC = {"analytic": "analytic", "jackknife": "jackknife", "delta": "delta-method",
             "test-inversion": "test-inversion"}
_PPI_METHODS = {"ppi++": "PPI++", "ppi": "PPI", "classical": "classical (human labels only)",
                "judge_only": "judge-only"}
_COV_TYPES = {"cluster": "cluster-robust", "HC0": "HC0 robust", "HC1": "HC1 robust", "HC2": "HC2 robust",
              "HC3": "HC3 robust", "nonrobust": "OLS"}


def _missing(v) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)) or v is pd.NA


def _records(source) -> list[dict]:
    """One dict per row: the :data:`FRAME_COLUMNS` fields, the row's name and its interval metadata."""
    from ..core.results import Estimate

    if isinstance(source, Estimate):
        source = [source]
    if isinstance(source, pd.DataFrame):
        rows = source.to_dict("records")
        return [{**r, "_name": r.get("statistic"), "_method_extra": None} for r in rows]
    out = []
    for e in source:
        r = e.row()
        r.update({k: e.extra[k] for k in INTERVAL_EXTRAS if k in e.extra})
        r["_name"] = e.statistic
        r["_method_extra"] = e.extra.get("method")
        out.append(r)
    return out


def _num(v) -> str:
    return _int_or(v, 4)


def _describe(r: dict, units: str | None) -> tuple[str, object, str] | None:
    """``(how, n, noun)``: how row ``r``'s interval was computed, without its n; None without metadata."""
    method = r.get("ci_method")
    if _missing(method):
        return None
    method = str(method)
    unit = "" if _missing(r.get("unit")) else str(r.get("unit"))
    n = r.get("n_units")
    noun = units or ("items" if unit in ("", "none") else unit)
    if method == "none":
        return "no interval", None, noun
    if method in _BOOTSTRAP or method == "permutation":
        b = r.get("n_resamples")
        if method == "permutation":
            how = "permutation test" + (f" ({r['_method_extra']})" if r.get("_method_extra") else "")
            within = " within clusters" if "within" in unit else ""
            count = f"{_num(b)} permutations{within}" if not _missing(b) and b else ""
            return ", ".join(p for p in (how, count, "no interval") if p), n, noun
        b = f"B = {_num(b)}" if not _missing(b) and b else ""
        return ", ".join(p for p in (_BOOTSTRAP[method], b) if p) + ", {n} resampled", n, noun
    # an interval from a formula: its variance, its quantile, the finite-population factor
    params = []
    if not _missing(r.get("variance")):
        params.append(f"{r['variance']} variance")
    elif not _missing(r.get("cov_type")):
        params.append(f"{_COV_TYPES.get(str(r['cov_type']), str(r['cov_type']))} variance")
    elif r.get("_method_extra") in _PPI_METHODS:
        params.append(f"{_PPI_METHODS[r['_method_extra']]} variance")
    elif r.get("_method_extra") == "fisher-z":
        params.append("Fisher z-transform")
    if method == "jackknife":
        params.append("jackknife variance")
    fpc = r.get("fpc")
    if (not _missing(fpc) and float(fpc) < 1) or (not _missing(r.get("population_size")) and _missing(fpc)):
        params.append("finite-population correction")
    q, df = r.get("quantile"), r.get("df")
    if q == "normal" or (not _missing(df) and np.isinf(float(df))):
        params.append("normal quantile")
    elif not _missing(df):
        params.append(f"t({_num(df)}) quantile")
    elif q == "t":
        params.append("t(n − 1) quantile")
    how = _ANALYTIC.get(method, method) + " interval" + (f" ({', '.join(params)})" if params else "")
    lab = r.get("n_labelled")
    if not _missing(lab) and r.get("_method_extra") != "judge_only" and not _missing(n) and int(lab) < int(n):
        return how + f", {_num(lab)} labelled {noun} of {{count}}", n, noun
    return how + ", n = {n}", n, noun


def interval_note(source, *, units: str | None = None) -> str:
    """The sentence of a table's caption that says how its intervals were computed.

    Built from each estimate's own metadata: the interval method and, for an interval from a
    formula (``analytic``, ``jackknife``, ``delta``), the variance behind it, the quantile (normal, or
    t with its degrees of freedom) and the finite-population correction, with the n it rests on —
    labelled against all units for a judge-corrected estimate; for a bootstrap, its type, B, the
    number of units resampled and the seed. Rows computed differently get a clause each, led by
    their statistics' labels; rows of a point estimate only say so; a table of point estimates
    only says "Point estimates (no intervals)."

    Parameters
    ----------
    source : ResultSet, iterable of Estimate, Estimate or pandas.DataFrame
        The estimates of a table; or its frame (the columns of
        :data:`metaeval.core.results.FRAME_COLUMNS`, and any of :data:`INTERVAL_EXTRAS` as columns).
    units : str, optional
        What a unit is, e.g. ``"topics"`` or ``"query_id clusters"`` (default: the estimates'
        ``unit``, and ``items`` for a formula's n).

    Returns
    -------
    str
        ``""`` when nothing says how an interval was computed (no ``ci_method``).

    Examples
    --------
    >>> from metaeval.agreement.analytic import analytic_estimate
    >>> e = analytic_estimate("cohen_kappa", 0.6, 0.0025, n=202, extra={"variance": "Fleiss–Cohen–Everitt"})
    >>> interval_note([e])
    '95% intervals: analytic interval (Fleiss–Cohen–Everitt variance, t(201) quantile), n = 202 items.'
    >>> import metaeval as me
    >>> boot = me.cohen_kappa([0, 1, 1, 0, 1] * 8, [0, 1, 0, 0, 1] * 8, n_resamples=200, rng=7)
    >>> interval_note([boot])
    '95% intervals: BCa bootstrap, B = 200, 40 items resampled, seed 7.'
    """
    recs = [r for r in _records(source)]
    described = [(r, _describe(r, units)) for r in recs]
    described = [(r, d) for r, d in described if d is not None]
    if not described:
        return ""
    if all(d[0] == "no interval" for _, d in described):
        return "Point estimates (no intervals)."
    groups: dict[str, dict] = {}
    for r, (how, n, noun) in described:
        g = groups.setdefault(how, {"ns": [], "noun": noun, "names": []})
        if not _missing(n):
            g["ns"].append(n)
        name = r.get("_name")
        if not _missing(name) and _label(name) not in g["names"]:
            g["names"].append(_label(name))
    clauses = []
    for how, g in groups.items():
        ns = sorted(set(int(v) for v in g["ns"]))
        count = "" if not ns else (str(ns[0]) if len(ns) == 1 else f"{ns[0]} to {ns[-1]}")
        if not count:                            # nothing says how many units: leave the count out
            how = how.replace(", {n} resampled", "").replace(" of {count}", "")
        text = how.replace(", n = {n}", f", n = {count} {g['noun']}" if count else "")
        text = text.replace("{n}", f"{count} {g['noun']}".strip()).replace("{count}", count)
        if len(groups) > 1 and g["names"]:
            text = f"{', '.join(g['names'])}: {text}"
        clauses.append(text)
    levels = list(dict.fromkeys(float(r["confidence_level"]) for r, d in described
                                if d[0] != "no interval" and not _missing(r.get("confidence_level"))))
    seeds = list(dict.fromkeys(int(r["seed"]) for r, d in described
                               if not _missing(r.get("seed")) and d[0] != "no interval"
                               and (str(r.get("ci_method")) in _BOOTSTRAP or r.get("ci_method") == "permutation")))
    head = f"{100 * levels[0]:g}% intervals: " if len(levels) == 1 else "Intervals: "
    tail = (f"{'; ' if len(clauses) > 1 else ', '}seed {seeds[0]}") if len(seeds) == 1 else ""
    return head + "; ".join(clauses) + tail + "."


def _resampling_note(df: pd.DataFrame) -> str:
    """The interval note of a table's frame: the one :meth:`Report.table` kept, else built from its columns."""
    note = df.attrs.get(NOTE_ATTR)
    return note if note is not None else interval_note(df)


def paper_table(df: pd.DataFrame, columns: Iterable[str] | None = None, *, digits: int = 4, fmt: str = "text"
                ) -> tuple[pd.DataFrame, str]:
    """A table in a paper's shape: the text of every cell, and the resampling note for the caption.

    ``estimate``, ``ci_low`` and ``ci_high`` become one cell ``estimate [low, high]`` under the
    header ``estimate [95% CI]`` (just ``estimate`` when no row has an interval); statistic and
    method names become the registry's labels (:func:`column_label`, e.g. ``Cohen's κ``, ``τ_AP``;
    the code name for one without a label); counts (``n``, ``n_*``, ``count``, ``support`` ...)
    and the whole numbers of a ``value`` column print as integers; how the intervals were
    computed (``confidence_level``, ``ci_method``, ``n_resamples``, ``unit``, ``n_units``, ``seed``)
    is one sentence for the caption instead of columns (:func:`interval_note`; the note
    :meth:`Report.table` built from the table's estimates when it has one, kept in
    ``df.attrs[NOTE_ATTR]``); another quantity with its bounds beside it (``rank``, ``rank_low``,
    ``rank_high``; ``difference``, ``difference_low``, ``difference_high``) becomes one cell
    ``value [low, high]`` too; ``se``, ``bias``, columns without a value and text columns repeating
    another text column are left out. No other column is dropped, however many there are: the
    LaTeX writer (:func:`to_latex`) sets a wide table in landscape or splits it into parts that
    repeat the key column, and the pages show every column. The CSV and results.json keep every
    column as it is.

    Parameters
    ----------
    df : pandas.DataFrame
        A table of the report (e.g. ``ResultSet.to_frame()``).
    columns : sequence of str, optional
        The columns to show, in order (default: all); the resampling columns are read from ``df``
        even when not listed.
    digits : int
        Decimals of non-integer numbers.
    fmt : {"text", "latex"}
        ``"text"``: plain text (Markdown and HTML writers escape it). ``"latex"``: every cell, column
        name and the note as LaTeX source, already escaped, the registry's labels in their math form
        (:func:`column_label` with ``fmt="latex"``: ``$\\kappa_{\\max}$``, ``$\\tau_{\\mathrm{AP}}$``);
        write them as they are.

    Returns
    -------
    pandas.DataFrame
        Strings, one column per column shown.
    str
        The interval note (``""`` when ``df`` says nothing about intervals), e.g.
        ``"95% intervals: BCa bootstrap, B = 2000, 40 clusters resampled, seed 7."``.

    References
    ----------
    The labels are the registry's (:mod:`metaeval.core.registry`); the demo's tables in this shape
    compile with pdflatex (TeX Live 2022, booktabs) in ``tests/test_report_tex.py``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"statistic": ["cohen_kappa", "pearson_r"], "estimate": [0.60334, 0.5],
    ...                    "ci_low": [0.49, 0.4], "ci_high": [0.71, 0.6], "confidence_level": [0.95, 0.95],
    ...                    "ci_method": ["percentile"] * 2, "se": [0.05, 0.05], "n": [202.0, 202.0],
    ...                    "unit": ["items"] * 2, "n_units": [202, 202], "n_resamples": [2000] * 2, "seed": [7] * 2})
    >>> table, note = paper_table(df)
    >>> table.to_dict("records")[0]
    {'statistic': "Cohen's κ", 'estimate [95% CI]': '0.6033 [0.4900, 0.7100]', 'n': '202'}
    >>> note
    '95% intervals: percentile bootstrap, B = 2000, 202 items resampled, seed 7.'
    """
    if fmt not in ("text", "latex"):
        raise InputError(f"fmt must be 'text' or 'latex', got {fmt!r}")
    full = df.reset_index(drop=True)
    cols = [c for c in (list(columns) if columns is not None else list(full.columns)) if c in full.columns]
    note = _resampling_note(df)
    view = full[cols]
    out: dict[str, list[str]] = {}
    # an "estimate [CI]" column only where some row has an interval (a table of point estimates: "estimate")
    has_ci = ({"estimate", "ci_low", "ci_high"} <= set(full.columns) and "estimate" in cols
              and bool(full[["ci_low", "ci_high"]].notna().to_numpy().any()))
    with_ci = full[full[["ci_low", "ci_high"]].notna().any(axis=1)] if has_ci else full.iloc[:0]
    levels = _values(with_ci, "confidence_level") if "confidence_level" in full.columns else []
    head = f"estimate [{100 * float(levels[0]):g}% CI]" if len(levels) == 1 else "estimate [CI]"
    seen: list[list] = []
    # another quantity with its interval (rank, rank_low, rank_high; difference, difference_low, ...): one cell
    bounded = {c for c in cols if c not in ("estimate", "ci") and f"{c}_low" in cols and f"{c}_high" in cols
               and not view[[f"{c}_low", f"{c}_high"]].isna().all().all()}
    bounds = {f"{c}_{s}" for c in bounded for s in ("low", "high")}
    ci_head = head.replace("estimate ", "", 1) if has_ci else "[CI]"
    for c in cols:
        if c in _RESAMPLING or c in _DROP or (c in ("ci_low", "ci_high") and (has_ci or "estimate" in cols)):
            continue
        if c in bounds:
            continue
        col = view[c]
        if col.isna().all():
            continue
        if c in bounded:
            as_int = col.dtype.kind in "iu"
            cells = []
            for v, lo, hi in zip(col, view[f"{c}_low"], view[f"{c}_high"]):
                f = (lambda x: _int_or(x, digits)) if as_int else (lambda x: _fmt(x, digits))
                ci = "" if pd.isna(lo) and pd.isna(hi) else f" [{f(lo)}, {f(hi)}]"
                cells.append(f(v) + ci)
            out[f"{c} {ci_head}"] = cells
            continue
        raw = col.tolist()
        if col.dtype.kind not in "biufc" and not any(isinstance(v, (bool, np.bool_, int, float, np.number))
                                                    for v in raw):
            if any(raw == s for s in seen):   # a text column repeating another (method = statistic)
                continue
            seen.append(raw)
        if c == "estimate" and has_ci:
            cells = []
            for e, lo, hi in zip(full["estimate"], full["ci_low"], full["ci_high"]):
                ci = "" if pd.isna(lo) and pd.isna(hi) else f" [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"
                cells.append(_fmt(e, digits) + ci)
            out[head] = cells
        elif c in ("statistic", "method"):
            out[c] = [column_label(v, fmt) if isinstance(v, str) else _fmt(v) for v in raw]
            continue
        elif _is_count(str(c)) or c == "value":   # a "value" column mixes counts and rates: 435, 0.2345
            out[str(c)] = [_int_or(v, digits) for v in raw]
        else:
            out[str(c)] = [_fmt(v, digits) for v in raw]
    names = list(out)
    if fmt == "latex":
        return (pd.DataFrame({esc.latex(k): [v if k in ("statistic", "method") else esc.latex(v) for v in out[k]]
                              for k in names}, columns=[esc.latex(k) for k in names]), esc.latex(note))
    return pd.DataFrame({k: out[k] for k in names}, columns=names), note


#: LaTeX tables: up to this many rows a table is a float (``table``); more rows a ``longtable`` that
#: breaks across pages and repeats its header.
LONGTABLE_ROWS = 40
#: More rows than this: LaTeX shows the first :data:`LONGTABLE_ROWS` rows, and the caption and a
#: last line point to the CSV (``tables/<name>.csv``), which keeps every row.
MAX_LATEX_ROWS = 200
#: The packages the LaTeX tables and figures need, all in Debian's ``texlive-latex-recommended``.
LATEX_PACKAGES = ("booktabs", "longtable", "graphicx", "pdflscape")

# width of the text in points: article class, 10pt, 2 cm margins on A4 (483.7) and letter (500.5)
_TEXT_WIDTH = 480.0
_LANDSCAPE_WIDTH = 720.0          # A4 landscape: 841.9 - 2 x 56.9 = 728.1
_TEXT_HEIGHT = 600.0              # a float taller than this becomes a longtable (A4: 728, letter: 678)
_COLSEP = 12.0                    # \tabcolsep on both sides of a column
# font sizes tried for a longtable, with the factor of their width against \normalsize
_SIZES = (("", 1.0), (r"\small", 0.9), (r"\footnotesize", 0.8), (r"\scriptsize", 0.7))
# a table that fits the page only below this font size is set in landscape
_LANDSCAPE_BELOW = 0.8


def _char_pt(ch: str) -> float:
    """Width in points of one character at 10pt in Computer Modern (T1), rounded up."""
    if ch.isupper():
        return 7.6
    if ch in "mwMW":
        return 8.4
    if ch in " .,:;'!|il":
        return 3.3
    if ch in "[]()":
        return 3.9
    return 5.3


def _text_pt(text: str) -> float:
    return sum(_char_pt(c) for c in text)


class _TexLabel:
    """A label shown as ``text`` and written to LaTeX as ``latex`` (already LaTeX: not escaped again).

    Not a ``str`` subclass: pandas turns those back into plain ``str`` and the attribute would be lost.
    """

    __slots__ = ("text", "latex")

    def __init__(self, text: str, latex: str):
        self.text, self.latex = text, latex

    def __str__(self) -> str:
        return self.text


def _cell(v, digits: int) -> tuple[str, str]:
    """A cell's text as shown (for widths) and as LaTeX.

    A value with a ``latex`` attribute (a label carrying its own LaTeX, e.g. ``$\\tau_b$``) is
    written as that LaTeX; every other value is formatted and escaped (:func:`metaeval.output.escape.latex`).
    """
    tex = getattr(v, "latex", None)
    shown = _fmt(v, digits)
    return shown, (tex if isinstance(tex, str) else _breakable(esc.latex(shown)))


def _layout(shown: list[list[str]], numeric: list[bool]) -> tuple[list[str], str, bool, bool]:
    """Column specs, font size and orientation so that a table of these cells fits the page, and whether it does.

    Numbers keep their natural width (``r``); a text column wider than its share becomes a
    paragraph column (``p{..pt}``, never narrower than its longest word). The first font size of
    :data:`_SIZES` at which the estimated width fits the text width is taken; a table that needs a
    size below :data:`_LANDSCAPE_BELOW` is set in landscape (at the largest size that fits there).
    The last value is False when the table fits neither way (:func:`to_latex` then splits its columns).
    """
    ncol = len(numeric)
    natural = [max((_text_pt(c) for c in col), default=0.0) for col in shown]
    longest_word = [max((_text_pt(w) for c in col for w in re.split(r"(?<=/)|\s+", c)), default=0.0) for col in shown]

    def fit(width: float, factor: float):
        room = width - _COLSEP * ncol
        fixed = sum(natural[i] * factor for i in range(ncol) if numeric[i])
        text = [i for i in range(ncol) if not numeric[i]]
        if fixed + sum(natural[i] * factor for i in text) <= room:
            return ["r" if numeric[i] else "l" for i in range(ncol)]
        if fixed + sum(longest_word[i] * factor for i in text) > room:
            return None
        # the narrow text columns keep their width; the wide ones share what is left, narrowest first
        specs = ["r" if numeric[i] else "l" for i in range(ncol)]
        left, rest = room - fixed, sorted(text, key=lambda i: natural[i])
        while rest:
            share = left / len(rest)
            i = rest[0]
            if natural[i] * factor <= share:
                left -= natural[i] * factor
                rest.pop(0)
                continue
            for j in rest:
                specs[j] = f"p{{{max(share, longest_word[j] * factor):.0f}pt}}"
            break
        return specs

    for landscape, width in ((False, _TEXT_WIDTH), (True, _LANDSCAPE_WIDTH)):
        for size, factor in _SIZES:
            if not landscape and factor < _LANDSCAPE_BELOW:
                break
            specs = fit(width, factor)
            if specs is not None:
                return specs, size, landscape, True
    size, factor = _SIZES[-1]
    return [("r" if numeric[i] else f"p{{{longest_word[i] * factor:.0f}pt}}") for i in range(ncol)], size, True, False


def _breakable(tex: str) -> str:
    """Escaped text where a line may also break after a ``/`` (a list of values ``270/177/...``, a path)."""
    return tex.replace("/", r"/\allowbreak{}")


def to_latex(df: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 4, csv: str = "",
             key_columns: int = 1) -> str:
    """A booktabs LaTeX table that fits the page: a float, or a ``longtable`` across pages.

    The rule (documented in the guide's *Reports* section):

    * up to :data:`LONGTABLE_ROWS` (40) rows, and not taller than a page: a ``table`` float; the
      tabular is measured when LaTeX sets it and scaled down to ``\\linewidth`` when wider (so the
      file also fits a narrower column when ``\\input`` into a paper);
    * more rows (or wrapped text making it taller than a page), up to :data:`MAX_LATEX_ROWS` (200):
      a ``longtable`` that breaks across pages and repeats its header;
    * more than :data:`MAX_LATEX_ROWS` rows: the first :data:`LONGTABLE_ROWS` rows, the caption and a
      last line saying how many rows the CSV (``csv``) holds;
    * the width: numbers keep their natural width, long text wraps in a paragraph column; when the
      estimated width exceeds the text width the table is set ``\\small``, then ``\\footnotesize``,
      and when it fits only smaller than that, in landscape (``pdflscape``), the largest size first;
    * more columns than fit a landscape page even at ``\\scriptsize``: no column is dropped, the
      table is split into consecutive parts that each fit, every part repeating the first
      ``key_columns`` columns, its caption saying which part it is and naming its columns (the
      label ``label`` on the first part, ``label:partK`` on the others).

    Parameters
    ----------
    df : pandas.DataFrame
        The cells (e.g. :func:`paper_table`'s). A cell whose value has a ``latex`` attribute (a
        registry label with math, e.g. ``$\\tau_b$``) is written as that LaTeX; every other cell,
        the header and the caption are escaped (:func:`metaeval.output.escape.latex`).
    caption : str, optional
        ``\\caption{...}`` (escaped; an object with a ``latex`` attribute is written as that).
    label : str, optional
        ``\\label{...}``: letters, digits and ``- _ . :`` only (anything else is an InputError).
    digits : int
        Decimals of floats (NaN is left empty).
    csv : str, optional
        The CSV holding every row, named when the rows are cut (e.g. ``tables/scores.csv``).
    key_columns : int
        How many leading columns name a row (a judge, a statistic); repeated in every part of a
        table split by its columns.

    Returns
    -------
    str
        A ``table`` or ``longtable`` environment (in a ``landscape`` one when rotated), or one such
        environment per part of a table split by its columns; needs
        ``\\usepackage{booktabs,longtable,graphicx,pdflscape}`` (:data:`LATEX_PACKAGES`, all in
        Debian's ``texlive-latex-recommended``).

    References
    ----------
    ``tests/test_report_tex.py`` (the demo) and ``tests/test_study_corpus.py`` (real studies with
    tables of 1,953 rows) compile the results with pdflatex: no error, no float too large, no line
    more than 10pt too wide.

    Examples
    --------
    >>> import pandas as pd
    >>> print(to_latex(pd.DataFrame({"statistic": ["cohen_kappa"], "estimate": [0.60334]})))
    \\begin{table}[htbp]
    \\centering
    \\sbox0{\\begin{tabular}{lr}
    \\toprule
    statistic & estimate \\\\
    \\midrule
    cohen\\_kappa & 0.6033 \\\\
    \\bottomrule
    \\end{tabular}}%
    \\ifdim\\wd0>\\linewidth\\resizebox{\\linewidth}{!}{\\usebox0}\\else\\usebox0\\fi
    \\end{table}
    <BLANKLINE>
    >>> long = to_latex(pd.DataFrame({"run": [f"r{i}" for i in range(300)], "score": 0.5}), csv="tables/s.csv")
    >>> long.splitlines()[0], long.count("\\\\\\\\\\n"), long.splitlines()[-5]
    ('\\\\begin{table}[htbp]', 42, '\\\\multicolumn{2}{l}{\\\\emph{The first 40 of 300 rows; every row in tables/s.csv.}} \\\\\\\\')
    >>> wide = pd.DataFrame({"judge": ["a"], **{f"judge_number_{i}": [0.123456] for i in range(30)}})
    >>> parts = to_latex(wide, caption="Agreement", label="tab:w")
    >>> parts.count("\\\\begin{table}"), parts.count("judge & "), "Part 4 of 4" in parts
    (4, 4, True)
    """
    if label and not re.fullmatch(r"[A-Za-z0-9_.:\-]{1,200}", str(label)):
        raise InputError("a LaTeX label may hold letters, digits and - _ . : only", text=str(label),
                         fix="pass a label such as 'tab:kappa'")
    n_rows = len(df)
    cut = n_rows > MAX_LATEX_ROWS
    view = df.iloc[:LONGTABLE_ROWS] if cut else df
    cols = [str(c) for c in df.columns]

    def numeric(c):
        if view[c].dtype.kind in "biuf":
            return True
        cells = [str(v) for v in view[c] if str(v) != ""]
        return bool(cells) and all(re.fullmatch(r"-?[\d.]+( \[-?[\d.]+, -?[\d.]+\])?|-?inf", v) for v in cells)

    is_num = [numeric(c) for c in view.columns]
    cells = [[_cell(v, digits) for v in row] for row in view.itertuples(index=False)]
    shown = [[c] + [r[i][0] for r in cells] for i, c in enumerate(cols)]
    cap = getattr(caption, "latex", None)
    cap = cap if isinstance(cap, str) else _breakable(esc.latex(caption))
    more = ""
    if cut:
        more = f"The first {LONGTABLE_ROWS} of {n_rows} rows" + (f"; every row in {csv}." if csv else ".")
        cap = f"{cap} {esc.latex(more)}" if cap else esc.latex(more)
    parts = _column_parts(shown, is_num, min(max(int(key_columns), 0), len(cols) - 1) if cols else 0)
    if len(parts) == 1:
        return _latex_table(cells, cols, shown, is_num, parts[0], cap, label, n_rows, cut, more)
    key = [cols[i] for i in range(min(max(int(key_columns), 0), len(cols)))]
    out = []
    for k, idx in enumerate(parts, start=1):
        own = [cols[i] for i in idx if cols[i] not in key]
        what = (f"Part {k} of {len(parts)} (too many columns for one page; each part repeats "
                f"{', '.join(key) or 'nothing'}): columns {', '.join(own)}.")
        lab = label if k == 1 or not label else f"{label}:part{k}"
        out.append(_latex_table(cells, cols, shown, is_num, idx, f"{cap} {esc.latex(what)}".strip(), lab, n_rows,
                                cut, more))
    return "\n".join(out)


def _column_parts(shown: list[list[str]], numeric: list[bool], n_key: int) -> list[list[int]]:
    """The columns of each part of a LaTeX table: all of them when they fit a page (portrait or
    landscape), else consecutive groups that each fit, every group led by the ``n_key`` key columns."""
    ncol = len(shown)
    if _layout(shown, numeric)[3] or ncol <= n_key + 1:
        return [list(range(ncol))]
    key = list(range(n_key))
    parts: list[list[int]] = []
    group: list[int] = []
    for j in range(n_key, ncol):
        trial = key + group + [j]
        if group and not _layout([shown[i] for i in trial], [numeric[i] for i in trial])[3]:
            parts.append(key + group)
            group = []
        group.append(j)
    parts.append(key + group)
    return parts


def _latex_table(cells, cols, shown, is_num, idx, cap, label, n_rows, cut, more) -> str:
    """One ``table`` or ``longtable`` holding the columns ``idx`` of the cells (see :func:`to_latex`)."""
    cells = [[r[i] for i in idx] for r in cells]
    cols = [cols[i] for i in idx]
    specs, size, landscape, _ = _layout([shown[i] for i in idx], [is_num[i] for i in idx])
    # rows of wrapped text: lines each (an estimate), to keep a float within a page
    lines_per_row = [max([1] + [int(_text_pt(r[i][0]) // float(s[2:-3])) + 1 for i, s in enumerate(specs)
                                if s.startswith("p{")]) for r in cells]
    longtable = not cut and (n_rows > LONGTABLE_ROWS or 13.0 * (sum(lines_per_row) + 4) > _TEXT_HEIGHT)
    head = " & ".join(esc.latex(c) for c in cols) + r" \\"
    body = [" & ".join(tex for _, tex in r) + r" \\" for r in cells]
    if cut:
        body.append(r"\midrule" + "\n" + rf"\multicolumn{{{len(cols)}}}{{l}}{{\emph{{{esc.latex(more)}}}}} \\")
    align = "".join(specs)
    lines: list[str] = []
    if landscape:
        lines.append(r"\begin{landscape}")
    if longtable:
        if size:
            lines.append(r"\begingroup" + size)
        lines.append(rf"\begin{{longtable}}{{{align}}}")
        if cap or label:
            lines.append((rf"\caption{{{cap}}}" if cap else "") + (rf"\label{{{label}}}" if label else "") + r" \\")
        lines += [r"\toprule", head, r"\midrule", r"\endfirsthead",
                  rf"\multicolumn{{{len(cols)}}}{{l}}{{\emph{{(continued)}}}} \\", r"\toprule", head, r"\midrule",
                  r"\endhead", r"\bottomrule", r"\endlastfoot", *body, r"\end{longtable}"]
        if size:
            lines.append(r"\endgroup")
    else:
        lines += [r"\begin{table}[htbp]", r"\centering" + size]
        if cap:
            lines.append(rf"\caption{{{cap}}}")
        if label:
            lines.append(rf"\label{{{label}}}")
        lines += [rf"\sbox0{{\begin{{tabular}}{{{align}}}", r"\toprule", head, r"\midrule", *body,
                  r"\bottomrule", r"\end{tabular}}%",
                  r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi", r"\end{table}"]
    if landscape:
        lines.append(r"\end{landscape}")
    lines.append("")
    return "\n".join(lines)


def _md_table(df: pd.DataFrame, digits: int = 4) -> str:
    cols = [str(c) for c in df.columns]
    out = ["| " + " | ".join(esc.markdown_cell(c) for c in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(esc.markdown_cell(_fmt(v, digits)) for v in row) + " |")
    return "\n".join(out)


def _html_table(df: pd.DataFrame, digits: int = 4) -> str:
    head = "".join(f"<th>{esc.html(c)}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        cells = "".join(
            f"<td class=\"num\">{esc.html(_fmt(v, digits))}</td>" if isinstance(v, (int, float, np.number))
            and not isinstance(v, bool) else f"<td>{esc.html(_fmt(v, digits))}</td>" for v in row)
        body.append(f"<tr>{cells}</tr>")
    # a wide table scrolls sideways in its own box rather than losing columns or widening the page
    return (f"<div class=\"table-scroll\"><table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
            "</table></div>")


def _jsonable(df: pd.DataFrame):
    return json.loads(df.to_json(orient="records", double_precision=10))


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em}h2{font-size:1.3em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.88em}.table-scroll{overflow-x:auto}
th,td{padding:.25em .7em;border-bottom:1px solid #e5e5e5;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}thead th{border-bottom:2px solid #444}
figure{margin:1em 0 2em}figure img{max-width:100%;height:auto}figcaption,.caption{color:#555;font-size:.9em}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.85em}
"""

# marks the page once every image has loaded (the browser test reads it from the DOM)
_JS = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.every(function (im) { return im.complete && im.naturalWidth > 0; });
  document.body.setAttribute('data-images', imgs.length);
  document.body.setAttribute('data-images-loaded', ok ? 'true' : 'false');
});
"""


#: The fields of a note, in order (results.json ``notes``; the Notes table of report.md and report.html).
NOTE_FIELDS = ("analysis", "category", "message", "times")

_NOTES_INTRO = ("Warnings raised while the analyses ran, and input rows left out of the pairs, each listed once "
                "(times: how often it was raised), in the order the analyses ran. The category is the warning's "
                "class, or alignment for rows the alignment dropped or changed.")


def _scoped_css(scope: str) -> str:
    """The page's style with every selector under ``scope`` (``body`` becomes ``scope`` itself)."""
    import re

    rules = []
    for sel, decl in re.findall(r"([^{}]+)\{([^}]*)\}", _CSS):
        parts = [p.strip() for p in sel.split(",")]
        decl = " ".join(decl.split())
        rules.append(",".join(scope if p == "body" else f"{scope} {p}" for p in parts) + "{" + decl + "}")
    return "\n".join(rules)


def _png_bytes(fig) -> bytes:
    """The PNG that :func:`metaeval.figures.save` writes for ``fig``, from memory."""
    import io

    from ..output.figures import _savefig

    buf = io.BytesIO()
    _savefig(fig, buf, "png")
    return buf.getvalue()


class _Figures(Mapping):
    """A report's figures by name: in memory until released, then pickled to a private temporary
    folder and read back when asked for, so a study's memory does not grow with its figures."""

    def __init__(self):
        self._live: dict[str, object] = {}
        self._pickled: dict[str, Path] = {}
        self._order: list[str] = []
        self._dir: Path | None = None

    def __getitem__(self, name):
        if name in self._live:
            return self._live[name]
        if name in self._pickled:
            import pickle

            with open(self._pickled[name], "rb") as fh:
                return pickle.load(fh)
        raise KeyError(name)

    def __iter__(self):
        return iter(list(self._order))

    def __len__(self):
        return len(self._order)

    def __contains__(self, name):
        return name in self._live or name in self._pickled

    def add(self, name: str, fig) -> None:
        self._live[name] = fig
        self._order.append(name)

    def release(self, name: str) -> None:
        """Pickle the figure and drop it from memory (kept in memory if it cannot be pickled)."""
        import pickle
        import shutil
        import tempfile
        import weakref

        fig = self._live.get(name)
        if fig is None:
            return
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="metaeval-figures-"))
            weakref.finalize(self, shutil.rmtree, self._dir, True)
        path = self._dir / f"{len(self._pickled)}.pickle"
        try:
            with open(path, "wb") as fh:
                pickle.dump(fig, fh, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:                          # pragma: no cover - an unpicklable artist: keep it
            path.unlink(missing_ok=True)
            return
        self._pickled[name] = path
        del self._live[name]


class Report:
    """Collects sections, text, tables, figures and notes; renders them and writes the report folder.

    One list of blocks renders three ways: Markdown (:meth:`to_markdown`, ``report.md``), a
    self-contained HTML page (:meth:`to_html`, ``report.html``) and, in Jupyter, the same HTML body
    with its style scoped to the output cell (``_repr_html_``). Notes (:meth:`note`: warnings raised
    while the analyses ran, rows the alignment dropped) are deduplicated and listed under *Notes* at
    the end of the pages and under ``notes`` in results.json; a line under the title says how many
    there are.

    Parameters
    ----------
    title : str
        The report's title (first heading, HTML ``<title>``).
    intro : str, optional
        A first paragraph.
    meta : dict, optional
        Recorded under ``_meta`` in results.json (seed, number of resamples, the study...).

    Attributes
    ----------
    tables : dict of str to pandas.DataFrame
        Every table, by name (all columns; the pages may show fewer).
    figures : mapping of str to matplotlib.figure.Figure
        Every figure, by name. :func:`metaeval.run_study` writes each figure and releases it from
        memory as its analysis finishes; asking for it reads it back.
    notes : pandas.DataFrame
        The notes, columns :data:`NOTE_FIELDS` (``analysis, category, message, times``).

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> r = Report("Example")
    >>> r.section("Agreement")
    >>> r.table("kappa", pd.DataFrame({"statistic": ["cohen_kappa"], "estimate": [0.6033]}))
    >>> r.note("kappa", "SmallSampleWarning", "cluster bootstrap over 3 clusters")
    >>> r.note("kappa", "SmallSampleWarning", "cluster bootstrap over 3 clusters")
    >>> r
    <Report 'Example': 1 table, 0 figures, 1 note>
    >>> out = r.write(tempfile.mkdtemp())
    >>> sorted(p.name for p in out.iterdir())
    ['.metaeval-output.json', 'report.html', 'report.md', 'report.tex', 'results.json', 'tables']
    >>> print(r.to_markdown().split("## Notes")[1].splitlines()[-1])
    | kappa | SmallSampleWarning | cluster bootstrap over 3 clusters | 2 |
    >>> '<h2 id="notes">Notes</h2>' in r._repr_html_()
    True
    """

    def __init__(self, title: str, *, intro: str = "", meta: dict | None = None):
        self.title = title
        self.blocks: list[tuple] = []
        self.tables: dict[str, pd.DataFrame] = {}
        self.figures = _Figures()
        self.meta = dict(meta or {})
        self._stems: dict[str, set[str]] = {"table": set(), "figure": set()}
        self._spool: Path | None = None            # a folder the figures are written to at once (run_study)
        self._saved: dict[str, Path] = {}          # figure name -> the stem its files were written to
        self._notes: dict[tuple[str, str, str], int] = {}
        if intro:
            self.text(intro)

    def __repr__(self) -> str:
        def n(k, what):
            return f"{k} {what}{'' if k == 1 else 's'}"
        return (f"<Report {self.title!r}: {n(len(self.tables), 'table')}, {n(len(self.figures), 'figure')}, "
                f"{n(len(self._notes), 'note')}>")

    def section(self, title: str, text: str = "") -> None:
        """Start a section (a second-level heading), optionally with a first paragraph.

        Parameters
        ----------
        title : str
        text : str, optional

        Examples
        --------
        >>> r = Report("t")
        >>> r.section("Agreement", "Human vs judge.")
        >>> r.to_markdown().splitlines()[2:5]
        ['## Agreement', '', 'Human vs judge.']
        """
        self.blocks.append(("section", title))
        if text:
            self.text(text)

    def text(self, text: str) -> None:
        """Add a paragraph.

        Parameters
        ----------
        text : str
            Shown as is in Markdown, escaped in HTML.

        Examples
        --------
        >>> r = Report("t")
        >>> r.text("κ < 0.6 & worse")
        >>> "<p>κ &lt; 0.6 &amp; worse</p>" in r._repr_html_()
        True
        """
        self.blocks.append(("text", text))

    def code(self, text: str) -> None:
        """Add preformatted text (shown verbatim: an alignment report, a command).

        Parameters
        ----------
        text : str

        Examples
        --------
        >>> r = Report("t")
        >>> r.code("Alignment: 7731 pairs")
        >>> r.to_markdown().splitlines()[2:]
        ['    Alignment: 7731 pairs']
        """
        self.blocks.append(("code", text))

    def table(self, name: str, df: pd.DataFrame, caption: str = "", *, columns: Iterable[str] | None = None,
              digits: int = 4, intervals=None, units: str | None = None) -> None:
        """Add a table (all columns go to CSV and JSON; the pages and LaTeX show :func:`paper_table`).

        Parameters
        ----------
        name : str
            File stem (``tables/<name>.csv``) and key in results.json: letters, digits, ``-``, ``_``,
            ``.``, unique ignoring case, not ``notes`` (:func:`metaeval.output.escape.file_stem`;
            anything else is an InputError).
        df : pandas.DataFrame
        caption : str, optional
        columns : sequence of str, optional
            The columns shown in report.md, report.html and the LaTeX table (then shaped by
            :func:`paper_table`).
        digits : int
            Decimals shown on the pages (the files keep full precision).
        intervals : ResultSet or iterable of Estimate, optional
            The estimates behind the table: its caption's interval note is built from their
            metadata (:func:`interval_note`); without them, from the frame's columns.
        units : str, optional
            What a unit of those estimates is (``"topics"``, ``"query_id clusters"``), for the note.

        Examples
        --------
        >>> import pandas as pd
        >>> r = Report("t")
        >>> r.table("kappa", pd.DataFrame({"statistic": ["cohen_kappa"], "estimate": [0.60334], "n": [202]}),
        ...         "Agreement", columns=["statistic", "estimate"])
        >>> print("\\n".join(r.to_markdown().splitlines()[2:7]))
        *Agreement (`tables/kappa.csv`)*
        <BLANKLINE>
        | statistic | estimate |
        |---|---|
        | Cohen's κ | 0.6033 |
        """
        self._claim("table", name)
        if name in ("notes", "_meta"):
            raise InputError(f"the table name {name!r} is reserved (results.json uses it)", fix="rename the table")
        stored = df.reset_index(drop=True)
        stored.attrs = {**stored.attrs, NOTE_ATTR: interval_note(stored if intervals is None else intervals,
                                                                 units=units)}
        self.tables[name] = stored
        self.blocks.append(("table", name, caption, list(columns) if columns is not None else None, digits))

    def figure(self, name: str, fig: Figure, caption: str = "") -> None:
        """Add a matplotlib figure (saved as PNG, SVG and PDF; the PNG is embedded in the HTML, the PDF is
        included in report.tex through ``figures/<name>.tex``, labelled ``fig:<name>``).

        Parameters
        ----------
        name : str
            File stem (``figures/<name>.png`` ...): letters, digits, ``-``, ``_``, ``.``, unique ignoring
            case (:func:`metaeval.output.escape.file_stem`; anything else is an InputError).
        fig : matplotlib.figure.Figure
        caption : str, optional

        Examples
        --------
        >>> from metaeval import figures
        >>> fig, ax = figures.subplots()
        >>> _ = figures.plot_confusion([[85, 20], [20, 77]], ax=ax)
        >>> r = Report("t")
        >>> r.figure("../x", fig)
        Traceback (most recent call last):
        ...
        metaeval.core.errors.InputError: <input>: the figure name is not a safe file name: '../x'. Expected letters, digits, '-', '_' and '.' only, not starting with '.', 1 to 100 characters, unique ignoring case. Fix: rename it to e.g. 'x'
        >>> r.figure("confusion", fig, "Confusion matrix")
        >>> r.to_markdown().splitlines()[2]
        '![Confusion matrix](figures/confusion.png)'
        """
        self._claim("figure", name)
        self.figures.add(name, fig)
        self.blocks.append(("figure", name, caption))

    def _claim(self, kind: str, name: str) -> None:
        """Check that ``name`` is a safe file stem not yet used (ignoring case) by a table or figure."""
        esc.file_stem(name, what=f"the {kind} name")
        if name.casefold() in self._stems[kind]:
            raise InputError(f"duplicate {kind} name {name!r} (names are compared ignoring case)",
                             fix=f"give every {kind} its own name")
        self._stems[kind].add(name.casefold())

    def _release_figures(self) -> None:
        """Write every figure still in memory to the spool folder's ``figures/`` and release it."""
        from ..output.figures import save

        if self._spool is None:
            return
        for name in [n for n in self.figures if n in self.figures._live]:
            stem = self._spool / "figures" / name
            save(self.figures._live[name], stem)
            self._saved[name] = stem
            self.figures.release(name)

    def _png(self, name: str) -> bytes:
        """The PNG bytes of figure ``name``: the file written for it, else rendered."""
        stem = self._saved.get(name)
        if stem is not None and stem.with_name(stem.name + ".png").is_file():
            return stem.with_name(stem.name + ".png").read_bytes()
        return _png_bytes(self.figures[name])

    def note(self, analysis: str, category: str, message: str, *, times: int = 1) -> None:
        """Record a note for the Notes section: what happened in which analysis.

        Notes are deduplicated on ``(analysis, category, message)`` (the times add up) and keep
        the order in which they were first recorded.

        Parameters
        ----------
        analysis : str
            The analysis (or ``data.<name>`` for a data set) the note belongs to.
        category : str
            A warning's class name (``SmallSampleWarning``...) or ``alignment``.
        message : str
            What happened, with the numbers (line breaks become spaces).
        times : int
            How many times it happened.

        Examples
        --------
        >>> r = Report("t")
        >>> r.note("trec", "SmallSampleWarning", "only 3 clusters")
        >>> r.note("trec", "SmallSampleWarning", "only 3 clusters")
        >>> r.notes.to_dict("records")
        [{'analysis': 'trec', 'category': 'SmallSampleWarning', 'message': 'only 3 clusters', 'times': 2}]
        """
        key = (str(analysis), str(category), " ".join(str(message).split()))
        self._notes[key] = self._notes.get(key, 0) + int(times)

    @property
    def notes(self) -> pd.DataFrame:
        """The notes as a table (columns ``analysis, category, message, times``)."""
        rows = [(*k, n) for k, n in self._notes.items()]
        return pd.DataFrame(rows, columns=list(NOTE_FIELDS)).astype({"times": "int64"})

    # ----------------------------------------------------------------------------------------
    def _pointer(self) -> str:
        n = len(self._notes)
        return f"{n} note{'' if n == 1 else 's'} (warnings, rows left out) at the end, under Notes."

    def to_markdown(self) -> str:
        """The report as Markdown (the text of ``report.md``; figures link to ``figures/<name>.png``).

        Returns
        -------
        str

        Examples
        --------
        >>> r = Report("Example", intro="Two raters.")
        >>> r.note("data.trec", "alignment", "human: 3 of 7734 rows left out of the pairs as unmatched")
        >>> print(r.to_markdown())
        # Example
        <BLANKLINE>
        *1 note (warnings, rows left out) at the end, under [Notes](#notes).*
        <BLANKLINE>
        Two raters.
        <BLANKLINE>
        ## Notes
        <BLANKLINE>
        Warnings raised while the analyses ran, ...
        <BLANKLINE>
        | analysis | category | message | times |
        |---|---|---|---|
        | data.trec | alignment | human: 3 of 7734 rows left out of the pairs as unmatched | 1 |
        <BLANKLINE>
        """
        md = [f"# {esc.markdown(self.title)}", ""]
        if self._notes:
            md += [f"*{self._pointer().replace('under Notes', 'under [Notes](#notes)')}*", ""]
        for block in self.blocks:
            kind = block[0]
            if kind == "section":
                md += [f"## {esc.markdown(block[1])}", ""]
            elif kind == "text":
                md += [esc.markdown(block[1]), ""]
            elif kind == "code":
                # an indented code block: its text is shown as is by every renderer (python-markdown without
                # extensions reads a line of a fenced block that starts with a tag as raw HTML)
                md += [("    " + ln.replace("\t", "    ")).rstrip() for ln in str(block[1]).splitlines()] + [""]
            elif kind == "table":
                _, name, caption, columns, digits = block
                show, note = paper_table(self.tables[name], columns, digits=digits)
                cap = f"{esc.markdown(caption)} (`tables/{name}.csv`)" if caption else f"`tables/{name}.csv`"
                md += [f"*{cap}*" + (f" {esc.markdown(note[0].upper() + note[1:])}" if note else ""), "",
                       _md_table(show, digits), ""]
            elif kind == "figure":
                _, name, caption = block
                md += [f"![{esc.markdown(caption or name)}](figures/{name}.png)", ""]
        if self._notes:
            md += ["## Notes", "", _NOTES_INTRO, "", _md_table(self.notes), ""]
        return "\n".join(md)

    def _html_body(self, pngs: dict[str, bytes]) -> str:
        body = [f"<h1>{esc.html(self.title)}</h1>"]
        if self._notes:
            link = esc.html(self._pointer()).replace("under Notes", 'under <a href="#notes">Notes</a>')
            body.append(f"<p class=\"caption\"><em>{link}</em></p>")
        for block in self.blocks:
            kind = block[0]
            if kind == "section":
                body.append(f"<h2>{esc.html(block[1])}</h2>")
            elif kind == "text":
                body.append(f"<p>{esc.html(block[1])}</p>")
            elif kind == "code":
                body.append(f"<pre>{esc.html(block[1])}</pre>")
            elif kind == "table":
                _, name, caption, columns, digits = block
                show, note = paper_table(self.tables[name], columns, digits=digits)
                body.append(f"<p class=\"caption\">{esc.html(caption or name)} "
                            f"(<code>tables/{esc.html(name)}.csv</code>, <code>.tex</code>)"
                            + (f" {esc.html(note[0].upper() + note[1:])}" if note else "") + "</p>")
                body.append(_html_table(show, digits))
            elif kind == "figure":
                _, name, caption = block
                b64 = base64.b64encode(pngs[name]).decode("ascii")
                body.append(f"<figure><img alt=\"{esc.html(caption or name)}\" src=\"data:image/png;base64,{b64}\">"
                            f"<figcaption>{esc.html(caption)}</figcaption></figure>")
        if self._notes:
            body += ["<h2 id=\"notes\">Notes</h2>", f"<p>{esc.html(_NOTES_INTRO)}</p>", _html_table(self.notes)]
        return "\n".join(body)

    def _figure_tex(self, name: str, caption) -> str:
        """The ``figure`` environment of figure ``name`` (the text of ``figures/<name>.tex``)."""
        cap = getattr(caption, "latex", None)
        cap = cap if isinstance(cap, str) else _breakable(esc.latex(caption or name.replace("_", " ")))
        return "\n".join([r"\begin{figure}[htbp]", r"\centering",
                          rf"\includegraphics[width=\linewidth,height=0.8\textheight,keepaspectratio]{{figures/{name}.pdf}}",
                          rf"\caption{{{cap}}}", rf"\label{{fig:{name}}}", r"\end{figure}", ""])

    def _table_tex(self, name: str, caption, columns, digits) -> str:
        """The LaTeX table of table ``name`` (the text of ``tables/<name>.tex``)."""
        show, note = paper_table(self.tables[name], columns, digits=digits)
        # statistic and method names carry the registry's LaTeX label ($\tau_b$, $\kappa_{\max}$) into the cell
        tex, _ = paper_table(self.tables[name], columns, digits=digits, fmt="latex")
        for i, c in enumerate(show.columns):
            if c in ("statistic", "method"):
                show[c] = pd.Series([_TexLabel(str(v), t) for v, t in zip(show[c], tex.iloc[:, i])], index=show.index,
                                    dtype=object)
        cap = caption or name.replace("_", " ")
        cap = f"{cap.rstrip('. ')}. {note[0].upper()}{note[1:]}" if note else cap
        return to_latex(show, caption=cap, label=f"tab:{name}", digits=digits, csv=f"tables/{name}.csv")

    def to_latex(self, tables: str | os.PathLike | None = None, *, figures: str | os.PathLike | None = None) -> str:
        """The report as a LaTeX document (the text of ``report.tex``): sections, paragraphs, every table and figure.

        Each table is a file ``tables/<name>.tex`` and each figure a file ``figures/<name>.tex`` (a
        ``figure`` environment including ``figures/<name>.pdf`` with its caption and the label
        ``fig:<name>``); the document ``\\input``\\ s them in the report's order, so a paper can
        ``\\input`` any one of them (its paths are relative to the report folder). Tables are in the
        paper's shape (:func:`paper_table`: every column, the study's caption
        followed by the resampling note) and fit the page (:func:`to_latex`: long tables as
        ``longtable``, more than :data:`MAX_LATEX_ROWS` rows cut to the first ones with a pointer to
        the CSV, wide ones smaller, in landscape, or split into parts that repeat the key column). Preformatted blocks (:meth:`code`) are left to
        report.md and report.html; the notes are a last, unnumbered section. The document needs the
        packages :data:`LATEX_PACKAGES` (all in Debian's ``texlive-latex-recommended``) and compiles
        with ``pdflatex report.tex`` (run it twice for longtable's column widths).

        Parameters
        ----------
        tables : str or Path, optional
            When given, write ``<name>.tex`` for every table into this folder (:meth:`write` passes
            ``tables/``); the document inputs them from ``tables/``.
        figures : str or Path, optional
            When given, write ``<name>.tex`` for every figure into this folder (:meth:`write` passes
            ``figures/``, beside the figure's PDF).

        Returns
        -------
        str

        Examples
        --------
        >>> import pandas as pd
        >>> r = Report("Judge_1 & co")
        >>> r.section("Agreement")
        >>> r.table("kappa", pd.DataFrame({"statistic": ["cohen_kappa"], "estimate": [0.6033]}), "Agreement")
        >>> tex = r.to_latex()
        >>> [ln for ln in tex.splitlines() if ln.startswith(("\\\\title", "\\\\section", "\\\\input"))]
        ['\\\\title{Judge\\\\_1 \\\\& co}', '\\\\section{Agreement}', '\\\\input{tables/kappa.tex}']
        """
        lines = [r"% metaeval report. Every table is tables/NAME.tex and every figure figures/NAME.tex: \input",
                 r"% any of them into a document whose preamble loads " + ", ".join(LATEX_PACKAGES) + ".",
                 r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
                 r"\usepackage[margin=2cm]{geometry}", *(rf"\usepackage{{{p}}}" for p in LATEX_PACKAGES),
                 r"\setlength{\emergencystretch}{3em}",
                 rf"\title{{{esc.latex(self.title)}}}", r"\date{}", r"\begin{document}", r"\maketitle", ""]
        floats = 0      # floats since the last \clearpage: LaTeX holds at most 18 unplaced ones
        for block in self.blocks:
            kind = block[0]
            if kind == "section":
                if floats >= 6:
                    lines += [r"\clearpage", ""]
                    floats = 0
                lines += [rf"\section{{{esc.latex(block[1])}}}", ""]
            elif kind == "text":
                lines += [_breakable(esc.latex(block[1])), ""]
            elif kind == "table":
                _, name, caption, columns, digits = block
                if tables is not None:
                    Path(tables, f"{name}.tex").write_text(self._table_tex(name, caption, columns, digits),
                                                           encoding="utf-8")
                lines += [rf"\input{{tables/{name}.tex}}", ""]
                floats += 1
            elif kind == "figure":
                _, name, caption = block
                if figures is not None:
                    Path(figures, f"{name}.tex").write_text(self._figure_tex(name, caption), encoding="utf-8")
                lines += [rf"\input{{figures/{name}.tex}}", ""]
                floats += 1
            if floats >= 12:
                lines += [r"\clearpage", ""]
                floats = 0
        if self._notes:
            lines += [r"\clearpage", r"\section*{Notes}", "", esc.latex(_NOTES_INTRO), "",
                      to_latex(self.notes, caption="Notes: warnings and rows left out, by analysis",
                               label="tab:notes"), ""]
        lines += [r"\end{document}", ""]
        return "\n".join(lines)

    def to_html(self) -> str:
        """The report as one self-contained HTML page (the text of ``report.html``).

        Figures are embedded as PNG data URIs (the bytes :func:`metaeval.figures.save` writes).

        Returns
        -------
        str

        Examples
        --------
        >>> page = Report("Example").to_html()
        >>> page.startswith("<!DOCTYPE html>") and "<h1>Example</h1>" in page
        True
        """
        return self._page({name: self._png(name) for name in self.figures})

    def _page(self, pngs: dict[str, bytes]) -> str:
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{esc.html(self.title)}</title><style>{_CSS}</style><script>{_JS}</script></head>"
                f"<body>\n{self._html_body(pngs)}\n</body></html>\n")

    def _repr_html_(self) -> str:
        """Jupyter: the HTML report's body, its style scoped to ``div.metaeval-report``."""
        pngs = {name: self._png(name) for name in self.figures}
        return (f"<div class=\"metaeval-report\"><style>{_scoped_css('div.metaeval-report')}</style>\n"
                f"{self._html_body(pngs)}\n</div>")

    def write(self, out: str | os.PathLike) -> Path:
        """Write the report folder: report.md, report.html, report.tex, results.json, tables/ and figures/.

        The folder is written as a transaction (:func:`metaeval.output.folder.output_folder`): into a
        temporary folder beside ``out``, renamed to ``out`` when every file is complete (a previous
        report there is replaced as a whole); a second run writing the same ``out`` at the same time
        is refused, and an interrupted run leaves the previous report as it was.

        Parameters
        ----------
        out : str or Path
            The folder (created with its parents). It must be new, or hold only a previous report.

        Returns
        -------
        Path
            ``out``.

        Raises
        ------
        InputError
            When ``out`` is an existing file or holds other files, or another run is writing it.

        Examples
        --------
        >>> import json, tempfile
        >>> r = Report("Example")
        >>> r.note("a", "UndefinedStatisticWarning", "cohen_kappa is undefined")
        >>> out = r.write(tempfile.mkdtemp())
        >>> json.loads((out / "results.json").read_text())["notes"][0]["category"]
        'UndefinedStatisticWarning'
        """
        from .folder import output_folder

        with output_folder(out) as tmp:
            self._write_files(tmp)
        self._moved(tmp, Path(out))
        return Path(out)

    def _moved(self, tmp: Path, out: Path) -> None:
        """The files written into ``tmp`` are now in ``out``."""
        self._saved = {n: Path(out) / stem.relative_to(tmp) if stem.is_relative_to(tmp) else stem
                       for n, stem in self._saved.items()}
        if self._spool == tmp:
            self._spool = None

    def _write_files(self, out: Path) -> None:
        """Write every file of the report into the (new, empty) folder ``out``."""
        from ..output.figures import save

        (out / "tables").mkdir(parents=True, exist_ok=True)
        for name, df in self.tables.items():
            esc.csv_frame(df).to_csv(out / "tables" / f"{name}.csv", index=False, float_format="%.10g",
                                     lineterminator="\n")    # (formulas and control characters neutralised)
        if len(self.figures):
            (out / "figures").mkdir(parents=True, exist_ok=True)
        (out / "report.tex").write_text(self.to_latex(out / "tables", figures=out / "figures"), encoding="utf-8")
        pngs = {}
        if len(self.figures):
            for name in self.figures:
                stem = out / "figures" / name
                if self._saved.get(name) != stem:
                    prev = self._saved.get(name)
                    if prev is not None and all(prev.with_name(f"{name}.{e}").is_file() for e in ("pdf", "svg", "png")):
                        for e in ("pdf", "svg", "png"):
                            shutil.copyfile(prev.with_name(f"{name}.{e}"), stem.with_name(f"{name}.{e}"))
                    else:
                        save(self.figures[name], stem)
                    self._saved[name] = stem
                pngs[name] = stem.with_name(f"{name}.png").read_bytes()
        (out / "report.md").write_text(self.to_markdown(), encoding="utf-8")
        (out / "report.html").write_text(self._page(pngs), encoding="utf-8")
        results = {name: _jsonable(df) for name, df in self.tables.items()}
        results["notes"] = [dict(zip(NOTE_FIELDS, (*k, n))) for k, n in self._notes.items()]
        results["_meta"] = {**self.meta, "versions": versions(), "tables": sorted(self.tables),
                            "figures": sorted(self.figures)}
        (out / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True, allow_nan=True) + "\n",
                                          encoding="utf-8")
