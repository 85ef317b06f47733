"""Grading noise: how much of a judge's score is the item, and how much the run that graded it.

A judge graded R times on the same items (inspect's epochs, repeated samples at temperature > 0,
several prompt variants) gives a fully crossed random design: items × runs (× judges × prompts). Its
variance components (a generalizability study; Cronbach, Gleser, Nanda & Rajaratnam 1972; Brennan
2001) say how reliable one grading is, how many repeats reach a target reliability
(Spearman–Brown), and how high the judge's agreement with humans can possibly be (Spearman's
attenuation: r_max = √(rel_judge · rel_human)).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..core.errors import InputError

__all__ = ["variance_components", "grading_noise", "GradingNoise", "spearman_brown", "repeats_for_reliability"]


def _check_frame(df, item, score, facets):
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"the repeated grades must be a long pandas DataFrame, got {type(df).__name__}",
                         fix="pass one row per (item, run) with the score, e.g. the judge rows of an eval log")
    cols = [item, *facets, score]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"column {missing[0]!r} is not in the grades (columns: {list(df.columns)[:10]})",
                         fix="name the item, run and score columns with item=, run=, score=")
    y = pd.to_numeric(df[score], errors="coerce")
    bad = y.isna() & df[score].notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"score {df[score].iloc[i]!r} in row {i + 1} is not a number",
                         fix="map the grades to numbers first (e.g. C = 1, I = 0)")
    keys = df[[item, *facets]]
    if keys.isna().any().any():
        i = int(np.flatnonzero(keys.isna().any(axis=1).to_numpy())[0])
        raise InputError(f"row {i + 1} lacks its {'/'.join([item, *facets])} key", fix="drop rows without keys")
    dup = keys.duplicated(keep=False)
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise InputError(f"{int(dup.sum())} rows repeat an ({', '.join([item, *facets])}) cell, e.g. row {i + 1}: "
                         f"{tuple(keys.iloc[i])}", fix="keep one grade per cell (a repeat is a new run id)")
    sizes = [keys[c].nunique() for c in [item, *facets]]
    if math.prod(sizes) != len(df) or y.isna().any():
        raise InputError(f"the design is not balanced: {len(df) - int(y.isna().sum())} graded cells of "
                         f"{' × '.join(map(str, sizes))} = {math.prod(sizes)} (every item graded in every "
                         f"{'/'.join(facets)} once)", fix="keep the items graded in every run, or the runs that graded every item")
    if any(s < 2 for s in sizes):
        raise InputError("each facet needs at least two levels (two items, two runs)",
                         fix="grade each item at least twice")
    order = [item, *facets]
    arr = (df.assign(_y=y).sort_values(order)["_y"].to_numpy().reshape(sizes))
    return arr, sizes


def _anova(arr):
    """Mean squares and degrees of freedom of every effect of a fully crossed balanced design."""
    k = arr.ndim
    n = arr.shape
    grand = arr.mean()
    effects = {}
    # the effect of a set S of factors: its marginal means with every subset's effect removed (Yates)
    for size in range(1, k + 1):
        for S in itertools.combinations(range(k), size):
            other = tuple(i for i in range(k) if i not in S)
            m = arr.mean(axis=other, keepdims=True) if other else arr
            e = m - grand
            for size2 in range(1, size):
                for T in itertools.combinations(S, size2):
                    e = e - effects[T][0]
            effects[S] = (e, None)
    out = {}
    for S, (e, _) in effects.items():
        reps = math.prod(n[i] for i in range(k) if i not in S)
        ss = reps * float((e ** 2).sum())
        df = math.prod(n[i] - 1 for i in S)
        out[S] = (ss / df, df)
    return out


def _components(ms, n):
    """ANOVA (expected-mean-squares) estimates: E[MS_S] = Σ_{T ⊇ S} (Π_{f ∉ T} n_f) σ²_T."""
    k = len(n)
    sigma, coef = {}, {}
    for S in sorted(ms, key=len, reverse=True):
        # σ²_S = (MS_S − Σ_{T ⊋ S} c_T σ²_T) / c_S, and its expression as a combination of mean squares
        c_S = math.prod(n[i] for i in range(k) if i not in S)
        combo = {S: 1.0 / c_S}
        for T in ms:
            if len(T) > len(S) and set(S) <= set(T):
                c_T = math.prod(n[i] for i in range(k) if i not in T)
                for U, w in coef[T].items():
                    combo[U] = combo.get(U, 0.0) - c_T / c_S * w
        coef[S] = {U: w for U, w in combo.items() if abs(w) > 1e-15}
        sigma[S] = sum(w * ms[U][0] for U, w in coef[S].items())
    return sigma, coef


def _f(q, a, b):
    return stats.f.ppf(q, a, b) if np.isfinite(b) else stats.chi2.ppf(q, a) / a


def _mls(pos, neg, a):
    """The modified large-sample interval on γ = Σ_q t_q − Σ_r t_r, each t = c·MS with its df.

    Burdick & Graybill (1992), ch. 3 (Ting, Burdick & Graybill 1990): L = γ̂ − √V_L, U = γ̂ + √V_U with
    V_L = Σ_q G_q² t_q² + Σ_r H_r² t_r² + Σ_qr G_qr t_q t_r + Σ_{q<q'} G*_qq' t_q t_q',
    V_U = Σ_q H_q² t_q² + Σ_r G_r² t_r² + Σ_qr H_qr t_q t_r + Σ_{r<r'} H*_rr' t_r t_r',
    G_n = 1 − 1/F_{1−a; n, ∞}, H_n = 1/F_{a; n, ∞} − 1 (F_{p; ·} the p-quantile),
    G_qr = ((F − 1)² − G_q² F² − H_r²)/F with F = F_{1−a; n_q, n_r}, H_qr = ((1 − f)² − H_q² f² − G_r²)/f
    with f = F_{a; n_q, n_r}, and for two terms of one sign (P of them)
    G*_qq' = (G_{n_q+n_q'}² (n_q + n_q')²/(n_q n_q') − G_q² n_q/n_q' − G_q'² n_q'/n_q)/(P − 1)
    (H*_rr' the same with the negative terms' G's). With one term of each sign it is eq. 3.8/3.9.
    """
    def G(n):
        return 1 - 1 / _f(1 - a, n, np.inf)

    def H(n):
        return 1 / _f(a, n, np.inf) - 1

    est = sum(t for t, _ in pos) - sum(t for t, _ in neg)
    vl = sum(G(n) ** 2 * t ** 2 for t, n in pos) + sum(H(n) ** 2 * t ** 2 for t, n in neg)
    vu = sum(H(n) ** 2 * t ** 2 for t, n in pos) + sum(G(n) ** 2 * t ** 2 for t, n in neg)
    for t1, n1 in pos:
        for t2, n2 in neg:
            F, f = _f(1 - a, n1, n2), _f(a, n1, n2)
            vl += ((F - 1) ** 2 - G(n1) ** 2 * F ** 2 - H(n2) ** 2) / F * t1 * t2
            vu += ((1 - f) ** 2 - H(n1) ** 2 * f ** 2 - G(n2) ** 2) / f * t1 * t2
    for terms, which in ((pos, "low"), (neg, "high")):
        k = len(terms)
        for i, j in itertools.combinations(range(k), 2):
            (t1, n1), (t2, n2) = terms[i], terms[j]
            g = (G(n1 + n2) ** 2 * (n1 + n2) ** 2 / (n1 * n2) - G(n1) ** 2 * n1 / n2 - G(n2) ** 2 * n2 / n1) / (k - 1)
            if which == "low":
                vl += g * t1 * t2
            else:
                vu += g * t1 * t2
    return est - math.sqrt(max(vl, 0.0)), est + math.sqrt(max(vu, 0.0))


def _interval(combo, ms, level):
    """Confidence interval of Σ w_U MS_U: exact (one mean square), modified large-sample for a
    combination of mean squares of both signs (Ting, Burdick & Graybill 1990), Satterthwaite otherwise."""
    a = (1 - level) / 2
    items = list(combo.items())
    est = sum(w * ms[U][0] for U, w in items)
    if len(items) == 1:
        (U, w), = items
        s, df = ms[U]
        return w * s * df / stats.chi2.ppf(1 - a, df), w * s * df / stats.chi2.ppf(a, df), "exact chi-square"
    pos = [(w * ms[U][0], ms[U][1]) for U, w in items if w > 0]
    neg = [(-w * ms[U][0], ms[U][1]) for U, w in items if w < 0]
    if pos and neg:
        low, high = _mls(pos, neg, a)
        return low, high, "modified large-sample (Ting, Burdick & Graybill 1990)"
    terms = [(w * ms[U][0], ms[U][1]) for U, w in items]
    denom = sum(t ** 2 / df for t, df in terms)
    if est <= 0 or denom <= 0:
        return float("nan"), float("nan"), "Satterthwaite (undefined: estimate ≤ 0)"
    nu = est ** 2 / denom
    with np.errstate(divide="ignore", over="ignore"):
        low, high = est * nu / stats.chi2.ppf(1 - a, nu), est * nu / stats.chi2.ppf(a, nu)
    if not low <= est:
        # ν near 0 (an estimate near 0 from large mean squares): both chi-square quantiles fall below ν,
        # the "interval" lies above its own estimate (or is [inf, inf]); the approximation has failed
        return float("nan"), float("nan"), f"Satterthwaite (undefined: {nu:.2g} degrees of freedom)"
    return low, high, "Satterthwaite"


def variance_components(df: pd.DataFrame, *, item: str, score: str, run: str | None = None,
                        judge: str | None = None, prompt: str | None = None,
                        confidence_level: float = 0.95) -> pd.DataFrame:
    """Variance components of repeated grades in a balanced, fully crossed random design.

    Parameters
    ----------
    df : pandas.DataFrame
        Long form: one row per graded cell (item × run, and judge/prompt when given).
    item, score : str
        The item id and the numeric grade columns.
    run : str, optional
        The repeat (epoch, sample) column. At least one of ``run``, ``judge``, ``prompt``.
    judge, prompt : str, optional
        Further crossed facets: several judges, several prompt variants.
    confidence_level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        One row per component (``item``, ``run``, ``item:run`` …; the highest interaction is the
        residual, confounded with error): ``variance`` (ANOVA estimate, may be negative),
        ``share`` (of the total, negatives counted as 0), ``ci_low``, ``ci_high``, ``ci_method``,
        ``df`` (of the component's own mean square), ``mean_square``.

    Notes
    -----
    Mean squares from the marginal means (Yates); each component from the expected mean squares
    of the random model, E[MS_S] = Σ_{T ⊇ S} (Π_{f ∉ T} n_f) σ²_T, solved from the highest
    interaction down. In a balanced design these are the REML estimates whenever they are
    positive (checked against statsmodels' ``MixedLM`` in the tests). Intervals: exact
    chi-square for the residual; for every other component (a combination of mean squares of
    both signs) the modified large-sample interval of Ting, Burdick & Graybill (1990) (Burdick &
    Graybill 1992, eq. 3.8/3.9 for a difference of two, ch. 3's general form beyond); coverage in
    ``benchmarks/coverage_repeats.py``.

    References
    ----------
    Brennan (2001), *Generalizability Theory*, Springer, ch. 3. Burdick & Graybill (1992),
    *Confidence Intervals on Variance Components*, Dekker, eq. 3.8. Ting, Burdick & Graybill
    (1990), *J. Statist. Comput. Simul.* 35, 135–143.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import metaeval as me
    >>> rng = np.random.default_rng(0)
    >>> item = np.repeat(np.arange(200), 5); run = np.tile(np.arange(5), 200)
    >>> score = rng.normal(0, 1, 200)[item] + rng.normal(0, 0.2, 5)[run] + rng.normal(0, 0.5, 1000)
    >>> vc = me.variance_components(pd.DataFrame({"item": item, "run": run, "score": score}),
    ...                             item="item", run="run", score="score")
    >>> vc[["component", "variance", "ci_low", "ci_high"]].round(3)
      component  variance  ci_low  ci_high
    0      item     0.950   0.780    1.179
    1       run     0.051   0.018    0.433
    2  item:run     0.240   0.218    0.265
    """
    if not (isinstance(confidence_level, (int, float)) and 0 < confidence_level < 1):
        raise InputError(f"confidence_level must be in (0, 1), got {confidence_level!r}", fix="pass confidence_level=0.95")
    facets = [c for c in (run, judge, prompt) if c is not None]
    if not facets:
        raise InputError("a variance decomposition needs a facet besides the item",
                         fix="pass run= (the repeat column), judge= or prompt=")
    names = [item, *facets]
    arr, sizes = _check_frame(df, item, score, facets)
    ms = _anova(arr)
    sigma, coef = _components(ms, sizes)
    total = sum(max(v, 0.0) for v in sigma.values())
    rows = []
    for S in sorted(sigma, key=lambda s: (len(s), s)):
        low, high, how = _interval(coef[S], ms, confidence_level)
        v = sigma[S]
        rows.append({"component": ":".join(names[i] for i in S), "variance": v,
                     "share": max(v, 0.0) / total if total > 0 else float("nan"),
                     "ci_low": max(low, 0.0) if np.isfinite(low) else low, "ci_high": high, "ci_method": how,
                     "df": ms[S][1], "mean_square": ms[S][0]})
    out = pd.DataFrame(rows)
    out.attrs["design"] = " × ".join(f"{n} {c}" for c, n in zip(names, sizes))
    return out


def spearman_brown(reliability, k):
    """Reliability of the mean of ``k`` parallel gradings from the reliability of one.

    Parameters
    ----------
    reliability : float or array_like
        The reliability of a single grading, in [0, 1].
    k : float or array_like
        The number of gradings averaged (> 0).

    Returns
    -------
    float or numpy.ndarray
        ``k ρ / (1 + (k − 1) ρ)``.

    References
    ----------
    Spearman (1910), Brown (1910), *British Journal of Psychology* 3.

    Examples
    --------
    >>> from metaeval.monitoring.repeats import spearman_brown
    >>> round(spearman_brown(0.6, 3), 4)
    0.8182
    """
    r = np.asarray(reliability, dtype=float)
    k = np.asarray(k, dtype=float)
    out = k * r / (1 + (k - 1) * r)
    return float(out) if out.ndim == 0 else out


def repeats_for_reliability(reliability: float, target: float) -> int:
    """The smallest number of gradings whose mean reaches a target reliability (Spearman–Brown).

    Parameters
    ----------
    reliability : float
        The reliability of one grading, in (0, 1].
    target : float
        The reliability wanted, in (0, 1).

    Returns
    -------
    int
        ``ceil(target (1 − ρ) / (ρ (1 − target)))`` (1 when one grading already reaches it).

    References
    ----------
    Spearman–Brown prophecy formula solved for k (Brennan 2001, section 5.1).

    Examples
    --------
    >>> from metaeval.monitoring.repeats import repeats_for_reliability
    >>> repeats_for_reliability(0.6, 0.8)
    3
    """
    if not 0 < target < 1:
        raise InputError(f"target must be in (0, 1), got {target!r}", fix="pass target=0.8")
    if not reliability > 0:
        raise InputError(f"the reliability of one grading is {reliability!r}: no number of repeats reaches {target}",
                         fix="the judge's grades carry no item signal; check the grades")
    if reliability >= target:
        return 1
    return int(math.ceil(target * (1 - reliability) / (reliability * (1 - target)) - 1e-12))


@dataclass(frozen=True)
class GradingNoise:
    """What repeated gradings of the same items say about a judge.

    Attributes
    ----------
    components : pandas.DataFrame
        :func:`variance_components` of the grades.
    reliability : float
        Test–retest reliability of one grading: σ²_item / (σ²_item + σ²_run + σ²_item:run) (absolute:
        a run that shifts every grade counts as noise).
    reliability_mean : float
        The reliability of the mean of the ``n_runs`` gradings at hand (Spearman–Brown).
    n_runs : int
    repeats_needed : int or None
        Gradings to average for ``target`` reliability (None when one grading has none).
    target : float
    ceiling : float
        The largest correlation with humans a single grading can have:
        √(reliability · human_reliability).
    human_reliability : float
    flip_rate : float
        Share of items whose gradings fall on both sides of ``threshold`` (NaN without one).
    pair_flip_rate : float
        The probability that two gradings of an item disagree about the threshold.
    borderline_flip_rate : float
        ``flip_rate`` among items whose mean grade is within ``borderline`` of the threshold.
    n_items : int

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import metaeval as me
    >>> rng = np.random.default_rng(0)
    >>> item, run = np.repeat(np.arange(100), 3), np.tile(np.arange(3), 100)
    >>> df = pd.DataFrame({"i": item, "r": run, "y": rng.normal(0, 1, 100)[item] + rng.normal(0, 1, 300)})
    >>> g = me.grading_noise(df, item="i", run="r", score="y")
    >>> g.n_items, g.n_runs, 0 < g.reliability < 1
    (100, 3, True)
    """

    components: pd.DataFrame = field(repr=False)
    reliability: float
    reliability_mean: float
    n_runs: int
    repeats_needed: int | None
    target: float
    ceiling: float
    human_reliability: float
    flip_rate: float
    pair_flip_rate: float
    borderline_flip_rate: float
    n_items: int

    def __str__(self) -> str:
        flips = ("" if math.isnan(self.flip_rate) else
                 f"; {self.flip_rate:.1%} of items flip across runs ({self.borderline_flip_rate:.1%} near the threshold)")
        need = "never" if self.repeats_needed is None else str(self.repeats_needed)
        return (f"grading noise over {self.n_items} items × {self.n_runs} runs: one grading's reliability "
                f"{self.reliability:.3f} (mean of {self.n_runs}: {self.reliability_mean:.3f}); "
                f"{need} grading(s) reach {self.target}; agreement with humans is capped at r = {self.ceiling:.3f}"
                f"{flips}")


def grading_noise(df: pd.DataFrame, *, item: str, score: str, run: str, threshold: float | None = None,
                  borderline: float | None = None, target: float = 0.8, human_reliability: float = 1.0,
                  confidence_level: float = 0.95) -> GradingNoise:
    """How much of a judge's grade is the run that graded it: reliability, flips, repeats, ceiling.

    Parameters
    ----------
    df : pandas.DataFrame
        The repeated-samples long form (one row per item and run; e.g. ``read_eval_log`` frames with
        ``epoch`` as the run, or the judge rows of ``rubric_like``).
    item, score, run : str
        Column names.
    threshold : float, optional
        A pass mark: a grade ≥ threshold passes. Gives the flip rates.
    borderline : float, optional
        Half-width of the band around the threshold where an item counts as borderline (default:
        one grade step (the smallest gap between distinct grades) when there are at most 20
        distinct grades, else the standard deviation of one grading's noise (the residual).
    target : float, default 0.8
        The reliability for ``repeats_needed``.
    human_reliability : float, default 1.0
        The reliability of the human scores the judge is compared with (1 = no ceiling from them).
    confidence_level : float, default 0.95

    Returns
    -------
    GradingNoise

    Notes
    -----
    Reliability of one grading, absolute: ρ₁ = σ²_i / (σ²_i + σ²_r + σ²_ir,e) (Brennan 2001, the
    index of dependability Φ for one run); of the mean of k: Spearman–Brown. The correlation of a
    grading with a human score cannot exceed √(ρ₁ · ρ_human) (Spearman 1904, attenuation).

    References
    ----------
    Brennan (2001), *Generalizability Theory*; Spearman (1904), *Am. J. Psychol.* 15.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import metaeval as me
    >>> rng = np.random.default_rng(1)
    >>> item = np.repeat(np.arange(300), 4); run = np.tile(np.arange(4), 300)
    >>> grade = np.clip(np.round(3 + rng.normal(0, 1, 300)[item] + rng.normal(0, 0.6, 1200)), 1, 5)
    >>> g = me.grading_noise(pd.DataFrame({"item": item, "epoch": run, "grade": grade}),
    ...                      item="item", run="epoch", score="grade", threshold=4)
    >>> round(g.reliability, 3), g.repeats_needed, round(g.flip_rate, 3)
    (0.648, 3, 0.42)
    """
    comps = variance_components(df, item=item, score=score, run=run, confidence_level=confidence_level)
    v = dict(zip(comps["component"], comps["variance"].clip(lower=0.0)))
    total = sum(v.values())
    rel = v[item] / total if total > 0 else float("nan")
    n_items, n_runs = int(df[item].nunique()), int(df[run].nunique())
    if not (isinstance(human_reliability, (int, float)) and 0 < human_reliability <= 1):
        raise InputError(f"human_reliability must be in (0, 1], got {human_reliability!r}",
                         fix="pass the human scores' reliability (1 = treat them as exact)")
    needed = repeats_for_reliability(rel, target) if rel > 0 else None
    flip = pair_flip = border = float("nan")
    if threshold is not None:
        y = pd.to_numeric(df[score]).to_numpy()
        passed = pd.Series(y >= threshold).groupby(df[item].to_numpy()).agg(["sum", "count"])
        p, m = passed["sum"].to_numpy(float), passed["count"].to_numpy(float)
        flip = float(((p > 0) & (p < m)).mean())
        pair_flip = float((2 * p * (m - p) / (m * (m - 1))).mean())
        if borderline is None:
            values = np.unique(y)
            # discrete grades: one grade step; continuous scores: one grading's noise SD
            borderline = (float(np.diff(values).min()) if 1 < len(values) <= 20
                          else math.sqrt(max(float(comps["variance"].iloc[-1]), 0.0)))
        means = pd.Series(y).groupby(df[item].to_numpy()).mean().reindex(passed.index).to_numpy()
        near = np.abs(means - threshold) <= borderline
        border = float(((p > 0) & (p < m))[near].mean()) if near.any() else float("nan")
    return GradingNoise(components=comps, reliability=float(rel),
                        reliability_mean=float(spearman_brown(rel, n_runs)) if rel == rel else float("nan"),
                        n_runs=n_runs, repeats_needed=needed, target=target,
                        ceiling=float(math.sqrt(max(rel, 0.0) * human_reliability)),
                        human_reliability=float(human_reliability), flip_rate=flip, pair_flip_rate=pair_flip,
                        borderline_flip_rate=border, n_items=n_items)
