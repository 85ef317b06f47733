"""Length-controlled win rate (Dubois et al. 2024): the predicted win rate when both answers have the same length.

:func:`length_controlled_win_rate` runs these steps:

1. :func:`_target_battles` — one rater's battles with the target y (the first-shown side's score:
   a soft preference, or the tie rule's A = 1, tie = ½, B = 0) and both answer lengths;
2. :func:`_resampling_units` — items (or battles) as weights: the GLM is refitted on every
   replicate with the replicate's unit weights;
3. with a baseline (AlpacaEval), per model: :func:`_versus_baseline` (the evaluated side, its
   target and length difference), :func:`_instruction_difficulty` (d_x, optional),
   :func:`_baseline_designs` (θ_m + φ_m tanh(Δ/sd) [+ γ_m d_x]) and :func:`_baseline_kernel`;
4. without a baseline: one Bradley–Terry model with a shared length term,
   :func:`_shared_length_design` and :func:`_shared_length_kernel`.

Each kernel returns the controlled win rate (length term set to zero) of every model for a batch
of replicate weights; :func:`_logit_fit` is a weighted logistic regression with soft labels,
batched over replicates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.resample import Units
from ._prepare import apply_baseline, by_judge, check_policy, drop_or_tie_invalid, need_frame, prepare, warn_missing
from ._results import (
    MODEL_CI_METHOD,
    MODEL_N_RESAMPLES,
    PairwiseResult,
    Resampler,
    estimate,
)
from .outcomes import rules_for
from .outcomes import tie_rule as lookup_rule

__all__ = ["length_controlled_win_rate"]

#: The GLM resamples an identity matrix of units: at most this many.
MAX_WEIGHT_UNITS = 6000


def _logit_fit(X, y, w, *, max_iter=100, tol=1e-10, ridge=0.0):
    """Batched weighted logistic regression with soft labels: X (n, P), y (n,), w (b, n) -> beta (b, P)."""
    b = w.shape[0]
    P = X.shape[1]
    beta = np.zeros((b, P))
    eye = np.eye(P)[None]

    def ll_of(beta):
        eta = beta @ X.T
        return (w * (y * eta - np.logaddexp(0.0, eta))).sum(axis=1) - 0.5 * ridge * (beta**2).sum(axis=1)

    ll = ll_of(beta)
    conv = np.zeros(b, dtype=bool)
    for _ in range(max_iter):
        eta = beta @ X.T
        p = 1.0 / (1.0 + np.exp(-eta))
        g = (w * (y - p)) @ X - ridge * beta
        H = -np.einsum("bn,ni,nj->bij", w * p * (1 - p), X, X) - (ridge + 1e-12) * eye
        try:
            step = np.linalg.solve(H, g[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            step = np.einsum("bij,bj->bi", np.linalg.pinv(H), g)
        t = np.ones(b)
        for _ in range(40):
            cand = beta - t[:, None] * step
            llc = ll_of(cand)
            bad = ~(llc >= ll - 1e-10 * np.maximum(1.0, np.abs(ll)))
            if not bad.any():
                break
            t = np.where(bad, t / 2, t)
        beta = cand
        ll = llc
        conv = np.abs(t[:, None] * step).max(axis=1) < tol
        if conv.all():
            break
    beta[~conv & (np.abs(beta) > 25).any(axis=1)] = np.nan
    return beta


def _fit_difficulty(y, f, model_idx, item_idx, n_models, n_items, ridge=1e-4):
    """Joint fit logit = θ_m + φ_m f + d_x (Σ d = 0); returns d (n_items,)."""
    from scipy.optimize import minimize

    def fun(p):
        th, ph, d = p[:n_models], p[n_models:2 * n_models], p[2 * n_models:]
        eta = th[model_idx] + ph[model_idx] * f + d[item_idx]
        pr = 1.0 / (1.0 + np.exp(-eta))
        nll = -(y * eta - np.logaddexp(0.0, eta)).sum() + 0.5 * ridge * (d**2).sum()
        r = pr - y
        g = np.concatenate([np.bincount(model_idx, r, n_models), np.bincount(model_idx, r * f, n_models),
                            np.bincount(item_idx, r, n_items) + ridge * d])
        return nll, g

    x0 = np.zeros(2 * n_models + n_items)
    opt = minimize(fun, x0, jac=True, method="L-BFGS-B", options={"maxiter": 5000, "gtol": 1e-9})
    d = opt.x[2 * n_models:]
    return d - d.mean()


def _tanh_length(delta):
    """tanh(Δ / sd(Δ)) (sd with ddof 1; zeros when Δ does not vary), AlpacaEval's length feature."""
    sd = np.std(delta, ddof=1) if len(delta) > 1 else 0.0
    return np.tanh(delta / sd) if sd > 0 else np.zeros(len(delta))


