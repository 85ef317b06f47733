"""Honest captions (issue 20, item 4): each caption says what was done, built from the result itself.

Every expected phrase is read from the estimate the library returns (its ``ci.method``,
``n_resamples``, ``unit``, ``n_units`` and ``extra``: ``df``, ``quantile``, ``n_labelled``), not
typed in: the tests check that the caption carries those values, and that it no longer carries
what was not done ("B = 0", "resampling unit none", an interval header over point estimates).
Labels are the registry's (:func:`metaeval.core.registry.display_label`).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.core import registry
from metaeval.output.report import Report, column_label, interval_note, paper_table
from metaeval.output.study import run_study

matplotlib.use("Agg")

SAMPLES = Path(__file__).resolve().parents[1] / "data_samples"


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _caption(md: str, table: str) -> str:
    """The caption line of ``tables/<table>.csv`` in report.md."""
    return next(line for line in md.splitlines() if f"`tables/{table}.csv`" in line)


def _md_table(md: str, table: str) -> list[str]:
    """The Markdown table lines following the caption of ``table``."""
    lines = md.splitlines()
    i = next(k for k, line in enumerate(lines) if f"`tables/{table}.csv`" in line)
    out = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        out.append(line)
    return out


# --------------------------------------------------------------------------------------------
# analytic intervals: the variance and the quantile, not "B = 0, resampling unit none"
# --------------------------------------------------------------------------------------------

def analytic_interval_caption_names_variance_and_quantile_test():
    x = [0, 1, 1, 0, 1, 1, 0, 0, 1, 1] * 20 + [0, 1]
    y = [0, 1, 0, 0, 1, 1, 1, 0, 1, 1] * 20 + [0, 0]
    e = me.cohen_kappa(x, y, ci_method="analytic")
    assert e.extra["quantile"] == "t" and e.extra["df"] == len(x) - 1      # the library's own metadata
    r = Report("t")
    r.table("kappa", e.to_frame(), "Agreement", intervals=[e])
    cap = _caption(r.to_markdown(), "kappa")
    assert f"analytic interval (Fleiss–Cohen–Everitt variance, t({len(x) - 1}) quantile), n = {len(x)} items" in cap
    assert "B = 0" not in cap and "resampling unit none" not in cap
    # the same note from the frame alone (no extra): still no "B = 0"
    assert "B = 0" not in paper_table(e.to_frame())[1] and "analytic interval" in paper_table(e.to_frame())[1]


def corrected_scores_caption_says_labelled_topics_of_all_test(tmp_path):
    # 10 of the 40 trec_dl_like topics labelled: the caption says "10 labelled topics of 40", the
    # t(9) quantile and the finite-population correction, as corrected_system_scores' estimates do
    study = {"title": "t", "seed": 5, "n_resamples": 200, "_base": str(SAMPLES), "_source": str(tmp_path / "s.toml"),
             "data": {"h": {"kind": "qrels", "path": "trec_dl_like/qrels.human.txt"},
                      "j": {"kind": "qrels", "path": "trec_dl_like/qrels.judge.txt"},
                      "r": {"kind": "runs", "path": "trec_dl_like/runs"}},
             "analysis": [{"type": "corrected_scores", "name": "corr", "human": "h", "judge": "j", "runs": "r",
                           "n_labelled": 10, "differences": False, "compare": ["classical"]}]}
    rep = _quiet(run_study, study, tmp_path / "out")
    scores = rep.tables["corr_scores"]
    main = scores[scores["statistic"] == "ppi++_mean"]
    n_lab, total, df = int(main["n_labelled"].iloc[0]), int(main["n_units"].iloc[0]), int(main["df"].iloc[0])
    assert (n_lab, total, df) == (10, 40, 9)
    cap = _caption(rep.to_markdown(), "corr_scores")
    assert f"PPI++ variance, finite-population correction, t({df}) quantile), {n_lab} labelled topics of {total}" in cap
    assert f"(n = {total})" not in cap and "B = 0" not in cap and "resampling unit none" not in cap
    # the rank correlation of the corrected ranking: point estimates, said so; no "(n = 0)", no CI header
    cap = _caption(rep.to_markdown(), "corr_rank_correlation")
    assert "Point estimates (no intervals)." in cap and "n = 0" not in cap
    assert _md_table(rep.to_markdown(), "corr_rank_correlation")[0] == "| method | estimate |"


def cluster_bootstrap_caption_names_the_clusters_test():
    e = me.cohen_kappa([0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10, cluster=np.repeat(np.arange(8), 5), n_resamples=300,
                       rng=3)
    note = interval_note([e], units="query_id clusters")
    assert note == (f"95% intervals: {'BCa' if e.ci.method == 'bca' else e.ci.method} bootstrap, "
                    f"B = {e.n_resamples}, {e.n_units} query_id clusters resampled, seed {e.seed}.")


def mixed_interval_methods_get_a_clause_each_test():
    from metaeval.agreement.analytic import analytic_estimate

    a = analytic_estimate("cohen_kappa", 0.6, 0.0025, n=50, quantile="normal")
    b = me.gwet_ac1([0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10, n_resamples=200, rng=1)
    note = interval_note([a, b])
    assert note.startswith("95% intervals: Cohen's κ: analytic interval (normal quantile), n = 50 items; ")
    assert "Gwet's AC1: " in note and "B = 200, 40 items resampled" in note and note.endswith("; seed 1.")


# --------------------------------------------------------------------------------------------
# a table without intervals: no interval header, no "(n = 0)"
# --------------------------------------------------------------------------------------------

def rank_correlation_without_intervals_has_no_interval_header_test():
    d = me.datasets.load("trec_dl_like")
    human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    res = me.rank_correlation(human, judge, methods=("kendall_b", "tau_ap", "rbo"), ci_method=None)
    table, note = paper_table(res.to_frame(), ["method", "estimate", "ci_low", "ci_high", "n_units"])
    assert "estimate" in table.columns and not any("CI" in c for c in table.columns)
    assert note == "Point estimates (no intervals)."
    # ... and the labels are the registry's
    assert table["method"].tolist() == ["Kendall's τ_b", "τ_AP", "RBO"]


# --------------------------------------------------------------------------------------------
# the alt-test verdict shows the verdict
# --------------------------------------------------------------------------------------------

def alt_test_verdict_shows_passed_test(tmp_path):
    # one judge, one epsilon, and a judge that beats every annotator (winning rate 1.0): the column
    # "passed" used to be dropped as a "repeat" of winning_rate ([True] == [1.0] in Python)
    rng = np.random.default_rng(4)
    gold = rng.integers(0, 4, 150)
    rows = []
    for rater, p in (("ann1", 0.7), ("ann2", 0.7), ("ann3", 0.7), ("llm", 0.95)):
        lab = np.where(rng.random(150) < p, gold, rng.integers(0, 4, 150))
        rows += [(f"i{i:03d}", rater, int(v)) for i, v in enumerate(lab)]
    pd.DataFrame(rows, columns=["item", "who", "grade"]).to_csv(tmp_path / "labels.csv", index=False)
    study = {"title": "alt", "seed": 1, "_base": str(tmp_path), "_source": str(tmp_path / "study.toml"),
             "data": {"labels": {"kind": "frame", "path": "labels.csv"}},
             "analysis": [{"type": "alt_test", "name": "alt", "data": "labels", "item": "item", "rater": "who",
                           "label": "grade", "judge": "llm", "epsilon": 0.2}]}
    rep = _quiet(run_study, study, tmp_path / "out")
    verdict = rep.tables["alt_verdict"]
    assert verdict["winning_rate"].iloc[0] == 1.0 and bool(verdict["passed"].iloc[0])
    lines = _md_table(rep.to_markdown(), "alt_verdict")
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    assert "passed" in head
    assert [c.strip() for c in lines[2].strip("|").split("|")][head.index("passed")] == "yes"


# --------------------------------------------------------------------------------------------
# labels from the registry: text for Markdown/HTML, math for LaTeX
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, text, latex", [
    ("kappa_max", "κ_max", r"$\kappa_{\max}$"),
    ("kendall_b", "Kendall's τ_b", r"Kendall's $\tau_b$"),
    ("tau_ap", "τ_AP", r"$\tau_{\mathrm{AP}}$"),
    ("rbo", "RBO", "RBO"),
    ("spearman", "Spearman's ρ", r"Spearman's $\rho$"),
    ("cohen_kappa", "Cohen's κ", r"Cohen's $\kappa$"),
    ("user_column", "user_column", r"user\_column"),
])
def registry_labels_test(name, text, latex):
    assert column_label(name) == text and column_label(name, fmt="latex") == latex


def kappa_max_label_has_no_literal_underscore_in_latex_test():
    # the label's math form is declared in the registry; escaping the text gave "$\kappa$\_max"
    assert registry.get("kappa_max").math_label == r"$\kappa_{\max}$"
    assert r"\_" not in column_label("kappa_max", fmt="latex")
    table, _ = paper_table(pd.DataFrame({"statistic": ["kappa_max", "cohen_kappa_linear"], "estimate": [0.8, 0.5]}))
    assert table["statistic"].tolist() == ["κ_max", "Cohen's κ (linear)"]


# --------------------------------------------------------------------------------------------
# the corrected-intervals figure: the legend stays inside the figure
# --------------------------------------------------------------------------------------------

def corrected_intervals_legend_fits_test():
    from metaeval.output.figures_inference import plot_corrected_intervals

    d = me.datasets.load("trec_dl_like")
    judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    full = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    lab = sorted(judge.topics)[::4]
    human = me.system_scores(d.qrels_human[d.qrels_human["query_id"].astype(str).isin(lab)], d.runs, "nDCG@10")
    res = {m: _quiet(me.corrected_system_scores, human, judge, labelled_topics=lab, method=m, differences=False)
           for m in ("ppi++", "ppi", "classical", "judge_only")}
    ax = plot_corrected_intervals(res, target=full.means())
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width + 0.5 and box.y1 <= fig.bbox.height + 0.5
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "all-topic human mean" in texts


def paper_table_latex_form_uses_math_labels_test():
    # fmt="latex": the cells a LaTeX writer puts in a .tex file as they are (labels in math, text escaped)
    df = pd.DataFrame({"statistic": ["kappa_max", "my_stat"], "judge_name": ["a_b", "c&d"], "estimate": [0.8, 0.5]})
    table, note = paper_table(df, fmt="latex")
    assert table["statistic"].tolist() == [r"$\kappa_{\max}$", r"my\_stat"]
    assert list(table.columns) == ["statistic", r"judge\_name", "estimate"]
    assert table[r"judge\_name"].tolist() == [r"a\_b", r"c\&d"] and note == ""
