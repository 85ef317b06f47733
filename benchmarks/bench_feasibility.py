"""The κ / percent-agreement feasibility check at n ≤ 10,000 on a 2×2 table (issue #21: under 1 s).

Cases, each at n = 100, 1,000 and 10,000 (the reported numbers come from a real table, then one is
nudged so that no table gives them):

* ``kappa+po``        κ and p_o reported, no margins: a match exists (the usual case);
* ``kappa+po, none``  κ and p_o reported, no table gives them: the search ends with the nearest
  feasible pair (branch and bound over the number of agreements);
* ``kappa only``      κ alone, a match exists;
* ``kappa only, none``  κ alone, moved by 1e-7 and printed with 10 decimals so that no table matches: every (A, a) pair
  is visited — the worst case;
* ``kappa+po, far``   κ = 0.95 with p_o "0.5" (one decimal): far from every table, the nearest pair is at
  p_o = 0.975 (the old (A, a) search visited every pair: 27 s at n = 10,000);
* ``margins``         κ and p_o with both raters' margins: the one free cell is enumerated;
* ``grim``            a proportion at n;

and then ``--random`` reports drawn at random at n ∈ {2,000, 7,777, 9,999, 10,000} (κ in [−1.05, 1.05]
with 1–5 decimals, p_o in [0, 1] with 1–5 decimals, 30% without p_o), each timed once: mean and max.

Each case is run ``--repeats`` times after one warm-up call; the mean and the maximum wall time
(``time.perf_counter``) are printed. Run: ``python benchmarks/bench_feasibility.py``.

Measured (2 cores shared with ~8 other jobs, load average 11; --repeats 5), n = 10,000:
before, ``kappa only, none`` took 13.0 s with the (A, a) scan and 0.13 s mean / 0.17 s max after the
W = v² − s² search, and ``kappa+po, none`` (the (A, a) branch and bound) 0.77 s mean / 1.18 s max
(0.23 / 0.36 s at a lower load), ``kappa+po, far`` 27 s. With the κ + p_o search on the same
W = v² − s² reduction (A visited best-first by a lower bound, a bounded number of (A, s) pairs at a
time): ``kappa+po, none`` 0.014 s mean / 0.018 s max, ``kappa+po, far`` 0.022 / 0.026 s,
``kappa only, none`` 0.022 / 0.024 s, every other case under 0.015 s; 300 random reports 0.011 s
mean, 0.031 s max.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metaeval.review.feasibility import grim, kappa_feasibility


def _kappa(t):
    n = t.sum()
    po = np.trace(t) / n
    pe = (t.sum(axis=1) @ t.sum(axis=0)) / n**2
    return (po - pe) / (1 - pe), po


def cases(n):
    t = np.round(np.array([[0.41, 0.09], [0.07, 0.43]]) * n).astype(int)
    t[1, 1] += n - t.sum()
    k, po = _kappa(t)
    margins = [t.sum(axis=1).tolist(), t.sum(axis=0).tolist()]
    return {
        "kappa+po": lambda: kappa_feasibility(f"{k:.3f}", n=n, percent_agreement=f"{po:.3f}"),
        "kappa+po, none": lambda: kappa_feasibility(f"{k + 0.02:.3f}", n=n, percent_agreement=f"{po:.3f}"),
        "kappa only": lambda: kappa_feasibility(f"{k:.3f}", n=n),
        "kappa only, none": lambda: kappa_feasibility(f"{k + 1e-7:.10f}", n=n),
        "kappa+po, far": lambda: kappa_feasibility("0.95", n=n, percent_agreement="0.5"),
        "margins": lambda: kappa_feasibility(f"{k:.3f}", n=n, percent_agreement=f"{po:.3f}", margins=margins),
        "grim": lambda: grim(f"{po:.3f}", n),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--random", type=int, default=300, help="random reports timed once each")
    args = ap.parse_args(argv)
    print(f"{'case':<18} {'n':>6}  {'feasible':>8}  {'mean s':>9}  {'max s':>9}")
    for n in (100, 1_000, 10_000):
        for name, f in cases(n).items():
            r = f()                                   # warm-up (and the answer)
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                f()
                times.append(time.perf_counter() - t0)
            print(f"{name:<18} {n:>6}  {str(r.feasible):>8}  {np.mean(times):9.4f}  {np.max(times):9.4f}")
    rng = np.random.default_rng(0)
    times, worst = [], None
    for _ in range(args.random):
        n = int(rng.choice([2_000, 7_777, 9_999, 10_000]))
        dk, dp = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        kv, pv = f"{rng.uniform(-1.05, 1.05):.{dk}f}", f"{rng.uniform(0, 1):.{dp}f}"
        pv = pv if rng.random() < 0.7 else None
        t0 = time.perf_counter()
        kappa_feasibility(kv, n=n, percent_agreement=pv)
        times.append(time.perf_counter() - t0)
        if worst is None or times[-1] > worst[0]:
            worst = (times[-1], n, kv, pv)
    if times:
        print(f"{'random reports':<18} {len(times):>6}  {'':>8}  {np.mean(times):9.4f}  {np.max(times):9.4f}"
              f"   (slowest: n = {worst[1]}, kappa {worst[2]}, p_o {worst[3]})")


if __name__ == "__main__":
    main()
