"""Coverage of rank-correlation intervals near the bounds: which interval method should be the default?

For each statistic (tau_b, Spearman's rho, tau_AP, RBO) and each population value (0.7, 0.9, 0.97),
a population of n systems is built with the generator of tests/test_ranking_coverage.py (system
means mu; the candidate's means mu + c·delta, c tuned by bisection until the statistic of
(mu, mu + c·delta), the ranking over infinitely many topics, is the target). R samples of T topics
are drawn from it (shared topic effects, correlated system × topic noise), and every candidate
interval is computed from the SAME replicates of one double topic bootstrap (the engine's
``_double_bootstrap``), then checked for containing the population value:

* ``percentile``, ``basic``, ``bca``: the engine's intervals (BootstrapResult.from_replicates:
  small-cluster widening, clipped to the range);
* ``basic_t``: basic on the statistic's transformed scale (RANK_SCALES: Fisher's z or logit);
* ``debiased``: centred at 2θ̂ − mean θ*, SE from the double bootstrap, on the statistic's own
  scale and clipped (metaeval's default before 0.2.0);
* ``debiased_t``: the same on the transformed scale, mapped back (the default from 0.2.0).

Prints one row per (statistic, target, method): coverage with its Monte-Carlo error
sqrt(p(1 − p)/R), mean width, the share of intervals clipped at a bound, and the share that contain
the estimate θ̂. Run:

    PYTHONPATH=. python benchmarks/coverage_rank_ci.py --reps 200 > benchmarks/results/coverage_rank_ci.txt
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from test_ranking_coverage import _population, _sample  # noqa: E402

import metaeval  # noqa: E402
from metaeval.core import resample as rs  # noqa: E402
from metaeval.systems import ranking as rk  # noqa: E402

STATS = ("kendall_b", "spearman", "tau_ap", "rbo")
TARGETS = (0.7, 0.9, 0.97)
CANDIDATES = ("percentile", "basic", "bca", "basic_t", "debiased", "debiased_t")


def population(stat, target, n, seed):
    """(mu, mu_c, truth): the candidate's means moved along a random direction until stat(mu, mu_c) ≈ target."""
    rng = np.random.default_rng(seed)
    mu, _ = _population(rng, n)
    d = rng.normal(0, 1, n)

    def value(c):
        return rk._all_methods(mu[None], (mu + c * d)[None], [stat], 0.9, 10)[0, 0]

    lo, hi = 0.0, 0.01
    while value(hi) > target:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if value(mid) > target else (lo, mid)
    c = lo  # the last c whose value is above the target: the value closest from above
    return mu, mu + c * d, value(c)


def intervals(R, C, stat, *, B, n_outer, n_inner, seed):
    """θ̂ and {candidate: (low, high, clipped)} from one double bootstrap."""
    n, T = R.shape
    units = rk._topic_units(R, C)

    def kern(S):
        x, y = rk._means(np.asarray(S, dtype=float), n)
        return rk._all_methods(x, y, [stat], 0.9, 10)

    (lo_b, hi_b), tname = rk.RANK_SCALES[stat]
    bounds = (lo_b, hi_b)
    eps = rk._transform_eps(stat, n)
    theta, reps, inner, _ = rs._double_bootstrap(kern, units, n_resamples=B, n_outer=n_outer, n_inner=n_inner,
                                                 rng=seed, chunk=None)
    total = units.total()
    jack = rs._as_2d(kern(total[None, :] - units.X), T)
    accel = rs.jackknife_acceleration(jack)
    out = {}
    for m in ("percentile", "basic", "bca"):
        r = rs.BootstrapResult.from_replicates(theta, reps, ci_method=m, accel=accel, unit="clusters", n_units=T,
                                               bounds=bounds)
        out[m] = (r.low[0], r.high[0], bool(r.extra["clipped_low"][0] or r.extra["clipped_high"][0]))
    t = rs.TRANSFORMS[tname]
    r = rs.BootstrapResult.from_replicates(t.forward(theta, eps), t.forward(reps, eps), ci_method="basic",
                                           unit="clusters", n_units=T)
    out["basic_t"] = (float(t.inverse(r.low[0])), float(t.inverse(r.high[0])), False)
    for m, tr in (("debiased", None), ("debiased_t", tname)):
        lo, hi, _, ex = rs._debiased_interval(theta, reps, inner, transform=tr, eps=eps, n_clusters=T,
                                              bounds=bounds)
        out[m] = (lo[0], hi[0], bool(ex["clipped_low"][0] or ex["clipped_high"][0]))
    return theta[0], out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200, help="samples per (statistic, target)")
    ap.add_argument("--systems", type=int, default=30)
    ap.add_argument("--topics", type=int, default=40)
    ap.add_argument("--B", type=int, default=500)
    ap.add_argument("--outer", type=int, default=50)
    ap.add_argument("--inner", type=int, default=100)
    ap.add_argument("--stats", default=",".join(STATS))
    ap.add_argument("--targets", default=",".join(map(str, TARGETS)))
    ap.add_argument("--seed", type=int, default=2024)
    a = ap.parse_args()
    print(f"# metaeval {metaeval.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
          f"{platform.machine()} {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"# {a.systems} systems, {a.topics} topics, R = {a.reps} samples per row, B = {a.B}, double bootstrap "
          f"{a.outer} x {a.inner}, seed {a.seed}; 95% intervals")
    print(f"{'statistic':<10} {'target':>6} {'truth':>7} {'method':<11} {'coverage':>8} {'mc_se':>6} {'width':>7} "
          f"{'clipped':>7} {'has_est':>7}")
    t0 = time.time()
    for si, stat in enumerate(a.stats.split(",")):
        for ti, target in enumerate(float(x) for x in a.targets.split(",")):
            base = a.seed + 1000 * si + 100 * ti
            mu, mu_c, truth = population(stat, target, a.systems, base)
            rng = np.random.default_rng(base + 1)
            rec = {m: [] for m in CANDIDATES}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for r in range(a.reps):
                    R, C = _sample(rng, mu, mu_c, a.topics)
                    est, ivs = intervals(R, C, stat, B=a.B, n_outer=a.outer, n_inner=a.inner, seed=base + 10_000 + r)
                    for m, (lo, hi, clipped) in ivs.items():
                        rec[m].append((lo <= truth <= hi, hi - lo, clipped, lo <= est <= hi))
            for m in CANDIDATES:
                v = np.array(rec[m], dtype=float)
                p = v[:, 0].mean()
                print(f"{stat:<10} {target:>6.2f} {truth:>7.4f} {m:<11} {p:>8.3f} {np.sqrt(p * (1 - p) / len(v)):>6.3f} "
                      f"{v[:, 1].mean():>7.3f} {v[:, 2].mean():>7.3f} {v[:, 3].mean():>7.3f}", flush=True)
    print(f"# {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
