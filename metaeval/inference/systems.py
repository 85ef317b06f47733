"""Judge-corrected system scores: every topic judged by the LLM, a few topics judged by people.

A test collection whose topics were all judged by an LLM (UMBRELA-style qrels) ranks the systems by
the judge's nDCG@10 — biased by however far the judge is off, and differently for different systems.
:func:`corrected_system_scores` corrects each system's mean with human judgments on a few topics
(prediction-powered inference, PPI++: Angelopoulos, Duchi & Zrnic 2023) and gives each system an
interval that covers its mean under the human qrels; then the corrected pairwise differences and the
corrected ranking, with its rank correlation to the judge-only ranking. :func:`corrected_coverage`
replays the design on a collection whose human judgments are complete, to measure coverage and width
for a given number of labelled topics.

Nothing here has a formula of its own: each system's estimate is :func:`metaeval.ppi_mean` and each
pairwise difference :func:`metaeval.ppi_mean_difference` (with ``population_size`` = the judge's
topics), the shared λ is the minimum of the summed :func:`metaeval.ppi_mean_variance`, and the rank
correlations are :func:`metaeval.kendall_tau`, :func:`metaeval.tau_ap` and :func:`metaeval.rbo`. The
coverage replay calls :func:`~metaeval.ppi_mean_variance` and the package's Wald interval
(:func:`metaeval.agreement.analytic.analytic_interval`) directly, for speed; its intervals equal
:func:`corrected_system_scores`' (tests/test_inference_systems.py).

The design, and what it assumes
--------------------------------
* **Estimand.** For every system s, θ_s = its mean per-topic score over *all* the judge's topics
  (the finite population of P topics at hand) under the human qrels. The human scores of the n
  labelled topics are known exactly; the rest is estimated:
  θ̂_s = λ·mean_P(ŷ_s) + mean_n(y_s − λŷ_s), with y the human and ŷ the judge score per topic.
* **Which topics to label.** A simple random sample (without replacement) of the judge's topics,
  drawn before looking at any score: ``numpy.random.default_rng(seed).choice(judge.topics, n,
  replace=False)``. Choosing "hard" or "interesting" topics breaks the guarantee. Label each chosen
  topic completely (its whole pool, as the judge did), so that its per-topic score under the human
  qrels is the score the full human qrels would give.
* **Assumed.** The labelled topics are a simple random sample of the topics; the judge scored every
  system on every topic; the human scores of the labelled topics are what full human qrels would
  give on them. Nothing is assumed about the judge: a biased judge costs width, not validity.
* **How many.** On TREC DL 2019–2021 (37–63 runs, 43–54 topics, UMBRELA GPT-4o), 15 human topics
  give intervals 0.72–0.76 times as wide as the human-only ones (0.15 against 0.20–0.21), with
  coverage 0.931 / 0.934 / 0.938 (± 0.005 / 0.004 / 0.003: mean over 10 seeds of 200 draws,
  benchmarks/coverage_seeds_dl.py; one seed each in tests/test_inference_realdata.py). From 5 to 30
  labelled topics (mean over 10 seeds of 15 draws each, benchmarks/coverage_seeds.py ``--only
  systems``; Monte Carlo error, the SD across seeds / √10, 0.006–0.014) the coverage stayed at
  0.91–0.96 and the width ratio at 0.70–0.77, while the width itself fell from 0.34–0.36 (5 topics)
  to 0.20–0.21 (10), 0.15 (15), 0.12 (20) and 0.07–0.08 (30): it
  shrinks about as √((1 − n/P)/n). :func:`corrected_coverage` measures coverage and width for any
  n on a fully judged collection; below :data:`MIN_LABELLED` topics a warning says it was not
  measured, and below :data:`RECOMMENDED_LABELLED` a warning names the coverage measured at 10
  topics (:data:`LABELLED_COVERAGE`, five seeds of 200 draws a year: 0.930–0.936 against 0.939–0.940
  at 15; what suffers first is the worst-covered run, 0.82 against 0.84 on DL19). One seed at 10
  topics can show 0.919 (DL19, seed 20261201): single-seed coverage moves by ±0.015.

The honest interval at 15 topics (what the real-data experiment showed)
-----------------------------------------------------------------------
The issue's starting point: PPI++ with a normal quantile covered 86–88% of the runs, 89–91% with a
t(n − 1) quantile (15 of 43–54 topics labelled, one run of 200 draws a year, Monte Carlo error about
±0.01, with the superseded variance of point 1). Three things decide it
(coverage for DL19 / DL20 / DL21, 200 seeded draws a year, as in the real-data test):

1. *The finite-population variance.* With the judge on every topic, the error of θ̂ is
   mean_n(r) − mean_P(r) for the residual r = y − λŷ, whose variance is (1 − n/P)·S²_r/n (Cochran
   1977, §2.5 and §7.3): the judge's mean over the P topics is known, not estimated. Scaling the
   superpopulation PPI standard error (with its λ²Var(ŷ)/N term) by (P − n)/P instead, as first
   written for the issue, reproduces the 86–91% above.
   :func:`~metaeval.inference.ppi.ppi_mean_variance` has the right variance.
2. *The t(n − 1) quantile* (with variances of divisor n − 1): 2–3 points over the normal quantile.
3. *One λ for all systems.* λ tuned per system on 15 topics chases noise (its residual variance is
   optimistic): 0.915 / 0.908 / 0.932 (± 0.013 / 0.018 / 0.010, 10 seeds of 20 draws a year,
   benchmarks/coverage_seeds.py; ``lam_optim_mode="element"``). One λ that minimizes the
   *sum* of the systems' variances (ppi_py's ``lam_optim_mode="overall"`` for a vector of means)
   is as narrow and more stable: 0.931 / 0.934 / 0.938 (± 0.005 / 0.004 / 0.003, 10 seeds of 200
   draws a year) at 0.72 / 0.76 / 0.74 × the human-only width — about the coverage of the
   human-only t interval itself (0.941 / 0.936 / 0.949 ± 0.003 / 0.003 / 0.002; per-topic nDCG@10
   is skewed, so even that stays below 95%). (One seed, 20261202, gave 0.947 on DL20.)

Plain PPI (λ = 1) covers 0.937 / 0.940 / 0.939 (± 0.004 / 0.003 / 0.003, 10 seeds) at
0.73 / 0.78 / 0.78 ×. In exploratory runs (λ per
system; one run of 200 draws a year each, Monte Carlo error about ±0.01, not rerun: their code was
not kept), a delete-one-topic jackknife covered 94–95% but at 0.83 × the human-only width, and a
percentile bootstrap under-covered (88–91%). The correction fixes each run's *level* (mean absolute
error against the all-topic human means a half to a third of the judge's); it does not beat the judge's own
*ordering* when, as with UMBRELA, the judge's bias is shared by the runs (Kendall's tau with the
all-topic human ranking, 100 draws: corrected 0.90, judge-only 0.92–0.95, human-only 0.84–0.87).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..core.errors import InputError, MetaevalWarning, SmallSampleWarning
from ..core.results import ResultSet

if TYPE_CHECKING:
    from ..systems.evaluation import SystemScores

    #: Per-topic scores: a SystemScores, or a systems × topics DataFrame.
    ScoresLike = SystemScores | pd.DataFrame

__all__ = ["corrected_system_scores", "corrected_coverage", "CorrectedSystemScores", "METHODS", "LAM_OPTIM_MODES",
           "RANK_METHODS"]

#: The estimators (those of :func:`metaeval.inference.ppi.ppi_mean`).
METHODS = ("ppi++", "ppi", "classical", "judge_only")
#: How PPI++'s λ is tuned: one λ for all systems (default) or one per system (ppi_py's names).
LAM_OPTIM_MODES = ("overall", "element")
#: Rank correlations of the corrected ranking (reference) with the judge-only ranking.
RANK_METHODS = ("kendall_b", "tau_ap", "rbo")
#: Fewer labelled topics than this warn: below it the coverage was not measured (on TREC DL 2019–2021
#: it held at 0.91–0.96, means over 10 seeds ± 0.006–0.014, from 5 to 30 labelled topics).
MIN_LABELLED = 5
#: Fewer labelled topics than this warn too, naming the coverage measured at 10 (:data:`LABELLED_COVERAGE`):
#: the design was validated at 15 (tests/test_inference_realdata.py).
RECOMMENDED_LABELLED = 15
#: Coverage of the default (PPI++) 95% intervals replayed on TREC DL 2019–2021 (UMBRELA GPT-4o judge on
#: every topic, NIST qrels on n random topics; ``corrected_coverage`` with 200 draws, seeds 1–5, per year):
#: labelled topics → (lowest and highest yearly coverage, mean over the seeds; the coverage of the
#: worst-covered run in the worst year, mean over the seeds). Monte Carlo error of a yearly mean ≤ 0.007.
#: At 10 topics: 0.936 / 0.934 / 0.930 (DL19 / 20 / 21), worst run 0.82 / 0.88 / 0.89; at 15: 0.939 /
#: 0.940 / 0.940, worst run 0.84 / 0.90 / 0.91.
LABELLED_COVERAGE = {10: (0.930, 0.936, 0.82), 15: (0.939, 0.940, 0.84)}
_QUANTILES = ("t", "normal")


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------

def _score_matrix(scores, measure, side: str) -> pd.DataFrame:
    """A systems × topics frame (str index and columns) from a SystemScores or a DataFrame."""
    if isinstance(scores, pd.DataFrame):
        m = scores
    elif hasattr(scores, "matrix") and callable(scores.matrix):
        m = scores.matrix(measure)
    else:
        raise InputError(f"{side} must be a SystemScores (metaeval.system_scores) or a systems × topics DataFrame, "
                         f"got {type(scores).__name__}", source=side)
    try:
        m = m.astype(float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{side} holds values that are not numbers", source=side,
                         expected="per-topic scores (floats)") from err
    m = m.copy()
    m.index = pd.Index([str(s) for s in m.index], name="system")
    m.columns = pd.Index([str(t) for t in m.columns], name="query_id")
    for what, idx in (("system", m.index), ("topic", m.columns)):
        if idx.has_duplicates:
            raise InputError(f"{side} has repeated {what}s: {', '.join(idx[idx.duplicated()][:5])}", source=side)
    return m


def _listed(items, k: int = 8) -> str:
    items = list(items)
    return ", ".join(items[:k]) + (f" ... ({len(items)} in all)" if len(items) > k else "")


def _topic_list(labelled_topics) -> list[str]:
    if labelled_topics is None:
        raise InputError("labelled_topics is required: the topics that carry human judgments",
                         fix="pass the ids of the topics the humans judged (a random sample of judge.topics)")
    if isinstance(labelled_topics, (str, bytes)):
        labelled_topics = [labelled_topics]
    out = [str(t) for t in (labelled_topics.tolist() if hasattr(labelled_topics, "tolist") else labelled_topics)]
    seen, dups = set(), []
    for t in out:
        if t in seen:
            dups.append(t)
        seen.add(t)
    if dups:
        raise InputError(f"labelled_topics repeats {len(dups)} topic(s): {_listed(dups)}",
                         fix="list every labelled topic once")
    return out


def _prepare(human, judge, labelled_topics, measure, systems):
    """(H_L, J_L, J_U, systems, labelled, unlabelled, topics) as arrays, every check done."""
    J = _score_matrix(judge, measure, "judge")
    H = _score_matrix(human, measure, "human")
    lab = _topic_list(labelled_topics)
    topics = list(J.columns)
    missing_j = [t for t in lab if t not in set(topics)]
    if missing_j:
        raise InputError(f"{len(missing_j)} labelled topic(s) are not among the judge's {len(topics)} topics: "
                         f"{_listed(missing_j)}", source="labelled_topics",
                         expected="topics of judge.topics (the judge scores every topic of the collection)",
                         fix="score the runs under the judge's qrels on these topics too, or drop them")
    missing_h = [t for t in lab if t not in set(H.columns)]
    if missing_h:
        raise InputError(f"{len(missing_h)} labelled topic(s) have no human scores: {_listed(missing_h)}",
                         source="labelled_topics", expected="every labelled topic in human.topics",
                         fix="score the runs under the human qrels of the labelled topics "
                             "(metaeval.system_scores(human_qrels, runs)), or drop the topics from labelled_topics")
    if len(lab) < 2:
        raise InputError(f"need at least 2 labelled topics, got {len(lab)}", source="labelled_topics",
                         fix=f"label a random sample of at least {MIN_LABELLED} topics")
    unl = [t for t in topics if t not in set(lab)]
    if not unl:
        raise InputError(f"every one of the judge's {len(topics)} topics is labelled: there is nothing to correct",
                         source="labelled_topics", fix="use the human scores themselves (human.means())")
    if systems is None:
        systems = list(J.index)
    else:
        systems = [systems] if isinstance(systems, str) else [str(s) for s in systems]
        absent = [s for s in systems if s not in set(J.index)]
        if absent:
            raise InputError(f"{len(absent)} system(s) have no judge scores: {_listed(absent)}", source="judge",
                             expected="systems of judge.systems")
    if not systems:
        raise InputError("no systems to correct", source="systems")
    no_human = [s for s in systems if s not in set(H.index)]
    if no_human:
        raise InputError(f"{len(no_human)} system(s) have no human scores: {_listed(no_human)}", source="human",
                         expected="every judged system scored under the human qrels of the labelled topics",
                         fix="score these runs under the human qrels too, or leave them out with systems=")
    HL = H.loc[systems, lab].to_numpy(dtype=float)
    Jm = J.loc[systems, topics].to_numpy(dtype=float)
    for side, arr, cols in (("human", HL, lab), ("judge", Jm, topics)):
        bad = np.argwhere(np.isnan(arr))
        if len(bad):
            s, t = bad[0]
            raise InputError(f"{len(bad)} missing {side} score(s), e.g. system {systems[s]!r} on topic {cols[t]!r}",
                             source=side, expected="a score for every system on every "
                                                   + ("labelled topic" if side == "human" else "topic"),
                             fix="score every run on every topic (system_scores(..., missing_topics='zero'), "
                                 "as trec_eval -c)")
    li = [topics.index(t) for t in lab]
    ui = [topics.index(t) for t in unl]
    return HL, Jm[:, li], Jm[:, ui], systems, lab, unl, topics


def _check_options(method, lam, lam_optim_mode, quantile, confidence_level):
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    if lam_optim_mode not in LAM_OPTIM_MODES:
        raise InputError(f"lam_optim_mode must be one of {LAM_OPTIM_MODES}, got {lam_optim_mode!r}")
    if quantile not in _QUANTILES:
        raise InputError(f"quantile must be one of {_QUANTILES}, got {quantile!r}")
    if not 0 < confidence_level < 1:
        raise InputError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")
    if lam is not None:
        if method != "ppi++":
            raise InputError(f"lam= applies to method='ppi++' only, got method={method!r}", fix="drop lam=")
        if not (isinstance(lam, (int, float, np.integer, np.floating)) and math.isfinite(float(lam))):
            raise InputError(f"lam must be a finite number, got {lam!r}")


# --------------------------------------------------------------------------------------------
# the estimates (every one through ppi_mean_variance)
# --------------------------------------------------------------------------------------------

class _Fit:
    """PPI estimates and variances of every system for one labelled sample, with a cache per λ."""

    def __init__(self, HL, JL, JU, population_size, ddof):
        self.HL, self.JL, self.JU = HL, JL, JU
        self.P, self.ddof = population_size, ddof
        self.S, self.n = HL.shape
        self._cache: dict = {}

    def at(self, lam) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(estimate, variance, var_labelled, var_unlabelled) per system at λ (a scalar or one per system)."""
        from .ppi import ppi_mean_variance

        lam_v = np.broadcast_to(np.asarray(lam, dtype=float), (self.S,))
        key = lam_v.tobytes()
        if key not in self._cache:
            out = np.empty((4, self.S))
            for s in range(self.S):
                v = ppi_mean_variance(self.HL[s], self.JL[s], self.JU[s], float(lam_v[s]), ddof=self.ddof,
                                      population_size=self.P)
                out[:, s] = v.estimate, v.variance, v.var_labelled, v.var_unlabelled
            self._cache[key] = out
        return tuple(self._cache[key])

    def shared_lambda(self) -> float:
        """The λ in [0, 1] that minimizes the sum of the systems' variances (ppi_py's "overall" mode).

        θ̂_λ is linear in λ, so its variance is a quadratic in λ; the sum over systems is evaluated by
        :func:`~metaeval.inference.ppi.ppi_mean_variance` at λ = 0, ½ and 1 and minimized exactly.
        """
        v0, vh, v1 = (float(np.sum(self.at(x)[1])) for x in (0.0, 0.5, 1.0))
        a = 2.0 * (v1 - 2.0 * vh + v0)
        b = v1 - v0 - a
        if not (a > 1e-15 * max(abs(v0), abs(v1), 1e-300)):
            return 0.0 if v0 <= v1 else 1.0  # a judge constant on the labelled topics: no information
        return float(np.clip(-b / (2.0 * a), 0.0, 1.0))

    def element_lambda(self) -> np.ndarray:
        """ppi_py's power-tuned λ per system (:func:`~metaeval.inference.ppi.ppi_lambda`)."""
        from .ppi import ppi_lambda

        return np.array([ppi_lambda(self.HL[s], self.JL[s], self.JU[s], population_size=self.P)
                         for s in range(self.S)])

    def lambdas(self, method, lam, lam_optim_mode) -> np.ndarray:
        if method == "classical":
            return np.zeros(self.S)
        if method == "ppi":
            return np.ones(self.S)
        if lam is not None:
            return np.full(self.S, float(lam))
        if lam_optim_mode == "overall":
            return np.full(self.S, self.shared_lambda())
        return self.element_lambda()


