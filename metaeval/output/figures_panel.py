"""Figures of a panel of judges: a forest plot with the set tied with the best, and a clustered heatmap.

:func:`plot_panel_forest` draws one interval per judge from a :func:`metaeval.judge_panel` result (or
its ``to_frame()``), sorted by estimate with the best at the top, the judges tied with the best in
filled markers on a shaded band and the others in open markers. :func:`plot_panel_heatmap` draws a
judge × judge matrix (``result.agreement`` or ``result.error_correlation``) with rows and columns in
the order of a hierarchical clustering (average linkage on 1 − value, leaves in optimal order), so
judges that agree (or err together) sit in blocks. Both use the theme of
:mod:`metaeval.output.figures`; files written with :func:`metaeval.figures.save` are byte-identical
from run to run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.errors import InputError
from .escape import mpl_text
from .figures import HEATMAP_CMAP, OKABE_ITO, _frame, _get_ax, _intervals, _legend_above, _require, _themed

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_panel_forest", "plot_panel_heatmap", "cluster_order"]


@_themed
def plot_panel_forest(data, *, ax: Axes | None = None, xlabel: str | None = None, max_labels: int = 80) -> Axes:
    """Each judge's estimate and interval, best at the top, the set tied with the best marked.

    Parameters
    ----------
    data : PanelResult or DataFrame
        A :func:`metaeval.judge_panel` result or its ``to_frame()`` (columns ``judge, estimate,
        ci_low, ci_high`` and ``tied_with_best``; ``statistic`` names the x axis).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (no pyplot), its height growing with the
        number of judges.
    xlabel : str, optional
        Default: the statistic's label and the interval's level.
    max_labels : int
        With more judges than this, their names are not written.

    Returns
    -------
    matplotlib.axes.Axes
        Two LineCollections of intervals (gids ``"interval:tied"`` and ``"interval:other"``), two
        Line2D of estimates (``"estimate:tied"``, ``"estimate:other"``, filled and open markers) and
        the band behind the tied judges (gid ``"tied-band"``); the judges are the y ticks, best on top.

    References
    ----------
    The drawn points and segments are the result's estimates and interval ends (tests/test_panel.py).

    Examples
    --------
    >>> import metaeval as me
    >>> from metaeval.output.figures_panel import plot_panel_forest
    >>> d = me.datasets.load("trec_dl_like")
    >>> coarse = d.qrels_judge.assign(relevance=d.qrels_judge.relevance // 2 * 3)
    >>> res = me.judge_panel(d.qrels_human, {"judge": d.qrels_judge, "coarse": coarse},
    ...                      cluster="query_id", n_resamples=200, rng=0)
    >>> ax = plot_panel_forest(res)
    >>> [t.get_text() for t in ax.get_yticklabels()]       # best first (at the top)
    ['judge', 'coarse']
    >>> sorted(a.get_gid() for a in ax.collections)
    ['interval:other', 'interval:tied']
    """
    from .figures import _label

    df = _frame(data, "plot_panel_forest")
    _require(df, ["judge", "estimate", "ci_low", "ci_high", "tied_with_best"], "plot_panel_forest",
             fix="pass a judge_panel(...) result (or its to_frame())")
    df = df.assign(judge=df["judge"].astype(str))
    df = df.sort_values(["estimate", "judge"], ascending=[False, True], na_position="last").reset_index(drop=True)
    n = len(df)
    y = np.arange(n)[::-1].astype(float)                      # best at the top
    tied = df["tied_with_best"].fillna(False).astype(bool).to_numpy()
    ax = _get_ax(ax, (4.4, min(0.18 * n + 1.3, 11.0)))
    blue, grey = OKABE_ITO["blue"], "#7f7f7f"
    if tied.any():
        band = ax.axhspan(y[tied].min() - 0.5, y[tied].max() + 0.5, color=OKABE_ITO["sky_blue"], alpha=0.15, lw=0)
        band.set_gid("tied-band")
    for sel, name, color, face in ((tied, "tied", blue, blue), (~tied, "other", grey, "white")):
        if not sel.any():
            continue
        sub = df[sel]
        _intervals(ax, y[sel], sub["ci_low"], sub["ci_high"], horizontal=True, color=color, gid=f"interval:{name}")
        ax.plot(sub["estimate"].to_numpy(dtype=float), y[sel], marker="o", linestyle="none", color=color,
                markerfacecolor=face, markersize=4, gid=f"estimate:{name}",
                label="tied with the best" if name == "tied" else "worse than the best")
    if n <= max_labels:
        ax.set_yticks(y, [mpl_text(v) for v in df["judge"].tolist()])
        ax.tick_params(axis="y", labelsize=6 if n > 25 else 7.5)
    else:
        ax.set_yticks([])
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="y", visible=False)
    if xlabel is None:
        stat = str(df["statistic"].iloc[0]) if "statistic" in df.columns and n else "estimate"
        level = df["confidence_level"].iloc[0] if "confidence_level" in df.columns and n else 0.95
        xlabel = f"{_label(stat)} ({level:.0%} interval)"
    ax.set_xlabel(xlabel)
    _legend_above(ax, 2)
    return ax


def cluster_order(matrix: pd.DataFrame) -> list:
    """The order of a symmetric similarity matrix's rows from a hierarchical clustering.

    Average linkage on the distance 1 − value (NaN as the largest distance), leaves in the optimal
    order of Bar-Joseph et al. (2001) (``scipy.cluster.hierarchy.optimal_leaf_ordering``).

    Parameters
    ----------
    matrix : DataFrame
        A square judge × judge matrix of similarities (agreement, correlation), at most 1.

    Returns
    -------
    list
        The row labels in clustered order.

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame([[1, .1, .9], [.1, 1, .2], [.9, .2, 1]], index=list("abc"), columns=list("abc"))
    >>> cluster_order(m)
    ['b', 'c', 'a']
    """
    from scipy.cluster.hierarchy import linkage, optimal_leaf_ordering
    from scipy.spatial.distance import squareform

    m = matrix.to_numpy(dtype=float)
    n = len(m)
    if n < 3:
        return list(matrix.index)
    d = 1.0 - (m + m.T) / 2
    finite = d[np.isfinite(d)]
    d = np.where(np.isfinite(d), d, (finite.max() if finite.size else 1.0) + 1.0)
    np.fill_diagonal(d, 0.0)
    d = np.maximum(d, 0.0)
    y = squareform(d, checks=False)
    z = optimal_leaf_ordering(linkage(y, method="average"), y)
    from scipy.cluster.hierarchy import leaves_list

    return [matrix.index[i] for i in leaves_list(z)]


@_themed
def plot_panel_heatmap(data, *, which: str = "agreement", order: list | None = None, ax: Axes | None = None,
                       annotate: bool | None = None, vmin: float | None = None, vmax: float | None = None,
                       colorbar: bool = True, max_labels: int = 60, diverging: bool | None = None,
                       title: str | None = None) -> Axes:
    """A judge × judge matrix as a heatmap, rows and columns in clustered order.

    Signed values (an error correlation, or any matrix with a negative value) are drawn on a
    diverging colour map (:data:`DIVERGING_CMAP`) centred at 0 with symmetric limits, so that −0.37
    and +0.37 are equally strong and 0 is white; values from 0 up (agreement) on the sequential
    :data:`~metaeval.output.figures.HEATMAP_CMAP`.

    Parameters
    ----------
    data : PanelResult or DataFrame
        A :func:`metaeval.judge_panel` result (then ``which`` picks its matrix) or a square frame.
    which : {"agreement", "error_correlation"}
        The matrix of a result to draw.
    order : list, optional
        The judges' order (default :func:`cluster_order`).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new square figure on an Agg canvas).
    annotate : bool, optional
        Write the values in the cells (default: up to 12 judges).
    vmin, vmax : float, optional
        The colour scale's ends. Default on the sequential map: the smallest off-diagonal value,
        and 1; on the diverging map: ± the largest absolute off-diagonal value.
    colorbar : bool
        Draw a colour bar (labelled with what the colours measure).
    max_labels : int
        With more judges than this, the names are not written.
    diverging : bool, optional
        Use the diverging map centred at 0 (default: for ``which="error_correlation"``, and for any
        matrix with a negative off-diagonal value unless ``vmin`` is given).
    title : str, optional
        The axes' title. Default for a result: the statistic and what it compares (``Judge × judge
        agreement: Cohen's κ``, ``Pearson correlation of the judges' errors against the reference
        (error = label ≠ reference)``); none for a bare DataFrame.

    Returns
    -------
    matplotlib.axes.Axes
        The image has gid ``"heatmap"`` and holds the matrix in the drawn order
        (``ax.images[0].get_array()``); the tick labels are the judges.

    References
    ----------
    Average linkage with optimal leaf ordering: Bar-Joseph, Gifford & Jaakkola (2001),
    Bioinformatics 17 (scipy's implementation); tests/test_panel.py checks the drawn matrix.

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval.output.figures_panel import plot_panel_heatmap
    >>> m = pd.DataFrame([[1, .1, .9], [.1, 1, .2], [.9, .2, 1]], index=list("abc"), columns=list("abc"))
    >>> ax = plot_panel_heatmap(m)
    >>> [t.get_text() for t in ax.get_xticklabels()], ax.images[0].get_gid()
    (['b', 'c', 'a'], 'heatmap')
    >>> ax = plot_panel_heatmap(m - 0.5)               # signed values: diverging, symmetric about 0
    >>> ax.images[0].get_cmap().name, ax.images[0].get_clim()
    ('RdBu_r', (-0.4, 0.4))
    """
    what = None
    if isinstance(data, pd.DataFrame):
        m = data
    else:
        if which not in ("agreement", "error_correlation"):
            raise InputError(f"plot_panel_heatmap: which must be 'agreement' or 'error_correlation', got {which!r}")
        m = getattr(data, which, None)
        if not isinstance(m, pd.DataFrame):
            raise InputError(f"plot_panel_heatmap: expected a judge_panel result or a square DataFrame, got "
                             f"{type(data).__name__}")
        what = _matrix_title(which, getattr(data, "design", None) or {})
    if m.shape[0] != m.shape[1] or list(m.index) != list(m.columns):
        raise InputError("plot_panel_heatmap: the matrix must be square with the same judges as rows and columns")
    order = cluster_order(m) if order is None else list(order)
    if sorted(map(str, order)) != sorted(map(str, m.index)):
        raise InputError("plot_panel_heatmap: order= must list every judge once")
    m = m.loc[order, order]
    vals = m.to_numpy(dtype=float)
    n = len(vals)
    off = vals[~np.eye(n, dtype=bool)]
    off = off[np.isfinite(off)]
    if diverging is None:
        diverging = (which == "error_correlation" and what is not None) or (vmin is None and bool((off < 0).any()))
    if diverging:
        lim = float(np.abs(off).max()) if off.size and np.abs(off).max() > 0 else 1.0
        vmin = -lim if vmin is None else vmin
        vmax = lim if vmax is None else vmax
    else:
        vmin = (float(off.min()) if off.size else 0.0) if vmin is None else vmin
        vmax = 1.0 if vmax is None else vmax
    ax = _get_ax(ax, (min(0.22 * n + 2.2, 9.0), min(0.22 * n + 1.8, 8.6)))
    im = ax.imshow(vals, cmap=DIVERGING_CMAP if diverging else HEATMAP_CMAP, vmin=vmin, vmax=vmax,
                   interpolation="nearest", aspect="equal")
    im.set_gid("heatmap")
    if n <= max_labels:
        labels = [mpl_text(str(v)) for v in m.index]
        ax.set_xticks(range(n), labels, rotation=90)
        ax.set_yticks(range(n), labels)
        ax.tick_params(labelsize=6 if n > 20 else 7.5)
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    ax.grid(False)
    if annotate is None:
        annotate = n <= 12
    if annotate:
        mid = (vmin + vmax) / 2
        for i in range(n):
            for j in range(n):
                if np.isfinite(vals[i, j]):
                    dark = abs(vals[i, j]) > 0.6 * max(abs(vmin), abs(vmax)) if diverging else vals[i, j] > mid
                    ax.text(j, i, f"{vals[i, j]:.2f}", ha="center", va="center", fontsize=6,
                            color="white" if dark else "black")
    # the default title and colour-bar label are mathtext already (the registry's label, e.g. $\kappa$)
    title = mpl_text(title) if title is not None else (what[0] if what is not None else "")
    if title:
        ax.set_title(title, loc="left", fontsize=8.5, wrap=True)
    if colorbar:
        bar = ax.figure.colorbar(im, ax=ax, shrink=0.8)
        if what is not None:
            bar.set_label(what[1])
    return ax


#: The colour map of signed matrices (error correlations): blue below 0, white at 0, red above.
DIVERGING_CMAP = "RdBu_r"

_ERRORS = {"indicator": ("error indicators", "error = label ≠ reference"),
           "signed": ("signed errors", "error = label − reference")}


def _matrix_title(which: str, design: dict) -> tuple[str, str]:
    """(title, colour-bar label) of a panel result's matrix: the statistic, and what it compares."""
    if which == "agreement":
        from .figures import _label

        stat = design.get("matrix_statistic") or design.get("statistic") or "agreement"
        lab = _label(str(stat))
        return f"Judge × judge agreement: {lab}", lab
    errors = str(design.get("errors", "indicator"))
    what, how = _ERRORS.get(errors, (f"errors ({errors})", ""))
    title = f"Pearson correlation of the judges' {what} against the reference" + (f" ({how})" if how else "")
    return title, "Pearson r of the errors"
