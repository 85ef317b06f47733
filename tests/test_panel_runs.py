"""judge_panel(runs=...): judges compared by the system ranking their qrels give.

References: each judge's estimate, interval and replicates are metaeval.rank_correlation's for that
judge alone (its point estimates are checked against scipy.stats.kendalltau / spearmanr in
tests/test_ranking.py, and here τ_b once more against scipy directly); the paired draw is checked by
recomputing the difference replicates from the single-judge replicates of the same seed.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metaeval as me
from metaeval.core.errors import InputError


@pytest.fixture(scope="module")
def data():
    d = me.datasets.load("trec_dl_like")
    h = d.qrels_human
    rng = np.random.default_rng(3)
    noisy = h.assign(relevance=np.where(rng.random(len(h)) < 0.5, h.relevance, rng.integers(0, 4, len(h))))
    coarse = d.qrels_judge.assign(relevance=d.qrels_judge.relevance // 2 * 3)
    judges = {"judge": d.qrels_judge, "coarse": coarse, "noisy": noisy, "same": h.copy()}
    scores = {k: me.system_scores(v, d.runs, "nDCG@10") for k, v in judges.items()}
    return d, judges, me.system_scores(h, d.runs, "nDCG@10"), scores


@pytest.mark.parametrize("statistic,ci_method", [("kendall_b", "percentile"), ("tau_ap", "debiased"),
                                                  ("spearman", "bca")])
def each_judge_equals_rank_correlation_test(data, statistic, ci_method):
    d, judges, human, scores = data
    res = me.judge_panel(d.qrels_human, judges, runs=d.runs, measure="nDCG@10", statistic=statistic,
                         ci_method=ci_method, n_resamples=300, n_outer=20, n_inner=50, rng=7)
    assert res.design["seed"] == 7 and res.design["n_topics"] == 40 and res.design["n_systems"] == 30
    reps = {}
    for name in judges:
        one = me.rank_correlation(human, scores[name], methods=statistic, ci_method=ci_method, n_resamples=300,
                                  n_outer=20, n_inner=50, rng=7)[0]
        e = res.get(judge=name)
        assert e.estimate == pytest.approx(one.estimate, abs=1e-12)
        assert e.ci.method == one.ci.method == ci_method
        assert (e.ci.low, e.ci.high) == pytest.approx((one.ci.low, one.ci.high), abs=1e-9)
        np.testing.assert_allclose(res.replicates[name], one.replicates, atol=1e-12)
        reps[name] = one.replicates
    # the shared draw is paired: the difference replicates are the per-judge replicates' differences
    # (each judge minus the best of the others, named in the key "best")
    for e, key in zip(res.differences, res.differences.keys):
        np.testing.assert_allclose(e.replicates, reps[key["judge"]] - reps[key["best"]], atol=1e-12)
    assert [k["best"] for k in res.differences.keys if k["judge"] != res.best] == [res.best] * (len(judges) - 1)
    # a judge identical to the reference ranks first with τ = 1, tied with the best
    same = res.get(judge="same")
    assert same.estimate == pytest.approx(1.0)
    assert res.best == "same" and "same" in res.tied
    assert res.to_frame().set_index("judge").loc["same", "rank"] == 1
    assert res.rank_distribution.loc["same", 1] == pytest.approx(1.0)


def point_estimate_against_scipy_and_matrices_test(data):
    d, judges, human, scores = data
    res = me.judge_panel(d.qrels_human, {"judge": judges["judge"], "noisy": judges["noisy"]}, runs=d.runs,
                         statistic="kendall_b", ci_method=None)
    ref = human.matrix("nDCG@10").mean(axis=1)
    for name in ("judge", "noisy"):
        cand = scores[name].matrix("nDCG@10").mean(axis=1).reindex(ref.index)
        assert res.get(judge=name).estimate == pytest.approx(stats.kendalltau(ref, cand).statistic, abs=1e-12)
    assert res.replicates is None and res.tied == []
    m = res.means
    assert res.agreement.loc["judge", "noisy"] == pytest.approx(stats.kendalltau(m["judge"], m["noisy"]).statistic)
    e_j, e_n = m["judge"] - m["reference"], m["noisy"] - m["reference"]
    assert res.error_correlation.loc["judge", "noisy"] == pytest.approx(stats.pearsonr(e_j, e_n).statistic)


def scores_given_directly_and_bad_input_test(data):
    d, judges, human, scores = data
    a = me.judge_panel(human, {"judge": scores["judge"], "noisy": scores["noisy"]}, runs=d.runs,
                       statistic="kendall_b", ci_method="percentile", n_resamples=200, rng=1)
    b = me.judge_panel(d.qrels_human, {"judge": judges["judge"], "noisy": judges["noisy"]}, runs=d.runs,
                       statistic="kendall_b", ci_method="percentile", n_resamples=200, rng=1)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    with pytest.raises(InputError, match="higher is better"):
        me.judge_panel(d.qrels_human, judges, runs=d.runs, statistic="discordant_pairs")
    with pytest.raises(InputError, match="does not apply"):
        me.judge_panel(d.qrels_human, judges, runs=d.runs, statistic="kendall_b", binarize=2)
    with pytest.raises(InputError, match="cluster"):
        me.judge_panel(d.qrels_human, judges, runs=d.runs, statistic="kendall_b", cluster="doc_id")


def topics_not_common_are_dropped_with_a_warning_test(data):
    d, judges, human, scores = data
    q = judges["judge"]
    fewer = q[q.query_id != q.query_id.iloc[0]]
    with pytest.warns(me.MetaevalWarning, match="not common to every judge"):
        res = me.judge_panel(d.qrels_human, {"judge": q, "fewer": fewer}, runs=d.runs, statistic="kendall_b",
                             ci_method=None)
    assert res.design["n_topics"] == 39 and res.design["topics_dropped"] == {"judge": 1, "fewer": 0}
