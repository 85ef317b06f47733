"""metaeval.review.nulls: the standard tests of a correlation, against R and scipy.

Expected numbers: R 4.2.2 ``cor.test`` (tests/reference/r_correlation_nulls.json, written by
tests/reference/make_reference_r_correlation_nulls.R: Spearman exact for n ≤ 9 and AS 89 above,
Kendall's exact null and normal approximation) and scipy.stats ``kendalltau`` (the tie-corrected
asymptotic test) on random tie patterns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from metaeval.review import nulls

REF = json.loads((Path(__file__).parent / "reference" / "r_correlation_nulls.json").read_text())["cases"]


@pytest.mark.parametrize("case", REF, ids=lambda c: f"n{c['n']}s{c['s']}")
def nulls_match_r_cor_test_test(case):
    n, s, D = case["n"], case["s"], case["discordant"]
    if n <= 9:
        assert nulls.rho_exact_p(n, s) == pytest.approx(case["spearman_p"], rel=1e-12, abs=1e-15)
    else:
        assert nulls.rho_as89_p(n, s) == pytest.approx(case["spearman_p"], rel=1e-12, abs=1e-15)
    if n <= nulls.RHO_EXACT_MAX and n >= 10:      # R's AS 89 approximates the exact null closely
        assert nulls.rho_exact_p(n, s) == pytest.approx(case["spearman_p"], abs=0.02)
    if n <= nulls.TAU_EXACT_MAX:
        # R sums the distribution up to the tail: its tiny p carry ~1e-13 of rounding (n = 80)
        assert nulls.tau_exact_p(n, D) == pytest.approx(case["kendall_exact_p"], rel=1e-9, abs=1e-12)
    pairs = n * (n - 1) // 2
    assert nulls.tau_normal_p(n, 1 - 2 * D / pairs) == pytest.approx(case["kendall_normal_p"], rel=1e-9, abs=1e-15)


def spearman_exact_distribution_is_a_distribution_test():
    # m! orderings; S is even and symmetric about (m³ − m)/6 (Kendall 1948, ch. 5)
    for m in range(3, nulls.RHO_EXACT_MAX + 1):
        S, w = nulls._rho_distribution(m)
        assert w.sum() == math.factorial(m)
        assert (S % 2 == 0).all() and np.allclose(np.sort(S), np.sort((m ** 3 - m) / 3 - S))


@pytest.mark.parametrize("n", [5, 8, 20, 80, 500])
def tie_envelope_holds_on_random_tie_patterns_test(n):
    """scipy's tie-corrected p lies within the range p_ranges gives for 'ties possible', on random
    tie patterns of 2–7 categories per variable (the bound: √(n − 1) ≤ z/τ_b ≤ the untied factor)."""
    rng = np.random.default_rng(n)
    inside = 0
    for _ in range(300):
        kx, ky = rng.integers(2, 8, size=2)
        x = rng.integers(0, kx, n) if rng.random() < 0.5 else np.minimum(rng.geometric(rng.uniform(0.1, 0.9), n) - 1, kx - 1)
        y = np.where(rng.random(n) < rng.uniform(0, 1), x, rng.integers(0, ky, n))
        res = stats.kendalltau(x, y)
        if not np.isfinite(res.pvalue):
            continue
        t = float(res.statistic)
        lo, hi = nulls.p_ranges("kendall", n, t - 1e-12, t + 1e-12, ties=True)[nulls.TAU_TIES]
        assert lo * (1 - 1e-9) <= res.pvalue <= hi * (1 + 1e-9) + 1e-300
        inside += 1
    assert inside > 200


def two_by_two_is_the_lower_end_of_the_envelope_test():
    # the 2×2 table of the issue: scipy's kendalltau gives τ_b = 0.3769, p = 0.000859; z = τ_b·√(n − 1)
    t = np.array([[30, 10], [15, 25]])
    tau, p = nulls.tie_table_p("kendall", t)
    x = np.repeat([0, 0, 1, 1], t.ravel())
    y = np.repeat([0, 1, 0, 1], t.ravel())
    ref = stats.kendalltau(x, y)
    assert (tau, p) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)
    assert p == pytest.approx(2 * stats.norm.sf(tau * math.sqrt(79)), rel=1e-9)
    assert nulls.p_ranges("kendall", 80, tau, tau, ties=True)[nulls.TAU_TIES][1] == pytest.approx(p, rel=1e-9)


def large_n_is_closed_form_test():
    import time

    t0 = time.perf_counter()
    r = nulls.p_ranges("kendall", 100_000, 0.885, 0.895, ties=True)
    assert time.perf_counter() - t0 < 0.5 and nulls.TAU_EXACT not in r