# --------------------------------------------------------------------------------------------
# step 1-2: the battles and the units
# --------------------------------------------------------------------------------------------

def _target_battles(sub, *, baseline, length_a, length_b, preference, tie_rule, invalid, cluster, cols):
    """One rater's battles with ``y`` (first-shown side's score) and lengths ``la``, ``lb``."""
    for c in (length_a, length_b):
        if c not in sub.columns:
            raise InputError(f"no length column {c!r}", fix="pass length_a=, length_b= (answer lengths)")
    df, nm = prepare(sub, preference=preference, keep=[length_a, length_b], cluster=cluster, **cols)
    warn_missing(nm, "battle")
    df, _ = drop_or_tie_invalid(df, invalid)
    df = apply_baseline(df, baseline)
    if preference is not None:
        df["y"] = 2.0 - df["pref"].to_numpy()
    else:
        df["y"] = lookup_rule(tie_rule).model_target()[df["code"].to_numpy()]
    df["la"] = pd.to_numeric(df[length_a], errors="coerce").to_numpy(dtype=float)
    df["lb"] = pd.to_numeric(df[length_b], errors="coerce").to_numpy(dtype=float)
    bad = df["la"].isna() | df["lb"].isna() | df["y"].isna()
    return df[~bad].reset_index(drop=True)


def _resampling_units(df, cluster, ci_method):
    """(unit of each battle, Units of unit weights, number of units)."""
    if cluster is None:
        uid, kind = np.arange(len(df)), "items"
    else:
        uid, kind = pd.factorize(df["cl"])[0], "clusters"
    n_u = int(uid.max()) + 1
    if ci_method is None:                              # one summed unit: every weight is 1
        return uid, Units(np.ones((1, n_u)), np.ones(1, dtype=np.int64), kind=kind), n_u
    if n_u > MAX_WEIGHT_UNITS:
        raise InputError(f"{n_u} resampling units: the length-controlled GLM is refitted on item weights, "
                         f"which supports up to {MAX_WEIGHT_UNITS} units",
                         fix="cluster on a coarser column, subsample items, or pass ci_method=None")
    return uid, Units(np.eye(n_u), np.ones(n_u, dtype=np.int64), kind=kind), n_u


# --------------------------------------------------------------------------------------------
# step 3: against a baseline, one GLM per model
# --------------------------------------------------------------------------------------------

def _versus_baseline(df, baseline):
    """The evaluated model of each battle, its target and its length minus the baseline's."""
    eval_is_b = (df["a"] == baseline).to_numpy()
    mod = np.where(eval_is_b, df["b"], df["a"])
    y = np.where(eval_is_b, 1.0 - df["y"], df["y"])
    delta = np.where(eval_is_b, df["lb"] - df["la"], df["la"] - df["lb"])
    return mod, y, delta


def _shared_instructions(df, mod, baseline) -> bool:
    """Whether at least two models other than the baseline answer some instruction in common."""
    other = mod != baseline
    per_item = pd.Series(mod[other]).groupby(df["item"].to_numpy()[other]).nunique()
    return bool(len(per_item)) and bool((per_item >= 2).any())


def _instruction_difficulty(spec, df, mod, y, delta, models, baseline):
    """d_x per battle: None, fitted on all models jointly ("fit"), or looked up in a mapping."""
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec != "fit":
            raise ValueError("instruction_difficulty must be None, 'fit' or a mapping item -> value")
        items_u, item_idx = np.unique(df["item"].to_numpy(), return_inverse=True)
        item_idx = item_idx.ravel()
        mi = {m: i for i, m in enumerate(models)}
        midx = np.array([mi[m] for m in mod])
        fz = np.zeros(len(df))
        for m in models:
            s = midx == mi[m]
            fz[s] = _tanh_length(delta[s])
        notself = mod != baseline
        d_items = _fit_difficulty(y[notself], fz[notself], midx[notself], item_idx[notself], len(models), len(items_u))
        return d_items[item_idx]
    mp = pd.Series(spec)
    mp.index = mp.index.astype(str)
    d_x = df["item"].map(mp).to_numpy(dtype=float)
    if np.isnan(d_x).any():
        raise InputError(f"instruction_difficulty has no value for {int(np.isnan(d_x).sum())} battle(s)")
    return d_x


