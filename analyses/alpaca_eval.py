"""The AlpacaEval 2.0 win-rate table from the released annotations (../shared/data/alpaca_eval).

For the 26 models of the collection (PROVENANCE.md), against the baseline gpt4_1106_preview and
judged by weighted_alpaca_eval_gpt4_turbo: the win rate as the mean soft preference (AlpacaEval's
``win_rate``) with a 95% interval from a bootstrap over instructions, the discrete wins, losses and
draws, the discrete win rate ((wins + draws/2)/n), and a length-controlled win rate in the spirit of
AlpacaEval's GLM (Dubois et al. 2024), next to the published leaderboard columns. The published
win rates, wins, losses and draws are reproduced exactly; the length-controlled ones are
approximated (the instruction difficulties and gamed-baseline annotations of AlpacaEval's GLM are
not released; see metaeval.length_controlled_win_rate).

Run: ``python analyses/alpaca_eval.py`` (about 10 seconds; ``--help`` for the options). The data
folder is found at ``$METAEVAL_SHARED_DATA/alpaca_eval`` or ``<repo>/../shared/data/alpaca_eval``;
without it the script says so and exits.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pandas as pd

from metaeval import length_controlled_win_rate, win_rates

SEED = 20240410
BASELINE = "gpt4_1106_preview"
B = 2000
B_LC = 300                 # the length-controlled GLM is refitted per replicate (25 models × 805 instructions)


def data_folder() -> Path:
    root = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    return root / "alpaca_eval"


def _ci_text(lo, hi, digits):
    """An interval in percent points, or a dash for a point estimate (no interval)."""
    if pd.isna(lo) or pd.isna(hi):
        return "—"
    return f"[{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-resamples", type=int, default=B, help=f"bootstrap replicates of the win rates (default {B}; "
                    f"{B_LC} for the length-controlled GLM)")
    ap.add_argument("--point", action="store_true", help="point estimates only (ci_method=None, no resampling)")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    boot = dict(n_resamples=args.n_resamples, ci_method="bca", rng=args.seed) if not args.point else dict(ci_method=None)
    boot_lc = (dict(n_resamples=min(args.n_resamples, B_LC), rng=args.seed) if not args.point
               else dict(ci_method=None))
    d = data_folder()
    ann_path = d / "annotations_weighted_alpaca_eval_gpt4_turbo.compact.tsv.gz"
    if not ann_path.is_file():
        print(f"AlpacaEval data not found at {d} (set METAEVAL_SHARED_DATA to the shared/data folder); skipping.")
        return 0
    pd.set_option("display.width", 200)
    ann = pd.read_csv(ann_path, sep="\t")
    lb_path = d / "leaderboards" / "alpaca_eval_2.weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
    lb = pd.read_csv(lb_path, index_col=0) if lb_path.is_file() else pd.DataFrame()
    # the `model` column names the evaluated model (NullModel's outputs are labelled "example")
    cols = dict(preference="preference", baseline=BASELINE, item="instruction_idx", model_a="generator_1",
                model_b="model")
    print(f"AlpacaEval 2.0: {len(ann)} annotations, {ann.model.nunique()} models, "
          f"{ann.instruction_idx.nunique()} instructions; judge weighted_alpaca_eval_gpt4_turbo, baseline {BASELINE}")

    wr = win_rates(ann, tie_rule=["soft", "tie_half"], **boot, **cols)
    f = wr.to_frame()
    soft = f[f.tie_rule == "soft"].set_index("model")
    disc = f[f.tie_rule == "tie_half"].set_index("model")
    lc = length_controlled_win_rate(ann, length_a="len_chars_output_1", length_b="len_chars_output_2",
                                    instruction_difficulty="fit", **boot_lc, **cols).to_frame().set_index("model")
    t = pd.DataFrame({
        "win rate": (100 * soft.estimate).round(2),
        "95% CI": [_ci_text(lo, hi, 2) for lo, hi in zip(soft.ci_low, soft.ci_high)],
        "wins": soft.wins, "losses": soft.losses, "draws": soft.ties, "n": soft.n_battles,
        "discrete": (100 * disc.estimate).round(2),
        "LC (ours)": (100 * lc.estimate).round(2),
        "LC 95% CI": [_ci_text(lo, hi, 1) for lo, hi in zip(lc.ci_low, lc.ci_high)],
    })
    if not lb.empty:
        pub = lb.reindex(t.index)
        t["published"] = pub.win_rate.round(2)
        t["published LC"] = pub.length_controlled_winrate.round(2)
        same = ((t["win rate"] - t["published"]).abs() < 0.005) & (t.wins == pub.n_wins) & (
            t.losses == pub.n_wins_base) & (t.draws == pub.n_draws)
        t["match"] = same.map({True: "yes", False: "no"}).where(pub.win_rate.notna(), "not on AE2")
    t = t.sort_values("win rate", ascending=False)
    print(t.to_string())
    if not lb.empty:
        on = t[t["match"] != "not on AE2"]
        gap = (on["LC (ours)"] - on["published LC"]).abs().drop(BASELINE, errors="ignore")
        print(f"\n{(on['match'] == 'yes').sum()} of {len(on)} models on the AE2 leaderboard reproduce its win rate, "
              f"wins, losses and draws; LC win rate within a median {gap.median():.2f} points of the published one "
              f"(max {gap.max():.2f}, {gap.idxmax()}).")
    _write(f, lc, Path(os.environ.get("METAEVAL_ANALYSES_OUT", "analyses-out")) / "alpaca_eval")
    return 0


def _write(f, lc, out):
    """The table (CSV and LaTeX) and a figure of the raw and length-controlled win rates, beside it."""
    import matplotlib

    matplotlib.use("Agg")
    from metaeval import figures as fg
    from metaeval.output.report import Report

    soft = f[f.tie_rule == "soft"].assign(tie_rule="raw (soft preference)")
    lcf = lc.reset_index().assign(tie_rule="length-controlled")
    both = pd.concat([soft, lcf], ignore_index=True)[["model", "tie_rule", "estimate", "ci_low", "ci_high"]]
    rep = Report("AlpacaEval 2.0: win rates against gpt4_1106_preview")
    rep.table("alpaca_eval_win_rates", both, "Win rate (soft preference) and length-controlled win rate, 95% intervals")
    order = soft.sort_values("estimate")["model"].tolist()
    fig, ax = fg.subplots(figsize=(7.5, 9))
    fg.plot_win_rates(both, tie_rule="tie_rule", rules=["raw (soft preference)", "length-controlled"], order=order,
                      ax=ax)
    rep.figure("alpaca_eval_win_rates", fig, "Raw and length-controlled win rates per model")
    rep.write(out)
    print(f"table and figure written to {out}/")


if __name__ == "__main__":
    sys.exit(main())
