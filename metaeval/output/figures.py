"""Publication figures for judge meta-evaluation, with one theme and reproducible files.

Every plot function takes plain, documented inputs (tidy frames with the package's fixed columns
``statistic, estimate, ci_low, ci_high, ...`` as ``.to_frame()`` gives them, or arrays), draws
on ``ax=`` (a new figure when omitted), returns the Axes and never calls ``plt.show()``. Figures
are built on :class:`matplotlib.figure.Figure` with the Agg canvas, without pyplot, so nothing
is left open in pyplot's global state: a script that draws a thousand figures in a loop holds none
of them (nothing to close).

In Jupyter
----------
A cell that ends with a plot function shows the figure, with no ``%matplotlib`` magic and no
``display(ax.figure)``: the figures this module creates (:func:`subplots`, and every plot function
called without ``ax=``) are a :class:`matplotlib.figure.Figure` and :class:`matplotlib.axes.Axes`
subclass that add one method each, ``_repr_png_``, which IPython's display machinery looks up on a
cell's value (the multi-panel plots return a numpy array of Axes with the same method). Nothing
else changes: they are matplotlib's classes in every other respect, ``isinstance(ax, Axes)``
holds, pyplot never tracks them, and outside IPython the method is never called. As with any
value, ``ax = plot_forest(...)`` on the last line shows nothing: end the cell with ``ax``, or call
``display(ax)``. Axes you pass with ``ax=`` are drawn on and returned as they are, so a figure from
``plt.subplots()`` is shown by pyplot (once). See :mod:`metaeval.output.figures_display`.

Theme
-----
:func:`theme` is a context manager applying :data:`STYLE` (the Okabe–Ito palette, which stays
distinguishable under the common colour-vision deficiencies (Okabe & Ito 2008); a sequential
single-hue colormap for heatmaps; DejaVu Sans, which matplotlib ships, so text renders the same
on every machine). Every plot function draws inside it. Human (reference) series are blue, judge
(candidate) series vermillion, and several series also differ by marker shape, so the figures
survive greyscale printing.

Reproducible files
------------------
:func:`save` writes PDF, SVG and PNG without time stamps (PDF ``CreationDate``, SVG ``Date``
removed; fixed ``Creator``/``Producer``/``Software``), with a fixed SVG hash salt and a fixed dpi,
so a second run writes byte-identical files (checked in tests/test_figures.py by sha256).

Functions and their inputs
--------------------------
=============================  ===================================================================
``plot_confusion``             K×K counts: array, ``metaeval.confusion_matrix`` frame, or Paired
``plot_confusion_panels``      mapping title → any of the above (one panel each)
``plot_ranking_scatter``       frame ``reference, candidate[, *_low, *_high]`` (index = system),
                               or two per-system mean vectors; tau, rho, tau_AP as numbers,
                               Estimates or a ``to_frame()`` of rank correlations
``plot_forest``                tidy frame (``statistic, estimate, ci_low, ci_high`` + a group
                               column), a ResultSet, or a mapping group → frame/ResultSet
``plot_kappa_vs_prevalence``   ``metaeval.kappa_at_prevalence`` result, or its ``curve`` frame
``plot_per_topic``             ``metaeval.agreement_by`` frame
``plot_length_by_label``       long frame ``label, length, rater`` or wide frame with one label
                               column per rater
``plot_generator_means``       frame ``generator, rater, estimate[, ci_low, ci_high]`` or long
                               scores ``generator, rater, score`` (means + cluster bootstrap)
``plot_win_rates``             frame ``model, tie_rule, estimate, ci_low, ci_high``
``plot_relevant_counts``       frame ``topic, original, expanded`` or two per-topic Series
``plot_sensitivity``           frame ``scenario, estimate, ci_low, ci_high[, difference,
                               difference_low, difference_high]``
``plot_bootstrap``             an Estimate with ``replicates`` (or an array and an interval)
``plot_corrected_intervals``   ``metaeval.corrected_system_scores`` result(s): judge-only, PPI++ and
                               human-only intervals per system
``plot_coverage_width``        ``metaeval.corrected_coverage`` frame (coverage and width against the
                               number of labelled topics; two panels)
``plot_budget_curve``          ``metaeval.label_budget`` frame (width, power or detectable difference
                               against the number of human labels)
``plot_panel_forest``          ``metaeval.judge_panel`` result: one interval per judge, sorted, the
                               set tied with the best marked
``plot_panel_heatmap``         ``metaeval.judge_panel`` result (its agreement or error-correlation
                               matrix) or a square frame, in clustered order
=============================  ===================================================================

Artists carry ``gid`` values (``"interval:<series>"``, ``"estimate"``, ``"ci"``, ``"target"``,
``"median:<rater>:<level>"`` ...) so that tests and downstream code can find what was drawn.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from cycler import cycler

from ..core.errors import InputError
from ..core.results import FRAME_COLUMNS

if TYPE_CHECKING:
    from collections.abc import Sequence
    from contextlib import AbstractContextManager

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

    from ..core.results import Estimate, ResultSet
    from ..data.alignment import Paired
    from ..systems.evaluation import SystemScores
    from ..systems.ranking import RankCorrelation

__all__ = [
    "OKABE_ITO", "PALETTE", "RATER_COLORS", "STYLE", "STATISTIC_LABELS", "TIE_RULE_LABELS",
    "theme", "subplots", "save",
    "plot_confusion", "plot_confusion_panels", "plot_ranking_scatter", "plot_forest",
    "plot_kappa_vs_prevalence", "plot_per_topic", "plot_length_by_label", "plot_generator_means",
    "plot_win_rates", "plot_relevant_counts", "plot_sensitivity", "plot_bootstrap",
    "plot_corrected_intervals", "plot_coverage_width", "plot_budget_curve",  # noqa: F822 (module __getattr__)
    "plot_panel_forest", "plot_panel_heatmap", "plot_monitor", "plot_level_correlations",  # noqa: F822
    "plot_system_scatter",  # noqa: F822 (module __getattr__)
]

# --------------------------------------------------------------------------------------------
# theme
# --------------------------------------------------------------------------------------------

#: The Okabe–Ito colour-blind-safe palette (Okabe & Ito 2008, "Color Universal Design").
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7",
}

#: Series colours in order (yellow last: it is faint on white).
PALETTE = [OKABE_ITO[c] for c in ("blue", "vermillion", "bluish_green", "orange", "reddish_purple",
                                  "sky_blue", "black", "yellow")]

#: Reference (human) and candidate (judge) colours, used wherever the two are shown side by side.
RATER_COLORS = {"human": OKABE_ITO["blue"], "judge": OKABE_ITO["vermillion"],
                "reference": OKABE_ITO["blue"], "candidate": OKABE_ITO["vermillion"]}

_MARKERS = ["o", "s", "D", "^", "v", "P", "X", "*"]

#: Display names of result names the registry of statistics does not declare (per-class metrics, rank
#: correlations). Agreement statistics take their label from :mod:`metaeval.core.registry`
#: (``registry.resolve(name).label``, weights included: "Cohen's κ (linear)").
STATISTIC_LABELS = {"precision": "precision", "recall": "recall", "f1": "F1"}

#: Display names of tie rules (OpenING, Zhou et al. 2024); unknown codes are shown as given.
TIE_RULE_LABELS = {
    "fdt": "force-dividing tie", "force_dividing": "force-dividing tie", "force": "force-dividing tie", "forced": "force-dividing tie",
    "without_ties": "without ties", "drop": "without ties", "exclude": "without ties",
    "tie_as_0": "tie as 0", "tie_zero": "tie as 0", "zero": "tie as 0",
    "tie_as_0.5": "tie as 0.5", "tie_as_half": "tie as 0.5", "tie_half": "tie as 0.5", "half": "tie as 0.5",
}

#: The rcParams of the theme (apply with :func:`theme`).
STYLE = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "mathtext.fontset": "dejavusans",
    "font.size": 8.5,
    "axes.titlesize": 9.5,
    "axes.labelsize": 8.5,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "axes.prop_cycle": cycler(color=PALETTE),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.7,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.3,
    "lines.markersize": 4.5,
    "xtick.major.width": 0.7,
    "ytick.major.width": 0.7,
    "image.cmap": "Blues",
    "figure.dpi": 100,
    "figure.facecolor": "white",
    "savefig.dpi": 200,
    "savefig.facecolor": "white",
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "path",
    "svg.hashsalt": "metaeval",
    "figure.constrained_layout.use": True,
}

#: Sequential colormap of heatmaps (single hue, lightness-monotone: readable in greyscale and
#: under colour-vision deficiencies).
HEATMAP_CMAP = "Blues"
_DPI = 200


def _style() -> dict:
    return dict(STYLE)


def theme() -> AbstractContextManager:
    """A context manager applying :data:`STYLE` (usable as a decorator too).

    Every plot function of this module draws under it; use it around your own drawing (or to
    decorate a gallery script's ``render``) to match.

    Returns
    -------
    contextlib.AbstractContextManager
        ``matplotlib.rc_context`` with :data:`STYLE`.

    Examples
    --------
    >>> from metaeval import figures
    >>> with figures.theme():
    ...     fig, ax = figures.subplots()
    ...     _ = ax.plot([0, 1], [0, 1])
    >>> ax.spines["top"].get_visible()
    False
    """
    import matplotlib

    return matplotlib.rc_context(_style())


def _themed(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with theme():
            return func(*args, **kwargs)
    return wrapper


@_themed
def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None, squeeze: bool = True,
             **kwargs) -> tuple[Figure, Axes | np.ndarray]:
    """Like ``plt.subplots`` but on an Agg canvas without pyplot (nothing to close), shown by Jupyter.

    Parameters
    ----------
    nrows, ncols : int
        The grid of Axes.
    figsize : (float, float), optional
        Inches; default 3.4 × 2.8 per panel.
    squeeze : bool
        As in matplotlib: a single Axes (or a 1-D array) instead of a 2-D array where possible.
    **kwargs
        Passed to ``Figure.subplots`` (``sharex``, ``sharey``, ``gridspec_kw``, ``subplot_kw`` ...).

    Returns
    -------
    fig : metaeval.output.figures_display.NotebookFigure
        A :class:`matplotlib.figure.Figure` with constrained layout, on a ``FigureCanvasAgg``, that
        Jupyter shows as a picture.
    ax : metaeval.output.figures_display.NotebookAxes or AxesGrid
        :class:`matplotlib.axes.Axes` (a numpy array of them for a grid) that Jupyter shows as
        their figure (with ``subplot_kw={"projection": ...}``: matplotlib's Axes of that projection).

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, axes = figures.subplots(1, 2, figsize=(6, 3))
    >>> type(fig.canvas).__name__, len(axes)
    ('FigureCanvasAgg', 2)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from .figures_display import NotebookAxes, NotebookFigure, as_grid

    if figsize is None:
        figsize = (3.4 * ncols, 2.8 * nrows)
    fig = NotebookFigure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    subplot_kw = dict(kwargs.pop("subplot_kw", None) or {})
    if not {"axes_class", "projection", "polar"} & set(subplot_kw):
        subplot_kw["axes_class"] = NotebookAxes
    axes = fig.subplots(nrows, ncols, squeeze=squeeze, subplot_kw=subplot_kw, **kwargs)
    return fig, (as_grid(axes) if isinstance(axes, np.ndarray) else axes)


def _get_ax(ax, figsize):
    if ax is not None:
        return ax
    _, ax = subplots(figsize=figsize)
    return ax


def save(fig, path_stem, formats=("pdf", "svg", "png"), *, dpi: int = _DPI) -> list[Path]:
    """Write ``fig`` as ``path_stem.<format>`` for each format, byte-identical from run to run.

    Time stamps are left out (PDF ``CreationDate``/``ModDate``, SVG ``Date``), the creator fields
    are fixed (they name metaeval and the matplotlib version, which do not change between runs),
    the SVG hash salt is fixed (``svg.hashsalt``) and the dpi is fixed.

    Parameters
    ----------
    fig : Figure or Axes
    path_stem : str or Path
        Output path without extension (a known extension such as ``.pdf`` is stripped); parent
        folders are created.
    formats : sequence of {"pdf", "svg", "png"}
    dpi : int
        Resolution of the PNG (and of images rasterized inside PDF/SVG).

    Returns
    -------
    list of Path
        The written files, in the order of ``formats``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from metaeval import figures
    >>> ax = figures.plot_confusion([[85, 20], [20, 77]])
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> [p.name for p in figures.save(ax, out / "confusion")]
    ['confusion.pdf', 'confusion.svg', 'confusion.png']
    """
    if hasattr(fig, "figure") and not hasattr(fig, "savefig"):
        fig = fig.figure
    if not hasattr(fig, "savefig"):
        raise InputError(f"save needs a matplotlib Figure or Axes, got {type(fig).__name__}")
    formats = [formats] if isinstance(formats, str) else list(formats)
    bad = [f for f in formats if f not in ("pdf", "svg", "png")]
    if bad:
        raise InputError(f"unsupported figure format(s) {bad}", expected="'pdf', 'svg' or 'png'")
    stem = Path(path_stem)
    if stem.suffix.lower().lstrip(".") in ("pdf", "svg", "png"):
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for fmt in formats:
        p = stem.with_name(stem.name + "." + fmt)
        _savefig(fig, p, fmt, dpi=dpi)
        out.append(p)
    return out


def _savefig(fig, target, fmt: str, *, dpi: int = _DPI) -> None:
    """``fig.savefig`` with fixed metadata (no time stamps), so the bytes repeat from run to run.

    ``target`` is a path or a binary file object (the report embeds PNGs from memory).
    """
    import matplotlib

    creator = f"metaeval (matplotlib {matplotlib.__version__})"
    meta = {"pdf": {"Creator": creator, "Producer": creator, "CreationDate": None, "ModDate": None},
            "svg": {"Creator": creator, "Date": None},
            "png": {"Software": creator}}
    with theme():
        fig.savefig(target, format=fmt, dpi=dpi, metadata=meta[fmt])


# --------------------------------------------------------------------------------------------
# input helpers
# --------------------------------------------------------------------------------------------

def _frame(data, what: str) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data.copy()
    if hasattr(data, "to_frame") and callable(data.to_frame):
        f = data.to_frame()
        if isinstance(f, pd.DataFrame):
            return f
    raise InputError(f"{what}: expected a DataFrame or a result with .to_frame(), got {type(data).__name__}")


def _require(df: pd.DataFrame, cols, what: str, fix: str | None = None):
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {missing}",
                         expected=f"columns {list(cols)} (got {list(map(str, df.columns))})", fix=fix)


def _key_columns(df: pd.DataFrame, extra_exclude=()) -> list[str]:
    """Columns that are not part of the fixed result schema (group keys)."""
    skip = set(FRAME_COLUMNS) | {"support", "method"} | set(extra_exclude)
    return [c for c in df.columns if c not in skip]


def _fmt(v, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NaN"
    return f"{float(v):.{digits}f}".replace("-", "−")


def _stat_value(v):
    """(estimate, low, high) from a number, an Estimate, a mapping or a one-row frame."""
    if v is None:
        return None
    if hasattr(v, "estimate") and hasattr(v, "ci"):
        return float(v.estimate), float(v.ci.low), float(v.ci.high)
    if isinstance(v, pd.DataFrame):
        if len(v) != 1:
            raise InputError(f"expected a one-row frame, got {len(v)} rows")
        v = v.iloc[0].to_dict()
    if isinstance(v, (Mapping, pd.Series)):
        return (float(v["estimate"]), float(v.get("ci_low", np.nan)), float(v.get("ci_high", np.nan)))
    if isinstance(v, (tuple, list)) and len(v) == 3:
        return tuple(float(x) for x in v)
    return float(v), np.nan, np.nan


def _stat_text(symbol: str, v, digits: int = 3) -> str:
    est, lo, hi = v
    s = f"{symbol} = {_fmt(est, digits)}"
    if not (math.isnan(lo) or math.isnan(hi)):
        s += f" [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"
    return s


def _intervals(ax, pos, low, high, *, horizontal: bool, color, gid: str, lw: float = 1.1):
    """Interval segments as one LineCollection (intervals need not contain the estimate, e.g. basic
    bootstrap intervals, so they are drawn from their ends, not as ± errors)."""
    pos, low, high = (np.asarray(a, dtype=float) for a in (pos, low, high))
    ok = ~(np.isnan(low) | np.isnan(high) | np.isnan(pos))
    if horizontal:
        coll = ax.hlines(pos[ok], low[ok], high[ok], colors=color, linewidth=lw)
    else:
        coll = ax.vlines(pos[ok], low[ok], high[ok], colors=color, linewidth=lw)
    coll.set_gid(gid)
    return coll


def _legend_above(ax, ncols: int):
    return ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.01), ncols=max(int(ncols), 1), borderaxespad=0.0,
                     handletextpad=0.3, columnspacing=1.0)


