"""Judge-validation claims in a paper's prose, found and checked (reviewer mode).

The numbers a reviewer checks in a judge paper are seldom APA test results: they are sentences such
as "Cohen's κ = 0.6 on 202 judgments", "an agreement rate of 82.42% with human judgments", "a
Spearman correlation of 0.514 with human", "27 out of 54 tested LLMs". :func:`find_claims` reads
them and writes each as a claim in the vocabulary of :func:`metaeval.check_claims` (kinds ``kappa``,
``fleiss_kappa``, ``accuracy``, ``proportion``, ``correlation``, ``rank_correlation`` and their
fields), with the sentence it came from; :func:`check_found` checks those that can be checked and
says, for the others, what is missing.

What is read, sentence by sentence (a sentence ends at ``.``, ``!`` or ``?`` followed by a space and
a capital, or at a blank line):

* **κ** (Cohen's, Fleiss', weighted; "kappa", "κ") and **Krippendorff's α**, with the first number
  after the name in the same clause ("Cohen's Kappa, achieving a substantial agreement score of 0.6");
* **correlations**: Pearson / Spearman / Kendall by name, or the symbols r, ρ (rho), τ (tau), with
  their value ("Kendall's tau = 0.87", "a Spearman correlation of 0.514"); an APA result ``r(df) =``
  is left to :func:`metaeval.review_text`;
* **percentages** next to "agreement", "accuracy", "agree" or "of the time" (accuracy: the share of
  equal labels), and percentages of a count ("57.78% of 135"); a number of items in brackets
  ("82.4% (164/199)", "(164 of 199)") is the count;
* **counts**: "x of n", "x out of n" (a proportion with its count);
* **the number of items** in the same sentence: "(n = 15)", "N = 202", "on 202 judgments", "over
  37 runs" (runs, systems or models make a Kendall τ a ranking of systems: ``rank_correlation``);
* **a p-value** after a correlation ("p < .001");
* **margins** of a binary sample ("97 relevant, 105 not"): recorded as ``reference_margins`` (one
  rater's counts; :func:`metaeval.check_claims` needs both raters' margins, so they are stated,
  not used);
* a percent agreement in the same sentence as a κ becomes the κ claim's ``percent_agreement``.

A number introduced by "about", "approximately", "~", "over", "more than", "at least" and the like
is a bound or a rounding the paper did not print: it is found, marked ``approximate`` and not checked.
"""

from __future__ import annotations

import bisect
import re
from decimal import Decimal, InvalidOperation

import pandas as pd

from ..core.errors import InputError
from .pvalues import MINUS, clean

__all__ = ["find_claims", "check_found", "UNCHECKED"]

#: The verdict of a found claim that cannot be checked (the reason says what is missing).
UNCHECKED = "not checked"

_M = "[" + re.escape(MINUS) + "]"
_VAL = rf"(?P<v>{_M}?\s?(?:\d+(?:\.\d+)?|\.\d+))"
_APPROX = (r"(?P<approx>~|≈|∼|about|approximately|approx\.|around|roughly|nearly|almost|over|more\s+than|"
           r"at\s+least|above|below|under|less\s+than|up\s+to|close\s+to|>|<|≥|≤)?\s*")
_NUMBER = r"\d{1,3}(?:,\d{3})+|\d+"
_UNITS = (r"judg(?:e)?ments|items|pairs|samples|examples|responses|answers|annotations|labels|instances|queries|"
          r"documents|passages|topics|summaries|questions|prompts|cases|images|conversations|comparisons|"
          r"battles|ratings|evaluations|outputs|texts|sentences|dialogues|"
          r"query-document\s+pairs|runs|systems|models")
_SYSTEM_UNITS = ("runs", "systems", "models")

_V2 = rf"(?:\s*(?:,\s*(?:and\s+)?|and\s+)(?P<v2>{_M}?(?:\d+\.\d+|\.\d+))(?![\d%.]))?"
_KAPPA = re.compile(
    r"(?P<who>Cohen['’]?s?|Fleiss['’]?s?|[Ww]eighted|[Qq]uadratic(?:ally)?[- ]weighted|[Ll]inear(?:ly)?[- ]weighted)?"
    r"\s*(?<![A-Za-z])(?:κ|[Kk]appa)(?:\s*\(\s*κ\s*\))?(?![A-Za-z])"
    rf"(?P<gap>[^.;:!?%\d]{{0,80}}?){_APPROX}{_VAL}(?![\d%]){_V2}")
