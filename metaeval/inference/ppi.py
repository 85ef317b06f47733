"""Prediction-powered inference (PPI, PPI++): judge labels everywhere, human labels on a few items.

n items (or topics) carry a human label y and a judge label ŷ; N more carry only the judge label.
The judge-only mean is biased by however far the judge is off; the human-only mean ignores the N
judge labels. PPI (Angelopoulos et al., Science 2023) adds the judge's mean on the unlabelled items
to the mean residual y − ŷ on the labelled ones; PPI++ (Angelopoulos, Duchi & Zrnic 2023) weights
the judge by a power-tuning parameter λ:

    θ̂_λ = λ · mean(ŷ_unl) + mean(y − λ ŷ_lab),
    var(θ̂_λ) = Var(y − λ ŷ)/n + λ² Var(ŷ_unl)/N,
    λ* = Cov(y, ŷ) / ((1 + n/N) Var(ŷ))          (clipped to [0, 1], as ppi_py does).

λ = 0 is the human-only (classical) mean, λ = 1 plain PPI. Estimates are unbiased for every fixed
λ; the interval is valid whatever the judge's bias, and it is narrower than the human-only one in
proportion to how well the judge tracks the humans.

Conventions
-----------
* ``quantile="normal"`` uses the 1/n variances of ppi_py (``np.std``), so that with
  ``ci_method="analytic"`` its intervals equal ``ppi_py.ppi_mean_ci`` to 1e-12; ``quantile="t"`` uses 1/(n − 1) variances and a Student
  t(n − 1) quantile, so that ``method="classical"`` is exactly Student's t interval.
* ``cluster=``: the labelled units are clusters (topics) of items: every variance is computed from
  cluster totals (the linearization variance of a ratio mean), λ* from the same cluster totals,
  and the t quantile has (labelled clusters − 1) degrees of freedom.
* ``population_size=P``: the target is the mean of y over a finite population of P items of which
  the n labelled ones were drawn at random (without replacement) and the N unlabelled ones are a
  random sample of the rest (N = P − n: every other item). See :func:`ppi_mean_variance`.

Small samples: the default interval
-----------------------------------
With 10–25 labelled topics the normal-quantile interval of ppi_py under-covers (the issue measured
0.86–0.88 on TREC DL with 15 topics, one run of 200 draws a year, ±0.01). Three small-sample choices were compared by simulation
(``coverage_simulation`` in tests/test_ppi.py, its reduced version a slow test):

* ``"t"``: the analytic interval with a Student t(n − 1) quantile and 1/(n − 1) variances;
* ``"jackknife"``: the delete-one-unit jackknife variance (labelled and unlabelled units left out
  in turn, λ re-tuned on every leave-one-out sample, so that the variance carries the error of
  the estimated λ) with the t(n − 1) quantile;
* ``"bootstrap-t"``: studentized replicates through metaeval's engine (labelled and unlabelled
  units resampled on their own, λ re-tuned in each replicate) in place of the quantile.

Design: T = 40, 100, 200 topics of 10–40 items each; an item's human label is Bernoulli(μ_t),
μ_t ~ Beta(2, 2.5); the judge's score is 0.6·y + 0.2 + b_t + N(0, 0.2²) clipped to [0, 1], with a
topic bias b_t ~ N(0.05, 0.10²) (bias varying by topic); n = 10, 15, 25, 50 labelled topics drawn
at random (n < T). ``topics``: one value per topic (its mean label, as a run's per-topic score),
target the superpopulation mean 2/4.5; ``topics_fpc``: the same with ``population_size=T``, target
the mean over the T topics at hand (the TREC question); ``items_clustered``: item-level labels
with ``cluster=``, target the superpopulation mean. Nominal 95%, two-sided; cells are coverage
(mean width) pooled over T; mean over 10 seeds (benchmarks/coverage_seeds.py ``--only ppi``) of
180 data sets per cell for normal, t and jackknife (120 at n = 50, where T = 40 is left out) and
60 (40) with B = 499 for bootstrap-t, 1,800 (1,200) and 600 (400) in all; Monte Carlo error, the
SD across seeds / √10, at most 0.009 for t and jackknife, 0.014 for normal and 0.016 for
bootstrap-t (mostly 0.003–0.008). Seed k = 0 … 9 runs
``coverage_simulation(reps=60, choices=CHOICES[:3], seed=20261201 + 1000 k)`` and
``coverage_simulation(reps=20, n_resamples=499, choices=CHOICES[3:], seed=20261202 + 1000 k)``::

    analysis        method     choice       n = 10        n = 15        n = 25        n = 50
    =============== ========== ============ ============= ============= ============= =============
    topics          ppi++      normal       0.896 (0.176) 0.901 (0.153) 0.932 (0.131) 0.934 (0.097)
                    ppi++      t            0.949 (0.213) 0.932 (0.173) 0.950 (0.140) 0.944 (0.100)
                    ppi++      jackknife    0.964 (0.244) 0.952 (0.188) 0.961 (0.146) 0.950 (0.102)
                    ppi++      bootstrap-t  0.967 (0.258) 0.950 (0.187) 0.948 (0.145) 0.965 (0.101)
                    ppi        normal       0.917 (0.176) 0.923 (0.156) 0.932 (0.142) 0.946 (0.102)
                    ppi        t            0.961 (0.213) 0.952 (0.176) 0.950 (0.152) 0.952 (0.106)
                    ppi        jackknife    0.961 (0.213) 0.952 (0.176) 0.950 (0.152) 0.952 (0.106)
                    ppi        bootstrap-t  0.952 (0.210) 0.930 (0.169) 0.930 (0.150) 0.970 (0.104)
                    classical  normal       0.911 (0.270) 0.916 (0.224) 0.935 (0.177) 0.938 (0.127)
                    classical  t            0.955 (0.328) 0.945 (0.254) 0.956 (0.190) 0.947 (0.132)
                    classical  jackknife    0.955 (0.328) 0.945 (0.254) 0.956 (0.190) 0.947 (0.132)
                    classical  bootstrap-t  0.965 (0.348) 0.955 (0.260) 0.947 (0.190) 0.960 (0.131)
                    judge_only normal       0.093 (0.066) 0.087 (0.066) 0.079 (0.067) 0.007 (0.052)
                    judge_only t            0.099 (0.068) 0.094 (0.068) 0.088 (0.069) 0.007 (0.053)
                    judge_only jackknife    0.098 (0.067) 0.091 (0.067) 0.083 (0.067) 0.007 (0.052)
                    judge_only bootstrap-t  0.083 (0.067) 0.098 (0.067) 0.087 (0.067) 0.010 (0.052)
    topics_fpc      ppi++      normal       0.893 (0.150) 0.912 (0.120) 0.938 (0.085) 0.938 (0.059)
                    ppi++      t            0.938 (0.182) 0.943 (0.136) 0.952 (0.091) 0.947 (0.061)
                    ppi++      jackknife    0.960 (0.209) 0.958 (0.147) 0.964 (0.095) 0.953 (0.062)
                    ppi++      bootstrap-t  0.977 (0.217) 0.955 (0.145) 0.938 (0.094) 0.953 (0.061)
                    ppi        normal       0.901 (0.147) 0.921 (0.118) 0.940 (0.084) 0.939 (0.059)
                    ppi        t            0.953 (0.179) 0.948 (0.134) 0.954 (0.090) 0.949 (0.061)
                    ppi        jackknife    0.953 (0.179) 0.948 (0.134) 0.954 (0.090) 0.949 (0.061)
                    ppi        bootstrap-t  0.952 (0.177) 0.927 (0.129) 0.930 (0.088) 0.948 (0.060)
                    classical  normal       0.923 (0.251) 0.927 (0.200) 0.931 (0.143) 0.948 (0.100)
                    classical  t            0.962 (0.305) 0.957 (0.226) 0.952 (0.153) 0.953 (0.104)
                    classical  jackknife    0.962 (0.305) 0.957 (0.226) 0.952 (0.153) 0.953 (0.104)
                    classical  bootstrap-t  0.968 (0.324) 0.955 (0.232) 0.950 (0.153) 0.955 (0.103)
                    judge_only normal       0.000 (0.000) 0.000 (0.000) 0.000 (0.000) 0.000 (0.000)
                    judge_only t            0.000 (0.000) 0.000 (0.000) 0.000 (0.000) 0.000 (0.000)
                    judge_only jackknife    0.000 (0.000) 0.000 (0.000) 0.000 (0.000) 0.000 (0.000)
                    judge_only bootstrap-t  0.000 (0.000) 0.000 (0.000) 0.000 (0.000) 0.000 (0.000)
    items_clustered ppi++      normal       0.881 (0.175) 0.899 (0.155) 0.928 (0.133) 0.922 (0.100)
                    ppi++      t            0.932 (0.212) 0.926 (0.175) 0.948 (0.143) 0.938 (0.103)
                    ppi++      jackknife    0.958 (0.235) 0.947 (0.187) 0.956 (0.151) 0.945 (0.106)
                    ppi++      bootstrap-t  0.958 (0.263) 0.952 (0.193) 0.955 (0.153) 0.963 (0.105)
                    ppi        normal       0.908 (0.180) 0.924 (0.160) 0.931 (0.146) 0.938 (0.106)
                    ppi        t            0.951 (0.217) 0.944 (0.180) 0.951 (0.157) 0.948 (0.110)
                    ppi        jackknife    0.954 (0.221) 0.944 (0.182) 0.952 (0.159) 0.950 (0.110)
                    ppi        bootstrap-t  0.940 (0.222) 0.933 (0.177) 0.942 (0.157) 0.970 (0.108)
                    classical  normal       0.889 (0.274) 0.912 (0.229) 0.925 (0.183) 0.934 (0.132)
                    classical  t            0.940 (0.333) 0.946 (0.259) 0.940 (0.196) 0.945 (0.136)
                    classical  jackknife    0.942 (0.340) 0.946 (0.263) 0.943 (0.198) 0.945 (0.137)
                    classical  bootstrap-t  0.957 (0.377) 0.940 (0.276) 0.953 (0.201) 0.955 (0.137)
                    judge_only normal       0.102 (0.069) 0.094 (0.069) 0.093 (0.069) 0.007 (0.054)
                    judge_only t            0.114 (0.071) 0.103 (0.071) 0.102 (0.071) 0.008 (0.055)
                    judge_only jackknife    0.107 (0.070) 0.100 (0.070) 0.096 (0.070) 0.008 (0.055)
                    judge_only bootstrap-t  0.100 (0.070) 0.115 (0.070) 0.095 (0.070) 0.013 (0.054)

Chosen defaults: ``quantile="t"`` with the jackknife whenever λ is tuned on the data
(:data:`DEFAULT_QUANTILE`; :data:`DEFAULT_CI_METHOD` ``"auto"``: the analytic t interval for a fixed
λ, which the jackknife equals then). For PPI++ it covers 0.945–0.964 in every analysis and at every n,
where the t interval covers 0.926–0.949 at n = 10–15 and ppi_py's normal interval 0.881–0.912;
its price is width: +11–15% over the t interval at n = 10, 2–3% at n = 50, and it stays 26–35%
narrower than the human-only t interval at n = 10–15. The bootstrap-t covers about as well
(0.938–0.977) but is wider at n = 10, noisier from cell to cell and tens of times slower. For
fixed λ (``"ppi"``, ``"classical"``) without clusters the jackknife equals the t interval exactly
(the estimate is linear in the unit means). The judge-only interval covers 0–12%: the judge's bias
does not shrink with more labels.
With ``population_size`` the judge-only interval has zero width (the judge's mean over the whole
population is known) and covers nothing, which is the point: only the human labels measure the bias.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..core.errors import InputError, SmallSampleWarning
from ..core.results import ConfidenceInterval, Estimate

__all__ = ["ppi_mean", "ppi_proportion", "ppi_mean_difference", "ppi_quantile", "ppi_ols", "ppi_logistic",
           "ppi_mean_stratified", "neyman_allocation", "proportional_allocation", "stratum_residual_sd",
           "ppi_mean_variance", "ppi_lambda", "PPIVariance", "METHODS", "QUANTILES", "CI_METHODS", "DEFAULT_QUANTILE",
           "DEFAULT_CI_METHOD"]

#: The estimators of a mean: PPI++ (power-tuned λ), PPI (λ = 1), human-only (λ = 0), judge-only.
METHODS = ("ppi++", "ppi", "classical", "judge_only")
#: Quantiles of the analytic interval.
QUANTILES = ("t", "normal")
#: Interval methods: the analytic (Wald) interval, the bootstrap-t through metaeval's engine, the
#: delete-one jackknife variance (λ re-tuned on every leave-one-out sample); None: the point estimate.
CI_METHODS = ("auto", "jackknife", "analytic", "bootstrap-t")
#: Default quantile: Student t with (labelled units − 1) degrees of freedom (chosen by the coverage
#: simulation of the module notes).
DEFAULT_QUANTILE = "t"
#: Default interval method: ``"auto"`` = the jackknife variance with λ re-tuned on each leave-one-out
#: sample when λ is estimated from the data (PPI++ without ``lam``: it covered 0.945–0.964 from 10
#: labelled topics on, where the t interval covered 0.926–0.949 at 10–15; means over 10 seeds,
#: Monte Carlo error ≤ 0.009), the analytic variance
#: otherwise (for a fixed λ without clusters the jackknife equals it exactly).
DEFAULT_CI_METHOD = "auto"
_ALTERNATIVES = ("two-sided", "greater", "less")


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------

def _vector(x, name: str) -> np.ndarray:
    try:
        v = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be numbers", text=repr(x)[:60], expected="a 1-D array of floats") from err
    if v.ndim == 0:
        v = v[None]
    if v.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {v.shape}", fix="pass a 1-D array or a Series")
    bad = ~np.isfinite(v)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{name} holds {int(bad.sum())} missing or infinite values (the first at position {i})",
                         expected="finite numbers", fix=f"drop those items from {name} (and its partner) first")
    return v


def _codes(c, n: int, name: str, partner: str) -> np.ndarray:
    arr = np.asarray(c)
    if arr.ndim != 1 or len(arr) != n:
        raise InputError(f"{name} has {len(arr) if arr.ndim == 1 else arr.shape} entries, {partner} has {n}",
                         expected=f"one cluster id per item of {partner}")
    if arr.dtype.kind in "iub":
        bad = np.zeros(n, dtype=bool)
    elif arr.dtype.kind == "f":
        bad = np.isnan(arr)
    else:
        bad = np.asarray([v is None or (isinstance(v, float) and math.isnan(v)) for v in arr.tolist()], dtype=bool)
    if bad.any():
        raise InputError(f"{name} has {int(bad.sum())} missing cluster ids", fix="give every item its cluster")
    return arr


def _check_common(confidence_level, alternative, quantile, ci_method, method):
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    if alternative not in _ALTERNATIVES:
        raise InputError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    if quantile not in QUANTILES:
        raise InputError(f"quantile must be one of {QUANTILES}, got {quantile!r}")
    if ci_method is not None and ci_method not in CI_METHODS:
        raise InputError(f"ci_method must be one of {CI_METHODS} or None, got {ci_method!r}")


@dataclass(frozen=True)
class _Data:
    """Per-unit sufficient statistics of the labelled (XL) and unlabelled (XU) samples."""

    XL: np.ndarray
    XU: np.ndarray
    clustered: bool
    n: int
    N: int
    population_size: int | None


# labelled columns: units, items, Ty, Th, Qyy, Qhh, Qyh, ΣTy², ΣTh², ΣTyTh, ΣnTy, ΣnTh, Σn²
_DL = 13
# unlabelled columns: units, items, Th, Qhh, ΣTh², ΣnTh, Σn²
_DU = 7


def _unit_sums(y, h, cl):
    """Per-cluster rows of the labelled sufficient statistics (one row per item without clusters)."""
    if cl is None:
        one = np.ones_like(y)
        return np.column_stack([one, one, y, h, y * y, h * h, y * h, y * y, h * h, y * h, y, h, one])
    _, inv = np.unique(cl, return_inverse=True)
    G = int(inv.max()) + 1
    nc = np.bincount(inv, minlength=G).astype(float)
    Ty = np.bincount(inv, y, G)
    Th = np.bincount(inv, h, G)
    Qyy = np.bincount(inv, y * y, G)
    Qhh = np.bincount(inv, h * h, G)
    Qyh = np.bincount(inv, y * h, G)
    return np.column_stack([np.ones(G), nc, Ty, Th, Qyy, Qhh, Qyh, Ty * Ty, Th * Th, Ty * Th, nc * Ty, nc * Th,
                            nc * nc])


def _unit_sums_u(h, cl):
    if cl is None:
        one = np.ones_like(h)
        return np.column_stack([one, one, h, h * h, h * h, h, one])
    _, inv = np.unique(cl, return_inverse=True)
    G = int(inv.max()) + 1
    nc = np.bincount(inv, minlength=G).astype(float)
    Th = np.bincount(inv, h, G)
    Qhh = np.bincount(inv, h * h, G)
    return np.column_stack([np.ones(G), nc, Th, Qhh, Th * Th, nc * Th, nc * nc])


def _prepare(y, yhat, yhat_unlabelled, cluster=None, cluster_unlabelled=None, population_size=None) -> _Data:
    y = _vector(y, "y")
    h = _vector(yhat, "yhat")
    hu = _vector(yhat_unlabelled, "yhat_unlabelled")
    if len(y) != len(h):
        raise InputError(f"y and yhat have different lengths: {len(y)} and {len(h)}",
                         expected="a human label and a judge label for every labelled item")
    if len(y) < 2:
        raise InputError(f"need at least 2 labelled items, got {len(y)}")
    if len(hu) == 0:
        raise InputError("yhat_unlabelled is empty", expected="the judge's labels on at least one unlabelled item",
                         fix="with no unlabelled items there is nothing to correct: use method='classical'")
    if (cluster is None) != (cluster_unlabelled is None):
        raise InputError("give cluster= and cluster_unlabelled= together (or neither)",
                         fix="pass the cluster (topic) of every labelled and every unlabelled item")
    cl = clu = None
    if cluster is not None:
        cl = _codes(cluster, len(y), "cluster", "y")
        clu = _codes(cluster_unlabelled, len(hu), "cluster_unlabelled", "yhat_unlabelled")
        shared = np.intersect1d(np.unique(cl.astype(str)), np.unique(clu.astype(str)))
        if len(shared):
            raise InputError(f"{len(shared)} clusters are both labelled and unlabelled (e.g. {shared[0]!r})",
                             expected="disjoint clusters: the labelled topics are labelled whole",
                             fix="label whole clusters, or drop the unlabelled items of labelled clusters")
        if len(np.unique(cl)) < 2:
            raise InputError("need at least 2 labelled clusters")
    if population_size is not None:
        if cluster is not None:
            raise InputError("population_size= with cluster= is not supported",
                             fix="for a finite population of topics pass one value per topic (no cluster=)")
        P = int(population_size)
        if P != population_size or P < len(y) + len(hu):
            raise InputError(f"population_size must be an integer of at least n + N = {len(y) + len(hu)}, "
                             f"got {population_size!r}")
        population_size = P
    return _Data(_unit_sums(y, h, cl), _unit_sums_u(hu, clu), cl is not None, len(y), len(hu), population_size)


# --------------------------------------------------------------------------------------------
# the one definition of the estimate, its variance and λ* (vectorized over rows of sums)
# --------------------------------------------------------------------------------------------

def _moments(SL, SU, ddof):
    """Means and variances of the means (cluster totals) from summed statistics, shape (b, ·)."""
    GL, n, Ty, Th, Qyy, Qhh, Qyh, Tyy, Thh, Tyh, nTy, nTh, nn = SL.T
    GU, N, Tu, Quu, Tuu, nTu, nnu = SU.T
    with np.errstate(invalid="ignore", divide="ignore"):
        ybar, hbar, ubar = Ty / n, Th / n, Tu / N
        Myy = Tyy - 2 * ybar * nTy + ybar ** 2 * nn
        Mhh = Thh - 2 * hbar * nTh + hbar ** 2 * nn
        Myh = Tyh - ybar * nTh - hbar * nTy + ybar * hbar * nn
        Muu = Tuu - 2 * ubar * nTu + ubar ** 2 * nnu
        cL = GL / (GL - ddof) / n ** 2
        cU = GU / (GU - ddof) / N ** 2
    return dict(GL=GL, GU=GU, n=n, N=N, ybar=ybar, hbar=hbar, ubar=ubar, Vy=cL * Myy, Vh=cL * Mhh, C=cL * Myh,
                VU=cU * Muu, Qyh=Qyh, Qhh=Qhh, Quu=Quu, Ty=Ty, Th=Th, Tu=Tu)


def _fpc_terms(n, N, P):
    """(a, b): the labelled and unlabelled variance multipliers of the finite-population design."""
    a = 1.0 / n + 1.0 / (P - n)
    b = 1.0 / N - 1.0 / (P - n)
    return a, b


def _tuned_lambda(m, clustered, P):
    """λ* of PPI++: ppi_py's estimator without clusters, the cluster-total one with clusters."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if clustered:
            num, den = m["C"], m["Vh"] + m["VU"]
        else:
            n, N = m["n"], m["N"]
            cov0 = m["Qyh"] / n - m["ybar"] * m["hbar"]
            tot = n + N
            mu = (m["Th"] + m["Tu"]) / tot
            s2 = (m["Qhh"] + m["Quu"] - tot * mu ** 2) / (tot - 1)
            if P is None:
                factor = 1 + n / N
            else:
                a, b = _fpc_terms(n, N, P)
                factor = 1 + b / a
            num, den = cov0, factor * s2
        lam = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return np.clip(lam, 0.0, 1.0)


