"""Correlate a score judge with humans at a level: none, item, system group, system.

Inputs are two score matrices, systems × items: H (human) and M (judge). ``level`` says what is
correlated (Deutsch, Dror & Roth 2021; mt-metrics-eval's ``average_by``):

* ``"none"``: the flattened matrices (every scored output is one point; "global");
* ``"item"``: for each item, the correlation across the systems' outputs, averaged over items
  (G-Eval's and UniEval's "summary level", HANNA's "story level", nlpstats' "input level");
* ``"system_group"``: for each system, the correlation across its items, averaged over systems;
* ``"system"``: the correlation of the systems' mean scores (ranking systems).

Missing human cells (NaN) are dropped from both matrices, and so are judge cells that are missing
where the human scored; both are counted (``extra["fates"]``). A group whose correlation is
undefined (a constant column) is dropped by default and counted (``extra["groups_dropped"]``).

Resampling (one shared draw for everything computed from it): BOOT-SYSTEMS resamples rows, BOOT-INPUTS
columns, BOOT-BOTH rows and columns independently (``resample="systems" | "items" | "both"``); a
replicate is the statistic of the gathered matrices, computed for a chunk of replicates at once.
Intervals, the seed and the result objects come from :mod:`metaeval.core.resample`.
Permutation tests (PERM-SYSTEMS, PERM-INPUTS, PERM-BOTH) compare two judges on the same humans by
swapping their scores between them: per row, per column, per cell (mt-metrics-eval, sacrerouge) or
rows then columns (nlpstats).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..core import registry
from ..core.errors import InputError, MetaevalWarning, UndefinedStatisticWarning
from ..core.resample import (
    CI_METHODS,
    DEFAULT_CI_METHOD,
    DEFAULT_N_RESAMPLES,
    BootstrapResult,
    check_n_resamples,
    jackknife_acceleration,
    make_rng,
)
from ..core.results import ConfidenceInterval, Estimate, ResultSet
from .pairs import calibrate_epsilon

__all__ = ["level_correlation", "level_difference", "williams_test", "LEVELS", "RESAMPLE_SCHEMES",
           "PERMUTATION_SCHEMES", "CONVENTIONS", "CONVENTION_NOTES", "level_methods", "score_matrices_from"]

#: The correlation levels.
LEVELS = ("none", "item", "system_group", "system")
#: Bootstrap schemes: rows (BOOT-SYSTEMS), columns (BOOT-INPUTS), both independently (BOOT-BOTH).
RESAMPLE_SCHEMES = ("systems", "items", "both")
#: Permutation schemes of :func:`level_difference`: swap whole rows, whole columns, single cells,
#: or rows then columns (nlpstats' PERM-BOTH).
PERMUTATION_SCHEMES = ("systems", "items", "both", "both_rows_then_columns")
#: Default bootstrap scheme, chosen from benchmarks/coverage_levels.py (10 systems × 40 items with
#: system and item effects, new systems and items in each data set; 5 seeds × 100 data sets, B = 1000,
#: mean ± SE over seeds): BOOT-BOTH's 95% BCa intervals covered 0.956 ± 0.007 (system-level Pearson),
#: 0.978 ± 0.007 (system Kendall), 0.962 ± 0.009 (item Pearson), 0.984 ± 0.005 (item Kendall);
#: BOOT-SYSTEMS 0.950, 0.990, 0.896, 0.920; BOOT-INPUTS 0.366, 0.582, 0.516, 0.570.
DEFAULT_RESAMPLE = "both"

#: Conventions: each a set of defaults reproducing one anchor's choices (never a second implementation).
CONVENTIONS = {
    "mtme": {
        "undefined": "drop", "average": "macro", "kendall_like_threshold": 25.0, "standardize": True,
        "pvalue": "plain", "alternative": "greater", "permutation": "both", "n_permutations": 1000,
        "williams_absolute": False, "williams_n": "cells",
    },
    "nlpstats": {
        "undefined": "drop", "average": "macro", "standardize": True, "pvalue": "plain",
        "alternative": "two-sided", "permutation": "both_rows_then_columns", "n_permutations": 9999,
        "n_resamples": 9999, "ci_method": "percentile", "williams_absolute": True, "williams_n": "max_group",
    },
    "sacrerouge": {
        "undefined": "drop", "average": "macro", "standardize": True, "pvalue": "plus_one",
        "alternative": "two-sided", "permutation": "both", "n_permutations": 1000, "n_resamples": 1000,
        "ci_method": "percentile", "williams_absolute": True, "williams_n": "max_group",
    },
    "geval": {"level": "item", "undefined": "drop", "average": "macro", "absolute": False},
    "unieval": {"level": "item", "undefined": "drop", "average": "macro", "absolute": False},
}
#: What each convention sets, with the source it follows.
CONVENTION_NOTES = {
    "mtme": "google-research/mt-metrics-eval: NaN groups dropped, plain means (KendallLike weighted by its "
            "pairs), KendallLike with a human threshold of 25 (WMT20 DA), PERM-BOTH swapping cells of z-scored "
            "judges, p = share of permutations with Δ* ≥ Δ (no +1), one-sided for the second judge; Williams' "
            "n = every cell",
    "nlpstats": "danieldeutsch/nlpstats: NaN groups dropped, plain means, standardised judges, PERM-BOTH swapping "
                "rows then columns, p = share with |Δ*| ≥ |Δ| (no +1), 9,999 resamples, percentile intervals, "
                "Williams on |r| with n = the largest group",
    "sacrerouge": "danieldeutsch/sacrerouge: NaN groups dropped, plain means, standardised judges, cell-wise "
                  "PERM-BOTH, p = (count + 1)/(P + 1), 1,000 resamples, percentile intervals, Williams on |r|",
    "geval": "G-Eval (Liu et al. 2023), nlpyang/geval meta_eval_summeval.py: summary level (item); a document "
             "whose human or judge scores are constant is skipped; plain mean of scipy's pearsonr, spearmanr, "
             "kendalltau (τ_b) over the other documents",
    "unieval": "UniEval (Zhong et al. 2022), maszhongming/UniEval reproduce/correlation.py: summary level (item), "
               "constant documents skipped, plain mean; its system level correlates the systems' mean scores",
}


def level_methods() -> list[str]:
    """The method names :func:`level_correlation` accepts (the registry's family ``"levels"``).

    Returns
    -------
    list of str

    Examples
    --------
    >>> "tau_23" in level_methods()
    True
    """
    return registry.names("levels")


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------

def _wide(frame, system, item, value, what):
    if isinstance(frame, np.ndarray):
        if frame.ndim != 2:
            raise InputError(f"{what}: expected a 2-D systems × items array, got {frame.ndim} dimensions",
                             source=f"<{what}>", fix="pass a systems × items matrix")
        return pd.DataFrame(frame)
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{what}: expected a DataFrame or a 2-D array, got {type(frame).__name__}",
                         source=f"<{what}>", fix="pass a wide frame (index systems, columns items) or a long frame")
    if system is None and item is None and value is None:
        if not {"system", "query_id", "measure", "value"} <= set(frame.columns):
            return frame
        # metaeval.read_score_table's frame (per-query scores, trec_eval -q): systems × queries of one measure
        measures = sorted(map(str, frame["measure"].dropna().unique()))
        if len(measures) > 1:
            raise InputError(f"{what}: the score table holds {len(measures)} measures ({', '.join(measures[:5])}"
                             f"{', ...' if len(measures) > 5 else ''}); a level correlation takes one",
                             source=str(frame.attrs.get("source", f"<{what}>")),
                             expected="the rows of one measure",
                             fix=f"select one first, e.g. table[table['measure'] == {measures[0]!r}]")
        system, item, value = "system", "query_id", "value"
    missing = [c for c in (system, item, value) if c is None or c not in frame.columns]
    if missing:
        raise InputError(f"{what}: the long frame needs the columns system={system!r}, item={item!r}, "
                         f"value={value!r}; missing: {missing}", source=f"<{what}>",
                         expected=f"columns {list(frame.columns)[:8]}", fix="name the columns with system=, item=, value=")
    dup = frame.duplicated([system, item], keep=False)
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputError(f"{what}: {int(dup.sum())} rows repeat a (system, item) pair", source=f"<{what}>",
                         line=i + 1, text=str(frame.iloc[i][[system, item]].to_dict()),
                         expected="one score per system and item",
                         fix="average repeated scores first (metaeval.mean_of_samples) or drop duplicates")
    vals = pd.to_numeric(frame[value], errors="coerce")
    bad = vals.isna() & frame[value].notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{what}: non-numeric score", source=f"<{what}>", line=i + 1, text=str(frame[value].iloc[i]),
                         expected="a number (or missing)", fix="clean the score column")
    return (frame.assign(**{value: vals}).pivot(index=system, columns=item, values=value))


def score_matrices_from(human, judge, *, system=None, item=None, value=None):
    """Human and judge score matrices (systems × items) with the same labels, and the fates of the cells.

    Parameters
    ----------
    human, judge : DataFrame or 2-D array
        Wide (index systems, columns items) or long (with ``system``, ``item``, ``value`` columns).
        A frame of :func:`metaeval.read_score_table` (columns ``system, query_id, measure, value``,
        one measure) is read as long without naming its columns.
    system, item, value : str, optional
        Column names of long frames.

    Returns
    -------
    H, M : numpy.ndarray (S, I)
    systems, items : list
    fates : dict
        ``cells``, ``human_missing`` (dropped from both), ``judge_missing`` (the human scored, the
        judge did not: dropped from both), ``used``.

    Raises
    ------
    InputError
        When the two matrices do not have the same systems and items.

    Examples
    --------
    >>> import numpy as np
    >>> H, M, s, i, f = score_matrices_from(np.array([[1.0, np.nan], [2, 3]]), np.array([[1.0, 2], [2, 2]]))
    >>> f
    {'cells': 4, 'human_missing': 1, 'judge_missing': 0, 'used': 3}
    """
    hw = _wide(human, system, item, value, "human")
    mw = _wide(judge, system, item, value, "judge")
    if set(hw.index) != set(mw.index) or set(hw.columns) != set(mw.columns):
        only_h = sorted(map(str, set(hw.index) ^ set(mw.index)))[:5]
        only_c = sorted(map(str, set(hw.columns) ^ set(mw.columns)))[:5]
        raise InputError("the human and judge matrices do not have the same systems and items "
                         f"(systems in one only: {only_h}; items in one only: {only_c})", source="<judge>",
                         expected="the same row and column labels in both",
                         fix="align the frames first (reindex both to the shared labels)")
    mw = mw.loc[hw.index, hw.columns]
    try:
        H = hw.to_numpy(dtype=float)
        M = mw.to_numpy(dtype=float)
    except (TypeError, ValueError) as e:
        raise InputError(f"scores must be numbers: {e}", source="<input>", fix="clean the score matrices") from None
    hm = np.isnan(H)
    jm = np.isnan(M) & ~hm
    fates = {"cells": int(H.size), "human_missing": int(hm.sum()), "judge_missing": int(jm.sum()),
             "used": int((~hm & ~jm).sum())}
    if fates["judge_missing"]:
        warnings.warn(f"{fates['judge_missing']} cells scored by the humans have no judge score; they are dropped "
                      "from both matrices (extra['fates'] counts them)", MetaevalWarning, stacklevel=3)
    return H, M, list(hw.index), list(hw.columns), fates


# --------------------------------------------------------------------------------------------
# the statistic on a batch of matrices (R, S, I)
# --------------------------------------------------------------------------------------------

def _groups(H, M, V, level):
    r, s, i = H.shape
    if level == "item":
        return (H.transpose(0, 2, 1).reshape(r * i, s), M.transpose(0, 2, 1).reshape(r * i, s),
                V.transpose(0, 2, 1).reshape(r * i, s), i)
    if level == "system_group":
        return H.reshape(r * s, i), M.reshape(r * s, i), V.reshape(r * s, i), s
    if level == "none":
        return H.reshape(r, s * i), M.reshape(r, s * i), V.reshape(r, s * i), 1
    if level == "system":
        cnt = V.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            hm = np.where(V, H, 0.0).sum(axis=2) / cnt
            mm = np.where(V, M, 0.0).sum(axis=2) / cnt
        ok = cnt > 0
        return np.where(ok, hm, 0.0), np.where(ok, mm, 0.0), ok, 1
    raise ValueError(level)


def _spa_pvalues(X, V, signs):
    """One-sided permutation p-values p[a, b] that system a beats system b (items every system scored)."""
    cols = V.all(axis=0)
    Xc = X[:, cols]
    sg = signs[:, cols]
    sums = Xc.sum(axis=1)
    partial = sg @ Xc.T                                        # (P, S)
    s = X.shape[0]
    p = np.ones((s, s))
    for a in range(s):                                         # S(S−1)/2 vector comparisons over P
        null = partial[:, a, None] - partial[:, a + 1:]
        p[a, a + 1:] = (null >= (sums[a] - sums[a + 1:])[None, :]).mean(axis=0)
    return p


def _spa_from_pvalues(ph, pm, rows):
    """Soft pairwise accuracy of each replicate's systems (rows (R, S) indices) from the p-value matrices."""
    s = rows.shape[1]
    a, b = np.triu_indices(s, 1)
    ra, rb = rows[:, a], rows[:, b]
    lo, hi = np.minimum(ra, rb), np.maximum(ra, rb)
    # p-values are stored for a < b as "a beats b"; a swapped pair reads 1 − p of the other direction
    # only through |p_h − p_m|, which is the same for both directions up to the permutation resolution
    return 1.0 - np.abs(ph[lo, hi] - pm[lo, hi]).mean(axis=1)


class _Spec:
    """Everything that fixes the statistic: method, level, options."""

    def __init__(self, method, level, *, undefined, average, absolute, epsilon, kendall_like_threshold,
                 spa_permutations, spa_seed):
        self.stat = registry.get(method)
        if self.stat.family != "levels":
            raise InputError(f"{method!r} is not a correlation method of score judges", source="<method>",
                             expected=f"one of {', '.join(level_methods())}", fix="pick a method from that list")
        self.method = method
        self.level = level
        self.undefined = undefined
        self.average = average
        self.absolute = absolute
        self.epsilon = float(epsilon or 0.0)
        self.kendall_like_threshold = kendall_like_threshold
        self.spa_permutations = spa_permutations
        self.spa_seed = spa_seed
        self._spa_cache = {}
        if method == "soft_pairwise_accuracy" and level != "system":
            raise InputError("soft_pairwise_accuracy compares systems: it exists at level='system' only",
                             source="<level>", fix="use level='system'")
        if method == "acc_eq" and average == "weighted":
            raise InputError("acc_eq averages groups plainly (one tie threshold for all)", source="<average>",
                             fix="use average='macro'")

    def values(self, H, M, V, rows=None):
        """(value (R,), info dict of (R,) arrays) for a batch of matrices (R, S, I)."""
        r = H.shape[0]
        if self.method == "soft_pairwise_accuracy":
            return self._spa(H, M, V, rows)
        h, m, v, g = _groups(H, M, V, self.level)
        nvalid = v.sum(axis=1).reshape(r, g)
        has_pairs = nvalid >= 2
        if self.method == "acc_eq":
            val, eps = calibrate_epsilon(h.reshape(r, g, -1), m.reshape(r, g, -1), v.reshape(r, g, -1))
            info = {"epsilon": eps, "groups": has_pairs.sum(axis=1), "groups_dropped": np.zeros(r, int)}
            return self._finish(val), info
        opts = {"epsilon": self.epsilon, "kendall_like_threshold": self.kendall_like_threshold}
        vals, w = self.stat.group_kernel(h, m, v, **opts)
        return self.aggregate(vals.reshape(r, g), np.asarray(w, dtype=float).reshape(r, g), has_pairs)

    def aggregate(self, vals, w, has_pairs, mult=None):
        """Average group values (R, G) by the policy; ``mult`` (R, G): group multiplicities of a bootstrap."""
        g = vals.shape[1]
        undefined = np.isnan(vals) & has_pairs
        if self.undefined == "error" and undefined.any():
            raise InputError(f"{self.method} is undefined on {int(undefined[0].sum())} of {g} groups at level "
                             f"{self.level!r} (a constant group)", source="<undefined>",
                             fix="undefined='drop' leaves them out (and counts them), 'zero' counts them as 0")
        if self.undefined == "zero":
            take = has_pairs
            vals = np.where(undefined, 0.0, vals)
        else:
            take = has_pairs & ~np.isnan(vals)
        wt = np.where(take, w if self.average == "weighted" else 1.0, 0.0)
        if mult is not None:
            wt = wt * mult
        with np.errstate(invalid="ignore", divide="ignore"):
            val = np.where(wt.sum(axis=1) > 0, (np.where(take, vals, 0.0) * wt).sum(axis=1) / wt.sum(axis=1), np.nan)
        dropped = undefined & (self.undefined == "drop")
        if mult is not None:
            has_pairs, dropped = has_pairs & (mult > 0), dropped & (mult > 0)
        info = {"groups": has_pairs.sum(axis=1), "groups_dropped": dropped.sum(axis=1)}
        return self._finish(val), info

    def _finish(self, val):
        return np.abs(val) if self.absolute else val

    def _spa(self, H, M, V, rows):
        key = id(rows) if rows is not None else None
        del key
        base = self._spa_cache.get("p")
        if base is None or rows is None:
            h0, m0, v0 = H[0], M[0], V[0]
            # one ±1 matrix shared by the human and the judge p-values; a sign is the rounded float32
            # uniform, the draw of mt-metrics-eval's pce.py, so that the same seed gives the same signs
            gen = np.random.default_rng(self.spa_seed)
            signs = 2.0 * np.rint(gen.random((self.spa_permutations, h0.shape[1]), dtype=np.float32)) - 1.0
            ph = _spa_pvalues(np.where(v0, h0, 0.0), v0, signs)
            pm = _spa_pvalues(np.where(v0, m0, 0.0), v0, signs)
            self._spa_cache["p"] = base = (ph, pm)
            if rows is None:
                rows = np.arange(H.shape[1])[None, :].repeat(H.shape[0], 0)
        ph, pm = base
        val = _spa_from_pvalues(ph, pm, rows)
        return val, {"groups": np.ones(len(val), int), "groups_dropped": np.zeros(len(val), int)}


def _pearson_moments(n, sh, sm, shh, smm, shm):
    """Pearson's r from (weighted) moments of centred scores; NaN where a variance is (numerically) zero."""
    with np.errstate(invalid="ignore", divide="ignore"):
        vh = n * shh - sh * sh
        vm = n * smm - sm * sm
        r = (n * shm - sh * sm) / np.sqrt(vh * vm)
        ok = (vh > 1e-12 * n * shh) & (vm > 1e-12 * n * smm) & (n >= 2)
    return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)


