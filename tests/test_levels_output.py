"""The study analysis type ``levels`` and the figures of metaeval.output.figures_levels.

Expected values: the study's table equals ``metaeval.level_correlation`` called directly on the same
matrices with the study's seed (the study adds no computation of its own); the figures draw the
result's estimates and interval ends, and the systems' mean scores.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.output.figures_levels import plot_level_correlations, plot_system_scatter


def _long(seed=0, S=6, I=15):
    g = np.random.default_rng(seed)
    H = np.round(g.normal(3, 1, (S, I)) + g.normal(0, 0.5, (S, 1)), 1)
    A = np.round(H + g.normal(0, 0.7, H.shape), 2)
    B = np.round(H + g.normal(0, 1.5, H.shape), 2)
    rows = [{"system": f"sys{s}", "item": f"doc{i}", "human": "" if (s, i) == (0, 0) else H[s, i],
             "judge_a": A[s, i], "judge_b": B[s, i]} for s in range(S) for i in range(I)]
    return pd.DataFrame(rows)


def test_study_levels_matches_the_function(tmp_path):
    df = _long()
    df.to_csv(tmp_path / "scores.csv", index=False)
    study = {"title": "levels", "seed": 7, "n_resamples": 200,
             "data": {"scores": {"kind": "frame", "path": str(tmp_path / "scores.csv")}},
             "analysis": [{"type": "levels", "name": "lv", "data": "scores", "methods": ["pearson", "kendall"],
                           "levels": ["item", "system"], "resample": "systems"}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = metaeval.run_study(study, tmp_path / "out")
    t = rep.tables["lv_levels"]
    assert set(t["judge"]) == {"judge_a", "judge_b"} and len(t) == 8
    h = df.assign(human=pd.to_numeric(df["human"].replace("", np.nan))).pivot(index="system", columns="item",
                                                                            values="human")
    b = df.pivot(index="system", columns="item", values="judge_b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = metaeval.level_correlation(h, b, level=["item", "system"], method=["pearson", "kendall"],
                                        resample="systems", n_resamples=200, rng=7)
    row = t[(t["judge"] == "judge_b") & (t["level"] == "system") & (t["method"] == "kendall")].iloc[0]
    e = rs.get(level="system", method="kendall")
    assert row["estimate"] == pytest.approx(e.estimate, abs=1e-12) and row["ci_low"] == pytest.approx(e.ci.low)
    assert "lv_correlations" in rep.figures and "lv_system_scatter" in rep.figures


def test_study_levels_bad_column(tmp_path):
    df = _long()
    df["judge_a"] = df["judge_a"].astype(object)
    df.loc[3, "judge_a"] = "n/a"
    df.to_csv(tmp_path / "scores.csv", index=False)
    study = {"seed": 1, "n_resamples": 50,
             "data": {"scores": {"kind": "frame", "path": str(tmp_path / "scores.csv")}},
             "analysis": [{"type": "levels", "data": "scores", "judges": ["judge_a"]}]}
    with pytest.raises(metaeval.InputError, match="not a number"):
        metaeval.run_study(study, tmp_path / "out")


def test_plot_level_correlations_draws_the_results():
    g = np.random.default_rng(1)
    H = g.normal(size=(8, 20))
    M = H + g.normal(size=H.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rs = metaeval.level_correlation(H, M, level=["none", "item", "system"], method=["pearson", "spearman"],
                                        ci_method="percentile", n_resamples=100, rng=0)
    ax = plot_level_correlations(rs)
    pts = {ln.get_gid(): ln.get_ydata() for ln in ax.lines if str(ln.get_gid()).startswith("estimate")}
    np.testing.assert_allclose(pts["estimate:pearson"], [e.estimate for e in rs.filter(statistic="pearson")])
    segs = [c for c in ax.collections if c.get_gid() == "interval:spearman"][0].get_segments()
    assert [s[0][1] for s in segs] == [e.ci.low for e in rs.filter(statistic="spearman")]
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["none", "item", "system"]


def test_plot_system_scatter_means_with_missing_human_cells():
    H = np.array([[1.0, np.nan, 3], [2, 2, 2]])
    M = np.array([[5.0, 9, 1], [1, 2, 3]])
    ax = plot_system_scatter(H, M)
    # the judge's mean leaves out the cell the human did not score: (5 + 1)/2
    assert ax.lines[0].get_xydata().tolist() == [[2.0, 3.0], [2.0, 2.0]]
