"""Tests of metaeval.agreement.square_tests: Stuart–Maxwell (marginal homogeneity) and Bowker (symmetry).

Expected numbers come from statsmodels 0.15 (``SquareTable(table, shift_zeros=False)``'s
``homogeneity()`` and ``symmetry()``), R 4.2.2 ``mcnemar.test`` (the R call is shown next to the
value), McNemar's closed form for 2×2 tables, and properties of the tests.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import SquareTable, mcnemar

from metaeval import InputError, UndefinedStatisticWarning
from metaeval.agreement.square_tests import bowker, stuart_maxwell

TABLES = {
    "3x3": [[20, 10, 2], [3, 30, 9], [1, 4, 25]],
    "4x4": [[20, 10, 2, 1], [3, 30, 9, 2], [1, 4, 25, 6], [0, 2, 3, 15]],
    # judge over-assigns the top grades
    "5x5": [[12, 6, 3, 1, 0], [2, 25, 11, 4, 1], [1, 3, 40, 17, 5], [0, 1, 4, 38, 14], [0, 0, 1, 3, 20]],
    # one empty cell pair (0, 3)–(3, 0): statsmodels still counts it in Bowker's df
    "4x4 empty pair": [[15, 4, 2, 0], [6, 22, 5, 1], [1, 8, 30, 7], [0, 2, 3, 11]],
    "2x2": [[25, 6], [4, 30]],
    "5x5 sparse": [[3, 1, 0, 0, 0], [2, 6, 2, 1, 0], [0, 1, 9, 3, 1], [1, 0, 2, 7, 2], [0, 0, 1, 1, 4]],
}


@pytest.mark.parametrize("name", list(TABLES))
def stuart_maxwell_matches_statsmodels_test(name):
    t = np.array(TABLES[name])
    ref = SquareTable(t, shift_zeros=False).homogeneity()
    res = stuart_maxwell(table=t)
    assert abs(res.chi2 - ref.statistic) < 1e-9
    assert abs(res.pvalue - ref.pvalue) < 1e-9
    assert res.df == ref.df == t.shape[0] - 1
    assert res.n == t.sum() and res.k == t.shape[0]


@pytest.mark.parametrize("name", list(TABLES))
def bowker_matches_statsmodels_test(name):
    t = np.array(TABLES[name])
    ref = SquareTable(t, shift_zeros=False).symmetry()
    res = bowker(table=t)
    assert abs(res.chi2 - ref.statistic) < 1e-9
    assert abs(res.pvalue - ref.pvalue) < 1e-9
    # statsmodels (and SAS) use df = K(K − 1)/2 even when a pair is empty
    assert res.df == ref.df == t.shape[0] * (t.shape[0] - 1) / 2


def bowker_matches_r_mcnemar_test():
    # R 4.2.2: t <- matrix(c(20,10,2,1, 3,30,9,2, 1,4,25,6, 0,2,3,15), 4, byrow=TRUE); mcnemar.test(t)
    #   McNemar's chi-squared = 8.02564102564103, df = 6, p-value = 0.236230792954996
    res = bowker(table=TABLES["4x4"])
    assert abs(res.chi2 - 8.02564102564103) < 1e-12
    assert res.df == 6 and abs(res.pvalue - 0.236230792954996) < 1e-12


def two_by_two_is_mcnemar_test():
    # For K = 2 both tests are McNemar's (b − c)²/(b + c) without continuity correction;
    # R: mcnemar.test(matrix(c(25,6,4,30), 2, byrow=TRUE), correct=FALSE) -> 0.4, p = 0.527089256865538
    t = np.array(TABLES["2x2"])
    ref = mcnemar(t, exact=False, correction=False)
    for res in (stuart_maxwell(table=t), bowker(table=t)):
        assert abs(res.chi2 - 0.4) < 1e-12 and abs(res.chi2 - ref.statistic) < 1e-12
        assert abs(res.pvalue - 0.527089256865538) < 1e-12
    # the per-level z of Stuart–Maxwell is ±sqrt(McNemar) (column minus row count)
    z = stuart_maxwell(table=t).margins["z"].to_numpy()
    np.testing.assert_allclose(z, [-np.sqrt(0.4), np.sqrt(0.4)], rtol=0, atol=1e-12)


def bowker_drop_empty_pairs_test():
    t = np.array(TABLES["4x4 empty pair"])
    res = bowker(table=t, drop_empty_pairs=True)
    assert res.df == 5 and res.extra["pairs_used"] == 5 and res.extra["pairs_total"] == 6
    assert res.chi2 == bowker(table=t).chi2
    from scipy.stats import chi2
    assert abs(res.pvalue - chi2.sf(res.chi2, 5)) < 1e-15
    pairs = res.pairs
    assert len(pairs) == 6 and abs(pairs["term"].sum() - res.chi2) < 1e-12


def stuart_maxwell_margins_test():
    t = np.array(TABLES["5x5"])
    m = stuart_maxwell(table=t).margins
    np.testing.assert_allclose(m["reference_share"], t.sum(axis=1) / t.sum())
    np.testing.assert_allclose(m["candidate_share"], t.sum(axis=0) / t.sum())
    np.testing.assert_allclose(m["difference"], (t.sum(axis=0) - t.sum(axis=1)) / t.sum())
    assert abs(m["difference"].sum()) < 1e-15
    # the judge (columns) over-assigns grades 3 and 4 in this table
    assert list(m["difference"] > 0) == [False, False, False, True, True]
    assert list(m.columns) == ["level", "reference_count", "candidate_count", "reference_share",
                               "candidate_share", "difference", "z"]


def stuart_maxwell_disconnected_levels_test():
    # Level 0 is used only when both raters agree: statsmodels' reduced covariance is singular
    # (it warns and returns NaN). Ours uses the pseudo-inverse with df = K − components, which is
    # the test on the levels that take part in disagreements (property: equals the 2×2 sub-table).
    t = np.array([[5, 0, 0], [0, 3, 2], [0, 1, 4]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = SquareTable(t, shift_zeros=False).homogeneity()
    assert np.isnan(ref.statistic)
    res = stuart_maxwell(table=t)
    sub = stuart_maxwell(table=t[1:, 1:])
    assert res.df == 1 and res.extra["components"] == 2
    assert abs(res.chi2 - sub.chi2) < 1e-12 and abs(res.pvalue - sub.pvalue) < 1e-12
    # an unused level in a 4-level scale: same as the 3×3 table without it
    t4 = np.zeros((4, 4), dtype=int)
    t4[:3, :3] = TABLES["3x3"]
    r4 = stuart_maxwell(table=t4)
    r3 = stuart_maxwell(table=TABLES["3x3"])
    assert r4.df == 2 and abs(r4.chi2 - r3.chi2) < 1e-9


def no_disagreement_warns_test():
    t = np.diag([4, 5, 6])
    with pytest.warns(UndefinedStatisticWarning, match="no disagreements"):
        res = stuart_maxwell(table=t)
    assert res.chi2 == 0 and res.df == 0 and np.isnan(res.pvalue)
    with pytest.warns(UndefinedStatisticWarning, match="no disagreements"):
        res = bowker(table=t, drop_empty_pairs=True)
    assert np.isnan(res.pvalue)


def input_forms_agree_test():
    t = np.array(TABLES["4x4"])
    ref_labels, cand_labels = [], []
    for i in range(4):
        for j in range(4):
            ref_labels += [i] * t[i, j]
            cand_labels += [j] * t[i, j]
    rng = np.random.default_rng(0)
    order = rng.permutation(len(ref_labels))
    x, y = np.array(ref_labels)[order], np.array(cand_labels)[order]
    for f in (stuart_maxwell, bowker):
        a, b = f(x, y), f(table=t)
        assert a.chi2 == pytest.approx(b.chi2, abs=1e-12) and a.df == b.df
        # per-cluster tables (C × K × K) are pooled
        c = f(table=np.stack([t // 2, t - t // 2]))
        assert c.chi2 == pytest.approx(b.chi2, abs=1e-12)


def names_like_estimate_test():
    # issue 10: .statistic is the test's name (as Estimate.statistic is), the number is .chi2;
    # scipy-like .pvalue and .df stay; .test is kept as an alias of the name
    t = TABLES["3x3"]
    sm, bw = stuart_maxwell(table=t), bowker(table=t)
    assert (sm.statistic, bw.statistic) == ("stuart_maxwell", "bowker")
    assert (sm.test, bw.test) == ("stuart_maxwell", "bowker")
    ref = SquareTable(np.array(t), shift_zeros=False)
    assert abs(sm.chi2 - ref.homogeneity().statistic) < 1e-9 and abs(bw.chi2 - ref.symmetry().statistic) < 1e-9
    assert isinstance(sm.chi2, float) and isinstance(sm.pvalue, float)


def to_frame_test():
    res = stuart_maxwell(table=TABLES["3x3"])
    f = res.to_frame()
    assert list(f.columns) == ["statistic", "chi2", "df", "pvalue", "n", "k"]
    assert f.loc[0, "statistic"] == "stuart_maxwell" and f.loc[0, "chi2"] == res.chi2
    assert f.loc[0, "pvalue"] == res.pvalue and f.loc[0, "n"] == 104 and f.loc[0, "k"] == 3
    both = pd.concat([res.to_frame(), bowker(table=TABLES["3x3"]).to_frame()], ignore_index=True)
    assert both["statistic"].tolist() == ["stuart_maxwell", "bowker"] and both["df"].tolist() == [2, 3]
    # shares the statistic/pvalue/n columns with the estimate frames of the rest of the package
    from metaeval import cohen_kappa
    mixed = pd.concat([both, cohen_kappa(table=TABLES["3x3"], n_resamples=50, rng=0).to_frame()], ignore_index=True)
    assert mixed["statistic"].tolist() == ["stuart_maxwell", "bowker", "cohen_kappa"]
    assert mixed["pvalue"].notna().sum() >= 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.chi2 = 0.0  # frozen


def str_and_html_test():
    # the numbers are statsmodels 0.15's (SquareTable(t, shift_zeros=False)): 5.31174089 on 2 df,
    # p = 0.0702377; 6.02564103 on 3 df, p = 0.1103694
    from html.parser import HTMLParser

    sm, bw = stuart_maxwell(table=TABLES["3x3"]), bowker(table=TABLES["3x3"])
    assert str(sm) == "stuart_maxwell: chi2 = 5.3117, df = 2, p = 0.07024 (n = 104, K = 3)"
    assert str(bw) == "bowker: chi2 = 6.0256, df = 3, p = 0.1104 (n = 104, K = 3)"

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.cells, self.tables, self._in = [], 0, False

        def handle_starttag(self, tag, attrs):
            self.tables += tag == "table"
            self._in = tag in ("td", "th")

        def handle_endtag(self, tag):
            self._in = False

        def handle_data(self, data):
            if self._in:
                self.cells.append(data)

    for res, chi2, p, detail in ((sm, "5.3117", "0.07024", "difference"), (bw, "6.0256", "0.1104", "n_ij")):
        h = res._repr_html_()
        assert h == res._repr_html_()  # deterministic
        parser = Cells()
        parser.feed(h)
        parser.close()
        assert parser.tables == 2  # the test, then its per-level (or per-pair) table
        assert [res.statistic, chi2, p] == [c for c in parser.cells if c in (res.statistic, chi2, p)][:3]
        assert detail in parser.cells


def bad_input_test():
    with pytest.raises(InputError, match="different lengths"):
        stuart_maxwell([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="numeric"):
        bowker(["a", "b", "c"], ["a", "c", "b"])
    with pytest.raises(InputError, match="non-negative"):
        bowker(table=[[1, -2], [3, 4]])
    with pytest.raises(InputError, match="K×K"):
        stuart_maxwell(table=[[1, 2, 3], [4, 5, 6]])


def paired_input_test():
    # rubric_like, human vs judge sample 1, through metaeval.align: the same as table= with the
    # Paired's own contingency table; the judge over-assigns grade 5 (data README: planted
    # self-preference and length preference push judge scores up)
    import metaeval

    s = metaeval.datasets.load("rubric_like").scores
    human = s[s["rater"] == "human"]
    judge1 = s[(s["rater"] == "judge") & (s["sample"] == 1)]
    paired = metaeval.align(human, judge1, on="item_id", label="score")
    res = stuart_maxwell(paired)
    ref = SquareTable(paired.table(), shift_zeros=False).homogeneity()
    assert abs(res.chi2 - ref.statistic) < 1e-9 and res.n == 900
    m = res.margins.set_index("level")
    assert m["difference"].idxmax() == 5 and m.loc[5, "z"] > 3
    assert abs(bowker(paired).chi2 - SquareTable(paired.table(), shift_zeros=False).symmetry().statistic) < 1e-9
