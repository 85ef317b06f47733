"""What every log reader shares: bounded reading, the long judgment frame, and the accounting of records.

A *record* is the unit a harness or annotation tool writes: an Inspect sample in one epoch, a line of a
JSONL log, a promptfoo result, a Label Studio annotation. Every record gets exactly one *fate*:

=============  ========================================================================================
fate           meaning
=============  ========================================================================================
read           the record gave judgment rows to the frame (one per scorer, assertion or control)
unscored       the record holds no score (an Inspect sample without ``scores``, an empty ``grades``)
cancelled      the run or the annotator cancelled it (Label Studio ``was_cancelled``)
errored        the record carries an error (``sample.error``, a judge verdict ``error``, a metric with
               no score)
duplicate      the same record again (a Prodigy task answered twice by one annotator): the first is kept
context        a record that by design holds no judgment (an OpenAI evals ``spec``, ``final_report`` or
               ``sampling`` event)
unrecognized   a whole file of a folder that is no log of a known format
=============  ========================================================================================

For each file the fate counts add up to its records; :class:`LogReport` holds them, the aggregates the
harness itself stored (``stored``), and notes (human labels that were not drawn at random, a run status
``cancelled``, a header-only log).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zipfile
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...core.errors import InputError

__all__ = ["LOG_FATES", "LogReport", "MAX_LOG_BYTES", "grade_score", "judges", "epoch_matrix", "reduce_epochs"]

LOG_FATES = ("read", "unscored", "cancelled", "errored", "duplicate", "context", "unrecognized")

#: The largest log file (or ``.eval`` archive's members, each and together, uncompressed) :func:`metaeval.read_eval_log` reads:
#: 512 MiB. A log is held in memory while it is parsed, so a larger one is refused from its size alone
#: (``stat``, and for a zip its directory, before anything is read; a zip member is read through a
#: stream that stops at its declared size) with an :class:`~metaeval.InputError` naming the file. Raise
#: it by assignment (``metaeval.data.logs.base.MAX_LOG_BYTES``) or with the environment variable
#: ``METAEVAL_MAX_LOG_BYTES`` (bytes).
MAX_LOG_BYTES = 512 * 2 ** 20
_DEFAULT_MAX_LOG_BYTES = MAX_LOG_BYTES

#: The columns every frame of :func:`metaeval.read_eval_log` has, in this order.
COLUMNS = ("item", "scorer", "epoch", "value", "score", "role", "model", "format", "source", "record")

#: Inspect's letter grades as its ``value_to_float`` reads them: correct, partial, incorrect, no answer.
INSPECT_GRADES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}

#: Words an annotation tool's binary choice is read as (case-insensitive) when no ``labels=`` is given.
BINARY_WORDS = {"correct": 1.0, "incorrect": 0.0, "yes": 1.0, "no": 0.0, "pass": 1.0, "fail": 0.0,
                "true": 1.0, "false": 0.0, "accept": 1.0, "reject": 0.0, "good": 1.0, "bad": 0.0}

NONRANDOM_NOTE = ("human labels exist only on records someone chose to review ({what}); they are not a "
                  "random sample of the items: estimate with design weights (metaeval.estimate_from_validation, "
                  "metaeval.ppi_mean_stratified) rather than as if the reviewed items were drawn at random")


def _line_numbers(lines):
    from ..io import _line_numbers as io_lines  # line numbers that compare as one value (pandas attrs)

    return io_lines(lines)


def _limit() -> int:
    from ..io import _limit as io_limit

    return io_limit("MAX_LOG_BYTES", MAX_LOG_BYTES, _DEFAULT_MAX_LOG_BYTES, owner="metaeval.data.logs.base")


def _too_big(name: str, size: int, limit: int, what: str = "the file", at_least: bool = False) -> InputError:
    """``at_least``: ``size`` is where reading stopped, not the whole size."""
    return InputError(f"{what} is {'at least ' if at_least else ''}{size} bytes, more than the {limit} bytes a log "
                      f"may have", source=name,
                      expected=f"at most metaeval.data.logs.base.MAX_LOG_BYTES = {limit} bytes",
                      fix="check that this is the right file; raise the limit with the environment variable "
                          "METAEVAL_MAX_LOG_BYTES (bytes) if it is genuine")


def listing(items, k: int = 3) -> str:
    """The first ``k`` of ``items`` joined by commas, and " ..." when there are more (for notes)."""
    items = list(items)
    return ", ".join(map(str, items[:k])) + (" ..." if len(items) > k else "")


def check_size(path, name: str) -> None:
    """Refuse a file larger than :data:`MAX_LOG_BYTES` from its size alone (nothing is read)."""
    from ..io import check_regular

    check_regular(path, name)
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        raise InputError("file not found", source=name, fix="check the path") from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", source=name) from None
    limit = _limit()
    if size > limit:
        raise _too_big(name, size, limit)


def read_text(path, name: str) -> bytes:
    """The bytes of a file of at most :data:`MAX_LOG_BYTES` (refused from its size before reading); a
    gzipped file is decompressed (streamed, stopping past the limit)."""
    check_size(path, name)
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                from ..io import _gunzip

                fh.seek(0)
                limit = _limit()  # stops decompressing once past it
                data = _gunzip(fh, name, text=True, limit=limit, too_big=lambda n: _too_big(
                    name, n, limit, what="the decompressed file (decompressing stopped there)", at_least=True))
                if len(data) > limit:
                    raise _too_big(name, len(data), limit, what="the decompressed file")
                return data
            fh.seek(0)
            return fh.read()
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=name) from None
    except PermissionError:
        raise InputError("permission denied", source=name, fix="check the file's permissions") from None


def parse_json(data: bytes, name: str, what: str = "JSON"):
    """Parse JSON bytes; bad JSON is an InputError naming the line."""
    try:
        return json.loads(data)
    except RecursionError:
        raise InputError(f"{what} nested too deeply to parse", source=name,
                         fix="check that this is the right file; a harness's log nests a few levels") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"the {what} is not UTF-8 text ({exc.reason})", source=name,
                         fix="check that this is the right file") from None
    except json.JSONDecodeError as exc:
        text = data.decode("utf-8", "replace").splitlines()
        line_text = text[exc.lineno - 1] if 0 < exc.lineno <= len(text) else None
        cut = "the JSON ends early (a truncated file?)" if exc.pos >= len(data.rstrip()) else f"invalid {what} ({exc.msg})"
        raise InputError(cut, source=name, line=exc.lineno, text=line_text,
                         fix="re-export the log, or check that the file was written completely") from None


def iter_jsonl(data: bytes, name: str):
    """``(line number, object)`` for each non-blank line of JSONL bytes; a bad line is an InputError."""
    for i, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except RecursionError:
            raise InputError("JSON nested too deeply to parse", source=name, line=i,
                             text=raw[:80].decode("utf-8", "replace"), expected="one JSON object per line",
                             fix="check that this is the right file; a harness's log nests a few levels") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"line is not JSON ({getattr(exc, 'msg', exc)})", source=name, line=i,
                             text=raw[:80].decode("utf-8", "replace"), expected="one JSON object per line",
                             fix="re-export the log, or remove the broken line") from None
        if not isinstance(obj, dict):
            raise InputError("line is not a JSON object", source=name, line=i, text=raw[:80].decode("utf-8", "replace"),
                             expected="one JSON object per line")
        yield i, obj


def open_zip(path, name: str) -> zipfile.ZipFile:
    """A zip archive, checked: readable, and its members, each and together, at most :data:`MAX_LOG_BYTES`
    uncompressed (as its directory declares them; a member is read through a stream that stops there)."""
    check_size(path, name)
    try:
        z = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise InputError(f"not a readable zip archive ({exc}; a truncated .eval file?)", source=name,
                         fix="re-copy the log; an .eval log that is still being written is only complete at the end "
                             "of the run") from None
    limit = _limit()
    total = 0
    for info in z.infolist():
        if info.file_size > limit:
            z.close()
            raise _too_big(name, info.file_size, limit, what=f"the archive member {info.filename}")
        total += info.file_size
    if total > limit:           # every member under the limit, many of them together far over it
        z.close()
        raise _too_big(name, total, limit, what=f"the total of the archive's {len(z.infolist())} members")
    return z


def zip_json(z: zipfile.ZipFile, member: str, name: str):
    """Parse one JSON member of a zip (bounded by its directory size, checked by :func:`open_zip`)."""
    where = f"{name}:{member}"
    try:
        with z.open(member) as fh:
            data = fh.read(_limit() + 1)
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as exc:  # CRC errors, truncation
        raise InputError(f"cannot read the archive member {member} ({exc})", source=name,
                         fix="re-copy the log; the archive is damaged") from None
    except Exception as exc:  # zlib.error and friends
        raise InputError(f"cannot read the archive member {member} ({exc})", source=name,
                         fix="re-copy the log; the archive is damaged") from None
    return parse_json(data, where)


def short_hash(text) -> str | None:
    """The first 12 hex digits of the SHA-256 of a template or rubric (None for none)."""
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        text = json.dumps(text, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def scorer_id(name, model=None, template_hash=None) -> str:
    """The grader's identity: ``name``, then ``@model`` and ``#template hash`` when known."""
    out = str(name)
    if model:
        out += f"@{model}"
    if template_hash:
        out += f"#{template_hash}"
    return out


