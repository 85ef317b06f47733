"""Benchmark: Dawid–Skene on 1M items × 10 judges (issue #22 target: under 30 s and under 2 GB).

Simulates 10 judges (accuracies 0.55 … 0.9, errors uniform over the other classes) on 1,000,000
items with 4 classes and 10% of the votes missing, runs ``metaeval.jury(..., method="dawid_skene")``
(the whole call: parsing the items × judges array, EM on the distinct vote rows, the result frames;
the package's imports are done before the clock starts)
and prints the wall time and the peak resident memory of the process. Then, on a size crowd-kit
handles (``--ck-items``, default 20,000), it times crowd-kit's ``DawidSkene`` (same start, same
stopping rule) against metaeval on the same data and prints the ratio and the largest difference of
the probabilities.

    python benchmarks/bench_jury.py [--items 1000000] [--judges 10] [--ck-items 20000]

Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` (the whole process, so it includes
Python, numpy and pandas themselves; the crowd-kit part runs after the 1M measurement).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd


def simulate(n: int, r: int, k: int = 4, missing: float = 0.1, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.choice(k, size=n, p=np.linspace(2, 1, k) / np.linspace(2, 1, k).sum())
    acc = np.linspace(0.55, 0.9, r)
    out = np.empty((n, r))
    for g in range(r):
        right = rng.random(n) < acc[g]
        wrong = (truth + rng.integers(1, k, n)) % k
        out[:, g] = np.where(right, truth, wrong)
        out[rng.random(n) < missing, g] = np.nan
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # KiB on Linux


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--judges", type=int, default=10)
    ap.add_argument("--ck-items", type=int, default=20_000)
    args = ap.parse_args()

    import metaeval

    metaeval.jury([[0, 1], [1, 1]], method="dawid_skene")       # imports (scipy, pandas parts) outside the timing
    votes = simulate(args.items, args.judges)
    base = peak_rss_mb()
    t0 = time.perf_counter()
    res = metaeval.jury(votes, method="dawid_skene")
    t = time.perf_counter() - t0
    peak = peak_rss_mb()
    print(f"metaeval Dawid–Skene, {args.items:,} items × {args.judges} judges: {t:.2f} s, "
          f"{res.n_iter} EM iterations, peak RSS {peak:.0f} MB (data simulated: {base:.0f} MB before the call)")
    print(f"  target: < 30 s and < 2048 MB -> {'met' if t < 30 and peak < 2048 else 'NOT met'}")

    try:
        from crowdkit.aggregation import DawidSkene
    except ImportError:
        print("crowd-kit not installed: no ratio")
        return
    small = simulate(args.ck_items, args.judges, seed=1)
    long = pd.DataFrame(small).stack().dropna().rename("label").reset_index()
    long.columns = ["task", "worker", "label"]
    long["label"] = long["label"].astype(int)
    t0 = time.perf_counter()
    ck = DawidSkene(n_iter=100, tol=1e-5).fit(long)
    t_ck = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = metaeval.jury(small, method="dawid_skene")
    t_me = time.perf_counter() - t0
    p_ck = ck.probas_.reindex(index=ours.probabilities.index, columns=ours.probabilities.columns).to_numpy()
    diff = float(np.abs(p_ck - ours.probabilities.to_numpy()).max())
    same = bool((ck.labels_.reindex(ours.labels.index).to_numpy() == ours.labels.to_numpy()).all())
    print(f"{args.ck_items:,} items × {args.judges} judges: crowd-kit DawidSkene {t_ck:.2f} s, metaeval {t_me:.3f} s "
          f"(ratio {t_ck / t_me:.0f}×); labels equal: {same}; max |Δp| = {diff:.1e}")


if __name__ == "__main__":
    main()
