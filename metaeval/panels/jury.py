"""Juries: several judges' labels combined into one, and the choice of a jury under a budget.

:func:`jury` aggregates label sets on the same items with a model of
:mod:`metaeval.panels.aggregators` (majority vote, weighted vote, Dawid–Skene, one-coin
Dawid–Skene, GLAD, MACE, mean, median). A model that learns from human labels (a weighted vote
whose weights are learned, Dawid–Skene with the human labels fixing the posteriors of the items that
have them) is **cross-fitted**: the items are split into folds by ``cluster`` (topics), and each
item's label comes from a model fitted without the human labels of its fold, so a jury's agreement
with humans is never measured on the items it learned from.

:func:`select_jury` picks the best k judges (or the best jury within a budget when judges have
costs) by agreement with the human labels, and measures the chosen jury on items that took no part
in choosing it (nested cross-fitting: choose on the outer training folds — by inner cross-fitting
when the model learns —, score on the outer test fold). Its ``curve`` is the tidy frame "agreement
vs number of judges / cost", with the optimistic in-sample value of the same choice beside it.

Every EM model equals crowd-kit's (Ustalov et al. 2024) on crowd-kit's own test data and on the
LLMJudge labels: ``tests/test_jury.py`` and ``tests/test_jury_realdata.py`` (labels exactly,
probabilities to 1e-6).

References
----------
Dawid, A. P. & Skene, A. M. (1979). Maximum likelihood estimation of observer error-rates using the
EM algorithm. *Applied Statistics* 28(1), 20–28.
Whitehill, J. et al. (2009). Whose vote should count more: optimal integration of labels from
labelers of unknown expertise. *NeurIPS*.
Hovy, D. et al. (2013). Learning whom to trust with MACE. *NAACL-HLT*, 1120–1130.
Zhang, Y., Chen, X., Zhou, D. & Jordan, M. I. (2016). Spectral methods meet EM. *JMLR* 17.
Nitzan, S. & Paroush, J. (1982). Optimal decision rules in uncertain dichotomous choice situations.
*International Economic Review* 23(2), 289–297.
Verga, P. et al. (2024). Replacing judges with juries. arXiv:2404.18796.
Ustalov, D., Pavlichenko, N. & Tseitlin, B. (2024). Learning from crowds with Crowd-Kit. *JOSS* 9(96).
"""

from __future__ import annotations

import html
import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import InputError, MetaevalWarning
from ..core.resample import _user_stacklevel, make_rng
from . import aggregators as _agg
from .aggregators import Votes

__all__ = ["jury", "JuryResult", "select_jury", "JurySelection"]

#: The default number of folds of the cross-fitting.
DEFAULT_FOLDS = 5


# --------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------

@dataclass
class _Parsed:
    votes: Votes
    items: np.ndarray
    judges: tuple
    cluster: np.ndarray | None
    values: np.ndarray | None          # numeric values of the categories
    truth: np.ndarray | None           # (n,) category index of the human label, −1 = none
    reference: pd.Series | None


def _reference_series(reference, w_items: np.ndarray, source: str) -> pd.Series:
    if isinstance(reference, pd.Series):
        return reference
    if isinstance(reference, dict):
        return pd.Series(reference)
    arr = np.asarray(reference, dtype=object)
    if arr.ndim != 1 or len(arr) != len(w_items):
        raise InputError(f"reference has {arr.size} labels for {len(w_items)} items", source=source,
                         expected="a Series indexed by item, a dict item → label, or one label per row of the ratings")
    return pd.Series(arr, index=w_items)


