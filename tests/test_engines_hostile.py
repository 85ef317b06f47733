"""The engines under hostile settings and events (issue 26, items 9, 10, 12, 13 and 14).

Each test failed before the change it guards (stated in its docstring) and passes after it:
* settings: a DuckDB memory limit of ``abc``, ``0`` or ``-5`` (DuckDB itself took ``-5`` as 80% of
  the machine's memory and raised a raw ParserException for the others), a group size of ``abc``
  (a ValueError traceback), negative byte limits (accepted);
* a signal during the first DuckDB pass over a fast-read file (the pass's failure was taken for a file
  the fast reader cannot read: the pandas reader read it again and the run finished with exit 0);
* an input replaced or modified while a run reads it (the report counted rows of neither file);
* Parquet folders with mixed schemas (a DuckDB traceback) or holding other kinds of files (read as if
  the Parquet files were all there was);
* a spill folder without room for the spill the inputs need (DuckDB filled the disk).
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

import metaeval  # noqa: E402
from metaeval import InputError  # noqa: E402
from metaeval.cli import main  # noqa: E402
from metaeval.data import io as mio  # noqa: E402
from metaeval.data.engines import duckdb_engine as de  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _qrels(path: Path, n: int = 200, seed: int = 0, flip: float = 0.3) -> Path:
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, 4, n)
    lab = np.where(rng.random(n) < flip, (lab + 1) % 4, lab)
    path.write_text("".join(f"q{i % 7} 0 d{i} {v}\n" for i, v in enumerate(lab)))
    return path


@pytest.fixture
def qrels_pair(tmp_path):
    return _qrels(tmp_path / "h.txt", seed=1, flip=0), _qrels(tmp_path / "j.txt", seed=1)


# -- settings -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["abc", "0", "-5", "0GB", "10KB", "1.5"])
def duckdb_memory_limit_setting_is_checked_test(qrels_pair, monkeypatch, capsys, value):
    monkeypatch.setenv("METAEVAL_DUCKDB_MEMORY_LIMIT", value)
    assert main(["agree", *map(str, qrels_pair), "--engine", "duckdb"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "METAEVAL_DUCKDB_MEMORY_LIMIT" in err and repr(value) in err and "at least 1MB" in err, err
    assert "Fix: set METAEVAL_DUCKDB_MEMORY_LIMIT=4GB" in err
    monkeypatch.delenv("METAEVAL_DUCKDB_MEMORY_LIMIT")
    with pytest.raises(InputError, match="memory_limit is not a usable memory size"):
        de.align_duckdb(*qrels_pair, memory_limit=value)


def duckdb_memory_limit_setting_accepts_sizes_test(qrels_pair, monkeypatch):
    for value in ("1.5GB", "1500mb", "2 GiB", "64MB"):
        monkeypatch.setenv("METAEVAL_DUCKDB_MEMORY_LIMIT", value)
        assert de.memory_limit_setting() == value
        assert de.align_duckdb(*qrels_pair).report.n_pairs == 200


@pytest.mark.parametrize("value", ["abc", "0", "-1", "1e6"])
def duckdb_group_rows_setting_is_checked_test(qrels_pair, monkeypatch, capsys, value):
    monkeypatch.setenv("METAEVAL_DUCKDB_GROUP_ROWS", value)
    assert main(["agree", *map(str, qrels_pair), "--engine", "duckdb"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "METAEVAL_DUCKDB_GROUP_ROWS" in err and repr(value) in err, err
    assert "positive whole number" in err and "Fix: set METAEVAL_DUCKDB_GROUP_ROWS=" in err


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize("name", ["MAX_DECOMPRESSED_BYTES", "MAX_LINE_BYTES"])
@pytest.mark.parametrize("value", ["-1", "0", "abc"])
def byte_limit_settings_are_checked_test(qrels_pair, monkeypatch, capsys, engine, name, value):
    monkeypatch.setenv(f"METAEVAL_{name}", value)
    assert main(["agree", *map(str, qrels_pair), "--engine", engine]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"METAEVAL_{name}" in err and repr(value) in err, err
    assert "positive whole number of bytes" in err and f"Fix: set METAEVAL_{name}=" in err


def byte_limit_attribute_is_checked_test(qrels_pair, monkeypatch):
    monkeypatch.setattr(mio, "MAX_DECOMPRESSED_BYTES", -1)
    with pytest.raises(InputError, match=r"metaeval\.data\.io\.MAX_DECOMPRESSED_BYTES is not a positive"):
        metaeval.read_qrels(qrels_pair[0])


# -- signals during the first DuckDB pass --------------------------------------------------------------
_CHILD = """import sys
sys.path.insert(0, {root!r})
from metaeval.data.engines import duckdb_engine as de
{body}
"""

_FIRST_PASS = """
    once = []
    def hook(real):
        def run(self, sql):
            # the first pass over a fast-read file (the one-pass group-by, or the counting pass of the
            # two-pass path): long, as on a big file
            if ("GROUP BY _fate" in sql or "bit_or(_bit)" in sql) and not once:
                once.append(1)
                print("ready", flush=True)
                # (a query DuckDB checks for interruption often: a filtered scan, many short tasks)
                self.con.execute("SELECT count(*) FROM range(10000000000) WHERE hash(range) % 1000 = 1").fetchall()
            return real(self, sql)
        return run
    de._Duck.rows, de._Duck.frame = hook(de._Duck.rows), hook(de._Duck.frame)
    import sys
    from metaeval.cli import main
    sys.exit(main(["agree", {ref!r}, {cand!r}, "--engine", "duckdb"]))
