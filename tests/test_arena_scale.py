"""Pairwise battles at Chatbot-Arena size (issue #11, item 4): sparse units in the engine, battles
aggregated to counted cells, Bradley–Terry refits from the point fit.

Sparse and dense X give identical replicates when the contributions are counts (every pairwise
statistic's are; sums of integers in float64 are exact in any order); with fractional
contributions they agree to rounding (the two products add in different orders).

Where the representation does not change the draws (cells in the order of the rows they first
appear in; sparse vs dense X), the tests ask for *identical* replicates and intervals for a seed.
Where it does (clusters with identical contributions merged into one unit type above
``MAX_DENSE``: a multinomial over fewer types, same distribution), they ask for equal estimates and
intervals equal within Monte-Carlo error.
"""

from __future__ import annotations

import importlib
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import metaeval
from metaeval.core import resample
from metaeval.core.resample import Units, bootstrap
from metaeval.pairwise import _prepare
from metaeval.pairwise._results import Resampler

btm = importlib.import_module("metaeval.pairwise.bradley_terry")


def _battles(n, m, *, n_items=None, seed=0, tie_share=0.3):
    """Synthetic battles with known strengths (the generator of benchmarks/bench_arena.py)."""
    rng = np.random.default_rng(seed)
    names = np.array([f"model-{i:03d}" for i in range(m)], dtype=object)
    theta = np.sort(rng.normal(0.0, 1.0, m))[::-1]
    a = rng.integers(0, m, n)
    b = rng.integers(0, m - 1, n)
    b = np.where(b >= a, b + 1, b)
    d = theta[a] - theta[b]
    pt = tie_share * np.exp(-0.5 * d**2)
    pa = (1 - pt) / (1 + np.exp(-d))
    u = rng.random(n)
    code = np.where(u < pa, 0, np.where(u < pa + pt, 2, 1))
    item = np.arange(n) if n_items is None else rng.integers(0, n_items, n)
    return pd.DataFrame({"item_id": item, "model_a": pd.Categorical.from_codes(a, names),
                         "model_b": pd.Categorical.from_codes(b, names),
                         "outcome": pd.Categorical.from_codes(code, ["A", "B", "tie"])})


def _kappa_like(S):
    """A non-linear statistic of a 2×2 table (Cohen's kappa)."""
    S = np.asarray(S, dtype=float)
    n = S.sum(axis=1)
    po = (S[:, 0] + S[:, 3]) / n
    pe = ((S[:, 0] + S[:, 1]) * (S[:, 0] + S[:, 2]) + (S[:, 2] + S[:, 3]) * (S[:, 1] + S[:, 3])) / n**2
    return (po - pe) / (1 - pe)


# ------------------------------------------------------------------------------------------------
# the engine: sparse X gives the same replicates as dense X
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["percentile", "bca"])
def sparse_and_dense_units_identical_test(method):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(60, 4)).astype(float)
    X[rng.random(X.shape) < 0.5] = 0.0
    X[:, 0] += 1.0
    for kw in ({"kind": "clusters"}, {"kind": "items"}, {"kind": "clusters", "strata": np.repeat([0, 1, 2], 20)}):
        m = np.ones(60, dtype=np.int64) if kw["kind"] == "clusters" else rng.integers(1, 30, 60)
        dense = bootstrap(_kappa_like, Units(X, m, **kw), n_resamples=300, ci_method=method, rng=11)
        sp = bootstrap(_kappa_like, Units(sparse.csr_matrix(X), m, **kw), n_resamples=300, ci_method=method, rng=11)
        assert np.array_equal(dense.replicates, sp.replicates)
        assert np.array_equal(dense.low, sp.low) and np.array_equal(dense.high, sp.high)
        assert np.array_equal(dense.accel, sp.accel, equal_nan=True)


def cells_need_no_product_test():
    """Cells of a table (one column each, weight 1): the draw IS the counts, scattered to columns —
    the same replicates as the dense identity, without building it."""
    counts = np.array([40, 7, 12, 41])
    dense = bootstrap(_kappa_like, Units(np.eye(4), counts), n_resamples=500, rng=3)
    cells = Units(sparse.identity(4, format="csr"), counts)
    assert cells._cells is not None                  # the scatter path is taken
    sp = bootstrap(_kappa_like, cells, n_resamples=500, rng=3)
    assert np.array_equal(dense.replicates, sp.replicates)
    assert (dense.low[0], dense.high[0]) == (sp.low[0], sp.high[0])
    # a permuted selection with an empty (zero) row also scatters
    X = sparse.csr_matrix((np.ones(3), ([0, 1, 3], [2, 0, 1])), shape=(4, 3))
    u = Units(X, [5, 6, 7, 8])
    assert u._cells.tolist() == [2, 0, -1, 1]
    S = resample._draw(u, np.random.default_rng(0), 50)
    C = np.random.default_rng(0).multinomial(26, np.array([5, 6, 7, 8]) / 26, size=50)
    assert np.array_equal(S, C @ X.toarray())


