"""Agreement weights for weighted coefficients (w_ii = 1)."""

from __future__ import annotations

import numpy as np

__all__ = ["weight_matrix"]


def weight_matrix(weights, k: int, levels=None) -> np.ndarray:
    """Agreement weights w (w_ii = 1): None/"identity", "linear", "quadratic", or a K×K matrix.

    Linear: 1 − |i − j|/(K − 1); quadratic: 1 − (i − j)²/(K − 1)² (Cohen 1968), on level *indices*.
    """
    if weights is None or (isinstance(weights, str) and weights in ("identity", "unweighted", "none")):
        return np.eye(k)
    if isinstance(weights, str):
        i, j = np.indices((k, k))
        if weights == "linear":
            return 1 - np.abs(i - j) / (k - 1)
        if weights == "quadratic":
            return 1 - (i - j) ** 2 / (k - 1) ** 2
        raise ValueError(f"weights must be None, 'linear', 'quadratic' or a KxK matrix, got {weights!r}")
    w = np.asarray(weights, dtype=float)
    if w.shape != (k, k):
        raise ValueError(f"weights must be {k}x{k}, got shape {w.shape}")
    if not np.allclose(np.diag(w), 1):
        raise ValueError("agreement weights must have 1 on the diagonal (pass agreement, not disagreement, weights)")
    return w
