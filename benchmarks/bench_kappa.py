"""Benchmark: Cohen's kappa with a 95% BCa interval, B = 10,000, on 558,653 binary judgments.

Run as ``python benchmarks/bench_kappa.py [--peer-replicates 200] [--scipy-replicates 2000] [--seed 0]``.

The data are synthetic and seeded: 558,653 (human, judge) binary labels over 35 topics, 1.07%
positive overall (5,978 positives) with a topic-varying prevalence (pi_t ~ Beta(0.8, 74), then the
positives are shared out in proportion), judge sensitivity Se_t ~ Beta(8, 2) and false-positive rate
1 - Sp_t ~ Beta(2, 400) per topic.

What is timed (wall clock, ``time.perf_counter``)
-------------------------------------------------
* metaeval, end to end from the two label arrays (building the table(s) included):
  ``metaeval.cohen_kappa(x, y, n_resamples=10_000, rng=0)`` (BCa) and the same with
  ``cluster=topics``. The first call of the process (lazy imports) is shown apart; the reported time
  is the median of 5 further calls.
* scikit-learn: ``cohen_kappa_score(x[idx], y[idx])`` in a Python loop over resampled indices, timed
  on ``--peer-replicates`` replicates and extrapolated linearly to 10,000 (no BCa: a loop user would
  take percentiles).
* scipy.stats.bootstrap(method='percentile', paired=True, vectorized=True, batch=50) with a
  vectorized kappa statistic, timed at ``--scipy-replicates`` and extrapolated to 10,000. scipy's BCa
  is *not* run at this N: its jackknife evaluates the statistic on N leave-one-out samples of size
  N - 1, i.e. O(N^2) work (558,653^2 = 3.1e11 label visits). Its cost is measured at small N, fitted as
  c N^2, and the prediction for N = 558,653 is printed.
* bootstrapped 0.0.2 (``bootstrapped.bootstrap.bootstrap``) on the pair codes 2*human + judge with a
  custom stat_func, percentile method, ``iteration_batch_size=50`` (without it, it would allocate a
  10,000 x 558,653 int64 index matrix: 41.6 GiB), timed at ``--peer-replicates`` and extrapolated.

Also printed: whether metaeval's and scipy's percentile intervals agree within Monte-Carlo error (same
B, different random streams; the MC spread is the SD of metaeval's endpoints over 20 seeds), and
tracemalloc peaks of metaeval's call at B = 1,000 and B = 10,000.

Targets: metaeval at least 1,000x faster than the fastest peer, and under 1 s end to end.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np

N = 558_653
PREVALENCE = 0.0107
TOPICS = 35
B = 10_000
SPEEDUP_TARGET = 1000.0
WALL_TARGET_S = 1.0


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.multinomial(N - TOPICS * 2000, np.full(TOPICS, 1 / TOPICS)) + 2000
    n_pos = int(round(PREVALENCE * N))
    pi = rng.beta(0.8, 74.0, TOPICS)
    pos_t = rng.multinomial(n_pos, pi / pi.sum())
    pos_t = np.minimum(pos_t, sizes)
    x_parts, y_parts, t_parts = [], [], []
    for t in range(TOPICS):
        x = np.zeros(sizes[t], dtype=np.int8)
        x[rng.choice(sizes[t], pos_t[t], replace=False)] = 1
        se = rng.beta(8.0, 2.0)
        fpr = rng.beta(2.0, 400.0)
        y = np.where(x == 1, rng.random(sizes[t]) < se, rng.random(sizes[t]) < fpr).astype(np.int8)
        x_parts.append(x)
        y_parts.append(y)
        t_parts.append(np.full(sizes[t], t, dtype=np.int16))
    x, y, topics = np.concatenate(x_parts), np.concatenate(y_parts), np.concatenate(t_parts)
    assert len(x) == N
    return x.astype(float), y.astype(float), topics


def kappa_rows(x, y):
    """Cohen's kappa of binary label arrays along the last axis (vectorized over leading axes)."""
    n = x.shape[-1]
    a = (x * y).sum(axis=-1)                 # both 1
    sx, sy = x.sum(axis=-1), y.sum(axis=-1)
    po = (n - sx - sy + 2 * a) / n
    pe = (sx * sy + (n - sx) * (n - sy)) / n**2
    return (po - pe) / (1 - pe)


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def fmt_s(s):
    if s < 1:
        return f"{s * 1000:.1f} ms"
    if s < 120:
        return f"{s:.2f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def bench_metaeval(x, y, topics):
    import metaeval

    warnings.simplefilter("ignore")
    cold, _ = timed(metaeval.cohen_kappa, x, y, n_resamples=B, rng=0)
    out = {"cold": cold}
    for label, kw in (("iid", {}), ("cluster", {"cluster": topics})):
        times, est = [], None
        for _ in range(5):
            t, est = timed(metaeval.cohen_kappa, x, y, n_resamples=B, rng=0, **kw)
            times.append(t)
        out[label] = (float(np.median(times)), est)
    return out


