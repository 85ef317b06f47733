"""Sensitivity analyses (metaeval.sensitivity): values, paired differences, spreads, influence.

Sources of the expected numbers:

* ``data_samples/README.md`` §2 (imageclef_like validation subset): table [[85, 20], [20, 77]],
  kappa 0.603; without the 10 few-shot rows [[83, 20], [20, 69]], kappa 0.581; refusals on two rows
  recorded as judge = 0 (one human-relevant, one not). §1 (trec_dl_like): 140 near-duplicates.
* scikit-learn ``cohen_kappa_score`` / ``recall_score`` computed directly on each scenario's items;
* ``metaeval.agreement_difference`` (the package's paired-difference bootstrap) for the intervals;
* properties: shared replicates (difference = scenario − baseline replicate by replicate), the
  spread equals max − min, leave-one-topic-out values equal direct recomputation.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score, recall_score

import metaeval
from metaeval import InputError
from metaeval.checks.sensitivity import (
    Scenario,
    duplicate_scenarios,
    few_shot_scenarios,
    leave_one_topic_out,
    refusal_scenarios,
    sensitivity,
)
from metaeval.core.results import FRAME_COLUMNS


@pytest.fixture(scope="module")
def val():
    return metaeval.datasets.load("imageclef_like").validation


@pytest.fixture(scope="module")
def trec():
    d = metaeval.datasets.load("trec_dl_like")
    return d, metaeval.align(d.qrels_human, d.qrels_judge)


def kappa(df):
    return cohen_kappa_score(df["human"], df["judge"])


def few_shot_values_match_readme_and_sklearn_test(val):
    r = sensitivity(metaeval.cohen_kappa, val, few_shot_scenarios(), cluster="query_id", rng=0, n_resamples=500)
    assert round(r.baseline.estimate, 3) == 0.603                                   # README §2
    assert round(r.get("drop few-shot items").estimate, 3) == 0.581                # README §2
    drop = val[val["few_shot"] == 0]
    assert metaeval.contingency(drop["human"], drop["judge"]).tolist() == [[83, 20], [20, 69]]
    hit = set(val.loc[val["few_shot"] == 1, "query_id"])
    subsets = {"drop few-shot items": drop, "drop overlapping topics": val[~val["query_id"].isin(hit)],
               "overlapping topics only": val[val["query_id"].isin(hit)],
               "non-overlapping topics only": val[~val["query_id"].isin(hit)]}
    for name, sub in subsets.items():
        assert r.get(name).estimate == pytest.approx(kappa(sub), abs=1e-12)
        assert r.get(name).n == len(sub)
        assert r.get(name, "difference").estimate == pytest.approx(kappa(sub) - kappa(val), abs=1e-12)
    c = r.get("overlapping topics only − non-overlapping topics only", "contrast")
    assert c.estimate == pytest.approx(kappa(subsets["overlapping topics only"])
                                       - kappa(subsets["non-overlapping topics only"]), abs=1e-12)
    assert len(hit) == 10 and r.get("overlapping topics only").n == int(val["query_id"].isin(hit).sum())


def differences_share_replicates_test(val):
    """Property: every replicate of a difference is that replicate's scenario value minus its baseline."""
    r = sensitivity(metaeval.cohen_kappa, val, few_shot_scenarios() + refusal_scenarios(), cluster="query_id",
                    rng=1, n_resamples=300)
    base = r.baseline.replicates
    for name in ("drop few-shot items", "refusals excluded", "refusals forced to 1"):
        diff = r.get(name, "difference").replicates
        assert np.allclose(diff, r.get(name).replicates - base, equal_nan=True)
    vals = np.column_stack([r.get(n).replicates for n in ("refusals as recorded", "refusals excluded",
                                                          "refusals forced to 0", "refusals forced to 1")])
    spread = r.get("spread of refusals", "spread")
    assert np.allclose(spread.replicates, vals.max(axis=1) - vals.min(axis=1))
    point = [r.get(n).estimate for n in ("refusals as recorded", "refusals excluded", "refusals forced to 0",
                                         "refusals forced to 1")]
    assert spread.estimate == pytest.approx(max(point) - min(point), abs=1e-12)


