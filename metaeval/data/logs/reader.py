"""The entry point: files, folders and lists of logs in, one judgment frame and its accounting out."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...core.errors import InputError
from . import base
from .base import LogReport
from .detect import FORMATS as FORMATS_TEXT
from .detect import detect_format, sniff

__all__ = ["read_eval_log", "select", "log_or_source", "LOG_EXTENSIONS"]

#: The file names a folder read takes as candidate logs (others are listed in the report, not read).
LOG_EXTENSIONS = (".json", ".jsonl", ".ndjson", ".eval", ".json.gz", ".jsonl.gz", ".ndjson.gz")

_MODULES = {"inspect_ai": "inspect_ai", "lm_eval": "lm_eval", "openai_evals": "openai_evals",
            "promptfoo": "promptfoo", "deepeval": "deepeval", "fastchat": "fastchat",
            "label_studio": "label_studio", "prodigy": "prodigy", "argilla": "argilla", "eee": "eee"}


def _expand(path_or_paths) -> tuple[list[tuple[str, bool]], list[str]]:
    """(file, came from a folder) pairs, and the files of folders that are not candidate logs."""
    items = [path_or_paths] if isinstance(path_or_paths, (str, os.PathLike)) else list(path_or_paths)
    if not items:
        raise InputError("no log files given", source="<read_eval_log>", fix="pass a file, a folder or a list of files")
    files, ignored = [], []
    for p in items:
        if not isinstance(p, (str, os.PathLike)):
            raise InputError(f"cannot read an object of type {type(p).__name__} as a log", source="<read_eval_log>",
                             expected="a path, a folder, or a list of paths")
        p = os.fspath(p)
        if os.path.isdir(p):
            for f in sorted(os.listdir(p)):
                full = os.path.join(p, f)
                if not os.path.isfile(full):
                    continue
                (files.append((full, True)) if f.lower().endswith(LOG_EXTENSIONS) and not f.startswith(".")
                 else ignored.append(full))
        else:
            files.append((p, False))
    return files, ignored


def read_eval_log(path_or_paths: str | os.PathLike | Sequence, *, format: str = "auto",
                  labels: Mapping | None = None) -> pd.DataFrame:
    """Read the logs of an evaluation harness or the export of an annotation tool as one judgment frame.

    Formats (:data:`~metaeval.data.logs.detect.FORMATS`): Inspect AI (``.json`` and ``.eval``),
    lm-evaluation-harness, OpenAI evals (run logs and Evals-API output items), promptfoo, deepeval,
    FastChat MT-Bench judgments, Label Studio, Prodigy, Argilla v2 and Every Eval Ever. The format is
    told from the content (the keys of the first record, a zip's members), not from the name.

    Parameters
    ----------
    path_or_paths : path, folder, or sequence of paths
        One log (JSON and JSONL may be gzipped), a folder (every ``.json``, ``.jsonl``, ``.ndjson`` and
        ``.eval`` file in it, gzipped or not: files of
        different formats are each read in their own, a file that is no known log gets the fate
        ``unrecognized``), or a list of files.
    format : str
        ``"auto"`` (default) or one of the formats: then every file is read as that format (a file
        detected as another is an error).
    labels : mapping, optional
        Text value → number, for the ``score`` of text labels (``{"Car": 1, "Truck": 0}``); numbers,
        booleans, Inspect's letter grades and a few binary words (accept/reject, yes/no ...) count
        without it.

    Returns
    -------
    pandas.DataFrame
        One row per judgment, with the columns ``item`` (the source's sample id, as text), ``scorer``
        (the grader: scorer or metric name, then ``@model`` and ``#hash`` of the template or rubric
        where the log has them; ``annotator:<id>`` for people), ``epoch`` (the repeat, 1 without
        repeats), ``value`` (as the source wrote it: ``"C"``, 7, ``"model_1"``, ``"accept"``), ``score``
        (the number the harness's own metric averages: Inspect's C = 1, P = 0.5, I = N = 0; pass = 1;
        NaN where there is none), ``role`` (``judge``, ``human`` or ``reference``), ``model`` (the
        model judged), ``format``, ``source`` (the file) and ``record`` (where in it), then the
        format's own columns (``grader_model``, ``template_hash``, ``turn``, ``model_a``/``model_b``/
        ``outcome`` for pairwise judgments, ``passed``, ``explanation`` ...). ``frame.attrs["report"]``
        is the :class:`~metaeval.data.logs.base.LogReport`: every record's fate (read, unscored,
        cancelled, errored, duplicate, context, unrecognized), the aggregates the harness stored, facts
        about each run, and notes.

    Raises
    ------
    InputError
        A file that does not exist, is not a log of a known format (or not of ``format``), is larger
        than :data:`~metaeval.data.logs.base.MAX_LOG_BYTES`, or is damaged (a truncated zip or JSON, an
        unknown Inspect log version), naming the file and why.

    References
    ----------
    tests/test_eval_logs_realdata.py reproduces each harness's own aggregate from the rows, exactly, on
    the public example logs of ``../shared/data/eval_logs`` (Inspect's accuracy and stderr, FastChat's
    ``show_result.py`` win rates, promptfoo's stats, deepeval's pass/fail counts, OpenAI evals'
    accuracy); tests/test_eval_logs.py covers each format on generated logs and hostile files.

    Examples
    --------
    >>> import json, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "gpt-4_single.jsonl")
    >>> rows = [{"question_id": q, "model": "m", "judge": ["gpt-4", "single-v1"], "score": s, "turn": 1}
    ...         for q, s in ((1, 8), (2, -1), (3, 9))]
    >>> _ = open(p, "w").write("".join(json.dumps(r) + "\\n" for r in rows))
    >>> f = read_eval_log(p)
    >>> f[["item", "scorer", "epoch", "value", "score"]].values.tolist()
    [['1', 'single-v1@gpt-4', 1, 8, 8.0], ['3', 'single-v1@gpt-4', 1, 9, 9.0]]
    >>> f.attrs["report"].to_frame()[["format", "fate", "count"]].values.tolist()
    [['fastchat', 'read', 2], ['fastchat', 'errored', 1]]
    """
    if format != "auto" and format not in _MODULES:
        raise InputError(f"unknown log format {format!r}", source="<read_eval_log>",
                         expected="'auto' or one of " + ", ".join(_MODULES))
    if labels is not None and not isinstance(labels, Mapping):
        raise InputError(f"labels must be a mapping of text values to numbers, got {type(labels).__name__}",
                         source="<read_eval_log>", fix="pass labels={'yes': 1, 'no': 0}")
    files, ignored = _expand(path_or_paths)
    report, frames = LogReport(), []
    for path, in_folder in files:
        found = sniff(path)
        if format != "auto":
            if found is not None and found != format:
                raise InputError(f"a {found} log, not {format}", source=path,
                                 fix="pass format='auto' to read each file in its own format")
            found = format                          # the format given reads what detection cannot tell
        elif found is None:
            if in_folder:
                report.add(path, None, "unrecognized")
                continue
            detect_format(path)                     # raises the error naming the file
        mod = importlib.import_module(f"..{_MODULES[found]}", __name__)
        col = base.Collector(path, found, labels=dict(labels) if labels else None)
        try:
            mod.read(path, path, col)
            frames.append(col.frame())
        except InputError:
            raise
        except (AttributeError, TypeError, KeyError, IndexError, ValueError, OverflowError, RecursionError) as exc:
            # a field of an unexpected type (a list where the format has an object ...): one line, the record
            where = f" (record {col.where})" if col.where else ""
            raise InputError(f"not the shape of a {found} log{where}: {type(exc).__name__}: {exc}", source=path,
                             expected=FORMATS_TEXT.get(found), fix="check that the file was written by the tool "
                             "and not edited; pass format= to read it as another format") from None
        report.merge(col.report)
    if ignored:
        report.facts["not read"] = [os.path.basename(f) for f in ignored]
    n_unrec = sum(n for (_, fate), n in report.counts.items() if fate == "unrecognized")
    if n_unrec:
        report.note(f"{n_unrec} file(s) of the folder are no log of a known format (fate unrecognized)")
    if len(set(report.formats.values()) - {None}) > 1:
        report.note("the files are of several formats: " + ", ".join(sorted(set(report.formats.values()) - {None})))
    frame = _concat(frames)
    report.n_rows = len(frame)
    frame.attrs["report"] = report
    return frame


def select(frame: pd.DataFrame, who: str | Sequence[str] | None) -> pd.DataFrame:
    """The rows of some graders: ``who`` names scorers or roles (``"human"``, ``"judge"``, ``"reference"``).

    The rows keep their file and record numbers (``attrs``), so that :func:`metaeval.align` names them.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame of :func:`read_eval_log`.
    who : str or sequence of str or None
        Scorer names or roles (None: every row).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        No row has such a scorer or role (the message lists those there are).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"item": ["1", "1"], "scorer": ["annotator:7", "model:v1"], "role": ["human", "judge"],
    ...                   "score": [1.0, 0.0]})
    >>> select(f, "human")["scorer"].tolist(), select(f, "model:v1")["score"].tolist()
    (['annotator:7'], [0.0])
    """
    if who is None:
        return frame
    names = [who] if isinstance(who, str) else list(who)
    mask = (frame["scorer"].isin(names) | frame["role"].isin(names)).to_numpy()
    if not mask.any():
        raise InputError(f"no rows of {', '.join(map(repr, names))}", source=str(frame.attrs.get("source", "<DataFrame>")),
                         expected="a scorer (" + ", ".join(map(repr, sorted(frame["scorer"].unique())[:6]))
                                  + ") or a role (" + ", ".join(map(repr, sorted(frame["role"].unique()))) + ")",
                         fix="name a scorer or role the log has")
    out = frame[mask].reset_index(drop=True)
    lines = frame.attrs.get("lines")
    out.attrs = {k: v for k, v in frame.attrs.items() if k != "lines"}
    if lines is not None and len(lines) == len(frame):
        out.attrs["lines"] = base._line_numbers(np.asarray(lines)[mask])
    return out


def log_or_source(source):
    """``source`` itself, or the frame of :func:`read_eval_log` when it is the path of a log (told from
    its head only: a table that merely ends in ``.json`` stays a table). The hook by which
    :func:`metaeval.align` (and so ``metaeval agree``, the panels and study files) takes eval logs."""
    if not isinstance(source, (str, os.PathLike)):
        return source
    name = os.fspath(source)
    low = name.lower()
    if not low.endswith(LOG_EXTENSIONS) or not os.path.isfile(name):
        return source
    try:
        fmt = sniff(name, deep=False)
    except InputError:
        return source
    return read_eval_log(name) if fmt else source


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    if not frames:
        frame = base.Collector("<none>", "none").frame()
        frame.attrs = {"source": "<none>", "lines": base._line_numbers([])}
        return frame
    lines = np.concatenate([f.attrs["lines"] for f in frames]) if frames else np.zeros(0, dtype=np.int64)
    sources = [f.attrs["source"] for f in frames]
    nonempty = [f for f in frames if len(f)] or frames[:1]
    for f in nonempty:
        f.attrs = {}
    frame = pd.concat(nonempty, ignore_index=True, sort=False) if len(nonempty) > 1 else nonempty[0].reset_index(drop=True)
    frame.attrs = {"source": sources[0] if len(sources) == 1 else "; ".join(sources),
                   "lines": base._line_numbers(lines)}
    return frame
