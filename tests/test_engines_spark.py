"""The Spark alignment engine gives the pandas path's and the DuckDB engine's report, tables and rows.

References for every expected value: the pandas path (``metaeval.align(..., engine="pandas",
rows=True)``: its report field by field, its pairs counted by group, its ``Paired.data``, its error
messages) and the DuckDB engine (:func:`align_duckdb`: the same report and cells). Spark runs in local
mode, one small session for the module (``local[2]``), stopped at the end. The tests skip with the
reason when pyspark or Java is missing; ``.ci/run`` installs both.
"""

import os
import shutil
import subprocess
import sys
import warnings

import pandas as pd
import pytest
from messy_inputs import ERROR_CASES, FORMATS, POLICY_CASES, equivalent_frame, messy_pair, write_pair
from test_engines_duckdb import _expected_cells, _norm, _pandas, assert_same

from metaeval.core.errors import InputError
from metaeval.data.engines.duckdb_engine import align_duckdb

pytestmark = pytest.mark.spark

_HAVE_JAVA = bool(os.environ.get("JAVA_HOME") or shutil.which("java"))


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install \"metaeval[spark]\")")
    if not _HAVE_JAVA:
        pytest.skip("no Java runtime (apt-get install default-jre-headless; .ci/run installs it)")
    from metaeval.data.engines import spark_engine

    session = spark_engine.local_session()
    session.conf.set("spark.sql.shuffle.partitions", "1")  # tiny inputs: one reducer is fastest
    yield session
    session.stop()
    spark_engine._LOCAL = None


def _spark(ref, cand, spark, **kw):
    from metaeval.data.engines.spark_engine import align_spark

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty side warns on every path
        return align_spark(ref, cand, spark=spark, **kw)


def assert_same_as_duckdb(res, duck):
    a, b = res.report, duck.report
    for f in ("names", "sources", "n_input", "counts", "notes", "n_pairs"):
        assert getattr(a, f) == getattr(b, f), f
    pd.testing.assert_frame_equal(a.out_of_scale, b.out_of_scale)
    pd.testing.assert_frame_equal(a.conflicts, b.conflicts)
    assert res.scale == duck.scale
    assert [_norm(r) for r in res.cells.itertuples(index=False)] == [_norm(r) for r in duck.cells.itertuples(index=False)]


@pytest.fixture(scope="module")
def pairs():
    return messy_pair(160, seed=3), messy_pair(160, seed=4, qrels_safe=True)


@pytest.fixture(scope="module")
def written(pairs, tmp_path_factory):
    (r, c), (rs, cs) = pairs
    root = tmp_path_factory.mktemp("messy_spark")
    out = {}
    for fmt in FORMATS:
        ref, cand = (rs, cs) if fmt.startswith("qrels") else (r, c)
        a, b = write_pair(ref, cand, root / fmt.replace(".", "_"), fmt)
        if fmt in ("parquet_glob", "parquet_hive"):
            pa_, pb_ = equivalent_frame(ref, fmt, a), equivalent_frame(cand, fmt, b)
        else:
            pa_, pb_ = a, b
        out[fmt] = (a, b, pa_, pb_)
    return out


# -- every policy case on every input form -------------------------------------------------------

FORMS = [*FORMATS, "frame", "arrow", "spark"]


@pytest.mark.parametrize("form", FORMS)
def input_forms_test(spark, pairs, written, form):
    """Each file format, glob and folder, a pandas frame, an Arrow table and a Spark DataFrame, each
    with one policy case in turn (so every case runs, most twice), with the line numbers of the pandas
    readers (the report's first_line and conflict lines) and the rows."""
    i = FORMS.index(form)
    kw = dict(POLICY_CASES[i % len(POLICY_CASES)])
    by = ("query_id",) if form.startswith("qrels") or i % 2 == 0 else ("topic_type", "query_id")
    (r, c), _ = pairs
    if form == "frame":
        a, b, pa_, pb_ = r, c, r, c
    elif form == "arrow":
        import pyarrow as pa

        a, b = pa.Table.from_pandas(r, preserve_index=False), pa.Table.from_pandas(c, preserve_index=False)
        pa_, pb_ = a.to_pandas(), b.to_pandas()
    elif form == "spark":
        from metaeval.data.engines.spark_engine import _Loader

        loader = _Loader(spark)  # the frames as Spark DataFrames (their own row order numbers them)
        a = spark.table(loader.frame(r).view).drop("_rid", "_line", "_source")
        b = spark.table(loader.frame(c).view).drop("_rid", "_line", "_source")
        pa_, pb_ = r, c
    else:
        if form.startswith("qrels"):
            kw["refusal_flag"] = None  # qrels text has no flag column
        a, b, pa_, pb_ = written[form]
    res = _spark(a, b, spark, **kw, by=by, rows=True)
    p = _pandas(pa_, pb_, **kw)
    if form == "spark":  # the report names the sides by what they are
        assert res.report.sources == {"reference": "<Spark DataFrame>", "candidate": "<Spark DataFrame>"}
        res.report.sources = p.report.sources
    assert_same(p, res, by)
    if form != "spark":
        assert_same_as_duckdb(res, align_duckdb(a, b, **kw, by=by))


def unjudged_kept_and_cells_bound_test(spark, pairs):
    """Without rows, what comes back is counts: the unjudged items per group and label, and cells
    bounded by groups x K^2."""
    (r, c), _ = pairs
    kw = dict(POLICY_CASES[1])  # unjudged="keep"
    p = _pandas(r, c, **kw)
    res = _spark(r, c, spark, **kw, by=("query_id",))
    exp = p.unjudged.groupby(["query_id", "reference"]).size().reset_index(name="n")
    assert res.unjudged.values.tolist() == exp.values.tolist()
    assert res.rows is None
    k = len(res.scale.levels)
    assert len(res.cells) <= res.cells["query_id"].nunique() * k * k
    assert int(res.cells["n"].sum()) == res.report.n_pairs
    assert [_norm(x) for x in res.cells.itertuples(index=False)] == _expected_cells(p, ("query_id",))


