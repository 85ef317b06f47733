"""Benchmark: how time and peak memory of align + cluster kappa grow with the number of judgments.

Run as ``python benchmarks/bench_scaling.py [--sizes 1M,10M,100M] [--pandas-max 10M] [--quick]
[--workdir /tmp/metaeval_bench] [--save] [--note TEXT]``. ``--save`` also writes the output to
``benchmarks/results/bench_scaling.txt``. The 100M pair is the one ``bench_align.py`` uses (shared
work folder); the full run takes about 10 minutes once the data exist.

The job is the one of ``bench_align.py`` (``bench_align.job_align_kappa``), end to end from two Parquet
files of n rows each (query_id, doc_id, relevance; 500 topics; the generator of ``_measure.py``)::

    p = metaeval.align(ref, cand, scale=Scale((0, 1, 2, 3)), engine="duckdb", by=("query_id",), rows=False)
    metaeval.cohen_kappa(p, cluster="query_id", n_resamples=10_000, rng=0)       # BCa

and the same with the pandas path for sizes up to ``--pandas-max`` (default 10M: about two minutes
there). Each (engine, size) runs once, in its own fresh process (``_measure.run_job``: wall time of
the stages, imports excluded; peak RSS of the process, imports included, and of its process tree).

The slopes are least-squares fits of log(cost) on log(n) over the sizes run: a slope of 1 means cost
proportional to n, 0 means constant. For memory two slopes are given: of the whole peak, and of the
peak above the process's RSS after its imports (the part the data cost). The kappa stage works on
the 500 per-topic tables and does not grow with n; the align stage carries the growth, so its slope
is printed apart.

Result on this project's machine (2 cores, quiet, 2026-12-01, benchmarks/results/bench_scaling.txt),
1M / 10M / 100M rows per side: DuckDB 1.25 / 8.4 / 84.2 s, peak 0.46 / 1.50 / 1.66 GB (time slope 0.91,
align alone 0.97; memory slope 0.28: DuckDB's memory limit, 1.5 GB, caps it); pandas 1.9 / 31.2 s,
peak 0.77 / 5.03 GB at 1M / 10M (time slope 1.21, memory slope 0.83; 100M would need ~35 GB by that
slope, more than the machine has).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import _measure as m
from bench_align import N_RESAMPLES, PRELOAD, usable

RESULTS = Path(__file__).resolve().parent / "results" / "bench_scaling.txt"
QUICK_SIZES = "100k,300k,1M"


def parse_n(s: str) -> int:
    s = s.strip().upper().replace("_", "").replace(",", "")
    mult = {"K": 1_000, "M": 1_000_000}.get(s[-1:], 1)
    return int(float(s[:-1] if mult > 1 else s) * mult)


def slope(xs, ys):
    """Least-squares slope of log(y) on log(x); None with fewer than two usable points."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def fmt_slope(b):
    return "-" if b is None else f"{b:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1M,10M,100M", help="rows per side, comma-separated (k/M suffixes)")
    ap.add_argument("--pandas-max", default="10M", help="run the pandas path up to this size (0: never)")
    ap.add_argument("--engines", default="duckdb,pandas")
    ap.add_argument("--quick", action="store_true", help=f"smoke run at {QUICK_SIZES}")
    ap.add_argument("--workdir", type=Path, default=m.DEFAULT_WORKDIR)
    ap.add_argument("--resamples", type=int, default=N_RESAMPLES)
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per job")
    ap.add_argument("--reuse", action="store_true",
                    help="take measurements of the same job from earlier runs (e.g. the 100M case "
                         "of bench_align.py) instead of running them again")
    ap.add_argument("--save", nargs="?", const=RESULTS, type=Path, default=None,
                    help="also write the output to this file (default benchmarks/results/bench_scaling.txt)")
    ap.add_argument("--note", default=None, help="a line for the header (e.g. who else used the machine)")
    args = ap.parse_args(argv)
    sizes = sorted(parse_n(s) for s in (QUICK_SIZES if args.quick else args.sizes).split(","))
    pandas_max = parse_n(args.pandas_max) if args.pandas_max not in ("0", "") else 0
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.workdir.resolve().is_relative_to(Path(__file__).resolve().parents[1]):
        ap.error("--workdir must be outside the repository")

    tee = m.Tee(args.save)
    sys.stdout = tee
    try:
        print("bench_scaling: " + " ".join(["python benchmarks/bench_scaling.py",
                                             *(argv if argv is not None else sys.argv[1:])]))
        print(m.machine_header())
        if args.note:
            print(f"note: {args.note}")
        print(f"data folder: {args.workdir}" + ("  (QUICK sizes: smoke run)" if args.quick else ""))
        data = {n: m.ensure_data(args.workdir, n, "parquet") for n in sizes}
        results = {}                      # (engine, n) -> JobResult
        for engine in engines:
            for n in sizes:
                if engine == "pandas" and n > pandas_max:
                    continue
                paths, _ = data[n]
                print(f"running {engine} at {n:,} ...", flush=True)
                job = m.run_job_cached(args.workdir / "jobs", f"{engine} {n}", "bench_align", "job_align_kappa",
                                       {"ref": str(paths[0]), "cand": str(paths[1]), "engine": engine,
                                        "n_resamples": args.resamples}, reuse=args.reuse, preload=PRELOAD,
                                       timeout=args.timeout)
                if job.name.endswith("(reused)"):
                    print(f"  measurement reused from an earlier run (code {job.code}; now {m.code_state()})")
                if not job.ok:
                    print(f"  {engine} at {n:,}: FAILED\n    " + job.stderr.strip().replace("\n", "\n    "))
                elif "unavailable" in job.result:
                    print(f"  {engine}: not available ({job.result['unavailable']})")
                results[(engine, n)] = job

        print(f"\nalign + cluster kappa (BCa, B = {args.resamples:,}, 500 topics), end to end from two Parquet "
              "files of n rows each")
        rows = []
        for engine in engines:
            for n in sizes:
                job = results.get((engine, n))
                if job is None:
                    rows.append([engine, f"{n:,}", "not run", "", "", "", "", "", ""])
                    continue
                if not usable(job):
                    rows.append([engine, f"{n:,}", "failed" if not job.ok else "n/a", "", "", "", "", "", ""])
                    continue
                a, k, imp = job.step("align"), job.step("kappa"), job.step("import")
                rows.append([engine, f"{n:,}", m.fmt_s(a["wall_s"]), m.fmt_s(k["wall_s"]), m.fmt_s(job.job_s),
                             m.fmt_s(job.job_cpu_s), m.fmt_mb(job.peak_mb), m.fmt_mb(job.peak_mb - imp["peak_mb"]),
                             f"{job.job_s / n * 1e9:,.0f} ns"])
        m.print_table(["engine", "n per side", "align", "kappa", "job", "job cpu", "peak RSS", "above imports",
                       "job / row"], rows)

        print("\nslopes of log(cost) against log(n) (1 = linear, 0 = constant):")
        srows = []
        for engine in engines:
            ok = [(n, results[(engine, n)]) for n in sizes if (engine, n) in results and usable(results[(engine, n)])]
            if len(ok) < 2:
                srows.append([engine, len(ok), "-", "-", "-", "-"])
                continue
            ns = [n for n, _ in ok]
            srows.append([engine, f"{len(ok)} ({m._label(ns[0])}-{m._label(ns[-1])})",
                          fmt_slope(slope(ns, [j.job_s for _, j in ok])),
                          fmt_slope(slope(ns, [j.step("align")["wall_s"] for _, j in ok])),
                          fmt_slope(slope(ns, [j.peak_mb for _, j in ok])),
                          fmt_slope(slope(ns, [j.peak_mb - j.step("import")["peak_mb"] for _, j in ok]))])
        m.print_table(["engine", "sizes", "time (job)", "time (align)", "peak RSS", "peak above imports"], srows)
        for engine in engines:
            ok = [(n, results[(engine, n)]) for n in sizes if (engine, n) in results and usable(results[(engine, n)])]
            if len(ok) >= 2:
                b_t = slope([n for n, _ in ok], [j.job_s for _, j in ok])
                b_m = slope([n for n, _ in ok], [j.peak_mb for _, j in ok])
                n0, n1 = ok[0][0], ok[-1][0]
                print(f"  {engine}: {n1 / n0:,.0f}x the judgments cost {ok[-1][1].job_s / ok[0][1].job_s:,.1f}x the time "
                      f"(slope {b_t:.2f}) and {ok[-1][1].peak_mb / ok[0][1].peak_mb:,.1f}x the peak memory "
                      f"(slope {b_m:.2f})")
        print("\nstages of each run:")
        for (engine, n), job in results.items():
            if usable(job):
                print(f"  {engine} at {n:,}:")
                m.print_steps(job)
        load = os.getloadavg()
        print(f"load average at end: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
        return 0
    finally:
        sys.stdout = tee.stdout
        tee.close()


if __name__ == "__main__":
    sys.exit(main())
