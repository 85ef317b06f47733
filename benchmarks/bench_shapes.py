"""Benchmark: the DuckDB engine on four shapes of the same judgments, against a bare DuckDB query (issue 19).

Run as ``python benchmarks/bench_shapes.py [--rows 100M] [--topics 500,5000] [--shapes all]
[--qrels-lines 2M] [--workdir DIR] [--save] [--note TEXT] [--delete-data]``.

Shapes (``--shapes``, comma-separated): ``str-topic``, ``str-doc``, ``int-topic``, ``int-doc``:
* ``str``: ``query_id`` and ``doc_id`` text (``"100007"``, ``"msmarco_passage_123"``); ``int``:
  ``query_id`` int32, ``doc_id`` int64.
* ``topic``: rows sorted by topic (then document); ``doc``: rows in document order, topic = doc mod
  topics (the topics interleaved row by row: the shape that ran out of memory, issue 19 finding 8).
Every shape holds the same judgments: labels are a hash of the document (reference grades 0-3 with
P = .50/.25/.15/.10, the candidate equal with probability 0.6, else one grade up or down), the
candidate lacks 1% of the documents and has 1% others, and each side repeats 0.1% of its rows.
Parquet files are written with pyarrow's default row groups (1 Mi rows).

Per shape and topic count, each in a fresh process (``_measure.run_job``: wall time, peak RSS of the
process and of its process tree, polled with psutil):
* ``engine``: ``metaeval.align(ref, cand, engine="duckdb", by=("query_id",), rows=False)`` and
  ``cohen_kappa(..., cluster="query_id", n_resamples=--resamples)``, end to end (imports included),
  default settings (the 1.5 GB memory limit): targets <= 120 s and <= 4 GB.
* ``floor``: a bare DuckDB query on a connection with the same memory limit, threads and a spill
  folder: read both files, join them on the keys, count label pairs per topic (no fates, no
  duplicate handling: the least any engine design pays). The ratio engine align / floor is printed.
* the two run in turn ``--repeats`` times (default 3 up to 10M rows, else 1), each after both files
  were read once (``_measure.warm``: the page cache holds them for both; a cold first read made the
  engine look 10-17x slower than the floor that ran after it). Times are means; the ratio is the
  mean of the runs' ratios with its standard error (the machine's own noise is +-15% per run).

``--qrels-lines N`` (default 2M; 0 skips it): the same for TREC qrels text files (str keys, both
orders), engine ``align`` alone against the floor: aim <= 2.5x.

Generated data goes to ``--workdir`` (default ``$TMPDIR/metaeval_shapes``, outside the repository;
about 1.2 GB per int pair and 2.5 GB per str pair at 100M rows); ``--delete-data`` removes each pair
after its cases.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import _measure as m

TIME_TARGET_S = 120.0
MEM_TARGET_MB = 4 * 1024
RATIO_TARGET = 2.5
SHAPES = ("str-topic", "str-doc", "int-topic", "int-doc")
RESULTS = Path(__file__).resolve().parent / "results" / "bench_shapes.txt"
PRELOAD = ("numpy", "pandas", "pyarrow", "duckdb", "metaeval.data.alignment", "metaeval.data.engines.duckdb_engine",
           "metaeval.agreement.coefficients", "metaeval.core.resample")
P_LABEL = (0.50, 0.25, 0.15, 0.10)


# ------------------------------------------------------------------------------------------------ data
def _mix(x, salt):
    """A uniform number in [0, 1) per integer (splitmix64)."""
    import numpy as np

    with np.errstate(over="ignore"):
        z = x.astype(np.uint64) + np.uint64(salt) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def _rows(d, n, side):
    """Labels of documents ``d`` on one side (and which of them the side has); repeats appended in place."""
    import numpy as np

    orig = np.where(d >= n, d - n, d)
    ref = np.searchsorted(np.cumsum(P_LABEL), _mix(orig, 1) * 0.999999).astype(np.int32)
    if side == 0:
        keep = d < n
        lab = ref
    else:
        keep = (_mix(orig, 3) < 0.01) == (d >= n)          # 1% of the documents swapped for others
        up = np.where(_mix(orig, 5) < 0.6, 1, -1)
        moved = ref + up
        moved = np.where((moved < 0) | (moved > 3), ref - up, moved)
        lab = np.where(_mix(orig, 2) < 0.6, ref, moved).astype(np.int32)
    d, lab = d[keep], lab[keep]
    rep = np.where(_mix(d, 7 + side) < 0.001, 2, 1)          # identical repeats
    return np.repeat(d, rep), np.repeat(lab, rep)


def job_generate(steps, path, n, topics, shape, side, fmt):
    """Child job: write one side (Parquet or qrels text) of a shape."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    kind, order = shape.split("-")
    qid = np.arange(topics, dtype=np.int32) * 7 + 100_000
    if fmt == "qrels":
        import pyarrow.csv as pacsv

        schema = pa.schema([("q", pa.string()), ("i", pa.string()), ("d", pa.string()), ("r", pa.int32())])
        w = pacsv.CSVWriter(path + ".part", schema, write_options=pacsv.WriteOptions(
            include_header=False, delimiter=" ", quoting_style="none"))
    else:
        import pyarrow.parquet as pq

        typ = (pa.int32(), pa.int64()) if kind == "int" else (pa.string(), pa.string())
        schema = pa.schema([("query_id", typ[0]), ("doc_id", typ[1]), ("relevance", pa.int32())])
        w = pq.ParquetWriter(path + ".part", schema, compression="snappy")
    rows = 0

    def emit(d):
        nonlocal rows
        d, lab = _rows(d, n, side)
        q = pa.array(qid[d % topics])
        if kind == "str" or fmt == "qrels":
            q = pc.cast(q, pa.string())
            doc = pc.binary_join_element_wise("msmarco_passage_", pc.cast(pa.array(d), pa.string()), "")
        else:
            doc = pa.array(d)
        cols = [q, doc, pa.array(lab)]
        if fmt == "qrels":
            cols.insert(1, pa.array(np.full(len(d), "0", dtype=object), pa.string()))
        if len(d):
            w.write_table(pa.Table.from_arrays(cols, schema=schema))
        rows += len(d)

    with steps("generate"):
        upto = 2 * n if side == 1 else n
        if order == "doc":
            for a in range(0, upto, 1 << 20):
                emit(np.arange(a, min(a + (1 << 20), upto), dtype=np.int64))
        else:
            for t in range(topics):
                emit(np.arange(t, upto, topics, dtype=np.int64))
        w.close()
        os.replace(path + ".part", path)
    return {"rows": rows}


