"""Benchmark: ``metaeval review paper.txt`` on large texts — time and peak memory, and the size limit.

Run as ``python benchmarks/bench_review_size.py [--mb 2 8 50] [--dense] [--tree DIR]``.

For each size the text is built from the seeded 10,000-word methods section of
``bench_review.py`` (about 100 APA results per 64 KB), repeated, or with ``--dense`` from one APA
sentence repeated (a result every 51 characters: the worst case for the number of rows); it is
written to a temporary file and ``metaeval review FILE --out DIR`` runs in a fresh process (the
package from ``--tree``, default this checkout), timed with the wall clock and measured with the
child's peak resident memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``; each size runs in
its own ``python`` so the peak is that run's). The exit status and the first error line are printed:
a text over ``MAX_TEXT_BYTES`` (4 MiB; ``METAEVAL_MAX_TEXT_BYTES``) is refused with exit 2.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run([sys.executable, "-c", "import sys; from metaeval.cli import main; sys.exit(main())", "review",
                    sys.argv[1], "--out", sys.argv[2]], capture_output=True, text=True)
el = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
first = (p.stdout.splitlines() or [""])[0] if p.returncode == 0 else (p.stderr.strip().splitlines() or [""])[-1]
print(f"{el:.1f}\t{rss:.0f}\t{p.returncode}\t{first[:160]}")
"""


def make(mb: float, dense: bool) -> str:
    sys.path.insert(0, str(HERE))
    from bench_review import make_text

    unit = ("The effect was significant, t(28) = 2.20, p = .03. " if dense else make_text(10_000, 100, 0) + "\n\n")
    return unit * max(1, int(mb * 2 ** 20 / len(unit.encode("utf-8"))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, nargs="+", default=[2, 8, 50])
    ap.add_argument("--dense", action="store_true")
    ap.add_argument("--tree", default=str(HERE.parent))
    args = ap.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": args.tree}
    rev = subprocess.run(["git", "-C", args.tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; tree {args.tree} @ {rev}; "
          f"load average {os.getloadavg()[0]:.1f}; {'dense' if args.dense else 'prose'} text")
    print("MB\tseconds\tpeak MB\texit\tfirst line (or error)")
    with tempfile.TemporaryDirectory() as tmp:
        for mb in args.mb:
            f = Path(tmp) / f"paper_{mb}.txt"
            f.write_text(make(mb, args.dense), encoding="utf-8")
            out = subprocess.run([sys.executable, "-c", CHILD, str(f), str(Path(tmp) / f"out_{mb}")], env=env,
                                 capture_output=True, text=True, cwd=tmp)      # cwd: not this checkout's package
            print(f"{f.stat().st_size / 2 ** 20:.1f}\t{out.stdout.strip() or out.stderr.strip()[-300:]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
