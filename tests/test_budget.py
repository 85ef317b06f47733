"""Label budgets (metaeval.inference.budget).

Expected numbers come from
* simulation: ``ppi_mean`` intervals on random labelled subsets of a fixed finite population —
  their mean width and rejection rate against the projected width and power;
* textbook formulas: the human-only width 2·t·s·√((1 − n/P)/n) (Cochran 1977, §2.5), the
  infinite-population PPI variance S²(y − ŷ)/n + S²(ŷ_unl)/N (Angelopoulos et al. 2023), the
  noncentral-t power (scipy.stats.nct);
* a scan of every n for :func:`required_labels`' bisection.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval import InputError
from metaeval.inference.budget import BUDGET_COLUMNS, label_budget, required_labels
from metaeval.inference.ppi import ppi_lambda, ppi_mean

P = 200


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(12)
    y = np.clip(rng.beta(2, 3, P), 0, 1)                           # nDCG-like per-topic scores
    yhat = np.clip(0.7 * y + 0.2 + rng.normal(0, 0.08, P), 0, 1)  # a biased, noisy judge
    return y, yhat


def _simulate(y, yhat, n, method, reps, rng, null=None):
    widths, rejected = [], 0
    for _ in range(reps):
        idx = rng.permutation(len(y))
        lab, unl = idx[:n], idx[n:]
        # the budget projects the analytic (t) interval; ppi_mean's default for a tuned λ is the
        # jackknife, which is 0–15% wider at small n (metaeval/inference/ppi.py's coverage table)
        e = ppi_mean(y[lab], yhat[lab], yhat[unl], method=method, population_size=len(y), null=null,
                     ci_method="analytic")
        widths.append(e.ci.high - e.ci.low)
        rejected += null is not None and e.pvalue < 0.05
    return float(np.mean(widths)), rejected / reps


@pytest.mark.parametrize("n", [15, 40])
def test_projected_width_matches_simulated_intervals(population, n):
    """Pilot = the population's moments; simulated ppi_mean widths (300 draws) within 3% (measured
    with 1000 draws: ratios 0.984–1.004 at n = 15, 30, 60)."""
    y, yhat = population
    pred = label_budget(y, yhat, yhat, n=n, population_size=P, methods=("ppi++", "classical"))
    rng = np.random.default_rng(n)
    for method in ("ppi++", "classical"):
        sim, _ = _simulate(y, yhat, n, method, 300, rng)
        want = pred.loc[pred.method == method, "width"].item()
        assert sim == pytest.approx(want, rel=0.03), method


@pytest.mark.slow
def test_projected_power_matches_simulated_rejections(population):
    """Power of ppi_mean's test of θ = θ_true − Δ, 1500 draws (MC SE ≤ 0.013), within 0.04."""
    y, yhat = population
    n, delta = 20, 0.04
    pred = label_budget(y, yhat, yhat, n=n, population_size=P, difference=delta, methods=("ppi++", "classical"))
    rng = np.random.default_rng(5)
    for method in ("ppi++", "classical"):
        _, rate = _simulate(y, yhat, n, method, 1500, rng, null=float(y.mean()) - delta)
        assert rate == pytest.approx(pred.loc[pred.method == method, "power"].item(), abs=0.04), method


def test_human_only_width_is_the_textbook_t_interval():
    rng = np.random.default_rng(1)
    y = rng.normal(0.4, 0.15, 25)
    yhat = y + rng.normal(0, 0.1, 25)
    pool = rng.normal(0.4, 0.18, 175)
    b = label_budget(y, yhat, pool, n=[10, 50], population_size=200, methods=["classical"])
    s = np.std(y, ddof=1)
    for n in (10, 50):
        want = 2 * stats.t.ppf(0.975, n - 1) * s * math.sqrt((1 - n / 200) / n)
        assert b.loc[b.n == n, "width"].item() == pytest.approx(want, rel=1e-10)
        assert b.loc[b.n == n, "n_unlabelled"].item() == 200 - n


