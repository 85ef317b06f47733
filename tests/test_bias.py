"""Bias tests (metaeval.bias) against statsmodels, pingouin, direct counts and planted effects.

Sources of the expected numbers:

* statsmodels ``OLS(...).fit(cov_type="cluster"|"HC1", use_t=True)`` and ``OrderedModel`` fitted
  directly on the same data in each test (the regressions must agree to rounding);
* pingouin ``partial_corr(method="spearman")`` fitted directly on the same data;
* ``data_samples/README.md`` (bundled synthetic data, generator ``data_samples/make_samples.py``):
  rubric_like §3 "Achieved statistics" (OLS (judge_mean − human) ~ own + ln(length): 0.223 /
  0.365 planted, −0.151 / 0.018 control; paired planted − control 0.374 / 0.347; mean gaps per
  generator +0.492 / +0.038 / −0.223; 30-seed means and sds), battles_like §4 (P(longer wins):
  human 0.659, judge unswapped 0.714);
* properties (identities, permutation invariance, brute-force enumeration) named in each test.
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
import statsmodels.api as sm
from metaeval.data_samples.make_samples import SEEDS, make_rubric_like
from statsmodels.miscmodels.ordinal_model import OrderedModel

import metaeval
from metaeval import InputError
from metaeval.agreement.correlation import mean_of_samples
from metaeval.checks.bias import (
    _freedman_lane,
    _partial_spearman_reps,
    _within_cluster_perms,
    length_bias,
    length_by_label,
    prefer_longer,
    rank_change,
    self_enhancement,
)
from metaeval.core.errors import SmallSampleWarning
from metaeval.core.resample import cluster_correction_factor
from metaeval.core.results import FRAME_COLUMNS

OWN = "gpt-4v"
SEED_LIST = list(range(10))          # fixed in advance: seeds 0..9 of the generator


def rubric_items(scores, judge_sample=None):
    h = scores[scores["rater"] == "human"].set_index("item_id")
    j = scores[scores["rater"] == "judge"]
    if judge_sample is None:
        js = mean_of_samples(j, item="item_id", sample="sample", score="score")["score"]
    else:
        js = j[j["sample"] == judge_sample].set_index("item_id")["score"]
    out = h[["prompt_id", "generator", "length"]].copy()
    out["human"] = h["score"].astype(float)
    out["judge"] = js.reindex(out.index).astype(float)
    out["own"] = (out["generator"] == OWN).astype(int)
    return out.reset_index()


@pytest.fixture(scope="module")
def planted():
    return rubric_items(metaeval.datasets.load("rubric_like").scores)


@pytest.fixture(scope="module")
def control():
    return rubric_items(make_rubric_like(np.random.default_rng(SEEDS["rubric_like"]), planted=False)["scores.csv"])


@pytest.fixture(scope="module")
def planted_sample1():
    return rubric_items(metaeval.datasets.load("rubric_like").scores, judge_sample=1)


def sm_ols(y, X, groups=None):
    m = sm.OLS(np.asarray(y, dtype=float), X)
    if groups is None:
        return m.fit(cov_type="HC1", use_t=True)
    return m.fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(groups, sort=True)[0]}, use_t=True)


def check_row(est, fit, term, tol=1e-10):
    lo, hi = fit.conf_int(alpha=0.05).loc[term]
    assert est.estimate == pytest.approx(fit.params[term], abs=tol)
    assert est.se == pytest.approx(fit.bse[term], abs=tol)
    assert est.ci.low == pytest.approx(lo, abs=tol)
    assert est.ci.high == pytest.approx(hi, abs=tol)
    assert est.pvalue == pytest.approx(fit.pvalues[term], rel=1e-8, abs=1e-300)


# --------------------------------------------------------------------------------------------
# length bias: regressions against statsmodels / pingouin fitted directly
# --------------------------------------------------------------------------------------------

def ols_difference_matches_statsmodels_cluster_test(planted):
    r = length_bias(planted, cluster="prompt_id", covariates=["own"], rng=0, n_resamples=50)
    X = pd.DataFrame({"const": 1.0, "log_length": np.log(planted["length"]), "own": planted["own"].astype(float)})
    fit = sm_ols(planted["judge"] - planted["human"], X, planted["prompt_id"])
    check_row(r["ols_difference"], fit, "log_length")
    check_row(r["ols_candidate"], sm_ols(planted["judge"], X, planted["prompt_id"]), "log_length")
    check_row(r["ols_reference"], sm_ols(planted["human"], X, planted["prompt_id"]), "log_length")
    # README §3: OLS (judge_mean − human) ~ own + ln(length) on the shipped file: ln(length) 0.365
    assert round(r.estimate, 3) == 0.365
    assert r["ols_difference"].unit == "clusters" and r["ols_difference"].n_units == 300


def ols_difference_matches_statsmodels_hc1_test(planted):
    r = length_bias(planted, rng=0, n_resamples=50)
    X = pd.DataFrame({"const": 1.0, "log_length": np.log(planted["length"])})
    check_row(r["ols_difference"], sm_ols(planted["judge"] - planted["human"], X), "log_length")
    assert r["ols_difference"].extra["cov_type"] == "HC1"


def ols_raw_length_and_text_covariate_test(planted):
    """log=False uses the raw length; a text covariate enters as dummies with the first level dropped."""
    r = length_bias(planted, covariates=["generator"], log=False, cluster="prompt_id", rng=0, n_resamples=50)
    g = pd.get_dummies(planted["generator"], prefix="generator", drop_first=True, dtype=float)
    X = pd.concat([pd.DataFrame({"const": 1.0, "length": planted["length"].astype(float)}), g], axis=1)
    check_row(r["ols_difference"], sm_ols(planted["judge"] - planted["human"], X, planted["prompt_id"]), "length")


def difference_slope_is_candidate_minus_reference_test(planted):
    """OLS is linear in y: the slope of J − H equals the slope of J minus the slope of H."""
    r = length_bias(planted, cluster="prompt_id", rng=0, n_resamples=50)
    assert r.estimate == pytest.approx(r["ols_candidate"].estimate - r["ols_reference"].estimate, abs=1e-12)


def ordinal_logit_matches_statsmodels_test(planted_sample1):
    d = planted_sample1
    r = length_bias(d, cluster="prompt_id", covariates=["own"], rng=0, n_resamples=50)
    e = r["ordinal_logit_log_length"]
    ex = pd.get_dummies(d["human"].map(lambda v: f"{v:g}"), prefix="reference", drop_first=True, dtype=float)
    ex["own"] = d["own"].astype(float)
    ex["log_length"] = np.log(d["length"])
    y = pd.Series(pd.Categorical(d["judge"], ordered=True))
    # an independent fit: another optimizer (Newton) from statsmodels' default start
    fit = OrderedModel(y, ex, distr="logit").fit(method="newton", maxiter=200, disp=0, cov_type="cluster",
                                                  cov_kwds={"groups": pd.factorize(d["prompt_id"])[0]})
    assert e.estimate == pytest.approx(fit.params["log_length"], abs=1e-4)
    assert e.se == pytest.approx(fit.bse["log_length"], rel=1e-3)
    assert e.pvalue == pytest.approx(fit.pvalues["log_length"], rel=1e-2, abs=1e-300)
    lo, hi = fit.conf_int(alpha=0.05).loc["log_length"]
    assert (e.ci.low, e.ci.high) == pytest.approx((lo, hi), abs=2e-3)
    assert e.unit == "clusters"


def ordinal_logit_skipped_for_mean_scores_test(planted):
    r = length_bias(planted, rng=0, n_resamples=50)
    with pytest.raises(KeyError):
        r["ordinal_logit_log_length"]
    assert any("ordinal logit skipped" in n for n in r.notes)


def partial_spearman_matches_pingouin_test(planted):
    r = length_bias(planted, rng=0)                 # no cluster, analytic: pingouin's estimate and p-value
    e = r["partial_spearman"]
    pc = pg.partial_corr(data=planted, x="length", y="judge", covar=["human"], method="spearman")
    assert e.estimate == pytest.approx(float(pc["r"].iloc[0]), abs=1e-12)
    assert e.pvalue == pytest.approx(float(pc["p_val"].iloc[0]), rel=1e-10, abs=1e-300)
    # partial_corr prints its interval rounded; its source computes it with compute_esci(nx = n − k)
    lo, hi = pg.compute_esci(stat=e.estimate, nx=len(planted) - 1, ny=len(planted) - 1, eftype="r", decimals=12)
    assert (e.ci.low, e.ci.high) == pytest.approx((lo, hi), abs=1e-8)
    printed = np.round(np.asarray(pc["CI95"].iloc[0], dtype=float), 2).tolist()
    assert printed == [round(e.ci.low, 2), round(e.ci.high, 2)]


def partial_spearman_with_covariate_matches_pingouin_test(planted):
    r = length_bias(planted, covariates=["own"], rng=0)
    pc = pg.partial_corr(data=planted, x="length", y="judge", covar=["human", "own"], method="spearman")
    assert r["partial_spearman"].estimate == pytest.approx(float(pc["r"].iloc[0]), abs=1e-12)


def weighted_rank_bootstrap_equals_replicated_data_test(planted):
    """A replicate with item weights w gives exactly pingouin's value on the data with item i repeated w_i times."""
    rng = np.random.default_rng(7)
    d = planted.iloc[:150].reset_index(drop=True)
    V = d[["length", "judge", "human"]].to_numpy(dtype=float)
    W = rng.multinomial(len(d), np.full(len(d), 1 / len(d)), size=4).astype(float)
    reps = _partial_spearman_reps(V, lambda s, b: W[s:s + b], 4, 2)
    for b in range(4):
        rep = d.loc[np.repeat(np.arange(len(d)), W[b].astype(int))]
        pc = pg.partial_corr(data=rep, x="length", y="judge", covar="human", method="spearman")
        assert reps[b] == pytest.approx(float(pc["r"].iloc[0]), abs=1e-10)


