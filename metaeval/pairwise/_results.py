"""Results of the pairwise functions, and the one place where they call the resampling engine.

Defaults
--------
Win rates, head-to-head rates, agreement and position bias use the engine's defaults
(``DEFAULT_N_RESAMPLES`` = 2000 replicates, ``DEFAULT_CI_METHOD`` = BCa, from
:mod:`metaeval.core.resample`). The functions that refit a model on every replicate —
:func:`~metaeval.bradley_terry`, :func:`~metaeval.model_rank_correlation` and
:func:`~metaeval.length_controlled_win_rate` — default to :data:`MODEL_N_RESAMPLES` = 1000
percentile replicates, for a documented reason: each replicate is a Newton fit (a weighted GLM
for the length control), and BCa's jackknife adds one more fit per resampling unit (400 items of
``battles_like``, 805 instructions of AlpacaEval; above
:data:`~metaeval.core.resample.JACKKNIFE_MAX_UNITS` unit types, one per group of the engine's
delete-a-group jackknife); the percentile interval of refitted strengths is also what Chatbot
Arena reports. Every function takes ``ci_method=None`` for the point estimate
alone (nothing drawn, no seed).
"""

from __future__ import annotations

import dataclasses
import warnings

import pandas as pd

from ..core.resample import (
    CI_METHODS,
    DEFAULT_CI_METHOD,
    DEFAULT_N_RESAMPLES,
    BootstrapResult,
    Units,
    bootstrap,
    make_rng,
)
from ..core.results import FRAME_COLUMNS, Estimate, ResultSet

__all__ = ["PairwiseResult", "Resampler", "DEFAULT_N_RESAMPLES", "DEFAULT_CI_METHOD", "MODEL_N_RESAMPLES",
           "MODEL_CI_METHOD"]

#: Replicates and interval method of the functions that refit a model per replicate (see above).
MODEL_N_RESAMPLES = 1000
MODEL_CI_METHOD = "percentile"


class PairwiseResult(ResultSet):
    """Estimates of a pairwise analysis with identifying keys and per-row counts.

    ``to_frame()`` gives the key columns (e.g. ``judge``, ``tie_rule``, ``model``, ``opponent``,
    ``group``), then the package's fixed columns (:data:`metaeval.core.results.FRAME_COLUMNS`),
    then counts (``wins``, ``losses``, ``ties`` ...). ``wide()`` puts the tie rules side by side.

    Parameters
    ----------
    estimates : iterable of Estimate, optional
    keys : iterable of dict, optional
        One dict of identifying values per estimate.
    name : str, optional
        The function that produced the result.
    extras : iterable of dict, optional
        Per-estimate counts shown after the fixed columns.

    Attributes
    ----------
    invalid : dict
        The parse-failure policy and how many rows it touched (``policy``, ``n_invalid``,
        ``n_missing``, and per-function details).
    info : dict
        Anything else the function reports (dropped rows, the alignment, fitted coefficients).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> r = metaeval.win_rates(b[b.judge == "human"], tie_rule="fdt", ci_method=None)
    >>> r.to_frame()[["model", "estimate", "wins", "n_battles"]].head(2)
          model  estimate  wins  n_battles
    0  anole-7b  0.460606    65        165
    1      emu3  0.572414    72        145
    """

    def __init__(self, estimates=(), keys=None, name: str = "", extras=None):
        super().__init__(estimates, keys, name)
        self.extras = list(extras) if extras is not None else [{} for _ in self]
        self.invalid: dict = {}
        self.info: dict = {}

    def append_with(self, est: Estimate, extra: dict | None = None, **key) -> None:
        """Append an estimate with its keys and its counts.

        Parameters
        ----------
        est : Estimate
        extra : dict, optional
            Counts shown after the fixed columns.
        **key
            Identifying values (``model=``, ``tie_rule=`` ...).

        Returns
        -------
        None

        Examples
        --------
        >>> from metaeval.core.results import ConfidenceInterval, Estimate
        >>> r = PairwiseResult()
        >>> r.append_with(Estimate("win_rate", 0.5, ConfidenceInterval(0.4, 0.6, 0.95, "bca")), {"wins": 3},
        ...               model="x")
        >>> r.to_frame()[["model", "estimate", "wins"]].values.tolist()
        [['x', 0.5, 3]]
        """
        super().append_with(est, **key)
        self.extras.append(dict(extra or {}))

    def to_frame(self) -> pd.DataFrame:
        """Key columns, the package's fixed columns, then the counts.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import metaeval
        >>> b = metaeval.datasets.load("battles_like").battles
        >>> f = metaeval.win_rates(b[b.judge == "human"], tie_rule="fdt", ci_method=None).to_frame()
        >>> list(f.columns[:3])
        ['tie_rule', 'model', 'statistic']
        """
        key_cols, extra_cols = [], []
        for k in self.keys:
            key_cols += [c for c in k if c not in key_cols]
        for x in self.extras:
            extra_cols += [c for c in x if c not in extra_cols and c not in key_cols]
        rows = [{**k, **e.row(), **x} for e, k, x in zip(self, self.keys, self.extras)]
        return pd.DataFrame(rows, columns=key_cols + FRAME_COLUMNS + extra_cols)

    def wide(self, value: str = "estimate", index="model", columns="tie_rule") -> pd.DataFrame:
        """One row per ``index`` and one column per ``columns`` (default: models × tie rules).

        Other key columns that vary (``judge``, ``statistic`` ...) join the index, so no two rows
        are ever averaged together.

        Parameters
        ----------
        value : str
            The column of :meth:`to_frame` to show.
        index : str or list of str
        columns : str

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import metaeval
        >>> b = metaeval.datasets.load("battles_like").battles
        >>> w = metaeval.win_rates(b[b.judge == "human"], ci_method=None).wide()
        >>> list(w.columns)
        ['fdt', 'without_ties', 'tie_zero', 'tie_half']
        """
        f = self.to_frame()
        index = [index] if isinstance(index, str) else list(index)
        keys = []
        for k in self.keys:
            keys += [c for c in k if c not in keys]
        other = [c for c in keys + ["statistic"] if c not in index and c != columns and c in f.columns
                 and f[c].astype(str).nunique() > 1]
        out = f.pivot_table(index=other + index, columns=columns, values=value, aggfunc="first", sort=False,
                            dropna=False)
        out.columns.name = None
        return out


