"""Could the reported numbers have come from any data at all? GRIM and its extension to kappa.

A number printed with d decimals stands for every value in ``[x − ½·10^−d, x + ½·10^−d]`` (both ends
included, so that either rounding convention, half-up or half-to-even, is accepted). The checks here
ask whether some *integer* data set of the stated size gives a value in that interval:

* :func:`grim` — a mean of n integer scores (a proportion when the scores are 0/1) is a multiple of
  1/n (Brown & Heathers 2016): accuracy 77% (printed 0.77) at n = 202 is possible (156/202 = 0.7723),
  0.770 printed with three decimals is not.
* :func:`kappa_feasibility` — does any integer K×K table with the stated n (and, when given, the
  stated margins) give the reported Cohen's κ *and* the reported percent agreement after rounding?
  When none does, the nearest feasible (κ, p_o) pair is reported.

How the search runs
-------------------
Binary labels, a 2×2 table ``[[a, b], [c, d]]`` with A = a + d agreements and D = b + c = n − A
disagreements. Cohen's κ = (p_o − p_e)/(1 − p_e) with p_o = A/n; writing v = b − c and s = d − a,
2n²·p_e = n² + s² − v², so

    κ = (n(A − D) + W) / (n² + W),   W = v² − s²,   |v| ≤ D, v ≡ D,   |s| ≤ A, s ≡ A (mod 2),

which rises with W: for each A, κ lies in [κ(W = −A²), κ(W = D²)], and the κ nearest a target is
that of the possible W nearest W(κ). One search (:func:`_kappa_search`) finds the table minimising
|κ − κ*| + pen(A) over a set of A, exactly: A is visited best-first by the lower bound "distance
from κ* to A's κ range + pen(A)" and the search stops when that bound reaches the best total found;
an A whose window of W (for a κ within the best distance) holds no possible W (odd for odd n, a
multiple of 4 for even n) is skipped, and for the rest only the s with some v ∈ [0, D] in the window
are visited, each with the two v nearest √(W(κ*) + s²), a bounded number of (A, s) pairs at a time
so that the best distance shrinks before wide windows are scanned. It runs three ways:

* κ alone: every A, pen = 0, stopping at the first table inside κ's rounding interval;
* κ and p_o, step 1: the A that print as p_o (GRIM), pen = 0: a κ in its interval among them makes
  the pair feasible;
* κ and p_o, step 2 (no such table): every A, pen(A) = |A/n − p_o*| · unit_κ/unit_p, so that the
  total is the distance to the reported pair in units of each number's printed precision; the result
  is the nearest feasible pair.

With the margins given, p_e is fixed, the one free cell ``a`` is enumerated (2×2), and for
K > 2 or a weighted κ a small integer program (:func:`scipy.optimize.milp`) finds a table with the
given margins whose weighted agreement and diagonal lie in the intervals, or the nearest one.

Every table that is reported as found is recomputed with the registry's Cohen's κ kernel (the one
definition of κ in the package) and checked against the rounding intervals.

Benchmark (``benchmarks/bench_feasibility.py``): see that file for the timings at n ≤ 10,000.

References
----------
Brown, N. J. L. & Heathers, J. A. J. (2016). The GRIM test: a simple technique detects numerous
anomalies in the reporting of results in psychology. *Social Psychological and Personality Science*
8(4), 363–369.
Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and Psychological
Measurement* 20, 37–46.

Examples
--------
>>> from metaeval.review.feasibility import grim, kappa_feasibility
>>> grim(0.77, 202).feasible, grim("0.770", 202).feasible
(True, False)
>>> r = kappa_feasibility(0.603, n=202, percent_agreement=0.802)
>>> r.feasible
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import numpy as np

from ..core import registry
from ..core.errors import InputError

__all__ = ["decimals_of", "rounding_interval", "grim", "kappa_feasibility", "kappa_weights", "GrimResult", "KappaFeasibility"]

#: Slack added to every rounding interval against floating-point error (far below any printed digit;
#: numbers printed with more than :data:`MAX_DECIMALS` decimals are refused).
EPS = 1e-12
MAX_DECIMALS = 10
#: Pairs (A, a) evaluated per numpy block in the κ-only search.
_BLOCK = 2_000_000
#: The exhaustive 2×2 searches hold arrays of n + 1 agreements (or cells): beyond this n they are refused
#: (time and memory grow with n: about 2–5 s at 10^6 items and 20–70 s at 10^7 on a shared 2-core
#: machine).
SEARCH_MAX_N = 1_000_000
#: The integer program over K×K tables with given margins is used up to this n (HiGHS' feasibility and
#: integrality tolerances are absolute: at n = 10^12 it called a feasible κ infeasible).
MILP_MAX_N = 100_000_000
#: GRIM keeps its totals as a tuple up to this many, as a ``range`` beyond.
_TOTALS_TUPLE = 100_000


# --------------------------------------------------------------------------------------------
# rounding
# --------------------------------------------------------------------------------------------

def decimals_of(value) -> int:
    """How many decimals a printed number shows (``"0.770"`` → 3; the float 0.77 → 2).

    Parameters
    ----------
    value : float, int or str
        The number as printed. A float cannot keep trailing zeros: pass the string, or say
        ``decimals=`` where the number is used.

    Returns
    -------
    int

    Examples
    --------
    >>> decimals_of("0.770"), decimals_of(0.77), decimals_of(12), decimals_of(".5")
    (3, 2, 0, 1)
    """
    if isinstance(value, str):
        text = value.strip().lstrip("+-−")
    else:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise InputError(f"not a number: {value!r}", expected="a number such as 0.61 or the string '0.610'")
        if not math.isfinite(float(value)):
            raise InputError(f"not a finite number: {value!r}")
        text = repr(float(value)) if not isinstance(value, (int, np.integer)) else str(value)
        if "e" in text or "E" in text:
            text = format(Decimal(text), "f")
    try:
        Decimal(text)
    except InvalidOperation:
        raise InputError(f"not a number: {value!r}", expected="a number such as 0.61 or the string '0.610'") from None
    if "." not in text:
        return 0
    frac = text.split(".", 1)[1]
    if not isinstance(value, str) and frac == "0":
        return 0
    return len(frac)


def _number(value, what: str) -> float:
    if isinstance(value, str):
        try:
            x = float(value.strip().replace("−", "-"))
        except ValueError:
            raise InputError(f"{what} is not a number: {value!r}", expected="a number such as 0.61") from None
    elif isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{what} is not a number: {value!r}", expected="a number such as 0.61")
    else:
        try:
            x = float(value)
        except OverflowError:
            x = float("inf")
    if not np.isfinite(x):
        raise InputError(f"{what} is not a finite number: {value!r}", expected="a number such as 0.61 as printed")
    return x


def rounding_interval(value, decimals: int | None = None) -> tuple[float, float, int]:
    """The interval of true values that print as ``value`` with ``decimals`` decimals.

    Parameters
    ----------
    value : float or str
        The printed number.
    decimals : int, optional
        How many decimals were printed (default: :func:`decimals_of`).

    Returns
    -------
    (low, high, decimals)
        ``value ∓ ½·10^−decimals``, both ends included. A number showing more than
        :data:`MAX_DECIMALS` decimals (a float at full precision) is taken to that many.

    Examples
    --------
    >>> lo, hi, d = rounding_interval("0.61")
    >>> round(lo, 3), round(hi, 3), d
    (0.605, 0.615, 2)
    """
    x = _number(value, "value")
    d = min(decimals_of(value), MAX_DECIMALS) if decimals is None else int(decimals)
    if d < 0 or d > MAX_DECIMALS:
        raise InputError(f"decimals must be between 0 and {MAX_DECIMALS}, got {d!r}", text=str(value),
                         fix="give the number as printed (papers print a few decimals)")
    h = 0.5 * 10.0 ** (-d)
    return x - h, x + h, d


# --------------------------------------------------------------------------------------------
# GRIM
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GrimResult:
    """Whether a mean of n integer scores can print as the reported value.

    Attributes
    ----------
    value : float
        The reported value.
    n : int
        The number of scores.
    decimals : int
        The decimals the value was printed with.
    feasible : bool
        Whether some integer total gives a mean that prints as the value.
    totals : tuple of int
        The integer totals (sums of the n·items scores) that do (a ``range`` when more than
        100,000 do).
    nearest : tuple of float
        The closest possible means (the value itself when feasible), at full precision.

    Examples
    --------
    >>> grim(0.5, 3)
    GrimResult(value=0.5, n=3, decimals=1, feasible=False, totals=(), nearest=(0.3333333333333333, 0.6666666666666666))
    """

    value: float
    n: int
    decimals: int
    feasible: bool
    totals: tuple
    nearest: tuple


def grim(value, n: int, *, decimals: int | None = None, items: int = 1, low: float | None = 0.0,
         high: float | None = None) -> GrimResult:
    """GRIM: can the mean of n integer scores print as ``value`` (Brown & Heathers 2016)?

    Parameters
    ----------
    value : float or str
        The reported mean or proportion (a proportion in [0, 1], as printed: 77.0% is ``"0.770"``).
    n : int
        Number of observations.
    decimals : int, optional
        How many decimals were printed (default: as many as ``value`` shows).
    items : int
        Integer items summed per observation (a mean over a 3-item scale: 3); the granularity is
        1/(n·items).
    low, high : float, optional
        Bounds of one score (default: 0 and, for a proportion, 1 — set ``high`` for a scale; None
        for no bound).

    Returns
    -------
    GrimResult

    Notes
    -----
    The possible means are t/(n·items) for integer totals t; the value is feasible when some t
    falls in the rounding interval (:func:`rounding_interval`). ``high`` defaults to 1 when the value
    is at most 1 (a proportion), otherwise no upper bound.

    References
    ----------
    Brown & Heathers (2016). For example, with n = 28 whole-number scores the means near 5.19 are
    145/28 = 5.179 and 146/28 = 5.214, so a printed 5.19 is impossible and 5.18 possible
    (``tests/test_review_feasibility.py`` checks every two-decimal value against exact rounding).

    Examples
    --------
    >>> grim(0.77, 202).feasible, grim(5.19, 28).feasible, grim(5.18, 28).feasible
    (True, False, True)
    """
    n = _positive_int(n, "n")
    items = _positive_int(items, "items")
    lo, hi, d = rounding_interval(value, decimals)
    x = _number(value, "value")
    m = n * items
    if high is None and x <= 1 and (low == 0.0):
        high = 1.0
    t_min = math.ceil(lo * m - EPS * m)
    t_max = math.floor(hi * m + EPS * m)
    if low is not None:
        t_min = max(t_min, math.ceil(low * m))
    if high is not None:
        t_max = min(t_max, math.floor(high * m))
    totals = range(t_min, t_max + 1) if t_max >= t_min else ()
    if len(totals) <= _TOTALS_TUPLE:
        totals = tuple(totals)
    if totals:
        return GrimResult(x, n, d, True, totals, (x,))
    cand = {math.floor(x * m), math.ceil(x * m)}
    if low is not None:
        cand = {max(t, math.ceil(low * m)) for t in cand}
    if high is not None:
        cand = {min(t, math.floor(high * m)) for t in cand}
    means = sorted({t / m for t in cand})
    best = min(abs(v - x) for v in means)
    return GrimResult(x, n, d, False, (), tuple(v for v in means if abs(v - x) - best < 1e-12))


def _positive_int(v, name) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer, float)) or v != int(v) or int(v) < 1:
        raise InputError(f"{name} must be a positive whole number, got {v!r}")
    return int(v)


# --------------------------------------------------------------------------------------------
# kappa and percent agreement
# --------------------------------------------------------------------------------------------

@dataclass
class KappaFeasibility:
    """Whether an integer table with the stated n (and margins) gives the reported κ and p_o.

    Attributes
    ----------
    feasible : bool
        Some table gives both reported numbers after rounding.
    kappa, percent_agreement : float or None
        The reported values (None when not reported).
    n : int
    table : numpy.ndarray or None
        A table that gives them (feasible), or the table of the nearest pair (not feasible); rows:
        the first rater, columns: the second.
    nearest_kappa, nearest_percent_agreement : float
        κ and p_o of ``table`` (for a feasible result, a matching pair).
    n_tables : int or None
        How many tables match (None when the search stopped at the first match).
    search : str
        What was searched (the assumption the answer rests on).

    Examples
    --------
    >>> r = kappa_feasibility(0.63, n=40, percent_agreement=0.39)
    >>> r.feasible, r.search
    (False, 'every 2×2 table with n = 40')
    >>> r.table.tolist(), round(r.nearest_kappa, 3), r.nearest_percent_agreement
    ([[16, 8], [0, 16]], 0.615, 0.8)
    """

    feasible: bool
    kappa: float | None
    percent_agreement: float | None
    n: int
    table: np.ndarray | None
    nearest_kappa: float
    nearest_percent_agreement: float
    n_tables: int | None
    search: str
    details: dict = field(default_factory=dict)


def _kappa_of(tables) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's κ (the registry's kernel) and p_o of tables (b, K, K)."""
    T = np.asarray(tables, dtype=float)
    k = T.shape[-1]
    S = T.reshape(-1, k * k)
    kap = registry.resolve("cohen_kappa").kernel(k)(S)
    po = np.trace(T.reshape(-1, k, k), axis1=1, axis2=2) / T.reshape(-1, k, k).sum(axis=(1, 2))
    return kap, po


