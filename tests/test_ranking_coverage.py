"""Coverage of topic-bootstrap intervals for system-ranking correlations (a check of the default).

Population: n systems with population means mu (reference) and mu + delta (candidate: the judge's
systematic differences); per-topic scores add a shared topic effect and correlated system×topic
interactions. The population correlation is the coefficient of (mu, mu + delta): the ranking over
infinitely many topics. Samples of T topics are drawn; each interval is checked for containing it.

The default was chosen by benchmarks/coverage_rank_ci.py, which reuses this generator at population
values 0.7 / 0.9 / 0.97 for tau-b, rho, tau_AP and RBO (its table: docs/statistics/rankings.md;
output: benchmarks/results/coverage_rank_ci.txt). This test keeps one smaller design in CI
(30 systems, 40 topics, population tau-b 0.79, rho 0.92, tau_AP 0.72, RBO 0.81; R = 60 samples,
B = 300, double bootstrap 30 x 60; Monte Carlo SE about 0.03; about 25 s) and checks the default "debiased"
against the percentile interval on the same replicates.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from metaeval.core.resample import ci_from_replicates
from metaeval.systems import ranking as rk

METHODS = ["kendall_b", "spearman", "tau_ap", "rbo"]
REPS = 60


def _population(rng, n):
    mu = rng.normal(0.5, 0.1, n)
    return mu, mu + rng.normal(0, 0.03, n)


def _sample(rng, mu, mu_c, T, se=0.15, rho=0.6):
    n = len(mu)
    a = rng.normal(0, 0.15, T)
    er = rng.normal(0, se, (n, T))
    ec = rho * er + np.sqrt(1 - rho**2) * rng.normal(0, se, (n, T))
    idx, cols = [f"s{i:03d}" for i in range(n)], [f"t{j:03d}" for j in range(T)]
    return (pd.DataFrame(mu[:, None] + a + er, index=idx, columns=cols),
            pd.DataFrame(mu_c[:, None] + a + ec, index=idx, columns=cols))


def _coverage(n, T, seed):
    rng = np.random.default_rng(seed)
    mu, mu_c = _population(rng, n)
    truth = rk._all_methods(mu[None], mu_c[None], METHODS, 0.9, 10)[0]
    hits = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(REPS):
            R, C = _sample(rng, mu, mu_c, T)
            res = rk.rank_correlation(R, C, methods=METHODS, n_resamples=300, n_outer=30, n_inner=60, rng=r)
            for j, m in enumerate(METHODS):
                e = res[j]
                lo_p, hi_p, _ = ci_from_replicates(e.estimate, e.replicates, method="percentile")
                for k, (lo, hi) in {"debiased": (e.ci.low, e.ci.high), "percentile": (lo_p[0], hi_p[0])}.items():
                    hits[(m, k)] = hits.get((m, k), 0) + (lo <= truth[j] <= hi)
    return {key: h / REPS for key, h in hits.items()}, truth


@pytest.mark.slow
def ranking_interval_coverage_test():
    cov, truth = _coverage(30, 40, seed=130)
    print(f"\npopulation {dict(zip(METHODS, np.round(truth, 3)))}, R={REPS}:")
    for m in METHODS:
        print(f"  {m:<10}" + "  ".join(f"{k} {cov[(m, k)]:.3f}" for k in ("debiased", "percentile")))
    for m in METHODS:
        # the default: near nominal (3 Monte-Carlo SEs ~ 8 points at R = 60)
        assert 0.87 <= cov[(m, "debiased")] <= 1.0, (m, cov[(m, "debiased")])
