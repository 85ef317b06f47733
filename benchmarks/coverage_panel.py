"""Coverage of judge_panel's simultaneous statements: differences to the best, rank sets, the tied set.

Simulated panels: a human label per item from π = (0.4, 0.3, 0.2, 0.1) on a 0–3 scale; judge j
copies it with probability c_tj = clip(a_j + e_t, 0, 1), else says a uniform random label. Two
designs: ``iid`` items (e_t = 0, no clusters, items resampled) and ``clusters``: 20 topics of
unequal size (shares ∝ lognormal(0, 0.8)), a topic effect e_t ~ N(0, 0.1) shared by every judge and
a topic prevalence π_t ~ Dirichlet(20 π) (topics resampled, cluster=). The population value θ_j
(Cohen's κ, ordinal Krippendorff α) is the statistic of the expected table π_i (c̄_j 1[i = k] +
(1 − c̄_j)/4), c̄_j = E clip(a_j + e, 0, 1), evaluated by the package's registered kernel on
10¹² × that table. Accuracies ("scenario"):

* ``ties``: three judges tied at the top (a = 0.6; J = 2: both), the others below down to 0.3;
* ``best``: one clearly best (a = 0.7), the others 0.55 down to 0.3.

Each replication draws a panel, runs the package's ``_panel_result`` (the code behind
``judge_panel``; per-judge percentile intervals, B draws of items or topics) and checks, against
the population values:

* ``diff``: every judge's difference to the best of the others, θ_j − max_{k≠j} θ_k, inside its
  interval, all judges at once (NEW); ``diff_old``: the construction before this change, every
  θ_j − θ_ĵ (ĵ the observed best) inside d̂_j ± c·se_j with c the max-T quantile over the
  differences to ĵ (what those intervals claimed);
* ``rank``: every judge's rank 1 + #{k : θ_k > θ_j} inside its simultaneous rank set (NEW), and
  ``rank_full``: the set holds the whole range of ranks a tied judge may take, [1 + #{θ_k > θ_j},
  J − #{θ_k < θ_j}] (NEW); ``rank_old``: all judges' ranks inside the old rank intervals (2.5% and
  97.5% quantiles of the bootstrap rank); ``rank_marg``/``rank_marg_old``: the same one judge at a
  time (mean over judges) for the marginal sets (NEW) and the old intervals;
* ``tied``: every truly best judge in the set tied with the best (NEW single-step set; ``tied_old``:
  the stepdown set before this change); ``size``: the NEW set's mean size;
* ``judge``: each judge's own interval covers its θ_j (mean over judges).

(The judge × judge agreement and error-correlation matrices are skipped: they play no part here.)

Every coverage is the mean over seeds of the per-seed share, ± the SD across seeds / √seeds.
``--perjudge`` instead measures each judge's own interval (default B = 2,000, default BCa, and
percentile) at J = 5, n = 2,000, 20 unequal topics.

    nice -n 10 env PYTHONPATH=. python benchmarks/coverage_panel.py --reps 50 --seeds 4 --B 1000 \\
        > benchmarks/results/coverage_panel.txt
    nice -n 10 env PYTHONPATH=. python benchmarks/coverage_panel.py --perjudge --reps 100 --seeds 10 \\
        > benchmarks/results/coverage_panel_perjudge.txt
    python benchmarks/coverage_panel.py --summarize benchmarks/results/coverage_panel.txt   # the docs' table
    # reruns of the cells below 0.94 (benchmarks/results/coverage_panel_reruns.txt):
    nice -n 10 env PYTHONPATH=. python benchmarks/coverage_panel.py --J 5 --scenarios ties --reps 100 --seeds 10
    nice -n 10 env PYTHONPATH=. python benchmarks/coverage_panel.py --J 20 --n 100 --designs clusters \\
        --scenarios ties --reps 100 --seeds 5
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np

import metaeval as me
from metaeval.panels import panel as _panel_module
from metaeval.panels.panel import _bound_statistic, _Panel, _panel_result, _ranks

K = 4
PI = np.array([0.4, 0.3, 0.2, 0.1])
TOPIC_SD = 0.1
N_TOPICS = 20
SCALE = me.Scale((0, 1, 2, 3))
STATS = {"kappa": "cohen_kappa", "alpha": "krippendorff_alpha_ordinal"}


def accuracies(scenario: str, J: int) -> np.ndarray:
    if scenario == "ties":
        if J == 2:
            return np.array([0.6, 0.6])
        return np.concatenate([[0.6, 0.6, 0.6], np.linspace(0.55, 0.3, J - 3)])
    return np.concatenate([[0.7], np.linspace(0.55, 0.3, J - 1)])


def mean_clipped(a: float, sd: float) -> float:
    """E clip(a + e, 0, 1), e ~ N(0, sd²) (sd = 0: a)."""
    if sd == 0:
        return float(a)
    x, w = np.polynomial.hermite_e.hermegauss(201)              # weight exp(−x²/2), Σ w = √(2π)
    return float(np.sum(w * np.clip(a + sd * x, 0, 1)) / np.sqrt(2 * np.pi))


def truth(stat: str, acc: np.ndarray, sd: float) -> np.ndarray:
    _, f, _ = _bound_statistic(stat, None, None, SCALE)
    tabs = []
    for a in acc:
        c = mean_clipped(a, sd)
        p = PI[:, None] * (c * np.eye(K) + (1 - c) / K)
        tabs.append((p * 1e12).ravel())
    return np.asarray(f(np.array(tabs)), dtype=float)


def draw(rng, acc, n, design):
    """Reference codes, judge codes, topics (None for iid)."""
    J = len(acc)
    if design == "iid":
        ref = rng.choice(K, size=n, p=PI)
        c = np.broadcast_to(acc, (n, J))
        topic = None
    else:
        share = rng.lognormal(0, 0.8, N_TOPICS)
        size = np.maximum(1, np.round(share / share.sum() * n)).astype(int)
        while size.sum() > n:                                 # exactly n items, every topic non-empty
            size[np.argmax(size)] -= 1
        while size.sum() < n:
            size[np.argmin(size)] += 1
        t = np.repeat(np.arange(N_TOPICS), size)
        pis = rng.dirichlet(20 * PI, N_TOPICS)
        u = rng.random(n)
        ref = (u[:, None] > np.cumsum(pis[t], axis=1)).sum(axis=1).clip(0, K - 1)
        eff = rng.normal(0, TOPIC_SD, N_TOPICS)[t]
        c = np.clip(acc[None, :] + eff[:, None], 0, 1)
        topic = t.astype(str)
    keep = rng.random((n, J)) < c
    codes = np.where(keep, ref[:, None], rng.integers(0, K, (n, J)))
    return ref, codes.astype(np.int64), topic


# ---- the construction before this change (for the OLD columns), as it was in panel.py ----------

def old_max_t(theta, reps, best, level, fac):
    J = len(theta)
    d_hat = theta - theta[best]
    D = reps - reps[:, [best]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(D, axis=0, ddof=1)
    others = np.array([j != best and np.isfinite(d_hat[j]) and se[j] > 0 for j in range(J)])
    low = np.where(others, np.nan, d_hat)
    high = low.copy()
    if others.any():
        T = np.nanmax(np.abs(D[:, others] - d_hat[others]) / se[others], axis=1)
        crit = float(np.quantile(T[np.isfinite(T)], level))
        low[others] = d_hat[others] - crit * fac * se[others]
        high[others] = d_hat[others] + crit * fac * se[others]
    return d_hat, low, high


def old_best_set(theta, reps, level, fac):
    J = len(theta)
    finite = np.isfinite(theta)
    m_hat = np.full(J, -np.inf)
    m_star = np.full((reps.shape[0], J), -np.inf)
    for j in np.flatnonzero(finite):
        D = reps - reps[:, [j]]
        dh = theta - theta[j]
        se = np.nanstd(D, axis=0, ddof=1)
        k_ok = finite & (np.arange(J) != j)
        var = k_ok & (se > 0)
        if var.any():
            t_star = (D[:, var] - dh[var]) / se[var]
            m_star[:, j] = np.nanmax(np.where(np.isnan(t_star), -np.inf, t_star), axis=1)
            m_hat[j] = np.max(dh[var] / (fac * se[var]))
        if (k_ok & ~(se > 0) & (dh > 0)).any():
            m_hat[j] = np.inf
    alive = finite.copy()
    while alive.any():
        crit = float(np.quantile(np.max(m_star[:, alive], axis=1), level))
        out = alive & (m_hat > crit)
        if not out.any():
            break
        alive &= ~out
    return alive


def old_ranks(reps, level):
    rk = _ranks(reps)
    lo = np.quantile(rk, (1 - level) / 2, axis=0, method="inverted_cdf")
    hi = np.quantile(rk, (1 + level) / 2, axis=0, method="inverted_cdf")
    return lo, hi


# -------------------------------------------------------------------------------------------------

KEYS = ("diff", "diff_old", "rank", "rank_full", "rank_old", "rank_marg", "rank_marg_old", "tied", "tied_old",
        "size", "judge")


def one(rng, stat, acc, th, n, design, B, level=0.95):
    ref, codes, topic = draw(rng, acc, n, design)
    J = len(acc)
    names = [f"j{j}" for j in range(J)]
    panel = _Panel(names, ref, codes, topic, SCALE, {}, {}, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = _panel_result(panel, statistic=stat, weights=None, component=None,
                            cluster=None if topic is None else "topic", items="common", matrix_statistic=None,
                            errors="indicator", ci_method="percentile", n_resamples=B, confidence_level=level,
                            rng=rng)
    f = res.to_frame()
    theta = f["estimate"].to_numpy(float)
    reps = res.replicates.to_numpy()
    fac = res.design["cluster_correction"]
    out = {}
    # NEW: difference to the best of the others
    dtrue = np.array([th[j] - np.max(np.delete(th, j)) for j in range(J)])
    out["diff"] = bool(np.all((f["difference_low"] <= dtrue) & (dtrue <= f["difference_high"])))
    # OLD: difference to the observed best, its claimed parameter θ_j − θ_ĵ
    best = int(np.nanargmax(theta))
    _, lo, hi = old_max_t(theta, reps, best, level, fac)
    dt_old = th - th[best]
    others = np.arange(J) != best
    out["diff_old"] = bool(np.all((lo[others] <= dt_old[others]) & (dt_old[others] <= hi[others])))
    r_min = 1 + (th[None, :] > th[:, None]).sum(axis=1)          # ties share the best rank
    r_max = J - (th[None, :] < th[:, None]).sum(axis=1)
    rl, rh = f["rank_low"].to_numpy(), f["rank_high"].to_numpy()
    out["rank"] = bool(np.all((rl <= r_min) & (r_min <= rh)))
    out["rank_full"] = bool(np.all((rl <= r_min) & (r_max <= rh)))
    ml, mh = f["rank_low_marginal"].to_numpy(), f["rank_high_marginal"].to_numpy()
    out["rank_marg"] = float(np.mean((ml <= r_min) & (r_min <= mh)))
    ol, oh = old_ranks(reps, level)
    ok_old = (ol <= r_min) & (r_min <= oh)
    out["rank_old"] = bool(np.all(ok_old))
    out["rank_marg_old"] = float(np.mean(ok_old))
    true_best = np.flatnonzero(th >= th.max() - 1e-12)
    tied = f["tied_with_best"].to_numpy(bool)
    out["tied"] = bool(tied[true_best].all())
    out["size"] = float(tied.sum())
    out["tied_old"] = bool(old_best_set(theta, reps, level, fac)[true_best].all())
    out["judge"] = float(np.mean((f["ci_low"] <= th) & (th <= f["ci_high"])))
    return out


def cell(stat, scenario, J, n, design, reps, seeds, B, seed0):
    acc = accuracies(scenario, J)
    th = truth(STATS[stat], acc, TOPIC_SD if design == "clusters" else 0.0)
    per_seed = []
    for s in range(seeds):
        rng = np.random.default_rng([seed0, s, J, n, hash((stat, scenario, design)) % 10_000])
        rows = [one(rng, STATS[stat], acc, th, n, design, B) for _ in range(reps)]
        per_seed.append({k: float(np.mean([r[k] for r in rows])) for k in KEYS})
    return {k: (float(np.mean([p[k] for p in per_seed])),
                float(np.std([p[k] for p in per_seed], ddof=1) / np.sqrt(seeds)) if seeds > 1 else float("nan"))
            for k in KEYS}


def _factor(t, level=0.95):
    """The engine's few-clusters factor √(T/(T−1))·t_{T−1}/z, for a possibly fractional T."""
    from scipy.stats import norm
    from scipy.stats import t as tdist

    q = 0.5 + level / 2
    return float(np.sqrt(t / (t - 1)) * tdist.ppf(q, t - 1) / norm.ppf(q))


