"""Shared harness of the scale benchmarks: run one job in a fresh process, measure time and peak memory.

Used by ``benchmarks/bench_align.py`` and ``benchmarks/bench_scaling.py``; not a benchmark itself.

What is measured, and how
-------------------------
* Each job runs in its **own fresh Python process** (``python -c``), started from a parent that only
  imports the standard library (and psutil), so no job inherits another's heap or its peak. (On Linux
  a process's ``ru_maxrss`` survives ``fork``/``vfork`` + ``exec``: a child of a parent that had grown
  to 3 GB would report at least 3 GB. That is why the parent never loads data.)
* A job is a function ``job(steps, **kwargs)`` in one of the benchmark modules. It wraps each stage in
  ``with steps("align"): ...``; the harness records per stage the wall time (``time.perf_counter``),
  the CPU time of the process (``time.process_time``: all its threads, so DuckDB's parallelism shows as
  CPU > wall) and the stage's **own peak RSS**: before each stage the child resets its peak-RSS mark
  (``echo 5 > /proc/self/clear_refs``) and after it reads ``VmHWM`` from ``/proc/self/status``. So a
  stage's peak includes everything alive during it (earlier results still held, imported libraries),
  which is what a user's process would need. The imports (``import metaeval``, duckdb, pyarrow)
  are a stage of their own ("import") and are left out of the job's time, not out of its memory.
* **Peak RSS of the job** = the largest stage peak, i.e. the high-water mark of the whole process,
  imports included. DuckDB runs inside this process (its buffer manager's memory is in this RSS).
  Where ``/proc`` is missing (macOS) the stage peaks fall back to ``getrusage(RUSAGE_SELF).ru_maxrss``
  (not resettable: then every stage shows the process peak so far).
* **Tree peak**: the parent also polls the child *and its descendants* with psutil every 0.1 s and
  records the largest sum of their RSS. For in-process engines (pandas, DuckDB) it equals the process
  peak up to the polling gap; for Spark the JVM is a child process and only the tree peak counts it.
  The figure compared with the memory targets is ``max(process peak, tree peak)``.
* Also recorded from the parent: ``os.wait4``'s ``ru_maxrss`` of the child. Because the child resets
  its peak mark before each stage, this is the peak of the *last* stage only (the kernel folds the
  reset mark into ``ru_maxrss`` at exit), not of the process: shown for information, never compared.

Results travel back as one JSON line on the child's stdout (prefix ``@@RESULT@@``).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULT_PREFIX = "@@RESULT@@"

_CHILD = r"""
import sys
# no current directory on the path: from the repository root it would shadow PYTHONPATH (--old-src)
sys.path[:] = [p for p in sys.path if p not in ("", ".")]
sys.path.insert(0, sys.argv[1])
import _measure
_measure._child_main(sys.argv[2])
"""


# ----------------------------------------------------------------------------------------------- child
def _status_kb(key: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_kb(resettable: bool) -> float:
    if resettable:
        return float(_status_kb("VmHWM"))
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform == "darwin" else float(kb)      # bytes on macOS


class Steps:
    """Records wall time, CPU time and peak RSS of each named stage of a job (in the child)."""

    def __init__(self):
        self.resettable = _reset_peak()
        self.records: list[dict] = []
        self.start_rss_mb = (_status_kb("VmRSS") or 0) / 1024

    def __call__(self, name: str):
        return _Stage(self, name)


class _Stage:
    def __init__(self, steps: Steps, name: str):
        self.steps, self.name = steps, name

    def __enter__(self):
        import gc

        gc.collect()
        _reset_peak()
        self.rss0 = (_status_kb("VmRSS") or 0) / 1024
        self.t0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        wall, cpu = time.perf_counter() - self.t0, time.process_time() - self.c0
        self.steps.records.append({"step": self.name, "wall_s": wall, "cpu_s": cpu, "rss_before_mb": self.rss0,
                                   "peak_mb": _peak_kb(self.steps.resettable) / 1024})
        return False


def _child_main(spec_json: str) -> None:
    spec = json.loads(spec_json)
    steps = Steps()
    with steps("import"):
        import importlib

        module = importlib.import_module(spec["module"])
        for name in spec.get("preload", ()):
            importlib.import_module(name)
    fn = getattr(module, spec["function"])
    result = fn(steps, **spec.get("kwargs", {}))
    out = {"steps": steps.records, "result": result, "start_rss_mb": steps.start_rss_mb,
           "resettable": steps.resettable}
    sys.stdout.write("\n" + RESULT_PREFIX + json.dumps(out, default=_jsonable) + "\n")
    sys.stdout.flush()


def _jsonable(o):
    try:
        import numpy as np

        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:
        pass
    return str(o)


# ---------------------------------------------------------------------------------------------- parent
@dataclass
class JobResult:
    """What one job measured: stages, peaks, and whatever the job function returned."""

    name: str
    steps: list = field(default_factory=list)
    result: object = None
    tree_peak_mb: float = 0.0
    wait4_maxrss_mb: float = 0.0
    returncode: int = 0
    stderr: str = ""
    total_wall_s: float = 0.0          # the child process, start to exit
    code: str = ""                     # code_state() when measured (run_job_cached)

    @property
    def job_s(self) -> float:
        """Wall time of the job's stages, imports excluded."""
        return sum(s["wall_s"] for s in self.steps if s["step"] != "import")

    @property
    def job_cpu_s(self) -> float:
        return sum(s["cpu_s"] for s in self.steps if s["step"] != "import")

    @property
    def import_s(self) -> float:
        return sum(s["wall_s"] for s in self.steps if s["step"] == "import")

    @property
    def process_peak_mb(self) -> float:
        return max((s["peak_mb"] for s in self.steps), default=0.0)

    @property
    def peak_mb(self) -> float:
        """The figure compared with memory targets: max(process peak, polled tree peak)."""
        return max(self.process_peak_mb, self.tree_peak_mb)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.result is not None

    def step(self, name: str) -> dict | None:
        return next((s for s in self.steps if s["step"] == name), None)


