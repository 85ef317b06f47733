"""Outcomes of a pairwise battle and the tie rules, declared once.

A battle row has an outcome among ``A, tie_a, tie, tie_b, B, invalid`` (:func:`metaeval.read_battles`
normalizes spellings): the first-shown answer is better, a tie leaning to it (OpenING's "Tie(A)"),
a plain tie, a tie leaning to the second, the second is better, or a parse failure / refusal.

Papers count ties in incompatible ways. A **tie rule** says, for each outcome, which verdict it is
(``"A"``, ``"tie"``, ``"B"``, or left out) and how much it is worth to each side. Every consumer —
win rates, judge–human agreement, position bias, Bradley–Terry, the length-controlled win rate,
the model-ranking correlation — looks its rule up in :data:`RULES`; nothing else spells a rule out.

=================  ======  =======  =======  =======  ======  =================================
rule               A       tie_a    tie      tie_b    B       win rate of the first-shown model
=================  ======  =======  =======  =======  ======  =================================
``fdt``            A 1     A 1      tie 0*   B 0      B 0     (W + LW) / N  (force-dividing tie)
``without_ties``   A 1     —        —        —        B 0     W / (W + L)
``tie_zero``       A 1     tie 0    tie 0    tie 0    B 0     W / N
``tie_half``       A 1     tie ½    tie ½    tie ½    B 0     (W + ½(LW + T + LL)) / N
``exact``          A       tie_a    tie      tie_b    B       (agreement on the five labels only)
``soft``           preference p ∈ [1, 2]: 2 − p for the first, p − 1 for the second (AlpacaEval)
=================  ======  =======  =======  =======  ======  =================================

Each cell is the verdict and the credit (numerator) of the first-shown model; the second gets
1 − credit for a decisive verdict and the same credit for a tie (so under ``tie_zero`` a tie is
worth 0 to both). "—" leaves the battle out of numerator and denominator. W, LW, T, LL, L count a
model's decisive wins, ties leaning to it, plain ties, ties leaning away and decisive losses
(N = all five). ``*`` FDT's plain tie has options (OpenING's protocol has none; its scripts differ):
``"zero"`` a tie worth 0 (``calculate_model_winrate.py``), ``"half"``, ``"drop"`` (left out),
``"first"`` (won by the first-shown side, ``calculate_agreement.py``'s ``force_divide_tie``) and
``"tie"`` (its own verdict in agreement; worth 0 in a win rate).

The same table gives:

* win rates — numerator and denominator weights of W, LW, T, LL, L (:meth:`TieRule.win_weights`);
* agreement — the verdict classes and, for ``tie_half``, half credit when one side says tie and
  the other decides (``1 − |s_ref − s_cand|`` with s = 1, ½, 0 for A, tie, B:
  :meth:`TieRule.agreement_spec`);
* models (Bradley–Terry, length control) — a verdict A / tie / B per outcome (a tie a tie, the
  rule's credit playing no part: :meth:`TieRule.model_columns`, :meth:`TieRule.model_target`).

References
----------
Zhou et al. (2024), OpenING, arXiv:2411.18499, scripts ``calculate_model_winrate.py``
(``tie2ABdiv``, ``without_tie``, ``with_tie``, ``with_tie_equaldiv``) and ``calculate_agreement.py``;
Dubois et al. (2024), AlpacaEval (soft preferences), arXiv:2404.04475.

Examples
--------
>>> from metaeval.pairwise import outcomes
>>> outcomes.tie_rule("tie_half").win_weights()
(array([1. , 0.5, 0.5, 0.5, 0. ]), array([1., 1., 1., 1., 1.]))
>>> outcomes.tie_rule("fdt", plain_tie="drop").win_weights()
(array([1., 1., 0., 0., 0.]), array([1., 1., 0., 1., 1.]))
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["OUTCOMES", "TIE_RULES", "RULES", "TieRule", "tie_rule", "tie_rule_table", "rules_for", "select_rules"]

#: The normalized outcomes, in code order (``invalid``: a parse failure or refusal).
OUTCOMES = ("A", "tie_a", "tie", "tie_b", "B", "invalid")
CODE = {c: i for i, c in enumerate(OUTCOMES)}
A, TA, T, TB, B, INV = range(6)
#: In aligned comparisons: a plain tie given when the models were shown the other way round.
T_REV = 6
#: Cells per side of the aligned comparison tables (the six outcomes and ``T_REV``).
NC = 7
#: The same verdict seen with the models exchanged.
FLIP = np.array([B, TB, T, TA, A, INV])
#: What a parse failure or refusal may count as.
INVALID_POLICIES = ("drop", "tie", "loss")
#: The four tie rules of OpenING, in the order they are reported.
TIE_RULES = ("fdt", "without_ties", "tie_zero", "tie_half")
#: Options for FDT's plain tie (see the module docstring).
PLAIN_TIE = ("zero", "half", "drop", "first", "tie")


@dataclass(frozen=True)
class TieRule:
    """One tie rule: how each outcome counts.

    Attributes
    ----------
    name : str
        The name every function takes (``tie_rule=``).
    label : str
        How tables print it (OpenING's names).
    verdict : tuple of (str or None)
        The verdict of the outcomes ``A, tie_a, tie, tie_b, B``: ``"A"``, ``"B"``, ``"tie"`` (or the
        outcome itself for ``exact``); None leaves the battle out.
    tie_credit : float
        What a ``tie`` verdict is worth to each side in a win rate (NaN: no win rate).
    plain_tie : str
        How FDT's plain tie is counted (``"zero"`` by default; see :data:`PLAIN_TIE`).
    win_rate : bool
        Whether it defines a win rate (``exact`` compares labels only).
    needs_preference : bool
        Whether it counts soft preferences rather than outcomes (``soft``).
    agreement : {"categorical", "graded"} or None
        How judge and human verdicts are compared: the same verdict, or ``1 − |s_ref − s_cand|``
        with the credit s of the first-shown side; None when the rule is not an agreement rule.
    models : bool
        Whether Bradley–Terry and the length-controlled GLM take it (a tie is a tie there, so
        ``tie_zero``, which differs from ``tie_half`` only in a tie's credit, is left to win rates).
    formula : str
        The win rate of a model in the W, LW, T, LL, L counts.
    source : str
        Where the rule comes from.

    Examples
    --------
    >>> r = tie_rule("without_ties")
    >>> r.verdict, r.formula
    (('A', None, None, None, 'B'), 'W / (W + L)')
    """

    name: str
    label: str
    verdict: tuple
    tie_credit: float
    plain_tie: str = "zero"
    win_rate: bool = True
    needs_preference: bool = False
    agreement: str | None = "categorical"
    models: bool = True
    formula: str = ""
    source: str = ""

    # -- the credit of each outcome -----------------------------------------------------------
    @property
    def decides_leaning_ties(self) -> bool:
        """Whether leaning ties go to their side while a plain tie stays a tie (FDT): then the
        plain tie has the options of :data:`PLAIN_TIE`.

        Examples
        --------
        >>> tie_rule("fdt").decides_leaning_ties, tie_rule("tie_half").decides_leaning_ties
        (True, False)
        """
        return self.verdict[TA] == "A" and self.verdict[TB] == "B" and self.verdict[T] == "tie"

    def _verdict_of(self, code: int) -> str | None:
        v = self.verdict[code]
        if code == T and self.decides_leaning_ties:
            if self.plain_tie == "drop":
                return None
            if self.plain_tie == "first":
                return "A"
        return v

    def credit(self, code: int) -> float:
        """The win-rate credit of an outcome to the first-shown side (NaN when left out).

        Parameters
        ----------
        code : int
            The outcome's index in :data:`OUTCOMES` (0–4).

        Returns
        -------
        float

        Examples
        --------
        >>> tie_rule("tie_half").credit(1), tie_rule("tie_zero").credit(1)
        (0.5, 0.0)
        """
        v = self._verdict_of(code)
        if v is None:
            return float("nan")
        if v == "A":
            return 1.0
        if v == "B":
            return 0.0
        if code == T and self.decides_leaning_ties and self.plain_tie == "half":
            return 0.5
        return float(self.tie_credit)

    def win_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """Numerator and denominator weights of a model's W, LW, T, LL, L counts.

        A model's outcome categories are the outcomes ``A, tie_a, tie, tie_b, B`` as if it had been
        shown first, so its win rate is ``(num · counts) / (den · counts)``. (With FDT's
        ``plain_tie="first"`` a plain tie is a win of the first-shown side: a win rate of the first
        position, not of a model.)

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            Two arrays of 5 weights.

        Examples
        --------
        >>> tie_rule("without_ties").win_weights()
        (array([1., 0., 0., 0., 0.]), array([1., 0., 0., 0., 1.]))
        """
        if not self.win_rate:
            raise ValueError(f"tie rule {self.name!r} compares labels; it has no win rate")
        cr = np.array([self.credit(c) for c in range(5)])
        den = (~np.isnan(cr)).astype(float)
        return np.nan_to_num(cr), den

    def agreement_spec(self, policy: str = "drop") -> tuple[list[str], np.ndarray, np.ndarray, bool]:
        """Verdict classes for comparing two raters on aligned battles.

        Parameters
        ----------
        policy : {"drop", "tie", "loss", "keep"}
            What a parse failure is (``loss`` and ``keep`` add an ``invalid`` class; under ``loss``
            it never agrees, not even with another failure).

        Returns
        -------
        labels : list of str
            The K verdict classes.
        mapping : numpy.ndarray
            ``(NC, K)``: 1 where an outcome code (0–5, and ``T_REV``) is a class; a row of zeros
            leaves the comparison out.
        weights : numpy.ndarray
            ``(K, K)`` agreement weights (identity; graded for ``tie_half``).
        categorical : bool
            Whether the classes are nominal (then a macro-F1 is defined).

        Examples
        --------
        >>> labels, m, w, cat = tie_rule("tie_half").agreement_spec()
        >>> labels, w[0].tolist(), cat
        (['A', 'tie', 'B'], [1.0, 0.5, 0.0], False)
        """
        if self.agreement is None:
            raise ValueError(f"tie rule {self.name!r} is not an agreement rule")
        to = {c: self._verdict_of(c) for c in range(5)}
        labels = []                         # the classes in the order of the outcomes: A, (ties), B
        for c in range(5):
            if to[c] is not None and to[c] not in labels:
                labels.append(to[c])
        to[T_REV] = to[T]
        if to[T] is not None and self.verdict[T] == "tie" and to[T] != "tie":
            to[T_REV] = "B"                 # forced to the side shown first, which was the canonical B
        if policy in ("loss", "keep"):
            labels = labels + ["invalid"]
            to[INV] = "invalid"
        K = len(labels)
        mapping = np.zeros((NC, K))
        for c, lab in to.items():
            if lab is not None:
                mapping[c, labels.index(lab)] = 1.0
        w = np.eye(K)
        if self.agreement == "graded":      # half credit: 1 − |s_i − s_j| with s the credit of each class
            s = np.array([{"A": 1.0, "B": 0.0}.get(lab, self.tie_credit) for lab in labels if lab != "invalid"])
            k = len(s)
            w[:k, :k] = 1 - np.abs(s[:, None] - s[None, :])
        if policy == "loss":
            w[-1, -1] = 0.0
        return labels, mapping, w, self.agreement == "categorical"

    def model_columns(self) -> np.ndarray:
        """Per outcome code 0–5: 0 the first-shown side won, 1 the second won, 2 a tie, −1 left out.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> tie_rule("fdt").model_columns().tolist()
        [0, 0, 2, 1, 1, -1]
        """
        if not self.models:
            raise ValueError(f"tie rule {self.name!r} is not used in models (take one of {rules_for('models')})")
        col = {"A": 0, "B": 1, "tie": 2, None: -1}
        return np.array([col[self._verdict_of(c)] for c in range(5)] + [-1])

    def model_target(self) -> np.ndarray:
        """Per outcome code 0–5: the first-shown side's score in a model (1, ½ for a tie, 0; NaN left out).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> tie_rule("without_ties").model_target().tolist()
        [1.0, nan, nan, nan, 0.0, nan]
        """
        return np.array([1.0, 0.0, 0.5, np.nan])[self.model_columns()]


def _rule(name, label, verdict, tie_credit, formula, source, **kw):
    return TieRule(name, label, tuple(verdict), tie_credit, formula=formula, source=source, **kw)


_OPENING = "OpenING (Zhou et al. 2024), calculate_model_winrate.py / calculate_agreement.py"

#: The tie rules, by name: the one table every pairwise function reads.
RULES: dict[str, TieRule] = {r.name: r for r in (
    _rule("fdt", "FDT", ("A", "A", "tie", "B", "B"), 0.0, "(W + LW) / N", _OPENING + " (tie2ABdiv)"),
    _rule("without_ties", "w/o tie", ("A", None, None, None, "B"), float("nan"), "W / (W + L)",
          _OPENING + " (without_tie)"),
    _rule("tie_zero", "tie=0", ("A", "tie", "tie", "tie", "B"), 0.0, "W / N", _OPENING + " (with_tie)",
          models=False),
    _rule("tie_half", "tie=0.5", ("A", "tie", "tie", "tie", "B"), 0.5, "(W + ½(LW + T + LL)) / N",
          _OPENING + " (with_tie_equaldiv)", agreement="graded"),
    _rule("exact", "exact", ("A", "tie_a", "tie", "tie_b", "B"), float("nan"), "—",
          "the five labels compared as they are (LLMBar's positional agreement)", win_rate=False, models=False),
    _rule("soft", "soft", ("A", "tie", "tie", "tie", "B"), 0.5, "mean of p − 1 for the second, 2 − p for the first",
          "AlpacaEval (Dubois et al. 2024): preference p in [1, 2]", needs_preference=True, agreement=None,
          models=False),
)}

#: What each consumer needs of a rule (see :func:`rules_for`).
USES = ("win_rate", "agreement", "position", "models")


def rules_for(use: str, *, preference: bool = False) -> tuple[str, ...]:
    """The rules a consumer takes, read off the table.

    Parameters
    ----------
    use : {"win_rate", "agreement", "position", "models"}
        Win rates (and the win-rate ranking), agreement between two raters, position bias (a win
        rate of the first position and agreement between the two orders), Bradley–Terry and the
        length-controlled GLM.
    preference : bool
        Whether soft preferences are given (only then does ``soft`` count as a win-rate rule).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> rules_for("models")
    ('fdt', 'without_ties', 'tie_half')
    >>> rules_for("win_rate", preference=True)
    ('fdt', 'without_ties', 'tie_zero', 'tie_half', 'soft')
    """
    if use not in USES:
        raise ValueError(f"use must be one of {USES}, got {use!r}")
    keep = {
        "win_rate": lambda r: r.win_rate and (preference or not r.needs_preference),
        "agreement": lambda r: r.agreement is not None,
        "position": lambda r: r.win_rate and not r.needs_preference and r.agreement is not None,
        "models": lambda r: r.models,
    }[use]
    return tuple(n for n, r in RULES.items() if keep(r))


def tie_rule(name: str, *, plain_tie: str | None = None) -> TieRule:
    """The declaration of a tie rule (with FDT's plain-tie option).

    Parameters
    ----------
    name : str
        One of ``fdt, without_ties, tie_zero, tie_half, exact, soft``.
    plain_tie : {"zero", "half", "drop", "first", "tie"}, optional
        How FDT counts a plain tie (ignored by the other rules); default ``"zero"``.

    Returns
    -------
    TieRule

    Examples
    --------
    >>> tie_rule("fdt", plain_tie="half").credit(2)
    0.5
    """
    try:
        rule = RULES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown tie rule {name!r}; known: {', '.join(RULES)}") from None
    if plain_tie is not None and plain_tie != rule.plain_tie:
        if plain_tie not in PLAIN_TIE:
            raise ValueError(f"plain_tie must be one of {PLAIN_TIE}, got {plain_tie!r}")
        rule = dataclasses.replace(rule, plain_tie=plain_tie)
    return rule


def select_rules(tie_rule: str | list, use: str, default_all=TIE_RULES, *, preference: bool = False) -> list[str]:
    """The rule names a ``tie_rule=`` argument asks for (``"all"``, a name, or a list).

    Parameters
    ----------
    tie_rule : str or list of str
    use : str
        The consumer (:func:`rules_for`): the rules it takes.
    default_all : sequence of str
        What ``"all"`` means for it (OpenING's four rules).
    preference : bool
        Soft preferences are given.

    Returns
    -------
    list of str

    Examples
    --------
    >>> select_rules("all", "agreement")
    ['fdt', 'without_ties', 'tie_zero', 'tie_half']
    >>> select_rules(["exact", "fdt"], "agreement")
    ['exact', 'fdt']
    """
    allowed = rules_for(use, preference=preference)
    if isinstance(tie_rule, str):
        rules = list(default_all) if tie_rule == "all" else [tie_rule]
    else:
        rules = list(tie_rule)
    bad = [r for r in rules if r not in allowed]
    if bad or not rules:
        raise ValueError(f"tie_rule must be 'all' or among {tuple(allowed)}, got {tie_rule!r}")
    return rules


def tie_rule_table() -> pd.DataFrame:
    """The tie rules as one tidy table: how each outcome counts under each rule.

    Returns
    -------
    pandas.DataFrame
        One row per rule and outcome (``A, tie_a, tie, tie_b, B``) with the ``verdict`` (None:
        left out), the first-shown model's ``numerator`` (credit) and ``denominator`` (0 or 1) in
        a win rate, and the rule's ``label``, ``formula`` and ``source``. ``exact`` has no win
        rate (NaN); ``soft`` counts preferences, not outcomes (its cells show a preference of 1,
        1.5 and 2).

    References
    ----------
    Zhou et al. (2024), OpenING, arXiv:2411.18499; Dubois et al. (2024), arXiv:2404.04475.

    Examples
    --------
    >>> import metaeval
    >>> t = metaeval.tie_rule_table()
    >>> t[(t.rule == "tie_zero") & (t.outcome == "tie_a")][["verdict", "numerator", "denominator"]].values.tolist()
    [['tie', 0.0, 1.0]]
    """
    rows = []
    for name, r in RULES.items():
        if r.win_rate:
            num, den = r.win_weights()
        else:
            num = den = np.full(5, np.nan)
        for c in range(5):
            rows.append({"rule": name, "outcome": OUTCOMES[c], "verdict": r._verdict_of(c),
                         "numerator": float(num[c]), "denominator": float(den[c]), "label": r.label,
                         "formula": r.formula, "source": r.source})
    return pd.DataFrame(rows)
