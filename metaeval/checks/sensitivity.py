"""Sensitivity analyses: recompute a statistic under named scenarios, with paired intervals.

A *scenario* is a named filter or relabelling of the judged items: drop the few-shot examples,
exclude the refusals, force them to "relevant", remove near-duplicates, leave one topic out ...
:func:`sensitivity` recomputes one statistic of the package under the baseline and under every
scenario, and reports each value and its difference from the baseline. Baseline and scenarios are
resampled together (the same items or topics in every replicate), so the interval of a difference
accounts for the overlap of the two item sets: dropping 10 of 202 items moves kappa by little,
and its interval says how little.

How it is computed
------------------
Every item of the baseline gets an id. A scenario returns a frame of items that keeps these ids
(filtered, relabelled, or repeated). For a table statistic (kappa, AC1, per-class recall ...) the
additive sufficient statistic of item i is the concatenation of its one-hot cell in the baseline
table and in every scenario table (zeros where a scenario dropped it); items with the same vector
are one unit type, and clusters sum their items. One bootstrap of :mod:`metaeval.resample` then
gives all tables of a replicate at once, from which the values, the differences from the
baseline, the declared contrasts between scenarios and the spread within a scenario group follow.

Any other statistic (a Python callable of the item frame, e.g. a Kendall tau between system
rankings) is bootstrapped by resampling clusters (or items) with a loop over replicates: the same
draws for every scenario, but the statistic is called once per replicate and scenario, so keep
``n_resamples`` modest.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import InputError, UndefinedStatisticWarning
from ..core.resample import DEFAULT_N_RESAMPLES, BootstrapResult, Units, bootstrap, make_rng
from ..core.results import Estimate, ResultSet
from ..core.scale import Scale

__all__ = ["sensitivity", "Scenario", "SensitivityResult", "few_shot_scenarios", "refusal_scenarios",
           "duplicate_scenarios", "leave_one_topic_out", "table_statistic"]

_ITEM = "_item"


# --------------------------------------------------------------------------------------------
# scenarios
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scenario:
    """A named filter or relabelling of the items.

    Attributes
    ----------
    name : str
    apply : callable
        ``apply(frame) -> frame``. The frame has the labels in columns ``reference`` and
        ``candidate``, every metadata column of the data, and an item id column ``_item`` that the
        returned frame must keep (filter rows, change labels; do not invent items).
    group : str
        A label that groups related scenarios in the output.
    alternative : bool
        The scenario is one of several alternative policies for the same data (e.g. the ways to
        score a refusal): the result reports the spread (max − min) of the statistic over the
        alternatives of each group, with its interval.
    contrast_with : str, optional
        Name of another scenario: the result also reports ``this − other`` (e.g. overlapping minus
        non-overlapping topics).
    description : str

    Examples
    --------
    >>> import metaeval
    >>> v = metaeval.datasets.load("imageclef_like").validation
    >>> s = Scenario("judge says 1 for refusals",
    ...              lambda d: d.assign(candidate=d["candidate"].where(d["refusal"] == 0, 1)))
    >>> r = metaeval.sensitivity(metaeval.cohen_kappa, v, [s], ci_method=None)
    >>> round(r.get("judge says 1 for refusals", kind="difference").estimate, 4)
    0.0003
    """

    name: str
    apply: Callable[[pd.DataFrame], pd.DataFrame]
    group: str = ""
    contrast_with: str | None = None
    description: str = ""
    alternative: bool = False


class _Expanding:
    """A family of scenarios that depends on the data (e.g. one per topic)."""

    def __init__(self, fn, description):
        self.fn = fn
        self.description = description

    def expand(self, df) -> list[Scenario]:
        return self.fn(df)

    def __repr__(self):
        return f"<scenarios: {self.description}>"


def _truthy(s: pd.Series) -> np.ndarray:
    if s.dtype.kind in "biuf":
        v = s.to_numpy(dtype=float)
        return ~np.isnan(v) & (v != 0)
    return s.astype("str").str.strip().str.lower().isin(["1", "true", "yes", "y", "t", "1.0"]).to_numpy()


def _col(df, col, who):
    if col not in df.columns:
        raise InputError(f"{who}: no column {col!r} in the data", source="<DataFrame>",
                         expected=f"one of {', '.join(map(str, df.columns))}")
    return df[col]


def few_shot_scenarios(*, flag="few_shot", examples=None, topic="query_id", key=("query_id", "doc_id")):
    """Scenarios for a few-shot example that is also an evaluated item (leakage).

    Parameters
    ----------
    flag : str
        Column marking the items that served as a few-shot example (truthy values). Ignored when
        ``examples`` is given.
    examples : pandas.DataFrame, optional
        The few-shot examples (with the ``key`` columns): an item is an overlap when its key is
        among them.
    topic : str
        The topic column.
    key : sequence of str
        Key columns matching ``examples`` to items.

    Returns
    -------
    list of Scenario
        ``drop few-shot items``; ``drop overlapping topics`` (every topic whose example is an
        evaluated item); ``overlapping topics only`` and ``non-overlapping topics only`` (with a
        contrast between them). Group ``few-shot overlap``.
    """
    key = [key] if isinstance(key, str) else list(key)

    def overlap(df):
        if examples is not None:
            ex = examples[key].astype("str").drop_duplicates()
            probe = df[key].astype("str")
            return probe.merge(ex.assign(_hit=True), on=key, how="left")["_hit"].fillna(False).to_numpy(dtype=bool)
        return _truthy(_col(df, flag, "few_shot_scenarios"))

    def topics_hit(df):
        t = _col(df, topic, "few_shot_scenarios").astype("str")
        hit_topics = set(t[overlap(df)])
        return t.isin(hit_topics).to_numpy()

    g = "few-shot overlap"
    return [
        Scenario("drop few-shot items", lambda df: df[~overlap(df)], g,
                 description="items that served as the topic's few-shot example are left out"),
        Scenario("drop overlapping topics", lambda df: df[~topics_hit(df)], g,
                 description="every topic whose few-shot example is an evaluated item is left out"),
        Scenario("overlapping topics only", lambda df: df[topics_hit(df)], g,
                 contrast_with="non-overlapping topics only",
                 description="only the topics whose few-shot example is an evaluated item"),
        Scenario("non-overlapping topics only", lambda df: df[~topics_hit(df)], g,
                 description="only the topics whose few-shot example is not evaluated"),
    ]


def refusal_scenarios(*, flag="refusal", labels=(0, 1), recorded=True):
    """Scenarios for refusals and parse failures of the judge.

    Parameters
    ----------
    flag : str
        Column marking refusals / parse failures (truthy values).
    labels : sequence
        Every label a refusal could be forced to (the judge's label, column ``candidate``).
    recorded : bool
        Include ``refusals as recorded`` (the data unchanged) in the group, so the spread covers
        the policy the data came with.

    Returns
    -------
    list of Scenario
        ``refusals as recorded``, ``refusals excluded`` and ``refusals forced to <label>`` for each
        label, in group ``refusals``. The spread over the group is the honest uncertainty due to the
        refusal policy.
    """
    g = "refusals"

    def forced(v):
        def f(df):
            out = df.copy()
            out.loc[_truthy(_col(df, flag, "refusal_scenarios")), "candidate"] = v
            return out
        return f

    out = [Scenario("refusals as recorded", lambda df: df, g, description="the labels as recorded",
                    alternative=True)] if recorded else []
    out.append(Scenario("refusals excluded", lambda df: df[~_truthy(_col(df, flag, "refusal_scenarios"))], g,
                        description="refusals and parse failures left out", alternative=True))
    for v in labels:
        out.append(Scenario(f"refusals forced to {v:g}" if isinstance(v, (int, float)) else f"refusals forced to {v}",
                            forced(v), g, description=f"the judge's label of a refusal set to {v}", alternative=True))
    return out


def duplicate_scenarios(dups, *, doc="doc_id", canonical="canonical_doc_id", topic="query_id"):
    """Scenarios for near-duplicate items.

    Parameters
    ----------
    dups : pandas.DataFrame
        Map of duplicate → canonical item (columns ``doc`` and ``canonical``; with a ``topic``
        column the map is per topic, otherwise it applies in every topic).

    Returns
    -------
    list of Scenario
        ``near-duplicates removed``: the duplicates are left out, their canonical items kept.
        ``near-duplicates canonicalized``: a duplicate takes both labels of its canonical item in
        the same topic (one decision per content; duplicates whose canonical item is not judged in
        that topic keep their labels). Group ``near-duplicates``.
    """
    if not isinstance(dups, pd.DataFrame):
        raise InputError("duplicate_scenarios needs a DataFrame of duplicate → canonical ids, got "
                         f"{type(dups).__name__}")
    per_topic = topic in dups.columns
    dmap = dups.astype({doc: "str", canonical: "str", **({topic: "str"} if per_topic else {})})

    def keys(df):
        return pd.DataFrame({"t": _col(df, topic, "duplicate_scenarios").astype("str").to_numpy(),
                             "d": _col(df, doc, "duplicate_scenarios").astype("str").to_numpy()})

    def match(df):
        k = keys(df)
        if per_topic:
            m = dmap.rename(columns={topic: "t", doc: "d", canonical: "c"})[["t", "d", "c"]]
            return k.merge(m, on=["t", "d"], how="left")["c"].to_numpy()
        m = dmap.rename(columns={doc: "d", canonical: "c"})[["d", "c"]].drop_duplicates("d")
        return k.merge(m, on="d", how="left")["c"].to_numpy()

    def removed(df):
        return df[pd.isna(match(df))]

    def canonicalized(df):
        c = match(df)
        k = keys(df)
        lab = pd.DataFrame({"t": k["t"], "c": k["d"], "r": df["reference"].to_numpy(), "j": df["candidate"].to_numpy()})
        lab = lab.drop_duplicates(["t", "c"])
        want = pd.DataFrame({"t": k["t"], "c": c}).merge(lab, on=["t", "c"], how="left")
        hit = ~pd.isna(c) & want["r"].notna().to_numpy()
        out = df.copy()
        out.loc[hit, "reference"] = want["r"].to_numpy()[hit]
        out.loc[hit, "candidate"] = want["j"].to_numpy()[hit]
        return out

    g = "near-duplicates"
    return [Scenario("near-duplicates removed", removed, g, description="duplicates left out, canonical items kept",
                     alternative=True),
            Scenario("near-duplicates canonicalized", canonicalized, g,
                     description="a duplicate takes the labels of its canonical item", alternative=True)]


def leave_one_topic_out(topic="query_id"):
    """One scenario per topic, ``without <topic>`` (group ``leave-one-topic-out``).

    The differences from the baseline are the topics' influence on the statistic;
    :meth:`SensitivityResult.influence` sorts them.
    """
    def expand(df):
        t = _col(df, topic, "leave_one_topic_out").astype("str")
        out = []
        for v in sorted(t.unique()):
            out.append(Scenario(f"without {v}", lambda d, v=v: d[d[topic].astype("str") != v],
                                "leave-one-topic-out", description=f"topic {v} left out"))
        return out

    return _Expanding(expand, f"leave one {topic} out")


# --------------------------------------------------------------------------------------------
# table statistics: vectorized kernels of the agreement module
# --------------------------------------------------------------------------------------------

def table_statistic(statistic, scale: Scale, **kwargs):
    """``(kernel, component names)`` of a registered table statistic, or None for any other callable.

    Parameters
    ----------
    statistic : callable or str
        A public table statistic of metaeval (``metaeval.cohen_kappa``, ``metaeval.per_class`` ...)
        or a registry name (``"gwet_ac2"``, ``"cohen_kappa_quadratic"``), possibly wrapped in
        ``functools.partial`` to fix keywords such as ``weights=``, ``level=`` or ``prevalence=``.
    scale : Scale
        The levels of the labels (K, and the values Krippendorff's alpha uses).
    **kwargs
        ``weights=`` (or ``level=`` for Krippendorff's alpha) and the statistic's parameters.

    Returns
    -------
    tuple or None
        ``(kernel, names)``: the registry's vectorized kernel for this scale and the names of its
        entries; None when ``statistic`` is a callable that is not a registered statistic.

    References
    ----------
    The registry (:mod:`metaeval.core.registry`); tests/test_registry.py checks that every
    statistic gives the same value here as through its public function.

    Examples
    --------
    >>> import metaeval
    >>> kernel, names = table_statistic(metaeval.gwet_ac2, metaeval.Scale((0, 1, 2)))
    >>> names
    ['gwet_ac2']
    """
    import metaeval

    from ..core import registry

    if isinstance(statistic, functools.partial):
        kwargs = {**statistic.keywords, **kwargs}
        statistic = statistic.func
    if isinstance(statistic, str):
        name = statistic
    else:
        name = getattr(statistic, "__name__", None)
        if name is None or getattr(metaeval, str(name), None) is not statistic:
            return None
        try:
            stat = registry.get(name)
        except ValueError:
            return None
        if stat.public != name:
            return None
    stat, suffix = registry.parse(name)
    if stat.family != "table":
        return None
    weights = kwargs.pop("weights", None)
    if stat.weights == "level":
        weights = kwargs.pop("level", weights)
    if weights is None:
        weights = suffix                           # a suffixed name is an explicit choice
    if stat.needs_binary and scale.k != 2:
        raise InputError(f"{stat.name} needs binary labels, got {scale.k} levels")
    params = {p: kwargs.pop(p) for p in stat.params if p in kwargs}
    if kwargs:
        raise TypeError(f"{stat.name} got unexpected keyword(s) {sorted(kwargs)}")
    if "prevalence" in params:
        params["prevalence"] = tuple(np.atleast_1d(np.asarray(params["prevalence"], dtype=float)))
    bound = registry.resolve(stat.name, weights, scale=scale, **params)
    try:
        levels = np.asarray(scale.levels, dtype=float)
    except (TypeError, ValueError):
        levels = None
    return bound.kernel(scale.k, levels), bound.components(scale.k, scale.labels)


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SensitivityResult:
    """Values under each scenario, differences from the baseline, contrasts and spreads.

    Attributes
    ----------
    results : ResultSet
        Keys ``scenario``, ``group`` and ``kind`` (``value``, ``difference`` from the baseline,
        ``contrast`` between two scenarios, ``spread`` = max − min over a group's values).
    scenarios : pandas.DataFrame
        ``scenario, group, n, n_dropped, n_relabelled, description``.
    statistic : str
        The statistic's name.
    notes : tuple of str
        What the reader should know about how the values were obtained.
    replicates : numpy.ndarray or None
        The bootstrap replicates of every row (None for point estimates).

    Examples
    --------
    >>> import metaeval
    >>> from metaeval.checks.sensitivity import few_shot_scenarios
    >>> v = metaeval.datasets.load("imageclef_like").validation
    >>> r = metaeval.sensitivity(metaeval.cohen_kappa, v, few_shot_scenarios(), ci_method=None)
    >>> sorted(set(r.to_frame()["kind"]))
    ['contrast', 'difference', 'value']
    """

    results: ResultSet
    scenarios: pd.DataFrame
    statistic: str
    notes: tuple = ()
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        """Every row as a tidy frame: ``scenario, group, kind`` and the package's fixed columns.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import metaeval
        >>> v = metaeval.datasets.load("imageclef_like").validation
        >>> metaeval.sensitivity(metaeval.cohen_kappa, v, [], ci_method=None).to_frame()["scenario"].tolist()
        ['baseline']
        """
        return self.results.to_frame()

    @property
    def baseline(self) -> Estimate:
        """The statistic on the data as given."""
        return self.get("baseline")

    def get(self, scenario: str, kind: str = "value", component: str | None = None) -> Estimate:
        """The estimate of one scenario.

        Parameters
        ----------
        scenario : str
            The scenario's name (``"baseline"`` for the data as given).
        kind : {"value", "difference", "contrast", "spread"}
        component : str, optional
            The entry of a vector statistic (e.g. ``"recall[1]"``); required when the statistic
            has several entries (an ambiguous lookup raises, naming them).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> import metaeval
        >>> v = metaeval.datasets.load("imageclef_like").validation
        >>> r = metaeval.sensitivity(metaeval.cohen_kappa, v, [], ci_method=None)
        >>> round(r.get("baseline").estimate, 3)
        0.603
        """
        keys = {"scenario": scenario, "kind": kind}
        if component is not None:
            keys["statistic"] = component
        return self.results.get(**keys)

    def influence(self, group: str = "leave-one-topic-out") -> pd.DataFrame:
        """The differences of one group of scenarios, largest |difference| first.

        Parameters
        ----------
        group : str
            The scenarios' group (default: the topics left out one at a time by
            :func:`leave_one_topic_out`).

        Returns
        -------
        pandas.DataFrame
            The ``difference`` rows of that group, sorted by absolute size.

        Examples
        --------
        >>> import metaeval
        >>> from metaeval.checks.sensitivity import leave_one_topic_out
        >>> v = metaeval.datasets.load("imageclef_like").validation
        >>> r = metaeval.sensitivity(metaeval.cohen_kappa, v, leave_one_topic_out(), ci_method=None)
        >>> len(r.influence()) == v["query_id"].nunique()
        True
        """
        f = self.to_frame()
        f = f[(f["group"] == group) & (f["kind"] == "difference")].copy()
        f = f.assign(_abs=f["estimate"].abs()).sort_values("_abs", ascending=False, kind="stable")
        return f.drop(columns="_abs").reset_index(drop=True)

    def __str__(self) -> str:
        f = self.to_frame()
        lines = [f"sensitivity of {self.statistic}"]
        for r in f.itertuples():
            p = "" if pd.isna(r.pvalue) else f", p = {r.pvalue:.3g}"
            lines.append(f"  {r.kind:<10} {r.scenario:<40} {r.statistic:<16} {r.estimate: .4f} "
                         f"[{r.ci_low: .4f}, {r.ci_high: .4f}] n = {r.n}{p}")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# sensitivity()
# --------------------------------------------------------------------------------------------

def _prepare(data, reference, candidate):
    from ..data.alignment import Paired, PairedTables

    if isinstance(data, PairedTables):
        raise InputError("sensitivity re-runs the analysis on scenarios that drop or relabel single pairs, so it "
                         "needs the pairs as rows; a PairedTables holds only label counts per group",
                         source="<PairedTables>", fix="align(..., rows=True) (or engine='pandas') keeps the rows")
    if isinstance(data, Paired):
        df = data.data.copy()
        scale = data.scale
        reference, candidate = "reference", "candidate"
    elif isinstance(data, pd.DataFrame):
        df = data.copy()
        scale = None
    else:
        raise InputError(f"sensitivity needs a DataFrame of judged items or a Paired, got {type(data).__name__}")
    for c in (reference, candidate):
        _col(df, c, "sensitivity")
    if _ITEM in df.columns:
        raise InputError(f"sensitivity: the data already has a column {_ITEM!r}, which holds the item ids",
                         fix="rename it")
    clash = [c for c in ("reference", "candidate") if c in df.columns and c not in (reference, candidate)]
    if clash:
        raise InputError(f"sensitivity: columns {clash} would be overwritten by the label columns",
                         fix="rename them, or name them as reference=/candidate=")
    df = df.rename(columns={reference: "reference", candidate: "candidate"})
    df[_ITEM] = np.arange(len(df))
    return df.reset_index(drop=True), scale


def _expand(scenarios, df):
    out = []
    for s in scenarios:
        if isinstance(s, Scenario):
            out.append(s)
        elif hasattr(s, "expand"):
            out.extend(s.expand(df))
        elif isinstance(s, (list, tuple)):
            out.extend(_expand(s, df))
        else:
            raise TypeError(f"a scenario must be a Scenario (or a family such as leave_one_topic_out()), got {s!r}")
    names = [s.name for s in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup or "baseline" in names:
        raise ValueError(f"scenario names must be unique and not 'baseline': {dup or ['baseline']}")
    for s in out:
        if s.contrast_with is not None and s.contrast_with not in names:
            raise ValueError(f"scenario {s.name!r} contrasts with {s.contrast_with!r}, which is not among the "
                             "scenarios")
    return out


def _apply(s: Scenario, df):
    out = s.apply(df.copy())
    if not isinstance(out, pd.DataFrame):
        raise TypeError(f"scenario {s.name!r} returned {type(out).__name__}, not a DataFrame")
    if _ITEM not in out.columns:
        raise InputError(f"scenario {s.name!r} dropped the item id column {_ITEM!r}",
                         fix="filter or relabel rows; keep the columns")
    ids = out[_ITEM].to_numpy()
    if len(ids) and (ids.min() < 0 or ids.max() >= len(df) or not np.issubdtype(ids.dtype, np.integer)):
        raise InputError(f"scenario {s.name!r} returned items that are not in the data")
    return out.reset_index(drop=True)


def sensitivity(statistic, data, scenarios, *, reference="human", candidate="judge", cluster=None, scale=None,
                select=None, ci_method="percentile", n_resamples=DEFAULT_N_RESAMPLES, confidence_level=0.95, rng=None,
                **statistic_kwargs) -> SensitivityResult:
    """Recompute a statistic under each scenario, with paired intervals for the differences.

    Parameters
    ----------
    statistic : callable or str
        A table statistic of the package (``metaeval.cohen_kappa``, ``metaeval.gwet_ac1``,
        ``metaeval.per_class``, ``metaeval.binary_metrics``, ``metaeval.kappa_at_prevalence`` ...,
        or its name; ``functools.partial`` or extra keywords fix options such as
        ``weights="quadratic"`` or ``prevalence=0.01``), or any callable ``f(frame) -> float``
        (or an Estimate, or a sequence of floats) of the item frame, which it receives with the
        data's own column names.
    data : pandas.DataFrame or Paired
        One row per judged item: the reference and candidate labels and the metadata the
        scenarios use.
    scenarios : sequence
        :class:`Scenario` objects, families such as :func:`leave_one_topic_out`, or lists of them
        (e.g. ``few_shot_scenarios() + refusal_scenarios()``).
    reference, candidate : str
        The label columns (for a Paired: its own). Scenarios see them as ``reference`` and
        ``candidate``.
    cluster : str, optional
        Column of the resampling cluster (topic). Clusters are taken from the baseline data.
    scale : Scale, optional
        Levels of the labels (default: the Paired's scale, or the union of the labels seen in the
        baseline and in every scenario).
    select : sequence of str, optional
        Components to keep for a vector statistic (e.g. ``["recall[1]"]`` of ``per_class``).
    ci_method : {"percentile", "basic", "bca", None}
        ``bca`` for table statistics only; None gives the values with no resampling.
    n_resamples, confidence_level, rng
        The bootstrap.

    Returns
    -------
    SensitivityResult
        ``to_frame()`` has columns ``scenario, group, kind`` and the package's fixed columns. For
        ``kind="difference"`` the estimate is ``scenario − baseline`` with the two-sided bootstrap
        p-value of no difference; ``contrast`` rows are ``scenario − contrast_with``; ``spread``
        rows (one per group with two or more alternative scenarios) are max − min over them.

    Notes
    -----
    A replicate draws items (or clusters) of the *baseline* with replacement; every scenario is the
    scenario's transformation of the same draw, which is exact for scenarios that act item by item
    (filters and relabellings of single items, or by topic). Scenarios that use several items at once
    (``near-duplicates canonicalized``) are evaluated on the full data and their items resampled,
    so a replicate keeps the labels the canonical item had in the data. Intervals of values,
    differences, contrasts and spreads all come from the same replicates; cluster intervals get the
    engine's small-cluster correction.

    Examples
    --------
    >>> import metaeval
    >>> from metaeval import datasets
    >>> v = datasets.load("imageclef_like").validation
    >>> r = sensitivity(metaeval.cohen_kappa, v, few_shot_scenarios()[:1], cluster="query_id", rng=0)
    >>> round(r.baseline.estimate, 3), round(r.get("drop few-shot items").estimate, 3)
    (0.603, 0.581)
    """
    if ci_method not in ("percentile", "basic", "bca", None):
        raise ValueError(f"ci_method must be 'percentile', 'basic', 'bca' or None, got {ci_method!r}")
    df, pscale = _prepare(data, reference, candidate)
    from ..data.alignment import Paired
    label_names = ("reference", "candidate") if isinstance(data, Paired) else (reference, candidate)
    scen = _expand(scenarios if isinstance(scenarios, (list, tuple)) else [scenarios], df)
    frames = [df] + [_apply(s, df) for s in scen]
    names = ["baseline"] + [s.name for s in scen]
    groups = [""] + [s.group for s in scen]
    cl = None
    if cluster is not None:
        cl = _col(df, cluster, "sensitivity")
        if cl.isna().any():
            raise InputError(f"sensitivity: {int(cl.isna().sum())} item(s) without a {cluster!r}")
        cl = pd.factorize(cl.astype("str"), sort=True)[0]
    info = []
    for s, f in zip([None] + scen, frames):
        ids = f[_ITEM].to_numpy()
        base = df.set_index(_ITEM).loc[ids] if len(ids) else df.iloc[0:0]
        relab = 0
        if len(ids):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rb = pd.to_numeric(base["reference"], errors="coerce").to_numpy(dtype=float)
                cb = pd.to_numeric(base["candidate"], errors="coerce").to_numpy(dtype=float)
                rs = pd.to_numeric(f["reference"], errors="coerce").to_numpy(dtype=float)
                cs = pd.to_numeric(f["candidate"], errors="coerce").to_numpy(dtype=float)
            relab = int(((~np.isclose(rb, rs, equal_nan=True)) | (~np.isclose(cb, cs, equal_nan=True))).sum())
        info.append({"scenario": "baseline" if s is None else s.name, "group": "" if s is None else s.group,
                     "n": len(f), "n_dropped": int(len(df) - len(np.unique(ids))), "n_relabelled": relab,
                     "description": "the data as given" if s is None else s.description})
    info = pd.DataFrame(info)
    contrasts = [(i + 1, names.index(s.contrast_with)) for i, s in enumerate(scen) if s.contrast_with is not None]
    spread_groups = {}
    for i, sc in enumerate(scen, start=1):
        if sc.alternative:
            spread_groups.setdefault(sc.group or sc.name, []).append(i)
    spread_groups = {g: idx for g, idx in spread_groups.items() if len(idx) >= 2}
    gen, seed = make_rng(rng)

    if scale is None:
        scale = pscale
    if scale is None:
        try:
            scale = Scale.infer(*[f["reference"] for f in frames], *[f["candidate"] for f in frames])
        except (TypeError, ValueError, InputError):
            scale = None        # non-numeric labels: only an opaque statistic can use them
    table = table_statistic(statistic, scale, **dict(statistic_kwargs)) if scale is not None else None
    if table is not None:
        kernel, comp = table
        values, reps, meta = _table_path(kernel, comp, frames, df, cl, scale, contrasts, spread_groups, ci_method,
                                         n_resamples, confidence_level, gen)
        stat_name = comp[0] if len(comp) == 1 else getattr(statistic, "__name__", str(statistic))
    else:
        if isinstance(statistic, str):
            raise ValueError(f"unknown statistic {statistic!r}")
        if ci_method == "bca":
            raise ValueError("ci_method='bca' is offered for table statistics only; use 'percentile' or 'basic'")
        f = functools.partial(statistic, **statistic_kwargs) if statistic_kwargs else statistic
        values, reps, meta, comp = _generic_path(f, frames, df, cl, cluster, contrasts, spread_groups, ci_method,
                                                 n_resamples, confidence_level, gen, names=label_names)
        stat_name = getattr(statistic, "__name__", "statistic")
    keep = list(range(len(comp))) if select is None else [comp.index(c) for c in select if c in comp]
    if select is not None and len(keep) != len(list(select)):
        raise ValueError(f"select: unknown component(s) {sorted(set(select) - set(comp))}; components are {comp}")
    return _assemble(values, reps, meta, comp, keep, names, groups, contrasts, spread_groups, info, stat_name,
                     confidence_level, seed)


def _cells(f, scale, k):
    r = scale.codes(pd.to_numeric(f["reference"], errors="coerce").to_numpy(dtype=float))
    c = scale.codes(pd.to_numeric(f["candidate"], errors="coerce").to_numpy(dtype=float))
    rv = pd.to_numeric(f["reference"], errors="coerce").to_numpy(dtype=float)
    cv = pd.to_numeric(f["candidate"], errors="coerce").to_numpy(dtype=float)
    present = ~(np.isnan(rv) | np.isnan(cv))
    if ((r < 0) | (c < 0))[present].any():
        bad = np.unique(np.concatenate([rv[present & (r < 0)], cv[present & (c < 0)]]))
        raise InputError(f"labels outside the scale {scale.levels}: {bad.tolist()}")
    return np.where(present, r * k + c, -1)


def _derive(V, m, contrasts, spread_groups):
    """From values V (b, n_scen, m): the full replicate vector."""
    parts = [V.reshape(len(V), -1), (V[:, 1:] - V[:, :1]).reshape(len(V), -1)]
    for i, j in contrasts:
        parts.append(V[:, i] - V[:, j])
    for _, idx in spread_groups.items():
        sub = V[:, idx]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            parts.append(np.nanmax(sub, axis=1) - np.nanmin(sub, axis=1))
    return np.concatenate(parts, axis=1)


def _table_path(kernel, comp, frames, df, cl, scale, contrasts, spread_groups, ci_method, n_resamples,
                confidence_level, gen):
    k = scale.k
    k2 = k * k
    n = len(df)
    n_scen = len(frames)
    m = len(comp)
    # per-item contribution: for each scenario, how often the item sits in each cell
    rows, cols = [], []
    for s, f in enumerate(frames):
        cell = _cells(f, scale, k)
        ok = cell >= 0
        rows.append(f[_ITEM].to_numpy()[ok])
        cols.append(s * k2 + cell[ok])
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    D = n_scen * k2
    import scipy.sparse as sp

    Xs = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, D))
    if cl is not None:
        n_cl = int(cl.max()) + 1
        agg = sp.csr_matrix((np.ones(n), (cl, np.arange(n))), shape=(n_cl, n))
        X = np.asarray((agg @ Xs).todense())
        units = Units(X, np.ones(n_cl, dtype=np.int64), kind="clusters")
    else:
        # items with the same contribution vector are one unit type
        # (two random projections identify equal rows: equal sparse rows give bit-identical sums)
        Xs.sort_indices()
        proj = np.asarray(Xs @ np.random.default_rng(20240615).random((D, 2)))
        _, first, codes = np.unique(proj, axis=0, return_index=True, return_inverse=True)
        codes = codes.ravel()
        X = np.asarray(Xs[first].todense())
        units = Units(X, np.bincount(codes, minlength=len(first)), kind="items")

    def kern(S):
        S = np.asarray(S, dtype=float)
        V = np.stack([np.asarray(kernel(S[:, s * k2:(s + 1) * k2]), dtype=float).reshape(len(S), -1)
                      for s in range(n_scen)], axis=1)
        return _derive(V, m, contrasts, spread_groups)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        res = bootstrap(kern, units, n_resamples=n_resamples, ci_method=ci_method, confidence_level=confidence_level,
                        rng=gen)
    return res.theta_hat, res, {"unit": res.unit, "n_units": res.n_units, "method": ci_method}


def _as_vector(v):
    if isinstance(v, Estimate):
        return np.array([v.estimate]), [v.statistic]
    if isinstance(v, ResultSet):
        return np.array([e.estimate for e in v]), [e.statistic for e in v]
    if hasattr(v, "estimate") and np.ndim(v.estimate) == 0:
        return np.array([float(v.estimate)]), [getattr(v, "statistic", "statistic")]
    a = np.atleast_1d(np.asarray(v, dtype=float)).ravel()
    return a, ([f"statistic[{i}]" for i in range(len(a))] if len(a) > 1 else ["statistic"])


def _generic_path(f, frames, df, cl, cluster_name, contrasts, spread_groups, ci_method, n_resamples,
                  confidence_level, gen, names=("reference", "candidate")):
    """Loop bootstrap for an opaque statistic: the same drawn clusters (items) for every scenario.

    The engine's sufficient-statistic form needs a statistic of additive per-unit sums; an opaque
    callable has none, so each replicate builds the resampled frames. In a replicate, a cluster
    drawn w times contributes its rows w times, and its copies after the first get the id
    ``<id>#<copy>`` in the cluster column (so a statistic that groups by topic sees distinct
    topics, as the cluster bootstrap intends).
    """
    n_scen = len(frames)

    def evaluate(fr):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            return _as_vector(f(fr.drop(columns=[_ITEM]).rename(columns={"reference": names[0],
                                                                          "candidate": names[1]})))

    theta, comp = [], None
    for fr in frames:
        v, c = evaluate(fr)
        theta.append(v)
        comp = comp or c
    m = len(comp)
    theta_full = _derive(np.stack(theta)[None], m, contrasts, spread_groups)[0]
    unit_of_item = cl if cl is not None else np.arange(len(df))
    n_u = int(unit_of_item.max()) + 1
    item_units = [unit_of_item[fr[_ITEM].to_numpy()] for fr in frames]
    order = [np.argsort(u, kind="stable") for u in item_units]
    starts = [np.searchsorted(u[o], np.arange(n_u + 1)) for u, o in zip(item_units, order)]
    unit = "clusters" if cl is not None else "items"
    if ci_method is None:
        res = BootstrapResult.point(theta_full, unit=unit, n_units=n_u, confidence_level=confidence_level)
        return theta_full, res, {"unit": unit, "n_units": n_u, "method": "none"}, comp
    reps = np.full((n_resamples, theta_full.size), np.nan)
    for b in range(n_resamples):
        draw = np.sort(gen.integers(0, n_u, n_u))
        copy_no = np.arange(n_u) - np.searchsorted(draw, draw)      # 0 for the first copy of a unit
        V = np.full((1, n_scen, m), np.nan)
        for s, fr in enumerate(frames):
            lens = starts[s][draw + 1] - starts[s][draw]
            idx = np.concatenate([order[s][starts[s][u]:starts[s][u + 1]] for u in draw])
            sub = fr.iloc[idx].copy()
            if cluster_name is not None:
                cp = np.repeat(copy_no, lens)
                if (cp > 0).any():
                    ids = sub[cluster_name].astype("str").to_numpy().astype(object)
                    ids[cp > 0] = [f"{a}#{c}" for a, c in zip(ids[cp > 0], cp[cp > 0])]
                    sub[cluster_name] = ids
            try:
                V[0, s] = evaluate(sub)[0]
            except Exception:       # noqa: BLE001 - an undefined replicate is NaN, as in the engine
                V[0, s] = np.nan
        reps[b] = _derive(V, m, contrasts, spread_groups)[0]
    res = BootstrapResult.from_replicates(theta_full, reps, ci_method=ci_method, confidence_level=confidence_level,
                                          unit=unit, n_units=n_u, n_clusters=n_u if cl is not None else None)
    return theta_full, res, {"unit": unit, "n_units": n_u, "method": ci_method}, comp


def _assemble(values, res, meta, comp, keep, names, groups, contrasts, spread_groups, info, stat_name,
              confidence_level, seed):
    m = len(comp)
    n_scen = len(names)
    p = res.pvalue(0.0)
    out = ResultSet(name="sensitivity")
    n_of = dict(zip(info["scenario"], info["n"]))

    def add(j, scenario, group, kind, c, n, pvalue=None):
        (est,) = res.estimates({j: comp[c]}, n=int(n), pvalues=[pvalue], seed=seed)
        out.append_with(est, scenario=scenario, group=group, kind=kind)

    for s in range(n_scen):
        for c in keep:
            add(s * m + c, names[s], groups[s], "value", c, n_of[names[s]])
    off = n_scen * m
    for s in range(1, n_scen):
        for c in keep:
            j = off + (s - 1) * m + c
            add(j, names[s], groups[s], "difference", c, n_of[names[s]], float(p[j]))
    off += (n_scen - 1) * m
    for q, (i, jx) in enumerate(contrasts):
        for c in keep:
            j = off + q * m + c
            add(j, f"{names[i]} − {names[jx]}", groups[i], "contrast", c, n_of[names[i]] + n_of[names[jx]], float(p[j]))
    off += len(contrasts) * m
    for q, (g, idx) in enumerate(spread_groups.items()):
        for c in keep:
            j = off + q * m + c
            add(j, f"spread of {g}", g, "spread", c, max(n_of[names[i]] for i in idx))
    return SensitivityResult(results=out, scenarios=info, statistic=stat_name,
                             replicates=res.replicates)
