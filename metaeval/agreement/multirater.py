"""Agreement among many raters: percent agreement, Fleiss' and Conger's kappa, Gwet's AC1/AC2,
Brennan–Prediger and Krippendorff's alpha, with Gwet's (2014) analytic variances or a bootstrap.

Input: one orientation for every statistic
------------------------------------------
* **items × raters**: a 2-D array, list of lists or DataFrame (index: items, columns: raters), one
  rating per cell, NaN/None = not rated. This is irrCAC's orientation (``n × r``: subjects in rows,
  raters in columns) and statsmodels' (``aggregate_raters``). The ``krippendorff`` package's
  ``reliability_data`` is the transpose (raters × items): pass ``data.T`` when you have that.
* a **long frame** with one row per rating: ``item=``, ``rater=`` and ``value=`` name its columns;
* a :class:`~metaeval.Paired` from :func:`metaeval.align` (two raters: reference and candidate);
* ``value_counts=``: an items × categories array of how many raters put each item in each category
  (irrCAC's ``*.dist`` input; every statistic but Conger's kappa, which needs to know who rated what);
* ``coincidence=``: a V × V coincidence matrix (Krippendorff's alpha only, point estimate only).

:func:`prepare_ratings` turns any of these into a :class:`RaterData`, the one parser every
function here uses. Items nobody rated and raters who rated nothing are left out with a warning.

Coefficients
------------
For item i with r_i ratings, r_ik of them in category k (K categories, agreement weights w_kl with
w_kk = 1, r*_ik = Σ_l w_kl r_il), n items with at least one rating and n₂ with at least two:

    p_a = (1/n₂) Σ_{i: r_i ≥ 2} Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1)),   π_k = (1/n) Σ_i r_ik / r_i

============================ ========================================================================
coefficient                  chance agreement p_e  (κ = (p_a − p_e)/(1 − p_e))
============================ ========================================================================
percent agreement            0 (the coefficient is p_a)
Fleiss' kappa (1971)         Σ w_kl π_k π_l
Gwet's AC1 / AC2 (2008)      T_w/(K(K − 1)) Σ π_k (1 − π_k),  T_w = Σ w_kl
Brennan–Prediger (1981)      T_w / K²
Conger's kappa (1980)        Σ w_kl (p̄_k p̄_l − s²_kl / R), p_gk the share of rater g's ratings in k,
                             p̄_k their mean over the R raters, s²_kl their covariance (divisor R − 1)
Krippendorff's alpha         1 − D_o/D_e from the coincidence matrix o_kl = Σ_u (pairs k–l in u)/(m_u − 1)
============================ ========================================================================

These are irrCAC's ``*.raw`` functions (Gwet 2014, ch. 2–5 and the R package irrCAC), which handle
missing ratings; for complete data Fleiss' kappa is Fleiss (1971), Conger's kappa is Cohen's kappa
for two raters and Fleiss' kappa is Scott's pi. Krippendorff's alpha with agreement weights w is
alpha with the distance δ = 1 − w; its levels of measurement (nominal, ordinal, interval, ratio,
circular, bipolar) are those of Krippendorff (2011).

Inference
---------
``ci_method="analytic"``: the variances of Gwet (2014) as irrCAC's ``*.raw`` functions compute them
(a linearisation over items, var = (1 − f)/(n(n − 1)) Σ_i (κ*_i − κ)², f = n/N the sampling fraction
with ``population_size=N``), and the interval κ ± q·se with q from Student's t with n − 1 degrees of
freedom (``quantile="t"``, the default, as irrCAC) or the normal (``quantile="normal"``). irrCAC
caps the upper end at 1; these intervals are not capped (as the package's other analytic intervals).
A bootstrap ``ci_method`` (``"bca"``, ``"percentile"``, ``"basic"``) resamples items, or clusters
of items with ``cluster=``, through :func:`metaeval.core.resample.bootstrap`: every statistic is a
function of additive per-item sufficient statistics (:func:`sufficient_statistics`).
``ci_method=None`` gives the point estimate only.

Coverage of the analytic 95% interval (the design of ``tests/test_multirater.py::analytic_coverage_test``;
mean over 10 seeds of 200 simulated data sets per row, ``benchmarks/coverage_seeds.py --only
multirater``; Monte Carlo error, the SD across seeds / √10, at most 0.009 and mostly 0.004–0.006 per
cell; the truth is the coefficient on 400,000 simulated items; raters right with probability 0.7
(4 raters, 3 categories, prevalence 0.6/0.3/0.1, complete) or 0.6 (5 raters, 4 categories,
prevalence 0.4/0.3/0.2/0.1, 20% of ratings missing), otherwise uniform; columns: percent agreement,
AC1/AC2, Fleiss, Conger, Brennan–Prediger, Krippendorff):

=================== ==== ======================================== ========================================
design              n    t(n − 1)                                 normal
=================== ==== ======================================== ========================================
4×3, unweighted     20   .945 .949 .942 .941 .945 .945            .936 .932 .927 .927 .936 .933
4×3, unweighted     50   .956 .952 .952 .950 .956 .952            .951 .946 .944 .944 .951 .945
4×3, quadratic      20   .937 .928 .905 .905 .937 .910            .924 .913 .890 .889 .924 .895
4×3, quadratic      200  .947 .945 .948 .948 .947 .948            .944 .944 .948 .948 .944 .948
5×4 missing, unw.   20   .949 .950 .938 .939 .948 .936            .938 .939 .925 .924 .937 .919
5×4 missing, quad.  20   .938 .912 .913 .917 .930 .918            .923 .897 .897 .903 .912 .903
5×4 missing, quad.  200  .966 .947 .945 .947 .953 .944            .964 .947 .943 .945 .951 .942
=================== ==== ======================================== ========================================

The t quantile (the default, :data:`metaeval.agreement.analytic.DEFAULT_QUANTILE`, as irrCAC) is
closer to 95% for every coefficient at 20 items and for the chance-corrected ones at 50 (percent
agreement and Brennan–Prediger at 50: t 0.957, normal 0.951); from 200 items the two agree. Weighted
chance-corrected coefficients on 20 items still under-cover (0.905–0.929 with t, ± 0.003–0.005):
bootstrap them, or rate more.

Registry
--------
The six coefficients are declared in :mod:`metaeval.core.registry` as the ``"multirater"`` family:
``multirater_observed_agreement``, ``multirater_gwet_ac``, ``fleiss_kappa``, ``conger_kappa``,
``multirater_bennett_s`` and ``multirater_krippendorff_alpha`` (the prefix keeps them apart from the
two-rater statistics of the same name; the estimates carry the two-rater names, e.g. ``gwet_ac1``).
Their kernels map sums of :func:`sufficient_statistics` rows to coefficients; their ``analytic``
entry is a function ``f(data: RaterData, w) -> RaterAnalytic``.

References
----------
Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed. Advanced Analytics.
Gwet, K. L. irrCAC (R package 1.0), ``R/agree.coeff3.raw.r`` and ``R/agree.coeff3.dist.r``.
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. *Psychological Bulletin*
76(5), 378–382.
Conger, A. J. (1980). Integration and generalization of kappas for multiple raters. *Psychological
Bulletin* 88(2), 322–328.
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.

Examples
--------
>>> import numpy as np
>>> import metaeval
>>> ratings = np.array([[1, 1, np.nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3],
...                     [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
...                     [2, 2, 2, 2], [np.nan, 5, 5, 5], [np.nan, np.nan, 1, 1],
...                     [np.nan, np.nan, 3, np.nan]])      # irrCAC's cac.raw4raters
>>> rs = metaeval.rater_agreement(ratings, ci_method="analytic")
>>> print(rs.to_frame()[["statistic", "estimate", "se"]].round(5).to_string(index=False))
                 statistic  estimate      se
        observed_agreement   0.81818 0.12561
                  gwet_ac1   0.77544 0.14295
              fleiss_kappa   0.76117 0.15302
              conger_kappa   0.76282 0.14917
                 bennett_s   0.77273 0.14472
krippendorff_alpha_nominal   0.74342 0.14557
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import InputError, MetaevalWarning, UndefinedStatisticWarning
from ..core.registry import UNDEFINED_PE_TOL, Statistic, default_weights, get, register
from ..core.resample import DEFAULT_CI_METHOD, DEFAULT_N_RESAMPLES, Units, _user_stacklevel, bootstrap
from ..core.results import ConfidenceInterval, Estimate, ResultSet
from ..core.scale import Scale
from ..core.tables import as_counts
from ..core.weights import WEIGHT_SCHEMES, krippendorff_weights, weight_matrix
from .analytic import DEFAULT_QUANTILE, analytic_estimate
from .kernels import alpha_from_coincidence, chance_corrected

__all__ = ["rater_agreement", "fleiss_kappa", "conger_kappa", "krippendorff_alpha", "RaterData", "WideLabels", "wide_labels",
           "prepare_ratings", "sufficient_statistics", "MULTIRATER_STATISTICS"]

#: The statistics :func:`rater_agreement` computes, in irrCAC's order, by their registry names.
MULTIRATER_STATISTICS = ("multirater_observed_agreement", "multirater_gwet_ac", "fleiss_kappa", "conger_kappa",
                         "multirater_bennett_s", "multirater_krippendorff_alpha")

#: Krippendorff's levels of measurement (metrics) that ``krippendorff_alpha(level=)`` accepts.
LEVELS = ("nominal", "ordinal", "interval", "ratio", "circular", "bipolar")

_BOOTSTRAP_METHODS = ("bca", "percentile", "basic")


# --------------------------------------------------------------------------------------------
# input: one parser for every form
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RaterData:
    """Ratings of many raters, parsed: per-item category counts, and who rated what.

    Attributes
    ----------
    counts : numpy.ndarray
        ``(n, K)`` float: how many raters put item i in category k (items with at least one rating).
    categories : tuple
        The K category labels, in the order of the columns of ``counts``.
    values : numpy.ndarray
        ``(K,)`` float: the numeric values of the categories (their labels when numeric, else the
        positions 1 … K), used by weighted coefficients and Krippendorff's metrics.
    ratings : numpy.ndarray or None
        ``(n, R)`` int: the category index each rater gave each item (−1 = not rated); None when
        only counts were given (``value_counts=``).
    raters : tuple or None
        The R rater names.
    items : numpy.ndarray
        The n item ids.
    cluster : numpy.ndarray or None
        The cluster of each item (``cluster=``).
    n_unrated : int
        Items in the input that nobody rated (left out).

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings
    >>> d = prepare_ratings([[1, 1, 2], [2, 2, 2], [1, None, 1]])
    >>> d.counts.tolist(), d.categories, d.n_items, d.n_raters
    ([[2.0, 1.0], [0.0, 3.0], [2.0, 0.0]], (1, 2), 3, 3)
    """

    counts: np.ndarray
    categories: tuple
    values: np.ndarray
    ratings: np.ndarray | None
    raters: tuple | None
    items: np.ndarray
    cluster: np.ndarray | None = None
    n_unrated: int = 0

    @property
    def n_items(self) -> int:
        """Number of items with at least one rating."""
        return int(self.counts.shape[0])

    @property
    def n_categories(self) -> int:
        """Number of categories K."""
        return int(self.counts.shape[1])

    @property
    def n_raters(self) -> int:
        """Number of raters R (0 when only counts are known)."""
        return 0 if self.ratings is None else int(self.ratings.shape[1])

    @property
    def ratings_per_item(self) -> np.ndarray:
        """r_i, the number of ratings of each item."""
        return self.counts.sum(axis=1)


def _is_number(v) -> bool:
    return isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (bool, np.bool_))


def _category_index(labels: np.ndarray, missing: np.ndarray, levels):
    """Categories, their numeric values and the index of every present label (−1 where missing)."""
    present = labels[~missing]
    if labels.dtype.kind in "fiu":
        uniq = np.unique(present.astype(float))
        numeric = True
    else:
        uniq = pd.unique(present)
        numeric = all(_is_number(v) for v in uniq)
    if levels is not None:
        numeric = numeric and all(_is_number(v) for v in levels)
    if levels is None:
        if numeric:
            cats = sorted(set(float(v) for v in uniq))
        else:
            try:
                cats = sorted(set(uniq.tolist()))
            except TypeError:
                cats = sorted(set(uniq.tolist()), key=str)
    else:
        cats = list(levels)
        if len(set(cats)) != len(cats):
            raise InputError("levels must be distinct", text=str(list(levels)))
        if numeric:
            cats = sorted(float(v) for v in cats)
    idx = np.full(labels.shape, -1, dtype=np.int64)
    if numeric:
        key = np.asarray(cats, dtype=float)
        v = present.astype(float)
        pos = np.clip(np.searchsorted(key, v), 0, len(key) - 1)
        ok = key[pos] == v
        cats_out = tuple(int(c) if float(c).is_integer() else c for c in key.tolist())
        vals = key
    else:
        pos = pd.Categorical(present, categories=cats).codes.astype(np.int64)
        ok = pos >= 0
        cats_out = tuple(cats)
        vals = np.arange(1, len(cats) + 1, dtype=float)
    if not ok.all():
        bad = pd.unique(present[~ok]).tolist()
        raise InputError(f"values not among levels=: {sorted(bad, key=str)[:10]}",
                         fix="declare every value in levels=, or clean the data")
    idx[~missing] = pos
    return cats_out, vals, idx


def _as_labels(x) -> np.ndarray:
    """A float array when every label is a number (None/NaN = missing), else an object array."""
    arr = np.asarray(x, dtype=object) if not isinstance(x, np.ndarray) else x
    if arr.dtype.kind in "fiub":
        return arr.astype(float)
    arr = arr.astype(object)
    miss = np.asarray(pd.isna(arr), dtype=bool)
    if all(_is_number(v) for v in pd.unique(arr[~miss])):
        return np.where(miss, np.nan, arr).astype(float)
    return arr


def _cluster_of_items(cluster, n_rows, items_kept, source):
    if cluster is None:
        return None
    arr = np.asarray(cluster)
    if arr.ndim != 1 or len(arr) != n_rows:
        raise InputError(f"cluster has {arr.size} entries for {n_rows} items", source=source,
                         expected="one cluster id per item (row), or a column name")
    return arr[items_kept]


@dataclass(frozen=True)
class WideLabels:
    """Ratings of many raters as one items × raters array of labels, before they become categories.

    Attributes
    ----------
    labels : numpy.ndarray
        ``(n, R)``: float when every label is a number (NaN = not rated), else object (None = not rated).
    items : numpy.ndarray
        The n item ids (a DataFrame's index, the long frame's sorted item ids, or 0 … n − 1).
    raters : tuple
        The R rater names.
    cluster : numpy.ndarray or None
        The cluster of each row (``cluster=``), not yet checked against the number of rows.
    source : str
        How error messages name the input.
    plain_array : bool
        Whether the input was a bare array (no names), for the orientation warning.
    levels : tuple or None
        The scale's levels when the input carries them (a Paired), else None.

    Examples
    --------
    >>> from metaeval.agreement.multirater import wide_labels
    >>> w = wide_labels([[1, 2], [None, 3]])
    >>> w.labels.tolist(), w.raters
    ([[1.0, 2.0], [nan, 3.0]], (0, 1))
    """

    labels: np.ndarray
    items: np.ndarray
    raters: tuple
    cluster: object
    source: str
    plain_array: bool
    levels: tuple | None = None


def wide_labels(ratings, *, item: str | None = None, rater: str | None = None, value: str | None = None,
                cluster=None) -> WideLabels:
    """The items × raters labels of any accepted ratings form (the first half of :func:`prepare_ratings`).

    Used by :func:`prepare_ratings` and by consumers that need the raw labels rather than categories
    (the score aggregators of :func:`metaeval.jury`).

    Parameters
    ----------
    ratings : array-like, DataFrame or Paired
        As in :func:`prepare_ratings`.
    item, rater, value : str, optional
        Column names of a long DataFrame (all three together).
    cluster : array-like or str, optional
        As in :func:`prepare_ratings`.

    Returns
    -------
    WideLabels

    Raises
    ------
    InputError
        As :func:`prepare_ratings` for the same input.

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval.agreement.multirater import wide_labels
    >>> long = pd.DataFrame({"doc": [1, 1, 2], "judge": ["a", "b", "a"], "label": [0.5, 1.0, 0.0]})
    >>> w = wide_labels(long, item="doc", rater="judge", value="label")
    >>> w.items.tolist(), w.labels.tolist()
    ([1, 2], [[0.5, 1.0], [0.0, nan]])
    """
    if ratings is None:
        raise InputError("no ratings given", expected="an items × raters array, a long DataFrame with "
                         "item=, rater=, value=, a Paired, or value_counts=")
    from ..data.alignment import Paired, PairedTables

    levels = None
    named = [a is not None for a in (item, rater, value)]
    if any(named) and not all(named):
        raise InputError("a long DataFrame needs all three of item=, rater= and value=")
    source = "<ratings>"
    cl_rows = None
    item_ids = None
    rater_ids = None
    plain_array = False
    if all(named):
        if not isinstance(ratings, pd.DataFrame):
            raise InputError("item=, rater= and value= name columns of a long DataFrame",
                             text=type(ratings).__name__)
        source = "<DataFrame>"
        missing_cols = [c for c in (item, rater, value) if c not in ratings.columns]
        if isinstance(cluster, str) and cluster not in ratings.columns:
            missing_cols.append(cluster)
        if missing_cols:
            raise InputError(f"no column {missing_cols[0]!r}", source=source,
                             expected=f"one of {', '.join(map(str, ratings.columns))}")
        df = ratings[ratings[value].notna()]
        dup = df.duplicated([item, rater], keep=False)
        if dup.any():
            ex = df.loc[dup, [item, rater]].drop_duplicates().head(3).to_records(index=False).tolist()
            raise InputError(f"{int(dup.sum())} rows rate the same item twice by the same rater, e.g. "
                             f"(item, rater) = {ex}", source=source,
                             fix="keep one rating per item and rater (e.g. metaeval.align's duplicates= policy)")
        item_codes, item_ids = pd.factorize(df[item], sort=True)
        rater_codes, rater_ids = pd.factorize(df[rater], sort=True)
        wide = np.empty((len(item_ids), len(rater_ids)), dtype=object)
        wide[:] = None
        wide[item_codes, rater_codes] = df[value].to_numpy(dtype=object)
        labels = _as_labels(wide)
        if cluster is not None:
            if not isinstance(cluster, str):
                raise InputError("with a long DataFrame, cluster= must be a column name", source=source)
            per_item = df.groupby(item_codes)[cluster].nunique(dropna=False)
            if (per_item > 1).any():
                raise InputError(f"column {cluster!r} is not constant within an item", source=source,
                                 fix="clusters must group whole items")
            cl_rows = df.groupby(item_codes)[cluster].first().reindex(range(len(item_ids))).to_numpy()
    elif isinstance(ratings, PairedTables):
        raise InputError("the multi-rater coefficients resample items, so they need the pairs as rows; a "
                         "PairedTables holds only label counts per group", source="<PairedTables>",
                         fix="for two raters the table statistics work on it (metaeval.cohen_kappa, "
                             "metaeval.agreement_report, which includes Krippendorff's alpha); or "
                             "align(..., rows=True)")
    elif isinstance(ratings, Paired):
        ratings._require_pairs()
        source = "<Paired>"
        labels = _as_labels(np.column_stack([np.asarray(ratings.reference), np.asarray(ratings.candidate)]))
        rater_ids = tuple(ratings.names)
        item_ids = np.arange(len(labels))
        if levels is None:
            levels = ratings.scale.levels
        if cluster is not None:
            cl_rows = ratings._column(cluster)
    elif isinstance(ratings, pd.DataFrame):
        source = "<DataFrame>"
        df = ratings
        if isinstance(cluster, str):
            if cluster not in df.columns:
                raise InputError(f"no column {cluster!r}", source=source,
                                 expected=f"one of {', '.join(map(str, df.columns))}")
            cl_rows = df[cluster].to_numpy()
            df = df.drop(columns=[cluster])
        elif cluster is not None:
            cl_rows = cluster
        labels = _as_labels(df.to_numpy())
        item_ids = df.index.to_numpy()
        rater_ids = tuple(df.columns)
    else:
        arr = _as_labels(ratings)
        if arr.ndim != 2:
            raise InputError(f"ratings must be items × raters (2-D), got {arr.ndim}-D", source=source)
        labels = arr
        item_ids = np.arange(arr.shape[0])
        rater_ids = tuple(range(arr.shape[1]))
        cl_rows = cluster
        plain_array = True
    if labels.ndim != 2 or labels.shape[0] == 0:
        raise InputError("no items to rate", source=source)
    return WideLabels(labels=labels, items=np.asarray(item_ids), raters=tuple(rater_ids), cluster=cl_rows,
                      source=source, plain_array=plain_array, levels=levels)


def prepare_ratings(ratings=None, *, item: str | None = None, rater: str | None = None,
                    value: str | None = None, value_counts=None, levels: Sequence | None = None,
                    cluster=None) -> RaterData:
    """Parse ratings of many raters in any accepted form into a :class:`RaterData`.

    Parameters
    ----------
    ratings : array-like, DataFrame or Paired, optional
        Items × raters (NaN/None = not rated; a DataFrame's index names the items and its columns
        the raters), a long DataFrame with ``item``, ``rater`` and ``value`` columns, or a
        :class:`~metaeval.Paired` (two raters).
    item, rater, value : str, optional
        Column names of a long DataFrame (all three together).
    value_counts : array-like or DataFrame, optional
        Instead of ``ratings``: items × categories counts (a DataFrame's columns name the
        categories unless ``levels`` is given).
    levels : sequence, optional
        Every possible category (unused ones count for Gwet's AC1/AC2, Brennan–Prediger and the
        weights). Default: the categories the raters used, sorted.
    cluster : array-like or str, optional
        The cluster of each item: one id per row of an items × raters input or of
        ``value_counts``, or a column name (of the long frame, of the Paired, or of a wide
        DataFrame, which is then not a rater).

    Returns
    -------
    RaterData

    Raises
    ------
    InputError
        No data, both forms at once, a rater rating an item twice (long frame), values outside
        ``levels``, negative or fractional counts, fewer than two raters.

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval.agreement.multirater import prepare_ratings
    >>> long = pd.DataFrame({"doc": [1, 1, 2, 2, 2], "judge": ["a", "b", "a", "b", "c"],
    ...                      "label": [0, 0, 1, 0, 1]})
    >>> d = prepare_ratings(long, item="doc", rater="judge", value="label")
    >>> d.raters, d.ratings.tolist()
    (('a', 'b', 'c'), [[0, 0, -1], [1, 0, 1]])
    """
    if value_counts is not None:
        if ratings is not None or item is not None or rater is not None or value is not None:
            raise InputError("pass either ratings (items × raters, or a long frame) or value_counts=, not both")
        return _from_counts(value_counts, levels, cluster)
    w = wide_labels(ratings, item=item, rater=rater, value=value, cluster=cluster)
    labels, item_ids, rater_ids, cl_rows, source = w.labels, w.items, w.raters, w.cluster, w.source
    plain_array = w.plain_array
    if levels is None:
        levels = w.levels
    missing = np.isnan(labels) if labels.dtype.kind == "f" else np.asarray(pd.isna(labels), dtype=bool)
    if plain_array and labels.shape[1] > labels.shape[0]:
        warnings.warn(f"the ratings have more raters (columns: {labels.shape[1]}) than items (rows: "
                      f"{labels.shape[0]}); metaeval takes items × raters (the krippendorff package's "
                      "reliability_data is raters × items: pass data.T if that is what you have)",
                      MetaevalWarning, stacklevel=_user_stacklevel())
    cats, vals, idx = _category_index(labels, missing, levels)
    used_raters = (idx >= 0).any(axis=0)
    if not used_raters.all():
        gone = [rater_ids[j] for j in np.flatnonzero(~used_raters)]
        warnings.warn(f"{len(gone)} rater(s) rated no item and are left out: {gone[:5]}", MetaevalWarning,
                      stacklevel=_user_stacklevel())
        idx = idx[:, used_raters]
        rater_ids = tuple(r for r, u in zip(rater_ids, used_raters) if u)
    rated = (idx >= 0).any(axis=1)
    n_unrated = int((~rated).sum())
    if n_unrated:
        warnings.warn(f"{n_unrated} item(s) have no rating and are left out", MetaevalWarning,
                      stacklevel=_user_stacklevel())
    cl = _cluster_of_items(cl_rows, labels.shape[0], rated, source)
    idx = idx[rated]
    if idx.shape[0] == 0:
        raise InputError("no item has a rating", source=source)
    if idx.shape[1] < 2:
        raise InputError(f"agreement needs at least two raters, got {idx.shape[1]}", source=source)
    k = len(cats)
    counts = np.zeros((idx.shape[0], k))
    for g in range(idx.shape[1]):
        ok = idx[:, g] >= 0
        np.add.at(counts, (np.flatnonzero(ok), idx[ok, g]), 1.0)
    return RaterData(counts=counts, categories=cats, values=vals, ratings=idx,
                     raters=tuple(rater_ids), items=np.asarray(item_ids)[rated], cluster=cl, n_unrated=n_unrated)


def _from_counts(value_counts, levels, cluster) -> RaterData:
    source = "<value_counts>"
    if isinstance(value_counts, pd.DataFrame):
        if isinstance(cluster, str):
            if cluster not in value_counts.columns:
                raise InputError(f"no column {cluster!r}", source=source)
            col = cluster
            cluster = value_counts[col].to_numpy()
            value_counts = value_counts.drop(columns=[col])
        if levels is None:
            levels = list(value_counts.columns)
        items = value_counts.index.to_numpy()
        c = as_counts(value_counts.to_numpy(), name="value_counts").astype(float)
    else:
        c = as_counts(value_counts, name="value_counts").astype(float)
        items = np.arange(c.shape[0]) if c.ndim == 2 else None
    if c.ndim != 2 or c.shape[0] == 0 or c.shape[1] == 0:
        raise InputError(f"value_counts must be items × categories (2-D, non-empty), got shape {c.shape}",
                         source=source)
    if levels is None:
        cats = tuple(range(1, c.shape[1] + 1))
    else:
        cats = tuple(levels)
        if len(cats) != c.shape[1]:
            raise InputError(f"levels has {len(cats)} entries for {c.shape[1]} columns of counts", source=source)
        if len(set(cats)) != len(cats):
            raise InputError("levels must be distinct", text=str(list(cats)))
    numeric = all(_is_number(v) for v in cats)
    vals = np.asarray(cats, dtype=float) if numeric else np.arange(1, len(cats) + 1, dtype=float)
    rated = c.sum(axis=1) > 0
    if not rated.any():          # as for ratings with no value (prepare_ratings)
        raise InputError("no item has a rating: every row of value_counts= sums to 0", source=source,
                         fix="pass the number of raters who chose each category, per item")
    n_unrated = int((~rated).sum())
    if n_unrated:
        warnings.warn(f"{n_unrated} item(s) have no rating and are left out", MetaevalWarning,
                      stacklevel=_user_stacklevel())
    cl = _cluster_of_items(cluster, c.shape[0], rated, source)
    return RaterData(counts=c[rated], categories=cats, values=vals, ratings=None, raters=None,
                     items=np.asarray(items)[rated], cluster=cl, n_unrated=n_unrated)


# --------------------------------------------------------------------------------------------
# sufficient statistics and the vectorized kernels
# --------------------------------------------------------------------------------------------

_BLOCKS = ("O", "C", "P", "n", "n2", "G")


class _Layout:
    """Where each block of the per-item sufficient statistic sits in a row of S."""

    def __init__(self, k: int, r: int, blocks: Sequence[str] = _BLOCKS):
        sizes = {"O": k * k, "C": k * k, "P": k, "n": 1, "n2": 1, "G": r * k}
        self.k, self.r = k, r
        self.slices = {}
        off = 0
        for b in blocks:
            self.slices[b] = slice(off, off + sizes[b])
            off += sizes[b]
        self.size = off

    @classmethod
    def full(cls, k: int, d: int) -> _Layout:
        """The layout of :func:`sufficient_statistics` for K categories and D columns (R from D)."""
        base = 2 * k * k + k + 2
        r, rem = divmod(d - base, k)
        if rem or r < 0:
            raise ValueError(f"{d} columns do not make a many-rater sufficient statistic for K = {k}")
        return cls(k, r)

    def get(self, S, block):
        return S[:, self.slices[block]]


def _item_blocks(data: RaterData, blocks: Sequence[str]) -> np.ndarray:
    """The per-item rows X_i (n, D) of the requested blocks."""
    c = data.counts
    r = c.sum(axis=1)
    k = c.shape[1]
    two = r >= 2
    cols = []
    pair = c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(k)[None]
    for b in blocks:
        if b == "O":
            den = np.where(two, r * (r - 1), 1.0)
            cols.append((pair / den[:, None, None] * two[:, None, None]).reshape(len(c), -1))
        elif b == "C":
            den = np.where(two, r - 1, 1.0)
            cols.append((pair / den[:, None, None] * two[:, None, None]).reshape(len(c), -1))
        elif b == "P":
            cols.append(c / r[:, None])
        elif b == "n":
            cols.append(np.ones((len(c), 1)))
        elif b == "n2":
            cols.append(two[:, None].astype(float))
        elif b == "G":
            if data.ratings is None:
                raise InputError("Conger's kappa needs to know which rater gave which rating",
                                 fix="pass items × raters ratings (or a long frame), not value_counts=")
            g = np.zeros((len(c), data.n_raters, k))
            ii, gg = np.nonzero(data.ratings >= 0)
            g[ii, gg, data.ratings[ii, gg]] = 1.0
            cols.append(g.reshape(len(c), -1))
    return np.hstack(cols)


def _group_sums(codes: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Row sums of X per group code 0..G−1 (a sparse matrix product: O(rows))."""
    from scipy import sparse

    g = int(codes.max()) + 1
    m = sparse.csr_matrix((np.ones(len(codes)), (codes, np.arange(len(codes)))), shape=(g, len(codes)))
    return np.asarray(m @ X)


