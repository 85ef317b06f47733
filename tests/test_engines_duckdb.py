"""The DuckDB alignment engine gives the pandas path's report, tables and rows, on every input form.

The reference for every expected value is the pandas path itself (``metaeval.align(...,
engine="pandas", rows=True)``): the report field by field, the cells as its pairs counted by group,
the rows as its ``Paired.data``, and the error messages (file and line) of its readers.
"""

import gzip
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from messy_inputs import ERROR_CASES, FORMATS, POLICY_CASES, equivalent_frame, messy_pair, write_pair

import metaeval as me
from metaeval.core.errors import InputError
from metaeval.data.engines import ENGINES, align_pandas, choose_engine, run_alignment
from metaeval.data.engines.duckdb_engine import align_duckdb, connect

S = me.Scale((0, 1, 2, 3))


def _pandas(ref, cand, **kw):
    return me.align(ref, cand, engine="pandas", rows=True, **kw)


def _norm(values):
    """Values comparable across engines: None for missing, floats for numbers, text otherwise."""
    out = []
    for v in list(values):
        if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
            out.append(None)
        elif isinstance(v, (bool, np.bool_)):
            out.append(str(bool(v)))
        elif isinstance(v, (int, float, np.integer, np.floating)):
            out.append(float(v))
        else:
            try:
                out.append(float(v))
            except ValueError:
                out.append(str(v))
    return out


def _expected_cells(p, by):
    """The pandas pairs (``Paired.data``) counted by group and label pair: group values as text (None
    when missing, sorted last), as ``AlignmentCounts.cells`` documents them.

    (``Paired.to_tables`` keeps the raw values of an object column, e.g. the candidate's ``length``
    with None for the unjudged items filled in, and then sorts 27 before 100; reported to the lead.)
    """
    data = p.data
    if not len(data):
        return []
    frame = pd.DataFrame({c: [None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
                              for v in data[c].tolist()] for c in by}
                         | {"reference": data["reference"].to_numpy(float),
                            "candidate": data["candidate"].to_numpy(float)})
    out = frame.groupby(list(by) + ["reference", "candidate"], dropna=False).size().reset_index(name="n")
    out = out.sort_values(list(by) + ["reference", "candidate"], na_position="last")
    return [_norm(r) for r in out.itertuples(index=False)]


def assert_same(p, res, by):
    """The DuckDB result ``res`` equals the pandas Paired ``p`` in every field."""
    a, b = p.report, res.report
    for f in ("names", "sources", "n_input", "counts", "notes", "n_pairs"):
        assert getattr(b, f) == getattr(a, f), f
    pd.testing.assert_frame_equal(b.out_of_scale, a.out_of_scale)
    pd.testing.assert_frame_equal(b.conflicts, a.conflicts)
    assert res.scale == p.scale
    got = res.cells
    assert list(got.columns) == [*by, "reference", "candidate", "n"]
    assert got["n"].dtype == np.int64
    assert [_norm(r) for r in got.itertuples(index=False)] == _expected_cells(p, by)
    if res.rows is not None:
        assert list(res.rows.columns) == list(p.data.columns)
        for c in p.data.columns:
            assert _norm(res.rows[c]) == _norm(p.data[c]), c


# -- every policy case on every input form ----------------------------------------------------------

@pytest.fixture(scope="module")
def pairs():
    return messy_pair(160, seed=3), messy_pair(160, seed=4, qrels_safe=True)


@pytest.fixture(scope="module")
def written(pairs, tmp_path_factory):
    (r, c), (rs, cs) = pairs
    root = tmp_path_factory.mktemp("messy")
    out = {}
    for fmt in FORMATS:
        ref, cand = (rs, cs) if fmt.startswith("qrels") else (r, c)
        a, b = write_pair(ref, cand, root / fmt.replace(".", "_"), fmt)
        if fmt in ("parquet_glob", "parquet_hive"):  # the pandas path reads the same rows from frames
            pa_, pb_ = equivalent_frame(ref, fmt, a), equivalent_frame(cand, fmt, b)
        else:
            pa_, pb_ = a, b
        out[fmt] = (a, b, pa_, pb_)
    return out


def _memory_form(df, form):
    if form == "frame":
        return df
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    if form == "arrow":
        return table
    if form == "polars":
        import polars as pl

        return pl.from_arrow(table)
    raise AssertionError(form)


