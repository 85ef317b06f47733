"""Hostile numbers: issue #19, findings 12 (the statistics part), 13 and 14.

Each finding has a test that failed on 33264bd:

* 13: a cluster bootstrap over a single cluster gave a NaN interval with p = 0.0; now NaN interval,
  NaN standard error and NaN p-value with an UndefinedStatisticWarning that says why (also for a
  stratum of one cluster, one item, an empty sample, and in the debiased bootstrap);
* 14: ``table=[[5, inf], [1, 7]]`` gave kappa 0.8434 (inf cast to an integer); int64 tables past
  2**63 failed inside numpy; uint64 1e19 gave "the sample is empty"; now an InputError naming the
  argument, the cell and the fix, from one check (``metaeval.core.tables.as_counts``) that every
  table entry point uses;
* 12: an all-zero table in ``agreement_report`` raised numpy's "pvals must have at least 1
  dimension"; now NaN estimates with UndefinedStatisticWarning (the package's convention for an
  empty sample: ``cohen_kappa(table=[[0, 0], [0, 0]], ci_method=None)`` was already NaN with the
  warning "the sample is empty"). Two judgment files with no key in common gave the same numpy
  error in ``agreement_report`` and in a study; now an InputError showing each side's rows and
  example keys and the fix.

The fuzz test draws random small tables (zeros, one-row/one-column margins, huge, non-finite,
negative and fractional cells) and checks every table entry point: each call returns finite
numbers equal to an independent reference (scikit-learn's ``cohen_kappa_score`` and
``matthews_corrcoef`` on the expanded items, statsmodels' ``cohens_kappa`` on the table), NaN with
an UndefinedStatisticWarning, or raises InputError, exactly when the table is invalid by an
independent rule (exact Python arithmetic); never another exception.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, matthews_corrcoef
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

import metaeval as me
from metaeval import InputError, UndefinedStatisticWarning
from metaeval.core.resample import Units, bootstrap, debiased_bootstrap


def _caught(fn):
    """(result or exception, warnings) of fn()."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as exc:  # noqa: BLE001 - classified by the caller
            out = exc
    return out, w


def _has(w, category, text=""):
    return any(issubclass(x.category, category) and text in str(x.message) for x in w)


# --------------------------------------------------------------------------------------------
# finding 13: one cluster -> NaN interval AND NaN p-value, with the reason
# --------------------------------------------------------------------------------------------

def test_one_cluster_gives_nan_pvalue_with_a_warning():
    # 33264bd: ci (nan, nan), pvalue 0.0, and only the few-clusters SmallSampleWarning
    res, w = _caught(lambda: me.cohen_kappa(table=[[[5, 1], [2, 7]]], n_resamples=200, rng=1))
    assert not isinstance(res, Exception)
    # the estimate itself is kappa of the table: sklearn on the 15 expanded items
    x = np.repeat([0, 0, 1, 1], [5, 1, 2, 7])
    y = np.repeat([0, 1, 0, 1], [5, 1, 2, 7])
    assert res.estimate == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
    assert math.isnan(res.ci.low) and math.isnan(res.ci.high)
    assert res.pvalue is not None and math.isnan(res.pvalue)
    assert math.isnan(res.se)
    assert _has(w, UndefinedStatisticWarning, "single cluster")
    assert "no between-cluster variation" in res.extra["no_variation"]
    assert "no interval (the data form a single cluster)" in str(res)
    row = res.to_frame().iloc[0]
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"]) and np.isnan(row["pvalue"])


def test_one_cluster_every_report_row_has_nan_p():
    rep, w = _caught(lambda: me.agreement_report(table=[[[5, 1], [2, 7]]], n_resamples=100, rng=2))
    assert not isinstance(rep, Exception)
    for e in rep:
        assert math.isnan(e.ci.low) and math.isnan(e.ci.high)
        assert e.pvalue is None or math.isnan(e.pvalue)
        assert "pvalue_bound" not in e.extra
    assert _has(w, UndefinedStatisticWarning, "single cluster")


def test_one_cluster_through_align_and_a_cluster_column():
    p = me.align(me.datasets.load("trec_dl_like").qrels_human, me.datasets.load("trec_dl_like").qrels_judge)
    one = p.data[p.data["query_id"] == p.data["query_id"].iloc[0]]
    sub = me.Paired(one, on=p.on, scale=p.scale, report=p.report)
    res, w = _caught(lambda: me.cohen_kappa(sub, cluster="query_id", n_resamples=100, rng=3))
    assert math.isnan(res.pvalue) and math.isnan(res.ci.low)
    assert _has(w, UndefinedStatisticWarning, "single cluster")


