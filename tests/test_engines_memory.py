"""The DuckDB engine under memory pressure and signals (issue 19, findings 8 and 10).

Finding 8: two Parquet files with integer keys in document order (topics interleaved row by row) ran
out of memory in ``plan._fused`` with a raw ``_duckdb.OutOfMemoryException`` (100M rows a side at the
default 1.5 GB limit). The cause, measured: a text column in the group key whose value changes from
row to row; the same pair shrunk to 500k rows a side fails the same way on 33264bd at a 32 MB limit
(checked by hand with that tree: ``OutOfMemoryException`` from ``plan._fused``). Expected values come
from the pandas path (``metaeval.align``, the reference engine) on the same files.

Finding 10: spill folders left by a killed run; SIGINT's 32-line "Query interrupted" traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import metaeval  # noqa: E402
from metaeval import InputError, Scale  # noqa: E402
from metaeval.data.engines import duckdb_engine as de  # noqa: E402
from metaeval.data.engines import plan  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _doc_order_pair(folder: Path, n: int, topics: int = 500, seed: int = 0):
    """query_id int32, doc_id int64, rows in doc order (topic = doc mod topics); the candidate lacks 1% of
    the documents and has 1% others, and each side repeats 0.1% of its rows identically."""
    rng = np.random.default_rng(seed)
    doc = np.arange(n, dtype=np.int64)
    ref = rng.choice(4, size=n, p=[0.5, 0.25, 0.15, 0.10]).astype(np.int32)
    cand = np.where(rng.random(n) < 0.6, ref, np.clip(ref + rng.choice([-1, 1], size=n), 0, 3)).astype(np.int32)
    drop = rng.random(n) < 0.01
    cdoc = np.concatenate([doc[~drop], n + np.flatnonzero(drop)])
    clab = np.concatenate([cand[~drop], cand[drop]])
    paths = []
    for name, d, lab in (("ref", doc, ref), ("cand", cdoc, clab)):
        rep = np.repeat(np.arange(len(d)), np.where(rng.random(len(d)) < 0.001, 2, 1))
        d, lab = d[rep], lab[rep]
        t = pa.table({"query_id": pa.array((d % topics + 1000).astype(np.int32)), "doc_id": pa.array(d),
                      "relevance": pa.array(lab)})
        path = folder / f"{name}.parquet"
        pq.write_table(t, path, row_group_size=1 << 17)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def doc_order(tmp_path_factory):
    return _doc_order_pair(tmp_path_factory.mktemp("docorder"), 500_000)


@pytest.fixture(scope="module")
def pandas_result(doc_order):
    return metaeval.align(*doc_order, scale=Scale((0, 1, 2, 3)), by=("query_id",), rows=False, engine="pandas")


def _same(res, ref):
    assert res.report.n_input == ref.report.n_input
    assert res.report.counts == ref.report.counts
    assert res.report.n_pairs == ref.report.n_pairs
    a = res.cells.sort_values(list(res.cells.columns[:-1])).reset_index(drop=True)
    b = ref.cells.sort_values(list(ref.cells.columns[:-1])).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


def test_doc_order_int_keys_fit_a_small_memory_limit(doc_order, pandas_result):
    """On 33264bd this pair at 32 MB raised _duckdb.OutOfMemoryException from plan._fused; now it aligns,
    with the pandas path's report and cells."""
    res = de.align_duckdb(*doc_order, scale=Scale((0, 1, 2, 3)), by=("query_id",), memory_limit="32MB")
    _same(res, pandas_result)


def test_group_rows_follow_the_memory_limit():
    con = duckdb.connect()
    try:
        assert de._group_rows(con, "1500MB") == de.GROUP_ROWS
        assert de._group_rows(con, "150MB") == de.GROUP_ROWS // 10
        assert de._group_rows(con, "3GB") == 2 * de.GROUP_ROWS
    finally:
        con.close()
    assert de._memory_bytes("1.3 GiB") == int(1.3 * 2**30) and de._memory_bytes("abc") is None


def test_retry_in_passes_equals_pandas(doc_order, pandas_result, monkeypatch):
    """The first (one-pass) group-by runs out of memory: it runs again in 4 hash passes, same result."""
    seen = []
    real = de._Duck.frame

    def frame(self, sql):
        if "bit_or(_bit)" in sql:
            seen.append(sql.count(" % 4 = "))
            if len(seen) == 1:
                raise duckdb.OutOfMemoryException("Out of Memory Error: (test)")
        return real(self, sql)

    monkeypatch.setattr(de._Duck, "frame", frame)
    for group_rows in ("100000000", "1000"):  # on the key text, then on the fingerprint
        seen.clear()
        monkeypatch.setenv("METAEVAL_DUCKDB_GROUP_ROWS", group_rows)
        res = de.align_duckdb(*doc_order, scale=Scale((0, 1, 2, 3)), by=("query_id",))
        assert seen == [0, 2, 2, 2, 2]  # one failed pass, then 4 (two sides filtered each)
        _same(res, pandas_result)


