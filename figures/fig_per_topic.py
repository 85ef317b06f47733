"""Per-topic Cohen's kappa on trec_dl_like (metaeval.agreement_by, item bootstrap within each topic),
with the pooled topic-cluster estimate and interval."""

from __future__ import annotations

import _gallery as g

from metaeval import agreement_by, cohen_kappa, figures

NAME = "per_topic_kappa"


@figures.theme()
def render(out=None):
    p = g.trec_paired()
    with g.quiet():
        by = agreement_by(p, "query_id", statistics=("cohen_kappa",), n_resamples=1000, ci_method="percentile",
                          rng=g.SEED)
        pooled = cohen_kappa(p, cluster="query_id", n_resamples=g.N_RESAMPLES, rng=g.SEED)
    ax = figures.plot_per_topic(by, overall=pooled)
    ax.set_title("trec_dl_like: κ per topic (95% intervals)", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