def test_engine_degenerate_replicate_sets():
    """Every degenerate replicate set of the engine: each p-value is NaN exactly where the
    interval is (the test inverts the interval), and a warning says why."""
    stat = lambda S: S[:, 0] / np.maximum(S[:, 1], 1)  # noqa: E731
    # one cluster
    r, w = _caught(lambda: bootstrap(stat, Units([[1.0, 2.0]], [1], kind="clusters"), n_resamples=50, rng=0))
    assert np.isnan(r.low[0]) and np.isnan(r.pvalue(0.0)[0]) and np.isnan(r.se[0])
    assert _has(w, UndefinedStatisticWarning, "single cluster")
    # a stratum holding one cluster (the few-clusters widening, t with 0 df, is undefined)
    u = Units([[1.0, 2.0], [3.0, 4.0], [2.0, 5.0]], [1, 1, 1], strata=[0, 1, 1], kind="clusters")
    r, w = _caught(lambda: bootstrap(stat, u, n_resamples=50, rng=0))
    assert np.isnan(r.low[0]) and np.isnan(r.pvalue(0.0)[0])
    assert _has(w, UndefinedStatisticWarning, "a stratum holds 1 cluster")
    # one item
    r, w = _caught(lambda: bootstrap(stat, Units(np.eye(2), [1, 0]), n_resamples=50, rng=0))
    assert np.isnan(r.low[0]) and np.isnan(r.pvalue(0.0)[0])
    assert _has(w, UndefinedStatisticWarning, "single item")
    # nothing at all (33264bd: numpy's "pvals must have at least 1 dimension")
    r, w = _caught(lambda: bootstrap(stat, Units(np.zeros((0, 2)), np.zeros(0, int)), n_resamples=50, rng=0))
    assert not isinstance(r, Exception)
    assert np.isnan(r.low[0]) and np.isnan(r.pvalue(0.0)[0])
    assert _has(w, UndefinedStatisticWarning, "the sample is empty")
    # every replicate undefined
    r, w = _caught(lambda: bootstrap(lambda S: S[:, 1] / S[:, 1], Units(np.eye(2), [3, 0]), n_resamples=50,
                                     rng=0))
    assert np.isnan(r.low[0]) and np.isnan(r.pvalue(0.0)[0])
    assert _has(w, UndefinedStatisticWarning, "all 50 bootstrap replicates are undefined")
    # every replicate equal, with variation in the data: the zero-width interval and the test
    # that inverts it (p = 0 against another value, printed p < 1/B; 1 against the value itself)
    r, w = _caught(lambda: bootstrap(lambda S: np.full(len(S), 0.5), Units(np.eye(2), [3, 4]), n_resamples=50,
                                     rng=0))
    assert (r.low[0], r.high[0]) == (0.5, 0.5)
    assert r.pvalue(0.0)[0] == 0.0 and r.pvalue(0.5)[0] == 1.0
    (e,) = r.estimates("x", n=7, pvalues=r.pvalue(0.0))
    assert e.extra["pvalue_bound"] == 1 / 50
    # the debiased (double) bootstrap: same rule
    r, w = _caught(lambda: debiased_bootstrap(stat, Units([[1.0, 2.0]], [1], kind="clusters"), n_resamples=50,
                                              n_outer=5, n_inner=5, rng=0))
    assert np.isnan(r.low[0]) and np.isnan(r.pvalue(0.0)[0])
    assert _has(w, UndefinedStatisticWarning, "single cluster")


def test_score_correlation_over_one_cluster():
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 2.0]
    y = [1.0, 3.0, 2.0, 5.0, 4.0, 2.0]
    res, w = _caught(lambda: me.score_correlation(x, y, cluster=["t"] * 6, n_resamples=100, rng=0))
    assert not isinstance(res, Exception)
    assert res.statistic == "pearson_r"
    assert res.estimate == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)
    assert math.isnan(res.ci.low) and (res.pvalue is None or math.isnan(res.pvalue))
    assert _has(w, UndefinedStatisticWarning, "single cluster")