@pytest.mark.parametrize("form", ["frame", "arrow", "polars", *FORMATS])
@pytest.mark.parametrize("case", range(len(POLICY_CASES)))
def policy_case_on_every_form_test(pairs, written, form, case):
    kw = dict(POLICY_CASES[case])
    (r, c), _ = pairs
    if form in ("frame", "arrow", "polars"):
        if form == "frame":
            p = _pandas(r, c, **kw)
        else:  # Arrow and polars hold typed columns: the pandas path sees them as the frame they convert to
            p = _pandas(_memory_form(r, form).to_pandas() if form == "arrow" else _memory_form(r, form).to_pandas(),
                        _memory_form(c, form).to_pandas(), **kw)
        a, b = _memory_form(r, form), _memory_form(c, form)
    else:
        if form.startswith("qrels"):
            kw["refusal_flag"] = None  # qrels text has no flag column
        a, b, pa_, pb_ = written[form]
        p = _pandas(pa_, pb_, **kw)
    res = align_duckdb(a, b, **kw, by=("query_id",), rows=True)
    assert_same(p, res, ("query_id",))


@pytest.mark.parametrize("by", [(), ("query_id", "doc_id"), ("topic_type",), ("length",), ("topic_type", "query_id")])
def cells_by_group_columns_test(pairs, by):
    (r, c), _ = pairs
    kw = dict(POLICY_CASES[2])  # unjudged items filled: the cells hold them too
    p = _pandas(r, c, **kw)
    res = align_duckdb(r, c, **kw, by=by)
    assert res.rows is None
    assert_same(p, res, by)
    # the engines' own entry point for pandas gives the same cells
    pd.testing.assert_frame_equal(res.cells, align_pandas(r, c, labels="relevance", **kw, by=by).cells)


def unjudged_kept_counts_and_rows_test(pairs):
    (r, c), _ = pairs
    kw = dict(POLICY_CASES[1])  # unjudged="keep"
    p = _pandas(r, c, **kw)
    res = align_duckdb(r, c, **kw, by=("query_id",))
    exp = p.unjudged.groupby(["query_id", "reference"]).size().reset_index(name="n")
    assert res.unjudged.values.tolist() == exp.values.tolist()
    rows = align_duckdb(r, c, **kw, rows=True).unjudged
    assert rows.values.tolist() == p.unjudged.values.tolist()


def duckdb_relation_and_connection_test(pairs, tmp_path):
    (r, c), _ = pairs
    con = connect(memory_limit="256MB", threads=1)
    ref_rel = con.from_df(r)
    path = tmp_path / "c.parquet"
    c.to_parquet(path, index=False)
    cand_rel = con.read_parquet(str(path))
    kw = dict(POLICY_CASES[0])
    res = align_duckdb(ref_rel, cand_rel, **kw, by=("query_id",), rows=True, connection=con)
    p = _pandas(r, c, **kw)
    assert res.report.counts == p.report.counts and res.report.n_pairs == p.report.n_pairs
    assert [_norm(r) for r in res.cells.itertuples(index=False)] == _expected_cells(p, ("query_id",))
    # the engine leaves the caller's connection as it found it (no tables or views of its own)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE NOT internal").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall() == [(0,)]
    con.close()


def csv_glob_test(pairs, tmp_path):
    """A glob of CSV files: rows in file order, lines numbered per file from 2 (after the header), as
    the table reader numbers them file by file."""
    from messy_inputs import _clean_for_text

    from metaeval.data import io as mio

    (r, c), _ = pairs
    for name, df in (("r", r), ("c", c)):
        (tmp_path / name).mkdir()
        for i, chunk in enumerate(np.array_split(np.arange(len(df)), 2)):
            _clean_for_text(df.iloc[chunk]).to_csv(tmp_path / name / f"part{i}.csv", index=False)

    def frame(name):
        parts = [mio._read_table(str(tmp_path / name / f"part{i}.csv"))[0] for i in range(2)]
        out = pd.concat(parts, ignore_index=True)
        out.attrs["source"] = str(tmp_path / name / "*.csv")
        out.attrs["lines"] = np.concatenate([np.arange(2, len(x) + 2) for x in parts])
        return out

    kw = dict(POLICY_CASES[0])
    p = _pandas(frame("r"), frame("c"), **kw)
    res = align_duckdb(str(tmp_path / "r" / "*.csv"), str(tmp_path / "c" / "*.csv"), **kw, by=("query_id",), rows=True)
    assert_same(p, res, ("query_id",))