# --------------------------------------------------------------------------------------------
# the engine
# --------------------------------------------------------------------------------------------

def check_ci_method(ci_method) -> None:
    """Raise unless ``ci_method`` is None (point estimate only) or one of the engine's methods."""
    if ci_method is not None and ci_method not in CI_METHODS:
        raise ValueError(f"ci_method must be None (point estimate only) or one of {CI_METHODS}, got {ci_method!r}")


class Resampler:
    """The bootstrap settings of one call of a pairwise function.

    Every bootstrap of the call (several raters, several statistics) draws from one generator, so
    the call's seed — reported on every estimate — reproduces all of them. With
    ``ci_method=None`` nothing is drawn: the engine evaluates the point estimate only and ``rng``
    is not touched.

    Parameters
    ----------
    ci_method : {"bca", "percentile", "basic"} or None
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval.core.resample import Units
    >>> rs = Resampler(ci_method="percentile", n_resamples=200, confidence_level=0.95, rng=3)
    >>> res = rs.run(lambda S: S[:, :1] / S.sum(axis=1, keepdims=True), Units(np.eye(2), [30, 70]))
    >>> res.seed, res.method, float(res.theta_hat[0])
    (3, 'percentile', 0.3)
    """

    def __init__(self, *, ci_method, n_resamples, confidence_level, rng):
        check_ci_method(ci_method)
        self.ci_method, self.n_resamples, self.confidence_level = ci_method, n_resamples, confidence_level
        if ci_method is None:
            self.gen, self.seed = rng, None
        else:
            self.gen, self.seed = make_rng(rng)

    def run(self, kernel, units: Units, *, n_units: int | None = None, bounds=None) -> BootstrapResult:
        """The engine on a vectorized kernel (:func:`metaeval.core.resample.bootstrap`).

        NaN replicates (a model without battles in a resample, a fit that does not converge) are
        counted per estimate (``extra["n_nan_replicates"]``) instead of warning once per call; every
        other warning of the engine (too few clusters) reaches the caller. ``n_units`` overrides the
        number of units reported for a point estimate (for callers that pass one summed unit then).

        Parameters
        ----------
        kernel : callable
            ``(b, D)`` sufficient statistics → ``(b, m)`` values.
        units : Units
        n_units : int, optional
        bounds : (float, float), optional
            The statistic's range; interval ends are clipped to it (the engine's ``bounds=``).

        Returns
        -------
        BootstrapResult
            Its ``seed`` is the call's.
        """
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*bootstrap replicates are undefined")
            res = bootstrap(kernel, units, n_resamples=self.n_resamples, ci_method=self.ci_method,
                            confidence_level=self.confidence_level, rng=self.gen, bounds=bounds)
        if self.ci_method is None:
            return res if n_units is None else dataclasses.replace(res, n_units=int(n_units))
        return dataclasses.replace(res, seed=self.seed)


def estimate(name: str, res: BootstrapResult, j: int, n, extra: dict | None = None) -> Estimate:
    """The Estimate of column ``j`` of a bootstrap result (through ``BootstrapResult.estimates``)."""
    return res.estimates({j: name}, n=float(n), extra=extra)[0]
