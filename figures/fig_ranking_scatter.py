"""System ranking, trec_dl_like: mean nDCG@10 of the 30 runs under the human qrels vs under the
judge's qrels, with topic-bootstrap 95% intervals of each run's mean, and Kendall's tau, Spearman's
rho and tau_AP with topic-bootstrap intervals (metaeval.systems.ranking.rank_correlation).

nDCG@10 per run and topic is computed with ir-measures (trec_eval's nDCG, gain = grade;
unjudged documents count as non-relevant). The intervals of the means come from the engine's
``group_means`` (topics resampled, one draw for both qrels), the correlations from
``rank_correlation``: nothing here computes a statistic of its own.
"""

from __future__ import annotations

import functools

import _gallery as g
import ir_measures
import numpy as np
import pandas as pd

from metaeval import figures
from metaeval.core.resample import group_means
from metaeval.systems.ranking import rank_correlation

NAME = "ranking_scatter"
MEASURE = ir_measures.nDCG @ 10


@functools.cache
def score_matrix(which: str) -> pd.DataFrame:
    """Runs × topics nDCG@10 under the ``qrels_human`` or ``qrels_judge`` qrels."""
    d = g.load("trec_dl_like")
    qrels = d[which]
    rows = []
    for run_id, run in d.runs.groupby("run_id", sort=True):
        for m in ir_measures.iter_calc([MEASURE], qrels, run[["query_id", "doc_id", "score"]]):
            rows.append((run_id, m.query_id, m.value))
    df = pd.DataFrame(rows, columns=["system", "query_id", "value"])
    return df.pivot(index="system", columns="query_id", values="value").sort_index().sort_index(axis=1)


def mean_intervals(R: pd.DataFrame, C: pd.DataFrame, *, n_resamples, rng):
    """Topic-bootstrap percentile intervals of every system's mean under both qrels (one draw).

    One row per (system, topic): the system is the group, the topic the cluster, and the two
    qrels' scores are the two value columns of :func:`metaeval.core.resample.group_means`.
    """
    n, t = R.shape
    values = np.column_stack([R.to_numpy().ravel(), C.to_numpy().ravel()])
    res = group_means(values, np.repeat(np.arange(n), t), cluster=np.tile(np.arange(t), n),
                      n_resamples=n_resamples, ci_method="percentile", rng=rng)
    return res.low[:n], res.high[:n], res.low[n:], res.high[n:]


def correlations(R, C):
    with g.quiet():
        rc = rank_correlation(R, C, methods=("kendall_b", "spearman", "tau_ap"), n_resamples=g.N_RESAMPLES,
                              rng=g.SEED)
    return dict(correlations=rc.to_frame())


@figures.theme()
def render(out=None):
    R, C = score_matrix("qrels_human"), score_matrix("qrels_judge")
    xl, xh, yl, yh = mean_intervals(R, C, n_resamples=g.N_RESAMPLES, rng=g.SEED)
    frame = pd.DataFrame({"reference": R.mean(axis=1), "candidate": C.mean(axis=1), "reference_low": xl,
                          "reference_high": xh, "candidate_low": yl, "candidate_high": yh})
    ax = figures.plot_ranking_scatter(frame, xlabel="nDCG@10, human qrels", ylabel="nDCG@10, judge qrels",
                                      **correlations(R, C))
    ax.set_title("trec_dl_like: 30 runs, 40 topics", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
