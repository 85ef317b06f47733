"""Many score judges on the same humans: every judge's level correlation, simultaneous comparisons, rank clusters.

One bootstrap draw (rows and/or columns, :data:`~metaeval.levels.correlation.RESAMPLE_SCHEMES`) gives
every judge's replicate, so all differences are paired. Following the package's rule for many judges
(STATISTICS.md, "Many judges"): simultaneous intervals for *all* pairwise differences θ_j − θ_k come
first (max-T over the J(J − 1)/2 studentised differences of the shared draw); the judges tied with the
best are those whose every upper end U_jk ≥ 0. Beside it, mt-metrics-eval's rank clusters
(``data.AssignRanks``): judges sorted by correlation, a new rank starts at judge i when some judge of
the current cluster beats it with permutation p ≤ α (PERM-BOTH, one-sided, one test per pair).

The all-pairs max-T intervals are :func:`metaeval.panels.simultaneous.pairwise_max_t`, the same
function :func:`metaeval.judge_panel` uses (a draw where a judge's correlation is undefined leaves
only that judge's pairs).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.resample import DEFAULT_N_RESAMPLES, check_n_resamples, make_rng
from ..core.results import ConfidenceInterval, Estimate, ResultSet
from ..panels.simultaneous import pairwise_max_t
from . import correlation as C

__all__ = ["level_panel", "LevelPanel", "assign_ranks"]


def assign_ranks(pvalues: np.ndarray, alpha: float = 0.05) -> list[int]:
    """Rank clusters from a pairwise significance matrix (mt-metrics-eval's ``AssignRanks``).

    Parameters
    ----------
    pvalues : array (J, J)
        Judges sorted by decreasing correlation; ``pvalues[i, j]`` (i < j) is the p-value of
        H0: judge j is at least as good as judge i.
    alpha : float
        Significance threshold.

    Returns
    -------
    list of int
        Rank of each judge: judge i opens a new rank when a judge of the current rank (from the
        rank's first judge up to i − 1) beats it with p ≤ alpha.

    References
    ----------
    google-research/mt-metrics-eval, ``data.AssignRanks`` (same rule; tests/test_levels_many.py).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1, .30, .01, .01], [1, 1, .20, .02], [1, 1, 1, .40], [1, 1, 1, 1]])
    >>> assign_ranks(p)
    [1, 1, 2, 2]
    """
    p = np.asarray(pvalues, dtype=float)
    ranks, current, start = [], 1, 0
    for i in range(p.shape[0]):
        if (p[start:i, i] <= alpha).any():
            current += 1
            start = i
        ranks.append(current)
    return ranks


@dataclass
class LevelPanel:
    """Result of :func:`level_panel`.

    Attributes
    ----------
    estimates : ResultSet
        Each judge's correlation (keys ``judge``), intervals from the shared draw; ``extra`` has
        ``rank`` (mt-metrics-eval's cluster) and ``tied_with_best``.
    differences : ResultSet
        θ_j − θ_k for every ordered pair j < k (by decreasing estimate), simultaneous max-T interval,
        permutation p-value of "j better than k" (keys ``judge``, ``other``).
    pvalues : pandas.DataFrame
        The permutation p-values, judges sorted by decreasing estimate (upper triangle).
    ranks : dict
        Judge → rank cluster (mt-metrics-eval's AssignRanks at ``alpha``).
    tied_with_best : list of str
        Judges whose simultaneous intervals never put them below another judge.
    critical_value : float
        The max-T quantile.
    design : dict
        Level, method, scheme, resamples, permutations, alpha and the seed.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> H = g.normal(size=(6, 30))
    >>> panel = level_panel(H, {"a": H + g.normal(size=H.shape), "b": H + 3 * g.normal(size=H.shape)},
    ...                     level="item", n_resamples=300, n_permutations=300, rng=1)
    >>> panel.ranks, panel.tied_with_best
    ({'a': 1, 'b': 2}, ['a'])
    """

    estimates: ResultSet
    differences: ResultSet
    pvalues: pd.DataFrame
    ranks: dict
    tied_with_best: list
    critical_value: float
    design: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per judge: the estimate frame plus ``rank`` and ``tied_with_best``.

        Returns
        -------
        pandas.DataFrame
        """
        df = self.estimates.to_frame()
        df["rank"] = [self.ranks[j] for j in df["judge"]]
        df["tied_with_best"] = [j in self.tied_with_best for j in df["judge"]]
        return df

    def __str__(self) -> str:
        return self.to_frame().to_string(index=False)


def _split_scorers(frame, judges, scorer, reference, columns):
    """The humans' rows and each judge's rows of one long frame with a scorer column."""
    if judges is not None:
        raise InputError("pass either judges= or scorer=, not both", source="<judges>",
                         fix="with scorer=, every scorer but the reference in the one frame is a judge")
    if not isinstance(frame, pd.DataFrame) or scorer not in frame.columns:
        raise InputError(f"scorer={scorer!r} names a column of one long frame", source="<human>",
                         fix="pass the long frame with system=, item=, value= and scorer= columns")
    if any(c is None for c in columns):
        raise InputError("a long frame with scorer= needs system=, item= and value=", source="<human>",
                         fix="name the long frame's columns: system=, item=, value=")
    names = frame[scorer].astype(str)
    if not (names == str(reference)).any():
        raise InputError(f"no rows with {scorer} == {reference!r}", source="<human>",
                         expected=f"one of {sorted(set(names))[:8]}", fix="name the humans with reference=")
    keep = [c for c in columns]
    human = frame.loc[names == str(reference), keep].reset_index(drop=True)
    judges = {str(k): g[keep].reset_index(drop=True)
              for k, g in frame[names != str(reference)].groupby(names[names != str(reference)], sort=False)}
    return human, judges


def level_panel(human, judges: dict | None = None, *, scorer: str | None = None, reference: str = "human",
                level: str = "item", method: str = "pearson", system: str | None = None,
                item: str | None = None, value: str | None = None, ci_method: str | None = "percentile",
                resample: str | None = None, n_resamples: int = DEFAULT_N_RESAMPLES,
                confidence_level: float = 0.95, n_permutations: int = 1000, permutation: str = "both",
                alpha: float = 0.05, rng=None, undefined: str = "drop", average: str = "macro",
                epsilon: float = 0.0) -> LevelPanel:
    """Several score judges against the same humans at one level: correlations, comparisons, rank clusters.

    Parameters
    ----------
    human : DataFrame or 2-D array
        Human score matrix (systems × items), as in :func:`metaeval.level_correlation`; or, with
        ``scorer=``, one long frame holding every scorer's rows (``system``, ``item``, ``value`` and
        the ``scorer`` column).
    judges : dict, optional
        Judge name → score matrix with the same labels (not with ``scorer=``).
    scorer : str, optional
        The column of a long ``human`` frame naming who scored each row: the rows of ``reference``
        are the humans', every other scorer is a judge.
    reference : str, default "human"
        The humans' name in the ``scorer`` column.
    level, method, system, item, value, undefined, average, epsilon
        As in :func:`metaeval.level_correlation`.
    ci_method : {"percentile", "basic"}
        Interval of each judge's correlation from the shared draw.
    resample : {"systems", "items", "both"}, optional
        The bootstrap scheme (default ``"both"``).
    n_resamples : int
        Bootstrap resamples (one draw shared by every judge).
    confidence_level : float
        Of the per-judge and the simultaneous intervals.
    n_permutations : int
        Permutations of each pairwise test behind the rank clusters.
    permutation : str
        Scheme of those tests (:data:`~metaeval.levels.correlation.PERMUTATION_SCHEMES`).
    alpha : float
        Threshold of the rank clusters.
    rng : None, int or numpy.random.Generator
        One seed for the bootstrap and the permutations.

    Returns
    -------
    LevelPanel

    References
    ----------
    mt-metrics-eval (``data.AssignRanks``, ``stats.PermutationSigDiff``); Romano & Wolf (2005);
    Hsu (1996). tests/test_levels_many.py.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> H = g.normal(size=(6, 30))
    >>> panel = level_panel(H, {"a": H + g.normal(size=H.shape), "b": H + 3 * g.normal(size=H.shape)},
    ...                     level="item", n_resamples=300, n_permutations=300, rng=1)
    >>> list(panel.estimates.to_frame()["judge"])
    ['a', 'b']
    """
    if scorer is not None:
        human, judges = _split_scorers(human, judges, scorer, reference, (system, item, value))
    if not isinstance(judges, dict) or len(judges) < 2:
        raise InputError("level_panel needs a dict of at least two judges", source="<judges>",
                         fix="pass {name: score matrix, ...}")
    if ci_method not in ("percentile", "basic"):
        raise InputError(f"ci_method={ci_method!r}: level_panel offers 'percentile' or 'basic'", source="<ci_method>",
                         fix="use ci_method='percentile'")
    scheme = resample or C.DEFAULT_RESAMPLE
    C._check_choice(scheme, C.RESAMPLE_SCHEMES, "resample")
    n_resamples = check_n_resamples(n_resamples)
    names = list(judges)
    prepared = [C._prepare(human, judges[n], system, item, value) for n in names]
    V = np.logical_and.reduce([p[2] for p in prepared])
    H = prepared[0][0]
    mats = [(H, p[1], V) for p in prepared]
    spec = C._Spec(method, level, undefined=undefined, average=average, absolute=False, epsilon=epsilon,
                   kendall_like_threshold=None, spa_permutations=1000, spa_seed=4)
    theta = np.array([spec.values(h[None], m[None], v[None])[0][0] for h, m, v in mats])
    gen, seed = make_rng(rng)
    reps = C._replicates([spec] * len(names), mats, scheme, n_resamples, gen)
    res = C._bootstrap_result(theta, reps, None, ci_method=ci_method, confidence_level=confidence_level,
                              scheme=scheme, S=H.shape[0], I=H.shape[1], seed=seed, alternative="two-sided")
    pw = pairwise_max_t(theta, reps, confidence_level=confidence_level)
    low, high, crit = pw.low, pw.high, pw.crit
    tied = [names[j] for j in range(len(names)) if all(high[j, k] >= 0 for k in range(len(names)) if k != j)]
    order = list(np.argsort(-theta, kind="stable"))
    P = np.ones((len(names), len(names)))
    diffs, dkeys = [], []
    for ia, ib in itertools.combinations(range(len(order)), 2):
        j, k = order[ia], order[ib]
        d = C.level_difference(human, judges[names[j]], judges[names[k]], level=level, method=method, system=system,
                               item=item, value=value, permutation=permutation, n_permutations=n_permutations,
                               pvalue="plus_one", alternative="greater", ci_method=None,
                               rng=int(gen.integers(0, 2**62)), undefined=undefined, average=average,
                               epsilon=epsilon)
        P[ia, ib] = d.pvalue
        diffs.append(Estimate(f"{method}_difference", float(theta[j] - theta[k]),
                              ConfidenceInterval(float(low[j, k]), float(high[j, k]), confidence_level, "max-T"),
                              pvalue=d.pvalue, n=int(V.sum()), unit=res.unit, n_units=res.n_units,
                              n_resamples=n_resamples, seed=seed,
                              extra={"critical_value": crit, "permutation": permutation}))
        dkeys.append({"judge": names[j], "other": names[k]})
    ranks_sorted = assign_ranks(P, alpha)
    ranks = {names[order[i]]: r for i, r in enumerate(ranks_sorted)}
    ests = res.estimates([method] * len(names), n=int(V.sum()),
                         extra=[{"level": level, "rank": ranks[nm], "tied_with_best": nm in tied} for nm in names],
                         seed=seed)
    pv = pd.DataFrame(P, index=[names[i] for i in order], columns=[names[i] for i in order])
    return LevelPanel(ResultSet(ests, keys=[{"judge": nm} for nm in names], name="level_panel"),
                      ResultSet(diffs, keys=dkeys, name="level_panel_differences"), pv, ranks, tied, crit,
                      {"level": level, "method": method, "resample": scheme, "n_resamples": n_resamples,
                       "n_permutations": n_permutations, "alpha": alpha, "seed": seed})