def perjudge(reps, seeds, seed0, J=5, n=2000):
    print("# per-judge intervals: J = 5 ('ties' accuracies), n = 2,000, 20 unequal topics, default B = 2,000")
    print(f"# {reps} panels per seed x {seeds} seeds; coverage = mean over judges and panels; ± SD across seeds / √seeds")
    print("# widening: 'T' = the engine's factor from the number of topics (T = 20); 'kish' = the same factor from")
    print("#   Kish's effective number of topics (Σ n_t)² / Σ n_t²; 'satt' = from (Σ n_t²)² / Σ n_t⁴ (Satterthwaite,")
    print("#   cluster contributions with variance ∝ n_t²). Not in the engine: a measured candidate, the same draws.")
    print(f"{'statistic':9} {'method':10} {'widening':8} {'coverage':>9} {'± se':>6} {'width':>7} {'factor':>7}")
    acc = accuracies("ties", J)
    for stat in ("kappa", "alpha"):
        th = truth(STATS[stat], acc, TOPIC_SD)
        for method in ("bca", "percentile"):
            acc_cov = {w: [] for w in ("T", "kish", "satt")}
            acc_w = {w: [] for w in ("T", "kish", "satt")}
            facs = {w: [] for w in ("T", "kish", "satt")}
            for s in range(seeds):
                rng = np.random.default_rng([seed0, s, 7])
                c = {w: [] for w in acc_cov}
                wd = {w: [] for w in acc_cov}
                for _ in range(reps):
                    ref, codes, topic = draw(rng, acc, n, "clusters")
                    panel = _Panel([f"j{j}" for j in range(J)], ref, codes, topic, SCALE, {}, {}, None)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = _panel_result(panel, statistic=STATS[stat], weights=None, component=None,
                                            cluster="topic", items="common", matrix_statistic=None,
                                            errors="indicator", ci_method=method,
                                            n_resamples=me.core.resample.DEFAULT_N_RESAMPLES,
                                            confidence_level=0.95, rng=rng)
                    f = res.to_frame()
                    est, lo, hi = (f[k].to_numpy(float) for k in ("estimate", "ci_low", "ci_high"))
                    f_t = res.design["cluster_correction"]
                    size = np.unique(topic, return_counts=True)[1].astype(float)
                    t_eff = {"T": float(len(size)), "kish": size.sum() ** 2 / (size ** 2).sum(),
                             "satt": (size ** 2).sum() ** 2 / (size ** 4).sum()}
                    for w, tt in t_eff.items():
                        g = _factor(tt) / f_t
                        lo_w, hi_w = est - g * (est - lo), est + g * (hi - est)
                        c[w].append(np.mean((lo_w <= th) & (th <= hi_w)))
                        wd[w].append(np.mean(hi_w - lo_w))
                        facs[w].append(_factor(tt))
                for w in acc_cov:
                    acc_cov[w].append(np.mean(c[w]))
                    acc_w[w].append(np.mean(wd[w]))
            for w in acc_cov:
                print(f"{stat:9} {method:10} {w:8} {np.mean(acc_cov[w]):9.3f} "
                      f"{np.std(acc_cov[w], ddof=1) / np.sqrt(seeds):6.3f} {np.mean(acc_w[w]):7.3f} "
                      f"{np.mean(facs[w]):7.3f}", flush=True)