def grade_score(value, mapping: dict | None = None) -> float:
    """The number a value counts as: a number itself, a boolean as 1/0, a mapped word, or NaN.

    Parameters
    ----------
    value : object
        The value as the source wrote it.
    mapping : dict, optional
        Text value → number (checked first, then as written, then lower-cased).

    Returns
    -------
    float
        NaN when the value is neither a number nor in ``mapping``.

    Examples
    --------
    >>> grade_score("C", INSPECT_GRADES), grade_score("P", INSPECT_GRADES), grade_score(True), grade_score(7)
    (1.0, 0.5, 1.0, 7.0)
    >>> grade_score("maybe")
    nan
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else math.nan
    if isinstance(value, str) and mapping:
        if value in mapping:
            return float(mapping[value])
        low = value.strip().lower()
        for k, v in mapping.items():
            if isinstance(k, str) and k.strip().lower() == low:
                return float(v)
    if isinstance(value, str):
        try:
            v = float(value)
            return v if math.isfinite(v) else math.nan
        except ValueError:
            return math.nan
    return math.nan


@dataclass
class LogReport:
    """Where every record of the logs went, and what the harness itself reported.

    Attributes
    ----------
    formats : dict
        File → the format it was read as.
    n_records : dict
        File → number of records it holds.
    counts : dict
        ``(file, fate) → count``; for each file they add up to ``n_records[file]``.
    n_rows : int
        Rows of the frame.
    stored : dict
        File → the aggregates the harness wrote into it (``{"match/accuracy": 0.75, ...}``, Inspect's
        ``results``, lm-eval's ``results``, promptfoo's ``stats`` ...), to compare with what the rows give.
    facts : dict
        File → facts about the run (log version, status, epochs and their reducer, the grader ...).
    notes : list of str
        Things to know before using the rows (human labels on chosen items, a cancelled run, a
        header-only log, duplicates that disagree).

    References
    ----------
    The same accounting idea as :class:`metaeval.AlignmentReport`: the identity (fates add up to the
    records of each file) is checked on every real log in tests/test_eval_logs_realdata.py.

    Examples
    --------
    >>> rep = LogReport()
    >>> rep.add("a.jsonl", "inspect_ai", "read", 3); rep.add("a.jsonl", "inspect_ai", "errored")
    >>> rep.to_frame().values.tolist()
    [['a.jsonl', 'inspect_ai', 'read', 3], ['a.jsonl', 'inspect_ai', 'errored', 1]]
    """

    formats: dict = field(default_factory=dict)
    n_records: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    n_rows: int = 0
    stored: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def add(self, source: str, fmt: str | None, fate: str, n: int = 1) -> None:
        """Count ``n`` records of ``source`` with ``fate``.

        Parameters
        ----------
        source : str
            The file.
        fmt : str or None
            Its format (None: keep the one already recorded).
        fate : str
            One of :data:`LOG_FATES`.
        n : int
            How many records.

        Examples
        --------
        >>> rep = LogReport(); rep.add("f.json", "deepeval", "read", 2); rep.n_records
        {'f.json': 2}
        """
        if fate not in LOG_FATES:
            raise ValueError(f"unknown fate {fate!r}")
        if fmt is not None or source not in self.formats:
            self.formats[source] = fmt
        self.n_records[source] = self.n_records.get(source, 0) + n
        self.counts[(source, fate)] = self.counts.get((source, fate), 0) + n

    def note(self, text: str) -> None:
        """Add a note once.

        Parameters
        ----------
        text : str
            The note.

        Examples
        --------
        >>> rep = LogReport(); rep.note("x"); rep.note("x"); rep.notes
        ['x']
        """
        if text not in self.notes:
            self.notes.append(text)

    def merge(self, other: LogReport) -> None:
        """Add another report's records, stored aggregates, facts and notes (files read one by one).

        Parameters
        ----------
        other : LogReport

        Examples
        --------
        >>> a, b = LogReport(), LogReport(); b.add("b.json", "promptfoo", "read", 4); a.merge(b); a.n_records
        {'b.json': 4}
        """
        for (src, fate), n in other.counts.items():
            self.add(src, other.formats.get(src), fate, n)
        for src in other.formats:
            self.formats.setdefault(src, other.formats[src])
            self.n_records.setdefault(src, 0)
        self.n_rows += other.n_rows
        self.stored.update(other.stored)
        self.facts.update(other.facts)
        for n in other.notes:
            self.note(n)

    def to_frame(self) -> pd.DataFrame:
        """Tidy ``source, format, fate, count`` rows (fates that occurred, in :data:`LOG_FATES` order).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> rep = LogReport(); rep.add("f.jsonl", "prodigy", "duplicate"); rep.add("f.jsonl", "prodigy", "read", 5)
        >>> rep.to_frame().values.tolist()
        [['f.jsonl', 'prodigy', 'read', 5], ['f.jsonl', 'prodigy', 'duplicate', 1]]
        """
        rows = []
        for src in self.n_records:
            for fate in LOG_FATES:
                n = self.counts.get((src, fate), 0)
                if n:
                    rows.append((src, self.formats.get(src), fate, int(n)))
        return pd.DataFrame(rows, columns=["source", "format", "fate", "count"])

    def __str__(self) -> str:
        lines = [f"Eval logs: {len(self.n_records)} file(s), {sum(self.n_records.values())} records, "
                 f"{self.n_rows} rows"]
        for src, n in self.n_records.items():
            lines.append(f"  {src} ({self.formats.get(src) or 'unrecognized'}): {n} records")
            for fate in LOG_FATES:
                k = self.counts.get((src, fate), 0)
                if k:
                    lines.append(f"    {fate:<14}{k:>8}")
        for note in self.notes:
            lines.append(f"  note: {note}")
        return "\n".join(lines)

    def _repr_html_(self):  # pragma: no cover - notebook nicety
        return self.to_frame().to_html(index=False)


class Collector:
    """Rows and fates of one file, as a format module finds them."""

    def __init__(self, source: str, fmt: str, labels: dict | None = None):
        self.source, self.format = source, fmt
        self.labels = {**BINARY_WORDS, **(labels or {})}
        self.rows: list[dict] = []
        self.lines: list[int] = []
        self.where: str | None = None          # the record being read (named in errors)
        self.report = LogReport()
        self.report.formats[source] = fmt
        self.report.n_records[source] = 0

    def fate(self, fate: str, n: int = 1) -> None:
        self.report.add(self.source, self.format, fate, n)

    def at(self, where) -> None:
        """Name the record being read (errors then say where)."""
        self.where = str(where)

    def row(self, ordinal: int, *, item, scorer, value, score=None, epoch=1, role="judge", model=None,
            record=None, **extra) -> None:
        """One judgment row; ``score`` None means: the number ``value`` counts as (``labels=`` first)."""
        if score is None:
            score = grade_score(value, self.labels)
        elif not isinstance(score, float) or not math.isnan(score):
            score = grade_score(score)
        self.rows.append({"item": None if item is None else str(item), "scorer": str(scorer),
                          "epoch": int(epoch) if epoch is not None else 1, "value": value, "score": score,
                          "role": role, "model": model, "format": self.format, "source": self.source,
                          "record": record if record is not None else str(ordinal), **extra})
        self.lines.append(int(ordinal))

    def frame(self) -> pd.DataFrame:
        df = pd.DataFrame(self.rows)
        if df.empty:
            df = pd.DataFrame({c: pd.Series(dtype=float if c == "score" else object) for c in COLUMNS})
        df["score"] = df["score"].astype(float)
        df["epoch"] = df["epoch"].astype(np.int64)
        cols = list(COLUMNS) + [c for c in df.columns if c not in COLUMNS]
        df = df[cols]
        self.report.n_rows = len(df)
        df.attrs["source"] = self.source
        df.attrs["lines"] = _line_numbers(self.lines)
        return df


def judges(frame: pd.DataFrame, *, on=("item",), label: str = "score", by: str = "scorer") -> dict:
    """One judgment set per grader: the input of :func:`metaeval.judge_panel` and :func:`metaeval.jury`.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`metaeval.read_eval_log`.
    on : sequence of str
        The key columns of an item (add ``"model"`` when one log judges several models' outputs).
    label : str
        The label column (default ``score``).
    by : str
        The column naming the grader (default ``scorer``; ``role`` groups judges and humans).

    Returns
    -------
    dict
        Grader → DataFrame with the key columns and ``label`` (rows with a NaN label left out).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"item": ["1", "2", "1"], "scorer": ["a", "a", "b"], "score": [1.0, 0.0, 1.0]})
    >>> {k: len(v) for k, v in judges(f).items()}
    {'a': 2, 'b': 1}
    """
    on = [on] if isinstance(on, str) else list(on)
    out = {}
    for name, sub in frame.groupby(by, sort=True):
        sub = sub[on + [label]].dropna(subset=[label]).reset_index(drop=True)
        out[str(name)] = sub
    return out


def epoch_matrix(frame: pd.DataFrame, *, scorer: str | None = None, item: str = "item", epoch: str = "epoch",
                 label: str = "score") -> pd.DataFrame:
    """Items × epochs (repeats) of one grader: the repeated-samples input of :func:`metaeval.score_correlation`.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`metaeval.read_eval_log`.
    scorer : str, optional
        The grader (needed when the frame holds several).
    item, epoch, label : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Indexed by item, one column per epoch, NaN where an epoch is missing.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"item": ["1", "1", "2"], "scorer": "m", "epoch": [1, 2, 1], "score": [0.0, 1.0, 1.0]})
    >>> epoch_matrix(f).values.tolist()
    [[0.0, 1.0], [1.0, nan]]
    """
    sub = frame
    if scorer is not None:
        sub = frame[frame["scorer"] == scorer]
    elif "scorer" in frame and frame["scorer"].nunique() > 1:
        raise InputError(f"the frame holds {frame['scorer'].nunique()} scorers", source="<DataFrame>",
                         expected="one grader's rows", fix="pass scorer= (one of "
                         + ", ".join(map(repr, sorted(frame['scorer'].unique())[:5])) + ")")
    return sub.pivot_table(index=item, columns=epoch, values=label, aggfunc="first", dropna=False).sort_index()


def _reducer(name: str):
    """(kind, k) of an epoch reducer named as Inspect names them (``mean``, ``at_least_2``, ``pass_at_3`` ...)."""
    name = str(name)
    for kind in ("at_least_", "pass_at_"):
        if name.startswith(kind) and name[len(kind):].isdigit() and int(name[len(kind):]) > 0:
            return kind[:-1], int(name[len(kind):])
    if name in ("mean", "median", "mode", "max"):
        return name, None
    raise InputError(f"unknown epoch reducer {name!r}", source="<reduce_epochs>",
                     expected="mean, median, mode, max, at_least_K or pass_at_K", fix="reducer='mean'")


def reduce_epochs(frame: pd.DataFrame, reducer: str = "mean", *, by=("item", "scorer"), threshold: float = 1.0
                  ) -> pd.DataFrame:
    """One score per item and grader from its epochs (repeats), with Inspect's epoch reducers.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`metaeval.read_eval_log`.
    reducer : str
        ``mean`` (Inspect's default), ``median``, ``mode`` (the most frequent raw value, the first seen
        on a tie), ``max``, ``at_least_K`` (1 when at least K epochs score ``threshold`` or more, else
        0) or ``pass_at_K`` (the unbiased pass@K estimate 1 − C(n − c, K)/C(n, K), c the epochs
        scoring ``threshold`` or more; 1 when n − c < K). A log's own reducer is in
        ``report.facts[file]["epochs_reducer"]``.
    by : sequence of str
        The columns of a judgment (default: item and grader).
    threshold : float
        The score that counts as correct for ``at_least_K`` and ``pass_at_K`` (Inspect's ``value``).

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, ``score`` (reduced), ``value`` (the mode's raw value; else the score) and
        ``epochs`` (how many were reduced), in order of first appearance.

    Raises
    ------
    InputError
        An unknown reducer.

    References
    ----------
    Inspect AI's ``mean_score``, ``median_score``, ``mode_score``, ``max_score``, ``at_least`` and
    ``pass_at`` reducers: tests/test_eval_logs.py compares with the values inspect_ai computes
    (tests/reference/eval_log_reducers.json, written by tests/reference/make_reference_inspect_reducers.py).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"item": ["1", "1", "1", "2", "2", "2"], "scorer": "match",
    ...                   "value": ["C", "I", "C", "I", "I", "C"], "score": [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]})
    >>> reduce_epochs(f)["score"].round(4).tolist(), reduce_epochs(f, "mode")["value"].tolist()
    ([0.6667, 0.3333], ['C', 'I'])
    >>> reduce_epochs(f, "at_least_2")["score"].tolist(), reduce_epochs(f, "pass_at_2")["score"].round(4).tolist()
    ([1.0, 0.0], [1.0, 0.6667])
    """
    kind, k = _reducer(reducer)
    by = [by] if isinstance(by, str) else list(by)
    rows = []
    for key, g in frame.groupby(by, sort=False, dropna=False):
        v = g["score"].to_numpy(dtype=float)
        raw = g["value"].tolist() if "value" in g else list(v)
        value = None
        if kind == "mean":
            s = float(np.mean(v))
        elif kind == "median":
            s = float(np.median(v))
        elif kind == "max":
            s = float(np.max(v))
        elif kind == "mode":
            counts: dict = {}
            for x in raw:
                hx = repr(x)
                counts[hx] = counts.get(hx, (0, x))
                counts[hx] = (counts[hx][0] + 1, x)
            value = max(counts.values(), key=lambda t: t[0])[1]     # max keeps the first on a tie
            s = float(v[[repr(x) for x in raw].index(repr(value))])
        else:
            n, c = len(v), int(np.sum(v >= threshold))
            if kind == "at_least":
                s = 1.0 if c >= k else 0.0
            else:
                s = 1.0 if n - c < k else float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))
        key = key if isinstance(key, tuple) else (key,)
        rows.append((*key, s, value if kind == "mode" else s, len(v)))
    return pd.DataFrame(rows, columns=[*by, "score", "value", "epochs"])
