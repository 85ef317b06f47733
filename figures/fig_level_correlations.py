"""Score judges by level, rubric_like: the judge's correlation with the human scores at each level
(none, item, system group, system) for Pearson, Spearman and Kendall's τ_b, with 95%
bootstrap intervals over the 300 prompts (metaeval.level_correlation, resample="items": the three
generators are the systems of interest, fixed; the system level of three systems is shown for
completeness, not as evidence).

The judge's score of an output is the mean of its three samples; nothing here computes a statistic
of its own.
"""

from __future__ import annotations

import _gallery as g

import metaeval
from metaeval import figures

NAME = "level_correlations"


def matrices():
    d = g.load("rubric_like")["scores"]
    m = d.groupby(["generator", "prompt_id", "rater"])["score"].mean().unstack("rater").reset_index()
    return (m.pivot(index="generator", columns="prompt_id", values="human"),
            m.pivot(index="generator", columns="prompt_id", values="judge"))


@figures.theme()
def render(out=None):
    H, M = matrices()
    with g.quiet():
        rs = metaeval.level_correlation(H, M, level=["none", "item", "system_group", "system"],
                                        method=["pearson", "spearman", "kendall"], resample="items",
                                        ci_method="percentile", n_resamples=g.N_RESAMPLES, rng=g.SEED)
    ax = figures.plot_level_correlations(rs)
    ax.set_title("rubric_like: 3 generators × 300 prompts", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
