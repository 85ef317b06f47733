"""Judge-corrected nDCG@10, trec_dl_like: the judge on all 40 topics, humans on 15 random ones.

Two figures. ``corrected_intervals``: per run, the judge-only interval (the judge's mean with its
topic-sampling t interval: it ignores the judge's bias), the PPI++ interval
(metaeval.corrected_system_scores: one λ for all runs, finite population of the 40 topics, t(14)),
and the human-only t interval on the 15 labelled topics, with the all-topic human mean each aims at
(known here: the sample set is fully judged). ``coverage_width``: metaeval.corrected_coverage
replays the design for 5 to 30 labelled topics (80 random draws each) and shows how often each
interval holds the all-topic human mean and how wide it is. Nothing here computes a statistic of
its own.
"""

from __future__ import annotations

import functools

import _gallery as g
import numpy as np

from metaeval import corrected_coverage, corrected_system_scores, figures, system_scores
from metaeval.output.figures_inference import plot_corrected_intervals, plot_coverage_width

NAME = "corrected_intervals"
NAME_COVERAGE = "coverage_width"
N_LABELLED = 15
N_DRAWS = 80
METHODS = ("judge_only", "ppi++", "classical")


@functools.cache
def scores():
    d = g.load("trec_dl_like")
    return system_scores(d.qrels_human, d.runs, "nDCG@10"), system_scores(d.qrels_judge, d.runs, "nDCG@10")


def labelled_topics(judge) -> list[str]:
    """The 15 labelled topics: a simple random sample of the judge's topics (seeded)."""
    return [str(t) for t in np.random.default_rng(g.SEED).choice(judge.topics, N_LABELLED, replace=False)]


@figures.theme()
def render(out=None):
    human, judge = scores()
    lab = labelled_topics(judge)
    with g.quiet():
        res = {m: corrected_system_scores(human, judge, labelled_topics=lab, method=m, differences=False)
               for m in METHODS}
    fig, ax = figures.subplots(figsize=(4.8, 6.4))
    plot_corrected_intervals(res, target=human.means(), ax=ax, xlabel="nDCG@10 (95% interval)")
    ax.set_title(f"trec_dl_like: 30 runs; judge on 40 topics, humans on {N_LABELLED}", loc="left", pad=22)
    files = g.finish(fig, NAME, out)
    with g.quiet():
        cov = corrected_coverage(human, judge, n_labelled=(5, 10, 15, 20, 30), n_draws=N_DRAWS,
                                 methods=("ppi++", "ppi", "classical", "judge_only"), rng=g.SEED)
    fig2, axes = figures.subplots(1, 2, figsize=(7.2, 3.0))
    plot_coverage_width(cov, axes=axes)
    axes[0].set_title(f"trec_dl_like: 30 runs, 40 topics; {N_DRAWS} draws per point", loc="left")
    return files + g.finish(fig2, NAME_COVERAGE, out)


if __name__ == "__main__":
    g.main(render)
