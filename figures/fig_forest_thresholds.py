"""Forest plot: Cohen's kappa, Gwet's AC1 and PABAK at every binarization threshold of trec_dl_like
(0|123, 01|23, 012|3), topic-cluster bootstrap intervals (metaeval.threshold_agreement)."""

from __future__ import annotations

import _gallery as g

from metaeval import figures, threshold_agreement

NAME = "forest_thresholds"


@figures.theme()
def render(out=None):
    with g.quiet():
        thr = threshold_agreement(g.trec_paired(), cluster="query_id", n_resamples=g.N_RESAMPLES, rng=g.SEED)
    ax = figures.plot_forest(thr, group="split")
    ax.set_ylabel("relevant = right of |")
    ax.figure.suptitle("trec_dl_like binarized, topic-cluster 95% intervals", x=0.02, ha="left", fontsize=9.5)
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
