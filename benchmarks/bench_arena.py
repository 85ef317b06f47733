"""Pairwise battles at Chatbot-Arena size (issue #11, item 4): 10M battles × 200 models.

Synthetic, seeded battles with known Bradley–Terry strengths and a realistic share of ties are
generated in memory (nothing is written to the repository). Printed side by side:

* the Bradley–Terry point fit of metaeval and of evalica (``evalica.bradley_terry``, its Rust
  solver) on the same battles — categorical columns (evalica's fastest input) and plain strings;
* a B = 200 bootstrap (battles iid, and prompts as clusters);
* the estimates against evalica's and against an independent maximum-likelihood fit
  (scipy.optimize, L-BFGS on the aggregated pair counts): max |difference|;
* win rates under every tie rule, position bias and judge–human agreement at the same size;
* the peak memory (resident set) of the process.

Run: ``python benchmarks/bench_arena.py`` (about 5 minutes on 2 cores); ``--n 1000000`` for a
quick run. The output of the full run is kept in benchmarks/results/bench_arena.txt.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings

import numpy as np
import pandas as pd


def peak_gb() -> float:
    """Peak resident set of this process so far (GB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def make_battles(n: int, m: int, *, n_items: int | None = None, seed: int = 0, tie_share: float = 0.3,
                 categorical: bool = True):
    """n battles over m models with strengths θ ~ N(0, 1); P(tie) = tie_share·exp(−d²/2) for a
    strength difference d, the rest split by σ(d). Model popularity varies (Dirichlet(2))."""
    rng = np.random.default_rng(seed)
    names = np.array([f"model-{i:03d}" for i in range(m)], dtype=object)
    theta = np.sort(rng.normal(0.0, 1.0, m))[::-1]
    pop = rng.dirichlet(np.full(m, 2.0))
    a = rng.choice(m, n, p=pop)
    b = rng.integers(0, m - 1, n)
    b = np.where(b >= a, b + 1, b)
    d = theta[a] - theta[b]
    pt = tie_share * np.exp(-0.5 * d**2)
    pa = (1 - pt) / (1 + np.exp(-d))
    u = rng.random(n)
    code = np.where(u < pa, 0, np.where(u < pa + pt, 2, 1)).astype(np.int8)      # 0 A, 1 B, 2 tie
    item = np.arange(n) if n_items is None else rng.integers(0, n_items, n)
    if categorical:
        df = pd.DataFrame({"item_id": item, "model_a": pd.Categorical.from_codes(a, names),
                           "model_b": pd.Categorical.from_codes(b, names),
                           "outcome": pd.Categorical.from_codes(code, ["A", "B", "tie"])})
    else:
        df = pd.DataFrame({"item_id": item, "model_a": names[a], "model_b": names[b],
                           "outcome": np.array(["A", "B", "tie"], dtype=object)[code]})
    return df, theta, (a, b, code)


def ml_fit(a, b, code, m):
    """Independent ML check: L-BFGS on the logistic likelihood of the aggregated pair counts (a tie
    is half a win each), strengths centred at mean 0."""
    from scipy.optimize import minimize

    # s[i, j]: points of i against j (a win 1, a tie 0.5), over both presentation orders
    s = np.bincount(a * m + b, weights=(code == 0) + 0.5 * (code == 2), minlength=m * m).reshape(m, m)
    s = s + np.bincount(b * m + a, weights=(code == 1) + 0.5 * (code == 2), minlength=m * m).reshape(m, m)
    tot = s.sum()

    def f(th):                          # ℓ = Σ_ij s_ij log σ(θ_i − θ_j), per point
        d = th[:, None] - th[None, :]
        ll = -(s * np.logaddexp(0, -d)).sum()
        q = s / (1 + np.exp(d))         # s_ij (1 − σ(d_ij))
        g = q.sum(axis=1) - q.sum(axis=0)
        return -ll / tot, -g / tot

    res = minimize(f, np.zeros(m), jac=True, method="L-BFGS-B", options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 10000})
    th = res.x - res.x.mean()
    n = s + s.T                         # games per pair
    for _ in range(5):                  # polish: Newton steps on the graph Laplacian (pseudo-inverse)
        d = th[:, None] - th[None, :]
        p = 1 / (1 + np.exp(-d))
        q = s / (1 + np.exp(d))
        g = q.sum(axis=1) - q.sum(axis=0)
        w = n * p * (1 - p)
        L = np.diag(w.sum(axis=1)) - w
        th = th + np.linalg.pinv(L) @ g
        th = th - th.mean()
    return th