def _weighted_pearson_rows(x, y, w):
    """Pearson's r of each row of x, y (R, n) with multiplicities w (R, n), two-pass; NaN when constant."""
    with np.errstate(invalid="ignore", divide="ignore"):
        sw = w.sum(axis=1, keepdims=True)
        dx = x - (w * x).sum(axis=1, keepdims=True) / sw
        dy = y - (w * y).sum(axis=1, keepdims=True) / sw
        sxx = (w * dx * dx).sum(axis=1)
        syy = (w * dy * dy).sum(axis=1)
        r = (w * dx * dy).sum(axis=1) / np.sqrt(sxx * syy)
    big = np.where(w > 0, x, -np.inf).max(axis=1)
    small = np.where(w > 0, x, np.inf).min(axis=1)
    bigy = np.where(w > 0, y, -np.inf).max(axis=1)
    smally = np.where(w > 0, y, np.inf).min(axis=1)
    const = (big == small) | (bigy == smally)
    return np.where(const, np.nan, np.clip(r, -1.0, 1.0))


class _Moments:
    """Per-cell terms of Pearson's r (scores centred by their overall mean): replicates as weighted sums."""

    def __init__(self, H, M, V):
        vf = V.astype(float)
        self.V = vf
        self.H = np.where(V, H - H[V].mean() if V.any() else H, 0.0)
        self.M = np.where(V, M - M[V].mean() if V.any() else M, 0.0)
        self.raw_h, self.raw_m = np.where(V, H, 0.0), np.where(V, M, 0.0)
        self.terms = np.stack([vf, self.H, self.M, self.H * self.H, self.M * self.M, self.H * self.M])  # (6, S, I)


