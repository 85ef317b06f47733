"""Bradley–Terry strengths (and Davidson ties, a first-position effect) by penalized maximum likelihood.

P(i beats j) = σ(θ_i − θ_j [+ h if i is shown first]); with Davidson (1970) ties, P(i) ∝ π_i,
P(j) ∝ π_j, P(tie) ∝ ν √(π_i π_j) with π = exp θ.

Identification
--------------
The likelihood depends on differences of strengths only. The strengths are identified
symmetrically, as choix does: every model has its own parameter, and the fit maximizes

    ℓ(θ, h, ν) − ridge/2 · Σ θ_m²  − ½ (Σ θ_m)²

over the models that have battles. The last term has zero gradient along every difference, so it
only fixes the location (Σ θ = 0) and vanishes at the optimum; with ``ridge > 0`` the penalized
optimum has Σ θ = 0 anyway (the likelihood's gradient sums to zero). So no model is singled out,
the fit does not depend on how the models are named or ordered, and ``anchor=`` is a shift applied
after the fit, for presentation. Unpenalized fits are the maximum-likelihood estimate centred at
mean 0. ``ridge`` is choix's ``2·alpha`` (choix penalizes ``alpha · Σ θ²``).

Sufficient statistics are per-unit ordered-pair counts of first wins, second wins and ties; each
bootstrap replicate refits by Newton's method with a line search, batched over replicates.

At Chatbot-Arena size the battles are first aggregated to (model_a, model_b, outcome[, cluster])
cells (:func:`metaeval.pairwise._prepare.aggregate`): the fit only ever sees the 3·M² counts, and
an iid bootstrap over battles is a multinomial over the distinct cells. From
:data:`REFIT_MIN_MODELS` models on, replicates start from the point fit and iterate with its
Hessian (:func:`bt_refit`: one matrix product per iteration for all replicates instead of one
factorization each); they converge to the same maximum-likelihood fits (checked against Newton from
zero in tests/test_arena_scale.py). benchmarks/bench_arena.py: 10M battles × 200 models.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import expit

from ..core.errors import InputError, UndefinedStatisticWarning
from ..core.resample import _user_stacklevel
from ._prepare import (
    aggregate,
    by_judge,
    cell_units,
    check_policy,
    drop_self_battles,
    invalid_cells,
    need_frame,
    prepare_codes,
    present_models,
    warn_missing,
)
from ._results import (
    MODEL_CI_METHOD,
    MODEL_N_RESAMPLES,
    PairwiseResult,
    Resampler,
    estimate,
)
from .outcomes import rules_for
from .outcomes import tie_rule as lookup_rule

__all__ = ["bradley_terry"]

#: Elo points per logit (Chatbot Arena's scale: 400 / ln 10).
ELO = 400.0 / np.log(10.0)


def _bt_parts(d, Wa, Wb, Tt, delta, davidson):
    """Log-likelihood terms and derivatives with respect to d (and delta) for every ordered pair."""
    n = Wa + Wb + Tt
    if not davidson:
        s = Wa + 0.5 * Tt
        sig = 1.0 / (1.0 + np.exp(-d))
        ll = s * d - n * np.logaddexp(0.0, d)
        gd = s - n * sig
        hdd = -n * sig * (1 - sig)
        return ll, gd, hdd, None, None, None
    e = np.exp(delta)[:, None, None]
    ch, sh = np.cosh(d / 2), np.sinh(d / 2)
    g = 2 * ch + e
    ll = (Wa - Wb) * d / 2 + Tt * delta[:, None, None] - n * np.log(g)
    gd = (Wa - Wb) / 2 - n * sh / g
    hdd = -n * (ch * g / 2 - sh**2) / g**2
    gdel = Tt - n * e / g
    hdd_del = n * sh * e / g**2
    hdeldel = -n * e * 2 * ch / g**2
    return ll, gd, hdd, gdel, hdd_del, hdeldel


class _Layout:
    """Where θ (all M models), h and log ν sit in the parameter vector."""

    def __init__(self, b, M, position, davidson):
        self.b, self.M, self.position, self.davidson = b, M, position, davidson
        self.P = M + int(position) + int(davidson)

    def unpack(self, beta):
        M, b = self.M, self.b
        theta = beta[:, :M]
        h = beta[:, M] if self.position else np.zeros(b)
        delta = beta[:, -1] if self.davidson else np.zeros(b)
        return theta, h, delta


def _objective(beta, lay, Wa, Wb, Tt, active, ridge):
    """Penalized log-likelihood with the location term (−½ (Σ active θ)²), per replicate."""
    theta, h, delta = lay.unpack(beta)
    d = theta[:, :, None] - theta[:, None, :] + h[:, None, None]
    ll = _bt_parts(d, Wa, Wb, Tt, delta, lay.davidson)[0].sum(axis=(1, 2))
    th = np.where(active, theta, 0.0)
    return ll - 0.5 * ridge * (th**2).sum(axis=1) - 0.5 * th.sum(axis=1) ** 2


def _gradient_hessian(beta, lay, Wa, Wb, Tt, active, ridge):
    b, M, P = lay.b, lay.M, lay.P
    theta, h, delta = lay.unpack(beta)
    d = theta[:, :, None] - theta[:, None, :] + h[:, None, None]
    _, gd, hdd, gdel, hdd_del, hdeldel = _bt_parts(d, Wa, Wb, Tt, delta, lay.davidson)
    a = active.astype(float)
    loc = (np.where(active, theta, 0.0)).sum(axis=1)
    grad = np.zeros((b, P))
    H = np.zeros((b, P, P))
    grad[:, :M] = gd.sum(axis=2) - gd.sum(axis=1) - ridge * theta - a * loc[:, None]
    rs, cs = hdd.sum(axis=2), hdd.sum(axis=1)
    Hth = -(hdd + hdd.transpose(0, 2, 1))
    idx = np.arange(M)
    Hth[:, idx, idx] = rs + cs - ridge
    H[:, :M, :M] = Hth - a[:, :, None] * a[:, None, :]
    k = M
    if lay.position:
        grad[:, k] = gd.sum(axis=(1, 2))
        H[:, :M, k] = H[:, k, :M] = rs - cs
        H[:, k, k] = hdd.sum(axis=(1, 2))
        k += 1
    if lay.davidson:
        grad[:, k] = gdel.sum(axis=(1, 2))
        H[:, :M, k] = H[:, k, :M] = hdd_del.sum(axis=2) - hdd_del.sum(axis=1)
        if lay.position:
            H[:, k - 1, k] = H[:, k, k - 1] = hdd_del.sum(axis=(1, 2))
        H[:, k, k] = hdeldel.sum(axis=(1, 2))
    # models without battles: their strength stays 0 (unit curvature, zero gradient, no coupling)
    pin = ~active
    if pin.any():
        Hm = H[:, :M, :]
        Hm[pin] = 0.0
        H[:, :, :M] = np.where(pin[:, None, :], 0.0, H[:, :, :M])
        H[:, idx, idx] = np.where(pin, -1.0, H[:, idx, idx])
        grad[:, :M][pin] = 0.0
    return grad, H - 1e-12 * np.eye(P)[None]


def _gradient(beta, lay, Wa, Wb, Tt, active, ridge):
    """The gradient of :func:`_objective` (the first half of :func:`_gradient_hessian`, without H)."""
    M = lay.M
    theta, h, delta = lay.unpack(beta)
    d = theta[:, :, None] - theta[:, None, :] + h[:, None, None]
    _, gd, _, gdel, _, _ = _bt_parts(d, Wa, Wb, Tt, delta, lay.davidson)
    loc = (np.where(active, theta, 0.0)).sum(axis=1)
    grad = np.zeros((lay.b, lay.P))
    grad[:, :M] = gd.sum(axis=2) - gd.sum(axis=1) - ridge * theta - active * loc[:, None]
    k = M
    if lay.position:
        grad[:, k] = gd.sum(axis=(1, 2))
        k += 1
    if lay.davidson:
        grad[:, k] = gdel.sum(axis=(1, 2))
    grad[:, :M][~active] = 0.0
    return grad


def _newton_step(H, grad):
    try:
        step = np.linalg.solve(H, grad[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        step = np.einsum("bij,bj->bi", np.linalg.pinv(H), grad)
    return np.where(np.isfinite(step), step, 0.0)


def _prep_counts(Wa, Wb, Tt):
    eye = np.eye(Wa.shape[1], dtype=bool)
    return tuple(np.where(eye, 0.0, x) for x in (Wa, Wb, Tt))


def bt_refit(Wa, Wb, Tt, beta0, H0, *, davidson=False, position=False, ridge=0.0, max_iter=60, tol=1e-9,
             Hinv=None):
    """Refit b bootstrap replicates from the point fit with the point fit's Hessian (chord Newton).

    Each iteration is ``β ← β − H₀⁻¹ ∇ℓ(β)``: one gradient per replicate and one matrix product
    for all of them (no per-replicate factorization). A replicate's Hessian differs from the point
    fit's by O(1/√N), so the iteration contracts fast at Arena size; its fixed point is where the
    replicate's gradient is 0, i.e. the replicate's own maximum-likelihood fit, as :func:`bt_fit`
    finds it. Replicates that have not converged after ``max_iter`` iterations (small data, a model
    that won every battle of the replicate) are refitted by :func:`bt_fit` from scratch.

    Parameters
    ----------
    Wa, Wb, Tt : numpy.ndarray
        ``(b, M, M)`` counts, as for :func:`bt_fit`.
    beta0 : numpy.ndarray
        ``(P,)`` parameters of the point fit (θ, then h, then log ν).
    H0 : numpy.ndarray
        ``(P, P)`` Hessian of the penalized objective at the point fit.
    Hinv : numpy.ndarray, optional
        Its inverse, when the caller keeps it between calls.
    davidson, position : bool
    ridge : float
    max_iter : int
    tol : float

    Returns
    -------
    theta, h, delta, ok
        As :func:`bt_fit`.
    """
    b, M, _ = Wa.shape
    Wa, Wb, Tt = _prep_counts(Wa, Wb, Tt)
    lay = _Layout(b, M, position, davidson)
    games = (Wa + Wb + Tt).sum(axis=2) + (Wa + Wb + Tt).sum(axis=1)
    active = games > 0
    Hinv = np.linalg.inv(H0) if Hinv is None else Hinv
    beta = np.repeat(np.asarray(beta0, dtype=float)[None, :], b, axis=0)
    done = np.zeros(b, dtype=bool)
    plain = not (davidson or position)
    if plain:                                   # the gradient needs only points s and games n per pair
        S_, N_ = Wa + 0.5 * Tt, Wa + Wb + Tt
    todo = np.arange(b)
    sub = None
    for _ in range(max_iter):
        left = np.flatnonzero(~done)
        if not len(left):
            break
        if sub is None or len(left) < len(todo):
            todo = left
            sub = (S_[todo], N_[todo]) if plain else (Wa[todo], Wb[todo], Tt[todo])
            act = active[todo]
        if plain:
            theta = beta[todo, :M]
            r = sub[0] - sub[1] * expit(theta[:, :, None] - theta[:, None, :])
            grad = r.sum(axis=2) - r.sum(axis=1) - ridge * theta - act * np.where(act, theta, 0.0).sum(axis=1)[:, None]
            grad[~act] = 0.0
        else:
            lay_t = _Layout(len(todo), M, position, davidson)
            grad = _gradient(beta[todo], lay_t, *sub, act, ridge)
        step = grad @ Hinv.T
        step = np.where(np.isfinite(step), step, np.inf)
        beta[todo] = beta[todo] - step
        size = np.abs(step).max(axis=1)
        done[todo[size < tol]] = True
    bad = ~done | ~np.isfinite(beta).all(axis=1) | (np.abs(beta) > 30).any(axis=1)
    theta, h, delta = lay.unpack(beta)
    theta, h, delta = theta.copy(), h.copy(), delta.copy()
    ok = ~bad
    if bad.any():
        i = np.flatnonzero(bad)
        t2, h2, d2, ok2 = bt_fit(Wa[i], Wb[i], Tt[i], davidson=davidson, position=position, ridge=ridge)
        theta[i], ok[i] = t2, ok2
        if position:
            h[i] = h2
        if davidson:
            delta[i] = d2
    theta = np.where(active, theta, np.nan)
    theta = theta - np.nanmean(theta, axis=1, keepdims=True)
    return theta, h, delta, ok


def bt_fit(Wa, Wb, Tt, *, davidson=False, position=False, ridge=0.0, max_iter=200, tol=1e-9, full=False):
    """Batched (penalized) ML fit of b replicates at once.

    Parameters
    ----------
    Wa, Wb, Tt : numpy.ndarray
        ``(b, M, M)`` counts of ordered pairs (row shown first): first won, second won, tie.
    davidson, position : bool
        Fit Davidson's tie parameter, the first-position effect.
    ridge : float
        Penalty ``ridge/2 · Σ θ²``.
    max_iter, tol : int, float
        Newton iterations and the step size that counts as converged.
    full : bool
        Also return the parameters β and the Hessian at the optimum (for :func:`bt_refit`).

    Returns
    -------
    theta : numpy.ndarray
        ``(b, M)`` strengths with mean 0 over the models with battles (NaN for the others).
    h, delta : numpy.ndarray
        ``(b,)`` position effect and log ν.
    ok : numpy.ndarray
        ``(b,)`` converged to a finite optimum.
    """
    b, M, _ = Wa.shape
    eye = np.eye(M, dtype=bool)
    Wa, Wb, Tt = (np.where(eye, 0.0, x) for x in (Wa, Wb, Tt))
    lay = _Layout(b, M, position, davidson)
    beta = np.zeros((b, lay.P))
    if davidson:
        tt = Tt.sum(axis=(1, 2))
        dd = (Wa + Wb).sum(axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            beta[:, -1] = np.where((tt > 0) & (dd > 0), np.log(np.maximum(tt, 1e-9) / np.maximum(dd, 1e-9) * 2), -3.0)
    games = (Wa + Wb + Tt).sum(axis=2) + (Wa + Wb + Tt).sum(axis=1)
    active = games > 0                                  # (b, M): models with a battle
    obj = _objective(beta, lay, Wa, Wb, Tt, active, ridge)
    converged = np.zeros(b, dtype=bool)
    for _ in range(max_iter):
        grad, H = _gradient_hessian(beta, lay, Wa, Wb, Tt, active, ridge)
        step = _newton_step(H, grad)
        t = np.ones(b)
        for _ in range(40):                             # halve the step until the objective does not drop
            cand = beta - t[:, None] * step
            objc = _objective(cand, lay, Wa, Wb, Tt, active, ridge)
            bad = ~(objc >= obj - 1e-10 * np.maximum(1.0, np.abs(obj)))
            if not bad.any():
                break
            t = np.where(bad, t / 2, t)
        beta = cand
        obj = np.where(np.isfinite(objc), objc, obj)
        converged = np.abs(t[:, None] * step).max(axis=1) < tol
        if converged.all():
            break
    theta, h, delta = lay.unpack(beta)
    theta = np.where(active, theta, np.nan)
    theta = theta - np.nanmean(theta, axis=1, keepdims=True)   # exactly mean 0 (the fit is, up to rounding)
    ok = converged & ~(np.abs(beta) > 30).any(axis=1)
    if full:
        return theta, h, delta, ok, beta, _gradient_hessian(beta, lay, Wa, Wb, Tt, active, ridge)[1]
    return theta, h, delta, ok


def pair_columns(df, models, rule_name, invalid, ties="half"):
    """Per row: (ordered pair index, column 0 = first won, 1 = second won, 2 = tie; −1 left out).

    ``a``/``b`` are model names, or already indices into ``models`` (a coded frame)."""
    if df["a"].dtype.kind in "iu":
        a, b = df["a"].to_numpy(), df["b"].to_numpy()
    else:
        mi = {m: i for i, m in enumerate(models)}
        a = df["a"].map(mi).to_numpy()
        b = df["b"].map(mi).to_numpy()
    col = lookup_rule(rule_name).model_columns()[df["code"].to_numpy()]
    if ties == "drop":
        col = np.where(col == 2, -1, col)
    return a * len(models) + b, col


#: From this many models on, bootstrap replicates are refitted from the point fit by :func:`bt_refit`
#: (below, each replicate is fitted by Newton's method from zero, as before).
REFIT_MIN_MODELS = 30


def _bt_kernel(M, *, davidson, position, ridge, anchor_index, scale):
    point = {}

    def kern(S):
        C = np.asarray(S, dtype=float).reshape(-1, 3, M, M)
        if "beta" in point and M >= REFIT_MIN_MODELS:
            if "Hinv" not in point:
                point["Hinv"] = np.linalg.inv(point["H"])
            theta, h, delta, ok = bt_refit(C[:, 0], C[:, 1], C[:, 2], point["beta"], point["H"], davidson=davidson,
                                           position=position, ridge=ridge, Hinv=point["Hinv"])
        else:
            theta, h, delta, ok, beta, H = bt_fit(C[:, 0], C[:, 1], C[:, 2], davidson=davidson, position=position,
                                                  ridge=ridge, full=True)
            if len(C) == 1 and ok[0] and "beta" not in point:
                point.update(beta=beta[0], H=H[0])      # the point fit: where replicates start from
        if anchor_index is not None:
            theta = theta - theta[:, [anchor_index]]
        if scale == "elo":
            theta = ELO * theta + 1000.0
        cols = [theta]
        if position:
            cols.append(h[:, None])
        if davidson:
            cols.append(np.exp(delta)[:, None])
        out = np.concatenate(cols, axis=1)
        out[~ok] = np.nan
        return out
    return kern


def _check_bt_options(tie_rule, ties, scale, invalid, ridge):
    if tie_rule not in rules_for("models"):
        raise ValueError(f"tie_rule must be one of {rules_for('models')} for Bradley-Terry, got {tie_rule!r}")
    if ties not in ("half", "davidson", "drop"):
        raise ValueError(f"ties must be 'half', 'davidson' or 'drop', got {ties!r}")
    if scale not in ("logit", "elo"):
        raise ValueError(f"scale must be 'logit' or 'elo', got {scale!r}")
    if not ridge >= 0:
        raise ValueError(f"ridge must be a non-negative number, got {ridge!r}")
    check_policy(invalid, ("drop", "tie"))


def bradley_terry(battles: pd.DataFrame, *, tie_rule: str = "fdt", ties: str = "half", position_effect: bool = False,
                  scale: str = "logit", anchor: str | None = None, invalid: str = "drop", judge: str | None = None,
                  ridge: float = 0.0, cluster: str | Sequence | None = "item_id", item: str = "item_id", model_a: str = "model_a",
                  model_b: str = "model_b", outcome: str = "outcome", ci_method: str | None = MODEL_CI_METHOD,
                  n_resamples: int = MODEL_N_RESAMPLES, confidence_level: float = 0.95, rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Bradley–Terry strengths by maximum likelihood, with bootstrap intervals (items resampled).

    P(i beats j) = σ(θ_i − θ_j [+ h if i is shown first]); with Davidson (1970) ties,
    P(i) ∝ π_i, P(j) ∝ π_j, P(tie) ∝ ν √(π_i π_j) with π = exp θ. The strengths have mean 0
    (identified symmetrically, before any penalty: see :mod:`metaeval.pairwise.bradley_terry`), so
    they do not depend on how the models are named.

    Parameters
    ----------
    battles : pandas.DataFrame
        ``item_id, model_a, model_b, outcome``; with a ``judge`` column, one fit per rater.
    tie_rule : {"fdt", "without_ties", "tie_half"}
        Which outcomes are ties: ``fdt`` (leaning ties go to their side, plain ties are ties),
        ``without_ties`` (every tie is left out), ``tie_half`` (every tie, leaning or not, is a tie).
    ties : {"half", "davidson", "drop"}
        A tie as half a win for each side (the logistic likelihood with fractional outcomes, as
        Chatbot Arena does), Davidson's tie parameter ν (reported as ``tie_parameter``), or left out.
    position_effect : bool
        Fit the first-position advantage h (reported as ``position_effect``, logit scale).
    scale : {"logit", "elo"}
        θ on the logit scale, or 400·θ/ln 10 + 1000 (Elo points, as Chatbot Arena).
    anchor : str, optional
        Report θ relative to this model (0, or 1000 Elo): a shift after the fit. Default: mean 0.
    invalid : {"drop", "tie"}
        What a parse failure counts as.
    judge : str, optional
        Keep only the rows of this rater.
    ridge : float
        Penalty ridge/2 · Σ θ² on the mean-zero strengths (a Gaussian prior of variance 1/ridge;
        choix's ``alpha`` is ridge/2). A model that won or lost every battle has no finite MLE:
        such estimates (and replicates) are NaN unless ``ridge > 0``.
    cluster : str or array-like or None
        Resampled units (default the item column); None resamples battles.
    item, model_a, model_b, outcome : str
        Column names.
    ci_method : {"percentile", "bca", "basic"} or None
        Default ``"percentile"`` (the model is refitted on every replicate; see
        :mod:`metaeval.pairwise._results`); None for the fit alone.
    n_resamples : int
        Default 1000.
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        ``statistic = "bt_strength"`` per ``model``, plus ``position_effect`` / ``tie_parameter``;
        the number of battles per rater in ``.info``.

    References
    ----------
    choix 0.4.1 (Maystre): its own test cases — ``opt_pairwise`` on the ``8-random`` data with
    ``alpha=0.5`` (first strength −0.51974) and ``testcase-pairwise-2`` (ML 0.41962, −0.41962, 0) —
    and values it generates on ``battles_like`` (``tests/reference/choix_values.json``); a
    statsmodels binomial GLM on ±1 model indicators; scipy.optimize on the Davidson likelihood
    (``tests/test_pairwise_bradley_terry.py``, ``tests/test_pairwise.py``); evalica 0.4.2's
    ``bradley_terry`` (ties as half a win; ``tests/test_arena_scale.py``, and on 10M battles ×
    200 models in ``benchmarks/bench_arena.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> r = metaeval.bradley_terry(b[b.judge == "human"], ci_method=None)
    >>> s = r.to_frame().set_index("model").estimate
    >>> round(float(s["gpt-4o+dalle-3"]), 3), bool(abs(s.sum()) < 1e-12)
    (1.3, True)
    >>> r = metaeval.bradley_terry(b[b.judge == "human"], n_resamples=100, rng=0)
    >>> e = r.get(model="gpt-4o+dalle-3")
    >>> e.ci.method, e.ci.low < e.estimate < e.ci.high
    ('percentile', True)
    """
    need_frame(battles)
    _check_bt_options(tie_rule, ties, scale, invalid, ridge)
    davidson = ties == "davidson"
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    out = PairwiseResult(name="bradley_terry")
    out.info = {}
    for jname, sub in by_judge(battles, judge):
        df, nm, names, _ = prepare_codes(sub, item=item, model_a=model_a, model_b=model_b, outcome=outcome,
                                         cluster=cluster, need_item=False)
        warn_missing(nm, "battle")
        if cluster is None:                         # (model_a, model_b, outcome) cells with counts; with
            df = aggregate(df)                      # prompt clusters cells are about as many as rows
        df, n_inv = invalid_cells(drop_self_battles(df), invalid)
        df, models = present_models(df, names)
        M = len(models)
        if M < 2:
            raise InputError("Bradley-Terry needs at least two models")
        if anchor is not None and anchor not in models:
            raise InputError(f"anchor {anchor!r} is not among the models", expected=f"one of {models}")
        pair, col = pair_columns(df, models, tie_rule, invalid, ties)
        ok = np.flatnonzero(col >= 0)
        u = cell_units(df, ok, col[ok] * M * M + pair[ok], np.ones(len(ok)), 3 * M * M, cluster)
        kern = _bt_kernel(M, davidson=davidson, position=position_effect, ridge=ridge, scale=scale,
                          anchor_index=models.index(anchor) if anchor is not None else None)
        res = rs.run(kern, u)
        if not np.isfinite(res.theta_hat).all():
            warnings.warn("the Bradley-Terry fit did not converge (a model won or lost every battle?): NaN "
                          "strengths; pass ridge= for a penalized fit", UndefinedStatisticWarning, stacklevel=_user_stacklevel())
        games = u.total().reshape(3, M, M).sum(axis=0)
        jkey = {"judge": jname} if jname is not None else {}
        for i, mname in enumerate(models):
            n_i = games[i].sum() + games[:, i].sum()
            out.append_with(estimate("bt_strength", res, i, n_i), {"scale": scale}, **jkey, model=mname)
        k = M
        if position_effect:
            out.append_with(estimate("position_effect", res, k, games.sum()), {"scale": "logit"}, **jkey,
                            model="(first position)")
            k += 1
        if davidson:
            out.append_with(estimate("tie_parameter", res, k, games.sum()), {"scale": "nu"}, **jkey, model="(ties)")
        out.info[jname] = {"n_battles": int(games.sum()), "n_invalid": n_inv}
    out.invalid = {"policy": invalid}
    return out
