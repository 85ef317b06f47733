"""Reported numbers as printed: p-values, signs, rounding, and the rule that says whether a p can follow.

One home for what :mod:`metaeval.review.text` (APA results in a text), :mod:`metaeval.review.claims`
(judge-validation claims), :mod:`metaeval.review.prose` (claims found in prose) and
:mod:`metaeval.review.note` (the reviewer's note) read and compare:

* :func:`clean` removes the invisible characters a PDF or a web page leaves in a text (Unicode
  format characters: soft hyphen, zero-width space, byte-order mark, joiners, bidirectional marks;
  control characters other than white space) and keeps the map back to the original positions, so
  that an invisible character never reads as a sign or splits a number;
* :data:`MINUS` lists the characters that are minus signs (hyphen-minus, the Unicode hyphens and
  dashes PDF converters print for a minus, U+2212);
* :func:`parse_p` reads a reported p (``"< .001"``, ``"= .03"``, ``"ns"``, a number);
* :func:`p_consistent` (claims) and :func:`is_error` / :func:`is_decision_error` (APA results, with
  statcheck's comparison of the statistic) are the rule that says whether a reported p can follow
  from a statistic at its printed rounding (Nuijten et al. 2016);
* :func:`decimals`, :func:`statistic_bounds` and :func:`matches` are the printed-rounding helpers
  (the rounding interval of a printed number is :func:`metaeval.review.feasibility.rounding_interval`).

References
----------
Nuijten, M. B., Hartgerink, C. H. J., van Assen, M. A. L. M., Epskamp, S. & Wicherts, J. M. (2016).
The prevalence of statistical reporting errors in psychology (1985–2013). *Behavior Research
Methods* 48, 1205–1226. The Unicode Standard, chapter 23 (format characters, General_Category Cf).
"""

from __future__ import annotations

import functools
import re
import unicodedata

import numpy as np

from ..core.errors import InputError
from .feasibility import EPS, _number, decimals_of, rounding_interval

__all__ = ["MINUS", "clean", "original_position", "parse_p", "p_consistent", "fmt_p", "p_text", "matches", "decimals", "statistic_bounds",
           "is_error", "is_decision_error", "decimals_of", "rounding_interval", "EPS"]

#: The characters read as a minus sign before a number: hyphen-minus, hyphen, non-breaking hyphen,
#: figure dash, en dash, minus sign (U+2212), small and full-width hyphen-minus.
MINUS = "-\u2010\u2011\u2012\u2013\u2212\ufe63\uff0d"


@functools.cache
def _invisible() -> re.Pattern:
    """A run of format characters (General_Category Cf) and control characters that are not white space.

    Cf characters lie in planes 0, 1 and 14 only (planes 2–3 hold ideographs, 15–16 private use).
    """
    ranges: list[list[int]] = []
    for cp in (*range(0xD800), *range(0xE000, 0x20000), *range(0xE0000, 0xE1000)):
        c = chr(cp)
        cat = unicodedata.category(c)
        if cat == "Cf" or (cat == "Cc" and not c.isspace()):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    # ranges, not single characters: the character class is then a fast bitmap test
    cls = "".join(re.escape(chr(a)) + ("" if a == b else "-" + re.escape(chr(b))) for a, b in ranges)
    return re.compile(f"[{cls}]+")


def clean(text: str) -> tuple[str, np.ndarray | None]:
    """The text without invisible characters, and where its characters were in the original.

    Parameters
    ----------
    text : str
        The text as read.

    Returns
    -------
    (str, numpy.ndarray or None)
        The cleaned text, and the sorted positions (in the cleaned text) after which characters were
        removed, one entry per removed character (None when nothing was removed); :func:`original_position`
        maps a position back.

    Examples
    --------
    >>> clean("F(1, 20) = \\u00ad4.5")[0]
    'F(1, 20) = 4.5'
    """
    pattern = _invisible()
    if not pattern.search(text):
        return text, None
    removed = [m.span() for m in pattern.finditer(text)]
    starts = np.concatenate([np.arange(a, b) for a, b in removed])
    shifts = starts - np.arange(len(starts))          # the cleaned position each removed character stood before
    return pattern.sub("", text), shifts


def original_position(pos: int | np.ndarray, shifts: np.ndarray | None, *, end: bool = False):
    """Position in the original text of a position in the cleaned one (``end``: an end, exclusive)."""
    if shifts is None:
        return pos
    return pos + np.searchsorted(shifts, pos, side="left" if end else "right")


# --------------------------------------------------------------------------------------------
# p-values
# --------------------------------------------------------------------------------------------

_P_RE = re.compile(r"^\s*p?\s*(<=|>=|≤|≥|<|>|=)?\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$")


def parse_p(p, *, alpha: float = 0.05) -> tuple[str, float, int | None]:
    """A reported p-value as (comparison, value, decimals): ``"< .001"`` → ``("<", 0.001, 3)``.

    Parameters
    ----------
    p : float or str
        A number (taken as ``p = value``), or ``"< .001"``, ``"p = .03"``, ``"> .05"``, ``"ns"``.
    alpha : float
        What ``"ns"`` means: p > alpha.

    Returns
    -------
    (str, float, int or None)
        The comparison (``"="``, ``"<"``, ``">"``), the value, and its printed decimals.

    Examples
    --------
    >>> parse_p("< .001"), parse_p(0.03), parse_p("ns")
    (('<', 0.001, 3), ('=', 0.03, 2), ('>', 0.05, None))
    """
    if isinstance(p, str):
        s = clean(p)[0].strip().lower()
        for m in MINUS[1:]:
            s = s.replace(m, "-")
        s = s.replace(" ", "").replace("\u00a0", "")
        if s in ("ns", "n.s.", "n.s"):
            return ">", float(alpha), None
        m = _P_RE.match(s)
        if not m:
            raise InputError(f"cannot read the p-value {p!r}", expected="a number or a string such as '< .001', '= .03', 'ns'")
        comp = {"<=": "<", "≤": "<", ">=": ">", "≥": ">"}.get(m.group(1) or "=", m.group(1) or "=")
        return comp, float(m.group(2)), decimals_of(m.group(2))
    v = _number(p, "p")
    return "=", v, decimals_of(p)


