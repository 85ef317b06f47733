"""Forest plot: Cohen's kappa, Gwet's AC1 and PABAK (Bennett's S for K > 2) across the sample
datasets, from metaeval.agreement_report with cluster-bootstrap intervals (topics, prompts, items)."""

from __future__ import annotations

import _gallery as g

from metaeval import agreement_report, figures

NAME = "forest_datasets"


@figures.theme()
def render(out=None):
    kw = dict(n_resamples=g.N_RESAMPLES, rng=g.SEED)
    with g.quiet():
        reports = {
            "trec_dl_like 0-3": agreement_report(g.trec_paired(), cluster="query_id", **kw),
            "trec_dl_like ≥ 2": agreement_report(g.trec_paired().binarize(2), cluster="query_id", **kw),
            "imageclef_like": agreement_report(g.imageclef_paired(), cluster="query_id", **kw),
            "rubric_like 1-5": agreement_report(g.rubric_paired(), cluster="prompt_id", **kw),
            "battles_like outcome": agreement_report(g.battles_paired(), cluster="item_id", **kw),
        }
    ax = figures.plot_forest(reports, group="dataset")
    ax.figure.suptitle("human vs judge, cluster-bootstrap 95% intervals", x=0.02, ha="left", fontsize=9.5)
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
