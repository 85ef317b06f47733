"""Sufficient statistics: contingency tables (optionally per cluster) built from label arrays."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..core.scale import Scale

__all__ = ["contingency", "normalize_counts", "as_counts", "MAX_COUNT"]

#: Largest total a table of counts may hold: 2**53, the largest integer below which float64 holds
#: every integer exactly (the statistics compute in float64, and the bootstrap draws the total as an
#: int64). A real table has far fewer items; a larger total is an overflowed or sentinel value.
MAX_COUNT = 2**53


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

    Raises
    ------
    InputError
        A cell that is NaN, infinite or negative, or a total above 2**53 (:func:`as_counts`;
        fractional counts, e.g. design-weighted ones, are fine).

    References
    ----------
    ``sklearn.metrics.confusion_matrix``'s ``normalize="true"|"pred"|"all"`` (tests/test_agreement.py).

    Examples
    --------
    >>> normalize_counts([[85, 20], [20, 77]], "row").round(3)
    array([[0.81 , 0.19 ],
           [0.206, 0.794]])
    """
    t = as_counts(table, name="table", integer=False)
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


def _cell_name(idx: tuple) -> str:
    """``row 0, column 1`` (or ``table 2, row 0, column 1``) for a cell index of a K×K or C×K×K table."""
    idx = tuple(int(i) for i in idx)
    if len(idx) == 2:
        return f"row {idx[0]}, column {idx[1]}"
    if len(idx) == 3:
        return f"table {idx[0]}, row {idx[1]}, column {idx[2]}"
    return "cell " + str(idx)


def as_counts(table: ArrayLike, *, name: str = "table", integer: bool = True) -> np.ndarray:
    """A table of counts, checked: numbers, finite, non-negative, whole (if ``integer``), not overflowing.

    The one place where a table given by the user (``table=``, ``value_counts=``, ``coincidence=``,
    an anticipated design table) is read as counts; every statistic that takes one calls it, so a
    bad cell is refused the same way everywhere.

    Parameters
    ----------
    table : array-like
        Counts of any shape (K×K, C×K×K, items × categories...). Shapes are the caller's to check.
    name : str
        The argument's name, used in the error (``table=``, ``value_counts=`` ...).
    integer : bool
        Counts of items must be whole numbers (default). False for tables that may hold
        proportions or fractional coincidences (Krippendorff's coincidence matrix, an
        anticipated design table).

    Returns
    -------
    numpy.ndarray
        int64 (``integer=True``, values rounded from within 1e-9 of a whole number) or float64.

    Raises
    ------
    InputError
        Naming the argument, the first bad cell and its value, and the fix, for: anything that is
        not a number (text, booleans, complex), a ragged array, NaN or ±inf, a negative count,
        a fractional count (``integer=True``), or counts whose total exceeds :data:`MAX_COUNT`
        (2**53: an int64 or uint64 table that overflowed, or a sentinel such as 2**64 − 1).

    Notes
    -----
    Before 0.3, ``inf`` was cast to an integer (κ of ``[[5, inf], [1, 7]]`` came out as 0.8434,
    the inf read as 0) and tables past 2**63 failed inside numpy or gave "the sample is empty".

    References
    ----------
    tests/test_hostile_numbers.py (hypothesis over random tables with zeros, huge and non-finite
    cells: every table statistic returns sklearn's / statsmodels' value, NaN with a warning, or this
    InputError).

    Examples
    --------
    >>> as_counts([[85, 20], [20, 77.0]])
    array([[85, 20],
           [20, 77]])
    >>> as_counts([[5, float("inf")], [1, 7]])
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: <table>: table= has inf at row 0, column 1. Expected finite, non-negative counts of items. Fix: replace it by the number of items in that cell (0 for none); inf and NaN usually come from a division or a missing value upstream
    """
    src = f"<{name}>"
    expected = "finite, non-negative counts of items" if integer else "finite, non-negative counts or proportions"
    try:
        a = np.asarray(table)
    except ValueError:
        raise InputError(f"{name}= must be a rectangular array of counts; its rows differ in length",
                         source=src, fix="give every row the same number of cells") from None
    if a.dtype.kind == "O":
        try:
            a = a.astype(float)
        except (TypeError, ValueError):
            raise InputError(f"{name}= must hold numbers (counts)", source=src, expected=expected,
                             fix="convert the cells to numbers first") from None
    if a.dtype.kind not in "iuf":
        what = {"b": "booleans", "c": "complex numbers"}.get(a.dtype.kind, f"{a.dtype} values")
        raise InputError(f"{name}= must hold numbers (counts), got {what}", source=src, expected=expected,
                         fix="pass the counts as integers (e.g. numpy.asarray(t, dtype=int))")
    f = a.astype(float)
    bad = ~np.isfinite(f)
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise InputError(f"{name}= has {f[idx]} at {_cell_name(idx)}", source=src, expected=expected,
                         fix="replace it by the number of items in that cell (0 for none); inf and NaN usually "
                             "come from a division or a missing value upstream")
    bad = f < 0
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise InputError(f"{name}= has a negative count, {a[idx]}, at {_cell_name(idx)}", source=src,
                         expected=expected, fix="check how the table was built (a difference of two tables, or a "
                                                "missing-value code such as -1)")
    big = f > MAX_COUNT
    total = float(f.sum())
    if total >= MAX_COUNT / 2 and not big.any():       # near the bound: the exact (Python int) total
        total = sum(int(v) for v in a.ravel().tolist())
    if big.any() or total > MAX_COUNT:
        where = f" ({a[tuple(np.argwhere(big)[0])]} at {_cell_name(tuple(np.argwhere(big)[0]))})" if big.any() else ""
        raise InputError(f"{name}= counts sum to {float(total):.4g}{where}, more than 2**53 (about 9.0e15), the largest "
                         "total metaeval's statistics hold exactly", source=src, expected=expected,
                         fix="look for an overflowed or sentinel value (a -1 stored as an unsigned 2**64 - 1, a "
                             "sum that wrapped around); a real table has far fewer items")
    if not integer:
        return f
    r = np.round(f)
    bad = np.abs(f - r) > 1e-9 * np.maximum(1.0, np.abs(f))
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        raise InputError(f"{name}= has a fractional count, {a[idx]}, at {_cell_name(idx)}", source=src,
                         expected="whole numbers of items",
                         fix="pass counts of items; for a weighted (stratified) design use "
                             "metaeval.estimate_from_validation, or pass the items with strata=")
    return r.astype(np.int64)