def ensure(workdir: Path, n, topics, shape, fmt):
    ext = "txt" if fmt == "qrels" else "parquet"
    paths = [workdir / f"{fmt}_{shape}_{n}_{topics}_{s}.{ext}" for s in ("ref", "cand")]
    for si, p in enumerate(paths):
        if not p.exists():
            job = m.run_job(f"generate {p.name}", "bench_shapes", "job_generate",
                            {"path": str(p), "n": n, "topics": topics, "shape": shape, "side": si, "fmt": fmt},
                            preload=("pyarrow",))
            if not job.ok:
                raise SystemExit(f"generation failed: {job.stderr}")
    return paths


# -------------------------------------------------------------------------------------------- jobs
def job_engine(steps, ref, cand, resamples):
    """Child job: the engine's align (and a cluster kappa when resamples > 0)."""
    import metaeval

    with steps("align"):
        p = metaeval.align(ref, cand, scale=metaeval.Scale((0, 1, 2, 3)), engine="duckdb", by=("query_id",),
                           rows=False)
    out = {"pairs": int(p.report.n_pairs), "counts": {f"{s}:{f}": int(v) for (s, f), v in p.report.counts.items()}}
    if resamples:
        with steps("kappa"):
            e = metaeval.cohen_kappa(p, cluster="query_id", n_resamples=resamples, rng=0)
        out.update(estimate=float(e.estimate), low=float(e.ci.low), high=float(e.ci.high))
    return out