def _warn_uninformative(JL, n) -> None:
    """PPI++ tuned λ to 0: say so (the corrected scores are then the human-only means of the labelled topics)."""
    const = np.ptp(JL, axis=1) == 0 if JL.shape[1] else np.ones(JL.shape[0], dtype=bool)
    if const.all():
        vals = np.unique(JL)
        what = f"all {_num_text(vals[0])}" if len(vals) == 1 else "constant for every system"
        why = f"the judge's scores on the {n} labelled topics carry no information ({what})"
    else:
        why = f"the judge's scores do not rise with the human scores on the {n} labelled topics"
    warnings.warn(f"{why}, so PPI++ set λ = 0: the corrected scores are the human-only means of the labelled "
                  "topics (method='classical') and the judge's other topics add nothing. Check that the judge's "
                  "qrels and runs match the human ones (same topic ids, same measure)", MetaevalWarning, stacklevel=3)


def _num_text(v) -> str:
    return str(int(v)) if float(v).is_integer() else f"{float(v):g}"


def _judge_only(JL, JU, quantile, confidence_level):
    """Judge-only means over every topic, through ppi_mean (its topic-sampling interval, no bias)."""
    from .ppi import ppi_mean

    return [ppi_mean(JL[s], JL[s], JU[s], method="judge_only", quantile=quantile, confidence_level=confidence_level)
            for s in range(JL.shape[0])]


