"""The correlation methods of score judges, declared once in the package registry (family ``"levels"``).

Each method is a :class:`~metaeval.core.registry.Statistic` of family ``"levels"``: its
``group_kernel`` maps groups of scores — arrays ``(G, n)`` of human scores, judge scores and a
validity mask, one group per row — to one value per group and the weight of that group in a
size-weighted average. :func:`metaeval.level_correlation`, the study files and the figures look the
methods up here by name (``registry.get("tau_23")``); nothing else keeps a map of names to kernels.
Two methods are not per-group: ``acc_eq`` calibrates one tie threshold over all groups, and
``soft_pairwise_accuracy`` needs every system's item scores; their ``group_kernel`` is None and
:mod:`metaeval.levels.correlation` evaluates them on the whole matrix.

Examples
--------
>>> from metaeval.core import registry
>>> [s.name for s in registry.statistics("levels")][:4]
['pearson', 'spearman', 'kendall', 'tau_c']
>>> registry.get("acc_23").label
'acc_23'
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from ..core.errors import InputError
from ..core.registry import Statistic, register
from .pairs import kendall_from_counts, pair_counts

__all__ = ["masked_pearson", "masked_spearman"]


def _not_a_table(name):
    def factory(k, w, levels, **params):
        raise InputError(f"{name} is a correlation of score judges (family 'levels'), not a statistic of a "
                         "K×K table", source="<statistic>", expected="a two-rater table statistic here",
                         fix=f"use metaeval.level_correlation(human, judge, method={name!r})")
    return factory


def masked_pearson(h, m, valid):
    """Pearson's r of each row over its valid cells (NaN when a row is constant or has < 2 cells).

    Parameters
    ----------
    h, m : array (G, n)
    valid : bool array (G, n)

    Returns
    -------
    r, n : numpy.ndarray (G,)
        The correlation and the number of valid cells.

    References
    ----------
    scipy.stats.pearsonr on each row's valid cells (tests/test_levels.py, to 1e-12).

    Examples
    --------
    >>> import numpy as np
    >>> r, n = masked_pearson(np.array([[1.0, 2, 3, 9]]), np.array([[1.0, 3, 2, 0]]), np.array([[1, 1, 1, 0]], bool))
    >>> round(float(r[0]), 4), int(n[0])
    (0.5, 3)
    """
    w = valid.astype(float)
    n = w.sum(axis=1)
    hz = np.where(valid, h, 0.0)
    mz = np.where(valid, m, 0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # the order of operations of scipy.stats.pearsonr: centre, then norms scaled by the largest
        # |deviation| (tiny or huge scores neither underflow nor overflow when squared)
        dh = np.where(valid, hz - (hz.sum(axis=1) / n)[:, None], 0.0)
        dm = np.where(valid, mz - (mz.sum(axis=1) / n)[:, None], 0.0)
        xh = np.abs(dh).max(axis=1, initial=0.0)[:, None]
        xm = np.abs(dm).max(axis=1, initial=0.0)[:, None]
        nh = xh[:, 0] * np.sqrt(((dh / xh) ** 2).sum(axis=1))
        nm = xm[:, 0] * np.sqrt(((dm / xm) ** 2).sum(axis=1))
        r = ((dh / nh[:, None]) * (dm / nm[:, None])).sum(axis=1)
    hmax = np.where(valid, h, -np.inf).max(axis=1, initial=-np.inf)
    hmin = np.where(valid, h, np.inf).min(axis=1, initial=np.inf)
    mmax = np.where(valid, m, -np.inf).max(axis=1, initial=-np.inf)
    mmin = np.where(valid, m, np.inf).min(axis=1, initial=np.inf)
    const = (hmax == hmin) | (mmax == mmin)
    r = np.where(const | (n < 2), np.nan, np.clip(r, -1.0, 1.0))
    return r, n


def masked_spearman(h, m, valid):
    """Spearman's ρ of each row over its valid cells: Pearson's r of the midranks.

    Parameters
    ----------
    h, m : array (G, n)
    valid : bool array (G, n)

    Returns
    -------
    rho, n : numpy.ndarray (G,)

    References
    ----------
    scipy.stats.spearmanr on each row's valid cells (tests/test_levels.py, to 1e-12).

    Examples
    --------
    >>> import numpy as np
    >>> r, n = masked_spearman(np.array([[1.0, 2, 3, 4]]), np.array([[1.0, 3, 2, 4]]), np.ones((1, 4), bool))
    >>> float(r[0])
    0.8
    """
    rh = sps.rankdata(np.where(valid, h, np.inf), axis=1)
    rm = sps.rankdata(np.where(valid, m, np.inf), axis=1)
    return masked_pearson(rh, rm, valid) if h.shape[1] else (np.full(h.shape[0], np.nan), np.zeros(h.shape[0]))


def _pearson_kernel(h, m, valid, **_):
    return masked_pearson(h, m, valid)


def _spearman_kernel(h, m, valid, **_):
    return masked_spearman(h, m, valid)


def _kendall_kernel(variant):
    def kernel(h, m, valid, epsilon=0.0, **_):
        if variant == "tau_c" and epsilon:
            raise InputError("tau_c takes no tie threshold (epsilon)", source="<method>",
                             fix="use epsilon=0, or the method 'tau_23' / 'acc_23'")
        c = pair_counts(h, m, valid, epsilon=float(epsilon or 0.0), distinct=(variant == "tau_c"))
        return kendall_from_counts(c, variant), c["n"]
    return kernel


def _kendall_like_kernel(h, m, valid, kendall_like_threshold=None, **_):
    """WMT20 Kendall-like over the pairs whose human difference is at least the threshold."""
    g, n = h.shape
    out = np.zeros((3, g))
    iu = np.triu_indices(n, 1)
    step = max(1, 4_000_000 // max(1, n * n))
    for a in range(0, g, step):
        b = min(g, a + step)
        hh = np.where(valid[a:b], h[a:b], 0.0)
        mm = np.where(valid[a:b], m[a:b], 0.0)
        dh = (hh[:, :, None] - hh[:, None, :])[:, iu[0], iu[1]]
        dm = (mm[:, :, None] - mm[:, None, :])[:, iu[0], iu[1]]
        ok = (valid[a:b, :, None] & valid[a:b, None, :])[:, iu[0], iu[1]]
        if kendall_like_threshold is None:
            take = ok & (dh != 0)
        else:
            take = ok & (np.abs(dh) >= float(kendall_like_threshold))
        con = take & (((dh > 0) & (dm > 0)) | ((dh < 0) & (dm < 0)))
        out[0, a:b] = con.sum(axis=1)
        out[1, a:b] = (take & ~con).sum(axis=1)
    con, dis = out[0], out[1]
    pairs = con + dis
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(pairs > 0, (con - dis) / pairs, np.nan)
    return value, pairs


_REF_MTME = "mt-metrics-eval (google-research, stats.py) on random matrices with ties and missing cells"
_REF_SCIPY = "scipy.stats on each group; mt-metrics-eval and nlpstats on random matrices"

PEARSON = register(Statistic(
    "pearson", "Pearson's r", "levels", _not_a_table("pearson"), defined="each group has two distinct values in "
    "both scores", reference=_REF_SCIPY + "; HANNA (Chhun et al. 2022) tables", public="level_correlation",
    math_label=r"Pearson's $r$", group_kernel=_pearson_kernel))
SPEARMAN = register(Statistic(
    "spearman", "Spearman's ρ", "levels", _not_a_table("spearman"), defined="as Pearson's r, on midranks",
    reference=_REF_SCIPY + "; HANNA (Chhun et al. 2022) tables", public="level_correlation",
    math_label=r"Spearman's $\rho$", group_kernel=_spearman_kernel))
KENDALL = register(Statistic(
    "kendall", "Kendall's τ_b", "levels", _not_a_table("kendall"), defined="neither score is tied on every pair",
    reference=_REF_SCIPY + "; HANNA (Chhun et al. 2022) tables", public="level_correlation",
    math_label=r"Kendall's $\tau_b$", group_kernel=_kendall_kernel("kendall"), params=()))
TAU_C = register(Statistic(
    "tau_c", "Kendall's τ_c", "levels", _not_a_table("tau_c"), defined="neither score is tied on every pair",
    reference="scipy.stats.kendalltau(variant='c'); " + _REF_MTME, public="level_correlation",
    math_label=r"Kendall's $\tau_c$", group_kernel=_kendall_kernel("tau_c")))
TAU_23 = register(Statistic(
    "tau_23", "τ_23", "levels", _not_a_table("tau_23"), defined="a group has at least one pair",
    reference=_REF_MTME + " (KendallVariants variant='23')", public="level_correlation",
    math_label=r"$\tau_{23}$", group_kernel=_kendall_kernel("tau_23")))
ACC_23 = register(Statistic(
    "acc_23", "acc_23", "levels", _not_a_table("acc_23"), defined="a group has at least one pair",
    reference=_REF_MTME + " (KendallVariants variant='acc23')", public="level_correlation",
    math_label=r"$\mathrm{acc}_{23}$", group_kernel=_kendall_kernel("acc_23")))
ACC_EQ = register(Statistic(
    "acc_eq", "acc_eq (tie-calibrated)", "levels", _not_a_table("acc_eq"),
    defined="at least one group has a pair", reference=_REF_MTME + " (KendallWithTiesOpt, sample_rate=1)",
    public="level_correlation", math_label=r"$\mathrm{acc}_{\mathrm{eq}}$", group_kernel=None))
KENDALL_LIKE = register(Statistic(
    "kendall_like", "Kendall-like (WMT20)", "levels", _not_a_table("kendall_like"),
    defined="a group has a pair whose human difference reaches the threshold",
    reference=_REF_MTME + " (KendallLike)", public="level_correlation", group_kernel=_kendall_like_kernel))
PAIRWISE_ACCURACY = register(Statistic(
    "pairwise_accuracy", "pairwise accuracy", "levels", _not_a_table("pairwise_accuracy"),
    defined="a group has at least one pair", reference=_REF_MTME + " (Agreement)", public="level_correlation",
    group_kernel=_kendall_kernel("pairwise_accuracy")))
SOFT_PAIRWISE_ACCURACY = register(Statistic(
    "soft_pairwise_accuracy", "soft pairwise accuracy", "levels", _not_a_table("soft_pairwise_accuracy"),
    defined="at least two systems with items scored by every system",
    reference=_REF_MTME + " (PairwiseConfidenceError, pce.py)", public="level_correlation", group_kernel=None))