def timed(what, fn, rows):
    t = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t
    rows.append((what, dt))
    print(f"{what:<58s} {dt:8.2f} s   (peak RSS so far {peak_gb():.2f} GB)", flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="battles (default 10M)")
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--items", type=int, default=None, help="prompts for the cluster bootstrap (default n/10)")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)

    import evalica
    import scipy

    import metaeval

    warnings.simplefilter("ignore")
    n, m = args.n, args.models
    n_items = args.items or max(n // 10, 1)
    print(f"bench_arena: {n:,} battles × {m} models, {n_items:,} prompts (seed {args.seed})")
    print(f"metaeval {metaeval.__version__} · evalica {evalica.__version__} · numpy {np.__version__} · "
          f"pandas {pd.__version__} · scipy {scipy.__version__} · python {sys.version.split()[0]}")
    rows = []
    df, theta, (a, b, code) = timed("generate battles (categorical columns)", lambda: make_battles(
        n, m, n_items=n_items, seed=args.seed), rows)
    print(f"  outcomes: A {np.mean(code == 0):.3f}, B {np.mean(code == 1):.3f}, tie {np.mean(code == 2):.3f}")
    W = evalica.Winner
    winners = pd.Series(np.array([W.X, W.Y, W.Draw], dtype=object)[code])

    print("\n== Bradley–Terry point fit (ties = half a win each; strengths on the logit scale, mean 0)")
    ev = timed("evalica.bradley_terry (categorical)", lambda: evalica.bradley_terry(
        df["model_a"], df["model_b"], winners), rows)
    me = timed("metaeval.bradley_terry(ci_method=None) (categorical)", lambda: metaeval.bradley_terry(
        df, cluster=None, ci_method=None), rows)
    names = np.array([f"model-{i:03d}" for i in range(m)], dtype=object)
    obj = df.assign(model_a=names[a], model_b=names[b], outcome=np.array(["A", "B", "tie"], dtype=object)[code])
    timed("evalica.bradley_terry (object strings)", lambda: evalica.bradley_terry(
        obj["model_a"], obj["model_b"], winners), rows)
    timed("metaeval.bradley_terry(ci_method=None) (object strings)", lambda: metaeval.bradley_terry(
        obj, cluster=None, ci_method=None), rows)
    obj = None                                                        # free the string columns
    ml = timed("independent ML fit (scipy L-BFGS on pair counts)", lambda: ml_fit(a, b, code, m), rows)

    est = me.to_frame().set_index("model")["estimate"].reindex(names)
    e_ev = np.log(ev.scores.reindex(names).to_numpy(dtype=float))
    e_ev = e_ev - e_ev.mean()
    ev_tight = evalica.bradley_terry(df["model_a"], df["model_b"], winners, tolerance=1e-12, limit=10_000)
    e_evt = np.log(ev_tight.scores.reindex(names).to_numpy(dtype=float))
    e_evt = e_evt - e_evt.mean()
    print(f"  max |metaeval − evalica (default tolerance 1e-6)|   = {np.abs(est.to_numpy() - e_ev).max():.2e}")
    print(f"  max |metaeval − evalica (tolerance 1e-12)|          = {np.abs(est.to_numpy() - e_evt).max():.2e}")
    print(f"  max |metaeval − independent ML (scipy)|             = {np.abs(est.to_numpy() - ml).max():.2e}")
    print(f"  max |metaeval − true strengths (centred)|           = {np.abs(est.to_numpy() - (theta - theta.mean())).max():.3f}"
          "  (not an error: the battles' ties follow a Davidson-like rule,\n"
          "   which 'a tie is half a win' does not model, and rare models carry sampling error)")
    elo = metaeval.bradley_terry(df, cluster=None, ci_method=None, scale="elo").to_frame().set_index("model")["estimate"]
    print(f"  Elo scale: top model {elo.idxmax()} {elo.max():.1f}, bottom {elo.idxmin()} {elo.min():.1f}")

    print("\n== Bradley–Terry bootstrap, B = 200 percentile (refits warm-started from the point fit)")
    r_iid = timed("battles iid (multinomial over the distinct cells)", lambda: metaeval.bradley_terry(
        df, cluster=None, n_resamples=200, rng=1), rows)
    r_cl = timed(f"prompts as clusters ({n_items:,} clusters)", lambda: metaeval.bradley_terry(
        df, cluster="item_id", n_resamples=200, rng=1), rows)
    for lab, r in (("iid", r_iid), ("clusters", r_cl)):
        f = r.to_frame()
        w = (f.ci_high - f.ci_low)
        bad = int(sum(e.extra["n_nan_replicates"] for e in r))
        same = np.abs(f.set_index("model")["estimate"].reindex(names).to_numpy() - est.to_numpy()).max()
        print(f"  {lab:<9s}: CI width median {w.median():.4f} (logit), NaN replicates {bad}, "
              f"estimates = point fit (max |diff| {same:.1e})")

    print("\n== Other pairwise statistics at this size")
    timed("win_rates, 4 tie rules, battles iid, B = 2000 BCa", lambda: metaeval.win_rates(
        df, cluster=None, rng=2), rows)
    wr = timed("win_rates, 4 tie rules, prompt clusters, B = 200 BCa", lambda: metaeval.win_rates(
        df, n_resamples=200, rng=2), rows)
    print(f"  (grouped jackknife for BCa: {wr[0].extra.get('jackknife_groups', 'no')} groups)")
    # a judge that sees every battle in both orders (5M battles × 2 rows) with a first-position bias
    rng = np.random.default_rng(args.seed + 1)
    half = n // 2
    d2 = df.iloc[:half]
    bias = rng.random(half) < 0.15                                       # 15%: the first-shown answer wins
    c_fwd = np.where(bias, 0, code[:half])
    c_rev = np.where(rng.random(half) < 0.15, 0, np.array([1, 0, 2])[code[:half]])
    lab = np.array(["A", "B", "tie"], dtype=object)
    swaps = pd.DataFrame({"item_id": np.concatenate([d2["item_id"].to_numpy(), d2["item_id"].to_numpy()]),
                          "model_a": pd.Categorical.from_codes(np.concatenate([a[:half], b[:half]]), names),
                          "model_b": pd.Categorical.from_codes(np.concatenate([b[:half], a[:half]]), names),
                          "outcome": pd.Categorical.from_codes(np.concatenate([c_fwd, c_rev]).astype(np.int8),
                                                               list(lab))})
    swaps["item_id"] = np.concatenate([np.arange(half), np.arange(half)])
    pb = timed(f"position_bias, {2 * half:,} rows (battles judged in both orders), iid, B = 2000", lambda: (
        metaeval.position_bias(swaps, cluster=None, rng=3)), rows)
    print(f"  first-position win rate (fdt) {pb.get(statistic='first_position_win_rate', tie_rule='fdt').estimate:.4f}, "
          f"swap consistency (fdt) {pb.get(statistic='swap_consistency', tie_rule='fdt').estimate:.4f}")
    swaps = None
    human = df.assign(item_id=np.arange(n))
    flip = rng.random(n) < 0.2
    judge_code = np.where(flip, rng.integers(0, 3, n), code).astype(np.int8)
    judge = human.assign(outcome=pd.Categorical.from_codes(judge_code, list(lab)))
    ag = timed(f"pairwise_agreement human vs judge, {n:,} battles, iid, B = 2000", lambda: metaeval.pairwise_agreement(
        human, judge, cluster=None, rng=4), rows)
    print(f"  agreement (fdt) {ag.get(statistic='agreement', tie_rule='fdt').estimate:.4f}, "
          f"kappa (fdt) {ag.get(statistic='cohen_kappa', tie_rule='fdt').estimate:.4f}")

    print("\n== Summary")
    t = dict(rows)
    print(f"  BT point fit: metaeval {t['metaeval.bradley_terry(ci_method=None) (categorical)']:.2f} s vs evalica "
          f"{t['evalica.bradley_terry (categorical)']:.2f} s (categorical); "
          f"{t['metaeval.bradley_terry(ci_method=None) (object strings)']:.2f} s vs "
          f"{t['evalica.bradley_terry (object strings)']:.2f} s (strings)")
    print(f"  BT B = 200 bootstrap: {t['battles iid (multinomial over the distinct cells)']:.1f} s iid, "
          f"{t[f'prompts as clusters ({n_items:,} clusters)']:.1f} s clustered (target ≤ 60 s)")
    print(f"  peak memory (RSS) of the whole run: {peak_gb():.2f} GB")


if __name__ == "__main__":
    main()
