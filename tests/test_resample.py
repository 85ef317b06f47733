"""The resampling engine (metaeval.resample) against scipy.stats.bootstrap and first principles.

* Intervals: ``ci_from_replicates`` applied to scipy's own ``bootstrap_distribution`` (with the
  acceleration from metaeval's jackknife over table cells) reproduces scipy's BCa, percentile and
  basic endpoints to 1e-12, and scipy applied to metaeval's replicates (``bootstrap_result=``)
  reproduces metaeval's.
* The cell jackknife with multiplicities equals the brute-force leave-one-item-out jackknife.
* The multinomial table draw has the multinomial mean and covariance.
* Chunking, memory, cluster weights, strata, paired-difference p-values and seeds.
"""

from __future__ import annotations

import json
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy
import scipy.stats as sps

import metaeval
from metaeval.core import registry
from metaeval.core.errors import SmallSampleWarning, UndefinedStatisticWarning
from metaeval.core.resample import (
    MIN_CLUSTERS,
    BootstrapResult,
    Units,
    _acceleration,
    _draw,
    bootstrap,
    bootstrap_pvalue,
    ci_from_replicates,
    cluster_correction_factor,
    debiased_bootstrap,
    group_means,
    make_rng,
    table_units,
)

REF = Path(__file__).resolve().parent / "reference"
TABLES = {t["name"]: np.asarray(t["counts"], dtype=np.int64)
          for t in json.loads((REF / "tables.json").read_text())["tables"]}
SCIPY_TABLES = ["k2_balanced", "k2_asymmetric_marginals", "k3_fleiss_cohen_everitt", "k4_small_sparse",
                "k5_likert"]
METHODS = ["bca", "percentile", "basic"]
SCIPY_METHOD = {"bca": "BCa", "percentile": "percentile", "basic": "basic"}


def expand(t):
    t = np.asarray(t)
    k = t.shape[0]
    return (np.repeat(np.repeat(np.arange(k), k), t.ravel()),
            np.repeat(np.tile(np.arange(k), k), t.ravel()))


def kappa_kernel(k):
    return registry.resolve("cohen_kappa").kernel(k)


def item_kappa(k):
    """A vectorized scipy statistic: Cohen's kappa of paired label arrays along the last axis."""
    kern = kappa_kernel(k)

    def stat(x, y, axis=-1):
        x = np.moveaxis(np.asarray(x), axis, -1)
        y = np.moveaxis(np.asarray(y), axis, -1)
        code = (x * k + y).astype(np.int64)
        counts = np.stack([(code == c).sum(axis=-1) for c in range(k * k)], axis=-1)
        return kern(counts.reshape(-1, k * k)).reshape(counts.shape[:-1])
    return stat


class _Prior:
    """Stands in for a scipy BootstrapResult: scipy only reads ``bootstrap_distribution``."""

    def __init__(self, dist):
        self.bootstrap_distribution = np.asarray(dist)


# =============================================================================================
# equality with scipy.stats.bootstrap on the same replicates
# =============================================================================================

@pytest.mark.parametrize("level", [0.95, 0.9])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", SCIPY_TABLES)
def scipy_replicates_into_metaeval_test(name, method, level):
    t = TABLES[name]
    k = t.shape[0]
    x, y = expand(t)
    stat = item_kappa(k)
    theta = stat(x, y)
    # expected: scipy.stats.bootstrap on item-level paired data (its own resamples and jackknife)
    res = sps.bootstrap((x, y), stat, paired=True, vectorized=True, n_resamples=3000, method=SCIPY_METHOD[method],
                        confidence_level=level, rng=np.random.default_rng(123))
    dist = res.bootstrap_distribution
    assert not np.isnan(dist).any()
    # metaeval's acceleration: the jackknife over the K^2 cells with multiplicities n_ij
    accel = bootstrap(kappa_kernel(k), table_units(t), n_resamples=10, rng=0, ci_method="bca").accel
    low, high, _ = ci_from_replicates(theta, dist, method=method, confidence_level=level, accel=accel)
    assert abs(low[0] - res.confidence_interval.low) <= 1e-12
    assert abs(high[0] - res.confidence_interval.high) <= 1e-12


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["k2_balanced", "k4_small_sparse", "k5_likert"])
def metaeval_replicates_into_scipy_test(name, method, alternative):
    t = TABLES[name]
    k = t.shape[0]
    x, y = expand(t)
    ours = bootstrap(kappa_kernel(k), table_units(t), n_resamples=4000, ci_method=method, rng=99,
                     alternative=alternative)
    # expected: scipy.stats.bootstrap given metaeval's replicates (n_resamples=0 reuses them) and
    # computing its own item-level jackknife for BCa
    res = sps.bootstrap((x, y), item_kappa(k), paired=True, vectorized=True, n_resamples=0,
                        bootstrap_result=_Prior(ours.replicates[:, 0]), method=SCIPY_METHOD[method],
                        alternative=alternative)
    for got, exp in ((ours.low[0], res.confidence_interval.low), (ours.high[0], res.confidence_interval.high)):
        if np.isinf(exp):
            assert got == exp
        else:
            assert abs(got - exp) <= 1e-12
    # standard error as scipy computes it (ddof=1)
    assert abs(ours.se[0] - res.standard_error) <= 1e-12


