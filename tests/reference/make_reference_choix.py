"""Generate tests/reference/choix_values.json: Bradley–Terry strengths fitted by choix.

choix (Lucas Maystre, github.com/lucasmaystre/choix, MIT) fits Bradley–Terry strengths that have
mean zero; with ``alpha > 0`` it maximizes the log-likelihood minus ``alpha · Σ θ²`` over every
strength (no strength pinned), which is metaeval's ``bradley_terry(..., ridge=2 * alpha)`` (whose
penalty is ``ridge/2 · Σ θ²``, a Gaussian prior of variance 1/ridge).

Run from the repository root, in a THROWAWAY venv (never the project's environment):

    python3 -m venv /work/tmp-pairwise-venv
    /work/tmp-pairwise-venv/bin/pip install choix==0.4.1
    /work/tmp-pairwise-venv/bin/python tests/reference/make_reference_choix.py

Cases (each records its data, the exact choix call and choix's estimate):

* ``opt_pairwise_8_random_alpha_0.5``: the data and penalty of choix's own test
  ``tests/test_opt.py::test_opt_pairwise_simple`` (``PAIRWISE_DATA``, ``alpha=0.5``), whose
  published expectation ``PAIRWISE_ESTIMATE`` is copied beside the regenerated value;
* the same data with ``alpha`` 0.1 and 2.0 (regenerated only);
* ``testcase_pairwise_1`` and ``testcase_pairwise_2``: choix's ``tests/data/testcase-pairwise-*.json``
  (unpenalized ML, ``ml_est`` copied), also refitted here with ``ilsr_pairwise``;
* ``battles_like_human_decisive``: the human verdicts of ``data_samples/battles_like/battles.csv``,
  leaning ties to their side and plain ties left out (metaeval's ``tie_rule="fdt", ties="drop"``),
  unpenalized (``ilsr_pairwise``, and ``opt_pairwise`` with ``alpha=0``) and with ``alpha=0.5``;
* ``battles_like_human_half``: the same verdicts with every tie (plain or leaning) as half a win
  (``tie_rule="tie_half", ties="half"``): choix has no ties, so each decisive verdict is entered
  twice and each tie once for each side, which doubles the log-likelihood and leaves the ML
  estimate unchanged (unpenalized only).

The script is deterministic; the JSON records the versions it ran with.
"""

from __future__ import annotations

import csv
import json
import platform
from importlib import metadata
from pathlib import Path

import choix
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# choix tests/test_opt.py (commit 7494ad3, version 0.4.1): `8-random` case and its expectation
PAIRWISE_DATA = [(7, 3), (2, 0), (5, 2), (4, 2), (2, 1), (4, 5), (6, 3), (5, 4), (7, 0), (2, 3), (4, 0), (0, 4),
                 (6, 5), (3, 2), (3, 4), (3, 4), (5, 2), (7, 3), (7, 6), (6, 5)]
PAIRWISE_ESTIMATE = [-0.51974039, -0.46280878, -0.31376862, -0.06854694, -0.3185146, -0.00346107, 0.63032783,
                     1.05651257]
# choix tests/data/testcase-pairwise-1.json and -2.json
TESTCASES = {
    "testcase_pairwise_1": {"desc": "Cycle on three items.", "n_items": 3, "data": [[0, 1], [1, 2], [2, 0]],
                            "ml_est": [0.0, 0.0, 0.0]},
    "testcase_pairwise_2": {"desc": "Cycle on three items with one additional comparison.", "n_items": 3,
                            "data": [[0, 1], [0, 1], [1, 2], [2, 0]], "ml_est": [0.419617624, -0.419617624, 0.0]},
}
TOL = 1e-12


def _opt(n, data, alpha):
    est = choix.opt_pairwise(n, data, alpha=alpha, method="Newton-CG", tol=TOL)
    return [float(x) for x in est]


def _ilsr(n, data):
    est = choix.ilsr_pairwise(n, data, alpha=0.0, tol=TOL, max_iter=10_000)
    return [float(x) for x in est - est.mean()]


