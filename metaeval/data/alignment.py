"""Alignment of a reference judgment set with a candidate one, accounting for every input row.

:func:`align` pairs two judgment sets on a key (by default ``query_id, doc_id``) and returns a
:class:`Paired`, whose :class:`AlignmentReport` gives each input row exactly one *fate*:

=======================  ===================================================================
fate (``category``)      meaning
=======================  ===================================================================
matched                  the row's key is in both sets; it makes (part of) a pair
unmatched                the key is only in this set, and the row is dropped
unjudged                 reference-only key kept as unjudged (``unjudged="keep"``)
unjudged_filled          reference-only key paired with a fill label (``unjudged=<label>``)
duplicate_identical      a repeat of a key with the same label (collapsed into one)
duplicate_conflict       a repeat of a key with a different label (merged by ``duplicates=``)
missing_key              an empty key value
missing_label            an empty / NaN label
out_of_scale_dropped     a label outside the scale, ``out_of_scale="drop"``
out_of_scale_missing     a label outside the scale, ``out_of_scale="missing"`` (treated as unlabelled)
refusal_dropped          a refusal / parse failure, ``refusals="drop"``
=======================  ===================================================================

For each side the fate counts add up to that side's input rows. Notes count what was changed but
kept: out-of-scale labels clipped, refusals kept as recorded or relabelled, conflicting keys.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..core.errors import InputError, MetaevalWarning
from ..core.scale import Scale, infer_from_pairs

__all__ = ["align", "Paired", "PairedTables", "AlignmentReport", "FATES"]

FATES = ("matched", "unmatched", "unjudged", "unjudged_filled", "duplicate_identical",
         "duplicate_conflict", "missing_key", "missing_label", "out_of_scale_dropped",
         "out_of_scale_missing", "refusal_dropped")


@dataclass
class AlignmentReport:
    """Where every input row of both sides went.

    Attributes
    ----------
    names : tuple of str
        The names of the two sides (default ``("reference", "candidate")``).
    sources : dict
        Side name → file name (or ``"<DataFrame>"``).
    n_input : dict
        Side name → number of input rows.
    counts : dict
        ``(side, fate) → count``; for each side they add up to ``n_input[side]``.
    notes : dict
        ``(side, note) → count`` for rows changed but kept.
    out_of_scale : pandas.DataFrame
        ``side, value, count, first_line, policy``: every out-of-scale label value found.
    conflicts : pandas.DataFrame
        ``side, key, labels, lines``: up to 50 examples of keys with conflicting labels.
    n_pairs : int
        Number of pairs in the :class:`Paired`.
    examples : dict
        Side name → up to three keys (tuples of strings) of its unmatched rows, kept when no key
        matched (so that the error a statistic raises on the empty pairs can show them); empty
        otherwise, and from engines that do not collect them.
    engine : str or None
        The engine that aligned: ``"pandas"``, ``"duckdb"`` or ``"spark"`` (None for a report made by hand).
    read : dict
        Side name → the files read for it, when the input was a folder or a glob that matched more
        than one file (empty otherwise).

    References
    ----------
    The accounting identity (for each side the fate counts add up to its input rows) is checked on
    random inputs with hypothesis in tests/test_align.py, and on the LLMJudge files (out-of-scale
    labels 5 and 10, as their PROVENANCE.md lists them) in tests/test_io_realdata.py.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> rep = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3))).report
    >>> rep.n_pairs, rep.n_input["reference"], rep.counts[("reference", "unmatched")]
    (7731, 7734, 3)
    """

    names: tuple
    sources: dict
    n_input: dict
    counts: dict
    notes: dict = field(default_factory=dict)
    out_of_scale: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["side", "value", "count", "first_line", "policy"]))
    conflicts: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["side", "key", "labels", "lines"]))
    n_pairs: int = 0
    examples: dict = field(default_factory=dict)
    engine: str | None = None
    read: dict = field(default_factory=dict)

    def to_frame(self, notes: bool = False) -> pd.DataFrame:
        """Tidy ``side, category, count`` rows; per side the counts add up to the input rows.

        Parameters
        ----------
        notes : bool
            Add a fourth column ``kind`` (``fate`` or ``note``) and the notes (rows changed but
            kept, which do not add up) after the fates.

        Returns
        -------
        pandas.DataFrame
            One row per side and fate that occurred (``matched`` always).

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> rep = me.align(d.qrels_human, d.qrels_judge).report
        >>> rep.to_frame().values.tolist()
        [['reference', 'matched', 7731], ['reference', 'unmatched', 3], ['candidate', 'matched', 7731]]
        """
        rows = []
        for side in self.names:
            for fate in FATES:
                n = self.counts.get((side, fate), 0)
                if n or fate == "matched":
                    rows.append((side, fate, int(n), "fate"))
        if notes:
            for (side, note), n in self.notes.items():
                rows.append((side, note, int(n), "note"))
        df = pd.DataFrame(rows, columns=["side", "category", "count", "kind"])
        return df if notes else df.drop(columns="kind")

    def dropped(self, side: str) -> int:
        """Rows of a side that are not in the pairs (nor kept as unjudged).

        Parameters
        ----------
        side : str
            One of :attr:`names`.

        Returns
        -------
        int

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> rep = me.align(d.qrels_human, d.qrels_judge).report
        >>> rep.dropped("reference"), rep.dropped("candidate")
        (3, 0)
        """
        keep = ("matched", "unjudged", "unjudged_filled")
        return self.n_input[side] - sum(self.counts.get((side, f), 0) for f in keep)

    def __str__(self) -> str:
        lines = [f"Alignment: {self.n_pairs} pairs"]
        width = max(len(f) for f in FATES) + 2
        for side in self.names:
            read = self.read.get(side, ())
            lines.append(f"  {side} ({self.sources.get(side, '?')}): {self.n_input[side]} rows"
                         + (f" from {len(read)} files" if read else ""))
            for fate in FATES:
                n = self.counts.get((side, fate), 0)
                if n or fate == "matched":
                    lines.append(f"    {fate:<{width}}{n:>10}")
            for (s, note), n in self.notes.items():
                if s == side:
                    lines.append(f"    note: {note} {n}")
        if len(self.out_of_scale):
            lines.append("  out-of-scale labels:")
            for r in self.out_of_scale.itertuples():
                lines.append(f"    {r.side}: value {r.value} x{r.count} (first at line {r.first_line}) -> {r.policy}")
        return "\n".join(lines)

    def _repr_html_(self):  # pragma: no cover - notebook nicety
        return self.to_frame(notes=True).to_html(index=False)


class Paired:
    """A reference and a candidate label for each matched item, plus metadata and the report.

    Attributes
    ----------
    data : pandas.DataFrame
        The key columns, ``reference`` and ``candidate`` labels (float, NaN-free), then metadata
        columns of both sides (a name used by both sides gets the suffix ``_<side>`` on the
        candidate's copy).
    unjudged : pandas.DataFrame
        Reference rows the candidate did not judge, when ``unjudged="keep"``.
    scale : Scale
        The declared scale, or one inferred from the labels.
    report : AlignmentReport
    on : tuple of str
        The key columns.
    names : tuple of str
        The names of the two sides.

    Parameters
    ----------
    data : pandas.DataFrame
        As the attribute.
    on : sequence of str
        The key columns.
    scale : Scale
        The scale of the labels.
    report : AlignmentReport
        Where every input row went.
    unjudged : pandas.DataFrame, optional
        Reference rows kept aside as unjudged (default: none).
    names : (str, str)
        The names of the two sides.

    Notes
    -----
    :func:`align` builds these; every agreement statistic accepts a Paired in place of two label
    arrays, and ``cluster=`` may then name one of its columns.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
    >>> p
    Paired(7731 pairs on query_id, doc_id, scale=(0, 1, 2, 3))
    >>> p.data.columns.tolist(), round(float(me.cohen_kappa(p, ci_method=None).estimate), 4)
    (['query_id', 'doc_id', 'reference', 'candidate'], 0.394)
    """

    def __init__(self, data: pd.DataFrame, *, on: Sequence[str], scale: Scale, report: AlignmentReport,
                 unjudged: pd.DataFrame | None = None, names: tuple[str, str] = ("reference", "candidate")):
        self.data = data
        self.on = tuple(on)
        self.scale = scale
        self.report = report
        self.names = tuple(names)
        self.unjudged = unjudged if unjudged is not None else data.iloc[0:0]

    def __len__(self) -> int:
        return len(self.data)

    def _require_pairs(self) -> None:
        """Raise an InputError that says why, when there is no pair to compute a statistic on.

        Called where a Paired or PairedTables reaches a statistic (the agreement coefficients,
        square tests, score correlations, many-rater statistics): with no pair the statistics
        have nothing to say, and the usual cause is keys that never match (``on=``, or keys
        written differently on the two sides), which the message shows with the alignment's
        accounting and example keys of each side.
        """
        if len(self) > 0:
            return
        rep = self.report
        src = " / ".join(str(rep.sources.get(side, side)) for side in rep.names)
        if rep.n_pairs > 0:
            raise InputError(f"the pairs hold no pair, though the alignment matched {rep.n_pairs}: they were "
                             "filtered out (a subset, binarize or a group that is absent?)", source=src,
                             fix="check the filter applied after metaeval.align")
        parts, empty = [], []
        for side in rep.names:
            n_in = int(rep.n_input.get(side, 0))
            if n_in == 0:
                empty.append(side)
            fates = ", ".join(f"{rep.counts[(side, f)]} {f}" for f in FATES
                              if f != "matched" and rep.counts.get((side, f), 0))
            ex = rep.examples.get(side) or []
            keys = "; keys such as " + ", ".join(repr(k[0]) if len(k) == 1 else repr(k) for k in ex) if ex else ""
            parts.append(f"{side} {n_in} rows ({fates or 'none kept'}){keys}")
        on = ", ".join(self.on)
        only_unmatched = all(rep.counts.get((side, "unmatched"), 0) for side in rep.names)
        if empty:
            fix = f"check that the {' and the '.join(empty)} data was read (or filtered) correctly"
        elif only_unmatched:
            fix = (f"check on= (the key columns: {on}) and that both sides write the keys alike (case, spaces, "
                   "prefixes, '1' against '1.0')")
        else:
            fix = "see where the rows went in the alignment report (paired.report) and the policies of align()"
        problem = ("no pair was matched: no key occurs on both sides" if only_unmatched and not empty
                   else "no pair was matched")
        raise InputError(f"{problem} ({'; '.join(parts)}), so there is nothing to compute a statistic on",
                         source=src, fix=fix)

    def __repr__(self) -> str:
        return f"Paired({len(self)} pairs on {', '.join(self.on)}, scale={self.scale.levels})"

    @property
    def reference(self) -> np.ndarray:
        """The reference labels of the pairs (float array)."""
        return self.data["reference"].to_numpy(dtype=float)

    @property
    def candidate(self) -> np.ndarray:
        """The candidate labels of the pairs (float array)."""
        return self.data["candidate"].to_numpy(dtype=float)

    def table(self, *, cluster: str | ArrayLike | None = None, scale: Scale | None = None) -> np.ndarray:
        """Contingency table of counts (rows: reference, columns: candidate).

        Parameters
        ----------
        cluster : str or array-like, optional
            A column name or an array aligned with the pairs: one table per cluster.
        scale : Scale, optional
            Rows and columns in this scale's order (default: the pairs' scale).

        Returns
        -------
        numpy.ndarray of int64
            ``(K, K)``, or ``(n_clusters, K, K)`` with the clusters in sorted order.

        References
        ----------
        :func:`metaeval.contingency`; equals ``sklearn.metrics.confusion_matrix`` on the labels
        (tests/test_align.py).

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
        >>> p.table()
        array([[3333,  772,  293,   44],
               [ 350,  772,  336,   73],
               [  94,  437,  283,  133],
               [  22,  134,  292,  363]])
        >>> p.table(cluster="query_id").shape
        (40, 4, 4)
        """
        from ..core.tables import contingency

        return contingency(self.reference, self.candidate, scale or self.scale,
                           cluster=self._cluster_ids(cluster) if cluster is not None else None)

    def _cluster_ids(self, col):
        """Cluster ids for :func:`~metaeval.core.tables.contingency`: for a text column, integer codes
        in the sorted order of its values (the order ``np.unique`` gives, without sorting a Python
        string per pair: 5M pairs in 0.5 s instead of 50 s); otherwise the column or array itself."""
        arr = self._column(col)
        if isinstance(col, str) and (arr.dtype == object or arr.dtype.kind in "UT"):
            s = self.data[col]
            if not s.isna().any() and all(type(v) is str for v in pd.unique(s)):
                return pd.factorize(s, sort=True)[0]
        return arr

    def _column(self, col):
        if isinstance(col, str):
            if col not in self.data.columns:
                raise InputError(f"no column {col!r} in the pairs", source="<Paired>",
                                 expected=f"one of {', '.join(map(str, self.data.columns))}")
            return self.data[col].to_numpy()
        arr = np.asarray(col)
        if len(arr) != len(self.data):
            raise InputError(f"cluster has {len(arr)} entries for {len(self.data)} pairs", source="<Paired>")
        return arr

    def binarize(self, threshold: float) -> Paired:
        """Both labels mapped through ``scale.binarize(threshold)``: 1 where ``label >= threshold``.

        Parameters
        ----------
        threshold : number
            A level of the scale above its lowest (UMBRELA's binary relevance: 2).

        Returns
        -------
        Paired
            The same pairs on the binary scale.

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
        >>> p.binarize(2).table()
        array([[5227,  746],
               [ 687, 1071]])
        """
        return self.relabel(self.scale.binarize(threshold))

    def relabel(self, scale: Scale) -> Paired:
        """Both labels mapped through a derived scale (from :meth:`Scale.binarize` or :meth:`Scale.merge`).

        Parameters
        ----------
        scale : Scale
            A scale with a mapping from this scale's levels.

        Returns
        -------
        Paired

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
        >>> three = p.scale.merge({0: 0, 1: 1, 2: 2, 3: 2})      # 2 and 3 merged
        >>> p.relabel(three).table().shape
        (3, 3)
        """
        data = self.data.copy()
        data["reference"] = scale.map(data["reference"].to_numpy())
        data["candidate"] = scale.map(data["candidate"].to_numpy())
        return Paired(data, on=self.on, scale=scale, report=self.report, unjudged=self.unjudged, names=self.names)

    def subset(self, mask: ArrayLike) -> Paired:
        """The pairs where ``mask`` is true (the report is kept: it describes the alignment).

        Parameters
        ----------
        mask : array-like of bool
            One entry per pair.

        Returns
        -------
        Paired

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> p = me.align(d.qrels_human, d.qrels_judge)
        >>> p.subset(p.data["query_id"] == "1005491")
        Paired(111 pairs on query_id, doc_id, scale=(0, 1, 2, 3))
        """
        mask = np.asarray(mask, dtype=bool)
        return Paired(self.data.loc[mask].reset_index(drop=True), on=self.on, scale=self.scale,
                      report=self.report, unjudged=self.unjudged, names=self.names)

    def to_tables(self, *, by: str | Sequence[str] | None = None) -> PairedTables:
        """The pairs aggregated to per-group tables of label counts (a :class:`PairedTables`).

        Parameters
        ----------
        by : str or sequence of str, optional
            Columns of :attr:`data` to keep the tables by (default: the key columns but the last,
            e.g. ``("query_id",)`` for qrels; ``()`` for a single key: one pooled table).

        Returns
        -------
        PairedTables
            The same pairs as counts per group and label pair, with this report and scale.

        References
        ----------
        Every table statistic gives the same estimate and interval on both (same ``rng``):
        tests/test_paired_tables.py.

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
        >>> t = p.to_tables()
        >>> t
        PairedTables(7,731 pairs on query_id, doc_id, scale=(0, 1, 2, 3), tables by query_id)
        >>> bool((t.table(cluster="query_id") == p.table(cluster="query_id")).all())
        True
        """
        by = _default_by(self.on, by)
        missing = [c for c in by if c not in self.data.columns]
        if missing:
            raise InputError(f"no column {missing[0]!r} in the pairs to keep the tables by", source="<Paired>",
                             expected=f"columns of the pairs: {', '.join(map(str, self.data.columns))}")
        unj = None
        if len(self.unjudged):
            have = [c for c in by if c in self.unjudged.columns]
            unj = _cells(self.unjudged, have, labels=("reference",))
        return PairedTables(_cells(self.data, by), on=self.on, by=by, scale=self.scale, report=self.report,
                            unjudged=unj, names=self.names)


def _default_by(on, by):
    """``by`` as a tuple of column names (default: the keys but the last)."""
    if by is None:
        return tuple(on[:-1])
    by = (by,) if isinstance(by, str) else tuple(by)
    bad = [b for b in by if not isinstance(b, str)]
    if bad:
        raise InputError(f"by= must name columns (strings), got {bad[0]!r}", source="<align>")
    if len(set(by)) != len(by):
        raise InputError(f"by= names a column twice: {list(by)}", source="<align>")
    reserved = [b for b in by if b in ("reference", "candidate", "n")]
    if reserved:
        raise InputError(f"by= cannot name {reserved[0]!r}: it is a column of the tables themselves",
                         source="<align>", fix="rename that column in the input")
    return by


def group_text(values) -> pd.Series:
    """Group values as every engine keeps them in the cells: text, missing values as None.

    Text stays as it is; an integer ``100`` becomes ``"100"``, a float ``100.0`` becomes ``"100.0"``
    (``str()`` of the value, as SQL engines cast a number to text); NaN and None become None.

    Parameters
    ----------
    values : array-like
        One group column.

    Returns
    -------
    pandas.Series of object

    Examples
    --------
    >>> group_text([100, 27.5, None, "q1", float("nan"), 3.0]).tolist()
    ['100', '27.5', None, 'q1', None, '3.0']
    """
    v = pd.Series(values)
    if v.dtype.kind in "iub":
        return v.astype(str).astype(object)
    if isinstance(v.dtype, pd.StringDtype):  # text already: only its missing values become None
        out = v.astype(object)
        na = v.isna().to_numpy()
        if na.any():
            out[na] = None
        return out
    out = [None if (x is None or (not isinstance(x, str) and pd.isna(x))) else
           (x if isinstance(x, str) else str(x.item() if isinstance(x, np.generic) else x)) for x in v]
    return pd.Series(out, dtype=object, index=v.index)


def _cells(data: pd.DataFrame, by: Sequence[str], labels: Sequence[str] = ("reference", "candidate"),
           weights: str | None = None) -> pd.DataFrame:
    """Rows of pairs → ``*by, *labels, n``: the number of rows of each group and label combination.

    Group values become strings (as the keys are after alignment; every engine does the same),
    labels stay float; only combinations with ``n > 0``, sorted by all columns but ``n``. With
    ``weights`` (a column of counts, as an engine's aggregated rows carry), the counts are summed
    instead of the rows counted.
    """
    by, labels = list(by), list(labels)
    cols = {c: group_text(data[c]) for c in by}
    for c in labels:
        cols[c] = data[c].to_numpy(dtype=float)
    if weights is not None:
        cols["_w"] = data[weights].to_numpy(dtype=np.int64)
    frame = pd.DataFrame(cols, copy=False)
    if not len(frame):
        out = pd.DataFrame({c: pd.Series([], dtype=object) for c in by})
        for c in labels:
            out[c] = np.array([], dtype=float)
        out["n"] = np.array([], dtype=np.int64)
        return out
    grouped = frame.groupby(by + labels, sort=True, dropna=False, observed=True)
    out = (grouped.size() if weights is None else grouped["_w"].sum()).reset_index(name="n")
    out = out[out["n"] > 0].reset_index(drop=True)
    out["n"] = out["n"].astype(np.int64)
    for c in by:  # groupby turned a missing group value into NaN
        out[c] = pd.Series(group_text(out[c].astype(object)).to_numpy(), dtype=object, index=out.index)
    return out


def _needs_rows(what: str) -> InputError:
    return InputError(f"{what} needs the pairs as rows, and this PairedTables holds only the label counts "
                      "per group", source="<PairedTables>",
                      fix="align(..., rows=True) (or engine='pandas') keeps the rows; the table statistics "
                          "(cohen_kappa, agreement_report, agreement_by ...) and score_correlation work on "
                          "the tables")


class PairedTables(Paired):
    """The pairs of an alignment held as per-group tables of label counts, not as rows.

    What :func:`align` returns from the DuckDB and Spark engines (and with ``rows=False`` from
    pandas): per group (topic) and label pair, the number of pairs. Every table statistic
    (:func:`metaeval.cohen_kappa`, :func:`metaeval.gwet_ac1`, :func:`metaeval.agreement_report`,
    :func:`metaeval.agreement_by` ...) accepts it as it accepts a :class:`Paired`, with
    ``cluster=`` or ``strata=`` naming one of the :attr:`by` columns, and gives the same estimates
    and intervals as on the rows. Analyses that need each pair's other columns (length bias,
    sensitivity) raise an InputError naming the fix (``align(..., rows=True)``).

    Attributes
    ----------
    cells : pandas.DataFrame
        Columns ``*by, "reference", "candidate", "n"``: the number of pairs (int64) of each group
        and label pair (labels as float), sorted by all columns but ``n``; group values are strings.
    by : tuple of str
        The group columns (``()``: one pooled table).
    on : tuple of str
        The key columns of the alignment.
    scale : Scale
        The declared scale, or the one inferred from the labels.
    report : AlignmentReport
        Where every input row went.
    names : tuple of str
        The names of the two sides.
    unjudged : pandas.DataFrame
        With ``unjudged="keep"``: ``*by, "reference", "n"`` counts of the reference items kept
        aside (empty otherwise).

    Parameters
    ----------
    cells : pandas.DataFrame
        As the attribute.
    on : sequence of str
        The key columns.
    by : sequence of str
        The group columns of ``cells``.
    scale : Scale
        The scale of the labels.
    report : AlignmentReport
        Where every input row went.
    unjudged : pandas.DataFrame, optional
        Counts of the reference items kept aside.
    names : (str, str)
        The names of the two sides.

    Notes
    -----
    The tables are the sufficient statistic of every agreement coefficient: the iid bootstrap
    resamples the pooled table's cells, the cluster bootstrap the groups' tables, so nothing is
    lost for those. The rows (``data``, ``reference``, ``candidate``) are not kept; asking for them
    raises an InputError that names the fix.

    References
    ----------
    tests/test_paired_tables.py: tables, estimates and intervals (same ``rng``) equal those of the
    row :class:`Paired` on the same inputs, for every registered table statistic.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> t = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)), rows=False)
    >>> t
    PairedTables(7,731 pairs on query_id, doc_id, scale=(0, 1, 2, 3), tables by query_id)
    >>> t.cells.columns.tolist()
    ['query_id', 'reference', 'candidate', 'n']
    >>> round(float(me.cohen_kappa(t, ci_method=None).estimate), 4)
    0.394
    """

    def __init__(self, cells: pd.DataFrame, *, on: Sequence[str], by: Sequence[str], scale: Scale,
                 report: AlignmentReport, unjudged: pd.DataFrame | None = None,
                 names: tuple[str, str] = ("reference", "candidate")):
        by = tuple(by)
        need = [*by, "reference", "candidate", "n"]
        missing = [c for c in need if c not in cells.columns]
        if missing:
            raise InputError(f"cells lack the column(s) {missing}", source="<PairedTables>",
                             expected=f"columns {need}")
        self.cells = cells[need].reset_index(drop=True)
        self.on = tuple(on)
        self.by = by
        self.scale = scale
        self.report = report
        self.names = tuple(names)
        if unjudged is None:
            unjudged = pd.DataFrame({c: pd.Series([], dtype=object) for c in by})
            unjudged["reference"] = np.array([], dtype=float)
            unjudged["n"] = np.array([], dtype=np.int64)
        self._unjudged = unjudged

    @classmethod
    def _from_counts(cls, counts) -> PairedTables:
        """From an engine's :class:`~metaeval.data.engines.base.AlignmentCounts`."""
        unj = counts.unjudged
        if unj is not None and "n" not in unj.columns:   # rows of unjudged items → counts
            unj = _cells(unj, [c for c in counts.by if c in unj.columns], labels=("reference",))
        return cls(counts.cells, on=counts.on, by=counts.by, scale=counts.scale, report=counts.report,
                   unjudged=unj, names=counts.names)

    def __len__(self) -> int:
        return int(self.cells["n"].sum())

    def __repr__(self) -> str:
        tables = f"tables by {', '.join(self.by)}" if self.by else "one pooled table"
        return (f"PairedTables({len(self):,} pairs on {', '.join(self.on)}, scale={self.scale.levels}, "
                f"{tables})")

    @property
    def data(self):
        """Not kept: raises an InputError that names the fix (``align(..., rows=True)``)."""
        raise _needs_rows("this analysis (it asked for .data)")

    @property
    def reference(self):
        """Not kept: raises an InputError that names the fix (``align(..., rows=True)``)."""
        raise _needs_rows("this analysis (it asked for the reference labels pair by pair)")

    @property
    def candidate(self):
        """Not kept: raises an InputError that names the fix (``align(..., rows=True)``)."""
        raise _needs_rows("this analysis (it asked for the candidate labels pair by pair)")

    @property
    def unjudged(self) -> pd.DataFrame:
        """Counts ``*by, reference, n`` of the reference items kept aside (``unjudged="keep"``)."""
        return self._unjudged

    def _column(self, col):
        if isinstance(col, str) and col in self.by:
            raise InputError(f"{col!r} is a group column of the tables; pass it by name to a table "
                             "statistic (cluster=, strata=)", source="<PairedTables>",
                             fix="align(..., rows=True) keeps the rows if you need the column pair by pair")
        if isinstance(col, str):
            raise InputError(f"no group column {col!r} in the tables", source="<PairedTables>",
                             expected=f"one of the by columns {list(self.by)}",
                             fix=f"align(..., by=[..., {col!r}]) to keep tables by it, or align(..., rows=True)")
        raise InputError("a cluster array aligned with the pairs needs the pairs as rows", source="<PairedTables>",
                         fix=f"name a by column (one of {list(self.by)}), or align(..., rows=True)")

    def _check_by(self, cols, what="cluster") -> list:
        cols = [cols] if isinstance(cols, str) else list(cols)
        for c in cols:
            if not isinstance(c, str):
                raise InputError(f"{what}= must name a group column of the tables; an array aligned with the "
                                 "pairs needs the pairs as rows", source="<PairedTables>",
                                 fix=f"name one of {list(self.by)}, or align(..., rows=True)")
            if c not in self.by:
                raise InputError(f"{what}={c!r} is not a group column of the tables", source="<PairedTables>",
                                 expected=f"one of {list(self.by)}" if self.by else "no group column (one pooled "
                                 "table)", fix=f"align(..., by=[..., {c!r}]) keeps tables by it; or "
                                 "align(..., rows=True)")
        return cols

    def _codes(self, scale):
        """Cell index r·K + c of every row of :attr:`cells` in ``scale``'s order."""
        r = self.cells["reference"].to_numpy(dtype=float)
        c = self.cells["candidate"].to_numpy(dtype=float)
        ri, ci = scale.codes(r), scale.codes(c)
        bad = (ri < 0) | (ci < 0)
        if bad.any():
            vals = np.unique(np.concatenate([r[ri < 0], c[ci < 0]]))
            raise InputError(f"labels outside the scale {scale.levels}: {vals.tolist()}", source="<PairedTables>",
                             fix="pass the scale of the pairs, or relabel() them first")
        return ri.astype(np.int64) * scale.k + ci

    def group_tables(self, by: str | Sequence[str], *, scale: Scale | None = None
                     ) -> tuple[pd.DataFrame, np.ndarray]:
        """One table per group of some :attr:`by` columns (summed over the others).

        Parameters
        ----------
        by : str or sequence of str
            Group columns (a subset of :attr:`by`).
        scale : Scale, optional
            Rows and columns in this scale's order (default: the pairs' scale).

        Returns
        -------
        keys : pandas.DataFrame
            The groups, one row each, in sorted order.
        tables : numpy.ndarray of int64, shape (G, K, K)

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> t = me.align(d.qrels_human, d.qrels_judge, rows=False)
        >>> keys, T = t.group_tables("query_id")
        >>> len(keys), T.shape, int(T.sum())
        (40, (40, 4, 4), 7731)
        """
        cols = self._check_by(by, "by")
        scale = scale or self.scale
        k = scale.k
        cell = self._codes(scale)
        n = self.cells["n"].to_numpy(dtype=np.int64)
        if not cols:
            return pd.DataFrame(index=range(1)), np.bincount(cell, weights=n, minlength=k * k).round().astype(
                np.int64).reshape(1, k, k)
        if len(cols) == 1:
            uniq, gid = np.unique(self.cells[cols[0]].to_numpy().astype(str), return_inverse=True)
            keys = pd.DataFrame({cols[0]: uniq.astype(object)})
        else:
            g = self.cells[cols].astype(str)
            keys = g.drop_duplicates().sort_values(cols).reset_index(drop=True)
            gid = g.merge(keys.reset_index(), on=cols, how="left")["index"].to_numpy()
        gid = np.asarray(gid, dtype=np.int64).ravel()
        G = len(keys)
        flat = np.bincount(gid * (k * k) + cell, weights=n, minlength=G * k * k)
        return keys, np.round(flat).astype(np.int64).reshape(G, k, k)

    def table(self, *, cluster: str | None = None, scale: Scale | None = None) -> np.ndarray:
        """Contingency table of counts (rows: reference, columns: candidate), as :meth:`Paired.table`.

        Parameters
        ----------
        cluster : str, optional
            A :attr:`by` column: one table per value of it, in sorted order (summed over the other
            group columns).
        scale : Scale, optional
            Rows and columns in this scale's order (default: the pairs' scale).

        Returns
        -------
        numpy.ndarray of int64
            ``(K, K)``, or ``(n_clusters, K, K)``.

        References
        ----------
        Equals :meth:`Paired.table` on the rows (tests/test_paired_tables.py).

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> t = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)), rows=False)
        >>> t.table()
        array([[3333,  772,  293,   44],
               [ 350,  772,  336,   73],
               [  94,  437,  283,  133],
               [  22,  134,  292,  363]])
        >>> t.table(cluster="query_id").shape
        (40, 4, 4)
        """
        if cluster is None:
            return self.group_tables((), scale=scale)[1][0]
        self._check_by(cluster)
        return self.group_tables(cluster, scale=scale)[1]

    def binarize(self, threshold: float) -> PairedTables:
        """Both labels mapped through ``scale.binarize(threshold)``: 1 where ``label >= threshold``.

        Parameters
        ----------
        threshold : number
            A level of the scale above its lowest.

        Returns
        -------
        PairedTables
            The same pairs on the binary scale (cells merged).

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> t = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)), rows=False)
        >>> t.binarize(2).table()
        array([[5227,  746],
               [ 687, 1071]])
        """
        return self.relabel(self.scale.binarize(threshold))

    def relabel(self, scale: Scale) -> PairedTables:
        """Both labels mapped through a derived scale; cells that become equal are merged.

        Parameters
        ----------
        scale : Scale
            A scale with a mapping from this scale's levels (:meth:`Scale.binarize`,
            :meth:`Scale.merge`).

        Returns
        -------
        PairedTables

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> t = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)), rows=False)
        >>> t.relabel(t.scale.merge({0: 0, 1: 1, 2: 2, 3: 2})).table().shape
        (3, 3)
        """
        cells = self.cells.copy()
        cells["reference"] = scale.map(cells["reference"].to_numpy())
        cells["candidate"] = scale.map(cells["candidate"].to_numpy())
        cells = cells.groupby([*self.by, "reference", "candidate"], sort=True, dropna=False)["n"].sum().reset_index()
        unj = self._unjudged
        if len(unj):
            unj = unj.copy()
            unj["reference"] = scale.map(unj["reference"].to_numpy())
            unj = unj.groupby([c for c in unj.columns if c != "n"], sort=True, dropna=False)["n"].sum().reset_index()
        return PairedTables(cells, on=self.on, by=self.by, scale=scale, report=self.report, unjudged=unj,
                            names=self.names)

    def where(self, **groups) -> PairedTables:
        """The pairs of some groups: ``where(query_id="1005491")`` or ``where(query_id=[...])``.

        Parameters
        ----------
        **groups : str or sequence of str
            A :attr:`by` column and the value(s) to keep (compared as strings); several columns
            combine with "and".

        Returns
        -------
        PairedTables
            The selected groups' cells (the report is kept: it describes the alignment).

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> t = me.align(d.qrels_human, d.qrels_judge, rows=False)
        >>> t.where(query_id="1005491")
        PairedTables(111 pairs on query_id, doc_id, scale=(0, 1, 2, 3), tables by query_id)
        """
        if not groups:
            raise InputError("where() needs a group column and its value(s), e.g. where(query_id='1')",
                             source="<PairedTables>", expected=f"one of {list(self.by)}")
        keep = np.ones(len(self.cells), dtype=bool)
        keep_u = np.ones(len(self._unjudged), dtype=bool)
        for col, val in groups.items():
            self._check_by(col, "where: the column")
            vals = [val] if isinstance(val, str) or not hasattr(val, "__iter__") else list(val)
            vals = [str(v) for v in vals]
            keep &= self.cells[col].astype(str).isin(vals).to_numpy()
            if col in self._unjudged.columns:
                keep_u &= self._unjudged[col].astype(str).isin(vals).to_numpy()
        return PairedTables(self.cells.loc[keep], on=self.on, by=self.by, scale=self.scale, report=self.report,
                            unjudged=self._unjudged.loc[keep_u].reset_index(drop=True), names=self.names)

    def subset(self, mask):
        """Not available: a mask over pairs needs rows; :meth:`where` selects groups.

        Parameters
        ----------
        mask : array-like of bool
            One entry per pair (needs the rows).

        Returns
        -------
        Never returns; raises an InputError naming the fix.

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> me.align(d.qrels_human, d.qrels_judge, rows=False).subset([True])   # doctest: +ELLIPSIS
        Traceback (most recent call last):
        metaeval.core.errors.InputError: <PairedTables>: subset(mask) needs the pairs as rows... where(column=value)...
        """
        err = _needs_rows("subset(mask)")
        raise InputError(err.problem, source=err.source, fix="select whole groups with where(column=value), or "
                         + err.fix)

    def to_tables(self, *, by: str | Sequence[str] | None = None) -> PairedTables:
        """The tables kept by fewer group columns (summed over the others).

        Parameters
        ----------
        by : str or sequence of str, optional
            A subset of :attr:`by` (default: all of them).

        Returns
        -------
        PairedTables

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> me.align(d.qrels_human, d.qrels_judge, rows=False).to_tables(by=())
        PairedTables(7,731 pairs on query_id, doc_id, scale=(0, 1, 2, 3), one pooled table)
        """
        by = self.by if by is None else tuple(self._check_by(by, "by"))
        cells = self.cells.groupby([*by, "reference", "candidate"], sort=True, dropna=False)["n"].sum().reset_index()
        unj = self._unjudged
        if len(unj):
            unj = unj.groupby([c for c in (*by, "reference") if c in unj.columns], sort=True,
                              dropna=False)["n"].sum().reset_index()
        return PairedTables(cells, on=self.on, by=by, scale=self.scale, report=self.report, unjudged=unj,
                            names=self.names)


