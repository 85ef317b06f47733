"""Benchmark: topic bootstrap of system-ranking correlations (tau-b, rho, tau_AP), B = 2,000.

60 systems × 200 topics of synthetic per-topic scores (seeded). metaeval draws topic weights and
multiplies them with the score matrices (one product per chunk); the peer is the loop people write:
resample topic columns, average, call scipy.stats.kendalltau / spearmanr and a tau_AP function per
replicate (timed on 200 replicates, extrapolated). Target: metaeval under 1 s for B = 2,000.

    python benchmarks/bench_ranking_bootstrap.py
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import scipy.stats as sps

import metaeval as me

N_SYS, N_TOP, B = 60, 200, 2000


def data(seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(0.5, 0.1, N_SYS)
    a = rng.normal(0, 0.15, N_TOP)
    R = mu[:, None] + a + rng.normal(0, 0.15, (N_SYS, N_TOP))
    C = mu[:, None] + rng.normal(0, 0.03, (N_SYS, 1)) + a + rng.normal(0, 0.15, (N_SYS, N_TOP))
    idx, cols = [f"run{i:02d}" for i in range(N_SYS)], [f"q{j:03d}" for j in range(N_TOP)]
    return pd.DataFrame(R, idx, cols), pd.DataFrame(C, idx, cols)


def naive(R, C, b, seed=0):
    rng = np.random.default_rng(seed)
    r, c = R.to_numpy(), C.to_numpy()
    out = []
    for _ in range(b):
        cols = rng.integers(0, N_TOP, N_TOP)
        x, y = r[:, cols].mean(1), c[:, cols].mean(1)
        out.append((sps.kendalltau(x, y)[0], sps.spearmanr(x, y)[0], me.tau_ap(x, y)))
    return np.array(out)


def main():
    R, C = data()
    methods = ("kendall_b", "spearman", "tau_ap")
    me.rank_correlation(R, C, methods=methods, n_resamples=50, ci_method="percentile", rng=0)  # warm-up
    t = time.perf_counter()
    res = me.rank_correlation(R, C, methods=methods, n_resamples=B, ci_method="percentile", rng=0)
    t_me = time.perf_counter() - t
    t = time.perf_counter()
    deb = me.rank_correlation(R, C, methods=methods, n_resamples=B, rng=0)
    t_deb = time.perf_counter() - t
    t = time.perf_counter()
    nv = naive(R, C, 200)
    t_naive = (time.perf_counter() - t) * B / 200
    print(f"{N_SYS} systems x {N_TOP} topics, B = {B}")
    print(f"  metaeval topic bootstrap (tau-b, rho, tau_AP; percentile): {t_me:.3f} s  target < 1 s: "
          f"{'PASS' if t_me < 1 else 'FAIL'}")
    print(f"  metaeval debiased interval (adds a 100 x 200 double bootstrap): {t_deb:.3f} s")
    print(f"  scipy loop, extrapolated from 200 replicates: {t_naive:.1f} s  -> ratio {t_naive / t_me:.0f}x")
    sd_me = np.array([res[j].se for j in range(3)])
    sd_nv = nv.std(axis=0, ddof=1)
    print("  bootstrap SD metaeval vs loop (200 reps):", np.round(sd_me, 4), np.round(sd_nv, 4))
    print(res.to_frame()[["method", "estimate", "ci_low", "ci_high", "bias"]].round(4).to_string(index=False))
    print(deb.to_frame()[["method", "estimate", "ci_low", "ci_high", "bias"]].round(4).to_string(index=False))


if __name__ == "__main__":
    main()
