"""Judge-validation claims checked from the numbers a paper reports (reviewer mode).

:func:`check_claims` takes claims — each a ``kind`` and the reported numbers — and returns one row
per claim: the reported number, the number recomputed from what else is reported, its interval, a
verdict and the reason, which always names the assumption the verdict rests on.

Verdicts
--------
``consistent``
    The reported numbers can follow from one another at their printed rounding (and, when the claim
    states a threshold, the interval clears it).
``inconsistent``
    They cannot: no integer data set of the stated size gives them (GRIM-like checks in
    :mod:`metaeval.review.feasibility`), the recomputed value does not round to the reported one,
    or the reported p cannot follow from the reported statistic.
``not supported``
    The numbers are possible, but the interval does not carry the sentence built on them (κ above a
    threshold, a τ "distinguishable" from 0.9, a judge "as good as" the humans).

Kinds and their fields (proportions in [0, 1] as printed; ``decimals=`` or a string such as
``"0.770"`` says how many decimals were printed; a p-value is a number or a string such as
``"< .001"``, ``"= .03"``, ``"ns"``):

=====================  ==========================================================================
kind                   fields (optional in brackets)
=====================  ==========================================================================
kappa                  value, table [weights, ci, percent_agreement, above]; or value, n, margins
                       [percent_agreement]; or value, n (binary: every 2×2 table). "Could have
                       concluded": [prevalence, half_width, judge_positives + judge_total]
fleiss_kappa           value, value_counts (items × categories) [ci, above]
accuracy               value, n [count, ci, ci_method = "wilson" | "exact", above]; also ``precision``,
                       ``recall`` (n = the denominator: predicted / reference positives) and
                       ``proportion`` (any share of n items). Without n: ``not supported``, with
                       the smallest n that could give the value
f1                     value, table (2×2, positive last); or value, precision, recall
correlation            method (pearson, spearman, kendall), value, n [p, above, ties, scale, table]
rank_correlation       value, systems [p, compare_to, ties]
win_rate               wins, losses, ties [value, tie_rule]
win_rate_difference    a = {wins, losses, ties}, b = {…} [value, tie_rule]
judge_vs_human         judge_kappa, judge_n, human_kappa, human_n [prevalence, margin, overlap]
=====================  ==========================================================================

Every kind also takes ``sentence`` (the claim as the paper words it; kept in the output).

A reported p of a correlation is consistent when *any* standard test of the statistic gives it at
its printed rounding (:mod:`metaeval.review.nulls`: Kendall's exact null, its normal approximation
without ties and with the tie correction; Spearman's t approximation, exact permutation null and
AS 89; Pearson's t test); the reason names the tests that give it. For Kendall's τ ties are
possible unless the claim says ``ties = false``: with ``table`` (a K×K table of the two variables'
categories) the tie pattern is known and scipy's test on it decides, otherwise every tie pattern
is allowed. A number outside its statistic's range (r = 1.52, κ > 1, an accuracy of 1.7) is
``inconsistent`` whatever else the claim says (:data:`RANGES`).

Options (:data:`REVIEW_OPTIONS`): ``alpha``, ``confidence_level``, ``n_resamples`` and ``seed`` may
stand at the top of a claims file; a keyword of :func:`check_claims` or a flag of ``metaeval
review`` wins over the file.

A claims file may also hold ``[[text]]`` entries (``file = "paper.txt"`` or ``text = "…"``, see
:func:`load_texts`): ``metaeval review`` reads their APA-style test results with
:func:`metaeval.review_text` and writes them in the same note; :func:`check_claims` ignores them.

Reproduce from released files: ``kappa`` and ``accuracy`` take ``files = { reference = "…",
candidate = "…" }`` (judgment files paired with :func:`metaeval.align`; options ``binarize``,
``unjudged``, ``out_of_scale``, ``duplicates``, ``on``, ``label``), ``correlation`` and
``rank_correlation`` take ``files = { scores = "…" }`` with ``columns = ["x", "y"]`` (one row per item or
per system). Paths are relative to the claims file. The number is recomputed with the package and
compared with the reported one at its printed rounding: the ``reproduced`` column says ``reproduced``
or ``differs by …`` (then the verdict is ``inconsistent``), and the recomputed table, n or number of
systems feeds the rest of the check.

References
----------
Brown, N. J. L. & Heathers, J. A. J. (2016). The GRIM test. *Social Psychological and Personality
Science* 8(4), 363–369. Nuijten, M. B. et al. (2016). The prevalence of statistical reporting errors
in psychology (1985–2013). *Behavior Research Methods* 48, 1205–1226 (statcheck's rule for a p that
cannot follow from the statistic at its rounding). Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969),
*Psychological Bulletin* 72, 323–327 (κ's variance). Wilson, E. B. (1927), *JASA* 22, 209–212;
Clopper, C. J. & Pearson, E. S. (1934), *Biometrika* 26, 404–413. Newcombe, R. G. (1998), *Statistics
in Medicine* 17, 873–890 (difference of proportions). Fieller, E. C., Hartley, H. O. & Pearson, E. S.
(1957), *Biometrika* 44, 470–481 (variance of atanh τ). Voorhees, E. M. (2000), *Information
Processing & Management* 36, 697–716 (τ ≥ 0.9 read as "equivalent rankings"). Kendall, M. G. (1938),
*Biometrika* 30, 81–93 (exact null distribution of τ).

Examples
--------
>>> import metaeval
>>> df = metaeval.check_claims([
...     {"kind": "kappa", "value": 0.603, "table": [[85, 20], [20, 77]]},
...     {"kind": "accuracy", "value": "0.770", "n": 202},
...     {"kind": "rank_correlation", "value": 0.89, "systems": 59, "compare_to": 0.9},
... ])
>>> df[["kind", "verdict"]].values.tolist()
[['kappa', 'consistent'], ['accuracy', 'inconsistent'], ['rank_correlation', 'not supported']]
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..core import registry
from ..core.errors import InputError
from . import nulls
from .feasibility import EPS, _number, grim, kappa_feasibility, kappa_weights, rounding_interval
from .pvalues import fmt_p as _fmt_p
from .pvalues import matches as _matches
from .pvalues import p_consistent as _p_consistent
from .pvalues import parse_p
from .text import load_texts  # noqa: F401  (the [[text]] entries: one definition, in text.py)

__all__ = ["check_claims", "load_claims", "load_texts", "parse_p", "to_records", "review_options", "KINDS", "COLUMNS",
           "REVIEW_OPTIONS"]

#: The columns of :func:`check_claims`' frame, in order.
COLUMNS = ("claim", "kind", "sentence", "statistic", "reported", "recomputed", "ci_low", "ci_high",
           "confidence_level", "p_reported", "p_recomputed", "verdict", "reason", "could_conclude", "reproduced",
           "details")

VERDICTS = ("consistent", "inconsistent", "not supported")

#: The largest claims file read (bytes).
MAX_CLAIMS_BYTES = 16 * 2 ** 20

#: The largest count (n, systems, wins, …) a claim may state: beyond, the checks' arithmetic is not exact
#: and no study is that large.
MAX_COUNT = 10 ** 12

_IID = ("iid items: the paper reports no clustering (e.g. by topic or prompt); with clustering the "
        "interval is wider")


# --------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------

class _Claim:
    """One claim's fields with errors that name the claim."""

    def __init__(self, d: Mapping, index: int, source: str):
        self.d, self.index, self.source = d, index, source
        self.kind = d.get("kind")

    def err(self, problem, *, expected=None, fix=None, text=None):
        return InputError(f"claim {self.index} (kind {self.kind!r}): {problem}", source=self.source,
                          text=text, expected=expected, fix=fix)

    def has(self, key) -> bool:
        return key in self.d and self.d[key] is not None

    def get(self, key, default=None):
        return self.d.get(key, default)

    def number(self, key, *, required=True, default=None):
        if not self.has(key):
            if required:
                raise self.err(f"missing field {key!r}", expected=f"{key} = <number>",
                               fix=f"add {key} = … as the paper prints it")
            return default
        try:
            return _number(self.d[key], key)
        except InputError:
            raise self.err(f"{key} is not a number", text=repr(self.d[key]),
                           expected="a number, or a string such as '0.770'") from None

    def count(self, key, *, required=True, default=None):
        v = self.number(key, required=required, default=default)
        if v is None:
            return None
        if not math.isfinite(v) or v != math.floor(v) or v < 0:
            raise self.err(f"{key} must be a non-negative whole number, got {self.d.get(key, v)!r}",
                           fix=f"write {key} as the count the paper prints (e.g. {key} = 202)")
        if v > MAX_COUNT:
            raise self.err(f"{key} = {self.d.get(key, v)!r} is beyond the largest count checked ({MAX_COUNT:.0e})",
                           fix=f"check {key}: no judge-validation study counts more than {MAX_COUNT:.0e} items")
        return int(v)

    def bounded(self, key, low, high, what):
        """A row saying the printed ``key`` lies outside [low, high], the range of ``what`` (None if inside)."""
        if not self.has(key):
            return None
        _, lo, hi, _ = self.interval(key)
        if hi < low - EPS or lo > high + EPS:
            return f"{key} = {self.d[key]} lies outside the range of {what}, [{low:g}, {high:g}]: no data give it"
        return None

    def interval(self, key):
        """(value, low, high, decimals) of a printed number, honouring ``<key>_decimals`` or ``decimals``."""
        if key not in self.d:
            raise self.err(f"{key} is missing", fix=f"give the claim's {key} (the number as printed, e.g. {key} = \"0.61\")")
        raw = self.d[key]
        dec = self.d.get(f"{key}_decimals", self.d.get("decimals") if key == "value" else None)
        try:
            lo, hi, d = rounding_interval(raw, dec)
        except InputError:
            raise self.err(f"{key} is not a number", text=repr(raw), expected="a number such as 0.61 or '0.610'") from None
        return _number(raw, key), lo, hi, d

    def table(self, key="table"):
        try:
            t = np.asarray(self.d[key], dtype=float)
        except (TypeError, ValueError):
            raise self.err(f"{key} is not a table of counts", text=repr(self.d[key])) from None
        if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 2:
            raise self.err(f"{key} must be a square K×K table of counts (K ≥ 2), got shape {t.shape}",
                           fix="write rows of the first rater (reference), columns of the second (judge)")
        if (t < 0).any() or not np.allclose(t, np.round(t)) or t.sum() == 0:
            raise self.err(f"{key} must hold non-negative whole counts", text=str(t.tolist()))
        return np.round(t).astype(np.int64)