_ALPHA = re.compile(
    r"Krippendorff['’]?s?\s*(?:α|[Aa]lpha)(?![A-Za-z])"
    rf"(?P<gap>[^.;:!?%\d]{{0,80}}?){_APPROX}{_VAL}(?![\d%])")
_CORR = re.compile(
    r"(?:(?P<name>Pearson|Spearman|Kendall)['’]?s?(?:\s+(?:rank[- ])?(?:correlation|r|ρ|rho|τ|tau)(?:[_-]?b)?)?"
    r"|(?<![A-Za-z])(?P<sym>ρ|rho|τ|tau|r)(?:[_-]?b)?(?=\s*[=≈<>])"
    r"|(?P<plain>[Cc]orrelation(?:\s+coefficient)?))(?![A-Za-z(])"
    rf"(?P<gap>[^.;:!?%\d(]{{0,60}}?){_APPROX}{_VAL}(?![\d%]){_V2}")
_ACC_DECIMAL = re.compile(rf"(?<![A-Za-z])(?:[Aa]ccuracy|[Aa]greement\s+rate|[Pp]ercent(?:age)?\s+agreement)"
                          rf"\s*(?:of|was|is|=|:|reached|reaches)?\s*{_APPROX}(?P<v>0?\.\d+|1\.0+)(?![\d%])")
_PERCENT = re.compile(rf"{_APPROX}(?P<v>\d+(?:\.\d+)?)\s?%")
_AGREE_BEFORE = re.compile(r"(?:agreement|accuracy|agree(?:d|s)?|concordance|match(?:es|ed)?)\b[^.;:!?%\d]{0,40}$",
                           re.IGNORECASE)
_AGREE_AFTER = re.compile(r"^\s*(?:raw\s+|overall\s+|percent(?:age)?\s+|pairwise\s+)?(?:agreement|accuracy|match)",
                          re.IGNORECASE)
_SHARE_AFTER = re.compile(r"^\s*(?:were\s+|are\s+|was\s+|is\s+)?(?:relevant|non-?relevant|correct|incorrect|positive|"
                          r"negative|preferred|valid|invalid|of\s+the\s+time|of\s+(?:all\s+)?cases)\b", re.IGNORECASE)
_OF_N = re.compile(rf"^\s*of\s+(?:the\s+|all\s+)?(?P<n>{_NUMBER})(?![\d.%])(?:\s+(?P<unit>[a-z-]+))?")
_PAREN_COUNT = re.compile(rf"^\s*[(\[]\s*(?P<k>{_NUMBER})\s*(?:/|of|out\s+of)\s*(?P<n>{_NUMBER})\s*[)\]]")
_X_OF_N = re.compile(rf"(?<![\d.,%])(?P<k>{_NUMBER})\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?(?P<n>{_NUMBER})(?![\d.,%])"
                     r"(?:\s+(?P<unit>[A-Za-z-]+))?")
_N = re.compile(rf"(?<![A-Za-z])[nN]\s*=\s*(?P<n>{_NUMBER})(?![\d.])"
                rf"|(?:on|over|across|for|from|with|using|of|in)\s+(?:the\s+|all\s+|a\s+(?:sample|set)\s+of\s+)?"
                r"(?:(?:original|total|final|full|whole|same|first|last)\s+)?"
                rf"(?P<n2>{_NUMBER})\s+(?:[A-Za-z-]+\s+)?(?P<unit>{_UNITS})\b")
_P = re.compile(r"(?<![A-Za-z])p\s*(?P<comp>[<>=≤≥])\s*(?P<p>0?\.\d+(?:[eE][-−]?\d+)?|1(?:\.0+)?)(?![\d])")
_MARGINS = re.compile(rf"(?P<pos>{_NUMBER})\s+(?:were\s+|are\s+)?relevant\s*(?:,|and|vs\.?|/|;)\s*"
                      rf"(?P<neg>{_NUMBER})\s+(?:were\s+|are\s+)?(?:not(?:\s+relevant)?|non-?relevant|irrelevant)",
                      re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”’)\]]*\s+(?=[^\sa-z0-9])|\n[^\S\n]*\n")
