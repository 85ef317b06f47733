"""The registry of statistics: every registered statistic gives the same value through every consumer.

Consumers: the public function, ``agreement_report``, ``agreement_by`` (point estimates, vectorized
over groups, and bootstrap), ``agreement_difference`` (each side), ``sensitivity`` (the baseline),
the kernel itself, and the analytic path where the statistic has an analytic variance. A new
coefficient is tested here the moment it is registered. The values themselves are checked against
independent implementations in tests/test_agreement.py, tests/test_analytic.py and
tests/test_multirater.py; here the property is that one definition reaches every consumer.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.core import registry

# an ordinal 4-level table with every cell used (TREC-like relevance), and a binary one
T4 = np.array([[50, 12, 4, 1], [10, 30, 9, 2], [3, 8, 25, 6], [1, 2, 5, 20]])
T2 = np.array([[85, 20], [20, 77]])
SCALE4 = metaeval.Scale((0, 1, 2, 3), kind="ordinal")


def expand(t):
    i, j = np.indices(t.shape)
    return np.repeat(i.ravel(), t.ravel()).astype(float), np.repeat(j.ravel(), t.ravel()).astype(float)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


SCALAR = [s for s in registry.statistics("table") if s.components is None]
VECTOR = [s for s in registry.statistics("table") if s.components is not None]

# every weighting a scalar statistic accepts, as registry names
NAMED = []
for s in SCALAR:
    if s.weights == "agreement":
        NAMED += [s.name] + [f"{s.name}_{w}" for w in ("linear", "quadratic", "ordinal", "radical")]
    elif s.weights == "level":
        NAMED += [f"{s.name}_{lv}" for lv in ("nominal", "ordinal", "interval", "ratio")]
    else:
        NAMED.append(s.name)


def _table_for(stat):
    return T2 if stat.needs_binary else T4


def _public_value(bound, table, **kw):
    stat = bound.statistic
    fn = getattr(metaeval, stat.public)
    if stat.weights == "agreement":
        kw["weights"] = bound.weights
    elif stat.weights == "level":
        x, y = expand(table)
        return quiet(fn, np.column_stack([x, y]), level=bound.weights, ci_method=None,
                     levels=np.arange(table.shape[0])).estimate
    return quiet(fn, table=table, scale=SCALE4 if table.shape[0] == 4 else None, **kw).estimate


def registry_declarations_complete_test():
    """Every table statistic names its public function, its reference and when it is defined."""
    for s in registry.statistics("table"):
        assert s.public and hasattr(metaeval, s.public), s.name
        assert s.reference and s.defined or s.components is not None, s.name
        assert s.label
        if s.analytic is not None:
            assert callable(s.analytic_function()), s.name


@pytest.mark.parametrize("name", NAMED)
def registry_scalar_every_consumer_test(name):
    bound = registry.resolve(name)
    table = _table_for(bound.statistic)
    k = table.shape[0]
    direct = float(bound.kernel(k, np.arange(k))(table.reshape(1, -1))[0])
    assert np.isfinite(direct)
    # the public function (point estimate, and with a bootstrap interval: the same estimate)
    assert _public_value(bound, table) == pytest.approx(direct, abs=1e-12)
    # agreement_difference: side a is the statistic itself (same name, same weights)
    x, y = expand(table)
    d = quiet(metaeval.agreement_difference, (x, y), (x, y), statistic=name, scale=SCALE4 if k == 4 else None,
              n_resamples=20, rng=0)
    assert d.get(set="a").estimate == pytest.approx(direct, abs=1e-12)
    assert d.get(set="a - b").estimate == pytest.approx(0.0, abs=1e-12)
    assert d.get(set="a").statistic == bound.name
    # sensitivity: the baseline of a scenario-free run
    frame = pd.DataFrame({"human": x, "judge": y, "query_id": np.arange(len(x)) % 7})
    sres = quiet(metaeval.sensitivity, name, frame, [], n_resamples=20, rng=0, scale=SCALE4 if k == 4 else None)
    assert sres.baseline.estimate == pytest.approx(direct, abs=1e-12)
    # agreement_by: every group's point estimate (vectorized) equals the kernel on its own table
    paired = _paired(x, y, k)
    byf = quiet(metaeval.agreement_by, paired, "grp", statistics=[name], ci_method=None, min_n=0)
    for g, sub in paired.data.groupby("grp"):
        idx = sub.index.to_numpy()
        tg = metaeval.contingency(paired.reference[idx], paired.candidate[idx], paired.scale)
        want = float(bound.kernel(k, np.arange(k))(tg.reshape(1, -1))[0])
        got = byf.loc[byf["grp"] == g, "estimate"].iloc[0]
        assert got == pytest.approx(want, abs=1e-12, nan_ok=True)
    # agreement_by with a bootstrap: the same estimates
    byb = quiet(metaeval.agreement_by, paired, "grp", statistics=[name], n_resamples=20, rng=0, min_n=0)
    np.testing.assert_allclose(byb["estimate"].to_numpy(), byf["estimate"].to_numpy(), atol=1e-12)
    assert (byb["statistic"] == bound.name).all()


def _paired(x, y, k):
    n = len(x)
    keys = pd.DataFrame({"query_id": (np.arange(n) % 9).astype(str), "doc_id": np.arange(n).astype(str)})
    ref = keys.assign(relevance=x.astype(int))
    cand = keys.assign(relevance=y.astype(int))
    p = metaeval.align(ref, cand, scale=metaeval.Scale(tuple(range(k)), kind="ordinal"))
    p.data["grp"] = np.where(p.data["query_id"].astype(int) < 4, "a", "b")
    return p


@pytest.mark.parametrize("name", ["observed_agreement", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic",
                                  "scott_pi", "pabak", "gwet_ac1", "krippendorff_alpha_ordinal", "kappa_max",
                                  "matthews_corrcoef"])
def registry_report_equals_public_test(name):
    """agreement_report's rows are the registry's statistics with the public functions' values."""
    rep = metaeval.agreement_report(table=T4, scale=SCALE4, ci_method=None)
    bound = registry.resolve(name)
    assert rep[bound.name].estimate == pytest.approx(_public_value(bound, T4), abs=1e-12)


