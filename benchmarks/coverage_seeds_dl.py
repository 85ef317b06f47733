"""Judge-corrected system scores on TREC DL 2019–2021, replayed over ten seeds a year.

The experiment of tests/test_inference_realdata.py (judge = UMBRELA zero-shot GPT-4o qrels on every
topic, human = NIST qrels on ``--labelled`` random topics, target = each official run's all-topic
NIST mean nDCG@10; ``--draws`` draws of the labelled topics per seed), run with ``--seeds`` seeds per
year instead of one: seed k of a year is the test's seed + 1000·k (k = 0 is the test's own seed).
Prints every seed's coverage and width per method, then per year and method the mean over the seeds
± its Monte Carlo error (the SD across seeds / √seeds) and the lowest and highest seed.

Needs ../shared/data/trec_dl_passage (or METAEVAL_SHARED_DATA). Run:

    PYTHONPATH=. python benchmarks/coverage_seeds_dl.py > benchmarks/results/coverage_seeds_dl.txt
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

import metaeval as me

DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
SEEDS = {"dl19": 20261201, "dl20": 20261202, "dl21": 20261203}   # tests/test_inference_realdata.py
METHODS = ("ppi++", "ppi", "classical", "judge_only")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--labelled", type=int, default=15)
    ap.add_argument("--years", default="dl19,dl20,dl21")
    a = ap.parse_args()
    trec = DATA / "trec_dl_passage"
    print(f"# metaeval {me.__version__}, numpy {np.__version__}, pandas {pd.__version__}, python "
          f"{platform.python_version()}, {platform.machine()} {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"# {a.labelled} labelled topics, {a.draws} draws per seed, {a.seeds} seeds per year (test seed + 1000 k)")
    rows = []
    t0 = time.time()
    for y in a.years.split(","):
        human = me.read_qrels(trec / "qrels" / "human" / f"qrels.{y}-passage.txt")
        judge = me.read_qrels(trec / "qrels" / "llm" / f"umbrela-zeroshot-gpt-4o.{y}.txt")
        runs = me.read_runs(trec / "runs" / y)
        hs, js = me.system_scores(human, runs, "nDCG@10"), me.system_scores(judge, runs, "nDCG@10")
        for k in range(a.seeds):
            f = me.corrected_coverage(hs, js, n_labelled=a.labelled, n_draws=a.draws, methods=METHODS,
                                      rng=SEEDS[y] + 1000 * k)
            f.insert(0, "year", y)
            rows.append(f)
            print(f[["year", "seed", "method", "coverage", "coverage_se", "worst_system", "mean_width",
                     "width_ratio"]].round(4).to_string(index=False, header=(k == 0 and y == a.years.split(",")[0])),
                  flush=True)
    df = pd.concat(rows, ignore_index=True)
    g = df.groupby(["year", "method"], sort=False)
    s = pd.DataFrame({"seeds": g.size(), "coverage": g["coverage"].mean(),
                      "mc_se": g["coverage"].std(ddof=1) / np.sqrt(g.size()),
                      "lowest": g["coverage"].min(), "highest": g["coverage"].max(),
                      "width": g["mean_width"].mean(), "width_ratio": g["width_ratio"].mean()})
    print("\n# mean over seeds (mc_se = SD across seeds / sqrt(seeds))")
    print(s.round(4).to_string())
    print(f"# {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
