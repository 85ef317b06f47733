"""Shared input handling of the pairwise functions: battle frames → normalized codes → resampling units.

Every public pairwise function runs the same first steps:

1. :func:`prepare` — check the columns, normalize outcome spellings (or read soft preferences),
   attach the cluster id; rows without an outcome are counted and left out;
2. :func:`by_judge` — one frame per rater when the battles carry a ``judge`` column;
3. :func:`apply_baseline` — keep the battles of a baseline model (or drop self-battles);
4. :func:`orient` / :func:`relative` — one orientation per battle (models in sorted order), so that
   two raters' verdicts on the same battle can be compared;
5. :func:`units` — the additive sufficient statistics of each resampling unit (item, cluster or
   battle), which the bootstrap engine resamples (:mod:`metaeval.core.resample`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..core.errors import InputError, MetaevalWarning, UndefinedStatisticWarning
from ..core.resample import Units, _user_stacklevel
from .outcomes import CODE, FLIP, INV, INVALID_POLICIES, T_REV, A, B, T

#: Elements of a dense units matrix beyond which the input is refused (2.4 GB of float64).
MAX_DENSE = 300_000_000


def need_frame(battles, what="battles"):
    """``battles`` if it is a DataFrame, else an InputError that says how to read one."""
    if not isinstance(battles, pd.DataFrame):
        raise InputError(f"{what} must be a pandas DataFrame, got {type(battles).__name__}",
                         fix="read the file with metaeval.read_battles")
    return battles


def _cluster_ids(df, out, cluster, item, what):
    if isinstance(cluster, str):
        if cluster in ("item_id", item):
            return out["item"].to_numpy()
        if cluster in df.columns:
            return df[cluster].astype("str").to_numpy()
        raise InputError(f"no column {cluster!r} to cluster on", source="<DataFrame>",
                         fix="pass cluster=None for iid battles, or the name of the item/prompt column")
    cl = np.asarray(cluster)
    if len(cl) != len(df):
        raise InputError(f"cluster has {len(cl)} entries for {len(df)} rows of {what}")
    return cl.astype(str)


def _preference_codes(df, preference):
    p = pd.to_numeric(df[preference], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isnan(p) & ((p < 1 - 1e-9) | (p > 2 + 1e-9))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"preference outside [1, 2] in column {preference!r} ({int(bad.sum())} rows)",
                         source="<DataFrame>", line=i + 2, text=str(df[preference].iloc[i]),
                         expected="1 = first better, 2 = second better, 1.5 = tie (AlpacaEval)")
    code = np.where(p > 1.5, B, np.where(p < 1.5, A, T))
    return code, ~np.isnan(p), p


def _outcome_codes(df, outcome):
    vals = df[outcome].astype("object")
    isna = vals.isna().to_numpy() | (vals.astype("str").str.strip() == "").to_numpy()
    known = vals.map(lambda v: CODE.get(v, -1) if isinstance(v, str) else -1).to_numpy()
    need_norm = (known < 0) & ~isna
    if need_norm.any():
        from ..data.io import _normalize_outcomes

        lines = np.arange(len(df)) + 2
        norm = _normalize_outcomes(vals.where(~isna, None), lines, "<DataFrame>", outcome, None)
        known = np.where(need_norm, norm.map(lambda v: CODE.get(v, -1)).to_numpy(), known)
    code = np.where(isna, -1, known)
    return code, code >= 0


def prepare(battles, *, item="item_id", model_a="model_a", model_b="model_b", outcome="outcome",
            preference=None, what="battles", keep=(), cluster=None):
    """Normalized frame ``item, a, b, code`` (+ ``pref``, the cluster id ``cl``, the ``keep`` columns).

    Returns the frame and the number of rows without an outcome (left out).
    """
    df = need_frame(battles, what)
    need = [item, model_a, model_b] + ([preference] if preference is not None else [outcome])
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"{what} lacks column(s) {missing}", source="<DataFrame>",
                         expected=f"columns {need} (have {list(df.columns)[:12]})",
                         fix="rename them, or pass item=, model_a=, model_b=, outcome= / preference=")
    out = pd.DataFrame({"item": df[item].astype("str").to_numpy(), "a": df[model_a].astype("str").to_numpy(),
                        "b": df[model_b].astype("str").to_numpy()})
    for c in keep:
        if c in df.columns:
            out[c] = df[c].to_numpy()
    if cluster is not None:
        out["cl"] = _cluster_ids(df, out, cluster, item, what)
    if preference is not None:
        code, ok, p = _preference_codes(df, preference)
        out["pref"] = p
    else:
        code, ok = _outcome_codes(df, outcome)
    out["code"] = np.asarray(code, dtype=np.int64)
    n_missing = int((~ok).sum())
    return out[ok].reset_index(drop=True), n_missing


def check_policy(invalid, allowed=INVALID_POLICIES):
    """Raise unless ``invalid`` is one of ``allowed``."""
    if invalid not in allowed:
        raise ValueError(f"invalid= must be one of {allowed} (what a parse failure or refusal counts as), "
                         f"got {invalid!r}")


def check_duplicates(duplicates):
    """``"error"`` or ``"all"``; the old spelling ``"raise"`` is accepted with a FutureWarning."""
    if duplicates == "raise":
        warnings.warn("duplicates='raise' is now spelled duplicates='error' (as in metaeval.align)", FutureWarning,
                      stacklevel=_user_stacklevel())
        return "error"
    if duplicates not in ("error", "all"):
        raise ValueError(f"duplicates must be 'error' or 'all', got {duplicates!r}")
    return duplicates


def warn_missing(n_missing, what):
    """Say how many rows had no outcome."""
    if n_missing:
        warnings.warn(f"{n_missing} {what} row(s) without an outcome were left out", UndefinedStatisticWarning,
                      stacklevel=_user_stacklevel())


def warn_invalid(n_invalid, policy, what):
    """Say how many rows were parse failures and how they were counted."""
    if n_invalid:
        warnings.warn(f"{n_invalid} {what} row(s) are parse failures or refusals (outcome 'invalid'), "
                      f"counted with invalid={policy!r}", MetaevalWarning, stacklevel=_user_stacklevel())


def drop_or_tie_invalid(df, invalid, what="battle"):
    """Apply ``invalid="drop"`` (rows left out) or ``"tie"`` (a plain tie); returns (frame, n_invalid)."""
    inv = (df["code"] == INV).to_numpy()
    n_inv = int(inv.sum())
    if invalid == "drop":
        df = df[~inv].reset_index(drop=True)
    elif invalid == "tie":
        df = df.copy()
        df.loc[inv, "code"] = T
    warn_invalid(n_inv, invalid, what)
    return df, n_inv


def apply_baseline(df, baseline):
    """Battles against ``baseline`` only; without one, self-battles are left out (with a warning)."""
    if baseline is None:
        self_b = df["a"] == df["b"]
        if self_b.any():
            warnings.warn(f"{int(self_b.sum())} self-battle(s) (model_a == model_b) left out", UndefinedStatisticWarning,
                          stacklevel=_user_stacklevel())
            df = df[~self_b].reset_index(drop=True)
        return df
    involved = (df["a"] == baseline) | (df["b"] == baseline)
    if not involved.any():
        raise InputError(f"no battle involves the baseline {baseline!r}",
                         expected=f"a model among {sorted(set(df['a']) | set(df['b']))[:10]}")
    return df[involved].reset_index(drop=True)


def by_judge(df_raw, judge):
    """The rows of each rater (``judge`` column): a list of (name or None, frame)."""
    if judge is not None:
        if "judge" not in df_raw.columns:
            raise InputError("judge= given, but the battles have no 'judge' column")
        sel = df_raw[df_raw["judge"].astype(str) == str(judge)]
        if sel.empty:
            raise InputError(f"no rows of judge {judge!r}", expected=f"one of {sorted(df_raw['judge'].astype(str).unique())}")
        return [(str(judge), sel)]
    if "judge" in df_raw.columns:
        names = sorted(df_raw["judge"].astype(str).unique())
        if len(names) > 1:
            return [(nm, df_raw[df_raw["judge"].astype(str) == nm]) for nm in names]
    return [(None, df_raw)]


def models_of(df):
    """The models of a normalized frame, sorted (their index is their position here)."""
    return sorted(set(df["a"]) | set(df["b"]))


def units(rows_unit, cols, vals, D, kind, n_units=None) -> Units:
    """Units from (unit index, column, value) triples: per-unit sums of the contributions.

    Clusters are kept one by one (m = 1). For iid units, identical contribution vectors are
    grouped (with multiplicities) from the sparse triples, so the dense matrix only holds the
    distinct ones.
    """
    rows_unit = np.asarray(rows_unit, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    vals = np.asarray(vals, dtype=float)
    n_u = int(rows_unit.max()) + 1 if n_units is None else n_units
    if kind == "clusters":
        if n_u * D > MAX_DENSE:
            raise InputError(f"{n_u} clusters × {D} sufficient statistics is too large to resample",
                             fix="use fewer groups or models per call, or a coarser cluster")
        X = np.zeros((n_u, D))
        np.add.at(X, (rows_unit, cols), vals)
        return Units(X, np.ones(n_u, dtype=np.int64), kind="clusters")
    t = pd.DataFrame({"u": rows_unit, "c": cols, "v": vals}).groupby(["u", "c"], sort=True)["v"].sum().reset_index()
    t = t[t["v"] != 0]
    sig = (t["c"].astype(str) + ":" + t["v"].round(12).astype(str)).groupby(t["u"]).agg(";".join)
    sig = sig.reindex(np.arange(n_u), fill_value="")
    codes, uniq = pd.factorize(sig.to_numpy())
    first = np.unique(codes, return_index=True)[1]
    mult = np.bincount(codes, minlength=len(uniq))
    if len(uniq) * D > MAX_DENSE:
        raise InputError(f"{len(uniq)} distinct units × {D} sufficient statistics is too large to resample",
                         fix="use fewer groups or models per call")
    X = np.zeros((len(uniq), D))
    rep = sig.index.to_numpy()[first]                 # the unit standing for each distinct vector
    pos = np.full(n_u, -1)
    pos[rep] = np.arange(len(uniq))
    sel = pos[t["u"].to_numpy()] >= 0
    np.add.at(X, (pos[t["u"].to_numpy()[sel]], t["c"].to_numpy()[sel]), t["v"].to_numpy()[sel])
    return Units(X, mult, kind="items")


def unit_index(df, cluster):
    """Unit of each row: its cluster (column ``cl``), or with ``cluster=None`` the row itself."""
    if cluster is None:
        return np.arange(len(df)), "items"
    return pd.factorize(df["cl"])[0], "clusters"


def orient(df, mark_tie=False):
    """Canonical battle key (models in sorted order) and the outcome code in that orientation.

    With ``mark_tie``, a plain tie of a row shown the other way round gets the code ``T_REV`` (for
    the rule that forces a plain tie to the side shown first). Returns ``(lo, hi, code, flipped)``.
    """
    a, b = df["a"].to_numpy(), df["b"].to_numpy()
    flip = a > b
    lo = np.where(flip, b, a)
    hi = np.where(flip, a, b)
    code = df["code"].to_numpy()
    out = np.where(flip, FLIP[code], code)
    if mark_tie:
        out = np.where(flip & (code == T), T_REV, out)
    return lo, hi, out, flip


def relative(raw_ref, flip_ref, raw_cand, flip_cand):
    """Both verdicts in the candidate's presentation order.

    The candidate's code stays as given; the reference's is mirrored when it saw the models the
    other way round (a plain tie then becomes ``T_REV``).
    """
    other = flip_ref != flip_cand
    ref = np.where(other, FLIP[raw_ref], raw_ref)
    ref = np.where(other & (raw_ref == T), T_REV, ref)
    return ref, raw_cand
