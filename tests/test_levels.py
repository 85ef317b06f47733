"""level_correlation, level_difference, williams_test: levels, methods, policies, inputs.

Expected numbers come from (cited at each test): the literal values of mt-metrics-eval's own
``stats_test.py`` (google-research/mt-metrics-eval at commit 68a481a, the library of the WMT metrics
task), scipy.stats on each group, and hand counts. Parity on random matrices against the peers
themselves is in tests/test_levels_reference.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import metaeval
from metaeval.core import registry
from metaeval.levels.pairs import _counts_broadcast, _counts_sorted, calibrate_epsilon, kendall_from_counts, pair_counts


def lc(h, m, **kw):
    kw.setdefault("ci_method", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not isinstance(h, pd.DataFrame):
            h, m = np.asarray(h, float), np.asarray(m, float)
        return metaeval.level_correlation(h, m, **kw)


def mat(vec, num_sys):
    """mt-metrics-eval's packed vector (grouped by system) as a systems × items matrix (None → NaN)."""
    return np.array([np.nan if v is None else v for v in vec], float).reshape(num_sys, -1)


# --- mt-metrics-eval stats_test.py, literal values ---------------------------------------------------

G6, M6 = mat([1, 2, 3, 4, 5, 6], 2), mat([2, 1, 4, 3, 3, 7], 2)


@pytest.mark.parametrize("method,level,want,places", [
    ("pearson", "none", 0.776, 3), ("pearson", "system_group", 0.760, 3), ("pearson", "item", 1.00, 3),
    ("kendall", "none", 0.552, 3), ("kendall", "system_group", 0.575, 3), ("kendall", "item", 1.00, 3),
    ("tau_c", "none", 0.556, 3), ("tau_c", "system_group", 0.611, 3), ("tau_c", "item", 1.00, 3),
])
def test_mtme_correlation_literals(method, level, want, places):
    # stats_test.py CorrelationTest.testPearson / testKendall / testKendallC ('sys' = system_group)
    assert round(lc(G6, M6, level=level, method=method).estimate, places) == want


def test_mtme_kendall_variants_literals():
    # stats_test.py CorrelationTest.testKendallVariants / testKendallWithTiesOpt
    g, m = mat([1, 2, 2, 3, 4], 1), mat([2, 1, 1.5, 5, 3], 1)
    assert abs(lc(g, m, level="none", method="kendall").estimate - 0.316227766) < 1e-9
    assert lc(g, m, level="none", method="tau_c").estimate == pytest.approx(0.32, abs=1e-15)
    assert lc(g, m, level="none", method="tau_23").estimate == pytest.approx(0.2, abs=1e-15)
    assert lc(g, m, level="none", method="acc_23").estimate == pytest.approx(0.6, abs=1e-15)
    assert lc(g, m, level="none", method="acc_23", epsilon=2).estimate == pytest.approx(0.4, abs=1e-15)
    assert lc(g, m, level="none", method="acc_eq").estimate == pytest.approx(0.7, abs=1e-15)


def test_mtme_kendall_variants_23_counts():
    # stats_test.py CorrelationFunctionsTest.testKendallVariants_23 and ...WithPositiveEpsilon; there x is
    # the gold vector and y the metric: 21 pairs, ties in x 4, in y 3, in both 1, discordant 2
    x, y = [[1, 1, 1, 2, 2, 3, 4]], [[1, 1, 2, 2, 4, 3, 3]]
    c = pair_counts(x, y)
    assert [int(c[k][0]) for k in ("n_pairs", "dis", "t_h", "t_m", "t_hm")] == [21, 2, 3, 2, 1]
    assert kendall_from_counts(c, "tau_23")[0] == (14 - 7) / 21
    # epsilon = 1 makes metric ties: stats_test counts ties in the *metric* 13 with x as metric; here the
    # metric is y, so swap the roles as mt-metrics-eval's KendallVariants(gold=x, metric=y) does not:
    c = pair_counts(y, x, epsilon=1.0)
    t = kendall_from_counts(c, "tau_23")[0]
    con = 21 - 1 - 10 - 0 - 3
    assert t == (con + 3 - 1 - 10 - 0) / 21


