"""System-ranking correlations: each coefficient against an independent reference, and the topic bootstrap."""

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

import metaeval as me
from metaeval.systems import ranking as rk

# ircor (Urbano) README examples: x the reference, scores sorted decreasing
IRCOR_X = np.array([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94])
IRCOR_Y = np.array([0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94])


def ircor_published_values_test():
    # published in the ircor README: tau 0.7777778, tauAP 0.7491182; with y <- round(y*5)/5:
    # tau_a 0.7111111, tauAP_a 0.6074515; with x rounded too: tau_b 0.75, tauAP_b 0.6269841
    assert rk.kendall_tau(IRCOR_X, IRCOR_Y) == pytest.approx(0.7777778, abs=5e-8)
    assert rk.tau_ap(IRCOR_X, IRCOR_Y) == pytest.approx(0.7491182, abs=5e-8)
    y = np.round(IRCOR_Y * 5) / 5
    assert rk.kendall_tau(IRCOR_X, y, variant="a") == pytest.approx(0.7111111, abs=5e-8)
    assert rk.tau_ap(IRCOR_X, y) == pytest.approx(0.6074515, abs=5e-8)
    x = np.round(IRCOR_X * 5) / 5
    assert rk.kendall_tau(x, y) == pytest.approx(0.75, abs=1e-12)
    assert rk.tau_ap(x, y, variant="b") == pytest.approx(0.6269841, abs=5e-8)


# --- brute-force references, written from the definitions ------------------------------------

def brute_tau_ap(x, y):
    """Yilmaz, Aslam & Robertson (2008): walk y from the top; c(i) = items above i in y also above in x."""
    order = sorted(range(len(y)), key=lambda i: -y[i])
    n = len(x)
    total = 0.0
    for pos in range(1, n):
        i = order[pos]
        c = sum(1 for j in order[:pos] if x[j] > x[i])
        total += c / pos
    return 2 * total / (n - 1) - 1


def brute_tau_ap_b_half(x, y):
    """Urbano & Marrero (2017) asymmetric tau_AP,b: for each item not in y's top group,
    concordant items strictly above its tie group, divided by (its group's first position - 1)."""
    n = len(x)
    total, count = 0.0, 0
    for i in range(n):
        p = 1 + sum(1 for j in range(n) if y[j] > y[i])
        if p == 1:
            continue
        count += 1
        c = sum(1 for j in range(n) if y[j] > y[i] and x[j] > x[i])
        total += c / (p - 1)
    return 2 * total / count - 1


def brute_rbo_ext(x, y, p):
    """Webber, Moffat & Zobel (2010) eq. 32 with explicit prefix sets."""
    rx = [i for i in sorted(range(len(x)), key=lambda i: (-x[i], i))]
    ry = [i for i in sorted(range(len(y)), key=lambda i: (-y[i], i))]
    k = len(x)
    s = 0.0
    for d in range(1, k + 1):
        s += len(set(rx[:d]) & set(ry[:d])) / d * p**d
    xk = len(set(rx) & set(ry))
    return xk / k * p**k + (1 - p) / p * s


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.data())
def coefficients_match_references_test(data):
    n = data.draw(st.integers(4, 12))
    x = np.array(data.draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), dtype=float)
    y = np.array(data.draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), dtype=float)
    if len(set(x)) < 2 or len(set(y)) < 2:
        return
    # tau-b: scipy.stats.kendalltau; spearman/pearson: scipy
    assert rk.kendall_tau(x, y) == pytest.approx(sps.kendalltau(x, y)[0], abs=1e-12)
    X, Y = x[None], y[None]
    got = rk._all_methods(X, Y, ["spearman", "pearson", "kendall_a", "discordant_pairs"], 0.9, 5)[0]
    assert got[0] == pytest.approx(sps.spearmanr(x, y)[0], abs=1e-12)
    assert got[1] == pytest.approx(sps.pearsonr(x, y)[0], abs=1e-12)
    pairs = list(itertools.combinations(range(n), 2))
    cd = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs)
    assert got[2] == pytest.approx(cd / len(pairs), abs=1e-12)
    assert got[3] == sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) < 0 for i, j in pairs)
    # tau_AP,b against the brute-force definition (symmetrized)
    expect_b = (brute_tau_ap_b_half(x, y) + brute_tau_ap_b_half(y, x)) / 2
    assert rk.tau_ap(x, y, variant="b") == pytest.approx(expect_b, abs=1e-12)
    # RBO against explicit prefix sets
    assert rk.rbo(x, y, p=0.8) == pytest.approx(brute_rbo_ext(x, y, 0.8), abs=1e-12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.permutations(list(range(9))), st.permutations(list(range(9))))
