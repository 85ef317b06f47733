"""Juries (metaeval.jury, metaeval.select_jury, metaeval.panels.aggregators).

References:
* crowd-kit 1.4.2 (Toloka; Ustalov et al. 2024) on crowd-kit's own test data: the values in
  ``tests/reference/crowdkit_values.json`` were produced by ``tests/reference/make_reference_crowdkit.py``
  from crowd-kit's test fixtures (commit 35f0661); labels must be equal, probabilities within 1e-6.
  With crowd-kit installed (the ``test`` extra), ``crowdkit_live_test`` also compares on random data.
* crowd-kit's own expected values in its tests (test_ds_aggregation.py ``test_dawid_skene_step_by_step``,
  data_mv.py), cited where used.
* Properties: cross-fitting never reads a fold's human labels; nested selection does not reuse items.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval import InputError
from metaeval.agreement.multirater import prepare_ratings
from metaeval.panels import aggregators
from metaeval.panels.aggregators import Votes

REF = json.loads((Path(__file__).parent / "reference" / "crowdkit_values.json").read_text())
TOL = 1e-6


def _long(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["task", "worker", "label"])


def _compare(res, ref, what):
    """Labels equal, probabilities within TOL (crowd-kit's probabilities, reindexed to ours)."""
    want = pd.Series({t: v for t, v in ref["labels"]})
    got = res.labels
    assert sorted(map(str, got.index)) == sorted(map(str, want.index)), what
    p = ref["probas"]
    theirs = pd.DataFrame(p["values"], index=p["items"], columns=p["columns"])
    ours = res.probabilities.reindex(index=theirs.index, columns=theirs.columns)
    diff = float(np.nanmax(np.abs(ours.to_numpy() - theirs.to_numpy())))
    assert diff < TOL, f"{what}: max |Δp| = {diff:.2e}"
    n_tied = 0
    for t, v in want.items():
        row = theirs.loc[t].to_numpy()
        tied = [c for c, x in zip(theirs.columns, row) if x >= row.max() - 1e-9]
        if len(tied) > 1:
            # an exact tie of the probabilities: crowd-kit takes its first column (an order pandas
            # sets), metaeval the first category in sorted order; both must pick a tied class
            assert got[t] in tied, f"{what}: item {t}: {got[t]!r} not among the tied {tied}"
            n_tied += 1
        else:
            assert got[t] == v, f"{what}: item {t}: {got[t]!r} != crowd-kit {v!r}"
    return diff, n_tied


def _cases():
    for name, entry in REF["datasets"].items():
        for i, r in enumerate(entry["results"]):
            yield pytest.param(name, i, id=f"{name}-{r['method']}-{i}")


def _run(entry, r):
    df = _long(entry["rows"])
    m, params = r["method"], dict(r["params"])
    kw = dict(item="task", rater="worker", value="label")
    # crowd-kit's MajorityVote gives a tie to the first of its probability columns (idxmax), whose order
    # pandas sets (with pandas 3: first appearance in the (task, label) value_counts); stated to us as
    # a preference order
    ties = r["probas"]["columns"]
    if m == "majority":
        return metaeval.jury(df, method="majority", ties=ties, **kw)
    if m == "weighted":
        w = {str(k): v for k, v in params["weights"].items()}          # JSON keys are text
        judges = prepare_ratings(df, **kw).raters
        return metaeval.jury(df, method="weighted", weights=[w[str(j)] for j in judges], ties=ties, **kw)
    if m == "dawid_skene_gold":
        # crowd-kit's DawidSkene(true_labels=gold): the human labels fix their items' posteriors
        d = prepare_ratings(df, **kw)
        gold = dict((t, v) for t, v in entry["gold"])
        cats = list(d.categories)
        truth = np.array([cats.index(gold[t]) if t in gold else -1 for t in d.items])
        fit = aggregators.get("dawid_skene").fit(Votes(d.ratings, None, d.categories), truth=truth, **params)
        lab = np.array(cats, dtype=object)[fit.label_index()]
        return metaeval.JuryResult("dawid_skene", pd.Series(lab, index=d.items),
                                   pd.DataFrame(fit.probabilities, index=d.items, columns=cats))
    if m == "mace":
        init = r["init"]
        d = prepare_ratings(df, **kw)
        wpos = [init["workers"].index(w) for w in d.raters]
        lpos = [init["labels"].index(c) for c in d.categories]
        spam = np.asarray(init["spam"])[wpos]
        strategy = np.asarray(init["strategy"])[wpos][:, lpos]
        return metaeval.jury(df, method="mace", init=(spam, strategy), variant=params["method"],
                             n_iter=params["n_iter"], **kw)
    return metaeval.jury(df, method=m, **params, **kw)


@pytest.mark.parametrize("name, i", list(_cases()))
def crowdkit_reference_test(name, i):
    entry = REF["datasets"][name]
    r = entry["results"][i]
    if r["params"].get("n_iter") == 0:
        # crowd-kit runs no EM step at n_iter = 0; metaeval refuses it (an EM with no iteration is the
        # initialisation, not the model): crowdkit_step_by_step_values_test checks that initialisation
        with pytest.raises(InputError, match="n_iter must be a whole number ≥ 1"):
            _run(entry, r)
        return
    res = _run(entry, r)
    if r["method"] == "mace" and not r["orders_sorted"]:
        # crowd-kit 1.4.2's MACE fills its strategy matrix in sorted (worker, label) order but reads it
        # by first-appearance codes (mace.py: groupby(...).unstack().values vs pd.factorize): on data
        # whose first-appearance order is not sorted its result is not MACE's; not compared
        pytest.skip("crowd-kit's MACE mixes sorted and first-appearance order on this data")
    _compare(res, r, f"{name} {r['method']} {r['params']}")


def crowdkit_step_by_step_values_test():
    """crowd-kit's hand-checked Dawid–Skene iterates (test_ds_aggregation.py, fixtures probas_iter_0/1,
    priors_iter_0/1, errors_iter_0/1, checked there to 0.005)."""
    entry = REF["datasets"]["ds_step"]
    df = _long(entry["rows"])
    kw = dict(item="task", rater="worker", value="label")
    # iteration 0 (n_iter = 0 in crowd-kit) is the initialisation: vote shares and the M-step on them
    d = prepare_ratings(df, **kw)
    k = len(d.categories)
    p = aggregators._Patterns.of(np.asarray(d.ratings), None, k)
    used = np.array([[(p.rows[:, g] == c).any() for c in range(k)] for g in range(p.rows.shape[1])])
    q0 = aggregators._vote_shares(p, k)
    np.testing.assert_allclose(q0[p.inverse], [[.5, .5], [.4, .6], [.6, .4], [0, 1], [.8, .2]], atol=5e-3)
    np.testing.assert_allclose(np.sum(p.weight[:, None] * q0, axis=0) / p.weight.sum(), [0.46, 0.54], atol=5e-3)
    # errors_iter_0 rows (worker, observed) × columns (true no, true yes); ours is [judge, true, observed]
    c = aggregators._ds_confusions(p, q0, k, used)
    w = list(d.raters)
    assert c[w.index("w2"), 0, 0] == pytest.approx(0.61, abs=5e-3)
    assert c[w.index("w2"), 1, 0] == pytest.approx(0.22, abs=5e-3)
    assert c[w.index("w5"), 1, 1] == pytest.approx(0.37, abs=5e-3)
    r1 = metaeval.jury(df, method="dawid_skene", n_iter=1, **kw)
    np.testing.assert_allclose(r1.probabilities.to_numpy(),
                               [[.35, .65], [.26, .74], [.87, .13], [0, 1], [.95, .05]], atol=5e-3)
    np.testing.assert_allclose(r1.priors.to_numpy(), [0.49, 0.51], atol=5e-3)
    assert r1.labels.tolist() == ["yes", "yes", "no", "yes", "no"]
    assert r1.confusions.loc[("w3", "yes"), "yes"] == pytest.approx(0.91, abs=5e-3)


def crowdkit_majority_probabilities_test():
    """crowd-kit's data_mv.py: toy_probas_result_mv (task t1: no 1/3 ... from 3 votes of 5 workers)."""
    entry = REF["datasets"]["toy"]
    res = metaeval.jury(_long(entry["rows"]), item="task", rater="worker", value="label")
    # t1: w1 no, w2 yes, w4 yes, w5 no -> 0.5 / 0.5, tie -> 'no' (first in sorted order, crowd-kit's idxmax)
    assert res.probabilities.loc["t1"].tolist() == [0.5, 0.5]
    assert res.labels["t1"] == "no"


def _random_long(seed, n_items=60, n_workers=6, k=3, p_missing=0.3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    acc = rng.uniform(0.35, 0.9, n_workers)
    rows = []
    for w in range(n_workers):
        for t in range(n_items):
            if w > 0 and rng.random() < p_missing:
                continue
            lab = truth[t] if rng.random() < acc[w] else rng.integers(0, k)
            if w == 0 and t < k:          # the first worker's first labels are 0..k-1: first-appearance = sorted
                lab = t
            rows.append((f"t{t:03d}", f"w{w}", int(lab)))
    return pd.DataFrame(rows, columns=["task", "worker", "label"])


@pytest.mark.filterwarnings("ignore")          # crowd-kit's own pandas deprecation warnings
@pytest.mark.parametrize("seed", [0])
def crowdkit_live_test(seed):
    """Random data, every shared model, against the installed crowd-kit (skipped without it)."""
    ck = pytest.importorskip("crowdkit.aggregation")
    import scipy.stats as sps

    df = _random_long(seed, n_items=40)
    kw = dict(item="task", rater="worker", value="label")
    pairs = [
        (ck.MajorityVote(), dict(method="majority")),
        (ck.DawidSkene(n_iter=100, tol=1e-5), dict(method="dawid_skene")),
        (ck.OneCoinDawidSkene(n_iter=100, tol=1e-5), dict(method="one_coin_dawid_skene")),
        (ck.GLAD(), dict(method="glad")),
    ]
    for model, ours in pairs:
        model.fit(df)
        res = metaeval.jury(df, **ours, **kw)
        ref = {"labels": list(model.labels_.items()),
               "probas": {"items": list(model.probas_.index), "columns": list(model.probas_.columns),
                          "values": model.probas_.to_numpy().tolist()}}
        _compare(res, ref, f"live seed {seed} {ours['method']}")
    m = ck.MACE(n_restarts=1, n_iter=20, random_state=0).fit(df)
    nw, nl = df["worker"].nunique(), df["label"].nunique()
    spam = sps.uniform(1, 1.5).rvs(size=(nw, 2), random_state=0)
    strategy = sps.uniform(1, 1.5).rvs(size=(nw, nl), random_state=0)
    res = metaeval.jury(df, method="mace", init=(spam, strategy), n_iter=20, **kw)
    ref = {"labels": list(m.labels_.items()), "probas": {"items": list(m.probas_.index),
                                                           "columns": list(m.probas_.columns),
                                                           "values": m.probas_.to_numpy().tolist()}}
    _compare(res, ref, f"live seed {seed} mace")


# --------------------------------------------------------------------------------------------
# tie rules, scores, inputs
# --------------------------------------------------------------------------------------------

def majority_ties_test():
    votes = [["a", "b"], ["b", "b"], ["a", "c"]]
    assert metaeval.jury(votes).labels.tolist() == ["a", "b", "a"]                       # lowest
    assert metaeval.jury(votes, ties="highest").labels.tolist() == ["b", "b", "c"]
    assert metaeval.jury(votes, ties=["c", "b", "a"]).labels.tolist() == ["b", "b", "c"]   # preference order
    r1 = metaeval.jury(votes * 50, ties="random", rng=7).labels
    assert r1.equals(metaeval.jury(votes * 50, ties="random", rng=7).labels)              # reproducible
    assert set(r1.iloc[0::3]) == {"a", "b"}                                                # both tied classes occur
    with pytest.raises(InputError, match="every category"):
        metaeval.jury(votes, ties=["a", "b"])
    with pytest.raises(InputError, match="no ties"):
        metaeval.jury(votes, method="dawid_skene", ties="highest")


def mean_median_test():
    """numpy.nanmean / nanmedian per item; median ties='lowest'/'highest' pick a middle label."""
    s = np.array([[1, 2, 4, np.nan], [3, 3, 1, 2], [np.nan, 5, np.nan, np.nan]])
    np.testing.assert_allclose(metaeval.jury(s, method="mean").labels, np.nanmean(s, axis=1))
    np.testing.assert_allclose(metaeval.jury(s, method="median").labels, np.nanmedian(s, axis=1))
    assert metaeval.jury(s, method="median", ties="lowest").labels.tolist() == [2, 2, 5]
    assert metaeval.jury(s, method="median", ties="highest").labels.tolist() == [2, 3, 5]
    with pytest.raises(InputError, match="numeric labels"):
        metaeval.jury([["a", "b"], ["b", "b"]], method="mean")


def weighted_given_weights_test():
    """A weighted vote with weights 3, 1, 1 is the first judge's label unless the other two agree
    against it with total weight above 3 (never here)."""
    v = pd.DataFrame({"x": [0, 1, 0], "y": [1, 0, 1], "z": [1, 0, 1]})
    r = metaeval.jury(v, method="weighted", weights={"x": 3, "y": 1, "z": 1})
    assert r.labels.tolist() == [0, 1, 0]
    assert r.probabilities.iloc[0].tolist() == [0.6, 0.4]
    assert r.skills.to_dict() == {"x": 3.0, "y": 1.0, "z": 1.0}
    with pytest.raises(InputError, match="no weight for judge"):
        metaeval.jury(v, method="weighted", weights={"x": 1})
    with pytest.raises(InputError, match="weights= .* or human labels"):
        metaeval.jury(v, method="weighted")


def input_forms_test():
    """Wide DataFrame, long frame and array give the same jury (items named by the index / item column)."""
    wide = pd.DataFrame({"j1": [0, 1, 1, np.nan], "j2": [0, 1, 0, 1], "j3": [1, 1, 0, 1]}, index=["a", "b", "c", "d"])
    long = wide.stack().rename("v").reset_index()
    long.columns = ["doc", "judge", "v"]
    a = metaeval.jury(wide, method="dawid_skene")
    b = metaeval.jury(long, method="dawid_skene", item="doc", rater="judge", value="v")
    pd.testing.assert_series_equal(a.labels, b.labels)
    pd.testing.assert_frame_equal(a.probabilities, b.probabilities)
    assert list(a.labels.index) == ["a", "b", "c", "d"]
    with pytest.raises(InputError, match="unknown jury method"):
        metaeval.jury(wide, method="wawa")
    with pytest.raises(InputError, match="takes no option"):
        metaeval.jury(wide, method="majority", n_iter=3)
    with pytest.raises(InputError, match="not among the categories"):
        metaeval.jury(wide, reference={"a": 7}, levels=[0, 1])


def em_on_distinct_rows_test():
    """Dawid–Skene on the distinct vote rows with multiplicities equals it on the repeated items
    (the data repeated 3×: the same posteriors and confusions; and crowd-kit's overlap test: tasks
    with the same votes get the same posterior)."""
    entry = REF["datasets"]["toy"]
    df = _long(entry["rows"])
    rep = pd.concat([df.assign(task=df["task"] + f"_{i}") for i in range(3)])
    kw = dict(item="task", rater="worker", value="label")
    a = metaeval.jury(df, method="dawid_skene", n_iter=10, tol=0.0, **kw)
    b = metaeval.jury(rep, method="dawid_skene", n_iter=10, tol=0.0, **kw)
    np.testing.assert_allclose(b.probabilities.loc[[f"{t}_1" for t in a.labels.index]].to_numpy(),
                               a.probabilities.to_numpy(), atol=1e-12)
    # (the EPS floor of the expected counts, 1e-10, is not scaled with the data)
    np.testing.assert_allclose(b.confusions.to_numpy(), a.confusions.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(a.confusions.sum(axis=1), 1.0)


# --------------------------------------------------------------------------------------------
# cross-fitting and selection
# --------------------------------------------------------------------------------------------

def _sim(seed, n_topics=20, per_topic=15, acc=(0.9, 0.75, 0.65, 0.55, 0.5), k=2):
    rng = np.random.default_rng(seed)
    n = n_topics * per_topic
    topic = np.repeat([f"t{i}" for i in range(n_topics)], per_topic)
    truth = rng.integers(0, k, n)
    votes = np.column_stack([np.where(rng.random(n) < a, truth, (truth + rng.integers(1, k, n)) % k) for a in acc])
    return pd.DataFrame(votes, columns=[f"j{i}" for i in range(len(acc))]).assign(topic=topic), truth


def cross_fitting_uses_no_fold_labels_test():
    """Changing the human labels of one fold changes no label in that fold (each fold's labels come
    from a model fitted without them), for the learned weighted vote and for Dawid–Skene."""
    df, truth = _sim(0)
    for method in ("weighted", "dawid_skene"):
        a = metaeval.jury(df, method=method, reference=truth, cluster="topic", rng=3)
        fold = a.folds.to_numpy()
        assert (pd.Series(fold).groupby(df["topic"].to_numpy()).nunique() == 1).all()   # topics stay whole
        flipped = truth.copy()
        flipped[fold == 0] = 1 - flipped[fold == 0]
        b = metaeval.jury(df, method=method, reference=flipped, cluster="topic", rng=3)
        assert (b.folds.to_numpy() == fold).all()
        assert (a.labels[fold == 0].to_numpy() == b.labels[fold == 0].to_numpy()).all(), method
        np.testing.assert_allclose(a.probabilities[fold == 0], b.probabilities[fold == 0], atol=1e-12)
        # ... while the other folds, which learned from the flipped labels, do change
        assert not np.allclose(a.probabilities[fold != 0], b.probabilities[fold != 0])


def learned_weights_test():
    """Weights from accuracies a: w = log((K − 1) a / (1 − a)), a = (right + 1)/(judged + 2) (Nitzan &
    Paroush 1982), hand-computed; a judge below chance gets weight 0."""
    from metaeval.panels.aggregators import learned_weights

    idx = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 0]])
    truth = np.array([0, 1, 0, 1])
    w = learned_weights(Votes(idx, None, (0, 1)), truth)
    a = np.array([(4 + 1) / 6, (2 + 1) / 6, (1 + 1) / 6])
    np.testing.assert_allclose(w, np.maximum(0, np.log(a / (1 - a))))
    assert w[2] == 0.0


