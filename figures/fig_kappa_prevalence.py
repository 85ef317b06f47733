"""Kappa versus prevalence for imageclef_like: the judge's sensitivity and specificity measured on
the balanced validation subset (prevalence 0.48, kappa 0.603), carried to every prevalence, with
the expansion's prevalence (judge positives among the 50,000 expansion labels, 1.07%) marked
(metaeval.kappa_at_prevalence)."""

from __future__ import annotations

import _gallery as g

from metaeval import figures, kappa_at_prevalence

NAME = "kappa_vs_prevalence"


@figures.theme()
def render(out=None):
    exp = g.load("imageclef_like").expansion
    target = float((exp["judge"] == 1).mean())
    with g.quiet():
        res = kappa_at_prevalence(g.imageclef_paired(), prevalence=target, cluster="query_id",
                                  n_resamples=g.N_RESAMPLES, rng=g.SEED)
    ax = figures.plot_kappa_vs_prevalence(res, ppv=True)
    ax.set_title("imageclef_like: κ at the expansion's prevalence", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