def test_mtme_kendall_like_and_agreement_literals():
    # stats_test.py CorrelationTest.testKendallLike and CorrelationFunctionsTest.testKendallLike/testAgreement
    assert lc(mat([10, None, 100, 150], 1), mat([2, 1, 4, 3], 1), level="none", method="kendall_like",
              kendall_like_threshold=1).estimate == 1 / 3
    assert lc(mat([10, 11, 100, 150], 2), mat([2, 1, 4, 3], 2), level="item", method="kendall_like",
              kendall_like_threshold=1, average="weighted").estimate == 1
    g, m = mat([10, 11, 100, 150], 1), mat([2, 1, 4, 3], 1)
    assert lc(g, m, level="none", method="kendall_like", convention="mtme").estimate == 3 / 5   # thresh 25
    assert lc(g, m, level="none", method="kendall_like", kendall_like_threshold=1).estimate == 2 / 6
    # Agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) = 5 of 10 pairs
    assert lc(mat([1, 2, 3, 3, 4], 1), mat([1, 1, 2, 1, 2], 1), level="none",
              method="pairwise_accuracy").estimate == 0.5


def test_mtme_nan_handling_and_micro_averaging():
    # AverageCorrelationTest.testNaNHandling / testNaNHandlingWithZeros / testMicroAveraging
    g, m = mat([1, 2, 3, 4, 5, 6], 2), mat([2, 2, 2, 4, 5, 6], 2)
    e = lc(g, m, level="system_group", method="pearson")
    assert e.estimate == pytest.approx(1.0) and e.extra["groups_dropped"] == 1
    assert lc(g, m, level="system_group", method="pearson", undefined="zero").estimate == pytest.approx(0.5)
    with pytest.raises(metaeval.InputError, match="undefined"):
        lc(g, m, level="system_group", method="pearson", undefined="error")
    g, m = mat([1, None, 3, 4, 5, 6], 2), mat([2, 1, 8, 3, 5, 6], 2)
    p1, p2 = sps.pearsonr([1, 3], [2, 8])[0], sps.pearsonr([4, 5, 6], [3, 5, 6])[0]
    e = lc(g, m, level="system_group", method="pearson", average="weighted")
    assert e.estimate == pytest.approx((2 * p1 + 3 * p2) / 5, abs=1e-12)
    assert e.extra["fates"] == {"cells": 6, "human_missing": 1, "judge_missing": 0, "used": 5}


def test_mtme_soft_pairwise_accuracy_literal():
    # CorrelationTest.testPairwiseConfidenceError: 0.872 (3 places), 1000 permutations, seed 4
    e = lc(mat([1, 2, 3, 2, 3, 4], 2), mat([2, 2, 4, 1, 3, 5], 2), level="system", method="soft_pairwise_accuracy")
    assert round(e.estimate, 3) == 0.872


def test_mtme_williams_literal():
    # WilliamsSigDiffTest.testSigDiff: p 0.019 (one-sided), r1 0.999, r2 0.987
    g = np.array([[1, 2, 3, 4, 5.0]])
    a, b = np.array([[1.1, 2, 3.1, 4, 5.1]]), np.array([[1.5, 2, 3.1, 4, 5.5]])
    w = metaeval.williams_test(g, a, b, level="none", convention="mtme")
    assert round(w.pvalue, 3) == 0.019 and round(w.extra["r_judge"], 3) == 0.999
    assert round(w.extra["r_other"], 3) == 0.987


# --- against scipy on each group, with ties and missing cells ---------------------------------------

def _random(seed, s=7, i=9, missing=0.2):
    g = np.random.default_rng(seed)
    H = g.integers(1, 6, (s, i)).astype(float)
    M = np.round(H + g.normal(0, 1.2, (s, i)), 0)
    H[g.random((s, i)) < missing] = np.nan
    return H, M


def _scipy_level(H, M, level, fn):
    V = ~np.isnan(H)
    if level == "system":
        cnt = V.sum(1)
        return fn(np.where(V, H, 0).sum(1) / cnt, np.where(V, M, 0).sum(1) / cnt)
    if level == "none":
        return fn(H[V], M[V])
    groups = [(H[:, j], M[:, j], V[:, j]) for j in range(H.shape[1])] if level == "item" else \
        [(H[r], M[r], V[r]) for r in range(H.shape[0])]
    vals = []
    for h, m, v in groups:
        if v.sum() < 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(h[v], m[v])
        if not np.isnan(r):
            vals.append(r)
    return np.mean(vals)