def load_claims(path) -> list[dict]:
    """Read a claims file: a TOML list of ``[[claim]]`` tables.

    Parameters
    ----------
    path : str or path
        The TOML file.

    Returns
    -------
    list of dict
        One dict per claim.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "claims.toml"
    >>> _ = path.write_text('[[claim]]\\nkind = "accuracy"\\nvalue = "0.770"\\nn = 202\\n', encoding="utf-8")
    >>> load_claims(path)
    [{'kind': 'accuracy', 'value': '0.770', 'n': 202}]
    """
    p = Path(path)
    data = _read_toml(p)
    claims = data.get("claim", data.get("claims"))
    if claims is None and isinstance(data.get("text"), list) and data["text"]:
        return []                                   # a file of [[text]] entries only (load_texts)
    if not isinstance(claims, list) or not claims:
        raise InputError("no claims in the file", source=p, expected="one or more [[claim]] tables",
                         fix='start each claim with [[claim]] and give kind = "kappa" (or another kind)')
    return claims


def _read_toml(p: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    if not p.exists():
        raise InputError("no such claims file", source=p, fix="check the path")
    if not p.is_file():
        raise InputError("not a regular file (a folder, device, FIFO or socket)", source=p,
                         fix="give a claims file (.toml)")
    with open(p, "rb") as fh:
        raw = fh.read(MAX_CLAIMS_BYTES + 1)
    if len(raw) > MAX_CLAIMS_BYTES:
        raise InputError(f"the claims file is larger than {MAX_CLAIMS_BYTES // 2 ** 20} MiB", source=p,
                         fix="split it into several claims files")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start} cannot be read)", source=p,
                         fix="save the claims file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise InputError(f"not valid TOML ({exc})", source=p, line=int(m.group(1)) if m else None,
                         fix="check quotes, brackets and '=' on that line") from None
    except RecursionError:
        raise InputError("arrays or tables nested too deep to read", source=p,
                         fix="a claims file needs at most a table of counts (two levels of brackets)") from None
    return data


def _row(c: _Claim, *, statistic, reported, recomputed=float("nan"), ci=(float("nan"), float("nan")),
         confidence_level=0.95, p_reported=None, p_recomputed=float("nan"), verdict, reason, could="", details=None):
    if verdict not in VERDICTS:
        raise AssertionError(verdict)
    return {"claim": c.index, "kind": c.kind, "sentence": c.get("sentence", ""), "statistic": statistic,
            "reported": reported, "recomputed": float(recomputed), "ci_low": float(ci[0]), "ci_high": float(ci[1]),
            "confidence_level": confidence_level, "p_reported": _fmt_p(p_reported), "p_recomputed": float(p_recomputed),
            "verdict": verdict, "reason": reason, "could_conclude": could, "reproduced": "", "details": details or {}}


def _threshold(c: _Claim, ci, what: str) -> tuple[str | None, str]:
    """Verdict and reason part for ``above=`` (the claim that the statistic exceeds a value)."""
    if not c.has("above"):
        return None, ""
    a = c.number("above")
    if ci[0] > a:
        return "consistent", f"the interval's lower end {ci[0]:.3f} is above {a:g}"
    return "not supported", f"the interval [{ci[0]:.3f}, {ci[1]:.3f}] does not exclude {what} ≤ {a:g}"


def _ci_check(c: _Claim, candidates: dict) -> str:
    """Compare a reported ``ci = [low, high]`` with the recomputed intervals (name → (low, high))."""
    if not c.has("ci"):
        return ""
    ci = c.get("ci")
    if not isinstance(ci, (list, tuple)) or len(ci) != 2:
        raise c.err("ci must be [low, high]", text=repr(ci))
    ends = [rounding_interval(v, c.get("ci_decimals")) for v in ci]
    hit = [name for name, (lo, hi) in candidates.items()
           if _matches(lo, ends[0][0], ends[0][1]) and _matches(hi, ends[1][0], ends[1][1])]
    if hit:
        return f"; the reported interval [{ci[0]}, {ci[1]}] is the {hit[0]} interval"
    shown = ", ".join(f"{k} [{v[0]:.3f}, {v[1]:.3f}]" for k, v in candidates.items())
    return (f"; the reported interval [{ci[0]}, {ci[1]}] is none of {shown} (a bootstrap or clustered "
            "interval can differ: check which one the paper used)")


# --------------------------------------------------------------------------------------------
# kinds
# --------------------------------------------------------------------------------------------

def _kappa_estimates(table, weights, cl):
    from ..agreement.coefficients import cohen_kappa

    e_n = cohen_kappa(table=table, weights=weights, ci_method="analytic", quantile="normal", confidence_level=cl)
    e_t = cohen_kappa(table=table, weights=weights, ci_method="analytic", quantile="t", confidence_level=cl)
    return e_n, {"analytic (normal)": (e_n.ci.low, e_n.ci.high), "analytic (t)": (e_t.ci.low, e_t.ci.high)}


