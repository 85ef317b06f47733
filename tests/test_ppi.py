"""Tests of metaeval.inference.ppi (PPI, PPI++).

Expected numbers come from ppi_py 0.2.3 (tests/reference/ppi_values.json, written by
tests/reference/make_reference_ppi.py, which draws the inputs from seeded generators and records
each case's ppi_py function and the ppi_py test whose design it mirrors), from scipy (Student's t
interval), from closed forms checked by hand, and from simulation (coverage).
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import metaeval
from metaeval.core.errors import InputError
from metaeval.inference import ppi as P

REF_DIR = Path(__file__).resolve().parent / "reference"


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_reference_ppi", REF_DIR / "make_reference_ppi.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _load_generator()
REF = json.loads((REF_DIR / "ppi_values.json").read_text())
CASES = {c["name"]: c for c in REF["cases"]}


def _inputs(case):
    """The case's inputs, drawn again; their sums must match the ones recorded with ppi_py's values."""
    d = GEN.make_inputs(case["inputs"], case["seed"])
    for k, v in case["checksums"].items():
        assert float(np.sum(d[k])) == pytest.approx(v, rel=1e-12, abs=1e-9), \
            f"numpy's random stream changed: {case['name']} input {k}; regenerate the reference file"
    return d


def _alt(a):
    return {"larger": "greater", "smaller": "less", "two-sided": "two-sided"}[a]


# --------------------------------------------------------------------------------------------
# means: equal to ppi_py
# --------------------------------------------------------------------------------------------

def test_mean_pointestimate_matches_ppi_py():
    # ppi_py tests/test_mean.py::test_ppi_mean_pointestimate: Yhat = Y + 2 and every unlabelled
    # prediction 2, so the rectified mean is exactly 0 (ppi_py.ppi_mean_pointestimate)
    c = CASES["mean_pointestimate"]
    d = _inputs(c)
    e = P.ppi_mean(d["Y"], d["Yhat"], d["Yhat_unlabeled"], quantile="normal", ci_method="analytic")
    assert c["result"]["estimate"] == 0.0
    assert e.estimate == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("alpha", GEN.ALPHAS)
def test_mean_ci_matches_ppi_py(alpha):
    # ppi_py tests/test_mean.py::test_ppi_mean_ci and ::test_classical_mean_ci (one seeded trial):
    # ppi_py.ppi_mean_ci(lam=None) and ppi_py.classical_mean_ci
    c = CASES[f"mean_ci_alpha{alpha}"]
    d = _inputs(c)
    e = P.ppi_mean(d["Y"], d["Yhat"], d["Yhat_unlabeled"], quantile="normal", ci_method="analytic", confidence_level=1 - alpha)
    np.testing.assert_allclose([e.ci.low, e.ci.high], np.ravel(c["result"]["ci"]), rtol=0, atol=1e-10)
    cc = CASES[f"classical_mean_ci_alpha{alpha}"]
    e0 = P.ppi_mean(d["Y"], d["Yhat"], d["Yhat_unlabeled"], method="classical", quantile="normal", ci_method="analytic",
                    confidence_level=1 - alpha)
    np.testing.assert_allclose([e0.ci.low, e0.ci.high], np.ravel(cc["result"]["ci"]), rtol=0, atol=1e-10)


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_mean_pvalue_matches_ppi_py(lam):
    # ppi_py tests/test_mean.py::test_ppi_mean_pval design; ppi_py.ppi_mean_pval(null=0, lam=lam)
    c = CASES[f"mean_pval_lam{lam}"]
    d = _inputs(c)
    e = P.ppi_mean(d["Y"], d["Yhat"], d["Yhat_unlabeled"], quantile="normal", ci_method="analytic", lam=lam, null=0.0)
    assert e.pvalue == pytest.approx(c["result"]["pvalue"], abs=1e-10)


SEEDED = [(10, 40), (15, 200), (25, 100), (50, 500), (200, 2000)]


@pytest.mark.parametrize("n,N", SEEDED)
def test_mean_seeded_matches_ppi_py(n, N):
    # ppi_py.ppi_mean_ci / ppi_mean_pointestimate with lam=None (λ* from _calc_lam_glm), with
    # λ = 0, 0.3, 1 given (ppi_mean_pval(null=0.5) too), and one-sided with the tuned λ passed
    base = f"mean_seeded_{n}_{N}"
    c = CASES[f"{base}_tuned"]
    d = _inputs(c)
    args = (d["Y"], d["Yhat"], d["Yhat_unlabeled"])
    e = P.ppi_mean(*args, quantile="normal", ci_method="analytic")
    np.testing.assert_allclose([e.ci.low, e.ci.high], np.ravel(c["result"]["ci"]), rtol=0, atol=1e-10)
    assert e.estimate == pytest.approx(c["result"]["estimate"], abs=1e-12)
    assert e.extra["lam"] == pytest.approx(c["result"]["lam"], abs=1e-12)
    assert P.ppi_lambda(*args) == pytest.approx(c["result"]["lam"], abs=1e-12)
    for lam in (0.0, 0.3, 1.0):
        c = CASES[f"{base}_lam{lam}"]
        e = P.ppi_mean(*args, quantile="normal", ci_method="analytic", lam=lam, confidence_level=0.9, null=0.5)
        np.testing.assert_allclose([e.ci.low, e.ci.high], np.ravel(c["result"]["ci"]), rtol=0, atol=1e-10)
        assert e.estimate == pytest.approx(c["result"]["estimate"], abs=1e-12)
        assert e.pvalue == pytest.approx(c["result"]["pvalue"], abs=1e-10)
        # the one variance definition gives the same figures
        v = P.ppi_mean_variance(*args, lam=lam)
        assert v.estimate == pytest.approx(e.estimate, abs=1e-14)
        assert v.se == pytest.approx(e.se, rel=1e-12)
    for alt in ("larger", "smaller"):
        c = CASES[f"{base}_{alt}"]
        e = P.ppi_mean(*args, quantile="normal", ci_method="analytic", lam=c["call"]["lam"], alternative=_alt(alt), null=0.5)
        np.testing.assert_allclose([e.ci.low, e.ci.high], np.ravel(c["result"]["ci"]), rtol=0, atol=1e-10)
        assert e.pvalue == pytest.approx(c["result"]["pvalue"], abs=1e-10)


def test_ppi_mean_tuned_lambda_is_interior_somewhere():
    # the seeded references exercise λ* strictly inside (0, 1), not only the clipped ends
    lams = [CASES[f"mean_seeded_{n}_{N}_tuned"]["result"]["lam"] for n, N in SEEDED]
    assert any(0.05 < v < 0.95 for v in lams)


# --------------------------------------------------------------------------------------------
# means: closed forms and properties
# --------------------------------------------------------------------------------------------

def _data(n=15, N=200, seed=0, bias=0.1):
    rng = np.random.default_rng(seed)
    y = rng.normal(0.5, 0.2, n)
    yu_true = rng.normal(0.5, 0.2, N)
    return y, y + bias + rng.normal(0, 0.08, n), yu_true + bias + rng.normal(0, 0.08, N)


def test_classical_t_is_students_t_interval():
    # quantile="t" with method="classical" is Student's t interval (scipy.stats.t.interval)
    y, yh, yu = _data()
    e = P.ppi_mean(y, yh, yu, method="classical", quantile="t", ci_method="analytic", confidence_level=0.9)
    # (and the default jackknife equals it: the mean is linear in the items)
    j = P.ppi_mean(y, yh, yu, method="classical", confidence_level=0.9)
    assert (j.ci.low, j.ci.high) == pytest.approx((e.ci.low, e.ci.high), abs=1e-12)
    lo, hi = stats.t.interval(0.9, len(y) - 1, loc=y.mean(), scale=stats.sem(y))
    assert (e.ci.low, e.ci.high) == pytest.approx((lo, hi), abs=1e-12)
    assert e.extra["df"] == len(y) - 1


def test_ppi_variance_formula_by_hand():
    # STATISTICS.md: θ̂ = mean(ŷ_unl) + mean(y − ŷ_lab); var = Var(y − ŷ)/n + Var(ŷ_unl)/N
    y, yh, yu = _data()
    for ddof in (0, 1):
        v = P.ppi_mean_variance(y, yh, yu, lam=1.0, ddof=ddof)
        assert v.estimate == pytest.approx(yu.mean() + (y - yh).mean(), abs=1e-14)
        assert v.var_labelled == pytest.approx(np.var(y - yh, ddof=ddof) / len(y), rel=1e-12)
        assert v.var_unlabelled == pytest.approx(np.var(yu, ddof=ddof) / len(yu), rel=1e-12)
    # λ = 0: the human-only mean; judge_only: the mean of every judge label
    assert P.ppi_mean_variance(y, yh, yu, lam=0.0).estimate == pytest.approx(y.mean(), abs=1e-14)
    j = P.ppi_mean(y, yh, yu, method="judge_only", quantile="normal", ci_method="analytic")
    both = np.r_[yh, yu]
    assert j.estimate == pytest.approx(both.mean(), abs=1e-14)
    assert j.se == pytest.approx(both.std() / math.sqrt(len(both)), rel=1e-12)


def test_tuned_lambda_minimizes_the_variance_it_estimates():
    # PPI++ eq. (6): with the ppi_py estimate of Var(ŷ) pooled, the variance as a function of λ
    # is a parabola; the tuned λ is its minimizer when Var(ŷ_lab) equals the pooled variance
    rng = np.random.default_rng(5)
    y = rng.normal(size=400)
    yh = 0.6 * y + rng.normal(scale=0.8, size=400)
    yu = np.r_[yh, yh]       # unlabelled judge labels with the same spread as the labelled ones
    lam = P.ppi_lambda(y, yh, yu)
    grid = np.linspace(0, 1, 2001)
    var = [P.ppi_mean_variance(y, yh, yu, lam=g).variance for g in grid]
    assert lam == pytest.approx(grid[int(np.argmin(var))], abs=2e-3)


def test_clustered_variance_from_cluster_totals():
    # with clusters the variance of a mean is G/(G−ddof)·Σ_c (T_c − n_c z̄)²/n² (the ratio-mean
    # linearization); by hand for z = y − λŷ on labelled clusters and ŷ on unlabelled ones
    rng = np.random.default_rng(3)
    cl = np.repeat(np.arange(8), rng.integers(2, 6, 8))
    clu = np.repeat(np.arange(100, 130), rng.integers(2, 6, 30))
    y = rng.normal(size=len(cl)) + rng.normal(size=8)[cl]
    yh = y + 0.3 + rng.normal(scale=0.5, size=len(cl))
    yu = rng.normal(size=len(clu)) + 0.3
    lam = 0.7
    for ddof in (0, 1):
        v = P.ppi_mean_variance(y, yh, yu, lam=lam, ddof=ddof, cluster=cl, cluster_unlabelled=clu)

        def cvar(z, c, ddof=ddof):
            zbar = z.mean()
            G = len(np.unique(c))
            tot = np.array([np.sum(z[c == g] - zbar) for g in np.unique(c)])
            return G / (G - ddof) * np.sum(tot ** 2) / len(z) ** 2

        assert v.var_labelled == pytest.approx(cvar(y - lam * yh, cl), rel=1e-10)
        assert v.var_unlabelled == pytest.approx(lam ** 2 * cvar(yu, clu), rel=1e-10)
    # singleton clusters are the iid formulas
    ids = np.arange(len(y))
    a = P.ppi_mean(y, yh, yu, cluster=ids, cluster_unlabelled=np.arange(len(yu)) + 10_000, lam=0.4)
    b = P.ppi_mean(y, yh, yu, lam=0.4)
    assert a.ci.method == b.ci.method == "analytic"      # "auto" with a fixed λ
    assert (a.ci.low, a.ci.high) == pytest.approx((b.ci.low, b.ci.high), abs=1e-12)


def test_finite_population_variance_by_enumeration():
    # the finite-population variance of ppi_mean_variance is the design variance: enumerate many
    # random labelled subsets of a fixed population of P topics and compare the empirical
    # variance of θ̂ around the population mean with the formula's expectation (λ fixed)
    rng = np.random.default_rng(11)
    Ptot, n = 60, 12
    y = rng.normal(0.5, 0.2, Ptot)
    yh = 0.8 * y + 0.2 + rng.normal(0, 0.1, Ptot) + 0.1 * (np.arange(Ptot) % 3)
    lam = 0.8
    ests, vars_ = [], []
    for _ in range(20000):
        idx = rng.permutation(Ptot)
        lab, unl = idx[:n], idx[n:]
        v = P.ppi_mean_variance(y[lab], yh[lab], yh[unl], lam=lam, ddof=1, population_size=Ptot)
        ests.append(v.estimate)
        vars_.append(v.variance)
    ests = np.array(ests)
    assert ests.mean() == pytest.approx(y.mean(), abs=3 * ests.std() / math.sqrt(len(ests)))   # unbiased
    true_var = np.mean((ests - y.mean()) ** 2)
    assert np.mean(vars_) == pytest.approx(true_var, rel=0.05)
    # and equals (1 − n/P)·S²_r/n exactly when every other item is judged
    lab, unl = np.arange(n), np.arange(n, Ptot)
    v = P.ppi_mean_variance(y[lab], yh[lab], yh[unl], lam=lam, ddof=1, population_size=Ptot)
    r = y[lab] - lam * yh[lab]
    assert v.variance == pytest.approx((1 - n / Ptot) * np.var(r, ddof=1) / n, rel=1e-12)
    assert v.var_unlabelled == pytest.approx(0.0, abs=1e-15)


def test_finite_population_tends_to_infinite():
    y, yh, yu = _data()
    a = P.ppi_mean_variance(y, yh, yu, lam=0.6, population_size=10 ** 9)
    b = P.ppi_mean_variance(y, yh, yu, lam=0.6)
    assert a.variance == pytest.approx(b.variance, rel=1e-6)
    assert a.estimate == pytest.approx(b.estimate, abs=1e-7)


def test_jackknife_of_fixed_lambda_equals_unbiased_analytic():
    # for fixed λ the estimate is linear in the unit means, so the delete-one jackknife variance
    # equals the ddof = 1 analytic variance (Efron & Tibshirani 1993, §11.5)
    y, yh, yu = _data()
    a = P.ppi_mean(y, yh, yu, method="ppi", quantile="t", ci_method="analytic")
    j = P.ppi_mean(y, yh, yu, method="ppi", quantile="t", ci_method="jackknife")
    assert j.se == pytest.approx(a.se, rel=1e-10)
    # with λ re-tuned on every leave-one-out sample the jackknife is wider
    a = P.ppi_mean(y, yh, yu, quantile="t", ci_method="analytic")
    j = P.ppi_mean(y, yh, yu, quantile="t", ci_method="jackknife")
    assert j.se > a.se


def test_auto_is_the_jackknife_for_a_tuned_lambda_and_analytic_otherwise():
    # the default: the jackknife where λ is estimated (PPI++ without lam), the analytic t interval for
    # a fixed λ, where the two are equal (without clusters) — also with a finite population
    y, yh, yu = _data()
    assert P.ppi_mean(y, yh, yu).ci.method == "jackknife"
    for kw in ({"lam": 0.7}, {"method": "ppi"}, {"method": "classical"}, {"method": "judge_only"}):
        for pop in (None, len(y) + len(yu)):
            auto = P.ppi_mean(y, yh, yu, population_size=pop, **kw)
            ana = P.ppi_mean(y, yh, yu, population_size=pop, ci_method="analytic", **kw)
            assert auto.ci.method == "analytic" and (auto.ci.low, auto.ci.high) == (ana.ci.low, ana.ci.high)
            if kw.get("method") != "judge_only":
                jack = P.ppi_mean(y, yh, yu, population_size=pop, ci_method="jackknife", **kw)
                assert (jack.ci.low, jack.ci.high) == pytest.approx((ana.ci.low, ana.ci.high), abs=1e-12)


def test_bootstrap_t_through_the_engine_is_reproducible():
    y, yh, yu = _data()
    a = P.ppi_mean(y, yh, yu, ci_method="bootstrap-t", n_resamples=500, rng=7)
    b = P.ppi_mean(y, yh, yu, ci_method="bootstrap-t", n_resamples=500, rng=a.seed)
    assert (a.ci.low, a.ci.high) == (b.ci.low, b.ci.high)
    assert a.ci.method == "bootstrap-t" and a.n_resamples == 500 and a.seed == 7
    assert a.ci.low < a.estimate < a.ci.high
    # the interval is θ̂ − q·se with q the studentized replicates' quantiles
    q_lo, q_hi = a.extra["t_quantiles"]
    assert a.ci.low == pytest.approx(a.estimate - q_hi * a.se, abs=1e-12)
    assert a.ci.high == pytest.approx(a.estimate - q_lo * a.se, abs=1e-12)


def test_alternative_one_sided_and_pvalue():
    y, yh, yu = _data()
    two = P.ppi_mean(y, yh, yu, confidence_level=0.9)
    gr = P.ppi_mean(y, yh, yu, confidence_level=0.95, alternative="greater", null=0.0)
    le = P.ppi_mean(y, yh, yu, confidence_level=0.95, alternative="less")
    assert gr.ci.low == pytest.approx(two.ci.low, abs=1e-12) and gr.ci.high == math.inf
    assert le.ci.high == pytest.approx(two.ci.high, abs=1e-12) and le.ci.low == -math.inf
    assert gr.pvalue < 1e-6


def test_point_estimate_only():
    y, yh, yu = _data()
    e = P.ppi_mean(y, yh, yu, ci_method=None)
    assert e.ci.method == "none" and math.isnan(e.ci.low)
    assert e.estimate == P.ppi_mean(y, yh, yu).estimate


def test_estimate_fields_and_frame():
    y, yh, yu = _data()
    e = metaeval.ppi_mean(y, yh, yu)
    assert e.statistic == "ppi++_mean" and e.n == len(y) + len(yu)
    assert set(("lam", "var_labelled", "var_unlabelled", "n_over_N")) <= set(e.extra)
    assert e.extra["n_over_N"] == len(y) / len(yu)
    assert e.se ** 2 == pytest.approx(e.extra["var_labelled"] + e.extra["var_unlabelled"], rel=1e-12)
    for m in P.METHODS:
        assert P.ppi_mean(y, yh, yu, method=m).statistic == f"{m}_mean"


# --------------------------------------------------------------------------------------------
# input errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,match", [
    ({"y": [1.0, 2.0, 3.0], "yhat": [1.0, 2.0]}, "different lengths"),
    ({"y": [1.0, np.nan, 3.0], "yhat": [1.0, 2.0, 3.0]}, "missing or infinite"),
    ({"yhat_unlabelled": []}, "empty"),
    ({"y": [1.0], "yhat": [1.0]}, "at least 2 labelled"),
    ({"method": "magic"}, "method must be"),
    ({"quantile": "cauchy"}, "quantile must be"),
    ({"ci_method": "bca"}, "ci_method must be"),
    ({"confidence_level": 1.5}, "confidence_level"),
    ({"method": "ppi", "lam": 0.5}, "lam= applies"),
    ({"population_size": 3}, "population_size must be"),
    ({"cluster": [1, 1, 2]}, "together"),
    ({"yhat_unlabelled": [[1.0, 2.0]]}, "one-dimensional"),
])
def test_input_errors(kwargs, match):
    args = {"y": [1.0, 2.0, 3.0], "yhat": [1.0, 2.5, 3.0], "yhat_unlabelled": [1.0, 2.0, 2.0, 4.0]}
    args.update(kwargs)
    with pytest.raises(InputError, match=match):
        P.ppi_mean(args.pop("y"), args.pop("yhat"), args.pop("yhat_unlabelled"), **args)


def test_shared_clusters_are_refused():
    with pytest.raises(InputError, match="both labelled and unlabelled"):
        P.ppi_mean([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0], cluster=[1, 1, 2], cluster_unlabelled=[2, 3])


# --------------------------------------------------------------------------------------------
# proportions and paired differences
# --------------------------------------------------------------------------------------------

def test_proportion_is_the_mean_of_binary_labels_clipped_interval():
    rng = np.random.default_rng(4)
    truth = (rng.random(600) < 0.08).astype(float)
    judge = np.where(rng.random(600) < 0.8, truth, 1 - truth)
    y, yh, yu = truth[:30], judge[:30], judge[30:]
    p = P.ppi_proportion(y, yh, yu, quantile="normal")
    m = P.ppi_mean(y, yh, yu, quantile="normal")
    assert p.estimate == m.estimate and p.statistic == "ppi++_proportion"
    assert p.ci.low == max(0.0, m.ci.low) and p.ci.high == min(1.0, m.ci.high)
    with pytest.raises(InputError, match="0/1"):
        P.ppi_proportion([0.0, 2.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0])
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        P.ppi_proportion([0.0, 1.0, 1.0], [0.0, 1.5, 1.0], [1.0, 0.0])


def test_mean_difference_is_ppi_on_differences():
    rng = np.random.default_rng(9)
    topic = rng.normal(0.5, 0.2, 120)
    human = np.column_stack([topic + 0.03, topic]) + rng.normal(0, 0.05, (120, 2))
    judge = human * 0.9 + 0.1 + rng.normal(0, 0.04, (120, 2))
    d = P.ppi_mean_difference(human[:15], judge[:15], judge[15:])
    m = P.ppi_mean(human[:15, 0] - human[:15, 1], judge[:15, 0] - judge[:15, 1], judge[15:, 0] - judge[15:, 1],
                   null=0.0)
    assert (d.estimate, d.ci.low, d.ci.high, d.pvalue) == pytest.approx((m.estimate, m.ci.low, m.ci.high, m.pvalue))
    assert d.statistic == "ppi++_mean_difference"
    # pairing removes the topic effect both systems share: the paired standard error is far below
    # √(se_a² + se_b²), the standard error of the two means taken as independent
    a = P.ppi_mean(human[:15, 0], judge[:15, 0], judge[15:, 0])
    b = P.ppi_mean(human[:15, 1], judge[:15, 1], judge[15:, 1])
    assert d.se < 0.5 * math.hypot(a.se, b.se)
    with pytest.raises(InputError, match="two columns"):
        P.ppi_mean_difference(human[:15, 0], judge[:15], judge[15:])


# --------------------------------------------------------------------------------------------
# M-estimation: equal to ppi_py
# --------------------------------------------------------------------------------------------

QUANTILE_CASES = [n for n in CASES if n.startswith("quantile_")]


@pytest.mark.parametrize("name", QUANTILE_CASES)
def test_quantile_matches_ppi_py(name):
    # ppi_py.ppi_quantile_pointestimate and ppi_quantile_ci (λ = 1) on the designs of ppi_py
    # tests/test_quantile.py::test_ppi_quantile_ci / ::test_ppi_quantile_pointestimate and seeded data
    c = CASES[name]
    d = _inputs(c)
    q, exact = c["call"]["q"], c["call"]["exact_grid"]
    args = (d["Y"], d["Yhat"], d["Yhat_unlabeled"], q)
    for key, ref in c["result"].items():
        if key == "estimate":
            e = P.ppi_quantile(*args, method="ppi", exact_grid=exact)
            assert e.estimate == pytest.approx(ref, abs=1e-6), c["mirrors"]
        else:
            alpha = float(key.removeprefix("ci_alpha"))
            e = P.ppi_quantile(*args, method="ppi", exact_grid=exact, confidence_level=1 - alpha)
            np.testing.assert_allclose([e.ci.low, e.ci.high], ref, rtol=0, atol=1e-6, err_msg=c["mirrors"])


def _mest_call(kind, c, d, **kw):
    fn = P.ppi_ols if kind == "ols" else P.ppi_logistic
    call = dict(c["call"])
    alpha = call.pop("alpha", 0.1)
    alt = _alt(call.pop("alternative", "two-sided"))
    return fn(d["X"], d["Y"], d["Yhat"], d["X_unlabeled"], d["Yhat_unlabeled"], confidence_level=1 - alpha,
              alternative=alt, quantile="normal", **{**call, **kw})


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("ols_")])
def test_ols_matches_ppi_py(name):
    # ppi_py.ppi_ols_ci (λ tuned in two passes, or given; coord; one-sided) and
    # ppi_ols_pointestimate (one tuning pass) on ppi_py tests/test_ols.py designs and seeded data
    c = CASES[name]
    d = _inputs(c)
    rs = _mest_call("ols", c, d)
    est = np.array([e.estimate for e in rs])
    if "ci" in c["result"]:
        # (statsmodels' one-sided intervals carry a scalar inf end)
        lo, hi = (np.broadcast_to(np.array(v), (len(rs),)) for v in c["result"]["ci"])
        np.testing.assert_allclose([e.ci.low for e in rs], lo, rtol=0, atol=1e-6, err_msg=c["mirrors"])
        np.testing.assert_allclose([e.ci.high for e in rs], hi, rtol=0, atol=1e-6, err_msg=c["mirrors"])
    # ppi_ols_pointestimate tunes λ once (at the λ = 1 fit): the first of lam_steps
    steps = rs[0].extra["lam_steps"]
    if steps:
        call = {k: v for k, v in c["call"].items() if k == "coord"}
        est = np.array([e.estimate for e in P.ppi_ols(d["X"], d["Y"], d["Yhat"], d["X_unlabeled"],
                                                      d["Yhat_unlabeled"], lam=steps[0], **call)])
    np.testing.assert_allclose(est, c["result"]["estimate"], rtol=0, atol=1e-6, err_msg=c["mirrors"])


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("logistic_")])
def test_logistic_matches_ppi_py(name):
    # ppi_py.ppi_logistic_ci / ppi_logistic_pval / ppi_logistic_pointestimate on ppi_py
    # tests/test_logistic.py designs (pointestimate_debias, ci_subtest, pval_makesense) and seeded
    # data; ppi_py ignores coord= in its logistic λ rule, so that case is compared with coord=None
    c = CASES[name]
    d = _inputs(c)
    kw = {"coord": None} if "coord" in c["call"] else {}
    if c["function"] == "ppi_logistic_pval":
        kw["null"] = 0.0
    rs = _mest_call("logistic", c, d, **kw)
    if "ci" in c["result"]:
        lo, hi = (np.array(v) for v in c["result"]["ci"])
        np.testing.assert_allclose([e.ci.low for e in rs], lo, rtol=0, atol=1e-6, err_msg=c["mirrors"])
        np.testing.assert_allclose([e.ci.high for e in rs], hi, rtol=0, atol=1e-6, err_msg=c["mirrors"])
    if "pvalue" in c["result"]:
        np.testing.assert_allclose([e.pvalue for e in rs], c["result"]["pvalue"], rtol=1e-6, atol=1e-9)
    steps = rs[0].extra["lam_steps"]
    if steps:
        rs = P.ppi_logistic(d["X"], d["Y"], d["Yhat"], d["X_unlabeled"], d["Yhat_unlabeled"], lam=steps[0])
    np.testing.assert_allclose([e.estimate for e in rs], c["result"]["estimate"], rtol=0, atol=1e-6,
                               err_msg=c["mirrors"])


# --------------------------------------------------------------------------------------------
# stratified PPI and allocation
# --------------------------------------------------------------------------------------------

def test_stratified_single_stratum_is_ppi_mean():
    y, yh, yu = _data()
    for quantile in ("t", "normal"):
        s = P.ppi_mean_stratified(y, yh, yu, strata=np.zeros(len(y)), strata_unlabelled=np.zeros(len(yu)),
                                  quantile=quantile)
        m = P.ppi_mean(y, yh, yu, quantile=quantile, ci_method="analytic")
        assert (s.estimate, s.ci.low, s.ci.high) == pytest.approx((m.estimate, m.ci.low, m.ci.high), abs=1e-12)


def test_stratified_combines_strata_by_hand():
    # Fisch et al. (2024): θ̂ = Σ W_h θ̂_h, var = Σ W_h² var_h, per-stratum λ_h
    rng = np.random.default_rng(8)
    s = np.repeat([0, 1, 2], [200, 300, 500])
    y = rng.normal(np.array([0.2, 0.5, 0.8])[s], 0.1)
    yh = y + rng.normal(0.05, np.array([0.02, 0.1, 0.3])[s])
    lab = np.r_[0:10, 200:215, 500:530]
    unl = np.setdiff1d(np.arange(1000), lab)
    W = {0: 0.2, 1: 0.3, 2: 0.5}
    e = P.ppi_mean_stratified(y[lab], yh[lab], yh[unl], strata=s[lab], strata_unlabelled=s[unl],
                              weights={k: 10 * v for k, v in W.items()}, quantile="normal")
    parts = [P.ppi_mean(y[lab][s[lab] == h], yh[lab][s[lab] == h], yh[unl][s[unl] == h], quantile="normal",
                        ci_method="analytic")
             for h in (0, 1, 2)]
    assert e.estimate == pytest.approx(sum(W[h] * parts[h].estimate for h in W), abs=1e-12)
    assert e.se ** 2 == pytest.approx(sum(W[h] ** 2 * parts[h].se ** 2 for h in W), rel=1e-12)
    assert [e.extra["strata"][h]["lam"] for h in W] == pytest.approx([p.extra["lam"] for p in parts])
    # the default weights are the strata's shares of all items
    d = P.ppi_mean_stratified(y[lab], yh[lab], yh[unl], strata=s[lab], strata_unlabelled=s[unl])
    assert [d.extra["strata"][h]["weight"] for h in (0, 1, 2)] == pytest.approx([0.2, 0.3, 0.5])
    with pytest.raises(InputError, match="at least 2 labelled"):
        P.ppi_mean_stratified(y[lab], yh[lab], yh[unl], strata=np.r_[s[lab][:-1], 3], strata_unlabelled=s[unl])


def test_neyman_allocation_minimizes_the_stratified_variance():
    # brute force over every integer allocation of 24 labels to 3 strata (each ≥ 2): Neyman's
    # rounded allocation is within 1% of the best Σ W_h² σ_h² / n_h (Cochran 1977, §5.5)
    sizes = np.array([300, 120, 80])
    sd = np.array([0.05, 0.2, 0.4])
    W = sizes / sizes.sum()
    alloc = P.neyman_allocation(24, sizes=sizes, sd=sd)
    assert alloc.sum() == 24 and (alloc >= 2).all()
    best = min(np.sum(W ** 2 * sd ** 2 / np.array([a, b, 24 - a - b]))
               for a in range(2, 21) for b in range(2, 23 - a) if 24 - a - b >= 2)
    assert np.sum(W ** 2 * sd ** 2 / alloc) <= 1.01 * best
    # proportional allocation: shares of the sizes, summing to the budget
    prop = P.proportional_allocation(24, sizes=sizes)
    assert prop.tolist() == [14, 6, 4]
    # caps: a stratum cannot get more labels than it has items
    capped = P.neyman_allocation(20, sizes=[5, 100], sd=[10.0, 0.1])
    assert capped.tolist() == [5, 15]
    with pytest.raises(InputError, match="cannot give"):
        P.proportional_allocation(3, sizes=[10, 10])


def test_stratum_residual_sd():
    rng = np.random.default_rng(1)
    s = np.repeat([0, 1], 50)
    y = rng.normal(size=100)
    yh = y + rng.normal(0, np.where(s == 0, 0.1, 1.0))
    sd = P.stratum_residual_sd(y, yh, s, lam=1.0)
    assert sd[0] == pytest.approx(np.std((y - yh)[:50], ddof=1)) and sd[1] > 5 * sd[0]


# --------------------------------------------------------------------------------------------
# coverage simulation: topic-clustered data, a judge whose bias varies by topic
# --------------------------------------------------------------------------------------------

#: the small-sample choices compared: (label, quantile, ci_method)
CHOICES = [("normal", "normal", "analytic"), ("t", "t", "analytic"), ("jackknife", "t", "jackknife"),
           ("bootstrap-t", "t", "bootstrap-t")]
#: superpopulation mean of a topic's (and an item's) human label: E[Beta(2, 2.5)]
SUPER_MEAN = 2 / 4.5


def _topic_data(rng, T):
    """T topics of 10–40 items; human labels Bernoulli(μ_t), μ_t ~ Beta(2, 2.5); the judge's score
    is 0.6·y + 0.2 + b_t + noise, clipped to [0, 1], with a topic bias b_t ~ N(0.05, 0.10)."""
    m = rng.integers(10, 41, T)
    mu = rng.beta(2.0, 2.5, T)
    b = rng.normal(0.05, 0.10, T)
    topic = np.repeat(np.arange(T), m)
    y = (rng.random(topic.size) < mu[topic]).astype(float)
    yh = np.clip(0.6 * y + 0.2 + b[topic] + rng.normal(0, 0.2, topic.size), 0, 1)
    return topic, y, yh


def coverage_simulation(ns=(10, 15, 25, 50), Ts=(40, 100, 200), reps=400, n_resamples=999, seed=20261201,
                        analyses=("topics", "topics_fpc", "items_clustered"), methods=P.METHODS, choices=CHOICES):
    """Coverage and mean width of nominal 95% intervals for every method × small-sample choice.

    Analyses: ``topics`` — one value per topic (the topic's mean label, as a system's per-topic
    score), n random topics labelled, the others judged; target: the superpopulation mean.
    ``topics_fpc`` — the same data with ``population_size=T``; target: the mean over the T topics
    at hand (the TREC question). ``items_clustered`` — item-level labels with ``cluster=`` (whole
    topics labelled); target: the superpopulation mean. Returns a list of dict rows.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for T in Ts:
        for n in ns:
            if n >= T:
                continue
            hits = {(a, m, c[0]): [] for a in analyses for m in methods for c in choices}
            width = {k: [] for k in hits}
            for _ in range(reps):
                topic, y, yh = _topic_data(rng, T)
                lab_topics = rng.choice(T, n, replace=False)
                is_lab = np.isin(np.arange(T), lab_topics)
                ybar = np.bincount(topic, y) / np.bincount(topic)
                hbar = np.bincount(topic, yh) / np.bincount(topic)
                finite = ybar.mean()
                item_lab = is_lab[topic]
                for a in analyses:
                    if a == "items_clustered":
                        args = (y[item_lab], yh[item_lab], yh[~item_lab])
                        kw = {"cluster": topic[item_lab], "cluster_unlabelled": topic[~item_lab]}
                        target = SUPER_MEAN
                    else:
                        args = (ybar[is_lab], hbar[is_lab], hbar[~is_lab])
                        kw = {"population_size": T} if a == "topics_fpc" else {}
                        target = finite if a == "topics_fpc" else SUPER_MEAN
                    for m in methods:
                        for label, quantile, ci_method in choices:
                            e = P.ppi_mean(*args, method=m, quantile=quantile, ci_method=ci_method,
                                           n_resamples=n_resamples, rng=rng, **kw)
                            hits[(a, m, label)].append(e.ci.contains(target))
                            width[(a, m, label)].append(e.ci.width)
            for (a, m, c), h in hits.items():
                rows.append({"analysis": a, "T": T, "n": n, "method": m, "choice": c, "coverage": float(np.mean(h)),
                             "width": float(np.mean(width[(a, m, c)])), "reps": reps})
    return rows


