"""Win rates of every model under each tie rule, overall and head to head, with item-bootstrap intervals.

The sufficient statistic of one resampling unit is, for each model (or ordered model pair), the
count of its outcomes seen from its side — decisive win W, tie leaning to it LW, plain tie T, tie
leaning away LL, decisive loss L — and its soft-preference points. A rule's win rate is
``(num · counts) / (den · counts)`` with the weights of :meth:`TieRule.win_weights`, so all rules
and models come from the same replicates.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ._prepare import (
    aggregate,
    by_judge,
    cell_units,
    check_policy,
    drop_self_battles,
    need_frame,
    prepare_codes,
    present_models,
    warn_invalid,
    warn_missing,
    weight,
)
from ._results import (
    DEFAULT_CI_METHOD,
    DEFAULT_N_RESAMPLES,
    PairwiseResult,
    Resampler,
    estimate,
)
from .outcomes import INV, TIE_RULES, T, select_rules
from .outcomes import tie_rule as lookup_rule

__all__ = ["win_rates", "head_to_head"]

#: A decisive loss, seen from one model (its category index).
L_CAT = 4
#: The plain-tie options of a per-model win rate under FDT.
WIN_PLAIN_TIE = ("zero", "half", "drop")


def rule_weights(rules, fdt_plain_tie="zero"):
    """Per rule: (numerator, denominator) weights of the W, LW, T, LL, L counts, or None for ``soft``."""
    return [None if lookup_rule(r).needs_preference else lookup_rule(r, plain_tie=fdt_plain_tie).win_weights()
            for r in rules]


def rate_kernel(n_slots, weights):
    """Kernel: (b, n_slots·6) counts (five categories + soft points per slot) → (b, rules·n_slots) rates."""
    def f(S):
        C = np.asarray(S, dtype=float).reshape(-1, n_slots, 6)
        counts, points = C[:, :, :5], C[:, :, 5]
        out = []
        with np.errstate(invalid="ignore", divide="ignore"):
            for w in weights:
                if w is None:
                    num, den = points, counts.sum(axis=2)
                else:
                    num, den = counts @ w[0], counts @ w[1]
                out.append(np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan))
        return np.concatenate(out, axis=1)
    return f


def rule_n(counts, w) -> float:
    """The denominator of a rule (the number of battles it counts) from a slot's counts."""
    return float(counts[:5].sum() if w is None else counts[:5] @ w[1])


def perspective_rows(df, models, baseline, invalid, soft):
    """Per row and side: (row, model index, category 0..4, soft points).

    ``a``/``b`` are model names, or already indices into ``models`` (a coded frame)."""
    code = df["code"].to_numpy().copy()
    is_inv = code == INV
    if invalid == "tie":
        code[is_inv] = T
    if df["a"].dtype.kind in "iu":
        a, b = df["a"].to_numpy(), df["b"].to_numpy()
        first_is_base = a == (models.index(baseline) if baseline in models else -1)
    else:
        mi = {m: i for i, m in enumerate(models)}
        a = df["a"].map(mi).to_numpy()
        b = df["b"].map(mi).to_numpy()
        first_is_base = df["a"].to_numpy() == baseline
    pref = df["pref"].to_numpy() if soft else np.full(len(df), np.nan)
    n = np.arange(len(df))
    loss = is_inv & (invalid == "loss")
    if baseline is None:
        cat_a = np.where(loss, L_CAT, code)
        cat_b = np.where(loss, L_CAT, 4 - np.minimum(code, 4))
        return (np.concatenate([n, n]), np.concatenate([a, b]), np.concatenate([cat_a, cat_b]).astype(np.int64),
                np.concatenate([2 - pref, pref - 1]))
    # the evaluated side is the one that is not the baseline (a self-battle of the baseline counts
    # from the second position, as AlpacaEval's generator_2)
    eval_is_b = first_is_base
    m = np.where(eval_is_b, b, a)
    cat = np.where(loss, L_CAT, np.where(eval_is_b, 4 - np.minimum(code, 4), code))
    return n, m, cat.astype(np.int64), np.where(eval_is_b, pref - 1, 2 - pref)


def _check_options(battles, invalid, fdt_plain_tie, ci_method):
    need_frame(battles)
    check_policy(invalid)
    if fdt_plain_tie not in WIN_PLAIN_TIE:
        raise ValueError(f"fdt_plain_tie must be one of {WIN_PLAIN_TIE}, got {fdt_plain_tie!r}")


