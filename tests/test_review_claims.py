"""check_claims (metaeval.review.claims): each kind against an independent reference.

Sources of the expected numbers, per test: statsmodels (``cohens_kappa``, ``proportion_confint``,
``fleiss_kappa``, ``confint_proportions_2indep``), scipy.stats (``pearsonr``, ``spearmanr``,
``kendalltau`` with its exact null distribution), scikit-learn (``f1_score``), Newcombe (1998,
Statistics in Medicine 17, 873–890, Table II: 56/70 vs 48/80, method 10 → 0.0524 to 0.3339), the
Fisher-z formulas written out (R's ``cor.test``; Fieller, Hartley & Pearson 1957 for τ), and the
prevalence map of STATISTICS.md written out from Se and Sp.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import f1_score
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

import metaeval
from metaeval import InputError
from metaeval.review.claims import COLUMNS, check_claims, parse_p, to_records

ROOT = Path(__file__).resolve().parents[1]
Z = stats.norm.ppf(0.975)
TABLE = [[85, 20], [20, 77]]


def one(**claim):
    return check_claims([claim]).iloc[0]


def registered_test():
    assert metaeval.check_claims is check_claims
    from metaeval.review import check_claims as reexported
    assert reexported is check_claims


# --------------------------------------------------------------------------------------------
# kappa
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("weights,wt", [(None, None), ("linear", "linear"), ("quadratic", "quadratic")])
def kappa_from_table_matches_statsmodels_test(weights, wt):
    t = [[20, 5, 1], [4, 30, 6], [0, 7, 27]]
    ref = cohens_kappa(np.array(t), wt=wt)
    r = one(kind="kappa", value=f"{ref.kappa:.3f}", table=t, weights=weights)
    assert r.verdict == "consistent"
    assert r.recomputed == pytest.approx(ref.kappa, abs=1e-12)
    assert r.ci_low == pytest.approx(ref.kappa - Z * ref.std_kappa, abs=1e-9)
    assert r.ci_high == pytest.approx(ref.kappa + Z * ref.std_kappa, abs=1e-9)
    assert "iid items" in r.reason


def kappa_table_mismatch_and_ci_test():
    ref = cohens_kappa(np.array(TABLE))
    lo, hi = ref.kappa - Z * ref.std_kappa, ref.kappa + Z * ref.std_kappa
    r = one(kind="kappa", value=0.603, table=TABLE, ci=[round(lo, 3), round(hi, 3)])
    assert r.verdict == "consistent" and "analytic (normal) interval" in r.reason
    r = one(kind="kappa", value=0.603, table=TABLE, ci=[0.40, 0.80])
    assert "is none of" in r.reason
    r = one(kind="kappa", value=0.65, table=TABLE)
    assert r.verdict == "inconsistent" and "does not round to 0.65" in r.reason
    r = one(kind="kappa", value=0.603, table=TABLE, percent_agreement="0.812")
    assert r.verdict == "inconsistent"
    # a threshold the interval does not clear
    assert one(kind="kappa", value=0.603, table=TABLE, above=0.5).verdict == "not supported"
    assert one(kind="kappa", value=0.603, table=TABLE, above=0.4).verdict == "consistent"


def kappa_from_margins_and_n_test():
    r = one(kind="kappa", value="0.60", n=202, margins=[[105, 97], [105, 97]], percent_agreement="0.802")
    assert r.verdict == "consistent" and r.recomputed == pytest.approx(cohens_kappa(np.array(TABLE)).kappa)
    assert np.isfinite(r.ci_low)
    r = one(kind="kappa", value="0.70", n=202, margins=[[105, 97], [105, 97]], percent_agreement="0.802")
    assert r.verdict == "inconsistent" and "nearest feasible pair" in r.reason
    r = one(kind="kappa", value="0.63", n=40, percent_agreement="0.39")
    assert r.verdict == "inconsistent" and math.isnan(r.ci_low) and "needs the margins" in r.reason
    assert one(kind="kappa", value=0.61, n=202).verdict == "consistent"


def kappa_could_conclude_test():
    r = one(kind="kappa", value=0.603, table=TABLE, prevalence=0.0107, half_width=0.05,
            judge_positives=2500, judge_total=10000)
    d = r.details
    # STATISTICS.md: Se = 77/97, Sp = 85/105; the expected table at π = 0.0107 gives κ ≈ 0.063, PPV ≈ 0.043
    se, sp, pi = 77 / 97, 85 / 105, 0.0107
    tp, fn, fp, tn = pi * se, pi * (1 - se), (1 - pi) * (1 - sp), (1 - pi) * sp
    po = tp + tn
    pe = (tp + fn) * (tp + fp) + (fn + tn) * (fp + tn)
    assert d["kappa_at_prevalence"]["kappa"] == pytest.approx((po - pe) / (1 - pe), abs=1e-9)
    assert d["kappa_at_prevalence"]["ppv"] == pytest.approx(tp / (tp + fp), abs=1e-9)
    # labels for ±0.05: n = z² · N·var(κ) / h² with statsmodels' var_kappa
    ref = cohens_kappa(np.array(TABLE))
    assert d["labels_needed"]["n"] == math.ceil(Z**2 * ref.var_kappa * 202 / 0.05**2)
    # Rogan–Gladen: (q + Sp − 1)/(Se + Sp − 1)
    assert d["corrected_prevalence"]["estimate"] == pytest.approx((0.25 + sp - 1) / (se + sp - 1), abs=1e-9)
    assert "deployment prevalence" in r.could_conclude


def fleiss_kappa_test():
    rng = np.random.default_rng(5)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=40)
    ref = fleiss_kappa(counts)
    r = one(kind="fleiss_kappa", value=f"{ref:.3f}", value_counts=counts.tolist())
    assert r.verdict == "consistent" and r.recomputed == pytest.approx(ref, abs=1e-12)
    assert one(kind="fleiss_kappa", value=0.5).verdict == "not supported"


# --------------------------------------------------------------------------------------------
# proportions
# --------------------------------------------------------------------------------------------

def accuracy_wilson_and_grim_test():
    r = one(kind="accuracy", value=0.77, n=202)
    assert r.verdict == "consistent" and r.recomputed == pytest.approx(156 / 202)
    lo, hi = proportion_confint(156, 202, method="wilson")
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    r = one(kind="accuracy", value=0.77, n=202, ci_method="exact")
    assert (r.ci_low, r.ci_high) == pytest.approx(proportion_confint(156, 202, method="beta"), abs=1e-9)
    r = one(kind="accuracy", value="0.770", n=202)
    assert r.verdict == "inconsistent" and "GRIM" in r.reason
    assert one(kind="accuracy", value=0.77, decimals=3, n=202).verdict == "inconsistent"
    assert one(kind="accuracy", value=0.55, n=40, above=0.5).verdict == "not supported"
    assert one(kind="precision", value=0.9, n=50).verdict == "consistent"
    assert one(kind="recall", value=0.91, n=11).verdict == "consistent"        # 10/11 = 0.909
    assert one(kind="recall", value=0.95, n=11).verdict == "inconsistent"      # between 10/11 and 11/11


def precision_and_recall_intervals_test():
    """Precision and recall are proportions of their own denominators: Wilson / Clopper–Pearson at k/n as
    statsmodels' proportion_confint; the count k is the one that prints as the value (GRIM)."""
    r = one(kind="precision", value="0.90", n=50)
    assert r.details["count"] == 45 and r.recomputed == pytest.approx(0.9)
    assert (r.ci_low, r.ci_high) == pytest.approx(proportion_confint(45, 50, method="wilson"), abs=1e-12)
    r = one(kind="recall", value=0.91, n=11, ci_method="exact")
    assert r.details["count"] == 10
    assert (r.ci_low, r.ci_high) == pytest.approx(proportion_confint(10, 11, method="beta"), abs=1e-9)
    assert "n = 11 counts the" in r.reason


