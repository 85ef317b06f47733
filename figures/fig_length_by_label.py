"""Length distributions per label, judge beside human: rubric_like response length per 1-5 score
(all three judge samples), and trec_dl_like passage length per relevance grade."""

from __future__ import annotations

import _gallery as g

from metaeval import figures

NAME = "length_by_label"


@figures.theme()
def render(out=None):
    fig, (a1, a2) = figures.subplots(1, 2, figsize=(7.2, 2.9))
    figures.plot_length_by_label(g.load("rubric_like").scores, label="score", length="length", rater="rater",
                                 unit="tokens", ax=a1)
    a1.set_title("rubric_like: length per score", loc="left")
    d = g.load("trec_dl_like")
    pairs = g.trec_paired().data.merge(d.passages, on="doc_id", how="left", validate="many_to_one")
    figures.plot_length_by_label(pairs, label={"human": "reference", "judge": "candidate"}, length="length", ax=a2,
                                 xlabel="relevance grade", unit="tokens")
    a2.set_title("trec_dl_like: length per grade", loc="left")
    return g.finish(fig, NAME, out)


if __name__ == "__main__":
    g.main(render)