@pytest.mark.parametrize("name", ["k2_balanced", "k3_empty_row", "k4_small_sparse", "k4_trec_relevance"])
def cell_jackknife_equals_item_jackknife_test(name):
    t = TABLES[name]
    k = t.shape[0]
    x, y = expand(t)
    stat = item_kappa(k)
    n = len(x)
    # brute force: leave each item out in turn (Efron & Tibshirani 1993, eq. 14.15)
    keep = ~np.eye(n, dtype=bool)
    jack = np.array([stat(x[keep[i]], y[keep[i]]) for i in range(n)])
    d = jack.mean() - jack
    a_brute = (d**3).sum() / (6 * ((d**2).sum()) ** 1.5)
    res = bootstrap(kappa_kernel(k), table_units(t), n_resamples=10, rng=0, ci_method="bca")
    assert abs(res.accel[0] - a_brute) <= 1e-12
    # and the private helper on the K^2 distinct values with multiplicities
    u = table_units(t)
    jack_cells = kappa_kernel(k)(u.total()[None, :] - u.X)[:, None]
    assert abs(_acceleration(jack_cells, u.m)[0] - a_brute) <= 1e-12
    # the public wrapper reports the same acceleration
    est = metaeval.cohen_kappa(table=t, n_resamples=10, rng=0)
    assert abs(est.extra["a"] - a_brute) <= 1e-12


def cluster_jackknife_is_leave_one_cluster_out_test():
    rng = np.random.default_rng(4)
    ct = rng.integers(0, 30, size=(12, 3, 3))
    kern = kappa_kernel(3)
    jack = np.array([kern(np.delete(ct, i, axis=0).sum(axis=0).reshape(1, -1))[0] for i in range(12)])
    d = jack.mean() - jack
    a_brute = (d**3).sum() / (6 * ((d**2).sum()) ** 1.5)
    res = bootstrap(kern, table_units(None, cluster_tables=ct), n_resamples=10, rng=0)
    assert abs(res.accel[0] - a_brute) <= 1e-12


def vector_statistic_matches_scipy_columnwise_test():
    """A (b, m) statistic gets m intervals, each as scipy would compute it for that column."""
    t = TABLES["k3_fleiss_cohen_everitt"]
    k = 3
    kern = kappa_kernel(k)
    w = 1 - np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
    kern_w = registry.resolve("cohen_kappa", weights=w).kernel(k)
    res = bootstrap(lambda S: np.stack([kern(S), kern_w(S)], axis=1), table_units(t), n_resamples=2000, rng=1)
    for j, kk in enumerate((kern, kern_w)):
        single = bootstrap(kk, table_units(t), n_resamples=2000, rng=1)
        # same draws; only floating-point rounding of the stacked kernel may differ
        assert abs(res.low[j] - single.low[0]) <= 1e-12 and abs(res.high[j] - single.high[0]) <= 1e-12
        assert abs(res.accel[j] - single.accel[0]) <= 1e-12


def ci_from_replicates_needs_acceleration_for_bca_test():
    with pytest.raises(ValueError, match="acceleration"):
        ci_from_replicates(0.5, np.random.default_rng(0).random(100), method="bca")
    with pytest.raises(ValueError):
        ci_from_replicates(0.5, np.random.default_rng(0).random(100), method="studentized")
    with pytest.raises(ValueError):
        ci_from_replicates(0.5, np.random.default_rng(0).random(100), method="percentile", alternative="both")


def nan_replicates_are_left_out_and_counted_test():
    reps = np.r_[np.linspace(0, 1, 101), [np.nan] * 9]
    low, high, _ = ci_from_replicates(0.5, reps, method="percentile")
    exp = np.quantile(np.linspace(0, 1, 101), [0.025, 0.975])
    assert abs(low[0] - exp[0]) < 1e-15 and abs(high[0] - exp[1]) < 1e-15
    # a small table where some replicates have one class only
    with pytest.warns(metaeval.MetaevalWarning, match="undefined"):
        res = bootstrap(kappa_kernel(2), table_units([[1, 0], [0, 5]]), n_resamples=500, rng=0,
                        ci_method="percentile")
    assert res.n_nan[0] > 0 and np.isnan(res.replicates).sum() == res.n_nan[0]
    assert np.isfinite(res.low[0]) and np.isfinite(res.high[0])