def connection_settings_test(monkeypatch):
    """The engine's own connection: its memory limit (default, or the environment variable), all
    cores, no progress bar."""
    import os

    con = connect()
    got = con.execute("SELECT current_setting('memory_limit'), current_setting('threads'), "
                      "current_setting('enable_progress_bar')").fetchall()[0]
    assert got == ("1.3 GiB", os.cpu_count(), False)  # DuckDB prints 1500MB (10^6 bytes) in GiB
    con.close()
    monkeypatch.setenv("METAEVAL_DUCKDB_MEMORY_LIMIT", "300MB")
    con = connect()
    assert con.execute("SELECT current_setting('memory_limit')").fetchall() == [("286.1 MiB",)]
    con.close()


def spill_folder_in_tempdir_and_removed_test(pairs, tmp_path, monkeypatch):
    """DuckDB spills under tempfile.gettempdir() (never in the repository) and the folder goes away."""
    import tempfile

    (r, c), _ = pairs
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []
    import metaeval.data.engines.duckdb_engine as de

    real = de.connect

    def spy(**kw):
        seen.append(kw["temp_directory"])
        return real(**kw)

    monkeypatch.setattr(de, "connect", spy)
    align_duckdb(r, c, **POLICY_CASES[0])
    assert len(seen) == 1 and seen[0].startswith(str(tmp_path))
    assert list(tmp_path.iterdir()) == []


# -- errors: the same messages as the pandas path ---------------------------------------------------

def _same_error(ref, cand, ref_pd=None, cand_pd=None, **kw):
    with pytest.raises(InputError) as e_pd:
        _pandas(ref if ref_pd is None else ref_pd, cand if cand_pd is None else cand_pd, **kw)
    with pytest.raises(InputError) as e_dk:
        align_duckdb(ref, cand, **kw)
    assert str(e_dk.value) == str(e_pd.value)
    return str(e_dk.value)


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
@pytest.mark.parametrize("form", ["frame", "csv", "parquet"])
def policy_errors_test(pairs, written, case, form):
    (r, c), _ = pairs
    if form == "frame":
        msg = _same_error(r, c, **ERROR_CASES[case])
    else:
        a, b, _, _ = written[form]
        msg = _same_error(a, b, **ERROR_CASES[case])
    assert "line" in msg


def label_not_a_number_test(tmp_path):
    ref = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": ["1", "two", "x"]})
    cand = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    msg = _same_error(ref, cand)
    assert "relevance is not a number: 'two' (2 such row(s))" in msg and "line 2" in msg
    ref.to_csv(tmp_path / "r.csv", index=False)
    cand.to_csv(tmp_path / "c.csv", index=False)
    msg = _same_error(str(tmp_path / "r.csv"), str(tmp_path / "c.csv"))
    assert "r.csv, line 3" in msg


def missing_columns_and_files_test(tmp_path):
    ref = pd.DataFrame({"query_id": ["1"], "doc": ["a"], "relevance": [1]})
    cand = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "rel": [1]})
    assert "no key column 'doc_id'" in _same_error(ref, cand)
    ok = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    assert "no label column 'relevance'" in _same_error(ok, cand)
    assert "no refusal flag column 'flag'" in _same_error(ok, ok, refusal_flag="flag")
    missing = str(tmp_path / "nope.txt")
    msg = _same_error(missing, ok)
    assert msg == f"{missing}: file not found. Fix: check the path" and "\n" not in msg
    with pytest.raises(InputError, match="no file matches the pattern"):
        align_duckdb(str(tmp_path / "x" / "*.parquet"), ok)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no Parquet files in the folder"):
        align_duckdb(str(tmp_path / "empty"), ok)
    with pytest.raises(InputError, match="by= names a column neither side has: 'zzz'"):
        align_duckdb(ok, ok, by="zzz")


