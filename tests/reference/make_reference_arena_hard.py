"""Reference values for metaeval's leaderboard meta-metrics, from arena-hard-auto's own code.

arena-hard-auto computed the paper's separability, agreement-with-confidence and Brier numbers
(Li et al. 2024, arXiv 2406.11939) in ``notebook/benchmark_statistics.ipynb``; the notebook and its
input files were committed to github.com/lmarena/arena-hard-auto (commit
bd52a78991225700e9b8403f3e1f3cd4a6b45141, "update statistics", 2024-04-14; removed later in favour
of a Colab). This script reads the notebook and its data from a local git clone, EXECUTES THE
NOTEBOOK'S OWN CODE CELLS (nothing of it is copied here), and records

1. its numbers on its own data: the 20 models shared by AlpacaEval 2.0 (raw and LC), Arena-Hard-Auto
   v0.1, MT-Bench and Chatbot Arena (2024-03-29): separability at 95% and 80%, strict agreement,
   agreement with confidence and the Brier score against Chatbot Arena, with the per-model tables
   (score, interval, bootstrap mean and variance) they were computed from;
2. its numbers on a small seeded case (5 models, 200 bootstrap scores each, intervals made to
   overlap, touch or separate), with the full replicates;

and writes tests/reference/arena_hard_values.json. Nobody edits that file by hand.

Run it in a throwaway environment (no network needed; the notebook's pip/gdown cell is not run):

    python -m venv /work/tmp-leaderboard-venv/venv
    /work/tmp-leaderboard-venv/venv/bin/pip install "pandas<2.3" "numpy<2.1" scipy scikit-learn
    /work/tmp-leaderboard-venv/venv/bin/python tests/reference/make_reference_arena_hard.py \\
        [--repo PATH_TO_ARENA_HARD_AUTO_GIT]

Chatbot Arena's ratings come in a pickle that also holds plotly figures; it is read with a
restricted unpickler that admits only numpy and pandas classes (plotly objects become inert
placeholders; anything else is refused).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pickle
import platform
import subprocess
import sys
import tempfile
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
import sklearn
from scipy.stats import norm
from sklearn.metrics import brier_score_loss, log_loss

COMMIT = "bd52a78991225700e9b8403f3e1f3cd4a6b45141"
DEFAULT_REPO = "/work/.mirror/lmarena+arena-hard-auto/repo"
OUT = Path(__file__).resolve().parent / "arena_hard_values.json"
FILES = ["benchmark_statistics.ipynb", "bootstrap_stats_alpaca.jsonl", "bootstrap_stats_alpaca_LC.jsonl",
         "bootstrap_stats_arena_hard.jsonl", "bootstrap_stats_mt_bench.jsonl", "bootstrap_stats_20k_votes.jsonl",
         "alpaca_to_arena.json", "arena_to_arena_hard.json", "arena_to_mt_bench.json", "elo_results_20240329.pkl"]
# the notebook's code cells used (0-based cell numbers at COMMIT), by what they hold
DEFS = {"separability": 5, "separability_general": 28, "agreement_helpers": 46, "brier_records": 63}
PREP = [13, 15, 17, 20, 25]            # model-name maps and the 20-model subsets
SEPARABILITY_95 = {"alpaca_lc": 14, "alpaca": 16, "arena_hard": 19, "mt_bench": 26}
SEPARABILITY_80 = {"alpaca_lc": 29, "alpaca": 30, "arena_hard": 31, "mt_bench": 36}
STRICT = {"alpaca_lc": 40, "alpaca": 41, "arena_hard": 42, "mt_bench": 43}
AGREEMENT = {"alpaca_lc": 47, "alpaca": 48, "arena_hard": 49, "mt_bench": 50}
MEAN_VAR = [65, 66, 67, 68]
BRIER = [64, 69]                        # arena subset, then the per-pair records
BENCHMARKS = ["alpaca_lc", "alpaca", "arena_hard", "mt_bench"]


class _Inert:
    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


class _NumpyPandasOnly(pickle.Unpickler):
    def find_class(self, module, name):
        top = module.split(".")[0]
        if top == "plotly":
            return _Inert
        if top in ("numpy", "pandas") or (module, name) in {("builtins", "slice"), ("copyreg", "_reconstructor"),
                                                           ("builtins", "object")}:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused to load {module}.{name}")


def _extract(repo: str, dest: Path) -> None:
    for f in FILES:
        data = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:notebook/{f}"], check=True,
                              capture_output=True).stdout
        (dest / f).write_bytes(data)


def _cells(nb_path: Path) -> list[str]:
    nb = json.loads(nb_path.read_text())
    return ["".join(c["source"]) for c in nb["cells"]]


def _run(cells, k, ns) -> str:
    """Execute code cell k of the notebook in namespace ns; return what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(cells[k], f"<benchmark_statistics.ipynb cell {k}>", "exec"), ns)
    return buf.getvalue()


