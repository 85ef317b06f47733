"""Position bias: how much a verdict depends on which answer is shown first.

Three views, each from its own sufficient statistics on the same resampling units:

1. the win rate of the first-shown position under each tie rule (:mod:`~metaeval.pairwise.winrates`'
   kernel with a single "model" that is always ``model_a``);
2. swap consistency — for battles judged in both orders, the agreement (:mod:`~metaeval.pairwise.agreement`)
   between the two verdicts once the swapped one is mirrored;
3. ``first_both`` / ``second_both`` — among swap pairs, the share where the same position won both
   times (FDT sides): inconsistency explained by position.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..core.errors import UndefinedStatisticWarning
from ._prepare import (
    aggregate,
    by_judge,
    cell_units,
    check_policy,
    need_frame,
    orient,
    pair_key,
    prepare_codes,
    units,
    warn_invalid,
    warn_missing,
)
from ._results import (
    DEFAULT_CI_METHOD,
    DEFAULT_N_RESAMPLES,
    PairwiseResult,
    Resampler,
    estimate,
)
from .agreement import AGREEMENT_PLAIN_TIE, AGREEMENT_POLICIES, Comparisons, agreement_run
from .outcomes import INV, NC, T, select_rules
from .outcomes import tie_rule as lookup_rule
from .winrates import rate_kernel, rule_n

__all__ = ["position_bias"]


CONFOUNDED = ("no item is judged in both presentation orders and no pair of models is ever shown the other way "
              "round, so which answer is shown first is confounded with which model gave it; the "
              "first-position win rate is undefined (NaN). Judge each battle in both orders (swap the "
              "answers), or randomize the order, to separate position from model")


def _order_varies(df) -> bool:
    """Whether some pair of (different) models is shown in both orders, on any items."""
    lo, hi, _, flip = orient(df)
    keep = lo != hi
    if not keep.any():
        return False
    n = int(max(lo.max(), hi.max())) + 1
    pair = lo[keep].astype(np.int64) * n + hi[keep]
    fwd = np.unique(pair[~flip[keep]])
    rev = np.unique(pair[flip[keep]])
    return bool(len(np.intersect1d(fwd, rev)))


def _confounded(kernel):
    """The kernel's shape with every value undefined: position and model are not separable."""
    def f(S):
        v = kernel(S)
        return np.full(np.shape(v), np.nan)
    return f


def _first_position(df, rules, invalid, fdt_plain_tie, cluster, rs, *, soft=False, identified=True):
    """(statistic, estimate, extra, key) rows of the first-position win rate.

    ``soft``: the ``soft`` rule (weights None) counts 2 − p, the first-shown answer's share of a
    soft preference p ∈ [1, 2]. Unless ``identified`` (some battle is judged in both orders),
    every value is NaN.
    """
    code = df["code"].to_numpy()
    inv = code == INV
    if invalid == "tie":
        code = np.where(inv, T, code)
        inv = np.zeros(len(code), dtype=bool)
    d1 = df[~inv].reset_index(drop=True)
    d1["code"] = code[~inv]
    if not len(d1):
        return []
    d1 = aggregate(d1, by=("code", "pref", "cl"))          # the contribution depends on these only
    c1 = d1["code"].to_numpy()
    rows = np.arange(len(d1))
    pts = (2 - d1["pref"].to_numpy(dtype=float)) if soft else np.zeros(len(d1))
    u = cell_units(d1, np.concatenate([rows, rows]), np.concatenate([c1, np.full(len(c1), 5)]),
                   np.concatenate([np.ones(len(c1)), np.nan_to_num(pts)]), 6, cluster)
    # FDT: a plain tie is left out ("tie", "drop") or won by the first position ("first")
    plain = "first" if fdt_plain_tie == "first" else "drop"
    weights = [None if lookup_rule(r).needs_preference else lookup_rule(r, plain_tie=plain).win_weights()
               for r in rules]
    kernel = rate_kernel(1, weights)
    res = rs.run(kernel if identified else _confounded(kernel), u)
    cnt = u.total()
    extra = {"n_rows": int(cnt[:5].sum())}
    if not identified:
        extra["undefined"] = "position confounded with model (no pair of models shown in both orders)"
    return [("first_position_win_rate", estimate("first_position_win_rate", res, r_i, rule_n(cnt, w)),
             dict(extra), {"tie_rule": r}) for r_i, (r, w) in enumerate(zip(rules, weights))]


def _swap_pairs(df, group_cols=()):
    """Pairs of rows judging the same battle in both presentation orders (all combinations)."""
    lo, hi, code, flip = orient(df, mark_tie=True)
    f = pd.DataFrame({"item": df["item"].to_numpy(), "lo": lo, "hi": hi, "code": code, "rev": flip})
    for c in group_cols:
        f[c] = df[c].to_numpy()
    key = ["item", "lo", "hi", *group_cols]
    m = f[~f["rev"]].merge(f[f["rev"]], on=key, suffixes=("_f", "_r"))
    if m.empty:
        return m
    return m.join(m.groupby(key).size().rename("np"), on=key)


