"""Result objects shared by every statistic: an estimate, its interval, and how it was obtained.

:class:`Estimate` is one statistic with its interval; :class:`ResultSet` is several estimates, each
with the keys that identify it (``class``, ``threshold``, ``group`` ...). The keys travel with the
estimates: slicing, boolean masks and :meth:`ResultSet.filter` return result sets that keep them,
lookups by key are explicit (:meth:`ResultSet.get`) and an ambiguous lookup raises instead of
returning the first match. Every object renders in a terminal (``str``), in Jupyter
(``_repr_html_``) and as one tidy frame (``to_frame()``, the package's fixed columns); numbers are
rounded only when rendered.
"""

from __future__ import annotations

import html
import keyword
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

__all__ = ["ConfidenceInterval", "Estimate", "ResultSet", "FRAME_COLUMNS"]

#: The fixed column schema of ``to_frame()`` across the package (group columns come first).
FRAME_COLUMNS = ["statistic", "estimate", "ci_low", "ci_high", "confidence_level", "ci_method", "se",
                 "bias", "pvalue", "n", "unit", "n_units", "n_resamples", "seed"]

#: How many distinct values of a key an error message lists before it says "…".
_MAX_LISTED = 12


# --------------------------------------------------------------------------------------------
# rendering helpers (rounding happens here and nowhere else)
# --------------------------------------------------------------------------------------------

def _is_nan(x) -> bool:
    try:
        return x is None or bool(np.isnan(x))
    except (TypeError, ValueError):
        return False


def _fmt(x, digits: int = 4) -> str:
    """A number as text: fixed ``digits`` decimals, or significant digits when tiny or huge."""
    if x is None:
        return "nan"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v != 0 and (abs(v) >= 1e6 or abs(v) < 10.0 ** -digits):
        return f"{v:.{digits}g}"
    return f"{v:.{digits}f}"


def _fmt_p(p, bound=None) -> str:
    """A p-value as text; ``bound`` (a bootstrap's resolution 1/B, for p = 0) prints as ``< bound``."""
    if _is_nan(p):
        return ""
    if bound is not None and float(p) == 0.0:
        return f"< {float(bound):.4g}"
    return f"{float(p):.4g}"


def _p_bound(e):
    """The bound a p-value of 0 is below: ``extra["pvalue_bound"]`` (set by the engine), else 1/B
    for an estimate with B bootstrap resamples (a p-value attached outside the engine), else None."""
    bound = e.extra.get("pvalue_bound")
    if bound is None and not _is_nan(e.pvalue) and float(e.pvalue) == 0.0 and (e.n_resamples or 0) > 0:
        bound = 1.0 / e.n_resamples
    return bound


def _p_text(e) -> str:
    """``p = 0.0312`` or ``p < 0.0005`` (a bootstrap p-value of 0: below the resolution 1/B)."""
    t = _fmt_p(e.pvalue, _p_bound(e))
    return t if t.startswith("<") else f"= {t}"


def _clipped_text(e) -> str:
    """Which interval ends were clipped at the statistic's range (``extra["clipped_low"/"clipped_high"]``)."""
    lo, hi = bool(e.extra.get("clipped_low", False)), bool(e.extra.get("clipped_high", False))
    if lo and hi:
        return "both ends clipped at the bounds"
    if lo or hi:
        return f"{'lower' if lo else 'upper'} end clipped at the bound"
    return ""


def _key_text(v) -> str:
    """A key value as text (``2.0`` -> ``2``, ``"a"`` -> ``a``)."""
    if isinstance(v, (float, np.floating)) and not isinstance(v, bool):
        return f"{float(v):g}"
    if isinstance(v, np.generic):
        return str(v.item())
    return str(v)


def _keys_text(k: Mapping) -> str:
    return ", ".join(f"{a}={_key_text(b)}" for a, b in k.items())


def _html_table(columns: list[str], rows: list[list[str]], *, numeric: Iterable[str] = (),
                caption: str | None = None, note: str | None = None) -> str:
    """A plain HTML table from already formatted cells (escaped here); deterministic output."""
    numeric = set(numeric)
    right = ' style="text-align:right"'
    out = ['<table class="metaeval">']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th{right if c in numeric else ''}>{html.escape(c)}</th>"
                                       for c in columns) + "</tr></thead>")
    out.append("<tbody>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td{right if c in numeric else ''}>{html.escape(v)}</td>"
                                    for c, v in zip(columns, r)) + "</tr>")
    out.append("</tbody>")
    if note:
        out.append(f'<tfoot><tr><td colspan="{len(columns)}">{html.escape(note)}</td></tr></tfoot>')
    out.append("</table>")
    return "\n".join(out)


#: The columns of the HTML rendering of estimates (key columns go after ``statistic``).
_HTML_COLUMNS = ["estimate", "interval", "method", "p-value", "n", "unit"]
_HTML_NUMERIC = ("estimate", "p-value", "n")


def _no_variation_text(e) -> str:
    """``no interval (the data form a single cluster)`` for a bootstrap with nothing to resample
    (``extra["no_variation"]``, set by the engine), else ""."""
    why = e.extra.get("no_variation")
    return f"no interval ({str(why).split(', so')[0]})" if why else ""


