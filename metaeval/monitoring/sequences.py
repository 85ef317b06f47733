"""Confidence sequences for agreement statistics: intervals that hold at every sample size at once.

A fixed-sample 95% interval recomputed after every new pair is not a 95% procedure: looked at
continuously, the chance that it ever excludes the truth grows with the number of looks (about one
half of drift-free streams of 5,000 pairs; ``benchmarks/coverage_monitor.py``). A *confidence
sequence* (CS) is a sequence of intervals ``[L_n, U_n]`` with ``P(for all n: θ ∈ [L_n, U_n]) ≥ 1 − α``.

The building block is the two-sided beta-binomial mixture boundary for a [0, 1]-bounded mean (Howard,
Ramdas, McAuliffe & Sekhon 2021, *Ann. Statist.* 49(2), Prop. 7 with the sub-Bernoulli range
``g = p``, ``h = 1 − p``), the boundary that ``confseq.boundaries.bernoulli_confidence_interval``
computes; it is equal to it on the same data (``tests/reference/make_reference_confseq.py``). The
state is a running sum and a count, so each update is O(1); the interval at a look costs one
vectorised bisection, whatever the length of the stream.

Chance-corrected statistics (Cohen's κ, Krippendorff's α) are smooth functions of several means: the
observed agreement and the category margins. Their CS is a union bound: a CS at level ``α / m`` for
each of the ``m`` means, and the range of the statistic over the resulting box. Valid at every look,
conservative (its width is measured in the docs page *Watch a deployed judge*).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from scipy import special
from scipy.optimize.elementwise import find_root

from ..core.errors import InputError

__all__ = ["bernoulli_cs", "agreement_sequence", "SEQUENCE_STATISTICS"]

#: The statistics :func:`agreement_sequence` follows, and the subsequence each is a mean over.
SEQUENCE_STATISTICS = {
    "accuracy": "all pairs: the judge gives the human label",
    "sensitivity": "pairs the human calls positive: the judge says positive",
    "specificity": "pairs the human calls negative: the judge says negative",
    "ppv": "pairs the judge calls positive: the human says positive",
    "npv": "pairs the judge calls negative: the human says negative",
    "cohen_kappa": "union bound over the observed agreement and both raters' margins",
    "krippendorff_alpha": "nominal, two raters: union bound over the observed agreement and the pooled margins",
}

#: The horizon the mixture is tuned for when none is given: the boundary is tightest near this n
#: and valid everywhere (Howard et al. 2021, section 3.5).
DEFAULT_T_OPT = 1000


def _two_sided_rho(v: float, alpha: float) -> float:
    # Howard et al. (2021), eq. (16): the normal-mixture precision that minimises the boundary at v
    la = np.log(1 / alpha)
    return v / (2 * la + np.log(1 + 2 * la))


def _log_mixture(p, phat, n, t_opt, alpha_opt):
    """log of the beta-binomial mixture supermartingale at candidate means ``p`` (vectorised)."""
    g, h = p, 1 - p
    v_opt = p * (1 - p) * t_opt
    rho = _two_sided_rho(v_opt, alpha_opt)
    r = np.maximum(rho - g * h, 1e-3 * g * h)
    s = (phat - p) * n
    v = p * (1 - p) * n
    a0, b0 = r / (g * (g + h)), r / (h * (g + h))
    a1, b1 = (r + v - g * s) / (g * (g + h)), (r + v + h * s) / (h * (g + h))
    return (v / (g * h) * np.log(g + h) - ((v + h * s) / (h * (g + h))) * np.log(g)
            - ((v - g * s) / (g * (g + h))) * np.log(h) + special.betaln(a1, b1) - special.betaln(a0, b0))


def bernoulli_cs(successes, n, *, alpha: float = 0.05, t_opt: float = DEFAULT_T_OPT,
                 alpha_opt: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Confidence-sequence bounds for a [0, 1]-bounded mean at each look.

    Parameters
    ----------
    successes : array_like
        The running sum of the observations (for 0/1 data: the number of successes) at each look.
    n : array_like
        The number of observations at each look (same shape; a zero gives the interval [0, 1]).
    alpha : float, default 0.05
        One minus the simultaneous coverage over all looks.
    t_opt : float, default 1000
        The sample size at which the boundary is tightest (the mixture's tuning); valid at every n.
    alpha_opt : float, optional
        The level the mixture is tuned for (default: ``alpha``).

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        The bounds at each look.

    Notes
    -----
    The set ``{p : M_n(p) < 1/α}`` with ``M_n`` the two-sided beta-binomial mixture of Howard,
    Ramdas, McAuliffe & Sekhon (2021, Prop. 7; sub-Bernoulli range ``g = p``, ``h = 1 − p``), found
    by bisection on each side of the sample mean to 2⁻⁴⁰ relative precision. By Ville's inequality
    the mean lies in every interval at once with probability at least ``1 − α``, for any
    [0, 1]-valued observations with a constant conditional mean.

    References
    ----------
    Howard, Ramdas, McAuliffe & Sekhon (2021), "Time-uniform, nonparametric, nonasymptotic confidence
    sequences", *Annals of Statistics* 49(2), 1055–1080. Checked against confseq 0.0.11's
    ``bernoulli_confidence_interval`` (``tests/reference/confseq_values.json``).

    Examples
    --------
    >>> from metaeval.monitoring.sequences import bernoulli_cs
    >>> low, high = bernoulli_cs([80, 800], [100, 1000], alpha=0.05)
    >>> [round(float(x), 3) for x in low], [round(float(x), 3) for x in high]
    ([0.618, 0.76], [0.918, 0.837])
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}", fix="pass alpha=0.05")
    alpha_opt = alpha if alpha_opt is None else alpha_opt
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    s, n = np.broadcast_arrays(s, n)
    phat = np.divide(s, n, out=np.zeros(s.shape), where=n > 0)
    threshold = math.log(1 / alpha)
    low = np.zeros(s.shape)
    high = np.ones(s.shape)
    eps = 1e-12
    for side in ("low", "high"):
        # the mean is inside the sequence at the sample mean and outside near 0 and 1: a bracketed
        # root on each side (Chandrupatla's method, vectorised over the looks)
        need = (n > 0) & ((phat > eps) if side == "low" else (phat < 1 - eps))
        if not need.any():
            continue
        ph, nn = phat[need], n[need]
        end = np.full(ph.shape, eps if side == "low" else 1 - eps)
        f_end = _margin(end, ph, nn, t_opt, alpha_opt, threshold)
        root = end.copy()  # where even the end is inside, the bound is the end of [0, 1]
        start = np.clip(ph, eps, 1 - eps)
        go = (f_end > 0) & (_margin(start, ph, nn, t_opt, alpha_opt, threshold) < 0)
        root = np.where((f_end > 0) & ~go, start, root)
        if go.any():
            lo_b, hi_b = (end[go], start[go]) if side == "low" else (start[go], end[go])
            res = find_root(_margin, (lo_b, hi_b), args=(ph[go], nn[go], t_opt, alpha_opt, threshold),
                            tolerances={"xatol": 1e-15, "xrtol": 2.0 ** -40})
            root[go] = res.x
        root = np.where(root == eps, 0.0, np.where(root == 1 - eps, 1.0, root))
        (low if side == "low" else high)[need] = root
    return low, high


def _margin(p, phat, n, t_opt, alpha_opt, threshold) -> np.ndarray:
    """log M_n(p) − log(1/α): positive where the candidate mean ``p`` is outside the sequence."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        val = _log_mixture(p, phat, n, t_opt, alpha_opt) - threshold
    return np.where(np.isfinite(val), val, 1e300)


