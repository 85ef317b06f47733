"""Generate tests/reference/irrcac_two_raters.json: irrCAC's two-rater (contingency-table) coefficients,
standard errors and intervals under all eight named weight schemes, custom weight matrices, weights
built from category values, a finite-population correction and a 90% confidence level.

Run from the repository root, in a THROWAWAY venv (irrCAC pins old numpy/pandas; never install it
into the project's environment):

    python3 -m venv /work/tmp-analytic-venv
    /work/tmp-analytic-venv/bin/pip install irrcac==0.4.4
    /work/tmp-analytic-venv/bin/python tests/reference/make_reference_irrcac_two_raters.py

What is called (irrCAC 0.4.4, the Python port of Gwet's R package irrCAC by A. Fergadis):

* ``irrCAC.table.CAC(df, weights=W, confidence_level=CL, N=N, digits=15)`` with ``.pa2()``,
  ``.cohen()``, ``.scott()``, ``.gwet()``, ``.bp()``, ``.krippendorff()``. ``W`` is a scheme name
  (the table API then builds the weights from the positions 1..K) or a matrix.
* ``irrCAC.weights.Weights(categories)[scheme]`` for weights built from category *values*; those
  matrices are stored and passed to ``CAC`` as custom weights.

Known properties of irrCAC recorded here (tests/test_analytic.py relies on them):

* the interval is est -/+ t_{n-1} * se with the upper end capped at 1 (lower end not capped);
* ``scott()`` hard-codes pe = 0 in its output (dropped here);
* ``krippendorff()`` reports the standard error of the unadjusted coefficient (Scott's pi);
* with an ASYMMETRIC custom weight matrix the port's ``cohen()``, ``scott()`` and
  ``krippendorff()`` use transposed weight averages (``(W * p).sum(axis=0)``), so their variances
  differ from the R package's formulas there (entries flagged ``asymmetric_weights``).

Deterministic: running it twice gives the same file byte for byte.
"""

from __future__ import annotations

import json
import math
import platform
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
from irrCAC import table as irr_table
from irrCAC.weights import Weights

HERE = Path(__file__).resolve().parent
DIGITS = 15
SCHEMES = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")
METHODS = (("percent_agreement", "pa2"), ("cohen_kappa", "cohen"), ("scott_pi", "scott"),
           ("gwet_ac", "gwet"), ("brennan_prediger", "bp"), ("krippendorff_alpha", "krippendorff"))

# irrCAC's own contingency tables (R package inst/extdata/*.csv; rows = rater 1 / method 1).
IRRCAC_TABLES = {
    "cont3x3abstractors": [[13, 0, 0], [0, 20, 7], [0, 4, 56]],
    "cont4x4diagnosis": [[40, 6, 4, 15], [4, 25, 1, 5], [4, 2, 21, 9], [17, 13, 12, 45]],
    # the Python port's irrCAC.datasets.table_cont4x4diagnosis() is the transpose of the R csv
    "cont4x4diagnosis_port": [[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]],
}
FROM_TABLES_JSON = ("k2_balanced", "k2_asymmetric_marginals", "k2_negative_agreement", "k3_fleiss_cohen_everitt",
                    "k3_empty_row", "k4_trec_relevance", "k4_small_sparse", "k5_likert")

# custom weight matrices: the port's own tests (test_krippendorff.py 3x3; test_cohen.py etc. 4x4,
# both asymmetric) and symmetric ones
CUSTOM = {
    2: {"custom_symmetric": [[1.0, 0.4], [0.4, 1.0]]},
    3: {"custom_port_asymmetric": [[1.0, 0.5, 0.0], [0.0, 1.0, 0.5], [0.5, 0.0, 1.0]],
        "custom_symmetric": [[1.0, 0.6, 0.1], [0.6, 1.0, 0.3], [0.1, 0.3, 1.0]]},
    4: {"custom_port_asymmetric": [[1.00, 0.67, 0.33, 0.00], [0.00, 1.00, 0.67, 0.33],
                                   [0.00, 0.00, 1.00, 0.67], [0.33, 0.00, 0.00, 1.00]],
        "custom_symmetric": [[1.0, 0.7, 0.2, 0.0], [0.7, 1.0, 0.5, 0.1], [0.2, 0.5, 1.0, 0.6],
                             [0.0, 0.1, 0.6, 1.0]]},
    5: {"custom_symmetric": (1 - np.abs(np.subtract.outer(range(5), range(5))) ** 1.5 / 4 ** 1.5).tolist()},
}
# category values for weights built from values (irrCAC.weights.Weights(categories))
CATEGORY_VALUES = {2: [1, 3], 3: [1, 2, 5], 4: [1, 2, 4, 7], 5: [1, 2, 3, 5, 8]}