def _baseline_designs(models, mod, delta, d_x, baseline):
    """Per model: (name, its battles, design matrix [1, tanh(Δ/sd), d_x]) — None for the baseline."""
    fits = []
    for m in models:
        s = mod == m
        if m == baseline:
            fits.append((m, s, None))
            continue
        X = np.column_stack([np.ones(int(s.sum())), _tanh_length(delta[s])] + ([d_x[s]] if d_x is not None else []))
        fits.append((m, s, X))
    return fits


def _baseline_kernel(fits, y, uid):
    """Replicate weights → per model (controlled win rate, raw win rate)."""
    def kern(S):
        Wt = np.asarray(S, dtype=float)
        cols = []
        for _, s, X in fits:
            w = Wt[:, uid[s]]
            if X is None:                              # the baseline against itself: ½ by construction
                cols += [np.full(len(Wt), 0.5), np.full(len(Wt), 0.5)]
                continue
            beta = _logit_fit(X, y[s], w)
            eta0 = beta[:, [0]] + (beta[:, [2]] * X[None, :, 2] if X.shape[1] > 2 else 0.0)
            lc = (w / (1.0 + np.exp(-eta0))).sum(axis=1) / w.sum(axis=1)
            raw = (w * y[s]).sum(axis=1) / w.sum(axis=1)
            cols += [lc, raw]
        return np.stack(cols, axis=1)
    return kern


def _baseline_rows(out, res, fits, y, jkey, baseline):
    for i, (m, s, X) in enumerate(fits):
        extra = {"raw_win_rate": float(res.theta_hat[2 * i + 1]), "n_battles": int(s.sum())}
        if X is not None:
            beta = _logit_fit(X, y[s], np.ones((1, int(s.sum()))))[0]
            extra.update({"coef_model": float(beta[0]), "coef_length": float(beta[1])})
            if X.shape[1] > 2:
                extra["coef_difficulty"] = float(beta[2])
        out.append_with(estimate("length_controlled_win_rate", res, 2 * i, s.sum()), extra, **jkey, model=m,
                        baseline=baseline)


# --------------------------------------------------------------------------------------------
# step 4: without a baseline, Bradley–Terry with a shared length term
# --------------------------------------------------------------------------------------------

def _shared_length_design(df):
    """(models, a, b, X = [±1 model indicators without the first model, tanh(Δ/sd)], y)."""
    models = sorted(set(df["a"]) | set(df["b"]))
    mi = {m: i for i, m in enumerate(models)}
    a = df["a"].map(mi).to_numpy()
    b = df["b"].map(mi).to_numpy()
    n = len(df)
    Xm = np.zeros((n, len(models)))
    Xm[np.arange(n), a] += 1
    Xm[np.arange(n), b] -= 1
    X = np.column_stack([Xm[:, 1:], _tanh_length((df["la"] - df["lb"]).to_numpy())])
    return models, a, b, X, df["y"].to_numpy()


def _shared_length_kernel(X, y, uid, a, b, M):
    """Replicate weights → (controlled win rate of each model, the length coefficient)."""
    def kern(S):
        w = np.asarray(S, dtype=float)[:, uid]
        beta = _logit_fit(X, y, w)
        theta = np.concatenate([np.zeros((len(w), 1)), beta[:, :M - 1]], axis=1)
        pa = 1.0 / (1.0 + np.exp(-(theta[:, a] - theta[:, b])))       # length term zeroed
        num = np.zeros((len(w), M))
        den = np.zeros((len(w), M))
        for mm in range(M):
            sa, sb = a == mm, b == mm
            num[:, mm] = (w[:, sa] * pa[:, sa]).sum(axis=1) + (w[:, sb] * (1 - pa[:, sb])).sum(axis=1)
            den[:, mm] = w[:, sa].sum(axis=1) + w[:, sb].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            lc = num / den
        return np.concatenate([lc, beta[:, [M - 1]]], axis=1)
    return kern