def _coverage_table(rows):
    import pandas as pd

    df = pd.DataFrame(rows)
    return df.pivot_table(index=["analysis", "method", "choice"], columns="n", values=["coverage", "width"],
                          aggfunc="mean")


@pytest.mark.slow
def test_coverage_simulation_small_sample_choices():
    # A reduced run of coverage_simulation (the module notes of metaeval.inference.ppi report the full
    # run: 1,800 data sets per cell). At 10 and 25 labelled topics of 100, the default interval of
    # PPI++ (t quantile, jackknife with λ re-tuned) must cover ≥ 0.93, at least as often as the t
    # interval and the normal interval of ppi_py; the bootstrap-t ≥ 0.92; the judge-only interval
    # must fail (the judge is biased) and PPI++ must be narrower than the human-only interval.
    import warnings as _w

    with _w.catch_warnings():
        _w.simplefilter("ignore")
        rows = coverage_simulation(ns=(10, 25), Ts=(100,), reps=300, analyses=("topics", "topics_fpc"),
                                   choices=CHOICES[:3], methods=("ppi++", "classical", "judge_only"))
        boot = coverage_simulation(ns=(10, 25), Ts=(100,), reps=100, n_resamples=299, analyses=("topics",),
                                   choices=CHOICES[3:], methods=("ppi++",), seed=7)

    def get(rs, a, m, c, n, what="coverage"):
        return next(r[what] for r in rs if (r["analysis"], r["method"], r["choice"], r["n"]) == (a, m, c, n))

    assert (P.DEFAULT_QUANTILE, P.DEFAULT_CI_METHOD) == ("t", "auto")
    for a in ("topics", "topics_fpc"):
        for n in (10, 25):
            default = get(rows, a, "ppi++", "jackknife", n)
            assert default >= 0.93, (a, n, default)
            assert default >= get(rows, a, "ppi++", "t", n) >= get(rows, a, "ppi++", "normal", n) - 0.01
            assert get(rows, a, "judge_only", "t", n) < 0.5
            assert get(rows, a, "ppi++", "jackknife", n, "width") < get(rows, a, "classical", "t", n, "width")
    for n in (10, 25):
        assert get(boot, "topics", "ppi++", "bootstrap-t", n) >= 0.92
