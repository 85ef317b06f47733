"""Label budget, trec_dl_like: how wide the 95% interval of a run's mean nDCG@10 over the 40
topics is expected to be with n human-labelled topics, for the human-only mean, PPI and PPI++
(the judge's qrels on every topic, corrected by the human qrels on the labelled ones).

The pilot: human qrels on 10 topics drawn at random (seeded), the judge's qrels on all 40; the 30
runs are scored with metaeval.system_scores (nDCG@10). metaeval.inference.budget.label_budget
projects each run's interval width to n = 3 … 38 labelled topics, with the finite population of
40 topics (every topic not labelled is judged) and a t(n − 1) quantile; the lines are the median
over the runs, the bands the 10%–90% range. The dotted lines mark the first n at which the median
width reaches 0.15.
"""

from __future__ import annotations

import _gallery as g
import numpy as np

from metaeval import figures, system_scores
from metaeval.inference.budget import label_budget
from metaeval.output.figures_budget import plot_budget_curve

NAME = "budget_curve"
MEASURE = "nDCG@10"
PILOT_TOPICS = 10
TARGET = 0.15


def budget():
    d = g.load("trec_dl_like")
    judge = system_scores(d.qrels_judge, d.runs, MEASURE)
    topics = list(judge.topics)
    pilot = sorted(np.random.default_rng(g.SEED).choice(topics, PILOT_TOPICS, replace=False).tolist())
    human = system_scores(d.qrels_human, d.runs, MEASURE).subset(topics=pilot)
    return label_budget(human, judge, n=range(3, len(topics) - 1))


@figures.theme()
def render(out=None):
    fig, ax = figures.subplots(figsize=(4.2, 3.2))
    plot_budget_curve(budget(), target=TARGET, ax=ax, xlabel="human-labelled topics (of 40)",
                      ylabel="expected 95% interval width\n(nDCG@10, median of 30 runs)")
    return g.finish(fig, NAME, out)


if __name__ == "__main__":
    g.main(render)
