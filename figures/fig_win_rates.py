"""Win rate of each model in battles_like under OpenING's four tie rules, human verdicts beside the
judge's (unswapped judge rows; parse errors left out), with item-cluster bootstrap 95% intervals.

Tie rules (Zhou et al. 2024, OpenING's ``calculate_model_winrate.py``), per model with W decisive
wins, LW ties leaning to it, T plain ties, LL ties leaning away, L losses and N battles:
force-dividing tie (``fdt``) (W + LW)/N (a plain tie is won by nobody), without ties W/(W + L),
tie as 0 (``tie_zero``) W/N, tie as 0.5 (``tie_half``) (W + (LW + T + LL)/2)/N. Uses
``metaeval.pairwise.battles.win_rates`` when that module is importable and returns ``model, tie_rule,
estimate, ci_low, ci_high``; otherwise the small frame is computed here with the package's
bootstrap engine.
"""

from __future__ import annotations

import inspect
import sys

import _gallery as g
import numpy as np
import pandas as pd

from metaeval import Units, bootstrap, figures

NAME = "win_rates"
RULES = ("fdt", "without_ties", "tie_zero", "tie_half")
# (credit to model A, credit to model B) by rule and outcome; None: the battle does not count
_CREDIT = {
    "fdt": {"A": (1, 0), "tie_a": (1, 0), "tie": (0, 0), "tie_b": (0, 1), "B": (0, 1)},
    "without_ties": {"A": (1, 0), "tie_a": None, "tie": None, "tie_b": None, "B": (0, 1)},
    "tie_zero": {"A": (1, 0), "tie_a": (0, 0), "tie": (0, 0), "tie_b": (0, 0), "B": (0, 1)},
    "tie_half": {"A": (1, 0), "tie_a": (0.5, 0.5), "tie": (0.5, 0.5), "tie_b": (0.5, 0.5), "B": (0, 1)},
}


def verdicts(rater: str) -> pd.DataFrame:
    b = g.load("battles_like").battles
    b = b[(b["judge"] == rater) & (b["swapped"] == 0) & (b["outcome"] != "invalid")].reset_index(drop=True)
    b.attrs = {}  # the reader's attrs hold arrays, which pandas 3's concat cannot compare
    return b


def win_rates_local(b: pd.DataFrame, *, n_resamples, rng) -> pd.DataFrame:
    """Win rate per model and rule, item-cluster bootstrap percentile intervals."""
    models = sorted(set(b["model_a"]) | set(b["model_b"]))
    mi = {m: i for i, m in enumerate(models)}
    M, R = len(models), len(RULES)
    items, cl = np.unique(b["item_id"].to_numpy(), return_inverse=True)
    X = np.zeros((len(items), 2 * M * R))          # per item: wins then games, for each (rule, model)
    for r, rule in enumerate(RULES):
        credit = [_CREDIT[rule][o] for o in b["outcome"]]
        ok = np.array([c is not None for c in credit])
        ca = np.array([c[0] if c else np.nan for c in credit])
        cb = np.array([c[1] if c else np.nan for c in credit])
        for side, credit in (("model_a", ca), ("model_b", cb)):
            col = r * M + b[side].map(mi).to_numpy()
            np.add.at(X, (cl[ok], col[ok]), credit[ok])
            np.add.at(X, (cl[ok], M * R + col[ok]), 1.0)
    res = bootstrap(lambda S: S[:, :M * R] / S[:, M * R:], Units(X, np.ones(len(X), dtype=np.int64),
                                                                   kind="clusters"),
                    n_resamples=n_resamples, ci_method="percentile", rng=rng)
    rows = [(models[j % M], RULES[j // M], res.theta_hat[j], res.low[j], res.high[j]) for j in range(M * R)]
    return pd.DataFrame(rows, columns=["model", "tie_rule", "estimate", "ci_low", "ci_high"])


def win_rates_frame(b: pd.DataFrame) -> pd.DataFrame:
    try:
        from metaeval.pairwise.battles import win_rates
    except ImportError:
        return win_rates_local(b, n_resamples=g.N_RESAMPLES, rng=g.SEED)
    params = inspect.signature(win_rates).parameters
    kw = {k: v for k, v in dict(cluster="item_id", n_resamples=g.N_RESAMPLES, rng=g.SEED).items() if k in params}
    with g.quiet():
        f = win_rates(b, **kw)
    f = f.to_frame() if hasattr(f, "to_frame") else f
    need = {"model", "tie_rule", "estimate", "ci_low", "ci_high"}
    if not need <= set(f.columns):
        print(f"fig_win_rates: metaeval.pairwise.battles.win_rates gave columns {list(f.columns)}; "
              "computing the frame locally", file=sys.stderr)
        return win_rates_local(b, n_resamples=g.N_RESAMPLES, rng=g.SEED)
    return f


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
