"""The reviewer's note: one row per claim and per reported test, in Markdown, HTML, LaTeX and JSON.

``metaeval review`` writes it for a claims file (the rows of :func:`metaeval.check_claims`) and for a
paper's text (the rows of :func:`metaeval.review_text`). A claim's row gives the claim (the paper's
sentence), the reported number, the number recomputed with its interval, the verdict, whether
released files reproduce it, what the paper could have concluded, and the reason with the
assumption the verdict rests on. A reported test's row gives the result as printed, the reported
and the recomputed p, whether the p is an error or a decision error, and the assumption (the tails,
α). Every piece of text is escaped for its format by :mod:`metaeval.output.escape` (one function per
format), and the four files are written through :func:`metaeval.output.folder.output_folder`: built
in a temporary folder beside ``--out`` and renamed into place when complete, so a reader never sees
half a note and a failed run leaves the previous note as it was.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pandas as pd

from .claims import to_records
from .pvalues import p_text

__all__ = ["write_review", "text_records", "no_nan", "claim_warnings", "FILES", "REVIEW_ENTRIES"]

#: The files :func:`write_review` writes.
FILES = ("review.md", "review.html", "review.tex", "review.json")
#: What a previous note in ``--out`` may hold (also the files pdflatex makes of ``review.tex``).
REVIEW_ENTRIES = re.compile(r"review(\.[A-Za-z0-9_-]+)+")

_CLAIM_HEAD = ("#", "claim", "reported", "recomputed [interval]", "verdict", "reproduced", "what follows",
               "reason and assumption")
_TEST_HEAD = ("#", "result as printed", "reported p", "recomputed p", "error", "decision error", "assumption")
_CLAIM_COLS = (r"p{0.02\linewidth}p{0.16\linewidth}p{0.06\linewidth}p{0.1\linewidth}p{0.07\linewidth}"
               r"p{0.08\linewidth}p{0.16\linewidth}p{0.2\linewidth}")
_TEST_COLS = (r"p{0.02\linewidth}p{0.24\linewidth}p{0.07\linewidth}p{0.07\linewidth}p{0.05\linewidth}"
              r"p{0.14\linewidth}p{0.3\linewidth}")


def _num(x, digits=4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


_NAN_INTERVAL = re.compile(r"the interval \[nan, nan\] does not exclude (.+?) ≤ ([^\s;,]+)")
_NAN_PAIR = re.compile(r"\[nan, nan\]")
_NAN = re.compile(r"(?<![A-Za-z])[-+]?nan(?![A-Za-z])", re.IGNORECASE)


def no_nan(text: str) -> str:
    """A note's sentence that never reasons from NaN: what could not be computed is said instead.

    Parameters
    ----------
    text : str
        A reason or a "what follows" sentence of :func:`metaeval.check_claims`.

    Returns
    -------
    str

    Examples
    --------
    >>> no_nan("the interval [nan, nan] does not exclude κ ≤ 0.6; assumes …")
    "no interval could be computed (it needs the confusion table, or both raters' margins), so the claim that κ > 0.6 is not shown; assumes …"
    """
    if not text or not _NAN.search(text):
        return text
    text = _NAN_INTERVAL.sub(lambda m: "no interval could be computed (it needs the confusion table, or both "
                                       f"raters' margins), so the claim that {m.group(1)} > {m.group(2)} is not shown", text)
    text = _NAN_PAIR.sub("(no interval could be computed)", text)
    return _NAN.sub("not computable", text)


def claim_warnings(r: dict) -> list[str]:
    """Every warning recorded in a claim's details (e.g. a clipped Rogan–Gladen estimate), in order."""
    out: list[str] = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "warnings" and isinstance(v, list):
                    out.extend(str(w) for w in v if str(w) not in out)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(r.get("details") or {})
    return out


def _what_follows(r: dict) -> str:
    """The "what follows" cell: the claim's conclusions, the table they rest on when it was not reported,
    and every warning."""
    text = no_nan(r.get("could_conclude") or "")
    feas = (r.get("details") or {}).get("feasibility")
    if text and isinstance(feas, dict) and feas.get("table") is not None:
        t = feas["table"]
        rows_ = [sum(row) for row in t]
        cols = [sum(col) for col in zip(*t)]
        if "stated margins" in str(feas.get("search", "")):
            text += f" (at the table {t}, which has the reported margins)"
        else:
            text += (f" (at the table {t} that the feasibility search found nearest to the reported numbers: its margins "
                     f"— reference {'/'.join(map(str, rows_))}, judge {'/'.join(map(str, cols))} — are assumed, not "
                     "reported; give margins = … or table = … to use the paper's)")
    for w in claim_warnings(r):
        text += ("; " if text else "") + f"Warning: {w}"
    return text