# =============================================================================================
# the multinomial draw
# =============================================================================================

@pytest.mark.parametrize("name", ["k2_balanced", "k3_empty_row", "k4_trec_relevance"])
def multinomial_draw_moments_test(name):
    t = TABLES[name]
    n = t.sum()
    p = (t / n).ravel()
    B = 20_000
    res = bootstrap(lambda S: S, table_units(t), n_resamples=B, ci_method="percentile", rng=2024)
    R = res.replicates                                  # (B, K^2): every replicate table
    assert R.shape == (B, t.size)
    assert (R.sum(axis=1) == n).all()                   # N items in every replicate
    assert (R[:, p == 0] == 0).all()                    # empty cells stay empty
    cov = n * (np.diag(p) - np.outer(p, p))            # Multinomial(N, p) covariance
    sd = np.sqrt(np.diag(cov))
    ok = sd > 0
    # mean: z-scores of the Monte-Carlo mean (SE = sd / sqrt(B))
    z = (R.mean(axis=0)[ok] - n * p[ok]) / (sd[ok] / np.sqrt(B))
    assert np.abs(z).max() < 4.5, z
    # covariance: entrywise, within 5 Monte-Carlo SEs (var of a sample covariance ~ (s_ii s_jj + s_ij^2)/B)
    emp = np.cov(R, rowvar=False)
    se_cov = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / B)
    zc = (emp - cov)[np.ix_(ok, ok)] / se_cov[np.ix_(ok, ok)]
    assert np.abs(zc).max() < 5, np.abs(zc).max()


def cluster_weights_sum_to_number_of_clusters_test():
    T = 35
    units = Units(np.eye(T), np.ones(T, dtype=np.int64), kind="clusters")
    res = bootstrap(lambda S: S, units, n_resamples=5000, ci_method="percentile", rng=1)
    W = res.replicates                                   # (B, T): the cluster weights themselves
    assert (W.sum(axis=1) == T).all()
    assert np.array_equal(W, np.round(W)) and (W >= 0).all()
    # Multinomial(T, 1/T): mean 1, variance 1 - 1/T
    assert abs(W.mean() - 1) < 0.01
    assert abs(W.var(axis=0, ddof=1).mean() - (1 - 1 / T)) < 0.02
    assert res.unit == "clusters" and res.n_units == T
    # through table_units: each replicate is sum_t w_t C_t, so the replicate N is w @ n_t
    ct = np.random.default_rng(3).integers(0, 10, size=(T, 2, 2))
    reps = _draw(table_units(None, cluster_tables=ct), np.random.default_rng(1), 5000)
    w = np.random.default_rng(1).multinomial(T, np.full(T, 1 / T), size=5000)
    np.testing.assert_array_equal(reps, w @ ct.reshape(T, -1))


def stratified_draws_keep_stratum_sizes_test():
    # units: cells within 3 strata; the contribution of a unit is its stratum indicator, so a
    # replicate's S is the number of units drawn per stratum
    rng = np.random.default_rng(0)
    sizes = []
    X, m, strata = [], [], []
    for h in range(3):
        counts = rng.integers(1, 40, size=4)
        sizes.append(counts.sum())
        for c in counts:
            X.append(np.eye(3)[h])
            m.append(c)
            strata.append(h)
    units = Units(np.array(X), np.array(m), strata=np.array(strata), kind="strata")
    res = bootstrap(lambda S: S, units, n_resamples=2000, ci_method="percentile", rng=5)
    assert (res.replicates == np.array(sizes)[None, :]).all()
    # and the cells inside a stratum do vary
    st = rng.integers(0, 30, size=(3, 2, 2))
    R = bootstrap(lambda S: S, table_units(None, strata_tables=st), n_resamples=2000, ci_method="percentile",
                  rng=5).replicates
    assert (R.sum(axis=1) == st.sum()).all() and R.std(axis=0).min() > 0
    # public API: strata= resamples within strata
    x, y = expand(TABLES["k4_trec_relevance"])
    s = np.arange(len(x)) % 3
    est = metaeval.cohen_kappa(x, y, strata=s, n_resamples=200, rng=0)
    assert est.unit == "strata" and est.n == len(x)


# =============================================================================================
# chunking and memory
# =============================================================================================

