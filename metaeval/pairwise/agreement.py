"""Agreement between a reference (usually human) and a candidate (usually a judge) on the same battles.

Battles of the two frames are matched on (item, unordered model pair); a reference verdict given
with the models in the other order is mirrored first (A ↔ B, tie_a ↔ tie_b), so that A and B
refer to the order the candidate saw. Every comparison becomes one cell of a 7 × 7 table of
(reference, candidate) outcome codes per resampling unit; a tie rule of
:mod:`metaeval.pairwise.outcomes` maps the codes to its verdict classes, and agreement, Cohen's
kappa (:func:`metaeval.agreement.kernels.chance_corrected`, the package's one definition of an
undefined kappa) and macro-F1 are functions of the mapped table.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ..agreement.kernels import chance_agreement, chance_corrected
from ..core.errors import InputError
from ._prepare import (
    check_duplicates,
    check_policy,
    joint_codes,
    need_frame,
    orient,
    pair_key,
    prepare,
    prepare_codes,
    relative,
    units,
    warn_invalid,
    warn_missing,
)
from ._results import (
    DEFAULT_CI_METHOD,
    DEFAULT_N_RESAMPLES,
    PairwiseResult,
    Resampler,
    check_ci_method,
    estimate,
)
from .outcomes import INV, INVALID_POLICIES, NC, T, select_rules
from .outcomes import tie_rule as lookup_rule

__all__ = ["pairwise_agreement", "seen_unseen_agreement", "inter_rater_agreement", "pairwise_confusion"]

#: What a parse failure may count as when two raters are compared.
AGREEMENT_POLICIES = INVALID_POLICIES + ("keep",)
#: The plain-tie options of FDT when two raters are compared.
AGREEMENT_PLAIN_TIE = ("tie", "first", "drop")


@dataclasses.dataclass
class Comparisons:
    """Aligned (reference, candidate) outcome codes with a weight, a unit and a group per comparison."""

    ref: np.ndarray
    cand: np.ndarray
    weight: np.ndarray
    unit: np.ndarray
    kind: str
    group: np.ndarray
    group_names: list
    n_battles: int
    info: dict


def _check_agreement_options(invalid, fdt_plain_tie, ci_method):
    check_policy(invalid, AGREEMENT_POLICIES)
    check_ci_method(ci_method)
    if fdt_plain_tie not in AGREEMENT_PLAIN_TIE:
        raise ValueError(f"fdt_plain_tie must be one of {AGREEMENT_PLAIN_TIE} for agreement, got {fdt_plain_tie!r}")


def _specs(rules, policy, fdt_plain_tie):
    return {r: lookup_rule(r, plain_tie=fdt_plain_tie).agreement_spec(policy) for r in rules}


def stat_names(categorical):
    """The statistics of one rule: agreement and kappa, and macro-F1 for nominal classes."""
    return ["agreement", "cohen_kappa"] + (["macro_f1"] if categorical else [])


def agreement_stats(T7, spec, f1_classes):
    """Agreement, kappa (and macro-F1) of (b, NC, NC) comparison tables under one rule's spec."""
    labels, mapping, w, categorical = spec
    Tk = np.einsum("bij,ik,jl->bkl", T7, mapping, mapping)
    K = len(labels)
    with np.errstate(invalid="ignore", divide="ignore"):
        po, pe = chance_agreement(Tk.reshape(-1, K * K), K, w, "cohen")
        out = [po, chance_corrected(po, pe)]
        if categorical:
            n = Tk.sum(axis=(1, 2))
            d = np.diagonal(Tk, axis1=1, axis2=2)
            rr, cc = Tk.sum(axis=2), Tk.sum(axis=1)
            f1 = np.where(rr + cc > 0, 2 * d / np.where(rr + cc > 0, rr + cc, 1.0), 0.0)
            if f1_classes:
                out.append(np.where(n > 0, f1[:, f1_classes].mean(axis=1), np.nan))
            else:
                out.append(np.full(len(n), np.nan))
    return out