# --------------------------------------------------------------------------------------------

_TABLE_EXTS = (".csv", ".tsv", ".json", ".jsonl", ".parquet", ".pq", ".ndjson")


def _load(source, on, label):
    """A side as (frame, source name, line numbers)."""
    from ..data import io as mio
    if isinstance(source, pd.DataFrame):
        return mio._frame_source(source)
    if not isinstance(source, (str, os.PathLike)):
        raise InputError(f"cannot align an object of type {type(source).__name__}",
                         expected="a DataFrame or a file path")
    name = str(source)
    base = name[:-3] if name.endswith(".gz") else name
    if base.lower().endswith(_TABLE_EXTS):
        df, name, first = mio._read_table(source)
        lines = mio._row_lines(df, first)
    else:
        df = mio.read_qrels(source)
        lines = df.attrs["lines"]
    return df.reset_index(drop=True), name, np.asarray(lines)


def _numeric_labels(df, col, name, lines):
    from ..data.io import _label_numeric

    if col not in df.columns:
        raise InputError(f"no label column {col!r}", source=name, line=1,
                         expected=f"one of {', '.join(map(str, df.columns))}",
                         fix="name the label column with label=")
    return _label_numeric(df[col], lines, name, col)


def _truthy(series: pd.Series) -> np.ndarray:
    if series.dtype.kind in "biuf":
        v = series.to_numpy(dtype=float)
        return ~np.isnan(v) & (v != 0)
    s = series.astype("object").map(lambda v: str(v).strip().lower() if v is not None else "")
    return s.isin(["1", "true", "yes", "y", "t", "1.0"]).to_numpy()