def _html_cells(e: Estimate) -> dict[str, str]:
    if e.ci.method == "none":
        interval = "no interval"
    elif _no_variation_text(e):
        interval = _no_variation_text(e)
    else:
        interval = f"{e.ci.level:.0%} [{_fmt(e.ci.low)}, {_fmt(e.ci.high)}]"
        clipped = _clipped_text(e)
        if clipped:
            interval += f" ({clipped})"
    unit = "—" if e.unit == "none" else f"{e.unit} ({e.n_units})"
    return {"statistic": e.statistic, "estimate": _fmt(e.estimate), "interval": interval,
            "method": e.ci.method, "p-value": _fmt_p(e.pvalue, _p_bound(e)), "n": str(e.n),
            "unit": unit}


def _estimates_html(estimates: list[Estimate], keys: list[dict], key_cols: list[str], caption: str | None,
                    note: str | None = None) -> str:
    has_p = any(not _is_nan(e.pvalue) for e in estimates)
    cols = ["statistic", *key_cols] + [c for c in _HTML_COLUMNS if has_p or c != "p-value"]
    rows = []
    for e, k in zip(estimates, keys):
        cells = _html_cells(e)
        cells.update({c: (_key_text(k[c]) if c in k else "") for c in key_cols})
        rows.append([cells[c] for c in cols])
    return _html_table(cols, rows, numeric=_HTML_NUMERIC, caption=caption, note=note)


# --------------------------------------------------------------------------------------------
# Estimate
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval: ``low``, ``high``, the confidence ``level`` and the ``method``.

    Attributes
    ----------
    low, high : float
        The ends (NaN for a point estimate without an interval).
    level : float
        Confidence level, e.g. 0.95.
    method : str
        How the interval was obtained: ``"bca"``, ``"percentile"``, ``"basic"``, ``"analytic"``,
        ``"debiased"`` ..., or ``"none"`` for a point estimate only.

    Examples
    --------
    >>> ci = ConfidenceInterval(0.41, 0.62, 0.95, "bca")
    >>> low, high = ci
    >>> low, high
    (0.41, 0.62)
    """

    low: float
    high: float
    level: float
    method: str

    def __iter__(self) -> Iterator[float]:
        return iter((self.low, self.high))

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the closed interval [low, high].

        Parameters
        ----------
        value : float
            The value to check (e.g. a population value in a coverage simulation).

        Returns
        -------
        bool
            False when either end is NaN.

        Examples
        --------
        >>> ConfidenceInterval(0.41, 0.62, 0.95, "bca").contains(0.5)
        True
        >>> ConfidenceInterval(float("nan"), float("nan"), 0.95, "none").contains(0.5)
        False
        """
        return bool(self.low <= value <= self.high)

    @property
    def width(self) -> float:
        """``high − low`` (NaN without an interval).

        Examples
        --------
        >>> round(ConfidenceInterval(0.41, 0.62, 0.95, "bca").width, 2)
        0.21
        """
        return self.high - self.low


