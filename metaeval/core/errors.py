"""Error and warning types of metaeval."""

from __future__ import annotations

__all__ = ["InputError", "MetaevalWarning", "SmallSampleWarning", "UndefinedStatisticWarning"]


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
        How to fix it.

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
        self.problem = problem
        self.source = None if source is None else str(source)
        self.line = line
        self.text = None if text is None else _shorten(str(text))
        self.expected = expected
        self.fix = fix
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
