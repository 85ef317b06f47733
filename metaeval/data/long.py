"""Two raters' scores from one long table (one row per rater, item and sample), every row accounted for.

:func:`align_long` reads a table with an item column, a rater column and a score column, takes the
rows of a reference rater and of a candidate rater, and pairs them by item through
:func:`metaeval.align`, so that both the duplicates and the pairing follow ``align``'s fates and
policies (one definition):

1. Rows of one rater that repeat an item (with a ``sample`` column: an item *and* a sample) are
   duplicates: identical ones are collapsed (fate ``duplicate_identical``), conflicting ones are an
   error or merged by ``duplicates=`` (``first``, ``last``, ``majority``, ``mean``; fate
   ``duplicate_conflict``), rows without a score are ``missing_label`` — as :func:`metaeval.align`
   does for each side.
2. Genuine repeats — rows of one rater on one item with *different* values of the ``sample`` column
   (several samples of a judge, epochs) — are kept and combined into one score per item by
   ``samples=`` (their ``mean``, or the ``first``); each takes its item's fate.
3. The items are paired: ``matched`` or ``unmatched`` (an item only one rater scored).

The :class:`~metaeval.AlignmentReport` of the result counts the table's rows: for each rater, the
fates add up to that rater's rows.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.scale import Scale
from .alignment import FATES, AlignmentReport, Paired, align

__all__ = ["align_long"]


def _read(data) -> tuple[pd.DataFrame, str, np.ndarray]:
    from . import io as mio

    if isinstance(data, pd.DataFrame):
        df, name, lines = mio._frame_source(data)
        df = df.copy()
        df.columns = [str(c) for c in df.columns]
        return df, name, lines
    if not isinstance(data, (str, os.PathLike)):
        raise InputError(f"cannot read scores from an object of type {type(data).__name__}",
                         expected="a DataFrame or the path of a table")
    df, name, first = mio._read_table(data)
    return df, name, mio._row_lines(df, first)


def align_long(data, *, reference: str, candidate: str, item: str = "item_id", rater: str = "rater",
               score: str = "score", sample: str | None = "auto", samples: str = "mean", duplicates: str = "error",
               keep=(), names=None, scale: Scale | None = None) -> Paired:
    """Pair two raters' scores from a long table, accounting for every row (duplicates, samples, unmatched).

    Parameters
    ----------
    data : str, Path or pandas.DataFrame
        The long table (CSV, TSV, JSON, JSONL or Parquet, gzipped too), one row per rater, item
        (and sample).
    reference, candidate : str
        The two raters' names in the ``rater`` column.
    item, rater, score : str
        The item, rater and score columns (scores are numbers).
    sample : str or None
        The column numbering repeated samples of one rater on one item (a judge sampled several
        times, an epoch). Rows that share an item but not a sample are repeats and are combined by
        ``samples``; rows that share both are duplicates. ``"auto"`` (default): the column
        ``sample``, else ``epoch``, when the table has one; None: no such column, so every second
        row of a rater on an item is a duplicate.
    samples : {"mean", "first"}
        How repeats become one score per item: their mean, or the first sample (in file order).
    duplicates : {"error", "first", "last", "majority", "mean"}
        Duplicates with conflicting scores, as in :func:`metaeval.align` (identical duplicates are
        always collapsed and counted).
    keep : sequence of str
        Item metadata columns carried into the pairs (from the item's first row in the table).
    names : (str, str), optional
        The names of the two sides (default: the two raters' names).
    scale : Scale, optional
        With ``samples="first"``: the scale of the scores (default: inferred). Averaged samples are
        on an interval scale inferred from the values.

    Returns
    -------
    Paired
        One pair per item both raters scored; its ``report`` counts the table's rows of each rater
        by fate (``matched``, ``unmatched``, ``duplicate_identical``, ``duplicate_conflict``,
        ``missing_key``, ``missing_label``), notes the conflicting keys and the repeats combined, and
        lists the conflicts with their lines.

    Raises
    ------
    InputError
        A missing column, a rater without rows, a score that is not a number, or conflicting
        duplicates with ``duplicates="error"`` (naming the item, its scores and their lines).

    References
    ----------
    The fates and policies are :func:`metaeval.align`'s (``metaeval/data/alignment.py``);
    ``tests/test_long_data.py`` checks the counts by hand on tables with identical, conflicting and
    repeated rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item_id": ["a", "a", "b", "b", "b", "c"],
    ...                    "rater": ["human", "judge", "human", "judge", "judge", "judge"],
    ...                    "score": [1, 2, 3, 3, 5, 4]})
    >>> p = align_long(df, reference="human", candidate="judge", duplicates="mean")
    >>> p.data[["item_id", "reference", "candidate"]].values.tolist()
    [['a', 1.0, 2.0], ['b', 3.0, 4.0]]
    >>> p.report.to_frame().values.tolist()
    [['human', 'matched', 2], ['judge', 'matched', 2], ['judge', 'unmatched', 1], ['judge', 'duplicate_conflict', 1]]
    """
    if samples not in ("mean", "first"):
        raise InputError(f"samples must be 'mean' or 'first', got {samples!r}", source="<align_long>")
    df, name, lines = _read(data)
    if sample == "auto":
        sample = next((c for c in ("sample", "epoch") if c in df.columns), None)
    keep = [keep] if isinstance(keep, str) else list(keep)
    cols = [item, rater, score, *([sample] if sample is not None else []), *keep]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"no column {missing[0]!r}", source=name, line=1,
                         expected=f"columns {', '.join(dict.fromkeys(cols))}; the table has "
                                  f"{', '.join(map(str, df.columns[:20]))}",
                         fix="name the columns with item=, rater=, score=, sample= and keep=")
    for c in keep:                             # metadata written as numbers compare as numbers
        conv = pd.to_numeric(df[c], errors="coerce")
        if conv.notna().all():
            df[c] = conv
    names = tuple(str(n) for n in (names if names is not None else (reference, candidate)))
    if len(names) != 2 or names[0] == names[1]:
        raise InputError(f"names must be two different names, got {names!r}", source="<align_long>")
    who = df[rater].astype(str)
    on = [item] if sample is None else [item, sample]
    kept, counts, notes, conflicts, n_input = {}, {}, {}, [], {}
    for side, want in zip(names, (reference, candidate)):
        mask = (who == str(want)).to_numpy()
        if not mask.any():
            raise InputError(f"no rows with {rater} == {want!r}", source=name,
                             expected=f"one of {', '.join(map(str, pd.unique(who)[:20]))}")
        rows = df.loc[mask, [*on, score]].reset_index(drop=True)
        rows.attrs = {"source": name, "lines": lines[mask].tolist()}
        n_input[side] = int(mask.sum())
        kept[side], rep = _dedupe(rows, on, score, duplicates, side)
        for (s, fate), n in rep.counts.items():
            if s == side and fate != "matched" and n:
                counts[(side, fate)] = int(n)
        notes.update({k: v for k, v in rep.notes.items() if k[0] == side})
        conflicts.append(rep.conflicts[rep.conflicts["side"] == side])
    # genuine repeats (several samples of an item) become one score per item
    items = {}
    for side, k in kept.items():
        g = k.groupby(item, sort=False)
        label = g["reference"].mean() if samples == "mean" else g["reference"].first()
        size = g.size()
        items[side] = pd.DataFrame({item: label.index.to_numpy(), "label": label.to_numpy(), "_rows": size.to_numpy()})
    ref_items = items[names[0]]
    if keep:
        meta = df.assign(**{item: df[item].astype(str)}).drop_duplicates(item).set_index(item)[keep]
        ref_items = ref_items.join(meta, on=item)
    if samples == "mean":                      # averaged samples: an interval scale of the values seen
        scale = Scale.infer(ref_items["label"], items[names[1]]["label"], kind="interval")
    paired = align(ref_items.drop(columns="_rows"), items[names[1]][[item, "label"]], on=item, label="label",
                   names=names, engine="pandas", rows=True, scale=scale)
    # each row's fate after the pairing is its item's: matched when the item made a pair, else unmatched
    paired_items = set(paired.data[item].astype(str))
    for side in names:
        it = items[side]
        made = it[item].astype(str).isin(paired_items).to_numpy()
        item_counts = {"matched": int(made.sum()), "unmatched": int((~made).sum())}
        got = {f: int(n) for (s, f), n in paired.report.counts.items() if s == side and n}
        if got != {f: n for f, n in item_counts.items() if n}:
            raise RuntimeError(f"align_long: the pairing's counts {got} differ from {item_counts}; please report this bug")
        for fate, n in (("matched", int(it["_rows"][made].sum())), ("unmatched", int(it["_rows"][~made].sum()))):
            if n:
                counts[(side, fate)] = counts.get((side, fate), 0) + n
        if sum(n for (s, _), n in counts.items() if s == side) != n_input[side]:
            raise RuntimeError("align_long: the fates do not add up to the rows; please report this bug")
    notes.update(paired.report.notes)
    order = {f: i for i, f in enumerate(FATES)}
    paired.report = AlignmentReport(
        names=names, sources={s: name for s in names}, n_input=n_input,
        counts=dict(sorted(counts.items(), key=lambda kv: (names.index(kv[0][0]), order[kv[0][1]]))),
        notes=notes, out_of_scale=paired.report.out_of_scale,
        conflicts=pd.concat([c for c in conflicts if len(c)] or [paired.report.conflicts], ignore_index=True),
        n_pairs=paired.report.n_pairs, examples=paired.report.examples)
    return paired


def _dedupe(rows: pd.DataFrame, on: list[str], score: str, duplicates: str, side: str):
    """One row per key of one rater's rows, by :func:`metaeval.align`'s duplicate policy and fates.

    The rows are aligned with the set of their own keys, so ``align`` applies its rules for a side
    (missing keys and scores, identical and conflicting duplicates, ``duplicates=``) and reports them;
    every key with a score then matches. Returns the kept rows (the key columns and ``reference``, the
    score) and the report.
    """
    values = pd.to_numeric(rows[score], errors="coerce").to_numpy(dtype=float)
    finite = np.unique(values[np.isfinite(values)])
    # a scale holding every score (and the keys' placeholder 0; at least two levels): nothing is out of
    # scale, nothing inferred
    levels = tuple(float(v) for v in np.union1d(finite, [0.0, 1.0]))
    keys = rows[on].drop_duplicates().assign(**{score: 0.0}).reset_index(drop=True)
    keys.attrs = {}
    try:
        p = align(rows, keys, on=tuple(on), label=score, names=(side, f"{side} (keys)"), duplicates=duplicates,
                  scale=Scale(levels, kind="interval"), engine="pandas", rows=True)
    except InputError as e:
        if "judged more than once" not in e.problem:
            raise
        raise InputError(f"rater {side!r}: {e.problem.replace('key(s) judged', 'item(s) scored')}", source=e.source,
                         line=e.line, text=e.text,
                         fix=("pass duplicates='first', 'last', 'majority' or 'mean' to merge them"
                              + ("" if len(on) > 1 else ", or, if they are repeated samples of a judge, name the "
                                 "column that numbers the samples (sample)"))) from None
    return p.data[[*on, "reference"]], p.report