@pytest.mark.parametrize("text, needle", [
    (b"1 0 a 1\n1 0 b 2 9\n", "line 2"),               # five fields
    (b"query_id iteration doc_id relevance\n1 0 a 1\n", "header"),
    (b"1 0 a 1\n1 0 b x\n", "line 2"),                 # not an integer
    (b"1 0 a\n1 0 b\n", "unlabelled pool"),            # three fields
    (b"1 0 a 1\n\n  \n1 0 b 7\n1 0 a 5\n", None),      # blank lines keep the line numbers
    (b"1\t0\ta\t1\r\n1\t0\tb\t2\r\n1 0  c 3\n", None),  # tabs, CRLF, doubled spaces
    (b"1 0 a 1.0\n1 0 b +2\n", None),                  # what read_qrels also accepts as integers
])
@pytest.mark.parametrize("gz", [False, True])
def qrels_text_like_read_qrels_test(tmp_path, text, needle, gz):
    path = tmp_path / ("r.txt.gz" if gz else "r.txt")
    path.write_bytes(gzip.compress(text, mtime=0) if gz else text)
    cand = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2]})
    kw = dict(scale=S, out_of_scale="error", duplicates="error")
    if needle is not None:
        assert needle in _same_error(str(path), cand, **kw)
        return
    try:
        p = _pandas(str(path), cand, **kw)
    except InputError as exc:  # out of scale (7, 5) or a conflict: the same message, the same line
        assert str(exc) == _same_error(str(path), cand, **kw)
        kw = dict(scale=S, out_of_scale="drop", duplicates="first")
        p = _pandas(str(path), cand, **kw)
    res = align_duckdb(str(path), cand, **kw, rows=True)
    assert_same(p, res, ())


def big_clean_qrels_fast_path_test(tmp_path):
    """A clean file takes DuckDB's column reader (no per-line regular expression); its line numbers
    still match the pandas path's, including the out-of-scale and conflict lines."""
    rng = np.random.default_rng(0)
    n = 5000
    lab = rng.integers(0, 4, n)
    lab[[17, 4000]] = 9
    lines = [f"{q} 0 d{i % 4700} {v}\n" for i, (q, v) in enumerate(zip(rng.integers(1, 30, n), lab))]
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(lines))
    cand = tmp_path / "cand.tsv.qrels"
    cand.write_text("".join(ln.replace(" ", "\t") for ln in lines[::2]))
    kw = dict(scale=S, out_of_scale="drop", duplicates="majority")
    assert_same(_pandas(str(ref), str(cand), **kw), align_duckdb(str(ref), str(cand), **kw, by=("query_id",)),
                ("query_id",))


@pytest.mark.parametrize("oos", ["drop", "error"])
def clean_qrels_one_pass_names_out_of_scale_lines_test(tmp_path, monkeypatch, oos):
    """Clean qrels without conflicts take the one-pass group-by, which reads the files without row
    numbers; the out-of-scale rows it counts are then found with their line numbers (the report's
    first lines, the error's line), as in the pandas path."""
    import metaeval.data.engines.plan as plan

    rng = np.random.default_rng(1)
    n = 3000
    lab = rng.integers(0, 4, n)
    lab[[29, 2500]] = 9
    lines = [f"{q} 0 d{i} {v}\n" for i, (q, v) in enumerate(zip(rng.integers(1, 30, n), lab))]
    ref, cand = tmp_path / "ref.txt", tmp_path / "cand.txt"
    ref.write_text("".join(lines))
    cand.write_text("".join(lines[::3]))
    seen, real = [], plan._merged
    monkeypatch.setattr(plan, "_merged", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    kw = dict(scale=S, out_of_scale=oos)
    if oos == "error":
        with pytest.raises(me.InputError) as want:
            _pandas(str(ref), str(cand), **kw)
        with pytest.raises(me.InputError) as got:
            align_duckdb(str(ref), str(cand), **kw, by=("query_id",))
        assert str(got.value) == str(want.value) and "line 30" in str(got.value)
    else:
        res = align_duckdb(str(ref), str(cand), **kw, by=("query_id",))
        assert_same(_pandas(str(ref), str(cand), **kw), res, ("query_id",))
        assert res.report.out_of_scale["first_line"].tolist() == [30]
    assert seen and seen[0] is not None  # the one pass was taken


@pytest.mark.parametrize("dup", ["first", "last", "majority", "mean"])
def many_distinct_labels_test(dup):
    """More than 62 distinct labels: the engine's general duplicate rule (not the coded one)."""
    rng = np.random.default_rng(5)
    n = 400
    ref = pd.DataFrame({"query_id": rng.integers(0, 5, n).astype(str), "doc_id": rng.integers(0, 60, n).astype(str),
                        "relevance": np.round(rng.random(n) * 10, 1), "topic_type": rng.choice(["a", "b"], n)})
    cand = ref.sample(frac=0.7, random_state=1).reset_index(drop=True)
    kw = dict(duplicates=dup, unjudged=0.5)
    for by in (("query_id",), ("topic_type",)):
        assert_same(_pandas(ref, cand, **kw), align_duckdb(ref, cand, **kw, by=by, rows=True), by)


# -- random small inputs --------------------------------------------------------------------------

_key = st.one_of(st.sampled_from(["1", "2", " 2", "3 ", "", "x"]), st.none())
_lab = st.one_of(st.sampled_from([0, 1, 2, 3, 5, -1, 2.5]), st.just(np.nan))
_row = st.tuples(_key, st.sampled_from(["a", "b", "c", "d#4"]), _lab, st.booleans())


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ref=st.lists(_row, max_size=14), cand=st.lists(_row, max_size=14),
       dup=st.sampled_from(["first", "last", "majority", "mean"]),
       oos=st.sampled_from(["clip", "drop", "missing"]),
       unj=st.sampled_from(["drop", "keep", 0]),
       refusals=st.sampled_from(["keep", "drop", 0]),
       scale=st.sampled_from([S, None]))