def _claim_cells(r: dict) -> list[str]:
    lo, hi = r["ci_low"], r["ci_high"]
    ci = "" if lo is None or hi is None else f" [{_num(lo, 3)}, {_num(hi, 3)}]"
    d = (r.get("details") or {}).get("decimals")
    reported = f"{r['reported']:.{d}f}" if isinstance(d, int) and isinstance(r["reported"], float) else _num(r["reported"])
    return [str(r["claim"]), f"{r['sentence'] or r['kind']} ({r['kind']})", reported,
            _num(r["recomputed"]) + ci, r["verdict"], r["reproduced"] or "–", _what_follows(r) or "–", no_nan(r["reason"])]


# --------------------------------------------------------------------------------------------
# reported tests (review_text)
# --------------------------------------------------------------------------------------------

def _assumption(r: dict, alpha: float, one_tailed_in_text: bool) -> str:
    test = r["test"]
    parts = []
    if test in ("t", "r", "z"):
        if r["one_tailed"] and one_tailed_in_text and r["one_tailed_in_text"]:
            parts.append("one-tailed: the text says one-tailed somewhere and this p is consistent only as a "
                         "one-tailed test")
        elif r["one_tailed"]:
            parts.append("one-tailed (as asked)")
        elif not r["one_tailed_in_text"]:
            parts.append("two-tailed (the text does not say one-tailed)")
        elif not r["error"]:
            parts.append("two-tailed (the text mentions one-tailed tests; this p is consistent two-tailed)")
        elif one_tailed_in_text:
            parts.append("two-tailed (the text mentions one-tailed tests, but this p is an error one-tailed too)")
        else:
            parts.append("two-tailed, although the text mentions one-tailed tests (one_tailed_in_text=True, "
                         "--one-tailed-in-text, reads an error that is consistent one-tailed as one-tailed)")
        if test == "r":
            parts.append("p of r from t = r/√((1 − r²)/df) on t(df)")
    elif test == "F":
        parts.append("upper tail of F(df1, df2)")
    else:
        parts.append("upper tail of χ²(df)")
    if r["comparison"] == "ns":
        parts.append(f"ns read as p > {alpha:g}")
    return "; ".join(parts)


def text_records(frame: pd.DataFrame, *, alpha: float = 0.05, one_tailed_in_text: bool = False) -> list[dict]:
    """The rows of :func:`metaeval.review_text` as JSON-able dicts, each with the note's cells.

    Parameters
    ----------
    frame : pandas.DataFrame
        What :func:`metaeval.review_text` returned.
    alpha : float
        The significance level ``review_text`` was called with (stated in each row's assumption).
    one_tailed_in_text : bool
        Whether ``review_text`` was called with ``one_tailed_in_text=True``.

    Returns
    -------
    list of dict
        Every column of the frame (NaN → None) plus ``result`` (the result as printed, white space
        folded), ``reported`` (``"p = 0.03"``, ``"ns"``), ``recomputed`` (the p, 4 significant
        digits), ``error_text``, ``decision_error_text`` and ``assumption``.

    Examples
    --------
    >>> import metaeval
    >>> from metaeval.review.note import text_records
    >>> rec = text_records(metaeval.review_text("as expected, t(28) = 2.20, p = .01"))[0]
    >>> rec["reported"], rec["recomputed"], rec["error_text"], rec["decision_error_text"]
    ('p = 0.01', '0.03623', 'yes', 'no')
    >>> rec["assumption"]
    'two-tailed (the text does not say one-tailed)'
    """
    recs = to_records(frame)
    for r in recs:
        r["result"] = " ".join(str(r["raw"]).split())
        r["reported"] = "ns" if r["comparison"] == "ns" else f"p {r['comparison']} {p_text(r['reported_p'])}"
        r["recomputed"] = "–" if r["computed_p"] is None else f"{r['computed_p']:.4g}"
        r["error_text"] = "yes" if r["error"] else "no"
        if not r["decision_error"]:
            r["decision_error_text"] = "no"
        elif r["computed_p"] is not None and r["computed_p"] > alpha:
            r["decision_error_text"] = f"yes: significant as reported, not as recomputed (α = {alpha:g})"
        else:
            r["decision_error_text"] = f"yes: significant as recomputed, not as reported (α = {alpha:g})"
        r["assumption"] = _assumption(r, alpha, one_tailed_in_text)
    return recs