def _estimate(m, lam, P, judge_only=False, ddof=0):
    """(θ̂, var_labelled, var_unlabelled) for a given λ (array), from :func:`_moments` output."""
    n, N = m["n"], m["N"]
    with np.errstate(invalid="ignore", divide="ignore"):
        if judge_only:
            theta = (m["Th"] + m["Tu"]) / (n + N)
            return theta, None, None
        theta_r = lam * m["ubar"] + m["ybar"] - lam * m["hbar"]
        var_l = m["Vy"] - 2 * lam * m["C"] + lam ** 2 * m["Vh"]
        var_u = lam ** 2 * m["VU"]
        if P is None:
            return theta_r, var_l, var_u
        # finite population: the labelled items are known exactly; θ_R estimates the mean of the rest
        f = (P - n) / P
        a, b = _fpc_terms(n, N, P)
        # Vy etc. are S²/n and S_U²/N (with the ddof divisor): rescale to the design's multipliers
        theta = (n * m["ybar"] + (P - n) * theta_r) / P
        return theta, f ** 2 * var_l * n * a, f ** 2 * var_u * N * b


def _judge_only(SL, SU, ddof, P):
    """Judge-only mean over every labelled and unlabelled unit and its variance (cluster totals)."""
    G = SL[:, 0] + SU[:, 0]
    n = SL[:, 1] + SU[:, 1]
    T = SL[:, 3] + SU[:, 2]
    TT = SL[:, 8] + SU[:, 4]
    nT = SL[:, 11] + SU[:, 5]
    nn = SL[:, 12] + SU[:, 6]
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = T / n
        var = G / (G - ddof) * (TT - 2 * mu * nT + mu ** 2 * nn) / n ** 2
    if P is not None:
        var = var * (1 - n / P)
    return mu, var


