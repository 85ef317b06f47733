"""Simultaneous inference for a panel: all pairwise differences, the difference to the best, rank sets.

Every quantity :func:`metaeval.judge_panel` reports about comparisons between judges is derived
from **one** family of intervals: max-T simultaneous intervals for all pairwise differences
θ_j − θ_k, computed from the one shared bootstrap draw (:func:`pairwise_max_t`). From them:

* the difference of each judge to the best of the others, θ_j − max_{k≠j} θ_k = min_k (θ_j − θ_k),
  lies in [min_k L_jk, min_k U_jk] (multiple comparisons with the best, Hsu 1996, unconstrained);
* the set of judges that may be the best: {j : U_jk ≥ 0 for every k};
* the rank of judge j (1 = best) lies in [1 + #{k : L(θ_k − θ_j) > 0}, J − #{k : U(θ_k − θ_j) < 0}]
  (Mogstad, Romano, Shaikh & Wilhelm 2024): simultaneous for all judges from the all-pairs
  critical value, marginal (for one judge) from the critical value of that judge's row.

The functions take any (B × J) matrix of replicates; the Gaussian draw of the R package csranks
(θ̂ + Z, Z ~ N(0, Σ)) with its standard errors √(Σ_jj + Σ_kk − 2Σ_jk) gives csranks' single-step
rank sets exactly (tests/test_panel_ranks.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PairwiseIntervals", "pairwise_max_t", "difference_to_best", "rank_sets", "PAIR_CHUNK_ELEMS"]

#: Elements of one (draws × rows × judges) block of the pairwise computation (float64: 32 MB).
PAIR_CHUNK_ELEMS = 4_000_000


@dataclass
class PairwiseIntervals:
    """Simultaneous intervals for every θ_j − θ_k (rows j, columns k) from one draw.

    Attributes
    ----------
    diff : ndarray (J, J)
        θ̂_j − θ̂_k.
    se : ndarray (J, J)
        The bootstrap standard error of each difference (SD of θ*_j − θ*_k over the draws, ddof = 1),
        or the one given; NaN where a judge is undefined.
    low, high : ndarray (J, J)
        The simultaneous interval (diff ∓ c · factor · se); exact (zero width) where se = 0; NaN on
        the diagonal and for undefined judges.
    crit : float
        c, the ``level`` quantile over the draws of T*_b = max over pairs |d*_jk − d̂_jk| / se_jk.
    crit_row : ndarray (J,)
        The ``level`` quantile of max_k |d*_jk − d̂_jk| / se_jk: judge j's row alone (marginal).
    t_star : ndarray (B,)
        T*_b (NaN in a draw where no pair is defined).
    factor : float
        The widening factor applied to every standard error (few clusters).
    ok : ndarray (J,) of bool
        The judges whose estimate is defined.
    deviations : ndarray (B, J)
        θ*_bj − θ̂_j (NaN for undefined judges).
    """

    diff: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    crit: float
    crit_row: np.ndarray
    t_star: np.ndarray
    factor: float
    ok: np.ndarray
    deviations: np.ndarray

    def intervals(self, marginal: bool = False):
        """(low, high) with the all-pairs critical value, or with each row's own (``marginal``)."""
        if not marginal:
            return self.low, self.high
        c = self.crit_row[:, None]
        return _interval(self.diff, self.se, c, self.factor)


def _interval(diff, se, c, factor):
    with np.errstate(invalid="ignore"):
        half = np.where(se > 0, c * factor * se, 0.0)
    half = np.where(np.isnan(se), np.nan, half)
    return diff - half, diff + half