def run_job(name: str, module: str, function: str, kwargs: dict | None = None, *, preload=(),
            timeout: float | None = None, poll_s: float = 0.1, env: dict | None = None) -> JobResult:
    """Run ``module.function(steps, **kwargs)`` in a fresh Python process and measure it.

    ``module`` is imported from this folder (benchmarks/). ``preload`` names modules imported in the
    "import" stage (so their import time is not counted in the job). A job that fails or exceeds
    ``timeout`` seconds returns a JobResult with ``ok == False`` and its stderr.
    """
    import psutil

    spec = json.dumps({"module": module, "function": function, "kwargs": kwargs or {}, "preload": list(preload)})
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONHASHSEED", "0")
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(HERE), spec], stdout=out, stderr=err,
                                env=child_env)
        try:
            ps = psutil.Process(proc.pid)
        except psutil.Error:
            ps = None
        tree_peak = 0
        status, ru, timed_out = 0, None, False
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid != 0:
                break
            if ps is not None:
                try:
                    procs = [ps, *ps.children(recursive=True)]
                    rss = 0
                    for p in procs:
                        try:
                            rss += p.memory_info().rss
                        except psutil.Error:
                            pass
                    tree_peak = max(tree_peak, rss)
                except psutil.Error:
                    pass
            if timeout is not None and time.perf_counter() - t0 > timeout:
                timed_out = True
                proc.kill()
                _, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(poll_s)
        proc.returncode = os.waitstatus_to_exitcode(status)      # reaped here; keep Popen from waiting again
        total = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    res = JobResult(name=name, tree_peak_mb=tree_peak / 2**20, returncode=proc.returncode, total_wall_s=total,
                    wait4_maxrss_mb=(ru.ru_maxrss / (2**20 if sys.platform == "darwin" else 1024)) if ru else 0.0)
    if timed_out:
        res.stderr = f"timed out after {timeout:.0f} s\n" + stderr[-3000:]
        res.returncode = res.returncode or -9
        return res
    line = next((ln for ln in reversed(stdout.splitlines()) if ln.startswith(RESULT_PREFIX)), None)
    if proc.returncode != 0 or line is None:
        res.stderr = stderr[-3000:] or stdout[-3000:]
        return res
    payload = json.loads(line[len(RESULT_PREFIX):])
    res.steps, res.result = payload["steps"], payload["result"]
    res.stderr = stderr
    return res


