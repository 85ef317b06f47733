"""Sensitivity of the imageclef_like validation kappa to how the data are cleaned: the few-shot
examples that leaked into the validation subset, and the judge's refusals (recorded as 0).

Each scenario's kappa and its difference from the baseline (all 202 judgments) come from
metaeval.agreement_difference on the same topic-cluster bootstrap draws, so the interval of the
difference accounts for the overlap of the two samples.
"""

from __future__ import annotations

import _gallery as g
import numpy as np
import pandas as pd

from metaeval import agreement_difference, figures

NAME = "sensitivity"


def scenarios():
    v = g.load("imageclef_like").validation
    h, j = v["human"].to_numpy(float), v["judge"].to_numpy(float)
    few, ref = v["few_shot"].to_numpy() == 1, v["refusal"].to_numpy() == 1
    flipped = np.where(ref & (h == 0), 1.0, j)    # a refusal counted as a disagreement
    nan = np.full(len(h), np.nan)
    keep = lambda m: (np.where(m, h, nan), np.where(m, j, nan))  # noqa: E731
    return v, {
        f"all {len(h)} judgments (baseline)": (h, j),
        f"without the {few.sum()} leaked few-shot items": keep(~few),
        f"without the {ref.sum()} refusals": keep(~ref),
        "refusals counted as disagreements": (h, flipped),
        "without leaked items and refusals": keep(~(few | ref)),
    }


@figures.theme()
def render(out=None):
    v, sc = scenarios()
    base = next(iter(sc.values()))
    rows = []
    with g.quiet():
        for name, labels in sc.items():
            r = agreement_difference(labels, base, statistic="cohen_kappa", cluster=v["query_id"].to_numpy(),
                                     n_resamples=g.N_RESAMPLES, ci_method="percentile", rng=g.SEED)
            a, diff = r[0], r[2]
            first = not rows
            rows.append({"scenario": name, "estimate": a.estimate, "ci_low": a.ci.low, "ci_high": a.ci.high,
                         "difference": np.nan if first else diff.estimate,
                         "difference_low": np.nan if first else diff.ci.low,
                         "difference_high": np.nan if first else diff.ci.high})
    ax = figures.plot_sensitivity(pd.DataFrame(rows), xlabel="Cohen's κ (topic-cluster 95% interval)")
    ax.set_title("imageclef_like validation: κ under cleaning choices", loc="left")
    return g.finish(ax.figure, NAME, out)


if __name__ == "__main__":
    g.main(render)