"""


def _signal_child(tmp_path, body, sig):
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT), METAEVAL_DUCKDB_MEMORY_LIMIT="64MB")
    p = subprocess.Popen([sys.executable, "-c", _CHILD.format(root=str(ROOT), body=textwrap.dedent(body))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()
        time.sleep(0.5)
        p.send_signal(sig)
        out, err = p.communicate(timeout=90)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, err


@pytest.mark.parametrize("sig, status, said", [(signal.SIGTERM, 143, ""), (signal.SIGINT, 130, "interrupted")])
def signal_during_the_first_pass_stops_the_run_test(tmp_path, sig, status, said):
    """Before: the interrupted first pass counted as a file the fast reader could not read; the pandas
    reader read it again and the run finished (exit 0, the results printed)."""
    ref, cand = _qrels(tmp_path / "h.txt", seed=1, flip=0), _qrels(tmp_path / "j.txt", seed=1)
    rc, out, err = _signal_child(tmp_path, _FIRST_PASS.format(ref=str(ref), cand=str(cand)), sig)
    assert rc == status, (rc, out, err)
    assert "cohen_kappa" not in out and "Traceback" not in err, (out, err)
    assert said in err
    assert not list(tmp_path.glob("metaeval-duckdb-*"))


# -- an input replaced or modified while a run reads it --------------------------------------------------
def _rewrite(path: Path, how: str):
    if how == "replace":  # another file renamed over it (what a download or an export does)
        tmp = path.with_suffix(".new")
        _qrels(tmp, n=300, seed=9)
        os.replace(tmp, path)
    else:  # appended to in place
        with open(path, "a") as fh:
            fh.write("q0 0 extra 1\n")


@pytest.mark.parametrize("how", ["replace", "append"])
def duckdb_input_changed_during_the_run_is_refused_test(qrels_pair, monkeypatch, how):
    """Before: the report counted the rows of whichever version each query read (issue 26 item 9: 3,000,000
    rows, 2,999,000 duplicate_identical and 0 pairs), and the run succeeded."""
    done = []

    def hook(real):
        def run(self, sql):
            out = real(self, sql)
            if ("GROUP BY _fate" in sql or "bit_or(_bit)" in sql) and not done:  # after the first pass
                done.append(1)
                _rewrite(qrels_pair[1], how)
            return out
        return run

    monkeypatch.setattr(de._Duck, "rows", hook(de._Duck.rows))
    monkeypatch.setattr(de._Duck, "frame", hook(de._Duck.frame))
    with pytest.raises(InputError) as exc:
        metaeval.align(*qrels_pair, engine="duckdb", rows=False)
    msg = str(exc.value)
    assert done and str(qrels_pair[1]) in msg and "changed while it was read" in msg, msg
    assert ("replaced by another file" if how == "replace" else " bytes)") in msg
    assert len(msg.splitlines()) == 1


@pytest.mark.parametrize("how", ["replace", "append"])
def pandas_input_changed_during_the_run_is_refused_test(qrels_pair, monkeypatch, how):
    from metaeval.data import alignment

    real = alignment._load
    done = []

    def load(src, *a, **k):
        out = real(src, *a, **k)
        if not done:  # the reference is read: the candidate changes before it is
            done.append(1)
            _rewrite(qrels_pair[0], how)
        return out

    monkeypatch.setattr(alignment, "_load", load)
    with pytest.raises(InputError, match="changed while it was read") as exc:
        metaeval.align(*qrels_pair, engine="pandas")
    assert str(qrels_pair[0]) in str(exc.value)


def file_states_see_an_append_test(tmp_path):
    path = _qrels(tmp_path / "q.txt")
    before = mio.file_states([path])
    with open(path, "a") as fh:
        fh.write("q0 0 extra 1\n")
    with pytest.raises(InputError, match=r"size 2\d+ -> 2\d+ bytes"):
        mio.check_unchanged(before)
    assert metaeval.read_qrels(path).shape[0] == 201  # an unchanged file reads as before


def unchanged_inputs_align_test(qrels_pair):
    for engine in ("pandas", "duckdb"):
        p = metaeval.align(*qrels_pair, engine=engine)
        assert p.report.n_pairs == 200 and p.report.engine == engine


# -- Parquet folders -------------------------------------------------------------------------------------
def _parquet_folder(folder: Path, *, other=None, renamed=False) -> Path:
    folder.mkdir()
    df = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["a", "b", "c", "d"], "relevance": [0, 1, 2, 3]})
    df.iloc[:2].to_parquet(folder / "part-0.parquet")
    (df.iloc[2:].rename(columns={"relevance": "rel"}) if renamed else df.iloc[2:]).to_parquet(folder / "part-1.parquet")
    (folder / "_SUCCESS").write_text("")          # a marker: skipped, as Spark and Hive skip it
    (folder / ".part-0.parquet.crc").write_text("x")
    if other:
        (folder / other).write_text("query_id,doc_id,relevance\n9,z,1\n")
    return folder


def parquet_folder_with_mixed_schemas_is_one_line_test(tmp_path, capsys):
    """Before: a DuckDB traceback (a Binder Error from read_parquet)."""
    folder = _parquet_folder(tmp_path / "p", renamed=True)
    with pytest.raises(InputError) as exc:
        metaeval.align(folder, folder, engine="duckdb")
    msg = str(exc.value)
    assert "different columns" in msg and "part-0.parquet (query_id, doc_id, relevance)" in msg, msg
    assert "part-1.parquet (query_id, doc_id, rel)" in msg
    assert main(["agree", str(folder), str(folder), "--engine", "duckdb"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "different columns" in err


def parquet_folder_with_other_files_is_refused_test(tmp_path):
    """Before: the folder's Parquet files were read and the CSV beside them silently ignored (a shared
    temporary folder read every Parquet file under it)."""
    folder = _parquet_folder(tmp_path / "p", other="extra.csv")
    with pytest.raises(InputError) as exc:
        metaeval.align(folder, folder, engine="duckdb")
    msg = str(exc.value)
    assert "1 file(s) that are not Parquet (extra.csv) beside 2 Parquet file(s)" in msg, msg


def parquet_folder_says_what_was_read_test(tmp_path):
    folder = _parquet_folder(tmp_path / "p")
    rep = metaeval.align(folder, folder, engine="duckdb").report
    want = [str(folder / "part-0.parquet"), str(folder / "part-1.parquet")]
    assert rep.read == {"reference": want, "candidate": want}
    assert rep.n_pairs == 4 and "4 rows from 2 files" in str(rep)
    assert rep.engine == "duckdb"


# -- the spill folder's free space ----------------------------------------------------------------------
def spill_without_room_is_refused_before_spilling_test(tmp_path, monkeypatch):
    """Before: nothing looked at the free space; DuckDB spilled until the disk was full (2 x 100M rows
    need more than 8.5 GB). 2 x 20,000 rows at a 1MB limit need about 40,000 x 56 - 1,000,000 bytes."""
    ref, cand = _qrels(tmp_path / "h.txt", n=20_000, flip=0), _qrels(tmp_path / "j.txt", n=20_000)
    seen = []

    def disk_usage(path):
        seen.append(path)
        return type("usage", (), {"total": 10**9, "used": 10**9 - 1000, "free": 1000})()

    monkeypatch.setattr(de.shutil, "disk_usage", disk_usage)
    monkeypatch.setenv("METAEVAL_DUCKDB_MEMORY_LIMIT", "1MB")
    with pytest.raises(InputError) as exc:
        metaeval.align(ref, cand, engine="duckdb")
    msg = str(exc.value)
    need = 40_000 * de.SPILL_BYTES_PER_ROW - 1_000_000
    assert f"aligning 40,000 rows may spill about {need / 1e6:.1f} MB beyond the memory limit 1MB" in msg, msg
    assert "has 0.0 MB free" in msg
    assert "TMPDIR" in msg and "METAEVAL_DUCKDB_MEMORY_LIMIT" in msg
    assert seen and "metaeval-duckdb-" in seen[0]        # the engine's own spill folder was measured
    assert not list(Path(seen[0]).parent.glob(Path(seen[0]).name))  # and removed


def spill_with_room_runs_test(tmp_path, monkeypatch):
    ref, cand = _qrels(tmp_path / "h.txt", n=20_000, flip=0), _qrels(tmp_path / "j.txt", n=20_000)
    monkeypatch.setattr(de.shutil, "disk_usage",
                        lambda path: type("usage", (), {"total": 10**12, "used": 0, "free": 10**12})())
    monkeypatch.setenv("METAEVAL_DUCKDB_MEMORY_LIMIT", "16MB")  # (1MB: a spill of 2 MB, but DuckDB runs out)
    assert metaeval.align(ref, cand, engine="duckdb", rows=False).report.n_pairs == 20_000


def spill_estimate_counts_parquet_footers_test(tmp_path):
    folder = _parquet_folder(tmp_path / "p")
    assert de._parquet_rows(sorted(str(p) for p in folder.glob("*.parquet"))) == 4
