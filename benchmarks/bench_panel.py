"""Benchmark: a 33-judge panel on the LLMJudge challenge's 4,423 pairs with B = 2,000 topic draws.

Run as ``python benchmarks/bench_panel.py [--seeds 3] [--data ../shared/data/llmjudge]``.

What is timed (wall clock, ``time.perf_counter``), end to end from the files:
``metaeval.judge_panel(human_qrels, llm_judgments_folder, statistic="cohen_kappa", scale=0..3,
out_of_scale="clip", cluster="query_id", n_resamples=2000, rng=seed)`` — reading and aligning the 33
judge files with the human qrels, the shared bootstrap of 25 topics, every judge's BCa interval, the
max-T intervals for all pairwise differences and what is read off them (the differences to the best,
the set tied with the best, simultaneous and marginal rank sets), and the 33 × 33 agreement and
error-correlation matrices. The first call of the process (lazy imports) is run
once before timing; the mean and the spread over ``--seeds`` calls are printed.

Target (issue #22): under 10 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

TARGET_S = 10.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    default = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default / "llmjudge")
    args = ap.parse_args(argv)

    import metaeval as me

    human = args.data / "human_qrels" / "llmjudge_test_qrel_idx.txt"
    folder = args.data / "llm_judgments"
    if not human.is_file():
        raise SystemExit(f"no LLMJudge data at {args.data} (pass --data)")
    kw = dict(statistic="cohen_kappa", scale=me.Scale((0, 1, 2, 3)), out_of_scale="clip", cluster="query_id",
              n_resamples=2000)
    me.judge_panel(human, folder, ci_method=None, **{k: v for k, v in kw.items() if k != "n_resamples"})  # imports
    times = []
    for seed in range(args.seeds):
        t0 = time.perf_counter()
        res = me.judge_panel(human, folder, rng=seed, **kw)
        times.append(time.perf_counter() - t0)
        print(f"seed {seed}: {times[-1]:.2f} s  ({len(res)} judges, {res.design['n_items']} pairs, "
              f"{res.design['n_clusters']} topics, B = {res.design['n_resamples']}; best {res.best}, "
              f"{len(res.tied)} tied with it)")
    mean = statistics.fmean(times)
    sd = statistics.stdev(times) if len(times) > 1 else 0.0
    print(f"judge_panel, 33 judges x 4,423 pairs, B = 2,000 topic draws: mean {mean:.2f} s (sd {sd:.2f}, "
          f"{len(times)} seeds); target < {TARGET_S:.0f} s: {'met' if mean < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main()
