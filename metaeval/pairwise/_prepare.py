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

At Chatbot-Arena size (10⁷ battles, 200 models) the battles are first encoded and aggregated:
:func:`prepare_codes` gives integer codes (model names → their index in the sorted list of names,
items and clusters → codes in order of first appearance; no per-battle Python object), and
:func:`aggregate` turns the rows into (model_a, model_b, outcome[, cluster][, preference]) cells
with their count ``n`` and their first row, in order of first appearance. Everything after that
runs on cells: an iid bootstrap over battles is a multinomial over the distinct cells (battles of
one cell have the same contribution), a cluster bootstrap resamples clusters whose contributions
are kept sparse. Cells keep the order of the rows they first appear in, so the resampling units
(and the replicates, for a seed) are the same as from the rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import sparse

from ..core.errors import InputError, MetaevalWarning, UndefinedStatisticWarning
from ..core.resample import Units, _user_stacklevel
from .outcomes import CODE, FLIP, INV, INVALID_POLICIES, T_REV, A, B, T

#: Elements of a units matrix up to which it is kept dense (160 MB of float64); above, sparse (CSR).
MAX_DENSE = 20_000_000


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


def _factor(values):
    """Codes (in order of first appearance) and the distinct values as strings; values that print
    the same (1 and "1") are one value, a missing value is the string "nan" (as ``astype(str)``).

    An integer column keeps its integers as the distinct values (each prints differently); a
    categorical column is coded from its categories without looking at the rows twice."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy().astype(np.int64)
        cats = np.asarray(pd.Index(values.cat.categories, dtype=object).astype(str), dtype=object)
        if (codes < 0).any():
            cats = np.append(cats, "nan")
            codes = np.where(codes < 0, len(cats) - 1, codes)
        c2, u2 = pd.factorize(cats)
        return c2[codes].astype(np.int64), np.asarray(u2, dtype=object)
    if values.dtype.kind in "iu":
        codes, uniq = pd.factorize(values)
        return codes.astype(np.int64), np.asarray(uniq)
    codes, uniq = pd.factorize(values, use_na_sentinel=False)
    ustr = np.asarray(pd.Index(uniq, dtype=object).astype(str), dtype=object)
    c2, u2 = pd.factorize(ustr)
    return c2[codes].astype(np.int64), np.asarray(u2, dtype=object)


def prepare_codes(battles, *, item="item_id", model_a="model_a", model_b="model_b", outcome="outcome",
                  preference=None, what="battles", cluster=None, need_item=True, keep=()):
    """:func:`prepare` with integer codes: the same rows, outcomes, errors and missing-row count.

    Returns ``(frame, n_missing, names, items)``: the frame has ``a, b`` (index into ``names``, the
    sorted model names, so that comparing codes compares names), ``code``, ``item`` (index into
    ``items``, in order of first appearance; only with ``need_item``), ``cl`` (cluster codes) and
    ``pref``.
    """
    df = need_frame(battles, what)
    need = [item, model_a, model_b] + ([preference] if preference is not None else [outcome])
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"{what} lacks column(s) {missing}", source="<DataFrame>",
                         expected=f"columns {need} (have {list(df.columns)[:12]})",
                         fix="rename them, or pass item=, model_a=, model_b=, outcome= / preference=")
    ca, ua = _factor(df[model_a])
    cb, ub = _factor(df[model_b])
    names = np.unique(np.concatenate([ua, ub]).astype(str))
    cols = {"a": np.searchsorted(names, ua.astype(str))[ca], "b": np.searchsorted(names, ub.astype(str))[cb]}
    for c in keep:
        if c in df.columns:
            cols[c] = df[c].to_numpy()
    items = None
    if need_item or (isinstance(cluster, str) and cluster in ("item_id", item)):
        cols["item"], items = _factor(df[item])
    if cluster is not None:
        if isinstance(cluster, str) and cluster in ("item_id", item):
            cols["cl"] = cols["item"]
        elif isinstance(cluster, str):
            if cluster not in df.columns:
                raise InputError(f"no column {cluster!r} to cluster on", source="<DataFrame>",
                                 fix="pass cluster=None for iid battles, or the name of the item/prompt column")
            cols["cl"] = _factor(df[cluster])[0]
        else:
            cl = np.asarray(cluster)
            if len(cl) != len(df):
                raise InputError(f"cluster has {len(cl)} entries for {len(df)} rows of {what}")
            cols["cl"] = _factor(pd.Series(cl.astype(str)))[0]
    if preference is not None:
        code, ok, p = _preference_codes(df, preference)
        cols["pref"] = p
    else:
        oc, ou = pd.factorize(df[outcome], use_na_sentinel=False)
        try:
            code_u, _ = _outcome_codes(pd.DataFrame({outcome: pd.Series(ou, dtype=object)}), outcome)
        except InputError:
            _outcome_codes(df, outcome)                 # the message with the first bad line and the counts
            raise
        code = np.asarray(code_u, dtype=np.int64)[oc]
        ok = code >= 0
    cols["code"] = np.asarray(code, dtype=np.int64)
    if ok.all():
        out = pd.DataFrame(cols)
    else:
        out = pd.DataFrame({k: v[ok] for k, v in cols.items()})
    return out, int((~ok).sum()), names, items


def joint_codes(frames):
    """Re-code coded frames (:func:`prepare_codes` results) to one vocabulary of models and items.

    ``frames`` is a list of ``(frame, names, items)``; returns the frames (copies, ``a``/``b``/``item``
    re-coded), the joint sorted model names and the joint items (in order of first appearance,
    frame by frame).
    """
    names = np.unique(np.concatenate([f[1].astype(str) for f in frames]))
    its = [f[2] for f in frames]
    if not all(np.asarray(it).dtype.kind in "iu" for it in its):    # match by the printed form
        its = [np.asarray(pd.Index(np.asarray(it, dtype=object)).astype(str), dtype=object) for it in its]
    items = pd.unique(np.concatenate(its))
    imap = pd.Index(items)
    out = []
    for (df, nm, _), it in zip(frames, its):
        df = df.copy()
        pos = np.searchsorted(names, nm.astype(str))
        df["a"], df["b"] = pos[df["a"].to_numpy()], pos[df["b"].to_numpy()]
        df["item"] = imap.get_indexer(it)[df["item"].to_numpy()]
        out.append(df)
    return out, names, np.asarray(items, dtype=object)


def pair_key(item, lo, hi, n_models):
    """One integer per (item, model, model) key (for grouping and factorizing without strings)."""
    item, lo, hi = (np.asarray(x, dtype=np.int64) for x in (item, lo, hi))
    if (int(item.max(initial=0)) + 1) * n_models * n_models < 2**62:
        return (item * n_models + lo) * n_models + hi
    return pd.DataFrame({"i": item, "l": lo, "h": hi}).groupby(["i", "l", "h"], sort=False).ngroup().to_numpy()


def aggregate(df, by=("a", "b", "code", "cl", "pref", "item")):
    """Identical rows of a coded frame as cells with their count ``n`` and ``first`` row.

    Cells are in order of first appearance (so clusters factorized over cells come out in the
    order of the rows). ``by`` columns that the frame lacks are skipped; ``pref`` (float) is
    grouped by value.
    """
    by = [c for c in by if c in df.columns]
    n_rows = len(df)
    if n_rows == 0:
        return df.assign(n=np.zeros(0, dtype=np.int64), first=np.zeros(0, dtype=np.int64))
    key = np.zeros(n_rows, dtype=np.int64)
    radix = 1
    parts = []
    for c in by:
        v = df[c].to_numpy()
        if c == "pref" or v.dtype.kind == "f":
            v = pd.factorize(v, use_na_sentinel=False)[0]
        v = np.asarray(v, dtype=np.int64)
        k = int(v.max()) + 1
        parts.append(v)
        if radix * k >= 2**62:
            radix = 0
            break
        key = key * k + v
        radix *= k
    if radix == 0:                                  # too many combinations for one integer key
        codes = df.groupby(by, sort=False, dropna=False).ngroup().to_numpy()
    else:
        codes = pd.factorize(key)[0]
    first = pd.Series(codes).drop_duplicates(keep="first").index.to_numpy()
    cells = df.iloc[first].reset_index(drop=True)
    cells["n"] = np.bincount(codes, minlength=len(first)).astype(np.int64)
    cells["first"] = first
    return cells


def weight(df):
    """Battles per row: the ``n`` of an aggregated frame, else 1 each."""
    return df["n"].to_numpy() if "n" in df.columns else np.ones(len(df), dtype=np.int64)


def drop_self_battles(df):
    """Cells of a coded frame without self-battles (model_a == model_b), with the warning."""
    self_b = (df["a"] == df["b"]).to_numpy()
    if self_b.any():
        warnings.warn(f"{int(weight(df)[self_b].sum())} self-battle(s) (model_a == model_b) left out",
                      UndefinedStatisticWarning, stacklevel=_user_stacklevel())
        df = df[~self_b].reset_index(drop=True)
    return df


def invalid_cells(df, invalid, what="battle"):
    """:func:`drop_or_tie_invalid` for an aggregated (or coded) frame; returns (frame, n_invalid)."""
    return drop_or_tie_invalid(df, invalid, what, counts=weight(df))


def present_models(df, names):
    """The models with a row (sorted names) and the frame with ``a, b`` re-coded to index them."""
    used = np.unique(np.concatenate([df["a"].to_numpy(), df["b"].to_numpy()]))
    df = df.copy()
    df["a"] = np.searchsorted(used, df["a"].to_numpy())
    df["b"] = np.searchsorted(used, df["b"].to_numpy())
    return df, [str(x) for x in names[used]]


def cell_units(df, rows, cols, vals, D, cluster):
    """Units of an aggregated frame from per-row (row, column, value) triples of ONE battle.

    Clusters: each row's contribution times its count ``n``, summed per cluster (clusters in order
    of first appearance). iid: each row stands for ``n`` battles with the same contribution (the
    multinomial over distinct cells); rows with no contribution keep their battles in N.
    """
    rows = np.asarray(rows, dtype=np.int64)
    n = weight(df)
    if cluster is None:
        return units(rows, cols, vals, D, "items", n_units=len(df), mult=n)
    cl = pd.factorize(df["cl"].to_numpy())[0]
    return units(cl[rows], cols, np.asarray(vals, dtype=float) * n[rows], D, "clusters", n_units=int(cl.max()) + 1)


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


def drop_or_tie_invalid(df, invalid, what="battle", *, counts=None):
    """Apply ``invalid="drop"`` (rows left out) or ``"tie"`` (a plain tie); returns (frame, n_invalid).

    ``counts``: battles per row (an aggregated frame's ``n``); default one each.
    """
    inv = (df["code"] == INV).to_numpy()
    n_inv = int(inv.sum()) if counts is None else int(np.asarray(counts)[inv].sum())
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


def _splitmix(x):
    """A 64-bit mixing function (splitmix64's finalizer), elementwise on uint64."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _row_hashes(A, salt):
    """An order-free hash of each CSR row's (column, value) entries (values rounded to 12 digits)."""
    with np.errstate(over="ignore"):
        v = np.round(A.data, 12).view(np.uint64)
        e = _splitmix(A.indices.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(salt)) ^ _splitmix(v + np.uint64(salt))
        e = _splitmix(e)
        h = np.zeros(A.shape[0], dtype=np.uint64)
        nz = np.diff(A.indptr) > 0
        if nz.any():
            h[nz] = np.add.reduceat(e, A.indptr[:-1][nz])
    return h


def _iid_groups(A):
    """Group the rows of a CSR matrix with identical entries: (code per row, first row of each code).

    Codes are in order of first appearance. Rows are grouped by a 64-bit hash of their entries and
    the grouping is checked with a second, independent hash; None if the check fails (then the
    caller groups exactly).
    """
    h1, h2 = _row_hashes(A, 1), _row_hashes(A, 0x5BD1E995)
    codes, _ = pd.factorize(h1)
    first = pd.Series(codes).drop_duplicates(keep="first").index.to_numpy()
    if not np.array_equal(h2[first][codes], h2):
        return None
    return codes, first


def _iid_groups_exact(A):
    """The exact (string-signature) grouping of :func:`_iid_groups`, for small inputs or a failed check."""
    A = A.tocoo()
    sig = (pd.Series(A.col).astype(str) + ":" + pd.Series(np.round(A.data, 12)).astype(str)).groupby(A.row).agg(";".join)
    sig = sig.reindex(np.arange(A.shape[0]), fill_value="")
    codes, _ = pd.factorize(sig.to_numpy())
    first = np.unique(codes, return_index=True)[1]
    return codes, first


def units(rows_unit, cols, vals, D, kind, n_units=None, mult=None) -> Units:
    """Units from (unit index, column, value) triples: per-unit sums of the contributions.

    Clusters are kept one by one (m = 1) while the matrix is dense; above :data:`MAX_DENSE`
    elements, clusters with identical contributions become one unit type with a multiplicity
    (the same distribution of draws, other draws for a seed). For iid units, identical
    contribution vectors are grouped (with multiplicities, in order of first appearance), so only
    the distinct ones are kept. ``mult`` (iid only) is the number of identical units each index stands for (an
    aggregated cell of ``n`` battles). Up to :data:`MAX_DENSE` elements the matrix is dense, above
    it sparse (CSR): a cell that adds 1 to one column is then resampled without any product.
    """
    rows_unit = np.asarray(rows_unit, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    vals = np.asarray(vals, dtype=float)
    n_u = int(rows_unit.max()) + 1 if n_units is None else n_units
    if kind == "clusters":
        if n_u * D <= MAX_DENSE:
            X = np.zeros((n_u, D))
            np.add.at(X, (rows_unit, cols), vals)
            return Units(X, np.ones(n_u, dtype=np.int64), kind="clusters")
        # sparse; clusters with the same contribution are one unit type with a multiplicity (a
        # multinomial over the types is the same draw distribution as over the clusters)
        X = sparse.csr_matrix((vals, (rows_unit, cols)), shape=(n_u, D))
        X.sum_duplicates()
        X.eliminate_zeros()
        X.sort_indices()
        grouped = _iid_groups(X)
        if grouped is None:
            return Units(X, np.ones(n_u, dtype=np.int64), kind="clusters")
        codes, first = grouped
        return Units(X[first], np.bincount(codes, minlength=len(first)), kind="clusters")
    A = sparse.csr_matrix((vals, (rows_unit, cols)), shape=(n_u, D))
    A.sum_duplicates()
    A.eliminate_zeros()
    A.sort_indices()
    grouped = _iid_groups(A)
    codes, first = grouped if grouped is not None else _iid_groups_exact(A)
    m = np.ones(n_u, dtype=np.int64) if mult is None else np.asarray(mult, dtype=np.int64)
    mult_t = np.bincount(codes, weights=m, minlength=len(first)).round().astype(np.int64)
    X = A[first]
    if len(first) * D <= MAX_DENSE:
        X = X.toarray()
    return Units(X, mult_t, kind="items")


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
