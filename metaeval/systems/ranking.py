"""System-ranking meta-evaluation: do the judge's qrels rank systems as the human qrels do?

Everything here works on per-topic score matrices (systems × topics), one per qrels set. A topic
bootstrap is then the shared engine's cluster bootstrap with topics as units: the unit contribution
of topic t is the column ``[M_ref[:, t], M_cand[:, t], 1, 1]`` (per-system score sums and topic
counts), so a replicate's system means are ``S / count`` — one (B × T)·(T × 2n) product.

Estimand
--------
The point estimate is the correlation between system means on *these* topics. The intervals are
for the correlation over the *population of topics* the topics were drawn from: the population
system means. A correlation of noisy means is biased toward 0 (noise breaks concordance), and a
bootstrap replicate adds the same noise again, so the bootstrap distribution sits below the
estimate (bootstrap bias about −0.03 on TREC DL). Every result reports that bias. The default
interval is chosen by a coverage simulation (benchmarks/coverage_rank_ci.py, its table in the docs'
statistics/rankings page; a smaller check in tests/test_ranking_coverage.py).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats as sps

from ..core.errors import InputError, MetaevalWarning
from ..core.resample import CI_METHODS, DEFAULT_N_RESAMPLES, Units, bootstrap, debiased_bootstrap, make_rng
from ..core.results import ResultSet

if TYPE_CHECKING:
    from .evaluation import SystemScores

    #: Per-topic scores: a systems × topics matrix, a tidy score table, or a SystemScores.
    ScoresLike = pd.DataFrame | SystemScores

__all__ = ["kendall_tau", "tau_ap", "rbo", "rank_correlation", "score_matrices", "significance_agreement", "pool_bias",
           "RankCorrelation", "RANK_METHODS", "RANK_CI_METHODS"]

#: Method names of :func:`rank_correlation`.
RANK_METHODS = ("kendall_b", "kendall_a", "spearman", "pearson", "tau_ap", "tau_ap_b", "rbo", "top_k_overlap",
                "max_rank_change", "discordant_pairs", "discordant_fraction")


# --------------------------------------------------------------------------------------------
# vectorized coefficients on (b, n) arrays of system scores (higher = better)
# --------------------------------------------------------------------------------------------

def _pair_signs(v):
    n = v.shape[1]
    i, j = np.triu_indices(n, 1)
    return np.sign(v[:, i] - v[:, j])


def _kendall(x, y):
    """(tau_b, tau_a, discordant count, discordant fraction), each (b,)."""
    sx, sy = _pair_signs(x), _pair_signs(y)
    n0 = sx.shape[1]
    prod = sx * sy
    c_minus_d = prod.sum(axis=1)
    disc = (prod < 0).sum(axis=1).astype(float)
    n1 = (sx == 0).sum(axis=1)
    n2 = (sy == 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tb = c_minus_d / np.sqrt((n0 - n1) * (n0 - n2))
    return tb, c_minus_d / n0, disc, disc / n0


def _rank_avg(v):
    """Average ranks (1 = lowest) along axis 1, ties averaged (as scipy.stats.rankdata)."""
    return sps.rankdata(v, axis=1)


def _pearson(x, y):
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xc * yc).sum(axis=1) / np.sqrt((xc**2).sum(axis=1) * (yc**2).sum(axis=1))


def _harmonic(m):
    """H[k] = sum_{r=1..k} 1/r for k = 0..m."""
    return np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, m + 1))])


def _tau_ap_parts(x, y):
    """Per-item quantities of Urbano & Marrero's tau_AP with ties: y is walked from the top.

    Returns p (1 + items strictly above in y), t (size of the tie group in y, itself included) and
    c (items strictly above in y that are also strictly above in x), each (b, n).
    """
    above_y = y[:, None, :] > y[:, :, None]       # [b, i, j]: j strictly above i in y
    above_x = x[:, None, :] > x[:, :, None]
    p = 1 + above_y.sum(axis=2)
    t = (y[:, None, :] == y[:, :, None]).sum(axis=2)
    c = (above_y & above_x).sum(axis=2)
    return p, t, c


def _tau_ap_a(x, y):
    """tau_AP,a (Urbano & Marrero 2017): x a reference ranking, y may have ties.

    Without ties it is Yilmaz, Aslam & Robertson's (2008) tau_AP.
    """
    n = x.shape[1]
    p, t, c = _tau_ap_parts(x, y)
    H = _harmonic(2 * n + 1)
    not_top = p != 1
    pm = np.where(not_top, p, 2)
    # s_above = (1/t) sum_{m=1..t} 1/(p+m-2)
    s_above = (H[pm + t - 2] - H[pm - 2]) / t
    term1 = np.where(not_top, c * s_above, 0.0).sum(axis=1)
    # c_within = 1/(2t) sum_{k=1..t-1} k/(p+k-1) = ((t-1) - (p-1)(H[p+t-2] - H[p-1])) / (2t)
    within = ((t - 1) - (p - 1) * (H[p + t - 2] - H[p - 1])) / (2 * t)
    return 2.0 / (n - 1) * (term1 + within.sum(axis=1)) - 1


def _tau_ap_b_half(x, y):
    p, _, c = _tau_ap_parts(x, y)
    not_top = p != 1
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(not_top, c / np.where(not_top, p - 1, 1), 0.0).sum(axis=1)
        return 2.0 / not_top.sum(axis=1) * s - 1


def _tau_ap_b(x, y):
    """tau_AP,b (Urbano & Marrero 2017): symmetric, both rankings may have ties."""
    return (_tau_ap_b_half(x, y) + _tau_ap_b_half(y, x)) / 2


def _positions(v):
    """1-based position of each system when sorted by decreasing score (ties: lower index first)."""
    order = np.argsort(-v, axis=1, kind="stable")
    pos = np.empty_like(order)
    rows = np.arange(v.shape[0])[:, None]
    pos[rows, order] = np.arange(1, v.shape[1] + 1)[None, :]
    return pos


def _rbo_and_overlap(x, y, p, k):
    """RBO_ext (Webber, Moffat & Zobel 2010, eq. 32) over full rankings, top-k overlap, max rank change."""
    b, n = x.shape
    px, py = _positions(x), _positions(y)
    depth = np.maximum(px, py)                      # a system is in both top-d prefixes from d = depth on
    counts = np.zeros((b, n + 1))
    np.add.at(counts, (np.repeat(np.arange(b), n), depth.ravel()), 1)
    X = np.cumsum(counts, axis=1)[:, 1:]            # X_d for d = 1..n
    d = np.arange(1, n + 1)
    rbo_ext = X[:, -1] / n * p**n + (1 - p) / p * (X / d * p**d).sum(axis=1)
    kk = min(k, n)
    overlap = X[:, kk - 1] / kk
    change = np.abs(px - py).max(axis=1).astype(float)
    return rbo_ext, overlap, change


def _all_methods(x, y, methods, p, k):
    cols = {}
    if {"kendall_b", "kendall_a", "discordant_pairs", "discordant_fraction"} & set(methods):
        tb, ta, dc, df = _kendall(x, y)
        cols.update(kendall_b=tb, kendall_a=ta, discordant_pairs=dc, discordant_fraction=df)
    if "spearman" in methods:
        cols["spearman"] = _pearson(_rank_avg(x), _rank_avg(y))
    if "pearson" in methods:
        cols["pearson"] = _pearson(x, y)
    if "tau_ap" in methods:
        cols["tau_ap"] = _tau_ap_a(x, y)
    if "tau_ap_b" in methods:
        cols["tau_ap_b"] = _tau_ap_b(x, y)
    if {"rbo", "top_k_overlap", "max_rank_change"} & set(methods):
        r, o, c = _rbo_and_overlap(x, y, p, k)
        cols.update(rbo=r, top_k_overlap=o, max_rank_change=c)
    return np.stack([cols[m] for m in methods], axis=1)


def _pair(x, y):
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise InputError(f"x and y must be 1-D score vectors of equal length, got shapes {x.shape} and {y.shape}")
    if len(x) < 3:
        raise InputError(f"need at least 3 systems, got {len(x)}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise InputError("NaN in the system scores", fix="drop systems without scores first")
    return x[None, :], y[None, :]


def kendall_tau(x: ArrayLike, y: ArrayLike, *, variant: str = "b") -> float:
    """Kendall's tau between two score vectors: tau-b (default, Kendall 1945) or tau-a.

    Parameters
    ----------
    x, y : array-like of float, shape (n,)
        Scores of the same n ≥ 3 systems (higher = better) under the reference and the candidate.
    variant : {"b", "a"}
        ``"b"``: tau-b = (C − D)/√((n0 − n1)(n0 − n2)), which corrects for ties; ``"a"``:
        tau-a = (C − D)/n0, ties counting 0 (C, D concordant and discordant pairs, n0 = n(n − 1)/2,
        n1 and n2 the pairs tied in x and in y).

    Returns
    -------
    float
        The coefficient, in [−1, 1] (NaN for tau-b when one side is constant).

    Raises
    ------
    InputError
        For vectors of different lengths, fewer than 3 systems, or NaN scores.

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika 33, 239–251.
    tau-b equals ``scipy.stats.kendalltau`` (tests/test_ranking.py, with and without ties).

    Examples
    --------
    The example of the ircor R package (its documentation gives tau = 0.7777778):

    >>> x = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
    >>> y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]
    >>> round(kendall_tau(x, y), 7)
    0.7777778
    """
    if variant not in ("a", "b"):
        raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")
    X, Y = _pair(x, y)
    tb, ta, _, _ = _kendall(X, Y)
    return float(tb[0] if variant == "b" else ta[0])


def tau_ap(x: ArrayLike, y: ArrayLike, *, variant: str = "a") -> float:
    """AP correlation tau_AP of a candidate ranking ``y`` against a reference ``x`` (scores, higher = better).

    tau_AP weights disagreements near the top of the ranking more than Kendall's tau does: walking
    the candidate ranking from the top, each system is scored by the share of the systems above it
    that are also above it in the reference.

    Parameters
    ----------
    x : array-like of float, shape (n,)
        Reference scores of n ≥ 3 systems (usually under the human qrels).
    y : array-like of float, shape (n,)
        Candidate scores of the same systems (usually under the judge's qrels).
    variant : {"a", "b"}
        ``"a"`` (default): Urbano & Marrero's (2017) tau_AP,a, for a reference without ties and a
        candidate that may tie; without ties it equals Yilmaz, Aslam & Robertson's (2008) tau_AP.
        ``"b"``: the symmetric tau_AP,b, for two rankings that may both tie.

    Returns
    -------
    float
        The coefficient, in [−1, 1] (1: the same ranking; −1: reversed).

    Raises
    ------
    InputError
        For vectors of different lengths, fewer than 3 systems, or NaN scores.

    Notes
    -----
    Without ties, τ_AP = 2/(n − 1) Σ_{i=2..n} c(i)/(i − 1) − 1, where c(i) counts the systems above
    the i-th system of the candidate ranking that are also above it in the reference.

    References
    ----------
    Yilmaz, E., Aslam, J. A. & Robertson, S. (2008). A new rank correlation coefficient for
    information retrieval. SIGIR 2008, 587–594.
    Urbano, J. & Marrero, M. (2017). The treatment of ties in AP correlation. ICTIR 2017, 321–324.
    Checked against the ircor R package's documented examples (tau_AP = 0.7491182; with ties
    tau_AP,a = 0.6074515, tau_AP,b = 0.6269841) and a brute-force implementation
    (tests/test_ranking.py).

    Examples
    --------
    >>> x = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
    >>> y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]
    >>> round(tau_ap(x, y), 7)          # ircor::tauAP(x, y)
    0.7491182
    """
    X, Y = _pair(x, y)
    if variant == "a":
        return float(_tau_ap_a(X, Y)[0])
    if variant == "b":
        return float(_tau_ap_b(X, Y)[0])
    raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")


def rbo(x: ArrayLike, y: ArrayLike, *, p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of the two rankings by decreasing score.

    Parameters
    ----------
    x, y : array-like of float, shape (n,)
        Scores of the same n ≥ 3 systems under the reference and the candidate (higher = better);
        ties are ordered by position (the first system first).
    p : float
        Persistence, in (0, 1): the weight of depth d is proportional to p^(d−1), so a smaller p
        looks more at the top (p = 0.9 puts 86% of the weight on the top 10).

    Returns
    -------
    float
        RBO_ext, in [0, 1] (1: the same ranking).

    Raises
    ------
    InputError
        For vectors of different lengths, fewer than 3 systems, or NaN scores.

    Notes
    -----
    RBO_ext = (X_k/k) p^k + ((1 − p)/p) Σ_{d=1..k} (X_d/d) p^d over the full depth k = n, where X_d
    is the overlap of the two top-d prefixes (Webber, Moffat & Zobel 2010, eq. 32).

    References
    ----------
    Webber, W., Moffat, A. & Zobel, J. (2010). A similarity measure for indefinite rankings. ACM
    TOIS 28(4), 20. Checked against a direct implementation of eq. 32 (tests/test_ranking.py).

    Examples
    --------
    >>> x = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
    >>> y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]
    >>> round(rbo(x, y), 4), round(rbo(x, y, p=0.5), 4)
    (0.9184, 0.8576)
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    X, Y = _pair(x, y)
    return float(_rbo_and_overlap(X, Y, p, 10)[0][0])


# --------------------------------------------------------------------------------------------
# score matrices
# --------------------------------------------------------------------------------------------

def _measures_of(scores) -> list | None:
    """The measures a scores object or a tidy score table holds (None: a plain matrix, no measures)."""
    if hasattr(scores, "matrix") and callable(scores.matrix):
        ms = getattr(scores, "measures", None)
        return None if ms is None else [str(m) for m in ms]
    if isinstance(scores, pd.DataFrame) and {"system", "query_id", "value", "measure"} <= set(scores.columns):
        return [str(m) for m in pd.unique(scores["measure"])]
    return None


def _infer_measure(reference, candidate, measure):
    """``measure`` as given, or the one measure both sides hold; an InputError listing them otherwise."""
    if measure is not None:
        return measure
    sides = [(side, _measures_of(s)) for side, s in (("reference", reference), ("candidate", candidate))]
    held = [(side, ms) for side, ms in sides if ms is not None]
    if not held:
        return None
    for side, ms in held:
        if len(ms) > 1:
            raise InputError(f"{side}: the scores hold several measures ({', '.join(ms)}), and measure= must "
                             "say which one to rank by", fix=f"pass measure={ms[0]!r} (or another of them)")
    found = sorted({ms[0] for _, ms in held if ms})
    if len(found) > 1:
        raise InputError(f"the reference holds the measure {held[0][1][0]!r} and the candidate {held[1][1][0]!r}",
                         fix="compute the same measure on both sides, or pass measure=")
    return found[0] if found else None


def _matrix(scores, measure, side):
    """A systems × topics DataFrame from a matrix, a tidy score table, or an object with .matrix()."""
    if hasattr(scores, "matrix") and callable(scores.matrix):
        if measure is None:
            ms = _measures_of(scores)
            if ms is None or len(ms) != 1:
                raise InputError(f"{side}: cannot tell which measure to take from the scores object",
                                 fix="pass measure=")
            measure = ms[0]
        return scores.matrix(measure)
    if not isinstance(scores, pd.DataFrame):
        raise InputError(f"{side}: expected a systems × topics DataFrame or a score table "
                         "(system, query_id, measure, value)")
    if {"system", "query_id", "value"} <= set(scores.columns):
        df = scores
        if "measure" in df.columns:
            ms = pd.unique(df["measure"])
            if measure is None:
                if len(ms) != 1:
                    raise InputError(f"{side}: the score table has several measures ({', '.join(map(str, ms[:6]))})",
                                     fix="pass measure=")
                measure = ms[0]
            df = df[df["measure"] == measure]
            if df.empty:
                raise InputError(f"{side}: no rows for measure {measure!r}",
                                 expected=f"one of {', '.join(map(str, ms[:10]))}")
        dup = df.duplicated(["system", "query_id"])
        if dup.any():
            raise InputError(f"{side}: {int(dup.sum())} duplicate (system, query_id) rows",
                             fix="filter the table (e.g. by qrels_source) before ranking")
        return df.pivot(index="system", columns="query_id", values="value").sort_index().sort_index(axis=1)
    return scores


def score_matrices(reference: ScoresLike, candidate: ScoresLike, *, measure: str | None = None,
                   topics: str = "intersection") -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Align two systems × topics score matrices: the common systems, and the topics by ``topics=``.

    Parameters
    ----------
    reference, candidate : DataFrame or scores object
        Systems × topics matrices of per-topic scores, tidy score tables (``system, query_id,
        [measure,] value``), or objects with a ``.matrix(measure)`` method (a
        :class:`~metaeval.SystemScores` from :func:`~metaeval.system_scores`).
    measure : str, optional
        The measure to take from score tables and scores objects (needed when they hold several).
    topics : {"intersection", "own"}
        ``"intersection"`` (default): the topics scored on both sides (every system must have a
        score on each). ``"own"``: each side keeps its own topics (NaN columns where a topic exists
        on one side only; a system's mean is then over its side's topics).

    Returns
    -------
    ref, cand : DataFrame
        The two matrices with the same systems (rows, sorted) and topic columns.
    info : dict
        What was left out, never silently: ``systems_only_reference``, ``systems_only_candidate``,
        ``topics_only_reference``, ``topics_only_candidate``, and ``n_topics``, ``n_systems``,
        ``topics``, ``measure`` (the measure taken, given or inferred; None for plain matrices).

    Raises
    ------
    InputError
        Fewer than 3 common systems, no common topic, a missing score on a common topic, or a
        score table with several measures and no ``measure=``.

    References
    ----------
    Alignment only (no statistic); tests/test_ranking.py checks both topic policies on tidy tables.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> ref, cand, info = score_matrices(human, judge, measure="nDCG@10")
    >>> ref.shape, cand.shape, info["systems_only_candidate"]
    ((30, 40), (30, 40), [])
    """
    measure = _infer_measure(reference, candidate, measure)
    R = _matrix(reference, measure, "reference")
    C = _matrix(candidate, measure, "candidate")
    R.index, C.index = R.index.astype(str), C.index.astype(str)
    R.columns, C.columns = R.columns.astype(str), C.columns.astype(str)
    systems = sorted(set(R.index) & set(C.index))
    info = {"systems_only_reference": sorted(set(R.index) - set(C.index)),
            "systems_only_candidate": sorted(set(C.index) - set(R.index))}
    # a topic belongs to a side if any system has a score for it
    tr = [t for t in R.columns if R[t].notna().any()]
    tc = [t for t in C.columns if C[t].notna().any()]
    info["topics_only_reference"] = sorted(set(tr) - set(tc))
    info["topics_only_candidate"] = sorted(set(tc) - set(tr))
    if topics == "intersection":
        cols = sorted(set(tr) & set(tc))
    elif topics == "own":
        cols = sorted(set(tr) | set(tc))
    else:
        raise ValueError(f"topics must be 'intersection' or 'own', got {topics!r}")
    if len(systems) < 3:
        raise InputError(f"only {len(systems)} systems in common", fix="check that the system names match")
    if not cols:
        raise InputError("no topics in common", fix="check the topic ids, or use topics='own'")
    R = R.reindex(index=systems, columns=cols)
    C = C.reindex(index=systems, columns=cols)
    if topics == "intersection":
        holes = int(R.isna().sum().sum() + C.isna().sum().sum())
        if holes:
            raise InputError(f"{holes} missing per-topic scores for systems on common topics",
                             fix="score every system on every topic (unjudged runs count 0 in trec_eval)")
    info["n_topics"] = len(cols)
    info["n_systems"] = len(systems)
    info["topics"] = topics
    info["measure"] = None if measure is None else str(measure)
    return R, C, info