def partial_spearman_cluster_interval_is_wider_than_iid_test(planted):
    """Property: prompts share quality (d_prompt), so the cluster interval must not be narrower than iid."""
    iid = length_bias(planted, rng=0)["partial_spearman"]
    cl = length_bias(planted, cluster="prompt_id", rng=0, n_resamples=1000)["partial_spearman"]
    assert cl.estimate == iid.estimate
    assert cl.unit == "clusters" and cl.ci.method == "percentile"
    assert cl.ci.width > 0.9 * iid.ci.width
    assert cl.ci.low < cl.estimate < cl.ci.high


def ols_bootstrap_agrees_with_cluster_robust_se_test(planted):
    """Property: the cluster bootstrap SE of an OLS slope and the CR1 SE estimate the same quantity."""
    a = length_bias(planted, cluster="prompt_id", covariates=["own"], rng=0, n_resamples=50)["ols_difference"]
    b = length_bias(planted, cluster="prompt_id", covariates=["own"], ci_method="percentile", n_resamples=2000,
                    rng=0)["ols_difference"]
    assert b.estimate == pytest.approx(a.estimate, abs=1e-12)
    assert b.se == pytest.approx(a.se, rel=0.15)
    assert b.ci.method == "percentile" and b.n_resamples == 2000 and b.seed == 0


