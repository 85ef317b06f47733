"""GRIM and the κ / percent-agreement feasibility check (metaeval.review.feasibility).

References for the expected answers:
* exact rounding with Python's ``decimal`` module (ROUND_HALF_UP and ROUND_HALF_EVEN), independent of
  the interval arithmetic the module uses;
* brute-force enumeration of every 2×2 table (and every 3×3 table with given margins), with κ from
  scikit-learn's ``cohen_kappa_score`` on the label arrays the table stands for;
* a property (hypothesis): the rounded κ and p_o of any real table are always feasible.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from metaeval import InputError
from metaeval.review.feasibility import decimals_of, grim, kappa_feasibility, rounding_interval


def _prints_as(x, printed: str) -> bool:
    """Whether the exact value x (a Fraction) prints as ``printed``: |x − printed| ≤ ½ unit, ends included.

    Both ends are included on purpose: a value exactly halfway (7/8 = 0.875) prints as 0.88 by
    rounding half up or half to even, and as 0.87 from its floating-point value 0.87499999…, so a
    checker must accept both."""
    q = Fraction(Decimal(printed))
    h = Fraction(1, 2) * Fraction(1, 10 ** -Decimal(printed).as_tuple().exponent)
    return q - h <= x <= q + h


def _exact_kappa(t):
    """Cohen's κ of an integer K×K table in exact rational arithmetic (None when undefined)."""
    t = [[int(v) for v in row] for row in np.asarray(t)]
    k, n = len(t), sum(map(sum, t))
    po = Fraction(sum(t[i][i] for i in range(k)), n)
    pe = sum(Fraction(sum(t[i]) * sum(r[i] for r in t), n * n) for i in range(k))
    return None if pe == 1 else (po - pe) / (1 - pe)


def _labels(table):
    t = np.asarray(table)
    k = t.shape[0]
    x = np.repeat(np.repeat(np.arange(k), k), t.ravel())
    y = np.repeat(np.tile(np.arange(k), k), t.ravel())
    return x, y


def _sk_kappa(table, weights=None):
    x, y = _labels(table)
    if len(set(x)) == 1 and set(x) == set(y):          # chance agreement 1: κ undefined
        return float("nan")
    with np.errstate(all="ignore"):
        return float(cohen_kappa_score(x, y, labels=list(range(np.asarray(table).shape[0])), weights=weights))


def _all_tables(n):
    return [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a) for c in range(n + 1 - a - b)]


# --------------------------------------------------------------------------------------------
# rounding and GRIM
# --------------------------------------------------------------------------------------------

def decimals_test():
    assert decimals_of("0.770") == 3 and decimals_of(0.77) == 2 and decimals_of(".5") == 1 and decimals_of(3) == 0
    assert decimals_of(1e-4) == 4
    lo, hi, d = rounding_interval("0.61")
    assert d == 2 and lo == pytest.approx(0.605) and hi == pytest.approx(0.615)
    with pytest.raises(InputError):
        decimals_of("abc")


def grim_examples_test():
    # 0.77 at n = 202: 155/202 = 0.7673 and 156/202 = 0.7723 both print as 0.77; "0.770" needs a
    # count in [155.44, 155.64]: none (the GRIM example of the issue)
    assert grim(0.77, 202).feasible and grim(0.77, 202).totals == (155, 156)
    g = grim("0.770", 202)
    assert not g.feasible and g.nearest == (156 / 202,)
    # Brown & Heathers' arithmetic: 28 × 5.19 = 145.32, so 5.19 is impossible, 5.18 (145/28) possible
    assert not grim(5.19, 28, low=None).feasible and grim(5.18, 28, low=None).feasible
    # a mean over a 3-item scale has granularity 1/(3n)
    assert grim(5.19, 28, items=3, low=None).feasible
    # equidistant nearest values are both reported
    assert grim(0.5, 3).nearest == (1 / 3, 2 / 3)


def grim_matches_exact_rounding_test():
    for n in range(1, 61):
        for j in range(101):
            printed = f"{j / 100:.2f}"
            expected = any(_prints_as(Fraction(k, n), printed) for k in range(n + 1))
            assert grim(printed, n).feasible == expected, (printed, n)


