"""Escaping of text that leaves the package: one function per output format.

Every writer of :mod:`metaeval.output` passes text that comes from the user's data or study file
(titles, paragraphs, analysis names, model, pair and rater names, ids, labels) through the
function of its format before the text reaches a file:

* :func:`markdown` (and :func:`markdown_cell` inside a table): shown as literal text by CommonMark
  renderers (markdown-it) and by python-markdown: no raw HTML, no emphasis, link, heading or list;
* :func:`html`: text and attribute values of an HTML page;
* :func:`latex`: text set by pdflatex (special characters as commands, non-ASCII characters the
  default fonts lack transliterated, control characters as spaces);
* :func:`file_stem`: a name used as a file stem (``tables/<stem>.csv``), a LaTeX ``\\label`` or an
  ``\\input`` path is *validated*, not escaped: letters, digits, ``-``, ``_`` and ``.``, not
  starting with a dot, 1 to :data:`MAX_STEM` characters; anything else is refused;
  :func:`unique_stems` refuses two names that differ only in case (one file on macOS and Windows);
* :func:`mpl_text`: text drawn by matplotlib, where a pair of ``$`` starts mathtext: every ``$`` is
  escaped unless the caller asks for math.
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from collections.abc import Iterable

from ..core.errors import InputError

__all__ = ["markdown", "markdown_cell", "html", "latex", "file_stem", "unique_stems", "mpl_text", "STEM_RULE",
           "MAX_STEM"]

#: The longest file stem (an analysis name, a table or figure name) accepted.
MAX_STEM = 100
#: The rule a file stem follows, as error messages and the docs state it.
STEM_RULE = (f"letters, digits, '-', '_' and '.' only, not starting with '.', 1 to {MAX_STEM} characters, "
             "unique ignoring case")
_STEM_RE = re.compile(r"[A-Za-z0-9_.\-]+")

# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------

# characters python-markdown and CommonMark both unescape after a backslash, special anywhere in a line
# (( ) and ! matter only around [ ], which are escaped; _ only at a word's edge, see markdown())
_MD_BACKSLASH = set("\\`*[]")
# special to one of them and not backslash-escapable in python-markdown (| ends a table cell): entities
_MD_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "&#124;", "~": "&#126;"}
# special at the start of a line only (heading, list item, setext underline, thematic break)
_MD_LEAD = re.compile(r"^(\d*)([#+\-=.])")


def markdown(text, *, _block: bool = True) -> str:
    """``text`` as Markdown that renders as exactly this text (no markup, no HTML).

    HTML's special characters become entities (``<`` → ``&lt;``, ``&`` → ``&amp;``); Markdown's
    inline ones (``\\ ` * [ ]``, and ``_`` unless inside a word) get a backslash (``( ) !`` make a
    link or image only after a ``[`` or ``]``, which are escaped); ``| ~`` become numeric entities
    (python-markdown has no backslash escape for them; ``|`` would end a table cell); a ``# + - = .``
    that would start a heading or a list (first character, or ``.`` after leading digits) is escaped
    too. Line breaks and tabs become spaces and leading spaces are dropped, so the text stays in its
    paragraph, heading or table cell.

    Parameters
    ----------
    text : object
        Converted with ``str``.

    Returns
    -------
    str

    References
    ----------
    CommonMark 0.31, §2.4 (backslash escapes: any ASCII punctuation) and §2.5 (entity references);
    python-markdown's ``ESCAPED_CHARS``. ``tests/test_hostile_output.py`` renders the result with
    markdown-it-py and python-markdown.

    Examples
    --------
    >>> markdown("<script>alert(1)</script> [x](y)")
    '&lt;script&gt;alert(1)&lt;/script&gt; \\\\[x\\\\](y)'
    >>> markdown("# gpt-4 *best* 0.5")
    '\\\\# gpt-4 \\\\*best\\\\* 0.5'
    """
    s = " ".join(str(text).replace("\x00", " ").replace("\t", " ").splitlines()).lstrip(" ")
    out = []
    for i, ch in enumerate(s):
        if ch in _MD_ENTITY:
            out.append(_MD_ENTITY[ch])
        elif ch in _MD_BACKSLASH:
            out.append("\\" + ch)
        elif ch == "_" and not (0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()):
            out.append("\\_")                 # (an _ inside a word, as in cohen_kappa, never emphasises)
        else:
            out.append(ch)
    s = "".join(out)
    m = _MD_LEAD.match(s) if _block else None
    if m and (m.group(2) != "." or m.group(1)) and (m.group(2) == "." or not m.group(1)):
        s = m.group(1) + "\\" + s[len(m.group(1)):]
    return s


def markdown_cell(text) -> str:
    """``text`` for a cell of a Markdown (GFM / python-markdown ``tables``) table: as :func:`markdown`.

    A ``|`` would end the cell: it is an entity (``&#124;``), like every character :func:`markdown`
    escapes, and line breaks are spaces (a row is one line). A cell holds inline text only, so a
    leading ``-`` or ``#`` is left as it is (``-0.5`` stays readable).

    Parameters
    ----------
    text : object

    Returns
    -------
    str

    Examples
    --------
    >>> markdown_cell("a|b"), markdown_cell("-0.5")
    ('a&#124;b', '-0.5')
    """
    return markdown(text, _block=False)


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

def html(text) -> str:
    """``text`` as HTML text or a quoted attribute value: ``& < > " '`` as entities.

    Parameters
    ----------
    text : object

    Returns
    -------
    str

    Examples
    --------
    >>> html('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return _html.escape(str(text).replace("\x00", "\ufffd"), quote=True)


# --------------------------------------------------------------------------------------------
# LaTeX
# --------------------------------------------------------------------------------------------

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
                  # characters the labels and captions use that pdflatex's default fonts lack
                  "κ": r"$\kappa$", "π": r"$\pi$", "α": r"$\alpha$", "τ": r"$\tau$", "ρ": r"$\rho$",
                  "λ": r"$\lambda$", "μ": r"$\mu$", "σ": r"$\sigma$", "β": r"$\beta$", "Δ": r"$\Delta$",
                  "χ": r"$\chi$", "θ": r"$\theta$", "–": "--", "—": "---", "−": "$-$", "×": r"$\times$",
                  "≥": r"$\geq$", "≤": r"$\leq$", "±": r"$\pm$", "→": r"$\rightarrow$", "…": r"\ldots{}",
                  "²": r"\textsuperscript{2}", "’": "'", "‘": "`", "“": "``", "”": "''", "·": r"$\cdot$"}


def latex(text) -> str:
    """``text`` as LaTeX that pdflatex sets as this text (T1 fonts, utf8 input).

    ``\\ & % $ # _ { } ~ ^ < > |`` become commands, and a leading ``[`` a group (``{[}``: after
    ``\\\\`` it would be read as an optional argument); Greek letters and the typographic
    characters of the labels become their math or text commands; other accented letters lose the
    accent; any other non-ASCII character becomes ``?``; control characters (line breaks, NUL, DEL)
    become spaces, so a title or caption stays one paragraph.

    Parameters
    ----------
    text : object

    Returns
    -------
    str

    References
    ----------
    The special characters of LaTeX (Lamport, *LaTeX: A Document Preparation System*, 2nd ed., §3.2.1);
    ``tests/test_report_tex.py`` and ``tests/test_hostile_output.py`` compile the results with pdflatex.

    Examples
    --------
    >>> print(latex(r"ok}\\input{x}% 50% κ"))
    ok\\}\\textbackslash{}input\\{x\\}\\% 50\\% $\\kappa$
    """
    out = []
    for ch in str(text):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(" ")
        elif ord(ch) < 128:
            out.append(ch)
        else:  # accented letters lose the accent; anything else pdflatex cannot set becomes "?"
            plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
            out.append("".join(_LATEX_SPECIAL.get(c, c) for c in plain) or "?")
    s = "".join(out)
    # a leading [ (the first cell of a table row, after \\) would be read as \\'s optional argument
    return "{[}" + s[1:] if s.startswith("[") else s


# --------------------------------------------------------------------------------------------
# file names
# --------------------------------------------------------------------------------------------

def file_stem(name, *, what: str = "name", source: str | None = None, fix: str | None = None) -> str:
    """``name`` if it is a safe file stem (:data:`STEM_RULE`), else an InputError.

    A safe stem names a file inside its folder and nothing else: no ``/`` or ``\\``, no ``..`` path
    (a stem may not start with a dot), no NUL or other control character, no character LaTeX reads
    in ``\\label`` or ``\\input``, at most :data:`MAX_STEM` characters.

    Parameters
    ----------
    name : object
        The candidate (must be a ``str``).
    what : str
        What the name is, for the message (e.g. ``"analysis 'x' (type = 'agreement') at [[analysis]] #2: name"``).
    source : str, optional
        The file named in the message (a study file).
    fix : str, optional
        The fix (default: rename it following the rule).

    Returns
    -------
    str
        ``name``, unchanged.

    Raises
    ------
    InputError
        When ``name`` breaks the rule.

    Examples
    --------
    >>> file_stem("trec_agreement.v2")
    'trec_agreement.v2'
    >>> file_stem("../../x")
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: <input>: name is not a safe file name: '../../x'. Expected letters, digits, '-', '_' and '.' only, not starting with '.', 1 to 100 characters, unique ignoring case. Fix: rename it to e.g. 'x'
    """
    ok = isinstance(name, str) and 0 < len(name) <= MAX_STEM and not name.startswith(".") \
        and _STEM_RE.fullmatch(name) is not None
    if not ok:
        suggestion = re.sub(r"[^A-Za-z0-9_.\-]+", "_", str(name)).strip("._")[:MAX_STEM] or "analysis1"
        raise InputError(f"{what} is not a safe file name", source=source, text=repr(name)[1:-1][:80]
                         if isinstance(name, str) else repr(name), expected=STEM_RULE,
                         fix=fix or f"rename it to e.g. {suggestion!r}")
    return name


def unique_stems(names: Iterable[str], *, what: str = "names", source: str | None = None) -> None:
    """Refuse two equal names, or two that differ only in case (the same file on macOS and Windows).

    Parameters
    ----------
    names : iterable of str
    what : str
        What the names are, for the message.
    source : str, optional
        The file named in the message.

    Raises
    ------
    InputError
        Naming the two clashing names.

    Examples
    --------
    >>> unique_stems(["a", "b"])
    >>> unique_stems(["trec", "TREC"], what="analysis names")
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: <input>: analysis names 'trec' and 'TREC' name the same files (names are compared ignoring case). Fix: rename one of them
    """
    seen: dict[str, str] = {}
    for n in names:
        k = str(n).casefold()
        if k in seen:
            raise InputError(f"{what} {seen[k]!r} and {n!r} name the same files (names are compared ignoring case)",
                             source=source, fix="rename one of them")
        seen[k] = str(n)


# --------------------------------------------------------------------------------------------
# matplotlib
# --------------------------------------------------------------------------------------------

def mpl_text(text, *, math: bool = False) -> str:
    """``text`` for a matplotlib label, title, tick label or annotation, drawn as written.

    Matplotlib reads text between two unescaped ``$`` as mathtext (``a$_$b`` fails to parse,
    ``gpt$4$-turbo`` is set in italics without the dollars); ``\\$`` is a literal dollar sign.
    Every ``$`` is escaped, unless ``math=True`` (the caller wrote mathtext on purpose).

    Parameters
    ----------
    text : object
    math : bool
        Keep ``$`` as mathtext delimiters.

    Returns
    -------
    str

    References
    ----------
    matplotlib's ``Text._preprocess_math`` and ``cbook.is_math_text`` (an even number of unescaped
    dollar signs is mathtext; otherwise ``\\$`` is shown as ``$``).

    Examples
    --------
    >>> mpl_text("gpt$4$-turbo")
    'gpt\\\\$4\\\\$-turbo'
    >>> mpl_text("$\\\\alpha$", math=True)
    '$\\\\alpha$'
    """
    s = str(text)
    return s if math else s.replace("$", r"\$")