def _interval(est, var, df_n, quantile, confidence_level):
    from ..agreement.analytic import analytic_interval

    se = np.sqrt(np.maximum(np.asarray(var, dtype=float), 0.0))
    low, high = analytic_interval(np.asarray(est, dtype=float), se, n=np.full(np.shape(est), df_n),
                                  confidence_level=confidence_level, quantile=quantile)
    return se, np.asarray(low), np.asarray(high)


def _methods_intervals(fit: _Fit, JL, JU, method, lam, lam_optim_mode, quantile, confidence_level, judge_only=None):
    """One method's estimates and intervals for every system: a dict of arrays."""
    if method == "judge_only":
        ests = judge_only if judge_only is not None else _judge_only(JL, JU, quantile, confidence_level)
        return dict(est=np.array([e.estimate for e in ests]), low=np.array([e.ci.low for e in ests]),
                    high=np.array([e.ci.high for e in ests]), se=np.array([e.se for e in ests]),
                    lam=np.full(fit.S, np.nan), var_l=np.full(fit.S, np.nan), var_u=np.full(fit.S, np.nan),
                    df=JL.shape[1] + JU.shape[1] - 1)
    lam_v = fit.lambdas(method, lam, lam_optim_mode)
    est, var, vl, vu = fit.at(lam_v)
    se, low, high = _interval(est, var, fit.n, quantile, confidence_level)
    return dict(est=est, low=low, high=high, se=se, lam=lam_v, var_l=vl, var_u=vu, df=fit.n - 1)


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------