_APA_R = re.compile(r"\br\s*\(\s*\d")
# a sentence without one of these holds no claim (a quick test before the patterns above)
# (the lookahead on the first character lets the scan skip most positions at once)
_HINT = re.compile(r"(?=[κα%ρτKkAaCcPpSrt\d])(?:[κα%ρτ]|[Kk]appa|[Aa]lpha|[Aa]ccuracy|[Aa]greement|[Pp]ercent"
                   r"|[Cc]orrelat|Pearson|Spearman|Kendall|\brho\b"
                   r"|\btau\b|(?<![A-Za-z])r\s*[=≈<>]|\d\s+(?:out\s+)?of\s)")


def _count(s: str) -> int:
    return int(s.replace(",", ""))


def _value(s: str) -> str:
    """The printed number as a string (a minus however written becomes '-'; spaces dropped)."""
    s = "".join(s.split())
    if s[:1] in MINUS:
        s = "-" + s[1:]
    return s


def _percent(s: str) -> str:
    """A printed percentage as the printed proportion: '57.78' -> '0.5778', '80' -> '0.80'."""
    try:
        return str(Decimal(s).scaleb(-2))
    except InvalidOperation:  # pragma: no cover - the pattern only lets digits through
        return s


def _sentences(text: str):
    """(start, end) of each sentence of a cleaned text."""
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            yield start, m.start()
        start = m.end()
    if start < len(text):
        yield start, len(text)


def _n_in(sentence: str) -> tuple[int | None, str | None]:
    m = _N.search(sentence)
    if not m:
        return None, None
    if m.group("n"):
        return _count(m.group("n")), None
    return _count(m.group("n2")), m.group("unit").lower()