def f1_test():
    t = np.array([[50, 10], [8, 32]])
    x = np.repeat([0, 0, 1, 1], t.ravel())
    y = np.repeat([0, 1, 0, 1], t.ravel())
    ref = f1_score(x, y)
    r = one(kind="f1", value=f"{ref:.3f}", table=t.tolist())
    assert r.verdict == "consistent" and r.recomputed == pytest.approx(ref)
    assert r.ci_low < ref < r.ci_high
    # F1 = 2PR/(P + R): P = 0.80, R = 0.60 give 0.6857; over their rounding, 0.680 to 0.691
    assert one(kind="f1", value=0.69, precision="0.80", recall="0.60").verdict == "consistent"
    assert one(kind="f1", value="0.70", precision="0.80", recall="0.60").verdict == "inconsistent"


# --------------------------------------------------------------------------------------------
# correlations
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def correlation_pvalue_matches_scipy_test(method):
    rng = np.random.default_rng(11)
    x = rng.normal(size=60)
    y = 0.4 * x + rng.normal(size=60)
    f = {"pearson": stats.pearsonr, "spearman": stats.spearmanr,
         "kendall": stats.kendalltau}[method]          # scipy's default test (Kendall: asymptotic above 33 items)
    res = f(x, y)
    r = one(kind="correlation", method=method, value=float(res.statistic), n=60, p=f"{res.pvalue:.2g}")
    assert r.p_recomputed == pytest.approx(res.pvalue, rel=1e-9)
    assert r.verdict == "consistent"
    if method == "kendall":        # the exact null is one of the methods checked: scipy's exact p is its range
        exact = stats.kendalltau(x, y, method="exact").pvalue
        assert r.details["p_methods"]["exact null without ties"] == pytest.approx([exact, exact], rel=1e-9)


