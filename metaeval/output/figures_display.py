"""How the package's figures show themselves in Jupyter: ``_repr_png_`` on what the plot functions return.

IPython's display machinery asks the value of a cell for rich representations by looking up
methods named ``_repr_png_``, ``_repr_svg_`` ... on the object (``IPython.core.formatters``); an
object that has ``_repr_png_`` is shown as a picture, in Jupyter, JupyterLab, VS Code and Colab,
with no ``%matplotlib`` magic and no pyplot. Matplotlib's own ``Axes`` and ``Figure`` have none
(pyplot's inline backend shows a figure because pyplot tracks it and the backend draws every
open figure at the end of a cell). The figures of :mod:`metaeval.figures` are deliberately not
tracked by pyplot (nothing to close, no leak in a loop, nothing shown twice), so the classes they
are built from carry the method themselves:

* :class:`NotebookFigure` — a :class:`matplotlib.figure.Figure` with ``_repr_png_``;
* :class:`NotebookAxes` — a :class:`matplotlib.axes.Axes` with ``_repr_png_`` (its whole figure);
* :class:`AxesGrid` — a :class:`numpy.ndarray` of Axes (what the multi-panel plots return) with
  ``_repr_png_`` (their figure).

They add nothing else: every matplotlib method works unchanged, ``isinstance(ax, Axes)`` holds,
and outside IPython nothing calls ``_repr_png_``. Axes a caller passes with ``ax=`` (e.g. from
``plt.subplots()``) are returned as they are: pyplot shows those.

The picture is the figure rendered as :func:`metaeval.figures.save` renders it (the theme, no
time stamps), at the save resolution (200 dpi) and displayed at the figure's own size
(``figure.dpi`` = 100 pixels an inch), so it is sharp on high-density screens.
"""

from __future__ import annotations

import io
import struct

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["NotebookFigure", "NotebookAxes", "AxesGrid", "figure_png"]


def _root(fig):
    """The top-level Figure of a Figure or SubFigure."""
    while getattr(fig, "figure", fig) is not fig and fig is not None:
        fig = fig.figure
    return fig


def figure_png(fig) -> tuple[bytes, dict]:
    """A figure as PNG bytes and the size to show it at: what ``_repr_png_`` returns.

    Parameters
    ----------
    fig : matplotlib.figure.Figure or SubFigure
        Rendered whole (a SubFigure: its top-level figure).

    Returns
    -------
    (bytes, dict)
        The PNG (rendered by ``metaeval.figures.save``'s writer at 200 dpi) and IPython's display
        metadata ``{"width": w, "height": h}``: the figure's size in pixels at its own ``dpi``.

    References
    ----------
    IPython's ``BaseFormatter`` accepts a ``(data, metadata)`` pair from a ``_repr_*_`` method;
    tests/test_notebook.py executes a notebook with nbclient and finds the image outputs.

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, ax = figures.subplots(figsize=(3, 2))
    >>> png, size = figure_png(fig)
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n", size
    (True, {'width': 300, 'height': 200})
    """
    from .figures import _DPI, _savefig

    fig = _root(fig)
    buf = io.BytesIO()
    _savefig(fig, buf, "png", dpi=_DPI)
    data = buf.getvalue()
    width, height = struct.unpack(">II", data[16:24])     # the IHDR chunk
    scale = float(fig.dpi) / _DPI
    return data, {"width": int(round(width * scale)), "height": int(round(height * scale))}


class NotebookFigure(Figure):
    """A :class:`matplotlib.figure.Figure` that shows itself in Jupyter (``_repr_png_``); nothing else changes.

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, ax = figures.subplots()
    >>> isinstance(fig, NotebookFigure), fig._repr_png_()[0][:4]
    (True, b'\\x89PNG')
    """

    def _repr_png_(self):
        return figure_png(self)


class NotebookAxes(Axes):
    """A :class:`matplotlib.axes.Axes` that shows its figure in Jupyter (``_repr_png_``); nothing else changes.

    Examples
    --------
    >>> from metaeval import figures
    >>> ax = figures.plot_confusion([[85, 20], [20, 77]])
    >>> isinstance(ax, NotebookAxes), ax._repr_png_()[1]["width"] > 0
    (True, True)
    """

    def _repr_png_(self):
        return figure_png(self.figure)


class AxesGrid(np.ndarray):
    """A numpy array of Axes (several panels) that shows their figure in Jupyter (``_repr_png_``).

    Returned by the plots that draw several panels; indexing, ``ravel`` and ``len`` are numpy's.
    The picture is shown only when the panels are on one figure of the package
    (:class:`NotebookFigure`): a pyplot figure is shown by pyplot, not twice.

    Examples
    --------
    >>> from metaeval import figures
    >>> grid = figures.plot_confusion_panels({"a": [[5, 1], [2, 6]], "b": [[4, 2], [1, 7]]})
    >>> type(grid).__name__, len(grid), grid._repr_png_()[0][:4]
    ('AxesGrid', 2, b'\\x89PNG')
    """

    def _repr_png_(self):
        figs = {id(r): r for r in (_root(getattr(a, "figure", None)) for a in self.flat)}
        if len(figs) != 1:
            return None
        (fig,) = figs.values()
        return figure_png(fig) if isinstance(fig, NotebookFigure) else None


def as_grid(axes) -> AxesGrid:
    """``axes`` as an :class:`AxesGrid`, keeping its shape (what the multi-panel plots return).

    Parameters
    ----------
    axes : sequence or numpy.ndarray of matplotlib.axes.Axes

    Returns
    -------
    AxesGrid
        A view of the same objects; Jupyter shows it as their figure when that is a :class:`NotebookFigure`.

    Examples
    --------
    >>> from metaeval import figures
    >>> fig, grid = figures.subplots(2, 2)
    >>> as_grid(list(grid.ravel())).shape, type(grid).__name__
    ((4,), 'AxesGrid')
    """
    return np.asarray(axes, dtype=object).view(AxesGrid)
