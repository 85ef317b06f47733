"""One statistic, one answer: the same number whatever the input form, the interval and the test agree.

Each test pins a way the same statistic could come out different through two routes (found in the
review of issue #10): tuple vs Paired inputs with clusters, analytic vs kernel values on scales whose
values are not 0..K−1, a bare count table and irrCAC's default weight values, bootstrap p-values and
widened intervals, point estimates with clusters, group columns and seeds of agreement_by, binary
labels of the validation design, and unknown options.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval.agreement.weights import weight_matrix
from metaeval.core import registry

T4 = np.array([[50, 12, 4, 1], [10, 30, 9, 2], [3, 8, 25, 6], [1, 2, 5, 20]])


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def _clustered(seed=0, topics=20, per=30):
    rng = np.random.default_rng(seed)
    topic = np.repeat(np.arange(topics), per)
    acc = rng.uniform(0.3, 0.95, topics)[topic]          # strong per-topic effect
    h = rng.integers(0, 3, len(topic))
    j = np.where(rng.random(len(topic)) < acc, h, rng.integers(0, 3, len(topic)))
    return h.astype(float), j.astype(float), topic


def difference_tuple_and_paired_agree_with_clusters_test():
    """Cluster ids given as an array follow the items' input order (not the merge's string order)."""
    h, j, topic = _clustered()
    n = len(h)
    a = metaeval.agreement_difference((h, j), (h, h), cluster=topic, n_resamples=300, rng=3,
                                      ci_method="percentile")
    keys = pd.DataFrame({"query_id": topic.astype(str), "doc_id": np.arange(n).astype(str)})
    ref = metaeval.align(keys.assign(relevance=h.astype(int)), keys.assign(relevance=j.astype(int)),
                         scale=metaeval.Scale((0, 1, 2)))
    same = metaeval.align(keys.assign(relevance=h.astype(int)), keys.assign(relevance=h.astype(int)),
                          scale=metaeval.Scale((0, 1, 2)))
    b = metaeval.agreement_difference(ref, same, cluster="query_id", n_resamples=300, rng=3, ci_method="percentile")
    for s in ("a", "a - b"):
        ea, eb = a.get(set=s), b.get(set=s)
        assert ea.estimate == pytest.approx(eb.estimate, abs=1e-12)
        assert ea.n_units == eb.n_units == 20
        # the same clusters: the same replicate distribution up to Monte-Carlo error of the draw order
        assert ea.se == pytest.approx(eb.se, rel=0.15)


@pytest.mark.parametrize("levels", [(0, 1, 2, 3), (1, 2, 5, 10)])
@pytest.mark.parametrize("level", ["nominal", "interval", "ratio"])
def analytic_alpha_uses_the_scale_values_test(levels, level):
    """agreement_report's analytic alpha is the kernel's alpha on the scale's values (the `krippendorff`
    package computes the same from the item-level data)."""
    import krippendorff

    scale = metaeval.Scale(levels, kind="interval")
    i, k = np.indices(T4.shape)
    x = np.repeat(np.asarray(levels)[i.ravel()], T4.ravel()).astype(float)
    y = np.repeat(np.asarray(levels)[k.ravel()], T4.ravel()).astype(float)
    want = krippendorff.alpha(reliability_data=np.vstack([x, y]), level_of_measurement=level,
                              value_domain=list(levels))
    d = metaeval.agreement_difference((x, y), (x, y), statistic=f"krippendorff_alpha_{level}", scale=scale,
                                      n_resamples=20, rng=0)
    assert d.get(set="a").estimate == pytest.approx(want, abs=1e-9)
    fn = registry.resolve("krippendorff_alpha", level).statistic.analytic_function()
    from metaeval.agreement.coefficients import _analytic, prepare_table

    td = prepare_table(x, y, scale=scale)
    e = _analytic(registry.resolve("krippendorff_alpha", level), td, confidence_level=0.95, population_size=None,
                  quantile="t")
    assert callable(fn) and e.estimate == pytest.approx(want, abs=1e-9) and e.se > 0


def bare_table_ratio_weights_are_irrcacs_test():
    """A bare count table has unknown category values: ratio weights use irrCAC's 1..K (weights.py)."""
    k = T4.shape[0]
    default = metaeval.cohen_kappa(table=T4, weights="ratio", ci_method=None).estimate
    explicit = metaeval.cohen_kappa(table=T4, weights=weight_matrix("ratio", k, np.arange(1, k + 1)),
                                    ci_method=None).estimate
    assert default == pytest.approx(explicit, abs=1e-12)
    # a declared scale 0..K-1 is taken at its word
    zero = metaeval.cohen_kappa(table=T4, weights="ratio", scale=metaeval.Scale((0, 1, 2, 3)), ci_method=None)
    assert zero.estimate != pytest.approx(default, abs=1e-3)