def random_messy_inputs_test(ref, cand, dup, oos, unj, refusals, scale):
    def frame(rows):
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance", "refused"]).astype(
            {"query_id": object, "relevance": float, "refused": bool})

    r, c = frame(ref), frame(cand)
    kw = dict(scale=scale, duplicates=dup, out_of_scale=oos if scale is not None else "error", unjudged=unj,
              refusal_value=-1, refusals=refusals, refusal_flag="refused")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty side warns on both paths
        p = _pandas(r, c, **kw)
        res = align_duckdb(r, c, **kw, by=("query_id",), rows=True, threads=1)
    assert_same(p, res, ("query_id",))


# -- choosing and running an engine ------------------------------------------------------------------

def choose_engine_test(tmp_path, monkeypatch):
    import metaeval.data.engines as eng

    small = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    q = tmp_path / "q.txt"
    q.write_text("1 0 a 1\n")
    assert ENGINES == ("auto", "pandas", "duckdb", "spark")
    assert choose_engine(small, small) == "pandas"
    assert choose_engine(str(q), str(q)) == "pandas"
    assert choose_engine(str(tmp_path / "x.parquet"), small) == "duckdb"
    assert choose_engine(str(tmp_path), small) == "duckdb"           # a folder
    assert choose_engine(str(tmp_path / "*.csv"), small) == "duckdb"  # a glob
    import pyarrow as pa

    assert choose_engine(pa.table({"a": [1]}), small) == "duckdb"
    assert choose_engine(small, small, "spark") == "spark"
    monkeypatch.setattr(eng, "AUTO_DUCKDB_BYTES", 10)
    assert choose_engine(str(q), str(q)) == "duckdb"                # above the size threshold
    monkeypatch.setattr(eng, "AUTO_DUCKDB_ROWS", 2)
    assert choose_engine(small, small) == "duckdb"
    with pytest.raises(ValueError, match="engine must be one of"):
        choose_engine(small, small, "polars")


def run_alignment_dispatch_test(pairs):
    (r, c), _ = pairs
    kw = dict(POLICY_CASES[0])
    a = run_alignment("pandas", r, c, label="relevance", by=("query_id",), connection=None, **kw)
    b = run_alignment("duckdb", r, c, label="relevance", by=("query_id",), spark=None, **kw)
    pd.testing.assert_frame_equal(a.cells, b.cells)
    assert a.report.counts == b.report.counts
    # metaeval.align with engine="duckdb" returns the tables of the same pairs
    t = me.align(r, c, engine="duckdb", by="query_id", **kw)
    assert int(t.cells["n"].sum()) == int(a.cells["n"].sum())


