"""PERM-BOTH for two judges: metaeval.level_difference against mt-metrics-eval's PermutationSigDiff.

Same input for both: 20 systems × 2,000 items, human scores with a system effect, two judges
(human + independent noise of SD 1.0 each: equally good, so p is not near 0), item-level ("summary level") Pearson and the flattened ("none")
Pearson, 1,000 cell-wise permutations of the z-scored judges, p = share of permutations with
Δ* ≥ Δ (mt-metrics-eval's convention: ``convention="mtme"``). mt-metrics-eval runs in its own
environment (it is not a dependency), in a subprocess, on the same matrices saved to a temporary
.npz file; its early stopping is off (``block_size = k``). The printed Monte Carlo SE is that of the
difference of the two independent p estimates, √(2 p(1 − p)/1000). The ratio is of CPU time
(``time.process_time`` of each process: the machine is shared, wall time is printed too).

Run::

    PYTHONPATH=. python benchmarks/bench_levels.py [--python /tmp/venv-levels/bin/python]
        [--mtme-src /tmp/mtme-src] [--levels item none] [--k-peer 1000 1000]

On a shared machine the item level of mt-metrics-eval (2 × 2,000 scipy calls per permutation) can
be run with fewer permutations (``--k-peer 200 1000``): its loop is linear in k, so its time is
scaled to 1,000 (said so on the line), and the p-values are compared with the Monte Carlo SE of both.

Results: benchmarks/results/bench_levels.txt.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

PEER = r"""
import json, sys, time
import numpy as np, scipy.stats
from mt_metrics_eval import stats as ms
d = np.load(sys.argv[1])
H, A, B, level, k = d["H"], d["A"], d["B"], sys.argv[2], int(sys.argv[3])
S = H.shape[0]
c_other = ms.Correlation(S, [float(v) for v in H.ravel()], [float(v) for v in B.ravel()])
c_judge = ms.Correlation(S, [float(v) for v in H.ravel()], [float(v) for v in A.ravel()])
np.random.seed(0)
t, c = time.perf_counter(), time.process_time()
p, delta, used, _ = ms.PermutationSigDiff(c_other, c_judge, scipy.stats.pearsonr, level, k=k,
                                          params=ms.PermutationSigDiffParams(block_size=k))
print(json.dumps({"p": p, "delta": delta, "k": used, "seconds": time.perf_counter() - t,
                  "cpu": time.process_time() - c}))
"""


def data(seed=0, s=20, i=2000):
    g = np.random.default_rng(seed)
    H = g.normal(0, 1, (s, i)) + g.normal(0, 0.5, (s, 1))
    A = H + g.normal(0, 1.0, (s, i))
    B = H + g.normal(0, 1.0, (s, i))
    return H, A, B


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="/tmp/venv-levels/bin/python")
    ap.add_argument("--mtme-src", default="/tmp/mtme-src")
    ap.add_argument("--levels", nargs="+", default=["item", "none"])
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--k-peer", type=int, nargs="+", default=None,
                    help="permutations of mt-metrics-eval per level (default --k); its time is scaled to --k")
    args = ap.parse_args(argv)
    import metaeval

    H, A, B = data()
    print(f"PERM-BOTH, {H.shape[0]} systems × {H.shape[1]} items, {args.k} permutations, Pearson; "
          f"metaeval {metaeval.__version__}, numpy {np.__version__}")
    metaeval.level_difference(H[:3, :20], A[:3, :20], B[:3, :20], n_permutations=10, ci_method=None)  # warm-up
    k_peer = dict(zip(args.levels, args.k_peer or [args.k] * len(args.levels)))
    for level in args.levels:
        t, c = time.perf_counter(), time.process_time()
        d = metaeval.level_difference(H, A, B, level=level, method="pearson", n_permutations=args.k,
                                      convention="mtme", ci_method=None, rng=1)
        ours, ours_cpu = time.perf_counter() - t, time.process_time() - c
        with tempfile.TemporaryDirectory() as tmp:
            f = os.path.join(tmp, "m.npz")
            np.savez(f, H=H, A=A, B=B)
            env = dict(os.environ, PYTHONPATH=args.mtme_src)
            mlevel = {"item": "item", "none": "none", "system_group": "sys"}[level]
            out = subprocess.run([args.python, "-c", PEER, f, mlevel, str(k_peer[level])], capture_output=True,
                                 text=True, env=env, check=True)
        peer = json.loads(out.stdout.strip().splitlines()[-1])
        scale = args.k / k_peer[level]              # mt-metrics-eval's loop is linear in k: scale its time
        peer["seconds"] *= scale
        peer["cpu"] *= scale
        se = np.sqrt(max(peer["p"] * (1 - peer["p"]), 1 / args.k) * (1 / args.k + 1 / k_peer[level]))
        print(f"level={level:5s} metaeval {ours:8.2f} s wall {ours_cpu:8.2f} s CPU  p = {d.pvalue:.4f}  "
              f"Δ = {d.estimate:.6f} | mt-metrics-eval {peer['seconds']:8.2f} s wall {peer['cpu']:8.2f} s CPU  "
              f"p = {peer['p']:.4f}  Δ = {peer['delta']:.6f} | ratio (CPU) {peer['cpu'] / ours_cpu:6.1f}×  "
              f"|Δp| = {abs(d.pvalue - peer['p']):.4f} (MC SE {se:.4f})"
              + (f"  [mt-metrics-eval ran {k_peer[level]} permutations; its times are scaled ×{scale:g}]"
                 if scale != 1 else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