class CorrectedSystemScores(ResultSet):
    """Result of :func:`corrected_system_scores`: one Estimate per system, plus differences and ranking.

    A :class:`~metaeval.ResultSet` keyed by ``system`` (the corrected mean of each system), with:

    Attributes
    ----------
    differences : ResultSet
        Corrected differences θ_a − θ_b keyed by ``system_a, system_b`` (every pair, a before b in
        the order of the systems), with the p-value of "no difference". Computed the first time it
        is read (S(S − 1)/2 pairs: 1,953 for 63 runs, ten times the cost of the scores), or at once
        with ``differences=True``; empty with ``differences=False``.
    ranking : pandas.DataFrame
        Index ``system``, sorted by the corrected estimate: ``estimate, ci_low, ci_high``,
        ``judge_only`` (the judge's mean over every topic), ``labelled_mean`` (the human mean over the
        labelled topics), ``rank`` and ``judge_rank`` (1 = best; ties share the best rank) and
        ``rank_change`` (judge rank − corrected rank: positive when the correction moves a system up).
    rank_correlation : ResultSet
        Point estimates keyed by ``method`` (``kendall_b``, ``tau_ap``, ``rbo``): the corrected
        ranking (reference) against the judge-only one (candidate); empty for fewer than 3 systems.
    design : dict
        ``method``, ``lam`` (the shared λ, or None when it varies by system), ``lam_optim_mode``,
        ``quantile``, ``confidence_level``, ``n_labelled``, ``n_topics``, ``finite_population``,
        ``labelled_topics``, ``measure``.

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
    >>> import numpy as np, metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> labelled = np.random.default_rng(7).choice(judge.topics, 15, replace=False)
    >>> res = me.corrected_system_scores(human, judge, labelled_topics=labelled, differences=False)
    >>> type(res).__name__, len(res), res.ranking.columns[:3].tolist()
    ('CorrectedSystemScores', 30, ['estimate', 'ci_low', 'ci_high'])
    """

    _row_attrs = ()

    def __init__(self, estimates=(), keys=None, name: str = ""):
        super().__init__(estimates, keys, name)
        self._differences = ResultSet(name="differences")
        self._differences_args = None           # the inputs of _differences, until it is computed
        self.ranking = pd.DataFrame()
        self.rank_correlation = ResultSet(name="rank_correlation")
        self.design: dict = {}


