"""Simultaneous intervals for all pairwise differences, rank sets and the difference to the best.

References of the expected numbers:
* csranks (R package of Mogstad, Romano, Shaikh & Wilhelm 2024, version 1.2.2.9001, commit bd4f755,
  R 4.2.2, sourced): ``csranks(x, Sigma, simul = TRUE/FALSE, stepdown = FALSE)`` and
  ``csdiffmeans`` on four fixed cases, with the Gaussian draw csranks made (``Z``), in
  tests/reference/csranks_values.json (tests/reference/make_reference_csranks.R). Driven by the
  same draw and the same standard errors √(Σ_jj + Σ_kk − 2Σ_jk), the package must give the same
  critical value, pairwise intervals (to 1e-6: the maxima are formed in float32) and rank sets
  (exactly);
* the pairwise intervals with NaN replicates and in small memory blocks: their definition written
  as a loop over pairs;
* coverage: a simulation (judges copying a human label with probability a_j), marked slow.
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import metaeval as me
from metaeval.panels.simultaneous import difference_to_best, pairwise_max_t, rank_sets

REF = json.loads((Path(__file__).parent / "reference" / "csranks_values.json").read_text())


def _case(c):
    x = np.array(c["x"], dtype=float)
    S = np.array(c["Sigma"], dtype=float)
    se = np.sqrt(np.diag(S)[:, None] + np.diag(S)[None, :] - 2 * S)
    return x, x + np.array(c["Z"], dtype=float), se


@pytest.mark.parametrize("case", REF["cases"], ids=[c["name"] for c in REF["cases"]])
def rank_sets_equal_csranks_test(case):
    x, reps, se = _case(case)
    pw = pairwise_max_t(x, reps, confidence_level=case["coverage"], se=se)
    L = np.array(case["diff_L"], dtype=float)
    U = np.array(case["diff_U"], dtype=float)
    off = ~np.eye(len(x), dtype=bool)
    np.testing.assert_allclose(pw.low[off], L[off], rtol=0, atol=1e-6)      # csdiffmeans, symmetric
    np.testing.assert_allclose(pw.high[off], U[off], rtol=0, atol=1e-6)
    lo, hi = rank_sets(pw)
    assert lo.tolist() == case["simul"]["L"] and hi.tolist() == case["simul"]["U"]
    lo_m, hi_m = rank_sets(pw, marginal=True)
    assert lo_m.tolist() == case["marg"]["L"] and hi_m.tolist() == case["marg"]["U"]
    # csranks' default stepdown refinement can only shrink the single-step sets
    for ours, theirs in (((lo, hi), case["simul_stepdown"]), ((lo_m, hi_m), case["marg_stepdown"])):
        assert (np.array(theirs["L"]) >= ours[0]).all() and (np.array(theirs["U"]) <= ours[1]).all()
    # the point ranks are csranks' irank of x (1 = the largest)
    assert (len(x) - np.argsort(np.argsort(x))).tolist() == case["rank"]


def _loop(theta, reps, level=0.95):
    """The definition pair by pair, NaN replicates left out of each pair's SD and of the maxima."""
    J = len(theta)
    se = np.full((J, J), np.nan)
    T = np.full((reps.shape[0], J, J), np.nan)
    for j in range(J):
        for k in range(J):
            if j != k and np.isfinite(theta[j]) and np.isfinite(theta[k]):
                d = reps[:, j] - reps[:, k]
                se[j, k] = np.nanstd(d, ddof=1)
                T[:, j, k] = np.abs(d - (theta[j] - theta[k])) / se[j, k]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t = np.nanmax(T.reshape(len(T), -1), axis=1)
        row = np.nanmax(T, axis=2)
    c = np.quantile(t[np.isfinite(t)], level)
    crow = [np.quantile(row[np.isfinite(row[:, j]), j], level) if np.isfinite(row[:, j]).any() else np.nan
            for j in range(J)]
    return se, c, np.array(crow)


@pytest.mark.parametrize("with_nan", [False, True])
def pairwise_max_t_by_its_definition_in_small_blocks_test(with_nan):
    rng = np.random.default_rng(3)
    J, B = 7, 400
    theta = np.array([0.5, 0.45, 0.44, 0.3, np.nan, 0.2, 0.44])
    reps = theta + rng.normal(0, 0.04, (B, J)) + rng.normal(0, 0.03, (B, 1))   # correlated, as a shared draw
    if with_nan:
        reps[rng.random((B, J)) < 0.05] = np.nan                                 # undefined in some draws
    se, c, crow = _loop(theta, reps)
    for chunk in (10, 10_000_000):                                               # one row a block, or all at once
        pw = pairwise_max_t(theta, reps, chunk_elems=chunk)
        np.testing.assert_allclose(pw.se, se, rtol=1e-12, equal_nan=True)
        assert pw.crit == pytest.approx(c, rel=1e-6)
        np.testing.assert_allclose(pw.crit_row, crow, rtol=1e-6, equal_nan=True)
        assert np.isnan(pw.low[4]).all() and np.isnan(pw.high[:, 4]).all()      # the undefined judge
    lo, hi = rank_sets(pw)
    assert (lo[4], hi[4]) == (7, 7)                                              # ranked last, as the point rank
    assert (lo[[0, 1, 2, 3, 5, 6]] >= 1).all() and (hi[[0, 1, 2, 3, 5, 6]] <= 6).all()
    est, low, high, p, pu, vs = difference_to_best(pw)
    assert np.isnan(est[4]) and np.isnan(p[4]) and vs[4] == -1
    assert est[0] == pytest.approx(0.05) and vs[0] == 1 and vs[1] == 0
    assert (p >= pu)[np.isfinite(p)].all()                   # adjusted for all pairs: never below the raw one


