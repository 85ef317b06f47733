"""One verdict per battle from several: the raters' majority, or FastChat's rule over both orders."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ._prepare import orient, prepare, warn_missing
from .outcomes import FLIP, INV, OUTCOMES

__all__ = ["majority_verdict", "combine_swaps"]


def majority_verdict(battles: pd.DataFrame, *, split: str = "tie", item: str = "item_id", model_a: str = "model_a",
                     model_b: str = "model_b", outcome: str = "outcome") -> pd.DataFrame:
    """One verdict per battle from several raters: the most frequent outcome.

    Rows of the same (item, unordered model pair) are mirrored to one orientation first (models in
    sorted order, A ↔ B and tie_a ↔ tie_b where needed). Invalid outcomes do not vote.

    Parameters
    ----------
    battles : pandas.DataFrame
        ``item_id, model_a, model_b, outcome`` with one row per rater and battle.
    split : {"tie", "drop"}
        A battle without a unique most frequent verdict becomes a plain ``tie``, or is left out.
    item, model_a, model_b, outcome : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        ``item_id, model_a, model_b, judge, outcome, n_raters, n_votes`` (the winning count), one
        row per battle, with ``judge = "majority"``.

    References
    ----------
    PandaLM (Wang et al., ICLR 2024) scores judges against the majority of three annotators;
    its published label distribution (0: 105, 1: 422, 2: 472) is reproduced in
    ``tests/test_pairwise_realdata.py``.

    Examples
    --------
    >>> import pandas as pd
    >>> b = pd.DataFrame({"item_id": ["1"] * 3 + ["2"] * 3, "model_a": "x", "model_b": "y",
    ...                   "judge": ["r1", "r2", "r3"] * 2, "outcome": ["A", "A", "B", "A", "tie", "B"]})
    >>> majority_verdict(b)[["item_id", "outcome", "n_votes"]].values.tolist()
    [['1', 'A', 2], ['2', 'tie', 1]]
    """
    if split not in ("tie", "drop"):
        raise ValueError(f"split must be 'tie' or 'drop', got {split!r}")
    df, _ = prepare(battles, item=item, model_a=model_a, model_b=model_b, outcome=outcome)
    lo, hi, code, _ = orient(df)
    key = ["item_id", "model_a", "model_b"]
    f = pd.DataFrame({"item_id": df["item"], "model_a": lo, "model_b": hi, "code": code})
    f = f[f["code"] != INV]
    cnt = f.groupby([*key, "code"]).size().rename("n").reset_index()
    tot = cnt.groupby(key)["n"].sum().rename("n_raters")
    best = cnt.sort_values("n", ascending=False).groupby(key).head(1).set_index(key)
    n_best = cnt.groupby(key)["n"].max()
    at_max = cnt.join(n_best.rename("mx"), on=key)
    n_top = (at_max["n"] == at_max["mx"]).groupby([at_max[k] for k in key]).sum()
    out = best.join(tot).join(n_top.rename("n_top"))
    out["outcome"] = [(OUTCOMES[c] if k == 1 else "tie") for c, k in zip(out["code"], out["n_top"])]
    if split == "drop":
        out = out[out["n_top"] == 1]
    out = out.reset_index().rename(columns={"n": "n_votes"})
    out["judge"] = "majority"
    return out[[*key, "judge", "outcome", "n_raters", "n_votes"]].sort_values(key).reset_index(drop=True)


def combine_swaps(battles: pd.DataFrame, *, rule: str = "fastchat", item: str = "item_id", model_a: str = "model_a",
                  model_b: str = "model_b", outcome: str = "outcome") -> pd.DataFrame:
    """One verdict per battle judged in both presentation orders (FastChat's MT-Bench rule).

    Rows of the same rater (``judge`` column, if any), item and model pair in opposite orders are
    combined: the same verdict (after mirroring, exact label) is kept, an inconsistent pair becomes a
    plain ``tie``. Battles judged in one order only are kept as they are. A parse failure in either
    order makes the combined verdict ``invalid``. Exactly one row per order is expected.

    Parameters
    ----------
    battles : pandas.DataFrame
        ``item_id, model_a, model_b, outcome`` (and ``judge``).
    rule : {"fastchat"}
        The combination rule (Zheng et al. 2023: an inconsistent pair is a tie).
    item, model_a, model_b, outcome : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        ``item_id, model_a, model_b, (judge,) outcome, n_orders`` (2 for a combined battle).

    References
    ----------
    Zheng et al. (2023), MT-Bench, FastChat ``llm_judge`` (``gen_judgment``: an inconsistent swapped
    pair counts as a tie).

    Examples
    --------
    >>> import pandas as pd
    >>> b = pd.DataFrame({"item_id": ["1", "1", "2", "2"], "model_a": ["x", "y", "x", "y"],
    ...                   "model_b": ["y", "x", "y", "x"], "outcome": ["A", "B", "A", "A"]})
    >>> combine_swaps(b)[["item_id", "outcome", "n_orders"]].values.tolist()
    [['1', 'A', 2], ['2', 'tie', 2]]
    """
    if rule != "fastchat":
        raise ValueError(f"rule must be 'fastchat', got {rule!r}")
    gcols = ["judge"] if "judge" in battles.columns else []
    df, nm = prepare(battles, item=item, model_a=model_a, model_b=model_b, outcome=outcome, keep=gcols)
    warn_missing(nm, "battle")
    lo, hi, code, flip = orient(df)
    f = pd.DataFrame({"item_id": df["item"].to_numpy(), "model_a": lo, "model_b": hi, "code": code, "rev": flip})
    for c in gcols:
        f[c] = df[c].astype(str).to_numpy()
    key = ["item_id", "model_a", "model_b", *gcols]
    n_r = f.groupby(key)["rev"].transform("sum")
    n_f = f.groupby(key)["rev"].transform("size") - n_r
    if ((n_f > 1) | (n_r > 1)).any():
        raise InputError("a battle is judged more than once in the same order; combine_swaps pairs one row "
                         "per order", fix="select one sample per order first")
    both = ((n_f == 1) & (n_r == 1)).to_numpy()
    pf = f[both & ~f["rev"].to_numpy()].set_index(key)["code"]
    pr = f[both & f["rev"].to_numpy()].set_index(key)["code"]
    j = pd.concat([pf.rename("c1"), pr.rename("c2")], axis=1).reset_index()
    c1, c2 = j["c1"].to_numpy(), j["c2"].to_numpy()
    labels = np.asarray(OUTCOMES, dtype=object)
    verdict = np.where((c1 == INV) | (c2 == INV), "invalid", np.where(c1 == c2, labels[c1], "tie"))
    combined = j[key].assign(outcome=verdict, n_orders=2)
    single = f[~both].copy()
    rev = single["rev"].to_numpy()
    a = np.where(rev, single["model_b"], single["model_a"])
    b = np.where(rev, single["model_a"], single["model_b"])
    single["model_a"], single["model_b"] = a, b
    single["outcome"] = labels[np.where(rev, FLIP[single["code"].to_numpy()], single["code"].to_numpy())]
    single["n_orders"] = 1
    cols = ["item_id", "model_a", "model_b", *gcols, "outcome", "n_orders"]
    out = pd.concat([combined[cols], single[cols]], ignore_index=True)
    return out.sort_values(["item_id", "model_a", "model_b", *gcols], kind="stable").reset_index(drop=True)