def _evaluate(SL, SU, *, method, lam, clustered, P, ddof):
    """Every figure of one method on rows of summed statistics (b, ·), vectorized.

    Returns a dict of arrays: ``theta``, ``var`` (with the finite-population design when ``P``),
    ``theta_inf``, ``var_inf`` (with a population size: θ̂_R, the PPI estimate of the mean of the
    items not labelled, with the same λ, and its infinite-population variance; without one, the
    same as ``theta`` and ``var``: for the jackknife and for studentizing bootstrap replicates),
    ``var_l``, ``var_u`` (the two parts of ``var``) and ``lam``.
    """
    b = SL.shape[0]
    if method == "judge_only":
        theta, var = _judge_only(SL, SU, ddof, P)
        theta_i, var_i = _judge_only(SL, SU, ddof, None)
        nan = np.full(b, np.nan)
        return dict(theta=theta, var=var, theta_inf=theta_i, var_inf=var_i, var_l=nan, var_u=nan, lam=nan)
    m = _moments(SL, SU, ddof)
    if method == "ppi++" and lam is None:
        m0 = m if ddof == 0 else _moments(SL, SU, 0)
        lam_a = _tuned_lambda(m0, clustered, P)
    else:
        fixed = {"classical": 0.0, "ppi": 1.0}.get(method, lam)
        lam_a = np.full(b, float(fixed))
    theta_i, vl_i, vu_i = _estimate(m, lam_a, None)
    if P is None:
        theta, vl, vu = theta_i, vl_i, vu_i
    else:
        theta, vl, vu = _estimate(m, lam_a, P)
    return dict(theta=theta, var=vl + vu, theta_inf=theta_i, var_inf=vl_i + vu_i, var_l=vl, var_u=vu, lam=lam_a)


# --------------------------------------------------------------------------------------------
# the public helpers
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PPIVariance:
    """The PPI estimate of a mean for one λ, and its variance in two parts.

    Attributes
    ----------
    estimate : float
        θ̂_λ.
    variance : float
        ``var_labelled + var_unlabelled``.
    var_labelled : float
        The part from the labelled sample: Var(y − λŷ)/n (cluster totals with clusters; with a finite
        population ((P − n)/P)² · S²_{y−λŷ} · (1/n + 1/(P − n))).
    var_unlabelled : float
        The part from the unlabelled sample: λ² Var(ŷ_unl)/N (with a finite population
        ((P − n)/P)² · λ² S²_ŷ · (1/N − 1/(P − n)), zero when every other item is judged).
    lam : float
        The λ used.
    n, N : int
        Labelled and unlabelled items.
    n_clusters, n_clusters_unlabelled : int
        Labelled and unlabelled units (clusters, or items without clusters).

    Examples
    --------
    >>> v = PPIVariance(0.5, 0.01, 0.008, 0.002, 0.9, 20, 200, 20, 200)
    >>> round(v.se, 4)
    0.1
    """

    estimate: float
    variance: float
    var_labelled: float
    var_unlabelled: float
    lam: float
    n: int
    N: int
    n_clusters: int
    n_clusters_unlabelled: int

    @property
    def se(self) -> float:
        """√variance.

        Examples
        --------
        >>> PPIVariance(0.5, 0.04, 0.03, 0.01, 1.0, 10, 90, 10, 90).se
        0.2
        """
        return math.sqrt(self.variance) if self.variance >= 0 else float("nan")


def _ddof_for(quantile):
    return 1 if quantile == "t" else 0


def _variance_from(d: _Data, lam, ddof) -> PPIVariance:
    m = _moments(d.XL.sum(axis=0)[None], d.XU.sum(axis=0)[None], ddof)
    lam_a = np.atleast_1d(np.asarray(lam, dtype=float))
    theta, vl, vu = _estimate(m, lam_a, d.population_size)
    return PPIVariance(float(theta[0]), float(vl[0] + vu[0]), float(vl[0]), float(vu[0]), float(lam_a[0]), d.n, d.N,
                       len(d.XL), len(d.XU))


def ppi_lambda(y, yhat, yhat_unlabelled, *, population_size: int | None = None, cluster=None,
               cluster_unlabelled=None) -> float:
    """The power-tuned λ* of PPI++ for a mean, as ppi_py estimates it.

    Parameters
    ----------
    y : array-like (n,)
        Human labels of the labelled items.
    yhat : array-like (n,)
        The judge's labels of the same items.
    yhat_unlabelled : array-like (N,)
        The judge's labels of the unlabelled items.
    population_size : int, optional
        Finite population of P ≥ n + N items (see :func:`ppi_mean_variance`): λ* minimizes the
        finite-population variance, ``Cov(y, ŷ) / ((1 + b/a) Var(ŷ))`` with a = 1/n + 1/(P − n),
        b = 1/N − 1/(P − n) (b = 0, the regression slope, when N = P − n).
    cluster, cluster_unlabelled : array-like, optional
        Cluster (topic) of each labelled and unlabelled item: λ* = Cov(ȳ, ŷ̄_lab) /
        (Var(ŷ̄_lab) + Var(ŷ̄_unl)) from cluster totals.

    Returns
    -------
    float
        λ* clipped to [0, 1]; 0 when the judge's labels are constant.

    Notes
    -----
    Without clusters: λ* = Cov₁/ₙ(y, ŷ) / ((1 + n/N) · Var(ŷ_lab ∪ ŷ_unl)), the covariance with
    divisor n and the variance of the pooled judge labels with divisor n + N − 1: exactly
    ppi_py's ``_calc_lam_glm`` for the mean (gradients y − θ and ŷ − θ, identity Hessian).

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, arXiv 2311.01453, Example 6.1; ppi_py 0.2.3
    ``ppi_py.ppi._calc_lam_glm`` (tests/test_ppi.py, equal to 1e-12).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=50); yhat = y + rng.normal(scale=0.5, size=50)
    >>> yu = rng.normal(size=500) * 1.1
    >>> round(ppi_lambda(y, yhat, yu), 3)
    0.591
    """
    d = _prepare(y, yhat, yhat_unlabelled, cluster, cluster_unlabelled, population_size)
    m = _moments(d.XL.sum(axis=0)[None], d.XU.sum(axis=0)[None], 0)
    return float(_tuned_lambda(m, d.clustered, d.population_size)[0])


def ppi_mean_variance(y, yhat, yhat_unlabelled, lam: float, *, ddof: int = 0, population_size: int | None = None,
                      cluster=None, cluster_unlabelled=None) -> PPIVariance:
    """The PPI estimate of a mean for a given λ and its variance: the one definition of both.

    Parameters
    ----------
    y : array-like (n,)
        Human labels of the labelled items.
    yhat : array-like (n,)
        The judge's labels of the same items.
    yhat_unlabelled : array-like (N,)
        The judge's labels of the unlabelled items.
    lam : float
        λ: 0 is the human-only mean, 1 plain PPI; :func:`ppi_lambda` gives the power-tuned λ*.
    ddof : {0, 1}
        Divisor of the variances: n − ddof (clusters: G − ddof, with the G/(G − ddof) factor of
        cluster-robust variances). 0 is ppi_py's; 1 the unbiased one that goes with a t quantile.
    population_size : int, optional
        P: the target is the mean of y over a finite population of P ≥ n + N items, the n labelled
        ones a simple random sample of it and the N unlabelled ones a random sample of the other
        P − n (usually all of them).
    cluster, cluster_unlabelled : array-like, optional
        Cluster (topic) of each labelled and each unlabelled item (disjoint clusters): variances
        from cluster totals.

    Returns
    -------
    PPIVariance
        ``estimate``, ``variance``, ``var_labelled``, ``var_unlabelled``, ``lam``, ``n``, ``N``.

    Notes
    -----
    θ̂_λ = λ·mean(ŷ_unl) + mean(y − λŷ_lab); var = Var(y − λŷ)/n + λ²·Var(ŷ_unl)/N (Angelopoulos,
    Duchi & Zrnic 2023, eq. 6).

    With clusters c = 1..G (items per cluster n_c, totals T_c), the variance of a mean of z is
    G/(G − ddof) · Σ_c (T_c(z) − n_c z̄)² / n², applied to z = y − λŷ (labelled) and to ŷ
    (unlabelled); without clusters every item is its own cluster and this is Var(z)/n.

    Finite population of P items (n labelled, N unlabelled, both random): the labelled y are known
    exactly, so θ̂ = (n·ȳ + (P − n)·θ̂_R)/P with θ̂_R the PPI estimate of the mean of the other P − n
    items. Its error is ((P − n)/P)·[(r̄_rest − r̄_lab) + λ(ŷ̄_unl − ŷ̄_rest)] with r = y − λŷ, so

        var = ((P − n)/P)² · [S²_r (1/n + 1/(P − n)) + λ² S²_ŷ (1/N − 1/(P − n))].

    With N = P − n (every other item judged) the second term vanishes and the first is
    (1 − n/P)·S²_r/n: the usual finite-population factor on the residual variance. As P → ∞ it is
    the formula above. (The judge's own variance does not enter when the judge has labelled the
    whole population: its mean there is known, not estimated.)

    References
    ----------
    ppi_py 0.2.3 ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` (``imputed_std``,
    ``rectifier_std``) for ddof = 0 without clusters or finite population (tests/test_ppi.py,
    equal to 1e-12). Cochran (1977), §2.5 and §12 (finite-population and two-phase variances);
    the finite-population variance is checked by simulation in tests/test_ppi.py.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, 0.0, 1.0, 1.0]); yhat = np.array([1.0, 0.0, 0.0, 1.0])
    >>> v = ppi_mean_variance(y, yhat, np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0]), lam=1.0)
    >>> round(v.estimate, 4), round(v.var_labelled, 4), round(v.var_unlabelled, 4)
    (0.9167, 0.0469, 0.0370)
    """
    if ddof not in (0, 1):
        raise InputError(f"ddof must be 0 or 1, got {ddof!r}")
    d = _prepare(y, yhat, yhat_unlabelled, cluster, cluster_unlabelled, population_size)
    lam = float(lam)
    if not math.isfinite(lam):
        raise InputError(f"lam must be a finite number, got {lam!r}")
    return _variance_from(d, lam, ddof)


# --------------------------------------------------------------------------------------------
# intervals
# --------------------------------------------------------------------------------------------

