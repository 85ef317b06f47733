"""Pair counts of two score vectors, vectorised over many groups, and every Kendall variant from them.

For a group of n scored outputs with human scores h and judge (metric) scores m, each of the
N = n(n − 1)/2 pairs is one of: concordant (C), discordant (D), tied in the human scores only (T_h),
tied in the metric only (T_m), tied in both (T_hm). A metric tie is ``|Δm| ≤ ε`` (ε = 0: equality).
Every Kendall-type method of :mod:`metaeval.levels` is a function of these five counts (and, for
τ_c, of the number of distinct values), so they are counted once per group.

Two ways to count, both over arrays ``(G, n)`` of G groups with a validity mask:

* sort-based (ε = 0, any n): ties from run lengths of sorted values, discordant pairs as the strict
  inversions of the metric ranks after a lexicographic sort on (human, metric), counted by a
  bottom-up merge over all groups at once (``log₂ n`` vectorised passes). Missing cells are moved
  past every valid value in both scores, and the pairs they form are subtracted exactly;
* broadcasting (ε > 0, or small groups): the n × n sign matrices of each group, in chunks of groups.

References
----------
Kendall (1945); Deutsch, Foster & Freitag (2023), "Ties Matter" (τ_23, acc_23, tie calibration);
mt-metrics-eval's ``stats.KendallVariants`` and ``tau_optimization`` (same counts; checked in
tests/test_levels_reference.py).

Examples
--------
>>> import numpy as np
>>> h = np.array([[1.0, 2, 2, 3]]); m = np.array([[1.0, 3, 2, 2]])
>>> c = pair_counts(h, m)
>>> [int(c[k][0]) for k in ("con", "dis", "t_h", "t_m", "t_hm")]
[3, 1, 1, 1, 0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_counts", "kendall_from_counts", "calibrate_epsilon", "KENDALL_VARIANTS"]

#: Kendall-type methods computed from the pair counts.
KENDALL_VARIANTS = ("kendall", "tau_c", "tau_23", "acc_23", "kendall_like", "pairwise_accuracy")

# broadcasting is used up to this group size when ε = 0 (above: sort-based)
_BROADCAST_MAX_N = 48
# at most this many pair elements per broadcasting chunk
_CHUNK_PAIRS = 4_000_000


def _run_ties(sorted_vals: np.ndarray, valid_sorted: np.ndarray) -> np.ndarray:
    """Tied pairs Σ t(t−1)/2 over runs of equal values in each row (rows sorted, invalid at the end)."""
    g, n = sorted_vals.shape
    if n < 2:
        return np.zeros(g)
    same = (sorted_vals[:, 1:] == sorted_vals[:, :-1]) & valid_sorted[:, 1:] & valid_sorted[:, :-1]
    idx = np.broadcast_to(np.arange(n), (g, n))
    new = np.concatenate([np.ones((g, 1), bool), ~same], axis=1)
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    return ((idx - start) * valid_sorted).sum(axis=1).astype(float)


def _distinct(vals: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Distinct valid values per row."""
    big = np.where(valid, vals, np.inf)
    s = np.sort(big, axis=1)
    vs = np.sort(~valid, axis=1) == 0   # valid first after sorting (invalid are +inf)
    if s.shape[1] == 0:
        return np.zeros(s.shape[0])
    new = np.concatenate([np.ones((s.shape[0], 1), bool), s[:, 1:] != s[:, :-1]], axis=1)
    return (new & vs).sum(axis=1).astype(float)


def _dense_ranks(vals: np.ndarray) -> np.ndarray:
    """Dense ranks 0.. of each row (equal values share a rank)."""
    order = np.argsort(vals, axis=1, kind="stable")
    s = np.take_along_axis(vals, order, axis=1)
    new = np.concatenate([np.zeros((s.shape[0], 1), np.int64), (s[:, 1:] != s[:, :-1]).astype(np.int64)], axis=1)
    r_sorted = np.cumsum(new, axis=1)
    ranks = np.empty_like(r_sorted)
    np.put_along_axis(ranks, order, r_sorted, axis=1)
    return ranks