def _num(x):
    if x is None:
        return None
    x = float(np.asarray(x, dtype=float).reshape(-1)[0])
    return x if math.isfinite(x) else None


def _call(cac, meth):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = getattr(cac, meth)()["est"]
    lo, hi = est["confidence_interval"]
    out = {"coefficient": _num(est["coefficient_value"]), "se": _num(est["se"]),
           "ci_lower": _num(lo), "ci_upper": _num(hi), "pa": _num(est["pa"]), "pe": _num(est["pe"])}
    if meth in ("scott", "pa2"):
        out.pop("pe")  # scott() hard-codes pe = 0; pa2 has none
    return out


def _all_methods(counts, weights, *, confidence_level=0.95, population_size=None):
    k = len(counts)
    df = pd.DataFrame(np.asarray(counts, dtype=float), index=list(range(k)), columns=list(range(k)))
    N = np.inf if population_size is None else population_size
    w = weights if isinstance(weights, str) else np.asarray(weights, dtype=float)
    cac = irr_table.CAC(df, weights=w, confidence_level=confidence_level, N=N, digits=DIGITS)
    return {name: _call(cac, meth) for name, meth in METHODS}


def main() -> None:
    spec = {t["name"]: t["counts"] for t in json.loads((HERE / "tables.json").read_text())["tables"]}
    tables = dict(IRRCAC_TABLES)
    tables.update({name: spec[name] for name in FROM_TABLES_JSON})

    cases = []
    for tname, counts in tables.items():
        k = len(counts)
        n = int(np.sum(counts))
        for scheme in SCHEMES:
            cases.append({"table": tname, "weights": scheme, "confidence_level": 0.95, "population_size": None,
                          "results": _all_methods(counts, scheme)})
        for cname, W in CUSTOM.get(k, {}).items():
            Wa = np.asarray(W)
            cases.append({"table": tname, "weights": cname, "weight_matrix": Wa.tolist(),
                          "asymmetric_weights": bool(not np.allclose(Wa, Wa.T)),
                          "confidence_level": 0.95, "population_size": None, "results": _all_methods(counts, W)})
        # finite population (N = 4n) at a 90% level
        for scheme in ("identity", "quadratic"):
            cases.append({"table": tname, "weights": scheme, "confidence_level": 0.90, "population_size": 4 * n,
                          "results": _all_methods(counts, scheme, confidence_level=0.90, population_size=4 * n)})
        # weights from category values
        cats = CATEGORY_VALUES[k]
        for scheme in SCHEMES:
            Wv = np.asarray(Weights(list(cats))[scheme], dtype=float)
            cases.append({"table": tname, "weights": scheme, "levels": cats, "weight_matrix": Wv.tolist(),
                          "confidence_level": 0.95, "population_size": None, "results": _all_methods(counts, Wv)})

    weights_from_values = {}
    for k, cats in CATEGORY_VALUES.items():
        weights_from_values[str(k)] = {"levels": cats, "matrices": {
            s: np.asarray(Weights(list(cats))[s], dtype=float).tolist() for s in SCHEMES}}

    out = {
        "generated_by": "tests/reference/make_reference_irrcac_two_raters.py",
        "python_version": platform.python_version(),
        "irrcac_version": metadata.version("irrCAC"),
        "numpy_version": np.__version__,
        "pandas_version": pd.__version__,
        "scipy_version": scipy.__version__,
        "api": "irrCAC.table.CAC(pd.DataFrame(counts, index=0..K-1, columns=0..K-1), weights=W, "
               "confidence_level=CL, N=N (inf when population_size is null), digits=15).<method>() with methods "
               "pa2, cohen, scott, gwet, bp, krippendorff; W a scheme name (the table API builds it from the "
               "positions 1..K) or a matrix (custom_*, or irrCAC.weights.Weights(levels)[scheme] for entries with "
               "'levels')",
        "notes": {
            "interval": "est -/+ scipy.stats.t.ppf((1+CL)/2, n-1) * se, upper end capped at 1",
            "population_size": "null = N infinite (no finite-population correction); else variance * (1 - n/N)",
            "scott_pe": "scott() hard-codes pe = 0; omitted",
            "krippendorff_se": "the standard error of the unadjusted coefficient (= Scott's pi's)",
            "asymmetric_weights": "the port's cohen/scott/krippendorff variances use transposed weight averages; "
                                  "for asymmetric W they differ from the R package (and from metaeval)",
            "nulls": "null = NaN or inf from irrCAC (undefined coefficient, se = 0)",
        },
        "tables": {name: counts for name, counts in tables.items()},
        "weights_from_values": weights_from_values,
        "cases": cases,
    }
    path = HERE / "irrcac_two_raters.json"
    path.write_text(json.dumps(out, indent=1, allow_nan=False) + "\n")
    print(f"wrote {path}: {len(cases)} cases")


if __name__ == "__main__":
    main()