def tau_ap_without_ties_is_yilmaz_test(px, py):
    x, y = np.array(px, dtype=float), np.array(py, dtype=float)
    assert rk.tau_ap(x, y) == pytest.approx(brute_tau_ap(x, y), abs=1e-12)
    # without ties, tau_AP,a = tau_AP (Urbano & Marrero 2017, property stated in ircor's docs)
    assert rk.tau_ap(x, y, variant="a") == pytest.approx(brute_tau_ap(x, y), abs=1e-12)
    # identical rankings give 1, reversed give -1
    assert rk.tau_ap(x, x) == pytest.approx(1.0) and rk.tau_ap(x, -x) == pytest.approx(-1.0)


# --- rank_correlation on score matrices ---------------------------------------------------------

def _matrices(seed=0, n=12, T=20):
    rng = np.random.default_rng(seed)
    mu = rng.normal(0.5, 0.1, n)
    R = mu[:, None] + rng.normal(0, 0.1, (n, T))
    C = mu[:, None] + 0.03 * rng.normal(size=(n, 1)) + rng.normal(0, 0.1, (n, T))
    idx = [f"run{i:02d}" for i in range(n)]
    cols = [f"q{j}" for j in range(T)]
    return pd.DataFrame(R, index=idx, columns=cols), pd.DataFrame(C, index=idx, columns=cols)


def rank_correlation_estimates_are_the_coefficients_of_the_means_test():
    R, C = _matrices()
    res = rk.rank_correlation(R, C, methods=rk.RANK_METHODS, n_resamples=200, rng=1, ci_method="percentile")
    f = res.to_frame()
    assert list(f["method"]) == list(rk.RANK_METHODS)
    assert {"estimate", "ci_low", "ci_high", "bias"} <= set(f.columns)
    x, y = R.mean(axis=1).to_numpy(), C.mean(axis=1).to_numpy()
    est = dict(zip(f["method"], f["estimate"]))
    assert est["kendall_b"] == pytest.approx(sps.kendalltau(x, y)[0], abs=1e-12)
    assert est["spearman"] == pytest.approx(sps.spearmanr(x, y)[0], abs=1e-12)
    assert est["pearson"] == pytest.approx(sps.pearsonr(x, y)[0], abs=1e-12)
    assert est["tau_ap"] == pytest.approx(brute_tau_ap(x, y), abs=1e-12)
    assert est["rbo"] == pytest.approx(brute_rbo_ext(x, y, 0.9), abs=1e-12)
    assert all(res[j].unit == "topics" and res[j].n_units == 20 for j in range(len(res)))


def topic_bootstrap_replicates_are_weighted_means_test():
    """A replicate's system means are (topic weights × matrix) / T: recompute one replicate by hand."""
    R, C = _matrices(seed=3, n=6, T=8)
    units = rk._topic_units(R, C)
    gen = np.random.default_rng(0)
    w = gen.multinomial(8, np.full(8, 1 / 8), size=3)
    x, y = rk._means(w @ units.X, 6)
    np.testing.assert_allclose(x, (w @ R.to_numpy().T) / 8, atol=1e-12)
    np.testing.assert_allclose(y, (w @ C.to_numpy().T) / 8, atol=1e-12)


def rank_correlation_is_reproducible_and_debiased_by_default_test():
    R, C = _matrices(seed=4, n=15, T=25)
    a = rk.rank_correlation(R, C, n_resamples=300, n_outer=20, n_inner=50, rng=7)
    b = rk.rank_correlation(R, C, n_resamples=300, n_outer=20, n_inner=50, rng=7)
    assert a.to_frame().equals(b.to_frame())
    e = a[0]
    assert e.method == "debiased" and e.ci.low <= e.extra["debiased"] <= e.ci.high
    # the debiased point is the estimate minus the bootstrap bias (clipped to [-1, 1])
    assert e.extra["debiased"] == pytest.approx(min(1.0, e.estimate - e.bias), abs=1e-12)
    assert -1 <= e.ci.low <= e.ci.high <= 1
    # the se column is the one behind the interval: (high - low) = 2 z f se (f: the few-clusters widening)
    q = sps.norm.ppf(0.975) * me.core.resample.cluster_correction_factor(25)
    for e in a:
        if not (e.extra["clipped_low"] or e.extra["clipped_high"]):
            assert e.ci.high - e.ci.low == pytest.approx(2 * q * e.se, rel=1e-9)
        assert e.se == e.extra["se_debiased"] != e.extra["se_replicates"]
        assert e.extra["se_replicates"] == pytest.approx(np.std(e.replicates, ddof=1), rel=1e-12)