def _rater_battles(sub, *, baseline, invalid, preference, cluster, cols):
    """One rater's battles as counted cells: against the baseline, parse failures handled.

    Returns ``(cells, n_invalid, n_missing, invalid per model, models)``; the cells' ``a``/``b``
    index ``models``.
    """
    df, n_missing, names, _ = prepare_codes(sub, preference=preference, cluster=cluster, need_item=False, **cols)
    warn_missing(n_missing, "battle")
    if cluster is None:                             # with prompt clusters, cells are about as many as rows
        df = aggregate(df)
    if baseline is None:
        df = drop_self_battles(df)
    else:
        bi = int(np.searchsorted(names, str(baseline)))
        bi = bi if bi < len(names) and names[bi] == str(baseline) else -1
        involved = ((df["a"] == bi) | (df["b"] == bi)).to_numpy()
        if not involved.any():
            present = np.unique(np.concatenate([df["a"].to_numpy(), df["b"].to_numpy()]))
            raise InputError(f"no battle involves the baseline {baseline!r}",
                             expected=f"a model among {[str(x) for x in names[present]][:10]}")
        df = df[involved].reset_index(drop=True)
    n = weight(df)
    inv = (df["code"] == INV).to_numpy()
    per = np.bincount(df["a"].to_numpy()[inv], weights=n[inv], minlength=len(names)) + np.bincount(
        df["b"].to_numpy()[inv], weights=n[inv], minlength=len(names))
    inv_by_model = pd.Series(per.round().astype(np.int64), index=[str(x) for x in names])
    n_inv = int(n[inv].sum())
    if invalid == "drop":
        df = df[~inv].reset_index(drop=True)
    warn_invalid(n_inv, invalid, "battle")
    if df.empty:
        raise InputError("no battles left to compute win rates from")
    df, models = present_models(df, names)
    return df, n_inv, n_missing, inv_by_model, models


def _slot_units(df, slot, rows, cats, pts, n_slots, cluster, soft):
    """Units whose statistic is, per slot (model or ordered pair), 5 category counts and soft points."""
    cols = np.concatenate([slot * 6 + cats, slot * 6 + 5])
    vals = np.concatenate([np.ones(len(rows)), np.nan_to_num(pts) if soft else np.zeros(len(rows))])
    return cell_units(df, np.concatenate([rows, rows]), cols, vals, n_slots * 6, cluster)


def _counts_extra(c):
    return {"n_battles": int(round(c[:5].sum())), "wins": int(c[0]), "lean_wins": int(c[1]), "ties": int(c[2]),
            "lean_losses": int(c[3]), "losses": int(c[4])}


