"""Agreement between a reference rater (usually human) and a candidate (usually the judge).

Every statistic here is a function of the K×K contingency table (rows: reference, columns:
candidate) and is declared once in the registry (:mod:`metaeval.core.registry`; kernels in
:mod:`metaeval.agreement.kernels`). The public functions below, :func:`agreement_report`,
:func:`agreement_by` and :func:`agreement_difference` all evaluate registered statistics; intervals
come from the resampling engine (:mod:`metaeval.core.resample`: items, clusters or strata), or from
the analytic large-sample variance (:mod:`metaeval.agreement.analytic`, Gwet 2014) with
``ci_method="analytic"``; ``ci_method=None`` gives the point estimate alone.

Input forms accepted by the table statistics
--------------------------------------------
* two label arrays ``x`` (reference) and ``y`` (candidate);
* a :class:`metaeval.Paired` from :func:`metaeval.align` (``cluster`` may then name a column);
* a :class:`metaeval.PairedTables` (``align(..., rows=False)``, and what the DuckDB and Spark
  engines return): per-group tables of label counts; ``cluster``/``strata`` may name one of its
  group columns (its ``by``), and every statistic gives the same estimate and interval as on the
  rows;
* ``table=``: a K×K array of counts, or a ``(C, K, K)`` array of per-cluster tables (then the
  bootstrap resamples clusters).

Counts, empty samples, undefined values
---------------------------------------
A ``table=`` is read by :func:`metaeval.core.tables.as_counts`: NaN, ±inf, negative, fractional
or overflowing cells (a total above 2**53) are an :class:`~metaeval.InputError` naming the cell.
A valid table with no item (all zeros) is an empty sample: every statistic is NaN with an
:class:`~metaeval.UndefinedStatisticWarning` ("the sample is empty"), as any undefined value is
(one class only, an empty row or column of a ratio). A :class:`~metaeval.Paired` or
``PairedTables`` that holds no pair is different: nothing was matched, which is an input problem
(keys that never meet), so it is an InputError that shows each side's rows, where they went and
example keys. A bootstrap over one cluster (or one item) has no variation to resample: NaN
interval, standard error and p-value, with a warning (:mod:`metaeval.core.resample`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..core import registry
from ..core.errors import InputError, SmallSampleWarning, UndefinedStatisticWarning
from ..core.resample import (
    DEFAULT_CI_METHOD,
    DEFAULT_N_RESAMPLES,
    BootstrapResult,
    Units,
    _user_stacklevel,
    bootstrap,
    shared_table_units,
    table_units,
)
from ..core.results import Estimate, ResultSet
from ..core.scale import Scale
from ..core.weights import weight_matrix
from .analytic import DEFAULT_QUANTILE

__all__ = [
    "cohen_kappa", "scott_pi", "pabak", "bennett_s", "gwet_ac1", "gwet_ac2", "observed_agreement",
    "kappa_max", "matthews_corrcoef", "confusion_matrix",
    "per_class", "binary_metrics", "prevalence_bias_index", "kappa_at_prevalence", "threshold_agreement",
    "agreement_report", "agreement_by", "agreement_difference", "weight_matrix", "TableData", "prepare_table",
    "REPORT_STATISTICS",
]


# --------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------

class TableData:
    """A pooled K×K table, the units to resample, and a description of the data."""

    def __init__(self, table, units: Units, scale: Scale, n: int, values_known: bool = True):
        self.table = table
        self.units = units
        self.scale = scale
        self.n = n
        self.k = table.shape[0]
        # False for a bare count table: the categories' values are unknown (named weights then use
        # irrCAC's defaults)
        self.values_known = values_known


def prepare_table(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None) -> TableData:
    """Normalize the accepted input forms to a pooled table plus resampling units.

    Parameters
    ----------
    x, y : array-like, Paired or PairedTables, optional
        Label arrays, or a Paired / PairedTables alone (as ``x``).
    table : array, optional
        K×K counts, or C×K×K per-cluster counts.
    scale : Scale, optional
        The levels (default: the pairs' scale, or inferred from the labels).
    cluster, strata : str or array-like, optional
        Clusters or strata: arrays aligned with the labels, a column of a Paired, or a group column
        (``by``) of a PairedTables (an array, or another column, raises an InputError that names
        the fix).

    Returns
    -------
    TableData
        The pooled table, the units the bootstrap resamples (cells, clusters or strata), the
        scale and n.

    Raises
    ------
    InputError
        A ``table=`` cell that is not a finite, non-negative whole number, or a total above 2**53
        (:func:`metaeval.core.tables.as_counts`); a Paired or PairedTables with no pair (nothing
        matched: the message gives each side's rows, their fates and example keys).

    References
    ----------
    tests/test_paired_tables.py: a PairedTables gives the same table and units as its rows.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> t = me.align(d.qrels_human, d.qrels_judge, rows=False)
    >>> td = prepare_table(t, cluster="query_id")
    >>> td.n, td.units.kind, td.units.n_units
    (7731, 'clusters', 40)
    """
    from ..core.tables import as_counts, contingency
    from ..data.alignment import Paired, PairedTables

    if table is not None:
        if x is not None or y is not None:
            raise ValueError("pass either labels (x, y) or table=, not both")
        t = as_counts(table, name="table")
        if t.ndim == 2 and t.shape[0] == t.shape[1] and t.shape[0] >= 2:
            tt = t
            units = table_units(t)
        elif t.ndim == 3 and t.shape[1] == t.shape[2] and t.shape[1] >= 2:
            tt = t.sum(axis=0)
            units = table_units(None, cluster_tables=t)
        else:
            raise InputError(f"table= must be a K×K (K ≥ 2) or C×K×K array of counts, got shape {t.shape}",
                             source="<table>")
        known = scale is not None
        if scale is None:
            scale = Scale(tuple(range(tt.shape[0])))
        elif scale.k != tt.shape[0]:
            raise ValueError(f"scale has {scale.k} levels for a {tt.shape[0]}x{tt.shape[0]} table")
        return TableData(tt, units, scale, int(tt.sum()), values_known=known)
    if isinstance(x, PairedTables):
        if y is not None:
            raise ValueError("pass a PairedTables alone, not with y")
        x._require_pairs()
        return _prepare_tables(x, scale, cluster, strata)
    if isinstance(x, Paired):
        if y is not None:
            raise ValueError("pass a Paired alone, not with y")
        x._require_pairs()
        paired = x
        scale = scale or paired.scale
        r, c = paired.reference, paired.candidate
        cl = paired._cluster_ids(cluster) if cluster is not None else None
        st = paired._cluster_ids(strata) if strata is not None else None
    else:
        if x is None or y is None:
            raise ValueError("pass two label arrays (x, y), a Paired, or table=")
        r = _labels(x, "x")
        c = _labels(y, "y")
        if len(r) != len(c):
            raise InputError(f"x and y have different lengths: {len(r)} and {len(c)}",
                             fix="pass labels of the same items, aligned (see metaeval.align)")
        cl = None if cluster is None else np.asarray(cluster)
        st = None if strata is None else np.asarray(strata)
        if scale is None:
            scale = Scale.infer(r, c)
    if cl is not None and st is not None:
        raise ValueError("cluster= and strata= cannot be combined yet")
    ok = ~(np.isnan(r) | np.isnan(c))
    if not ok.all():
        warnings.warn(f"{int((~ok).sum())} pair(s) with a missing label left out", UndefinedStatisticWarning,
                      stacklevel=3)
    tt = contingency(r, c, scale)
    if cl is not None:
        if len(cl) != len(r):
            raise InputError(f"cluster has {len(cl)} entries for {len(r)} pairs")
        units = table_units(None, cluster_tables=contingency(r, c, scale, cluster=cl))
    elif st is not None:
        if len(st) != len(r):
            raise InputError(f"strata has {len(st)} entries for {len(r)} pairs")
        units = table_units(None, strata_tables=contingency(r, c, scale, cluster=st))
    else:
        units = table_units(tt)
    return TableData(tt, units, scale, int(tt.sum()))


def _prepare_tables(paired, scale, cluster, strata) -> TableData:
    """A :class:`~metaeval.PairedTables`: its pooled table, and its group tables as clusters or strata."""
    scale = scale or paired.scale
    if cluster is not None and strata is not None:
        raise ValueError("cluster= and strata= cannot be combined yet")
    tt = paired.table(scale=scale)
    if cluster is not None:
        if not isinstance(cluster, str):
            paired._column(cluster)          # raises: an array aligned with pairs needs rows
        units = table_units(None, cluster_tables=paired.table(cluster=cluster, scale=scale))
    elif strata is not None:
        if not isinstance(strata, str):
            paired._column(strata)
        paired._check_by(strata, "strata")
        units = table_units(None, strata_tables=paired.group_tables(strata, scale=scale)[1])
    else:
        units = table_units(tt)
    return TableData(tt, units, scale, int(tt.sum()))


def _labels(v, name):
    if isinstance(v, pd.Series):
        v = v.to_numpy()
    try:
        return np.asarray(v, dtype=float).ravel()
    except (TypeError, ValueError):
        raise InputError(f"{name} must hold numeric labels", fix="map text labels to numbers first") from None


# --------------------------------------------------------------------------------------------
# evaluating a registered statistic
# --------------------------------------------------------------------------------------------

def _check_defined(name, value, td: TableData, stacklevel=4):
    if np.isnan(value):
        used_r = (td.table.sum(axis=1) > 0).sum()
        used_c = (td.table.sum(axis=0) > 0).sum()
        why = ("the sample is empty (no pair of labels)" if td.n == 0 else
               f"chance agreement is 1: the reference uses {used_r} and the candidate {used_c} of {td.k} "
               "levels (one class only); PABAK and Gwet's AC1 still report")
        warnings.warn(f"{name} is undefined: {why}", UndefinedStatisticWarning, stacklevel=_user_stacklevel())


def _warn_nan(names, td: TableData) -> None:
    """One UndefinedStatisticWarning for NaN values of statistics that do not explain themselves
    (:func:`_check_defined` does for the chance-corrected ones): undefined values are NaN with a
    warning (the registry's rule)."""
    if not names:
        return
    if td.n == 0:
        why = "the sample is empty (no pair of labels)"
    else:
        whys = []
        for nm in dict.fromkeys(names):
            try:
                stat, _ = registry.parse(nm)
            except (KeyError, ValueError, InputError):
                continue
            if stat.defined:
                whys.append(f"{nm} is {stat.defined}")
        why = "; ".join(whys) or ("each is a ratio over an empty row or column of the table (a level one rater "
                                  "never uses)")
    shown = ", ".join(list(dict.fromkeys(names))[:6])
    more = "" if len(names) <= 6 else f" and {len(names) - 6} more"
    verb = "is" if len(names) == 1 else "are"
    warnings.warn(f"{shown}{more} {verb} undefined (NaN) on this table: {why}", UndefinedStatisticWarning,
                  stacklevel=_user_stacklevel())


def _run(kernel, td: TableData, names, *, n_resamples, ci_method, confidence_level, rng, alternative="two-sided",
         warn_names=(), with_result=False):
    """Evaluate a (vector) kernel on the table, bootstrap it through the engine, one Estimate per entry.

    ``ci_method=None`` gives point estimates with no resampling. ``warn_names`` lists the entries
    that get an UndefinedStatisticWarning when NaN.
    """
    names = [names] if isinstance(names, str) else list(names)
    res = bootstrap(kernel, td.units, n_resamples=n_resamples, ci_method=ci_method,
                    confidence_level=confidence_level, rng=rng, alternative=alternative)
    for j, name in enumerate(names):
        if name in warn_names:
            _check_defined(name, res.theta_hat[j], td, stacklevel=5)
    _warn_nan([nm for j, nm in enumerate(names) if nm not in warn_names and np.isnan(res.theta_hat[j])], td)
    ests = res.estimates(names, n=td.n)
    return (ests, res) if with_result else ests


def _levels(td: TableData):
    """The categories' values (None when unknown: a bare count table)."""
    if not td.values_known:
        return None
    try:
        return np.asarray(td.scale.levels, dtype=float)
    except (TypeError, ValueError):
        return None


def _bound(name, weights, td: TableData, **params):
    """Resolve a registered statistic for this table (defaults: :func:`metaeval.core.registry.default_weights`)."""
    if registry.get(name).needs_binary:
        _need_binary(td)
    return registry.resolve(name, weights, scale=td.scale, **params)


def _analytic(bound, td: TableData, *, confidence_level, population_size, quantile, alternative="two-sided"):
    """The estimate with its analytic (Gwet 2014 / Fleiss–Cohen–Everitt) interval."""
    from .analytic import analytic_estimate

    fn = bound.statistic.analytic_function()
    if fn is None:
        raise ValueError(f"no analytic variance for {bound.name}; use a bootstrap ci_method "
                         "('bca', 'percentile', 'basic') or ci_method=None")
    if td.units.kind != "items":
        raise ValueError("the analytic interval assumes iid items; use a bootstrap ci_method ('bca', "
                         "'percentile', 'basic') with cluster= or strata=")
    w = _analytic_weights(bound, td)
    res = fn(td.table, w) if td.n > 0 else None
    # the value is the kernel's (one definition); the analytic module gives its variance
    est = float(bound.kernel(td.k, _levels(td))(td.table.reshape(1, -1))[0]) if td.n > 0 else np.nan
    if bound.statistic.warn_undefined:
        _check_defined(bound.name, est, td, stacklevel=5)
    elif np.isnan(est):
        _warn_nan([bound.name], td)
    return analytic_estimate(bound.name, est, np.nan if res is None else float(res.variance), n=td.n,
                             confidence_level=confidence_level, quantile=quantile, alternative=alternative,
                             population_size=population_size,
                             variance0=np.nan if res is None else float(getattr(res, "variance0", np.nan)),
                             extra={"variance": "Fleiss–Cohen–Everitt" if bound.statistic.name == "cohen_kappa"
                                    else "delta-method (Gwet 2014)"})


def _analytic_weights(bound, td: TableData):
    """The agreement-weight matrix the analytic variance needs (Krippendorff: from its level)."""
    if bound.statistic.weights == "level":
        from ..core.weights import krippendorff_weights

        return krippendorff_weights(bound.weights, td.k, _levels(td))
    w = bound.weight_matrix(td.k, _levels(td))
    return np.eye(td.k) if w is None else w


def _evaluate(name, td: TableData, *, weights=None, ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES,
              confidence_level=0.95, rng=None, population_size=None, quantile=DEFAULT_QUANTILE, alternative="two-sided") -> Estimate:
    """One registered scalar statistic of a table, with the interval asked for."""
    bound = _bound(name, weights, td)
    if ci_method == "analytic":
        return _analytic(bound, td, confidence_level=confidence_level, population_size=population_size,
                         quantile=quantile, alternative=alternative)
    if population_size is not None:
        raise ValueError("population_size= (the finite-population correction) applies to ci_method='analytic'")
    warn = (bound.name,) if bound.statistic.warn_undefined else ()
    (est,), res_boot = _run(bound.kernel(td.k, _levels(td)), td, bound.name, n_resamples=n_resamples,
                            ci_method=ci_method, confidence_level=confidence_level, rng=rng, alternative=alternative,
                            warn_names=warn, with_result=True)
    return _with_h0_pvalue(bound, td, est, res_boot, 0, alternative=alternative)


def _with_h0_pvalue(bound, td: TableData, est: Estimate, res_boot, j: int, *, alternative="two-sided") -> Estimate:
    """``est`` (entry ``j`` of the bootstrap ``res_boot``) with the p-value of coefficient = 0, where there is one.

    Where the analytic variance has an H0 version (Cohen's kappa, weighted or not), the z-test
    p-value is reported with any interval; with clusters or strata the z-test does not apply: the
    engine's bootstrap p-value instead. Statistics without an H0 variance are returned unchanged
    (no p-value), in :func:`cohen_kappa` and friends as in :func:`agreement_report`.
    """
    if bound.statistic.analytic is None or td.n == 0:
        return est
    fn = bound.statistic.analytic_function()
    try:
        res = fn(td.table, _analytic_weights(bound, td))
    except ValueError:
        return est
    var0 = float(getattr(res, "variance0", np.nan))
    if var0 != var0:
        return est
    se0 = float(np.sqrt(max(var0, 0.0)))
    extra = {**est.extra, "se0": se0, "se_analytic": float(np.sqrt(max(float(res.variance), 0.0)))}
    if td.units.kind == "items":
        from .analytic import wald_pvalue

        pval = wald_pvalue(est.estimate, se0, alternative=alternative)
    elif est.replicates is None:
        pval = None          # the z-test assumes iid items, and there are no replicates to test with
    else:
        pval = float(res_boot.pvalue(0.0, j)[0])      # the engine's test (widened for few clusters)
    return Estimate(**{**est.__dict__, "pvalue": pval, "extra": extra})


_DATA_PARAMS = """x, y : array-like or Paired, optional
        Reference and candidate labels, or a Paired from :func:`metaeval.align` (pass it as ``x``).
    table : array, optional
        K×K counts (rows: reference, columns: candidate), or C×K×K per-cluster counts.
    scale : Scale, optional
        The levels (and so K); inferred from the labels when omitted.
    cluster : array-like or str, optional
        Cluster id of each pair (or a column of the Paired): resample clusters (topics).
    strata : array-like or str, optional
        Stratum of each pair: resample items within strata."""

_BOOT_PARAMS = _DATA_PARAMS + """
    ci_method : {"bca", "percentile", "basic", None}
        Bootstrap interval through the engine, or None for the point estimate alone (no
        resampling).
    n_resamples : int
        Bootstrap replicates.
    confidence_level : float
        Two-sided confidence level of the interval.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap; the seed used is reported on the result."""

_COMMON_PARAMS = _DATA_PARAMS + """
    ci_method : {"bca", "percentile", "basic", "analytic", None}
        Bootstrap interval through the engine, the analytic large-sample interval (iid items
        only; Gwet 2014), or None for the point estimate alone (no resampling).
    n_resamples : int
        Bootstrap replicates.
    confidence_level : float
        Two-sided confidence level of the interval.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap; the seed used is reported on the result.
    population_size : int, optional
        Number of items in the population the sample was drawn from, for the finite-population
        correction (1 − n/N) of the analytic variance (``ci_method="analytic"`` only).
    quantile : {"t", "normal"}
        Quantile of the analytic interval: t with n − 1 degrees of freedom (as irrCAC) or normal."""

_RETURNS_ESTIMATE = """Estimate
        The estimate, its interval (``ci``), standard error, n, the resampling unit and the seed."""


def _doc(fn):
    params = _COMMON_PARAMS if "population_size" in fn.__code__.co_varnames else _BOOT_PARAMS
    fn.__doc__ = fn.__doc__.replace("{params}", params).replace("{returns}", _RETURNS_ESTIMATE)
    return fn


def _named(name, td: TableData, weights=None):
    """Resolve a plain or suffixed registry name for this table; a suffix is an explicit choice."""
    stat, suffix = registry.parse(name)
    return _bound(stat.name, weights if weights is not None else suffix, td)


def _scalar(name, x, y, table, weights, scale, cluster, strata, ci_method, n_resamples, confidence_level, rng,
            population_size, quantile):
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    return _evaluate(name, td, weights=weights, ci_method=ci_method, n_resamples=n_resamples,
                     confidence_level=confidence_level, rng=rng, population_size=population_size, quantile=quantile)


# --------------------------------------------------------------------------------------------
# the coefficients
# --------------------------------------------------------------------------------------------

@_doc
def cohen_kappa(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
                ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None,
                population_size=None, quantile=DEFAULT_QUANTILE) -> Estimate:
    """Cohen's kappa, unweighted or weighted (Cohen 1960, 1968).

    κ_w = (p_o − p_e)/(1 − p_e) with p_o = Σ w_ij p_ij and p_e = Σ w_ij p_i+ p_+j.

    Parameters
    ----------
    {params}
    weights : str or array (K, K), optional
        None (unweighted), a named scheme (``"linear"``, ``"quadratic"``, ``"ordinal"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``: see
        :func:`metaeval.core.weights.weight_matrix`) or a K×K agreement-weight matrix.

    Returns
    -------
    {returns}
        ``.pvalue`` is the z-test of κ = 0 with the variance under H0 (``extra["se0"]``), kept
        apart from the interval's standard error; with ``cluster=`` or ``strata=`` the z-test does
        not apply and ``.pvalue`` is the bootstrap p-value of κ = 0 instead.

    Notes
    -----
    ``ci_method="analytic"`` uses the Fleiss–Cohen–Everitt (1969) large-sample variance (the one
    statsmodels' ``cohens_kappa`` and irrCAC's ``kappa2.table`` use). A one-class sample gives NaN
    and an UndefinedStatisticWarning.

    References
    ----------
    Validated against scikit-learn ``cohen_kappa_score``, statsmodels ``cohens_kappa`` (estimate,
    ``std_kappa``, ``std_kappa0``), R ``psych::cohen.kappa`` 2.2.9 and irrCAC (tests/reference).

    Examples
    --------
    >>> import metaeval
    >>> k = metaeval.cohen_kappa(table=[[85, 20], [20, 77]], ci_method="analytic")
    >>> round(k.estimate, 4), round(k.se, 4)
    (0.6033, 0.0562)
    >>> round(metaeval.cohen_kappa(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.6033
    """
    return _scalar("cohen_kappa", x, y, table, weights, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def scott_pi(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
             ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None,
             population_size=None, quantile=DEFAULT_QUANTILE) -> Estimate:
    """Scott's pi: chance agreement from the pooled margins, p_e = Σ w_ij π_i π_j, π = (p_i+ + p_+i)/2.

    Parameters
    ----------
    {params}
    weights : str or array (K, K), optional
        Agreement weights by name or matrix (see :func:`cohen_kappa`).

    Returns
    -------
    {returns}

    References
    ----------
    Scott (1955). Validated against irrCAC ``scott2.table`` (coefficient and standard error).

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.scott_pi(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.6033
    """
    return _scalar("scott_pi", x, y, table, weights, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def bennett_s(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
              ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None,
              population_size=None, quantile=DEFAULT_QUANTILE) -> Estimate:
    """Bennett–Alpert–Goldstein S = Brennan–Prediger coefficient: p_e = Σ w_ij / K².

    Unweighted this is (K p_o − 1)/(K − 1); for K = 2, PABAK = 2 p_o − 1 (Byrt et al. 1993).
    K is the number of levels of the scale (a level nobody used still counts).

    Parameters
    ----------
    {params}
    weights : str or array (K, K), optional
        Agreement weights by name or matrix (see :func:`cohen_kappa`).

    Returns
    -------
    {returns}

    References
    ----------
    Bennett, Alpert & Goldstein (1954); Brennan & Prediger (1981). Validated against irrCAC
    ``bp2.table``.

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.bennett_s(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.604
    """
    return _scalar("bennett_s", x, y, table, weights, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def pabak(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method=DEFAULT_CI_METHOD,
          n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None, population_size=None,
          quantile=DEFAULT_QUANTILE) -> Estimate:
    """Prevalence- and bias-adjusted kappa, (K p_o − 1)/(K − 1) (Byrt, Bishop & Carlin 1993).

    For two classes 2 p_o − 1; on K classes it equals the unweighted Brennan–Prediger S.

    Parameters
    ----------
    {params}

    Returns
    -------
    {returns}

    References
    ----------
    Byrt, Bishop & Carlin (1993); the identity κ = (PABAK − PI² + BI²)/(1 − PI² + BI²) is tested.

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.pabak(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.604
    """
    return _scalar("pabak", x, y, table, None, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def gwet_ac1(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method=DEFAULT_CI_METHOD,
             n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None, population_size=None,
             quantile=DEFAULT_QUANTILE) -> Estimate:
    """Gwet's AC1: p_e = Σ_k π_k (1 − π_k)/(K − 1), π_k = (p_k+ + p_+k)/2 (Gwet 2008).

    Parameters
    ----------
    {params}

    Returns
    -------
    {returns}

    References
    ----------
    Gwet (2008, 2014). Validated against irrCAC ``gwet.ac1.table`` (coefficient, standard error,
    interval).

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.gwet_ac1(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.6046
    """
    return _scalar("gwet_ac1", x, y, table, None, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def gwet_ac2(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
             ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None,
             population_size=None, quantile=DEFAULT_QUANTILE) -> Estimate:
    """Gwet's AC2 (weighted AC1): p_e = T_w/(K(K − 1)) Σ_k π_k(1 − π_k), T_w = Σ w_ij (Gwet 2014).

    Parameters
    ----------
    {params}
    weights : str or array (K, K), optional
        Agreement weights by name or matrix; None (the default) means the registry's declared
        default, quadratic, so that every consumer of ``"gwet_ac2"`` uses the same weights;
        ``"identity"`` gives AC1.

    Returns
    -------
    {returns}

    References
    ----------
    Gwet (2014), chapter 3. Validated against irrCAC ``gwet.ac1.table`` with weights.

    Examples
    --------
    >>> import metaeval
    >>> t = [[10, 3, 0], [2, 12, 4], [0, 3, 9]]
    >>> round(metaeval.gwet_ac2(table=t, ci_method=None).estimate, 4)
    0.7973
    """
    return _scalar("gwet_ac2", x, y, table, weights, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def observed_agreement(x=None, y=None, *, table=None, weights=None, scale=None, cluster=None, strata=None,
                       ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                       rng=None, population_size=None, quantile=DEFAULT_QUANTILE) -> Estimate:
    """Observed (weighted) agreement p_o = Σ w_ij p_ij.

    Parameters
    ----------
    {params}
    weights : str or array (K, K), optional
        Agreement weights by name or matrix (see :func:`cohen_kappa`).

    Returns
    -------
    {returns}

    References
    ----------
    The definition; its variance as irrCAC ``pa2.table``.

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.observed_agreement(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.802
    """
    return _scalar("observed_agreement", x, y, table, weights, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, population_size, quantile)


@_doc
def kappa_max(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method=DEFAULT_CI_METHOD,
              n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None) -> Estimate:
    """The largest unweighted kappa the margins allow: p_o,max = Σ_k min(p_k+, p_+k).

    Parameters
    ----------
    {params}

    Returns
    -------
    {returns}

    References
    ----------
    Cohen (1960); checked by its definition on tables whose maximum is known.

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.kappa_max(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    1.0
    """
    return _scalar("kappa_max", x, y, table, None, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, None, "t")


@_doc
def matthews_corrcoef(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                      ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                      rng=None) -> Estimate:
    """Matthews correlation (multiclass form of Gorodkin 2004, as scikit-learn computes it).

    Parameters
    ----------
    {params}

    Returns
    -------
    {returns}

    References
    ----------
    Gorodkin (2004). Validated against scikit-learn ``matthews_corrcoef``.

    Examples
    --------
    >>> import metaeval
    >>> round(metaeval.matthews_corrcoef(table=[[85, 20], [20, 77]], ci_method=None).estimate, 4)
    0.6033
    """
    return _scalar("matthews_corrcoef", x, y, table, None, scale, cluster, strata, ci_method, n_resamples,
                   confidence_level, rng, None, "t")


# --------------------------------------------------------------------------------------------
# confusion matrix, per-class metrics, binary metrics
# --------------------------------------------------------------------------------------------

def confusion_matrix(x=None, y=None, *, table=None, scale=None, normalize=None) -> pd.DataFrame:
    """The contingency table as a labelled frame (rows: reference, columns: candidate).

    Parameters
    ----------
    x, y : array-like or Paired, optional
        Reference and candidate labels, or a Paired.
    table : array (K, K), optional
        Counts.
    scale : Scale, optional
    normalize : {None, "row", "column", "all"}
        None (counts), ``"row"`` (each reference level sums to 1: per-class recall on the
        diagonal), ``"column"`` (precision on the diagonal) or ``"all"``.

    Returns
    -------
    pandas.DataFrame
        Index ``reference``, columns ``candidate``, labelled by the scale's levels.

    References
    ----------
    Equals scikit-learn ``confusion_matrix`` (tests).

    Examples
    --------
    >>> import metaeval
    >>> metaeval.confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2])
    candidate  0  1  2
    reference
    0          1  0  0
    1          0  1  1
    2          0  0  1
    """
    from ..core.tables import normalize_counts
    from ..data.alignment import Paired

    td = prepare_table(x, y, table=table, scale=scale)
    t = normalize_counts(td.table, normalize)
    labels = td.scale.labels
    # the axes carry the raters' names given to align (plot_confusion reads them)
    rows, cols = tuple(x.names) if isinstance(x, Paired) else ("reference", "candidate")
    return pd.DataFrame(t if normalize else td.table, index=pd.Index(labels, name=rows),
                        columns=pd.Index(labels, name=cols))


def _need_binary(td):
    if td.k != 2:
        raise InputError(f"binary labels needed, got {td.k} levels {td.scale.levels}",
                         fix="binarize first, e.g. paired.binarize(2) or scale.binarize(threshold)")


def _vector(name, td, *, ci_method, n_resamples, confidence_level, rng, **params):
    """Estimates of a registered vector statistic, named by its components."""
    bound = _bound(name, None, td, **params)
    ests = _run(bound.kernel(td.k, _levels(td)), td, bound.components(td.k, td.scale.labels),
                n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level, rng=rng)
    return ests


@_doc
def per_class(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None, ci_method=DEFAULT_CI_METHOD,
              n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None) -> ResultSet:
    """Per-class precision, recall and F1 (each with an interval) and support.

    Precision of class k = n_kk / n_+k (how often the candidate's k is the reference's k); recall =
    n_kk / n_k+ (per-class accuracy, as UMBRELA reports it); F1 = 2 n_kk / (n_k+ + n_+k).

    Parameters
    ----------
    {params}

    Returns
    -------
    ResultSet
        Estimates named ``precision``, ``recall``, ``f1`` with keys ``class`` and ``support``.

    References
    ----------
    Validated against scikit-learn ``precision_recall_fscore_support``.

    Examples
    --------
    >>> import metaeval
    >>> r = metaeval.per_class(table=[[8, 2], [1, 9]], ci_method=None)
    >>> round(r.get(statistic="recall", **{"class": "1"}).estimate, 2)
    0.9
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    k = td.k
    labels = td.scale.labels
    ests = _vector("per_class", td, ci_method=ci_method, n_resamples=n_resamples,
                   confidence_level=confidence_level, rng=rng)
    support = td.table.sum(axis=1)
    out = ResultSet(name="per_class")
    for i, e in enumerate(ests):
        j = i % k
        m = ("precision", "recall", "f1")[i // k]
        out.append_with(Estimate(**{**e.__dict__, "statistic": m}), **{"class": labels[j],
                                                                      "support": int(support[j])})
    return out


@_doc
def binary_metrics(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                   ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                   rng=None) -> ResultSet:
    """Sensitivity, specificity, PPV, NPV and reference prevalence for binary labels (1 = positive).

    Rows of the table are the reference (the truth), level index 1 the positive class.

    Parameters
    ----------
    {params}

    Returns
    -------
    ResultSet
        ``sensitivity``, ``specificity``, ``ppv``, ``npv``, ``prevalence``.

    References
    ----------
    The definitions, checked against scikit-learn's ``confusion_matrix`` counts.

    Examples
    --------
    >>> import metaeval
    >>> r = metaeval.binary_metrics(table=[[77, 20], [20, 85]], ci_method=None)
    >>> round(r["sensitivity"].estimate, 4), round(r["ppv"].estimate, 4)
    (0.8095, 0.8095)
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    return ResultSet(_vector("binary_metrics", td, ci_method=ci_method, n_resamples=n_resamples,
                             confidence_level=confidence_level, rng=rng), name="binary_metrics")


@_doc
def prevalence_bias_index(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                          ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                          rng=None) -> ResultSet:
    """Byrt, Bishop & Carlin (1993): prevalence index PI = (a − d)/N and bias index BI = (b − c)/N.

    a = both positive, d = both negative, b = reference positive / candidate negative, c = the
    reverse. κ = (PABAK − PI² + BI²)/(1 − PI² + BI²): a large ``|PI|`` explains "high agreement, low kappa".

    Parameters
    ----------
    {params}

    Returns
    -------
    ResultSet
        ``prevalence_index`` and ``bias_index``.

    References
    ----------
    Byrt, Bishop & Carlin (1993); the identity above is tested.

    Examples
    --------
    >>> import metaeval
    >>> r = metaeval.prevalence_bias_index(table=[[10, 5], [3, 82]], ci_method=None)
    >>> round(r["prevalence_index"].estimate, 2), round(r["bias_index"].estimate, 2)
    (0.72, -0.02)
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    return ResultSet(_vector("prevalence_bias_index", td, ci_method=ci_method, n_resamples=n_resamples,
                             confidence_level=confidence_level, rng=rng), name="prevalence_bias_index")


# --------------------------------------------------------------------------------------------
# kappa at another prevalence
# --------------------------------------------------------------------------------------------

class PrevalenceResult(ResultSet):
    """kappa_at_prevalence's result: estimates at the target prevalence(s) plus the curve.

    A :class:`~metaeval.ResultSet` (estimates ``kappa``, ``ppv``, ``observed_agreement`` keyed by
    ``prevalence``) with two more attributes: ``curve``, a frame ``prevalence, kappa, kappa_low,
    kappa_high, ppv, ppv_low, ppv_high``, and ``measured_prevalence``.

    Parameters
    ----------
    estimates : sequence of Estimate, optional
    keys : sequence of dict, optional
    name : str, optional

    Examples
    --------
    >>> import metaeval
    >>> r = metaeval.kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=0.0107, ci_method=None)
    >>> round(r.measured_prevalence, 3), list(r.curve.columns[:2])
    (0.48, ['prevalence', 'kappa'])
    """

    curve: pd.DataFrame


@_doc
def kappa_at_prevalence(x=None, y=None, *, table=None, prevalence, scale=None, cluster=None, strata=None,
                        curve=None, ci_method="percentile", n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                        rng=None) -> PrevalenceResult:
    """Kappa, PPV and observed agreement that the measured Se and Sp would give at another prevalence.

    From the binary table (rows: reference, 1 = positive), Se = n_11/n_1+ and Sp = n_00/n_0+. The
    expected table at prevalence π is TP = π Se, FN = π(1 − Se), FP = (1 − π)(1 − Sp),
    TN = (1 − π) Sp. Each bootstrap replicate of the table is mapped the same way, so the intervals
    carry the sampling error of Se and Sp. This answers the objection to a kappa measured on a
    balanced validation subset and applied to a low-prevalence expansion.

    Parameters
    ----------
    {params}
    prevalence : float or sequence of float
        Target prevalence(s) in (0, 1).
    curve : sequence of float, optional
        Prevalences for the kappa-versus-prevalence curve (default: 60 points, log-spaced from
        0.001 to 0.5, plus the measured prevalence).

    Returns
    -------
    PrevalenceResult
        Estimates named ``kappa``, ``ppv``, ``observed_agreement`` with key ``prevalence``; the
        attribute ``curve`` is a frame ``prevalence, kappa, kappa_low, kappa_high, ppv, ppv_low,
        ppv_high``. The default interval is the percentile one (the map is smooth; BCa is
        available).

    References
    ----------
    STATISTICS.md; the ImageCLEFmed expansion example (κ 0.603 on a balanced sample → 0.063 at
    1.07% prevalence) is reproduced in the tests.

    Examples
    --------
    >>> import metaeval
    >>> r = metaeval.kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=0.0107, rng=0)
    >>> round(r["kappa"].estimate, 3), round(r["ppv"].estimate, 3)
    (0.063, 0.043)
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    _need_binary(td)
    targets = np.atleast_1d(np.asarray(prevalence, dtype=float))
    if ((targets <= 0) | (targets >= 1)).any():
        raise ValueError(f"prevalence must lie in (0, 1), got {targets.tolist()}")
    measured = td.table[1].sum() / max(td.n, 1)
    grid = np.asarray(curve, dtype=float) if curve is not None else np.unique(
        np.concatenate([np.geomspace(0.001, 0.5, 60), [measured], targets]))
    allp = np.concatenate([targets, grid])
    m = len(allp)
    ests = _vector("kappa_at_prevalence", td, ci_method=ci_method, n_resamples=n_resamples,
                   confidence_level=confidence_level, rng=rng, prevalence=tuple(allp))
    out = PrevalenceResult(name="kappa_at_prevalence")
    for s_i, s in enumerate(("kappa", "ppv", "observed_agreement")):
        for j, p in enumerate(targets):
            e = ests[s_i * m + j]
            out.append_with(Estimate(**{**e.__dict__, "statistic": s}), prevalence=float(p))
    rows = []
    for j, p in enumerate(grid, start=len(targets)):
        k_e, p_e = ests[j], ests[m + j]
        rows.append((float(p), k_e.estimate, k_e.ci.low, k_e.ci.high, p_e.estimate, p_e.ci.low, p_e.ci.high))
    out.curve = pd.DataFrame(rows, columns=["prevalence", "kappa", "kappa_low", "kappa_high", "ppv", "ppv_low",
                                            "ppv_high"])
    out.measured_prevalence = float(measured)
    return out


# --------------------------------------------------------------------------------------------
# thresholds
# --------------------------------------------------------------------------------------------

@_doc
def threshold_agreement(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                        ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                        rng=None) -> ResultSet:
    """Agreement at every binarization threshold of an ordinal scale at once (0|123, 01|23, 012|3).

    For each threshold: Cohen's kappa, observed agreement, PABAK, Gwet's AC1, and the relevant
    class's precision and recall, all from the same replicates.

    Parameters
    ----------
    {params}

    Returns
    -------
    ResultSet
        Key columns ``threshold`` (the lowest level counted as positive) and ``split``
        (e.g. ``"01|23"``).

    References
    ----------
    Each entry equals the registry's statistic on the binarized table (tests).

    Examples
    --------
    >>> import metaeval
    >>> t = [[30, 5, 1], [6, 20, 4], [1, 5, 28]]
    >>> r = metaeval.threshold_agreement(table=t, ci_method=None)
    >>> round(r.get(statistic="cohen_kappa", split="0|12").estimate, 4)
    0.7196
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    from .kernels import _THRESHOLD_STATS

    ests = _vector("threshold_agreement", td, ci_method=ci_method, n_resamples=n_resamples,
                   confidence_level=confidence_level, rng=rng)
    out = ResultSet(name="threshold_agreement")
    labels = td.scale.labels
    for i, e in enumerate(ests):
        j = i // len(_THRESHOLD_STATS) + 1
        s = _THRESHOLD_STATS[i % len(_THRESHOLD_STATS)]
        out.append_with(Estimate(**{**e.__dict__, "statistic": s}), threshold=td.scale.levels[j],
                        split="".join(labels[:j]) + "|" + "".join(labels[j:]))
    return out


# --------------------------------------------------------------------------------------------
# the report: every coefficient side by side, from one set of replicates
# --------------------------------------------------------------------------------------------

#: What :func:`agreement_report` shows, in order (names of the registry; ``krippendorff_alpha``
#: takes the scale's level of measurement; weighted kappas only on ordered scales with K > 2;
#: the prevalence and bias indices only for K = 2).
REPORT_STATISTICS = ("observed_agreement", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic",
                     "scott_pi", "pabak", "gwet_ac1", "krippendorff_alpha", "kappa_max", "matthews_corrcoef",
                     "prevalence_bias_index")


def _report_bounds(td: TableData):
    ordered = td.k > 2 and td.scale.kind != "nominal"
    skip = set()
    if not ordered:
        skip |= {"cohen_kappa_linear", "cohen_kappa_quadratic"}
    if td.k != 2:
        skip.add("prevalence_bias_index")
    return [_named(n, td) for n in REPORT_STATISTICS if n not in skip]


@_doc
def agreement_report(x=None, y=None, *, table=None, scale=None, cluster=None, strata=None,
                     ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                     rng=None, population_size=None, quantile=DEFAULT_QUANTILE) -> ResultSet:
    """Every agreement coefficient side by side, from one set of replicates.

    Observed agreement, Cohen's kappa (and weighted kappas on ordinal scales), Scott's pi, PABAK,
    Gwet's AC1, Krippendorff's alpha, kappa_max and the MCC, plus the prevalence and bias indices
    for binary labels, so that "90% agreement but kappa 0.2" is explained in numbers
    (:data:`REPORT_STATISTICS`). All statistics come from the same bootstrap replicates of the
    table, so their intervals are comparable.

    Parameters
    ----------
    {params}

    Returns
    -------
    ResultSet
        One estimate per statistic. With ``ci_method="analytic"`` the statistics without an
        analytic variance (kappa_max, MCC, ordinal alpha, the indices) are reported with no
        interval (``ci.method == "none"``).

    References
    ----------
    Each entry equals its public function (tests/test_registry.py).

    Examples
    --------
    >>> import metaeval
    >>> r = metaeval.agreement_report(table=[[85, 20], [20, 77]], ci_method=None)
    >>> round(r["cohen_kappa"].estimate, 4), round(r["gwet_ac1"].estimate, 4)
    (0.6033, 0.6046)
    """
    td = prepare_table(x, y, table=table, scale=scale, cluster=cluster, strata=strata)
    bounds = _report_bounds(td)
    if ci_method == "analytic":
        out = ResultSet(name="agreement_report")
        for b in bounds:
            if b.statistic.components is None and b.statistic.analytic is not None and not (
                    b.statistic.name == "krippendorff_alpha" and b.weights == "ordinal"):
                out.append(_analytic(b, td, confidence_level=confidence_level, population_size=population_size,
                                     quantile=quantile))
            else:
                for e in _run(b.kernel(td.k, _levels(td)), td, b.components(td.k, td.scale.labels),
                              n_resamples=n_resamples, ci_method=None, confidence_level=confidence_level, rng=rng):
                    out.append(e)
        return out
    kernels = [b.kernel(td.k, _levels(td)) for b in bounds]
    names = [n for b in bounds for n in b.components(td.k, td.scale.labels)]

    def kern(S):
        return np.column_stack([f(S) for f in kernels])

    warn = tuple(b.name for b in bounds if b.statistic.warn_undefined)
    ests, res_boot = _run(kern, td, names, n_resamples=n_resamples, ci_method=ci_method,
                          confidence_level=confidence_level, rng=rng, warn_names=warn, with_result=True)
    # the p-value of coefficient = 0 exactly as each statistic's own function reports it
    j = 0
    for b in bounds:
        width = len(b.components(td.k, td.scale.labels))
        if width == 1:
            ests[j] = _with_h0_pvalue(b, td, ests[j], res_boot, j)
        j += width
    return ResultSet(ests, name="agreement_report")


def agreement_by(paired, by, *, statistics=("cohen_kappa", "gwet_ac1", "pabak"), min_n: int = 30, cluster=None,
                 strata=None, ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                 rng=None) -> pd.DataFrame:
    """Agreement per group (topic, dataset, judge ...) as one tidy frame.

    Parameters
    ----------
    paired : Paired or PairedTables
        The pairs (rows), or their tables (then ``by``, ``cluster`` and ``strata`` name group
        columns of the tables, :attr:`PairedTables.by`).
    by : str or list of str
        Column(s) of ``paired.data`` to group by.
    statistics : sequence of str
        Names of registered table statistics (``"cohen_kappa"``, ``"cohen_kappa_quadratic"``,
        ``"gwet_ac2"``, ``"krippendorff_alpha_ordinal"`` ...).
    min_n : int
        Groups with fewer pairs (or with one class only) get a SmallSampleWarning naming them.
    cluster, strata : str, optional
        Columns of ``paired.data``: resample clusters (topics) or items within strata inside each
        group.
    ci_method : {"bca", "percentile", "basic", None}
        With None the point estimates of all groups are computed at once from the per-group
        tables (no resampling, vectorized over groups).
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator
        One generator serves every group, so the whole frame is reproducible from one seed.

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, then the package's fixed result columns.

    References
    ----------
    Each group's value equals the public function on that group's pairs (tests).

    Examples
    --------
    >>> import metaeval
    >>> d = metaeval.datasets.load("trec_dl_like")
    >>> p = metaeval.align(d.qrels_human, d.qrels_judge, scale=metaeval.Scale((0, 1, 2, 3)), unjudged="drop")
    >>> f = metaeval.agreement_by(p, "query_id", statistics=["cohen_kappa"], ci_method=None, min_n=0)
    >>> list(f.columns[:3])
    ['query_id', 'statistic', 'estimate']
    """
    from ..core.resample import make_rng
    from ..core.results import FRAME_COLUMNS
    from ..core.tables import contingency
    from ..data.alignment import Paired, PairedTables

    if not isinstance(paired, Paired):
        raise TypeError("agreement_by needs a Paired or PairedTables (from metaeval.align)")
    by = [by] if isinstance(by, str) else list(by)
    statistics = [statistics] if isinstance(statistics, str) else list(statistics)
    tables = isinstance(paired, PairedTables)
    if tables:
        missing = [c for c in by if c not in paired.by]
        if missing:
            raise InputError(f"agreement_by: {missing[0]!r} is not a group column of the tables",
                             source="<PairedTables>", expected=f"one of {list(paired.by)}",
                             fix=f"align(..., by=[..., {missing[0]!r}]) keeps tables by it; or align(..., rows=True)")
    else:
        missing = [c for c in by if c not in paired.data.columns]
        if missing:
            raise InputError(f"agreement_by: no column {missing[0]!r} in the pairs",
                             fix=f"group by one of {list(paired.data.columns)}")
    clash = [c for c in by if c in FRAME_COLUMNS]
    if clash:
        raise InputError(f"agreement_by: the group column {clash[0]!r} has the name of a result column",
                         fix="rename it in paired.data first")
    vector = [n for n in statistics if registry.parse(n)[0].components is not None]
    if vector:
        raise ValueError(f"agreement_by takes scalar statistics; {vector[0]!r} has several entries "
                         "(call it per group, or name one scalar statistic)")
    if tables:
        # the groups' tables: sorted groups, as groupby(sort=True) orders the rows' groups
        key_frame, T_groups = paired.group_tables(by)
        keys = [tuple(r) for r in key_frame[by].itertuples(index=False)]
        sizes = [int(t.sum()) for t in T_groups]
        one = [bool((t.sum(axis=1) > 0).sum() < 2 or (t.sum(axis=0) > 0).sum() < 2) for t in T_groups]
    else:
        groups = paired.data.groupby(by, sort=True).indices
        keys = [k if isinstance(k, tuple) else (k,) for k in groups]
        sizes = [len(idx) for idx in groups.values()]
        one = [len(np.unique(paired.reference[idx])) < 2 or len(np.unique(paired.candidate[idx])) < 2
               for idx in groups.values()]
    small = []
    for key, n_g, one_class in zip(keys, sizes, one):
        if n_g < min_n or one_class:
            small.append("/".join(map(str, key)) + f" (n={n_g}{', one class' if one_class else ''})")
    if small:
        warnings.warn(f"{len(small)} group(s) too small for the statistic to mean much: "
                      + ", ".join(small[:10]) + (" ..." if len(small) > 10 else ""), SmallSampleWarning,
                      stacklevel=2)
    rows = []
    if ci_method is None:
        if tables:
            T = T_groups
        else:
            gid = np.empty(len(paired), dtype=np.int64)
            for g, idx in enumerate(groups.values()):
                gid[idx] = g
            T = contingency(paired.reference, paired.candidate, paired.scale, cluster=gid)
        td = TableData(T.sum(axis=0), table_units(T.sum(axis=0)), paired.scale, int(T.sum()))
        S = T.reshape(len(T), -1)
        for name in statistics:
            b = _named(name, td)
            vals = np.asarray(b.kernel(td.k, _levels(td))(S), dtype=float)
            for g, key in enumerate(keys):
                n_g = int(T[g].sum())
                (e,) = BootstrapResult.point([vals[g]], unit="items", n_units=n_g,
                                             confidence_level=confidence_level).estimates(b.name, n=n_g)
                rows.append({**dict(zip(by, key)), **e.row()})
        return pd.DataFrame(rows, columns=by + FRAME_COLUMNS)
    gen, seed = make_rng(rng)
    group_idx = None if tables else list(groups.values())
    for g, key in enumerate(keys):
        if tables:
            sub = paired.where(**dict(zip(by, key)))
        else:
            idx = group_idx[g]
            sub = paired.subset(np.isin(np.arange(len(paired)), idx))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            td = prepare_table(sub, cluster=cluster, strata=strata)
            bounds = [_named(n, td) for n in statistics]
            kernels = [b.kernel(td.k, _levels(td)) for b in bounds]
            ests = _run(lambda S, kernels=kernels: np.column_stack([f(S) for f in kernels]), td,
                        [b.name for b in bounds], n_resamples=n_resamples, ci_method=ci_method,
                        confidence_level=confidence_level, rng=gen)
        # every row reports the call's seed: rng=seed reproduces the whole frame
        ests = [Estimate(**{**e.__dict__, "seed": seed if ci_method is not None else None}) for e in ests]
        for e in ests:
            rows.append({**dict(zip(by, key)), **e.row()})
    return pd.DataFrame(rows, columns=by + FRAME_COLUMNS)


# --------------------------------------------------------------------------------------------
# paired differences: two statistics on the same items or topics
# --------------------------------------------------------------------------------------------

def _side_frame(p, name, cluster):
    from ..data.alignment import Paired, PairedTables

    if isinstance(p, PairedTables):
        raise InputError(f"agreement_difference matches the items of a and b by key, so it needs the pairs as "
                         f"rows; {name} is a PairedTables (label counts per group)", source="<PairedTables>",
                         fix="align(..., rows=True) (or engine='pandas') for both sets")
    if isinstance(p, Paired):
        df = p.data[list(p.on)].astype("str").copy()
        df[f"r_{name}"] = p.reference
        df[f"c_{name}"] = p.candidate
        if isinstance(cluster, str):
            if cluster not in p.data.columns:
                raise InputError(f"no column {cluster!r} in the pairs of {name}")
            df[f"cl_{name}"] = p.data[cluster].astype("str").to_numpy()
        return df, list(p.on), p.scale
    if isinstance(p, tuple) and len(p) == 2:
        r, c = _labels(p[0], f"{name}[0]"), _labels(p[1], f"{name}[1]")
        if len(r) != len(c):
            raise InputError(f"{name}: the two label arrays differ in length ({len(r)}, {len(c)})")
        # zero-padded ids keep the input order through the sorted merge (cluster arrays follow it)
        ids = np.char.zfill(np.arange(len(r)).astype(str), len(str(max(len(r) - 1, 0))))
        df = pd.DataFrame({"_item": ids, f"r_{name}": r, f"c_{name}": c})
        return df, ["_item"], None
    raise TypeError(f"{name} must be a Paired or a (reference, candidate) tuple of arrays")


def agreement_difference(a, b, *, statistic="cohen_kappa", weights=None, scale=None, cluster=None,
                         ci_method=DEFAULT_CI_METHOD, n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95,
                         rng=None) -> ResultSet:
    """The difference of one agreement statistic between two label sets on the same items or topics.

    Judge A's kappa minus judge B's on the same pairs, or kappa on all topics minus kappa without
    some (pass ``b = a.subset(mask)``): items are matched by key, and an item in one set only counts
    for that set. Both statistics are computed from the *same* bootstrap draw of items (or
    clusters), so the interval of the difference accounts for their correlation.

    Parameters
    ----------
    a, b : Paired or (reference, candidate) tuple of label arrays
        Two tuples must be aligned item by item (NaN where an item is absent). Items are
        matched by key, so a :class:`metaeval.PairedTables` (counts, no items) raises an
        InputError: align with ``rows=True``.
    statistic : str
        Any registered scalar table statistic (``metaeval.core.registry.names("table")``), plain or
        with its weights as a suffix: ``cohen_kappa``, ``cohen_kappa_quadratic``, ``scott_pi``,
        ``pabak``, ``bennett_s``, ``gwet_ac1``, ``gwet_ac2`` (quadratic weights by default, as
        :func:`gwet_ac2`), ``krippendorff_alpha`` (the scale's level of measurement by default),
        ``observed_agreement``, ``matthews_corrcoef``, ``kappa_max``.
    weights : str or array, optional
        Agreement weights (or Krippendorff's level); default: the statistic's own default.
    scale : Scale, optional
        The levels; taken from the Paired inputs, else inferred.
    cluster : str or array-like, optional
        A column of the Paired data (e.g. ``"query_id"``), or cluster ids aligned with tuple inputs.
    ci_method : {"bca", "percentile", "basic"}
        The bootstrap interval (a difference needs replicates: no analytic or point-only mode).
    n_resamples : int
        Bootstrap replicates.
    confidence_level : float
        Two-sided confidence level.
    rng : None, int or numpy.random.Generator
        Seed of the shared bootstrap draw.

    Returns
    -------
    ResultSet
        Three estimates with key ``set``: ``a``, ``b`` and ``a - b``; the difference carries the
        two-sided bootstrap p-value of H0: no difference (twice the smaller share of replicates on
        either side of 0, which inverts the percentile interval).

    References
    ----------
    Each side equals the statistic's public function on its own pairs (tests/test_registry.py);
    the paired bootstrap is the engine's (Davison & Hinkley 1997, §3.8 for clusters).

    Examples
    --------
    >>> import numpy as np, metaeval
    >>> rng = np.random.default_rng(0)
    >>> h = rng.integers(0, 4, 300); j1 = np.where(rng.random(300) < .7, h, rng.integers(0, 4, 300))
    >>> j2 = np.where(rng.random(300) < .5, h, rng.integers(0, 4, 300))
    >>> d = metaeval.agreement_difference((h, j1), (h, j2), statistic="gwet_ac2", n_resamples=200, rng=1)
    >>> d.get(set="a - b").estimate > 0
    True
    """
    if ci_method is None or ci_method == "analytic":
        raise ValueError("agreement_difference needs a bootstrap ci_method ('bca', 'percentile', 'basic')")

    fa, keys_a, scale_a = _side_frame(a, "a", cluster)
    fb, keys_b, scale_b = _side_frame(b, "b", cluster)
    if keys_a != keys_b:
        raise InputError(f"a and b are keyed differently ({keys_a} vs {keys_b})")
    m = fa.merge(fb, on=keys_a, how="outer", sort=True)
    scale = scale or scale_a or scale_b or Scale.infer(m["r_a"], m["c_a"], m["r_b"], m["c_b"])
    if scale_a is not None and scale_b is not None and scale_a.levels != scale_b.levels:
        raise InputError(f"a and b use different scales: {scale_a.levels} and {scale_b.levels}")
    k = scale.k
    cells = []
    for s in ("a", "b"):
        r, c = scale.codes(m[f"r_{s}"]), scale.codes(m[f"c_{s}"])
        present = ~(np.isnan(m[f"r_{s}"].to_numpy(dtype=float)) | np.isnan(m[f"c_{s}"].to_numpy(dtype=float)))
        if ((r < 0) | (c < 0))[present].any():
            raise InputError(f"labels of {s} outside the scale {scale.levels}")
        cells.append(np.where(present, r * k + c, -1))
    cl = None
    if cluster is not None:
        if isinstance(cluster, str):
            cl = m["cl_a"].where(m["cl_a"].notna(), m["cl_b"]).to_numpy()
        else:
            cl = np.asarray(cluster)
            if len(cl) != len(m):
                raise InputError(f"cluster has {len(cl)} entries for {len(m)} items")
    units = shared_table_units(np.column_stack(cells), k * k, cluster=cl)
    td0 = TableData(np.zeros((k, k), dtype=np.int64), Units(np.zeros((1, 1)), [0]), scale, 0)
    bound = _named(statistic, td0, weights)
    if bound.statistic.components is not None:
        raise ValueError(f"agreement_difference needs a scalar statistic, got the vector statistic {statistic!r}")
    f = bound.kernel(k, _levels(td0))

    def kern(S):
        va, vb = f(S[:, : k * k]), f(S[:, k * k:])
        return np.stack([va, vb, va - vb], axis=1)

    res = bootstrap(kern, units, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                rng=rng)
    n_a, n_b = int((cells[0] >= 0).sum()), int((cells[1] >= 0).sum())
    out = ResultSet(name="agreement_difference")
    p = res.pvalue(0.0)
    ests = res.estimates([bound.name] * 3, n=[n_a, n_b, int(len(m))], pvalues=[None, None, float(p[2])])
    for e, label in zip(ests, ("a", "b", "a - b")):
        out.append_with(e, set=label)
    return out
