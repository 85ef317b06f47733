"""Tell a log's format from its content: the keys of its first record, not its name.

Only the head of a file is read (:data:`HEAD_BYTES`): a zip's directory, the first line of JSONL, the
top-level keys of a JSON document as far as the head reaches. When the head does not decide, a JSON
document of at most :data:`~metaeval.data.logs.base.MAX_LOG_BYTES` is parsed whole.
"""

from __future__ import annotations

import json
import os

from ...core.errors import InputError
from . import base

__all__ = ["FORMATS", "detect_format", "sniff"]

#: The formats :func:`metaeval.read_eval_log` reads, and what tells each apart.
FORMATS = {
    "inspect_ai": "an Inspect AI log: a .eval zip (header.json or _journal/start.json) or a JSON object with "
                  "eval and results/samples",
    "lm_eval": "lm-evaluation-harness: samples_*.jsonl (doc_id, filtered_resps, metrics) or results_*.json "
               "(results, configs, n-samples)",
    "openai_evals": "OpenAI evals: an oaieval JSONL run log (spec, final_report, events) or Evals-API output "
                    "items (grades, passes)",
    "promptfoo": "a promptfoo --output json export (evalId, results.results[].gradingResult)",
    "deepeval": "a deepeval test run (testCases, metricsScores; or testRunData around them)",
    "fastchat": "FastChat llm_judge judgments (question_id, judge, score or g1_winner/g2_winner)",
    "label_studio": "a Label Studio JSON export (a list of tasks with annotations and predictions)",
    "prodigy": "a Prodigy JSONL export (answer, _input_hash, _annotator_id)",
    "argilla": "an Argilla v2 export (records with responses and suggestions, nested or flattened)",
    "eee": "Every Eval Ever: an aggregate JSON (schema_version, evaluation_results) or instance JSONL "
           "(evaluation_id, sample_id, evaluation)",
}

#: How many bytes of a file detection reads.
HEAD_BYTES = 1 << 16


