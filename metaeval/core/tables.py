"""Sufficient statistics: contingency tables (optionally per cluster) built from label arrays."""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from ..core.scale import Scale

__all__ = ["contingency", "normalize_counts"]


def contingency(reference, candidate, scale: Scale | None = None, *, cluster=None):
    """Counts of (reference level, candidate level) pairs.

    Parameters
    ----------
    reference, candidate : array-like
        Labels, aligned; pairs where either is NaN are left out.
    scale : Scale, optional
        The levels (rows and columns in this order); inferred from the labels when omitted.
        A label outside the scale raises an InputError (align() applies the out-of-scale policy).
    cluster : array-like, optional
        Cluster id of each pair; the result is then ``(n_clusters, K, K)`` with clusters in sorted
        order (the ids are ``np.unique(cluster)`` of the complete pairs).

    Returns
    -------
    numpy.ndarray of int64, shape (K, K) or (C, K, K)
    """
    r = np.asarray(reference, dtype=float)
    c = np.asarray(candidate, dtype=float)
    if r.shape != c.shape or r.ndim != 1:
        raise InputError(f"reference and candidate must be 1-D and of equal length, got shapes {r.shape} and {c.shape}")
    if scale is None:
        scale = Scale.infer(r, c)
    ok = ~(np.isnan(r) | np.isnan(c))
    ri, ci = scale.codes(r[ok]), scale.codes(c[ok])
    bad = (ri < 0) | (ci < 0)
    if bad.any():
        vals = np.unique(np.concatenate([r[ok][ri < 0], c[ok][ci < 0]]))
        raise InputError(f"labels outside the scale {scale.levels}: {vals.tolist()}",
                         fix="align() with out_of_scale='clip'|'drop'|'missing', or declare a wider Scale")
    k = scale.k
    cell = ri * k + ci
    if cluster is None:
        return np.bincount(cell, minlength=k * k).reshape(k, k).astype(np.int64)
    cl = np.asarray(cluster)
    if len(cl) != len(r):
        raise InputError(f"cluster has {len(cl)} entries for {len(r)} pairs")
    _, cid = np.unique(cl[ok], return_inverse=True)
    n_cl = int(cid.max()) + 1 if len(cid) else 0
    flat = np.bincount(cid * (k * k) + cell, minlength=n_cl * k * k)
    return flat.reshape(n_cl, k, k).astype(np.int64)


def normalize_counts(table, normalize=None) -> np.ndarray:
    """A K×K table of counts as floats: ``None`` (counts), ``"row"`` (each reference level sums to 1:
    recall on the diagonal), ``"column"`` (precision on the diagonal) or ``"all"`` (sums to 1)."""
    t = np.asarray(table, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if normalize is None:
            return t
        if normalize in ("row", "true"):
            return t / t.sum(axis=1, keepdims=True)
        if normalize in ("column", "col", "pred"):
            return t / t.sum(axis=0, keepdims=True)
        if normalize == "all":
            return t / t.sum()
    raise InputError(f"normalize must be None, 'row', 'column' or 'all', got {normalize!r}")
