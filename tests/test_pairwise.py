"""Pairwise judgments: win rates under OpenING's tie rules, agreement, position bias, rankings.

Sources of the expected numbers (each test says which one it uses):

* OpenING (Zhou et al. 2024, arXiv:2411.18499), its scoring scripts ``calculate_model_winrate.py``
  (functions ``tie2ABdiv``, ``without_tie``, ``with_tie``, ``with_tie_equaldiv``) and
  ``calculate_agreement.py`` (``force_divide_tie``, ``simplify_winner`` and the three agreement
  functions), github.com/LanceZPF/OpenING. Their definitions are restated in
  /work/shared/STATISTICS.md §Pairwise; the hand-made table below is scored by hand from them (the
  arithmetic is in the comments), and ``_opening_*`` below transcribe the scripts' loops literally,
  to score ``data_samples/battles_like``.
* ``data_samples/README.md`` §4 (battles_like, "Achieved statistics"): agreement 0.714 (n = 346),
  seen 0.735 (117), unseen 0.703 (229), 3-way 0.470 and 0.537, swap consistency 0.777 / 0.703
  (148 pairs), first-position win rates 0.582 / 0.468, Bradley–Terry intercepts +0.48 / −0.16.
* scikit-learn (``cohen_kappa_score``, ``f1_score``), statsmodels (binomial GLM for Bradley–Terry),
  scipy (``optimize.minimize`` on the Davidson likelihood, ``kendalltau``, ``spearmanr``).
* Properties (mirroring, complements, reproducibility) and a coverage simulation (slow).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from scipy.optimize import minimize
from sklearn.metrics import cohen_kappa_score, f1_score

import metaeval
from metaeval import (
    InputError,
    MetaevalWarning,
    bradley_terry,
    combine_swaps,
    datasets,
    head_to_head,
    inter_rater_agreement,
    length_controlled_win_rate,
    majority_verdict,
    model_rank_correlation,
    pairwise_agreement,
    pairwise_confusion,
    position_bias,
    seen_unseen_agreement,
    win_rates,
)
from metaeval.core.results import FRAME_COLUMNS

FAST = dict(n_resamples=50, ci_method="percentile", rng=0)

# --------------------------------------------------------------------------------------------
# the hand-made table: three models X, Y, Z, five items, ten battles
# --------------------------------------------------------------------------------------------
#  row item  A  B  judge  human
HAND = [
    (1, "1", "X", "Y", "A", "A"),
    (2, "1", "X", "Z", "tie_a", "A"),
    (3, "2", "Y", "X", "B", "B"),
    (4, "2", "Y", "Z", "tie", "tie_a"),
    (5, "3", "Z", "X", "tie_b", "tie_b"),
    (6, "3", "Y", "Z", "A", "B"),
    (7, "4", "X", "Y", "tie_b", "B"),
    (8, "4", "Z", "Y", "B", "B"),
    (9, "5", "X", "Z", "B", "tie"),
    (10, "5", "Y", "X", "tie", "tie_b"),
]


def hand(rater="judge"):
    col = 4 if rater == "judge" else 5
    return pd.DataFrame({"item_id": [r[1] for r in HAND], "model_a": [r[2] for r in HAND],
                         "model_b": [r[3] for r in HAND], "outcome": [r[col] for r in HAND]})


# Per model, from the judge column (W decisive win, LW tie leaning to it, T plain tie,
# LL tie leaning away, L decisive loss):
#   X: r1 W, r2 LW (tie_a, X first), r3 W (B, X second), r5 LW (tie_b, X second), r7 LL (tie_b, X first),
#      r9 L (B, X first), r10 T                          -> W 2, LW 2, T 1, LL 1, L 1, N 7
#   Y: r1 L, r3 L (B, Y first), r4 T, r6 W, r7 LW (tie_b, Y second), r8 W (B, Y second), r10 T
#                                                        -> W 2, LW 1, T 2, LL 0, L 2, N 7
#   Z: r2 LL, r4 T, r5 LL (tie_b, Z first), r6 L, r8 L (B, Z first), r9 W (B, Z second)
#                                                        -> W 1, LW 0, T 1, LL 2, L 2, N 6
# OpenING's rules:
#   tie2ABdiv (FDT): wins = A or Tie(A) for A, B or Tie(B) for B; every battle (a plain "Tie" too) is
#     a match:        X (2+2)/7 = 4/7,  Y (2+1)/7 = 3/7,  Z (1+0)/6 = 1/6
#   without_tie:      only A/B battles count: X 2/(2+1) = 2/3, Y 2/(2+2) = 1/2, Z 1/(1+2) = 1/3
#   with_tie (0):     X 2/7, Y 2/7, Z 1/6
#   with_tie_equaldiv (0.5): any tie ('Tie' in winner) is half a win:
#                     X (2 + ½·4)/7 = 4/7, Y (2 + ½·3)/7 = 3.5/7, Z (1 + ½·3)/6 = 2.5/6
HAND_WIN = {
    "fdt": {"X": 4 / 7, "Y": 3 / 7, "Z": 1 / 6},
    "without_ties": {"X": 2 / 3, "Y": 1 / 2, "Z": 1 / 3},
    "tie_zero": {"X": 2 / 7, "Y": 2 / 7, "Z": 1 / 6},
    "tie_half": {"X": 4 / 7, "Y": 3.5 / 7, "Z": 2.5 / 6},
}


def hand_win_rates_test():
    r = win_rates(hand(), tie_rule="all", **FAST)
    w = r.wide()
    assert list(w.columns) == ["fdt", "without_ties", "tie_zero", "tie_half"]
    for rule, exp in HAND_WIN.items():
        for m, v in exp.items():
            assert w.loc[m, rule] == pytest.approx(v, abs=1e-15), (rule, m)
    f = r.to_frame()
    x = f[(f.model == "X") & (f.tie_rule == "fdt")].iloc[0]
    assert (x.wins, x.lean_wins, x.ties, x.lean_losses, x.losses, x.n_battles) == (2, 2, 1, 1, 1, 7)
    # n is the rule's denominator: without ties, X played 3 decisive battles
    assert f[(f.model == "X") & (f.tie_rule == "without_ties")].n.iloc[0] == 3


def hand_fdt_plain_tie_options_test():
    # plain ties: X 1 (r10), Y 2 (r4, r10), Z 1 (r4)
    # half: X (4 + ½)/7, Y (3 + 1)/7, Z (1 + ½)/6; drop: X 4/6, Y 3/5, Z 1/5
    half = win_rates(hand(), tie_rule="fdt", fdt_plain_tie="half", **FAST).wide()["fdt"]
    drop = win_rates(hand(), tie_rule="fdt", fdt_plain_tie="drop", **FAST).wide()["fdt"]
    assert half.to_dict() == pytest.approx({"X": 4.5 / 7, "Y": 4 / 7, "Z": 1.5 / 6}, abs=1e-15)
    assert drop.to_dict() == pytest.approx({"X": 4 / 6, "Y": 3 / 5, "Z": 1 / 5}, abs=1e-15)


def hand_single_rule_and_frame_columns_test():
    r = win_rates(hand(), tie_rule="tie_half", **FAST)
    f = r.to_frame()
    assert len(f) == 3                                       # one row per model
    for c in ["model", "estimate", "ci_low", "ci_high", *FRAME_COLUMNS]:
        assert c in f.columns
    assert (f.ci_low <= f.estimate).all() and (f.estimate <= f.ci_high).all()
    assert (f.unit == "clusters").all() and (f.n_units == 5).all()


# Agreement on the hand table (judge column vs human column; r3 of the human is presented in the
# other order below, to check the mirroring):
#   FDT sides   judge: A A B tie B A B B B tie      human: A A B A B B B B tie B
#     own plain-tie class: r1 r2 r3 r5 r7 r8 agree, r4 r6 r9 r10 do not          -> 6/10
#     plain tie forced to A (OpenING's force_divide_tie): r4 (A, A) now agrees     -> 7/10
#   without ties: battles where neither side says any tie: r1 (A,A), r3 (B,B), r6 (A,B), r8 (B,B) -> 3/4
#   tie_zero (A / tie / B)   judge: A t B t t A t B B t   human: A A B t t B B B t t
#     agree r1 r3 r4 r5 r8 r10                                                   -> 6/10
#   tie_half: 1 − |s_h − s_j| with s = 1, ½, 0: r1 1, r2 ½, r3 1, r4 1, r5 1, r6 0, r7 ½, r8 1, r9 ½,
#     r10 1                                                                       -> 7.5/10
#   exact five labels: r1 r3 r5 r8                                                -> 4/10
HAND_AGREE = {"fdt": 0.6, "without_ties": 0.75, "tie_zero": 0.6, "tie_half": 0.75, "exact": 0.4}


def hand_agreement_test():
    human = hand("human")
    # r3 as the human saw it: X first, Y second -> "A" (X better) is the same verdict as (Y, X, "B")
    human.loc[2, ["model_a", "model_b", "outcome"]] = ["X", "Y", "A"]
    r = pairwise_agreement(human, hand(), tie_rule=list(HAND_AGREE), **FAST)
    f = r.to_frame()
    got = f[f.statistic == "agreement"].set_index("tie_rule").estimate
    for rule, v in HAND_AGREE.items():
        assert got[rule] == pytest.approx(v, abs=1e-15), rule
    assert f[(f.statistic == "agreement") & (f.tie_rule == "without_ties")].n.iloc[0] == 4
    first = pairwise_agreement(human, hand(), tie_rule="fdt", fdt_plain_tie="first", **FAST)
    assert first["agreement"].estimate == pytest.approx(0.7, abs=1e-15)


def hand_agreement_kappa_f1_against_sklearn_test():
    three = {"A": "A", "tie_a": "tie", "tie": "tie", "tie_b": "tie", "B": "B"}
    j = hand()["outcome"].map(three)
    h = hand("human")["outcome"].map(three)
    r = pairwise_agreement(hand("human"), hand(), tie_rule="tie_zero", **FAST)
    assert r["cohen_kappa"].estimate == pytest.approx(cohen_kappa_score(h, j), abs=1e-12)
    assert r["macro_f1"].estimate == pytest.approx(f1_score(h, j, average="macro"), abs=1e-12)
    # tie_half's kappa is the linearly weighted kappa on the ordered scale B < tie < A
    order = {"B": 0, "tie": 1, "A": 2}
    r = pairwise_agreement(hand("human"), hand(), tie_rule="tie_half", **FAST)
    assert r["cohen_kappa"].estimate == pytest.approx(
        cohen_kappa_score(h.map(order), j.map(order), weights="linear"), abs=1e-12)
    # the confusion table (rows human) matches a crosstab
    tab = pairwise_confusion(hand("human"), hand(), tie_rule="tie_zero")
    ct = pd.crosstab(h, j).reindex(index=["A", "tie", "B"], columns=["A", "tie", "B"], fill_value=0)
    assert np.array_equal(tab.to_numpy(), ct.to_numpy())


# --------------------------------------------------------------------------------------------
# OpenING's scripts, transcribed literally (loops over result dicts), for battles_like
# --------------------------------------------------------------------------------------------

_WINNER = {"A": "A", "B": "B", "tie_a": "Tie(A)", "tie_b": "Tie(B)", "tie": "Tie"}


def _results(df):
    return [{"model_A": {"name": a}, "model_B": {"name": b}, "winner": _WINNER[o]}
            for a, b, o in zip(df.model_a, df.model_b, df.outcome)]


def _opening_fdt(results):                       # tie2ABdiv
    wins, matches = {}, {}
    for r in results:
        a, b, w = r["model_A"]["name"], r["model_B"]["name"], r["winner"]
        matches[a] = matches.get(a, 0) + 1
        matches[b] = matches.get(b, 0) + 1
        if w in ("A", "Tie(A)"):
            wins[a] = wins.get(a, 0) + 1
        elif w in ("B", "Tie(B)"):
            wins[b] = wins.get(b, 0) + 1
    return {m: wins.get(m, 0) / matches[m] for m in matches}


def _opening_without_tie(results):
    wins, matches = {}, {}
    for r in results:
        a, b, w = r["model_A"]["name"], r["model_B"]["name"], r["winner"]
        if w == "A":
            wins[a] = wins.get(a, 0) + 1
        elif w == "B":
            wins[b] = wins.get(b, 0) + 1
        if w in ("A", "B"):
            matches[a] = matches.get(a, 0) + 1
            matches[b] = matches.get(b, 0) + 1
    return {m: wins.get(m, 0) / matches[m] for m in matches}


def _opening_with_tie(results, tie_value):       # with_tie (0) and with_tie_equaldiv (0.5)
    wins, ties, matches = {}, {}, {}
    for r in results:
        a, b, w = r["model_A"]["name"], r["model_B"]["name"], r["winner"]
        matches[a] = matches.get(a, 0) + 1
        matches[b] = matches.get(b, 0) + 1
        if w == "A":
            wins[a] = wins.get(a, 0) + 1
        elif w == "B":
            wins[b] = wins.get(b, 0) + 1
        elif "Tie" in w:
            ties[a] = ties.get(a, 0) + 1
            ties[b] = ties.get(b, 0) + 1
    return {m: (wins.get(m, 0) + tie_value * ties.get(m, 0)) / matches[m] for m in matches}


def _battles():
    return datasets.load("battles_like").battles


@pytest.mark.parametrize("rater", ["human", "judge"])
def battles_like_win_rates_match_opening_scripts_test(rater):
    b = _battles()
    sub = b[(b.judge == rater) & (b.swapped == 0) & (b.outcome != "invalid")]
    res = _results(sub)
    expected = {"fdt": _opening_fdt(res), "without_ties": _opening_without_tie(res),
                "tie_zero": _opening_with_tie(res, 0.0), "tie_half": _opening_with_tie(res, 0.5)}
    w = win_rates(sub, **FAST).wide()
    assert len(w) == 8
    for rule, exp in expected.items():
        for m, v in exp.items():
            assert w.loc[m, rule] == v, (rule, m)          # exactly: the same sums of integers


def _opening_agreement(human, judge, mode):
    def simplify(w):
        return "Tie" if "tie" in w.lower() else w

    def force(w):
        return {"Tie(A)": "A", "Tie(B)": "B", "Tie": "A"}.get(w, w)

    total = agree = 0
    for k, hw in human.items():
        if k not in judge:
            continue
        jw = judge[k]
        if mode == "without":
            if simplify(hw) == "Tie" or simplify(jw) == "Tie":
                continue
            total += 1
            agree += hw == jw
        elif mode == "with":
            total += 1
            agree += simplify(hw) == simplify(jw)
        else:
            total += 1
            agree += force(hw) == force(jw)
    return agree / total, total


def battles_like_agreement_matches_opening_script_test():
    b = _battles()
    h = b[b.judge == "human"]
    j = b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]

    def keyed(df):
        return {f"{i}_{a}_{bb}": _WINNER[o] for i, a, bb, o in zip(df.item_id, df.model_a, df.model_b, df.outcome)}

    H, J = keyed(h), keyed(j)
    r = pairwise_agreement(h, j, tie_rule="all", **FAST)
    first = pairwise_agreement(h, j, tie_rule="fdt", fdt_plain_tie="first", **FAST)
    got = r.to_frame().query("statistic == 'agreement'").set_index("tie_rule")
    for rule, mode in (("without_ties", "without"), ("tie_zero", "with")):
        v, n = _opening_agreement(H, J, mode)
        assert got.loc[rule, "estimate"] == pytest.approx(v, abs=1e-15)
        assert got.loc[rule, "n"] == n
    v, n = _opening_agreement(H, J, "fdt")
    assert first["agreement"].estimate == pytest.approx(v, abs=1e-15) and first["agreement"].n == n


def battles_like_readme_agreement_test():
    # data_samples/README.md §4: both decisive 0.714 (n = 346); 3-way 0.470; 3-way with leaning ties
    # to their side 0.537 (our FDT with the plain tie as its own verdict); seen 0.735 (117),
    # unseen 0.703 (229)
    b = _battles()
    h = b[b.judge == "human"]
    j = b[(b.judge == "judge") & (b.swapped == 0)]
    with pytest.warns(MetaevalWarning, match="6 aligned row"):
        r = pairwise_agreement(h, j, **FAST)
    a = r.to_frame().query("statistic == 'agreement'").set_index("tie_rule")
    assert round(a.loc["without_ties", "estimate"], 3) == 0.714 and a.loc["without_ties", "n"] == 346
    assert round(a.loc["tie_zero", "estimate"], 3) == 0.470
    assert round(a.loc["fdt", "estimate"], 3) == 0.537
    assert r.invalid == {"policy": "drop", "n_invalid": 6}
    with pytest.warns(MetaevalWarning):
        s = seen_unseen_agreement(h, j, tie_rule="without_ties", **FAST)
    f = s.to_frame().query("statistic == 'agreement'").set_index("group")
    assert round(f.loc["seen", "estimate"], 3) == 0.735 and f.loc["seen", "n"] == 117
    assert round(f.loc["unseen", "estimate"], 3) == 0.703 and f.loc["unseen", "n"] == 229
    sv, uv = f.loc["seen", "estimate"], f.loc["unseen", "estimate"]
    assert f.loc["harmonic_mean", "estimate"] == pytest.approx(2 * sv * uv / (sv + uv), abs=1e-15)
    assert s.info["unseen_models"] == ["emu3", "show-o", "vila-u"]        # README model table
    assert f.loc["harmonic_mean", "n"] == 346


def battles_like_position_bias_test():
    # README §4: swap consistency 0.777 (leaning ties to their side, A/tie/B) and 0.703 (exact
    # label) on 148 pairs without a parse error; first-position win rate among non-tie verdicts,
    # leaning ties to their side: judge 0.582, human 0.468
    with pytest.warns(MetaevalWarning):
        p = position_bias(_battles(), **FAST)
    f = p.to_frame()
    sc = f[(f.statistic == "swap_consistency") & (f.judge == "judge")].set_index("tie_rule")
    assert round(sc.loc["fdt", "estimate"], 3) == 0.777 and sc.loc["fdt", "n"] == 148
    assert round(sc.loc["exact", "estimate"], 3) == 0.703
    fp = f[(f.statistic == "first_position_win_rate") & (f.tie_rule == "fdt")].set_index("judge").estimate
    assert round(fp["judge"], 3) == 0.582 and round(fp["human"], 3) == 0.468
    assert p.info["n_swap_pairs"] == {"human": 0, "judge": 151}
    # the planted bias goes one way: the first-shown answer wins both orders more often than the second
    both = f[f.statistic.isin(["first_both", "second_both"])].set_index("statistic").estimate
    assert both["first_both"] > both["second_both"]


def battles_like_bradley_terry_intercepts_test():
    # README §4: a Bradley-Terry logistic fit (leaning ties to their side, exact ties dropped) has a
    # first-position logit of +0.48 for the judge (unswapped) and -0.16 for humans; the human fit
    # recovers the latent order exactly (Spearman 1.0)
    b = _battles()
    latent = {"gpt-4o+dalle-3": 1.0, "gemini-1.5+flux": 0.75, "emu3": 0.35, "anole-7b": 0.10,
              "seed-llama-14b": -0.10, "vila-u": -0.30, "show-o": -0.55, "minigpt-5": -0.90}
    for rater, sub, h_exp in (("human", b[b.judge == "human"], -0.16),
                              ("judge", b[(b.judge == "judge") & (b.swapped == 0)], 0.48)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MetaevalWarning)
            r = bradley_terry(sub, ties="drop", position_effect=True, n_resamples=20, rng=0)
        f = r.to_frame().set_index("model")
        assert round(f.loc["(first position)", "estimate"], 2) == h_exp
        if rater == "human":
            th = f.loc[list(latent), "estimate"]
            assert stats.spearmanr(th, list(latent.values()))[0] == 1.0


# --------------------------------------------------------------------------------------------
# other properties
# --------------------------------------------------------------------------------------------

def mirroring_a_battle_changes_nothing_test():
    b = hand()
    flipped = b.copy()
    flipped[["model_a", "model_b"]] = b[["model_b", "model_a"]].to_numpy()
    flipped["outcome"] = b["outcome"].map({"A": "B", "B": "A", "tie_a": "tie_b", "tie_b": "tie_a", "tie": "tie"})
    assert np.allclose(win_rates(b, **FAST).wide(), win_rates(flipped, **FAST).wide(), rtol=0, atol=1e-15)


def head_to_head_test():
    b = _battles()
    sub = b[(b.judge == "human")]
    h2h = head_to_head(sub, tie_rule=["fdt", "tie_half"], **FAST).to_frame()
    wr = win_rates(sub, tie_rule=["fdt", "tie_half"], **FAST).to_frame()
    for rule in ("fdt", "tie_half"):
        hh = h2h[h2h.tie_rule == rule]
        # the overall win rate is the battle-weighted mean of the head-to-head rates
        pooled = (hh.estimate * hh.n).groupby(hh.model).sum() / hh.n.groupby(hh.model).sum()
        exp = wr[wr.tie_rule == rule].set_index("model").estimate
        assert np.allclose(pooled.sort_index(), exp.sort_index(), atol=1e-12)
    # tie as 0.5: the two sides of a pair add up to 1
    th = h2h[h2h.tie_rule == "tie_half"].set_index(["model", "opponent"]).estimate
    for (m, o), v in th.items():
        assert v + th[(o, m)] == pytest.approx(1.0, abs=1e-12)
    wide = head_to_head(sub, tie_rule="fdt", **FAST).wide(index="model", columns="opponent")
    assert wide.shape == (8, 8) and np.isnan(np.diag(wide.loc[wide.columns].to_numpy())).all()


def invalid_policies_test():
    b = pd.DataFrame({"item_id": ["1", "2", "3", "4"], "model_a": ["X", "X", "Y", "X"],
                      "model_b": ["Y", "Y", "X", "Y"], "outcome": ["A", "invalid", "parse_error", "B"]})
    # drop: X 1 win of 2; tie (as 0.5): X (1 + 1)/4; loss for both: X 1/4 and Y 1/4 under tie_zero
    with pytest.warns(MetaevalWarning, match="2 battle row"):
        d = win_rates(b, tie_rule="tie_half", invalid="drop", **FAST)
    assert d.wide().loc["X", "tie_half"] == 0.5 and d.invalid["n_invalid"] == 2
    assert d.to_frame().set_index("model").loc["X", "n_invalid"] == 2
    with pytest.warns(MetaevalWarning):
        t = win_rates(b, tie_rule="tie_half", invalid="tie", **FAST).wide()
    assert t.loc["X", "tie_half"] == 0.5 and t.loc["Y", "tie_half"] == 0.5
    with pytest.warns(MetaevalWarning):
        lo = win_rates(b, tie_rule="without_ties", invalid="loss", **FAST).wide()
    assert lo.loc["X", "without_ties"] == 0.25 and lo.loc["Y", "without_ties"] == 0.25
    # with a baseline, a failure is a loss of the evaluated model only
    with pytest.warns(MetaevalWarning):
        bl = win_rates(b, tie_rule="without_ties", invalid="loss", baseline="Y", **FAST).wide()
    assert bl.loc["X", "without_ties"] == 0.25 and "Y" not in bl.index
    with pytest.raises(ValueError, match="invalid="):
        win_rates(b, invalid="ignore")


def invalid_in_agreement_test():
    judge = pd.DataFrame({"item_id": list("1234"), "model_a": "X", "model_b": "Y",
                          "outcome": ["A", "invalid", "invalid", "B"]})
    human = judge.assign(outcome=["A", "A", "tie", "A"])
    kw = dict(tie_rule="tie_zero", **FAST)
    with pytest.warns(MetaevalWarning):
        # drop: r1 agrees, r4 not -> 1/2; tie: r3 agrees -> 2/4; loss: never -> 1/4
        assert pairwise_agreement(human, judge, invalid="drop", **kw)["agreement"].estimate == 0.5
        assert pairwise_agreement(human, judge, invalid="tie", **kw)["agreement"].estimate == 0.5
        assert pairwise_agreement(human, judge, invalid="loss", **kw)["agreement"].estimate == 0.25
        # keep: a failure is its own verdict, agreeing only with another failure
        both = human.assign(outcome=["A", "invalid", "tie", "A"])
        assert pairwise_agreement(both, judge, invalid="keep", **kw)["agreement"].estimate == 0.5


def soft_preferences_test():
    # AlpacaEval convention: preference 1 = first (baseline) better, 2 = second better, 1.5 = tie
    p = pd.DataFrame({"item_id": ["1", "2", "3", "4", "1", "2"],
                      "model_a": ["base"] * 6, "model_b": ["m", "m", "m", "m", "n", "n"],
                      "preference": [1.9, 1.2, 1.5, 1.0000002, 2.0, 1.6]})
    r = win_rates(p, preference="preference", baseline="base", tie_rule=["soft", "tie_half"], **FAST)
    f = r.to_frame().set_index(["tie_rule", "model"])
    # m: mean(p - 1) = (0.9 + 0.2 + 0.5 + 2e-7)/4; wins 1 (1.9), losses 2, draws 1
    assert f.loc[("soft", "m"), "estimate"] == pytest.approx((0.9 + 0.2 + 0.5 + 2e-7) / 4, abs=1e-12)
    assert tuple(f.loc[("soft", "m"), ["wins", "losses", "ties"]]) == (1, 2, 1)
    # discrete win rate (AlpacaEval's discrete_win_rate) = (wins + draws / 2) / n
    assert f.loc[("tie_half", "m"), "estimate"] == pytest.approx(1.5 / 4)
    assert f.loc[("soft", "n"), "estimate"] == pytest.approx((1.0 + 0.6) / 2)
    with pytest.raises(InputError, match="outside"):
        win_rates(p.assign(preference=[0.5] * 6), preference="preference", **FAST)


def bootstrap_is_cluster_aware_and_seeded_test():
    b = _battles()
    sub = b[b.judge == "human"]
    a1 = win_rates(sub, tie_rule="fdt", n_resamples=300, rng=7).to_frame()
    a2 = win_rates(sub, tie_rule="fdt", n_resamples=300, rng=7).to_frame()
    assert a1[["ci_low", "ci_high"]].equals(a2[["ci_low", "ci_high"]])
    assert (a1.seed == 7).all()
    # without a seed, a fresh one is drawn and reported; it reproduces the intervals
    fresh = win_rates(sub, tie_rule="fdt", n_resamples=300).to_frame()
    again = win_rates(sub, tie_rule="fdt", n_resamples=300, rng=int(fresh.seed.iloc[0])).to_frame()
    assert fresh[["ci_low", "ci_high"]].equals(again[["ci_low", "ci_high"]])
    assert (a1.unit == "clusters").all() and (a1.n_units == 400).all()      # 400 items
    iid = win_rates(sub, tie_rule="fdt", n_resamples=300, rng=7, cluster=None).to_frame()
    assert (iid.unit == "items").all() and (iid.n_units == 604).all()       # 604 battles
    # an explicit column works too; clustering on a coarse grouping widens the intervals
    coarse = sub.assign(group=sub.item_id.str[:5])
    wide = win_rates(coarse, tie_rule="fdt", n_resamples=300, rng=7, cluster="group").to_frame()
    assert (wide.n_units == coarse.group.nunique()).all()
    assert (wide.ci_high - wide.ci_low).mean() > (a1.ci_high - a1.ci_low).mean()


def judges_side_by_side_test():
    b = _battles()
    with pytest.warns(MetaevalWarning):
        r = win_rates(b[b.swapped == 0], tie_rule="fdt", **FAST)
    f = r.to_frame()
    assert set(f.judge) == {"human", "judge"} and len(f) == 16
    assert r.wide().index.names == ["judge", "model"]
    with pytest.warns(MetaevalWarning):
        one = win_rates(b[b.swapped == 0], tie_rule="fdt", judge="judge", **FAST).to_frame()
    assert np.allclose(one.estimate, f[f.judge == "judge"].estimate)


def bradley_terry_matches_statsmodels_test():
    b = _battles()
    h = b[b.judge == "human"].reset_index(drop=True)
    models = sorted(set(h.model_a) | set(h.model_b))
    M = len(models)
    mi = {m: i for i, m in enumerate(models)}
    y = h.outcome.map({"A": 1, "tie_a": 1, "tie": 0.5, "tie_b": 0, "B": 0}).to_numpy()
    X = np.zeros((len(h), M))
    X[np.arange(len(h)), h.model_a.map(mi)] = 1
    X[np.arange(len(h)), h.model_b.map(mi)] -= 1
    for pos in (False, True):
        Xd = np.column_stack([X[:, 1:]] + ([np.ones(len(h))] if pos else []))
        g = sm.GLM(y, Xd, family=sm.families.Binomial()).fit(tol=1e-12)
        th = np.concatenate([[0.0], g.params[:M - 1]])
        th -= th.mean()
        f = bradley_terry(h, position_effect=pos, **FAST).to_frame()
        assert np.allclose(f.estimate.to_numpy()[:M], th, atol=1e-9)
        if pos:
            assert f.estimate.iloc[-1] == pytest.approx(g.params[-1], abs=1e-9)
    elo = bradley_terry(h, scale="elo", anchor="anole-7b", **FAST).to_frame().set_index("model").estimate
    th = bradley_terry(h, **FAST).to_frame().set_index("model").estimate
    assert elo["anole-7b"] == 1000.0
    assert elo["emu3"] - 1000 == pytest.approx(400 / np.log(10) * (th["emu3"] - th["anole-7b"]), abs=1e-9)


def bradley_terry_davidson_matches_scipy_test():
    b = _battles()
    h = b[b.judge == "human"].reset_index(drop=True)
    models = sorted(set(h.model_a) | set(h.model_b))
    M = len(models)
    mi = {m: i for i, m in enumerate(models)}
    c = h.outcome.map({"A": 0, "tie_a": 2, "tie": 2, "tie_b": 2, "B": 1}).to_numpy()
    a, bb = h.model_a.map(mi).to_numpy(), h.model_b.map(mi).to_numpy()

    def nll(p):        # Davidson (1970): P(i) ∝ π_i, P(j) ∝ π_j, P(tie) ∝ ν √(π_i π_j)
        th = np.concatenate([[0.0], p[:M - 1]])
        pa, pb = np.exp(th[a]), np.exp(th[bb])
        t = np.exp(p[-1]) * np.sqrt(pa * pb)
        return -np.log(np.where(c == 0, pa, np.where(c == 1, pb, t)) / (pa + pb + t)).sum()

    o = minimize(nll, np.zeros(M), method="BFGS", options={"gtol": 1e-10})
    th = np.concatenate([[0.0], o.x[:M - 1]])
    th -= th.mean()
    f = bradley_terry(h, ties="davidson", tie_rule="tie_half", **FAST).to_frame()
    assert np.allclose(f.estimate.to_numpy()[:M], th, atol=1e-5)   # scipy's BFGS stops near 1e-7
    assert f.estimate.iloc[-1] == pytest.approx(np.exp(o.x[-1]), abs=1e-5)
    assert f.statistic.iloc[-1] == "tie_parameter"


def bradley_terry_separation_is_nan_test():
    b = pd.DataFrame({"item_id": list("123456"), "model_a": ["X", "X", "Y", "Y", "Z", "X"],
                      "model_b": ["Y", "Z", "Z", "X", "X", "Y"], "outcome": ["A", "A", "A", "B", "B", "A"]})
    with pytest.warns(metaeval.UndefinedStatisticWarning, match="did not converge"):
        r = bradley_terry(b, **FAST)
    assert np.isnan(r.to_frame().estimate).all()
    ok = bradley_terry(b, ridge=0.1, **FAST).to_frame().set_index("model").estimate
    assert ok["X"] > ok["Y"] > ok["Z"]


def model_rank_correlation_test():
    b = _battles()
    h = b[b.judge == "human"]
    j = b[(b.judge == "judge") & (b.swapped == 0)]
    with pytest.warns(MetaevalWarning):
        r = model_rank_correlation(h, j, **FAST)
    s = r.info["scores"]
    f = r.to_frame().set_index("statistic").estimate
    assert f["kendall_tau_b"] == pytest.approx(stats.kendalltau(s.reference, s.candidate)[0], abs=1e-12)
    assert f["spearman_rho"] == pytest.approx(stats.spearmanr(s.reference, s.candidate)[0], abs=1e-12)
    # the reference's scores are the humans' Bradley-Terry strengths
    bt = bradley_terry(h, ci_method=None).to_frame().set_index("model").estimate
    assert np.allclose(s.set_index("model").reference, bt.loc[s.model], atol=1e-9)
    # README §4: with leaning ties to their side and exact ties dropped, the humans' fit recovers the
    # latent order exactly and the judge's has Spearman 0.976 with it, so judge vs human is 0.976
    with pytest.warns(MetaevalWarning):
        readme = model_rank_correlation(h[h.outcome != "tie"], j[j.outcome != "tie"], **FAST)
    assert round(readme["spearman_rho"].estimate, 3) == 0.976
    with pytest.warns(MetaevalWarning):
        w = model_rank_correlation(h, j, method="win_rate", tie_rule="tie_half", **FAST)
    sw = w.info["scores"]
    assert w["spearman_rho"].estimate == pytest.approx(stats.spearmanr(sw.reference, sw.candidate)[0], abs=1e-12)


def length_controlled_win_rate_test():
    rng = np.random.default_rng(1)
    n = 400
    lb = rng.integers(50, 500, n)
    la = lb + 200 + rng.integers(-150, 150, n)          # the baseline writes about 200 more
    # the preference follows the GLM exactly, with no model effect: P(second wins) = σ(3 tanh(Δ/sd)),
    # Δ = second minus first length
    d = (lb - la).astype(float)
    p_second = 1 / (1 + np.exp(-3 * np.tanh(d / np.std(d, ddof=1))))
    df = pd.DataFrame({"item_id": [str(i) for i in range(n)], "model_a": "base", "model_b": "m",
                       "preference": 1 + p_second, "length_a": la, "length_b": lb})
    r = length_controlled_win_rate(df, baseline="base", preference="preference", **FAST)
    f = r.to_frame().set_index("model")
    # the raw win rate is low (the model is shorter); with the length term zeroed it is 1/2 exactly
    assert f.loc["m", "raw_win_rate"] < 0.15
    assert f.loc["m", "estimate"] == pytest.approx(0.5, abs=1e-8)
    assert f.loc["m", "coef_length"] == pytest.approx(3.0, abs=1e-8)
    # the GLM is a binomial GLM with soft labels: statsmodels gives the same coefficients
    df["preference"] = 1 + np.clip(p_second + rng.normal(0, 0.2, n), 0, 1)
    f = length_controlled_win_rate(df, baseline="base", preference="preference", **FAST).to_frame().set_index("model")
    X = np.column_stack([np.ones(n), np.tanh(d / np.std(d, ddof=1))])
    g = sm.GLM((df.preference - 1).to_numpy(), X, family=sm.families.Binomial()).fit(tol=1e-12)
    assert f.loc["m", "coef_model"] == pytest.approx(g.params[0], abs=1e-6)
    assert f.loc["m", "coef_length"] == pytest.approx(g.params[1], abs=1e-6)
    # equal lengths: the controlled win rate is the raw (mean) preference
    eq = df.assign(length_a=100, length_b=100)
    e = length_controlled_win_rate(eq, baseline="base", preference="preference", **FAST).to_frame()
    assert e.estimate.iloc[0] == pytest.approx((eq.preference - 1).mean(), abs=1e-9)


def length_controlled_without_baseline_test():
    b = _battles()
    h = b[b.judge == "human"]
    r = length_controlled_win_rate(h, **FAST).to_frame().set_index("model")
    assert r.loc["(length)", "statistic"] == "length_coefficient"
    # README §4: humans prefer longer answers (slope 0.25 on the log ratio), so the length term is
    # positive, and the best model's (longest answers) controlled win rate is below its raw one
    assert r.loc["(length)", "estimate"] > 0
    assert r.loc["gpt-4o+dalle-3", "estimate"] < r.loc["gpt-4o+dalle-3", "raw_win_rate"]


def majority_and_inter_rater_test():
    rows = []
    verdicts = {"r1": ["A", "B", "tie", "A", "B", "A"], "r2": ["A", "B", "A", "tie", "B", "B"],
                "r3": ["A", "tie", "tie", "B", "B", "A"]}
    for r, vs in verdicts.items():
        for i, v in enumerate(vs):
            rows.append({"item_id": str(i), "model_a": "X", "model_b": "Y", "judge": r, "outcome": v})
    b = pd.DataFrame(rows)
    m = majority_verdict(b)
    # item 3: A / tie / B, no majority -> tie (split="tie")
    assert m.outcome.tolist() == ["A", "B", "tie", "tie", "B", "A"]
    assert m.n_votes.tolist() == [3, 2, 2, 1, 3, 2]
    assert len(majority_verdict(b, split="drop")) == 5
    ir = inter_rater_agreement(b, tie_rule="tie_zero", **FAST).to_frame()
    k = ir[ir.statistic == "cohen_kappa"].set_index(["rater_a", "rater_b"]).estimate
    for r1, r2 in (("r1", "r2"), ("r1", "r3"), ("r2", "r3")):
        assert k[(r1, r2)] == pytest.approx(cohen_kappa_score(verdicts[r1], verdicts[r2]), abs=1e-12)
    # pooled over the three pairs of every item, each item weighing 1: the mean pairwise agreement
    a = ir[ir.statistic == "agreement"].set_index(["rater_a", "rater_b"]).estimate
    pair_mean = np.mean([np.mean(np.array(verdicts[x]) == np.array(verdicts[y]))
                         for x, y in (("r1", "r2"), ("r1", "r3"), ("r2", "r3"))])
    assert a[("all pairs", "all pairs")] == pytest.approx(pair_mean, abs=1e-12)


def combine_swaps_fastchat_test():
    b = pd.DataFrame({"item_id": ["1", "1", "2", "2", "3"], "model_a": ["X", "Y", "X", "Y", "X"],
                      "model_b": ["Y", "X", "Y", "X", "Y"], "outcome": ["A", "B", "A", "A", "tie_b"]})
    c = combine_swaps(b)
    # item 1: X wins both orders -> A; item 2: the first-shown wins both times -> inconsistent -> tie;
    # item 3: one order only, kept
    assert c.outcome.tolist() == ["A", "tie", "tie_b"] and c.n_orders.tolist() == [2, 2, 1]
    w = win_rates(b, swap_rule="fastchat", tie_rule="tie_half", **FAST).wide()
    assert w.loc["X", "tie_half"] == pytest.approx((1 + 0.5 + 0.5) / 3)


def duplicates_and_input_errors_test():
    j = hand()
    with pytest.raises(InputError, match="more than once"):
        pairwise_agreement(hand("human"), pd.concat([j, j]), **FAST)
    with pytest.warns(FutureWarning, match="duplicates='error'"), pytest.raises(InputError, match="candidate rows"):
        pairwise_agreement(hand("human"), pd.concat([j, j]), duplicates="raise", **FAST)     # the old spelling
    r = pairwise_agreement(hand("human"), pd.concat([j, j]), duplicates="all", tie_rule="tie_zero", **FAST)
    assert r["agreement"].estimate == pytest.approx(0.6)                     # each battle weighs 1
    with pytest.raises(InputError, match="lacks column"):
        win_rates(j.drop(columns="outcome"), **FAST)
    with pytest.raises(ValueError, match="tie_rule"):
        win_rates(j, tie_rule="ties_as_one_third", **FAST)
    with pytest.raises(InputError, match="unknown outcome"):
        win_rates(j.assign(outcome="maybe"), **FAST)
    with pytest.raises(InputError, match="baseline"):
        win_rates(j, baseline="W", **FAST)
    # raw spellings are normalized like read_battles does
    raw = j.assign(outcome=j.outcome.map({"A": "model_a", "B": "model_b", "tie": "draw", "tie_a": "Tie(A)",
                                          "tie_b": "Tie(B)"}))
    assert np.allclose(win_rates(raw, **FAST).wide(), win_rates(j, **FAST).wide())


# --------------------------------------------------------------------------------------------
# coverage (slow): do 95% cluster intervals cover the population win rate?
# --------------------------------------------------------------------------------------------

def _simulate(rng, n_items, true_theta, item_sd, per_item):
    """Items with a shared random effect u ~ N(0, item_sd²); on each item, `per_item` battles of
    model m against the baseline; P(m wins | u) = σ(θ_m + u), ties with probability 0.15."""
    rows = []
    for i in range(n_items):
        u = rng.normal(0, item_sd)
        for m, th in true_theta.items():
            pw = 1 / (1 + np.exp(-(th + u)))
            for _ in range(per_item):
                r = rng.random()
                out = "tie" if r < 0.15 else ("B" if rng.random() < pw else "A")
                rows.append((str(i), "base", m, out))
    return pd.DataFrame(rows, columns=["item_id", "model_a", "model_b", "outcome"])


def _true_tie_half(theta, item_sd):
    # E[0.15 · ½ + 0.85 · σ(θ + u)], u ~ N(0, item_sd²), by Gauss–Hermite quadrature
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return 0.075 + 0.85 * float((w * (1 / (1 + np.exp(-(theta + item_sd * x))))).sum() / w.sum())


@pytest.mark.slow
def win_rate_cluster_coverage_test():
    true_theta = {"m1": -1.0, "m2": 0.5}
    item_sd, n_items, per_item, reps = 1.5, 40, 5, 300
    truth = {m: _true_tie_half(t, item_sd) for m, t in true_theta.items()}
    rng = np.random.default_rng(20240614)
    cover = {"clusters": 0, "items": 0}
    total = 0
    for _ in range(reps):
        df = _simulate(rng, n_items, true_theta, item_sd, per_item)
        for cl, key in (("item_id", "clusters"), (None, "items")):
            f = win_rates(df, tie_rule="tie_half", baseline="base", cluster=cl, n_resamples=400, rng=rng).to_frame()
            for m in true_theta:
                row = f[f.model == m].iloc[0]
                cover[key] += row.ci_low <= truth[m] <= row.ci_high
        total += len(true_theta)
    cov_cluster = cover["clusters"] / total
    cov_iid = cover["items"] / total
    print(f"\nwin-rate coverage (95%, {total} intervals): clusters {cov_cluster:.3f}, iid battles {cov_iid:.3f}")
    # Monte-Carlo SE of a coverage near 0.95 with 600 intervals: 0.009
    assert 0.925 <= cov_cluster <= 0.975, cov_cluster
    # battles of an item share its difficulty: intervals that resample battles are too narrow
    assert cov_iid < 0.88, cov_iid


@pytest.mark.slow
def agreement_cluster_coverage_test():
    # judge = human with probability q_i per item (q_i ~ Beta(4, 1.5)), else a random verdict among
    # A / tie / B; the population tie_zero agreement is E[q] + (1 − E[q]) / 3
    rng = np.random.default_rng(7)
    a, b_, n_items, per_item, reps = 4.0, 1.5, 40, 4, 300
    truth = a / (a + b_) + (1 - a / (a + b_)) / 3
    hits = 0
    for _ in range(reps):
        q = rng.beta(a, b_, n_items)
        rows_h, rows_j = [], []
        for i in range(n_items):
            for k in range(per_item):
                hv = rng.choice(["A", "tie", "B"], p=[0.45, 0.1, 0.45])
                jv = hv if rng.random() < q[i] else rng.choice(["A", "tie", "B"])
                rows_h.append((str(i), f"m{k}", "base", hv))
                rows_j.append((str(i), f"m{k}", "base", jv))
        cols = ["item_id", "model_a", "model_b", "outcome"]
        r = pairwise_agreement(pd.DataFrame(rows_h, columns=cols), pd.DataFrame(rows_j, columns=cols),
                               tie_rule="tie_zero", n_resamples=400, rng=rng)
        e = r["agreement"]
        hits += e.ci.low <= truth <= e.ci.high
    print(f"\nagreement coverage (95%, {reps} intervals, clusters): {hits / reps:.3f}")
    assert 0.92 <= hits / reps <= 0.98, hits / reps
