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

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..core.errors import InputError, MetaevalWarning
from ..core.scale import Scale

__all__ = ["align", "Paired", "AlignmentReport", "FATES"]

FATES = ("matched", "unmatched", "unjudged", "unjudged_filled", "duplicate_identical",
         "duplicate_conflict", "missing_key", "missing_label", "out_of_scale_dropped",
         "out_of_scale_missing", "refusal_dropped")

_DUP_POLICIES = ("error", "first", "last", "majority", "mean")
_OOS_POLICIES = ("error", "clip", "drop", "missing")


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
            lines.append(f"  {side} ({self.sources.get(side, '?')}): {self.n_input[side]} rows")
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
                           cluster=self._column(cluster) if cluster is not None else None)

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


# --------------------------------------------------------------------------------------------

_TABLE_EXTS = (".csv", ".tsv", ".json", ".jsonl", ".parquet", ".pq", ".ndjson")


def _load(source, on, label):
    """A side as (frame, source name, line numbers)."""
    from ..data import io as mio
    if isinstance(source, pd.DataFrame):
        df = source.reset_index(drop=True)
        name = df.attrs.get("source", "<DataFrame>")
        lines = df.attrs.get("lines")
        if not isinstance(name, str) or lines is None or len(lines) != len(df):
            name, lines = (name if isinstance(name, str) else "<DataFrame>"), np.arange(1, len(df) + 1)
        return df, name, np.asarray(lines)
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


def _side(df, name, lines, side, on, label_col, scale, out_of_scale, duplicates, refusal_flag,
          refusal_value, refusals, counts, notes, oos_rows, conflict_rows):
    """Apply the per-side policies. Returns (frame with one row per key, fate array)."""
    n = len(df)
    for c in on:
        if c not in df.columns:
            raise InputError(f"no key column {c!r}", source=name, line=1,
                             expected=f"key columns {', '.join(on)}; found {', '.join(map(str, df.columns))}",
                             fix="rename the column or pass on=")
    fate = np.full(n, None, dtype=object)
    keys = pd.DataFrame({c: df[c] for c in on})
    for c in on:
        col = keys[c]
        if col.dtype.kind == "f":
            vals = col.to_numpy()
            ok = np.isnan(vals) | (vals == np.round(vals))
            if ok.all():
                col = pd.Series([None if np.isnan(v) else str(int(v)) for v in vals], dtype="object")
        keys[c] = col.astype("object").map(lambda v: None if v is None or (isinstance(v, float) and np.isnan(v))
                                           else str(v).strip())
    missing_key = keys.isna().any(axis=1).to_numpy() | (keys == "").any(axis=1).to_numpy()
    fate[missing_key] = "missing_key"

    label = _numeric_labels(df, label_col, name, lines)

    # refusals / parse failures
    is_ref = np.zeros(n, dtype=bool)
    if refusal_flag is not None and refusal_flag in df.columns:
        is_ref |= _truthy(df[refusal_flag])
    if refusal_value is not None:
        is_ref |= label == float(refusal_value)
    is_ref &= fate == None  # noqa: E711
    if is_ref.any():
        k = int(is_ref.sum())
        if refusals == "drop":
            fate[is_ref] = "refusal_dropped"
        elif refusals == "keep":
            notes[(side, "refusals kept as recorded")] = k
        else:
            label = label.copy()
            label[is_ref] = float(refusals)
            notes[(side, f"refusals relabelled to {refusals}")] = k

    alive = fate == None  # noqa: E711
    miss = alive & np.isnan(label)
    fate[miss] = "missing_label"

    if scale is not None:
        alive = fate == None  # noqa: E711
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
                fate[oos] = "out_of_scale_dropped"
            else:
                fate[oos] = "out_of_scale_missing"

    alive = np.flatnonzero(fate == None)  # noqa: E711
    sub = keys.iloc[alive].copy()
    sub["_label"] = label[alive]
    sub["_row"] = alive
    dup = sub.duplicated(list(on), keep=False).to_numpy()
    if dup.any():
        d = sub.loc[dup]
        grp = d.groupby(list(on), sort=False)["_label"]
        nun = grp.transform("nunique").to_numpy()
        first_in_group = ~d.duplicated(list(on), keep="first").to_numpy()
        rows_d = d["_row"].to_numpy()
        # identical repeats: keep the first row of the group
        ident = (nun == 1) & ~first_in_group
        fate[rows_d[ident]] = "duplicate_identical"
        conf = nun > 1
        if conf.any():
            dc = d.loc[conf]
            n_keys = int((~dc.duplicated(list(on), keep="first")).sum())
            notes[(side, "keys with conflicting labels")] = n_keys
            ex = dc.groupby(list(on), sort=False).agg(labels=("_label", list), rows=("_row", list)).head(50)
            for key, r in ex.iterrows():
                key = key if isinstance(key, tuple) else (key,)
                conflict_rows.append((side, " ".join(map(str, key)), [_num(v) for v in r["labels"]],
                                      [int(lines[i]) for i in r["rows"]]))
            if duplicates == "error":
                key0 = ex.index[0] if len(ex) else ""
                r0 = ex.iloc[0]
                raise InputError(f"{n_keys} key(s) judged more than once with different labels; first: "
                                 f"{key0} with labels {[_num(v) for v in r0['labels']]} on lines "
                                 f"{[int(lines[i]) for i in r0['rows']]}", source=name,
                                 line=int(lines[r0["rows"][0]]),
                                 fix="pass duplicates='first', 'last', 'majority' or 'mean'")
            grpc = dc.groupby(list(on), sort=False)
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
            fate[rows_c[~is_rep]] = "duplicate_conflict"
            if new_label is not None:
                label = label.copy()
                label[rows_c[is_rep]] = new_label[is_rep]
    keep = np.flatnonzero(fate == None)  # noqa: E711
    out = keys.iloc[keep].copy()
    out["_label"] = label[keep]
    out["_row"] = keep
    return out.reset_index(drop=True), fate