def _parse(ratings, *, item, rater, value, levels, cluster, reference, categorical: bool) -> _Parsed:
    from ..agreement.multirater import _as_labels, prepare_ratings, wide_labels

    w = wide_labels(ratings, item=item, rater=rater, value=value, cluster=cluster)
    ref = None
    if reference is not None:
        ref = _reference_series(reference, w.items, w.source)
        dup = ref.index.duplicated()
        if dup.any():
            raise InputError(f"reference names item {ref.index[dup][0]!r} twice", source="<reference>",
                             fix="one human label per item")
    if not categorical:
        lab = w.labels
        if lab.dtype.kind != "f":
            raise InputError("mean and median need numeric labels", source=w.source,
                             text=str(pd.unique(lab[~pd.isna(lab)])[:5].tolist()),
                             fix="map the labels to numbers, or use a categorical method (majority, dawid_skene, ...)")
        rated = ~np.isnan(lab).all(axis=1)
        if not rated.all():
            warnings.warn(f"{int((~rated).sum())} item(s) have no rating and are left out", MetaevalWarning,
                          stacklevel=_user_stacklevel())
        cl = None
        if w.cluster is not None:
            cl = np.asarray(w.cluster)
            if cl.ndim != 1 or len(cl) != len(lab):
                raise InputError(f"cluster has {cl.size} entries for {len(lab)} items", source=w.source)
            cl = cl[rated]
        items = w.items[rated]
        ref_s = None if ref is None else ref.reindex(items)
        return _Parsed(Votes(None, lab[rated], ()), items, w.raters, cl, None, None, ref_s)
    if levels is None and ref is not None:
        # the categories: every label of the judges and of the humans
        both = np.concatenate([np.asarray(w.labels, dtype=object).ravel(), ref.to_numpy(dtype=object)])
        both = _as_labels(both)
        miss = np.isnan(both) if both.dtype.kind == "f" else np.asarray(pd.isna(both), dtype=bool)
        u = np.unique(both[~miss]) if both.dtype.kind == "f" else pd.unique(both[~miss])
        try:
            levels = sorted(u.tolist())
        except TypeError:
            levels = sorted(u.tolist(), key=str)
    d = prepare_ratings(ratings, item=item, rater=rater, value=value, levels=levels, cluster=cluster)
    truth = None
    ref_s = None
    if ref is not None:
        ref_s = ref.reindex(d.items)
        truth = np.full(len(d.items), -1, dtype=np.int64)
        known = ref_s.notna().to_numpy()
        cats = list(d.categories)
        numeric = d.values is not None and all(isinstance(c, (int, float, np.number)) for c in cats)
        lookup = {(float(c) if numeric else c): i for i, c in enumerate(cats)}
        vals = ref_s[known].tolist()
        try:
            codes = [lookup[float(v) if numeric else v] for v in vals]
        except (KeyError, TypeError, ValueError):
            bad = [v for v in vals if (float(v) if numeric and _is_num(v) else v) not in lookup][:5]
            raise InputError(f"human labels not among the categories: {bad}", source="<reference>",
                             expected=f"one of {cats}", fix="declare every label in levels=") from None
        truth[known] = codes
        if not known.any():
            raise InputError("no item of the ratings has a human label", source="<reference>",
                             fix="index the reference by the same item ids as the ratings")
    return _Parsed(Votes(d.ratings, None, tuple(d.categories)), d.items, tuple(d.raters), d.cluster,
                   np.asarray(d.values), truth, ref_s)


def _is_num(v) -> bool:
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def _folds(n: int, cluster, n_folds: int, rng, known=None) -> np.ndarray:
    """Fold of each item: whole clusters (or items) shuffled and dealt to the fold with the fewest
    labelled items so far (group K-fold)."""
    groups = np.arange(n) if cluster is None else pd.factorize(np.asarray(cluster), sort=True)[0]
    n_groups = int(groups.max()) + 1
    if n_groups < 2:
        raise InputError("cross-fitting needs at least two clusters (topics)", fix="pass cluster= with several "
                         "topics, or cluster=None to fold over items")
    k = min(n_folds, n_groups)
    size = np.bincount(groups, weights=None if known is None else known.astype(float), minlength=n_groups)
    order = rng.permutation(n_groups)
    order = order[np.argsort(-size[order], kind="stable")]
    load = np.zeros(k)
    fold_of_group = np.empty(n_groups, dtype=np.int64)
    for gidx in order:
        f = int(np.argmin(load))
        fold_of_group[gidx] = f
        load[f] += size[gidx]
    return fold_of_group[groups]


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------

