"""Generate tests/reference/judgy_values.json: judgy's corrected pass rates on judgy's own examples.

judgy (github.com/ai-evals-course/judgy, MIT; PyPI ``judgy``) corrects a judge's pass rate with the
Rogan–Gladen formula θ̂ = (p_obs + TNR − 1)/(TPR + TNR − 1), clipped to [0, 1], and gives a
percentile interval from a bootstrap of the labelled test set only (the judge's unlabelled share is
held fixed; replicates with TPR + TNR ≤ 1 or a one-class resample are skipped; replicates clipped).
metaeval's ``rogan_gladen(..., judge_error=False, ci_method="percentile")`` is the same estimator.

Run from the repository root, in a THROWAWAY venv (never the project's environment):

    python3 -m venv /work/tmp-prev-venv
    /work/tmp-prev-venv/bin/pip install judgy==0.1.0
    /work/tmp-prev-venv/bin/python tests/reference/make_reference_judgy.py

Cases (each records the labels, the validation table, the judge's positives and total, the exact
judgy call and its output):

* ``readme_quick_start``: README.md "Quick Start";
* ``docstring_example``: the Example of ``estimate_success_rate``;
* ``test_basic_functionality``, ``test_perfect_judge``, ``test_numpy_array_inputs``,
  ``test_edge_case_small_sample``: the inputs of judgy's tests/test_core.py;
* ``test_different_confidence_levels_90`` / ``_99``: that test's data at both levels;
* ``test_large_sample_stability``: that test's generated data (``np.random.seed(42)``, as there);
* ``scenario_good_judge`` ... ``scenario_poor_judge``: ``judgy.synthetic.create_example_dataset``
  for its four scenarios (seed 42);
* ``test_poor_judge_accuracy``: a judge that is always wrong (judgy raises ValueError: TPR + TNR ≤ 1).

Every call runs with ``bootstrap_iterations=20000`` (judgy's default) after ``np.random.seed(0)``,
so the file is reproducible; the JSON records the versions it ran with.
"""

# judgy and its tests draw from numpy's global RandomState: seeding it is how their numbers reproduce
# ruff: noqa: NPY002

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

import numpy as np
from judgy import estimate_success_rate
from judgy.synthetic import create_example_dataset

HERE = Path(__file__).resolve().parent
B = 20000


def _table(labels, preds) -> list[list[int]]:
    labels, preds = np.asarray(labels, dtype=int), np.asarray(preds, dtype=int)
    return [[int(((labels == r) & (preds == c)).sum()) for c in (0, 1)] for r in (0, 1)]


def _case(name, labels, preds, unlabeled, confidence_level=0.95, keep_labels=True):
    labels, preds, unlabeled = (np.asarray(a, dtype=int) for a in (labels, preds, unlabeled))
    out = {"name": name, "table": _table(labels, preds), "positives": int(unlabeled.sum()),
           "total": int(len(unlabeled)), "confidence_level": confidence_level, "bootstrap_iterations": B,
           "seed": 0,
           "call": f"np.random.seed(0); estimate_success_rate(test_labels, test_preds, unlabeled_preds, "
                   f"bootstrap_iterations={B}, confidence_level={confidence_level})"}
    if keep_labels:
        out.update(test_labels=labels.tolist(), test_preds=preds.tolist(), unlabeled_preds=unlabeled.tolist())
    np.random.seed(0)
    try:
        theta, low, high = estimate_success_rate(labels, preds, unlabeled, bootstrap_iterations=B,
                                                 confidence_level=confidence_level)
        out.update(theta_hat=theta, lower=low, upper=high, error=None)
    except (ValueError, RuntimeError) as exc:
        out.update(theta_hat=None, lower=None, upper=None, error=f"{type(exc).__name__}: {exc}")
    return out


def main() -> None:
    cases = [
        _case("readme_quick_start", [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 1, 0, 1]),
        _case("docstring_example", [1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0], [1, 1, 0, 1, 0]),
        _case("test_basic_functionality", [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0],
              [1, 1, 0, 1, 0, 1, 0, 1, 1, 0]),
        _case("test_perfect_judge", [1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0], [1, 1, 0, 0]),
        _case("test_numpy_array_inputs", [1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0], [1, 1, 0, 1, 0]),
        _case("test_edge_case_small_sample", [1, 0], [1, 0], [1]),
        _case("test_different_confidence_levels_90", [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0],
              [1, 1, 0, 1, 0] * 10, confidence_level=0.90),
        _case("test_different_confidence_levels_99", [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0],
              [1, 1, 0, 1, 0] * 10, confidence_level=0.99),
        _case("test_poor_judge_accuracy", [1, 1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1, 1], [1, 0, 1, 0]),
    ]
    # tests/test_core.py::test_large_sample_stability, generated exactly as there
    np.random.seed(42)
    n_pos, n_neg, tpr, tnr = 200, 200, 0.8, 0.85
    labels = np.concatenate([np.ones(n_pos), np.zeros(n_neg)])
    preds = np.concatenate([(np.random.rand(n_pos) < tpr).astype(int), (np.random.rand(n_neg) >= tnr).astype(int)])
    true_unl = (np.random.rand(1000) < 0.7).astype(int)
    unl = np.where(true_unl == 1, (np.random.rand(1000) < tpr).astype(int), (np.random.rand(1000) >= tnr).astype(int))
    cases.append(_case("test_large_sample_stability", labels, preds, unl, keep_labels=False))
    for scenario in ("good_judge", "mediocre_judge", "biased_judge", "poor_judge"):
        tl, tp, up = create_example_dataset(scenario, random_seed=42)
        c = _case(f"scenario_{scenario}", tl, tp, up, keep_labels=False)
        c["generator"] = f"judgy.synthetic.create_example_dataset({scenario!r}, random_seed=42)"
        cases.append(c)
    out = {
        "source": "judgy 0.1.0 (PyPI; github.com/ai-evals-course/judgy @ e6cd4fe), judgy.estimate_success_rate",
        "generator": "tests/reference/make_reference_judgy.py",
        "versions": {"python": platform.python_version(), "judgy": metadata.version("judgy"),
                     "numpy": np.__version__},
        "conventions": "table rows: reference (test label) 0/1, columns: judge prediction 0/1; positives/total: "
                       "the judge's passes among the unlabelled predictions",
        "cases": cases,
    }
    (HERE / "judgy_values.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {HERE / 'judgy_values.json'}")


if __name__ == "__main__":
    main()
