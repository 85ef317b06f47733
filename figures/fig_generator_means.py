"""Mean 1-5 score per generator, judge beside human (rubric_like; the judge's own family is gpt-4v),
with prompt-cluster bootstrap 95% intervals; judge scores are all three samples."""

from __future__ import annotations

import _gallery as g

from metaeval import figures

NAME = "generator_means"


@figures.theme()
def render(out=None):
    s = g.load("rubric_like").scores
    ax = figures.plot_generator_means(s, generator="generator", rater="rater", score="score", cluster="prompt_id",
                                      order=["gpt-4v", "llava-13b", "instructblip"], n_resamples=g.N_RESAMPLES,
                                      rng=g.SEED)
    ax.set_title("rubric_like: judge − human per generator", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