def kendall_correlation_and_rank_correlation_share_one_null_test():
    # τ = 0.60 of 10 items is 9 discordant pairs of 45: scipy's exact p 0.016666 (kendalltau(..., method="exact"))
    p = stats.kendalltau(np.arange(10), [9, 0, 1, 2, 3, 4, 5, 6, 7, 8], method="exact").pvalue   # 9 inversions
    a = one(kind="correlation", method="kendall", value="0.60", n=10, p=".016")
    b = one(kind="rank_correlation", value="0.60", systems=10, p=".016")
    assert a.p_recomputed == pytest.approx(p, rel=1e-12) and b.p_recomputed == pytest.approx(p, rel=1e-12)
    # .016 cannot follow from the exact 0.01667, but it is scipy's asymptotic p (kendalltau(...,
    # method="asymptotic") = 0.0157): consistent, and the reason names that method
    asym = stats.kendalltau(np.arange(10), [9, 0, 1, 2, 3, 4, 5, 6, 7, 8], method="asymptotic").pvalue
    assert round(asym, 3) == 0.016
    assert a.verdict == b.verdict == "consistent"
    assert a.details["p_methods_matching"][0] == b.details["p_methods_matching"][0] == "normal approximation without ties"
    # .017 is the exact one's
    c = one(kind="rank_correlation", value="0.60", systems=10, p=".017")
    assert c.verdict == "consistent" and "exact null without ties" in c.details["p_methods_matching"]
    assert one(kind="rank_correlation", value="0.60", systems=10, p=".030").verdict == "inconsistent"


def correlation_interval_and_inconsistency_test():
    r = one(kind="correlation", method="pearson", value=0.52, n=30, p="< .001")
    # R cor.test: tanh(atanh(r) ± z/√(n − 3))
    assert (r.ci_low, r.ci_high) == pytest.approx((math.tanh(math.atanh(0.52) - Z / math.sqrt(27)),
                                                   math.tanh(math.atanh(0.52) + Z / math.sqrt(27))), abs=1e-12)
    assert r.verdict == "inconsistent"                 # t(28) = 3.22 gives p ≈ .003
    assert one(kind="correlation", method="pearson", value=0.52, n=30, p=".003").verdict == "consistent"
    assert one(kind="correlation", method="pearson", value=0.52, n=30, p="ns").verdict == "inconsistent"
    assert one(kind="correlation", method="pearson", value=0.52, n=30, above=0.3).verdict == "not supported"


def one_definition_of_the_r_test_test():
    """check_claims' p of a Pearson r with n and review_text's p of "r(df) = …" are one function
    (metaeval.agreement.correlation.r_test_pvalue), equal to scipy's pearsonr p on data with that r."""
    from metaeval.agreement.correlation import r_test_pvalue

    rng = np.random.default_rng(4)
    x = rng.normal(size=40)
    y = 0.5 * x + rng.normal(size=40)
    res = stats.pearsonr(x, y)
    assert r_test_pvalue(res.statistic, 38) == pytest.approx(res.pvalue, rel=1e-10)
    claim = one(kind="correlation", method="pearson", value=round(float(res.statistic), 2), n=40)
    text = metaeval.review_text(f"r(38) = {round(float(res.statistic), 2):.2f}, p = .001")
    assert claim.p_recomputed == text.loc[0, "computed_p"] == r_test_pvalue(round(float(res.statistic), 2), 38)


def parse_p_test():
    assert parse_p("p < .001") == ("<", 0.001, 3)
    assert parse_p("= .03") == ("=", 0.03, 2)
    assert parse_p("ns") == (">", 0.05, None)
    assert parse_p(0.049) == ("=", 0.049, 3)
    with pytest.raises(InputError):
        parse_p("p is small")


