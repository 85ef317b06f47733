"""Reported test results in a text, checked statcheck's way.

``review_text`` finds APA-style results of t, F, r, chi-square, z and Q tests in running text
("t(28) = 2.20, p = .03", "χ2(1, N = 226) = 6.90, p < .01", "Q-between(2) = 2.2, ns"), recomputes
each p-value from the reported statistic and degrees of freedom, and flags the results whose reported
p cannot follow from the statistic as printed (``error``) and those where that changes the verdict at
``alpha`` (``decision_error``). The definitions are those of the R package statcheck (Nuijten &
Epskamp, version 1.6.0), read from its source and checked against it on its own test suite
(tests/test_review_text.py); the code here is written anew.
"""

from __future__ import annotations

import os
import re
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import InputError
from .pvalues import MINUS, clean, decimals, is_decision_error, is_error, original_position, statistic_bounds

__all__ = ["review_text"]

COLUMNS = ["test", "df1", "df2", "n", "test_comparison", "statistic", "comparison", "reported_p",
           "computed_p", "one_tailed", "error", "decision_error", "one_tailed_in_text", "raw", "start", "end"]

# ------------------------------------------------------------------------------------ the pattern
# Comparison signs, with the code points PDF converters are known to put in their place (statcheck
# lists U+2AFD "⫽" and "¼" for "=", U+2B0D "⬍" for "<"), and the full-width / small forms.
_LT, _GT, _EQ = "<\uff1c\ufe64\u2b0d", ">\uff1e\ufe65", "=\uff1d\ufe66\u2afd\u00bc"
_CANON = {**dict.fromkeys(_LT, "<"), **dict.fromkeys(_GT, ">"), **dict.fromkeys(_EQ, "=")}
_CMP = f"[{_LT}{_GT}{_EQ}]"
_S = r"[^\S\n]*(?:\n[^\S\n]*)?"              # spaces and at most one line break: PDFs double spaces and break lines
# Numbers are written so that a string of digits can be split only one way: a scan of a text with a
# long run of digits or spaces stays linear (statcheck's \d*\.?\d+ reads the same numbers).
_NUM = r"(?:\d+(?:\.\d+)?|\.\d+)"
_VALUE_NUM = r"(?:\d+(?:,\d+)?(?:\.\d+)?|\.\d+)"     # "2", "2.20", ".20", "2,000.20"
_HYPHEN = f"[{MINUS}]"
# chi-square: a spelled or Greek chi ("chi2", "Chi-square", "χ²", "X2", "chi_2"), or, as statcheck
# reads it, any one character other than t r F z Z Q W n D or a space followed by a 2 (a chi lost by
# the PDF converter: "?2", "B2"; also G2, the likelihood-ratio chi-square).
_CHI = (r"(?:(?<![A-Za-z])(?:[Cc]hi|CHI|[\u03c7\u03a7Xx])(?:" + _HYPHEN + r"?\s?[Ss]quared?)?(?:[\s_^]*[2\u00b2])?"
        r"|[^trFzZQWnD\s][2\u00b2])")
_HEAD = "|".join([
    rf"(?P<t>t){_S}\({_S}(?P<t_df>{_NUM}){_S}\)",
    rf"(?P<r>r){_S}\({_S}(?P<r_df>{_NUM}){_S}\)",
    rf"(?P<q>Q)(?:{_S}{_HYPHEN})?(?:{_S}(?P<q_kind>[wW](?:ithin)?|[bB](?:etween)?))?{_S}\({_S}(?P<q_df>{_NUM}){_S}\)",
    rf"(?P<f>F){_S}\({_S}(?P<f_df1>{_NUM}|[Il]){_S},{_S}(?P<f_df2>{_NUM}){_S}\)",
    rf"(?P<chi>{_CHI}){_S}\({_S}(?P<chi_df>{_NUM}){_S}(?:,{_S}[Nn]{_S}{_CMP}{_S}(?P<chi_n>\d[\d,]*){_S})?\)",
    r"(?<![a-z])(?P<z>[zZ])",
])
# the statistic: a comparison, up to five characters that are no letter, digit or point (spaces and a
# sign, however encoded: "-", "−", "–", or the garbage a PDF makes of a minus), the number (commas
# as thousands separators), then a comma; then "p <comparison> number" or "ns".
_VALUE = rf"{_S}(?P<tcomp>{_CMP})(?P<pre>[^A-Za-z\d.]{{0,5}}?){_S}(?P<value>{_VALUE_NUM}){_S},{_S}"
_P = (rf"(?:p{_S}(?P<pcomp>{_CMP}){_S}(?P<p>\d?\.\d+(?:[eE]{_HYPHEN}?\d+)?)"
      r"|(?<![a-z])(?P<ns>n\.?s\.?)(?![a-z]))")