def test_connect_removes_its_own_spill_folder_at_exit(tmp_path):
    # connect() without temp_directory made a /tmp/metaeval-duckdb-* folder that was never removed
    # (H-bench found dozens); it is removed when the process exits
    import subprocess
    import sys

    code = (f"import tempfile; tempfile.tempdir = {str(tmp_path)!r}\n"
            "from metaeval.data.engines.duckdb_engine import connect\n"
            "c = connect(threads=1); c.execute('select 1').fetchall(); c.close()\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert not list(tmp_path.glob("metaeval-duckdb-*"))


# -- the streamed key group-by of the common case (plan._fused) ----------------------------------------

def _spy_fused(monkeypatch):
    """Record what plan._fused returned on each call (None: not applicable; else its counts)."""
    import metaeval.data.engines.plan as plan

    seen = []
    real = plan._fused

    def spy(*a, **k):
        out = real(*a, **k)
        seen.append(out)
        return out

    monkeypatch.setattr(plan, "_fused", spy)
    return seen


def _no_conflicts(df, label):
    """The frame with each key's labels made equal to its first one (identical repeats stay)."""
    def norm(v):  # the keys as the alignment normalizes them (integral numbers as integers, text stripped)
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return ""
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            return str(int(v))
        return str(v).strip()

    out = df.copy()
    keys = out["query_id"].map(norm) + "\x1f" + out["doc_id"].map(norm)
    out[label] = out.groupby(keys, sort=False)[label].transform("first")
    return out


@pytest.mark.parametrize("fingerprint", [False, True])
@pytest.mark.parametrize("unj", ["drop", "keep", 0])
def streamed_path_equals_pandas_and_exact_path_test(pairs, unj, fingerprint, monkeypatch):
    """Identical repeats, unmatched keys on both sides, refusals, missing labels and out-of-scale labels
    without conflicting labels: the streamed group-by is taken (it finds no conflict) and gives the
    pandas path's report and cells, on the key text and (above ``group_rows`` rows, here 100) on the key
    fingerprint; forcing the exact key-table path gives the same."""
    import metaeval.data.engines.plan as plan

    if fingerprint:
        monkeypatch.setenv("METAEVAL_DUCKDB_GROUP_ROWS", "100")
    (r, c), _ = pairs
    r, c = _no_conflicts(r, "relevance"), _no_conflicts(c, "relevance")
    kw = dict(scale=S, out_of_scale="drop", duplicates="error", unjudged=unj, refusal_flag="refused",
              refusal_value=-1, refusals="drop")
    p = _pandas(r, c, **kw)
    assert p.report.counts.get(("reference", "duplicate_identical"), 0) > 0  # the case has repeats
    seen = _spy_fused(monkeypatch)
    fast = align_duckdb(r, c, **kw, by=("query_id",))
    assert len(seen) == 1 and seen[0] is not None and not seen[0]["_c0"].any() and not seen[0]["_c1"].any()
    assert_same(p, fast, ("query_id",))
    monkeypatch.setattr(plan, "_fused", lambda *a, **k: None)
    exact = align_duckdb(r, c, **kw, by=("query_id",))
    assert_same(p, exact, ("query_id",))
    pd.testing.assert_frame_equal(fast.cells, exact.cells)


def streamed_path_hands_conflicts_to_the_exact_path_test(pairs, monkeypatch):
    """Conflicting labels: the streamed group-by flags them, and the exact path gives the examples
    and the policy's labels (equal to the pandas path's)."""
    (r, c), _ = pairs
    kw = dict(scale=S, out_of_scale="drop", duplicates="majority", unjudged="drop")
    p = _pandas(r, c, **kw)
    assert len(p.report.conflicts)  # the messy pair has conflicting labels
    seen = _spy_fused(monkeypatch)
    res = align_duckdb(r, c, **kw, by=("query_id",))
    assert len(seen) == 1 and seen[0] is not None and (seen[0]["_c0"].any() or seen[0]["_c1"].any())
    assert_same(p, res, ("query_id",))


def streamed_path_not_taken_test(monkeypatch):
    """Over 31 distinct labels, group columns from metadata, or rows=True: the exact path only."""
    rng = np.random.default_rng(8)
    n = 300
    ref = pd.DataFrame({"query_id": rng.integers(0, 4, n).astype(str), "doc_id": np.arange(n).astype(str),
                        "relevance": rng.integers(0, 40, n).astype(float), "topic_type": rng.choice(["a", "b"], n)})
    cand = ref.sample(frac=0.8, random_state=2).reset_index(drop=True)
    seen = _spy_fused(monkeypatch)
    assert_same(_pandas(ref, cand), align_duckdb(ref, cand, by=("query_id",)), ("query_id",))
    assert seen == [None]  # 40 labels
    small = ref.assign(relevance=ref["relevance"] % 4)
    seen.clear()
    assert_same(_pandas(small, small), align_duckdb(small, small, by=("topic_type",)), ("topic_type",))
    assert seen == [None]  # a metadata group column
    seen.clear()
    assert_same(_pandas(small, small), align_duckdb(small, small, by=("query_id",), rows=True), ("query_id",))
    assert seen == []  # rows are fetched from the key table


def padded_text_keys_are_trimmed_in_the_streamed_path_test(tmp_path):
    """Parquet keys with white space (one value is enough) keep the trimming; clean keys skip it. The
    same keys padded and unpadded pair up on both paths."""
    ref = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "a", "b"], "relevance": [0, 1, 2, 3]})
    for pad in (False, True):
        cand = ref.assign(doc_id=[" a", "b\u3000", "a", "b"] if pad else ref["doc_id"], relevance=[0, 1, 2, 2])
        ref.to_parquet(tmp_path / "r.parquet")
        cand.to_parquet(tmp_path / "c.parquet")
        p = _pandas(str(tmp_path / "r.parquet"), str(tmp_path / "c.parquet"), scale=S)
        res = align_duckdb(str(tmp_path / "r.parquet"), str(tmp_path / "c.parquet"), scale=S, by=("query_id",))
        assert res.report.n_pairs == 4
        assert_same(p, res, ("query_id",))


