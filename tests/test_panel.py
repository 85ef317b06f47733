"""judge_panel and jury_vs_best (issue #22): a panel of judges from one shared bootstrap draw.

References of the expected numbers:
* each judge's estimate and interval: the statistic's own public function on that judge's pairs
  with the same seed (the panel's shared draw of clusters is the single-judge draw, so the
  replicates are equal, not merely close);
* paired differences: metaeval.agreement_difference on the same two judges and seed (replicates equal);
* Holm: statsmodels.stats.multitest.multipletests(method="holm");
* agreement matrix: metaeval.cohen_kappa between two judges' labels; error correlation: numpy.corrcoef;
* max-T critical value, Hsu's difference to the best, the tied set, the rank sets and the max-T
  p-values: their definitions, recomputed from the replicates by a loop over the pairs;
* coverage of the set tied with the best, type-I error of jury_vs_best: simulations (marked slow).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.core.resample import shared_table_units, table_units
from metaeval.panels.panel import _jury_result, _Panel, _panel_result, holm

SCALE = me.Scale((0, 1, 2, 3))


def _qrels(rng, n_topics=12, per_topic=25):
    q = np.repeat([f"q{t:02d}" for t in range(n_topics)], per_topic)
    d = [f"d{i}" for i in range(len(q))]
    rel = rng.integers(0, 4, len(q))
    return pd.DataFrame({"query_id": q, "doc_id": d, "relevance": rel})


def _noisy(rng, human, p_keep):
    keep = rng.random(len(human)) < p_keep
    return human.assign(relevance=np.where(keep, human.relevance, rng.integers(0, 4, len(human))))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    human = _qrels(rng)
    judges = {"good": _noisy(rng, human, 0.8), "also good": _noisy(rng, human, 0.78), "fair": _noisy(rng, human, 0.55),
              "poor": _noisy(rng, human, 0.2)}
    return human, judges


@pytest.fixture(scope="module")
def panel(data):
    human, judges = data
    return me.judge_panel(human, judges, cluster="query_id", n_resamples=400, rng=11, scale=SCALE)


# ---------------------------------------------------------------------------------------------
# the shared draw
# ---------------------------------------------------------------------------------------------

def shared_table_units_blocks_are_each_sets_table_test():
    rng = np.random.default_rng(0)
    cells = rng.integers(-1, 4, size=(200, 3))
    cl = rng.integers(0, 9, 200)
    for cluster in (None, cl):
        u = shared_table_units(cells, 4, cluster=cluster)
        tot = u.total().reshape(3, 4)
        for j in range(3):
            own = cells[:, j]
            np.testing.assert_array_equal(tot[j], np.bincount(own[own >= 0], minlength=4))
    # one set, clusters: the same units as table_units of the per-cluster tables
    one = cells[:, 0]
    ok = one >= 0
    ct = np.stack([np.bincount(one[ok & (cl == c)], minlength=4) for c in range(9)])
    np.testing.assert_array_equal(shared_table_units(one[ok], 4, cluster=cl[ok]).X,
                                  table_units(None, cluster_tables=ct.reshape(9, 2, 2)).X)


def every_judge_equals_its_own_function_with_the_same_draw_test(data, panel):
    human, judges = data
    for e, key in zip(panel, panel.keys):
        p = me.align(human, judges[key["judge"]], scale=SCALE)
        single = me.cohen_kappa(p, cluster="query_id", n_resamples=400, rng=11)
        assert e.estimate == single.estimate
        np.testing.assert_array_equal(e.replicates, single.replicates)   # the same draw of topics
        assert (e.ci.low, e.ci.high) == (single.ci.low, single.ci.high)
        assert e.n == len(p) and e.unit == "clusters" and e.n_units == 12


@pytest.mark.parametrize("statistic,kw,single", [
    ("cohen_kappa_quadratic", {}, lambda p: me.cohen_kappa(p, weights="quadratic", ci_method=None)),
    ("krippendorff_alpha_ordinal", {}, lambda p: me.krippendorff_alpha(p, level="ordinal", ci_method=None)),
    ("observed_agreement", {}, lambda p: me.observed_agreement(p, ci_method=None)),
    ("gwet_ac1", {}, lambda p: me.gwet_ac1(p, ci_method=None)),
    ("per_class", {"component": "recall[2]"},
     lambda p: me.per_class(p, ci_method=None).get(statistic="recall", **{"class": "2"})),
    ("cohen_kappa", {"binarize": 2}, lambda p: me.cohen_kappa(p.binarize(2), ci_method=None)),
])
def any_registered_statistic_test(data, statistic, kw, single):
    human, judges = data
    res = me.judge_panel(human, judges, statistic=statistic, scale=SCALE, ci_method=None, **kw)
    for e, key in zip(res, res.keys):
        p = me.align(human, judges[key["judge"]], scale=SCALE)
        assert e.estimate == pytest.approx(single(p).estimate, abs=1e-12)
        assert e.ci.method == "none"


def differences_are_paired_as_agreement_difference_test(data, panel):
    human, judges = data
    best = panel.best
    assert best == "good"
    pa = me.align(human, judges["fair"], scale=SCALE)
    pb = me.align(human, judges[best], scale=SCALE)
    ad = me.agreement_difference(pa, pb, cluster="query_id", n_resamples=400, rng=11)
    diff = panel.differences.get(judge="fair")
    assert diff.estimate == pytest.approx(ad.get(set="a - b").estimate, abs=1e-12)
    np.testing.assert_allclose(diff.replicates, ad.get(set="a - b").replicates, atol=1e-12)


def _all_pairs_by_loop(theta, reps, level=0.95, fac=1.0):
    """The max-T intervals for every θ_j − θ_k, written out pair by pair (the definition)."""
    J = len(theta)
    pairs = [(j, k) for j in range(J) for k in range(J) if j != k]
    se = {(j, k): np.std(reps[:, j] - reps[:, k], ddof=1) for j, k in pairs}
    T = np.max(np.column_stack([np.abs((reps[:, j] - reps[:, k]) - (theta[j] - theta[k])) / se[j, k]
                                for j, k in pairs]), axis=1)
    c = np.quantile(T, level)
    low = {(j, k): theta[j] - theta[k] - c * fac * se[j, k] for j, k in pairs}
    high = {(j, k): theta[j] - theta[k] + c * fac * se[j, k] for j, k in pairs}
    return c, T, se, low, high


def max_t_intervals_by_their_definition_test(panel):
    """All-pairs max-T (each difference studentised by its bootstrap SE), then Hsu's difference to
    the best of the others [min_k L_jk, min_k U_jk], the set {j : U_jk >= 0 for all k}, rank sets
    [1 + #{k: L_kj > 0}, J - #{k: U_kj < 0}] (Mogstad et al. 2024) and max-T p-values — each
    recomputed here from the replicates by a loop over the pairs."""
    reps = panel.replicates.to_numpy()
    theta = np.array([e.estimate for e in panel])
    names = list(panel.replicates.columns)
    J = len(theta)
    fac = panel.design["cluster_correction"]
    assert fac > 1                                            # 12 topics: the few-clusters widening applies
    c, T, se, low, high = _all_pairs_by_loop(theta, reps, 0.95, fac)
    assert panel.design["critical_value_max_t"] == pytest.approx(c)
    f = panel.to_frame().set_index("judge")
    for j, name in enumerate(names):
        others = [k for k in range(J) if k != j]
        assert f.loc[name, "difference"] == pytest.approx(theta[j] - max(theta[others]))
        assert f.loc[name, "difference_low"] == pytest.approx(min(low[j, k] for k in others))
        assert f.loc[name, "difference_high"] == pytest.approx(min(high[j, k] for k in others))
        assert f.loc[name, "tied_with_best"] == all(high[j, k] >= 0 for k in others)
        assert f.loc[name, "rank_low"] == 1 + sum(low[k, j] > 0 for k in others)
        assert f.loc[name, "rank_high"] == J - sum(high[k, j] < 0 for k in others)
        # the p-value: share of draws whose max-T reaches the judge's largest studentised gap
        t_j = max((theta[k] - theta[j]) / (fac * se[j, k]) for k in others)
        assert f.loc[name, "difference_pvalue"] == pytest.approx(np.mean(T >= t_j))
        # marginal rank set: the critical value of the judge's own row
        c_j = np.quantile(np.max(np.column_stack([np.abs(reps[:, j] - reps[:, k] - theta[j] + theta[k]) / se[j, k]
                                                  for k in others]), axis=1), 0.95)
        assert panel.design["critical_values_marginal"][j] == pytest.approx(c_j)
        lo_m = {k: theta[k] - theta[j] - c_j * fac * se[j, k] for k in others}
        hi_m = {k: theta[k] - theta[j] + c_j * fac * se[j, k] for k in others}
        assert f.loc[name, "rank_low_marginal"] == 1 + sum(v > 0 for v in lo_m.values())
        assert f.loc[name, "rank_high_marginal"] == J - sum(v < 0 for v in hi_m.values())
        assert f.loc[name, "rank_low"] <= f.loc[name, "rank_low_marginal"] <= f.loc[name, "rank"]
        assert f.loc[name, "rank"] <= f.loc[name, "rank_high_marginal"] <= f.loc[name, "rank_high"]
    for d in panel.differences:
        assert d.ci.method == "max-t"
        lo, hi = np.quantile(d.replicates, [0.025, 0.975])     # simultaneous: wider than the marginal interval
        assert d.ci.high - d.ci.low > hi - lo
    # the p-value and the set agree: out of the set exactly when p < 0.05 (no draw near the boundary here)
    assert ((f["difference_pvalue"] < 0.05) == ~f["tied_with_best"].astype(bool)).all()


def differences_name_the_best_of_the_others_test(panel):
    best, runner_up = panel.best, "also good"
    d = panel.differences.get(judge=best)
    assert panel.differences.keys[[k["judge"] for k in panel.differences.keys].index(best)]["best"] == runner_up
    assert d.estimate == pytest.approx(panel.get(judge=best).estimate - panel.get(judge=runner_up).estimate)
    assert d.extra["adjustment"] == "max-t, all pairs"
    assert len(panel.differences) == len(panel)


def holm_equals_statsmodels_test():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(1)
    for p in (rng.random(7), np.array([0.01, 0.04, 0.03, 0.5]), rng.random(20) ** 4):
        np.testing.assert_allclose(holm(p), multitest.multipletests(p, method="holm")[1], atol=1e-15)
    assert np.isnan(holm([np.nan, 0.1])[0]) and holm([np.nan, 0.1])[1] == 0.1


def tied_set_and_ranks_test(panel):
    f = panel.to_frame().set_index("judge")
    assert f.loc["good", "tied_with_best"] and f.loc["also good", "tied_with_best"]   # 0.80 vs 0.78 kept
    assert not f.loc["poor", "tied_with_best"] and not f.loc["fair", "tied_with_best"]
    assert panel.tied == ["good", "also good"]
    assert (f["rank_low"] <= f["rank"]).all() and (f["rank"] <= f["rank_high"]).all()
    assert f.loc["poor", "rank_low"] == f.loc["poor", "rank_high"] == 4
    assert (f.loc[panel.tied, "rank_low"] == 1).all() and (f.drop(panel.tied)["rank_low"] > 1).all()
    np.testing.assert_allclose(panel.rank_distribution.sum(axis=1), 1.0)
    assert list(f.columns[:11]) == ["rank", "rank_low", "rank_high", "tied_with_best", "difference",
                                    "difference_low", "difference_high", "difference_pvalue", "rank_low_marginal",
                                    "rank_high_marginal", "statistic"]
    # the best judge's difference is its margin over the runner-up, with its interval and p = 1
    assert f.loc["good", "difference"] == pytest.approx(f.loc["good", "estimate"] - f.loc["also good", "estimate"])
    assert f.loc["good", "difference_low"] < 0 < f.loc["good", "difference_high"]
    assert f.loc["good", "difference_pvalue"] == 1.0


def identical_judge_is_tied_with_the_best_test(data):
    human, judges = data
    res = me.judge_panel(human, {"a": judges["good"], "copy of a": judges["good"], "poor": judges["poor"]},
                         cluster="query_id", n_resamples=200, rng=0)
    assert res.tied == ["a", "copy of a"]
    d = res.differences.get(judge="copy of a")
    assert d.estimate == 0.0 and d.ci.low == d.ci.high == 0.0 and d.pvalue == 1.0


def agreement_and_error_correlation_matrices_test(data, panel):
    human, judges = data
    a, b = judges["good"], judges["fair"]
    pab = me.align(a, b, scale=SCALE)
    assert panel.agreement.loc["good", "fair"] == pytest.approx(me.cohen_kappa(pab, ci_method=None).estimate)
    assert panel.agreement.loc["fair", "good"] == pytest.approx(panel.agreement.loc["good", "fair"])
    ea = (a.relevance.to_numpy() != human.relevance.to_numpy()).astype(float)
    eb = (b.relevance.to_numpy() != human.relevance.to_numpy()).astype(float)
    assert panel.error_correlation.loc["good", "fair"] == pytest.approx(np.corrcoef(ea, eb)[0, 1])
    assert panel.design["matrix_statistic"] == "cohen_kappa"
    signed = me.judge_panel(human, judges, errors="signed", ci_method=None, scale=SCALE)
    sa = a.relevance.to_numpy() - human.relevance.to_numpy()
    sb = b.relevance.to_numpy() - human.relevance.to_numpy()
    assert signed.error_correlation.loc["good", "fair"] == pytest.approx(np.corrcoef(sa, sb)[0, 1])


def items_common_or_own_test(data):
    human, judges = data
    part = judges["fair"].iloc[50:]
    js = {"good": judges["good"], "fair (part)": part}
    with pytest.warns(me.MetaevalWarning, match="not judged by every judge"):
        common = me.judge_panel(human, js, ci_method=None, scale=SCALE)
    assert common.design["items_dropped"] == {"good": 50, "fair (part)": 0}
    assert [e.n for e in common] == [250, 250]
    own = me.judge_panel(human, js, items="own", cluster="query_id", n_resamples=100, rng=0, scale=SCALE)
    assert [e.n for e in own] == [300, 250]
    for e, key in zip(own, own.keys):
        single = me.cohen_kappa(me.align(human, js[key["judge"]], scale=SCALE), ci_method=None)
        assert e.estimate == pytest.approx(single.estimate, abs=1e-12)


def judges_from_a_directory_test(data, tmp_path):
    human, judges = data
    for name in ("good", "poor"):
        me.write_qrels(judges[name], tmp_path / f"{name}.txt")
    me.write_qrels(human, tmp_path.parent / "human.txt")
    res = me.judge_panel(tmp_path.parent / "human.txt", tmp_path, ci_method=None)
    assert [k["judge"] for k in res.keys] == ["good", "poor"]
    assert res.reports["good"].n_pairs == 300


def bad_input_raises_input_error_test(data, tmp_path):
    human, judges = data
    with pytest.raises(me.InputError, match="unknown statistic"):
        me.judge_panel(human, judges, statistic="kapa", ci_method=None)
    with pytest.raises(me.InputError, match="component="):
        me.judge_panel(human, judges, statistic="per_class", ci_method=None)
    with pytest.raises(me.InputError, match="directory"):
        me.judge_panel(human, tmp_path / "nowhere", ci_method=None)
    with pytest.raises(me.InputError, match="judge 'odd'.*outside the scale"):
        me.judge_panel(human, {"odd": judges["good"].assign(relevance=7)}, scale=SCALE, ci_method=None)
    with pytest.raises(me.InputError, match="items must be"):
        me.judge_panel(human, judges, items="all", ci_method=None)
    with pytest.raises(me.InputError, match="no column 'topic'"):
        me.judge_panel(human, judges, cluster="topic", ci_method=None)
    with pytest.raises(TypeError, match="alignment options"):
        me.judge_panel(human, judges, out_of_scal="clip")
    # the alignment option reaches align: out-of-scale labels clipped
    res = me.judge_panel(human, {"odd": judges["good"].assign(relevance=7)}, scale=SCALE, out_of_scale="clip",
                         ci_method=None)
    assert res.reports["odd"].notes[("odd", "out-of-scale labels clipped")] == 300


def reproducible_test(data):
    human, judges = data
    a = me.judge_panel(human, judges, cluster="query_id", n_resamples=100, rng=3).to_frame()
    b = me.judge_panel(human, judges, cluster="query_id", n_resamples=100, rng=3).to_frame()
    pd.testing.assert_frame_equal(a, b)


# ---------------------------------------------------------------------------------------------
# jury_vs_best
# ---------------------------------------------------------------------------------------------

def jury_vs_best_estimates_and_inputs_test(data):
    human, judges = data
    members = {k: judges[k] for k in ("good", "also good", "fair")}
    votes = pd.concat([f.set_index(["query_id", "doc_id"]).relevance.rename(k) for k, f in members.items()], axis=1)
    majority = votes.mode(axis=1)[0]
    res = me.jury_vs_best(human, members, majority, cluster="query_id", n_resamples=300, rng=2)
    jury = me.cohen_kappa(me.align(human, majority.rename("relevance").reset_index()), ci_method=None).estimate
    best = max(me.cohen_kappa(me.align(human, f), ci_method=None).estimate for f in members.values())
    assert res.get(set="jury").estimate == pytest.approx(jury)
    assert res.get(set="best member").estimate == pytest.approx(best)
    assert res.get(set="jury - best member").estimate == pytest.approx(jury - best)
    assert res.best_member == "good"
    assert res.selection.sum() == pytest.approx(1.0) and set(res.selection.index) == set(members)
    # the best member is chosen in each draw: the replicate is the jury minus the max of the members
    d = res.get(set="jury - best member")
    np.testing.assert_allclose(d.replicates, res.get(set="jury").replicates - res.get(set="best member").replicates)
    # the same labels as a judgment set, and as an object with a `labels` Series (what jury() returns)
    as_frame = me.jury_vs_best(human, members, majority.rename("relevance").reset_index(), cluster="query_id",
                               n_resamples=300, rng=2)
    holder = type("JuryLike", (), {"labels": majority})()
    as_obj = me.jury_vs_best(human, members, holder, cluster="query_id", n_resamples=300, rng=2)
    # jury() itself, on the frame indexed by (query_id, doc_id): its labels are indexed by key tuples
    from_jury = me.jury_vs_best(human, members, me.jury(votes, method="majority"), cluster="query_id",
                                n_resamples=300, rng=2)
    for other in (as_frame, as_obj, from_jury):
        pd.testing.assert_frame_equal(other.to_frame(), res.to_frame())
    with pytest.raises(me.InputError, match="indexed by 1 level"):
        me.jury_vs_best(human, members, majority.reset_index(drop=True), n_resamples=10)


def jury_equal_to_its_best_member_test(data):
    human, judges = data
    res = me.jury_vs_best(human, {"good": judges["good"], "poor": judges["poor"]}, judges["good"],
                          cluster="query_id", n_resamples=200, rng=0)
    d = res.get(set="jury - best member")
    assert d.estimate == 0.0 and (d.replicates <= 1e-15).all()   # never better than the best member


# ---------------------------------------------------------------------------------------------
# simulations (slow)
# ---------------------------------------------------------------------------------------------

def _sim_labels(rng, accuracies, n_topics, per_topic, k=4, topic_sd=0.1):
    """Reference codes, judge codes (agree with prob a_j + topic effect, else uniform), topics."""
    n = n_topics * per_topic
    topic = np.repeat(np.arange(n_topics), per_topic)
    eff = rng.normal(0, topic_sd, n_topics)[topic]                  # topics easy or hard for every judge
    ref = rng.integers(0, k, n)
    codes = np.empty((n, len(accuracies)), dtype=np.int64)
    for j, a in enumerate(accuracies):
        keep = rng.random(n) < np.clip(a + eff, 0, 1)
        codes[:, j] = np.where(keep, ref, rng.integers(0, k, n))
    return ref, codes, topic.astype(str)


def _sim_panel(ref, codes, topic, names):
    return _Panel(names, ref, codes, topic, me.Scale((0, 1, 2, 3)), {}, {}, None)


def coverage_of_the_set_tied_with_the_best(n_sims=400, n_resamples=500, seed=0,
                                           accuracies=(0.6, 0.6, 0.6, 0.55, 0.5, 0.4), n_topics=30, per_topic=40):
    """Share of simulated panels whose tied set holds every truly best judge (three tied at 0.6)."""
    rng = np.random.default_rng(seed)
    best = np.flatnonzero(np.asarray(accuracies) == max(accuracies))
    names = [f"j{j}" for j in range(len(accuracies))]
    hits, sizes = 0, []
    for _ in range(n_sims):
        ref, codes, topic = _sim_labels(rng, accuracies, n_topics, per_topic)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", me.MetaevalWarning)
            res = _panel_result(_sim_panel(ref, codes, topic, names), statistic="cohen_kappa", weights=None,
                                component=None, cluster="topic", items="common", matrix_statistic=None,
                                errors="indicator", ci_method="percentile", n_resamples=n_resamples,
                                confidence_level=0.95, rng=rng)
        hits += all(names[b] in res.tied for b in best)
        sizes.append(len(res.tied))
    return hits / n_sims, float(np.mean(sizes))


def jury_type_one_error(n_sims=600, n_resamples=500, seed=0, alternative="greater", ci_method="bca",
                        members=(0.6, 0.6, 0.5), jury=0.6, n_topics=30, per_topic=40):
    """Rejection rate at 0.05 of H0 'the jury equals its best member' with a planted no-gain jury."""
    rng = np.random.default_rng(seed)
    names = [f"m{j}" for j in range(len(members))] + ["jury"]
    rejections = 0
    for _ in range(n_sims):
        ref, codes, topic = _sim_labels(rng, (*members, jury), n_topics, per_topic)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", me.MetaevalWarning)
            res = _jury_result(_sim_panel(ref, codes, topic, names), statistic="cohen_kappa", weights=None,
                               component=None, cluster="topic", ci_method=ci_method, n_resamples=n_resamples,
                               confidence_level=0.95, alternative=alternative, rng=rng)
        rejections += res.get(set="jury - best member").pvalue < 0.05
    return rejections / n_sims


@pytest.mark.slow
def set_tied_with_the_best_covers_test():
    """Nominal 0.95; three judges tied at the top of six, 30 topics of 40 items. R = 200 panels of
    B = 300 draws (Monte-Carlo SE about 0.015 at 0.95). The set is {j : U_jk >= 0 for all k} from
    the all-pairs max-T intervals; benchmarks/coverage_panel.py measures it over the full grid."""
    coverage, mean_size = coverage_of_the_set_tied_with_the_best(n_sims=200, n_resamples=300, seed=1)
    mc_se = np.sqrt(coverage * (1 - coverage) / 200)
    assert coverage >= 0.93, f"coverage {coverage:.3f} (Monte-Carlo SE {mc_se:.3f}, R = 200) below 0.93"
    assert mean_size < 6          # the set still excludes judges: it is not the trivial set


@pytest.mark.slow
def jury_vs_best_type_one_error_test():
    """A jury as good as its best member (two members tied at the top): the rejection rate of
    'no gain' (alternative='greater', the default) at 0.05 stays at or below 0.06 (R = 400,
    Monte-Carlo SE about 0.011 at 0.05)."""
    n_sims = 400
    rate = jury_type_one_error(n_sims=n_sims, n_resamples=400, seed=2)
    mc_se = np.sqrt(max(rate, 0.05) * (1 - max(rate, 0.05)) / n_sims)
    assert rate <= 0.06, f"type-I error {rate:.3f} (Monte-Carlo SE {mc_se:.3f}, R = {n_sims}) above 0.06"


# ---------------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------------

def forest_figure_draws_the_results_test(panel):
    from metaeval import figures

    ax = figures.plot_panel_forest(panel)
    f = panel.to_frame().sort_values("estimate", ascending=False)
    assert [t.get_text() for t in ax.get_yticklabels()] == f["judge"].tolist()
    tied = next(a for a in ax.lines if a.get_gid() == "estimate:tied")
    np.testing.assert_allclose(tied.get_xdata(), f.loc[f["tied_with_best"], "estimate"])
    other = next(a for a in ax.lines if a.get_gid() == "estimate:other")
    assert other.get_markerfacecolor() == "white"
    segs = next(c for c in ax.collections if c.get_gid() == "interval:other").get_segments()
    np.testing.assert_allclose([s[0][0] for s in segs], f.loc[~f["tied_with_best"], "ci_low"])
    assert any(p.get_gid() == "tied-band" for p in ax.patches)
    assert "Cohen" in ax.get_xlabel()


def heatmap_figure_in_clustered_order_test(panel):
    from metaeval import figures
    from metaeval.output.figures_panel import cluster_order

    fig, ax = figures.subplots()
    assert figures.plot_panel_heatmap(panel, which="error_correlation", ax=ax) is ax
    order = cluster_order(panel.error_correlation)
    assert [t.get_text() for t in ax.get_xticklabels()] == order
    np.testing.assert_allclose(np.asarray(ax.images[0].get_array()),
                               panel.error_correlation.loc[order, order].to_numpy())
    # the two good judges (most alike) are neighbours in the clustered order of the agreement matrix
    o = cluster_order(panel.agreement)
    assert abs(o.index("good") - o.index("also good")) == 1
    with pytest.raises(me.InputError, match="which must be"):
        figures.plot_panel_heatmap(panel, which="kappa")


# ---------------------------------------------------------------------------------------------
# edges: one cluster, one judge
# ---------------------------------------------------------------------------------------------

def one_cluster_gives_nan_comparisons_with_a_warning_test(data):
    """One topic: the draws cannot move, so nothing can be told apart. The differences' intervals
    and p-values are NaN (as every statistic's interval is, with the engine's warning), every judge
    stays in the tied set and every rank set is [1, J] — no zero-width interval, no p = 0."""
    human, judges = data
    one = {k: v[v.query_id == "q00"] for k, v in judges.items()}
    with pytest.warns(me.UndefinedStatisticWarning, match="single cluster") as rec:
        res = me.judge_panel(human[human.query_id == "q00"], one, cluster="query_id", n_resamples=100, rng=0,
                             scale=SCALE)
    assert any("every judge stays in the set tied with the best" in str(w.message) for w in rec)
    f = res.to_frame()
    assert f[["ci_low", "ci_high", "difference_low", "difference_high"]].isna().all().all()
    assert f["difference_pvalue"].isna().all() and f["difference"].notna().all()
    assert res.tied == list(judges) and f["tied_with_best"].all()
    assert (f["rank_low"] == 1).all() and (f["rank_high"] == len(judges)).all()
    assert all(np.isnan(d.pvalue if d.pvalue is not None else np.nan) and np.isnan(d.ci.low)
               for d in res.differences)


def one_judge_panel_test(data):
    human, judges = data
    res = me.judge_panel(human, {"good": judges["good"]}, cluster="query_id", n_resamples=100, rng=0, scale=SCALE)
    f = res.to_frame()
    assert res.tied == ["good"] and len(res.differences) == 0
    assert (f.loc[0, "rank_low"], f.loc[0, "rank_high"]) == (1, 1) and np.isnan(f.loc[0, "difference"])
