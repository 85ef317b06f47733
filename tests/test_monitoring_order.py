"""The stream's arrival order when ``order=`` / ``--order`` names a column of times, not counters.

A column read from a file holds text; timestamps sorted as text (or coerced to numbers, all NaN) put the
stream in the wrong order without a word, and the monitor then reports an alarm before the change. The
expected positions come from the same stream written in time order with no order column at all.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.cli import main


def _streams(tmp_path, fmt):
    rng = np.random.default_rng(20261202)
    h = rng.integers(0, 2, 400)
    base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(400) < 0.9, h, 1 - h)})
    n = 600
    hs = rng.integers(0, 2, n)
    acc = np.r_[np.full(300, 0.9), np.full(300, 0.6)]                # the judge is swapped at item 301
    jud = np.where(rng.random(n) < acc, hs, 1 - hs)
    # hourly from 2025-12-20: the stream crosses a year end, where m/d/Y text sorts out of time order
    times = pd.date_range("2025-12-20", periods=n, freq="h").strftime(fmt)
    forward = pd.DataFrame({"time": times, "reference": hs, "candidate": jud})
    shuffled = forward.iloc[rng.permutation(n)]
    paths = {}
    for name, df in (("base", base), ("forward", forward.drop(columns="time")), ("shuffled", shuffled)):
        paths[name] = tmp_path / f"{name}.csv"
        df.to_csv(paths[name], index=False)
    return base, forward, shuffled, paths


@pytest.mark.parametrize("fmt", ["%Y-%m-%dT%H:%M:%S", "%m/%d/%Y %H:%M"])
def monitor_sorts_a_time_column_by_time_test(tmp_path, fmt):
    base, forward, shuffled, _ = _streams(tmp_path, fmt)
    expected = me.monitor(base, forward.drop(columns="time"))
    got = me.monitor(base, shuffled.reset_index(drop=True), order="time")
    assert expected.alarm and expected.alarm_at > 300
    assert got.alarm_at == expected.alarm_at and got.p_value == expected.p_value


@pytest.mark.parametrize("fmt", ["%Y-%m-%dT%H:%M:%S", "%m/%d/%Y %H:%M"])
def cli_monitor_sorts_a_time_column_by_time_test(tmp_path, capsys, fmt):
    _, _, _, p = _streams(tmp_path, fmt)
    assert main(["monitor", str(p["base"]), str(p["forward"]), "--format", "json"]) == 0
    expected = capsys.readouterr().out
    assert main(["monitor", str(p["base"]), str(p["shuffled"]), "--order", "time", "--format", "json"]) == 0
    assert capsys.readouterr().out == expected


def study_monitor_sorts_a_time_column_by_time_test(tmp_path):
    import json

    _, _, _, p = _streams(tmp_path, "%m/%d/%Y %H:%M")
    results = {}
    for name, extra in (("forward", ""), ("shuffled", 'order = "time"\n')):
        toml = tmp_path / f"{name}.toml"
        toml.write_text(f'title = "t"\nseed = 1\n[data.stream]\nkind = "frame"\npath = "{p[name].name}"\n'
                        f'[data.baseline]\nkind = "frame"\npath = "{p["base"].name}"\n'
                        f'[[analysis]]\ntype = "monitor"\nname = "drift"\ndata = "stream"\nbaseline = "baseline"\n{extra}')
        me.run_study(toml, tmp_path / f"rep_{name}")
        results[name] = pd.read_csv(tmp_path / f"rep_{name}" / "tables" / "drift_monitor.csv")
        json.loads((tmp_path / f"rep_{name}" / "results.json").read_text())
    assert results["forward"]["alarm_at"].iloc[0] > 300
    assert results["shuffled"]["alarm_at"].iloc[0] == results["forward"]["alarm_at"].iloc[0]


@pytest.mark.parametrize("values, match", [(["3", "1", "soon"], "'soon' \\(row 3\\), neither a number nor a time"),
                                           ([3.0, None, 1.0], "row 2 of the arrival-order column 'time' is empty")])
def bad_arrival_times_are_one_line_errors_test(values, match):
    stream = pd.DataFrame({"time": values, "reference": [1, 1, 0], "candidate": [1, 0, 0]})
    base = pd.DataFrame({"reference": [1, 0, 1, 1], "candidate": [1, 0, 1, 0]})
    with pytest.raises(me.InputError, match=match) as e:
        me.monitor(base, stream, order="time")
    assert "\n" not in str(e.value)


def mls_interval_of_a_small_component_of_four_mean_squares_test():
    # est = 1 − 0.5 − 0.5 + 0.001 from mean squares with 2, 4, 4, 8 df (a 3-facet main effect near 0):
    # Satterthwaite's ν ≈ 1.6e-6 made its bounds [inf, inf]; the modified large-sample interval is finite
    # and holds the estimate, without warnings
    import warnings

    from metaeval.monitoring.repeats import _interval

    ms = {(0,): (1.0, 2), (0, 1): (0.5, 4), (0, 2): (0.5, 4), (0, 1, 2): (0.001, 8)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high, how = _interval({(0,): 1, (0, 1): -1, (0, 2): -1, (0, 1, 2): 1}, ms, 0.95)
    assert how.startswith("modified large-sample") and low < 0.001 < high < np.inf


def mls_interval_equals_the_gauge_reproducibility_formula_test():
    # Burdick, Borror & Montgomery (2005), Design and Analysis of Gauge R&R Studies, SIAM, the MLS interval
    # on σ²_repro = (MS_O + (p − 1) MS_PO − p MS_E)/(p r): two positive mean squares and one negative,
    # written here in that book's notation (G, H, G_24, G_34, G*_23) with p = 10 parts, o = 3 operators,
    # r = 2 replicates; the general form in repeats._mls must give the same bounds
    from scipy import stats

    from metaeval.monitoring.repeats import _interval

    p, o, r, al = 10, 3, 2, 0.05
    mso, mspo, mse = 4.0, 1.5, 0.8
    n2, n3, n4 = o - 1, (p - 1) * (o - 1), p * o * (r - 1)
    G2, G3, G4 = (1 - stats.f.ppf(al / 2, 1e12, n) for n in (n2, n3, n4))
    H2, H3, H4 = (stats.f.ppf(1 - al / 2, 1e12, n) - 1 for n in (n2, n3, n4))
    F11, F12 = stats.f.ppf(1 - al / 2, n2, n4), stats.f.ppf(al / 2, n2, n4)
    F7, F8 = stats.f.ppf(1 - al / 2, n3, n4), stats.f.ppf(al / 2, n3, n4)
    G24 = ((F11 - 1) ** 2 - G2 ** 2 * F11 ** 2 - H4 ** 2) / F11
    G34 = ((F7 - 1) ** 2 - G3 ** 2 * F7 ** 2 - H4 ** 2) / F7
    H24 = ((1 - F12) ** 2 - H2 ** 2 * F12 ** 2 - G4 ** 2) / F12
    H34 = ((1 - F8) ** 2 - H3 ** 2 * F8 ** 2 - G4 ** 2) / F8
    G23s = (1 - 1 / stats.f.ppf(1 - al / 2, p * (o - 1), 1e12)) ** 2 * p ** 2 / (p - 1) - G2 ** 2 / (p - 1) - G3 ** 2 * (p - 1)
    est = (mso + (p - 1) * mspo - p * mse) / (p * r)
    vl = (G2 ** 2 * mso ** 2 + G3 ** 2 * (p - 1) ** 2 * mspo ** 2 + H4 ** 2 * p ** 2 * mse ** 2 + G24 * p * mso * mse
          + G34 * (p - 1) * p * mspo * mse + G23s * (p - 1) * mso * mspo) / (p * r) ** 2
    vu = (H2 ** 2 * mso ** 2 + H3 ** 2 * (p - 1) ** 2 * mspo ** 2 + G4 ** 2 * p ** 2 * mse ** 2 + H24 * p * mso * mse
          + H34 * (p - 1) * p * mspo * mse) / (p * r) ** 2
    ms = {"O": (mso, n2), "PO": (mspo, n3), "E": (mse, n4)}
    low, high, _ = _interval({"O": 1 / (p * r), "PO": (p - 1) / (p * r), "E": -p / (p * r)}, ms, 0.95)
    assert low == pytest.approx(est - np.sqrt(vl), rel=1e-6) and high == pytest.approx(est + np.sqrt(vu), rel=1e-6)


def three_facet_intervals_cover_test():
    # 300 simulated 30 items × 3 runs × 3 judges designs (benchmarks/coverage_repeats.py's third design):
    # Satterthwaite's interval covered the run component in 0.78 ± 0.01 (NaN whenever its estimate was
    # ≤ 0); the modified large-sample interval covers every component near 0.95 (binomial SE ≈ 0.013)
    import itertools

    comps = {"item": 1.0, "run": 0.1, "judge": 0.3, "item:run": 0.1, "item:judge": 0.2, "run:judge": 0.05,
             "item:run:judge": 0.4}
    names, sizes = ("item", "run", "judge"), (30, 3, 3)
    grid = np.array(list(itertools.product(*[range(n) for n in sizes])))
    rng = np.random.default_rng(20261202)
    hits = dict.fromkeys(comps, 0)
    reps = 300
    for _ in range(reps):
        y = np.zeros(sizes)
        for k in (1, 2, 3):
            for S in itertools.combinations(range(3), k):
                shape = [sizes[i] if i in S else 1 for i in range(3)]
                y = y + rng.normal(0, np.sqrt(comps[":".join(names[i] for i in S)]), shape)
        df = pd.DataFrame({"item": grid[:, 0], "run": grid[:, 1], "judge": grid[:, 2], "y": y.ravel()})
        vc = me.variance_components(df, item="item", run="run", judge="judge", score="y").set_index("component")
        for c, t in comps.items():
            hits[c] += bool(vc.loc[c, "ci_low"] <= t <= vc.loc[c, "ci_high"])
    cover = {c: h / reps for c, h in hits.items()}
    assert all(v >= 0.90 for v in cover.values()), cover


def plot_monitor_places_a_sensitivity_alarm_among_all_anchors_test():
    # the chart's x axis counts every anchor pair; for sensitivity the monitor's alarm_anchors counts only
    # the human positives, so the alarm must be drawn at the anchors seen up to its stream position
    from metaeval import figures

    rng = np.random.default_rng(5)
    h = rng.integers(0, 2, 600)
    base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(600) < 0.9, h, 1 - h)})
    hs = rng.integers(0, 2, 800)
    sens = np.r_[np.full(300, 0.9), np.full(500, 0.4)]
    jud = np.where(hs == 1, (rng.random(800) < sens).astype(int), np.where(rng.random(800) < 0.9, 0, 1))
    stream = pd.DataFrame({"reference": hs, "candidate": jud})
    res = me.monitor(base, stream, statistic="sensitivity")
    assert res.alarm
    all_anchors = int(res.history["n_anchors"].iloc[res.alarm_at - 1])
    assert all_anchors == res.alarm_at and res.alarm_anchors < all_anchors      # every stream item is an anchor
    seq = me.agreement_sequence(stream, statistic="sensitivity", every=10)
    ax = figures.plot_monitor(seq, res)
    (alarm,) = [ln for ln in ax.lines if ln.get_gid() == "alarm"]
    assert alarm.get_xdata()[0] == all_anchors


def agreement_sequence_sorts_a_time_column_by_time_test(tmp_path):
    # the same pairs in time order (no order column) and shuffled with m/d/Y text times across a year end
    _, forward, shuffled, _ = _streams(tmp_path, "%m/%d/%Y %H:%M")
    expected = me.agreement_sequence(forward.drop(columns="time"), every=50)
    got = me.agreement_sequence(shuffled.reset_index(drop=True), order="time", every=50)
    pd.testing.assert_frame_equal(got, expected)