def _could_conclude(c: _Claim, table, opts) -> tuple[str, dict]:
    """κ at the deployment prevalence, labels for a half-width, the judge-corrected prevalence."""
    parts, det = [], {}
    binary = table is not None and table.shape == (2, 2)
    if c.has("prevalence"):
        if not binary:
            parts.append("κ at the deployment prevalence needs a binary table")
        else:
            from ..agreement.coefficients import kappa_at_prevalence

            prev = c.number("prevalence")
            r = kappa_at_prevalence(table=table, prevalence=prev, rng=opts["rng"], n_resamples=opts["n_resamples"],
                                    confidence_level=opts["confidence_level"])
            k, ppv = r["kappa"], r["ppv"]
            det["kappa_at_prevalence"] = {"prevalence": prev, "kappa": k.estimate, "ci_low": k.ci.low,
                                          "ci_high": k.ci.high, "ppv": ppv.estimate}
            parts.append(f"at the deployment prevalence {prev:g} the same Se and Sp give κ = {k.estimate:.3f} "
                         f"[{k.ci.low:.3f}, {k.ci.high:.3f}] and PPV = {ppv.estimate:.3f}")
    if c.has("half_width"):
        if table is None:
            parts.append("the labels needed for a half-width need the table or the margins")
        else:
            from ..checks.design import sample_size

            h = c.number("half_width")
            s = sample_size(half_width=h, table=table, weights=c.get("weights"), confidence_level=opts["confidence_level"])
            det["labels_needed"] = {"half_width": h, "n": s.n}
            parts.append(f"a ±{h:g} interval of κ at this table needs about {s.n} labelled items (iid)")
    if c.has("judge_positives") or c.has("judge_total"):
        if not binary:
            parts.append("the judge-corrected prevalence needs a binary validation table")
        else:
            import warnings

            from ..inference.prevalence import rogan_gladen

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                e = rogan_gladen(table=table, positives=c.count("judge_positives"), total=c.count("judge_total"),
                                 confidence_level=opts["confidence_level"])
            det["corrected_prevalence"] = {"estimate": e.estimate, "ci_low": e.ci.low, "ci_high": e.ci.high,
                                           "warnings": [str(w.message) for w in caught]}
            parts.append(f"the judge's share {e.extra['observed_share']:.3f} corrected by the validation table's "
                         f"Se and Sp (Rogan–Gladen) is {e.estimate:.3f} [{e.ci.low:.3f}, {e.ci.high:.3f}]")
    return "; ".join(parts), det


def _kappa(c: _Claim, opts):
    cl = opts["confidence_level"]
    val, lo, hi, d = c.interval("value")
    weights = kappa_weights(c.get("weights"))
    pa = c.get("percent_agreement")
    details = {"decimals": d}
    if c.has("table"):
        T = c.table()
        e, cands = _kappa_estimates(T, weights, cl)
        ok = _matches(e.estimate, lo, hi)
        reason = (f"κ recomputed from the table is {e.estimate:.4f}"
                  + ("" if ok else f", which does not round to {c.get('value')}"))
        if pa is not None:
            po = float(np.trace(T) / T.sum())
            _, plo, phi, _ = c.interval("percent_agreement")
            pok = _matches(po, plo, phi)
            ok &= pok
            reason += f"; percent agreement {po:.4f}" + ("" if pok else f" does not round to {pa}")
        reason += _ci_check(c, cands)
        table = T
        details.update(table=T.tolist(), se=e.se)
        ci = (e.ci.low, e.ci.high)
        basis = _IID + "; interval: Fleiss–Cohen–Everitt large-sample variance, normal quantile"
    elif c.has("n"):
        n = c.count("n")
        margins = c.get("margins")
        try:
            f = kappa_feasibility(c.get("value"), n=n, percent_agreement=pa, margins=margins, weights=weights,
                                  kappa_decimals=c.get("value_decimals", c.get("decimals")),
                                  percent_agreement_decimals=c.get("percent_agreement_decimals"))
        except InputError as exc:
            raise c.err(exc.problem, fix=exc.fix, text=exc.text) from None
        ok = f.feasible
        table = f.table if (margins is not None or f.feasible) else None
        details.update(feasibility={"feasible": f.feasible, "search": f.search, "table": f.table.tolist(),
                                    "kappa": f.nearest_kappa, "percent_agreement": f.nearest_percent_agreement,
                                    "n_tables": f.n_tables})
        if ok:
            reason = f"a table gives the reported numbers: {f.table.tolist()} (κ = {f.nearest_kappa:.4f}, p_o = {f.nearest_percent_agreement:.4f})"
        else:
            reason = (f"no table gives the reported numbers after rounding; the nearest feasible pair is κ = "
                      f"{f.nearest_kappa:.4f}, p_o = {f.nearest_percent_agreement:.4f} from {f.table.tolist()}")
        basis = f"the numbers come from one table of n items with the printed rounding (searched: {f.search})"
        ci = (float("nan"), float("nan"))
        if margins is not None and ok:
            e, cands = _kappa_estimates(f.table, weights, cl)
            ci = (e.ci.low, e.ci.high)
            reason += _ci_check(c, cands)
            basis += "; " + _IID + "; interval: Fleiss–Cohen–Everitt at that table, normal quantile"
            if f.n_tables and f.n_tables > 1:
                basis += f" ({f.n_tables} tables match; the interval is at the one nearest the reported κ)"
        elif margins is None:
            basis += "; the interval needs the margins or the table"
        recomputed = f.nearest_kappa
        verdict = "consistent" if ok else "inconsistent"
        tv, treason = _threshold(c, ci, "κ")
        if ok and tv == "not supported":
            verdict = tv
        could, cdet = _could_conclude(c, table if ok else None, opts)
        details.update(cdet)
        return _row(c, statistic=registry.resolve("cohen_kappa", weights).name, reported=val,
                    recomputed=recomputed, ci=ci, confidence_level=cl, verdict=verdict,
                    reason="; ".join(x for x in (reason, treason, "assumes " + basis) if x), could=could, details=details)
    else:
        raise c.err("a kappa claim needs table= (the confusion table) or n= (with margins= when known)",
                    fix="add table = [[…], […]] or n = <items>")
    verdict = "consistent" if ok else "inconsistent"
    tv, treason = _threshold(c, ci, "κ")
    if ok and tv == "not supported":
        verdict = tv
    could, cdet = _could_conclude(c, table, opts)
    details.update(cdet)
    return _row(c, statistic=registry.resolve("cohen_kappa", weights).name, reported=val,
                recomputed=e.estimate, ci=ci, confidence_level=cl, verdict=verdict,
                reason="; ".join(x for x in (reason, treason, "assumes " + basis) if x), could=could, details=details)


def _fleiss(c: _Claim, opts):
    cl = opts["confidence_level"]
    val, lo, hi, d = c.interval("value")
    if not c.has("value_counts"):
        return _row(c, statistic="fleiss_kappa", reported=val, confidence_level=cl, verdict="not supported",
                    reason="Fleiss' κ cannot be recomputed or bounded without the per-item counts (value_counts = "
                           "items × categories); nothing follows from the number alone")
    from ..agreement.multirater import fleiss_kappa

    e = fleiss_kappa(value_counts=c.get("value_counts"), ci_method="analytic", quantile="normal", confidence_level=cl)
    ok = _matches(e.estimate, lo, hi)
    reason = f"Fleiss' κ recomputed from the counts is {e.estimate:.4f}" + ("" if ok else f", not {c.get('value')}")
    reason += _ci_check(c, {"analytic (normal)": (e.ci.low, e.ci.high)})
    verdict = "consistent" if ok else "inconsistent"
    tv, treason = _threshold(c, (e.ci.low, e.ci.high), "κ")
    if ok and tv == "not supported":
        verdict = tv
    basis = "assumes " + _IID + "; interval: Gwet's (2014) linearisation variance, normal quantile"
    return _row(c, statistic="fleiss_kappa", reported=val, recomputed=e.estimate, ci=(e.ci.low, e.ci.high),
                confidence_level=cl, verdict=verdict, reason="; ".join(x for x in (reason, treason, basis) if x))


