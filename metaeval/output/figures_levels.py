"""Figures of score judges by level: correlations per level and method with intervals; the system scatter.

:func:`plot_level_correlations` draws a :func:`metaeval.level_correlation` result set (levels on the
x axis, one marker per method, offset side by side, with its interval); :func:`plot_system_scatter`
draws the systems' mean human score against their mean judge score (the system level). Method labels
come from the registry (:func:`metaeval.core.registry.display_label`). Both use the theme of
:mod:`metaeval.output.figures`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .escape import mpl_text
from .figures import PALETTE, _frame, _get_ax, _label, _require, _themed

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_level_correlations", "plot_system_scatter"]

_LEVEL_TEXT = {"none": "none\n(all outputs)", "item": "item\n(per input)", "system_group": "system group\n(per system)",
               "system": "system\n(system means)"}


@_themed
def plot_level_correlations(results, *, ax: Axes | None = None, ylabel: str = "correlation with humans") -> Axes:
    """Each level's correlation of the judge with humans, one marker per method, with its interval.

    Parameters
    ----------
    results : ResultSet or DataFrame
        :func:`metaeval.level_correlation` with lists of levels and/or methods (or its ``to_frame()``:
        columns ``level, method, estimate, ci_low, ci_high``).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).
    ylabel : str
        The y axis label.

    Returns
    -------
    matplotlib.axes.Axes
        One Line2D of estimates per method (gid ``"estimate:<method>"``) and one LineCollection of
        intervals per method (gid ``"interval:<method>"``); the levels are the x ticks.

    References
    ----------
    The drawn points and segments are the result's estimates and interval ends (tests/test_levels_output.py).

    Examples
    --------
    >>> import numpy as np, metaeval as me
    >>> from metaeval.output.figures_levels import plot_level_correlations
    >>> g = np.random.default_rng(0); H = g.normal(size=(8, 20)); M = H + g.normal(size=H.shape)
    >>> rs = me.level_correlation(H, M, level=["item", "system"], method=["pearson", "kendall"], ci_method=None)
    >>> ax = plot_level_correlations(rs)
    >>> sorted(line.get_gid() for line in ax.lines if line.get_gid().startswith("estimate"))
    ['estimate:kendall', 'estimate:pearson']
    """
    from matplotlib.collections import LineCollection

    df = _frame(results, "plot_level_correlations")
    _require(df, ["level", "method", "estimate", "ci_low", "ci_high"], "plot_level_correlations",
             fix="pass level_correlation(..., level=[...], method=[...])")
    levels = list(dict.fromkeys(df["level"]))
    methods = list(dict.fromkeys(df["method"]))
    ax = _get_ax(ax, (1.6 + 1.3 * len(levels), 3.6))
    width = 0.7
    step = width / max(1, len(methods))
    for k, m in enumerate(methods):
        sub = df[df["method"] == m]
        x = np.array([levels.index(v) for v in sub["level"]], float) - width / 2 + step * (k + 0.5)
        color = PALETTE[k % len(PALETTE)]
        segs = [[(xi, lo), (xi, hi)] for xi, lo, hi in zip(x, sub["ci_low"], sub["ci_high"])
                if np.isfinite(lo) and np.isfinite(hi)]
        ax.add_collection(LineCollection(segs, colors=color, linewidths=1.4, gid=f"interval:{m}"))
        ax.plot(x, sub["estimate"], "o", color=color, label=_label(m), gid=f"estimate:{m}", zorder=3)
    ax.set_xticks(range(len(levels)))
    ax.set_xticklabels([_LEVEL_TEXT.get(v, v) for v in levels])
    ax.set_xlim(-0.6, len(levels) - 0.4)
    ax.axhline(0, color="0.6", linewidth=0.8, zorder=0, gid="zero")
    ax.set_ylabel(mpl_text(ylabel))
    ax.legend(frameon=False, fontsize=8, loc="best")
    return ax


@_themed
def plot_system_scatter(human, judge, *, ax: Axes | None = None, labels: bool = True,
                        xlabel: str = "mean human score", ylabel: str = "mean judge score") -> Axes:
    """The system level: each system's mean human score against its mean judge score.

    Parameters
    ----------
    human, judge : DataFrame or 2-D array
        Score matrices (systems × items), as for :func:`metaeval.level_correlation`; the means are
        over the cells the human scored (missing human cells dropped from both).
    ax : matplotlib.axes.Axes, optional
    labels : bool
        Write each system's name beside its point.
    xlabel, ylabel : str

    Returns
    -------
    matplotlib.axes.Axes
        One Line2D of points (gid ``"systems"``); the systems' names as texts when ``labels``.

    References
    ----------
    The points are the row means that the system-level correlation uses (tests/test_levels_output.py).

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval.output.figures_levels import plot_system_scatter
    >>> H = np.array([[1.0, 2], [3, 4], [5, 5]]); M = np.array([[2.0, 2], [3, 3], [4, 6]])
    >>> ax = plot_system_scatter(H, M)
    >>> ax.lines[0].get_xydata().tolist()
    [[1.5, 2.0], [3.5, 3.0], [5.0, 5.0]]
    """
    from ..levels.correlation import score_matrices_from

    H, M, systems, _, _ = score_matrices_from(human, judge)
    V = ~(np.isnan(H) | np.isnan(M))
    cnt = V.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.where(V, H, 0.0).sum(axis=1) / cnt
        y = np.where(V, M, 0.0).sum(axis=1) / cnt
    ax = _get_ax(ax, (4.2, 4.0))
    ax.plot(x, y, "o", color=PALETTE[0], gid="systems")
    if labels:
        for xi, yi, s in zip(x, y, systems):
            ax.annotate(mpl_text(str(s)), (xi, yi), xytext=(3, 3), textcoords="offset points", fontsize=7)
    ax.set_xlabel(mpl_text(xlabel))
    ax.set_ylabel(mpl_text(ylabel))
    return ax
