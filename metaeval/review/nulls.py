"""The standard null distributions of a correlation coefficient, for checking a reported p-value.

A paper reports a correlation, its n and a p. Which test gave the p is rarely said, and the standard
tests give different p for the same coefficient: for Kendall's τ the exact null distribution
without ties, the normal approximation without ties, and the normal approximation with the tie
correction (whose variance depends on the tie pattern, which a paper does not print); for Spearman's
ρ the t approximation and the exact permutation distribution at small n. A reviewer's check must
not call a p inconsistent when one standard method gives it, so :func:`p_ranges` returns, for each
method that applies, the range of two-sided p over the coefficient's rounding interval; the claim
is consistent when any of them holds the reported p at its rounding, and the verdict names which.

Methods
-------
Kendall's τ (τ_b, τ_a and τ_c share scipy's test: it depends on C − D only)

* ``exact null without ties`` — the number of discordant pairs of m untied items is the inversion
  count of a random permutation (Kendall 1938; scipy's ``method="exact"``, R's ``cor.test`` below
  50 items). Used up to :data:`TAU_EXACT_MAX` items: above, scipy's exact recursion takes seconds
  (1,000 items: 5 s; 2,000: 43 s) and no standard software uses it by default (scipy up to 33 items,
  R below 50); the normal approximation then differs from it by less than 2% of p (500 items,
  p ≈ .0008).
* ``normal approximation without ties`` — z = 3τ√(m(m − 1))/√(2(2m + 5)) (Kendall 1948; scipy's
  ``method="asymptotic"`` and its default above 33 items).
* ``normal approximation with tie correction`` — z = (C − D)/√var(S) with the tie-corrected
  variance (Kendall 1945; scipy's default whenever there are ties). From a stated table the tie
  pattern is known and p is scipy's. Without one, every tie pattern is allowed: z/τ_b lies between
  √(m − 1) (two categories on each side, where the test is the 2×2 χ² test with m − 1) and the
  untied value (no ties); the smallest and largest z over that range bound p. (The bound is checked
  against scipy on random tie patterns in tests/test_review_nulls.py.)

Spearman's ρ

* ``t approximation`` — t = ρ√((m − 2)/(1 − ρ²)) on m − 2 df (scipy's ``spearmanr``, R with ties).
* ``exact permutation null`` — the distribution of Σd² over the m! orderings, up to
  :data:`RHO_EXACT_MAX` items (R's ``cor.test`` exact for n ≤ 9; two-sided p = twice the tail on
  the side of the statistic, capped at 1, as R).
* ``Edgeworth series (AS 89)`` — Best & Roberts' (1975) approximation of that exact null, R's
  ``cor.test(method = "spearman")`` default for 10 ≤ n < 1290 without ties (equal to R 4.x to
  1e-15, tests/reference/r_correlation_nulls.R).

Pearson's r: the t test (scipy, R); a permutation test's p depends on the data, not on r and n.

References
----------
Kendall, M. G. (1938). A new measure of rank correlation. *Biometrika* 30, 81–93. Kendall, M. G.
(1945). The treatment of ties in ranking problems. *Biometrika* 33, 239–251. Kendall, M. G. (1948).
*Rank Correlation Methods*. Griffin. Best, D. J. & Roberts, D. E. (1975). Algorithm AS 89: the upper
tail probabilities of Spearman's rho. *Applied Statistics* 24, 377–379.

Examples
--------
>>> from metaeval.review.nulls import p_ranges
>>> r = p_ranges("kendall", 80, 0.375, 0.385, ties=True)
>>> sorted(r)
['exact null without ties', 'normal approximation with tie correction', 'normal approximation without ties']
>>> lo, hi = r["normal approximation with tie correction"]
>>> bool(lo < 0.0008 < hi)          # scipy's p for the 2×2 table [[30, 10], [15, 25]]
True
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

from ..core.errors import InputError

__all__ = ["p_ranges", "TAU_EXACT_MAX", "RHO_EXACT_MAX", "TAU_NORMAL", "TAU_TIES", "TAU_EXACT", "RHO_T",
           "RHO_EXACT", "RHO_AS89", "R_T"]

#: Largest number of items for the exact null of Kendall's τ (scipy's exact recursion is fast there).
TAU_EXACT_MAX = 170
#: Largest number of items for the exact permutation null of Spearman's ρ (2^m subsets are visited).
RHO_EXACT_MAX = 12

TAU_EXACT = "exact null without ties"
TAU_NORMAL = "normal approximation without ties"
TAU_TIES = "normal approximation with tie correction"
RHO_T = "t approximation"
RHO_EXACT = "exact permutation null"
RHO_AS89 = "Edgeworth series (AS 89)"
#: R uses AS 89 below this many items (and the t approximation from there on).
RHO_AS89_MAX = 1289
R_T = "t test"

_SLACK = 1e-12


def _two_sided_normal(z: float) -> float:
    return float(min(1.0, 2 * stats.norm.sf(abs(z))))


def _abs_range(lo: float, hi: float) -> tuple[float, float]:
    """Smallest and largest |x| over [lo, hi], cut to [0, 1]."""
    lo, hi = max(lo, -1.0), min(hi, 1.0)
    a = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return min(a, 1.0), min(max(abs(lo), abs(hi)), 1.0)


def tau_untied_z_factor(m: int) -> float:
    """z/τ of Kendall's test without ties: 3√(m(m − 1))/√(2(2m + 5))."""
    return 3 * math.sqrt(m * (m - 1.0)) / math.sqrt(2 * (2 * m + 5.0))


