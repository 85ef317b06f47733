"""Coverage of BOOT-SYSTEMS, BOOT-INPUTS and BOOT-BOTH intervals for level correlations.

Model (items × systems with item and system effects; Deutsch, Dror & Roth 2021, §5): for system s and
item j,

    human  h_sj = a_s + b_j + e_sj,            a ~ N(0, 1), b ~ N(0, 1), e ~ N(0, 1)
    judge  m_sj = h_sj + c_s + d_j + f_sj,     c ~ N(0, 0.7²), d ~ N(0, 0.7²), f ~ N(0, 1)

Each data set draws S systems and I items afresh (both are samples: new systems, new inputs). The
estimand of each (level, method) is the expected value of the statistic over such data sets, E[θ̂],
computed from 4,000 independent data sets; an interval covers when it contains it. Intervals:
``metaeval.level_correlation`` with ``resample="systems" | "items" | "both"``, B = 1,000, BCa (the
package default) and percentile from the same replicates (``ci_from_replicates``). Per seed: N data
sets; the table gives the mean coverage over seeds with its Monte Carlo error (SD across seeds / √seeds).

Run::

    PYTHONPATH=. nice -n 10 python benchmarks/coverage_levels.py [--seeds 5] [--n 100] [--S 10] [--I 40]

Results: benchmarks/results/coverage_levels.txt.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np

import metaeval
from metaeval.core.resample import ci_from_replicates

CASES = [("system", "pearson"), ("system", "kendall"), ("item", "pearson"), ("item", "kendall")]
SCHEMES = ["systems", "items", "both"]


def draw(g, S, I):
    a, b = g.normal(0, 1, (S, 1)), g.normal(0, 1, (1, I))
    h = a + b + g.normal(0, 1, (S, I))
    m = h + g.normal(0, 0.7, (S, 1)) + g.normal(0, 0.7, (1, I)) + g.normal(0, 1, (S, I))
    return h, m


def truths(S, I, n=4000, seed=12345):
    g = np.random.default_rng(seed)
    vals = {c: [] for c in CASES}
    for _ in range(n):
        h, m = draw(g, S, I)
        rs = metaeval.level_correlation(h, m, level=["system", "item"], method=["pearson", "kendall"], ci_method=None)
        for c in CASES:
            vals[c].append(rs.get(level=c[0], method=c[1]).estimate)
    return {c: (float(np.mean(v)), float(np.std(v, ddof=1) / np.sqrt(n))) for c, v in vals.items()}


def run_seed(seed, n, S, I, truth, B):
    g = np.random.default_rng(seed)
    hits = {(c, s, ci): 0 for c in CASES for s in SCHEMES for ci in ("bca", "percentile")}
    width = {(c, s): 0.0 for c in CASES for s in SCHEMES}
    for k in range(n):
        h, m = draw(g, S, I)
        for s in SCHEMES:
            rs = metaeval.level_correlation(h, m, level=["system", "item"], method=["pearson", "kendall"],
                                            ci_method="bca", resample=s, n_resamples=B, rng=seed * 100_000 + k)
            for c in CASES:
                e = rs.get(level=c[0], method=c[1])
                t = truth[c][0]
                hits[(c, s, "bca")] += e.ci.low <= t <= e.ci.high
                lo, hi, _ = ci_from_replicates(e.estimate, e.replicates, method="percentile")
                hits[(c, s, "percentile")] += lo[0] <= t <= hi[0]
                width[(c, s)] += e.ci.high - e.ci.low
    return {k: v / n for k, v in hits.items()}, {k: v / n for k, v in width.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--S", type=int, default=10)
    ap.add_argument("--I", type=int, default=40)
    ap.add_argument("--B", type=int, default=1000)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    truth = truths(args.S, args.I)
    print(f"coverage of nominal 95% intervals, S = {args.S} systems, I = {args.I} items, B = {args.B}, "
          f"{args.seeds} seeds × {args.n} data sets; metaeval {metaeval.__version__}")
    for c, (t, se) in truth.items():
        print(f"  estimand E[θ̂] {c[0]:6s} {c[1]:8s} = {t:.4f} (MC SE {se:.4f})")
    per_seed = []
    for seed in range(1, args.seeds + 1):
        per_seed.append(run_seed(seed, args.n, args.S, args.I, truth, args.B))
        print(f"  seed {seed} done ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"\n{'level':7s} {'method':8s} {'scheme':8s} {'BCa':>15s} {'percentile':>15s} {'mean width':>11s}")
    for c, s in itertools.product(CASES, SCHEMES):
        row = []
        for ci in ("bca", "percentile"):
            v = np.array([p[0][(c, s, ci)] for p in per_seed])
            row.append(f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(len(v)):.3f}")
        w = np.mean([p[1][(c, s)] for p in per_seed])
        print(f"{c[0]:7s} {c[1]:8s} {s:8s} {row[0]:>15s} {row[1]:>15s} {w:11.3f}")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