def _log_axis(axis):
    """Log axis with plain-number tick labels at 1, 2, 5 × 10^k."""
    from matplotlib.ticker import LogLocator, NullFormatter, StrMethodFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(StrMethodFormatter("{x:g}"))
    axis.set_minor_formatter(NullFormatter())


def _label(stat: str) -> str:
    """The reader-facing label of a statistic or method: the registry's (:func:`metaeval.core.registry.display_label`;
    its math form, e.g. ``$\\tau_b$``, drawn by mathtext), else :data:`STATISTIC_LABELS`, else the name."""
    from ..core import registry

    lab = registry.display_label(str(stat))
    if lab.latex is not None and "$" in lab.latex:
        return lab.latex
    if lab.text != str(stat):
        return _t(lab.text)
    return STATISTIC_LABELS[stat] if stat in STATISTIC_LABELS else _t(stat)


def _t(text) -> str:
    """Text from the data (a name, an id, a label) for a figure: drawn as written, ``$`` included."""
    from .escape import mpl_text

    return mpl_text(text)


def _unique(values) -> list:
    return list(pd.unique(pd.Series(list(values), dtype=object)))


# --------------------------------------------------------------------------------------------
# confusion matrices
# --------------------------------------------------------------------------------------------

def _confusion_input(data, labels):
    names = None
    if hasattr(data, "table") and hasattr(data, "scale") and callable(data.table):  # Paired
        t = np.asarray(data.table(), dtype=float)
        lab = list(data.scale.labels)
        names = tuple(getattr(data, "names", ("reference", "candidate")))
        return t, lab, lab, names
    if isinstance(data, pd.DataFrame):
        t = data.to_numpy(dtype=float)
        rl, cl = [str(v) for v in data.index], [str(v) for v in data.columns]
        if data.index.name not in (None, "reference") and data.columns.name not in (None, "candidate"):
            names = (str(data.index.name), str(data.columns.name))
    else:
        t = np.asarray(data, dtype=float)
        rl = cl = None
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
        raise InputError(f"a confusion matrix must be a square K×K table with K ≥ 2, got shape {t.shape}",
                         fix="pass metaeval.confusion_matrix(...) or a Paired")
    if np.isnan(t).any() or (t < 0).any():
        raise InputError("the confusion matrix has negative or NaN cells")
    k = t.shape[0]
    if labels is not None:
        if len(labels) != k:
            raise InputError(f"labels has {len(labels)} entries for a {k}×{k} table")
        rl = cl = [str(v) for v in labels]
    if rl is None:
        rl = cl = [str(i) for i in range(k)]
    return t, rl, cl, names


@_themed
def plot_confusion(data: ArrayLike | pd.DataFrame | Paired, *, normalize: str | None = None,
                   labels: Sequence | None = None, ax: Axes | None = None, title: str | None = None,
                   xlabel: str | None = None, ylabel: str | None = None, cmap: str | None = None,
                   colorbar: bool = False, digits: int = 2) -> Axes:
    """Heatmap of a confusion matrix, counts or row-normalized, with the value in every cell.

    Parameters
    ----------
    data : array (K, K), DataFrame or Paired
        Counts with rows = reference (human) and columns = candidate (judge): a
        :func:`metaeval.confusion_matrix` frame (its index and columns give the labels), a
        :class:`metaeval.Paired` (its table and scale), or a plain array.
    normalize : {None, "row", "column", "all"}
        ``"row"`` divides each row by its total, so the diagonal shows per-class recall (UMBRELA's
        per-class accuracy); the colour scale is then fixed to [0, 1]. A row without items shows
        "–". With ``None`` the counts are shown as integers.
    labels : sequence of str, optional
        Level names (overrides those of the input).
    xlabel, ylabel : str, optional
        Default: the names of a Paired's two sides, else "judge" and "human".
    digits : int
        Decimals of normalized values.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    title : str, optional
        Axes title.
    cmap : str, optional
        Colormap name (default :data:`HEATMAP_CMAP`, single-hue "Blues").
    colorbar : bool
        Add a colour bar beside the heatmap.

    Returns
    -------
    matplotlib.axes.Axes
        The image is ``ax.images[0]`` (its array holds the plotted values); cell texts are in
        ``ax.texts`` in row-major order.

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_confusion([[85, 20], [20, 77]], normalize="row", labels=["no", "yes"], ax=ax) is ax
    True
    >>> [t.get_text() for t in ax.texts]
    ['0.81', '0.19', '0.21', '0.79']
    """
    import matplotlib as mpl

    t, rl, cl, names = _confusion_input(data, labels)
    k = t.shape[0]
    from ..core.tables import normalize_counts

    v = normalize_counts(t, normalize)
    ax = _get_ax(ax, (0.55 * k + 1.6, 0.5 * k + 1.4))
    cmap = mpl.colormaps[cmap or HEATMAP_CMAP]
    vmax = 1.0 if normalize else (np.nanmax(v) if np.nanmax(v) > 0 else 1.0)
    norm = mpl.colors.Normalize(vmin=0.0, vmax=vmax)
    im = ax.imshow(np.ma.masked_invalid(v), cmap=cmap, norm=norm, aspect="equal", interpolation="nearest")
    im.set_gid("confusion")
    integer = normalize is None and np.allclose(t, np.round(t))
    for i in range(k):
        for j in range(k):
            val = v[i, j]
            if np.isnan(val):
                txt, colour = "–", "black"
            else:
                txt = f"{int(round(val)):d}" if integer else f"{val:.{digits}f}"
                r, g, b, _ = cmap(norm(val))
                colour = "white" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5 else "black"
            ax.text(j, i, txt, ha="center", va="center", color=colour, fontsize=7.5 if k <= 5 else 6)
    ax.set_xticks(range(k), [_t(c) for c in cl])
    ax.set_yticks(range(k), [_t(r) for r in rl])
    ax.grid(False)
    for s in ax.spines.values():
        s.set_visible(False)
    ax.tick_params(length=0)
    ref_name, cand_name = names if names else ("human", "judge")
    ax.set_xlabel(xlabel if xlabel is not None else _t(cand_name))
    ax.set_ylabel(ylabel if ylabel is not None else _t(ref_name))
    if title is not None:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.8)
    return ax


