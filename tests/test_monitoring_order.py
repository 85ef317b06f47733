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


def satterthwaite_with_vanishing_df_is_undefined_test():
    # est = 1 − 0.5 − 0.5 + 0.001 with mean squares of 2, 4, 4, 8 df: ν = est² / Σ t²/df ≈ 1.6e-6, both
    # chi-square quantiles (scipy) underflow to 0 and the formula gives [inf, inf], above its own estimate;
    # (ν = 1e-3 gives a lower bound far above the estimate too). The interval is undefined, without warnings.
    import warnings

    from scipy import stats

    from metaeval.monitoring.repeats import _interval

    assert stats.chi2.ppf(0.975, 1e-3) < 1e-3                # the breakdown: q_{0.975}(ν) < ν
    ms = {(0,): (1.0, 2), (0, 1): (0.5, 4), (0, 2): (0.5, 4), (0, 1, 2): (0.001, 8)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high, how = _interval({(0,): 1, (0, 1): -1, (0, 2): -1, (0, 1, 2): 1}, ms, 0.95)
    assert np.isnan(low) and np.isnan(high) and how.startswith("Satterthwaite (undefined")
    # a well-determined combination is untouched: est = 1 − 0.2 − 0.2 + 0.1, ν ≈ 1.3
    ms = {(0,): (1.0, 20), (0, 1): (0.2, 40), (0, 2): (0.2, 40), (0, 1, 2): (0.1, 80)}
    low, high, how = _interval({(0,): 1, (0, 1): -1, (0, 2): -1, (0, 1, 2): 1}, ms, 0.95)
    nu = 0.7 ** 2 / (1 / 20 + 0.04 / 40 + 0.04 / 40 + 0.01 / 80)
    assert how == "Satterthwaite" and low == pytest.approx(0.7 * nu / stats.chi2.ppf(0.975, nu))
    assert high == pytest.approx(0.7 * nu / stats.chi2.ppf(0.025, nu))


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
