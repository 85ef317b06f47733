"""Benchmark: per-topic system scores, ``metaeval.systems.evaluation.system_scores`` vs ``ir_measures.iter_calc``.

Run as ``python benchmarks/bench_system_scores.py [--runs 60] [--topics 200] [--depth 1000] [--seed 0]
[--skip-real]``. It takes about 2 minutes (most of it in ir-measures, timed once per measure set).

Result on this project's machine (2 shared cores; numpy 2.4.6, pandas 3.1.1, ir-measures 0.4.3),
wall clock, median of 5: nDCG@10 0.61 s vs 37.1 s for iter_calc (61x); nDCG@10, nDCG@100, P@10, AP,
RR, R@100 1.47 s vs 36.9 s (25x); all 72,000 values bit-identical. The 159 official TREC DL runs
under 18 qrels sets: 0.8 s to read, 1.6 s to score.

Data (synthetic, seeded with ``numpy.random.default_rng(seed)``): 200 topics with 7-digit numeric
ids; per topic a candidate pool of 1,500 docs (7-digit ids, distinct across topics), of which 30% are
judged with grades 0-3 (P = 0.60/0.20/0.12/0.08): 89,871 qrels rows at the default seed. Each of the 60
runs ranks 1,000 docs per topic by ``quality * grade + N(0, 1)`` (quality ~ U(0.1, 1.2)), scores
rounded to 3 decimals (so ties are common: about 2 million tied neighbours in all), ranks 1..1000:
12,000,000 run rows in one DataFrame as ``metaeval.read_runs`` returns it (pandas' Arrow-backed
strings).

What is timed (``time.perf_counter`` wall clock and ``time.process_time`` CPU time; the machine is
shared, so the CPU ratio is the steadier one)
* ir-measures: ``ir_measures.iter_calc(measures, qrels_df, run_df)`` for each of the 60 runs (it
  takes one run at a time), collecting every metric; done once per measure set, since it is slow.
  Measure sets: ``nDCG@10`` alone, and ``nDCG@10, nDCG@100, P@10, AP, RR, R@100``. (Judged@k is
  left out of the comparison: ir-measures' own Judged breaks score ties by doc id *ascending* on
  float64 scores, so where ties straddle the cutoff it counts a different top k than trec_eval's
  ranking, which metaeval uses for every measure; 3 of 600 Judged@10 values differ on 3 of these runs.
  tests/test_evaluation.py checks Judged@k against a brute-force implementation instead.)
* metaeval: ``system_scores(qrels_df, runs_df, measures, backend="fast")``, the median (and the best)
  of 5 calls after a warm-up on a small slice (imports excluded). It includes everything: grouping, float32
  scores, trec_eval's tie-breaking, repeated-id checks, the report and the Judged@10/@100 table
  (``.judged``). With cutoff measures only (the first set), rows ranked below the deepest cutoff (100,
  for Judged@100) are never sorted; AP and RR need every row.
Every per-topic value of both measure sets is compared with ir-measures' and must be identical
(ties included: pytrec_eval breaks them as trec_eval does, and so does metaeval).

Real data (skipped with ``--skip-real`` or when ../shared/data/trec_dl_passage is absent): the 159
official TREC DL 2019-2021 passage runs scored with nDCG@10 and nDCG@100 under the human qrels and the
5 LLM qrels of each year (18 qrels sets): time to read the runs, and to score them all.

Target (issue 4): system_scores at least 20x faster than iter_calc on the same frames, identical values.

Issue 10 broke ``_Prepared.__init__`` into named steps. This benchmark, run before (at fa4656c)
and after (770fa03) on the shared machine: nDCG@10 0.82 s wall / 0.58 s CPU before, 2.34 / 0.89 after
(the load average rose from 0.4 to about 5 between the runs); 6 measures 3.75 / 1.73 before, 3.25 / 1.83
after. Both versions timed interleaved in one process (15 calls each, same frames, identical values):
nDCG@10 0.618 s CPU (median) before, 0.617 after; 6 measures 1.60 before, 1.68 after (best 1.51 and
1.49) -- no difference beyond the noise of the shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

TARGET = 20.0
REPEATS = 5
SETS = {"nDCG@10": ["nDCG@10"],
        "6 measures": ["nDCG@10", "nDCG@100", "P@10", "AP", "RR", "R@100"]}


def make_data(n_runs=60, n_topics=200, depth=1000, pool=1500, seed=0):
    """Synthetic qrels and runs (see the module docstring)."""
    rng = np.random.default_rng(seed)
    topics = np.array([str(v) for v in rng.choice(np.arange(1_000_000, 2_000_000), n_topics, replace=False)])
    docs = np.array([str(v) for v in rng.choice(np.arange(1_000_000, 9_999_999), n_topics * pool, replace=False)])
    docs = docs.reshape(n_topics, pool)
    grade = rng.choice(4, size=(n_topics, pool), p=[0.60, 0.20, 0.12, 0.08])
    judged = (rng.random((n_topics, pool)) < 0.3).ravel()
    qrels = pd.DataFrame({"query_id": np.repeat(topics, pool)[judged], "doc_id": docs.ravel()[judged],
                          "relevance": grade.ravel()[judged].astype(np.int64)})
    qrels = qrels.astype({"query_id": "str", "doc_id": "str"})
    frames = []
    for r in range(n_runs):
        quality = rng.uniform(0.1, 1.2)
        s = quality * grade + rng.normal(size=(n_topics, pool))
        idx = np.argsort(-s, axis=1)[:, :depth]
        score = np.round(np.take_along_axis(s, idx, 1) * 1000) / 1000 + 10
        frames.append(pd.DataFrame({"query_id": np.repeat(topics, depth),
                                    "doc_id": np.take_along_axis(docs, idx, 1).ravel(),
                                    "score": score.ravel(), "rank": np.tile(np.arange(1, depth + 1), n_topics),
                                    "run_id": f"run_{r:02d}"}))
    runs = pd.concat(frames, ignore_index=True).astype({"query_id": "str", "doc_id": "str", "run_id": "str"})
    return qrels, runs


def timed(fn, *args, **kw):
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return out, time.perf_counter() - w, time.process_time() - c


def iter_calc_all(measures, qrels, runs):
    import ir_measures

    ms = [ir_measures.parse_measure(m) for m in measures]
    out = {}
    for rid, g in runs.groupby("run_id", sort=True):
        for met in ir_measures.iter_calc(ms, qrels, g[["query_id", "doc_id", "score"]]):
            out[(rid, met.query_id, str(met.measure))] = met.value
    return out


def compare(scores, ref: dict) -> tuple[float, bool, int]:
    f = scores.frame
    keys = list(zip(f["system"], f["query_id"], f["measure"]))
    if len(keys) != len(ref) or set(keys) != set(ref):
        raise SystemExit(f"different (system, topic, measure) cells: {len(keys)} vs {len(ref)}")
    mine = f["value"].to_numpy()
    theirs = np.array([ref[k] for k in keys])
    d = np.abs(mine - theirs)
    return float(d.max()), bool((mine == theirs).all()), len(keys)


def real_data(root: Path):
    import metaeval
    from metaeval.systems.evaluation import system_scores

    d = root / "trec_dl_passage"
    years = ("dl19", "dl20", "dl21")
    llm = ("umbrela-zeroshot-gpt-4o", "umbrela-zeroshot-gpt-4", "binary-gpt-4o", "binary-gpt-4", "binary-llama3.2")
    w = time.perf_counter()
    runs = {y: metaeval.read_runs(d / "runs" / y) for y in years}
    t_read = time.perf_counter() - w
    n_runs = sum(r["run_id"].nunique() for r in runs.values())
    n_rows = sum(len(r) for r in runs.values())
    w, c = time.perf_counter(), time.process_time()
    n_sets = 0
    for y in years:
        human = d / "qrels" / "human" / f"qrels.{y}-passage.txt"
        for q in [human] + [d / "qrels" / "llm" / f"{name}.{y}.txt" for name in llm]:
            system_scores(q, runs[y], ["nDCG@10", "nDCG@100"], reference_qrels=human)
            n_sets += 1
    t_wall, t_cpu = time.perf_counter() - w, time.process_time() - c
    print(f"\nReal data: {n_runs} official TREC DL 2019-2021 passage runs ({n_rows:,} rows, top 100 per topic)")
    print(f"  read_runs (all three years):                       {t_read:7.2f} s")
    print(f"  system_scores, nDCG@10 + nDCG@100, {n_sets} qrels sets")
    print(f"  (human + 5 LLM qrels per year, topics = intersection):  {t_wall:7.2f} s wall, {t_cpu:.2f} s CPU "
          f"({t_wall / n_sets:.3f} s per qrels set)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--topics", type=int, default=200)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-real", action="store_true")
    args = ap.parse_args(argv)

    import ir_measures

    from metaeval.systems.evaluation import system_scores

    w = time.perf_counter()
    qrels, runs = make_data(args.runs, args.topics, args.depth, seed=args.seed)
    print(f"Data: {runs['run_id'].nunique()} runs x {args.topics} topics x {args.depth} docs = {len(runs):,} run rows; "
          f"{len(qrels):,} qrels rows (built in {time.perf_counter() - w:.1f} s)")
    print(f"ir_measures {ir_measures.__version__}, numpy {np.__version__}, pandas {pd.__version__}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start\n")

    # warm-up: imports and first-call costs of both tools
    small = runs[runs["run_id"] == runs["run_id"].iloc[0]].iloc[:5000]
    system_scores(qrels, small, SETS["6 measures"])
    list(ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, small[["query_id", "doc_id", "score"]]))

    rows = []
    for label, measures in SETS.items():
        walls, cpus = [], []
        for _ in range(REPEATS):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s, sw, sc = timed(system_scores, qrels, runs, measures, backend="fast")
            walls.append(sw)
            cpus.append(sc)
        print(f"{label}: system_scores took {', '.join(f'{w:.2f}' for w in walls)} s wall "
              f"({', '.join(f'{c:.2f}' for c in cpus)} s CPU); timing ir_measures.iter_calc on the runs ...",
              flush=True)
        ref, iw, ic = timed(iter_calc_all, measures, qrels, runs)
        diff, exact, n = compare(s, ref)
        if diff > 1e-12:
            raise SystemExit(f"{label}: values differ from ir-measures by up to {diff:.3g}")
        sw, sc = statistics.median(walls), statistics.median(cpus)
        rows.append((label, iw, ic, sw, sc, min(walls), min(cpus), diff, exact, n))
        print(f"{label}: {n:,} per-topic values, max |difference| = {diff:.3g} "
              f"({'bit-identical' if exact else 'within 1e-12'}); system_scores ranked "
              f"{'every row' if s.report.settings['depth'] is None else 'the top ' + str(s.report.settings['depth'])}")

    print(f"\n                 ir_measures.iter_calc    system_scores, median of {REPEATS} (best)      speed-up (best)")
    print("measures           wall (s)   CPU (s)       wall (s)          CPU (s)           wall          CPU")
    ok = True
    for label, iw, ic, sw, sc, bw, bc, *_ in rows:
        print(f"{label:<16} {iw:9.1f} {ic:9.1f}    {sw:6.2f} ({bw:4.2f})    {sc:6.2f} ({bc:4.2f})    "
              f"{iw / sw:5.1f}x ({iw / bw:4.1f}x) {ic / sc:5.1f}x ({ic / bc:4.1f}x)")
        ok &= min(iw / sw, ic / sc) >= TARGET
    print(f"\nTarget: at least {TARGET:.0f}x faster with identical values: {'met' if ok else 'NOT met'} "
          f"(on the medians: the smaller of the wall and CPU ratios, every measure set)")
    print("CPU time includes the kernel's (page faults of fresh arrays), which varies most on a shared machine.")
    print("(issue 4 measured iter_calc at 75-90 s per qrels set on the project's machines)")

    if not args.skip_real:
        env = os.environ.get("METAEVAL_SHARED_DATA")
        root = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
        if (root / "trec_dl_passage").is_dir():
            real_data(root)
        else:
            print(f"\nReal data: {root / 'trec_dl_passage'} not found, skipped")


if __name__ == "__main__":
    main()