@_themed
def plot_confusion_panels(tables: Mapping | Sequence, *, normalize: str | Sequence | None = None,
                          ncols: int | None = None, axes: Sequence[Axes] | np.ndarray | None = None,
                          panel_size: tuple[float, float] = (2.5, 2.4), **kwargs) -> np.ndarray:
    """Several confusion matrices side by side, one panel per dataset, judge or normalization.

    Parameters
    ----------
    tables : mapping of title → table, or sequence of (title, table)
        Each table is anything :func:`plot_confusion` accepts.
    normalize : None, str, or a sequence with one entry per table
        E.g. ``normalize=[None, "row"]`` for the same table as counts and row-normalized.
    ncols : int, optional
        Panels per row (default: all in one row, at most 4).
    axes : sequence of Axes, optional
        Where to draw (at least as many as tables); a new figure otherwise.
    kwargs
        Passed to :func:`plot_confusion` (``labels``, ``xlabel``, ``ylabel``, ``digits`` ...).
    panel_size : (float, float)
        Width and height of one panel in inches (for a new figure).

    Returns
    -------
    numpy.ndarray of Axes
        One per table, in order (unused grid cells are hidden); an
        :class:`~metaeval.output.figures_display.AxesGrid`, which Jupyter shows as their figure.

    Examples
    --------
    >>> from metaeval import figures
    >>> t = [[85, 20], [20, 77]]
    >>> fig, grid = figures.subplots(1, 2)        # an Agg canvas, no pyplot
    >>> axes = figures.plot_confusion_panels({"counts": t, "row-normalized": t}, normalize=[None, "row"], axes=grid)
    >>> list(axes) == list(grid)
    True
    >>> [a.get_title() for a in axes]
    ['counts', 'row-normalized']
    """
    items = list(tables.items()) if isinstance(tables, Mapping) else [tuple(x) for x in tables]
    if not items:
        raise InputError("plot_confusion_panels: no tables given")
    n = len(items)
    norms = list(normalize) if isinstance(normalize, (list, tuple)) else [normalize] * n
    if len(norms) != n:
        raise InputError(f"normalize has {len(norms)} entries for {n} tables")
    if axes is None:
        ncols = ncols or min(n, 4)
        nrows = math.ceil(n / ncols)
        _, grid = subplots(nrows, ncols, figsize=(panel_size[0] * ncols, panel_size[1] * nrows), squeeze=False)
        flat = list(grid.ravel())
        for extra in flat[n:]:
            extra.set_visible(False)
    else:
        flat = list(np.ravel(axes))
        if len(flat) < n:
            raise InputError(f"{len(flat)} axes given for {n} tables")
    for ax, (title, t), nz in zip(flat, items, norms):
        plot_confusion(t, normalize=nz, ax=ax, title=str(title), **kwargs)
    return _as_grid(flat[:n])


def _as_grid(axes):
    from .figures_display import as_grid

    return as_grid(axes)


# --------------------------------------------------------------------------------------------
# system rankings
# --------------------------------------------------------------------------------------------

_CORR_KEYS = {"tau": ("kendall_b", "kendall_tau", "kendall", "kendall_a"),
              "rho": ("spearman", "spearman_rho"),
              "tau_ap": ("tau_ap", "tau_ap_a", "tau_ap_b")}


def _pairs(v, n, what):
    if v is None:
        return np.full(n, np.nan), np.full(n, np.nan)
    a = np.asarray(v, dtype=float)
    if a.shape == (2, n):
        return a[0], a[1]
    if a.shape == (n, 2):
        return a[:, 0], a[:, 1]
    raise InputError(f"{what} must be (low, high) arrays of length {n}, got shape {a.shape}")


def _pick_correlation(v, aliases, what):
    """One correlation out of a RankCorrelation / ResultSet / several-row frame (by its method name)."""
    if v is None or (hasattr(v, "estimate") and hasattr(v, "ci")):
        return v
    result = hasattr(v, "to_frame") and callable(v.to_frame) and not isinstance(v, (pd.DataFrame, pd.Series))
    if result:
        v = _frame(v, what)
    if isinstance(v, pd.DataFrame) and (result or len(v) != 1):
        col = "method" if "method" in v.columns else ("statistic" if "statistic" in v.columns else None)
        hit = v[v[col].isin(aliases)] if col is not None else v.iloc[0:0]
        if not len(hit):
            have = sorted(map(str, v[col].unique())) if col is not None else []
            raise InputError(f"{what}: the result holds no {' / '.join(aliases[:2])} (it has {', '.join(have)})",
                             fix=f"compute it, e.g. rank_correlation(..., methods={aliases[0]!r})")
        return hit.iloc[[0]]
    return v


def _is_scores(v) -> bool:
    """A SystemScores (or any object with .matrix() and .measures)."""
    return hasattr(v, "matrix") and callable(v.matrix) and hasattr(v, "measures")


