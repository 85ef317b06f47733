"""check_claims never calls a true claim inconsistent: claims generated from data with scipy/statsmodels.

Each generator draws a data set, computes the statistic and its p with an independent library
(scipy.stats ``pearsonr``, ``spearmanr``, ``kendalltau`` — exact, asymptotic, tie-corrected —,
statsmodels ``cohens_kappa``), rounds them as a paper prints them (2 or 3 decimals; p as ``= .012``,
``= .04``, ``< .01``, ``< .001`` or ``ns``) and feeds the claim to :func:`check_claims`. None may be
called inconsistent. The same claims with a wrong p (a significant result reported as p = .20) must
all be flagged. The normal suite runs :data:`N_FAST` claims per kind, the ``slow`` suite 1,000.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa

from metaeval.review.claims import check_claims

N_FAST = 200
N_FULL = 1000


def _fmt(x: float, d: int) -> str:
    return f"{x:.{d}f}"


def _p_text(p: float, rng) -> str:
    """A p-value as a paper prints it."""
    style = rng.integers(4)
    if p < 0.001:
        return "< .001"
    if style == 0:
        return "= " + f"{p:.3f}".lstrip("0")
    if style == 1 and p >= 0.01:
        return "= " + f"{p:.2f}".lstrip("0")
    if style == 2:
        for t in (0.001, 0.01, 0.05):
            if p < t:
                return f"< {t:g}".replace("0.", ".")
        return "ns" if p > 0.05 else "= " + f"{p:.3f}".lstrip("0")
    return "= " + f"{p:.3f}".lstrip("0")


def _n(rng) -> int:
    return int(rng.choice([int(rng.integers(5, 40)), int(rng.integers(40, 501))]))


def _correlated(rng, n, discrete=None):
    rho = rng.uniform(-0.9, 0.9)
    x = rng.standard_normal(n)
    y = rho * x + np.sqrt(1 - rho ** 2) * rng.standard_normal(n)
    if discrete:                                   # Likert-like scores with K categories: ties
        kx, ky = discrete
        x = np.digitize(x, np.quantile(x, np.sort(rng.uniform(0, 1, kx - 1))))
        y = np.digitize(y, np.quantile(y, np.sort(rng.uniform(0, 1, ky - 1))))
    return x, y


def claims_of(kind: str, count: int, seed: int) -> list[dict]:
    """``count`` true claims of one kind, each with the reference value it came from in ``_truth``."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = _n(rng)
        d = int(rng.choice([2, 3]))
        if kind in ("pearson", "spearman"):
            x, y = _correlated(rng, n, discrete=(rng.integers(2, 8), rng.integers(2, 8)) if rng.random() < 0.3 else None)
            res = (stats.pearsonr if kind == "pearson" else stats.spearmanr)(x, y)
            claim = {"kind": "correlation", "method": kind, "n": n}
        elif kind == "kendall_untied":
            x, y = _correlated(rng, n)
            method = str(rng.choice(["auto", "exact", "asymptotic"])) if n <= 170 else "asymptotic"
            res = stats.kendalltau(x, y, method=method)
            claim = {"kind": "correlation", "method": "kendall", "n": n}
        elif kind == "kendall_tied":
            k = (int(rng.integers(2, 4)), int(rng.integers(2, 4))) if rng.random() < 0.4 else \
                (int(rng.integers(2, 8)), int(rng.integers(2, 8)))
            x, y = _correlated(rng, n, discrete=k)
            res = stats.kendalltau(x, y)                          # scipy's default: tie-corrected asymptotic
            claim = {"kind": "correlation", "method": "kendall", "n": n}
            how = rng.integers(3)
            if how == 1:
                claim["scale"] = max(k)
            elif how == 2:
                t = np.zeros((max(x) + 1, max(y) + 1), dtype=int)
                np.add.at(t, (x, y), 1)
                if t.shape[0] == t.shape[1]:
                    claim["table"] = t.tolist()
        elif kind == "rank_correlation":
            m = int(rng.integers(5, 120))
            x, y = _correlated(rng, m)
            res = stats.kendalltau(x, y, method=str(rng.choice(["auto", "exact", "asymptotic"])))
            claim = {"kind": "rank_correlation", "systems": m}
        elif kind == "kappa":
            k = int(rng.choice([2, 2, 3]))
            p = rng.dirichlet(np.ones(k * k) * 0.7 + np.eye(k).ravel() * rng.uniform(0, 4))
            t = rng.multinomial(n, p).reshape(k, k)
            if (t.sum(0) == 0).any() or (t.sum(1) == 0).any():
                continue
            ref = cohens_kappa(t)
            po = np.trace(t) / n
            claim = {"kind": "kappa", "value": _fmt(ref.kappa, d)}
            how = rng.integers(3)
            if how == 0 or k > 2:
                claim["table"] = t.tolist()
            else:
                claim["n"] = n
                claim["percent_agreement"] = _fmt(po, d)
                if how == 2:
                    claim["margins"] = [t.sum(1).tolist(), t.sum(0).tolist()]
            claim["_truth"] = float(ref.kappa)
            out.append(claim)
            continue
        elif kind == "accuracy":
            acc = rng.uniform(0.3, 1.0)
            c = int(rng.binomial(n, acc))
            out.append({"kind": "accuracy", "value": _fmt(c / n, d), "n": n, "_truth": c / n})
            continue
        else:
            raise ValueError(kind)
        if not np.isfinite(res.statistic) or not np.isfinite(res.pvalue):
            continue
        claim.update(value=_fmt(res.statistic, d), p=_p_text(res.pvalue, rng), _truth=float(res.statistic),
                     _p=float(res.pvalue))
        out.append(claim)
    return out


