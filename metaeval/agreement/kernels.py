"""Vectorized kernels of the two-rater table statistics, each declared once in the registry.

A kernel maps an array ``S`` of shape ``(b, K·K)`` — b contingency tables, flattened row by row
(rows: reference, columns: candidate) — to ``(b,)`` values (or ``(b, m)`` for a vector statistic).
The resampling engine evaluates it on thousands of bootstrap tables at once, the public functions
on the one observed table, and every other consumer (reports, differences, sensitivity scenarios,
validation design) through :func:`metaeval.core.registry.resolve`.

The formulas are those of ``STATISTICS.md`` (Cohen 1960, 1968; Scott 1955; Bennett, Alpert &
Goldstein 1954; Gwet 2008, 2014; Krippendorff 2011; Byrt, Bishop & Carlin 1993). Each declaration
names the independent implementation its test compares with.

Examples
--------
>>> import numpy as np
>>> from metaeval.core import registry
>>> f = registry.resolve("cohen_kappa").kernel(2)
>>> np.round(f(np.array([[85, 20, 20, 77]])), 4)
array([0.6033])
"""

from __future__ import annotations

import numpy as np

from ..core.registry import UNDEFINED_PE_TOL, Statistic, register

__all__ = ["chance_corrected", "chance_agreement", "alpha_from_coincidence", "binarized"]


# --------------------------------------------------------------------------------------------
# building blocks
# --------------------------------------------------------------------------------------------

def _proportions(S, k):
    T = np.asarray(S, dtype=float).reshape(-1, k, k)
    n = T.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = T / n[:, None, None]
    return p, n


def chance_agreement(S, k, w, chance):
    """Observed and chance agreement ``(p_o, p_e)`` of b tables under a chance model.

    Parameters
    ----------
    S : array (b, K·K)
        Flattened contingency tables.
    k : int
    w : array (K, K)
        Agreement weights (w_ii = 1).
    chance : {"cohen", "scott", "bp", "gwet"}
        Cohen: p_e = Σ w_ij p_i+ p_+j; Scott: π_k = (p_k+ + p_+k)/2, p_e = Σ w_ij π_i π_j;
        Brennan–Prediger: p_e = Σ w_ij / K²; Gwet: p_e = T_w/(K(K−1)) Σ π_k(1 − π_k).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> import numpy as np
    >>> po, pe = chance_agreement(np.array([[40, 10, 10, 40]]), 2, np.eye(2), "cohen")
    >>> float(po[0]), float(pe[0])
    (0.8, 0.5)
    """
    p, _ = _proportions(S, k)
    po = np.einsum("ij,bij->b", w, p)
    r, c = p.sum(axis=2), p.sum(axis=1)
    if chance == "cohen":
        pe = np.einsum("ij,bi,bj->b", w, r, c)
    elif chance == "scott":
        pi = (r + c) / 2
        pe = np.einsum("ij,bi,bj->b", w, pi, pi)
    elif chance == "bp":
        pe = np.full(len(po), w.sum() / k**2)
    elif chance == "gwet":
        pi = (r + c) / 2
        pe = w.sum() / (k * (k - 1)) * (pi * (1 - pi)).sum(axis=1)
    else:
        raise ValueError(f"chance must be 'cohen', 'scott', 'bp' or 'gwet', got {chance!r}")
    return po, pe