def _interval(est, se, df, confidence_level, alternative, quantile):
    """Wald interval est ± q·se (q normal, or t with df degrees of freedom)."""
    ppf = (lambda x: stats.t.ppf(x, df)) if quantile == "t" else stats.norm.ppf
    if alternative == "two-sided":
        q = float(ppf(0.5 + confidence_level / 2))
        return est - q * se, est + q * se
    q = float(ppf(confidence_level))
    if alternative == "greater":
        return est - q * se, math.inf
    return -math.inf, est + q * se


def _pvalue(est, se, null, df, alternative, quantile):
    if null is None or not (se > 0):
        return None
    dist = stats.t(df) if quantile == "t" else stats.norm
    z = (est - null) / se
    if alternative == "two-sided":
        return float(2 * dist.sf(abs(z)))
    if alternative == "greater":
        return float(dist.sf(z))
    return float(dist.cdf(z))


def _bootstrap_t(d: _Data, r0, *, method, lam, ddof, n_resamples, rng):
    """Studentized replicates t* = (θ* − θ̂)/se* from metaeval's engine (strata: labelled, unlabelled)."""
    from ..core.resample import Units, bootstrap

    GL, GU = len(d.XL), len(d.XU)
    X = np.zeros((GL + GU, _DL + _DU))
    X[:GL, :_DL] = d.XL
    X[GL:, _DL:] = d.XU
    strata = np.r_[np.zeros(GL, dtype=int), np.ones(GU, dtype=int)]
    units = Units(X, np.ones(GL + GU, dtype=np.int64), strata=strata, kind="clusters" if d.clustered else "items")
    theta0 = float(r0["theta_inf"][0])

    def stat(S):
        # θ_R (the estimate of the unlabelled part, with the same λ rule as θ̂) and its
        # infinite-population variance: their studentized replicates calibrate the quantile
        r = _evaluate(S[:, :_DL], S[:, _DL:], method=method, lam=lam, clustered=d.clustered, P=d.population_size,
                      ddof=ddof)
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.sqrt(r["var_inf"])
            t = np.where(se > 0, (r["theta_inf"] - theta0) / np.where(se > 0, se, 1.0), np.nan)
        return np.column_stack([r["theta_inf"], t])

    return bootstrap(stat, units, n_resamples=n_resamples, ci_method="percentile", rng=rng,
                     cluster_correction=False)


def _jackknife_variance(d: _Data, r0, *, method, lam, ddof):
    """Delete-one-unit jackknife variance (λ re-tuned on every leave-one-out sample)."""
    SL, SU = d.XL.sum(axis=0), d.XU.sum(axis=0)
    GL, GU = len(d.XL), len(d.XU)
    # leave-one-out values of θ_R with λ re-tuned by the same rule as θ̂ (the finite-population rule
    # when a population size is given); the design factors are applied below
    kw = dict(method=method, lam=lam, clustered=d.clustered, P=d.population_size, ddof=ddof)
    tl = _evaluate(SL[None] - d.XL, np.repeat(SU[None], GL, axis=0), **kw)["theta_inf"]
    tu = _evaluate(np.repeat(SL[None], GU, axis=0), SU[None] - d.XU, **kw)["theta_inf"]
    jl = (GL - 1) / GL * np.sum((tl - tl.mean()) ** 2)
    ju = (GU - 1) / GU * np.sum((tu - tu.mean()) ** 2) if GU > 1 else 0.0
    P = d.population_size
    if P is None:
        return float(jl), float(ju)
    if method == "judge_only":
        f = 1 - (d.n + d.N) / P
        return float(jl * f), float(ju * f)
    # the finite-population design (ppi_mean_variance): S²_r(1/n + 1/(P−n)) and λ²S²(1/N − 1/(P−n))
    f = (P - d.n) / P
    return float(f ** 2 * jl * P / (P - d.n)), float(f ** 2 * ju * (1 - d.N / (P - d.n)))


def _fit_mean(d: _Data, *, method, statistic, confidence_level, alternative, quantile, lam, ci_method,
              n_resamples, rng, null, bounds=None) -> Estimate:
    ddof = _ddof_for(quantile)
    if ci_method == "auto":
        # the jackknife carries the error of a λ tuned on the data; for a fixed λ it equals the
        # analytic variance (without clusters), which is then used
        ci_method = "jackknife" if method == "ppi++" and lam is None else "analytic"
    SL, SU = d.XL.sum(axis=0)[None], d.XU.sum(axis=0)[None]
    r0 = _evaluate(SL, SU, method=method, lam=lam, clustered=d.clustered, P=d.population_size, ddof=ddof)
    theta, var = float(r0["theta"][0]), float(r0["var"][0])
    vl, vu, lam_used = float(r0["var_l"][0]), float(r0["var_u"][0]), float(r0["lam"][0])
    GL, GU = len(d.XL), len(d.XU)
    df = GL + GU - 1 if method == "judge_only" else GL - 1
    extra = {"method": method, "lam": lam_used, "var_labelled": vl, "var_unlabelled": vu, "n_labelled": d.n,
             "n_unlabelled": d.N, "n_over_N": d.n / d.N, "n_clusters": GL, "n_clusters_unlabelled": GU,
             "quantile": quantile, "df": df if quantile == "t" else math.inf, "population_size": d.population_size,
             "clustered": d.clustered, "unit_of_variance": "clusters" if d.clustered else "items"}
    if ci_method == "jackknife":
        jl, ju = _jackknife_variance(d, r0, method=method, lam=lam, ddof=ddof)
        extra.update(var_analytic=var, var_labelled=jl if method != "judge_only" else math.nan,
                     var_unlabelled=ju if method != "judge_only" else math.nan)
        var = jl + ju
    se = math.sqrt(var) if var >= 0 else float("nan")
    if ci_method is None:
        return Estimate(statistic, theta, ConfidenceInterval(math.nan, math.nan, confidence_level, "none"), se=se,
                        n=d.n + d.N, unit="none", n_units=GL + GU, extra=extra)
    if ci_method in ("analytic", "jackknife"):
        low, high = _interval(theta, se, df, confidence_level, alternative, quantile)
        if bounds is not None:
            low, high = max(low, bounds[0]), min(high, bounds[1])
        return Estimate(statistic, theta, ConfidenceInterval(float(low), float(high), confidence_level, ci_method),
                        se=se, pvalue=_pvalue(theta, se, null, df, alternative, quantile), n=d.n + d.N, unit="none",
                        n_units=GL + GU, extra=extra)
    # bootstrap-t: the engine draws (labelled and unlabelled units resampled on their own), the
    # studentized replicates replace the t or normal quantile
    import dataclasses

    res = _bootstrap_t(d, r0, method=method, lam=lam, ddof=ddof, n_resamples=n_resamples, rng=rng)
    tstar = res.replicates[:, 1]
    tstar = tstar[np.isfinite(tstar)]
    alpha = 1 - confidence_level
    if alternative == "two-sided":
        q_lo, q_hi = np.quantile(tstar, [alpha / 2, 1 - alpha / 2])
        low, high = theta - q_hi * se, theta - q_lo * se
    elif alternative == "greater":
        low, high = theta - np.quantile(tstar, 1 - alpha) * se, math.inf
    else:
        low, high = -math.inf, theta - np.quantile(tstar, alpha) * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    pval = None
    if null is not None and se > 0:
        t_obs = (theta - null) / se
        if alternative == "greater":
            pval = float(np.mean(tstar >= t_obs))
        elif alternative == "less":
            pval = float(np.mean(tstar <= t_obs))
        else:
            pval = float(min(1.0, 2 * min(np.mean(tstar <= t_obs), np.mean(tstar >= t_obs))))
    reps_theta = res.replicates[:, 0]
    res = dataclasses.replace(res, theta_hat=np.array([theta, 0.0]), low=np.array([low, math.nan]),
                              high=np.array([high, math.nan]), se=np.array([se, math.nan]),
                              bias=np.array([float(np.nanmean(reps_theta)) - float(r0["theta_inf"][0]), math.nan]),
                              method="bootstrap-t")
    extra["t_quantiles"] = [float(v) for v in np.quantile(tstar, [alpha / 2, 1 - alpha / 2])]
    (est,) = res.estimates({0: statistic}, n=d.n + d.N, pvalues=[pval], extra=extra)
    return est


# --------------------------------------------------------------------------------------------
# public estimators
# --------------------------------------------------------------------------------------------

def ppi_mean(y, yhat, yhat_unlabelled, *, method: str = "ppi++", confidence_level: float = 0.95,
             alternative: str = "two-sided", quantile: str = DEFAULT_QUANTILE, lam: float | None = None,
             population_size: int | None = None, cluster=None, cluster_unlabelled=None,
             ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = 2000, rng=None,
             null: float | None = None) -> Estimate:
    """Judge-corrected estimate of a mean (PPI++, PPI), with the human-only and judge-only baselines.

    Parameters
    ----------
    y : array-like (n,)
        Human (reference) labels or scores of the labelled items (or topics).
    yhat : array-like (n,)
        The judge's labels or scores of the same items, in the same order.
    yhat_unlabelled : array-like (N,)
        The judge's labels of the items without a human label (N ≥ 1).
    method : {"ppi++", "ppi", "classical", "judge_only"}
        ``"ppi++"`` (default): λ tuned for power (or ``lam``); ``"ppi"``: λ = 1; ``"classical"``:
        the mean of y alone (λ = 0); ``"judge_only"``: the mean of ŷ over all n + N items, with its
        sampling error only (it ignores the judge's bias: it is the baseline PPI corrects).
    confidence_level : float
        Coverage of the interval, in (0, 1) (default 0.95).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` gives (low, inf), ``"less"`` (−inf, high); the p-value (with ``null``) follows.
    quantile : {"t", "normal"}
        The analytic interval's quantile: ``"t"`` Student t with (labelled units − 1) degrees of
        freedom and variances with divisor n − 1; ``"normal"`` the normal quantile with ppi_py's
        1/n variances (with ``ci_method="analytic"``: ``ppi_py.ppi_mean_ci``). Default
        :data:`DEFAULT_QUANTILE`.
    lam : float, optional
        λ given by hand (``method="ppi++"`` only): 0 gives the classical estimate, 1 plain PPI.
    population_size : int, optional
        The target is the mean over a finite population of P items (n labelled at random, the N
        unlabelled ones a random sample of the rest, usually all of it); see
        :func:`ppi_mean_variance`.
    cluster, cluster_unlabelled : array-like, optional
        Cluster (topic) of every labelled and unlabelled item: whole clusters are labelled, and
        the variances come from cluster totals (df = labelled clusters − 1).
    ci_method : {"auto", "jackknife", "analytic", "bootstrap-t"} or None
        How the interval is made: ``"jackknife"`` the delete-one-unit jackknife variance with λ
        re-tuned on each leave-one-out sample, and the ``quantile``; ``"analytic"`` the variance of
        :func:`ppi_mean_variance` (ppi_py's interval with ``quantile="normal"``); ``"bootstrap-t"``
        studentized bootstrap replicates from metaeval's engine (labelled and unlabelled units
        resampled on their own) in place of the quantile; ``"auto"`` (default,
        :data:`DEFAULT_CI_METHOD`) the jackknife when λ is tuned on the data (``"ppi++"`` without
        ``lam``) and the analytic interval otherwise. None: the point estimate only. The module
        notes give the coverage simulation behind the default; ``ci.method`` reports the method used.
    n_resamples : int
        Bootstrap resamples for ``"bootstrap-t"``.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap (through :func:`metaeval.core.resample.make_rng`).
    null : float, optional
        Test H0: mean = ``null`` (a Wald test with the interval's standard error and quantile; for
        the bootstrap-t, the share of studentized replicates beyond the observed t); None: no test.

    Returns
    -------
    Estimate
        ``statistic`` ``"<method>_mean"`` (e.g. ``"ppi++_mean"``); ``n`` = n + N; ``extra`` holds
        ``lam``, ``var_labelled`` and ``var_unlabelled`` (the two parts of the variance),
        ``n_labelled``, ``n_unlabelled``, ``n_over_N``, ``quantile``, ``df``, ``population_size``.

    Raises
    ------
    InputError
        Lengths that differ, missing or infinite values, fewer than 2 labelled items, no unlabelled
        item, ``lam`` with a method other than ``"ppi++"``.

    Notes
    -----
    See the module notes for the formulas and the coverage simulation that chose the defaults.

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), "Prediction-powered inference", Science
    382; Angelopoulos, Duchi & Zrnic (2023), "PPI++: Efficient prediction-powered inference", arXiv
    2311.01453. With ``quantile="normal", ci_method="analytic"`` equal to ppi_py 0.2.3
    ``ppi_mean_ci`` / ``ppi_mean_pointestimate`` / ``ppi_mean_pval`` (``lam=None`` and fixed λ;
    ``method="classical"``: its ``classical_mean_ci``) to 1e-12 on ppi_py's test cases and on
    seeded data (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.normal(0.5, 0.2, size=215)                       # 215 topics
    >>> judge = truth + 0.1 + rng.normal(0, 0.05, size=215)          # a judge that is 0.1 too high
    >>> e = ppi_mean(truth[:15], judge[:15], judge[15:])              # 15 topics labelled by humans
    >>> e.statistic, round(e.estimate, 3), round(e.extra["lam"], 2)
    ('ppi++_mean', 0.513, 0.34)
    >>> j = ppi_mean(truth[:15], judge[:15], judge[15:], method="judge_only")
    >>> round(j.estimate, 3)
    0.582
    """
    _check_common(confidence_level, alternative, quantile, ci_method, method)
    if lam is not None:
        if method != "ppi++":
            raise InputError(f"lam= applies to method='ppi++' only, got method={method!r}",
                             fix="drop lam=, or use method='ppi++'")
        lam = float(lam)
        if not math.isfinite(lam):
            raise InputError(f"lam must be a finite number, got {lam!r}")
    d = _prepare(y, yhat, yhat_unlabelled, cluster, cluster_unlabelled, population_size)
    if d.n < 10 and quantile == "normal" and ci_method is not None:
        warnings.warn(f"only {d.n} labelled items: a normal-quantile interval under-covers; use quantile='t'",
                      SmallSampleWarning, stacklevel=2)
    return _fit_mean(d, method=method, statistic=f"{method}_mean", confidence_level=confidence_level,
                     alternative=alternative, quantile=quantile, lam=lam, ci_method=ci_method,
                     n_resamples=n_resamples, rng=rng, null=null)


