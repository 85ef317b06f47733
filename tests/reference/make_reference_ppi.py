"""Reference values of ppi_py (PPI, PPI++) for tests/test_ppi.py.

Run in a throwaway venv (ppi_py is never a dependency of metaeval)::

    python3 -m venv /work/tmp-ppi-venv
    /work/tmp-ppi-venv/bin/pip install ppi-python==0.2.3
    /work/tmp-ppi-venv/bin/python tests/reference/make_reference_ppi.py

It writes tests/reference/ppi_values.json. The inputs are not stored: :func:`make_inputs` draws
them from a seeded ``numpy.random.default_rng`` (this file needs only numpy for that, and
tests/test_ppi.py imports it to draw the same inputs); the JSON records each input's sum so that
a change of numpy's random stream shows up as a clear test failure, not a wrong comparison.

The cases
---------
* ``ppi_py:<test name>``: the designs of ppi_py's own tests (tests/test_mean.py, test_quantile.py,
  test_ols.py, test_logistic.py of github.com/aangelopoulos/ppi_py at bd90caa), drawn with a
  seed instead of numpy's global state; ppi_py's tests only check coverage, here the intervals
  themselves are recorded.
* ``seeded:<...>``: small and medium synthetic data (a biased, noisy judge; λ inside (0, 1)),
  with λ tuned, λ given, one-sided alternatives and ``coord``.

ppi_py quirks kept in mind (the tests say which calls they mirror):

* ``ppi_mean_ci(lam=None)`` drops ``alternative`` in its recursive call (the tuned interval is
  always two-sided), so one-sided cases pass the tuned λ explicitly;
* ``ppi_mean_pval(lam=None)`` does not clip λ to [0, 1] (the interval does), so p-values are
  recorded for λ given;
* the logistic tests of ppi_py pass ``optimizer_options={"gtol": 1e-3}`` (a loose stop); the
  references use ppi_py's default (ftol = 1e-15) so that both sides find the same optimum.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("ppi_values.json")
ALPHAS = [0.5, 0.2, 0.1, 0.05, 0.01]


def _expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def make_inputs(case: str, seed: int) -> dict:
    """The inputs of one case, drawn from ``default_rng(seed)`` (only numpy needed)."""
    rng = np.random.default_rng(seed)
    if case == "mean_pointestimate":              # ppi_py tests/test_mean.py::test_ppi_mean_pointestimate
        Y = rng.normal(0, 1, 100)
        return {"Y": Y, "Yhat": Y + 2, "Yhat_unlabeled": np.ones(10000) * 2}
    if case == "mean_ci":                          # test_ppi_mean_ci / test_ppi_mean_pval / classical
        return {"Y": rng.normal(0, 1, 10000), "Yhat": rng.normal(-2, 1, 10000),
                "Yhat_unlabeled": rng.normal(-2, 1, 10000)}
    if case.startswith("mean_seeded"):             # seeded:<n>_<N>: biased judge correlated with y
        n, N = (int(v) for v in case.split("_")[2:4])
        y = rng.normal(0.5, 0.2, n)
        yh = 0.8 * y + 0.15 + rng.normal(0, 0.08, n)
        yu_true = rng.normal(0.5, 0.2, N)
        return {"Y": y, "Yhat": yh, "Yhat_unlabeled": 0.8 * yu_true + 0.15 + rng.normal(0, 0.08, N)}
    if case == "quantile_ci":                      # test_quantile.py::test_ppi_quantile_ci (one trial)
        q, n, N, bias, sigma = 0.75, 1000, 1000, 2, 0.1
        true_q = rng.normal(0, 1)
        b = 2 * rng.binomial(1, 1 - q, n) - 1
        bu = 2 * rng.binomial(1, 1 - q, N) - 1
        Y = true_q + np.abs(rng.normal(0, 1, n)) * b
        Yhat = Y + sigma * rng.normal(0, 1, n) + bias
        Yu = true_q + np.abs(rng.normal(0, 1, N)) * bu
        return {"Y": Y, "Yhat": Yhat, "Yhat_unlabeled": Yu + sigma * rng.normal(0, 1, N) + bias}
    if case == "quantile_pointestimate":           # test_quantile.py::test_ppi_quantile_pointestimate
        q, n, N, bias, sigma = 0.75, 1000, 10000, 1, 0.1
        true_q = rng.normal(0, 1)
        b = 2 * rng.binomial(1, 1 - q, n) - 1
        bu = 2 * rng.binomial(1, 1 - q, N) - 1
        Y = true_q + np.abs(rng.normal(0, 1, n)) * b
        Yhat = Y + sigma * rng.normal(0, 1, n) + bias
        Yu = true_q + np.abs(rng.normal(0, 1, N)) * bu
        return {"Y": Y, "Yhat": Yhat, "Yhat_unlabeled": Yu + sigma * rng.normal(0, 1, N) + bias}
    if case == "quantile_seeded":
        y = rng.gamma(2.0, 1.0, 60)
        yh = y + rng.normal(0.4, 0.5, 60)
        yu = rng.gamma(2.0, 1.0, 400) + rng.normal(0.4, 0.5, 400)
        return {"Y": y, "Yhat": yh, "Yhat_unlabeled": yu}
    if case in ("ols_pointestimate", "ols_ci"):
        # test_ols.py::test_ppi_ols_pointestimate (d = 10) and ::test_ppi_ols_ci (d = 1)
        n, N, d = {"ols_pointestimate": (1000, 10000, 10), "ols_ci": (1000, 10000, 1)}[case]
        X = rng.standard_normal((n, d))
        beta = rng.standard_normal(d)
        beta_pred = beta + rng.standard_normal(d) + 2
        Y = X @ beta + rng.standard_normal(n)
        Yhat = X @ beta_pred + rng.standard_normal(n)
        Xu = rng.standard_normal((N, d))
        Yhu = Xu @ beta_pred + rng.standard_normal(N)
        return {"X": X, "Y": Y, "Yhat": Yhat, "X_unlabeled": Xu, "Yhat_unlabeled": Yhu}
    if case == "ols_seeded":                       # intercept + 2 covariates; the judge tracks y's noise
        n, N = 40, 300
        X = np.column_stack([np.ones(n), rng.standard_normal((n, 2))])
        Xu = np.column_stack([np.ones(N), rng.standard_normal((N, 2))])
        beta = np.array([0.5, 1.0, -0.4])
        Y = X @ beta + rng.standard_normal(n)
        Yu = Xu @ beta + rng.standard_normal(N)
        Yhat = 0.9 * Y + 0.2 + 0.3 * X[:, 1] + 0.5 * rng.standard_normal(n)
        Yhu = 0.9 * Yu + 0.2 + 0.3 * Xu[:, 1] + 0.5 * rng.standard_normal(N)
        return {"X": X, "Y": Y, "Yhat": Yhat, "X_unlabeled": Xu, "Yhat_unlabeled": Yhu}
    if case == "logistic_debias":                  # test_logistic.py::test_ppi_logistic_pointestimate_debias
        n, N, d = 100, 1000, 2
        X = rng.standard_normal((n, d))
        beta = rng.standard_normal(d)
        bp = beta + rng.standard_normal(d) + 2
        Y = _expit(X @ beta + rng.standard_normal(n))
        Yhat = _expit(X @ bp + rng.standard_normal(n))
        Xu = rng.standard_normal((N, d))
        return {"X": X, "Y": (Y > 0.5).astype(float), "Yhat": Yhat, "X_unlabeled": Xu,
                "Yhat_unlabeled": _expit(Xu @ bp + rng.standard_normal(N))}
    if case in ("logistic_ci", "logistic_pval"):
        # test_logistic.py::ppi_logistic_ci_subtest (d = 2 as in test_ppi_logistic_ci_parallel) and
        # ::test_ppi_logistic_pval_makesense (beta = (0, 0, 1), a perfect predictor)
        if case == "logistic_ci":
            n, N, d = 1000, 10000, 2
            X = rng.standard_normal((n, d))
            beta = rng.standard_normal(d)
            bp = beta + rng.standard_normal(d) + 2
            Y = rng.binomial(1, _expit(X @ beta)).astype(float)
            Xu = rng.standard_normal((N, d))
            return {"X": X, "Y": Y, "Yhat": _expit(X @ bp), "X_unlabeled": Xu, "Yhat_unlabeled": _expit(Xu @ bp)}
        n, N, d = 2000, 20000, 3
        X = rng.standard_normal((n, d))
        beta = np.array([0, 0, 1.0])
        Y = rng.binomial(1, _expit(X @ beta)).astype(float)
        Xu = rng.standard_normal((N, d))
        return {"X": X, "Y": Y, "Yhat": _expit(X @ beta), "X_unlabeled": Xu, "Yhat_unlabeled": _expit(Xu @ beta)}
    if case == "logistic_seeded":                  # the judge's probability tracks the label
        n, N = 80, 600
        X = np.column_stack([np.ones(n), rng.standard_normal(n)])
        Xu = np.column_stack([np.ones(N), rng.standard_normal(N)])
        beta = np.array([-0.3, 1.2])
        Y = rng.binomial(1, _expit(X @ beta)).astype(float)
        Yu = rng.binomial(1, _expit(Xu @ beta)).astype(float)
        Yhat = _expit(2.0 * Y - 1.2 + 0.4 * X[:, 1] + rng.standard_normal(n))
        Yhu = _expit(2.0 * Yu - 1.2 + 0.4 * Xu[:, 1] + rng.standard_normal(N))
        return {"X": X, "Y": Y, "Yhat": Yhat, "X_unlabeled": Xu, "Yhat_unlabeled": Yhu}
    raise KeyError(case)


def checksums(inputs: dict) -> dict:
    return {k: float(np.sum(v)) for k, v in inputs.items()}


def _ci(lo_hi):
    lo, hi = lo_hi
    return [np.atleast_1d(np.asarray(lo, dtype=float)).tolist(), np.atleast_1d(np.asarray(hi, dtype=float)).tolist()]


def main() -> None:
    import importlib.metadata as md

    import ppi_py
    from ppi_py import (
        classical_mean_ci,
        ppi_logistic_ci,
        ppi_logistic_pointestimate,
        ppi_logistic_pval,
        ppi_mean_ci,
        ppi_mean_pointestimate,
        ppi_mean_pval,
        ppi_ols_ci,
        ppi_ols_pointestimate,
        ppi_quantile_ci,
        ppi_quantile_pointestimate,
    )
    from ppi_py.ppi import _calc_lam_glm

    cases = []

    def add(name, case, seed, function, call, result, mirrors):
        inp = make_inputs(case, seed)
        cases.append({"name": name, "inputs": case, "seed": seed, "checksums": checksums(inp), "function": function,
                      "call": call, "result": result, "mirrors": mirrors})

    # ---- means ------------------------------------------------------------------------------
    seed = 101
    d = make_inputs("mean_pointestimate", seed)
    add("mean_pointestimate", "mean_pointestimate", seed, "ppi_mean_pointestimate", {},
        {"estimate": float(np.asarray(ppi_mean_pointestimate(d["Y"], d["Yhat"], d["Yhat_unlabeled"])).ravel()[0])},
        "ppi_py tests/test_mean.py::test_ppi_mean_pointestimate")
    seed = 102
    d = make_inputs("mean_ci", seed)
    for a in ALPHAS:
        add(f"mean_ci_alpha{a}", "mean_ci", seed, "ppi_mean_ci", {"alpha": a},
            {"ci": _ci(ppi_mean_ci(d["Y"], d["Yhat"], d["Yhat_unlabeled"], alpha=a))},
            "ppi_py tests/test_mean.py::test_ppi_mean_ci")
        add(f"classical_mean_ci_alpha{a}", "mean_ci", seed, "classical_mean_ci", {"alpha": a},
            {"ci": _ci(classical_mean_ci(d["Y"], alpha=a))}, "ppi_py tests/test_mean.py::test_classical_mean_ci")
    for lam in (0.0, 0.5, 1.0):
        add(f"mean_pval_lam{lam}", "mean_ci", seed, "ppi_mean_pval", {"null": 0.0, "lam": lam},
            {"pvalue": float(np.asarray(ppi_mean_pval(d["Y"], d["Yhat"], d["Yhat_unlabeled"], null=0.0,
                                                      lam=lam)).ravel()[0])},
            "ppi_py tests/test_mean.py::test_ppi_mean_pval (λ given)")
    for i, (n, N) in enumerate([(10, 40), (15, 200), (25, 100), (50, 500), (200, 2000)]):
        case = f"mean_seeded_{n}_{N}"
        seed = 200 + i
        d = make_inputs(case, seed)
        Y, Yh, Yu = d["Y"], d["Yhat"], d["Yhat_unlabeled"]
        # λ* exactly as ppi_mean_ci computes it (gradients at the λ = 1 point estimate)
        theta1 = ppi_mean_pointestimate(Y, Yh, Yu, lam=1)
        lam_star = float(_calc_lam_glm((Y - theta1)[:, None], (Yh - theta1)[:, None], (Yu - theta1)[:, None],
                                       np.eye(1), clip=True))
        add(f"{case}_tuned", case, seed, "ppi_mean_ci", {"alpha": 0.05},
            {"ci": _ci(ppi_mean_ci(Y, Yh, Yu, alpha=0.05)),
             "estimate": float(np.ravel(ppi_mean_pointestimate(Y, Yh, Yu))[0]), "lam": lam_star},
            "ppi_py ppi_mean_ci / ppi_mean_pointestimate (lam=None) and _calc_lam_glm")
        for lam in (0.0, 0.3, 1.0):
            add(f"{case}_lam{lam}", case, seed, "ppi_mean_ci", {"alpha": 0.1, "lam": lam},
                {"ci": _ci(ppi_mean_ci(Y, Yh, Yu, alpha=0.1, lam=lam)),
                 "estimate": float(np.ravel(ppi_mean_pointestimate(Y, Yh, Yu, lam=lam))[0]),
                 "pvalue": float(np.ravel(ppi_mean_pval(Y, Yh, Yu, null=0.5, lam=lam))[0])},
                "ppi_py ppi_mean_ci / ppi_mean_pval with lam given")
        for alt in ("larger", "smaller"):
            add(f"{case}_{alt}", case, seed, "ppi_mean_ci", {"alpha": 0.05, "lam": lam_star, "alternative": alt},
                {"ci": _ci(ppi_mean_ci(Y, Yh, Yu, alpha=0.05, lam=lam_star, alternative=alt)),
                 "pvalue": float(np.ravel(ppi_mean_pval(Y, Yh, Yu, null=0.5, lam=lam_star, alternative=alt))[0])},
                "ppi_py ppi_mean_ci / ppi_mean_pval, one-sided, tuned λ passed")

    # ---- quantiles ----------------------------------------------------------------------------
    for case, seed, q, mirrors in [("quantile_ci", 301, 0.75, "ppi_py tests/test_quantile.py::test_ppi_quantile_ci"),
                                   ("quantile_pointestimate", 302, 0.75,
                                    "ppi_py tests/test_quantile.py::test_ppi_quantile_pointestimate"),
                                   ("quantile_seeded", 303, 0.5, "seeded"), ("quantile_seeded", 303, 0.9, "seeded")]:
        d = make_inputs(case, seed)
        Y, Yh, Yu = d["Y"], d["Yhat"], d["Yhat_unlabeled"]
        for exact in (False, True):
            res = {"estimate": float(ppi_quantile_pointestimate(Y, Yh, Yu, q, exact_grid=exact))}
            for a in ([0.05] if case != "quantile_ci" else ALPHAS):
                res[f"ci_alpha{a}"] = [float(v) for v in ppi_quantile_ci(Y, Yh, Yu, q, alpha=a, exact_grid=exact)]
            add(f"{case}_q{q}_exact{exact}", case, seed, "ppi_quantile_ci", {"q": q, "exact_grid": exact}, res,
                mirrors)

    # ---- OLS ----------------------------------------------------------------------------------
    for case, seed, calls, mirrors in [
            ("ols_pointestimate", 401, [{}], "ppi_py tests/test_ols.py::test_ppi_ols_pointestimate"),
            ("ols_ci", 402, [{"alpha": a} for a in (0.05, 0.1, 0.2)], "ppi_py tests/test_ols.py::test_ppi_ols_ci"),
            ("ols_seeded", 403, [{"alpha": 0.05}, {"alpha": 0.05, "lam": 0.0}, {"alpha": 0.05, "lam": 0.4},
                                 {"alpha": 0.05, "lam": 1.0}, {"alpha": 0.1, "coord": 1},
                                 {"alpha": 0.05, "alternative": "larger"}], "seeded")]:
        d = make_inputs(case, seed)
        args = (d["X"], d["Y"], d["Yhat"], d["X_unlabeled"], d["Yhat_unlabeled"])
        for call in calls:
            pe_kw = {k: v for k, v in call.items() if k in ("lam", "coord")}
            res = {"estimate": np.asarray(ppi_ols_pointestimate(*args, **pe_kw), dtype=float).tolist()}
            if call:
                res["ci"] = _ci(ppi_ols_ci(*args, **call))
            add(f"{case}_{json.dumps(call, sort_keys=True)}", case, seed, "ppi_ols_ci", call, res, mirrors)

    # ---- logistic -----------------------------------------------------------------------------
    for case, seed, calls, mirrors in [
            ("logistic_debias", 501, [{}, {"alpha": 0.1}],
             "ppi_py tests/test_logistic.py::test_ppi_logistic_pointestimate_debias"),
            ("logistic_ci", 502, [{"alpha": a} for a in (0.05, 0.1, 0.2)],
             "ppi_py tests/test_logistic.py::ppi_logistic_ci_subtest"),
            ("logistic_pval", 503, [{"lam": 0.5, "pval": True}, {"pval": True}],
             "ppi_py tests/test_logistic.py::test_ppi_logistic_pval_makesense"),
            ("logistic_seeded", 504, [{"alpha": 0.05}, {"alpha": 0.05, "lam": 0.0}, {"alpha": 0.05, "lam": 0.6},
                                      {"alpha": 0.1, "coord": 1}], "seeded")]:
        d = make_inputs(case, seed)
        args = (d["X"], d["Y"], d["Yhat"], d["X_unlabeled"], d["Yhat_unlabeled"])
        for call in calls:
            call = dict(call)
            pval = call.pop("pval", False)
            pe_kw = {k: v for k, v in call.items() if k in ("lam", "coord")}
            res = {"estimate": np.asarray(ppi_logistic_pointestimate(*args, **pe_kw), dtype=float).tolist()}
            if pval:
                res["pvalue"] = np.asarray(ppi_logistic_pval(*args, **pe_kw), dtype=float).tolist()
            elif call:
                res["ci"] = _ci(ppi_logistic_ci(*args, **call))
            add(f"{case}_{json.dumps({**call, 'pval': pval}, sort_keys=True)}", case, seed,
                "ppi_logistic_pval" if pval else "ppi_logistic_ci", call, res, mirrors)

    versions = {"ppi_python": md.version("ppi-python"), "numpy": np.__version__,
                "scipy": md.version("scipy"), "statsmodels": md.version("statsmodels"),
                "scikit-learn": md.version("scikit-learn"), "python": platform.python_version()}
    out = {"generated_by": "tests/reference/make_reference_ppi.py", "ppi_py_module": ppi_py.__name__,
           "versions": versions, "ppi_py_source": "github.com/aangelopoulos/ppi_py (tests read at commit bd90caa)",
           "cases": cases}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