# -- keys both sides hold as integers (kept as integers in SQL) ------------------------------------------

def _int_pair(seed, conflicts):
    """Integer keys (int32 topics, int64 documents, negative and 2^40-sized ids): identical repeats,
    unmatched keys on both sides, an out-of-scale label and, when asked, conflicting labels."""
    rng = np.random.default_rng(seed)
    n = 400
    q = rng.integers(-3, 9, n).astype(np.int32)
    d = (rng.integers(0, 60, n) * 2 ** 34 - 7).astype(np.int64)
    ref = pd.DataFrame({"query_id": q, "doc_id": d, "relevance": rng.integers(0, 4, n)})
    ref = ref.drop_duplicates(["query_id", "doc_id"]).reset_index(drop=True)
    cand = ref.sample(frac=0.85, random_state=seed).reset_index(drop=True)
    cand["relevance"] = (cand["relevance"] + rng.integers(0, 2, len(cand))) % 4
    extra = pd.DataFrame({"query_id": np.array([100, 101], np.int32), "doc_id": np.array([5, 6], np.int64),
                          "relevance": [1, 2]})
    cand = pd.concat([cand, extra, cand.iloc[:7]], ignore_index=True)  # unmatched keys, identical repeats
    ref = pd.concat([ref, ref.iloc[:5]], ignore_index=True)
    ref.loc[3, "relevance"] = 7  # out of scale
    if conflicts:
        clash = ref.iloc[10:13].assign(relevance=lambda x: (x["relevance"] + 1) % 4)
        ref = pd.concat([ref, clash], ignore_index=True)
    return ref, cand


@pytest.mark.parametrize("form", ["frame", "parquet"])
@pytest.mark.parametrize("over", [False, True])
@pytest.mark.parametrize("dup", ["error", "majority", "last"])
def integer_keys_equal_the_pandas_path_test(tmp_path, monkeypatch, form, over, dup):
    """Integer keys on both sides stay integers in SQL (the one-pass group-by, the streamed group-by
    beyond ``group_rows`` without a fingerprint, the exact path for conflicts): the report, the
    conflict examples (keys as text), the error and the cells equal the pandas path's."""
    import metaeval.data.engines.plan as plan

    if over:
        monkeypatch.setenv("METAEVAL_DUCKDB_GROUP_ROWS", "100")
    used = []
    real = plan._integer_keys
    monkeypatch.setattr(plan, "_integer_keys", lambda *a: used.append(real(*a)) or used[-1])
    ref, cand = _int_pair(5, conflicts=dup != "error" or over)
    if form == "parquet":
        ref.to_parquet(tmp_path / "r.parquet")
        cand.to_parquet(tmp_path / "c.parquet")
        ref, cand = str(tmp_path / "r.parquet"), str(tmp_path / "c.parquet")
    kw = dict(scale=S, out_of_scale="drop", duplicates=dup, unjudged="keep")
    if dup == "error" and over:  # conflicting labels: the same error, naming the key as text
        with pytest.raises(me.InputError) as want:
            _pandas(ref, cand, **kw)
        with pytest.raises(me.InputError) as got:
            align_duckdb(ref, cand, **kw, by=("query_id",))
        assert str(got.value) == str(want.value)
        assert used[-1] == {"query_id", "doc_id"}
        return
    merged, real_merged = [], plan._merged
    monkeypatch.setattr(plan, "_merged", lambda *a, **k: merged.append(real_merged(*a, **k)) or merged[-1])
    p = _pandas(ref, cand, **kw)
    res = align_duckdb(ref, cand, **kw, by=("query_id",))
    assert used[-1] == {"query_id", "doc_id"}
    # below group_rows the one pass runs (it hands conflicts on, returning None; it never fails)
    assert (merged == []) if over else (len(merged) == 1 and (merged[0] is None) == (dup != "error"))
    assert_same(p, res, ("query_id",))
    # five repeats, less the one whose first row left out of scale (dropped before the duplicates)
    assert res.report.counts[("reference", "duplicate_identical")] == 4
    assert res.report.counts[("candidate", "unmatched")] == 2
    if dup != "error":
        assert len(res.report.conflicts) == 3 and all(isinstance(k, str) for k in res.report.conflicts["key"])


