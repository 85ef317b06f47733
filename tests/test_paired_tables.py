"""The table-backed Paired (``align(..., rows=False)``, :class:`metaeval.PairedTables`).

Every expected number here comes from the row :class:`metaeval.Paired` on the same inputs (the
reference implementation, itself checked against scikit-learn, statsmodels and irrCAC in
tests/test_agreement.py and tests/test_registry.py): the tables are the sufficient statistic, so
estimates must be equal, and intervals too when the same ``rng`` draws the same units.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from messy_inputs import POLICY_CASES, messy_pair

import metaeval as me
from metaeval.core import registry
from metaeval.core.errors import InputError
from metaeval.data.alignment import PairedTables, _cells
from metaeval.data.engines.base import AlignmentCounts

S4 = me.Scale((0, 1, 2, 3))
B = 199


@pytest.fixture(scope="module")
def dl():
    d = me.datasets.load("trec_dl_like")
    p = me.align(d.qrels_human, d.qrels_judge, scale=S4)
    t = me.align(d.qrels_human, d.qrels_judge, scale=S4, rows=False)
    return p, t


def _same_estimate(a, b):
    assert a.statistic == b.statistic
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=0, atol=1e-12, equal_nan=True)
    for x, y in ((a.ci.low, b.ci.low), (a.ci.high, b.ci.high), (a.se, b.se), (a.pvalue, b.pvalue)):
        if x is None or y is None:
            assert x is None and y is None
        else:
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, equal_nan=True)
    assert (a.n, a.unit, a.n_units) == (b.n, b.unit, b.n_units)


# ----------------------------------------------------------------------------------------------
# the tables and the accounting
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", range(len(POLICY_CASES)))
def messy_tables_equal_rows_test(seed, case):
    """On messy pairs (every fate, every policy), the tables are the rows' tables and the report is the same."""
    ref, cand = messy_pair(150, seed=seed)
    kw = POLICY_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = me.align(ref, cand, **kw)
        t = me.align(ref, cand, rows=False, **kw)
    assert isinstance(t, PairedTables) and not isinstance(p, PairedTables)
    assert len(t) == len(p)
    assert t.report.counts == p.report.counts and t.report.notes == p.report.notes
    pd.testing.assert_frame_equal(t.report.conflicts, p.report.conflicts)
    assert t.scale.levels == p.scale.levels
    if kw["duplicates"] == "mean":    # averaged labels are off the scale: neither has a table
        for x in (t, p):
            with pytest.raises(InputError, match="outside the scale"):
                x.table()
        pd.testing.assert_frame_equal(t.cells, p.to_tables().cells)
        return
    np.testing.assert_array_equal(t.table(), p.table())
    np.testing.assert_array_equal(t.table(cluster="query_id"), p.table(cluster="query_id"))
    pd.testing.assert_frame_equal(t.cells, p.to_tables().cells)
    # the cells are the joint counts of the labels per topic, straight from the rows
    expect = p.data.groupby(["query_id", "reference", "candidate"]).size()
    got = t.cells.set_index(["query_id", "reference", "candidate"])["n"]
    assert got.to_dict() == expect.to_dict()
    if kw["unjudged"] == "keep":
        u = p.unjudged.groupby(["query_id", "reference"]).size()
        assert t.unjudged.set_index(["query_id", "reference"])["n"].to_dict() == u.to_dict()
        assert int(t.unjudged["n"].sum()) == t.report.counts[("reference", "unjudged")]


def by_metadata_column_test():
    """``by`` may name a reference metadata column; a by column that is not the full group sums the others."""
    ref, cand = messy_pair(150, seed=3)
    kw = dict(scale=S4, out_of_scale="clip", duplicates="first", refusal_value=-1, refusals="drop")
    p = me.align(ref, cand, **kw)
    t = me.align(ref, cand, by=("query_id", "topic_type"), rows=False, **kw)
    assert t.by == ("query_id", "topic_type")
    np.testing.assert_array_equal(t.table(cluster="topic_type"), p.table(cluster="topic_type"))
    np.testing.assert_array_equal(t.table(cluster="query_id"), p.table(cluster="query_id"))
    # candidate metadata too (a column only the candidate has)
    t2 = me.align(ref, cand, by="refused", rows=False, **kw)
    np.testing.assert_array_equal(t2.table(cluster="refused"), p.table(cluster=p.data["refused"].astype(str)))
    # to_tables on the tables: fewer group columns
    np.testing.assert_array_equal(t.to_tables(by="topic_type").table(cluster="topic_type"),
                                  p.table(cluster="topic_type"))
    assert t.to_tables(by=()).by == () and len(t.to_tables(by=())) == len(p)
    # per topic type, topics resampled inside each group: the same frame as from the rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = me.agreement_by(t, "topic_type", statistics=["cohen_kappa", "gwet_ac1"], cluster="query_id",
                            n_resamples=B, rng=4, min_n=0)
        b = me.agreement_by(p, "topic_type", statistics=["cohen_kappa", "gwet_ac1"], cluster="query_id",
                            n_resamples=B, rng=4, min_n=0)
    pd.testing.assert_frame_equal(a, b)