@pytest.mark.parametrize("chunk", [1, 7, 333, 5000])
def chunking_does_not_change_iid_or_cluster_results_test(chunk):
    """Guaranteed: for iid and cluster units the replicates (and so every interval) do not depend on
    the chunk size, because numpy's Generator.multinomial(n, p, size=b) draws its rows one after
    another from the stream, so b1 rows then b2 rows equal b1 + b2 rows at once.

    Not guaranteed for strata: each chunk draws stratum by stratum, so the stream is interleaved
    per chunk and a different chunk size gives different (equally valid) replicates; the same
    chunk size and seed always reproduce them.
    """
    t = TABLES["k4_trec_relevance"]
    kern = kappa_kernel(4)
    one = bootstrap(kern, table_units(t), n_resamples=5000, rng=17)          # default: one chunk
    chunked = bootstrap(kern, table_units(t), n_resamples=5000, rng=17, chunk=chunk)
    np.testing.assert_array_equal(one.replicates, chunked.replicates)
    assert one.low[0] == chunked.low[0] and one.high[0] == chunked.high[0]
    ct = np.random.default_rng(2).integers(0, 20, size=(25, 4, 4))
    one = bootstrap(kern, table_units(None, cluster_tables=ct), n_resamples=5000, rng=17)
    chunked = bootstrap(kern, table_units(None, cluster_tables=ct), n_resamples=5000, rng=17, chunk=chunk)
    np.testing.assert_array_equal(one.replicates, chunked.replicates)
    # strata: reproducible for a fixed chunk size
    su = table_units(None, strata_tables=ct[:3])
    a = bootstrap(kern, su, n_resamples=2000, rng=17, chunk=chunk)
    b = bootstrap(kern, su, n_resamples=2000, rng=17, chunk=chunk)
    np.testing.assert_array_equal(a.replicates, b.replicates)