def _proportion(c: _Claim, opts, statistic):
    cl = opts["confidence_level"]
    val, lo, hi, d = c.interval("value")
    if not c.has("n"):
        # the paper gives no n: nothing can be checked; say which n could give the number at all
        ns = [m for m in range(1, 10_001) if grim(c.get("value"), m, decimals=d).feasible][:5]
        hint = (f"the smallest n at which a count prints as {c.get('value')} are {', '.join(map(str, ns))}"
                if ns else f"no n up to 10,000 gives {c.get('value')}")
        return _row(c, statistic=statistic, reported=val, confidence_level=cl, verdict="not supported",
                    reason=(f"the number of items is not reported: no interval and no GRIM check can be made, and "
                            f"nothing follows from the number alone ({hint}); assumes nothing"),
                    details={"possible_n": ns, "decimals": d})
    n = c.count("n")
    if n < 1:
        raise c.err("n must be at least 1")
    method = c.get("ci_method", "wilson")
    if method not in ("wilson", "exact"):
        raise c.err(f"ci_method must be 'wilson' or 'exact', got {method!r}")
    g = grim(c.get("value"), n, decimals=d)
    k = min(max(round(val * n), g.totals[0]), g.totals[-1]) if g.feasible else round(g.nearest[0] * n)
    if c.has("count"):                       # the count itself (e.g. recomputed from released files)
        k = c.count("count")
        if k > n:
            raise c.err(f"count = {k} exceeds n = {n}")
        g = type(g)(g.value, g.n, g.decimals, _matches(k / n, lo, hi), (k,) if _matches(k / n, lo, hi) else (), (k / n,))
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=cl, method=method)
    ci = (float(ci.low), float(ci.high))
    den = {"accuracy": "items", "proportion": "items", "precision": "items the judge called positive",
           "recall": "reference-positive items"}[statistic]
    if g.feasible:
        reason = f"{k}/{n} = {k / n:.4f} prints as {c.get('value')}"
    elif c.has("count"):
        reason = f"{k}/{n} = {k / n:.4f} does not print as {c.get('value')}"
    else:
        reason = (f"no count out of n = {n} prints as {c.get('value')} with {d} decimals (GRIM); the nearest "
                  f"possible values are {', '.join(f'{v:.{d + 1}f}' for v in g.nearest)}")
    reason += _ci_check(c, {"Wilson": tuple(map(float, stats.binomtest(k, n).proportion_ci(cl, "wilson"))),
                            "Clopper–Pearson": tuple(map(float, stats.binomtest(k, n).proportion_ci(cl, "exact")))})
    verdict = "consistent" if g.feasible else "inconsistent"
    tv, treason = _threshold(c, ci, statistic)
    if g.feasible and tv == "not supported":
        verdict = tv
    basis = (f"assumes n = {n} counts the {den}; {_IID}; interval: "
             + ("Wilson score" if method == "wilson" else "Clopper–Pearson exact") + f" at {k}/{n}")
    return _row(c, statistic=statistic, reported=val, recomputed=k / n, ci=ci, confidence_level=cl, verdict=verdict,
                reason="; ".join(x for x in (reason, treason, basis) if x), details={"count": k, "n": n, "decimals": d})


def _f1(c: _Claim, opts):
    cl = opts["confidence_level"]
    val, lo, hi, d = c.interval("value")
    if c.has("table"):
        from ..agreement.coefficients import per_class

        T = c.table()
        if T.shape != (2, 2):
            raise c.err("f1 needs a 2×2 table (rows: reference, columns: judge; the positive class last)")
        r = per_class(table=T, ci_method="bca", n_resamples=opts["n_resamples"], rng=opts["rng"], confidence_level=cl)
        e = [x for x in r if x.statistic == "f1"][-1]
        ok = _matches(e.estimate, lo, hi)
        reason = f"F1 of the positive class from the table is {e.estimate:.4f}" + ("" if ok else f", not {c.get('value')}")
        verdict = "consistent" if ok else "inconsistent"
        tv, treason = _threshold(c, (e.ci.low, e.ci.high), "F1")
        if ok and tv == "not supported":
            verdict = tv
        basis = f"assumes {_IID}; interval: BCa bootstrap of the table (metaeval's engine, seed {opts['rng']})"
        return _row(c, statistic="f1", reported=val, recomputed=e.estimate, ci=(e.ci.low, e.ci.high), confidence_level=cl,
                    verdict=verdict, reason="; ".join(x for x in (reason, treason, basis) if x), details={"table": T.tolist()})
    if c.has("precision") and c.has("recall"):
        _, plo, phi, _ = c.interval("precision")
        _, rlo, rhi, _ = c.interval("recall")
        hm = lambda p, q: 2 * p * q / (p + q) if p + q > 0 else 0.0  # noqa: E731
        f_lo, f_hi = hm(max(plo, 0), max(rlo, 0)), hm(min(phi, 1), min(rhi, 1))   # F1 rises with both
        ok = f_hi >= lo - EPS and f_lo <= hi + EPS
        rec = hm(_number(c.get("precision"), "precision"), _number(c.get("recall"), "recall"))
        reason = (f"the harmonic mean of the printed precision and recall lies in [{f_lo:.4f}, {f_hi:.4f}]"
                  + ("" if ok else f", which excludes {c.get('value')}"))
        return _row(c, statistic="f1", reported=val, recomputed=rec, confidence_level=cl,
                    verdict="consistent" if ok else "inconsistent",
                    reason=reason + "; assumes F1 = 2PR/(P + R) of the same class and items (no interval without the counts)")
    raise c.err("an f1 claim needs table= or precision= and recall=")


_SYMBOL = {"pearson": "r", "spearman": "ρ", "kendall": "τ"}
_NAME = {"pearson": "Pearson's r", "spearman": "Spearman's ρ", "kendall": "Kendall's τ"}


def _scipy_default_p(method, value, n, table=None) -> float:
    """The p scipy's default test gives at the reported coefficient (no ties unless a table is stated)."""
    if table is not None:
        return nulls.tie_table_p(method, table)[1]
    if method != "kendall":
        return float(nulls._r_t_p(value, n))
    pairs = n * (n - 1) // 2
    D = min(max(round((1 - float(np.clip(value, -1, 1))) * pairs / 2), 0), pairs)
    if n <= 33:                                    # scipy's default: exact below 34 untied items
        return nulls.tau_exact_p(n, D)
    return nulls.tau_normal_p(n, 1 - 2 * D / pairs)


def _p_methods(c: _Claim, method, n, lo, hi, alpha, *, ties, table=None) -> tuple[bool, str, dict]:
    """Check the reported p against every standard test of the coefficient: (ok, reason, details)."""
    ranges = nulls.p_ranges(method, n, lo, hi, ties=ties, table=table)
    checks = {name: _p_consistent(c.get("p"), a, b, alpha) for name, (a, b) in ranges.items()}
    hits = [name for name, (ok, _) in checks.items() if ok]
    what = next(iter(checks.values()))[1]
    shown = "; ".join(f"{name}: p in [{a:.3g}, {b:.3g}]" for name, (a, b) in ranges.items())
    sym = _SYMBOL[method]
    if hits:
        reason = (f"with n = {n}, {sym} = {c.get('value')}: the reported {what}, which the "
                  + " and the ".join(hits) + f" give{'s' if len(hits) == 1 else ''} ({shown})")
    else:
        reason = (f"with n = {n}, {sym} = {c.get('value')}: the reported {what}, which no standard test "
                  f"gives ({shown})")
    return bool(hits), reason, {"p_methods": {k: list(v) for k, v in ranges.items()}, "p_methods_matching": hits}


def _correlation(c: _Claim, opts):
    from ..agreement.correlation import fisher_z_interval

    cl, alpha = opts["confidence_level"], opts["alpha"]
    method = c.get("method", "pearson")
    if method not in ("pearson", "spearman", "kendall"):
        raise c.err(f"method must be pearson, spearman or kendall, got {method!r}")
    val, lo, hi, d = c.interval("value")
    table = c.table() if c.has("table") else None
    if table is not None and (c.has("n") and c.count("n") != int(table.sum())):
        raise c.err(f"n = {c.count('n')} but the table holds {int(table.sum())} items", fix="check n and the table")
    if table is not None and table.sum() > 10 ** 7:
        raise c.err(f"the table holds {int(table.sum()):,} items; tables up to 10,000,000 items are recomputed")
    n = int(table.sum()) if table is not None else c.count("n")
    if n < 5:
        raise c.err(f"n = {n} is too small for an interval (needs n ≥ 5)")
    scale = None
    if c.has("scale"):          # the number of categories, or the categories themselves
        scale = len(c.get("scale")) if isinstance(c.get("scale"), (list, tuple)) else c.count("scale")
    ties = table is not None or (scale is not None and scale < n) or bool(c.get("ties", True))
    reason, verdict = "", "consistent"
    details: dict = {}
    if table is not None:
        r_tab, _ = nulls.tie_table_p(method, table)
        ok = _matches(r_tab, lo, hi)
        reason = (f"the stated table gives {_SYMBOL[method]} = {r_tab:.4f} (scipy, categories scored 0, 1, …)"
                  + ("" if ok else f", which does not print as {c.get('value')}"))
        if not ok:
            verdict = "inconsistent"
    low, high, se = fisher_z_interval(val, n, method=method, confidence_level=cl)
    p_at = _scipy_default_p(method, val, n, table)
    details["se_z"] = se
    if c.has("p"):
        pok, preason, pdet = _p_methods(c, method, n, lo, hi, alpha, ties=ties and method == "kendall", table=table)
        details.update(pdet)
        reason = "; ".join(x for x in (reason, preason) if x)
        if not pok:
            verdict = "inconsistent"
    tv, treason = _threshold(c, (low, high), method)
    if verdict == "consistent" and tv == "not supported":
        verdict = tv
    label = {"pearson": "Fisher z, SE 1/√(n − 3)", "spearman": "Fisher z, SE √(1.06/(n − 3)) (Fieller et al. 1957)",
             "kendall": "Fisher z, SE √(0.437/(n − 4)) (Fieller et al. 1957)"}[method]
    test = {"pearson": "the t(n − 2) test of r",
            "spearman": "the t approximation, the exact permutation null (n ≤ "
                        f"{nulls.RHO_EXACT_MAX}) and AS 89 (R, 10 ≤ n < 1290)",
            "kendall": "the exact null without ties (n ≤ "
                       f"{nulls.TAU_EXACT_MAX}), the normal approximation without ties"
                       + (", and with the tie correction (" + ("the stated table" if table is not None else
                          "any tie pattern: ties are not excluded; say ties = false if there are none") + ")"
                          if ties else " (ties = false)")}[method]
    basis = f"assumes {n} independent pairs ({_IID}); interval: {label}; p: any of {test}"
    return _row(c, statistic=method, reported=val, recomputed=val, ci=(low, high), confidence_level=cl,
                p_reported=c.get("p"), p_recomputed=p_at, verdict=verdict,
                reason="; ".join(x for x in (reason, treason, basis) if x), details=details)