def grim_errors_test():
    with pytest.raises(InputError, match="n must be a positive whole number"):
        grim(0.5, 0)
    with pytest.raises(InputError):
        grim("x", 10)


# --------------------------------------------------------------------------------------------
# κ and p_o, 2×2
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [7, 12, 20])
def kappa_feasibility_matches_brute_force_test(n):
    T = np.array(_all_tables(n))
    exact = [_exact_kappa(t.reshape(2, 2)) for t in T]
    kap = np.array([np.nan if e is None else float(e) for e in exact])
    # the exact κ is scikit-learn's κ (checked on every 7th table)
    sk = np.array([_sk_kappa(t.reshape(2, 2)) for t in T[::7]])
    np.testing.assert_allclose(kap[::7], sk, atol=1e-12)
    po = (T[:, 0] + T[:, 3]) / n
    po_exact = [Fraction(int(t[0] + t[3]), n) for t in T]
    rng = np.random.default_rng(n)
    for _ in range(40):
        kv = f"{rng.uniform(-0.6, 1):.2f}"
        pv = f"{rng.uniform(0.2, 1):.2f}"
        ok_k = np.array([e is not None and _prints_as(e, kv) for e in exact])
        ok_kp = ok_k & np.array([_prints_as(p, pv) for p in po_exact])
        r1 = kappa_feasibility(kv, n=n)
        r2 = kappa_feasibility(kv, n=n, percent_agreement=pv)
        assert r1.feasible == ok_k.any(), (kv, n)
        assert r2.feasible == ok_kp.any(), (kv, pv, n)
        for r in (r1, r2):                      # the reported table really has the reported numbers
            assert r.table.sum() == n and (r.table >= 0).all()
            assert r.nearest_kappa == pytest.approx(_sk_kappa(r.table), abs=1e-12)
        if not r2.feasible:                     # and the nearest pair is the brute-force optimum
            s = np.abs(kap - float(kv)) / 0.01 + np.abs(po - float(pv)) / 0.01
            s[np.isnan(s)] = np.inf
            got = abs(r2.nearest_kappa - float(kv)) / 0.01 + abs(r2.nearest_percent_agreement - float(pv)) / 0.01
            assert got == pytest.approx(s.min(), abs=1e-9)


@pytest.mark.parametrize("n", [13, 30])
def kappa_and_po_mixed_decimals_match_brute_force_test(n):
    """κ and p_o printed with different decimals (1–4 and 1–3): the distance weighs each by its printed unit,
    so the nearest pair of an infeasible report is found with an A-dependent penalty (the branch and bound
    of the κ + p_o search); feasibility and the nearest distance equal the brute force over every table."""
    T = np.array(_all_tables(n))
    exact = [_exact_kappa(t.reshape(2, 2)) for t in T]
    kap = np.array([np.nan if e is None else float(e) for e in exact])
    po_exact = [Fraction(int(t[0] + t[3]), n) for t in T]
    po = (T[:, 0] + T[:, 3]) / n
    rng = np.random.default_rng(100 + n)
    for _ in range(60):
        dk, dp = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        kv, pv = f"{rng.uniform(-0.8, 1.05):.{dk}f}", f"{rng.uniform(0, 1):.{dp}f}"
        # exact rounding of exact values, for the tables the floats put within 1e-9 of both intervals
        near = np.flatnonzero((np.abs(kap - float(kv)) <= 0.5 * 10.0**-dk + 1e-9)
                              & (np.abs(po - float(pv)) <= 0.5 * 10.0**-dp + 1e-9))
        ok = np.array([_prints_as(exact[i], kv) and _prints_as(po_exact[i], pv) for i in near], dtype=bool)
        r = kappa_feasibility(kv, n=n, percent_agreement=pv)
        assert r.feasible == ok.any(), (kv, pv, n)
        assert r.nearest_kappa == pytest.approx(_sk_kappa(r.table), abs=1e-12)
        if not r.feasible:
            s = np.abs(kap - float(kv)) * 10**dk + np.abs(po - float(pv)) * 10**dp
            s[np.isnan(s)] = np.inf
            got = abs(r.nearest_kappa - float(kv)) * 10**dk + abs(r.nearest_percent_agreement - float(pv)) * 10**dp
            assert got == pytest.approx(s.min(), abs=1e-9), (kv, pv, n)


