"""Leaderboard meta-metrics: how well a benchmark separates models and agrees with a reference ranking.

A *leaderboard* is one score per model with an interval (and, where known, the bootstrap
distribution behind it). Li et al. (2024, Arena-Hard, arXiv 2406.11939, §3) judge a benchmark by
three numbers computed from two such leaderboards — the benchmark's and a reference (Chatbot Arena
in the paper; a human leaderboard, another judge or another scoring rule here):

* **separability with confidence**: the share of model pairs whose intervals do not overlap;
* **agreement with confidence**: over the pairs the reference separates, 1 when the benchmark
  separates them in the reference's order, ½ when the benchmark's intervals overlap, 0 when it
  separates them in the opposite order (arena-hard-auto's notebook); equivalently (1 + s)/2 with
  the signed score s = mean of +1 / 0 / −1, which is also reported;
* **pair-rank Brier score**: for every pair, the benchmark's forecast that model a ranks below
  model b, P̂ = Φ((m_b − m_a)/√(v_a + v_b)) from the means m and variances v of the two bootstrap
  distributions, scored against the reference's order: mean of (P̂ − 1[r_a < r_b])².

The exact rules follow arena-hard-auto's statistics notebook (``notebook/benchmark_statistics.ipynb``
at commit bd52a78991225700e9b8403f3e1f3cd4a6b45141, Li & Frick, April 2024), which computed the
paper's numbers: touching interval ends count as separated; the order of two separated intervals
is the order of their ends; a pair the reference does not separate is left out of the agreement;
ties of the reference give the label 0. The notebook's separability and agreement cells disagree
on one edge case, a zero-width interval (an anchor model) inside another: both rules are offered
(``overlap=``), the separability cells' one by default.
tests/reference/make_reference_arena_hard.py runs that notebook's own code on its own data
(and on a seeded small case) and tests/test_leaderboard.py checks every number against it.

The per-model intervals come from metaeval's bootstrap engine (percentile intervals, as
arena-hard-auto's ``np.percentile`` of its bootstrap scores): :func:`leaderboard` resamples the
prompts (items) — all models' scores on one prompt together — or clusters of prompts. The
meta-metrics' own intervals (:func:`leaderboard_metrics`) come from a second, outer bootstrap of
the prompts through the same engine: each outer replicate rebuilds every model's interval from the
resampled prompts and recomputes the meta-metrics, so the interval says how much separability,
agreement and Brier score depend on which prompts the benchmark happened to contain. The
reference is held fixed (it plays the ground truth, as Chatbot Arena does in the paper).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr
from scipy.stats import norm

from ..core.errors import InputError, UndefinedStatisticWarning
from ..core.resample import DEFAULT_N_RESAMPLES, BootstrapResult, Units, bootstrap, make_rng
from ..core.results import ResultSet

__all__ = ["Leaderboard", "leaderboard", "leaderboard_pairs", "leaderboard_metrics", "METRICS", "OVERLAP_RULES"]

#: The statistics :func:`leaderboard_metrics` reports, in order (the last four need a reference).
METRICS = ("separability", "agreement_with_confidence", "agreement_with_confidence_signed", "strict_agreement",
           "spearman", "pair_rank_brier")
_NEEDS_REFERENCE = METRICS[1:]
#: Outer resamples of :func:`leaderboard_metrics` when not told otherwise.
DEFAULT_N_OUTER = 200


# --------------------------------------------------------------------------------------------
# the leaderboard
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Leaderboard:
    """One score per model with its interval, and the bootstrap distribution where known.

    Build one with :func:`leaderboard` (from per-item scores: the prompts are resampled by the
    engine), :meth:`from_replicates` (bootstrap scores someone else drew), :meth:`from_results`
    (a :class:`~metaeval.ResultSet` keyed by model, e.g. from :func:`metaeval.bradley_terry` or
    :func:`metaeval.win_rates`) or :meth:`from_table` (a published leaderboard with intervals or
    standard errors).

    Attributes
    ----------
    table : pandas.DataFrame
        Indexed by model: ``score`` (the point score), ``ci_low``, ``ci_high`` (the interval that
        decides separation), ``mean`` and ``var`` (mean and variance, ddof = 0, of the bootstrap
        distribution: the pair-rank Brier forecast uses them).
    replicates : numpy.ndarray or None
        ``(B, M)`` bootstrap scores, columns in the order of ``table`` (None for a table).
    confidence_level : float
        Level of the intervals.
    ci_method : str
        ``"percentile"`` (engine), the method of the estimates it came from, ``"normal"`` (score ±
        z·se) or ``"given"`` (intervals read from a table).
    unit : str
        What was resampled (``"items"``, ``"clusters"``, ``"given"``).
    n_units : int
        How many units (prompts or clusters; 0 when not known).
    n_resamples : int
        Bootstrap resamples behind the intervals (0 when not known).
    seed : int or None
        Reproduces the replicates (pass it as ``rng``).

    Examples
    --------
    >>> import numpy as np
    >>> reps = np.random.default_rng(0).normal([0.3, 0.5, 0.52], 0.02, size=(1000, 3))
    >>> lb = Leaderboard.from_replicates(reps, models=["a", "b", "c"])
    >>> lb.models
    ['a', 'b', 'c']
    >>> lb.table[["ci_low", "ci_high"]].round(2)
       ci_low  ci_high
    a    0.26     0.34
    b    0.46     0.54
    c    0.48     0.56
    """

    table: pd.DataFrame
    replicates: np.ndarray | None = None
    confidence_level: float = 0.95
    ci_method: str = "percentile"
    unit: str = "items"
    n_units: int = 0
    n_resamples: int = 0
    seed: int | None = None

    @property
    def models(self) -> list:
        """The models, in the order of ``table``.

        Examples
        --------
        >>> Leaderboard.from_table({"x": (1.0, 0.5, 1.5), "y": (2.0, 1.6, 2.4)}).models
        ['x', 'y']
        """
        return list(self.table.index)

    def to_frame(self) -> pd.DataFrame:
        """The leaderboard as a tidy frame, best model first.

        Returns
        -------
        pandas.DataFrame
            ``model, score, ci_low, ci_high, mean, var, confidence_level, ci_method, unit, n_units,
            n_resamples, seed``, sorted by decreasing score (ties in model order).

        Examples
        --------
        >>> Leaderboard.from_table({"x": (1.0, 0.5, 1.5), "y": (2.0, 1.6, 2.4)}).to_frame()[["model", "score"]]
          model  score
        0     y    2.0
        1     x    1.0
        """
        f = self.table.rename_axis("model").reset_index()
        f = f.assign(confidence_level=self.confidence_level, ci_method=self.ci_method, unit=self.unit,
                     n_units=self.n_units, n_resamples=self.n_resamples, seed=self.seed)
        return f.sort_values("score", ascending=False, kind="stable").reset_index(drop=True)

    # ---- constructors ------------------------------------------------------------------------
    @classmethod
    def from_replicates(cls, replicates, *, models=None, point=None, confidence_level: float = 0.95,
                        seed: int | None = None, n_units: int = 0, unit: str = "items") -> Leaderboard:
        """A leaderboard from bootstrap scores: percentile intervals through the engine.

        Parameters
        ----------
        replicates : DataFrame (B × models), mapping model → array (B,), or array (B, M)
            The bootstrap scores; a frame's columns (or the mapping's keys) name the models.
        models : sequence, optional
            Model names for an array (default ``"0"``, ``"1"`` ...).
        point : mapping or array (M,), optional
            The point scores; default the mean of each model's replicates.
        confidence_level : float
            Level of the percentile intervals (default 0.95).
        seed : int, optional
            The seed the replicates were drawn with (recorded).
        n_units : int
            Resampled units behind the replicates (recorded).
        unit : str
            What was resampled (recorded).

        Returns
        -------
        Leaderboard
            ``ci_method="percentile"``; ``mean``/``var`` are the replicates' mean and variance
            (ddof = 0, as arena-hard-auto's ``np.var``).

        References
        ----------
        Percentile intervals as :func:`metaeval.core.resample.ci_from_replicates` (``np.quantile``,
        linear interpolation: the ``np.percentile`` arena-hard-auto uses); checked in
        tests/test_leaderboard.py against arena-hard-auto's 80% intervals.

        Examples
        --------
        >>> import numpy as np
        >>> reps = {"a": np.arange(101.0), "b": np.arange(101.0) + 200}
        >>> Leaderboard.from_replicates(reps, confidence_level=0.9).table[["ci_low", "ci_high"]]
           ci_low  ci_high
        a     5.0     95.0
        b   205.0    295.0
        """
        if isinstance(replicates, pd.DataFrame):
            names, reps = list(replicates.columns), replicates.to_numpy(dtype=float)
        elif isinstance(replicates, Mapping):
            names = list(replicates)
            cols = [np.asarray(replicates[k], dtype=float).ravel() for k in names]
            if len({len(c) for c in cols}) > 1:
                raise InputError("replicates: the models have different numbers of bootstrap scores "
                                 f"({sorted({len(c) for c in cols})})", expected="the same B for every model",
                                 fix="pass the scores of one bootstrap (one row per resample, one column per model)")
            reps = np.column_stack(cols) if cols else np.empty((0, 0))
        else:
            reps = np.asarray(replicates, dtype=float)
            if reps.ndim != 2:
                raise InputError(f"replicates must be 2-D (resamples × models), got shape {reps.shape}")
            names = [str(j) for j in range(reps.shape[1])] if models is None else list(models)
        if models is not None and not isinstance(replicates, np.ndarray):
            names = list(models)
        if reps.ndim != 2 or reps.shape[0] < 2 or reps.shape[1] != len(names):
            raise InputError(f"replicates: need at least 2 resamples of {len(names)} models, got shape {reps.shape}")
        theta = np.nanmean(reps, axis=0) if point is None else _point(point, names)
        res = BootstrapResult.from_replicates(theta, reps, ci_method="percentile", confidence_level=confidence_level,
                                              n_units=n_units, unit=unit, cluster_correction=False, seed=seed)
        return cls._from_boot(res, names)

    @classmethod
    def _from_boot(cls, res: BootstrapResult, names) -> Leaderboard:
        reps = res.replicates
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean, var = np.nanmean(reps, axis=0), np.nanvar(reps, axis=0)
        table = pd.DataFrame({"score": res.theta_hat, "ci_low": res.low, "ci_high": res.high, "mean": mean,
                              "var": var}, index=pd.Index(names, name=None))
        return cls(table=table, replicates=reps, confidence_level=res.confidence_level, ci_method=res.method,
                   unit=res.unit, n_units=res.n_units, n_resamples=res.n_resamples, seed=res.seed)

    @classmethod
    def from_results(cls, results: ResultSet, *, model: str = "model", statistic: str | None = None) -> Leaderboard:
        """A leaderboard from a result set keyed by model (its estimates, intervals and replicates).

        Parameters
        ----------
        results : ResultSet
            One estimate per model, e.g. :func:`metaeval.bradley_terry` (battles resampled
            together, as arena-hard-auto does) or :func:`metaeval.win_rates` with one tie rule.
        model : str
            The key that names the model (default ``"model"``).
        statistic : str, optional
            Keep only the estimates of this statistic (when the set holds several).

        Returns
        -------
        Leaderboard
            The estimates' own intervals (their method and level); ``mean`` and ``var`` from
            their replicates (the estimate and NaN when they were not kept).

        References
        ----------
        tests/test_leaderboard.py: equal to :meth:`from_replicates` on the same replicates.

        Examples
        --------
        >>> import metaeval as me
        >>> b = me.datasets.load("battles_like").battles
        >>> b = b[(b.judge == "judge") & (b.outcome != "invalid")]
        >>> bt = me.bradley_terry(b, ci_method="percentile", n_resamples=200, rng=0)
        >>> lb = Leaderboard.from_results(bt)
        >>> lb.ci_method, lb.n_resamples, len(lb.models)
        ('percentile', 200, 8)
        """
        rs = results.filter(statistic) if statistic is not None else results
        if model not in rs.key_columns:
            raise InputError(f"results have no key {model!r} (keys: {rs.key_columns})",
                             fix="pass model= the key that names the models")
        keys = [k.get(model) for k in rs.keys]
        if len(set(keys)) != len(keys):
            raise InputError("results hold several estimates per model", fix="pass statistic= or filter the set first")
        est = list(rs)
        reps = [e.replicates for e in est]
        if all(r is not None for r in reps) and len({len(r) for r in reps}) == 1:
            R = np.column_stack(reps)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                mean, var = np.nanmean(R, axis=0), np.nanvar(R, axis=0)
        else:
            R, mean, var = None, np.array([e.estimate for e in est]), np.full(len(est), np.nan)
        table = pd.DataFrame({"score": [e.estimate for e in est], "ci_low": [e.ci.low for e in est],
                              "ci_high": [e.ci.high for e in est], "mean": mean, "var": var}, index=keys)
        e0 = est[0] if est else None
        return cls(table=table, replicates=R, confidence_level=e0.ci.level if e0 else 0.95,
                   ci_method=e0.ci.method if e0 else "none", unit=e0.unit if e0 else "items",
                   n_units=e0.n_units if e0 else 0, n_resamples=e0.n_resamples if e0 else 0,
                   seed=e0.seed if e0 else None)

    @classmethod
    def from_table(cls, table, *, model: str | None = None, score: str = "score", ci_low: str | None = "ci_low",
                   ci_high: str | None = "ci_high", se: str | None = None, mean: str | None = None,
                   var: str | None = None, confidence_level: float = 0.95) -> Leaderboard:
        """A leaderboard from a published table: scores with intervals, or with standard errors.

        Parameters
        ----------
        table : DataFrame or mapping model → (score, ci_low, ci_high)
            One row per model (the model in column ``model``, or the index).
        model : str, optional
            Column of model names (default: the index).
        score : str
            Column of point scores.
        ci_low, ci_high : str or None
            Columns of the interval ends. Set both to None and give ``se`` for normal intervals.
        se : str, optional
            Column of standard errors: interval score ± z·se (z for ``confidence_level``), and
            variance se² for the Brier forecast.
        mean, var : str, optional
            Columns of the bootstrap mean and variance (default: the score, and the variance
            implied by the interval, ((high − low)/(2z))², or se²).
        confidence_level : float
            The level of the given intervals, or of the normal ones.

        Returns
        -------
        Leaderboard
            ``ci_method`` ``"given"`` or ``"normal"``; no replicates.

        References
        ----------
        The normal interval is the one AlpacaEval's published ``standard_error`` implies;
        tests/test_leaderboard.py builds arena-hard-auto's tables with it and reproduces the
        notebook's numbers.

        Examples
        --------
        >>> lb = Leaderboard.from_table({"x": (1.0, 0.5, 1.5), "y": (2.0, 1.6, 2.4)})
        >>> lb.table.round(3)
           score  ci_low  ci_high  mean    var
        x    1.0     0.5      1.5   1.0  0.065
        y    2.0     1.6      2.4   2.0  0.042
        """
        if isinstance(table, Mapping):
            table = pd.DataFrame.from_dict(dict(table), orient="index", columns=["score", "ci_low", "ci_high"])
            model, score, ci_low, ci_high = None, "score", "ci_low", "ci_high"
        f = table.set_index(model) if model is not None else table
        z = float(norm.ppf(0.5 + confidence_level / 2))
        need = [score] + ([se] if se else [ci_low, ci_high])
        miss = [c for c in need if c is None or c not in f.columns]
        if miss:
            raise InputError(f"leaderboard table lacks columns {miss} (has {list(f.columns)})",
                             fix="name the score and either ci_low/ci_high or se columns")
        s = f[score].to_numpy(dtype=float)
        if se:
            sd = f[se].to_numpy(dtype=float)
            lo, hi, method = s - z * sd, s + z * sd, "normal"
            v = sd**2
        else:
            lo, hi, method = f[ci_low].to_numpy(dtype=float), f[ci_high].to_numpy(dtype=float), "given"
            v = ((hi - lo) / (2 * z)) ** 2
        m = f[mean].to_numpy(dtype=float) if mean else s
        if var:
            v = f[var].to_numpy(dtype=float)
        if f.index.has_duplicates:
            raise InputError("leaderboard table has duplicate models", text=str(list(f.index[f.index.duplicated()])[:5]))
        out = pd.DataFrame({"score": s, "ci_low": lo, "ci_high": hi, "mean": m, "var": v}, index=list(f.index))
        return cls(table=out, replicates=None, confidence_level=confidence_level, ci_method=method, unit="given")


def _point(point, names):
    if isinstance(point, Mapping):
        return np.array([float(point[k]) for k in names])
    if isinstance(point, pd.Series):
        return point.reindex(names).to_numpy(dtype=float)
    p = np.asarray(point, dtype=float).ravel()
    if len(p) != len(names):
        raise InputError(f"point has {len(p)} scores for {len(names)} models")
    return p


# --------------------------------------------------------------------------------------------
# per-item scores → units → leaderboard
# --------------------------------------------------------------------------------------------

@dataclass
class _ItemData:
    X: np.ndarray          # (U, 2M): per-unit counts then sums of each model
    models: list
    unit: str
    n_items: int


def _item_data(data: pd.DataFrame, item: str, model: str, score: str, cluster: str | None) -> _ItemData:
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"per-item scores must be a DataFrame, got {type(data).__name__}",
                         fix=f"pass a long frame with columns {item!r}, {model!r}, {score!r}")
    need = [item, model, score] + ([cluster] if cluster else [])
    miss = [c for c in need if c not in data.columns]
    if miss:
        raise InputError(f"per-item scores lack columns {miss} (has {list(data.columns)})", source="<DataFrame>",
                         fix="name the columns with item=, model=, score= (and cluster=)")
    d = data[need]
    s = pd.to_numeric(d[score], errors="coerce")
    if s.isna().any():
        bad = int(s.isna().sum())
        raise InputError(f"{bad} per-item scores are missing or not numbers", source="<DataFrame>",
                         text=str(d.loc[s.isna(), score].head(3).tolist()),
                         fix="drop those rows (and say so) or fill them before building the leaderboard")
    dup = d.duplicated([item, model])
    if dup.any():
        first = d.loc[dup, [item, model]].iloc[0].tolist()
        raise InputError(f"{int(dup.sum())} (item, model) pairs occur more than once", source="<DataFrame>",
                         text=str(first), expected="one score per model and item",
                         fix="average repeated judgments first (e.g. groupby([item, model]).mean())")
    if cluster is not None:
        per = d.groupby(item)[cluster].nunique()
        if (per > 1).any():
            raise InputError(f"item {per.index[per > 1][0]!r} lies in several clusters", fix="give each item one cluster")
    models = sorted(pd.unique(d[model]).tolist(), key=str)
    mcode = pd.Categorical(d[model], categories=models).codes
    unit_col = cluster if cluster is not None else item
    ucode, _ = pd.factorize(d[unit_col], sort=True)
    U, M = int(ucode.max()) + 1, len(models)
    X = np.zeros((U, 2 * M))
    np.add.at(X, (ucode, mcode), 1.0)
    np.add.at(X, (ucode, M + mcode), s.to_numpy(dtype=float))
    return _ItemData(X=X, models=models, unit="clusters" if cluster is not None else "items",
                     n_items=int(d[item].nunique()))


def _means(M: int):
    def stat(S):
        with np.errstate(invalid="ignore", divide="ignore"):
            return S[:, M:] / S[:, :M]
    return stat


def _board(units: Units, models, *, n_resamples, confidence_level, rng) -> Leaderboard:
    """The one place per-item scores become a leaderboard: the engine's percentile bootstrap."""
    res = bootstrap(_means(len(models)), units, n_resamples=n_resamples, ci_method="percentile",
                    confidence_level=confidence_level, rng=rng)
    return Leaderboard._from_boot(res, models)


def leaderboard(data: pd.DataFrame, *, item: str = "item_id", model: str = "model", score: str = "score",
                cluster: str | None = None, n_resamples: int = DEFAULT_N_RESAMPLES, confidence_level: float = 0.95,
                rng: None | int | np.random.Generator = None) -> Leaderboard:
    """Each model's mean score over the prompts, with a prompt-bootstrap percentile interval.

    The prompts (items) are resampled with replacement, all models' scores on a prompt together
    (or whole clusters of prompts with ``cluster=``), by metaeval's engine; a model's score in a
    replicate is its mean over the resampled prompts it has a score on.

    Parameters
    ----------
    data : pandas.DataFrame
        Long per-item scores: one row per (item, model), e.g. AlpacaEval's preference − 1 against
        the baseline, or a 0/1 win.
    item, model, score : str
        Column names.
    cluster : str, optional
        Column of prompt clusters (topics, categories) to resample instead of prompts; the engine
        widens the interval for few clusters and warns below 7.
    n_resamples : int
        Bootstrap resamples (default :data:`~metaeval.core.resample.DEFAULT_N_RESAMPLES`).
    confidence_level : float
        Level of the percentile intervals (default 0.95, the paper's).
    rng : None, int or numpy.random.Generator
        Seed (recorded in the result).

    Returns
    -------
    Leaderboard
        ``unit`` ``"items"`` or ``"clusters"``; replicates kept.

    Raises
    ------
    InputError
        Missing columns, non-numeric scores, an (item, model) pair given twice.

    References
    ----------
    arena-hard-auto resamples its battles (one prompt's games) with replacement and reports the
    2.5% and 97.5% percentiles of the bootstrap scores (``show_result.py``,
    ``get_bootstrap_result``); the per-model means equal pandas' ``groupby(model).mean()``
    (tests/test_leaderboard.py).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> d = pd.DataFrame({"item_id": np.repeat(np.arange(200), 3), "model": ["a", "b", "c"] * 200,
    ...                   "score": rng.binomial(1, np.tile([0.3, 0.5, 0.55], 200))})
    >>> lb = leaderboard(d, n_resamples=500, rng=0)
    >>> lb.table["score"].round(3).tolist(), lb.unit, lb.n_units
    ([0.33, 0.47, 0.595], 'items', 200)
    """
    idata = _item_data(data, item, model, score, cluster)
    units = Units(idata.X, np.ones(len(idata.X), dtype=np.int64), kind=idata.unit)
    return _board(units, idata.models, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)


# --------------------------------------------------------------------------------------------
# the meta-metrics (vectorized over a leading axis of leaderboards)
# --------------------------------------------------------------------------------------------

def _pairs(M: int):
    return np.triu_indices(M, 1)


#: How two intervals are judged to overlap (see :func:`leaderboard_metrics`, ``overlap=``).
OVERLAP_RULES = ("strict", "positive_length")


def _separated(low, high, i, j, rule="strict"):
    """Non-overlapping intervals, shape (..., P); touching ends count as separated under both rules."""
    if rule == "strict":
        return (low[..., j] >= high[..., i]) | (low[..., i] >= high[..., j])
    return np.minimum(high[..., i], high[..., j]) - np.maximum(low[..., i], low[..., j]) <= 0


def _interval_order(low, high, i, j):
    """+1 when j's interval lies above i's, −1 below, 0 when the intervals are identical (lexicographic)."""
    d = np.sign(low[..., j] - low[..., i])
    return np.where(d != 0, d, np.sign(high[..., j] - high[..., i]))


def _forecast(mean, var, i, j):
    """P̂(a ranks below b) = Φ((m_b − m_a)/√(v_a + v_b)); a step (½ at a tie) when both variances are 0."""
    diff = mean[..., j] - mean[..., i]
    sd = np.sqrt(var[..., i] + var[..., j])
    with np.errstate(invalid="ignore", divide="ignore"):
        p = ndtr(diff / sd)
    step = np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5))
    return np.where(sd > 0, p, step)


