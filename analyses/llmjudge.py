"""LLMJudge (SIGIR 2024 LLM4Eval challenge): the 33 released judges against the human labels.

For every judge: Cohen's kappa (4 levels and the three binarizations 0|123, 01|23, 012|3) and
ordinal Krippendorff's alpha, each with a 95% interval from the query-cluster bootstrap (4,423
pairs in 25 queries), labels clipped into 0-3 as the paper did (two files hold a 5 and a 10; the
alignment report names them). Prints the table, writes it as CSV and LaTeX, and draws a forest plot.
Reproduces the point estimates of Tables 4 and 5 of Rahmani et al. (arXiv:2502.13908); the tests
check them against ../shared/data/llmjudge/reference_numbers.txt.

    python analyses/llmjudge.py [--data ../shared/data] [--out llmjudge-out] [--n-resamples 2000]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import pandas as pd

import metaeval as me


def llmjudge_table(data: Path, *, n_resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    folder = data / "llmjudge"
    human = me.read_qrels(folder / "human_qrels" / "llmjudge_test_qrel_idx.txt")
    scale = me.Scale((0, 1, 2, 3))
    rows = []
    for f in sorted((folder / "llm_judgments").glob("*.txt")):
        paired = me.align(human, f, scale=scale, out_of_scale="clip", names=("human", f.stem))
        clipped = paired.report.out_of_scale
        note = "; ".join(f"{int(r.count)}x {r.value} clipped" for r in clipped.itertuples()) or ""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", me.MetaevalWarning)
            k4 = me.cohen_kappa(paired, cluster="query_id", n_resamples=n_resamples, rng=seed)
            alpha = me.krippendorff_alpha(paired, level="ordinal", cluster="query_id", n_resamples=n_resamples,
                                          rng=seed)
            thr = me.threshold_agreement(paired, cluster="query_id", n_resamples=n_resamples, rng=seed).to_frame()
        row = {"judge": f.stem, "kappa": k4.estimate, "kappa_low": k4.ci.low, "kappa_high": k4.ci.high,
               "alpha": alpha.estimate, "alpha_low": alpha.ci.low, "alpha_high": alpha.ci.high}
        for r in thr[thr["statistic"] == "cohen_kappa"].itertuples():
            row[f"kappa_{r.split}"] = r.estimate
        row["note"] = note
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--out", default="llmjudge-out")
    ap.add_argument("--n-resamples", type=int, default=2000)
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / "llmjudge").is_dir():
        print(f"llmjudge data not found under {data}; nothing to do", file=sys.stderr)
        return 0
    t = llmjudge_table(data, n_resamples=args.n_resamples)
    with pd.option_context("display.width", 220, "display.max_rows", 100):
        print(t.round(4).to_string(index=False))
    import matplotlib

    matplotlib.use("Agg")
    from metaeval import figures as fg
    from metaeval.output.report import Report

    rep = Report("LLMJudge: 33 judges against the TREC DL 2023 human labels")
    rep.table("llmjudge_kappa_alpha", t, "Cohen's kappa and ordinal alpha, query-cluster bootstrap 95% intervals")
    forest = pd.concat([
        t.assign(statistic="cohen_kappa", estimate=t["kappa"], ci_low=t["kappa_low"], ci_high=t["kappa_high"]),
        t.assign(statistic="krippendorff_alpha_ordinal", estimate=t["alpha"], ci_low=t["alpha_low"],
                 ci_high=t["alpha_high"])])[["judge", "statistic", "estimate", "ci_low", "ci_high"]]
    fig, ax = fg.subplots(figsize=(7.5, 11))
    fg.plot_forest(forest.sort_values("judge"), group="judge", ax=ax)
    rep.figure("llmjudge_forest", fig, "Kappa and alpha per judge with 95% query-cluster intervals")
    rep.write(args.out)
    print(f"written to {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