def select_jury_test():
    """Exhaustive search picks the truly best judges; nested cross-fitting's estimate is measured on
    held-out topics (estimate ≠ apparent when a fold chose differently) and reproducible."""
    df, truth = _sim(1, acc=(0.92, 0.8, 0.78, 0.55, 0.52))
    sel = metaeval.select_jury(df, truth, cluster="topic", max_judges=3, rng=5)
    c = sel.curve
    assert c["judges"].tolist()[0] == "j0"
    assert c["judges"].tolist()[2] == "j0 + j1 + j2"
    assert (c["search"] == "exhaustive").all()
    assert set(sel.selections["fold"]) == set(range(5))
    again = metaeval.select_jury(df, truth, cluster="topic", max_judges=3, rng=5)
    pd.testing.assert_frame_equal(c, again.curve)
    # the pooled held-out estimate equals the statistic of the labels each fold's chosen jury gives
    first = sel.selections[sel.selections["key"] == 1]
    assert first["judges"].nunique() >= 1
    # costs: the best jury within each budget
    sc = metaeval.select_jury(df, truth, cluster="topic", max_judges=3, costs=[10, 1, 1, 1, 1], budgets=[1, 3, 12],
                              rng=5)
    assert (sc.curve["cost"] <= sc.curve["budget"]).all()
    assert sc.curve["judges"].tolist()[0] in ("j1", "j2", "j3", "j4")
    assert "j0" in sc.curve["judges"].tolist()[2]
    with pytest.raises(InputError, match="human labels"):
        metaeval.select_jury(df.drop(columns="topic"), None)