def _rank_correlation(c: _Claim, opts):
    from ..agreement.correlation import fisher_z_interval

    cl, alpha = opts["confidence_level"], opts["alpha"]
    val, lo, hi, d = c.interval("value")
    m = c.count("systems")
    if m < 5:
        raise c.err(f"systems = {m}: at least 5 systems are needed for an interval")
    pairs = m * (m - 1) // 2
    # τ_a = 1 − 2D/pairs: which discordant counts D print as the value? (a range, found in closed form)
    Ds = nulls.tau_discordant_range(m, lo, hi)
    ties = bool(c.get("ties", False))
    details = {"pairs": pairs, "discordant": list(Ds) if Ds else []}
    parts, verdict = [], "consistent"
    if Ds:
        parts.append(f"τ = {c.get('value')} over {m} systems is {Ds[0]}" + (f"–{Ds[1]}" if Ds[1] > Ds[0] else "")
                     + f" discordant pairs of {pairs}")
    elif not ties:
        D0 = round((1 - val) * pairs / 2)
        parts.append(f"no ranking of {m} untied systems gives τ = {c.get('value')} (the nearest is "
                     f"{1 - 2 * D0 / pairs:.4f} with {D0} discordant pairs); with tied systems τ_b can differ")
        verdict = "inconsistent"
    D_target = min(max(round((1 - val) * pairs / 2), 0), pairs)
    D_best = min(max(D_target, Ds[0]), Ds[1]) if Ds else D_target
    p_default = (nulls.tau_exact_p(m, D_best) if m <= nulls.TAU_EXACT_MAX
                 else nulls.tau_normal_p(m, 1 - 2 * D_best / pairs))
    if c.has("p"):
        pok, preason, pdet = _p_methods(c, "kendall", m, lo, hi, alpha, ties=ties)
        details.update(pdet)
        parts.append(preason.replace(f"with n = {m}", f"with {m} systems"))
        if not pok:
            verdict = "inconsistent"
    low, high, se = fisher_z_interval(val, m, method="kendall", confidence_level=cl)
    details.update(se_z=se)
    if c.has("compare_to"):
        t0 = c.number("compare_to")
        q = stats.norm.ppf(0.5 + cl / 2)
        up = math.tanh(math.atanh(t0) + q * se) if abs(t0) < 1 else t0
        down = math.tanh(math.atanh(t0) - q * se) if abs(t0) < 1 else t0
        details.update(compare_to=t0, resolvable_above=up, resolvable_below=down)
        if low <= t0 <= high:
            parts.append(f"the interval [{low:.3f}, {high:.3f}] contains {t0:g}: with {m} systems τ = {c.get('value')} is "
                         f"not distinguishable from {t0:g}; only τ above {up:.3f} or below {down:.3f} would be")
            if verdict == "consistent":
                verdict = "not supported"
        else:
            parts.append(f"the interval [{low:.3f}, {high:.3f}] excludes {t0:g}")
    basis = (f"assumes the {m} systems are a random sample of systems and rank by untied scores (no topic "
             "variance: with per-topic scores metaeval.rank_correlation gives a topic-bootstrap interval, "
             "usually wider); interval: Fisher z of τ with SE √(0.437/(m − 4)) (Fieller et al. 1957); "
             f"p: any of the exact null distribution of τ (Kendall 1938; scipy; up to {nulls.TAU_EXACT_MAX} "
             "systems) and its normal approximation"
             + (", with the tie correction over any tie pattern (ties = true)" if ties else
                " (untied systems; say ties = true if systems tie)"))
    return _row(c, statistic="kendall_tau", reported=val, recomputed=1 - 2 * D_best / pairs, ci=(low, high),
                confidence_level=cl, p_reported=c.get("p"), p_recomputed=p_default, verdict=verdict,
                reason="; ".join(parts + [basis]), details=details)


_WIN_RULES = ("without_ties", "tie_zero", "tie_half")


def _rule_rate(counts, rule):
    from ..pairwise.outcomes import tie_rule

    num, den = tie_rule(rule).win_weights()
    return float(counts @ num), float(counts @ den)


def _win_counts(c: _Claim, d: Mapping | None = None) -> np.ndarray:
    src = c if d is None else _Claim(d, c.index, c.source)
    if d is not None:
        src.kind = c.kind
    w, l_, t = (src.count(k, required=k != "ties", default=0) for k in ("wins", "losses", "ties"))
    return np.array([w, 0, t, 0, l_], dtype=float)


def _win_interval(counts, rule, cl):
    """Interval of a win rate: Wilson for 0/1 credits, Wald on the mean credit for tie_half."""
    num, den = _rule_rate(counts, rule)
    if den == 0:
        return float("nan"), (float("nan"), float("nan")), "no battles counted"
    if rule != "tie_half":
        ci = stats.binomtest(int(round(num)), int(den)).proportion_ci(confidence_level=cl, method="wilson")
        return num / den, (float(ci.low), float(ci.high)), "Wilson score"
    m = num / den
    var = (counts[0] + counts[2] / 4) / den - m * m          # mean of credits 1, ½, 0
    q = stats.norm.ppf(0.5 + cl / 2)
    h = q * math.sqrt(max(var, 0) / den)
    return m, (max(m - h, 0.0), min(m + h, 1.0)), "Wald on the mean credit (1, ½, 0)"


def _win_rate(c: _Claim, opts):
    cl = opts["confidence_level"]
    counts = _win_counts(c)
    rules = [c.get("tie_rule")] if c.has("tie_rule") else list(_WIN_RULES)
    for r in rules:
        if r not in _WIN_RULES:
            raise c.err(f"tie_rule must be one of {_WIN_RULES}, got {r!r}")
    rates = {r: _rule_rate(counts, r) for r in rules}
    rates = {r: nd[0] / nd[1] if nd[1] else float("nan") for r, nd in rates.items()}
    W, T, L = int(counts[0]), int(counts[2]), int(counts[4])
    details = {"rates": rates}
    if all(math.isnan(v) for v in rates.values()):
        val = c.interval("value")[0] if c.has("value") else float("nan")
        return _row(c, statistic="win_rate", reported=val, confidence_level=cl, verdict="inconsistent",
                    reason=(f"{W} wins, {T} ties, {L} losses: no battle counts under "
                            + ", ".join(rates) + ", so a win rate is not computable"), details=details)
    if c.has("value"):
        val, lo, hi, d = c.interval("value")
        hit = [r for r, v in rates.items() if _matches(v, lo, hi)]
        rule = hit[0] if hit else rules[0]
        ok = bool(hit)
        reason = (f"{W} wins, {T} ties, {L} losses give {c.get('value')} under "
                  + " and ".join(hit) if ok else
                  f"{W} wins, {T} ties, {L} losses give "
                  + ", ".join((f"{v:.4f}" if not math.isnan(v) else "not computable") + f" ({r})" for r, v in rates.items())
                  + f", none of which prints as {c.get('value')}")
    else:
        val, rule, ok = float("nan"), rules[0], True
        reason = f"{W} wins, {T} ties, {L} losses: " + ", ".join(
            (f"{v:.4f}" if not math.isnan(v) else "not computable") + f" ({r})" for r, v in rates.items())
    est, ci, how = _win_interval(counts, rule, cl)
    basis = (f"assumes independent battles ({_IID}); the rule counts ties as: {rule}; interval: {how}")
    return _row(c, statistic=f"win_rate_{rule}", reported=val, recomputed=est, ci=ci, confidence_level=cl,
                verdict="consistent" if ok else "inconsistent", reason=f"{reason}; {basis}", details=details)