def _claims_of(sentence: str) -> list[tuple[int, dict]]:
    """(position in the sentence, claim) of every claim a sentence holds."""
    found: list[tuple[int, dict]] = []
    used: list[tuple[int, int]] = []                 # spans already read (a number is one claim)

    def free(a, b):
        return all(b <= x or a >= y for x, y in used)

    n, unit = _n_in(sentence)
    p = _P.search(sentence)

    for m in _KAPPA.finditer(sentence):
        v = _value(m.group("v"))
        if not free(m.start("v"), m.end("v")) or not -1 <= float(v) <= 1:
            continue
        used.append((m.start("v"), m.end("v")))
        who = (m.group("who") or "").lower()
        c = {"kind": "fleiss_kappa" if who.startswith("fleiss") else "kappa", "value": v}
        if "weight" in who:
            c["weights"] = "quadratic" if who.startswith("quadratic") else "linear" if who.startswith("linear") else None
        if m.group("approx"):
            c["approximate"] = m.group("approx")
        if c["kind"] == "kappa" and n is not None:
            c["n"] = n
        found.append((m.start(), c))
        if m.group("v2") and -1 <= float(_value(m.group("v2"))) <= 1:     # "κ of 0.61 and 0.58"
            used.append((m.start("v2"), m.end("v2")))
            found.append((m.start("v2"), {**c, "value": _value(m.group("v2"))}))

    for m in _ALPHA.finditer(sentence):
        v = _value(m.group("v"))
        if not free(m.start("v"), m.end("v")) or not -1 <= float(v) <= 1:
            continue
        used.append((m.start("v"), m.end("v")))
        c = {"kind": "krippendorff_alpha", "value": v}
        if m.group("approx"):
            c["approximate"] = m.group("approx")
        if n is not None:
            c["n"] = n
        found.append((m.start(), c))

    for m in _CORR.finditer(sentence):
        if _APA_R.match(sentence, m.start()):
            continue
        v = _value(m.group("v"))
        if not free(m.start("v"), m.end("v")) or not -1 <= float(v) <= 1:
            continue
        used.append((m.start("v"), m.end("v")))
        name = (m.group("name") or m.group("sym") or "").lower()
        method = {"pearson": "pearson", "r": "pearson", "spearman": "spearman", "ρ": "spearman", "rho": "spearman",
                  "kendall": "kendall", "τ": "kendall", "tau": "kendall"}.get(name)
        c = {"kind": "correlation", "method": method or "pearson", "value": v}
        if method is None:
            c["assumed"] = "the method is not named: Pearson's r assumed"
        if m.group("approx"):
            c["approximate"] = m.group("approx")
        if n is not None:
            if unit in _SYSTEM_UNITS and c["method"] == "kendall":
                c = {"kind": "rank_correlation", "value": v, "systems": n, "ties": True}
                if m.group("approx"):
                    c["approximate"] = m.group("approx")
            else:
                c["n"] = n
        if p is not None and p.start() > m.end("v") and method is not None:
            comp = {"≤": "<", "≥": ">"}.get(p.group("comp"), p.group("comp"))
            c["p"] = f"{comp} {p.group('p').replace('−', '-')}"
        found.append((m.start(), c))
        if m.group("v2") and -1 <= float(_value(m.group("v2"))) <= 1:     # "a Kendall correlation of 0.87 and 0.92"
            used.append((m.start("v2"), m.end("v2")))
            found.append((m.start("v2"), {**{k: v for k, v in c.items() if k != "p"}, "value": _value(m.group("v2"))}))

    kappas = [c for _, c in found if c["kind"] == "kappa"]
    for m in _ACC_DECIMAL.finditer(sentence):                # "an accuracy of 0.77 on 202 items"
        if not free(m.start("v"), m.end("v")):
            continue
        used.append((m.start("v"), m.end("v")))
        c = {"kind": "accuracy", "value": _value(m.group("v"))}
        if m.group("approx"):
            c["approximate"] = m.group("approx")
        if n is not None and unit not in _SYSTEM_UNITS:
            c["n"] = n
        if kappas and "approximate" not in c and "percent_agreement" not in kappas[0] and "agree" in m.group(0).lower():
            kappas[0]["percent_agreement"] = c["value"]
            continue
        found.append((m.start(), c))
    for m in _PERCENT.finditer(sentence):
        if not free(m.start("v"), m.end()):
            continue
        before, after = sentence[max(0, m.start() - 60):m.start()], sentence[m.end():]
        of_n, paren = _OF_N.match(after), _PAREN_COUNT.match(after)
        agreement = bool(_AGREE_BEFORE.search(before) or _AGREE_AFTER.match(after))
        share = bool(_SHARE_AFTER.match(after))
        if not (agreement or of_n or paren or share):
            continue                                   # a percentage that is no claim ("by 11.34%")
        used.append((m.start("v"), m.end()))
        value = _percent(m.group("v"))
        c = {"kind": "accuracy" if agreement else "proportion", "value": value}
        if m.group("approx"):
            c["approximate"] = m.group("approx")
        if paren:
            c["count"], c["n"] = _count(paren.group("k")), _count(paren.group("n"))
            used.append((m.end() + paren.start(), m.end() + paren.end()))
        elif of_n:
            c["n"] = _count(of_n.group("n"))
            used.append((m.end() + of_n.start(), m.end() + of_n.end()))
        elif n is not None and unit not in _SYSTEM_UNITS:
            c["n"] = n
        if agreement and kappas and "approximate" not in c and "percent_agreement" not in kappas[0]:
            kappas[0]["percent_agreement"] = value    # "κ = 0.60 with 80.2% raw agreement": one claim
            continue
        if agreement and kappas and "approximate" in c:
            kappas[0].setdefault("notes", []).append(
                f"percent agreement {m.group(0).strip()} is approximate: not used")
        found.append((m.start(), c))

    for m in _X_OF_N.finditer(sentence):
        if not free(m.start(), m.end()):
            continue
        k, total = _count(m.group("k")), _count(m.group("n"))
        if total == 0 or k > total:
            continue
        used.append((m.start(), m.end()))
        found.append((m.start(), {"kind": "proportion", "value": k / total, "count": k, "n": total}))

    mg = _MARGINS.search(sentence)
    if mg:
        margins = [_count(mg.group("neg")), _count(mg.group("pos"))]
        for _, c in found:
            if c["kind"] == "kappa":
                c["reference_margins"] = margins
    return sorted(found, key=lambda t: t[0])


