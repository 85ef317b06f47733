"""Generate tests/reference/crowdkit_glad_llmjudge.json: crowd-kit's GLAD on real LLMJudge label sets.

    python tests/reference/make_reference_crowdkit_glad_llmjudge.py [--data ../shared/data/llmjudge]

Needs crowd-kit (the package's ``test`` extra; 1.4.2 here) and the LLMJudge data
(``shared/data/llmjudge``, see its PROVENANCE.md): the 33 judges' labels clipped into [0, 3] as the
published tables do. crowd-kit's pandas GLAD takes minutes, so its results are stored; the test
(tests/test_jury_realdata.py) recomputes metaeval's GLAD on the same rows and compares.

Cases (each: the queries used, crowd-kit's options, its probabilities, labels, alphas, number of EM
iterations and loss history):
* ``default_3q``: the first 3 test queries (sorted ids), crowd-kit's defaults (n_iter 100, tol 1e-5,
  M-step: conjugate gradient with gtol 1e-2, at most 25 steps).
* ``default_3q_shuffled``: the same rows in another order (``DataFrame.sample(frac=1,
  random_state=1)``): crowd-kit against itself, to measure how much its result depends on the
  order of floating-point sums when the M-step is stopped early.
* ``tight_1q``: the first query, n_iter 5, the M-step solved to convergence (gtol 1e-8, at most 1000
  steps): the model's definition without the early stop.
* ``tight_3q``: the first 3 queries, n_iter 3, the same solved M-step.

``--cases a,b`` runs only those cases and merges them into an existing output file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings
from pathlib import Path

import pandas as pd


def _read(path):
    df = pd.read_csv(path, sep=r"\s+", header=None, names=["qid", "zero", "docid", "label"])
    df["item"] = df["qid"].str.lower() + "/" + df["docid"]
    return df


def load(data: Path) -> pd.DataFrame:
    frames = []
    for f in sorted((data / "llm_judgments").glob("*.txt")):
        j = _read(f)
        j["judge"] = f.stem
        j["label"] = j["label"].clip(0, 3)
        frames.append(j[["item", "judge", "label", "qid"]])
    long = pd.concat(frames, ignore_index=True)
    long["qid"] = long["qid"].str.lower()
    return long


CASES = {
    "default_3q": dict(queries=3, shuffle=False, options={}),
    "default_3q_shuffled": dict(queries=3, shuffle=True, options={}),
    "tight_1q": dict(queries=1, shuffle=False, options={"n_iter": 5, "m_step_tol": 1e-8, "m_step_max_iter": 1000}),
    "tight_3q": dict(queries=3, shuffle=False, options={"n_iter": 3, "m_step_tol": 1e-8, "m_step_max_iter": 1000}),
}


def main():
    import crowdkit
    import numpy as np
    import scipy
    from crowdkit.aggregation import GLAD

    ap = argparse.ArgumentParser()
    shared = os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[3] / "shared" / "data")
    ap.add_argument("--data", default=str(Path(shared) / "llmjudge"))
    ap.add_argument("--out", default=str(Path(__file__).with_name("crowdkit_glad_llmjudge.json")))
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args()
    long = load(Path(args.data))
    out = {"generated_by": "tests/reference/make_reference_crowdkit_glad_llmjudge.py",
           "versions": {"crowdkit": crowdkit.__version__, "pandas": pd.__version__, "numpy": np.__version__,
                        "scipy": scipy.__version__, "python": platform.python_version()},
           "cases": {}}
    if args.cases != ",".join(CASES) and Path(args.out).exists():
        out["cases"] = json.loads(Path(args.out).read_text(encoding="utf-8"))["cases"]
    for name in args.cases.split(","):
        case = CASES[name]
        qs = sorted(long["qid"].unique())[: case["queries"]]
        sub = long[long["qid"].isin(qs)]
        data = sub.rename(columns={"item": "task", "judge": "worker"})[["task", "worker", "label"]]
        if case["shuffle"]:
            data = data.sample(frac=1, random_state=1).reset_index(drop=True)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = GLAD(**case["options"]).fit(data)
        p = m.probas_
        out["cases"][name] = {
            "queries": qs, "shuffled": case["shuffle"], "options": case["options"],
            "seconds": round(time.perf_counter() - t0, 1),
            "n_iter": len(m.loss_history_), "loss_history": [float(x) for x in m.loss_history_],
            "items": [str(x) for x in p.index], "columns": [int(c) for c in p.columns],
            "probas": p.to_numpy().tolist(), "labels": [int(x) for x in m.labels_.reindex(p.index)],
            "alphas": {str(k): float(v) for k, v in m.alphas_.items()},
        }
        print(name, out["cases"][name]["seconds"], "s", out["cases"][name]["n_iter"], "iterations", flush=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