def _apply_policy(comp: Comparisons, policy):
    """Codes, weights, units and groups after the parse-failure policy; and the number of failures."""
    ref, cand, w = comp.ref.copy(), comp.cand.copy(), comp.weight.copy()
    inv = (ref == INV) | (cand == INV)
    unit, group = comp.unit, comp.group
    if policy == "drop":
        keep = ~inv
        ref, cand, w, unit, group = ref[keep], cand[keep], w[keep], unit[keep], group[keep]
    elif policy == "tie":
        ref = np.where(ref == INV, T, ref)
        cand = np.where(cand == INV, T, cand)
    if len(ref) == 0:
        raise InputError("no comparisons left (every aligned battle has a parse failure?)")
    return ref, cand, w, unit, group, int(inv.sum())


def _agreement_kernel(G, rules, specs, f1_cls, extra_fn, names):
    def kern(S):
        Tg = np.asarray(S, dtype=float).reshape(-1, G, NC, NC)
        cols = []
        for g in range(G):
            for r in rules:
                cols += agreement_stats(Tg[:, g], specs[r], f1_cls[r])
        base = np.stack(cols, axis=1)
        if extra_fn is not None:
            base = np.concatenate([base, extra_fn(base)], axis=1)
        return base
    return kern


def agreement_run(comp: Comparisons, rules, policy, fdt_plain_tie, rs: Resampler, *, extra_fn: Callable | None = None,
                  extra_names: Sequence = ()):
    """Bootstrap every rule's statistics (per group) from one set of comparison tables.

    Returns ``(result, names, pooled tables (G, NC, NC), specs, n_invalid)``; ``names`` are
    ``(group, rule, statistic)`` for the rule columns, then ``extra_names``.
    """
    ref, cand, w, unit, group, n_inv = _apply_policy(comp, policy)
    G = len(comp.group_names)
    _, unit = np.unique(unit, return_inverse=True)
    u = units(unit.ravel(), group * NC * NC + ref * NC + cand, w, G * NC * NC, comp.kind)
    specs = _specs(rules, policy, fdt_plain_tie)
    pooled = u.total().reshape(G, NC, NC)
    f1_cls = {}
    for r, spec in specs.items():
        Tk = np.einsum("gij,ik,jl->kl", pooled, spec[1], spec[1])
        present = (Tk.sum(axis=0) + Tk.sum(axis=1)) > 0
        f1_cls[r] = [k for k, lab in enumerate(spec[0]) if lab != "invalid" and present[k]]
    names = [(g, r, s) for g in range(G) for r in rules for s in stat_names(specs[r][3])]
    names += list(extra_names)
    res = rs.run(_agreement_kernel(G, rules, specs, f1_cls, extra_fn, names), u)
    return res, names, pooled, specs, n_inv


