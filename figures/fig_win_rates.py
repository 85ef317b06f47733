"""Win rate of each model in battles_like under OpenING's four tie rules, human verdicts beside the
judge's (unswapped judge rows; parse errors left out), with item-cluster bootstrap 95% intervals.

Tie rules (Zhou et al. 2024, OpenING's ``calculate_model_winrate.py``), per model with W decisive
wins, LW ties leaning to it, T plain ties, LL ties leaning away, L losses and N battles:
force-dividing tie (``fdt``) (W + LW)/N (a plain tie is won by nobody), without ties W/(W + L),
tie as 0 (``tie_zero``) W/N, tie as 0.5 (``tie_half``) (W + (LW + T + LL)/2)/N. The rules are
declared once, in ``metaeval.pairwise.outcomes`` (``metaeval.tie_rule_table()``); the win rates
and intervals come from ``metaeval.win_rates``.
"""

from __future__ import annotations

import _gallery as g
import pandas as pd

from metaeval import figures, win_rates
from metaeval.pairwise.outcomes import TIE_RULES

NAME = "win_rates"
RULES = TIE_RULES


def verdicts(rater: str) -> pd.DataFrame:
    b = g.load("battles_like").battles
    b = b[(b["judge"] == rater) & (b["swapped"] == 0) & (b["outcome"] != "invalid")].reset_index(drop=True)
    b.attrs = {}  # the reader's attrs hold arrays, which pandas 3's concat cannot compare
    return b


def win_rates_frame(b: pd.DataFrame) -> pd.DataFrame:
    """``model, tie_rule, estimate, ci_low, ci_high`` (and the rest of the tidy frame) for one rater."""
    with g.quiet():
        return win_rates(b, tie_rule=list(RULES), cluster="item_id", n_resamples=g.N_RESAMPLES, rng=g.SEED).to_frame()


@figures.theme()
def render(out=None):
    fig, axes = figures.subplots(1, 2, figsize=(7.4, 3.9), sharey=True)
    human = win_rates_frame(verdicts("human"))
    order = list(human.groupby("model")["estimate"].mean().sort_values(ascending=False, kind="stable").index)
    for ax, rater, f in ((axes[0], "human", human), (axes[1], "judge", win_rates_frame(verdicts("judge")))):
        figures.plot_win_rates(f, order=order, rules=RULES, ax=ax)
        ax.set_xlabel(f"win rate, {rater} verdicts")
    axes[1].get_legend().remove()
    return g.finish(fig, NAME, out)


if __name__ == "__main__":
    g.main(render)
