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
interval is chosen by a coverage simulation kept in the tests (tests/test_ranking_coverage.py),
whose measured coverage is printed there and in the README.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..core.errors import InputError, MetaevalWarning
from ..core.resample import Units, bootstrap, debiased_bootstrap, make_rng
from ..core.results import ConfidenceInterval, Estimate, ResultSet

__all__ = ["kendall_tau", "tau_ap", "rbo", "rank_correlation", "score_matrices", "significance_agreement", "pool_bias",
           "RANK_METHODS"]

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


def kendall_tau(x, y, *, variant: str = "b") -> float:
    """Kendall's tau between two score vectors: tau-b (default, Kendall 1945) or tau-a.

    tau_b = (C − D)/√((n0 − n1)(n0 − n2)); tau_a = (C − D)/n0, ties counting 0. tau-b equals
    ``scipy.stats.kendalltau``.
    """
    if variant not in ("a", "b"):
        raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")
    X, Y = _pair(x, y)
    tb, ta, _, _ = _kendall(X, Y)
    return float(tb[0] if variant == "b" else ta[0])


def tau_ap(x, y, *, variant: str = "a") -> float:
    """AP correlation tau_AP of a candidate ranking ``y`` against a reference ``x`` (scores, higher = better).

    ``variant="a"`` (default): Urbano & Marrero's (2017) tau_AP,a, for a reference without ties and a
    candidate that may tie; without ties it equals Yilmaz, Aslam & Robertson's (2008) tau_AP, which
    weights disagreements near the top more. ``variant="b"``: the symmetric tau_AP,b for two
    rankings that may both tie. Checked against the ircor R package's documented examples
    (tau_AP = 0.7491182; with ties tau_AP,a = 0.6074515, tau_AP,b = 0.6269841) and a brute-force
    implementation.
    """
    X, Y = _pair(x, y)
    if variant == "a":
        return float(_tau_ap_a(X, Y)[0])
    if variant == "b":
        return float(_tau_ap_b(X, Y)[0])
    raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")


