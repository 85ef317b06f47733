"""Study analysis types ``panel`` and ``jury`` (issue #22): the tables are the library's numbers.

Data: the bundled synthetic ``data_samples/panel_like/labels.csv`` (a human and five judges on 600
passages of 20 topics; generator ``data_samples/make_samples.py``, seed 20240615), through the
example study ``data_samples/panel_study.toml``. Expected numbers: :func:`metaeval.judge_panel`,
:func:`metaeval.jury`, :func:`metaeval.jury_vs_best` and :func:`metaeval.select_jury` called directly
with the study's seed and n_resamples (the study computes nothing itself).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.output.study import load_study, run_study

SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"
STUDY = SAMPLES / "panel_study.toml"
N = 200


@pytest.fixture(scope="module")
def labels():
    df = pd.read_csv(SAMPLES / "panel_like" / "labels.csv", dtype={"query_id": str, "doc_id": str})
    sets = {r: g[["query_id", "doc_id", "label"]].reset_index(drop=True) for r, g in df.groupby("rater", sort=False)}
    return sets.pop("human"), sets


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    study = load_study(STUDY)
    study["n_resamples"] = N
    return run_study(study, tmp_path_factory.mktemp("panel_study")), study["seed"]


def sample_is_what_the_readme_says_test(labels):
    human, judges = labels
    assert len(human) == 600 and human["query_id"].nunique() == 20
    assert sorted(judges) == ["mid_a", "mid_b", "strong", "strong_lenient", "weak"]
    # strong_lenient is strong with every 1 called 2
    s, lenient = judges["strong"]["label"].to_numpy(), judges["strong_lenient"]["label"].to_numpy()
    assert (lenient == np.where(s == 1, 2, s)).all()


def panel_table_is_judge_panels_test(report, labels):
    rep, seed = report
    human, judges = labels
    res = me.judge_panel(human, judges, on=("query_id", "doc_id"), label="label", scale=me.Scale((0, 1, 2, 3)),
                         cluster="query_id", n_resamples=N, rng=seed)
    got = rep.tables["panel_panel"].set_index("judge")
    want = res.to_frame().set_index("judge")
    for col in ("estimate", "ci_low", "ci_high", "rank_low", "rank_high", "difference_low", "difference_high"):
        np.testing.assert_allclose(got.loc[want.index, col].astype(float), want[col].astype(float), err_msg=col)
    assert got.loc[want.index, "tied_with_best"].astype(bool).tolist() == want["tied_with_best"].tolist()
    assert "strong" in res.tied and "weak" not in res.tied             # the planted order (README)
    corr = rep.tables["panel_error_correlation"].set_index("judge")
    assert corr.loc["strong", "strong_lenient"] == pytest.approx(res.error_correlation.loc["strong", "strong_lenient"])
    assert corr.loc["strong", "strong_lenient"] > 0.5 > abs(corr.loc["mid_a", "mid_b"])
    assert {"panel_forest", "panel_error_correlation"} <= set(rep.figures)


def jury_table_is_jury_vs_best_test(report, labels):
    rep, seed = report
    human, judges = labels
    members = {k: judges[k] for k in ("strong", "mid_a", "mid_b")}
    votes = pd.concat({k: f.set_index(["query_id", "doc_id"])["label"] for k, f in members.items()}, axis=1)
    truth = human.set_index(["query_id", "doc_id"])["label"].reindex(votes.index)
    topics = np.asarray(votes.index.get_level_values("query_id"))
    table = rep.tables["jury_jury_vs_best"]
    for method in ("majority", "dawid_skene", "weighted"):
        j = me.jury(votes, method=method, reference=truth, cluster=topics, rng=seed)
        cmp = me.jury_vs_best(human, members, j, cluster="query_id", on=("query_id", "doc_id"), label="label",
                              n_resamples=N, rng=seed)
        rows = table[table["method"] == method].set_index("set")
        for s in ("jury - best member", "jury", "best member"):
            e = cmp.get(set=s)
            assert rows.loc[s, "estimate"] == pytest.approx(e.estimate)
            assert rows.loc[s, "ci_low"] == pytest.approx(e.ci.low)
        assert bool(rows["cross_fitted"].iloc[0]) == (method != "majority")
    sel = me.select_jury(votes, truth, cluster=topics, max_judges=3, rng=seed)
    pd.testing.assert_series_equal(rep.tables["jury_selection"]["estimate"].astype(float),
                                   sel.curve["estimate"].astype(float), check_names=False)


@pytest.mark.parametrize("change, match", [
    ({"cluster": "topic"}, "not a key column"),
    ({"judges": ["strong", "nobody"]}, "no rows with rater == 'nobody'"),
    ({"methods": ["majority", "voting"]}, "unknown jury method 'voting'"),
    ({"judges": ["strong"]}, "at least two judges"),
])
def bad_keys_raise_input_error_naming_the_analysis_test(tmp_path, change, match):
    study = load_study(STUDY)
    jury_entry = {**study["analysis"][1], **change}
    study["analysis"] = [jury_entry]
    study["n_resamples"] = 50
    with pytest.raises(me.InputError, match=match) as info:
        run_study(study, tmp_path / "out")
    assert "jury" in str(info.value)


def unknown_key_is_refused_when_the_study_loads_test(tmp_path):
    text = STUDY.read_text(encoding="utf-8").replace('methods = ["majority"', 'method = ["majority"')
    (tmp_path / "s.toml").write_text(text, encoding="utf-8")
    with pytest.raises(me.InputError, match="methods"):
        load_study(tmp_path / "s.toml")