def no_iid_ztest_with_clusters_test():
    """With clusters the z-test of iid items does not apply; a point estimate has no test then."""
    h, j, topic = _clustered()
    k = metaeval.cohen_kappa(h, j, cluster=topic, ci_method=None)
    assert k.pvalue is None and k.unit == "clusters"
    k_iid = metaeval.cohen_kappa(h, j, ci_method=None)
    assert k_iid.pvalue is not None and k_iid.pvalue < 1e-10


def few_cluster_pvalue_matches_widened_interval_test():
    """With few clusters the percentile interval is widened (×1.875 at 4 clusters); the p-value inverts
    that widened interval: p < 0.05 exactly when the interval excludes the null, for every null on a
    grid — including the nulls between the raw and the widened ends, where a test on the raw
    replicates would reject and the interval would not."""
    from metaeval.core.resample import BootstrapResult, cluster_correction_factor

    reps = np.random.default_rng(0).normal(0.3, 0.1, size=(4000, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = BootstrapResult.from_replicates(0.3, reps, ci_method="percentile", unit="clusters", n_units=4,
                                              n_clusters=4)
    assert res.extra["cluster_correction"] == pytest.approx(cluster_correction_factor(4))
    raw_low = np.quantile(reps, 0.025)
    between = 0
    for null in np.linspace(-0.3, 0.9, 241):
        excludes = not (res.low[0] <= null <= res.high[0])
        assert (res.pvalue(null)[0] < 0.05) == excludes, null
        between += res.low[0] < null < raw_low
    assert between > 10          # the grid does test the widened band


def agreement_by_checks_and_seed_test():
    d = metaeval.datasets.load("trec_dl_like")
    p = metaeval.align(d.qrels_human, d.qrels_judge, scale=metaeval.Scale((0, 1, 2, 3)), unjudged="drop")
    with pytest.raises(metaeval.InputError, match="no column 'topic'"):
        metaeval.agreement_by(p, "topic")
    with pytest.raises(ValueError, match="scalar statistics"):
        metaeval.agreement_by(p, "query_id", statistics=["per_class"])
    one = quiet(metaeval.agreement_by, p, "query_id", statistics="cohen_kappa", ci_method=None, min_n=0)
    assert set(one["statistic"]) == {"cohen_kappa"}
    a = quiet(metaeval.agreement_by, p, "query_id", statistics=["cohen_kappa"], n_resamples=50, rng=7,
              ci_method="percentile")
    assert set(a["seed"]) == {7}
    b = quiet(metaeval.agreement_by, p, "query_id", statistics=["cohen_kappa"], n_resamples=50, rng=int(a["seed"][0]),
              ci_method="percentile")
    pd.testing.assert_frame_equal(a, b)


def validation_labels_must_be_binary_test():
    v = metaeval.datasets.load("imageclef_like").validation
    frame = v.assign(stratum=v["query_id"], N_h=100)
    base = quiet(metaeval.estimate_from_validation, frame, n_resamples=50, rng=0)
    as_text = frame.assign(human=frame["human"].astype(str), judge=frame["judge"].astype(str))
    again = quiet(metaeval.estimate_from_validation, as_text, n_resamples=50, rng=0)
    assert [e.estimate for e in again] == [e.estimate for e in base]
    stray = frame.copy()
    stray.loc[stray.index[0], "human"] = 2
    with pytest.raises(metaeval.InputError, match="holds the labels"):
        metaeval.estimate_from_validation(stray, n_resamples=50, rng=0)


def sensitivity_rejects_unknown_options_test():
    v = metaeval.datasets.load("imageclef_like").validation
    with pytest.raises(TypeError, match="weigths"):
        metaeval.sensitivity(metaeval.cohen_kappa, v, [], ci_method=None, weigths="quadratic")


def none_weights_mean_the_declared_default_test():
    """weights=None is the statistic's declared default in every consumer (quadratic for AC2)."""
    x = np.repeat([0, 1, 2, 3, 0, 1, 2, 3], [30, 20, 25, 15, 5, 6, 7, 8]).astype(float)
    y = np.roll(x, 11)
    direct = metaeval.gwet_ac2(x, y, weights=None, ci_method=None)
    quad = metaeval.gwet_ac2(x, y, weights="quadratic", ci_method=None)
    assert direct.estimate == quad.estimate and direct.statistic == "gwet_ac2"
    diff = metaeval.agreement_difference((x, y), (x, y), statistic="gwet_ac2", weights=None, n_resamples=20, rng=0)
    assert diff.get(set="a").estimate == pytest.approx(quad.estimate, abs=1e-12)