def rbo(x, y, *, p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of the two rankings by decreasing score (Webber et al. 2010, eq. 32)."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    X, Y = _pair(x, y)
    return float(_rbo_and_overlap(X, Y, p, 10)[0][0])


# --------------------------------------------------------------------------------------------
# score matrices
# --------------------------------------------------------------------------------------------

def _matrix(scores, measure, side):
    """A systems × topics DataFrame from a matrix, a tidy score table, or an object with .matrix()."""
    if hasattr(scores, "matrix") and callable(scores.matrix):
        if measure is None:
            raise ValueError("measure= is needed to take a matrix from a scores object")
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


def score_matrices(reference, candidate, *, measure=None, topics: str = "intersection"):
    """Align two systems × topics matrices: common systems; topics by ``topics=``.

    Returns ``(ref, cand, info)`` where the frames share the same systems (rows) and, for
    ``topics="intersection"``, the same topics; ``info`` says which systems and topics were dropped
    from which side (never silent). ``topics="own"``: each side keeps its own judged topics (NaN
    columns where a topic exists on one side only; a system's mean is over its side's topics).
    """
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
    return R, C, info


def _topic_units(R: pd.DataFrame, C: pd.DataFrame) -> Units:
    r, c = R.to_numpy(dtype=float), C.to_numpy(dtype=float)
    in_r = ~np.isnan(r).all(axis=0)
    in_c = ~np.isnan(c).all(axis=0)
    X = np.hstack([np.nan_to_num(r).T, np.nan_to_num(c).T, in_r[:, None], in_c[:, None]])
    return Units(X, np.ones(X.shape[0], dtype=np.int64), kind="clusters")


def _means(S, n):
    with np.errstate(invalid="ignore", divide="ignore"):
        return S[:, :n] / S[:, [2 * n]], S[:, n:2 * n] / S[:, [2 * n + 1]]


_BOUNDS = {"kendall_b": (-1, 1), "kendall_a": (-1, 1), "spearman": (-1, 1), "pearson": (-1, 1), "tau_ap": (-1, 1),
           "tau_ap_b": (-1, 1), "rbo": (0, 1), "top_k_overlap": (0, 1), "max_rank_change": (0, np.inf),
           "discordant_pairs": (0, np.inf), "discordant_fraction": (0, 1)}


class RankCorrelation(ResultSet):
    """Result of :func:`rank_correlation`: one Estimate per method, plus the data it came from."""


def rank_correlation(reference, candidate, *, measure=None, methods=("kendall_b", "spearman", "tau_ap", "rbo"),
                     topics: str = "intersection", p: float = 0.9, k: int = 10, n_resamples: int = 2000,
                     ci_method: str = "debiased", confidence_level: float = 0.95, rng=None, n_outer: int = 100,
                     n_inner: int = 200) -> RankCorrelation:
    """Correlation between the system rankings under two qrels, with topic-bootstrap intervals.

    Parameters
    ----------
    reference, candidate : DataFrame or scores object
        Systems × topics matrices of per-topic scores, tidy score tables (``system, query_id,
        measure, value``), or objects with a ``.matrix(measure)`` method (from ``system_scores``).
    measure : str, optional
        Which measure to take from score tables.
    methods : sequence of str
        Any of ``kendall_b``, ``kendall_a``, ``spearman``, ``pearson``, ``tau_ap`` (tau_AP,a of the
        candidate against the reference), ``tau_ap_b``, ``rbo`` (extrapolated, parameter ``p``),
        ``top_k_overlap`` (``k``), ``max_rank_change``, ``discordant_pairs``, ``discordant_fraction``.
    topics : {"intersection", "own"}
        Average over the topics judged on both sides (default), or each side over its own.
    ci_method : {"debiased", "basic", "percentile", "bca"}
        Interval of the population-of-topics correlation. Default ``"debiased"``
        (:func:`metaeval.resample.debiased_bootstrap`): centred on the bias-corrected estimate, with
        its standard error from a double bootstrap (``n_outer`` × ``n_inner`` second-level
        resamples). Chosen by the coverage simulation in tests/test_ranking_coverage.py: percentile
        intervals of tau-b covered the population tau 1-10% of the time there, basic 79-84%, BCa is no
        better, and the debiased interval 91-95% (tau-b), 97-98% (rho), 95-97% (tau_AP). The interval
        is for the population value and need not contain the estimate (``extra["debiased"]`` is the
        bias-corrected point).

    Returns
    -------
    RankCorrelation
        ``to_frame()`` has one row per method (``method, estimate, ci_low, ci_high`` and the
        package's other columns; ``bias`` is the bootstrap bias). ``.info`` says which systems and
        topics were dropped from which side.
    """
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in RANK_METHODS]
    if bad:
        raise ValueError(f"unknown method(s) {bad}; choose from {RANK_METHODS}")
    R, C, info = score_matrices(reference, candidate, measure=measure, topics=topics)
    n = R.shape[0]
    units = _topic_units(R, C)

    def kern(S):
        x, y = _means(np.asarray(S, dtype=float), n)
        return _all_methods(x, y, methods, p, k)

    chunk = max(1, int(4_000_000 // max(n * n, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        if ci_method == "debiased":
            res = debiased_bootstrap(kern, units, n_resamples=n_resamples, n_outer=n_outer, n_inner=n_inner,
                                     confidence_level=confidence_level, rng=rng, chunk=chunk)
            lo_b = np.array([_BOUNDS[m][0] for m in methods])
            hi_b = np.array([_BOUNDS[m][1] for m in methods])
            res.extra["debiased"] = np.clip(res.extra["debiased"], lo_b, hi_b)
            res.low = np.clip(res.low, lo_b, hi_b)
            res.high = np.clip(res.high, lo_b, hi_b)
        else:
            res = bootstrap(kern, units, n_resamples=n_resamples, ci_method=ci_method,
                            confidence_level=confidence_level, rng=rng, chunk=chunk)
    out = RankCorrelation(name="rank_correlation")
    for j, m in enumerate(methods):
        extra = {k: (v[j] if isinstance(v, np.ndarray) else v) for k, v in res.extra.items()}
        out.append_with(Estimate(
            statistic=m, estimate=float(res.theta_hat[j]),
            ci=ConfidenceInterval(float(res.low[j]), float(res.high[j]), confidence_level, ci_method),
            se=float(res.se[j]), bias=float(res.bias[j]), n=n, unit="topics", n_units=res.n_units,
            n_resamples=res.n_resamples, seed=res.seed, replicates=res.replicates[:, j],
            extra={**extra, "z0": float(res.z0[j]), "a": float(res.accel[j])}), method=m)
    out.info = info
    out.means = pd.DataFrame({"reference": R.mean(axis=1), "candidate": C.mean(axis=1)})
    return out


# --------------------------------------------------------------------------------------------
# do the significance decisions agree?
# --------------------------------------------------------------------------------------------

def _pairwise_tests(M: np.ndarray, test: str, n_perm: int, gen) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided p-values and mean differences for every system pair (i < j) on the topic columns."""
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
        signs = gen.choice(np.array([-1.0, 1.0]), size=(T, n_perm))
        perm = np.abs(D @ signs) / T                 # pairs × permutations
        obs = np.abs(mean)[:, None]
        pv = (1 + (perm >= obs - 1e-12).sum(axis=1)) / (n_perm + 1)
        return pv, mean
    raise ValueError(f"test must be 't' or 'randomization', got {test!r}")


def significance_agreement(reference, candidate, *, measure=None, test: str = "t", correction: str = "holm",
                           alpha: float = 0.05, n_permutations: int = 2000, rng=None) -> pd.DataFrame:
    """Do the pairwise significance decisions under the candidate qrels agree with the reference's?

    For every pair of systems, a paired test over topics under each qrels set (``test="t"``: paired
    t-test, equal to ``scipy.stats.ttest_rel``; ``"randomization"``: sign-flip randomization test
    with ``n_permutations``), corrected for multiple comparisons (``"holm"``, ``"fdr_bh"`` or
    ``"none"``, via statsmodels' ``multipletests``). Then counts the pairs significant under both with
    the same direction (kept), significant under the reference only (lost), under the candidate only
    (gained), and significant under both with opposite directions (reversed); the swap rate
    (reversed / significant under the reference, Voorhees & Buckley 2002) and the discriminative
    power of each qrels set (share of significant pairs, Sakai 2006).

    Returns
    -------
    DataFrame
        One row per quantity: ``quantity, value`` plus the settings; ``.attrs["pairs"]`` holds the
        per-pair table (system_a, system_b, diff and p-value under each qrels, decisions).
    """
    from statsmodels.stats.multitest import multipletests

    R, C, info = score_matrices(reference, candidate, measure=measure, topics="intersection")
    gen, seed = make_rng(rng)
    out = {}
    for side, M in (("reference", R), ("candidate", C)):
        pv, diff = _pairwise_tests(M.to_numpy(dtype=float), test, n_permutations, gen)
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
    npairs = len(i)
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


def pool_bias(reference_qrels, candidate_qrels, runs, groups, *, measure: str = "nDCG@10", depth: int = 10):
    """Leave-one-group-out pool bias, under human qrels and under judge-filled qrels.

    For each group of runs that contributed to the pool (the union of every run's top ``depth``
    documents per topic), the documents that only this group contributed are removed from the
    reference qrels (they become unjudged, which counts as non-relevant), every run is evaluated
    again, and the rank of the group's runs is compared with their rank under the full qrels (Zobel
    1998; Voorhees 2002). The same is done with those documents labelled by the candidate judge
    instead of removed ("judge-filled"): if a judge can fill the holes, the group's runs should not
    move. Judgments of documents outside the pool are kept as they are.

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
        rank_change_loo, score_filled, rank_filled, rank_change_filled`` (positive change = the run
        moves down when its group's unique documents are missing).
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
        unique = contributors[contributors.map(lambda s: s == frozenset([g]))].index
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
