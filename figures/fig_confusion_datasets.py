"""Row-normalized confusion matrices, one panel per sample dataset (rows: human, columns: judge)."""

from __future__ import annotations

import _gallery as g

from metaeval import confusion_matrix, figures

NAME = "confusion_datasets"


@figures.theme()
def render(out=None):
    tables = {
        "trec_dl_like (0-3)": confusion_matrix(g.trec_paired()),
        "trec_dl_like (relevant ≥ 2)": confusion_matrix(g.trec_paired().binarize(2)),
        "imageclef_like validation": confusion_matrix(g.imageclef_paired()),
        "rubric_like (1-5)": confusion_matrix(g.rubric_paired()),
        "battles_like outcomes": confusion_matrix(g.battles_paired()),
    }
    axes = figures.plot_confusion_panels(tables, normalize="row", ncols=3, panel_size=(2.7, 2.6))
    return g.finish(axes[0].figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