def sufficient_statistics(data: RaterData) -> np.ndarray:
    """Per-item additive sufficient statistics of every many-rater coefficient.

    Row i is the concatenation of: O_i = (r_i r_iᵀ − diag r_i)/(r_i(r_i − 1)) (K², zero unless
    r_i ≥ 2; the weighted observed agreement is Σ w ∘ ΣO_i / n₂), C_i = (r_i r_iᵀ − diag r_i)/(r_i − 1)
    (K², Krippendorff's coincidences), r_i/r_i· (K, the category shares), 1 (the item count n),
    1[r_i ≥ 2] (n₂) and the R × K indicators of which rater gave which category (Conger's kappa; absent
    for counts-only data). Sums over any multiset of items are the statistics of that sample, so the
    bootstrap draws item (or cluster) weights and multiplies: the kernels of the registry's
    ``"multirater"`` family map such sums to coefficients.

    Parameters
    ----------
    data : RaterData

    Returns
    -------
    numpy.ndarray
        ``(n, 2K² + K + 2 + R·K)``.

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, sufficient_statistics
    >>> from metaeval.core import registry
    >>> d = prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 2, None]])
    >>> S = sufficient_statistics(d).sum(axis=0, keepdims=True)
    >>> f = registry.resolve("fleiss_kappa").kernel(2)
    >>> round(float(f(S)[0]), 6)
    -0.168831
    """
    blocks = _BLOCKS if data.ratings is not None else _BLOCKS[:-1]
    return _item_blocks(data, blocks)