def by_label_table_matches_pandas_test(planted_sample1):
    d = planted_sample1
    t = length_by_label(d)
    for rater, col in (("reference", "human"), ("candidate", "judge")):
        direct = d.groupby(col)["length"].median()
        got = t[t["rater"] == rater].set_index("label")["median"]
        assert np.allclose(got.to_numpy(), direct.to_numpy())
        assert t[t["rater"] == rater]["n"].sum() == len(d)


def length_bias_result_api_test(planted):
    r = length_bias(planted, cluster="prompt_id", rng=3, n_resamples=100)
    f = r.to_frame()
    assert list(f.columns) == ["test"] + FRAME_COLUMNS
    assert f["test"].iloc[0] == "ols_difference" and r.statistic == "ols_difference"
    assert r.estimate == f["estimate"].iloc[0] and r.ci.low == f["ci_low"].iloc[0] and r.pvalue == f["pvalue"].iloc[0]
    assert f.loc[f["test"] == "partial_spearman", "seed"].iloc[0] == 3
    assert "by_label" in r.tables and "ols_difference" in str(r)


def length_bias_accepts_a_paired_test():
    h = pd.DataFrame({"query_id": ["1"] * 6 + ["2"] * 6, "doc_id": list("abcdefghijkl"),
                      "relevance": [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3], "length": [10, 20, 40, 80, 15, 25, 35, 45,
                                                                                      50, 60, 70, 90]})
    j = h.assign(relevance=[0, 1, 3, 3, 1, 1, 2, 3, 1, 2, 3, 3]).drop(columns="length")
    p = metaeval.align(h, j)
    r = length_bias(p, cluster="query_id", rng=0, n_resamples=50)
    X = pd.DataFrame({"const": 1.0, "log_length": np.log(h["length"])})
    check_row(r["ols_difference"], sm_ols(j["relevance"] - h["relevance"], X, h["query_id"]), "log_length")


def length_bias_input_errors_test(planted):
    with pytest.raises(InputError, match="no column"):
        length_bias(planted, length="tokens")
    with pytest.raises(InputError, match="non-positive"):
        length_bias(planted.assign(length=planted["length"].where(planted.index > 0, 0)))
    with pytest.raises(InputError, match="DataFrame"):
        length_bias([1, 2, 3])
    with pytest.raises(ValueError, match="ci_method"):
        length_bias(planted, ci_method="wald")
    r = length_bias(planted.assign(judge=planted["judge"].where(planted.index > 1)), rng=0, n_resamples=20)
    assert r.n == len(planted) - 2 and any("left out" in n for n in r.notes)


# --------------------------------------------------------------------------------------------
# planted effects are found; the control set shows none (across seeds)
# --------------------------------------------------------------------------------------------

def shipped_seed_matches_readme_and_paired_difference_test(planted, control):
    """README §3: planted own 0.223, ln(length) 0.365; control −0.151, 0.018; paired 0.374 and 0.347."""
    kw = dict(cluster="prompt_id", rng=0, n_resamples=50)
    lp = length_bias(planted, covariates=["own"], **kw).estimate
    lc = length_bias(control, covariates=["own"], **kw).estimate
    sp = self_enhancement(planted, own=OWN, length="length", n_permutations=200, **kw).estimate
    sc = self_enhancement(control, own=OWN, length="length", n_permutations=200, **kw).estimate
    assert (round(sp, 3), round(lp, 3), round(sc, 3), round(lc, 3)) == (0.223, 0.365, -0.151, 0.018)
    assert round(sp - sc, 3) == 0.374 and round(lp - lc, 3) == 0.347


