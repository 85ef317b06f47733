"""The reviewer's note: one row per claim in Markdown, HTML, LaTeX and JSON (``metaeval review``).

Every row gives the claim (the paper's sentence), the reported number, the number recomputed with its
interval, the verdict, whether released files reproduce it, what the paper could have concluded, and
the reason with the assumption the verdict rests on. Text from the claims file is escaped for each
format by :mod:`metaeval.output.escape` (one function per format); the four files are written to a
temporary name and moved into place, so a reader never sees half a note.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import pandas as pd

from .claims import to_records

__all__ = ["write_review", "FILES"]

#: The files :func:`write_review` writes.
FILES = ("review.md", "review.html", "review.tex", "review.json")

_HEAD = ("#", "claim", "reported", "recomputed [interval]", "verdict", "reproduced", "what follows", "reason and assumption")


def _num(x, digits=4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def _cells(r: dict) -> list[str]:
    ci = "" if r["ci_low"] is None else f" [{_num(r['ci_low'], 3)}, {_num(r['ci_high'], 3)}]"
    return [str(r["claim"]), f"{r['sentence'] or r['kind']} ({r['kind']})", _num(r["reported"]),
            _num(r["recomputed"]) + ci, r["verdict"], r["reproduced"] or "–", r["could_conclude"] or "–", r["reason"]]


def _markdown(recs, title, source) -> str:
    from ..output.escape import markdown, markdown_cell

    out = [f"# {markdown(title)}", "", f"Claims: {markdown(source)}", "",
           "| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    out += ["| " + " | ".join(markdown_cell(c) for c in _cells(r)) + " |" for r in recs]
    return "\n".join(out) + "\n"


def _html(recs, title, source) -> str:
    from ..output.escape import html

    rows = "\n".join("<tr>" + "".join(f"<td>{html(c)}</td>" for c in _cells(r)) + "</tr>" for r in recs)
    head = "".join(f"<th>{html(h)}</th>" for h in _HEAD)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html(title)}</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px;vertical-align:top}"
            "</style></head><body>\n"
            f"<h1>{html(title)}</h1>\n<p>Claims: {html(source)}</p>\n<table>\n<tr>{head}</tr>\n{rows}\n</table>\n"
            "</body></html>\n")


def _latex(recs, title, source) -> str:
    from ..output.escape import latex

    cols = r"p{0.02\linewidth}p{0.16\linewidth}p{0.06\linewidth}p{0.1\linewidth}p{0.07\linewidth}p{0.08\linewidth}p{0.16\linewidth}p{0.2\linewidth}"
    head = " & ".join(r"\textbf{" + latex(h) + "}" for h in _HEAD) + r" \\ \hline"
    body = "\n".join(" & ".join(latex(c) for c in _cells(r)) + r" \\ \hline" for r in recs)
    return "\\documentclass{article}\n" + (
        "\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{textcomp}\n"
        "\\usepackage[landscape,margin=1.5cm]{geometry}\n\\usepackage{longtable}\n"
        "\\begin{document}\n\\footnotesize\n"
        f"\\section*{{{latex(title)}}}\nClaims: {latex(source)}\n\n"
        f"\\begin{{longtable}}{{{cols}}}\n\\hline\n{head}\n\\endhead\n{body}\n\\end{{longtable}}\n"
        "\\end{document}\n")


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_review(frame: pd.DataFrame, out_dir, *, title: str = "Reviewer's note", source: str = "") -> dict:
    """Write the reviewer's note of :func:`metaeval.check_claims`' frame to ``out_dir``.

    Parameters
    ----------
    frame : pandas.DataFrame
        What :func:`metaeval.check_claims` returned.
    out_dir : str or path
        The output folder (created if missing).
    title : str
        The note's title.
    source : str
        What was reviewed (the claims file), printed under the title.

    Returns
    -------
    dict
        Format name → path of ``review.md``, ``review.html``, ``review.tex`` and ``review.json``.

    Notes
    -----
    ``review.tex`` is a standalone LaTeX document (``pdflatex -halt-on-error review.tex`` compiles it);
    ``review.json`` holds the records of :func:`metaeval.review.claims.to_records` with the title
    and the source.

    Examples
    --------
    >>> import tempfile, metaeval
    >>> from metaeval.review.note import write_review
    >>> df = metaeval.check_claims([{"kind": "accuracy", "value": "0.770", "n": 202, "sentence": "77.0% & up"}])
    >>> paths = write_review(df, tempfile.mkdtemp())
    >>> sorted(paths)
    ['html', 'json', 'md', 'tex']
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    recs = to_records(frame)
    texts = {"md": _markdown(recs, title, source), "html": _html(recs, title, source),
             "tex": _latex(recs, title, source),
             "json": json.dumps({"title": title, "source": source, "claims": recs}, ensure_ascii=False, indent=2) + "\n"}
    paths = {}
    for fmt, text in texts.items():
        paths[fmt] = out / f"review.{fmt}"
        _atomic_write(paths[fmt], text)
    return paths