def _pearson_boot(spec, mo, c, d):
    """Replicates of Pearson's r at spec.level under row counts c (b, S) and column counts d (b, I)."""
    T = mo.terms
    if spec.level == "item":
        mom = np.einsum("bs,ksi->kbi", c, T)                     # (6, b, I)
        r = _pearson_moments(*mom)
        return spec.aggregate(r, mom[0], mom[0] >= 2, mult=d)[0]
    if spec.level == "system_group":
        mom = np.einsum("ksi,bi->kbs", T, d)
        r = _pearson_moments(*mom)
        return spec.aggregate(r, mom[0], mom[0] >= 2, mult=c)[0]
    if spec.level == "none":
        mom = np.einsum("bs,ksi,bi->kb", c, T, d)
        return spec._finish(_pearson_moments(*mom))
    cnt = d @ mo.V.T                                              # (b, S) cells per system
    with np.errstate(invalid="ignore", divide="ignore"):
        mh = (d @ mo.raw_h.T) / cnt
        mm = (d @ mo.raw_m.T) / cnt
    w = np.where(cnt > 0, c, 0.0)
    return spec._finish(_weighted_pearson_rows(np.where(cnt > 0, mh, 0.0), np.where(cnt > 0, mm, 0.0), w))


def _counts(idx, n):
    """Multiplicities (b, n) of the indices drawn in each row of idx (b, n)."""
    b = idx.shape[0]
    return np.bincount((idx + n * np.arange(b)[:, None]).ravel(), minlength=b * n).reshape(b, n).astype(float)


