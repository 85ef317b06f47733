"""Confidence sequences, the drift monitor and its planner (metaeval.monitoring)."""

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metaeval as me
from metaeval.monitoring.drift import AgreementMonitor, _Bets
from metaeval.monitoring.sequences import _log_mixture, bernoulli_cs

REF = Path(__file__).parent / "reference" / "confseq_values.json"


# --- the boundary: equal to confseq ------------------------------------------------------------
def test_bernoulli_cs_equals_confseq():
    # reference: confseq 0.0.11's bernoulli_confidence_interval (tests/reference/make_reference_confseq.py)
    ref = json.loads(REF.read_text())
    cases = ref["cases"]
    assert len(cases) > 300
    groups = {}
    for c in cases:
        groups.setdefault((c["alpha"], c["t_opt"]), []).append(c)
    for (alpha, t_opt), cs in groups.items():
        lo, hi = bernoulli_cs([c["successes"] for c in cs], [c["n"] for c in cs], alpha=alpha, t_opt=t_opt)
        np.testing.assert_allclose(lo, [c["bounds"][0] for c in cs], atol=1e-9, rtol=0)
        np.testing.assert_allclose(hi, [c["bounds"][1] for c in cs], atol=1e-9, rtol=0)


def test_bernoulli_cs_vectorised_equals_scalar():
    s, n = np.array([0, 3, 50, 999]), np.array([4, 10, 100, 1000])
    lo, hi = bernoulli_cs(s, n, alpha=0.05, t_opt=500)
    for i in range(4):
        l1, h1 = bernoulli_cs(int(s[i]), int(n[i]), alpha=0.05, t_opt=500)
        assert lo[i] == pytest.approx(float(l1), abs=1e-12) and hi[i] == pytest.approx(float(h1), abs=1e-12)


def test_bernoulli_cs_wider_than_a_fixed_interval():
    # property: a sequence valid at every n is wider than the fixed-n Wilson interval at that n
    for n in (20, 200, 2000, 20000):
        k = int(0.7 * n)
        lo, hi = bernoulli_cs(k, n)
        w_lo, w_hi = stats.binomtest(k, n).proportion_ci(method="wilson")
        assert lo < w_lo and hi > w_hi


def test_bernoulli_cs_rejects_bad_alpha():
    for a in (0, 1, -0.1, 2):
        with pytest.raises(me.InputError, match="alpha"):
            bernoulli_cs(1, 2, alpha=a)


# --- agreement_sequence: estimates equal the fixed-sample statistics ---------------------------------
def _stream(n=1500, acc=0.85, seed=0, k=2):
    rng = np.random.default_rng(seed)
    h = rng.integers(0, k, n)
    j = np.where(rng.random(n) < acc, h, rng.integers(0, k, n))
    return h, j


@pytest.mark.parametrize("k", [2, 4])
def test_estimates_equal_sklearn_and_krippendorff(k):
    import krippendorff
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    h, j = _stream(k=k, seed=k)
    acc = me.agreement_sequence(h, j, every=500)
    assert acc["estimate"].iloc[-1] == pytest.approx(accuracy_score(h, j), abs=1e-12)
    kap = me.agreement_sequence(h, j, statistic="cohen_kappa", every=700)
    assert list(kap["n"]) == [700, 1400, 1500]
    assert kap["estimate"].iloc[-1] == pytest.approx(cohen_kappa_score(h, j), abs=1e-12)
    assert kap["estimate"].iloc[0] == pytest.approx(cohen_kappa_score(h[:700], j[:700]), abs=1e-12)
    al = me.agreement_sequence(h, j, statistic="krippendorff_alpha", every=1500)
    ref = krippendorff.alpha(reliability_data=np.vstack([h, j]).astype(float), level_of_measurement="nominal")
    assert al["estimate"].iloc[-1] == pytest.approx(ref, abs=1e-12)


def test_class_statistics_equal_sklearn():
    from sklearn.metrics import precision_score, recall_score

    h, j = _stream(seed=3)
    last = lambda st: me.agreement_sequence(h, j, statistic=st, every=len(h))["estimate"].iloc[-1]
    assert last("sensitivity") == pytest.approx(recall_score(h, j), abs=1e-12)
    assert last("specificity") == pytest.approx(recall_score(1 - h, 1 - j), abs=1e-12)
    assert last("ppv") == pytest.approx(precision_score(h, j), abs=1e-12)
    assert last("npv") == pytest.approx(precision_score(1 - h, 1 - j), abs=1e-12)
    seq = me.agreement_sequence(h, j, statistic="sensitivity", every=len(h))
    assert seq["n_used"].iloc[-1] == int((h == 1).sum())


