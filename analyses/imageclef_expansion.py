"""ImageCLEFmed qrels expansion by an LLM judge: how far does the validation carry?

Run on the bundled synthetic ``imageclef_like`` sample (data_samples/README.md §2):

    python analyses/imageclef_expansion.py [--out DIR] [--seed 20240612] [--k 10] [--m 10]

The setting: a judge was validated on a balanced subset of the human qrels (202 images, 97
relevant) and then labelled 50,000 unjudged images, of which it called 1.07 % relevant. This script
answers the questions a reviewer asks about such an expansion, each with an interval:

1. kappa on the balanced validation subset (about 0.6), with a topic-cluster interval;
2. the kappa (and PPV) to expect at the expansion's prevalence if the validation's sensitivity and
   specificity carried over, and whether they can carry over at all;
3. would the kappa survive without the leaked few-shot examples (few-shot overlap scenarios), and
   under each way of scoring the judge's refusals (refusal scenarios);
4. a stratified validation sample of the expansion (k judge-relevant and m judge-non-relevant
   images per topic), written out for blind annotation, with the interval widths it will give and
   the per-topic size needed for a kappa interval of ±0.1;
5. corrected relevant counts per topic (Rogan–Gladen: the judge's relevant count corrected by the
   validation's sensitivity and specificity, with an interval that carries the error of both
   samples), and why the balanced validation cannot correct this expansion.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import metaeval
from metaeval import datasets
from metaeval.checks.design import design_validation_sample, estimate_from_validation, sample_size
from metaeval.checks.sensitivity import few_shot_scenarios, refusal_scenarios, sensitivity


def _ci(e) -> str:
    return f"{e.estimate:.3f} [{e.ci.low:.3f}, {e.ci.high:.3f}]"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None,
                    help="folder for the annotation sheet (default: a new temporary folder)")
    ap.add_argument("--seed", type=int, default=20240612, help="seed of every resampling and of the sample draw")
    ap.add_argument("--k", type=int, default=10, help="judge-relevant images per topic in the validation sample")
    ap.add_argument("--m", type=int, default=10, help="judge-non-relevant images per topic in the validation sample")
    ap.add_argument("--ppv", type=float, default=None,
                    help="anticipated share of truly relevant images among the judge's positives "
                         "(default: the validation subset's precision of the relevant class)")
    ap.add_argument("--npv", type=float, default=0.995,
                    help="anticipated share of truly non-relevant images among the judge's negatives")
    ap.add_argument("--n-resamples", type=int, default=2000)
    args = ap.parse_args(argv)
    pd.set_option("display.width", 160)
    pd.set_option("display.max_columns", 20)

    d = datasets.load("imageclef_like")
    val, exp = d.validation, d.expansion
    out = {}

    # 1. kappa on the balanced subset --------------------------------------------------------
    table = metaeval.contingency(val["human"], val["judge"])
    k_fce = metaeval.cohen_kappa(val["human"], val["judge"], ci_method="analytic")
    k_cl = metaeval.cohen_kappa(val["human"], val["judge"], cluster=val["query_id"], n_resamples=args.n_resamples,
                                rng=args.seed)
    print("1. Balanced validation subset (rows human 0/1, columns judge 0/1)")
    print(f"   table {table.tolist()}; {len(val)} images, {val['query_id'].nunique()} topics, "
          f"{int(table[1].sum())} human-relevant")
    print(f"   Cohen's kappa {k_fce.estimate:.3f}; 95% CI iid (Fleiss-Cohen-Everitt) [{k_fce.ci.low:.3f}, "
          f"{k_fce.ci.high:.3f}], topic-cluster bootstrap (BCa) [{k_cl.ci.low:.3f}, {k_cl.ci.high:.3f}]")
    out["kappa_balanced"] = k_cl

    # 2. kappa at the expansion's prevalence -------------------------------------------------
    q = float((exp["judge"] == 1).mean())
    kp = metaeval.kappa_at_prevalence(val["human"], val["judge"], prevalence=q, cluster=val["query_id"],
                                      n_resamples=args.n_resamples, rng=args.seed)
    se = table[1, 1] / table[1].sum()
    sp = table[0, 0] / table[0].sum()
    print(f"\n2. The expansion: {len(exp)} images, judge-relevant {int((exp['judge'] == 1).sum())} "
          f"(prevalence {q:.4f}), refusals {int(exp['refusal'].sum())}")
    print(f"   kappa expected at prevalence {q:.4f} with the validation's Se = {se:.3f}, Sp = {sp:.3f}: "
          f"{_ci(kp['kappa'])}; PPV {_ci(kp['ppv'])}")
    floor = 1 - sp
    print(f"   But those Se/Sp cannot hold on the expansion: at any prevalence the judge would call at least "
          f"1 - Sp = {floor:.3f} of the images relevant, and it called {q:.4f}. The expansion pool's specificity "
          f"is at least {1 - q:.4f}; the balanced subset does not describe it, and only a sample of the "
          f"expansion itself (section 4) can.")
    out["kappa_at_prevalence"] = kp

    # 3. few-shot overlap and refusal scenarios ----------------------------------------------
    sens = sensitivity(metaeval.cohen_kappa, val, few_shot_scenarios() + refusal_scenarios(labels=(0, 1)),
                       cluster="query_id", n_resamples=args.n_resamples, rng=args.seed)
    f = sens.to_frame()
    print("\n3. Would kappa survive? (paired topic-cluster bootstrap, percentile intervals)")
    show = f[["kind", "scenario", "estimate", "ci_low", "ci_high", "pvalue", "n"]].copy()
    show[["estimate", "ci_low", "ci_high", "pvalue"]] = show[["estimate", "ci_low", "ci_high", "pvalue"]].round(4)
    print(show.to_string(index=False))
    print("   (refusals were recorded as judge = 0, so 'as recorded' and 'forced to 0' coincide)")
    exp_ref = exp["refusal"].astype(bool)
    prev = {"as recorded": q, "excluded": float((exp.loc[~exp_ref, "judge"] == 1).mean()),
            "forced to 1": float(((exp["judge"] == 1) | exp_ref).mean())}
    print("   Expansion prevalence under the refusal policies: "
          + ", ".join(f"{k} {v:.4f}" for k, v in prev.items()))
    out["sensitivity"] = sens

    # 4. validation sample of the expansion ---------------------------------------------------
    outdir = args.out or Path(tempfile.mkdtemp(prefix="metaeval_imageclef_"))
    design = design_validation_sample(exp, judge="judge", stratum="query_id", k=args.k, m=args.m, rng=args.seed)
    sheet, full = design.write(outdir / "validation_sample.csv")
    ppv = args.ppv if args.ppv is not None else float(table[1, 1] / table[:, 1].sum())
    print(f"\n4. Validation sample of the expansion: {design}")
    print(f"   annotation sheet (blind, random order): {sheet}\n   design with strata and weights: {full}")
    prec = design.expected_precision(ppv=ppv, npv=args.npv, rng=args.seed)
    print(f"   Interval half-widths this design will give (simulated; anticipated PPV {ppv:.3f}, NPV {args.npv}):")
    print(prec.round(4).to_string(index=False))
    need = sample_size(half_width=0.1, statistic="kappa", design=exp, ppv=ppv, npv=args.npv, rng=args.seed)
    print(f"   For a kappa interval of +/-0.1: k = m = {need.per_stratum[0]} per topic stratum, {need.n} images "
          f"(simulated half-width {need.achieved:.3f})")
    out["design"], out["expected_precision"], out["sample_size"] = design, prec, need

    # illustration only: the estimator on simulated annotations (no real annotation exists)
    rng = np.random.default_rng(args.seed)
    sim = design.sample.copy()
    p_rel = np.where(sim["judge"] == 1, ppv, 1 - args.npv)
    sim["human"] = (rng.random(len(sim)) < p_rel).astype(int)
    est = estimate_from_validation(sim, n_resamples=args.n_resamples, rng=args.seed)
    print("   Illustration with SIMULATED human labels at the anticipated PPV/NPV "
          "(Horvitz-Thompson estimates, stratified bootstrap):")
    for e in est:
        print(f"     {e.statistic:<20} {_ci(e)}")
    out["illustration"] = est

    # 5. corrected relevant counts per topic ----------------------------------------------------
    g = exp.groupby("query_id")["judge"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", metaeval.MetaevalWarning)
        rc = metaeval.rogan_gladen_counts(g.sum(), g.size(), x=val["human"], y=val["judge"],
                                          n_resamples=args.n_resamples, rng=args.seed)
    f = rc.to_frame()
    per = f[f["statistic"] == "corrected_count"].dropna(subset=["topic"]).copy()
    per["judge_relevant"] = per["topic"].map(g.sum())
    per["images"] = per["topic"].map(g.size())
    per["unclipped"] = [e.extra["unclipped"] for e, k in zip(rc, rc.keys)
                        if e.statistic == "corrected_count" and k]
    total = [e for e, k in zip(rc, rc.keys) if e.statistic == "corrected_count" and not k][0]
    print(f"\n5. Corrected relevant counts per topic (Rogan-Gladen with the validation's Se = {se:.3f}, "
          f"Sp = {sp:.3f}; {rc[0].ci.method} bootstrap of the validation table and each topic's judge binomial)")
    show = per[["topic", "images", "judge_relevant", "unclipped", "estimate", "ci_low", "ci_high"]].head(8)
    print(show.round(1).to_string(index=False))
    print(f"   ... ({len(per)} topics) all topics: judge-relevant {int(g.sum().sum())}, corrected {total.estimate:.0f} "
          f"[{total.ci.low:.0f}, {total.ci.high:.0f}] (unclipped {total.extra['unclipped']:.0f})")
    n_clip = int(sum(e.extra["clipped"] for e in rc if e.statistic == "corrected_count"))
    print(f"   {n_clip} of {len(per) + 1} corrected counts were clipped to 0 ({len(caught)} warning(s)): the judge's "
          f"share {q:.4f} is below 1 - Sp = {1 - sp:.3f}, so the balanced subset's error rates cannot describe the "
          "expansion (section 2). Correct the counts with Se and Sp measured on a random sample of the expansion "
          "itself (table= one table, or {stratum: table} with strata=), or estimate the relevant count directly "
          "from the judge-stratified sample of section 4 (Horvitz-Thompson weights).")
    out["corrected_counts"] = rc
    return out


if __name__ == "__main__":
    main()