def _shared_length_rows(out, res, models, a, b, y, jkey):
    M = len(models)
    for i, m in enumerate(models):
        s = (a == i) | (b == i)
        raw = (np.where(a[s] == i, y[s], 1 - y[s])).mean()
        out.append_with(estimate("length_controlled_win_rate", res, i, s.sum()),
                        {"raw_win_rate": float(raw), "n_battles": int(s.sum())}, **jkey, model=m)
    out.append_with(estimate("length_coefficient", res, M, len(y)), {"n_battles": len(y)}, **jkey, model="(length)")


def length_controlled_win_rate(battles: pd.DataFrame, *, baseline: str | None = None, length_a: str = "length_a",
                               length_b: str = "length_b", preference: str | None = None, tie_rule: str = "tie_half",
                               instruction_difficulty: str | Mapping | None = "auto", invalid: str = "drop", judge: str | None = None,
                               cluster: str | Sequence | None = "item_id", item: str = "item_id", model_a: str = "model_a",
                               model_b: str = "model_b", outcome: str = "outcome",
                               ci_method: str | None = MODEL_CI_METHOD, n_resamples: int = MODEL_N_RESAMPLES,
                               confidence_level: float = 0.95, rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Length-controlled win rate: the predicted win rate when both answers have the same length.

    In the spirit of AlpacaEval's length-controlled GLM (Dubois et al. 2024, arXiv:2404.04475):

    * with a ``baseline`` (AlpacaEval): for each model m, a logistic regression of the (soft)
      preference for m over the baseline on θ_m + φ_m tanh(Δ/sd(Δ)) [+ γ_m d_x], with Δ the
      length of m's answer minus the baseline's and sd(Δ) its standard deviation over m's battles
      (no centring, as AlpacaEval); the controlled win rate is the mean over m's instructions of
      σ(θ_m + γ_m d_x) (the length term set to zero).
    * without a baseline: one Bradley–Terry model with a shared length term, logit P(A wins) =
      θ_a − θ_b + φ tanh(Δ/sd(Δ)); a model's controlled win rate is the mean over its battles of
      σ(θ_m − θ_opponent).

    Parameters
    ----------
    battles : pandas.DataFrame
        ``item_id, model_a, model_b, outcome`` (or a preference column) and the two length columns.
    baseline : str, optional
        The model every other model is compared with (AlpacaEval's reference model).
    length_a, length_b : str
        Columns with the answer lengths (characters or tokens) of the first and second model.
    preference : str, optional
        Column of soft preferences in [1, 2] (AlpacaEval); otherwise outcomes under ``tie_rule``.
    tie_rule : {"tie_half", "fdt", "without_ties"}
        The target from outcomes (:meth:`metaeval.pairwise.outcomes.TieRule.model_target`):
        ``tie_half`` every tie is ½; ``fdt`` leaning ties to their side, plain ties ½;
        ``without_ties`` ties left out.
    instruction_difficulty : "auto", None, "fit", or mapping item → float
        The per-instruction term d_x: absent (None); estimated here from all models jointly
        (``"fit"``: logit = θ_m + φ_m tanh(Δ/sd) + d_x, Σ d_x = 0, then held fixed); or given
        (AlpacaEval's ``instruction_difficulty.csv``). Only with a baseline. ``"auto"`` (default):
        ``"fit"`` with a baseline and at least two other models sharing an instruction (the
        method closest to AlpacaEval's, see Notes), otherwise None (a difficulty seen by one
        model only is not separable from its noise). ``.info["instruction_difficulty"]`` says
        which was used.
    invalid : {"drop", "tie"}
        What a parse failure counts as.
    judge : str, optional
        Keep only the rows of this rater.
    cluster : str or None
        Items resampled (the GLM is refitted on every replicate; d_x and sd(Δ) stay as estimated on
        the whole data). At most 6,000 units when resampling.
    item, model_a, model_b, outcome : str
        Column names.
    ci_method : {"percentile", "bca", "basic"} or None
        Default ``"percentile"`` (a refit per replicate); None for the fit alone.
    n_resamples : int
        Default 1000.
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        ``statistic = "length_controlled_win_rate"`` per ``model``, with the raw win rate under the
        same target (``raw_win_rate``) and the fitted coefficients in the extra columns; without a
        baseline also ``length_coefficient`` (``model = "(length)"``).

    Notes
    -----
    AlpacaEval 2.0 additionally (i) uses precomputed instruction difficulties fitted on its whole
    leaderboard, (ii) adds the annotations of two "gamed" versions of the baseline (verbose and
    concise prompts) with weight 0.2/2 and no model term, which anchors the length slope, and (iii)
    fits with an L1 penalty chosen by 5-fold cross-validation. Neither the difficulties nor the
    gamed-baseline annotations are in the released leaderboard files, so the published
    ``length_controlled_winrate`` is approximated, not reproduced. On the released AlpacaEval 2.0
    annotations (25 models against gpt4_1106_preview), the default (difficulties fitted here)
    comes within a median 1.0 point of the published LC win rates (alpaca-7b 8.0% against 5.9%
    published; worst gpt4_gamed, 13 points); without the difficulty term
    (``instruction_difficulty=None``, the earlier default) the gap is a median 8.4 points
    (alpaca-7b 19.8%), because the per-model GLM then lets the length slope absorb how hard the
    instructions a model answers at length are.

    References
    ----------
    statsmodels' binomial GLM with soft labels gives the same coefficients; a preference generated
    from the GLM with no model effect gives a controlled win rate of ½ exactly
    (``tests/test_pairwise.py``); AlpacaEval 2.0's published LC win rates within a median 1.0 point
    (``tests/test_pairwise_realdata.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> r = metaeval.length_controlled_win_rate(b[b.judge == "human"], ci_method=None)
    >>> f = r.to_frame().set_index("model")
    >>> round(float(f.loc["gpt-4o+dalle-3", "estimate"]), 3), round(float(f.loc["gpt-4o+dalle-3", "raw_win_rate"]), 3)
    (0.766, 0.775)
    """
    need_frame(battles)
    check_policy(invalid, ("drop", "tie"))
    if tie_rule not in rules_for("models"):
        raise ValueError(f"tie_rule must be one of {rules_for('models')} here, got {tie_rule!r}")
    if instruction_difficulty is not None and not isinstance(instruction_difficulty, (str, Mapping, pd.Series)):
        raise ValueError("instruction_difficulty must be 'auto', None, 'fit' or a mapping item -> value")
    if not (instruction_difficulty is None or isinstance(instruction_difficulty, str) and instruction_difficulty == "auto") \
            and baseline is None:
        raise ValueError("instruction_difficulty is used with a baseline only")
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    cols = dict(item=item, model_a=model_a, model_b=model_b, outcome=outcome)
    out = PairwiseResult(name="length_controlled_win_rate")
    out.info = {"instruction_difficulty": {}}
    for jname, sub in by_judge(battles, judge):
        df = _target_battles(sub, baseline=baseline, length_a=length_a, length_b=length_b, preference=preference,
                             tie_rule=tie_rule, invalid=invalid, cluster=cluster, cols=cols)
        uid, u, n_u = _resampling_units(df, cluster, ci_method)
        jkey = {"judge": jname} if jname is not None else {}
        if baseline is not None:
            mod, y, delta = _versus_baseline(df, baseline)
            models = sorted(set(mod))
            spec = instruction_difficulty
            if isinstance(spec, str) and spec == "auto":
                spec = "fit" if _shared_instructions(df, mod, baseline) else None
            out.info["instruction_difficulty"][jname] = spec if spec is None or isinstance(spec, str) else "given"
            d_x = _instruction_difficulty(spec, df, mod, y, delta, models, baseline)
            fits = _baseline_designs(models, mod, delta, d_x, baseline)
            res = rs.run(_baseline_kernel(fits, y, uid), u, n_units=n_u)
            _baseline_rows(out, res, fits, y, jkey, baseline)
        else:
            models, a, b, X, y = _shared_length_design(df)
            res = rs.run(_shared_length_kernel(X, y, uid, a, b, len(models)), u, n_units=n_u)
            _shared_length_rows(out, res, models, a, b, y, jkey)
    out.invalid = {"policy": invalid}
    return out