def tau_discordant_range(m: int, lo: float, hi: float) -> tuple[int, int] | None:
    """The discordant counts D of m untied items whose τ = 1 − 2D/pairs lies in [lo, hi] (None: none)."""
    pairs = m * (m - 1) // 2
    d_lo = max(0, math.ceil((1 - hi) * pairs / 2 - _SLACK * max(pairs, 1)))
    d_hi = min(pairs, math.floor((1 - lo) * pairs / 2 + _SLACK * max(pairs, 1)))
    return (d_lo, d_hi) if d_lo <= d_hi else None


@functools.lru_cache(maxsize=4096)
def tau_exact_p(m: int, D: int) -> float:
    """Two-sided p of D discordant pairs among m untied items under the exact null (scipy's)."""
    if m > TAU_EXACT_MAX:
        raise ValueError(f"the exact null is used up to {TAU_EXACT_MAX} items")
    code, left = [], D                       # a permutation with D inversions, from its Lehmer code
    for i in range(m):
        c = min(left, m - 1 - i)
        code.append(c)
        left -= c
    avail = list(range(m))
    perm = np.array([avail.pop(c) for c in code])
    return float(stats.kendalltau(np.arange(m), perm, method="exact").pvalue)


def tau_normal_p(m: int, tau: float) -> float:
    """Two-sided p of τ among m untied items, normal approximation (scipy's ``method="asymptotic"``)."""
    return _two_sided_normal(tau * tau_untied_z_factor(m))


@functools.lru_cache(maxsize=64)
def _rho_distribution(m: int) -> tuple[np.ndarray, np.ndarray]:
    """(S values, their counts) of S = Σ (i − π(i))² over the m! permutations (dynamic programme on subsets)."""
    # T = Σ_i i·π(i); position i = popcount(mask) takes value j ∉ mask; S = 2Σi² − 2T
    tmax = sum(i * i for i in range(m))
    dp = np.zeros((1 << m, tmax + 1), dtype=np.float64)
    dp[0, 0] = 1.0
    pop = np.array([bin(x).count("1") for x in range(1 << m)])
    for mask in range(1 << m):
        row = dp[mask]
        if not row.any():
            continue
        i = pop[mask]
        for j in range(m):
            if not mask >> j & 1:
                sh = i * j
                dp[mask | 1 << j, sh:] += row[: tmax + 1 - sh]
    counts = dp[-1]
    t = np.flatnonzero(counts)
    return 2 * tmax - 2 * t, counts[t]


def rho_exact_p(m: int, s: float) -> float:
    """Two-sided exact p of Σd² = s among m untied items (R's ``cor.test(method="spearman", exact=TRUE)``)."""
    S, w = _rho_distribution(m)
    total = w.sum()
    mid = (m ** 3 - m) / 6
    tail = w[S >= s - 1e-9].sum() if s > mid else w[S <= s + 1e-9].sum()
    return float(min(1.0, 2 * tail / total))


_AS89 = (0.2274, 0.2531, 0.1745, 0.0758, 0.1033, 0.3932, 0.0879, 0.0151, 0.0072, 0.0831, 0.0131, 4.6e-4)


def _as89_upper(m: int, s: float) -> float:
    """P(Σd² ≥ s) by the Edgeworth series of Best & Roberts (1975), Algorithm AS 89 (odd s rounds up)."""
    js = s if s % 2 == 0 else s + 1
    if js <= 0:
        return 1.0
    if js > (m ** 3 - m) / 3:
        return 0.0
    c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12 = _AS89
    b = 1.0 / m
    x = (6.0 * (js - 1) * b / (m * m - 1.0) - 1.0) * math.sqrt(1.0 / b - 1.0)
    y = x * x
    u = x * b * (c1 + b * (c2 + c3 * b) + y * (-c4 + b * (c5 + c6 * b)
                 - y * b * (c7 + c8 * b - y * (c9 - c10 * b + y * b * (c11 - c12 * y)))))
    return float(min(1.0, max(0.0, u / math.exp(y / 2) + stats.norm.sf(x))))


def rho_as89_p(m: int, s: float) -> float:
    """Two-sided p of Σd² = s among m items by AS 89, as R's ``cor.test`` (twice the tail, capped at 1)."""
    s = round(s)
    p = _as89_upper(m, s - 1) if s > (m ** 3 - m) / 6 else 1.0 - _as89_upper(m, s + 2)
    return float(min(1.0, 2 * p))