def _seed_results(seed, planted_flag):
    d = rubric_items(make_rubric_like(np.random.default_rng(seed), planted=planted_flag)["scores.csv"])
    lb = length_bias(d, cluster="prompt_id", covariates=["own"], rng=seed, n_resamples=50)
    se = self_enhancement(d, own=OWN, cluster="prompt_id", length="length", rng=seed, n_resamples=50,
                          n_permutations=500)
    return lb, se


@pytest.fixture(scope="module")
def seeds():
    return {(s, p): _seed_results(s, p) for s in SEED_LIST for p in (True, False)}


def planted_effects_found_across_seeds_test(seeds):
    """Planted: both effects significant at 5% in every seed, in the README's range.

    README §3: over 30 seeds the planted regression gives own 0.357 ± 0.078 and ln(length)
    0.350 ± 0.057 (mean ± sd), so every estimate should lie within 4 sd of those means.
    """
    for s in SEED_LIST:
        lb, se = seeds[(s, True)]
        assert lb.pvalue < 0.05 and lb.ci.low > 0, (s, lb.estimate, lb.pvalue)
        assert se.pvalue < 0.05 and se.ci.low > 0, (s, se.estimate, se.pvalue)
        assert se["permutation_own"].pvalue < 0.05
        assert abs(lb.estimate - 0.350) < 4 * 0.057 and abs(se.estimate - 0.357) < 4 * 0.078


def control_shows_no_effect_across_seeds_test(seeds):
    """Control (planted=False): rejections at 5% are rare and the estimates centre on 0.

    With 10 seeds and a valid 5% test, P(3 or more rejections) = 0.0115 (binomial), so at most 2 are
    allowed. README §3: control own −0.020 ± 0.079 and ln(length) −0.001 ± 0.059 (30 seeds), so
    the mean over 10 seeds lies within 3 standard errors of 0: |mean| < 3·0.079/√10 = 0.075 and
    3·0.059/√10 = 0.056.
    """
    rej_l = sum(seeds[(s, False)][0].pvalue < 0.05 for s in SEED_LIST)
    rej_s = sum(seeds[(s, False)][1].pvalue < 0.05 for s in SEED_LIST)
    rej_p = sum(seeds[(s, False)][1]["permutation_own"].pvalue < 0.05 for s in SEED_LIST)
    assert rej_l <= 2 and rej_s <= 2 and rej_p <= 2, (rej_l, rej_s, rej_p)
    assert abs(np.mean([seeds[(s, False)][0].estimate for s in SEED_LIST])) < 0.056
    assert abs(np.mean([seeds[(s, False)][1].estimate for s in SEED_LIST])) < 0.075


def paired_planted_minus_control_recovers_effect_test(seeds):
    """Same seed, same noise: planted − control isolates the planted terms.

    README §3 (shipped seed) 0.374 for own and 0.347 for ln(length); rounding and the 1..5 clip
    shrink the latent 0.5 and 0.4, so the paired differences must lie in (0.25, 0.5) and (0.25, 0.4).
    """
    for s in SEED_LIST:
        dl = seeds[(s, True)][0].estimate - seeds[(s, False)][0].estimate
        ds = seeds[(s, True)][1].estimate - seeds[(s, False)][1].estimate
        assert 0.25 < dl < 0.4 and 0.25 < ds < 0.5, (s, dl, ds)


def naive_conditional_forms_are_confounded_test(control):
    """Why the primary test is judge − human: in the control set the conditional form (partial
    Spearman of length and judge given human) still finds an 'effect', because the human score
    measures quality with error and longer answers are better (README §3, naive regression 0.229)."""
    r = length_bias(control, cluster="prompt_id", covariates=["own"], rng=0, n_resamples=500)
    assert r["partial_spearman"].ci.low > 0
    assert r["ols_difference"].ci.low < 0 < r["ols_difference"].ci.high


# --------------------------------------------------------------------------------------------
# self-enhancement
# --------------------------------------------------------------------------------------------

def self_enhancement_matches_statsmodels_test(planted):
    r = self_enhancement(planted, own=OWN, cluster="prompt_id", length="length", rng=0, n_resamples=50,
                         n_permutations=100)
    X = pd.DataFrame({"const": 1.0, "own": planted["own"].astype(float), "log_length": np.log(planted["length"])})
    check_row(r["ols_own"], sm_ols(planted["judge"] - planted["human"], X, planted["prompt_id"]), "own")
    # without covariates the coefficient is the difference of the mean gaps
    r0 = self_enhancement(planted, own=[OWN], cluster="prompt_id", rng=0, n_resamples=50, n_permutations=100)
    d = planted["judge"] - planted["human"]
    assert r0.estimate == pytest.approx(d[planted["own"] == 1].mean() - d[planted["own"] == 0].mean(), abs=1e-12)
    assert r0["gap_own"].estimate == pytest.approx(d[planted["own"] == 1].mean(), abs=1e-12)
    assert r0["gap_other"].estimate == pytest.approx(d[planted["own"] == 0].mean(), abs=1e-12)


