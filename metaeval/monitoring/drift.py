"""Watching a deployed judge: an anytime-valid alarm when its agreement falls, and who moved.

The monitor follows two streams. *Anchor* items carry a human label and the current judge's label:
their agreement answers "did the judge get worse?". *Production* items carry only the judge's label:
the share it calls positive answers "did what is being judged change?". Each is tested by an
e-process (a nonnegative supermartingale under the null, so ``P(ever ≥ 1/α) ≤ α`` by Ville's
inequality): the monitor may be looked at after every item, and an alarm is still a level-α
decision. An e-process is a product of bets, so each update costs O(1) whatever the history.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import signal, stats

from ..core.errors import InputError
from .sequences import _arrival_order, _check_complete, _labels_of, _positive_of

__all__ = ["AgreementMonitor", "MonitorResult", "monitor", "plan_anchors", "MONITOR_STATISTICS"]

#: The statistics a monitor follows: each is the mean of a 0/1 indicator over a subsequence of anchors.
MONITOR_STATISTICS = ("accuracy", "sensitivity", "specificity", "ppv", "npv")

#: The memories of the adaptive bets, in pairs: each bet follows an exponentially weighted mean of
#: the recent outcomes with this half-life, so it stakes nothing while the judge holds its level and
#: grows its stake once the recent outcomes fall below the threshold. The e-process is their average
#: (a mixture of test supermartingales is one), so abrupt and slow falls are both followed.
HALF_LIVES = (25.0, 100.0, 400.0, 1600.0)

#: The largest stake, as a fraction of the stake that would make the wealth zero on one bad outcome.
MAX_STAKE = 0.5


def _check_level(alpha, name="alpha"):
    if not (isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and 0 < alpha < 1):
        raise InputError(f"{name} must be in (0, 1), got {alpha!r}", fix=f"pass {name}=0.05")
    return float(alpha)


def _indicator(ref, jud, statistic, positive):
    """(use, x): which pairs the statistic averages over, and the 0/1 outcome of each."""
    ref = np.asarray(ref, dtype=object)
    jud = np.asarray(jud, dtype=object)
    agree = np.asarray([a == b for a, b in zip(ref, jud)], dtype=bool)
    if statistic == "accuracy":
        return np.ones(len(ref), dtype=bool), agree
    rp = np.asarray([v == positive for v in ref], dtype=bool)
    jp = np.asarray([v == positive for v in jud], dtype=bool)
    return {"sensitivity": (rp, jp), "specificity": (~rp, ~jp), "ppv": (jp, rp), "npv": (~jp, ~rp)}[statistic]


class _Bets:
    """Adaptive bets against ``H0: mean ≥ c`` (``side="below"``) or ``H0: mean ≤ c`` (``"above"``).

    For each half-life h, the stake before outcome t is the GRAPA bet (Waudby-Smith & Ramdas 2024,
    eq. 26) computed from the exponentially weighted mean m of the outcomes before t (starting at
    c): ``λ = clip((c − m)/(m(1 − m) + (c − m)²), 0, MAX_STAKE/(1 − c))`` for "below" (the mirror
    for "above"). It is predictable, so ``1 + λ(c − x)`` has conditional mean ≤ 1 under H0 and the
    wealth is a test supermartingale. State: a wealth and a mean per half-life (O(1) per outcome).
    """

    def __init__(self, c: float, side: str):
        self.c, self.side = float(c), side
        self.void = not 0 < c < 1  # the null holds surely (c ≤ 0 for "below", c ≥ 1 for "above")
        self.w = 1 - 0.5 ** (1 / np.asarray(HALF_LIVES))  # EWMA weights
        self._w = [float(v) for v in self.w]
        # the state is kept in plain floats: one update is a few dozen float operations
        self._mean = [self.c] * len(HALF_LIVES)
        self._wealth = [1.0] * len(HALF_LIVES)
        self.cap = MAX_STAKE / max(1 - c if side == "below" else c, 1e-12)
        self.n = 0
        self.max_e = 1.0

    def _stakes(self, m):
        gap = (self.c - m) if self.side == "below" else (m - self.c)
        return np.clip(gap / (m * (1 - m) + gap ** 2 + 1e-12), 0.0, self.cap)

    def _log_factor(self, lam, x):
        return np.log1p(lam * (self.c - x)) if self.side == "below" else np.log1p(lam * (x - self.c))

    @property
    def mean(self) -> np.ndarray:
        return np.asarray(self._mean)

    @property
    def log_w(self) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(np.asarray(self._wealth))

    def e_value(self) -> float:
        return 1.0 if self.void else sum(self._wealth) / len(self._wealth)

    def push(self, x) -> float:
        """Add one outcome: a constant number of float operations, whatever the history."""
        self.n += 1
        if not self.void:
            x = 1.0 if x else 0.0
            c, cap, w, mean, wealth = self.c, self.cap, self._w, self._mean, self._wealth
            below = self.side == "below"
            d = (c - x) if below else (x - c)
            for j in range(len(mean)):
                m = mean[j]
                gap = c - m if below else m - c
                lam = gap / (m * (1 - m) + gap * gap + 1e-12)
                lam = 0.0 if lam < 0 else (cap if lam > cap else lam)
                # wealth beyond 1e300 is an alarm long since; capping it keeps the float finite
                wealth[j] = min(wealth[j] * (1 + lam * d), 1e300)
                mean[j] = m + w[j] * (x - m)
        e = self.e_value()
        if e > self.max_e:
            self.max_e = e
        return e

    def paths(self, x: np.ndarray) -> np.ndarray:
        """The log-wealth after each outcome, per bet: shape ``x.shape + (bets,)`` (no state change)."""
        x = np.asarray(x, dtype=float)
        w = self.w
        # the mean before each outcome: m_t = (1 − w) m_{t−1} + w x_{t−1}, as a linear filter
        shifted = np.concatenate([np.zeros(x.shape[:-1] + (1,)), x[..., :-1]], axis=-1)[..., None]
        m = np.empty(x.shape + (len(w),))
        for j, wj in enumerate(w):
            m[..., j] = signal.lfilter([wj], [1, -(1 - wj)], shifted[..., 0], axis=-1,
                                       zi=np.full(x.shape[:-1] + (1,), self.mean[j]))[0]
        return np.cumsum(self._log_factor(self._stakes(m), x[..., None]), axis=-2)

    def push_many(self, x: np.ndarray) -> np.ndarray:
        """The e-process after each of the outcomes ``x`` (vectorised: O(len(x) × bets))."""
        x = np.asarray(x, dtype=float)
        if len(x) == 0:
            return np.empty(0)
        if self.void:
            self.n += len(x)
            return np.ones(len(x))
        path = self.log_w + self.paths(x)
        self._wealth = [float(v) for v in np.exp(np.minimum(path[-1], 690.0))]
        # advance the means exactly as push() would
        for j, wj in enumerate(self.w):
            self._mean[j] = float(signal.lfilter([wj], [1, -(1 - wj)], x, zi=[(1 - wj) * self._mean[j]])[0][-1])
        self.n += len(x)
        m = path.max(axis=1, keepdims=True)
        with np.errstate(over="ignore"):  # a wealth beyond 1e308 is an alarm all the same: inf
            e = np.exp(m[:, 0] + np.log(np.exp(path - m).mean(axis=1)))
        self.max_e = max(self.max_e, float(e.max()))
        return e


def _lower_bound(k: int, n: int, level: float) -> float:
    """One-sided Clopper–Pearson lower bound (exact binomial)."""
    return 0.0 if k <= 0 else float(stats.beta.ppf(level, k, n - k + 1))


def _upper_bound(k: int, n: int, level: float) -> float:
    return 1.0 if k >= n else float(stats.beta.ppf(1 - level, k + 1, n - k))


class AgreementMonitor:
    """A streaming, anytime-valid alarm for a judge whose agreement with humans falls.

    Parameters
    ----------
    baseline_successes, baseline_n : int
        The validation sample: how many of ``baseline_n`` baseline pairs count as a success for the
        statistic (for accuracy: the judge gave the human label).
    delta : float, default 0.0
        The tolerated fall: the alarm tests ``H0: agreement ≥ baseline agreement − delta``.
    alpha : float, default 0.05
        The probability of any false alarm over the whole stream (split equally between the
        baseline's uncertainty and the stream).
    baseline_rate : tuple of int, optional
        ``(positives, n)``: the judge's positive calls on baseline production items. With it,
        :meth:`update_production` follows whether the judged rate moves (two-sided, level ``alpha``).

    Attributes
    ----------
    threshold : float
        ``c`` in ``H0: agreement ≥ c``: the baseline's one-sided Clopper–Pearson lower bound at
        ``alpha/2`` minus ``delta``.
    alarm_at : int or None
        The number of anchor pairs at the first alarm.

    Notes
    -----
    The e-process is the average, over the half-lives of :data:`HALF_LIVES`, of the wealths
    ∏ (1 + λ_i(c − x_i)), x_i = 1 for a success, where each stake λ_i is the GRAPA bet computed from an
    exponentially weighted mean of the outcomes before i, clipped to [0, MAX_STAKE/(1 − c)] (see
    ``_Bets``). The stakes are predictable and every factor is positive with conditional mean ≤ 1
    under H0, so each wealth and their average are test supermartingales and
    ``P(sup E_n ≥ 2/α) ≤ α/2`` (Ville). With the baseline bound failing with probability α/2, a false
    alarm has probability ≤ α. The anytime-valid p-value is ``alpha/2 + 1/sup E`` (:attr:`p_value`).
    One update costs a constant number of operations.

    References
    ----------
    Ramdas, Grünwald, Vovk & Shafer (2023), "Game-theoretic statistics and safe anytime-valid
    inference", *Statistical Science* 38(4). Waudby-Smith & Ramdas (2024), *JRSS B* 86(1).

    Examples
    --------
    >>> from metaeval.monitoring import AgreementMonitor
    >>> m = AgreementMonitor(850, 1000, delta=0.02)
    >>> round(m.threshold, 4)
    0.8063
    >>> for x in [1] * 60 + [0] * 40:   # a judge that now agrees 60% of the time
    ...     _ = m.update(x)
    >>> m.alarm, m.alarm_at
    (True, 82)
    """

    def __init__(self, baseline_successes: int, baseline_n: int, *, delta: float = 0.0, alpha: float = 0.05,
                 baseline_rate: tuple[int, int] | None = None):
        alpha = _check_level(alpha)
        k, n = _counts(baseline_successes, baseline_n, "baseline")
        if not (isinstance(delta, (int, float)) and not isinstance(delta, bool) and 0 <= delta < 1):
            raise InputError(f"delta must be in [0, 1), got {delta!r}", fix="pass delta=0.02 (a tolerated fall of 2 points)")
        self.alpha, self.delta = alpha, float(delta)
        self.baseline = (k, n)
        self.threshold = _lower_bound(k, n, alpha / 2) - self.delta
        self._anchor = _Bets(self.threshold, "below")
        self.alarm_at: int | None = None
        self.production_alarm_at: int | None = None
        self._rate = None
        if baseline_rate is not None:
            qk, qn = _counts(*baseline_rate, "baseline_rate")
            lo, hi = _lower_bound(qk, qn, alpha / 4), _upper_bound(qk, qn, alpha / 4)
            self._rate = (_Bets(lo, "below"), _Bets(hi, "above"))
            self.rate_band = (lo, hi)

    # -- anchors -----------------------------------------------------------------------------
    def update(self, success) -> float:
        """Add one anchor outcome (1/True: a success) and return the e-process.

        Parameters
        ----------
        success : bool or int
            Whether the judge agreed with the human on this anchor (for the monitored statistic).

        Returns
        -------
        float
            The e-process after this pair.
        """
        e = self._anchor.push(bool(success))
        if self.alarm_at is None and e >= 2 / self.alpha:
            self.alarm_at = self._anchor.n
        return e

    def update_many(self, successes) -> np.ndarray:
        """Add many anchor outcomes at once; returns the e-process after each (vectorised).

        Parameters
        ----------
        successes : array_like of bool
            The outcomes in arrival order.

        Returns
        -------
        numpy.ndarray
            The e-process after each outcome.
        """
        start = self._anchor.n
        e = self._anchor.push_many(np.asarray(successes, dtype=bool))
        if self.alarm_at is None:
            hit = np.flatnonzero(e >= 2 / self.alpha)
            if len(hit):
                self.alarm_at = start + int(hit[0]) + 1
        return e

    # -- production --------------------------------------------------------------------------
    def update_production(self, positives) -> np.ndarray:
        """Add the judge's calls on production items (1/True: positive); vectorised.

        Parameters
        ----------
        positives : array_like of bool
            The judge's positive calls in arrival order.

        Returns
        -------
        numpy.ndarray
            The larger of the two one-sided e-processes after each item.
        """
        if self._rate is None:
            raise InputError("the monitor has no baseline rate of positive calls",
                             fix="pass baseline_rate=(positives, n) from the judge's baseline production calls")
        x = np.atleast_1d(np.asarray(positives, dtype=bool))
        start = self._rate[0].n
        e = np.maximum(self._rate[0].push_many(x), self._rate[1].push_many(x))
        if self.production_alarm_at is None:
            hit = np.flatnonzero(e >= 4 / self.alpha)
            if len(hit):
                self.production_alarm_at = start + int(hit[0]) + 1
        return e

    # -- state -------------------------------------------------------------------------------
    @property
    def alarm(self) -> bool:
        """Whether the agreement alarm has been raised."""
        return self.alarm_at is not None

    @property
    def n(self) -> int:
        """Anchor pairs seen."""
        return self._anchor.n

    @property
    def p_value(self) -> float:
        """Anytime-valid p-value of ``H0: agreement ≥ baseline − delta``: ``alpha/2 + 1/sup E``.

        The baseline bound fails with probability ``alpha/2``; the stream's e-process crosses
        ``1/u`` with probability ``≤ u``; so ``P(p ≤ u) ≤ u`` for every ``u ≥ alpha/2``, and the
        alarm is raised exactly when ``p ≤ alpha``. It cannot fall below ``alpha/2``: that share of
        the false-alarm budget is spent on the baseline's own uncertainty, fixed before the stream.
        """
        return float(min(1.0, self.alpha / 2 + 1 / self._anchor.max_e))

    @property
    def production_p_value(self) -> float:
        """Anytime-valid p-value of ``H0: the judged rate stays in the baseline band``
        (``alpha/2 + 2/sup E`` over the two one-sided e-processes; NaN without a baseline rate)."""
        if self._rate is None:
            return float("nan")
        return float(min(1.0, self.alpha / 2 + 2 / max(self._rate[0].max_e, self._rate[1].max_e)))

    @property
    def attribution(self) -> str:
        """``"judge"`` (agreement on anchors fell), ``"systems"`` (the judged rate moved while the
        anchors held), or ``"none"``."""
        if self.alarm:
            return "judge"
        if self.production_alarm_at is not None:
            return "systems"
        return "none"


def _counts(k, n, what):
    for v, name in ((k, "successes"), (n, "n")):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InputError(f"the {what} {name} must be a nonnegative integer, got {v!r}",
                             fix="pass counts of pairs (integers)")
    if n < 1 or k > n:
        raise InputError(f"the {what} counts {k} of {n} are impossible", fix="pass successes between 0 and n, n ≥ 1")
    return int(k), int(n)


@dataclass(frozen=True)
class MonitorResult:
    """What :func:`monitor` found in a stream.

    Attributes
    ----------
    statistic : str
    alarm : bool
        The judge's agreement on anchors fell by more than ``delta`` (level ``alpha``).
    alarm_at : int or None
        The stream position (1-based, arrival order) of the anchor pair that raised it.
    alarm_anchors : int or None
        How many anchor pairs (counted by the statistic: e.g. human positives for sensitivity) had
        been seen at the alarm.
    p_value : float
        Anytime-valid p-value of ``H0: agreement ≥ baseline − delta`` at the end of the stream.
    production_alarm_at : int or None
        The stream position at which the judged rate left the baseline band (None: it did not,
        or no baseline rate was given).
    production_p_value : float
    attribution : str
        ``"judge"``, ``"systems"`` or ``"none"``.
    threshold : float
        ``c`` in ``H0: agreement ≥ c``.
    history : pandas.DataFrame
        One row per stream item: ``position``, ``anchor`` (bool), ``n_anchors``, ``e_value``
        (anchors), ``production_e_value``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import metaeval as me
    >>> rng = np.random.default_rng(0)
    >>> h = rng.integers(0, 2, 400)
    >>> base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(400) < 0.9, h, 1 - h)})
    >>> res = me.monitor(base, base.iloc[:200])          # the stream agrees as well as the baseline
    >>> res.alarm, res.attribution, list(res.history.columns)[:3]
    (False, 'none', ['position', 'anchor', 'n_anchors'])
    """

    statistic: str
    alarm: bool
    alarm_at: int | None
    alarm_anchors: int | None
    p_value: float
    production_alarm_at: int | None
    production_p_value: float
    attribution: str
    threshold: float
    history: pd.DataFrame = field(repr=False)

    def __str__(self) -> str:
        where = f"alarm at item {self.alarm_at}" if self.alarm else "no alarm"
        prod = ("" if math.isnan(self.production_p_value) else
                f"; judged rate {'moved at item ' + str(self.production_alarm_at) if self.production_alarm_at else 'held'}"
                f" (p = {self.production_p_value:.3g})")
        return (f"monitor of {self.statistic}: {where} (anytime-valid p = {self.p_value:.3g}, "
                f"H0: {self.statistic} ≥ {self.threshold:.4f}){prod}; attribution: {self.attribution}")


def _pairs_frame(data, what):
    from ..data.alignment import Paired

    if isinstance(data, Paired):
        return data.data
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, tuple) and len(data) == 2:
        ref, jud = (np.asarray(x, dtype=object).ravel() for x in data)
        if len(ref) != len(jud):
            raise InputError(f"the {what}'s two label arrays differ in length ({len(ref)} and {len(jud)})",
                             fix="pass (reference, judge) with one judge label per reference label")
        return pd.DataFrame({"reference": ref, "candidate": jud})
    raise InputError(f"the {what} must be a frame with 'reference' and 'candidate' columns, a Paired, "
                     f"or a (reference, judge) tuple; got {type(data).__name__}",
                     fix="pass metaeval.align(human, judge) or a frame of pairs")


def monitor(baseline, stream, *, statistic: str = "accuracy", delta: float = 0.0, alpha: float = 0.05,
            positive=None, order: str | None = None, baseline_production=None) -> MonitorResult:
    """Follow a deployed judge: an anytime-valid alarm when its agreement falls, and who moved.

    Parameters
    ----------
    baseline : pandas.DataFrame, Paired or tuple
        The validation sample: pairs with columns ``reference`` (human) and ``candidate`` (judge),
        a ``Paired``, or a ``(reference, judge)`` tuple of arrays.
    stream : pandas.DataFrame
        The items after deployment in arrival order, with columns ``candidate`` (the judge's
        label) and ``reference`` (the human label on anchor items; missing on production items).
    statistic : str, default "accuracy"
        One of ``"accuracy"``, ``"sensitivity"``, ``"specificity"``, ``"ppv"``, ``"npv"``.
    delta : float, default 0.0
        The tolerated fall of the statistic.
    alpha : float, default 0.05
        The probability of a false alarm over the whole stream, for each of the two alarms.
    positive : label, optional
        The positive class (for the judged rate and the class statistics; default 1 for 0/1 labels).
    order : str, optional
        The stream's arrival-order column (default: row order).
    baseline_production : array_like, optional
        The judge's labels on production items before deployment changes (the baseline judged
        rate). Without it the monitor cannot tell a change of the systems from none.

    Returns
    -------
    MonitorResult

    Notes
    -----
    Attribution: the judge's agreement on anchor items (a fixed human-labelled pool re-judged by
    the current judge) does not depend on what the systems produce now, so a fall there is the
    judge's; a move of the judged rate on production items with the anchors holding is the
    systems'. Both alarms are anytime-valid at level ``alpha``; an alarm on the anchors is reported
    as ``"judge"`` even if the rate moved too (a changed judge moves both). See
    :class:`AgreementMonitor` for the e-processes.

    References
    ----------
    Waudby-Smith & Ramdas (2024), *JRSS B* 86(1); Howard et al. (2021), *Ann. Statist.* 49(2).
    Calibration of the false-alarm rate and the LLMJudge judge-swap study:
    ``benchmarks/coverage_monitor.py``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import metaeval as me
    >>> rng = np.random.default_rng(1)
    >>> h = rng.integers(0, 2, 500)
    >>> base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(500) < 0.9, h, 1 - h)})
    >>> hs = rng.integers(0, 2, 600)
    >>> acc = np.r_[np.full(300, 0.9), np.full(300, 0.7)]          # the judge is swapped at item 300
    >>> stream = pd.DataFrame({"reference": hs, "candidate": np.where(rng.random(600) < acc, hs, 1 - hs)})
    >>> res = me.monitor(base, stream, delta=0.02)
    >>> res.alarm, res.attribution
    (True, 'judge')
    >>> 300 < res.alarm_at < 600
    True
    """
    if statistic not in MONITOR_STATISTICS:
        raise InputError(f"unknown statistic {statistic!r} for the monitor",
                         fix=f"pass statistic= one of {', '.join(repr(s) for s in MONITOR_STATISTICS)}")
    alpha = _check_level(alpha)
    base = _pairs_frame(baseline, "baseline")
    bref, bjud, _ = _labels_of(base, None, None)
    _check_complete(bref, bjud)
    if not isinstance(stream, pd.DataFrame) or "candidate" not in stream.columns:
        raise InputError("the stream must be a frame with a 'candidate' column (the judge's labels) and a "
                         "'reference' column (human labels on anchor items, missing elsewhere)",
                         fix="build it with pandas: one row per judged item, in arrival order")
    if "reference" not in stream.columns:
        stream = stream.assign(reference=np.nan)
    if order is not None:
        if order not in stream.columns:
            raise InputError(f"order={order!r} is not a column of the stream", fix="pass order= the arrival-time column")
        stream = stream.iloc[_arrival_order(stream[order], order)]
    sjud = stream["candidate"].to_numpy(dtype=object)
    if pd.isna(pd.Series(sjud)).any():
        i = int(np.flatnonzero(pd.isna(pd.Series(sjud)).to_numpy())[0])
        raise InputError(f"stream item {i + 1} has no judge label", fix="drop items the judge did not label")
    sref = stream["reference"].to_numpy(dtype=object)
    anchor = ~pd.isna(pd.Series(sref)).to_numpy()
    labels = np.concatenate([bref, bjud, sref[anchor], sjud])
    needs_positive = statistic != "accuracy" or baseline_production is not None
    pos = _positive_of(labels, labels, positive) if needs_positive else None
    use_b, x_b = _indicator(bref, bjud, statistic, pos)
    rate = None
    if baseline_production is not None:
        bp = np.asarray(baseline_production, dtype=object).ravel()
        rate = (int(sum(v == pos for v in bp)), len(bp))
    mon = AgreementMonitor(int(x_b[use_b].sum()), int(use_b.sum()), delta=delta, alpha=alpha, baseline_rate=rate)

    n = len(stream)
    e_anchor = np.full(n, np.nan)
    e_prod = np.full(n, np.nan)
    idx_a = np.flatnonzero(anchor)
    use_s, x_s = _indicator(sref[anchor], sjud[anchor], statistic, pos)
    used = idx_a[use_s]
    e_anchor[used] = mon.update_many(x_s[use_s])
    alarm_at = None if mon.alarm_at is None else int(used[mon.alarm_at - 1]) + 1
    prod_at = None
    if rate is not None:
        idx_p = np.flatnonzero(~anchor)
        e_prod[idx_p] = mon.update_production(np.asarray([v == pos for v in sjud[~anchor]], dtype=bool))
        if mon.production_alarm_at is not None:
            prod_at = int(idx_p[mon.production_alarm_at - 1]) + 1
    history = pd.DataFrame({"position": np.arange(1, n + 1), "anchor": anchor,
                            "n_anchors": np.cumsum(anchor), "e_value": pd.Series(e_anchor).ffill().fillna(1.0),
                            "production_e_value": pd.Series(e_prod).ffill().fillna(1.0 if rate else np.nan)})
    return MonitorResult(statistic=statistic, alarm=mon.alarm, alarm_at=alarm_at, alarm_anchors=mon.alarm_at,
                         p_value=mon.p_value,
                         production_alarm_at=prod_at, production_p_value=mon.production_p_value,
                         attribution=mon.attribution, threshold=mon.threshold, history=history)


def plan_anchors(agreement: float, drop: float, *, days: int, delta: float = 0.0, alpha: float = 0.05,
                 power: float = 0.8, n_baseline: int | None = None, n_simulations: int = 2000,
                 max_per_day: int = 5000, rng=0) -> dict:
    """How many anchor items a day detect a fall of the judge's agreement within a given number of days.

    Parameters
    ----------
    agreement : float
        The judge's agreement before the fall (e.g. the validation estimate).
    drop : float
        The fall to detect (must exceed ``delta``).
    days : int
        Detect within this many days of the fall.
    delta : float, default 0.0
        The monitor's tolerated fall.
    alpha : float, default 0.05
        The false-alarm probability of the monitor over its whole life.
    power : float, default 0.8
        The required probability of an alarm within ``days`` days.
    n_baseline : int, optional
        The validation sample's size (its uncertainty lowers the threshold); default: the
        baseline agreement is taken as known.
    n_simulations : int, default 2000
        Simulated streams per candidate size.
    max_per_day : int, default 5000
        The largest size tried.
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict
        ``per_day`` (the smallest number of anchors a day reaching ``power``; None if even
        ``max_per_day`` does not), ``power`` (its simulated detection probability),
        ``threshold`` (the monitor's ``c``), ``false_alarm_bound`` (``alpha``).

    Notes
    -----
    The detection probability is simulated with the monitor's own e-process (the same bets), for a
    judge whose agreement is ``agreement − drop`` from the first anchor on; sizes are searched by
    doubling then bisection. The false-alarm guarantee does not depend on the plan: it holds for
    any number of anchors a day.

    References
    ----------
    The e-process: :class:`AgreementMonitor`.

    Examples
    --------
    >>> from metaeval.monitoring import plan_anchors
    >>> plan = plan_anchors(0.85, 0.10, days=7, n_simulations=500)
    >>> plan["per_day"], round(plan["power"], 2)
    (38, 0.81)
    """
    alpha = _check_level(alpha)
    power = _check_level(power, "power")
    for v, name in ((agreement, "agreement"), (drop, "drop")):
        if not (isinstance(v, (int, float)) and 0 < v < 1):
            raise InputError(f"{name} must be in (0, 1), got {v!r}", fix=f"pass {name} as a proportion")
    if drop <= delta:
        raise InputError(f"drop={drop} is not larger than the tolerated fall delta={delta}: the monitor is "
                         "built not to alarm on it", fix="pass a drop larger than delta")
    if not isinstance(days, (int, np.integer)) or days < 1:
        raise InputError(f"days must be a positive integer, got {days!r}", fix="pass days=7")
    gen = np.random.default_rng(rng)
    if n_baseline is None:
        c = agreement - delta
    else:
        c = _lower_bound(int(round(agreement * n_baseline)), int(n_baseline), alpha / 2) - delta
    bets = _Bets(c, "below")
    p1 = agreement - drop
    target = math.log(2 / alpha)

    def detect(per_day: int) -> float:
        n = per_day * days
        hits = 0
        for start in range(0, n_simulations, 200):
            r = min(200, n_simulations - start)
            path = bets.paths(gen.random((r, n)) < p1)  # (r, n, bets), from a fresh monitor
            m = path.max(axis=2)
            log_e = m + np.log(np.exp(path - m[:, :, None]).mean(axis=2))
            hits += int((log_e.max(axis=1) >= target).sum())
        return hits / n_simulations

    lo, hi = 0, 1
    p_hi = detect(hi)
    while p_hi < power:
        lo, hi = hi, hi * 2
        if hi > max_per_day:
            return {"per_day": None, "power": detect(max_per_day), "threshold": c, "false_alarm_bound": alpha}
        p_hi = detect(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        p_mid = detect(mid)
        if p_mid >= power:
            hi, p_hi = mid, p_mid
        else:
            lo = mid
    return {"per_day": hi, "power": p_hi, "threshold": c, "false_alarm_bound": alpha}