def win_rates(battles: pd.DataFrame, *, tie_rule: str | list = "all", baseline: str | None = None,
              invalid: str = "drop", fdt_plain_tie: str = "zero", judge: str | None = None,
              preference: str | None = None, swap_rule: str | None = None, cluster: str | Sequence | None = "item_id",
              item: str = "item_id", model_a: str = "model_a", model_b: str = "model_b", outcome: str = "outcome",
              ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = DEFAULT_N_RESAMPLES,
              confidence_level: float = 0.95, rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Win rate of every model under OpenING's tie rules (and AlpacaEval's soft preference).

    Parameters
    ----------
    battles : pandas.DataFrame
        ``item_id, model_a, model_b, outcome`` (from :func:`metaeval.read_battles`), or a soft
        ``preference`` column. A ``judge`` column with several raters gives one set of rows per rater.
    tie_rule : {"all", "fdt", "without_ties", "tie_zero", "tie_half", "soft"} or list
        ``"all"``: the four OpenING rules side by side (and ``soft`` when ``preference`` is given).
        The rules are the table of :mod:`metaeval.pairwise.outcomes` (:func:`metaeval.tie_rule_table`).
    baseline : str, optional
        Win rate against this model only (battles not involving it are left out), as AlpacaEval
        reports it. Without a baseline, every battle counts for both of its models.
    invalid : {"drop", "tie", "loss"}
        What a parse failure or refusal counts as: left out, a plain tie, or a decisive loss (for
        both models; with a baseline, for the evaluated model). The count is reported in
        ``.invalid`` and in the ``n_invalid`` column.
    fdt_plain_tie : {"zero", "half", "drop"}
        A plain (non-leaning) tie under FDT: a battle nobody wins (OpenING's code), half a win, or
        left out.
    judge : str, optional
        Keep only the rows of this rater (``judge`` column).
    preference : str, optional
        Column of soft preferences in [1, 2]; the discrete outcome is ``B`` above 1.5, ``A`` below,
        a tie at 1.5 (AlpacaEval's wins, losses and draws), and the ``soft`` rule is the mean
        preference for the model (AlpacaEval's ``win_rate``).
    swap_rule : {None, "fastchat"}
        ``"fastchat"``: first combine each battle judged in both orders into one verdict with
        :func:`metaeval.combine_swaps` (an inconsistent pair counts as a tie).
    cluster : str or array-like or None
        Column (default ``item_id``) or ids whose units are resampled; None for iid battle rows.
    item, model_a, model_b, outcome : str
        Column names.
    ci_method : {"bca", "percentile", "basic"} or None
        Interval method; None for the point estimates only (no resampling).
    n_resamples : int
        Bootstrap replicates.
    confidence_level : float
        Interval level.
    rng : None, int or numpy.random.Generator
        Seed (reported on every estimate).

    Returns
    -------
    PairwiseResult
        One row per (judge,) tie rule and model: ``statistic = "win_rate"``, the estimate and its
        interval, ``n`` the rule's denominator, and the counts ``n_battles, wins, lean_wins, ties,
        lean_losses, losses, n_invalid`` (wins and losses decisive; lean_* are leaning ties).
        ``.wide()`` gives the models × rules table.

    Notes
    -----
    Per model, W decisive wins, LW ties leaning to it, T plain ties, LL leaning away, L losses:
    FDT = (W + LW)/N, without ties = W/(W + L), tie as 0 = W/N, tie as 0.5 = (W + ½(LW + T + LL))/N;
    soft = Σ(p − 1)/N for the second side. All rules and models come from the same bootstrap
    replicates (items resampled), so differences between them can be read off the replicates.

    References
    ----------
    Zhou et al. (2024), OpenING, arXiv:2411.18499, ``calculate_model_winrate.py``: its four functions
    are transcribed in ``tests/test_pairwise.py`` and reproduced exactly on ``battles_like`` and on a
    hand-scored table. Dubois et al. (2024), AlpacaEval 2.0: the leaderboard's ``win_rate``,
    ``n_wins``, ``n_wins_base``, ``n_draws`` and ``discrete_win_rate`` are reproduced for 25 models
    (``tests/test_pairwise_realdata.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> human = b[b.judge == "human"]
    >>> r = metaeval.win_rates(human, n_resamples=200, rng=1)
    >>> r.wide().round(3).loc["gpt-4o+dalle-3"].tolist()
    [0.739, 0.85, 0.667, 0.775]
    >>> e = r.get(statistic="win_rate", model="gpt-4o+dalle-3", tie_rule="fdt")
    >>> e.n, e.unit, e.n_units
    (153, 'clusters', 400)
    >>> print(e)
    win_rate = 0.7386, 95% bca CI [0.6709, 0.7989] (n = 153, clusters: 400)
    """
    _check_options(battles, invalid, fdt_plain_tie, ci_method)
    soft = preference is not None
    rules = select_rules(tie_rule, "win_rate", (("soft",) if soft else ()) + TIE_RULES, preference=soft)
    cols = dict(item=item, model_a=model_a, model_b=model_b, outcome=outcome)
    if swap_rule is not None:
        if swap_rule != "fastchat":
            raise ValueError(f"swap_rule must be None or 'fastchat', got {swap_rule!r}")
        if soft:
            raise ValueError("swap_rule needs discrete outcomes, not soft preferences")
        from .verdicts import combine_swaps

        battles = combine_swaps(battles, rule="fastchat", **cols)
        cols = dict(item="item_id", model_a="model_a", model_b="model_b", outcome="outcome")
        cluster = None if cluster is None else "item_id"
    weights = rule_weights(rules, fdt_plain_tie)
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    out = PairwiseResult(name="win_rates")
    total_invalid = total_missing = 0
    for jname, sub in by_judge(battles, judge):
        df, n_invalid, n_missing, inv_by_model, models = _rater_battles(
            sub, baseline=baseline, invalid=invalid, preference=preference, cluster=cluster, cols=cols)
        total_invalid += n_invalid
        total_missing += n_missing
        M = len(models)
        rows, mods, cats, pts = perspective_rows(df, models, baseline, invalid, soft)
        u = _slot_units(df, mods, rows, cats, pts, M, cluster, soft)
        res = rs.run(rate_kernel(M, weights), u)
        counts = u.total().reshape(M, 6)
        bi = models.index(baseline) if baseline in models else -1
        self_battle = baseline is not None and bool(((df["a"] == bi) & (df["b"] == bi)).any())
        report = [i for i, m in enumerate(models) if baseline is None or m != baseline or self_battle]
        for r_i, (r, w) in enumerate(zip(rules, weights)):
            for i in report:
                c = counts[i]
                key = ({"judge": jname} if jname is not None else {})
                key.update({"tie_rule": r, "model": models[i]})
                if baseline is not None:
                    key["baseline"] = baseline
                extra = {**_counts_extra(c), "n_invalid": int(inv_by_model.get(models[i], 0))}
                if soft:
                    extra["soft_points"] = float(c[5])
                out.append_with(estimate("win_rate", res, r_i * M + i, rule_n(c, w)), extra, **key)
    out.invalid = {"policy": invalid, "n_invalid": total_invalid, "n_missing": total_missing}
    out.info = {"fdt_plain_tie": fdt_plain_tie, "baseline": baseline, "rules": rules}
    return out


def head_to_head(battles: pd.DataFrame, *, tie_rule: str | list = "fdt", invalid: str = "drop",
                 fdt_plain_tie: str = "zero", judge: str | None = None, preference: str | None = None,
                 cluster: str | Sequence | None = "item_id", item: str = "item_id", model_a: str = "model_a", model_b: str = "model_b",
                 outcome: str = "outcome", ci_method: str | None = DEFAULT_CI_METHOD,
                 n_resamples: int = DEFAULT_N_RESAMPLES, confidence_level: float = 0.95,
                 rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Win rate of every model against every opponent (the head-to-head matrix), with intervals.

    Parameters
    ----------
    battles : pandas.DataFrame
        As for :func:`metaeval.win_rates`.
    tie_rule : str or list
        As for :func:`metaeval.win_rates` (default ``"fdt"``).
    invalid : {"drop", "tie", "loss"}
    fdt_plain_tie : {"zero", "half", "drop"}
    judge : str, optional
    preference : str, optional
    cluster : str or array-like or None
    item, model_a, model_b, outcome : str
        Column names.
    ci_method : {"bca", "percentile", "basic"} or None
        None for the point estimates only.
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        Rows keyed by ``tie_rule``, ``model`` and ``opponent`` (pairs that never met are left out),
        with the counts of :func:`metaeval.win_rates`. ``result.wide(index="model",
        columns="opponent")`` (one rule at a time) gives the matrix OpenING writes to
        ``model_win_rates*.csv``.

    References
    ----------
    OpenING (Zhou et al. 2024), ``calculate_model_winrate.py``; the overall win rate is the
    battle-weighted mean of the head-to-head rates, and under tie as 0.5 the two sides of a pair
    add up to 1 (``tests/test_pairwise.py::head_to_head_test``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> h = metaeval.head_to_head(b[b.judge == "human"], ci_method=None)
    >>> print(h.get(model="emu3", opponent="minigpt-5"))
    win_rate = 0.7500, no interval (point estimate only; n = 24)
    """
    _check_options(battles, invalid, fdt_plain_tie, ci_method)
    soft = preference is not None
    rules = select_rules(tie_rule, "win_rate", (("soft",) if soft else ()) + TIE_RULES, preference=soft)
    cols = dict(item=item, model_a=model_a, model_b=model_b, outcome=outcome)
    weights = rule_weights(rules, fdt_plain_tie)
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    out = PairwiseResult(name="head_to_head")
    for jname, sub in by_judge(battles, judge):
        df, n_invalid, _, _, models = _rater_battles(sub, baseline=None, invalid=invalid, preference=preference,
                                                     cluster=cluster, cols=cols)
        M = len(models)
        rows, mods, cats, pts = perspective_rows(df, models, None, invalid, soft)
        opp = np.concatenate([df["b"].to_numpy(), df["a"].to_numpy()])
        u = _slot_units(df, mods * M + opp, rows, cats, pts, M * M, cluster, soft)
        res = rs.run(rate_kernel(M * M, weights), u)
        counts = u.total().reshape(M * M, 6)
        for r_i, (r, w) in enumerate(zip(rules, weights)):
            for i, j in itertools.product(range(M), range(M)):
                c = counts[i * M + j]
                if i == j or c[:5].sum() == 0:
                    continue
                key = ({"judge": jname} if jname is not None else {})
                key.update({"tie_rule": r, "model": models[i], "opponent": models[j]})
                out.append_with(estimate("win_rate", res, r_i * M * M + i * M + j, rule_n(c, w)), _counts_extra(c),
                                **key)
    out.invalid = {"policy": invalid}
    return out
