"""Peak memory of ``metaeval report`` against the number of analyses (issue #19, finding 11).

A study of N agreement analyses on the bundled ``imageclef_like`` validation table (a 2-level pair,
topic-cluster bootstrap, two figures per analysis) is written to a temporary folder and run with
``python -m metaeval.cli report`` in a fresh process, once per N. The peak RSS of that process is
read from ``os.wait4``'s ``ru_maxrss``; the slope between the smallest and the largest N is the
memory each extra analysis keeps. Before the report was built in a temporary folder with every figure
written and released as its analysis finished, every figure was held until the end (about 10 MB per
analysis); now the slope should be near zero.

Run from the repository root (``--n-resamples`` small to keep it quick; it does not change the
figures, which hold the memory)::

    PYTHONPATH=. python benchmarks/bench_report_memory.py --sizes 20 100 --n-resamples 50
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _samples() -> Path:
    here = ROOT / "data_samples"
    if (here / "imageclef_like").is_dir():
        return here
    import metaeval.data.datasets as ds  # an installed package
    return ds.path("trec_dl_like").parent


def write_study(folder: Path, n: int, n_resamples: int) -> Path:
    """A study file of ``n`` agreement analyses on imageclef_like/validation.csv."""
    val = _samples() / "imageclef_like" / "validation.csv"
    lines = ['title = "memory benchmark"', "seed = 1", f"n_resamples = {n_resamples}", "",
             "[data.v]", 'kind = "table"', f'path = "{val.as_posix()}"', 'key = ["query_id", "doc_id"]',
             'reference = "human"', 'candidate = "judge"', "scale = [0, 1]", ""]
    for i in range(n):
        lines += ["[[analysis]]", 'type = "agreement"', f'name = "a{i:04d}"', 'data = "v"', 'cluster = "query_id"', ""]
    path = folder / f"study_{n}.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(n: int, n_resamples: int, folder: Path) -> tuple[float, float]:
    """Peak RSS (MB) and wall time (s) of one ``metaeval report`` run over ``n`` analyses."""
    study = write_study(folder, n, n_resamples)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "metaeval.cli", "report", str(study), "--out",
                             str(folder / f"out_{n}")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"metaeval report failed for n = {n}:\n{err}")
    return usage.ru_maxrss / 1024, wall                      # Linux: ru_maxrss in KiB


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[20, 100], help="numbers of analyses")
    p.add_argument("--n-resamples", type=int, default=50)
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            mb, wall = run(n, args.n_resamples, Path(tmp))
            rows.append((n, mb, wall))
            print(f"{n:5d} analyses: peak RSS {mb:8.1f} MB, {wall:6.1f} s", flush=True)
    if len(rows) > 1:
        (n0, m0, _), (n1, m1, _) = rows[0], rows[-1]
        print(f"slope: {(m1 - m0) / (n1 - n0):.2f} MB per analysis ({n0} -> {n1} analyses)")


if __name__ == "__main__":
    main()