def _align(ref_df, cand_df, duplicates, names=None, items=None):
    """Align two normalized battle frames on (item, unordered model pair).

    ``code_ref``/``code_cand`` are in the candidate's presentation order (so that A means the model
    the candidate saw first, as kappa's margins need). Coded frames (:func:`prepare_codes`, one
    vocabulary) come with their ``names`` and ``items`` for the messages.
    """
    frames = []
    for name, df in (("cand", cand_df), ("ref", ref_df)):
        lo, hi, _, flip = orient(df)
        f = pd.DataFrame({"item": df["item"].to_numpy(), "lo": lo, "hi": hi, f"raw_{name}": df["code"].to_numpy(),
                          f"flip_{name}": flip})
        for c in df.columns:
            if c not in ("item", "a", "b", "code", "pref"):
                f[f"{c}__{name}"] = df[c].to_numpy()
        if names is not None:                        # one integer per battle key: faster than three columns
            f["k"] = pair_key(f["item"], lo, hi, len(names))
        frames.append(f)
    key = ["item", "lo", "hi"] if names is None else ["k"]
    info = {}
    any_dup = False
    for f, name in zip(frames, ("candidate", "reference")):
        dup = f.duplicated(key, keep=False)
        any_dup = any_dup or bool(dup.any())
        info[f"n_{name}_rows"] = len(f)
        if dup.any() and duplicates == "error":
            ex = f[dup].iloc[0]
            it, lo, hi = ex["item"], ex["lo"], ex["hi"]
            if names is not None:
                it, lo, hi = str(items[it]), str(names[lo]), str(names[hi])
            raise InputError(f"{int(dup.sum())} {name} rows judge a battle more than once (e.g. item "
                             f"{it!r}, {lo} vs {hi})",
                             fix="keep one row per battle (e.g. battles[battles.swapped == 0]), pass "
                                 "duplicates='all' to compare every pair of rows (each battle weighs 1), "
                                 "or use majority_verdict for several human annotators")
    if names is not None and not any_dup:
        # one row per battle on both sides: an inner join of two unique integer keys (left order kept)
        kc, kr = frames[0]["k"].to_numpy(), frames[1]["k"].to_numpy()
        _, ic, ir = np.intersect1d(kc, kr, assume_unique=True, return_indices=True)
        order = np.argsort(ic, kind="stable")
        ic, ir = ic[order], ir[order]
        m = frames[0].iloc[ic].reset_index(drop=True)
        right = frames[1].drop(columns=["item", "lo", "hi", "k"]).iloc[ir].reset_index(drop=True)
        m = pd.concat([m, right], axis=1)
        m["n_cand"] = 1
        m["n_ref"] = 1
        m["w"] = 1.0
        m["code_ref"], m["code_cand"] = relative(m["raw_ref"].to_numpy(), m["flip_ref"].to_numpy(),
                                                 m["raw_cand"].to_numpy(), m["flip_cand"].to_numpy())
        info.update({"n_battles": len(ic), "n_candidate_only": len(kc) - len(ic),
                     "n_reference_only": len(kr) - len(ic)})
        return m, info
    cnt_c = frames[0].groupby(key).size().rename("n_cand")
    cnt_r = frames[1].groupby(key).size().rename("n_ref")
    right = frames[1] if names is None else frames[1].drop(columns=["item", "lo", "hi"])
    m = frames[0].merge(right, on=key, how="inner")
    m = m.join(cnt_c, on=key).join(cnt_r, on=key)
    m["w"] = 1.0 / (m["n_cand"] * m["n_ref"])
    m["code_ref"], m["code_cand"] = relative(m["raw_ref"].to_numpy(), m["flip_ref"].to_numpy(),
                                             m["raw_cand"].to_numpy(), m["flip_cand"].to_numpy())
    kc = frames[0][key].drop_duplicates()
    kr = frames[1][key].drop_duplicates()
    both = kc.merge(kr, on=key, how="inner")
    info.update({"n_battles": len(both), "n_candidate_only": len(kc) - len(both),
                 "n_reference_only": len(kr) - len(both)})
    return m, info


def _groups_of(m, by):
    if by is None:
        return np.zeros(len(m), dtype=np.int64), ["all"]
    vals = np.asarray(by)
    if isinstance(by, str):
        for suffix in ("__cand", "__ref"):
            if f"{by}{suffix}" in m.columns:
                vals = m[f"{by}{suffix}"].to_numpy()
                break
        else:
            raise InputError(f"no column {by!r} in the battles to group by")
    elif len(vals) != len(m):
        raise InputError(f"by= has {len(vals)} entries for {len(m)} aligned comparisons")
    names, g = np.unique(vals.astype(str), return_inverse=True)
    return g.ravel(), list(names)


def comparisons(reference, candidate, *, item, model_a, model_b, outcome, cluster, duplicates, by=None):
    """The aligned comparisons of two battle frames (and the aligned frame)."""
    if cluster is not None and not isinstance(cluster, str):
        raise InputError("cluster= must be a column name (of both frames) or None for agreement statistics")
    duplicates = check_duplicates(duplicates)
    keep = [by] if isinstance(by, str) else []
    cols = dict(item=item, model_a=model_a, model_b=model_b, outcome=outcome, keep=keep, cluster=cluster)
    rd, nmr, names_r, items_r = prepare_codes(reference, what="reference", **cols)
    cd, nmc, names_c, items_c = prepare_codes(candidate, what="candidate", **cols)
    warn_missing(nmr + nmc, "reference/candidate")
    (rd, cd), names, items = joint_codes([(rd, names_r, items_r), (cd, names_c, items_c)])
    m, info = _align(rd, cd, duplicates, names, items)
    info["n_missing"] = nmr + nmc
    if m.empty:
        raise InputError("the reference and candidate battles share no battle (item, model pair)",
                         fix="check the item ids and model names of both frames")
    m.attrs["names"] = names
    if cluster is None:
        unit = pd.factorize(pair_key(m["item"], m["lo"], m["hi"], len(names)))[0]
        kind = "items"
    else:
        unit = pd.factorize(m["cl__cand"].astype(str))[0]
        kind = "clusters"
    group, gnames = _groups_of(m, by)
    return Comparisons(m["code_ref"].to_numpy(), m["code_cand"].to_numpy(), m["w"].to_numpy(), np.asarray(unit),
                       kind, group, gnames, info["n_battles"], info), m