@pytest.mark.parametrize("n", [2, 3, 9, 16, 25])
def kappa_only_nearest_matches_brute_force_test(n):
    """κ alone (the W = v² − s² search): feasible exactly when some table prints as κ, and otherwise
    the nearest κ over every 2×2 table, for κ printed with 2–5 decimals, including |κ| > 1."""
    kap = np.array([np.nan if (e := _exact_kappa(np.reshape(t, (2, 2)))) is None else float(e)
                    for t in _all_tables(n)])
    kap = kap[np.isfinite(kap)]
    exact = {Fraction(k).limit_denominator(4 * n * n) for k in kap}
    rng = np.random.default_rng(n)
    for _ in range(60):
        kv = f"{rng.uniform(-1.1, 1.1):.{rng.integers(2, 6)}f}"
        r = kappa_feasibility(kv, n=n)
        assert r.feasible == any(_prints_as(e, kv) for e in exact), (kv, n)
        assert r.nearest_kappa == pytest.approx(_sk_kappa(r.table), abs=1e-12)
        assert abs(r.nearest_kappa - float(kv)) == pytest.approx(np.abs(kap - float(kv)).min(), abs=1e-12)


def kappa_only_large_n_test():
    # n = 10,000, κ printed with 10 decimals so that no table gives it: the nearest table is found
    # (under a second; the old (A, a) scan took 13 s) and is the nearest of a brute-force scan over
    # the A near the answer (every a, every b − c)
    n = 10_000
    r = kappa_feasibility("0.6800001000", n=n)
    assert not r.feasible and r.table.sum() == n
    assert abs(r.nearest_kappa - 0.6800001) < 1e-9
    # κ = 0 is reached exactly by many tables; 1e-10 is not reachable at n = 10,000
    r = kappa_feasibility("0.0000000001", n=n)
    assert not r.feasible and r.nearest_kappa == 0.0


def kappa_feasibility_constructed_examples_test():
    # the balanced ImageCLEF-like table [[85, 20], [20, 77]]: κ = 0.6033, p_o = 162/202 = 0.8020
    m = [[105, 97], [105, 97]]
    r = kappa_feasibility("0.603", n=202, percent_agreement="0.802", margins=m)
    assert r.feasible and r.table.tolist() == [[85, 20], [20, 77]] and r.n_tables == 1
    # consistent without margins too, and with κ alone
    assert kappa_feasibility("0.603", n=202, percent_agreement="0.802").feasible
    assert kappa_feasibility("0.603", n=202).feasible
    # inconsistent: with these margins p_o = 0.802 forces κ = 0.603, so 0.70 is impossible
    r = kappa_feasibility("0.70", n=202, percent_agreement="0.802", margins=m)
    assert not r.feasible and r.table.tolist() == [[85, 20], [20, 77]]
    # inconsistent: a percent agreement no count of 202 gives (GRIM on p_o)
    assert not kappa_feasibility("0.60", n=202, percent_agreement="0.8000").feasible
    # inconsistent without margins: at n = 40, κ = 0.63 needs p_o ≥ 0.8 or so, not 0.39
    assert not kappa_feasibility("0.63", n=40, percent_agreement="0.39").feasible
    # κ above 1 is never feasible
    assert not kappa_feasibility("1.05", n=50).feasible
    # κ = 1 needs perfect agreement
    assert kappa_feasibility("1.00", n=50, percent_agreement="1.00").feasible
    assert not kappa_feasibility("1.00", n=50, percent_agreement="0.96").feasible