def _last_float(text: str) -> float:
    return float(text.strip().split()[-1].rstrip("%"))


def _overlap_count(text: str) -> tuple[int, int]:
    first = text.strip().splitlines()[1]            # "Overlap Pair #: 23, Total model Pair #: 190"
    a, b = first.split(",")
    return int(a.split(":")[1]), int(b.split(":")[1])


def _table(df, model_col="model"):
    out = {}
    for _, r in df.iterrows():
        res = np.asarray(r["results"], dtype=float)
        out[str(r[model_col])] = {"score": float(r["score"]), "lower": float(r["lower"]), "upper": float(r["upper"]),
                                  "mean": float(np.mean(res)), "var": float(np.var(res)),
                                  "p10": float(np.percentile(res, 10)), "p90": float(np.percentile(res, 90))}
    return out


def real_data(repo: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _extract(repo, tmp)
        cells = _cells(tmp / "benchmark_statistics.ipynb")
        ns = {"pd": pd, "np": np, "json": json, "comb": comb, "combinations": combinations, "norm": norm,
              "log_loss": log_loss, "brier_score_loss": brier_score_loss, "math": __import__("math")}
        import os
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            with open("elo_results_20240329.pkl", "rb") as fh:
                elo_results = _NumpyPandasOnly(fh).load()
            ns["elo_results"] = elo_results
            ns["elo"] = elo_results["full"]["leaderboard_table_df"].reset_index()
            for k in DEFS.values():
                _run(cells, k, ns)
            for k in PREP:
                _run(cells, k, ns)
            out: dict = {"separability_95": {}, "separability_80": {}, "strict_agreement": {},
                         "agreement_with_confidence": {}, "brier": {}}
            for b, k in SEPARABILITY_95.items():
                out["separability_95"][b] = _overlap_count(_run(cells, k, ns))
            for b, k in SEPARABILITY_80.items():
                out["separability_80"][b] = _overlap_count(_run(cells, k, ns))
            for b, k in STRICT.items():
                out["strict_agreement"][b] = _last_float(_run(cells, k, ns))
            for b, k in AGREEMENT.items():
                out["agreement_with_confidence"][b] = _last_float(_run(cells, k, ns))
            tables = {b: _table(ns[b]) for b in BENCHMARKS}
            for k in MEAN_VAR + BRIER:
                _run(cells, k, ns)
            names = {"alpaca_lc": "alpaca_lc_results", "alpaca": "alpaca_results", "arena_hard": "arena_results",
                     "mt_bench": "mt_bench_results"}
            pairs = {}
            for b, v in names.items():
                recs = ns[v]
                out["brier"][b] = float(brier_score_loss(recs["label"], recs["p(a<b)"]))
                pairs[b] = {"model_a": recs["model_a"].tolist(), "model_b": recs["model_b"].tolist(),
                            "p": recs["p(a<b)"].astype(float).tolist(), "label": recs["label"].astype(int).tolist()}
            e = ns["elo_subset"]
            key = "index" if "index" in e.columns else "model"
            reference = {str(r[key]): {"rating": float(r["rating"]), "q025": float(r["rating_q025"]),
                                       "q975": float(r["rating_q975"]), "variance": float(r["variance"])}
                         for _, r in e.iterrows()}
        finally:
            os.chdir(cwd)
    return {"outputs": out, "tables": tables, "reference": reference, "brier_pairs": pairs}


def synthetic() -> dict:
    """A small seeded case run through the same notebook functions (taken from its cells)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run(["git", "-C", ARGS.repo, "show", f"{COMMIT}:notebook/benchmark_statistics.ipynb"], check=True,
                       stdout=open(tmp / "nb.ipynb", "wb"))
        cells = _cells(tmp / "nb.ipynb")
    ns = {"pd": pd, "np": np, "comb": comb, "combinations": combinations, "norm": norm}
    for k in DEFS.values():
        _run(cells, k, ns)
    rng = np.random.default_rng(20240414)
    models = ["m1", "m2", "m3", "m4", "m5"]
    centres = np.array([40.0, 44.0, 52.0, 53.0, 60.0])
    reps = centres + rng.normal(0, 2.0, size=(200, 5))
    bench = pd.DataFrame({"model": models, "score": reps.mean(axis=0), "results": [reps[:, j].tolist() for j in range(5)]})
    bench["lower"] = [np.percentile(r, 2.5) for r in bench.results]
    bench["upper"] = [np.percentile(r, 97.5) for r in bench.results]
    # a reference with given intervals: m3 and m4 overlap, m1 and m2 touch, m5 ranks below m4
    ref = pd.DataFrame({"index": models, "rating": [1000.0, 1010.0, 1030.0, 1034.0, 1025.0],
                        "rating_q025": [995.0, 1005.0, 1027.0, 1031.0, 1021.0],
                        "rating_q975": [1005.0, 1015.0, 1033.0, 1037.0, 1026.0],
                        "variance": [6.5, 6.5, 2.3, 2.3, 1.6]})
    n_overlap, n_pairs = ns["get_unique_overlapping_interval_pairs"](bench)
    n_overlap80, _ = ns["get_unique_overlapping_interval_pairs_general"](bench, [10, 90])
    n_ref_overlap, _ = ns["get_unique_overlapping_interval_pairs"](ref, "rating_q025", "rating_q975")
    # agreement with confidence: the loop body of the notebook's cells 47-51, by their helpers
    get_overlap, get_interval, get_elo_interval = ns["get_overlap"], ns["get_interval"], ns["get_elo_interval"]
    count = total = 0
    for a, b in combinations(models, 2):
        sa, sb = get_interval(bench, a), get_interval(bench, b)
        ea, eb = get_elo_interval(ref, a), get_elo_interval(ref, b)
        if get_overlap(ea, eb) > 0:
            continue
        total += 1
        if get_overlap(sa, sb) > 0:
            count += 0.5
            continue
        if (sa < sb and ea < eb) or (sa > sb and ea > eb):
            count += 1
    bench["mean"] = bench.results.map(np.mean)
    bench["var"] = bench.results.map(np.var)
    recs = ns["calculate_predictions_and_labels"](models, bench.set_index("model")[["mean", "var"]].to_dict(),
                                                  ref.set_index("index")[["rating", "variance"]].to_dict())
    return {"replicates": {m: reps[:, j].tolist() for j, m in enumerate(models)},
            "reference": {m: {"rating": float(r.rating), "q025": float(r.rating_q025), "q975": float(r.rating_q975)}
                          for m, r in zip(models, ref.itertuples())},
            "outputs": {"overlap_95": [int(n_overlap), int(n_pairs)], "overlap_80": int(n_overlap80),
                        "reference_overlap": int(n_ref_overlap), "agreement_with_confidence": count / total,
                        "agreement_pairs": total,
                        "brier": float(brier_score_loss(recs["label"], recs["p(a<b)"])),
                        "p": recs["p(a<b)"].astype(float).tolist(), "label": recs["label"].astype(int).tolist()}}


def main() -> int:
    values = {
        "source": f"github.com/lmarena/arena-hard-auto @ {COMMIT}, notebook/benchmark_statistics.ipynb "
                  "(its code cells executed by tests/reference/make_reference_arena_hard.py)",
        "cells": {"definitions": DEFS, "separability_95": SEPARABILITY_95, "separability_80": SEPARABILITY_80,
                  "strict": STRICT, "agreement": AGREEMENT, "brier": BRIER},
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__,
                     "scipy": scipy.__version__, "scikit-learn": sklearn.__version__},
        "real": real_data(ARGS.repo),
        "synthetic": synthetic(),
    }
    OUT.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")
    print(json.dumps(values["real"]["outputs"], indent=1))
    print(json.dumps({k: v for k, v in values["synthetic"]["outputs"].items() if k not in ("p", "label")}, indent=1))
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=DEFAULT_REPO, help="a git clone of lmarena/arena-hard-auto")
    ARGS = ap.parse_args()
    sys.exit(main())
