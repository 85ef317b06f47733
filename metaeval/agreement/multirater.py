"""Agreement among many raters: Krippendorff's alpha and Fleiss' kappa."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..core.errors import InputError, UndefinedStatisticWarning
from ..core.resample import Units
from ..core.results import Estimate
from ..core.scale import Scale
from .coefficients import TableData, _alpha_from_coincidence, _coef, _run

__all__ = ["krippendorff_alpha", "fleiss_kappa"]


def _coincidence_units(data, levels=None):
    """Per-item coincidence contributions from a raters × items array (NaN = missing)."""
    a = np.asarray(data, dtype=float)
    if a.ndim != 2:
        raise InputError(f"reliability data must be raters × items (2-D), got {a.ndim}-D")
    vals = np.unique(a[~np.isnan(a)]) if levels is None else np.asarray(levels, dtype=float)
    if len(vals) < 1:
        raise InputError("no values in the reliability data")
    present = ~np.isnan(a)
    idx = np.clip(np.searchsorted(vals, a), 0, len(vals) - 1)
    bad = present & (vals[idx] != a)
    if bad.any():
        raise InputError(f"values not among levels=: {np.unique(a[bad]).tolist()}",
                         fix="declare every value in levels=, or clean the data")
    idx = np.where(present, idx, -1)
    v = len(vals)
    counts = np.zeros((a.shape[1], v))
    for r in range(a.shape[0]):
        ok = idx[r] >= 0
        np.add.at(counts, (np.flatnonzero(ok), idx[r][ok]), 1)
    m = counts.sum(axis=1)
    pairable = m >= 2
    counts, m = counts[pairable], m[pairable]
    contrib = (counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(v)[None]) / (m - 1)[:, None, None]
    return contrib.reshape(len(counts), v * v), vals, pairable


def krippendorff_alpha(data, *, level="nominal", item=None, rater=None, value=None, levels=None, cluster=None,
                       ci_method="bca", n_resamples=2000, confidence_level=0.95, rng=None) -> Estimate:
    """Krippendorff's alpha for any number of raters, with missing values (Krippendorff 2011).

    α = 1 − D_o/D_e from the coincidence matrix o_ck = Σ_u (pairs c–k in unit u)/(m_u − 1);
    δ² nominal, ordinal (from the marginals), interval or ratio. Units with fewer than two values
    are left out. The bootstrap resamples units (items), or clusters of items.

    Parameters
    ----------
    data : array (raters × items, NaN = missing), a long DataFrame, or a Paired
        The layout of the ``krippendorff`` package; a long frame needs ``item``, ``rater`` and
        ``value`` column names.
    level : {"nominal", "ordinal", "interval", "ratio"}
    levels : sequence, optional
        All possible values (matters for ordinal alpha only through unused levels: none).
    cluster : array-like (one per item, in column order) or str (a column of the long frame)

    Validated against the ``krippendorff`` package and Krippendorff's (2011) reliability-data
    example (nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797).
    """
    from ..data.alignment import Paired

    cl = None
    if isinstance(data, Paired):
        arr = np.vstack([data.reference, data.candidate])
        cl = data._column(cluster) if cluster is not None else None
    elif isinstance(data, pd.DataFrame):
        if item is None or rater is None or value is None:
            raise ValueError("a long DataFrame needs item=, rater= and value= column names")
        wide = data.pivot_table(index=rater, columns=item, values=value, aggfunc="first", sort=True)
        arr = wide.to_numpy(dtype=float)
        if cluster is not None:
            cmap = data.groupby(item)[cluster].first() if isinstance(cluster, str) else None
            if cmap is None:
                raise ValueError("with a long DataFrame, cluster must be a column name")
            cl = cmap.reindex(wide.columns).to_numpy()
    else:
        arr = np.asarray(data, dtype=float)
        cl = None if cluster is None else np.asarray(cluster)
    X, vals, pairable = _coincidence_units(arr, levels)
    n_pairable = int(pairable.sum())
    v = len(vals)
    if cl is not None:
        cl = np.asarray(cl)[pairable]
        _, cid = np.unique(cl, return_inverse=True)
        Xc = np.zeros((cid.max() + 1, X.shape[1]))
        np.add.at(Xc, cid, X)
        units = Units(Xc, np.ones(len(Xc), dtype=np.int64), kind="clusters")
    else:
        # group identical contributions (rounded only to find them; the exact rows are kept)
        _, first, inv = np.unique(np.round(X, 12), axis=0, return_index=True, return_inverse=True)
        units = Units(X[first], np.bincount(inv.ravel(), minlength=len(first)), kind="items")

    def kern(S):
        o = np.asarray(S, dtype=float).reshape(-1, v, v)
        return _alpha_from_coincidence(o, vals, level)

    td = TableData(np.zeros((2, 2)), units, Scale.infer(vals) if v > 1 else Scale((0, 1)), n_pairable)
    name = f"krippendorff_alpha_{level}"
    est = _run(kern, td, name, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
               rng=rng, warn_names=[])[0]
    if np.isnan(est.estimate):
        warnings.warn(f"{name} is undefined: no variation in the values (expected disagreement is 0)",
                      UndefinedStatisticWarning, stacklevel=2)
    return est


def fleiss_kappa(ratings=None, *, counts=None, cluster=None, ci_method="bca", n_resamples=2000,
                 confidence_level=0.95, rng=None) -> Estimate:
    """Fleiss' kappa for n raters per subject (Fleiss 1971).

    P_i = (Σ_j n_ij² − n)/(n(n − 1)), P̄ = mean P_i, p_j = Σ_i n_ij/(N n), P̄_e = Σ p_j²,
    κ = (P̄ − P̄_e)/(1 − P̄_e). Subjects are the resampling units.

    Parameters
    ----------
    ratings : array (subjects × raters) of labels, NaN not allowed
    counts : array (subjects × categories), alternatively
        How many raters put each subject in each category; every row must sum to the same n.

    Validated against statsmodels' ``fleiss_kappa`` and Fleiss (1971), whose diagnoses example gives 0.430.
    """
    if (ratings is None) == (counts is None):
        raise ValueError("pass ratings (subjects × raters) or counts= (subjects × categories)")
    if counts is None:
        r = np.asarray(ratings, dtype=float)
        if r.ndim != 2 or np.isnan(r).any():
            raise InputError("ratings must be a complete subjects × raters array (no missing values)",
                             fix="use krippendorff_alpha for missing ratings")
        cats, idx = np.unique(r, return_inverse=True)
        idx = idx.reshape(r.shape)
        cnt = np.zeros((r.shape[0], len(cats)))
        for j in range(r.shape[1]):
            np.add.at(cnt, (np.arange(r.shape[0]), idx[:, j]), 1)
    else:
        cnt = np.asarray(counts, dtype=float)
    n_r = cnt.sum(axis=1)
    if cnt.ndim != 2 or len(cnt) == 0 or not np.allclose(n_r, n_r[0]) or n_r[0] < 2:
        raise InputError("every subject needs the same number (≥ 2) of ratings",
                         fix="use krippendorff_alpha for unequal numbers of ratings")
    n = n_r[0]
    k = cnt.shape[1]
    P = ((cnt**2).sum(axis=1) - n) / (n * (n - 1))
    X = np.hstack([cnt, P[:, None], np.ones((len(cnt), 1))])
    if cluster is not None:
        _, cid = np.unique(np.asarray(cluster), return_inverse=True)
        Xc = np.zeros((cid.max() + 1, X.shape[1]))
        np.add.at(Xc, cid, X)
        units = Units(Xc, np.ones(len(Xc), dtype=np.int64), kind="clusters")
    else:
        uniq, inv = np.unique(X, axis=0, return_inverse=True)
        units = Units(uniq, np.bincount(inv.ravel(), minlength=len(uniq)), kind="items")

    def kern(S):
        S = np.asarray(S, dtype=float)
        N = S[:, -1]
        with np.errstate(invalid="ignore", divide="ignore"):
            pbar = S[:, -2] / N
            pj = S[:, :k] / (N * n)[:, None]
            pe = (pj**2).sum(axis=1)
        return _coef(pbar, pe)

    td = TableData(np.zeros((2, 2)), units, Scale((0, 1)), len(cnt))
    return _run(kern, td, "fleiss_kappa", n_resamples=n_resamples, ci_method=ci_method,
                confidence_level=confidence_level, rng=rng, warn_names=[])[0]