def _spy_int_keys(monkeypatch):
    """Record the integer key columns of each alignment (plan._integer_keys)."""
    import metaeval.data.engines.plan as plan

    used, real = [], plan._integer_keys
    monkeypatch.setattr(plan, "_integer_keys", lambda *a: used.append(real(*a)) or used[-1])
    return used


def integer_keys_against_text_keys_test(monkeypatch):
    """One side's keys integers, the other's text: keys are compared as text (1 pairs with "1");
    rows=True keeps text keys too."""
    ref, cand = _int_pair(6, conflicts=False)
    cand_txt = cand.astype({"query_id": str})
    kw = dict(scale=S, out_of_scale="drop")
    used = _spy_int_keys(monkeypatch)
    for c, rows in ((cand_txt, False), (cand, True)):
        used.clear()
        align_duckdb(ref, c, **kw, by=("query_id",), rows=rows)
        assert used == [frozenset({"doc_id"}) if not rows else frozenset()]
        p = _pandas(ref, c, **kw)
        res = align_duckdb(ref, c, **kw, by=("query_id",), rows=rows)
        assert res.report.n_pairs == p.report.n_pairs > 200
        assert_same(p, res, ("query_id",))


def wide_integer_keys_stay_text_test(tmp_path, monkeypatch):
    """Unsigned 64-bit ids beyond BIGINT (2^63 + 5, 2^64 - 1) are compared as text, as before (no
    overflow); int32 against int64 keys as integers."""
    ref = pd.DataFrame({"query_id": np.array([1, 1, 2, 2], np.uint64),
                        "doc_id": np.array([2 ** 63 + 5, 7, 2 ** 64 - 1, 3], np.uint64), "relevance": [0, 1, 2, 3]})
    cand = ref.assign(relevance=[0, 1, 2, 2])
    ref.to_parquet(tmp_path / "r.parquet")
    cand.to_parquet(tmp_path / "c.parquet")
    for a, b in ((ref, cand), (str(tmp_path / "r.parquet"), str(tmp_path / "c.parquet"))):
        p = _pandas(a, b, scale=S)
        res = align_duckdb(a, b, scale=S, by=("query_id",))
        assert res.report.n_pairs == 4
        assert_same(p, res, ("query_id",))
    small = ref.assign(query_id=ref["query_id"].astype(np.int32), doc_id=np.arange(4, dtype=np.int64))
    used = _spy_int_keys(monkeypatch)
    res = align_duckdb(small, small.assign(query_id=small["query_id"].astype(np.int64)), scale=S, by=("query_id",))
    assert used == [frozenset({"query_id", "doc_id"})] and res.report.n_pairs == 4


@pytest.mark.parametrize("by", [("query_id",), (), ("query_id", "doc_id")])
@pytest.mark.parametrize("unj", ["drop", "keep", 0])
def one_pass_on_key_fingerprints_test(pairs, monkeypatch, by, unj):
    """Above MERGED_TEXT_SHARE of group_rows the one-pass group-by groups text keys on their
    fingerprint (the cells' key columns carried as values): the report and cells equal the pandas
    path's, with identical repeats, unmatched keys, missing keys and labels, out-of-scale labels."""
    import metaeval.data.engines.plan as plan

    (r, c), _ = pairs
    r, c = _no_conflicts(r, "relevance"), _no_conflicts(c, "relevance")
    monkeypatch.setenv("METAEVAL_DUCKDB_GROUP_ROWS", str(len(r) + len(c)))  # one pass, above the share
    fps, real_fp = [], plan._fingerprint
    monkeypatch.setattr(plan, "_fingerprint", lambda *a: fps.append(1) or real_fp(*a))
    merged, real_merged = [], plan._merged
    monkeypatch.setattr(plan, "_merged", lambda *a, **k: merged.append(real_merged(*a, **k)) or merged[-1])
    kw = dict(scale=S, out_of_scale="drop", duplicates="error", unjudged=unj)  # (refusal columns: two passes)
    p = _pandas(r, c, **kw)
    res = align_duckdb(r, c, **kw, by=by)
    assert len(merged) == 1 and merged[0] is not None and fps  # the one pass ran, on fingerprints
    fates = {f for _, f in p.report.counts}
    assert {"missing_key", "missing_label", "out_of_scale_dropped", "duplicate_identical", "unmatched"} <= fates
    assert_same(p, res, by)