_RESULT = re.compile(f"(?:{_HEAD}){_VALUE}{_P}")
_ONE_TAILED = re.compile(r"one.?sided|one.?tailed|directional", re.IGNORECASE)
_PLUS = "+\uff0b"


#: The largest text :func:`review_text`, :func:`read_text` and :func:`metaeval.find_claims` accept, in
#: bytes of UTF-8 (4 MiB: a paper is about 0.1 MiB, so this is a few dozen papers). Larger texts are
#: refused with an :class:`~metaeval.InputError` before any work is done. The cost of a text is in
#: the results it holds: at the limit, a text that is nothing but APA results (82,000 of them) takes
#: about 750 MB and 2 minutes for ``metaeval review`` on a loaded 2-core machine
#: (``benchmarks/bench_review_size.py``). Set ``METAEVAL_MAX_TEXT_BYTES`` (bytes) for more.
MAX_TEXT_BYTES = 2 ** 22

#: Characters per chunk: a text is read a few paragraphs at a time, cut at blank lines (a result
#: never spans a blank line), so the scan's memory follows the chunk, not the text.
CHUNK_CHARS = 1 << 20
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def max_text_bytes() -> int:
    """The limit in force: ``METAEVAL_MAX_TEXT_BYTES`` if set, else :data:`MAX_TEXT_BYTES` (bytes of UTF-8)."""
    env = os.environ.get("METAEVAL_MAX_TEXT_BYTES")
    if env is None or not env.strip():
        return MAX_TEXT_BYTES
    try:
        limit = int(env)
    except ValueError:
        limit = -1
    if limit <= 0:
        raise InputError(f"METAEVAL_MAX_TEXT_BYTES is not a positive whole number of bytes: {env!r}",
                         source="<environment>", fix=f"set METAEVAL_MAX_TEXT_BYTES to a number of bytes, e.g. {MAX_TEXT_BYTES}")
    return limit


def _too_long(size: int, limit: int, source) -> InputError:
    return InputError(f"the text has {size:,} bytes, more than the limit of {limit:,}", source=source,
                      expected=f"at most metaeval.review.text.MAX_TEXT_BYTES = {limit:,} bytes of UTF-8 text",
                      fix="review the paper (or the section) rather than a whole corpus, or raise the limit with the "
                          "environment variable METAEVAL_MAX_TEXT_BYTES (bytes)")


def check_text_size(text: str, source="<text>") -> None:
    """Refuse a text longer than :func:`max_text_bytes` bytes of UTF-8 (an :class:`~metaeval.InputError`)."""
    limit = max_text_bytes()
    if len(text) > limit:
        raise _too_long(len(text.encode("utf-8", "surrogatepass")) if len(text) < 4 * limit else len(text), limit, source)
    if 4 * len(text) > limit:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise _too_long(size, limit, source)