def warm(paths) -> None:
    """Read each file once, so that the job after finds it in the page cache as the one before did:
    a ratio of two jobs on the same files must not depend on which ran first (a cold first read of
    2 x 80 MB took 8 s here, four times the query)."""
    for p in paths:
        with open(p, "rb") as fh:
            while fh.read(1 << 24):
                pass


def mean_se(xs) -> tuple[float, float]:
    """Mean and standard error of the mean (0 for one value)."""
    xs = [float(x) for x in xs]
    mu = sum(xs) / len(xs)
    if len(xs) < 2:
        return mu, 0.0
    return mu, (sum((x - mu) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) ** 0.5


# -------------------------------------------------------------------------------------------- printing
def fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 120:
        return f"{s:.2f} s"
    return f"{s / 60:.1f} min"


def fmt_mb(mb: float | None) -> str:
    if mb is None:
        return "-"
    return f"{mb / 1024:.2f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_table(headers: list[str], rows: list[list], aligns: str | None = None, out=None) -> None:
    """A plain fixed-width table: first column left-aligned, the others right-aligned."""
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    aligns = aligns or "l" + "r" * (len(headers) - 1)

    def line(vals):
        return "  ".join(v.ljust(w) if a == "l" else v.rjust(w) for v, w, a in zip(vals, widths, aligns)).rstrip()

    p = (lambda s: print(s, file=out)) if out else print
    p(line(headers))
    p(line(["-" * w for w in widths]))
    for r in cells:
        p(line(r))


def print_steps(job: JobResult, indent: str = "    ") -> None:
    """One line per stage: wall, CPU, RSS at its start and its own peak."""
    for s in job.steps:
        print(f"{indent}{s['step']:<16} wall {fmt_s(s['wall_s']):>9}  cpu {fmt_s(s['cpu_s']):>9}  "
              f"rss at start {fmt_mb(s['rss_before_mb']):>8}  peak {fmt_mb(s['peak_mb']):>8}")


def machine_header(packages=("metaeval", "numpy", "pandas", "pyarrow", "duckdb", "psutil")) -> str:
    """Date, machine (cores, RAM, load), Python and package versions: the first lines of a results file."""
    import datetime
    from importlib import metadata

    import psutil

    vm = psutil.virtual_memory()
    vers = []
    for p in packages:
        if p == "metaeval":   # the code measured (an editable install's metadata keeps the version it was installed at)
            import re

            init = (HERE.parent / "metaeval" / "__init__.py").read_text(encoding="utf-8")
            version = re.search(r'__version__ = "([^"]+)"', init).group(1)
            vers.append(f"metaeval {version}")
            continue
        try:
            vers.append(f"{p} {metadata.version(p)}")
        except metadata.PackageNotFoundError:
            vers.append(f"{p} (absent)")
    commit = ""
    try:
        commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return "\n".join([
        f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; commit {commit or '?'} (code state "
        f"{code_state()}: last commit of metaeval/core, data, agreement, + digest of uncommitted changes there)",
        f"machine: {os.cpu_count()} cores ({cpu}), {vm.total / 2**30:.1f} GiB RAM "
        f"({vm.available / 2**30:.1f} GiB available at start), {platform.system()} {platform.release()}",
        f"load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min)",
        f"python {platform.python_version()}; " + ", ".join(vers),
    ])


class Tee:
    """Write to stdout and, when a path is given, to a file as well."""

    def __init__(self, path: Path | None, append: bool = False):
        self.path = path
        self.fh = open(path, "a" if append else "w", encoding="utf-8") if path else None  # noqa: SIM115 - closed in close()
        if self.fh and append:
            self.fh.write("\n" + "=" * 100 + "\n")
        self.stdout = sys.stdout

    def write(self, s):
        self.stdout.write(s)
        if self.fh:
            self.fh.write(s)

    def flush(self):
        self.stdout.flush()
        if self.fh:
            self.fh.flush()

    def close(self):
        if self.fh:
            self.fh.close()


# ------------------------------------------------------------------------------------------------ data
# Seeded synthetic judgment sets. Every topic is generated from its own stream
# ``numpy.random.default_rng([seed, topic])`` and written at once (a qrels text chunk or a Parquet row
# group), so the generator's memory is one topic's rows, whatever the total.
LABEL_P = (0.50, 0.25, 0.15, 0.10)       # reference grades 0-3 (TREC-DL-like skew)
AGREE_A, AGREE_B = 12.0, 8.0             # per-topic exact agreement of the judge ~ Beta(12, 8): mean 0.60
UP_P = 0.6                               # a disagreeing judge grades one step up with this probability
UNMATCHED_RATE = 0.01                    # per side: keys the other side does not have
DUP_RATE = 0.001                         # per side: lines that repeat a key with the same label
TOPIC_SLOTS = 1 << 22                    # doc-key space per topic (g = topic * TOPIC_SLOTS + j)
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "metaeval_bench"


def _doc_ids(g):
    """MS MARCO-like doc ids, one per global key g (injective: the multiplicative hash is a bijection mod 2^32)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    h = (g.astype(np.uint64) * np.uint64(2654435761)) % np.uint64(1 << 32)
    kind = h % np.uint64(10)
    shard = pc.utf8_lpad(pc.cast(pa.array((h >> np.uint64(8)) % np.uint64(70)), pa.string()), 2, "0")
    hs = pc.cast(pa.array(h), pa.string())
    seg = pc.cast(pa.array((h >> np.uint64(4)) % np.uint64(40)), pa.string())
    h2 = pc.cast(pa.array((h * np.uint64(40503)) % np.uint64(1 << 32)), pa.string())
    v2 = pc.binary_join_element_wise("msmarco_passage_", shard, "_", hs, "")                  # MS MARCO v2 passage
    v21 = pc.binary_join_element_wise("msmarco_v2.1_doc_", shard, "_", hs, "#", seg, "_", h2, "")  # v2.1 segment
    return pc.if_else(pa.array(kind < 4), hs, pc.if_else(pa.array(kind < 7), v2, v21))   # v1 passage: digits


def _topic_ids(n_topics, rng):
    import numpy as np

    nums = rng.choice(np.arange(100_000, 3_200_000), size=n_topics, replace=False)
    return [str(q) if i % 4 else f"2024-{q % 1_000_000:06d}" for i, q in enumerate(nums)]


def _topic_sizes(n_lines, n_topics, rng):

    floor = max(1, n_lines // (n_topics * 10))
    w = rng.gamma(2.0, 1.0, n_topics)
    return rng.multinomial(n_lines - floor * n_topics, w / w.sum()) + floor


def _judge(ref, rng, p_agree):
    """Judge labels: equal with probability p_agree, else one grade up (p UP_P) or down, reflected at 0 and 3."""
    import numpy as np

    step = np.where(rng.random(len(ref)) < UP_P, 1, -1)
    moved = ref + step
    moved = np.where((moved < 0) | (moved > 3), ref - step, moved)
    return np.where(rng.random(len(ref)) < p_agree, ref, moved).astype(np.int32)


def _topic_pair(t, size, seed):
    """One topic's reference and candidate rows: (doc keys, labels) per side, plus the facts."""
    import numpy as np

    rng = np.random.default_rng([seed, t])
    dup = int(rng.binomial(size, DUP_RATE))
    k = size - dup                                        # distinct reference keys
    u = min(int(rng.binomial(size, UNMATCHED_RATE)), k)   # unmatched on each side
    ref_lab = rng.choice(4, size=k, p=LABEL_P).astype(np.int32)
    p_agree = rng.beta(AGREE_A, AGREE_B)
    keep = np.ones(k, dtype=bool)
    keep[rng.choice(k, u, replace=False)] = False
    shared = np.flatnonzero(keep)
    cand_keys = np.concatenate([shared, np.arange(k, k + u)])
    cand_lab = np.concatenate([_judge(ref_lab[shared], rng, p_agree), _judge(rng.choice(4, size=u, p=LABEL_P), rng,
                                                                               p_agree)])
    sides = []
    for keys, lab in ((np.arange(k), ref_lab), (cand_keys, cand_lab)):
        rep = rng.integers(0, len(keys), dup)                          # identical repeats
        keys, lab = np.concatenate([keys, keys[rep]]), np.concatenate([lab, lab[rep]])
        order = rng.permutation(len(keys))
        sides.append((keys[order] + t * TOPIC_SLOTS, lab[order]))
    agree = int((ref_lab[shared] == cand_lab[: len(shared)]).sum())
    return sides, {"pairs": len(shared), "unmatched": u, "duplicates": dup, "agree": agree}


def generate_pair(paths, n_lines, fmt, *, seed=0, n_topics=500):
    """Write a reference and a candidate judgment set of ``n_lines`` lines/rows each.

    ``fmt`` is "qrels" (``query_id 0 doc_id relevance`` text lines) or "parquet" (columns query_id,
    doc_id: string; relevance: int32; one row group per topic). Returns the facts (pairs, unmatched,
    duplicate lines, exact agreement of the judge) the alignment must reproduce.
    """
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng([seed, 10**6])
    qids = _topic_ids(n_topics, rng)
    sizes = _topic_sizes(n_lines, n_topics, rng)
    if sizes.max() + sizes.max() // 50 + 10 >= TOPIC_SLOTS:
        raise ValueError("topic too large for the doc-key space")
    schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("relevance", pa.int32())])
    tmp = [Path(str(p) + ".part") for p in paths]
    if fmt == "qrels":
        import pyarrow.csv as pacsv

        opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
        qschema = pa.schema([("query_id", pa.string()), ("iteration", pa.string()), ("doc_id", pa.string()),
                             ("relevance", pa.int32())])
        writers = [pacsv.CSVWriter(str(p), qschema, write_options=opts) for p in tmp]
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        writers = [pq.ParquetWriter(str(p), schema, compression="snappy") for p in tmp]
    else:
        raise ValueError(fmt)
    facts = {"lines": int(n_lines), "topics": n_topics, "format": fmt, "seed": seed, "pairs": 0, "unmatched": 0,
             "duplicates": 0, "agree": 0}
    try:
        for t in range(n_topics):
            sides, f = _topic_pair(t, int(sizes[t]), seed)
            for key in ("pairs", "unmatched", "duplicates", "agree"):
                facts[key] += f[key]
            for w, (keys, lab) in zip(writers, sides):
                q = pa.array(np.full(len(keys), qids[t], dtype=object), pa.string())
                cols = [q, _doc_ids(keys), pa.array(lab, pa.int32())]
                if fmt == "qrels":
                    cols.insert(1, pa.array(np.full(len(keys), "0", dtype=object), pa.string()))
                    w.write_table(pa.Table.from_arrays(cols, schema=qschema))
                else:
                    w.write_table(pa.Table.from_arrays(cols, schema=schema))
    finally:
        for w in writers:
            w.close()
    for p, q in zip(tmp, paths):
        os.replace(p, q)
    facts["agreement"] = facts["agree"] / facts["pairs"]
    facts["bytes"] = [Path(p).stat().st_size for p in paths]
    return facts