def job_floor(steps, ref, cand, fmt):
    """Child job: the bare DuckDB query (same memory limit, threads and a spill folder as the engine)."""
    import shutil

    import duckdb

    from metaeval.data.engines.duckdb_engine import DEFAULT_MEMORY_LIMIT

    tmp = tempfile.mkdtemp(prefix="bench-shapes-floor-")
    con = duckdb.connect(config={"memory_limit": os.environ.get("METAEVAL_DUCKDB_MEMORY_LIMIT", DEFAULT_MEMORY_LIMIT),
                                 "threads": os.cpu_count() or 1, "temp_directory": tmp,
                                 "preserve_insertion_order": False})
    con.execute("SET enable_progress_bar = false")

    def src(p):
        if fmt == "qrels":
            return (f"(SELECT q AS query_id, d AS doc_id, r AS relevance FROM read_csv('{p}', delim = ' ', "
                    f"header = false, columns = {{'q': 'VARCHAR', 'i': 'VARCHAR', 'd': 'VARCHAR', 'r': 'INTEGER'}}))")
        return f"read_parquet('{p}')"

    try:
        with steps("floor"):
            rows = con.execute(
                f"SELECT r.query_id, r.relevance, c.relevance, count(*) FROM {src(ref)} r JOIN {src(cand)} c "
                f"ON r.query_id = c.query_id AND r.doc_id = c.doc_id GROUP BY ALL").fetchall()
    finally:
        con.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"cells": len(rows), "joined": int(sum(r[3] for r in rows))}


# ---------------------------------------------------------------------------------------------- main
def _n(s: str) -> int:
    s = s.strip().upper()
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}.get(s[-1:], 1)
    return int(float(s[:-1] if s[-1:] in "KMG" else s) * mult)


def _why(job):
    lines = [ln for ln in job.stderr.strip().splitlines() if ln.strip()]
    return lines[-1][:160] if lines else f"exit {job.returncode}"


