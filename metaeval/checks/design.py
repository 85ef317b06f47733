"""Validation-sample design: draw, estimate, and size a stratified sample of judge-labelled items.

The setting: a judge labelled a large set of items no human has seen (a qrels expansion). To say
how good those labels are, draw a stratified sample (for example k judge-relevant and m
judge-non-relevant items per topic), have humans label it blind, and estimate the population's
sensitivity, specificity, precision of the relevant class, prevalence and kappa with
inverse-probability (Horvitz–Thompson) weights. How many items per stratum are needed for a given
interval width follows from an analytic formula (iid samples) or a simulation of the design.

* :func:`design_validation_sample` draws the seeded sample and writes the annotation sheet.
* :func:`estimate_from_validation` estimates from the annotated sample, with stratified
  bootstrap intervals (:mod:`metaeval.resample` with strata).
* :func:`sample_size` answers "how many?" for kappa or for the recall of the relevant class.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..core import registry
from ..core.errors import InputError, UndefinedStatisticWarning
from ..core.resample import DEFAULT_N_RESAMPLES, Units, bootstrap, make_rng
from ..core.results import Estimate, ResultSet
from ..core.tables import as_counts

__all__ = ["design_validation_sample", "estimate_from_validation", "sample_size", "ValidationDesign",
           "SampleSize", "simulate_design", "kappa_variance_unit"]

_STATS = ("sensitivity", "specificity", "ppv", "npv", "prevalence", "kappa", "observed_agreement",
          "relevant_count")


# --------------------------------------------------------------------------------------------
# statistics of a (weighted) binary table, vectorized: S = (b, 4) = [n00, n01, n10, n11]
# rows: reference (human), columns: candidate (judge), 1 = positive
# --------------------------------------------------------------------------------------------

def _binary_stats(S):
    """Se, Sp, PPV, NPV, prevalence, κ, p_o and the positive count of b binary tables (registry kernels)."""
    S = np.asarray(S, dtype=float).reshape(-1, 4)
    return np.column_stack([registry.resolve("binary_metrics").kernel(2)(S),
                            registry.resolve("cohen_kappa").kernel(2)(S),
                            registry.resolve("observed_agreement").kernel(2)(S),
                            S[:, 2] + S[:, 3]])


# --------------------------------------------------------------------------------------------
# the design
# --------------------------------------------------------------------------------------------

def _stratum_seed(seed: int, name: str) -> np.random.SeedSequence:
    """A seed for one stratum from the design's seed and the stratum's name (stable across runs)."""
    import hashlib

    digest = hashlib.sha256(str(name).encode("utf-8")).digest()
    return np.random.SeedSequence([int(seed) % 2**63, *np.frombuffer(digest[:16], dtype="<u4").tolist()])


@dataclass(frozen=True)
class ValidationDesign:
    """A drawn stratified validation sample.

    Attributes
    ----------
    sample : pandas.DataFrame
        The sampled items in random order: ``sample_id``, the population's columns, ``stratum``,
        ``N_h`` (stratum size in the population), ``n_h`` (sampled in the stratum), ``weight``
        (= N_h / n_h, the Horvitz–Thompson weight), ``inclusion_probability`` and an empty
        annotation column.
    strata : pandas.DataFrame
        One row per stratum: ``stratum``, the stratifying columns, ``N_h``, ``n_h``, ``weight``.
    judge : str
        The judge-label column.
    annotate : str
        The (empty) column the annotators fill.
    key : list of str
        Columns that identify an item on the annotation sheet.
    positive : object
        The judge label counted as positive.
    seed : int or None
    """

    sample: pd.DataFrame
    strata: pd.DataFrame
    judge: str
    annotate: str
    key: list
    positive: object = 1
    seed: int | None = None
    population_size: int = 0

    def to_frame(self) -> pd.DataFrame:
        return self.sample.copy()

    def annotation_sheet(self) -> pd.DataFrame:
        """What the annotators see: ``sample_id``, the key columns and the empty label column.

        The judge's label and the stratum are left off (blind annotation), and the order is random.
        """
        return self.sample[["sample_id", *self.key, self.annotate]].copy()

    def write(self, path) -> tuple[Path, Path]:
        """Write the annotation sheet to ``path`` and the full design beside it (``<stem>.design<ext>``).

        ``.tsv`` paths are tab separated, anything else comma separated. Returns both paths.
        """
        path = Path(path)
        sep = "\t" if path.suffix == ".tsv" else ","
        path.parent.mkdir(parents=True, exist_ok=True)
        design_path = path.with_name(f"{path.stem}.design{path.suffix or '.csv'}")
        self.annotation_sheet().to_csv(path, sep=sep, index=False, lineterminator="\n")
        self.sample.to_csv(design_path, sep=sep, index=False, lineterminator="\n", float_format="%.10g")
        return path, design_path

    def expected_precision(self, *, ppv, npv, n_sim=4000, confidence_level=0.95, rng=None) -> pd.DataFrame:
        """Half-widths this design will give, by simulation, for anticipated PPV and NPV of the judge.

        See :func:`simulate_design`. Returns ``statistic, population_value, sd, half_width``.
        """
        st = self.strata
        pos = (st["judge_label"] == self.positive).to_numpy()
        return simulate_design(st["N_h"].to_numpy(), st["n_h"].to_numpy(), pos, ppv=ppv, npv=npv, n_sim=n_sim,
                               confidence_level=confidence_level, rng=rng)

    def __str__(self) -> str:
        st = self.strata
        pos = st["judge_label"] == self.positive
        return (f"ValidationDesign: {len(self.sample)} items from a population of {self.population_size} in "
                f"{len(st)} strata; judge-positive strata: {int(st.loc[pos, 'n_h'].sum())} sampled of "
                f"{int(st.loc[pos, 'N_h'].sum())}, judge-negative: {int(st.loc[~pos, 'n_h'].sum())} of "
                f"{int(st.loc[~pos, 'N_h'].sum())} (seed {self.seed})")


def design_validation_sample(population, *, judge="judge", stratum="query_id", k=10, m=10, positive=1, key=None,
                             annotate="human", rng=None, path=None) -> ValidationDesign:
    """Draw a seeded stratified validation sample from judge-labelled items.

    Parameters
    ----------
    population : pandas.DataFrame
        One row per judge-labelled item (e.g. a qrels expansion).
    judge : str
        The judge's label column.
    stratum : str or sequence of str, or None
        Columns that stratify besides the judge label (default: the topic). The strata are their
        combinations × (judge label == positive).
    k, m : int
        Items to draw per judge-positive and per judge-negative stratum (all items of a smaller
        stratum are taken).
    positive : object
        The judge label counted as positive (relevant).
    key : sequence of str, optional
        Columns identifying an item on the annotation sheet (default: the stratum columns plus
        ``doc_id`` or ``item_id`` when present).
    annotate : str
        Name of the empty column the annotators fill.
    rng : None, int or numpy.random.Generator
        The seed (an int makes the draw reproducible; None draws and reports a fresh seed).
    path : str or Path, optional
        Write the annotation sheet (and the design beside it) there; see :meth:`ValidationDesign.write`.

    Returns
    -------
    ValidationDesign

    Notes
    -----
    Simple random sampling without replacement within each stratum h: n_h = min(k or m, N_h) items
    of N_h, inclusion probability n_h/N_h and Horvitz–Thompson weight N_h/n_h (Horvitz & Thompson
    1952; Cochran 1977, ch. 5). Each stratum draws from its own seed, derived from the given seed and
    the stratum's name, so adding or removing a stratum does not change the draws of the others.
    The sheet's order is a further seeded permutation (annotators see items in random order).

    Examples
    --------
    >>> from metaeval import datasets
    >>> exp = datasets.load("imageclef_like").expansion
    >>> d = design_validation_sample(exp, k=5, m=5, rng=1)
    >>> len(d.sample), len(d.strata), int(d.strata["N_h"].sum())
    (331, 70, 50000)
    """
    if not isinstance(population, pd.DataFrame):
        raise InputError(f"design_validation_sample needs a DataFrame of judge-labelled items, got "
                         f"{type(population).__name__}")
    strat = [] if stratum is None else ([stratum] if isinstance(stratum, str) else list(stratum))
    missing = [c for c in [judge, *strat] if c not in population.columns]
    if missing:
        raise InputError(f"design_validation_sample: no column(s) {missing}", source="<DataFrame>",
                         expected=f"one of {', '.join(map(str, population.columns))}")
    for nm, v in (("k", k), ("m", m)):
        if int(v) != v or v < 0:
            raise ValueError(f"{nm} must be a non-negative integer, got {v!r}")
    if population[judge].isna().any():
        raise InputError(f"design_validation_sample: {int(population[judge].isna().sum())} item(s) without a judge "
                         "label", fix="drop them or give them a label (a refusal policy) first")
    if annotate in population.columns:
        raise InputError(f"design_validation_sample: the population already has a column {annotate!r}",
                         fix="choose another annotate= name")
    if key is None:
        key = strat + [c for c in ("doc_id", "item_id") if c in population.columns and c not in strat]
    key = [key] if isinstance(key, str) else list(key)
    gen, seed = make_rng(rng)
    if seed is None:
        seed = int(gen.integers(2**63))
    df = population.reset_index(drop=True)
    pos = (df[judge] == positive).to_numpy()
    sid = pd.Series([""] * len(df))
    for i, c in enumerate(strat):
        sid = df[c].astype("str") if i == 0 else sid + "|" + df[c].astype("str")
    label = np.where(pos, f"{judge}={positive}", f"{judge}!={positive}")
    sname = (sid + "|" + label) if strat else pd.Series(label)
    codes, names = pd.factorize(sname, sort=True)
    take, rows = [], []
    by_stratum = np.split(np.argsort(codes, kind="stable"), np.cumsum(np.bincount(codes, minlength=len(names)))[:-1])
    for h, name in enumerate(names):
        idx = by_stratum[h]
        is_pos = bool(pos[idx[0]])
        want = int(k if is_pos else m)
        n_h = min(want, len(idx))
        g = np.random.default_rng(_stratum_seed(seed, name))
        chosen = np.sort(g.choice(idx, size=n_h, replace=False)) if n_h else np.array([], dtype=np.int64)
        take.append(chosen)
        first = df.iloc[idx[0]]
        rows.append({"stratum": name, **{c: first[c] for c in strat}, "judge_label": positive if is_pos else "other",
                     "N_h": len(idx), "n_h": n_h, "weight": len(idx) / n_h if n_h else np.nan})
    strata = pd.DataFrame(rows)
    if (strata["n_h"] == 0).any():
        empty = strata.loc[strata["n_h"] == 0, "stratum"].tolist()
        warnings.warn(f"{len(empty)} stratum(s) get no sample (k or m is 0): {empty[:5]}; their items are not "
                      "represented, and estimates refer to the other strata only", UndefinedStatisticWarning,
                      stacklevel=2)
    chosen = np.concatenate(take) if take else np.array([], dtype=np.int64)
    sample = df.iloc[chosen].copy()
    sample["stratum"] = np.asarray(names)[codes[chosen]]
    st = strata.set_index("stratum")
    sample["N_h"] = st.loc[sample["stratum"], "N_h"].to_numpy()
    sample["n_h"] = st.loc[sample["stratum"], "n_h"].to_numpy()
    sample["weight"] = sample["N_h"] / sample["n_h"]
    sample["inclusion_probability"] = sample["n_h"] / sample["N_h"]
    sample[annotate] = np.nan
    order = np.random.default_rng(_stratum_seed(seed, "\x00annotation order")).permutation(len(sample))
    sample = sample.iloc[order].reset_index(drop=True)
    sample.insert(0, "sample_id", [f"s{i + 1:05d}" for i in range(len(sample))])
    design = ValidationDesign(sample=sample, strata=strata, judge=judge, annotate=annotate, key=key,
                              positive=positive, seed=seed, population_size=len(df))
    if path is not None:
        design.write(path)
    return design


# --------------------------------------------------------------------------------------------
# estimation
# --------------------------------------------------------------------------------------------

def _positive(values: pd.Series, column: str, positive) -> np.ndarray:
    """1 where the label is ``positive``; the labels must be binary (numeric text is read as numbers)."""
    s = pd.Series(values).reset_index(drop=True)
    if isinstance(positive, (int, float, np.number)) and not isinstance(positive, bool):
        num = pd.to_numeric(s, errors="coerce")
        bad = s.notna() & num.isna()
        if bad.any():
            raise InputError(f"column {column!r} holds non-numeric label(s) {sorted(set(s[bad].astype(str)))[:5]}",
                             expected=f"numbers, {positive!r} for the positive class")
        s = num
    counts = s.dropna().value_counts()
    if len(counts) > 2 or (len(counts) == 2 and positive not in counts.index):
        shown = ", ".join(f"{k!r}: {v}" for k, v in counts.items())
        raise InputError(f"column {column!r} holds the labels {{{shown}}}", expected=f"the positive label "
                         f"{positive!r} and one negative label", fix="binarize the labels first (e.g. relevance ≥ 2 → 1)")
    return (s == positive).to_numpy().astype(int)


def estimate_from_validation(data, *, annotations=None, reference="human", candidate="judge", strata="stratum",
                             population="N_h", weight="weight", positive=1, ci_method="percentile",
                             n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None) -> ResultSet:
    """Population sensitivity, specificity, PPV, NPV, prevalence and kappa from an annotated sample.

    Parameters
    ----------
    data : ValidationDesign or pandas.DataFrame
        The design (its sample), or a frame with the reference label, the candidate label, the
        stratum and either the stratum's population size or the weight of each item.
    annotations : pandas.DataFrame, optional
        The filled annotation sheet (``sample_id`` and the ``reference`` column); merged into the
        design's sample by ``sample_id``.
    reference, candidate : str
        Columns of the human (reference) label and of the judge (candidate) label.
    strata : str
        Stratum column.
    population : str
        Column of N_h, the stratum's size in the population. When present, the weight of an item is
        N_h divided by the number of *annotated* items of its stratum (items left unannotated are
        treated as missing at random within the stratum); otherwise ``weight`` is used as given.
    weight : str
    positive : object
        The label counted as positive (relevant), for both raters.
    ci_method, n_resamples, confidence_level, rng
        The stratified bootstrap: each stratum's annotated items are resampled on their own.

    Returns
    -------
    ResultSet
        ``sensitivity`` (recall of the relevant class: the share of truly relevant items the judge
        calls relevant), ``specificity``, ``ppv`` (precision of the judge's relevant class),
        ``npv``, ``prevalence`` (share of truly relevant items), ``kappa`` (Cohen's, judge vs
        human on the population), ``observed_agreement`` and ``relevant_count`` (estimated number
        of truly relevant items in the population).

    Notes
    -----
    Horvitz–Thompson estimation: every annotated item i in stratum h carries w_i = N_h/n_h; the
    weighted table T_ab = Σ_i w_i 1[human_i = a, judge_i = b] estimates the population table, and
    each statistic is the same function of T as of a census table (ratio estimators; Cochran 1977,
    §5A and §6). Intervals: rescaled stratified bootstrap. Each stratum's annotated items are
    resampled on their own (the engine's ``Units(strata=...)``), and each replicate's stratum total
    T*_h is moved to T_h + λ_h (T*_h − T_h) with λ_h = √((1 − f_h) n_h/(n_h − 1)), f_h = n_h/N_h, so
    that its variance is the unbiased variance of a total under sampling without replacement
    (Rao & Wu 1988; Cochran 1977, eq. 5.9). A fully sampled stratum then adds no error, and a
    stratum with one annotated item adds none either (its variance is not estimable: a warning says
    so). Adjusted cell totals are clipped at 0.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"stratum": ["a"] * 4 + ["b"] * 4, "N_h": [10] * 4 + [100] * 4,
    ...                   "judge": [1, 1, 1, 1, 0, 0, 0, 0], "human": [1, 1, 1, 0, 0, 0, 0, 1]})
    >>> r = estimate_from_validation(s, rng=0)
    >>> round(r["ppv"].estimate, 3), round(r["prevalence"].estimate, 4)
    (0.75, 0.2955)
    """
    if isinstance(data, ValidationDesign):
        df = data.sample.copy()
        if annotations is not None:
            if "sample_id" not in annotations.columns or reference not in annotations.columns:
                raise InputError(f"annotations need columns 'sample_id' and {reference!r}",
                                 expected=f"found {', '.join(map(str, annotations.columns))}")
            ann = annotations[["sample_id", reference]].copy()
            ann["sample_id"] = ann["sample_id"].astype("str")
            unknown = set(ann["sample_id"]) - set(df["sample_id"])
            if unknown:
                raise InputError(f"annotations name {len(unknown)} sample_id(s) not in the design, e.g. "
                                 f"{sorted(unknown)[:3]}")
            df = df.drop(columns=[reference], errors="ignore").merge(ann, on="sample_id", how="left")
        candidate = data.judge if candidate not in df.columns else candidate
    elif isinstance(data, pd.DataFrame):
        df = data.copy()
    else:
        raise InputError(f"estimate_from_validation needs a ValidationDesign or a DataFrame, got {type(data).__name__}")
    need = [reference, candidate, strata]
    missing = [c for c in need if c not in df.columns]
    if missing or (population not in df.columns and weight not in df.columns):
        raise InputError(f"estimate_from_validation: missing column(s) {missing or [population + ' or ' + weight]}",
                         expected=f"one of {', '.join(map(str, df.columns))}")
    annotated = df[reference].notna().to_numpy()
    if not annotated.any():
        raise InputError(f"no annotated items: column {reference!r} is empty", fix="fill in the annotation sheet")
    if df[candidate].isna().any():
        raise InputError(f"{int(df[candidate].isna().sum())} sampled item(s) without a judge label")
    sid = df[strata].astype("str").to_numpy()
    if population in df.columns:
        N_h = df.groupby(strata, sort=False)[population].nunique()
        if (N_h > 1).any():
            raise InputError(f"column {population!r} must be constant within a stratum")
        n_ann = pd.Series(annotated).groupby(sid).sum()
        Nmap = df.groupby(sid)[population].first()
        lost = n_ann[n_ann == 0].index.tolist()
        if lost:
            warnings.warn(f"{len(lost)} stratum(s) have no annotated item ({', '.join(lost[:5])}); "
                          f"{int(Nmap.loc[lost].sum())} population items are not represented",
                          UndefinedStatisticWarning, stacklevel=2)
        w = (Nmap.loc[sid] / n_ann.loc[sid].replace(0, np.nan)).to_numpy(dtype=float)
    else:
        w = pd.to_numeric(df[weight], errors="coerce").to_numpy(dtype=float)
        if np.isnan(w[annotated]).any() or (w[annotated] <= 0).any():
            raise InputError(f"column {weight!r} must hold positive weights")
    h = _positive(df[reference], reference, positive)
    j = _positive(df[candidate], candidate, positive)
    keep = annotated
    cell = 2 * h[keep] + j[keep]
    s_codes, s_names = pd.factorize(pd.Series(sid[keep]), sort=True)
    wk = w[keep]
    # unit types: (stratum, cell) with contribution w_h · e_cell and multiplicity = count
    # unit types: (stratum, cell, weight); contribution w · e_cell in the stratum's own block of 4
    # columns (so the kernel can rescale each stratum), multiplicity = count
    H = len(s_names)
    ut = pd.DataFrame({"s": s_codes, "c": cell, "w": wk}).groupby(["s", "c", "w"], sort=True).size().reset_index()
    X = np.zeros((len(ut), 4 * H))
    X[np.arange(len(ut)), 4 * ut["s"].to_numpy() + ut["c"].to_numpy()] = ut["w"].to_numpy()
    units = Units(X, ut[0].to_numpy(), strata=ut["s"].to_numpy(), kind="strata")
    n_h = np.bincount(s_codes, minlength=H).astype(float)
    if population in df.columns:
        N_s = Nmap.loc[np.asarray(s_names)].to_numpy(dtype=float)
        f_h = np.minimum(n_h / N_s, 1.0)
    else:
        f_h = np.zeros(H)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(n_h > 1, np.sqrt((1 - f_h) * n_h / np.maximum(n_h - 1, 1)), 0.0)
    single = int(((n_h == 1) & (f_h < 1)).sum())
    if single:
        warnings.warn(f"{single} stratum(s) have a single annotated item: their sampling variance cannot be "
                      "estimated and is left out of the intervals (collapse small strata, or annotate more)",
                      UndefinedStatisticWarning, stacklevel=2)
    total = units.total().reshape(H, 4)

    def kern(S):
        Sh = np.asarray(S, dtype=float).reshape(-1, H, 4)
        adj = np.maximum(total[None] + lam[None, :, None] * (Sh - total[None]), 0.0)
        return _binary_stats(adj.sum(axis=1))

    res = bootstrap(kern, units, n_resamples=n_resamples, ci_method=ci_method,
                    confidence_level=confidence_level, rng=rng)
    n = int(keep.sum())
    ests = res.estimates(list(_STATS), n=n, extra={"weighted_table": total.sum(axis=0).reshape(2, 2)})
    # the resampled units are items within strata; what the reader needs is how many strata
    return ResultSet([Estimate(**{**e.__dict__, "n_units": len(s_names)}) for e in ests],
                     name="estimate_from_validation")


# --------------------------------------------------------------------------------------------
# sample size
# --------------------------------------------------------------------------------------------

def kappa_variance_unit(table, weights=None) -> float:
    """N·var(κ̂) of Cohen's (weighted) kappa at a table of proportions (Fleiss, Cohen & Everitt 1969).

    var(κ_w) = [Σ_ij p_ij (w_ij − (w̄_i+ + w̄_+j)(1 − κ_w))² − (κ_w − p_e(1 − κ_w))²] / (N (1 − p_e)²);
    this returns the bracket divided by (1 − p_e)², the variance of one item's worth of data, so
    that var(κ̂) ≈ kappa_variance_unit / N. Equals statsmodels' ``cohens_kappa(...).var_kappa × N``.
    """
    from ..agreement import analytic
    from ..core.weights import weight_matrix

    p = as_counts(table, name="table", integer=False)
    p = p / p.sum()
    # a table of proportions has n = 1, so the variance is the per-item variance
    return float(analytic.cohen_kappa(p, weight_matrix(weights, p.shape[0])).variance)


@dataclass(frozen=True)
class SampleSize:
    """How many items reach a target half-width.

    Attributes
    ----------
    statistic : str
        ``kappa`` or ``recall``.
    n : int
        Total items (iid design), or total items of the stratified design.
    per_stratum : tuple or None
        ``(k, m)`` items per judge-positive and judge-negative stratum (stratified design).
    half_width : float
        The target.
    achieved : float
        The half-width at ``n`` (analytic, or simulated for the stratified design and for
        ``method="simulation"``).
    method : str
    details : pandas.DataFrame
        The evaluated sizes (simulation) or the inputs of the formula.
    """

    statistic: str
    n: int
    half_width: float
    achieved: float
    method: str
    confidence_level: float
    per_stratum: tuple | None = None
    details: pd.DataFrame = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"statistic": self.statistic, "n": self.n,
                              "k": None if self.per_stratum is None else self.per_stratum[0],
                              "m": None if self.per_stratum is None else self.per_stratum[1],
                              "half_width": self.half_width, "achieved_half_width": self.achieved,
                              "confidence_level": self.confidence_level, "method": self.method}])


def _anticipated_table(table, kappa, prevalence):
    if table is not None:
        t = as_counts(table, name="table", integer=False)
        if t.ndim != 2 or t.shape[0] != t.shape[1] or t.sum() <= 0:
            raise InputError("table= must be a K×K array of non-negative counts or proportions")
        return t / t.sum()
    if kappa is None or prevalence is None:
        raise ValueError("give the anticipated table=, or kappa= and prevalence= (binary, equal margins)")
    p = float(prevalence)
    kp = float(kappa)
    if not 0 < p < 1:
        raise ValueError(f"prevalence must be in (0, 1), got {p}")
    off = p * (1 - p) * (1 - kp)
    t = np.array([[(1 - p) - off, off], [off, p - off]])
    if (t < 0).any():
        raise ValueError(f"kappa {kp} is impossible at prevalence {p} with equal margins")
    return t


def _hw_from_sims(est, truth, confidence_level):
    err = est - truth
    err = err[~np.isnan(err)]
    if len(err) == 0:
        return np.nan, np.nan
    a = (1 - confidence_level) / 2
    lo, hi = np.quantile(err, [a, 1 - a])
    return float((hi - lo) / 2), float(np.std(err, ddof=1))


def _simulate_iid(pt, n, statistic, n_sim, gen, confidence_level):
    k = pt.shape[0]
    T = gen.multinomial(int(n), pt.ravel(), size=n_sim).astype(float)
    if statistic == "kappa":
        est = registry.resolve("cohen_kappa").kernel(k)(T)
        truth = float(registry.resolve("cohen_kappa").kernel(k)(pt.reshape(1, -1))[0])
    else:
        T = T.reshape(-1, k, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            est = T[:, -1, -1] / T[:, -1, :].sum(axis=1)
        truth = pt[-1, -1] / pt[-1].sum()
    return _hw_from_sims(est, truth, confidence_level)


def simulate_design(N_h, n_h, positive, *, ppv, npv, n_sim=4000, confidence_level=0.95, rng=None) -> pd.DataFrame:
    """Sampling error of the Horvitz–Thompson estimates of a stratified design, by simulation.

    Each replicate draws a population (X_h ~ Binomial(N_h, p_h) truly relevant items per stratum,
    p_h = ``ppv`` in judge-positive and 1 − ``npv`` in judge-negative strata) and a sample from it
    (x_h ~ Hypergeometric(X_h, N_h − X_h, n_h): sampling without replacement), and compares the
    weighted estimate with the population value. ``ppv``/``npv`` may be arrays (one per stratum).

    Returns
    -------
    pandas.DataFrame
        ``statistic, population_value`` (mean over replicates), ``sd`` and ``half_width`` (half
        the central ``confidence_level`` range of estimate − population value).
    """
    gen, _ = make_rng(rng)
    N_h = np.asarray(N_h, dtype=np.int64)
    n_h = np.minimum(np.asarray(n_h, dtype=np.int64), N_h)
    pos = np.asarray(positive, dtype=bool)
    p = np.where(pos, np.broadcast_to(ppv, pos.shape), 1 - np.broadcast_to(npv, pos.shape)).astype(float)
    X = gen.binomial(N_h[None, :], p[None, :], size=(n_sim, len(N_h)))
    x = np.where(n_h[None, :] > 0,
                 gen.hypergeometric(np.maximum(X, 0), N_h[None, :] - X, np.maximum(n_h[None, :], 1)) *
                 (n_h[None, :] > 0), 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(n_h > 0, N_h / np.maximum(n_h, 1), 0.0)
    def table(rel, tot):
        # rows human 0/1, columns judge 0/1
        t11 = (rel * pos).sum(axis=1)
        t01 = ((tot - rel) * pos).sum(axis=1)
        t10 = (rel * ~pos).sum(axis=1)
        t00 = ((tot - rel) * ~pos).sum(axis=1)
        return np.column_stack([t00, t01, t10, t11])
    est = _binary_stats(table(x * w[None, :], n_h[None, :] * w[None, :]))
    pop = _binary_stats(table(X.astype(float), N_h[None, :].astype(float)))
    rows = []
    for i, name in enumerate(_STATS):
        hw, sd = _hw_from_sims(est[:, i], pop[:, i], confidence_level)
        rows.append({"statistic": name, "population_value": float(np.nanmean(pop[:, i])), "sd": sd, "half_width": hw})
    return pd.DataFrame(rows)


def sample_size(*, half_width, statistic="kappa", table=None, kappa=None, prevalence=None, weights=None,
                design=None, judge="judge", stratum="query_id", positive=1, ppv=None, npv=None, ratio=1.0,
                method="analytic", confidence_level=0.95, n_sim=4000, max_n=1_000_000, rng=None) -> SampleSize:
    """Items needed for an interval of a target half-width, for kappa or the recall of the relevant class.

    Parameters
    ----------
    half_width : float
        Target half-width of the ``confidence_level`` interval.
    statistic : {"kappa", "recall"}
        Cohen's kappa, or the recall (sensitivity) of the relevant class: the share of reference-
        relevant items the judge labels relevant.
    table, kappa, prevalence
        Simple random sample (iid items): the anticipated table (K×K counts or proportions; rows
        reference, last level = relevant), or for binary labels the anticipated kappa and
        prevalence (both raters with the same margins).
    weights
        Agreement weights for a weighted kappa (analytic only).
    design : pandas.DataFrame or ValidationDesign, optional
        Stratified sampling from a judge-labelled population (the population frame with ``judge``
        and ``stratum`` columns, or a drawn design whose strata sizes are used): the result is the
        per-stratum size k for judge-positive strata and m = ceil(ratio·k) for judge-negative ones.
    judge, stratum : str
        Columns of the population frame of a stratified ``design``: the judge's label and the
        stratum (topic).
    positive : label
        The judge's label that counts as relevant (stratified design).
    ppv, npv : float or array
        Anticipated share of human-relevant items among the judge's positives, and of human-non-
        relevant among its negatives (per stratum if arrays), for the stratified design.
    ratio : float
        Judge-negative items per judge-positive item in each stratum (m = ceil(ratio·k)).
    method : {"analytic", "simulation"}
        iid only: the formula, or a search over n with simulated tables (the stratified design is
        always simulated).
    confidence_level : float
        Level of the interval whose half-width is targeted.
    n_sim : int
        Simulated samples per evaluated size.
    max_n : int
        Largest size searched.
    rng : None, int or numpy.random.Generator
        Seed of the simulations.

    Returns
    -------
    SampleSize

    Notes
    -----
    Analytic, iid items: κ: n = z² V₁ / h², with V₁ = n·var(κ̂) from the Fleiss–Cohen–Everitt (1969)
    large-sample variance at the anticipated table (:func:`kappa_variance_unit`). Recall R among
    reference-relevant items (prevalence π): n = z² R(1 − R) / (π h²) (Wald). The simulation draws
    multinomial tables of size n and takes half the central range of the estimates; it checks the
    formulas (tests/test_design.py) and is preferable for small n. Stratified design: bisection over
    k of :func:`simulate_design`'s half-width, with the same seed at every k.

    Examples
    --------
    >>> sample_size(half_width=0.1, kappa=0.6, prevalence=0.5).n
    246
    """
    if statistic not in ("kappa", "recall"):
        raise ValueError(f"statistic must be 'kappa' or 'recall', got {statistic!r}")
    if not half_width > 0:
        raise ValueError(f"half_width must be positive, got {half_width!r}")
    z = float(sps.norm.ppf(0.5 + confidence_level / 2))
    if design is not None:
        return _design_size(design, half_width, statistic, judge, stratum, positive, ppv, npv, ratio,
                            confidence_level, n_sim, rng)
    pt = _anticipated_table(table, kappa, prevalence)
    if statistic == "kappa":
        v1 = kappa_variance_unit(pt, weights)
        n_an = int(np.ceil(z**2 * v1 / half_width**2))
        formula = {"V1": v1}
    else:
        pi = pt[-1].sum()
        R = pt[-1, -1] / pi
        v1 = R * (1 - R) / pi
        n_an = int(np.ceil(z**2 * v1 / half_width**2))
        formula = {"recall": R, "prevalence": pi}
    if method == "analytic":
        return SampleSize(statistic, n_an, half_width, float(z * np.sqrt(v1 / n_an)), "analytic",
                          confidence_level, details=pd.DataFrame([{**formula, "z": z}]))
    if method != "simulation":
        raise ValueError(f"method must be 'analytic' or 'simulation', got {method!r}")
    if weights is not None:
        raise ValueError("the simulation covers unweighted kappa only")
    gen, seed = make_rng(rng)
    seed = seed if seed is not None else int(gen.integers(2**63))
    cache = {}

    def hw(n):
        if n not in cache:
            cache[n] = _simulate_iid(pt, n, statistic, n_sim, np.random.default_rng(seed), confidence_level)[0]
        return cache[n]

    lo, hi = max(2, n_an // 2), max(4, 2 * n_an)
    while hw(hi) > half_width and hi < max_n:
        lo, hi = hi, min(max_n, hi * 2)
    while hw(lo) <= half_width and lo > 2:
        hi, lo = lo, max(2, lo // 2)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if hw(mid) <= half_width:
            hi = mid
        else:
            lo = mid
    det = pd.DataFrame(sorted(cache.items()), columns=["n", "half_width"])
    return SampleSize(statistic, hi, half_width, hw(hi), "simulation", confidence_level, details=det)


def _design_size(design, half_width, statistic, judge, stratum, positive, ppv, npv, ratio, confidence_level,
                 n_sim, rng):
    if ppv is None or npv is None:
        raise ValueError("a stratified design needs the anticipated ppv= and npv= of the judge")
    if isinstance(design, ValidationDesign):
        st = design.strata
        N_h = st["N_h"].to_numpy()
        pos = (st["judge_label"] == design.positive).to_numpy()
    elif isinstance(design, pd.DataFrame):
        strat = [] if stratum is None else ([stratum] if isinstance(stratum, str) else list(stratum))
        missing = [c for c in [judge, *strat] if c not in design.columns]
        if missing:
            raise InputError(f"sample_size: no column(s) {missing} in the population")
        key = [design[c].astype("str") for c in strat] + [(design[judge] == positive).rename("_pos")]
        g = pd.concat(key, axis=1).value_counts(sort=False).sort_index()
        N_h = g.to_numpy()
        pos = np.asarray([idx[-1] if isinstance(idx, tuple) else idx for idx in g.index], dtype=bool)
    else:
        raise InputError(f"design= must be a population DataFrame or a ValidationDesign, got {type(design).__name__}")
    gen, seed = make_rng(rng)
    seed = seed if seed is not None else int(gen.integers(2**63))
    col = {"kappa": "kappa", "recall": "sensitivity"}[statistic]
    cache = {}

    def hw(k):
        if k not in cache:
            n_h = np.where(pos, k, int(np.ceil(ratio * k)))
            sim = simulate_design(N_h, n_h, pos, ppv=ppv, npv=npv, n_sim=n_sim, confidence_level=confidence_level,
                                  rng=np.random.default_rng(seed))
            cache[k] = float(sim.set_index("statistic").loc[col, "half_width"])
        return cache[k]

    k_max = int(max(N_h.max(), np.ceil(N_h.max() / max(ratio, 1e-9))))
    if hw(k_max) > half_width:
        warnings.warn(f"even a census of every stratum gives a half-width of {hw(k_max):.4g} > {half_width}; "
                      "the target cannot be met with these strata", UndefinedStatisticWarning, stacklevel=3)
        k_best = k_max
    else:
        lo, hi = 0, k_max
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if mid > 0 and hw(mid) <= half_width:
                hi = mid
            else:
                lo = mid
        k_best = hi
    m_best = int(np.ceil(ratio * k_best))
    n_total = int(np.minimum(np.where(pos, k_best, m_best), N_h).sum())
    det = pd.DataFrame(sorted(cache.items()), columns=["k", "half_width"])
    return SampleSize(statistic, n_total, half_width, hw(k_best), "simulation", confidence_level,
                      per_stratum=(int(k_best), m_best), details=det)