# fate codes: 0 = not decided yet, i + 1 = FATES[i] (int8: one byte a row instead of an object pointer)
_F = {f: np.int8(i + 1) for i, f in enumerate(FATES)}


def _clean(u: np.ndarray, floats: bool):
    """Cleaned key values of unique raw values: integral floats (of a float column whose values are all
    integral) become integer strings, everything else ``str(v).strip()``; an empty value is missing
    (``None``). Returns (cleaned object array, whether any value changed)."""
    if floats and len(u):
        vals = u.astype(float)
        if (vals == np.round(vals)).all():
            return np.array([str(int(v)) for v in vals] + [None], dtype=object)[:-1], True
        clean = [str(v).strip() for v in u]
    else:
        clean = [v.strip() if type(v) is str else str(v).strip() for v in u]
    changed = floats or any(a is not b for a, b in zip(clean, u))
    return np.array([v if v else None for v in clean] + [None], dtype=object)[:-1], changed or not all(clean)


# the characters str.strip() strips (str.isspace), as an RE2 class (checked against Python in the tests)
_WS = r"[\t-\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"


def _clean_arrow_strings(uniq) -> bool:
    """True when ``uniq`` holds Arrow-backed strings that need no cleaning (no empty value, no
    leading or trailing whitespace): then they stay in Arrow, with no Python string per value."""
    dtype = getattr(uniq, "dtype", None)
    if not (isinstance(dtype, pd.StringDtype) and getattr(dtype, "storage", None) == "pyarrow"):
        return False
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(uniq)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return False
    if len(arr) == 0:
        return True
    if pc.any(pc.equal(pc.utf8_length(arr), 0)).as_py():
        return False
    return not pc.any(pc.match_substring_regex(arr, f"^{_WS}|{_WS}$")).as_py()