def _label(n):
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else (f"{n // 1000}k" if n % 1000 == 0 else str(n))


def data_paths(workdir, n_lines, fmt, seed=0):
    ext = "txt" if fmt == "qrels" else "parquet"
    stem = f"{fmt}_{_label(n_lines)}_s{seed}"
    return [Path(workdir) / f"{stem}_{side}.{ext}" for side in ("ref", "cand")], Path(workdir) / f"{stem}.json"


def job_generate(steps, workdir, n_lines, fmt, seed=0):
    """Job: generate one pair of files (run through run_job, so its time and peak memory are measured)."""
    paths, meta = data_paths(workdir, n_lines, fmt, seed)
    with steps("generate"):
        facts = generate_pair(paths, n_lines, fmt, seed=seed)
    meta.write_text(json.dumps(facts, indent=1))
    return facts


def ensure_data(workdir, n_lines, fmt, seed=0, log=print):
    """The pair of files for (n_lines, fmt, seed) in workdir: reused if present, else generated in a child."""
    paths, meta = data_paths(workdir, n_lines, fmt, seed)
    if meta.exists() and all(p.exists() for p in paths):
        facts = json.loads(meta.read_text())
        log(f"data: reusing {paths[0].name}, {paths[1].name} in {workdir} ({n_lines:,} lines each)")
        return paths, facts
    Path(workdir).mkdir(parents=True, exist_ok=True)
    free = _free_gb(workdir)
    need = 2 * n_lines * 60 / 1e9
    if free < need + 5:
        raise SystemExit(f"only {free:.0f} GB free in {workdir}; generating {n_lines:,} rows x 2 needs ~{need:.0f} GB")
    log(f"data: generating {n_lines:,}-line {fmt} pair in {workdir} ({free:.0f} GB free) ...")
    job = run_job(f"generate {fmt} {n_lines}", "_measure", "job_generate",
                  {"workdir": str(workdir), "n_lines": n_lines, "fmt": fmt, "seed": seed}, preload=("pyarrow",))
    if not job.ok:
        raise SystemExit(f"data generation failed:\n{job.stderr}")
    facts = job.result
    log(f"      {fmt_s(job.job_s)}, peak {fmt_mb(job.peak_mb)}; {facts['pairs']:,} pairs, {facts['unmatched']:,} "
        f"unmatched and {facts['duplicates']:,} duplicate lines per side, judge agreement {facts['agreement']:.3f}, "
        f"{sum(facts['bytes']) / 2**30:.2f} GiB")
    return paths, facts


