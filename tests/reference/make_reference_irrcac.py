"""Generate tests/reference/irrcac_values.json with irrCAC (Python port of Gwet's irrCAC).

Run from the repository root, in a THROWAWAY venv (irrCAC pins old scipy/pandas;
never install it into the project's environment):

    python3 -m venv /tmp/irrcac_venv
    /tmp/irrcac_venv/bin/pip install irrcac==0.4.4
    /tmp/irrcac_venv/bin/python tests/reference/make_reference_irrcac.py

Two irrCAC APIs are used:

* ``irrCAC.table.CAC(df, weights=..., digits=15)`` on the K x K contingency table
  (a pandas DataFrame with index/columns 0..K-1).  Methods: ``cohen()``,
  ``gwet()`` (AC1 with identity weights, AC2 otherwise), ``bp()``, ``scott()``,
  ``krippendorff()``, ``pa2()``.  The table API has no ``fleiss()``.
* ``irrCAC.raw.CAC(df, weights=..., categories=list(range(K)), digits=15)`` on the
  item-level expansion (n subjects x 2 raters).  Methods: ``fleiss()``,
  ``gwet()``, ``krippendorff()``, ``conger()`` (= Cohen's kappa for 2 raters),
  ``bp()``.  The raw API uses a different (jackknife-style, n(n-1)
  denominator) variance estimator than the table API (delta method, 1/n), so
  SEs differ slightly between the two for the same coefficient.

Defaults kept: confidence_level=0.95, N=inf (no finite-population correction:
f = n/N = 0).  irrCAC's CIs are Student-t with n-1 df and the upper bound is
clipped at 1.  ``digits=15`` only to avoid irrCAC's default rounding to 5 digits.
"""

from __future__ import annotations

import json
import math
import platform
import sys
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
from irrCAC import raw as irr_raw
from irrCAC import table as irr_table

HERE = Path(__file__).resolve().parent
DIGITS = 15
WEIGHTS = ("identity", "linear", "quadratic")


def _num(x):
    """float or None for NaN/inf (JSON null)."""
    if x is None:
        return None
    try:
        arr = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return None
    if arr.size != 1:
        raise ValueError(f"expected a scalar, got {x!r}")
    x = float(arr[0])
    return x if math.isfinite(x) else None


