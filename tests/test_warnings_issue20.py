"""Warnings where users go wrong, and the small print of the judge-corrected estimates (issue #20, 6 and 9).

* align without a scale: the labels only one side uses are named (RMITIR-llama70B's two labels 5 on
  LLMJudge's 0–3 scale used to become a fifth category silently);
* corrected_system_scores: fewer than 15 labelled topics name the coverage measured at 10; a judge whose
  scores carry no information (λ tuned to 0) says so; the pairwise differences are computed when read;
* rogan_gladen: its result notes when ppi_proportion is the better tool, with the width ratio measured
  here on LLMJudge.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval as me
from metaeval.inference import systems as cs

DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
LLMJUDGE = DATA / "llmjudge"
needs_llmjudge = pytest.mark.skipif(not (LLMJUDGE / "human_qrels").is_dir(),
                                    reason=f"shared data not found at {DATA} (set METAEVAL_SHARED_DATA)")


def _frames(ref_labels, cand_labels):
    n = len(ref_labels)
    keys = pd.DataFrame({"query_id": ["1"] * n, "doc_id": [f"d{i}" for i in range(n)]})
    return keys.assign(relevance=ref_labels), keys.assign(relevance=cand_labels)


# --------------------------------------------------------------------------------------------
# align: different label sets without a scale
# --------------------------------------------------------------------------------------------

def label_sets_differ_warns_test():
    ref, cand = _frames([0, 1, 2, 3, 3, 0], [0, 1, 5, 5, 3, 0])
    with pytest.warns(me.MetaevalWarning, match=r"candidate uses 5 \(2 pairs\), which reference never uses") as rec:
        p = me.align(ref, cand)
    msg = str(rec[0].message)
    assert "reference uses 2 (1 pair), which candidate never uses" in msg
    assert "scale=(0, 1, 2, 3)" in msg and "out_of_scale='clip'" in msg
    assert p.scale.levels == (0, 1, 2, 3, 5)           # the behaviour is unchanged; only now it is said


def same_label_sets_or_declared_scale_do_not_warn_test():
    ref, cand = _frames([0, 1, 2, 3], [3, 2, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", me.MetaevalWarning)
        me.align(ref, cand)
        me.align(*_frames([0, 1, 2, 3], [0, 1, 5, 3]), scale=me.Scale((0, 1, 2, 3)), out_of_scale="clip")


def label_set_warning_names_the_interface_test():
    from metaeval.core.errors import interface

    ref, cand = _frames([0, 1, 2, 3], [0, 1, 5, 3])
    with interface("study", data="rmitir"), pytest.warns(me.MetaevalWarning) as rec:
        me.align(ref, cand)
    assert 'set scale = [0, 1, 2, 3] and out_of_scale = "clip" or "drop" in [data.rmitir]' in str(rec[0].message)
    with interface("cli"), pytest.warns(me.MetaevalWarning) as rec:
        me.align(ref, cand)
    assert "--scale 0,1,2,3" in str(rec[0].message) and "--out-of-scale clip" in str(rec[0].message)


@needs_llmjudge
def rmitir_label_5_is_named_test():
    """PROVENANCE.md of LLMJudge: RMITIR-llama70B has two labels of 5 on the 0–3 scale."""
    human = me.read_qrels(LLMJUDGE / "human_qrels" / "llmjudge_test_qrel_idx.txt")
    with pytest.warns(me.MetaevalWarning, match=r"candidate uses 5 \(2 pairs\), which reference never uses"):
        p = me.align(human, LLMJUDGE / "llm_judgments" / "RMITIR-llama70B.txt")
    assert 5 in p.scale.levels


# --------------------------------------------------------------------------------------------
# corrected_system_scores
# --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def scores():
    d = me.datasets.load("trec_dl_like")
    human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    topics = [str(t) for t in np.random.default_rng(3).choice(judge.topics, 15, replace=False)]
    return human, judge, topics


def fewer_than_15_labelled_topics_name_the_measured_coverage_test(scores):
    human, judge, lab = scores
    lo, hi, worst = cs.LABELLED_COVERAGE[10]
    with pytest.warns(me.SmallSampleWarning, match="only 10 labelled topics") as rec:
        cs.corrected_system_scores(human, judge, labelled_topics=lab[:10], differences=False)
    msg = str(rec[0].message)
    assert f"covered {lo:.3f}–{hi:.3f}" in msg and f"worst-covered run {worst:.2f}" in msg
    assert "label at least 15 topics" in msg
    with warnings.catch_warnings():
        warnings.simplefilter("error", me.SmallSampleWarning)
        cs.corrected_system_scores(human, judge, labelled_topics=lab, differences=False)


def uninformative_judge_warns_test(scores):
    """A judge that scores 0 on every labelled topic carries no information: λ = 0, said so, and the
    estimates are the classical (human-only) ones."""
    human, judge, lab = scores
    J = judge.matrix().copy()
    J.loc[:, lab] = 0.0
    with pytest.warns(me.MetaevalWarning, match=r"carry no information \(all 0\), so PPI\+\+ set λ = 0"):
        res = cs.corrected_system_scores(human, J, labelled_topics=lab, differences=False)
    cl = cs.corrected_system_scores(human, J, labelled_topics=lab, method="classical", differences=False)
    assert res.design["lam"] == 0.0
    np.testing.assert_allclose([e.estimate for e in res], [e.estimate for e in cl], atol=1e-12)
    # an informative judge does not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error", me.MetaevalWarning)
        assert cs.corrected_system_scores(human, judge, labelled_topics=lab, differences=False).design["lam"] > 0


def differences_are_computed_when_read_test(scores):
    """The default no longer pays for S(S − 1)/2 pairs up front (10× the scores' cost for 63 runs);
    reading ``.differences`` gives the same pairs as ``differences=True``."""
    human, judge, lab = scores
    lazy = cs.corrected_system_scores(human, judge, labelled_topics=lab)
    assert lazy.__dict__["_differences_args"] is not None          # nothing computed yet
    eager = cs.corrected_system_scores(human, judge, labelled_topics=lab, differences=True)
    a, b = lazy.differences.to_frame(), eager.differences.to_frame()
    assert len(a) == 30 * 29 // 2
    pd.testing.assert_frame_equal(a, b)
    assert len(cs.corrected_system_scores(human, judge, labelled_topics=lab, differences=False).differences) == 0
    top = lazy.filter(system=["run_01", "run_02"])          # a slice keeps the (already computed) pairs
    assert len(top.differences) == len(a)


# --------------------------------------------------------------------------------------------
# rogan_gladen vs ppi_proportion
# --------------------------------------------------------------------------------------------

def rogan_gladen_notes_the_better_tool_test():
    from metaeval.inference.prevalence import RG_NOTE

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = me.rogan_gladen(table=[[90, 10], [15, 85]], positives=300, total=1000)
    assert e.extra["note"] == RG_NOTE and "ppi_proportion" in RG_NOTE
    assert "ppi_proportion" in me.rogan_gladen.__doc__


@needs_llmjudge
def rogan_gladen_vs_ppi_on_llmjudge_test():
    """The ratio cited in rogan_gladen's docstring: relevant = label >= 2, 100 random validation items of
    the 4,423, the judge's labels on the rest; 20 draws per judge. Over all 33 judges the Rogan–Gladen
    (delta) interval was 2.4–5.1× (median 3.1×) as wide as ppi_proportion's; here 5 judges."""
    human = me.read_qrels(LLMJUDGE / "human_qrels" / "llmjudge_test_qrel_idx.txt")
    ratios = []
    for judge in ("h2oloo-fewself", "Olz-gpt4o", "RMITIR-llama70B", "TREMA-CoT", "prophet-setting4"):
        p = me.align(human, LLMJUDGE / "llm_judgments" / f"{judge}.txt", scale=me.Scale((0, 1, 2, 3)),
                     out_of_scale="clip").binarize(2)
        y, yh = np.asarray(p.reference, int), np.asarray(p.candidate, int)
        gen = np.random.default_rng(20261202)
        w = []
        for _ in range(20):
            lab = np.zeros(len(y), bool)
            lab[gen.choice(len(y), 100, replace=False)] = True
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rg = me.rogan_gladen(y[lab], yh[lab], positives=int(yh[~lab].sum()), total=int((~lab).sum()))
            pp = me.ppi_proportion(y[lab], yh[lab], yh[~lab], ci_method="analytic")
            if np.isfinite(rg.ci.width):
                w.append(rg.ci.width / pp.ci.width)
        ratios.append(np.mean(w))
    assert 2.4 <= min(ratios) and max(ratios) <= 5.1, ratios
