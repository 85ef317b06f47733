"""Streaming cost of the drift monitor: one update is O(1), whatever the history.

    python benchmarks/bench_monitor.py [--pairs 1000000] [--repeats 3]

Prints, as the mean over repeats (with the spread): the wall and CPU time to stream --pairs anchor
outcomes one at a time through ``AgreementMonitor.update`` and in batches of 1,000 through
``update_many``; the cost of 100,000 updates at the start of the stream against 100,000 after
900,000 (a ratio near 1 is O(1)); and, as the reason the state matters, what recomputing the
e-process over the whole history at every new pair would cost (measured on 5,000 pairs, quadratic,
extrapolated to --pairs). CPU time is this process's own (``time.process_time``), so the numbers
hold on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import metaeval as me  # noqa: E402
from metaeval.monitoring.drift import AgreementMonitor, _Bets  # noqa: E402


def timed(f):
    w, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w, time.process_time() - c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n = args.pairs
    res = {k: [] for k in ("single", "batch", "first", "last")}
    for r in range(args.repeats):
        x = np.random.default_rng(r).random(n) < 0.85
        xs = x.tolist()

        def single(xs=xs):
            m = AgreementMonitor(850, 1000)
            for v in xs:
                m.update(v)

        def batch(x=x):
            m = AgreementMonitor(850, 1000)
            for i in range(0, n, 1000):
                m.update_many(x[i:i + 1000])

        res["single"].append(timed(single))
        res["batch"].append(timed(batch))
        m = AgreementMonitor(850, 1000)
        k = min(100_000, n // 10)
        res["first"].append(timed(lambda m=m, xs=xs, k=k: [m.update(v) for v in xs[:k]]))
        for v in xs[k:n - k]:
            m.update(v)
        res["last"].append(timed(lambda m=m, xs=xs, k=k: [m.update(v) for v in xs[n - k:]]))

    def show(name, key):
        a = np.array(res[key])
        print(f"{name:<46} wall {a[:, 0].mean():7.3f} s (± {a[:, 0].std(ddof=1) if len(a) > 1 else 0:.3f})"
              f"   cpu {a[:, 1].mean():7.3f} s (± {a[:, 1].std(ddof=1) if len(a) > 1 else 0:.3f})")

    print(f"metaeval {me.__version__}; {n:,} anchor outcomes; {args.repeats} repeats (mean ± SD)")
    show("one at a time (AgreementMonitor.update)", "single")
    show("batches of 1,000 (update_many)", "batch")
    k = min(100_000, n // 10)
    show(f"the first {k:,} single updates", "first")
    show(f"the last {k:,} single updates", "last")
    first = np.mean([c for _, c in res["first"]])
    last = np.mean([c for _, c in res["last"]])
    print(f"cost of an update late / early (cpu): {last / first:.2f}  (1 = no dependence on the history)")

    # recomputing over the history at every pair: the e-process from scratch each time (quadratic)
    m0 = 5000
    x = np.random.default_rng(0).random(m0) < 0.85

    def recompute():
        for t in range(1, m0 + 1):
            _Bets(0.85, "below").push_many(x[:t])

    w, c = timed(recompute)
    per = np.mean([c for _, c in res["single"]])
    extrapolated = c * (n / m0) ** 2
    print(f"recompute over the history at each pair: {m0:,} pairs cpu {c:.2f} s; extrapolated to {n:,}: "
          f"{extrapolated:,.0f} s = {extrapolated / per:,.0f}x the streaming monitor")


if __name__ == "__main__":
    main()
