"""Agreement between a reference rater (usually human) and a candidate (usually the judge).

Every coefficient here is a function of the K×K contingency table (rows: reference, columns:
candidate), or, for Krippendorff's alpha and Fleiss' kappa, of an additive per-item sufficient
statistic. Intervals come from :mod:`metaeval.resample` (items, clusters or strata), or from the
analytic large-sample variance where one exists (Cohen's kappa: Fleiss, Cohen & Everitt 1969).

Input forms accepted by the table statistics
--------------------------------------------
* two label arrays ``x`` (reference) and ``y`` (candidate);
* a :class:`metaeval.Paired` from :func:`metaeval.align` (``cluster`` may then name a column);
* ``table=``: a K×K array of counts, or a ``(C, K, K)`` array of per-cluster tables (then the
  bootstrap resamples clusters).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..core.errors import InputError, SmallSampleWarning, UndefinedStatisticWarning
from ..core.resample import Units, bootstrap, table_units
from ..core.results import ConfidenceInterval, Estimate, ResultSet
from ..core.scale import Scale
from .weights import weight_matrix

__all__ = [
    "cohen_kappa", "scott_pi", "pabak", "bennett_s", "gwet_ac1", "gwet_ac2", "observed_agreement",
    "kappa_max", "matthews_corrcoef", "confusion_matrix",
    "per_class", "binary_metrics", "prevalence_bias_index", "kappa_at_prevalence", "threshold_agreement",
    "agreement_report", "agreement_by", "agreement_difference", "weight_matrix", "TableData", "prepare_table",
]


# --------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------

class TableData:
    """A pooled K×K table, the units to resample, and a description of the data."""

    def __init__(self, table, units: Units, scale: Scale, n: int):
        self.table = table
        self.units = units
        self.scale = scale
        self.n = n
        self.k = table.shape[0]


def prepare_table(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None) -> TableData:
    """Normalize the accepted input forms to a pooled table plus resampling units."""
    from ..core.tables import contingency
    from ..data.alignment import Paired

    if table is not None:
        if x is not None or y is not None:
            raise ValueError("pass either labels (x, y) or table=, not both")
        t = np.asarray(table)
        if not np.issubdtype(t.dtype, np.number):
            raise InputError("table= must hold numbers (counts)", source="<table>")
        if t.ndim == 2 and t.shape[0] == t.shape[1] and t.shape[0] >= 2:
            tt = t
            units = table_units(_counts(t))
        elif t.ndim == 3 and t.shape[1] == t.shape[2] and t.shape[1] >= 2:
            tt = t.sum(axis=0)
            units = table_units(None, cluster_tables=_counts(t))
        else:
            raise InputError(f"table= must be a K×K (K ≥ 2) or C×K×K array of counts, got shape {t.shape}",
                             source="<table>")
        tt = _counts(tt)
        if scale is None:
            scale = Scale(tuple(range(tt.shape[0])))
        elif scale.k != tt.shape[0]:
            raise ValueError(f"scale has {scale.k} levels for a {tt.shape[0]}x{tt.shape[0]} table")
        return TableData(tt, units, scale, int(tt.sum()))
    if isinstance(x, Paired):
        if y is not None:
            raise ValueError("pass a Paired alone, not with y")
        paired = x
        scale = scale or paired.scale
        r, c = paired.reference, paired.candidate
        cl = paired._column(cluster) if cluster is not None else None
        st = paired._column(strata) if strata is not None else None
    else:
        if x is None or y is None:
            raise ValueError("pass two label arrays (x, y), a Paired, or table=")
        r = _labels(x, "x")
        c = _labels(y, "y")
        if len(r) != len(c):
            raise InputError(f"x and y have different lengths: {len(r)} and {len(c)}",
                             fix="pass labels of the same items, aligned (see metaeval.align)")
        cl = None if cluster is None else np.asarray(cluster)
        st = None if strata is None else np.asarray(strata)
        if scale is None:
            scale = Scale.infer(r, c)
    if cl is not None and st is not None:
        raise ValueError("cluster= and strata= cannot be combined yet")
    ok = ~(np.isnan(r) | np.isnan(c))
    if not ok.all():
        warnings.warn(f"{int((~ok).sum())} pair(s) with a missing label left out", UndefinedStatisticWarning,
                      stacklevel=3)
    tt = contingency(r, c, scale)
    if cl is not None:
        if len(cl) != len(r):
            raise InputError(f"cluster has {len(cl)} entries for {len(r)} pairs")
        units = table_units(None, cluster_tables=contingency(r, c, scale, cluster=cl))
    elif st is not None:
        if len(st) != len(r):
            raise InputError(f"strata has {len(st)} entries for {len(r)} pairs")
        units = table_units(None, strata_tables=contingency(r, c, scale, cluster=st))
    else:
        units = table_units(tt)
    return TableData(tt, units, scale, int(tt.sum()))


def _labels(v, name):
    if isinstance(v, pd.Series):
        v = v.to_numpy()
    try:
        return np.asarray(v, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InputError(f"{name} must hold numeric labels", fix="map text labels to numbers first") from None


def _counts(t):
    t = np.asarray(t, dtype=float)
    if (t < 0).any() or np.isnan(t).any():
        raise InputError("table= must hold non-negative counts", source="<table>")
    if not np.allclose(t, np.round(t)):
        raise InputError("table= must hold integer counts (for weighted designs use metaeval's design functions)",
                         source="<table>")
    return np.round(t).astype(np.int64)


# --------------------------------------------------------------------------------------------
# vectorized kernels: S has shape (b, K*K)
# --------------------------------------------------------------------------------------------

def _tables(S, k):
    T = np.asarray(S, dtype=float).reshape(-1, k, k)
    n = T.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = T / n[:, None, None]
    return p, n


def _po_pe(S, k, w, chance):
    p, n = _tables(S, k)
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
    else:  # pragma: no cover
        raise ValueError(chance)
    return po, pe


def _coef(po, pe):
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (po - pe) / (1 - pe)
    out = np.where(np.isclose(pe, 1.0, rtol=0, atol=1e-14), np.nan, out)
    return out


def _kappa_kernel(k, w, chance):
    def f(S):
        po, pe = _po_pe(S, k, w, chance)
        return _coef(po, pe)
    return f


def _alpha_from_coincidence(o, values, level):
    """Krippendorff's alpha from coincidence matrices o (b, V, V) (Krippendorff 2011)."""
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


