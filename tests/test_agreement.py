"""Agreement statistics against independent implementations and published values.

Sources of the expected numbers (each test says which one it uses):

* scikit-learn (``cohen_kappa_score``, ``matthews_corrcoef``, ``precision_recall_fscore_support``);
* statsmodels (``statsmodels.stats.inter_rater.cohens_kappa``, ``fleiss_kappa``);
* R psych 2.2.9 ``cohen.kappa``: ``tests/reference/r_psych_values.json``;
* irrCAC 0.4.4: ``tests/reference/irrcac_values.json``;
* the ``krippendorff`` package;
* published examples: Fleiss (1971) diagnoses, kappa 0.430; Krippendorff (2011) reliability data,
  alpha 0.743 / 0.815 / 0.849 / 0.797; Byrt, Bishop & Carlin (1993) identity; the prevalence example
  of /work/shared/STATISTICS.md.

The input tables are ``tests/reference/tables.json`` (K = 2..5, imbalance, empty rows and columns,
an unused category, a degenerate one-cell table, perfect agreement).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support
from sklearn.metrics import matthews_corrcoef as sk_mcc
from statsmodels.stats import inter_rater

import metaeval
from metaeval import UndefinedStatisticWarning

REF = Path(__file__).resolve().parent / "reference"
SPEC = json.loads((REF / "tables.json").read_text())
TABLES = {t["name"]: np.asarray(t["counts"], dtype=np.int64) for t in SPEC["tables"]}
PSYCH = {t["name"]: t for t in json.loads((REF / "r_psych_values.json").read_text())["tables"]}
IRR_ALL = json.loads((REF / "irrcac_values.json").read_text())
IRR = {t["name"]: t for t in IRR_ALL["tables"]}

NAMES = list(TABLES)
TOL = 1e-9          # reference files carry 15 significant digits (tests/reference/README.md §11)
WEIGHTS = [None, "linear", "quadratic"]
IRR_WEIGHT = {None: "identity", "linear": "linear", "quadratic": "quadratic"}
# a cheap bootstrap for statistics whose point estimate is all we look at
FAST = dict(ci_method="percentile", n_resamples=20, rng=0)


def _undefined(t) -> bool:
    """Chance agreement p_e = 1 (the degenerate one-cell table): kappa is 0/0."""
    t = np.asarray(t, dtype=float)
    return bool(np.isclose(t.sum(axis=1) @ t.sum(axis=0) / t.sum() ** 2, 1.0))


DEFINED = [n for n in NAMES if not _undefined(TABLES[n])]
TWO_BY_TWO = [n for n in DEFINED if TABLES[n].shape == (2, 2)]


def expand(t):
    """Item-level labels, row-major over cells (the convention of tests/reference/README.md)."""
    t = np.asarray(t)
    k = t.shape[0]
    ref = np.repeat(np.repeat(np.arange(k), k), t.ravel())
    cand = np.repeat(np.tile(np.arange(k), k), t.ravel())
    return ref, cand


def agreement_weights(k, kind):
    d = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
    return {None: np.eye(k), "linear": 1 - d, "quadratic": 1 - d**2}[kind]


def close(a, b, tol=TOL):
    """Equal within tol, or both NaN/None."""
    a = np.nan if a is None else float(a)
    b = np.nan if b is None else float(b)
    if np.isnan(a) or np.isnan(b):
        return np.isnan(a) and np.isnan(b)
    return abs(a - b) <= tol


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# =============================================================================================
# scikit-learn
# =============================================================================================

@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("name", NAMES)
def sklearn_cohen_kappa_test(name, weights):
    t = TABLES[name]
    x, y = expand(t)
    k = t.shape[0]
    # expected: sklearn.metrics.cohen_kappa_score on the expanded labels, all K labels declared
    expected = quiet(cohen_kappa_score, x, y, labels=list(range(k)), weights=weights)
    got = quiet(metaeval.cohen_kappa, table=t, weights=weights, ci_method="analytic").estimate
    assert close(got, expected), (got, expected)
    # the same through the label form
    got_labels = quiet(metaeval.cohen_kappa, x, y, weights=weights, ci_method="analytic",
                       scale=metaeval.Scale(tuple(range(k)))).estimate
    assert close(got_labels, expected)


@pytest.mark.parametrize("name", NAMES)
def sklearn_matthews_corrcoef_test(name):
    t = TABLES[name]
    x, y = expand(t)
    got = quiet(metaeval.matthews_corrcoef, table=t, **FAST).estimate
    # expected: sklearn.metrics.matthews_corrcoef (multiclass form, Gorodkin 2004)
    expected = quiet(sk_mcc, x, y)
    if _undefined(t):
        # documented divergence: sklearn returns 0.0 when the denominator is 0; metaeval says NaN
        # (undefined), like kappa. Pin both so a change on either side is noticed.
        assert expected == 0.0 and np.isnan(got)
    else:
        assert close(got, expected), (got, expected)


@pytest.mark.parametrize("name", NAMES)
def sklearn_per_class_test(name):
    t = TABLES[name]
    x, y = expand(t)
    k = t.shape[0]
    # expected: sklearn precision_recall_fscore_support, zero_division=np.nan (NaN where undefined)
    p, r, f, s = quiet(precision_recall_fscore_support, x, y, labels=list(range(k)), zero_division=np.nan)
    frame = quiet(metaeval.per_class, table=t, **FAST).to_frame()
    for metric, exp in (("precision", p), ("recall", r), ("f1", f)):
        rows = frame[frame["statistic"] == metric]
        assert len(rows) == k
        for j in range(k):
            got = rows["estimate"].iloc[j]
            assert rows["class"].iloc[j] == str(j)
            if np.isnan(exp[j]):
                assert np.isnan(got), (metric, j, got)
            else:
                assert close(got, exp[j]), (metric, j, got, exp[j])
    support = frame[frame["statistic"] == "precision"]["support"].to_numpy()
    np.testing.assert_array_equal(support, s)


# =============================================================================================
# statsmodels
# =============================================================================================

@pytest.mark.parametrize("wt", WEIGHTS)
@pytest.mark.parametrize("name", DEFINED)
def statsmodels_cohens_kappa_test(name, wt):
    t = TABLES[name]
    # expected: statsmodels.stats.inter_rater.cohens_kappa. Its wt='linear'/'quadratic' with the
    # default scores arange(K) builds DISAGREEMENT weights |i-j|/(K-1) and (i-j)^2/(K-1)^2 (read in
    # statsmodels/stats/inter_rater.py); kappa is invariant to w -> 1 - w, so they equal our
    # agreement weights 1 - |i-j|/(K-1), 1 - (i-j)^2/(K-1)^2.
    sm = quiet(inter_rater.cohens_kappa, t, wt=wt, return_results=True)
    est = quiet(metaeval.cohen_kappa, table=t, weights=wt, ci_method="analytic",
                quantile="normal")  # statsmodels uses the normal quantile
    assert close(est.estimate, sm.kappa)
    assert close(est.se, sm.std_kappa, 1e-12)
    assert close(est.extra["se0"], sm.std_kappa0, 1e-12)
    # statsmodels' interval: kappa -/+ norm.isf(0.025) * std_kappa (its default alpha 0.025 per side)
    assert close(est.ci.low, sm.kappa_low, 1e-12)
    assert close(est.ci.high, sm.kappa_upp, 1e-12)
    assert est.ci.method == "analytic" and est.ci.level == 0.95
    # with a bootstrap interval the analytic SE and the H0 SE are still reported
    boot = quiet(metaeval.cohen_kappa, table=t, weights=wt, ci_method="percentile", n_resamples=20, rng=0)
    assert close(boot.extra["se_analytic"], sm.std_kappa, 1e-12)
    assert close(boot.extra["se0"], sm.std_kappa0, 1e-12)
    # the z-test p-value uses the H0 variance (statsmodels' pvalue_two_sided)
    if sm.std_kappa0 > 0:
        assert close(est.pvalue, sm.pvalue_two_sided, 1e-12)


@pytest.mark.parametrize("name", ["k4_trec_relevance", "k5_likert", "k3_fleiss_cohen_everitt"])
def statsmodels_explicit_weight_matrix_test(name):
    """statsmodels with an explicit 2-D (disagreement) matrix == metaeval with the agreement matrix."""
    t = TABLES[name]
    k = t.shape[0]
    for kind in ("linear", "quadratic"):
        w = agreement_weights(k, kind)
        # expected: statsmodels cohens_kappa(weights=<2-D disagreement matrix>)
        sm = inter_rater.cohens_kappa(t, weights=1 - w, return_results=True)
        est = metaeval.cohen_kappa(table=t, weights=w, ci_method="analytic")
        by_name = metaeval.cohen_kappa(table=t, weights=kind, ci_method="analytic")
        assert close(est.estimate, sm.kappa) and close(est.se, sm.std_kappa, 1e-12)
        assert close(est.estimate, by_name.estimate, 1e-14)
        assert est.statistic == "cohen_kappa_weighted" and by_name.statistic == f"cohen_kappa_{kind}"


# =============================================================================================
# R psych 2.2.9
# =============================================================================================

@pytest.mark.parametrize("name", NAMES)
def psych_kappa_test(name):
    t = TABLES[name]
    ps = PSYCH[name]
    # expected: r_psych_values.json, psych::cohen.kappa (kappa; weighted_kappa_linear / _quadratic
    # from the disagreement-weight calls)
    for weights, key in ((None, "kappa"), ("linear", "weighted_kappa_linear"),
                         ("quadratic", "weighted_kappa_quadratic")):
        got = quiet(metaeval.cohen_kappa, table=t, weights=weights, ci_method="analytic").estimate
        assert close(got, ps[key]), (weights, got, ps[key])
    # psych's default w (quadratic agreement weights)
    if ps["weighted_kappa_default_w"] is not None:
        got = quiet(metaeval.cohen_kappa, table=t, weights="quadratic", ci_method="analytic").estimate
        assert close(got, ps["weighted_kappa_default_w"])


@pytest.mark.parametrize("name", NAMES)
def psych_unweighted_ci_test(name):
    t = TABLES[name]
    ps = PSYCH[name]
    est = quiet(metaeval.cohen_kappa, table=t, ci_method="analytic", quantile="normal")
    # expected: r_psych_values.json kappa_ci95 (normal approximation kappa -/+ qnorm(.975) sqrt(var),
    # clipped to [-1, 1] by psych) and kappa_var (Fleiss-Cohen-Everitt 1969)
    ci = ps["kappa_ci95"]
    if ci["lower"] is None:
        assert np.isnan(est.ci.low) and np.isnan(est.ci.high)
        return
    assert close(est.se**2, ps["kappa_var"], 1e-12)
    # psych clips; no table here needs it, so the clipped and the raw interval coincide
    assert close(max(-1.0, est.ci.low), ci["lower"]) and close(min(1.0, est.ci.high), ci["upper"])
    assert close(est.ci.low, ci["lower"]) and close(est.ci.high, ci["upper"])


def analytic_ci_beyond_one_is_not_clipped_test():
    """Near-perfect agreement on few items: kappa + 1.96 se > 1.

    metaeval's analytic interval equals statsmodels' (unclipped, as the docstring promises); psych
    would report min(1, upper) (tests/reference/README.md caveat 4). This pins the current choice.
    """
    t = np.array([[19, 1], [0, 20]])
    est = metaeval.cohen_kappa(table=t, ci_method="analytic", quantile="normal")   # statsmodels: normal quantile
    sm = inter_rater.cohens_kappa(t)
    assert sm.kappa_upp > 1
    assert close(est.ci.high, sm.kappa_upp, 1e-12) and close(est.ci.low, sm.kappa_low, 1e-12)


# =============================================================================================
# irrCAC 0.4.4
# =============================================================================================

def _irr(name, api, kind, coef):
    leaf = IRR[name][api][kind][coef]
    if leaf.get("undefined_pe_equals_1"):
        return None      # README caveat 7: 0/0, a float artefact when reported at all
    return leaf["coefficient"]


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("name", NAMES)
def irrcac_table_coefficients_test(name, weights):
    t = TABLES[name]
    kind = IRR_WEIGHT[weights]
    # expected: irrcac_values.json, irrCAC.table.CAC(table, weights=kind) .gwet() .bp() .scott()
    # .cohen() .pa2(); irrCAC's linear/quadratic are agreement weights like ours
    checks = {
        "gwet_ac": quiet(metaeval.gwet_ac2, table=t, weights=weights or "identity", **FAST).estimate,
        "brennan_prediger": quiet(metaeval.bennett_s, table=t, weights=weights, **FAST).estimate,
        "scott_pi": quiet(metaeval.scott_pi, table=t, weights=weights, **FAST).estimate,
        "cohen_kappa": quiet(metaeval.cohen_kappa, table=t, weights=weights, ci_method="analytic").estimate,
        "percent_agreement": quiet(metaeval.observed_agreement, table=t, weights=weights, **FAST).estimate,
    }
    for coef, got in checks.items():
        assert close(got, _irr(name, "table_api", kind, coef)), (coef, got)
    if weights is None:
        # AC1 and PABAK (unweighted Brennan-Prediger) by their own functions
        assert close(quiet(metaeval.gwet_ac1, table=t, **FAST).estimate, _irr(name, "table_api", kind, "gwet_ac"))
        assert close(quiet(metaeval.pabak, table=t, **FAST).estimate,
                     _irr(name, "table_api", kind, "brennan_prediger"))


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("name", NAMES)
def irrcac_raw_api_test(name, weights):
    """Two-rater raw API: Fleiss == Scott's pi, Conger == Cohen's kappa (point estimates)."""
    t = TABLES[name]
    kind = IRR_WEIGHT[weights]
    # expected: irrcac_values.json raw_api (irrCAC.raw.CAC(item-level frame, categories=0..K-1))
    assert close(quiet(metaeval.scott_pi, table=t, weights=weights, **FAST).estimate,
                 _irr(name, "raw_api", kind, "fleiss_kappa"))
    assert close(quiet(metaeval.cohen_kappa, table=t, weights=weights, ci_method="analytic").estimate,
                 _irr(name, "raw_api", kind, "conger_kappa"))
    assert close(quiet(metaeval.gwet_ac2, table=t, weights=weights or "identity", **FAST).estimate,
                 _irr(name, "raw_api", kind, "gwet_ac"))
    assert close(quiet(metaeval.bennett_s, table=t, weights=weights, **FAST).estimate,
                 _irr(name, "raw_api", kind, "brennan_prediger"))


def irrcac_documentation_example_test():
    t = TABLES["k3_gwet_abstractors"]
    # published in irrCAC's documentation (rounded to 5 digits): AC1 0.84933, AC2 (quadratic) 0.94024
    assert round(metaeval.gwet_ac1(table=t, **FAST).estimate, 5) == 0.84933
    assert round(metaeval.gwet_ac2(table=t, weights="quadratic", **FAST).estimate, 5) == 0.94024


# =============================================================================================
# identities
# =============================================================================================

@pytest.mark.parametrize("name", NAMES)
def pabak_identity_test(name):
    t = TABLES[name]
    k = t.shape[0]
    po = np.trace(t) / t.sum()
    # Byrt, Bishop & Carlin (1993): PABAK = 2 p_o - 1 (K = 2); (K p_o - 1)/(K - 1) for K classes
    expected = 2 * po - 1 if k == 2 else (k * po - 1) / (k - 1)
    assert close(metaeval.pabak(table=t, **FAST).estimate, expected)
    assert close(metaeval.bennett_s(table=t, **FAST).estimate, expected)
    assert close(metaeval.observed_agreement(table=t, **FAST).estimate, po)


@pytest.mark.parametrize("name", TWO_BY_TWO)
def byrt_identity_test(name):
    t = TABLES[name]
    n = t.sum()
    pb = metaeval.prevalence_bias_index(table=t, **FAST)
    PI, BI = pb["prevalence_index"].estimate, pb["bias_index"].estimate
    # Byrt et al. (1993): a = both positive, d = both negative, b, c the disagreements
    a, d, b, c = t[1, 1], t[0, 0], t[1, 0], t[0, 1]
    assert close(PI, (a - d) / n) and close(BI, (b - c) / n)
    pab = metaeval.pabak(table=t, **FAST).estimate
    kappa = metaeval.cohen_kappa(table=t, ci_method="analytic").estimate
    # kappa = (PABAK - PI^2 + BI^2)/(1 - PI^2 + BI^2)  (STATISTICS.md, Byrt et al. 1993)
    assert close(kappa, (pab - PI**2 + BI**2) / (1 - PI**2 + BI**2))


def kappa_at_prevalence_example_test():
    t = np.array([[85, 20], [20, 77]])
    r = metaeval.kappa_at_prevalence(table=t, prevalence=0.0107, rng=0, n_resamples=500)
    # /work/shared/STATISTICS.md: kappa ~ 0.063 and PPV ~ 0.043 at prevalence 0.0107
    assert round(r["kappa"].estimate, 3) == 0.063
    assert round(r["ppv"].estimate, 3) == 0.043
    # direct computation from Se, Sp (same formula, spelled out)
    se, sp, pi = 77 / 97, 85 / 105, 0.0107
    tp, fn, fp, tn = pi * se, pi * (1 - se), (1 - pi) * (1 - sp), (1 - pi) * sp
    po, pe = tp + tn, (tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)
    assert close(r["kappa"].estimate, (po - pe) / (1 - pe), 1e-12)
    assert close(r["ppv"].estimate, tp / (tp + fp), 1e-12)
    assert close(r["observed_agreement"].estimate, po, 1e-12)
    for e in r:
        assert e.ci.low <= e.estimate <= e.ci.high
    assert list(r.curve.columns) == ["prevalence", "kappa", "kappa_low", "kappa_high", "ppv", "ppv_low", "ppv_high"]


@pytest.mark.parametrize("name", TWO_BY_TWO)
def kappa_at_own_prevalence_test(name):
    t = TABLES[name]
    own = t[1].sum() / t.sum()
    r = metaeval.kappa_at_prevalence(table=t, prevalence=own, rng=0, n_resamples=50)
    # the expected table at the measured prevalence is the table itself: kappa, PPV, p_o come back
    assert close(r["kappa"].estimate, metaeval.cohen_kappa(table=t, ci_method="analytic").estimate, 1e-12)
    assert close(r["ppv"].estimate, t[1, 1] / t[:, 1].sum(), 1e-12)
    assert close(r["observed_agreement"].estimate, np.trace(t) / t.sum(), 1e-12)
    assert close(r.measured_prevalence, own, 1e-15)
    row = r.curve[np.isclose(r.curve["prevalence"], own, rtol=0, atol=1e-15)]
    assert len(row) == 1 and close(row["kappa"].iloc[0], r["kappa"].estimate, 1e-12)


@pytest.mark.parametrize("name", [n for n in DEFINED if TABLES[n].shape[0] > 2])
def threshold_agreement_matches_binarized_test(name):
    t = TABLES[name]
    k = t.shape[0]
    x, y = expand(t)
    res = quiet(metaeval.threshold_agreement, table=t, **FAST)
    frame = res.to_frame()
    assert sorted(frame["threshold"].unique()) == list(range(1, k))
    for j in range(1, k):
        xb, yb = (x >= j).astype(float), (y >= j).astype(float)
        rows = frame[frame["threshold"] == j].set_index("statistic")["estimate"]
        split = frame[frame["threshold"] == j]["split"].iloc[0]
        assert split == "".join(map(str, range(j))) + "|" + "".join(map(str, range(j, k)))
        tb = metaeval.contingency(xb, yb, metaeval.Scale((0, 1)))
        # expected: the individual functions on the binarized labels (and sklearn for kappa)
        assert close(rows["cohen_kappa"], quiet(metaeval.cohen_kappa, table=tb, ci_method="analytic").estimate)
        assert close(rows["cohen_kappa"], quiet(cohen_kappa_score, xb, yb, labels=[0, 1]))
        assert close(rows["observed_agreement"], np.mean(xb == yb))
        assert close(rows["pabak"], metaeval.pabak(table=tb, **FAST).estimate)
        assert close(rows["gwet_ac1"], metaeval.gwet_ac1(table=tb, **FAST).estimate)
        p, r, _, _ = quiet(precision_recall_fscore_support, xb, yb, labels=[0, 1], zero_division=np.nan)
        assert close(rows["precision"], p[1]) and close(rows["recall"], r[1])


@pytest.mark.parametrize("name", ["k2_balanced", "k2_extreme_imbalance", "k4_trec_relevance", "k5_likert"])
def agreement_report_matches_individual_functions_test(name):
    t = TABLES[name]
    k = t.shape[0]
    kw = dict(ci_method="bca", n_resamples=400, rng=11)
    rep = metaeval.agreement_report(table=t, **kw)
    individual = {
        "observed_agreement": metaeval.observed_agreement(table=t, **kw),
        "cohen_kappa": metaeval.cohen_kappa(table=t, **kw),
        "scott_pi": metaeval.scott_pi(table=t, **kw),
        "pabak": metaeval.pabak(table=t, **kw),
        "gwet_ac1": metaeval.gwet_ac1(table=t, **kw),
        "kappa_max": metaeval.kappa_max(table=t, **kw),
        "matthews_corrcoef": metaeval.matthews_corrcoef(table=t, **kw),
    }
    if k > 2:
        individual["cohen_kappa_linear"] = metaeval.cohen_kappa(table=t, weights="linear", **kw)
        individual["cohen_kappa_quadratic"] = metaeval.cohen_kappa(table=t, weights="quadratic", **kw)
    else:
        pb = metaeval.prevalence_bias_index(table=t, **kw)
        individual["prevalence_index"] = pb["prevalence_index"]
        individual["bias_index"] = pb["bias_index"]
    x, y = expand(t)
    level = "nominal" if k == 2 else "ordinal"
    alpha = krippendorff.alpha(reliability_data=np.vstack([x, y]).astype(float), value_domain=list(range(k)),
                               level_of_measurement=level)
    assert close(rep[f"krippendorff_alpha_{level}"].estimate, alpha)
    names = [e.statistic for e in rep]
    assert set(individual) <= set(names)
    for stat, est in individual.items():
        got = rep[stat]
        assert close(got.estimate, est.estimate, 1e-12), stat
        # one set of replicates for the report, the same draws (same rng, same units) for each function
        assert close(got.ci.low, est.ci.low, 1e-12) and close(got.ci.high, est.ci.high, 1e-12), stat


# =============================================================================================
# one class only
# =============================================================================================

@pytest.mark.parametrize("form", ["table", "labels"])
def one_class_sample_test(form):
    if form == "table":
        args, kwargs = (), dict(table=[[0, 0], [0, 50]])
    else:
        args, kwargs = (np.ones(50), np.ones(50)), {}
    for method in ("analytic", "bca"):
        with pytest.warns(UndefinedStatisticWarning) as rec:
            est = metaeval.cohen_kappa(*args, ci_method=method, n_resamples=50, rng=0, **kwargs)
        assert np.isnan(est.estimate)
        msgs = [str(w.message) for w in rec if issubclass(w.category, UndefinedStatisticWarning)]
        assert any("chance agreement is 1" in m and "one class" in m for m in msgs), msgs
    with pytest.warns(UndefinedStatisticWarning, match="scott_pi is undefined"):
        assert np.isnan(metaeval.scott_pi(*args, n_resamples=50, rng=0, **kwargs).estimate)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedStatisticWarning)   # no "undefined" warning for these
        pab = metaeval.pabak(*args, ci_method="percentile", n_resamples=50, rng=0, **kwargs)
        ac1 = metaeval.gwet_ac1(*args, ci_method="percentile", n_resamples=50, rng=0, **kwargs)
    # every item agrees: PABAK = 2*1 - 1 = 1, AC1 = (1 - 0)/(1 - 0) = 1 (irrcac_values.json reports
    # AC1 = BP = 1 for the same degenerate table k2_degenerate_single_cell)
    assert pab.estimate == 1.0 and ac1.estimate == 1.0
    assert (pab.ci.low, pab.ci.high) == (1.0, 1.0) and (ac1.ci.low, ac1.ci.high) == (1.0, 1.0)


def one_class_sample_no_stray_runtime_warning_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        warnings.simplefilter("error", RuntimeWarning)
        metaeval.cohen_kappa(table=[[0, 0], [0, 50]], ci_method="analytic")


# =============================================================================================
# input forms
# =============================================================================================

def _frames():
    """Two judgment sets (human, judge) of k4_small_sparse-like labels over 4 topics."""
    rng = np.random.default_rng(5)
    n = 120
    x = rng.integers(0, 4, n)
    y = np.clip(x + rng.integers(-1, 2, n), 0, 3)
    topic = np.repeat(["q1", "q2", "q3", "q4"], n // 4)
    doc = [f"d{i}" for i in range(n)]
    human = pd.DataFrame({"query_id": topic, "doc_id": doc, "relevance": x, "topic": topic})
    judge = pd.DataFrame({"query_id": topic, "doc_id": doc, "relevance": y})
    # shuffle the judge's rows: align() must pair by key, not by position
    judge = judge.sample(frac=1.0, random_state=1).reset_index(drop=True)
    return x.astype(float), y.astype(float), topic, human, judge


def input_forms_agree_test():
    x, y, topic, human, judge = _frames()
    scale = metaeval.Scale((0, 1, 2, 3))
    paired = metaeval.align(human, judge, scale=scale)
    table = metaeval.contingency(x, y, scale)
    per_topic = metaeval.contingency(x, y, scale, cluster=topic)
    assert per_topic.shape == (4, 4, 4)
    kw = dict(ci_method="percentile", n_resamples=200, rng=3)
    for fn in (metaeval.cohen_kappa, metaeval.gwet_ac1, metaeval.matthews_corrcoef, metaeval.scott_pi):
        ests = [fn(x, y, scale=scale, **kw), fn(paired, **kw), fn(table=table, **kw), fn(table=per_topic, **kw)]
        for e in ests[1:]:
            assert close(e.estimate, ests[0].estimate, 1e-14)
        # iid forms draw the same multinomial cells: identical intervals
        assert ests[0].ci == ests[1].ci == ests[2].ci
        assert ests[3].unit == "clusters" and ests[3].n_units == 4
    # weighted kappa and the analytic interval through the Paired
    a = metaeval.cohen_kappa(paired, weights="quadratic", ci_method="analytic")
    b = metaeval.cohen_kappa(table=table, weights="quadratic", ci_method="analytic")
    assert close(a.estimate, b.estimate, 1e-14) and a.ci == b.ci


def cluster_column_name_of_paired_test():
    x, y, topic, human, judge = _frames()
    scale = metaeval.Scale((0, 1, 2, 3))
    paired = metaeval.align(human, judge, scale=scale)
    kw = dict(ci_method="bca", n_resamples=300, rng=8)
    by_name = metaeval.cohen_kappa(paired, cluster="topic", **kw)
    by_array = metaeval.cohen_kappa(x, y, scale=scale, cluster=topic, **kw)
    by_table = metaeval.cohen_kappa(table=metaeval.contingency(x, y, scale, cluster=topic), **kw)
    assert by_name.unit == "clusters" and by_name.n_units == 4
    for e in (by_array, by_table):
        assert close(e.estimate, by_name.estimate, 1e-14)
        assert e.ci == by_name.ci       # clusters in sorted order in all three: the same draws
        np.testing.assert_array_equal(e.replicates, by_name.replicates)
    # the report, too
    rep = metaeval.agreement_report(paired, cluster="topic", **kw)
    assert rep["cohen_kappa"].unit == "clusters"
    assert close(rep["cohen_kappa"].ci.low, by_name.ci.low, 1e-12)
    with pytest.raises(metaeval.InputError, match="no column"):
        metaeval.cohen_kappa(paired, cluster="no_such_column", **kw)


# =============================================================================================
# registry-driven shared checks (in the spirit of scikit-learn's common tests)
# =============================================================================================

TABLE_STATISTICS = {
    "cohen_kappa": metaeval.cohen_kappa,
    "scott_pi": metaeval.scott_pi,
    "pabak": metaeval.pabak,
    "bennett_s": metaeval.bennett_s,
    "gwet_ac1": metaeval.gwet_ac1,
    "observed_agreement": metaeval.observed_agreement,
    "kappa_max": metaeval.kappa_max,
    "matthews_corrcoef": metaeval.matthews_corrcoef,
}
# all of them are symmetric in the two raters (transposing the table): the diagonal, the pooled
# margins, min(p_k+, p_+k) and the MCC's product form do not care which rater is the row
SYMMETRIC = set(TABLE_STATISTICS)
REGISTRY_TABLES = ["k2_asymmetric_marginals", "k3_empty_column", "k4_trec_relevance", "k5_shifted_candidate"]


@pytest.mark.parametrize("stat", list(TABLE_STATISTICS))
def registry_reproducible_test(stat):
    fn = TABLE_STATISTICS[stat]
    t = TABLES["k4_trec_relevance"]
    a = fn(table=t, n_resamples=300, rng=42)
    b = fn(table=t, n_resamples=300, rng=42)
    c = fn(table=t, n_resamples=300, rng=43)
    assert a.ci == b.ci and a.seed == b.seed == 42
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert not np.array_equal(a.replicates, c.replicates)
    assert a.n_resamples == 300 and len(a.replicates) == 300
    g1 = fn(table=t, n_resamples=50, rng=np.random.default_rng(7))
    g2 = fn(table=t, n_resamples=50, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(g1.replicates, g2.replicates)


@pytest.mark.parametrize("stat", list(TABLE_STATISTICS))
def registry_to_frame_test(stat):
    est = TABLE_STATISTICS[stat](table=TABLES["k3_fleiss_cohen_everitt"], n_resamples=100, rng=0)
    frame = est.to_frame()
    for col in ("statistic", "estimate", "ci_low", "ci_high", "confidence_level", "ci_method"):
        assert col in frame.columns
    row = frame.iloc[0]
    assert row["statistic"] == stat
    assert row["estimate"] == est.estimate and row["ci_low"] == est.ci.low and row["ci_high"] == est.ci.high
    assert row["confidence_level"] == 0.95 and row["ci_method"] == "bca"
    assert list(frame.columns) == metaeval.core.results.FRAME_COLUMNS
    assert est.ci.low <= est.estimate <= est.ci.high


@pytest.mark.parametrize("name", REGISTRY_TABLES)
@pytest.mark.parametrize("stat", list(TABLE_STATISTICS))
def registry_rater_swap_test(stat, name):
    fn = TABLE_STATISTICS[stat]
    t = TABLES[name]
    a = quiet(fn, table=t, **FAST).estimate
    b = quiet(fn, table=t.T, **FAST).estimate
    if stat in SYMMETRIC:
        assert close(a, b, 1e-12), (a, b)


@pytest.mark.parametrize("name", REGISTRY_TABLES)
@pytest.mark.parametrize("stat", list(TABLE_STATISTICS))
def registry_relabel_invariance_test(stat, name):
    fn = TABLE_STATISTICS[stat]
    t = TABLES[name]
    k = t.shape[0]
    a = quiet(fn, table=t, **FAST).estimate
    rng = np.random.default_rng(k)
    for _ in range(3):
        perm = rng.permutation(k)
        tp = t[np.ix_(perm, perm)]          # the same categories, renamed on both sides
        assert close(quiet(fn, table=tp, **FAST).estimate, a, 1e-12)


@pytest.mark.parametrize("name", ["k4_trec_relevance", "k5_likert"])
def weighted_kappa_reversal_invariance_test(name):
    """Weighted kappa is not permutation invariant, but reversing the scale keeps |i - j|."""
    t = TABLES[name]
    rev = t[::-1, ::-1]
    for w in ("linear", "quadratic"):
        a = metaeval.cohen_kappa(table=t, weights=w, ci_method="analytic")
        b = metaeval.cohen_kappa(table=rev, weights=w, ci_method="analytic")
        assert close(a.estimate, b.estimate, 1e-12) and close(a.se, b.se, 1e-12)
    k = t.shape[0]
    perm = np.roll(np.arange(k), 1)
    moved = metaeval.cohen_kappa(table=t[np.ix_(perm, perm)], weights="linear", ci_method="analytic")
    assert not close(moved.estimate, metaeval.cohen_kappa(table=t, weights="linear", ci_method="analytic").estimate,
                     1e-6)


# =============================================================================================
# confusion matrix, binary metrics, agreement_by
# =============================================================================================

@pytest.mark.parametrize("name", ["k2_balanced", "k3_empty_row", "k5_shifted_candidate"])
def confusion_matrix_matches_sklearn_test(name):
    from sklearn.metrics import confusion_matrix as sk_cm

    t = TABLES[name]
    x, y = expand(t)
    k = t.shape[0]
    np.testing.assert_array_equal(metaeval.confusion_matrix(table=t).to_numpy(), t)
    # expected: sklearn.metrics.confusion_matrix(normalize='true'|'pred'|'all')
    for ours, theirs in (("row", "true"), ("column", "pred"), ("all", "all")):
        got = quiet(metaeval.confusion_matrix, x, y, scale=metaeval.Scale(tuple(range(k))), normalize=ours).to_numpy()
        exp = quiet(sk_cm, x, y, labels=list(range(k)), normalize=theirs)
        # sklearn writes 0 where a row/column is empty; metaeval leaves 0/0 as NaN
        np.testing.assert_allclose(np.nan_to_num(got), exp, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", TWO_BY_TWO)
def binary_metrics_match_sklearn_test(name):
    t = TABLES[name]
    x, y = expand(t)
    res = quiet(metaeval.binary_metrics, table=t, **FAST)
    # expected: sklearn precision_recall_fscore_support per class (1 = positive)
    p, r, _, s = quiet(precision_recall_fscore_support, x, y, labels=[0, 1], zero_division=np.nan)
    assert close(res["sensitivity"].estimate, r[1]) and close(res["specificity"].estimate, r[0])
    assert close(res["ppv"].estimate, p[1]) and close(res["npv"].estimate, p[0])
    assert close(res["prevalence"].estimate, s[1] / s.sum())


def agreement_by_matches_report_on_each_group_test():
    rng = np.random.default_rng(0)
    n = 300
    x = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.8, x, 1 - x)
    g = np.repeat(["a", "b", "c"], [150, 130, 20])
    human = pd.DataFrame({"query_id": g, "doc_id": [f"d{i}" for i in range(n)], "relevance": x, "grp": g})
    judge = pd.DataFrame({"query_id": g, "doc_id": [f"d{i}" for i in range(n)], "relevance": y})
    paired = metaeval.align(human, judge)
    with pytest.warns(metaeval.SmallSampleWarning, match=r"c \(n=20\)"):
        frame = metaeval.agreement_by(paired, "grp", ci_method="percentile", n_resamples=100, rng=0)
    assert list(frame.columns[:2]) == ["grp", "statistic"]
    assert sorted(frame["grp"].unique()) == ["a", "b", "c"]
    for grp in ("a", "b", "c"):
        sel = g == grp
        for stat, fn in (("cohen_kappa", metaeval.cohen_kappa), ("pabak", metaeval.pabak),
                         ("gwet_ac1", metaeval.gwet_ac1)):
            row = frame[(frame["grp"] == grp) & (frame["statistic"] == stat)]
            assert len(row) == 1
            exp = quiet(fn, x[sel].astype(float), y[sel].astype(float), scale=metaeval.Scale((0, 1)), **FAST)
            assert close(row["estimate"].iloc[0], exp.estimate, 1e-12)
            assert row["n"].iloc[0] == sel.sum()


# =============================================================================================
# bugs found while writing these tests (fixed; kept as regression tests)
# =============================================================================================

def analytic_interval_with_cluster_is_refused_or_flagged_test():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 300).astype(float)
    y = np.where(rng.random(300) < 0.8, x, 1 - x)
    cl = np.repeat(np.arange(10), 30)
    refused = flagged = False
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            metaeval.cohen_kappa(x, y, cluster=cl, ci_method="analytic")
        flagged = any(issubclass(w.category, metaeval.MetaevalWarning) for w in rec)
    except ValueError:
        refused = True
    assert refused or flagged


def bca_on_degenerate_distribution_is_finite_or_flagged_test():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est = metaeval.pabak(np.ones(50), np.ones(50), n_resamples=100, rng=0)
    flagged = any(issubclass(w.category, metaeval.MetaevalWarning) for w in rec)
    assert est.estimate == 1.0
    assert (est.ci.low, est.ci.high) == (1.0, 1.0) or flagged
