"""Error and warning types of metaeval."""

from __future__ import annotations

__all__ = ["InputError", "MetaevalWarning", "SmallSampleWarning", "UndefinedStatisticWarning"]


def _shorten(text: str, width: int = 80) -> str:
    text = text.replace("\r", "\\r").replace("\t", "\\t")
    return text if len(text) <= width else text[: width - 3] + "..."


class InputError(ValueError):
    """Bad input data: names the file and line, shows the text, says what was expected and the fix.

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
    """Base class of metaeval's warnings."""


class SmallSampleWarning(MetaevalWarning):
    """A group or sample is too small for the statistic to mean much."""


class UndefinedStatisticWarning(MetaevalWarning):
    """A statistic is undefined on this data (for example kappa on a one-class sample)."""