KINDS = ["pearson", "spearman", "kendall_untied", "kendall_tied", "rank_correlation", "kappa", "accuracy"]


def _check(kind, count, seed):
    claims = claims_of(kind, count, seed)
    frame = check_claims([{k: v for k, v in c.items() if not k.startswith("_")} for c in claims])
    bad = frame[frame.verdict == "inconsistent"]
    assert len(bad) == 0, (f"{len(bad)} of {count} true {kind} claims called inconsistent, e.g. "
                           f"{claims[int(bad.index[0])]} → {bad.iloc[0].reason}")
    return claims, frame


@pytest.mark.parametrize("kind", KINDS)
def no_true_claim_is_inconsistent_test(kind):
    _check(kind, N_FAST, seed=11)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def no_true_claim_is_inconsistent_full_test(kind):
    _check(kind, N_FULL, seed=2026)


@pytest.mark.parametrize("kind", ["pearson", "spearman", "kendall_untied", "kendall_tied", "rank_correlation"])
def a_significant_result_reported_as_p_20_is_flagged_test(kind):
    # the same generated claims with p ≤ .001 (scipy) reported as p = .20: no standard test gives that
    # (for Kendall with ties, z/τ_b is at least 1/1.5 of the untied value, so p stays below .03)
    claims = [c for c in claims_of(kind, N_FAST, seed=12) if c["_p"] <= 0.001]
    assert len(claims) > 30
    wrong = [{**{k: v for k, v in c.items() if not k.startswith("_")}, "p": "= .20"} for c in claims]
    frame = check_claims(wrong)
    assert (frame.verdict == "inconsistent").all(), frame[frame.verdict != "inconsistent"].reason.iloc[0]


def a_wrong_p_near_the_truth_is_flagged_when_no_method_gives_it_test():
    # Kendall τ = .50 over 40 untied items: exact p (scipy) 5.5e-6, asymptotic 6.0e-6; with any ties the
    # smallest z is .495·√39 = 3.09 (p = .002): p = .01 follows from none of them
    x = check_claims([{"kind": "correlation", "method": "kendall", "value": "0.50", "n": 40, "p": "= .01"}]).iloc[0]
    assert x.verdict == "inconsistent" and "no standard test" in x.reason
    # p = .002 is what the tie-corrected test gives for a 2×2 table with that τ_b: consistent, and says so
    y = check_claims([{"kind": "correlation", "method": "kendall", "value": "0.50", "n": 40, "p": "= .002"}]).iloc[0]
    assert y.verdict == "consistent" and "tie correction" in y.reason
    # with ties excluded it is not
    z = check_claims([{"kind": "correlation", "method": "kendall", "value": "0.50", "n": 40, "p": "= .002",
                       "ties": False}]).iloc[0]
    assert z.verdict == "inconsistent"


def the_issues_examples_test():
    """The false accusations reported against check_claims, each now consistent and naming its test."""
    # τ_b of [[30, 10], [15, 25]] (scipy.stats.kendalltau on the expanded table: τ_b = 0.378, p = .00086)
    t = np.array([[30, 10], [15, 25]])
    x, y = np.repeat([0, 0, 1, 1], t.ravel()), np.repeat([0, 1, 0, 1], t.ravel())
    ref = stats.kendalltau(x, y)
    assert f"{ref.statistic:.2f}" == "0.38" and f"{ref.pvalue:.3f}" == "0.001"
    for claim in ({"kind": "correlation", "method": "kendall", "value": "0.38", "n": 80, "p": "= .001"},
                  {"kind": "correlation", "method": "kendall", "value": "0.38", "table": t.tolist(), "p": "= .001"}):
        r = check_claims([claim]).iloc[0]
        assert r.verdict == "consistent" and "tie correction" in r.details["p_methods_matching"][0]
    # with the table stated the tie pattern is known: p = .002 follows from no test
    assert check_claims([{"kind": "correlation", "method": "kendall", "value": "0.38", "table": t.tolist(),
                          "p": "= .002"}]).verdict[0] == "inconsistent"
    # untied, n = 60: scipy's default there is the asymptotic test (kendalltau(..., method="asymptotic"))
    r = check_claims([{"kind": "correlation", "method": "kendall", "value": "0.038", "n": 60, "p": ".665",
                       "ties": False}]).iloc[0]
    assert r.verdict == "consistent" and r.details["p_methods_matching"] == ["normal approximation without ties"]
    # Spearman, n = 30, Σd² = 5166 (ρ = −0.149): R's cor.test gives p = .4295 by AS 89
    # (tests/reference/r_correlation_nulls.json), scipy's t approximation .431: .429 is R's
    r = check_claims([{"kind": "correlation", "method": "spearman", "value": "-0.149", "n": 30, "p": "= .429"}]).iloc[0]
    assert r.verdict == "consistent" and r.details["p_methods_matching"] == ["Edgeworth series (AS 89)"]
    assert check_claims([{"kind": "correlation", "method": "spearman", "value": "-0.149", "n": 30,
                          "p": "= .425"}]).verdict[0] == "inconsistent"


def a_stated_scale_makes_ties_certain_test():
    # 80 items on a 5-point scale must tie: the tie-corrected test applies even with ties = false
    base = {"kind": "correlation", "method": "kendall", "value": "0.38", "n": 80, "p": "= .001", "ties": False}
    assert check_claims([base]).verdict[0] == "inconsistent"
    for scale in (5, [1, 2, 3, 4, 5]):
        assert check_claims([{**base, "scale": scale}]).verdict[0] == "consistent"
