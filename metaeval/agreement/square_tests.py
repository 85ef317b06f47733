"""Tests on a square table of paired grades: marginal homogeneity and symmetry.

Does the judge hand out a grade more (or less) often than the human does? The Stuart–Maxwell test
compares the reference margins (row shares) with the candidate margins (column shares); Bowker's
test asks whether the table is symmetric (n_ij against n_ji for every pair of grades). Both take
the same inputs as the agreement functions: two label arrays, a :class:`metaeval.Paired`, or
``table=`` (K×K counts, rows = reference, columns = candidate; a C×K×K stack is pooled).

Both are large-sample chi-square tests of the pooled table and assume independent items: with
items clustered by topic or prompt, the p-values are too small.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..agreement.coefficients import prepare_table
from ..core.errors import UndefinedStatisticWarning

__all__ = ["SquareTestResult", "stuart_maxwell", "bowker"]


@dataclass(frozen=True)
class SquareTestResult:
    """The result of a chi-square test on a square table.

    Attributes
    ----------
    test : str
        ``"stuart_maxwell"`` or ``"bowker"``.
    statistic : float
        The chi-square statistic.
    df : float
        Degrees of freedom of the reference chi-square distribution.
    pvalue : float
    n : int
        Number of pairs in the table.
    k : int
        Number of levels.
    margins : pandas.DataFrame or None
        Stuart–Maxwell only, one row per level: ``level``, ``reference_count``, ``candidate_count``,
        ``reference_share`` (p_i+), ``candidate_share`` (p_+i), ``difference`` (candidate − reference
        share: positive when the candidate over-assigns the level) and ``z``, the level's own
        McNemar-type statistic (n_+i − n_i+)/√(n_i+ + n_+i − 2 n_ii) (unadjusted for multiplicity).
    pairs : pandas.DataFrame or None
        Bowker only, one row per pair of levels i < j: ``level_i``, ``level_j``, ``n_ij``,
        ``n_ji`` and the pair's contribution to the statistic.
    extra : dict
        Notes on the computation (e.g. how many pairs or components entered the df).
    """

    test: str
    statistic: float
    df: float
    pvalue: float
    n: int
    k: int
    margins: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    pairs: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """One tidy row: ``test``, ``statistic``, ``df``, ``pvalue``, ``n``, ``k``."""
        return pd.DataFrame([{"test": self.test, "statistic": self.statistic, "df": self.df,
                              "pvalue": self.pvalue, "n": self.n, "k": self.k}],
                            columns=["test", "statistic", "df", "pvalue", "n", "k"])

    def __str__(self) -> str:
        return (f"{self.test}: chi2 = {self.statistic:.4f}, df = {self.df:g}, p = {self.pvalue:.4g} "
                f"(n = {self.n}, K = {self.k})")


def _components(w: np.ndarray) -> int:
    """Number of connected components of the graph with edge i–j when w_ij > 0."""
    k = w.shape[0]
    seen = np.zeros(k, dtype=bool)
    n_comp = 0
    for s in range(k):
        if seen[s]:
            continue
        n_comp += 1
        stack = [s]
        seen[s] = True
        while stack:
            i = stack.pop()
            for j in np.flatnonzero(w[i] > 0):
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
    return n_comp


def stuart_maxwell(x=None, y=None, *, table=None, scale=None) -> SquareTestResult:
    """Stuart–Maxwell test of marginal homogeneity: do the judge and the human use each grade equally often?

    Parameters
    ----------
    x, y : array-like or Paired, optional
        Reference (rows) and candidate (columns) labels, or a Paired from :func:`metaeval.align`.
    table : array, optional
        K×K counts (rows: reference, columns: candidate); a C×K×K array is summed over clusters.
    scale : Scale, optional
        The levels; inferred from the labels when omitted.

    Returns
    -------
    SquareTestResult
        ``statistic``, ``df``, ``pvalue``, and ``margins``: per level the reference and candidate
        shares, their difference (candidate − reference) and a per-level z.

    Notes
    -----
    With d_i = n_i+ − n_+i for the first K − 1 levels, and the (K − 1)×(K − 1) matrix
    S_ii = n_i+ + n_+i − 2 n_ii, S_ij = −(n_ij + n_ji) (the covariance of d under H0),

        chi² = d' S⁻¹ d,  df = K − 1

    (Stuart 1955; Maxwell 1970). Which level is left out does not matter. For K = 2 this is
    McNemar's test without continuity correction.

    S is the Laplacian of the "disagreement graph" (levels i and j joined when n_ij + n_ji > 0)
    with one level removed; it is singular when that graph is disconnected, for instance when a
    level is never used, or used only when both raters agree. statsmodels then returns NaN. Here
    the statistic is d' L⁺ d with the Moore–Penrose inverse of the full K×K Laplacian L and
    df = rank(L) = K − (number of connected components), which is the usual test on the levels
    that take part in disagreements (``extra["components"]`` says how many there are). With no
    disagreement at all the statistic is 0 on 0 degrees of freedom and the p-value is NaN, with a
    warning.

    Validated against statsmodels' ``SquareTable(table, shift_zeros=False).homogeneity()``
    (``tests/test_square_tests.py``).

    References
    ----------
    Stuart, A. (1955). A test for homogeneity of the marginal distributions in a two-way
    classification. Biometrika 42, 412–416.
    Maxwell, A. E. (1970). Comparing the classification of subjects by two independent judges.
    British Journal of Psychiatry 116, 651–655.
    Agresti, A. (2013). Categorical Data Analysis, 3rd ed., §11.3.1.

    Examples
    --------
    >>> import metaeval.tests_square as sq
    >>> res = sq.stuart_maxwell(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]])
    >>> round(res.statistic, 4), res.df
    (5.3117, 2)
    >>> res.margins["difference"].round(3).tolist()
    [-0.077, 0.019, 0.058]
    """
    td = prepare_table(x, y, table=table, scale=scale)
    t = td.table.astype(float)
    k, n = td.k, td.n
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    off = t + t.T
    L = -off.copy()
    np.fill_diagonal(L, 0.0)
    np.fill_diagonal(L, -L.sum(axis=1))  # L_ii = n_i+ + n_+i − 2 n_ii
    d_full = rows - cols
    n_comp = _components(off * (1 - np.eye(k)))
    extra = {"components": n_comp}
    if n_comp == 1:
        d = d_full[:-1]
        S = L[:-1, :-1]
        stat = float(d @ np.linalg.solve(S, d))
        df = k - 1
    else:
        df = k - n_comp
        stat = float(d_full @ np.linalg.pinv(L) @ d_full) if df > 0 else 0.0
        extra["note"] = (f"the disagreement graph has {n_comp} components: df = K − {n_comp} = {df} "
                         "(Moore–Penrose inverse of the full covariance)")
        if df == 0:
            warnings.warn("stuart_maxwell is undefined: the table has no disagreements (or is empty)",
                          UndefinedStatisticWarning, stacklevel=2)
    pvalue = float(sps.chi2.sf(stat, df)) if df > 0 else float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        share_r = rows / n if n else np.full(k, np.nan)
        share_c = cols / n if n else np.full(k, np.nan)
        denom = np.sqrt(np.diag(L))
        z = np.where(denom > 0, (cols - rows) / denom, np.nan)
    margins = pd.DataFrame({"level": list(td.scale.levels), "reference_count": rows.astype(np.int64),
                            "candidate_count": cols.astype(np.int64), "reference_share": share_r,
                            "candidate_share": share_c, "difference": share_c - share_r, "z": z})
    return SquareTestResult("stuart_maxwell", stat, df, pvalue, n, k, margins=margins, extra=extra)


def bowker(x=None, y=None, *, table=None, scale=None, drop_empty_pairs: bool = False) -> SquareTestResult:
    """Bowker's test of symmetry: is n_ij as likely as n_ji for every pair of grades?

    Parameters
    ----------
    x, y : array-like or Paired, optional
        Reference (rows) and candidate (columns) labels, or a Paired from :func:`metaeval.align`.
    table : array, optional
        K×K counts (rows: reference, columns: candidate); a C×K×K array is summed over clusters.
    scale : Scale, optional
    drop_empty_pairs : bool, default False
        Whether pairs with n_ij + n_ji = 0 are left out of the degrees of freedom.

    Returns
    -------
    SquareTestResult
        ``statistic``, ``df``, ``pvalue``, and ``pairs``: per pair i < j the two counts and the
        pair's term of the statistic.

    Notes
    -----
    chi² = Σ_{i<j} (n_ij − n_ji)² / (n_ij + n_ji), summed over the pairs with a nonzero sum
    (Bowker 1948). For K = 2 it is McNemar's test without continuity correction.

    Degrees of freedom: by default K(K − 1)/2 whatever the counts, the convention of SAS
    PROC FREQ and of statsmodels' ``SquareTable.symmetry()`` (which this matches). R's
    ``mcnemar.test`` returns NaN when a pair is empty. An empty pair contributes nothing to the
    statistic, so counting it in the df makes the test conservative; ``drop_empty_pairs=True``
    counts only the pairs with n_ij + n_ji > 0 (``extra["pairs_used"]`` reports how many).

    Symmetry implies marginal homogeneity but not conversely: a judge can have the human's
    margins and still disagree asymmetrically. Use :func:`stuart_maxwell` to ask about the margins.

    Validated against statsmodels' ``SquareTable(table, shift_zeros=False).symmetry()``
    (``tests/test_square_tests.py``).

    References
    ----------
    Bowker, A. H. (1948). A test for symmetry in contingency tables. Journal of the American
    Statistical Association 43, 572–574.

    Examples
    --------
    >>> import metaeval.tests_square as sq
    >>> res = sq.bowker(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]])
    >>> round(res.statistic, 4), res.df
    (6.0256, 3)
    """
    td = prepare_table(x, y, table=table, scale=scale)
    t = td.table.astype(float)
    k = td.k
    iu, ju = np.triu_indices(k, 1)
    nij, nji = t[iu, ju], t[ju, iu]
    s = nij + nji
    used = s > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(used, (nij - nji) ** 2 / np.where(used, s, 1.0), 0.0)
    stat = float(term.sum())
    df = int(used.sum()) if drop_empty_pairs else k * (k - 1) // 2
    if df == 0:
        warnings.warn("bowker is undefined: the table has no disagreements (or is empty)",
                      UndefinedStatisticWarning, stacklevel=2)
        pvalue = float("nan")
    else:
        pvalue = float(sps.chi2.sf(stat, df))
    lv = td.scale.levels
    pairs = pd.DataFrame({"level_i": [lv[i] for i in iu], "level_j": [lv[j] for j in ju],
                          "n_ij": nij.astype(np.int64), "n_ji": nji.astype(np.int64), "term": term})
    extra = {"pairs_used": int(used.sum()), "pairs_total": int(len(s))}
    return SquareTestResult("bowker", stat, df, pvalue, td.n, k, pairs=pairs, extra=extra)
