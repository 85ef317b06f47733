"""Item-level correlation of scores (human vs judge) and intraclass correlation.

For rubric scores (Prometheus-Vision's 1–5, or the mean of a few judge samples) the human and the
judge score each item; :func:`score_correlation` gives Pearson's r, Spearman's rho and Kendall's
tau-b with an interval, and :func:`icc` the intraclass correlations of Shrout & Fleiss (1979).

Resampling on sufficient statistics
-----------------------------------
Scores are discrete, so the data are summarized by the counts of the distinct (x, y) pairs (the
cells of an L1 × L2 table of distinct values). All three coefficients are functions of those
counts: Pearson's r of weighted moments; Spearman's rho is Pearson's r of the midranks, which
follow from the replicate's margins; Kendall's tau-b from the concordant and discordant pair counts,
obtained from 2-D cumulative sums of the table. An iid bootstrap draws the cell counts from a
multinomial (exactly the distribution of the table of n items drawn with replacement); a cluster
bootstrap (items grouped by prompt or topic) draws whole per-cluster tables. See
:mod:`metaeval.core.resample`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import sparse
from scipy import stats as sps

from ..core.errors import InputError, MetaevalWarning, SmallSampleWarning, UndefinedStatisticWarning
from ..core.resample import CI_METHODS, DEFAULT_CI_METHOD, DEFAULT_N_RESAMPLES, Units, bootstrap
from ..core.results import ConfidenceInterval, Estimate, ResultSet

if TYPE_CHECKING:
    from ..data.alignment import Paired

__all__ = ["score_correlation", "mean_of_samples", "icc", "CORRELATION_METHODS", "ICC_KINDS",
           "fisher_z_interval", "r_test_pvalue"]

CORRELATION_METHODS = ("pearson", "spearman", "kendall")
_STAT_NAMES = {"pearson": "pearson_r", "spearman": "spearman_rho", "kendall": "kendall_tau_b"}
_SCIPY_PVALUE = {"pearson": "scipy.stats.pearsonr", "spearman": "scipy.stats.spearmanr",
               "kendall": "scipy.stats.kendalltau"}

#: Fisher-z standard errors: SE(z) = sqrt(c / (n - d)) for each coefficient.
#: Pearson: c = 1, d = 3 (Fisher 1921). Spearman: c = 1.06, d = 3; Kendall: c = 0.437, d = 4
#: (Fieller, Hartley & Pearson 1957).
FISHER_SE = {"pearson": (1.0, 3), "spearman": (1.06, 3), "kendall": (0.437, 4)}

# Size limits of the rank-based bootstrap (see score_correlation, Notes).
MAX_TABLE_CELLS = 250_000      # L1 * L2 for Kendall's dense table
MAX_CELL_TYPES = 2_048         # distinct (x, y) pairs for the iid cell bootstrap
MAX_CLUSTER_ELEMS = 20_000_000  # clusters * distinct pairs for the cluster bootstrap
_KERNEL_ELEMS = 4_000_000      # dense-table elements per kernel sub-batch
#: Above this share of tied pairs the analytic Kendall interval warns (Fieller's variance assumes no ties).
TIE_WARN_SHARE = 0.05


# --------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------

def _is_paired(obj) -> bool:
    return (type(obj).__name__ == "Paired" and hasattr(obj, "reference") and hasattr(obj, "candidate")
            and hasattr(obj, "_column"))


def _numeric(v, name) -> np.ndarray:
    """Float array (1-D, or 2-D items × samples) from array-likes; InputError when not numeric."""
    if isinstance(v, (pd.Series, pd.DataFrame)):
        frame = v.to_frame() if isinstance(v, pd.Series) else v
        conv = frame.apply(pd.to_numeric, errors="coerce")
        bad = (conv.isna() & frame.notna()).to_numpy()
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise InputError(f"{name} must hold numeric scores", source="<input>", text=frame.iat[i, j],
                             fix="map text labels to numbers first")
        arr = conv.to_numpy(dtype=float)
        return arr[:, 0] if isinstance(v, pd.Series) else arr
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must hold numeric scores", source="<input>",
                         fix="map text labels to numbers first") from None
    if arr.ndim == 0:
        raise InputError(f"{name} must be a sequence of scores, got a single value", source="<input>")
    if arr.ndim > 2:
        raise InputError(f"{name} must be 1-D (one score per item) or 2-D (items × samples), got {arr.ndim}-D",
                         source="<input>")
    return arr


def _reduce_samples(arr, name, samples):
    """Items × samples → one score per item (mean of the non-missing samples by default)."""
    if arr.ndim == 1:
        return arr, None
    if arr.shape[1] == 1:
        return arr[:, 0], None
    n_s = (~np.isnan(arr)).sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if samples is None or samples == "mean":
            out = np.nanmean(arr, axis=1)
        elif samples == "median":
            out = np.nanmedian(arr, axis=1)
        elif isinstance(samples, (int, np.integer)) and not isinstance(samples, bool):
            if not -arr.shape[1] <= samples < arr.shape[1]:
                raise InputError(f"samples={samples} but {name} has {arr.shape[1]} sample columns")
            out = arr[:, samples]
            n_s = (~np.isnan(out)).astype(int)
        else:
            raise ValueError(f"samples must be None/'mean', 'median' or a column position, got {samples!r}")
    return out, n_s


def _align_series(x, others):
    """Reorder Series/DataFrames in ``others`` to x's index when the index sets agree."""
    idx = x.index
    if not idx.is_unique:
        raise InputError("x is a Series with a repeated index: cannot align the scores by item",
                         fix="aggregate repeated items first (e.g. mean_of_samples), or pass plain arrays")
    out = []
    for name, o in others:
        if isinstance(o, (pd.Series, pd.DataFrame)):
            if not o.index.is_unique:
                raise InputError(f"{name} has a repeated index: cannot align it with x by item",
                                 fix="aggregate repeated items first (e.g. mean_of_samples)")
            if not o.index.equals(idx):
                only_x = idx.difference(o.index)
                only_o = o.index.difference(idx)
                if len(only_x) or len(only_o):
                    raise InputError(
                        f"x and {name} are indexed by different items ({len(only_x)} only in x, "
                        f"{len(only_o)} only in {name})", text=(list(only_x[:3]) + list(only_o[:3])),
                        fix="join them first, e.g. x.to_frame().join(y, how='inner'), or pass aligned arrays")
                o = o.reindex(idx)
        out.append(o)
    return out


def _is_tables(obj) -> bool:
    return type(obj).__name__ == "PairedTables" and hasattr(obj, "cells") and hasattr(obj, "_check_by")


def _table_scores(t, y, cluster, samples):
    """A PairedTables' cells as weighted pairs: (x, y, cluster ids, info, counts)."""
    if y is not None:
        raise ValueError("pass a PairedTables alone, not with y")
    if samples is not None:
        raise ValueError("samples= applies to items × samples arrays, not to a PairedTables")
    t._require_pairs()
    cells = t.cells
    cl = None
    if cluster is not None:
        if not isinstance(cluster, str):
            t._column(cluster)               # raises: an array aligned with pairs needs rows
        t._check_by(cluster)
        cl = cells[cluster].to_numpy().astype(str)
    xv = cells["reference"].to_numpy(dtype=float)
    yv = cells["candidate"].to_numpy(dtype=float)
    return xv, yv, cl, {"n_dropped": 0}, cells["n"].to_numpy(dtype=np.int64)