def _lazy_differences(self) -> ResultSet:
    if self.__dict__.get("_differences_args") is not None:
        self._differences = _differences(*self._differences_args)
        self._differences_args = None
    return self._differences


def _set_differences(self, value) -> None:
    self._differences = value
    self._differences_args = None


CorrectedSystemScores.differences = property(_lazy_differences, _set_differences,
                                             doc="Every pair's corrected difference (computed on first use).")


def _rank(values: np.ndarray) -> np.ndarray:
    return stats.rankdata(-np.asarray(values, dtype=float), method="min").astype(int)


def _rank_correlations(corrected, judge_means) -> ResultSet:
    from ..core.resample import BootstrapResult
    from ..systems.ranking import kendall_tau, rbo, tau_ap

    out = ResultSet(name="rank_correlation")
    if len(corrected) < 3:
        return out
    vals = [kendall_tau(corrected, judge_means), tau_ap(corrected, judge_means), rbo(corrected, judge_means)]
    point = BootstrapResult.point(vals, unit="none", n_units=0)
    for m, e in zip(RANK_METHODS, point.estimates(list(RANK_METHODS), n=len(corrected))):
        out.append_with(e, method=m)
    return out


def _differences(HL, JL, JU, lam, systems, method, quantile, confidence_level, P) -> ResultSet:
    """Every pair's corrected difference through :func:`~metaeval.inference.ppi.ppi_mean_difference`.

    With one λ for both systems (the shared λ, PPI, classical) that is PPI on the paired
    differences with that λ. With a λ per system, the judge's predictions of the two systems are
    scaled by their own λ and PPI is run with λ = 1: (y_a − y_b) − (λ_a ŷ_a − λ_b ŷ_b) is then the
    difference of the two systems' residuals, so the estimate is again θ̂_a − θ̂_b.
    """
    from .ppi import ppi_mean_difference

    out = ResultSet(name="differences")
    S = len(systems)
    for a in range(S):
        for b in range(a + 1, S):
            y = np.column_stack([HL[a], HL[b]])
            kw = dict(quantile=quantile, confidence_level=confidence_level)
            if method == "judge_only":
                e = ppi_mean_difference(y, np.column_stack([JL[a], JL[b]]), np.column_stack([JU[a], JU[b]]),
                                        method="judge_only", **kw)
            elif method != "ppi++" or lam[a] == lam[b]:
                e = ppi_mean_difference(y, np.column_stack([JL[a], JL[b]]), np.column_stack([JU[a], JU[b]]),
                                        method=method, lam=float(lam[a]) if method == "ppi++" else None,
                                        population_size=P, **kw)
            else:
                e = ppi_mean_difference(y, np.column_stack([lam[a] * JL[a], lam[b] * JL[b]]),
                                        np.column_stack([lam[a] * JU[a], lam[b] * JU[b]]), method="ppi++", lam=1.0,
                                        population_size=P, **kw)
                e.extra.update(lam=None, lam_a=float(lam[a]), lam_b=float(lam[b]))
            out.append_with(e, system_a=systems[a], system_b=systems[b])
    return out