def _labels_of(reference, judge, order):
    """The two label arrays in arrival order, from arrays, a frame or a Paired."""
    from ..data.alignment import Paired

    if isinstance(reference, Paired):
        if judge is not None:
            raise InputError("a Paired set holds both label sets; pass it alone",
                             fix="call agreement_sequence(paired) without a second argument")
        frame = reference.data
    elif isinstance(reference, pd.DataFrame):
        if judge is not None:
            raise InputError("a frame of pairs holds both label sets; pass it alone",
                             fix="call agreement_sequence(frame) with columns 'reference' and 'candidate'")
        frame = reference
    else:
        if judge is None:
            raise InputError("agreement_sequence needs the judge's labels",
                             fix="pass agreement_sequence(reference, judge)")
        if order is not None:
            raise InputError("order= names a column of a frame of pairs, but two arrays were given",
                             fix="pass the arrays already in arrival order, or a frame with an order column")
        ref, jud = np.asarray(reference, dtype=object).ravel(), np.asarray(judge, dtype=object).ravel()
        if len(ref) != len(jud):
            raise InputError(f"the two label arrays differ in length: {len(ref)} reference and {len(jud)} judge labels",
                             fix="pass one judge label per reference label, in arrival order")
        return ref, jud, None
    missing = [c for c in ("reference", "candidate") if c not in frame.columns]
    if missing:
        raise InputError(f"the frame of pairs has no column {missing[0]!r} (columns: {list(frame.columns)[:8]})",
                         fix="name the human labels 'reference' and the judge's 'candidate', as metaeval.align does")
    if order is not None:
        if order not in frame.columns:
            raise InputError(f"order={order!r} is not a column of the pairs (columns: {list(frame.columns)[:8]})",
                             fix="pass order= the name of the arrival-time column")
        frame = frame.iloc[_arrival_order(frame[order], order)]
    return frame["reference"].to_numpy(dtype=object), frame["candidate"].to_numpy(dtype=object), frame