def read_text(path) -> str:
    """Read a paper's text file (UTF-8) for :func:`review_text` and :func:`metaeval.find_claims`, bounded.

    Parameters
    ----------
    path : str or path
        A regular file of UTF-8 text (a byte-order mark is dropped).

    Returns
    -------
    str

    Raises
    ------
    metaeval.InputError
        The path does not exist, is a folder, a device, a FIFO or a socket (refused before it is
        opened, as every reader of the package does), is larger than :func:`max_text_bytes`, or is
        not UTF-8.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "paper.txt"
    >>> _ = p.write_text("t(28) = 2.20, p = .03", encoding="utf-8")
    >>> read_text(p)
    't(28) = 2.20, p = .03'
    """
    from ..data.io import check_regular

    p = Path(path)
    check_regular(p, str(p))                      # a FIFO, device or socket: refused, never opened
    if not p.exists():
        raise InputError("no such file", source=p, fix="check the path")
    if p.is_dir():
        raise InputError("is a directory, not a file", source=p, fix="give the paper's text file")
    limit = max_text_bytes()
    if p.stat().st_size > limit:                  # refused before it is read
        raise _too_long(p.stat().st_size, limit, p)
    try:
        with open(p, "rb") as fh:
            data = fh.read(limit + 1)             # bounded even where the size on disk says nothing (/proc)
    except PermissionError:
        raise InputError("permission denied", source=p, fix="check the file's permissions") from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or exc})", source=p, fix="check the path") from None
    if len(data) > limit:
        raise _too_long(max(len(data), p.stat().st_size), limit, p)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start} cannot be read)", source=p,
                         fix="save the text as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None


def load_texts(path) -> list[tuple[str, str]]:
    """The ``[[text]]`` entries of a claims file, each read like :func:`read_text` (bounded; special files refused).

    Each entry gives ``file = "paper.txt"`` (UTF-8, relative to the claims file) or ``text = "…"``
    (the passage itself), and optionally ``label`` (default: the file name, or ``text #i``).
    ``metaeval review CLAIMS.toml`` checks the claims, the test results of these texts and the claims
    found in their prose in one note.

    Parameters
    ----------
    path : str or path
        The claims file.

    Returns
    -------
    list of (str, str)
        (label, text) per entry, in the file's order (empty when the file has none).

    Raises
    ------
    metaeval.InputError
        An entry without ``file`` or ``text``, a file that is missing, a folder, a device, a FIFO or
        a socket, larger than the text limit, or not UTF-8 (the error names the entry).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "claims.toml"
    >>> _ = path.write_text('[[text]]\\nlabel = "Results"\\ntext = "t(28) = 2.20, p = .03"\\n', encoding="utf-8")
    >>> load_texts(path)
    [('Results', 't(28) = 2.20, p = .03')]
    """
    from collections.abc import Mapping

    from .claims import _read_toml

    p = Path(path)
    entries = _read_toml(p).get("text", [])
    if not isinstance(entries, list):
        raise InputError("text must be a list of [[text]] tables", source=p, fix='write [[text]] then file = "paper.txt"')
    out = []
    for i, e in enumerate(entries, start=1):
        where = f"[[text]] #{i}"
        if not isinstance(e, Mapping) or ("file" in e) == ("text" in e):
            raise InputError(f"{where} needs either file = \"…\" or text = \"…\"", source=p,
                             fix='write file = "paper.txt" (relative to the claims file) or text = "…"')
        if "text" in e:
            if not isinstance(e["text"], str):
                raise InputError(f"{where}: text must be a string", source=p, text=repr(e["text"])[:80])
            check_text_size(e["text"], source=f"{p} {where}")
            out.append((str(e.get("label", f"text #{i}")), e["text"]))
            continue
        f = Path(str(e["file"]))
        f = f if f.is_absolute() else p.resolve().parent / f
        try:
            text = read_text(f)
        except InputError as exc:
            what = (f"no such file {e['file']!r} (looked for {f})" if exc.problem == "no such file"
                    else f"{e['file']!r} {exc.problem}")
            raise InputError(f"{where}: {what}", source=p, expected=exc.expected,
                             fix=exc.fix or "give the path relative to the claims file") from None
        out.append((str(e.get("label", f.name)), text))
    return out


def chunks(text: str, size: int | None = None):
    """(offset, piece) of a text cut at blank lines into pieces of about ``size`` characters.

    A piece ends after a blank line (a line of white space only); a paragraph longer than ``size``
    stays whole. Nothing the readers of this package look for spans a blank line, so reading piece by
    piece finds what reading the whole text finds, in linear time and with memory of one piece.
    """
    size = size or CHUNK_CHARS
    start = 0
    while start < len(text):
        if len(text) - start <= size:
            yield start, text[start:]
            return
        m = _BLANK_LINE.search(text, start + size)
        end = len(text) if m is None else m.end()
        yield start, text[start:end]
        start = end


