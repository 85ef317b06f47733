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
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..agreement.coefficients import prepare_table
from ..core.errors import UndefinedStatisticWarning
from ..core.results import _fmt, _fmt_p, _html_table, _is_nan, _key_text

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..core.scale import Scale
    from ..data.alignment import Paired

__all__ = ["SquareTestResult", "stuart_maxwell", "bowker"]


@dataclass(frozen=True)
class SquareTestResult:
    """The result of a chi-square test on a square table (Stuart–Maxwell or Bowker).

    Named like :class:`metaeval.Estimate`: ``statistic`` is the test's name, the chi-square value is
    ``chi2``; ``pvalue`` and ``df`` are as in scipy's test results.

    Attributes
    ----------
    statistic : str
        ``"stuart_maxwell"`` or ``"bowker"``.
    chi2 : float
        The chi-square statistic.
    df : float
        Degrees of freedom of the reference chi-square distribution.
    pvalue : float
        Upper tail of the chi-square distribution at ``chi2`` (NaN on 0 degrees of freedom).
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
        ``n_ji`` and the pair's contribution to the statistic (``term``).
    extra : dict
        Notes on the computation (e.g. how many pairs or components entered the df).

    References
    ----------
    The values are checked against statsmodels' ``SquareTable(table, shift_zeros=False)``
    (``homogeneity()``, ``symmetry()``) and R's ``mcnemar.test`` (``tests/test_square_tests.py``).

    Examples
    --------
    >>> from metaeval import bowker
    >>> res = bowker(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]])
    >>> res.statistic, round(res.chi2, 4), res.df, round(res.pvalue, 4)
    ('bowker', 6.0256, 3, 0.1104)
    >>> print(res)
    bowker: chi2 = 6.0256, df = 3, p = 0.1104 (n = 104, K = 3)
    """

    statistic: str
    chi2: float
    df: float
    pvalue: float
    n: int
    k: int
    margins: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    pairs: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    #: The columns of :meth:`to_frame` (``statistic`` names the test, as in the package's estimate frames).
    FRAME_COLUMNS: ClassVar[list[str]] = ["statistic", "chi2", "df", "pvalue", "n", "k"]

    @property
    def test(self) -> str:
        """The test's name (the former spelling of :attr:`statistic`).

        Examples
        --------
        >>> from metaeval import stuart_maxwell
        >>> stuart_maxwell(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]]).test
        'stuart_maxwell'
        """
        return self.statistic

    def row(self) -> dict:
        """The result as a dict with the keys of :attr:`FRAME_COLUMNS` (no rounding).

        Returns
        -------
        dict
            ``statistic, chi2, df, pvalue, n, k``.

        Examples
        --------
        >>> from metaeval import stuart_maxwell
        >>> r = stuart_maxwell(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]]).row()
        >>> r["statistic"], round(r["chi2"], 4), r["df"]
        ('stuart_maxwell', 5.3117, 2)
        """
        return {"statistic": self.statistic, "chi2": self.chi2, "df": self.df, "pvalue": self.pvalue,
                "n": self.n, "k": self.k}

    def to_frame(self) -> pd.DataFrame:
        """One tidy row: ``statistic`` (the test's name), ``chi2``, ``df``, ``pvalue``, ``n``, ``k``.

        Returns
        -------
        pandas.DataFrame
            One row (no rounding); the frames of several tests concatenate with ``pd.concat``, and
            with estimate frames on the shared ``statistic``, ``pvalue`` and ``n`` columns.

        Examples
        --------
        >>> from metaeval import stuart_maxwell
        >>> stuart_maxwell(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]]).to_frame().round(4)
                statistic    chi2  df  pvalue    n  k
        0  stuart_maxwell  5.3117   2  0.0702  104  3
        """
        return pd.DataFrame([self.row()], columns=self.FRAME_COLUMNS)

    def __str__(self) -> str:
        p = "nan" if _is_nan(self.pvalue) else f"{self.pvalue:.4g}"
        return (f"{self.statistic}: chi2 = {_fmt(self.chi2)}, df = {self.df:g}, p = {p} "
                f"(n = {self.n}, K = {self.k})")

    def _repr_html_(self) -> str:
        cols = ["statistic", "chi2", "df", "p-value", "n", "K"]
        row = [self.statistic, _fmt(self.chi2), f"{self.df:g}", _fmt_p(self.pvalue) or "nan", str(self.n),
               str(self.k)]
        out = [_html_table(cols, [row], numeric=cols[1:])]
        detail, what = ((self.margins, "per level") if self.margins is not None
                        else (self.pairs, "per pair of levels") if self.pairs is not None else (None, ""))
        if detail is not None:
            dcols = [str(c) for c in detail.columns]
            num = [str(c) for c in detail.columns if pd.api.types.is_numeric_dtype(detail[c])
                   and not c.startswith("level")]
            rows = [[_fmt(v) if c in num else _key_text(v) for c, v in zip(dcols, r)]
                    for r in detail.itertuples(index=False)]
            out.append(_html_table(dcols, rows, numeric=num, caption=what))
        return "\n".join(out)


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