def _arrival_order(values, name: str, source: str | None = None) -> np.ndarray:
    """The positions of the rows in arrival order (stable), sorted by the column's numbers or times, never its text.

    A column read from a file holds text: timestamps that are not ISO 8601 (``12/31/2025 23:00``) sort
    wrongly as text, and a numeric coercion turns every one of them into NaN (file order, silently).
    A value that is neither a number nor a time, or a missing one, is an error naming its row.
    """
    s = pd.Series(values).reset_index(drop=True)
    miss = s.isna().to_numpy()
    if miss.any():
        i = int(np.flatnonzero(miss)[0])
        raise InputError(f"row {i + 1} of the arrival-order column {name!r} is empty; {int(miss.sum())} row(s) "
                         "have no arrival time", source=source,
                         fix="give every item its arrival time or counter, or drop the items without one")
    if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_datetime64_any_dtype(s):
        return s.sort_values(kind="stable").index.to_numpy()
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().all():
        return num.sort_values(kind="stable").index.to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = pd.to_datetime(s.astype(str), errors="coerce", format="mixed", utc=True)
        except (ValueError, TypeError, OverflowError):
            t = pd.Series(pd.NaT, index=s.index)
    if t.notna().all():
        return t.sort_values(kind="stable").index.to_numpy()
    i = int(np.flatnonzero((num.isna() & t.isna()).to_numpy())[0])
    raise InputError(f"the arrival-order column {name!r} holds {s.iloc[i]!r} (row {i + 1}), neither a number nor "
                     "a time", source=source, fix="name a column of arrival times (e.g. 2026-01-31T09:00) or counters")


def _check_complete(ref, jud):
    for name, arr in (("reference", ref), ("judge", jud)):
        bad = pd.isna(pd.Series(arr)).to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"the {name} label of pair {i + 1} (in arrival order) is missing; "
                             f"{int(bad.sum())} pair(s) lack a {name} label",
                             fix="drop incomplete pairs before streaming them (metaeval.align reports them), "
                                 "or fill them with a label")


def _positive_of(ref, jud, positive):
    if positive is not None:
        return positive
    values = set(pd.unique(np.concatenate([ref, jud])))
    if values <= {0, 1} or values <= {False, True}:
        return 1
    raise InputError(f"the labels are not binary ({sorted(map(str, values))[:6]}); the statistic needs a positive class",
                     fix="pass positive= the label that counts as positive (e.g. positive=1), or binarize the labels first")


def _looks(n_total: int, every: int) -> np.ndarray:
    if not isinstance(every, (int, np.integer)) or isinstance(every, bool) or every < 1:
        raise InputError(f"every must be a positive integer, got {every!r}", fix="pass every=1 (a look after each pair)")
    looks = np.arange(every, n_total + 1, every)
    if n_total and (len(looks) == 0 or looks[-1] != n_total):
        looks = np.append(looks, n_total)
    return looks


def _box(indicators: np.ndarray, looks: np.ndarray, alpha: float, t_opt: float):
    """Running means of each indicator column at the looks, and their CS bounds at level alpha each."""
    sums = np.cumsum(indicators, axis=0)[looks - 1]
    n = np.broadcast_to(looks[:, None].astype(float), sums.shape)
    low, high = bernoulli_cs(sums, n, alpha=alpha, t_opt=t_opt)
    return sums / n, low, high


