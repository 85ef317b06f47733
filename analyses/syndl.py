"""SynDL: system rankings under NIST qrels vs GPT-4 (SynDL) qrels, from per-query score tables alone.

Runs on ../shared/data/syndl/per_query_results (trec_eval -q output flattened to a table with a
``qrels_source`` column). SynDL compared system means computed on different query sets (NIST judged
43-82 queries per year, SynDL 146-618), so each side averages over its own judged topics
(``topics="own"``); the topic bootstrap resamples the union of topics.

    python analyses/syndl.py [--data ../shared/data] [--n-resamples 1000] [--out syndl_taus.csv]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

import metaeval as me

YEARS = ("dl2019", "dl2020", "dl2021", "dl2022", "dl2023")
METHODS = ("kendall_b", "spearman", "tau_ap", "rbo")


def syndl_table(data_dir: Path, *, years=YEARS, measures=None, candidates=("syndl_full", "syndl_partial"),
                n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    rows = []
    for year in years:
        path = data_dir / "syndl" / "per_query_results" / f"per_query_results.{year}.tsv.gz"
        scores = me.read_score_table(path)
        human = scores[scores["qrels_source"] == "human"]
        for measure in (measures or sorted(scores["measure"].unique())):
            for cand in candidates:
                other = scores[scores["qrels_source"] == cand]
                res = me.rank_correlation(human, other, measure=measure, topics="own", methods=METHODS,
                                          n_resamples=n_resamples, rng=seed)
                f = res.to_frame()
                f.insert(0, "year", year)
                f.insert(1, "measure", measure)
                f.insert(2, "candidate", cand)
                f["systems"] = res.info["n_systems"]
                f["topics_human"] = res.info["n_topics"] - len(res.info["topics_only_candidate"])
                f["topics_candidate"] = res.info["n_topics"] - len(res.info["topics_only_reference"])
                rows.append(f)
    return pd.concat(rows, ignore_index=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--n-resamples", type=int, default=1000)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / "syndl").is_dir():
        print(f"syndl data not found under {data}; nothing to do", file=sys.stderr)
        return 0
    t = syndl_table(data, n_resamples=args.n_resamples)
    show = t[["year", "measure", "candidate", "method", "estimate", "ci_low", "ci_high", "bias", "systems",
              "topics_human", "topics_candidate"]]
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(show.round(4).to_string(index=False))
    if args.out:
        me.write_table(t, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
