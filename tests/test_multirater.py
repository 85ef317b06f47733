"""Agreement among many raters: Fleiss, Conger, Gwet AC1/AC2, Brennan-Prediger, percent agreement
and Krippendorff's alpha, against independent implementations and published values.

Sources of the expected numbers (each test says which one it uses):

* statsmodels (``statsmodels.stats.inter_rater.fleiss_kappa``);
* irrCAC 0.4.4: ``tests/reference/irrcac_values.json``;
* the ``krippendorff`` package;
* published examples: Fleiss (1971) diagnoses, kappa 0.430; Krippendorff (2011) reliability data,
  alpha 0.743 / 0.815 / 0.849 / 0.797.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats import inter_rater

import metaeval

REF = Path(__file__).resolve().parent / "reference"
SPEC = json.loads((REF / "tables.json").read_text())
TABLES = {t["name"]: np.asarray(t["counts"], dtype=np.int64) for t in SPEC["tables"]}
IRR_ALL = json.loads((REF / "irrcac_values.json").read_text())
IRR = {t["name"]: t for t in IRR_ALL["tables"]}

NAMES = list(TABLES)
TOL = 1e-9          # reference files carry 15 significant digits (tests/reference/README.md §11)
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


def _irr(name, api, kind, coef):
    leaf = IRR[name][api][kind][coef]
    if leaf.get("undefined_pe_equals_1"):
        return None      # README caveat 7: 0/0, a float artefact when reported at all
    return leaf["coefficient"]


# =============================================================================================
# Fleiss' kappa: statsmodels and Fleiss (1971)
# =============================================================================================

def fleiss_ratings_vs_statsmodels_test():
    fr = np.asarray(SPEC["fleiss_ratings"]["ratings"])
    agg, _ = inter_rater.aggregate_raters(fr, n_cat=4)
    # expected: statsmodels fleiss_kappa(aggregate_raters(...)) and irrCAC raw-API Fleiss
    expected = inter_rater.fleiss_kappa(agg)
    irr = IRR_ALL["fleiss_ratings"]["raw_api"]["identity"]["fleiss_kappa"]["coefficient"]
    got = metaeval.fleiss_kappa(fr, **FAST).estimate
    assert close(got, expected) and close(got, irr)
    # the value_counts= form gives the same
    assert close(metaeval.fleiss_kappa(value_counts=agg, **FAST).estimate, expected)


# Fleiss (1971), Table 1: 30 patients x 6 psychiatrists, diagnoses 1..5 (depression, personality
# disorder, schizophrenia, neurosis, other); the same array is `diagnoses` in statsmodels'
# statsmodels/stats/tests/test_inter_rater.py (and R irr::diagnoses). Published kappa = 0.430.
FLEISS_1971 = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]])


def fleiss_1971_diagnoses_test():
    est = metaeval.fleiss_kappa(FLEISS_1971, n_resamples=500, rng=0)
    # published: Fleiss (1971) kappa = 0.430 (3 decimals)
    assert round(est.estimate, 3) == 0.430
    # statsmodels on the same data, exact
    agg, _ = inter_rater.aggregate_raters(FLEISS_1971)
    assert close(est.estimate, inter_rater.fleiss_kappa(agg))
    assert est.n == 30 and est.unit == "items"
    assert est.ci.low < est.estimate < est.ci.high


@pytest.mark.parametrize("name", TWO_BY_TWO + ["k3_fleiss_cohen_everitt", "k4_trec_relevance"])
def fleiss_equals_scott_for_two_raters_test(name):
    t = TABLES[name]
    x, y = expand(t)
    ratings = np.column_stack([x, y])
    got = metaeval.fleiss_kappa(ratings, **FAST).estimate
    # expected: Fleiss' kappa for 2 raters == Scott's pi; irrCAC raw-API fleiss() for this table
    irr = IRR[name]["raw_api"]["identity"]["fleiss_kappa"]["coefficient"]
    assert close(got, irr)
    assert close(got, metaeval.scott_pi(table=t, **FAST).estimate)
    agg, _ = inter_rater.aggregate_raters(ratings, n_cat=t.shape[0])
    assert close(got, inter_rater.fleiss_kappa(agg))


# =============================================================================================
# irrCAC 0.4.4
# =============================================================================================

@pytest.mark.parametrize("name", NAMES)
def irrcac_krippendorff_alpha_test(name):
    t = TABLES[name]
    x, y = expand(t)
    data = np.column_stack([x, y]).astype(float)      # items x raters
    # expected: irrcac_values.json table_api krippendorff(): identity == nominal alpha,
    # quadratic == interval alpha (README caveat 6)
    nominal = quiet(metaeval.krippendorff_alpha, data, level="nominal", **FAST).estimate
    interval = quiet(metaeval.krippendorff_alpha, data, level="interval", **FAST).estimate
    assert close(nominal, _irr(name, "table_api", "identity", "krippendorff_alpha"))
    assert close(interval, _irr(name, "table_api", "quadratic", "krippendorff_alpha"))
    assert close(nominal, _irr(name, "raw_api", "identity", "krippendorff_alpha"))
    if t.shape[0] == 2:
        # the report's alpha row is nominal for binary tables
        rep = quiet(metaeval.agreement_report, table=t, **FAST)
        assert close(rep["krippendorff_alpha_nominal"].estimate, nominal)


def irrcac_multirater_test():
    mm = SPEC["multirater_missing"]
    # tables.json stores raters x items (the krippendorff package's layout): transpose to items x raters
    data = np.array([[np.nan if v is None else v for v in row] for row in mm["ratings"]], dtype=float).T
    raw = IRR_ALL["multirater_missing"]["raw_api"]
    # expected: irrcac_values.json multirater_missing raw API krippendorff(): identity = nominal,
    # quadratic = interval
    assert close(metaeval.krippendorff_alpha(data, level="nominal", **FAST).estimate,
                 raw["identity"]["krippendorff_alpha"]["coefficient"])
    assert close(metaeval.krippendorff_alpha(data, level="interval", **FAST).estimate,
                 raw["quadratic"]["krippendorff_alpha"]["coefficient"])
    fr = np.asarray(SPEC["fleiss_ratings"]["ratings"], dtype=float)
    # expected: irrcac_values.json fleiss_ratings raw API krippendorff() (subjects x raters, as ours)
    assert close(metaeval.krippendorff_alpha(fr, level="nominal", **FAST).estimate,
                 IRR_ALL["fleiss_ratings"]["raw_api"]["identity"]["krippendorff_alpha"]["coefficient"])


# =============================================================================================
# krippendorff package and Krippendorff (2011)
# =============================================================================================

LEVELS = ["nominal", "ordinal", "interval", "ratio"]
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers x 12 units example
KRIPPENDORFF_2011 = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize("level", LEVELS)
def krippendorff_2011_example_test(level):
    mm = SPEC["multirater_missing"]
    data = np.array([[np.nan if v is None else v for v in row] for row in mm["ratings"]], dtype=float)
    # data is raters x items (the package's reliability_data); metaeval takes items x raters
    est = metaeval.krippendorff_alpha(data.T, level=level, n_resamples=300, rng=0)
    # expected: the krippendorff package (same data, same value domain)
    expected = krippendorff.alpha(reliability_data=data, value_domain=mm["categories"], level_of_measurement=level)
    assert close(est.estimate, expected)
    # published: Krippendorff (2011), 3 decimals
    assert round(est.estimate, 3) == KRIPPENDORFF_2011[level]
    # item 12 has one value only: 11 pairable units
    assert est.n == 11 and est.n_units == 11
    # the long-frame input gives the same
    long = pd.DataFrame([(r, i, data[r, i]) for r in range(data.shape[0]) for i in range(data.shape[1])
                         if not np.isnan(data[r, i])], columns=["rater", "item", "value"])
    est_long = metaeval.krippendorff_alpha(long, level=level, item="item", rater="rater", value="value", **FAST)
    assert close(est_long.estimate, expected)


@st.composite
def reliability_data(draw):
    n_raters = draw(st.integers(2, 5))
    n_items = draw(st.integers(3, 40))
    n_values = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    missing = draw(st.floats(0.0, 0.4))
    rng = np.random.default_rng(seed)
    data = rng.integers(1, n_values + 1, size=(n_raters, n_items)).astype(float)  # values >= 1 for ratio
    data[rng.random(data.shape) < missing] = np.nan
    return data


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=reliability_data())
def krippendorff_random_data_test(data):
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    vals = np.unique(data[:, pairable][~np.isnan(data[:, pairable])])
    assume(pairable.any() and len(vals) >= 2)
    for level in LEVELS:
        # expected: the krippendorff package on the same raters x items array (NaN = missing)
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        got = quiet(metaeval.krippendorff_alpha, data.T, level=level, ci_method="percentile", n_resamples=5, rng=0)
        assert close(got.estimate, expected), (level, got.estimate, expected)


def krippendorff_seeded_random_nan_test():
    """Larger seeded arrays with many NaNs (a complement to the hypothesis test)."""
    rng = np.random.default_rng(20240611)
    for _ in range(5):
        data = rng.integers(1, 5, size=(6, 300)).astype(float)
        data[rng.random(data.shape) < 0.5] = np.nan
        for level in LEVELS:
            # expected: the krippendorff package
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            got = quiet(metaeval.krippendorff_alpha, data.T, level=level, ci_method="percentile", n_resamples=5,
                        rng=0)
            assert close(got.estimate, expected)


@pytest.mark.parametrize("name", DEFINED)
def krippendorff_ordinal_on_tables_test(name):
    """Two-rater ordinal alpha: krippendorff_alpha, agreement_report's row and the package agree."""
    t = TABLES[name]
    x, y = expand(t)
    data = np.vstack([x, y]).astype(float)
    # expected: krippendorff package, ordinal, value domain 0..K-1 (raters x items there, items x raters here)
    expected = krippendorff.alpha(reliability_data=data, value_domain=list(range(t.shape[0])),
                                  level_of_measurement="ordinal")
    assert close(metaeval.krippendorff_alpha(data.T, level="ordinal", **FAST).estimate, expected)
    if t.shape[0] > 2:
        rep = quiet(metaeval.agreement_report, table=t, **FAST)
        assert close(rep["krippendorff_alpha_ordinal"].estimate, expected)


