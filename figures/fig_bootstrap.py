"""The topic-cluster bootstrap distribution of Cohen's kappa on trec_dl_like, with its BCa interval."""

from __future__ import annotations

import _gallery as g

from metaeval import cohen_kappa, figures

NAME = "bootstrap_kappa"


@figures.theme()
def render(out=None):
    with g.quiet():
        k = cohen_kappa(g.trec_paired(), cluster="query_id", n_resamples=5000, rng=g.SEED)
    ax = figures.plot_bootstrap(k, bins=50)
    ax.set_title("trec_dl_like: κ, 40 topics resampled", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