SCIPY = {"pearson": lambda a, b: sps.pearsonr(a, b)[0] if len(set(a)) > 1 and len(set(b)) > 1 else np.nan,
         "spearman": lambda a, b: sps.spearmanr(a, b)[0] if len(set(a)) > 1 and len(set(b)) > 1 else np.nan,
         "kendall": lambda a, b: sps.kendalltau(a, b)[0],
         "tau_c": lambda a, b: sps.kendalltau(a, b, variant="c")[0]}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", ["none", "item", "system_group", "system"])
@pytest.mark.parametrize("method", list(SCIPY))
def test_against_scipy(seed, level, method):
    H, M = _random(seed)
    want = _scipy_level(H, M, level, SCIPY[method])
    got = lc(H, M, level=level, method=method).estimate
    assert abs(got - want) < 1e-12, (got, want)


def test_sorted_and_broadcast_counts_agree():
    # the two counting paths (sort-based merge and n × n sign matrices) on random groups with ties and gaps
    g = np.random.default_rng(5)
    for n in (2, 3, 8, 33, 70, 130):
        h = g.integers(0, 4, (20, n)).astype(float)
        m = g.integers(0, 6, (20, n)).astype(float)
        v = g.random((20, n)) > 0.25
        a = _counts_sorted(h, m, v)
        b = _counts_broadcast(np.where(v, h, 0), np.where(v, m, 0), v, 0.0)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_large_group_kendall_matches_scipy():
    # level none on 60 × 40 cells uses the sort-based path (n > 48)
    H, M = _random(3, 60, 40, 0.1)
    V = ~np.isnan(H)
    assert abs(lc(H, M, level="none", method="kendall").estimate - sps.kendalltau(H[V], M[V])[0]) < 1e-12


def test_tie_calibration_by_brute_force():
    # the best ε over every candidate (0 and each |Δm|), mean acc_23 over groups, by direct counting
    H, M = _random(4, 6, 10, 0.15)
    M = M + np.random.default_rng(9).normal(0, 0.3, M.shape).round(1)
    V = ~np.isnan(H)
    cands = np.unique(np.concatenate([[0.0]] + [np.abs(np.subtract.outer(M[:, j], M[:, j]))[np.ix_(V[:, j], V[:, j])]
                                               .ravel() for j in range(10)]))
    best, best_eps = -1, None
    for eps in cands:
        vals = []
        for j in range(10):
            c = pair_counts(H[:, j][None], M[:, j][None], V[:, j][None], epsilon=eps)
            if c["n_pairs"][0] > 0:
                vals.append(kendall_from_counts(c, "acc_23")[0])
        if np.mean(vals) > best + 1e-12:
            best, best_eps = np.mean(vals), eps
    val, eps = calibrate_epsilon(H.T, M.T, V.T)
    assert abs(val[0] - best) < 1e-12 and eps[0] == best_eps
    e = lc(H, M, level="item", method="acc_eq")
    assert abs(e.estimate - best) < 1e-12 and e.extra["epsilon"] == best_eps


# --- inputs, results, policies ---------------------------------------------------------------------

def test_long_and_wide_frames_agree():
    H, M = _random(6)
    idx = [f"s{i}" for i in range(H.shape[0])]
    cols = [f"d{j}" for j in range(H.shape[1])]
    hw, mw = pd.DataFrame(H, idx, cols), pd.DataFrame(M, idx, cols)
    hl = hw.stack(future_stack=True).rename("score").reset_index().set_axis(["sys", "doc", "score"], axis=1)
    ml = mw.iloc[::-1, ::-1].stack(future_stack=True).rename("score").reset_index().set_axis(["sys", "doc", "score"],
                                                                                            axis=1)
    a = lc(hw, mw.iloc[::-1, ::-1], level="item", method="spearman").estimate
    b = lc(hl, ml, level="item", method="spearman", system="sys", item="doc", value="score").estimate
    c = lc(H, M, level="item", method="spearman").estimate
    assert a == b == c