def krippendorff_levels_must_contain_the_data_test():
    with pytest.raises(metaeval.InputError):
        metaeval.krippendorff_alpha(np.array([[0, 1, 2, 1.5, 2], [0, 1, 2, 2, 1]]).T, levels=[0, 1, 2], **FAST)
    with pytest.raises(metaeval.InputError):
        metaeval.krippendorff_alpha(np.array([[0, 1, 2, 5, 2], [0, 1, 2, 2, 1]]).T, levels=[0, 1, 2], **FAST)


# =============================================================================================
# irrCAC (R) 1.0, generated: tests/reference/irrcac_raw_values.json (make_reference_irrcac_raw.R)
# coefficients, standard errors, intervals, p-values, p_a and p_e to 1e-9
# =============================================================================================

RAWREF = json.loads((REF / "irrcac_raw_values.json").read_text())
PUB = json.loads((REF / "irrcac_published.json").read_text())
#: irrCAC's function (key in the JSON) -> the statistic to ask rater_agreement for
R_COEF = {"percent_agreement": "observed_agreement", "gwet_ac": "gwet_ac", "fleiss_kappa": "fleiss_kappa",
          "krippendorff_alpha": "krippendorff_alpha", "conger_kappa": "conger_kappa",
          "brennan_prediger": "bennett_s"}
