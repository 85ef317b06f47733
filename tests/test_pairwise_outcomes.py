"""The tie rules are one table (metaeval/pairwise/outcomes.py) and every pairwise function reads it.

Sources of the expected numbers:

* OpenING (Zhou et al. 2024, arXiv:2411.18499), ``calculate_model_winrate.py``: ``tie2ABdiv`` (FDT:
  A or Tie(A) is a win of A, every battle counts), ``without_tie`` (only A/B battles count),
  ``with_tie`` (a tie is worth 0 and counts), ``with_tie_equaldiv`` (any tie is half a win); restated
  in /work/shared/STATISTICS.md §Pairwise. The table below is those definitions cell by cell.
* AlpacaEval (Dubois et al. 2024): a soft preference p in [1, 2] is worth p − 1 to the second model.
* The hand table of tests/test_pairwise.py (ten battles of X, Y, Z; counts per model W, LW, T, LL, L:
  X 2 2 1 1 1, Y 2 1 2 0 2, Z 1 0 1 2 2), scored by hand in the comments below.
* Property: a rule added as one row of the table is taken by every consumer (win rates, agreement,
  position bias, Bradley–Terry, length control, model rankings) with the numbers its row implies.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval import MetaevalWarning
from metaeval.pairwise import outcomes
from metaeval.pairwise.outcomes import TieRule

HAND = [("1", "X", "Y", "A", "A"), ("1", "X", "Z", "tie_a", "A"), ("2", "Y", "X", "B", "B"),
        ("2", "Y", "Z", "tie", "tie_a"), ("3", "Z", "X", "tie_b", "tie_b"), ("3", "Y", "Z", "A", "B"),
        ("4", "X", "Y", "tie_b", "B"), ("4", "Z", "Y", "B", "B"), ("5", "X", "Z", "B", "tie"),
        ("5", "Y", "X", "tie", "tie_b")]


def hand(rater="judge"):
    col = 3 if rater == "judge" else 4
    return pd.DataFrame({"item_id": [r[0] for r in HAND], "model_a": [r[1] for r in HAND],
                         "model_b": [r[2] for r in HAND], "outcome": [r[col] for r in HAND]})


POINT = dict(ci_method=None)

# OpenING's four functions, cell by cell: (numerator, denominator) of the first-shown model for
# A, tie_a, tie, tie_b, B
OPENING = {
    "fdt": [(1, 1), (1, 1), (0, 1), (0, 1), (0, 1)],           # tie2ABdiv: a plain Tie is a match nobody wins
    "without_ties": [(1, 1), (0, 0), (0, 0), (0, 0), (0, 1)],  # without_tie: ties leave the denominator
    "tie_zero": [(1, 1), (0, 1), (0, 1), (0, 1), (0, 1)],      # with_tie: a tie is worth 0 to both
    "tie_half": [(1, 1), (0.5, 1), (0.5, 1), (0.5, 1), (0, 1)],  # with_tie_equaldiv: 'Tie' in winner -> 0.5
}


def table_restates_opening_test():
    t = metaeval.tie_rule_table()
    assert list(t.rule.unique()) == ["fdt", "without_ties", "tie_zero", "tie_half", "exact", "soft"]
    for rule, cells in OPENING.items():
        sub = t[t.rule == rule].set_index("outcome").loc[["A", "tie_a", "tie", "tie_b", "B"]]
        assert list(zip(sub.numerator, sub.denominator)) == cells, rule
    # the verdicts: FDT sends leaning ties to their side; without_ties has no tie verdict
    fdt = t[t.rule == "fdt"].set_index("outcome").verdict
    assert fdt.to_dict() == {"A": "A", "tie_a": "A", "tie": "tie", "tie_b": "B", "B": "B"}
    assert t[(t.rule == "without_ties")].verdict.isna().sum() == 3
    # 'exact' has no win rate; 'soft' counts a preference of 1.5 as half (AlpacaEval)
    assert t[t.rule == "exact"].numerator.isna().all()
    assert t[(t.rule == "soft") & (t.outcome == "tie")].numerator.iloc[0] == 0.5


def plain_tie_options_test():
    fdt = outcomes.tie_rule("fdt")
    assert [fdt.credit(c) for c in range(5)] == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert outcomes.tie_rule("fdt", plain_tie="half").credit(2) == 0.5
    assert np.isnan(outcomes.tie_rule("fdt", plain_tie="drop").credit(2))
    assert outcomes.tie_rule("fdt", plain_tie="first").credit(2) == 1.0
    # agreement classes: the plain tie is its own class, gone, or the side shown first; a plain tie
    # given in the other presentation order (code T_REV) is then the other side
    labels, m, _, _ = outcomes.tie_rule("fdt", plain_tie="first").agreement_spec()
    assert labels == ["A", "B"] and m[outcomes.T].tolist() == [1, 0] and m[outcomes.T_REV].tolist() == [0, 1]
    labels, m, _, _ = outcomes.tie_rule("fdt", plain_tie="drop").agreement_spec()
    assert m[outcomes.T].sum() == 0
    assert outcomes.tie_rule("fdt").agreement_spec()[0] == ["A", "tie", "B"]      # the order of the outcomes
    with pytest.raises(ValueError, match="plain_tie"):
        outcomes.tie_rule("fdt", plain_tie="third")
    with pytest.raises(ValueError, match="unknown tie rule"):
        outcomes.tie_rule("ties_as_one_third")


def consumers_take_what_the_table_allows_test():
    assert outcomes.rules_for("win_rate") == outcomes.TIE_RULES
    assert outcomes.rules_for("agreement") == outcomes.TIE_RULES + ("exact",)
    assert outcomes.rules_for("models") == ("fdt", "without_ties", "tie_half")
    b = hand()
    with pytest.raises(ValueError, match="tie_rule"):
        metaeval.bradley_terry(b, tie_rule="tie_zero", **POINT)      # a tie is a tie in a model
    with pytest.raises(ValueError, match="tie_rule"):
        metaeval.win_rates(b, tie_rule="exact", **POINT)
    with pytest.raises(ValueError, match="tie_rule"):
        metaeval.win_rates(b, tie_rule="soft", **POINT)              # soft needs preference=


@pytest.fixture
def tie_third(monkeypatch):
    """A new rule, added as one row: every tie worth a third, graded agreement, usable in models."""
    rule = TieRule("tie_third", "tie=1/3", ("A", "tie", "tie", "tie", "B"), 1 / 3, agreement="graded",
                   formula="(W + (LW + T + LL)/3) / N", source="a test")
    monkeypatch.setitem(outcomes.RULES, "tie_third", rule)
    return rule


def a_new_row_reaches_every_consumer_test(tie_third):
    j, h = hand(), hand("human")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        # win rates: X (2 + 4/3)/7, Y (2 + 3/3)/7, Z (1 + 3/3)/6
        w = metaeval.win_rates(j, tie_rule="tie_third", **POINT).wide()["tie_third"]
        assert w.to_dict() == pytest.approx({"X": 10 / 21, "Y": 3 / 7, "Z": 1 / 3}, abs=1e-15)
        hh = metaeval.head_to_head(j, tie_rule="tie_third", **POINT).to_frame()
        assert (hh.estimate + hh.set_index(["opponent", "model"]).loc[list(zip(hh.model, hh.opponent))].estimate
                .to_numpy() <= 1 + 1e-12).all()
        # agreement, graded with s = 1, 1/3, 0: classes judge A t B t t A t B B t, human A A B t t B B B t t
        # -> 1, 1/3, 1, 1, 1, 0, 2/3, 1, 2/3, 1 = 23/3 over 10 battles
        a = metaeval.pairwise_agreement(h, j, tie_rule="tie_third", **POINT)
        assert a.get(statistic="agreement").estimate == pytest.approx(23 / 30, abs=1e-15)
        assert "macro_f1" not in {e.statistic for e in a}                # graded: no nominal classes
        # position bias: the first-shown side's rate under the new rule
        # first-shown outcomes: A 2, tie_a 1, tie 2, tie_b 2, B 3 -> (2 + 5/3)/10
        p = metaeval.position_bias(j, tie_rule="tie_third", **POINT)
        assert p.get(statistic="first_position_win_rate").estimate == pytest.approx((2 + 5 / 3) / 10, abs=1e-15)
        # models: a tie is a tie, so the fit is tie_half's
        bt3 = metaeval.bradley_terry(j, tie_rule="tie_third", ridge=0.5, **POINT).to_frame().estimate
        bth = metaeval.bradley_terry(j, tie_rule="tie_half", ridge=0.5, **POINT).to_frame().estimate
        assert np.allclose(bt3, bth, atol=1e-12)
        lc = metaeval.length_controlled_win_rate(j.assign(length_a=[5, 3, 4, 8, 1, 2, 9, 4, 4, 6], length_b=3),
                                                 tie_rule="tie_third", **POINT)
        assert len(lc) == 4
        mr = metaeval.model_rank_correlation(h, j, method="win_rate", tie_rule="tie_third", **POINT)
        assert mr.info["scores"].set_index("model").candidate.to_dict() == pytest.approx(w.to_dict(), abs=1e-15)
    assert "tie_third" in metaeval.tie_rule_table().rule.tolist()


def changing_a_row_changes_every_consumer_test(monkeypatch):
    # FDT with leaning ties as plain ties is tie_zero: the consumers follow the table, not their own code
    fdt = outcomes.RULES["fdt"]
    monkeypatch.setitem(outcomes.RULES, "fdt", TieRule("fdt", "FDT*", ("A", "tie", "tie", "tie", "B"), 0.0))
    w = metaeval.win_rates(hand(), tie_rule=["fdt", "tie_zero"], **POINT).wide()
    assert np.array_equal(w["fdt"], w["tie_zero"])
    a = metaeval.pairwise_agreement(hand("human"), hand(), tie_rule=["fdt", "tie_zero"], **POINT).to_frame()
    a = a[a.statistic == "agreement"].set_index("tie_rule").estimate
    assert a["fdt"] == pytest.approx(a["tie_zero"], abs=1e-15) and a["tie_zero"] == pytest.approx(0.6, abs=1e-15)
    assert fdt.verdict == ("A", "A", "tie", "B", "B")