def test_proportion_bounds_are_the_boundary_at_each_look():
    h, j = _stream(n=300, seed=5)
    seq = me.agreement_sequence(h, j, every=1)
    agree = np.cumsum(h == j)
    lo, hi = bernoulli_cs(agree, np.arange(1, 301), alpha=0.05, t_opt=300)
    np.testing.assert_allclose(seq["ci_low"], lo, atol=1e-12)
    np.testing.assert_allclose(seq["ci_high"], hi, atol=1e-12)


def test_kappa_interval_contains_the_estimate_and_shrinks():
    h, j = _stream(n=5000, seed=7)
    seq = me.agreement_sequence(h, j, statistic="cohen_kappa", every=1000)
    assert (seq["ci_low"] <= seq["estimate"]).all() and (seq["estimate"] <= seq["ci_high"]).all()
    width = seq["ci_high"] - seq["ci_low"]
    assert (np.diff(width) < 0).all()


def test_paired_and_frame_inputs_with_order():
    h, j = _stream(n=400, seed=9)
    t = np.random.default_rng(1).permutation(400)
    frame = pd.DataFrame({"reference": h[np.argsort(t)], "candidate": j[np.argsort(t)], "time": np.sort(t)})
    shuffled = frame.sample(frac=1, random_state=2)
    a = me.agreement_sequence(shuffled, order="time", every=100)
    b = me.agreement_sequence(frame["reference"].to_numpy(), frame["candidate"].to_numpy(), every=100)
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
    hq = pd.DataFrame({"query_id": np.arange(400).astype(str), "doc_id": "d", "relevance": h})
    jq = pd.DataFrame({"query_id": np.arange(400).astype(str), "doc_id": "d", "relevance": j})
    paired = me.align(hq, jq)
    c = me.agreement_sequence(paired, every=400)
    assert c["estimate"].iloc[-1] == pytest.approx((h == j).mean())


@pytest.mark.parametrize("call, match", [
    (lambda: me.agreement_sequence([1, 0], [1]), "differ in length"),
    (lambda: me.agreement_sequence([1, np.nan], [1, 0]), "pair 2"),
    (lambda: me.agreement_sequence([1, 0], [1, 0], statistic="f1"), "unknown statistic"),
    (lambda: me.agreement_sequence([1, 0], [1, 0], every=0), "every"),
    (lambda: me.agreement_sequence([1, 0], [1, 0], confidence_level=1.5), "confidence_level"),
    (lambda: me.agreement_sequence([1, 0], [1, 0], cluster=["q1", "q1"]), "independently"),
    (lambda: me.agreement_sequence([1, 2, 3], [1, 2, 2], statistic="sensitivity"), "positive="),
    (lambda: me.agreement_sequence([1, 0]), "needs the judge"),
    (lambda: me.agreement_sequence(pd.DataFrame({"x": [1]})), "no column 'reference'"),
])
def test_bad_input_is_one_clear_error(call, match):
    with pytest.raises(me.InputError, match=match):
        call()


def test_graded_labels_with_positive():
    h = np.array([0, 1, 2, 3, 3, 2, 1, 0] * 20)
    j = np.array([0, 1, 2, 2, 3, 2, 0, 0] * 20)
    seq = me.agreement_sequence(h, j, statistic="sensitivity", positive=3, every=160)
    assert seq["estimate"].iloc[-1] == pytest.approx(0.5)