def _battles_like():
    with open(ROOT / "data_samples" / "battles_like" / "battles.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["judge"] == "human"]
    models = sorted({r["model_a"] for r in rows} | {r["model_b"] for r in rows})
    idx = {m: i for i, m in enumerate(models)}
    decisive, half = [], []
    for r in rows:
        a, b, o = idx[r["model_a"]], idx[r["model_b"]], r["outcome"]
        if o in ("A", "tie_a"):
            decisive.append((a, b))
        elif o in ("B", "tie_b"):
            decisive.append((b, a))
        if o == "A":
            half += [(a, b), (a, b)]
        elif o == "B":
            half += [(b, a), (b, a)]
        elif o in ("tie", "tie_a", "tie_b"):
            half += [(a, b), (b, a)]
    return models, decisive, half, len(rows)


def main() -> None:
    out = {
        "generated_by": "tests/reference/make_reference_choix.py",
        "python_version": platform.python_version(),
        "choix_version": metadata.version("choix"),
        "numpy_version": np.__version__,
        "scipy_version": metadata.version("scipy"),
        "conventions": {
            "strengths": "log-strengths theta with mean zero (choix's identification)",
            "penalty": "choix maximizes loglik - alpha * sum(theta^2); metaeval's ridge = 2 * alpha",
            "data": "pairs (winner, loser) of item indices; models of battles_like indexed in sorted order",
            "tolerance": f"tol={TOL} passed to choix",
        },
        "cases": [],
    }
    for alpha in (0.5, 0.1, 2.0):
        case = {"name": f"opt_pairwise_8_random_alpha_{alpha}", "n_items": 8, "data": PAIRWISE_DATA,
                "alpha": alpha, "ridge": 2 * alpha,
                "call": f"choix.opt_pairwise(8, data, alpha={alpha}, method='Newton-CG', tol={TOL})",
                "estimate": _opt(8, PAIRWISE_DATA, alpha)}
        if alpha == 0.5:
            case["published"] = PAIRWISE_ESTIMATE
            case["published_source"] = "choix tests/test_opt.py PAIRWISE_ESTIMATE (test_opt_pairwise_simple)"
        out["cases"].append(case)
    for name, tc in TESTCASES.items():
        out["cases"].append({"name": name, "desc": tc["desc"], "n_items": tc["n_items"], "data": tc["data"],
                             "alpha": 0.0, "ridge": 0.0,
                             "call": f"choix.ilsr_pairwise({tc['n_items']}, data, alpha=0.0, tol={TOL})",
                             "estimate": _ilsr(tc["n_items"], tc["data"]), "published": tc["ml_est"],
                             "published_source": f"choix tests/data/{name.replace('_', '-')}.json ml_est"})
    models, decisive, half, n_rows = _battles_like()
    M = len(models)
    base = {"models": models, "n_rows": n_rows, "source": "data_samples/battles_like/battles.csv, judge == 'human'"}
    out["cases"].append({"name": "battles_like_human_decisive", **base, "n_items": M, "data": decisive,
                         "metaeval": "bradley_terry(human, tie_rule='fdt', ties='drop')", "alpha": 0.0, "ridge": 0.0,
                         "call": f"choix.ilsr_pairwise({M}, data, alpha=0.0, tol={TOL})",
                         "estimate": _ilsr(M, decisive),
                         "estimate_opt": _opt(M, decisive, 0.0)})
    out["cases"].append({"name": "battles_like_human_decisive_alpha_0.5", **base, "n_items": M, "data": decisive,
                         "metaeval": "bradley_terry(human, tie_rule='fdt', ties='drop', ridge=1.0)", "alpha": 0.5,
                         "ridge": 1.0, "call": f"choix.opt_pairwise({M}, data, alpha=0.5, method='Newton-CG', tol={TOL})",
                         "estimate": _opt(M, decisive, 0.5)})
    out["cases"].append({"name": "battles_like_human_half", **base, "n_items": M, "data": half,
                         "metaeval": "bradley_terry(human, tie_rule='tie_half', ties='half')", "alpha": 0.0,
                         "ridge": 0.0, "call": f"choix.ilsr_pairwise({M}, data, alpha=0.0, tol={TOL})",
                         "estimate": _ilsr(M, half)})
    (HERE / "choix_values.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {HERE / 'choix_values.json'} ({len(out['cases'])} cases)")


if __name__ == "__main__":
    main()
