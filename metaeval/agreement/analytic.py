"""Analytic (large-sample) inference for the chance-corrected agreement coefficients of two raters.

Every coefficient here has the form κ = (p_a − p_e)/(1 − p_e) with p_a = Σ w_kl p_kl the weighted
observed agreement of a K×K table of proportions p (rows: reference, columns: candidate) and p_e a
chance agreement. Its variance is the delta-method (linearization) variance of Gwet (2014, ch. 5)
and irrCAC: each item in cell (k, l) contributes the influence value

    u_kl = w_kl − (1 − κ) · ∂p_e/∂p_kl,

and var(κ̂) = [Σ p_kl u_kl² − (Σ p_kl u_kl)²] / (n (1 − p_e)²) (without the finite-population
factor; multiply by :func:`fpc`). Per coefficient, ∂p_e/∂p_kl is

=================== ======================================= =====================================
coefficient         p_e                                     ∂p_e/∂p_kl
=================== ======================================= =====================================
percent agreement   0                                       0 (and no 1/(1 − p_e)²)
Cohen's kappa       Σ w_kl p_k+ p_+l                        (W p_+·)_k + (Wᵀ p_·+)_l
Scott's pi          Σ w_kl π_k π_l, π = (p_k+ + p_+k)/2     g_k + g_l, g = (W + Wᵀ) π / 2
Gwet's AC1/AC2      T_w/(K(K−1)) Σ π_k (1 − π_k)            T_w/(K(K−1)) (1 − π_k − π_l)
Brennan–Prediger    T_w / K²                                0
=================== ======================================= =====================================

(T_w = Σ w_kl.) This is the same variance as irrCAC's ``kappa2.table``, ``scott2.table``,
``gwet.ac1.table``, ``bp2.table`` and ``pa2.table``; for Cohen's kappa it is the
Fleiss–Cohen–Everitt (1969) variance (statsmodels' ``var_kappa``), and
:func:`cohen_kappa` also gives the variance under H0: κ = 0 (statsmodels' ``var_kappa0``) for the
z-test. Two places differ from irrCAC on purpose:

* Scott's pi with an *asymmetric* custom weight matrix: irrCAC uses g = (W p_+· + Wᵀ p_·+)/2, which
  is the derivative above only when W is symmetric; here g = (W + Wᵀ)π/2 (equal for every named
  scheme, which are all symmetric).
* Krippendorff's alpha: for two raters α = (p_a′ − p_e)/(1 − p_e) with Scott's p_e and
  p_a′ = (1 − ε) p_a + ε, ε = 1/(2n), which is exactly α = (1 − ε)·π + ε (π Scott's pi). So
  var(α̂) = (1 − ε)² var(π̂). irrCAC's ``krippen2.table`` reports var(π̂) (the standard error of the
  unadjusted coefficient); ours is smaller by the factor 1 − 1/(2n) (0.5% at n = 100), and the
  tests check exactly that relation against irrCAC's printed values.

Intervals: :func:`analytic_interval` gives est ± q·se with q the normal or the Student t(n − 1)
quantile (irrCAC uses t(n − 1)). The default, :data:`DEFAULT_QUANTILE` = ``"t"``, was chosen by the
coverage simulation below.

Coverage of the nominal 95% interval, unweighted coefficients, mean over 10 seeds of 2,000
multinomial samples per row (the simulation of ``tests/test_analytic.py::coverage_simulation_test``,
seeds 20240610 + 1000 k, k = 0 … 9: ``benchmarks/coverage_seeds.py --only analytic --scale 1``;
Monte Carlo error, the SD across seeds / √10, at most 0.003 per cell and 0.001 in the mean rows;
true tables: K = 2 balanced [[.45, .05], [.05, .45]] (κ = 0.8), skewed [[.80, .05], [.05, .10]] (κ = 0.61), moderate
[[.35, .20], [.10, .35]] (κ = 0.40); K = 4 balanced (p_o = 0.8), skewed prevalence (p_o = 0.8),
moderate (neighbouring levels confused); cells: t | normal)::

    true table        n   kappa          AC1            Scott          BP
    K=2 balanced     20   0.874 | 0.868  0.877 | 0.876  0.875 | 0.869  0.876 | 0.876
    K=2 balanced     50   0.888 | 0.885  0.881 | 0.880  0.888 | 0.888  0.879 | 0.879
    K=2 balanced    200   0.934 | 0.933  0.932 | 0.930  0.935 | 0.933  0.929 | 0.929
    K=2 skewed       20   0.763 | 0.762  0.879 | 0.878  0.763 | 0.762  0.877 | 0.877  (249 of 20,000 kappa undefined)
    K=2 skewed       50   0.914 | 0.897  0.899 | 0.898  0.915 | 0.898  0.879 | 0.879  (1 of 20,000 kappa undefined)
    K=2 skewed      200   0.942 | 0.940  0.941 | 0.940  0.942 | 0.940  0.928 | 0.928
    K=2 moderate     20   0.942 | 0.926  0.943 | 0.925  0.942 | 0.934  0.946 | 0.946
    K=2 moderate     50   0.940 | 0.936  0.948 | 0.939  0.943 | 0.936  0.948 | 0.935
    K=2 moderate    200   0.949 | 0.948  0.945 | 0.945  0.949 | 0.946  0.944 | 0.944
    K=4 balanced     20   0.919 | 0.912  0.921 | 0.921  0.920 | 0.914  0.921 | 0.921
    K=4 balanced     50   0.937 | 0.936  0.937 | 0.937  0.937 | 0.936  0.937 | 0.937
    K=4 balanced    200   0.949 | 0.944  0.940 | 0.940  0.951 | 0.945  0.940 | 0.940
    K=4 skewed       20   0.919 | 0.911  0.922 | 0.921  0.920 | 0.913  0.921 | 0.921
    K=4 skewed       50   0.939 | 0.933  0.939 | 0.938  0.940 | 0.935  0.938 | 0.938
    K=4 skewed      200   0.944 | 0.943  0.943 | 0.941  0.945 | 0.943  0.938 | 0.938
    K=4 moderate     20   0.933 | 0.922  0.943 | 0.931  0.932 | 0.923  0.930 | 0.930
    K=4 moderate     50   0.948 | 0.941  0.956 | 0.948  0.949 | 0.943  0.956 | 0.940
    K=4 moderate    200   0.948 | 0.947  0.950 | 0.948  0.948 | 0.947  0.955 | 0.946
    mean             20   0.891 | 0.883  0.914 | 0.909  0.892 | 0.886  0.912 | 0.912
    mean             50   0.928 | 0.921  0.927 | 0.923  0.928 | 0.922  0.923 | 0.918
    mean            200   0.944 | 0.942  0.942 | 0.941  0.945 | 0.942  0.939 | 0.937

The default is therefore ``"t"``: the t(n − 1) interval is never narrower than the normal one, so
it never covers less, and averaged over the true tables it is at least as close to 95% as the
normal interval for every coefficient at every n (closer by up to 0.008); it is also irrCAC's choice, so its printed
intervals reproduce. The choice matters little beside the Wald interval's own weakness: with high
agreement on two levels (p_o = 0.9) every coefficient's interval covers only 0.87–0.89 at n ≤ 50
(the binomial Wald problem near a boundary), and kappa and Scott's pi under skewed prevalence
reach 0.76 at n = 20. Below about 50 items, or near perfect agreement, prefer a bootstrap
interval.

References
----------
Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed., ch. 5 (variances for two
raters). Advanced Analytics.
Gwet, K. L. irrCAC (R package), ``R/agree.coeff2.r`` (``kappa2.table`` … ``pa2.table``), and its
Python port by A. Fergadis, irrCAC 0.4.4 ``irrCAC/table.py``.
Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa and weighted
kappa. *Psychological Bulletin* 72(5), 323–327.
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.

Examples
--------
>>> from metaeval.agreement import analytic
>>> from metaeval.agreement.weights import weight_matrix
>>> table = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]   # irrCAC's cont3x3abstractors (Gwet 2014)
>>> r = analytic.gwet_ac(table, weight_matrix(None, 3))
>>> round(r.estimate, 7), round(r.se, 8)
(0.8493305, 0.04321747)
>>> [round(v, 3) for v in analytic.analytic_interval(r.estimate, r.se, n=100, quantile="t")]
[0.764, 0.935]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..core.errors import InputError
from ..core.registry import UNDEFINED_PE_TOL
from .kernels import chance_corrected

__all__ = ["AnalyticResult", "analytic_interval", "analytic_estimate", "wald_pvalue", "fpc", "DEFAULT_QUANTILE", "percent_agreement", "cohen_kappa",
           "scott_pi", "gwet_ac", "brennan_prediger", "krippendorff_alpha"]

#: The quantile :func:`analytic_interval` uses by default (chosen by the coverage simulation in the
#: module docstring).
DEFAULT_QUANTILE = "t"

_ALTERNATIVES = ("two-sided", "greater", "less")


# --------------------------------------------------------------------------------------------
# intervals and the finite-population correction
# --------------------------------------------------------------------------------------------

def analytic_interval(estimate, se, *, n, confidence_level: float = 0.95, quantile: str = DEFAULT_QUANTILE,
                      alternative: str = "two-sided", bounds=None):
    """Wald interval est ± q·se with the normal or the Student t(n − 1) quantile.

    Parameters
    ----------
    estimate : float or array-like
        The point estimate(s).
    se : float or array-like
        Standard error(s), already including any finite-population factor.
    n : int or array-like
        Number of items (subjects); the t quantile has n − 1 degrees of freedom (n < 2 gives NaN).
    confidence_level : float
        In (0, 1).
    quantile : {"t", "normal"}
        ``"t"``: Student t with n − 1 degrees of freedom (irrCAC's intervals); ``"normal"``: the
        standard normal (statsmodels, R psych). Default :data:`DEFAULT_QUANTILE`.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` gives the one-sided interval (est − q₁₋α·se, +inf), ``"less"``
        (−inf, est + q₁₋α·se).
    bounds : (float, float), optional
        Clip the interval to these bounds, e.g. ``(-np.inf, 1)`` for irrCAC's intervals, which
        cap the upper end at 1 and leave the lower end alone.

    Returns
    -------
    (low, high)
        Floats for scalar input, arrays otherwise. A NaN estimate or se gives NaN ends.

    References
    ----------
    irrCAC (R) ``agree.coeff2.r``: ``lcb <- coeff - stderr*qt(1-(1-conflev)/2, n-1)``,
    ``ucb <- min(1, coeff + stderr*qt(...))``; reproduced in ``tests/test_analytic.py``.

    Examples
    --------
    >>> from metaeval.agreement.analytic import analytic_interval
    >>> [round(v, 4) for v in analytic_interval(0.5, 0.1, n=30, quantile="normal")]
    [0.304, 0.696]
    >>> [round(v, 4) for v in analytic_interval(0.5, 0.1, n=30, quantile="t")]
    [0.2955, 0.7045]
    >>> analytic_interval(0.5, 0.1, n=30, alternative="greater", quantile="normal")[1]
    inf
    """
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    if quantile not in ("t", "normal"):
        raise InputError(f"quantile must be 't' or 'normal', got {quantile!r}")
    if alternative not in _ALTERNATIVES:
        raise InputError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    scalar = np.ndim(estimate) == 0 and np.ndim(se) == 0 and np.ndim(n) == 0
    est = np.asarray(estimate, dtype=float)
    s = np.asarray(se, dtype=float)
    nn = np.asarray(n, dtype=float)
    p = 1 - (1 - confidence_level) / 2 if alternative == "two-sided" else confidence_level
    if quantile == "t":
        with np.errstate(invalid="ignore"):
            q = np.where(nn >= 2, stats.t.ppf(p, np.maximum(nn - 1, 1)), np.nan)
    else:
        q = np.full(nn.shape, stats.norm.ppf(p))
    half = q * s
    low = est - half if alternative != "less" else np.full(np.broadcast(est, half).shape, -np.inf)
    high = est + half if alternative != "greater" else np.full(np.broadcast(est, half).shape, np.inf)
    bad = np.isnan(est) | np.isnan(half)
    low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    if bounds is not None:
        lo_b, hi_b = bounds
        low, high = np.clip(low, lo_b, hi_b), np.clip(high, lo_b, hi_b)
    if scalar:
        return float(low), float(high)
    return low, high


def fpc(n, population_size=None) -> float:
    """Finite-population factor (1 − n/N) that multiplies a variance.

    Parameters
    ----------
    n : int
        Number of items in the sample.
    population_size : int, float or None
        N, the number of items in the population the sample was drawn from without replacement.
        None (or ``inf``) means an infinite population: the factor is 1.

    Returns
    -------
    float
        1 − n/N, in [0, 1].

    Raises
    ------
    InputError
        If N < n or n < 0.

    References
    ----------
    Gwet (2014), ch. 5; irrCAC's ``N`` argument (``f <- n/N``, variance × (1 − f)).

    Examples
    --------
    >>> from metaeval.agreement.analytic import fpc
    >>> fpc(100)
    1.0
    >>> fpc(100, 400)
    0.75
    """
    if n < 0:
        raise InputError(f"n must be non-negative, got {n!r}")
    if population_size is None or population_size == math.inf:
        return 1.0
    if population_size < n:
        raise InputError(f"population_size ({population_size}) is smaller than the sample ({n})",
                         fix="pass the number of items in the population, or None for an infinite one")
    return float(1.0 - n / population_size)


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AnalyticResult:
    """A coefficient with its large-sample variance.

    Parameters
    ----------
    estimate : float or numpy.ndarray
        The coefficient (NaN when undefined: an empty table, or chance agreement 1).
    variance : float or numpy.ndarray
        Its delta-method variance, *without* the finite-population factor (multiply by
        :func:`fpc`).
    pa : float or numpy.ndarray
        Weighted observed agreement (for Krippendorff's alpha the adjusted p_a′).
    pe : float or numpy.ndarray
        Chance agreement (0 for percent agreement).
    variance0 : float or numpy.ndarray
        The variance under H0: coefficient = 0, for a z-test (Cohen's kappa only; NaN otherwise).

    Returns
    -------
    AnalyticResult

    Examples
    --------
    >>> from metaeval.agreement.analytic import cohen_kappa
    >>> r = cohen_kappa([[85, 20], [20, 77]], [[1, 0], [0, 1]])
    >>> round(r.estimate, 4), round(r.se, 4), round(r.se0, 4)
    (0.6033, 0.0562, 0.0704)
    """

    estimate: float | np.ndarray
    variance: float | np.ndarray
    pa: float | np.ndarray
    pe: float | np.ndarray
    variance0: float | np.ndarray = math.nan

    @property
    def se(self):
        """Standard error √variance."""
        return np.sqrt(self.variance) if np.ndim(self.variance) else math.sqrt(self.variance)

    @property
    def se0(self):
        """Standard error under H0 √variance0 (NaN where not available)."""
        return np.sqrt(self.variance0) if np.ndim(self.variance0) else math.sqrt(self.variance0)


def wald_pvalue(estimate: float, se: float, *, df: float | None = None, alternative: str = "two-sided") -> float:
    """p-value of H0: coefficient = 0 from the Wald statistic estimate/se (normal, or t with ``df``).

    The one test of the analytic path: with the H0 standard error (Cohen's kappa, a z-test as
    statsmodels does) or with the interval's standard error and its quantile (irrCAC).

    Parameters
    ----------
    estimate, se : float
    df : float, optional
        Degrees of freedom of a t reference distribution (< 1 gives NaN); None: normal.
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    float
        NaN when the standard error is not positive or not finite.

    References
    ----------
    statsmodels ``cohens_kappa`` (``pvalue_two_sided`` with ``std_kappa0``); irrCAC (R)
    ``agree.coeff3.raw.r`` (t with n − 1 degrees of freedom). Checked in tests/test_agreement.py
    and tests/test_multirater.py.

    Examples
    --------
    >>> round(wald_pvalue(0.2, 0.1), 4), round(wald_pvalue(0.2, 0.1, df=9), 4)
    (0.0455, 0.0766)
    """
    if alternative not in _ALTERNATIVES:
        raise InputError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    if df is not None and not df >= 1:
        return float("nan")
    dist = stats.norm if df is None else stats.t(df)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = estimate / se if se > 0 else float("nan")
    if not np.isfinite(z):
        return float("nan")
    if alternative == "two-sided":
        return float(2 * dist.sf(abs(z)))
    return float(dist.sf(z) if alternative == "greater" else dist.cdf(z))


def analytic_estimate(name: str, estimate: float, variance: float, *, n: int, n_items: int | None = None,
                      confidence_level: float = 0.95, quantile: str = DEFAULT_QUANTILE,
                      alternative: str = "two-sided", population_size=None, n_sampled: int | None = None,
                      variance0: float = float("nan"), extra: dict | None = None):
    """An :class:`~metaeval.core.results.Estimate` from an analytic variance: the one place it is built.

    The interval is :func:`analytic_interval` with the standard error ``√(variance · fpc)``. The
    p-value tests coefficient = 0: with the variance under H0 (``variance0``, Cohen's kappa) by a
    z-test, as statsmodels does; otherwise with the interval's standard error and the same quantile
    as the interval (t(n − 1) or normal), as irrCAC does.

    Parameters
    ----------
    name : str
        The statistic's name.
    estimate, variance : float
        The coefficient and its sampling variance without the finite-population factor.
    n : int
        Number of items (subjects) behind the variance: the t quantile has n − 1 degrees of freedom.
    n_items : int, optional
        The ``n`` reported on the result when it differs (e.g. pairable values of Krippendorff's
        alpha); default ``n``.
    confidence_level : float
    quantile : {"t", "normal"}
    alternative : {"two-sided", "greater", "less"}
    population_size : int, optional
        Finite-population correction (1 − n/N) of the variance (:func:`fpc`).
    n_sampled : int, optional
        The sample size n of the finite-population factor when it differs from ``n`` (irrCAC uses
        all rated items there, also for Krippendorff's alpha whose variance counts pairable items).
    variance0 : float, optional
        The variance under H0 for the z-test (NaN when there is none).
    extra : dict, optional
        More entries for the result's ``extra``.

    Returns
    -------
    Estimate
        ``ci.method == "analytic"``, ``unit == "none"``; ``extra`` holds ``quantile``, ``df``,
        ``fpc``, ``population_size`` (and ``se0`` when ``variance0`` is given).

    References
    ----------
    irrCAC (R) ``agree.coeff2.r`` and ``agree.coeff3.raw.r`` (interval and p-value); statsmodels
    ``cohens_kappa`` (z-test with the H0 variance). Checked in tests/test_analytic.py and
    tests/test_multirater.py.

    Examples
    --------
    >>> e = analytic_estimate("cohen_kappa", 0.6, 0.0025, n=200, quantile="normal")
    >>> round(e.ci.low, 4), round(e.ci.high, 4), e.ci.method
    (0.502, 0.698, 'analytic')
    """
    from ..core.results import ConfidenceInterval, Estimate

    f = fpc(n if n_sampled is None else n_sampled, population_size)
    est = float(estimate)
    var = float(variance) * f
    se = math.sqrt(var) if np.isfinite(var) and var >= 0 else float("nan")
    low, high = analytic_interval(est, se, n=n, confidence_level=confidence_level, quantile=quantile,
                                  alternative=alternative)
    info = {"quantile": quantile, "df": n - 1 if quantile == "t" else float("inf"), "fpc": f,
            "population_size": population_size}
    var0 = float(variance0)
    if np.isfinite(var0):
        info["se0"] = math.sqrt(max(var0 * f, 0.0))
        pvalue = wald_pvalue(est, info["se0"], alternative=alternative)
    elif quantile == "t":
        pvalue = wald_pvalue(est, se, df=n - 1, alternative=alternative)
    else:
        pvalue = wald_pvalue(est, se, alternative=alternative)
    return Estimate(name, est, ConfidenceInterval(float(low), float(high), confidence_level, "analytic"), se=se,
                    pvalue=pvalue, n=int(n if n_items is None else n_items), unit="none", n_units=int(n),
                    extra={**info, **(extra or {})})


# --------------------------------------------------------------------------------------------
# shared pieces
# --------------------------------------------------------------------------------------------

def _prepare(table, w, *, level=False):
    """Proportions, sizes and weights of one (K, K) table or a stack (..., K, K)."""
    T = np.asarray(table, dtype=float)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise InputError(f"table must be a KxK array of counts (or a stack of them), got shape {T.shape}")
    if not np.all(np.isfinite(T)) or np.any(T < 0):
        raise InputError("table counts must be finite and non-negative")
    k = T.shape[-1]
    if isinstance(w, str) or w is None:
        from ..core.weights import krippendorff_weights, weight_matrix

        W = krippendorff_weights(w or "nominal", k) if level else weight_matrix(w, k)
    else:
        W = np.asarray(w, dtype=float)
        if W.shape != (k, k):
            raise InputError(f"weights must be a {k}x{k} matrix, got shape {W.shape}")
        if not np.all(np.isfinite(W)):
            raise InputError("weights must be finite")
    n = T.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = T / n[..., None, None]
    pa = np.einsum("kl,...kl->...", W, p)
    return p, n, W, pa, k


def _variance(p, u, n, pe):
    """[Σ p_kl (u_kl − ū)²] / (n (1 − p_e)²) with ū = Σ p_kl u_kl (the linearization variance)."""
    m = np.einsum("...kl,...kl->...", p, u)
    s2 = np.einsum("...kl,...kl->...", p, (u - m[..., None, None]) ** 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return s2 / (n * (1 - pe) ** 2)


def _finish(estimate, variance, pa, pe, n, variance0=None, *, chance=True):
    """NaN where undefined (no items; chance agreement 1), floats for a single table."""
    undefined = n <= 0
    if chance:
        undefined = undefined | np.isclose(pe, 1.0, rtol=0, atol=UNDEFINED_PE_TOL) | np.isnan(pe)
    est = np.where(undefined, np.nan, estimate)
    var = np.where(undefined, np.nan, np.maximum(variance, 0.0))
    var0 = np.full(np.shape(est), np.nan) if variance0 is None else np.where(undefined, np.nan,
                                                                             np.maximum(variance0, 0.0))
    if np.ndim(est) == 0:
        return AnalyticResult(float(est), float(var), float(pa), float(pe), float(var0))
    return AnalyticResult(est, var, np.asarray(pa, dtype=float), np.asarray(pe, dtype=float), var0)


# --------------------------------------------------------------------------------------------
# the coefficients
# --------------------------------------------------------------------------------------------

def percent_agreement(table, w) -> AnalyticResult:
    """Weighted percent agreement p_a = Σ w_kl p_kl and its variance.

    var(p̂_a) = [Σ p_kl w_kl² − p_a²] / n.

    Parameters
    ----------
    table : array-like, shape (K, K) or (..., K, K)
        Counts (rows: reference, columns: candidate); a stack of tables gives array fields.
    w : array-like (K, K), str or None
        Agreement weights, or a scheme name for :func:`~metaeval.core.weights.weight_matrix`.

    Returns
    -------
    AnalyticResult
        ``pe`` is 0.

    References
    ----------
    irrCAC (R) ``pa2.table``; Gwet (2014) ch. 5. Tested against irrCAC 0.4.4 (Python) to 1e-9 and
    its published values to 3 decimals for all eight weight schemes.

    Examples
    --------
    >>> from metaeval.agreement.analytic import percent_agreement
    >>> r = percent_agreement([[13, 0, 0], [0, 20, 7], [0, 4, 56]], None)
    >>> round(r.estimate, 2), round(r.se, 8)
    (0.89, 0.03128898)
    """
    p, n, W, pa, _ = _prepare(table, w)
    u = np.broadcast_to(W, p.shape)
    return _finish(pa, _variance(p, u, n, 0.0), pa, np.zeros_like(pa), n, chance=False)


def cohen_kappa(table, w) -> AnalyticResult:
    """Cohen's (weighted) kappa with the Fleiss–Cohen–Everitt variance and the variance under H0.

    κ = (p_a − p_e)/(1 − p_e), p_e = Σ w_kl p_k+ p_+l. With w̄_k· = Σ_l w_kl p_+l and
    w̄_·l = Σ_k w_kl p_k+:

    var(κ̂) = [Σ p_kl (w_kl − (1 − κ)(w̄_k· + w̄_·l))² − (κ − p_e(1 − κ))²] / (n (1 − p_e)²),

    var₀(κ̂) = [Σ p_k+ p_+l (w_kl − (w̄_k· + w̄_·l))² − p_e²] / (n (1 − p_e)²)  (under κ = 0).

    Use ``variance`` for the interval and ``variance0`` for the z-test of κ = 0 (statsmodels keeps
    them apart the same way).

    Parameters
    ----------
    table : array-like, shape (K, K) or (..., K, K)
        Counts (rows: reference, columns: candidate).
    w : array-like (K, K), str or None
        Agreement weights (need not be symmetric), or a scheme name.

    Returns
    -------
    AnalyticResult
        With ``variance0``.

    References
    ----------
    Fleiss, Cohen & Everitt (1969); irrCAC (R) ``kappa2.table``; statsmodels
    ``stats.inter_rater.cohens_kappa`` (``var_kappa``, ``var_kappa0``). Tested against all three
    (``tests/test_analytic.py``).

    Examples
    --------
    >>> from metaeval.agreement.analytic import cohen_kappa
    >>> r = cohen_kappa([[13, 0, 0], [0, 20, 7], [0, 4, 56]], None)
    >>> round(r.estimate, 7), round(r.se, 8)
    (0.7964094, 0.05891072)
    """
    p, n, W, pa, _ = _prepare(table, w)
    r, c = p.sum(axis=-1), p.sum(axis=-2)
    pe = np.einsum("kl,...k,...l->...", W, r, c)
    kappa = chance_corrected(pa, pe)
    a = np.einsum("kl,...l->...k", W, c)      # w̄_k· = Σ_l w_kl p_+l
    b = np.einsum("kl,...k->...l", W, r)      # w̄_·l = Σ_k w_kl p_k+
    s = a[..., :, None] + b[..., None, :]
    u = W - (1 - kappa)[..., None, None] * s
    var = _variance(p, u, n, pe)
    outer = r[..., :, None] * c[..., None, :]
    first = np.einsum("...kl,...kl->...", outer, (W - s) ** 2)
    # the bracket is a difference that is exactly 0 for degenerate margins (a rater who uses one
    # level: κ = 0 with no variation under H0); left as rounding noise (6.7e-16 for
    # [[0, 0], [1, 2]], as statsmodels' var_kappa0 has it) it would give a z-test of 0/noise
    num = first - pe**2
    num = np.where(np.abs(num) <= 1e-12 * np.maximum(first, pe**2), 0.0, num)
    with np.errstate(invalid="ignore", divide="ignore"):
        var0 = num / (n * (1 - pe) ** 2)
    return _finish(kappa, var, pa, pe, n, var0)


def scott_pi(table, w) -> AnalyticResult:
    """Scott's (weighted) pi and its variance.

    π̂ = (p_a − p_e)/(1 − p_e), p_e = Σ w_kl π_k π_l with π_k = (p_k+ + p_+k)/2. Influence of an
    item in cell (k, l): u_kl = w_kl − (1 − π̂)(g_k + g_l), g = (W + Wᵀ)π/2.

    Parameters
    ----------
    table : array-like, shape (K, K) or (..., K, K)
        Counts (rows: reference, columns: candidate).
    w : array-like (K, K), str or None
        Agreement weights, or a scheme name.

    Returns
    -------
    AnalyticResult

    References
    ----------
    Scott (1955); Gwet (2014) ch. 5; irrCAC (R) ``scott2.table`` (identical for symmetric
    weights; see the module docstring for asymmetric ones). Tested against irrCAC.

    Examples
    --------
    >>> from metaeval.agreement.analytic import scott_pi
    >>> r = scott_pi([[13, 0, 0], [0, 20, 7], [0, 4, 56]], None)
    >>> round(r.estimate, 7), round(r.se, 8)
    (0.7962397, 0.05905473)
    """
    p, n, W, pa, _ = _prepare(table, w)
    pi = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
    pe = np.einsum("kl,...k,...l->...", W, pi, pi)
    est = chance_corrected(pa, pe)
    g = np.einsum("kl,...l->...k", (W + W.T) / 2, pi)
    u = W - (1 - est)[..., None, None] * (g[..., :, None] + g[..., None, :])
    return _finish(est, _variance(p, u, n, pe), pa, pe, n)


def gwet_ac(table, w) -> AnalyticResult:
    """Gwet's AC1 (identity weights) or AC2 (any other weights) and its variance.

    p_e = T_w/(K(K − 1)) Σ_k π_k(1 − π_k), T_w = Σ w_kl, π_k = (p_k+ + p_+k)/2. Influence of an
    item in cell (k, l): u_kl = w_kl − (1 − AC)·T_w/(K(K − 1))·(1 − π_k − π_l).

    Parameters
    ----------
    table : array-like, shape (K, K) or (..., K, K)
        Counts (rows: reference, columns: candidate); K ≥ 2.
    w : array-like (K, K), str or None
        Agreement weights (identity: AC1), or a scheme name.

    Returns
    -------
    AnalyticResult

    References
    ----------
    Gwet (2008), Gwet (2014) ch. 5; irrCAC (R) ``gwet.ac1.table``. Tested against irrCAC.

    Examples
    --------
    >>> from metaeval.agreement.analytic import gwet_ac
    >>> r = gwet_ac([[13, 0, 0], [0, 20, 7], [0, 4, 56]], "quadratic")   # AC2
    >>> round(r.estimate, 5), round(r.se, 5)
    (0.94024, 0.01792)
    """
    p, n, W, pa, k = _prepare(table, w)
    pi = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        c = W.sum() / (k * (k - 1)) if k > 1 else np.nan
    pe = c * (pi * (1 - pi)).sum(axis=-1)
    est = chance_corrected(pa, pe)
    u = W - ((1 - est) * c)[..., None, None] * (1 - pi[..., :, None] - pi[..., None, :])
    return _finish(est, _variance(p, u, n, pe), pa, pe, n)


def brennan_prediger(table, w) -> AnalyticResult:
    """Brennan–Prediger coefficient (Bennett's S; PABAK for identity weights) and its variance.

    p_e = T_w/K² (T_w = Σ w_kl) is fixed, so var = [Σ p_kl w_kl² − p_a²] / (n (1 − p_e)²).

    Parameters
    ----------
    table : array-like, shape (K, K) or (..., K, K)
        Counts (rows: reference, columns: candidate).
    w : array-like (K, K), str or None
        Agreement weights, or a scheme name.

    Returns
    -------
    AnalyticResult

    References
    ----------
    Brennan & Prediger (1981); Gwet (2014) ch. 5; irrCAC (R) ``bp2.table``. Tested against irrCAC.

    Examples
    --------
    >>> from metaeval.agreement.analytic import brennan_prediger
    >>> r = brennan_prediger([[13, 0, 0], [0, 20, 7], [0, 4, 56]], None)
    >>> round(r.estimate, 3), round(r.se, 8)
    (0.835, 0.04693346)
    """
    p, n, W, pa, k = _prepare(table, w)
    pe = np.full(np.shape(pa), W.sum() / k**2)
    est = chance_corrected(pa, pe)
    u = np.broadcast_to(W, p.shape)
    return _finish(est, _variance(p, u, n, pe), pa, pe, n)


def krippendorff_alpha(table, w) -> AnalyticResult:
    """Krippendorff's alpha for two raters (no missing ratings) and its variance.

    α = (p_a′ − p_e)/(1 − p_e) with Scott's p_e and p_a′ = (1 − ε) p_a + ε, ε = 1/(2n): exactly
    Krippendorff's alpha of the coincidence matrix T + Tᵀ, and α = (1 − ε)·π + ε with π Scott's
    pi, so var(α̂) = (1 − ε)² var(π̂) (irrCAC reports var(π̂); see the module docstring).

    Levels of measurement and weights (:func:`~metaeval.core.weights.krippendorff_weights`):
    nominal → identity, interval → quadratic, ratio → ratio, circular → circular,
    bipolar → bipolar, each on the category values. Ordinal alpha has no fixed weight matrix and
    is refused.

    Parameters
    ----------
    table : array-like, shape (K, K) or (..., K, K)
        Counts (rows: reference, columns: candidate).
    w : array-like (K, K), str or None
        Agreement weights, or a level of measurement (``"nominal"``, ``"interval"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"``; None means nominal) on the levels 0 … K−1 (1 … K for
        ratio). A string is a *level*, not a weight scheme: ``"ordinal"`` raises
        :class:`~metaeval.core.errors.InputError`.

    Returns
    -------
    AnalyticResult
        ``pa`` is the adjusted p_a′.

    References
    ----------
    Krippendorff (2011); irrCAC (R) ``krippen2.table``. Point estimates tested against irrCAC and
    the ``krippendorff`` package; the standard error against irrCAC's × (1 − 1/(2n)).

    Examples
    --------
    >>> from metaeval.agreement.analytic import krippendorff_alpha
    >>> r = krippendorff_alpha([[13, 0, 0], [0, 20, 7], [0, 4, 56]], "nominal")
    >>> round(r.estimate, 7), round(r.se / (1 - 1 / 200), 8)   # irrCAC prints se 0.05905473
    (0.7972585, 0.05905473)
    """
    p, n, W, pa0, _ = _prepare(table, w, level=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        eps = 1 / (2 * n)
    pi = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
    pe = np.einsum("kl,...k,...l->...", W, pi, pi)
    scott = chance_corrected(pa0, pe)
    pa = (1 - eps) * pa0 + eps
    est = chance_corrected(pa, pe)
    g = np.einsum("kl,...l->...k", (W + W.T) / 2, pi)
    u = W - (1 - scott)[..., None, None] * (g[..., :, None] + g[..., None, :])
    return _finish(est, (1 - eps) ** 2 * _variance(p, u, n, pe), pa, pe, n)