def stuart_maxwell(x: ArrayLike | Paired | None = None, y: ArrayLike | None = None, *, table: ArrayLike | None = None,
                   scale: Scale | None = None) -> SquareTestResult:
    """Stuart–Maxwell test of marginal homogeneity: do the judge and the human use each grade equally often?

    Parameters
    ----------
    x, y : array-like or Paired, optional
        Reference (rows) and candidate (columns) labels, or a Paired from :func:`metaeval.align`
        as ``x`` alone.
    table : array-like, optional
        K×K counts (rows: reference, columns: candidate); a C×K×K array is summed over clusters.
    scale : Scale, optional
        The levels; inferred from the labels when omitted.

    Returns
    -------
    SquareTestResult
        ``statistic`` (``"stuart_maxwell"``), ``chi2``, ``df``, ``pvalue``, and ``margins``: per
        level the reference and candidate shares, their difference (candidate − reference) and a
        per-level z.

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
    The 3×3 table of ``tests/test_square_tests.py`` (statsmodels 0.15,
    ``SquareTable(t, shift_zeros=False).homogeneity()``: statistic 5.3117, df 2):

    >>> from metaeval import stuart_maxwell
    >>> res = stuart_maxwell(table=[[20, 10, 2], [3, 30, 9], [1, 4, 25]])
    >>> res.statistic, round(res.chi2, 4), res.df, round(res.pvalue, 4)
    ('stuart_maxwell', 5.3117, 2, 0.0702)
    >>> print(res)
    stuart_maxwell: chi2 = 5.3117, df = 2, p = 0.07024 (n = 104, K = 3)
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


def bowker(x: ArrayLike | Paired | None = None, y: ArrayLike | None = None, *, table: ArrayLike | None = None,
           scale: Scale | None = None, drop_empty_pairs: bool = False) -> SquareTestResult:
    """Bowker's test of symmetry: is n_ij as likely as n_ji for every pair of grades?

    Parameters
    ----------
    x, y : array-like or Paired, optional
        Reference (rows) and candidate (columns) labels, or a Paired from :func:`metaeval.align`
        as ``x`` alone.
    table : array-like, optional
        K×K counts (rows: reference, columns: candidate); a C×K×K array is summed over clusters.
    scale : Scale, optional
        The levels; inferred from the labels when omitted.
    drop_empty_pairs : bool, default False
        Whether pairs with n_ij + n_ji = 0 are left out of the degrees of freedom.

    Returns
    -------
    SquareTestResult
        ``statistic`` (``"bowker"``), ``chi2``, ``df``, ``pvalue``, and ``pairs``: per pair i < j
        the two counts and the pair's term of the statistic.

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
    R 4.2.2's ``mcnemar.test`` on the 4×4 table of ``tests/test_square_tests.py`` gives
    McNemar's chi-squared = 8.0256, df = 6, p-value = 0.2362:

    >>> from metaeval import bowker
    >>> res = bowker(table=[[20, 10, 2, 1], [3, 30, 9, 2], [1, 4, 25, 6], [0, 2, 3, 15]])
    >>> res.statistic, round(res.chi2, 4), res.df, round(res.pvalue, 4)
    ('bowker', 8.0256, 6, 0.2362)
    >>> res.pairs.loc[0, ["level_i", "level_j", "n_ij", "n_ji"]].tolist()
    [0, 1, 10, 3]
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
