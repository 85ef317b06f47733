"""Error and warning types of metaeval, and the interface their fixes are written for.

A fix names an option the way the user sets it: ``out_of_scale='clip'`` (the keyword) in Python,
``--out-of-scale clip`` (the flag) on the command line, ``out_of_scale = "clip"`` (the key, in its
``[data.NAME]`` section) in a study file. Messages are written once, with Python keywords; the
interface in use (:func:`interface`, a context variable that the command line and the study runner
set) rewrites them through one table, :data:`OPTIONS` (:func:`render`). An :class:`InputError` is
rendered when it is raised, so the message says what to change where the user works.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Mapping

__all__ = ["InputError", "MetaevalWarning", "SmallSampleWarning", "UndefinedStatisticWarning", "ConvergenceWarning", "OPTIONS", "FLAGS",
           "interface", "current_interface", "render"]

#: Every option a fix may name: the library's keyword → (the command line's flag, the study file's key).
#: Where that key lives in a study is not written here: :data:`OPTIONS` reads it from the study schema
#: (``metaeval.output.study_schema.SCHEMA``), the one declaration of the study file's sections.
FLAGS: dict[str, tuple[str, str]] = {
    "on": ("--on", "on"), "item": ("--on", "on"), "label": ("--label", "label"),
    "scale": ("--scale", "scale"), "out_of_scale": ("--out-of-scale", "out_of_scale"),
    "duplicates": ("--duplicates", "duplicates"), "refusal_flag": ("--refusal-flag", "refusal_flag"),
    "refusals": ("--refusals", "refusals"), "unjudged": ("--unjudged", "unjudged"),
    "engine": ("--engine", "engine"), "cluster": ("--cluster", "cluster"),
    "n_resamples": ("--n-resamples", "n_resamples"), "seed": ("--seed", "seed"),
    "rng": ("--seed", "seed"), "ci_method": ("--ci-method", "ci_method"),
    "alpha": ("--alpha", "alpha"), "confidence_level": ("--confidence-level", "confidence_level"),
}


def _sections(key: str) -> tuple[str, ...]:
    """The study sections (``SCHEMA``'s names: ``study``, ``analysis``, ``data:KIND``, ``analysis:TYPE``)
    that hold ``key``."""
    from ..output.study_schema import SCHEMA  # lazily: core imports nothing above it at import time

    return tuple(name for name, keys in SCHEMA.items() if key in keys)


def _place(sections) -> str | None:
    """The usual place of a key held by ``sections``: a ``[data.NAME]`` table, else an ``[[analysis]]``
    entry, else the top of the study file (None: not a study key)."""
    if any(s.startswith("data:") for s in sections):
        return "data"
    if any(s == "analysis" or s.startswith("analysis:") for s in sections):
        return "analysis"
    return "study" if "study" in sections else None


class _Options(Mapping):
    """:data:`FLAGS` with each key's place read from the study schema when first used."""

    def __init__(self):
        self._table = None

    def _build(self) -> dict:
        if self._table is None:
            table = {}
            for kw, (flag, key) in FLAGS.items():
                place = _place(_sections(key))
                table[kw] = (flag, key if place else None, place)
            self._table = table
        return self._table

    def __getitem__(self, kw):
        return self._build()[kw]

    def __iter__(self):
        return iter(FLAGS)

    def __len__(self):
        return len(FLAGS)

    def __repr__(self):
        return repr(self._build())


#: Every option a fix may name: the library's keyword → (the command line's flag, the study file's key,
#: where that key usually lives in a study: ``"data"`` the ``[data.NAME]`` section, ``"analysis"`` the
#: ``[[analysis]]`` entry, ``"study"`` the top of the file; None: not a study key). Derived from
#: :data:`FLAGS` and the study schema; a fix raised inside an analysis whose type has the key itself
#: (``scale`` of a ``panel``) names that analysis entry (:func:`render`).
OPTIONS: Mapping[str, tuple[str, str | None, str | None]] = _Options()

_INTERFACES = ("python", "cli", "study")
_CURRENT: contextvars.ContextVar[tuple[str, dict]] = contextvars.ContextVar("metaeval_interface",
                                                                             default=("python", {}))
_QUOTED = r"(?:'[^']*'|\"[^\"]*\")"
_KEYWORD_RE = re.compile(
    r"(?<![\w.\-])(?P<kw>" + "|".join(sorted(FLAGS, key=len, reverse=True)) + r")="
    r"(?:\((?P<tup>[^()]*)\)|(?P<q>" + _QUOTED + r")(?P<alts>(?:,\s*" + _QUOTED + r"|\s+or\s+" + _QUOTED + r")*)"
    r"|(?P<bare>[\w.\-]+))?")


@contextlib.contextmanager
def interface(name: str, **where):
    """Write the fixes of the messages raised inside for one interface.

    Parameters
    ----------
    name : {"python", "cli", "study"}
        Who the user is talking to: the Python library (keywords), the command line (flags) or a
        study file (TOML keys).
    **where
        For a study: ``data="NAME"`` while the data set ``[data.NAME]`` loads, ``analysis="NAME"``
        while an analysis runs (named in the fix next to the key).

    Yields
    ------
    None

    Examples
    --------
    >>> from metaeval.core.errors import InputError, interface
    >>> with interface("study", data="llmjudge"):
    ...     print(InputError("label 5 is outside the scale", fix="pass out_of_scale='clip' or 'drop'").fix)
    set out_of_scale = "clip" or "drop" in [data.llmjudge]
    """
    if name not in _INTERFACES:
        raise ValueError(f"interface must be one of {_INTERFACES}, got {name!r}")
    outer = _CURRENT.get()
    if name == outer[0]:
        where = {**outer[1], **where}
    token = _CURRENT.set((name, where))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_interface() -> str:
    """The interface messages are written for now: ``"python"`` unless :func:`interface` says otherwise.

    Returns
    -------
    str

    Examples
    --------
    >>> from metaeval.core.errors import current_interface, interface
    >>> with interface("cli"):
    ...     current_interface()
    'cli'
    >>> current_interface()
    'python'
    """
    return _CURRENT.get()[0]


def _values(m) -> list[str]:
    if m.group("tup") is not None:
        return [v.strip().strip("'\"") for v in m.group("tup").split(",") if v.strip()]
    if m.group("q") is not None:
        return [m.group("q")[1:-1]]
    return [m.group("bare")] if m.group("bare") else []


def _toml(v: str) -> str:
    try:
        float(v)
        return v
    except ValueError:
        return "true" if v == "True" else "false" if v == "False" else f'"{v}"'


def _place_in(key: str, usual: str, where: dict) -> str:
    """Where a study key is set in the context of a message: the data set being loaded when the key is
    one of a data section; else the analysis running when its type (``where["type"]``, or any type
    when unknown) has the key; else the key's usual place."""
    sections = _sections(key)
    if "data" in where and any(s.startswith("data:") for s in sections):
        return "data"
    if "analysis" in where:
        kind = where.get("type")
        mine = ("analysis", f"analysis:{kind}") if kind else None
        if any(s in mine if mine else (s == "analysis" or s.startswith("analysis:")) for s in sections):
            return "analysis"
    return usual


def render(text: str, name: str | None = None) -> str:
    """A message with its Python keywords written for the interface in use.

    Parameters
    ----------
    text : str
        A message written with the library's keywords (``pass out_of_scale='clip'``).
    name : {"python", "cli", "study"}, optional
        The interface (default: the current one, :func:`interface`).

    Returns
    -------
    str
        Python: unchanged. Command line: each ``keyword=value`` of :data:`OPTIONS` as ``--flag value``
        (tuples as comma-separated values, quotes removed). Study: ``key = value`` in TOML syntax,
        followed by the section it belongs in; a leading "pass" becomes "set". Keywords that are not
        options of that interface stay as they are.

    Examples
    --------
    >>> from metaeval.core.errors import render
    >>> render("Fix: pass out_of_scale='clip', 'drop' or 'missing' to choose a policy", "cli")
    'Fix: pass --out-of-scale clip, drop or missing to choose a policy'
    >>> render("columns qid, docno, rel: pass on=('qid', 'docno'), label='rel'", "cli")
    'columns qid, docno, rel: pass --on qid,docno --label rel'
    >>> render("pass out_of_scale='clip', 'drop' or 'missing' to choose a policy", "study")
    'set out_of_scale = "clip", "drop" or "missing" in [data.NAME] to choose a policy'
    >>> render("pass scale=(0, 1, 2, 3)", "study")
    'set scale = [0, 1, 2, 3] in [data.NAME]'
    >>> render("pass scale=(0, 1, 2, 3) and out_of_scale='clip'", "study")
    'set scale = [0, 1, 2, 3] and out_of_scale = "clip" in [data.NAME]'
    """
    iface, where = (_CURRENT.get() if name is None else (name, _CURRENT.get()[1] if name == current_interface() else {}))
    if iface == "python" or not text:
        return text
    if iface == "cli":
        def repl(m):
            flag = OPTIONS[m.group("kw")][0]
            if m.group("tup") is not None:
                value = ",".join(_values(m))
            elif m.group("q") is not None:
                value = m.group("q")[1:-1] + re.sub(r"['\"]", "", m.group("alts") or "")
            else:
                value = m.group("bare") or ""
            return f"{flag} {value}" if value else flag

        out = _KEYWORD_RE.sub(repl, text)
        return re.sub(r"(--[\w-]+ [^\s,]+(?:,[^\s,]+)*), (?=--)", r"\1 ", out)

    def repl_study(m):
        _, key, place = OPTIONS[m.group("kw")]
        if key is None:
            return m.group(0)
        place = _place_in(key, place, where)
        if m.group("tup") is not None:
            value = "[" + ", ".join(_toml(v) for v in _values(m)) + "]"
        elif m.group("q") is not None:
            alts = re.sub(r"'([^']*)'", r'"\1"', m.group("alts") or "")
            value = _toml(m.group("q")[1:-1]) + alts
        else:
            value = _toml(m.group("bare")) if m.group("bare") else "..."
        section = {"data": f"[data.{where.get('data', 'NAME')}]",
                   "analysis": (f"the [[analysis]] entry {where['analysis']!r}" if "analysis" in where
                                else "its [[analysis]] entry"),
                   "study": None}[place]
        return f"{key} = {value} " + (f"in {section}" if section else "at the top of the study file")

    out = _KEYWORD_RE.sub(repl_study, text)
    if out != text:
        out = re.sub(r"\bpass (?=[\w]+ = )", "set ", out)
        for where_ in set(re.findall(r" (in \[data\.[^\]]*\]|in the \[\[analysis\]\] entry '[^']*'|in its \[\[analysis\]\] "
                                     r"entry|at the top of the study file)", out)):
            n = out.count(" " + where_)       # one section named once, after the last of its keys
            out = out.replace(" " + where_, "", n - 1)
    return out



def _shorten(text: str, width: int = 80) -> str:
    text = text.replace("\r", "\\r").replace("\t", "\\t")
    return text if len(text) <= width else text[: width - 3] + "..."


class InputError(ValueError):
    """Bad input data: names the file and line, shows the text, says what was expected and the fix.

    Parameters
    ----------
    problem : str
        What is wrong, in one phrase.
    source : str or path, optional
        The file (or ``"<DataFrame>"``) the problem was found in.
    line : int, optional
        1-based line number.
    text : str, optional
        The offending text (cut to 80 characters).
    expected : str, optional
        What was expected there.
    fix : str, optional
        How to fix it, with the library's keywords (``pass out_of_scale='clip'``): written for the
        interface in use (:func:`render`).

    Attributes
    ----------
    source : str or None
        The file (or ``"<DataFrame>"``) the problem was found in.
    line : int or None
        1-based line number (for tables with a header, the header is line 1).
    text : str or None
        The offending text, cut short.
    expected : str or None
        What was expected there.
    fix : str or None
        How to fix it.

    Examples
    --------
    >>> from metaeval import InputError
    >>> print(InputError("relevance is not a number", source="qrels.txt", line=3, text="1 0 d1 x",
    ...                  expected="an integer label", fix="remove the line or correct the label"))
    qrels.txt, line 3: relevance is not a number: '1 0 d1 x'. Expected an integer label. Fix: remove the line or correct the label
    """

    def __init__(self, problem: str, *, source=None, line=None, text=None, expected=None, fix=None):
        # written for the interface in use when it is raised (Python keywords, CLI flags, study keys)
        self.problem = render(problem)
        self.source = None if source is None else str(source)
        self.line = line
        self.text = None if text is None else _shorten(str(text))
        self.expected = None if expected is None else render(expected)
        self.fix = None if fix is None else render(fix)
        super().__init__(self._message())

    def _message(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f", line {self.line}"
        msg = f"{where}: {self.problem}"
        if self.text is not None:
            msg += f": {self.text!r}"
        if self.expected:
            msg += f". Expected {self.expected}"
        if self.fix:
            msg += f". Fix: {self.fix}"
        return msg


class MetaevalWarning(UserWarning):
    """Base class of metaeval's warnings (filter them all with one ``warnings`` filter).

    Examples
    --------
    >>> import warnings, metaeval
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", metaeval.MetaevalWarning)
    ...     try:
    ...         metaeval.cohen_kappa(table=[[30, 0], [0, 0]], ci_method=None)
    ...     except metaeval.MetaevalWarning as w:
    ...         print(type(w).__name__)
    UndefinedStatisticWarning
    """


class SmallSampleWarning(MetaevalWarning):
    """A group or sample is too small for the statistic to mean much.

    Raised, for example, by a cluster bootstrap over fewer clusters than its measured coverage
    supports (``metaeval.core.resample.MIN_CLUSTERS``).

    Examples
    --------
    >>> import numpy as np, warnings, metaeval
    >>> per_topic = np.array([[[5, 1], [1, 5]], [[4, 2], [1, 6]], [[6, 0], [2, 4]]])
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = metaeval.cohen_kappa(table=per_topic, n_resamples=50, rng=0)
    >>> any(issubclass(x.category, metaeval.SmallSampleWarning) for x in w)
    True
    """


class UndefinedStatisticWarning(MetaevalWarning):
    """A statistic is undefined on this data (for example kappa on a one-class sample); it is NaN.

    Examples
    --------
    >>> import warnings, metaeval
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     k = metaeval.cohen_kappa(table=[[30, 0], [0, 0]], ci_method=None)
    >>> k.estimate, w[0].category.__name__
    (nan, 'UndefinedStatisticWarning')
    """


class ConvergenceWarning(MetaevalWarning):
    """An iterative fit (Dawid–Skene, GLAD, ...) stopped at its iteration limit before it converged.

    The result is the last iterate; raise ``n_iter`` (or loosen ``tol``) and compare.

    Examples
    --------
    >>> import warnings, metaeval
    >>> labels = [[0, 0, 1], [1, 1, 1], [1, 0, 1], [0, 0, 0], [1, 1, 0], [0, 1, 0]]   # items × judges
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     _ = metaeval.jury(labels, method="dawid_skene", n_iter=1)
    >>> any(issubclass(x.category, metaeval.ConvergenceWarning) for x in w)
    True
    """
