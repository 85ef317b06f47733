"""Cross-check the committed reference values against each other and against
independent Python implementations (sklearn, statsmodels, krippendorff) and a
direct implementation of the textbook formulas.

Run from the repository root with the project venv (NOT the irrCAC venv):

    /work/venv/bin/python tests/reference/check_reference.py

Prints one line per comparison group with the largest absolute difference and
exits non-zero if any difference exceeds TOL.  Read-only: writes nothing.
Not collected by pytest (file name does not start with test_).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

HERE = Path(__file__).resolve().parent
TOL = 1e-9

spec = json.loads((HERE / "tables.json").read_text())
psych = {t["name"]: t for t in json.loads((HERE / "r_psych_values.json").read_text())["tables"]}
irr_all = json.loads((HERE / "irrcac_values.json").read_text())
irr = {t["name"]: t for t in irr_all["tables"]}

worst: dict[str, tuple[float, str]] = {}
failures: list[str] = []


def cmp(group: str, name: str, a, b, tol: float = TOL) -> None:
    """Record |a - b|; None on both sides counts as agreement."""
    if a is None and b is None:
        return
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
        failures.append(f"{group} [{name}]: {a!r} vs {b!r}")
        return
    diff = abs(float(a) - float(b))
    if diff > worst.get(group, (-1.0, ""))[0]:
        worst[group] = (diff, name)
    if diff > tol:
        failures.append(f"{group} [{name}]: {a!r} vs {b!r} (diff {diff:.3g})")


def expand(counts):
    ref, cand = [], []
    k = len(counts)
    for i in range(k):
        for j in range(k):
            ref += [i] * counts[i][j]
            cand += [j] * counts[i][j]
    return np.array(ref), np.array(cand)


def agreement_weights(k: int, kind: str) -> np.ndarray:
    d = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / max(k - 1, 1)
    return {"identity": np.eye(k), "linear": 1 - d, "quadratic": 1 - d**2}[kind]


def fce_kappa_var(counts: np.ndarray, w: np.ndarray):
    """Weighted kappa and its Fleiss-Cohen-Everitt (1969) large-sample variance
    (agreement weights w; identity w gives unweighted kappa)."""
    n = counts.sum()
    p = counts / n
    r, c = p.sum(1), p.sum(0)
    po = (w * p).sum()
    pe = (w * np.outer(r, c)).sum()
    kappa = (po - pe) / (1 - pe)
    wi = w @ c          # wbar_i. = sum_j p_.j w_ij
    wj = r @ w          # wbar_.j = sum_i p_i. w_ij
    s = (p * (w - (wi[:, None] + wj[None, :]) * (1 - kappa)) ** 2).sum()
    var = (s - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2)
    return kappa, var


def ac1_bp(counts: np.ndarray, w: np.ndarray):
    n = counts.sum()
    k = counts.shape[0]
    p = counts / n
    pa = (w * p).sum()
    pi = (p.sum(1) + p.sum(0)) / 2
    pe_ac = w.sum() * (pi * (1 - pi)).sum() / (k * (k - 1))
    pe_bp = w.sum() / k**2
    return (pa - pe_ac) / (1 - pe_ac), (pa - pe_bp) / (1 - pe_bp)


def linear_metric(v1, v2, i1, i2, n_v, dtype=np.float64):
    return np.abs(v1 - v2).astype(dtype)


for t in spec["tables"]:
    name = t["name"]
    counts = np.asarray(t["counts"], dtype=float)
    k = counts.shape[0]
    ref, cand = expand(t["counts"])
    ps, ir = psych[name], irr[name]
    undefined = (counts.sum(1) @ counts.sum(0)) / counts.sum() ** 2 == 1.0  # pe = 1
    for kind, skl_w, psych_key in (("identity", None, "kappa"),
                                   ("linear", "linear", "weighted_kappa_linear"),
                                   ("quadratic", "quadratic", "weighted_kappa_quadratic")):
        w = agreement_weights(k, kind)
        if undefined:
            # kappa is 0/0: psych and irrCAC.table give null; sklearn gives nan
            assert ps[psych_key] is None, name
            assert ir["table_api"][kind]["cohen_kappa"]["coefficient"] is None, name
            continue
        skl = cohen_kappa_score(ref, cand, labels=list(range(k)), weights=skl_w)
        kap, var = fce_kappa_var(counts, w)
        cmp(f"cohen kappa ({kind}): sklearn vs psych", name, skl, ps[psych_key])
        cmp(f"cohen kappa ({kind}): sklearn vs irrCAC.table", name, skl, ir["table_api"][kind]["cohen_kappa"]["coefficient"])
        cmp(f"cohen kappa ({kind}): sklearn vs irrCAC.raw conger", name, skl, ir["raw_api"][kind]["conger_kappa"]["coefficient"])
        cmp(f"cohen kappa ({kind}): sklearn vs FCE formula", name, skl, kap)
        # psych: agreement- and disagreement-form weight matrices give the same estimate
        wk = ps["weighted"]
        if kind != "identity":
            cmp(f"psych weighted kappa ({kind}): disagreement-w vs agreement-w", name,
                wk[f"{kind}_disagreement_w"]["weighted_kappa"], wk[f"{kind}_agreement_w"]["weighted_kappa"])
        # variance: irrCAC.table delta-method SE^2 == FCE variance
        se = ir["table_api"][kind]["cohen_kappa"]["se"]
        cmp(f"cohen kappa var ({kind}): irrCAC.table se^2 vs FCE formula", name, se**2, var, 1e-12)
        sm = inter_rater.cohens_kappa(counts, wt=None if kind == "identity" else kind)
        cmp(f"cohen kappa ({kind}): statsmodels vs FCE formula", name, sm.kappa, kap)
        if kind == "identity":
            cmp("cohen kappa var (unweighted): psych var.kappa vs FCE formula", name, ps["kappa_var"], var, 1e-12)
            cmp("cohen kappa var (unweighted): statsmodels var_kappa vs FCE formula", name, sm.var_kappa, var, 1e-12)
            z = 1.959963984540054
            if var > 0:
                cmp("psych 95% CI lower == kappa - z*sqrt(var)", name, ps["kappa_ci95"]["lower"], max(-1, kap - z * math.sqrt(var)))
                cmp("psych 95% CI upper == kappa + z*sqrt(var)", name, ps["kappa_ci95"]["upper"], min(1, kap + z * math.sqrt(var)))
        else:
            # statsmodels' weighted variance (its own implementation) vs FCE
            cmp(f"cohen kappa var ({kind}): statsmodels var_kappa vs FCE formula", name, sm.var_kappa, var, 1e-12)
        # AC1/AC2 and Brennan-Prediger, table API vs direct formula; raw API point estimate too
        ac, bp = ac1_bp(counts, w)
        cmp(f"gwet AC ({kind}): irrCAC.table vs formula", name, ir["table_api"][kind]["gwet_ac"]["coefficient"], ac)
        cmp(f"gwet AC ({kind}): irrCAC.raw vs formula", name, ir["raw_api"][kind]["gwet_ac"]["coefficient"], ac)
        cmp(f"brennan-prediger ({kind}): irrCAC.table vs formula", name, ir["table_api"][kind]["brennan_prediger"]["coefficient"], bp)
        cmp(f"brennan-prediger ({kind}): irrCAC.raw vs formula", name, ir["raw_api"][kind]["brennan_prediger"]["coefficient"], bp)
        # Scott's pi (table) == Fleiss kappa (raw, 2 raters) point estimate
        cmp(f"scott pi (table) vs fleiss kappa (raw) ({kind})", name,
            ir["table_api"][kind]["scott_pi"]["coefficient"], ir["raw_api"][kind]["fleiss_kappa"]["coefficient"])
        # Krippendorff alpha vs the krippendorff package
        level = {"identity": "nominal", "linear": linear_metric, "quadratic": "interval"}[kind]
        ka = float(krippendorff.alpha(reliability_data=np.vstack([ref, cand]).astype(float),
                                      value_domain=list(range(k)), level_of_measurement=level))
        cmp(f"krippendorff alpha ({kind}): krippendorff pkg vs irrCAC.table", name, ka, ir["table_api"][kind]["krippendorff_alpha"]["coefficient"])
        cmp(f"krippendorff alpha ({kind}): krippendorff pkg vs irrCAC.raw", name, ka, ir["raw_api"][kind]["krippendorff_alpha"]["coefficient"])
    if k == 2 and not undefined:
        agg, _ = inter_rater.aggregate_raters(np.vstack([ref, cand]).T, n_cat=k)
        cmp("fleiss kappa: statsmodels vs irrCAC.raw (2 raters)", name,
            inter_rater.fleiss_kappa(agg), irr[name]["raw_api"]["identity"]["fleiss_kappa"]["coefficient"])

# Fleiss' multi-rater example
fr = spec["fleiss_ratings"]
agg, _ = inter_rater.aggregate_raters(np.asarray(fr["ratings"]), n_cat=len(fr["categories"]))
fri = irr_all["fleiss_ratings"]["raw_api"]["identity"]
cmp("fleiss_ratings: fleiss kappa statsmodels vs irrCAC.raw", "fleiss_ratings", inter_rater.fleiss_kappa(agg), fri["fleiss_kappa"]["coefficient"])
cmp("fleiss_ratings: randolph (statsmodels) vs brennan-prediger irrCAC.raw", "fleiss_ratings",
    inter_rater.fleiss_kappa(agg, method="randolph"), fri["brennan_prediger"]["coefficient"])
ka = krippendorff.alpha(reliability_data=np.asarray(fr["ratings"], dtype=float).T, level_of_measurement="nominal")
cmp("fleiss_ratings: krippendorff pkg vs irrCAC.raw", "fleiss_ratings", float(ka), fri["krippendorff_alpha"]["coefficient"])

# Krippendorff's worked example with missing data
mm = spec["multirater_missing"]
data = np.array([[np.nan if v is None else v for v in row] for row in mm["ratings"]], dtype=float)
mmi = irr_all["multirater_missing"]["raw_api"]
for kind, level in (("identity", "nominal"), ("linear", linear_metric), ("quadratic", "interval")):
    ka = float(krippendorff.alpha(reliability_data=data, value_domain=mm["categories"], level_of_measurement=level))
    cmp(f"multirater_missing: krippendorff alpha ({kind}) pkg vs irrCAC.raw", "multirater_missing",
        ka, mmi[kind]["krippendorff_alpha"]["coefficient"])
cmp("multirater_missing: published nominal alpha 0.743", "multirater_missing",
    round(mmi["identity"]["krippendorff_alpha"]["coefficient"], 3), 0.743, 1e-12)
cmp("multirater_missing: published interval alpha 0.849", "multirater_missing",
    round(mmi["quadratic"]["krippendorff_alpha"]["coefficient"], 3), 0.849, 1e-12)

# irrCAC documentation values (rounded to 5 digits in the docs)
ab = irr["k3_gwet_abstractors"]["table_api"]
cmp("irrCAC docs: abstractors AC1 0.84933", "k3_gwet_abstractors", round(ab["identity"]["gwet_ac"]["coefficient"], 5), 0.84933, 1e-12)
cmp("irrCAC docs: abstractors AC1 se 0.04322", "k3_gwet_abstractors", round(ab["identity"]["gwet_ac"]["se"], 5), 0.04322, 1e-12)
cmp("irrCAC docs: abstractors AC2 quadratic 0.94024", "k3_gwet_abstractors", round(ab["quadratic"]["gwet_ac"]["coefficient"], 5), 0.94024, 1e-12)

# psych's weighted-kappa variance vs the FCE formula: expected to DISAGREE (known bug)
psych_wvar_diffs = []
for t in spec["tables"]:
    counts = np.asarray(t["counts"], dtype=float)
    k = counts.shape[0]
    if k < 3:
        continue
    for kind in ("linear", "quadratic"):
        _, var = fce_kappa_var(counts, agreement_weights(k, kind))
        pv = psych[t["name"]]["weighted"][f"{kind}_agreement_w"]["weighted_var_psych_known_wrong"]
        psych_wvar_diffs.append((abs(pv - var) / var if var > 0 else abs(pv), t["name"], kind, pv, var))

print(f"{'comparison':75s} {'max |diff|':>10s}  worst case")
for group, (diff, name) in worst.items():
    print(f"{group:75s} {diff:10.2e}  {name}")
print()
print("psych var.weighted (agreement-form w) vs FCE weighted variance, relative diff (expected: wrong):")
for rel, name, kind, pv, var in sorted(psych_wvar_diffs, reverse=True)[:6]:
    print(f"  {name:28s} {kind:9s} psych={pv:.6g} FCE={var:.6g} rel.diff={rel:.2%}")
print()
if failures:
    print(f"{len(failures)} FAILURES:")
    print("\n".join(failures))
    sys.exit(1)
print("all cross-checks agree within tolerance")