# --------------------------------------------------------------------------------------------
# finding 14: non-finite, negative, fractional and overflowing counts are an InputError
# --------------------------------------------------------------------------------------------

BAD_TABLES = [
    ([[5, np.inf], [1, 7]], "inf at row 0, column 1"),
    ([[5, 1], [np.nan, 7]], "nan at row 1, column 0"),
    ([[5, -np.inf], [1, 7]], "-inf at row 0, column 1"),
    ([[5, -2], [1, 7]], "negative count, -2, at row 0, column 1"),
    ([[5, 1.5], [1, 7]], "fractional count, 1.5, at row 0, column 1"),
    (np.array([[2**62, 2**62], [2**62, 2**62]], dtype=np.int64), "more than 2**53"),
    (np.array([[10**19, 1], [1, 10**19]], dtype=np.uint64), "more than 2**53"),
    (np.array([[2**64 - 1, 0], [0, 3]], dtype=np.uint64), "more than 2**53"),
    ([[2**53, 1], [0, 0]], "more than 2**53"),
]


@pytest.mark.parametrize("table, text", BAD_TABLES)
@pytest.mark.parametrize("call", [
    lambda t: me.cohen_kappa(table=t, ci_method=None),
    lambda t: me.cohen_kappa(table=t, n_resamples=20, rng=0),
    lambda t: me.cohen_kappa(table=[t, t], n_resamples=20, rng=0),
    lambda t: me.agreement_report(table=t, ci_method=None),
    lambda t: me.per_class(table=t, ci_method=None),
    lambda t: me.kappa_at_prevalence(table=t, prevalence=0.1, ci_method=None),
    lambda t: me.confusion_matrix(table=t),
    lambda t: me.stuart_maxwell(table=t),
    lambda t: me.bowker(table=t),
    lambda t: me.fleiss_kappa(value_counts=t, ci_method=None),
    lambda t: me.rogan_gladen(table=t, positives=3, total=10),
], ids=["kappa", "kappa-boot", "kappa-clusters", "report", "per_class", "kappa_at_prevalence", "confusion",
        "stuart_maxwell", "bowker", "fleiss-value_counts", "rogan_gladen"])
def test_bad_counts_are_an_input_error(call, table, text):
    # 33264bd: inf gave kappa 0.8434 with a numpy cast warning; int64 past 2**63 failed in numpy;
    # uint64 1e19 gave NaN and "the sample is empty"
    with pytest.raises(InputError) as info:
        call(table)
    msg = str(info.value)
    assert text in msg.replace("table 0, ", "")          # per-cluster tables name the table too
    assert "Fix:" in msg
    assert "table=" in msg or "value_counts=" in msg


def test_bad_counts_in_proportion_tables():
    # tables that may hold fractions (coincidences, an anticipated design table) still refuse
    # non-finite, negative and overflowing cells
    with pytest.raises(InputError, match=r"coincidence= has inf at row 1, column 1"):
        me.krippendorff_alpha(coincidence=[[1.5, 2], [2, np.inf]], ci_method=None)
    with pytest.raises(InputError, match=r"table= has a negative count"):
        me.sample_size(half_width=0.1, table=[[0.5, -0.1], [0.1, 0.5]])
    with pytest.raises(InputError, match=r"table= has inf"):
        me.sample_size(half_width=0.1, table=[[0.5, np.inf], [0.1, 0.5]])
    # fractions are fine there: the coincidence matrix of Krippendorff (2011)'s reliability data
    # (raters × units; pairs in unit u weigh 1/(m_u − 1)), built here by hand, gives the
    # krippendorff package's nominal alpha (0.743, Krippendorff 2011)
    import krippendorff

    data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
                     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
                     [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
                     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan]])
    o = np.zeros((5, 5))
    for unit in data.T:
        vals = unit[~np.isnan(unit)].astype(int) - 1
        if len(vals) < 2:
            continue
        for i in range(len(vals)):
            for j in range(len(vals)):
                if i != j:
                    o[vals[i], vals[j]] += 1 / (len(vals) - 1)
    assert not np.allclose(o, np.round(o))                 # fractional cells
    e = me.krippendorff_alpha(coincidence=o, ci_method=None)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert e.estimate == pytest.approx(ref, abs=1e-12) and round(ref, 3) == 0.743