def many_clusters_drawn_by_tallies_test():
    """From 100,000 single clusters on, a replicate's cluster counts are tallies of U uniform draws:
    Multinomial(U, 1/U) all the same (sum U, mean 1, variance 1 − 1/U), and still the same for
    dense and sparse X."""
    U = resample._UNIFORM_MIN_UNITS
    x = np.random.default_rng(1).integers(0, 5, size=U).astype(float)     # counts: sums are exact
    dense = Units(np.column_stack([np.ones(U), x]), np.ones(U, dtype=np.int64), kind="clusters")
    sp = Units(sparse.csr_matrix(dense.X), np.ones(U, dtype=np.int64), kind="clusters")
    S1 = resample._draw(dense, np.random.default_rng(4), 40)
    S2 = resample._draw(sp, np.random.default_rng(4), 40)
    assert np.array_equal(S1, S2)
    assert np.all(S1[:, 0] == U)
    w = np.random.default_rng(4).integers(0, U, size=(40, U), dtype=np.int32)
    counts = np.stack([np.bincount(r, minlength=U) for r in w])
    assert np.array_equal(S1[:, 1], counts @ x)
    assert abs(counts.mean() - 1) < 1e-12 and abs(counts.var() - (1 - 1 / U)) < 0.01


def sparse_total_and_concat_test():
    X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    u = Units(sparse.csr_matrix(X), [2, 5])
    assert u.total().tolist() == (np.array([2, 5]) @ X).tolist()
    both = u.concat(Units(X[:, :1], [2, 5]))
    assert both.is_sparse and both.X.shape == (2, 4)


# ------------------------------------------------------------------------------------------------
# the grouped jackknife above JACKKNIFE_MAX_UNITS unit types
# ------------------------------------------------------------------------------------------------

def _lognormal_units(n, seed):
    x = np.random.default_rng(seed).lognormal(0.0, 1.5, n)
    return Units(np.column_stack([np.ones(n), x]), np.ones(n, dtype=np.int64), kind="clusters")


def _mean(S):
    return S[:, 1] / S[:, 0]


def grouped_jackknife_recorded_and_close_test(monkeypatch):
    u = _lognormal_units(3000, 1)
    full = bootstrap(_mean, u, n_resamples=400, rng=2, cluster_correction=False)
    monkeypatch.setattr(resample, "JACKKNIFE_MAX_UNITS", 1000)
    grouped = bootstrap(_mean, u, n_resamples=400, rng=2, cluster_correction=False)
    assert grouped.extra["jackknife_groups"] == resample.JACKKNIFE_GROUPS
    assert "jackknife_groups" not in full.extra
    assert np.array_equal(full.replicates, grouped.replicates)       # its own generator: same draws
    # both estimate the same acceleration; the grouped one within a few Monte-Carlo SEs (√6/(6G) ≈ 0.002)
    assert full.accel[0] > 0.02
    assert abs(full.accel[0] - grouped.accel[0]) < 0.01
    # reproducible from the seed; and the estimate carries the record
    again = bootstrap(_mean, u, n_resamples=400, rng=2, cluster_correction=False)
    assert again.accel[0] == grouped.accel[0]
    e = grouped.estimates("mean", n=3000)[0]
    assert e.extra["jackknife_groups"] == resample.JACKKNIFE_GROUPS


def grouped_jackknife_with_multiplicities_test(monkeypatch):
    """iid cells with counts: each cell's battles are split at random over the groups; the group
    sums add up to the total."""
    rng = np.random.default_rng(4)
    m = rng.integers(1, 200, 500)
    u = Units(sparse.identity(500, format="csr"), m)
    G = 50
    Xg = resample._group_sums(u, 7, G)
    assert Xg.shape == (G, 500)
    assert np.array_equal(Xg.sum(axis=0), m)
    sizes = Xg.sum(axis=1)
    assert abs(sizes.mean() - m.sum() / G) < 1e-9 and sizes.std() < 0.1 * sizes.mean()