def _parse(text: str) -> tuple[list[dict], bool]:
    """The results of a text, piece by piece, and whether it mentions one-tailed tests."""
    rows, mentions = [], False
    for offset, piece in chunks(text):
        clean_piece, shifts = clean(piece)        # invisible characters: never a sign, never inside a number
        mentions = mentions or bool(_ONE_TAILED.search(clean_piece))
        rows += _parse_piece(clean_piece, shifts, offset)
    return rows, mentions


def _parse_piece(text: str, shifts, offset: int) -> list[dict]:
    rows = []
    for m in _RESULT.finditer(text):
        g = m.groupdict()
        df1 = df2 = n = np.nan
        if g["t"]:
            test, df2 = "t", float(g["t_df"])
        elif g["r"]:
            test, df2 = "r", float(g["r_df"])
        elif g["q"]:
            kind = (g["q_kind"] or "")[:1].lower()
            test, df1 = {"w": "Qw", "b": "Qb"}.get(kind, "Q"), float(g["q_df"])
        elif g["f"]:
            d1 = g["f_df1"]
            test, df1, df2 = "F", 1.0 if d1[-1] in "Il" else float(d1), float(g["f_df2"])
        elif g["chi"]:
            test, df1 = "chi2", float(g["chi_df"])
            if g["chi_n"]:
                n = float(g["chi_n"].replace(",", ""))
        else:
            test = "z"
        pre = "".join(g["pre"].split())
        if any(c in _CANON for c in pre):
            continue                              # two comparison signs ("t(38) >= 2.25"): not read
        value_text = g["value"].replace(",", "")
        value = float(value_text)
        if pre and pre not in _PLUS:
            value = -value                        # a minus sign, or (as statcheck reads it) a converter's garbage
        if g["ns"]:
            comparison, reported_p, p_dec = "ns", np.nan, 0
        else:
            p_text = g["p"]
            if not p_text.isascii():
                p_text = re.sub(_HYPHEN, "-", p_text)
            comparison, reported_p, p_dec = _CANON[g["pcomp"]], float(p_text), decimals(p_text)
            if reported_p > 1:
                continue                          # not a p-value
        if test == "r" and abs(value) > 1:
            continue                              # not a correlation (misread)
        start, end = m.start(), m.end()
        if shifts is not None:
            start, end = int(original_position(start, shifts)), int(original_position(end, shifts, end=True))
        rows.append({"test": test, "df1": df1, "df2": df2, "n": n, "test_comparison": _CANON[g["tcomp"]],
                     "statistic": value, "statistic_decimals": decimals(value_text), "comparison": comparison,
                     "reported_p": reported_p, "p_decimals": p_dec,
                     "raw": m.group(0).strip(), "start": start + offset, "end": end + offset})
    return rows


# ------------------------------------------------------------------------------------ p-values
def _p_values(test: np.ndarray, stat: np.ndarray, df1: np.ndarray, df2: np.ndarray, two_tailed: bool) -> np.ndarray:
    """p of each statistic: t, r and z from |statistic| (doubled when two-tailed), F and chi2/Q upper tail."""
    from scipy import stats

    from ..agreement.correlation import r_test_pvalue

    p = np.full(stat.shape, np.nan)
    for kinds, fn in ((("t",), lambda x, i: stats.t.sf(np.abs(x), df2[i])),
                      (("r",), lambda x, i: r_test_pvalue(x, df2[i], two_tailed=False)),
                      (("z",), lambda x, i: stats.norm.sf(np.abs(x))),
                      (("F",), lambda x, i: stats.f.sf(x, df1[i], df2[i])),
                      (("chi2", "Q", "Qw", "Qb"), lambda x, i: stats.chi2.sf(x, df1[i]))):
        i = np.isin(test, kinds)
        if i.any():
            p[i] = fn(stat[i], i)
    if two_tailed:
        p = np.where(np.isin(test, ("t", "r", "z")), np.minimum(2 * p, 1.0), p)
    return p


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False", text=repr(value), expected="a bool",
                         fix=f"pass {name}=True or {name}=False")
    return bool(value)