def summarize(path: str) -> None:
    """The docs' table: per J, n and design, the lowest cell over statistic × scenario (± its SE)."""
    rows = []
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if not f or line.startswith("#") or f[0] == "stat":
            continue
        vals = [tuple(map(float, v.split("±"))) for v in f[5:14]]
        rows.append((f[0], f[1], f[2], int(f[3]), int(f[4]), dict(zip(
            ("diff", "diff_old", "rank", "rank_full", "rank_old", "rank_marg", "rank_marg_old", "tied", "tied_old"),
            vals))))
    cols = (("diff_old", "differences, old"), ("diff", "differences, new"), ("rank_old", "ranks, old"),
            ("rank_full", "rank sets, new"), ("rank_marg_old", "ranks one judge, old"),
            ("rank_marg", "rank sets one judge, new"), ("tied_old", "tied set, old"), ("tied", "tied set, new"))
    print("| design | J | n | " + " | ".join(c[1] for c in cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for design in ("iid", "clusters"):
        for J in (2, 5, 20):
            for n in (100, 2000):
                sel = [r[5] for r in rows if r[2] == design and r[3] == J and r[4] == n]
                if not sel:
                    continue
                cells = []
                for key, _ in cols:
                    worst = min(sel, key=lambda d: d[key][0])[key]
                    cells.append(f"{worst[0]:.3f} ± {worst[1]:.3f}")
                print(f"| {design} | {J} | {n:,} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=50, help="panels per seed and cell")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--J", default="2,5,20")
    ap.add_argument("--n", default="100,2000")
    ap.add_argument("--stats", default="kappa,alpha")
    ap.add_argument("--designs", default="iid,clusters")
    ap.add_argument("--scenarios", default="ties,best")
    ap.add_argument("--perjudge", action="store_true")
    ap.add_argument("--summarize", metavar="RESULTS", help="print the docs' table from a results file")
    a = ap.parse_args()
    if a.summarize:
        summarize(a.summarize)
        return
    # the judge x judge agreement and error-correlation matrices play no part in coverage: skip them
    # (here only, when run as a script: importing this module changes nothing)
    _panel_module._pair_matrices = lambda panel, f_matrix, errors: (None, None)
    print("# " + " ".join(["PYTHONPATH=. python benchmarks/coverage_panel.py", *sys.argv[1:]]))
    print(f"# metaeval {me.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
          f"{platform.machine()} {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"{time.strftime('%Y-%m-%d')}")
    t0 = time.process_time()
    if a.perjudge:
        perjudge(a.reps, a.seeds, a.seed)
        print(f"# CPU {time.process_time() - t0:.0f} s")
        return
    print(f"# {a.reps} panels per seed x {a.seeds} seeds per cell, B = {a.B}, percentile per-judge intervals, 95%; "
          "each entry: mean over seeds ± SD across seeds / √seeds")
    cols = ("diff", "diff_old", "rank", "rank_full", "rank_old", "rank_marg", "rank_marg_old", "tied", "tied_old")
    print(f"{'stat':5} {'scenario':8} {'design':8} {'J':>3} {'n':>5} " + " ".join(f"{c:>13}" for c in cols)
          + f" {'size':>5} {'judge':>6}")
    for stat in a.stats.split(","):
        for design in a.designs.split(","):
            for scenario in a.scenarios.split(","):
                for J in map(int, a.J.split(",")):
                    for n in map(int, a.n.split(",")):
                        r = cell(stat, scenario, J, n, design, a.reps, a.seeds, a.B, a.seed)
                        print(f"{stat:5} {scenario:8} {design:8} {J:3d} {n:5d} "
                              + " ".join(f"{r[c][0]:6.3f}±{r[c][1]:.3f}" for c in cols)
                              + f" {r['size'][0]:5.1f} {r['judge'][0]:6.3f}", flush=True)
    print(f"# CPU {time.process_time() - t0:.0f} s")


if __name__ == "__main__":
    main()