def identical_judges_have_exact_zero_differences_test():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 0.05, (300, 1))
    reps = np.hstack([0.4 + base, 0.4 + base, 0.3 + rng.normal(0, 0.05, (300, 1))])
    pw = pairwise_max_t(np.array([0.4, 0.4, 0.3]), reps)
    assert pw.se[0, 1] == 0.0 and pw.low[0, 1] == pw.high[0, 1] == 0.0
    est, low, high, p, _, _ = difference_to_best(pw)
    # θ_0 − max(θ_1, θ_2) = min(θ_0 − θ_1, θ_0 − θ_2): the exact 0 caps the upper end
    assert (est[0], high[0], p[0]) == (0.0, 0.0, 1.0) and low[0] == min(0.0, pw.low[0, 2])


# ---------------------------------------------------------------------------------------------
# many judges: the cost is O(B · J²) arithmetic in bounded memory
# ---------------------------------------------------------------------------------------------

def many_judges_in_bounded_memory_test():
    """300 judges, B = 500: 45,000 pairs in blocks of at most PAIR_CHUNK_ELEMS elements; it must equal
    the one-block computation and run well within the stated cost (judge_panel's Notes)."""
    rng = np.random.default_rng(1)
    J, B = 300, 500
    theta = np.sort(rng.uniform(0.2, 0.6, J))[::-1]
    reps = theta + rng.normal(0, 0.03, (B, J)) + rng.normal(0, 0.02, (B, 1))
    t0 = time.process_time()
    small = pairwise_max_t(theta, reps, chunk_elems=200_000)
    cpu = time.process_time() - t0
    big = pairwise_max_t(theta, reps, chunk_elems=10**9)
    assert small.crit == big.crit and np.array_equal(small.crit_row, big.crit_row)
    assert cpu < 20, f"{cpu:.1f} s of CPU for 300 judges"
    lo, hi = rank_sets(small)
    assert lo[0] == 1 and hi[-1] == J and (lo <= hi).all()


def thousand_judges_panel_within_its_stated_cost_test():
    """judge_panel's computations for 1,000 judges (300 items, 20 topics, B = 500): judge_panel's
    Notes state O(B·J²) arithmetic in bounded blocks; measured 3.3 s of CPU and 175 MB traced peak
    memory. The bounds here leave room for a loaded machine (CPU time, not wall time)."""
    import tracemalloc

    from metaeval.panels.panel import _Panel, _panel_result

    rng = np.random.default_rng(0)
    J, n = 1000, 300
    ref = rng.integers(0, 4, n)
    acc = rng.uniform(0.3, 0.7, J)
    codes = np.where(rng.random((n, J)) < acc, ref[:, None], rng.integers(0, 4, (n, J))).astype(np.int64)
    panel = _Panel([f"j{j}" for j in range(J)], ref, codes, (np.arange(n) % 20).astype(str), me.Scale((0, 1, 2, 3)),
                   {}, {}, None)
    import metaeval.agreement.coefficients  # noqa: F401  (imports are not the panel's memory)

    tracemalloc.start()
    t0 = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = _panel_result(panel, statistic="cohen_kappa", weights=None, component=None, cluster="topic",
                                items="common", matrix_statistic=None, errors="indicator", ci_method="bca",
                                n_resamples=500, confidence_level=0.95, rng=0)
        cpu = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    assert cpu < 30 and peak < 500, (cpu, peak)
    f = res.to_frame()
    assert len(f) == J and f["rank_low"].between(1, J).all() and (f["rank_low"] <= f["rank_high"]).all()
    assert res.best in res.tied and len(res.tied) < J


# ---------------------------------------------------------------------------------------------
# coverage (benchmarks/coverage_panel.py has the full grid)
# ---------------------------------------------------------------------------------------------

def simultaneous_coverage_with_ties_at_the_top_test():
    """Five judges, three tied at the top, 20 unequal topics, n = 100 (where the old construction
    covered 0.885–0.90): the simultaneous differences to the best, rank sets and tied set cover at
    least 0.90 in R = 100 panels (B = 500; Monte-Carlo SE about 0.022 at 0.95; about 6 s).
    benchmarks/coverage_panel.py gives the means over seeds quoted in judge_panel's Notes (0.946 ±
    0.009 for the differences in this cell with κ, 1,000 panels)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    import coverage_panel as cp

    acc = cp.accuracies("ties", 5)
    th = cp.truth("cohen_kappa", acc, cp.TOPIC_SD)
    rng = np.random.default_rng(12)
    rows = [cp.one(rng, "cohen_kappa", acc, th, 100, "clusters", 500) for _ in range(100)]
    diff = np.mean([r["diff"] for r in rows])
    rank = np.mean([r["rank_full"] for r in rows])
    tied = np.mean([r["tied"] for r in rows])
    assert diff >= 0.90 and rank >= 0.90 and tied >= 0.90, (diff, rank, tied)


def judge_panel_reports_the_marginal_rank_sets_test():
    d = me.datasets.load("trec_dl_like")
    coarse = d.qrels_judge.assign(relevance=d.qrels_judge.relevance // 2 * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", me.MetaevalWarning)
        res = me.judge_panel(d.qrels_human, {"judge": d.qrels_judge, "coarse": coarse, "same": d.qrels_judge},
                             cluster="query_id", n_resamples=300, rng=0)
    f = res.to_frame().set_index("judge")
    assert f.loc["coarse", "rank_low"] == f.loc["coarse", "rank_low_marginal"] == 3
    assert f.loc["judge", "rank_high_marginal"] == 2 and f.loc["judge", "rank_low_marginal"] == 1
    assert len(res.design["critical_values_marginal"]) == 3