@_themed
def plot_ranking_scatter(data: pd.DataFrame | pd.Series | ArrayLike | SystemScores | RankCorrelation,
                         y: ArrayLike | pd.Series | SystemScores | None = None, *,
                         x_interval: ArrayLike | None = None, y_interval: ArrayLike | None = None, tau=None,
                         rho=None, tau_ap=None, correlations: pd.DataFrame | ResultSet | None = None,
                         measure: str | None = None, xlabel: str | None = None, ylabel: str | None = None,
                         label_points: bool = False, identity: bool = False, ax: Axes | None = None,
                         digits: int = 3) -> Axes:
    """Per-system metric under the reference (human) qrels vs under the candidate (judge) qrels.

    Parameters
    ----------
    data : DataFrame, Series, array, SystemScores or RankCorrelation
        A frame with columns ``reference`` and ``candidate`` (per-system means; index or a
        ``system`` column = system names; e.g. ``rank_correlation(...).means``) and optionally
        ``reference_low, reference_high, candidate_low, candidate_high`` (topic-bootstrap
        intervals of the means). Or the reference means as a vector, with ``y`` the candidate
        means (two Series are matched on their index). Or the reference's
        :class:`~metaeval.SystemScores` with ``y`` the candidate's (the systems' means over the
        common topics, as :func:`~metaeval.rank_correlation` computes them). Or a
        :class:`~metaeval.RankCorrelation`: its ``.means`` are plotted and its correlations printed.
    y : array-like or SystemScores, optional
        Candidate means (or scores), when ``data`` is a vector (or scores).
    measure : str, optional
        The measure to take from two SystemScores (not needed when they hold one).
    x_interval, y_interval : (low, high) arrays, optional
        Intervals of the reference and candidate means for the vector form.
    tau, rho, tau_ap : float, Estimate, RankCorrelation, mapping or frame, optional
        Kendall's tau, Spearman's rho and tau_AP to print in the corner (with their interval
        when given). They are *not* computed here: pass the values from the ranking statistics
        (a whole :func:`~metaeval.rank_correlation` result works: its ``kendall_b``, ``spearman``
        or ``tau_ap`` row is taken).
    correlations : DataFrame or ResultSet, optional
        A tidy frame of rank correlations (``statistic`` one of ``kendall_b``/``kendall_tau``,
        ``spearman``, ``tau_ap``); explicit ``tau``/``rho``/``tau_ap`` take precedence.
    label_points : bool
        Write the system name beside each point.
    identity : bool
        Draw the line y = x (useful when both axes are on the same scale).
    xlabel, ylabel : str, optional
        Axis labels (default "<measure>, human qrels" and "<measure>, judge qrels", with
        "metric" when the measure is not known).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    digits : int
        Decimals of the printed correlations.

    Returns
    -------
    matplotlib.axes.Axes
        Points: the Line2D with gid ``"systems"``; intervals: LineCollections with gid
        ``"interval:reference"`` (horizontal) and ``"interval:candidate"`` (vertical); the
        correlation text has gid ``"correlations"``.

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_ranking_scatter([0.5, 0.6, 0.7], [0.30, 0.36, 0.33], tau=0.333, rho=0.5, ax=ax) is ax
    True
    >>> print(ax.texts[0].get_text())
    τ = 0.333
    ρ = 0.500

    The objects the ranking statistics return work as they are:

    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> human = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
    >>> judge = me.system_scores(d.qrels_judge, d.runs, "nDCG@10")
    >>> rc = me.rank_correlation(human, judge, methods="kendall_b", ci_method=None)
    >>> fig, ax = figures.subplots()
    >>> ax = figures.plot_ranking_scatter(human, judge, tau=rc, ax=ax)
    >>> ax.texts[0].get_text(), ax.get_xlabel()
    ('τ = 0.830', 'nDCG@10, human qrels')
    """
    if _is_scores(data) or _is_scores(y):
        if not (_is_scores(data) and _is_scores(y)):
            raise InputError("plot_ranking_scatter: pass the scores of both sides (reference and candidate)",
                             fix="plot_ranking_scatter(human_scores, judge_scores)")
        from ..systems.ranking import _infer_measure, score_matrices

        measure = _infer_measure(data, y, measure)
        R, C, _ = score_matrices(data, y, measure=measure)
        data, y = pd.DataFrame({"reference": R.mean(axis=1), "candidate": C.mean(axis=1)}), None
    elif hasattr(data, "means") and isinstance(data.means, pd.DataFrame) and hasattr(data, "to_frame"):
        if correlations is None and tau is None and rho is None and tau_ap is None:
            correlations = data
        if measure is None and isinstance(getattr(data, "info", None), Mapping):
            measure = data.info.get("measure")
        data = data.means
    what = "metric" if measure is None else str(measure)
    xlabel = f"{what}, human qrels" if xlabel is None else xlabel
    ylabel = f"{what}, judge qrels" if ylabel is None else ylabel
    tau = _pick_correlation(tau, _CORR_KEYS["tau"], "tau")
    rho = _pick_correlation(rho, _CORR_KEYS["rho"], "rho")
    tau_ap = _pick_correlation(tau_ap, _CORR_KEYS["tau_ap"], "tau_ap")
    if isinstance(data, pd.DataFrame):
        if y is not None:
            raise InputError("pass either a frame or two vectors (data, y), not both")
        df = data.copy()
        if "system" in df.columns:
            df = df.set_index("system")
        _require(df, ["reference", "candidate"], "plot_ranking_scatter",
                 fix="rename the per-system mean columns to 'reference' and 'candidate'")
        names = [str(s) for s in df.index]
        xv, yv = df["reference"].to_numpy(dtype=float), df["candidate"].to_numpy(dtype=float)
        n = len(df)
        xl = df["reference_low"].to_numpy(dtype=float) if "reference_low" in df else np.full(n, np.nan)
        xh = df["reference_high"].to_numpy(dtype=float) if "reference_high" in df else np.full(n, np.nan)
        yl = df["candidate_low"].to_numpy(dtype=float) if "candidate_low" in df else np.full(n, np.nan)
        yh = df["candidate_high"].to_numpy(dtype=float) if "candidate_high" in df else np.full(n, np.nan)
        if x_interval is not None:
            xl, xh = _pairs(x_interval, n, "x_interval")
        if y_interval is not None:
            yl, yh = _pairs(y_interval, n, "y_interval")
    else:
        if y is None:
            raise InputError("plot_ranking_scatter needs the candidate means y (or a frame)")
        if isinstance(data, pd.Series) and isinstance(y, pd.Series):
            common = [s for s in data.index if s in set(y.index)]
            if len(common) != len(data) or len(common) != len(y):
                raise InputError(f"the two Series share {len(common)} systems of {len(data)} and {len(y)}",
                                 fix="pass the same systems on both sides")
            names = [str(s) for s in common]
            xv, yv = data.loc[common].to_numpy(dtype=float), y.loc[common].to_numpy(dtype=float)
        else:
            xv, yv = np.asarray(data, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
            names = [str(s) for s in data.index] if isinstance(data, pd.Series) else [str(i) for i in range(len(xv))]
        if len(xv) != len(yv):
            raise InputError(f"the reference has {len(xv)} systems and the candidate {len(yv)}")
        n = len(xv)
        xl, xh = _pairs(x_interval, n, "x_interval")
        yl, yh = _pairs(y_interval, n, "y_interval")
    if n < 2:
        raise InputError(f"plot_ranking_scatter needs at least 2 systems, got {n}")
    ax = _get_ax(ax, (3.4, 3.1))
    _intervals(ax, yv, xl, xh, horizontal=True, color="#9a9a9a", gid="interval:reference", lw=0.8)
    _intervals(ax, xv, yl, yh, horizontal=False, color="#9a9a9a", gid="interval:candidate", lw=0.8)
    (pts,) = ax.plot(xv, yv, linestyle="none", marker="o", color=OKABE_ITO["blue"], markersize=4.5,
                     markeredgecolor="white", markeredgewidth=0.4, zorder=3)
    pts.set_gid("systems")
    if identity:
        lo = np.nanmin(np.concatenate([xv, yv]))
        hi = np.nanmax(np.concatenate([xv, yv]))
        ax.plot([lo, hi], [lo, hi], color="#777777", linestyle=":", linewidth=0.8, gid="identity")
    if label_points:
        for nm, a, b in zip(names, xv, yv):
            ax.annotate(_t(nm), (a, b), xytext=(3, 2), textcoords="offset points", fontsize=5.5, color="#555555")
    vals = {"tau": tau, "rho": rho, "tau_ap": tau_ap}
    if correlations is not None:
        cf = _frame(correlations, "correlations")
        col = "statistic" if "statistic" in cf.columns else ("method" if "method" in cf.columns else None)
        if col is None:
            raise InputError("correlations: expected a 'statistic' (or 'method') column")
        for key, aliases in _CORR_KEYS.items():
            if vals[key] is None:
                hit = cf[cf[col].isin(aliases)]
                if len(hit):
                    vals[key] = hit.iloc[[0]]
    lines = [_stat_text(sym, _stat_value(vals[key]), digits)
             for key, sym in (("tau", "τ"), ("rho", "ρ"), ("tau_ap", "τ$_\\mathrm{AP}$")) if vals[key] is not None]
    if lines:
        t = ax.text(0.03, 0.97, "\n".join(lines), transform=ax.transAxes, ha="left", va="top", fontsize=7.5,
                    bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="#cccccc", linewidth=0.5))
        t.set_gid("correlations")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


# --------------------------------------------------------------------------------------------
# forest plot
# --------------------------------------------------------------------------------------------

_DEFAULT_FOREST = ("cohen_kappa", "gwet_ac1", "pabak")


def _as_grouped_frame(data, group):
    if isinstance(data, Mapping):
        frames = []
        gname = group or "group"
        for key, v in data.items():
            f = _frame(v, f"plot_forest[{key!r}]")
            f.insert(0, gname, str(key))
            frames.append(f)
        if not frames:
            raise InputError("plot_forest: the mapping is empty")
        return pd.concat(frames, ignore_index=True), gname
    return _frame(data, "plot_forest"), group


@_themed
def plot_forest(data: pd.DataFrame | ResultSet | Mapping, *, group: str | None = None,
                statistics: str | Sequence[str] | None = None, labels: Mapping[str, str] | None = None,
                reference: float | None = 0.0, ax: Axes | None = None,
                xlabel: str = "agreement (95% interval)") -> Axes:
    """Forest plot: one row per group (judge, threshold, dataset), one marker per statistic.

    Parameters
    ----------
    data : DataFrame, ResultSet, or mapping of group → DataFrame/ResultSet
        Tidy rows with ``statistic, estimate, ci_low, ci_high`` (``to_frame()`` of
        :func:`metaeval.agreement_report`, :func:`metaeval.threshold_agreement`,
        :func:`metaeval.per_class` ...) and a grouping column. A mapping is concatenated with
        its keys in a column ``group`` (or the name given by ``group``).
    group : str, optional
        The grouping column. Default: ``split`` if present, else the first non-result column that
        identifies the groups (``threshold``, ``class``, ``judge`` ...); without any, each
        statistic gets its own row.
    statistics : sequence of str, optional
        Which statistics to show, in order. Default: Cohen's kappa, Gwet's AC1 and PABAK where
        present, else every statistic in the frame.
    labels : mapping, optional
        Display names of statistics (default: the registry's labels, :mod:`metaeval.core.registry`).
    reference : float or None
        A vertical reference line (default 0, "no agreement beyond chance").
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    xlabel : str
        The x-axis label.

    Returns
    -------
    matplotlib.axes.Axes
        For each statistic: markers (Line2D with gid ``"estimate:<statistic>"``) and intervals
        (LineCollection ``"interval:<statistic>"``); groups are the y tick labels, top to bottom
        in the order of the frame.

    Examples
    --------
    >>> import metaeval
    >>> from metaeval import figures
    >>> thr = metaeval.threshold_agreement(table=[[50, 9, 1], [8, 30, 7], [1, 6, 40]], n_resamples=200, rng=0)
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_forest(thr, ax=ax) is ax
    True
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['0|12', '01|2']
    """
    df, group = _as_grouped_frame(data, group)
    _require(df, ["statistic", "estimate", "ci_low", "ci_high"], "plot_forest")
    present = _unique(df["statistic"])
    if statistics is None:
        statistics = [s for s in _DEFAULT_FOREST if s in present] or present
    statistics = [statistics] if isinstance(statistics, str) else list(statistics)
    missing = [s for s in statistics if s not in present]
    if missing:
        raise InputError(f"plot_forest: statistic(s) {missing} not in the frame",
                         expected=f"some of {present}")
    df = df[df["statistic"].isin(statistics)]
    labels = dict(labels or {})
    if group is None:
        keys = _key_columns(df)
        if "split" in keys:
            group = "split"
        else:
            n_combo = len(df[keys].drop_duplicates()) if keys else 1
            group = next((k for k in keys if df[k].nunique(dropna=False) == n_combo), None)
            if group is None and keys:
                raise InputError(f"plot_forest: cannot tell the grouping column among {keys}", fix="pass group=")
    elif group not in df.columns:
        raise InputError(f"plot_forest: no column {group!r}", expected=f"one of {list(map(str, df.columns))}")
    n_rows = len(statistics) if group is None else df[group].nunique(dropna=False)
    per_row = 0.3 if group is None else 0.16 + 0.1 * len(statistics)
    ax = _get_ax(ax, (4.4, per_row * n_rows + 1.3))
    if group is None:
        # one row per statistic
        order = statistics
        ypos = {s: len(order) - 1 - i for i, s in enumerate(order)}
        for i, s in enumerate(order):
            r = df[df["statistic"] == s].iloc[0]
            c = PALETTE[i % len(PALETTE)]
            _intervals(ax, [ypos[s]], [r["ci_low"]], [r["ci_high"]], horizontal=True, color=c, gid=f"interval:{s}")
            ax.plot([r["estimate"]], [ypos[s]], marker=_MARKERS[i % len(_MARKERS)], color=c, linestyle="none",
                    gid=f"estimate:{s}")
        ax.set_yticks([ypos[s] for s in order], [labels.get(s) or _label(s) for s in order])
        ax.set_ylim(-0.6, len(order) - 0.4)
    else:
        groups = _unique(df[group])
        ng, ns = len(groups), len(statistics)
        base = {g: ng - 1 - i for i, g in enumerate(groups)}
        width = 0.6
        offs = (np.arange(ns) - (ns - 1) / 2) * (width / max(ns, 1)) if ns > 1 else np.zeros(1)
        for i, s in enumerate(statistics):
            sub = df[df["statistic"] == s]
            y = np.array([base[g] for g in sub[group]], dtype=float) - offs[i]
            c = PALETTE[i % len(PALETTE)]
            _intervals(ax, y, sub["ci_low"], sub["ci_high"], horizontal=True, color=c, gid=f"interval:{s}")
            ax.plot(sub["estimate"].to_numpy(dtype=float), y, marker=_MARKERS[i % len(_MARKERS)], color=c,
                    linestyle="none", label=labels.get(s) or _label(s), gid=f"estimate:{s}")
        ax.set_yticks([base[g] for g in groups], [_t(g) for g in groups])
        ax.set_ylim(-0.6, ng - 0.4)
        if ns > 1:
            _legend_above(ax, ns)
        ax.set_ylabel(_t(group))
    ax.grid(axis="y", visible=False)
    if reference is not None:
        ax.axvline(reference, color="#777777", linewidth=0.8, linestyle="--", gid="reference", zorder=0)
    ax.set_xlabel(xlabel)
    return ax