def chance_corrected(po, pe):
    """(p_o − p_e)/(1 − p_e), NaN where chance agreement is 1 (the one definition of "undefined").

    Parameters
    ----------
    po, pe : array-like
        Observed and chance agreement.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> chance_corrected([0.8, 1.0], [0.5, 1.0])
    array([0.6, nan])
    """
    po = np.asarray(po, dtype=float)
    pe = np.asarray(pe, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (po - pe) / (1 - pe)
    return np.where(np.abs(1 - pe) <= UNDEFINED_PE_TOL, np.nan, out)


def alpha_from_coincidence(o, values, level):
    """Krippendorff's alpha from b coincidence matrices ``o`` (b, V, V) (Krippendorff 2011).

    Parameters
    ----------
    o : array (b, V, V)
    values : array (V,)
        The numeric values of the categories (for interval, ratio and ordinal metrics).
    level : {"nominal", "ordinal", "interval", "ratio"}

    Returns
    -------
    numpy.ndarray (b,)

    Examples
    --------
    >>> import numpy as np
    >>> o = np.array([[[8., 2.], [2., 8.]]])
    >>> np.round(alpha_from_coincidence(o, [0, 1], "nominal"), 4)
    array([0.62])
    """
    o = np.asarray(o, dtype=float)
    nc = o.sum(axis=2)
    n = nc.sum(axis=1)
    v = np.asarray(values, dtype=float)
    if level == "nominal":
        d2 = (1 - np.eye(len(v)))[None]
    elif level == "interval":
        d2 = ((v[:, None] - v[None, :]) ** 2)[None]
    elif level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d2 = (((v[:, None] - v[None, :]) / (v[:, None] + v[None, :])) ** 2)
        d2 = np.nan_to_num(d2)[None]
    elif level == "ordinal":
        mid = np.cumsum(nc, axis=1) - nc / 2
        d2 = (mid[:, :, None] - mid[:, None, :]) ** 2
    else:
        raise ValueError(f"level must be nominal, ordinal, interval or ratio, got {level!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        do = (o * d2).sum(axis=(1, 2)) / n
        de = (nc[:, :, None] * nc[:, None, :] * d2).sum(axis=(1, 2)) / (n * (n - 1))
        out = 1 - do / de
    return np.where(de > 0, out, np.nan)


def binarized(T, j):
    """(b, 2, 2) tables for "level index < j" vs ">= j" from (b, K, K) tables.

    Parameters
    ----------
    T : array (b, K, K)
    j : int
        The first level index counted as positive.

    Returns
    -------
    numpy.ndarray (b, 2, 2)

    Examples
    --------
    >>> import numpy as np
    >>> binarized(np.arange(9.).reshape(1, 3, 3), 1)[0]
    array([[ 0.,  3.],
           [ 9., 24.]])
    """
    T = np.asarray(T, dtype=float)
    b00 = T[:, :j, :j].sum(axis=(1, 2))
    b01 = T[:, :j, j:].sum(axis=(1, 2))
    b10 = T[:, j:, :j].sum(axis=(1, 2))
    b11 = T[:, j:, j:].sum(axis=(1, 2))
    return np.stack([np.stack([b00, b01], 1), np.stack([b10, b11], 1)], 1)


# --------------------------------------------------------------------------------------------
# kernel factories: factory(k, w, levels, **params) -> f(S) (see metaeval.core.registry)
# --------------------------------------------------------------------------------------------

def _chance_kernel(chance):
    def factory(k, w, levels):
        def f(S):
            return chance_corrected(*chance_agreement(S, k, w, chance))
        return f
    return factory


def _po_factory(k, w, levels):
    def f(S):
        p, _ = _proportions(S, k)
        return np.einsum("ij,bij->b", w, p)
    return f


def _alpha_factory(k, level, levels):
    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, k, k)
        return alpha_from_coincidence(T + T.transpose(0, 2, 1), levels, level)
    return f


def _kappa_max_factory(k, w, levels):
    def f(S):
        p, _ = _proportions(S, k)
        r, c = p.sum(axis=2), p.sum(axis=1)
        return chance_corrected(np.minimum(r, c).sum(axis=1), (r * c).sum(axis=1))
    return f


def _mcc_factory(k, w, levels):
    def f(S):
        C = np.asarray(S, dtype=float).reshape(-1, k, k)
        t, p = C.sum(axis=2), C.sum(axis=1)
        c = np.trace(C, axis1=1, axis2=2)
        s = C.sum(axis=(1, 2))
        num = c * s - (t * p).sum(axis=1)
        den = np.sqrt((s**2 - (p**2).sum(axis=1)) * (s**2 - (t**2).sum(axis=1)))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / den, np.nan)
    return f


def _per_class_factory(k, w, levels):
    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, k, k)
        d = np.diagonal(T, axis1=1, axis2=2)
        r, c = T.sum(axis=2), T.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.concatenate([d / c, d / r, 2 * d / (r + c)], axis=1)
    return f