@pytest.mark.slow
def grouped_jackknife_coverage_test(monkeypatch):
    """Coverage of 95% intervals for the mean of lognormal(0, 1.5) data, N = 1,000 clusters:
    BCa with the leave-one-out jackknife vs the delete-a-group jackknife (G = 200 groups of 5), and
    the percentile interval, on the same replicates. Measured once (R = 200, B = 500, seeded;
    Monte-Carlo SE about 0.02 each, far less for the difference): see
    :func:`metaeval.core.resample.bootstrap` Notes for the numbers."""
    true = np.exp(1.5**2 / 2)
    R, N = 200, 1000
    hit = {"full": 0, "grouped": 0, "percentile": 0}
    da = []
    for r in range(R):
        u = _lognormal_units(N, 1000 + r)
        monkeypatch.setattr(resample, "JACKKNIFE_MAX_UNITS", 10**9)
        full = bootstrap(_mean, u, n_resamples=500, rng=r, cluster_correction=False)
        monkeypatch.setattr(resample, "JACKKNIFE_MAX_UNITS", 500)
        grp = bootstrap(_mean, u, n_resamples=500, rng=r, cluster_correction=False)
        pct = resample.ci_from_replicates(full.theta_hat, full.replicates, method="percentile")
        hit["full"] += full.low[0] <= true <= full.high[0]
        hit["grouped"] += grp.low[0] <= true <= grp.high[0]
        hit["percentile"] += pct[0][0] <= true <= pct[1][0]
        da.append(abs(full.accel[0] - grp.accel[0]))
    cov = {k: v / R for k, v in hit.items()}
    print(cov, np.mean(da))
    assert abs(cov["grouped"] - cov["full"]) <= 0.02
    assert cov["grouped"] >= cov["percentile"] - 0.01
    assert np.mean(da) < 0.01


# ------------------------------------------------------------------------------------------------
# counted cells vs rows
# ------------------------------------------------------------------------------------------------

def _row_units_bt(df, cluster):
    """The row-based units of Bradley–Terry (the representation before aggregation): one unit per
    battle (or its cluster), built by the same :func:`units` from per-row triples."""
    d, _, names, _ = _prepare.prepare_codes(df, cluster=cluster, need_item=False)
    d, models = _prepare.present_models(d, names)
    M = len(models)
    pair, col = btm.pair_columns(d, models, "fdt", "drop")
    ok = col >= 0
    if cluster is None:
        unit, kind = np.arange(len(d)), "items"
    else:
        unit, kind = pd.factorize(d["cl"].to_numpy())[0], "clusters"
    return _prepare.units(unit[ok], col[ok] * M * M + pair[ok], np.ones(ok.sum()), 3 * M * M, kind,
                          n_units=int(unit.max()) + 1), M


def _cell_units_bt(df, cluster):
    d, _, names, _ = _prepare.prepare_codes(df, cluster=cluster, need_item=False)
    d = _prepare.aggregate(d)
    d, models = _prepare.present_models(d, names)
    M = len(models)
    pair, col = btm.pair_columns(d, models, "fdt", "drop")
    ok = np.flatnonzero(col >= 0)
    return _prepare.cell_units(d, ok, col[ok] * M * M + pair[ok], np.ones(len(ok)), 3 * M * M, cluster), M


@pytest.mark.parametrize("cluster", [None, "item_id"])
def cells_equal_rows_test(cluster):
    """Aggregating battles to cells first gives the same unit types, in the same order, with the
    same multiplicities: identical replicates and intervals for a seed."""
    df = _battles(3000, 8, n_items=300, seed=3)
    ur, M = _row_units_bt(df, cluster)
    uc, _ = _cell_units_bt(df, cluster)
    Xr = ur.X.toarray() if ur.is_sparse else ur.X
    Xc = uc.X.toarray() if uc.is_sparse else uc.X
    assert np.array_equal(Xr, Xc) and np.array_equal(ur.m, uc.m)
    if cluster is None:
        assert uc.X.shape[0] < 3 * M * M < 3000          # distinct cells, not battles
    def run(u):                                  # as bradley_terry calls the engine
        kern = btm._bt_kernel(M, davidson=False, position=False, ridge=0.0, anchor_index=None, scale="logit")
        return Resampler(ci_method="percentile", n_resamples=40, confidence_level=0.95, rng=9).run(kern, u)

    r1, r2 = run(ur), run(uc)
    assert np.array_equal(r1.replicates, r2.replicates)
    # and the public function reports exactly these intervals
    f = metaeval.bradley_terry(df, cluster=cluster, n_resamples=40, rng=9).to_frame()
    assert np.array_equal(f["ci_low"].to_numpy(), r2.low) and np.array_equal(f["ci_high"].to_numpy(), r2.high)