# --------------------------------------------------------------------------------------------
# kappa versus prevalence
# --------------------------------------------------------------------------------------------

@_themed
def plot_kappa_vs_prevalence(result=None, *, curve: pd.DataFrame | None = None,
                             measured_prevalence: float | None = None, target=None, ppv: bool = False,
                             logx: bool = True, ax: Axes | None = None, digits: int = 3) -> Axes:
    """Kappa expected at each prevalence, with its band, the measured point and the target(s).

    Parameters
    ----------
    result : PrevalenceResult, optional
        From :func:`metaeval.kappa_at_prevalence`: its ``curve`` frame, ``measured_prevalence``
        and the kappa estimates at the target prevalence(s) are used.
    curve : DataFrame, optional
        ``prevalence, kappa, kappa_low, kappa_high`` (and ``ppv, ppv_low, ppv_high`` for
        ``ppv=True``), when no result is passed.
    measured_prevalence : float, optional
        The prevalence of the validation sample (the measured kappa is the curve's value there).
    target : frame, or (prevalence, estimate, low, high) tuple, or a list of such tuples, optional
        The target prevalence(s) with kappa there; taken from ``result`` by default. A frame
        needs ``prevalence, estimate, ci_low, ci_high`` (rows with ``statistic == "kappa"``).
    ppv : bool
        Also draw the PPV curve and its band.
    logx : bool
        Log prevalence axis (default).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    digits : int
        Decimals of the printed kappa values.

    Returns
    -------
    matplotlib.axes.Axes
        Curve: Line2D gid ``"curve:kappa"``; band: PolyCollection gid ``"band:kappa"``; measured
        point: gid ``"measured"``; target lines: gid ``"target"`` (one per target) and points
        gid ``"target_point"``; texts with the values.

    Examples
    --------
    >>> import metaeval
    >>> from metaeval import figures
    >>> r = metaeval.kappa_at_prevalence(table=[[85, 20], [20, 77]], prevalence=0.0107, n_resamples=200, rng=0)
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_kappa_vs_prevalence(r, ax=ax) is ax
    True
    >>> [round(float(a.get_ydata()[0]), 3) for a in ax.lines if a.get_gid() in ("measured", "target_point")]
    [0.603, 0.063]
    """
    if result is not None:
        if curve is None:
            curve = getattr(result, "curve", None)
        if measured_prevalence is None:
            measured_prevalence = getattr(result, "measured_prevalence", None)
        if target is None and hasattr(result, "to_frame"):
            f = result.to_frame()
            if "prevalence" in f.columns:
                target = f[f["statistic"] == "kappa"]
    if curve is None:
        raise InputError("plot_kappa_vs_prevalence needs a kappa_at_prevalence result or curve=")
    cv = _frame(curve, "curve").sort_values("prevalence")
    _require(cv, ["prevalence", "kappa", "kappa_low", "kappa_high"], "plot_kappa_vs_prevalence curve")
    targets = []
    if target is not None:
        if isinstance(target, pd.DataFrame):
            t = target[target["statistic"] == "kappa"] if "statistic" in target.columns else target
            _require(t, ["prevalence", "estimate", "ci_low", "ci_high"], "plot_kappa_vs_prevalence target")
            targets = [tuple(float(v) for v in r) for r in t[["prevalence", "estimate", "ci_low", "ci_high"]]
                       .itertuples(index=False)]
        else:
            items = target if (isinstance(target, list) and target and not np.isscalar(target[0])) else [target]
            for it in items:
                if isinstance(it, tuple) and len(it) == 4:
                    targets.append(tuple(float(v) for v in it))
                else:
                    raise InputError("target must be a frame or (prevalence, estimate, low, high) tuples")
    ax = _get_ax(ax, (4.2, 3.2))
    p = cv["prevalence"].to_numpy(dtype=float)
    k = cv["kappa"].to_numpy(dtype=float)
    blue, verm = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
    band = ax.fill_between(p, cv["kappa_low"].to_numpy(dtype=float), cv["kappa_high"].to_numpy(dtype=float),
                           color=blue, alpha=0.22, linewidth=0)
    band.set_gid("band:kappa")
    ax.plot(p, k, color=blue, label="κ at prevalence π", gid="curve:kappa")
    if ppv:
        _require(cv, ["ppv", "ppv_low", "ppv_high"], "plot_kappa_vs_prevalence curve (ppv=True)")
        b2 = ax.fill_between(p, cv["ppv_low"].to_numpy(dtype=float), cv["ppv_high"].to_numpy(dtype=float),
                             color=OKABE_ITO["bluish_green"], alpha=0.18, linewidth=0)
        b2.set_gid("band:ppv")
        ax.plot(p, cv["ppv"].to_numpy(dtype=float), color=OKABE_ITO["bluish_green"], linestyle="--", label="PPV",
                gid="curve:ppv")
    if measured_prevalence is not None:
        mp = float(measured_prevalence)
        hit = np.isclose(p, mp, rtol=1e-9, atol=0)
        if hit.any():
            row = cv[hit].iloc[0]
            mk, ml, mh = float(row["kappa"]), float(row["kappa_low"]), float(row["kappa_high"])
        else:  # interpolate on the plotted axis
            xs = np.log(p) if logx else p
            xm = math.log(mp) if logx else mp
            mk = float(np.interp(xm, xs, k))
            ml = float(np.interp(xm, xs, cv["kappa_low"].to_numpy(dtype=float)))
            mh = float(np.interp(xm, xs, cv["kappa_high"].to_numpy(dtype=float)))
        _intervals(ax, [mp], [ml], [mh], horizontal=False, color="black", gid="interval:measured")
        ax.plot([mp], [mk], marker="o", color="black", linestyle="none", zorder=4, gid="measured",
                label=f"measured (π = {_fmt(mp, digits)})")
        ax.annotate(f"κ = {_fmt(mk, digits)}", (mp, mk), xytext=(-6, 6), textcoords="offset points",
                    ha="right", fontsize=7).set_gid("measured_text")
    for tp, te, tl, th in targets:
        ax.axvline(tp, color=verm, linestyle="--", linewidth=0.9, gid="target", zorder=1)
        _intervals(ax, [tp], [tl], [th], horizontal=False, color=verm, gid="interval:target")
        ax.plot([tp], [te], marker="D", color=verm, linestyle="none", zorder=4, gid="target_point")
        txt = f"π = {tp:.3g}\nκ = {_fmt(te, digits)}"
        if not (math.isnan(tl) or math.isnan(th)):
            txt += f" [{_fmt(tl, digits)}, {_fmt(th, digits)}]"
        ax.text(tp, 0.97, txt, transform=ax.get_xaxis_transform(), ha="left", va="top", fontsize=7, color=verm,
                gid="target_text", bbox=dict(boxstyle="square,pad=0.15", facecolor="white", edgecolor="none",
                                             alpha=0.85))
    if targets:
        ax.plot([], [], color=verm, linestyle="--", marker="D", label="target prevalence")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("prevalence π")
    ax.set_ylabel("κ (and PPV)" if ppv else "Cohen's κ")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=2, borderaxespad=0.0)
    return ax


# --------------------------------------------------------------------------------------------
# per-topic agreement
# --------------------------------------------------------------------------------------------

@_themed
def plot_per_topic(data: pd.DataFrame | ResultSet, *, statistic: str | None = None,
                   group: str | Sequence[str] | None = None, sort: bool = True, overall=None, ax: Axes | None = None,
                   xlabel: str | None = None, max_labels: int = 60) -> Axes:
    """Dot plot of one agreement statistic per topic (or other group), with intervals.

    Parameters
    ----------
    data : DataFrame
        :func:`metaeval.agreement_by` output: group column(s), then ``statistic, estimate,
        ci_low, ci_high, ...``.
    statistic : str, optional
        Which statistic (default: the only one present, else ``cohen_kappa``).
    group : str or list of str, optional
        The group column(s) (default: every non-result column, joined with "/").
    sort : bool
        Order groups by estimate (highest at the top); else keep the frame's order.
    overall : float, Estimate or mapping, optional
        The pooled value: a vertical line, with its interval shaded when given.
    max_labels : int
        With more groups than this, the group names are not written.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    xlabel : str, optional
        Default: the statistic's label from the registry (:mod:`metaeval.core.registry`).

    Returns
    -------
    matplotlib.axes.Axes
        Points: Line2D gid ``"estimate"``; intervals: LineCollection gid ``"interval"``; overall:
        gid ``"overall"`` (and ``"overall_band"``). Groups with an undefined (NaN) estimate are
        left out and counted in a text (gid ``"undefined"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval import figures
    >>> by = pd.DataFrame({"query_id": ["q1", "q2"], "statistic": "cohen_kappa", "estimate": [0.3, 0.5],
    ...                    "ci_low": [0.1, 0.4], "ci_high": [0.5, 0.6]})
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_per_topic(by, overall=0.45, ax=ax) is ax
    True
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['q2', 'q1']
    """
    df = _frame(data, "plot_per_topic")
    _require(df, ["statistic", "estimate", "ci_low", "ci_high"], "plot_per_topic")
    stats_present = _unique(df["statistic"])
    if statistic is None:
        statistic = stats_present[0] if len(stats_present) == 1 else "cohen_kappa"
    if statistic not in stats_present:
        raise InputError(f"plot_per_topic: no rows for statistic {statistic!r}", expected=f"one of {stats_present}")
    df = df[df["statistic"] == statistic].reset_index(drop=True)
    cols = [group] if isinstance(group, str) else (list(group) if group is not None else _key_columns(df))
    if not cols:
        raise InputError("plot_per_topic: no group column", fix="pass agreement_by(...) output or group=")
    _require(df, cols, "plot_per_topic")
    names = df[cols].astype(str).agg("/".join, axis=1)
    est = df["estimate"].to_numpy(dtype=float)
    ok = ~np.isnan(est)
    n_undefined = int((~ok).sum())
    df, names, est = df[ok].reset_index(drop=True), names[ok].reset_index(drop=True), est[ok]
    order = np.argsort(-est, kind="stable") if sort else np.arange(len(est))
    n = len(order)
    ax = _get_ax(ax, (3.4, min(0.13 * n + 1.2, 9.0)))
    y = np.empty(n)
    y[order] = np.arange(n)[::-1]
    c = OKABE_ITO["blue"]
    if overall is not None:
        oe, ol, oh = _stat_value(overall)
        if not (math.isnan(ol) or math.isnan(oh)):
            ax.axvspan(ol, oh, color=OKABE_ITO["vermillion"], alpha=0.12, linewidth=0, gid="overall_band")
        ax.axvline(oe, color=OKABE_ITO["vermillion"], linewidth=1.0, gid="overall", label=f"pooled: {_fmt(oe)}")
    _intervals(ax, y, df["ci_low"], df["ci_high"], horizontal=True, color="#8aa9c9", gid="interval", lw=0.9)
    ax.plot(est, y, marker="o", linestyle="none", color=c, markersize=3.5, gid="estimate")
    if n <= max_labels:
        ax.set_yticks(y[order], [_t(names[i]) for i in order])
        ax.tick_params(axis="y", labelsize=6 if n > 25 else 7.5)
    else:
        ax.set_yticks([])
    ax.set_ylim(-0.7, n - 0.3)
    ax.grid(axis="y", visible=False)
    ax.set_ylabel(_t("/".join(map(str, cols))))
    ax.set_xlabel(xlabel or _label(statistic))
    if n_undefined:
        ax.text(0.99, 0.01, f"{n_undefined} group(s) undefined (one class), not shown", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=6.5, color="#555555", gid="undefined")
    if overall is not None:
        ax.legend(loc="lower left")
    return ax


