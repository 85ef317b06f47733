"""The small print of panels, juries, length figures and the CLI headline: what a reader sees is right.

Expected values come from the inputs themselves (which judge lacks a label, the levels drawn, the
ranks of the table) or from numpy (the heatmap's limits: the largest absolute off-diagonal value).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.output.study import run_study


def _set(items, labels):
    return pd.DataFrame({"query_id": [i[0] for i in items], "doc_id": [i[1] for i in items], "label": labels})


ITEMS = [(f"q{i % 8}", f"d{i}") for i in range(80)]


def _panel_inputs():
    """A human and three judges on 80 items; each judge keeps the human label with its own probability,
    else labels at random (independent errors); llama70b lacks the label of the first item."""
    rng = np.random.default_rng(1)
    human = rng.integers(0, 3, len(ITEMS))
    judges = {name: _set(ITEMS, np.where(rng.random(len(ITEMS)) < keep, human, rng.integers(0, 3, len(ITEMS))))
              for name, keep in (("gpt4_rts", 0.8), ("claude", 0.7), ("llama70b", 0.6))}
    judges["llama70b"] = judges["llama70b"].iloc[1:].reset_index(drop=True)
    return _set(ITEMS, human), judges


def common_items_warning_names_the_judge_lacking_labels_test():
    human, judges = _panel_inputs()
    with pytest.warns(me.MetaevalWarning, match="not judged by every judge") as rec:
        res = me.judge_panel(human, judges, on=("query_id", "doc_id"), label="label", n_resamples=50, rng=0)
    msg = next(str(w.message) for w in rec if "not judged by every judge" in str(w.message))
    # the judge whose label is missing is named, the two that merely lose that item are not
    assert "'llama70b' 1" in msg and "gpt4_rts" not in msg and "claude" not in msg
    assert res.design["items_dropped"] == {"gpt4_rts": 1, "claude": 1, "llama70b": 0}


def common_items_warning_once_per_jury_analysis_test(tmp_path):
    human, judges = _panel_inputs()
    long = pd.concat([human.assign(rater="human")] + [f.assign(rater=k) for k, f in judges.items()])
    long.to_csv(tmp_path / "labels.csv", index=False)
    (tmp_path / "s.toml").write_text("""
seed = 1
n_resamples = 40
[data.labels]
kind = "frame"
path = "labels.csv"
[[analysis]]
type = "jury"
name = "jury"
data = "labels"
methods = ["majority", "dawid_skene"]
""")
    rep = run_study(tmp_path / "s.toml", tmp_path / "out")
    notes = rep.notes[rep.notes["message"].str.contains("not judged by every judge")]
    # two methods, one set of items: one note, raised once, naming llama70b
    assert len(notes) == 1 and notes["times"].tolist() == [1] and "'llama70b' 1" in notes["message"].iloc[0]


@pytest.mark.parametrize("method", ["majority", "dawid_skene", "mean"])
def jury_labels_keep_a_multiindex_item_key_test(method):
    idx = pd.MultiIndex.from_tuples([(f"q{i // 4}", f"d{i}") for i in range(12)], names=["query_id", "doc_id"])
    rng = np.random.default_rng(2)
    votes = pd.DataFrame(rng.integers(0, 2, (12, 3)), index=idx, columns=["a", "b", "c"])
    truth = pd.Series(rng.integers(0, 2, 12), index=idx)
    kw = {"reference": truth} if method == "dawid_skene" else {}
    res = me.jury(votes, method=method, rng=0, **kw)
    assert isinstance(res.labels.index, pd.MultiIndex) and res.labels.index.names == ["query_id", "doc_id"]
    assert res.labels.index.equals(idx)
    # the same labels as with a flat index of the same items (the key only changes the index)
    flat = me.jury(votes.reset_index(drop=True), method=method, rng=0,
                   **({"reference": truth.reset_index(drop=True)} if kw else {}))
    np.testing.assert_array_equal(res.labels.to_numpy(), flat.labels.to_numpy())
    for part in (res.probabilities, res.folds):
        if part is not None:
            assert part.index.equals(idx)
    frame = res.to_frame()
    assert list(frame.columns[:3]) == ["query_id", "doc_id", "label"] and frame["doc_id"].tolist() == list(
        idx.get_level_values("doc_id"))


def length_figure_ticks_names_and_unit_test():
    from metaeval import figures

    # averaged samples: levels 1, 4/3, 5/3, 2
    d = pd.DataFrame({"h": [1, 4 / 3, 5 / 3, 2, 2], "j": [1, 4 / 3, 4 / 3, 2, 5 / 3], "n_words": [5, 8, 9, 12, 30]})
    _, ax = figures.subplots()
    figures.plot_length_by_label(d, label={"annotator": "h", "gpt-4": "j"}, length="n_words", ax=ax)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "1.33", "1.67", "2"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["annotator", "gpt-4"]
    assert ax.get_ylabel() == "n_words"                        # the data's own name, no unit claimed
    _, ax = figures.subplots()
    figures.plot_length_by_label(d, label={"annotator": "h"}, length="n_words", unit="words", ax=ax)
    assert ax.get_ylabel() == "n_words (words)"


def length_bias_study_uses_names_and_unit_test(tmp_path):
    rng = np.random.default_rng(3)
    n = 60
    h = rng.integers(1, 6, n)
    pd.DataFrame({"item_id": [f"i{k}" for k in range(n)], "human": h, "judge": np.clip(h + rng.integers(-1, 2, n), 1, 5),
                  "length": rng.integers(20, 400, n)}).to_csv(tmp_path / "scores.csv", index=False)
    (tmp_path / "s.toml").write_text("""
