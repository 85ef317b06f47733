"""Inspect a judgment file: detect its kind, count rows and labels, and list the problems found."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.scale import Scale

__all__ = ["detect_kind", "inspect_file", "Inspection"]

_TABLE_EXTS = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet", ".pq")


def detect_kind(path: str | os.PathLike) -> str:
    """What kind of judgment file a path holds.

    Tables (by extension: ``.csv``, ``.tsv``, ``.json``, ``.jsonl``, ``.parquet``, optionally
    ``.gz``) are ``battles`` (an ``outcome`` column, or ``model_a`` and ``model_b``), ``scores``
    (``measure``/``metric`` and ``value``) or ``judgments``; whitespace files are told apart by
    their number of fields: 4 ``qrels``, 6 ``run``, 3 ``trec_eval`` (``-q`` output).

    Parameters
    ----------
    path : path
        The file.

    Returns
    -------
    str
        ``"qrels"``, ``"run"``, ``"trec_eval"``, ``"battles"``, ``"scores"`` or ``"judgments"``.

    Raises
    ------
    InputError
        A whitespace file with another number of fields, binary data or bad encoding.

    References
    ----------
    The TREC qrels and run formats and trec_eval's ``-q`` output; tests/test_cli.py runs
    ``metaeval inspect`` on qrels, a run, battles and a file of an unknown kind.

    Examples
    --------
    >>> import metaeval as me
    >>> trec = me.datasets.path("trec_dl_like")
    >>> detect_kind(trec / "qrels.human.txt"), detect_kind(trec / "runs" / "run_01.txt.gz")
    ('qrels', 'run')
    >>> detect_kind(me.datasets.path("battles_like") / "battles.csv")
    'battles'
    """
    from ..data import io as mio
    name = str(path)
    base = name[:-3] if name.endswith(".gz") else name
    if base.lower().endswith(_TABLE_EXTS):
        df, _, _ = mio._read_table(path)
        cols = set(df.columns)
        if "outcome" in cols or {"model_a", "model_b"} <= cols:
            return "battles"
        if {"measure", "value"} <= cols or {"metric", "value"} <= cols:
            return "scores"
        return "judgments"
    data = mio._read_bytes(path)
    mio._check_text(data, name)
    for line in data.split(b"\n"):
        if line.strip():
            n = len(line.split())
            break
    kinds = {4: "qrels", 6: "run", 3: "trec_eval"}
    if n not in kinds:
        raise InputError(f"cannot tell the kind of a whitespace file with {n} fields per line", source=name, line=1,
                         expected="qrels (4 fields), a run (6) or trec_eval -q output (3)",
                         fix="give tables an extension (.csv, .tsv, .jsonl, .parquet)")
    return kinds[n]


@dataclass
class Inspection:
    """What :func:`inspect_file` found in a file.

    Parameters
    ----------
    path : str
        The file.
    kind : str
        As :func:`detect_kind` tells it.
    rows : int
        Rows read.
    frame : pandas.DataFrame
        The file as its reader returns it.
    facts : dict
        Kind-specific counts (topics, runs, models, measures, columns ...).
    distribution : pandas.Series, optional
        Label → count (labelled kinds only).
    problems : list of str
        What looks wrong (duplicates, conflicts, NaN scores, ties, labels outside the scale ...).
    mapping : dict, optional
        For a table whose key or label columns were not found: the guessed ``{"on": (...), "label":
        ...}`` to pass to :func:`metaeval.align` (also named, in Python syntax, among the problems).

    Examples
    --------
    >>> import metaeval as me
    >>> i = inspect_file(me.datasets.path("trec_dl_like") / "qrels.human.txt")
    >>> i.kind, i.rows, i.facts, i.problems
    ('qrels', 7734, {'topics': 40}, [])
    """

    path: str
    kind: str
    rows: int
    frame: pd.DataFrame = field(repr=False)
    facts: dict = field(default_factory=dict)
    distribution: pd.Series | None = None
    problems: list = field(default_factory=list)
    mapping: dict | None = None

    def render(self) -> str:
        """The inspection as text (what ``metaeval inspect`` prints).

        Returns
        -------
        str

        Examples
        --------
        >>> import metaeval as me
        >>> text = inspect_file(me.datasets.path("trec_dl_like") / "qrels.human.txt").render()
        >>> print("\\n".join(text.splitlines()[1:]))
          kind: qrels
          rows: 7734
          topics: 40
          label distribution: 0: 4444, 1: 1531, 2: 948, 3: 811
          problems: none found
        """
        out = [f"{self.path}", f"  kind: {self.kind}", f"  rows: {self.rows}"]
        for k, v in self.facts.items():
            out.append(f"  {k}: {v}")
        if self.distribution is not None:
            dist = ", ".join(f"{_fmt(k)}: {v}" for k, v in self.distribution.items())
            out.append(f"  label distribution: {dist}")
        out.append("  problems: " + ("none found" if not self.problems else ""))
        out.extend(f"    - {p}" for p in self.problems)
        return "\n".join(out)


def _fmt(v):
    try:
        f = float(v)
        return str(int(f)) if f.is_integer() else str(f)
    except (TypeError, ValueError):
        return str(v)


def _empty_or_pseudo(path) -> None:
    """A file whose stated size is 0: refused when it has content after all (a pseudo-file of /proc or
    /sys, whose reading may never end) or cannot be read without waiting (``/proc/kmsg``)."""
    from ..core.regular import read_regular

    read_regular(path, limit=0)


def inspect_file(path: str | os.PathLike, *, scale: Scale | None = None) -> Inspection:
    """Read a file with the reader for its kind and describe it: counts, labels and problems.

    Parameters
    ----------
    path : path
        A qrels file, a run, trec_eval output, or a table of judgments, battles or scores.
    scale : Scale, optional
        The declared label scale: labels outside it are listed as a problem.

    Returns
    -------
    Inspection

    Raises
    ------
    InputError
        File not found, a link loop, a device, FIFO, socket, folder or pseudo-file (``/proc``), an
        unknown kind, or anything the kind's reader rejects.

    References
    ----------
    The readers of :mod:`metaeval.data.io`; tests/test_cli.py (``metaeval inspect`` on qrels with
    labels outside the scale, a run with ties, battles with invalid outcomes).

    Examples
    --------
    >>> import metaeval as me
    >>> i = inspect_file(me.datasets.path("battles_like") / "battles.csv")
    >>> i.kind, i.rows, i.facts["models"], i.problems
    ('battles', 1359, 8, ['8 invalid outcome(s) (parse failures or refusals)'])
    """
    from ..core.regular import check_readable
    from ..data import io as mio
    if not os.path.exists(path):
        if os.path.islink(path):
            raise InputError("a symbolic link to nothing (its target is missing, or the links loop)", source=str(path),
                             fix="check where the link points")
        raise InputError("file not found", source=str(path), fix="check the path")
    st = check_readable(path)                   # a device, FIFO, socket, folder or link loop: refused unopened
    if st.st_size == 0:
        _empty_or_pseudo(path)
    log = _inspect_log(path)
    if log is not None:
        return log
    kind = detect_kind(path)
    problems, facts, dist, mapping = [], {}, None, None
    if kind == "qrels":
        df = mio.read_qrels(path)
        keys, label = ["query_id", "doc_id"], "relevance"
        facts["topics"] = df["query_id"].nunique()
    elif kind == "run":
        df = mio.read_run(path)
        keys, label = ["query_id", "doc_id"], None
        facts["runs"] = ", ".join(map(str, df["run_id"].unique()[:5]))
        facts["topics"] = df["query_id"].nunique()
        nan = int(np.isnan(df["score"].to_numpy()).sum())
        if nan:
            problems.append(f"{nan} NaN score(s)")
        ties = int(df.duplicated(["query_id", "score"]).sum())
        if ties:
            problems.append(f"{ties} tied score(s) within a topic (trec_eval breaks them by doc_id, descending)")
    elif kind == "trec_eval":
        df = mio.read_score_table(path)
        keys, label = ["system", "query_id", "measure"], None
        facts["measures"] = ", ".join(sorted(df["measure"].unique())[:10])
        facts["dropped 'all' rows"] = df.attrs.get("dropped_all_rows", 0)
    elif kind == "scores":
        df = mio.read_score_table(path)
        keys, label = [c for c in ("system", "query_id", "measure") if c in df], None
        facts["systems"] = df["system"].nunique()
        facts["measures"] = ", ".join(sorted(df["measure"].unique())[:10])
        facts["dropped 'all' rows"] = df.attrs.get("dropped_all_rows", 0)
    elif kind == "battles":
        df = mio.read_battles(path)
        keys, label = None, "outcome"
        facts["models"] = len(set(df["model_a"]) | set(df["model_b"]))
        facts["judges"] = ", ".join(map(str, df["judge"].unique()[:10]))
        inv = int((df["outcome"] == "invalid").sum())
        if inv:
            problems.append(f"{inv} invalid outcome(s) (parse failures or refusals)")
    else:
        raw, _, _ = mio._read_table(path)
        cols = list(raw.columns)
        label = next((c for c in ("label", "relevance", "score", "human", "judge") if c in cols), None)
        known_item = {"query_id", "doc_id"} <= set(cols) or any(c in cols for c in ("item_id", "doc_id", "id"))
        item = ["query_id", "doc_id"] if {"query_id", "doc_id"} <= set(cols) else \
            [next((c for c in ("item_id", "doc_id", "id") if c in cols), cols[0])]
        if label is None or not known_item:
            on, lab = _guess_mapping(raw, label)
            what = " and ".join(w for w, miss in (("key", not known_item), ("label", label is None)) if miss)
            hint = ", ".join(x for x in ((f"on={(on[0] if len(on) == 1 else tuple(on))!r}" if on else ""), (f"label={lab!r}" if lab else "")) if x)
            problems.append(f"cannot find the {what} column(s) (keys query_id and doc_id, or item_id; a label "
                            f"named label or relevance); columns {', '.join(map(str, cols))}"
                            + (f": pass {hint}" if hint else ""))
            mapping = {"on": tuple(on) if on else None, "label": lab}
            if not known_item:
                label = None
        df = mio.read_judgments(path, item=item if len(item) > 1 else item[0], label=label) if label else raw
        # several raters or samples per item are not duplicates
        extra = [c for c in ("rater", "judge", "sample", "annotator") if c in cols and c != label]
        keys = ((item if len(item) > 1 else ["item_id"]) + extra) if label else None
        label = "label" if label else None
        facts["columns"] = ", ".join(map(str, cols))
    if label is not None:
        vals = df[label]
        dist = vals.value_counts(dropna=False).sort_index()
        if vals.dtype.kind == "f":
            nmiss = int(vals.isna().sum())
            if nmiss:
                problems.append(f"{nmiss} missing label(s)")
        if scale is not None and vals.dtype.kind in "fiu":
            oos = scale.out_of_scale(vals.to_numpy(dtype=float))
            if oos.any():
                bad = pd.Series(vals.to_numpy()[oos]).value_counts().sort_index()
                problems.append("labels outside the scale " + str(scale.levels) + ": "
                                + ", ".join(f"{_fmt(k)} (x{v})" for k, v in bad.items()))
    if keys:
        dup = df.duplicated(keys, keep=False)
        if dup.any():
            nkeys = int((~df.loc[dup].duplicated(keys)).sum())
            if label is not None:
                conf = int((df.loc[dup].groupby(keys)[label].nunique() > 1).sum())
                problems.append(f"{nkeys} key(s) occur more than once ({conf} with conflicting labels)")
            else:
                problems.append(f"{nkeys} key(s) occur more than once")
    return Inspection(path=str(path), kind=kind, rows=len(df), frame=df, facts=facts, distribution=dist,
                      problems=problems, mapping=mapping)


_LABEL_WORDS = ("label", "relevance", "rel", "grade", "judgment", "judgement", "rating", "score", "human", "gold")
_KEY_WORDS = ("id", "qid", "docno", "doc", "query", "topic", "item", "passage", "q", "docid")


def _guess_mapping(raw: pd.DataFrame, label: str | None) -> tuple[list, str | None]:
    """Guess (key columns, label column) of a table whose names are not the package's."""
    cols = [str(c) for c in raw.columns]

    def numeric(c):
        v = pd.to_numeric(raw[c], errors="coerce")
        return bool(len(v)) and not v.isna().any()

    if label is None:
        named = [c for c in cols if c.lower() in _LABEL_WORDS or c.lower().startswith(_LABEL_WORDS[:6])]
        label = next((c for c in named if numeric(c)), None)
        if label is None:
            label = next((c for c in reversed(cols) if numeric(c)), None)
    rest = [c for c in cols if c != label]
    keys = [c for c in rest if c.lower() in _KEY_WORDS or c.lower().endswith(("_id", "id", "no"))]
    if not keys:
        keys = [c for c in rest if not numeric(c)][:2]
    return keys, label