def _pe_range(r_lo, r_hi, c_lo, c_hi):
    """The range of p_e = Σ r_k c_k over the box of margins (exact at K = 2, conservative above)."""
    if r_lo.shape[1] == 1:  # two categories: p_e = r c + (1 − r)(1 − c), bilinear: extremes at corners
        corners = [r * c + (1 - r) * (1 - c) for r in (r_lo[:, 0], r_hi[:, 0]) for c in (c_lo[:, 0], c_hi[:, 0])]
        return np.min(corners, axis=0), np.max(corners, axis=0)
    return (r_lo * c_lo).sum(axis=1), np.minimum(1.0, (r_hi * c_hi).sum(axis=1))


def _q_range(p_lo, p_hi):
    """The range of Q = Σ π_k² over the box of pooled margins (exact at K = 2, conservative above)."""
    if p_lo.shape[1] == 1:
        q = lambda p: p ** 2 + (1 - p) ** 2
        lo = q(np.clip(0.5, p_lo[:, 0], p_hi[:, 0]))
        return lo, np.maximum(q(p_lo[:, 0]), q(p_hi[:, 0]))
    return (p_lo ** 2).sum(axis=1), np.minimum(1.0, (p_hi ** 2).sum(axis=1))


def _categories(ref, jud) -> np.ndarray:
    """The labels both raters use, sorted (by their text when they do not compare)."""
    cats = pd.unique(np.concatenate([ref, jud]))
    try:
        return np.array(sorted(cats))
    except TypeError:
        return np.array(sorted(cats, key=str), dtype=object)


def _codes(cats: np.ndarray, labels) -> np.ndarray:
    """Each label's position in ``cats``."""
    if cats.dtype != object:
        return np.searchsorted(cats, labels)
    where = {v: i for i, v in enumerate(cats)}
    return np.array([where[v] for v in labels], dtype=np.int64)


def _running_tables(ri: np.ndarray, ji: np.ndarray, k: int, looks: np.ndarray) -> np.ndarray:
    """The K × K tables (rows: reference, columns: judge), flattened, of the pairs up to each look."""
    cells = np.zeros((len(ri), k * k))
    cells[np.arange(len(ri)), np.asarray(ri) * k + np.asarray(ji)] = 1.0
    return np.cumsum(cells, axis=0)[looks - 1]


def _registry_estimate(name: str, tables: np.ndarray, component: str) -> np.ndarray:
    """The registry's statistic ``name`` on each running table (its entry ``component``)."""
    from ..core import registry

    k = int(round(np.sqrt(tables.shape[1])))
    bound = registry.resolve(name)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(bound.kernel(k)(tables), dtype=float)
    if values.ndim == 2:
        values = values[:, bound.components(k).index(component)]
    return values


