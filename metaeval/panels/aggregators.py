"""Aggregation models for juries: each declared once, as the statistics are in :mod:`metaeval.core.registry`.

An :class:`Aggregator` says what a model is called, which labels it takes (``"nominal"``,
``"ordinal"`` categories or numeric ``"scores"``), whether it learns from human labels, its
``fit`` (votes → a :class:`Fit`: per-item class probabilities or values, and per-judge confusion
matrices or skills where the model has them) and its ``predict`` (a fitted model → the labels of
other items). :func:`metaeval.jury` and :func:`metaeval.select_jury` look models up here.

Votes are held as a :class:`Votes`: an items × judges array of category indices (−1 = not judged)
or of numeric scores (NaN = not judged). The EM models run on the distinct rows of that array with
their multiplicities (items with the same votes, and the same human label when one is used, have
the same posterior), so a million items of ten judges with a few labels cost a few thousand rows.

Conventions shared with crowd-kit (Ustalov et al. 2024), so that the results can be compared:
a confusion matrix's row is the true class and its column the judge's label (each row sums to 1;
crowd-kit's ``errors_`` is its transpose, indexed by worker and observed label); argmax ties go to
the first category in sorted order (crowd-kit's ``idxmax`` over sorted labels).

Examples
--------
>>> from metaeval.panels import aggregators
>>> aggregators.names()
['dawid_skene', 'glad', 'mace', 'majority', 'mean', 'median', 'one_coin_dawid_skene', 'weighted']
>>> aggregators.get("dawid_skene").kinds
('nominal', 'ordinal')
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ConvergenceWarning, InputError

__all__ = ["Aggregator", "Votes", "Fit", "register", "get", "names", "EPS"]

#: The floor crowd-kit puts under confusion-matrix entries, priors and posteriors (``_EPS = 1e-10``).
EPS = 1e-10

TIE_RULES = ("lowest", "highest", "random")

_REGISTRY: dict[str, Aggregator] = {}


@dataclass(frozen=True)
class Votes:
    """The judges' labels of n items, as models read them.

    Parameters
    ----------
    idx : numpy.ndarray or None
        ``(n, R)`` int: the category index of each judge's label (−1 = not judged); None for scores.
    scores : numpy.ndarray or None
        ``(n, R)`` float: the numeric labels (NaN = not judged); None when the labels are not numbers.
    categories : tuple
        The K categories (empty for scores).

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval.panels.aggregators import Votes
    >>> v = Votes(np.array([[0, 1, -1], [1, 1, 0]]), None, ("no", "yes"))
    >>> v.n_items, v.n_judges, v.k, v.counts().tolist()
    (2, 3, 2, [[1.0, 1.0], [1.0, 2.0]])
    """

    idx: np.ndarray | None
    scores: np.ndarray | None
    categories: tuple = ()

    @property
    def n_items(self) -> int:
        """Number of items."""
        a = self.idx if self.idx is not None else self.scores
        return int(a.shape[0])

    @property
    def n_judges(self) -> int:
        """Number of judges."""
        a = self.idx if self.idx is not None else self.scores
        return int(a.shape[1])

    @property
    def k(self) -> int:
        """Number of categories."""
        return len(self.categories)

    def counts(self, weights=None) -> np.ndarray:
        """``(n, K)``: how many judges (or how much judge weight) put each item in each category."""
        n, r = self.idx.shape
        out = np.zeros((n, self.k))
        w = np.ones(r) if weights is None else np.asarray(weights, dtype=float)
        for g in range(r):
            ok = self.idx[:, g] >= 0
            out[np.flatnonzero(ok), self.idx[ok, g]] += w[g]
        return out

    def subset(self, items=None, judges=None) -> Votes:
        """The votes of some items and/or some judges."""
        a, s = self.idx, self.scores
        if items is not None:
            a = None if a is None else a[items]
            s = None if s is None else s[items]
        if judges is not None:
            a = None if a is None else a[:, judges]
            s = None if s is None else s[:, judges]
        return Votes(a, s, self.categories)


@dataclass
class Fit:
    """What a model gives for the items it was fitted on (and what it needs to predict others).

    Attributes
    ----------
    probabilities : numpy.ndarray or None
        ``(n, K)`` class probabilities of each item (None for score aggregators).
    values : numpy.ndarray or None
        ``(n,)`` aggregated numeric labels (mean, median), else None.
    labels : numpy.ndarray or None
        ``(n,)`` category index of the aggregated label, when the model decides it itself (a
        majority vote's tie rule); else the argmax of ``probabilities``.
    confusions : numpy.ndarray or None
        ``(R, K, K)``: judge g's probability of label l when the true class is c, at ``[g, c, l]``.
    skills : numpy.ndarray or None
        ``(R,)`` one number per judge (``skill_name`` says which).
    skill_name : str or None
    priors : numpy.ndarray or None
        ``(K,)`` class prior.
    n_iter : int or None
        EM iterations run.
    converged : bool or None
        Whether the stopping rule was met before the iteration limit.
    params : dict
        What ``predict`` needs.

    Examples
    --------
    >>> import numpy as np
    >>> from metaeval.panels.aggregators import Fit
    >>> Fit(probabilities=np.array([[0.2, 0.8]])).label_index().tolist()
    [1]
    """

    probabilities: np.ndarray | None = None
    values: np.ndarray | None = None
    labels: np.ndarray | None = None
    confusions: np.ndarray | None = None
    skills: np.ndarray | None = None
    skill_name: str | None = None
    priors: np.ndarray | None = None
    n_iter: int | None = None
    converged: bool | None = None
    params: dict = field(default_factory=dict)

    def label_index(self) -> np.ndarray:
        """The category index of each item's label (argmax of the probabilities, ties to the first)."""
        if self.labels is not None:
            return self.labels
        return np.argmax(self.probabilities, axis=1)


@dataclass(frozen=True)
class Aggregator:
    """The declaration of one aggregation model.

    Parameters
    ----------
    name : str
        The ``method=`` name of :func:`metaeval.jury`.
    label : str
        How a reader sees it.
    kinds : tuple of str
        Which labels it takes: ``"nominal"``, ``"ordinal"`` (categories), ``"scores"`` (numbers).
    fit : callable
        ``fit(votes, *, truth=None, rng=None, **options) -> Fit``; ``truth`` is an ``(n,)`` category
        index of human labels (−1 = unknown) for the models that learn from them.
    predict : callable or None
        ``predict(fit, votes) -> Fit`` for other items, from a fitted model's parameters (None
        when the model has no parameters that carry to new items).
    learns : {"no", "optional", "required"}
        Whether it learns from human labels (then :func:`metaeval.jury` cross-fits it).
    options : tuple of str
        The keyword options ``fit`` takes.
    reference : str
        The paper and the implementation it is tested against.

    Returns
    -------
    Aggregator

    Examples
    --------
    >>> from metaeval.panels import aggregators
    >>> aggregators.get("weighted").learns
    'optional'
    """

    name: str
    label: str
    kinds: tuple
    fit: Callable
    predict: Callable | None = None
    learns: str = "no"
    options: tuple = ()
    reference: str = ""

    @property
    def categorical(self) -> bool:
        """Whether the model reads categories (else numeric scores)."""
        return "scores" not in self.kinds


def register(aggregator: Aggregator) -> Aggregator:
    """Declare an aggregation model (once per name).

    Parameters
    ----------
    aggregator : Aggregator

    Returns
    -------
    Aggregator

    Raises
    ------
    ValueError
        When the name is taken.

    Examples
    --------
    >>> from metaeval.panels import aggregators
    >>> aggregators.get("majority").name
    'majority'
    """
    if aggregator.name in _REGISTRY:
        raise ValueError(f"aggregator {aggregator.name!r} is already registered")
    _REGISTRY[aggregator.name] = aggregator
    return aggregator


def get(name: str) -> Aggregator:
    """The aggregation model called ``name``.

    Parameters
    ----------
    name : str

    Returns
    -------
    Aggregator

    Raises
    ------
    InputError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> from metaeval.panels import aggregators
    >>> aggregators.get("glad").label
    'GLAD'
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise InputError(f"unknown jury method {name!r}", expected=f"one of {', '.join(names())}") from None


def names() -> list[str]:
    """The registered model names, sorted.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from metaeval.panels import aggregators
    >>> "mace" in aggregators.names()
    True
    """
    return sorted(_REGISTRY)


# --------------------------------------------------------------------------------------------
# shared pieces
# --------------------------------------------------------------------------------------------

def break_ties(score: np.ndarray, ties: str, rng) -> np.ndarray:
    """The index of the largest score of each row, ties broken by ``ties``.

    ``"lowest"``: the first category in sorted order (crowd-kit's rule); ``"highest"``: the last;
    ``"random"``: uniformly among the tied, with ``rng`` (a numpy Generator); a sequence of category
    indices: the first of them among the tied (a stated preference order).
    """
    if not isinstance(ties, str):                 # a preference order: category indices, most preferred first
        order = np.asarray(ties, dtype=np.int64)
        top = score == score.max(axis=1, keepdims=True)
        return order[np.argmax(top[:, order], axis=1)]
    if ties == "lowest":
        return np.argmax(score, axis=1)
    if ties == "highest":
        return score.shape[1] - 1 - np.argmax(score[:, ::-1], axis=1)
    top = score == score.max(axis=1, keepdims=True)
    u = rng.random(score.shape)
    return np.argmax(np.where(top, u, -1.0), axis=1)


def _normalize_rows(x: np.ndarray) -> np.ndarray:
    s = x.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0, x / np.where(s > 0, s, 1.0), 0.0)


@dataclass
class _Patterns:
    """The distinct rows of the votes (and of the human label), with how often each occurs."""

    rows: np.ndarray      # (m, R) category index, −1 = not judged
    truth: np.ndarray     # (m,) human label index, −1 = none
    weight: np.ndarray    # (m,) multiplicity
    inverse: np.ndarray   # (n,) row of each item

    @classmethod
    def of(cls, idx: np.ndarray, truth: np.ndarray | None, k: int) -> _Patterns:
        n, r = idx.shape
        t = np.full(n, -1, dtype=np.int64) if truth is None else np.asarray(truth, dtype=np.int64)
        full = np.column_stack([idx, t])
        base = k + 1
        if (r + 1) * np.log2(base) < 62:
            code = np.zeros(n, dtype=np.int64)
            for g in range(r + 1):
                code = code * base + (full[:, g] + 1)
            _, first, inverse, weight = np.unique(code, return_index=True, return_inverse=True, return_counts=True)
            rows = full[first]
        else:
            rows, inverse, weight = np.unique(full, axis=0, return_inverse=True, return_counts=True)
        return cls(rows[:, :r].copy(), rows[:, r].copy(), weight.astype(float), inverse.reshape(-1))


def _log_likelihood_terms(rows: np.ndarray, log_conf: np.ndarray) -> np.ndarray:
    """``(m, K)``: Σ over the judges of each row of log P(judge's label | class c)."""
    m, r = rows.shape
    k = log_conf.shape[1]
    out = np.zeros((m, k))
    for g in range(r):
        # rows of log P(label l | class ·), and a row of zeros at index −1 for "not judged"
        table = np.vstack([log_conf[g].T, np.zeros((1, k))])
        out += table[rows[:, g]]
    return out


def _fix_truth(q: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Items with a human label get probability 1 on it (crowd-kit's ``true_labels`` correction)."""
    known = truth >= 0
    if known.any():
        q = q.copy()
        q[known] = 0.0
        q[np.flatnonzero(known), truth[known]] = 1.0
    return q


def _vote_shares(p: _Patterns, k: int) -> np.ndarray:
    counts = np.zeros((len(p.weight), k))
    for g in range(p.rows.shape[1]):
        ok = p.rows[:, g] >= 0
        np.add.at(counts, (np.flatnonzero(ok), p.rows[ok, g]), 1.0)
    return _normalize_rows(counts)


def _need_votes(votes: Votes, name: str) -> None:
    if votes.idx is None:
        raise InputError(f"method {name!r} needs categorical labels", fix="use method='mean' or 'median' for scores")


# --------------------------------------------------------------------------------------------
# majority and weighted vote
# --------------------------------------------------------------------------------------------

def _fit_majority(votes: Votes, *, truth=None, rng=None, ties: str = "lowest", weights=None) -> Fit:
    _need_votes(votes, "majority")
    score = votes.counts(weights)
    return Fit(probabilities=_normalize_rows(score), labels=break_ties(score, ties, rng),
               params={"ties": ties, "weights": weights})


def _predict_vote(fit: Fit, votes: Votes, rng=None) -> Fit:
    return _fit_majority(votes, ties=fit.params["ties"], weights=fit.params["weights"], rng=rng)


def learned_weights(votes: Votes, truth: np.ndarray) -> np.ndarray:
    """Each judge's vote weight from its accuracy on items with a human label.

    w_g = max(0, log((K − 1) a_g / (1 − a_g))), a_g = (right_g + 1)/(judged_g + 2): the weights of the
    optimal weighted vote of independent judges with symmetric errors (Nitzan & Paroush 1982), with
    the accuracy Laplace-smoothed, and no vote for a judge no better than chance.
    """
    known = truth >= 0
    idx = votes.idx[known]
    t = truth[known][:, None]
    judged = (idx >= 0).sum(axis=0)
    right = ((idx == t) & (idx >= 0)).sum(axis=0)
    a = (right + 1.0) / (judged + 2.0)
    k = max(votes.k, 2)
    return np.maximum(0.0, np.log((k - 1) * a / (1 - a)))


def _fit_weighted(votes: Votes, *, truth=None, rng=None, ties: str = "lowest", weights=None) -> Fit:
    _need_votes(votes, "weighted")
    if weights is None:
        if truth is None or not (np.asarray(truth) >= 0).any():
            raise InputError("method='weighted' needs weights= (one per judge) or human labels to learn them "
                             "from (reference=)")
        weights = learned_weights(votes, np.asarray(truth))
    w = np.asarray(weights, dtype=float)
    if w.shape != (votes.n_judges,) or not np.all(np.isfinite(w)) or (w < 0).any():
        raise InputError(f"weights= must be {votes.n_judges} non-negative numbers, one per judge", text=str(weights))
    fit = _fit_majority(votes, ties=ties, weights=w, rng=rng)
    fit.skills, fit.skill_name = w, "weight"
    return fit


# --------------------------------------------------------------------------------------------
# Dawid–Skene and one-coin Dawid–Skene
# --------------------------------------------------------------------------------------------

def _ds_confusions(p: _Patterns, q: np.ndarray, k: int, used: np.ndarray) -> np.ndarray:
    """M-step: expected counts n[g, c, l] = Σ_items q_ic [judge g said l], floored at EPS where
    judge g ever said l, each true-class row normalised."""
    r = p.rows.shape[1]
    n = np.zeros((r, k, k))
    wq = np.ascontiguousarray((q * p.weight[:, None]).T)     # (K, m)
    for g in range(r):
        lab = np.where(p.rows[:, g] >= 0, p.rows[:, g], k)   # "not judged" counts in a bin of its own
        for c in range(k):
            n[g, c] = np.bincount(lab, weights=wq[c], minlength=k + 1)[:k]
    n = np.where(used[:, None, :], np.maximum(n, EPS), 0.0)
    return n / n.sum(axis=2, keepdims=True)


def _one_coin_skills(p: _Patterns, q: np.ndarray) -> np.ndarray:
    """M-step of the one-coin model: each judge's mean posterior probability of its own labels."""
    r = p.rows.shape[1]
    s = np.zeros(r)
    for g in range(r):
        ok = p.rows[:, g] >= 0
        w = p.weight[ok]
        s[g] = np.sum(w * q[np.flatnonzero(ok), p.rows[ok, g]]) / w.sum()
    return s


def _one_coin_confusions(s: np.ndarray, k: int) -> np.ndarray:
    off = (1.0 - s) / (k - 1)
    conf = np.repeat(off[:, None, None], k, axis=1).repeat(k, axis=2)
    conf[:, np.arange(k), np.arange(k)] = s[:, None]
    return np.clip(conf, EPS, 1 - EPS)


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def _posteriors(p: _Patterns, priors: np.ndarray, conf: np.ndarray, ll=None) -> tuple[np.ndarray, np.ndarray]:
    """E-step: class posteriors of each row (and the per-row log-likelihood terms, ``ll`` when known)."""
    if ll is None:
        ll = _log_likelihood_terms(p.rows, _log(conf))
    z = ll + np.log(np.maximum(priors, EPS))
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True), ll


def _elbo(p: _Patterns, q: np.ndarray, priors: np.ndarray, ll: np.ndarray) -> float:
    """crowd-kit's stopping criterion: Σ_responses Σ_c q_ic (log e_g[c, l] + log p_c) plus the entropy of
    q (floored at EPS), per response. (The prior enters once per response, as crowd-kit has it.)
    ``ll``: the log-likelihood terms of the confusion matrices."""
    n_resp = (p.rows >= 0).sum(axis=1).astype(float)
    joint = np.sum(p.weight * np.sum(q * (ll + n_resp[:, None] * np.log(np.maximum(priors, EPS))), axis=1))
    qc = np.maximum(q, EPS)
    entropy = -np.sum(p.weight * np.sum(qc * np.log(qc), axis=1))
    return float((joint + entropy) / np.sum(p.weight * n_resp))


def _check_iterations(name: str, **opts) -> None:
    """Iteration limits are whole numbers ≥ 1 and tolerances finite and ≥ 0 (one line, naming the option)."""
    for key, v in opts.items():
        if key.endswith("tol"):
            ok = not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating)) and \
                math.isfinite(float(v)) and float(v) >= 0
            if not ok:
                raise InputError(f"{name}: {key} must be a finite number ≥ 0, got {v!r}", fix=f"pass {key}=1e-5")
            continue
        ok = not isinstance(v, bool) and isinstance(v, (int, np.integer, float, np.floating)) and \
            math.isfinite(float(v)) and float(v) == int(v) and int(v) >= 1
        if not ok:
            raise InputError(f"{name}: {key} must be a whole number ≥ 1, got {v!r}", fix=f"pass {key}=100")


def _not_converged(name: str, n_iter: int, change: float, tol: float, stacklevel: int = 4) -> None:
    how = (f"the objective still changed by {change:.3g} in the last iteration, tol = {tol:g}" if math.isfinite(change)
           else "one iteration cannot show convergence")
    warnings.warn(ConvergenceWarning(
        f"{name} did not converge in {n_iter} iteration{'' if n_iter == 1 else 's'} ({how}): the result is the "
        "last iterate; pass a larger n_iter= and compare"), stacklevel=stacklevel)


def _fit_em(votes: Votes, *, truth, n_iter: int, tol: float, one_coin: bool) -> Fit:
    name = "one-coin Dawid–Skene" if one_coin else "Dawid–Skene"
    _check_iterations(name, n_iter=n_iter, tol=tol)
    k = votes.k
    p = _Patterns.of(votes.idx, truth, k)
    used = np.zeros((votes.n_judges, k), dtype=bool)
    for g in range(votes.n_judges):
        lab = p.rows[:, g]
        used[g, np.unique(lab[lab >= 0])] = True
    q = _fix_truth(_vote_shares(p, k), p.truth)

    def m_step(q):
        pri = np.sum(p.weight[:, None] * q, axis=0) / p.weight.sum()
        if one_coin:
            s = _one_coin_skills(p, q)
            return pri, _one_coin_confusions(s, k), s
        return pri, _ds_confusions(p, q, k, used), None

    priors, conf, skills = m_step(q)
    loss, it, converged, ll, change = -np.inf, 0, False, None, float("nan")
    while it < n_iter:
        it += 1
        q, _ = _posteriors(p, priors, conf, ll)
        q = _fix_truth(q, p.truth)
        priors, conf, skills = m_step(q)
        ll = _log_likelihood_terms(p.rows, _log(conf))   # for the bound now and the next E-step
        new = _elbo(p, q, priors, ll)
        if new - loss < tol:
            converged = True
            break
        change, loss = new - loss, new
    if not converged:
        _not_converged(name, it, change, tol, stacklevel=5)
    if skills is None:
        skills = np.einsum("c,gcc->g", priors, conf)   # the probability that the judge is right
    return Fit(probabilities=q[p.inverse], confusions=conf, skills=skills,
               skill_name="accuracy" if one_coin else "expected_accuracy", priors=priors, n_iter=it,
               converged=converged, params={"priors": priors, "confusions": conf})


def _fit_dawid_skene(votes: Votes, *, truth=None, rng=None, n_iter: int = 100, tol: float = 1e-5) -> Fit:
    _need_votes(votes, "dawid_skene")
    return _fit_em(votes, truth=truth, n_iter=n_iter, tol=tol, one_coin=False)


def _fit_one_coin(votes: Votes, *, truth=None, rng=None, n_iter: int = 100, tol: float = 1e-5) -> Fit:
    _need_votes(votes, "one_coin_dawid_skene")
    if votes.k < 2:
        raise InputError("the one-coin model needs at least two categories")
    return _fit_em(votes, truth=truth, n_iter=n_iter, tol=tol, one_coin=True)


def _predict_em(fit: Fit, votes: Votes, rng=None) -> Fit:
    p = _Patterns.of(votes.idx, None, votes.k)
    q, _ = _posteriors(p, fit.params["priors"], fit.params["confusions"])
    return Fit(probabilities=q[p.inverse])


# --------------------------------------------------------------------------------------------
# GLAD (Whitehill et al. 2009)
# --------------------------------------------------------------------------------------------

def _softplus(x):
    return np.logaddexp(0.0, x)


def _fit_glad(votes: Votes, *, truth=None, rng=None, n_iter: int = 100, tol: float = 1e-5,
              m_step_max_iter: int = 25, m_step_tol: float = 1e-2, priors=None,
              alpha_prior_mean: float = 1.0, beta_prior_mean: float = 1.0) -> Fit:
    from scipy.optimize import minimize

    _need_votes(votes, "glad")
    _check_iterations("GLAD", n_iter=n_iter, tol=tol, m_step_max_iter=m_step_max_iter, m_step_tol=m_step_tol)
    k = votes.k
    if k < 2:
        raise InputError("GLAD needs at least two categories")
    n, r = votes.idx.shape
    ti, gi = np.nonzero(votes.idx >= 0)          # one entry per response
    lab = votes.idx[ti, gi]
    log_prior = np.log(np.full(k, 1.0 / k) if priors is None else np.asarray(priors, dtype=float))
    log_km1 = np.log(k - 1)
    n_rows = len(ti) * k                          # crowd-kit normalises Q by its (response × class) rows

    def e_step(a, b):
        x = a[gi] * np.exp(b[ti])
        right, wrong = -_softplus(-x), -_softplus(x) - log_km1
        z = np.tile(log_prior, (n, 1))
        np.add.at(z, ti, wrong[:, None])           # every class gets the 'wrong' term ...
        np.add.at(z, (ti, lab), right - wrong)     # ... and the judge's label the 'right' one instead
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def q_value(a, b, q):
        x = a[gi] * np.exp(b[ti])
        ql = q[ti, lab]
        val = np.sum(ql * -_softplus(-x) + (1 - ql) * (-_softplus(x) - log_km1))
        return float(val - 0.5 * np.sum((a - alpha_prior_mean) ** 2) - 0.5 * np.sum((b - beta_prior_mean) ** 2)
                     - 0.5 * (r + n) * np.log(2 * np.pi))

    def gradient(a, b, q):
        eb = np.exp(b[ti])
        x = a[gi] * eb
        d = q[ti, lab] - 1.0 / (1.0 + np.exp(-x))
        ga = np.bincount(gi, weights=d * eb, minlength=r) - (a - alpha_prior_mean)
        gb = np.bincount(ti, weights=d * x, minlength=n) - (b - beta_prior_mean)
        return ga, gb

    a, b = np.ones(r), np.ones(n)
    q = e_step(a, b)
    value = q_value(a, b, q)
    it, converged, history = 0, False, []
    while it < n_iter:
        it += 1
        last = value
        q = e_step(a, b)
        qq = q

        def f(x, qq=qq):
            return -q_value(x[:r], x[r:], qq)

        def df(x, qq=qq):
            ga, gb = gradient(x[:r], x[r:], qq)
            return -np.concatenate([ga, gb])

        res = minimize(f, np.concatenate([a, b]), method="CG", jac=df, tol=m_step_tol,
                       options={"disp": False, "maxiter": m_step_max_iter})
        a, b = res.x[:r].copy(), res.x[r:].copy()
        value = q_value(a, b, q) / n_rows
        history.append(value)
        if value - last < tol:
            converged = True
            break
    if not converged:
        _not_converged("GLAD", it, value - last, tol)
    return Fit(probabilities=q, skills=a, skill_name="alpha", n_iter=it, converged=converged,
               priors=np.exp(log_prior), params={"alpha": a, "beta": b, "loss_history": history})


# --------------------------------------------------------------------------------------------
# MACE (Hovy et al. 2013)
# --------------------------------------------------------------------------------------------

def _fit_mace(votes: Votes, *, truth=None, rng=None, n_restarts: int = 10, n_iter: int = 50,
              variant: str = "vb", smoothing: float | None = None, default_noise: float = 0.5,
              alpha: float = 0.5, beta: float = 0.5, init=None) -> Fit:
    from scipy.special import digamma

    _need_votes(votes, "mace")
    if variant not in ("vb", "em"):
        raise InputError(f"MACE's variant= must be 'vb' (variational Bayes) or 'em', got {variant!r}")
    _check_iterations("MACE", n_iter=n_iter, **({"n_restarts": n_restarts} if init is None else {}))
    k = votes.k
    n, r = votes.idx.shape
    ti, gi = np.nonzero(votes.idx >= 0)
    lab = votes.idx[ti, gi]
    smooth = 0.01 / k if smoothing is None else smoothing

    def e_step(spam, theta):
        # P(label | class c) = spam·θ_g[label] + know·[label = c]; the class prior is uniform
        st = spam[gi, 0] * theta[gi, lab]
        z = np.zeros((n, k))
        np.add.at(z, ti, np.log(st)[:, None])
        np.add.at(z, (ti, lab), np.log(st + spam[gi, 1]) - np.log(st))
        z -= np.log(k)
        zmax = z.max(axis=1, keepdims=True)
        loglik = float(np.sum(zmax[:, 0] + np.log(np.exp(z - zmax).sum(axis=1))))
        e = np.exp(z - zmax)
        q = e / e.sum(axis=1, keepdims=True)
        # expected counts: P(spamming | data) for each response, and of knowing
        ql = q[ti, lab]
        p_spam = (1 - ql) + ql * st / (st + spam[gi, 1])
        p_know = ql * spam[gi, 1] / (st + spam[gi, 1])
        strategy = np.zeros((r, k))
        np.add.at(strategy, (gi, lab), p_spam)
        knowing = np.column_stack([np.bincount(gi, weights=p_spam, minlength=r),
                                   np.bincount(gi, weights=p_know, minlength=r)])
        return loglik, q, strategy, knowing

    def normalize(x, add):
        s = (x + add).sum(axis=1, keepdims=True)
        return (x + add) / s

    def vb_normalize(x, prior):
        return np.exp(digamma(x + prior)) / np.exp(digamma((x + prior).sum(axis=1, keepdims=True)))

    theta_prior = np.column_stack([np.full(r, alpha), np.full(r, beta)])
    strategy_prior = np.full((r, k), 10.0)
    best = None
    starts = [init] if init is not None else [None] * n_restarts
    for start in starts:
        if start is None:
            spam = rng.uniform(1.0, 2.0 + default_noise, size=(r, 2))
            theta = rng.uniform(1.0, 2.0 + default_noise, size=(r, k))
        else:
            spam, theta = (np.asarray(x, dtype=float) for x in start)
            if spam.shape != (r, 2) or theta.shape != (r, k):
                raise InputError(f"MACE's init= must be (spam {r}×2, strategy {r}×{k}) arrays")
        spam = spam / spam.sum(axis=1, keepdims=True)
        theta = theta / theta.sum(axis=1, keepdims=True)
        loglik, q, strategy, knowing = e_step(spam, theta)
        for _ in range(n_iter):
            if variant == "vb":
                spam, theta = vb_normalize(knowing, theta_prior), vb_normalize(strategy, strategy_prior)
            else:
                spam, theta = normalize(knowing, smooth), normalize(strategy, smooth)
            loglik, q, strategy, knowing = e_step(spam, theta)
        if best is None or loglik > best[0]:
            best = (loglik, q, spam, theta)
    loglik, q, spam, theta = best
    # the confusion matrix MACE implies: P(label l | class c) = spam·θ[l] + know·[l = c]
    conf = spam[:, 0, None, None] * theta[:, None, :] + spam[:, 1, None, None] * np.eye(k)[None]
    return Fit(probabilities=q, confusions=conf, skills=spam[:, 1], skill_name="competence", n_iter=n_iter,
               params={"spam": spam, "theta": theta, "log_likelihood": loglik})


# --------------------------------------------------------------------------------------------
# mean and median of numeric labels
# --------------------------------------------------------------------------------------------

def _scores(votes: Votes, name: str) -> np.ndarray:
    if votes.scores is None:
        raise InputError(f"method {name!r} needs numeric labels", text=str(list(votes.categories)[:5]),
                         fix="map the labels to numbers, or use a categorical method (majority, dawid_skene, ...)")
    return votes.scores


def _fit_mean(votes: Votes, *, truth=None, rng=None) -> Fit:
    s = _scores(votes, "mean")
    return Fit(values=np.nanmean(s, axis=1))


def _fit_median(votes: Votes, *, truth=None, rng=None, ties: str = "midpoint") -> Fit:
    s = _scores(votes, "median")
    if ties == "midpoint":
        return Fit(values=np.nanmedian(s, axis=1))
    if ties not in TIE_RULES:
        raise InputError(f"ties= must be one of midpoint, {', '.join(TIE_RULES)} for the median", text=str(ties))
    srt = np.sort(s, axis=1)                      # NaN last
    m = np.sum(~np.isnan(s), axis=1)
    lo = srt[np.arange(len(s)), np.maximum((m - 1) // 2, 0)]
    hi = srt[np.arange(len(s)), np.maximum(m // 2, 0)]
    if ties == "lowest":
        v = lo
    elif ties == "highest":
        v = hi
    else:
        v = np.where(rng.random(len(s)) < 0.5, lo, hi)
    return Fit(values=v)


def _predict_refit(fit: Fit, votes: Votes, rng=None) -> Fit:
    """Models without parameters: the same rule on the new items."""
    return fit.params["refit"](votes, rng=rng)


register(Aggregator("majority", "majority vote", ("nominal", "ordinal"), _fit_majority, _predict_vote,
                    options=("ties",),
                    reference="crowd-kit MajorityVote (labels with ties='lowest', probabilities = vote shares)"))
register(Aggregator("weighted", "weighted vote", ("nominal", "ordinal"), _fit_weighted, _predict_vote,
                    learns="optional", options=("ties", "weights"),
                    reference="crowd-kit MajorityVote(skills=weights); learned weights: Nitzan & Paroush (1982)"))
register(Aggregator("dawid_skene", "Dawid–Skene", ("nominal", "ordinal"), _fit_dawid_skene, _predict_em,
                    learns="optional", options=("n_iter", "tol"),
                    reference="Dawid & Skene (1979); crowd-kit DawidSkene (with true_labels when human labels are given)"))
register(Aggregator("one_coin_dawid_skene", "one-coin Dawid–Skene", ("nominal", "ordinal"), _fit_one_coin,
                    _predict_em, learns="optional", options=("n_iter", "tol"),
                    reference="Zhang et al. (2016); crowd-kit OneCoinDawidSkene"))
register(Aggregator("glad", "GLAD", ("nominal", "ordinal"), _fit_glad, None,
                    options=("n_iter", "tol", "m_step_max_iter", "m_step_tol", "priors", "alpha_prior_mean",
                             "beta_prior_mean"),
                    reference="Whitehill et al. (2009); crowd-kit GLAD (equal to 1e-6 with the M-step solved; "
                              "with its default early-stopped M-step the path depends on float summation order, "
                              "in crowd-kit as here)"))
register(Aggregator("mace", "MACE", ("nominal", "ordinal"), _fit_mace, None,
                    options=("n_restarts", "n_iter", "variant", "smoothing", "default_noise", "alpha", "beta", "init"),
                    reference="Hovy et al. (2013); crowd-kit MACE"))
register(Aggregator("mean", "mean score", ("ordinal", "scores"), _fit_mean, None,
                    reference="numpy.nanmean"))
register(Aggregator("median", "median score", ("ordinal", "scores"), _fit_median, None, options=("ties",),
                    reference="numpy.nanmedian (ties='midpoint')"))