def _inspect_log(path) -> Inspection | None:
    """An evaluation-harness log or annotation-tool export: its format, graders and the record accounting
    (None when the file is not one)."""
    from .logs import LOG_EXTENSIONS, read_eval_log, sniff

    if not str(path).lower().endswith(LOG_EXTENSIONS):
        return None
    fmt = sniff(path, deep=False)
    if fmt is None:
        return None
    df = read_eval_log(path)
    rep = df.attrs["report"]
    fates = ", ".join(f"{r.fate} {r.count}" for r in rep.to_frame().itertuples()) or "none"
    facts = {"format": fmt, "records": f"{sum(rep.n_records.values())} ({fates})", "items": df["item"].nunique(),
             "scorers": ", ".join(map(str, df["scorer"].unique()[:8])) + (" ..." if df["scorer"].nunique() > 8 else ""),
             "epochs": int(df["epoch"].max()) if len(df) else 0}
    graders = (rep.facts.get(str(path)) or {}).get("graders")
    if graders:
        facts["graders"] = ", ".join(f"{k}: {v}" for k, v in graders.items())
    roles = df["role"].value_counts()
    facts["roles"] = ", ".join(f"{k} {v}" for k, v in roles.items()) or "none"
    stored = {k: v for k, v in rep.stored.get(str(path), {}).items() if isinstance(v, (int, float, str))}
    if stored:
        facts["stored by the harness"] = ", ".join(f"{k} = {v}" for k, v in list(stored.items())[:8])
    dist = df["value"].map(str).value_counts().sort_index() if len(df) else None
    return Inspection(path=str(path), kind="eval_log", rows=len(df), frame=df, facts=facts, distribution=dist,
                      problems=list(rep.notes))