def _num(v):
    f = float(v)
    return int(f) if f.is_integer() else f


def align(reference: pd.DataFrame | str | os.PathLike, candidate: pd.DataFrame | str | os.PathLike, *,
          on: str | Sequence[str] = ("query_id", "doc_id"), label: str | tuple[str, str] = "relevance",
          scale: Scale | None = None,
          out_of_scale: str = "error", duplicates: str = "error", refusal_flag: str | None = None,
          refusal_value=None, refusals="keep", unjudged="drop",
          names=("reference", "candidate")) -> Paired:
    """Pair a reference judgment set with a candidate one, accounting for every row.

    Parameters
    ----------
    reference, candidate : DataFrame or path
        Judgment sets: frames from the readers, or paths (qrels files are read with
        :func:`metaeval.read_qrels`; ``.csv/.tsv/.json/.jsonl/.parquet`` as tables).
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

    Returns
    -------
    Paired
        The pairs, with an :class:`AlignmentReport` that gives every input row of both sides one
        fate (see the module docstring).

    Raises
    ------
    InputError
        Conflicting labels with ``duplicates="error"``, a label outside the scale with
        ``out_of_scale="error"``, a missing column, or an unreadable file.

    References
    ----------
    tests/test_align.py: the accounting identity on random inputs (hypothesis), every policy, and
    the tables against ``sklearn.metrics.confusion_matrix``; tests/test_io_realdata.py aligns the
    LLMJudge files with their out-of-scale labels (clipped into 0–3 as the LLMJudge paper did).

    Examples
    --------
    >>> import pandas as pd
    >>> ref = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [0, 2, 3]})
    >>> cand = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2]})
    >>> p = align(ref, cand)
    >>> len(p), p.report.counts[("reference", "unmatched")]
    (2, 1)
    """
    on = (on,) if isinstance(on, str) else tuple(on)
    if not on:
        raise ValueError("on must name at least one key column")
    if duplicates not in _DUP_POLICIES:
        raise ValueError(f"duplicates must be one of {_DUP_POLICIES}, got {duplicates!r}")
    if out_of_scale not in _OOS_POLICIES:
        raise ValueError(f"out_of_scale must be one of {_OOS_POLICIES}, got {out_of_scale!r}")
    if not (refusals in ("keep", "drop") or isinstance(refusals, (int, float))):
        raise ValueError(f"refusals must be 'keep', 'drop' or a label, got {refusals!r}")
    if not (unjudged in ("drop", "keep") or isinstance(unjudged, (int, float))):
        raise ValueError(f"unjudged must be 'drop', 'keep' or a label, got {unjudged!r}")
    names = tuple(names)
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two distinct strings, got {names!r}")
    labels = (label, label) if isinstance(label, str) else tuple(label)

    counts, notes, oos_rows, conflict_rows = {}, {}, [], []
    sides, sources, n_input = [], {}, {}
    loaded = [_load(src, on, lab) for src, lab in zip((reference, candidate), labels)]
    if refusal_flag is not None and not any(refusal_flag in df.columns for df, _, _ in loaded):
        raise InputError(f"no refusal flag column {refusal_flag!r} on either side",
                         source=f"{loaded[0][1]} / {loaded[1][1]}", fix="check refusal_flag=")
    for (df, name, lines), side, lab in zip(loaded, names, labels):
        if len(df) == 0:  # files with no rows are InputErrors when read; an empty frame is said here
            warnings.warn(f"{name}: the {side} side has no rows, so there are no pairs (check that the "
                          f"{side} data was read or filtered correctly)", MetaevalWarning, stacklevel=2)
        frame, fate = _side(df, name, lines, side, on, lab, scale, out_of_scale, duplicates, refusal_flag,
                            refusal_value, refusals, counts, notes, oos_rows, conflict_rows)
        sides.append((df, frame, fate))
        sources[side] = name
        n_input[side] = len(df)

    (rdf, rkeep, rfate), (cdf, ckeep, cfate) = sides
    m = rkeep.merge(ckeep, on=list(on), how="outer", suffixes=("_r", "_c"), indicator=True, sort=False)
    both = m["_merge"].to_numpy() == "both"
    left = m["_merge"].to_numpy() == "left_only"
    right = m["_merge"].to_numpy() == "right_only"
    rrow = m["_row_r"].to_numpy()
    crow = m["_row_c"].to_numpy()
    rfate[rrow[both].astype(np.int64)] = "matched"
    cfate[crow[both].astype(np.int64)] = "matched"
    cfate[crow[right].astype(np.int64)] = "unmatched"
    left_rows = rrow[left].astype(np.int64)
    if unjudged == "drop":
        rfate[left_rows] = "unmatched"
    elif unjudged == "keep":
        rfate[left_rows] = "unjudged"
    else:
        rfate[left_rows] = "unjudged_filled"

    # build the paired frame, in the reference's row order
    take = both | (left if not isinstance(unjudged, str) else np.zeros_like(left))
    mm = m.loc[take]
    order = np.argsort(mm["_row_r"].to_numpy(), kind="stable")
    mm = mm.iloc[order]
    r_idx = mm["_row_r"].to_numpy().astype(np.int64)
    data = pd.DataFrame({c: mm[c].to_numpy() for c in on})
    data["reference"] = mm["_label_r"].to_numpy(dtype=float)
    cand_lab = mm["_label_c"].to_numpy(dtype=float)
    if not isinstance(unjudged, str):
        cand_lab = np.where(np.isnan(mm["_row_c"].to_numpy(dtype=float)), float(unjudged), cand_lab)
    data["candidate"] = cand_lab
    reserved = set(on) | {"reference", "candidate"}
    for c in rdf.columns:
        if c not in reserved and c != labels[0]:
            data[c] = rdf[c].to_numpy()[r_idx]
    c_idx = mm["_row_c"].to_numpy(dtype=float)
    has_c = ~np.isnan(c_idx)
    for c in cdf.columns:
        if c in set(on) or c == labels[1]:
            continue
        out_name = c if c not in data.columns else f"{c}_{names[1]}"
        vals = cdf[c].to_numpy()
        col = np.full(len(data), None, dtype=object)
        col[has_c] = vals[c_idx[has_c].astype(np.int64)]
        data[out_name] = pd.Series(col).infer_objects().to_numpy() if has_c.all() else col
    data = data.reset_index(drop=True)

    unj = None
    if unjudged == "keep":
        lrows = np.sort(left_rows)
        unj = pd.DataFrame({c: rdf[c].to_numpy()[lrows] for c in on})
        unj["reference"] = rkeep.set_index("_row").loc[lrows, "_label"].to_numpy(dtype=float) if len(lrows) else []

    for side, fate in ((names[0], rfate), (names[1], cfate)):
        if (fate == None).any():  # noqa: E711  (internal consistency: every row has a fate)
            raise RuntimeError("alignment left rows without a fate; please report this bug")
        vals, cnt = np.unique(fate.astype(str), return_counts=True)
        for v, c in zip(vals, cnt):
            counts[(side, v)] = int(c)

    if scale is None:
        scale = Scale.infer(data["reference"], data["candidate"]) if len(data) else Scale((0, 1))
    report = AlignmentReport(
        names=names, sources=sources, n_input=n_input, counts=counts, notes=notes,
        out_of_scale=pd.DataFrame(oos_rows, columns=["side", "value", "count", "first_line", "policy"]),
        conflicts=pd.DataFrame(conflict_rows, columns=["side", "key", "labels", "lines"]),
        n_pairs=int(both.sum()))
    return Paired(data, on=on, scale=scale, report=report, unjudged=unj, names=names)

