"""Result objects shared by every statistic: an estimate, its interval, and how it was obtained."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["ConfidenceInterval", "Estimate", "ResultSet", "FRAME_COLUMNS"]

#: The fixed column schema of ``to_frame()`` across the package (group columns come first).
FRAME_COLUMNS = ["statistic", "estimate", "ci_low", "ci_high", "confidence_level", "ci_method", "se",
                 "bias", "pvalue", "n", "unit", "n_units", "n_resamples", "seed"]


@dataclass(frozen=True)
class ConfidenceInterval:
    """``low``, ``high``, the confidence ``level`` and the ``method`` that produced them."""

    low: float
    high: float
    level: float
    method: str

    def __iter__(self):
        return iter((self.low, self.high))

    def contains(self, value) -> bool:
        return bool(self.low <= value <= self.high)

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class Estimate:
    """One statistic with its interval.

    Attributes
    ----------
    statistic : str
        What was computed, e.g. ``"cohen_kappa"`` or ``"recall[2]"``.
    estimate : float
    ci : ConfidenceInterval
    se : float
        Standard error (bootstrap SD of the replicates, or the analytic SE).
    bias : float
        Bootstrap bias: mean of the replicates minus the estimate (NaN for analytic intervals).
    pvalue : float or None
        Where a test applies (e.g. the z-test of kappa = 0, or a paired difference = 0).
    n : int
        Number of items (pairs, judgments) the estimate is based on.
    unit : str
        The resampling unit: ``"items"``, ``"clusters"`` or ``"strata"`` (``"none"`` for analytic).
    n_units : int
        Number of resampled units (items, or clusters).
    n_resamples : int
    seed : int or None
        The seed that reproduces the replicates.
    replicates : numpy.ndarray or None
        The bootstrap distribution (kept for plots).
    extra : dict
        Statistic-specific figures (e.g. ``se0`` for the H0 standard error, ``z0`` and ``a`` for BCa).
    """

    statistic: str
    estimate: float
    ci: ConfidenceInterval
    se: float = float("nan")
    bias: float = float("nan")
    pvalue: float | None = None
    n: int = 0
    unit: str = "items"
    n_units: int = 0
    n_resamples: int = 0
    seed: int | None = None
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def confidence_level(self) -> float:
        return self.ci.level

    @property
    def method(self) -> str:
        """The interval method (``bca``, ``percentile``, ``basic`` or ``analytic``)."""
        return self.ci.method

    def __float__(self) -> float:
        return float(self.estimate)

    def row(self) -> dict:
        return {"statistic": self.statistic, "estimate": self.estimate, "ci_low": self.ci.low,
                "ci_high": self.ci.high, "confidence_level": self.ci.level, "ci_method": self.ci.method,
                "se": self.se, "bias": self.bias, "pvalue": np.nan if self.pvalue is None else self.pvalue,
                "n": self.n, "unit": self.unit, "n_units": self.n_units, "n_resamples": self.n_resamples,
                "seed": self.seed}

    def to_frame(self) -> pd.DataFrame:
        """One tidy row with the package's fixed columns."""
        return pd.DataFrame([self.row()], columns=FRAME_COLUMNS)

    def __str__(self) -> str:
        p = "" if self.pvalue is None else f", p = {self.pvalue:.4g}"
        return (f"{self.statistic} = {self.estimate:.4f}, {self.ci.level:.0%} {self.ci.method} CI "
                f"[{self.ci.low:.4f}, {self.ci.high:.4f}]{p} (n = {self.n}, {self.unit}: {self.n_units})")


class ResultSet(list):
    """Several estimates (e.g. one per class, threshold or group) with shared ``to_frame()``.

    ``keys`` holds, for each estimate, a dict of identifying columns (``class``, ``threshold``,
    ``group`` ...) that come first in the frame.
    """

    def __init__(self, estimates=(), keys=None, name: str = ""):
        super().__init__(estimates)
        self.keys = list(keys) if keys is not None else [{} for _ in self]
        self.name = name

    def append_with(self, est: Estimate, **key):
        self.append(est)
        self.keys.append(key)

    def to_frame(self) -> pd.DataFrame:
        rows = [{**k, **e.row()} for e, k in zip(self, self.keys)]
        key_cols = []
        for k in self.keys:
            for c in k:
                if c not in key_cols:
                    key_cols.append(c)
        return pd.DataFrame(rows, columns=key_cols + FRAME_COLUMNS)

    def __getitem__(self, item):
        if isinstance(item, str):
            for e in self:
                if e.statistic == item:
                    return e
            raise KeyError(item)
        return super().__getitem__(item)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self)