def _rank(x):
    from scipy.stats import rankdata
    return rankdata(x, axis=-1)


def _spearman(a, b):
    ra, rb = _rank(a), _rank(np.broadcast_to(b, a.shape))
    ra = ra - ra.mean(axis=-1, keepdims=True)
    rb = rb - rb.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ra * rb).sum(axis=-1) / np.sqrt((ra**2).sum(axis=-1) * (rb**2).sum(axis=-1))


def _metrics(score, low, high, mean, var, ref, rule="strict") -> np.ndarray:
    """The meta-metrics of leaderboards (b, M) against a fixed reference (or None): (b, len(METRICS))."""
    b, M = score.shape
    i, j = _pairs(M)
    out = np.full((b, len(METRICS)), np.nan)
    if len(i) == 0:
        return out
    sep = _separated(low, high, i, j, rule)
    out[:, 0] = sep.mean(axis=-1)
    if ref is None:
        return out
    rs, rl, rh = ref["score"], ref["ci_low"], ref["ci_high"]
    rsep = _separated(rl, rh, i, j, rule)
    rdir = _interval_order(rl, rh, i, j)
    bdir = _interval_order(low, high, i, j)
    signed = np.where(sep, np.where(bdir == rdir, 1.0, -1.0), 0.0)
    n_ref = int(rsep.sum())
    if n_ref:
        s = (signed * rsep).sum(axis=-1) / n_ref
        out[:, 1] = (1 + s) / 2
        out[:, 2] = s
    out[:, 3] = (np.sign(score[:, j] - score[:, i]) * np.sign(rs[j] - rs[i]) > 0).mean(axis=-1)
    out[:, 4] = _spearman(score, rs)
    label = (rs[i] < rs[j]).astype(float)
    out[:, 5] = ((_forecast(mean, var, i, j) - label) ** 2).mean(axis=-1)
    return out


