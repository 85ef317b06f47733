"""Agreement weights (compatibility module): the named schemes now live in :mod:`metaeval.core.weights`.

The weight schemes moved next to the statistics registry (:mod:`metaeval.core.registry`), which
resolves a statistic's default weights by name; ``metaeval.agreement.weights`` keeps importing the
same objects for code written against metaeval 0.1.

Examples
--------
>>> from metaeval.agreement.weights import weight_matrix
>>> from metaeval.core import weights
>>> weight_matrix is weights.weight_matrix
True
"""

from __future__ import annotations

from ..core.weights import KRIPPENDORFF_LEVELS, WEIGHT_SCHEMES, krippendorff_weights, weight_matrix

__all__ = ["weight_matrix", "krippendorff_weights", "WEIGHT_SCHEMES", "KRIPPENDORFF_LEVELS"]