def _prepare_scores(x, y, cluster, samples):
    """Complete pairs (x, y), cluster ids, and notes about the input."""
    info = {}
    cl = cluster
    if _is_paired(x):
        if y is not None:
            raise ValueError("pass a Paired alone, not with y")
        paired = x
        paired._require_pairs()
        x, y = paired.reference, paired.candidate
        cl = paired._column(cluster) if cluster is not None else None
    elif y is None:
        if isinstance(x, pd.DataFrame) and x.shape[1] == 2:
            x, y = x.iloc[:, 0], x.iloc[:, 1]
        else:
            arr = _numeric(x, "x")
            if arr.ndim != 2 or arr.shape[1] != 2:
                raise InputError("with y omitted, x must be a Paired or have exactly two columns "
                                 f"(reference, candidate); got shape {arr.shape}", source="<input>")
            x, y = arr[:, 0], arr[:, 1]
    if isinstance(cl, str):
        raise ValueError("cluster may name a column only when x is a Paired; otherwise pass the cluster ids")
    if isinstance(x, pd.Series):
        y, cl = _align_series(x, [("y", y), ("cluster", cl)])
    xa = _numeric(x, "x")
    ya = _numeric(y, "y")
    if len(xa) != len(ya):
        raise InputError(f"x and y have different lengths: {len(xa)} and {len(ya)}",
                         fix="pass the scores of the same items, aligned (see metaeval.align)")
    xa, nsx = _reduce_samples(xa, "x", samples)
    ya, nsy = _reduce_samples(ya, "y", samples)
    for name, ns in (("x", nsx), ("y", nsy)):
        if ns is not None:
            info[f"samples_{name}"] = {"min": int(ns.min()) if len(ns) else 0,
                                       "max": int(ns.max()) if len(ns) else 0,
                                       "mean": float(ns.mean()) if len(ns) else float("nan")}
    if np.isinf(xa).any() or np.isinf(ya).any():
        raise InputError("scores must be finite (found inf)", source="<input>")
    if cl is not None:
        cl = np.asarray(cl.to_numpy() if isinstance(cl, pd.Series) else cl)
        if cl.ndim != 1 or len(cl) != len(xa):
            raise InputError(f"cluster has {len(cl)} entries for {len(xa)} items",
                             fix="pass one cluster id (prompt, topic) per item, aligned with x")
        if pd.isna(cl).any():
            raise InputError(f"cluster has {int(pd.isna(cl).sum())} missing id(s)",
                             fix="give every item a cluster id")
    ok = ~(np.isnan(xa) | np.isnan(ya))
    if not ok.all():
        warnings.warn(f"{int((~ok).sum())} item(s) with a missing score left out", UndefinedStatisticWarning,
                      stacklevel=3)
        xa, ya = xa[ok], ya[ok]
        cl = cl[ok] if cl is not None else None
    info["n_dropped"] = int((~ok).sum())
    return xa, ya, cl, info


def _wcount(index, weights, size):
    """np.bincount as int64 counts, each entry counted ``weights`` times (once when None)."""
    if weights is None:
        return np.bincount(index, minlength=size).astype(np.int64)
    return np.round(np.bincount(index, weights=weights, minlength=size)).astype(np.int64)


class _Cells:
    """Distinct (x, y) pairs: values, cell indices, counts (iid) or per-cluster counts."""

    def __init__(self, x, y, cluster=None, weights=None):
        # weights: how many items each (x, y) row stands for (a PairedTables' cells), None: one each
        self._w = None if weights is None else np.asarray(weights, dtype=np.int64)
        self.ux, ix = np.unique(x, return_inverse=True)
        self.vy, jy = np.unique(y, return_inverse=True)
        self.l1, self.l2 = len(self.ux), len(self.vy)
        flat = ix.astype(np.int64) * self.l2 + jy
        self.flat, inv = np.unique(flat, return_inverse=True)
        inv = inv.ravel()
        self.ic, self.jc = self.flat // self.l2, self.flat % self.l2
        self.d = len(self.flat)
        self.counts = _wcount(inv, self._w, self.d)
        self.xc, self.yc = self.ux[self.ic], self.vy[self.jc]
        self.n = int(len(x)) if self._w is None else int(self._w.sum())
        self.cluster_counts = None
        self.n_clusters = 0
        if cluster is not None:
            _, cid = np.unique(cluster, return_inverse=True)
            cid = cid.ravel()
            self.n_clusters = int(cid.max()) + 1 if len(cid) else 0
            if self.n_clusters * self.d <= MAX_CLUSTER_ELEMS:
                self.cluster_counts = _wcount(cid * self.d + inv, self._w, self.n_clusters * self.d
                                              ).reshape(self.n_clusters, self.d)
            self._cid, self._inv = cid, inv

    def moment_units(self) -> Units:
        """Units for Pearson: per-cell (or per-cluster) sums of 1, dx, dy, dx², dy², dx·dy."""
        mx = self.counts @ self.xc / self.n
        my = self.counts @ self.yc / self.n
        dx, dy = self.xc - mx, self.yc - my
        X = np.column_stack([np.ones(self.d), dx, dy, dx * dx, dy * dy, dx * dy])
        if self.n_clusters:
            Xc = np.zeros((self.n_clusters, 6))
            np.add.at(Xc, self._cid, X[self._inv] if self._w is None else X[self._inv] * self._w[:, None])
            return Units(Xc, np.ones(self.n_clusters, dtype=np.int64), kind="clusters")
        return Units(X, self.counts, kind="items")

    def cell_units(self) -> Units:
        """Units for the rank coefficients: cell counts (iid) or per-cluster cell counts."""
        if self.n_clusters:
            return Units(self.cluster_counts, np.ones(self.n_clusters, dtype=np.int64), kind="clusters")
        return Units(np.eye(self.d), self.counts, kind="items")


# --------------------------------------------------------------------------------------------
# vectorized kernels
# --------------------------------------------------------------------------------------------

def _weighted_pearson(S, a, b):
    """Weighted Pearson r of values a, b (each (D,) or (B, D)) with weights S (B, D), two-pass."""
    N = S.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma = (S * a).sum(axis=1) / N
        mb = (S * b).sum(axis=1) / N
        da = a - ma[:, None]
        db = b - mb[:, None]
        sab = (S * da * db).sum(axis=1)
        saa = (S * da * da).sum(axis=1)
        sbb = (S * db * db).sum(axis=1)
        r = sab / np.sqrt(saa * sbb)
    r = np.where((saa > 0) & (sbb > 0), r, np.nan)
    return np.clip(r, -1.0, 1.0)


def _moment_pearson(S):
    """Pearson r from summed moments (N, Σdx, Σdy, Σdx², Σdy², Σdx·dy), shape (B, 6)."""
    S = np.asarray(S, dtype=float)
    N, sx, sy, sxx, syy, sxy = S.T
    with np.errstate(invalid="ignore", divide="ignore"):
        cxy = sxy - sx * sy / N
        cxx = sxx - sx * sx / N
        cyy = syy - sy * sy / N
        r = cxy / np.sqrt(cxx * cyy)
    tol = 1e-12 * (sxx + syy + 1e-300)
    r = np.where((cxx > tol) & (cyy > tol), r, np.nan)
    return np.clip(r, -1.0, 1.0)


def _one_hot(index, size):
    d = len(index)
    return sparse.csr_array((np.ones(d), (np.arange(d), index)), shape=(d, size))


