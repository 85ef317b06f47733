"""The κ / percent-agreement feasibility check at n ≤ 10,000 on a 2×2 table (issue #21: under 1 s).

Cases, each at n = 100, 1,000 and 10,000 (the reported numbers come from a real table, then one is
nudged so that no table gives them):

* ``kappa+po``        κ and p_o reported, no margins: a match exists (the usual case);
* ``kappa+po, none``  κ and p_o reported, no table gives them: the search ends with the nearest
  feasible pair (branch and bound over the number of agreements);
* ``kappa only``      κ alone, a match exists;
* ``kappa only, none``  κ alone, moved by 1e-7 and printed with 10 decimals so that no table matches: every (A, a) pair
  is visited — the worst case;
* ``margins``         κ and p_o with both raters' margins: the one free cell is enumerated;
* ``grim``            a proportion at n.

Each case is run ``--repeats`` times after one warm-up call; the mean and the maximum wall time
(``time.perf_counter``) are printed. Run: ``python benchmarks/bench_feasibility.py``.

Measured (2 cores shared with ~8 other jobs, so times are inflated; --repeats 5), n = 10,000:
``kappa only, none`` 13.0 s with the (A, a) scan before the W = v² − s² search, 0.13 s mean / 0.17 s max
after; ``kappa+po, none`` 0.77 s mean / 1.18 s max (the (A, a) branch and bound, unchanged: the only
case near the 1 s target on the loaded machine); every other case under 0.1 s.
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
        "margins": lambda: kappa_feasibility(f"{k:.3f}", n=n, percent_agreement=f"{po:.3f}", margins=margins),
        "grim": lambda: grim(f"{po:.3f}", n),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
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


if __name__ == "__main__":
    main()