def pairwise_max_t(theta, replicates, *, confidence_level: float = 0.95, factor: float = 1.0, se=None,
                   chunk_elems: int = PAIR_CHUNK_ELEMS) -> PairwiseIntervals:
    """Max-T simultaneous intervals for all pairwise differences θ_j − θ_k from paired replicates.

    Parameters
    ----------
    theta : array (J,)
        The estimates (NaN: an undefined judge, left out of every comparison).
    replicates : array (B, J)
        Replicate b gives every judge's value on the same resample (a shared draw), so
        θ*_bj − θ*_bk is a replicate of the difference. NaN entries are left out of the maxima and
        of that pair's standard error.
    confidence_level : float
        Of the simultaneous intervals (and of each row's marginal critical value).
    factor : float
        Multiplies every standard error (the engine's few-clusters widening; 1 for none).
    se : array (J, J), optional
        The standard errors of the differences, when known (e.g. from a covariance matrix);
        default: the SD of the replicates of each difference.
    chunk_elems : int
        Memory bound: the draws × judges × judges work is done in blocks of about this many
        elements (rows of judges at a time), so memory is O(B·J + J² + chunk_elems).

    Returns
    -------
    PairwiseIntervals

    Notes
    -----
    With d̂_jk = θ̂_j − θ̂_k and se_jk its standard error, T*_b = max_{j≠k} |d*_bjk − d̂_jk| / se_jk
    over the pairs with se_jk > 0, c its ``confidence_level`` quantile (linear interpolation between
    order statistics, R's type 7), and the intervals d̂_jk ± c · factor · se_jk hold for all pairs at
    once with probability ``confidence_level`` asymptotically (max-T: Romano & Wolf 2005; the
    studentised all-pairs family of Tukey). A pair with se_jk = 0 (two judges whose difference
    does not move over the draws, e.g. identical labels) gets the exact interval [d̂_jk, d̂_jk].
    The cost is O(B · J²) arithmetic in blocks of ``chunk_elems`` (see :func:`metaeval.judge_panel`).

    References
    ----------
    Romano & Wolf (2005), Econometrica 73(4); Mogstad, Romano, Shaikh & Wilhelm (2024), Review of
    Economic Studies 91(1), §3 (the same construction with a Gaussian draw: R package csranks,
    ``csdiffmeans``; tests/test_panel_ranks.py compares with it).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> theta = np.array([0.5, 0.4, 0.1])
    >>> reps = theta + rng.normal(0, 0.05, (2000, 3))
    >>> p = pairwise_max_t(theta, reps)
    >>> bool(p.low[0, 2] > 0), bool(p.low[0, 1] < 0 < p.high[0, 1])
    (True, True)
    """
    theta = np.asarray(theta, dtype=float)
    reps = np.asarray(replicates, dtype=float)
    if reps.ndim != 2 or reps.shape[1] != len(theta):
        raise ValueError(f"replicates must be (B, {len(theta)}), got {reps.shape}")
    B, J = reps.shape
    ok = np.isfinite(theta)
    Y = np.where(ok[None, :], reps - theta[None, :], np.nan)       # deviations of each judge, NaN if undefined
    has_nan = bool(np.isnan(Y[:, ok]).any())
    diff = theta[:, None] - theta[None, :]
    pair_ok = ok[:, None] & ok[None, :] & ~np.eye(J, dtype=bool)
    diff = np.where(pair_ok, diff, np.nan)
    if se is not None:
        se_m = np.where(pair_ok, np.asarray(se, dtype=float), np.nan)
    elif has_nan:
        se_m = _pair_sd_nan(Y, pair_ok, chunk_elems)
    else:
        se_m = np.where(pair_ok, _pair_sd(Y, ok), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        inv = np.where(se_m > 0, 1.0 / se_m, np.nan)                # se = 0 or undefined: not in the maxima
    rowmax = _row_maxima(Y, inv, ok, has_nan, chunk_elems)
    with _quiet():
        t_star = np.fmax.reduce(rowmax, axis=1) if J else np.full(B, np.nan)
        fin = t_star[np.isfinite(t_star)]
        crit = float(np.quantile(fin, confidence_level)) if fin.size else float("nan")
        crit_row = np.array([_q(rowmax[:, j], confidence_level) for j in range(J)])
    low, high = _interval(diff, se_m, crit, factor)
    return PairwiseIntervals(diff=diff, se=se_m, low=low, high=high, crit=crit, crit_row=crit_row, t_star=t_star,
                             factor=float(factor), ok=ok, deviations=Y)


def _pair_sd(Y, ok):
    """SD (ddof = 1) of Y_j − Y_k for every pair, from the covariance matrix of the columns (no NaN).

    Var(Y_j − Y_k) = v_j + v_k − 2 c_jk. Where that is within rounding of 0 (two judges whose
    replicates move together exactly), the SD is recomputed from the differences themselves, so
    that identical judges get exactly 0.
    """
    B, J = Y.shape
    sd = np.full((J, J), np.nan)
    if B < 2:
        return np.where(np.eye(J, dtype=bool), np.nan, 0.0)
    Yc = np.where(ok[None, :], Y, 0.0)
    Yc = Yc - Yc.mean(axis=0)
    cov = (Yc.T @ Yc) / (B - 1)
    v = np.diag(cov)
    var = v[:, None] + v[None, :] - 2 * cov
    tiny = var <= 1e-9 * (v[:, None] + v[None, :])
    sd = np.sqrt(np.maximum(var, 0.0))
    for j, k in zip(*np.nonzero(np.triu(tiny & ok[:, None] & ok[None, :], 1))):
        sd[j, k] = sd[k, j] = np.std(Y[:, j] - Y[:, k], ddof=1)
    return sd


def _pair_sd_nan(Y, pair_ok, chunk_elems):
    """SD (ddof = 1) of Y_j − Y_k over the draws where both are defined, rows of judges at a time."""
    B, J = Y.shape
    sd = np.full((J, J), np.nan)
    rows = max(1, int(chunk_elems) // max(B * J, 1))
    for s in range(0, J, rows):
        D = Y[:, s:s + rows, None] - Y[:, None, :]
        with np.errstate(invalid="ignore", divide="ignore"), _quiet():
            sd[s:s + rows] = np.nanstd(D, axis=0, ddof=1)
    return np.where(pair_ok, sd, np.nan)


def _row_maxima(Y, inv, ok, has_nan, chunk_elems):
    """M[b, j] = max_k |Y_bj − Y_bk| · inv_jk (pairs with NaN inv left out; NaN when none is left).

    |Y_j − Y_k| · inv_jk is symmetric in (j, k), so only the pairs k ≥ (first row of the block) are
    formed, in float32 blocks of about ``chunk_elems`` elements, and each block updates the maxima
    of its rows and of its columns.
    """
    B, J = Y.shape
    M = np.full((B, J), -np.inf, dtype=np.float32)
    idx = np.flatnonzero(ok)
    if idx.size < 2:
        return np.full((B, J), np.nan)
    Yk = Y[:, idx].astype(np.float32)
    W = inv[np.ix_(idx, idx)]
    if not has_nan:
        W = np.where(np.isnan(W), 0.0, W)        # a left-out pair contributes 0 (every T is ≥ 0)
    W = W.astype(np.float32)
    m = len(idx)
    rows = max(1, int(chunk_elems) // max(B * m, 1))
    Mk = np.full((B, m), -np.inf, dtype=np.float32)
    for s in range(0, m, rows):
        e = min(m, s + rows)
        D = Yk[:, s:e, None] - Yk[:, None, s:]                          # (B, r, m − s)
        np.abs(D, out=D)
        D *= W[None, s:e, s:]
        red = np.fmax.reduce if has_nan else np.max
        Mk[:, s:e] = np.fmax(Mk[:, s:e], red(D, axis=2))
        Mk[:, s:] = np.fmax(Mk[:, s:], red(D, axis=1))
    if not has_nan:
        # a row whose pairs are all left out (every other judge moves with it exactly) has no maximum
        none = ~np.isfinite(W).any(axis=1) | ~(W > 0).any(axis=1)
        Mk[:, none] = np.nan
    else:
        Mk[~np.isfinite(Mk)] = np.nan
    M = np.full((B, J), np.nan)
    M[:, idx] = Mk
    return M


def _q(x, level):
    x = x[np.isfinite(x)]
    return float(np.quantile(x, level)) if x.size else float("nan")


class _quiet:
    """Silence numpy's RuntimeWarnings (all-NaN slices) inside a block."""

    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def difference_to_best(pw: PairwiseIntervals):
    """Each judge's difference to the best of the others, its simultaneous interval and max-T p-value.

    Parameters
    ----------
    pw : PairwiseIntervals
        From :func:`pairwise_max_t`.

    Returns
    -------
    estimate, low, high, pvalue, pvalue_unadjusted, versus : ndarrays (J,)
        ``estimate`` = θ̂_j − max_{k≠j} θ̂_k; [``low``, ``high``] = [min_k L_jk, min_k U_jk];
        ``pvalue`` the single-step max-T adjusted p-value of H0_j: θ_j ≥ θ_k for every k (judge j
        is a best judge), ``pvalue_unadjusted`` the same test against the one judge k that
        attains the largest studentised gap (no multiplicity); ``versus`` the index of the
        best of the others (−1 when there is none).

    Notes
    -----
    θ_j − max_{k≠j} θ_k = min_{k≠j} (θ_j − θ_k), and whenever every pairwise interval holds, the
    minimum lies between the minima of the ends: the intervals hold for all judges at once with
    at least the pairwise family's probability (multiple comparisons with the best, Hsu 1996,
    §4; here *unconstrained*, i.e. not clipped at 0, and from the two-sided all-pairs critical
    value, so slightly wider than Hsu's one-sided MCB). With t_j = max_k (θ̂_k − θ̂_j)/(factor ·
    se_jk), p_j = #{b : T*_b ≥ t_j}/B: p_j < 1 − level exactly when ``high`` < 0 (up to the
    interpolation between two draws in the critical value), i.e. when judge j leaves the set of
    judges that may be the best. A pair with se_jk = 0 and θ̂_k > θ̂_j gives t_j = ∞ (p = 0).

    References
    ----------
    Hsu (1996), *Multiple Comparisons: Theory and Methods*, Chapman & Hall, ch. 4; Westfall &
    Young (1993), single-step max-T adjusted p-values.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> theta = np.array([0.5, 0.48, 0.1])
    >>> est, lo, hi, p, _, vs = difference_to_best(pairwise_max_t(theta, theta + rng.normal(0, .05, (2000, 3))))
    >>> est.round(2).tolist(), vs.tolist(), bool(hi[2] < 0), bool(p[2] < 0.05), bool(p[1] > 0.05)
    ([0.02, -0.02, -0.4], [1, 0, 0], True, True, True)
    """
    J = len(pw.ok)
    d = np.where(np.isnan(pw.diff), np.inf, pw.diff)
    has_other = np.isfinite(d).any(axis=1) & pw.ok
    versus = np.where(has_other, np.argmin(d, axis=1), -1)
    est = np.where(has_other, d[np.arange(J), np.maximum(versus, 0)], np.nan)
    with _quiet():
        low = np.where(has_other, np.nanmin(np.where(np.isnan(pw.low), np.inf, pw.low), axis=1), np.nan)
        high = np.where(has_other, np.nanmin(np.where(np.isnan(pw.high), np.inf, pw.high), axis=1), np.nan)
    t_fin = pw.t_star[np.isfinite(pw.t_star)]
    p = np.full(J, np.nan)
    pu = np.full(J, np.nan)
    for j in np.flatnonzero(has_other):
        gap = -pw.diff[j]                                             # θ̂_k − θ̂_j
        se = pw.se[j]
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(se > 0, gap / (pw.factor * se), np.where(gap > 0, np.inf, -np.inf))
        t = np.where(np.isnan(gap), -np.inf, t)
        k = int(np.argmax(t))
        tj = t[k]
        if not t_fin.size:
            p[j] = pu[j] = 1.0 if tj <= 0 else (0.0 if np.isinf(tj) else np.nan)
            continue
        p[j] = float(np.mean(t_fin >= tj))
        if np.isinf(tj) or not se[k] > 0:
            pu[j] = 1.0 if tj < 0 else 0.0
        else:
            # the same gap against the one pair's own bootstrap distribution (no multiplicity)
            with _quiet():
                one = _pair_t(pw, j, k)
            pu[j] = float(np.mean(one >= tj)) if one.size else np.nan
    return est, low, high, p, pu, versus


def _pair_t(pw: PairwiseIntervals, j: int, k: int) -> np.ndarray:
    """|d*_jk − d̂_jk| / se_jk over the draws."""
    v = np.abs(pw.deviations[:, j] - pw.deviations[:, k]) / pw.se[j, k]
    return v[np.isfinite(v)]


def rank_sets(pw: PairwiseIntervals, *, marginal: bool = False):
    """Confidence sets for the judges' ranks (1 = the highest θ) from the pairwise intervals.

    Parameters
    ----------
    pw : PairwiseIntervals
        From :func:`pairwise_max_t`.
    marginal : bool
        False (default): simultaneous sets, all judges' ranks covered at once (the all-pairs
        critical value); True: each judge's set alone covers its rank (the critical value of its
        own row of differences).

    Returns
    -------
    low, high : ndarrays (J,) of int
        rank_j ∈ [1 + #{k : L(θ_k − θ_j) > 0}, J' − #{k : U(θ_k − θ_j) < 0}], J' the number of defined
        judges; undefined judges get [J' + 1, J] (ranked last, as the point ranks).

    Notes
    -----
    Mogstad, Romano, Shaikh & Wilhelm (2024), §3: a judge is surely below every judge k whose
    difference θ_k − θ_j has a positive lower end, and surely above every one with a negative upper
    end. This is csranks' single-step procedure (``stepdown = FALSE``); its default stepdown
    refinement (re-estimating the critical value over the comparisons not yet decided) gives sets
    at most as large and is not implemented here.

    References
    ----------
    Mogstad, Romano, Shaikh & Wilhelm (2024), "Inference for ranks with applications to mobility
    across neighbourhoods and academic achievement across countries", Review of Economic Studies
    91(1):476–518; R package csranks 1.2.2.9001 (``csranks(x, Sigma, simul=, stepdown=FALSE)``),
    equal on shared cases (tests/test_panel_ranks.py, tests/reference/make_reference_csranks.R).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> theta = np.array([0.5, 0.48, 0.1])
    >>> pw = pairwise_max_t(theta, theta + rng.normal(0, .05, (2000, 3)))
    >>> [v.tolist() for v in rank_sets(pw)]
    [[1, 1, 3], [2, 2, 3]]
    """
    J = len(pw.ok)
    lo, hi = pw.intervals(marginal=marginal)
    n_ok = int(pw.ok.sum())
    with np.errstate(invalid="ignore"):
        # judge j's own row: L(θ_k − θ_j) = −U_jk and U(θ_k − θ_j) = −L_jk (for the marginal sets the
        # row's critical value is judge j's, so the row, not the column, is the one to read)
        above = (hi < 0).sum(axis=1)            # #{k : L(θ_k − θ_j) > 0}
        below = (lo > 0).sum(axis=1)            # #{k : U(θ_k − θ_j) < 0}
    low = np.where(pw.ok, 1 + above, n_ok + 1)
    high = np.where(pw.ok, n_ok - below, J)
    return low.astype(int), high.astype(int)
