"""Confusion matrix of trec_dl_like, human vs judge graded relevance (0-3): counts and row-normalized.

The row-normalized diagonal is the per-class accuracy UMBRELA reports (README: 0.750 / 0.504 /
0.299 / 0.448).
"""

from __future__ import annotations

import _gallery as g

from metaeval import confusion_matrix, figures

NAME = "confusion_trec_dl"


@figures.theme()
def render(out=None):
    cm = confusion_matrix(g.trec_paired())
    axes = figures.plot_confusion_panels({"counts": cm, "row-normalized (recall)": cm}, normalize=[None, "row"])
    return g.finish(axes[0].figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
