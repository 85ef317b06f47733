"""Label scales: the levels a rater may use, their kind, and binarization."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError

__all__ = ["Scale", "infer_from_pairs"]

_KINDS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class Scale:
    """The declared levels of a label scale.

    Parameters
    ----------
    levels : sequence of numbers
        The allowed labels, in order (e.g. ``(0, 1, 2, 3)`` for TREC DL graded relevance).
    kind : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement; decides the default weights and Krippendorff's distance.
    names : sequence of str, optional
        A display name for each level.

    Raises
    ------
    ValueError
        Fewer than two levels, repeated levels, an unknown kind, or levels of an ordered scale that
        do not increase.

    Notes
    -----
    Labels are handled as floats (so that a missing label is NaN): :meth:`map` and the readers
    return float arrays, and ``2.0`` is level ``2``.

    References
    ----------
    Stevens, S. S. (1946). On the theory of scales of measurement. Science 103, 677–680 (the four
    kinds). Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability (the distance of
    each kind). Checked in tests/test_scale_datasets.py.

    Examples
    --------
    TREC DL's graded relevance, and UMBRELA's binary relevance (2 and 3 relevant):

    >>> s = Scale((0, 1, 2, 3))
    >>> s.k, s.labels, s.thresholds()
    (4, ('0', '1', '2', '3'), [1, 2, 3])
    >>> b = s.binarize(2)
    >>> b.levels, b.map([0, 1, 2, 3]).tolist()
    ((0, 1), [0.0, 0.0, 1.0, 1.0])
    >>> s.out_of_scale([0, 5, float("nan")]).tolist()
    [False, True, False]
    """

    levels: tuple = (0, 1, 2, 3)
    kind: str = "ordinal"
    names: tuple | None = None
    _mapping: Mapping | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        levels = tuple(self.levels)
        if len(levels) < 2:
            raise ValueError(f"Scale needs at least two levels, got {levels!r}")
        if len(set(levels)) != len(levels):
            raise ValueError(f"Scale levels must be distinct, got {levels!r}")
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {self.kind!r}")
        if self.kind != "nominal" and list(levels) != sorted(levels):
            raise ValueError(f"levels of an {self.kind} scale must be increasing, got {levels!r}")
        object.__setattr__(self, "levels", levels)
        if self.names is not None:
            names = tuple(str(n) for n in self.names)
            if len(names) != len(levels):
                raise ValueError(f"names has {len(names)} entries for {len(levels)} levels")
            object.__setattr__(self, "names", names)

    @property
    def k(self) -> int:
        """Number of levels."""
        return len(self.levels)

    @property
    def labels(self) -> tuple[str, ...]:
        """Display names (the names if given, else the levels as text)."""
        return self.names if self.names is not None else tuple(_fmt(v) for v in self.levels)

    @property
    def mapping(self) -> Mapping | None:
        """For a derived scale (binarized or mapped), the map from parent labels to these levels."""
        return self._mapping

    def contains(self, values: ArrayLike) -> np.ndarray:
        """Boolean mask: which values are levels of the scale (NaN is not, and is not out of scale).

        Parameters
        ----------
        values : array-like
            Labels.

        Returns
        -------
        numpy.ndarray of bool

        Examples
        --------
        >>> Scale((0, 1, 2, 3)).contains([0, 2.0, 5, float("nan")]).tolist()
        [True, True, False, False]
        """
        vals = np.asarray(values, dtype=object if self.kind == "nominal" else float)
        return np.isin(vals, np.asarray(self.levels, dtype=vals.dtype))

    def out_of_scale(self, values: ArrayLike) -> np.ndarray:
        """Boolean mask of present (non-missing) values that are not levels.

        Parameters
        ----------
        values : array-like of numbers
            Labels (NaN = missing).

        Returns
        -------
        numpy.ndarray of bool

        Examples
        --------
        >>> Scale((0, 1, 2, 3)).out_of_scale([0, 5, float("nan"), 10]).tolist()   # LLMJudge's 5 and 10
        [False, True, False, True]
        """
        vals = np.asarray(values, dtype=float)
        return ~np.isnan(vals) & ~self.contains(vals)

    def clip(self, values: ArrayLike) -> np.ndarray:
        """Clip numeric values into [min level, max level] (the LLMJudge paper's policy).

        Parameters
        ----------
        values : array-like of numbers
            Labels.

        Returns
        -------
        numpy.ndarray of float

        Examples
        --------
        >>> Scale((0, 1, 2, 3)).clip([5, -1, 2]).tolist()
        [3.0, 0.0, 2.0]
        """
        vals = np.asarray(values, dtype=float)
        return np.clip(vals, min(self.levels), max(self.levels))

    def codes(self, values: ArrayLike) -> np.ndarray:
        """Integer codes 0..K-1 of the values (-1 for missing or out-of-scale values).

        Parameters
        ----------
        values : array-like of numbers
            Labels.

        Returns
        -------
        numpy.ndarray of int64
            The position of each value among the levels.

        Examples
        --------
        >>> Scale((1, 2, 3, 4, 5)).codes([5, 1, 7, float("nan")]).tolist()
        [4, 0, -1, -1]
        """
        vals = np.asarray(values, dtype=float)
        lv = np.asarray(self.levels, dtype=float)
        order = np.argsort(lv)
        pos = np.searchsorted(lv[order], vals)
        pos = np.clip(pos, 0, len(lv) - 1)
        hit = lv[order][pos] == vals
        return np.where(hit, order[pos], -1).astype(np.int64)

    def binarize(self, threshold: float, names: Sequence[str] = ("not relevant", "relevant")) -> Scale:
        """The binary scale ``label >= threshold`` (UMBRELA merges 0-1 and 2-3 with ``threshold=2``).

        Parameters
        ----------
        threshold : number
            Levels at or above it map to 1; it must lie above the lowest level.
        names : (str, str)
            Display names of 0 and 1.

        Returns
        -------
        Scale
            A nominal (0, 1) scale whose :attr:`mapping` maps each level of this one.

        Examples
        --------
        >>> Scale((0, 1, 2, 3)).binarize(2).mapping
        {0: 0, 1: 0, 2: 1, 3: 1}
        """
        if self.kind == "nominal":
            raise ValueError("a nominal scale has no order to binarize by threshold; use map()")
        if not (min(self.levels) < threshold <= max(self.levels)):
            raise ValueError(f"threshold must lie in ({min(self.levels)}, {max(self.levels)}], got {threshold!r}")
        mapping = {v: int(v >= threshold) for v in self.levels}
        return Scale((0, 1), kind="nominal", names=names, _mapping=mapping)

    def thresholds(self) -> list:
        """Every binarization threshold of an ordinal scale (for 0-3: 1, 2, 3, i.e. 0|123, 01|23, 012|3).

        Returns
        -------
        list
            The levels above the lowest.

        Examples
        --------
        >>> Scale((0, 1, 2, 3)).thresholds()
        [1, 2, 3]
        """
        return list(self.levels[1:])

    def merge(self, mapping: Mapping, *, kind: str | None = None, names: Sequence[str] | None = None) -> Scale:
        """A coarser scale given by a map from every level to a new level.

        Parameters
        ----------
        mapping : mapping
            Every level of this scale → its new level.
        kind : str, optional
            The new scale's kind (default: this one's).
        names : sequence of str, optional
            Display names of the new levels.

        Returns
        -------
        Scale

        Examples
        --------
        >>> m = Scale((0, 1, 2, 3)).merge({0: 0, 1: 0, 2: 1, 3: 2})
        >>> m.levels, m.map([1, 3]).tolist()
        ((0, 1, 2), [0.0, 2.0])
        """
        missing = [v for v in self.levels if v not in mapping]
        if missing:
            raise ValueError(f"mapping does not cover the levels {missing!r}")
        new = tuple(sorted(set(mapping.values())))
        return Scale(new, kind=kind or self.kind, names=names, _mapping=dict(mapping))

    def map(self, values: ArrayLike) -> np.ndarray:
        """Map parent-scale labels through this scale's mapping (NaN stays NaN).

        Parameters
        ----------
        values : array-like of numbers
            Labels on the parent scale (the one this scale was derived from).

        Returns
        -------
        numpy.ndarray of float
            The mapped labels (the values as floats when this scale has no mapping).

        Examples
        --------
        >>> Scale((0, 1, 2, 3)).binarize(2).map([3, float("nan"), 1]).tolist()
        [1.0, nan, 0.0]
        """
        if self._mapping is None:
            return np.asarray(values, dtype=float)
        vals = np.asarray(values, dtype=float)
        out = np.full(vals.shape, np.nan)
        for src, dst in self._mapping.items():
            out[vals == src] = dst
        return out

    @classmethod
    def infer(cls, *arrays: ArrayLike, kind: str = "ordinal") -> Scale:
        """The scale of the distinct non-missing values seen in the arrays.

        Parameters
        ----------
        *arrays : array-like of numbers
            Labels.
        kind : str
            The kind of the scale.

        Returns
        -------
        Scale
            A one-value sample gets a second level (value + 1), so that a scale exists.

        Examples
        --------
        >>> Scale.infer([3, 1, float("nan")], [2, 1]).levels
        (1, 2, 3)
        """
        vals = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays])
        levels = np.unique(vals[~np.isnan(vals)])
        if len(levels) == 1:
            levels = np.array([levels[0], levels[0] + 1])
        if len(levels) == 0:
            raise InputError("no labels to infer a scale from")
        return cls(tuple(_num(v) for v in levels), kind=kind)


def _num(v):
    f = float(v)
    return int(f) if f.is_integer() else f


def _fmt(v) -> str:
    return str(_num(v)) if isinstance(v, (int, float, np.integer, np.floating)) else str(v)


def infer_from_pairs(reference: ArrayLike, candidate: ArrayLike, *, names=("reference", "candidate"),
                     counts: ArrayLike | None = None) -> Scale:
    """The scale of aligned pairs when none was declared, with a warning when the two sides' label sets differ.

    Without a declared scale every label seen becomes a level, so a label only one side uses (an
    out-of-range 5 of a judge on a 0–3 scale, a grade the judge never gives) silently becomes its own
    category. This warns, naming the labels only one side uses, how many pairs carry each, and the
    fix: declare the scale (``scale=`` in Python, ``--scale`` on the command line, ``scale = [...]``
    in the study's ``[data.NAME]`` section), with ``out_of_scale=`` for the labels outside it.

    Parameters
    ----------
    reference, candidate : array-like of numbers
        The two sides' labels of the aligned pairs (NaN: no label).
    names : (str, str)
        The two sides' names, as the alignment report names them.
    counts : array-like, optional
        How many pairs each entry stands for (the DuckDB and Spark engines pass label-pair counts).

    Returns
    -------
    Scale
        :meth:`Scale.infer` of both sides (an ordinal scale of every label seen).

    Warns
    -----
    MetaevalWarning
        When a label is used by one side only (whole-number labels only: fractional scores, such as
        means of several samples, are not categories and do not warn).

    Examples
    --------
    LLMJudge's RMITIR-llama70B labels two passages 5 on the 0–3 scale:

    >>> import warnings
    >>> from metaeval.core.scale import infer_from_pairs
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     sc = infer_from_pairs([0, 1, 2, 3, 3], [0, 1, 5, 5, 3], names=("human", "judge"))
    >>> sc.levels
    (0, 1, 2, 3, 5)
    >>> print(w[0].message)  # doctest: +NORMALIZE_WHITESPACE
    no scale was declared, so the labels seen make the scale (0, 1, 2, 3, 5) and a label only one side
    uses is a category of its own: judge uses 5 (2 pairs), which human never uses; human uses 2
    (1 pair), which judge never uses. Fix: if the levels are those of human, pass scale=(0, 1, 2, 3) and
    out_of_scale='clip' or 'drop' for the labels outside it
    """
    import warnings

    from .errors import MetaevalWarning, render

    r = np.asarray(reference, dtype=float).ravel()
    c = np.asarray(candidate, dtype=float).ravel()
    scale = Scale.infer(r, c)
    w = np.ones(len(r)) if counts is None else np.asarray(counts, dtype=float).ravel()

    def used(x):
        ok = ~np.isnan(x)
        vals, inv = np.unique(x[ok], return_inverse=True)
        return {_num(v): float(n) for v, n in zip(vals, np.bincount(inv.ravel(), weights=w[ok], minlength=len(vals)))}

    vals = np.concatenate([r, c])
    vals = vals[~np.isnan(vals)]
    if not np.all(vals == np.round(vals)):
        return scale             # fractional scores (means of several samples): not categories to compare
    ur, uc = used(r), used(c)
    only = [(names[1], names[0], {v: n for v, n in uc.items() if v not in ur}),
            (names[0], names[1], {v: n for v, n in ur.items() if v not in uc})]
    parts = []
    for side, other, labels in only:
        if labels:
            which = ", ".join(f"{v} ({int(n)} pair{'s' if n != 1 else ''})" for v, n in sorted(labels.items()))
            parts.append(f"{side} uses {which}, which {other} never uses")
    if not parts or not ur:
        return scale
    ref_levels = tuple(sorted(ur))
    if only[0][2] and len(ref_levels) >= 2:
        fix = (f"if the levels are those of {names[0]}, pass scale={ref_levels!r} and out_of_scale='clip' or 'drop' "
               "for the labels outside it")
    else:
        fix = f"declare the levels both sides may use: pass scale={scale.levels!r}"
    msg = (f"no scale was declared, so the labels seen make the scale {scale.levels!r} and a label only one side uses "
           f"is a category of its own: {'; '.join(parts)}. Fix: {fix}")
    from .resample import _user_stacklevel

    warnings.warn(render(msg), MetaevalWarning, stacklevel=_user_stacklevel())
    return scale
