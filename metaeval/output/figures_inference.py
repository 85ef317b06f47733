"""Figures of judge-corrected system scores: intervals per system, and coverage and width against n.

:func:`plot_corrected_intervals` draws, per system, the judge-only, the corrected (PPI++) and the
human-only interval side by side (from :func:`metaeval.corrected_system_scores` results, one per
method), with the target where it is known; :func:`plot_coverage_width` draws a
:func:`metaeval.corrected_coverage` frame: coverage (with the nominal level) and mean interval width
against the number of labelled topics. Both use the theme of :mod:`metaeval.output.figures` and the
method colours of :mod:`metaeval.output.figures_budget` (Okabe–Ito: human-only blue, PPI++ bluish
green, PPI orange, judge-only vermillion; markers differ too, so the figures survive greyscale
printing). Files written with :func:`metaeval.figures.save` are byte-identical from run to run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.errors import InputError
from .figures import PALETTE, _as_grid, _frame, _get_ax, _intervals, _legend_above, _require, _themed, subplots
from .figures_budget import METHOD_COLORS, METHOD_LABELS

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..core.results import ResultSet

__all__ = ["plot_corrected_intervals", "plot_coverage_width"]

_MARKERS = {"classical": "o", "ppi++": "s", "ppi": "D", "judge_only": "^"}
_ORDER = ("judge_only", "ppi++", "ppi", "classical")


def _method_of(df: pd.DataFrame, key) -> str:
    """The method of a result frame: its ``statistic`` (``"ppi++_mean"`` → ``"ppi++"``) or the mapping key."""
    if "statistic" in df.columns and df["statistic"].nunique() == 1:
        stat = str(df["statistic"].iloc[0])
        if stat.endswith("_mean"):
            return stat[: -len("_mean")]
    return str(key)


def _long_frame(data) -> pd.DataFrame:
    """``system, method, estimate, ci_low, ci_high`` from a mapping of results or a long frame."""
    if isinstance(data, Mapping):
        parts = []
        for key, res in data.items():
            f = _frame(res, "plot_corrected_intervals")
            _require(f, ["system", "estimate", "ci_low", "ci_high"], "plot_corrected_intervals",
                     fix="pass corrected_system_scores(...) results (or their to_frame())")
            parts.append(f[["system", "estimate", "ci_low", "ci_high"]].assign(method=str(key)))
        if not parts:
            raise InputError("plot_corrected_intervals: no results given")
        return pd.concat(parts, ignore_index=True)
    df = _frame(data, "plot_corrected_intervals")
    if "method" not in df.columns:
        _require(df, ["system", "estimate", "ci_low", "ci_high"], "plot_corrected_intervals")
        df = df.assign(method=_method_of(df, "estimate"))
    _require(df, ["system", "method", "estimate", "ci_low", "ci_high"], "plot_corrected_intervals",
             fix="a long frame with a method column, or a mapping method -> corrected_system_scores result")
    return df[["system", "method", "estimate", "ci_low", "ci_high"]]


@_themed
def plot_corrected_intervals(data: Mapping[str, ResultSet | pd.DataFrame] | pd.DataFrame, *,
                             target: pd.Series | Mapping | None = None, methods: Sequence[str] | None = None,
                             order_by: str | None = None, labels: Mapping[str, str] | None = None,
                             ax: Axes | None = None, xlabel: str = "mean score (95% interval)",
                             max_labels: int = 80) -> Axes:
    """Per system: the judge-only, corrected and human-only estimates with their intervals.

    Parameters
    ----------
    data : mapping of method → result, or DataFrame
        :func:`metaeval.corrected_system_scores` results (or their ``to_frame()``) keyed by method
        (``"judge_only"``, ``"ppi++"``, ``"ppi"``, ``"classical"`` or any label), or one long frame
        with columns ``system, method, estimate, ci_low, ci_high``.
    target : Series or mapping, optional
        The value each interval aims at, by system (e.g. the all-topic human means when the
        collection is fully judged): a black tick per system (gid ``"target"``).
    methods : sequence of str, optional
        Which methods to draw, top to bottom within a system (default: judge-only, PPI++, PPI,
        human-only, those present, then any other in the order given).
    order_by : str, optional
        The method whose estimates order the systems, best at the top (default: ``"ppi++"`` when
        present, else the first method).
    labels : mapping, optional
        Display names of the methods (default :data:`metaeval.output.figures_budget.METHOD_LABELS`).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (no pyplot), its height growing with
        the number of systems.
    xlabel : str
        The x-axis label.
    max_labels : int
        With more systems than this, the system names are not written.

    Returns
    -------
    matplotlib.axes.Axes
        Per method a LineCollection of intervals (gid ``"interval:<method>"``) and a Line2D of
        estimates (gid ``"estimate:<method>"``); systems are the y ticks.

    Raises
    ------
    InputError
        Missing columns, an unknown method in ``methods`` or ``order_by``, or methods that do not
        cover the same systems.

    References
    ----------
    The drawn points and segments are the results' estimates and interval ends as given
    (tests/test_inference_systems.py checks them against the frames).

    Examples
    --------
    >>> import numpy as np, metaeval as me
    >>> from metaeval import figures
    >>> from metaeval.output.figures_inference import plot_corrected_intervals
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> lab = np.random.default_rng(7).choice(judge.topics, 15, replace=False)
    >>> res = {m: me.corrected_system_scores(human, judge, labelled_topics=lab, method=m, differences=False)
    ...        for m in ("judge_only", "ppi++", "classical")}
    >>> fig, ax = figures.subplots(figsize=(4, 6))          # an Agg canvas, no pyplot
    >>> plot_corrected_intervals(res, target=human.means(), ax=ax) is ax
    True
    >>> sorted(a.get_gid() for a in ax.collections)
    ['interval:classical', 'interval:judge_only', 'interval:ppi++']
    >>> ax.get_yticklabels()[-1].get_text()          # the best system by PPI++ at the top
    'run_05'
    """
    df = _long_frame(data)
    present = list(dict.fromkeys(df["method"]))
    if methods is None:
        methods = [m for m in _ORDER if m in present] + [m for m in present if m not in _ORDER]
    methods = [str(m) for m in methods]
    unknown = [m for m in methods if m not in present]
    if unknown:
        raise InputError(f"plot_corrected_intervals: no results for method(s) {unknown}", expected=f"some of {present}")
    df = df[df["method"].isin(methods)]
    if order_by is None:
        order_by = "ppi++" if "ppi++" in methods else methods[0]
    if order_by not in methods:
        raise InputError(f"plot_corrected_intervals: order_by={order_by!r} is not among the methods drawn",
                         expected=f"one of {methods}")
    systems = {m: set(df.loc[df["method"] == m, "system"].astype(str)) for m in methods}
    first = systems[methods[0]]
    if any(s != first for s in systems.values()):
        raise InputError("plot_corrected_intervals: the methods cover different systems",
                         fix="compute every method on the same systems")
    key = df[df["method"] == order_by].set_index(df.loc[df["method"] == order_by, "system"].astype(str))["estimate"]
    order = sorted(key.index, key=lambda s: (-float(key[s]), s))
    n = len(order)
    base = {s: n - 1 - i for i, s in enumerate(order)}
    k = len(methods)
    offs = (np.arange(k) - (k - 1) / 2) * (0.7 / k) if k > 1 else np.zeros(1)
    names = {**METHOD_LABELS, **(labels or {})}
    ax = _get_ax(ax, (4.6, min(0.16 * n + 1.4, 11.0)))
    for i, m in enumerate(methods):
        sub = df[df["method"] == m]
        y = np.array([base[str(s)] for s in sub["system"]], dtype=float) - offs[i]
        c = METHOD_COLORS.get(m, PALETTE[i % len(PALETTE)])
        _intervals(ax, y, sub["ci_low"], sub["ci_high"], horizontal=True, color=c, gid=f"interval:{m}", lw=1.0)
        ax.plot(sub["estimate"].to_numpy(dtype=float), y, marker=_MARKERS.get(m, "o"), markersize=2.8, color=c,
                linestyle="none", label=names.get(m, m), gid=f"estimate:{m}")
    if target is not None:
        t = pd.Series(target)
        t.index = t.index.astype(str)
        missing = [s for s in order if s not in t.index]
        if missing:
            raise InputError(f"plot_corrected_intervals: target lacks {len(missing)} system(s), e.g. {missing[0]!r}")
        ax.plot(t.loc[order].to_numpy(dtype=float), [base[s] for s in order], marker="|", markersize=7,
                markeredgewidth=1.2, color="black", linestyle="none", label="all-topic human mean", gid="target")
    if n <= max_labels:
        from .escape import mpl_text

        ax.set_yticks([base[s] for s in reversed(order)], [mpl_text(s) for s in reversed(order)])
        ax.tick_params(axis="y", labelsize=6 if n > 25 else 7.5)
    else:
        ax.set_yticks([])
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="y", visible=False)
    ax.set_ylabel("system")
    ax.set_xlabel(xlabel)
    entries = k + (target is not None)
    _legend_above(ax, entries if entries <= 2 else 2)      # two columns: wider rows ran off the figure ("targe")
    return ax


@_themed
def plot_coverage_width(data: pd.DataFrame, *, methods: Sequence[str] | None = None, nominal: float | None = 0.95,
                        labels: Mapping[str, str] | None = None, axes: Sequence[Axes] | np.ndarray | None = None,
                        xlabel: str = "labelled topics") -> np.ndarray:
    """Coverage (left) and mean interval width (right) against the number of labelled topics, per method.

    Parameters
    ----------
    data : DataFrame
        A :func:`metaeval.corrected_coverage` frame: ``n_labelled, method, coverage, mean_width``
        (and ``coverage_se``, drawn as ±1.96 standard-error bars when present).
    methods : sequence of str, optional
        Which methods, in order (default: those of the frame, in its order).
    nominal : float or None
        The nominal coverage: a dashed line on the coverage panel (gid ``"nominal"``).
    labels : mapping, optional
        Display names of the methods (default :data:`metaeval.output.figures_budget.METHOD_LABELS`).
    axes : pair of Axes, optional
        Where to draw coverage and width; default a new 1 × 2 figure on an Agg canvas (no pyplot).
    xlabel : str
        The x-axis label of both panels.

    Returns
    -------
    numpy.ndarray of two Axes
        An :class:`~metaeval.output.figures_display.AxesGrid` (Jupyter shows their figure): the coverage panel (lines gid ``"coverage:<method>"``, error bars ``"coverage_se:<method>"``;
        its axis starts just below the lowest coverage of at least 0.5, and methods below it, such as
        judge-only, are named with their coverage in a text, gid ``"off_scale"``) and the width panel
        (lines gid ``"width:<method>"``, with the legend).

    Raises
    ------
    InputError
        Missing columns, an unknown method, or fewer than two axes.

    References
    ----------
    The points are the frame's values as given (tests/test_inference_systems.py).

    Examples
    --------
    >>> import metaeval as me
    >>> from metaeval import figures
    >>> from metaeval.output.figures_inference import plot_coverage_width
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> cov = me.corrected_coverage(human, judge, n_labelled=(10, 20), n_draws=10, methods=("ppi++", "classical"),
    ...                             rng=0)
    >>> fig, grid = figures.subplots(1, 2, figsize=(7, 2.8))          # an Agg canvas, no pyplot
    >>> axes = plot_coverage_width(cov, axes=grid)
    >>> [line.get_gid() for line in axes[1].lines]
    ['width:ppi++', 'width:classical']
    """
    df = _frame(data, "plot_coverage_width")
    _require(df, ["n_labelled", "method", "coverage", "mean_width"], "plot_coverage_width",
             fix="pass the frame corrected_coverage returns")
    present = list(dict.fromkeys(df["method"].astype(str)))
    methods = present if methods is None else [str(m) for m in methods]
    unknown = [m for m in methods if m not in present]
    if unknown:
        raise InputError(f"plot_coverage_width: no rows for method(s) {unknown}", expected=f"some of {present}")
    if axes is None:
        _, axes = subplots(1, 2, figsize=(7.0, 2.9))
    axes = np.asarray(list(np.ravel(axes)), dtype=object)
    if len(axes) < 2:
        raise InputError(f"plot_coverage_width: needs two axes (coverage, width), got {len(axes)}")
    cov_ax, wid_ax = axes[0], axes[1]
    names = {**METHOD_LABELS, **(labels or {})}
    for i, m in enumerate(methods):
        sub = df[df["method"].astype(str) == m].sort_values("n_labelled")
        x = sub["n_labelled"].to_numpy(dtype=float)
        c = METHOD_COLORS.get(m, PALETTE[i % len(PALETTE)])
        mk = _MARKERS.get(m, "o")
        cv = sub["coverage"].to_numpy(dtype=float)
        cov_ax.plot(x, cv, color=c, marker=mk, markersize=3.5, label=names.get(m, m), gid=f"coverage:{m}")
        if "coverage_se" in sub.columns and sub["coverage_se"].notna().any():
            half = 1.96 * sub["coverage_se"].to_numpy(dtype=float)
            _intervals(cov_ax, x, cv - half, cv + half, horizontal=False, color=c, gid=f"coverage_se:{m}", lw=0.9)
        wid_ax.plot(x, sub["mean_width"].to_numpy(dtype=float), color=c, marker=mk, markersize=3.5,
                    label=names.get(m, m), gid=f"width:{m}")
    if nominal is not None:
        cov_ax.axhline(nominal, color="#777777", linestyle="--", linewidth=0.8, gid="nominal", zorder=0)
    shown = df[df["method"].astype(str).isin(methods)]
    cv_all = shown["coverage"].to_numpy(dtype=float)
    near = cv_all[cv_all >= 0.5]
    low = 0.0 if not len(near) else max(0.0, min(0.8, float(np.nanmin(near)) - 0.03))
    cov_ax.set_ylim(low, 1.0)
    off = [m for m in methods if (shown.loc[shown["method"].astype(str) == m, "coverage"] < low).any()]
    if off:   # a method far below the others (judge-only): say so instead of squashing the scale
        text = "; ".join(f"{names.get(m, m)}: " + ", ".join(
            f"{v:.2f}" for v in sorted(set(np.round(shown.loc[shown["method"].astype(str) == m, "coverage"], 2))))
            for m in off)
        cov_ax.text(0.02, 0.03, f"below the axis: {text}", transform=cov_ax.transAxes, ha="left", va="bottom",
                    fontsize=6.5, color="#555555", gid="off_scale")
    cov_ax.set_ylabel("coverage of the all-topic mean")
    wid_ax.set_ylabel("mean interval width")
    wid_ax.set_ylim(bottom=0)
    for a in (cov_ax, wid_ax):
        a.set_xlabel(xlabel)
    wid_ax.legend(loc="upper right")
    return _as_grid(axes[:2])