def _inversions(y: np.ndarray) -> np.ndarray:
    """Strict inversions #{i < j : y_i > y_j} of each row of integer ranks y (0 ≤ y < n), vectorised.

    Bottom-up merge: at block size s, every right block counts, for each of its values, the values
    of its left neighbour block that are larger (one ``searchsorted`` over all blocks of all rows,
    made globally sorted by adding block offsets), then each pair of blocks is sorted.
    """
    g, n = y.shape
    if n < 2:
        return np.zeros(g)
    p = 1 << int(np.ceil(np.log2(n)))
    a = np.full((g, p), n, dtype=np.int64)          # padding: larger than every rank, at the end
    a[:, :n] = y
    total = np.zeros(g, dtype=np.int64)
    span = n + 1
    s = 1
    while s < p:
        nb = p // (2 * s)
        blocks = a.reshape(g, nb, 2, s)
        left = blocks[:, :, 0, :]
        right = blocks[:, :, 1, :]
        off = (np.arange(g * nb, dtype=np.int64) * span).reshape(g, nb, 1)
        lflat = (left + off).ravel()
        pos = np.searchsorted(lflat, (right + off).ravel(), side="right").reshape(g, nb, s)
        start = (np.arange(g * nb, dtype=np.int64) * s).reshape(g, nb, 1)
        le = pos - start                           # left values ≤ each right value
        total += (s - le).sum(axis=(1, 2))
        a = np.sort(blocks.reshape(g, nb, 2 * s), axis=2).reshape(g, p)
        s *= 2
    return total.astype(float)


def _counts_sorted(h, m, valid):
    """(con, dis, t_h, t_m, t_hm, n_pairs, n_valid) per row, ε = 0, sort-based."""
    g, n = h.shape
    nv = valid.sum(axis=1).astype(float)
    ninv = n - nv
    hi = np.where(valid, h, np.nan)
    mi = np.where(valid, m, np.nan)
    # dense ranks among valid values; invalid cells get one rank above every valid value
    hr = _dense_ranks(np.where(valid, hi, np.inf))
    mr = _dense_ranks(np.where(valid, mi, np.inf))
    order = np.lexsort((mr, hr), axis=1)
    hs = np.take_along_axis(hr, order, axis=1)
    ms = np.take_along_axis(mr, order, axis=1)
    vs = np.take_along_axis(valid, order, axis=1)
    # invalid cells sit at the end in both scores and among themselves in ascending metric rank:
    # they form no inversions with valid cells (larger in both) nor among themselves (sorted)
    dis = _inversions(ms)
    hsorted = np.sort(np.where(valid, hr, -1), axis=1)   # invalid first: rank -1
    vh = hsorted >= 0
    n_h = _run_ties(hsorted, vh)
    msorted = np.sort(np.where(valid, mr, -1), axis=1)
    vm = msorted >= 0
    n_m = _run_ties(msorted, vm)
    joint_same = np.concatenate([np.zeros((g, 1), bool),
                                 (hs[:, 1:] == hs[:, :-1]) & (ms[:, 1:] == ms[:, :-1]) & vs[:, 1:] & vs[:, :-1]],
                                axis=1)
    idx = np.broadcast_to(np.arange(n), (g, n))
    start = np.maximum.accumulate(np.where(~joint_same, idx, 0), axis=1)
    n_hm = ((idx - start) * vs).sum(axis=1).astype(float)
    del ninv
    n_pairs = nv * (nv - 1) / 2
    t_hm = n_hm
    t_h = n_h - n_hm
    t_m = n_m - n_hm
    con = n_pairs - dis - t_h - t_m - t_hm
    return con, dis, t_h, t_m, t_hm, n_pairs, nv


