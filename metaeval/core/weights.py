"""Agreement weights for weighted coefficients: irrCAC's named schemes or a K×K matrix (w_ii = 1).

A weighted coefficient credits a pair of labels (k, l) with the agreement weight w_kl ∈ [0, 1]:
w_kk = 1 for exact agreement, less for a near miss. The named schemes are those of Gwet (2014,
ch. 3) as the R package irrCAC (``identity.weights`` … ``bipolar.weights``) and its Python port
compute them, *from the category values* x_1 … x_K:

=========== ================================================================================
scheme      w_kl
=========== ================================================================================
identity    1 if k = l, else 0 (unweighted; aliases ``None``, ``"unweighted"``, ``"none"``)
linear      1 − |x_k − x_l| / (x_max − x_min)
quadratic   1 − (x_k − x_l)² / (x_max − x_min)²
radical     1 − √|x_k − x_l| / √(x_max − x_min)
ratio       1 − [(x_k − x_l)/(x_k + x_l)]² / [(x_max − x_min)/(x_max + x_min)]²
circular    1 − δ_kl / max δ,  δ_kl = sin²(π (x_k − x_l) / (x_max − x_min + 1))
bipolar     1 − δ_kl / max δ,  δ_kl = (x_k − x_l)² / [(x_k + x_l − 2 x_min)(2 x_max − x_k − x_l)]
            (δ_kk = 0)
ordinal     1 − δ_kl / max δ,  δ_kl = m(m − 1)/2 with m = |r_k − r_l| + 1 and r the *ranks*
            1 … K of the values (irrCAC's "ordinal" weights; the values themselves do not matter)
=========== ================================================================================

Category values
---------------
``levels`` gives the values x. When it is omitted the values are the positions 0 … K−1 (1 … K for
``"ratio"``). Every scheme but ``"ratio"`` is unchanged by a shift of the values, so positions
0 … K−1 give exactly irrCAC's weights for the categories 1 … K (what ``irrCAC.table.CAC`` and the
R examples ``quadratic.weights(1:q)`` use); ``"ratio"`` is not shift-invariant and needs positive
values, hence 1 … K there, again as irrCAC's table functions. Non-numeric levels (labels such as
``"relevant"``) also count as positions 1 … K, as in irrCAC. Two differences from irrCAC, both
where irrCAC gives no answer: numeric levels are used in the order given (irrCAC sorts them; the
order of the levels is the order of the table's rows here, so sorting would misalign weights and
cells), and ``"ratio"`` accepts a level 0 (its diagonal weight is 1 and its weight with any other
level is 0, Krippendorff's ratio metric at an absolute zero) where irrCAC refuses a 0 category.
A scale with one level gets the 1×1 matrix [[1]].

Krippendorff's alpha
--------------------
For two raters, Krippendorff's alpha with the distance metric δ equals the agreement coefficient
with weights w = 1 − δ/max δ (alpha is unchanged when δ is rescaled): :func:`krippendorff_weights`
maps the levels of measurement to the schemes above: nominal → identity, interval → quadratic,
ratio → ratio, and Krippendorff's (2011) circular and bipolar metrics → circular and bipolar.
Ordinal alpha has no fixed weight matrix (its distances depend on the marginal frequencies of the
data), so it is refused there.

References
----------
Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3. Advanced Analytics.
Gwet, K. L. irrCAC (R package), ``R/weights.gen.r``; Fergadis, A. irrCAC (Python port) 0.4.4,
``irrCAC/weights.py`` and its test ``test/unit/irrCAC/weights/test_weights.py`` (the values this
module is tested against, ``tests/test_analytic.py``).
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
Cohen, J. (1968). Weighted kappa. *Psychological Bulletin* 70(4), 213–220.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InputError

__all__ = ["weight_matrix", "krippendorff_weights", "WEIGHT_SCHEMES", "KRIPPENDORFF_LEVELS"]

#: The named weight schemes :func:`weight_matrix` accepts (irrCAC's names).
WEIGHT_SCHEMES = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")

_IDENTITY_ALIASES = ("identity", "unweighted", "none")

#: Krippendorff's levels of measurement and the weight scheme that gives alpha for two raters
#: (None: no fixed weight matrix).
KRIPPENDORFF_LEVELS = {"nominal": "identity", "interval": "quadratic", "ratio": "ratio",
                       "circular": "circular", "bipolar": "bipolar", "ordinal": None}


def _values(k: int, levels, scheme: str) -> np.ndarray:
    """The category values x_1..x_K the named scheme is computed from."""
    if levels is None:
        return np.arange(1, k + 1, dtype=float) if scheme == "ratio" else np.arange(k, dtype=float)
    lv = list(levels)
    if len(lv) != k:
        raise InputError(f"levels has {len(lv)} entries for a {k}x{k} table",
                         expected=f"{k} levels, one a row of the table")
    if not all(isinstance(v, (numbers.Real, np.number)) and not isinstance(v, (bool, np.bool_)) for v in lv):
        return np.arange(1, k + 1, dtype=float)  # labels: positions 1..K, as irrCAC
    x = np.asarray(lv, dtype=float)
    if not np.all(np.isfinite(x)):
        raise InputError("levels must be finite numbers", text=str(lv))
    if len(np.unique(x)) != k:
        raise InputError("levels must be distinct", text=str(lv))
    return x


def _normalized(delta: np.ndarray) -> np.ndarray:
    """1 − δ / max δ (δ a disagreement matrix with zero diagonal)."""
    m = delta.max()
    return np.ones_like(delta) if m <= 0 else 1.0 - delta / m


def weight_matrix(weights, k: int, levels=None) -> np.ndarray:
    """Agreement weights (w_kk = 1): a named scheme of irrCAC or a K×K matrix.

    Parameters
    ----------
    weights : None, str or array-like
        ``None``/``"identity"``/``"unweighted"``/``"none"`` (unweighted), one of
        :data:`WEIGHT_SCHEMES` (``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``,
        ``"ratio"``, ``"circular"``, ``"bipolar"``; formulas in the module docstring), or a K×K
        agreement matrix with ones on the diagonal (disagreement matrices are refused).
    k : int
        Number of categories K.
    levels : sequence, optional
        The category values the named schemes are computed from, one a row of the table. Default:
        the positions 0 … K−1 (1 … K for ``"ratio"``); non-numeric levels count as positions
        1 … K. Ignored for a matrix.

    Returns
    -------
    numpy.ndarray
        K×K float matrix.

    Raises
    ------
    InputError
        Unknown scheme, wrong shape, a diagonal other than 1, levels of the wrong length,
        repeated levels, or negative values for ``"ratio"``.

    References
    ----------
    Gwet (2014), ch. 3; irrCAC (R) ``weights.gen.r`` and its Python port 0.4.4 ``weights.py``.
    Tested against the port's ``test_weights.py`` (categories 1, 2, 3), against scikit-learn's
    ``cohen_kappa_score(weights=...)`` for linear and quadratic, and through irrCAC's coefficients
    for every scheme (``tests/test_analytic.py``).

    Examples
    --------
    >>> from metaeval.core.weights import weight_matrix
    >>> weight_matrix("quadratic", 3)
    array([[1.  , 0.75, 0.  ],
           [0.75, 1.  , 0.75],
           [0.  , 0.75, 1.  ]])
    >>> weight_matrix("linear", 3, levels=[1, 2, 4]).round(3)
    array([[1.   , 0.667, 0.   ],
           [0.667, 1.   , 0.333],
           [0.   , 0.333, 1.   ]])
    >>> weight_matrix("ratio", 3).round(3)
    array([[1.   , 0.556, 0.   ],
           [0.556, 1.   , 0.84 ],
           [0.   , 0.84 , 1.   ]])
    """
    k = int(k)
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if weights is None or (isinstance(weights, str) and weights.lower() in _IDENTITY_ALIASES):
        return np.eye(k)
    if isinstance(weights, str):
        scheme = weights.lower()
        if scheme not in WEIGHT_SCHEMES:
            raise InputError(f"unknown weights {weights!r}",
                             expected="None, one of " + ", ".join(map(repr, WEIGHT_SCHEMES)) + " or a KxK matrix")
        return _named(scheme, k, levels)
    w = np.asarray(weights, dtype=float)
    if w.shape != (k, k):
        raise InputError(f"weights must be a {k}x{k} matrix, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise InputError("weights must be finite")
    if not np.allclose(np.diag(w), 1):
        raise InputError("agreement weights must have 1 on the diagonal",
                         fix="pass agreement weights w = 1 - d/max(d), not disagreement weights d")
    return w


def _named(scheme: str, k: int, levels) -> np.ndarray:
    x = _values(k, levels, scheme)
    if k == 1:
        return np.ones((1, 1))
    xk, xl = x[:, None], x[None, :]
    d = xk - xl
    span = x.max() - x.min()
    if scheme == "linear":
        return 1.0 - np.abs(d) / span
    if scheme == "quadratic":
        return 1.0 - d**2 / span**2
    if scheme == "radical":
        return 1.0 - np.sqrt(np.abs(d)) / np.sqrt(span)
    if scheme == "ratio":
        if x.min() < 0:
            raise InputError("ratio weights need non-negative levels", text=str(list(x)),
                             fix="use levels on a ratio scale (0 = none), or another scheme")
        s = xk + xl
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(s > 0, (d / np.where(s > 0, s, 1.0)) ** 2, 0.0)
        w = 1.0 - r / (span / (x.max() + x.min())) ** 2
        np.fill_diagonal(w, 1.0)
        return w
    if scheme == "circular":
        return _normalized(np.sin(np.pi * d / (span + 1)) ** 2)
    if scheme == "bipolar":
        den = (xk + xl - 2 * x.min()) * (2 * x.max() - xk - xl)
        off = ~np.eye(k, dtype=bool)
        delta = np.zeros((k, k))
        delta[off] = d[off] ** 2 / den[off]  # den > 0 off the diagonal for distinct values
        return _normalized(delta)
    if scheme == "ordinal":
        r = np.argsort(np.argsort(x)).astype(float)
        m = np.abs(r[:, None] - r[None, :]) + 1
        return _normalized(m * (m - 1) / 2)
    raise AssertionError(scheme)  # pragma: no cover - WEIGHT_SCHEMES is checked by the caller


def krippendorff_weights(level: str, k: int, levels=None) -> np.ndarray:
    """The agreement weights that make the two-rater alpha Krippendorff's alpha at a level.

    For two raters with no missing ratings, Krippendorff's alpha with distance metric δ equals
    ``(p_a′ − p_e)/(1 − p_e)`` with Scott's chance agreement, weights w = 1 − δ/max δ and
    p_a′ = (1 − 1/(2n)) p_a + 1/(2n) (see :func:`metaeval.agreement.analytic.krippendorff_alpha`).

    Parameters
    ----------
    level : {"nominal", "interval", "ratio", "circular", "bipolar"}
        Krippendorff's level of measurement (metric). ``"ordinal"`` is refused: its distances
        depend on the marginal frequencies of the data, so no fixed weight matrix gives it.
    k : int
        Number of categories.
    levels : sequence, optional
        The category values (as :func:`weight_matrix`); the interval, ratio, circular and bipolar
        metrics are functions of them.

    Returns
    -------
    numpy.ndarray
        K×K agreement weights: nominal → identity, interval → quadratic, ratio → ratio,
        circular → circular, bipolar → bipolar.

    Raises
    ------
    InputError
        For ``"ordinal"`` or an unknown level.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability (the metrics δ).
    irrCAC ``krippen2.table`` (the two-rater formula). Checked against the ``krippendorff``
    package (nominal, interval, ratio) and a direct coincidence-matrix computation (circular,
    bipolar) in ``tests/test_analytic.py``.

    Examples
    --------
    >>> from metaeval.core.weights import krippendorff_weights
    >>> krippendorff_weights("interval", 3)
    array([[1.  , 0.75, 0.  ],
           [0.75, 1.  , 0.75],
           [0.  , 0.75, 1.  ]])
    >>> krippendorff_weights("ordinal", 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    metaeval.core.errors.InputError: <input>: ordinal alpha has no fixed weight matrix ...
    """
    lv = str(level).lower()
    if lv not in KRIPPENDORFF_LEVELS:
        raise InputError(f"unknown level of measurement {level!r}",
                         expected="one of " + ", ".join(map(repr, KRIPPENDORFF_LEVELS)))
    scheme = KRIPPENDORFF_LEVELS[lv]
    if scheme is None:
        raise InputError("ordinal alpha has no fixed weight matrix (its distances depend on the marginal "
                         "frequencies of the data), so it has no analytic variance here",
                         fix="use a bootstrap interval for ordinal alpha, or level='interval'")
    return weight_matrix(scheme, k, levels)
