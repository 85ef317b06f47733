"""Label budgets: how many human labels (items or topics) a target precision or power needs.

From a *pilot* — human labels y and judge labels ŷ on a few items, and the judge's labels on the
unlabelled pool — the width of the interval for a mean (a system's nDCG@10 over the topics, a
prevalence, a paired difference of two systems) is projected to any number n of labelled items,
for PPI++ (the judge's labels corrected by the human ones, power-tuned λ), plain PPI (λ = 1) and
the human-only mean (λ = 0).

The one variance formula
------------------------
The projection uses :func:`metaeval.inference.ppi.ppi_mean_variance` and
:func:`metaeval.inference.ppi.ppi_lambda` themselves: their estimates depend on the data only
through the means, variances and covariance of (y, ŷ) on the labelled items and the mean and
variance of ŷ on the unlabelled ones. For each n this module builds a labelled sample of size n
and an unlabelled sample of size N(n) whose sample moments equal the pilot's exactly (a fixed
orthonormal design scaled to the pilot's covariance), and asks those two functions for λ*(n) and
the variance. So the budget is, by construction, the variance ``ppi_mean`` would report on a
sample of that size that looks like the pilot:

    var_λ(n) = S²(y − λŷ)/n + λ² S²(ŷ_unl)/N(n),        λ*(n) = Cov(y, ŷ) / ((1 + n/N(n)) Var(ŷ)),

and with a finite population of P items (``population_size``; every item not labelled is judged,
N(n) = P − n), var_λ(n) = (1 − n/P) S²(y − λŷ)/n (ppi_mean_variance's finite-population formula).
The expected width is 2·q·√var_λ(n), q the t(n − 1) quantile (or the normal one). It is the
width at the pilot's variance: the realized width scatters around it, a little below on average
(E s < σ); tests/test_budget.py checks it against simulated ``ppi_mean`` intervals.

Power
-----
For a true difference Δ from the null value (a difference between two systems: pass the per-topic
differences of their scores as y and ŷ), the two-sided test at level α = 1 − confidence_level has
power P(|T| > q) with T ~ noncentral t(n − 1, Δ/se(n)) (normal: Φ(Δ/se − z) + Φ(−Δ/se − z)); the
minimum detectable difference at power π solves power(Δ) = π.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ..core.errors import InputError
from .ppi import QUANTILES, _ddof_for, ppi_lambda, ppi_mean_variance

__all__ = ["label_budget", "required_labels", "BUDGET_METHODS", "BUDGET_COLUMNS"]

#: The estimators a budget compares: PPI++ (power-tuned λ), PPI (λ = 1), human-only (λ = 0).
BUDGET_METHODS = ("ppi++", "ppi", "classical")
#: Columns of :func:`label_budget`'s frame (``system`` first when there are several targets).
BUDGET_COLUMNS = ["method", "n", "n_unlabelled", "population_size", "lam", "se", "width", "confidence_level",
                  "difference", "power", "mdd", "target_power"]
_FIXED_LAM = {"ppi": 1.0, "classical": 0.0}


# --------------------------------------------------------------------------------------------
# the pilot
# --------------------------------------------------------------------------------------------

class _Pilot:
    """Pilot moments of one target (ddof = 1), and samples of any size with exactly these moments."""

    def __init__(self, y, yhat, yhat_unlabelled):
        y = _vec(y, "y")
        h = _vec(yhat, "yhat")
        u = _vec(yhat_unlabelled, "yhat_unlabelled")
        if len(y) != len(h):
            raise InputError(f"y and yhat have different lengths: {len(y)} and {len(h)}",
                             expected="a human and a judge label for every pilot item")
        if len(y) < 3:
            raise InputError(f"a pilot needs at least 3 labelled items, got {len(y)}")
        if len(u) < 2:
            raise InputError(f"a pilot needs the judge's labels on at least 2 unlabelled items, got {len(u)}")
        self.n0, self.N0 = len(y), len(u)
        self.mean = np.array([y.mean(), h.mean()])
        self.cov = np.cov(np.vstack([y, h]), ddof=1)
        self.umean, self.uvar = float(u.mean()), float(u.var(ddof=1))

    @staticmethod
    def _basis(n: int, k: int) -> np.ndarray:
        """n × k orthonormal columns orthogonal to the ones vector (deterministic)."""
        t = (np.arange(n) + 0.5) / n
        Z = np.column_stack([np.cos(np.pi * (c + 1) * t) for c in range(k)])
        Z -= Z.mean(axis=0)
        q, _ = np.linalg.qr(Z)
        return q

    def labelled(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        w, V = np.linalg.eigh(self.cov)
        root = V @ np.diag(np.sqrt(np.clip(w, 0, None))) @ V.T        # symmetric square root of the covariance
        X = self.mean + math.sqrt(n - 1) * self._basis(n, 2) @ root
        return X[:, 0], X[:, 1]

    def unlabelled(self, N: int) -> np.ndarray:
        return self.umean + math.sqrt(N - 1) * math.sqrt(max(self.uvar, 0.0)) * self._basis(N, 1)[:, 0]


def _vec(x, name):
    try:
        v = np.asarray(x, dtype=float).ravel()
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be numbers", text=repr(x)[:60]) from err
    bad = ~np.isfinite(v)
    if bad.any():
        raise InputError(f"{name} holds {int(bad.sum())} missing or infinite values",
                         fix=f"drop those items from {name} (and its partner) first")
    return v


def _targets(y, yhat, yhat_unlabelled, measure, population_size):
    """[(system or None, _Pilot)], population size."""
    from ..systems.evaluation import SystemScores

    if isinstance(y, SystemScores) or isinstance(yhat, SystemScores):
        if not (isinstance(y, SystemScores) and isinstance(yhat, SystemScores)):
            raise InputError("pass SystemScores for both y (human, pilot topics) and yhat (judge, all topics)")
        if yhat_unlabelled is not None:
            raise InputError("with SystemScores the unlabelled topics are the judge's topics the human lacks",
                             fix="leave yhat_unlabelled out")
        human, judge = y, yhat
        lab = sorted(set(human.topics) & set(judge.topics))
        unl = sorted(set(judge.topics) - set(lab))
        systems = [s for s in judge.systems if s in set(human.systems)]
        if not lab or not unl or not systems:
            raise InputError(f"need pilot topics judged by both ({len(lab)}), topics only the judge scored "
                             f"({len(unl)}) and shared systems ({len(systems)})")
        H = human.matrix(measure, topics=lab, systems=systems).to_numpy()
        J = judge.matrix(measure, topics=lab, systems=systems).to_numpy()
        U = judge.matrix(measure, topics=unl, systems=systems).to_numpy()
        if np.isnan(H).any() or np.isnan(J).any() or np.isnan(U).any():
            raise InputError("some systems lack a score on some topics (NaN cells)",
                             fix="score every system on every topic (missing_topics='zero'), or drop those systems")
        P = len(judge.topics) if population_size is None else population_size
        systems = list(human.matrix(measure, topics=lab, systems=systems).index)
        return [(s, _Pilot(H[k], J[k], U[k])) for k, s in enumerate(systems)], P
    if isinstance(y, pd.DataFrame):
        if not isinstance(yhat, pd.DataFrame) or not isinstance(yhat_unlabelled, pd.DataFrame):
            raise InputError("with a DataFrame y (topics × systems) pass yhat and yhat_unlabelled as DataFrames too")
        cols = [c for c in y.columns if c in yhat.columns and c in yhat_unlabelled.columns]
        if not cols:
            raise InputError("y, yhat and yhat_unlabelled share no column (system)")
        return [(c, _Pilot(y[c], yhat.loc[y.index, c], yhat_unlabelled[c])) for c in cols], population_size
    if yhat_unlabelled is None:
        raise InputError("yhat_unlabelled is required: the judge's labels on the items no human labels")
    return [(None, _Pilot(y, yhat, yhat_unlabelled))], population_size


# --------------------------------------------------------------------------------------------
# projection
# --------------------------------------------------------------------------------------------

def _n_unlabelled(pilot: _Pilot, n: int, P, n_unlabelled):
    if n_unlabelled is not None:
        return int(n_unlabelled)
    return pilot.N0 if P is None else P - n


def _project(pilot: _Pilot, n: int, method: str, *, P, n_unlabelled, quantile, confidence_level):
    """(λ, se, width, N) at n labelled items, from ppi_lambda and ppi_mean_variance."""
    N = _n_unlabelled(pilot, n, P, n_unlabelled)
    y, h = pilot.labelled(n)
    u = pilot.unlabelled(N)
    lam = ppi_lambda(y, h, u, population_size=P) if method == "ppi++" else _FIXED_LAM[method]
    v = ppi_mean_variance(y, h, u, lam, ddof=_ddof_for(quantile), population_size=P)
    se = math.sqrt(max(v.variance, 0.0))
    return lam, se, 2 * _q(n, quantile, confidence_level) * se, N


def _q(n, quantile, confidence_level):
    p = 0.5 + confidence_level / 2
    return float(stats.t.ppf(p, n - 1)) if quantile == "t" else float(stats.norm.ppf(p))


def _power(delta, se, n, quantile, confidence_level):
    """Power of the two-sided level-α test when the true difference is delta."""
    if not se > 0:
        return 1.0 if delta != 0 else 1 - confidence_level
    q = _q(n, quantile, confidence_level)
    nc = abs(delta) / se
    normal = float(stats.norm.sf(q - nc) + stats.norm.cdf(-q - nc))
    if quantile == "t":
        p = float(stats.nct.sf(q, n - 1, nc) + stats.nct.cdf(-q, n - 1, nc))
        return p if math.isfinite(p) else normal        # far in the tail scipy's nct gives NaN: power 1
    return normal


def _mdd(se, n, quantile, confidence_level, power):
    """The smallest |Δ| the test detects with the given power: se times a factor of (n, α, power)."""
    if not se > 0:
        return 0.0
    return se * _mdd_factor(int(n), quantile, float(confidence_level), float(power))


@functools.lru_cache(maxsize=4096)
def _mdd_factor(n, quantile, confidence_level, power):
    """δ with power(δ · se) = power at se = 1 (power depends on Δ/se only); bracketed from the normal δ."""
    f = lambda d: _power(d, 1.0, n, quantile, confidence_level) - power  # noqa: E731
    z = _q(n, "normal", confidence_level) + float(stats.norm.ppf(power))
    lo, hi = 0.9 * z, _q(n, quantile, confidence_level) + float(stats.norm.ppf(power)) + 0.5
    while f(lo) > 0:
        lo /= 2
    while f(hi) < 0:
        hi *= 2
    return float(optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-12))


def _check(methods, quantile, confidence_level, power, population_size):
    bad = [m for m in methods if m not in BUDGET_METHODS]
    if bad:
        raise InputError(f"methods must be among {BUDGET_METHODS}, got {bad}")
    if quantile not in QUANTILES:
        raise InputError(f"quantile must be one of {QUANTILES}, got {quantile!r}")
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    if not 0 < power < 1:
        raise InputError(f"power must lie in (0, 1), got {power!r}")
    if population_size is not None and int(population_size) != population_size:
        raise InputError(f"population_size must be an integer, got {population_size!r}")


def _grid(n, P):
    if n is not None:
        g = np.unique(np.asarray(n, dtype=int).ravel())
        if (g < 3).any():
            raise InputError("every n must be at least 3 (a t quantile and a variance need n − 1 ≥ 2)")
        if P is not None and (g > P - 2).any():
            raise InputError(f"n must leave at least 2 of the {P} items unlabelled, got max n = {int(g.max())}")
        return g
    top = (int(P) - 2) if P is not None else 1000
    return np.unique(np.round(np.geomspace(3, max(top, 3), 30)).astype(int))


def label_budget(y, yhat=None, yhat_unlabelled=None, *, n: int | Sequence[int] | None = None,
                 methods: Sequence[str] = BUDGET_METHODS, population_size: int | None = None,
                 n_unlabelled: int | None = None, difference: float | None = None, power: float = 0.8,
                 confidence_level: float = 0.95, quantile: str = "t", measure=None) -> pd.DataFrame:
    """Expected interval width, power and minimum detectable difference against the number of labels.

    Parameters
    ----------
    y : array-like, DataFrame or SystemScores
        The pilot's human labels: a 1-D array (one target), a topics × systems frame (one target
        per column), or the human :class:`~metaeval.SystemScores` on the pilot topics.
    yhat : array-like, DataFrame or SystemScores
        The judge's labels on the same pilot items (frame: same index and columns), or the judge's
        SystemScores on every topic.
    yhat_unlabelled : array-like or DataFrame, optional
        The judge's labels on the unlabelled pool (not with SystemScores: there the pool is the
        judge's topics the human scores lack).
    n : int or sequence of int, optional
        Numbers of labelled items to project to (each ≥ 3); default 30 values from 3 up to
        P − 2 (finite population) or 1000, evenly spaced on a log scale.
    methods : sequence of {"ppi++", "ppi", "classical"}
        The estimators compared (default all three; ``classical`` is human-only).
    population_size : int, optional
        P, the number of items (topics) in all: the target is their mean and every item not
        labelled is judged (N = P − n). Default None (an infinite population and a pool of fixed
        size); with SystemScores the judge's number of topics.
    n_unlabelled : int, optional
        The pool's size N when it does not follow from the population (default: the pilot's pool).
    difference : float, optional
        A true difference Δ from the null value to detect: adds its power.
    power : float
        Target power of the minimum detectable difference ``mdd`` (default 0.8).
    confidence_level : float
        Level of the intervals (test level α = 1 − confidence_level).
    quantile : {"t", "normal"}
        The interval's quantile, as :func:`metaeval.inference.ppi.ppi_mean` (t: 1/(n − 1)
        variances and t(n − 1)).
    measure : str, optional
        The measure, with SystemScores holding several.

    Returns
    -------
    pandas.DataFrame
        :data:`BUDGET_COLUMNS` (``system`` first for several targets), one row per target, method
        and n: ``lam`` (λ used: λ*(n) for PPI++), ``se``, ``width`` (expected width of the
        interval), ``power`` (NaN without ``difference``), ``mdd`` (the minimum detectable
        difference at ``target_power``).

    Raises
    ------
    InputError
        A pilot of fewer than 3 labelled or 2 unlabelled items, mismatched lengths, NaN, an n
        outside [3, P − 2].

    Notes
    -----
    See the module: the variance at n is :func:`~metaeval.inference.ppi.ppi_mean_variance` on
    samples of sizes n and N(n) whose moments equal the pilot's, with λ from
    :func:`~metaeval.inference.ppi.ppi_lambda` for PPI++; width = 2·q·se. This is the width of
    ``ppi_mean(..., ci_method="analytic")``; ``ppi_mean``'s default for a tuned λ is the jackknife
    interval, which its coverage simulation found 11–15% wider at n = 10 and 0–3% wider at n = 50,
    so budget a little above the projection at very small n.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, arXiv 2311.01453 (the variance and λ*); Cochran
    (1977), §2.5 (finite-population correction). tests/test_budget.py checks the projected widths
    against simulated ``ppi_mean`` intervals (within 3%), the power against simulated rejection
    rates, and λ = 0 against the textbook t-interval width 2·t·s·√((1 − n/P)/n).

    Examples
    --------
    420 topics; the judge scored all of them, humans the first 30 (the pilot):

    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> y = rng.normal(0.5, 0.2, 420); yhat = 0.9 * y + rng.normal(0.1, 0.08, 420)
    >>> b = label_budget(y[:30], yhat[:30], yhat[30:], n=[30, 120], population_size=420)
    >>> b[["method", "n", "lam", "width"]].round(3)
          method    n    lam  width
    0      ppi++   30  0.875  0.067
    1      ppi++  120  0.895  0.028
    2        ppi   30  1.000  0.068
    3        ppi  120  1.000  0.029
    4  classical   30  0.000  0.147
    5  classical  120  0.000  0.062

    Power to detect a difference of 0.05 with 30 labelled topics, and the minimum detectable
    difference at 80% power:

    >>> b = label_budget(y[:30], yhat[:30], yhat[30:], n=30, population_size=420, difference=0.05)
    >>> b[["method", "power", "mdd"]].round(3)
          method  power    mdd
    0      ppi++  0.844  0.047
    1        ppi  0.825  0.048
    2  classical  0.270  0.104
    """
    _check(methods, quantile, confidence_level, power, population_size)
    targets, P = _targets(y, yhat, yhat_unlabelled, measure, population_size)
    grid = _grid(n, P)
    rows = []
    for system, pilot in targets:
        for method in methods:
            for k in grid:
                lam, se, width, N = _project(pilot, int(k), method, P=P, n_unlabelled=n_unlabelled,
                                             quantile=quantile, confidence_level=confidence_level)
                pw = math.nan if difference is None else _power(difference, se, int(k), quantile, confidence_level)
                rows.append({"system": system, "method": method, "n": int(k), "n_unlabelled": N,
                             "population_size": P, "lam": lam, "se": se, "width": width,
                             "confidence_level": confidence_level,
                             "difference": math.nan if difference is None else float(difference), "power": pw,
                             "mdd": _mdd(se, int(k), quantile, confidence_level, power), "target_power": power})
    f = pd.DataFrame(rows)
    cols = (["system"] if targets[0][0] is not None else []) + BUDGET_COLUMNS
    return f[cols]


def required_labels(y, yhat=None, yhat_unlabelled=None, *, width: float | None = None,
                    difference: float | None = None, power: float = 0.8, methods: Sequence[str] = BUDGET_METHODS,
                    population_size: int | None = None, n_unlabelled: int | None = None, max_n: int | None = None,
                    confidence_level: float = 0.95, quantile: str = "t", measure=None) -> pd.DataFrame:
    """The fewest labelled items (topics) that reach a target interval width or power, per method.

    Parameters
    ----------
    y, yhat, yhat_unlabelled
        The pilot, as in :func:`label_budget`.
    width : float, optional
        Target: the expected interval width at most this.
    difference : float, optional
        Target: a true difference Δ detected with at least ``power`` (give ``width`` or this).
    power : float
        The power asked for ``difference`` (default 0.8).
    methods : sequence of {"ppi++", "ppi", "classical"}
        The estimators compared.
    population_size : int, optional
        P, the items (topics) in all (see :func:`label_budget`); the search stops at P − 2.
    n_unlabelled : int, optional
        The pool's size when it does not follow from the population.
    max_n : int, optional
        Largest n searched without a finite population (default 100,000).
    confidence_level : float
        Level of the intervals.
    quantile : {"t", "normal"}
        The interval's quantile.
    measure : str, optional
        The measure, with SystemScores holding several.

    Returns
    -------
    pandas.DataFrame
        One row per target and method (``system`` first for several targets, followed by the
        row ``system="all"``: the largest n over the systems, the budget that reaches the target
        for every one): ``method, n`` (NaN when even the largest n falls short), ``width``,
        ``power`` and ``lam`` at that n, and ``saving`` (1 − n / the human-only n).

    References
    ----------
    The same projection as :func:`label_budget` (bisection over n: the width falls and the power
    rises with n); tests/test_budget.py checks n against a scan of every n.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(2)
    >>> y = rng.normal(0.5, 0.2, 420); yhat = 0.9 * y + rng.normal(0.1, 0.08, 420)
    >>> r = required_labels(y[:30], yhat[:30], yhat[30:], width=0.05, population_size=420)
    >>> r[["method", "n", "saving"]].round(2)
          method    n  saving
    0      ppi++   49    0.70
    1        ppi   51    0.68
    2  classical  161    0.00
    """
    if (width is None) == (difference is None):
        raise InputError("give one target: width= or difference=")
    _check(methods, quantile, confidence_level, power, population_size)
    targets, P = _targets(y, yhat, yhat_unlabelled, measure, population_size)
    hi_n = (int(P) - 2) if P is not None else int(max_n or 100_000)
    if hi_n < 3:
        raise InputError(f"the population of {P} items leaves no room for a budget")
    rows = []
    for system, pilot in targets:
        def at(k, method, pilot=pilot):
            lam, se, w, _ = _project(pilot, k, method, P=P, n_unlabelled=n_unlabelled, quantile=quantile,
                                     confidence_level=confidence_level)
            pw = math.nan if difference is None else _power(difference, se, k, quantile, confidence_level)
            ok = (w <= width) if width is not None else (pw >= power)
            return ok, lam, w, pw

        for method in methods:
            lo, hi = 3, hi_n
            ok_hi = at(hi, method)
            if not ok_hi[0]:
                rows.append({"system": system, "method": method, "n": math.nan, "width": ok_hi[2],
                             "power": ok_hi[3], "lam": ok_hi[1]})
                continue
            if at(lo, method)[0]:
                hi = lo
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if at(mid, method)[0]:
                    hi = mid
                else:
                    lo = mid
            _, lam, w, pw = at(hi, method)
            rows.append({"system": system, "method": method, "n": hi, "width": w, "power": pw, "lam": lam})
    f = pd.DataFrame(rows)
    if targets[0][0] is not None:
        agg = (f.groupby("method", sort=False)["n"].agg(lambda s: s.max() if s.notna().all() else math.nan)
               .reset_index().assign(system="all"))
        f = pd.concat([f, agg], ignore_index=True)
    human = f[f.method == "classical"].set_index("system")["n"] if "classical" in methods else None
    if human is not None:
        key = f["system"].fillna("__one__")
        hmap = human.rename(index=lambda s: "__one__" if s is None or (isinstance(s, float) and math.isnan(s))
                            else s)
        f["saving"] = 1 - f["n"] / key.map(hmap).astype(float)
    else:
        f["saving"] = math.nan
    f["target"] = f"width <= {width}" if width is not None else f"power >= {power} at difference {difference}"
    if targets[0][0] is None:
        f = f.drop(columns="system")
    return f.reset_index(drop=True)