def debiased_z_centre_is_bias_corrected_on_fisher_z_test():
    R, C = _matrices(seed=4, n=15, T=25)
    e = rk.rank_correlation(R, C, methods="kendall_b", ci_method="debiased_z", n_resamples=300, n_outer=20,
                            n_inner=50, rng=7)[0]
    # tanh(2 atanh(t) - mean atanh(t*)), replicates moved eps = 2/(n(n-1)) inside the bounds (n = 15)
    z = np.arctanh(np.clip(e.replicates, -1 + 1 / 105, 1 - 1 / 105))
    assert e.ci.method == "debiased_z"
    assert e.extra["debiased"] == pytest.approx(np.tanh(2 * np.arctanh(e.estimate) - z.mean()), abs=1e-12)


# --- intervals near the bounds (issue 20, item 8) ------------------------------------

def _near(sign, seed=11, n=20, T=30, noise=0.1):
    """A candidate ranking almost equal to (sign=1) or almost the reverse of (sign=-1) the reference."""
    R, C = _matrices(seed=seed, n=n, T=T)
    return R, sign * R + noise * (C - R)


@pytest.mark.parametrize("sign", [1, -1])
def debiased_z_interval_stays_in_range_near_the_bounds_test(sign):
    R, C = _near(sign)
    res = rk.rank_correlation(R, C, methods=["kendall_b", "spearman", "tau_ap", "rbo", "top_k_overlap"],
                              ci_method="debiased_z", n_resamples=400, n_outer=30, n_inner=60, rng=3)
    for e in res:
        lo, hi = rk.RANK_SCALES[e.statistic][0]
        assert lo < e.ci.low <= e.ci.high < hi, (e.statistic, e.ci)        # strictly inside: nothing clipped
        assert not e.extra["clipped_low"] and not e.extra["clipped_high"]
        assert "clipped" not in str(e)
    # the estimate itself is near the bound and inside its interval
    tau = res.get(method="kendall_b")
    assert abs(tau.estimate) > 0.9 and tau.ci.low <= tau.estimate <= tau.ci.high


def debiased_z_interval_and_se_on_the_transformed_scale_test():
    """ends = inverse(z_c ± q·f·se_z), se = se_z · dθ/dz at the centre (Fisher's z: 1 − θ²; logit: θ(1 − θ))."""
    R, C = _near(1, noise=0.3)
    res = rk.rank_correlation(R, C, methods=["kendall_b", "spearman", "tau_ap", "rbo"], n_resamples=400,
                              ci_method="debiased_z", n_outer=30, n_inner=60, rng=5)
    q = sps.norm.ppf(0.975) * me.core.resample.cluster_correction_factor(30)
    for e in res:
        t = e.extra["transform"]
        fwd, inv, slope = ((np.arctanh, np.tanh, lambda c: 1 - c**2) if t == "fisher_z" else
                           (lambda x: np.log(x / (1 - x)), lambda z: 1 / (1 + np.exp(-z)), lambda c: c * (1 - c)))
        assert t == ("logit" if e.statistic == "rbo" else "fisher_z")
        zl, zh = fwd(e.ci.low), fwd(e.ci.high)
        assert (zh - zl) / (2 * q) == pytest.approx(e.extra["se_transformed"], rel=1e-9)
        c = e.extra["debiased"]
        assert inv((zl + zh) / 2) == pytest.approx(c, abs=1e-12)
        assert e.se == pytest.approx(e.extra["se_transformed"] * slope(c), rel=1e-12)
        assert e.extra["se_debiased"] == e.se
        # the SD of the first-level replicates is kept, and is not the se column
        assert e.extra["se_replicates"] == pytest.approx(np.std(e.replicates, ddof=1), rel=1e-12)
        assert e.ci.low <= e.estimate <= e.ci.high