def _swap_comparisons(df, cluster):
    """The two verdicts of each swap pair as aligned comparisons; and the number of battles."""
    pairs = _swap_pairs(df, group_cols=["cl"] if cluster is not None else [])
    n_pairs = int(pairs.groupby(["item", "lo", "hi"]).ngroups) if len(pairs) else 0
    if n_pairs == 0:
        return None, 0
    if cluster is None:
        n_models = int(max(pairs["lo"].max(), pairs["hi"].max())) + 1
        unit, kind = pd.factorize(pair_key(pairs["item"], pairs["lo"], pairs["hi"], n_models))[0], "items"
    else:
        unit, kind = pd.factorize(pairs["cl"])[0], "clusters"
    comp = Comparisons(pairs["code_f"].to_numpy(), pairs["code_r"].to_numpy(), (1.0 / pairs["np"]).to_numpy(),
                       np.asarray(unit), kind, np.zeros(len(pairs), dtype=np.int64), ["all"], n_pairs, {})
    return comp, n_pairs


def _both_kernel(cells_first, cells_second):
    def f(S):
        Tt = np.asarray(S, dtype=float).reshape(-1, NC, NC)
        n = Tt.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.stack([np.einsum("bij,ij->b", Tt, cells_first) / n,
                             np.einsum("bij,ij->b", Tt, cells_second) / n], axis=1)
    return f


def _fdt_sides():
    """FDT side of each code 0–5 and ``T_REV``: 0 the side shown first in canonical order, 1 the other,
    −1 a plain tie, −2 a parse failure."""
    cols = lookup_rule("fdt").model_columns()          # 0 first won, 1 second won, 2 tie, -1 invalid
    side = np.where(cols == 2, -1, np.where(cols < 0, -2, cols))
    return np.append(side, -1)                         # T_REV (code 6) is a plain tie too


def _same_position_twice(comp, invalid, rs):
    """first_both / second_both: the forward row says the canonical A-side won, the reversed row
    (mirrored to canonical order) the B-side, i.e. the first-shown answer won both times; and the
    opposite for the second-shown."""
    side = _fdt_sides()
    first = (side[:, None] == 0) & (side[None, :] == 1)
    second = (side[:, None] == 1) & (side[None, :] == 0)
    ref, cand, wgt = comp.ref, comp.cand, comp.weight
    ok = ~((ref == INV) | (cand == INV)) if invalid == "drop" else np.ones(len(ref), bool)
    _, uu = np.unique(comp.unit[ok], return_inverse=True)
    u = units(uu.ravel(), ref[ok] * NC + cand[ok], wgt[ok], NC * NC, comp.kind)
    res = rs.run(_both_kernel(first.astype(float), second.astype(float)), u)
    n = u.total().sum()
    return [(s, estimate(s, res, j, n)) for j, s in enumerate(("first_both", "second_both"))]