def memory_does_not_grow_with_n_test():
    """B = 10,000 on a 2x2 table of N = 558,653 judgments: the draw is a multinomial over 4 cells."""
    n = 558_653
    pos = int(round(0.0107 * n))
    t = np.array([[n - pos - 900, 900], [400, pos - 400]])
    assert t.sum() == n
    metaeval.cohen_kappa(table=t, n_resamples=10, rng=0)   # warm up: lazy imports are not the call's memory
    tracemalloc.start()
    try:
        est = metaeval.cohen_kappa(table=t, n_resamples=10_000, rng=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, f"peak {peak / 2**20:.1f} MiB"
    assert est.n == n and est.n_resamples == 10_000 and est.ci.low < est.estimate < est.ci.high
    # from label arrays (the arrays themselves exist before tracing starts)
    rng = np.random.default_rng(0)
    x = (rng.random(n) < 0.0107).astype(float)
    y = np.where(rng.random(n) < 0.9, x, 1 - x)
    tracemalloc.start()
    try:
        metaeval.cohen_kappa(x, y, n_resamples=10_000, rng=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, f"peak {peak / 2**20:.1f} MiB"


# =============================================================================================
# paired differences and p-values
# =============================================================================================

def _paired_units(h, a, b):
    """Units for two judges a, b against the same human h: cells of the joint 2x2x2 table, with
    X_a mapping a joint cell to its (h, a) cell and X_b to its (h, b) cell (Units.concat)."""
    joint = np.bincount(h * 4 + a * 2 + b, minlength=8)
    cells = np.arange(8)
    hh, aa, bb = cells // 4, (cells // 2) % 2, cells % 2
    Xa = np.eye(4)[hh * 2 + aa]
    Xb = np.eye(4)[hh * 2 + bb]
    return Units(Xa, joint).concat(Units(Xb, joint))


def _diff_stat(S):
    k = kappa_kernel(2)
    ka, kb = k(S[:, :4]), k(S[:, 4:])
    return np.stack([ka, kb, ka - kb], axis=1)


@pytest.mark.parametrize("seed", range(6))
def paired_difference_pvalue_test(seed):
    rng = np.random.default_rng(seed)
    n = 400
    h = (rng.random(n) < 0.4).astype(int)
    a = np.where(rng.random(n) < 0.85, h, 1 - h)
    b = np.where(rng.random(n) < 0.80 + 0.01 * seed, h, 1 - h)
    res = bootstrap(_diff_stat, _paired_units(h, a, b), n_resamples=4000, ci_method="percentile", rng=seed)
    d = res.replicates[:, 2]
    p = res.pvalue(0.0, j=2)[0]
    # twice the smaller tail share
    assert p == min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
    # the same as the full vector call's third component
    assert p == res.pvalue(0.0)[2]
    # it inverts the percentile interval: p < 0.05 exactly when [low, high] excludes 0 (up to the
    # interpolation of the quantiles, which only matters when 0 sits between two order statistics)
    excl = not (res.low[2] <= 0 <= res.high[2])
    if abs(p - 0.05) > 2 / len(d):
        assert (p < 0.05) == excl
    # estimates equal the single-judge kappas
    assert abs(res.theta_hat[0] - metaeval.cohen_kappa(h, a, ci_method="analytic").estimate) < 1e-12
    assert abs(res.theta_hat[1] - metaeval.cohen_kappa(h, b, ci_method="analytic").estimate) < 1e-12


def paired_difference_extremes_test():
    rng = np.random.default_rng(0)
    n = 500
    h = (rng.random(n) < 0.5).astype(int)
    a = np.where(rng.random(n) < 0.95, h, 1 - h)
    same = bootstrap(_diff_stat, _paired_units(h, a, a), n_resamples=1000, ci_method="percentile", rng=0)
    assert same.pvalue(0.0, j=2)[0] == 1.0          # identical judges: every difference is 0
    bad = np.where(rng.random(n) < 0.6, h, 1 - h)
    far = bootstrap(_diff_stat, _paired_units(h, a, bad), n_resamples=1000, ci_method="percentile", rng=0)
    assert far.pvalue(0.0, j=2)[0] == 0.0          # kappa 0.9 vs 0.2 on 500 items
    with pytest.raises(ValueError, match="same unit types"):
        Units(np.eye(4), [1, 2, 3, 4]).concat(Units(np.eye(4), [1, 2, 3, 5]))


# =============================================================================================
# seeds and argument checks
# =============================================================================================

def make_rng_reports_a_reproducing_seed_test():
    gen, seed = make_rng(None)
    assert isinstance(seed, int) and 0 <= seed < 2**63
    assert gen.random() == np.random.default_rng(seed).random()
    gen2, seed2 = make_rng(12)
    assert seed2 == 12 and gen2.random() == np.random.default_rng(12).random()
    for bad in ("42", 4.2, True, np.random.RandomState(0)):
        with pytest.raises(TypeError):
            make_rng(bad)
    t = TABLES["k4_trec_relevance"]
    first = bootstrap(kappa_kernel(4), table_units(t), n_resamples=500, rng=None)
    again = bootstrap(kappa_kernel(4), table_units(t), n_resamples=500, rng=first.seed)
    np.testing.assert_array_equal(first.replicates, again.replicates)
    # through the public API: the Estimate carries the seed
    e1 = metaeval.cohen_kappa(table=t, n_resamples=300)
    e2 = metaeval.cohen_kappa(table=t, n_resamples=300, rng=e1.seed)
    assert e1.seed is not None and e1.ci == e2.ci


def make_rng_records_a_seed_from_a_generator_test():
    """A Generator yields an int seed drawn from it (numpy's Generator.integers); the same Generator
    state gives the same seed, the Generator advances, and the seed alone reproduces the draws."""
    g = np.random.default_rng(1)
    gen, seed = make_rng(g)
    expect = int(np.random.default_rng(1).integers(0, np.iinfo(np.int64).max))
    assert isinstance(seed, int) and seed == expect
    assert gen is not g and gen.random() == np.random.default_rng(seed).random()
    _, seed_next = make_rng(g)             # the caller's Generator moved on: a new seed
    assert seed_next != seed


def generator_seed_reproduces_replicates_test():
    t = TABLES["k4_trec_relevance"]
    k = kappa_kernel(4)
    a = bootstrap(k, table_units(t), n_resamples=300, rng=np.random.default_rng(5))
    b = bootstrap(k, table_units(t), n_resamples=300, rng=np.random.default_rng(5))     # same state
    assert isinstance(a.seed, int) and a.seed == b.seed
    np.testing.assert_array_equal(a.replicates, b.replicates)
    c = bootstrap(k, table_units(t), n_resamples=300, rng=a.seed)                        # the int alone
    np.testing.assert_array_equal(a.replicates, c.replicates)
    assert (a.low[0], a.high[0]) == (c.low[0], c.high[0])
    # debiased_bootstrap takes the same path
    ct = np.array([np.random.default_rng(i).multinomial(50, [0.4, 0.1, 0.1, 0.4]) for i in range(12)])
    units = Units(ct, np.ones(12, dtype=np.int64), kind="clusters")
    d1 = debiased_bootstrap(kappa_kernel(2), units, n_resamples=200, n_outer=10, n_inner=20,
                            rng=np.random.default_rng(9))
    d2 = debiased_bootstrap(kappa_kernel(2), units, n_resamples=200, n_outer=10, n_inner=20, rng=d1.seed)
    assert isinstance(d1.seed, int)
    np.testing.assert_array_equal(d1.replicates, d2.replicates)
    assert (d1.low[0], d1.high[0]) == (d2.low[0], d2.high[0])
    assert d1.extra["cluster_correction"] == cluster_correction_factor(12)


# =============================================================================================
# point estimate only (ci_method=None)
# =============================================================================================

def point_estimate_draws_nothing_test():
    t = TABLES["k4_trec_relevance"]
    g = np.random.default_rng(3)
    state = g.bit_generator.state
    calls = []

    def stat(S):
        calls.append(len(S))
        return kappa_kernel(4)(S)

    res = bootstrap(stat, table_units(t), ci_method=None, n_resamples=10**9, rng=g)
    assert calls == [1]                                  # the statistic ran once, on the data
    assert g.bit_generator.state == state                # no randomness consumed
    assert res.method == "none" and res.n_resamples == 0 and res.replicates is None and res.seed is None
    assert np.isnan(res.low).all() and np.isnan(res.high).all() and np.isnan(res.se).all()
    full = bootstrap(kappa_kernel(4), table_units(t), n_resamples=50, rng=0)
    assert res.theta_hat[0] == full.theta_hat[0]
    assert np.isnan(res.pvalue(0.0)).all()
    (e,) = res.estimates("kappa", n=int(t.sum()), pvalues=res.pvalue(0.0))
    assert e.ci.method == "none" and np.isnan(e.ci.low) and e.pvalue is None and e.replicates is None
    assert e.n_resamples == 0 and e.seed is None and e.estimate == full.theta_hat[0]
    with pytest.raises(TypeError):
        bootstrap(stat, table_units(t), ci_method=None, rng="0")
    # few clusters: no interval, so no warning
    ct = np.array([[[5, 1], [2, 6]]] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bootstrap(kappa_kernel(2), table_units(None, cluster_tables=ct), ci_method=None)


# =============================================================================================
# the bootstrap p-value and replicates -> Estimate
# =============================================================================================

def bootstrap_pvalue_by_hand_test():
    reps = np.array([-0.2, 0.0, 0.1, 0.3, 0.5, np.nan, 0.7, 0.9, 1.1, 1.3])    # 9 defined
    # two-sided: #{<= 0} = 2, #{>= 0} = 8 of 9 -> 2 * 2/9
    assert bootstrap_pvalue(reps) == pytest.approx(4 / 9, abs=1e-15)
    assert bootstrap_pvalue(reps, alternative="greater") == pytest.approx(2 / 9, abs=1e-15)
    assert bootstrap_pvalue(reps, alternative="less") == pytest.approx(8 / 9, abs=1e-15)
    # null 0.6: 5 at or below, 4 at or above
    assert bootstrap_pvalue(reps, 0.6) == pytest.approx(min(1, 2 * 4 / 9), abs=1e-15)
    assert bootstrap_pvalue(np.zeros(7)) == 1.0
    assert np.isnan(bootstrap_pvalue(np.full(4, np.nan)))
    assert np.isnan(bootstrap_pvalue(None))
    two = np.column_stack([reps, reps - 1])
    np.testing.assert_allclose(bootstrap_pvalue(two, [0.0, -1.0]), [4 / 9, 4 / 9], atol=1e-15)
    with pytest.raises(ValueError):
        bootstrap_pvalue(reps, alternative="two")
    # the method on a result: per column, for one column, with a vector null
    with pytest.warns(UndefinedStatisticWarning, match="1 of 10 bootstrap replicates are undefined"):
        r = BootstrapResult.from_replicates([0.5, -0.5], two, ci_method="percentile", n_units=9)
    assert list(r.n_nan) == [1, 1]
    np.testing.assert_allclose(r.pvalue(0.0), [4 / 9, bootstrap_pvalue(reps - 1, 0.0)], atol=1e-15)
    assert r.pvalue(-1.0, j=1)[0] == pytest.approx(4 / 9, abs=1e-15)
    assert r.pvalue([0.0, -1.0], j=1)[0] == pytest.approx(4 / 9, abs=1e-15)


def estimates_carry_every_field_test():
    """estimates() against the BootstrapResult it comes from, field by field (a cluster bootstrap,
    so the widening factor travels too)."""
    rng = np.random.default_rng(4)
    ct = np.array([rng.multinomial(80, [0.45, 0.1, 0.05, 0.4]) for _ in range(15)]).reshape(15, 2, 2)
    units = table_units(None, cluster_tables=ct)

    def stat(S):
        k = kappa_kernel(2)(S)
        return np.column_stack([k, S[:, 3] / S.sum(axis=1), k - 0.5])

    res = bootstrap(stat, units, n_resamples=400, rng=11)
    p = res.pvalue([0.0, 0.0, 0.0])
    ests = res.estimates({0: "kappa", 2: "kappa_minus_half"}, n=[1200, 1200], pvalues=[p[0], None],
                         extra=[{"note": "a"}, {}])
    assert [e.statistic for e in ests] == ["kappa", "kappa_minus_half"]
    for e, j in zip(ests, (0, 2)):
        assert e.estimate == res.theta_hat[j]
        assert (e.ci.low, e.ci.high, e.ci.level, e.ci.method) == (res.low[j], res.high[j], 0.95, "bca")
        assert e.se == pytest.approx(np.std(res.replicates[:, j], ddof=1), rel=1e-12)
        assert e.bias == pytest.approx(res.replicates[:, j].mean() - res.theta_hat[j], abs=1e-15)
        assert (e.n, e.unit, e.n_units, e.n_resamples, e.seed) == (1200, "clusters", 15, 400, 11)
        np.testing.assert_array_equal(e.replicates, res.replicates[:, j])
        assert e.extra["z0"] == res.z0[j] and e.extra["a"] == res.accel[j] and e.extra["n_nan_replicates"] == 0
        assert e.extra["cluster_correction"] == cluster_correction_factor(15)
    assert ests[0].pvalue == p[0] and ests[1].pvalue is None
    assert ests[0].extra["note"] == "a" and "note" not in ests[1].extra
    # a sequence of names takes the first columns; one n for all; a seed override
    e0, e1 = res.estimates(["kappa", "share"], n=7, seed=99)
    assert e1.estimate == res.theta_hat[1] and e0.n == e1.n == 7 and e0.seed == e1.seed == 99
    # per-statistic arrays in extra are split by column
    res.extra["per_stat"] = np.array([1.0, 2.0, 3.0])
    assert res.estimates({2: "x"}, n=1)[0].extra["per_stat"] == 3.0
    with pytest.raises(ValueError):
        res.estimates(["a", "b"], n=[1, 2, 3])
    with pytest.raises(ValueError):
        res.estimates({5: "nope"}, n=1)


# =============================================================================================
# few clusters
# =============================================================================================

def _cluster_tables(T, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([rng.multinomial(60, [0.4, 0.1, 0.1, 0.4]) for _ in range(T)]).reshape(T, 2, 2)


@pytest.mark.parametrize("T", [2, 3, 5, MIN_CLUSTERS - 1])
def few_clusters_warn_test(T):
    with pytest.warns(SmallSampleWarning) as rec:
        res = bootstrap(kappa_kernel(2), table_units(None, cluster_tables=_cluster_tables(T)), n_resamples=200,
                        rng=0)
    few = [w for w in rec if issubclass(w.category, SmallSampleWarning)]
    assert len(few) == 1                                 # once per call, not once per statistic
    msg = str(few[0].message)
    assert f"only {T} clusters" in msg and f"from {MIN_CLUSTERS} clusters on" in msg
    assert few[0].filename == __file__                   # points at the caller's line
    assert res.unit == "clusters" and res.n_units == T


@pytest.mark.parametrize("T", [MIN_CLUSTERS, MIN_CLUSTERS + 1, 30])
def enough_clusters_do_not_warn_test(T):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        bootstrap(kappa_kernel(2), table_units(None, cluster_tables=_cluster_tables(T)), n_resamples=200, rng=0)
        # items are not clusters: no warning however few
        bootstrap(kappa_kernel(2), table_units([[3, 1], [1, 3]]), n_resamples=200, rng=0)


def few_clusters_warn_through_the_public_api_test():
    ct = _cluster_tables(3)
    with pytest.warns(SmallSampleWarning, match="only 3 clusters") as rec:
        metaeval.cohen_kappa(table=ct, n_resamples=200, rng=0)
    assert [w.filename for w in rec if issubclass(w.category, SmallSampleWarning)] == [__file__]


def stratified_clusters_use_the_smallest_stratum_test():
    """Clusters resampled within strata (two independent topic sets): the widening and the warning
    use the smallest stratum's count."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(4 + 20, 1))
    units = Units(X, np.ones(24, dtype=np.int64), strata=np.repeat([0, 1], [4, 20]), kind="clusters")
    with pytest.warns(SmallSampleWarning, match="smallest stratum has 4 clusters"):
        res = bootstrap(lambda S: S[:, 0], units, n_resamples=300, ci_method="percentile", rng=0)
    assert res.extra["cluster_correction"] == cluster_correction_factor(4)


def from_replicates_equals_bootstrap_test():
    """The path for statistics that draw their own replicates gives what bootstrap() gives."""
    ct = _cluster_tables(12, seed=3)
    res = bootstrap(kappa_kernel(2), table_units(None, cluster_tables=ct), n_resamples=300, rng=2)
    again = BootstrapResult.from_replicates(res.theta_hat, res.replicates, ci_method="bca", accel=res.accel,
                                            unit="clusters", n_units=12, seed=2)
    for f in ("low", "high", "se", "bias", "z0"):
        np.testing.assert_array_equal(getattr(res, f), getattr(again, f))
    assert again.extra == res.extra and again.n_resamples == 300
    # bounds clip the (widened) interval
    clipped = BootstrapResult.from_replicates(res.theta_hat, res.replicates, ci_method="percentile",
                                              unit="clusters", n_units=12, bounds=(-1.0, res.theta_hat[0]))
    assert clipped.high[0] == res.theta_hat[0]


@pytest.mark.parametrize("kwargs", [dict(ci_method="student"), dict(confidence_level=1.0),
                                    dict(confidence_level=0), dict(n_resamples=0)])
def bootstrap_argument_checks_test(kwargs):
    with pytest.raises(ValueError):
        bootstrap(kappa_kernel(2), table_units([[5, 1], [2, 6]]), **kwargs)


def scipy_version_test():
    # the interval conventions above were checked against this scipy (stats.quantile, 'linear')
    assert tuple(int(v) for v in scipy.__version__.split(".")[:2]) >= (1, 11)


def cluster_correction_widens_cluster_intervals_only_test():
    """The engine widens cluster-bootstrap intervals by sqrt(T/(T-1)) t_{T-1}/z (coverage in
    tests/test_coverage.py); iid intervals are untouched. Expected factors from scipy's t and normal."""
    from scipy.stats import norm
    from scipy.stats import t as tdist

    from metaeval.core.resample import ci_from_replicates, cluster_correction_factor

    for T in (10, 35, 54):
        expect = np.sqrt(T / (T - 1)) * tdist.ppf(0.975, T - 1) / norm.ppf(0.975)
        assert cluster_correction_factor(T) == pytest.approx(expect, rel=1e-12)
    assert cluster_correction_factor(10) == pytest.approx(1.2166, abs=1e-4)
    rng = np.random.default_rng(1)
    ct = np.array([rng.multinomial(100, [0.5, 0.1, 0.1, 0.3]) for _ in range(12)]).reshape(12, 2, 2)
    est = metaeval.cohen_kappa(table=ct, n_resamples=500, rng=3, ci_method="percentile")
    lo, hi, _ = ci_from_replicates(est.estimate, est.replicates, method="percentile")
    fac = est.extra["cluster_correction"]
    assert fac == pytest.approx(cluster_correction_factor(12))
    assert est.ci.low == pytest.approx(est.estimate - fac * (est.estimate - lo[0]), abs=1e-12)
    assert est.ci.high == pytest.approx(est.estimate + fac * (hi[0] - est.estimate), abs=1e-12)
    iid = metaeval.cohen_kappa(table=ct.sum(axis=0), n_resamples=500, rng=3, ci_method="percentile")
    lo, hi, _ = ci_from_replicates(iid.estimate, iid.replicates, method="percentile")
    assert "cluster_correction" not in iid.extra and (iid.ci.low, iid.ci.high) == (lo[0], hi[0])


def group_means_equal_pandas_and_hand_built_units_test():
    """group_means: the estimates are pandas' groupby means; the replicates are bootstrap() on
    hand-built (sum, count) units with the same seed (the draw is over the same n items or clusters)."""
    import pandas as pd

    rng = np.random.default_rng(8)
    n = 120
    g = rng.integers(0, 3, n)
    cl = rng.integers(0, 15, n)
    v = np.column_stack([rng.normal(size=n), rng.integers(1, 6, n).astype(float)])
    res = group_means(v, g, cluster=cl, ci_method="percentile", n_resamples=300, rng=4)
    direct = pd.DataFrame({"g": g, "a": v[:, 0], "b": v[:, 1]}).groupby("g").mean()
    np.testing.assert_allclose(res.theta_hat, np.r_[direct["a"], direct["b"]], rtol=1e-12)
    assert res.unit == "clusters" and res.n_units == 15 and "cluster_correction" in res.extra
    X = np.zeros((15, 9))
    for i in range(n):
        X[cl[i], g[i]] += 1
        X[cl[i], 3 + g[i]] += v[i, 0]
        X[cl[i], 6 + g[i]] += v[i, 1]
    hand = bootstrap(lambda S: S[:, 3:] / np.tile(S[:, :3], 2), Units(X, np.ones(15, dtype=np.int64), kind="clusters"),
                     ci_method="percentile", n_resamples=300, rng=4)
    np.testing.assert_allclose(res.replicates, hand.replicates, rtol=1e-12)
    iid = group_means(v[:, 0], g, ci_method=None)
    np.testing.assert_allclose(iid.theta_hat, direct["a"], rtol=1e-12)
    assert iid.unit == "items" and iid.n_units == n and iid.method == "none"
    with pytest.raises(ValueError, match="NaN"):
        group_means(np.r_[v[:-1, 0], np.nan], g)
