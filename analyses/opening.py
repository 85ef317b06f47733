"""OpenING-style pairwise meta-evaluation on data_samples/battles_like.

Reproduces the analyses of OpenING (Zhou et al. 2024, arXiv:2411.18499) on the bundled synthetic
battles (data_samples/README.md §4): model win rates under the four tie rules (force-dividing tie,
without ties, tie as 0, tie as 0.5) for the human raters and for the judge, judge–human agreement
under each rule with Cohen's kappa, agreement on battles between seen models versus battles with an
unseen model and their harmonic mean, position bias (first-position win rate, swap consistency,
FastChat's combined verdicts), Bradley–Terry rankings and their correlation, and a length-controlled
win rate. Every number has a 95% interval from a bootstrap that resamples items (prompts).

Functions that compare two raters take (reference, candidate): the human verdicts first, the judge's
second.

Run: ``python analyses/opening.py`` (about 15 seconds); ``--n-resamples`` sets the bootstrap size,
``--point`` prints the point estimates only (no resampling).
"""

from __future__ import annotations

import argparse
import sys
import warnings

import pandas as pd

from metaeval import (
    MetaevalWarning,
    bradley_terry,
    datasets,
    length_controlled_win_rate,
    model_rank_correlation,
    pairwise_agreement,
    position_bias,
    seen_unseen_agreement,
    win_rates,
)

SEED = 20240614
B = 2000
B_MODELS = 1000            # Bradley-Terry and the length-controlled GLM are refitted per replicate
RULE_NAMES = {"fdt": "FDT", "without_ties": "w/o tie", "tie_zero": "tie=0", "tie_half": "tie=0.5"}


def _ci(f: pd.DataFrame, digits: int = 3) -> pd.Series:
    def cell(r):
        if r.ci_method == "none":
            return f"{r.estimate:.{digits}f}"
        return f"{r.estimate:.{digits}f} [{r.ci_low:.{digits}f}, {r.ci_high:.{digits}f}]"
    return f.apply(cell, axis=1)


def section(title: str) -> None:
    print(f"\n{title}\n{'=' * len(title)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-resamples", type=int, default=B, help=f"bootstrap replicates (default {B}; "
                    f"{B_MODELS} for the refitted models)")
    ap.add_argument("--point", action="store_true", help="point estimates only (ci_method=None, no resampling)")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    boot = dict(n_resamples=args.n_resamples, rng=args.seed) if not args.point else dict(ci_method=None)
    boot_models = (dict(n_resamples=min(args.n_resamples, B_MODELS), rng=args.seed) if not args.point
                   else dict(ci_method=None))
    pd.set_option("display.width", 160)
    b = datasets.load("battles_like").battles
    human = b[b.judge == "human"]
    judge = b[(b.judge == "judge") & (b.swapped == 0)]
    n_invalid = int((b.outcome == "invalid").sum())
    print(f"battles_like: {len(b)} rows, {b.item_id.nunique()} items, {human.shape[0]} human and "
          f"{judge.shape[0]} judge verdicts (+{int((b.swapped == 1).sum())} swapped judge rows); "
          f"{n_invalid} parse failures, dropped below (invalid='drop')")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)     # the 8 parse failures, reported above

        section("1. Win rates under OpenING's four tie rules (95% item-bootstrap intervals)")
        wr = win_rates(pd.concat([human, judge]), tie_rule="all", **boot)
        f = wr.to_frame()
        f["cell"] = _ci(f)
        for rater in ("human", "judge"):
            t = f[f.judge == rater].pivot(index="model", columns="tie_rule", values="cell")
            order = f[(f.judge == rater) & (f.tie_rule == "fdt")].sort_values("estimate", ascending=False).model
            t = t.loc[order, list(RULE_NAMES)].rename(columns=RULE_NAMES)
            print(f"\n{rater}:\n{t.to_string()}")

        section("2. Judge-human agreement under each tie rule")
        ag = pairwise_agreement(human, judge, tie_rule="all", **boot).to_frame()
        ag["cell"] = _ci(ag)
        t = ag.pivot(index="tie_rule", columns="statistic", values="cell").loc[list(RULE_NAMES)]
        t["n"] = ag[ag.statistic == "agreement"].set_index("tie_rule").n
        print(t.rename(index=RULE_NAMES).to_string())

        section("3. Seen vs unseen models (OpenING: a battle is unseen if either model is)")
        su = seen_unseen_agreement(human, judge, tie_rule="all", **boot)
        s = su.to_frame()
        s = s[s.statistic == "agreement"].copy()
        s["cell"] = _ci(s)
        t = s.pivot(index="tie_rule", columns="group", values="cell").loc[list(RULE_NAMES),
                                                                           ["seen", "unseen", "harmonic_mean"]]
        ns = s[s.tie_rule == "fdt"].set_index("group").n
        print(f"unseen models: {', '.join(su.info['unseen_models'])}; battles: seen {ns['seen']}, "
              f"unseen {ns['unseen']} (FDT)")
        print(t.rename(index=RULE_NAMES).to_string())

        section("4. Position bias")
        pb = position_bias(b, tie_rule="all", **boot).to_frame()
        pb["cell"] = _ci(pb)
        fp = pb[pb.statistic == "first_position_win_rate"].pivot(index="tie_rule", columns="judge", values="cell")
        print("first-position win rate (0.5 = no bias; all rows, both presentation orders):")
        print(fp.loc[list(RULE_NAMES)].rename(index=RULE_NAMES).to_string())
        sc = pb[pb.judge == "judge"]
        sc = sc[sc.statistic != "first_position_win_rate"].set_index(["statistic", "tie_rule"])[["cell", "n"]]
        print("\njudge, battles shown in both orders:")
        print(sc.to_string())
        fc = win_rates(b[b.judge == "judge"], swap_rule="fastchat", tie_rule="tie_half", **boot).to_frame()
        fc["cell"] = _ci(fc)
        print("\njudge win rate (tie=0.5) with FastChat's rule (an inconsistent swapped pair is a tie):")
        print(fc.set_index("model").cell.sort_values(ascending=False).to_string())

        section("5. Bradley-Terry strengths (logit; leaning ties to their side, plain ties as half wins)")
        bt = pd.concat([bradley_terry(d, position_effect=True, **boot_models).to_frame().assign(rater=r)
                        for r, d in (("human", human), ("judge", judge))])
        bt["cell"] = _ci(bt, 2)
        print(bt.pivot(index="model", columns="rater", values="cell").to_string())
        rc = model_rank_correlation(human, judge, **boot_models).to_frame()
        rc["cell"] = _ci(rc)
        print("\njudge vs human model ranking:", "; ".join(f"{s} {c}" for s, c in zip(rc.statistic, rc.cell)))

        section("6. Length-controlled win rate (Bradley-Terry + tanh(length difference), length term at 0)")
        rows = []
        for rater, d in (("human", human), ("judge", judge)):
            lc = length_controlled_win_rate(d, **boot_models).to_frame()
            lc["cell"] = _ci(lc)
            lc["rater"] = rater
            rows.append(lc)
        lc = pd.concat(rows)
        t = lc.pivot(index="model", columns="rater", values="cell")
        raw = lc.pivot(index="model", columns="rater", values="raw_win_rate").round(3)
        print(t.join(raw.add_suffix(" raw (tie=0.5)")).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