def _first_keys(head: bytes) -> tuple[str, set]:
    """The shape of the document (``"object"``, ``"array"``, ``"jsonl"``, or ``""``) and the keys of its
    first object (top level of an object, the first element of an array, the first line of JSONL), as
    far as ``head`` reaches."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if not text:
        return "", set()
    shape = {"{": "object", "[": "array"}.get(text[0], "")
    if not shape:
        return "", set()
    target = 1 if shape == "object" else 2
    keys, depth, i, n = set(), 0, 0, len(text)
    first_close = None
    while i < n:
        c = text[i]
        if c == '"':
            j, esc = i + 1, False
            while j < n:
                if esc:
                    esc = False
                elif text[j] == "\\":
                    esc = True
                elif text[j] == '"':
                    break
                j += 1
            if j >= n:
                break
            if depth == target:
                k = j + 1
                while k < n and text[k] in " \t\r\n":
                    k += 1
                if k < n and text[k] == ":":
                    keys.add(text[i + 1:j])
            i = j + 1
            continue
        if c in "{[":
            if target == 2 and depth == 1 and c != "{":
                return shape, keys          # an array of non-objects
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth < target and first_close is None:
                first_close = i
                break
        i += 1
    if shape == "object" and first_close is not None:
        rest = text[first_close + 1:].lstrip()
        if rest.startswith("{"):
            shape = "jsonl"
    return shape, keys


def _classify(shape: str, keys: set) -> str | None:
    if shape in ("object", "jsonl"):
        if "spec" in keys or "final_report" in keys or {"run_id", "event_id", "type"} <= keys:
            return "openai_evals"
        if "grades" in keys or "passes" in keys or {"data_source_idx", "item"} <= keys:
            return "openai_evals"
        if "doc_id" in keys and keys & {"filtered_resps", "resps", "metrics", "doc_hash"}:
            return "lm_eval"
        if {"question_id", "judge"} <= keys and keys & {"score", "g1_winner", "winner"}:
            return "fastchat"
        if keys & {"_annotator_id", "_input_hash", "_task_hash"} or ("answer" in keys and "_view_id" in keys):
            return "prodigy"
        if {"evaluation_id", "evaluation"} <= keys and keys & {"sample_id", "sample_hash"}:
            return "eee"
        if "schema_version" in keys and "evaluation_results" in keys:
            return "eee"
        if "testRunData" in keys or ("testCases" in keys and keys & {"metricsScores", "testPassed", "testFailed"}):
            return "deepeval"
        if "evalId" in keys or ({"results", "config"} <= keys and "shareableUrl" in keys):
            return "promptfoo"
        if "eval" in keys and keys & {"results", "samples", "status", "plan", "version"}:
            return "inspect_ai"
        if "results" in keys and keys & {"configs", "n-samples", "lm_eval_version", "versions", "group_subtasks"}:
            return "lm_eval"
        if _argilla_keys(keys):
            return "argilla"
    if shape == "array":
        if keys & {"annotations", "predictions"}:
            return "label_studio"
        if _argilla_keys(keys):
            return "argilla"
    return None


def _argilla_keys(keys: set) -> bool:
    return bool(keys & {"responses", "suggestions"}) or any(
        k.endswith((".responses", ".suggestion")) for k in keys)


def sniff(path: str | os.PathLike, *, deep: bool = True) -> str | None:
    """The format of a log, or None when the file is no log of a known format.

    Parameters
    ----------
    path : path
        The file.
    deep : bool
        When the head does not decide, parse the whole JSON document (True, default) or say None
        (False: what :func:`metaeval.align` and ``metaeval inspect`` use to tell a log from a table).

    Returns
    -------
    str or None
        A key of :data:`FORMATS`.

    Raises
    ------
    InputError
        The file does not exist or cannot be read, or (``deep``, when the head does not decide) a JSON document
        larger than :data:`~metaeval.data.logs.base.MAX_LOG_BYTES`.

    Examples
    --------
    >>> import json, tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "x.txt")
    >>> _ = open(p, "w").write(json.dumps({"question_id": 1, "judge": ["gpt-4", "single-v1"], "score": 8}) + "\\n")
    >>> sniff(p)
    'fastchat'
    """
    name = str(path)
    from ..io import check_regular

    check_regular(path, name)
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except FileNotFoundError:
        raise InputError("file not found", source=name, fix="check the path") from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=name,
                         fix="pass the folder itself to read_eval_log (it reads every log inside)") from None
    except PermissionError:
        raise InputError("permission denied", source=name, fix="check the file's permissions") from None
    except OSError as exc:                          # a loop of symbolic links, an I/O error ...
        raise InputError(f"cannot read the file ({exc.strerror or exc})", source=name,
                         fix="check the path (and where its symbolic links point)") from None
    if head[:2] == b"\x1f\x8b":                     # gzipped JSON or JSONL: its decompressed head
        import gzip
        import zlib

        try:
            with gzip.open(path, "rb") as gz:
                head = gz.read(HEAD_BYTES)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"corrupt gzip data ({exc})", source=name,
                             fix="re-download or re-compress the file") from None
    if head[:4] == b"PK\x03\x04" or head[:4] == b"PK\x05\x06":
        import zipfile

        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
        except zipfile.BadZipFile:
            return "inspect_ai" if name.endswith(".eval") else None
        if "header.json" in names or "_journal/start.json" in names:
            return "inspect_ai"
        return None
    shape, keys = _first_keys(head)
    fmt = _classify(shape, keys)
    if fmt is not None or not shape:
        return fmt
    complete = len(head) < HEAD_BYTES
    if complete or shape == "jsonl" or not deep:
        return None
    # the head did not decide: parse the whole document (bounded) and look at its real top level
    data = base.read_text(path, name)
    first = data.lstrip()
    nl = first.find(b"\n")
    if first[:1] == b"{" and nl > 0 and first[nl:].lstrip()[:1] == b"{":     # JSONL with a long first line
        try:
            obj = json.loads(first[:nl])
        except (ValueError, RecursionError):        # the whole document's parse below says why
            obj = None
        if isinstance(obj, dict):
            return _classify("jsonl", set(obj))
    doc = base.parse_json(data, name)
    if isinstance(doc, dict):
        return _classify("object", set(doc))
    if isinstance(doc, list) and doc and isinstance(doc[0], dict):
        return _classify("array", set(doc[0]))
    return None


def detect_format(path: str | os.PathLike) -> str:
    """The format of a log; an :class:`~metaeval.InputError` when it is none of :data:`FORMATS`.

    Parameters
    ----------
    path : path
        The file.

    Returns
    -------
    str
        A key of :data:`FORMATS`.

    Raises
    ------
    InputError
        The file is not a log of a known format (the message lists them), or cannot be read.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "notes.json"); _ = open(p, "w").write('{"a": 1}')
    >>> detect_format(p)
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: ...notes.json: not a log of a known format (its first record has the keys a). Expected one of inspect_ai, lm_eval, openai_evals, promptfoo, deepeval, fastchat, label_studio, prodigy, argilla, eee. Fix: pass format= if you know the format; docs/guide/eval-logs.md lists what each format looks like
    """
    fmt = sniff(path)
    if fmt is None:
        name = str(path)
        try:
            with open(path, "rb") as fh:
                _, keys = _first_keys(fh.read(HEAD_BYTES))
        except OSError:
            keys = set()
        what = (f"its first record has the keys {', '.join(sorted(keys)[:12])}" if keys
                else "it is not JSON, JSONL or an .eval archive")
        raise InputError(f"not a log of a known format ({what})", source=name,
                         expected="one of " + ", ".join(FORMATS),
                         fix="pass format= if you know the format; docs/guide/eval-logs.md lists what each "
                             "format looks like")
    return fmt
