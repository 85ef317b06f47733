"""Rank correlation between two raters' rankings of the models (Bradley–Terry strengths or win rates).

Both rankings come from the same bootstrap draw: the reference's and the candidate's battles of
one item (or cluster) are resampled together, so the interval reflects which items were sampled,
not two independent draws. (For system rankings under two sets of relevance labels see
:func:`metaeval.rank_correlation`.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ..core.errors import InputError
from ._prepare import apply_baseline, check_policy, drop_or_tie_invalid, orient, prepare, units, warn_missing
from ._results import (
    MODEL_CI_METHOD,
    MODEL_N_RESAMPLES,
    PairwiseResult,
    Resampler,
    estimate,
)
from .bradley_terry import bt_fit, pair_columns
from .outcomes import rules_for
from .winrates import perspective_rows, rate_kernel, rule_weights

__all__ = ["model_rank_correlation", "ranking_correlation"]


def kendall_b(x, y):
    """Kendall's τ_b between the rows of x and y, (b, M) each."""
    iu = np.triu_indices(x.shape[1], 1)
    sx = np.sign(x[:, :, None] - x[:, None, :])[:, iu[0], iu[1]]
    sy = np.sign(y[:, :, None] - y[:, None, :])[:, iu[0], iu[1]]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sx * sy).sum(axis=1) / np.sqrt((sx**2).sum(axis=1) * (sy**2).sum(axis=1))


def spearman(x, y):
    """Spearman's ρ between the rows of x and y, (b, M) each (average ranks for ties)."""
    rx = rankdata(x, axis=1)
    ry = rankdata(y, axis=1)
    rx = rx - rx.mean(axis=1, keepdims=True)
    ry = ry - ry.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=1) / np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))


def _frames(reference, candidate, invalid, cluster, cols):
    frames = []
    for name, d in (("reference", reference), ("candidate", candidate)):
        f, n_miss = prepare(d, what=name, cluster=cluster, **cols)
        warn_missing(n_miss, name)
        f, _ = drop_or_tie_invalid(apply_baseline(f, None), invalid, name)
        frames.append(f)
    shared = [set(f["a"]) | set(f["b"]) for f in frames]
    models = sorted(shared[0] & shared[1])
    if len(models) < 3:
        raise InputError(f"a ranking correlation needs at least 3 models in both frames, got {len(models)}")
    frames = [f[f["a"].isin(models) & f["b"].isin(models)].reset_index(drop=True) for f in frames]
    return frames, models


def _unit_ids(frames, cluster):
    if cluster is None:
        ids = []
        for f in frames:
            lo, hi, _, _ = orient(f)
            ids.append(pd.Series(f["item"].to_numpy() + "\x1f" + lo + "\x1f" + hi))
        allc = pd.concat(ids)
    else:
        allc = pd.concat([f["cl"] for f in frames])
    _, uid = np.unique(allc.to_numpy(), return_inverse=True)
    uid = uid.ravel()
    n0 = len(frames[0])
    return [uid[:n0], uid[n0:]], int(uid.max()) + 1, ("clusters" if cluster is not None else "items")


def _bt_scores(M):
    def scores(S):
        C = np.asarray(S, dtype=float).reshape(-1, 3, M, M)
        th, _, _, ok = bt_fit(C[:, 0], C[:, 1], C[:, 2])
        th[~ok] = np.nan
        return th
    return scores


def _triples(frames, uids, models, method, tie_rule, invalid):
    """(unit, column, value) triples of both frames' sufficient statistics, side by side, and D1."""
    M = len(models)
    D1 = 3 * M * M if method == "bradley_terry" else 6 * M
    trip_u, trip_c, trip_v = [], [], []
    for s, (f, uid) in enumerate(zip(frames, uids)):
        if method == "bradley_terry":
            pair, col = pair_columns(f, models, tie_rule, invalid)
            ok = col >= 0
            trip_u.append(uid[ok])
            trip_c.append(s * D1 + col[ok] * M * M + pair[ok])
            trip_v.append(np.ones(int(ok.sum())))
        else:
            rows, mods, cats, _ = perspective_rows(f, models, None, invalid, False)
            trip_u.append(uid[rows])
            trip_c.append(s * D1 + mods * 6 + cats)
            trip_v.append(np.ones(len(rows)))
    return np.concatenate(trip_u), np.concatenate(trip_c), np.concatenate(trip_v), D1


def _correlation_kernel(scores, D1):
    def kern(S):
        S = np.asarray(S, dtype=float)
        x, y = scores(S[:, :D1]), scores(S[:, D1:])            # x = reference, y = candidate
        return np.stack([kendall_b(x, y), spearman(x, y)], axis=1)
    return kern