def single_key_pools_test():
    """With one key column the default ``by`` is () (one pooled table)."""
    ref = pd.DataFrame({"item": ["a", "b", "c", "d"], "relevance": [0, 1, 1, 0]})
    cand = pd.DataFrame({"item": ["a", "b", "c", "d"], "relevance": [0, 1, 0, 0]})
    t = me.align(ref, cand, on="item", rows=False)
    assert t.by == () and repr(t) == "PairedTables(4 pairs on item, scale=(0, 1), one pooled table)"
    np.testing.assert_array_equal(t.table(), [[2, 0], [1, 1]])


def binarize_relabel_where_test(dl):
    p, t = dl
    np.testing.assert_array_equal(t.binarize(2).table(cluster="query_id"), p.binarize(2).table(cluster="query_id"))
    three = p.scale.merge({0: 0, 1: 1, 2: 2, 3: 2})
    np.testing.assert_array_equal(t.relabel(three).table(), p.relabel(three).table())
    qs = sorted(p.data["query_id"].unique())[:3]
    sub = t.where(query_id=qs)
    np.testing.assert_array_equal(sub.table(cluster="query_id"),
                                  p.subset(p.data["query_id"].isin(qs)).table(cluster="query_id"))
    assert len(t.where(query_id=qs[0])) == int((p.data["query_id"] == qs[0]).sum())
    with pytest.raises(InputError, match="not a group column"):
        t.where(doc_id="x")


def repr_test(dl):
    _, t = dl
    assert repr(t) == "PairedTables(7,731 pairs on query_id, doc_id, scale=(0, 1, 2, 3), tables by query_id)"


# ----------------------------------------------------------------------------------------------
# every registered table statistic: same estimate and interval as the rows
# ----------------------------------------------------------------------------------------------

# krippendorff_alpha is public as the multi-rater function (items needed); its table statistic is
# checked through agreement_report and agreement_by below
_SCALARS = [n for n in registry.names("table") if registry.get(n).components is None and n != "krippendorff_alpha"]


@pytest.mark.parametrize("name", _SCALARS)
@pytest.mark.parametrize("design", ["iid", "cluster", "strata"])
def registered_scalar_statistics_test(dl, name, design):
    p, t = dl
    fn = getattr(me, name)
    kw = dict(n_resamples=B, rng=7)
    if design == "cluster":
        kw["cluster"] = "query_id"
    elif design == "strata":
        kw["strata"] = "query_id"
    _same_estimate(fn(t, **kw), fn(p, **kw))


@pytest.mark.parametrize("name", [n for n in _SCALARS if registry.get(n).analytic is not None])
def analytic_intervals_test(dl, name):
    p, t = dl
    fn = getattr(me, name)
    _same_estimate(fn(t, ci_method="analytic"), fn(p, ci_method="analytic"))


def weighted_statistics_test(dl):
    p, t = dl
    for w in ("linear", "quadratic"):
        _same_estimate(me.cohen_kappa(t, weights=w, cluster="query_id", n_resamples=B, rng=1),
                       me.cohen_kappa(p, weights=w, cluster="query_id", n_resamples=B, rng=1))
    _same_estimate(me.gwet_ac2(t, ci_method="analytic"), me.gwet_ac2(p, ci_method="analytic"))


@pytest.mark.parametrize("fn", ["per_class", "threshold_agreement", "agreement_report"])
def vector_statistics_test(dl, fn):
    p, t = dl
    a = getattr(me, fn)(t, cluster="query_id", n_resamples=B, rng=3)
    b = getattr(me, fn)(p, cluster="query_id", n_resamples=B, rng=3)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        _same_estimate(x, y)