# --------------------------------------------------------------------------------------------
# length and self-enhancement
# --------------------------------------------------------------------------------------------

def _rater_color(name, i):
    return RATER_COLORS.get(str(name), PALETTE[i % len(PALETTE)])


@_themed
def plot_length_by_label(data: pd.DataFrame, *, label: str | Mapping[str, str] = "score", length: str = "length",
                         rater: str = "rater", raters: Sequence | None = None, levels: Sequence | None = None,
                         log: bool = True, ax: Axes | None = None, xlabel: str | None = None,
                         ylabel: str | None = None, unit: str | None = None) -> Axes:
    """Length distribution per label level, the raters side by side (box plots).

    Parameters
    ----------
    data : DataFrame
        Long form: one row per judgment with columns ``label`` (the level), ``length`` and
        ``rater`` (e.g. ``rubric_like`` scores: ``score, length, rater``). Wide form: pass
        ``label`` as a mapping ``{rater name: column}``, e.g. ``{"human": "reference", "judge":
        "candidate"}`` for ``Paired.data`` joined with lengths.
    raters : sequence, optional
        Which raters, in order (default: order of appearance; ``human`` first if present).
    levels : sequence, optional
        Label levels on the x axis (default: the sorted levels present).
    log : bool
        Log length axis (default).
    label : str or mapping
        The label column of the long form, or ``{rater name: column}`` for the wide form.
    length : str
        The length column (words, tokens, characters...).
    rater : str
        The rater column of the long form.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    xlabel : str, optional
        Default: the label column's name (``"label"`` for the wide form).
    ylabel : str, optional
        The y-axis label. Default: the length column's name, followed by ``unit`` in parentheses
        when given (``length (words)``); no unit is assumed.
    unit : str, optional
        What a length counts (``"words"``, ``"tokens"``, ``"characters"``), for the default label.

    Notes
    -----
    Boxes: quartiles; whiskers: 1.5 IQR (Tukey); outliers are not drawn. A level a rater never
    uses has no box for that rater. Levels that are not whole numbers (averaged samples: 1.3333...)
    are written with three significant digits on the axis (``1.33``).

    Returns
    -------
    matplotlib.axes.Axes
        Median lines carry gid ``"median:<rater>:<level>"``.

    Examples
    --------
    >>> from metaeval import datasets, figures
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_length_by_label(datasets.load("rubric_like").scores, ax=ax) is ax
    True
    >>> [t.get_text() for t in ax.get_xticklabels()], ax.get_ylabel()
    (['1', '2', '3', '4', '5'], 'length')
    """
    df = _frame(data, "plot_length_by_label")
    if isinstance(label, Mapping):
        _require(df, [length, *label.values()], "plot_length_by_label")
        parts = [pd.DataFrame({"_rater": str(r), "_label": df[col].to_numpy(), "_len": df[length].to_numpy()})
                 for r, col in label.items()]
        long = pd.concat(parts, ignore_index=True)
        lab_name = xlabel or "label"
    else:
        _require(df, [label, length, rater], "plot_length_by_label",
                 fix="pass the long form (label, length, rater) or label={'human': col, 'judge': col}")
        long = pd.DataFrame({"_rater": df[rater].astype(str).to_numpy(), "_label": df[label].to_numpy(),
                             "_len": df[length].to_numpy()})
        lab_name = xlabel or str(label)
    long["_len"] = pd.to_numeric(long["_len"], errors="coerce")
    long = long.dropna(subset=["_label", "_len"])
    if log and (long["_len"] <= 0).any():
        raise InputError("plot_length_by_label: lengths must be positive on a log axis", fix="pass log=False")
    rs = [str(r) for r in raters] if raters is not None else _unique(long["_rater"])
    if raters is None and "human" in rs:
        rs = ["human"] + [r for r in rs if r != "human"]
    lv = list(levels) if levels is not None else sorted(_unique(long["_label"]), key=lambda v: (float(v) if _isnum(v) else math.inf, str(v)))
    ax = _get_ax(ax, (0.55 * len(lv) * max(len(rs), 1) + 1.4, 2.8))
    width = 0.8 / max(len(rs), 1)
    for i, r in enumerate(rs):
        col = _rater_color(r, i)
        pos, vals, lvl_used = [], [], []
        for j, lvv in enumerate(lv):
            v = long.loc[(long["_rater"] == r) & (long["_label"] == lvv), "_len"].to_numpy(dtype=float)
            if len(v):
                pos.append(j + (i - (len(rs) - 1) / 2) * width)
                vals.append(v)
                lvl_used.append(lvv)
        if not vals:
            continue
        bp = ax.boxplot(vals, positions=pos, widths=width * 0.85, patch_artist=True, showfliers=False,
                        manage_ticks=False,
                        boxprops=dict(facecolor=col, alpha=0.35, edgecolor=col, linewidth=0.8),
                        medianprops=dict(color=col, linewidth=1.6),
                        whiskerprops=dict(color=col, linewidth=0.8), capprops=dict(color=col, linewidth=0.8))
        for m, lvv in zip(bp["medians"], lvl_used):
            m.set_gid(f"median:{r}:{_fmt_level(lvv)}")
        ax.plot([], [], color=col, linewidth=6, alpha=0.5, label=_t(r))
    ax.set_xticks(range(len(lv)), [_t(_tick_level(v)) for v in lv])
    ax.set_xlim(-0.6, len(lv) - 0.4)
    if log:
        ax.set_yscale("log")
        _log_axis(ax.yaxis)
    ax.grid(axis="x", visible=False)
    ax.set_xlabel(_t(lab_name))
    if ylabel is None:
        ylabel = _t(str(length)) + (f" ({_t(unit)})" if unit else "")
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left")
    return ax


def _isnum(v) -> bool:
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def _fmt_level(v) -> str:
    if _isnum(v) and float(v).is_integer():
        return str(int(float(v)))
    return str(v)


def _tick_level(v) -> str:
    """A level as an axis tick: whole numbers as integers, other numbers to three significant digits."""
    if _isnum(v) and not isinstance(v, str) and np.isfinite(float(v)) and not float(v).is_integer():
        return f"{float(v):.3g}"
    return _fmt_level(v)


def _group_means_bootstrap(df, gcols, value, cluster, n_resamples, confidence_level, rng) -> pd.DataFrame:
    """Means of ``value`` per group, with percentile intervals, from the engine.

    :func:`metaeval.core.resample.group_means` bootstraps every group in one draw (rows, or the
    ``cluster`` values: then the engine widens the intervals for few clusters and warns below its
    ``MIN_CLUSTERS``), and :meth:`~metaeval.core.resample.BootstrapResult.estimates` turns the
    replicates into the estimates drawn here. Returns ``gcols, estimate, ci_low, ci_high, n, unit,
    n_units, seed``.
    """
    from ..core.resample import group_means

    keys = df[gcols].astype(str).agg("\x1f".join, axis=1)
    gnames = _unique(keys)
    gidx = pd.Categorical(keys, categories=gnames).codes
    codes = None if cluster is None else pd.Categorical(df[cluster].astype(str)).codes
    res = group_means(df[value].to_numpy(dtype=float), gidx, cluster=codes, n_resamples=n_resamples,
                      ci_method="percentile", confidence_level=confidence_level, rng=rng)
    ests = res.estimates(gnames, n=np.bincount(gidx, minlength=len(gnames)))
    out = pd.DataFrame([k.split("\x1f") for k in gnames], columns=gcols)
    for col in ("estimate", "n", "unit", "n_units", "seed"):
        out[col] = [getattr(e, col) for e in ests]
    out["ci_low"] = [e.ci.low for e in ests]
    out["ci_high"] = [e.ci.high for e in ests]
    return out