def model_rank_correlation(reference: pd.DataFrame, candidate: pd.DataFrame, *, method: str = "bradley_terry",
                           tie_rule: str = "fdt", invalid: str = "drop", cluster: str | None = "item_id",
                           item: str = "item_id", model_a: str = "model_a", model_b: str = "model_b",
                           outcome: str = "outcome", ci_method: str | None = MODEL_CI_METHOD,
                           n_resamples: int = MODEL_N_RESAMPLES, confidence_level: float = 0.95,
                           rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Kendall's τ_b and Spearman's ρ between a reference's and a candidate's rankings of the models.

    Parameters
    ----------
    reference : pandas.DataFrame
        Battles of the reference rater (human).
    candidate : pandas.DataFrame
        Battles of the judge.
    method : {"bradley_terry", "win_rate"}
        Rank the models by Bradley–Terry strengths (ties as half wins, under ``tie_rule`` ``fdt``,
        ``without_ties`` or ``tie_half``) or by their win rate (under any of the four tie rules).
    tie_rule : str
    invalid : {"drop", "tie"}
    cluster : str or None
        A column of both frames whose values are resampled (default ``item_id``); None resamples
        battles.
    item, model_a, model_b, outcome : str
        Column names (of both frames).
    ci_method : {"percentile", "bca", "basic"} or None
        Default ``"percentile"`` (Bradley–Terry is refitted per replicate); None for the point
        estimates only.
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        ``kendall_tau_b`` and ``spearman_rho`` (symmetric in the two raters); the point scores in
        ``.info["scores"]`` (columns ``model``, ``reference``, ``candidate``).

    References
    ----------
    scipy.stats ``kendalltau`` (τ_b) and ``spearmanr`` on the point scores
    (``tests/test_pairwise.py``); ``data_samples/README.md`` §4 (judge vs human Spearman 0.976 with
    ties dropped).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> human = b[b.judge == "human"]
    >>> judge = b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]
    >>> r = metaeval.model_rank_correlation(human, judge, ci_method=None)
    >>> round(r.get(statistic="spearman_rho").estimate, 3)
    0.976
    """
    if method not in ("bradley_terry", "win_rate"):
        raise ValueError(f"method must be 'bradley_terry' or 'win_rate', got {method!r}")
    allowed = rules_for("models" if method == "bradley_terry" else "win_rate")
    if tie_rule not in allowed:
        raise ValueError(f"tie_rule must be one of {allowed} with method={method!r}, got {tie_rule!r}")
    check_policy(invalid, ("drop", "tie"))
    if cluster is not None and not isinstance(cluster, str):
        raise InputError("cluster= must be a column name (of both frames) or None")
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    cols = dict(item=item, model_a=model_a, model_b=model_b, outcome=outcome)
    frames, models = _frames(reference, candidate, invalid, cluster, cols)
    M = len(models)
    uids, n_units, kind = _unit_ids(frames, cluster)
    tu, tc, tv, D1 = _triples(frames, uids, models, method, tie_rule, invalid)
    u = units(tu, tc, tv, 2 * D1, kind, n_units=n_units)
    scores = _bt_scores(M) if method == "bradley_terry" else rate_kernel(M, rule_weights([tie_rule]))
    res = rs.run(_correlation_kernel(scores, D1), u, bounds=(-1.0, 1.0))
    out = PairwiseResult(name="model_rank_correlation")
    for j, s in enumerate(("kendall_tau_b", "spearman_rho")):
        out.append_with(estimate(s, res, j, M), {"n_models": M}, method=method, tie_rule=tie_rule)
    tot = u.total()[None, :]
    out.info = {"scores": pd.DataFrame({"model": models, "reference": scores(tot[:, :D1])[0],
                                        "candidate": scores(tot[:, D1:])[0]})}
    return out


def ranking_correlation(judge: pd.DataFrame, human: pd.DataFrame, **kwargs) -> PairwiseResult:
    """Deprecated: :func:`metaeval.model_rank_correlation` with the arguments in (reference, candidate) order.

    Kept with its old argument order (judge first, human second), so old calls keep their meaning;
    it warns with a FutureWarning. ``.info["scores"]`` keeps its old ``human``/``judge`` columns.

    Parameters
    ----------
    judge : pandas.DataFrame
        Battles of the judge (the candidate).
    human : pandas.DataFrame
        Battles of the humans (the reference).
    **kwargs
        As for :func:`metaeval.model_rank_correlation`.

    Returns
    -------
    PairwiseResult

    Examples
    --------
    >>> import warnings, metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> h, j = b[b.judge == "human"], b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     r = metaeval.ranking_correlation(j, h, ci_method=None)
    >>> round(r.get(statistic="spearman_rho").estimate, 3)
    0.976
    """
    warnings.warn("ranking_correlation(judge, human) is renamed model_rank_correlation(reference, candidate) "
                  "(note the order: the human side first)", FutureWarning, stacklevel=2)
    out = model_rank_correlation(human, judge, **kwargs)
    out.info["scores"] = out.info["scores"].rename(columns={"reference": "human", "candidate": "judge"})
    return out