def run_case(args, fmt, shape, topics, n, verdicts, table):
    paths = ensure(args.workdir, n, topics, shape, fmt)
    kw = {"ref": str(paths[0]), "cand": str(paths[1])}
    label = f"{fmt} {shape} {m._label(n)} x {topics}"
    repeats = args.repeats if args.repeats else (3 if n <= 10_000_000 else 1)
    engs, flos = [], []
    for _ in range(repeats):  # engine and floor in turn, each after the files were read once more
        m.warm(paths)
        engs.append(m.run_job(f"engine {shape}", "bench_shapes", "job_engine",
                              {**kw, "resamples": args.resamples if fmt == "parquet" else 0}, preload=PRELOAD,
                              timeout=args.timeout))
        m.warm(paths)
        flos.append(m.run_job(f"floor {shape}", "bench_shapes", "job_floor", {**kw, "fmt": fmt},
                              preload=("duckdb", "metaeval"), timeout=args.timeout))
        if not engs[-1].ok or not flos[-1].ok:
            break
    eng, flo = engs[-1], flos[-1]
    if not eng.ok:
        table.append([label, "FAILED", "-", "-", "-", "-", "-", _why(eng)])
        verdicts.append((label, False, _why(eng)))
        return
    ok = [(e, f) for e, f in zip(engs, flos) if e.ok and f.ok]
    align_s, _ = m.mean_se([e.step("align")["wall_s"] for e in engs if e.ok])
    e2e = max(e.job_s + e.import_s for e in engs if e.ok)
    peak = max(e.peak_mb for e in engs if e.ok)
    floor_s = m.mean_se([f.step("floor")["wall_s"] for _, f in ok])[0] if ok else None
    # the ratio of each repeat (engine and floor run side by side), then their mean and its error
    ratio, ratio_se = m.mean_se([e.step("align")["wall_s"] / f.step("floor")["wall_s"] for e, f in ok]) if ok \
        else (None, None)
    rtxt = (f"{ratio:.2f}x" + (f" ± {ratio_se:.2f}" if len(ok) > 1 else "")) if ratio else "-"
    table.append([label, m.fmt_s(align_s), m.fmt_s(e2e), m.fmt_mb(peak),
                  m.fmt_s(floor_s) if flo.ok else "FAILED", m.fmt_mb(flo.peak_mb) if flo.ok else "-",
                  rtxt, f"{len(ok)} run(s); {eng.result['pairs']:,} pairs"
                  + ("" if not flo.ok or flo.result["joined"] == eng.result["pairs"] else
                     f" (floor joined {flo.result['joined']:,})")])
    if fmt == "parquet":
        verdicts.append((f"{label}: end to end <= {TIME_TARGET_S:.0f} s", e2e <= TIME_TARGET_S, m.fmt_s(e2e)))
        verdicts.append((f"{label}: peak <= {m.fmt_mb(MEM_TARGET_MB)}", peak <= MEM_TARGET_MB, m.fmt_mb(peak)))
    if ratio is not None:
        verdicts.append((f"{label}: align / floor <= {RATIO_TARGET}x (aim; mean of {len(ok)})",
                         ratio <= RATIO_TARGET, rtxt))
    if not flo.ok:
        print(f"  floor {label}: {_why(flo)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="100M", help="rows per side of the Parquet cases (e.g. 10M, 100M; 0 skips)")
    ap.add_argument("--topics", default="500,5000")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--qrels-lines", default="2M", help="lines per side of the qrels text cases (0 skips)")
    ap.add_argument("--resamples", type=int, default=10_000, help="kappa's BCa resamples in the Parquet cases")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "metaeval_shapes")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--repeats", type=int, default=0,
                    help="engine/floor runs per case, in turn (default: 3 up to 10M rows, else 1); the ratio "
                         "printed is the mean of the runs' ratios with its standard error")
    ap.add_argument("--delete-data", action="store_true", help="remove each generated pair after its cases")
    ap.add_argument("--save", nargs="?", const=RESULTS, type=Path, default=None)
    ap.add_argument("--append", action="store_true")
    ap.add_argument("--note", default=None, help="a line for the header (e.g. who else used the machine)")
    args = ap.parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if set(shapes) - set(SHAPES):
        ap.error(f"shapes are {', '.join(SHAPES)}")
    if args.workdir.resolve().is_relative_to(Path(__file__).resolve().parents[1]):
        ap.error("--workdir must be outside the repository")
    args.workdir.mkdir(parents=True, exist_ok=True)
    topics = [int(t) for t in args.topics.split(",") if t.strip()]
    tee = m.Tee(args.save, append=args.append)
    sys.stdout = tee
    try:
        print("bench_shapes: " + " ".join(["python benchmarks/bench_shapes.py",
                                           *(argv if argv is not None else sys.argv[1:])]))
        print(m.machine_header())
        if args.note:
            print(f"note: {args.note}")
        print("DuckDB memory limit: " + os.environ.get("METAEVAL_DUCKDB_MEMORY_LIMIT", "the engine's default"))
        verdicts, table = [], []
        cases = []
        if _n(args.qrels_lines):
            cases += [("qrels", s, t, _n(args.qrels_lines)) for t in topics for s in ("str-topic", "str-doc")]
        if _n(args.rows):
            cases += [("parquet", s, t, _n(args.rows)) for t in topics for s in shapes]
        for fmt, shape, t, n in cases:
            run_case(args, fmt, shape, t, n, verdicts, table)
            if args.delete_data:
                for p in args.workdir.glob(f"{fmt}_{shape}_{n}_{t}_*"):
                    p.unlink()
        print()
        m.print_table(["case", "align", "end to end", "peak", "floor", "floor peak", "align/floor", ""], table)
        print("\ntargets (issue 19):")
        for what, ok, detail in verdicts:
            print(f"  {m.verdict(ok)}  {what}: {detail}")
        load = os.getloadavg()
        print(f"load average at end: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
        print(json.dumps({"cases": len(table)}))
        return 0 if verdicts and all(ok for _, ok, _ in verdicts) else 1
    finally:
        sys.stdout = tee.stdout
        tee.close()


if __name__ == "__main__":
    sys.exit(main())