def _midranks(margins):
    """Midranks of the distinct values from their counts (B, L): rank = #below + (count + 1)/2."""
    return np.cumsum(margins, axis=1) - (margins - 1) / 2


class _RankKernel:
    """Spearman's rho and/or Kendall's tau-b (and Pearson's r) of cell counts S (B, D)."""

    def __init__(self, cells: _Cells, methods):
        self.c = cells
        self.methods = list(methods)
        self.ex = _one_hot(cells.ic, cells.l1).T.tocsr()   # (L1, D)
        self.ey = _one_hot(cells.jc, cells.l2).T.tocsr()   # (L2, D)
        self.xc = cells.xc - cells.counts @ cells.xc / cells.n
        self.yc = cells.yc - cells.counts @ cells.yc / cells.n

    def margins(self, S):
        rx = np.asarray((self.ex @ S.T).T)
        cy = np.asarray((self.ey @ S.T).T)
        return rx, cy

    def spearman(self, S, rx, cy):
        return _weighted_pearson(S, _midranks(rx)[:, self.c.ic], _midranks(cy)[:, self.c.jc])

    def kendall(self, S, rx, cy):
        c = self.c
        l1, l2 = c.l1, c.l2
        b = S.shape[0]
        out = np.full(b, np.nan)
        if l1 < 2 or l2 < 2:
            return out
        step = max(1, _KERNEL_ELEMS // (l1 * l2))
        N = S.sum(axis=1)
        n0 = N * (N - 1) / 2
        n1 = (rx * (rx - 1) / 2).sum(axis=1)
        n2 = (cy * (cy - 1) / 2).sum(axis=1)
        for s in range(0, b, step):
            Sb = S[s:s + step]
            T = np.zeros((len(Sb), l1 * l2))
            T[:, c.flat] = Sb
            T = T.reshape(len(Sb), l1, l2)
            # SS[i, j] = Σ_{k≥i, l≥j} T[k, l]; concordant pairs of (i, j): SS[i+1, j+1]
            SS = T[:, ::-1, ::-1].cumsum(axis=1).cumsum(axis=2)[:, ::-1, ::-1]
            P = (T[:, :-1, :-1] * SS[:, 1:, 1:]).sum(axis=(1, 2))
            # PS[i, j] = Σ_{k≥i, l≤j} T[k, l]; discordant pairs of (i, j): PS[i+1, j-1]
            PS = T[:, ::-1, :].cumsum(axis=1)[:, ::-1, :].cumsum(axis=2)
            Q = (T[:, :-1, 1:] * PS[:, 1:, :-1]).sum(axis=(1, 2))
            sl = slice(s, s + len(Sb))
            den = (n0[sl] - n1[sl]) * (n0[sl] - n2[sl])
            with np.errstate(invalid="ignore", divide="ignore"):
                out[sl] = np.where(den > 0, (P - Q) / np.sqrt(den), np.nan)
        return np.clip(out, -1.0, 1.0)

    def __call__(self, S):
        S = np.asarray(S, dtype=float)
        rx, cy = self.margins(S)
        cols = []
        for m in self.methods:
            if m == "pearson":
                cols.append(_weighted_pearson(S, self.xc, self.yc))
            elif m == "spearman":
                cols.append(self.spearman(S, rx, cy))
            else:
                cols.append(self.kendall(S, rx, cy))
        return np.stack(cols, axis=1)


# --------------------------------------------------------------------------------------------
# analytic intervals
# --------------------------------------------------------------------------------------------

def fisher_z_interval(r: float, n: int, *, method: str = "pearson", confidence_level: float = 0.95,
                      alternative: str = "two-sided") -> tuple[float, float, float]:
    """Fisher-z interval for a correlation: tanh(atanh(r) ± z_{1−α/2} · SE), SE = sqrt(c/(n − d)).

    Parameters
    ----------
    r : float
        The coefficient.
    n : int
        Number of pairs.
    method : {"pearson", "spearman", "kendall"}
        Chooses the variance: Pearson c = 1, d = 3 (Fisher 1921); Spearman c = 1.06, d = 3 and
        Kendall's tau c = 0.437, d = 4 (Fieller, Hartley & Pearson 1957).
    confidence_level : float
        The interval's coverage, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        One-sided intervals have the bound 1 or −1 on the open side.

    Returns
    -------
    low, high : float
        The interval (NaN when n ≤ d or r is not finite).
    se_z : float
        The standard error on the z = atanh(r) scale.

    References
    ----------
    Fisher, R. A. (1921). Metron 1, 3–32. Fieller, E. C., Hartley, H. O. & Pearson, E. S. (1957).
    Biometrika 44, 470–481. Bonett, D. G. & Wright, T. A. (2000). Psychometrika 65, 23–28. The
    Pearson interval equals R's ``cor.test`` and ``pingouin.compute_esci`` (tests/test_correlation.py).

    Examples
    --------
    >>> low, high, se = fisher_z_interval(0.5, 50)
    >>> round(low, 4), round(high, 4), round(se, 4)   # R's cor.test formula: tanh(atanh(r) ± 1.96/sqrt(n − 3))
    (0.2575, 0.6833, 0.1459)
    >>> [round(v, 4) for v in fisher_z_interval(0.5, 50, method="kendall")[:2]]
    [0.3437, 0.6294]
    """
    if method not in FISHER_SE:
        raise ValueError(f"method must be one of {tuple(FISHER_SE)}, got {method!r}")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    c, d = FISHER_SE[method]
    if n - d <= 0 or not np.isfinite(r):
        return float("nan"), float("nan"), float("nan")
    se = float(np.sqrt(c / (n - d)))
    with np.errstate(divide="ignore"):
        z = np.arctanh(np.clip(r, -1.0, 1.0))
    if alternative == "two-sided":
        q = sps.norm.ppf(0.5 + confidence_level / 2)
        return float(np.tanh(z - q * se)), float(np.tanh(z + q * se)), se
    q = sps.norm.ppf(confidence_level)
    if alternative == "greater":
        return float(np.tanh(z - q * se)), 1.0, se
    if alternative == "less":
        return -1.0, float(np.tanh(z + q * se)), se
    raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")


def r_test_pvalue(r, df, *, two_tailed: bool = True):
    """p of the t test of no correlation from a coefficient and its degrees of freedom (df = n − 2).

    t = r / sqrt((1 − r²)/df) on Student's t with df degrees of freedom; |r| ≥ 1 gives an infinite t
    (p = 0). The one definition used by :func:`metaeval.review_text` (an APA "r(df) = …, p = …") and by
    :func:`metaeval.check_claims` (a Pearson or Spearman correlation reported with its n).

    Parameters
    ----------
    r : float or array-like
        The coefficient(s) (values outside [−1, 1] are cut to ±1).
    df : float or array-like
        Degrees of freedom, n − 2 for n pairs.
    two_tailed : bool
        Double the upper-tail probability of |t| (capped at 1); else return that tail alone.

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input.

    References
    ----------
    The t test of H0: ρ = 0 (Fisher 1915), as scipy's ``pearsonr`` (two-sided p equal to 1e-12 relative,
    tests/test_review_claims.py) and statcheck's ``r2t`` followed by ``pt`` (Nuijten & Epskamp, R
    package version 1.6.0; tests/test_review_text.py).

    Examples
    --------
    >>> round(r_test_pvalue(0.52, 28), 5)      # r = .52 with n = 30: t(28) = 3.22
    0.00323
    >>> r_test_pvalue([0.3, 1.0], 10, two_tailed=False).round(4).tolist()
    [0.1717, 0.0]
    """
    scalar = np.ndim(r) == 0 and np.ndim(df) == 0
    r = np.clip(np.asarray(r, dtype=float), -1.0, 1.0)
    df = np.asarray(df, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(np.abs(r) >= 1, np.inf, np.abs(r) / np.sqrt((1 - r * r) / df))
    p = sps.t.sf(t, df)
    if two_tailed:
        p = np.minimum(2 * p, 1.0)
    return float(p) if scalar else p


def _scipy_pvalue(method, x, y, alternative):
    """The coefficient and its iid test p-value from scipy (H0: no association)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "pearson":
            res = sps.pearsonr(x, y, alternative=alternative)
        elif method == "spearman":
            res = sps.spearmanr(x, y, alternative=alternative)
        else:
            res = sps.kendalltau(x, y, variant="b", alternative=alternative)
    return float(res.statistic), float(res.pvalue)


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------

def score_correlation(x: ArrayLike | pd.Series | pd.DataFrame | Paired, y: ArrayLike | pd.Series | pd.DataFrame | None = None,
                      *, method: str = "pearson", cluster: ArrayLike | str | None = None,
                      ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = DEFAULT_N_RESAMPLES,
                      confidence_level: float = 0.95, rng: None | int | np.random.Generator = None,
                      samples: None | str | int = None, alternative: str = "two-sided") -> Estimate | ResultSet:
    """Item-level correlation of two raters' scores (human vs judge), with an interval.

    Parameters
    ----------
    x : array-like, pandas Series, Paired, PairedTables, or a two-column array/DataFrame
        Reference scores, one per item (or, 2-D, items × samples: see ``samples``). A
        :class:`metaeval.Paired` or a two-column input holds both raters (``y`` omitted). A
        :class:`metaeval.PairedTables` (``align(..., rows=False)``) gives the same results from
        its cells, the joint counts of the two labels per group (``cluster`` then names a group
        column).
    y : array-like, pandas Series or DataFrame, optional
        Candidate (judge) scores: one per item, or items × samples with NaN for missing samples. If
        ``x`` and ``y`` are pandas objects indexed by item, they are aligned on the index.
    method : {"pearson", "spearman", "kendall", "all"}
        Pearson's r, Spearman's rho, Kendall's tau-b, or all three (from the same replicates).
    cluster : array-like or str, optional
        Cluster id (prompt, topic) of each item, or a column of the Paired: resample clusters.
    ci_method : {"bca", "percentile", "basic", "analytic"} or None
        Bootstrap interval (:mod:`metaeval.core.resample`; default
        :data:`~metaeval.core.resample.DEFAULT_CI_METHOD`), the Fisher-z interval with the variance
        proper to each coefficient (``"analytic"``, iid items only), or ``None``: the point
        estimate only (no resampling; the p-value is scipy's for iid items, None with ``cluster``).
    n_resamples : int
        Bootstrap resamples (default :data:`~metaeval.core.resample.DEFAULT_N_RESAMPLES`).
    confidence_level : float
        The interval's coverage, in (0, 1).
    rng : None, int or numpy.random.Generator
        Seeds the bootstrap (the seed is reported with the estimate).
    samples : {None, "mean", "median"} or int
        How a 2-D (items × samples) ``x`` or ``y`` becomes one score per item: the mean of the
        non-missing samples (default), their median, or one sample column (by position).
        **The samples are averaged before correlating**: the result is the correlation of the
        averaged score, not an average of per-sample correlations.
    alternative : {"two-sided", "greater", "less"}
        For the p-value and for one-sided intervals.

    Returns
    -------
    Estimate, or ResultSet for ``method="all"``
        ``statistic`` is ``pearson_r``, ``spearman_rho`` or ``kendall_tau_b``. ``pvalue`` is
        scipy's test of no association (``pearsonr``, ``spearmanr``, ``kendalltau``; iid items),
        or, with ``cluster``, the engine's bootstrap p-value
        (:func:`~metaeval.core.resample.bootstrap_pvalue`: twice the smaller tail share of the
        replicates beyond 0; 0 means below 1/n_resamples). For analytic intervals ``se`` is the
        delta-method SE (1 − r²)·SE(z) and ``extra["se_z"]`` the SE on the z scale. Bootstrap
        interval ends are clipped to [−1, 1].

    Notes
    -----
    Point estimates equal ``scipy.stats.pearsonr``, ``spearmanr`` (Pearson's r of midranks) and
    ``kendalltau`` (tau-b: (C − D)/√((n₀ − n₁)(n₀ − n₂)), Kendall 1945).

    Analytic intervals transform with Fisher's z = atanh(r) and use the variance proper to each
    coefficient: Pearson SE = 1/√(n − 3) (Fisher 1921); Spearman SE = √(1.06/(n − 3)) and Kendall
    tau SE = √(0.437/(n − 4)) (Fieller, Hartley & Pearson 1957; recommended by Bonett & Wright
    2000). Tools that reuse 1/√(n − 3) for rho and tau (``pingouin.corr`` does, for both) give
    intervals that are too narrow for rho (by a factor √1.06 on the z scale) and far too wide for
    tau (√(1/0.437) ≈ 1.5: tau is smaller than r and has a smaller variance).

    Fieller's constants were derived for untied (continuous) scores. On a 1–5 rubric the Spearman
    constant still holds (simulated Var(atanh r_s)·(n − 3) ≈ 0.97–1.07), but ties make tau-b larger
    and more variable: Var(atanh tau_b)·(n − 4) ≈ 0.65–0.71 instead of 0.437, and the analytic
    Kendall interval covered 88% instead of 95% in a simulation (n = 100, one run of 300 samples,
    Monte Carlo error ±0.019; the bootstrap intervals covered 94–96%, ±0.013). The analytic Kendall interval therefore warns when more
    than 5% of the item pairs are tied in x or y; prefer a bootstrap interval for tau-b on rubric
    scores.

    Bootstrap intervals resample the sufficient statistics: the counts of the distinct (x, y) pairs
    (iid items), or per-cluster counts (clusters). Pearson's r is bootstrapped on the additive
    moments (1, x, y, x², y², xy), at any number of distinct values. Spearman's rho takes the
    midranks from each replicate's margins; Kendall's tau-b the concordant and discordant pair
    counts from 2-D cumulative sums of the replicate's L1 × L2 table. The rank coefficients need at
    most 2,048 distinct (x, y) pairs for the iid bootstrap, at most 250,000 table cells (L1·L2) for
    Kendall, and at most 20 million (clusters × distinct pairs) for the cluster bootstrap; beyond
    that (continuous scores) an InputError says so, and the fixes are rounding the scores to a grid,
    ``method="pearson"``, or ``ci_method="analytic"``.

    On a :class:`metaeval.PairedTables` the cells are the sufficient statistic: estimates and
    intervals equal those of the rows (the same unit types are resampled). The iid p-value is
    scipy's on the expanded rows up to :data:`EXPAND_MAX` pairs, and above it scipy's own formulas
    evaluated from the counts (Pearson's beta distribution of r, Spearman's t approximation,
    Kendall's normal approximation with the tie-corrected variance of C − D).

    Averaging k judge samples raises the correlation with the human (the averaged score is more
    reliable: Spearman–Brown), so report how many samples were averaged (``extra["samples_y"]``).

    References
    ----------
    Fisher, R. A. (1921). On the "probable error" of a coefficient of correlation deduced from a
    small sample. Metron 1, 3–32.
    Fieller, E. C., Hartley, H. O. & Pearson, E. S. (1957). Tests for rank correlation
    coefficients. I. Biometrika 44, 470–481.
    Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating Pearson, Kendall
    and Spearman correlations. Psychometrika 65, 23–28.
    Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika 33, 239–251.
    Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application, §3.8 (clusters).

    Validated against scipy (estimates, to 1e-12), R ``cor.test`` and ``pingouin.compute_esci``
    (the Pearson interval) in ``tests/test_correlation.py``.

    Examples
    --------
    Human scores against the mean of three judge samples on the bundled Prometheus-Vision-like
    rubric data (1–5), with prompts as clusters:

    >>> import metaeval as me
    >>> s = me.datasets.load("rubric_like").scores
    >>> human = s[s["rater"] == "human"].set_index("item_id")["score"]
    >>> judge = me.mean_of_samples(s[s["rater"] == "judge"], item="item_id", sample="sample", score="score",
    ...                            keep=["prompt_id"])
    >>> r = me.score_correlation(human, judge["score"], cluster=judge["prompt_id"], rng=0)
    >>> print(r)
    pearson_r = 0.6395, 95% bca CI [0.6030, 0.6745], p < 0.0005 (n = 900, clusters: 300)
    >>> round(me.score_correlation(human, judge["score"], method="spearman", ci_method=None).estimate, 4)
    0.6375

    Items × samples arrays are averaged per item before correlating:

    >>> import numpy as np
    >>> h = [1, 2, 2, 3, 3, 4, 4, 5, 5, 3]
    >>> j = [[1, 2, 1], [2, 2, 3], [3, 2, 2], [3, 3, 4], [2, 3, 3], [4, 5, 4], [4, 4, np.nan],
    ...      [5, 4, 5], [5, 5, 5], [3, 4, 3]]
    >>> res = me.score_correlation(h, j, method="pearson", ci_method="analytic")
    >>> round(res.estimate, 4), [round(v, 4) for v in res.ci]
    (0.9809, [0.9185, 0.9956])

    From the tables of an alignment (no rows kept):

    >>> d = me.datasets.load("trec_dl_like")
    >>> t = me.align(d.qrels_human, d.qrels_judge, rows=False)
    >>> round(me.score_correlation(t, method="kendall", ci_method=None).estimate, 4)
    0.5971
    """
    methods = _check_method(method)
    if ci_method is not None and ci_method not in (*CI_METHODS, "analytic"):
        raise ValueError(f"ci_method must be 'bca', 'percentile', 'basic', 'analytic' or None, got {ci_method!r}")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    if ci_method == "analytic" and cluster is not None:
        raise ValueError("analytic (Fisher-z) intervals assume independent items; with cluster= use "
                         "ci_method='bca', 'percentile' or 'basic'")
    if _is_tables(x):
        xv, yv, cl, info, w = _table_scores(x, y, cluster, samples)
    else:
        (xv, yv, cl, info), w = _prepare_scores(x, y, cluster, samples), None
    n = len(xv) if w is None else int(w.sum())
    undefined = n < 2 or len(np.unique(xv)) < 2 or len(np.unique(yv)) < 2
    if undefined:
        why = (f"only {n} complete pair(s)" if n < 2 else
               "one rater gives every item the same score (zero variance)")
        warnings.warn(f"score_correlation is undefined: {why}", UndefinedStatisticWarning, stacklevel=2)
        nan = float("nan")
        ests = [Estimate(_STAT_NAMES[m], nan, ConfidenceInterval(nan, nan, confidence_level, ci_method or "none"),
                         n=n, unit="none" if ci_method == "analytic" else ("clusters" if cl is not None else "items"),
                         extra=dict(info)) for m in methods]
        return _wrap(ests, method)

    if w is None:
        tests = {m: _scipy_pvalue(m, xv, yv, alternative) for m in methods}
    else:
        tests = {m: _counts_pvalue(m, xv, yv, w, alternative) for m in methods}
    if ci_method == "analytic":
        return _wrap(_fisher_estimates(xv, yv, methods, tests, info, confidence_level, alternative, w), method)

    cells = _Cells(xv, yv, cl, weights=w)
    if methods == ["pearson"]:
        units = cells.moment_units()
        kernel = _moment_pearson
    else:
        if ci_method is not None:
            _check_rank_size(cells, methods)
            units = cells.cell_units()
        else:  # no resampling: the point estimates need no size limit (nor per-cluster tables)
            units = Units(np.eye(cells.d), cells.counts, kind="clusters" if cl is not None else "items")
        kernel = _RankKernel(cells, methods)
    res = bootstrap(kernel, units, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                    rng=rng, alternative=alternative, bounds=(-1.0, 1.0))
    if cl is None:
        pvals, pmethod = [tests[m][1] for m in methods], [_SCIPY_PVALUE[m] for m in methods]
    else:
        pvals, pmethod = res.pvalue(0.0), ["cluster bootstrap"] * len(methods)
    if ci_method is None and cl is not None:
        res.n_units = cells.n_clusters  # the clusters, not the cells the point estimate was summed over
    extra = [{**info, "pvalue_method": pm, "n_distinct_x": cells.l1, "n_distinct_y": cells.l2} for pm in pmethod]
    return _wrap(res.estimates([_STAT_NAMES[m] for m in methods], n=n, pvalues=pvals, extra=extra), method)


def _fisher_estimates(xv, yv, methods, tests, info, confidence_level, alternative, w=None) -> list[Estimate]:
    """The analytic (Fisher-z) estimates of :func:`score_correlation`, with its small-sample and tie warnings."""
    n = len(xv) if w is None else int(w.sum())
    ests = []
    small = []
    for m in methods:
        r, p = tests[m]
        lo, hi, se_z = fisher_z_interval(r, n, method=m, confidence_level=confidence_level, alternative=alternative)
        if np.isnan(se_z):
            small.append(m)
        c, d = FISHER_SE[m]
        ests.append(Estimate(_STAT_NAMES[m], r, ConfidenceInterval(lo, hi, confidence_level, "analytic"),
                             se=float((1 - r * r) * se_z), pvalue=p, n=n, unit="none", n_units=n,
                             extra={**info, "se_z": se_z, "z": float(np.arctanh(r)) if abs(r) < 1 else
                                    float(np.sign(r) * np.inf),
                                    "se_formula": f"sqrt({c:g}/(n - {d}))"}))
    if small:
        warnings.warn(f"too few pairs (n = {n}) for the Fisher-z interval of {', '.join(small)}",
                      SmallSampleWarning, stacklevel=3)
    if "kendall" in methods:
        share = _tied_pair_share(xv, yv, w)
        if share > TIE_WARN_SHARE:
            warnings.warn(f"{share:.0%} of the item pairs are tied in x or y: the Fieller variance "
                          "0.437/(n − 4) assumes untied scores, and with this many ties the Kendall "
                          "tau-b interval is too narrow; use ci_method='bca' or 'percentile'",
                          MetaevalWarning, stacklevel=3)
    return ests


def _tied_pair_share(x, y, w=None) -> float:
    """Largest share of the n(n − 1)/2 item pairs tied in x, or in y (``w``: items per row)."""
    n = len(x) if w is None else int(w.sum())
    n0 = n * (n - 1) / 2
    if n0 == 0:
        return 0.0
    ties = [(c * (c - 1) / 2).sum() for c in (_value_counts(x, w), _value_counts(y, w))]
    return float(max(ties) / n0)


def _value_counts(v, w=None) -> np.ndarray:
    """How many items have each distinct value (``w``: items per entry of v)."""
    if w is None:
        return np.unique(v, return_counts=True)[1]
    _, inv = np.unique(v, return_inverse=True)
    return _wcount(inv.ravel(), w, int(inv.max()) + 1 if len(inv) else 0)


#: Up to this many items the p-value of weighted pairs (a PairedTables) is scipy's on the expanded
#: rows; above it the same formulas are evaluated from the counts (scipy's large-sample forms).
EXPAND_MAX = 200_000


def _counts_pvalue(method, x, y, w, alternative):
    """scipy's coefficient and iid p-value for ``w[i]`` items with scores ``(x[i], y[i])``.

    Small samples (and Kendall without ties, scipy's exact test) expand to rows and call scipy;
    larger ones evaluate scipy's formulas from the counts: Pearson's beta distribution of r, the
    t approximation of Spearman's rho, and Kendall's normal approximation with the tie-corrected
    variance of C − D (scipy 1.17 ``pearsonr``, ``spearmanr``, ``kendalltau``).
    """
    n = int(w.sum())
    cx, cy = _value_counts(x, w), _value_counts(y, w)
    no_ties = (cx <= 1).all() and (cy <= 1).all()
    if n <= EXPAND_MAX or (method == "kendall" and no_ties):
        return _scipy_pvalue(method, np.repeat(x, w), np.repeat(y, w), alternative)
    from scipy import special

    cells = _Cells(x, y, weights=w)
    S = cells.counts[None, :].astype(float)
    r = float(_RankKernel(cells, [method])(S)[0, 0])
    if method == "pearson":
        ab = n / 2 - 1
        cdf = special.betainc(ab, ab, (r + 1) / 2)
        sf = special.betaincc(ab, ab, (r + 1) / 2)
        p = {"less": cdf, "greater": sf, "two-sided": 2 * special.betaincc(ab, ab, (abs(r) + 1) / 2)}[alternative]
        return r, float(p)
    if method == "spearman":
        dof = n - 2
        with np.errstate(divide="ignore"):
            t = r * np.sqrt(np.clip(dof / ((r + 1.0) * (1.0 - r)), 0, None))
        p = {"less": special.stdtr(dof, t), "greater": special.stdtr(dof, -t),
             "two-sided": 2 * special.stdtr(dof, -abs(t))}[alternative]
        return r, float(p)
    # Kendall: C − D from the table (concordant minus discordant pairs), ties from the margins
    T = np.zeros(cells.l1 * cells.l2)
    T[cells.flat] = cells.counts
    T = T.reshape(cells.l1, cells.l2)
    SS = T[::-1, ::-1].cumsum(axis=0).cumsum(axis=1)[::-1, ::-1]
    PS = T[::-1, :].cumsum(axis=0)[::-1, :].cumsum(axis=1)
    cmd = (T[:-1, :-1] * SS[1:, 1:]).sum() - (T[:-1, 1:] * PS[1:, :-1]).sum()
    xtie, x0, x1 = (float((cx * (cx - 1) / 2).sum()), float((cx * (cx - 1.0) * (cx - 2)).sum()),
                    float((cx * (cx - 1.0) * (2 * cx + 5)).sum()))
    ytie, y0, y1 = (float((cy * (cy - 1) / 2).sum()), float((cy * (cy - 1.0) * (cy - 2)).sum()),
                    float((cy * (cy - 1.0) * (2 * cy + 5)).sum()))
    m = n * (n - 1.0)
    var = (m * (2 * n + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + x0 * y0 / (9 * m * (n - 2))
    z = cmd / np.sqrt(var)
    p = {"less": sps.norm.cdf(z), "greater": sps.norm.sf(z), "two-sided": 2 * sps.norm.sf(abs(z))}[alternative]
    return r, float(p)


def _check_method(method):
    if method == "all":
        return list(CORRELATION_METHODS)
    if method in CORRELATION_METHODS:
        return [method]
    raise ValueError(f"method must be one of {CORRELATION_METHODS} or 'all', got {method!r}")


def _wrap(ests, method):
    return ResultSet(ests, name="score_correlation") if method == "all" else ests[0]


def _check_rank_size(cells: _Cells, methods):
    what = " and ".join(m for m in methods if m != "pearson")
    fix = ("round the scores to a grid (e.g. np.round(y, 1)), use method='pearson' (bootstrapped on "
           "additive moments at any size), or ci_method='analytic'")
    if "kendall" in methods and cells.l1 * cells.l2 > MAX_TABLE_CELLS:
        raise InputError(f"too many distinct scores for the {what} bootstrap: {cells.l1} × {cells.l2} = "
                         f"{cells.l1 * cells.l2} table cells (limit {MAX_TABLE_CELLS})", fix=fix)
    if cells.n_clusters:
        if cells.cluster_counts is None:
            raise InputError(f"too many clusters × distinct (x, y) pairs for the {what} cluster bootstrap: "
                             f"{cells.n_clusters} × {cells.d} (limit {MAX_CLUSTER_ELEMS})", fix=fix)
    elif cells.d > MAX_CELL_TYPES:
        raise InputError(f"too many distinct (x, y) pairs for the {what} bootstrap: {cells.d} "
                         f"(limit {MAX_CELL_TYPES})", fix=fix)


def mean_of_samples(df: pd.DataFrame, *, item: str, score: str, sample: str | None = None,
                    keep: str | Sequence[str] = ()) -> pd.DataFrame:
    """Average repeated scores of each item (long form), before correlating them with another rater.

    Parameters
    ----------
    df : pandas.DataFrame
        Long form: one row per (item, sample), e.g. the judge rows of ``rubric_like``.
    item : str
        Column of item ids.
    score : str
        Column of numeric scores (missing scores are ignored).
    sample : str, optional
        Column of sample ids; when given, an (item, sample) pair may occur once only (a repeated
        pair usually means that rows of another rater were left in).
    keep : sequence of str
        Columns constant within an item (e.g. the prompt id, for ``cluster=``) to carry over.

    Returns
    -------
    pandas.DataFrame
        Indexed by item (sorted), with columns ``score`` (the mean of the item's non-missing
        scores), ``n_samples`` and the ``keep`` columns.

    Raises
    ------
    InputError
        A missing column, a non-numeric score, a missing item id, a repeated (item, sample) pair,
        or a ``keep`` column that varies within an item.

    References
    ----------
    A plain group mean (``pandas.DataFrame.groupby(item).mean()`` on the non-missing scores,
    checked in tests/test_correlation.py). Averaging k samples raises the reliability of the score
    (Spearman–Brown), so report ``n_samples`` with any correlation of the averages.

    Examples
    --------
    >>> import pandas as pd, metaeval as me
    >>> judge = pd.DataFrame({"item_id": ["a", "a", "a", "b", "b"], "sample": [1, 2, 3, 1, 2],
    ...                       "score": [3, 4, 4, 2, None]})
    >>> out = me.mean_of_samples(judge, item="item_id", sample="sample", score="score")
    >>> out.index.tolist(), out["score"].round(4).tolist(), out["n_samples"].tolist()
    (['a', 'b'], [3.6667, 2.0], [3, 1])
    """
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"mean_of_samples needs a long DataFrame, got {type(df).__name__}")
    keep = [keep] if isinstance(keep, str) else list(keep)
    cols = [item, score] + ([sample] if sample is not None else []) + keep
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"no column(s) {missing} in the data", source="<DataFrame>",
                         expected=f"one of {', '.join(map(str, df.columns))}")
    vals = pd.to_numeric(df[score], errors="coerce")
    bad = vals.isna() & df[score].notna()
    if bad.any():
        pos = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"column {score!r} must hold numeric scores", source="<DataFrame>", line=pos + 2,
                         text=df[score].iloc[pos], fix="map text labels to numbers first")
    if df[item].isna().any():
        raise InputError(f"column {item!r} has missing item ids", source="<DataFrame>")
    if sample is not None:
        dup = df.duplicated([item, sample], keep=False).to_numpy()
        if dup.any():
            pos = int(np.flatnonzero(dup)[0])
            raise InputError(f"{int(dup.sum())} rows repeat an ({item}, {sample}) pair", source="<DataFrame>",
                             line=pos + 2, text=f"{df[item].iloc[pos]}, {df[sample].iloc[pos]}",
                             fix="keep one rater's rows (e.g. df[df.rater == 'judge']) or one row per sample")
    work = pd.DataFrame({"_item": df[item].to_numpy(), "_score": vals.to_numpy(dtype=float)})
    g = work.groupby("_item", sort=True)["_score"]
    out = pd.DataFrame({"score": g.mean(), "n_samples": g.count().astype(np.int64)})
    for c in keep:
        k = pd.DataFrame({"_item": df[item].to_numpy(), "_v": df[c].to_numpy()}).groupby("_item", sort=True)["_v"]
        varying = k.nunique(dropna=False) > 1
        if varying.any():
            raise InputError(f"column {c!r} is not constant within an item", source="<DataFrame>",
                             text=str(varying[varying].index[0]), fix="keep only item-level columns")
        out[c] = k.first()
    out.index.name = item
    return out


# --------------------------------------------------------------------------------------------
# intraclass correlation
# --------------------------------------------------------------------------------------------

#: ICC forms: Shrout & Fleiss (1979) name → (McGraw & Wong 1996 name as pingouin ≥ 0.6 prints it, description)
ICC_KINDS = {
    "ICC1": ("ICC(1,1)", "one-way random, single rater"),
    "ICC2": ("ICC(A,1)", "two-way random, absolute agreement, single rater"),
    "ICC3": ("ICC(C,1)", "two-way mixed, consistency, single rater"),
    "ICC1k": ("ICC(1,k)", "one-way random, mean of k raters"),
    "ICC2k": ("ICC(A,k)", "two-way random, absolute agreement, mean of k raters"),
    "ICC3k": ("ICC(C,k)", "two-way mixed, consistency, mean of k raters"),
}
_ICC_ALIASES = {**{k.lower(): k for k in ICC_KINDS}, **{v[0].lower(): k for k, v in ICC_KINDS.items()},
                "icc(2,1)": "ICC2", "icc(3,1)": "ICC3", "icc(2,k)": "ICC2k", "icc(3,k)": "ICC3k"}


def _icc_wide(data, targets, raters, ratings, nan_policy):
    if isinstance(data, pd.DataFrame) and (targets is not None or raters is not None or ratings is not None):
        if targets is None or raters is None or ratings is None:
            raise ValueError("a long DataFrame needs targets=, raters= and ratings= column names")
        missing = [c for c in (targets, raters, ratings) if c not in data.columns]
        if missing:
            raise InputError(f"no column(s) {missing} in the data", source="<DataFrame>",
                             expected=f"one of {', '.join(map(str, data.columns))}")
        vals = pd.to_numeric(data[ratings], errors="coerce")
        bad = vals.isna() & data[ratings].notna()
        if bad.any():
            pos = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(f"column {ratings!r} must hold numeric ratings", source="<DataFrame>", line=pos + 2,
                             text=data[ratings].iloc[pos])
        dup = data.duplicated([targets, raters], keep=False).to_numpy()
        if dup.any():
            pos = int(np.flatnonzero(dup)[0])
            raise InputError(f"{int(dup.sum())} rows repeat a ({targets}, {raters}) pair", source="<DataFrame>",
                             line=pos + 2, text=f"{data[targets].iloc[pos]}, {data[raters].iloc[pos]}",
                             fix="one rating per target and rater (average repeated samples first: mean_of_samples)")
        long = pd.DataFrame({"t": data[targets].to_numpy(), "r": data[raters].to_numpy(),
                             "v": vals.to_numpy(dtype=float)})
        wide = long.pivot(index="t", columns="r", values="v").to_numpy(dtype=float)
    else:
        wide = _numeric(data, "data")
        if wide.ndim != 2:
            raise InputError("data must be a long DataFrame (with targets=, raters=, ratings=) or a "
                             "targets × raters array")
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit', got {nan_policy!r}")
    incomplete = np.isnan(wide).any(axis=1)
    if incomplete.any():
        if nan_policy == "raise":
            raise InputError(f"{int(incomplete.sum())} target(s) lack a rating from some rater",
                             fix="pass nan_policy='omit' to leave them out (listwise), or complete the data")
        wide = wide[~incomplete]
    if wide.shape[0] < 2 or wide.shape[1] < 2:
        raise InputError(f"ICC needs at least 2 targets and 2 raters with complete ratings, got "
                         f"{wide.shape[0]} × {wide.shape[1]}")
    return wide, int(incomplete.sum())


def _icc_table(Y, confidence_level):
    """All six ICCs with F tests and F-based intervals from a complete targets × raters array."""
    n, k = Y.shape
    grand = Y.mean()
    ssb = k * ((Y.mean(axis=1) - grand) ** 2).sum()
    ssj = n * ((Y.mean(axis=0) - grand) ** 2).sum()
    sst = ((Y - grand) ** 2).sum()
    sse = sst - ssb - ssj
    msb = ssb / (n - 1)
    msj = ssj / (k - 1)
    mse = sse / ((n - 1) * (k - 1))
    msw = (ssj + sse) / (n * (k - 1))
    F = sps.f
    a2 = (1 - confidence_level) / 2
    df1, df1kd, df2kd = n - 1, n * (k - 1), (n - 1) * (k - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        icc1 = (msb - msw) / (msb + (k - 1) * msw)
        icc2 = (msb - mse) / (msb + (k - 1) * mse + k * (msj - mse) / n)
        icc3 = (msb - mse) / (msb + (k - 1) * mse)
        icc1k = (msb - msw) / msb
        icc2k = (msb - mse) / (msb + (msj - mse) / n)
        icc3k = (msb - mse) / msb
        f1 = msb / msw
        f3 = msb / mse
        p1 = F.sf(f1, df1, df1kd)
        p3 = F.sf(f3, df1, df2kd)
        # Shrout & Fleiss (1979) Table 4 / McGraw & Wong (1996) Table 7
        f1l = f1 / F.ppf(1 - a2, df1, df1kd)
        f1u = f1 * F.ppf(1 - a2, df1kd, df1)
        f3l = f3 / F.ppf(1 - a2, df1, df2kd)
        f3u = f3 * F.ppf(1 - a2, df2kd, df1)
        # ICC(2,1): Satterthwaite df for the denominator
        fj = msj / mse
        vn = df2kd * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        vd = df1 * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = vn / vd
        f2u = F.ppf(1 - a2, n - 1, v)
        f2l = F.ppf(1 - a2, v, n - 1)
        l2 = n * (msb - f2u * mse) / (f2u * (k * msj + (k * n - k - n) * mse) + n * msb)
        u2 = n * (f2l * msb - mse) / (k * msj + (k * n - k - n) * mse + n * f2l * msb)
        rows = {
            "ICC1": (icc1, f1, df1, df1kd, p1, (f1l - 1) / (f1l + k - 1), (f1u - 1) / (f1u + k - 1)),
            "ICC2": (icc2, f3, df1, df2kd, p3, l2, u2),
            "ICC3": (icc3, f3, df1, df2kd, p3, (f3l - 1) / (f3l + k - 1), (f3u - 1) / (f3u + k - 1)),
            "ICC1k": (icc1k, f1, df1, df1kd, p1, 1 - 1 / f1l, 1 - 1 / f1u),
            "ICC2k": (icc2k, f3, df1, df2kd, p3, l2 * k / (1 + l2 * (k - 1)), u2 * k / (1 + u2 * (k - 1))),
            "ICC3k": (icc3k, f3, df1, df2kd, p3, 1 - 1 / f3l, 1 - 1 / f3u),
        }
    ms = {"msb": msb, "msj": msj, "mse": mse, "msw": msw}
    return rows, ms


def icc(data: pd.DataFrame | ArrayLike, *, targets: str | None = None, raters: str | None = None, ratings: str | None = None,
        kind: str = "ICC2", confidence_level: float = 0.95, ci_method: str | None = "analytic",
        nan_policy: str = "raise") -> Estimate | ResultSet:
    """Intraclass correlation (Shrout & Fleiss 1979) with its F test and F-based interval.

    Parameters
    ----------
    data : pandas.DataFrame or array
        Long form (one row per target and rater; give ``targets``, ``raters`` and ``ratings``
        column names, as for ``pingouin.intraclass_corr``), or a complete targets × raters array
        or wide DataFrame.
    targets, raters, ratings : str, optional
        Column names of the long form.
    kind : str
        ``"ICC1"``, ``"ICC2"``, ``"ICC3"``, ``"ICC1k"``, ``"ICC2k"``, ``"ICC3k"`` (Shrout & Fleiss),
        the McGraw & Wong names pingouin ≥ 0.6 prints (``"ICC(1,1)"``, ``"ICC(A,1)"``,
        ``"ICC(C,1)"``, ``"ICC(1,k)"``, ``"ICC(A,k)"``, ``"ICC(C,k)"``), or ``"all"``.
        For a judge meant to stand in for a human, ICC2 (absolute agreement) is usually the
        question: ICC3 (consistency) ignores a judge that scores everything one point higher.
    confidence_level : float
        The interval's coverage, in (0, 1) (any level: pingouin fixes 95%).
    ci_method : {"analytic"} or None
        ``"analytic"`` (default): the F-based interval. ``None``: the point estimate only (NaN
        interval, method ``"none"``); the F test's p-value is still reported. Nothing is resampled
        either way.
    nan_policy : {"raise", "omit"}
        ``"omit"`` leaves out targets lacking a rating from some rater (listwise, as pingouin does).

    Returns
    -------
    Estimate, or ResultSet for ``kind="all"``
        ``statistic`` is ``icc1`` ... ``icc3k``; ``pvalue`` is the F test of ICC = 0;
        ``extra`` has ``type`` (McGraw & Wong name), ``description``, ``F``, ``df1``, ``df2``,
        ``k`` (raters) and the mean squares. The interval method is reported as ``"analytic"``
        (exact F-based for ICC1, ICC3 and their k forms; Satterthwaite's approximation for ICC2).

    Notes
    -----
    From the two-way ANOVA of n targets × k raters (mean squares MSB targets, MSJ raters, MSE
    residual, MSW = within targets):
    ICC1 = (MSB − MSW)/(MSB + (k − 1)MSW); ICC2 = (MSB − MSE)/(MSB + (k − 1)MSE + k(MSJ − MSE)/n);
    ICC3 = (MSB − MSE)/(MSB + (k − 1)MSE); ICC1k = (MSB − MSW)/MSB;
    ICC2k = (MSB − MSE)/(MSB + (MSJ − MSE)/n); ICC3k = (MSB − MSE)/MSB.
    Intervals: Shrout & Fleiss (1979) and McGraw & Wong (1996), the formulas of
    ``pingouin.intraclass_corr`` and R ``psych::ICC``, at any ``confidence_level``.

    The computation is metaeval's own rather than a call to ``pingouin.intraclass_corr``, because
    pingouin fixes the level at 95%, rounds the interval to 2 decimals by default (its global
    option ``round.column.CI95``), and silently averages repeated (target, rater) rows (it pivots
    with ``pivot_table``); here a repeated pair raises an InputError. The tests check every
    estimate, F, p-value and interval against pingouin (rounding switched off), against R psych
    2.2.9 ``ICC()`` (95% and 90%), and against Shrout & Fleiss's (1979) published example
    (6 targets, 4 judges: .17, .29, .71, .44, .62, .91).

    References
    ----------
    Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. Psychological Bulletin 86, 420–428.
    McGraw, K. O. & Wong, S. P. (1996). Forming inferences about some intraclass correlation
    coefficients. Psychological Methods 1, 30–46.

    Examples
    --------
    Shrout & Fleiss's (1979) example (6 targets, 4 judges):

    >>> import numpy as np, metaeval as me
    >>> sf = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> [round(e.estimate, 2) for e in me.icc(sf, kind="all")]
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]

    The human and the first judge sample of the bundled rubric data, in long form:

    >>> s = me.datasets.load("rubric_like").scores
    >>> pair = s[(s["rater"] == "human") | (s["sample"] == 1)]
    >>> print(me.icc(pair, targets="item_id", raters="rater", ratings="score"))
    icc2 = 0.5968, 95% analytic CI [0.5529, 0.6374], p = 5.573e-89 (n = 900)
    """
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    if ci_method not in ("analytic", None):
        raise ValueError(f"ci_method must be 'analytic' or None (the ICC's interval is F-based), got {ci_method!r}")
    if isinstance(kind, str) and kind.lower() == "all":
        kinds = list(ICC_KINDS)
    else:
        key = _ICC_ALIASES.get(str(kind).lower().replace(" ", ""))
        if key is None:
            raise ValueError(f"kind must be one of {list(ICC_KINDS)}, their McGraw–Wong names "
                             f"{[v[0] for v in ICC_KINDS.values()]}, or 'all'; got {kind!r}")
        kinds = [key]
    Y, n_omitted = _icc_wide(data, targets, raters, ratings, nan_policy)
    rows, ms = _icc_table(Y, confidence_level)
    n, k = Y.shape
    if not all(np.isfinite(rows[kd][0]) for kd in kinds):
        warnings.warn("icc is undefined: no variation between targets or no residual variation "
                      "(constant ratings)", UndefinedStatisticWarning, stacklevel=2)
    ests = []
    for kd in kinds:
        val, f, d1, d2, p, lo, hi = rows[kd]
        if ci_method is None:
            lo = hi = float("nan")
        ests.append(Estimate(kd.lower(), float(val), ConfidenceInterval(float(lo), float(hi), confidence_level,
                                                                        ci_method or "none"),
                             pvalue=float(p), n=n, unit="none", n_units=n,
                             extra={"type": ICC_KINDS[kd][0], "description": ICC_KINDS[kd][1], "F": float(f),
                                    "df1": int(d1), "df2": int(d2), "k": k, "n_omitted": n_omitted,
                                    **{m: float(v) for m, v in ms.items()}}))
    if isinstance(kind, str) and kind.lower() == "all":
        return ResultSet(ests, name="icc")
    return ests[0]