@_themed
def plot_generator_means(data: pd.DataFrame, *, generator: str = "generator", rater: str = "rater",
                         score: str = "score", raters: Sequence | None = None, order: Sequence | None = None,
                         cluster: str | None = None, n_resamples: int = 2000, confidence_level: float = 0.95,
                         rng: int | np.random.Generator | None = 0, annotate_difference: bool = True,
                         ax: Axes | None = None, ylabel: str = "mean score", digits: int = 2) -> Axes:
    """Mean score per generator, the raters side by side (self-enhancement at a glance).

    Parameters
    ----------
    data : DataFrame
        Either summary rows ``generator, rater, estimate[, ci_low, ci_high]`` (drawn as given; a
        ``mean`` column is accepted for ``estimate``),
        or long scores ``generator, rater, score`` (one row per judgment, e.g. ``rubric_like``):
        then the means are computed here, with percentile intervals from the package's
        bootstrap (:func:`metaeval.bootstrap`), resampling ``cluster`` (e.g. ``"prompt_id"``)
        when given, else rows.
    raters : sequence, optional
        Rater order (default: ``human`` first, then order of appearance).
    order : sequence, optional
        Generator order on the x axis (default: order of appearance).
    annotate_difference : bool
        With exactly two raters, write the difference (second − first, e.g. judge − human)
        above each generator (texts with gid ``"difference:<generator>"``).
    generator, rater, score : str
        Column names of the generating model, the rater and the score.
    cluster : str, optional
        For long scores: the column whose values are resampled together (e.g. ``"prompt_id"``);
        default: rows.
    n_resamples : int
        Bootstrap resamples for the intervals of long scores.
    confidence_level : float
        Of the intervals.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap (default 0: the same figure every run).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    ylabel : str
        The y-axis label.
    digits : int
        Decimals of the differences written above the generators.

    Returns
    -------
    matplotlib.axes.Axes
        Per rater: markers (gid ``"estimate:<rater>"``), intervals (``"interval:<rater>"``).

    Examples
    --------
    >>> from metaeval import datasets, figures
    >>> s = datasets.load("rubric_like").scores
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_generator_means(s, cluster="prompt_id", n_resamples=200, ax=ax) is ax
    True
    >>> [t.get_text() for t in ax.texts]
    ['Δ = +0.49', 'Δ = −0.22', 'Δ = +0.04']
    """
    df = _frame(data, "plot_generator_means")
    if "estimate" not in df.columns and "mean" in df.columns and score not in df.columns:
        df = df.rename(columns={"mean": "estimate"})
    if "estimate" in df.columns:
        _require(df, [generator, rater, "estimate"], "plot_generator_means")
        summ = df.rename(columns={generator: "_gen", rater: "_rater"})
        summ["_gen"], summ["_rater"] = summ["_gen"].astype(str), summ["_rater"].astype(str)
        for c in ("ci_low", "ci_high"):
            if c not in summ.columns:
                summ[c] = np.nan
    else:
        _require(df, [generator, rater, score], "plot_generator_means",
                 fix="pass long scores (generator, rater, score) or summary rows with 'estimate'")
        cols = [generator, rater, score] + ([cluster] if cluster is not None else [])
        if cluster is not None:
            _require(df, [cluster], "plot_generator_means (cluster)")
        d = df[cols].dropna(subset=[score]).copy()
        d[generator], d[rater] = d[generator].astype(str), d[rater].astype(str)
        summ = _group_means_bootstrap(d, [generator, rater], score, cluster, n_resamples, confidence_level, rng)
        summ = summ.rename(columns={generator: "_gen", rater: "_rater"})
    gens = [str(g) for g in order] if order is not None else _unique(summ["_gen"])
    rs = [str(r) for r in raters] if raters is not None else _unique(summ["_rater"])
    if raters is None and "human" in rs:
        rs = ["human"] + [r for r in rs if r != "human"]
    ax = _get_ax(ax, (0.9 * len(gens) + 1.4, 2.8))
    width = 0.5 / max(len(rs), 1)
    xpos = {g: i for i, g in enumerate(gens)}
    means = {}
    for i, r in enumerate(rs):
        sub = summ[(summ["_rater"] == r) & summ["_gen"].isin(gens)]
        sub = sub.set_index("_gen").reindex([g for g in gens if g in set(sub["_gen"])])
        x = np.array([xpos[g] for g in sub.index], dtype=float) + (i - (len(rs) - 1) / 2) * width
        col = _rater_color(r, i)
        _intervals(ax, x, sub["ci_low"], sub["ci_high"], horizontal=False, color=col, gid=f"interval:{r}")
        ax.plot(x, sub["estimate"].to_numpy(dtype=float), marker=_MARKERS[i % len(_MARKERS)], color=col,
                linestyle="none", label=_t(r), gid=f"estimate:{r}")
        means[r] = sub["estimate"].astype(float).to_dict()
    if annotate_difference and len(rs) == 2:
        top = np.nanmax(np.concatenate([summ["ci_high"].to_numpy(dtype=float), summ["estimate"].to_numpy(dtype=float)]))
        for g in gens:
            a, b = means[rs[0]].get(g, np.nan), means[rs[1]].get(g, np.nan)
            if not (math.isnan(a) or math.isnan(b)):
                d = b - a
                ax.annotate(f"Δ = {'+' if d >= 0 else ''}{_fmt(d, digits)}", (xpos[g], top), xytext=(0, 7),
                            textcoords="offset points", ha="center", va="bottom", fontsize=7,
                            gid=f"difference:{g}")
        ax.margins(y=0.18)
    ax.set_xticks(range(len(gens)), [_t(g) for g in gens])
    ax.set_xlim(-0.5, len(gens) - 0.5)
    ax.grid(axis="x", visible=False)
    ax.set_xlabel(_t(generator))
    ax.set_ylabel(ylabel)
    ax.legend(loc="lower left")
    return ax


# --------------------------------------------------------------------------------------------
# pairwise battles
# --------------------------------------------------------------------------------------------

@_themed
def plot_win_rates(data: pd.DataFrame | ResultSet, *, model: str = "model", tie_rule: str = "tie_rule",
                   rules: Sequence | None = None, order: Sequence | None = None,
                   labels: Mapping[str, str] | None = None, reference: float | None = 0.5, ax: Axes | None = None,
                   xlabel: str = "win rate") -> Axes:
    """Win rate of each model under each tie rule (OpenING's four), with intervals.

    Parameters
    ----------
    data : DataFrame
        ``model, tie_rule, estimate, ci_low, ci_high``: one row per model and rule.
    rules : sequence, optional
        Rule order (default: order of appearance).
    order : sequence, optional
        Model order top to bottom (default: by the mean win rate over rules, highest first).
    labels : mapping, optional
        Display names of the rules (default :data:`TIE_RULE_LABELS`; unknown codes as given).
    reference : float or None
        Vertical reference line (0.5: as often won as lost).
    model, tie_rule : str
        Column names of the model and the tie rule.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    xlabel : str
        The x-axis label.

    Returns
    -------
    matplotlib.axes.Axes
        Per rule: markers (gid ``"estimate:<rule>"``) and intervals (``"interval:<rule>"``);
        models are the y tick labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval import figures
    >>> f = pd.DataFrame({"model": ["a", "b"], "tie_rule": "tie_half", "estimate": [0.4, 0.6],
    ...                   "ci_low": [0.3, 0.5], "ci_high": [0.5, 0.7]})
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_win_rates(f, ax=ax) is ax
    True
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['b', 'a']
    """
    df = _frame(data, "plot_win_rates")
    _require(df, [model, tie_rule, "estimate"], "plot_win_rates")
    for c in ("ci_low", "ci_high"):
        if c not in df.columns:
            df[c] = np.nan
    df[model], df[tie_rule] = df[model].astype(str), df[tie_rule].astype(str)
    rs = [str(r) for r in rules] if rules is not None else _unique(df[tie_rule])
    if order is not None:
        models = [str(m) for m in order]
    else:
        mean = df.groupby(model, sort=False)["estimate"].mean()
        models = list(mean.sort_values(ascending=False, kind="stable").index)
    names = {**TIE_RULE_LABELS, **(labels or {})}
    ax = _get_ax(ax, (3.6, 0.32 * len(models) + 1.3))
    base = {m: len(models) - 1 - i for i, m in enumerate(models)}
    ns = len(rs)
    offs = (np.arange(ns) - (ns - 1) / 2) * (0.7 / ns) if ns > 1 else np.zeros(1)
    for i, r in enumerate(rs):
        sub = df[(df[tie_rule] == r) & df[model].isin(models)]
        y = np.array([base[m] for m in sub[model]], dtype=float) - offs[i]
        c = PALETTE[i % len(PALETTE)]
        _intervals(ax, y, sub["ci_low"], sub["ci_high"], horizontal=True, color=c, gid=f"interval:{r}")
        ax.plot(sub["estimate"].to_numpy(dtype=float), y, marker=_MARKERS[i % len(_MARKERS)], color=c,
                linestyle="none", label=names[r] if r in names else _t(r), gid=f"estimate:{r}")
    ax.set_yticks([base[m] for m in models], [_t(m) for m in models])
    ax.set_ylim(-0.6, len(models) - 0.4)
    ax.grid(axis="y", visible=False)
    if reference is not None:
        ax.axvline(reference, color="#777777", linewidth=0.8, linestyle="--", gid="reference", zorder=0)
    ax.set_xlabel(xlabel)
    _legend_above(ax, min(ns, 2))
    return ax


# --------------------------------------------------------------------------------------------
# relevant counts, original vs expanded
# --------------------------------------------------------------------------------------------

@_themed
def plot_relevant_counts(original: pd.DataFrame | pd.Series | Mapping, expanded: pd.Series | Mapping | None = None,
                         *, topic: str = "query_id", columns: tuple[str, str] = ("original", "expanded"),
                         labels: tuple[str, str] = ("original qrels", "expanded qrels"), sort: bool = True,
                         log: bool = True, ax: Axes | None = None) -> Axes:
    """Relevant documents per topic, original vs expanded qrels, on a log scale.

    Parameters
    ----------
    original : DataFrame, Series or mapping
        Either a frame with a topic column (``topic``, or the index) and the two count columns
        ``columns``; or per-topic counts of the original qrels (Series/mapping topic → count),
        with ``expanded`` the per-topic counts after the expansion. A topic missing from one
        side counts 0.
    expanded : Series or mapping, optional
        Per-topic counts after the expansion (when ``original`` is a Series or mapping).
    topic : str
        The topic column of a frame (default ``query_id``; the index when absent).
    columns : (str, str)
        The original and expanded count columns of a frame.
    labels : (str, str)
        Legend entries of the two counts.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    sort : bool
        Order topics by the original count (then the expanded count), ascending.
    log : bool
        Log count axis (default). Topics with a zero count cannot be drawn there; they are
        counted in a text (gid ``"zeros"``).

    Returns
    -------
    matplotlib.axes.Axes
        Markers: gid ``"counts:original"`` and ``"counts:expanded"``; the segments between them:
        LineCollection ``"change"``; totals: text gid ``"totals"``; topics are the x tick labels.

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_relevant_counts({"t1": 5, "t2": 40}, {"t1": 9, "t2": 41}, ax=ax) is ax
    True
    >>> ax.texts[0].get_text()
    'total: 45 → 50'
    """
    if isinstance(original, pd.DataFrame):
        if expanded is not None:
            raise InputError("pass either a frame or two per-topic count Series, not both")
        df = original.copy()
        if topic in df.columns:
            df = df.set_index(topic)
        _require(df, list(columns), "plot_relevant_counts")
        o = df[columns[0]].astype(float)
        e = df[columns[1]].astype(float)
    else:
        if expanded is None:
            raise InputError("plot_relevant_counts needs the expanded counts (or a frame with both)")
        o, e = pd.Series(original, dtype=float), pd.Series(expanded, dtype=float)
        idx = _unique(list(o.index) + list(e.index))
        o, e = o.reindex(idx).fillna(0.0), e.reindex(idx).fillna(0.0)
    o.index = o.index.astype(str)
    e.index = e.index.astype(str)
    tab = pd.DataFrame({"o": o.to_numpy(), "e": e.to_numpy()}, index=o.index)
    if sort:
        tab = tab.sort_values(["o", "e"], kind="stable")
    n = len(tab)
    ax = _get_ax(ax, (max(3.4, 0.13 * n + 1.2), 2.8))
    x = np.arange(n)
    ov, ev = tab["o"].to_numpy(), tab["e"].to_numpy()
    coll = ax.vlines(x, np.minimum(ov, ev), np.maximum(ov, ev), colors="#bbbbbb", linewidth=0.8)
    coll.set_gid("change")
    ax.plot(x, ov, marker="o", linestyle="none", color=OKABE_ITO["blue"], label=labels[0], gid="counts:original",
            zorder=3)
    ax.plot(x, ev, marker="s", linestyle="none", color=OKABE_ITO["vermillion"], label=labels[1],
            markerfacecolor="white", gid="counts:expanded", zorder=3)
    ax.set_xticks(x, [_t(i) for i in tab.index], rotation=90)
    ax.tick_params(axis="x", labelsize=6 if n > 20 else 7.5)
    ax.set_xlim(-0.8, n - 0.2)
    if log:
        ax.set_yscale("log")
        _log_axis(ax.yaxis)
        zeros = int((ov <= 0).sum() + (ev <= 0).sum())
        if zeros:
            ax.text(0.99, 0.01, f"{zeros} zero count(s) not shown on the log axis", transform=ax.transAxes,
                    ha="right", va="bottom", fontsize=6.5, color="#555555", gid="zeros")
    ax.grid(axis="x", visible=False)
    ax.set_xlabel(_t(topic))
    ax.set_ylabel("relevant documents")
    ax.text(0.01, 0.99, f"total: {int(ov.sum()):,} → {int(ev.sum()):,}", transform=ax.transAxes, ha="left",
            va="top", fontsize=7, gid="totals")
    ax.legend(loc="lower right")
    return ax