# --------------------------------------------------------------------------------------------
# rankings of systems
# --------------------------------------------------------------------------------------------

def rank_correlation_exact_p_matches_scipy_test():
    rng = np.random.default_rng(2)
    m = 12
    perm = rng.permutation(m)
    res = stats.kendalltau(np.arange(m), perm, method="exact")
    r = one(kind="rank_correlation", value=float(res.statistic), systems=m, p=f"{res.pvalue:.3g}")
    assert r.p_recomputed == pytest.approx(res.pvalue, rel=1e-12)
    assert r.verdict == "consistent"


def rank_correlation_grim_and_voorhees_test():
    # 10 systems: τ = 1 − 2D/45; 0.51 is D = 11 (0.5111), 0.50 needs D = 11.25: impossible without ties
    assert one(kind="rank_correlation", value=0.51, systems=10).verdict == "consistent"
    r = one(kind="rank_correlation", value="0.50", systems=10)
    assert r.verdict == "inconsistent" and "untied" in r.reason
    assert one(kind="rank_correlation", value="0.50", systems=10, ties=True).verdict == "consistent"
    # τ = 0.89 over 59 systems is not distinguishable from Voorhees' 0.9: the Fisher-z interval with
    # SE √(0.437/(m − 4)) (Fieller et al. 1957) contains it
    se = math.sqrt(0.437 / 55)
    r = one(kind="rank_correlation", value=0.89, systems=59, p="< .001", compare_to=0.9)
    assert (r.ci_low, r.ci_high) == pytest.approx((math.tanh(math.atanh(0.89) - Z * se),
                                                   math.tanh(math.atanh(0.89) + Z * se)), abs=1e-12)
    assert r.verdict == "not supported"
    assert r.details["resolvable_above"] == pytest.approx(math.tanh(math.atanh(0.9) + Z * se))
    # a reported p the exact null distribution cannot give
    assert one(kind="rank_correlation", value=0.2, systems=10, p="< .01").verdict == "inconsistent"


# --------------------------------------------------------------------------------------------
# win rates
# --------------------------------------------------------------------------------------------

def win_rate_test():
    r = one(kind="win_rate", wins=110, losses=60, ties=30, value=0.625)
    assert r.verdict == "consistent" and r.statistic == "win_rate_tie_half"
    r = one(kind="win_rate", wins=110, losses=60, ties=30, value=0.647)
    assert r.statistic == "win_rate_without_ties"
    assert (r.ci_low, r.ci_high) == pytest.approx(proportion_confint(110, 170, method="wilson"), abs=1e-12)
    assert one(kind="win_rate", wins=110, losses=60, ties=30, value="0.600").verdict == "inconsistent"


def win_rate_tie_half_wald_test():
    """tie_half: the mean of credits 1 (win), ½ (tie), 0 (loss) with the Wald interval of a mean
    (population SD / √N, normal quantile), written out with numpy."""
    credits = np.repeat([1.0, 0.5, 0.0], [110, 30, 60])
    h = Z * credits.std() / math.sqrt(len(credits))
    r = one(kind="win_rate", wins=110, losses=60, ties=30, tie_rule="tie_half")
    assert r.recomputed == pytest.approx(credits.mean())
    assert (r.ci_low, r.ci_high) == pytest.approx((credits.mean() - h, credits.mean() + h), abs=1e-12)
    b = np.repeat([1.0, 0.5, 0.0], [90, 40, 70])
    d = credits.mean() - b.mean()
    hd = Z * math.sqrt(credits.var() / len(credits) + b.var() / len(b))
    r = one(kind="win_rate_difference", a={"wins": 110, "losses": 60, "ties": 30},
            b={"wins": 90, "losses": 70, "ties": 40})
    assert r.recomputed == pytest.approx(d)
    assert (r.ci_low, r.ci_high) == pytest.approx((d - hd, d + hd), abs=1e-12)
    assert r.verdict == ("not supported" if d - hd <= 0 else "consistent")


def win_rate_difference_newcombe_test():
    # Newcombe (1998) Table II example: 56/70 vs 48/80, method 10 → 0.0524 to 0.3339
    r = one(kind="win_rate_difference", a={"wins": 56, "losses": 14}, b={"wins": 48, "losses": 32},
            tie_rule="without_ties", value=0.2)
    assert (round(r.ci_low, 4), round(r.ci_high, 4)) == (0.0524, 0.3339)
    assert r.verdict == "consistent"
    lo, hi = confint_proportions_2indep(56, 70, 48, 80, method="newcomb")
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi))
    r = one(kind="win_rate_difference", a={"wins": 50, "losses": 45, "ties": 5}, b={"wins": 48, "losses": 47, "ties": 5})
    assert r.verdict == "not supported"


