"""Coverage at every look of metaeval's confidence sequences, beside fixed-sample intervals looked at
continuously, and the drift monitor on a real LLMJudge stream (judge swapped; systems changed).

    python benchmarks/coverage_monitor.py [--streams 200] [--seeds 5] [--n 5000] [--llmjudge-runs 100]

Part 1 (simulation): drift-free streams of n (human, judge) pairs; a human label is positive with
probability 0.3 and the judge copies it with probability 0.8, else draws its own label from the same
margin. A "false alarm" of an interval procedure is a stream in which the truth falls outside the
interval at ANY look. Proportions (accuracy, sensitivity, specificity) are checked after every pair
(the dual check: the truth is in the sequence at n iff the mixture at the truth is below 1/alpha);
kappa and alpha after every 50th pair (their own sequence), and after every pair through the union
bound: the share of streams in which any of their component sequences (observed agreement, margins)
misses at any pair, an upper bound of their miss rate at every look ("every_pair_bound"; for
proportions it is the same as cs_any_miss). Beside each: the fixed-sample interval of the same
statistic (Wilson; kappa with the Fleiss–Cohen–Everitt variance), checked at the same looks. Each cell is the
mean over seeds of the per-seed rate, with the standard error across seeds.

Part 2 (real data, ../shared/data/llmjudge): anchor pairs are drawn from the 4,423 test pairs with
their NIST labels (binarised at 2); the baseline is 500 anchors judged by the strong judge
willia-umbrela1. (a) Judge swap: after day 15 the weakest of the 33 judges (lowest binary agreement) judges both the anchors
and production; (b) systems change: after day 15 production items come from the pairs the humans
call relevant with probability 0.5 (instead of their share, 0.27), the judge unchanged. 30 days,
100 anchors and 300 production items a day. Reported: the share of runs attributed to "judge" and
"systems", and the detection delay in days after the change.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import metaeval as me  # noqa: E402
from metaeval.agreement import analytic  # noqa: E402
from metaeval.monitoring.sequences import _log_mixture  # noqa: E402

ALPHA = 0.05
Z = 1.959963984540054


def wilson_out(s, n, p):
    ph = s / n
    centre = (ph + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * np.sqrt(ph * (1 - ph) / n + Z * Z / (4 * n * n))
    return (p < centre - half) | (p > centre + half)


def cs_out(s, n, p, t_opt):
    with np.errstate(all="ignore"):
        return _log_mixture(np.full(np.shape(s), p), s / np.maximum(n, 1), n, t_opt, ALPHA) >= np.log(1 / ALPHA)


def one_seed(seed, streams, n, prev=0.3, acc=0.8):
    rng = np.random.default_rng(seed)
    pe = prev ** 2 + (1 - prev) ** 2
    po = acc + (1 - acc) * pe
    truth = {"accuracy": po, "sensitivity": acc + (1 - acc) * prev, "specificity": acc + (1 - acc) * (1 - prev),
             "cohen_kappa": (po - pe) / (1 - pe), "krippendorff_alpha": (po - pe) / (1 - pe)}
    out = {k: [0, 0] for k in truth}
    bound = {"cohen_kappa": 0, "krippendorff_alpha": 0}
    looks = np.arange(50, n + 1, 50)
    for _ in range(streams):
        h = (rng.random(n) < prev).astype(int)
        j = np.where(rng.random(n) < acc, h, (rng.random(n) < prev).astype(int))
        for st, given, x in (("accuracy", np.ones(n, bool), h == j), ("sensitivity", h == 1, j == 1),
                             ("specificity", h == 0, j == 0)):
            cnt = np.cumsum(given)
            s = np.cumsum(given & x)
            ok = cnt > 0
            out[st][0] += bool(cs_out(s[ok], cnt[ok], truth[st], float(n)).any())
            out[st][1] += bool(wilson_out(s[ok], cnt[ok], truth[st]).any())
        for st in ("cohen_kappa", "krippendorff_alpha"):
            # direct: the statistic's own sequence, looked at every 50 pairs
            seq = me.agreement_sequence(h, j, statistic=st, every=50)
            out[st][0] += bool(((seq["ci_low"] > truth[st]) | (seq["ci_high"] < truth[st])).any())
            # bound, after every pair: the union bound fails only if some component sequence misses
            nn = np.arange(1, n + 1)
            if st == "cohen_kappa":
                comps = [(h == j, po), (h == 1, prev), (j == 1, prev)]
            else:
                comps = [(h == j, po), ((h == 1).astype(float) / 2 + (j == 1) / 2, prev)]
            a = ALPHA / len(comps)
            miss = False
            for x, t in comps:
                with np.errstate(all="ignore"):
                    lm = _log_mixture(np.full(n, t), np.cumsum(x) / nn, nn, float(n), a)
                miss |= bool((lm >= np.log(1 / a)).any())
            bound[st] += miss
        # the fixed-sample kappa interval (FCE variance), checked at the same looks
        tab = np.zeros((len(looks), 2, 2))
        for a in (0, 1):
            for b in (0, 1):
                tab[:, a, b] = np.cumsum((h == a) & (j == b))[looks - 1]
        res = analytic.cohen_kappa(tab, "identity")
        se = np.sqrt(res.variance)
        fixed_out = (np.abs(res.estimate - truth["cohen_kappa"]) > Z * se).any()
        out["cohen_kappa"][1] += bool(fixed_out)
        out["krippendorff_alpha"][1] += bool(fixed_out)  # same large-sample interval (alpha ≈ Scott's pi ≈ kappa here)
    return {k: (v[0] / streams, v[1] / streams, bound.get(k, v[0]) / streams) for k, v in out.items()}


def part1(args):
    rows = []
    per_seed = [one_seed(20261202 + s, args.streams, args.n) for s in range(args.seeds)]
    for st in per_seed[0]:
        cs = np.array([r[st][0] for r in per_seed])
        fx = np.array([r[st][1] for r in per_seed])
        bd = np.array([r[st][2] for r in per_seed])
        rows.append({"statistic": st, "cs_any_miss": cs.mean(), "cs_se": cs.std(ddof=1) / np.sqrt(len(cs)),
                     "every_pair_bound": bd.mean(), "bound_se": bd.std(ddof=1) / np.sqrt(len(bd)),
                     "fixed_any_miss": fx.mean(), "fixed_se": fx.std(ddof=1) / np.sqrt(len(fx))})
    return pd.DataFrame(rows)


def read_labels(path):
    d = pd.read_csv(path, sep=r"\s+", header=None, names=["q", "x", "d", "label"], dtype={"q": str, "d": str})
    return d.set_index(["q", "d"])["label"].clip(0, 3)


def part2(args, data):
    human = read_labels(data / "human_qrels" / "llmjudge_test_qrel_idx.txt")
    strong = read_labels(data / "llm_judgments" / "willia-umbrela1.txt").reindex(human.index)
    h = (human.to_numpy() >= 2).astype(int)
    js = (strong.to_numpy() >= 2).astype(int)
    # the weak judge: the submission with the lowest binary agreement with the humans
    accs = {f.stem: ((read_labels(f).reindex(human.index).to_numpy() >= 2).astype(int) == h).mean()
            for f in sorted((data / "llm_judgments").glob("*.txt"))}
    weak_name = min(accs, key=accs.get)
    jw = (read_labels(data / "llm_judgments" / f"{weak_name}.txt").reindex(human.index).to_numpy() >= 2).astype(int)
    print(f"strong judge willia-umbrela1: binary agreement {accs['willia-umbrela1']:.4f}; "
          f"weak judge {weak_name}: {accs[weak_name]:.4f}; human positive share {h.mean():.4f}")
    rel = np.flatnonzero(h == 1)
    days, change, per_a, per_p = 30, 15, 100, 300
    results = {"judge swap": [], "systems change": []}
    for run in range(args.llmjudge_runs):
        rng = np.random.default_rng(1000 + run)
        bi = rng.choice(len(h), 500, replace=False)
        base = pd.DataFrame({"reference": h[bi], "candidate": js[bi]})
        base_prod = js[rng.choice(len(h), 1000, replace=False)]
        for scenario in results:
            rows = []
            for day in range(days):
                after = day >= change
                judge = jw if (after and scenario == "judge swap") else js
                ai = rng.choice(len(h), per_a)
                if after and scenario == "systems change":
                    pi = np.where(rng.random(per_p) < 0.5, rng.choice(rel, per_p), rng.choice(len(h), per_p))
                else:
                    pi = rng.choice(len(h), per_p)
                rows.append(pd.DataFrame({"day": day, "reference": np.r_[h[ai], np.full(per_p, np.nan)],
                                          "candidate": np.r_[judge[ai], judge[pi]]}).sample(frac=1, random_state=run))
            stream = pd.concat(rows, ignore_index=True)
            res = me.monitor(base, stream, delta=0.02, baseline_production=base_prod)
            at = res.alarm_at if res.attribution == "judge" else res.production_alarm_at
            delay = (stream["day"].iloc[at - 1] - change + 1) if at else np.nan
            results[scenario].append((res.attribution, delay))
    rows = []
    for scenario, rs in results.items():
        attr = pd.Series([a for a, _ in rs])
        delays = np.array([d for _, d in rs], dtype=float)
        rows.append({"scenario": scenario, "runs": len(rs), "judge": (attr == "judge").mean(),
                     "systems": (attr == "systems").mean(), "none": (attr == "none").mean(),
                     "delay_days_mean": np.nanmean(delays), "delay_days_sd": np.nanstd(delays, ddof=1)})
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--llmjudge-runs", type=int, default=100)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "data",
                    help="the shared data folder (default: ../shared/data beside the repository)")
    args = ap.parse_args()
    t0 = time.time()
    pd.set_option("display.width", 140)
    print(f"Part 1: {args.seeds} seeds x {args.streams} drift-free streams of {args.n} pairs "
          f"({args.seeds * args.streams} streams); share of streams with ANY look excluding the truth")
    print(part1(args).round(4).to_string(index=False))
    data = args.data / "llmjudge"
    if data.exists() and args.llmjudge_runs:
        print(f"\nPart 2: LLMJudge stream, {args.llmjudge_runs} runs per scenario (30 days, change after day 15)")
        print(part2(args, data).round(3).to_string(index=False))
    else:
        print("\nPart 2 skipped: ../shared/data/llmjudge is absent")
    print(f"\n{time.time() - t0:.0f} s; metaeval {me.__version__}")


if __name__ == "__main__":
    main()
