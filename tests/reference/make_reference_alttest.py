"""Generate tests/reference/alttest_values.json: the alternative annotator test run by its authors' code.

The alt-test (Calderon, Reichart & Dror, ACL 2025) is implemented by its authors in the notebook
``alt_test_example.ipynb`` of github.com/nitaytech/AltTest (commit 18428b1): ``alt_test``,
``by_procedure`` (Benjamini–Yekutieli), the scoring functions, and the sample-size simulation
(``generate_dataset``, ``prepare_boot``, ``split_dataset``, ``compute_traditional_measures``). This
script executes those notebook cells as they are (nothing of them is copied into metaeval) and
records their output. ``by_procedure`` is wrapped to record the per-annotator p-values it receives
and the indices it rejects; the authors' functions are otherwise untouched.

Run from the repository root, in a THROWAWAY venv (never the project's environment):

    python3 -m venv /work/tmp-prev-venv
    /work/tmp-prev-venv/bin/pip install scipy numpy pandas scikit-learn tqdm matplotlib seaborn
    MPLBACKEND=Agg /work/tmp-prev-venv/bin/python tests/reference/make_reference_alttest.py \\
        --alttest /path/to/AltTest          # a checkout (or bare git dir) of nitaytech/AltTest

Cases:

* ``pandalm``: PandaLM's human-annotated test set (../shared/data/pandalm, see its PROVENANCE.md):
  three annotators (labels 0 = tie, 1, 2), judges GPT-3.5 (``'Tie'`` → 0 and ``'garbage'`` → 0, the
  PandaLM repository's convention; and ``'garbage'`` kept as its own label, which matches nobody)
  and PandaLM-7B; accuracy scoring, ε ∈ {0.2, 0.15, 0.1}, q = 0.05. Inputs are read from the
  shared data by the tests (not stored here).
* ``synthetic``: seeded data sets generated here and stored with their inputs: items with missing
  annotations, items with one annotator (dropped), an annotator with fewer than 30 items (skipped),
  items without a judge label, integer scores with ``neg_rmse``, a custom similarity scoring
  function, a judge that copies one annotator, and two-annotator data.
* ``simulation``: the notebook's simulation loop (§ Simulation) with its own functions at sizes
  30, 50, 100, 200 (100 data sets × 10 draws each, seeded with ``np.random.seed``) for two noise
  settings; mean winning rate per ε, mean advantage probability and its 5th/95th percentiles, mean
  inter-annotator kappa and majority accuracy.

The JSON records the versions and the AltTest commit it ran with.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DATA = ROOT.parent / "shared" / "data" / "pandalm"
COMMIT = "18428b1"


def _notebook(path: Path) -> tuple[dict, str]:
    if path.suffix == ".ipynb":
        return json.loads(path.read_text()), "file"
    git = ["git", "--git-dir", str(path / ".git" if (path / ".git").exists() else path)]
    text = subprocess.run([*git, "show", f"{COMMIT}:alt_test_example.ipynb"], check=True, capture_output=True,
                          text=True).stdout
    full = subprocess.run([*git, "rev-parse", COMMIT], check=True, capture_output=True, text=True).stdout.strip()
    return json.loads(text), full


def _cells(nb: dict, *indices: int) -> str:
    return "\n\n".join("".join(nb["cells"][i]["source"]) for i in indices)


class Authors:
    """The notebook's code in a namespace, with by_procedure recorded."""

    def __init__(self, nb):
        self.ns: dict = {}
        exec(_cells(nb, 1, 2), self.ns)          # imports; alt_test, by_procedure, accuracy, neg_rmse, sim, ttest
        self.calls: list = []
        original = self.ns["by_procedure"]

        def recorded(p_values, q):
            rejected = original(p_values, q)
            self.calls.append({"p_values": [float(p) for p in p_values], "rejected": [int(i) for i in rejected]})
            return rejected

        self.ns["by_procedure"] = recorded

    def run(self, llm, humans, scoring="accuracy", **kw):
        self.calls.clear()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            wr, ap = self.ns["alt_test"](llm, humans, scoring, **kw)
        skipped = [line.split()[2] for line in buf.getvalue().splitlines() if line.startswith("Skipping annotator")]
        tested = [h for h in humans if str(h) not in skipped]
        call = self.calls[-1]
        return {"winning_rate": wr, "advantage_probability": ap, "annotators": [str(h) for h in tested],
                "p_values": call["p_values"], "rejected": [str(tested[i]) for i in call["rejected"]],
                "printed": buf.getvalue().splitlines()}