def agreement_sequence(reference, judge=None, *, statistic: str = "accuracy", confidence_level: float = 0.95,
                       every: int = 1, order: str | None = None, positive=None, cluster=None,
                       t_opt: float | None = None) -> pd.DataFrame:
    """A confidence sequence for an agreement statistic over a stream of (human, judge) pairs.

    Parameters
    ----------
    reference : array_like, pandas.DataFrame or Paired
        The human labels in arrival order; or a frame of pairs with columns ``reference`` and
        ``candidate`` (the schema of :func:`metaeval.align`'s ``Paired.data``), or a ``Paired``.
    judge : array_like, optional
        The judge's labels, one per reference label (only with arrays).
    statistic : str, default "accuracy"
        One of ``"accuracy"``, ``"sensitivity"``, ``"specificity"``, ``"ppv"``, ``"npv"``,
        ``"cohen_kappa"``, ``"krippendorff_alpha"`` (nominal, two raters).
    confidence_level : float, default 0.95
        The probability that the statistic lies in every interval of the sequence at once.
    every : int, default 1
        A look after every ``every`` pairs (and one after the last pair).
    order : str, optional
        With a frame: the column giving the arrival order (a timestamp or a counter); rows are
        sorted by it (stable). Default: the frame's row order.
    positive : label, optional
        The positive class for sensitivity, specificity, PPV and NPV (default 1 when the labels are
        0/1 or boolean).
    cluster : array_like or str, optional
        Refused: pairs from one topic are not independent, and the sequence assumes they are. The
        error says what to do instead.
    t_opt : float, optional
        The sample size at which the boundary is tuned to be tightest (default: the stream's
        length; the choice depends only on the length, never on the labels, so the sequence stays
        valid at every n). When a growing stream is re-run day after day, pass the same ``t_opt``
        each time (e.g. the length expected at the horizon): with the default each re-run is tuned to
        its own length, and the last rows of successive re-runs are not one confidence sequence.

    Returns
    -------
    pandas.DataFrame
        One row per look: ``n`` (pairs so far), ``n_used`` (pairs the statistic is a mean over:
        e.g. human positives for sensitivity), ``estimate``, ``ci_low``, ``ci_high``,
        ``statistic``, ``confidence_level``. ``frame.attrs["method"]`` describes the construction.

    Notes
    -----
    Accuracy, sensitivity, specificity, PPV and NPV are means of a 0/1 indicator over all pairs or
    over a subsequence chosen by one rater's label; their sequence is the beta-binomial mixture
    boundary of Howard et al. (2021) (:func:`metaeval.monitoring.sequences.bernoulli_cs`, equal to
    confseq's). Cohen's κ = (p_o − p_e)/(1 − p_e) increases with the observed agreement p_o and
    decreases with the chance agreement p_e = Σ_k r_k c_k, so with confidence sequences at level
    α/m for p_o and the m − 1 margin means, κ lies between (p_o,low − p_e,high)/(1 − p_e,high) and
    (p_o,high − p_e,low)/(1 − p_e,low) at every look with probability ≥ 1 − α (a union bound; exact
    range over the box for two categories, conservative beyond). Krippendorff's α (nominal, two
    raters) is 1 − (1 − p_o)/(1 − Σ_k π_k²) in the population, with π_k the pooled margins; the same
    union bound over p_o and the pooled margins gives its sequence. The ``estimate`` column is the
    sample statistic at each look, computed by the registry's kernel of ``cohen_kappa`` or
    ``krippendorff_alpha`` (nominal) on the running table.

    References
    ----------
    Howard, Ramdas, McAuliffe & Sekhon (2021), *Annals of Statistics* 49(2). Waudby-Smith & Ramdas
    (2024), "Estimating means of bounded random variables by betting", *JRSS B* 86(1). The
    proportion case is checked against confseq 0.0.11; the κ and α sequences' coverage by
    simulation (``benchmarks/coverage_monitor.py``).

    Examples
    --------
    >>> import numpy as np
    >>> import metaeval as me
    >>> rng = np.random.default_rng(0)
    >>> human = rng.integers(0, 2, 2000)
    >>> judge = np.where(rng.random(2000) < 0.85, human, 1 - human)
    >>> seq = me.agreement_sequence(human, judge, statistic="cohen_kappa", every=500)
    >>> seq[["n", "estimate", "ci_low", "ci_high"]].round(3)
          n  estimate  ci_low  ci_high
    0   500     0.691   0.539    0.802
    1  1000     0.705   0.614    0.781
    2  1500     0.697   0.625    0.759
    3  2000     0.707   0.646    0.760
    """
    if statistic not in SEQUENCE_STATISTICS:
        raise InputError(f"unknown statistic {statistic!r} for a confidence sequence",
                         fix=f"pass statistic= one of {', '.join(repr(s) for s in SEQUENCE_STATISTICS)}")
    if not (isinstance(confidence_level, (int, float)) and 0 < confidence_level < 1):
        raise InputError(f"confidence_level must be in (0, 1), got {confidence_level!r}",
                         fix="pass confidence_level=0.95")
    if cluster is not None:
        raise InputError("a confidence sequence over pairs assumes the pairs arrive independently, and pairs of "
                         "one topic do not (their agreement is correlated)",
                         fix="stream anchor pairs sampled independently across topics (one pair per topic draw), "
                             "or follow a per-topic rate as the statistic")
    ref, jud, _ = _labels_of(reference, judge, order)
    _check_complete(ref, jud)
    n_total = len(ref)
    looks = _looks(n_total, every)
    alpha = 1 - confidence_level
    t_opt = float(max(n_total, 1) if t_opt is None else t_opt)
    if not t_opt > 0:
        raise InputError(f"t_opt must be positive, got {t_opt!r}", fix="leave t_opt unset (the stream's length)")
    out = pd.DataFrame({"n": looks.astype(np.int64)})
    if n_total == 0:
        out = out.assign(n_used=np.int64(0), estimate=np.nan, ci_low=np.nan, ci_high=np.nan)
    elif statistic in ("accuracy", "sensitivity", "specificity", "ppv", "npv"):
        # the confidence sequence: a mean of a 0/1 outcome over a subsequence chosen by one rater
        agree = np.asarray([a == b for a, b in zip(ref, jud)], dtype=float)
        if statistic == "accuracy":
            use, x = np.ones(n_total, dtype=bool), agree
            cats = _categories(ref, jud)
            tables, name = _running_tables(_codes(cats, ref), _codes(cats, jud), len(cats), looks), \
                "observed_agreement"
        else:
            pos = _positive_of(ref, jud, positive)
            rp = np.asarray([v == pos for v in ref])
            jp = np.asarray([v == pos for v in jud])
            given, outcome = {"sensitivity": (rp, jp), "specificity": (~rp, ~jp),
                              "ppv": (jp, rp), "npv": (~jp, ~rp)}[statistic]
            use, x = given, outcome.astype(float)
            # 2 x 2 tables with the positive class second, as the registry's binary_metrics reads them
            tables, name = _running_tables(rp.astype(np.int64), jp.astype(np.int64), 2, looks), "binary_metrics"
        counts = np.cumsum(use)[looks - 1]
        sums = np.cumsum(np.where(use, x, 0.0))[looks - 1]
        low, high = bernoulli_cs(sums, counts, alpha=alpha, t_opt=t_opt)
        # the estimate: the registry's kernel on the running table (one definition of each statistic)
        est = _registry_estimate(name, tables, statistic)
        low = np.where(counts > 0, low, 0.0)
        high = np.where(counts > 0, high, 1.0)
        out = out.assign(n_used=counts.astype(np.int64), estimate=est, ci_low=low, ci_high=high)
    else:
        cats = _categories(ref, jud)
        k = len(cats)
        agree = np.asarray([a == b for a, b in zip(ref, jud)], dtype=float)
        free = cats[1:] if k == 2 else cats
        R = np.stack([np.asarray([v == c for v in ref], dtype=float) for c in free], axis=1)
        C = np.stack([np.asarray([v == c for v in jud], dtype=float) for c in free], axis=1)
        # the estimate at each look: the registry's kernel on the running K × K table (one definition)
        tables = _running_tables(_codes(cats, ref), _codes(cats, jud), k, looks)
        name = "cohen_kappa" if statistic == "cohen_kappa" else "krippendorff_alpha_nominal"
        est = _registry_estimate(name, tables, name)
        if statistic == "cohen_kappa":
            m = 1 + 2 * R.shape[1]
            a = alpha / m
            po, po_lo, po_hi = _box(agree[:, None], looks, a, t_opt)
            r, r_lo, r_hi = _box(R, looks, a, t_opt)
            c, c_lo, c_hi = _box(C, looks, a, t_opt)
            pe_lo, pe_hi = _pe_range(r_lo, r_hi, c_lo, c_hi)
            po, po_lo, po_hi = po[:, 0], po_lo[:, 0], po_hi[:, 0]
            with np.errstate(divide="ignore", invalid="ignore"):
                low = np.where(pe_hi < 1, (po_lo - pe_hi) / (1 - pe_hi), -1.0)
                high = np.where(pe_lo < 1, (po_hi - pe_lo) / (1 - pe_lo), 1.0)
        else:
            P = (R + C) / 2
            m = 1 + P.shape[1]
            a = alpha / m
            po, po_lo, po_hi = _box(agree[:, None], looks, a, t_opt)
            p, p_lo, p_hi = _box(P, looks, a, t_opt)
            q_lo, q_hi = _q_range(p_lo, p_hi)
            po, po_lo, po_hi = po[:, 0], po_lo[:, 0], po_hi[:, 0]
            with np.errstate(divide="ignore", invalid="ignore"):
                low = np.where(q_hi < 1, 1 - (1 - po_lo) / (1 - q_hi), -1.0)
                high = np.where(q_lo < 1, 1 - (1 - po_hi) / (1 - q_lo), 1.0)
        low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
        out = out.assign(n_used=looks.astype(np.int64), estimate=est, ci_low=low, ci_high=high)
    out["statistic"] = statistic
    out["confidence_level"] = confidence_level
    out.attrs["method"] = (f"{statistic}: {SEQUENCE_STATISTICS[statistic]}; beta-binomial mixture confidence "
                           f"sequence (Howard et al. 2021), tuned for n = {t_opt:g}")
    return out