def _factorize(series: pd.Series, floats: bool):
    """(codes, cleaned uniques) of one key column; cleaning touches the unique values only."""
    codes, uniq = pd.factorize(series, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    if not floats and _clean_arrow_strings(uniq):
        return codes, uniq
    clean, changed = _clean(np.asarray(uniq, dtype=object), floats)
    if changed:   # cleaned values may coincide (" a" and "a"), or be missing: factorize them again
        g, uniq2 = pd.factorize(clean, use_na_sentinel=True)
        codes = np.append(np.asarray(g, dtype=np.int64), -1)[codes]
        clean = np.asarray(uniq2, dtype=object)
    return codes, clean


def _release_arrow_memory():
    """Give the memory Arrow's allocator keeps after a large hash (the key dictionary) back to the
    system, so that the NumPy arrays allocated next do not stack on top of it (5M-line qrels: the
    process holds 0.65 GB less)."""
    import sys

    pa = sys.modules.get("pyarrow")
    if pa is not None and hasattr(pa.default_memory_pool(), "release_unused"):
        pa.default_memory_pool().release_unused()


def _shared_keys(frames, on):
    """One dictionary per key column shared by both sides, and one int64 key per row (-1: missing).

    Returns ``(keys, codes, uniques)``: ``keys[s]`` the combined key of side s's rows,
    ``codes[s][j]`` the code of column ``on[j]``, ``uniques[j]`` the cleaned strings of column j.
    Both sides' columns are factorized together (one hash table, no per-row string work) unless
    one of them is a float column (whose integrality rule is the side's own).
    """
    n_sides = len(frames)
    sizes = [len(df) for df in frames]
    codes = [[None] * len(on) for _ in range(n_sides)]
    uniques = []
    for j, c in enumerate(on):
        cols = [df[c] for df in frames]
        if not any(col.dtype.kind == "f" for col in cols):
            same = all(col.dtype == cols[0].dtype for col in cols)
            both = pd.concat(cols if same else [col.astype(object) for col in cols], ignore_index=True)
            cj, uj = _factorize(both, False)
            del both
            uniques.append(uj)
            for s, part in enumerate(np.split(cj, np.cumsum(sizes)[:-1])):
                codes[s][j] = part
            continue
        per = [_factorize(col, col.dtype.kind == "f") for col in cols]
        g, uniq = pd.factorize(np.concatenate([u for _, u in per]), use_na_sentinel=True)
        uniques.append(np.asarray(uniq, dtype=object))
        start = 0
        for s, (cs, u) in enumerate(per):
            gs = np.append(np.asarray(g[start:start + len(u)], dtype=np.int64), -1)
            start += len(u)
            codes[s][j] = gs[cs]              # cs = -1 (missing) picks the appended -1
    _release_arrow_memory()
    missing = [np.zeros(n, dtype=bool) for n in sizes]
    for s in range(n_sides):
        for j in range(len(on)):
            missing[s] |= codes[s][j] < 0
    bound = 1
    keys = [np.zeros(n, dtype=np.int64) for n in sizes]
    for j in range(len(on)):
        size = max(len(uniques[j]), 1)
        if bound * size > 2 ** 62:          # compact the combined key first (never overflows)
            g, _ = pd.factorize(np.concatenate(keys))
            keys = np.split(np.asarray(g, dtype=np.int64), np.cumsum(sizes)[:-1])
            bound = int(g.max()) + 1 if len(g) else 1
        keys = [k * size + np.maximum(codes[s][j], 0) for s, k in enumerate(keys)]
        bound *= size
    for s in range(n_sides):
        keys[s][missing[s]] = -1
    return keys, codes, uniques


def _side(df, name, lines, side, on, key, key_of_row, label_col, scale, out_of_scale, duplicates, refusal_flag,
          refusal_value, refusals, counts, notes, oos_rows, conflict_rows):
    """Apply the per-side policies to rows with integer keys (-1: missing).

    Returns (frame ``_key, _label, _row`` with one row per key, fate codes).
    """
    n = len(df)
    fate = np.zeros(n, dtype=np.int8)
    fate[key < 0] = _F["missing_key"]

    label = _numeric_labels(df, label_col, name, lines)

    # refusals / parse failures
    is_ref = np.zeros(n, dtype=bool)
    if refusal_flag is not None and refusal_flag in df.columns:
        is_ref |= _truthy(df[refusal_flag])
    if refusal_value is not None:
        is_ref |= label == float(refusal_value)
    is_ref &= fate == 0
    if is_ref.any():
        k = int(is_ref.sum())
        if refusals == "drop":
            fate[is_ref] = _F["refusal_dropped"]
        elif refusals == "keep":
            notes[(side, "refusals kept as recorded")] = k
        else:
            label = label.copy()
            label[is_ref] = float(refusals)
            notes[(side, f"refusals relabelled to {refusals}")] = k

    alive = fate == 0
    miss = alive & np.isnan(label)
    fate[miss] = _F["missing_label"]

    if scale is not None:
        alive = fate == 0
        oos = alive & scale.out_of_scale(label)
        if oos.any():
            vals, first_idx, cnt = np.unique(label[oos], return_index=True, return_counts=True)
            idx_oos = np.flatnonzero(oos)
            for v, fi, c in zip(vals, first_idx, cnt):
                oos_rows.append((side, _num(v), int(c), int(lines[idx_oos[fi]]), out_of_scale))
            if out_of_scale == "error":
                i = int(idx_oos[0])
                listing = ", ".join(f"{_num(v)} (x{c})" for v, c in zip(vals, cnt))
                raise InputError(f"label(s) outside the scale {scale.levels}: {listing}", source=name,
                                 line=int(lines[i]), text=f"{label_col}={_num(label[i])}",
                                 expected=f"labels in {scale.levels}",
                                 fix="pass out_of_scale='clip', 'drop' or 'missing' to choose a policy")
            if out_of_scale == "clip":
                label = label.copy()
                label[oos] = scale.clip(label[oos])
                notes[(side, "out-of-scale labels clipped")] = int(oos.sum())
            elif out_of_scale == "drop":
                fate[oos] = _F["out_of_scale_dropped"]
            else:
                fate[oos] = _F["out_of_scale_missing"]

    if scale is None:  # an infinite label is not a level of an inferred scale (with a scale: out of scale)
        inf = (fate == 0) & np.isinf(label)
        if inf.any():
            i = int(np.flatnonzero(inf)[0])
            raise InputError(f"{label_col} is infinite: {float(label[i])!r}", source=name, line=int(lines[i]),
                             text=f"{label_col}={float(label[i])!r}",
                             expected=f"finite numeric labels in column {label_col!r}",
                             fix="correct the value (or leave it empty for a missing label), or declare scale= "
                                 "with out_of_scale='drop', 'missing' or 'clip'")

    alive = np.flatnonzero(fate == 0)
    sub = pd.DataFrame({"_key": key[alive], "_label": label[alive], "_row": alive})
    dup = sub.duplicated("_key", keep=False).to_numpy()
    if dup.any():
        d = sub.loc[dup]
        grp = d.groupby("_key", sort=False)["_label"]
        nun = grp.transform("nunique").to_numpy()
        first_in_group = ~d.duplicated("_key", keep="first").to_numpy()
        rows_d = d["_row"].to_numpy()
        # identical repeats: keep the first row of the group
        ident = (nun == 1) & ~first_in_group
        fate[rows_d[ident]] = _F["duplicate_identical"]
        conf = nun > 1
        if conf.any():
            dc = d.loc[conf]
            n_keys = int((~dc.duplicated("_key", keep="first")).sum())
            notes[(side, "keys with conflicting labels")] = n_keys
            ex = dc.groupby("_key", sort=False).agg(labels=("_label", list), rows=("_row", list)).head(50)
            for r in ex.itertuples():
                conflict_rows.append((side, " ".join(key_of_row(r.rows[0])), [_num(v) for v in r.labels],
                                      [int(lines[i]) for i in r.rows]))
            if duplicates == "error":
                r0 = ex.iloc[0]
                key0 = key_of_row(r0["rows"][0])
                key0 = key0[0] if len(key0) == 1 else key0
                raise InputError(f"{n_keys} key(s) judged more than once with different labels; first: "
                                 f"{key0} with labels {[_num(v) for v in r0['labels']]} on lines "
                                 f"{[int(lines[i]) for i in r0['rows']]}", source=name,
                                 line=int(lines[r0["rows"][0]]),
                                 fix="pass duplicates='first', 'last', 'majority' or 'mean'")
            grpc = dc.groupby("_key", sort=False)
            if duplicates in ("first", "last"):
                keep_rows = grpc["_row"].transform("first" if duplicates == "first" else "last").to_numpy()
                rep = keep_rows
                new_label = None
            elif duplicates == "mean":
                rep = grpc["_row"].transform("first").to_numpy()
                new_label = grpc["_label"].transform("mean").to_numpy()
            else:  # majority, ties to the earliest of the most frequent labels
                rep = grpc["_row"].transform("first").to_numpy()

                def _mode(s):
                    vc = s.value_counts(sort=False)
                    best = vc.max()
                    for v in s:
                        if vc[v] == best:
                            return v
                new_label = grpc["_label"].transform(_mode).to_numpy()
            rows_c = dc["_row"].to_numpy()
            is_rep = rows_c == rep
            fate[rows_c[~is_rep]] = _F["duplicate_conflict"]
            if new_label is not None:
                label = label.copy()
                label[rows_c[is_rep]] = new_label[is_rep]
    keep = np.flatnonzero(fate == 0)
    out = pd.DataFrame({"_key": key[keep], "_label": label[keep], "_row": keep})
    return out, fate


def _num(v):
    f = float(v)
    return int(f) if f.is_integer() else f


_ENGINES = ("auto", "pandas", "duckdb", "spark")


def align(reference: pd.DataFrame | str | os.PathLike, candidate: pd.DataFrame | str | os.PathLike, *,
          on: str | Sequence[str] = ("query_id", "doc_id"), label: str | tuple[str, str] = "relevance",
          scale: Scale | None = None,
          out_of_scale: str = "error", duplicates: str = "error", refusal_flag: str | None = None,
          refusal_value=None, refusals="keep", unjudged="drop",
          names=("reference", "candidate"), engine: str = "auto", by: str | Sequence[str] | None = None,
          rows: bool | None = None, spark=None, glob: bool | None = None) -> Paired:
    """Pair a reference judgment set with a candidate one, accounting for every row.

    Parameters
    ----------
    reference, candidate : DataFrame or path
        Judgment sets: frames from the readers, or paths (qrels files are read with
        :func:`metaeval.read_qrels`; ``.csv/.tsv/.json/.jsonl/.parquet`` as tables; an evaluation-harness
        log or annotation-tool export, told from its content, with :func:`metaeval.read_eval_log`: pass
        ``on="item", label="score"``). The DuckDB and
        Spark engines take more forms (globs, folders, relations, Spark DataFrames: see
        :mod:`metaeval.data.engines`).
    on : str or sequence of str
        Key column(s) identifying an item.
    label : str or (str, str)
        The label column, or one per side.
    scale : Scale, optional
        The declared scale. Labels outside it are handled by ``out_of_scale``. Without a scale,
        one is inferred from the labels and nothing is out of scale.
    out_of_scale : {"error", "clip", "drop", "missing"}
        Policy for labels outside the scale (the LLMJudge paper clipped into 0-3).
    duplicates : {"error", "first", "last", "majority", "mean"}
        Policy for keys judged more than once with *different* labels (identical repeats are
        always collapsed and counted).
    refusal_flag : str, optional
        A column whose truthy values mark refusals or parse failures.
    refusal_value : number, optional
        A sentinel label that marks refusals (e.g. -1).
    refusals : {"keep", "drop"} or number
        Keep refusals with their recorded label (counted in the notes), drop them, or relabel them.
    unjudged : {"drop", "keep"} or number
        Reference items the candidate did not judge: dropped (fate ``unmatched``), kept aside in
        ``Paired.unjudged``, or paired with this fill label (e.g. 0: unjudged counts as non-relevant).
    names : (str, str)
        Names of the two sides in the report.
    engine : {"auto", "pandas", "duckdb", "spark"}
        Who runs the alignment: pandas in memory, DuckDB (embedded, beyond memory), or Spark (a
        cluster). ``"auto"`` lets :func:`metaeval.data.engines.choose_engine` pick from the inputs.
        Every engine applies the same policies and gives the same report.
    by : str or sequence of str, optional
        The group columns the tables are kept by (key columns, or metadata columns of either
        side); default: the key columns but the last (``("query_id",)`` for qrels), ``()`` for a
        single key. ``cluster=`` and ``strata=`` of the statistics may then name them.
    rows : bool, optional
        True: a row :class:`Paired` (every pair, with its metadata); False: a
        :class:`PairedTables` (counts per ``by`` group and label pair, not rows). Default: rows
        from the pandas engine, tables from DuckDB and Spark.
    spark : pyspark.sql.SparkSession, optional
        The session of the Spark engine (default: a local one); passing one with
        ``engine="auto"`` chooses Spark.
    glob : bool, optional
        Whether a path is a pattern. None (default): a path that exists is read as it is, whatever its
        name holds (``p[1].parquet`` is that file, not ``p1.parquet``), and a path that does not exist
        but holds ``*``, ``?`` or ``[`` is a pattern (its longest existing leading folder taken
        literally: ``run[2024]/*.parquet``); True: always a pattern; False: never. Patterns are read by
        the DuckDB and Spark engines (see :mod:`metaeval.data.engines.paths`).

    Returns
    -------
    Paired or PairedTables
        The pairs (or their tables), with an :class:`AlignmentReport` that gives every input row
        of both sides one fate (see the module docstring).

    Raises
    ------
    InputError
        Conflicting labels with ``duplicates="error"``, a label outside the scale with
        ``out_of_scale="error"``, a missing column, an unreadable file, an unknown engine, or a
        ``by`` column neither side has.

    References
    ----------
    tests/test_align.py: the accounting identity on random inputs (hypothesis), every policy, and
    the tables against ``sklearn.metrics.confusion_matrix``; tests/test_io_realdata.py aligns the
    LLMJudge files with their out-of-scale labels (clipped into 0–3 as the LLMJudge paper did);
    tests/test_paired_tables.py: the tables equal those of the rows.

    Examples
    --------
    >>> import pandas as pd
    >>> ref = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [0, 2, 3]})
    >>> cand = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2]})
    >>> p = align(ref, cand)
    >>> len(p), p.report.counts[("reference", "unmatched")]
    (2, 1)
    >>> align(ref, cand, rows=False).cells
      query_id  reference  candidate  n
    0        1        0.0        1.0  1
    1        1        2.0        2.0  1
    """
    from .engines.plan import check_policies
    from .logs import log_or_source

    reference, candidate = log_or_source(reference), log_or_source(candidate)  # eval-harness logs → frames
    # one set of argument checks for every engine
    on, names, labels = check_policies(on, duplicates, out_of_scale, refusals, unjudged, names, label)
    if not isinstance(engine, str) or engine not in _ENGINES:
        raise InputError(f"unknown engine {engine!r}", source="<align>", expected=f"one of {', '.join(_ENGINES)}")
    if rows is not None and not isinstance(rows, (bool, np.bool_)):
        raise InputError(f"rows must be True, False or None, got {rows!r}", source="<align>")
    if spark is not None:
        if engine == "auto":
            engine = "spark"          # a session given is a request for Spark
        elif engine != "spark":
            raise InputError(f"spark= (a SparkSession) applies to engine='spark', not engine={engine!r}",
                             source="<align>", fix="drop spark=, or pass engine='spark'")
    by = _default_by(on, by)
    from .io import check_unchanged

    # the input files as they are now: a file replaced or modified while it is read is refused at the end
    before = _input_states((reference, candidate), glob)
    paired = _align(reference, candidate, on=on, labels=labels, scale=scale, out_of_scale=out_of_scale,
                    duplicates=duplicates, refusal_flag=refusal_flag, refusal_value=refusal_value, refusals=refusals,
                    unjudged=unjudged, names=names, engine=engine, by=by, rows=rows, spark=spark, glob=glob)
    check_unchanged(before)
    return paired


def _input_states(sources, glob) -> dict:
    """:func:`~metaeval.data.io.file_states` of every file the inputs name (a file, a folder's files, a
    glob's matches)."""
    from .engines.paths import resolve
    from .io import file_states

    paths = []
    for src in sources:
        if not isinstance(src, (str, os.PathLike)):
            continue
        try:
            kind, files = resolve(str(src), glob)
        except (InputError, ValueError, OSError):  # the engine's reader names the problem
            continue
        if kind == "dir":
            files = [str(p) for p in Path(str(src)).rglob("*")]
        paths += files
    return file_states(paths)


def _align(reference, candidate, *, on, labels, scale, out_of_scale, duplicates, refusal_flag, refusal_value,
           refusals, unjudged, names, engine, by, rows, spark, glob):
    """:func:`align` once the arguments are checked: the engine chosen and run."""
    from . import engines as _engines

    choose = getattr(_engines, "choose_engine", None)
    if choose is not None:
        resolved = choose(reference, candidate, engine, glob=glob)
    else:  # the engines package without its chooser: pandas alone
        resolved = "pandas" if engine == "auto" else engine
    if rows is None:
        rows = resolved == "pandas"
    if resolved != "pandas":
        run = getattr(_engines, "run_alignment", None)
        if run is None:
            raise InputError(f"the {resolved} engine is not available in this installation", source="<align>",
                             fix="pass engine='pandas'")
        counts = run(resolved, reference, candidate, on=on, labels=labels, scale=scale, out_of_scale=out_of_scale,
                     duplicates=duplicates, refusal_flag=refusal_flag, refusal_value=refusal_value,
                     refusals=refusals, unjudged=unjudged, names=names, by=by, rows=bool(rows), spark=spark,
                     glob=glob)
        if rows:
            return Paired(counts.rows, on=counts.on, scale=counts.scale, report=counts.report,
                          unjudged=counts.unjudged, names=counts.names)
        return PairedTables._from_counts(counts)
    from .engines.paths import is_pattern

    for src in (reference, candidate):
        if isinstance(src, (str, os.PathLike)) and is_pattern(str(src), glob):
            raise InputError("a pattern (glob) names several files; the pandas engine reads one file a side",
                             source=str(src), fix="pass engine='duckdb' (or 'auto'), or name one file")
    return _align_pandas(reference, candidate, on=on, labels=labels, scale=scale, out_of_scale=out_of_scale,
                         duplicates=duplicates, refusal_flag=refusal_flag, refusal_value=refusal_value,
                         refusals=refusals, unjudged=unjudged, names=names, by=by, rows=bool(rows))


def _align_pandas(reference, candidate, *, on, labels, scale, out_of_scale, duplicates, refusal_flag, refusal_value,
                  refusals, unjudged, names, by, rows) -> Paired:
    """The pandas engine: the pairs as rows (``rows=True``) or their tables by ``by``."""
    counts, notes, oos_rows, conflict_rows = {}, {}, [], []
    sources, n_input = {}, {}
    loaded = [_load(src, on, lab) for src, lab in zip((reference, candidate), labels)]
    if refusal_flag is not None and not any(refusal_flag in df.columns for df, _, _ in loaded):
        raise InputError(f"no refusal flag column {refusal_flag!r} on either side",
                         source=f"{loaded[0][1]} / {loaded[1][1]}", fix="check refusal_flag=")
    for df, name, _ in loaded:
        for c in on:
            if c not in df.columns:
                raise InputError(f"no key column {c!r}", source=name, line=1,
                                 expected=f"key columns {', '.join(on)}; found {', '.join(map(str, df.columns))}",
                                 fix="rename the column or pass on=")
    nowhere = [b for b in by if not any(b in df.columns for df, _, _ in loaded)]
    if nowhere:
        raise InputError(f"by= names a column neither side has: {nowhere[0]!r}",
                         source=f"{loaded[0][1]} / {loaded[1][1]}",
                         expected=f"key columns {', '.join(on)} or columns of either side",
                         fix="pass by= with existing columns (by=() for one pooled table)")
    keys, codes, uniques = _shared_keys([df for df, _, _ in loaded], on)

    sides = []
    for s, ((df, name, lines), side, lab) in enumerate(zip(loaded, names, labels)):
        if len(df) == 0:  # files with no rows are InputErrors when read; an empty frame is said here
            warnings.warn(f"{name}: the {side} side has no rows, so there are no pairs (check that the "
                          f"{side} data was read or filtered correctly)", MetaevalWarning, stacklevel=3)

        def key_of_row(i, s=s):
            return tuple(str(uniques[j][codes[s][j][i]]) for j in range(len(on)))

        frame, fate = _side(df, name, lines, side, on, keys[s], key_of_row, lab, scale, out_of_scale, duplicates,
                            refusal_flag, refusal_value, refusals, counts, notes, oos_rows, conflict_rows)
        sides.append((df, frame, fate))
        sources[side] = name
        n_input[side] = len(df)
    del keys

    (rdf, rkeep, rfate), (cdf, ckeep, cfate) = sides
    # the kept keys are unique on each side: match them through a hash index of the candidate's
    rrow = rkeep["_row"].to_numpy()
    crow = ckeep["_row"].to_numpy()
    pos = pd.Index(ckeep["_key"].to_numpy()).get_indexer(rkeep["_key"].to_numpy())
    both = pos >= 0
    left = ~both
    hit = np.zeros(len(crow), dtype=bool)
    hit[pos[both]] = True
    rfate[rrow[both]] = _F["matched"]
    cfate[crow[pos[both]]] = _F["matched"]
    cfate[crow[~hit]] = _F["unmatched"]
    left_rows = rrow[left]
    if unjudged == "drop":
        rfate[left_rows] = _F["unmatched"]
    elif unjudged == "keep":
        rfate[left_rows] = _F["unjudged"]
    else:
        rfate[left_rows] = _F["unjudged_filled"]

    # build the paired frame, in the reference's row order (rkeep is in row order)
    take = both | (left if not isinstance(unjudged, str) else np.zeros_like(left))
    r_idx = rrow[take]
    c_pos = pos[take]
    has_c = c_pos >= 0
    c_idx = np.where(has_c, crow[np.maximum(c_pos, 0)] if len(crow) else 0, -1)
    rc = codes[0]
    key_cols = list(on) if rows else [c for c in on if c in by]
    # one Python string per distinct key value, shared by the rows (Arrow dictionaries converted here)
    data = pd.DataFrame({c: np.asarray(uniques[j], dtype=object)[rc[j][r_idx]]
                         for j, c in enumerate(on) if c in key_cols})
    data["reference"] = rkeep["_label"].to_numpy(dtype=float)[take]
    cand_lab = np.full(len(r_idx), np.nan)
    cand_lab[has_c] = ckeep["_label"].to_numpy(dtype=float)[c_pos[has_c]]
    if not isinstance(unjudged, str):
        cand_lab[~has_c] = float(unjudged)
    data["candidate"] = cand_lab
    wanted = None if rows else set(by)
    reserved = set(on) | {"reference", "candidate"}
    for c in rdf.columns:
        if c not in reserved and c != labels[0] and (wanted is None or c in wanted):
            data[c] = rdf[c].to_numpy()[r_idx]
    for c in cdf.columns:
        if c in set(on) or c == labels[1]:
            continue
        out_name = c if c not in data.columns else f"{c}_{names[1]}"
        if wanted is not None and out_name not in wanted:
            continue
        vals = cdf[c].to_numpy()
        col = np.full(len(data), None, dtype=object)
        col[has_c] = vals[c_idx[has_c]]
        data[out_name] = pd.Series(col).infer_objects().to_numpy() if has_c.all() else col
    data = data.reset_index(drop=True)

    unj = None
    if unjudged == "keep":
        lrows = left_rows
        # the cleaned keys, as in the pairs (and as the DuckDB and Spark engines give them)
        unj = pd.DataFrame({c: np.asarray(uniques[j], dtype=object)[rc[j][lrows]] for j, c in enumerate(on)})
        unj["reference"] = rkeep["_label"].to_numpy(dtype=float)[left] if len(lrows) else []

    inv = {int(code): fate for fate, code in _F.items()}
    for side, fate in ((names[0], rfate), (names[1], cfate)):
        if (fate == 0).any():  # internal consistency: every row has a fate
            raise RuntimeError("alignment left rows without a fate; please report this bug")
        tally = np.bincount(fate, minlength=len(FATES) + 1)
        for code in sorted(np.flatnonzero(tally), key=lambda i: inv[int(i)]):
            counts[(side, inv[int(code)])] = int(tally[code])

    examples = {}
    if not both.any():  # nothing matched: a few keys of each side for the error the statistics raise
        for si, (side, fate) in enumerate(((names[0], rfate), (names[1], cfate))):
            examples[side] = [tuple(str(uniques[j][codes[si][j][i]]) for j in range(len(on)))
                              for i in np.flatnonzero(fate == _F["unmatched"])[:3]]
    if scale is None:
        scale = infer_from_pairs(data["reference"], data["candidate"], names=names) if len(data) else Scale((0, 1))
    report = AlignmentReport(
        names=names, sources=sources, n_input=n_input, counts=counts, notes=notes,
        out_of_scale=pd.DataFrame(oos_rows, columns=["side", "value", "count", "first_line", "policy"]),
        conflicts=pd.DataFrame(conflict_rows, columns=["side", "key", "labels", "lines"]),
        n_pairs=int(both.sum()), examples=examples, engine="pandas")
    if rows:
        return Paired(data, on=on, scale=scale, report=report, unjudged=unj, names=names)
    missing = [b for b in by if b not in data.columns]
    if missing:
        raise InputError(f"by= names {missing[0]!r}, which is not a column of the pairs", source="<align>",
                         expected=f"key columns or metadata columns: {', '.join(map(str, data.columns))}")
    unj_cells = None
    if unj is not None:
        for b in by:
            if b not in unj.columns and b in rdf.columns:
                unj[b] = rdf[b].to_numpy()[left_rows]
        unj_cells = _cells(unj, [b for b in by if b in unj.columns], labels=("reference",))
    return PairedTables(_cells(data, by), on=on, by=by, scale=scale, report=report, unjudged=unj_cells, names=names)
