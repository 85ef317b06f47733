"""Results of the pairwise functions, and the one place where they call the resampling engine.

Defaults
--------
Win rates, agreement and position bias use the engine's defaults
(:data:`DEFAULT_N_RESAMPLES`, :data:`DEFAULT_CI_METHOD`). The functions that refit a model on every
replicate — :func:`~metaeval.bradley_terry`, :func:`~metaeval.model_rank_correlation` and
:func:`~metaeval.length_controlled_win_rate` — default to :data:`MODEL_N_RESAMPLES` percentile
replicates: BCa's jackknife refits the model once more per resampling unit (400 items in
``battles_like``, 805 instructions in AlpacaEval: as many extra Newton fits as replicates), and
the percentile interval of refitted strengths is what Chatbot Arena reports. Every function takes
``ci_method=None`` for the point estimate alone (no resampling, no seed).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from ..core import resample as _resample
from ..core.resample import BootstrapResult, Units, bootstrap
from ..core.results import FRAME_COLUMNS, ConfidenceInterval, Estimate, ResultSet

#: Replicates and interval method of the resampling functions (the engine's defaults).
DEFAULT_N_RESAMPLES: int = getattr(_resample, "DEFAULT_N_RESAMPLES", 2000)
DEFAULT_CI_METHOD: str = getattr(_resample, "DEFAULT_CI_METHOD", "bca")
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

    def __str__(self) -> str:
        lines = []
        for e, k in zip(self, self.keys):
            tag = ", ".join(f"{a}={b}" for a, b in k.items())
            lines.append(f"[{tag}] {e}")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# the engine
# --------------------------------------------------------------------------------------------

def check_ci_method(ci_method) -> None:
    """Raise unless ``ci_method`` is None (point estimate only) or one of the engine's methods."""
    if ci_method is not None and ci_method not in _resample.CI_METHODS:
        raise ValueError(f"ci_method must be None (point estimate only) or one of {_resample.CI_METHODS}, "
                         f"got {ci_method!r}")


def _point_only(kernel, units: Units, confidence_level) -> BootstrapResult:
    # until the engine's ci_method=None (BootstrapResult.point) lands
    theta = np.atleast_2d(np.asarray(kernel(units.total()[None, :]), dtype=float))[0]
    nan = np.full(theta.shape, np.nan)
    return BootstrapResult(theta_hat=theta, replicates=None, low=nan, high=nan, se=nan, bias=nan, z0=nan,
                           accel=nan, n_nan=np.zeros(theta.shape, dtype=np.int64), method="none",
                           confidence_level=confidence_level, n_resamples=0, unit=units.kind,
                           n_units=units.n_units, seed=None)


def run_bootstrap(kernel, units: Units, *, n_resamples, ci_method, confidence_level, rng,
                  n_units: int | None = None) -> BootstrapResult:
    """The engine on a vectorized kernel; ``ci_method=None`` evaluates the point estimate only.

    NaN replicates (a model without battles in a resample, a fit that does not converge) are
    counted per estimate (``extra["n_nan_replicates"]``) instead of warning once per call; every
    other warning of the engine (too few clusters) reaches the caller. ``n_units`` overrides the
    number of units reported for a point estimate (for callers that pass one summed unit then).
    """
    check_ci_method(ci_method)
    if ci_method is None and not hasattr(BootstrapResult, "point"):
        res = _point_only(kernel, units, confidence_level)
    else:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*bootstrap replicates are undefined")
            res = bootstrap(kernel, units, n_resamples=n_resamples, ci_method=ci_method,
                            confidence_level=confidence_level, rng=rng)
    if ci_method is None and n_units is not None:
        res = dataclasses.replace(res, n_units=int(n_units))
    return res


def estimate(name: str, res: BootstrapResult, j: int, n, extra: dict | None = None) -> Estimate:
    """The Estimate of column ``j`` of a bootstrap result (the engine's ``BootstrapResult.estimates``)."""
    if hasattr(res, "estimates"):
        return res.estimates({j: name}, n=float(n), extra=extra)[0]
    return Estimate(
        statistic=name, estimate=float(res.theta_hat[j]),
        ci=ConfidenceInterval(float(res.low[j]), float(res.high[j]), res.confidence_level, res.method),
        se=float(res.se[j]), bias=float(res.bias[j]), pvalue=None, n=int(round(float(n))), unit=res.unit,
        n_units=res.n_units, n_resamples=res.n_resamples, seed=res.seed,
        replicates=None if res.replicates is None else res.replicates[:, j],
        extra={"z0": float(res.z0[j]), "a": float(res.accel[j]), "n_nan_replicates": int(res.n_nan[j]),
               **res.extra, **(extra or {})})


def stamp(out: PairwiseResult, seed) -> PairwiseResult:
    """Report the call's seed on every resampled estimate (it reproduces every bootstrap of the call,
    which draw their own seeds from it in turn); returns ``out``."""
    if seed is None:
        return out
    for i, e in enumerate(out):
        if e.n_resamples > 0 and e.seed != seed:
            list.__setitem__(out, i, dataclasses.replace(e, seed=seed))
    return out