def bench_sklearn(x, y, reps, seed):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    cohen_kappa_score(x[:1000], y[:1000])
    vals = []
    t0 = time.perf_counter()
    for _ in range(reps):
        idx = rng.integers(0, N, N)
        vals.append(cohen_kappa_score(x[idx], y[idx]))
    t = time.perf_counter() - t0
    return t, t * B / reps


def bench_scipy_percentile(x, y, reps, seed):
    from scipy import stats

    def stat(a, b, axis=-1):
        return kappa_rows(np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1))

    t, res = timed(stats.bootstrap, (x, y), stat, paired=True, vectorized=True, n_resamples=reps, batch=50,
                   method="percentile", rng=np.random.default_rng(seed))
    return t, t * B / reps, res


def bench_scipy_bca_small(x, y, seed, sizes=(1000, 2000, 4000), reps=200):
    """scipy BCa at small N: the jackknife part (BCa minus percentile time) grows as N^2."""
    from scipy import stats

    def stat(a, b, axis=-1):
        return kappa_rows(np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1))

    rows = []
    for n in sizes:
        rng = np.random.default_rng(seed)
        idx = rng.choice(N, n, replace=False)
        a, b = x[idx], y[idx]
        tb, _ = timed(stats.bootstrap, (a, b), stat, paired=True, vectorized=True, n_resamples=reps, batch=50,
                      method="BCa", rng=np.random.default_rng(seed))
        tp, _ = timed(stats.bootstrap, (a, b), stat, paired=True, vectorized=True, n_resamples=reps, batch=50,
                      method="percentile", rng=np.random.default_rng(seed))
        rows.append((n, tb, tp, max(tb - tp, 1e-9)))
    n_big, _, _, jack_big = rows[-1]
    c = jack_big / n_big**2
    return rows, c * N**2


def bench_bootstrapped(x, y, reps, seed):
    import bootstrapped.bootstrap as bs

    codes = 2 * x + y                                   # one value per pair: 0, 1, 2, 3

    def stat_func(v):
        v = np.atleast_2d(v)
        return kappa_rows((v >= 2).astype(float), (v % 2 == 1).astype(float))

    np.random.seed(seed)  # noqa: NPY002 - the bootstrapped package draws from numpy's global RandomState
    t, res = timed(bs.bootstrap, codes, stat_func, num_iterations=reps, iteration_batch_size=50, is_pivotal=False)
    return t, t * B / reps, res