def review_text(text: str, *, alpha: float = 0.05, one_tailed: bool = False, one_tailed_in_text: bool = False,
                p_equal_alpha_significant: bool = True, p_zero_is_error: bool = True) -> pd.DataFrame:
    """Find APA-style test results in a text and check each reported p against its statistic.

    Reads t, F, r, chi-square (with its df and optionally N), z and Q (Q, Q-within, Q-between)
    results written as in APA style, with an exact (``p = .03``) or inexact (``p < .001``) p, or
    ``ns``; recomputes each p from the statistic and degrees of freedom and flags the inconsistent
    ones, as statcheck does.

    Parameters
    ----------
    text : str
        The text: a paper, a section, a sentence (as extracted from a PDF or HTML; repeated spaces
        and one line break are allowed anywhere inside a result, a blank line ends it). At most
        :data:`MAX_TEXT_BYTES` bytes of UTF-8 (``METAEVAL_MAX_TEXT_BYTES``).
    alpha : float, default 0.05
        The significance level the text is assumed to use (statcheck's ``alpha``); also the value
        ``ns`` stands for (``ns`` is read as p > alpha).
    one_tailed : bool, default False
        Treat every result as one-tailed: the p of t, r and z is not doubled (statcheck's
        ``OneTailedTests``).
    one_tailed_in_text : bool, default False
        If the text says "one-tailed", "one-sided" or "directional" anywhere, a result that is an
        error as a two-tailed test but not as a one-tailed one is taken to be one-tailed: its
        ``computed_p``, ``error`` and ``decision_error`` are those of the one-tailed test and
        ``one_tailed`` is True (statcheck's ``OneTailedTxt``). Ignored when ``one_tailed`` is True.
    p_equal_alpha_significant : bool, default True
        Whether p = alpha counts as significant for ``decision_error`` (statcheck's ``pEqualAlphaSig``).
    p_zero_is_error : bool, default True
        Whether a reported p of zero (``p = .000``) is always an error (statcheck's ``pZeroError``;
        a p-value is never exactly 0 and should be reported as ``p < .001``).

    Returns
    -------
    pandas.DataFrame
        One row per result, in the order of the text, with the columns

        * ``test``: ``"t"``, ``"F"``, ``"r"``, ``"chi2"``, ``"z"``, ``"Q"``, ``"Qw"`` or ``"Qb"``;
        * ``df1``, ``df2``: degrees of freedom as statcheck stores them: t and r in ``df2``
          (``df1`` NaN), F in both, chi2 and Q in ``df1`` (``df2`` NaN), z in neither;
          an F's df1 printed as "l" or "I" (a typesetting slip for 1) is 1;
        * ``n``: the sample size of a chi-square written ``χ2(df, N = n)``, else NaN;
        * ``test_comparison``: ``"="``, ``"<"`` or ``">"`` between the statistic and its value;
        * ``statistic``: the value as printed (thousands separators removed; a minus however
          encoded, e.g. "−" or a converter's garbage, is read as a minus);
        * ``comparison``: ``"="``, ``"<"``, ``">"`` for the p, or ``"ns"``;
        * ``reported_p``: the p as printed (NaN for ``ns``);
        * ``computed_p``: the p recomputed from the statistic (two-tailed for t, r and z unless
          ``one_tailed``, or unless corrected by ``one_tailed_in_text``);
        * ``one_tailed``: whether ``computed_p``, ``error`` and ``decision_error`` are one-tailed;
        * ``error``: the reported p is inconsistent with the statistic as printed (bool);
        * ``decision_error``: an error that puts the reported p on the other side of ``alpha``
          from the recomputed one (bool);
        * ``one_tailed_in_text``: the text mentions one-tailed / one-sided / directional tests;
        * ``raw``: the matched text; ``start``, ``end``: its position in ``text``
          (``text[start:end]``, before stripping).

        No result found gives an empty frame with these columns.

    Raises
    ------
    metaeval.InputError
        If ``text`` is not a string or is longer than the limit, ``alpha`` is not in (0, 1), or a
        flag is not a bool.

    Notes
    -----
    The definitions are statcheck's (R package, version 1.6.0):

    * **p-values.** t: :math:`2\\,P(T_{df} > |t|)`; r through :math:`t = r\\sqrt{df / (1 - r^2)}`;
      z: :math:`2\\,P(Z > |z|)`; F: :math:`P(F_{df_1, df_2} > F)`; chi2 and Q:
      :math:`P(\\chi^2_{df} > x)`. One-tailed halves t, r and z only.
    * **error.** The printed statistic stands for an interval of half a unit in its last printed
      decimal (2.20 for [2.195, 2.205]); its ends give the largest and smallest p it allows. An
      exact p is an error if it lies outside that range after rounding the range to the p's own
      decimals; ``p < x`` is an error if x is below the smallest p (``t > x``: never), ``p > x``
      if x is above the largest (``t < x``: never); with ``t < x`` or ``t > x`` only the end that
      can be contradicted is used. ``ns`` counts as ``p > alpha``.
    * **decision_error** is only checked for errors: the reported p is significant and the
      recomputed one not, or the reverse, with the per-comparison rules of statcheck's
      ``decision_error_test``.
    * Results with a p above 1, a correlation outside [-1, 1] or two comparison signs
      (``t(38) >= 2.25``, ``p <= .05``) are left out; a result must have a comma between the
      statistic and the p (``t(28) = 2.20; p = .03`` is not read), round brackets around the df,
      a lower-case ``t``, ``r``, ``p`` and ``ns``.
    * **Invisible characters.** Unicode format characters (soft hyphen, zero-width space and
      joiners, byte-order mark, bidirectional marks) and control characters other than white space
      are removed before reading, so they are never a sign and never split a number
      (``F(1, 20) = \u00ad4.5`` is F = 4.5); ``start`` and ``end`` still point into ``text``.
      A minus is a hyphen-minus, a Unicode hyphen or dash (U+2010–U+2013), U+2212, or, as statcheck
      reads it, other visible junk between the sign and the number ("%^&2.20").
    * The text is read a few paragraphs at a time (cut at blank lines), in time linear in its length.

    Where this differs from statcheck: a minus followed by a space (``t(553) = − 4.46``) is read
    as a minus (statcheck drops the result); a ``+`` before the value is a plus (statcheck reads
    any sign as a minus); a z at the very start of the text is read; any number of spaces and
    one line break may stand where statcheck allows at most one space; ``χ²`` with a superscript two, ``Chi-square`` and the
    comparison-sign code points above are read; a chi-square needs a chi-like name (statcheck
    also reads any single character after a space, e.g. ``" T(28) = 2.2, p = .03"``, as one);
    ``QBetween`` and ``QW`` are Qb and Qw (statcheck looks for a lower-case b or w);
    ``raw`` starts at the test's name (statcheck's starts one character into "chi2"); the bounds
    of a correlation are cut at ±1 (statcheck stops with an error there); ``ns`` directly followed by
    a letter is not read; a text that is not a string raises (``statcheck(NA)`` returns nothing).
    On statcheck's own test suite (356 expectations) review_text agrees except for these and for
    one case built at the 15th significant digit of R's ``pt`` (tests/test_review_text.py).

    References
    ----------
    .. [1] Nuijten, M. B., Hartgerink, C. H. J., van Assen, M. A. L. M., Epskamp, S., & Wicherts,
       J. M. (2016). The prevalence of statistical reporting errors in psychology (1985–2013).
       Behavior Research Methods, 48, 1205–1226.
    .. [2] Nuijten, M. B., & Epskamp, S. statcheck: Extract statistics from articles and recompute
       p-values. R package version 1.6.0, https://github.com/MicheleNuijten/statcheck.

    Examples
    --------
    >>> import metaeval
    >>> res = metaeval.review_text(
    ...     "Judges agreed more after calibration, t(28) = 2.20, p = .04, and the effect of length "
    ...     "was absent, F(2, 56) = 1.203, p < .001; \u03c7\u00b2(1, N = 226) = 6.90, p = .03.")
    >>> res[["test", "df1", "df2", "statistic", "comparison", "reported_p", "error", "decision_error"]]
       test  df1   df2  statistic comparison  reported_p  error  decision_error
    0     t  NaN  28.0      2.200          =       0.040  False           False
    1     F  2.0  56.0      1.203          <       0.001   True            True
    2  chi2  1.0   NaN      6.900          =       0.030   True           False
    >>> res["computed_p"].round(4).tolist()
    [0.0362, 0.3079, 0.0086]

    t = 2.20 allows p from .0356 to .0369, i.e. .04 at two decimals: consistent. F = 1.203 gives
    p = .31: "p < .001" is wrong and turns a non-significant result into a significant one.
    χ² = 6.90 gives p = .009: ".03" is wrong but on the same side of .05.
    """
    if not isinstance(text, str):
        raise InputError("review_text needs the text as one string", text=repr(text)[:80],
                         expected="a str", fix="read the file first (pathlib.Path(p).read_text()) or join the pieces")
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < float(alpha) < 1:
        raise InputError("alpha must be a number between 0 and 1", text=repr(alpha), expected="e.g. 0.05",
                         fix="pass alpha=0.05 (or the level the paper uses)")
    alpha = float(alpha)
    one_tailed = _check_flag(one_tailed, "one_tailed")
    one_tailed_in_text = _check_flag(one_tailed_in_text, "one_tailed_in_text")
    p_equal_alpha_significant = _check_flag(p_equal_alpha_significant, "p_equal_alpha_significant")
    p_zero_is_error = _check_flag(p_zero_is_error, "p_zero_is_error")

    check_text_size(text)
    rows, mentions = _parse(text)
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=_DTYPES.get(c, "float64")) for c in COLUMNS})
    frame = pd.DataFrame(rows)
    test = frame["test"].to_numpy(dtype=object)
    stat = frame["statistic"].to_numpy(dtype=float)
    df1, df2 = frame["df1"].to_numpy(dtype=float), frame["df2"].to_numpy(dtype=float)
    near, far = statistic_bounds(stat, frame["statistic_decimals"].to_numpy(dtype=float))

    def checked(two_tailed: bool):
        computed = _p_values(test, stat, df1, df2, two_tailed)
        p_near = _p_values(test, near, df1, df2, two_tailed)
        p_far = _p_values(test, far, df1, df2, two_tailed)
        err, dec = [], []
        for i, row in enumerate(rows):
            e = is_error(row["reported_p"], row["comparison"], row["test_comparison"], p_near[i], p_far[i],
                          row["p_decimals"], alpha, p_zero_is_error)
            err.append(bool(e))
            dec.append(bool(e) and is_decision_error(row["reported_p"], row["comparison"], row["test_comparison"],
                                                      computed[i], alpha, p_equal_alpha_significant))
        return computed, np.array(err), np.array(dec)

    computed, error, decision = checked(not one_tailed)
    tailed = np.full(len(rows), one_tailed)
    if one_tailed_in_text and not one_tailed and mentions and error.any():
        computed1, error1, decision1 = checked(False)
        fixed = error & ~error1                    # an error two-tailed, consistent one-tailed
        computed = np.where(fixed, computed1, computed)
        decision = np.where(fixed, decision1, decision)
        error = np.where(fixed, error1, error)
        tailed = tailed | fixed
    frame["computed_p"] = computed
    frame["one_tailed"] = tailed
    frame["error"] = error.astype(bool)
    frame["decision_error"] = decision.astype(bool)
    frame["one_tailed_in_text"] = mentions
    return frame[COLUMNS].reset_index(drop=True)


_DTYPES = {"test": "object", "test_comparison": "object", "comparison": "object", "raw": "object",
           "one_tailed": "bool", "error": "bool", "decision_error": "bool", "one_tailed_in_text": "bool",
           "start": "int64", "end": "int64"}
