"""The AlpacaEval 2.0 win-rate table from the released annotations (../shared/data/alpaca_eval).

For the 26 models of the collection (PROVENANCE.md), against the baseline gpt4_1106_preview and
judged by weighted_alpaca_eval_gpt4_turbo: the win rate as the mean soft preference (AlpacaEval's
``win_rate``) with a 95% interval from a bootstrap over instructions, the discrete wins, losses and
draws, the discrete win rate ((wins + draws/2)/n), and a length-controlled win rate in the spirit of
AlpacaEval's GLM (Dubois et al. 2024), next to the published leaderboard columns. The published
win rates, wins, losses and draws are reproduced exactly; the length-controlled ones are
approximated (the instruction difficulties and gamed-baseline annotations of AlpacaEval's GLM are
not released; see metaeval.length_controlled_win_rate).

Then the leaderboard meta-metrics of Li et al. (2024, Arena-Hard, arXiv 2406.11939) with
metaeval.inference.leaderboard: separability with 95% confidence of the judge's raw win-rate
leaderboard (per-model intervals from a bootstrap over the 805 instructions) and of the
length-controlled one; agreement with confidence, strict agreement, Spearman's rho and the
pair-rank Brier score of the raw leaderboard against (a) the length-controlled leaderboard (does
length control change the confident order?) and (b) the published AlpacaEval 1 leaderboard (another
judge, alpaca_eval_gpt4, and another baseline, text_davinci_003; normal intervals from its
standard errors) on the models both hold. The data hold no human leaderboard (Chatbot Arena is not
included), so neither reference is human preference: they tell how far the leaderboard's confident
order survives a change of scoring rule or of judge. Intervals of the meta-metrics come from an
outer bootstrap of the instructions (each replicate rebuilds every model's interval). Last, the
separability of the two published AE2 leaderboards over all their models (normal intervals from the
published standard errors).

Run: ``python analyses/alpaca_eval.py`` (about a minute; ``--help`` for the options). The data
folder is found at ``$METAEVAL_SHARED_DATA/alpaca_eval`` or ``<repo>/../shared/data/alpaca_eval``;
without it the script says so and exits.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import pandas as pd

from metaeval import UndefinedStatisticWarning, length_controlled_win_rate, win_rates
from metaeval.inference.leaderboard import Leaderboard, leaderboard, leaderboard_metrics

SEED = 20240410
BASELINE = "gpt4_1106_preview"
B = 2000
B_LC = 300                 # the length-controlled GLM is refitted per replicate (25 models × 805 instructions)
N_OUTER = 200              # outer resamples of the instructions behind the meta-metrics' intervals
N_INNER = 1000             # per-model bootstrap inside each outer resample
AE1_BASELINE = "text_davinci_003"


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
    ap.add_argument("--n-outer", type=int, default=N_OUTER, help="outer resamples of the leaderboard meta-metrics' "
                    f"intervals (default {N_OUTER}; 0 for point values)")
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
    lc_rs = length_controlled_win_rate(ann, length_a="len_chars_output_1", length_b="len_chars_output_2",
                                       instruction_difficulty="fit", **boot_lc, **cols)
    lc = lc_rs.to_frame().set_index("model")
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
    meta = None
    if args.point:
        print("\nLeaderboard meta-metrics need per-model intervals: skipped with --point.")
    else:
        meta = leaderboard_meta_metrics(ann, lc_rs, d, n_resamples=args.n_resamples, n_outer=args.n_outer,
                                        seed=args.seed)
    _write(f, lc, Path(os.environ.get("METAEVAL_ANALYSES_OUT", "analyses-out")) / "alpaca_eval", meta)
    return 0


def leaderboard_meta_metrics(ann, lc_rs, d: Path, *, n_resamples: int, n_outer: int, seed: int) -> pd.DataFrame:
    """Separability, agreement with confidence and pair-rank Brier (Li et al. 2024) of the judge's leaderboard.

    The judge's leaderboard: each model's win rate against the baseline, 100 · mean(preference − 1),
    with a percentile interval from a bootstrap over the instructions (all models' preferences on an
    instruction resampled together). References: metaeval's length-controlled win rates (their own
    bootstrap intervals), and the published AlpacaEval 1 leaderboard (score ± 1.96 · standard_error).
    """
    items = ann.assign(score=100 * (ann["preference"] - 1))[["instruction_idx", "model", "score"]]
    cols = dict(item="instruction_idx", model="model", score="score")
    ci = dict(ci_method="percentile", n_outer=n_outer, n_inner=N_INNER) if n_outer > 0 else dict(ci_method=None)
    raw = leaderboard(items, n_resamples=n_resamples, rng=seed, **cols)
    lcb = Leaderboard.from_results(lc_rs)
    lcb.table.loc[:, ["score", "ci_low", "ci_high", "mean"]] *= 100
    lcb.table.loc[:, "var"] *= 100 ** 2
    refs = {"length-controlled (metaeval)": lcb}
    ae1_path = d / "leaderboards" / "alpaca_eval_1.alpaca_eval_gpt4_leaderboard.csv"
    if ae1_path.is_file():
        ae1 = pd.read_csv(ae1_path, index_col=0)
        ae1 = ae1[ae1.index.isin(raw.models)]
        refs[f"AlpacaEval 1 (alpaca_eval_gpt4 vs {AE1_BASELINE})"] = Leaderboard.from_table(
            ae1, score="win_rate", se="standard_error")
    rows = []
    for k, (name, ref) in enumerate(refs.items()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)     # models on one board only: left out
            rs = leaderboard_metrics(items, ref, n_resamples=n_resamples, rng=seed, **ci, **cols)
        if k == 0:            # every model is on both boards here: the separability of the whole raw board
            rows.append(("raw win rate (judge)", "—", rs.get("separability")))
            rows.append(("length-controlled (metaeval)", "—",
                         leaderboard_metrics(lcb, ci_method=None).get("separability")))
        rows += [("raw win rate (judge)", name, e) for e in rs if e.statistic != "separability"]
    t = pd.DataFrame([{"leaderboard": b, "reference": r, "statistic": e.statistic, "estimate": e.estimate,
                       "ci_low": e.ci.low, "ci_high": e.ci.high, "pairs": e.n,
                       "models": e.extra.get("n_models")} for b, r, e in rows])
    brier = t.statistic == "pair_rank_brier"
    shown = t.assign(value=[f"{v:.4f}" if b else f"{100 * v:.1f}" for v, b in zip(t.estimate, brier)],
                     **{"95% CI": ["—" if pd.isna(lo) else (f"[{lo:.4f}, {hi:.4f}]" if b else _ci_text(lo, hi, 1))
                                   for lo, hi, b in zip(t.ci_low, t.ci_high, brier)]})
    print(f"\nLeaderboard meta-metrics (Li et al. 2024): 95% per-model intervals from {n_resamples} instruction "
          f"resamples; intervals of the meta-metrics from {n_outer} outer resamples of the instructions, each with "
          f"{N_INNER} inner ones (percentages; Brier as a number):")
    print(shown[["leaderboard", "reference", "statistic", "value", "95% CI", "pairs", "models"]].to_string(index=False))
    # the published AE2 leaderboards, all models (normal intervals from the published standard errors)
    lb2_path = d / "leaderboards" / "alpaca_eval_2.weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
    if lb2_path.is_file():
        lb2 = pd.read_csv(lb2_path, index_col=0)
        pub = Leaderboard.from_table(lb2, score="win_rate", se="standard_error")
        lc2 = lb2.dropna(subset=["lc_standard_error"])
        pub_lc = Leaderboard.from_table(lc2, score="length_controlled_winrate", se="lc_standard_error")
        s_raw = leaderboard_metrics(pub, ci_method=None).get("separability")
        s_lc = leaderboard_metrics(pub_lc, ci_method=None).get("separability")
        print(f"Published AE2 leaderboard: separability {100 * s_raw.estimate:.1f}% of {s_raw.n} pairs "
              f"({len(lb2)} models, win rate ± 1.96 SE); length-controlled {100 * s_lc.estimate:.1f}% of {s_lc.n} "
              f"pairs (the {len(lc2)} models with a published LC standard error).")
    return t


def _write(f, lc, out, meta=None):
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
    if meta is not None:
        rep.table("alpaca_eval_leaderboard_meta_metrics", meta,
                  "Leaderboard meta-metrics (Li et al. 2024) of the judge's raw win-rate leaderboard")
    order = soft.sort_values("estimate")["model"].tolist()
    fig, ax = fg.subplots(figsize=(7.5, 9))
    fg.plot_win_rates(both, tie_rule="tie_rule", rules=["raw (soft preference)", "length-controlled"], order=order,
                      ax=ax)
    rep.figure("alpaca_eval_win_rates", fig, "Raw and length-controlled win rates per model")
    rep.write(out)
    print(f"table and figure written to {out}/")


if __name__ == "__main__":
    sys.exit(main())