def ppi_proportion(y, yhat, yhat_unlabelled, *, method: str = "ppi++", confidence_level: float = 0.95,
                   alternative: str = "two-sided", quantile: str = DEFAULT_QUANTILE, lam: float | None = None,
                   population_size: int | None = None, cluster=None, cluster_unlabelled=None,
                   ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = 2000, rng=None,
                   null: float | None = None) -> Estimate:
    """Judge-corrected estimate of a proportion: :func:`ppi_mean` of 0/1 human labels.

    The judge's labels may be 0/1 verdicts or probabilities in [0, 1]. The estimate is the PPI
    mean (it can leave [0, 1] when the judge is far off on few labels; it is not clipped, so that
    it stays unbiased), the interval is clipped to [0, 1].

    Parameters
    ----------
    y : array-like (n,) of {0, 1}
        Human labels (1 = positive) of the labelled items.
    yhat : array-like (n,) in [0, 1]
        The judge's labels or probabilities on the same items.
    yhat_unlabelled : array-like (N,) in [0, 1]
        The judge's labels on the unlabelled items.
    method : {"ppi++", "ppi", "classical", "judge_only"}
        As in :func:`ppi_mean`.
    confidence_level : float
        Coverage of the interval, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        As in :func:`ppi_mean`.
    quantile : {"t", "normal"}
        As in :func:`ppi_mean`.
    lam : float, optional
        λ by hand (``method="ppi++"``).
    population_size : int, optional
        Finite population (see :func:`ppi_mean_variance`).
    cluster, cluster_unlabelled : array-like, optional
        Clusters (topics) of the labelled and unlabelled items.
    ci_method : {"auto", "jackknife", "analytic", "bootstrap-t"} or None
        As in :func:`ppi_mean`.
    n_resamples : int
        Resamples for ``"bootstrap-t"``.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap.
    null : float, optional
        Test H0: proportion = ``null``.

    Returns
    -------
    Estimate
        ``statistic`` ``"<method>_proportion"``; ``extra`` as in :func:`ppi_mean`.

    Raises
    ------
    InputError
        Human labels other than 0/1, judge labels outside [0, 1], and every error of
        :func:`ppi_mean`.

    References
    ----------
    Angelopoulos et al. (2023), Science, §"Estimating a proportion" (the mean of binary outcomes);
    the same numbers as :func:`ppi_mean` (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(1000) < 0.3
    >>> judge = np.where(rng.random(1000) < 0.85, truth, ~truth).astype(float)   # 15% flipped
    >>> e = ppi_proportion(truth[:100].astype(float), judge[:100], judge[100:])
    >>> e.statistic, round(e.estimate, 3), round(float(judge.mean()), 3)
    ('ppi++_proportion', 0.284, 0.35)
    """
    _check_common(confidence_level, alternative, quantile, ci_method, method)
    yv = _vector(y, "y")
    if not np.isin(yv, (0.0, 1.0)).all():
        raise InputError("y must hold 0/1 labels for a proportion", text=str(np.unique(yv)[:5]),
                         fix="binarize the human labels (1 = positive), or use ppi_mean for scores")
    for name, v in (("yhat", yhat), ("yhat_unlabelled", yhat_unlabelled)):
        vv = _vector(v, name)
        if len(vv) and (vv.min() < 0 or vv.max() > 1):
            raise InputError(f"{name} must lie in [0, 1] for a proportion", fix="pass 0/1 verdicts or probabilities")
    if lam is not None and method != "ppi++":
        raise InputError(f"lam= applies to method='ppi++' only, got method={method!r}")
    d = _prepare(yv, yhat, yhat_unlabelled, cluster, cluster_unlabelled, population_size)
    return _fit_mean(d, method=method, statistic=f"{method}_proportion", confidence_level=confidence_level,
                     alternative=alternative, quantile=quantile, lam=None if lam is None else float(lam),
                     ci_method=ci_method, n_resamples=n_resamples, rng=rng, null=null, bounds=(0.0, 1.0))


def _two_columns(x, name):
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be numbers", expected="an array with two columns (system a, system b)") from err
    if a.ndim != 2 or a.shape[1] != 2:
        raise InputError(f"{name} must have two columns (system a, system b), got shape {a.shape}",
                         fix="stack the two systems' values per item: np.column_stack([a, b])")
    return a


def ppi_mean_difference(y, yhat, yhat_unlabelled, *, method: str = "ppi++", confidence_level: float = 0.95,
                        alternative: str = "two-sided", quantile: str = DEFAULT_QUANTILE, lam: float | None = None,
                        population_size: int | None = None, cluster=None, cluster_unlabelled=None,
                        ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = 2000, rng=None,
                        null: float | None = 0.0) -> Estimate:
    """Judge-corrected difference of two systems' means on the same items (paired).

    Each item (topic) has a human-label value and a judge-label value for both systems (e.g. their
    nDCG@10 under human and under judge qrels). The difference a − b is estimated by PPI on the
    per-item differences d = y_a − y_b with judge differences d̂ = ŷ_a − ŷ_b: pairing removes the
    item-to-item variation both systems share, and λ is tuned for the difference itself.

    Parameters
    ----------
    y : array-like (n, 2)
        Human-label values of systems a and b on the labelled items.
    yhat : array-like (n, 2)
        Judge-label values of a and b on the same items.
    yhat_unlabelled : array-like (N, 2)
        Judge-label values of a and b on the unlabelled items.
    method : {"ppi++", "ppi", "classical", "judge_only"}
        As in :func:`ppi_mean`.
    confidence_level : float
        Coverage of the interval, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: H1 a − b > ``null``.
    quantile : {"t", "normal"}
        As in :func:`ppi_mean`.
    lam : float, optional
        λ by hand (``method="ppi++"``).
    population_size : int, optional
        Finite population of items (see :func:`ppi_mean_variance`).
    cluster, cluster_unlabelled : array-like, optional
        Clusters of the labelled and unlabelled items.
    ci_method : {"auto", "jackknife", "analytic", "bootstrap-t"} or None
        As in :func:`ppi_mean`.
    n_resamples : int
        Resamples for ``"bootstrap-t"``.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap.
    null : float or None
        H0 value of the difference (default 0: no difference); None: no test.

    Returns
    -------
    Estimate
        ``statistic`` ``"<method>_mean_difference"``, the p-value of H0: a − b = ``null``.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, §6 (any mean, here of paired differences). Equal to
    :func:`ppi_mean` on the column differences (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> topic = rng.normal(0.5, 0.2, 200)                                   # topic difficulty
    >>> human = np.column_stack([topic + 0.05, topic]) + rng.normal(0, 0.03, (200, 2))
    >>> judge = human + 0.1 + rng.normal(0, 0.03, (200, 2))                 # biased, same for both
    >>> e = ppi_mean_difference(human[:20], judge[:20], judge[20:])
    >>> round(e.estimate, 3), e.pvalue < 0.05
    (0.041, True)
    """
    ya, ha, ua = _two_columns(y, "y"), _two_columns(yhat, "yhat"), _two_columns(yhat_unlabelled, "yhat_unlabelled")
    _check_common(confidence_level, alternative, quantile, ci_method, method)
    if lam is not None and method != "ppi++":
        raise InputError(f"lam= applies to method='ppi++' only, got method={method!r}")
    d = _prepare(ya[:, 0] - ya[:, 1], ha[:, 0] - ha[:, 1], ua[:, 0] - ua[:, 1], cluster, cluster_unlabelled,
                 population_size)
    return _fit_mean(d, method=method, statistic=f"{method}_mean_difference", confidence_level=confidence_level,
                     alternative=alternative, quantile=quantile, lam=None if lam is None else float(lam),
                     ci_method=ci_method, n_resamples=n_resamples, rng=rng, null=null)


# --------------------------------------------------------------------------------------------
# M-estimation: quantiles, OLS and logistic regression (ppi_py's route)
# --------------------------------------------------------------------------------------------

