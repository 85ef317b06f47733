"""UMBRELA-style meta-evaluation: LLM relevance labels against the human qrels of TREC DL.

For each year and each LLM qrels: alignment (every row accounted for), Cohen's kappa on the
4-level scale and binarized at 2 (UMBRELA merges 0-1 and 2-3; binary LLM files are compared with
human >= 2), per-class accuracy (recall of each human level), and the correlation of the nDCG@10
system rankings of the official runs (tau-b, rho, tau_AP, RBO) with debiased topic-bootstrap
intervals. Then judge-corrected nDCG@10 per run (metaeval.corrected_system_scores): UMBRELA GPT-4o
scores on every topic, NIST's on 15 random topics only, PPI++ per run against the judge-only and
the human-only (15-topic) estimates, and the coverage of each interval over repeated draws of the
15 topics (metaeval.corrected_coverage). Runs on ../shared/data/trec_dl_passage when present, else on
data_samples/trec_dl_like.

    python analyses/umbrela.py [--data ../shared/data] [--n-resamples 1000] [--years dl19 dl20 dl21]
                               [--n-labelled 15] [--corrected-draws 200] [--no-corrected]

The TREC run files are for validation: this prints summary tables only.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import metaeval as me

LLM_QRELS = ("umbrela-zeroshot-gpt-4o", "umbrela-zeroshot-gpt-4", "binary-gpt-4o", "binary-gpt-4", "binary-llama3.2")
METHODS = ("kendall_b", "spearman", "tau_ap", "rbo")


def _one(human, judge, runs, name, *, n_resamples, seed, human_scores=None):
    binary = set(np.unique(judge["relevance"])) <= {0, 1}
    scale = me.Scale((0, 1, 2, 3))
    row = {"qrels": name}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", me.MetaevalWarning)
        if binary:
            hb = human.assign(relevance=(human["relevance"] >= 2).astype(np.int64))
            paired = me.align(hb, judge, scale=me.Scale((0, 1), kind="nominal"), names=("human", name))
            kb = me.cohen_kappa(paired, cluster="query_id", n_resamples=n_resamples, rng=seed)
            row.update(kappa_4=np.nan, kappa_bin=kb.estimate, kappa_bin_low=kb.ci.low, kappa_bin_high=kb.ci.high)
            pc = me.per_class(paired, n_resamples=50, rng=seed).to_frame()
        else:
            paired = me.align(human, judge, scale=scale, names=("human", name))
            k4 = me.cohen_kappa(paired, cluster="query_id", n_resamples=n_resamples, rng=seed)
            kb = me.cohen_kappa(paired.binarize(2), cluster="query_id", n_resamples=n_resamples, rng=seed)
            row.update(kappa_4=k4.estimate, kappa_4_low=k4.ci.low, kappa_4_high=k4.ci.high, kappa_bin=kb.estimate,
                       kappa_bin_low=kb.ci.low, kappa_bin_high=kb.ci.high)
            pc = me.per_class(paired, n_resamples=50, rng=seed).to_frame()
        rec = pc[pc["statistic"] == "recall"]
        for r in rec.itertuples():
            row[f"recall_{r._1}"] = r.estimate
        row["pairs"] = len(paired)
        row["unmatched_human"] = paired.report.counts.get(("human", "unmatched"), 0)
        if runs is not None:
            hs = human_scores if human_scores is not None else me.system_scores(human, runs, "nDCG@10")
            js = me.system_scores(judge, runs, "nDCG@10")
            rc = me.rank_correlation(hs, js, measure="nDCG@10", methods=METHODS, n_resamples=n_resamples, rng=seed)
            for e, m in zip(rc, METHODS):
                row[m] = e.estimate
                row[f"{m}_low"], row[f"{m}_high"] = e.ci.low, e.ci.high
            row["runs"] = rc.info["n_systems"]
            row["topics"] = rc.info["n_topics"]
    return row


def umbrela_table(data: Path | None, *, years=("dl19", "dl20", "dl21"), n_resamples: int = 1000, seed: int = 0,
                  qrels=LLM_QRELS) -> pd.DataFrame:
    rows = []
    if data is None:  # the bundled synthetic set
        d = me.datasets.load("trec_dl_like")
        hs = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
        row = _one(d.qrels_human, d.qrels_judge, d.runs, "synthetic judge", n_resamples=n_resamples, seed=seed,
                   human_scores=hs)
        return pd.DataFrame([{"year": "trec_dl_like", **row}])
    base = data / "trec_dl_passage"
    human_names = {"dl19": "qrels.dl19-passage.txt", "dl20": "qrels.dl20-passage.txt", "dl21": "qrels.dl21-passage.txt"}
    for year in years:
        human = me.read_qrels(base / "qrels" / "human" / human_names[year])
        runs = me.read_runs(base / "runs" / year)
        hs = me.system_scores(human, runs, "nDCG@10")
        for q in qrels:
            judge = me.read_qrels(base / "qrels" / "llm" / f"{q}.{year}.txt")
            rows.append({"year": year, **_one(human, judge, runs, q, n_resamples=n_resamples, seed=seed,
                                              human_scores=hs)})
    return pd.DataFrame(rows)


def pool_bias_table(data: Path, year: str, *, llm: str = "umbrela-zeroshot-gpt-4o", depth: int = 10) -> pd.DataFrame:
    """Leave-one-participant-out pool bias of nDCG@10 under the human qrels and judge-filled qrels."""
    from metaeval.systems.ranking import pool_bias

    base = data / "trec_dl_passage"
    human = me.read_qrels(base / "qrels" / "human" / f"qrels.{year}-passage.txt")
    judge = me.read_qrels(base / "qrels" / "llm" / f"{llm}.{year}.txt")
    runs = me.read_runs(base / "runs" / year)
    meta = pd.read_csv(base / "reference" / "official_nist_run_summaries.tsv", sep="\t", dtype=str)
    groups = meta[meta["year"] == year].set_index("run_id")["participant"]
    return pool_bias(human, judge, runs, groups, depth=depth)


CORRECTED_METHODS = ("judge_only", "ppi++", "classical")


def corrected_table(data: Path | None, *, years=("dl19", "dl20", "dl21"), llm: str = "umbrela-zeroshot-gpt-4o",
                    n_labelled: int = 15, n_draws: int = 200, seed: int = 20261201):
    """Judge-corrected nDCG@10 per run with ``n_labelled`` human topics, and its coverage over draws.

    Per year: the judge's qrels score every run on every topic; ``n_labelled`` topics are drawn at
    random (seeded) and the runs are scored under the human qrels of those topics only, as a user
    with that budget would; :func:`metaeval.corrected_system_scores` gives the PPI++ estimate per
    run, beside the judge-only and the human-only ones. The collection is fully judged, so each run's
    all-topic human mean (the target) is known and printed too. With ``n_draws`` > 0,
    :func:`metaeval.corrected_coverage` replays the draw that many times.

    Returns
    -------
    (runs, summary, results)
        ``runs``: one row per year and run; ``summary``: per year and method, the coverage and mean
        width over the draws, the shared λ and Kendall's tau of the corrected ranking against the
        judge-only one and against the target; ``results``: year -> (method -> result, target), for
        the figure.
    """
    rows, summary, results = [], [], {}
    for i, year in enumerate(years):
        if data is None:   # the bundled sample: one "year"
            year = "trec_dl_like"
            d = me.datasets.load("trec_dl_like")
            human, judge, runs = d.qrels_human, d.qrels_judge, d.runs
        else:
            base = data / "trec_dl_passage"
            human = me.read_qrels(base / "qrels" / "human" / f"qrels.{year}-passage.txt")
            judge = me.read_qrels(base / "qrels" / "llm" / f"{llm}.{year}.txt")
            runs = me.read_runs(base / "runs" / year)
        js = me.system_scores(judge, runs, "nDCG@10")
        full = me.system_scores(human, runs, "nDCG@10")               # only to know the target
        lab = [str(t) for t in np.random.default_rng(seed + i).choice(js.topics, n_labelled, replace=False)]
        hs = me.system_scores(human[human["query_id"].isin(lab)], runs, "nDCG@10")   # the human budget
        res = {m: me.corrected_system_scores(hs, js, labelled_topics=lab, method=m, differences=False)
               for m in CORRECTED_METHODS}
        target = full.means()
        results[year] = (res, target)
        rk = res["ppi++"].ranking
        t = target.reindex(rk.index)
        part = pd.DataFrame({"year": year, "run": rk.index, "judge_only": rk["judge_only"].to_numpy(),
                             "ppi++": rk["estimate"].to_numpy(), "ppi++_low": rk["ci_low"].to_numpy(),
                             "ppi++_high": rk["ci_high"].to_numpy()})
        hf = res["classical"].to_frame().set_index("system").reindex(rk.index)
        part["human_only"] = hf["estimate"].to_numpy()
        part["human_only_low"], part["human_only_high"] = hf["ci_low"].to_numpy(), hf["ci_high"].to_numpy()
        part["target"] = t.to_numpy()
        part["covered"] = ((part["ppi++_low"] <= part["target"]) & (part["target"] <= part["ppi++_high"])).to_numpy()
        part["rank"], part["judge_rank"] = rk["rank"].to_numpy(), rk["judge_rank"].to_numpy()
        rows.append(part)
        x = t.to_numpy()
        info = {"year": year, "runs": len(rk), "topics": len(js.topics), "labelled": n_labelled,
                "lam": res["ppi++"].design["lam"],
                "tau_corrected_vs_judge": res["ppi++"].rank_correlation.get(method="kendall_b").estimate,
                "tau_corrected_vs_target": me.kendall_tau(x, rk["estimate"].to_numpy()),
                "tau_judge_vs_target": me.kendall_tau(x, rk["judge_only"].to_numpy()),
                "tau_human_only_vs_target": me.kendall_tau(x, part["human_only"].to_numpy())}
        if n_draws > 0:
            cov = me.corrected_coverage(full, js, n_labelled=n_labelled, n_draws=n_draws,
                                        methods=("ppi++", "classical", "judge_only"), rng=seed + i)
            for r in cov.itertuples():
                summary.append({**info, "method": r.method, "coverage": r.coverage, "coverage_se": r.coverage_se,
                                "mean_width": r.mean_width, "width_ratio": r.width_ratio, "draws": r.n_draws})
        else:
            summary.append(info)
        if data is None:
            break
    return pd.concat(rows, ignore_index=True), pd.DataFrame(summary), results


def _write_corrected(runs: pd.DataFrame, summary: pd.DataFrame, results: dict, out: Path) -> None:
    """The per-run table, the coverage summary and one corrected-intervals figure per year."""
    import matplotlib

    matplotlib.use("Agg")
    from metaeval import figures as fg
    from metaeval.output.figures_inference import plot_corrected_intervals
    from metaeval.output.report import Report

    rep = Report("Judge-corrected nDCG@10 with a few human topics")
    rep.table("corrected_runs", runs, "nDCG@10 per run: judge only, PPI++ and human only (15 topics), and the "
                                      "all-topic human mean they aim at")
    rep.table("corrected_coverage", summary, "Coverage and width over repeated draws of the labelled topics")
    for year, (res, target) in results.items():
        n = len(target)
        fig, ax = fg.subplots(figsize=(5.2, min(0.16 * n + 1.6, 11.0)))
        plot_corrected_intervals(res, target=target, ax=ax, xlabel="nDCG@10 (95% interval)")
        ax.set_title(year, loc="left", pad=22)
        rep.figure(f"corrected_intervals_{year}", fig, f"{year}: judge-only, PPI++ and human-only intervals per run; "
                                                        "ticks: the all-topic human mean")
    rep.write(out)
    print(f"corrected tables and figures written to {out}/")


def _write(t: pd.DataFrame, out: Path) -> None:
    """The table (CSV, LaTeX) and forest plots of tau-b and binarized kappa with intervals, beside it."""
    import matplotlib

    matplotlib.use("Agg")
    from metaeval import figures as fg
    from metaeval.output.report import Report

    rep = Report("UMBRELA-style meta-evaluation of LLM relevance labels")
    rep.table("umbrela", t, "Kappa, per-class accuracy and rank correlations per year and LLM qrels")
    label = t["year"] + " " + t["qrels"]
    rows = []
    for stat, lo, hi in (("kendall_b", "kendall_b_low", "kendall_b_high"),
                         ("cohen_kappa", "kappa_bin_low", "kappa_bin_high")):
        est = t["kendall_b"] if stat == "kendall_b" else t["kappa_bin"]
        if lo in t:
            rows.append(pd.DataFrame({"run": label, "statistic": stat, "estimate": est, "ci_low": t[lo],
                                      "ci_high": t[hi]}))
    forest = pd.concat(rows, ignore_index=True)
    fig, ax = fg.subplots(figsize=(7.5, 1.5 + 0.45 * len(t)))
    fg.plot_forest(forest, group="run", ax=ax)
    rep.figure("umbrela_forest", fig, "Kendall tau-b of the nDCG@10 rankings (debiased topic-bootstrap interval) "
                                      "and binarized kappa (topic-cluster interval)")
    rep.write(out)
    print(f"table and figure written to {out}/")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--n-resamples", type=int, default=1000)
    ap.add_argument("--years", nargs="*", default=["dl19", "dl20", "dl21"])
    ap.add_argument("--out", default=None, help="write the table (CSV) here")
    ap.add_argument("--pool-bias", action="store_true", help="also the leave-one-participant-out pool bias")
    ap.add_argument("--n-labelled", type=int, default=15, help="human topics of the corrected estimates")
    ap.add_argument("--corrected-draws", type=int, default=200, help="draws of the coverage replay (0: none)")
    ap.add_argument("--no-corrected", action="store_true", help="skip the judge-corrected nDCG@10")
    args = ap.parse_args(argv)
    data = Path(args.data)
    real = (data / "trec_dl_passage").is_dir()
    if not real:
        print(f"no real data under {data}: running on data_samples/trec_dl_like", file=sys.stderr)
    t = umbrela_table(data if real else None, years=args.years, n_resamples=args.n_resamples)
    cols = [c for c in ["year", "qrels", "kappa_4", "kappa_bin", "recall_0", "recall_1", "recall_2", "recall_3",
                        "kendall_b", "kendall_b_low", "kendall_b_high", "spearman", "tau_ap", "rbo", "runs", "topics"]
            if c in t.columns]
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(t[cols].round(4).to_string(index=False))
    if args.out:
        me.write_table(t, args.out)
    _write(t, Path(os.environ.get("METAEVAL_ANALYSES_OUT", "analyses-out")) / "umbrela")
    if not args.no_corrected:
        runs_t, summary, results = corrected_table(data if real else None, years=args.years,
                                                   n_labelled=args.n_labelled, n_draws=args.corrected_draws)
        with pd.option_context("display.width", 250, "display.max_columns", 40):
            print(f"\njudge-corrected nDCG@10 with {args.n_labelled} human topics (PPI++; human-only = those topics)")
            print(summary.round(3).to_string(index=False))
            cols = ["year", "run", "judge_only", "ppi++", "ppi++_low", "ppi++_high", "human_only", "target", "covered"]
            print(runs_t[cols].round(3).head(12).to_string(index=False))
        _write_corrected(runs_t, summary, results,
                         Path(os.environ.get("METAEVAL_ANALYSES_OUT", "analyses-out")) / "umbrela_corrected")
    if real and args.pool_bias:
        for year in args.years:
            pb = pool_bias_table(data, year)
            g = pb.groupby("group").agg(runs=("run_id", "size"), unique_docs=("unique_docs", "first"),
                                        mean_abs_change_loo=("rank_change_loo", lambda v: v.abs().mean()),
                                        mean_abs_change_filled=("rank_change_filled", lambda v: v.abs().mean()))
            print(f"\n{year}: leave-one-participant-out pool bias (nDCG@10; pool depth 10), human qrels with the "
                  "group's unique documents removed vs filled by umbrela-zeroshot-gpt-4o")
            print(g.sort_values("mean_abs_change_loo", ascending=False).round(2).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