def agreement_result(name, res, names, pooled, specs, comp, policy, n_inv, group_key="group", skip_group=False):
    """A PairwiseResult from :func:`agreement_run`'s output."""
    out = PairwiseResult(name=name)
    for j, nm in enumerate(names):
        if not isinstance(nm[0], dict):
            g, r, s = nm
            _, mapping, w, _ = specs[r]
            Tk = mapping.T @ pooled[g] @ mapping
            n = Tk.sum()
            key = {} if skip_group else {group_key: comp.group_names[g]}
            key.update({"tie_rule": r})
            extra = {"n_comparisons": float(n), "agree": float((w * Tk).sum())}
        else:
            key, s, n, extra = dict(nm[0]), nm[1], nm[2], {}
        out.append_with(estimate(s, res, j, n), extra, **key)
    out.invalid = {"policy": policy, "n_invalid": n_inv}
    return out


def pairwise_agreement(reference: pd.DataFrame, candidate: pd.DataFrame, *, tie_rule: str | list = "all",
                       invalid: str = "drop", fdt_plain_tie: str = "tie", duplicates: str = "error", by: str | Sequence | None = None,
                       cluster: str | None = "item_id", item: str = "item_id", model_a: str = "model_a",
                       model_b: str = "model_b", outcome: str = "outcome", ci_method: str | None = DEFAULT_CI_METHOD,
                       n_resamples: int = DEFAULT_N_RESAMPLES, confidence_level: float = 0.95,
                       rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Agreement of a candidate (judge) with a reference (human) on the same battles, per tie rule.

    Battles are matched on (item, unordered model pair); a reference verdict given with the models
    in the other order is mirrored first (A ↔ B, tie_a ↔ tie_b), so that A and B refer to the order
    the candidate saw (agreement does not depend on that order; kappa's margins do).

    Parameters
    ----------
    reference : pandas.DataFrame
        Battles of the reference rater (human or gold labels).
    candidate : pandas.DataFrame
        Battles of the rater being checked (the judge).
    tie_rule : {"all", "fdt", "without_ties", "tie_zero", "tie_half", "exact"} or list
        ``"all"`` gives the four OpenING rules. ``exact`` requires the same of the five labels.
    invalid : {"drop", "tie", "loss", "keep"}
        A parse failure or refusal (on either side): left out, a plain tie, always a disagreement
        (even with another failure), or its own verdict (two failures agree).
    fdt_plain_tie : {"tie", "first", "drop"}
        A plain tie under FDT: its own verdict, forced to the side shown first (OpenING's
        ``force_divide_tie``), or left out.
    duplicates : {"error", "all"}
        Several rows for one battle (both presentation orders, several samples or annotators):
        an error, or every (reference row, candidate row) pair compared with weight
        1/(n_reference · n_candidate), so that each battle weighs 1 (LLMBar's ``correct_average``
        over the two orders). ``"raise"`` is the old spelling of ``"error"`` (FutureWarning).
    by : str or array-like, optional
        Group the comparisons (a column of either frame, or one value per aligned comparison); the
        groups come from the same bootstrap replicates.
    cluster : str or None
        Resample this column's values (default ``item_id``; the candidate's column); None
        resamples battles.
    item, model_a, model_b, outcome : str
        Column names (of both frames).
    ci_method : {"bca", "percentile", "basic"} or None
        None for the point estimates only.
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        Rows keyed by ``tie_rule`` (and ``group`` with ``by``): ``agreement`` (share of battles
        where both decide the same under the rule), ``cohen_kappa`` (unweighted on the rule's
        classes; linearly weighted on A/tie/B for ``tie_half``, whose agreement is the linearly
        weighted observed agreement), ``macro_f1`` (over the classes present, the reference as the
        truth). ``.info`` holds the alignment counts (``n_battles``, ``n_reference_only``,
        ``n_candidate_only`` ...).

    Notes
    -----
    OpenING (``calculate_agreement.py``): FDT compares sides after tie_a → A and tie_b → B; "with
    tie" (here ``tie_zero``) compares A / tie / B with leaning ties as ties; "without tie" leaves out
    every battle where either side says any tie. ``tie_half`` gives half credit when one side says
    tie and the other decides (by analogy with the tie-as-0.5 win rate).

    References
    ----------
    OpenING's agreement script, transcribed in ``tests/test_pairwise.py`` and reproduced exactly on
    ``battles_like``; scikit-learn ``cohen_kappa_score`` and ``f1_score``; PandaLM (Wang et al.,
    ICLR 2024: accuracy 0.7107, macro-F1 0.5755 of GPT-3.5 against the annotators' majority) and
    LLMBar's (Zeng et al., ICLR 2024) 289 published accuracies (``tests/test_pairwise_realdata.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> human = b[b.judge == "human"]
    >>> judge = b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]
    >>> r = metaeval.pairwise_agreement(human, judge, tie_rule="without_ties", ci_method=None)
    >>> e = r.get(statistic="agreement")
    >>> round(e.estimate, 3), e.n
    (0.714, 346)
    """
    _check_agreement_options(invalid, fdt_plain_tie, ci_method)
    rules = select_rules(tie_rule, "agreement")
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    comp, _ = comparisons(reference, candidate, item=item, model_a=model_a, model_b=model_b, outcome=outcome,
                          cluster=cluster, duplicates=duplicates, by=by)
    res, names, pooled, specs, n_inv = agreement_run(comp, rules, invalid, fdt_plain_tie, rs)
    warn_invalid(n_inv, invalid, "aligned")
    out = agreement_result("pairwise_agreement", res, names, pooled, specs, comp, invalid, n_inv,
                           skip_group=by is None)
    out.info = comp.info
    return out


def _unseen_models(reference, candidate, unseen_models, model_a, model_b):
    if unseen_models is not None:
        return {str(m) for m in unseen_models}
    for frame in (candidate, reference):
        if {"seen_a", "seen_b"} <= set(frame.columns):
            return set(frame.loc[pd.to_numeric(frame["seen_a"], errors="coerce") == 0, model_a].astype(str)) | set(
                frame.loc[pd.to_numeric(frame["seen_b"], errors="coerce") == 0, model_b].astype(str))
    raise InputError("pass unseen_models=, or battles with seen_a/seen_b columns (1 = seen, 0 = unseen)")


def _harmonic_mean_fn(pos, rules):
    def hm(base):
        cols = []
        for r in rules:
            s, u = base[:, pos[(0, r)]], base[:, pos[(1, r)]]
            with np.errstate(invalid="ignore", divide="ignore"):
                cols.append(np.where(s + u > 0, 2 * s * u / (s + u), np.nan))
        return np.stack(cols, axis=1)
    return hm


def seen_unseen_agreement(reference: pd.DataFrame, candidate: pd.DataFrame, *, unseen_models: Sequence[str] | None = None,
                          tie_rule: str | list = "all", invalid: str = "drop", fdt_plain_tie: str = "tie",
                          duplicates: str = "error", cluster: str | None = "item_id", item: str = "item_id",
                          model_a: str = "model_a", model_b: str = "model_b", outcome: str = "outcome",
                          ci_method: str | None = DEFAULT_CI_METHOD, n_resamples: int = DEFAULT_N_RESAMPLES,
                          confidence_level: float = 0.95, rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Agreement on battles between seen models, on battles with an unseen model, and their harmonic mean.

    As OpenING reports it: a battle is *unseen* when either model is unseen (not in the judge's
    training data), *seen* otherwise; the harmonic mean is 2·s·u/(s + u). All three come from the
    same bootstrap replicates.

    Parameters
    ----------
    reference : pandas.DataFrame
        Battles of the reference rater (human).
    candidate : pandas.DataFrame
        Battles of the judge.
    unseen_models : sequence of str, optional
        The unseen models. By default, from the ``seen_a``/``seen_b`` columns (0 = unseen) of the
        candidate frame (or, without them, of the reference frame).
    tie_rule : str or list
        As for :func:`metaeval.pairwise_agreement`.
    invalid : {"drop", "tie", "loss", "keep"}
    fdt_plain_tie : {"tie", "first", "drop"}
    duplicates : {"error", "all"}
    cluster : str or None
    item, model_a, model_b, outcome : str
        Column names (of both frames).
    ci_method : {"bca", "percentile", "basic"} or None
        None for the point estimates only.
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        ``agreement`` (and ``cohen_kappa``, ``macro_f1`` per group) with keys ``group`` (``seen``,
        ``unseen``, ``harmonic_mean``) and ``tie_rule``; the unseen models in ``.info``.

    References
    ----------
    OpenING (Zhou et al. 2024), ``calculate_agreement.py``; ``data_samples/README.md`` §4: seen 0.735
    (117 battles), unseen 0.703 (229) without ties (``tests/test_pairwise.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> human = b[b.judge == "human"]
    >>> judge = b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]
    >>> r = metaeval.seen_unseen_agreement(human, judge, tie_rule="without_ties", ci_method=None)
    >>> [round(r.get(statistic="agreement", group=g).estimate, 3) for g in ("seen", "unseen", "harmonic_mean")]
    [0.735, 0.703, 0.719]
    """
    _check_agreement_options(invalid, fdt_plain_tie, ci_method)
    rules = select_rules(tie_rule, "agreement")
    need_frame(reference, "reference")
    need_frame(candidate, "candidate")
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    unseen = _unseen_models(reference, candidate, unseen_models, model_a, model_b)
    comp, m = comparisons(reference, candidate, item=item, model_a=model_a, model_b=model_b, outcome=outcome,
                          cluster=cluster, duplicates=duplicates)
    is_unseen_model = np.isin(m.attrs["names"].astype(str), list(unseen))
    is_unseen = is_unseen_model[m["lo"].to_numpy()] | is_unseen_model[m["hi"].to_numpy()]
    comp.group = np.where(is_unseen, 1, 0)
    comp.group_names = ["seen", "unseen"]
    specs = _specs(rules, invalid, fdt_plain_tie)
    pos, j = {}, 0                        # positions of the agreement columns for each group and rule
    for g in range(2):
        for r in rules:
            pos[(g, r)] = j
            j += len(stat_names(specs[r][3]))
    extra_names = [({"group": "harmonic_mean", "tie_rule": r}, "agreement", float(comp.weight.sum())) for r in rules]
    res, names, pooled, specs, n_inv = agreement_run(comp, rules, invalid, fdt_plain_tie, rs,
                                                     extra_fn=_harmonic_mean_fn(pos, rules), extra_names=extra_names)
    warn_invalid(n_inv, invalid, "aligned")
    out = agreement_result("seen_unseen_agreement", res, names, pooled, specs, comp, invalid, n_inv)
    n_of = {(k["group"], k["tie_rule"]): e.n for e, k in zip(out, out.keys) if e.statistic == "agreement"}
    for i, (e, k) in enumerate(zip(out, out.keys)):
        if k["group"] == "harmonic_mean":
            n = n_of[("seen", k["tie_rule"])] + n_of[("unseen", k["tie_rule"])]
            list.__setitem__(out, i, dataclasses.replace(e, n=int(n)))
            out.extras[i] = {"n_comparisons": float(n)}
    out.info = {**comp.info, "unseen_models": sorted(unseen)}
    return out


def _pooled_comparisons(df, rater, cluster, cols):
    """Every pair of ratings of the same battle by two raters, each battle weighing 1."""
    d, _ = prepare(df, keep=[rater], cluster=cluster, **cols)
    lo, hi, _, flip = orient(d)
    f = pd.DataFrame({"item": d["item"], "lo": lo, "hi": hi, "raw": d["code"].to_numpy(), "flip": flip,
                      "r": d[rater].astype(str)})
    if cluster is not None:
        f["cl"] = d["cl"].to_numpy()
    key = ["item", "lo", "hi"]
    m = f.merge(f, on=key, suffixes=("_1", "_2"))
    m = m[m["r_1"] < m["r_2"]]
    if m.empty:
        raise InputError("no battle was judged by two raters")
    npairs = m.groupby(key).size().rename("np")
    m = m.join(npairs, on=key)
    if cluster is None:
        unit, kind = pd.factorize(m["item"] + "\x1f" + m["lo"] + "\x1f" + m["hi"])[0], "items"
    else:
        unit, kind = pd.factorize(m["cl_1"])[0], "clusters"
    ref_c, cand_c = relative(m["raw_1"].to_numpy(), m["flip_1"].to_numpy(), m["raw_2"].to_numpy(),
                             m["flip_2"].to_numpy())
    return Comparisons(ref_c, cand_c, (1.0 / m["np"]).to_numpy(), np.asarray(unit), kind,
                       np.zeros(len(m), dtype=np.int64), ["all pairs"], int(len(npairs)), {})


def inter_rater_agreement(battles: pd.DataFrame, *, rater: str = "judge", tie_rule: str | list = "all",
                          invalid: str = "drop", fdt_plain_tie: str = "tie", cluster: str | None = "item_id",
                          item: str = "item_id", model_a: str = "model_a", model_b: str = "model_b",
                          outcome: str = "outcome", ci_method: str | None = DEFAULT_CI_METHOD,
                          n_resamples: int = DEFAULT_N_RESAMPLES, confidence_level: float = 0.95,
                          rng: int | np.random.Generator | None = None) -> PairwiseResult:
    """Agreement between raters on the battles they judged in common: the human ceiling.

    For every pair of raters (values of the ``rater`` column) that share battles, the agreement,
    Cohen's kappa and macro-F1 under each tie rule, as :func:`metaeval.pairwise_agreement` computes
    them (the first rater in sorted order as the reference); plus a pooled row (``rater_a = rater_b
    = "all pairs"``) over every pair of ratings of each battle, each battle weighing 1.

    Parameters
    ----------
    battles : pandas.DataFrame
        Battles of several raters, one row per rater and battle.
    rater : str
        The column naming the rater.
    tie_rule : str or list
        As for :func:`metaeval.pairwise_agreement`.
    invalid : {"drop", "tie", "loss", "keep"}
    fdt_plain_tie : {"tie", "first", "drop"}
    cluster : str or None
    item, model_a, model_b, outcome : str
        Column names.
    ci_method : {"bca", "percentile", "basic"} or None
        None for the point estimates only.
    n_resamples : int
    confidence_level : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairwiseResult
        Rows keyed by ``rater_a``, ``rater_b`` and ``tie_rule``.

    References
    ----------
    PandaLM's published inter-annotator kappas (0.85, 0.88, 0.86; from its files 0.8520 / 0.8789 /
    0.8617) and scikit-learn ``cohen_kappa_score`` (``tests/test_pairwise*.py``).

    Examples
    --------
    >>> import pandas as pd, metaeval
    >>> b = pd.DataFrame({"item_id": [str(i) for i in range(4)] * 2, "model_a": "x", "model_b": "y",
    ...                   "judge": ["r1"] * 4 + ["r2"] * 4, "outcome": ["A", "B", "A", "tie", "A", "B", "B", "tie"]})
    >>> r = metaeval.inter_rater_agreement(b, tie_rule="tie_zero", ci_method=None)
    >>> r.get(statistic="agreement", rater_a="r1", rater_b="r2").estimate
    0.75
    """
    df = need_frame(battles)
    if rater not in df.columns:
        raise InputError(f"no rater column {rater!r}", fix="pass rater= the column naming the annotator")
    _check_agreement_options(invalid, fdt_plain_tie, ci_method)
    raters = sorted(df[rater].astype(str).unique())
    if len(raters) < 2:
        raise InputError(f"inter-rater agreement needs at least two raters, got {raters}")
    rs = Resampler(ci_method=ci_method, n_resamples=n_resamples, confidence_level=confidence_level, rng=rng)
    out = PairwiseResult(name="inter_rater_agreement")
    rules = select_rules(tie_rule, "agreement")
    cols = dict(item=item, model_a=model_a, model_b=model_b, outcome=outcome)
    kw = dict(tie_rule=rules, invalid=invalid, fdt_plain_tie=fdt_plain_tie, cluster=cluster, ci_method=ci_method,
              n_resamples=n_resamples, confidence_level=confidence_level, **cols)
    n_pairs = 0
    for r1, r2 in itertools.combinations(raters, 2):
        d1 = df[df[rater].astype(str) == r1]
        d2 = df[df[rater].astype(str) == r2]
        try:
            res = pairwise_agreement(d1, d2, duplicates="all", rng=rs.gen, **kw)
        except InputError:
            continue                      # no battle in common
        for e, k, x in zip(res, res.keys, res.extras):          # the call's seed reproduces every pair
            out.append_with(dataclasses.replace(e, seed=rs.seed) if e.n_resamples else e, x, rater_a=r1, rater_b=r2,
                            **k)
        n_pairs += 1
    if not n_pairs:
        raise InputError("no two raters judged a battle in common")
    comp = _pooled_comparisons(df, rater, cluster, cols)
    res, names, pooled, specs, n_inv = agreement_run(comp, rules, invalid, fdt_plain_tie, rs)
    pooled_res = agreement_result("", res, names, pooled, specs, comp, invalid, n_inv, skip_group=True)
    for e, k, x in zip(pooled_res, pooled_res.keys, pooled_res.extras):
        out.append_with(e, x, rater_a="all pairs", rater_b="all pairs", **k)
    out.invalid = {"policy": invalid}
    out.info = {"raters": raters, "n_battles_multi": comp.n_battles}
    return out


def pairwise_confusion(reference: pd.DataFrame, candidate: pd.DataFrame, *, tie_rule: str = "tie_zero",
                       invalid: str = "drop", fdt_plain_tie: str = "tie", duplicates: str = "error",
                       item: str = "item_id", model_a: str = "model_a", model_b: str = "model_b",
                       outcome: str = "outcome") -> pd.DataFrame:
    """The reference × candidate table of verdicts under a tie rule (rows: reference, columns: candidate).

    Parameters
    ----------
    reference : pandas.DataFrame
        Battles of the reference rater (human); its verdicts are the rows.
    candidate : pandas.DataFrame
        Battles of the judge; its verdicts are the columns.
    tie_rule : str
        One rule of :func:`metaeval.pairwise_agreement`.
    invalid : {"drop", "tie", "loss", "keep"}
    fdt_plain_tie : {"tie", "first", "drop"}
    duplicates : {"error", "all"}
    item, model_a, model_b, outcome : str
        Column names (of both frames).

    Returns
    -------
    pandas.DataFrame
        Counts (weights, with ``duplicates="all"``); index named ``reference``, columns named
        ``candidate``. Pass ``table=frame.to_numpy()`` to :func:`metaeval.per_class` for per-class
        precision and recall (the reference as the truth).

    References
    ----------
    A ``pandas.crosstab`` of the mapped verdicts (``tests/test_pairwise.py``); PandaLM's published
    macro precision/recall (``tests/test_pairwise_realdata.py``).

    Examples
    --------
    >>> import metaeval
    >>> b = metaeval.datasets.load("battles_like").battles
    >>> human = b[b.judge == "human"]
    >>> judge = b[(b.judge == "judge") & (b.swapped == 0) & (b.outcome != "invalid")]
    >>> metaeval.pairwise_confusion(human, judge)
    candidate      A   tie      B
    reference
    A          138.0  46.0   32.0
    tie         66.0  34.0   48.0
    B           67.0  58.0  109.0
    """
    rules = select_rules(tie_rule, "agreement")
    if len(rules) != 1:
        raise ValueError("pairwise_confusion takes one tie rule")
    _check_agreement_options(invalid, fdt_plain_tie, None)
    comp, _ = comparisons(reference, candidate, item=item, model_a=model_a, model_b=model_b, outcome=outcome,
                          cluster=None, duplicates=duplicates)
    ref, cand, w, _, _, _ = _apply_policy(comp, invalid)
    T7 = np.zeros((NC, NC))
    np.add.at(T7, (ref, cand), w)
    labels, mapping, _, _ = lookup_rule(rules[0], plain_tie=fdt_plain_tie).agreement_spec(invalid)
    Tk = mapping.T @ T7 @ mapping
    return pd.DataFrame(Tk, index=pd.Index(labels, name="reference"), columns=pd.Index(labels, name="candidate"))