def _calc_lam(grads, grads_hat, grads_hat_u, inv_hessian, coord=None):
    """ppi_py's ``_calc_lam_glm`` (``optim_mode="overall"``, clipped to [0, 1])."""
    n, N = grads.shape[0], grads_hat_u.shape[0]
    d = inv_hessian.shape[0]
    gc = grads - grads.mean(axis=0)
    hc = grads_hat - grads_hat.mean(axis=0)
    cov = (gc.T @ hc + hc.T @ gc) / n
    var = np.cov(np.concatenate([grads_hat, grads_hat_u], axis=0).T).reshape(d, d)
    v = inv_hessian if coord is None else inv_hessian[coord, :]
    if coord is None:
        num, den = np.trace(v @ cov @ v), 2 * (1 + n / N) * np.trace(v @ var @ v)
    else:
        num, den = v @ cov @ v, 2 * (1 + n / N) * (v @ var @ v)
    lam = float(num / den) if den > 0 else 0.0
    return float(np.clip(lam, 0.0, 1.0))


def _check_mest(method, confidence_level, alternative, quantile):
    if method not in ("ppi++", "ppi", "classical"):
        raise InputError(f"method must be 'ppi++', 'ppi' or 'classical', got {method!r}")
    _check_common(confidence_level, alternative, quantile, None, "ppi")


def _lam_for(method, lam):
    if lam is not None and method != "ppi++":
        raise InputError(f"lam= applies to method='ppi++' only, got method={method!r}")
    if method == "classical":
        return 0.0
    if method == "ppi":
        return 1.0
    return None if lam is None else float(lam)


def _cdf_parts(y, yh, yu, grid, lam, ddof):
    """Rectified CDF at the grid points and its two standard errors, from sorted samples."""
    n, N = len(y), len(yu)
    Fy = np.searchsorted(np.sort(y), grid, side="right") / n
    Fh = np.searchsorted(np.sort(yh), grid, side="right") / n
    Fj = np.searchsorted(np.sort(np.maximum(y, yh)), grid, side="right") / n     # P(y ≤ t and ŷ ≤ t)
    Fu = np.searchsorted(np.sort(yu), grid, side="right") / N
    rect = Fy - lam * Fh
    m2 = Fy + lam ** 2 * Fh - 2 * lam * Fj
    var_r = np.maximum(m2 - rect ** 2, 0.0) * n / (n - ddof)
    var_u = lam ** 2 * Fu * (1 - Fu) * N / (N - ddof)
    return lam * Fu + rect, np.sqrt(var_r / n), np.sqrt(var_u / N), Fy, Fh, Fu


def ppi_quantile(y, yhat, yhat_unlabelled, q: float, *, method: str = "ppi++", confidence_level: float = 0.95,
                 quantile: str = "normal", lam: float | None = None, exact_grid: bool = False) -> Estimate:
    """Judge-corrected estimate of a quantile of the human labels, with ppi_py's interval.

    The rectified CDF F(t) = λ·F̂_unl(t) + F_lab^y(t) − λ·F_lab^ŷ(t) is estimated on a grid; the
    estimate is the grid point where it is closest to ``q`` and the interval holds every grid point
    t where the z-test of F(t) = q does not reject (prediction-powered test inversion).

    Parameters
    ----------
    y : array-like (n,)
        Human labels of the labelled items.
    yhat : array-like (n,)
        The judge's labels of the same items.
    yhat_unlabelled : array-like (N,)
        The judge's labels of the unlabelled items.
    q : float
        The quantile level, in (0, 1).
    method : {"ppi++", "ppi", "classical"}
        ``"ppi"``: λ = 1 (ppi_py's ``ppi_quantile_ci``); ``"ppi++"``: λ tuned by ppi_py's rule
        (``_calc_lam_glm``) on the CDF gradients 1{y ≤ θ} − q at the PPI estimate θ (the Hessian,
        a density, cancels for a scalar); ``"classical"``: λ = 0.
    confidence_level : float
        Coverage of the interval, in (0, 1).
    quantile : {"normal", "t"}
        The test's reference distribution: ``"normal"`` (ppi_py, 1/n variances, the default here)
        or t(n − 1) with 1/(n − 1) variances.
    lam : float, optional
        λ by hand (``method="ppi++"``).
    exact_grid : bool
        Search the sorted data values (True) or 5000 equally spaced points between the smallest and
        the largest value (False, ppi_py's default).

    Returns
    -------
    Estimate
        ``statistic`` ``"<method>_quantile"``; ``ci.method`` ``"test-inversion"``; ``extra`` holds
        ``q``, ``lam``, ``grid_size``.

    Raises
    ------
    InputError
        Bad inputs (as :func:`ppi_mean`), ``q`` outside (0, 1).

    References
    ----------
    Angelopoulos et al. (2023), Science, Algorithm 2 (quantiles); ppi_py 0.2.3
    ``ppi_quantile_pointestimate`` and ``ppi_quantile_ci`` (``method="ppi"``, both grids): equal to
    1e-6 on ppi_py's test designs (tests/test_quantile.py) and seeded data (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.gamma(2.0, 1.0, 2000); yhat = y + rng.normal(0.4, 0.3, 2000)   # the judge reads high
    >>> e = ppi_quantile(y[:100], yhat[:100], yhat[100:], 0.5)
    >>> round(e.estimate, 2), round(float(np.median(y)), 2), round(float(np.median(yhat)), 2)
    (1.65, 1.67, 2.1)
    """
    _check_mest(method, confidence_level, "two-sided", quantile)
    if not 0 < q < 1:
        raise InputError(f"q must lie in (0, 1), got {q!r}")
    lam = _lam_for(method, lam)
    d = _prepare(y, yhat, yhat_unlabelled)
    yv, hv, uv = _vector(y, "y"), _vector(yhat, "yhat"), _vector(yhat_unlabelled, "yhat_unlabelled")
    n, N = len(yv), len(uv)
    allv = np.concatenate([yv, hv, uv])
    grid = np.sort(allv) if exact_grid else np.linspace(allv.min(), allv.max(), 5000)
    ddof = _ddof_for(quantile)

    def point(lam_):
        F = _cdf_parts(yv, hv, uv, grid, lam_, 0)[0]
        return grid[int(np.argmin(np.abs(F - q)))]

    if lam is None:
        theta = point(1.0)
        g = ((yv <= theta).astype(float) - q)[:, None]
        gh = ((hv <= theta).astype(float) - q)[:, None]
        gu = ((uv <= theta).astype(float) - q)[:, None]
        lam = _calc_lam(g, gh, gu, np.eye(1))
    F, se_r, se_u, *_ = _cdf_parts(yv, hv, uv, grid, lam, ddof)
    se = np.maximum(np.sqrt(se_r ** 2 + se_u ** 2), 1e-16)
    z = (F - q) / se
    dist = stats.t(n - 1) if quantile == "t" else stats.norm
    p = 2 * dist.sf(np.abs(z))
    keep = grid[p > 1 - confidence_level]
    low, high = (float(keep[0]), float(keep[-1])) if len(keep) else (math.nan, math.nan)
    est = float(grid[int(np.argmin(np.abs(F - q)))])
    return Estimate(f"{method}_quantile", est, ConfidenceInterval(low, high, confidence_level, "test-inversion"),
                    n=n + N, unit="none", n_units=n + N,
                    extra={"q": q, "lam": lam, "quantile": quantile, "grid_size": len(grid), "n_labelled": n,
                           "n_unlabelled": N, "exact_grid": exact_grid, "n_clusters": d.n})


def _design(X, name, n):
    try:
        a = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be numbers", expected="an (items × covariates) array") from err
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] != n:
        raise InputError(f"{name} has shape {a.shape}, expected {n} rows", expected="one row per item")
    if not np.isfinite(a).all():
        raise InputError(f"{name} holds missing or infinite values", fix="drop those items first")
    return a


def _ols_stats(theta, X, Y, Yh, Xu, Yhu, use_unlabelled):
    """ppi_py's ``_ols_get_stats``: gradients of the squared loss and the inverse Hessian."""
    n, N = len(Y), len(Yhu)
    if use_unlabelled:
        H = (Xu.T @ Xu + X.T @ X) / (N + n)
        gu = Xu * (Xu @ theta - Yhu)[:, None]
    else:
        H = X.T @ X / n
        gu = np.zeros_like(Xu)
    g = X * (X @ theta - Y)[:, None]
    gh = X * (X @ theta - Yh)[:, None]
    return g, gh, gu, np.linalg.inv(H)


def _lstsq(X, y):
    return np.linalg.lstsq(X, y, rcond=None)[0]


def _ols_point(X, Y, Yh, Xu, Yhu, lam):
    return _lstsq(Xu, lam * Yhu) + _lstsq(X, Y - lam * Yh)


def _expit(x):
    return np.exp(-np.logaddexp(0, -x))


def _log1pexp(x):
    return np.logaddexp(0, x)


def _logistic_point(X, Y, Yh, Xu, Yhu, lam, tol=1e-12, max_iter=200):
    """Minimizer of ppi_py's rectified logistic loss (Newton steps with backtracking)."""
    n, N = len(Y), len(Yhu)

    def loss(t):
        eu, el = Xu @ t, X @ t
        return (lam / N * np.sum(-Yhu * eu + _log1pexp(eu)) - lam / n * np.sum(-Yh * el + _log1pexp(el))
                + 1 / n * np.sum(-Y * el + _log1pexp(el)))

    theta = np.zeros(X.shape[1])
    f = loss(theta)
    for _ in range(max_iter):
        mu, muu = _expit(X @ theta), _expit(Xu @ theta)
        grad = lam / N * Xu.T @ (muu - Yhu) - lam / n * X.T @ (mu - Yh) + 1 / n * X.T @ (mu - Y)
        hess = lam / N * (Xu.T * (muu * (1 - muu))) @ Xu + (1 - lam) / n * (X.T * (mu * (1 - mu))) @ X
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        t = 1.0
        while True:
            new = theta - t * step
            fn = loss(new)
            if fn <= f + 1e-4 * t * (grad @ -step) or t < 1e-10:
                break
            t /= 2
        theta, f = new, fn
        if np.max(np.abs(t * step)) < tol:
            break
    return theta


def _logistic_stats(theta, X, Y, Yh, Xu, Yhu, use_unlabelled):
    """ppi_py's ``_logistic_get_stats``."""
    n, N = len(Y), len(Yhu)
    mu, muu = _expit(X @ theta), _expit(Xu @ theta)
    if use_unlabelled:
        H = ((Xu.T * (muu * (1 - muu))) @ Xu + (X.T * (mu * (1 - mu))) @ X) / (N + n)
        gu = Xu * (muu - Yhu)[:, None]
    else:
        H = (X.T * (mu * (1 - mu))) @ X / n
        gu = np.zeros_like(Xu)
    g = X * (mu - Y)[:, None]
    gh = X * (mu - Yh)[:, None]
    return g, gh, gu, np.linalg.inv(H)