def kappa_feasibility_large_n_test():
    # n = 10,000: a table built to have the numbers is found, and an off-by-rounding p_o is not
    t = np.array([[4100, 900], [700, 4300]])
    k, po = _sk_kappa(t), np.trace(t) / t.sum()
    assert kappa_feasibility(f"{k:.4f}", n=10_000, percent_agreement=f"{po:.4f}").feasible
    assert not kappa_feasibility(f"{k:.4f}", n=10_000, percent_agreement=f"{po + 0.00005:.5f}").feasible


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 800), min_size=4, max_size=4).filter(lambda c: sum(c) >= 2),
       st.sampled_from([2, 3]))
def kappa_feasibility_property_test(cells, d):
    """Any real table's κ and p_o, rounded to d decimals, are found feasible (with and without margins)."""
    t = np.array(cells).reshape(2, 2)
    n = int(t.sum())
    k = _sk_kappa(t)
    if not np.isfinite(k):
        return
    kv, pv = f"{k:.{d}f}", f"{np.trace(t) / n:.{d}f}"
    assert kappa_feasibility(kv, n=n, percent_agreement=pv).feasible
    assert kappa_feasibility(kv, n=n).feasible
    margins = [t.sum(axis=1).tolist(), t.sum(axis=0).tolist()]
    assert kappa_feasibility(kv, n=n, percent_agreement=pv, margins=margins).feasible


# --------------------------------------------------------------------------------------------
# K×K with margins: the integer program against enumeration
# --------------------------------------------------------------------------------------------

def _tables_with_margins(r, c):
    out = []
    n = sum(r)
    for x00 in range(min(r[0], c[0]) + 1):
        for x01 in range(min(r[0] - x00, c[1]) + 1):
            x02 = r[0] - x00 - x01
            if x02 > c[2]:
                continue
            for x10 in range(min(r[1], c[0] - x00) + 1):
                for x11 in range(min(r[1] - x10, c[1] - x01) + 1):
                    x12 = r[1] - x10 - x11
                    if x12 < 0 or x02 + x12 > c[2]:
                        continue
                    row2 = [c[0] - x00 - x10, c[1] - x01 - x11, c[2] - x02 - x12]
                    if min(row2) < 0 or sum(row2) != r[2]:
                        continue
                    out.append(np.array([[x00, x01, x02], [x10, x11, x12], row2]))
    assert all(t.sum() == n for t in out)
    return out


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def kappa_feasibility_kxk_matches_enumeration_test(weights):
    r, c = [5, 4, 3], [4, 5, 3]
    tables = _tables_with_margins(r, c)
    kap = np.array([_sk_kappa(t, weights) for t in tables])
    po_exact = [Fraction(int(np.trace(t)), 12) for t in tables]
    rng = np.random.default_rng(3)
    values = {f"{k:.2f}" for k in rng.choice(kap, 10)} | {f"{v:.2f}" for v in rng.uniform(-0.3, 1, 6)}
    for kv in sorted(values):
        for pv in (None, "0.58", "0.67"):
            # weighted κ from scikit-learn, to 1e-12 (a tie exactly at a rounding boundary would need
            # exact arithmetic; the values here are checked to be 1e-9 away from any boundary)
            ok = np.array([_prints_as(Fraction(float(k)), kv) for k in kap])
            if pv is not None:
                ok &= np.array([_prints_as(p, pv) for p in po_exact])
            res = kappa_feasibility(kv, n=12, margins=[r, c], percent_agreement=pv, weights=weights)
            assert res.feasible == ok.any(), (kv, pv, weights)
            assert res.table.sum(axis=1).tolist() == r and res.table.sum(axis=0).tolist() == c
            assert res.nearest_kappa == pytest.approx(_sk_kappa(res.table, weights), abs=1e-12)


def kappa_feasibility_errors_test():
    with pytest.raises(InputError, match="add up to n"):
        kappa_feasibility("0.6", n=100, margins=[[50, 40], [50, 50]])
    with pytest.raises(InputError, match="only with the margins"):
        kappa_feasibility("0.6", n=100, weights="linear")
    with pytest.raises(InputError, match="only binary tables"):
        kappa_feasibility("0.6", n=100, categories=3)
    with pytest.raises(InputError, match="needs the reported kappa"):
        kappa_feasibility(n=100)
