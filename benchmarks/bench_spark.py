"""Benchmark: the Spark engine (local mode) against DuckDB and pandas on a messy 200k-row pair.

Run as ``python benchmarks/bench_spark.py [--n 190000] [--seed 11] [--case 2] [--repeats 2]``.

The data: ``tests/messy_inputs.py``'s ``messy_pair(n, seed)``, about 200k rows a side for
``n = 190,000`` (duplicates identical and conflicting, some keys three times, unmatched rows on both
sides, out-of-scale labels, refusals flagged and as the sentinel -1, missing labels, missing and blank
keys, numeric keys on one side and padded text keys on the other), written as one Parquet file a side.
The policies are ``POLICY_CASES[case]`` (default 2: majority votes, out-of-scale labels as missing,
refusals relabelled to 0, unjudged items filled with 0), the cells kept by ``query_id``.

What is timed (wall clock, ``time.perf_counter``)
-------------------------------------------------
* the local Spark session's start (``local[2]``, 1 GB driver; JVM start included);
* each engine's alignment of the two Parquet files to cells by query, ``--repeats`` times (the first
  Spark call also warms the JVM: shown apart); pandas reads the Parquet files itself.

Printed: the timings, and whether the Spark engine's report (names, sources, input counts, every
fate count, notes, out-of-scale values with their first lines, conflict examples with their lines,
pairs) and cells equal DuckDB's and pandas', field by field; then Cohen's kappa of the pooled table and
the number of cells from each engine.

The issue's target: "Spark local mode: identical tables and report to DuckDB on a messy 200k-row
pair" (identity, not speed: Spark is for data that lives on a cluster; on one machine DuckDB is the
faster engine).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def _norm_cells(cells):
    return [tuple(None if (isinstance(v, float) and np.isnan(v)) else v for v in r)
            for r in cells.astype(object).itertuples(index=False)]


def _differences(a, b) -> list[str]:
    """The fields in which two AlignmentCounts differ (empty: identical)."""
    import pandas as pd

    out = []
    for f in ("names", "sources", "n_input", "counts", "notes", "n_pairs"):
        if getattr(a.report, f) != getattr(b.report, f):
            out.append(f)
    for f in ("out_of_scale", "conflicts"):
        try:
            pd.testing.assert_frame_equal(getattr(a.report, f), getattr(b.report, f))
        except AssertionError:
            out.append(f)
    if list(a.cells.columns) != list(b.cells.columns) or _norm_cells(a.cells) != _norm_cells(b.cells):
        out.append("cells")
    if a.scale != b.scale:
        out.append("scale")
    return out


def _kappa(cells, scale) -> float:
    import metaeval as me

    levels = list(scale.levels)
    table = np.zeros((len(levels), len(levels)), dtype=np.int64)
    for r, c, n in cells[["reference", "candidate", "n"]].itertuples(index=False):
        table[levels.index(r), levels.index(c)] += int(n)
    return float(me.cohen_kappa(table=table, ci_method=None).estimate)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=190_000, help="messy_pair's n (about n * 1.06 rows a side)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--case", type=int, default=2, help="index into POLICY_CASES")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)

    from messy_inputs import POLICY_CASES, messy_pair, write_pair

    from metaeval.data.engines import align_pandas
    from metaeval.data.engines.duckdb_engine import align_duckdb
    from metaeval.data.engines.spark_engine import align_spark, local_session

    warnings.simplefilter("ignore")
    ref, cand = messy_pair(args.n, seed=args.seed)
    kw = dict(POLICY_CASES[args.case], by=("query_id",))
    print(f"messy pair: {len(ref):,} reference rows, {len(cand):,} candidate rows (n={args.n}, seed={args.seed}); "
          f"policies: POLICY_CASES[{args.case}]")
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        a, b = write_pair(ref, cand, Path(tmp), "parquet")
        t0 = time.perf_counter()
        spark = local_session()
        t_session = time.perf_counter() - t0
        print(f"Spark local session start: {t_session:6.1f} s  (Spark {spark.version}, {spark.sparkContext.master})")

        timings: dict[str, list[float]] = {"pandas": [], "duckdb": [], "spark": []}
        results = {}
        runners = {"pandas": lambda: align_pandas(a, b, labels="relevance", **kw),
                   "duckdb": lambda: align_duckdb(a, b, **kw),
                   "spark": lambda: align_spark(a, b, spark=spark, **kw)}
        for _ in range(args.repeats):
            for name, run in runners.items():
                t0 = time.perf_counter()
                results[name] = run()
                timings[name].append(time.perf_counter() - t0)
        spark.stop()

    print()
    print(f"{'engine':<8} {'first call':>11} {'best later':>11}   cells   pairs    kappa (pooled)")
    for name in ("pandas", "duckdb", "spark"):
        ts = timings[name]
        later = f"{min(ts[1:]):9.1f} s" if len(ts) > 1 else "        -  "
        res = results[name]
        print(f"{name:<8} {ts[0]:9.1f} s {later}  {len(res.cells):6,} {res.report.n_pairs:7,}    "
              f"{_kappa(res.cells, res.scale):.6f}")
    print()
    ok = True
    for other in ("duckdb", "pandas"):
        diff = _differences(results["spark"], results[other])
        ok &= not diff
        print(f"Spark vs {other}: " + ("identical report (every field) and cells" if not diff
                                      else f"DIFFERENT in {', '.join(diff)}"))
    rep = results["spark"].report
    print(f"report: {rep.n_input}, {sum(rep.counts.values()):,} fates, {len(rep.out_of_scale)} out-of-scale "
          f"values, {len(rep.conflicts)} conflict examples")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
