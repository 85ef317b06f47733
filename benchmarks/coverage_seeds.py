"""Every coverage simulation quoted in README.md, docs/ and the docstrings, rerun over several seeds.

Each simulation is the one that produced a published coverage figure (the test, benchmark or
function named in its entry below); here it runs ``--seeds`` times (default 10) with the seed as
the only change: seed k is the original seed + 1000·k (k = 0 reproduces the original run's first
data sets; the original seeds of multirater, prevalence and leaderboard are not recorded, so there
the base seed is new), and per seed ``--scale`` × the original number of simulated data sets (default 0.1, so
that the ten seeds together simulate as many data sets as the original single run: the pooled
precision is the original's). Printed per cell: the mean coverage over the seeds, ``mc_se`` = its
Monte Carlo error as the SD across seeds / √seeds, ``binom_se`` = the binomial SE √(p(1 − p)/R) of
the pooled rate over all R data sets (a check on ``mc_se``: the two agree when the data sets are
independent), the lowest and highest seed, and where the original reports it the mean width.

The simulations (``--only NAME``, comma-separated; ``--list`` prints them; cheapest first):

* ``analytic``   — tests/test_analytic.py::coverage_simulation (two-rater analytic intervals, t and
  normal quantile; the table of metaeval/agreement/analytic.py and docs/statistics/intervals.md).
* ``gjack``      — tests/test_arena_scale.py::grouped_jackknife_coverage_test (BCa with the leave-one-out
  and the delete-a-group jackknife, percentile; metaeval.core.resample.bootstrap's Notes).
* ``multirater`` — the analytic-interval table of metaeval/agreement/multirater.py (the design of
  tests/test_multirater.py::analytic_coverage_test, all seven rows).
* ``iid``        — tests/test_coverage.py::iid_coverage (Cohen's kappa, iid items; README).
* ``cluster``    — tests/test_coverage.py::cluster_coverage (topic-clustered kappa, 3–60 topics;
  CLUSTER_COVERAGE, cluster_correction_factor's table, README).
* ``prevalence`` — the 48-scenario simulation of metaeval.inference.prevalence.RG_COVERAGE (its loop is
  tests/test_prevalence.py::_coverage; here with the width too).
* ``systems``    — metaeval.corrected_coverage on TREC DL 2019–2021 (UMBRELA GPT-4o judge, NIST qrels)
  at 5, 10, 20 and 30 labelled topics, and at 15 with one λ per run (``lam_optim_mode="element"``)
  (metaeval/inference/systems.py). Needs ../shared/data/trec_dl_passage.
* ``leaderboard``— the percentile and basic intervals of leaderboard_metrics (8 models, 300 prompts;
  metaeval/inference/leaderboard.py Notes).
* ``ppi``        — tests/test_ppi.py::coverage_simulation (the table of metaeval/inference/ppi.py).

Run (niced: the machine is shared):

    PYTHONPATH=. nice -n 19 python benchmarks/coverage_seeds.py > benchmarks/results/coverage_seeds.txt
    PYTHONPATH=. nice -n 19 python benchmarks/coverage_seeds.py --only cluster --scale 0.05

or one job per seed, in parallel, then one summary (what benchmarks/results/coverage_seeds.txt holds
for cluster, multirater, prevalence, leaderboard and ppi):

    PYTHONPATH=. nice -n 19 python benchmarks/coverage_seeds.py --only prevalence --seed-list 3 --csv out/
    PYTHONPATH=. python benchmarks/coverage_seeds.py --only prevalence --combine out/prevalence_seeds_*.csv
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import itertools
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import metaeval as me
from metaeval.core import resample
from metaeval.core.resample import bootstrap, ci_from_replicates

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", ROOT.parent / "shared" / "data"))
STEP = 1000          # seed k = original seed + STEP * k


def _test_module(name):
    """A module of tests/ (its simulation helpers), imported from its file."""
    spec = importlib.util.spec_from_file_location(f"_cov_{name}", ROOT / "tests" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _reps(original, scale):
    return max(1, int(round(original * scale)))


# ---------------------------------------------------------------------------------------------
# the simulations: each yields rows {cell columns..., "hits", "n", ["width"]} for one seed
# ---------------------------------------------------------------------------------------------

def sim_analytic(k, scale):
    """Two-rater analytic intervals (original: n_sim = 2000, seed 20240610)."""
    ta = _test_module("test_analytic")
    n_sim = _reps(2000, scale)
    out = []
    for row in ta.coverage_simulation(n_sim=n_sim, seed=20240610 + STEP * k):
        for f in ("kappa", "AC1", "Scott", "BP"):
            n_ok = n_sim - row[f"{f} undefined"]
            for q in ("t", "normal"):
                out.append({"truth": row["truth"], "n_items": row["n"], "coef": f, "quantile": q,
                            "hits": row[f"{f} {q}"] * n_ok, "n": n_ok})
    # the table's "mean" rows: the average over the six true tables of each cell
    df = pd.DataFrame(out)
    df["cov"] = df["hits"] / df["n"]
    mean = df.groupby(["n_items", "coef", "quantile"], as_index=False)["cov"].mean()
    for r in mean.itertuples():
        out.append({"truth": "mean", "n_items": r.n_items, "coef": r.coef, "quantile": r.quantile,
                    "hits": r.cov, "n": 1})
    return out


def sim_gjack(k, scale):
    """Grouped vs leave-one-out jackknife BCa, percentile (original: R = 200, N = 1000, B = 500; data
    seeds 1000 + r, bootstrap seeds r)."""
    ta = _test_module("test_arena_scale")
    true = np.exp(1.5**2 / 2)
    R, N = _reps(200, scale), 1000
    hit = {"bca_leave_one_out": 0, "bca_grouped": 0, "percentile": 0}
    base = STEP * 1000 * k              # keeps the seeds of different k apart (r < 1000 per seed)
    old = resample.JACKKNIFE_MAX_UNITS
    try:
        for r in range(R):
            u = ta._lognormal_units(N, 1000 + base + r)
            resample.JACKKNIFE_MAX_UNITS = 10**9
            full = bootstrap(ta._mean, u, n_resamples=500, rng=base + r, cluster_correction=False)
            resample.JACKKNIFE_MAX_UNITS = 500
            grp = bootstrap(ta._mean, u, n_resamples=500, rng=base + r, cluster_correction=False)
            pct = ci_from_replicates(full.theta_hat, full.replicates, method="percentile")
            hit["bca_leave_one_out"] += full.low[0] <= true <= full.high[0]
            hit["bca_grouped"] += grp.low[0] <= true <= grp.high[0]
            hit["percentile"] += pct[0][0] <= true <= pct[1][0]
    finally:
        resample.JACKKNIFE_MAX_UNITS = old
    return [{"interval": m, "hits": h, "n": R} for m, h in hit.items()]


MR_DESIGNS = {   # (raters, prevalence, accuracy, missing) of the multirater docstring's table
    "4x3": dict(n_raters=4, prevalence=[0.6, 0.3, 0.1], accuracy=0.7, missing=0.0),
    "5x4 missing": dict(n_raters=5, prevalence=[0.4, 0.3, 0.2, 0.1], accuracy=0.6, missing=0.2),
}
MR_ROWS = [("4x3", "identity", 20), ("4x3", "identity", 50), ("4x3", "quadratic", 20), ("4x3", "quadratic", 200),
           ("5x4 missing", "identity", 20), ("5x4 missing", "quadratic", 20), ("5x4 missing", "quadratic", 200)]
MR_COEFS = ("percent", "AC", "Fleiss", "Conger", "BP", "Krippendorff")
_MR_TRUTH = {}


def sim_multirater(k, scale):
    """Analytic many-rater intervals (original: 2,000 data sets per row, truth from 400,000 items)."""
    tm = _test_module("test_multirater")
    reps = _reps(2000, scale)
    out = []
    for design, weights, n in MR_ROWS:
        d = MR_DESIGNS[design]
        levels = list(range(len(d["prevalence"])))
        key = (design, weights)
        if key not in _MR_TRUTH:    # the same truth for every seed
            big = tm._simulate_ratings(np.random.default_rng(400_000), 400_000, **d)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _MR_TRUTH[key] = [e.estimate for e in me.rater_agreement(big, levels=levels, weights=weights,
                                                                         ci_method=None)]
        truth = _MR_TRUTH[key]
        rng = np.random.default_rng([11, n, len(levels), weights == "quadratic", k])
        hits = {"t": np.zeros(6), "normal": np.zeros(6)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(reps):
                lab = tm._simulate_ratings(rng, n, **d)
                for q in hits:
                    rs = me.rater_agreement(lab, levels=levels, weights=weights, ci_method="analytic", quantile=q)
                    hits[q] += [e.ci.low <= tr <= e.ci.high for e, tr in zip(rs, truth)]
        for q, h in hits.items():
            for c, v in zip(MR_COEFS, h):
                out.append({"design": design, "weights": weights, "n_items": n, "quantile": q, "coef": c,
                            "hits": v, "n": reps})
    return out


def _kappa_intervals(tc, est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tc._intervals(est)


def sim_iid(k, scale):
    """Cohen's kappa, iid items, N = 500 (original: R = 2000 per table, B = 2000; data seeds 1000 + shape,
    bootstrap seeds r)."""
    tc = _test_module("test_coverage")
    R = _reps(tc.R_IID, scale)
    out = []
    for shape in (2, 4):
        P = {2: tc.P2, 4: tc.P4}[shape]
        P = P / P.sum()
        k_pop = tc.kappa_of(P)
        rng = np.random.default_rng(1000 + shape + STEP * k)
        hits = dict.fromkeys(tc.METHODS + ("analytic",), 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in range(R):
                t = rng.multinomial(tc.N_ITEMS, P.ravel()).reshape(shape, shape)
                est = me.cohen_kappa(table=t, n_resamples=tc.B, rng=STEP * 1000 * k + r)
                for m, (lo, hi) in _kappa_intervals(tc, est).items():
                    if m in hits:
                        hits[m] += lo <= k_pop <= hi
                an = me.cohen_kappa(table=t, ci_method="analytic")
                hits["analytic"] += an.ci.low <= k_pop <= an.ci.high
        out += [{"table": f"{shape}x{shape}", "interval": m, "hits": h, "n": R} for m, h in hits.items()]
    return out


def sim_cluster(k, scale):
    """Topic-clustered kappa, T topics of 200 items (original: R = 2000 per T, B = 2000; data seeds 2000 + T,
    bootstrap seeds r); the iid bootstrap on the same data for T >= 10."""
    tc = _test_module("test_coverage")
    R = _reps(tc.R_CLUSTER, scale)
    k_pop = tc.kappa_of(tc.expected_cluster_table())
    out = []
    for T in tc.FEW_CLUSTER_COUNTS + tc.CLUSTER_COUNTS:
        with_iid = T in tc.CLUSTER_COUNTS
        rng = np.random.default_rng(2000 + T + STEP * k)
        hits = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in range(R):
                ct = tc.draw_clustered(rng, T)
                fits = [("cluster", me.cohen_kappa(table=ct, n_resamples=tc.B, rng=STEP * 1000 * k + r))]
                if with_iid:
                    fits.append(("iid", me.cohen_kappa(table=ct.sum(axis=0), n_resamples=tc.B,
                                                       rng=STEP * 1000 * k + r)))
                for label, est in fits:
                    for m, (lo, hi) in tc._intervals(est).items():
                        if label == "iid" and m.endswith("_t"):
                            continue              # the iid factor is 1: same as uncorrected
                        key = (label, m)
                        hits[key] = hits.get(key, 0) + (lo <= k_pop <= hi)
        out += [{"topics": T, "bootstrap": lab, "interval": m, "hits": h, "n": R} for (lab, m), h in hits.items()]
    return out


RG_SCENARIOS = list(itertools.product((0.7, 0.9), (0.8, 0.95), (0.05, 0.2, 0.5), (100, 400), (300, 5000)))


def sim_prevalence(k, scale):
    """Rogan–Gladen intervals over 48 scenarios (original: 500 data sets each, B = 1000)."""
    R = _reps(500, scale)
    rng = np.random.default_rng(20240611 + STEP * k)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for se, sp, pi, nval, N in RG_SCENARIOS:
            hits = dict.fromkeys(("delta", "percentile", "bca", "basic"), 0)
            width = dict.fromkeys(hits, 0.0)
            for _ in range(R):
                tp, tn = rng.binomial(nval // 2, se), rng.binomial(nval // 2, sp)
                table = [[tn, nval // 2 - tn], [nval // 2 - tp, tp]]
                pos = rng.binomial(N, pi * se + (1 - pi) * (1 - sp))
                seed = int(rng.integers(1 << 31))
                for m in hits:
                    e = me.rogan_gladen(table=table, positives=pos, total=N, ci_method=m, n_resamples=1000, rng=seed)
                    hits[m] += bool(e.ci.low <= pi <= e.ci.high)
                    width[m] += e.ci.high - e.ci.low
            out += [{"scenario": f"Se={se} Sp={sp} pi={pi} val={nval} N={N}", "method": m, "hits": h, "n": R,
                     "width": width[m] / R} for m, h in hits.items()]
    return out


_DL_SCORES = {}


def sim_systems(k, scale):
    """corrected_coverage on TREC DL 2019–2021 (original: 150 draws per n at 5/10/20/30 labelled topics, and
    200 draws at 15 with lam_optim_mode="element"; seeds of tests/test_inference_realdata.py)."""
    trec = DATA / "trec_dl_passage"
    if not trec.exists():
        raise SystemExit(f"systems: {trec} not found (set METAEVAL_SHARED_DATA)")
    seeds = {"dl19": 20261201, "dl20": 20261202, "dl21": 20261203}
    out = []
    for y, s0 in seeds.items():
        if y not in _DL_SCORES:
            human = me.read_qrels(trec / "qrels" / "human" / f"qrels.{y}-passage.txt")
            judge = me.read_qrels(trec / "qrels" / "llm" / f"umbrela-zeroshot-gpt-4o.{y}.txt")
            runs = me.read_runs(trec / "runs" / y)
            _DL_SCORES[y] = me.system_scores(human, runs, "nDCG@10"), me.system_scores(judge, runs, "nDCG@10")
        hs, js = _DL_SCORES[y]
        for label, n_lab, draws, mode in (("overall", [5, 10, 20, 30], 150, "overall"),
                                          ("element", [15], 200, "element")):
            f = me.corrected_coverage(hs, js, n_labelled=n_lab, n_draws=_reps(draws, scale),
                                      methods=("ppi++", "classical"), lam_optim_mode=mode, rng=s0 + STEP * k)
            for r in f.itertuples():
                out.append({"year": y, "lam": label, "n_labelled": r.n_labelled, "method": r.method,
                            "hits": r.coverage * r.n_draws * r.n_systems, "n": r.n_draws * r.n_systems,
                            "width": r.mean_width, "width_ratio": r.width_ratio})
    return out


LB_P = np.linspace(0.2, 0.75, 8)
LB_ITEMS = 300
_LB_TRUTH = {}


def _lb_data(rng):
    models = [f"m{i}" for i in range(len(LB_P))]
    return pd.DataFrame({"item_id": np.repeat(np.arange(LB_ITEMS), len(LB_P)),
                         "model": models * LB_ITEMS,
                         "score": rng.binomial(1, np.tile(LB_P, LB_ITEMS))})


def _lb_reference():
    from metaeval.inference.leaderboard import Leaderboard
    return Leaderboard.from_table({f"m{i}": (p, p - 0.01, p + 0.01) for i, p in enumerate(LB_P)})


def sim_leaderboard(k, scale):
    """Percentile and basic intervals of the leaderboard meta-metrics (original: 80 data sets, 150 outer x
    300 inner resamples); the truth is each meta-metric's mean over 400 data sets of the same size."""
    from metaeval.inference.leaderboard import leaderboard_metrics
    ref = _lb_reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache = Path(os.environ.get("COVERAGE_SEEDS_CACHE", "/tmp")) / "coverage_seeds_leaderboard_truth.csv"
        if not _LB_TRUTH and cache.exists():
            _LB_TRUTH.update(pd.read_csv(cache, index_col=0).iloc[:, 0].to_dict())
        if not _LB_TRUTH:
            vals = []
            trng = np.random.default_rng(7_000_000)
            for i in range(400):
                rs = leaderboard_metrics(_lb_data(trng), ref, n_resamples=300, ci_method=None, rng=i)
                vals.append({e.statistic: e.estimate for e in rs})
            _LB_TRUTH.update(pd.DataFrame(vals).mean().to_dict())
            pd.Series(_LB_TRUTH, name="truth").to_csv(cache)
        R = _reps(80, scale)
        rng = np.random.default_rng(20261130 + STEP * k)
        hits = {}
        for r in range(R):
            rs = leaderboard_metrics(_lb_data(rng), ref, n_resamples=300, n_outer=150, rng=STEP * 1000 * k + r)
            for e in rs:
                tr = _LB_TRUTH[e.statistic]
                lo, hi, _ = ci_from_replicates(np.array([e.estimate]), np.asarray(e.replicates).reshape(-1, 1),
                                               method="basic")
                for m, (a, b) in (("percentile", (e.ci.low, e.ci.high)), ("basic", (lo[0], hi[0]))):
                    hits[(e.statistic, m)] = hits.get((e.statistic, m), 0) + bool(a <= tr <= b)
    return [{"statistic": s, "interval": m, "hits": h, "n": R} for (s, m), h in hits.items()]