def _gather(X, rows, cols):
    return X[rows[:, :, None], cols[:, None, :]]


def _chunk_size(s, i, method, level="item", epsilon=0.0):
    """Replicates per chunk: about 8 million array elements per chunk (pair arrays where a method
    compares every pair of a group by broadcasting)."""
    per = s * i * (1 if method == "pearson" else 4 if method == "spearman" else 12)
    if method in ("acc_eq", "kendall_like") or epsilon > 0 or (method not in ("pearson", "spearman") and
                                                                 level == "system"):
        g, n = {"item": (i, s), "system_group": (s, i), "none": (1, s * i), "system": (1, s)}[level]
        per = max(per, 6 * g * n * (n - 1) // 2)
    return int(max(1, min(1000, 8_000_000 // max(1, per))))


def _draw_indices(gen, n, b):
    return gen.integers(0, n, size=(b, n))


def _replicates_inner(specs, mats, scheme, n_resamples, gen):
    """Replicates (B, len(specs)) of every spec from one shared draw; mats = [(H, M, V) per spec]."""
    S, I = mats[0][0].shape
    out = np.empty((n_resamples, len(specs)))
    step = min(min(_chunk_size(S, I, sp.method, sp.level, sp.epsilon) for sp in specs), n_resamples)
    # all indices drawn up front (rows, then columns) when they fit, so that the seed gives the same
    # replicates whatever the chunking; beyond 50 million indices, chunk by chunk
    upfront = n_resamples * (S + I) <= 50_000_000
    if upfront:
        all_rows = _draw_indices(gen, S, n_resamples) if scheme in ("systems", "both") else None
        all_cols = _draw_indices(gen, I, n_resamples) if scheme in ("items", "both") else None
    for a in range(0, n_resamples, step):
        b = min(n_resamples, a + step) - a
        if upfront:
            rows = all_rows[a:a + b] if all_rows is not None else np.broadcast_to(np.arange(S), (b, S))
            cols = all_cols[a:a + b] if all_cols is not None else np.broadcast_to(np.arange(I), (b, I))
        else:
            rows = _draw_indices(gen, S, b) if scheme in ("systems", "both") else np.broadcast_to(np.arange(S), (b, S))
            cols = _draw_indices(gen, I, b) if scheme in ("items", "both") else np.broadcast_to(np.arange(I), (b, I))
        cnt_rows = cnt_cols = None
        for k, (spec, (H, M, V)) in enumerate(zip(specs, mats)):
            if spec.method == "pearson":
                if cnt_rows is None:
                    cnt_rows, cnt_cols = _counts(np.asarray(rows), S), _counts(np.asarray(cols), I)
                out[a:a + b, k] = _pearson_boot(spec, _moments_of(H, M, V), cnt_rows, cnt_cols)
                continue
            if spec.method == "soft_pairwise_accuracy":
                if scheme != "systems":
                    raise InputError("soft_pairwise_accuracy's interval resamples systems only", source="<resample>",
                                     fix="use resample='systems' (its p-values come from permuting items)")
                out[a:a + b, k] = spec.values(H[None], M[None], V[None], rows=np.asarray(rows))[0]
                continue
            out[a:a + b, k] = spec.values(_gather(H, rows, cols), _gather(M, rows, cols), _gather(V, rows, cols))[0]
    return out


_MOMENTS_CACHE: dict = {}


def _moments_of(H, M, V):
    """The moment terms of (H, M, V), kept for the last few matrices (the arrays are held, so their ids
    stay theirs while cached)."""
    key = (id(H), id(M), id(V))
    hit = _MOMENTS_CACHE.get(key)
    if hit is None:
        if len(_MOMENTS_CACHE) >= 8:
            _MOMENTS_CACHE.pop(next(iter(_MOMENTS_CACHE)))
        hit = _MOMENTS_CACHE[key] = (_Moments(H, M, V), (H, M, V))
    return hit[0]


def _jackknife_inner(specs, mats, scheme):
    """Leave-one-out values (U, len(specs)) over the resampled dimension(s)."""
    S, I = mats[0][0].shape
    parts = []
    for dim, n in (("systems", S), ("items", I)):
        if scheme not in (dim, "both"):
            continue
        keep = np.array([np.delete(np.arange(n), j) for j in range(n)]) if n > 1 else np.zeros((1, 0), int)
        vals = np.empty((n, len(specs)))
        step = max(1, min(_chunk_size(S, I, sp.method, sp.level, sp.epsilon) for sp in specs))
        for a in range(0, n, step):
            kk = keep[a:a + step]
            b = len(kk)
            rows = kk if dim == "systems" else np.broadcast_to(np.arange(S), (b, S))
            cols = kk if dim == "items" else np.broadcast_to(np.arange(I), (b, I))
            for k, (spec, (H, M, V)) in enumerate(zip(specs, mats)):
                if spec.method == "pearson":
                    vals[a:a + b, k] = _pearson_boot(spec, _moments_of(H, M, V), _counts(np.asarray(rows), S),
                                                     _counts(np.asarray(cols), I))
                elif spec.method == "soft_pairwise_accuracy":
                    vals[a:a + b, k] = spec.values(H[None], M[None], V[None], rows=np.asarray(rows))[0]
                else:
                    vals[a:a + b, k] = spec.values(_gather(H, rows, cols), _gather(M, rows, cols),
                                                   _gather(V, rows, cols))[0]
        parts.append(vals)
    return np.concatenate(parts, axis=0)


def _replicates(specs, mats, scheme, n_resamples, gen):
    """Replicates (B, len(specs)) of every spec from one shared draw; mats = [(H, M, V) per spec]."""
    try:
        return _replicates_inner(specs, mats, scheme, n_resamples, gen)
    finally:
        _MOMENTS_CACHE.clear()            # the moment terms live for one call only


def _jackknife(specs, mats, scheme):
    """Leave-one-out values (U, len(specs)) over the resampled dimension(s)."""
    try:
        return _jackknife_inner(specs, mats, scheme)
    finally:
        _MOMENTS_CACHE.clear()


def _resolve(convention, **given):
    """Apply a convention's defaults to the arguments left at None."""
    if convention is not None and convention not in CONVENTIONS:
        raise InputError(f"unknown convention {convention!r}", source="<convention>",
                         expected=f"one of {', '.join(CONVENTIONS)}", fix="pick one of those, or None")
    preset = CONVENTIONS.get(convention, {})
    return {k: (preset.get(k) if v is None else v) for k, v in given.items()}


def _auto(ci_method):
    """"auto" → None (the convention or the package decides); None → "none" (point estimate only)."""
    return None if ci_method == "auto" else ("none" if ci_method is None else ci_method)


def _check_choice(value, allowed, name):
    if value not in allowed:
        raise InputError(f"{name}={value!r} is not known", source=f"<{name}>",
                         expected=f"one of {', '.join(map(str, allowed))}", fix=f"pick one for {name}=")


def _prepare(human, judge, system, item, value):
    H, M, systems, items, fates = score_matrices_from(human, judge, system=system, item=item, value=value)
    V = ~(np.isnan(H) | np.isnan(M))
    # C order: a row mean is then numpy's pairwise sum along the row, as np.mean(row) computes it (the
    # order of a float sum decides whether two mathematically equal system means tie)
    return (np.ascontiguousarray(np.where(V, H, 0.0)), np.ascontiguousarray(np.where(V, M, 0.0)),
            np.ascontiguousarray(V), systems, items, fates)


def _unit(scheme, S, I):
    return {"systems": ("systems", S), "items": ("items", I), "both": ("systems and items", S + I)}[scheme]


def _bootstrap_result(theta, reps, jack, *, ci_method, confidence_level, scheme, S, I, seed, alternative):
    unit, n_units = _unit(scheme, S, I)
    accel = jackknife_acceleration(jack) if ci_method == "bca" else None
    return BootstrapResult.from_replicates(theta, reps, ci_method=ci_method, confidence_level=confidence_level,
                                           alternative=alternative, accel=accel, unit=unit, n_units=n_units,
                                           seed=seed)


def level_correlation(human, judge, *, level: str | Sequence[str] = "item",
                      method: str | Sequence[str] = "pearson", system: str | None = None, item: str | None = None,
                      value: str | None = None, ci_method: str | None = "auto", resample: str | None = None,
                      n_resamples: int | None = None, confidence_level: float = 0.95, rng=None,
                      undefined: str | None = None, average: str | None = None, absolute: bool | None = None,
                      epsilon: float = 0.0, kendall_like_threshold: float | None = None,
                      spa_permutations: int = 1000, spa_seed: int = 4, convention: str | None = None,
                      alternative: str = "two-sided") -> Estimate | ResultSet:
    """Correlation of a score judge with human scores at a level (none, item, system group, system).

    Parameters
    ----------
    human, judge : DataFrame or 2-D array
        Score matrices, systems × items: wide frames (index systems, columns items, the same labels
        in both) or long frames with the ``system``, ``item`` and ``value`` columns (a frame of
        :func:`metaeval.read_score_table` of one measure needs no column names: systems × queries).
        Human NaN cells are dropped from both (counted in ``extra["fates"]``).
    level : {"none", "item", "system_group", "system"} or list
        What is correlated (module docstring). Default ``"item"``.
    method : str or list
        A registered method (``metaeval.core.registry.names("levels")``): ``"pearson"``,
        ``"spearman"``, ``"kendall"`` (τ_b), ``"tau_c"``, ``"tau_23"``, ``"acc_23"``, ``"acc_eq"``
        (tie-calibrated acc_23: one ε for all groups), ``"kendall_like"`` (WMT20),
        ``"pairwise_accuracy"``, ``"soft_pairwise_accuracy"`` (WMT24; ``level="system"``).
    system, item, value : str, optional
        Column names of long frames.
    ci_method : {"auto", "bca", "percentile", "basic"} or None
        Interval method; ``"auto"``: the convention's, else the package's (``"bca"``). ``None``
        gives the point estimate alone (nothing is drawn).
    resample : {"systems", "items", "both"}, optional
        BOOT-SYSTEMS, BOOT-INPUTS or BOOT-BOTH (default ``"both"``, chosen from the coverage
        simulation of benchmarks/coverage_levels.py).
    n_resamples : int, optional
        Bootstrap resamples (default 2000, or the convention's).
    confidence_level : float
        Interval coverage (default 0.95).
    rng : None, int or numpy.random.Generator
        The seed (recorded in the result; it reproduces the replicates).
    undefined : {"drop", "zero", "error"}, optional
        Groups whose correlation is undefined (a constant column): left out and counted (default,
        as HANNA and nlpstats), counted as 0 (mt-metrics-eval's ``replace_nans_with_zeros``), or an
        error.
    average : {"macro", "weighted"}, optional
        Plain mean over groups (default), or weighted by the group's valid cells (Kendall-like: by
        its counted pairs, as mt-metrics-eval's ``macro=False``).
    absolute : bool, optional
        Report abs(value) (papers that print abs(r), such as HANNA).
    epsilon : float
        Metric tie threshold of the Kendall variants (abs(Δm) ≤ ε is a tie; not for τ_c).
    kendall_like_threshold : float, optional
        Kendall-like counts the pairs whose human difference is at least this (WMT20 DA: 25, the
        ``"mtme"`` convention); None: every pair the humans do not tie.
    spa_permutations : int
        Permutations behind soft pairwise accuracy's p-values (mt-metrics-eval: 1000).
    spa_seed : int
        Seed of those permutations (mt-metrics-eval's default 4: the same signs, so the same value).
    convention : {"mtme", "nlpstats", "sacrerouge", "geval", "unieval"}, optional
        A set of defaults (:data:`CONVENTIONS`); explicit arguments win.
    alternative : {"two-sided", "less", "greater"}
        Interval sidedness.

    Returns
    -------
    Estimate or ResultSet
        ``statistic`` is the method; ``extra`` holds ``level``, ``fates``, ``groups``,
        ``groups_dropped`` (and ``epsilon`` for acc_eq). A ResultSet (keys ``level``, ``method``)
        when ``level`` or ``method`` is a list; all estimates of one call share one bootstrap draw.

    Notes
    -----
    Item level: r̄ = (1/#J) Σ_{j∈J} corr(H[:, j], M[:, j]) over the items J where it is defined;
    system level: corr(row means of H, row means of M), the means over the cells the human scored.
    Kendall variants come from the pair counts C, D, T_h, T_m, T_hm of each group
    (:mod:`metaeval.levels.pairs`). A bootstrap replicate is the statistic of the matrix with the
    drawn rows and/or columns (duplicates included); BCa's acceleration comes from the jackknife over
    the resampled dimension (leave one system out, one item out, or both sets of leave-one-out values
    pooled for ``"both"``).

    References
    ----------
    Deutsch, Dror & Roth (2021), "A statistical analysis of summarization evaluation metrics using
    resampling methods", TACL; Deutsch, Foster & Freitag (2023), "Ties Matter", EMNLP; Chhun et al.
    (2022), HANNA (COLING): every story- and system-level value of its tables reproduced to 1e-12
    (tests/test_levels_hanna.py); mt-metrics-eval, nlpstats and sacrerouge on random matrices
    (tests/test_levels_reference.py).

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1.0, 2, 3], [2, 2, 4], [3, 5, 1], [4, 4, 2]])
    >>> M = np.array([[1.5, 2, 2], [2, 3, 4], [2, 5, 1], [5, 4, 3]])
    >>> e = level_correlation(H, M, level="item", method="kendall", ci_method=None)
    >>> round(e.estimate, 4), e.extra["groups"], e.extra["groups_dropped"]
    (0.8308, 3, 0)
    >>> rs = level_correlation(H, M, level=["item", "system"], method="pearson", ci_method=None)
    >>> [round(e.estimate, 4) for e in rs]
    [0.8645, 0.8983]
    """
    o = _resolve(convention, undefined=undefined, average=average, absolute=absolute,
                 ci_method=_auto(ci_method), n_resamples=n_resamples, resample=resample)
    undefined = o["undefined"] or "drop"
    average = o["average"] or "macro"
    absolute = bool(o["absolute"])
    ci_method = o["ci_method"] or DEFAULT_CI_METHOD if o["ci_method"] != "none" else None
    n_resamples = check_n_resamples(o["n_resamples"] or DEFAULT_N_RESAMPLES)
    scheme = o["resample"] or DEFAULT_RESAMPLE
    if kendall_like_threshold is None and convention == "mtme":
        kendall_like_threshold = CONVENTIONS["mtme"]["kendall_like_threshold"]
    levels = [level] if isinstance(level, str) else list(level)
    methods = [method] if isinstance(method, str) else list(method)
    for lv in levels:
        _check_choice(lv, LEVELS, "level")
    _check_choice(undefined, ("drop", "zero", "error"), "undefined")
    _check_choice(average, ("macro", "weighted"), "average")
    _check_choice(scheme, RESAMPLE_SCHEMES, "resample")
    if ci_method is not None:
        _check_choice(ci_method, CI_METHODS, "ci_method")
    H, M, V, systems, items, fates = _prepare(human, judge, system, item, value)
    S, I = H.shape
    specs, keys = [], []
    for lv in levels:
        for mt in methods:
            specs.append(_Spec(mt, lv, undefined=undefined, average=average, absolute=absolute, epsilon=epsilon,
                               kendall_like_threshold=kendall_like_threshold, spa_permutations=spa_permutations,
                               spa_seed=spa_seed))
            keys.append({"level": lv, "method": mt})
    theta, infos = [], []
    for sp in specs:
        val, info = sp.values(H[None], M[None], V[None])
        theta.append(float(val[0]))
        infos.append({k: (float(v[0]) if k == "epsilon" else int(v[0])) for k, v in info.items()})
    for sp, th, inf in zip(specs, theta, infos):
        if np.isnan(th):
            warnings.warn(f"{sp.method} at level {sp.level!r} is undefined (NaN): no group has a defined value "
                          f"({inf['groups']} groups with two or more scored outputs)", UndefinedStatisticWarning,
                          stacklevel=2)
        elif inf.get("groups_dropped"):
            warnings.warn(f"{sp.method} at level {sp.level!r}: {inf['groups_dropped']} of {inf['groups']} groups are "
                          "undefined (constant scores) and were left out (undefined='drop')", MetaevalWarning,
                          stacklevel=2)
    if ci_method is None:
        res = BootstrapResult.point(theta, unit="cells", n_units=fates["used"], confidence_level=confidence_level)
        seed = None
    else:
        gen, seed = make_rng(rng)
        mats = [(H, M, V)] * len(specs)
        reps = _replicates(specs, mats, scheme, n_resamples, gen)
        jack = _jackknife(specs, mats, scheme) if ci_method == "bca" else None
        res = _bootstrap_result(theta, reps, jack, ci_method=ci_method, confidence_level=confidence_level,
                                scheme=scheme, S=S, I=I, seed=seed, alternative=alternative)
    extras = [{"level": k["level"], "fates": fates, "n_systems": S, "n_items": I, "convention": convention,
               "resample": scheme if ci_method else None, **inf} for k, inf in zip(keys, infos)]
    ests = res.estimates([k["method"] for k in keys], n=fates["used"], extra=extras, seed=seed)
    if len(ests) == 1:
        return ests[0]
    return ResultSet(ests, keys=keys, name="level_correlation")


# --------------------------------------------------------------------------------------------
# two judges: paired bootstrap, permutation tests, Williams
# --------------------------------------------------------------------------------------------

def _standardize(X, V):
    x = X[V]
    sd = x.std()
    return np.where(V, (X - x.mean()) / (sd if sd > 0 else 1.0), 0.0)


def _coins(gen, shape):
    """Fair coin flips of the given shape (one random bit each)."""
    n = int(np.prod(shape))
    bits = np.unpackbits(gen.integers(0, 256, size=(n + 7) // 8, dtype=np.uint8))[:n]
    return bits.reshape(shape).astype(bool)


def _swap_masks(gen, scheme, b, S, I):
    if scheme == "systems":
        return np.broadcast_to(_coins(gen, (b, S, 1)), (b, S, I))
    if scheme == "items":
        return np.broadcast_to(_coins(gen, (b, 1, I)), (b, S, I))
    if scheme == "both":
        return _coins(gen, (b, S, I))
    # nlpstats: swap rows, then swap columns of the result: a cell ends swapped when exactly one applied
    return _coins(gen, (b, S, 1)) ^ _coins(gen, (b, 1, I))


class _PearsonSwap:
    """Pearson's r of both judges after swapping cells, from moment updates (no recomputation per cell).

    With a swap mask W ∈ {0, 1}: judge* = A + W·(B − A), so Σ judge* = ΣA + ΣW·D, Σ judge*² = ΣA² +
    ΣW·(B² − A²) and Σ h·judge* = Σh·A + ΣW·h·D; the other judge gets the complements.
    """

    def __init__(self, spec, H, A, B, V):
        self.spec = spec
        vf = V.astype(float)
        hc = np.where(V, H - (H[V].mean() if V.any() else 0.0), 0.0)
        A = np.where(V, A, 0.0)
        B = np.where(V, B, 0.0)
        self.V, self.h = vf, hc
        self.D, self.E, self.F = B - A, B * B - A * A, hc * (B - A)
        self.A, self.B = A, B
        lvl = spec.level
        self.red = {"item": (1,), "system_group": (2,), "none": (1, 2), "system": (2,)}[lvl]
        red = tuple(x - 1 for x in self.red)
        self.base = [np.sum(x, axis=red) for x in (vf, hc, hc * hc, A, A * A, hc * A, B, B * B, hc * B)]

    def deltas(self, mask):
        W = mask.astype(float) * self.V
        if self.spec.level == "system":
            cnt = self.V.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                qa = (W * self.D).sum(axis=2)
                ma = (self.A.sum(axis=1) + qa) / cnt
                mb = (self.B.sum(axis=1) - qa) / cnt
                mh = np.where(cnt > 0, (self.h.sum(axis=1)) / cnt, 0.0)
            wts = np.broadcast_to((cnt > 0).astype(float), ma.shape)
            mhb = np.broadcast_to(mh, ma.shape)
            ra = _weighted_pearson_rows(mhb, np.where(cnt > 0, ma, 0.0), wts)
            rb = _weighted_pearson_rows(mhb, np.where(cnt > 0, mb, 0.0), wts)
            return self.spec._finish(ra) - self.spec._finish(rb)
        q1 = W * self.D
        q1 = q1.sum(axis=self.red)
        q2 = (W * self.E).sum(axis=self.red)
        q3 = (W * self.F).sum(axis=self.red)
        n, sh, shh, sa, saa, sha, sb, sbb, shb = self.base
        ra = _pearson_moments(n, sh, sa + q1, shh, saa + q2, sha + q3)
        rb = _pearson_moments(n, sh, sb - q1, shh, sbb - q2, shb - q3)
        if self.spec.level == "none":
            return self.spec._finish(ra) - self.spec._finish(rb)
        nn = np.broadcast_to(n, ra.shape)
        va = self.spec.aggregate(ra, nn, nn >= 2)[0]
        vb = self.spec.aggregate(rb, nn, nn >= 2)[0]
        return va - vb


def level_difference(human, judge, other, *, level: str = "item", method: str = "pearson",
                     system: str | None = None, item: str | None = None, value: str | None = None,
                     permutation: str | None = None, n_permutations: int | None = None,
                     pvalue: str | None = None, standardize: bool | None = None, alternative: str | None = None,
                     ci_method: str | None = "auto", resample: str | None = None, n_resamples: int | None = None,
                     confidence_level: float = 0.95, rng=None, undefined: str | None = None,
                     average: str | None = None, epsilon: float = 0.0, kendall_like_threshold: float | None = None,
                     convention: str | None = None) -> Estimate:
    """Difference corr(judge) − corr(other) on the same humans: paired bootstrap interval and permutation p.

    Parameters
    ----------
    human, judge, other : DataFrame or 2-D array
        Score matrices (systems × items) as in :func:`level_correlation`; the same labels in all three.
    level, method, system, item, value, undefined, average, epsilon, kendall_like_threshold
        As in :func:`level_correlation`.
    permutation : {"systems", "items", "both", "both_rows_then_columns"}, optional
        PERM-SYSTEMS, PERM-INPUTS, PERM-BOTH swapping single cells between the two judges
        (mt-metrics-eval, sacrerouge; the default), or PERM-BOTH swapping rows then columns (nlpstats).
    n_permutations : int, optional
        Default 1000 (or the convention's).
    pvalue : {"plus_one", "plain"}, optional
        ``(count + 1)/(P + 1)`` (default, sacrerouge; a valid p-value) or ``count/P`` (mt-metrics-eval,
        nlpstats).
    standardize : bool, optional
        z-score each judge over the used cells before swapping (default True: the judges may have
        different scales; all three anchors do it).
    alternative : {"two-sided", "greater", "less"}, optional
        ``"greater"``: H1 corr(judge) > corr(other), count of Δ* ≥ Δ; two-sided: abs(Δ*) ≥ abs(Δ).
    ci_method, resample, n_resamples, confidence_level, rng
        The paired bootstrap of the difference: both judges' correlations from one shared draw.
        ``ci_method="auto"``: the convention's or ``"bca"``; None: the permutation test only.
    convention : str, optional
        :data:`CONVENTIONS`.

    Returns
    -------
    Estimate
        ``statistic`` ``"<method>_difference"``; ``pvalue`` from the permutation test; ``extra``:
        ``judge``, ``other`` (the two correlations), ``permutation``, ``n_permutations``,
        ``permutation_count``, ``pvalue_convention``, the replicate differences of the permutations
        (``permutation_deltas``).

    References
    ----------
    Deutsch, Dror & Roth (2021), TACL (PERM-BOTH); mt-metrics-eval ``PermutationSigDiff``, nlpstats
    ``permutation_test``, sacrerouge ``permutation_diff_test`` (p-values within Monte Carlo error:
    tests/test_levels_reference.py).

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> H = g.normal(size=(6, 30)); A = H + g.normal(size=H.shape); B = H + 3 * g.normal(size=H.shape)
    >>> d = level_difference(H, A, B, level="item", n_permutations=500, ci_method=None, rng=1)
    >>> d.estimate > 0, d.pvalue < 0.01
    (True, True)
    """
    o = _resolve(convention, undefined=undefined, average=average, ci_method=_auto(ci_method),
                 n_resamples=n_resamples, resample=resample, permutation=permutation, n_permutations=n_permutations,
                 pvalue=pvalue, standardize=standardize, alternative=alternative)
    permutation = o["permutation"] or "both"
    n_perm = check_n_resamples(o["n_permutations"] or 1000, where="n_permutations")
    pconv = o["pvalue"] or "plus_one"
    standardize = True if o["standardize"] is None else bool(o["standardize"])
    alternative = o["alternative"] or "two-sided"
    ci_method = o["ci_method"] or DEFAULT_CI_METHOD if o["ci_method"] != "none" else None
    scheme = o["resample"] or DEFAULT_RESAMPLE
    _check_choice(level, LEVELS, "level")
    _check_choice(permutation, PERMUTATION_SCHEMES, "permutation")
    _check_choice(pconv, ("plus_one", "plain"), "pvalue")
    _check_choice(alternative, ("two-sided", "greater", "less"), "alternative")
    _check_choice(scheme, RESAMPLE_SCHEMES, "resample")
    if kendall_like_threshold is None and convention == "mtme":
        kendall_like_threshold = CONVENTIONS["mtme"]["kendall_like_threshold"]
    H, A, VA, systems, items, fates = _prepare(human, judge, system, item, value)
    H2, B, VB, _, _, _ = _prepare(human, other, system, item, value)
    V = VA & VB
    spec = _Spec(method, level, undefined=o["undefined"] or "drop", average=o["average"] or "macro", absolute=False,
                 epsilon=epsilon, kendall_like_threshold=kendall_like_threshold, spa_permutations=1000, spa_seed=4)
    if method == "soft_pairwise_accuracy":
        raise InputError("soft_pairwise_accuracy has no permutation test here (its value is itself built from "
                         "permutations)", source="<method>", fix="compare judges with pairwise_accuracy or a correlation")
    if standardize:
        A, B = _standardize(A, V), _standardize(B, V)
    ta = float(spec.values(H[None], A[None], V[None])[0][0])
    tb = float(spec.values(H[None], B[None], V[None])[0][0])
    delta = ta - tb
    gen, seed = make_rng(rng)
    S, I = H.shape
    deltas = np.empty(n_perm)
    step = min(_chunk_size(S, I, method, level, float(epsilon or 0.0)), n_perm)
    fast = _PearsonSwap(spec, H, A, B, V) if method == "pearson" else None
    for a in range(0, n_perm, step):
        b = min(n_perm, a + step) - a
        mask = _swap_masks(gen, permutation, b, S, I)
        if fast is not None:
            deltas[a:a + b] = fast.deltas(mask)
            continue
        Ap = np.where(mask, B[None], A[None])
        Bp = np.where(mask, A[None], B[None])
        Vb = np.broadcast_to(V, (b, S, I))
        Hb = np.broadcast_to(H, (b, S, I))
        deltas[a:a + b] = spec.values(Hb, Ap, Vb)[0] - spec.values(Hb, Bp, Vb)[0]
    ok = ~np.isnan(deltas)
    if alternative == "two-sided":
        count = int((np.abs(deltas[ok]) >= abs(delta)).sum())
    elif alternative == "greater":
        count = int((deltas[ok] >= delta).sum())
    else:
        count = int((deltas[ok] <= delta).sum())
    n_ok = int(ok.sum())
    p = (count + 1) / (n_ok + 1) if pconv == "plus_one" else count / n_ok
    extra = {"level": level, "judge": ta, "other": tb, "permutation": permutation, "n_permutations": n_ok,
             "permutation_count": count, "pvalue_convention": pconv, "standardized": standardize,
             "permutation_deltas": deltas, "fates": fates, "convention": convention, "alternative": alternative}
    name = f"{method}_difference"
    if ci_method is None:
        return Estimate(name, delta, ConfidenceInterval(float("nan"), float("nan"), confidence_level, "none"),
                        pvalue=p, n=fates["used"], unit="cells", n_units=fates["used"], seed=seed, extra=extra)
    n_res = check_n_resamples(o["n_resamples"] or DEFAULT_N_RESAMPLES)
    mats = [(H, A, V), (H, B, V)]
    reps = _replicates([spec, spec], mats, scheme, n_res, gen)
    jack = _jackknife([spec, spec], mats, scheme) if ci_method == "bca" else None
    d_reps = reps[:, 0] - reps[:, 1]
    res = _bootstrap_result(delta, d_reps, None if jack is None else jack[:, 0] - jack[:, 1], ci_method=ci_method,
                            confidence_level=confidence_level, scheme=scheme, S=S, I=I, seed=seed,
                            alternative="two-sided")
    extra["resample"] = scheme
    (e,) = res.estimates(name, n=fates["used"], pvalues=[p], extra=extra, seed=seed)
    return e


def williams_test(human, judge, other, *, level: str = "none", method: str = "pearson",
                  system: str | None = None, item: str | None = None, value: str | None = None,
                  alternative: str = "two-sided", absolute: bool | None = None, n: str | None = None,
                  convention: str | None = None) -> Estimate:
    """Williams' test of corr(human, judge) = corr(human, other) for correlated correlations.

    Parameters
    ----------
    human, judge, other : DataFrame or 2-D array
        Score matrices as in :func:`level_correlation`.
    system, item, value : str, optional
        Column names of long frames.
    level : {"none", "item", "system_group", "system"}
        The three correlations r(h, judge), r(h, other), r(judge, other) at this level.
    method : str
        The correlation (Williams' test assumes Pearson's r; others as the anchors allow).
    alternative : {"two-sided", "greater", "less", "observed"}
        ``"greater"``: H1 corr(judge) > corr(other). ``"observed"``: one-sided in the direction
        observed, P(T ≥ abs(t)) (mt-metrics-eval's ``one_sided=True``).
    absolute : bool, optional
        Use abs(r) (nlpstats, sacrerouge, the WMT scripts); default False.
    n : {"cells", "used", "max_group"}, optional
        The sample size: every cell of the matrix (mt-metrics-eval: the whole vector, missing
        included), the scored cells, or the largest group (nlpstats: systems at system level, the
        largest item at item level). Default: systems at system level, the largest group at
        grouped levels, the used cells at level none.
    convention : str, optional
        ``"mtme"`` (no absolute value, n = every cell, alternative "observed" unless given),
        ``"nlpstats"``, ``"sacrerouge"`` (absolute values, n = the largest group).

    Returns
    -------
    Estimate
        The difference r(h, judge) − r(h, other), the p-value; ``extra`` has ``t``, ``df``,
        ``r_judge``, ``r_other``, ``r_judges``, ``n``.

    References
    ----------
    Williams (1959); Graham & Baldwin (2014); mt-metrics-eval ``WilliamsTest``, nlpstats
    ``williams_test`` (equal p: tests/test_levels_reference.py).

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> H = g.normal(size=(1, 50)); A = H + g.normal(size=H.shape); B = H + 2 * g.normal(size=H.shape)
    >>> w = williams_test(H, A, B, level="none")
    >>> round(w.extra["t"], 3), round(w.pvalue, 4)
    (1.463, 0.1502)
    """
    if convention is not None:
        _resolve(convention)
        if absolute is None:
            absolute = CONVENTIONS[convention].get("williams_absolute", False)
        if n is None:
            n = CONVENTIONS[convention].get("williams_n")
        if convention == "mtme" and alternative == "two-sided":
            alternative = "observed"
    absolute = bool(absolute)
    _check_choice(alternative, ("two-sided", "greater", "less", "observed"), "alternative")
    _check_choice(level, LEVELS, "level")
    H, A, VA, systems, items, fates = _prepare(human, judge, system, item, value)
    _, B, VB, _, _, _ = _prepare(human, other, system, item, value)
    V = VA & VB
    spec = _Spec(method, level, undefined="drop", average="macro", absolute=False, epsilon=0.0,
                 kendall_like_threshold=None, spa_permutations=1000, spa_seed=4)
    r12 = float(spec.values(H[None], A[None], V[None])[0][0])
    r13 = float(spec.values(H[None], B[None], V[None])[0][0])
    r23 = float(spec.values(A[None], B[None], V[None])[0][0])
    if absolute:
        r12, r13, r23 = abs(r12), abs(r13), abs(r23)
    S, I = H.shape
    if n is None:
        n = {"system": "systems", "none": "used"}.get(level, "max_group")
    if n == "cells":
        nn = H.size
    elif n == "used":
        nn = int(V.sum())
    elif n == "systems":
        nn = S
    elif n == "max_group":
        nn = {"system": S, "none": int(V.sum()), "item": int(V.sum(axis=0).max()),
              "system_group": int(V.sum(axis=1).max())}[level]
    else:
        raise InputError(f"n={n!r} is not known", source="<n>", expected="cells, used or max_group", fix="pick one")
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    av = (r12 + r13) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (r12 - r13) * np.sqrt((nn - 1) * (1 + r23) / ((2 * (nn - 1) / (nn - 3)) * det + av ** 2 * (1 - r23) ** 3))
    df = nn - 3
    if alternative == "two-sided":
        p = 2 * sps.t.sf(abs(t), df)
    elif alternative == "greater":
        p = sps.t.sf(t, df)
    elif alternative == "less":
        p = sps.t.sf(-t, df)
    else:
        p = sps.t.sf(abs(t), df)
    return Estimate(f"{method}_difference", r12 - r13, ConfidenceInterval(float("nan"), float("nan"), 0.95, "none"),
                    pvalue=float(min(1.0, p)), n=nn, unit="cells", n_units=int(V.sum()),
                    extra={"t": float(t), "df": int(df), "r_judge": r12, "r_other": r13, "r_judges": r23, "n": nn,
                           "level": level, "test": "williams", "alternative": alternative, "absolute": absolute})