def corrected_system_scores(human: ScoresLike, judge: ScoresLike, *, labelled_topics: Sequence[str],
                            measure: str | None = None, method: str = "ppi++", confidence_level: float = 0.95,
                            quantile: str = "t", lam: float | None = None, lam_optim_mode: str = "overall",
                            finite_population: bool = True, systems: Sequence[str] | None = None,
                            differences: bool | None = None) -> CorrectedSystemScores:
    """Each system's mean under human judgments, from judge scores on every topic and human scores on a few.

    Parameters
    ----------
    human : SystemScores or DataFrame
        Per-topic scores under the human qrels (:func:`metaeval.system_scores`), or a systems ×
        topics frame. Only the labelled topics are needed (other topics are ignored).
    judge : SystemScores or DataFrame
        Per-topic scores of the same systems under the judge's qrels on every topic; its topics are
        the population whose mean is estimated.
    labelled_topics : sequence of str
        The topics with human judgments: a simple random sample of ``judge``'s topics (see Notes).
    measure : str, optional
        Which measure of the SystemScores (``"nDCG@10"``); needed when they hold several.
    method : {"ppi++", "ppi", "classical", "judge_only"}
        ``"ppi++"`` (default): the judge's scores weighted by a tuned λ; ``"ppi"``: λ = 1;
        ``"classical"``: the human scores of the labelled topics alone (λ = 0);
        ``"judge_only"``: the judge's mean over every topic with the topic-sampling t interval a
        judge-only evaluation reports (it ignores the judge's bias: the baseline the others correct).
    confidence_level : float
        Coverage of the intervals, in (0, 1).
    quantile : {"t", "normal"}
        Student t with n − 1 degrees of freedom (n labelled topics) and variances with divisor
        n − 1 (default), or the normal quantile with ppi_py's 1/n variances.
    lam : float, optional
        λ by hand (``method="ppi++"`` only), the same for every system.
    lam_optim_mode : {"overall", "element"}
        ``"overall"`` (default): one λ in [0, 1] for all systems, the one that minimizes the sum of
        their variances (ppi_py's mode of that name for a vector of means); ``"element"``: ppi_py's
        λ per system (:func:`~metaeval.inference.ppi.ppi_lambda`). See the module notes for why the
        default is "overall".
    finite_population : bool
        True (default): the target is the mean over the judge's topics, so the labelled topics'
        human scores are known and the variance carries the factor 1 − n/P. False: the target is the
        mean over the population of topics the collection was drawn from (wider intervals).
    systems : sequence of str, optional
        Correct only these systems (default: every system of ``judge``). The shared λ is tuned on
        them.
    differences : bool, optional
        Every pair's corrected difference (S(S − 1)/2 estimates, ten times the cost of the scores
        for 63 runs): None (default) computes them the first time ``.differences`` is read, True at
        once, False never (``.differences`` is empty). (metaeval 0.1 computed them always.)

    Returns
    -------
    CorrectedSystemScores
        One :func:`~metaeval.ppi_mean` Estimate per system keyed by ``system`` (statistic
        ``"<method>_mean"``; ``extra``: ppi_mean's ``lam``, ``var_labelled``, ``var_unlabelled``,
        ``n_labelled``, ``population_size``, ``quantile``, ``df`` ..., plus ``judge_mean``,
        ``labelled_mean`` and ``lam_optim_mode``), with ``.differences`` (keyed by ``system_a,
        system_b``; statistic ``"<method>_mean_difference"``, p-value of "no difference"),
        ``.ranking``, ``.rank_correlation`` and ``.design``.

    Raises
    ------
    InputError
        Labelled topics missing from the judge's or the human scores, repeated, fewer than 2, or
        all of the judge's topics; a system without human or judge scores; a missing score; an
        unknown method, quantile or λ mode.

    Warns
    -----
    SmallSampleWarning
        Fewer than :data:`MIN_LABELLED` labelled topics (coverage not measured there), or fewer than
        :data:`RECOMMENDED_LABELLED` (naming the coverage measured at 10, :data:`LABELLED_COVERAGE`).
    MetaevalWarning
        When PPI++ tunes λ to 0 (an uninformative judge: e.g. its scores are all 0 on the labelled
        topics): the result is then the human-only (classical) one.

    Notes
    -----
    For system s with human scores y and judge scores ŷ per topic, n labelled topics out of P:
    θ̂_s = λ·mean_P(ŷ_s) + mean_n(y_s − λŷ_s) and var = (1 − n/P)·S²(y_s − λŷ_s)/n
    (:func:`~metaeval.inference.ppi.ppi_mean_variance` with ``population_size=P``), interval
    θ̂ ± t_{n−1}·√var. A pairwise difference is the same estimator on y_a − y_b with predictions
    λ_a ŷ_a − λ_b ŷ_b, so it equals the difference of the two corrected means. The design (random
    topics, how many) and what it assumes are in the module notes of
    :mod:`metaeval.inference.systems`.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++, arXiv 2311.01453; ppi_py 0.2.3 (``ppi_mean_ci``,
    ``lam_optim_mode``). Cochran (1977), Sampling Techniques, §2.5 and §7.3 (finite population,
    difference estimator). Each estimate equals :func:`metaeval.inference.ppi.ppi_mean` with the same
    λ (tests/test_inference_systems.py); coverage on TREC DL 2019–2021 in
    tests/test_inference_realdata.py.

    Examples
    --------
    >>> import numpy as np, metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")          # the judge on all 40 topics
    >>> labelled = np.random.default_rng(7).choice(judge.topics, 15, replace=False)   # 15 random topics
    >>> qrels = d.qrels_human[d.qrels_human["query_id"].isin(labelled)]       # human qrels of those only
    >>> human = me.system_scores(qrels, d.runs, "nDCG@10")
    >>> res = me.corrected_system_scores(human, judge, labelled_topics=labelled)
    >>> print(res[:2])
    [system=run_01] ppi++_mean = 0.7780, 95% analytic CI [0.7376, 0.8185] (n = 40)
    [system=run_02] ppi++_mean = 0.7270, 95% analytic CI [0.6868, 0.7672] (n = 40)
    >>> round(res.design["lam"], 3), round(float(res.ranking.loc["run_01", "judge_only"]), 4)   # judge alone: too low
    (0.61, 0.5969)
    >>> print(res.differences[:1])
    [system_a=run_01, system_b=run_02] ppi++_mean_difference = 0.0510, 95% analytic CI [0.0046, 0.0975], p = 0.03361 (n = 40)
    >>> res.ranking[["estimate", "judge_only", "rank", "judge_rank"]].head(3).round(4)
            estimate  judge_only  rank  judge_rank
    system
    run_05    0.8708      0.6583     1           1
    run_03    0.8550      0.6438     2           2
    run_26    0.8452      0.6176     3           6
    >>> round(res.rank_correlation.get(method="kendall_b").estimate, 3)   # corrected vs judge-only ranking
    0.839

    The all-topic human means these intervals aim at (here known: the sample set is fully judged)
    are 0.8007 and 0.7567.
    """
    _check_options(method, lam, lam_optim_mode, quantile, confidence_level)
    HL, JL, JU, systems, lab, unl, topics = _prepare(human, judge, labelled_topics, measure, systems)
    n, P = len(lab), len(topics)
    if n < MIN_LABELLED:
        warnings.warn(f"only {n} labelled topics: the coverage of the corrected intervals was measured from "
                      f"{MIN_LABELLED} topics on (label more topics, at random)", SmallSampleWarning, stacklevel=2)
    elif n < RECOMMENDED_LABELLED and method != "judge_only":
        lo, hi, worst = LABELLED_COVERAGE[10]
        lo15, hi15, worst15 = LABELLED_COVERAGE[RECOMMENDED_LABELLED]
        warnings.warn(f"only {n} labelled topics: replayed on TREC DL 2019–2021, the 95% intervals at 10 labelled "
                      f"topics covered {lo:.3f}–{hi:.3f} of the runs' human means (the worst-covered run {worst:.2f}), "
                      f"against {lo15:.3f}–{hi15:.3f} (worst run {worst15:.2f}) at {RECOMMENDED_LABELLED}, the number "
                      f"the design was validated with; label at least {RECOMMENDED_LABELLED} topics, at random",
                      SmallSampleWarning, stacklevel=2)
    from .ppi import ppi_mean

    Pf = P if finite_population else None
    lam_v = None
    if method != "judge_only":
        lam_v = _Fit(HL, JL, JU, Pf, 1 if quantile == "t" else 0).lambdas(method, lam, lam_optim_mode)
        if method == "ppi++" and lam is None and len(lam_v) and np.all(lam_v == 0):
            _warn_uninformative(JL, n)
    judge_means = np.concatenate([JL, JU], axis=1).mean(axis=1)
    labelled_mean = HL.mean(axis=1)
    out = CorrectedSystemScores(name="corrected_system_scores")
    for s, sys in enumerate(systems):
        kw = dict(quantile=quantile, confidence_level=confidence_level)
        if method == "judge_only":   # the topic-sampling interval of a judge-only evaluation (no finite population)
            e = ppi_mean(JL[s], JL[s], JU[s], method="judge_only", **kw)
        else:
            e = ppi_mean(HL[s], JL[s], JU[s], method=method, lam=float(lam_v[s]) if method == "ppi++" else None,
                         population_size=Pf, **kw)
        e.extra.update(judge_mean=float(judge_means[s]), labelled_mean=float(labelled_mean[s]),
                       lam_optim_mode=lam_optim_mode if method == "ppi++" and lam is None else None)
        out.append_with(e, system=sys)
    r = {"est": np.array([e.estimate for e in out]), "low": np.array([e.ci.low for e in out]),
         "high": np.array([e.ci.high for e in out]), "lam": np.array([e.extra.get("lam", np.nan) for e in out],
                                                                      dtype=float)}
    if differences is None:
        out._differences_args = (HL, JL, JU, lam_v, systems, method, quantile, confidence_level, Pf)
    elif differences:
        out.differences = _differences(HL, JL, JU, lam_v, systems, method, quantile, confidence_level, Pf)
    rank = pd.DataFrame({"estimate": r["est"], "ci_low": r["low"], "ci_high": r["high"], "judge_only": judge_means,
                         "labelled_mean": labelled_mean, "rank": _rank(r["est"]), "judge_rank": _rank(judge_means)},
                        index=pd.Index(systems, name="system"))
    rank["rank_change"] = rank["judge_rank"] - rank["rank"]
    out.ranking = rank.sort_values(["rank", "judge_rank"], kind="stable")
    out.rank_correlation = _rank_correlations(r["est"], judge_means)
    lam_used = r["lam"]
    shared = bool(len(lam_used)) and not np.isnan(lam_used).all() and np.all(lam_used == lam_used[0])
    out.design = {"method": method, "lam": float(lam_used[0]) if shared else None, "lam_optim_mode": lam_optim_mode,
                  "quantile": quantile, "confidence_level": confidence_level, "n_labelled": n, "n_topics": P,
                  "finite_population": finite_population, "labelled_topics": tuple(lab), "measure": measure}
    return out