def sim_ppi(k, scale):
    """PPI/PPI++ small-sample choices (original: reps = 600 per T for normal/t/jackknife, seed 20261201; 200
    with B = 499 for the bootstrap-t, seed 20261202)."""
    tp = _test_module("test_ppi")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tp.coverage_simulation(reps=_reps(600, scale), choices=tp.CHOICES[:3], seed=20261201 + STEP * k)
        b = tp.coverage_simulation(reps=_reps(200, scale), n_resamples=499, choices=tp.CHOICES[3:],
                                   seed=20261202 + STEP * k)
    for r in a + b:
        out.append({"analysis": r["analysis"], "method": r["method"], "choice": r["choice"], "n_labelled": r["n"],
                    "T": r["T"], "hits": r["coverage"] * r["reps"], "n": r["reps"], "width": r["width"]})
    return out


SIMS = {"analytic": sim_analytic, "gjack": sim_gjack, "multirater": sim_multirater, "iid": sim_iid,
        "cluster": sim_cluster, "prevalence": sim_prevalence, "systems": sim_systems,
        "leaderboard": sim_leaderboard, "ppi": sim_ppi}
CELLS = {"analytic": ["truth", "n_items", "coef", "quantile"], "gjack": ["interval"],
         "multirater": ["design", "weights", "n_items", "coef", "quantile"], "iid": ["table", "interval"],
         "cluster": ["topics", "bootstrap", "interval"], "prevalence": ["scenario", "method"],
         "systems": ["year", "lam", "n_labelled", "method"], "leaderboard": ["statistic", "interval"],
         "ppi": ["analysis", "method", "choice", "n_labelled"]}