@dataclass(frozen=True)
class Estimate:
    """One statistic with its interval.

    Attributes
    ----------
    statistic : str
        What was computed, e.g. ``"cohen_kappa"`` or ``"precision"`` (the keys that tell several
        estimates of one statistic apart, such as the class, live in the :class:`ResultSet`).
    estimate : float
        The point estimate.
    ci : ConfidenceInterval
        The interval; ``ci.method == "none"`` (with NaN ends) for a point estimate only.
    se : float
        Standard error (bootstrap SD of the replicates, or the analytic SE).
    bias : float
        Bootstrap bias: mean of the replicates minus the estimate (NaN for analytic intervals).
    pvalue : float or None
        Where a test applies (e.g. the z-test of kappa = 0, or a paired difference = 0).
    n : int
        Number of items (pairs, judgments) the estimate is based on.
    unit : str
        The resampling unit: ``"items"``, ``"clusters"`` or ``"strata"`` (``"none"`` for analytic).
    n_units : int
        Number of resampled units (items, or clusters).
    n_resamples : int
        Number of bootstrap resamples (0 without resampling).
    seed : int or None
        The seed that reproduces the replicates.
    replicates : numpy.ndarray or None
        The bootstrap distribution (kept for plots).
    extra : dict
        Statistic-specific figures (e.g. ``se0`` for the H0 standard error, ``z0`` and ``a`` for BCa).
        Two are printed: ``pvalue_bound`` (a bootstrap p-value of 0 is below 1/B: printed
        ``p < 1/B``; without the entry, a p-value of 0 on an estimate with B resamples prints
        the same) and ``clipped_low``/``clipped_high`` (an interval end clipped at the
        statistic's range, e.g. a correlation at 1).

    Examples
    --------
    >>> e = Estimate("cohen_kappa", 0.5321, ConfidenceInterval(0.41, 0.62, 0.95, "bca"), n=202,
    ...              n_units=202, n_resamples=2000)
    >>> print(e)
    cohen_kappa = 0.5321, 95% bca CI [0.4100, 0.6200] (n = 202, items: 202)
    >>> float(e)
    0.5321

    A point estimate without an interval says so:

    >>> print(Estimate("cohen_kappa", 0.5321, ConfidenceInterval(float("nan"), float("nan"), 0.95, "none"),
    ...                n=202))
    cohen_kappa = 0.5321, no interval (point estimate only; n = 202)

    A bootstrap p-value of 0 is below the resolution 1/B, and a clipped end says so:

    >>> print(Estimate("kendall_b", 0.93, ConfidenceInterval(0.85, 1.0, 0.95, "percentile"), pvalue=0.0, n=30,
    ...                unit="clusters", n_units=40, n_resamples=2000,
    ...                extra={"pvalue_bound": 1 / 2000, "clipped_high": True}))
    kendall_b = 0.9300, 95% percentile CI [0.8500, 1.0000], upper end clipped at the bound, p < 0.0005 (n = 30, clusters: 40)
    """

    statistic: str
    estimate: float
    ci: ConfidenceInterval
    se: float = float("nan")
    bias: float = float("nan")
    pvalue: float | None = None
    n: int = 0
    unit: str = "items"
    n_units: int = 0
    n_resamples: int = 0
    seed: int | None = None
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def confidence_level(self) -> float:
        """The interval's confidence level (``ci.level``).

        Examples
        --------
        >>> Estimate("x", 1.0, ConfidenceInterval(0.5, 1.5, 0.9, "percentile")).confidence_level
        0.9
        """
        return self.ci.level

    @property
    def method(self) -> str:
        """The interval method (``bca``, ``percentile``, ``basic``, ``analytic`` ... or ``none``).

        Examples
        --------
        >>> Estimate("x", 1.0, ConfidenceInterval(0.5, 1.5, 0.9, "percentile")).method
        'percentile'
        """
        return self.ci.method

    def __float__(self) -> float:
        return float(self.estimate)

    def row(self) -> dict:
        """The estimate as a dict with the keys of :data:`FRAME_COLUMNS` (no rounding).

        Returns
        -------
        dict
            ``statistic, estimate, ci_low, ci_high, confidence_level, ci_method, se, bias, pvalue,
            n, unit, n_units, n_resamples, seed``; a missing p-value is NaN.

        Examples
        --------
        >>> e = Estimate("cohen_kappa", 0.5321, ConfidenceInterval(0.41, 0.62, 0.95, "bca"), n=202)
        >>> r = e.row()
        >>> r["statistic"], r["ci_low"], r["ci_method"], r["n"]
        ('cohen_kappa', 0.41, 'bca', 202)
        """
        return {"statistic": self.statistic, "estimate": self.estimate, "ci_low": self.ci.low,
                "ci_high": self.ci.high, "confidence_level": self.ci.level, "ci_method": self.ci.method,
                "se": self.se, "bias": self.bias, "pvalue": np.nan if self.pvalue is None else self.pvalue,
                "n": self.n, "unit": self.unit, "n_units": self.n_units, "n_resamples": self.n_resamples,
                "seed": self.seed}

    def to_frame(self) -> pd.DataFrame:
        """One tidy row with the package's fixed columns (:data:`FRAME_COLUMNS`).

        Returns
        -------
        pandas.DataFrame
            One row; concatenates with the frame of any other result of the package.

        Examples
        --------
        >>> e = Estimate("cohen_kappa", 0.5321, ConfidenceInterval(0.41, 0.62, 0.95, "bca"), n=202)
        >>> e.to_frame()[["statistic", "estimate", "ci_low", "ci_high"]]
             statistic  estimate  ci_low  ci_high
        0  cohen_kappa    0.5321    0.41     0.62
        """
        return pd.DataFrame([self.row()], columns=FRAME_COLUMNS)

    def __str__(self) -> str:
        p = "" if _is_nan(self.pvalue) else f", p {_p_text(self)}"
        if self.ci.method == "none":
            return f"{self.statistic} = {_fmt(self.estimate)}, no interval{p} (point estimate only; n = {self.n})"
        units = "" if self.unit == "none" else f", {self.unit}: {self.n_units}"
        if _no_variation_text(self):
            return f"{self.statistic} = {_fmt(self.estimate)}, {_no_variation_text(self)}{p} (n = {self.n}{units})"
        clipped = _clipped_text(self)
        clipped = f", {clipped}" if clipped else ""
        return (f"{self.statistic} = {_fmt(self.estimate)}, {self.ci.level:.0%} {self.ci.method} CI "
                f"[{_fmt(self.ci.low)}, {_fmt(self.ci.high)}]{clipped}{p} (n = {self.n}{units})")

    def _repr_html_(self) -> str:
        return _estimates_html([self], [{}], [], caption=None)


# --------------------------------------------------------------------------------------------
# ResultSet
# --------------------------------------------------------------------------------------------

def _check_estimate(e) -> Estimate:
    if not isinstance(e, Estimate):
        raise TypeError(f"a ResultSet holds Estimate objects, got {type(e).__name__}")
    return e


def _value_matches(have, want) -> bool:
    """Whether a key value ``have`` matches the requested ``want``.

    ``want`` may be a list or set (any of its values). A number matches its text form, so
    ``class=2`` finds the class labelled ``"2"`` (class labels are text).
    """
    if isinstance(want, (list, set, frozenset)):
        return any(_value_matches(have, w) for w in want)
    try:
        if bool(have == want):
            return True
    except (TypeError, ValueError):
        pass
    if isinstance(have, str) != isinstance(want, str):
        return _key_text(have) == _key_text(want)
    return False


