"""Relevant images per topic in imageclef_like, original qrels vs qrels expanded with the judge's
positives (refusals counted as not relevant), on a log scale; the title gives the Spearman
correlation of the two per-topic counts with a bootstrap interval (metaeval.score_correlation)."""

from __future__ import annotations

import _gallery as g

from metaeval import figures, score_correlation

NAME = "relevant_counts"


@figures.theme()
def render(out=None):
    d = g.load("imageclef_like")
    q = d.original_qrels
    topics = sorted(q["query_id"].unique())
    original = q[q["relevance"] > 0].groupby("query_id").size().reindex(topics, fill_value=0)
    added = d.expansion[d.expansion["judge"] == 1].groupby("query_id").size().reindex(topics, fill_value=0)
    expanded = original + added
    with g.quiet():
        rho = score_correlation(original.to_numpy(float), expanded.to_numpy(float), method="spearman",
                                n_resamples=g.N_RESAMPLES, rng=g.SEED)
    ax = figures.plot_relevant_counts(original, expanded)
    ax.set_title(f"imageclef_like: Spearman ρ = {rho.estimate:.3f} [{rho.ci.low:.3f}, {rho.ci.high:.3f}]",
                 loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