def _binary_factory(k, w, levels):
    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, 2, 2)
        tn, fp, fn, tp = T[:, 0, 0], T[:, 0, 1], T[:, 1, 0], T[:, 1, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.stack([tp / (tp + fn), tn / (tn + fp), tp / (tp + fp), tn / (tn + fn),
                             (tp + fn) / T.sum(axis=(1, 2))], axis=1)
    return f


def _pi_bi_factory(k, w, levels):
    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, 2, 2)
        n = T.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.stack([(T[:, 1, 1] - T[:, 0, 0]) / n, (T[:, 1, 0] - T[:, 0, 1]) / n], axis=1)
    return f


def _at_prevalence_factory(k, w, levels, prevalence):
    prevs = np.atleast_1d(np.asarray(prevalence, dtype=float))

    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, 2, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            se = T[:, 1, 1] / T[:, 1].sum(axis=1)
            sp = T[:, 0, 0] / T[:, 0].sum(axis=1)
            pi = prevs[None, :]
            tp, fn = pi * se[:, None], pi * (1 - se[:, None])
            fp, tn = (1 - pi) * (1 - sp[:, None]), (1 - pi) * sp[:, None]
            po = tp + tn
            pe = (tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)
            return np.concatenate([chance_corrected(po, pe), tp / (tp + fp), po], axis=1)
    return f


_THRESHOLD_STATS = ("cohen_kappa", "observed_agreement", "pabak", "gwet_ac1", "precision", "recall")


def _threshold_factory(k, w, levels):
    eye = np.eye(2)

    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, k, k)
        cols = []
        for j in range(1, k):
            B = binarized(T, j)
            flat = B.reshape(-1, 4)
            po, pe = chance_agreement(flat, 2, eye, "cohen")
            _, peg = chance_agreement(flat, 2, eye, "gwet")
            with np.errstate(invalid="ignore", divide="ignore"):
                prec = B[:, 1, 1] / B[:, :, 1].sum(axis=1)
                rec = B[:, 1, 1] / B[:, 1, :].sum(axis=1)
            cols += [chance_corrected(po, pe), po, 2 * po - 1, chance_corrected(po, peg), prec, rec]
        return np.stack(cols, axis=1)
    return f


# --------------------------------------------------------------------------------------------
# the declarations
# --------------------------------------------------------------------------------------------

_ONE_CLASS = "defined unless chance agreement is 1 (both raters use one and the same level)"

register(Statistic(
    "observed_agreement", "Observed agreement", "table", _po_factory, weights="agreement",
    default_weights="identity", analytic="metaeval.agreement.analytic:percent_agreement",
    defined="defined for any non-empty table",
    reference="the definition (share of the diagonal); irrCAC pa2.table for its variance",
    public="observed_agreement"))
register(Statistic(
    "cohen_kappa", "Cohen's κ", "table", _chance_kernel("cohen"), weights="agreement",
    default_weights="identity", analytic="metaeval.agreement.analytic:cohen_kappa",
    defined=_ONE_CLASS, warn_undefined=True,
    reference="scikit-learn cohen_kappa_score, statsmodels cohens_kappa, R psych cohen.kappa, irrCAC kappa2.table",
    public="cohen_kappa"))
register(Statistic(
    "scott_pi", "Scott's π", "table", _chance_kernel("scott"), weights="agreement",
    default_weights="identity", analytic="metaeval.agreement.analytic:scott_pi",
    defined=_ONE_CLASS, warn_undefined=True, reference="irrCAC scott2.table", public="scott_pi"))
register(Statistic(
    "bennett_s", "Brennan–Prediger S", "table", _chance_kernel("bp"), weights="agreement",
    default_weights="identity", analytic="metaeval.agreement.analytic:brennan_prediger",
    defined="always defined (chance agreement Σ w_ij / K² < 1)",
    reference="irrCAC bp2.table", public="bennett_s"))