def _in(x, lo, hi):
    return (x >= lo - EPS) & (x <= hi + EPS)


def kappa_weights(weights):
    """``None`` when ``weights`` give Cohen's plain κ by the registry (the declared default, e.g.
    ``"identity"``), else ``weights`` as given: one rule for what "unweighted" means.

    Parameters
    ----------
    weights : str, array or None

    Returns
    -------
    str, array or None

    Examples
    --------
    >>> kappa_weights("identity") is None, kappa_weights("linear")
    (True, 'linear')
    """
    if weights is None:
        return None
    return None if registry.resolve("cohen_kappa", weights).name == "cohen_kappa" else weights


def kappa_feasibility(kappa=None, *, n: int, percent_agreement=None, margins=None, weights=None,
                      kappa_decimals: int | None = None, percent_agreement_decimals: int | None = None,
                      categories: int = 2) -> KappaFeasibility:
    """Does any integer table with n items (and the margins) give the reported κ and percent agreement?

    Parameters
    ----------
    kappa : float or str, optional
        The reported Cohen's κ (unweighted, or weighted with ``weights`` and ``margins``).
    n : int
        The number of items.
    percent_agreement : float or str, optional
        The reported observed agreement as a proportion in [0, 1] (a printed 80.2% is
        ``"0.802"``).
    margins : array-like (2, K), optional
        Each rater's count per category, one row per rater. Without margins only 2×2 tables are
        searched (every possible pair of margins).
    weights : str or array (K, K), optional
        Agreement weights of a weighted κ (needs ``margins``; the percent agreement stays the
        unweighted diagonal share).
    kappa_decimals, percent_agreement_decimals : int, optional
        How many decimals were printed (default: as many as the number shows).
    categories : int
        K when no margins are given; only 2 is searched without margins.

    Returns
    -------
    KappaFeasibility

    Notes
    -----
    See the module docstring for the search. Without margins the answer covers every 2×2 table
    with n items — every prevalence and every rater bias. With margins and K = 2 the single free
    cell is enumerated; with K > 2 or weights an integer program (scipy's HiGHS through
    :func:`scipy.optimize.milp`) looks for a table with the margins whose weighted agreement gives κ
    and whose diagonal gives p_o, and otherwise minimises the distance to them in units of the
    printed precision.

    References
    ----------
    Brown & Heathers (2016) for the idea; Cohen (1960) for κ. Tests compare the closed-form 2×2
    search with brute-force enumeration of every table and with the integer program.

    Examples
    --------
    >>> r = kappa_feasibility(0.603, n=202, margins=[[105, 97], [105, 97]], percent_agreement=0.802)
    >>> r.feasible, r.table.tolist()
    (True, [[85, 20], [20, 77]])
    >>> kappa_feasibility(0.70, n=202, margins=[[105, 97], [105, 97]], percent_agreement=0.802).feasible
    False
    """
    n = _positive_int(n, "n")
    weights = kappa_weights(weights)
    if kappa is None and percent_agreement is None:
        raise InputError("kappa_feasibility needs the reported kappa, the percent agreement, or both")
    kint = None if kappa is None else rounding_interval(kappa, kappa_decimals)
    pint = None if percent_agreement is None else rounding_interval(percent_agreement, percent_agreement_decimals)
    kval = None if kappa is None else _number(kappa, "kappa")
    pval = None if percent_agreement is None else _number(percent_agreement, "percent_agreement")
    if margins is not None:
        try:
            M = np.asarray(margins, dtype=float)
        except (ValueError, TypeError):
            raise InputError("margins must be two rows of counts of equal length (one per category)",
                             text=repr(margins)[:80],
                             fix="write margins = [[rater 1's count per category], [rater 2's count per category]]") from None
        if M.ndim != 2 or M.shape[0] != 2 or M.shape[1] < 2:
            raise InputError(f"margins must have one row per rater (2 rows) and one column per category, got shape {M.shape}",
                             fix="write margins = [[rater 1's count per category], [rater 2's count per category]]")
        if (M < 0).any() or not np.allclose(M, np.round(M)):
            raise InputError("margins must be non-negative whole counts", text=str(M.tolist()))
        M = np.round(M).astype(np.int64)
        if M[0].sum() != n or M[1].sum() != n:
            raise InputError(f"each rater's margins must add up to n = {n}, got {M.sum(axis=1).tolist()}",
                             fix="check n and the margins as printed")
        if M.shape[1] == 2 and weights is None:
            if min(M[0, 0], M[1, 0]) > SEARCH_MAX_N:
                raise InputError(f"n = {n:,} with these margins leaves {min(M[0, 0], M[1, 0]) + 1:,} tables to search, "
                                 f"beyond {SEARCH_MAX_N:,}", fix="give the table itself")
            return _two_by_two_margins(M, n, kint, pint, kval, pval)
        if n > MILP_MAX_N:
            raise InputError(f"n = {n:,} is beyond what the integer program over K×K tables solves exactly "
                             f"(n ≤ {MILP_MAX_N:,}: its tolerances are absolute, the counts are not)",
                             fix="give the table itself")
        return _milp_margins(M, n, kint, pint, kval, pval, weights)
    if weights is not None:
        raise InputError("a weighted kappa can be checked only with the margins", fix="give margins=")
    if categories != 2:
        raise InputError(f"without margins only binary tables are searched, got categories={categories}",
                         fix="give margins= (each rater's count per category) for K > 2")
    if kint is None:
        g = grim(percent_agreement, n, decimals=percent_agreement_decimals)
        A = g.totals[0] if g.feasible else round(g.nearest[0] * n)
        t = np.array([[A, n - A], [0, 0]]) if A < n else np.array([[n // 2, 0], [0, n - n // 2]])
        return KappaFeasibility(g.feasible, None, pval, n, t, float("nan"), A / n, len(g.totals) or None,
                                f"every 2×2 table with n = {n}")
    return _two_by_two_n(n, kint, pint, kval, pval)


def _score(kap, po, kval, pval, kint, pint):
    """Distance to the reported pair in units of the printed precision (0 inside both intervals)."""
    s = np.zeros(np.shape(kap))
    if kint is not None:
        unit = 10.0 ** (-kint[2])
        s = s + np.where(np.isnan(kap), np.inf, np.abs(kap - kval) / unit)
    if pint is not None:
        unit = 10.0 ** (-pint[2])
        s = s + np.abs(po - pval) / unit
    return s


def _two_by_two_margins(M, n, kint, pint, kval, pval):
    r1, c1 = int(M[0, 0]), int(M[1, 0])
    a = np.arange(max(0, r1 + c1 - n), min(r1, c1) + 1)
    T = np.stack([np.stack([a, r1 - a], axis=1), np.stack([c1 - a, n - r1 - c1 + a], axis=1)], axis=1)
    kap, po = _kappa_of(T)
    ok = np.ones(len(a), dtype=bool)
    if kint is not None:
        ok &= _in(kap, kint[0], kint[1])
    if pint is not None:
        ok &= _in(po, pint[0], pint[1])
    search = f"every 2×2 table with n = {n} and the stated margins ({len(a)} tables)"
    if ok.any():
        i = int(np.flatnonzero(ok)[np.argmin(_score(kap[ok], po[ok], kval, pval, kint, pint))])
        return KappaFeasibility(True, kval, pval, n, T[i], float(kap[i]), float(po[i]), int(ok.sum()), search)
    i = int(np.argmin(_score(kap, po, kval, pval, kint, pint)))
    return KappaFeasibility(False, kval, pval, n, T[i], float(kap[i]), float(po[i]), 0, search)


def _too_large(n):
    return InputError(f"n = {n:,} is beyond the exhaustive search over 2×2 tables (n ≤ {SEARCH_MAX_N:,}; its time "
                      "and memory grow with n)",
                      fix="give margins= (each rater's count per category) or the table")


def _two_by_two_n(n, kint, pint, kval, pval):
    search = f"every 2×2 table with n = {n}"
    if n > SEARCH_MAX_N:
        raise _too_large(n)
    if pint is None:                                       # κ alone
        As = np.argsort(np.abs(np.arange(n + 1) - n * (1 + min(max(kval, -1.0), 1.0)) / 2), kind="stable")
        total, T, k, po = _kappa_search(n, kint, kval, As, np.zeros(n + 1), stop_inside=True)
        ok = bool(_in(k, kint[0], kint[1]))
        return KappaFeasibility(ok, kval, None, n, T, k, po, None if ok else 0, search)
    # 1. the agreements A that print as the reported p_o (GRIM): is a κ in its interval among them?
    g = grim(pval, n, decimals=pint[2])
    if g.feasible:
        As = np.asarray(g.totals, dtype=np.int64)
        As = As[np.argsort(np.abs(As - n * (1 + min(max(kval, -1.0), 1.0)) / 2), kind="stable")]
        total, T, k, po = _kappa_search(n, kint, kval, As, np.zeros(len(As)), stop_inside=True)
        if T is not None and _in(k, kint[0], kint[1]):
            return KappaFeasibility(True, kval, pval, n, T, k, po, None, search)
    # 2. none: the table nearest the reported pair, distance |κ − κ*|/unit_κ + |p_o − p_o*|/unit_p, in κ
    # units |κ − κ*| + pen(A) with pen(A) = |A/n − p_o*|·unit_κ/unit_p (branch and bound over A)
    As = np.argsort(np.abs(np.arange(n + 1) / n - pval), kind="stable")
    pen = np.abs(As / n - pval) * 10.0 ** (pint[2] - kint[2])
    total, T, k, po = _kappa_search(n, kint, kval, As, pen, stop_inside=False)
    return KappaFeasibility(False, kval, pval, n, T, k, po, 0, search)


def _w_of_kappa(n, A, k):
    """W = v² − s² at which a table with A < n agreements has κ = k (κ rises with W): ±∞ for k ≥ 1 or k ≤ −1."""
    A, k = np.broadcast_arrays(np.asarray(A, dtype=float), np.asarray(k, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        W = (k * n * n - n * (2.0 * A - n)) / (1.0 - k)
    return np.where(k >= 1, np.inf, np.where(k <= -1, -np.inf, W))


def _kappa_search(n, kint, kval, As, pen, *, stop_inside):
    """The 2×2 table with A ∈ ``As`` agreements minimising |κ − κ*| + pen(A), exact.

    With A agreements, D = n − A disagreements, v = b − c and s = d − a, 2n²·p_e = n² + s² − v², so

        κ = (n(A − D) + W) / (n² + W),   W = v² − s²,   |v| ≤ D, v ≡ D,   |s| ≤ A, s ≡ A (mod 2),

    which rises with W, so κ lies in [κ(W = −A²), κ(W = D²)] for each A. ``pen`` (one per A) is
    added to the κ distance. A is visited in blocks, by the lower bound "distance from κ* to that
    range + pen(A)" (ties in the order of ``As``), and the search stops at the first A whose bound
    reaches the best total e found so far. An A whose κ range stays farther than e − pen(A) from κ*
    is skipped, so is an A whose window of W holds no possible W (odd for odd
    n, a multiple of 4 for even n), and for the other A only the s for which some v in [0, D] puts κ
    within e − pen(A) are visited (s² ∈ [−W(κ* + e'), D² − W(κ* − e')]); for each (A, s) the two v of
    D's parity around √(W(κ*) + s²) are the nearest. With ``stop_inside``, a table whose κ lies in the
    reported interval ends the search (the κ-alone search and the p_o-feasibility search, where pen = 0).

    Returns (total, table, κ, p_o) of the best table (table None when ``As`` is empty).
    """
    kstar = float(min(max(kval, -1.0), 1.0))
    As, pen = np.asarray(As, dtype=np.int64), np.asarray(pen, dtype=float)
    best = (np.inf, None)                                  # (|κ − κ*| + pen(A), (A, s, v))
    at_n = np.flatnonzero(As == n)
    if len(at_n) and n >= 2:                               # A = n: κ = 1 (p_e < 1 needs both categories)
        best = (abs(1.0 - kval) + float(pen[at_n[0]]), (n, n - 2, 0))
        if stop_inside and _in(1.0, kint[0], kint[1]):
            return (best[0], *_kappa_only_table(n, *best[1]))
    keep = As < n
    As, pen = As[keep], pen[keep]
    # κ of a table with A agreements lies in [κ(W = −A²), κ(W = D²)]: its distance from κ* plus pen(A) is
    # a lower bound of the A's total; A is visited by that bound (ties: in the given order), best first
    Af = As.astype(np.float64)
    Df = n - Af
    kmax_all = (n * (Af - Df) + Df * Df) / (n * n + Df * Df)
    kmin_all = (n * (Af - Df) - Af * Af) / (n * n - Af * Af)
    bound = np.maximum(np.maximum(kmin_all - kval, kval - kmax_all), 0.0) + pen
    order = np.lexsort((np.arange(len(As)), bound))
    As, pen, bound = As[order], pen[order], bound[order]
    step, res = (4.0, 0.0) if n % 2 == 0 else (2.0, 1.0)
    cum = np.cumsum(np.minimum(As, n - As) // 2 + 1)
    i, budget, work = 0, 4 * n + 64, 4 * n + 64
    while i < len(As):
        if bound[i] >= best[0]:
            break                                          # (sorted by the bound: no later A can do better)
        if np.isfinite(best[0]):
            j = max(i + 1, int(np.searchsorted(cum, (cum[i - 1] if i else 0) + budget, side="right")))
            budget = min(2 * budget, _BLOCK)
        else:
            j = i + 1                                      # (the first A alone: every s, then e is finite)
        A, P, pos = As[i:j].astype(np.float64), pen[i:j], np.arange(i, j)
        i = j
        D = n - A
        e = best[0] - P                                    # the κ distance each A must beat
        kmax = (n * (A - D) + D * D) / (n * n + D * D)
        kmin = (n * (A - D) - A * A) / (n * n - A * A)
        keep = (e > 0) & (kmax >= kval - e - EPS) & (kmin <= kval + e + EPS)
        A, D, P, e, pos = A[keep], D[keep], P[keep], e[keep], pos[keep]
        if not len(A):
            continue
        Wlo = _w_of_kappa(n, A, kval - e)
        Whi = _w_of_kappa(n, A, kval + e)
        # W = v² − s² is odd for odd n and a multiple of 4 for even n: an A whose open W window holds
        # no such integer cannot beat the best (this prunes almost every A once e is small; a gain
        # below 1e-6 in W is below 1e-12 in κ, the EPS of every comparison)
        with np.errstate(invalid="ignore"):
            c = np.ceil((Wlo + 1e-6 - res) / step) * step + res
            has = ~np.isfinite(Wlo) | ~np.isfinite(Whi) | (c < Whi - 1e-6)
        A, D, P, Wlo, Whi, pos = A[has], D[has], P[has], Wlo[has], Whi[has], pos[has]
        if not len(A):
            continue
        s_lo = np.ceil(np.sqrt(np.clip(-Whi, 0, None)) - 1e-7)
        s_hi = np.minimum(np.floor(np.sqrt(np.clip(D * D - Wlo, 0, 4.0 * n * n)) + 1e-7), A)
        s_lo = s_lo + np.mod(s_lo - A, 2)
        s_hi = s_hi - np.mod(s_hi - A, 2)
        cnt = np.where(s_hi >= s_lo, (s_hi - s_lo) // 2 + 1, 0).astype(np.int64)
        if not cnt.any():
            continue
        # at most `work` (A, s) pairs at a time (doubling), so that e shrinks before the wide windows
        cut = max(int(np.searchsorted(np.cumsum(cnt), work, side="right")), int(np.argmax(cnt > 0)) + 1)
        work = min(2 * work, _BLOCK)
        if cut < len(A):
            i = int(pos[cut])                              # (the rest of the block comes next, with a smaller e)
            A, D, P, s_lo, cnt = A[:cut], D[:cut], P[:cut], s_lo[:cut], cnt[:cut]
        first = np.repeat(np.cumsum(cnt) - cnt, cnt)
        idx = np.repeat(np.arange(len(A)), cnt)
        s = s_lo[idx] + 2 * (np.arange(len(idx)) - first)
        A, D, P = A[idx], D[idx], P[idx]
        x = _w_of_kappa(n, A, min(kstar, 1 - 1e-12)) + s * s
        v1 = np.floor(np.sqrt(np.clip(x, 0, None)))
        v1 = v1 - np.mod(v1 - D, 2)
        vmin = np.mod(D, 2)
        for v in (np.clip(v1, vmin, D), np.clip(v1 + 2, vmin, D)):
            W = v * v - s * s
            err = np.abs((n * (A - D) + W) / (n * n + W) - kval) + P   # n² + W ≥ n² − A² > 0 for A < n
            k = int(np.argmin(err))
            if err[k] < best[0]:
                best = (float(err[k]), (int(A[k]), int(s[k]), int(v[k])))
        if stop_inside and best[1] is not None:
            Ab, sb, vb = best[1]
            Wb = vb * vb - sb * sb
            if _in((n * (2 * Ab - n) + Wb) / (n * n + Wb), kint[0], kint[1]) if Ab < n else _in(1.0, *kint[:2]):
                break
    if best[1] is None:
        return (np.inf, None, float("nan"), float("nan"))
    return (best[0], *_kappa_only_table(n, *best[1]))


def _kappa_only_table(n, A, s, v):
    D = n - A
    T = np.array([[(A - s) // 2, (D + v) // 2], [(D - v) // 2, (A + s) // 2]], dtype=np.int64)
    k, po = _kappa_of(T[None])
    return T, float(k[0]), float(po[0])


def _milp_margins(M, n, kint, pint, kval, pval, weights):
    """K×K (or weighted) with fixed margins: an integer program with slack on the two intervals."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    from ..core.weights import weight_matrix

    k = M.shape[1]
    W = weight_matrix(weights, k)
    r, c = M[0].astype(float), M[1].astype(float)
    pe = float(r @ W @ c) / n**2
    if abs(1 - pe) < 1e-12:
        raise InputError("kappa is undefined for these margins (chance agreement is 1)")
    nv = k * k
    # variables: the K² cells, then slacks (below, above) for κ and for p_o
    rows, lows, highs = [], [], []
    for i in range(k):                                     # row sums (first rater)
        a = np.zeros(nv + 4)
        a[i * k:(i + 1) * k] = 1
        rows.append(a), lows.append(r[i]), highs.append(r[i])
    for j in range(k):                                     # column sums (second rater)
        a = np.zeros(nv + 4)
        a[j:nv:k] = 1
        rows.append(a), lows.append(c[j]), highs.append(c[j])
    cost = np.zeros(nv + 4)
    if kint is not None:                                   # weighted agreement from κ: p_w = p_e + κ(1 − p_e)
        lo_w = n * (pe + (kint[0] - EPS) * (1 - pe))
        hi_w = n * (pe + (kint[1] + EPS) * (1 - pe))
        a = np.concatenate([W.ravel(), [1, -1, 0, 0]])
        rows.append(a), lows.append(lo_w), highs.append(hi_w)
        cost[nv:nv + 2] = 1 / (n * (1 - pe) * 10.0 ** (-kint[2]))
    if pint is not None:
        a = np.concatenate([np.eye(k).ravel(), [0, 0, 1, -1]])
        rows.append(a), lows.append(n * (pint[0] - EPS)), highs.append(n * (pint[1] + EPS))
        cost[nv + 2:] = 1 / (n * 10.0 ** (-pint[2]))
    integrality = np.concatenate([np.ones(nv), np.zeros(4)])
    res = milp(cost, constraints=LinearConstraint(np.array(rows), lows, highs), integrality=integrality,
               bounds=Bounds(np.zeros(nv + 4), np.concatenate([np.full(nv, n), np.full(4, np.inf)])))
    if res.x is None:
        raise InputError("no table has these margins", text=str(M.tolist()))
    T = np.round(res.x[:nv]).reshape(k, k).astype(np.int64)
    kap = float(registry.resolve("cohen_kappa", None if weights is None else weights).kernel(k)(T.reshape(1, -1))[0])
    po = float(np.trace(T) / n)
    feasible = bool((kint is None or _in(kap, kint[0], kint[1])) and (pint is None or _in(po, pint[0], pint[1])))
    search = f"every {k}×{k} table with n = {n} and the stated margins (integer program)"
    return KappaFeasibility(feasible, kval, pval, n, T, kap, po, None, search)
