"""Prevalence among judge-labelled items, corrected for the judge's errors (Rogan–Gladen).

A judge labelled N items and called ``positives`` of them positive; on a validation sample with
human labels it has sensitivity Se and specificity Sp. If those error rates hold on the
judge-labelled items, the share of truly positive items is (Rogan & Gladen 1978)

    π = (q + Sp − 1) / (Se + Sp − 1),   q = positives / N,

defined only when Se + Sp > 1 (a judge better than chance). Se and Sp come from the registry's
``binary_metrics`` kernel (rows of the validation table: reference = human, level 1 = positive).

Two sources of error enter the interval: the validation sample (Se and Sp are estimates) and the
judge-labelled sample (q is a binomial share). The delta method adds the three variances
(STATISTICS.md, "Judge-corrected inference"); the bootstrap draws the validation table
(Multinomial over its four cells) and the judge's positives (a binomial per topic) together through
metaeval's engine, as strata of one :class:`~metaeval.core.resample.Units`.

:func:`rogan_gladen` corrects one share; :func:`rogan_gladen_counts` corrects per-topic counts of
a qrels expansion (one shared validation table, or one per stratum of topics), and the pooled total.

Examples
--------
>>> import metaeval as me
>>> e = me.rogan_gladen(table=[[90, 10], [15, 85]], positives=300, total=1000, ci_method=None)
>>> round(e.estimate, 4)
0.2667
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..core import registry
from ..core.errors import InputError, MetaevalWarning, UndefinedStatisticWarning
from ..core.resample import (
    CI_METHODS,
    DEFAULT_N_RESAMPLES,
    BootstrapResult,
    Units,
    _user_stacklevel,
    bootstrap,
)
from ..core.results import ConfidenceInterval, Estimate, ResultSet
from ..core.tables import as_counts

__all__ = ["rogan_gladen", "rogan_gladen_counts", "DEFAULT_RG_CI_METHOD", "RG_COVERAGE", "RG_NOTE"]

#: Interval method of :func:`rogan_gladen` and :func:`rogan_gladen_counts` when not told otherwise,
#: chosen by the coverage simulation recorded in :data:`RG_COVERAGE`: the delta method covered best
#: in the worst scenario and as well as any on average (0.948 against the wider basic interval's
#: 0.950, within the Monte Carlo error), at the width of the percentile and BCa intervals.
DEFAULT_RG_CI_METHOD = "delta"

#: What :func:`rogan_gladen`'s result says about the better tool (``extra["note"]``; not a warning).
RG_NOTE = ("if the validation items are a simple random sample of the items whose prevalence is wanted, "
           "metaeval.ppi_proportion is valid too and narrower (2.4-5.1x on LLMJudge with 100 labels); "
           "Rogan-Gladen is the tool when the validation items were chosen by the judge's label or come "
           "from elsewhere")

#: Coverage of nominal 95% intervals of the corrected prevalence (mean and worst over 48 scenarios:
#: Se ∈ {0.7, 0.9}, Sp ∈ {0.8, 0.95}, true prevalence ∈ {0.05, 0.2, 0.5}, validation samples of
#: 100 or 400 items half of them reference positives, 300 or 5,000 judge-labelled items; B = 1000;
#: mean over 10 seeds of 50 data sets per scenario, benchmarks/coverage_seeds.py ``--only
#: prevalence``; Monte Carlo error, the SD across seeds / √10, 0.002 for the mean coverage and
#: 0.01–0.02 for a scenario, so for the worst), and the mean width.
#: tests/test_prevalence.py::rogan_gladen_coverage_test repeats four of the scenarios.
RG_COVERAGE = {
    "delta": {"mean": 0.948, "min": 0.884, "mean_width": 0.185},
    "percentile": {"mean": 0.941, "min": 0.876, "mean_width": 0.184},
    "bca": {"mean": 0.938, "min": 0.854, "mean_width": 0.183},
    "basic": {"mean": 0.950, "min": 0.834, "mean_width": 0.203},
}

_METHODS = ("delta", *CI_METHODS)


# --------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------

def _table2(t, what: str = "table") -> np.ndarray:
    a = as_counts(t, name=what)
    if a.shape != (2, 2):
        raise InputError(f"{what} must be a 2×2 table of counts (rows: reference 0/1, columns: judge 0/1), "
                         f"got shape {a.shape}", source=f"<{what}>")
    return a


def _binary(v, name: str) -> np.ndarray:
    if isinstance(v, (pd.Series, pd.Index)):
        v = v.to_numpy()
    try:
        a = np.asarray(v, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InputError(f"{name} must hold binary labels 0/1", fix="map the labels to 0 (negative) and 1 "
                         "(positive) first") from None
    bad = ~np.isnan(a) & ~np.isin(a, (0.0, 1.0))
    if bad.any():
        raise InputError(f"{name} must hold binary labels 0/1", text=str(a[bad][0]),
                         fix="binarize the labels first (e.g. relevance >= 2)")
    return a


def _validation_tables(x, y, table, validation_strata=None) -> tuple[np.ndarray, list]:
    """(H, 2, 2) validation tables and their stratum keys ([None] for one table)."""
    if table is not None:
        if x is not None or y is not None:
            raise InputError("pass either the validation labels (x, y) or table=, not both")
        if isinstance(table, Mapping):
            if not table:
                raise InputError("table= is an empty mapping", fix="give one 2×2 table per stratum")
            keys = list(table)
            return np.stack([_table2(table[k], f"table[{k!r}]") for k in keys]), keys
        return _table2(table)[None], [None]
    if x is None or y is None:
        raise InputError("give the validation sample: table= (2×2 counts, rows reference) or labels x= "
                         "(reference) and y= (judge)")
    r, c = _binary(x, "x"), _binary(y, "y")
    if len(r) != len(c):
        raise InputError(f"x and y have different lengths: {len(r)} and {len(c)}",
                         fix="pass the reference and judge labels of the same validation items, aligned")
    ok = ~(np.isnan(r) | np.isnan(c))
    if not ok.all():
        warnings.warn(f"{int((~ok).sum())} validation pair(s) with a missing label left out",
                      UndefinedStatisticWarning, stacklevel=_user_stacklevel())
    cell = (2 * r[ok] + c[ok]).astype(np.int64)
    if validation_strata is None:
        return np.bincount(cell, minlength=4).reshape(1, 2, 2), [None]
    st = np.asarray(validation_strata.to_numpy() if isinstance(validation_strata, pd.Series)
                    else validation_strata, dtype=object)
    if len(st) != len(r):
        raise InputError(f"validation_strata has {len(st)} entries for {len(r)} validation items")
    st = st[ok]
    keys = list(pd.unique(st))
    return np.stack([np.bincount(cell[st == k], minlength=4).reshape(2, 2) for k in keys]), keys


def _counts_series(v, name: str) -> pd.Series:
    if isinstance(v, pd.Series):
        s = v
    elif isinstance(v, Mapping):
        s = pd.Series(v)
    else:
        s = pd.Series(np.atleast_1d(np.asarray(v)))
    try:
        f = s.astype(float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must hold counts (numbers)") from None
    if f.isna().any() or (f < 0).any() or not np.allclose(f, np.round(f)):
        raise InputError(f"{name} must hold non-negative integer counts", text=str(s.tolist()[:5]))
    return np.round(f).astype(np.int64)


# --------------------------------------------------------------------------------------------
# the statistic (one definition for the point estimate, the bootstrap and the delta method)
# --------------------------------------------------------------------------------------------

class _RG:
    """Validation tables (H strata), judge counts (T topics) and which table each topic uses."""

    def __init__(self, tables, pos, tot, stratum_of, *, judge_error: bool = True):
        self.tables = np.asarray(tables, dtype=np.int64)
        self.pos = np.asarray(pos, dtype=np.int64)
        self.tot = np.asarray(tot, dtype=np.int64)
        self.stratum_of = np.asarray(stratum_of, dtype=np.int64)
        self.H, self.T = len(self.tables), len(self.pos)
        self.N = int(self.tot.sum())
        self.judge_error = judge_error
        self._kernel = registry.resolve("binary_metrics").kernel(2)

    # sufficient statistic: [validation cells of each stratum (4H)] + [positives, negatives of each topic (2T)]
    def units(self) -> Units:
        H, T = self.H, self.T
        X = np.eye(4 * H + 2 * T)
        m = np.concatenate([self.tables.reshape(-1), np.column_stack([self.pos, self.tot - self.pos]).reshape(-1)])
        strata = np.concatenate([np.repeat(np.arange(H), 4), H + np.repeat(np.arange(T), 2)])
        if not self.judge_error:  # the judge's counts stay as observed: drop them from the draw
            X, m, strata = np.eye(4 * H), m[: 4 * H], strata[: 4 * H]
        return Units(X, m, strata=strata, kind="strata")

    def _full(self, S: np.ndarray) -> np.ndarray:
        if self.judge_error:
            return S
        fixed = np.column_stack([self.pos, self.tot - self.pos]).reshape(-1).astype(float)
        return np.hstack([S, np.broadcast_to(fixed, (S.shape[0], fixed.size))])

    def se_sp(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, H) sensitivities and specificities from the registry's binary_metrics kernel."""
        b = S.shape[0]
        bm = self._kernel(S[:, : 4 * self.H].reshape(b * self.H, 4))
        return bm[:, 0].reshape(b, self.H), bm[:, 1].reshape(b, self.H)

    def prevalences(self, S: np.ndarray) -> np.ndarray:
        """(b, T) unclipped corrected prevalences, NaN where Se + Sp ≤ 1 or undefined."""
        S = self._full(np.asarray(S, dtype=float))
        se, sp = self.se_sp(S)
        P = S[:, 4 * self.H:].reshape(S.shape[0], self.T, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = P[..., 0] / P.sum(axis=2)
            se_t, sp_t = se[:, self.stratum_of], sp[:, self.stratum_of]
            d = se_t + sp_t - 1
            pi = (q + sp_t - 1) / d
        return np.where(d > 0, pi, np.nan)

    def observed(self) -> np.ndarray:
        return self.units().total()[None, :] if self.judge_error else self.tables.reshape(1, -1).astype(float)

    # delta method -----------------------------------------------------------------------------
    def delta(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Estimates and delta-method variances of linear combinations ``weights @ π`` (rows: statistics).

        Var = Σ_t (Σ_s w_st ∂π_t/∂q_t)² q_t(1 − q_t)/N_t + Σ_h (Σ_t w_t ∂π_t/∂Se_h)² Se_h(1 − Se_h)/n1_h
        + Σ_h (Σ_t w_t ∂π_t/∂Sp_h)² Sp_h(1 − Sp_h)/n0_h, with ∂π/∂q = 1/D, ∂π/∂Se = −π/D,
        ∂π/∂Sp = (1 − π)/D, D = Se + Sp − 1.
        """
        S = self.observed()
        pi = self.prevalences(S)[0]
        se, sp = (a[0] for a in self.se_sp(self._full(S)))
        n1 = self.tables[:, 1].sum(axis=1)
        n0 = self.tables[:, 0].sum(axis=1)
        q = self.pos / self.tot
        d = se[self.stratum_of] + sp[self.stratum_of] - 1
        W = np.atleast_2d(weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            g_q = W / d                                   # (m, T)
            g_se_t = W * (-pi / d)
            g_sp_t = W * ((1 - pi) / d)
            v_q = q * (1 - q) / self.tot if self.judge_error else np.zeros(self.T)
            v_se = se * (1 - se) / n1
            v_sp = sp * (1 - sp) / n0
        g_se = np.zeros((W.shape[0], self.H))
        g_sp = np.zeros((W.shape[0], self.H))
        np.add.at(g_se.T, self.stratum_of, g_se_t.T)
        np.add.at(g_sp.T, self.stratum_of, g_sp_t.T)
        var = (g_q**2 * v_q).sum(axis=1) + (g_se**2 * v_se).sum(axis=1) + (g_sp**2 * v_sp).sum(axis=1)
        return W @ pi, var


def _check_method(ci_method, confidence_level, n_resamples):
    if ci_method is not None and ci_method not in _METHODS:
        raise InputError(f"ci_method must be one of {_METHODS} or None, got {ci_method!r}")
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    if ci_method in CI_METHODS and int(n_resamples) < 1:
        raise InputError(f"n_resamples must be a positive integer, got {n_resamples!r}")


def _undefined_reason(rg: _RG) -> dict:
    """Per stratum: why Se + Sp − 1 is not positive (empty when every stratum is usable)."""
    se, sp = (a[0] for a in rg.se_sp(rg._full(rg.observed())))
    out = {}
    for h in range(rg.H):
        n1, n0 = rg.tables[h, 1].sum(), rg.tables[h, 0].sum()
        if n1 == 0 or n0 == 0:
            out[h] = (f"the validation table has no reference {'positives' if n1 == 0 else 'negatives'}, so the "
                      f"judge's {'sensitivity' if n1 == 0 else 'specificity'} is unknown")
        elif not se[h] + sp[h] > 1:
            out[h] = (f"Se + Sp = {se[h]:.4f} + {sp[h]:.4f} = {se[h] + sp[h]:.4f} ≤ 1: the judge is no better than "
                      "chance on the validation sample, and the correction is undefined")
    return out


def _estimates(rg: _RG, weights: np.ndarray, names: list[str], upper: np.ndarray, ns: list[int], *, ci_method,
               confidence_level, n_resamples, rng, extra: list[dict]) -> list[Estimate]:
    """Estimates of ``weights @ π`` (unclipped inside; point estimates and interval ends clipped to [0, upper])."""
    W = np.atleast_2d(weights)
    raw = W @ rg.prevalences(rg.observed())[0]
    units = rg.units()
    if ci_method == "delta":
        from ..agreement.analytic import analytic_estimate

        est, var = rg.delta(W)
        out = []
        for j, name in enumerate(names):
            e = analytic_estimate(name, est[j], var[j], n=ns[j], confidence_level=confidence_level,
                                  quantile="normal", extra={"variance": "delta-method"})
            out.append(dataclasses.replace(e, pvalue=None))
    elif ci_method is None or not np.isfinite(raw).any():
        res = BootstrapResult.point(raw, unit=units.kind, n_units=units.n_units, confidence_level=confidence_level)
        out = res.estimates(names, n=ns)
    else:
        res = bootstrap(lambda S: rg.prevalences(S) @ W.T, units, n_resamples=n_resamples, ci_method=ci_method,
                        confidence_level=confidence_level, rng=rng)
        out = res.estimates(names, n=ns)
    final = []
    for j, e in enumerate(out):
        r = float(raw[j])
        ub = float(upper[j])
        clipped = bool(np.isfinite(r) and (r < 0 or r > ub))
        low = float(np.clip(e.ci.low, 0, ub)) if np.isfinite(e.ci.low) else e.ci.low
        high = float(np.clip(e.ci.high, 0, ub)) if np.isfinite(e.ci.high) else e.ci.high
        ex = {**e.extra, **extra[j], "unclipped": r, "clipped": clipped}
        final.append(dataclasses.replace(e, estimate=float(np.clip(r, 0, ub)) if np.isfinite(r) else r,
                                         ci=ConfidenceInterval(low, high, e.ci.level, e.ci.method), extra=ex))
    return final


def _warn_clipped(what: str, values: list[tuple[str, float, float]]) -> None:
    shown = "; ".join(f"{k}: {v:.4g} → {min(max(v, 0.0), ub):.4g}" for k, v, ub in values[:5])
    more = f" (and {len(values) - 5} more)" if len(values) > 5 else ""
    warnings.warn(f"{what} outside [0, 1] (counts: [0, total]) and clipped: {shown}{more}. The judge's share of positives is "
                  "below 1 − Sp (or above Se), which the validation's error rates cannot produce: sampling error, "
                  "or the validation sample does not describe these items (extra['unclipped'] keeps the "
                  "value before clipping)", MetaevalWarning, stacklevel=_user_stacklevel())


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------

def rogan_gladen(x=None, y=None, *, table=None, positives: int, total: int, confidence_level: float = 0.95,
                 ci_method: str | None = DEFAULT_RG_CI_METHOD, n_resamples: int = DEFAULT_N_RESAMPLES,
                 judge_error: bool = True, rng: None | int | np.random.Generator = None) -> Estimate:
    """Prevalence among judge-labelled items, corrected by the judge's sensitivity and specificity.

    Parameters
    ----------
    x, y : array-like of 0/1, optional
        Validation labels of the same items: ``x`` the reference (human), ``y`` the judge
        (1 = positive). Give these or ``table``.
    table : array (2, 2), optional
        The validation table of counts: rows the reference (0, 1), columns the judge (0, 1), so
        ``[[TN, FP], [FN, TP]]``.
    positives : int
        How many of the judge-labelled items the judge called positive.
    total : int
        How many items the judge labelled.
    confidence_level : float
        The interval's coverage, in (0, 1) (default 0.95).
    ci_method : {"delta", "percentile", "bca", "basic"} or None
        ``"delta"``: Wald interval with the delta-method variance (reported as ``"analytic"``); the
        others: a bootstrap through
        metaeval's engine that draws the validation table (Multinomial over its cells) and the judge's
        positives (Binomial(total, q̂)) together. Default :data:`DEFAULT_RG_CI_METHOD`, chosen by the
        coverage simulation in Notes. None: the point estimate only.
    n_resamples : int
        Bootstrap resamples (default :data:`~metaeval.core.resample.DEFAULT_N_RESAMPLES`).
    judge_error : bool
        Include the binomial error of the judge's share q̂ (default). False treats q̂ as known and
        resamples only the validation table, as judgy does (useful when the judge labelled the whole
        population of interest).
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap (:func:`~metaeval.core.resample.make_rng`).

    Returns
    -------
    Estimate
        ``statistic == "corrected_prevalence"``, clipped to [0, 1] (interval too). ``extra`` holds
        ``sensitivity``, ``specificity``, ``observed_share`` (q̂), ``positives``, ``total``,
        ``validation_n``, ``unclipped`` (the estimate before clipping) and ``clipped``; ``n`` is the
        number of judge-labelled items, and ``note`` (:data:`RG_NOTE`: when :func:`ppi_proportion` is
        the better tool; a note, not a warning). NaN with an
        :class:`~metaeval.UndefinedStatisticWarning` when Se + Sp ≤ 1 (or the validation sample
        lacks reference positives or negatives); a :class:`~metaeval.MetaevalWarning` when the
        estimate was clipped.

    Notes
    -----
    **Which tool.** Rogan–Gladen needs only the judge's sensitivity and specificity, so its
    validation items may be chosen by the judge's label (e.g. 50 judge-positives and 50
    judge-negatives) or come from another sample of the same judge. When the validation items are
    a simple random sample of the items whose prevalence is wanted, :func:`metaeval.ppi_proportion`
    (PPI++) is valid too and much narrower: Rogan–Gladen divides the error of Se and Sp by
    (Se + Sp − 1)², PPI++ never does worse than the human labels alone. On LLMJudge (33 judges,
    relevant = label ≥ 2, 100 random validation items out of 4,423, 20 draws a judge) the
    Rogan–Gladen interval was 2.4–5.1× (median 3.1×) as wide as ppi_proportion's and 2.2–5.0×
    (median 2.8×) as wide as the 100 human labels' own interval
    (``tests/test_warnings_issue20.py::rogan_gladen_vs_ppi_on_llmjudge_test``).

    π̂ = (q̂ + Sp − 1)/(Se + Sp − 1) (Rogan & Gladen 1978), with Se = TP/(TP + FN) and
    Sp = TN/(TN + FP) from the registry's ``binary_metrics`` kernel. Delta-method variance:
    [q̂(1 − q̂)/N + π̂² Se(1 − Se)/n₁ + (1 − π̂)² Sp(1 − Sp)/n₀]/(Se + Sp − 1)², n₁ and n₀ the
    reference positives and negatives of the validation sample. Bootstrap replicates with
    Se + Sp ≤ 1 are undefined and left out (the engine counts them and warns).

    Coverage of nominal 95% intervals (:data:`RG_COVERAGE`; 48 scenarios: Se ∈ {0.7, 0.9},
    Sp ∈ {0.8, 0.95}, π ∈ {0.05, 0.2, 0.5}, validation samples of 100 or 400 items, half of them
    reference positives, 300 or 5,000 judge-labelled items; mean over 10 seeds of 50 data sets each,
    benchmarks/coverage_seeds.py; Monte Carlo error, the SD across seeds / √10, 0.002 for the mean
    coverage, 0.01–0.02 for a scenario and so for the worst):

    ========== ============== =============== ==========
    method     mean coverage  worst scenario  mean width
    ========== ============== =============== ==========
    delta      0.948          0.884           0.185
    percentile 0.941          0.876           0.184
    bca        0.938          0.854           0.183
    basic      0.950          0.834           0.203
    ========== ============== =============== ==========

    Hence the default ``"delta"``. Every method under-covers most with a small validation sample, a
    specific judge and a rare positive class (Sp = 0.95, π = 0.05, 50 reference positives:
    0.83–0.93): there Sp rests on two or three false positives. A larger validation sample (400:
    worst 0.922 ± 0.014 for the delta method) is the remedy.

    References
    ----------
    Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
    American Journal of Epidemiology 107, 71–76. The point estimate equals judgy 0.1.0's
    ``estimate_success_rate`` on its examples, and with ``judge_error=False, ci_method="percentile"``
    its interval equals judgy's up to Monte-Carlo error (tests/reference/judgy_values.json).

    Examples
    --------
    A judge with Se = 85/100 and Sp = 90/100 on a validation sample called 300 of 1,000 items
    positive; the corrected prevalence is (0.3 + 0.9 − 1)/(0.85 + 0.9 − 1):

    >>> import metaeval as me
    >>> e = me.rogan_gladen(table=[[90, 10], [15, 85]], positives=300, total=1000)
    >>> round(e.estimate, 4), e.ci.method, round(e.se, 4)
    (0.2667, 'analytic', 0.0373)
    >>> round(e.extra["sensitivity"], 2), round(e.extra["specificity"], 2)
    (0.85, 0.9)

    The bootstrap through metaeval's engine draws the validation table and the judge's positives:

    >>> b = me.rogan_gladen(table=[[90, 10], [15, 85]], positives=300, total=1000, ci_method="percentile", rng=0)
    >>> b.unit, b.n_units, bool(b.ci.low < 0.2667 < b.ci.high)
    ('strata', 1200, True)
    """
    _check_method(ci_method, confidence_level, n_resamples)
    tables, _ = _validation_tables(x, y, table)
    pos = _counts_series(positives, "positives")
    tot = _counts_series(total, "total")
    if len(pos) != 1 or len(tot) != 1:
        raise InputError("positives and total must be single counts (for several topics use "
                         "metaeval.rogan_gladen_counts)")
    p, n = int(pos.iloc[0]), int(tot.iloc[0])
    if n < 1 or p > n:
        raise InputError(f"need 0 ≤ positives ≤ total and total ≥ 1, got positives={p}, total={n}")
    rg = _RG(tables, [p], [n], [0], judge_error=judge_error)
    se, sp = (float(a[0, 0]) for a in rg.se_sp(rg._full(rg.observed())))
    extra = {"sensitivity": se, "specificity": sp, "observed_share": p / n, "positives": p, "total": n,
             "validation_n": int(tables.sum()), "judge_error": judge_error, "note": RG_NOTE}
    why = _undefined_reason(rg)
    if why:
        warnings.warn(f"rogan_gladen: {why[0]}; the corrected prevalence is NaN", UndefinedStatisticWarning,
                      stacklevel=_user_stacklevel())
    (e,) = _estimates(rg, np.ones((1, 1)), ["corrected_prevalence"], np.ones(1), [n], ci_method=ci_method,
                      confidence_level=confidence_level, n_resamples=n_resamples, rng=rng, extra=[extra])
    if e.extra["clipped"]:
        _warn_clipped("the corrected prevalence fell", [("prevalence", e.extra["unclipped"], 1.0)])
    return e


def rogan_gladen_counts(positives, total, *, table=None, x=None, y=None, validation_strata=None, strata=None,
                        confidence_level: float = 0.95, ci_method: str | None = DEFAULT_RG_CI_METHOD,
                        n_resamples: int = DEFAULT_N_RESAMPLES, judge_error: bool = True,
                        rng: None | int | np.random.Generator = None) -> ResultSet:
    """Corrected counts of truly positive items per topic (e.g. relevant images of a qrels expansion).

    For each topic t the judge labelled ``total[t]`` items and called ``positives[t]`` positive; the
    corrected count is ``total[t] · π̂_t`` with the Rogan–Gladen prevalence π̂_t of
    :func:`rogan_gladen`, using one validation table shared by every topic or one table per stratum
    of topics. One bootstrap draws every table and every topic's binomial together, so the
    per-topic intervals and the total's carry the shared error of Se and Sp.

    Parameters
    ----------
    positives, total : pandas.Series, mapping or array-like of int
        Per topic (the index, or the mapping's keys, are the topic ids; for arrays 0, 1, ...): the
        judge's positives and the number of items it labelled.
    table : array (2, 2), or mapping stratum → array (2, 2), optional
        The validation table(s): rows reference (0, 1), columns judge (0, 1). One table is shared by
        every topic; with a mapping, ``strata`` says which table each topic uses (default: the
        mapping's keys are the topic ids).
    x, y : array-like of 0/1, optional
        The validation labels instead of ``table`` (``x`` reference, ``y`` judge).
    validation_strata : array-like, optional
        With ``x, y``: the stratum of each validation item (one table per stratum).
    strata : pandas.Series or mapping topic → stratum, optional
        Which validation table each topic uses (needed when the tables are per stratum and their keys
        are not the topic ids).
    confidence_level : float
        The intervals' coverage, in (0, 1).
    ci_method : {"delta", "percentile", "bca", "basic"} or None
        As in :func:`rogan_gladen` (default :data:`DEFAULT_RG_CI_METHOD`).
    n_resamples : int
        Bootstrap resamples.
    judge_error : bool
        Include the binomial error of each topic's judged share (default).
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap.

    Returns
    -------
    ResultSet
        Keyed by ``topic``: ``corrected_prevalence`` and ``corrected_count`` per topic (clipped to
        [0, 1] and [0, total]); and, without a topic key, ``corrected_prevalence`` and
        ``corrected_count`` of all topics pooled (the total count is N · π̂ of the pooled items,
        clipped once; the sum of the clipped per-topic counts would be biased upwards). ``extra``
        of each estimate holds ``positives``, ``total``, ``sensitivity``, ``specificity``,
        ``unclipped`` and ``clipped``. Warns when any estimate was clipped or is undefined.

    Notes
    -----
    The topics' corrected prevalences are π̂_t = (q̂_t + Sp_h − 1)/(Se_h + Sp_h − 1) with h the
    topic's stratum; the pooled prevalence is Σ_t N_t π̂_t / Σ_t N_t (before clipping). The delta
    method differentiates these linear combinations with respect to every q̂_t, Se_h and Sp_h.

    References
    ----------
    Rogan & Gladen (1978). Each topic's estimate equals :func:`rogan_gladen` on that topic's counts
    (tests/test_prevalence.py), hence judgy 0.1.0's point estimate.

    Examples
    --------
    The bundled ImageCLEF-like expansion: a judge validated on a balanced sample (Se = 77/97,
    Sp = 85/105) called 1.07% of 50,000 images relevant, below 1 − Sp = 0.19, so every topic's
    corrected count is clipped to 0 — the validation's error rates cannot describe the expansion:

    >>> import warnings
    >>> import metaeval as me
    >>> d = me.datasets.load("imageclef_like")
    >>> g = d.expansion.groupby("query_id")["judge"]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     rs = me.rogan_gladen_counts(g.sum(), g.size(), x=d.validation["human"], y=d.validation["judge"],
    ...                                 ci_method=None)
    >>> rs.get(statistic="corrected_count", topic="1").extra["unclipped"] < 0
    True
    >>> float(rs.filter(statistic="corrected_count").to_frame()["estimate"].max())
    0.0
    """
    _check_method(ci_method, confidence_level, n_resamples)
    tables, tkeys = _validation_tables(x, y, table, validation_strata)
    pos = _counts_series(positives, "positives")
    tot = _counts_series(total, "total")
    if not pos.index.equals(tot.index):
        if set(pos.index) != set(tot.index):
            raise InputError("positives and total have different topics",
                             fix="index both by the same topic ids (e.g. groupby(...).sum() and .size())")
        tot = tot.loc[pos.index]
    if (tot < 1).any() or (pos > tot).any():
        bad = pos.index[(tot < 1) | (pos > tot)][0]
        raise InputError(f"topic {bad!r}: need 0 ≤ positives ≤ total and total ≥ 1",
                         text=f"positives={pos.loc[bad]}, total={tot.loc[bad]}")
    topics = list(pos.index)
    if len(tables) == 1 and tkeys == [None]:
        stratum_of = np.zeros(len(topics), dtype=np.int64)
    else:
        smap = dict(strata) if strata is not None else {t: t for t in topics}
        missing = [t for t in topics if t not in smap or smap[t] not in tkeys]
        if missing:
            raise InputError(f"{len(missing)} topic(s) have no validation table, e.g. {missing[0]!r}",
                             fix="give strata= (topic → stratum) whose strata are the keys of the tables")
        index = {k: i for i, k in enumerate(tkeys)}
        stratum_of = np.array([index[smap[t]] for t in topics], dtype=np.int64)
    rg = _RG(tables, pos.to_numpy(), tot.to_numpy(), stratum_of, judge_error=judge_error)
    T, N = rg.T, rg.N
    w_share = rg.tot / N
    W = np.vstack([np.eye(T), w_share[None, :], np.diag(rg.tot.astype(float)), rg.tot[None, :].astype(float)])
    names = ["corrected_prevalence"] * (T + 1) + ["corrected_count"] * (T + 1)
    upper = np.concatenate([np.ones(T + 1), rg.tot.astype(float), [float(N)]])
    se, sp = (a[0] for a in rg.se_sp(rg._full(rg.observed())))
    extra_t = [{"positives": int(rg.pos[t]), "total": int(rg.tot[t]), "sensitivity": float(se[rg.stratum_of[t]]),
                "specificity": float(sp[rg.stratum_of[t]]), "judge_error": judge_error} for t in range(T)]
    extra_all = {"positives": int(rg.pos.sum()), "total": N, "judge_error": judge_error}
    if rg.H == 1:
        extra_all.update(sensitivity=float(se[0]), specificity=float(sp[0]))
    extra = extra_t + [extra_all] + extra_t + [extra_all]
    ns = [int(v) for v in rg.tot] + [N] + [int(v) for v in rg.tot] + [N]
    why = _undefined_reason(rg)
    if why:
        shown = "; ".join(f"{'table' if tkeys == [None] else f'stratum {tkeys[h]!r}'}: {r}" for h, r in why.items())
        warnings.warn(f"rogan_gladen_counts: {shown}; the topics using it are NaN", UndefinedStatisticWarning,
                      stacklevel=_user_stacklevel())
    ests = _estimates(rg, W, names, upper, ns, ci_method=ci_method, confidence_level=confidence_level,
                      n_resamples=n_resamples, rng=rng, extra=extra)
    rs = ResultSet(name="rogan_gladen_counts")
    keys = [{"topic": t} for t in topics] + [{}] + [{"topic": t} for t in topics] + [{}]
    for e, k in zip(ests, keys):
        rs.append_with(e, **k)
    clipped = [(f"{e.statistic}[{k.get('topic', 'all')}]", e.extra["unclipped"], ub)
               for e, k, ub in zip(ests, keys, upper) if e.extra["clipped"] and e.statistic == "corrected_count"]
    if clipped:
        _warn_clipped(f"{len(clipped)} corrected count(s) fell", clipped)
    return rs