# --- coverage at every look (simulation; the full study is benchmarks/coverage_monitor.py) -----------
def test_sequence_covers_at_every_look():
    # 300 drift-free streams of 2,000 pairs: the truth is in every interval of the sequence in ≥ 95%
    # (the dual check: p is in the CS at n iff the mixture at p is below 1/alpha)
    rng = np.random.default_rng(11)
    p, n, reps = 0.8, 2000, 300
    x = rng.random((reps, n)) < p
    s = np.cumsum(x, axis=1)
    nn = np.arange(1, n + 1)
    with np.errstate(all="ignore"):
        logm = _log_mixture(np.full(s.shape, p), s / nn, nn, float(n), 0.05)
    ever_out = (logm >= np.log(1 / 0.05)).any(axis=1).mean()
    # the fixed-sample Wilson interval checked after every pair: the reason the sequence exists
    z = stats.norm.ppf(0.975)
    ph = s / nn
    centre = (ph + z * z / (2 * nn)) / (1 + z * z / nn)
    half = z / (1 + z * z / nn) * np.sqrt(ph * (1 - ph) / nn + z * z / (4 * nn * nn))
    wilson_out = ((p < centre - half) | (p > centre + half)).any(axis=1).mean()
    assert ever_out <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / reps)
    assert wilson_out > 0.25  # continuous looks at a fixed interval: far above 0.05


def test_kappa_sequence_covers_at_every_look():
    rng = np.random.default_rng(12)
    reps, n, acc = 60, 1500, 0.8
    misses = 0
    for _ in range(reps):
        h = (rng.random(n) < 0.3).astype(int)
        j = np.where(rng.random(n) < acc, h, (rng.random(n) < 0.3).astype(int))
        # population kappa: judge = human w.p. acc, else an independent draw with the same margin
        po = acc + (1 - acc) * (0.3 ** 2 + 0.7 ** 2)
        pe = 0.3 ** 2 + 0.7 ** 2
        truth = (po - pe) / (1 - pe)
        seq = me.agreement_sequence(h, j, statistic="cohen_kappa", every=25)
        misses += bool(((seq["ci_low"] > truth) | (seq["ci_high"] < truth)).any())
    assert misses / reps <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / reps)


# --- the monitor -------------------------------------------------------------------------------------
def test_single_updates_equal_batches():
    x = np.random.default_rng(0).random(700) < 0.8
    a, b = _Bets(0.85, "below"), _Bets(0.85, "below")
    e1 = np.array([a.push(v) for v in x])
    e2 = np.r_[b.push_many(x[:333]), b.push_many(x[333:])]
    np.testing.assert_allclose(np.log(e1), np.log(e2), atol=1e-9)
    m1, m2 = AgreementMonitor(850, 1000), AgreementMonitor(850, 1000)
    for v in x:
        m1.update(v)
    m2.update_many(x)
    assert m1.alarm_at == m2.alarm_at and m1.p_value == pytest.approx(m2.p_value)


def test_e_process_is_a_supermartingale_under_the_null():
    # E[e_n] <= 1 under H0 at the boundary (mean exactly c): Monte Carlo mean of the e-value at n = 300
    rng = np.random.default_rng(3)
    b = _Bets(0.8, "below")
    paths = b.paths(rng.random((4000, 300)) < 0.8)
    e = np.exp(paths[:, -1, :]).mean(axis=1)
    assert e.mean() <= 1 + 3 * e.std() / np.sqrt(4000)


def test_false_alarms_are_rare_and_drops_are_caught():
    rng = np.random.default_rng(4)
    alarms = 0
    for _ in range(100):
        m = AgreementMonitor(int(rng.binomial(500, 0.85)), 500)
        m.update_many(rng.random(3000) < 0.85)
        alarms += m.alarm
    assert alarms / 100 <= 0.05
    caught = 0
    for _ in range(50):
        m = AgreementMonitor(int(rng.binomial(500, 0.85)), 500)
        m.update_many(np.r_[rng.random(1000) < 0.85, rng.random(1000) < 0.7])
        caught += m.alarm and m.alarm_at > 1000
    assert caught / 50 >= 0.9


def test_p_value_and_alarm_agree():
    m = AgreementMonitor(85, 100, alpha=0.05)
    m.update_many(np.r_[np.ones(50), np.zeros(50)])
    assert m.alarm == (m.p_value <= 0.05)
    assert m.alarm