def peak_memory(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-replicates", type=int, default=200)
    ap.add_argument("--scipy-replicates", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    import scipy
    import sklearn

    import metaeval

    t_all = time.perf_counter()
    x, y, topics = make_data(args.seed)
    print(f"data: N = {N:,} binary judgments, {TOPICS} topics, prevalence {x.mean():.4%} "
          f"(topic prevalence {np.min([x[topics == t].mean() for t in range(TOPICS)]):.2%} to "
          f"{np.max([x[topics == t].mean() for t in range(TOPICS)]):.2%}); judge positive rate {y.mean():.4%}")
    print(f"versions: metaeval {metaeval.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"scikit-learn {sklearn.__version__}, bootstrapped 0.0.2\n")

    me = bench_metaeval(x, y, topics)
    t_iid, e_iid = me["iid"]
    t_clu, e_clu = me["cluster"]
    print("metaeval.cohen_kappa, B = 10,000, 95% BCa, end to end from the label arrays")
    print(f"  iid items       : {e_iid}")
    print(f"  clustered topics: {e_clu}")
    print(f"  wall time (median of 5): iid {fmt_s(t_iid)}, clustered {fmt_s(t_clu)}; first call in the process "
          f"(lazy imports) {fmt_s(me['cold'])}")
    print(f"  cluster / iid interval width: {e_clu.ci.width / e_iid.ci.width:.2f}\n")

    print(f"peers (timed on a reduced number of replicates, extrapolated linearly to B = {B:,}):")
    t_sk, ext_sk = bench_sklearn(x, y, args.peer_replicates, args.seed)
    print(f"  scikit-learn cohen_kappa_score loop: {args.peer_replicates} replicates in {fmt_s(t_sk)} "
          f"-> {fmt_s(ext_sk)} for {B:,}")
    t_sp, ext_sp, sp = bench_scipy_percentile(x, y, args.scipy_replicates, args.seed)
    print(f"  scipy.stats.bootstrap percentile, batch=50: {args.scipy_replicates} replicates in {fmt_s(t_sp)} "
          f"-> {fmt_s(ext_sp)} for {B:,}")
    t_bs, ext_bs, bsr = bench_bootstrapped(x, y, args.peer_replicates, args.seed)
    print(f"  bootstrapped (iteration_batch_size=50): {args.peer_replicates} replicates in {fmt_s(t_bs)} "
          f"-> {fmt_s(ext_bs)} for {B:,}")
    rows, pred_bca = bench_scipy_bca_small(x, y, args.seed)
    print("  scipy.stats.bootstrap BCa: not run at N = 558,653 (its jackknife is O(N^2)); measured at small N "
          "(200 replicates, batch=50):")
    for n, tb, tp, tj in rows:
        print(f"    N = {n:>5,}: BCa {fmt_s(tb)}, percentile {fmt_s(tp)}, jackknife part {fmt_s(tj)}")
    print(f"    predicted jackknife alone at N = {N:,}: {fmt_s(pred_bca)} (c N^2 fitted at N = {rows[-1][0]:,}), "
          f"plus {fmt_s(ext_sp)} for the resamples")

    fastest_name, fastest = min((("scikit-learn loop", ext_sk), ("scipy percentile", ext_sp),
                                 ("bootstrapped", ext_bs)), key=lambda p: p[1])
    print(f"\nspeed-up (fastest peer = {fastest_name}, {fmt_s(fastest)}, percentile only):")
    print(f"  vs metaeval iid BCa     : {fastest / t_iid:,.0f}x")
    print(f"  vs metaeval clustered BCa: {fastest / t_clu:,.0f}x")
    print(f"  vs scipy BCa (predicted): {(pred_bca + ext_sp) / t_iid:,.0f}x")

    # intervals: metaeval percentile vs scipy percentile at the same B
    b_cmp = args.scipy_replicates
    ends = np.array([[e.ci.low, e.ci.high] for e in
                     (metaeval.cohen_kappa(x, y, n_resamples=b_cmp, ci_method="percentile", rng=s) for s in range(20))])
    mc_sd = ends.std(axis=0, ddof=1)
    ours = ends[0]
    theirs = np.array([sp.confidence_interval.low, sp.confidence_interval.high])
    tol = 3 * np.sqrt(2) * mc_sd
    ok_sp = bool(np.all(np.abs(ours - theirs) <= tol))
    bs_ci = np.array([bsr.lower_bound, bsr.upper_bound])
    print("\nintervals (percentile, 95%):")
    print(f"  metaeval B={b_cmp:,}: [{ours[0]:.5f}, {ours[1]:.5f}]  (MC SD of endpoints over 20 seeds: "
          f"{mc_sd[0]:.5f}, {mc_sd[1]:.5f})")
    print(f"  scipy    B={b_cmp:,}: [{theirs[0]:.5f}, {theirs[1]:.5f}]  -> agree within 3*sqrt(2) MC SD: {ok_sp}")
    print(f"  bootstrapped B={args.peer_replicates}: [{bs_ci[0]:.5f}, {bs_ci[1]:.5f}]  (few replicates; shown only)")
    print(f"  metaeval BCa B={B:,}: [{e_iid.ci.low:.5f}, {e_iid.ci.high:.5f}], percentile B={B:,}: "
          f"[{np.quantile(e_iid.replicates, 0.025):.5f}, {np.quantile(e_iid.replicates, 0.975):.5f}]")

    table = metaeval.contingency(x, y, metaeval.Scale((0, 1)))
    peaks = {}
    for b in (1_000, 10_000):
        peaks[("iid", b)] = peak_memory(lambda b=b: metaeval.cohen_kappa(x, y, n_resamples=b, rng=0))
        peaks[("cluster", b)] = peak_memory(lambda b=b: metaeval.cohen_kappa(x, y, n_resamples=b, rng=0,
                                                                             cluster=topics))
        peaks[("table", b)] = peak_memory(lambda b=b: metaeval.cohen_kappa(table=table, n_resamples=b, rng=0))
    print("\ntracemalloc peak of one metaeval call (labels -> table(s) -> B replicates -> BCa):")
    for kind in ("iid", "cluster", "table"):
        what = {"iid": "from labels, iid", "cluster": "from labels, clustered", "table": "from a 2x2 table"}[kind]
        print(f"  {what:<24}: B=1,000 {peaks[(kind, 1000)] / 2**20:7.2f} MiB, "
              f"B=10,000 {peaks[(kind, 10000)] / 2**20:7.2f} MiB")
    print("  (from labels the peak is the O(N) table building; the replicates add 8 bytes x B)")

    speed_ok = fastest / max(t_iid, t_clu) >= SPEEDUP_TARGET
    wall_ok = max(t_iid, t_clu) < WALL_TARGET_S
    print(f"\ntargets: >= {SPEEDUP_TARGET:,.0f}x faster than the fastest peer: {'MET' if speed_ok else 'NOT MET'}; "
          f"under {WALL_TARGET_S:.0f} s end to end: {'MET' if wall_ok else 'NOT MET'}")
    print(f"benchmark wall time: {fmt_s(time.perf_counter() - t_all)}")
    return 0 if (speed_ok and wall_ok and ok_sp) else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