register(Statistic(
    "pabak", "PABAK", "table", _chance_kernel("bp"), weights=None,
    analytic="metaeval.agreement.analytic:brennan_prediger",
    defined="always defined; equals the unweighted Brennan–Prediger S (2 p_o − 1 for two levels)",
    reference="Byrt, Bishop & Carlin (1993); irrCAC bp2.table", public="pabak"))
register(Statistic(
    "gwet_ac1", "Gwet's AC1", "table", _chance_kernel("gwet"), weights=None,
    analytic="metaeval.agreement.analytic:gwet_ac",
    defined="defined whenever K ≥ 2 (chance agreement ≤ 1/2 ... < 1)",
    reference="irrCAC gwet.ac1.table", public="gwet_ac1"))
register(Statistic(
    "gwet_ac2", "Gwet's AC2", "table", _chance_kernel("gwet"), weights="agreement",
    default_weights="quadratic", analytic="metaeval.agreement.analytic:gwet_ac",
    defined="defined whenever K ≥ 2",
    reference="irrCAC gwet.ac1.table with weights", public="gwet_ac2"))
register(Statistic(
    "krippendorff_alpha", "Krippendorff's α", "table", _alpha_factory, weights="level",
    default_weights="nominal", analytic="metaeval.agreement.analytic:krippendorff_alpha",
    defined="defined unless every value is the same (expected disagreement 0)",
    reference="the krippendorff package; Krippendorff (2011) examples; irrCAC krippen2.table",
    public="krippendorff_alpha"))
register(Statistic(
    "kappa_max", "κ_max", "table", _kappa_max_factory, defined=_ONE_CLASS, warn_undefined=True,
    reference="the definition (Cohen 1960): Σ min(p_k+, p_+k) as p_o", public="kappa_max",
    math_label=r"$\kappa_{\max}$"))
register(Statistic(
    "matthews_corrcoef", "MCC", "table", _mcc_factory, defined="defined unless a rater uses one level",
    reference="scikit-learn matthews_corrcoef", public="matthews_corrcoef"))
register(Statistic(
    "per_class", "Per-class precision, recall, F1", "table", _per_class_factory, symmetric=False,
    components=lambda k, labels: [f"{m}[{lab}]" for m in ("precision", "recall", "f1") for lab in labels],
    defined="precision of a class the candidate never uses, recall of a class the reference never uses: NaN",
    reference="scikit-learn precision_recall_fscore_support", public="per_class"))
register(Statistic(
    "binary_metrics", "Sensitivity, specificity, PPV, NPV, prevalence", "table", _binary_factory,
    symmetric=False, needs_binary=True,
    components=lambda k, labels: ["sensitivity", "specificity", "ppv", "npv", "prevalence"],
    reference="scikit-learn confusion_matrix (by definition)", public="binary_metrics"))
register(Statistic(
    "prevalence_bias_index", "Prevalence and bias indices", "table", _pi_bi_factory, symmetric=False,
    needs_binary=True, components=lambda k, labels: ["prevalence_index", "bias_index"],
    reference="Byrt, Bishop & Carlin (1993), the identity κ = (PABAK − PI² + BI²)/(1 − PI² + BI²)",
    public="prevalence_bias_index"))
register(Statistic(
    "kappa_at_prevalence", "κ, PPV and p_o at another prevalence", "table", _at_prevalence_factory,
    symmetric=False, needs_binary=True, params=("prevalence",),
    components=lambda k, labels, prevalence: [
        f"{s}@{p:g}" for s in ("kappa", "ppv", "observed_agreement") for p in np.atleast_1d(prevalence)],
    reference="STATISTICS.md: the balanced table [[85, 20], [20, 77]] gives κ ≈ 0.063, PPV ≈ 0.043 at π = 0.0107",
    public="kappa_at_prevalence", math_label=r"$\kappa$, PPV and $p_o$ at another prevalence"))
register(Statistic(
    "threshold_agreement", "Agreement at every threshold", "table", _threshold_factory, symmetric=False,
    components=lambda k, labels: [f"{s}@{j}" for j in range(1, k) for s in _THRESHOLD_STATS],
    reference="the registry's binary statistics on each binarized table", public="threshold_agreement"))