def _alpha_table_kernel(k, values, level):
    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, k, k)
        return _alpha_from_coincidence(T + T.transpose(0, 2, 1), values, level)
    return f


def _kappa_max_kernel(k):
    def f(S):
        p, _ = _tables(S, k)
        r, c = p.sum(axis=2), p.sum(axis=1)
        pe = (r * c).sum(axis=1)
        pomax = np.minimum(r, c).sum(axis=1)
        return _coef(pomax, pe)
    return f


def _mcc_kernel(k):
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


def _po_kernel(k, w):
    def f(S):
        p, _ = _tables(S, k)
        return np.einsum("ij,bij->b", w, p)
    return f


# --------------------------------------------------------------------------------------------
# result assembly
# --------------------------------------------------------------------------------------------

def _check_defined(name, value, td: TableData):
    if np.isnan(value):
        used_r = (td.table.sum(axis=1) > 0).sum()
        used_c = (td.table.sum(axis=0) > 0).sum()
        why = ("the sample is empty" if td.n == 0 else
               f"chance agreement is 1: the reference uses {used_r} and the candidate {used_c} of {td.k} "
               "levels (one class only)")
        warnings.warn(f"{name} is undefined: {why}; PABAK and Gwet's AC1 still report", UndefinedStatisticWarning,
                      stacklevel=4)


def _run(kernel, td: TableData, names, *, n_resamples, ci_method, confidence_level, rng, alternative="two-sided",
         analytic=None, warn_names=None):
    """Bootstrap a (vector) kernel and wrap each component in an Estimate."""
    names = [names] if isinstance(names, str) else list(names)
    if ci_method == "analytic":
        if analytic is None:
            raise ValueError(f"no analytic interval for {names[0]}; use ci_method='bca', 'percentile' or 'basic'")
        return analytic()
    res = bootstrap(kernel, td.units, n_resamples=n_resamples, ci_method=ci_method,
                    confidence_level=confidence_level, rng=rng, alternative=alternative)
    out = []
    for j, name in enumerate(names):
        if warn_names is None or name in warn_names:
            _check_defined(name, res.theta_hat[j], td)
        out.append(Estimate(
            statistic=name, estimate=float(res.theta_hat[j]),
            ci=ConfidenceInterval(float(res.low[j]), float(res.high[j]), confidence_level, ci_method),
            se=float(res.se[j]), bias=float(res.bias[j]), n=td.n, unit=res.unit, n_units=res.n_units,
            n_resamples=res.n_resamples, seed=res.seed,
            replicates=None if res.replicates is None else res.replicates[:, j],
            extra={"z0": float(res.z0[j]), "a": float(res.accel[j]), "n_nan_replicates": int(res.n_nan[j]),
                   **res.extra}))
    return out


_COMMON_DOC = """
    Parameters
    ----------
    x, y : array-like or Paired, optional
        Reference and candidate labels, or a Paired from :func:`metaeval.align`.
    table : array, optional
        K×K counts (rows: reference, columns: candidate), or C×K×K per-cluster counts.
    scale : Scale, optional
        The levels (and so K); inferred from the labels when omitted.
    cluster : array-like or str, optional
        Cluster id of each pair (or a column of the Paired): resample clusters (topics).
    strata : array-like or str, optional
        Stratum of each pair: resample items within strata.
    ci_method : {"bca", "percentile", "basic"%s}
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    Estimate
"""


def _kappa_family(name, chance, x, y, table, weights, scale, cluster, strata, ci_method, n_resamples,
                  confidence_level, rng, analytic=None):
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    w = weight_matrix(weights, td.k)
    kernel = _kappa_kernel(td.k, w, chance)
    return _run(kernel, td, name, n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng,
                analytic=(lambda: [analytic(td, w)]) if analytic else None,
                warn_names=None if chance in ("cohen", "scott") else [])[0]


