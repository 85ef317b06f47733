"""judge_panel on the LLMJudge challenge (issue #22): every single-judge value the package reproduces
one by one (tests/test_agreement_realdata.py) comes out of one judge_panel call per table column.

Expected numbers: Table 4 (Cohen's kappa) and Table 5 (Krippendorff's alpha, ordinal) of Rahmani et
al., "Judging the Judges" (arXiv:2502.13908), 4-point and binarised at 0|123, 01|23, 012|3, as
transcribed in ``shared/data/llmjudge/reference_numbers.txt`` (parsed by test_agreement_realdata.py).
Recipe as there: human labels ``human_qrels/llmjudge_test_qrel_idx.txt``, judge labels clipped into
0-3 (``out_of_scale="clip"``, passed through to align), 4 decimals.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_agreement_realdata import HALF_ULP4, JUDGES, LLMJUDGE, SCALE, paired, published

import metaeval

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not (LLMJUDGE / "reference_numbers.txt").is_file(),
                       reason=f"shared data not found at {LLMJUDGE} (set METAEVAL_SHARED_DATA to the shared/data folder)"),
]

HUMAN = LLMJUDGE / "human_qrels" / "llmjudge_test_qrel_idx.txt"
FOLDER = LLMJUDGE / "llm_judgments"
COLUMNS = {None: 0, 1: 1, 2: 2, 3: 3}          # binarize threshold -> column of the tables


def _check(res, table, col):
    assert [k["judge"] for k in res.keys] == JUDGES            # the folder's 33 files, by name
    for e, key in zip(res, res.keys):
        expected = published()[table][key["judge"]][col]
        assert abs(e.estimate - expected) <= HALF_ULP4, (key["judge"], table, col, e.estimate, expected)
        assert e.n == 4423


def llmjudge_table4_kappa_panel_with_clusters_test():
    """One call: all 33 kappas of Table 4's 4-point column, topic-clustered intervals, the tied set."""
    res = metaeval.judge_panel(HUMAN, FOLDER, statistic="cohen_kappa", scale=SCALE, out_of_scale="clip",
                               cluster="query_id", n_resamples=2000, rng=0)
    _check(res, "kappa", 0)
    assert res.design["n_clusters"] == 25 and res.design["items_dropped"] == dict.fromkeys(JUDGES, 0)
    # the interval of each judge is its own cohen_kappa's on the same seed (one shared draw)
    single = metaeval.cohen_kappa(metaeval.align(HUMAN, FOLDER / "h2oloo-fewself.txt", scale=SCALE,
                                                 out_of_scale="clip"), cluster="query_id", n_resamples=2000, rng=0)
    e = res.get(judge="h2oloo-fewself")
    assert (e.ci.low, e.ci.high) == (single.ci.low, single.ci.high)
    # the published best (willia-umbrela1, 0.2863) leads, and the tied set holds it and is a strict subset
    assert res.best == "willia-umbrela1" and "willia-umbrela1" in res.tied and 1 < len(res.tied) < 33
    assert res.reports["RMITIR-llama70B"].notes[("RMITIR-llama70B", "out-of-scale labels clipped")] == 2
    assert np.allclose(np.diag(res.agreement.to_numpy()), 1.0)


@pytest.mark.parametrize("binarize", [1, 2, 3])
def llmjudge_table4_binarised_kappa_panel_test(binarize):
    with warnings.catch_warnings():
        # NISTRetrieval-instruct* never say 3: at 012|3 their kappa is exactly 0 (and the
        # judge x judge kappa of two of them is undefined)
        warnings.simplefilter("ignore", metaeval.MetaevalWarning)
        res = metaeval.judge_panel(None, {j: paired(j) for j in JUDGES}, statistic="cohen_kappa",
                                   binarize=binarize, ci_method=None)
    _check(res, "kappa", COLUMNS[binarize])


@pytest.mark.parametrize("binarize", [None, 1, 2, 3])
def llmjudge_table5_alpha_panel_test(binarize):
    # the pairs aligned once (cached; the same align call as the folder's) and given as Paired
    res = metaeval.judge_panel(None, {j: paired(j) for j in JUDGES}, statistic="krippendorff_alpha_ordinal",
                               binarize=binarize, ci_method=None)
    _check(res, "alpha", COLUMNS[binarize])