def _free_gb(path):
    import shutil

    return shutil.disk_usage(path).free / 1e9


# ----------------------------------------------------------------------------------------- job cache
def code_state() -> str:
    """What a cached measurement is valid for: the last commit that touched the code the jobs run
    (metaeval/core, data, agreement), plus a digest of uncommitted changes there."""
    import hashlib

    repo, code = HERE.parent, ["metaeval/core", "metaeval/data", "metaeval/agreement", "metaeval/__init__.py"]
    head = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%H", "--", *code], capture_output=True,
                          text=True, check=False).stdout.strip()
    diff = subprocess.run(["git", "-C", str(repo), "diff", "HEAD", "--", *code], capture_output=True,
                          check=False).stdout
    return f"{head[:12]}+{hashlib.sha1(diff).hexdigest()[:8]}" if diff else head[:12]


def run_job_cached(cache_dir, name, module, function, kwargs=None, *, reuse=False, **kw) -> JobResult:
    """run_job, storing the result under cache_dir; with reuse=True the last measurement of an equal job is taken.

    Equal: same module, function and kwargs. The code may have changed since: the result carries the
    :func:`code_state` it was measured on (``JobResult.code``), and the callers print it. Lets
    bench_scaling take the 100M measurement of bench_align (the same job) instead of running it a
    second time. A reused result says so (``JobResult.name`` ends in "(reused)").
    """
    import hashlib
    from dataclasses import asdict

    key = hashlib.sha1(json.dumps([module, function, kwargs or {}], sort_keys=True).encode()).hexdigest()[:16]
    path = Path(cache_dir) / f"job_{key}.json"
    if reuse and path.exists():
        d = json.loads(path.read_text())
        d["name"] = d["name"] + " (reused)"
        return JobResult(**d)
    res = run_job(name, module, function, kwargs, **kw)
    res.code = code_state()
    if res.ok:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(res), default=_jsonable))
    return res