def _fce(td: TableData, w, confidence_level):
    """Cohen's weighted kappa with the Fleiss–Cohen–Everitt (1969) variance, and var under H0."""
    n = td.n
    p = td.table / n
    r, c = p.sum(axis=1), p.sum(axis=0)
    pe = float(r @ w @ c)
    if np.isclose(pe, 1.0):
        return np.nan, np.nan, np.nan
    po = float((w * p).sum())
    kappa = (po - pe) / (1 - pe) if not np.isclose(pe, 1) else np.nan
    wi = w @ c          # w̄_i+ = Σ_j p_+j w_ij
    wj = r @ w          # w̄_+j = Σ_i p_i+ w_ij
    term = (p * (w - (wi[:, None] + wj[None, :]) * (1 - kappa)) ** 2).sum()
    var = (term - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2)
    term0 = (np.outer(r, c) * (w - (wi[:, None] + wj[None, :])) ** 2).sum()
    var0 = (term0 - pe**2) / (n * (1 - pe) ** 2)
    return kappa, max(var, 0.0), max(var0, 0.0)


def cohen_kappa(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
                ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Cohen's kappa, unweighted or weighted (Cohen 1960, 1968).

    κ_w = (p_o − p_e)/(1 − p_e) with p_o = Σ w_ij p_ij and p_e = Σ w_ij p_i+ p_+j.
    ``weights``: None (unweighted), ``"linear"``, ``"quadratic"`` or a K×K agreement-weight matrix.

    ``ci_method="analytic"`` gives the Fleiss–Cohen–Everitt (1969) large-sample interval (the
    variance statsmodels' ``cohens_kappa`` uses; R psych agrees for unweighted kappa). The z-test
    p-value in ``.pvalue`` always uses the variance under H0 (``extra["se0"]``), kept apart from the
    interval's standard error (with ``cluster=`` or ``strata=`` the z-test does not apply, and
    ``.pvalue`` is the bootstrap p-value of kappa = 0 instead). A one-class sample gives NaN and a
    warning.

    Validated against scikit-learn's ``cohen_kappa_score``, statsmodels' ``cohens_kappa`` and R
    ``psych::cohen.kappa`` (tests/reference).
    %s
    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.cohen_kappa(table=[[85, 20], [20, 77]], ci_method="analytic").estimate, 4)
    0.6032
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    if ci_method == "analytic" and td.units.kind != "items":
        raise ValueError("the analytic interval assumes iid items; use a bootstrap ci_method ('bca', "
                         "'percentile', 'basic') with cluster= or strata=")
    w = weight_matrix(weights, td.k)
    name = "cohen_kappa" if weights is None else f"cohen_kappa_{weights if isinstance(weights, str) else 'weighted'}"
    kappa, var, var0 = _fce(td, w, confidence_level) if td.n > 0 else (np.nan, np.nan, np.nan)
    se0 = float(np.sqrt(var0)) if var0 == var0 else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        pval = float(2 * sps.norm.sf(abs(kappa / se0))) if se0 and se0 > 0 else np.nan

    def analytic():
        _check_defined(name, kappa, td)
        se = float(np.sqrt(var))
        z = sps.norm.ppf(0.5 + confidence_level / 2)
        return [Estimate(name, float(kappa), ConfidenceInterval(kappa - z * se, kappa + z * se, confidence_level,
                                                                "analytic"),
                         se=se, pvalue=pval, n=td.n, unit="none", n_units=td.n, extra={"se0": se0, "var": var})]

    est = _run(_kappa_kernel(td.k, w, "cohen"), td, name, n_resamples=n_resamples, ci_method=ci_method,
               confidence_level=confidence_level, rng=rng, analytic=analytic)[0]
    if ci_method != "analytic":
        if td.units.kind != "items" and est.replicates is not None:
            # the z-test assumes iid items: with clusters or strata, the bootstrap p-value of kappa = 0
            reps = est.replicates[~np.isnan(est.replicates)]
            pval = float(min(1.0, 2 * min((reps <= 0).mean(), (reps >= 0).mean()))) if len(reps) else np.nan
        est = Estimate(**{**est.__dict__, "pvalue": pval, "extra": {**est.extra, "se0": se0,
                                                                   "se_analytic": float(np.sqrt(var))}})
    return est


cohen_kappa.__doc__ = cohen_kappa.__doc__ % (_COMMON_DOC % ', "analytic"')


