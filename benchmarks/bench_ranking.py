"""Issue 4's two speed targets in one run: scoring and the topic bootstrap.

1. ``metaeval.system_scores`` versus ``ir_measures.iter_calc`` on the same DataFrames (60 runs × 200
   topics × 1,000 documents, synthetic and seeded), nDCG@10; values must be identical. Target: at
   least 20x faster.
2. The topic bootstrap (B = 2,000) of tau-b, rho and tau_AP from the two score matrices (human and a
   noisier "judge" qrels). Target: under 1 s.

    python benchmarks/bench_ranking.py [--runs 60] [--topics 200] [--depth 1000]

(benchmarks/bench_system_scores.py has the detailed scoring comparison with more measures and the
real TREC DL runs.)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import metaeval as me


def make(n_runs, n_topics, depth, seed=0):
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for t in range(n_topics):
        qid = f"{1000000 + t}"
        docs = np.array([f"{7000000 + t * 2000 + i}" for i in range(1500)])
        judged = rng.random(1500) < 0.3
        grades = rng.choice(4, 1500, p=[0.6, 0.2, 0.12, 0.08])
        q_rows.append(pd.DataFrame({"query_id": qid, "doc_id": docs[judged], "relevance": grades[judged]}))
        for r in range(n_runs):
            quality = 0.1 + 1.1 * (r / max(n_runs - 1, 1))
            score = np.round(quality * grades + rng.normal(0, 1, 1500), 3)
            top = np.argsort(-score, kind="stable")[:depth]
            r_rows.append(pd.DataFrame({"query_id": qid, "doc_id": docs[top], "score": score[top],
                                        "rank": np.arange(1, depth + 1), "run_id": f"run{r:02d}"}))
    qrels = pd.concat(q_rows, ignore_index=True)
    runs = pd.concat(r_rows, ignore_index=True)
    noisy = qrels.copy()
    flip = rng.random(len(noisy)) < 0.3
    noisy.loc[flip, "relevance"] = rng.choice(4, int(flip.sum()))
    return qrels, noisy, runs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--topics", type=int, default=200)
    ap.add_argument("--depth", type=int, default=1000)
    args = ap.parse_args(argv)
    import ir_measures

    qrels, noisy, runs = make(args.runs, args.topics, args.depth)
    print(f"{args.runs} runs x {args.topics} topics x {args.depth} docs: {len(runs):,} run rows, {len(qrels):,} qrels")
    me.system_scores(qrels, runs[runs["run_id"] == "run00"], "nDCG@10")  # warm-up (imports)
    t = time.perf_counter()
    ours = me.system_scores(qrels, runs, "nDCG@10")
    t_ours = time.perf_counter() - t
    measure = ir_measures.parse_measure("nDCG@10")
    t = time.perf_counter()
    ref = {}
    for run_id, run in runs.groupby("run_id", sort=True):
        for m in ir_measures.iter_calc([measure], qrels, run[["query_id", "doc_id", "score"]]):
            ref[(run_id, m.query_id)] = m.value
    t_irm = time.perf_counter() - t
    M = ours.matrix("nDCG@10")
    diff = max(abs(M.loc[s, q] - v) for (s, q), v in ref.items())
    print(f"1. scoring nDCG@10: ir_measures.iter_calc {t_irm:.1f} s, metaeval.system_scores {t_ours:.2f} s -> "
          f"{t_irm / t_ours:.0f}x (target >= 20x: {'PASS' if t_irm / t_ours >= 20 else 'FAIL'}); "
          f"max |difference| {diff:.2e} over {len(ref):,} values")
    judge = me.system_scores(noisy, runs, "nDCG@10")
    methods = ("kendall_b", "spearman", "tau_ap")
    me.rank_correlation(ours, judge, measure="nDCG@10", methods=methods, n_resamples=20, ci_method="percentile", rng=0)
    t = time.perf_counter()
    res = me.rank_correlation(ours, judge, measure="nDCG@10", methods=methods, n_resamples=2000,
                              ci_method="percentile", rng=0)
    t_boot = time.perf_counter() - t
    print(f"2. topic bootstrap B = 2,000 of tau-b, rho, tau_AP: {t_boot:.2f} s "
          f"(target < 1 s: {'PASS' if t_boot < 1 else 'FAIL'})")
    print(res.to_frame()[["method", "estimate", "ci_low", "ci_high", "bias"]].round(4).to_string(index=False))


if __name__ == "__main__":
    main()