def _claim_records(frame: pd.DataFrame) -> list[dict]:
    """The claims' records as the note writes them: no NaN in the text, the warnings listed."""
    recs = to_records(frame)
    for r in recs:
        r["reason"] = no_nan(r["reason"])
        r["could_conclude"] = no_nan(r["could_conclude"])
        r["what_follows"] = _what_follows(r)
        r["warnings"] = claim_warnings(r)
    return recs


def _test_cells(i: int, r: dict) -> list[str]:
    result = f"{r['source']}: {r['result']}" if r.get("source") else r["result"]
    return [str(i), result, r["reported"], r["recomputed"],
            r["error_text"], r["decision_error_text"], r["assumption"]]


def _is_text_frame(frame) -> bool:
    return isinstance(frame, pd.DataFrame) and {"computed_p", "decision_error", "raw"} <= set(frame.columns)


# --------------------------------------------------------------------------------------------
# the three formats: one table function each, for both kinds of rows
# --------------------------------------------------------------------------------------------

def _sections(claims, tests, alpha, found=None):
    """(heading, intro, head, rows, latex columns) of each table of the note."""
    out = []
    if claims is not None:
        out.append(("Claims", "", _CLAIM_HEAD, [_claim_cells(r) for r in claims], _CLAIM_COLS))
    if found is not None:
        n_un = sum(r["verdict"] == "not checked" for r in found)
        intro = ("Judge-validation claims found in the prose (κ, Krippendorff's α, accuracy and percent agreement, "
                 "correlations, shares of a count) by metaeval.find_claims, each with the sentence it came from, and "
                 f"checked with metaeval.check_claims where the text gives what the check needs; {n_un} of "
                 f"{len(found)} could not be checked, and the reason says what is missing.")
        if not found:
            intro = "No judge-validation claim (κ, α, accuracy, percent agreement, correlation with its n) was found in the prose."
        out.append(("Claims found in the text", intro, _CLAIM_HEAD, [_claim_cells(r) for r in found], _CLAIM_COLS))
    if tests is not None:
        intro = (f"APA-style test results found in the text, read and checked as statcheck does: an error is a "
                 f"reported p that no value printing as the statistic gives (the printed statistic stands for "
                 f"every value that rounds to it); a decision error is an error that "
                 f"puts the reported p on the other side of α = {alpha:g} (p = α counts as significant).")
        if not tests:
            intro += " No result (t, F, r, χ², z or Q with its degrees of freedom and a p) was found in the text."
        out.append(("Reported test results", intro, _TEST_HEAD,
                    [_test_cells(i, r) for i, r in enumerate(tests, start=1)], _TEST_COLS))
    return out


def _markdown(sections, title, source) -> str:
    from ..output.escape import markdown, markdown_cell

    out = [f"# {markdown(title)}", "", f"Reviewed: {markdown(source)}", ""]
    for heading, intro, head, rows, _ in sections:
        out += [f"## {markdown(heading)}", ""]
        if intro:
            out += [markdown(intro), ""]
        if rows:
            out += ["| " + " | ".join(markdown_cell(h) for h in head) + " |", "|" + "---|" * len(head)]
            out += ["| " + " | ".join(markdown_cell(c) for c in cells) + " |" for cells in rows]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _html(sections, title, source) -> str:
    from ..output.escape import html

    body = []
    for heading, intro, head, rows, _ in sections:
        body.append(f"<h2>{html(heading)}</h2>")
        if intro:
            body.append(f"<p>{html(intro)}</p>")
        if rows:
            body.append("<table>\n<tr>" + "".join(f"<th>{html(h)}</th>" for h in head) + "</tr>\n"
                        + "\n".join("<tr>" + "".join(f"<td>{html(c)}</td>" for c in cells) + "</tr>" for cells in rows)
                        + "\n</table>")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html(title)}</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px;vertical-align:top}"
            "</style></head><body>\n"
            f"<h1>{html(title)}</h1>\n<p>Reviewed: {html(source)}</p>\n" + "\n".join(body) + "\n</body></html>\n")


def _latex(sections, title, source) -> str:
    from ..output.escape import latex

    body = []
    for heading, intro, head, rows, cols in sections:
        body.append(f"\\subsection*{{{latex(heading)}}}")
        if intro:
            body.append(latex(intro) + "\n")
        if rows:
            h = " & ".join(r"\textbf{" + latex(c) + "}" for c in head) + r" \\ \hline"
            b = "\n".join(" & ".join(latex(c) for c in cells) + r" \\ \hline" for cells in rows)
            body.append(f"\\begin{{longtable}}{{{cols}}}\n\\hline\n{h}\n\\endhead\n{b}\n\\end{{longtable}}")
    return ("\\documentclass{article}\n"
            "\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{textcomp}\n"
            "\\usepackage[landscape,margin=1.5cm]{geometry}\n\\usepackage{longtable}\n"
            "\\begin{document}\n\\footnotesize\n"
            f"\\section*{{{latex(title)}}}\nReviewed: {latex(source)}\n\n" + "\n".join(body) + "\n\\end{document}\n")


