"""metaeval.inference.systems on the bundled trec_dl_like sample (30 runs, 40 topics, a biased judge).

Expected values come from independent routes: scipy's Student t interval (human-only), scipy's
kendalltau (rank correlation), a brute-force minimum over a λ grid of ppi_mean_variance (the shared
λ), ppi_mean / ppi_mean_difference called directly, and exact identities (a judge that equals the
human scores, or is off by a constant per system, leaves no error to estimate).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

import metaeval as me
from metaeval.inference import systems as cs
from metaeval.inference.ppi import ppi_mean, ppi_mean_difference, ppi_mean_variance

N_LABELLED = 15


@pytest.fixture(scope="module")
def data():
    d = me.datasets.load("trec_dl_like")
    human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    labelled = [str(t) for t in np.random.default_rng(3).choice(judge.topics, N_LABELLED, replace=False)]
    return human, judge, labelled


@pytest.fixture(scope="module")
def matrices(data):
    human, judge, labelled = data
    H, J = human.matrix(), judge.matrix()
    unl = [t for t in J.columns if t not in labelled]
    return H, J, labelled, unl


@pytest.fixture(scope="module")
def result(data):
    human, judge, labelled = data
    return me.corrected_system_scores(human, judge, labelled_topics=labelled)


def estimates_are_ppi_mean_with_the_shared_lambda_test(result, matrices):
    H, J, lab, unl = matrices
    lam = result.design["lam"]
    assert 0 < lam < 1 and result.design["lam_optim_mode"] == "overall"
    for e, k in zip(result, result.keys):
        s = k["system"]
        ref = ppi_mean(H.loc[s, lab], J.loc[s, lab], J.loc[s, unl], lam=lam, population_size=J.shape[1])
        assert (e.estimate, e.ci.low, e.ci.high) == pytest.approx((ref.estimate, ref.ci.low, ref.ci.high), abs=1e-12)
        assert e.extra["lam"] == lam and e.extra["population_size"] == 40 and e.extra["n_labelled"] == 15
        assert e.extra["judge_mean"] == pytest.approx(J.loc[s].mean(), abs=1e-12)
        assert e.extra["labelled_mean"] == pytest.approx(H.loc[s, lab].mean(), abs=1e-12)
    assert len(result) == 30 and result.key_columns == ["system"]


def shared_lambda_minimizes_the_summed_variance_test(result, matrices):
    """Brute force: the summed ppi_mean_variance on a grid of λ (step 0.02, then 0.001 around the best
    point) has its minimum at the shared λ."""
    H, J, lab, unl = matrices
    hl, jl, ju = H[lab].to_numpy(), J[lab].to_numpy(), J[unl].to_numpy()

    def total(g):
        return sum(ppi_mean_variance(hl[s], jl[s], ju[s], g, ddof=1, population_size=40).variance
                   for s in range(len(hl)))

    coarse = np.linspace(0, 1, 51)
    c = coarse[int(np.argmin([total(g) for g in coarse]))]
    fine = np.arange(max(c - 0.02, 0), min(c + 0.02, 1) + 1e-9, 0.001)
    best = fine[int(np.argmin([total(g) for g in fine]))]
    assert result.design["lam"] == pytest.approx(best, abs=0.001)
    assert total(result.design["lam"]) <= total(best) + 1e-15


def element_mode_uses_ppi_lambda_per_system_test(data, matrices):
    human, judge, lab = data
    H, J, _, unl = matrices
    res = me.corrected_system_scores(human, judge, labelled_topics=lab, lam_optim_mode="element", differences=False)
    lams = []
    for e, k in zip(res, res.keys):
        s = k["system"]
        lam = me.ppi_lambda(H.loc[s, lab], J.loc[s, lab], J.loc[s, unl], population_size=40)
        assert e.extra["lam"] == pytest.approx(lam, abs=1e-12)
        lams.append(lam)
    assert len(set(lams)) > 1 and res.design["lam"] is None


def classical_is_students_t_with_the_finite_population_factor_test(data, matrices):
    """Human-only: mean of the 15 labelled topics ± t_{14}·s/√15·√(1 − 15/40) (scipy)."""
    human, judge, lab = data
    H, _, _, _ = matrices
    res = me.corrected_system_scores(human, judge, labelled_topics=lab, method="classical", differences=False)
    for e, k in zip(res, res.keys):
        x = H.loc[k["system"], lab].to_numpy()
        half = sps.t.ppf(0.975, 14) * x.std(ddof=1) / np.sqrt(15) * np.sqrt(1 - 15 / 40)
        assert (e.estimate, e.ci.low, e.ci.high) == pytest.approx((x.mean(), x.mean() - half, x.mean() + half),
                                                                  abs=1e-12)


def judge_only_is_the_judge_mean_with_a_t_interval_over_every_topic_test(data, matrices):
    human, judge, lab = data
    _, J, _, _ = matrices
    res = me.corrected_system_scores(human, judge, labelled_topics=lab, method="judge_only", differences=False)
    for e, k in zip(res, res.keys):
        x = J.loc[k["system"]].to_numpy()
        lo, hi = sps.t.interval(0.95, 39, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(40))
        assert (e.estimate, e.ci.low, e.ci.high) == pytest.approx((x.mean(), lo, hi), abs=1e-12)
    assert res.rank_correlation.get(method="kendall_b").estimate == 1.0


def differences_are_differences_of_the_corrected_means_test(result, matrices):
    H, J, lab, unl = matrices
    est = {k["system"]: e.estimate for e, k in zip(result, result.keys)}
    assert len(result.differences) == 30 * 29 // 2
    lam = result.design["lam"]
    for e, k in list(zip(result.differences, result.differences.keys))[::37]:
        a, b = k["system_a"], k["system_b"]
        assert a < b
        assert e.estimate == pytest.approx(est[a] - est[b], abs=1e-12)
        ref = ppi_mean_difference(H.loc[[a, b], lab].T, J.loc[[a, b], lab].T, J.loc[[a, b], unl].T, lam=lam,
                                  population_size=40)
        assert (e.ci.low, e.ci.high, e.pvalue) == pytest.approx((ref.ci.low, ref.ci.high, ref.pvalue), abs=1e-12)
        # the test and the interval agree
        assert (e.pvalue < 0.05) == (not e.ci.contains(0.0))


def element_differences_are_differences_of_the_corrected_means_test(data):
    human, judge, lab = data
    res = me.corrected_system_scores(human, judge, labelled_topics=lab, lam_optim_mode="element",
                                     systems=["run_01", "run_02", "run_03", "run_04"])
    est = {k["system"]: e.estimate for e, k in zip(res, res.keys)}
    lam = {k["system"]: e.extra["lam"] for e, k in zip(res, res.keys)}
    assert len(set(lam.values())) > 1
    for e, k in zip(res.differences, res.differences.keys):
        a, b = k["system_a"], k["system_b"]
        assert e.estimate == pytest.approx(est[a] - est[b], abs=1e-12)
        if lam[a] != lam[b]:       # scaled predictions, PPI with λ = 1
            assert (e.extra["lam_a"], e.extra["lam_b"]) == (lam[a], lam[b])


def ranking_and_rank_correlation_test(result, matrices):
    _, J, _, _ = matrices
    r = result.ranking
    est = pd.Series({k["system"]: e.estimate for e, k in zip(result, result.keys)})
    assert list(r.index) == list(est.sort_values(ascending=False).index)
    assert (r["rank"].to_numpy() == np.arange(1, 31)).all()       # no ties on this sample
    judge_rank = J.mean(axis=1).rank(ascending=False, method="min").astype(int)
    assert (r["judge_rank"] == judge_rank.loc[r.index]).all()
    assert (r["rank_change"] == r["judge_rank"] - r["rank"]).all()
    x, y = est.loc[J.index].to_numpy(), J.mean(axis=1).to_numpy()
    rc = result.rank_correlation
    assert rc.get(method="kendall_b").estimate == pytest.approx(sps.kendalltau(x, y)[0], abs=1e-12)
    assert rc.get(method="tau_ap").estimate == pytest.approx(me.tau_ap(x, y), abs=1e-12)
    assert rc.get(method="rbo").estimate == pytest.approx(me.rbo(x, y), abs=1e-12)
    assert all(e.ci.method == "none" for e in rc)


def human_scores_on_other_topics_are_ignored_test(data, result):
    """Human SystemScores of the labelled topics only give the same result as complete ones."""
    _, judge, lab = data
    d = me.datasets.load("trec_dl_like")
    qrels = d.qrels_human[d.qrels_human["query_id"].isin(lab)]
    small = me.system_scores(qrels, d.runs, "nDCG@10")
    assert sorted(small.topics) == sorted(lab)
    res = me.corrected_system_scores(small, judge, labelled_topics=lab, differences=False)
    assert [e.estimate for e in res] == [e.estimate for e in result]
    assert [e.ci.high for e in res] == [e.ci.high for e in result]


def a_judge_off_by_a_constant_is_corrected_exactly_test(matrices):
    """Judge = human − c_s (a bias per system): λ = 1, residuals constant, so the corrected mean is the
    all-topic human mean exactly and the residual variance is 0 (up to rounding)."""
    H, _, lab, _ = matrices
    shift = pd.Series(np.linspace(0.05, 0.3, len(H)), index=H.index)
    J = H.sub(shift, axis=0)
    res = me.corrected_system_scores(H, J, labelled_topics=lab, differences=False)
    assert res.design["lam"] == pytest.approx(1.0)
    for e, k in zip(res, res.keys):
        assert e.estimate == pytest.approx(H.loc[k["system"]].mean(), abs=1e-12)
        assert abs(e.extra["var_labelled"]) < 1e-15


def a_judge_without_information_gives_the_human_only_answer_test(matrices):
    """A judge whose scores are constant carries no information: λ = 0 (classical)."""
    H, _, lab, _ = matrices
    J = pd.DataFrame(0.5, index=H.index, columns=H.columns)
    res = me.corrected_system_scores(H, J, labelled_topics=lab, differences=False)
    cl = me.corrected_system_scores(H, J, labelled_topics=lab, method="classical", differences=False)
    assert res.design["lam"] == 0.0
    assert [e.ci.low for e in res] == pytest.approx([e.ci.low for e in cl], abs=1e-12)


def normal_quantile_and_superpopulation_options_test(data, matrices):
    human, judge, lab = data
    H, J, _, unl = matrices
    res = me.corrected_system_scores(human, judge, labelled_topics=lab, quantile="normal", finite_population=False,
                                     differences=False, confidence_level=0.9)
    lam = res.design["lam"]
    for e, k in list(zip(res, res.keys))[:5]:
        s = k["system"]
        ref = ppi_mean(H.loc[s, lab], J.loc[s, lab], J.loc[s, unl], lam=lam, quantile="normal", confidence_level=0.9)
        assert (e.estimate, e.ci.low, e.ci.high) == pytest.approx((ref.estimate, ref.ci.low, ref.ci.high), abs=1e-12)
    fixed = me.corrected_system_scores(human, judge, labelled_topics=lab, lam=0.3, differences=False)
    assert fixed.design["lam"] == 0.3 and fixed[0].extra["lam_optim_mode"] is None


def coverage_replay_matches_corrected_system_scores_test(data, monkeypatch):
    """One draw of corrected_coverage gives the intervals of corrected_system_scores on that draw."""
    human, judge, _ = data
    H, J = human.matrix(), judge.matrix()
    seen = {}
    real = cs._methods_intervals

    def spy(fit, JL, JU, method, *args, **kw):
        r = real(fit, JL, JU, method, *args, **kw)
        seen.setdefault(method, []).append((fit.HL.copy(), r))
        return r

    monkeypatch.setattr(cs, "_methods_intervals", spy)
    me.corrected_coverage(human, judge, n_labelled=12, n_draws=1, methods=("ppi++", "classical", "judge_only"),
                          rng=5)
    monkeypatch.undo()
    rng = np.random.default_rng(5)
    li = np.sort(rng.choice(40, size=12, replace=False))
    lab = [J.columns[i] for i in li]
    for method, [(HL, r)] in seen.items():
        assert np.array_equal(HL, H.loc[:, lab].to_numpy())
        ref = me.corrected_system_scores(human, judge, labelled_topics=lab, method=method, differences=False)
        assert r["low"] == pytest.approx([e.ci.low for e in ref], abs=1e-12)
        assert r["high"] == pytest.approx([e.ci.high for e in ref], abs=1e-12)


def corrected_coverage_frame_test(data):
    human, judge, _ = data
    a = me.corrected_coverage(human, judge, n_labelled=(10, 20), n_draws=8, rng=1)
    b = me.corrected_coverage(human, judge, n_labelled=(10, 20), n_draws=8, rng=1)
    pd.testing.assert_frame_equal(a, b)                    # seeded
    assert list(a.columns) == ["n_labelled", "method", "coverage", "coverage_se", "worst_system", "mean_width",
                               "width_ratio", "n_draws", "n_systems", "n_topics", "seed"]
    assert a["method"].tolist() == list(cs.METHODS) * 2 and (a["seed"] == 1).all()
    cl = a[a["method"] == "classical"]
    assert (cl["width_ratio"] == 1.0).all()
    # human-only intervals narrow with more topics (√((1 − n/P)/n) falls from 10 to 20 topics)
    assert cl["mean_width"].iloc[1] < cl["mean_width"].iloc[0]
    # the judge-only interval ignores the judge's bias (0.2 nDCG on this sample): it covers no run
    assert (a.loc[a["method"] == "judge_only", "coverage"] == 0.0).all()
    assert ((a["coverage"] >= 0) & (a["coverage"] <= 1)).all()


# ------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------

def errors_name_the_problem_test(data):
    human, judge, lab = data
    H, J = human.matrix(), judge.matrix()
    call = me.corrected_system_scores
    with pytest.raises(me.InputError, match="not among the judge's 40 topics: nope"):
        call(human, judge, labelled_topics=[*lab, "nope"])
    with pytest.raises(me.InputError, match="1 labelled topic\\(s\\) have no human scores"):
        call(H.drop(columns=lab[0]), judge, labelled_topics=lab)
    with pytest.raises(me.InputError, match="repeats 1 topic"):
        call(human, judge, labelled_topics=[*lab, lab[0]])
    with pytest.raises(me.InputError, match="at least 2 labelled topics"):
        call(human, judge, labelled_topics=lab[:1])
    with pytest.raises(me.InputError, match="every one of the judge's 40 topics is labelled"):
        call(human, judge, labelled_topics=list(J.columns))
    with pytest.raises(me.InputError, match="1 system\\(s\\) have no human scores: run_07"):
        call(H.drop(index="run_07"), judge, labelled_topics=lab)
    with pytest.raises(me.InputError, match="have no judge scores: run_99"):
        call(human, judge, labelled_topics=lab, systems=["run_01", "run_99"])
    Hn = H.copy()
    Hn.loc["run_02", lab[3]] = np.nan
    with pytest.raises(me.InputError, match=f"missing human score\\(s\\), e.g. system 'run_02' on topic '{lab[3]}'"):
        call(Hn, judge, labelled_topics=lab)
    with pytest.raises(me.InputError, match="method must be one of"):
        call(human, judge, labelled_topics=lab, method="ppi+")
    with pytest.raises(me.InputError, match="lam= applies to method='ppi\\+\\+' only"):
        call(human, judge, labelled_topics=lab, method="ppi", lam=0.5)
    with pytest.raises(me.InputError, match="lam_optim_mode"):
        call(human, judge, labelled_topics=lab, lam_optim_mode="each")
    with pytest.raises(me.InputError, match="labelled_topics is required"):
        call(human, judge, labelled_topics=None)
    with pytest.raises(me.InputError, match="SystemScores"):
        call([[1.0]], judge, labelled_topics=lab)
    with pytest.raises(me.InputError, match="the human scores miss 1 of the judge's topics"):
        me.corrected_coverage(H.drop(columns=lab[0]), judge, n_draws=2)
    with pytest.raises(me.InputError, match="n_labelled must lie between 2 and 39"):
        me.corrected_coverage(human, judge, n_labelled=40, n_draws=2)


def few_labelled_topics_warn_test(data):
    human, judge, lab = data
    with pytest.warns(me.SmallSampleWarning, match="only 4 labelled topics"):
        me.corrected_system_scores(human, judge, labelled_topics=lab[:4], differences=False)
    # from 5 to 14 topics the warning names the coverage measured at 10 (issue #20); none at 15
    with pytest.warns(me.SmallSampleWarning, match="only 5 labelled topics: replayed on TREC DL"):
        me.corrected_system_scores(human, judge, labelled_topics=lab[:5], differences=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", me.SmallSampleWarning)
        me.corrected_system_scores(human, judge, labelled_topics=lab[:15], differences=False)


def result_keeps_its_parts_when_sliced_test(result):
    top = result.filter(system=["run_01", "run_02"])
    assert type(top).__name__ == "CorrectedSystemScores" and len(top) == 2
    assert top.design == result.design and len(top.differences) == len(result.differences)
    f = result.to_frame()
    assert f.columns[0] == "system" and (f["ci_method"] == "analytic").all()


# ------------------------------------------------------------------------------------------
# figures (metaeval.output.figures_inference): what is drawn equals the results given
# ------------------------------------------------------------------------------------------

def _gid(ax, gid):
    hits = [a for a in ax.get_children() if a.get_gid() == gid]
    assert len(hits) == 1, f"{len(hits)} artists with gid {gid!r}"
    return hits[0]


def plot_corrected_intervals_draws_the_results_test(data):
    from metaeval import figures
    from metaeval.output.figures_budget import METHOD_COLORS
    from metaeval.output.figures_inference import plot_corrected_intervals

    human, judge, lab = data
    res = {m: me.corrected_system_scores(human, judge, labelled_topics=lab, method=m, differences=False)
           for m in ("classical", "ppi++", "judge_only")}
    target = human.means()
    fig, ax = figures.subplots()
    assert plot_corrected_intervals(res, target=target, ax=ax) is ax
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    order = res["ppi++"].ranking.index.tolist()          # best (by PPI++) at the top
    assert ticks == order[::-1]
    ypos = dict(zip(ticks, ax.get_yticks()))
    for m, r in res.items():
        f = r.to_frame().set_index("system")
        line = _gid(ax, f"estimate:{m}")
        xs, ys = line.get_xdata(), line.get_ydata()
        assert line.get_color() == METHOD_COLORS[m]
        segs = _gid(ax, f"interval:{m}").get_segments()
        for x, y, seg in zip(xs, ys, segs):
            s = min(ypos, key=lambda k: abs(ypos[k] - y))       # the system whose row this is
            assert x == pytest.approx(f.loc[s, "estimate"], abs=1e-12)
            assert (seg[0][0], seg[1][0]) == pytest.approx((f.loc[s, "ci_low"], f.loc[s, "ci_high"]), abs=1e-12)
            assert seg[0][1] == pytest.approx(y)
    t = _gid(ax, "target")
    assert list(t.get_xdata()) == pytest.approx(target.loc[order].tolist())
    # judge-only above PPI++ above human-only within each system's row (the default order)
    yj, yp, yc = (_gid(ax, f"estimate:{m}").get_ydata()[0] for m in ("judge_only", "ppi++", "classical"))
    assert yj > yp > yc
    # a long frame works the same
    long = pd.concat([r.to_frame().assign(method=m) for m, r in res.items()])
    fig2, ax2 = figures.subplots()
    plot_corrected_intervals(long, ax=ax2, methods=["ppi++"])
    assert [c.get_gid() for c in ax2.collections] == ["interval:ppi++"]
    with pytest.raises(me.InputError, match="no results for method"):
        plot_corrected_intervals(res, methods=["ppi"])
    with pytest.raises(me.InputError, match="different systems"):
        plot_corrected_intervals({"a": res["ppi++"][:3], "b": res["classical"][:4]})
    with pytest.raises(me.InputError, match="target lacks"):
        plot_corrected_intervals(res, target=target.iloc[:5])


def plot_coverage_width_draws_the_frame_test(data):
    from metaeval.output.figures_inference import plot_coverage_width

    human, judge, _ = data
    cov = me.corrected_coverage(human, judge, n_labelled=(8, 16), n_draws=6, rng=2)
    axes = plot_coverage_width(cov)
    assert len(axes) == 2
    for m in cs.METHODS:
        sub = cov[cov["method"] == m]
        c = _gid(axes[0], f"coverage:{m}")
        assert list(c.get_xdata()) == [8, 16] and list(c.get_ydata()) == sub["coverage"].tolist()
        w = _gid(axes[1], f"width:{m}")
        assert list(w.get_ydata()) == sub["mean_width"].tolist()
        segs = _gid(axes[0], f"coverage_se:{m}").get_segments()
        assert [s[1][1] - s[0][1] for s in segs] == pytest.approx((2 * 1.96 * sub["coverage_se"]).tolist())
    assert _gid(axes[0], "nominal").get_ydata()[0] == 0.95
    # judge-only (coverage 0 on this sample) is named below the axis instead of squashing it
    assert axes[0].get_ylim()[0] > 0.5 and "judge only: 0.00" in _gid(axes[0], "off_scale").get_text()
    with pytest.raises(me.InputError, match="no rows for method"):
        plot_coverage_width(cov, methods=["ppi+"])
    with pytest.raises(me.InputError, match="missing column"):
        plot_coverage_width(cov.drop(columns="mean_width"))
