"""The registry of statistics: each statistic of metaeval is declared here once.

A :class:`Statistic` says what a statistic is called, what it is a function of (a K×K contingency
table, or per-item counts of many raters), its vectorized kernel on those sufficient statistics,
when it is defined, its default weights, its analytic variance where one exists, and the
independent implementation it is tested against. Every consumer — the public functions,
``agreement_report``, ``agreement_by``, ``agreement_difference``, ``sensitivity``, the validation
design, the study runner and the figures — looks statistics up here; nothing else keeps a map of
names to kernels.

Adding a coefficient is one :func:`register` call next to its kernel (see
``metaeval/agreement/kernels.py``) plus its reference test; ``tests/test_registry.py`` then checks
that it gives the same value through every consumer.

Names
-----
A statistic is looked up by its name, optionally with its weights (agreement weights for the kappa
family, the level of measurement for Krippendorff's alpha) as a suffix:
``cohen_kappa``, ``cohen_kappa_quadratic``, ``gwet_ac2`` (quadratic by default),
``gwet_ac2_linear``, ``krippendorff_alpha_interval``. :func:`resolve` turns any of these into a
:class:`BoundStatistic` (the declaration plus its weights); its :attr:`BoundStatistic.name` is the
canonical name reports print (the suffix appears only when the weights differ from no weights, and
for Krippendorff's alpha always).

Examples
--------
>>> from metaeval.core import registry
>>> b = registry.resolve("gwet_ac2")
>>> b.statistic.name, b.weights, b.name
('gwet_ac2', 'quadratic', 'gwet_ac2')
>>> registry.resolve("cohen_kappa", weights="linear").name
'cohen_kappa_linear'
>>> "scott_pi" in registry.names(family="table")
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Statistic", "BoundStatistic", "Label", "METHOD_LABELS", "display_label", "register", "get", "parse",
           "resolve", "default_weights", "default_level", "names", "statistics", "UNDEFINED_PE_TOL"]

#: Chance agreement within this distance of 1 makes a chance-corrected coefficient undefined
#: (κ = (p_o − p_e)/(1 − p_e) with a zero denominator). One tolerance for the whole package.
UNDEFINED_PE_TOL = 1e-12

#: modules that declare statistics (imported on the first lookup)
_PROVIDERS = ("metaeval.agreement.kernels", "metaeval.agreement.multirater", "metaeval.levels.methods")

_REGISTRY: dict[str, Statistic] = {}
_loaded = False


@dataclass(frozen=True)
class Statistic:
    """The declaration of one statistic.

    Parameters
    ----------
    name : str
        The name used everywhere (results, reports, study files), e.g. ``"cohen_kappa"``.
    label : str
        How a reader sees it in tables and figures, e.g. ``"Cohen's κ"`` (plain text: Markdown, HTML,
        the terminal).
    family : {"table", "multirater"}
        What the kernel is a function of: ``"table"`` — a K×K contingency table of two raters
        (rows: reference, columns: candidate), flattened to K² cells; ``"multirater"`` — per-item
        counts of many raters (see :mod:`metaeval.agreement.multirater`).
    kernel : callable
        A factory ``kernel(k, w, levels, **params) -> f`` where ``f`` maps an array ``(b, D)`` of
        sufficient statistics to ``(b,)`` values (or ``(b, m)`` for a vector statistic), fully
        vectorized over b (the resampling engine passes thousands of replicates at once).
    weights : {"agreement", "level"} or None
        What the statistic's weights are: agreement weights (a K×K matrix or a named scheme of
        :func:`metaeval.core.weights.weight_matrix`), a level of measurement (Krippendorff's
        alpha: nominal, ordinal, interval, ratio), or None when it takes none.
    default_weights : str or None
        The weights used when none are given (``"identity"`` for Cohen's kappa, ``"quadratic"`` for
        Gwet's AC2, ``"nominal"`` for Krippendorff's alpha). For a statistic whose weights are a
        level of measurement, the scale's kind replaces it when the scale is known
        (:func:`default_weights`, the one rule every consumer applies).
    analytic : str or None
        ``"module:function"`` of the analytic variance ``f(table, w) -> AnalyticResult`` (see
        :mod:`metaeval.agreement.analytic`), or None when only resampling gives an interval.
    components : callable or None
        For a vector statistic, ``components(k, labels) -> list of names`` of its entries.
    defined : str
        When the statistic is defined (documentation; undefined values are NaN with a warning).
    warn_undefined : bool
        Whether a NaN estimate gets an :class:`~metaeval.UndefinedStatisticWarning` naming why.
    symmetric : bool
        Whether it is unchanged when reference and candidate swap (the registry test checks it).
    needs_binary : bool
        Whether it needs K = 2.
    reference : str
        The independent implementation or published table it is tested against.
    public : str or None
        The public function of ``metaeval`` that computes it.
    math_label : str or None
        The label as LaTeX source (math in ``$...$``, already escaped) where the plain text has a
        subscript that escaping alone would print literally (``κ_max`` → ``$\\kappa_{\\max}$``);
        None: LaTeX writers escape ``label`` (:func:`metaeval.output.escape.latex` turns κ into
        ``$\\kappa$``).
    group_kernel : callable or None
        Family ``"levels"`` (correlations of score judges, :mod:`metaeval.levels.methods`):
        ``group_kernel(h, m, valid, **options) -> (values, weights)`` over groups given as arrays
        ``(G, n)``; None for the methods evaluated on the whole matrix (tie calibration, soft
        pairwise accuracy). Their ``kernel`` raises: they are not functions of a K×K table.

    Returns
    -------
    Statistic

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.get("scott_pi").label
    "Scott's π"
    """

    name: str
    label: str
    family: str
    kernel: Callable
    weights: str | None = None
    default_weights: str | None = None
    analytic: str | None = None
    components: Callable | None = None
    defined: str = ""
    warn_undefined: bool = False
    symmetric: bool = True
    needs_binary: bool = False
    reference: str = ""
    public: str | None = None
    params: tuple = field(default=())
    math_label: str | None = None
    group_kernel: Callable | None = None

    def analytic_function(self) -> Callable | None:
        """The analytic-variance function, imported on demand (None when there is none).

        Returns
        -------
        callable or None

        Examples
        --------
        >>> from metaeval.core import registry
        >>> registry.get("kappa_max").analytic_function() is None
        True
        """
        if self.analytic is None:
            return None
        mod, fn = self.analytic.split(":")
        return getattr(importlib.import_module(mod), fn)


@dataclass(frozen=True)
class BoundStatistic:
    """A statistic with its weights fixed: what a consumer evaluates.

    Parameters
    ----------
    statistic : Statistic
    weights : str, numpy.ndarray or None
        Agreement weights (name or K×K matrix) or the level of measurement; None when the
        statistic takes none.

    Returns
    -------
    BoundStatistic

    Examples
    --------
    >>> from metaeval.core import registry
    >>> b = registry.resolve("cohen_kappa_quadratic")
    >>> f = b.kernel(2)
    >>> round(float(f([[40, 10, 10, 40]])[0]), 4)
    0.6
    """

    statistic: Statistic
    weights: object = None
    params: tuple = ()

    @property
    def name(self) -> str:
        """The canonical name, with the weights as a suffix where they matter."""
        s = self.statistic
        if s.weights == "level":
            return f"{s.name}_{self.weights}"
        if s.weights is None or self.weights is None:
            return s.name
        wname = self.weights if isinstance(self.weights, str) else "weighted"
        if wname == s.default_weights or (wname in ("identity", "unweighted", "none") and
                                          s.default_weights in (None, "identity")):
            return s.name
        return f"{s.name}_{wname}"

    @property
    def label(self) -> str:
        """The reader-facing label, with the weights in brackets where they matter."""
        s = self.statistic
        if self.name == s.name:
            return s.label
        wname = self.weights if isinstance(self.weights, str) else "custom weights"
        return f"{s.label} ({wname})"

    @property
    def math_label(self) -> str | None:
        """The label as LaTeX source (None: escape :attr:`label`), with the weights as in :attr:`label`."""
        s = self.statistic
        if s.math_label is None or self.name == s.name:
            return s.math_label
        wname = self.weights if isinstance(self.weights, str) else "custom weights"
        return f"{s.math_label} ({wname})" if wname.replace(" ", "").isalnum() else None

    def weight_matrix(self, k: int, levels=None) -> np.ndarray | None:
        """The K×K agreement weights (None for statistics without agreement weights)."""
        if self.statistic.weights != "agreement":
            return None
        from .weights import weight_matrix

        return weight_matrix(self.weights, k, levels)

    def kernel(self, k: int, levels=None) -> Callable[[np.ndarray], np.ndarray]:
        """The vectorized kernel for a K-level scale.

        ``levels`` are the categories' values. When they are unknown (None: a bare count table),
        named agreement weights use irrCAC's defaults (positions, 1..K for ratio weights) and the
        kernel's values are 0..K−1.
        """
        s = self.statistic
        if s.weights == "agreement":
            w = self.weight_matrix(k, levels)
        elif s.weights == "level":
            w = self.weights
        else:
            w = np.eye(k)
        values = np.arange(k, dtype=float) if levels is None else np.asarray(levels, dtype=float)
        return s.kernel(k, w, values, **dict(self.params))

    def components(self, k: int, labels=None) -> list[str]:
        """Names of the entries the kernel returns (one name for a scalar statistic)."""
        if self.statistic.components is None:
            return [self.name]
        return list(self.statistic.components(k, list(labels) if labels is not None else list(range(k)),
                                              **dict(self.params)))


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for mod in _PROVIDERS:
            importlib.import_module(mod)


def register(statistic: Statistic) -> Statistic:
    """Declare a statistic (called once, next to its kernel).

    Parameters
    ----------
    statistic : Statistic

    Returns
    -------
    Statistic
        The same object, so that ``X = register(Statistic(...))`` reads naturally.

    Raises
    ------
    ValueError
        When the name is taken by another declaration.

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.register(registry.get("cohen_kappa")) is registry.get("cohen_kappa")
    True
    """
    old = _REGISTRY.get(statistic.name)
    if old is not None and old is not statistic:
        raise ValueError(f"statistic {statistic.name!r} is declared twice")
    _REGISTRY[statistic.name] = statistic
    return statistic


def get(name: str) -> Statistic:
    """The declaration of a statistic by its exact name.

    Parameters
    ----------
    name : str

    Returns
    -------
    Statistic

    Raises
    ------
    ValueError
        Naming the known statistics (and the nearest one) when ``name`` is unknown.

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.get("gwet_ac1").reference.startswith("irrCAC")
    True
    """
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        import difflib

        near = difflib.get_close_matches(name, list(_REGISTRY), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise ValueError(f"unknown statistic {name!r}{hint}; known: {', '.join(sorted(_REGISTRY))}") from None


def resolve(name: str, weights=None, *, scale=None, **params) -> BoundStatistic:
    """A statistic with its weights, from a plain or suffixed name.

    Parameters
    ----------
    name : str
        ``"cohen_kappa"``, ``"cohen_kappa_linear"``, ``"gwet_ac2"``, ``"krippendorff_alpha_ordinal"`` ...
    weights : str or array, optional
        Overrides the suffix. When neither is given the default applies: :func:`default_weights`
        of the declaration and the scale.
    scale : Scale, optional
        The labels' scale (its ``kind`` and ``k``), which sets the default level of measurement of
        Krippendorff's alpha. Every consumer that knows the scale passes it here.
    **params
        Parameters of parameterized statistics (e.g. ``prevalence=`` of ``kappa_at_prevalence``).

    Returns
    -------
    BoundStatistic

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.resolve("krippendorff_alpha_interval").weights
    'interval'
    >>> registry.resolve("cohen_kappa").name
    'cohen_kappa'
    >>> from metaeval import Scale
    >>> registry.resolve("krippendorff_alpha", scale=Scale((0, 1, 2, 3), kind="ordinal")).name
    'krippendorff_alpha_ordinal'
    """
    stat, suffix = parse(name)
    if weights is None:
        weights = suffix
    if stat.weights is None:
        if weights is not None and not (isinstance(weights, str) and weights in ("identity", "unweighted", "none")):
            raise ValueError(f"{stat.name} takes no weights, got {weights!r}")
        weights = None
    elif weights is None:
        weights = default_weights(stat, scale)
    missing = [p for p in stat.params if p not in params]
    if missing:
        raise ValueError(f"{stat.name} needs {', '.join(f'{p}=' for p in missing)}")
    return BoundStatistic(stat, weights, tuple(sorted(params.items())))


def parse(name: str) -> tuple[Statistic, str | None]:
    """Split a plain or suffixed name into its declaration and the weights suffix.

    Parameters
    ----------
    name : str

    Returns
    -------
    (Statistic, str or None)
        The declaration, and the suffix (``"quadratic"`` of ``"cohen_kappa_quadratic"``) or None.

    Examples
    --------
    >>> from metaeval.core import registry
    >>> stat, suffix = registry.parse("cohen_kappa_quadratic")
    >>> stat.name, suffix
    ('cohen_kappa', 'quadratic')
    """
    _load()
    stat = _REGISTRY.get(name)
    if stat is not None:
        return stat, None
    for cand in sorted(_REGISTRY, key=len, reverse=True):
        if name.startswith(cand + "_") and _REGISTRY[cand].weights is not None:
            return _REGISTRY[cand], name[len(cand) + 1:]
    return get(name), None  # raises with the list of names


def default_weights(statistic: Statistic | str, scale=None):
    """The weights a statistic uses when none are given: the one rule for every entry point.

    The declaration's ``default_weights``, except for a statistic whose weights are a level of
    measurement (Krippendorff's alpha): there the scale's kind when the scale is known
    (:func:`default_level`), so that ``metaeval.krippendorff_alpha(paired)``, ``agreement_report``,
    ``agreement_by``, ``agreement_difference``, ``judge_panel``, ``sensitivity`` and study files give
    the same alpha for the same labels.

    Parameters
    ----------
    statistic : Statistic or str
        A declaration or its exact name.
    scale : Scale, optional
        The labels' scale (anything with ``kind`` and ``k``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from metaeval import Scale
    >>> from metaeval.core import registry
    >>> registry.default_weights("gwet_ac2"), registry.default_weights("krippendorff_alpha")
    ('quadratic', 'nominal')
    >>> registry.default_weights("krippendorff_alpha", Scale((0, 1, 2, 3), kind="ordinal"))
    'ordinal'
    """
    stat = get(statistic) if isinstance(statistic, str) else statistic
    if stat.weights == "level" and scale is not None:
        return default_level(getattr(scale, "kind", None), int(scale.k))
    return stat.default_weights


def default_level(kind: str | None, k: int) -> str:
    """Krippendorff's level of measurement when none is asked for: the scale's kind (the one rule).

    Parameters
    ----------
    kind : str or None
        The scale's kind (``metaeval.Scale.kind``).
    k : int
        Number of levels (two levels are always nominal).

    Returns
    -------
    str

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.default_level("ordinal", 4), registry.default_level("ordinal", 2)
    ('ordinal', 'nominal')
    """
    return kind if kind in ("nominal", "ordinal", "interval", "ratio") and k > 2 else "nominal"


@dataclass(frozen=True)
class Label:
    """How a reader sees a name: plain text, and LaTeX source where the text needs math.

    Parameters
    ----------
    text : str
        For Markdown, HTML, the terminal and figures (escaped by each writer), e.g. ``"κ_max"``.
    latex : str or None
        LaTeX source, already escaped, math in ``$...$`` (``"$\\kappa_{\\max}$"``); None when
        escaping ``text`` gives the right LaTeX (:func:`metaeval.output.escape.latex`).

    Returns
    -------
    Label

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.Label("RBO")
    Label(text='RBO', latex=None)
    """

    text: str
    latex: str | None = None


#: Labels of result names that are not declared statistics: the methods of the system-ranking
#: correlations (:data:`metaeval.systems.ranking.RANK_METHODS`) and of score correlations. Every
#: writer (report tables, captions) reads them through :func:`display_label`.
METHOD_LABELS: dict[str, Label] = {
    "kendall_b": Label("Kendall's τ_b", r"Kendall's $\tau_b$"),
    "kendall_a": Label("Kendall's τ_a", r"Kendall's $\tau_a$"),
    "kendall_tau": Label("Kendall's τ_b", r"Kendall's $\tau_b$"),
    "kendall_tau_b": Label("Kendall's τ_b", r"Kendall's $\tau_b$"),
    "spearman": Label("Spearman's ρ", r"Spearman's $\rho$"),
    "spearman_rho": Label("Spearman's ρ", r"Spearman's $\rho$"),
    "pearson": Label("Pearson's r", r"Pearson's $r$"),
    "pearson_r": Label("Pearson's r", r"Pearson's $r$"),
    "tau_ap": Label("τ_AP", r"$\tau_{\mathrm{AP}}$"),
    "tau_ap_b": Label("τ_AP,b", r"$\tau_{\mathrm{AP},b}$"),
    "rbo": Label("RBO"),
    "top_k_overlap": Label("top-k overlap", r"top-$k$ overlap"),
    "max_rank_change": Label("largest rank change"),
    "discordant_pairs": Label("discordant pairs"),
    "discordant_fraction": Label("discordant fraction"),
}


def display_label(name: str) -> Label:
    """The reader-facing label of a statistic (weights included) or of a method name.

    The one lookup every writer uses: a declared statistic's :attr:`Statistic.label` and
    :attr:`Statistic.math_label` (through :func:`resolve`, so ``cohen_kappa_linear`` reads
    "Cohen's κ (linear)"), else :data:`METHOD_LABELS`, else the name itself.

    Parameters
    ----------
    name : str
        A statistic name (``cohen_kappa``, ``kappa_max``, ``gwet_ac2_linear``) or a method name
        (``kendall_b``, ``tau_ap``, ``rbo``, ``spearman``).

    Returns
    -------
    Label

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.display_label("kappa_max")
    Label(text='κ_max', latex='$\\\\kappa_{\\\\max}$')
    >>> registry.display_label("tau_ap").latex, registry.display_label("cohen_kappa").text
    ('$\\\\tau_{\\\\mathrm{AP}}$', "Cohen's κ")
    >>> registry.display_label("win_rate")
    Label(text='win_rate', latex=None)
    """
    name = str(name)
    if name in METHOD_LABELS:
        return METHOD_LABELS[name]
    try:
        b = resolve(name)
    except (ValueError, TypeError):      # not a declared statistic (or one that needs parameters)
        try:
            stat, _ = parse(name)
        except ValueError:
            return Label(name)
        if stat.name != name:
            return Label(name)
        return Label(stat.label, stat.math_label)
    return Label(b.label, b.math_label)


def names(family: str | None = None) -> list[str]:
    """Names of the registered statistics (of one family), in declaration order.

    Parameters
    ----------
    family : str, optional
        ``"table"`` or ``"multirater"``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from metaeval.core import registry
    >>> registry.names("table")[:2]
    ['observed_agreement', 'cohen_kappa']
    """
    _load()
    return [n for n, s in _REGISTRY.items() if family is None or s.family == family]


def statistics(family: str | None = None) -> Sequence[Statistic]:
    """The registered declarations (of one family), in declaration order.

    Parameters
    ----------
    family : str, optional

    Returns
    -------
    list of Statistic

    Examples
    --------
    >>> from metaeval.core import registry
    >>> all(s.family == "table" for s in registry.statistics("table"))
    True
    """
    _load()
    return [s for s in _REGISTRY.values() if family is None or s.family == family]