def _aligned(board: Leaderboard, reference: Leaderboard | None):
    """The two tables on their shared models, in sorted model order (as arena-hard-auto's Brier pairs)."""
    if reference is None:
        models = sorted(board.models, key=str)
        return board.table.loc[models], None, models
    shared = set(board.models) & set(reference.models)
    models = sorted(shared, key=str)
    only = sorted(set(board.models) ^ shared, key=str) + sorted(set(reference.models) ^ shared, key=str)
    if only:
        warnings.warn(f"{len(only)} models are on one leaderboard only and are left out: {only[:8]}"
                      + (" …" if len(only) > 8 else ""), UndefinedStatisticWarning, stacklevel=3)
    if len(models) < 2:
        raise InputError(f"the leaderboards share {len(models)} models; the meta-metrics need at least 2",
                         fix="check that both name the models the same way")
    return board.table.loc[models], reference.table.loc[models], models


def _ref_arrays(rt: pd.DataFrame | None):
    if rt is None:
        return None
    return {c: rt[c].to_numpy(dtype=float) for c in ("score", "ci_low", "ci_high")}


def _board_arrays(t: pd.DataFrame):
    return [t[c].to_numpy(dtype=float)[None, :] for c in ("score", "ci_low", "ci_high", "mean", "var")]