def paired_interval_agrees_with_agreement_difference_test(val):
    """The same paired design as metaeval.agreement_difference (items matched by key): same estimate,
    and intervals that agree within Monte Carlo error (B = 4000; different draws)."""
    r = sensitivity(metaeval.cohen_kappa, val, few_shot_scenarios()[:1], rng=2, n_resamples=4000)
    a = metaeval.align(val, val, label=("human", "judge"))
    b = a.subset((val["few_shot"] == 0).to_numpy())
    ad = metaeval.agreement_difference(b, a, ci_method="percentile", n_resamples=4000, rng=3)
    mine = r.get("drop few-shot items", "difference")
    theirs = ad[2]                                            # "a − b" = without − with
    assert mine.estimate == pytest.approx(theirs.estimate, abs=1e-12)
    assert (mine.ci.low, mine.ci.high) == pytest.approx((theirs.ci.low, theirs.ci.high), abs=0.004)
    assert mine.unit == "items" and mine.n_units == 202


def refusal_scenarios_relabel_and_exclude_test(val):
    r = sensitivity(metaeval.cohen_kappa, val, refusal_scenarios(labels=(0, 1)), rng=0, n_resamples=200)
    forced = val.copy()
    forced.loc[forced["refusal"] == 1, "judge"] = 1
    assert r.get("refusals forced to 1").estimate == pytest.approx(kappa(forced), abs=1e-12)
    assert r.get("refusals excluded").estimate == pytest.approx(kappa(val[val["refusal"] == 0]), abs=1e-12)
    assert r.get("refusals forced to 0").estimate == pytest.approx(kappa(val), abs=1e-12)   # recorded as 0
    info = r.scenarios.set_index("scenario")
    assert info.loc["refusals excluded", "n_dropped"] == 2 and info.loc["refusals forced to 1", "n_relabelled"] == 2
    assert info.loc["refusals forced to 0", "n_relabelled"] == 0


def per_class_recall_select_test(val):
    r = sensitivity(metaeval.per_class, val, few_shot_scenarios(), select=["recall[1]"], rng=0, n_resamples=200)
    f = r.to_frame()
    assert set(f["statistic"]) == {"recall[1]"}
    drop = val[val["few_shot"] == 0]
    assert r.get("drop few-shot items").estimate == pytest.approx(recall_score(drop["human"], drop["judge"]),
                                                                   abs=1e-12)
    assert r.baseline.estimate == pytest.approx(77 / 97, abs=1e-12)                  # README §2 table
    with pytest.raises(ValueError, match="unknown component"):
        sensitivity(metaeval.per_class, val, few_shot_scenarios(), select=["recall[7]"], n_resamples=10)


def options_reach_the_kernel_test(val):
    """Keywords and functools.partial reach the statistic (gwet_ac1 and kappa_at_prevalence)."""
    r = sensitivity(metaeval.gwet_ac1, val, few_shot_scenarios()[:1], rng=0, n_resamples=100)
    assert r.baseline.estimate == pytest.approx(
        metaeval.gwet_ac1(val["human"], val["judge"], n_resamples=10, rng=0).estimate, abs=1e-12)
    kp = metaeval.kappa_at_prevalence(val["human"], val["judge"], prevalence=0.0107, n_resamples=10, rng=0)
    r2 = sensitivity(metaeval.kappa_at_prevalence, val, few_shot_scenarios()[:1], prevalence=0.0107, rng=0,
                     n_resamples=100, select=["kappa@0.0107"])
    assert r2.baseline.estimate == pytest.approx(kp["kappa"].estimate, abs=1e-12)
    r3 = sensitivity(functools.partial(metaeval.cohen_kappa, weights="linear"), val, few_shot_scenarios()[:1],
                     rng=0, n_resamples=50)
    assert r3.statistic == "cohen_kappa_linear"


def leave_one_topic_out_matches_direct_recomputation_test(trec):
    d, p = trec
    r = sensitivity(metaeval.cohen_kappa, p, [leave_one_topic_out()], cluster="query_id", rng=0, n_resamples=300)
    data = p.data
    inf = r.influence()
    assert len(inf) == data["query_id"].nunique() == 40
    assert (inf["estimate"].abs().diff().dropna() <= 1e-15).all()          # sorted by |difference|
    base = cohen_kappa_score(data["reference"], data["candidate"])
    for t in data["query_id"].unique()[:6]:
        sub = data[data["query_id"] != t]
        e = r.get(f"without {t}")
        assert e.estimate == pytest.approx(cohen_kappa_score(sub["reference"], sub["candidate"]), abs=1e-12)
        assert r.get(f"without {t}", "difference").estimate == pytest.approx(e.estimate - base, abs=1e-12)
    assert r.baseline.unit == "clusters" and r.baseline.n_units == 40