def test_bad_inputs():
    H, M = _random(7)
    with pytest.raises(metaeval.InputError, match="same systems and items"):
        lc(pd.DataFrame(H), pd.DataFrame(M).iloc[:-1], level="item")
    long = pd.DataFrame({"s": ["a", "a"], "i": [1, 1], "v": [1.0, 2.0]})
    with pytest.raises(metaeval.InputError, match="repeat"):
        lc(long, long, system="s", item="i", value="v")
    with pytest.raises(metaeval.InputError):
        lc(H, M, level="summary")
    with pytest.raises(metaeval.InputError, match="soft_pairwise_accuracy"):
        lc(H, M, level="item", method="soft_pairwise_accuracy")
    with pytest.raises(metaeval.InputError):
        lc(H, M, method="cohen_kappa")


def test_judge_missing_cells_counted():
    H, M = _random(8, missing=0.0)
    M[0, 0] = np.nan
    with pytest.warns(metaeval.MetaevalWarning, match="no judge score"):
        e = metaeval.level_correlation(H, M, level="none", ci_method=None)
    assert e.extra["fates"]["judge_missing"] == 1 and e.extra["fates"]["used"] == H.size - 1


def test_resultset_keys_and_registry():
    H, M = _random(9)
    rs = lc(H, M, level=list(metaeval.levels.correlation.LEVELS), method=["pearson", "kendall"])
    assert len(rs) == 8 and rs.key_columns == ["level", "method"]
    assert rs.get(level="system", method="kendall").statistic == "kendall"
    assert {s.name for s in registry.statistics("levels")} >= {
        "pearson", "spearman", "kendall", "tau_c", "tau_23", "acc_23", "acc_eq", "kendall_like", "pairwise_accuracy",
        "soft_pairwise_accuracy"}
    with pytest.raises(metaeval.InputError, match="level_correlation"):
        registry.resolve("tau_23").kernel(3)


def test_absolute_and_conventions():
    H, M = _random(10)
    e = lc(H, -M, level="system", method="pearson")
    assert lc(H, -M, level="system", method="pearson", absolute=True).estimate == abs(e.estimate)
    assert lc(H, M, convention="geval", method="spearman").extra["level"] == "item"
    with pytest.raises(metaeval.InputError, match="convention"):
        lc(H, M, convention="wmt99")


def test_bootstrap_seed_and_shared_draw():
    H, M = _random(11, 8, 20, 0.1)
    a = metaeval.level_correlation(H, M, level="item", method="pearson", ci_method="percentile", n_resamples=300,
                                   rng=3, resample="both")
    b = metaeval.level_correlation(H, M, level=["item", "system"], method="pearson", ci_method="percentile",
                                   n_resamples=300, rng=3, resample="both")
    # the same seed reproduces the replicates; a list shares one draw (the item replicates are equal)
    np.testing.assert_array_equal(a.replicates, b.get(level="item", method="pearson").replicates)
    assert a.seed == 3 and a.n_resamples == 300 and a.ci.low < a.estimate < a.ci.high
    assert a.unit == "systems and items"


def test_bootstrap_replicate_is_the_statistic_of_the_gathered_matrix():
    # one replicate by hand: rows and columns drawn as the engine draws them (Generator.integers)
    H, M = _random(12, 6, 10, 0.0)
    e = metaeval.level_correlation(H, M, level="system", method="kendall", ci_method="percentile", n_resamples=5,
                                   rng=7, resample="both")
    g = np.random.default_rng(7)
    rows = g.integers(0, 6, size=(5, 6))
    cols = g.integers(0, 10, size=(5, 10))
    want = sps.kendalltau(H[rows[0]][:, cols[0]].mean(1), M[rows[0]][:, cols[0]].mean(1))[0]
    assert abs(e.replicates[0] - want) < 1e-12


def test_level_difference_permutation_null_and_signal():
    g = np.random.default_rng(0)
    H = g.normal(size=(8, 40))
    A = H + g.normal(size=H.shape)
    B = H + 3 * g.normal(size=H.shape)
    d = metaeval.level_difference(H, A, B, level="item", n_permutations=400, ci_method=None, rng=2)
    assert d.estimate > 0 and d.pvalue == 1 / 401 and d.extra["permutation_count"] == 0
    # swapping identical judges: every permuted delta is 0 ≥ |0|, p = 1
    d0 = metaeval.level_difference(H, A, A, level="item", n_permutations=50, ci_method=None, rng=2)
    assert d0.estimate == 0 and d0.pvalue == 1.0
    # paired bootstrap: the interval of the difference from one shared draw
    d2 = metaeval.level_difference(H, A, B, level="system", n_permutations=200, ci_method="percentile",
                                   n_resamples=300, rng=2)
    assert d2.ci.low < d2.estimate < d2.ci.high and d2.extra["judge"] - d2.extra["other"] == pytest.approx(d2.estimate)