def leaderboard_pairs(board: Leaderboard, reference: Leaderboard | None = None, *,
                      overlap: str = "strict") -> pd.DataFrame:
    """Every model pair with what each meta-metric counts for it.

    Parameters
    ----------
    board : Leaderboard
        The benchmark's leaderboard.
    reference : Leaderboard, optional
        The reference leaderboard (only the models on both are paired).
    overlap : {"strict", "positive_length"}
        When two intervals overlap (see :func:`leaderboard_metrics`).

    Returns
    -------
    pandas.DataFrame
        One row per pair (model_a < model_b by name): ``model_a, model_b, score_a, score_b,
        separated`` and, with a reference, ``reference_separated``, ``agreement`` (1, ½ or 0; NaN
        where the reference does not separate the pair), ``signed`` (+1, 0, −1; NaN likewise),
        ``strict`` (the point scores order the pair as the reference's do), ``p_a_below_b`` (the
        Brier forecast), ``label`` (1 when the reference scores a below b) and ``brier``.

    References
    ----------
    Li et al. (2024), arXiv 2406.11939, §3; arena-hard-auto's ``benchmark_statistics.ipynb``
    (commit bd52a78): the per-pair records of its ``calculate_predictions_and_labels``
    (tests/test_leaderboard.py).

    Examples
    --------
    >>> lb = Leaderboard.from_table({"x": (1.0, 0.5, 1.5), "y": (2.0, 1.6, 2.4), "z": (2.1, 1.4, 2.8)})
    >>> ref = Leaderboard.from_table({"x": (10, 9, 11), "y": (20, 19, 21), "z": (15, 14, 16)})
    >>> leaderboard_pairs(lb, ref)[["model_a", "model_b", "separated", "agreement", "label"]]
      model_a model_b  separated  agreement  label
    0       x       y       True        1.0    1.0
    1       x       z      False        0.5    1.0
    2       y       z      False        0.5    0.0
    """
    _check_rule(overlap)
    t, rt, models = _aligned(board, reference)
    i, j = _pairs(len(models))
    score, low, high, mean, var = _board_arrays(t)
    f = pd.DataFrame({"model_a": [models[k] for k in i], "model_b": [models[k] for k in j],
                      "score_a": score[0, i], "score_b": score[0, j],
                      "separated": _separated(low, high, i, j, overlap)[0]})
    if rt is None:
        return f
    ref = _ref_arrays(rt)
    rsep = _separated(ref["ci_low"], ref["ci_high"], i, j, overlap)
    same = _interval_order(low, high, i, j)[0] == _interval_order(ref["ci_low"], ref["ci_high"], i, j)
    signed = np.where(f["separated"], np.where(same, 1.0, -1.0), 0.0)
    f["reference_separated"] = rsep
    f["signed"] = np.where(rsep, signed, np.nan)
    f["agreement"] = (1 + f["signed"]) / 2
    f["strict"] = np.sign(score[0, j] - score[0, i]) * np.sign(ref["score"][j] - ref["score"][i]) > 0
    f["p_a_below_b"] = _forecast(mean, var, i, j)[0]
    f["label"] = (ref["score"][i] < ref["score"][j]).astype(float)
    f["brier"] = (f["p_a_below_b"] - f["label"]) ** 2
    return f