R_WEIGHTS = ["unweighted", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
RAW_SETS = list(RAWREF["raw"])
DIST_SETS = list(RAWREF["dist"])


def raw_matrix(name):
    """The subjects x raters matrix irrCAC analysed (None -> missing)."""
    ds = RAWREF["raw"][name]
    rows = [[r.get(k) for k in ds["raters"]] for r in ds["ratings"]]
    if all(isinstance(v, (int, float)) or v is None for row in rows for v in row):
        return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    return np.array(rows, dtype=object)


def _r_weights(w):
    return None if w == "unweighted" else w


def pick(rs, prefix):
    """The one estimate whose statistic name starts with ``prefix`` (its weights suffix varies)."""
    (est,) = [e for e in rs if e.statistic.startswith(prefix)]
    return est


def check_against_r(est, leaf, what):
    """One estimate against one irrCAC leaf: coefficient, se, interval, p-value, p_a, p_e."""
    assert est.ci.method == "analytic", what
    assert close(est.estimate, leaf["coefficient"]), (what, est.estimate, leaf["coefficient"])
    assert close(est.se, leaf["se"]), (what, est.se, leaf["se"])
    assert close(est.ci.low, leaf["ci_lower"]), (what, est.ci.low, leaf["ci_lower"])
    # irrCAC reports min(1, upper); metaeval's analytic intervals are not capped
    assert close(min(1.0, est.ci.high), leaf["ci_upper"]), (what, est.ci.high, leaf["ci_upper"])
    assert close(est.pvalue, leaf["p_value"]), (what, est.pvalue, leaf["p_value"])
    assert close(est.extra["pa"], leaf["pa"]) and close(est.extra["pe"], leaf["pe"]), what


@pytest.mark.parametrize("weights", R_WEIGHTS)
@pytest.mark.parametrize("name", RAW_SETS)
def irrcac_r_raw_test(name, weights):
    data = raw_matrix(name)
    leaves = RAWREF["raw"][name]["weights"][weights]
    rs = quiet(metaeval.rater_agreement, data, weights=_r_weights(weights), ci_method="analytic")
    for r_name, ours in R_COEF.items():
        leaf = leaves[r_name]
        if leaf.get("coefficient") is None:
            # irrCAC gives NaN for ratio weights with a 0 category (0/0 on its diagonal: cac.raw5obser);
            # metaeval's ratio weights set w_00 = 1 (metaeval/agreement/weights.py)
            assert weights == "ratio" and 0 in RAWREF["raw"][name]["categories"], (name, weights, r_name)
            continue
        # expected: irrCAC 1.0 (R) <r_name>.raw(<name>, weights=<weights>), unrounded
        est = pick(rs, ours)
        check_against_r(est, leaf, (name, weights, r_name))


def irrcac_r_custom_weights_test():
    m = RAWREF["raw"]["cac.raw4raters"]["custom_weights"]
    w = np.array(m["matrix"])          # not symmetric: the Python port's custom-weights tests
    rs = metaeval.rater_agreement(raw_matrix("cac.raw4raters"), weights=w, ci_method="analytic")
    for r_name, ours in R_COEF.items():
        # expected: irrCAC 1.0 (R) <r_name>.raw(cac.raw4raters, weights = custom5)
        est = pick(rs, ours)
        check_against_r(est, m["results"][r_name], r_name)
        assert est.statistic.endswith("weighted") and rs.keys[0]["weights"] == "custom"


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def irrcac_r_population_size_and_level_test(weights):
    leaves = RAWREF["raw"]["cac.raw4raters"]["conflev_0.90_N_50"][weights]
    rs = metaeval.rater_agreement(raw_matrix("cac.raw4raters"), weights=_r_weights(weights), ci_method="analytic",
                                  confidence_level=0.90, population_size=50)
    for r_name, ours in R_COEF.items():
        # expected: irrCAC 1.0 (R) <r_name>.raw(cac.raw4raters, weights, conflev = 0.90, N = 50)
        est = pick(rs, ours)
        check_against_r(est, leaves[r_name], r_name)
        assert est.ci.level == 0.90 and close(est.extra["fpc"], 1 - 12 / 50, 1e-15)


def value_counts_of(data, categories):
    """Items x categories counts of an items x raters matrix (computed here, independently)."""
    out = np.zeros((data.shape[0], len(categories)))
    for i, row in enumerate(data):
        for v in row:
            if v is None or (isinstance(v, float) and np.isnan(v)):
                continue
            out[i, list(categories).index(v)] += 1
    return out


@pytest.mark.parametrize("weights", ["unweighted", "quadratic", "ordinal"])
@pytest.mark.parametrize("name", RAW_SETS)
def value_counts_equal_raw_test(name, weights):
    """Everything but Conger's kappa is a function of the counts: value_counts= gives irrCAC's raw values."""
    cats = RAWREF["raw"][name]["categories"]
    counts = value_counts_of(raw_matrix(name), cats)
    rs = metaeval.rater_agreement(value_counts=counts, levels=cats, weights=_r_weights(weights),
                                  ci_method="analytic")
    assert not any(e.statistic.startswith("conger") for e in rs)
    for r_name, ours in R_COEF.items():
        if r_name == "conger_kappa":
            continue
        leaf = RAWREF["raw"][name]["weights"][weights][r_name]
        # expected: irrCAC 1.0 (R) <r_name>.raw(<name>, weights) (the same data as ratings)
        check_against_r(pick(rs, ours), leaf, (name, r_name))


@pytest.mark.parametrize("weights", ["unweighted", "quadratic", "linear"])
@pytest.mark.parametrize("name", DIST_SETS)
def irrcac_r_dist_test(name, weights):
    ds = RAWREF["dist"][name]
    counts = np.array(ds["counts"], dtype=float)
    # irrCAC's *.dist functions build the weights on the positions 1..q: value_counts= without levels
    rs = metaeval.rater_agreement(value_counts=counts, weights=_r_weights(weights), ci_method="analytic")
    for r_name in ("gwet_ac", "fleiss_kappa", "brennan_prediger"):
        leaf = ds["weights"][weights][r_name]
        est = pick(rs, R_COEF[r_name])
        # expected: irrCAC 1.0 (R) <r_name>.dist(<name>, weights = <w>.weights(1:q)); its p-value is
        # 2(1 - pt(coef/se)) without abs(), the same for these positive coefficients
        check_against_r(est, leaf, (name, r_name))
    alpha = pick(rs, "krippendorff")
    leaf = ds["weights"][weights]["krippendorff_alpha"]
    # expected: krippen.alpha.dist's coefficient, p_a and p_e; its standard error comes from another
    # linearisation than krippen.alpha.raw's, and metaeval follows the raw one: krippen.alpha.raw on
    # the same counts (listed as ratings) gives the standard error, interval and p-value
    assert close(alpha.estimate, leaf["coefficient"]) and close(alpha.extra["pa"], leaf["pa"])
    assert close(alpha.extra["pe"], leaf["pe"])
    check_against_r(alpha, ds["krippendorff_alpha_raw_on_expanded"][weights], (name, "alpha raw"))


# =============================================================================================
# irrCAC, published: the R package's vignettes, the Python port's tests
# =============================================================================================

def printed(got, text) -> bool:
    """``got`` rounds to the printed ``text`` (half a unit of its last digit)."""
    from decimal import Decimal

    exp = Decimal(text).as_tuple().exponent
    return abs(float(got) - float(text)) <= 0.5 * 10.0**exp + 1e-12


#: irrCAC 1.0 vignette "overview" (inst/doc/overview.html), cac.raw4raters, unweighted, and vignette
#: "weighting" (inst/doc/weighting.html), weights = "quadratic": coeff.val, coeff.se, conf.int, p.value, pe
VIGNETTE_RAW4RATERS = {
    "unweighted": {
        "observed_agreement": ("0.8181818", "0.12561", "0.542", "1", "4.345373e-05", "0"),
        "gwet_ac1": ("0.77544", "0.14295", "0.461", "1", "0.000208721", "0.1903212"),
        "fleiss_kappa": ("0.76117", "0.15302", "0.424", "1", "0.000419173", "0.2387153"),
        "krippendorff_alpha_nominal": ("0.74342", "0.14557", "0.419", "1", "0.0004594257", "0.24"),
        "conger_kappa": ("0.76282", "0.14917", "0.435", "1", "0.0003367066", "0.2334252"),
        "bennett_s": ("0.77273", "0.14472", "0.454", "1", "0.0002375609", "0.2"),
    },
    "quadratic": {
        "observed_agreement_quadratic": ("0.9753788", "0.09062", "0.776", "1", "3.526377e-07", "0"),
        "gwet_ac2": ("0.914", "0.10396", "0.685", "1", "2.634438e-06", "0.7137044"),
        "fleiss_kappa_quadratic": ("0.86494", "0.14603", "0.544", "1", "9.976081e-05", "0.8177083"),
        "krippendorff_alpha_interval": ("0.84911", "0.12913", "0.561", "1", "6.267448e-05", "0.825"),
        "conger_kappa_quadratic": ("0.85771", "0.14367", "0.541", "1", "9.319979e-05", "0.8269638"),
        "bennett_s_quadratic": ("0.90152", "0.11089", "0.657", "1", "5.60548e-06", "0.75"),
    },
}

#: irrCAC 1.0 vignettes, distrib.6raters with the *.dist functions (overview: unweighted; weighting:
#: quadratic.weights(1:q)): coeff, stderr, conf.int, p.value, pa, pe. krippen.alpha.dist's stderr is
#: another linearisation's (irrcac_r_dist_test), so it is not compared.
VIGNETTE_DIST6 = {
    "unweighted": {
        "gwet_ac1": ("0.4448007", "0.08418757", "0.264", "0.625", "0.0001155927", "0.5511111", "0.1914815"),
        "fleiss_kappa": ("0.4139265", "0.08119291", "0.24", "0.588", "0.0001622724", "0.5511111", "0.2340741"),
        "krippendorff_alpha_nominal": ("0.4204384", None, None, None, None, "0.5560988", "0.2340741"),
        "bennett_s": ("0.4388889", "0.08312142", "0.261", "0.617", "0.0001163", "0.5511111", "0.2"),
    },
    "quadratic": {
        "gwet_ac2": ("0.4837438", "0.1058227", "0.257", "0.711", "0.0004356618", "0.8544444", "0.7180556"),
        "fleiss_kappa_quadratic": ("0.2511909", "0.1457381", "-0.061", "0.564", "0.1067865", "0.8544444",
                                   "0.8056173"),
        "krippendorff_alpha_interval": ("0.259511", None, None, None, None, "0.8560617", "0.8056173"),
        "bennett_s_quadratic": ("0.4177778", "0.1067493", "0.189", "0.647", "0.001559352", "0.8544444", "0.75"),
    },
}


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def irrcac_vignette_raw4raters_test(weights):
    rs = metaeval.rater_agreement(raw_matrix("cac.raw4raters"), weights=_r_weights(weights), ci_method="analytic")
    for name, (coef, se, low, high, p, pe) in VIGNETTE_RAW4RATERS[weights].items():
        e = rs.get(statistic=name)
        # published: irrCAC 1.0 vignettes overview.html / weighting.html, printed digits
        assert printed(e.estimate, coef) and printed(e.se, se), name
        assert printed(e.ci.low, low) and printed(min(1.0, e.ci.high), high), name
        assert printed(e.pvalue, p) and printed(e.extra["pe"], pe), name


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def irrcac_vignette_distrib_6raters_test(weights):
    counts = np.array(RAWREF["dist"]["distrib.6raters"]["counts"], dtype=float)
    rs = metaeval.rater_agreement(value_counts=counts, weights=_r_weights(weights), ci_method="analytic")
    for name, (coef, se, low, high, p, pa, pe) in VIGNETTE_DIST6[weights].items():
        e = rs.get(statistic=name)
        # published: irrCAC 1.0 vignettes, gwet.ac1.dist / fleiss.kappa.dist / krippen.alpha.dist /
        # bp.coeff.dist(distrib.6raters), printed digits
        assert printed(e.estimate, coef) and printed(e.extra["pa"], pa) and printed(e.extra["pe"], pe), name
        if se is not None:
            assert printed(e.se, se) and printed(e.ci.low, low) and printed(e.ci.high, high), name
            assert printed(e.pvalue, p), name


PORT_METHOD = {"bp": "bennett_s", "conger": "conger_kappa", "fleiss": "fleiss_kappa", "gwet": "gwet_ac",
               "krippendorff": "krippendorff_alpha"}


@pytest.mark.parametrize("entry", PUB["entries"], ids=[e["source"].split("::")[-1] for e in PUB["entries"]])
def irrcac_python_port_published_test(entry):
    """The Python port's own assertions (irrCAC 0.4.4, test/unit/irrCAC/raw/test_*.py), 3 decimals."""
    w = entry["weights"]
    weights = None if w == "unweighted" else (np.array(w) if isinstance(w, list) else w)
    (e,) = metaeval.rater_agreement(raw_matrix(entry["r_dataset"]), statistics=[PORT_METHOD[entry["method"]]],
                                    weights=weights, ci_method="analytic")
    got = {"pa": e.extra["pa"], "pe": e.extra["pe"], "coefficient_value": e.estimate, "se": e.se,
           "ci_lower": e.ci.low, "ci_upper": min(1.0, e.ci.high), "p_value": e.pvalue}
    for key, exp in entry["expected"].items():
        value, digits = exp["value"], exp["round_digits"]
        if key == "p_value" and entry["method"] == "bp":
            # the port's bp() reports the one-sided p-value 1 - pt(.), half of irrCAC R's two-sided one
            # (irrcac_r_raw_test checks ours against R): compare half of ours
            assert round(got[key] / 2, digits) == value, (key, got[key], value)
        elif digits is not None:
            # published: <entry["source"]>, compared after round(p, digits) as the port does
            assert round(got[key], digits) == value, (key, got[key], value)
        else:
            # published: <entry["source"]>, printed to 3 decimals (CAC(..., digits=3))
            assert abs(got[key] - value) <= 5e-4 + 1e-12, (key, got[key], value)


# =============================================================================================
# statsmodels, scikit-learn, the krippendorff package
# =============================================================================================

def brennan_prediger_vs_statsmodels_randolph_test():
    fr = np.asarray(SPEC["fleiss_ratings"]["ratings"])
    agg, _ = inter_rater.aggregate_raters(fr, n_cat=4)
    # expected: statsmodels fleiss_kappa(method="randolph") is the free-marginal (Brennan-Prediger)
    # kappa; unused categories count, so levels= gives all four
    rs = metaeval.rater_agreement(fr, levels=[0, 1, 2, 3], statistics=["bennett_s"], ci_method=None)
    assert close(rs[0].estimate, inter_rater.fleiss_kappa(agg, method="randolph"))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("name", DEFINED)
def conger_equals_cohen_for_two_raters_test(name, weights):
    t = TABLES[name]
    k = t.shape[0]
    x, y = expand(t)
    est = quiet(metaeval.conger_kappa, np.column_stack([x, y]), weights=weights, levels=list(range(k)),
                ci_method=None)
    # expected: scikit-learn cohen_kappa_score (its linear/quadratic disagreement weights |i-j|, (i-j)^2
    # give the same kappa as the agreement weights 1 - |i-j|/(K-1), 1 - (i-j)^2/(K-1)^2)
    from sklearn.metrics import cohen_kappa_score

    expected = cohen_kappa_score(x, y, labels=list(range(k)), weights=weights)
    assert close(est.estimate, expected)
    assert close(est.estimate, quiet(metaeval.cohen_kappa, table=t, weights=weights, ci_method="analytic").estimate)


def _circular(v1, v2, **_):
    # Krippendorff (2011): circular metric, U = the number of values in the circle (range + 1 here)
    return np.sin(np.pi * (v1 - v2) / 5.0) ** 2


def _bipolar(v1, v2, **_):
    # Krippendorff (2011): bipolar metric on the values 1..5
    with np.errstate(invalid="ignore", divide="ignore"):
        d = (v1 - v2) ** 2 / ((v1 + v2 - 2 * 1) * (2 * 5 - v1 - v2))
    return np.nan_to_num(d)


@pytest.mark.parametrize("level", ["circular", "bipolar"])
def krippendorff_circular_bipolar_vs_package_test(level):
    mm = SPEC["multirater_missing"]
    data = np.array([[np.nan if v is None else v for v in row] for row in mm["ratings"]], dtype=float)
    # expected: the krippendorff package with Krippendorff's (2011) circular / bipolar metric as a callable
    metric = _circular if level == "circular" else _bipolar
    expected = krippendorff.alpha(reliability_data=data, value_domain=[1, 2, 3, 4, 5], level_of_measurement=metric)
    got = metaeval.krippendorff_alpha(data.T, level=level, levels=[1, 2, 3, 4, 5], ci_method=None)
    assert close(got.estimate, expected) and got.statistic == f"krippendorff_alpha_{level}"


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def krippendorff_value_counts_vs_package_test(level):
    rng = np.random.default_rng(7)
    counts = rng.integers(0, 4, size=(40, 5))
    # expected: the krippendorff package's value_counts= form (units x values), value domain 1..5
    expected = krippendorff.alpha(value_counts=counts, value_domain=[1, 2, 3, 4, 5], level_of_measurement=level)
    got = quiet(metaeval.krippendorff_alpha, value_counts=counts, levels=[1, 2, 3, 4, 5], level=level,
                ci_method=None)
    assert close(got.estimate, expected)


def coincidence_matrix(data_items_by_raters, values):
    """Krippendorff's coincidence matrix, by its definition (a loop over units and pairs)."""
    v = list(values)
    o = np.zeros((len(v), len(v)))
    for row in data_items_by_raters:
        vals = [x for x in row if not np.isnan(x)]
        m = len(vals)
        if m < 2:
            continue
        for a in range(m):
            for b in range(m):
                if a != b:
                    o[v.index(vals[a]), v.index(vals[b])] += 1 / (m - 1)
    return o


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def krippendorff_coincidence_input_test(level):
    mm = SPEC["multirater_missing"]
    data = np.array([[np.nan if v is None else v for v in row] for row in mm["ratings"]], dtype=float).T
    o = coincidence_matrix(data, [1, 2, 3, 4, 5])
    got = metaeval.krippendorff_alpha(coincidence=o, levels=[1, 2, 3, 4, 5], level=level, ci_method=None)
    # expected: Krippendorff (2011), 3 decimals, and the ratings form
    assert round(got.estimate, 3) == KRIPPENDORFF_2011[level]
    assert close(got.estimate, metaeval.krippendorff_alpha(data, level=level, ci_method=None).estimate)
    with pytest.raises(metaeval.InputError, match="ci_method=None"):
        metaeval.krippendorff_alpha(coincidence=o, level=level)


# =============================================================================================
# identities and properties
# =============================================================================================

def krippendorff_weights_equal_levels_test():
    """Alpha with irrCAC's weights w is alpha with the distance 1 - w: quadratic = interval, ratio = ratio."""
    data = raw_matrix("fleiss1971")
    for weights, level in (("quadratic", "interval"), ("ratio", "ratio"), (None, "nominal")):
        a = metaeval.krippendorff_alpha(data, weights=weights, ci_method=None)
        b = metaeval.krippendorff_alpha(data, level=level, ci_method=None)
        assert close(a.estimate, b.estimate, 1e-12) and a.statistic == b.statistic == f"krippendorff_alpha_{level}"
    lin = metaeval.krippendorff_alpha(data, weights="linear", ci_method=None)
    assert lin.statistic == "krippendorff_alpha_linear_weights"
    # expected: irrCAC 1.0 krippen.alpha.raw(fleiss1971, weights = "linear")
    assert close(lin.estimate, RAWREF["raw"]["fleiss1971"]["weights"]["linear"]["krippendorff_alpha"]["coefficient"])


def analytic_alpha_by_level_test():
    """krippendorff_alpha(level=...) gets irrCAC's variance with the level's weights; ordinal has none."""
    data = raw_matrix("cac.raw4raters")
    for level, scheme in (("nominal", "unweighted"), ("interval", "quadratic"), ("ratio", "ratio")):
        est = metaeval.krippendorff_alpha(data, level=level, ci_method="analytic")
        # expected: irrCAC 1.0 (R) krippen.alpha.raw(cac.raw4raters, weights = <scheme>)
        check_against_r(est, RAWREF["raw"]["cac.raw4raters"]["weights"][scheme]["krippendorff_alpha"], level)
    with pytest.raises(metaeval.InputError, match="ordinal"):
        metaeval.krippendorff_alpha(data, level="ordinal", ci_method="analytic")


def rater_agreement_matches_named_functions_test():
    data = raw_matrix("fleiss1971")
    for weights in (None, "quadratic"):
        rs = metaeval.rater_agreement(data, weights=weights, ci_method=None)
        assert [k["weights"] for k in rs.keys] == [weights or "identity"] * 6
        suffix = "" if weights is None else "_quadratic"
        assert close(rs.get(statistic="fleiss_kappa" + suffix).estimate,
                     metaeval.fleiss_kappa(data, weights=weights, ci_method=None).estimate, 1e-14)
        assert close(rs.get(statistic="conger_kappa" + suffix).estimate,
                     metaeval.conger_kappa(data, weights=weights, ci_method=None).estimate, 1e-14)
        alpha_name = "krippendorff_alpha_nominal" if weights is None else "krippendorff_alpha_interval"
        assert close(rs.get(statistic=alpha_name).estimate,
                     metaeval.krippendorff_alpha(data, weights=weights, ci_method=None).estimate, 1e-14)
    # statsmodels on the same data: Fleiss (1971) kappa
    agg, _ = inter_rater.aggregate_raters(FLEISS_1971)
    assert close(metaeval.rater_agreement(FLEISS_1971, statistics="fleiss_kappa", ci_method=None)[0].estimate,
                 inter_rater.fleiss_kappa(agg))


def input_forms_agree_test():
    data = raw_matrix("cac.raw4raters")
    ref = metaeval.rater_agreement(data, ci_method=None)
    wide = pd.DataFrame(data, index=[f"u{i}" for i in range(12)], columns=list("ABCD"))
    long = wide.stack().rename("label").reset_index().rename(columns={"level_0": "unit", "level_1": "coder"})
    long = long.dropna()
    assert len(long) == 41                                        # one row per rating given
    forms = {
        "DataFrame": metaeval.rater_agreement(wide, ci_method=None),
        "long": metaeval.rater_agreement(long.sample(frac=1, random_state=0), item="unit", rater="coder",
                                         value="label", ci_method=None),
        "lists": metaeval.rater_agreement(data.tolist(), ci_method=None),
    }
    for form, rs in forms.items():
        assert [e.statistic for e in rs] == [e.statistic for e in ref], form
        for a, b in zip(rs, ref):
            assert close(a.estimate, b.estimate, 1e-14), (form, a.statistic)
    counts = value_counts_of(data, [1, 2, 3, 4, 5])
    vc = metaeval.rater_agreement(value_counts=counts, levels=[1, 2, 3, 4, 5], ci_method=None)
    for e in vc:
        assert close(e.estimate, ref.get(statistic=e.statistic).estimate, 1e-14)


def paired_input_test():
    x = np.array([0, 1, 2, 3, 1, 2, 0, 3, 2, 1] * 3)
    y = np.array([0, 1, 2, 2, 1, 3, 0, 3, 1, 1] * 3)
    human = pd.DataFrame({"query_id": np.repeat(["q1", "q2", "q3"], 10), "doc_id": [f"d{i}" for i in range(30)],
                          "relevance": x})
    judge = human.assign(relevance=y)
    paired = metaeval.align(human, judge, scale=metaeval.Scale((0, 1, 2, 3)))
    a = metaeval.conger_kappa(paired, ci_method=None)
    # expected: Conger's kappa of two raters is Cohen's kappa (scikit-learn)
    from sklearn.metrics import cohen_kappa_score

    assert close(a.estimate, cohen_kappa_score(x, y))
    with pytest.warns(metaeval.SmallSampleWarning):           # the engine: 3 clusters are too few
        k = metaeval.krippendorff_alpha(paired, level="ordinal", cluster="query_id", ci_method="percentile",
                                        n_resamples=50, rng=0)
    assert k.unit == "clusters" and k.n_units == 3 and k.n == 30
    fk = metaeval.fleiss_kappa(paired, ci_method=None)
    assert close(fk.estimate, metaeval.scott_pi(x, y, ci_method=None).estimate)


def long_frame_duplicates_are_refused_test():
    long = pd.DataFrame({"item": [1, 1, 1, 2, 2], "rater": ["a", "a", "b", "a", "b"], "value": [1, 2, 1, 2, 2]})
    with pytest.raises(metaeval.InputError, match="same item twice"):
        metaeval.fleiss_kappa(long, item="item", rater="rater", value="value", ci_method=None)
    with pytest.raises(metaeval.InputError, match="all three"):
        metaeval.fleiss_kappa(long, item="item", rater="rater", ci_method=None)


def raters_by_items_orientation_warns_test():
    mm = SPEC["multirater_missing"]
    data = np.array([[np.nan if v is None else v for v in row] for row in mm["ratings"]], dtype=float)
    with pytest.warns(metaeval.MetaevalWarning, match="reliability_data is raters × items"):
        metaeval.krippendorff_alpha(data, ci_method=None)          # 4 raters x 12 items: the old orientation


def unrated_items_and_idle_raters_are_left_out_test():
    data = raw_matrix("cac.raw4raters")
    padded = np.vstack([data, np.full((2, 4), np.nan)])
    padded = np.column_stack([padded, np.full(14, np.nan)])
    with pytest.warns(metaeval.MetaevalWarning) as rec:
        rs = metaeval.rater_agreement(padded, ci_method=None)
    msgs = " ".join(str(w.message) for w in rec)
    assert "2 item(s) have no rating" in msgs and "1 rater(s) rated no item" in msgs
    ref = metaeval.rater_agreement(data, ci_method=None)
    for a, b in zip(rs, ref):
        assert close(a.estimate, b.estimate, 1e-14)


def point_estimate_mode_test():
    est = metaeval.fleiss_kappa(FLEISS_1971, ci_method=None)
    assert est.ci.method == "none" and np.isnan(est.ci.low) and np.isnan(est.ci.high)
    assert est.n_resamples == 0 and est.replicates is None and est.n == 30
    # published: Fleiss (1971) kappa = 0.430
    assert round(est.estimate, 3) == 0.430


def bootstrap_shares_replicates_and_matches_analytic_test():
    rs = metaeval.rater_agreement(FLEISS_1971, ci_method="percentile", n_resamples=4000, rng=3)
    an = metaeval.rater_agreement(FLEISS_1971, ci_method="analytic")
    for b, a in zip(rs, an):
        assert b.statistic == a.statistic and close(b.estimate, a.estimate, 1e-12)
        assert b.n_resamples == 4000 and b.seed == 3 and b.unit == "items" and b.n_units == 30
        # a consistency check, not a reference: with 30 subjects the bootstrap SD and Gwet's linearised
        # SE (n(n-1) divisor) agree within 15% on these data
        assert abs(b.se / a.se - 1) < 0.15, (b.statistic, b.se, a.se)
    # one set of replicates for all coefficients: the same draws give the same bootstrap as alone
    single = metaeval.rater_agreement(FLEISS_1971, statistics=["fleiss_kappa", "conger_kappa"],
                                      ci_method="percentile", n_resamples=4000, rng=3)
    assert np.corrcoef(single[0].replicates, single[1].replicates)[0, 1] > 0.9


def cluster_bootstrap_test():
    data = raw_matrix("fleiss1971")
    cluster = np.repeat(np.arange(10), 3)
    est = metaeval.fleiss_kappa(data, cluster=cluster, ci_method="percentile", n_resamples=500, rng=1)
    assert est.unit == "clusters" and est.n_units == 10 and est.n == 30
    assert est.ci.low < est.estimate < est.ci.high
    long = pd.DataFrame([(i, g, data[i, g], f"t{i // 3}") for i in range(30) for g in range(6)],
                        columns=["item", "rater", "value", "topic"])
    est_long = metaeval.fleiss_kappa(long, item="item", rater="rater", value="value", cluster="topic",
                                     ci_method="percentile", n_resamples=500, rng=1)
    assert close(est_long.ci.low, est.ci.low, 1e-12) and close(est_long.ci.high, est.ci.high, 1e-12)
    with pytest.raises(metaeval.InputError, match="independent items"):
        metaeval.fleiss_kappa(data, cluster=cluster, ci_method="analytic")


def analytic_t_and_normal_quantiles_test():
    t = metaeval.conger_kappa(FLEISS_1971, ci_method="analytic")
    z = metaeval.conger_kappa(FLEISS_1971, ci_method="analytic", quantile="normal")
    from scipy import stats

    # the definition: est -/+ q se, q = t(n - 1) or normal quantile
    assert close(t.ci.high - t.estimate, stats.t.ppf(0.975, 29) * t.se, 1e-12)
    assert close(z.ci.high - z.estimate, stats.norm.ppf(0.975) * z.se, 1e-12)
    assert close(z.pvalue, 2 * stats.norm.sf(z.estimate / z.se), 1e-12)


def population_size_test():
    a = metaeval.fleiss_kappa(FLEISS_1971, ci_method="analytic")
    b = metaeval.fleiss_kappa(FLEISS_1971, ci_method="analytic", population_size=120)
    # the definition: variance x (1 - n/N)
    assert close(b.se, a.se * np.sqrt(1 - 30 / 120), 1e-14)
    with pytest.raises(metaeval.InputError, match="analytic"):
        metaeval.fleiss_kappa(FLEISS_1971, ci_method="percentile", population_size=120)
    with pytest.raises(metaeval.InputError, match="smaller than the sample"):
        metaeval.fleiss_kappa(FLEISS_1971, ci_method="analytic", population_size=10)


def statistic_names_and_errors_test():
    data = raw_matrix("cac.raw4raters")
    names = [e.statistic for e in metaeval.rater_agreement(data, weights="linear", ci_method=None)]
    assert names == ["observed_agreement_linear", "gwet_ac2_linear", "fleiss_kappa_linear", "conger_kappa_linear",
                     "bennett_s_linear", "krippendorff_alpha_linear_weights"]
    with pytest.raises(metaeval.InputError, match="unweighted"):
        metaeval.rater_agreement(data, statistics=["gwet_ac1"], weights="quadratic")
    with pytest.raises(metaeval.InputError, match="weighted AC"):
        metaeval.rater_agreement(data, statistics=["gwet_ac2"])
    with pytest.raises(metaeval.InputError, match="unknown many-rater statistic"):
        metaeval.rater_agreement(data, statistics=["cohen_kappa"])
    with pytest.raises(metaeval.InputError, match="which rater"):
        metaeval.rater_agreement(value_counts=value_counts_of(data, [1, 2, 3, 4, 5]), statistics=["conger_kappa"])
    with pytest.raises(metaeval.InputError, match="unknown weights"):
        metaeval.fleiss_kappa(data, weights="cubic")
    with pytest.raises(metaeval.InputError, match="either level= or weights="):
        metaeval.krippendorff_alpha(data, level="interval", weights="quadratic")
    with pytest.raises(metaeval.InputError, match="ci_method"):
        metaeval.fleiss_kappa(data, ci_method="jackknife")


def undefined_statistic_warns_test():
    data = np.ones((10, 3))
    with pytest.warns(metaeval.UndefinedStatisticWarning, match="fleiss_kappa is undefined"):
        est = metaeval.fleiss_kappa(data, ci_method=None)
    assert np.isnan(est.estimate)
    with pytest.warns(metaeval.UndefinedStatisticWarning, match="no variation"):
        metaeval.krippendorff_alpha(data, ci_method=None)
    # Gwet's AC1 and Brennan-Prediger stay defined with one category only when K > 1 (levels=)
    rs = metaeval.rater_agreement(data, levels=[0, 1], statistics=["gwet_ac1", "bennett_s"], ci_method=None)
    assert [round(e.estimate, 12) for e in rs] == [1.0, 1.0]


# =============================================================================================
# the registry: the "multirater" family
# =============================================================================================

def registry_multirater_family_test():
    from metaeval.agreement.multirater import prepare_ratings, sufficient_statistics
    from metaeval.core import registry

    assert registry.names("multirater") == ["multirater_observed_agreement", "multirater_gwet_ac", "fleiss_kappa",
                                            "conger_kappa", "multirater_bennett_s",
                                            "multirater_krippendorff_alpha"]
    data = raw_matrix("cac.raw4raters")
    d = prepare_ratings(data)
    S = sufficient_statistics(d).sum(axis=0, keepdims=True)
    for weights in ("identity", "quadratic"):
        rs = metaeval.rater_agreement(data, weights=weights, ci_method=None)
        for s, e in zip(registry.statistics("multirater"), rs):
            w = weights if s.weights == "agreement" else ("nominal" if weights == "identity" else "interval")
            f = registry.resolve(s.name, weights=w).kernel(d.n_categories, levels=d.values)
            # the registry's kernel on the summed sufficient statistics = the public function
            assert close(float(f(S)[0]), e.estimate, 1e-12), (s.name, weights)
            assert s.analytic_function() is not None and s.family == "multirater"


# =============================================================================================
# coverage of the analytic interval (the module docstring's table; here one small design)
# =============================================================================================

def _simulate_ratings(rng, n, n_raters, prevalence, accuracy, missing):
    k = len(prevalence)
    truth = rng.choice(k, size=n, p=prevalence)
    right = rng.random((n, n_raters)) < accuracy
    lab = np.where(right, truth[:, None], rng.integers(0, k, size=(n, n_raters))).astype(float)
    lab[rng.random(lab.shape) < missing] = np.nan
    return lab


@pytest.mark.slow
def analytic_coverage_test():
    """95% analytic intervals on 20 items of 5 raters (20% missing): t(n-1) covers about 0.93-0.95,
    and never less than the normal quantile (the reason for the default)."""
    rng = np.random.default_rng(11)
    design = dict(n_raters=5, prevalence=[0.4, 0.3, 0.2, 0.1], accuracy=0.6, missing=0.2)
    levels = [0, 1, 2, 3]
    truth = [e.estimate for e in quiet(metaeval.rater_agreement, _simulate_ratings(rng, 200_000, **design),
                                       levels=levels, ci_method=None)]
    reps = 1000
    hits = {"t": np.zeros(6), "normal": np.zeros(6)}
    for _ in range(reps):
        lab = _simulate_ratings(rng, 20, **design)
        for q in hits:
            rs = quiet(metaeval.rater_agreement, lab, levels=levels, ci_method="analytic", quantile=q)
            hits[q] += [e.ci.low <= tr <= e.ci.high for e, tr in zip(rs, truth)]
    cov_t, cov_n = hits["t"] / reps, hits["normal"] / reps
    # measured (module docstring, 2,000 data sets): t .944 .947 .926 .924 .941 .932, normal .926 .928 .906 ...
    assert (cov_t >= 0.90).all() and (cov_t <= 0.97).all(), cov_t
    assert (cov_t >= cov_n).all(), (cov_t, cov_n)
