"""Monitoring a deployed judge, trec_dl_like: anchor pairs (human and judge labels, binarised at
relevance ≥ 2) stream in a seeded random order; after the 3,000th pair the judge degrades (a seeded
20% of its labels are flipped from then on). The band is the 95% confidence sequence of the judge's
accuracy (metaeval.agreement_sequence, valid at every look); the dashed line is the monitor's
threshold (the baseline's lower bound − δ = 0.02; the baseline is 500 other pairs), the red line its
alarm (metaeval.monitor, an e-process: at most a 5% chance of any false alarm over the stream).
"""

from __future__ import annotations

import _gallery as g
import numpy as np
import pandas as pd

import metaeval as me
from metaeval import figures

NAME = "monitor"
CHANGE = 3000


def streams():
    p = g.trec_paired().data
    h = (p["reference"].to_numpy() >= 2).astype(int)
    j = (p["candidate"].to_numpy() >= 2).astype(int)
    rng = np.random.default_rng(g.SEED)
    order = rng.permutation(len(h))
    base, rest = order[:500], order[500:]
    stream_j = j[rest].copy()
    flip = rng.random(len(rest)) < 0.2
    stream_j[CHANGE:] = np.where(flip[CHANGE:], 1 - stream_j[CHANGE:], stream_j[CHANGE:])
    baseline = pd.DataFrame({"reference": h[base], "candidate": j[base]})
    stream = pd.DataFrame({"reference": h[rest], "candidate": stream_j})
    return baseline, stream


@figures.theme()
def render(out=None):
    baseline, stream = streams()
    seq = me.agreement_sequence(stream, every=25)
    res = me.monitor(baseline, stream, delta=0.02)
    fig, ax = figures.subplots(figsize=(5.2, 3.0))
    figures.plot_monitor(seq, res, baseline=float((baseline["reference"] == baseline["candidate"]).mean()), ax=ax,
                         xlabel="anchor pairs streamed", ylabel="judge accuracy")
    ax.axvline(CHANGE, color="#777777", linewidth=0.8, linestyle="-.", gid="change")
    return g.finish(fig, NAME, out)


if __name__ == "__main__":
    g.main(render)