# --------------------------------------------------------------------------------------------
# judge vs human
# --------------------------------------------------------------------------------------------

def judge_vs_human_test():
    # the SE from κ and n at prevalence 0.5 and equal margins is statsmodels' std_kappa of that table
    def se(k, n):
        off = 0.25 * (1 - k)
        return cohens_kappa(np.array([[0.5 - off, off], [off, 0.5 - off]]) * n).std_kappa

    r = one(kind="judge_vs_human", judge_kappa=0.58, judge_n=300, human_kappa=0.62, human_n=150)
    s = math.hypot(se(0.58, 300), se(0.62, 150))
    assert r.details["se_difference"]["independent"] == pytest.approx(s, rel=1e-9)
    assert r.p_recomputed == pytest.approx(2 * stats.norm.sf(0.04 / s), rel=1e-9)
    assert r.verdict == "not supported"
    r = one(kind="judge_vs_human", judge_kappa=0.70, judge_n=3000, human_kappa=0.70, human_n=3000)
    assert r.verdict == "consistent"
    r2 = one(kind="judge_vs_human", judge_kappa=0.70, judge_n=3000, human_kappa=0.70, human_n=3000, overlap=True)
    assert r2.ci_high - r2.ci_low > r.ci_high - r.ci_low


# --------------------------------------------------------------------------------------------
# files, errors, output
# --------------------------------------------------------------------------------------------

def example_file_test():
    df = check_claims(ROOT / "data_samples" / "claims" / "example.toml")
    assert list(df.columns) == list(COLUMNS)
    assert df["verdict"].tolist() == ["consistent", "consistent", "inconsistent", "inconsistent",
                                      "not supported", "consistent", "not supported"]
    recs = json.loads(json.dumps(to_records(df)))
    assert len(recs) == len(df) and all(r["reason"] for r in recs)
    # reproducible: the bootstraps are seeded
    again = check_claims(ROOT / "data_samples" / "claims" / "example.toml")
    assert again["could_conclude"].tolist() == df["could_conclude"].tolist()


def errors_test(tmp_path):
    with pytest.raises(InputError, match="claim 1 .*unknown kind 'kapa'"):
        check_claims([{"kind": "kapa", "value": 0.6}])
    with pytest.raises(InputError, match="claim 2 .*missing field 'n'"):
        check_claims([{"kind": "accuracy", "value": 0.6, "n": 10},
                      {"kind": "correlation", "method": "pearson", "value": 0.6}])
    with pytest.raises(InputError, match="table= .* or n="):
        check_claims([{"kind": "kappa", "value": 0.6}])
    with pytest.raises(InputError, match="add up to n"):
        check_claims([{"kind": "kappa", "value": 0.6, "n": 10, "margins": [[5, 4], [5, 5]]}])
    bad = tmp_path / "bad.toml"
    bad.write_text('[[claim]]\nkind = "kappa"\nvalue = \n', encoding="utf-8")
    with pytest.raises(InputError, match="bad.toml, line 3"):
        check_claims(bad)
    empty = tmp_path / "empty.toml"
    empty.write_text("title = 'x'\n", encoding="utf-8")
    with pytest.raises(InputError, match="no claims"):
        check_claims(empty)


def proportion_without_n_test():
    """A share printed without its n (OpenING's 82.42 % agreement): not supported, with the smallest n at
    which some count k/n prints as the value — checked by exact rational rounding (half a unit of the
    last digit, ends included)."""
    from decimal import Decimal
    from fractions import Fraction

    df = check_claims([{"kind": "accuracy", "value": "0.8242"}, {"kind": "proportion", "value": "0.5778"}])
    assert df["verdict"].tolist() == ["not supported", "not supported"]
    for printed, got in zip(("0.8242", "0.5778"), df["details"]):
        q, h = Fraction(Decimal(printed)), Fraction(1, 20000)
        expected = [m for m in range(1, 400) if any(q - h <= Fraction(k, m) <= q + h for k in range(m + 1))][:5]
        assert got["possible_n"] == expected
    assert df["details"][1]["possible_n"][0] == 45          # 26/45 = 0.57778