def _mest(kind, X, y, yhat, X_unlabelled, yhat_unlabelled, *, method, confidence_level, alternative, quantile,
          lam, coord, names, null):
    _check_mest(method, confidence_level, alternative, quantile)
    lam = _lam_for(method, lam)
    Y, Yh, Yhu = _vector(y, "y"), _vector(yhat, "yhat"), _vector(yhat_unlabelled, "yhat_unlabelled")
    n, N = len(Y), len(Yhu)
    if len(Yh) != n:
        raise InputError(f"y and yhat have different lengths: {n} and {len(Yh)}")
    if N == 0:
        raise InputError("yhat_unlabelled is empty", expected="the judge's labels on at least one unlabelled item")
    X = _design(X, "X", n)
    Xu = _design(X_unlabelled, "X_unlabelled", N)
    p = X.shape[1]
    if Xu.shape[1] != p:
        raise InputError(f"X has {p} columns and X_unlabelled {Xu.shape[1]}", expected="the same covariates")
    if n <= p:
        raise InputError(f"need more labelled items than covariates: n = {n}, {p} covariates")
    if coord is not None and not 0 <= int(coord) < p:
        raise InputError(f"coord must index a coefficient (0..{p - 1}), got {coord!r}")
    if kind == "logistic":
        if not np.isin(Y, (0.0, 1.0)).all():
            raise InputError("y must hold 0/1 labels for logistic regression")
        point, stats_ = _logistic_point, _logistic_stats
    else:
        point, stats_ = _ols_point, _ols_stats
    lam_steps = []
    if lam is None:
        # ppi_py's two passes: λ₁ at the λ = 1 fit (…_pointestimate), λ₂ at the λ₁ fit (…_ci)
        theta = point(X, Y, Yh, Xu, Yhu, 1.0)
        lam1 = _calc_lam(*stats_(theta, X, Y, Yh, Xu, Yhu, True), coord=coord)
        theta = point(X, Y, Yh, Xu, Yhu, lam1)
        lam = _calc_lam(*stats_(theta, X, Y, Yh, Xu, Yhu, True), coord=coord)
        lam_steps = [lam1, lam]
    theta = point(X, Y, Yh, Xu, Yhu, lam)
    g, gh, gu, Hinv = stats_(theta, X, Y, Yh, Xu, Yhu, lam != 0)
    var_u = np.cov((lam * gu).T).reshape(p, p)
    var_l = np.cov(g.T - lam * gh.T).reshape(p, p)
    Sigma = Hinv @ (n / N * var_u + var_l) @ Hinv
    se = np.sqrt(np.diag(Sigma) / n)
    df = n - p
    names = [f"x{j}" for j in range(p)] if names is None else [str(v) for v in names]
    if len(names) != p:
        raise InputError(f"names has {len(names)} entries for {p} coefficients")
    from ..core.results import ResultSet

    out = ResultSet(name=f"ppi_{kind}")
    stat = f"{method}_{kind}_coefficient"
    for j in range(p):
        low, high = _interval(theta[j], se[j], df, confidence_level, alternative, quantile)
        pval = _pvalue(theta[j], se[j], null, df, alternative, quantile)
        out.append_with(Estimate(stat, float(theta[j]), ConfidenceInterval(float(low), float(high), confidence_level,
                                                                          "analytic"),
                                 se=float(se[j]), pvalue=pval, n=n + N, unit="none", n_units=n + N,
                                 extra={"lam": lam, "lam_steps": lam_steps, "quantile": quantile,
                                        "df": df if quantile == "t" else math.inf, "n_labelled": n,
                                        "n_unlabelled": N, "coord": coord}),
                        coefficient=names[j])
    return out


def ppi_ols(X, y, yhat, X_unlabelled, yhat_unlabelled, *, method: str = "ppi++", confidence_level: float = 0.95,
            alternative: str = "two-sided", quantile: str = "normal", lam: float | None = None,
            coord: int | None = None, names=None, null: float | None = None):
    """Judge-corrected least-squares coefficients (PPI++ for linear regression, as ppi_py).

    Regress the human label on covariates X (an intercept is a column of ones you add), using the
    judge's labels on N unlabelled items and the human labels on n labelled ones.

    Parameters
    ----------
    X : array-like (n, p)
        Covariates of the labelled items.
    y : array-like (n,)
        Human labels of the labelled items.
    yhat : array-like (n,)
        The judge's labels of the same items.
    X_unlabelled : array-like (N, p)
        Covariates of the unlabelled items.
    yhat_unlabelled : array-like (N,)
        The judge's labels of the unlabelled items.
    method : {"ppi++", "ppi", "classical"}
        ``"ppi++"``: λ tuned as ppi_py (two passes: λ₁ at the λ = 1 fit, λ₂ at the λ₁ fit);
        ``"ppi"``: λ = 1; ``"classical"``: λ = 0 (least squares on the labelled items with a
        sandwich variance).
    confidence_level : float
        Coverage of the intervals, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        One-sided intervals and p-values.
    quantile : {"normal", "t"}
        Normal (ppi_py, default here) or t(n − p) quantile; the variance is ppi_py's either way.
    lam : float, optional
        λ by hand (``method="ppi++"``).
    coord : int, optional
        Tune λ for this coefficient's variance (0-based, as ppi_py indexes it) instead of the
        total variance of all coefficients.
    names : sequence of str, optional
        Coefficient names (default ``x0``, ``x1``, ...).
    null : float, optional
        Test H0: coefficient = ``null`` for each coefficient (None: no test).

    Returns
    -------
    ResultSet
        One :class:`Estimate` per coefficient, keyed by ``coefficient``; statistic
        ``"<method>_ols_coefficient"``; ``extra`` holds ``lam`` (and ``lam_steps``, the two
        tuning passes).

    Notes
    -----
    θ̂_λ = OLS(X_unl, λŷ_unl) + OLS(X, y − λŷ); Σ = H⁻¹ (n/N · Cov(λ∇ℓ̂_unl) + Cov(∇ℓ − λ∇ℓ̂)) H⁻¹,
    SE = √(diag Σ / n), H the pooled X'X/(n + N) (labelled only when λ = 0), as ppi_py computes it.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, §3 and Algorithm 1; ppi_py 0.2.3
    ``ppi_ols_pointestimate`` and ``ppi_ols_ci``: equal to 1e-6 on ppi_py's test designs
    (tests/test_ols.py) and seeded data (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.column_stack([np.ones(1100), rng.normal(size=1100)])
    >>> y = X @ [0.5, 1.0] + rng.normal(size=1100)
    >>> yhat = 0.9 * y + 0.3 + rng.normal(scale=0.4, size=1100)             # a biased judge
    >>> rs = ppi_ols(X[:100], y[:100], yhat[:100], X[100:], yhat[100:], names=["const", "x"])
    >>> round(rs.get(coefficient="x").estimate, 2)
    0.97
    """
    return _mest("ols", X, y, yhat, X_unlabelled, yhat_unlabelled, method=method, confidence_level=confidence_level,
                 alternative=alternative, quantile=quantile, lam=lam, coord=coord, names=names, null=null)


def ppi_logistic(X, y, yhat, X_unlabelled, yhat_unlabelled, *, method: str = "ppi++",
                 confidence_level: float = 0.95, alternative: str = "two-sided", quantile: str = "normal",
                 lam: float | None = None, coord: int | None = None, names=None, null: float | None = None):
    """Judge-corrected logistic-regression coefficients (PPI++, as ppi_py).

    Parameters
    ----------
    X : array-like (n, p)
        Covariates of the labelled items (add a column of ones for an intercept).
    y : array-like (n,) of {0, 1}
        Human labels of the labelled items.
    yhat : array-like (n,) in [0, 1]
        The judge's labels or probabilities on the same items.
    X_unlabelled : array-like (N, p)
        Covariates of the unlabelled items.
    yhat_unlabelled : array-like (N,) in [0, 1]
        The judge's labels on the unlabelled items.
    method : {"ppi++", "ppi", "classical"}
        As in :func:`ppi_ols`.
    confidence_level : float
        Coverage of the intervals, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        One-sided intervals and p-values.
    quantile : {"normal", "t"}
        Normal (ppi_py, default here) or t(n − p).
    lam : float, optional
        λ by hand (``method="ppi++"``).
    coord : int, optional
        Tune λ for one coefficient (0-based). ppi_py 0.2.3 accepts ``coord`` for logistic regression
        but does not pass it to its λ rule (it always tunes the total variance); here it is used.
    names : sequence of str, optional
        Coefficient names.
    null : float, optional
        Test H0: coefficient = ``null`` (ppi_py's ``ppi_logistic_pval`` tests 0).

    Returns
    -------
    ResultSet
        One :class:`Estimate` per coefficient, keyed by ``coefficient``; statistic
        ``"<method>_logistic_coefficient"``.

    Notes
    -----
    θ̂_λ minimizes λ/N Σ_unl ℓ(ŷ) − λ/n Σ_lab ℓ(ŷ) + 1/n Σ_lab ℓ(y) with ℓ the logistic loss
    (convex for λ ∈ [0, 1]; solved by Newton's method to 1e-12, where ppi_py uses L-BFGS-B from
    scikit-learn's fit); the variance is the sandwich of :func:`ppi_ols` with the logistic gradients
    and Hessian.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, §3; ppi_py 0.2.3 ``ppi_logistic_pointestimate``,
    ``ppi_logistic_ci`` and ``ppi_logistic_pval``: equal to 1e-6 on ppi_py's test designs
    (tests/test_logistic.py) and seeded data (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = np.column_stack([np.ones(2000), rng.normal(size=2000)])
    >>> y = (rng.random(2000) < 1 / (1 + np.exp(-(X @ [-0.5, 1.0])))).astype(float)
    >>> yhat = np.clip(0.8 * y + 0.15 + rng.normal(0, 0.1, 2000), 0, 1)   # the judge's probability
    >>> rs = ppi_logistic(X[:200], y[:200], yhat[:200], X[200:], yhat[200:], names=["const", "x"])
    >>> round(rs.get(coefficient="x").estimate, 2)
    0.82
    """
    for name, v in (("yhat", yhat), ("yhat_unlabelled", yhat_unlabelled)):
        vv = _vector(v, name)
        if len(vv) and (vv.min() < 0 or vv.max() > 1):
            raise InputError(f"{name} must lie in [0, 1] for logistic regression")
    return _mest("logistic", X, y, yhat, X_unlabelled, yhat_unlabelled, method=method,
                 confidence_level=confidence_level, alternative=alternative, quantile=quantile, lam=lam, coord=coord,
                 names=names, null=null)


# --------------------------------------------------------------------------------------------
# stratified PPI and the allocation of labels to strata
# --------------------------------------------------------------------------------------------