def _run(call_desc, fn):
    """Call an irrCAC method; return a flat dict of its estimate (or the error)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn()
        except Exception as exc:  # noqa: BLE001 - we record any failure
            return {
                "coefficient": None,
                "error": f"{type(exc).__name__}: {exc}",
                "api_call": call_desc,
                "warnings": sorted({str(w.message) for w in caught}),
            }
    est = res["est"]
    lo, hi = est["confidence_interval"]
    out = {
        "coefficient_name": est["coefficient_name"],
        "coefficient": _num(est["coefficient_value"]),
        "se": _num(est["se"]),
        "ci_lower": _num(lo),
        "ci_upper": _num(hi),
        "pa": _num(est["pa"]),
        "pe": _num(est["pe"]),
        "api_call": call_desc,
    }
    w = sorted({str(w.message) for w in caught})
    if w:
        out["warnings"] = w
    if out["pe"] is not None and abs(out["pe"] - 1.0) < 1e-9:
        # chance agreement is 1: the coefficient is 0/0.  irrCAC.raw can still
        # report a finite value (e.g. 1.0) because pe comes out as 1 +/- 1e-16.
        out["undefined_pe_equals_1"] = True
    return out


def table_api(counts: np.ndarray) -> dict:
    k = counts.shape[0]
    df = pd.DataFrame(counts, index=list(range(k)), columns=list(range(k)))
    out = {}
    for wname in WEIGHTS:
        cac = irr_table.CAC(df, weights=wname, digits=DIGITS)
        base = f"irrCAC.table.CAC(table_df, weights={wname!r}, digits={DIGITS})"
        out[wname] = {
            "cohen_kappa": _run(base + ".cohen()", cac.cohen),
            "gwet_ac": _run(base + ".gwet()", cac.gwet),
            "brennan_prediger": _run(base + ".bp()", cac.bp),
            "scott_pi": _run(base + ".scott()", cac.scott),
            "krippendorff_alpha": _run(base + ".krippendorff()", cac.krippendorff),
            "percent_agreement": _run(base + ".pa2()", cac.pa2),
        }
        # table.CAC.scott() hard-codes pe=0 in its output dict; drop the misleading value.
        out[wname]["scott_pi"].pop("pe", None)
    return out


def raw_api(ratings: pd.DataFrame, categories: list, methods: tuple) -> dict:
    out = {}
    cats_desc = f"categories={categories!r}"
    for wname in WEIGHTS:
        cac = irr_raw.CAC(ratings.copy(), weights=wname, categories=categories, digits=DIGITS)
        base = f"irrCAC.raw.CAC(ratings_df, weights={wname!r}, {cats_desc}, digits={DIGITS})"
        entry = {}
        for key, meth in methods:
            entry[key] = _run(base + f".{meth}()", getattr(cac, meth))
        out[wname] = entry
    return out


RAW_METHODS_TWO_RATERS = (
    ("fleiss_kappa", "fleiss"),
    ("gwet_ac", "gwet"),
    ("krippendorff_alpha", "krippendorff"),
    ("conger_kappa", "conger"),
    ("brennan_prediger", "bp"),
)
RAW_METHODS_MULTI = RAW_METHODS_TWO_RATERS


def expand(counts: np.ndarray) -> pd.DataFrame:
    """Item-level expansion, row-major over cells (same order as the R script)."""
    ref, cand = [], []
    k = counts.shape[0]
    for i in range(k):
        for j in range(k):
            c = int(counts[i, j])
            ref += [i] * c
            cand += [j] * c
    # float dtype like irrCAC's own example data (NaN-capable)
    return pd.DataFrame({"ref": ref, "cand": cand}, dtype=float)


def main() -> None:
    spec = json.loads((HERE / "tables.json").read_text())
    tables_out = []
    for t in spec["tables"]:
        counts = np.asarray(t["counts"], dtype=float)
        k = counts.shape[0]
        entry = {
            "name": t["name"],
            "K": k,
            "n": int(counts.sum()),
            "table_api": table_api(counts),
            "raw_api": raw_api(expand(counts), list(range(k)), RAW_METHODS_TWO_RATERS),
        }
        tables_out.append(entry)

    fr = spec["fleiss_ratings"]
    fr_df = pd.DataFrame(np.asarray(fr["ratings"], dtype=float),
                         columns=[f"rater{r + 1}" for r in range(len(fr["ratings"][0]))])
    fleiss_out = {
        "layout": "subjects x raters DataFrame (rows = subjects)",
        "raw_api": raw_api(fr_df, list(fr["categories"]), RAW_METHODS_MULTI),
    }

    mm = spec["multirater_missing"]
    mm_arr = np.array([[np.nan if v is None else float(v) for v in row] for row in mm["ratings"]])
    # input is raters x items; irrCAC wants subjects x raters -> transpose.
    mm_df = pd.DataFrame(mm_arr.T, columns=[f"rater{r + 1}" for r in range(mm_arr.shape[0])])
    multi_out = {
        "layout": "input raters x items transposed to a subjects x raters DataFrame; null -> NaN; "
                  "irrCAC.raw drops subjects with no rating at all and uses only subjects with >= 2 ratings for pa",
        "raw_api": raw_api(mm_df, list(mm["categories"]), RAW_METHODS_MULTI),
    }

    out = {
        "generated_by": "tests/reference/make_reference_irrcac.py",
        "python_version": platform.python_version(),
        "irrcac_version": metadata.version("irrCAC"),
        "numpy_version": np.__version__,
        "pandas_version": pd.__version__,
        "scipy_version": scipy.__version__,
        "settings": {
            "confidence_level": 0.95,
            "population_size_N": "default N=inf, i.e. NO finite-population correction (f = n/N = 0)",
            "digits": DIGITS,
            "ci": "Student t with n-1 degrees of freedom (n = subjects), lower = est - t*se, "
                  "upper = min(1, est + t*se); lower is NOT clipped",
        },
        "weights_naming": {
            "identity": "unweighted (identity agreement matrix); gwet_ac is AC1",
            "linear": "irrCAC 'linear' AGREEMENT weights w_kl = 1 - |c_k - c_l| / (max c - min c) "
                      "= 1 - |k-l|/(K-1) for categories 0..K-1; gwet_ac is AC2. "
                      "(irrCAC's 'ordinal' is a DIFFERENT, rank-count based scheme, not used here.)",
            "quadratic": "irrCAC 'quadratic' AGREEMENT weights w_kl = 1 - (c_k - c_l)^2 / (max c - min c)^2; "
                         "gwet_ac is AC2",
            "table_api_categories": "table.CAC builds weights from positions 1..K (equivalent to 0..K-1)",
        },
        "api_notes": {
            "table_api": "irrCAC.table.CAC(pd.DataFrame(counts, index=0..K-1, columns=0..K-1), weights=W, digits=15) "
                         "with .cohen(), .gwet(), .bp(), .scott(), .krippendorff(), .pa2(); variance by the "
                         "delta method with 1/n (Gwet 2014 2-rater formulas).",
            "raw_api": "irrCAC.raw.CAC(item_level_df, weights=W, categories=[...], digits=15) with .fleiss(), .gwet(), "
                       ".krippendorff(), .conger(), .bp(); item_level_df has one row per item and one column per rater "
                       "(for tables: columns ref, cand, expanded row-major over cells). Variance = "
                       "(1/(n(n-1))) * sum_i (coef_i - coef)^2 over subject-level linearised terms.",
            "fleiss_kappa_for_tables": "for 2 raters Fleiss' kappa (raw API) has the same point estimate as Scott's pi "
                                       "(table API); SEs differ because the variance estimators differ.",
            "conger_kappa_for_tables": "for 2 raters Conger's kappa (raw API) equals Cohen's kappa (point estimate).",
            "krippendorff_alpha": "table API: alpha = (pa' - pe)/(1 - pe) with pa' = (1 - 1/(2n)) pa + 1/(2n) "
                                  "(exact Krippendorff alpha for 2 raters, no missing data); linear weights = "
                                  "interval-type distance |k-l| (not Krippendorff's 'ordinal' metric), quadratic = "
                                  "Krippendorff 'interval' metric.",
            "scott_pi_pe": "table.CAC.scott() hard-codes pe=0 in its output; that field is omitted here.",
            "nulls": "null = NaN/inf produced by irrCAC (e.g. 0/0 when chance agreement is 1, or se = 0 so "
                     "z = inf); 'error' = exception message; 'warnings' = numpy/pandas RuntimeWarnings raised.",
            "undefined_pe_equals_1": "flag set when irrCAC's pe is within 1e-9 of 1 (k2_degenerate_single_cell): the "
                                     "coefficient is mathematically undefined (0/0); any finite value reported next to "
                                     "this flag (raw API Fleiss/Krippendorff = 1.0) is a floating-point artefact, do not "
                                     "test against it.",
            "perfect_agreement": "raw API replaces se == 0 by 1e-15 before computing the CI; table API leaves se = 0 "
                                 "(then scipy's t.interval with scale 0 gives NaN bounds -> null).",
        },
        "tables": tables_out,
        "fleiss_ratings": fleiss_out,
        "multirater_missing": multi_out,
    }
    path = HERE / "irrcac_values.json"
    path.write_text(json.dumps(out, indent=1, allow_nan=False) + "\n")
    print(f"wrote {path} (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