def select_jury_learning_model_test():
    """A learning model (weighted vote with learned weights) is scored by inner cross-fitting."""
    df, truth = _sim(2, n_topics=10, per_topic=20)
    sel = metaeval.select_jury(df, truth, method="weighted", cluster="topic", max_judges=2, n_folds=3,
                               inner_folds=3, rng=1)
    assert sel.curve["n_judges"].tolist() == [1, 2]
    assert sel.curve["estimate"].between(0, 1).all()


def select_jury_winners_curse_test():
    """Among 12 equally good judges (accuracy 0.7), the in-sample best looks better than 0.7-level
    agreement on average, the nested estimate does not: mean(apparent − truth value) > 0.02 while
    |mean(estimate) − truth value| < 0.02 (truth value: κ of one judge of accuracy 0.7 on balanced
    binary labels, 2·0.7 − 1 = 0.4), over 30 simulated panels."""
    app, est = [], []
    for seed in range(30):
        df, truth = _sim(100 + seed, n_topics=20, per_topic=10, acc=(0.7,) * 12)
        c = metaeval.select_jury(df, truth, cluster="topic", max_judges=1, rng=seed).curve
        app.append(c["apparent"].iloc[0])
        est.append(c["estimate"].iloc[0])
    assert np.mean(app) - 0.4 > 0.02
    assert abs(np.mean(est) - 0.4) < 0.02


def select_jury_scorer_takes_the_registry_default_level_test():
    """select_jury's "krippendorff_alpha" is the level agreement_report and judge_panel use (registry.default_weights:
    the scale's kind — ordinal for numeric labels, nominal for text)."""
    from metaeval.core import registry
    from metaeval.core.scale import Scale
    from metaeval.panels.jury import _Scorer

    levels = np.array([0.0, 1.0, 2.0, 3.0])
    expected = registry.resolve("krippendorff_alpha", scale=Scale.infer(levels, levels)).name
    assert expected == "krippendorff_alpha_ordinal"
    assert _Scorer("krippendorff_alpha", 4, levels).name == expected
    assert _Scorer("krippendorff_alpha", 2, None).name == "krippendorff_alpha_nominal"