def _counts_broadcast(h, m, valid, epsilon):
    """(con, dis, t_h, t_m, t_hm, n_pairs, n_valid) per row by n × n sign matrices (chunks of rows)."""
    g, n = h.shape
    out = np.zeros((7, g))
    step = max(1, _CHUNK_PAIRS // max(1, n * n))
    iu = np.triu_indices(n, 1)
    for a in range(0, g, step):
        b = min(g, a + step)
        hh, mm, vv = h[a:b], m[a:b], valid[a:b]
        dh = (hh[:, :, None] - hh[:, None, :])[:, iu[0], iu[1]]
        dm = (mm[:, :, None] - mm[:, None, :])[:, iu[0], iu[1]]
        ok = (vv[:, :, None] & vv[:, None, :])[:, iu[0], iu[1]]
        th = dh == 0
        tm = np.abs(dm) <= epsilon if epsilon > 0 else dm == 0
        sh = np.sign(dh)
        sm = np.sign(dm)
        con = (~th & ~tm & (sh == sm) & ok).sum(axis=1)
        dis = (~th & ~tm & (sh != sm) & ok).sum(axis=1)
        out[0, a:b] = con
        out[1, a:b] = dis
        out[2, a:b] = (th & ~tm & ok).sum(axis=1)
        out[3, a:b] = (~th & tm & ok).sum(axis=1)
        out[4, a:b] = (th & tm & ok).sum(axis=1)
        out[5, a:b] = ok.sum(axis=1)
        out[6, a:b] = vv.sum(axis=1)
    return tuple(out)


def pair_counts(h, m, valid=None, *, epsilon: float = 0.0, distinct: bool = False) -> dict:
    """Pair counts of each row of ``h`` and ``m`` (arrays ``(G, n)``; rows are groups).

    Parameters
    ----------
    h, m : array (G, n)
        Human and metric scores; each row one group.
    valid : bool array (G, n), optional
        Cells that take part (default: every cell not NaN in either).
    epsilon : float
        Metric tie threshold: a pair is a metric tie when ``|Δm| ≤ epsilon`` (0: equality).
    distinct : bool
        Also count the distinct valid human and metric values per row (τ_c needs them).

    Returns
    -------
    dict of numpy.ndarray (G,)
        ``con``, ``dis``, ``t_h``, ``t_m``, ``t_hm``, ``n_pairs``, ``n`` (valid cells), and with
        ``distinct=True`` ``distinct_h``, ``distinct_m``.

    References
    ----------
    Kendall (1945); mt-metrics-eval ``stats._MatrixSufficientStatistics`` and
    ``_FenwickTreeSufficientStatistics`` (same five counts; tests/test_levels_reference.py).

    Examples
    --------
    >>> import numpy as np
    >>> c = pair_counts(np.array([[1.0, 2, 3]]), np.array([[1.0, 1.05, 3]]), epsilon=0.1)
    >>> int(c["con"][0]), int(c["t_m"][0])
    (2, 1)
    """
    h = np.atleast_2d(np.asarray(h, dtype=float))
    m = np.atleast_2d(np.asarray(m, dtype=float))
    if valid is None:
        valid = ~(np.isnan(h) | np.isnan(m))
    valid = np.asarray(valid, dtype=bool)
    if epsilon < 0:
        raise ValueError(f"epsilon must be non-negative, got {epsilon}")
    n = h.shape[1]
    if epsilon > 0 or n <= _BROADCAST_MAX_N:
        con, dis, t_h, t_m, t_hm, n_pairs, nv = _counts_broadcast(np.where(valid, h, 0.0), np.where(valid, m, 0.0),
                                                                  valid, epsilon)
    else:
        con, dis, t_h, t_m, t_hm, n_pairs, nv = _counts_sorted(h, m, valid)
    out = {"con": con, "dis": dis, "t_h": t_h, "t_m": t_m, "t_hm": t_hm, "n_pairs": n_pairs, "n": nv}
    if distinct:
        out["distinct_h"] = _distinct(h, valid)
        out["distinct_m"] = _distinct(m, valid)
    return out


def kendall_from_counts(c: dict, variant: str) -> np.ndarray:
    """A Kendall-type coefficient of each group from its pair counts (NaN where undefined).

    Parameters
    ----------
    c : dict
        :func:`pair_counts` output (with ``distinct=True`` for ``"tau_c"``).
    variant : {"kendall", "tau_c", "tau_23", "acc_23", "pairwise_accuracy", "kendall_like"}
        τ_b = (C − D)/√((N − T_m − T_hm)(N − T_h − T_hm)); τ_c = 2(C − D)/(n²(k − 1)/k) with k the
        smaller number of distinct values; τ_23 = (C + T_hm − D − T_h − T_m)/N;
        acc_23 = pairwise accuracy = (C + T_hm)/N; WMT20's Kendall-like = (C − D − T_m)/(C + D + T_m)
        over the pairs not tied in the human scores (a metric tie counts as discordant).

    Returns
    -------
    numpy.ndarray (G,)

    References
    ----------
    Kendall (1945) for τ_b; Stuart (1953) for τ_c (scipy ``kendalltau(variant="c")``); Deutsch,
    Foster & Freitag (2023) for τ_23 and acc_23; Mathur et al. (2020), WMT20 metrics task, for
    Kendall-like; Kocmi et al. (2021) for pairwise accuracy.

    Examples
    --------
    >>> c = pair_counts([[1.0, 2, 3, 4]], [[1.0, 3, 2, 4]])
    >>> round(float(kendall_from_counts(c, "kendall")[0]), 12)
    0.666666666667
    """
    con, dis, t_h, t_m, t_hm, n_pairs = (np.asarray(c[k], dtype=float) for k in
                                         ("con", "dis", "t_h", "t_m", "t_hm", "n_pairs"))
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "kendall":
            den = np.sqrt(n_pairs - t_m - t_hm) * np.sqrt(n_pairs - t_h - t_hm)
            out = np.where((den > 0) & (n_pairs > 0), (con - dis) / den, np.nan)
        elif variant == "tau_c":
            k = np.minimum(c["distinct_h"], c["distinct_m"])
            n = np.asarray(c["n"], dtype=float)
            tie_all = (t_h + t_hm == n_pairs) | (t_m + t_hm == n_pairs)
            out = np.where(~tie_all & (n_pairs > 0), 2 * (con - dis) / (n ** 2 * (k - 1) / k), np.nan)
        elif variant == "tau_23":
            out = np.where(n_pairs > 0, (con + t_hm - dis - t_h - t_m) / n_pairs, np.nan)
        elif variant in ("acc_23", "pairwise_accuracy"):
            out = np.where(n_pairs > 0, (con + t_hm) / n_pairs, np.nan)
        elif variant == "kendall_like":
            den = con + dis + t_m
            out = np.where(den > 0, (con - dis - t_m) / den, np.nan)
        else:
            raise ValueError(f"unknown Kendall variant {variant!r}; known: {', '.join(KENDALL_VARIANTS)}")
    return out


def _pair_arrays(h, m, valid):
    """Upper-triangle pair arrays of each row: |Δm|, human tie, correct at ε = 0, valid; (G, P) each."""
    g, n = h.shape
    iu = np.triu_indices(n, 1)
    dh = (h[:, :, None] - h[:, None, :])[:, iu[0], iu[1]]
    dm = (m[:, :, None] - m[:, None, :])[:, iu[0], iu[1]]
    ok = (valid[:, :, None] & valid[:, None, :])[:, iu[0], iu[1]]
    return np.abs(dm), dh == 0, np.sign(dh) == np.sign(dm), ok


def calibrate_epsilon(h, m, valid=None, *, variant: str = "acc_23") -> tuple[np.ndarray, np.ndarray]:
    """Tie calibration: the one ε shared by all groups that maximises the mean of acc_23 (or τ_23).

    Parameters
    ----------
    h, m : array (R, G, n) or (G, n)
        Human and metric scores, G groups of n; a leading axis R calibrates R data sets at once
        (bootstrap replicates).
    valid : bool array of the same shape, optional
        Cells that take part (default: not NaN in either).
    variant : {"acc_23", "tau_23"}

    Returns
    -------
    value, epsilon : numpy.ndarray (R,)
        The largest mean over groups (groups with at least one valid pair) and the smallest ε that
        attains it. Candidates are 0 and every distinct |Δm| of a valid pair; a pair becomes a
        metric tie when |Δm| ≤ ε (it then counts as correct exactly when the humans tie it).

    References
    ----------
    Deutsch, Foster & Freitag (2023), "Ties Matter", §5; mt-metrics-eval ``stats.KendallWithTiesOpt``
    with ``sample_rate=1`` (tests/test_levels_reference.py).

    Examples
    --------
    >>> import numpy as np
    >>> h = np.array([[1.0, 1, 2, 3]]); m = np.array([[0.50, 0.52, 0.9, 1.4]])
    >>> value, eps = calibrate_epsilon(h, m)
    >>> float(value[0]), round(float(eps[0]), 2)
    (1.0, 0.02)
    """
    h = np.asarray(h, dtype=float)
    m = np.asarray(m, dtype=float)
    one = h.ndim == 2
    if one:
        h, m = h[None], m[None]
        if valid is not None:
            valid = np.asarray(valid, bool)[None]
    if valid is None:
        valid = ~(np.isnan(h) | np.isnan(m))
    r, g, n = h.shape
    hz = np.where(valid, h, 0.0).reshape(r * g, n)
    mz = np.where(valid, m, 0.0).reshape(r * g, n)
    diff, htie, correct, ok = _pair_arrays(hz, mz, valid.reshape(r * g, n))
    p = diff.shape[1]
    npairs = ok.sum(axis=1).astype(float)                       # (R·G,)
    tie_m0 = diff == 0
    if variant == "acc_23":
        base_ok = np.where(tie_m0, htie, correct & ~htie)       # correct at ε = 0: C or T_hm
        after = htie.astype(float)                               # as a metric tie: T_hm correct, T_m not
        base = base_ok.astype(float)
    elif variant == "tau_23":
        base = np.where(tie_m0, np.where(htie, 1.0, -1.0), np.where(htie, -1.0, np.where(correct, 1.0, -1.0)))
        after = np.where(htie, 1.0, -1.0)
    else:
        raise ValueError(f"variant must be 'acc_23' or 'tau_23', got {variant!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(npairs > 0, 1.0 / npairs, 0.0)              # each group's pairs weigh 1/N_g
    base = (base * ok).reshape(r, g, p)
    delta = ((after - np.where(ok, base.reshape(r * g, p), 0.0)) * ok * w[:, None]).reshape(r, g * p)
    n_groups = (npairs > 0).reshape(r, g).sum(axis=1).astype(float)
    start = (base.sum(axis=2) * w.reshape(r, g)).sum(axis=1)     # Σ_g value_g at ε = 0
    d = np.where(ok.reshape(r, g * p), diff.reshape(r, g * p), np.inf)
    order = np.argsort(d, axis=1, kind="stable")
    ds = np.take_along_axis(d, order, axis=1)
    cs = start[:, None] + np.cumsum(np.take_along_axis(delta, order, axis=1), axis=1)
    # a threshold's value is the cumulative sum at the last pair with that |Δm|
    last = np.concatenate([ds[:, 1:] != ds[:, :-1], np.ones((r, 1), bool)], axis=1) & np.isfinite(ds)
    cand = np.where(last, cs, -np.inf)
    # ε = 0 is always a candidate: the value with only exact metric ties
    zero_val = np.where(np.isfinite(ds) & (ds == 0) & last, cs, -np.inf).max(axis=1)
    zero_val = np.where(np.isfinite(zero_val), zero_val, start)
    cand = np.where(ds == 0, -np.inf, cand)
    best_j = np.argmax(cand, axis=1)
    best_other = cand[np.arange(r), best_j]
    use_zero = zero_val >= best_other
    value = np.where(use_zero, zero_val, best_other)
    eps = np.where(use_zero, 0.0, ds[np.arange(r), best_j])
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(n_groups > 0, value / n_groups, np.nan)
    eps = np.where(n_groups > 0, eps, np.nan)
    return value, eps
