"""Escaping of text that leaves the package: one function per output format.

Every writer of :mod:`metaeval.output` passes text that comes from the user's data or study file
(titles, paragraphs, analysis names, model, pair and rater names, ids, labels) through the
function of its format before the text reaches a file:

* :func:`markdown` (and :func:`markdown_cell` inside a table): shown as literal text by CommonMark
  renderers (markdown-it) and by python-markdown: no raw HTML, no emphasis, link, heading or list;
* :func:`html`: text and attribute values of an HTML page;
* :func:`latex`: text set by pdflatex (special characters as commands, non-ASCII characters the
  default fonts lack transliterated, line breaks and tabs as spaces);
* :func:`file_stem`: a name used as a file stem (``tables/<stem>.csv``), a LaTeX ``\\label`` or an
  ``\\input`` path is *validated*, not escaped: letters, digits, ``-``, ``_`` and ``.``, not
  starting with a dot, 1 to :data:`MAX_STEM` characters; anything else is refused;
  :func:`unique_stems` refuses two names that differ only in case (one file on macOS and Windows);
* :func:`mpl_text`: text drawn by matplotlib, where a pair of ``$`` starts mathtext: every ``$`` is
  escaped unless the caller asks for math;
* :func:`visible`: text for a terminal (what the command line prints);
* :func:`csv_cell` and :func:`csv_frame`: cells of ``tables/*.csv`` (OWASP's CSV-injection rule);
* :func:`json_text`: a JSON document whose strings keep their value but hold no raw control character.

In every format, control characters (C0 but line break and tab where the format keeps layout, DEL,
C1 such as ESC and CSI) and invisible format characters that reorder or hide text (the bidirectional
embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F and
U+061C, U+200B, U+2060–U+2064, U+FEFF, the line and paragraph separators U+2028 and U+2029, and the
other characters of Unicode category Cf but the joiners U+200C and U+200D) are shown escaped, as
Python writes them: ``\\x1b``, ``\\u202e`` (:func:`visible`). A name cannot clear a terminal, colour
it, set its title or reorder the text around it (the "Trojan Source" attack, CVE-2021-42574).
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from collections.abc import Iterable

from ..core.errors import InputError

__all__ = ["markdown", "markdown_cell", "html", "latex", "file_stem", "unique_stems", "mpl_text", "STEM_RULE",
           "MAX_STEM", "visible", "csv_cell", "csv_frame", "json_text"]

#: The longest file stem (an analysis name, a table or figure name) accepted.
MAX_STEM = 100
#: The rule a file stem follows, as error messages and the docs state it.
STEM_RULE = (f"letters, digits, '-', '_' and '.' only, not starting with '.', 1 to {MAX_STEM} characters, "
             "unique ignoring case")
_STEM_RE = re.compile(r"[A-Za-z0-9_.\-]+")

# --------------------------------------------------------------------------------------------
# control and bidirectional characters (every format)
# --------------------------------------------------------------------------------------------

# The characters :func:`visible` escapes, as code point ranges: Unicode categories Cc (C0, DEL, C1), Zl,
# Zp, Cs (lone surrogates) and Cf but the joiners U+200C and U+200D (Unicode 14; written out so that
# importing this module stays instant). Line break (U+000A) and tab (U+0009) are kept when layout=True.
_HIDDEN_RANGES = ((0x0, 0x8), (0xB, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
                  (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E),
                  (0x200B, 0x200B), (0x200E, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
                  (0xD800, 0xDFFF), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
                  (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
                  (0xE0020, 0xE007F))
_HIDDEN_CLASS = "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b > a else "") for a, b in _HIDDEN_RANGES)
_HIDDEN_RE = re.compile(f"[{_HIDDEN_CLASS}]")
_HIDDEN_ALL_RE = re.compile(f"[\\n\\t{_HIDDEN_CLASS}]")


def _one_line(text) -> str:
    """``text`` with its line breaks (CR LF, LF, CR) and tabs as spaces."""
    return str(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " ")


def _code(ch: str) -> str:
    o = ord(ch)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or (
        f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")


def visible(text, *, layout: bool = True) -> str:
    r"""``text`` with its control and invisible format characters shown escaped (``\x1b``, ``\u202e``).

    Parameters
    ----------
    text : object
        Converted with ``str``.
    layout : bool
        Keep line breaks (``\n``) and tabs as they are (True, for text printed on several lines), or
        escape them too (False, for a value that must stay on one line).

    Returns
    -------
    str

    References
    ----------
    Unicode Technical Report #36 (security considerations) and #9 (the bidirectional algorithm's
    explicit formatting characters); N. Boucher and R. Anderson, "Trojan Source: Invisible
    Vulnerabilities" (2021, CVE-2021-42574); ECMA-48 (C0 and C1 control functions).

    Examples
    --------
    >>> visible("gpt\x1b[2J-4\u202eabc")
    'gpt\\x1b[2J-4\\u202eabc'
    >>> visible("two\nlines"), visible("two\nlines", layout=False)
    ('two\nlines', 'two\\nlines')
    """
    return (_HIDDEN_RE if layout else _HIDDEN_ALL_RE).sub(lambda m: _code(m.group(0)), str(text))


# --------------------------------------------------------------------------------------------
# CSV and JSON
# --------------------------------------------------------------------------------------------

# OWASP: a cell starting with one of these is a formula in Excel, LibreOffice and Google Sheets
# (full-width forms: what an IME may type; spreadsheets in East Asian locales read them the same way)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value):
    r"""A value for a cell of a CSV file that spreadsheets open: text that starts a formula gets a ``'``.

    Text starting with ``= + - @``, a tab or a carriage return (or their full-width forms) is
    prefixed with a single quote, so Excel, LibreOffice and Google Sheets show it as text instead of
    evaluating it (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``); text that is a plain number
    (``-0.5``, ``+3``, ``1e-3``) is left as it is. Control and invisible format characters are then
    shown escaped (:func:`visible`; line breaks and tabs inside the text stay: CSV quotes them).
    Values that are not text (numbers, booleans, missing values) are returned unchanged.

    Parameters
    ----------
    value : object

    Returns
    -------
    object
        The neutralised text, or ``value`` itself when it is not a ``str``.

    References
    ----------
    OWASP, "CSV Injection" (owasp.org/www-community/attacks/CSV_Injection): prepend a single quote
    to cells beginning with ``=``, ``+``, ``-``, ``@``, tab (0x09) or carriage return (0x0D).

    Examples
    --------
    >>> csv_cell('=HYPERLINK("http://x","y")'), csv_cell("-0.5"), csv_cell(-0.5), csv_cell("gpt-4")
    ('\'=HYPERLINK("http://x","y")', '-0.5', -0.5, 'gpt-4')
    """
    if not isinstance(value, str):
        return value
    s = value
    if s.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(s):
        s = "'" + s
    return visible(s)


def csv_frame(df):
    r"""A copy of a DataFrame whose text cells and column names pass through :func:`csv_cell`.

    Numeric columns are not touched (a negative number is written as a number).

    Parameters
    ----------
    df : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> csv_frame(pd.DataFrame({"model": ["=1+1", "a"], "x": [-1.5, 2.0]})).to_csv(index=False)
    "model,x\n'=1+1,-1.5\na,2.0\n"
    """
    import pandas as pd

    out = df.copy()
    for c in out.columns:
        col = out[c]
        if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
            out[c] = col.map(csv_cell)
    out.columns = [csv_cell(c) for c in out.columns]
    return out


def json_text(text: str) -> str:
    r"""A JSON document (``json.dumps(..., ensure_ascii=False)``) with its hidden characters as ``\uXXXX``.

    The characters :func:`visible` escapes can only stand inside JSON strings; written as JSON
    escapes they parse back to the same value, and the file shows no raw control or bidi character.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> import json
    >>> s = json_text(json.dumps({"name": "a\u202eb"}, ensure_ascii=False))
    >>> s, json.loads(s)["name"] == "a\u202eb"
    ('{"name": "a\\u202eb"}', True)
    """
    def esc(m):
        o = ord(m.group(0))
        if o < 0x10000:
            return f"\\u{o:04x}"
        o -= 0x10000
        return f"\\u{0xd800 + (o >> 10):04x}\\u{0xdc00 + (o & 0x3ff):04x}"
    return _HIDDEN_RE.sub(esc, text)


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
    paragraph, heading or table cell; other control and format characters are shown escaped
    (:func:`visible`).

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
    s = visible(_one_line(text), layout=False).lstrip(" ")
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

    Control and format characters but line breaks and tabs are shown escaped (:func:`visible`).

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
    return _html.escape(visible(str(text).replace("\r\n", "\n")), quote=True)


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
    accent; any other non-ASCII character becomes ``?``; line breaks and tabs become spaces, so a title
    or caption stays one paragraph, and other control and format characters are shown escaped
    (:func:`visible`: ``\\x1b`` is set as ``\\textbackslash{}x1b``).

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
    for ch in visible(_one_line(text), layout=False):
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
    Every ``$`` is escaped, unless ``math=True`` (the caller wrote mathtext on purpose); control and
    format characters but line breaks and tabs are shown escaped (:func:`visible`).

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
    s = visible(str(text).replace("\r\n", "\n"))
    return s if math else s.replace("$", r"\$")