def position_bias(battles: pd.DataFrame, *, tie_rule: str | list = "all", invalid: str = "drop",
                  fdt_plain_tie: str = "tie", judge: str | None = None, cluster: str | Sequence | None = "item_id", item: str = "item_id",
                  model_a: str = "model_a", model_b: str = "model_b", outcome: str = "outcome",
                  preference: str | None = None, ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = DEFAULT_N_RESAMPLES,
                  confidence_level: float = 0.95, rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """How much the verdict depends on the order of presentation.

    * ``first_position_win_rate``: the win rate of whichever answer is shown first, under each tie
      rule (0.5 = no position bias), from every row (both orders count); with soft preferences
      also under ``soft`` (the mean of 2 − p). Only battles judged in both orders separate the
      position from the model, or a presentation order that varies: when no item is judged in both
      orders and no pair of models is ever shown the other way round (AlpacaEval shows the baseline
      first every time), the rate is NaN with an :class:`~metaeval.UndefinedStatisticWarning`
      instead of a number that mixes the baseline's strength with its position. With orders that
      vary across items but no swaps (``battles_like``'s human verdicts), the rate is reported: it
      is unbiased only if the order was randomized.
    * ``swap_consistency``: for battles judged in both orders, the share of pairs with the same
      verdict once the swapped one is mirrored, under each tie rule (the agreement of
      :func:`metaeval.pairwise_agreement` between the two orders) and ``exact`` (the same of the
      five labels). LLMBar's ``equal`` (positional agreement) is ``exact`` with ``invalid="keep"``.
    * ``first_both`` / ``second_both``: among swap pairs, the share where the first-shown
      (second-shown) answer won in both orders under FDT: inconsistency explained by position.

    Parameters
    ----------
    battles : pandas.DataFrame
        ``item_id, model_a, model_b, outcome``; with a ``judge`` column, one set of rows per rater.
    tie_rule : {"all", "fdt", "without_ties", "tie_zero", "tie_half", "soft"} or list
        The rules of the first-position rate and of swap consistency; ``"soft"`` (with
        ``preference``) only for the first-position rate, which ``"all"`` then includes.
    invalid : {"drop", "tie", "loss", "keep"}
        Parse failures are left out of the first-position rate unless ``"tie"``; in the swap pairs
        they follow the policy (``loss``: never consistent, ``keep``: consistent with another failure).
    fdt_plain_tie : {"tie", "first", "drop"}
        A plain tie under FDT: in the first-position rate left out (``"tie"``, ``"drop"``) or won
        by the first position (``"first"``); in swap consistency as in :func:`metaeval.pairwise_agreement`.
    judge : str, optional
        Keep only the rows of this rater.
    cluster : str or array-like or None
    item, model_a, model_b, outcome : str
        Column names.
    preference : str, optional
        Column of soft preferences in [1, 2] (AlpacaEval: 1 = the first-shown answer is better) in
        place of ``outcome``; the discrete verdict is A below 1.5, B above, a tie at 1.5.
    ci_method : {"bca", "percentile", "basic"} or None
        None for the point estimates only.
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        Rows keyed by (``judge``,) ``tie_rule`` with statistics ``first_position_win_rate`` (NaN,
        with ``extra["undefined"]`` saying why, when position and model are confounded),
        ``swap_consistency``, ``first_both``, ``second_both``; ``n_swap_pairs`` in ``.info``.
        FastChat's rule (an inconsistent pair counts as a tie) is :func:`metaeval.combine_swaps`.

    References
    ----------
    ``data_samples/README.md`` §4 (planted bias of ``battles_like``: swap consistency 0.777 / 0.703,
    first-position win rates 0.582 / 0.468); LLMBar's published ``equal`` for 289 configurations
    (Zeng et al., ICLR 2024; ``tests/test_pairwise_realdata.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> judge = b[(b.judge == "judge") & (b.outcome != "invalid")]
    >>> r = metaeval.position_bias(judge, tie_rule="fdt", ci_method=None)
    >>> round(r.get(statistic="swap_consistency", tie_rule="fdt").estimate, 3)
    0.777
    >>> round(r.get(statistic="first_position_win_rate").estimate, 3)
    0.582

    Without swapped battles the position effect is not identified:

    >>> import warnings
    >>> once = judge[judge.model_a < judge.model_b]        # each pair of models in one order only
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     r = metaeval.position_bias(once, tie_rule="fdt", ci_method=None)
    >>> r.get(statistic="first_position_win_rate").estimate, "confounded" in str(w[-1].message)
    (nan, True)
    """
    need_frame(battles)
    check_policy(invalid, AGREEMENT_POLICIES)
    if fdt_plain_tie not in AGREEMENT_PLAIN_TIE:
        raise ValueError(f"fdt_plain_tie must be one of {AGREEMENT_PLAIN_TIE}, got {fdt_plain_tie!r}")
    soft = preference is not None
    want = ([tie_rule] if isinstance(tie_rule, str) else list(tie_rule))
    with_soft = soft and ("soft" in want or "all" in want)
    if "soft" in want and not soft:
        raise ValueError("tie_rule='soft' needs soft preferences: pass preference=<column>")
    other = [r for r in want if r != "soft"]
    rules = select_rules(other if len(other) != 1 else other[0], "position") if other else []
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)

    out = PairwiseResult(name="position_bias")
    out.info = {"n_swap_pairs": {}}
    for jname, sub in by_judge(battles, judge):
        df, nm, _, _ = prepare_codes(sub, item=item, model_a=model_a, model_b=model_b, outcome=outcome,
                                     cluster=cluster, preference=preference)
        warn_missing(nm, "battle")
        warn_invalid(int((df["code"] == INV).sum()), invalid, f"{jname or 'battle'}")
        jkey = {"judge": jname} if jname is not None else {}
        comp, n_pairs = _swap_comparisons(df, cluster)
        out.info["n_swap_pairs"][jname] = n_pairs
        identified = comp is not None or _order_varies(df)
        if not identified and len(df):
            warnings.warn(f"position_bias{f' ({jname})' if jname is not None else ''}: {CONFOUNDED}",
                          UndefinedStatisticWarning, stacklevel=2)
        for _, e, extra, key in _first_position(df, rules + (["soft"] if with_soft else []), invalid, fdt_plain_tie,
                                                cluster, rs, soft=soft, identified=identified):
            out.append_with(e, extra, **jkey, **key)
        if comp is None or not rules:
            continue
        res, names, pooled, specs, _ = agreement_run(comp, rules + ["exact"], invalid, fdt_plain_tie, rs)
        for j, (g, r, s) in enumerate(names):
            if s == "agreement":
                mapping = specs[r][1]
                n = (mapping.T @ pooled[g] @ mapping).sum()
                out.append_with(estimate("swap_consistency", res, j, n), {"n_pairs": n_pairs}, **jkey, tie_rule=r)
        for _, e in _same_position_twice(comp, invalid, rs):
            out.append_with(e, {"n_pairs": n_pairs}, **jkey, tie_rule="fdt")
    out.invalid = {"policy": invalid}
    return out