def test_infinite_population_ppi_variance():
    rng = np.random.default_rng(2)
    y = rng.normal(size=40)
    yhat = 0.8 * y + rng.normal(0.3, 0.5, 40)
    pool = 0.8 * rng.normal(size=500) + rng.normal(0.3, 0.5, 500)
    b = label_budget(y, yhat, pool, n=[12, 90], methods=["ppi"], quantile="normal")
    for n in (12, 90):
        # quantile="normal" goes with ppi_py's 1/n variances: S² · (n − 1)/n
        var = np.var(y - yhat, ddof=1) * (n - 1) / n / n + np.var(pool, ddof=1) * (499 / 500) / 500
        assert b.loc[b.n == n, "se"].item() == pytest.approx(math.sqrt(var), rel=1e-10)
        assert b.loc[b.n == n, "width"].item() == pytest.approx(2 * stats.norm.ppf(0.975) * math.sqrt(var), rel=1e-10)


def test_tuned_lambda_at_the_pilot_size_is_ppi_lambda():
    """At n = the pilot's size the moment-matched sample gives exactly ppi_lambda on the pilot."""
    rng = np.random.default_rng(3)
    y = rng.normal(0.5, 0.2, 300)
    yhat = 0.9 * y + rng.normal(0.1, 0.08, 300)
    b = label_budget(y[:30], yhat[:30], yhat[30:], n=30, population_size=300, methods=["ppi++"])
    assert b["lam"].item() == pytest.approx(ppi_lambda(y[:30], yhat[:30], yhat[30:], population_size=300), abs=1e-10)
    # and the variance is ppi_mean's (t quantile: its standard error)
    e = ppi_mean(y[:30], yhat[:30], yhat[30:], population_size=300, ci_method="analytic")
    assert b["se"].item() == pytest.approx(e.se, rel=1e-10)
    assert b["width"].item() == pytest.approx(e.ci.high - e.ci.low, rel=1e-10)


def test_power_and_mdd():
    rng = np.random.default_rng(4)
    y = rng.normal(0.0, 0.1, 30)
    yhat = y + rng.normal(0, 0.05, 30)
    pool = rng.normal(0.0, 0.11, 300)
    b = label_budget(y, yhat, pool, n=[10, 40, 160], difference=0.03, methods=["classical"])
    assert b.power.is_monotonic_increasing and b.mdd.is_monotonic_decreasing
    for _, r in b.iterrows():
        q = stats.t.ppf(0.975, r.n - 1)
        d = stats.nct(r.n - 1, 0.03 / r.se)
        assert r.power == pytest.approx(d.sf(q) + d.cdf(-q), rel=1e-10)
        nc = r.mdd / r.se
        d = stats.nct(r.n - 1, nc)
        assert d.sf(q) + d.cdf(-q) == pytest.approx(0.8, abs=1e-8)
    assert list(b.columns) == BUDGET_COLUMNS


def test_required_labels_equals_a_scan(population):
    y, yhat = population
    pilot = slice(0, 25)
    for target in (dict(width=0.08), dict(difference=0.05, power=0.9)):
        r = required_labels(y[pilot], yhat[pilot], yhat[25:], population_size=P, **target).set_index("method")
        assert r.n.max() < 120                            # the scan below covers the answers
        scan = label_budget(y[pilot], yhat[pilot], yhat[25:], n=range(3, 121), population_size=P,
                            difference=target.get("difference"), power=target.get("power", 0.8))
        for method, g in scan.groupby("method"):
            ok = g.width <= target["width"] if "width" in target else g.power >= target["power"]
            assert r.loc[method, "n"] == g.n[ok].min(), (method, target)
        assert r.loc["ppi++", "n"] < r.loc["classical", "n"]
        assert r.loc["classical", "saving"] == 0


def test_required_labels_unreachable_is_nan():
    rng = np.random.default_rng(6)
    y = rng.normal(size=20)
    r = required_labels(y, y + rng.normal(size=20), rng.normal(size=50), width=1e-6, population_size=70)
    assert r.n.isna().all()