@pytest.mark.parametrize("level", ["none", "item", "system_group", "system"])
def test_pearson_moment_paths_equal_recomputation(level):
    # Pearson's bootstrap replicates and permutation deltas come from moment updates; here they are checked
    # against recomputing the statistic on the gathered / swapped matrices (the path of every other method)
    from metaeval.levels import correlation as C

    H, M = _random(13, 7, 11, 0.15)
    M = M + np.random.default_rng(1).normal(0, 0.5, M.shape)
    Hh, Mm, V, *_ = C._prepare(H, M, None, None, None)
    spec = C._Spec("pearson", level, undefined="drop", average="weighted", absolute=False, epsilon=0.0,
                   kendall_like_threshold=None, spa_permutations=1000, spa_seed=4)
    g = np.random.default_rng(3)
    rows, cols = g.integers(0, 7, (40, 7)), g.integers(0, 11, (40, 11))
    slow = spec.values(C._gather(Hh, rows, cols), C._gather(Mm, rows, cols), C._gather(V, rows, cols))[0]
    fast = C._pearson_boot(spec, C._Moments(Hh, Mm, V), C._counts(rows, 7), C._counts(cols, 11))
    np.testing.assert_allclose(fast, slow, atol=1e-10, equal_nan=True)
    B = Mm + np.random.default_rng(2).normal(0, 1, Mm.shape)
    mask = C._swap_masks(g, "both", 30, 7, 11)
    swap = C._PearsonSwap(spec, Hh, Mm, B, V).deltas(mask)
    Ap, Bp = np.where(mask, B[None], Mm[None]), np.where(mask, Mm[None], B[None])
    Hb, Vb = np.broadcast_to(Hh, Ap.shape), np.broadcast_to(V, Ap.shape)
    np.testing.assert_allclose(swap, spec.values(Hb, Ap, Vb)[0] - spec.values(Hb, Bp, Vb)[0], atol=1e-10)


def score_tables_of_read_score_table_test(tmp_path):
    """Per-query scores read by ``metaeval.read_score_table`` (trec_eval -q output: the same runs scored
    under human and under judge qrels) go in as they are: systems × queries of one measure; the result
    equals the one from explicitly pivoted wide matrices (scipy's Pearson on the system means). A table
    of two measures is refused, naming them."""
    rng = np.random.default_rng(3)
    H = rng.random((5, 12))
    M = H + rng.normal(0, 0.1, H.shape)

    def trec_eval_q(row, s, path):  # one run's trec_eval -q output
        lines = [f"runid\tall\tsys{s}"] + [f"ndcg_cut_10\tq{i}\t{v:.6f}" for i, v in enumerate(row)]
        path.write_text("\n".join(lines) + "\n")
        return metaeval.read_score_table(path)

    human = pd.concat([trec_eval_q(H[s], s, tmp_path / f"h{s}.txt") for s in range(5)], ignore_index=True)
    judge = pd.concat([trec_eval_q(M[s], s, tmp_path / f"j{s}.txt") for s in range(5)], ignore_index=True)
    got = lc(human, judge, level="system")
    Hw = human.pivot(index="system", columns="query_id", values="value")
    Mw = judge.pivot(index="system", columns="query_id", values="value").loc[Hw.index, Hw.columns]
    assert got.estimate == pytest.approx(lc(Hw, Mw, level="system").estimate, abs=1e-15)
    assert got.estimate == pytest.approx(sps.pearsonr(Hw.mean(axis=1), Mw.mean(axis=1))[0], abs=1e-12)
    two = pd.concat([human, human.assign(measure="map")], ignore_index=True)
    with pytest.raises(metaeval.InputError, match=r"2 measures \(map, ndcg_cut_10\)"):
        lc(two, two, level="system")