def by_generator_means_match_readme_test(planted):
    """README §3: mean human 3.890 / 3.423 / 2.913; mean judge − human +0.492 / +0.038 / −0.223."""
    r = self_enhancement(planted, own=OWN, cluster="prompt_id", rng=0, n_resamples=200, n_permutations=100)
    t = r.tables["by_generator"].set_index(["generator", "score"])["mean"]
    assert [round(t[(g, "reference")], 3) for g in ("gpt-4v", "llava-13b", "instructblip")] == [3.890, 3.423, 2.913]
    assert [round(t[(g, "difference")], 3) for g in ("gpt-4v", "llava-13b", "instructblip")] == [0.492, 0.038, -0.223]
    bg = r.tables["by_generator"]
    assert (bg["ci_low"] <= bg["mean"]).all() and (bg["mean"] <= bg["ci_high"]).all()
    assert bg.loc[bg["generator"] == OWN, "own"].all() and not bg.loc[bg["generator"] != OWN, "own"].any()


def within_cluster_permutations_stay_in_clusters_test():
    rng = np.random.default_rng(0)
    cid = np.array([2, 0, 1, 0, 2, 2, 1, 0, 0])
    P = _within_cluster_perms(cid, 200, rng)
    assert (np.sort(P, axis=1) == np.arange(len(cid))).all()           # each row a permutation
    assert (cid[P] == cid[None, :]).all()                              # never leaves its cluster
    assert len({tuple(p) for p in P}) > 50                             # and actually shuffles


def freedman_lane_replicates_equal_statsmodels_refits_test(planted):
    """Each permutation replicate equals the own coefficient of statsmodels refitted on the permuted data."""
    d = planted.iloc[:90].reset_index(drop=True)
    y = (d["judge"] - d["human"]).to_numpy()
    X = pd.DataFrame({"const": 1.0, "own": d["own"].astype(float), "log_length": np.log(d["length"])})
    groups = pd.factorize(d["prompt_id"], sort=True)[0]
    p, reps = _freedman_lane(y, X, "own", groups, 25, np.random.default_rng(5))
    P = _within_cluster_perms(groups, 25, np.random.default_rng(5))
    red = sm.OLS(y, X[["const", "log_length"]]).fit()
    for b in range(25):
        ystar = red.fittedvalues.to_numpy() + red.resid.to_numpy()[P[b]]     # positional, not label-aligned
        assert reps[b] == pytest.approx(sm.OLS(ystar, X).fit().params["own"], abs=1e-10)
    assert p == (1 + (np.abs(reps) >= abs(sm.OLS(y, X).fit().params["own"]) - 1e-12).sum()) / 26


def permutation_without_covariates_is_label_exchange_test():
    """Property: with no covariates, Freedman–Lane = exchanging generator labels within clusters, and
    with one own item per cluster of 2 the full permutation distribution has 2^C values (checked by
    enumeration on C = 6 clusters)."""
    rng = np.random.default_rng(3)
    C = 6
    d = pd.DataFrame({"prompt": np.repeat(np.arange(C), 2), "generator": np.tile(["mine", "other"], C),
                      "human": rng.normal(size=2 * C)})
    d["judge"] = d["human"] + rng.normal(size=2 * C) + 0.3 * (d["generator"] == "mine")
    r = self_enhancement(d, own="mine", cluster="prompt", rng=1, n_permutations=20000, n_resamples=50)
    gap = (d["judge"] - d["human"]).to_numpy().reshape(C, 2)
    obs = gap[:, 0].mean() - gap[:, 1].mean()
    enum = []
    for flips in range(2**C):
        s = np.array([(flips >> c) & 1 for c in range(C)])
        a = np.where(s == 1, gap[:, 1], gap[:, 0])
        b = np.where(s == 1, gap[:, 0], gap[:, 1])
        enum.append(a.mean() - b.mean())
    exact = np.mean(np.abs(enum) >= abs(obs) - 1e-12)
    assert r.estimate == pytest.approx(obs, abs=1e-12)
    assert r["permutation_own"].pvalue == pytest.approx(exact, abs=0.015)


def self_enhancement_input_errors_test(planted):
    with pytest.raises(ValueError, match="own="):
        self_enhancement(planted)
    with pytest.raises(InputError, match="not in column"):
        self_enhancement(planted, own="gpt-5")
    with pytest.raises(InputError, match="both"):
        self_enhancement(planted, own=["gpt-4v", "llava-13b", "instructblip"])


# --------------------------------------------------------------------------------------------
# pairwise: P(prefer the longer response)
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def battles():
    return metaeval.datasets.load("battles_like").battles