def duplicate_scenarios_test(trec):
    d, p = trec
    r = sensitivity(metaeval.cohen_kappa, p, duplicate_scenarios(d.dups), rng=0, n_resamples=100)
    data = p.data
    dup = data["doc_id"].isin(d.dups["doc_id"])
    info = r.scenarios.set_index("scenario")
    assert info.loc["near-duplicates removed", "n_dropped"] == int(dup.sum())
    assert int(dup.sum()) <= 140                                      # README §1: 140 duplicates
    rem = data[~dup]
    assert r.get("near-duplicates removed").estimate == pytest.approx(
        cohen_kappa_score(rem["reference"], rem["candidate"]), abs=1e-12)
    # canonicalized: every duplicate whose canonical doc is judged takes the canonical's two labels
    lab = data.set_index("doc_id")[["reference", "candidate"]]
    can = data.copy()
    m = d.dups.set_index("doc_id")["canonical_doc_id"]
    for i in np.flatnonzero(dup.to_numpy()):
        c = m[data["doc_id"].iloc[i]]
        if c in lab.index:
            can.iloc[i, can.columns.get_indexer(["reference", "candidate"])] = lab.loc[c].to_numpy()
    assert r.get("near-duplicates canonicalized").estimate == pytest.approx(
        cohen_kappa_score(can["reference"], can["candidate"]), abs=1e-12)
    assert "spread of near-duplicates" in set(r.to_frame()["scenario"])


def generic_statistic_path_test(val):
    """An opaque callable gets the same point values as the table path; its loop bootstrap gives
    intervals that agree with the engine's within Monte Carlo error, and sees distinct ids for
    repeated clusters."""
    sc = few_shot_scenarios()[:2]
    a = sensitivity(metaeval.cohen_kappa, val, sc, cluster="query_id", rng=0, n_resamples=400)
    b = sensitivity(kappa, val, sc, cluster="query_id", rng=0, n_resamples=400)
    for name in ("baseline", "drop few-shot items", "drop overlapping topics"):
        assert b.get(name).estimate == pytest.approx(a.get(name).estimate, abs=1e-12)
        assert (b.get(name).ci.low, b.get(name).ci.high) == pytest.approx((a.get(name).ci.low, a.get(name).ci.high),
                                                                          abs=0.03)
    n_topics = []
    c = sensitivity(lambda df: n_topics.append(df["query_id"].nunique()) or 0.0, val, [], cluster="query_id", rng=0,
                    n_resamples=20)
    assert n_topics[0] == 35 and all(n == 35 for n in n_topics[1:])      # 35 draws → 35 distinct topic ids
    assert c.baseline.estimate == 0.0
    with pytest.raises(ValueError, match="bca"):
        sensitivity(kappa, val, sc, ci_method="bca", n_resamples=10)


def kendall_tau_under_leave_one_topic_out_test():
    """A system-level statistic through the generic path: Kendall tau of system means (scipy) on a
    long systems × topics frame, one topic left out at a time."""
    rng = np.random.default_rng(0)
    S, T = 8, 12
    q = np.linspace(0, 1, S)
    rows = [(f"s{s}", f"t{t}", q[s] + rng.normal(0, 0.3), q[s] + rng.normal(0, 0.3))
            for s in range(S) for t in range(T)]
    long = pd.DataFrame(rows, columns=["system", "query_id", "human", "judge"])

    def tau(df):
        m = df.groupby("system")[["human", "judge"]].mean()
        return sps.kendalltau(m["human"], m["judge"]).statistic

    r = sensitivity(tau, long, [leave_one_topic_out()], cluster="query_id", rng=0, n_resamples=60)
    assert r.baseline.estimate == pytest.approx(tau(long), abs=1e-12)
    assert r.get("without t3").estimate == pytest.approx(tau(long[long["query_id"] != "t3"]), abs=1e-12)
    assert len(r.influence()) == T


def frame_schema_and_errors_test(val):
    r = sensitivity("cohen_kappa", val, few_shot_scenarios()[:1], rng=0, n_resamples=50)
    f = r.to_frame()
    assert list(f.columns) == ["scenario", "group", "kind"] + FRAME_COLUMNS
    assert set(f["kind"]) == {"value", "difference"} and "cohen_kappa" in str(r)
    with pytest.raises(InputError, match="dropped the item id"):
        sensitivity("cohen_kappa", val, [Scenario("bad", lambda df: df.drop(columns="_item"))], n_resamples=10)
    with pytest.raises(ValueError, match="unique"):
        sensitivity("cohen_kappa", val, few_shot_scenarios()[:1] * 2, n_resamples=10)
    with pytest.raises(InputError, match="no column"):
        sensitivity("cohen_kappa", val, [Scenario("x", lambda df: df)], reference="truth", n_resamples=10)
    with pytest.raises(ValueError, match="unknown"):
        sensitivity("no_such_statistic", val, [], n_resamples=10)