def summarise(df, cells):
    """Per cell: mean coverage over seeds, SD across seeds / sqrt(seeds), pooled binomial SE, range."""
    per_seed = df.groupby(cells + ["seed"], sort=False).agg(hits=("hits", "sum"), n=("n", "sum"),
                                                              **{c: (c, "mean") for c in ("width", "width_ratio")
                                                                 if c in df})
    per_seed["cov"] = per_seed["hits"] / per_seed["n"]
    g = per_seed.groupby(level=cells, sort=False)
    s = pd.DataFrame({"seeds": g.size(), "coverage": g["cov"].mean(),
                      "mc_se": g["cov"].std(ddof=1) / np.sqrt(g.size()),
                      "lowest": g["cov"].min(), "highest": g["cov"].max(), "R": g["n"].sum()})
    p = g["hits"].sum() / g["n"].sum()
    s["binom_se"] = np.sqrt(p * (1 - p) / s["R"])
    for c in ("width", "width_ratio"):
        if c in per_seed:
            s[c] = g[c].mean()
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=",".join(SIMS), help="comma-separated simulations (default: all)")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed-list", help="run only these seed indices (comma-separated, e.g. 0,1,2) and write their "
                                        "raw rows to CSV_NAME_seeds_<list>.csv; --combine summarises such files")
    ap.add_argument("--combine", nargs="*", help="summarise raw-row CSV files written with --seed-list")
    ap.add_argument("--scale", type=float, default=0.1,
                    help="data sets per seed as a fraction of the original run's (default 0.1)")
    ap.add_argument("--csv", help="also write each summary to CSV_NAME.csv (a path prefix)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    if a.list:
        for n, f in SIMS.items():
            print(f"{n:12s} {f.__doc__.splitlines()[0]}")
        return
    import scipy
    print(f"# metaeval {me.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, pandas {pd.__version__}, "
          f"python {platform.python_version()}; {platform.machine()} {platform.processor() or ''} {os.cpu_count()} "
          f"cores, load {os.getloadavg()[0]:.1f}; {datetime.datetime.now().isoformat(timespec='minutes')}")
    print(f"# {a.seeds} seeds (original seed + {STEP} k), {a.scale} x the original data sets per seed; "
          "mc_se = SD across seeds / sqrt(seeds); binom_se = sqrt(p(1-p)/R) of the pooled rate over R data sets")
    pd.set_option("display.width", 250)
    pd.set_option("display.max_rows", 1000)
    for name in a.only.split(","):
        t0 = time.time()
        if a.combine:
            df = pd.concat([pd.read_csv(f) for f in a.combine], ignore_index=True)
        else:
            rows = []
            ks = [int(k) for k in a.seed_list.split(",")] if a.seed_list else range(a.seeds)
            for k in ks:
                for r in SIMS[name](k, a.scale):
                    r["seed"] = k
                    rows.append(r)
                print(f"#   {name}: seed {k} done ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
                if a.seed_list:      # raw rows so far, for --combine
                    pd.DataFrame(rows).to_csv(f"{a.csv or ''}{name}_seeds_{a.seed_list.replace(',', '-')}.csv",
                                              index=False)
            df = pd.DataFrame(rows)
        s = summarise(df, CELLS[name])
        print(f"\n## {name}: {SIMS[name].__doc__.splitlines()[0]}")
        print(s.round(4).to_string())
        if a.csv:
            s.to_csv(f"{a.csv}{name}.csv")
        print(f"# {name}: {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
