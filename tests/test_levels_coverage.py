"""Coverage of BOOT-SYSTEMS / BOOT-INPUTS / BOOT-BOTH for level Pearson (slow).

Model and estimand as benchmarks/coverage_levels.py (items × systems with item and system effects
in both the human and the judge scores; new systems and new items in every data set; the estimand
E[θ̂] from 2,000 data sets). The full table (Kendall too, BCa and percentile, 5 seeds) is in
benchmarks/results/coverage_levels.txt; this test keeps the qualitative result honest: resampling
both units covers near 0.95, resampling inputs only does not (the system effects are left out).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import metaeval

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from coverage_levels import draw  # noqa: E402


@pytest.mark.slow
def test_boot_both_covers_and_boot_inputs_does_not():
    S, I = 10, 40
    g = np.random.default_rng(99)
    truth = {"system": [], "item": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2000):
            h, m = draw(g, S, I)
            rs = metaeval.level_correlation(h, m, level=["system", "item"], method="pearson", ci_method=None)
            for lv in truth:
                truth[lv].append(rs.get(level=lv, method="pearson").estimate)
        truth = {lv: float(np.mean(v)) for lv, v in truth.items()}
        hits = {}
        g = np.random.default_rng(7)
        n = 200
        for k in range(n):
            h, m = draw(g, S, I)
            for scheme in ("items", "both"):
                rs = metaeval.level_correlation(h, m, level=["system", "item"], method="pearson",
                                                ci_method="percentile", resample=scheme, n_resamples=500, rng=k)
                for lv in truth:
                    e = rs.get(level=lv, method="pearson")
                    hits[(lv, scheme)] = hits.get((lv, scheme), 0) + (e.ci.low <= truth[lv] <= e.ci.high)
    cov = {k: v / n for k, v in hits.items()}
    # measured when written: both 0.945 (system), 0.96 (item); items 0.38, 0.505 (n = 200, SE ≈ 0.015)
    assert cov[("system", "both")] >= 0.90 and cov[("item", "both")] >= 0.90, cov
    assert cov[("system", "items")] <= 0.70 and cov[("item", "items")] <= 0.75, cov