def _topic_units(*matrices: pd.DataFrame) -> Units:
    """Topics as clusters: topic t contributes ``[M_1[:, t], …, M_k[:, t], in_1, …, in_k]``.

    The per-system score sums of every matrix (same systems and topics), then one count per matrix
    of the topics it has (a topic without any score on a side adds 0 to its sums and its count).
    """
    arrs = [m.to_numpy(dtype=float) for m in matrices]
    present = [~np.isnan(a).all(axis=0) for a in arrs]
    X = np.hstack([np.nan_to_num(a).T for a in arrs] + [p[:, None] for p in present])
    return Units(X, np.ones(X.shape[0], dtype=np.int64), kind="clusters")


def _means_k(S, n, k):
    """The k (b, n) arrays of system means of replicate sums ``S`` laid out as :func:`_topic_units`."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return [S[:, i * n:(i + 1) * n] / S[:, [k * n + i]] for i in range(k)]


def _means(S, n):
    return tuple(_means_k(S, n, 2))


#: Each method's range and the scale its debiased interval is built on (core.resample.TRANSFORMS):
#: Fisher's z for the correlations in [−1, 1], the logit for the overlaps in [0, 1], none for counts.
#: The one place that says so; rank_correlation and the coverage simulation read it.
RANK_SCALES = {"kendall_b": ((-1, 1), "fisher_z"), "kendall_a": ((-1, 1), "fisher_z"),
               "spearman": ((-1, 1), "fisher_z"), "pearson": ((-1, 1), "fisher_z"),
               "tau_ap": ((-1, 1), "fisher_z"), "tau_ap_b": ((-1, 1), "fisher_z"),
               "rbo": ((0, 1), "logit"), "top_k_overlap": ((0, 1), "logit"),
               "max_rank_change": ((0, np.inf), None), "discordant_pairs": ((0, np.inf), None),
               "discordant_fraction": ((0, 1), "logit")}


def _transform_eps(method: str, n: int) -> float:
    """How close to a bound a transformed value may come: half of τ's step 2/n0 over the range (n0 = n(n − 1)/2).

    A coefficient at its bound (1: the same ranking) has no finite z; it is read as half a pair
    away from it.
    """
    (lo, hi), _ = RANK_SCALES[method]
    return (hi - lo) / (n * (n - 1))


class RankCorrelation(ResultSet):
    """Result of :func:`rank_correlation`: one Estimate per method, plus the data it came from.

    A :class:`~metaeval.ResultSet` keyed by ``method``, with two more attributes: ``info`` (which
    systems and topics were left out on which side, from :func:`score_matrices`) and ``means`` (a
    frame of the systems' mean scores, columns ``reference`` and ``candidate``).

    Parameters
    ----------
    estimates : list of Estimate, optional
        As for :class:`~metaeval.ResultSet`.
    keys : list of dict, optional
        As for :class:`~metaeval.ResultSet`.
    name : str
        As for :class:`~metaeval.ResultSet`.

    Examples
    --------
    >>> import pandas as pd
    >>> R = pd.DataFrame([[0.1, 0.2], [0.4, 0.3], [0.6, 0.8]], index=["a", "b", "c"], columns=["q1", "q2"])
    >>> res = rank_correlation(R, R + 0.01, methods="kendall_b", ci_method=None)
    >>> type(res).__name__, res.means.shape
    ('RankCorrelation', (3, 2))
    """


def _topic_bootstrap(kern, units: Units, methods: Sequence[str], n: int, *, ci_method, n_resamples,
                     confidence_level, rng, n_outer, n_inner, labels: Sequence[str] | None = None):
    """The topic bootstrap of :func:`rank_correlation` for a kernel giving one column per entry of ``methods``.

    ``methods`` names the coefficient of each column (its range and debiasing scale from
    :data:`RANK_SCALES`); a column may repeat a method (one per judge in
    :func:`metaeval.judge_panel`). The draw depends on the seed, the number of topics and of
    systems ``n`` only, so two calls with the same seed draw the same topics. Warns when an
    interval end was clipped (``labels`` name the columns in the warning).
    """
    chunk = max(1, int(4_000_000 // max(n * n, 1)))
    bounds = (np.array([RANK_SCALES[m][0][0] for m in methods]), np.array([RANK_SCALES[m][0][1] for m in methods]))
    if ci_method in ("debiased", "debiased_z"):
        # "debiased_z": on each method's declared scale (RANK_SCALES: Fisher's z or the logit)
        res = debiased_bootstrap(kern, units, n_resamples=n_resamples, n_outer=n_outer, n_inner=n_inner,
                                 confidence_level=confidence_level, rng=rng, chunk=chunk, bounds=bounds,
                                 transform=[RANK_SCALES[m][1] if ci_method == "debiased_z" else None
                                            for m in methods],
                                 transform_eps=np.array([_transform_eps(m, n) for m in methods]))
        res.method = ci_method
    else:
        res = bootstrap(kern, units, n_resamples=n_resamples, ci_method=ci_method, bounds=bounds,
                        confidence_level=confidence_level, rng=rng, chunk=chunk)
    labels = list(methods) if labels is None else list(labels)
    ends = [np.broadcast_to(np.atleast_1d(res.extra.get(k, False)), (len(methods),)) for k in ("clipped_low", "clipped_high")]
    clipped = [m for m, lo, hi in zip(labels, *ends) if lo or hi]
    if clipped:
        warnings.warn(f"the {ci_method} interval of {', '.join(clipped)} reached past the coefficient's range and "
                      "was clipped at the bound: that end is the bound, not an estimate (the population value "
                      "may be close to it). ci_method='debiased_z' stays inside the range, but covered less "
                      "near the bound in metaeval's simulation (docs: statistics/rankings)",
                      MetaevalWarning, stacklevel=3)
    res.unit = "topics"  # the clusters of a test collection
    return res


#: Interval methods of :func:`rank_correlation` (None: the point estimate only).
RANK_CI_METHODS = ("debiased", "debiased_z", *CI_METHODS)


def rank_correlation(reference: ScoresLike, candidate: ScoresLike, *, measure: str | None = None,
                     methods: str | Sequence[str] = ("kendall_b", "spearman", "tau_ap", "rbo"),
                     topics: str = "intersection", p: float = 0.9, k: int = 10,
                     n_resamples: int = DEFAULT_N_RESAMPLES, ci_method: str | None = "debiased",
                     confidence_level: float = 0.95, rng: None | int | np.random.Generator = None,
                     n_outer: int = 100, n_inner: int = 200) -> RankCorrelation:
    """Correlation between the system rankings under two qrels, with topic-bootstrap intervals.

    The systems are ranked by their mean score over the topics under each qrels set (e.g. the
    human's and the judge's), and the two rankings are compared with each method. Intervals come
    from a bootstrap over topics, the unit of replication of a test collection.

    Parameters
    ----------
    reference, candidate : DataFrame or scores object
        Systems × topics matrices of per-topic scores, tidy score tables (``system, query_id,
        measure, value``), or objects with a ``.matrix(measure)`` method (from
        :func:`~metaeval.system_scores`). Aligned by :func:`score_matrices`.
    measure : str, optional
        Which measure to take from score tables and scores objects. Not needed when they hold one
        measure (it is then taken); with several, an InputError lists them.
    methods : str or sequence of str
        Any of ``kendall_b``, ``kendall_a``, ``spearman``, ``pearson``, ``tau_ap`` (tau_AP,a of the
        candidate against the reference), ``tau_ap_b``, ``rbo`` (extrapolated, parameter ``p``),
        ``top_k_overlap`` (share of the top ``k`` in common), ``max_rank_change`` (largest change of
        a system's position), ``discordant_pairs``, ``discordant_fraction`` (:data:`RANK_METHODS`).
    topics : {"intersection", "own"}
        Average over the topics judged on both sides (default), or each side over its own.
    p : float
        RBO's persistence, in (0, 1) (see :func:`rbo`).
    k : int
        Depth of ``top_k_overlap``.
    n_resamples : int
        First-level topic resamples (default :data:`~metaeval.core.resample.DEFAULT_N_RESAMPLES`).
    ci_method : {"debiased", "debiased_z", "bca", "percentile", "basic"} or None
        Interval of the population-of-topics correlation. ``None``: the point estimates only (no
        resampling; ``rng`` is not used). The default is ``"debiased"``, not the package's
        :data:`~metaeval.core.resample.DEFAULT_CI_METHOD` (BCa), for a measured reason: a
        correlation of noisy means is biased toward 0 and every bootstrap resample adds the noise
        again, so intervals built around the bootstrap distribution sit too low.
        ``"debiased"`` (:func:`~metaeval.core.resample.debiased_bootstrap`) is centred on the
        bias-corrected estimate 2θ̂ − mean θ*, its standard error from a double bootstrap; near 1
        its upper end passes the bound and is clipped (flagged, printed, warned about).
        ``"debiased_z"`` does the same on Fisher's z (correlations) or the logit (RBO, overlaps),
        as :data:`RANK_SCALES` declares, and stays inside the range. Coverage of nominal 95%
        intervals in benchmarks/coverage_rank_ci.py (30 systems, 40 topics, R = 150 samples per
        cell, Monte Carlo error ≤ 0.04; docs: statistics/rankings), population values 0.7 / 0.9 /
        0.97: ``"debiased"`` τ_b 0.953 / 0.940 / 0.847, ρ 0.947 / 0.900 / 0.993, τ_AP 0.960 /
        0.940 / 0.807, RBO 0.947 / 0.920 / 0.907; ``"debiased_z"`` τ_b 0.947 / 0.800 / 0.173,
        ρ 0.953 / 0.900 / 0.800, τ_AP 0.960 / 0.633 / 0.120, RBO 0.953 / 0.847 / 0.593;
        percentile 0.000–0.993, BCa 0.000–0.907, basic 0.573–0.947. ``"debiased"`` is the default
        as the only method near 95% at every value; ``"debiased_z"`` is the in-range choice for
        coefficients clearly below 1. The debiased interval is for the population value and need
        not contain the estimate (``extra["debiased"]`` is the bias-corrected point).
    confidence_level : float
        The intervals' coverage, in (0, 1).
    rng : None, int or numpy.random.Generator
        Seeds the topic resamples (the seed is reported with each estimate).
    n_outer, n_inner : int
        The debiased interval's double bootstrap: first-level resamples that get a second level, and
        second-level resamples each.

    Returns
    -------
    RankCorrelation
        One Estimate per method, keyed by ``method``: ``to_frame()`` has ``method, statistic,
        estimate, ci_low, ci_high`` and the package's other columns (``bias`` is the bootstrap bias;
        ``unit`` is ``"topics"``, ``n`` the number of systems, ``n_units`` of topics; ``se`` is the
        standard error behind the interval: for the debiased intervals the double-bootstrap SE,
        on the z / logit scale carried back by the delta method, ``extra["se_transformed"]``
        keeping it on that scale and ``extra["se_replicates"]`` the SD of the replicates).
        Interval ends are clipped to each coefficient's range (``extra["clipped_low"]`` and
        ``extra["clipped_high"]`` say which were, and the printed form says so). ``.info`` says which systems and topics were
        dropped from which side; ``.means`` holds the systems' means.

    Warns
    -----
    SmallSampleWarning
        From the engine, for fewer topics than :data:`~metaeval.core.resample.MIN_CLUSTERS`.
    MetaevalWarning
        When an interval end passed the coefficient's range and was clipped (naming the methods).

    Notes
    -----
    A topic bootstrap here is one matrix product: the unit contribution of topic t is the column
    ``[M_ref[:, t], M_cand[:, t], 1, 1]``, so the replicate means of B resamples are ``(W @ X) /
    count`` for a B × T matrix W of topic counts (Multinomial(T, 1/T) rows).

    References
    ----------
    Point estimates: ``scipy.stats.kendalltau``, ``spearmanr``, ``pearsonr`` on the mean scores, and
    brute-force tau_AP and RBO (tests/test_ranking.py); NIST's TREC DL runs in
    tests/test_ranking_realdata.py. Intervals: Davison & Hinkley (1997), §3.8 (cluster bootstrap)
    and §3.9 (iterated bias correction); coverage in tests/test_ranking_coverage.py.
    Voorhees, E. M. (2000). Variations in relevance judgments and the measurement of retrieval
    effectiveness. IP&M 36, 697–716 (Kendall's tau between system rankings under two qrels).

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> res = me.rank_correlation(human, judge, ci_method=None)      # one measure: no measure= needed
    >>> [(e.statistic, round(e.estimate, 4)) for e in res]
    [('kendall_b', 0.8299), ('spearman', 0.9439), ('tau_ap', 0.789), ('rbo', 0.8755)]
    >>> tau = me.rank_correlation(human, judge, measure="nDCG@10", methods="kendall_b", rng=0)[0]
    >>> tau.ci.method, tau.n, tau.n_units, round(tau.ci.low, 4), round(tau.ci.high, 4)
    ('debiased', 30, 40, 0.7571, 0.9517)
    """
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in RANK_METHODS]
    if bad:
        raise ValueError(f"unknown method(s) {bad}; choose from {RANK_METHODS}")
    if ci_method is not None and ci_method not in RANK_CI_METHODS:
        raise ValueError(f"ci_method must be one of {RANK_CI_METHODS} or None, got {ci_method!r}")
    R, C, info = score_matrices(reference, candidate, measure=measure, topics=topics)
    n = R.shape[0]
    units = _topic_units(R, C)

    def kern(S):
        x, y = _means(np.asarray(S, dtype=float), n)
        return _all_methods(x, y, methods, p, k)

    res = _topic_bootstrap(kern, units, methods, n, ci_method=ci_method, n_resamples=n_resamples,
                           confidence_level=confidence_level, rng=rng, n_outer=n_outer, n_inner=n_inner)
    out = RankCorrelation(name="rank_correlation")
    for m, est in zip(methods, res.estimates(methods, n=n)):
        out.append_with(est, method=m)
    out.info = info
    out.means = pd.DataFrame({"reference": R.mean(axis=1), "candidate": C.mean(axis=1)})
    return out


# --------------------------------------------------------------------------------------------
# do the significance decisions agree?
# --------------------------------------------------------------------------------------------

def _pairwise_tests(M: np.ndarray, test: str, signs: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided p-values and mean differences for every system pair (i < j) on the topic columns.

    ``signs`` (topics × permutations of ±1) are the randomization test's sign vectors; both qrels
    sets get the same ones, so that the same scores get the same decisions.
    """
    n, T = M.shape
    i, j = np.triu_indices(n, 1)
    D = M[i] - M[j]                                  # pairs × topics
    mean = D.mean(axis=1)
    if test == "t":
        sd = D.std(axis=1, ddof=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            tstat = mean / (sd / np.sqrt(T))
        pv = 2 * sps.t.sf(np.abs(tstat), T - 1)
        pv = np.where(sd == 0, np.where(mean == 0, 1.0, 0.0), pv)
        return pv, mean
    if test == "randomization":
        perm = np.abs(D @ signs) / T                 # pairs × permutations
        obs = np.abs(mean)[:, None]
        pv = (1 + (perm >= obs - 1e-12).sum(axis=1)) / (signs.shape[1] + 1)
        return pv, mean
    raise ValueError(f"test must be 't' or 'randomization', got {test!r}")


def significance_agreement(reference: ScoresLike, candidate: ScoresLike, *, measure: str | None = None, test: str = "t",
                           correction: str = "holm", alpha: float = 0.05,
                           n_permutations: int = DEFAULT_N_RESAMPLES,
                           rng: None | int | np.random.Generator = None) -> pd.DataFrame:
    """Do the pairwise significance decisions under the candidate qrels agree with the reference's?

    For every pair of systems, a paired test over topics under each qrels set, corrected for
    multiple comparisons; then the pairs are counted by how the two decisions relate: significant
    under both with the same direction (kept), under the reference only (lost), under the candidate
    only (gained), under both with opposite directions (reversed).

    Parameters
    ----------
    reference, candidate : DataFrame or scores object
        Per-topic scores as for :func:`rank_correlation` (aligned on the common topics by
        :func:`score_matrices`).
    measure : str, optional
        Which measure to take from score tables and scores objects. Not needed when they hold one
        measure (it is then taken); with several, an InputError lists them.
    test : {"t", "randomization"}
        ``"t"``: the paired t-test (``scipy.stats.ttest_rel``). ``"randomization"``: the sign-flip
        randomization test of the mean difference with ``n_permutations`` random sign vectors
        (``p = (1 + #{|permuted mean| ≥ |observed mean|})/(n_permutations + 1)``); the two qrels sets
        share the sign vectors, so identical scores give identical decisions.
    correction : str
        ``"holm"`` (default), ``"fdr_bh"``, ``"bonferroni"``, any other method of statsmodels'
        ``multipletests``, or ``"none"``.
    alpha : float
        Significance level of the corrected decisions.
    n_permutations : int
        Sign vectors of the randomization test (default
        :data:`~metaeval.core.resample.DEFAULT_N_RESAMPLES`). Its smallest p-value is
        1/(n_permutations + 1): with Holm or Bonferroni over m pairs, no pair can be significant
        unless n_permutations + 1 > m/alpha (a warning says so).
    rng : None, int or numpy.random.Generator
        Seeds the randomization test (the seed is in ``.attrs["seed"]``).

    Returns
    -------
    DataFrame
        One row per quantity (``quantity, value`` plus the columns ``test, correction, alpha,
        n_topics, n_systems``): ``pairs``, ``significant_reference``, ``significant_candidate``,
        ``kept``, ``lost``, ``gained``, ``reversed``, ``swap_rate`` (reversed / significant under
        the reference), ``discriminative_power_reference`` and ``_candidate`` (share of significant
        pairs). ``.attrs["pairs"]`` holds the per-pair table (``system_a, system_b``, the mean
        difference and corrected p-value under each qrels, the decisions).

    Notes
    -----
    No interval is computed, so there is no ``ci_method``: the quantities are counts of decisions.
    With ``test="t"`` nothing is drawn at random.

    References
    ----------
    Voorhees, E. M. & Buckley, C. (2002). The effect of topic set size on retrieval experiment
    error. SIGIR 2002, 316–323 (swap rate). Sakai, T. (2006). Evaluating evaluation metrics based
    on the bootstrap. SIGIR 2006, 525–532 (discriminative power). p-values checked against
    ``scipy.stats.ttest_rel`` and statsmodels' ``multipletests`` (tests/test_ranking.py).

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> df = significance_agreement(human, judge)          # the scores hold one measure: nDCG@10
    >>> v = dict(zip(df["quantity"], df["value"]))
    >>> int(v["pairs"]), int(v["kept"]), int(v["lost"]), int(v["gained"]), int(v["reversed"])
    (435, 130, 102, 1, 0)
    """
    from statsmodels.stats.multitest import multipletests

    R, C, info = score_matrices(reference, candidate, measure=measure, topics="intersection")
    gen, seed = make_rng(rng)
    npairs = R.shape[0] * (R.shape[0] - 1) // 2
    if test == "randomization" and correction in ("holm", "bonferroni") and 1 / (n_permutations + 1) >= alpha / npairs:
        warnings.warn(f"with {n_permutations} permutations the smallest p-value is 1/{n_permutations + 1}, above "
                      f"{correction}'s smallest threshold alpha/{npairs}: no pair can be significant; use "
                      f"n_permutations >= {int(np.ceil(npairs / alpha))}, test='t', or correction='fdr_bh'",
                      MetaevalWarning, stacklevel=2)
    out = {}
    if test not in ("t", "randomization"):
        raise ValueError(f"test must be 't' or 'randomization', got {test!r}")
    signs = gen.choice(np.array([-1.0, 1.0]), size=(R.shape[1], n_permutations)) if test == "randomization" else None
    for side, M in (("reference", R), ("candidate", C)):
        pv, diff = _pairwise_tests(M.to_numpy(dtype=float), test, signs)
        if correction == "none":
            padj = pv
        else:
            padj = multipletests(pv, alpha=alpha, method=correction)[1]
        out[side] = (pv, padj, diff)
    i, j = np.triu_indices(R.shape[0], 1)
    sys_names = R.index.to_numpy()
    pr, pc = out["reference"][1], out["candidate"][1]
    dr, dc = out["reference"][2], out["candidate"][2]
    sig_r, sig_c = pr < alpha, pc < alpha
    same = np.sign(dr) == np.sign(dc)
    kept = sig_r & sig_c & same
    reversed_ = sig_r & sig_c & ~same
    lost = sig_r & ~sig_c
    gained = sig_c & ~sig_r
    rows = [("pairs", npairs), ("significant_reference", int(sig_r.sum())), ("significant_candidate", int(sig_c.sum())),
            ("kept", int(kept.sum())), ("lost", int(lost.sum())), ("gained", int(gained.sum())),
            ("reversed", int(reversed_.sum())),
            ("swap_rate", float(reversed_.sum() / sig_r.sum()) if sig_r.any() else np.nan),
            ("discriminative_power_reference", float(sig_r.mean())),
            ("discriminative_power_candidate", float(sig_c.mean()))]
    df = pd.DataFrame(rows, columns=["quantity", "value"])
    df["test"], df["correction"], df["alpha"] = test, correction, alpha
    df["n_topics"], df["n_systems"] = info["n_topics"], info["n_systems"]
    df.attrs["pairs"] = pd.DataFrame({
        "system_a": sys_names[i], "system_b": sys_names[j], "diff_reference": dr, "p_reference": pr,
        "diff_candidate": dc, "p_candidate": pc, "significant_reference": sig_r, "significant_candidate": sig_c,
        "decision": np.select([kept, reversed_, lost, gained], ["kept", "reversed", "lost", "gained"], "neither")})
    df.attrs["seed"] = seed
    return df


# --------------------------------------------------------------------------------------------
# pool bias: leave one group of runs out of the pool
# --------------------------------------------------------------------------------------------

def _ranks(scores: pd.Series) -> pd.Series:
    """1 = best; ties share the best rank (method 'min')."""
    return scores.rank(ascending=False, method="min").astype(int)


def pool_bias(reference_qrels: pd.DataFrame, candidate_qrels: pd.DataFrame, runs: pd.DataFrame,
              groups: Mapping[str, str] | pd.Series, *,
              measure: str = "nDCG@10", depth: int = 10) -> pd.DataFrame:
    """Leave-one-group-out pool bias, under human qrels and under judge-filled qrels.

    For each group of runs that contributed to the pool (the union of every run's top ``depth``
    documents per topic), the documents that only this group contributed are removed from the
    reference qrels (they become unjudged, which counts as non-relevant), every run is evaluated
    again, and the rank of the group's runs is compared with their rank under the full qrels. The
    same is done with those documents labelled by the candidate judge instead of removed
    ("judge-filled"): if a judge can fill the holes, the group's runs should not move. Judgments of
    documents outside the pool are kept as they are.

    Parameters
    ----------
    reference_qrels, candidate_qrels : DataFrame
        ``query_id, doc_id, relevance`` (human, judge).
    runs : DataFrame
        ``query_id, doc_id, score, run_id`` (from :func:`metaeval.read_runs`).
    groups : mapping or Series
        run_id → group (e.g. the participant). Runs without a group form their own group.
    measure : str
        Any measure :func:`metaeval.system_scores` knows.
    depth : int
        Pool depth (TREC DL: 10 for the passage task's initial pool).

    Returns
    -------
    DataFrame
        One row per run: ``run_id, group, unique_docs, score_full, rank_full, score_loo, rank_loo,
        rank_change_loo, score_filled, rank_filled, rank_change_filled`` (rank 1 = best, ties share
        the best rank; a positive change means the run moves down when its group's unique documents
        are missing), sorted by ``rank_full``.

    References
    ----------
    Zobel, J. (1998). How reliable are the results of large-scale information retrieval
    experiments? SIGIR 1998, 307–314. Voorhees, E. M. (2002). The philosophy of information
    retrieval evaluation. CLEF 2001, LNCS 2406, 355–370. tests/test_ranking.py recomputes the
    leave-one-out scores by hand and checks that a judge equal to the human moves no run.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> runs = d.runs[d.runs["run_id"].isin(["run_01", "run_02", "run_03", "run_04"])]
    >>> pb = pool_bias(d.qrels_human, d.qrels_judge, runs, {"run_01": "a", "run_02": "a"})
    >>> pb.columns[:5].tolist(), len(pb)
    (['run_id', 'group', 'unique_docs', 'score_full', 'rank_full'], 4)
    """
    from ..systems.evaluation import system_scores

    runs = runs.copy()
    for c in ("query_id", "doc_id", "run_id"):
        runs[c] = runs[c].astype(str)
    grp = pd.Series(groups, dtype="object") if not isinstance(groups, pd.Series) else groups.astype("object")
    grp.index = grp.index.astype(str)
    run_ids = sorted(runs["run_id"].unique())
    group_of = {r: str(grp.get(r, r)) for r in run_ids}
    ref = reference_qrels[["query_id", "doc_id", "relevance"]].copy()
    cand = candidate_qrels[["query_id", "doc_id", "relevance"]].copy()
    for q in (ref, cand):
        q["query_id"], q["doc_id"] = q["query_id"].astype(str), q["doc_id"].astype(str)
    # the pool: top-`depth` by score (ties by doc id descending, as trec_eval sorts)
    order = runs.sort_values(["run_id", "query_id", "score", "doc_id"], ascending=[True, True, False, False])
    top = order.groupby(["run_id", "query_id"], sort=False).head(depth)
    top = top.assign(group=top["run_id"].map(group_of))
    contributors = top.groupby(["query_id", "doc_id"])["group"].agg(lambda s: frozenset(s))
    full = system_scores(ref, runs, measure).matrix(measure).mean(axis=1)
    rank_full = _ranks(full)
    cand_idx = cand.set_index(["query_id", "doc_id"])["relevance"]
    ref_keys = pd.MultiIndex.from_frame(ref[["query_id", "doc_id"]])
    rows = []
    for g in sorted(set(group_of.values())):
        only_g = frozenset([g])
        unique = contributors[contributors.map(only_g.__eq__)].index
        judged_unique = ref_keys.isin(unique)
        n_unique = int(judged_unique.sum())
        members = [r for r in run_ids if group_of[r] == g]
        if n_unique == 0:
            loo, filled = full, full
        else:
            loo_q = ref.loc[~judged_unique]
            loo = system_scores(loo_q, runs, measure).matrix(measure).mean(axis=1)
            fill = ref.loc[judged_unique, ["query_id", "doc_id"]].copy()
            keys = pd.MultiIndex.from_frame(fill)
            fill["relevance"] = cand_idx.reindex(keys).to_numpy()
            fill = fill.dropna(subset=["relevance"])
            fill["relevance"] = fill["relevance"].astype(np.int64)
            filled = system_scores(pd.concat([loo_q, fill], ignore_index=True), runs, measure).matrix(measure)
            filled = filled.mean(axis=1)
        r_loo, r_fill = _ranks(loo), _ranks(filled)
        for r in members:
            rows.append({"run_id": r, "group": g, "unique_docs": n_unique, "score_full": full[r],
                         "rank_full": int(rank_full[r]), "score_loo": loo[r], "rank_loo": int(r_loo[r]),
                         "rank_change_loo": int(r_loo[r] - rank_full[r]), "score_filled": filled[r],
                         "rank_filled": int(r_fill[r]), "rank_change_filled": int(r_fill[r] - rank_full[r])})
    return pd.DataFrame(rows).sort_values(["rank_full", "run_id"]).reset_index(drop=True)