def _call_hint(statistic, cols: list[str]) -> str:
    """``rs.get(statistic='x', a=..., **{'class': ...})``."""
    plain = [c for c in cols if c.isidentifier() and not keyword.iskeyword(c) and c != "statistic"]
    special = [c for c in cols if c not in plain]
    args = [f"statistic={statistic!r}"] if statistic is not None else []
    args += [f"{c}=..." for c in plain]
    if special:
        args.append("**{" + ", ".join(f"{c!r}: ..." for c in special) + "}")
    return f"rs.get({', '.join(args)})"


def _values_text(values: list) -> str:
    distinct = []
    for v in values:
        t = _key_text(v)
        if t not in distinct:
            distinct.append(t)
    shown = distinct[:_MAX_LISTED]
    more = f", … ({len(distinct)} values)" if len(distinct) > _MAX_LISTED else ""
    return ", ".join(shown) + more


def _rebuild(cls, items):
    new = cls.__new__(cls)
    list.extend(new, items)
    return new


class ResultSet(list):
    """Several estimates, each with the keys that identify it (class, threshold, group ...).

    A result set is a sequence of :class:`Estimate` objects (``rs[0]``, ``len(rs)``, ``for e in rs``
    work as for a list) whose keys travel with them: slices, boolean masks and :meth:`filter` return
    result sets with their keys, ``str()`` prints the keys on every line, and ``to_frame()`` is one
    tidy frame (key columns first, then :data:`FRAME_COLUMNS`).

    Lookups are explicit: :meth:`get` returns the one estimate that matches a statistic name and key
    values and raises a ``KeyError`` naming the candidates otherwise; ``rs["name"]`` works only when
    exactly one estimate has that statistic name.

    Parameters
    ----------
    estimates : iterable of Estimate, optional
        The estimates; a ResultSet passed here brings its keys along (unless ``keys`` is given).
    keys : iterable of dict, optional
        One dict of identifying values per estimate (default: no keys).
    name : str, optional
        What produced the set (e.g. ``"per_class"``).

    Attributes
    ----------
    keys : list of dict
        The keys of each estimate, in order (kept for code that zips ``rs`` with ``rs.keys``).
    name : str
        What produced the set.

    Notes
    -----
    The estimates are stored as the list's items and their keys as a parallel list of dicts (not as
    a pandas frame): key values keep their exact types (a frame would turn the integer classes of
    a partly keyed set into floats), appending in a loop stays cheap, and code that treats a result
    set as a list keeps working. The tidy frame is :meth:`to_frame`. An estimate appended with
    ``append`` (no keys) has no keys until some are appended to ``rs.keys`` for it.

    Examples
    --------
    >>> ci = ConfidenceInterval(0.7, 0.9, 0.95, "percentile")
    >>> rs = ResultSet(name="per_class")
    >>> for c, (p, r) in enumerate([(0.81, 0.75), (0.64, 0.70), (0.90, 0.88)]):
    ...     rs.append_with(Estimate("precision", p, ci, n=100, n_units=100), **{"class": c})
    ...     rs.append_with(Estimate("recall", r, ci, n=100, n_units=100), **{"class": c})
    >>> len(rs), rs.key_columns
    (6, ['class'])
    >>> rs.get(statistic="precision", **{"class": 2}).estimate
    0.9
    >>> print(rs[:2])
    [class=0] precision = 0.8100, 95% percentile CI [0.7000, 0.9000] (n = 100, items: 100)
    [class=0] recall = 0.7500, 95% percentile CI [0.7000, 0.9000] (n = 100, items: 100)
    >>> rs.filter(statistic="recall").keys
    [{'class': 0}, {'class': 1}, {'class': 2}]
    >>> rs["precision"]
    Traceback (most recent call last):
    ...
    KeyError: "3 estimates named 'precision': class=0, 1, 2; use rs.get(statistic='precision', **{'class': ...})"
    """

    #: Per-estimate list attributes of subclasses (e.g. PairwiseResult's ``extras``) that slicing,
    #: filtering and the list operations keep aligned with the estimates, when present.
    _row_attrs: ClassVar[tuple[str, ...]] = ("extras",)
    #: Rows shown by ``_repr_html_`` before the table is cut.
    _html_max_rows: ClassVar[int] = 200

    def __init__(self, estimates: Iterable[Estimate] = (), keys: Iterable[Mapping] | None = None,
                 name: str = ""):
        if keys is None and isinstance(estimates, ResultSet):
            keys = estimates._padded_keys()
        items = [_check_estimate(e) for e in estimates]
        super().__init__(items)
        if keys is None:
            self._keys = [{} for _ in items]
        else:
            self._keys = [dict(k) for k in keys]
            if len(self._keys) != len(items):
                raise ValueError(f"ResultSet: {len(items)} estimates but {len(self._keys)} keys")
        self.name = name

    # ---- keys ------------------------------------------------------------------------------

    @property
    def keys(self) -> list[dict]:
        """The keys of each estimate (a list of dicts, parallel to the estimates).

        Examples
        --------
        >>> ci = ConfidenceInterval(0.7, 0.9, 0.95, "percentile")
        >>> ResultSet([Estimate("f1", 0.8, ci), Estimate("f1", 0.6, ci)], keys=[{"class": "a"}, {"class": "b"}]).keys
        [{'class': 'a'}, {'class': 'b'}]
        """
        return self._keys

    @keys.setter
    def keys(self, value: Iterable[Mapping]) -> None:
        self._keys = [dict(k) for k in value]

    @property
    def key_columns(self) -> list[str]:
        """The names of the keys, in order of first appearance.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.7, 0.9, 0.95, "percentile")
        >>> rs = ResultSet(name="thresholds")
        >>> rs.append_with(Estimate("cohen_kappa", 0.6, ci), threshold=1, split="0|123")
        >>> rs.key_columns
        ['threshold', 'split']
        """
        cols: list[str] = []
        for k in self._keys[:len(self)]:
            cols += [c for c in k if c not in cols]
        return cols

    def _padded(self, lst: list) -> list:
        """``lst`` cut or padded with empty dicts to one entry per estimate (a new list)."""
        n = len(self)
        return list(lst[:n]) + [{} for _ in range(n - len(lst))]

    def _padded_keys(self) -> list[dict]:
        return self._padded(self._keys)

    def _row_lists(self) -> dict[str, list]:
        return {a: getattr(self, a) for a in self._row_attrs if isinstance(self.__dict__.get(a), list)}

    def _sync(self) -> None:
        """Pad the keys (and per-row lists) of estimates appended without keys, before a change."""
        n = len(self)
        for lst in [self._keys, *self._row_lists().values()]:
            if len(lst) < n:
                lst.extend({} for _ in range(n - len(lst)))

    def _take(self, indices) -> ResultSet:
        """A result set of the same class with the estimates at ``indices`` and their keys."""
        idx = list(indices)
        cls = type(self)
        new = cls.__new__(cls)
        list.extend(new, (list.__getitem__(self, i) for i in idx))
        new.__dict__.update(self.__dict__)
        keys = self._padded_keys()
        new._keys = [dict(keys[i]) for i in idx]
        for a, lst in self._row_lists().items():
            lst = self._padded(lst)
            setattr(new, a, [dict(lst[i]) if isinstance(lst[i], dict) else lst[i] for i in idx])
        return new

    def _rows(self) -> Iterator[tuple[Estimate, dict]]:
        return zip(list.__iter__(self), self._padded_keys())

    # ---- lookups ---------------------------------------------------------------------------

    def _matches(self, statistic, keys: Mapping) -> list[int]:
        known = set(self.key_columns)
        unknown = [c for c in keys if c not in known]
        if unknown:
            raise KeyError(f"no key named {', '.join(map(repr, unknown))} in this {type(self).__name__}"
                           f" (its keys: {', '.join(self.key_columns) or 'none'})")
        out = []
        for i, (e, k) in enumerate(self._rows()):
            if statistic is not None and not _value_matches(e.statistic, statistic):
                continue
            if all(c in k and _value_matches(k[c], v) for c, v in keys.items()):
                out.append(i)
        return out

    def _distinguishing(self, idx: list[int]) -> list[str]:
        """The fewest key columns (in key order, greedily) that tell the estimates at ``idx`` apart."""
        keys = self._padded_keys()
        cols = [c for c in self.key_columns if len({_key_text(keys[i].get(c, "")) for i in idx}) > 1]
        chosen: list[str] = []
        for c in cols:
            chosen.append(c)
            if len({tuple(_key_text(keys[i].get(d, "")) for d in chosen) for i in idx}) == len(idx):
                break
        return chosen

    def _ambiguous(self, statistic, query: Mapping, idx: list[int]) -> KeyError:
        keys = self._padded_keys()
        cols = self._distinguishing(idx)
        what = (f"{len(idx)} estimates named {statistic!r}" if statistic is not None and not query
                else f"{len(idx)} estimates match " + ", ".join(
                    ([f"statistic={statistic!r}"] if statistic is not None else [])
                    + [f"{c}={v!r}" for c, v in query.items()]))
        if not cols:
            stats = [list.__getitem__(self, i).statistic for i in idx]
            if len(set(stats)) > 1:
                return KeyError(f"{what}: statistics {_values_text(stats)}; give statistic=")
            return KeyError(f"{what} with the same keys ({_keys_text(keys[idx[0]]) or 'none'}); "
                            f"select by position: rs[{idx[0]}] … rs[{idx[-1]}]")
        listed = "; ".join(f"{c}={_values_text([keys[i].get(c, '') for i in idx])}" for c in cols)
        hint = _call_hint(statistic, [*query, *[c for c in cols if c not in query]])
        return KeyError(f"{what}: {listed}; use {hint}")

    def _none_found(self, statistic, query: Mapping) -> KeyError:
        asked = ", ".join(([f"statistic={statistic!r}"] if statistic is not None else [])
                          + [f"{c}={v!r}" for c, v in query.items()])
        keys = self._padded_keys()
        avail = [f"statistic={_values_text([e.statistic for e in list.__iter__(self)])}"]
        avail += [f"{c}={_values_text([k[c] for k in keys if c in k])}" for c in self.key_columns]
        where = f" in {self.name!r}" if self.name else ""
        return KeyError(f"no estimate with {asked or 'these keys'}{where} ({len(self)} estimates); available: "
                        + "; ".join(avail))

    def get(self, statistic: str | None = None, **keys: Any) -> Estimate:
        """The one estimate with this statistic name and these key values.

        Parameters
        ----------
        statistic : str, optional
            The statistic name (``Estimate.statistic``); any when omitted.
        **keys
            Key values, e.g. ``threshold=2`` or ``**{"class": 2}`` (``class`` is a Python keyword).
            A list or set means any of its values; a number matches its text form (class labels
            are text, so ``class=2`` finds the class ``"2"``).

        Returns
        -------
        Estimate

        Raises
        ------
        KeyError
            When several estimates match (the message lists the keys that tell them apart), when
            none does (the message lists the available keys), or for a key name the set lacks.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.7, 0.9, 0.95, "percentile")
        >>> rs = ResultSet([Estimate("precision", 0.8, ci), Estimate("precision", 0.6, ci)],
        ...                keys=[{"class": "0"}, {"class": "1"}])
        >>> rs.get(statistic="precision", **{"class": 1}).estimate
        0.6
        >>> rs.get(statistic="precision")
        Traceback (most recent call last):
        ...
        KeyError: "2 estimates named 'precision': class=0, 1; use rs.get(statistic='precision', **{'class': ...})"
        >>> rs.get(statistic="recall")
        Traceback (most recent call last):
        ...
        KeyError: "no estimate with statistic='recall' (2 estimates); available: statistic=precision; class=0, 1"
        """
        idx = self._matches(statistic, keys)
        if len(idx) == 1:
            return list.__getitem__(self, idx[0])
        if not idx:
            raise self._none_found(statistic, keys)
        raise self._ambiguous(statistic, keys, idx)

    def filter(self, statistic: str | None = None, **keys: Any) -> ResultSet:
        """The estimates with this statistic name and these key values, with their keys.

        Parameters
        ----------
        statistic : str or list of str, optional
            The statistic name(s); all when omitted.
        **keys
            Key values to match, as in :meth:`get` (a list or set means any of its values).

        Returns
        -------
        ResultSet
            Of the same class, possibly empty; the keys and the ``name`` come along.

        Raises
        ------
        KeyError
            For a key name that no estimate has (a misspelt key would otherwise match nothing).

        Examples
        --------
        >>> ci = ConfidenceInterval(0.7, 0.9, 0.95, "percentile")
        >>> rs = ResultSet(name="thresholds")
        >>> for t in (1, 2, 3):
        ...     rs.append_with(Estimate("cohen_kappa", 0.5 + t / 10, ci), threshold=t)
        ...     rs.append_with(Estimate("pabak", 0.6 + t / 10, ci), threshold=t)
        >>> sub = rs.filter(threshold=[2, 3])
        >>> [(e.statistic, k["threshold"]) for e, k in zip(sub, sub.keys)]
        [('cohen_kappa', 2), ('pabak', 2), ('cohen_kappa', 3), ('pabak', 3)]
        >>> len(rs.filter(statistic="pabak")), rs.filter(statistic="pabak").name
        (3, 'thresholds')
        """
        return self._take(self._matches(statistic, keys))

    # ---- indexing --------------------------------------------------------------------------

    def __getitem__(self, item):
        if isinstance(item, str):
            idx = self._matches(item, {})
            if len(idx) == 1:
                return list.__getitem__(self, idx[0])
            if not idx:
                raise self._none_found(item, {})
            raise self._ambiguous(item, {}, idx)
        if isinstance(item, slice):
            return self._take(range(len(self))[item])
        if isinstance(item, (int, np.integer)):
            return list.__getitem__(self, item)
        if isinstance(item, (tuple, Mapping)) or np.ndim(item) != 1:
            raise TypeError(f"{type(self).__name__} indices are positions, slices, boolean masks, position lists "
                            f"or a statistic name, not {type(item).__name__}; use rs.get(statistic=..., key=...)")
        arr = np.asarray(item.to_numpy() if isinstance(item, pd.Series) else item)
        if arr.dtype == bool:
            if len(arr) != len(self):
                raise IndexError(f"boolean mask of length {len(arr)} for {len(self)} estimates")
            return self._take(np.flatnonzero(arr).tolist())
        if arr.size == 0:
            return self._take([])
        if not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"positions must be integers, got dtype {arr.dtype}")
        n = len(self)
        if ((arr < -n) | (arr >= n)).any():
            raise IndexError(f"position out of range for {n} estimates")
        return self._take((arr % n if n else arr).tolist())

    def __setitem__(self, item, value) -> None:
        if isinstance(item, slice):
            self._sync()
            new = list(value)
            for e in new:
                _check_estimate(e)
            ests, old = list(self), list(range(len(self)))[item]
            if isinstance(value, ResultSet):
                new_keys = value._padded_keys()
            elif len(new) == len(old):
                new_keys = [self._keys[i] for i in old]
            else:
                new_keys = [{} for _ in new]
            keys = list(self._keys)
            ests[item] = new
            keys[item] = new_keys
            lists = {a: list(lst) for a, lst in self._row_lists().items()}
            for a, lst in lists.items():
                other = getattr(value, a, None) if isinstance(value, ResultSet) else None
                lst[item] = (other if isinstance(other, list) and len(other) == len(new)
                             else [lst[i] for i in old] if len(new) == len(old) else [{} for _ in new])
                setattr(self, a, lst)
            list.__setitem__(self, slice(None), ests)
            self._keys = keys
            return
        list.__setitem__(self, item, _check_estimate(value))

    def __delitem__(self, item) -> None:
        self._sync()
        list.__delitem__(self, item)
        for lst in [self._keys, *self._row_lists().values()]:
            del lst[item]

    # ---- list operations that keep the keys aligned -----------------------------------------

    def append_with(self, est: Estimate, **key: Any) -> None:
        """Append an estimate with its keys.

        Parameters
        ----------
        est : Estimate
            The estimate.
        **key
            Its identifying values (``threshold=1``, ``**{"class": "2"}``, ``group="seen"`` ...).

        Examples
        --------
        >>> rs = ResultSet(name="by_group")
        >>> rs.append_with(Estimate("cohen_kappa", 0.61, ConfidenceInterval(0.5, 0.7, 0.95, "bca")), group="a")
        >>> rs.keys
        [{'group': 'a'}]
        """
        self._sync()
        list.append(self, _check_estimate(est))
        self._keys.append(dict(key))

    def append(self, est: Estimate) -> None:
        """Append an estimate without keys (use :meth:`append_with` to give it keys).

        Parameters
        ----------
        est : Estimate
            The estimate.

        Examples
        --------
        >>> rs = ResultSet()
        >>> rs.append(Estimate("cohen_kappa", 0.61, ConfidenceInterval(0.5, 0.7, 0.95, "bca")))
        >>> len(rs), rs.to_frame()["statistic"].tolist()
        (1, ['cohen_kappa'])
        """
        list.append(self, _check_estimate(est))

    def extend(self, estimates: Iterable[Estimate]) -> None:
        """Append several estimates; a ResultSet brings its keys along.

        Parameters
        ----------
        estimates : iterable of Estimate
            The estimates (without keys unless it is a ResultSet).

        Examples
        --------
        >>> ci = ConfidenceInterval(0.5, 0.7, 0.95, "bca")
        >>> a = ResultSet([Estimate("cohen_kappa", 0.61, ci)], keys=[{"group": "a"}])
        >>> a.extend(ResultSet([Estimate("cohen_kappa", 0.55, ci)], keys=[{"group": "b"}]))
        >>> a.keys
        [{'group': 'a'}, {'group': 'b'}]
        """
        other = estimates if isinstance(estimates, ResultSet) else None
        items = [_check_estimate(e) for e in estimates]
        self._sync()
        lists = self._row_lists()
        new_keys = other._padded_keys() if other is not None else [{} for _ in items]
        list.extend(self, items)
        self._keys.extend(dict(k) for k in new_keys)
        for a, lst in lists.items():
            theirs = other.__dict__.get(a) if other is not None else None
            lst.extend(other._padded(theirs) if isinstance(theirs, list) else [{} for _ in items])

    def insert(self, index: int, est: Estimate) -> None:
        """Insert an estimate without keys before position ``index``.

        Parameters
        ----------
        index : int
            Position, as for :meth:`list.insert`.
        est : Estimate
            The estimate.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.5, 0.7, 0.95, "bca")
        >>> rs = ResultSet([Estimate("pabak", 0.7, ci)], keys=[{"group": "a"}])
        >>> rs.insert(0, Estimate("cohen_kappa", 0.61, ci))
        >>> [e.statistic for e in rs], rs.keys
        (['cohen_kappa', 'pabak'], [{}, {'group': 'a'}])
        """
        self._sync()
        n = len(self)
        list.insert(self, index, _check_estimate(est))
        pos = max(0, min(n, index + n if index < 0 else index))
        for lst in [self._keys, *self._row_lists().values()]:
            lst.insert(pos, {})

    def pop(self, index: int = -1) -> Estimate:
        """Remove and return the estimate at ``index`` (its keys go with it).

        Parameters
        ----------
        index : int, default -1
            Position.

        Returns
        -------
        Estimate

        Examples
        --------
        >>> ci = ConfidenceInterval(0.5, 0.7, 0.95, "bca")
        >>> rs = ResultSet([Estimate("a", 0.1, ci), Estimate("b", 0.2, ci)], keys=[{"g": 1}, {"g": 2}])
        >>> rs.pop(0).statistic, rs.keys
        ('a', [{'g': 2}])
        """
        self._sync()
        e = list.pop(self, index)
        for lst in [self._keys, *self._row_lists().values()]:
            lst.pop(index)
        return e

    def remove(self, est: Estimate) -> None:
        """Remove the first estimate equal to ``est``, with its keys.

        Parameters
        ----------
        est : Estimate
            The estimate to remove.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.5, 0.7, 0.95, "bca")
        >>> a, b = Estimate("a", 0.1, ci), Estimate("b", 0.2, ci)
        >>> rs = ResultSet([a, b], keys=[{"g": 1}, {"g": 2}])
        >>> rs.remove(a)
        >>> rs.keys
        [{'g': 2}]
        """
        del self[self.index(est)]

    def clear(self) -> None:
        """Remove every estimate and its keys.

        Examples
        --------
        >>> rs = ResultSet([Estimate("a", 0.1, ConfidenceInterval(0.0, 0.2, 0.95, "bca"))], keys=[{"g": 1}])
        >>> rs.clear()
        >>> len(rs), rs.keys
        (0, [])
        """
        list.clear(self)
        for lst in [self._keys, *self._row_lists().values()]:
            lst.clear()

    def reverse(self) -> None:
        """Reverse the order in place, keys included.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.5, 0.7, 0.95, "bca")
        >>> rs = ResultSet([Estimate("a", 0.1, ci), Estimate("b", 0.2, ci)], keys=[{"g": 1}, {"g": 2}])
        >>> rs.reverse()
        >>> [e.statistic for e in rs], rs.keys
        (['b', 'a'], [{'g': 2}, {'g': 1}])
        """
        self._reorder(list(range(len(self)))[::-1])

    def sort(self, *, key=None, reverse: bool = False) -> None:
        """Sort in place by ``key(estimate)``, keys included.

        Parameters
        ----------
        key : callable
            Maps an Estimate to a sort key (Estimates themselves have no order).
        reverse : bool, default False
            Descending order.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.0, 1.0, 0.95, "bca")
        >>> rs = ResultSet([Estimate("a", 0.3, ci), Estimate("b", 0.1, ci)], keys=[{"g": 1}, {"g": 2}])
        >>> rs.sort(key=lambda e: e.estimate)
        >>> [e.statistic for e in rs], rs.keys
        (['b', 'a'], [{'g': 2}, {'g': 1}])
        """
        ests = list(self)
        order = sorted(range(len(ests)), key=(lambda i: key(ests[i])) if key is not None else ests.__getitem__,
                       reverse=reverse)
        self._reorder(order)

    def _reorder(self, order: list[int]) -> None:
        self._sync()
        ests = list(self)
        list.__setitem__(self, slice(None), [ests[i] for i in order])
        self._keys[:] = [self._keys[i] for i in order] + self._keys[len(ests):]
        for lst in self._row_lists().values():
            lst[:] = [lst[i] for i in order] + lst[len(ests):]

    def copy(self) -> ResultSet:
        """A shallow copy with its own keys.

        Returns
        -------
        ResultSet
            Of the same class.

        Examples
        --------
        >>> rs = ResultSet([Estimate("a", 0.1, ConfidenceInterval(0.0, 0.2, 0.95, "bca"))], keys=[{"g": 1}])
        >>> c = rs.copy()
        >>> c.keys[0]["g"] = 2
        >>> rs.keys, c.keys
        ([{'g': 1}], [{'g': 2}])
        """
        return self._take(range(len(self)))

    def __copy__(self) -> ResultSet:
        return self.copy()

    def __reduce_ex__(self, protocol):
        # pickle and deepcopy rebuild the list without calling the overridden extend/append
        return _rebuild, (type(self), list(self)), dict(self.__dict__)

    def __eq__(self, other):
        # two result sets are equal when their estimates and their keys are; a plain list compares
        # with the estimates only, as before
        if isinstance(other, ResultSet):
            return list.__eq__(self, other) and self._padded_keys() == other._padded_keys()
        return list.__eq__(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other):
        if not isinstance(other, Iterable):
            return NotImplemented
        new = self.copy()
        new.extend(other)
        return new

    def __radd__(self, other):
        if not isinstance(other, Iterable):
            return NotImplemented
        new = self._take([])
        new.extend(other)
        new.extend(self)
        return new

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __mul__(self, times):
        if not isinstance(times, (int, np.integer)):
            return NotImplemented
        return self._take(list(range(len(self))) * max(int(times), 0))

    __rmul__ = __mul__

    def __imul__(self, times):
        if not isinstance(times, (int, np.integer)):
            return NotImplemented
        self._reorder(list(range(len(self))) * max(int(times), 0))
        return self

    # ---- output ----------------------------------------------------------------------------

    def to_frame(self) -> pd.DataFrame:
        """One tidy frame: the key columns first, then :data:`FRAME_COLUMNS` (no rounding).

        Returns
        -------
        pandas.DataFrame
            One row per estimate; frames of several result sets concatenate with ``pd.concat``.

        Examples
        --------
        >>> ci = ConfidenceInterval(0.5, 0.7, 0.95, "bca")
        >>> rs = ResultSet(name="by_group")
        >>> rs.append_with(Estimate("cohen_kappa", 0.61, ci, n=80), group="a")
        >>> rs.append_with(Estimate("cohen_kappa", 0.55, ci, n=90), group="b")
        >>> rs.to_frame()[["group", "statistic", "estimate", "n"]]
          group    statistic  estimate   n
        0     a  cohen_kappa      0.61  80
        1     b  cohen_kappa      0.55  90
        """
        rows = [{**k, **e.row()} for e, k in self._rows()]
        return pd.DataFrame(rows, columns=self.key_columns + FRAME_COLUMNS)

    def __str__(self) -> str:
        tags = [f"[{_keys_text(k)}]" if k else "" for k in self._padded_keys()]
        width = max((len(t) for t in tags), default=0)
        return "\n".join(f"{t:<{width}} {e}" if width else str(e) for t, e in zip(tags, list.__iter__(self)))

    def __repr__(self) -> str:
        cols = self.key_columns
        head = (f"{type(self).__name__}({self.name!r}, {len(self)} estimate{'s' if len(self) != 1 else ''}"
                + (f"; keys: {', '.join(cols)}" if cols else "") + ")")
        body = str(self)
        return head + ("\n" + body if body else "")

    def _repr_html_(self) -> str:
        n = len(self)
        shown = min(n, self._html_max_rows)
        caption = f"{self.name or type(self).__name__}: {n} estimate{'s' if n != 1 else ''}"
        note = f"first {shown} of {n} rows shown; rs.to_frame() has them all" if shown < n else None
        return _estimates_html(list(self)[:shown], self._padded_keys()[:shown], self.key_columns, caption, note)