def _win_rate_difference(c: _Claim, opts):
    from statsmodels.stats.proportion import confint_proportions_2indep

    cl = opts["confidence_level"]
    if not (isinstance(c.get("a"), Mapping) and isinstance(c.get("b"), Mapping)):
        raise c.err("win_rate_difference needs a = {wins, losses, ties} and b = {wins, losses, ties}",
                    fix="write a = { wins = 120, losses = 60, ties = 20 } and the same for b")
    ca, cb = _win_counts(c, c.get("a")), _win_counts(c, c.get("b"))
    rule = c.get("tie_rule", "tie_half")
    if rule not in _WIN_RULES:
        raise c.err(f"tie_rule must be one of {_WIN_RULES}, got {rule!r}")
    (na, da), (nb, db) = _rule_rate(ca, rule), _rule_rate(cb, rule)
    if da == 0 or db == 0:
        side = " and ".join(x for x, den in (("a", da), ("b", db)) if den == 0)
        return _row(c, statistic=f"win_rate_difference_{rule}", reported=c.interval("value")[0] if c.has("value")
                    else float("nan"), confidence_level=cl, verdict="inconsistent",
                    reason=f"side {side} has no battle counted under {rule}: its win rate, and so "
                           "the difference, is not computable")
    diff = na / da - nb / db
    if rule != "tie_half":
        lo, hi = confint_proportions_2indep(int(na), int(da), int(nb), int(db), method="newcomb", compare="diff",
                                            alpha=1 - cl)
        how = "Newcombe's hybrid score interval (method 10)"
    else:
        va = (ca[0] + ca[2] / 4) / da - (na / da) ** 2
        vb = (cb[0] + cb[2] / 4) / db - (nb / db) ** 2
        h = stats.norm.ppf(0.5 + cl / 2) * math.sqrt(va / da + vb / db)
        lo, hi = diff - h, diff + h
        how = "Wald on the mean credits"
    verdict, parts = "consistent", [f"the difference under {rule} is {diff:.4f}"]
    val = float("nan")
    if c.has("value"):
        val, vlo, vhi, _ = c.interval("value")
        if not _matches(diff, vlo, vhi):
            verdict = "inconsistent"
            parts.append(f"which does not print as {c.get('value')}")
    if verdict == "consistent" and lo <= 0 <= hi:
        verdict = "not supported"
        parts.append(f"the interval [{lo:.3f}, {hi:.3f}] contains 0: the two win rates are not distinguishable")
    basis = (f"assumes the two models' battles are independent samples (if both were judged on the same prompts, a "
             f"paired analysis of the battles is narrower); interval: {how}")
    return _row(c, statistic=f"win_rate_difference_{rule}", reported=val, recomputed=diff, ci=(float(lo), float(hi)),
                confidence_level=cl, verdict=verdict, reason="; ".join(parts + [basis]))


def _judge_vs_human(c: _Claim, opts):
    from ..checks.design import _anticipated_table, kappa_variance_unit

    cl = opts["confidence_level"]
    kj, nj = c.number("judge_kappa"), c.count("judge_n")
    kh, nh = c.number("human_kappa"), c.count("human_n")
    prev = c.number("prevalence", required=False, default=0.5)
    margin = c.number("margin", required=False, default=0.1)
    overlap = bool(c.get("overlap", False))
    try:
        vj = kappa_variance_unit(_anticipated_table(None, kj, prev)) / nj
        vh = kappa_variance_unit(_anticipated_table(None, kh, prev)) / nh
    except ValueError as exc:
        raise c.err(str(exc), fix="give the prevalence= of the positive class") from None
    sj, sh = math.sqrt(vj), math.sqrt(vh)
    diff = kj - kh
    q = stats.norm.ppf(0.5 + cl / 2)
    se_ind = math.sqrt(vj + vh)
    p = float(2 * stats.norm.sf(abs(diff) / se_ind)) if se_ind > 0 else float("nan")
    bounds = {"independent": se_ind, "overlap_narrowest": abs(sj - sh), "overlap_widest": sj + sh}
    se = bounds["overlap_widest"] if overlap else se_ind
    lo, hi = diff - q * se, diff + q * se
    parts = [f"judge κ {kj:g} (SE {sj:.3f}, n = {nj}) vs human κ {kh:g} (SE {sh:.3f}, n = {nh}): difference "
             f"{diff:+.3f}, z-test p = {p:.3g} (independent samples)"]
    if overlap:
        parts.append(f"with the same items and no covariance reported, the SE of the difference lies between "
                     f"{bounds['overlap_narrowest']:.3f} and {bounds['overlap_widest']:.3f}; the widest is used")
    if lo > -margin:
        verdict = "consistent"
        parts.append(f"the interval [{lo:.3f}, {hi:.3f}] lies above −{margin:g}: the judge is not worse by more "
                     f"than {margin:g}")
    else:
        verdict = "not supported"
        parts.append(f"the interval [{lo:.3f}, {hi:.3f}] reaches below −{margin:g}: 'as good as the humans' "
                     f"is not shown (a non-significant difference is not equivalence)")
    basis = (f"assumes binary labels with both raters at prevalence {prev:g} (equal margins), so that each κ's "
             f"Fleiss–Cohen–Everitt SE follows from κ and n alone; {_IID}; non-inferiority margin {margin:g}")
    return _row(c, statistic="kappa_difference", reported=diff, recomputed=diff, ci=(lo, hi), confidence_level=cl,
                p_recomputed=p, verdict=verdict, reason="; ".join(parts + [basis]),
                details={"se_judge": sj, "se_human": sh, "se_difference": bounds})


# --------------------------------------------------------------------------------------------
# reproduce from released files
# --------------------------------------------------------------------------------------------

#: kind → what ``files = {…}`` may name for a reproduction.
REPRODUCIBLE = {
    "kappa": "reference and candidate judgments (qrels or tables): metaeval.align, then Cohen's κ",
    "accuracy": "reference and candidate judgments: metaeval.align, then the share of equal labels",
    "correlation": "scores: a table with one row per item and the columns named by columns = [x, y]",
    "rank_correlation": "scores: a table with one row per system and the columns named by columns = [x, y]",
}


def _path(c: _Claim, base: Path, name: str) -> Path:
    files = c.get("files")
    if name not in files:
        raise c.err(f"files has no {name!r}", expected=f"files = {{ {name} = \"path\" … }}",
                    fix=f"name the released {name} file (a path relative to the claims file)")
    p = Path(str(files[name]))
    p = p if p.is_absolute() else base / p
    if not p.exists():
        raise c.err(f"the released file {files[name]!r} does not exist (looked for {p})",
                    fix="give the path relative to the claims file, or an absolute path")
    return p


def _scores(c: _Claim, base: Path) -> tuple[np.ndarray, np.ndarray, Path]:
    from ..data.io import _read_table

    p = _path(c, base, "scores")
    cols = c.get("columns")
    if not (isinstance(cols, (list, tuple)) and len(cols) == 2):
        raise c.err("columns must name the two score columns of the scores file", text=repr(cols),
                    fix='write columns = ["judge", "human"]')
    try:
        df = _read_table(p)[0]
    except InputError as exc:
        raise c.err(f"the scores file cannot be read: {exc.problem}", fix=exc.fix, text=exc.text) from None
    missing = [x for x in cols if x not in df.columns]
    if missing:
        raise c.err(f"the scores file has no column {missing[0]!r}", text=", ".join(map(str, df.columns)),
                    fix="name two of the file's columns in columns = [...]")
    xy = df[list(cols)].apply(pd.to_numeric, errors="coerce")
    bad = xy.isna().any(axis=1)
    if bad.any():
        raise c.err(f"the scores file has {int(bad.sum())} row(s) without a number in {cols}",
                    fix="remove or fill the rows without scores", text=str(p))
    return xy.iloc[:, 0].to_numpy(float), xy.iloc[:, 1].to_numpy(float), p