def p_consistent(p, p_lo: float, p_hi: float, alpha: float) -> tuple[bool, str]:
    """Whether a reported p can follow from a statistic whose p lies in [p_lo, p_hi] (statcheck's rule).

    An exact p (``= .03``) can follow if its rounding interval meets [p_lo, p_hi]; ``< x`` if p_lo is
    below x; ``> x`` if p_hi is above x. Returns the answer and the requirement in words.
    """
    comp, v, d = parse_p(p, alpha=alpha)
    if comp == "=":
        lo, hi, _ = rounding_interval(v, d)
        ok = p_hi >= lo - EPS and p_lo <= hi + EPS
        return ok, f"p = {v:g} needs p in [{lo:.4g}, {hi:.4g}]"
    if comp == "<":
        return p_lo < v + EPS, f"p < {v:g}"
    return p_hi > v - EPS, f"p > {v:g}"


def p_text(v) -> str:
    """A p-value printed in full without exponent or trailing zeros (0.03 -> '0.03', 5e-4 -> '0.0005')."""
    return np.format_float_positional(float(v), trim="-")


def fmt_p(p) -> str:
    """A reported p as text ("" for none)."""
    if p is None:
        return ""
    return p if isinstance(p, str) else f"{p:g}"


def matches(x, lo, hi) -> bool:
    """Whether ``x`` lies in the rounding interval [lo, hi] (with the package's tolerance ``EPS``)."""
    return bool(lo - EPS <= x <= hi + EPS)


# --------------------------------------------------------------------------------------------
# APA results (statcheck's rules)
# --------------------------------------------------------------------------------------------

def decimals(number: str) -> int:
    """Digits printed after the decimal point ("2.20" -> 2, ".5e-3" -> 1, "2" -> 0)."""
    frac = number.partition(".")[2]
    return len(frac) - len(frac.lstrip("0123456789"))


def statistic_bounds(stat: np.ndarray, dec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The statistic's rounding interval as printed: (end nearer zero, end farther from zero)."""
    half = 0.5 / 10.0 ** dec
    sign = np.where(stat >= 0, 1.0, -1.0)
    return stat - sign * half, stat + sign * half


def is_error(rep, comp, tcomp, p_near, p_far, p_dec, alpha, p_zero_is_error) -> bool:
    """statcheck's ``error``: the reported p is outside what the printed statistic allows.

    ``p_near`` is the p of the statistic's rounding end nearer zero (the largest p the statistic
    allows), ``p_far`` that of the end farther from zero (the smallest). An exact p is compared
    after rounding those ends to the p's own decimals; "ns" counts as p > alpha.
    """
    if comp == "ns":
        rep, comp = alpha, ">"
    # Python's round of a float rounds its exact binary value to the nearest decimal (as R >= 4.0.0's
    # round does); numpy's scales by 10**p_dec first, which is not exact and overflows for long p's.
    p_near, p_far = float(p_near), float(p_far)
    if p_zero_is_error and rep <= 0:
        return True
    if tcomp == "=":
        if comp == "=":
            return rep > round(p_near, p_dec) or rep < round(p_far, p_dec)
        return rep < p_far if comp == "<" else rep > p_near
    if tcomp == "<":                               # the statistic is below the printed value: p above
        if comp == "=":
            return rep < round(p_near, p_dec)
        return rep < p_near if comp == "<" else False
    if comp == "=":                                # tcomp ">": p below what the printed value gives
        return rep > round(p_far, p_dec)
    return False if comp == "<" else rep > p_far


def is_decision_error(rep, comp, tcomp, computed, alpha, p_equal_alpha_significant) -> bool:
    """statcheck's ``decision_error``: the reported and the recomputed p fall on either side of alpha.

    With ``p_equal_alpha_significant`` (statcheck's default), p = alpha counts as significant.
    """
    if comp == "ns":
        rep, comp = alpha, ">"
    a, c = alpha, computed
    if p_equal_alpha_significant:
        rules = {("=", "="): (rep <= a and c > a) or (rep > a and c <= a),
                 ("=", "<"): rep <= a and c > a, ("=", ">"): rep >= a and c <= a,
                 ("<", "="): rep <= a and c >= a, ("<", "<"): rep <= a and c >= a,
                 (">", "="): rep > a and c <= a, (">", ">"): rep >= a and c <= a}
    else:
        rules = {("=", "="): (rep < a and c >= a) or (rep >= a and c < a),
                 ("=", "<"): rep <= a and c >= a, ("=", ">"): rep >= a and c < a,
                 ("<", "="): rep < a and c >= a, ("<", "<"): rep <= a and c >= a,
                 (">", "="): rep >= a and c <= a, (">", ">"): rep >= a and c <= a}
    return bool(rules.get((tcomp, comp), False))     # (<, >) and (>, <) can never be wrong