def _direct_longer(b, ties):
    la, lb, o = b["length_a"].to_numpy(), b["length_b"].to_numpy(), b["outcome"].to_numpy()
    if ties == "force":
        o = np.where(o == "tie_a", "A", np.where(o == "tie_b", "B", o))
        s = np.where(o == "A", (la > lb) * 1.0, np.where(o == "B", (lb > la) * 1.0, np.nan))
    elif ties == "drop":
        s = np.where(o == "A", (la > lb) * 1.0, np.where(o == "B", (lb > la) * 1.0, np.nan))
    else:
        s = np.where(o == "A", (la > lb) * 1.0, np.where(o == "B", (lb > la) * 1.0,
                                                          np.where(np.isin(o, ["tie", "tie_a", "tie_b"]), 0.5, np.nan)))
    s = s[(la != lb)]
    return np.nanmean(s), int((~np.isnan(s)).sum())


def prefer_longer_matches_readme_and_direct_count_test(battles):
    """README §4: P(longer answer wins), leaning ties to their side: human 0.659, judge (unswapped) 0.714."""
    b = battles[battles["swapped"] == 0]
    r = prefer_longer(b, rng=0, n_resamples=500)
    assert round(r["reference"].estimate, 3) == 0.659 and round(r["candidate"].estimate, 3) == 0.714
    for ties in ("force", "drop", "half"):
        r = prefer_longer(b, ties=ties, rng=0, n_resamples=200)
        for who, key in (("human", "reference"), ("judge", "candidate")):
            p, n = _direct_longer(b[b["judge"] == who], ties)
            assert r[key].estimate == pytest.approx(p, abs=1e-12) and r[key].n == n
        assert r.estimate == pytest.approx(r["candidate"].estimate - r["reference"].estimate, abs=1e-12)
        assert r.statistic == "difference"


def prefer_longer_interval_matches_binomial_test(battles):
    """One rater, iid verdicts: the bootstrap interval of a proportion ≈ the Wald interval
    p ± 1.96 √(p(1 − p)/n) (normal approximation, n ≈ 350)."""
    b = battles[(battles["judge"] == "human")].drop(columns=["battle_id"])
    r = prefer_longer(b.assign(judge="judge"), ci_method="percentile", n_resamples=5000, rng=1)
    p, n = r.estimate, r.n
    half = 1.96 * np.sqrt(p * (1 - p) / n)
    assert (r.ci.low, r.ci.high) == pytest.approx((p - half, p + half), abs=0.01)
    assert r.statistic == "candidate" and r.primary.extra["null"] == 0.5


def prefer_longer_soft_preferences_test():
    """AlpacaEval form: preference p in [1, 2], the second's share p − 1 (STATISTICS.md)."""
    d = pd.DataFrame({"preference": [1.0, 2.0, 1.5, 1.2, 1.9, 1.7], "length_a": [10, 10, 10, 30, 30, 5],
                      "length_b": [20, 20, 20, 20, 20, 5]})
    r = prefer_longer(d, outcome="preference", rng=0, n_resamples=100)
    # longer is b for the first three (share p − 1), a for the next two (share 2 − p); last: equal, left out
    assert r.estimate == pytest.approx(np.mean([0.0, 1.0, 0.5, 0.8, 0.1]), abs=1e-12)
    assert r.n == 5 and r.tables["counts"]["equal_length"].iloc[0] == 1


def length_bias_dispatches_battles_test(battles):
    b = battles[battles["swapped"] == 0]
    r = length_bias(b, rng=0, n_resamples=100)
    assert r.test == "prefer_longer" and round(r["reference"].estimate, 3) == 0.659


def prefer_longer_counts_and_pairing_test(battles):
    r = prefer_longer(battles, rng=0, n_resamples=100)          # swapped judge rows included
    c = r.tables["counts"].set_index("rater")
    assert c.loc["judge", "n_verdicts"] == 755 and c.loc["human", "n_verdicts"] == 604   # README §4
    assert int((battles["outcome"] == "invalid").sum()) == 8                    # README §4: 8 parse errors
    unequal = battles["length_a"] != battles["length_b"]
    assert c.loc["judge", "invalid"] == int(((battles["outcome"] == "invalid") & unequal).sum())
    assert c.loc["human", "invalid"] == 0
    assert (c["used"] + c["equal_length"] + c["invalid"] + c["ties_left_out"] == c["n_verdicts"]).all()
    assert r.primary.unit == "items" and r.primary.n_units == 604        # battles, not verdicts
    rc = prefer_longer(battles, cluster="item_id", rng=0, n_resamples=100)
    assert rc.primary.unit == "clusters" and rc.primary.n_units == 400


# --------------------------------------------------------------------------------------------
# system level: rank change
# --------------------------------------------------------------------------------------------

def _matrices(seed=0, boost=0.0, S=12, T=30):
    rng = np.random.default_rng(seed)
    q = np.linspace(0.3, 0.7, S)
    R = q[:, None] + rng.normal(0, 0.15, (S, T))
    C = R * 0.8 + rng.normal(0, 0.05, (S, T))
    own = [f"run{i:02d}" for i in (1, 4, 7)]
    idx = [f"run{i:02d}" for i in range(S)]
    C[[1, 4, 7]] += boost
    cols = [f"t{t}" for t in range(T)]
    return pd.DataFrame(R, index=idx, columns=cols), pd.DataFrame(C, index=idx, columns=cols), own