def _monitor_stream(rng, judge_after=0.85, rate_after=0.4, n=4000):
    h = (rng.random(n) < 0.4).astype(int)
    anchor = rng.random(n) < 0.25
    acc = np.r_[np.full(n // 2, 0.85), np.full(n - n // 2, judge_after)]
    # production items: what the systems produce; the judge says positive at the rate of the systems
    prod_rate = np.r_[np.full(n // 2, 0.4), np.full(n - n // 2, rate_after)]
    j_anchor = np.where(rng.random(n) < acc, h, 1 - h)
    j_prod = (rng.random(n) < prod_rate).astype(int)
    return pd.DataFrame({"reference": np.where(anchor, h, np.nan), "candidate": np.where(anchor, j_anchor, j_prod)})


def test_monitor_attributes_judge_and_systems():
    rng = np.random.default_rng(8)
    h = (rng.random(600) < 0.4).astype(int)
    base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(600) < 0.85, h, 1 - h)})
    base_prod = (rng.random(1000) < 0.4).astype(int)
    judge = me.monitor(base, _monitor_stream(rng, judge_after=0.65), delta=0.02, baseline_production=base_prod)
    assert judge.alarm and judge.attribution == "judge" and judge.alarm_at > 2000
    systems = me.monitor(base, _monitor_stream(rng, rate_after=0.6), delta=0.02, baseline_production=base_prod)
    assert not systems.alarm and systems.attribution == "systems" and systems.production_alarm_at > 2000
    quiet = me.monitor(base, _monitor_stream(rng), delta=0.02, baseline_production=base_prod)
    assert quiet.attribution == "none" and quiet.p_value > 0.05
    assert "attribution: judge" in str(judge)
    assert list(judge.history.columns) == ["position", "anchor", "n_anchors", "e_value", "production_e_value"]
    assert len(judge.history) == 4000


@pytest.mark.parametrize("kw, match", [
    ({"statistic": "kappa"}, "unknown statistic"),
    ({"alpha": 0}, "alpha"),
    ({"delta": -0.1}, "delta"),
])
def test_monitor_bad_options(kw, match):
    base = pd.DataFrame({"reference": [1, 0, 1], "candidate": [1, 0, 0]})
    with pytest.raises(me.InputError, match=match):
        me.monitor(base, pd.DataFrame({"reference": [1], "candidate": [1]}), **kw)


def test_monitor_needs_judge_labels_and_counts():
    base = pd.DataFrame({"reference": [1, 0, 1], "candidate": [1, 0, 0]})
    with pytest.raises(me.InputError, match="no judge label"):
        me.monitor(base, pd.DataFrame({"reference": [1, 0], "candidate": [1, None]}))
    with pytest.raises(me.InputError, match="impossible"):
        AgreementMonitor(5, 4)
    with pytest.raises(me.InputError, match="baseline rate"):
        AgreementMonitor(5, 10).update_production([1, 0])


# --- the planner -------------------------------------------------------------------------------------
def test_plan_reaches_its_power_in_an_independent_simulation():
    plan = me.plan_anchors(0.85, 0.10, days=5, n_simulations=400, rng=1)
    n = plan["per_day"] * 5
    rng = np.random.default_rng(99)
    hits = 0
    for _ in range(300):
        m = AgreementMonitor.__new__(AgreementMonitor)
        m.alpha, m.delta, m.threshold = 0.05, 0.0, 0.85
        m._anchor, m.alarm_at, m._rate = _Bets(0.85, "below"), None, None
        m.update_many(rng.random(n) < 0.75)
        hits += m.alarm
    assert hits / 300 >= 0.8 - 3 * np.sqrt(0.8 * 0.2 / 300)
    smaller = me.plan_anchors(0.85, 0.20, days=5, n_simulations=400, rng=1)
    assert smaller["per_day"] < plan["per_day"]


def test_plan_refuses_a_drop_within_the_tolerance():
    with pytest.raises(me.InputError, match="not larger"):
        me.plan_anchors(0.85, 0.02, days=5, delta=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = me.plan_anchors(0.85, 0.3, days=1, n_simulations=100, max_per_day=1)
    assert out["per_day"] in (None, 1)


# --- grading noise: variance components, reliability, flips --------------------------------------------
GSTUDY = Path(__file__).parent / "reference" / "gstudy_lme4.json"


def test_variance_components_equal_lme4_reml():
    # reference: lme4 1.1-31 REML on balanced crossed designs (tests/reference/make_reference_gstudy.R);
    # in a balanced design the ANOVA estimates are the REML ones when positive. (statsmodels' MixedLM
    # stops short of the REML optimum on the three-facet design, so lme4 is the reference.)
    ref = json.loads(GSTUDY.read_text())
    assert ref["lme4"] == "1.1.31"
    for case in ref["cases"]:
        three = "judge" in case
        df = pd.DataFrame({k: case[k] for k in ("item", "run", "judge", "score") if k in case})
        vc = me.variance_components(df.sample(frac=1, random_state=0), item="item", run="run",
                                    judge="judge" if three else None, score="score")
        ours = dict(zip(vc["component"], vc["variance"]))
        residual = "item:run:judge" if three else "item:run"
        for name, value in case["reml"].items():
            assert ours[residual if name == "Residual" else name] == pytest.approx(value, abs=1e-6, rel=1e-6)


def test_variance_components_two_facets_by_hand():
    # items × runs: σ²_i = (MS_i − MS_e)/n_r, σ²_r = (MS_r − MS_e)/n_i (expected mean squares)
    rng = np.random.default_rng(2)
    y = rng.normal(size=(12, 3)) + rng.normal(size=(12, 1))
    df = pd.DataFrame({"item": np.repeat(np.arange(12), 3), "run": np.tile(["a", "b", "c"], 12), "score": y.ravel()})
    gm = y.mean()
    ms_i = 3 * ((y.mean(1) - gm) ** 2).sum() / 11
    ms_r = 12 * ((y.mean(0) - gm) ** 2).sum() / 2
    resid = y - y.mean(1, keepdims=True) - y.mean(0, keepdims=True) + gm
    ms_e = (resid ** 2).sum() / 22
    vc = me.variance_components(df, item="item", run="run", score="score").set_index("component")
    assert vc.loc["item", "variance"] == pytest.approx((ms_i - ms_e) / 3)
    assert vc.loc["run", "variance"] == pytest.approx((ms_r - ms_e) / 12)
    assert vc.loc["item:run", "variance"] == pytest.approx(ms_e)
    # the residual's interval is the exact chi-square one
    lo = ms_e * 22 / stats.chi2.ppf(0.975, 22)
    assert vc.loc["item:run", "ci_low"] == pytest.approx(lo)


def test_variance_component_intervals_cover():
    # coverage of the item and residual intervals in an items × runs design (the full study, with
    # more designs and seeds, is benchmarks/coverage_repeats.py)
    rng = np.random.default_rng(5)
    hit = {"item": 0, "item:run": 0, "run": 0}
    reps, ni, nr = 300, 40, 4
    item, run = np.repeat(np.arange(ni), nr), np.tile(np.arange(nr), ni)
    for _ in range(reps):
        y = rng.normal(0, 1, ni)[item] + rng.normal(0, 0.5, nr)[run] + rng.normal(0, 0.7, ni * nr)
        vc = me.variance_components(pd.DataFrame({"item": item, "run": run, "y": y}), item="item", run="run",
                                    score="y").set_index("component")
        for c, truth in (("item", 1.0), ("item:run", 0.49), ("run", 0.25)):
            hit[c] += vc.loc[c, "ci_low"] <= truth <= vc.loc[c, "ci_high"]
    slack = 3 * np.sqrt(0.05 * 0.95 / reps)
    for c in hit:
        assert hit[c] / reps >= 0.95 - slack, (c, hit[c] / reps)


def test_grading_noise_reliability_flips_and_repeats():
    rng = np.random.default_rng(1)
    item, run = np.repeat(np.arange(400), 5), np.tile(np.arange(5), 400)
    true = rng.normal(0, 1, 400)
    y = true[item] + rng.normal(0, 1, 2000)
    g = me.grading_noise(pd.DataFrame({"i": item, "r": run, "y": y}), item="i", run="r", score="y",
                         threshold=0.0, human_reliability=0.81)
    assert g.reliability == pytest.approx(0.5, abs=0.08)  # σ²_i / (σ²_i + σ²_e) = 1 / 2
    assert g.reliability_mean == pytest.approx(5 * g.reliability / (1 + 4 * g.reliability))
    assert g.ceiling == pytest.approx(np.sqrt(g.reliability * 0.81))
    assert g.repeats_needed == me.monitoring.repeats.repeats_for_reliability(g.reliability, 0.8)
    # flips counted by hand
    passed = (y >= 0).reshape(400, 5)
    assert g.flip_rate == pytest.approx(float((passed.any(1) & ~passed.all(1)).mean()))
    k = passed.sum(1)
    assert g.pair_flip_rate == pytest.approx(float((2 * k * (5 - k) / 20).mean()))
    assert g.borderline_flip_rate >= g.flip_rate
    assert "reliability" in str(g)


def test_spearman_brown_and_repeats():
    from metaeval.monitoring.repeats import repeats_for_reliability, spearman_brown

    assert spearman_brown(0.5, 1) == pytest.approx(0.5)
    assert spearman_brown(0.5, 3) == pytest.approx(0.75)
    for rel in (0.2, 0.45, 0.6, 0.79):
        k = repeats_for_reliability(rel, 0.8)
        assert spearman_brown(rel, k) >= 0.8 - 1e-12 and (k == 1 or spearman_brown(rel, k - 1) < 0.8)
    with pytest.raises(me.InputError, match="no number of repeats"):
        repeats_for_reliability(0.0, 0.8)


@pytest.mark.parametrize("frame, kw, match", [
    (pd.DataFrame({"i": [1, 1, 2], "r": [1, 2, 1], "y": [1, 2, 3]}), {}, "not balanced"),
    (pd.DataFrame({"i": [1, 1, 2, 2], "r": [1, 1, 1, 2], "y": [1, 2, 3, 4]}), {}, "repeat an"),
    (pd.DataFrame({"i": [1, 1, 2, 2], "r": [1, 2, 1, 2], "y": [1, "x", 3, 4]}), {}, "not a number"),
    (pd.DataFrame({"i": [1, 1, 2, 2], "r": [1, 2, 1, 2], "y": [1, 2, 3, 4]}), {"score": "z"}, "'z'"),
    (pd.DataFrame({"i": [1, 2], "r": [1, 1], "y": [1, 2]}), {}, "at least two"),
])
def test_variance_components_bad_input(frame, kw, match):
    with pytest.raises(me.InputError, match=match):
        me.variance_components(frame, **{"item": "i", "run": "r", "score": "y", **kw})


# --- study, command line, figure ------------------------------------------------------------------------
SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"


def test_monitor_study_runs_and_says_judge(tmp_path):
    # data_samples/monitor_like (make_samples.py, seed 20261202): the judge falls from 0.85 to 0.65 on day 20
    import json as _json

    me.run_study(SAMPLES / "monitor_study.toml", tmp_path / "rep")
    results = _json.loads((tmp_path / "rep" / "results.json").read_text())
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "attribution: judge" in text
    verdict = pd.read_csv(tmp_path / "rep" / "tables" / "drift_monitor.csv")
    assert bool(verdict["alarm"].iloc[0]) and verdict["attribution"].iloc[0] == "judge"
    stream = pd.read_csv(SAMPLES / "monitor_like" / "stream.csv")
    assert stream.loc[verdict["alarm_at"].iloc[0] - 1, "day"] >= 20   # never before the change
    comps = pd.read_csv(tmp_path / "rep" / "tables" / "repeats_components.csv")
    assert list(comps["component"]) == ["item", "run", "item:run"]
    assert (tmp_path / "rep" / "figures" / "drift_monitor.png").exists()
    assert results


def test_monitor_command_line(capsys):
    from metaeval.cli import main

    d = SAMPLES / "monitor_like"
    code = main(["monitor", str(d / "baseline.csv"), str(d / "stream.csv"), "--order", "order", "--delta", "0.02",
                 "--baseline-production", str(d / "baseline_production.csv")])
    assert code == 0 and "attribution: judge" in capsys.readouterr().out
    assert main(["monitor", str(d / "baseline.csv"), str(d / "stream.csv"), "--alpha", "2"]) == 2
    assert "--alpha must be in (0, 1)" in capsys.readouterr().err
    assert main(["monitor", str(d / "baseline.csv"), str(d / "stream.csv"), "--candidate", "judge"]) == 2
    assert "no column 'judge'" in capsys.readouterr().err


def test_plot_monitor_draws_threshold_and_alarm():
    from metaeval import figures

    rng = np.random.default_rng(8)
    h = (rng.random(600) < 0.4).astype(int)
    base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(600) < 0.85, h, 1 - h)})
    stream = _monitor_stream(rng, judge_after=0.6)
    res = me.monitor(base, stream, delta=0.02)
    anchors = stream.dropna(subset=["reference"]).reset_index(drop=True)
    seq = me.agreement_sequence(anchors, every=10)
    ax = figures.plot_monitor(seq, res)
    gids = {a.get_gid() for a in ax.lines}
    assert {"estimate", "threshold", "alarm"} <= gids
    alarm = next(a for a in ax.lines if a.get_gid() == "alarm")
    assert alarm.get_xdata()[0] == res.alarm_anchors
    thr = next(a for a in ax.lines if a.get_gid() == "threshold")
    assert thr.get_ydata()[0] == pytest.approx(res.threshold)
    with pytest.raises(me.InputError, match="missing column"):
        figures.plot_monitor(pd.DataFrame({"n": [1]}))