# --------------------------------------------------------------------------------------------
# replaying the design on a complete collection
# --------------------------------------------------------------------------------------------

def corrected_coverage(human: ScoresLike, judge: ScoresLike, *, n_labelled: int | Iterable[int] = 15,
                       n_draws: int = 200, methods: str | Sequence[str] = METHODS, measure: str | None = None,
                       confidence_level: float = 0.95, quantile: str = "t", lam_optim_mode: str = "overall",
                       finite_population: bool = True, systems: Sequence[str] | None = None,
                       rng: None | int | np.random.Generator = None) -> pd.DataFrame:
    """Coverage and width of the corrected intervals, replaying the design on a fully judged collection.

    Each draw labels a simple random sample of ``n_labelled`` topics, runs
    :func:`corrected_system_scores` on it (the human scores of the other topics hidden), and checks
    every system's interval against its mean over all topics under the human scores (the target).

    Parameters
    ----------
    human : SystemScores or DataFrame
        Per-topic scores under the human qrels on *every* topic of ``judge`` (the targets).
    judge : SystemScores or DataFrame
        Per-topic scores under the judge's qrels.
    n_labelled : int or sequence of int
        Labelled topics per draw (one simulation per value; each below the number of topics).
    n_draws : int
        Random labelled samples per value of ``n_labelled``.
    methods : str or sequence of str
        Any of :data:`METHODS` (the width ratio needs ``"classical"``).
    measure : str, optional
        As for :func:`corrected_system_scores`.
    confidence_level : float
        Nominal coverage of the intervals.
    quantile : {"t", "normal"}
        As for :func:`corrected_system_scores`.
    lam_optim_mode : {"overall", "element"}
        As for :func:`corrected_system_scores`.
    finite_population : bool
        As for :func:`corrected_system_scores` (the target is the all-topic mean either way).
    systems : sequence of str, optional
        Restrict to these systems.
    rng : None, int or numpy.random.Generator
        Seeds the draws (reported in the ``seed`` column; :func:`metaeval.core.resample.make_rng`).

    Returns
    -------
    pandas.DataFrame
        One row per (``n_labelled``, ``method``): ``coverage`` (share of systems × draws whose
        interval holds the target), ``coverage_se`` (its Monte Carlo standard error from the spread
        of the per-draw coverage), ``worst_system`` (the lowest coverage of any system),
        ``mean_width``, ``width_ratio`` (mean width ÷ the human-only one at the same n; NaN without
        ``"classical"``), ``n_draws``, ``n_systems``, ``n_topics``, ``seed``.

    Raises
    ------
    InputError
        When the human scores miss a topic or a system of the judge's, or ``n_labelled`` is not
        between 2 and the number of topics − 1.

    References
    ----------
    The experiment of tests/test_inference_realdata.py (TREC DL 2019–2021: UMBRELA GPT-4o qrels
    on every topic, NIST qrels on 15).

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> cov = me.corrected_coverage(human, judge, n_labelled=15, n_draws=20, methods=("ppi++", "classical"), rng=0)
    >>> cov[["n_labelled", "method", "coverage", "mean_width", "width_ratio"]].round(3)
       n_labelled     method  coverage  mean_width  width_ratio
    0          15      ppi++     0.962       0.084         0.73
    1          15  classical     0.963       0.115         1.00
    """
    from ..core.resample import make_rng

    methods = [methods] if isinstance(methods, str) else list(methods)
    for m in methods:
        _check_options(m, None, lam_optim_mode, quantile, confidence_level)
    ns = [int(n_labelled)] if np.ndim(n_labelled) == 0 else [int(v) for v in n_labelled]
    if int(n_draws) < 1:
        raise InputError(f"n_draws must be at least 1, got {n_draws!r}")
    J = _score_matrix(judge, measure, "judge")
    H = _score_matrix(human, measure, "human")
    topics = list(J.columns)
    P = len(topics)
    no_h = [t for t in topics if t not in set(H.columns)]
    if no_h:
        raise InputError(f"the human scores miss {len(no_h)} of the judge's topics: {_listed(no_h)}", source="human",
                         expected="human scores on every topic (they define the target)",
                         fix="simulate on a collection with complete human judgments")
    bad_n = [v for v in ns if not 2 <= v < P]
    if bad_n:
        raise InputError(f"n_labelled must lie between 2 and {P - 1} (the judge has {P} topics), got {bad_n}")
    # every check of corrected_system_scores, once, on the whole collection
    _, _, _, systems, _, _, _ = _prepare(H, J, topics[:2], measure, systems)
    Hm = H.loc[systems, topics].to_numpy(dtype=float)
    if np.isnan(Hm).any():
        raise InputError("missing human scores: the target needs a human score for every system and topic",
                         source="human")
    Jm = J.loc[systems, topics].to_numpy(dtype=float)
    target = Hm.mean(axis=1)
    gen, seed = make_rng(rng)
    ddof = 1 if quantile == "t" else 0
    S = len(systems)
    judge_only = None
    if "judge_only" in methods:
        judge_only = _judge_only(Jm[:, :2], Jm[:, 2:], quantile, confidence_level)
    rows = []
    for n in ns:
        cover = {m: np.zeros((n_draws, S), dtype=bool) for m in methods}
        width = {m: np.zeros((n_draws, S)) for m in methods}
        for d in range(int(n_draws)):
            li = np.sort(gen.choice(P, size=n, replace=False))
            ui = np.setdiff1d(np.arange(P), li)
            fit = _Fit(Hm[:, li], Jm[:, li], Jm[:, ui], P if finite_population else None, ddof)
            for m in methods:
                r = _methods_intervals(fit, Jm[:, li], Jm[:, ui], m, None, lam_optim_mode, quantile,
                                       confidence_level, judge_only=judge_only)
                cover[m][d] = (r["low"] <= target) & (target <= r["high"])
                width[m][d] = r["high"] - r["low"]
        base = float(width["classical"].mean()) if "classical" in methods else math.nan
        for m in methods:
            per_draw = cover[m].mean(axis=1)
            w = float(width[m].mean())
            rows.append({"n_labelled": n, "method": m, "coverage": float(cover[m].mean()),
                         "coverage_se": float(per_draw.std(ddof=1) / math.sqrt(n_draws)) if n_draws > 1 else math.nan,
                         "worst_system": float(cover[m].mean(axis=0).min()), "mean_width": w,
                         "width_ratio": w / base if base > 0 else math.nan, "n_draws": int(n_draws),
                         "n_systems": S, "n_topics": P, "seed": seed})
    return pd.DataFrame(rows)