def binary_statistics_test(dl):
    p, t = dl
    tb, pb = t.binarize(2), p.binarize(2)
    for fn in ("binary_metrics", "prevalence_bias_index"):
        for x, y in zip(getattr(me, fn)(tb, n_resamples=B, rng=2), getattr(me, fn)(pb, n_resamples=B, rng=2)):
            _same_estimate(x, y)
    a = me.kappa_at_prevalence(tb, prevalence=0.05, n_resamples=B, rng=2)
    b = me.kappa_at_prevalence(pb, prevalence=0.05, n_resamples=B, rng=2)
    pd.testing.assert_frame_equal(a.curve, b.curve)
    pd.testing.assert_frame_equal(me.confusion_matrix(t), me.confusion_matrix(p))


def agreement_report_analytic_test(dl):
    p, t = dl
    for x, y in zip(me.agreement_report(t, ci_method="analytic"), me.agreement_report(p, ci_method="analytic")):
        _same_estimate(x, y)


def agreement_by_test(dl):
    p, t = dl
    stats = ["cohen_kappa", "gwet_ac1", "krippendorff_alpha"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = me.agreement_by(t, "query_id", statistics=stats, ci_method=None)
        b = me.agreement_by(p, "query_id", statistics=stats, ci_method=None)
    pd.testing.assert_frame_equal(a, b)
    qs = sorted(p.data["query_id"].unique())[:4]
    pt, pp = t.where(query_id=qs), p.subset(p.data["query_id"].isin(qs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = me.agreement_by(pt, "query_id", statistics=["cohen_kappa"], n_resamples=B, rng=5)
        b = me.agreement_by(pp, "query_id", statistics=["cohen_kappa"], n_resamples=B, rng=5)
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(InputError, match="not a group column"):
        me.agreement_by(t, "doc_id")


def agreement_by_small_groups_warn_test():
    ref = pd.DataFrame({"query_id": ["1"] * 3 + ["2"] * 40, "doc_id": list("abc") + [f"d{i}" for i in range(40)],
                        "relevance": [1, 1, 1] + [i % 2 for i in range(40)]})
    cand = ref.assign(relevance=[1, 0, 1] + [(i // 3) % 2 for i in range(40)])
    t = me.align(ref, cand, rows=False)
    with pytest.warns(me.SmallSampleWarning, match=r"1 \(n=3, one class\)"):
        me.agreement_by(t, "query_id", ci_method=None)


# ----------------------------------------------------------------------------------------------
# analyses that need rows: one clear error, naming the fix
# ----------------------------------------------------------------------------------------------

def needs_rows_errors_test(dl):
    _, t = dl
    for attr in ("data", "reference", "candidate"):
        with pytest.raises(InputError, match=r"rows=True"):
            getattr(t, attr)
    with pytest.raises(InputError, match="where"):
        t.subset(np.ones(len(t), dtype=bool))
    with pytest.raises(InputError, match=r"not a group column.*by="):
        me.cohen_kappa(t, cluster="doc_id")
    with pytest.raises(InputError, match="needs the pairs as rows"):
        me.cohen_kappa(t, cluster=np.zeros(len(t)))
    with pytest.raises(InputError, match="matches the items"):
        me.agreement_difference(t, t, n_resamples=B)


def rows_analyses_errors_test():
    ref, cand = messy_pair(100, seed=2)
    kw = dict(scale=S4, out_of_scale="clip", duplicates="first", refusal_value=-1, refusals="drop")
    t = me.align(ref, cand, rows=False, **kw)
    with pytest.raises(InputError, match=r"rows=True"):
        me.length_bias(t, length="length")
    with pytest.raises(InputError, match=r"rows=True"):
        me.sensitivity("cohen_kappa", t, [])
    for fn in (me.fleiss_kappa, me.krippendorff_alpha):
        with pytest.raises(InputError, match=r"agreement_report.*rows=True"):
            fn(t)


# ----------------------------------------------------------------------------------------------
# align's new arguments
# ----------------------------------------------------------------------------------------------

def align_argument_errors_test(dl):
    d = me.datasets.load("trec_dl_like")
    with pytest.raises(InputError, match="unknown engine 'polars'"):
        me.align(d.qrels_human, d.qrels_judge, engine="polars")
    with pytest.raises(InputError, match="neither side has: 'topic'"):
        me.align(d.qrels_human, d.qrels_judge, by="topic", rows=False)
    with pytest.raises(InputError, match="rows must be"):
        me.align(d.qrels_human, d.qrels_judge, rows="yes")
    with pytest.raises(InputError, match="cannot name 'n'"):
        me.align(d.qrels_human, d.qrels_judge, by="n")
    with pytest.raises(InputError, match="applies to engine='spark'"):
        me.align(d.qrels_human, d.qrels_judge, engine="pandas", spark=object())


def engine_results_become_paired_test(dl, monkeypatch):
    """What an engine returns (AlignmentCounts) becomes a PairedTables, or a Paired with rows=True."""
    import metaeval.data.engines as engines

    p, t = dl
    calls = []

    def fake_run(engine, reference, candidate, **kw):
        calls.append((engine, kw))
        return AlignmentCounts(report=p.report, on=p.on, by=kw["by"], cells=_cells(p.data, kw["by"]),
                               scale=p.scale, names=p.names, rows=p.data if kw["rows"] else None)

    monkeypatch.setattr(engines, "choose_engine", lambda r, c, e, **kw: "duckdb" if e == "auto" else e, raising=False)
    monkeypatch.setattr(engines, "run_alignment", fake_run, raising=False)
    d = me.datasets.load("trec_dl_like")
    got = me.align(d.qrels_human, d.qrels_judge, scale=S4)
    assert isinstance(got, PairedTables)
    assert calls[-1][0] == "duckdb" and calls[-1][1]["by"] == ("query_id",) and calls[-1][1]["rows"] is False
    pd.testing.assert_frame_equal(got.cells, t.cells)
    rows = me.align(d.qrels_human, d.qrels_judge, scale=S4, engine="spark", rows=True)
    assert type(rows) is me.Paired and calls[-1][0] == "spark" and len(rows) == len(p)
    # pandas still runs in process
    assert type(me.align(d.qrels_human, d.qrels_judge, scale=S4, engine="pandas")) is me.Paired
    # a SparkSession given with engine="auto" asks for Spark, and reaches the engine
    session = object()
    me.align(d.qrels_human, d.qrels_judge, scale=S4, spark=session)
    assert calls[-1][0] == "spark" and calls[-1][1]["spark"] is session


# ----------------------------------------------------------------------------------------------
# the pandas path's key handling
# ----------------------------------------------------------------------------------------------

def whitespace_class_matches_python_test():
    """The RE2 class that finds keys needing strip() is exactly str.isspace (every code point)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.compute as pc

    from metaeval.data.alignment import _WS

    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    got = pc.match_substring_regex(pa.array(["a" + ch for ch in chars]), _WS + "$").to_numpy(zero_copy_only=False)
    np.testing.assert_array_equal(got, np.array([ch.isspace() for ch in chars]))


@pytest.mark.parametrize("dtype", ["object", "string[pyarrow]", "str"])
def key_dtypes_align_alike_test(dtype):
    """Padded, empty and missing keys are cleaned the same whatever the column's string dtype."""
    ref = pd.DataFrame({"query_id": ["1", " 1", "2", "", None, "3"], "doc_id": ["a", "b ", "a", "c", "d", "\u3000e"],
                        "relevance": [0, 1, 2, 3, 1, 2]})
    cand = pd.DataFrame({"query_id": ["1", "1", "2", "3"], "doc_id": ["a", "b", "a", "e"], "relevance": [0, 1, 1, 2]})
    p0 = me.align(ref, cand)
    p1 = me.align(ref.astype({"query_id": dtype, "doc_id": dtype}), cand.astype({"query_id": dtype, "doc_id": dtype}))
    assert p0.report.counts == p1.report.counts
    assert p0.report.counts[("reference", "missing_key")] == 2 and len(p1) == 4
    assert p1.data[["query_id", "doc_id"]].values.tolist() == [["1", "a"], ["1", "b"], ["2", "a"], ["3", "e"]]


# ----------------------------------------------------------------------------------------------
# score correlations from the cells (the joint distribution of the labels per group)
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(ci_method=None), dict(ci_method="analytic"), dict(n_resamples=B, rng=1),
                                dict(cluster="query_id", n_resamples=B, rng=1)])
def score_correlation_tables_test(dl, kw):
    """Pearson, Spearman and Kendall from the cells equal the rows' (estimates, intervals, p-values)."""
    p, t = dl
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x, y in zip(me.score_correlation(t, method="all", **kw), me.score_correlation(p, method="all", **kw)):
            _same_estimate(x, y)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def counts_pvalue_formulas_match_scipy_test(monkeypatch, method, alternative):
    """Above EXPAND_MAX the p-values come from the counts: they equal scipy on the expanded rows."""
    from scipy import stats as sps

    from metaeval.agreement import correlation as corr

    rng = np.random.default_rng(4)
    n = 3000
    h = rng.integers(0, 5, n)
    j = np.where(rng.random(n) < 0.04, h, rng.integers(0, 5, n))      # weak association: p ~ 0.2-0.8
    ref = pd.DataFrame({"query_id": rng.integers(0, 30, n).astype(str), "doc_id": np.arange(n).astype(str),
                        "relevance": h})
    t = me.align(ref, ref.assign(relevance=j), rows=False)
    monkeypatch.setattr(corr, "EXPAND_MAX", 0)
    c = t.cells
    r, pv = corr._counts_pvalue(method, c["reference"].to_numpy(), c["candidate"].to_numpy(), c["n"].to_numpy(),
                                alternative)
    fn = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}[method]
    ref_res = fn(h, j, alternative=alternative)
    assert 0.05 < ref_res.pvalue < 0.95
    np.testing.assert_allclose([r, pv], [ref_res.statistic, ref_res.pvalue], rtol=1e-12, atol=1e-14)


def score_correlation_tables_errors_test(dl):
    _, t = dl
    with pytest.raises(InputError, match="not a group column"):
        me.score_correlation(t, cluster="doc_id")
    with pytest.raises(InputError, match="needs the pairs as rows"):
        me.score_correlation(t, cluster=np.zeros(len(t)))


@pytest.mark.parametrize("case", [0, 1, 2])
def duckdb_tables_equal_pandas_tables_test(case):
    """The DuckDB engine's PairedTables equals the pandas one: cells, unjudged counts, report, kappa."""
    import metaeval.data.engines as engines

    if not hasattr(engines, "run_alignment"):
        pytest.skip("the engines' run_alignment is not in this tree")
    pytest.importorskip("duckdb")
    ref, cand = messy_pair(150, seed=case)
    kw = POLICY_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = me.align(ref, cand, engine="pandas", rows=False, **kw)
        t1 = me.align(ref, cand, engine="duckdb", **kw)
        assert isinstance(t1, PairedTables)
        pd.testing.assert_frame_equal(t0.cells, t1.cells, check_dtype=False)
        pd.testing.assert_frame_equal(t0.unjudged, t1.unjudged, check_dtype=False)
        assert t0.report.counts == t1.report.counts
        _same_estimate(me.cohen_kappa(t1, cluster="query_id", n_resamples=B, rng=2),
                       me.cohen_kappa(t0, cluster="query_id", n_resamples=B, rng=2))
        assert type(me.align(ref, cand, engine="duckdb", rows=True, **kw)) is me.Paired


@pytest.mark.parametrize("dtype", ["object", "str"])
def row_cluster_codes_keep_np_unique_order_test(dtype):
    """Paired.table(cluster=<text column>) factorizes instead of sorting every pair's string: same tables."""
    from metaeval.core.tables import contingency

    rng = np.random.default_rng(0)
    vals = np.array(["b", "a", "B", "é", "10", "9", "a b", "Z"], dtype=object)
    n = 400
    ref = pd.DataFrame({"item": np.arange(n).astype(str), "relevance": rng.integers(0, 3, n),
                        "grp": pd.Series(vals[rng.integers(0, len(vals), n)]).astype(dtype)})
    cand = ref[["item"]].assign(relevance=rng.integers(0, 3, n))
    p = me.align(ref, cand, on="item")
    expect = contingency(p.reference, p.candidate, p.scale, cluster=p.data["grp"].to_numpy(dtype=object))
    np.testing.assert_array_equal(p.table(cluster="grp"), expect)
    _same_estimate(me.cohen_kappa(p, cluster="grp", n_resamples=B, rng=3),
                   me.cohen_kappa(table=expect, scale=p.scale, n_resamples=B, rng=3))


def test_group_values_are_text_on_every_engine():
    # found by H-duckdb: a candidate metadata column with unjudged fills kept raw values (floats, NaN)
    # in the pandas cells while DuckDB gave text and None; both now go through alignment.group_text
    ref = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [0, 1, 2]})
    cand = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [0, 1], "length": [100, 27]})
    a = me.align(ref, cand, unjudged=0, engine="pandas", by="length", rows=False).cells
    b = me.align(ref, cand, unjudged=0, engine="duckdb", by="length", rows=False).cells
    pd.testing.assert_frame_equal(a, b)
    assert a["length"].tolist() == ["100", "27", None]
