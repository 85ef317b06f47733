"""Parity of metaeval.levels with the peers themselves: mt-metrics-eval, nlpstats, sacrerouge.

Every expected number is read from ``tests/reference/levels_reference.json``, written by
``tests/reference/make_reference_levels.py`` in a throwaway environment with the versions it records
(google-research/mt-metrics-eval from its git source, nlpstats 0.0.1, sacrerouge 0.2.5). Point values
must agree to 1e-12; permutation p-values (different random streams) within Monte Carlo error
(4 standard errors of the difference of two independent estimates, plus 1/P); bootstrap interval ends
within Monte Carlo error measured from three seeds of the peer.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import metaeval

REF = json.loads((Path(__file__).parent / "reference" / "levels_reference.json").read_text(encoding="utf-8"))


def _m(x):
    return np.array([[np.nan if v is None else v for v in row] for row in x], float)


def lc(H, M, **kw):
    kw.setdefault("ci_method", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metaeval.level_correlation(H, M, **kw).estimate


def close(got, want, tol=1e-12):
    if want is None:
        return np.isnan(got)
    return abs(got - want) < tol


CASES = []
for seed, d in REF["matrices"].items():
    for level, vals in d["mtme"].items():
        for key in vals:
            CASES.append((seed, level, key))


@pytest.mark.parametrize("seed,level,key", CASES)
def test_mtme_values(seed, level, key):
    d = REF["matrices"][seed]
    H, M = _m(d["H"]), _m(d["M"])
    want = d["mtme"][level][key]
    kw = {"level": level}
    if key == "acc_eq_epsilon":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = metaeval.level_correlation(H, M, method="acc_eq", ci_method=None, **kw).extra["epsilon"]
        assert got == pytest.approx(want, abs=1e-12)
        return
    method = {"kendall_like_thresh1_weighted": "kendall_like", "pearson_zero": "pearson",
              "pearson_weighted": "pearson", "acc_23_eps0.5": "acc_23"}.get(key, key)
    if key == "kendall_like_thresh1_weighted":
        kw.update(kendall_like_threshold=1, average="weighted")
    elif key == "pearson_zero":
        kw["undefined"] = "zero"
    elif key == "pearson_weighted":
        kw["average"] = "weighted"
    elif key == "acc_23_eps0.5":
        kw["epsilon"] = 0.5
    got = lc(H, M, method=method, **kw)
    if want == 0.0 and np.isnan(got):
        # mt-metrics-eval's AverageCorrelation returns 0 when no group has a defined value
        # (``return ... if n else (0, 0, 0)``); metaeval returns NaN with a warning: check that this is the case
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = metaeval.level_correlation(H, M, method=method, ci_method=None, **kw)
        assert e.extra["groups"] == e.extra["groups_dropped"] or e.extra["groups"] == 0
        return
    assert close(got, want), (got, want)


@pytest.mark.parametrize("peer", ["nlpstats", "sacrerouge"])
@pytest.mark.parametrize("seed", list(REF["matrices"]))
def test_nlpstats_sacrerouge_values(peer, seed):
    d = REF["matrices"][seed]
    H, M = _m(d["H"]), _m(d["M"])
    for level, vals in d[peer].items():
        for method, want in vals.items():
            got = lc(H, M, level=level, method=method)
            assert close(got, want), (peer, level, method, got, want)


def _perm_data():
    g = np.random.default_rng(21)
    H = g.normal(0, 1, (10, 30)) + g.normal(0, 1, (10, 1))
    A = H + g.normal(0, 1.0, (10, 30))
    B = H + g.normal(0, 1.15, (10, 30))
    return H, A, B


def _mc_ok(p_got, p_want, P):
    se = np.sqrt(max(p_want * (1 - p_want), 1 / P) * 2 / P)
    return abs(p_got - p_want) <= 4 * se + 1 / P


PERM = [
    ("mtme_item", dict(level="item", convention="mtme")),
    ("mtme_none", dict(level="none", convention="mtme")),
    ("mtme_item_kendall", dict(level="item", method="kendall", convention="mtme")),
    ("nlpstats_item_both_greater", dict(level="item", convention="nlpstats", alternative="greater")),
    ("nlpstats_item_both_two-sided", dict(level="item", convention="nlpstats")),
    ("nlpstats_item_systems_greater", dict(level="item", convention="nlpstats", permutation="systems",
                                           alternative="greater")),
    ("nlpstats_item_inputs_greater", dict(level="item", convention="nlpstats", permutation="items",
                                          alternative="greater")),
    ("sacrerouge_item_both_greater", dict(level="item", convention="sacrerouge", alternative="greater")),
    ("sacrerouge_item_systems_greater", dict(level="item", convention="sacrerouge", permutation="systems",
                                             alternative="greater")),
    ("sacrerouge_item_inputs_greater", dict(level="item", convention="sacrerouge", permutation="items",
                                            alternative="greater")),
]


@pytest.mark.parametrize("key,kw", PERM, ids=[k for k, _ in PERM])
def test_permutation_pvalues_within_mc_error(key, kw):
    H, A, B = _perm_data()
    P = REF["permutation"]["P"]
    kw = dict(kw)
    d = metaeval.level_difference(H, A, B, n_permutations=P, ci_method=None, rng=11, **kw)
    want = REF["permutation"][key]["p"]
    if "delta" in REF["permutation"][key]:
        assert abs(d.estimate - REF["permutation"][key]["delta"]) < 1e-12
    assert _mc_ok(d.pvalue, want, P), (d.pvalue, want)


def _will_data():
    g = np.random.default_rng(22)
    H = g.normal(0, 1, (9, 12)) + g.normal(0, 1, (9, 1))
    A = H + g.normal(0, 1.0, (9, 12))
    B = H + g.normal(0, 1.15, (9, 12))
    return H, A, B


def test_williams_mtme_exact():
    H, A, B = _will_data()
    w = metaeval.williams_test(H, A, B, level="none", convention="mtme")
    ref = REF["williams"]["mtme_none"]
    assert abs(w.pvalue - ref["p"]) < 1e-12 and abs(w.extra["r_judge"] - ref["r1"]) < 1e-12
    assert abs(w.extra["r_other"] - ref["r2"]) < 1e-12


@pytest.mark.parametrize("level", ["system", "item", "none"])
def test_williams_nlpstats_sacrerouge_exact(level):
    H, A, B = _will_data()
    for alt in ("two-sided", "greater", "less"):
        w = metaeval.williams_test(H, A, B, level=level, alternative=alt, convention="nlpstats")
        assert abs(w.pvalue - REF["williams"][f"nlpstats_{level}_{alt}"]["p"]) < 1e-12
    for tt, alt in ((True, "two-sided"), (False, "greater")):
        w = metaeval.williams_test(H, A, B, level=level, alternative=alt, convention="sacrerouge")
        assert abs(w.pvalue - REF["williams"][f"sacrerouge_{level}_{'two' if tt else 'one'}"]["p"]) < 1e-12


@pytest.mark.parametrize("level", ["system", "item"])
@pytest.mark.parametrize("scheme", ["systems", "items", "both"])
def test_bootstrap_interval_matches_nlpstats(level, scheme):
    g = np.random.default_rng(23)
    H = g.normal(0, 1, (10, 25)) + g.normal(0, 1, (10, 1))
    A = H + g.normal(0, 1.0, (10, 25))
    ref = np.array(REF["bootstrap_nlpstats"][f"{level}_{scheme}"]["ends"])      # 3 seeds × (low, high)
    B = REF["bootstrap_nlpstats"]["B"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = metaeval.level_correlation(H, A, level=level, method="pearson", ci_method="percentile", resample=scheme,
                                       n_resamples=B, rng=1)
    # Monte Carlo error of an interval end from 3 peer seeds (floor 0.005: three seeds can agree closely)
    tol = 4 * np.maximum(ref.std(axis=0, ddof=1), 0.005) + 1e-3
    assert abs(e.ci.low - ref[:, 0].mean()) <= tol[0], (e.ci.low, ref[:, 0])
    assert abs(e.ci.high - ref[:, 1].mean()) <= tol[1], (e.ci.high, ref[:, 1])


def test_soft_pairwise_accuracy_mtme():
    # same seed (4) and the same draw of signs as mt-metrics-eval's pce.py; float64 sums instead of float32
    d = REF["soft_pairwise_accuracy"]
    got = lc(np.array(d["H"]), np.array(d["M"]), level="system", method="soft_pairwise_accuracy")
    assert abs(got - d["spa"]) < 2e-3