def _check_rule(overlap):
    if overlap not in OVERLAP_RULES:
        raise InputError(f"overlap must be one of {OVERLAP_RULES}, got {overlap!r}")


def _as_board(x, what, *, item, model, score, cluster, n_resamples, confidence_level, rng):
    if isinstance(x, Leaderboard):
        return x, None
    if isinstance(x, ResultSet):
        return Leaderboard.from_results(x, model="model"), None
    if isinstance(x, pd.DataFrame):
        idata = _item_data(x, item, model, score, cluster)
        units = Units(idata.X, np.ones(len(idata.X), dtype=np.int64), kind=idata.unit)
        return _board(units, idata.models, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng), idata
    raise InputError(f"{what} must be a per-item DataFrame, a Leaderboard or a ResultSet keyed by model, "
                     f"got {type(x).__name__}")


def leaderboard_metrics(scores, reference=None, *, item: str = "item_id", model: str = "model",
                        score: str = "score", cluster: str | None = None, pair_confidence_level: float = 0.95,
                        n_resamples: int = DEFAULT_N_RESAMPLES, ci_method: str | None = "percentile",
                        confidence_level: float = 0.95, n_outer: int = DEFAULT_N_OUTER, n_inner: int | None = None,
                        overlap: str = "strict", rng: None | int | np.random.Generator = None) -> ResultSet:
    """Separability, agreement with confidence and pair-rank Brier score of a leaderboard.

    Parameters
    ----------
    scores : DataFrame, Leaderboard or ResultSet
        The benchmark: per-item scores (long: ``item``, ``model``, ``score``), a
        :class:`Leaderboard`, or a result set keyed by model (see :meth:`Leaderboard.from_results`).
    reference : DataFrame, Leaderboard or ResultSet, optional
        The reference leaderboard (human preference in the paper), in any of the same forms; held
        fixed. Without it only separability is computed.
    item, model, score : str
        Column names of per-item frames.
    cluster : str, optional
        Resample clusters of prompts instead of prompts (per-item frames only).
    pair_confidence_level : float
        Level of the per-model intervals that decide whether two models are separated (0.95 in
        the paper; arena-hard-auto's notebook also reports 0.80). Used when a leaderboard is
        built here from per-item scores; a given Leaderboard keeps its own intervals.
    n_resamples : int
        Bootstrap resamples behind each per-model interval.
    ci_method : {"percentile"} or None
        Interval of the meta-metrics from the outer bootstrap of the prompts; None for the point
        values (required when ``scores`` is not per-item data). The percentile interval was chosen
        by a coverage simulation (Notes); the basic interval undercovers badly and is not offered.
    confidence_level : float
        Level of the meta-metrics' intervals.
    n_outer : int
        Outer resamples (each rebuilds every model's interval from ``n_inner`` inner ones).
    n_inner : int, optional
        Inner resamples per outer replicate (default ``n_resamples``; fewer make the outer
        bootstrap cheaper, its cost being n_outer × n_inner multinomial draws over the prompts).
    overlap : {"strict", "positive_length"}
        When two intervals [l_i, h_i], [l_j, h_j] overlap. ``"strict"`` (default): l_j < h_i and
        l_i < h_j — touching ends do not overlap, a zero-width interval (an anchor model) inside
        another does; this is arena-hard-auto's separability count. ``"positive_length"``: their
        intersection has positive length, min(h) − max(l) > 0 — the rule of the notebook's
        agreement cells, under which a zero-width interval overlaps nothing. The two differ only
        for zero-width intervals (on the notebook's data: Chatbot Arena's anchor
        mixtral-8x7b-instruct-v0.1, 1114 ± 0, which the agreement cells count as separated from
        three models whose intervals contain 1114).
    rng : None, int or numpy.random.Generator
        Seed of the whole computation (recorded).

    Returns
    -------
    ResultSet
        Statistics (:data:`METRICS`): ``separability`` (n = all pairs), and with a reference
        ``agreement_with_confidence`` (1 / ½ / 0 per pair the reference separates; n = those
        pairs), ``agreement_with_confidence_signed`` (+1 / 0 / −1, = 2·agreement − 1),
        ``strict_agreement`` (the point scores order a pair as the reference's, over all pairs),
        ``spearman`` (of the point scores) and ``pair_rank_brier``. ``unit`` and ``n_units`` are
        the prompts (or clusters) resampled by the outer bootstrap; ``extra`` holds ``n_models``,
        ``n_pairs``, ``pair_confidence_level`` and ``overlap``.

    Raises
    ------
    InputError
        Unusable inputs; an interval asked for a leaderboard that is not per-item data;
        ``ci_method="bca"`` (its jackknife would rerun the inner bootstrap once per prompt).

    Notes
    -----
    For M models there are P = M(M − 1)/2 pairs (i, j). With intervals [l, h], the pair is
    separated when l_j ≥ h_i or l_i ≥ h_j. Separability = #separated / P. Over the set R of
    pairs the reference separates, agreement = ``(1/|R|) Σ_R a_ij`` with a_ij = 1 when the benchmark
    separates the pair in the reference's order, ½ when it does not separate it, 0 when it
    separates it in the opposite order; signed = 2·agreement − 1. Brier = (1/P) Σ (Φ((m_j − m_i)
    /√(v_i + v_j)) − 1[r_i < r_j])² over the pairs in name order, m and v the mean and variance
    (ddof = 0) of each model's bootstrap scores, r the reference's scores. NaN (with a warning)
    when the reference separates no pair.

    The outer replicates are biased upward for separability and agreement (a resample's noise
    pushes close pairs apart), so the percentile interval sits mostly above the estimate. Its
    coverage of the expected value of each meta-metric over data sets of the same size (its mean
    over 400 data sets), measured by simulation (8 models with win probabilities evenly spaced
    from 0.2 to 0.75, 300 prompts, a fixed reference that separates every pair in the true order,
    150 outer × 300 inner resamples; mean over 10 seeds of 8 data sets ± the SD across seeds / √10,
    benchmarks/coverage_seeds.py ``--only leaderboard``): separability 0.99 ± 0.01, agreement
    0.99 ± 0.01, strict agreement and Spearman 1.00 (all 80 data sets), Brier 0.98 ± 0.02 —
    conservative. The basic interval covered 0.74 ± 0.05 (separability, agreement),
    0.13 ± 0.02 (strict agreement, Spearman) and 0.44 ± 0.05 (Brier). A first run (one run of 80
    data sets with another fixed reference, its code not kept; Monte Carlo error ±0.02 and ±0.05)
    gave 0.96–0.99 for the percentile interval and 0.36–0.72 for the basic one.

    References
    ----------
    Li, Chiang, Frick, Dunlap, Wu, Zhu, Gonzalez & Stoica (2024), "From Crowdsourced Data to
    High-Quality Benchmarks: Arena-Hard and BenchBuilder Pipeline", arXiv 2406.11939, §3;
    arena-hard-auto's ``notebook/benchmark_statistics.ipynb`` at commit bd52a78: its own code on
    its own data gives the numbers tests/test_leaderboard.py reproduces (e.g. AlpacaEval 2.0 LC on
    the 20 shared models: separability 0.8789, agreement with Chatbot Arena 0.8729, Brier 0.1347).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(3)
    >>> p = np.tile([0.2, 0.4, 0.45, 0.7], 300)
    >>> d = pd.DataFrame({"item_id": np.repeat(np.arange(300), 4), "model": list("abcd") * 300,
    ...                   "score": rng.binomial(1, p)})
    >>> ref = Leaderboard.from_table({"a": (1, 0.9, 1.1), "b": (2, 1.9, 2.1), "c": (3, 2.9, 3.1), "d": (4, 3.9, 4.1)})
    >>> rs = leaderboard_metrics(d, ref, n_resamples=300, n_outer=30, rng=0)
    >>> rs.to_frame()[["statistic", "estimate", "n"]].round(3)
                              statistic  estimate  n
    0                      separability     0.833  6
    1         agreement_with_confidence     0.917  6
    2  agreement_with_confidence_signed     0.833  6
    3                  strict_agreement     1.000  6
    4                          spearman     1.000  4
    5                   pair_rank_brier     0.000  6
    """
    _check_rule(overlap)
    if ci_method is not None and ci_method != "percentile":
        raise InputError(f"ci_method must be 'percentile' or None, got {ci_method!r}",
                         fix="the basic interval undercovers (see Notes) and BCa's jackknife would rerun the inner "
                             "bootstrap once per prompt; use 'percentile'")
    _, seed = make_rng(rng)
    seeds = np.random.SeedSequence(seed).generate_state(3, dtype=np.uint64).astype(np.int64) % (2**62)
    cols = dict(item=item, model=model, score=score, cluster=cluster, n_resamples=n_resamples,
                confidence_level=pair_confidence_level)
    board, idata = _as_board(scores, "scores", rng=int(seeds[0]), **cols)
    ref = None
    if reference is not None:
        ref, _ = _as_board(reference, "reference", rng=int(seeds[1]), **cols)
    t, rt, models = _aligned(board, ref)
    refa = _ref_arrays(rt)
    theta = _metrics(*_board_arrays(t), refa, overlap)[0]
    names = list(METRICS) if ref is not None else ["separability"]
    P = len(models) * (len(models) - 1) // 2
    n_ref = P
    if ref is not None:
        i, j = _pairs(len(models))
        n_ref = int(_separated(refa["ci_low"], refa["ci_high"], i, j, overlap).sum())
        if n_ref == 0:
            warnings.warn("the reference separates no pair of models: agreement with confidence is undefined",
                          UndefinedStatisticWarning, stacklevel=2)
    ns = [P] + ([n_ref, n_ref, P, len(models), P] if ref is not None else [])
    extra = {"n_models": len(models), "n_pairs": P, "pair_confidence_level": board.confidence_level,
             "overlap": overlap}
    if ci_method is None:
        res = BootstrapResult.point(theta[:len(names)], unit=board.unit, n_units=board.n_units,
                                    confidence_level=confidence_level)
        return ResultSet(res.estimates(names, n=ns, extra=extra, seed=seed), name="leaderboard_metrics")
    if idata is None:
        raise InputError("an interval of the meta-metrics needs per-item scores (the prompts are resampled)",
                         fix="pass the per-item frame, or ci_method=None for the point values")
    n_inner = int(n_resamples if n_inner is None else n_inner)
    # outer bootstrap of the prompts: a replicate's sufficient statistic is the prompts' counts
    keep = [idata.models.index(m) for m in models]
    sel = np.r_[keep, [len(idata.models) + k for k in keep]]
    Xm = idata.X[:, sel]
    inner = np.random.default_rng(int(seeds[2]))

    def stat(W):
        out = np.empty((len(W), len(names)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            for r, w in enumerate(W):
                lb = _board(Units(Xm, np.rint(w).astype(np.int64), kind=idata.unit), models,
                            n_resamples=n_inner, confidence_level=pair_confidence_level, rng=inner)
                out[r] = _metrics(*_board_arrays(lb.table), refa, overlap)[0][:len(names)]
        return out

    outer = Units(np.eye(len(Xm)), np.ones(len(Xm), dtype=np.int64), kind=idata.unit)
    res = bootstrap(stat, outer, n_resamples=n_outer, ci_method=ci_method, confidence_level=confidence_level,
                    rng=seed, statistic_hat=theta[:len(names)], bounds=(-1.0, 1.0))
    extra["n_inner"] = int(n_inner)
    return ResultSet(res.estimates(names, n=ns, extra=extra), name="leaderboard_metrics")