def _r_t_p(r: float, m: int) -> float:
    from ..agreement.correlation import r_test_pvalue

    return float(r_test_pvalue(r, m - 2))


def tie_table_p(method: str, table) -> tuple[float, float]:
    """(coefficient, two-sided p) of scipy's test on the scores a K×K table of counts stands for.

    Rows are the first variable's categories, columns the second's, both scored 0, 1, …, K − 1 in
    order (for Pearson's r: equally spaced scores).
    """
    T = np.asarray(table, dtype=np.int64)
    i, j = np.indices(T.shape)
    x = np.repeat(i.ravel(), T.ravel())
    y = np.repeat(j.ravel(), T.ravel())
    fn = {"kendall": stats.kendalltau, "spearman": stats.spearmanr, "pearson": stats.pearsonr}[method]
    res = fn(x, y)
    return float(res.statistic), float(res.pvalue)


def p_ranges(method: str, m: int, lo: float, hi: float, *, ties: bool = False, table=None) -> dict:
    """Two-sided p over a correlation's rounding interval under every standard method that applies.

    Parameters
    ----------
    method : {"kendall", "spearman", "pearson"}
        The coefficient.
    m : int
        Items (pairs of scores), at least 3.
    lo, hi : float
        The interval of coefficients that print as the reported one.
    ties : bool
        Whether ties are possible (Kendall: add the tie-corrected normal approximation over every
        tie pattern; the exact null assumes no ties, so it is kept only when an untied τ prints
        as the reported one).
    table : array-like (K, K), optional
        Counts of the two variables' categories: the tie pattern is known and scipy's test on it
        is the one method.

    Returns
    -------
    dict
        Method name → (lowest p, highest p) over the interval. A method that cannot give the
        coefficient (no untied τ of m items prints as it) is left out.

    Examples
    --------
    >>> r = p_ranges("kendall", 10, 0.595, 0.605)      # τ = 0.60 of 10 untied items: 9 discordant pairs
    >>> round(r["exact null without ties"][0], 5)
    0.01667
    >>> list(p_ranges("pearson", 30, 0.515, 0.525))
    ['t test']
    """
    if method not in ("kendall", "spearman", "pearson"):
        raise InputError(f"method must be pearson, spearman or kendall, got {method!r}")
    if m < 3:
        raise InputError(f"a p-value of a correlation needs at least 3 pairs, got {m}")
    a, b = _abs_range(lo, hi)
    out: dict[str, tuple[float, float]] = {}
    if table is not None:
        _, p = tie_table_p(method, table)
        name = {"kendall": TAU_TIES, "spearman": RHO_T, "pearson": R_T}[method]
        out[name + " (the stated table)"] = (p, p)
        return out
    if method == "pearson":
        out[R_T] = (_r_t_p(b, m), _r_t_p(a, m))
        return out
    if method == "spearman":
        out[RHO_T] = (_r_t_p(b, m), _r_t_p(a, m))
        if m <= RHO_EXACT_MAX:
            k = (m ** 3 - m) / 6
            s_all, _ = _rho_distribution(m)
            s_in = s_all[(s_all >= (1 - hi) * k - 1e-9) & (s_all <= (1 - lo) * k + 1e-9)]
            if len(s_in):
                ps = [rho_exact_p(m, float(s)) for s in s_in]
                out[RHO_EXACT] = (min(ps), max(ps))
        if 10 <= m <= RHO_AS89_MAX:
            # p is monotone in |ρ| on each side; Σd² is even: evaluate at the even ends of the interval
            k = (m ** 3 - m) / 6
            ends = {2 * math.ceil((1 - hi) * k / 2 - 1e-9), 2 * math.floor((1 - lo) * k / 2 + 1e-9)}
            if min(ends) <= max(ends):
                mid = 2 * round(k / 2)
                ends |= {min(max(mid + d, min(ends)), max(ends)) for d in (-2, 0, 2)}
                ps = [rho_as89_p(m, s) for s in ends]
                out[RHO_AS89] = (min(ps), max(ps))
        return out
    # Kendall
    if m <= TAU_EXACT_MAX:
        rng_d = tau_discordant_range(m, lo, hi)
        if rng_d is not None:
            pairs = m * (m - 1) // 2
            d_lo, d_hi = rng_d
            cand = {d_lo, d_hi, min(max(pairs // 2, d_lo), d_hi), min(max((pairs + 1) // 2, d_lo), d_hi)}
            ps = [tau_exact_p(m, d) for d in cand]
            out[TAU_EXACT] = (min(ps), max(ps))
    out[TAU_NORMAL] = (tau_normal_p(m, b), tau_normal_p(m, a))
    if ties:
        out[TAU_TIES] = (_two_sided_normal(b * tau_untied_z_factor(m)), _two_sided_normal(a * math.sqrt(m - 1)))
    return out