def scott_pi(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None, ci_method="bca",
             n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Scott's pi: chance agreement from the pooled margins, p_e = Σ w_ij π_i π_j, π = (p_i+ + p_+i)/2.

    Validated against irrCAC (tests/reference).
    """
    return _kappa_family("scott_pi", "scott", x, y, table, weights, scale, cluster, strata, ci_method,
                         n_resamples, confidence_level, rng)


def bennett_s(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
              ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Bennett–Alpert–Goldstein S = Brennan–Prediger coefficient: p_e = Σ w_ij / K².

    Unweighted this is (K p_o − 1)/(K − 1); for K = 2, PABAK = 2 p_o − 1 (Byrt et al. 1993).
    K is the number of levels of the scale (a level nobody used still counts).
    """
    return _kappa_family("bennett_s", "bp", x, y, table, weights, scale, cluster, strata, ci_method,
                         n_resamples, confidence_level, rng)


def pabak(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
          n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Prevalence- and bias-adjusted kappa, (K p_o − 1)/(K − 1) (Byrt, Bishop & Carlin 1993).

    For two classes 2 p_o − 1; on K classes it equals the Brennan–Prediger S.
    """
    est = bennett_s(x, y, table=table, scale=scale, cluster=cluster, strata=strata, ci_method=ci_method,
                    n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    return Estimate(**{**est.__dict__, "statistic": "pabak"})


def gwet_ac1(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
             n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Gwet's AC1: p_e = Σ_k π_k (1 − π_k)/(K − 1), π_k = (p_k+ + p_+k)/2 (Gwet 2008).

    Validated against irrCAC (tests/reference).
    """
    return _kappa_family("gwet_ac1", "gwet", x, y, table, None, scale, cluster, strata, ci_method,
                         n_resamples, confidence_level, rng)


def gwet_ac2(x=None, y=None, *, table=None, weights="quadratic", scale=None, cluster=None, strata=None,
             ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Gwet's AC2 (weighted AC1): p_e = T_w/(K(K − 1)) Σ_k π_k(1 − π_k), T_w = Σ w_ij (Gwet 2014)."""
    est = _kappa_family("gwet_ac2", "gwet", x, y, table, weights, scale, cluster, strata, ci_method,
                        n_resamples, confidence_level, rng)
    return est


def observed_agreement(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
                       ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Observed (weighted) agreement p_o = Σ w_ij p_ij."""
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    w = weight_matrix(weights, td.k)
    return _run(_po_kernel(td.k, w), td, "observed_agreement", n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng, warn_names=[])[0]


def kappa_max(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
              n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """The largest unweighted kappa the margins allow: p_o,max = Σ_k min(p_k+, p_+k)."""
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    return _run(_kappa_max_kernel(td.k), td, "kappa_max", n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng)[0]


def matthews_corrcoef(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
                      n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Matthews correlation (multiclass form of Gorodkin 2004, as scikit-learn computes it)."""
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    return _run(_mcc_kernel(td.k), td, "matthews_corrcoef", n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng)[0]


# --------------------------------------------------------------------------------------------
# confusion matrix, per-class metrics, binary metrics
# --------------------------------------------------------------------------------------------

def confusion_matrix(x=None, y=None, *, table=None, scale=None, normalize=None) -> pd.DataFrame:
    """The contingency table as a labelled frame (rows: reference, columns: candidate).

    ``normalize``: None (counts), ``"row"`` (each reference level sums to 1: per-class recall on the
    diagonal), ``"column"`` (precision on the diagonal) or ``"all"``.
    """
    from ..core.tables import normalize_counts

    td = prepare_table(x, y, table=table, scale=scale)
    t = normalize_counts(td.table, normalize)
    labels = td.scale.labels
    out = pd.DataFrame(t if normalize else td.table, index=pd.Index(labels, name="reference"),
                       columns=pd.Index(labels, name="candidate"))
    return out


def _per_class_kernel(k):
    def f(S):
        T = np.asarray(S, dtype=float).reshape(-1, k, k)
        d = np.diagonal(T, axis1=1, axis2=2)
        r, c = T.sum(axis=2), T.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            prec = d / c
            rec = d / r
            f1 = 2 * d / (r + c)
        return np.concatenate([prec, rec, f1], axis=1)
    return f


def per_class(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
              n_resamples=2000, confidence_level=0.95, rng=None) -> ResultSet:
    """Per-class precision, recall and F1 (each with an interval) and support.

    Precision of class k = n_kk / n_+k (how often the candidate's k is the reference's k); recall =
    n_kk / n_k+ (per-class accuracy, as UMBRELA reports it); F1 = 2 n_kk / (n_k+ + n_+k). Validated
    against scikit-learn's ``precision_recall_fscore_support``. ``to_frame()`` has a ``class`` and a
    ``support`` column.
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    k = td.k
    labels = td.scale.labels
    names = [f"{m}[{lab}]" for m in ("precision", "recall", "f1") for lab in labels]
    ests = _run(_per_class_kernel(k), td, names, n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng, warn_names=[])
    support = td.table.sum(axis=1)
    out = ResultSet(name="per_class")
    for i, e in enumerate(ests):
        j = i % k
        m = ("precision", "recall", "f1")[i // k]
        out.append_with(Estimate(**{**e.__dict__, "statistic": m}), **{"class": labels[j],
                                                                      "support": int(support[j])})
    return out


def _binary_kernel(S):
    T = np.asarray(S, dtype=float).reshape(-1, 2, 2)
    tn, fp, fn, tp = T[:, 0, 0], T[:, 0, 1], T[:, 1, 0], T[:, 1, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([tp / (tp + fn), tn / (tn + fp), tp / (tp + fp), tn / (tn + fn),
                         (tp + fn) / T.sum(axis=(1, 2))], axis=1)


def binary_metrics(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
                   n_resamples=2000, confidence_level=0.95, rng=None) -> ResultSet:
    """Sensitivity, specificity, PPV, NPV and reference prevalence for binary labels (1 = positive).

    Rows of the table are the reference (the truth), level index 1 the positive class.
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    _need_binary(td)
    names = ["sensitivity", "specificity", "ppv", "npv", "prevalence"]
    return ResultSet(_run(_binary_kernel, td, names, n_resamples=n_resamples, ci_method=ci_method,
                          confidence_level=confidence_level, rng=rng, warn_names=[]), name="binary_metrics")


def _need_binary(td):
    if td.k != 2:
        raise InputError(f"binary labels needed, got {td.k} levels {td.scale.levels}",
                         fix="binarize first, e.g. paired.binarize(2) or scale.binarize(threshold)")


def _pi_bi_kernel(S):
    T = np.asarray(S, dtype=float).reshape(-1, 2, 2)
    n = T.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = (T[:, 1, 1] - T[:, 0, 0]) / n
        bi = (T[:, 1, 0] - T[:, 0, 1]) / n
    return np.stack([pi, bi], axis=1)


def prevalence_bias_index(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                          ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> ResultSet:
    """Byrt, Bishop & Carlin (1993): prevalence index PI = (a − d)/N and bias index BI = (b − c)/N.

    a = both positive, d = both negative, b = reference positive / candidate negative, c = the
    reverse. κ = (PABAK − PI² + BI²)/(1 − PI² + BI²): a large |PI| explains "high agreement, low kappa".
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    _need_binary(td)
    return ResultSet(_run(_pi_bi_kernel, td, ["prevalence_index", "bias_index"], n_resamples=n_resamples,
                          ci_method=ci_method, confidence_level=confidence_level, rng=rng, warn_names=[]),
                     name="prevalence_bias_index")


# --------------------------------------------------------------------------------------------
# kappa at another prevalence
# --------------------------------------------------------------------------------------------

def _at_prevalence(S, prevs):
    """κ, PPV and p_o at each prevalence π from Se and Sp of each table: shape (b, 3·len(prevs))."""
    T = np.asarray(S, dtype=float).reshape(-1, 2, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = T[:, 1, 1] / T[:, 1].sum(axis=1)
        sp = T[:, 0, 0] / T[:, 0].sum(axis=1)
        pi = np.asarray(prevs, dtype=float)[None, :]
        tp = pi * se[:, None]
        fn = pi * (1 - se[:, None])
        fp = (1 - pi) * (1 - sp[:, None])
        tn = (1 - pi) * sp[:, None]
        po = tp + tn
        pe = (tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)
        kappa = _coef(po, pe)
        ppv = tp / (tp + fp)
    return np.concatenate([kappa, ppv, po], axis=1)


class PrevalenceResult(ResultSet):
    """kappa_at_prevalence's result: estimates at the target prevalence(s) plus the curve."""

    curve: pd.DataFrame


def kappa_at_prevalence(data=None, y=None, *, table=None, prevalence, scale=None, cluster=None, strata=None,
                        curve=None, ci_method="percentile", n_resamples=2000, confidence_level=0.95,
                        rng=None) -> PrevalenceResult:
    """Kappa, PPV and observed agreement that the measured Se and Sp would give at another prevalence.

    From the binary table (rows: reference, 1 = positive), Se = n_11/n_1+ and Sp = n_00/n_0+. The
    expected table at prevalence π is TP = π Se, FN = π(1 − Se), FP = (1 − π)(1 − Sp),
    TN = (1 − π) Sp. Each bootstrap replicate of the table is mapped the same way, so the intervals
    carry the sampling error of Se and Sp. This answers the objection to a kappa measured on a
    balanced validation subset and applied to a low-prevalence expansion.

    Parameters
    ----------
    prevalence : float or sequence of float
        Target prevalence(s) in (0, 1).
    curve : sequence of float, optional
        Prevalences for the kappa-versus-prevalence curve (default: 60 points, log-spaced from
        0.001 to 0.5, plus the measured prevalence).
    ci_method : default "percentile"
        (BCa is available; the map is smooth, and percentile intervals are reported by default.)

    Returns
    -------
    PrevalenceResult
        Estimates named ``kappa``, ``ppv``, ``observed_agreement`` with key ``prevalence``; the
        attribute ``curve`` is a frame ``prevalence, kappa, kappa_low, kappa_high, ppv, ppv_low,
        ppv_high``.

    Examples
    --------
    >>> r = kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=0.0107, rng=0)
    >>> round(r["kappa"].estimate, 3), round(r["ppv"].estimate, 3)
    (0.063, 0.043)
    """
    td = prepare_table(data, y, table=table, scale=scale, cluster=cluster, strata=strata)
    _need_binary(td)
    targets = np.atleast_1d(np.asarray(prevalence, dtype=float))
    if ((targets <= 0) | (targets >= 1)).any():
        raise ValueError(f"prevalence must lie in (0, 1), got {targets.tolist()}")
    measured = td.table[1].sum() / max(td.n, 1)
    grid = np.asarray(curve, dtype=float) if curve is not None else np.unique(
        np.concatenate([np.geomspace(0.001, 0.5, 60), [measured], targets]))
    allp = np.concatenate([targets, grid])
    m = len(allp)
    names = [f"{s}@{p:g}" for s in ("kappa", "ppv", "observed_agreement") for p in allp]
    ests = _run(lambda S: _at_prevalence(S, allp), td, names, n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng, warn_names=[])
    out = PrevalenceResult(name="kappa_at_prevalence")
    for s_i, s in enumerate(("kappa", "ppv", "observed_agreement")):
        for j, p in enumerate(targets):
            e = ests[s_i * m + j]
            out.append_with(Estimate(**{**e.__dict__, "statistic": s}), prevalence=float(p))
    rows = []
    for j, p in enumerate(grid, start=len(targets)):
        k_e, p_e = ests[j], ests[m + j]
        rows.append((float(p), k_e.estimate, k_e.ci.low, k_e.ci.high, p_e.estimate, p_e.ci.low, p_e.ci.high))
    out.curve = pd.DataFrame(rows, columns=["prevalence", "kappa", "kappa_low", "kappa_high", "ppv", "ppv_low",
                                            "ppv_high"])
    out.measured_prevalence = float(measured)
    return out


# --------------------------------------------------------------------------------------------
# thresholds, Krippendorff, Fleiss
# --------------------------------------------------------------------------------------------

def _binarized(T, j):
    """(b, 2, 2) tables for 'level index < j' vs '>= j' from (b, K, K) tables."""
    b00 = T[:, :j, :j].sum(axis=(1, 2))
    b01 = T[:, :j, j:].sum(axis=(1, 2))
    b10 = T[:, j:, :j].sum(axis=(1, 2))
    b11 = T[:, j:, j:].sum(axis=(1, 2))
    return np.stack([np.stack([b00, b01], 1), np.stack([b10, b11], 1)], 1)


def threshold_agreement(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                        ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> ResultSet:
    """Agreement at every binarization threshold of an ordinal scale at once (0|123, 01|23, 012|3).

    For each threshold: Cohen's kappa, observed agreement, PABAK, Gwet's AC1, and the relevant
    class's precision and recall, all from the same replicates. Key columns: ``threshold``
    (the lowest level counted as positive) and ``split`` (e.g. ``"01|23"``).
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    k = td.k
    stats_names = ("cohen_kappa", "observed_agreement", "pabak", "gwet_ac1", "precision", "recall")
    eye = np.eye(2)

    def kern(S):
        T = np.asarray(S, dtype=float).reshape(-1, k, k)
        cols = []
        for j in range(1, k):
            B = _binarized(T, j).reshape(-1, 4)
            po, pe = _po_pe(B, 2, eye, "cohen")
            _, peg = _po_pe(B, 2, eye, "gwet")
            bb = B.reshape(-1, 2, 2)
            with np.errstate(invalid="ignore", divide="ignore"):
                prec = bb[:, 1, 1] / bb[:, :, 1].sum(axis=1)
                rec = bb[:, 1, 1] / bb[:, 1, :].sum(axis=1)
            cols += [_coef(po, pe), po, 2 * po - 1, _coef(po, peg), prec, rec]
        return np.stack(cols, axis=1)

    names = [f"{s}@{j}" for j in range(1, k) for s in stats_names]
    ests = _run(kern, td, names, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                rng=rng, warn_names=[])
    out = ResultSet(name="threshold_agreement")
    labels = td.scale.labels
    for i, e in enumerate(ests):
        j = i // len(stats_names) + 1
        s = stats_names[i % len(stats_names)]
        out.append_with(Estimate(**{**e.__dict__, "statistic": s}), threshold=td.scale.levels[j],
                        split="".join(labels[:j]) + "|" + "".join(labels[j:]))
    return out


# --------------------------------------------------------------------------------------------
# the report: every coefficient side by side, from one set of replicates
# --------------------------------------------------------------------------------------------

def agreement_report(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method="bca",
                     n_resamples=2000, confidence_level=0.95, rng=None) -> ResultSet:
    """Observed agreement, Cohen's kappa (and weighted kappas on ordinal scales), Scott's pi, PABAK,
    Gwet's AC1, Krippendorff's alpha, kappa_max and the MCC side by side, plus the prevalence and bias
    indices for binary labels, so that "90% agreement but kappa 0.2" is explained in numbers.

    All statistics come from the same bootstrap replicates of the table (so their intervals are
    comparable, and differences between them could be read off the replicates).
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    k = td.k
    eye = np.eye(k)
    level = td.scale.kind if td.scale.kind in ("nominal", "ordinal", "interval", "ratio") else "nominal"
    if k == 2:
        level = "nominal"
    kernels = [("observed_agreement", _po_kernel(k, eye)),
               ("cohen_kappa", _kappa_kernel(k, eye, "cohen"))]
    if k > 2 and td.scale.kind != "nominal":
        lin, quad = weight_matrix("linear", k), weight_matrix("quadratic", k)
        kernels += [("cohen_kappa_linear", _kappa_kernel(k, lin, "cohen")),
                    ("cohen_kappa_quadratic", _kappa_kernel(k, quad, "cohen"))]
    kernels += [("scott_pi", _kappa_kernel(k, eye, "scott")),
                ("pabak", _kappa_kernel(k, eye, "bp")),
                ("gwet_ac1", _kappa_kernel(k, eye, "gwet")),
                (f"krippendorff_alpha_{level}", _alpha_table_kernel(k, np.asarray(td.scale.levels, dtype=float), level)),
                ("kappa_max", _kappa_max_kernel(k)),
                ("matthews_corrcoef", _mcc_kernel(k))]
    if k == 2:
        kernels += [("prevalence_index", lambda S: _pi_bi_kernel(S)[:, 0]),
                    ("bias_index", lambda S: _pi_bi_kernel(S)[:, 1])]
    names = [n for n, _ in kernels]

    def kern(S):
        return np.stack([f(S) for _, f in kernels], axis=1)

    ests = _run(kern, td, names, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                rng=rng, warn_names=["cohen_kappa"])
    return ResultSet(ests, name="agreement_report")


def agreement_by(paired, by, *, statistics=("cohen_kappa", "gwet_ac1", "pabak"), min_n: int = 30, **kwargs) -> pd.DataFrame:
    """Agreement per group (topic, dataset, judge ...) as one tidy frame.

    Parameters
    ----------
    paired : Paired
    by : str or list of str
        Column(s) of ``paired.data`` to group by.
    statistics : sequence of str
        Names of the statistics of :func:`agreement_report` to keep.
    min_n : int
        Groups with fewer pairs (or with one class only) get a SmallSampleWarning naming them.
    kwargs
        Passed to :func:`agreement_report` (``cluster``, ``ci_method``, ``n_resamples``, ``rng`` ...).
    """
    from ..data.alignment import Paired

    if not isinstance(paired, Paired):
        raise TypeError("agreement_by needs a Paired (from metaeval.align)")
    by = [by] if isinstance(by, str) else list(by)
    frames, small = [], []
    rng = kwargs.pop("rng", None)
    from ..core.resample import make_rng
    gen, _ = make_rng(rng)
    for key, idx in paired.data.groupby(by, sort=True).indices.items():
        key = key if isinstance(key, tuple) else (key,)
        sub = paired.subset(np.isin(np.arange(len(paired)), idx))
        one_class = len(np.unique(sub.reference)) < 2 or len(np.unique(sub.candidate)) < 2
        if len(sub) < min_n or one_class:
            small.append("/".join(map(str, key)) + f" (n={len(sub)}{', one class' if one_class else ''})")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            res = agreement_report(sub, rng=gen, **kwargs)
        f = res.to_frame()
        f = f[f["statistic"].isin(statistics)]
        for c, v in zip(by, key):
            f.insert(by.index(c), c, v)
        frames.append(f)
    if small:
        warnings.warn(f"{len(small)} group(s) too small for the statistic to mean much: "
                      + ", ".join(small[:10]) + (" ..." if len(small) > 10 else ""), SmallSampleWarning,
                      stacklevel=2)
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------------------------
# paired differences: two statistics on the same items or topics
# --------------------------------------------------------------------------------------------

def _table_kernel(statistic, k, weights):
    w = weight_matrix(weights, k)
    chance = {"cohen_kappa": "cohen", "scott_pi": "scott", "pabak": "bp", "bennett_s": "bp",
              "gwet_ac1": "gwet", "gwet_ac2": "gwet"}
    if statistic in chance:
        return _kappa_kernel(k, w, chance[statistic])
    if statistic == "observed_agreement":
        return _po_kernel(k, w)
    if statistic == "matthews_corrcoef":
        return _mcc_kernel(k)
    if statistic == "kappa_max":
        return _kappa_max_kernel(k)
    raise ValueError(f"statistic must be one of {sorted(list(chance) + ['observed_agreement', 'matthews_corrcoef', 'kappa_max'])},"
                     f" got {statistic!r}")


def _side_frame(p, name, cluster):
    from ..data.alignment import Paired

    if isinstance(p, Paired):
        df = p.data[list(p.on)].astype("str").copy()
        df[f"r_{name}"] = p.reference
        df[f"c_{name}"] = p.candidate
        if isinstance(cluster, str):
            if cluster not in p.data.columns:
                raise InputError(f"no column {cluster!r} in the pairs of {name}")
            df[f"cl_{name}"] = p.data[cluster].astype("str").to_numpy()
        return df, list(p.on), p.scale
    if isinstance(p, tuple) and len(p) == 2:
        r, c = _labels(p[0], f"{name}[0]"), _labels(p[1], f"{name}[1]")
        if len(r) != len(c):
            raise InputError(f"{name}: the two label arrays differ in length ({len(r)}, {len(c)})")
        df = pd.DataFrame({"_item": np.arange(len(r)).astype(str), f"r_{name}": r, f"c_{name}": c})
        return df, ["_item"], None
    raise TypeError(f"{name} must be a Paired or a (reference, candidate) tuple of arrays")


def agreement_difference(a, b, *, statistic="cohen_kappa", weights=None, scale=None, cluster=None,
                         ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> ResultSet:
    """The difference of one agreement statistic between two label sets on the same items or topics.

    Judge A's kappa minus judge B's on the same pairs, or kappa on all topics minus kappa without
    some (pass ``b = a.subset(mask)``): items are matched by key, and an item in one set only counts
    for that set. Both statistics are computed from the *same* bootstrap draw of items (or
    clusters), so the interval of the difference accounts for their correlation.

    Parameters
    ----------
    a, b : Paired or (reference, candidate) tuple of label arrays
        Two tuples must be aligned item by item (NaN where an item is absent).
    statistic : str
        ``cohen_kappa``, ``scott_pi``, ``pabak``, ``bennett_s``, ``gwet_ac1``, ``gwet_ac2``,
        ``observed_agreement``, ``matthews_corrcoef`` or ``kappa_max``.
    cluster : str or array-like, optional
        A column of the Paired data (e.g. ``"query_id"``), or cluster ids aligned with tuple inputs.

    Returns
    -------
    ResultSet
        Three estimates with key ``set``: ``a``, ``b`` and ``a - b``; the difference carries the
        two-sided bootstrap p-value of H0: no difference (twice the smaller share of replicates on
        either side of 0, which inverts the percentile interval).
    """
    from ..core.resample import bootstrap as _boot

    fa, keys_a, scale_a = _side_frame(a, "a", cluster)
    fb, keys_b, scale_b = _side_frame(b, "b", cluster)
    if keys_a != keys_b:
        raise InputError(f"a and b are keyed differently ({keys_a} vs {keys_b})")
    m = fa.merge(fb, on=keys_a, how="outer", sort=True)
    scale = scale or scale_a or scale_b or Scale.infer(m["r_a"], m["c_a"], m["r_b"], m["c_b"])
    if scale_a is not None and scale_b is not None and scale_a.levels != scale_b.levels:
        raise InputError(f"a and b use different scales: {scale_a.levels} and {scale_b.levels}")
    k = scale.k
    cells = []
    for s in ("a", "b"):
        r, c = scale.codes(m[f"r_{s}"]), scale.codes(m[f"c_{s}"])
        present = ~(np.isnan(m[f"r_{s}"].to_numpy(dtype=float)) | np.isnan(m[f"c_{s}"].to_numpy(dtype=float)))
        if ((r < 0) | (c < 0))[present].any():
            raise InputError(f"labels of {s} outside the scale {scale.levels}")
        cells.append(np.where(present, r * k + c, -1))
    combo = (cells[0] + 1) * (k * k + 1) + (cells[1] + 1)
    if cluster is not None:
        if isinstance(cluster, str):
            cl = m["cl_a"].where(m["cl_a"].notna(), m["cl_b"]).to_numpy()
        else:
            cl = np.asarray(cluster)
            if len(cl) != len(m):
                raise InputError(f"cluster has {len(cl)} entries for {len(m)} items")
        _, group = np.unique(cl.astype(str), return_inverse=True)
        kind = "clusters"
    else:
        _, group = np.unique(combo, return_inverse=True)
        kind = "items"
    n_g = int(group.max()) + 1
    X = np.zeros((n_g, 2 * k * k))
    for s, cell in enumerate(cells):
        ok = cell >= 0
        np.add.at(X, (group[ok], s * k * k + cell[ok]), 1)
    if kind == "items":
        mult = np.bincount(group, minlength=n_g)
        X = X / mult[:, None]
        units = Units(X, mult, kind="items")
    else:
        units = Units(X, np.ones(n_g, dtype=np.int64), kind="clusters")
    f = _table_kernel(statistic, k, weights)

    def kern(S):
        va, vb = f(S[:, : k * k]), f(S[:, k * k:])
        return np.stack([va, vb, va - vb], axis=1)

    res = _boot(kern, units, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                rng=rng)
    n_a, n_b = int((cells[0] >= 0).sum()), int((cells[1] >= 0).sum())
    out = ResultSet(name="agreement_difference")
    p = res.pvalue(0.0)
    for j, (label, n) in enumerate((("a", n_a), ("b", n_b), ("a - b", int(len(m))))):
        out.append_with(Estimate(
            statistic=statistic, estimate=float(res.theta_hat[j]),
            ci=ConfidenceInterval(float(res.low[j]), float(res.high[j]), confidence_level, ci_method),
            se=float(res.se[j]), bias=float(res.bias[j]), pvalue=float(p[2]) if j == 2 else None, n=n,
            unit=res.unit, n_units=res.n_units, n_resamples=res.n_resamples, seed=res.seed,
            replicates=res.replicates[:, j], extra=dict(res.extra)), set=label)
    return out
