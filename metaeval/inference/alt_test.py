"""The alternative annotator test: may the judge replace the human annotators?

Calderon, Reichart & Dror (ACL 2025) compare the judge with each human annotator j in turn, on the
items j labelled: who represents the *remaining* annotators better, the judge or j? Per item both
are scored against the remaining annotators' labels (accuracy, or −RMSE for scores; any function of
a label and the remaining labels), and W_judge = [s_judge ≥ s_j], W_j = [s_j ≥ s_judge] (ties count
for both). A one-sided t-test of mean(W_j − W_judge) < ε — ε the cost-benefit allowance of the
judge, 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers — gives one p-value per
annotator; the Benjamini–Yekutieli procedure at level q controls the false discovery rate over the
annotators. The **winning rate** ω is the share of annotators whose null hypothesis is rejected and
the judge **passes** when ω ≥ 0.5; the **advantage probability** ρ, the mean over annotators of
mean(W_judge), compares judges (higher is better).

:func:`alt_test` runs the test; :func:`alt_test_simulation` is the authors' simulation of how many
items (and annotators) the test needs for given annotator and judge reliability.

Examples
--------
>>> import numpy as np, pandas as pd
>>> import metaeval as me
>>> rng = np.random.default_rng(0)
>>> gold = rng.integers(0, 3, 100)
>>> noisy = lambda: np.where(rng.random(100) < 0.8, gold, rng.integers(0, 3, 100))
>>> humans = pd.DataFrame([(i, a, lab) for a in ("ann1", "ann2", "ann3") for i, lab in enumerate(noisy())],
...                       columns=["item_id", "annotator", "label"])
>>> res = me.alt_test(humans, pd.Series(gold))         # a judge that knows the truth
>>> res.passed, res.winning_rate
(True, 1.0)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..core.errors import InputError, MetaevalWarning, SmallSampleWarning
from ..core.resample import _user_stacklevel, make_rng
from ..core.results import _fmt, _html_table

__all__ = ["AltTestResult", "alt_test", "alt_test_simulation", "benjamini_yekutieli"]

_SCORINGS = ("accuracy", "neg_rmse")


# --------------------------------------------------------------------------------------------
# Benjamini–Yekutieli
# --------------------------------------------------------------------------------------------

def benjamini_yekutieli(pvalues, q: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini–Yekutieli step-up procedure: which hypotheses are rejected at FDR level ``q``.

    Sort the m p-values, p_(1) ≤ … ≤ p_(m); with H_m = Σ_{i ≤ m} 1/i, reject the hypotheses of the
    k smallest p-values, k the largest i with p_(i) ≤ i/m · q/H_m (none when there is no such i).
    This controls the false discovery rate under any dependence of the tests.

    Parameters
    ----------
    pvalues : array-like of float
        One p-value per hypothesis (NaN is never rejected).
    q : float
        The false discovery rate, in (0, 1).

    Returns
    -------
    rejected : numpy.ndarray of bool
        In the order of ``pvalues``.
    thresholds : numpy.ndarray of float
        The threshold i/m · q/H_m at each p-value's rank i (ties get consecutive ranks).

    References
    ----------
    Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in multiple testing
    under dependency. Annals of Statistics 29, 1165–1188. The alt-test authors' ``by_procedure``
    (nitaytech/AltTest, alt_test_example.ipynb): same rejections on every case of
    tests/reference/alttest_values.json; equal to statsmodels' ``multipletests(method="fdr_by")``
    (tests/test_alt_test.py).

    Examples
    --------
    >>> rejected, thr = benjamini_yekutieli([0.001, 0.2, 0.012], q=0.05)
    >>> rejected.tolist(), thr.round(4).tolist()
    ([True, False, True], [0.0091, 0.0273, 0.0182])
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    if not 0 < q < 1:
        raise InputError(f"q must be in (0, 1), got {q!r}")
    m = len(p)
    if m == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    order = np.argsort(p, kind="stable")
    h_m = float(np.sum(1.0 / np.arange(1, m + 1)))
    thr_sorted = np.arange(1, m + 1) / m * (q / h_m)
    ok = p[order] <= thr_sorted
    k = int(np.nonzero(ok)[0].max()) + 1 if ok.any() else 0
    rejected = np.zeros(m, dtype=bool)
    rejected[order[:k]] = True
    thresholds = np.empty(m)
    thresholds[order] = thr_sorted
    return rejected, thresholds


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------

@dataclass
class AltTestResult:
    """The alternative annotator test's verdict, with the per-annotator tests behind it.

    Attributes
    ----------
    winning_rate : float
        ω: the share of the tested annotators whose null hypothesis (the judge is worse than the
        annotator by at least ε) the Benjamini–Yekutieli procedure rejects.
    advantage_probability : float
        ρ: the mean over the tested annotators of the share of their items on which the judge
        scores at least as well as the annotator (compare judges with it: higher is better).
    passed : bool
        ω ≥ 0.5: the judge may replace the annotators.
    pvalues : pandas.DataFrame
        One row per tested annotator: ``annotator``, ``n_items``, ``judge_advantage`` (mean
        W_judge), ``annotator_advantage`` (mean W_j), ``mean_difference`` (mean(W_j − W_judge)),
        ``t``, ``df``, ``pvalue`` (one-sided t-test of mean difference < ε), ``by_threshold`` (the
        Benjamini–Yekutieli threshold at the p-value's rank) and ``rejected`` (the judge wins
        against this annotator).
    epsilon : float
        The cost-benefit allowance ε.
    q : float
        The false discovery rate of the Benjamini–Yekutieli step.
    scoring : str
        ``"accuracy"``, ``"neg_rmse"`` or the name of the scoring callable.
    n_items : int
        Items with a judge label and at least ``min_humans_per_item`` annotators (the test's items).
    n_items_dropped : int
        Items left out (fewer annotators, or no judge label).
    skipped_annotators : list
        Annotators with fewer than ``min_items_per_human`` test items (not tested).
    extra : dict
        ``min_humans_per_item``, ``min_items_per_human`` and how many items had no judge label.

    Examples
    --------
    >>> import pandas as pd
    >>> import metaeval as me
    >>> humans = pd.DataFrame({"item_id": [i for i in range(40) for _ in range(3)],
    ...                        "annotator": ["a", "b", "c"] * 40, "label": [i % 2 for i in range(40) for _ in range(3)]})
    >>> res = me.alt_test(humans, pd.Series([i % 2 for i in range(40)]))
    >>> print(res)                                         # doctest: +NORMALIZE_WHITESPACE
    alt-test: PASSED — winning rate ω = 1.0000 (3 of 3 annotators), advantage probability ρ = 1.0000
      ε = 0.2, q = 0.05 (Benjamini–Yekutieli), accuracy scoring; 40 items
      annotator  n_items  judge_advantage  mean_difference  pvalue  rejected
      a          40       1.0000           0.0000           0       True
      b          40       1.0000           0.0000           0       True
      c          40       1.0000           0.0000           0       True
    """

    winning_rate: float
    advantage_probability: float
    passed: bool
    pvalues: pd.DataFrame = field(repr=False)
    epsilon: float = 0.2
    q: float = 0.05
    scoring: str = "accuracy"
    n_items: int = 0
    n_items_dropped: int = 0
    skipped_annotators: list = field(default_factory=list)
    extra: dict = field(default_factory=dict, repr=False)

    #: The columns of :meth:`to_frame`.
    FRAME_COLUMNS = ["winning_rate", "advantage_probability", "passed", "epsilon", "q", "scoring",
                     "n_annotators", "n_rejected", "n_items", "n_items_dropped"]

    @property
    def n_annotators(self) -> int:
        """How many annotators were tested.

        Examples
        --------
        >>> import pandas as pd
        >>> import metaeval as me
        >>> h = pd.DataFrame({"item_id": list(range(30)) * 2, "annotator": ["a"] * 30 + ["b"] * 30,
        ...                   "label": [0, 1] * 30})
        >>> me.alt_test(h, pd.Series([0, 1] * 15)).n_annotators
        2
        """
        return len(self.pvalues)

    def row(self) -> dict:
        """The verdict as a dict with the keys of :attr:`FRAME_COLUMNS` (no rounding).

        Returns
        -------
        dict

        Examples
        --------
        >>> import pandas as pd
        >>> import metaeval as me
        >>> h = pd.DataFrame({"item_id": list(range(30)) * 2, "annotator": ["a"] * 30 + ["b"] * 30,
        ...                   "label": [0, 1] * 30})
        >>> me.alt_test(h, pd.Series([0, 1] * 15)).row()["passed"]
        True
        """
        return {"winning_rate": self.winning_rate, "advantage_probability": self.advantage_probability,
                "passed": self.passed, "epsilon": self.epsilon, "q": self.q, "scoring": self.scoring,
                "n_annotators": self.n_annotators, "n_rejected": int(self.pvalues["rejected"].sum()),
                "n_items": self.n_items, "n_items_dropped": self.n_items_dropped}

    def to_frame(self) -> pd.DataFrame:
        """One row: the verdict (:attr:`FRAME_COLUMNS`); the per-annotator tests are :attr:`pvalues`.

        Returns
        -------
        pandas.DataFrame
            Concatenates over judges (add a ``judge`` column) into one table.

        Examples
        --------
        >>> import pandas as pd
        >>> import metaeval as me
        >>> h = pd.DataFrame({"item_id": list(range(30)) * 2, "annotator": ["a"] * 30 + ["b"] * 30,
        ...                   "label": [0, 1] * 30})
        >>> me.alt_test(h, pd.Series([0, 1] * 15)).to_frame()[["winning_rate", "passed", "n_annotators"]]
           winning_rate  passed  n_annotators
        0           1.0    True             2
        """
        return pd.DataFrame([self.row()], columns=self.FRAME_COLUMNS)

    # rendering ---------------------------------------------------------------------------------
    _SHOWN = ["annotator", "n_items", "judge_advantage", "mean_difference", "pvalue", "rejected"]

    def _header(self) -> tuple[str, str]:
        verdict = "PASSED" if self.passed else "FAILED"
        k = int(self.pvalues["rejected"].sum())
        head = (f"alt-test: {verdict} — winning rate ω = {_fmt(self.winning_rate)} ({k} of {self.n_annotators} "
                f"annotators), advantage probability ρ = {_fmt(self.advantage_probability)}")
        sub = (f"ε = {self.epsilon:g}, q = {self.q:g} (Benjamini–Yekutieli), {self.scoring} scoring; "
               f"{self.n_items} items")
        if self.n_items_dropped:
            sub += f" ({self.n_items_dropped} dropped)"
        if self.skipped_annotators:
            sub += f"; not tested (too few items): {', '.join(map(str, self.skipped_annotators))}"
        return head, sub

    def _cells(self) -> list[list[str]]:
        rows = []
        for r in self.pvalues.itertuples(index=False):
            d = r._asdict()
            rows.append([str(d["annotator"]), str(d["n_items"]), _fmt(d["judge_advantage"]),
                         _fmt(d["mean_difference"]), f"{d['pvalue']:.4g}", str(bool(d["rejected"]))])
        return rows

    def __str__(self) -> str:
        head, sub = self._header()
        rows = [self._SHOWN] + self._cells()
        widths = [max(len(r[c]) for r in rows) for c in range(len(self._SHOWN))]
        lines = [head, "  " + sub]
        lines += ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head, sub = self._header()
        return _html_table(self._SHOWN, self._cells(), numeric=("n_items", "judge_advantage", "mean_difference",
                                                                 "pvalue"), caption=head, note=sub)


# --------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------

def _humans_frame(humans, item: str, annotator: str, label: str) -> pd.DataFrame:
    if isinstance(humans, Mapping):           # the authors' form: {annotator: {item: label}}
        rows = [(i, a, v) for a, anns in humans.items() for i, v in dict(anns).items()]
        return pd.DataFrame(rows, columns=["item", "annotator", "label"])
    if not isinstance(humans, pd.DataFrame):
        raise InputError("humans must be a long DataFrame (item, annotator, label) or a mapping "
                         "{annotator: {item: label}}", text=type(humans).__name__)
    missing = [c for c in (item, annotator, label) if c not in humans.columns]
    if missing:
        raise InputError(f"humans has no column {missing[0]!r}", source="<DataFrame>",
                         expected=f"columns {item!r}, {annotator!r}, {label!r}",
                         fix="name the columns with item=, annotator=, label=")
    return pd.DataFrame({"item": humans[item].to_numpy(), "annotator": humans[annotator].to_numpy(),
                         "label": humans[label].to_numpy()})


def _judge_series(judge) -> pd.Series:
    if isinstance(judge, pd.Series):
        return judge
    if isinstance(judge, Mapping):
        return pd.Series(judge, dtype=object)
    if isinstance(judge, pd.DataFrame) and judge.shape[1] == 1:
        return judge.iloc[:, 0]
    raise InputError("judge must be a Series indexed by item id (or a mapping item → label)",
                     text=type(judge).__name__)


def _missing(v) -> bool:
    try:
        return v is None or bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


@dataclass
class _Prepared:
    items: list
    annotators: list
    labels: np.ndarray          # (n, A) object: the labels as given (None where missing)
    mask: np.ndarray            # (n, A) bool
    judge: np.ndarray           # (n,) object
    dropped_few: int
    dropped_no_judge: int


def _prepare(humans, judge, item, annotator, label, min_humans_per_item) -> _Prepared:
    h = _humans_frame(humans, item, annotator, label)
    h = h[[not _missing(v) for v in h["label"]]]
    dup = h.duplicated(["item", "annotator"], keep=False)
    if dup.any():
        r = h[dup].iloc[0]
        raise InputError(f"{int(dup.sum())} rows repeat an (item, annotator) pair, e.g. item {r['item']!r}, "
                         f"annotator {r['annotator']!r}", fix="keep one label per annotator and item")
    j = _judge_series(judge)
    if j.index.has_duplicates:
        raise InputError(f"the judge has several labels for item {j.index[j.index.duplicated()][0]!r}",
                         fix="give one judge label per item")
    jd = {k: v for k, v in j.items() if not _missing(v)}
    counts = h.groupby("item", sort=False).size()
    if len(counts) and jd and not any(i in jd for i in counts.index):
        hi, ji = counts.index[0], next(iter(jd))
        raise InputError("no item of the judge is an item of the human labels",
                         text=f"human item {hi!r} ({type(hi).__name__}), judge item {ji!r} ({type(ji).__name__})",
                         fix="index the judge's Series by the same item ids (same type) as the humans' item column")
    enough = set(counts.index[counts >= min_humans_per_item])
    keep_items = [i for i in counts.index if i in enough and i in jd]
    dropped_few = int(len(counts) - len(enough))
    dropped_no_judge = int(sum(1 for i in counts.index if i in enough and i not in jd))
    h = h[h["item"].isin(set(keep_items))]
    annotators = list(pd.unique(_humans_frame(humans, item, annotator, label)["annotator"]))
    ii = pd.Index(keep_items)
    aa = pd.Index(annotators)
    n, A = len(ii), len(aa)
    labels = np.full((n, A), None, dtype=object)
    mask = np.zeros((n, A), dtype=bool)
    r, c = ii.get_indexer(h["item"]), aa.get_indexer(h["annotator"])
    labels[r, c] = h["label"].to_numpy()
    mask[r, c] = True
    jv = np.empty(n, dtype=object)
    jv[:] = [jd[i] for i in keep_items]
    return _Prepared(keep_items, annotators, labels, mask, jv, dropped_few, dropped_no_judge)


# --------------------------------------------------------------------------------------------
# the indicators
# --------------------------------------------------------------------------------------------

_CHUNK = 4_000_000


def _indicators_accuracy(codes: np.ndarray, mask: np.ndarray, jcode: np.ndarray, n_codes: int):
    """W_judge and W_h (n, A) from label codes: agreement counts with the remaining annotators."""
    n, A = codes.shape
    cnt = np.zeros((n, n_codes + 1), dtype=np.int64)
    rows = np.repeat(np.arange(n), A)
    np.add.at(cnt, (rows, np.where(mask, codes, n_codes).ravel()), 1)
    cnt[:, n_codes] = 0
    own = np.take_along_axis(cnt, np.where(mask, codes, n_codes), axis=1)       # count of j's own label
    agree_h = own - 1                                                               # the others with j's label
    agree_j = cnt[np.arange(n), jcode][:, None] - (codes == jcode[:, None])        # the others with the judge's
    w_judge = (agree_j >= agree_h) & mask
    w_h = (agree_h >= agree_j) & mask
    return w_judge, w_h


def _indicators_rmse(values: np.ndarray, mask: np.ndarray, jval: np.ndarray):
    """W_judge and W_h (n, A) from squared-error sums over the remaining annotators (−RMSE order)."""
    n, A = values.shape
    w_judge = np.zeros((n, A), dtype=bool)
    w_h = np.zeros((n, A), dtype=bool)
    v = np.where(mask, values, 0.0)
    off = ~np.eye(A, dtype=bool)
    step = max(1, _CHUNK // max(A * A, 1))
    for s in range(0, n, step):
        vs, ms, js = v[s:s + step], mask[s:s + step], jval[s:s + step]
        other = ms[:, None, :] & off[None, :, :]                         # (b, j, k): k ≠ j labelled the item
        sse_h = np.where(other, (vs[:, :, None] - vs[:, None, :]) ** 2, 0.0).sum(axis=2)
        sse_j = np.where(other, (js[:, None, None] - vs[:, None, :]) ** 2, 0.0).sum(axis=2)
        w_judge[s:s + step] = (sse_j <= sse_h) & ms
        w_h[s:s + step] = (sse_h <= sse_j) & ms
    return w_judge, w_h


def _indicators_callable(fn: Callable, labels, mask, judge):
    n, A = labels.shape
    w_judge = np.zeros((n, A), dtype=bool)
    w_h = np.zeros((n, A), dtype=bool)
    for i in range(n):
        who = np.nonzero(mask[i])[0]
        for j in who:
            rest = [labels[i, k] for k in who if k != j]
            s_h = fn(labels[i, j], rest)
            s_j = fn(judge[i], rest)
            w_judge[i, j] = s_j >= s_h
            w_h[i, j] = s_h >= s_j
    return w_judge, w_h


def _tests(w_judge, w_h, mask, epsilon, min_items):
    """Per annotator: n, means, t, df, one-sided p-value (t-test of mean(W_h − W_judge) < ε)."""
    n_j = mask.sum(axis=0)
    d = w_h.astype(float) - w_judge.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_d = np.where(n_j > 0, (d * mask).sum(axis=0) / np.maximum(n_j, 1), np.nan)
        ss = (np.where(mask, d - mean_d, 0.0) ** 2).sum(axis=0)
        sd = np.sqrt(ss / (n_j - 1))
        t = (mean_d - epsilon) / (sd / np.sqrt(n_j))
        p = stats.t.cdf(t, n_j - 1)
        adv = (w_judge & mask).sum(axis=0) / np.maximum(n_j, 1)
        adv_h = (w_h & mask).sum(axis=0) / np.maximum(n_j, 1)
    return n_j, adv, adv_h, mean_d, t, p, n_j >= min_items


def _verdict(n_j, adv, adv_h, mean_d, t, p, tested, q):
    idx = np.nonzero(tested)[0]
    rejected, thr = benjamini_yekutieli(p[idx], q) if len(idx) else (np.zeros(0, bool), np.zeros(0))
    wr = float(rejected.sum() / len(idx)) if len(idx) else float("nan")
    ap = float(np.mean(adv[idx])) if len(idx) else float("nan")
    return idx, rejected, thr, wr, ap


# --------------------------------------------------------------------------------------------
# public
# --------------------------------------------------------------------------------------------

def alt_test(humans, judge, *, scoring: str | Callable = "accuracy", epsilon: float = 0.2, q: float = 0.05,
             min_humans_per_item: int = 2, min_items_per_human: int = 30, item: str = "item_id",
             annotator: str = "annotator", label: str = "label") -> AltTestResult:
    """The alternative annotator test (alt-test): can the judge replace the human annotators?

    Parameters
    ----------
    humans : pandas.DataFrame or mapping
        The human labels, long: one row per (item, annotator) with columns ``item``, ``annotator``
        and ``label`` (names set by the keywords below); or the authors' form
        ``{annotator: {item: label}}``. Annotators need not label every item.
    judge : pandas.Series or mapping
        The judge's label of each item, indexed by item id. Items without a judge label are left
        out (and counted).
    scoring : {"accuracy", "neg_rmse"} or callable
        How well a label represents the remaining annotators' labels: ``"accuracy"`` (the share of
        them it equals), ``"neg_rmse"`` (−√mean squared difference, for scores), or
        ``f(label, list_of_labels) -> float`` (higher is better), as in the authors' code.
    epsilon : float
        ε, the allowance for the judge's lower cost: 0.2 for expert annotators, 0.15 for skilled
        ones, 0.1 for crowd workers (the authors' rule of thumb; smaller when the annotators agree
        less).
    q : float
        False discovery rate of the Benjamini–Yekutieli step over the annotators (default 0.05).
    min_humans_per_item : int
        Items with fewer human labels are left out (at least 2: a label is compared with the
        others').
    min_items_per_human : int
        Annotators with fewer test items are not tested (the t-test wants about 30; the authors'
        default).
    item, annotator, label : str
        Column names of ``humans``.

    Returns
    -------
    AltTestResult
        ``winning_rate``, ``advantage_probability``, ``passed``, the per-annotator ``pvalues``
        frame; prints as a table and renders in Jupyter. Warns
        (:class:`~metaeval.SmallSampleWarning`) when annotators are skipped, and
        (:class:`~metaeval.MetaevalWarning`) when items are dropped.

    Raises
    ------
    InputError
        Duplicate (item, annotator) rows, a missing column, non-numeric labels with ``neg_rmse``, or
        no annotator left to test.

    Notes
    -----
    For annotator j and item i labelled by j, with R the other annotators of i: s_j = score(label_ij,
    R's labels), s_judge = score(judge_i, R's labels); W_judge = [s_judge ≥ s_j], W_j = [s_j ≥ s_judge].
    H0: mean(W_j − W_judge) ≥ ε against H1: < ε, one-sided one-sample t-test on the items of j
    (t = (d̄ − ε)/(s_d/√n), n − 1 degrees of freedom; when every difference is equal, p = 0 if d̄ < ε and 1
    if d̄ > ε, as scipy's ``ttest_1samp``). Accuracy and −RMSE are compared through agreement counts
    and squared-error sums over R (the same order, without rounding). The winning rate is the share
    of tested annotators rejected by :func:`benjamini_yekutieli` at ``q``; the judge passes when
    ω ≥ 0.5. The advantage probability ρ = mean over tested annotators of mean(W_judge).

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for
    LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs. ACL 2025,
    16051–16081. Equal (p-values to 1e-12, winning rate and advantage probability exactly) to the
    authors' ``alt_test`` (github.com/nitaytech/AltTest @ 18428b1, alt_test_example.ipynb) on
    PandaLM's test set (GPT-3.5 and PandaLM-7B as judges) and on synthetic data with missing labels,
    scores and a custom scoring function (tests/reference/alttest_values.json).

    Examples
    --------
    Three annotators who agree 80% of the time with the truth, and a judge that copies the first of
    them: the judge represents the other two as well as the first annotator does.

    >>> import numpy as np, pandas as pd
    >>> import metaeval as me
    >>> rng = np.random.default_rng(1)
    >>> gold = rng.integers(0, 4, 120)
    >>> labels = {a: np.where(rng.random(120) < 0.8, gold, rng.integers(0, 4, 120)) for a in ("a", "b", "c")}
    >>> humans = pd.DataFrame([(i, a, v[i]) for a, v in labels.items() for i in range(120)],
    ...                       columns=["item_id", "annotator", "label"])
    >>> res = me.alt_test(humans, pd.Series(labels["a"]), epsilon=0.1)
    >>> res.passed, round(res.advantage_probability, 3)
    (True, 1.0)
    >>> res.pvalues[["annotator", "n_items", "rejected"]]
      annotator  n_items  rejected
    0         a      120      True
    1         b      120      True
    2         c      120      True

    A judge that labels at random loses to every annotator:

    >>> me.alt_test(humans, pd.Series(rng.integers(0, 4, 120))).winning_rate
    0.0
    """
    if min_humans_per_item < 2:
        raise InputError(f"min_humans_per_item must be at least 2 (a label is compared with the others'), "
                         f"got {min_humans_per_item!r}")
    if not 0 < q < 1:
        raise InputError(f"q must be in (0, 1), got {q!r}")
    if not math.isfinite(epsilon):
        raise InputError(f"epsilon must be a number, got {epsilon!r}")
    prep = _prepare(humans, judge, item, annotator, label, min_humans_per_item)
    if isinstance(scoring, str):
        if scoring not in _SCORINGS:
            raise InputError(f"scoring must be one of {_SCORINGS} or a callable, got {scoring!r}")
        name = scoring
    elif callable(scoring):
        name = getattr(scoring, "__name__", "custom")
    else:
        raise InputError(f"scoring must be one of {_SCORINGS} or a callable f(label, labels) -> float",
                         text=type(scoring).__name__)
    if scoring == "accuracy":
        allv = np.concatenate([prep.labels[prep.mask], prep.judge])
        codes_all, uniques = pd.factorize(pd.Series(allv, dtype=object), use_na_sentinel=False)
        codes = np.zeros(prep.labels.shape, dtype=np.int64)
        codes[prep.mask] = codes_all[: prep.mask.sum()]
        jcode = codes_all[prep.mask.sum():].astype(np.int64)
        w_judge, w_h = _indicators_accuracy(codes, prep.mask, jcode, len(uniques))
    elif scoring == "neg_rmse":
        try:
            vals = np.zeros(prep.labels.shape)
            vals[prep.mask] = np.asarray(prep.labels[prep.mask], dtype=float)
            jv = np.asarray(prep.judge, dtype=float)
        except (TypeError, ValueError):
            raise InputError("scoring='neg_rmse' needs numeric labels (human and judge)",
                             fix="map the labels to numbers, or use scoring='accuracy'") from None
        w_judge, w_h = _indicators_rmse(vals, prep.mask, jv)
    else:
        w_judge, w_h = _indicators_callable(scoring, prep.labels, prep.mask, prep.judge)
    n_j, adv, adv_h, mean_d, t, p, tested = _tests(w_judge, w_h, prep.mask, epsilon, min_items_per_human)
    skipped = [prep.annotators[k] for k in np.nonzero(~tested)[0]]
    idx, rejected, thr, wr, ap = _verdict(n_j, adv, adv_h, mean_d, t, p, tested, q)
    if not len(idx):
        raise InputError(f"no annotator has {min_items_per_human} or more items with a judge label and at least "
                         f"{min_humans_per_item} annotators (most: {int(n_j.max()) if len(n_j) else 0})",
                         fix="lower min_items_per_human= (the t-test wants about 30 items), or label more items")
    if skipped:
        warnings.warn(f"alt_test: {len(skipped)} annotator(s) with fewer than {min_items_per_human} items not tested: "
                      + ", ".join(f"{a!r} ({int(n_j[k])})" for a, k in zip(skipped, np.nonzero(~tested)[0])),
                      SmallSampleWarning, stacklevel=_user_stacklevel())
    dropped = prep.dropped_few + prep.dropped_no_judge
    if dropped:
        warnings.warn(f"alt_test: {dropped} item(s) left out ({prep.dropped_few} with fewer than "
                      f"{min_humans_per_item} annotators, {prep.dropped_no_judge} without a judge label)",
                      MetaevalWarning, stacklevel=_user_stacklevel())
    frame = pd.DataFrame({
        "annotator": [prep.annotators[k] for k in idx], "n_items": n_j[idx].astype(int),
        "judge_advantage": adv[idx], "annotator_advantage": adv_h[idx], "mean_difference": mean_d[idx],
        "t": t[idx], "df": (n_j[idx] - 1).astype(int), "pvalue": p[idx], "by_threshold": thr,
        "rejected": rejected})
    return AltTestResult(winning_rate=wr, advantage_probability=ap, passed=bool(wr >= 0.5), pvalues=frame,
                         epsilon=float(epsilon), q=float(q), scoring=name, n_items=len(prep.items),
                         n_items_dropped=dropped, skipped_annotators=skipped,
                         extra={"min_humans_per_item": min_humans_per_item,
                                "min_items_per_human": min_items_per_human,
                                "items_without_judge": prep.dropped_no_judge,
                                "items_with_few_annotators": prep.dropped_few})


alt_test.__test__ = False      # a public function whose name ends in _test: not a pytest test


def _alt_dense(labels: np.ndarray, judge: np.ndarray, epsilons, q: float, n_codes: int):
    """Winning rates (one per ε) and the advantage probability on a complete (n, A) label matrix."""
    mask = np.ones(labels.shape, dtype=bool)
    w_judge, w_h = _indicators_accuracy(labels, mask, judge, n_codes)
    out = []
    for eps in epsilons:
        n_j, adv, adv_h, mean_d, t, p, tested = _tests(w_judge, w_h, mask, eps, 0)
        _, rejected, _, wr, ap = _verdict(n_j, adv, adv_h, mean_d, t, p, tested, q)
        out.append(wr)
    return np.array(out), ap


def alt_test_simulation(*, sizes=tuple(range(30, 201, 10)), epsilons=(0.0, 0.05, 0.1, 0.2), n_categories: int = 4,
                        noise_annotators: float = 0.3, noise_judge: float = 0.3, n_annotators: int = 3,
                        max_annotators: int = 6, max_items: int = 500, n_datasets: int = 20, n_boots: int = 10,
                        q: float = 0.05, rng: None | int | np.random.Generator = None) -> pd.DataFrame:
    """How many items does the alt-test need? The authors' simulation of its winning rate.

    For each of ``n_datasets`` data sets: class priors ~ Dirichlet(1, …, 1) over ``n_categories``
    classes; ``max_items`` items with a gold class drawn from the priors; ``max_annotators``
    annotators and one judge, each of whose labels is the gold class with probability 1 − η and a
    draw from the priors otherwise (η = ``noise_annotators`` or ``noise_judge``). Then for every
    size n, ``n_boots`` times: draw n items and ``n_annotators`` annotators without replacement and
    run the alt-test (accuracy scoring) at every ε.

    Parameters
    ----------
    sizes : sequence of int
        Numbers of items to simulate (default 30, 40, …, 200).
    epsilons : sequence of float
        The ε values to test.
    n_categories : int
        Number of classes.
    noise_annotators, noise_judge : float
        η of the annotators and of the judge, in [0, 1] (0.1, 0.2, 0.3, 0.4 give an
        inter-annotator kappa of about 0.80, 0.63, 0.48, 0.36).
    n_annotators : int
        Annotators per test (those of your study).
    max_annotators : int
        Annotators per simulated data set (each test draws ``n_annotators`` of them).
    max_items : int
        Items per simulated data set.
    n_datasets, n_boots : int
        Data sets, and draws per data set and size.
    q : float
        False discovery rate of the Benjamini–Yekutieli step.
    rng : None, int or numpy.random.Generator
        Seed (:func:`~metaeval.core.resample.make_rng`).

    Returns
    -------
    pandas.DataFrame
        One row per (size, ε): ``size``, ``epsilon``, ``winning_rate`` (mean over the draws),
        ``winning_rate_sd``, ``pass_rate`` (the share of draws with ω ≥ 0.5: the chance the judge
        passes), ``advantage_probability`` (mean) with ``advantage_probability_05`` and ``_95``
        (5th and 95th percentiles), ``iaa`` (mean pairwise Cohen's κ of the drawn annotators),
        ``judge_kappa`` (mean κ of the judge with each annotator), ``accuracy_majority`` (the
        judge's accuracy against the annotators' majority label, ties to the smallest class, as the
        authors do) and ``n_runs``. ``attrs["seed"]`` reproduces it.

    References
    ----------
    Calderon, Reichart & Dror (2025), Appendix C, and the simulation section of the authors'
    ``alt_test_example.ipynb`` (nitaytech/AltTest @ 18428b1), whose design this follows; its mean
    winning rates, advantage probabilities, κ and majority accuracies at sizes 30, 50, 100 and 200
    for two noise settings are matched within Monte-Carlo error (tests/reference/alttest_values.json,
    tests/test_alt_test.py). Cohen's κ comes from the registry's kernel.

    Examples
    --------
    >>> import metaeval as me
    >>> sim = me.alt_test_simulation(sizes=(30, 100), epsilons=(0.2,), n_datasets=4, n_boots=5, rng=0)
    >>> sim[["size", "epsilon", "n_runs"]].values.tolist()
    [[30.0, 0.2, 20.0], [100.0, 0.2, 20.0]]
    >>> bool(sim["winning_rate"].iloc[1] >= sim["winning_rate"].iloc[0])
    True
    """
    from ..core import registry

    for name, v in (("noise_annotators", noise_annotators), ("noise_judge", noise_judge)):
        if not 0 <= v <= 1:
            raise InputError(f"{name} must be in [0, 1], got {v!r}")
    if not 2 <= n_annotators <= max_annotators:
        raise InputError(f"need 2 ≤ n_annotators ≤ max_annotators, got {n_annotators} and {max_annotators}")
    sizes = [int(s) for s in sizes]
    if any(s > max_items or s < 2 for s in sizes):
        raise InputError(f"sizes must lie in [2, max_items = {max_items}], got {sizes}")
    eps = [float(e) for e in epsilons]
    gen, seed = make_rng(rng)
    K = int(n_categories)
    kappa = registry.resolve("cohen_kappa").kernel(K)
    pairs = [(a, b) for a in range(n_annotators) for b in range(a + 1, n_annotators)]
    res = {s: {"wr": [], "ap": [], "iaa": [], "jk": [], "acc": []} for s in sizes}

    def noisy(gold, priors, eta, shape):
        keep = gen.random(shape) >= eta
        other = gen.choice(K, size=shape, p=priors)
        return np.where(keep, gold.reshape(-1, *([1] * (len(shape) - 1))), other)

    for _ in range(int(n_datasets)):
        priors = gen.dirichlet(np.ones(K))
        gold = gen.choice(K, size=max_items, p=priors)
        ann = noisy(gold, priors, noise_annotators, (max_items, max_annotators))
        llm = noisy(gold, priors, noise_judge, (max_items,))
        for s in sizes:
            for _b in range(int(n_boots)):
                it = gen.choice(max_items, size=s, replace=False)
                who = gen.choice(max_annotators, size=n_annotators, replace=False)
                L, J = ann[np.ix_(it, who)], llm[it]
                wr, ap = _alt_dense(L, J, eps, q, K)
                tabs = [np.bincount(L[:, a] * K + L[:, b], minlength=K * K) for a, b in pairs]
                jtabs = [np.bincount(L[:, a] * K + J, minlength=K * K) for a in range(n_annotators)]
                with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    iaa = float(np.mean(kappa(np.array(tabs))))          # NaN when a pair is undefined,
                    jk = float(np.mean(kappa(np.array(jtabs))))          # as the authors' np.mean
                counts = np.zeros((s, K), dtype=np.int64)
                np.add.at(counts, (np.repeat(np.arange(s), n_annotators), L.ravel()), 1)
                acc = float(np.mean(counts.argmax(axis=1) == J))
                r = res[s]
                r["wr"].append(wr)
                r["ap"].append(ap)
                r["iaa"].append(iaa)
                r["jk"].append(jk)
                r["acc"].append(acc)
    rows = []
    for s in sizes:
        r = res[s]
        wr = np.array(r["wr"])
        ap = np.array(r["ap"])
        for k, e in enumerate(eps):
            rows.append({"size": s, "epsilon": e, "winning_rate": float(wr[:, k].mean()),
                         "winning_rate_sd": float(wr[:, k].std(ddof=1)) if len(wr) > 1 else float("nan"),
                         "pass_rate": float(np.mean(wr[:, k] >= 0.5)), "advantage_probability": float(ap.mean()),
                         "advantage_probability_05": float(np.percentile(ap, 5)),
                         "advantage_probability_95": float(np.percentile(ap, 95)),
                         "iaa": float(np.nanmean(r["iaa"])), "judge_kappa": float(np.nanmean(r["jk"])),
                         "accuracy_majority": float(np.mean(r["acc"])), "n_runs": len(wr)})
    out = pd.DataFrame(rows)
    out.attrs["seed"] = seed
    return out