def write_review(frame: pd.DataFrame | None, out_dir, *, tests: pd.DataFrame | None = None,
                 title: str = "Reviewer's note", source: str = "", alpha: float = 0.05,
                 one_tailed_in_text: bool = False, found: pd.DataFrame | None = None) -> dict:
    """Write the reviewer's note of :func:`metaeval.check_claims` and/or :func:`metaeval.review_text` to ``out_dir``.

    Parameters
    ----------
    frame : pandas.DataFrame or None
        What :func:`metaeval.check_claims` returned, or what :func:`metaeval.review_text` returned
        (recognised by its columns; the same as passing it as ``tests``), or None.
    out_dir : str or path
        The output folder: created if missing; a folder holding a previous note (the files its
        ``.metaeval-output.json`` lists, unchanged, and pdflatex's files of ``review.tex``) is
        replaced as a whole; anything else is refused before a file is written
        (:func:`metaeval.output.folder.check_out`).
    tests : pandas.DataFrame, optional
        What :func:`metaeval.review_text` returned for the paper's text (a section "Reported test
        results"; an empty frame says that no result was found).
    title : str
        The note's title.
    source : str
        What was reviewed (the claims file, the text file), printed under the title.
    alpha, one_tailed_in_text : float, bool
        The options ``review_text`` was called with (stated in the tests' assumptions).
    found : pandas.DataFrame, optional
        What :func:`metaeval.review.prose.check_found` returned for the claims
        :func:`metaeval.find_claims` found in the text (a section "Claims found in the text").

    Returns
    -------
    dict
        Format name → path of ``review.md``, ``review.html``, ``review.tex`` and ``review.json``.

    Raises
    ------
    InputError
        When ``out_dir`` is refused (an existing file, the current folder, a folder with other
        files) or another run is writing it.

    Notes
    -----
    ``review.tex`` is a standalone LaTeX document (``pdflatex -halt-on-error review.tex`` compiles it);
    ``review.json`` holds ``title``, ``source``, ``claims`` (the records of
    :func:`metaeval.review.claims.to_records`, plus ``what_follows`` and ``warnings`` as the other
    formats print them), ``tests`` (those of :func:`text_records`) and ``found_claims`` (as
    ``claims``), each an empty list when that part was not reviewed. No sentence of the note reasons
    from a number that could not be computed (:func:`no_nan`), and every warning recorded with a
    claim (e.g. a Rogan–Gladen estimate clipped to [0, 1]) is printed in every format.

    Examples
    --------
    >>> import tempfile, pathlib, metaeval
    >>> from metaeval.review.note import write_review
    >>> df = metaeval.check_claims([{"kind": "accuracy", "value": "0.770", "n": 202, "sentence": "77.0% & up"}])
    >>> tests = metaeval.review_text("t(28) = 2.20, p = .03")
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "note"
    >>> paths = write_review(df, out, tests=tests)
    >>> sorted(paths), sorted(p.name for p in out.iterdir())
    (['html', 'json', 'md', 'tex'], ['.metaeval-output.json', 'review.html', 'review.json', 'review.md', 'review.tex'])
    """
    from ..output.escape import json_text
    from ..output.folder import output_folder

    if frame is not None and _is_text_frame(frame):
        if tests is not None:
            raise ValueError("two review_text frames given: pass the claims first, the text's results as tests=")
        frame, tests = None, frame
    claims = None if frame is None else _claim_records(frame)
    trecs = None if tests is None else text_records(tests, alpha=alpha, one_tailed_in_text=one_tailed_in_text)
    frecs = None if found is None else _claim_records(found)
    sections = _sections(claims, trecs, alpha, frecs)
    texts = {"md": _markdown(sections, title, source), "html": _html(sections, title, source),
             "tex": _latex(sections, title, source),
             "json": json_text(json.dumps({"title": title, "source": source, "claims": claims or [], "tests": trecs or [],
                                           "found_claims": frecs or []}, ensure_ascii=False, indent=2)) + "\n"}
    with output_folder(out_dir, entries=REVIEW_ENTRIES, kind="review") as tmp:
        for fmt, text in texts.items():
            with open(tmp / f"review.{fmt}", "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    out = Path(os.path.abspath(out_dir))
    return {fmt: out / f"review.{fmt}" for fmt in texts}