def rank_change_statistic_and_exact_permutation_test():
    R, C, own = _matrices(boost=0.08)
    r = rank_change(R, C, own=own, rng=0, n_resamples=300)
    rr = pd.Series(R.mean(axis=1)).rank(ascending=False)
    rc = pd.Series(C.mean(axis=1)).rank(ascending=False)
    gain = rr - rc
    stat = gain[own].mean() - gain.drop(own).mean()
    assert r.estimate == pytest.approx(stat, abs=1e-12)
    # brute force over all C(12, 3) = 220 own-label assignments
    null = [gain.iloc[list(c)].mean() - gain.drop(gain.index[list(c)]).mean() for c in combinations(range(12), 3)]
    assert r.pvalue == pytest.approx(np.mean(np.abs(null) >= abs(stat) - 1e-12), abs=1e-12)
    assert r.primary.extra["exact"] and r.estimate > 0
    per = r.per_system.set_index("system")
    assert np.allclose(per.loc[gain.index, "rank_gain"], gain)
    assert r.primary.unit == "clusters" and r.primary.n_units == 30


def rank_change_null_and_dispatch_test():
    R, C, own = _matrices(seed=2)
    r = self_enhancement((R, C), own=own, rng=0, n_resamples=200)
    assert r.test == "rank_change" and r.pvalue > 0.05
    with pytest.raises(InputError, match="different systems"):
        rank_change(R, C.iloc[1:], own=own)
    with pytest.raises(InputError, match="missing"):
        rank_change(R, C.where(C > 0.3), own=own)
    with pytest.raises(InputError, match="not in the score"):
        rank_change(R, C, own=["nope"])


def rank_change_independent_topic_sets_test():
    """Different topic sets (SynDL: the judge labelled other queries): each side resampled on its own."""
    R, C, own = _matrices(seed=4, boost=0.1)
    C = C.set_axis([f"u{t}" for t in range(C.shape[1])], axis=1).iloc[:, :20]
    r = rank_change(R, C, own=own, rng=0, n_resamples=300)
    gain = pd.Series(R.mean(axis=1)).rank(ascending=False) - pd.Series(C.mean(axis=1)).rank(ascending=False)
    assert r.estimate == pytest.approx(gain[own].mean() - gain.drop(own).mean(), abs=1e-12)
    # topics are clusters resampled within two strata; the engine widens by the smaller set's factor
    assert r.primary.unit == "clusters" and r.primary.n_units == 50
    assert r.primary.extra["cluster_correction"] == pytest.approx(cluster_correction_factor(20), rel=1e-12)
    assert "resampled independently" in r.notes[0]
    with pytest.raises(InputError, match="paired=True"):
        rank_change(R, C, own=own, paired=True)


