"""The alternative annotator test (metaeval.alt_test, alt_test_simulation).

Expected numbers come from the authors' own code (nitaytech/AltTest @ 18428b1,
alt_test_example.ipynb), run by tests/reference/make_reference_alttest.py on PandaLM's test set and
on seeded synthetic data (tests/reference/alttest_values.json); from scipy's ``ttest_1samp`` and
statsmodels' ``multipletests(method="fdr_by")``; and from data with a known answer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metaeval as me
from metaeval.inference import alt_test as alt_module
from metaeval.inference.alt_test import AltTestResult, alt_test_simulation, benjamini_yekutieli

alttest = alt_module.alt_test      # not bound as alt_test: pytest would collect a module-level *_test

REF = json.loads((Path(__file__).parent / "reference" / "alttest_values.json").read_text())
DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
ANALYSES = Path(__file__).resolve().parents[1] / "analyses"
KW = {"min_instances_per_human": "min_items_per_human", "min_humans_per_instance": "min_humans_per_item"}


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def _abs_similarity(pred, anns):
    # the custom scoring the generator gave the authors' `sim`: mean of 1 - |a - b| / 4
    return float(np.mean([1 - abs(pred - a) / 4 for a in anns]))


def _check(res: AltTestResult, case: dict):
    assert res.winning_rate == case["winning_rate"]
    assert res.advantage_probability == pytest.approx(case["advantage_probability"], abs=1e-12)
    assert [str(a) for a in res.pvalues["annotator"]] == case["annotators"]
    np.testing.assert_allclose(res.pvalues["pvalue"], case["p_values"], rtol=1e-10, atol=1e-12)
    assert set(map(str, res.pvalues.loc[res.pvalues["rejected"], "annotator"])) == set(case["rejected"])
    assert res.passed == (case["winning_rate"] >= 0.5)


# --------------------------------------------------------------------------------------------
# the authors' code
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", REF["synthetic"], ids=lambda c: c["name"])
def authors_synthetic_test(case):
    humans = pd.DataFrame(case["humans"], columns=["item_id", "annotator", "label"])
    judge = pd.Series(dict(case["judge"]))
    scoring = _abs_similarity if case["scoring"] == "abs_similarity" else case["scoring"]
    kw = {KW[k]: v for k, v in case["kwargs"].items()}
    res = _quiet(alttest, humans, judge, scoring=scoring, epsilon=case["epsilon"], q=case["q"], **kw)
    _check(res, case)
    # what the authors print: dropped items and skipped annotators
    for line in case["printed"]:
        if line.startswith("Dropped"):
            assert res.n_items_dropped == int(line.split()[1])          # few annotators or no LLM label
        if line.startswith("Skipping annotator"):
            assert line.split()[2] in map(str, res.skipped_annotators)
    # the authors' input form {annotator: {item: label}} gives the same result
    as_dict = {a: dict(zip(g["item_id"], g["label"])) for a, g in humans.groupby("annotator", sort=False)}
    res2 = _quiet(alttest, as_dict, dict(case["judge"]), scoring=scoring, epsilon=case["epsilon"], **kw)
    assert res2.winning_rate == res.winning_rate and res2.pvalues["pvalue"].tolist() == res.pvalues["pvalue"].tolist()


def _load_analysis():
    spec = importlib.util.spec_from_file_location("analysis_pandalm_alt_test", ANALYSES / "pandalm_alt_test.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.realdata
def authors_pandalm_test():
    if not (DATA / "pandalm").is_dir():
        pytest.skip(f"real data not found at {DATA}")
    humans, judges = _load_analysis().load_pandalm(DATA)
    assert len(humans) == 3 * 999                                   # PROVENANCE.md: 999 items, 3 annotators
    for case in REF["pandalm"]:
        res = alttest(humans, judges[case["judge"]], epsilon=case["epsilon"], q=case["q"])
        _check(res, case)
        assert res.n_items == 999 and res.n_items_dropped == 0


@pytest.mark.realdata
def pandalm_table_test():
    if not (DATA / "pandalm").is_dir():
        pytest.skip(f"real data not found at {DATA}")
    t = _quiet(_load_analysis().alt_test_table, DATA).set_index(["judge", "epsilon"])
    # the authors' code (alttest_values.json): neither judge passes at any ε; ρ = 0.7554 (GPT-3.5) and
    # 0.7147 (PandaLM-7B); every annotator passes as a replacement of the other two
    for case in REF["pandalm"]:
        row = t.loc[(case["judge"], case["epsilon"])]
        assert row["winning_rate"] == case["winning_rate"] and not row["passed"]
        assert row["advantage_probability"] == pytest.approx(case["advantage_probability"], abs=1e-12)
    humans_rows = t[t.index.get_level_values(0).str.contains("vs the other two")]
    assert len(humans_rows) == 9 and humans_rows["passed"].all()


# --------------------------------------------------------------------------------------------
# the pieces
# --------------------------------------------------------------------------------------------

def benjamini_yekutieli_matches_statsmodels_test():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 5, 12):
        for _ in range(200):
            p = np.where(rng.random(m) < 0.5, rng.random(m) * 0.02, rng.random(m))
            p[rng.random(m) < 0.2] = p[0]                           # ties
            mine, _ = benjamini_yekutieli(p, 0.05)
            ref = multipletests(p, alpha=0.05, method="fdr_by")[0]
            assert mine.tolist() == ref.tolist()


def pvalues_match_scipy_ttest_test():
    # the per-annotator test is scipy's one-sided one-sample t-test of W_h - W_judge against ε
    rng = np.random.default_rng(4)
    n = 50
    humans = pd.DataFrame([(i, a, int(rng.integers(0, 3))) for a in "abc" for i in range(n)],
                          columns=["item_id", "annotator", "label"])
    judge = pd.Series(rng.integers(0, 3, n))
    res = alttest(humans, judge, epsilon=0.1)
    L = humans.pivot(index="item_id", columns="annotator", values="label")
    for a in "abc":
        rest = L.drop(columns=a)
        s_h = (rest.to_numpy() == L[a].to_numpy()[:, None]).mean(axis=1)
        s_j = (rest.to_numpy() == judge.to_numpy()[:, None]).mean(axis=1)
        d = (s_h >= s_j).astype(float) - (s_j >= s_h).astype(float)
        ref = stats.ttest_1samp(d, 0.1, alternative="less")
        row = res.pvalues.set_index("annotator").loc[a]
        assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert row["t"] == pytest.approx(ref.statistic, rel=1e-12)
        assert row["judge_advantage"] == pytest.approx((s_j >= s_h).mean())


# --------------------------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------------------------

def _noisy(n, A, K, acc, seed):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, K, n)
    lab = {f"h{a}": np.where(rng.random(n) < acc, gold, rng.integers(0, K, n)) for a in range(A)}
    humans = pd.DataFrame([(i, a, int(v[i])) for a, v in lab.items() for i in range(n)],
                          columns=["item_id", "annotator", "label"])
    return humans, lab, gold, rng


def judge_equal_to_an_annotator_passes_test():
    # the judge is a copy of h0: against h0 itself every W is a tie (difference 0 < ε with no variance:
    # p = 0), and against the others it is exactly as good as a human: it wins every comparison
    humans, lab, _, _ = _noisy(300, 4, 3, 0.75, 1)
    res = alttest(humans, pd.Series(lab["h0"]), epsilon=0.1)
    assert res.passed and res.winning_rate == 1.0
    row = res.pvalues.set_index("annotator").loc["h0"]
    assert row["mean_difference"] == 0 and row["pvalue"] == 0 and row["judge_advantage"] == 1.0


def random_judge_fails_test():
    humans, _, _, rng = _noisy(200, 3, 4, 0.85, 2)
    res = alttest(humans, pd.Series(rng.integers(0, 4, 200)))
    assert not res.passed and res.winning_rate == 0.0
    assert (res.pvalues["pvalue"] > 0.5).all() and res.advantage_probability < 0.5


def gold_judge_beats_noisy_annotators_test():
    humans, _, gold, _ = _noisy(150, 5, 3, 0.7, 3)
    res = alttest(humans, pd.Series(gold), epsilon=0.0)       # no allowance: strictly better
    assert res.passed and res.advantage_probability > 0.75


def neg_rmse_scores_test():
    # −RMSE on scores: a judge equal to the mean of the other annotators is never farther from them than
    # any one annotator, so it wins every comparison
    rng = np.random.default_rng(5)
    true = rng.normal(3, 1, 60)
    sc = {a: np.clip(np.rint(true + rng.normal(0, 0.8, 60)), 1, 5) for a in "abc"}
    humans = pd.DataFrame([(i, a, v[i]) for a, v in sc.items() for i in range(60)],
                          columns=["item_id", "annotator", "label"])
    res = alttest(humans, pd.Series(np.mean([sc[a] for a in "abc"], axis=0)), scoring="neg_rmse", epsilon=0.05)
    assert res.passed and res.advantage_probability > 0.9
    with pytest.raises(me.InputError, match="numeric"):
        alttest(humans.assign(label=humans["label"].astype(str) + "x"), pd.Series(["1"] * 60), scoring="neg_rmse")


# --------------------------------------------------------------------------------------------
# input, output
# --------------------------------------------------------------------------------------------

def column_keywords_and_dropping_test():
    humans, lab, gold, _ = _noisy(60, 3, 3, 0.8, 6)
    renamed = humans.rename(columns={"item_id": "q", "annotator": "who", "label": "y"})
    judge = pd.Series(gold).drop([0, 1])                                     # two items without a judge label
    with pytest.warns(me.MetaevalWarning, match="2 item"):
        res = alttest(renamed, judge, item="q", annotator="who", label="y")
    assert res.n_items == 58 and res.n_items_dropped == 2 and res.extra["items_without_judge"] == 2
    with pytest.raises(me.InputError, match="no column 'item_id'"):
        alttest(renamed, judge)


def skipped_annotator_warns_test():
    humans, _, gold, _ = _noisy(60, 3, 3, 0.8, 7)
    extra = pd.DataFrame({"item_id": range(10), "annotator": "late", "label": gold[:10]})
    with pytest.warns(me.SmallSampleWarning, match="'late' \\(10\\)"):
        res = alttest(pd.concat([humans, extra]), pd.Series(gold))
    assert res.skipped_annotators == ["late"] and res.n_annotators == 3


def input_errors_test():
    humans, _, gold, _ = _noisy(40, 3, 3, 0.8, 8)
    with pytest.raises(me.InputError, match="repeat"):
        alttest(pd.concat([humans, humans.iloc[:1]]), pd.Series(gold))
    with pytest.raises(me.InputError, match="min_humans_per_item"):
        alttest(humans, pd.Series(gold), min_humans_per_item=1)
    with pytest.raises(me.InputError, match="no annotator"):
        alttest(humans, pd.Series(gold), min_items_per_human=100)
    with pytest.raises(me.InputError, match="scoring"):
        alttest(humans, pd.Series(gold), scoring="f1")
    with pytest.raises(me.InputError, match="judge"):
        alttest(humans, list(gold))
    with pytest.raises(me.InputError, match="no item of the judge"):
        alttest(humans, pd.Series(gold, index=[str(i) for i in range(40)]))


def rendering_test():
    humans, lab, _, _ = _noisy(40, 3, 3, 0.8, 9)
    res = alttest(humans, pd.Series(lab["h1"]))
    text = str(res)
    assert text.startswith("alt-test: PASSED") and "h0" in text and "ε = 0.2" in text
    html = res._repr_html_()
    assert "<table" in html and "PASSED" in html and "h2" in html
    f = res.to_frame()
    assert list(f.columns) == AltTestResult.FRAME_COLUMNS and f["n_annotators"].iloc[0] == 3
    assert list(res.pvalues.columns) == ["annotator", "n_items", "judge_advantage", "annotator_advantage",
                                         "mean_difference", "t", "df", "pvalue", "by_threshold", "rejected"]


# --------------------------------------------------------------------------------------------
# the simulation
# --------------------------------------------------------------------------------------------

def simulation_structure_test():
    sim = alt_test_simulation(sizes=(30, 60), epsilons=(0.0, 0.2), n_datasets=3, n_boots=4, rng=1)
    assert len(sim) == 4 and (sim["n_runs"] == 12).all() and sim.attrs["seed"] == 1
    again = alt_test_simulation(sizes=(30, 60), epsilons=(0.0, 0.2), n_datasets=3, n_boots=4, rng=1)
    pd.testing.assert_frame_equal(sim, again)
    # a larger ε never lowers the winning rate of the same draws
    for s in (30, 60):
        w = sim[sim["size"] == s].set_index("epsilon")["winning_rate"]
        assert w[0.2] >= w[0.0]
    with pytest.raises(me.InputError):
        alt_test_simulation(noise_judge=1.5)


@pytest.mark.slow
def simulation_matches_authors_test():
    # the authors' simulation loop (alttest_values.json: 100 data sets × 10 draws, two noise settings)
    # against ours with the same design and another seed: means agree within Monte-Carlo error
    for ref in REF["simulation"]:
        ours = alt_test_simulation(sizes=ref["sizes"], epsilons=ref["epsilons"], n_categories=ref["n_categories"],
                                   noise_annotators=ref["noise_annotators"], noise_judge=ref["noise_llm"],
                                   n_annotators=ref["n_annotators"], max_annotators=ref["max_annotators"],
                                   max_items=ref["max_items"], n_datasets=ref["n_datasets"], n_boots=ref["n_boots"],
                                   rng=12345)
        for row in ref["table"]:
            o = ours[ours["size"] == row["size"]].set_index("epsilon")
            # runs of one data set share its priors: the SE of a mean uses the data sets, not the runs
            for eps in ref["epsilons"]:
                se = np.hypot(row[f"wr_{eps}_sd"], o.loc[eps, "winning_rate_sd"]) / np.sqrt(ref["n_datasets"])
                assert abs(o.loc[eps, "winning_rate"] - row[f"wr_{eps}"]) <= max(4 * se, 0.02), (row["size"], eps)
            first = o.iloc[0]
            assert first["advantage_probability"] == pytest.approx(row["app"], abs=0.02)
            assert first["iaa"] == pytest.approx(row["iaa_anns"], abs=0.03)
            assert first["judge_kappa"] == pytest.approx(row["iaa_llm"], abs=0.03)
            assert first["accuracy_majority"] == pytest.approx(row["accuracy_majority"], abs=0.02)
