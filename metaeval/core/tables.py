"""Sufficient statistics: contingency tables (optionally per cluster) built from label arrays."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..core.scale import Scale

__all__ = ["contingency", "normalize_counts"]


def contingency(reference: ArrayLike, candidate: ArrayLike, scale: Scale | None = None, *,
                cluster: ArrayLike | None = None) -> np.ndarray:
    """Counts of (reference level, candidate level) pairs: the sufficient statistic of agreement.

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
        Rows: reference levels, columns: candidate levels, in the scale's order.

    Raises
    ------
    InputError
        Arrays of different lengths, a label outside the scale, or a cluster array of the wrong
        length.

    References
    ----------
    Equals ``sklearn.metrics.confusion_matrix(reference, candidate, labels=scale.levels)``
    (tests/test_align.py, pooled and per topic; tests/test_agreement.py).

    Examples
    --------
    The ImageCLEF-like validation sample (human vs judge, binary):

    >>> import metaeval as me
    >>> v = me.datasets.load("imageclef_like").validation
    >>> contingency(v["human"], v["judge"])
    array([[85, 20],
           [20, 77]])
    >>> contingency([0, 1, 2, 2], [0, 2, 2, 1], me.Scale((0, 1, 2)), cluster=["a", "a", "b", "b"]).shape
    (2, 3, 3)
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


def normalize_counts(table: ArrayLike, normalize: str | None = None) -> np.ndarray:
    """A K×K table of counts as floats, optionally normalized.

    Parameters
    ----------
    table : array-like (K, K)
        Counts (rows: reference, columns: candidate).
    normalize : {None, "row", "column", "all"}
        ``None``: the counts; ``"row"`` (or ``"true"``): each reference level sums to 1 (recall on
        the diagonal); ``"column"`` (``"col"``, ``"pred"``): precision on the diagonal; ``"all"``:
        the table sums to 1. An empty row or column gives NaN.

    Returns
    -------
    numpy.ndarray of float

    References
    ----------
    ``sklearn.metrics.confusion_matrix``'s ``normalize="true"|"pred"|"all"`` (tests/test_agreement.py).

    Examples
    --------
    >>> normalize_counts([[85, 20], [20, 77]], "row").round(3)
    array([[0.81 , 0.19 ],
           [0.206, 0.794]])
    """
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