def _near_labels(c: _Claim, levels) -> None:
    """Refuse labels that differ only by rounding error (1 and 1.0000001 would be two categories and κ wrong)."""
    nums = sorted(float(v) for v in levels if isinstance(v, (int, float, np.integer, np.floating)))
    for a, b in zip(nums, nums[1:]):
        if b - a <= 1e-6 * max(1.0, abs(a), abs(b)):
            raise c.err(f"the released files hold labels {a!r} and {b!r}, which differ only by {b - a:.1g}: they would "
                        "count as two categories and the recomputed number would be wrong",
                        fix="round the labels in the files (e.g. to whole numbers) so that equal labels are equal")


def _finite(c: _Claim, value: float, x, y, p: Path) -> None:
    if not math.isfinite(value):
        big = float(np.nanmax(np.abs(np.concatenate([x, y])))) if len(x) else float("nan")
        why = (f"the scores reach {big:.3g}, beyond what the arithmetic of a correlation can hold"
               if big > 1e150 else "the scores are constant or too few")
        raise c.err(f"the {c.get('method', 'kendall')} correlation of {p.name} is not computable: {why}",
                    fix="rescale the scores (e.g. divide by their largest value) or check the file")


def _reproduce(c: _Claim, base: Path) -> tuple[dict, float, str]:
    """Recompute the claim's number from the released files: (fields to fill in, value, how)."""
    if c.kind not in REPRODUCIBLE:
        raise c.err(f"kind {c.kind!r} cannot be recomputed from files",
                    expected="files= with kind " + ", ".join(REPRODUCIBLE))
    if not isinstance(c.get("files"), Mapping):
        raise c.err("files must be a table of paths", text=repr(c.get("files")),
                    fix='write files = { reference = "human.qrels", candidate = "judge.qrels" }')
    if c.kind in ("kappa", "accuracy"):
        from ..agreement.coefficients import cohen_kappa
        from ..data.alignment import align

        ref, cand = _path(c, base, "reference"), _path(c, base, "candidate")
        opts = {k: c.get(k) for k in ("on", "label", "unjudged", "out_of_scale", "duplicates") if c.has(k)}
        if "on" in opts and isinstance(opts["on"], list):
            opts["on"] = tuple(opts["on"])
        try:
            paired = align(ref, cand, **opts)
            if c.has("binarize"):
                paired = paired.binarize(c.number("binarize"))
            T = np.asarray(paired.table())
        except InputError as exc:
            raise c.err(f"the released files cannot be paired: {exc.problem}", fix=exc.fix, text=exc.text) from None
        _near_labels(c, paired.scale.levels)
        how = (f"metaeval.align({ref.name}, {cand.name}"
               + "".join(f", {k}={v!r}" for k, v in opts.items()) + ")"
               + (f".binarize({c.get('binarize')})" if c.has("binarize") else "") + f": {int(T.sum())} pairs")
        if c.kind == "kappa":
            value = float(cohen_kappa(table=T, weights=c.get("weights"), ci_method=None).estimate)
        else:
            value = float(np.trace(T) / T.sum())
        fill = {"table": T.tolist()} if c.kind == "kappa" else {"n": int(T.sum()), "count": int(np.trace(T))}
        return fill, value, how
    x, y, p = _scores(c, base)
    if c.kind == "correlation":
        method = c.get("method", "pearson")
        fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}.get(method)
        if fn is None:
            raise c.err(f"method must be pearson, spearman or kendall, got {method!r}")
        with np.errstate(all="ignore"):
            value = float(fn(x, y)[0])
        _finite(c, value, x, y, p)
        return {"n": len(x)}, value, f"scipy.stats {method} over the {len(x)} rows of {p.name}"
    from ..systems.ranking import kendall_tau

    variant = "b" if c.get("ties", False) else "a"
    with np.errstate(all="ignore"):
        value = float(kendall_tau(x, y, variant=variant))
    _finite(c, value, x, y, p)
    return {"systems": len(x)}, value, f"metaeval.kendall_tau (τ_{variant}) over the {len(x)} systems of {p.name}"


def _reproduced_text(c: _Claim, value: float) -> tuple[bool, str]:
    """Whether the recomputed value prints as the reported one; ``reproduced`` or ``differs by …``."""
    key = "value"
    _, lo, hi, d = c.interval(key)
    if _matches(value, lo, hi):
        return True, "reproduced"
    return False, f"differs by {value - _number(c.get(key), key):+.{max(d, 2) + 1}f} (recomputed {value:.{max(d, 2) + 2}f})"


#: kind → the printed numbers that have a range: (field, low, high, what). A number outside its range
#: makes the claim "inconsistent" (no data give it) before anything else is checked.
RANGES = {
    "kappa": (("value", -1, 1, "Cohen's κ"), ("percent_agreement", 0, 1, "a percent agreement (a proportion)")),
    "fleiss_kappa": (("value", -1, 1, "Fleiss' κ"),),
    "accuracy": (("value", 0, 1, "an accuracy (a proportion)"),),
    "proportion": (("value", 0, 1, "a proportion"),),
    "precision": (("value", 0, 1, "a precision (a proportion)"),),
    "recall": (("value", 0, 1, "a recall (a proportion)"),),
    "f1": (("value", 0, 1, "F1"), ("precision", 0, 1, "a precision (a proportion)"),
           ("recall", 0, 1, "a recall (a proportion)")),
    "correlation": (("value", -1, 1, "a correlation coefficient"),),
    "rank_correlation": (("value", -1, 1, "Kendall's τ"),),
    "win_rate": (("value", 0, 1, "a win rate"),),
    "win_rate_difference": (("value", -1, 1, "a difference of win rates"),),
    "judge_vs_human": (("judge_kappa", -1, 1, "Cohen's κ"), ("human_kappa", -1, 1, "Cohen's κ")),
}


def _out_of_range(c: _Claim, opts):
    """The row of a claim whose printed number lies outside its statistic's range (None: all inside)."""
    for key, low, high, what in RANGES.get(c.kind, ()):
        if key == "value" and c.kind == "correlation":
            what = _NAME.get(c.get("method", "pearson"), what)
        bad = c.bounded(key, low, high, what)
        if bad:
            val = _number(c.get(key), key)
            return _row(c, statistic=c.kind, reported=val if key == "value" else float("nan"),
                        confidence_level=opts["confidence_level"], p_reported=c.get("p"), verdict="inconsistent",
                        reason=bad, details={"out_of_range": key})
    return None


#: kind → handler(claim, options) returning one row.
KINDS = {
    "kappa": _kappa,
    "fleiss_kappa": _fleiss,
    "accuracy": lambda c, o: _proportion(c, o, "accuracy"),
    "proportion": lambda c, o: _proportion(c, o, "proportion"),
    "precision": lambda c, o: _proportion(c, o, "precision"),
    "recall": lambda c, o: _proportion(c, o, "recall"),
    "f1": _f1,
    "correlation": _correlation,
    "rank_correlation": _rank_correlation,
    "win_rate": _win_rate,
    "win_rate_difference": _win_rate_difference,
    "judge_vs_human": _judge_vs_human,
}


# --------------------------------------------------------------------------------------------
# options: one table for the Python keyword, the command-line flag and the claims file's key
# --------------------------------------------------------------------------------------------

#: The options of a review: keyword → (command-line flag, claims-file key at the top of the file,
#: default, what it must be). :func:`check_claims` takes the keyword, ``metaeval review`` the flag,
#: a claims file the key; an explicit keyword or flag wins over the file, the file over the default.
#: Each is checked once, by :func:`review_options`.
REVIEW_OPTIONS = {
    "alpha": ("--alpha", "alpha", 0.05, "a significance level strictly between 0 and 1"),
    "confidence_level": ("--confidence-level", "confidence_level", 0.95, "a level strictly between 0 and 1"),
    "n_resamples": ("--n-resamples", "n_resamples", 2000, "a whole number of bootstrap replicates"),
    "rng": ("--seed", "seed", 0, "a whole-number seed"),
}