# --------------------------------------------------------------------------------------------
# sensitivity scenarios
# --------------------------------------------------------------------------------------------

@_themed
def plot_sensitivity(data: pd.DataFrame | ResultSet, *, scenario: str = "scenario", baseline: str | None = None,
                     ax: Axes | None = None, xlabel: str = "estimate (95% interval)", digits: int = 3) -> Axes:
    """Sensitivity scenarios as a dot plot with intervals, the baseline marked.

    Parameters
    ----------
    data : DataFrame
        ``scenario, estimate, ci_low, ci_high`` and optionally ``difference, difference_low,
        difference_high`` (each scenario minus the baseline, e.g. from
        :func:`metaeval.agreement_difference`): then the difference is written at the right of
        each row (texts with gid ``"difference:<scenario>"``).
    baseline : str, optional
        The baseline scenario (default: the first row): a dashed vertical line at its estimate.
    scenario : str
        The scenario column.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    xlabel : str
        The x-axis label.
    digits : int
        Decimals of the printed differences.

    Returns
    -------
    matplotlib.axes.Axes
        Markers gid ``"estimate"``, intervals ``"interval"``, baseline line ``"baseline"``;
        scenarios are the y tick labels, top to bottom in the frame's order.

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval import figures
    >>> f = pd.DataFrame({"scenario": ["all", "no leak"], "estimate": [0.603, 0.581], "ci_low": [0.52, 0.49],
    ...                   "ci_high": [0.69, 0.67], "difference": [float("nan"), -0.022],
    ...                   "difference_low": [float("nan"), -0.036], "difference_high": [float("nan"), -0.011]})
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_sensitivity(f, ax=ax) is ax
    True
    >>> ax.texts[0].get_text()
    'Δ = −0.022 [−0.036, −0.011]'
    """
    df = _frame(data, "plot_sensitivity")
    _require(df, [scenario, "estimate", "ci_low", "ci_high"], "plot_sensitivity")
    df = df.reset_index(drop=True)
    names = df[scenario].astype(str).tolist()
    n = len(df)
    if n == 0:
        raise InputError("plot_sensitivity: no scenarios")
    ax = _get_ax(ax, (6.4 if "difference" in df.columns else 4.4, 0.32 * n + 1.1))
    y = np.arange(n)[::-1].astype(float)
    base = 0 if baseline is None else (names.index(str(baseline)) if str(baseline) in names else None)
    if base is None:
        raise InputError(f"plot_sensitivity: baseline {baseline!r} is not a scenario", expected=f"one of {names}")
    ax.axvline(float(df["estimate"].iloc[base]), color="#777777", linestyle="--", linewidth=0.8, gid="baseline",
               zorder=0)
    _intervals(ax, y, df["ci_low"], df["ci_high"], horizontal=True, color=OKABE_ITO["blue"], gid="interval")
    colours = [OKABE_ITO["vermillion"] if i == base else OKABE_ITO["blue"] for i in range(n)]
    ax.scatter(df["estimate"].to_numpy(dtype=float), y, c=colours, s=22, zorder=3, gid="estimate")
    if "difference" in df.columns:
        trans = ax.get_yaxis_transform()
        for i in range(n):
            d = float(df["difference"].iloc[i])
            if math.isnan(d):
                continue
            lo = float(df["difference_low"].iloc[i]) if "difference_low" in df.columns else np.nan
            hi = float(df["difference_high"].iloc[i]) if "difference_high" in df.columns else np.nan
            txt = _stat_text("Δ", (d, lo, hi), digits)
            ax.text(1.02, y[i], txt, transform=trans, ha="left", va="center", fontsize=7,
                    gid=f"difference:{names[i]}")
    ax.set_yticks(y, [_t(nm) for nm in names])
    ax.set_ylim(-0.6, n - 0.4)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(xlabel)
    return ax


# --------------------------------------------------------------------------------------------
# bootstrap distribution
# --------------------------------------------------------------------------------------------

@_themed
def plot_bootstrap(estimate: Estimate | float, *, replicates: ArrayLike | None = None,
                   ci: tuple[float, float] | None = None, bins: int = 40, ax: Axes | None = None,
                   xlabel: str | None = None, digits: int = 3) -> Axes:
    """Histogram of a bootstrap distribution, with the estimate and its interval.

    Parameters
    ----------
    estimate : Estimate or float
        An :class:`metaeval.Estimate` with ``replicates`` (any statistic run with a bootstrap
        ``ci_method``), or the point estimate as a number with ``replicates=`` and ``ci=``.
    replicates : array, optional
        The bootstrap replicates (NaN replicates are left out and counted).
    ci : (low, high), optional
    bins : int
        Number of histogram bins.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (:func:`subplots`, no pyplot).
    xlabel : str, optional
        Default: the statistic's label from the registry (or "statistic").
    digits : int
        Decimals of the caption's numbers.

    Notes
    -----
    A cluster-bootstrap interval may reach beyond the replicates' quantiles: the engine widens it
    for a small number of clusters (:func:`metaeval.resample.cluster_correction_factor`).

    Returns
    -------
    matplotlib.axes.Axes
        Histogram bars (``ax.patches``), estimate line gid ``"estimate"``, interval lines gid
        ``"ci"`` (two), shaded interval ``"ci_band"``, the caption text gid ``"caption"``.

    Examples
    --------
    >>> import metaeval
    >>> from metaeval import figures
    >>> k = metaeval.cohen_kappa(table=[[85, 20], [20, 77]], n_resamples=1000, rng=0)
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> figures.plot_bootstrap(k, ax=ax) is ax
    True
    >>> int(sum(p.get_height() for p in ax.patches if p.get_gid() is None))
    1000
    """
    name, level, method, unit, n_units = None, None, None, None, None
    if hasattr(estimate, "replicates") and hasattr(estimate, "ci"):
        est = float(estimate.estimate)
        reps = estimate.replicates if replicates is None else replicates
        lo, hi = (estimate.ci.low, estimate.ci.high) if ci is None else ci
        name, level, method = estimate.statistic, estimate.ci.level, estimate.ci.method
        unit, n_units = estimate.unit, estimate.n_units
    else:
        est = float(estimate)
        reps = replicates
        if ci is None:
            raise InputError("plot_bootstrap: pass ci=(low, high) with a numeric estimate")
        lo, hi = ci
    if reps is None:
        raise InputError("plot_bootstrap: no bootstrap replicates",
                         fix="use a bootstrap ci_method (not 'analytic'), or pass replicates=")
    reps = np.asarray(reps, dtype=float).ravel()
    n_nan = int(np.isnan(reps).sum())
    reps = reps[~np.isnan(reps)]
    if len(reps) == 0:
        raise InputError("plot_bootstrap: every replicate is NaN")
    ax = _get_ax(ax, (3.4, 2.5))
    ax.axvspan(lo, hi, color=OKABE_ITO["sky_blue"], alpha=0.18, linewidth=0, gid="ci_band")
    ax.hist(reps, bins=bins, color=OKABE_ITO["blue"], alpha=0.75, edgecolor="white", linewidth=0.3)
    for v in (lo, hi):
        ax.axvline(v, color=OKABE_ITO["blue"], linestyle="--", linewidth=0.9, gid="ci")
    ax.axvline(est, color=OKABE_ITO["vermillion"], linewidth=1.3, gid="estimate")
    cap = [f"estimate {_fmt(est, digits)}"]
    lvl = f"{level:.0%} " if level is not None else ""
    cap.append(f"{lvl}{method + ' ' if method else ''}interval [{_fmt(lo, digits)}, {_fmt(hi, digits)}]")
    extra = f"B = {len(reps) + n_nan:,}"
    if unit:
        extra += f", resampling {unit}" + (f" (n = {n_units:,})" if n_units else "")
    if n_nan:
        extra += f", {n_nan} NaN left out"
    cap.append(extra)
    ax.text(0.02, 0.98, "\n".join(cap), transform=ax.transAxes, ha="left", va="top", fontsize=6.8, gid="caption")
    ax.margins(y=0.25)
    ax.set_ylim(bottom=0)
    ax.grid(axis="x", visible=False)
    ax.set_xlabel(xlabel or (_label(name) if name else "statistic"))
    ax.set_ylabel("replicates")
    return ax


# the plots of judge-corrected inference live in their own modules, which import this one's helpers;
# they are looked up on first use (PEP 562), so either module also imports on its own
_ELSEWHERE = {"plot_budget_curve": "figures_budget", "plot_corrected_intervals": "figures_inference",
              "plot_coverage_width": "figures_inference", "plot_panel_forest": "figures_panel",
              "plot_panel_heatmap": "figures_panel", "plot_monitor": "figures_monitor",
              "plot_level_correlations": "figures_levels", "plot_system_scatter": "figures_levels"}


def __getattr__(name: str):
    if name in _ELSEWHERE:
        import importlib

        return getattr(importlib.import_module(f".{_ELSEWHERE[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
