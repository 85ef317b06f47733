"""Benchmark: metaeval.read_qrels versus plain pandas.read_csv on a 1,000,000-line qrels file.

Run as ``python benchmarks/bench_read_qrels.py [--lines N] [--repeat K] [--keep DIR]``.

What is measured
----------------
* A seeded, realistic qrels file is written to a temporary directory: string query ids (TREC-style
  numbers and ``rag-`` style names), MS MARCO v1 passage ids, MS MARCO v2 passage ids and MS MARCO
  v2.1 segment ids that contain ``#``; labels 0-3 with a TREC-DL-like skew.
* The file is generated in a child process, and each reader then runs in its **own fresh child
  process** (``python -c``), so no process inherits another's heap. (On Linux ``ru_maxrss`` survives
  ``fork``+``exec``: a child of a parent that had grown to 300 MB reports at least 300 MB. That is
  why the parent stays small.)
* Peak memory: after its imports, the child resets its peak-RSS mark (``echo 5 >
  /proc/self/clear_refs``) and notes its RSS; after one warm-up read and ``--repeat`` timed reads it
  reads the peak (``VmHWM`` in ``/proc/self/status``). Peak MB = VmHWM - RSS after imports: the
  high-water mark of a read, *including the returned DataFrame*, on top of the imported libraries.
  Where ``/proc`` is missing (macOS) it falls back to ``resource.getrusage(RUSAGE_SELF).ru_maxrss``
  minus the same baseline. RSS rather than tracemalloc, because pandas' C parser, pyarrow and its
  string arrays allocate outside Python's allocator, where tracemalloc does not look.
* Time: best wall time of ``--repeat`` reads after the warm-up read (file in the page cache).
* For information, a third row reads with ``dtype=str`` for the id columns: the same output types as
  metaeval (ids exactly as written), still without any validation.
* The pandas baseline is ``pd.read_csv(path, sep=" ", header=None, names=[...])`` as a user would
  write it: no validation, types inferred (numeric-looking ids become int64, so leading zeros would be
  lost) -- it is a speed floor, not an equivalent reader.

Targets: metaeval at most 1.5x the pandas time, and under 400 MB peak.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TIME_RATIO_TARGET = 1.5
PEAK_MB_TARGET = 400.0

_CHILD = r"""
import gc, json, resource, sys, time
path, which, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
import pandas as pd
if which == "metaeval":
    import metaeval, metaeval.io
    fn = lambda: metaeval.read_qrels(path)
elif which == "pandas_str":
    fn = lambda: pd.read_csv(path, sep=" ", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                             dtype={"query_id": str, "iteration": str, "doc_id": str})
else:
    fn = lambda: pd.read_csv(path, sep=" ", header=None, names=["query_id", "iteration", "doc_id", "relevance"])

def status_kb(key):
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None

gc.collect()
method = "ru_maxrss"
try:  # Linux: reset this process's peak-RSS mark, so only what follows counts
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    method = "VmHWM"
except OSError:
    pass
base_kb = status_kb("VmRSS") if method == "VmHWM" else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
df = fn()                        # warm-up (page cache, lazy imports); its peak counts too
n = len(df)
del df
gc.collect()
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    df = fn()
    times.append(time.perf_counter() - t0)
    del df
    gc.collect()
peak_kb = status_kb("VmHWM") if method == "VmHWM" else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if sys.platform == "darwin" and method == "ru_maxrss":
    base_kb, peak_kb = base_kb / 1024, peak_kb / 1024   # bytes there
print(json.dumps({"rows": n, "best_s": min(times), "times": times, "base_mb": base_kb / 1024,
                  "peak_mb": (peak_kb - base_kb) / 1024, "method": method}))