# --------------------------------------------------------------------------------------------
def _pandalm():
    t = json.loads((DATA / "testset-v1.json").read_text())
    g = json.loads((DATA / "gpt-3.5-turbo-testset-v1.json").read_text())
    p = json.loads((DATA / "pandalm-7b-testset-v1.json").read_text())
    humans = {a: {str(r["idx"]): int(r[a]) for r in t} for a in ("annotator1", "annotator2", "annotator3")}
    gmap = {"1": 1, "2": 2, "Tie": 0, "garbage": 0}
    judges = {"gpt-3.5-turbo": {str(r["idx"]): gmap[r["gpt_result"]] for r in g},
              "gpt-3.5-turbo (garbage kept)": {str(r["idx"]): (gmap[r["gpt_result"]] if r["gpt_result"] != "garbage"
                                                                else "garbage") for r in g},
              "pandalm-7b": {str(r["idx"]): int(r["pandalm_result"]) for r in p}}
    return humans, judges


def _long(humans: dict) -> list[list]:
    return [[str(i), str(h), v] for h, anns in humans.items() for i, v in anns.items()]


def _synthetic():
    """Seeded synthetic data sets: (name, humans dict, judge dict, scoring, epsilon, kwargs)."""
    rng = np.random.default_rng(20250712)
    out = []
    # 1. six annotators, 160 items, 2-4 annotators per item, a few items with one; one sparse annotator
    n, A, K = 160, 6, 4
    gold = rng.integers(0, K, n)
    humans = {f"h{a}": {} for a in range(A)}
    for i in range(n):
        m = 1 if i % 37 == 0 else int(rng.integers(2, 5))
        pool = [f"h{a}" for a in range(A - 1)]
        who = list(rng.choice(pool, size=min(m, len(pool)), replace=False))
        if i % 8 == 0:
            who.append(f"h{A - 1}")         # h5 labels only every 8th item (20 items: skipped at 30)
        for h in who:
            humans[h][f"i{i}"] = int(gold[i] if rng.random() < 0.75 else rng.integers(0, K))
    judge = {f"i{i}": int(gold[i] if rng.random() < 0.8 else rng.integers(0, K)) for i in range(n) if i % 23 != 5}
    out.append(("missing_and_sparse", humans, judge, "accuracy", 0.1, {}))
    out.append(("missing_and_sparse_min_items_10", humans, judge, "accuracy", 0.1, {"min_instances_per_human": 10}))
    out.append(("missing_and_sparse_min_humans_3", humans, judge, "accuracy", 0.15,
                {"min_humans_per_instance": 3, "min_instances_per_human": 20}))
    # 2. integer scores 1-5, judge with half points, neg_rmse
    n, A = 90, 4
    true = rng.normal(3, 1.1, n)
    humans = {f"r{a}": {f"s{i}": int(np.clip(np.rint(true[i] + rng.normal(0, 0.7)), 1, 5)) for i in range(n)}
              for a in range(A)}
    judge = {f"s{i}": float(np.clip(np.rint(2 * (true[i] + rng.normal(0.2, 0.6))) / 2, 1, 5)) for i in range(n)}
    out.append(("scores_neg_rmse", humans, judge, "neg_rmse", 0.15, {}))
    out.append(("scores_neg_rmse_eps_0.3", humans, judge, "neg_rmse", 0.3, {}))
    # 3. the same scores with a custom similarity (1 - |a - b| / 4), given to both implementations
    out.append(("scores_abs_similarity", humans, judge, "abs_similarity", 0.1, {}))
    # 4. a judge that copies one annotator; three annotators, 120 items, 3 categories
    n, K = 120, 3
    gold = rng.integers(0, K, n)
    humans = {f"a{a}": {f"j{i}": int(gold[i] if rng.random() < 0.8 else rng.integers(0, K)) for i in range(n)}
              for a in range(3)}
    out.append(("judge_copies_annotator", humans, dict(humans["a0"]), "accuracy", 0.2, {}))
    out.append(("judge_random", humans, {f"j{i}": int(rng.integers(0, K)) for i in range(n)}, "accuracy", 0.2, {}))
    # 5. two annotators only
    humans2 = {k: humans[k] for k in ("a1", "a2")}
    out.append(("two_annotators", humans2, {f"j{i}": int(gold[i]) for i in range(n)}, "accuracy", 0.05, {}))
    return out