def test_out_of_memory_everywhere_is_an_input_error(doc_order):
    with pytest.raises(InputError) as exc:
        de.align_duckdb(*doc_order, scale=Scale((0, 1, 2, 3)), by=("query_id",), memory_limit="8MB")
    msg = str(exc.value)
    assert "ran out of memory" in msg and "METAEVAL_DUCKDB_MEMORY_LIMIT" in msg and "memory_limit=" in msg
    assert str(doc_order[0]) in msg


def test_retry_gives_up_after_the_last_pass(monkeypatch):
    calls = []

    class Ex:
        dialect = plan.DUCKDB
        out_of_memory = duckdb.OutOfMemoryException

    def query(passes, i):
        calls.append(passes)
        raise duckdb.OutOfMemoryException("no")

    with pytest.raises(duckdb.OutOfMemoryException):
        plan._in_passes(plan._Plan(Ex(), plan._q), query, ["a"])
    assert calls == [1, 4, 16, 64]


# -- spill folders -----------------------------------------------------------------------------------
def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_spill_folder_of_a_dead_process_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(de.tempfile, "tempdir", str(tmp_path))
    dead = tmp_path / f"metaeval-duckdb-{_dead_pid()}-abc123"
    alive = tmp_path / f"metaeval-duckdb-{os.getppid()}-def456"
    legacy = tmp_path / "metaeval-duckdb-xyz"
    for d in (dead, alive, legacy):
        d.mkdir()
        (d / "duckdb_temp_block.tmp").write_bytes(b"x" * 100)
    con = de.connect(memory_limit="64MB", threads=1)
    try:
        left = sorted(p.name for p in tmp_path.iterdir())
        assert dead.name not in left and alive.name in left and legacy.name in left
        mine = [n for n in left if n.startswith(f"metaeval-duckdb-{os.getpid()}-")]
        assert len(mine) == 1  # this connection's folder, named with this process's id
    finally:
        con.close()
        for n in mine:
            de._release(str(tmp_path / n))


def test_align_leaves_no_spill_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(de.tempfile, "tempdir", str(tmp_path))
    ref = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [1, 2, 3], "relevance": [0, 1, 1]})
    before = signal.getsignal(signal.SIGTERM)   # (the engine's own while another test's connection is open)
    de.align_duckdb(ref, ref)
    assert not list(tmp_path.glob("metaeval-duckdb-*"))
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back


_CHILD = """import sys
sys.path.insert(0, {root!r})
from metaeval.data.engines import duckdb_engine as de
{body}
"""


def _run_child(tmp_path, body, sig):
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", _CHILD.format(root=str(ROOT), body=textwrap.dedent(body))], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == "ready"
    deadline = time.time() + 20
    while not list(tmp_path.glob("metaeval-duckdb-*/*.tmp")) and time.time() < deadline:
        time.sleep(0.05)  # DuckDB is spilling
    assert list(tmp_path.glob("metaeval-duckdb-*")), "the child made no spill folder"
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err


_SPILLING = """
    con = de.connect(memory_limit="64MB", threads=1)
    print("ready", flush=True)
    con.execute("SELECT count(DISTINCT hash(range)) FROM range(3000000000)").fetchall()
"""


def test_sigterm_during_a_spilling_query_removes_the_spill_folder(tmp_path):
    rc, out, err = _run_child(tmp_path, _SPILLING, signal.SIGTERM)
    assert rc != 0
    assert not list(tmp_path.glob("metaeval-duckdb-*"))


def test_sigterm_during_align_exits_143_and_cleans_up(tmp_path):
    body = """
    import duckdb
    real = de._Duck.frame
    def rows(self, sql):  # the first query of the plan runs long (and spills)
        self.con.execute("SELECT count(DISTINCT hash(range)) FROM range(3000000000)").fetchall()
        return real(self, sql)
    de._Duck.frame = rows  # (the plan's one group-by; frames: every query that returns counts)
    import pandas as pd
    ref = pd.DataFrame({"query_id": [1], "doc_id": [1], "relevance": [1]})
    print("ready", flush=True)
    de.align_duckdb(ref, ref, memory_limit="64MB", threads=1)
"""
    rc, out, err = _run_child(tmp_path, body, signal.SIGTERM)
    assert rc == 143, err
    assert "Traceback" not in err
    assert not list(tmp_path.glob("metaeval-duckdb-*"))


def test_sigint_during_align_is_a_keyboard_interrupt(tmp_path):
    body = """
    real = de._Duck.frame
    def rows(self, sql):
        self.con.execute("SELECT count(DISTINCT hash(range)) FROM range(3000000000)").fetchall()
        return real(self, sql)
    de._Duck.frame = rows  # (the plan's one group-by; frames: every query that returns counts)
    import pandas as pd
    ref = pd.DataFrame({"query_id": [1], "doc_id": [1], "relevance": [1]})
    print("ready", flush=True)
    try:
        de.align_duckdb(ref, ref, memory_limit="64MB", threads=1)
    except KeyboardInterrupt as exc:
        print("KeyboardInterrupt:", exc, flush=True)
"""
    rc, out, err = _run_child(tmp_path, body, signal.SIGINT)
    assert "KeyboardInterrupt: interrupted" in out, (out, err)
    assert rc == 0
    assert not list(tmp_path.glob("metaeval-duckdb-*"))