@dataclass
class JuryResult:
    """The labels of a jury, and what its model estimated.

    Attributes
    ----------
    method : str
        The aggregation model (:mod:`metaeval.panels.aggregators`).
    labels : pandas.Series
        The aggregated label of each item (indexed by item). For mean/median: a number.
    probabilities : pandas.DataFrame or None
        Items × classes: the class probabilities (vote shares for a vote; posteriors for the EM
        models). None for mean/median.
    confusions : pandas.DataFrame or None
        Each judge's estimated confusion matrix: rows ``(judge, true class)``, columns the judge's
        label, each row summing to 1 (crowd-kit's ``errors_`` transposed). Dawid–Skene, one-coin
        Dawid–Skene and MACE.
    skills : pandas.Series or None
        One number per judge (``skills.name`` says which: ``weight``, ``accuracy``,
        ``expected_accuracy``, ``alpha`` (GLAD), ``competence`` (MACE)).
    priors : pandas.Series or None
        The estimated class prior.
    folds : pandas.Series or None
        The cross-fitting fold of each item when the model learned from human labels (the labels and
        probabilities of a fold come from a model fitted without that fold's human labels); the
        confusions, skills and priors are then those fitted on all human labels.
    reference : pandas.Series or None
        The human labels given (indexed by item).
    n_iter : int or None
    converged : bool or None
    seed : int or None
        The seed of the random draws (random tie-breaking, MACE's starts, the folds).
    options : dict
        The model's options as used.

    Examples
    --------
    >>> import metaeval
    >>> res = metaeval.jury([[1, 1, 0], [0, 0, 1], [1, 0, 1]], method="majority")
    >>> res.labels.tolist()
    [1, 0, 1]
    """

    method: str
    labels: pd.Series
    probabilities: pd.DataFrame | None = None
    confusions: pd.DataFrame | None = None
    skills: pd.Series | None = None
    priors: pd.Series | None = None
    folds: pd.Series | None = None
    reference: pd.Series | None = None
    n_iter: int | None = None
    converged: bool | None = None
    seed: int | None = None
    options: dict = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """One row per item: ``item`` (or the key's columns, e.g. ``query_id, doc_id``, when the items are
        a MultiIndex), ``label``, then ``p_<class>`` for each class, ``reference`` and ``fold`` where known.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import metaeval
        >>> metaeval.jury([["a", "a"], ["a", "b"]], method="majority").to_frame()
           item label  p_a  p_b
        0     0     a  1.0  0.0
        1     1     a  0.5  0.5
        """
        idx = self.labels.index
        if isinstance(idx, pd.MultiIndex):
            df = idx.to_frame(index=False, name=[n if n is not None else f"item_{i}" for i, n in enumerate(idx.names)])
            df["label"] = self.labels.to_numpy()
        else:
            df = pd.DataFrame({"item": idx, "label": self.labels.to_numpy()})
        if self.probabilities is not None:
            for c in self.probabilities.columns:
                df[f"p_{c}"] = self.probabilities[c].to_numpy()
        if self.reference is not None:
            df["reference"] = self.reference.to_numpy()
        if self.folds is not None:
            df["fold"] = self.folds.to_numpy()
        return df

    def agreement(self, statistic: str = "cohen_kappa", **kwargs):
        """The jury's agreement with the human labels (``reference=``), by any two-rater statistic.

        Parameters
        ----------
        statistic : str
            A name of :func:`metaeval.agreement_report`'s statistics, e.g. ``cohen_kappa``,
            ``krippendorff_alpha_nominal``, ``observed_agreement``, ``gwet_ac1``.
        **kwargs
            Passed to :func:`metaeval.agreement_report` (``cluster=``, ``n_resamples=``, ``rng=`` ...).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> import metaeval
        >>> res = metaeval.jury([[1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 0, 0]], reference=[1, 0, 0, 0])
        >>> round(res.agreement("observed_agreement", ci_method=None).estimate, 2)
        0.75
        """
        from ..agreement.coefficients import agreement_report

        if self.reference is None:
            raise InputError("the jury has no human labels to agree with", fix="pass reference= to jury()")
        ok = self.reference.notna().to_numpy() & self.labels.notna().to_numpy()
        rs = agreement_report(self.reference.to_numpy()[ok], self.labels.to_numpy()[ok], **kwargs)
        return rs.get(statistic)

    def __str__(self) -> str:
        lines = [f"Jury ({_agg.get(self.method).label}) of {len(self.judges)} judges on {len(self.labels)} items"]
        if self.folds is not None:
            lines.append(f"cross-fitted over {int(self.folds.max()) + 1} folds: each item's label comes from a "
                         "model fitted without its fold's human labels")
        if self.n_iter is not None:
            lines.append(f"EM iterations: {self.n_iter}" + ("" if self.converged is None else
                                                             (" (converged)" if self.converged else " (limit)")))
        if self.skills is not None:
            lines.append(f"{self.skills.name} by judge:")
            lines += [f"  {j}: {v:.4f}" for j, v in self.skills.items()]
        counts = self.labels.value_counts(sort=False).sort_index()
        lines.append("labels: " + ", ".join(f"{k}: {v}" for k, v in counts.items()) if len(counts) <= 12
                     else f"labels: mean {self.labels.mean():.4f}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<JuryResult {self.method}: {len(self.labels)} items, {len(self.judges)} judges>"

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(str(self)) + "</pre>"

    @property
    def judges(self) -> tuple:
        """The judges of the jury."""
        return tuple(self.options.get("judges", ()))


def _confusion_frame(conf: np.ndarray, judges, cats) -> pd.DataFrame:
    idx = pd.MultiIndex.from_product([list(judges), list(cats)], names=["judge", "true"])
    return pd.DataFrame(conf.reshape(len(judges) * len(cats), len(cats)), index=idx,
                        columns=pd.Index(list(cats), name="label"))


def _weights_vector(weights, judges) -> np.ndarray | None:
    if weights is None:
        return None
    if isinstance(weights, (dict, pd.Series)):
        w = pd.Series(weights)
        missing = [j for j in judges if j not in w.index]
        if missing:
            raise InputError(f"weights= has no weight for judge(s) {missing[:5]}", expected=f"a weight for each of {list(judges)}")
        return w.reindex(list(judges)).to_numpy(dtype=float)
    w = np.asarray(weights, dtype=float)
    if w.shape != (len(judges),):
        raise InputError(f"weights= has {w.size} numbers for {len(judges)} judges", expected="one weight per judge "
                         "(a sequence in the judges' order, or a mapping judge → weight)")
    return w


def _options(agg, ties, weights, options, categories=()) -> dict:
    opts = dict(options)
    unknown = [o for o in opts if o not in agg.options]
    if unknown:
        raise InputError(f"method {agg.name!r} takes no option {unknown[0]!r}",
                         expected=f"one of {', '.join(agg.options) or '(none)'}")
    if "ties" in agg.options:
        default = "midpoint" if agg.name == "median" else "lowest"
        t = default if ties is None else ties
        allowed = (("midpoint",) if agg.name == "median" else ()) + _agg.TIE_RULES
        if isinstance(t, str) or agg.name == "median":
            if t not in allowed:
                raise InputError(f"ties= must be one of {', '.join(allowed)}", text=str(ties))
        else:
            order = list(t)
            cats = list(categories)
            if sorted(map(str, order)) != sorted(map(str, cats)) or len(order) != len(cats):
                raise InputError("ties= as a preference order must list every category once", text=str(order),
                                 expected=f"an ordering of {cats}")
            t = [next(i for i, c in enumerate(cats) if str(c) == str(o)) for o in order]
        opts["ties"] = t
    elif ties is not None:
        raise InputError(f"method {agg.name!r} has no ties= (its labels are the argmax of its probabilities, ties "
                         "to the first category)")
    if weights is not None:
        if "weights" not in agg.options:
            raise InputError(f"method {agg.name!r} takes no weights=", fix="use method='weighted'")
        opts["weights"] = weights
    return opts


def jury(ratings, method: str = "majority", *, item: str | None = None, rater: str | None = None,
         value: str | None = None, levels=None, reference=None, cluster=None, weights=None, ties: str | None = None,
         n_folds: int = DEFAULT_FOLDS, rng=None, **options) -> JuryResult:
    """Combine several judges' labels of the same items into one label per item.

    Parameters
    ----------
    ratings : array-like or DataFrame
        Items × judges (NaN/None = not judged; a DataFrame's index names the items and its columns
        the judges), or a long DataFrame with ``item=``, ``rater=`` and ``value=`` columns — the
        forms :func:`metaeval.fleiss_kappa` takes.
    method : str
        One of :func:`metaeval.panels.aggregators.names`:

        ``majority``
            plurality vote; ties by ``ties=``: ``"lowest"`` (default: the first category in sorted
            order), ``"highest"``, ``"random"`` (with ``rng``), or a preference order (a list of
            every category, most preferred first). Probabilities are the vote shares.
        ``weighted``
            weighted vote, with ``weights=`` (one per judge, or a mapping judge → weight), or with
            weights learned from ``reference=`` (cross-fitted): w = max(0, log((K − 1) a / (1 − a))),
            a the judge's Laplace-smoothed accuracy on the human labels of the other folds.
        ``dawid_skene``
            Dawid & Skene (1979) by EM: per-judge confusion matrices and class priors, started from
            the vote shares; stops when crowd-kit's evidence lower bound per response gains less than
            ``tol`` (default 1e-5) or after ``n_iter`` (100) iterations. With ``reference=`` the
            items' human labels fix their posteriors (crowd-kit's ``true_labels``), cross-fitted.
        ``one_coin_dawid_skene``
            the same with one accuracy per judge, errors spread evenly (Zhang et al. 2016).
        ``glad``
            Whitehill et al. (2009): judge ability α and item difficulty β; M-step by scipy's
            conjugate gradient (``m_step_max_iter`` 25, ``m_step_tol`` 1e-2), uniform class prior.
        ``mace``
            Hovy et al. (2013), variational Bayes (``variant="vb"``, default) or EM, ``n_restarts``
            random starts drawn with ``rng`` (or ``init=(spam, strategy)``), ``n_iter`` 50.
        ``mean``, ``median``
            of numeric labels (``median``'s ``ties=``: ``"midpoint"`` (default), or the
            ``"lowest"``/``"highest"``/``"random"`` of the two middle labels for an even count).
    item, rater, value : str, optional
        Column names of a long DataFrame.
    levels : sequence, optional
        Every category (default: those the judges and the human labels used, sorted).
    reference : Series, dict or array-like, optional
        Human labels (a Series or dict indexed by item, or one label per row of ``ratings``; NaN =
        none). Models that learn from them are cross-fitted over ``cluster``; the others keep them
        for :meth:`JuryResult.agreement`.
    cluster : array-like or str, optional
        The topic of each item (one per row, or a column name as in :func:`metaeval.fleiss_kappa`):
        the cross-fitting keeps a topic's items in one fold. Default: fold over items.
    weights : sequence or mapping, optional
        The judges' weights for ``method="weighted"``.
    ties : str, optional
        The tie rule of ``majority``, ``weighted`` and ``median`` (see above).
    n_folds : int
        Folds of the cross-fitting (default 5; at most the number of topics).
    rng : None, int or numpy.random.Generator
        Seed of the random draws (folds, random ties, MACE's starts); the seed is recorded.
    **options
        The model's options (``n_iter``, ``tol``, ...; see above).

    Returns
    -------
    JuryResult
        ``labels`` (a Series indexed by item), ``probabilities`` (items × classes), ``confusions``
        (rows ``(judge, true class)``, columns the judge's label) and ``skills`` where the model has
        them.

    Raises
    ------
    InputError
        An unknown method or option, labels the method cannot take (text for mean/median), weights
        that do not match the judges, human labels outside the categories.

    Notes
    -----
    The EM models equal crowd-kit 1.4.2's ``DawidSkene``, ``OneCoinDawidSkene``, ``GLAD`` and
    ``MACE`` (with crowd-kit's start values) and ``MajorityVote`` (also with skills, for
    ``weighted``) on crowd-kit's test data and on the 33 LLMJudge label sets: labels exactly,
    probabilities to 1e-6 (``tests/test_jury.py``, ``tests/test_jury_realdata.py``). The EM runs on
    the distinct rows of votes with their multiplicities: Dawid–Skene on a million items of ten
    judges takes seconds (``benchmarks/bench_jury.py``).

    Examples
    --------
    >>> import pandas as pd
    >>> import metaeval
    >>> votes = pd.DataFrame({"judge_a": ["yes", "no", "yes", "no"], "judge_b": ["yes", "no", "no", "no"],
    ...                       "judge_c": ["no", "no", "yes", "yes"]}, index=["q1", "q2", "q3", "q4"])
    >>> metaeval.jury(votes).labels.to_dict()
    {'q1': 'yes', 'q2': 'no', 'q3': 'yes', 'q4': 'no'}
    >>> ds = metaeval.jury(votes, method="dawid_skene")
    >>> ds.labels.to_dict()
    {'q1': 'yes', 'q2': 'no', 'q3': 'no', 'q4': 'no'}
    >>> ds.probabilities.round(3)
    label   no  yes
    item
    q1     0.0  1.0
    q2     1.0  0.0
    q3     1.0  0.0
    q4     1.0  0.0
    >>> ds.confusions.loc["judge_c"].round(2)
    label    no   yes
    true
    no     0.33  0.67
    yes    1.00  0.00
    """
    agg = _agg.get(method)
    gen, seed = make_rng(rng)
    d = _parse(ratings, item=item, rater=rater, value=value, levels=levels, cluster=cluster, reference=reference,
               categorical=agg.categorical)
    like = ratings.index if isinstance(ratings, pd.DataFrame) and item is None else None
    wvec = _weights_vector(weights, d.judges)
    opts = _options(agg, ties, wvec, options, d.votes.categories)
    learn = (agg.learns != "no" and d.truth is not None and not (agg.name == "weighted" and wvec is not None))
    if agg.learns == "required" and d.truth is None:
        raise InputError(f"method {agg.name!r} learns from human labels", fix="pass reference=")
    if agg.name == "weighted" and wvec is None and d.truth is None:
        raise InputError("method='weighted' needs weights= (one per judge) or human labels to learn them from "
                         "(reference=)")
    n = d.votes.n_items
    if agg.categorical and d.votes.k == 1:
        # one category: every method returns it
        only = d.votes.categories[0]
        labels = pd.Series([only] * n, index=_index(d.items, like), name="label")
        probs = pd.DataFrame({only: np.ones(n)}, index=labels.index)
        return JuryResult(agg.name, labels, probs, reference=d.reference, seed=seed,
                          options={**opts, "judges": d.judges})
    folds = None
    if learn:
        known = d.truth >= 0
        fold = _folds(n, d.cluster, n_folds, gen, known=known)
        full = agg.fit(d.votes, truth=d.truth, rng=gen, **opts)
        probs = np.zeros((n, d.votes.k))
        lab = np.zeros(n, dtype=np.int64)
        for f in range(int(fold.max()) + 1):
            test = fold == f
            t = d.truth.copy()
            t[test] = -1
            if not (t >= 0).any():
                continue
            fit_f = agg.fit(d.votes, truth=t, rng=gen, **opts)
            probs[test] = fit_f.probabilities[test]
            lab[test] = fit_f.label_index()[test]
        fit = full
        folds = pd.Series(fold, index=_index(d.items, like), name="fold")
        fit_probs, fit_labels = probs, lab
    else:
        fit = agg.fit(d.votes, truth=None, rng=gen, **opts)
        fit_probs = fit.probabilities
        fit_labels = None if fit.values is not None else fit.label_index()
    index = _index(d.items, like)
    if fit.values is not None:
        labels = pd.Series(fit.values, index=index, name="label")
        probabilities = None
    else:
        cats = np.empty(d.votes.k, dtype=object)
        cats[:] = list(d.votes.categories)
        labels = pd.Series(cats[fit_labels], index=index, name="label")
        if all(isinstance(c, (int, np.integer)) for c in d.votes.categories):
            labels = labels.astype(np.int64)
        probabilities = pd.DataFrame(fit_probs, index=index, columns=pd.Index(list(d.votes.categories), name="label"))
    conf = None if fit.confusions is None else _confusion_frame(fit.confusions, d.judges, d.votes.categories)
    skills = None if fit.skills is None else pd.Series(fit.skills, index=pd.Index(list(d.judges), name="judge"),
                                                       name=fit.skill_name)
    priors = None if fit.priors is None else pd.Series(fit.priors, index=pd.Index(list(d.votes.categories),
                                                                                  name="label"), name="prior")
    opts_out = {k: v for k, v in opts.items() if k != "init"}
    opts_out["judges"] = d.judges
    return JuryResult(agg.name, labels, probabilities, conf, skills, priors, folds, d.reference, fit.n_iter,
                      fit.converged, seed, opts_out)


def _index(items, like=None) -> pd.Index:
    """The items as an index: a MultiIndex with the ratings' level names when they were indexed by several
    columns (``query_id, doc_id``), else one level named ``item``."""
    if isinstance(like, pd.MultiIndex) and len(items) and all(isinstance(t, tuple) for t in items):
        return pd.MultiIndex.from_tuples(list(items), names=like.names)
    return pd.Index(items, name="item")


# --------------------------------------------------------------------------------------------
# jury selection under a budget
# --------------------------------------------------------------------------------------------

@dataclass
class JurySelection:
    """The best jury of each size (or within each budget), chosen and measured without reusing items.

    Attributes
    ----------
    curve : pandas.DataFrame
        One row per size (or budget): ``n_judges`` (the size, or the largest size allowed), ``budget``
        and ``cost`` (with costs), ``judges`` (the jury chosen on all items, ``" + "``-joined),
        ``statistic``, ``estimate`` (the nested cross-fitted agreement: in each outer fold the jury is
        chosen on the other folds and scored on this one; pooled over the folds), ``apparent`` (the
        chosen jury's agreement on the items it was chosen on: optimistic), ``optimism``
        (apparent − estimate), ``stable`` (the share of outer folds that chose the same jury),
        ``search`` (``exhaustive`` or ``greedy``), ``n``, ``n_folds``, ``method``.
    best : tuple
        The judges of the row with the highest ``estimate``, as chosen on all items.
    selections : pandas.DataFrame
        Per outer fold and size/budget: the jury chosen on the training folds and its inner score.
    seed : int

    Examples
    --------
    >>> import numpy as np, metaeval
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.integers(0, 2, 300)
    >>> votes = np.column_stack([np.where(rng.random(300) < p, truth, 1 - truth) for p in (0.9, 0.8, 0.7, 0.6)])
    >>> sel = metaeval.select_jury(votes, truth, max_judges=3, rng=0)
    >>> sel.curve[["n_judges", "judges", "estimate", "apparent"]].round(3)
       n_judges     judges  estimate  apparent
    0         1          0     0.793     0.793
    1         2      0 + 1     0.630     0.630
    2         3  0 + 1 + 2     0.707     0.747
    """

    curve: pd.DataFrame
    best: tuple
    selections: pd.DataFrame
    seed: int | None = None

    def __str__(self) -> str:
        cols = [c for c in ("n_judges", "budget", "cost", "judges", "estimate", "apparent", "stable")
                if c in self.curve.columns]
        return ("Jury selection (nested cross-fitting; estimate = agreement on items not used to choose)\n"
                + self.curve[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(str(self)) + "</pre>"


class _Scorer:
    """Agreement of a jury's labels with the human labels, by a registered two-rater statistic."""

    def __init__(self, statistic: str, k: int, values):
        from ..core import registry

        scale = None
        if values is not None and np.asarray(values).dtype.kind in "biuf":   # numbers: the scale agreement_report infers
            from ..core.scale import Scale

            scale = Scale.infer(np.asarray(values, dtype=float), np.asarray(values, dtype=float))
        b = registry.resolve(statistic, scale=scale)      # the registry's default level/weights for that scale
        if b.statistic.family != "table" or b.statistic.components is not None:
            raise InputError(f"select_jury needs a scalar two-rater statistic, got {statistic!r}",
                             expected="e.g. cohen_kappa, cohen_kappa_quadratic, krippendorff_alpha_ordinal, "
                                      "observed_agreement")
        self.name = b.name
        self.k = k
        self.f = b.kernel(k, values)

    def __call__(self, truth: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """``labels``: (b, n) category indices (−1 = none) → (b,) statistic values."""
        labels = np.atleast_2d(labels)
        ok = (truth >= 0)[None, :] & (labels >= 0)
        code = truth[None, :] * self.k + labels
        b = labels.shape[0]
        flat = (np.arange(b)[:, None] * self.k * self.k + code)[ok]
        tables = np.bincount(flat, minlength=b * self.k * self.k).reshape(b, self.k * self.k).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(self.f(tables), dtype=float).reshape(b)


def _jury_labels(agg, votes: Votes, judges, truth, opts, gen, predict_items=None) -> np.ndarray:
    """Category index of the jury's label for every item (a learning model fits on ``truth``)."""
    sub = votes.subset(judges=list(judges))
    o = dict(opts)
    if "weights" in o and o["weights"] is not None:
        o["weights"] = np.asarray(o["weights"])[list(judges)]
    t = truth if agg.learns != "no" else None
    if agg.name == "weighted" and o.get("weights") is None and t is not None and not (t >= 0).any():
        return np.full(votes.n_items, -1, dtype=np.int64)
    fit = agg.fit(sub, truth=t, rng=gen, **o)
    lab = fit.label_index().astype(np.int64)
    # an item none of the jury judged gets no label
    lab[(sub.idx < 0).all(axis=1)] = -1
    return lab


def _score_subsets(subsets, agg, votes, truth, items, opts, gen, scorer, inner) -> np.ndarray:
    """Score of each subset on ``items``: in-sample for a model that does not learn, else cross-fitted
    over ``inner`` folds (an array of fold ids for ``items``)."""
    out = np.empty((len(subsets), len(items)), dtype=np.int64)
    sub_votes = votes.subset(items=items)
    t_items = truth[items]
    for s, judges in enumerate(subsets):
        if inner is None:
            out[s] = _jury_labels(agg, sub_votes, judges, t_items, opts, gen)
        else:
            lab = np.full(len(items), -1, dtype=np.int64)
            for f in np.unique(inner):
                test = inner == f
                t = t_items.copy()
                t[test] = -1
                lab[test] = _jury_labels(agg, sub_votes, judges, t, opts, gen)[test]
            out[s] = lab
    return scorer(t_items, out)


def _search(r, costs, max_judges, budgets, max_subsets, score):
    """The best subset per size (no costs) or per budget, exhaustive when affordable, else greedy.

    ``score(list of subsets) -> array``. Returns a list of (key, subset, score, search)."""
    out = []
    if costs is None:
        best_prev = ()
        for s in range(1, max_judges + 1):
            if math.comb(r, s) <= max_subsets:
                cands = list(itertools.combinations(range(r), s))
                how = "exhaustive"
            else:
                cands = [tuple(sorted(best_prev + (j,))) for j in range(r) if j not in best_prev]
                how = "greedy"
            sc = score(cands)
            i = _argbest(sc)
            best_prev = cands[i]
            out.append((s, cands[i], float(sc[i]), how))
        return out
    n_all = sum(math.comb(r, s) for s in range(1, max_judges + 1))
    if n_all <= max_subsets:
        cands = [c for s in range(1, max_judges + 1) for c in itertools.combinations(range(r), s)]
        sc = score(cands)
        cost = np.array([costs[list(c)].sum() for c in cands])
        for b in budgets:
            ok = np.flatnonzero(cost <= b + 1e-12)
            if len(ok) == 0:
                out.append((b, (), np.nan, "exhaustive"))
                continue
            i = ok[_argbest(sc[ok])]
            out.append((b, cands[i], float(sc[i]), "exhaustive"))
        return out
    for b in budgets:
        cur, cur_score, best = (), -np.inf, ((), np.nan)
        while len(cur) < max_judges:
            spent = costs[list(cur)].sum() if cur else 0.0
            cands = [tuple(sorted(cur + (j,))) for j in range(r) if j not in cur and spent + costs[j] <= b + 1e-12]
            if not cands:
                break
            sc = score(cands)
            i = _argbest(sc)
            cur, cur_score = cands[i], float(sc[i])
            if not (cur_score <= best[1]):      # NaN-safe: the first, or a better one
                best = (cur, cur_score)
        out.append((b, best[0], best[1], "greedy"))
    return out


def _argbest(sc: np.ndarray) -> int:
    """The highest score (the first on ties, so the smaller-index judges; NaN never wins)."""
    s = np.where(np.isnan(sc), -np.inf, sc)
    return int(np.argmax(s))


def select_jury(ratings, reference, *, method: str = "majority", statistic: str = "cohen_kappa",
                max_judges: int | None = None, costs=None, budgets=None, item: str | None = None,
                rater: str | None = None, value: str | None = None, levels=None, cluster=None,
                n_folds: int = DEFAULT_FOLDS, inner_folds: int = DEFAULT_FOLDS, max_subsets: int = 2000,
                weights=None, ties: str | None = None, rng=None, **options) -> JurySelection:
    """The best jury of k judges (or within a budget) by agreement with humans, measured honestly.

    Parameters
    ----------
    ratings : array-like or DataFrame
        The judges' labels, as :func:`jury` takes them.
    reference : Series, dict or array-like
        Human labels (as :func:`jury`'s ``reference=``).
    method : str
        The jury's aggregation model (:func:`jury`'s ``method=``; categorical models).
    statistic : str
        A scalar two-rater statistic of the registry: ``cohen_kappa`` (default),
        ``cohen_kappa_quadratic``, ``krippendorff_alpha_ordinal``, ``observed_agreement`` ...
    max_judges : int, optional
        The largest jury (default: all judges, at most 9).
    costs : sequence or mapping, optional
        The cost of each judge (e.g. dollars per item). Then the curve is over ``budgets``.
    budgets : sequence of float, optional
        Budgets of the curve (default: the total cost of the 1, 2, … cheapest judges).
    item, rater, value, levels, cluster, weights, ties, **options
        As in :func:`jury`. ``cluster`` also makes the folds (topics stay whole).
    n_folds, inner_folds : int
        Outer folds (the jury is chosen on the others and scored on this one) and, for a model that
        learns from the human labels, inner folds (the candidate juries are scored by cross-fitting
        on the outer training items).
    max_subsets : int
        A size (or, with costs, all sizes together) with more candidate juries than this is searched
        greedily (add the judge that helps most) instead of exhaustively.
    rng : None, int or numpy.random.Generator
        Seed of the folds and of any random draws.

    Returns
    -------
    JurySelection
        ``curve``: agreement vs number of judges (or budget), the nested cross-fitted ``estimate``
        beside the optimistic in-sample ``apparent`` value of the same choice.

    Raises
    ------
    InputError
        No human labels, an unknown method or statistic, costs that do not match the judges.

    Notes
    -----
    Choosing the best of many juries on the same items that then measure it overstates its
    agreement (the winner's curse). Here, for each outer fold, the search (over all juries of a
    size, or greedy forward) uses only the other folds' items; the chosen jury then labels the held-out
    fold (a learning model is fitted on the training folds' human labels only). The pooled agreement
    over the held-out folds is the ``estimate``; its gap to ``apparent`` is the selection effect.

    Examples
    --------
    >>> import numpy as np, metaeval
    >>> rng = np.random.default_rng(3)
    >>> truth = rng.integers(0, 3, 400)
    >>> acc = (0.85, 0.75, 0.7, 0.55, 0.5)
    >>> votes = np.column_stack([np.where(rng.random(400) < a, truth, rng.integers(0, 3, 400)) for a in acc])
    >>> sel = metaeval.select_jury(votes, truth, max_judges=3, costs=[5, 2, 2, 1, 1], budgets=[2, 5, 9], rng=0)
    >>> sel.curve[["budget", "cost", "judges", "estimate", "apparent"]].round(3)
       budget  cost     judges  estimate  apparent
    0     2.0   2.0          2     0.704     0.734
    1     5.0   5.0          0     0.816     0.850
    2     9.0   9.0  0 + 1 + 2     0.925     0.925
    """
    agg = _agg.get(method)
    if not agg.categorical:
        raise InputError(f"select_jury needs a categorical jury method, got {method!r}")
    if reference is None:
        raise InputError("select_jury needs human labels (reference=) to choose a jury by")
    gen, seed = make_rng(rng)
    d = _parse(ratings, item=item, rater=rater, value=value, levels=levels, cluster=cluster, reference=reference,
               categorical=True)
    r = len(d.judges)
    wvec = _weights_vector(weights, d.judges)
    opts = _options(agg, ties, wvec, options, d.votes.categories)
    if agg.name == "weighted" and wvec is None:
        opts["weights"] = None
    scorer = _Scorer(statistic, d.votes.k, d.values)
    learns = agg.learns != "no" and not (agg.name == "weighted" and wvec is not None)
    mj = min(r, 9) if max_judges is None else int(max_judges)
    if not 1 <= mj <= r:
        raise InputError(f"max_judges must be between 1 and {r}", text=str(max_judges))
    cvec = None
    if costs is not None:
        cvec = _weights_vector(costs, d.judges)
        if not np.all(np.isfinite(cvec)) or (cvec < 0).any():
            raise InputError("costs must be non-negative numbers", text=str(costs))
        if budgets is None:
            budgets = np.cumsum(np.sort(cvec))[:mj].tolist()
        budgets = [float(b) for b in budgets]
    known = d.truth >= 0
    labelled = np.flatnonzero(known)
    fold = _folds(len(labelled), None if d.cluster is None else d.cluster[labelled], n_folds, gen)

    def inner_of(items_pos):
        if not learns:
            return None
        cl = None if d.cluster is None else d.cluster[items_pos]
        return _folds(len(items_pos), cl, inner_folds, gen)

    def search_on(items_pos, truth_vec):
        inner = inner_of(items_pos)
        return _search(r, cvec, mj, budgets, max_subsets,
                       lambda subsets: _score_subsets(subsets, agg, d.votes, truth_vec, items_pos, opts, gen,
                                                      scorer, inner))

    # on all labelled items: the jury each size/budget would pick, and its (optimistic) score
    full = search_on(labelled, d.truth)
    # nested: choose on the outer training folds, label the outer test fold
    n_keys = len(full)
    pooled = np.full((n_keys, d.votes.n_items), -1, dtype=np.int64)
    rows = []
    for f in range(int(fold.max()) + 1):
        train = labelled[fold != f]
        test = labelled[fold == f]
        t_train = d.truth.copy()
        t_train[test] = -1
        chosen = search_on(train, t_train)
        for i, (key, subset, sc, _how) in enumerate(chosen):
            rows.append({"fold": f, "key": key, "judges": _names(subset, d.judges), "inner_score": sc})
            if subset:
                lab = _jury_labels(agg, d.votes, subset, t_train, opts, gen)
                pooled[i, test] = lab[test]
    estimates = scorer(d.truth, pooled)
    sel = pd.DataFrame(rows)
    out = []
    for i, (key, subset, sc, how) in enumerate(full):
        names = _names(subset, d.judges)
        row = {}
        if cvec is None:
            row["n_judges"] = key
        else:
            row["budget"] = key
            row["cost"] = float(cvec[list(subset)].sum()) if subset else 0.0
            row["n_judges"] = len(subset)
        row.update({"judges": names, "statistic": scorer.name, "estimate": float(estimates[i]), "apparent": sc,
                    "optimism": sc - float(estimates[i]),
                    "stable": float(np.mean(sel.loc[sel["key"] == key, "judges"] == names)),
                    "search": how, "n": int(len(labelled)), "n_folds": int(fold.max()) + 1, "method": agg.name})
        out.append(row)
    curve = pd.DataFrame(out)
    ok = curve["estimate"].notna()
    best_row = int(curve.loc[ok, "estimate"].idxmax()) if ok.any() else 0
    best = tuple(d.judges[j] for j in full[best_row][1])
    return JurySelection(curve, best, sel, seed)


def _names(subset, judges) -> str:
    return " + ".join(str(judges[j]) for j in subset)