def test_per_system_frames_and_system_scores():
    import metaeval as me

    d = me.datasets.load("trec_dl_like")
    human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    topics = list(judge.topics)
    pilot = topics[:12]
    h = human.subset(topics=pilot)
    b = label_budget(h, judge, n=[12, 20], methods=["ppi++", "classical"])
    assert set(b.system) == set(judge.systems) and (b.population_size == len(topics)).all()
    # the same from topics × systems frames
    H = human.matrix(topics=pilot).T
    J = judge.matrix(topics=pilot).T
    U = judge.matrix(topics=topics[12:]).T
    b2 = label_budget(H, J, U, n=[12, 20], methods=["ppi++", "classical"], population_size=len(topics))
    pd.testing.assert_frame_equal(b.reset_index(drop=True), b2.reset_index(drop=True), check_dtype=False)
    r = required_labels(h, judge, width=0.15, methods=["ppi++", "classical"])
    allrow = r[r.system == "all"].set_index("method")
    per = r[r.system != "all"]
    for m in ("ppi++", "classical"):
        ns = per[per.method == m].n
        want = ns.max() if ns.notna().all() else np.nan
        assert allrow.loc[m, "n"] == want or (np.isnan(want) and np.isnan(allrow.loc[m, "n"]))


def test_errors():
    y = np.arange(5.0)
    with pytest.raises(InputError, match="at least 3"):
        label_budget(y[:2], y[:2], y)
    with pytest.raises(InputError, match="different lengths"):
        label_budget(y, y[:4], y)
    with pytest.raises(InputError, match="at least 3"):
        label_budget(y, y + 1, y, n=[2])
    with pytest.raises(InputError, match="unlabelled"):
        label_budget(y, y + 1, y, n=[20], population_size=21)
    with pytest.raises(InputError, match="methods"):
        label_budget(y, y + 1, y, methods=["judge_only"])
    with pytest.raises(InputError, match="one target"):
        required_labels(y, y + 1, y)


# --------------------------------------------------------------------------------------------
# the figure (metaeval.output.figures_budget)
# --------------------------------------------------------------------------------------------

def _budget_frame():
    rng = np.random.default_rng(2)
    y = rng.normal(0.5, 0.2, 120)
    yhat = 0.9 * y + rng.normal(0.1, 0.08, 120)
    H = pd.DataFrame({"s1": y[:20], "s2": y[:20] * 0.8, "s3": y[:20] + 0.1})
    J = pd.DataFrame({"s1": yhat[:20], "s2": yhat[:20] * 0.8, "s3": yhat[:20] + 0.05})
    U = pd.DataFrame({"s1": yhat[20:], "s2": yhat[20:] * 0.8, "s3": yhat[20:] + 0.05})
    return label_budget(H, J, U, n=[5, 10, 20, 40, 80], population_size=120, difference=0.05)


def plot_budget_curve_draws_the_frame_test():
    from metaeval import figures
    from metaeval.output.figures_budget import METHOD_COLORS, plot_budget_curve

    b = _budget_frame()
    fig, ax = figures.subplots()
    assert plot_budget_curve(b, target=0.1, ax=ax) is ax
    for m in ("ppi++", "ppi", "classical"):
        (line,) = [a for a in ax.lines if a.get_gid() == f"curve:{m}"]
        med = b[b.method == m].groupby("n")["width"].median()
        np.testing.assert_allclose(line.get_xdata(), med.index)
        np.testing.assert_allclose(line.get_ydata(), med.to_numpy())
        assert line.get_color() == METHOD_COLORS[m]
        (req,) = [a for a in ax.lines if a.get_gid() == f"required:{m}"]
        assert req.get_xdata()[0] == med.index[np.argmax(med.to_numpy() <= 0.1)]
        band = [c for c in ax.collections if c.get_gid() == f"band:{m}"]
        assert len(band) == 1
    assert ax.get_xscale() == "log"
    # one system: no band; power on the y axis
    fig, ax = figures.subplots()
    plot_budget_curve(b, y="power", system="s2", target=0.8, ax=ax)
    assert not [c for c in ax.collections if str(c.get_gid()).startswith("band:")]
    (line,) = [a for a in ax.lines if a.get_gid() == "curve:classical"]
    want = b[(b.system == "s2") & (b.method == "classical")].sort_values("n")["power"]
    np.testing.assert_allclose(line.get_ydata(), want.to_numpy())


def plot_budget_curve_errors_test():
    from metaeval.output.figures_budget import plot_budget_curve

    b = _budget_frame()
    with pytest.raises(InputError, match="no system"):
        plot_budget_curve(b, system="nope")
    with pytest.raises(InputError, match="all NaN"):
        plot_budget_curve(b.assign(power=np.nan), y="power")
    with pytest.raises(InputError, match="missing column"):
        plot_budget_curve(b.drop(columns="width"))

