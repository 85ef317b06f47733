"""Long score tables (study ``kind = "long"``, :func:`metaeval.data.long.align_long`): duplicates get
``align``'s fates and ``duplicates=`` policy, genuine repeats (a sample column) are combined, and every
row of each rater is counted.

Expected counts and scores are worked out by hand from the small tables below (each comment says how).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.data.long import align_long
from metaeval.output.study import run_study


def _table():
    # human: items a, b, c once each; judge: a once, b twice with conflicting scores (2 and 4),
    # c twice with the same score (3, 3), d once (an item the human did not score)
    return pd.DataFrame({"item_id": ["a", "b", "c", "a", "b", "b", "c", "c", "d"],
                         "rater": ["human"] * 3 + ["judge"] * 6,
                         "score": [1, 2, 3, 1, 2, 4, 3, 3, 5]})


def conflicting_duplicates_are_an_error_naming_item_and_lines_test(tmp_path):
    path = tmp_path / "scores.csv"
    _table().to_csv(path, index=False)
    with pytest.raises(me.InputError) as e:
        align_long(path, reference="human", candidate="judge")
    msg = str(e.value)
    # the judge's rows of item b are data lines 5 and 6 of the file (header = line 1): file lines 6 and 7
    assert "rater 'judge'" in msg and "1 item(s) scored more than once with different labels" in msg
    assert "[6, 7]" in msg and "scores.csv" in msg and "duplicates=" in msg and "sample" in msg


@pytest.mark.parametrize("policy, b_judge", [("first", 2.0), ("last", 4.0), ("mean", 3.0)])
def duplicates_get_fates_and_the_policy_test(policy, b_judge):
    p = align_long(_table(), reference="human", candidate="judge", duplicates=policy)
    got = dict(zip(p.data["item_id"], p.data["candidate"]))
    assert got == {"a": 1.0, "b": b_judge, "c": 3.0}
    counts = p.report.counts
    # human: 3 rows, all matched. judge: 6 rows = 3 matched (a, b, c) + 1 conflicting duplicate (b)
    # + 1 identical duplicate (c) + 1 unmatched (d)
    assert {k: v for k, v in counts.items() if k[0] == "human"} == {("human", "matched"): 3}
    assert {k: v for k, v in counts.items() if k[0] == "judge"} == {
        ("judge", "matched"): 3, ("judge", "unmatched"): 1, ("judge", "duplicate_identical"): 1,
        ("judge", "duplicate_conflict"): 1}
    assert p.report.n_input == {"human": 3, "judge": 6} and p.report.n_pairs == 3
    assert p.report.notes[("judge", "keys with conflicting labels")] == 1
    assert p.report.conflicts["labels"].tolist() == [[2, 4]]


def sample_column_keeps_genuine_repeats_test():
    # the judge scored item x in samples 1, 2, 3 (3, 4, 5: genuine repeats, mean 4) and item y in samples
    # 1 and 1 again with different scores (a duplicate within a sample), then sample 2 (score 2)
    df = pd.DataFrame({"item_id": ["x", "y", "x", "x", "x", "y", "y", "y"],
                       "rater": ["human", "human", "judge", "judge", "judge", "judge", "judge", "judge"],
                       "sample": [1, 1, 1, 2, 3, 1, 1, 2],
                       "score": [4, 1, 3, 4, 5, 1, 3, 2]})
    with pytest.raises(me.InputError, match="scored more than once"):
        align_long(df, reference="human", candidate="judge", sample="sample")
    p = align_long(df, reference="human", candidate="judge", sample="sample", duplicates="first")
    # x: mean(3, 4, 5) = 4; y: sample 1 keeps its first row (1), sample 2 is 2: mean 1.5
    assert dict(zip(p.data["item_id"], p.data["candidate"])) == {"x": 4.0, "y": 1.5}
    judge = {f: n for (s, f), n in p.report.counts.items() if s == "judge"}
    # 6 judge rows: 5 used (3 for x, 2 for y) are matched, 1 conflicting duplicate
    assert judge == {"matched": 5, "duplicate_conflict": 1} and p.report.n_input["judge"] == 6
    with pytest.warns(me.MetaevalWarning, match="no scale was declared"):     # first samples: levels inferred
        first = align_long(df, reference="human", candidate="judge", sample="sample", duplicates="first",
                           samples="first")
    assert dict(zip(first.data["item_id"], first.data["candidate"])) == {"x": 3.0, "y": 1.0}


def without_sample_column_repeats_are_duplicates_test():
    # the same table as above without naming the sample column: x's three scores conflict
    df = pd.DataFrame({"item_id": ["x", "x", "x", "x"], "rater": ["human", "judge", "judge", "judge"],
                       "sample": [1, 1, 2, 3], "score": [4, 3, 4, 5]})
    with pytest.raises(me.InputError, match="name the column that numbers the samples"):
        align_long(df.rename(columns={"sample": "draw"}), reference="human", candidate="judge")
    with pytest.raises(me.InputError, match="name the column that numbers the samples"):
        align_long(df, reference="human", candidate="judge", sample=None)
    # a column named sample is taken by default (sample="auto")
    assert align_long(df, reference="human", candidate="judge").data["candidate"].tolist() == [4.0]
    p = align_long(df, reference="human", candidate="judge", duplicates="majority", sample=None)
    # majority of 3, 4, 5 (no majority): the earliest of the most frequent, 3 (align's rule)
    assert p.data["candidate"].tolist() == [3.0]
    assert p.report.counts[("judge", "duplicate_conflict")] == 2


def study_long_data_reports_conflicts_by_fate_test(tmp_path):
    """52 conflicting scores in one judge's rows (the case of the report): counted, never silently averaged."""
    rng = np.random.default_rng(0)
    n = 200
    human = rng.integers(1, 6, n)
    judge = np.clip(human + rng.integers(-1, 2, n), 1, 5)
    rows = [(f"i{k:03d}", "human", human[k]) for k in range(n)] + [(f"i{k:03d}", "gpt4", judge[k]) for k in range(n)]
    conflicting = rng.choice(n, 52, replace=False)
    rows += [(f"i{k:03d}", "gpt4", 6 - judge[k] if judge[k] != 3 else 1) for k in conflicting]
    pd.DataFrame(rows, columns=["item_id", "rater", "score"]).to_csv(tmp_path / "scores.csv", index=False)
    base = """
seed = 1
n_resamples = 50
[data.scores]
kind = "long"
path = "scores.csv"
reference = "human"
candidate = "gpt4"
{extra}
[[analysis]]
type = "correlation"
name = "corr"
data = "scores"
"""
    (tmp_path / "error.toml").write_text(base.format(extra=""))
    with pytest.raises(me.InputError) as e:
        run_study(tmp_path / "error.toml", tmp_path / "out_error")
    assert "52 item(s) scored more than once" in str(e.value) and 'duplicates = "first"' in str(e.value)
    (tmp_path / "first.toml").write_text(base.format(extra='duplicates = "first"'))
    rep = run_study(tmp_path / "first.toml", tmp_path / "out")
    notes = rep.notes[rep.notes["analysis"] == "data.scores"]["message"].tolist()
    assert any("gpt4 (scores.csv): 52 of 252 rows left out of the pairs as duplicate_conflict" in m for m in notes)
    assert any("gpt4 (scores.csv): 52 rows kept but changed: keys with conflicting labels" in m for m in notes)
    # the first score of each item is the one paired: the correlation is the one of the clean table
    r = rep.tables["corr_correlation"].set_index("statistic").loc["pearson_r", "estimate"]
    assert r == pytest.approx(np.corrcoef(human, judge)[0, 1])                          # numpy


def bundled_rubric_study_averages_its_samples_test():
    """rubric_like's judge has three samples per item (data_samples/README.md): combined, not duplicates."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data_samples" / "rubric_like" / "scores.csv"
    df = pd.read_csv(path)
    p = align_long(path, reference="human", candidate="judge", sample="sample", keep=["generator"])
    want = df[df["rater"] == "judge"].groupby("item_id")["score"].mean()                # pandas
    got = p.data.set_index("item_id")["candidate"]
    np.testing.assert_allclose(got.to_numpy(), want.reindex(got.index.astype(str)).to_numpy())
    judge_rows = int((df["rater"] == "judge").sum())
    assert p.report.counts[("judge", "matched")] == judge_rows and p.report.n_input["judge"] == judge_rows
    assert p.scale.kind == "interval"