def transforms_are_fisher_z_and_logit_test():
    from scipy.special import expit, logit

    from metaeval.core.resample import TRANSFORMS

    x = np.linspace(-0.999, 0.999, 41)
    fz = TRANSFORMS["fisher_z"]
    np.testing.assert_allclose(fz.forward(x), np.arctanh(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fz.inverse(np.arctanh(x)), x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fz.derivative(np.arctanh(x)), 1 - x**2, rtol=1e-9, atol=1e-14)
    u = (x + 1) / 2
    lg = TRANSFORMS["logit"]
    np.testing.assert_allclose(lg.forward(u), logit(u), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lg.inverse(logit(u)), u, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lg.derivative(logit(u)), expit(logit(u)) * (1 - u), rtol=1e-9, atol=1e-14)
    # a value at the bound is moved eps inside it before transforming
    assert fz.forward(1.0, 0.01) == pytest.approx(np.arctanh(0.99), rel=1e-12)


def basic_interval_clipped_at_the_bound_warns_test():
    R, C = _matrices(seed=8, n=6, T=12)
    with pytest.warns(me.MetaevalWarning, match="interval of spearman reached past .* clipped at the bound"):
        rk.rank_correlation(R, R + 0.3 * (C - R), methods=["spearman"], ci_method="basic", n_resamples=200, rng=0)


def rank_correlation_point_estimate_mode_test():
    """ci_method=None: the same estimates, no resampling (no seed, no replicates, NaN interval)."""
    R, C = _matrices(seed=2, n=10, T=15)
    point = rk.rank_correlation(R, C, methods=rk.RANK_METHODS, ci_method=None)
    boot = rk.rank_correlation(R, C, methods=rk.RANK_METHODS, ci_method="percentile", n_resamples=50, rng=0)
    for p, b in zip(point, boot):
        assert p.estimate == b.estimate and p.statistic == b.statistic
        assert p.ci.method == "none" and np.isnan(p.ci.low) and np.isnan(p.ci.high)
        assert p.n_resamples == 0 and p.replicates is None and p.seed is None
        assert p.unit == "topics" and p.n_units == 15 and p.n == 10
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    rk.rank_correlation(R, C, ci_method=None, rng=gen)
    assert gen.bit_generator.state == state  # nothing drawn
    with pytest.raises(ValueError, match="ci_method"):
        rk.rank_correlation(R, C, ci_method="analytic")


def rank_correlation_intervals_stay_in_range_test():
    # a candidate close to the reference: rho = 0.83 here, and the basic interval (2 rho - quantiles,
    # then widened for 12 topics) reaches 1.06 unclipped
    R, C = _matrices(seed=8, n=6, T=12)
    res = rk.rank_correlation(R, R + 0.3 * (C - R), methods=["spearman", "rbo", "max_rank_change"],
                              ci_method="basic", n_resamples=200, rng=0)
    for e, (lo, hi) in zip(res, [(-1, 1), (0, 1), (0, np.inf)]):
        assert lo <= e.ci.low <= e.ci.high <= hi
    assert res[0].ci.high == 1.0


def score_tables_and_topic_policies_test():
    R, C = _matrices(seed=5, n=5, T=6)
    tidy_r = R.stack().rename("value").reset_index().rename(columns={"level_0": "system", "level_1": "query_id"})
    tidy_r["measure"] = "nDCG@10"
    tidy_c = C.iloc[:, 1:].stack().rename("value").reset_index().rename(columns={"level_0": "system",
                                                                                "level_1": "query_id"})
    tidy_c["measure"] = "nDCG@10"
    tidy_r.columns = ["system", "query_id", "value", "measure"]
    tidy_c.columns = ["system", "query_id", "value", "measure"]
    Rm, Cm, info = rk.score_matrices(tidy_r, tidy_c, measure="nDCG@10")
    assert info["topics_only_reference"] == ["q0"] and info["n_topics"] == 5
    Rm, Cm, info = rk.score_matrices(tidy_r, tidy_c, measure="nDCG@10", topics="own")
    assert info["n_topics"] == 6 and Cm["q0"].isna().all()
    with pytest.warns(me.SmallSampleWarning, match="only 6 clusters"):  # the engine's few-topics warning
        res = rk.rank_correlation(tidy_r, tidy_c, measure="nDCG@10", topics="own", methods="pearson",
                                  n_resamples=100, ci_method="percentile", rng=0)
    # 'own': each side's mean over its own topics
    assert res[0].estimate == pytest.approx(sps.pearsonr(R.mean(axis=1), C.iloc[:, 1:].mean(axis=1))[0], abs=1e-12)
    with pytest.raises(me.InputError, match="several measures"):
        tidy_r2 = pd.concat([tidy_r, tidy_r.assign(measure="AP")])
        rk.score_matrices(tidy_r2, tidy_c)
    with pytest.raises(ValueError):
        rk.rank_correlation(R, C, methods="nonsense")


def significance_agreement_test():
    from statsmodels.stats.multitest import multipletests

    R, C = _matrices(seed=6, n=8, T=30)
    df = rk.significance_agreement(R, C, test="t", correction="holm")
    pairs = df.attrs["pairs"]
    # p-values: scipy.stats.ttest_rel on each pair, then statsmodels' Holm
    raw = [sps.ttest_rel(R.loc[a], R.loc[b]).pvalue for a, b in zip(pairs["system_a"], pairs["system_b"])]
    np.testing.assert_allclose(pairs["p_reference"], multipletests(raw, method="holm")[1], atol=1e-12)
    v = dict(zip(df["quantity"], df["value"]))
    assert v["pairs"] == 28
    assert v["kept"] + v["lost"] + v["reversed"] == v["significant_reference"]
    assert v["kept"] + v["gained"] + v["reversed"] == v["significant_candidate"]
    # the same scores on both sides: the two sides share the randomization test's sign vectors, so
    # the decisions are identical (and enough permutations for Holm over 28 pairs: 1000 > 28/0.05)
    same = rk.significance_agreement(R, R, test="randomization", n_permutations=1000, rng=0)
    s = dict(zip(same["quantity"], same["value"]))
    assert s["significant_reference"] == s["significant_candidate"] > 0
    assert s["lost"] == s["gained"] == s["reversed"] == 0 and s["swap_rate"] == 0
    # too few permutations for Holm over 28 pairs (smallest p 1/501 > 0.05/28): a warning says so
    with pytest.warns(me.MetaevalWarning, match="no pair can be significant"):
        few = rk.significance_agreement(R, C, test="randomization", n_permutations=500, rng=0)
    assert dict(zip(few["quantity"], few["value"]))["significant_reference"] == 0
    # the randomization p-value by hand: (1 + #{|mean of sign-flipped d| >= |mean d|}) / (B + 1)
    gen = np.random.default_rng(me.core.resample.make_rng(3)[1])
    signs = gen.choice(np.array([-1.0, 1.0]), size=(R.shape[1], 1000))
    Rs = R.sort_index(axis=1)  # score_matrices orders the topics by id
    d = (Rs.iloc[0] - Rs.iloc[1]).to_numpy()
    p_hand = (1 + (np.abs(d @ signs) / len(d) >= abs(d.mean()) - 1e-12).sum()) / 1001
    raw = rk.significance_agreement(R, C, test="randomization", n_permutations=1000, correction="none", rng=3)
    assert raw.attrs["pairs"]["p_reference"].iloc[0] == pytest.approx(p_hand, abs=1e-15)


def pool_bias_test():
    from metaeval.systems.ranking import pool_bias

    d = me.datasets.load("trec_dl_like")
    runs = d.runs[d.runs["run_id"].isin([f"run_{i:02d}" for i in range(1, 10)])]
    # run_09 duplicated under another tag: its group contributes no document of its own
    copy = runs[runs["run_id"] == "run_09"].assign(run_id="run_09_copy")
    runs = pd.concat([runs, copy], ignore_index=True)
    groups = {f"run_{i:02d}": f"g{(i - 1) // 3}" for i in range(1, 10)}
    groups["run_09_copy"] = "copycat"
    pb = pool_bias(d.qrels_human, d.qrels_judge, runs, groups, depth=10).set_index("run_id")
    assert len(pb) == 10
    # the copy shares every pooled document with run_09 (group g2): its group has no unique documents
    assert pb.loc["run_09_copy", "unique_docs"] == 0 and pb.loc["run_09", "unique_docs"] > 0
    assert pb.loc["run_09_copy", "rank_change_loo"] == 0 and pb.loc["run_09_copy", "rank_change_filled"] == 0
    # leave-one-out by hand for group g0: drop the judged documents only g0 put in its top 10
    top = (runs.sort_values(["run_id", "query_id", "score", "doc_id"], ascending=[True, True, False, False])
           .groupby(["run_id", "query_id"]).head(10))
    top = top.assign(group=top["run_id"].map(groups))
    by_doc = top.groupby(["query_id", "doc_id"])["group"].agg(set)
    only_g0 = {k for k, s in by_doc.items() if s == {"g0"}}
    keep = [(q, doc) not in only_g0 for q, doc in zip(d.qrels_human["query_id"], d.qrels_human["doc_id"])]
    loo = me.system_scores(d.qrels_human[keep], runs, "nDCG@10").matrix("nDCG@10").mean(axis=1)
    assert pb.loc["run_01", "score_loo"] == pytest.approx(loo["run_01"], abs=1e-12)
    assert pb.loc["run_01", "unique_docs"] == len(set(only_g0) & set(zip(d.qrels_human["query_id"],
                                                                           d.qrels_human["doc_id"])))
    # a judge that agrees with the human everywhere fills every hole exactly: no rank changes
    same = pool_bias(d.qrels_human, d.qrels_human, runs, groups, depth=10)
    assert (same["rank_change_filled"] == 0).all()
    np.testing.assert_allclose(same["score_filled"], same["score_full"], atol=1e-12)