def test_large_valid_counts_match_statsmodels():
    # totals up to 2**53 are accepted and give statsmodels' kappa (float arithmetic on the table)
    t = np.array([[2**50, 2**48], [2**47, 2**51]], dtype=np.int64)
    res, w = _caught(lambda: me.cohen_kappa(table=t, n_resamples=50, rng=0))
    assert not isinstance(res, Exception)
    assert res.estimate == pytest.approx(sm_cohens_kappa(t.astype(float)).kappa, abs=1e-12)
    assert res.ci.low <= res.estimate <= res.ci.high
    u = np.array([[30, 5], [4, 61]], dtype=np.uint64)
    assert me.cohen_kappa(table=u, ci_method=None).estimate == pytest.approx(
        sm_cohens_kappa(u.astype(float)).kappa, abs=1e-12)


# --------------------------------------------------------------------------------------------
# finding 12 (statistics part): all-zero table, no key in common
# --------------------------------------------------------------------------------------------

def test_all_zero_table_in_agreement_report_is_nan_with_warning():
    # 33264bd: ValueError "pvals must have at least 1 dimension ..." from numpy
    for kw in ({}, {"ci_method": None}, {"ci_method": "percentile"}):
        rep, w = _caught(lambda kw=kw: me.agreement_report(table=[[0, 0], [0, 0]], n_resamples=50, rng=0, **kw))
        assert not isinstance(rep, Exception), rep
        assert all(math.isnan(e.estimate) for e in rep)
        assert all(e.n == 0 for e in rep)
        assert _has(w, UndefinedStatisticWarning, "the sample is empty")
    # per-cluster tables that are all empty, and a single statistic
    res, w = _caught(lambda: me.cohen_kappa(table=np.zeros((3, 2, 2)), n_resamples=50, rng=0))
    assert not isinstance(res, Exception) and math.isnan(res.estimate) and math.isnan(res.pvalue or math.nan)
    assert _has(w, UndefinedStatisticWarning)