def _pa(L: _Layout, S, w):
    k = L.k
    O = L.get(S, "O").reshape(-1, k, k)
    n2 = L.get(S, "n2")[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("kl,bkl->b", w, O) / n2


def _shares(L: _Layout, S):
    with np.errstate(invalid="ignore", divide="ignore"):
        return L.get(S, "P") / L.get(S, "n")


def _pe(kind: str, L: _Layout, S, w):
    k = L.k
    if kind == "fleiss":
        pi = _shares(L, S)
        return np.einsum("kl,bk,bl->b", w, pi, pi)
    if kind == "gwet":
        pi = _shares(L, S)
        if k < 2:
            return np.full(len(S), np.nan)
        return w.sum() / (k * (k - 1)) * (pi * (1 - pi)).sum(axis=1)
    if kind == "bp":
        return np.full(len(S), w.sum() / k**2)
    if kind == "conger":
        G = L.get(S, "G").reshape(len(S), L.r, k)
        ng = G.sum(axis=2, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            pgk = G / ng
        r = L.r
        pbar = pgk.mean(axis=1)
        outer = pbar[:, :, None] * pbar[:, None, :]
        s2 = (np.einsum("bgk,bgl->bkl", pgk, pgk) - r * outer) / (r - 1)
        return np.einsum("kl,bkl->b", w, outer - s2 / r)
    raise ValueError(kind)  # pragma: no cover


def _alpha_weighted(C, w):
    """Krippendorff's alpha with distance 1 − w from coincidence matrices C (b, K, K)."""
    d = 1.0 - np.asarray(w, dtype=float)
    nk = C.sum(axis=2)
    n = nk.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        do = np.einsum("kl,bkl->b", d, C) / n
        de = np.einsum("kl,bk,bl->b", d, nk, nk) / (n * (n - 1))
        out = 1 - do / de
    return np.where(de > UNDEFINED_PE_TOL, out, np.nan)


def _alpha(L: _Layout, S, w, values):
    k = L.k
    C = L.get(S, "C").reshape(-1, k, k)
    if isinstance(w, str):
        if w in ("circular", "bipolar"):
            return _alpha_weighted(C, krippendorff_weights(w, k, values))
        return alpha_from_coincidence(C, values, w)
    return _alpha_weighted(C, w)


def _coefficient(name: str, L: _Layout, S, w, values):
    """The coefficient ``name`` (registry name) of b sufficient statistics S (b, D)."""
    S = np.atleast_2d(np.asarray(S, dtype=float))
    if name == "multirater_krippendorff_alpha":
        return _alpha(L, S, w, values)
    pa = _pa(L, S, w)
    if name == "multirater_observed_agreement":
        return pa
    kind = {"fleiss_kappa": "fleiss", "multirater_gwet_ac": "gwet", "multirater_bennett_s": "bp",
            "conger_kappa": "conger"}[name]
    return chance_corrected(pa, _pe(kind, L, S, w))


def _factory(name: str) -> Callable:
    """A registry kernel factory ``(k, w, levels) -> f(S)`` on the full layout."""
    def make(k, w, levels, **_):
        values = np.asarray(levels, dtype=float) if levels is not None else np.arange(k, dtype=float)

        def f(S):
            S = np.atleast_2d(np.asarray(S, dtype=float))
            return _coefficient(name, _Layout.full(k, S.shape[1]), S, w, values)
        return f
    return make


# --------------------------------------------------------------------------------------------
# analytic variances (Gwet 2014; irrCAC's *.raw functions)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RaterAnalytic:
    """A coefficient with its analytic variance (Gwet 2014), before any finite-population factor.

    Attributes
    ----------
    estimate : float
    variance : float
        (1/(n(n − 1))) Σ_i (κ*_i − κ)² over the n items of the linearisation (multiply by
        :func:`metaeval.agreement.analytic.fpc` for a finite population).
    n : int
        The items of the linearisation (Krippendorff's alpha: those with at least two ratings);
        the t quantile has n − 1 degrees of freedom.
    pa, pe : float
        Observed and chance agreement as irrCAC reports them.

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, fleiss_analytic
    >>> r = fleiss_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2]]), [[1, 0], [0, 1]])
    >>> round(r.estimate, 4), r.n
    (0.3333, 4)
    """

    estimate: float
    variance: float
    n: int
    pa: float
    pe: float


def _common(data: RaterData, w):
    c = data.counts
    r = c.sum(axis=1)
    n = len(c)
    two = r >= 2
    n2 = int(two.sum())
    sumq = (c * (c @ w.T - 1)).sum(axis=1)
    den = r * (r - 1)
    den = np.where(den == 0, -1.0, den)      # irrCAC: items with one rating contribute 0
    pa_i = sumq / den
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = pa_i[two].sum() / n2
    pi = (c / r[:, None]).mean(axis=0)
    return c, r, n, two, n2, pa_i, pa, pi


def _var(x, center, n):
    if n < 2:
        return np.nan
    return float(((x - center) ** 2).sum() / (n * (n - 1)))


def _kappa_like(data, w, pe, pe_i, name):
    """Shared linearisation of the (p_a − p_e)/(1 − p_e) coefficients (irrCAC *.raw)."""
    c, r, n, two, n2, pa_i, pa, pi = _common(data, w)
    kappa = float(chance_corrected(pa, pe))
    with np.errstate(invalid="ignore", divide="ignore"):
        k_i = (n / n2) * (pa_i - pe * two) / (1 - pe)
        x = k_i if pe_i is None else k_i - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe)
    return RaterAnalytic(kappa, _var(x, kappa, n), n, float(pa), float(pe))


def percent_agreement_analytic(data: RaterData, w) -> RaterAnalytic:
    """Weighted percent agreement of many raters and its variance (irrCAC ``pa.coeff.raw``).

    Parameters
    ----------
    data : RaterData
    w : array-like (K, K)
        Agreement weights.

    Returns
    -------
    RaterAnalytic

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, percent_agreement_analytic
    >>> r = percent_agreement_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1]]), [[1, 0], [0, 1]])
    >>> round(r.estimate, 4)
    0.7778
    """
    w = np.asarray(w, dtype=float)
    c, r, n, two, n2, pa_i, pa, pi = _common(data, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (n / n2) * pa_i
    return RaterAnalytic(float(pa), _var(x, pa, n), n, float(pa), 0.0)


def fleiss_analytic(data: RaterData, w) -> RaterAnalytic:
    """Fleiss' (generalized, weighted) kappa and its variance (irrCAC ``fleiss.kappa.raw``).

    Parameters
    ----------
    data : RaterData
    w : array-like (K, K)
        Agreement weights.

    Returns
    -------
    RaterAnalytic

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, fleiss_analytic
    >>> r = fleiss_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2]]), [[1, 0], [0, 1]])
    >>> round(r.pe, 4)
    0.5
    """
    w = np.asarray(w, dtype=float)
    c, r, n, two, n2, pa_i, pa, pi = _common(data, w)
    pe = float(pi @ w @ pi)
    pibar = (w @ pi + w.T @ pi) / 2
    return _kappa_like(data, w, pe, (c @ pibar) / r, "fleiss_kappa")


def gwet_analytic(data: RaterData, w) -> RaterAnalytic:
    """Gwet's AC1 (identity weights) or AC2 and its variance (irrCAC ``gwet.ac1.raw``).

    Parameters
    ----------
    data : RaterData
    w : array-like (K, K)
        Agreement weights.

    Returns
    -------
    RaterAnalytic

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, gwet_analytic
    >>> r = gwet_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2]]), [[1, 0], [0, 1]])
    >>> round(r.estimate, 4)
    0.3333
    """
    w = np.asarray(w, dtype=float)
    c, r, n, two, n2, pa_i, pa, pi = _common(data, w)
    k = c.shape[1]
    if k < 2:
        return RaterAnalytic(np.nan, np.nan, n, float(pa), np.nan)
    t = w.sum() / (k * (k - 1))
    pe = float(t * (pi * (1 - pi)).sum())
    return _kappa_like(data, w, pe, t * (c @ (1 - pi)) / r, "gwet_ac")


def bennett_s_analytic(data: RaterData, w) -> RaterAnalytic:
    """Brennan–Prediger's coefficient of many raters and its variance (irrCAC ``bp.coeff.raw``).

    Parameters
    ----------
    data : RaterData
    w : array-like (K, K)
        Agreement weights.

    Returns
    -------
    RaterAnalytic

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, bennett_s_analytic
    >>> r = bennett_s_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2]]), [[1, 0], [0, 1]])
    >>> round(r.estimate, 4)
    0.3333
    """
    w = np.asarray(w, dtype=float)
    k = data.counts.shape[1]
    return _kappa_like(data, w, float(w.sum() / k**2), None, "bennett_s")


def conger_analytic(data: RaterData, w) -> RaterAnalytic:
    """Conger's (generalized, weighted) kappa and its variance (irrCAC ``conger.kappa.raw``).

    Parameters
    ----------
    data : RaterData
        With rater identities (not ``value_counts=``).
    w : array-like (K, K)
        Agreement weights.

    Returns
    -------
    RaterAnalytic

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, conger_analytic
    >>> r = conger_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2]]), [[1, 0], [0, 1]])
    >>> round(r.estimate, 4)
    0.3846
    """
    if data.ratings is None:
        raise InputError("Conger's kappa needs to know which rater gave which rating",
                         fix="pass items × raters ratings (or a long frame), not value_counts=")
    w = np.asarray(w, dtype=float)
    c, r, n, two, n2, pa_i, pa, pi = _common(data, w)
    k = c.shape[1]
    R = data.n_raters
    delta = np.zeros((n, R, k))
    ii, gg = np.nonzero(data.ratings >= 0)
    delta[ii, gg, data.ratings[ii, gg]] = 1.0
    eps = (data.ratings >= 0).astype(float)
    classif = delta.sum(axis=0)                       # R × K
    ng = classif.sum(axis=1)                          # items each rater rated
    pgk = classif / ng[:, None]
    pbar = pgk.mean(axis=0)
    s2 = (pgk.T @ pgk - R * np.outer(pbar, pbar)) / (R - 1)
    pe = float((w * (np.outer(pbar, pbar) - s2 / R)).sum())
    a = R * pbar[None, :] - pgk                       # (R, K): R p̄_k − p_gk
    b = delta @ w.T - (eps - ng[None, :] / n)[:, :, None] * (pgk @ w.T)[None]   # (n, R, K)
    lam = (n / ng)[None, :] * np.einsum("gk,igk->ig", a, b)
    pe_i = lam.sum(axis=1) / (R * (R - 1))
    return _kappa_like(data, w, pe, pe_i, "conger_kappa")


def krippendorff_analytic(data: RaterData, w) -> RaterAnalytic:
    """Krippendorff's alpha with agreement weights w and Gwet's variance (irrCAC ``krippen.alpha.raw``).

    The items with at least two ratings are used; alpha = (p_a − p_e)/(1 − p_e) with
    p_a = (1 − ε) p_a′ + ε, ε = 1/Σ r_i (Gwet 2014), which is exactly 1 − D_o/D_e with the distance
    1 − w. The variance is irrCAC's (linearised around (p_a′ − p_e)/(1 − p_e)).

    Parameters
    ----------
    data : RaterData
    w : array-like (K, K)
        Agreement weights (:func:`metaeval.core.weights.krippendorff_weights` for a level).

    Returns
    -------
    RaterAnalytic

    Examples
    --------
    >>> from metaeval.agreement.multirater import prepare_ratings, krippendorff_analytic
    >>> r = krippendorff_analytic(prepare_ratings([[1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2]]),
    ...                           [[1, 0], [0, 1]])
    >>> round(r.estimate, 4)
    0.3889
    """
    w = np.asarray(w, dtype=float)
    c = data.counts
    r = c.sum(axis=1)
    keep = r >= 2
    c, r = c[keep], r[keep]
    n = len(c)
    if n == 0:
        return RaterAnalytic(np.nan, np.nan, 0, np.nan, np.nan)
    rbar = r.mean()
    eps = 1.0 / r.sum()
    sumq = (c * (c @ w.T - 1)).sum(axis=1)
    paprime = float((sumq / (rbar * (r - 1))).sum() / n)
    pa = (1 - eps) * paprime + eps
    pi = (c / rbar).mean(axis=0)
    pe = float(pi @ w @ pi)
    alpha = float(chance_corrected(pa, pe))
    alpha_p = float(chance_corrected(paprime, pe))
    pibar = (w @ pi + w.T @ pi) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        pa_i = sumq / (rbar * (r - 1)) - pa * (r - rbar) / rbar
        k_i = (pa_i - pe) / (1 - pe)
        pe_i = (c @ pibar) / rbar - pe * (r - rbar) / rbar
        x = k_i - 2 * (1 - alpha_p) * (pe_i - pe) / (1 - pe)
    return RaterAnalytic(alpha, _var(x, alpha_p, n), n, float(pa), pe)


# --------------------------------------------------------------------------------------------
# the registry: each many-rater statistic declared once
# --------------------------------------------------------------------------------------------

_MODULE = "metaeval.agreement.multirater"
_IRRCAC = "irrCAC 1.0 (R) {fn} on Gwet's data sets (tests/reference/irrcac_raw_values.json); "

register(Statistic(
    "multirater_observed_agreement", "Percent agreement", "multirater", _factory("multirater_observed_agreement"),
    weights="agreement", default_weights="identity", analytic=f"{_MODULE}:percent_agreement_analytic",
    defined="defined when at least one item has two ratings",
    reference=_IRRCAC.format(fn="pa.coeff.raw") + "irrCAC's vignettes", public="rater_agreement"))
register(Statistic(
    "multirater_gwet_ac", "Gwet's AC1/AC2", "multirater", _factory("multirater_gwet_ac"),
    weights="agreement", default_weights="identity", analytic=f"{_MODULE}:gwet_analytic",
    defined="defined whenever K ≥ 2", reference=_IRRCAC.format(fn="gwet.ac1.raw") + "irrCAC (Python) tests",
    public="rater_agreement"))
register(Statistic(
    "fleiss_kappa", "Fleiss' κ", "multirater", _factory("fleiss_kappa"),
    weights="agreement", default_weights="identity", analytic=f"{_MODULE}:fleiss_analytic",
    defined="undefined when every rating falls in one category (chance agreement 1)", warn_undefined=True,
    reference=_IRRCAC.format(fn="fleiss.kappa.raw") + "statsmodels fleiss_kappa; Fleiss (1971) 0.430",
    public="fleiss_kappa"))
register(Statistic(
    "conger_kappa", "Conger's κ", "multirater", _factory("conger_kappa"),
    weights="agreement", default_weights="identity", analytic=f"{_MODULE}:conger_analytic",
    defined="undefined when chance agreement is 1; needs rater identities", warn_undefined=True,
    reference=_IRRCAC.format(fn="conger.kappa.raw") + "Cohen's kappa for two raters", public="conger_kappa"))
register(Statistic(
    "multirater_bennett_s", "Brennan–Prediger", "multirater", _factory("multirater_bennett_s"),
    weights="agreement", default_weights="identity", analytic=f"{_MODULE}:bennett_s_analytic",
    defined="always defined (chance agreement Σ w_kl / K² < 1)",
    reference=_IRRCAC.format(fn="bp.coeff.raw") + "statsmodels fleiss_kappa(method='randolph')",
    public="rater_agreement"))
register(Statistic(
    "multirater_krippendorff_alpha", "Krippendorff's α", "multirater", _factory("multirater_krippendorff_alpha"),
    weights="level", default_weights="nominal", analytic=f"{_MODULE}:krippendorff_analytic",
    defined="defined unless every value is the same (expected disagreement 0)", warn_undefined=True,
    reference=_IRRCAC.format(fn="krippen.alpha.raw") + "the krippendorff package; Krippendorff (2011)",
    public="krippendorff_alpha"))


# --------------------------------------------------------------------------------------------
# names, weights and the estimation shared by every public function
# --------------------------------------------------------------------------------------------

_ALIASES = {
    "observed_agreement": "multirater_observed_agreement", "percent_agreement": "multirater_observed_agreement",
    "gwet_ac": "multirater_gwet_ac", "gwet_ac1": "multirater_gwet_ac", "gwet_ac2": "multirater_gwet_ac",
    "bennett_s": "multirater_bennett_s", "brennan_prediger": "multirater_bennett_s", "pabak": "multirater_bennett_s",
    "krippendorff_alpha": "multirater_krippendorff_alpha",
    **{s: s for s in MULTIRATER_STATISTICS},
}
_KRIPPENDORFF_OF_SCHEME = {"identity": "nominal", "quadratic": "interval", "ratio": "ratio",
                           "circular": "circular", "bipolar": "bipolar"}
_BLOCKS_OF = {"multirater_observed_agreement": ("O", "n2"), "multirater_gwet_ac": ("O", "n2", "P", "n"),
              "fleiss_kappa": ("O", "n2", "P", "n"), "conger_kappa": ("O", "n2", "G"),
              "multirater_bennett_s": ("O", "n2"), "multirater_krippendorff_alpha": ("C",)}


def _weights_name(weights) -> str | None:
    """'identity', a scheme name, or None for a custom matrix."""
    if weights is None:
        return "identity"
    if isinstance(weights, str):
        name = weights.lower()
        if name in ("identity", "unweighted", "none"):
            return "identity"
        if name not in WEIGHT_SCHEMES:
            raise InputError(f"unknown weights {weights!r}",
                             expected="None, one of " + ", ".join(map(repr, WEIGHT_SCHEMES)) + " or a KxK matrix")
        return name
    return None


def _display_name(registry_name: str, wname: str | None, level: str | None = None) -> str:
    """The name an Estimate carries (the two-rater names where the statistic generalizes one)."""
    if registry_name == "multirater_krippendorff_alpha":
        if level is not None:
            return f"krippendorff_alpha_{level}"
        if wname is None:
            return "krippendorff_alpha_weighted"
        if wname in _KRIPPENDORFF_OF_SCHEME:
            return f"krippendorff_alpha_{_KRIPPENDORFF_OF_SCHEME[wname]}"
        return f"krippendorff_alpha_{wname}_weights"
    if registry_name == "multirater_gwet_ac":
        if wname == "identity":
            return "gwet_ac1"
        return "gwet_ac2" if wname == "quadratic" else f"gwet_ac2_{wname or 'weighted'}"
    base = {"multirater_observed_agreement": "observed_agreement", "multirater_bennett_s": "bennett_s"}.get(
        registry_name, registry_name)
    if wname == "identity":
        return base
    return f"{base}_{wname or 'weighted'}"


@dataclass
class _Spec:
    registry: str
    name: str
    w: object                  # kernel weights: a K×K matrix, or a level name (alpha)
    w_analytic: np.ndarray | None
    label: str


def _spec(registry_name: str, data: RaterData, weights, level: str | None = None) -> _Spec:
    k = data.n_categories
    cats = list(data.categories)
    if registry_name == "multirater_krippendorff_alpha" and level is not None:
        w_an = None if level == "ordinal" else krippendorff_weights(level, k, cats)
        return _Spec(registry_name, _display_name(registry_name, None, level), level, w_an,
                     f"{level} metric")
    wname = _weights_name(weights)
    w = weight_matrix(weights if wname is None else wname, k, cats)
    kernel_w = "nominal" if (registry_name == "multirater_krippendorff_alpha" and wname == "identity") else w
    return _Spec(registry_name, _display_name(registry_name, wname), kernel_w, w, wname or "custom")


def _check_common(ci_method, confidence_level, quantile, population_size, data: RaterData | None):
    if ci_method is not None and ci_method != "analytic" and ci_method not in _BOOTSTRAP_METHODS:
        raise InputError(f"ci_method must be None, 'analytic' or one of {_BOOTSTRAP_METHODS}, got {ci_method!r}")
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    if quantile not in ("t", "normal"):
        raise InputError(f"quantile must be 't' or 'normal', got {quantile!r}")
    if population_size is not None and ci_method != "analytic":
        raise InputError("population_size= (the finite-population correction) applies to the analytic variance",
                         fix="pass ci_method='analytic', or leave population_size out")
    if ci_method == "analytic" and data is not None and data.cluster is not None:
        raise InputError("the analytic variance assumes independent items; with cluster= use a bootstrap "
                         "ci_method ('bca', 'percentile' or 'basic')")


def _why_undefined(spec: _Spec, data: RaterData) -> str:
    r = data.ratings_per_item
    if (r >= 2).sum() == 0:
        return "no item has two ratings"
    used = int((data.counts.sum(axis=0) > 0).sum())
    if spec.registry == "multirater_krippendorff_alpha":
        return f"no variation in the values (expected disagreement is 0; {used} of {data.n_categories} categories used)"
    return f"chance agreement is 1 ({used} of {data.n_categories} categories used)"


def _estimates(data: RaterData, specs: list[_Spec], *, ci_method, quantile, population_size, n_resamples,
               confidence_level, rng) -> list[Estimate]:
    """Estimates of several statistics on the same data (one bootstrap for all of them)."""
    _check_common(ci_method, confidence_level, quantile, population_size, data)
    blocks = [b for b in _BLOCKS if any(b in _BLOCKS_OF[s.registry] for s in specs)]
    alpha_only = blocks == ["C"]
    L = _Layout(data.n_categories, data.n_raters, blocks)
    X = _item_blocks(data, blocks)
    r = data.ratings_per_item
    pairable = r >= 2
    if alpha_only:                         # Krippendorff's alpha: units are the pairable items
        X = X[pairable]
    n_items = data.n_items
    n_of = {s.name: int(pairable.sum()) if s.registry == "multirater_krippendorff_alpha" else n_items
            for s in specs}
    cl = data.cluster[pairable] if (alpha_only and data.cluster is not None) else data.cluster
    if X.shape[0] == 0:
        theta = np.full(len(specs), np.nan)
    else:
        total = X.sum(axis=0, keepdims=True)
        theta = np.array([float(_coefficient(s.registry, L, total, s.w, data.values)[0]) for s in specs])
    for s, t in zip(specs, theta):
        if np.isnan(t):
            warnings.warn(f"{s.name} is undefined: {_why_undefined(s, data)}", UndefinedStatisticWarning,
                          stacklevel=_user_stacklevel())
    out = []
    if X.shape[0] == 0:                    # nothing to resample (no item with two ratings)
        return [Estimate(s.name, float(t), ConfidenceInterval(np.nan, np.nan, confidence_level, "none"),
                         n=n_of[s.name], unit="none", n_units=0, extra={"weights": s.label})
                for s, t in zip(specs, theta)]
    if ci_method == "analytic":
        for s, t in zip(specs, theta):
            if s.w_analytic is None:
                raise InputError(f"{s.name} has no analytic variance (ordinal alpha's distances depend on the "
                                 "data's marginal frequencies)", fix="use a bootstrap ci_method")
            an = get(s.registry).analytic_function()(data, s.w_analytic)
            out.append(analytic_estimate(s.name, float(t), an.variance, n=an.n, n_items=n_of[s.name],
                                         confidence_level=confidence_level, quantile=quantile,
                                         population_size=population_size, n_sampled=n_items,
                                         extra={"pa": an.pa, "pe": an.pe, "weights": s.label,
                                                "variance": "delta-method (Gwet 2014)"}))
        return out
    if cl is not None:
        _, cid = np.unique(np.asarray(cl), return_inverse=True)
        units = Units(_group_sums(cid.ravel(), X), np.ones(cid.max() + 1, dtype=np.int64), kind="clusters")
    else:
        # items with the same ratings (the same counts, or the same rater pattern for Conger's kappa)
        # have the same row: one unit type each, with its multiplicity
        key = data.ratings if "G" in blocks else data.counts
        key = key[pairable] if alpha_only else key
        grp = pd.DataFrame(key).groupby(list(range(key.shape[1])), sort=True).ngroup().to_numpy()
        _, first = np.unique(grp, return_index=True)
        units = Units(X[first], np.bincount(grp, minlength=len(first)), kind="items")

    def kern(S):
        S = np.atleast_2d(S)
        return np.column_stack([_coefficient(s.registry, L, S, s.w, data.values) for s in specs])

    res = bootstrap(kern, units, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                    rng=rng, statistic_hat=theta)
    return res.estimates([s.name for s in specs], n=[n_of[s.name] for s in specs],
                         extra=[{"weights": s.label} for s in specs])


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------

_PARAMS_DOC = """ratings : array-like, DataFrame or Paired, optional
        Items × raters (rows: items, columns: raters; NaN/None = not rated; a DataFrame's index
        names the items and its columns the raters), a long DataFrame (with ``item``, ``rater``,
        ``value``), or a :class:`~metaeval.Paired` (two raters).
    item, rater, value : str, optional
        Column names of a long DataFrame with one row per rating (all three together).
    levels : sequence, optional
        Every possible category, in order. Default: the categories the raters used (irrCAC's
        default without ``categ.labels``). Unused categories change Gwet's AC1/AC2,
        Brennan–Prediger and the weights.
    cluster : array-like or str, optional
        Cluster (e.g. topic) of each item, or a column name: the bootstrap resamples clusters.
    population_size : int, optional
        N, the number of items in the population the sample was drawn from: the analytic variance
        is multiplied by 1 − n/N (irrCAC's ``N``). Only with ``ci_method="analytic"``.
    ci_method : {"bca", "percentile", "basic", "analytic"} or None
        A bootstrap over items (or clusters), Gwet's analytic variance (irrCAC's), or None for the
        point estimate only (no resampling).
    quantile : {"t", "normal"}
        Quantile of the analytic interval: Student's t with n − 1 degrees of freedom (irrCAC; the
        default, closer to 95% coverage on few items: see the module docstring) or the normal.
    n_resamples : int
        Bootstrap resamples.
    confidence_level : float
        In (0, 1).
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap."""


def _weights_doc(default: str = "None") -> str:
    return f"""weights : None, str or array-like
        Agreement weights (default {default}: unweighted): one of irrCAC's schemes ``"linear"``,
        ``"quadratic"``, ``"ordinal"``, ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``
        computed from the category values (letters count as positions 1 … K), or a K×K matrix
        with ones on the diagonal, rows and columns in the order of the categories."""


def rater_agreement(ratings=None, *, item: str | None = None, rater: str | None = None, value: str | None = None,
                    value_counts=None, statistics: Sequence[str] | None = None, weights=None,
                    levels: Sequence | None = None, cluster=None, population_size: float | None = None,
                    ci_method: str | None = DEFAULT_CI_METHOD, quantile: str = DEFAULT_QUANTILE, n_resamples: int = DEFAULT_N_RESAMPLES,
                    confidence_level: float = 0.95, rng=None) -> ResultSet:
    """Every chance-corrected agreement coefficient of many raters, side by side (as irrCAC prints them).

    Percent agreement, Gwet's AC1 (AC2 with weights), Fleiss' kappa, Conger's kappa,
    Brennan–Prediger and Krippendorff's alpha on the same ratings, with the same weights, each with
    Gwet's (2014) analytic standard error and interval (``ci_method="analytic"``) or a bootstrap over
    items or clusters (one set of replicates for all of them).

    Parameters
    ----------
    %(params)s
    value_counts : array-like or DataFrame, optional
        Instead of ``ratings``: items × categories counts (irrCAC's ``*.dist`` input; Conger's
        kappa is then left out, it needs to know who rated what).
    statistics : sequence of str, optional
        Which coefficients (default: all six): ``"observed_agreement"`` (or ``"percent_agreement"``),
        ``"gwet_ac1"``/``"gwet_ac2"``/``"gwet_ac"``, ``"fleiss_kappa"``, ``"conger_kappa"``,
        ``"bennett_s"`` (or ``"brennan_prediger"``, ``"pabak"``), ``"krippendorff_alpha"``.
    %(weights)s
        The same weights apply to every coefficient, Krippendorff's alpha included (as irrCAC's
        ``krippen.alpha.raw``: alpha with the distance 1 − w; ``"quadratic"`` is the interval
        metric). For Krippendorff's levels of measurement, ordinal alpha included, use
        :func:`krippendorff_alpha`.

    Returns
    -------
    ResultSet
        One :class:`~metaeval.Estimate` per coefficient, named as the two-rater functions name
        them (``observed_agreement``, ``gwet_ac1``/``gwet_ac2``, ``fleiss_kappa``, ``conger_kappa``,
        ``bennett_s``, ``krippendorff_alpha_<metric>``, with the weights as a suffix when they are
        not the identity), each keyed by ``weights``. Analytic estimates keep irrCAC's ``pa`` and
        ``pe`` in ``extra``.

    Raises
    ------
    InputError
        Bad input (see :func:`prepare_ratings`), an unknown statistic or weights, ``gwet_ac1`` with
        weights or ``gwet_ac2`` without, ``cluster=`` with the analytic variance.

    See Also
    --------
    fleiss_kappa, conger_kappa, krippendorff_alpha : the same coefficients one at a time.

    Notes
    -----
    The orientation is items × raters, as irrCAC's ``*.raw`` functions and statsmodels; the
    ``krippendorff`` package's ``reliability_data`` is raters × items (pass ``data.T``).

    References
    ----------
    Gwet (2014), ch. 2–5; irrCAC (R) 1.0 ``pa.coeff.raw``, ``gwet.ac1.raw``, ``fleiss.kappa.raw``,
    ``conger.kappa.raw``, ``bp.coeff.raw``, ``krippen.alpha.raw``: coefficients, standard errors,
    intervals and p-values reproduced to 1e-9 for every weight scheme on irrCAC's data sets, and to
    the printed digits of irrCAC's vignettes and the Python port's tests (``tests/test_multirater.py``).

    Examples
    --------
    irrCAC's ``cac.raw4raters`` (12 subjects, 4 raters, categories 1–5, missing ratings):

    >>> import numpy as np
    >>> import metaeval
    >>> nan = np.nan
    >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    ...            [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1],
    ...            [nan, nan, 3, nan]]
    >>> rs = metaeval.rater_agreement(ratings, weights="quadratic", ci_method="analytic")
    >>> fk = rs.get(statistic="fleiss_kappa_quadratic")
    >>> round(fk.estimate, 5), round(fk.se, 5), round(fk.ci.low, 3)
    (0.86494, 0.14603, 0.544)
    >>> [e.statistic for e in metaeval.rater_agreement(ratings, statistics=["gwet_ac1", "pabak"],
    ...                                                ci_method=None)]
    ['gwet_ac1', 'bennett_s']
    """
    data = prepare_ratings(ratings, item=item, rater=rater, value=value, value_counts=value_counts,
                           levels=levels, cluster=cluster)
    wname = _weights_name(weights)
    if statistics is None:
        chosen = [s for s in MULTIRATER_STATISTICS if data.ratings is not None or s != "conger_kappa"]
    else:
        if isinstance(statistics, str):
            statistics = [statistics]
        chosen = []
        for name in statistics:
            reg = _ALIASES.get(name)
            if reg is None:
                raise InputError(f"unknown many-rater statistic {name!r}",
                                 expected=", ".join(sorted(k for k in _ALIASES if not k.startswith("multirater_"))))
            if name in ("gwet_ac1", "pabak") and wname != "identity":
                raise InputError(f"{name} is unweighted, but weights={weights!r}",
                                 fix="ask for 'gwet_ac2' (or 'bennett_s') with weights, or drop weights=")
            if name == "gwet_ac2" and wname == "identity":
                raise InputError("gwet_ac2 is the weighted AC: pass weights= (e.g. 'quadratic')",
                                 fix="or ask for 'gwet_ac1'")
            if reg not in chosen:
                chosen.append(reg)
    specs = [_spec(s, data, weights) for s in chosen]
    ests = _estimates(data, specs, ci_method=ci_method, quantile=quantile, population_size=population_size,
                      n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    key = wname if wname is not None else "custom"
    return ResultSet(ests, keys=[{"weights": key} for _ in ests], name="rater_agreement")


rater_agreement.__doc__ = rater_agreement.__doc__ % {"params": _PARAMS_DOC, "weights": _weights_doc()}


def fleiss_kappa(ratings=None, *, item: str | None = None, rater: str | None = None, value: str | None = None,
                 value_counts=None, weights=None, levels: Sequence | None = None, cluster=None,
                 population_size: float | None = None, ci_method: str | None = DEFAULT_CI_METHOD, quantile: str = DEFAULT_QUANTILE,
                 n_resamples: int = DEFAULT_N_RESAMPLES, confidence_level: float = 0.95, rng=None) -> Estimate:
    """Fleiss' kappa for any number of raters, missing ratings allowed (Fleiss 1971; Gwet 2014).

    κ = (p_a − p_e)/(1 − p_e) with p_a the (weighted) agreement among the pairs of ratings of an
    item, averaged over the items with at least two ratings, and p_e = Σ w_kl π_k π_l, π_k the mean
    share of category k in the items' ratings. With complete data and no weights this is Fleiss
    (1971); for two raters it is Scott's pi.

    Parameters
    ----------
    %(params)s
    value_counts : array-like or DataFrame, optional
        Instead of ``ratings``: items × categories counts (how many raters put each item in each
        category; the rows need not have equal sums).
    %(weights)s

    Returns
    -------
    Estimate
        ``fleiss_kappa`` (``fleiss_kappa_<weights>`` when weighted).

    Notes
    -----
    Items × raters, as statsmodels' ``aggregate_raters`` and irrCAC's ``fleiss.kappa.raw``. The
    analytic variance is Gwet's (irrCAC's), not Fleiss' (1971) variance under the null.

    References
    ----------
    Fleiss (1971), *Psychological Bulletin* 76(5), 378–382: the diagnoses example, κ = 0.430;
    statsmodels ``fleiss_kappa``; irrCAC (R) 1.0 ``fleiss.kappa.raw`` (coefficient, standard error,
    interval for every weight scheme, ``tests/test_multirater.py``).

    Examples
    --------
    >>> import metaeval
    >>> ratings = [[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2], [3, 3, 3], [3, 2, 3]]
    >>> round(metaeval.fleiss_kappa(ratings, ci_method=None).estimate, 4)
    0.4953
    >>> est = metaeval.fleiss_kappa(ratings, ci_method="analytic")
    >>> round(est.se, 4), est.ci.method
    (0.2312, 'analytic')
    """
    data = prepare_ratings(ratings, item=item, rater=rater, value=value, value_counts=value_counts,
                           levels=levels, cluster=cluster)
    return _estimates(data, [_spec("fleiss_kappa", data, weights)], ci_method=ci_method, quantile=quantile,
                      population_size=population_size, n_resamples=n_resamples,
                      confidence_level=confidence_level, rng=rng)[0]


fleiss_kappa.__doc__ = fleiss_kappa.__doc__ % {"params": _PARAMS_DOC, "weights": _weights_doc()}


def conger_kappa(ratings=None, *, item: str | None = None, rater: str | None = None, value: str | None = None,
                 weights=None, levels: Sequence | None = None, cluster=None, population_size: float | None = None,
                 ci_method: str | None = DEFAULT_CI_METHOD, quantile: str = DEFAULT_QUANTILE, n_resamples: int = DEFAULT_N_RESAMPLES,
                 confidence_level: float = 0.95, rng=None) -> Estimate:
    """Conger's kappa: Cohen's kappa generalized to many raters (Conger 1980; Gwet 2014).

    κ = (p_a − p_e)/(1 − p_e) with p_a as Fleiss' kappa and chance agreement from each rater's own
    marginal distribution: p_e = Σ w_kl (p̄_k p̄_l − s²_kl/R), p_gk the share of rater g's ratings in
    category k, p̄_k its mean over the R raters and s²_kl the covariance of p_gk and p_gl across raters
    (divisor R − 1). For two raters with complete data it is Cohen's kappa.

    Parameters
    ----------
    %(params)s
    %(weights)s

    Returns
    -------
    Estimate
        ``conger_kappa`` (``conger_kappa_<weights>`` when weighted).

    Notes
    -----
    Items × raters, as irrCAC's ``conger.kappa.raw``. Counts per category do not say who rated
    what, so there is no ``value_counts=`` form.

    References
    ----------
    Conger (1980), *Psychological Bulletin* 88(2), 322–328; irrCAC (R) 1.0 ``conger.kappa.raw``
    (coefficient, standard error, interval for every weight scheme), scikit-learn
    ``cohen_kappa_score`` for two raters (``tests/test_multirater.py``).

    Examples
    --------
    >>> import metaeval
    >>> ratings = [[1, 1, 1], [1, 2, 2], [2, 2, 2], [1, 1, 2], [3, 3, 3], [3, 2, 3]]
    >>> round(metaeval.conger_kappa(ratings, ci_method=None).estimate, 4)
    0.5
    """
    data = prepare_ratings(ratings, item=item, rater=rater, value=value, levels=levels, cluster=cluster)
    return _estimates(data, [_spec("conger_kappa", data, weights)], ci_method=ci_method, quantile=quantile,
                      population_size=population_size, n_resamples=n_resamples,
                      confidence_level=confidence_level, rng=rng)[0]


conger_kappa.__doc__ = conger_kappa.__doc__ % {"params": _PARAMS_DOC, "weights": _weights_doc()}


def krippendorff_alpha(ratings=None, *, level: str | None = None, weights=None, item: str | None = None,
                       rater: str | None = None, value: str | None = None, value_counts=None, coincidence=None,
                       levels: Sequence | None = None, cluster=None, population_size: float | None = None,
                       ci_method: str | None = DEFAULT_CI_METHOD, quantile: str = DEFAULT_QUANTILE, n_resamples: int = DEFAULT_N_RESAMPLES,
                       confidence_level: float = 0.95, rng=None) -> Estimate:
    """Krippendorff's alpha for any number of raters, with missing values (Krippendorff 2011).

    α = 1 − D_o/D_e from the coincidence matrix o_kl = Σ_u (pairs k–l in unit u)/(m_u − 1), with the
    distance δ² of the level of measurement: nominal, ordinal (from the marginals), interval, ratio,
    circular or bipolar. Units (items) with fewer than two values are left out. The bootstrap
    resamples units, or clusters of units.

    Parameters
    ----------
    %(params)s
    level : {"nominal", "ordinal", "interval", "ratio", "circular", "bipolar"}, optional
        Krippendorff's level of measurement (the distance metric). Default (None): the registry's
        rule, :func:`metaeval.core.registry.default_weights` — the kind of the labels' scale when
        ``ratings`` is a :class:`~metaeval.Paired` with more than two levels (ordinal for graded
        relevance, as ``agreement_report`` and ``agreement_difference`` use), nominal otherwise.
    %(weights)s
        Instead of ``level``: alpha with the distance 1 − w (irrCAC's ``krippen.alpha.raw``
        ``weights=``); ``"quadratic"`` is the interval metric, ``"ratio"`` the ratio metric.
    value_counts : array-like or DataFrame, optional
        Instead of ``ratings``: units × values counts (how many raters gave each unit each value).
    coincidence : array-like, optional
        Instead of ``ratings``: the V × V coincidence matrix (symmetric, rows and columns in the order
        of ``levels``, default values 1 … V). It carries no unit-level information, so only
        ``ci_method=None`` applies.

    Returns
    -------
    Estimate
        ``krippendorff_alpha_<level>`` (``krippendorff_alpha_<scheme>_weights`` for a scheme with no
        level of its own, ``krippendorff_alpha_weighted`` for a matrix); ``n`` is the number of
        units with at least two values.

    Raises
    ------
    InputError
        Bad input, values outside ``levels``, ``level`` together with ``weights``, the analytic
        variance of ordinal alpha (its distances depend on the data: bootstrap it).

    Notes
    -----
    The orientation is **items × raters** (one row per unit), as every many-rater statistic of
    metaeval. The ``krippendorff`` package's ``alpha(reliability_data=...)`` takes the transpose,
    raters × items: ``krippendorff_alpha(data.T)`` equals ``krippendorff.alpha(reliability_data=data)``.
    metaeval 0.1.0 took raters × items here (the package's layout); a plain array with more columns
    than rows now warns that it may be in that orientation.

    The analytic variance (``ci_method="analytic"``) is Gwet's (2014) as irrCAC's
    ``krippen.alpha.raw`` computes it, with the weights of the level (nominal → identity,
    interval → quadratic, ratio → ratio, circular, bipolar on the category values).

    References
    ----------
    Krippendorff (2011), "Computing Krippendorff's alpha-reliability": the 4 observers × 12 units
    example, α = 0.743 (nominal), 0.815 (ordinal), 0.849 (interval), 0.797 (ratio); the
    ``krippendorff`` package (every level, random data with missing values); irrCAC (R) 1.0
    ``krippen.alpha.raw`` (coefficient, standard error, interval for every weight scheme,
    ``tests/test_multirater.py``).

    Examples
    --------
    Krippendorff's (2011) example, one row per unit and one column per observer:

    >>> import numpy as np
    >>> import metaeval
    >>> nan = np.nan
    >>> units = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    ...          [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1],
    ...          [nan, nan, 3, nan]]
    >>> [round(metaeval.krippendorff_alpha(units, level=lv, ci_method=None).estimate, 3)
    ...  for lv in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    >>> est = metaeval.krippendorff_alpha(units, ci_method="analytic")
    >>> round(est.se, 5), est.n
    (0.14557, 11)

    A :class:`~metaeval.Paired` on an ordinal scale gets ordinal alpha, as in ``agreement_report``:

    >>> d = metaeval.datasets.load("trec_dl_like")
    >>> p = metaeval.align(d.qrels_human, d.qrels_judge)
    >>> metaeval.krippendorff_alpha(p, ci_method=None).statistic
    'krippendorff_alpha_ordinal'
    """
    if level is not None and level not in LEVELS:
        raise InputError(f"level must be one of {LEVELS}, got {level!r}")
    if weights is not None and level not in (None, "nominal"):
        raise InputError("pass either level= or weights=, not both")
    if level is None:
        scale = getattr(ratings, "scale", None)
        level = default_weights("krippendorff_alpha", scale if isinstance(scale, Scale) else None)
    if coincidence is not None:
        if ratings is not None or value_counts is not None:
            raise InputError("pass either ratings, value_counts= or coincidence=")
        return _alpha_from_coincidence_matrix(coincidence, level, weights, levels, ci_method, confidence_level)
    data = prepare_ratings(ratings, item=item, rater=rater, value=value, value_counts=value_counts,
                           levels=levels, cluster=cluster)
    spec = _spec("multirater_krippendorff_alpha", data, weights, None if weights is not None else level)
    return _estimates(data, [spec], ci_method=ci_method, quantile=quantile, population_size=population_size,
                      n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)[0]


krippendorff_alpha.__doc__ = krippendorff_alpha.__doc__ % {"params": _PARAMS_DOC, "weights": _weights_doc()}


def _alpha_from_coincidence_matrix(coincidence, level, weights, levels, ci_method, confidence_level) -> Estimate:
    if ci_method is not None:
        raise InputError("a coincidence matrix carries no unit-level information, so it has no interval",
                         fix="pass ci_method=None, or the ratings themselves")
    # coincidences are pair counts divided by (m_u − 1): fractions are allowed
    o = as_counts(coincidence, name="coincidence", integer=False)
    if o.ndim != 2 or o.shape[0] != o.shape[1] or o.shape[0] == 0:
        raise InputError(f"coincidence must be a square V×V matrix, got shape {o.shape}")
    if not np.allclose(o, o.T):
        raise InputError("coincidence must be symmetric with non-negative finite entries")
    v = o.shape[0]
    cats = list(levels) if levels is not None else list(range(1, v + 1))
    if len(cats) != v:
        raise InputError(f"levels has {len(cats)} entries for a {v}×{v} coincidence matrix")
    values = (np.asarray(cats, dtype=float) if all(_is_number(c) for c in cats)
              else np.arange(1, v + 1, dtype=float))
    if weights is not None:
        wname = _weights_name(weights)
        w = weight_matrix(weights if wname is None else wname, v, cats)
        kernel_w = "nominal" if wname == "identity" else w
        name = _display_name("multirater_krippendorff_alpha", wname)
    else:
        kernel_w, name = level, f"krippendorff_alpha_{level}"
    L = _Layout(v, 0, ("C",))
    a = float(_alpha(L, o.reshape(1, -1), kernel_w, values)[0])
    if np.isnan(a):
        warnings.warn(f"{name} is undefined: no variation in the values (expected disagreement is 0)",
                      UndefinedStatisticWarning, stacklevel=_user_stacklevel())
    n = int(round(o.sum()))
    return Estimate(name, a, ConfidenceInterval(np.nan, np.nan, confidence_level, "none"), n=n, unit="none",
                    n_units=0, extra={"pairable_values": n})
