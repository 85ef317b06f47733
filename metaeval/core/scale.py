"""Label scales: the levels a rater may use, their kind, and binarization."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InputError

__all__ = ["Scale"]

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

    Examples
    --------
    >>> s = Scale((0, 1, 2, 3))
    >>> s.binarize(2).levels, s.binarize(2).map([0, 1, 2, 3]).tolist()
    ((0, 1), [0, 0, 1, 1])
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

    def contains(self, values) -> np.ndarray:
        """Boolean mask: which values are levels of the scale (NaN is not, and is not out of scale)."""
        vals = np.asarray(values, dtype=object if self.kind == "nominal" else float)
        return np.isin(vals, np.asarray(self.levels, dtype=vals.dtype))

    def out_of_scale(self, values) -> np.ndarray:
        """Boolean mask of present (non-missing) values that are not levels."""
        vals = np.asarray(values, dtype=float)
        return ~np.isnan(vals) & ~self.contains(vals)

    def clip(self, values) -> np.ndarray:
        """Clip numeric values into [min level, max level] (the LLMJudge paper's policy)."""
        vals = np.asarray(values, dtype=float)
        return np.clip(vals, min(self.levels), max(self.levels))

    def codes(self, values) -> np.ndarray:
        """Integer codes 0..K-1 of the values (-1 for missing or out-of-scale values)."""
        vals = np.asarray(values, dtype=float)
        lv = np.asarray(self.levels, dtype=float)
        order = np.argsort(lv)
        pos = np.searchsorted(lv[order], vals)
        pos = np.clip(pos, 0, len(lv) - 1)
        hit = lv[order][pos] == vals
        return np.where(hit, order[pos], -1).astype(np.int64)

    def binarize(self, threshold, names=("not relevant", "relevant")) -> Scale:
        """The binary scale ``label >= threshold`` (UMBRELA merges 0-1 and 2-3 with ``threshold=2``)."""
        if self.kind == "nominal":
            raise ValueError("a nominal scale has no order to binarize by threshold; use map()")
        if not (min(self.levels) < threshold <= max(self.levels)):
            raise ValueError(f"threshold must lie in ({min(self.levels)}, {max(self.levels)}], got {threshold!r}")
        mapping = {v: int(v >= threshold) for v in self.levels}
        return Scale((0, 1), kind="nominal", names=names, _mapping=mapping)

    def thresholds(self) -> list:
        """Every binarization threshold of an ordinal scale (for 0-3: 1, 2, 3, i.e. 0|123, 01|23, 012|3)."""
        return list(self.levels[1:])

    def merge(self, mapping: Mapping, *, kind: str | None = None, names: Sequence[str] | None = None) -> Scale:
        """A coarser scale given by a map from every level to a new level."""
        missing = [v for v in self.levels if v not in mapping]
        if missing:
            raise ValueError(f"mapping does not cover the levels {missing!r}")
        new = tuple(sorted(set(mapping.values())))
        return Scale(new, kind=kind or self.kind, names=names, _mapping=dict(mapping))

    def map(self, values) -> np.ndarray:
        """Map parent-scale labels through this scale's mapping (NaN stays NaN)."""
        if self._mapping is None:
            return np.asarray(values, dtype=float)
        vals = np.asarray(values, dtype=float)
        out = np.full(vals.shape, np.nan)
        for src, dst in self._mapping.items():
            out[vals == src] = dst
        return out

    @classmethod
    def infer(cls, *arrays, kind: str = "ordinal") -> Scale:
        """The scale of the distinct non-missing values seen in the arrays."""
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
