"""Issue 14, items 4 and 5: inputs inferred where obvious, and honest small print.

- rank_correlation / significance_agreement take the one measure the scores hold;
- plot_ranking_scatter accepts SystemScores and the RankCorrelation result; plot_confusion uses the
  rater names given to align;
- a bootstrap p-value of 0 is printed as p < 1/B (the bound in ``extra``, FRAME_COLUMNS unchanged);
- an interval end clipped at the statistic's range says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import metaeval as me
from metaeval import figures
from metaeval.core.resample import Units, bootstrap
from metaeval.core.results import FRAME_COLUMNS
from metaeval.systems import ranking as rk


@pytest.fixture(scope="module")
def scores():
    d = me.datasets.load("trec_dl_like")
    human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    return d, human, judge


# --------------------------------------------------------------------------------------------
# one measure: no measure= needed
# --------------------------------------------------------------------------------------------

def one_measure_inferred_test(scores):
    _, human, judge = scores
    got = rk.rank_correlation(human, judge, methods=("kendall_b", "spearman"), ci_method=None)
    given = rk.rank_correlation(human, judge, measure="nDCG@10", methods=("kendall_b", "spearman"), ci_method=None)
    assert [e.estimate for e in got] == [e.estimate for e in given]
    # the point estimates are scipy's on the systems' mean nDCG@10 (scipy.stats.kendalltau / spearmanr)
    x, y = human.matrix("nDCG@10").mean(axis=1), judge.matrix("nDCG@10").mean(axis=1)
    assert got[0].estimate == pytest.approx(sps.kendalltau(x, y)[0], abs=1e-12)
    assert got[1].estimate == pytest.approx(sps.spearmanr(x, y)[0], abs=1e-12)
    assert got.info["measure"] == "nDCG@10"


def one_measure_tidy_table_test(scores):
    _, human, judge = scores
    # a tidy score table with one measure: inferred as well
    tidy = [s.matrix("nDCG@10").stack().rename("value").reset_index().assign(measure="nDCG@10")
            for s in (human, judge)]
    a = rk.rank_correlation(tidy[0], tidy[1], methods="kendall_b", ci_method=None)[0].estimate
    b = rk.rank_correlation(human, judge, measure="nDCG@10", methods="kendall_b", ci_method=None)[0].estimate
    assert a == pytest.approx(b, abs=1e-12)


def several_measures_listed_test(scores):
    d, human, judge = scores
    both = me.system_scores(d.qrels_human, d.runs, ["nDCG@10", "AP"])
    with pytest.raises(me.InputError, match=r"several measures \(nDCG@10, AP\).*measure='nDCG@10'"):
        rk.rank_correlation(both, judge, ci_method=None)
    with pytest.raises(me.InputError, match="several measures"):
        rk.significance_agreement(both, both)
    # naming one of them works
    res = rk.rank_correlation(both, judge, measure="nDCG@10", methods="kendall_b", ci_method=None)
    assert res[0].estimate == pytest.approx(
        rk.rank_correlation(human, judge, methods="kendall_b", ci_method=None)[0].estimate, abs=1e-12)


def different_single_measures_refused_test(scores):
    d, human, _ = scores
    ap = me.system_scores(d.qrels_judge, d.runs, "AP")
    with pytest.raises(me.InputError, match="'nDCG@10' and the candidate 'AP'"):
        rk.rank_correlation(human, ap, ci_method=None)


def significance_agreement_one_measure_test(scores):
    _, human, judge = scores
    got = rk.significance_agreement(human, judge)
    given = rk.significance_agreement(human, judge, measure="nDCG@10")
    pd.testing.assert_frame_equal(got, given)
    # the numbers of the function's own doctest (t-test, Holm)
    v = dict(zip(got["quantity"], got["value"]))
    assert (int(v["pairs"]), int(v["kept"]), int(v["lost"])) == (435, 130, 102)


# --------------------------------------------------------------------------------------------
# figures take the objects the statistics return
# --------------------------------------------------------------------------------------------

def scatter_from_system_scores_test(scores):
    _, human, judge = scores
    rc = rk.rank_correlation(human, judge, ci_method=None)
    fig, ax = figures.subplots()
    figures.plot_ranking_scatter(human, judge, tau=rc, ax=ax)
    (pts,) = [ln for ln in ax.lines if ln.get_gid() == "systems"]
    # the points are the systems' means, as rank_correlation computes them
    np.testing.assert_allclose(pts.get_xdata(), rc.means["reference"].to_numpy())
    np.testing.assert_allclose(pts.get_ydata(), rc.means["candidate"].to_numpy())
    tau = rc.get(method="kendall_b").estimate
    assert ax.texts[0].get_text() == f"τ = {tau:.3f}"
    assert ax.get_xlabel() == "nDCG@10, human qrels" and ax.get_ylabel() == "nDCG@10, judge qrels"


def scatter_from_rank_correlation_test(scores):
    _, human, judge = scores
    rc = rk.rank_correlation(human, judge, methods=("kendall_b", "spearman", "tau_ap"), n_resamples=200,
                             ci_method="percentile", rng=0)
    fig, ax = figures.subplots()
    figures.plot_ranking_scatter(rc, ax=ax)
    lines = ax.texts[0].get_text().splitlines()
    e = rc.get(method="kendall_b")
    assert lines[0] == f"τ = {e.estimate:.3f} [{e.ci.low:.3f}, {e.ci.high:.3f}]".replace("-", "−")
    assert lines[1].startswith(f"ρ = {rc.get(method='spearman').estimate:.3f}")
    assert len(lines) == 3
    assert ax.get_xlabel() == "nDCG@10, human qrels"
    # a RankCorrelation as tau= without the method asked for: an error naming what it holds
    rho_only = rk.rank_correlation(human, judge, methods="spearman", ci_method=None)
    with pytest.raises(me.InputError, match="holds no kendall_b.*spearman"):
        figures.plot_ranking_scatter(human, judge, tau=rho_only)


def scatter_needs_both_score_objects_test(scores):
    _, human, _ = scores
    with pytest.raises(me.InputError, match="both sides"):
        figures.plot_ranking_scatter(human, [0.1, 0.2, 0.3])


def confusion_uses_align_names_test(scores):
    d, _, _ = scores
    p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)), names=("NIST", "GPT-4o"))
    fig, ax = figures.subplots()
    figures.plot_confusion(p, ax=ax)
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("NIST", "GPT-4o")
    # a binarized Paired keeps them
    fig, ax = figures.subplots()
    figures.plot_confusion(p.binarize(2), ax=ax)
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("NIST", "GPT-4o")


# --------------------------------------------------------------------------------------------
# p < 1/B
# --------------------------------------------------------------------------------------------

def _share_bootstrap(n_pos, n_resamples=2000, **kw):
    # a share of n_pos positives in 100 items; the statistic is the share minus 0.5
    units = Units(np.array([[1.0], [0.0]]), [n_pos, 100 - n_pos])
    return bootstrap(lambda S: S[:, 0] / 100 - 0.5, units, ci_method="percentile", n_resamples=n_resamples,
                     rng=1, **kw)


def pvalue_zero_printed_as_bound_test():
    r = _share_bootstrap(90)
    # 90% positives: no replicate of the share minus 0.5 reaches 0 (P(share <= 0.5) ~ 1e-17)
    assert (r.replicates > 0).all()
    (e,) = r.estimates("share_minus_half", n=100, pvalues=r.pvalue(0.0))
    assert e.pvalue == 0.0
    assert e.extra["pvalue_bound"] == 1 / 2000
    assert "p < 0.0005" in str(e) and "p = 0" not in str(e)
    assert "&lt; 0.0005" in e._repr_html_()          # HTML-escaped "< 0.0005"
    # the frame keeps its fixed columns and the numeric 0
    f = e.to_frame()
    assert list(f.columns) == FRAME_COLUMNS and f["pvalue"].iloc[0] == 0.0


def pvalue_nonzero_has_no_bound_test():
    r = _share_bootstrap(55, n_resamples=500)
    (e,) = r.estimates("share_minus_half", n=100, pvalues=r.pvalue(0.0))
    # p is the replicates' two-sided share at or beyond 0 (bootstrap_pvalue), here clearly above 1/B
    assert e.pvalue > 1 / 500
    assert "pvalue_bound" not in e.extra
    assert f"p = {e.pvalue:.4g}" in str(e)


# --------------------------------------------------------------------------------------------
# clipped intervals
# --------------------------------------------------------------------------------------------

def clipped_interval_recorded_test():
    free = _share_bootstrap(90, n_resamples=500)
    high = float(free.high[0])                         # unclipped upper end, about 0.46
    assert high > 0.42
    clipped = _share_bootstrap(90, n_resamples=500, bounds=(-0.5, 0.42))
    assert clipped.high[0] == 0.42 and clipped.low[0] == pytest.approx(free.low[0])
    (e,) = clipped.estimates("x", n=100)
    assert e.extra["clipped_high"] is True and e.extra["clipped_low"] is False
    assert "upper end clipped at the bound" in str(e)
    assert "upper end clipped" in e._repr_html_()
    # bounds that do not bind: nothing said
    (e2,) = _share_bootstrap(90, n_resamples=500, bounds=(-0.5, 0.5)).estimates("x", n=100)
    assert e2.extra["clipped_high"] is False and "clipped" not in str(e2)


def rank_correlation_clipped_flags_test(scores):
    _, human, judge = scores
    # Spearman's rho of 0.94 on 30 systems: its debiased interval reaches past 1 (seed 0): flagged,
    # printed, and warned about
    with pytest.warns(me.MetaevalWarning, match="interval of spearman reached past .* clipped at the bound"):
        rc = rk.rank_correlation(human, judge, methods=("kendall_b", "spearman"), rng=0, n_outer=20, n_inner=50)
    for e in rc:
        # an end flagged as clipped sits on the coefficient's bound (1); an unflagged one below it
        assert e.extra["clipped_high"] == (e.ci.high == 1.0)
        assert ("upper end clipped" in str(e)) == e.extra["clipped_high"]
    assert rc.get(method="spearman").extra["clipped_high"] is True
    # on Fisher's z scale the interval stays inside (-1, 1): nothing clipped, nothing said
    rc = rk.rank_correlation(human, judge, methods=("kendall_b", "spearman"), ci_method="debiased_z", rng=0,
                             n_outer=20, n_inner=50)
    for e in rc:
        assert not e.extra["clipped_high"] and e.ci.high < 1 and "clipped" not in str(e)


def pvalue_attached_outside_engine_printed_as_bound_test(scores):
    d, _, _ = scores
    p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
    # cohen_kappa with clusters attaches the bootstrap p-value itself (no extra["pvalue_bound"]);
    # kappa = 0.394 on 40 topics: no replicate reaches 0, so p = 0 and the print says p < 1/B
    e = me.cohen_kappa(p, cluster="query_id", n_resamples=400, rng=0)
    assert e.pvalue == 0.0 and e.n_resamples == 400
    assert "p < 0.0025" in str(e)
    # an analytic estimate (no resamples) with p = 0 prints as it is: there is no 1/B to speak of
    e0 = me.Estimate("x", 5.0, me.ConfidenceInterval(4.0, 6.0, 0.95, "analytic"), pvalue=0.0, n=10)
    assert "p = 0 " in str(e0)