def find_claims(text: str) -> list[dict]:
    """Find judge-validation claims in prose: κ, α, accuracy, percent agreement, correlations, "x of n".

    Parameters
    ----------
    text : str
        The paper's text (or a part of it), as extracted from a PDF or HTML. Invisible characters
        (soft hyphens, zero-width spaces, byte-order marks, bidirectional marks) are removed before
        reading; the text is bounded like :func:`metaeval.review_text`'s (``MAX_TEXT_BYTES``).

    Returns
    -------
    list of dict
        One claim per number found, in the order of the text, in the vocabulary of
        :func:`metaeval.check_claims`: ``kind`` (``kappa``, ``fleiss_kappa``, ``accuracy``,
        ``proportion``, ``correlation``, ``rank_correlation``, or ``krippendorff_alpha``, which
        check_claims has no check for), ``value`` (as printed: a string keeps its decimals;
        percentages become proportions, "57.78%" → ``"0.5778"``), and when the sentence gives them
        ``n`` (or ``systems``), ``count``, ``method``, ``p``, ``percent_agreement``, ``weights``,
        ``ties``; then ``sentence`` (the sentence, white space folded), ``start`` and ``end`` (its
        position in ``text``), and where it applies ``approximate`` (the word that makes the number a
        bound or a rounding: "~", "over"…), ``assumed`` (what the claim assumes, e.g. Pearson for
        an unnamed correlation), ``reference_margins`` (one rater's counts per class, as printed,
        e.g. "97 relevant, 105 not" → ``[105, 97]``) and ``unchecked`` (why
        :func:`metaeval.check_claims` cannot check it: no n, an approximate number, a statistic
        it has no check for). :func:`check_found` checks the others.

    Raises
    ------
    metaeval.InputError
        If ``text`` is not a string or is longer than the text limit.

    Notes
    -----
    The module docstring (:mod:`metaeval.review.prose`) lists what is read. The reading is
    conservative: a number is taken as a claim only next to a statistic's name or an agreement
    word, a kind is never guessed from the value, and an assumption (Pearson for an unnamed
    correlation; tied systems for a τ over runs, so that no untied ranking is demanded) is written
    into the claim. Sentences that state a threshold ("filters judges with r ≥ 0.80") read as an
    approximate claim and are not checked.

    References
    ----------
    The sentences of the examples and tests are quoted from published judge papers: Pires, Nunes &
    Teixeira (2025), arXiv:2506.17782 (abstract); Zheng et al. (2023), *Judging LLM-as-a-Judge with
    MT-Bench and Chatbot Arena*, NeurIPS (abstract); Liu et al. (2023), *G-Eval*, EMNLP (abstract);
    Zhou et al. (2025), *OpenING*, CVPR (abstract); Han et al. (2025), *Judge's Verdict*,
    arXiv:2510.09738 (abstract).

    Examples
    --------
    >>> import metaeval
    >>> found = metaeval.find_claims(
    ...     "To evaluate agreement between the MLLM and human judgments, we use Cohen's Kappa, achieving "
    ...     "a substantial agreement score of 0.6, comparable to inter-annotator agreement typically observed "
    ...     "in multimodal retrieval tasks. This methodology reveals that 27 out of 54 tested LLMs achieve "
    ...     "Tier 1 performance.")
    >>> [(c["kind"], c["value"], c.get("n"), c.get("unchecked")) for c in found]
    [('kappa', '0.6', None, 'no number of items (n) in the sentence'), ('proportion', 0.5, 54, None)]
    >>> res = metaeval.review.prose.check_found(found)
    >>> res[["kind", "verdict"]].values.tolist()
    [['kappa', 'not checked'], ['proportion', 'consistent']]
    """
    from .text import check_text_size, chunks

    if not isinstance(text, str):
        raise InputError("find_claims needs the text as one string", text=repr(text)[:80], expected="a str",
                         fix="read the file first (metaeval.review.text.read_text(path))")
    check_text_size(text)
    out = []
    for offset, piece in chunks(text):
        cleaned, shifts = clean(piece)
        from .pvalues import original_position

        hints = [m.start() for m in _HINT.finditer(cleaned)]      # one scan of the piece
        if not hints:
            continue
        for a, b in _sentences(cleaned):
            i = bisect.bisect_left(hints, a)
            if i == len(hints) or hints[i] >= b:
                continue                                          # no statistic's name in the sentence
            sentence = cleaned[a:b]
            for _, c in _claims_of(sentence):
                c["sentence"] = " ".join(sentence.split())
                c["start"] = int(original_position(a, shifts)) + offset
                c["end"] = int(original_position(b, shifts, end=True)) + offset
                why = _unchecked(c)
                if why:
                    c["unchecked"] = why
                out.append(c)
    return out