_SHARED = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


@pytest.mark.realdata
@pytest.mark.skipif(not (_SHARED / "llmjudge" / "human_qrels").is_dir(),
                    reason=f"shared data not found at {_SHARED} (set METAEVAL_SHARED_DATA)")
def test_estimates_at_every_look_on_llmjudge():
    """A real stream: LLMJudge's NIST labels against one submission (in the qrels' row order),
    graded 0-3 and binarised at 2. At every look the estimate (the registry's kernel on the running
    table) equals scikit-learn on the prefix, and n_used is the subsequence the sequence is a mean
    over (human positives for sensitivity, judge positives for PPV)."""
    from sklearn.metrics import accuracy_score, cohen_kappa_score, precision_score, recall_score

    d = _SHARED / "llmjudge"
    p = me.align(d / "human_qrels" / "llmjudge_test_qrel_idx.txt", d / "llm_judgments" / "NISTRetrieval-instruct0.txt",
                 scale=me.Scale((0, 1, 2, 3)), out_of_scale="clip")
    h, j = p.data["reference"].to_numpy(int), p.data["candidate"].to_numpy(int)
    hb, jb = (h >= 2).astype(int), (j >= 2).astype(int)
    checks = {"accuracy": (h, j, accuracy_score), "cohen_kappa": (h, j, cohen_kappa_score),
              "sensitivity": (hb, jb, recall_score), "ppv": (hb, jb, precision_score),
              "specificity": (1 - hb, 1 - jb, recall_score), "npv": (1 - hb, 1 - jb, precision_score)}
    for st, (a, b, ref) in checks.items():
        seq = me.agreement_sequence(a if st in ("accuracy", "cohen_kappa") else hb,
                                    b if st in ("accuracy", "cohen_kappa") else jb, statistic=st, every=600)
        for n, est in zip(seq["n"], seq["estimate"]):
            assert est == pytest.approx(ref(a[:n], b[:n]), abs=1e-12), (st, n)
        assert (seq["ci_low"] <= seq["estimate"]).all() and (seq["estimate"] <= seq["ci_high"]).all()
    sens = me.agreement_sequence(hb, jb, statistic="sensitivity", every=600)
    assert list(sens["n_used"]) == [int(hb[:n].sum()) for n in sens["n"]]
    ppv = me.agreement_sequence(hb, jb, statistic="ppv", every=600)
    assert list(ppv["n_used"]) == [int(jb[:n].sum()) for n in ppv["n"]]


def test_text_labels_that_do_not_sort_together():
    """Hostile labels: text with spaces and accents beside a number (they do not compare), the
    positive class named: the estimates equal scikit-learn on the same labels as text."""
    from sklearn.metrics import accuracy_score, recall_score

    rng = np.random.default_rng(11)
    pool = np.array(["rélevant ✓", "not relevant", 3], dtype=object)
    h = pool[rng.integers(0, 3, 400)]
    j = np.where(rng.random(400) < 0.7, h, pool[rng.integers(0, 3, 400)])
    acc = me.agreement_sequence(h, j, every=100)
    assert acc["estimate"].tolist() == pytest.approx(
        [accuracy_score(h[:n].astype(str), j[:n].astype(str)) for n in acc["n"]], abs=1e-12)
    sens = me.agreement_sequence(h, j, statistic="sensitivity", positive="rélevant ✓", every=400)
    hs, js = (h == "rélevant ✓").astype(int), (j == "rélevant ✓").astype(int)
    assert sens["estimate"].iloc[-1] == pytest.approx(recall_score(hs, js), abs=1e-12)
