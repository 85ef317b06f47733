"""Coverage of the variance-component intervals of metaeval.variance_components (grading noise).

    python benchmarks/coverage_repeats.py [--reps 400] [--seeds 5]

Balanced random designs with known components: items × runs (the common case: a judge graded R
times on the same items) at several sizes, and items × runs × judges. Each cell is the mean over
seeds of the per-seed coverage of the nominal 95% interval, with the standard error across seeds.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import metaeval as me  # noqa: E402

DESIGNS = {
    "40 items × 4 runs": ((40, 4), {"item": 1.0, "run": 0.1, "item:run": 0.5}),
    "200 items × 3 runs": ((200, 3), {"item": 0.5, "run": 0.05, "item:run": 0.5}),
    "20 items × 10 runs": ((20, 10), {"item": 1.0, "run": 0.2, "item:run": 1.0}),
    "30 items × 3 runs × 3 judges": ((30, 3, 3), {"item": 1.0, "run": 0.1, "judge": 0.3, "item:run": 0.1,
                                                   "item:judge": 0.2, "run:judge": 0.05, "item:run:judge": 0.4}),
}
NAMES = ("item", "run", "judge")


def simulate(rng, sizes, comps):
    k = len(sizes)
    y = np.zeros(sizes)
    for r in range(1, k + 1):
        for S in itertools.combinations(range(k), r):
            name = ":".join(NAMES[i] for i in S)
            shape = [sizes[i] if i in S else 1 for i in range(k)]
            y = y + rng.normal(0, np.sqrt(comps[name]), shape)
    grid = np.array(list(itertools.product(*[range(n) for n in sizes])))
    df = pd.DataFrame({NAMES[i]: grid[:, i] for i in range(k)})
    df["score"] = y.ravel()
    return df


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    t0 = time.time()
    rows = []
    for design, (sizes, comps) in DESIGNS.items():
        per_seed = {c: [] for c in comps}
        method = {}
        for s in range(args.seeds):
            rng = np.random.default_rng(20261202 + 1000 * s + len(sizes) * 10 + sizes[0])
            hits = dict.fromkeys(comps, 0)
            for _ in range(args.reps):
                df = simulate(rng, sizes, comps)
                vc = me.variance_components(df, item="item", run="run", judge="judge" if len(sizes) == 3 else None,
                                            score="score").set_index("component")
                for c, truth in comps.items():
                    hits[c] += bool(vc.loc[c, "ci_low"] <= truth <= vc.loc[c, "ci_high"])
                    method[c] = vc.loc[c, "ci_method"].split(" (")[0]
            for c in comps:
                per_seed[c].append(hits[c] / args.reps)
        for c in comps:
            a = np.array(per_seed[c])
            rows.append({"design": design, "component": c, "sigma2": comps[c], "method": method[c],
                         "coverage": a.mean(), "se": a.std(ddof=1) / np.sqrt(len(a))})
    pd.set_option("display.width", 160)
    print(f"{args.seeds} seeds x {args.reps} replications per design; nominal 0.95")
    print(pd.DataFrame(rows).round(4).to_string(index=False))
    print(f"\n{time.time() - t0:.0f} s; metaeval {me.__version__}")


if __name__ == "__main__":
    main()
