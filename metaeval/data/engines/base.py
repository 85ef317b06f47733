"""What an alignment engine hands back: the report and the aggregated pairs.

Every engine (pandas, DuckDB, Spark) runs the same alignment (the policies of
:func:`metaeval.align`) and returns an :class:`AlignmentCounts`: the :class:`AlignmentReport`
(identical on every engine) and the pairs aggregated to counts per group and label pair. Rows
travel back only when asked for (``rows=True``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...core.scale import Scale

__all__ = ["AlignmentCounts"]


@dataclass
class AlignmentCounts:
    """The result of an alignment engine.

    Attributes
    ----------
    report : AlignmentReport
        Every input row's fate, counts, notes, out-of-scale values and conflict examples; equal
        field by field to the pandas engine's report on the same inputs.
    on : tuple of str
        The key columns.
    by : tuple of str
        The group columns the cells are kept by (key or reference metadata columns; ``()``: pooled).
    cells : pandas.DataFrame
        Columns ``*by, "reference", "candidate", "n"``: the number of pairs (``n``, int64) of each
        group and label pair, labels as float; only cells with ``n > 0``; sorted by all columns but
        ``n``. Group values are strings (as the keys are after alignment).
    scale : Scale
        The declared scale, or the one inferred from the paired labels.
    names : (str, str)
        The two sides' names.
    rows : pandas.DataFrame or None
        The pairs as :attr:`metaeval.Paired.data` holds them, when rows were asked for.
    unjudged : pandas.DataFrame or None
        With ``unjudged="keep"``: ``*by, "reference", "n"`` counts of the reference rows kept aside
        (or, when rows were asked for, those rows as :attr:`metaeval.Paired.unjudged` holds them).

    Examples
    --------
    >>> import pandas as pd
    >>> from metaeval.core.scale import Scale
    >>> cells = pd.DataFrame({"query_id": ["1", "1"], "reference": [0.0, 1.0], "candidate": [0.0, 1.0],
    ...                       "n": [3, 2]})
    >>> c = AlignmentCounts(report=None, on=("query_id", "doc_id"), by=("query_id",), cells=cells,
    ...                     scale=Scale((0, 1)), names=("reference", "candidate"))
    >>> int(c.cells["n"].sum())
    5
    """

    report: object
    on: tuple
    by: tuple
    cells: pd.DataFrame
    scale: Scale
    names: tuple = ("reference", "candidate")
    rows: pd.DataFrame | None = None
    unjudged: pd.DataFrame | None = None