def _check_option(name, value, where, source):
    from ..core.resample import check_n_resamples, check_seed

    if name == "n_resamples":
        return check_n_resamples(value, where=where, source=source)
    if name == "rng":
        return check_seed(value, where=where, source=source)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{where} must be a number, got {value!r}", source=source,
                         expected=REVIEW_OPTIONS[name][3], fix=f"pass {name}={REVIEW_OPTIONS[name][2]}")
    v = float(value)
    if not (math.isfinite(v) and 0 < v < 1):
        raise InputError(f"{where} must lie strictly between 0 and 1, got {value!r}", source=source,
                         expected=REVIEW_OPTIONS[name][3], fix=f"pass {name}={REVIEW_OPTIONS[name][2]}")
    return v


def review_options(path=None, *, source: str | None = None, **given) -> dict:
    """The options of a review, checked: given (keyword or flag) > the claims file > the default.

    Parameters
    ----------
    path : str or path, optional
        A claims file whose top level may set ``alpha``, ``confidence_level``, ``n_resamples``
        and ``seed``.
    source : str, optional
        Where the given values come from, for the message (e.g. ``"the command line"``).
    **given
        Keywords of :data:`REVIEW_OPTIONS` (None: not given).

    Returns
    -------
    dict
        ``alpha``, ``confidence_level``, ``n_resamples``, ``rng``.

    Raises
    ------
    InputError
        A value out of its range (``alpha = 2``, ``alpha = nan``), or an unknown top-level key in
        the claims file.

    Examples
    --------
    >>> review_options(alpha=0.01)
    {'alpha': 0.01, 'confidence_level': 0.95, 'n_resamples': 2000, 'rng': 0}
    """
    unknown = set(given) - set(REVIEW_OPTIONS)
    if unknown:
        raise InputError(f"unknown review option {sorted(unknown)[0]!r}", expected=", ".join(REVIEW_OPTIONS))
    from_file = {}
    if path is not None:
        data = _read_toml(Path(path))
        keys = {v[1]: k for k, v in REVIEW_OPTIONS.items()}
        for key, value in data.items():
            if key in ("claim", "claims", "text"):
                continue
            if key not in keys:
                raise InputError(f"unknown top-level key {key!r}", source=path,
                                 expected="[[claim]] and [[text]] tables, and the options " + ", ".join(keys),
                                 fix="put the claim's fields under its [[claim]] header")
            from_file[keys[key]] = _check_option(keys[key], value, f"the top-level {key}", str(path))
    out = {}
    for name, (flag, _key, default, _) in REVIEW_OPTIONS.items():
        if given.get(name) is not None:
            where = flag if source == "the command line" else name
            out[name] = _check_option(name, given[name], where, source)
        else:
            out[name] = from_file.get(name, default)
    return out


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------

def check_claims(claims, *, confidence_level: float | None = None, alpha: float | None = None,
                 n_resamples: int | None = None, rng: int | None = None, base_dir=None) -> pd.DataFrame:
    """Check judge-validation claims from the numbers a paper reports: one row per claim.

    Parameters
    ----------
    claims : str, path, or list of dict
        A TOML claims file (``[[claim]]`` tables) or the claims themselves, each with a ``kind`` and
        the reported numbers (see the module docstring for every kind and its fields).
    confidence_level : float, optional
        Level of the recomputed intervals (default 0.95).
    alpha : float, optional
        Significance level: what ``p = "ns"`` means (default 0.05).
    n_resamples : int, optional
        Bootstrap replicates where an interval is bootstrapped (F1 from a table, κ at another
        prevalence; default 2000).
    rng : int, optional
        Seed of those bootstraps (the same claims and seed give the same numbers; default 0).
        A claims file may set each of these at its top level (``alpha = 0.01``, ``seed = 3``); a
        keyword given here wins (:data:`REVIEW_OPTIONS`, :func:`review_options`).
    base_dir : str or path, optional
        Where the paths of ``files = {…}`` start (default: the claims file's folder, or the working
        directory for a list of dicts).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``claim`` (1-based position), ``kind``, ``sentence``, ``statistic``,
        ``reported``, ``recomputed``, ``ci_low``, ``ci_high``, ``confidence_level``, ``p_reported``,
        ``p_recomputed``, ``verdict`` (``consistent``, ``inconsistent``, ``not supported``),
        ``reason`` (what was found and the assumption it rests on), ``could_conclude`` (κ at the
        deployment prevalence, labels needed, judge-corrected prevalence), ``reproduced`` (for a
        claim naming released files: ``reproduced`` when the number recomputed from them prints
        as the reported one, else ``differs by …``; empty otherwise) and ``details`` (a dict).
        :func:`to_records` turns it into JSON-able records.

    Raises
    ------
    InputError
        An unknown kind or a missing or malformed field, naming the claim and the file.

    Notes
    -----
    Each verdict's reason names its assumption: iid items unless the paper reports clustering,
    binary labels with equal margins where a κ's standard error must come from κ and n alone,
    untied systems for τ unless ``ties = true``, independent samples for two κ or two win rates.
    A reported p is checked against every standard test of the statistic and is consistent when
    one of them gives it (the reason names which). Counts must be whole numbers up to
    :data:`MAX_COUNT`; κ from n alone searches the 2×2 tables up to
    :data:`metaeval.review.feasibility.SEARCH_MAX_N` items (give the margins or the table beyond).

    References
    ----------
    See the module docstring (:mod:`metaeval.review.claims`).

    Examples
    --------
    >>> import metaeval
    >>> df = metaeval.check_claims([{"kind": "kappa", "value": 0.61, "n": 202, "percent_agreement": 0.80}])
    >>> df.loc[0, "verdict"]
    'consistent'
    >>> df = metaeval.check_claims([{"kind": "correlation", "method": "pearson", "value": 0.52, "n": 30,
    ...                              "p": "< .001"}])
    >>> df.loc[0, "verdict"], round(float(df.loc[0, "p_recomputed"]), 4)
    ('inconsistent', 0.0032)
    """
    source = "<claims>"
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    given = {"confidence_level": confidence_level, "alpha": alpha, "n_resamples": n_resamples, "rng": rng}
    if isinstance(claims, (str, Path)):
        source = str(claims)
        base = Path(base_dir) if base_dir is not None else Path(claims).resolve().parent
        path, claims = claims, load_claims(claims)
        opts = review_options(path, **given)
    else:
        opts = review_options(None, **given)
        if isinstance(claims, Mapping):
            claims = [claims]
    if not isinstance(claims, Sequence) or isinstance(claims, (str, bytes)):
        raise InputError("claims must be a TOML path or a list of dicts", text=repr(claims)[:80])
    rows = []
    for i, d in enumerate(claims, start=1):
        if not isinstance(d, Mapping):
            raise InputError(f"claim {i} is not a table of fields", source=source, text=repr(d))
        c = _Claim(d, i, source)
        if c.kind not in KINDS:
            raise c.err(f"unknown kind {c.kind!r}", expected="one of " + ", ".join(KINDS),
                        fix='set kind = "kappa" (or another kind listed)')
        bad = _out_of_range(c, opts)
        if bad is not None:
            rows.append(bad)
            continue
        if not c.has("files"):
            rows.append(KINDS[c.kind](c, opts))
            continue
        fill, value, how = _reproduce(c, base)
        if not c.has("value"):
            raise c.err("a claim with files= needs the reported value= to compare with")
        ok, text = _reproduced_text(c, value)
        c2 = _Claim({**fill, **{k: v for k, v in d.items() if k != "files"}}, i, source)
        row = KINDS[c.kind](c2, opts)
        row["reproduced"] = text
        row["details"] = {**row["details"], "reproduced_value": value, "reproduced_from": how}
        row["reason"] = (f"recomputed from the released files ({how}): {value:.4f}"
                         + (", which prints as the reported value" if ok else "") + "; " + row["reason"])
        if not ok:
            row["verdict"] = "inconsistent"
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if not math.isfinite(float(v)) else float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    return v


def to_records(frame: pd.DataFrame) -> list[dict]:
    """The rows of :func:`check_claims` as JSON-able dicts (NaN → None, numpy → Python).

    Parameters
    ----------
    frame : pandas.DataFrame
        What :func:`check_claims` returned.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> import json, metaeval
    >>> from metaeval.review.claims import to_records
    >>> recs = to_records(metaeval.check_claims([{"kind": "accuracy", "value": 0.77, "n": 202}]))
    >>> json.loads(json.dumps(recs))[0]["verdict"]
    'consistent'
    """
    return [_jsonable(r) for r in frame.to_dict(orient="records")]