def win_rates_cells_equal_rows_test():
    """win_rates from cells equals a direct count per model (every tie rule), and the iid units are
    the distinct (model_a, model_b, outcome) cells with their counts."""
    df = _battles(5000, 6, seed=8)
    r = metaeval.win_rates(df, cluster=None, ci_method=None).to_frame()
    a, b = df.model_a.astype(str), df.model_b.astype(str)
    o = df.outcome.astype(str)
    for mdl in sorted(set(a)):
        w = ((a == mdl) & (o == "A")).sum() + ((b == mdl) & (o == "B")).sum()
        t = (((a == mdl) | (b == mdl)) & (o == "tie")).sum()
        n = ((a == mdl) | (b == mdl)).sum()
        got = r[r.model == mdl].set_index("tie_rule").estimate
        assert got["fdt"] == pytest.approx(w / n, abs=1e-15)
        assert got["tie_half"] == pytest.approx((w + 0.5 * t) / n, abs=1e-15)
        assert got["without_ties"] == pytest.approx(w / (n - t), abs=1e-15)


def merged_sparse_clusters_equivalent_test(monkeypatch):
    """Above MAX_DENSE, clusters with identical contributions are one unit type with a multiplicity:
    other draws for a seed, the same distribution — equal estimates, intervals within MC error."""
    rng = np.random.default_rng(2)
    n = 4000
    ref = rng.choice(["A", "B", "tie"], n, p=[0.4, 0.4, 0.2])
    cand = np.where(rng.random(n) < 0.7, ref, rng.choice(["A", "B", "tie"], n))
    base = pd.DataFrame({"item_id": np.arange(n).astype(str), "model_a": "x", "model_b": "y"})
    h, j = base.assign(outcome=ref), base.assign(outcome=cand)
    kw = dict(tie_rule="fdt", n_resamples=2000, ci_method="percentile", rng=5)
    dense = metaeval.pairwise_agreement(h, j, **kw).get(statistic="agreement")
    monkeypatch.setattr(_prepare, "MAX_DENSE", 1000)
    merged = metaeval.pairwise_agreement(h, j, **kw).get(statistic="agreement")
    assert merged.estimate == dense.estimate
    assert merged.n_units == dense.n_units == n
    se = dense.se
    assert abs(merged.ci.low - dense.ci.low) < 0.25 * se and abs(merged.ci.high - dense.ci.high) < 0.25 * se
    assert abs(merged.se - dense.se) < 0.1 * se


# ------------------------------------------------------------------------------------------------
# Bradley–Terry at scale
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"ties": "davidson", "tie_rule": "tie_half"}, {"position_effect": True}])
def refit_from_point_equals_full_newton_test(monkeypatch, kw):
    """Replicates refitted from the point fit (chord Newton) equal Newton's method from zero."""
    df = _battles(40000, 32, seed=4)
    monkeypatch.setattr(btm, "REFIT_MIN_MODELS", 30)
    r1 = metaeval.bradley_terry(df, cluster=None, n_resamples=30, rng=0, **kw)
    monkeypatch.setattr(btm, "REFIT_MIN_MODELS", 10**9)
    r2 = metaeval.bradley_terry(df, cluster=None, n_resamples=30, rng=0, **kw)
    a = np.column_stack([e.replicates for e in r1])
    b = np.column_stack([e.replicates for e in r2])
    assert not np.isnan(a).any()
    assert np.abs(a - b).max() < 1e-8


def bradley_terry_equals_evalica_test():
    """The point fit equals evalica 0.4.2's ``bradley_terry`` (ties as half a win, its default
    ``tie_weight=0.5``) run to a tight tolerance: log-scores centred at mean 0."""
    evalica = pytest.importorskip("evalica")
    df = _battles(20000, 12, seed=6)
    W = evalica.Winner
    w = df["outcome"].map({"A": W.X, "B": W.Y, "tie": W.Draw})
    ev = evalica.bradley_terry(df["model_a"], df["model_b"], w, tolerance=1e-12, limit=10_000)
    e = np.log(ev.scores)
    e = e - e.mean()
    me = metaeval.bradley_terry(df, cluster=None, ci_method=None).to_frame().set_index("model")["estimate"]
    assert np.abs(e.reindex(me.index).to_numpy() - me.to_numpy()).max() < 1e-9


def arena_1m_battles_cluster_bootstrap_runs_test():
    """1M battles × 130 models with a prompt-cluster bootstrap: raised "too large to resample"
    (a dense 50k × 50.7k units matrix) before the sparse units; now a few seconds."""
    df = _battles(1_000_000, 130, n_items=50_000, seed=1)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metaeval.bradley_terry(df, n_resamples=50, rng=0)
    dt = time.perf_counter() - t
    f = r.to_frame()
    assert len(f) == 130 and f["n_units"].iloc[0] == 50_000 and f["unit"].iloc[0] == "clusters"
    assert (f.ci_low < f.estimate).all() and (f.estimate < f.ci_high).all()
    assert sum(e.extra["n_nan_replicates"] for e in r) == 0
    assert dt < 60, dt                             # about 3 s alone on this machine