"""


def make_qrels(path: Path, n_lines: int, seed: int = 20240917) -> dict:
    """Write a realistic qrels file with ``n_lines`` lines; returns a few facts about it."""
    rng = np.random.default_rng(seed)
    n_q = max(1, n_lines // 500)
    # query ids: TREC-DL style numbers and RAG-style names, always read as strings
    qnum = rng.choice(np.arange(100_000, 3_200_000), size=n_q, replace=False)
    qids = np.array([str(q) if i % 3 else f"rag-{q % 100_000:05d}" for i, q in enumerate(qnum)], dtype=object)
    q_of_line = np.sort(rng.integers(0, n_q, size=n_lines))  # qrels are grouped by query
    kind = rng.choice(3, size=n_lines, p=[0.4, 0.3, 0.3])
    shard = rng.integers(0, 70, size=n_lines)
    off = rng.integers(0, 4_000_000_000, size=n_lines)
    seg = rng.integers(0, 40, size=n_lines)
    off2 = rng.integers(0, 4_000_000_000, size=n_lines)
    pid = rng.integers(0, 8_841_823, size=n_lines)
    labels = rng.choice(4, size=n_lines, p=[0.55, 0.2, 0.17, 0.08])
    out = []
    for i in range(n_lines):
        k = kind[i]
        if k == 0:
            doc = str(pid[i])                                         # MS MARCO v1 passage
        elif k == 1:
            doc = f"msmarco_passage_{shard[i]:02d}_{off[i]}"          # MS MARCO v2 passage
        else:
            doc = f"msmarco_v2.1_doc_{shard[i]:02d}_{off[i]}#{seg[i]}_{off2[i]}"  # v2.1 segment
        out.append(f"{qids[q_of_line[i]]} 0 {doc} {labels[i]}\n")
    path.write_text("".join(out), encoding="utf-8")
    return {"lines": n_lines, "queries": int(len(np.unique(q_of_line))), "with_hash": int((kind == 2).sum()),
            "bytes": path.stat().st_size}


def run_child(path: Path, which: str, repeat: int) -> dict:
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path), which, str(repeat)],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{which} child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None, help="write the qrels file here and keep it")
    ap.add_argument("--generate-only", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.generate_only is not None:
        print(json.dumps(make_qrels(args.generate_only, args.lines)))
        return 0

    with tempfile.TemporaryDirectory(prefix="bench_qrels_") as tmp:
        path = (args.keep or Path(tmp)) / "qrels.bench.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        # generated in a child process: a child forked from a big parent would inherit its ru_maxrss
        gen = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--generate-only", str(path),
                              "--lines", str(args.lines)], capture_output=True, text=True, check=True)
        facts = json.loads(gen.stdout.strip().splitlines()[-1])
        print(f"generated {facts['lines']:,} lines, {facts['queries']:,} queries, {facts['with_hash']:,} ids with '#', "
              f"{facts['bytes'] / 2**20:.1f} MB in {time.perf_counter() - t0:.1f} s: {path}")
        res = {w: run_child(path, w, args.repeat) for w in ("pandas", "metaeval", "pandas_str")}

    pd_t = res["pandas"]["best_s"]
    me = res["metaeval"]
    ratio = me["best_s"] / pd_t
    ok_time = ratio <= TIME_RATIO_TARGET
    ok_mem = me["peak_mb"] < PEAK_MB_TARGET
    if me["rows"] != args.lines or res["pandas"]["rows"] != args.lines:
        print(f"ROW COUNT MISMATCH: {res['pandas']['rows']} (pandas) / {me['rows']} (metaeval) != {args.lines}")
        return 2
    print()
    print(f"peak = high-water RSS during the reads minus RSS after imports ({me['method']}), per fresh child process")
    print(f"{'reader':<22}{'best s':>9}{'x pandas':>10}{'peak MB':>10}{'base MB':>10}  target")
    print(f"{'pandas.read_csv':<22}{pd_t:>9.3f}{1.0:>10.2f}{res['pandas']['peak_mb']:>10.0f}"
          f"{res['pandas']['base_mb']:>10.0f}  (reference)")
    print(f"{'metaeval.read_qrels':<22}{me['best_s']:>9.3f}{ratio:>10.2f}{me['peak_mb']:>10.0f}{me['base_mb']:>10.0f}"
          f"  time <= {TIME_RATIO_TARGET}x: {'PASS' if ok_time else 'FAIL'}; "
          f"peak < {PEAK_MB_TARGET:.0f} MB: {'PASS' if ok_mem else 'FAIL'}")
    ps = res["pandas_str"]
    print(f"{'pandas, ids as str':<22}{ps['best_s']:>9.3f}{ps['best_s'] / pd_t:>10.2f}{ps['peak_mb']:>10.0f}"
          f"{ps['base_mb']:>10.0f}  (information: the same column types as metaeval, no checks)")
    print(f"\nall times (s): pandas {[round(t, 3) for t in res['pandas']['times']]}, "
          f"metaeval {[round(t, 3) for t in me['times']]}")
    return 0 if ok_time and ok_mem else 1


if __name__ == "__main__":
    sys.exit(main())
