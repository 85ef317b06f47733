"""The monitoring chart: a confidence sequence over the stream, the monitor's threshold and its alarms.

One function, :func:`plot_monitor`, drawing an :func:`metaeval.agreement_sequence` frame (and,
optionally, a :class:`metaeval.MonitorResult`) in the theme of :mod:`metaeval.output.figures`.
Files written with :func:`metaeval.figures.save` are byte-identical from run to run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import InputError
from .figures import OKABE_ITO, _frame, _get_ax, _legend_above, _require, _themed

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_monitor"]


@_themed
def plot_monitor(sequence, result=None, *, baseline: float | None = None, ax: Axes | None = None,
                 xlabel: str = "pairs in the stream", ylabel: str | None = None) -> Axes:
    """The estimate over the stream with its confidence sequence, the threshold and the alarm.

    Parameters
    ----------
    sequence : pandas.DataFrame
        An :func:`metaeval.agreement_sequence` frame (``n``, ``estimate``, ``ci_low``, ``ci_high``,
        ``statistic``).
    result : MonitorResult, optional
        A :func:`metaeval.monitor` result on the same stream: its threshold is drawn as a
        horizontal line (gid ``"threshold"``) and its alarm as a vertical line (gid ``"alarm"``) at
        the number of anchor pairs (all of them, whatever the statistic) seen when it was raised (``sequence`` should follow the same
        anchors in the same order, as ``agreement_sequence`` on the stream's anchor rows does).
    baseline : float, optional
        The baseline value of the statistic (a dotted line, gid ``"baseline"``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure on an Agg canvas (no pyplot).
    xlabel, ylabel : str, optional
        Axis labels (``ylabel`` defaults to the statistic's name).

    Returns
    -------
    matplotlib.axes.Axes
        The estimate (line, gid ``"estimate"``) and the sequence (band, gid ``"sequence"``).

    References
    ----------
    The drawn values are the frame's own; ``tests/test_monitoring.py`` checks the artists.

    Examples
    --------
    >>> import numpy as np
    >>> import metaeval as me
    >>> from metaeval import figures
    >>> rng = np.random.default_rng(0)
    >>> h = rng.integers(0, 2, 1000); j = np.where(rng.random(1000) < 0.8, h, 1 - h)
    >>> seq = me.agreement_sequence(h, j, every=10)
    >>> ax = figures.plot_monitor(seq, baseline=0.8)
    >>> sorted(a.get_gid() for a in ax.lines)
    ['baseline', 'estimate']
    """
    df = _frame(sequence, "plot_monitor")
    _require(df, ["n", "estimate", "ci_low", "ci_high"], "plot_monitor",
             fix="pass the frame metaeval.agreement_sequence returns")
    if df.empty:
        raise InputError("plot_monitor: the sequence has no looks", fix="stream at least one pair")
    ax = _get_ax(ax, (5.2, 2.8))
    n = df["n"].to_numpy(dtype=float)
    blue, orange, red = OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["vermillion"]
    ax.fill_between(n, df["ci_low"].to_numpy(dtype=float), df["ci_high"].to_numpy(dtype=float), color=blue,
                    alpha=0.2, linewidth=0, step="post", gid="sequence",
                    label=f"{df['confidence_level'].iloc[0]:.0%} confidence sequence" if "confidence_level" in df
                    else "confidence sequence")
    ax.plot(n, df["estimate"].to_numpy(dtype=float), color=blue, linewidth=1.2, gid="estimate", label="estimate")
    if baseline is not None:
        ax.axhline(baseline, color="#777777", linestyle=":", linewidth=0.9, gid="baseline", label="baseline")
    if result is not None:
        ax.axhline(result.threshold, color=orange, linestyle="--", linewidth=1.0, gid="threshold",
                   label="alarm threshold (baseline bound − δ)")
        if result.alarm_anchors is not None:
            # the x axis counts every anchor pair; alarm_anchors counts only those the statistic averages
            # over (human positives for sensitivity ...): place the alarm by its stream position instead
            hist = getattr(result, "history", None)
            at = result.alarm_anchors
            if hist is not None and result.alarm_at is not None and "n_anchors" in hist and len(hist) >= result.alarm_at:
                at = int(hist["n_anchors"].iloc[result.alarm_at - 1])
            ax.axvline(at, color=red, linewidth=1.2, gid="alarm", label=f"alarm (anchor pair {at:,})")
    statistic = str(df["statistic"].iloc[0]) if "statistic" in df else "statistic"
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel or statistic.replace("_", " "))
    # the first looks' bands are wide by construction: scale the axis to the looks after 5% of the stream
    late = df[n >= 0.05 * n.max()] if (n >= 0.05 * n.max()).sum() > 1 else df
    lo = min(float(np.nanmin(late["ci_low"])), float(np.nanmin(df["estimate"])))
    hi = max(float(np.nanmax(late["ci_high"])), float(np.nanmax(df["estimate"])))
    if result is not None:
        lo = min(lo, result.threshold)
    ax.set_ylim(max(lo - 0.05, -1.0), min(hi + 0.05, 1.02))
    ax.set_xlim(0, n.max())
    _legend_above(ax, 2)
    return ax