def align_engine_spark_cluster_kappa_test(spark):
    """The public entry point: ``metaeval.align(..., engine="spark")`` on two qrels files gives a
    PairedTables whose cluster-bootstrap kappa equals the pandas rows' (same seed)."""
    import metaeval as me

    d = me.datasets.path("trec_dl_like")
    ref, cand = str(d / "qrels.human.txt"), str(d / "qrels.judge.txt")
    scale = me.Scale((0, 1, 2, 3))
    tables = me.align(ref, cand, scale=scale, engine="spark", spark=spark)
    rows = me.align(ref, cand, scale=scale, engine="pandas")
    assert type(tables).__name__ == "PairedTables" and tables.by == ("query_id",)
    assert tables.report.counts == rows.report.counts
    a = me.cohen_kappa(tables, cluster="query_id", n_resamples=2000, rng=0)
    b = me.cohen_kappa(rows, cluster="query_id", n_resamples=2000, rng=0)
    assert (a.estimate, a.ci.low, a.ci.high) == pytest.approx((b.estimate, b.ci.low, b.ci.high), abs=1e-12)


# -- errors: the pandas path's one-line messages ---------------------------------------------------

def _same_error(spark, ref, cand, ref_pd=None, cand_pd=None, **kw):
    with pytest.raises(InputError) as e_pd:
        _pandas(ref if ref_pd is None else ref_pd, cand if cand_pd is None else cand_pd, **kw)
    with pytest.raises(InputError) as e_sp:
        _spark(ref, cand, spark, **kw)
    assert str(e_sp.value) == str(e_pd.value)
    assert "\n" not in str(e_sp.value)
    return str(e_sp.value)


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def policy_errors_test(spark, pairs, written, case):
    (r, c), _ = pairs
    a, b = (r, c) if case != 1 else written["csv"][:2]
    assert "line" in _same_error(spark, a, b, **ERROR_CASES[case])


def bad_inputs_test(spark, tmp_path):
    ok = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    missing = str(tmp_path / "nope.txt")
    assert _same_error(spark, missing, ok) == f"{missing}: file not found. Fix: check the path"
    ref = pd.DataFrame({"query_id": ["1"], "doc": ["a"], "relevance": [1]})
    assert "no key column 'doc_id'" in _same_error(spark, ref, ok)
    path = tmp_path / "r.csv"
    pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": ["1", "two", "x"]}).to_csv(
        path, index=False)
    assert f"{path}, line 3: relevance is not a number: 'two' (2 such row(s))" in _same_error(spark, str(path), ok)
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"1 0 a 1\n1 0 b 2 9\n")
    assert f"{qrels}, line 2: found 5 fields" in _same_error(spark, str(qrels), ok)
    with pytest.raises(InputError, match="no file matches the pattern"):
        _spark(str(tmp_path / "x" / "*.parquet"), ok, spark)


def remote_qrels_error_test(spark, tmp_path, monkeypatch):
    """A path only Spark can read (hdfs://, s3a://; here a local file taken for one) has no pandas
    reader to fall back on: the bad line is named from Spark's own reading, in one line."""
    from metaeval.data.engines import spark_engine

    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"1 0 a 1\n\n1 0 b 2 9\n")
    ok = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    monkeypatch.setattr(spark_engine, "_is_remote", lambda path: True)
    with pytest.raises(InputError) as e:
        _spark(str(qrels), ok, spark)
    assert str(e.value).startswith(f"{qrels}, line 3: not a qrels line (5 fields): '1 0 b 2 9'")
    qrels.write_bytes(b"1 0 a 1\n1 0 b 2\n")
    res = _spark(str(qrels), ok, spark)
    assert res.report.n_input == {"reference": 2, "candidate": 1} and res.report.n_pairs == 1


# -- scale: a messy 200k-row pair --------------------------------------------------------------------

def messy_200k_pair_test(spark, tmp_path):
    """The issue's benchmark item: on a messy pair of about 200k rows a side (Parquet files), the Spark
    engine's report and cells equal the DuckDB engine's (benchmarks/bench_spark.py times both)."""
    ref, cand = messy_pair(190_000, seed=11)
    assert len(ref) > 195_000 and len(cand) > 195_000
    a, b = write_pair(ref, cand, tmp_path, "parquet")
    kw = dict(POLICY_CASES[2])  # majority votes, out of scale as missing, refusals relabelled, unjudged filled
    res = _spark(a, b, spark, **kw, by=("query_id",))
    duck = align_duckdb(a, b, **kw, by=("query_id",))
    assert_same_as_duckdb(res, duck)
    assert res.report.n_pairs > 140_000 and len(res.cells) > 10_000


# -- pyspark is optional ----------------------------------------------------------------------------

def import_does_not_load_pyspark_test():
    code = ("import sys, metaeval, metaeval.data.engines, metaeval.data.engines.spark_engine; "
            "print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def without_pyspark_or_java_test(monkeypatch):
    from metaeval.data.engines import run_alignment, spark_engine

    ok = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(InputError) as e:
        run_alignment("spark", ok, ok)
    assert 'pip install "metaeval[spark]"' in str(e.value) and "Java" in str(e.value)
    monkeypatch.undo()
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    monkeypatch.setattr(SparkSession, "getActiveSession", classmethod(lambda cls: None))
    monkeypatch.setattr(spark_engine.shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(InputError, match="needs a Java runtime") as e:
        spark_engine.local_session()
    assert "default-jre-headless" in str(e.value)