def ppi_mean_stratified(y, yhat, yhat_unlabelled, *, strata, strata_unlabelled, weights=None, method: str = "ppi++",
                        confidence_level: float = 0.95, alternative: str = "two-sided",
                        quantile: str = DEFAULT_QUANTILE, null: float | None = None) -> Estimate:
    """Stratified PPI (StratPPI): PPI++ within each stratum, combined with the stratum weights.

    Parameters
    ----------
    y : array-like (n,)
        Human labels of the labelled items.
    yhat : array-like (n,)
        The judge's labels of the same items.
    yhat_unlabelled : array-like (N,)
        The judge's labels of the unlabelled items.
    strata : array-like (n,)
        Stratum of each labelled item.
    strata_unlabelled : array-like (N,)
        Stratum of each unlabelled item (every stratum needs ≥ 2 labelled and ≥ 1 unlabelled item).
    weights : mapping stratum → float, optional
        Stratum weights W_h (normalized to sum 1). Default: the stratum's share of all n + N items
        (its population share when the items are the population).
    method : {"ppi++", "ppi", "classical", "judge_only"}
        The estimator within each stratum (``"ppi++"`` tunes λ_h in each stratum: the variance
        Σ W_h² var_h is minimized stratum by stratum).
    confidence_level : float
        Coverage of the interval, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        One-sided intervals and p-values.
    quantile : {"t", "normal"}
        ``"t"``: Student t with the Welch–Satterthwaite degrees of freedom
        (Σ W_h² v_h)² / Σ (W_h² v_h)²/(n_h − 1), variances with divisor n_h − 1; ``"normal"``:
        the normal quantile with ppi_py's 1/n_h variances.
    null : float, optional
        Test H0: mean = ``null``.

    Returns
    -------
    Estimate
        ``statistic`` ``"stratified_<method>_mean"``; ``extra["strata"]`` holds, per stratum,
        ``estimate``, ``variance``, ``lam``, ``n``, ``N`` and ``weight``; ``extra["df"]``.

    Notes
    -----
    θ̂ = Σ_h W_h θ̂_h, var = Σ_h W_h² var(θ̂_h), each θ̂_h the PPI(++) estimate of stratum h
    (:func:`ppi_mean_variance`). Strata where the judge is good get λ_h near 1 and strata where it
    is poor fall back to the human labels.

    References
    ----------
    Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen (2024), "Stratified prediction-powered
    inference for effective hybrid evaluation of language models", NeurIPS 2024, §3 (StratPPI with
    per-stratum λ). With a single stratum it equals :func:`ppi_mean` (tests/test_ppi.py).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = np.repeat([0, 1], 500)                                       # easy and hard topics
    >>> y = rng.normal(np.where(s == 0, 0.7, 0.3), 0.1)
    >>> noise = np.where(s == 0, 0.02, 0.2)                              # the judge is poor on hard ones
    >>> yhat = y + 0.05 + rng.normal(0, 1, 1000) * noise
    >>> lab = np.r_[0:20, 500:540]
    >>> unl = np.setdiff1d(np.arange(1000), lab)
    >>> e = ppi_mean_stratified(y[lab], yhat[lab], yhat[unl], strata=s[lab], strata_unlabelled=s[unl])
    >>> round(e.estimate, 3), [round(v["lam"], 2) for v in e.extra["strata"].values()]
    (0.498, [0.67, 0.25])
    """
    _check_common(confidence_level, alternative, quantile, None, method)
    yv, hv, uv = _vector(y, "y"), _vector(yhat, "yhat"), _vector(yhat_unlabelled, "yhat_unlabelled")
    if len(yv) != len(hv):
        raise InputError(f"y and yhat have different lengths: {len(yv)} and {len(hv)}")
    s = _codes(strata, len(yv), "strata", "y")
    su = _codes(strata_unlabelled, len(uv), "strata_unlabelled", "yhat_unlabelled")
    levels = list(dict.fromkeys(list(np.unique(s)) + list(np.unique(su))))
    ddof = _ddof_for(quantile)
    counts = {h: (int(np.sum(s == h)), int(np.sum(su == h))) for h in levels}
    if weights is None:
        w = {h: (a + b) / (len(yv) + len(uv)) for h, (a, b) in counts.items()}
    else:
        missing = [h for h in levels if h not in weights]
        if missing:
            raise InputError(f"weights has no entry for strata {missing[:5]}")
        tot = float(sum(weights[h] for h in levels))
        if not tot > 0 or any(weights[h] < 0 for h in levels):
            raise InputError("weights must be non-negative and not all zero")
        w = {h: float(weights[h]) / tot for h in levels}
    per = {}
    theta = var = 0.0
    ws_num = ws_den = 0.0
    for h in levels:
        nh, Nh = counts[h]
        if nh < 2 or Nh < 1:
            raise InputError(f"stratum {h!r} has {nh} labelled and {Nh} unlabelled items",
                             expected="at least 2 labelled and 1 unlabelled item in every stratum",
                             fix="merge small strata, or allocate at least 2 labels to each")
        d = _prepare(yv[s == h], hv[s == h], uv[su == h])
        r = _evaluate(d.XL.sum(axis=0)[None], d.XU.sum(axis=0)[None], method=method, lam=None, clustered=False,
                      P=None, ddof=ddof)
        th, vh = float(r["theta"][0]), float(r["var"][0])
        per[h] = {"estimate": th, "variance": vh, "lam": float(r["lam"][0]), "n": nh, "N": Nh, "weight": w[h]}
        theta += w[h] * th
        var += w[h] ** 2 * vh
        ws_num += w[h] ** 2 * vh
        ws_den += (w[h] ** 2 * vh) ** 2 / max(nh - 1, 1)
    df = ws_num ** 2 / ws_den if ws_den > 0 else float(len(yv) - len(levels))
    se = math.sqrt(var)
    low, high = _interval(theta, se, df, confidence_level, alternative, quantile)
    return Estimate(f"stratified_{method}_mean", theta, ConfidenceInterval(float(low), float(high), confidence_level,
                                                                         "analytic"),
                    se=se, pvalue=_pvalue(theta, se, null, df, alternative, quantile), n=len(yv) + len(uv),
                    unit="none", n_units=len(yv) + len(uv),
                    extra={"strata": per, "df": df if quantile == "t" else math.inf, "quantile": quantile,
                           "method": method, "n_labelled": len(yv), "n_unlabelled": len(uv)})


def _round_allocation(target, budget, minimum, caps):
    """Integers close to ``target`` summing to ``budget``, each in [minimum, cap] (largest remainder)."""
    k = len(target)
    alloc = np.minimum(np.maximum(np.floor(target).astype(int), minimum), caps)
    while alloc.sum() > budget:
        # take from the stratum that exceeds its target most (and can give)
        can = alloc > minimum
        j = int(np.argmax(np.where(can, alloc - target, -np.inf)))
        alloc[j] -= 1
    while alloc.sum() < budget:
        can = alloc < caps
        if not can.any():
            break
        j = int(np.argmax(np.where(can, target - alloc, -np.inf)))
        alloc[j] += 1
    return alloc if k else alloc


def _check_alloc(budget, sizes, minimum):
    sz = np.asarray(sizes, dtype=float)
    if sz.ndim != 1 or len(sz) == 0 or (sz <= 0).any() or not np.isfinite(sz).all():
        raise InputError("sizes must be positive stratum sizes (one per stratum)")
    if int(budget) != budget or budget < 0:
        raise InputError(f"budget must be a non-negative integer, got {budget!r}")
    if minimum * len(sz) > budget:
        raise InputError(f"a budget of {budget} cannot give {minimum} labels to each of {len(sz)} strata",
                         fix="lower minimum, merge strata, or raise the budget")
    if budget > sz.sum():
        raise InputError(f"budget {budget} exceeds the {int(sz.sum())} items")
    return sz, np.floor(sz).astype(int)


def proportional_allocation(budget: int, *, sizes, minimum: int = 2) -> np.ndarray:
    """Labels per stratum in proportion to the stratum sizes.

    Parameters
    ----------
    budget : int
        Total number of items (topics) to label.
    sizes : array-like (H,)
        Number of items in each stratum (N_h).
    minimum : int
        At least this many labels per stratum (2: a stratum needs a variance).

    Returns
    -------
    numpy.ndarray (H,) of int
        n_h ≈ budget · N_h / Σ N, rounded by largest remainder to sum to ``budget``, each in
        [minimum, N_h].

    References
    ----------
    Cochran (1977), *Sampling Techniques*, §5.5 (proportional allocation).

    Examples
    --------
    >>> proportional_allocation(30, sizes=[100, 50, 50]).tolist()
    [15, 8, 7]
    """
    sz, caps = _check_alloc(budget, sizes, minimum)
    return _round_allocation(budget * sz / sz.sum(), int(budget), minimum, caps)


def neyman_allocation(budget: int, *, sizes, sd, minimum: int = 2) -> np.ndarray:
    """Labels per stratum by Neyman allocation on the per-stratum residual SD: n_h ∝ N_h · σ_h.

    For PPI, σ_h is the SD of the residual y − λŷ in stratum h (from a pilot; see
    :func:`stratum_residual_sd`): strata where the judge is off by varying amounts get more human
    labels, strata where it is reliable fewer.

    Parameters
    ----------
    budget : int
        Total number of items (topics) to label.
    sizes : array-like (H,)
        Number of items in each stratum (N_h).
    sd : array-like (H,)
        Residual SD per stratum (≥ 0).
    minimum : int
        At least this many labels per stratum.

    Returns
    -------
    numpy.ndarray (H,) of int
        Rounded by largest remainder to sum to ``budget``, each in [minimum, N_h] (a stratum capped
        at N_h passes its excess to the others).

    References
    ----------
    Neyman (1934); Cochran (1977), §5.5; Fisch et al. (2024), NeurIPS, §4 (allocation for
    stratified PPI). The allocation minimizes Σ W_h² σ_h²/n_h for a fixed total (checked in
    tests/test_ppi.py).

    Examples
    --------
    >>> neyman_allocation(30, sizes=[100, 100, 100], sd=[0.05, 0.1, 0.3]).tolist()
    [3, 7, 20]
    """
    sz, caps = _check_alloc(budget, sizes, minimum)
    s = np.asarray(sd, dtype=float)
    if s.shape != sz.shape or (s < 0).any() or not np.isfinite(s).all():
        raise InputError("sd must hold one non-negative SD per stratum")
    weight = sz * s
    if weight.sum() == 0:
        return proportional_allocation(budget, sizes=sizes, minimum=minimum)
    target = budget * weight / weight.sum()
    # strata capped at N_h give their excess to the rest, in proportion again
    for _ in range(len(sz)):
        over = target > caps
        if not over.any():
            break
        free = budget - caps[over].sum()
        rest = ~over & (weight > 0)
        target = np.where(over, caps, np.where(rest, free * weight / weight[rest].sum(), 0.0))
    return _round_allocation(target, int(budget), minimum, caps)


def stratum_residual_sd(y, yhat, strata, *, lam: float | None = None) -> dict:
    """SD of the residual y − λŷ per stratum, from a pilot sample (input to :func:`neyman_allocation`).

    Parameters
    ----------
    y : array-like (n,)
        Human labels of the pilot items.
    yhat : array-like (n,)
        The judge's labels of the same items.
    strata : array-like (n,)
        Stratum of each item.
    lam : float, optional
        λ; default: per stratum the slope Cov(y, ŷ)/Var(ŷ) clipped to [0, 1] (the λ of PPI++ when
        the unlabelled set is large).

    Returns
    -------
    dict
        stratum → SD (divisor n_h − 1; NaN for a stratum with one item).

    References
    ----------
    Fisch et al. (2024), NeurIPS, §4 (the per-stratum variance that drives the allocation).

    Examples
    --------
    >>> stratum_residual_sd([1.0, 2.0, 3.0, 1.0, 2.0, 4.0], [1.0, 2.0, 3.0, 2.0, 2.0, 2.0], [0, 0, 0, 1, 1, 1],
    ...                     lam=1.0)
    {0: 0.0, 1: 1.5275252316519468}
    """
    yv, hv = _vector(y, "y"), _vector(yhat, "yhat")
    if len(yv) != len(hv):
        raise InputError(f"y and yhat have different lengths: {len(yv)} and {len(hv)}")
    s = _codes(strata, len(yv), "strata", "y")
    out = {}
    for h in np.unique(s):
        a, b = yv[s == h], hv[s == h]
        if len(a) < 2:
            out[h.item() if isinstance(h, np.generic) else h] = float("nan")
            continue
        if lam is None:
            vb = np.var(b, ddof=1)
            lh = float(np.clip(np.cov(a, b)[0, 1] / vb, 0, 1)) if vb > 0 else 0.0
        else:
            lh = float(lam)
        out[h.item() if isinstance(h, np.generic) else h] = float(np.std(a - lh * b, ddof=1))
    return out