def _unchecked(c: dict) -> str | None:
    """Why check_claims cannot check a found claim (None: it can)."""
    if "approximate" in c:
        return f"the number is approximate or a bound ({c['approximate']!r} before it): nothing to check at its rounding"
    kind = c["kind"]
    if kind == "krippendorff_alpha":
        return "Krippendorff's α is recomputed only from the reliability data (check_claims has no α check)"
    if kind == "fleiss_kappa":
        return "Fleiss' κ is recomputed only from the per-item counts, which the text does not give"
    if kind == "kappa" and "n" not in c:
        return "no number of items (n) in the sentence"
    if kind == "kappa" and c.get("weights", "") is None:
        return "a weighted κ with unnamed weights"
    if kind == "correlation" and "n" not in c:
        return "no number of pairs (n) in the sentence"
    if kind == "correlation" and c["n"] < 5:
        return f"n = {c['n']} is too small for an interval"
    if kind == "rank_correlation" and c["systems"] < 5:
        return f"{c['systems']} systems are too few for an interval"
    return None


def check_found(found: list[dict], *, confidence_level: float = 0.95, alpha: float = 0.05,
                n_resamples: int = 2000, rng: int = 0) -> pd.DataFrame:
    """Check the claims :func:`find_claims` found: :func:`metaeval.check_claims` rows, and a row for each unchecked one.

    Parameters
    ----------
    found : list of dict
        What :func:`find_claims` returned.
    confidence_level, alpha, n_resamples, rng
        Passed to :func:`metaeval.check_claims`.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`metaeval.check_claims`, one row per found claim in the order of the
        text (``claim`` numbers them); a claim that cannot be checked has the verdict
        ``"not checked"`` and the reason in ``reason``; ``sentence`` is the sentence it came from.

    Examples
    --------
    >>> import metaeval
    >>> from metaeval.review.prose import check_found
    >>> df = check_found(metaeval.find_claims("The judge agreed with the annotators on 57.79% of 135 items."))
    >>> df.loc[0, "verdict"], df.loc[0, "reason"].split(";")[0]
    ('inconsistent', 'no count out of n = 135 prints as 0.5779 with 4 decimals (GRIM)')
    """
    from .claims import COLUMNS, check_claims

    rows = []
    for i, c in enumerate(found, start=1):
        claim = {k: v for k, v in c.items() if k not in ("start", "end")}
        if not c.get("unchecked"):
            try:
                row = check_claims([claim], confidence_level=confidence_level, alpha=alpha, n_resamples=n_resamples,
                                   rng=rng).iloc[0].to_dict()
            except InputError as exc:                  # numbers the check refuses (n = 0, …): said, not raised
                c = {**c, "unchecked": f"the check refused the numbers: {exc.problem}"}
        if c.get("unchecked"):
            notes = [c["unchecked"]] + ([c["assumed"]] if c.get("assumed") else []) + c.get("notes", [])
            value = pd.to_numeric(pd.Series([c["value"]]), errors="coerce").iloc[0]
            rows.append({**dict.fromkeys(COLUMNS, ""), "claim": i, "kind": c["kind"], "sentence": c["sentence"],
                         "statistic": c["kind"], "reported": float(value), "recomputed": float("nan"),
                         "ci_low": float("nan"), "ci_high": float("nan"), "confidence_level": confidence_level,
                         "p_recomputed": float("nan"), "verdict": UNCHECKED,
                         "reason": "; ".join(notes), "details": {"found": _plain(c)}})
            continue
        row["claim"] = i
        extra = [c["assumed"]] if c.get("assumed") else []
        if c.get("reference_margins"):
            extra.append(f"the text gives one rater's margins {c['reference_margins']} (not used: the check needs "
                         "both raters' margins)")
        extra += c.get("notes", [])
        if extra:
            row["reason"] = row["reason"] + "; " + "; ".join(extra)
        row["details"] = {**(row["details"] or {}), "found": _plain(c)}
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _plain(c: dict) -> dict:
    return {k: v for k, v in c.items() if k != "sentence"}