def prometheus_vision_script_test(capsys):
    """analyses/prometheus_vision.py: planted effects found, control clean (README §3 numbers)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "analyses" / "prometheus_vision.py"
    spec = importlib.util.spec_from_file_location("prometheus_vision", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.main(["--n-resamples", "200"])
    assert round(out["planted"]["length_bias"].estimate, 3) == 0.365
    assert round(out["control"]["self_enhancement"].estimate, 3) == -0.151
    assert out["planted"]["length_bias"].pvalue < 0.05 and out["control"]["length_bias"].pvalue > 0.05
    assert "ordinal logit on judge sample 1" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# one engine: point estimates, seeds, p-values, the small-cluster widening, warnings
# --------------------------------------------------------------------------------------------

def _few_clusters(planted, n_prompts):
    keep = sorted(planted["prompt_id"].unique())[:n_prompts]
    return planted[planted["prompt_id"].isin(keep)].reset_index(drop=True)


def point_estimates_only_test(planted, battles):
    """ci_method=None: the same estimates as with intervals, no interval, no p-value, nothing drawn
    (a Generator passed as rng keeps its state)."""
    g = np.random.default_rng(0)
    state = g.bit_generator.state
    kw = dict(cluster="prompt_id", covariates=["own"])
    pt = length_bias(planted, ci_method=None, rng=g, **kw)
    full = length_bias(planted, rng=0, n_resamples=50, **kw)
    for name in ("ols_difference", "ols_candidate", "ols_reference", "partial_spearman"):
        e, f = pt[name], full[name]
        assert e.estimate == pytest.approx(f.estimate, abs=1e-12)
        assert e.ci.method == "none" and np.isnan(e.ci.low) and np.isnan(e.ci.high)
        assert e.pvalue is None and e.n_resamples == 0 and e.seed is None and e.replicates is None
    assert np.isnan(pt.pvalue) and pt.ci.method == "none"
    se = self_enhancement(planted, own=OWN, ci_method=None, rng=g, **kw)
    assert se.estimate == pytest.approx(self_enhancement(planted, own=OWN, rng=0, n_resamples=20,
                                                         n_permutations=20, **kw).estimate, abs=1e-12)
    with pytest.raises(KeyError):
        se["permutation_own"]
    assert any("permutation test skipped" in n for n in se.notes)
    assert se.tables["by_generator"]["ci_method"].eq("none").all()
    b = battles[battles["swapped"] == 0]
    pl = prefer_longer(b, ci_method=None, rng=g)
    assert round(pl["reference"].estimate, 3) == 0.659 and pl.primary.pvalue is None        # README §4
    R, C, own = _matrices(boost=0.08)
    rc = rank_change(R, C, own=own, ci_method=None, rng=g)
    assert rc.estimate == rank_change(R, C, own=own, rng=0, n_resamples=50).estimate
    assert rc.primary.pvalue is None and rc.primary.ci.method == "none"
    assert g.bit_generator.state == state


def seed_of_a_generator_reproduces_the_call_test(planted, battles):
    """A Generator as rng: every resampled row reports one int seed, and rng=that seed reproduces the
    call (numpy: default_rng(seed) is the Generator the call drew from)."""
    kw = dict(cluster="prompt_id", n_resamples=60)
    a = length_bias(planted, ci_method="percentile", rng=np.random.default_rng(21), **kw)
    seeds = a.to_frame()["seed"].dropna().unique()
    assert len(seeds) == 1 and float(seeds[0]).is_integer()
    b = length_bias(planted, ci_method="percentile", rng=int(seeds[0]), **kw)
    for name in ("ols_difference", "partial_spearman"):
        np.testing.assert_array_equal(a[name].replicates, b[name].replicates)
        assert a[name].ci == b[name].ci
    p1 = prefer_longer(battles, rng=np.random.default_rng(4), n_resamples=100)
    p2 = prefer_longer(battles, rng=p1.primary.seed, n_resamples=100)
    assert isinstance(p1.primary.seed, int)
    np.testing.assert_array_equal(p1.primary.replicates, p2.primary.replicates)


def bootstrap_rows_come_from_the_engine_test(planted, battles):
    """By hand from each row's replicates: the p-value is the two-sided tail count, the interval is
    the percentile interval widened once by √(G/(G−1))·t_{G−1}/z (scipy), the bias and SE are the
    replicates' mean minus estimate and SD."""
    from scipy import stats as sps

    r = length_bias(planted, cluster="prompt_id", ci_method="percentile", rng=5, n_resamples=400)
    G = planted["prompt_id"].nunique()
    fac = np.sqrt(G / (G - 1)) * sps.t.ppf(0.975, G - 1) / sps.norm.ppf(0.975)
    for name, lo_b, hi_b in (("ols_difference", -np.inf, np.inf), ("partial_spearman", -1.0, 1.0)):
        e = r[name]
        reps = e.replicates
        q_lo, q_hi = np.quantile(reps, [0.025, 0.975])
        assert e.ci.low == pytest.approx(max(lo_b, e.estimate - fac * (e.estimate - q_lo)), abs=1e-12)
        assert e.ci.high == pytest.approx(min(hi_b, e.estimate + fac * (q_hi - e.estimate)), abs=1e-12)
        assert e.extra["cluster_correction"] == pytest.approx(fac, rel=1e-12)
        assert e.pvalue == min(1.0, 2 * min(np.mean(reps <= 0), np.mean(reps >= 0)))
        assert e.se == pytest.approx(np.std(reps, ddof=1), rel=1e-12)
        assert e.bias == pytest.approx(reps.mean() - e.estimate, abs=1e-12)
        assert (e.unit, e.n_units, e.n_resamples, e.seed) == ("clusters", G, 400, 5)
    p = prefer_longer(battles, rng=2, n_resamples=300)
    for key, null in (("difference", 0.0), ("candidate", 0.5), ("reference", 0.5)):
        reps = p[key].replicates
        assert p[key].pvalue == min(1.0, 2 * min(np.mean(reps <= null), np.mean(reps >= null)))
        assert p[key].extra["null"] == null and "z0" in p[key].extra


def few_clusters_warn_once_per_call_test(planted):
    """4 prompts: the engine's SmallSampleWarning, once per call although the call bootstraps three
    regressions and a correlation; none from 30 prompts, and none without an interval."""
    small = _few_clusters(planted, 4)
    with pytest.warns(SmallSampleWarning) as rec:
        length_bias(small, cluster="prompt_id", ci_method="percentile", rng=0, n_resamples=50)
    few = [w for w in rec if issubclass(w.category, SmallSampleWarning)]
    assert len(few) == 1 and "only 4 clusters" in str(few[0].message)
    assert few[0].filename == __file__                        # points at the line above
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        length_bias(_few_clusters(planted, 30), cluster="prompt_id", ci_method="percentile", rng=0, n_resamples=50)
        length_bias(small, cluster="prompt_id", ci_method=None)