@pytest.fixture
def disjoint(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    b.write_text("Q1 0 D1 1\nQ1 0 D2 0\nQ2 0 D3 1\n")
    return a, b


def _check_no_pair_message(msg, a, b):
    assert "no pair was matched" in msg and "no key occurs on both sides" in msg
    assert "reference 3 rows (3 unmatched)" in msg and "candidate 3 rows (3 unmatched)" in msg
    assert "('q1', 'd1')" in msg and "('Q1', 'D1')" in msg          # example keys of each side
    assert str(a) in msg and str(b) in msg
    assert "on=" in msg or "--on" in msg


@pytest.mark.parametrize("rows", [True, False])
def test_no_shared_key_is_an_input_error_at_the_statistic(disjoint, rows):
    # 33264bd: ValueError "pvals must have at least 1 dimension" (rows) or "cannot reshape array
    # of size 0" (tables)
    a, b = disjoint
    p = me.align(a, b, rows=rows)
    for call in (lambda: me.agreement_report(p, cluster="query_id", n_resamples=50, rng=0),
                 lambda: me.cohen_kappa(p, n_resamples=50, rng=0),
                 lambda: me.cohen_kappa(p, ci_method=None),
                 lambda: me.score_correlation(p, ci_method=None)):
        with pytest.raises(InputError) as info:
            call()
        _check_no_pair_message(str(info.value), a, b)


def test_no_shared_key_through_the_cli_agree_and_a_study(disjoint, tmp_path, capsys):
    # in-process (metaeval.cli.main returns the exit status; an exception other than InputError
    # would propagate here as the traceback the user saw)
    from metaeval.cli import main

    a, b = disjoint
    assert main(["agree", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("metaeval: error:") and "no key occurs on both sides" in err
    study = tmp_path / "study.toml"
    study.write_text(f'title = "disjoint"\nseed = 1\nn_resamples = 50\n\n[data.p]\nkind = "pair"\n'
                     f'reference = "{a.name}"\ncandidate = "{b.name}"\n\n[[analysis]]\ntype = "agreement"\n'
                     'name = "agr"\ndata = "p"\ncluster = "query_id"\n')
    # 33264bd: ValueError "pvals must have at least 1 dimension" out of numpy, as a traceback
    assert main(["report", str(study), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("metaeval: error:") and err.count("\n") == 1
    assert "analysis 'agr'" in err and "no pair was matched" in err
    assert "('q1', 'd1')" in err and "('Q1', 'D1')" in err


# --------------------------------------------------------------------------------------------
# the fuzz: random hostile tables through every table entry point
# --------------------------------------------------------------------------------------------

_SPECIAL = [math.inf, -math.inf, math.nan, -1, 0.5, 2**53, 2**62, 2**63 - 1, 10**19, 2**64 - 1]
_cell = st.one_of(st.integers(0, 12), st.just(0), st.sampled_from([2**40, 2**51]), st.sampled_from(_SPECIAL))


@st.composite
def _tables(draw):
    k = draw(st.sampled_from([2, 2, 3]))
    cells = draw(st.lists(st.lists(_cell, min_size=k, max_size=k), min_size=k, max_size=k))
    shape = draw(st.sampled_from(["full", "one_row", "one_col", "diag"]))
    if shape == "one_row":            # one reference level only (a one-class margin)
        cells = [row if i == 0 else [0] * k for i, row in enumerate(cells)]
    elif shape == "one_col":
        cells = [[v if j == 0 else 0 for j, v in enumerate(row)] for row in cells]
    elif shape == "diag":
        cells = [[v if i == j else 0 for j, v in enumerate(row)] for i, row in enumerate(cells)]
    dtype = draw(st.sampled_from(["list", "int64", "uint64", "float64"]))
    return cells, dtype


def _invalid(cells, integer: bool = True) -> bool:
    """The independent rule: a cell that is not finite, negative, fractional (when counts must be
    whole), or a total above 2**53 (exact rational arithmetic)."""
    flat = [v for row in cells for v in row]
    for v in flat:
        if isinstance(v, float) and not math.isfinite(v):
            return True
        if v < 0 or (integer and Fraction(v).denominator != 1):
            return True
    return sum(Fraction(v) for v in flat) > 2**53


def _as_input(cells, dtype):
    if dtype == "list":
        return cells
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.array(cells, dtype=dtype)
    except (OverflowError, ValueError):
        return None
    # keep only exact conversions (a -1 wrapped to 2**64 - 1, a float 0.5 truncated or an inf
    # cast to an integer is another table: numpy's doing, not metaeval's)
    back = arr.astype(object).tolist() if dtype != "float64" else arr.tolist()
    for r0, r1 in zip(cells, back):
        for v0, v1 in zip(r0, r1):
            same = (math.isnan(v0) and math.isnan(v1)) if isinstance(v0, float) and math.isnan(v0) else v0 == v1
            if not same:
                return None
    return arr


def _expanded(t):
    k = t.shape[0]
    idx = np.arange(k * k)
    cnt = t.ravel().astype(np.int64)
    return np.repeat(idx // k, cnt), np.repeat(idx % k, cnt)


def _ref_kappa(t):
    """Cohen's kappa of a valid table: sklearn on the items when few, statsmodels on the table."""
    n = t.sum()
    p_e = float((t.sum(0).astype(float) / n) @ (t.sum(1).astype(float) / n)) if n else 1.0
    if n == 0 or abs(1 - p_e) < 1e-12:
        return math.nan
    if n <= 3000:
        x, y = _expanded(t)
        return float(cohen_kappa_score(x, y, labels=list(range(t.shape[0]))))
    return float(sm_cohens_kappa(t.astype(float)).kappa)


ENTRY_POINTS = {
    "cohen_kappa": lambda t: me.cohen_kappa(table=t, ci_method=None),
    "cohen_kappa_boot": lambda t: me.cohen_kappa(table=t, n_resamples=30, rng=0),
    "cohen_kappa_clusters": lambda t: me.cohen_kappa(table=np.stack([t, t]) if isinstance(t, np.ndarray)
                                                     else [t, t], n_resamples=30, rng=0),
    "cohen_kappa_one_cluster": lambda t: me.cohen_kappa(table=[t], n_resamples=30, rng=0),
    "weighted_kappa": lambda t: me.cohen_kappa(table=t, weights="linear", ci_method=None),
    "matthews": lambda t: me.matthews_corrcoef(table=t, ci_method=None),
    "report": lambda t: me.agreement_report(table=t, n_resamples=30, rng=0),
    "per_class": lambda t: me.per_class(table=t, ci_method=None),
    "kappa_at_prevalence": lambda t: me.kappa_at_prevalence(table=t, prevalence=0.1, ci_method=None),
    "stuart_maxwell": lambda t: me.stuart_maxwell(table=t),
    "bowker": lambda t: me.bowker(table=t),
    "fleiss_value_counts": lambda t: me.fleiss_kappa(value_counts=t, ci_method=None),
    "alpha_coincidence": lambda t: me.krippendorff_alpha(
        coincidence=(np.asarray(t, dtype=float) + np.asarray(t, dtype=float).T), ci_method=None),
}


def _numbers(res):
    """(estimates, p-values) a result carries."""
    if hasattr(res, "chi2"):                            # a square test
        return [res.chi2], [res.pvalue]
    ests = list(res) if hasattr(res, "__iter__") else [res]
    return [e.estimate for e in ests], [e.pvalue for e in ests if e.pvalue is not None]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(), st.sampled_from(sorted(ENTRY_POINTS)))
def test_fuzz_table_entry_points(drawn, which):
    cells, dtype = drawn
    t_in = _as_input(cells, dtype)
    if t_in is None:
        return
    if which == "alpha_coincidence":           # the matrix passed is t + t.T in float64, fractions allowed
        with np.errstate(invalid="ignore", over="ignore"):
            f = np.asarray(t_in, dtype=float)
            bad = _invalid((f + f.T).tolist(), integer=False)
    else:
        bad = _invalid(cells)
    if which == "cohen_kappa_clusters":       # two copies of the table: twice the total
        bad = bad or _invalid([[2 * v for v in row] for row in cells])
    k = len(cells)
    if which in ("kappa_at_prevalence",) and k != 2:
        bad_shape = True
    else:
        bad_shape = False
    res, w = _caught(lambda: ENTRY_POINTS[which](t_in))
    if isinstance(res, InputError):
        # refused: exactly the invalid tables (or a shape/scale the statistic cannot take)
        assert bad or bad_shape or which in ("fleiss_value_counts", "kappa_at_prevalence", "alpha_coincidence"), \
            f"{which} refused a valid table {cells}: {res}"
        return
    assert not isinstance(res, Exception), f"{which} raised {type(res).__name__}: {res} on {cells}"
    assert not bad, f"{which} accepted the invalid table {cells}"
    if isinstance(res, Exception):
        return
    ests, pvals = _numbers(res)
    for v in ests + pvals:
        assert math.isnan(v) or math.isfinite(v)
    assert all(math.isnan(p) or 0 <= p <= 1 for p in pvals)
    if any(math.isnan(v) for v in ests):
        assert _has(w, UndefinedStatisticWarning), f"{which}: NaN without a warning on {cells}"
    t = np.asarray([[int(v) for v in row] for row in cells], dtype=np.int64)
    if which in ("cohen_kappa", "cohen_kappa_boot", "cohen_kappa_clusters", "cohen_kappa_one_cluster"):
        ref = _ref_kappa(t)
        if math.isnan(ref):
            assert math.isnan(res.estimate)
        else:
            assert res.estimate == pytest.approx(ref, abs=1e-9)
        if which in ("cohen_kappa", "cohen_kappa_boot") and not math.isnan(ref):
            # the z-test with the H0 standard error: statsmodels' two-sided p-value; where the H0
            # variance is 0 in exact arithmetic the test is 0/0 (statsmodels gives NaN, or a p from
            # rounding noise such as var_kappa0 = 6.7e-16 for [[0, 0], [1, 2]]): NaN here
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                sm = sm_cohens_kappa(t.astype(float))
            n = float(t.sum())
            if n * sm.var_kappa0 > 1e-9:                 # a well-conditioned test: the same p
                assert res.pvalue == pytest.approx(float(sm.pvalue_two_sided), abs=1e-9)
            elif n <= 3000:                              # H0 variance 0 up to rounding: no test
                assert math.isnan(res.pvalue)
            # (else: a per-item H0 variance below 1e-9 on a huge table, e.g. [[0, 2**40], [1, 0]]:
            # kappa and its H0 SE are both rounding-sized; any p in [0, 1], checked above)
        if which == "cohen_kappa_one_cluster":
            # no test (None: an empty sample has no statistic to test) or NaN, never 0
            assert (res.pvalue is None or math.isnan(res.pvalue)) and math.isnan(res.ci.low)
            assert _has(w, UndefinedStatisticWarning, "single cluster" if t.sum() else "the sample is empty")
    elif which == "matthews" and 0 < t.sum() <= 3000 and not math.isnan(res.estimate):
        x, y = _expanded(t)
        assert res.estimate == pytest.approx(matthews_corrcoef(x, y), abs=1e-9)
    elif which == "report":
        kap = next(e for e in res if e.statistic == "cohen_kappa")
        ref = _ref_kappa(t)
        assert (math.isnan(kap.estimate) and math.isnan(ref)) or kap.estimate == pytest.approx(ref, abs=1e-9)
        po = next(e for e in res if e.statistic == "observed_agreement")
        n = t.sum()
        assert (n == 0 and math.isnan(po.estimate)) or po.estimate == pytest.approx(np.trace(t) / max(n, 1),
                                                                                    abs=1e-12)


# ------------------------------------------------------------------ fuzz: review_text and find_claims
# Hostile text for the reviewer's readers (issue #26, findings 5 and 12): APA results and judge-paper claims
# with random numbers, mixed with junk, and with invisible characters (Unicode format characters,
# control characters) inserted anywhere. Properties: never an exception but InputError; an invisible
# character changes nothing that is read (the same rows as the text without it, so never a negative
# statistic); every position points into the original text.
_INVISIBLE = ["\u00ad", "\u200b", "\ufeff", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e", "\u2060",
              "\u2066", "\u180e", "\u061c", "\U000e0020", "\x00", "\x01", "\x1b", "\x7f"]
_FRAGMENTS = ["t({d}) = {v}, p = {p}", "F({d}, {d}) = {v}, p < {p}", "r({d}) = .{i}, p = {p}", "z = {v}, ns",
              "\u03c7\u00b2({d}, N = {n}) = {v}, p = {p}", "Cohen's \u03ba = 0.{i} on {n} judgments",
              "{v}% agreement", "{i} out of {n} items", "Kendall's tau = 0.{i} over {n} runs", "r = .{i} (n = {n}), p = {p}",
              "Krippendorff's alpha of 0.{i}", "{v}% of {n}", "(97 relevant, 105 not)", ". ", "\n", "\n\n", " ", "\u2212",
              "-", "\u2013", "%", "(", ")", ",", "=", "<"]


@st.composite
def _hostile_text(draw):
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):
            frag = draw(st.sampled_from(_FRAGMENTS))
            # n stays small: a κ over n = 1e9 items is check_claims' own bound (its enumeration), not the readers'
            frag = frag.format(d=draw(st.integers(0, 10 ** 6)), n=draw(st.integers(0, 3000)),
                               i=draw(st.integers(0, 999)), p=draw(st.sampled_from([".03", ".5e-3", "0", "1", "1.5", ".000"])),
                               v=draw(st.sampled_from(["2.20", "0", "1e5", "99999999999999999999.5", ".5", "4,000.1"])))
        else:
            frag = draw(st.text(max_size=12))
        parts.append(frag)
    return "".join(parts)


@st.composite
def _with_invisible(draw):
    text = draw(_hostile_text())
    chars = list(text)
    for _ in range(draw(st.integers(1, 6))):
        chars.insert(draw(st.integers(0, len(chars))), draw(st.sampled_from(_INVISIBLE)))
    return text, "".join(chars)


def _visible(text):
    """The text without Unicode format characters and control characters other than white space."""
    import unicodedata

    return "".join(ch for ch in text if not (unicodedata.category(ch) == "Cf"
                                             or (unicodedata.category(ch) == "Cc" and not ch.isspace())))


def _read(text):
    from metaeval.review.prose import check_found

    rows = me.review_text(text)
    found = me.find_claims(text)
    check_found(found, n_resamples=50)                    # checked claims: never an exception
    return rows, found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_with_invisible())
def review_readers_fuzz_test(pair):
    plain, hostile = pair
    try:
        rows, found = _read(plain)
    except me.InputError:
        return
    rows2, found2 = _read(hostile)
    keep = [c for c in rows.columns if c not in ("raw", "start", "end")]
    assert rows2[keep].equals(rows[keep])                 # same numbers: an invisible character is never a minus
    for r in rows2.itertuples():
        assert _visible(hostile[r.start:r.end]) == r.raw
    strip = ("start", "end", "sentence")
    assert [{k: v for k, v in c.items() if k not in strip} for c in found2] == \
        [{k: v for k, v in c.items() if k not in strip} for c in found]
    for c in found2:
        assert _visible(hostile[c["start"]:c["end"]]).split() == c["sentence"].split()