def _simulation(nb, seed: int, noise_annotators: float, noise_llm: float) -> dict:
    ns: dict = {}
    exec(_cells(nb, 1, 2, 6), ns)                       # the notebook's functions (and its plotting imports)
    sizes, epsilons = [30, 50, 100, 200], [0.0, 0.05, 0.1, 0.2]
    n_datasets, n_boots, n_categories, max_items, max_annotators, n_annotators = 100, 10, 4, 500, 6, 3
    np.random.seed(seed)        # noqa: NPY002 (the notebook draws from numpy's global RandomState)
    results = {s: {} for s in sizes}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for _ in range(n_datasets):                     # the notebook's loop (cell 7), sizes and seed set here
            priors = ns["sample_priors"](n_categories)
            dataset = ns["generate_dataset"](priors, max_items, max_annotators, noise_annotators, noise_llm)
            for size in sizes:
                for _b in range(n_boots):
                    boot = ns["prepare_boot"](dataset, size, n_annotators, replace=False)
                    llm_boot, ann_boot = ns["split_dataset"](boot)
                    metrics = ns["compute_traditional_measures"](boot)
                    apps = []
                    for eps in epsilons:
                        wr, ap = ns["alt_test"](llm_boot, ann_boot, "accuracy", eps)
                        metrics[f"wr_{eps}"] = wr
                        apps.append(ap)
                    metrics["app"] = float(np.nanmean(apps))
                    for k, v in metrics.items():
                        results[size].setdefault(k, []).append(float(v))
    table = []
    for size in sizes:
        r = results[size]
        row = {"size": size, **{k: float(np.nanmean(v)) for k, v in r.items()},
               "app_05": float(np.nanpercentile(r["app"], 5)), "app_95": float(np.nanpercentile(r["app"], 95)),
               "n_runs": len(r["app"])}
        for eps in epsilons:
            row[f"pass_{eps}"] = float(np.mean(np.asarray(r[f"wr_{eps}"]) >= 0.5))
            row[f"wr_{eps}_sd"] = float(np.std(r[f"wr_{eps}"], ddof=1))
        table.append(row)
    return {"seed": seed, "noise_annotators": noise_annotators, "noise_llm": noise_llm, "n_datasets": n_datasets,
            "n_boots": n_boots, "n_categories": n_categories, "max_items": max_items,
            "max_annotators": max_annotators, "n_annotators": n_annotators, "sizes": sizes, "epsilons": epsilons,
            "table": table}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alttest", type=Path, required=True,
                    help="a checkout (or git dir) of github.com/nitaytech/AltTest, or its alt_test_example.ipynb")
    args = ap.parse_args()
    nb, commit = _notebook(args.alttest)
    authors = Authors(nb)
    out = {"source": f"nitaytech/AltTest @ {commit}: alt_test_example.ipynb (alt_test, by_procedure, the simulation)",
           "generator": "tests/reference/make_reference_alttest.py",
           "versions": {"python": platform.python_version(), "numpy": np.__version__,
                        "scipy": metadata.version("scipy"), "scikit-learn": metadata.version("scikit-learn")},
           "pandalm": [], "synthetic": [], "simulation": []}
    humans, judges = _pandalm()
    for jname, judge in judges.items():
        for eps in (0.2, 0.15, 0.1):
            out["pandalm"].append({"judge": jname, "scoring": "accuracy", "epsilon": eps, "q": 0.05,
                                   **authors.run(judge, humans, "accuracy", epsilon=eps)})
    for name, h, j, scoring, eps, kw in _synthetic():
        fn = scoring
        if scoring == "abs_similarity":
            fn = lambda pred, anns, sim=authors.ns["sim"]: sim(pred, anns, lambda a, b: 1 - abs(a - b) / 4)  # noqa: E731
        res = authors.run(j, h, fn, epsilon=eps, **kw)
        out["synthetic"].append({"name": name, "scoring": scoring, "epsilon": eps, "q": 0.05, "kwargs": kw,
                                 "humans": _long(h), "judge": [[str(k), v] for k, v in j.items()], **res})
    for seed, na, nl in ((0, 0.3, 0.3), (1, 0.2, 0.4)):
        out["simulation"].append(_simulation(nb, seed, na, nl))
    (HERE / "alttest_values.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {HERE / 'alttest_values.json'}")


if __name__ == "__main__":
    main()
