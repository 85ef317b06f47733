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
            got = metaeval.krippendorff_alpha(data.T, level=level, ci_method="percentile", n_resamples=5, rng=0)
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