@pytest.mark.parametrize("stat", [s for s in SCALAR if s.analytic is not None], ids=lambda s: s.name)
def registry_analytic_same_estimate_test(stat):
    """The analytic path reports the same estimate as the kernel (one definition of the value)."""
    table = _table_for(stat)
    bound = registry.resolve(stat.name)
    k = table.shape[0]
    fn = getattr(metaeval, stat.public)
    if stat.weights == "level":
        # Krippendorff's alpha is public as the many-rater function (items × raters); for two
        # complete raters it is the table statistic
        bound = registry.resolve(stat.name, "interval")
        x, y = expand(table)
        a = fn(np.column_stack([x, y]), level="interval", ci_method="analytic", levels=np.arange(k))
    else:
        a = fn(table=table, ci_method="analytic")
    assert a.estimate == pytest.approx(float(bound.kernel(k)(table.reshape(1, -1))[0]), abs=1e-12)
    assert a.ci.method == "analytic" and a.ci.low < a.estimate < a.ci.high and a.se > 0


@pytest.mark.parametrize("stat", VECTOR, ids=lambda s: s.name)
def registry_vector_consumers_test(stat):
    """Vector statistics: the public function's entries equal the kernel's, and sensitivity's baseline."""
    table = _table_for(stat)
    k = table.shape[0]
    params = {"prevalence": (0.01, 0.2)} if "prevalence" in stat.params else {}
    bound = registry.resolve(stat.name, **params)
    vals = bound.kernel(k)(table.reshape(1, -1))[0]
    fn = getattr(metaeval, stat.public)
    kw = {"prevalence": list(params["prevalence"]), "curve": []} if params else {}
    res = quiet(fn, table=table, ci_method=None, **kw)
    got = np.array([e.estimate for e in res])
    if stat.name == "kappa_at_prevalence":
        np.testing.assert_allclose(got, vals, atol=1e-12)       # kappa, ppv, p_o at each target
    else:
        np.testing.assert_allclose(got, vals, atol=1e-12, equal_nan=True)
    x, y = expand(table)
    frame = pd.DataFrame({"human": x, "judge": y})
    sres = quiet(metaeval.sensitivity, functools.partial(fn, **{p: list(v) for p, v in params.items()}), frame, [],
                 n_resamples=20, rng=0)
    base = sres.results.filter(scenario="baseline", kind="value")
    np.testing.assert_allclose([e.estimate for e in base], vals, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("stat", [s for s in registry.statistics("table") if s.symmetric], ids=lambda s: s.name)
def registry_symmetric_declared_test(stat):
    """Statistics declared symmetric are unchanged when reference and candidate swap."""
    table = _table_for(stat)
    f = registry.resolve(stat.name).kernel(table.shape[0])
    np.testing.assert_allclose(f(table.reshape(1, -1)), f(table.T.reshape(1, -1)), atol=1e-12)


def registry_gwet_ac2_difference_uses_quadratic_test():
    """Issue #10: agreement_difference(statistic="gwet_ac2") reported AC1 values (identity weights)."""
    x, y = expand(T4)
    d = metaeval.agreement_difference((x, y), (x, y), statistic="gwet_ac2", scale=SCALE4, n_resamples=20, rng=0)
    assert d.get(set="a").estimate == pytest.approx(metaeval.gwet_ac2(table=T4, ci_method=None).estimate, abs=1e-12)
    assert d.get(set="a").estimate != pytest.approx(metaeval.gwet_ac1(table=T4, ci_method=None).estimate, abs=1e-3)
    alpha = metaeval.agreement_difference((x, y), (x, y), statistic="krippendorff_alpha", scale=SCALE4,
                                          n_resamples=20, rng=0)
    assert alpha.get(set="a").statistic == "krippendorff_alpha_ordinal"


def registry_unknown_name_suggests_test():
    with pytest.raises(ValueError, match="did you mean 'cohen_kappa'"):
        registry.get("cohen_kapa")
    with pytest.raises(ValueError, match="takes no weights"):
        registry.resolve("gwet_ac1", weights="quadratic")


def registry_one_undefined_tolerance_test():
    """One rule for 'kappa undefined' (p_e = 1): every chance-corrected statistic agrees on it."""
    one_class = np.array([[30, 0], [0, 0]])
    for name in ("cohen_kappa", "scott_pi", "kappa_max"):
        v = registry.resolve(name).kernel(2)(one_class.reshape(1, -1))[0]
        assert np.isnan(v), name
    with pytest.warns(metaeval.UndefinedStatisticWarning, match="chance agreement is 1"):
        assert np.isnan(metaeval.cohen_kappa(table=one_class, ci_method=None).estimate)


# --------------------------------------------------------------------------------------------
# one default per statistic (issue #20, item 5): every entry point, default arguments
# --------------------------------------------------------------------------------------------

def _default_entry_points(name, paired):
    """{entry point: (statistic name, estimate)} of one registered statistic, defaults everywhere."""
    stat = registry.get(name)
    scale = paired.scale
    frame = pd.DataFrame({"human": paired.reference, "judge": paired.candidate, "query_id": paired.data["query_id"]})
    out = {}
    fn = getattr(metaeval, stat.public)
    e = quiet(fn, paired, ci_method=None)
    out["public"] = (e.statistic, e.estimate)
    rep = quiet(metaeval.agreement_report, paired, ci_method=None)
    hit = [r for r in rep if registry.parse(r.statistic)[0].name == name]
    if hit:
        out["agreement_report"] = (hit[0].statistic, hit[0].estimate)
    by = quiet(metaeval.agreement_by, paired, "all", statistics=[name], ci_method=None, min_n=0)
    out["agreement_by"] = (by["statistic"].iloc[0], by["estimate"].iloc[0])
    d = quiet(metaeval.agreement_difference, paired, paired, statistic=name, n_resamples=20, rng=0)
    out["agreement_difference"] = (d.get(set="a").statistic, d.get(set="a").estimate)
    panel = quiet(metaeval.judge_panel, None, {"j": paired}, statistic=name, ci_method=None)
    out["judge_panel"] = (panel[0].statistic, panel[0].estimate)
    for how, st in (("sensitivity(name)", name), ("sensitivity(function)", fn)):
        s = quiet(metaeval.sensitivity, st, frame, [], scale=scale, n_resamples=20, rng=0)
        out[how] = (s.baseline.statistic, s.baseline.estimate)
    return out


@pytest.mark.parametrize("stat", SCALAR, ids=lambda s: s.name)
def registry_defaults_same_everywhere_test(stat):
    """Issue #20 (5): krippendorff_alpha(paired) gave nominal alpha on an ordinal scale while
    agreement_report and agreement_difference gave ordinal alpha. With default arguments every entry
    point now gives the same statistic (the same canonical name) and the same estimate, the one the
    registry's default rule names (``registry.resolve(name, scale=...)``)."""
    k = 2 if stat.needs_binary else 4
    paired = _paired(*expand(_table_for(stat)), k)
    paired.data["all"] = "all"
    bound = registry.resolve(stat.name, scale=paired.scale)
    want = float(bound.kernel(k, np.arange(k))(metaeval.contingency(paired.reference, paired.candidate,
                                                                      paired.scale).reshape(1, -1))[0])
    got = _default_entry_points(stat.name, paired)
    assert {"public", "agreement_by", "agreement_difference", "judge_panel", "sensitivity(name)"} <= set(got)
    for where, (name, value) in got.items():
        assert value == pytest.approx(want, abs=1e-12), (where, name, value, want)
        assert name == bound.name, (where, name, bound.name)


def registry_krippendorff_default_is_the_scales_kind_test():
    """The LLMJudge finding in miniature: an ordinal 4-level Paired gets ordinal alpha from the public
    function (krippendorff package, level_of_measurement='ordinal', is the reference value)."""
    import krippendorff

    x, y = expand(T4)
    p = _paired(x, y, 4)
    want = krippendorff.alpha(reliability_data=np.vstack([x, y]), level_of_measurement="ordinal",
                              value_domain=[0, 1, 2, 3])
    e = metaeval.krippendorff_alpha(p, ci_method=None)
    assert e.statistic == "krippendorff_alpha_ordinal"
    assert e.estimate == pytest.approx(want, abs=1e-12)
    # a plain items × raters array has no scale: the registry's declared default, nominal
    assert metaeval.krippendorff_alpha(np.column_stack([x, y]), ci_method=None).statistic == \
        "krippendorff_alpha_nominal"
    assert registry.default_weights("krippendorff_alpha") == registry.get("krippendorff_alpha").default_weights