seed = 1
n_resamples = 40
[data.scores]
kind = "table"
path = "scores.csv"
key = "item_id"
reference = "human"
candidate = "judge"
names = ["annotators", "gpt4o"]
[[analysis]]
type = "length_bias"
name = "len"
data = "scores"
unit = "words"
""")
    rep = run_study(tmp_path / "s.toml", tmp_path / "out")
    ax = rep.figures["len_length_by_label"].axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["annotators", "gpt4o"]
    assert ax.get_ylabel() == "length (words)" and "tokens" not in ax.get_ylabel()
    assert set(rep.tables["len_length_by_label"]["rater"]) == {"annotators", "gpt4o"}


def cli_headline_is_the_best_judge_in_report_rounding_test():
    from metaeval.cli import headlines

    human, judges = _panel_inputs()
    judges["llama70b"] = _set(ITEMS, human.label)                       # llama70b: perfect, rank 1
    res = me.judge_panel(human, judges, on=("query_id", "doc_id"), label="label", n_resamples=50, rng=0)
    table = res.to_frame()
    assert table["judge"].iloc[0] != "llama70b"                          # not the first row
    line = headlines({"panel": table})[0]
    best = table.loc[table["rank"].idxmin()]
    assert line.startswith(f"panel: judge=llama70b rank=1 [{int(best['rank_low'])}, {int(best['rank_high'])}] ")
    assert f"{best['estimate']:.4f}" in line
    assert not re.search(r"\d\.\d{5,}", line)                            # no raw floats
    # other grouping numbers in the report's rounding: whole numbers as integers, else 4 decimals
    t = pd.DataFrame({"threshold": [1.0], "share": [0.123456789], "statistic": ["cohen_kappa"], "estimate": [0.6],
                      "ci_low": [0.5], "ci_high": [0.7]})
    assert headlines({"t": t}) == ["t: threshold=1 share=0.1235 cohen_kappa 0.6000 [0.5000, 0.7000]"]


def error_correlation_heatmap_is_diverging_centred_and_titled_test():
    from metaeval import figures

    human, judges = _panel_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", me.MetaevalWarning)
        res = me.judge_panel(human, judges, on=("query_id", "doc_id"), label="label", n_resamples=50, rng=0)
    m = res.error_correlation.to_numpy()
    off = m[~np.eye(len(m), dtype=bool)]
    assert (off < 0).any()                                               # signed values to tell apart
    _, ax = figures.subplots()
    figures.plot_panel_heatmap(res, which="error_correlation", ax=ax)
    im = ax.images[0]
    lim = np.abs(off).max()
    assert im.get_cmap().name == "RdBu_r" and im.get_clim() == pytest.approx((-lim, lim))
    white = np.array(im.get_cmap()(im.norm(0.0))[:3])
    assert white.min() > 0.9                                             # 0 is (nearly) white
    neg = np.array(im.get_cmap()(im.norm(off.min()))[:3])
    assert np.abs(neg - white).max() > 0.2                               # a negative value does not look like 0
    title = ax.get_title(loc="left")
    assert "Pearson correlation" in title and "error indicators" in title and "label ≠ reference" in title
    assert ax.figure.axes[-1].get_ylabel() == "Pearson r of the errors"  # the colour bar says what it shows
    # the agreement matrix names its statistic (the registry's label) and, without negative values, stays sequential
    _, ax = figures.subplots()
    agree = res.agreement.abs()
    figures.plot_panel_heatmap(agree, ax=ax, title="Judge x judge agreement")
    assert ax.images[0].get_cmap().name == "Blues" and ax.get_title(loc="left") == "Judge x judge agreement"
    _, ax = figures.subplots()
    figures.plot_panel_heatmap(res, which="agreement", ax=ax)
    # the registry's label of cohen_kappa (metaeval.core.registry.display_label)
    assert ax.get_title(loc="left") == f"Judge × judge agreement: {me.core.registry.display_label('cohen_kappa').text}"
