"""The label-budget curve: interval width (or power) against the number of human labels.

One function, :func:`plot_budget_curve`, drawing a :func:`metaeval.inference.budget.label_budget`
frame in the theme of :mod:`metaeval.output.figures` (Okabe–Ito colours: human-only blue, as
human series are everywhere in the package; PPI++ bluish green; PPI orange; markers differ too, so
the figure survives greyscale printing). Files written with :func:`metaeval.figures.save` are
byte-identical from run to run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.errors import InputError
from .figures import OKABE_ITO, PALETTE, _frame, _get_ax, _legend_above, _log_axis, _require, _themed

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_budget_curve", "METHOD_COLORS", "METHOD_LABELS"]

#: Colour of each estimator in budget figures.
METHOD_COLORS = {"classical": OKABE_ITO["blue"], "ppi++": OKABE_ITO["bluish_green"], "ppi": OKABE_ITO["orange"],
                 "judge_only": OKABE_ITO["vermillion"]}
#: Display names of the estimators.
METHOD_LABELS = {"classical": "human only", "ppi++": "PPI++ (tuned λ)", "ppi": "PPI (λ = 1)",
                 "judge_only": "judge only"}
_MARKERS = {"classical": "o", "ppi++": "s", "ppi": "D", "judge_only": "^"}
_YLABELS = {"width": "expected interval width", "power": "power", "mdd": "minimum detectable difference",
            "se": "standard error"}


@_themed
def plot_budget_curve(data: pd.DataFrame, *, y: str = "width", target: float | None = None,
                      system: str | None = None, methods: Sequence[str] | None = None,
                      labels: Mapping[str, str] | None = None, log_x: bool = True, band: tuple[float, float] = (0.1, 0.9),
                      ax: Axes | None = None, xlabel: str = "labelled items (topics)",
                      ylabel: str | None = None) -> Axes:
    """Expected interval width (or power, or minimum detectable difference) against n, per method.

    Parameters
    ----------
    data : DataFrame
        A :func:`metaeval.inference.budget.label_budget` frame: ``method, n`` and the column ``y``
        (and ``system`` when the budget covers several targets).
    y : {"width", "power", "mdd", "se"}
        The column on the vertical axis.
    target : float, optional
        A target value (a width, a power): a horizontal line (gid ``"target"``) and, per method,
        a dotted vertical line at the first n that reaches it (gid ``"required:<method>"``;
        reaching = at most the target, or at least for ``"power"``).
    system : str, optional
        Plot this system only. With several systems and none chosen, each method's line is the
        median over the systems and a band spans the ``band`` quantiles (gid ``"band:<method>"``).
    methods : sequence, optional
        The methods and their order (default: as in the frame).
    labels : mapping, optional
        Display names (default :data:`METHOD_LABELS`).
    log_x : bool
        Logarithmic n axis (default).
    band : (float, float)
        Quantiles across systems of the band (default 0.1 and 0.9).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (no pyplot).
    xlabel : str
        The x-axis label.
    ylabel : str, optional
        Default from ``y``.

    Returns
    -------
    matplotlib.axes.Axes
        Per method a line with markers (gid ``"curve:<method>"``), and the artists above.

    Raises
    ------
    InputError
        Missing columns, an unknown ``system`` or a ``y`` column that is all NaN (power without
        a ``difference``).

    References
    ----------
    The curve is :func:`metaeval.inference.budget.label_budget` as it is; tests/test_budget.py
    checks the drawn points against the frame (medians and bands against pandas).

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval import figures
    >>> from metaeval.inference.budget import label_budget
    >>> from metaeval.output.figures_budget import plot_budget_curve
    >>> rng = np.random.default_rng(2)
    >>> y = rng.normal(0.5, 0.2, 420); yhat = 0.9 * y + rng.normal(0.1, 0.08, 420)
    >>> b = label_budget(y[:30], yhat[:30], yhat[30:], population_size=420)
    >>> fig, ax = figures.subplots()          # an Agg canvas, no pyplot
    >>> plot_budget_curve(b, target=0.05, ax=ax) is ax
    True
    >>> sorted(line.get_gid() for line in ax.lines if line.get_gid().startswith("required"))
    ['required:classical', 'required:ppi', 'required:ppi++']
    """
    df = _frame(data, "plot_budget_curve")
    _require(df, ["method", "n", y], "plot_budget_curve", fix="pass the frame label_budget returns")
    if df[y].isna().all():
        raise InputError(f"plot_budget_curve: column {y!r} is all NaN",
                         fix="for power, call label_budget with difference=")
    if "system" in df.columns and df["system"].notna().any():
        if system is not None:
            if system not in set(df["system"]):
                raise InputError(f"plot_budget_curve: no system {system!r}",
                                 expected=f"one of {sorted(map(str, set(df['system'])))[:8]}")
            df = df[df["system"] == system]
            many = False
        else:
            many = df["system"].nunique() > 1
    else:
        many = False
    ms = list(methods) if methods is not None else list(dict.fromkeys(df["method"]))
    names = {**METHOD_LABELS, **(labels or {})}
    ax = _get_ax(ax, (3.6, 2.8))
    for i, m in enumerate(ms):
        sub = df[df["method"] == m]
        if sub.empty:
            raise InputError(f"plot_budget_curve: no rows of method {m!r}")
        g = sub.groupby("n")[y]
        n = np.asarray(g.median().index, dtype=float)
        v = g.median().to_numpy(dtype=float)
        c = METHOD_COLORS.get(m, PALETTE[i % len(PALETTE)])
        if many:
            lo, hi = g.quantile(band[0]).to_numpy(dtype=float), g.quantile(band[1]).to_numpy(dtype=float)
            ax.fill_between(n, lo, hi, color=c, alpha=0.15, linewidth=0, gid=f"band:{m}")
        ax.plot(n, v, color=c, marker=_MARKERS.get(m, "o"), markersize=3, linewidth=1.3, label=names.get(m, m),
                gid=f"curve:{m}")
        if target is not None:
            ok = v >= target if y == "power" else v <= target
            if ok.any():
                ax.axvline(n[np.argmax(ok)], color=c, linestyle=":", linewidth=1.0, gid=f"required:{m}")
    if target is not None:
        ax.axhline(target, color="#777777", linestyle="--", linewidth=0.8, gid="target", zorder=0)
    if log_x:
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel or _YLABELS.get(y, y) + (" (median over systems)" if many else ""))
    if y == "power":
        ax.set_ylim(0, 1.02)
    _legend_above(ax, min(len(ms), 3))
    return ax
