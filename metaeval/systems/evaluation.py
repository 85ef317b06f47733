"""Per-topic system scores: every run evaluated under one qrels set, exactly as trec_eval would.

:func:`system_scores` turns qrels and runs into a :class:`SystemScores`: a tidy frame
``system, query_id, measure, value`` and, per measure, a systems × topics score matrix. Everything
downstream (rank correlations, topic bootstraps, significance tests) works on those matrices, so the
runs are evaluated once per qrels set and never inside a resampling loop. :func:`scores_from_table`
builds the same object from precomputed per-query scores (``trec_eval -q`` output, CSV tables read
by :func:`metaeval.read_score_table`).

Measures are `ir-measures <https://ir-measur.es>`_ values (``"nDCG@10"``, ``"AP(rel=2)"``,
``ir_measures.P@10`` ...; trec_eval names such as ``"ndcg_cut_10"`` are accepted too). ir-measures
is the reference and the fallback for every measure; the common ones have a vectorized numpy path
whose values are identical to pytrec_eval's (same operations in the same order).

The ranking every measure sees (trec_eval's rules)
---------------------------------------------------
* Scores are compared as 32-bit floats (trec_eval stores them as C ``float``), descending; ties are
  broken by doc id descending, comparing the ids as byte strings (``strcmp``). The rank column of
  the run is ignored.
* Rows with a NaN score are dropped (trec_eval's order for them is undefined: it depends on where
  qsort happens to meet them) and reported.
* A doc id repeated within a topic of a run is kept once, at its highest-ranked occurrence (trec_eval
  stops with "duplicate docs"; ir-measures keeps the last row it reads), and reported.
* Unjudged documents count as non-relevant; negative labels mean "in the pool but unjudged" (never
  relevant, left out of the ideal ranking, and dropped in condensed evaluation), as in trec_eval.
* Topics: a run is scored on every topic of the topic set; a topic it does not retrieve scores the
  measure's default, 0 (as ``trec_eval -c`` and ir-measures do), or NaN with ``missing_topics="nan"``
  (as ``trec_eval`` without ``-c``, whose mean leaves the topic out). Topics the run retrieves but
  the qrels do not judge are dropped and reported.

Measures handed to the ir-measures fallback are given the same cleaned ranking, with the scores
replaced by strictly decreasing numbers, so every provider (pytrec_eval, the msmarco and gdeval
scripts, ir-measures' own Judged) scores the same ranking as the fast path. (ir-measures' own Judged
breaks ties by doc id ascending on float64 scores; here Judged@k counts trec_eval's top k, the one
every other measure scores.) Each nDCG goes to ir-measures on its own: ir-measures 0.4.3 mixes up
``nDCG@k`` and ``nDCG(gains=...)@k`` asked for in one call (which one is wrong depends on the hash
seed of the process).

How the fast path works (and why it is fast)
--------------------------------------------
Rows are grouped by (run, topic) and the groups are taken topic by topic, a few hundred thousand rows
at a time, so that every step works on data that stays in the CPU cache: doc ids are dictionary
encoded (pyarrow), each group is sorted by one 64-bit key (the float32 score bits, flipped so that
ascending means descending score, above the rank of the doc id from the end of the byte order) with
row-wise numpy sorts, repeats are found the same way, labels are looked up, and the measures are
computed with ``np.bincount`` sums that add in rank order, as trec_eval's loops do (the discounts come
from C's ``log2``); the values are bit-identical to pytrec_eval's. When every measure has a cutoff
(and none is condensed), rows ranked below the deepest cutoff -- of the measures and of ``judged_at``
-- are never sorted (ties at the cut are kept, and a group that loses a repeated doc above the cut is
ranked again in full). Measured on 60 runs x 200 topics x 1,000 documents
(benchmarks/bench_system_scores.py): 0.6 s for nDCG@10 and 1.4 s for nDCG@10, nDCG@100, P@10, AP, RR
and R@100 together, against 36 s for ``ir_measures.iter_calc`` on the same frames.

The report counts what the ranking met: ties, repeated ids and rank-column disagreements are
counted among the rows that were ranked (all of them, or with cutoff measures only the top
``report.settings["depth"]`` of each group); NaN scores, unjudged topics and missing topics over
every row.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from ..core.errors import InputError, MetaevalWarning

if TYPE_CHECKING:  # names for the annotations only (ir_measures is imported lazily)
    import ir_measures

    PathLike = str | os.PathLike[str]
    #: A measure: ir-measures syntax or a trec_eval name (``"nDCG@10"``, ``"ndcg_cut_10"``), or a Measure.
    MeasureLike = str | ir_measures.Measure
    #: Qrels: a frame (``query_id, doc_id, relevance``) or a qrels file.
    QrelsLike = pd.DataFrame | PathLike
    #: Runs: a frame, a run file, a directory or list of run files, or a dict run name -> frame or path.
    RunsLike = pd.DataFrame | PathLike | Iterable[PathLike] | Mapping[str, pd.DataFrame | PathLike]

__all__ = ["system_scores", "scores_from_table", "SystemScores", "ScoreReport", "parse_measures",
           "has_fast_path", "ISSUES"]

#: What a :class:`ScoreReport` can list, with how it was handled.
ISSUES = {
    # qrels
    "duplicate_judgment": "a (query, doc) judged more than once: one judgment kept, the highest label",
    "conflicting_judgment": "of those, keys whose labels differ (the highest label was kept)",
    "duplicate_merged": "a judgment of a near-duplicate merged into its canonical doc (highest label kept)",
    "duplicate_conflict": "of those, canonical docs whose merged labels differ (the highest was kept)",
    "negative_label": "a negative label: in the pool but unjudged (never relevant), as trec_eval",
    "topic_without_relevant": "a judged topic with no relevant document: relevance-based measures are 0 "
                              "for every run",
    "topic_excluded": "a judged topic left out of the topic set (topics=)",
    "topic_not_judged": "a topic of the topic set that these qrels do not judge: NaN for every run",
    # runs
    "nan_score": "a row with a NaN score: dropped (trec_eval's order for it is undefined)",
    "duplicate_doc": "a doc id repeated within a topic of a run: kept once, at its best rank "
                     "(trec_eval stops with an error)",
    "duplicate_canonical": "a near-duplicate ranked below another doc of its canonical group: dropped",
    "unjudged_topic": "rows of a topic the qrels do not judge: dropped",
    "excluded_topic": "rows of a judged topic outside the topic set: dropped",
    "missing_topic": "a topic of the topic set that the run does not retrieve",
    "score_tie": "adjacent documents with equal (float32) scores: ordered by doc id descending, as trec_eval",
    "float32_tie": "distinct float64 scores of a topic that become equal as float32 (trec_eval's precision), "
                   "and so tie",
    "rank_order_differs": "a topic whose rank column orders documents unlike trec_eval (rank is ignored)",
    # score tables
    "all_rows": "trec_eval's own 'all' rows (averages): dropped",
    "filtered_rows": "rows of other qrels sources (or other filter values): left out",
    "duplicate_row": "a (system, query_id, measure) given twice with the same value: kept once",
    "nan_value": "a NaN value in the table",
    "missing_cell": "a (system, topic) without a value for a measure: NaN in the matrix",
}

_SOURCES = ("qrels", "runs", "table")


# --------------------------------------------------------------------------------------------
# measures
# --------------------------------------------------------------------------------------------

def _ir():
    import ir_measures

    return ir_measures


def _parse_one(m):
    ir = _ir()
    if isinstance(m, ir.Measure):
        measure = m
    elif isinstance(m, str):
        text = m.strip()
        try:
            measure = ir.parse_measure(text)
        except (ValueError, NameError, SyntaxError, TypeError):
            try:
                found = ir.parse_trec_measure(text)
            except Exception:  # ir-measures raises ValueError (and others on odd input)
                found = []
            if len(found) != 1:
                raise InputError(f"unknown measure {m!r}", source="measures",
                                 expected="an ir-measures measure such as 'nDCG@10', 'AP', 'P(rel=2)@10', "
                                          "'RR', 'R@100', 'Judged@10', or one trec_eval name ('ndcg_cut_10')",
                                 fix="check the spelling (see https://ir-measur.es/en/latest/measures.html)"
                                 ) from None
            measure = found[0]
    else:
        raise InputError(f"a measure must be a string or an ir_measures measure, got {type(m).__name__}",
                         source="measures", expected="e.g. 'nDCG@10' or ir_measures.nDCG@10")
    try:
        measure.validate_params()
    except AssertionError as exc:  # ir-measures validates with assert
        raise InputError(f"invalid measure {str(m)!r} ({exc})", source="measures",
                         fix="see the measure's parameters at https://ir-measur.es") from None
    return measure


def parse_measures(measures: MeasureLike | Iterable[MeasureLike]) -> list:
    """ir-measures ``Measure`` values from strings, measures, or a sequence of them (duplicates removed).

    Parameters
    ----------
    measures : str, ir_measures measure, or a sequence of them
        ir-measures syntax (``"nDCG@10"``, ``"AP(rel=2)"``, ``"nDCG(judged_only=True)@10"``) or a
        trec_eval name that stands for one measure (``"ndcg_cut_10"``, ``"map"``, ``"P_10"``,
        ``"recip_rank"``).

    Returns
    -------
    list of ir_measures measures
        In the order given, each once.

    Raises
    ------
    InputError
        For an unknown or invalid measure, or an empty list.

    References
    ----------
    ``ir_measures.parse_measure`` and ``ir_measures.parse_trec_measure`` (https://ir-measur.es).

    Examples
    --------
    >>> [str(m) for m in parse_measures(["nDCG@10", "map", "P(rel=2)@10", "ndcg_cut_10"])]
    ['nDCG@10', 'AP', 'P(rel=2)@10']
    """
    ir = _ir()
    if isinstance(measures, (str, ir.Measure)):
        measures = [measures]
    out, seen = [], set()
    for m in measures:
        pm = _parse_one(m)
        if str(pm) not in seen:
            seen.add(str(pm))
            out.append(pm)
    if not out:
        raise InputError("no measures given", source="measures", expected="at least one measure, e.g. 'nDCG@10'")
    return out


def _canonical_name(name: str) -> str:
    """The ir-measures spelling of a measure name when it parses to one measure, else the name itself."""
    try:
        return str(_parse_one(name))
    except InputError:
        return str(name)


def _cutoff(m):
    k = m.params.get("cutoff")
    return None if k is None else int(k)


def _fast_spec(m):
    """A tuple describing the fast computation of measure ``m``, or None when it has no fast path.

    The fast path covers what pytrec_eval computes for ir-measures (its semantics are trec_eval's),
    plus ir-measures' Judged.
    """
    p = m.params
    name = m.NAME
    jo = bool(p.get("judged_only", False))
    k = _cutoff(m)
    if k is not None and k <= 0:
        return None
    rel = p.get("rel", 1)
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)) or rel < 0:
        if name in ("P", "RR", "AP", "R", "Success"):
            return None
    if name == "nDCG":
        if p.get("dcg", "log2") != "log2":
            return None
        gains = p.get("gains")
        if gains is not None:
            if not isinstance(gains, dict) or not all(
                    isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                    and isinstance(b, (int, float, np.integer, np.floating)) and not isinstance(b, bool)
                    for a, b in gains.items()):
                return None
            gains = tuple(sorted((int(a), float(b)) for a, b in gains.items()))
        return ("ndcg", k, gains, jo)
    if name == "P" and k is not None:
        return ("p", k, int(rel), jo)
    if name == "RR" and k is None:
        return ("rr", None, int(rel), jo)
    if name == "AP":
        return ("ap", k, int(rel), jo)
    if name == "R" and k is not None:
        return ("r", k, int(rel), jo)
    if name == "Success" and k is not None:
        return ("success", k, int(rel), jo)
    if name == "Judged":
        return ("judged", k, None, False)
    return None


def has_fast_path(measure: MeasureLike) -> bool:
    """Whether :func:`system_scores` computes ``measure`` with its vectorized path (else ir-measures).

    Parameters
    ----------
    measure : str or ir_measures measure
        As for :func:`parse_measures` (one measure).

    Returns
    -------
    bool
        True for the measures the fast path covers: nDCG (with or without ``gains=``), P, R,
        Success, RR, AP (each with ``rel=``, a cutoff or ``judged_only=`` where the measure has
        them) and Judged.

    References
    ----------
    The fast path's values equal pytrec_eval's bit for bit (tests/test_evaluation.py, against
    ``ir_measures.iter_calc``).

    Examples
    --------
    >>> has_fast_path("nDCG@10"), has_fast_path("RR@10")
    (True, False)
    """
    return _fast_spec(_parse_one(measure)) is not None


def _with_judged_only(m):
    return m(judged_only=True) if "judged_only" in m.SUPPORTED_PARAMS else m


# --------------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------------

_DETAIL_COLUMNS = ["source", "system", "query_id", "issue", "count"]


@dataclass(frozen=True)
class ScoreReport:
    """What :func:`system_scores` (or :func:`scores_from_table`) changed, dropped or noticed, in numbers.

    Attributes
    ----------
    details : pandas.DataFrame
        One row per occurrence: ``source`` (``qrels``, ``runs`` or ``table``), ``system`` (empty for
        qrels), ``query_id`` (empty when the count is not per topic), ``issue`` (a key of
        :data:`ISSUES`) and ``count`` (rows, pairs, keys or topics; see :meth:`to_frame`).
    n_systems, n_topics : int
        Size of the score matrices.
    topics : tuple of str
        The topic set the systems were scored on.
    judged_topics : tuple of str
        The topics the qrels judge (all of them, before the topic set was chosen).
    settings : dict
        The options the scores were computed with; ``depth`` is the rank down to which the rows were
        ranked (None: all), which bounds the tie, repeat and rank-column counts.

    Examples
    --------
    >>> from metaeval import datasets
    >>> d = datasets.load("trec_dl_like")
    >>> rep = system_scores(d.qrels_human, d.runs, "nDCG@10").report
    >>> rep.count("score_tie")  # data_samples/README.md: 18 tied pairs in each of run_07 and run_22
    36
    """

    details: pd.DataFrame
    n_systems: int = 0
    n_topics: int = 0
    topics: tuple = ()
    judged_topics: tuple = ()
    settings: dict = field(default_factory=dict)

    def count(self, issue: str, system: str | None = None) -> int:
        """Total count of an issue (optionally for one system).

        Parameters
        ----------
        issue : str
            A key of :data:`ISSUES` (``"score_tie"``, ``"nan_score"``, ``"missing_topic"`` ...).
        system : str, optional
            Count only this system's occurrences.

        Returns
        -------
        int
            0 when the issue did not occur.

        Examples
        --------
        >>> from metaeval import datasets
        >>> d = datasets.load("trec_dl_like")
        >>> rep = system_scores(d.qrels_human, d.runs, "nDCG@10").report
        >>> rep.count("score_tie", system="run_07"), rep.count("nan_score")
        (18, 0)
        """
        d = self.details
        mask = d["issue"].to_numpy() == issue
        if system is not None:
            mask &= d["system"].to_numpy() == system
        return int(d.loc[mask, "count"].sum())

    def to_frame(self) -> pd.DataFrame:
        """Summary: ``source, issue, count, n_systems, n_topics, handling``, one row per issue found.

        Returns
        -------
        pandas.DataFrame
            ``count`` is rows for row-level issues (``nan_score``, ``duplicate_doc``,
            ``unjudged_topic`` ...), adjacent pairs for ``score_tie``, scores for ``float32_tie``
            (distinct float64 values that float32 merges), (query, doc) keys for the qrels issues,
            (system, topic) cells for ``missing_topic``/``missing_cell``/``rank_order_differs``, and
            topics for the topic issues. ``n_systems`` and ``n_topics`` say how many systems and
            topics are concerned; ``handling`` what was done (:data:`ISSUES`).

        Examples
        --------
        >>> from metaeval import datasets
        >>> d = datasets.load("trec_dl_like")
        >>> f = system_scores(d.qrels_human, d.runs, "nDCG@10").report.to_frame()
        >>> f[["issue", "count", "n_systems", "n_topics"]].values.tolist()
        [['score_tie', 36, 2, 12], ['rank_order_differs', 12, 2, 12]]
        """
        d = self.details
        if not len(d):
            return pd.DataFrame(columns=["source", "issue", "count", "n_systems", "n_topics", "handling"])
        rows = []
        for (src, issue), g in d.groupby(["source", "issue"], sort=False):
            systems = g["system"][g["system"] != ""]
            topics = g["query_id"][g["query_id"] != ""]
            rows.append((src, issue, int(g["count"].sum()), int(systems.nunique()), int(topics.nunique()),
                         ISSUES.get(issue, "")))
        out = pd.DataFrame(rows, columns=["source", "issue", "count", "n_systems", "n_topics", "handling"])
        order = {k: i for i, k in enumerate(ISSUES)}
        return out.sort_values(["source", "issue"], key=lambda s: s.map(order) if s.name == "issue"
                               else s.map({k: i for i, k in enumerate(_SOURCES)})).reset_index(drop=True)

    def for_system(self, system: str) -> pd.DataFrame:
        """The detail rows of one system.

        Parameters
        ----------
        system : str
            A run name.

        Returns
        -------
        pandas.DataFrame
            The rows of :attr:`details` for that system (``source, system, query_id, issue, count``).

        Examples
        --------
        >>> from metaeval import datasets
        >>> d = datasets.load("trec_dl_like")
        >>> rep = system_scores(d.qrels_human, d.runs, "nDCG@10").report
        >>> rep.for_system("run_07")["issue"].value_counts().to_dict()
        {'rank_order_differs': 6, 'score_tie': 6}
        """
        return self.details.loc[self.details["system"] == system].reset_index(drop=True)

    def __str__(self) -> str:
        lines = [f"System scores: {self.n_systems} systems x {self.n_topics} topics "
                 f"({len(self.judged_topics)} judged)"]
        s = self.to_frame()
        if not len(s):
            lines.append("  nothing dropped or changed")
        for r in s.itertuples():
            lines.append(f"  {r.source:<6} {r.issue:<24} {r.count:>9}  ({r.n_systems} systems, {r.n_topics} topics)"
                         f"  {r.handling}")
        return "\n".join(lines)

    def _repr_html_(self):  # pragma: no cover - notebook nicety
        return self.to_frame().to_html(index=False)


class _Details:
    """Collects report rows as arrays (no per-row Python work on large inputs); one frame at the end."""

    def __init__(self):
        self.parts = []  # (source, issue, count, system, query_id) with the zero counts left out

    def add(self, source, issue, count, system="", query_id=""):
        count = np.atleast_1d(np.asarray(count, dtype=np.int64))
        keep = np.flatnonzero(count > 0)
        if len(keep):
            n = len(count)
            system = np.broadcast_to(np.asarray(system, dtype=object), (n,))[keep]
            query_id = np.broadcast_to(np.asarray(query_id, dtype=object), (n,))[keep]
            self.parts.append((source, issue, count[keep], system, query_id))

    def frame(self) -> pd.DataFrame:
        if not self.parts:
            return pd.DataFrame({c: pd.Series(dtype="int64" if c == "count" else "str") for c in _DETAIL_COLUMNS})
        lens = [len(p[2]) for p in self.parts]
        out = pd.DataFrame({
            "source": np.repeat(np.array([p[0] for p in self.parts], dtype=object), lens),
            "system": np.concatenate([p[3] for p in self.parts]),
            "query_id": np.concatenate([p[4] for p in self.parts]),
            "issue": np.repeat(np.array([p[1] for p in self.parts], dtype=object), lens),
            "count": np.concatenate([p[2] for p in self.parts]).astype(np.int64)})
        for c in ("source", "system", "query_id", "issue"):
            out[c] = out[c].astype("str")
        return out[_DETAIL_COLUMNS]

    def total(self, issue: str) -> int:
        return int(sum(p[2].sum() for p in self.parts if p[1] == issue))


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------

class SystemScores:
    """Per-topic scores of every system for one or more measures under one qrels set.

    Attributes
    ----------
    frame : pandas.DataFrame
        Tidy ``system, query_id, measure, value`` rows, sorted by measure (in the order asked),
        system and topic. Cells left missing (``missing_topics="nan"``, topics the qrels do not
        judge, holes in a score table) have no row.
    measures : tuple of str
        The measures, as ir-measures spells them (``"nDCG@10"``, ``"nDCG(judged_only=True)@10"``).
    systems : tuple of str
        Sorted system (run) names.
    topics : tuple of str
        The topic set the systems were scored on, sorted. Two SystemScores are compared on
        ``sorted(set(a.topics) & set(b.topics))`` (pass it to :meth:`matrix`).
    judged_topics : tuple of str
        Every topic the qrels judge (before the topic set was chosen); for a score table, every topic
        with a value.
    judged : pandas.DataFrame
        Judged@k per system (index ``system``; one column per depth, e.g. ``Judged@10``): the share
        of each run's top k that the qrels judge, averaged over the topic set. Low values mean holes
        that "unjudged = non-relevant" turns into losses.
    report : ScoreReport
        What was dropped or changed, and why.
    backends : dict
        Measure → ``"fast"``, ``"ir_measures"`` or ``"table"``: how it was computed.

    Parameters
    ----------
    matrices : dict
        Measure name → systems × topics array of per-topic scores (NaN: no score).
    systems, topics : sequence of str
        Row and column names of every matrix.
    judged_topics : sequence of str, optional
        The topics the qrels judge (default: ``topics``).
    judged : pandas.DataFrame, optional
        Judged@k per system (default: no columns).
    report : ScoreReport, optional
        Default: an empty report.
    backends : dict, optional
        Measure → how it was computed (default ``"table"``).
    aliases : dict, optional
        Other names of the measures (e.g. the trec_eval names of a score table) → measure name.
    name : str
        A label (e.g. the qrels' name).

    Notes
    -----
    Users get these from :func:`system_scores` and :func:`scores_from_table`; the constructor is
    for building one from matrices computed elsewhere.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> s = me.system_scores(d.qrels_human, d.runs, ["nDCG@10", "AP"])
    >>> s
    SystemScores(30 systems x 40 topics; measures: nDCG@10, AP)
    >>> s.systems[:2], s.topics[:2], s.judged.loc["run_01"].tolist()
    (('run_01', 'run_02'), ('1005491', '1005582'), [0.9825, 0.888])
    >>> SystemScores({"P@10": [[0.5, 0.1], [0.3, 0.2]]}, ["a", "b"], ["q1", "q2"]).means().tolist()
    [0.3, 0.25]
    """

    def __init__(self, matrices: dict, systems: Sequence[str], topics: Sequence[str], *,
                 judged_topics: Sequence[str] | None = None, judged: pd.DataFrame | None = None,
                 report: ScoreReport | None = None, backends: dict | None = None, aliases: dict | None = None,
                 name: str = ""):
        self._matrices = {m: np.asarray(v, dtype=float) for m, v in matrices.items()}
        self.systems = tuple(systems)
        self.topics = tuple(topics)
        self.judged_topics = tuple(self.topics if judged_topics is None else judged_topics)
        self.measures = tuple(self._matrices)
        for m, v in self._matrices.items():
            if v.shape != (len(self.systems), len(self.topics)):
                raise ValueError(f"matrix of {m} has shape {v.shape}, expected "
                                 f"({len(self.systems)}, {len(self.topics)})")
        self.judged = judged if judged is not None else pd.DataFrame(index=pd.Index(self.systems, name="system"))
        self.report = report if report is not None else ScoreReport(_Details().frame(), len(self.systems),
                                                                    len(self.topics), self.topics,
                                                                    self.judged_topics)
        self.backends = dict(backends or {m: "table" for m in self.measures})
        self._aliases = dict(aliases or {})
        self.name = name
        self._frame = None

    # -- lookups ---------------------------------------------------------------------------
    def _resolve(self, measure) -> str:
        if measure is None:
            if len(self.measures) != 1:
                raise InputError(f"several measures ({', '.join(self.measures)}): say which one",
                                 source="SystemScores", fix="pass measure=, e.g. matrix('nDCG@10')")
            return self.measures[0]
        key = str(measure)
        if key in self._matrices:
            return key
        if key in self._aliases:
            return self._aliases[key]
        canon = _canonical_name(key)
        if canon in self._matrices:
            return canon
        if canon in self._aliases:
            return self._aliases[canon]
        raise InputError(f"no scores for measure {key!r}", source="SystemScores",
                         expected=f"one of {', '.join(self.measures)}")

    def _topic_index(self, topics):
        if topics is None:
            return np.arange(len(self.topics)), list(self.topics)
        if isinstance(topics, str):
            topics = [topics]
        wanted = sorted({str(t) for t in topics})
        pos = {t: i for i, t in enumerate(self.topics)}
        absent = [t for t in wanted if t not in pos]
        if absent:
            raise InputError(f"{len(absent)} topic(s) are not in this topic set: "
                             f"{', '.join(absent[:10])}{' ...' if len(absent) > 10 else ''}",
                             source="SystemScores", expected="topics from .topics",
                             fix="intersect first: sorted(set(a.topics) & set(b.topics))")
        return np.array([pos[t] for t in wanted], dtype=np.int64), wanted

    def _system_index(self, systems):
        if systems is None:
            return np.arange(len(self.systems)), list(self.systems)
        if isinstance(systems, str):
            systems = [systems]
        wanted = sorted({str(s) for s in systems})
        pos = {s: i for i, s in enumerate(self.systems)}
        absent = [s for s in wanted if s not in pos]
        if absent:
            raise InputError(f"{len(absent)} system(s) are not scored: {', '.join(absent[:10])}",
                             source="SystemScores", expected="systems from .systems")
        return np.array([pos[s] for s in wanted], dtype=np.int64), wanted

    # -- views -----------------------------------------------------------------------------
    def matrix(self, measure: MeasureLike | None = None, *, topics: Sequence[str] | None = None,
               systems: Sequence[str] | None = None) -> pd.DataFrame:
        """Systems × topics per-topic scores of one measure (both sorted); NaN marks a missing cell.

        Parameters
        ----------
        measure : str or ir_measures measure, optional
            Needed when more than one measure was computed. The name as passed to
            :func:`system_scores` works too (``"nDCG@10"`` for ``"nDCG(judged_only=True)@10"``).
        topics : sequence of str, optional
            Restrict to these topics (all must be in :attr:`topics`).
        systems : sequence of str, optional
            Restrict to these systems.

        Returns
        -------
        pandas.DataFrame
            Index ``system``, columns ``query_id`` (both sorted).

        Raises
        ------
        InputError
            For an unknown measure (or none given when there are several), topics or systems.

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> s = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
        >>> s.matrix(systems=["run_01", "run_02"], topics=["1005491", "1005582"]).round(4)
        query_id  1005491  1005582
        system
        run_01     0.8319   0.6780
        run_02     0.7805   0.7227
        """
        key = self._resolve(measure)
        ti, tnames = self._topic_index(topics)
        si, snames = self._system_index(systems)
        return pd.DataFrame(self._matrices[key][np.ix_(si, ti)],
                            index=pd.Index(snames, name="system", dtype="str"),
                            columns=pd.Index(tnames, name="query_id", dtype="str"))

    def values(self, measure: MeasureLike | None = None, *, topics: Sequence[str] | None = None,
               systems: Sequence[str] | None = None) -> np.ndarray:
        """The matrix of :meth:`matrix` as a numpy array (a copy).

        Parameters
        ----------
        measure : str or ir_measures measure, optional
            As for :meth:`matrix`.
        topics, systems : sequence of str, optional
            As for :meth:`matrix`.

        Returns
        -------
        numpy.ndarray of float, shape (systems, topics)

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> me.system_scores(d.qrels_human, d.runs, ["nDCG@10", "AP"]).values("AP").shape
        (30, 40)
        """
        key = self._resolve(measure)
        ti, _ = self._topic_index(topics)
        si, _ = self._system_index(systems)
        return self._matrices[key][np.ix_(si, ti)].copy()

    def means(self, measure: MeasureLike | None = None, *, topics: Sequence[str] | None = None) -> pd.Series:
        """Mean over topics per system (NaN cells left out, as trec_eval without ``-c``).

        Sums are exact (``math.fsum``, correctly rounded), so two systems whose scores add up to the
        same total get exactly the same mean, whatever the order of their topics: floating-point
        summation would otherwise split such ties by one ulp and change Kendall's tau-b (it does for
        two TREC DL 2020 runs under the binary GPT-4o qrels).

        Parameters
        ----------
        measure : str or ir_measures measure, optional
            As for :meth:`matrix`.
        topics : sequence of str, optional
            Average over these topics only.

        Returns
        -------
        pandas.Series
            Indexed by system, named after the measure.

        References
        ----------
        trec_eval's ``all`` rows; NIST's official means of the TREC DL runs are reproduced in
        tests/test_evaluation_realdata.py.

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> me.system_scores(d.qrels_human, d.runs, "nDCG@10").means().head(3).round(4).tolist()
        [0.8007, 0.7567, 0.8694]
        """
        m = self.matrix(measure, topics=topics)
        vals = []
        for row in m.to_numpy():
            row = row[~np.isnan(row)]
            vals.append(math.fsum(row) / len(row) if len(row) else np.nan)
        return pd.Series(np.array(vals, dtype=float), index=m.index, name=self._resolve(measure))

    @property
    def frame(self) -> pd.DataFrame:
        """The tidy ``system, query_id, measure, value`` frame (built on first use; see the class)."""
        if self._frame is None:
            parts = []
            S, T = len(self.systems), len(self.topics)
            sys_col = np.repeat(np.asarray(self.systems, dtype=object), T)
            top_col = np.tile(np.asarray(self.topics, dtype=object), S)
            for m in self.measures:
                v = self._matrices[m].ravel()
                ok = ~np.isnan(v)
                parts.append(pd.DataFrame({"system": sys_col[ok], "query_id": top_col[ok], "measure": m,
                                           "value": v[ok]}))
            if parts:
                df = pd.concat(parts, ignore_index=True)
            else:
                df = pd.DataFrame(columns=["system", "query_id", "measure", "value"])
            for c in ("system", "query_id", "measure"):
                df[c] = df[c].astype("str")
            df["value"] = df["value"].astype(float)
            self._frame = df
        return self._frame

    def to_frame(self) -> pd.DataFrame:
        """The tidy ``system, query_id, measure, value`` frame (a copy).

        Returns
        -------
        pandas.DataFrame
            One row per (system, topic, measure) with a value, sorted by measure (in the order
            asked), system and topic; ``read_score_table`` and :func:`scores_from_table` read it back.

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> f = me.system_scores(d.qrels_human, d.runs, "nDCG@10").to_frame()
        >>> f.columns.tolist(), len(f)
        (['system', 'query_id', 'measure', 'value'], 1200)
        """
        return self.frame.copy()

    def subset(self, *, topics: Sequence[str] | None = None, systems: Sequence[str] | None = None) -> SystemScores:
        """The same scores on fewer topics and/or systems (the report is kept; Judged@k is not recomputed).

        Parameters
        ----------
        topics : sequence of str, optional
            Keep these topics (all must be in :attr:`topics`).
        systems : sequence of str, optional
            Keep these systems.

        Returns
        -------
        SystemScores

        Examples
        --------
        >>> import metaeval as me
        >>> d = me.datasets.load("trec_dl_like")
        >>> s = me.system_scores(d.qrels_human, d.runs, "nDCG@10")
        >>> s.subset(topics=s.topics[:10], systems=["run_01", "run_02"])
        SystemScores(2 systems x 10 topics; measures: nDCG@10)
        """
        ti, tnames = self._topic_index(topics)
        si, snames = self._system_index(systems)
        return SystemScores({m: v[np.ix_(si, ti)] for m, v in self._matrices.items()}, snames, tnames,
                            judged_topics=self.judged_topics, judged=self.judged.loc[snames],
                            report=self.report, backends=self.backends, aliases=self._aliases, name=self.name)

    def __repr__(self) -> str:
        return (f"SystemScores({len(self.systems)} systems x {len(self.topics)} topics; "
                f"measures: {', '.join(self.measures)})")


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------

def _is_pathlike(x) -> bool:
    return isinstance(x, (str, os.PathLike))


def _load_qrels(qrels, what="qrels") -> pd.DataFrame:
    from ..data import io as mio
    if isinstance(qrels, pd.DataFrame):
        missing = [c for c in ("query_id", "doc_id", "relevance") if c not in qrels.columns]
        if missing:
            raise InputError(f"the {what} frame lacks column(s) {', '.join(missing)}", source="<DataFrame>",
                             expected="columns query_id, doc_id, relevance (as read_qrels returns)",
                             fix="read the file with metaeval.read_qrels, or rename the columns")
        df = qrels[["query_id", "doc_id", "relevance"]]
        if (pd.api.types.is_string_dtype(df["query_id"].dtype) and pd.api.types.is_string_dtype(df["doc_id"].dtype)
                and df["relevance"].dtype.kind in "iu" and not df[["query_id", "doc_id"]].isna().any().any()):
            return df
        return mio.read_qrels(df)
    if _is_pathlike(qrels) or hasattr(qrels, "read"):
        return mio.read_qrels(qrels)
    raise InputError(f"cannot use an object of type {type(qrels).__name__} as {what}", source=what,
                     expected="a qrels file path or a DataFrame with query_id, doc_id, relevance")


def _load_runs(runs) -> pd.DataFrame:
    from ..data import io as mio
    if isinstance(runs, pd.DataFrame):
        df = runs
    elif isinstance(runs, Mapping):
        frames = []
        for name, r in runs.items():
            f = mio.read_run(r, run_id=str(name)) if not isinstance(r, pd.DataFrame) else r.assign(run_id=str(name))
            frames.append(f)
        if not frames:
            raise InputError("no runs given", source="runs", expected="at least one run")
        df = pd.concat(frames, ignore_index=True)
    elif _is_pathlike(runs) or (isinstance(runs, Iterable) and not isinstance(runs, (bytes, str))):
        df = mio.read_runs(runs)
    else:
        raise InputError(f"cannot use an object of type {type(runs).__name__} as runs", source="runs",
                         expected="a run file, a directory or list of run files, a DataFrame "
                                  "(query_id, doc_id, score, run_id) or a dict name -> run")
    missing = [c for c in ("query_id", "doc_id", "score") if c not in df.columns]
    if missing:
        raise InputError(f"the runs frame lacks column(s) {', '.join(missing)}", source="<DataFrame>",
                         expected="columns query_id, doc_id, score, run_id (as read_runs returns)",
                         fix="read the files with metaeval.read_runs, or rename the columns")
    if "run_id" not in df.columns:
        df = df.assign(run_id="run")
    if df["score"].dtype.kind not in "fiu":
        sc = pd.to_numeric(df["score"], errors="coerce")
        bad = sc.isna() & df["score"].notna() & (df["score"].astype("str").str.lower() != "nan")
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(f"score is not a number: {df['score'].iloc[i]!r}", source="<DataFrame>", line=i + 1,
                             expected="numeric scores", fix="convert the score column to numbers")
        df = df.assign(score=sc.astype(float))
    if len(df) == 0:
        raise InputError("the runs are empty", source="runs", expected="at least one ranked document")
    return df


def _arrow_strings(s: pd.Series, what: str):
    """A pyarrow string array of a column (zero-copy for pandas' Arrow-backed str), checked for nulls."""
    import pyarrow as pa

    a = None
    arr = s.array
    if pd.api.types.is_string_dtype(s.dtype) and hasattr(arr, "__arrow_array__"):
        try:
            a = arr.__arrow_array__()
        except Exception:
            a = None
    if a is None:
        if s.dtype.kind == "f":  # ids that were parsed as numbers: 123.0 -> "123" (NaN: an empty id)
            from ..data.io import _as_id

            s = _as_id(s, np.arange(1, len(s) + 1), "<DataFrame>", what)
        s = s.astype("str")  # missing values stay missing
        a = pa.array(s.to_numpy(dtype=object), type=pa.large_string(), from_pandas=True)
    if isinstance(a, pa.ChunkedArray) and a.num_chunks == 1:
        a = a.chunk(0)
    if not (pa.types.is_string(a.type) or pa.types.is_large_string(a.type)):
        a = a.cast(pa.large_string())
    if a.null_count:
        i = int(np.flatnonzero(np.asarray(a.is_null().to_numpy(zero_copy_only=False)))[0])
        raise InputError(f"empty id in column {what!r} ({a.null_count} row(s))", source="<DataFrame>", line=i + 1,
                         expected="a non-empty id on every row", fix="fill in the id, or delete the row")
    return a


def _load_dup_map(duplicates_map):
    """``(mapping dict dup -> canonical, per_topic frame or None)``; chains resolved, cycles rejected."""
    if duplicates_map is None:
        return None
    if isinstance(duplicates_map, Mapping):
        df = pd.DataFrame({"doc_id": [str(k) for k in duplicates_map],
                           "canonical_doc_id": [str(v) for v in duplicates_map.values()]})
    elif isinstance(duplicates_map, pd.DataFrame):
        df = duplicates_map
    elif _is_pathlike(duplicates_map):
        from ..data.io import _read_table

        df, _, _ = _read_table(duplicates_map)
    else:
        raise InputError(f"cannot use an object of type {type(duplicates_map).__name__} as duplicates_map",
                         source="duplicates_map",
                         expected="a frame with doc_id, canonical_doc_id (optionally query_id), a dict, or a path")
    cols = {"doc_id", "canonical_doc_id"}
    if not cols <= set(df.columns):
        raise InputError(f"the duplicates map lacks column(s) {', '.join(sorted(cols - set(df.columns)))}",
                         source="duplicates_map", expected="columns doc_id, canonical_doc_id (and optionally query_id)",
                         fix="rename the columns")
    keys = ["query_id", "doc_id"] if "query_id" in df.columns else ["doc_id"]
    m = df[keys + ["canonical_doc_id"]].astype("str").drop_duplicates()
    m = m.loc[m["doc_id"] != m["canonical_doc_id"]]
    dup = m.duplicated(keys, keep=False)
    if dup.any():
        ex = m.loc[dup].head(4)
        raise InputError(f"{int(m.loc[dup].drop_duplicates(keys).shape[0])} doc(s) are mapped to several canonical ids",
                         source="duplicates_map", text="; ".join(f"{' '.join(r[:-1])} -> {r[-1]}"
                                                               for r in ex.itertuples(index=False)),
                         expected="one canonical id per duplicate", fix="keep one mapping per doc")
    # resolve chains a -> b -> c
    key_of = (lambda r: (r[0], r[1])) if len(keys) == 2 else (lambda r: r[0])
    mapping = {key_of(r): r[-1] for r in m.itertuples(index=False)}
    for _ in range(64):
        changed = False
        for k, v in mapping.items():
            nk = (k[0], v) if isinstance(k, tuple) else v
            if nk in mapping:
                mapping[k] = mapping[nk]
                changed = True
        if not changed:
            break
    else:
        raise InputError("the duplicates map has a cycle", source="duplicates_map",
                         fix="map every duplicate to one canonical doc that is not itself mapped")
    if any((k[1] if isinstance(k, tuple) else k) == v for k, v in mapping.items()):
        raise InputError("the duplicates map has a cycle", source="duplicates_map",
                         fix="map every duplicate to one canonical doc that is not itself mapped")
    return mapping, len(keys) == 2


# --------------------------------------------------------------------------------------------
# the core: cleaned, trec_eval-ordered rows
# --------------------------------------------------------------------------------------------

_LOG2 = np.array([math.log2(i + 2) for i in range(1024)])


def _log2_table(n: int) -> np.ndarray:
    """``log2(i + 2)`` for i < n, from C's log2 (math.log2) so that sums match trec_eval bit for bit."""
    global _LOG2
    if n > len(_LOG2):
        m = max(n, 2 * len(_LOG2))
        _LOG2 = np.concatenate([_LOG2, np.array([math.log2(i + 2) for i in range(len(_LOG2), m)])])
    return _LOG2


_CHUNK = 4_000_000  # elements of a padded block in the row-wise sorts
_CHUNK_ROWS = 1 << 19  # rows ranked at a time (whole groups): small enough to stay in the CPU cache


def _bool_numpy(a) -> np.ndarray:
    """A pyarrow boolean (chunked) array as numpy."""
    import pyarrow as pa

    if isinstance(a, pa.ChunkedArray):
        return np.concatenate([np.asarray(c.to_numpy(zero_copy_only=False), dtype=bool) for c in a.chunks]) \
            if a.num_chunks else np.zeros(0, dtype=bool)
    return np.asarray(a.to_numpy(zero_copy_only=False), dtype=bool)


def _take_strings(a, positions: np.ndarray) -> np.ndarray:
    """``a[positions]`` (ascending positions) as a numpy object array; chunk by chunk (take on a chunked
    array would concatenate it first)."""
    import pyarrow as pa

    if isinstance(a, pa.Array):
        return np.asarray(a.take(pa.array(positions)).to_numpy(zero_copy_only=False), dtype=object)
    offs = np.cumsum([0] + [len(c) for c in a.chunks])
    ci = np.searchsorted(offs, positions, side="right") - 1
    parts = []
    for c in np.unique(ci):
        local = positions[ci == c] - offs[c]
        parts.append(np.asarray(a.chunk(int(c)).take(pa.array(local)).to_numpy(zero_copy_only=False), dtype=object))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=object)


def _dictionary_encode(a):
    """``(codes, dictionary)``: int32 codes (a writable array) and the distinct ids as a pyarrow array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(a)
    if isinstance(enc, pa.ChunkedArray):
        chunks = enc.chunks
        if not chunks:
            return np.zeros(0, dtype=np.int32), pa.array([], type=pa.large_string())
        last = chunks[-1].dictionary
        # Arrow encodes the chunks with one memo table: every chunk's dictionary is a prefix of the last
        if all(c.dictionary.equals(last.slice(0, len(c.dictionary))) for c in chunks):
            codes = np.concatenate([np.asarray(c.indices.to_numpy(zero_copy_only=False)) for c in chunks])
            return codes.astype(np.int32, copy=False), last
        enc = pc.dictionary_encode(a.combine_chunks())
    return np.array(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int32), enc.dictionary


def _kth_largest(x: np.ndarray, lens: np.ndarray, k: int) -> np.ndarray:
    """Per contiguous group of ``x``, its k-th largest value (-inf for groups of k values or fewer)."""
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    out = np.full(len(lens), -np.inf, dtype=x.dtype)
    long = np.flatnonzero(lens > k)
    lo = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    for blk, st, ln, L in _blocks(starts, lens, long):
        M, valid = _block_matrix(x, st, ln, L, -np.inf if x.dtype.kind == "f" else lo)
        # the k-th largest is the (L - k)-th smallest of each row; padding (-inf) sorts first and
        # every padded row still has more than k real values
        out[blk] = np.partition(M, L - k, axis=1)[:, L - k]
    return out


def _trec_key(score: np.ndarray, doc_desc: np.ndarray) -> np.ndarray:
    """uint64 keys whose ascending order is trec_eval's ranking: float32 score descending, then doc
    descending (``doc_desc`` = position of the doc id counted from the end of the byte order).

    The float32 bits ``u`` become an unsigned integer that falls as the float rises: positive floats
    keep the sign bit 0 and flip the other bits, negative floats (sign bit 1) are kept as they are.
    """
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as C's double -> float
        f32 = score.astype(np.float32)
    f32 += np.float32(0.0)  # -0.0 -> +0.0: they tie in trec_eval
    u = f32.view(np.uint32)
    flip = (u >> np.uint32(31)) ^ np.uint32(1)
    flip *= np.uint32(0x7FFFFFFF)
    u ^= flip
    del flip
    key = u.astype(np.uint64)
    del u, f32
    key <<= np.uint64(32)
    key |= doc_desc.astype(np.uint64, copy=False)
    return key


def _blocks(starts: np.ndarray, lens: np.ndarray, groups: np.ndarray):
    """Blocks of non-empty groups of similar length: ``(ids, starts, lens, L)``, ids ascending.

    A block pads its groups to its longest length L (at most twice its shortest) and holds at most
    about ``_CHUNK`` padded elements, so memory stays bounded.
    """
    groups = groups[lens[groups] > 0]
    groups = groups[np.argsort(lens[groups], kind="stable")]
    glen = lens[groups]
    i, G = 0, len(groups)
    while i < G:
        L = int(glen[i])
        j = int(np.searchsorted(glen, 2 * L, side="right"))
        j = max(i + 1, min(j, i + _CHUNK // max(int(glen[j - 1]), 1)))
        blk = np.sort(groups[i:j])
        yield blk, starts[blk], lens[blk], int(lens[blk].max())
        i = j


def _block_matrix(keys, st, ln, L, fill):
    """The keys of a block's groups as a (groups, L) matrix, padded with ``fill``; and the row map."""
    nb = len(st)
    if (ln == L).all():
        if nb == 1 or (np.diff(st) == L).all():  # consecutive groups of equal length: a view
            a = int(st[0])
            return keys[a:a + nb * L].reshape(nb, L), None
        rows = (st[:, None] + np.arange(L)[None, :])
        return keys[rows], None
    valid = np.arange(L)[None, :] < ln[:, None]
    M = np.full((nb, L), fill, dtype=keys.dtype)
    M[valid] = keys[(st[:, None] + np.arange(L)[None, :])[valid]]
    return M, valid


def _sort_groups(keys: np.ndarray, starts, lens, groups) -> list:
    """Sort ``keys`` ascending within each listed group (the rows of a group are contiguous).

    Returns a list of ``(dest, src)`` moves: the rows ``dest`` (a slice or an index array) receive
    the values of rows ``src``. Groups are padded into blocks of similar length and sorted row-wise
    (numpy sorts each row of a 2-D block on its own), much faster than a lexsort of the whole array.
    """
    fill = np.iinfo(keys.dtype).max
    moves = []
    for _, st, ln, L in _blocks(starts, lens, groups):
        M, valid = _block_matrix(keys, st, ln, L, fill)
        o = np.argsort(M, axis=1)  # the padding (the largest possible key) sorts last
        o += st[:, None]
        if valid is None:
            if len(st) == 1 or (np.diff(st) == L).all():
                a = int(st[0])
                moves.append((slice(a, a + len(st) * L), o.ravel()))
            else:
                moves.append(((st[:, None] + np.arange(L)[None, :]).ravel(), o.ravel()))
        else:
            moves.append(((st[:, None] + np.arange(L)[None, :])[valid], o[valid]))
    return moves


def _sort_groups_inplace(keys: np.ndarray, starts, lens, groups) -> None:
    """Sort ``keys`` ascending within each listed group, in place (the rows of a group are contiguous).

    Groups of similar length are sorted as the rows of a 2-D block; consecutive groups of one length
    are a view of ``keys`` and sort without a copy.
    """
    fill = np.iinfo(keys.dtype).max
    for _, st, ln, L in _blocks(starts, lens, groups):
        if (ln == L).all() and (len(st) == 1 or (np.diff(st) == L).all()):
            a = int(st[0])
            keys[a:a + len(st) * L].reshape(len(st), L).sort(axis=1)
            continue
        M, valid = _block_matrix(keys, st, ln, L, fill)
        M.sort(axis=1)  # the padding (the largest possible key) sorts last
        rows = st[:, None] + np.arange(L)[None, :]
        if valid is None:
            keys[rows] = M
        else:
            keys[rows[valid]] = M[valid]


def _distinct_per_group(values: np.ndarray, starts, lens, groups) -> np.ndarray:
    """The number of distinct values in each listed group (in the order of ``groups``)."""
    out = np.zeros(len(groups), dtype=np.int64)
    where = {int(g): i for i, g in enumerate(groups)}
    fill = np.nan if values.dtype.kind == "f" else np.iinfo(values.dtype).max
    for blk, st, ln, L in _blocks(starts, lens, np.asarray(groups)):
        M, valid = _block_matrix(values, st, ln, L, fill)
        M = np.sort(M, axis=1)
        change = M[:, 1:] != M[:, :-1]
        if valid is not None:
            change &= valid[:, 1:]
        cnt = 1 + change.sum(axis=1)
        out[[where[int(g)] for g in blk]] = cnt
    return out


def _groups_with_repeats(keys: np.ndarray, starts, lens) -> np.ndarray:
    """Groups (rows contiguous) in which some key occurs more than once."""
    found = []
    fill = np.iinfo(keys.dtype).max
    for blk, st, ln, L in _blocks(starts, lens, np.arange(len(lens))):
        M, valid = _block_matrix(keys, st, ln, L, fill)
        M = np.sort(M, axis=1)
        eq = M[:, 1:] == M[:, :-1]
        if valid is not None:
            eq &= valid[:, 1:]
        hit = eq.any(axis=1)
        if hit.any():
            found.append(blk[hit])
    return np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def _lookup_labels(q_top, q_doc_names, q_lab, dictionary, g_top, grp, doc) -> np.ndarray:
    """The qrels label of each row's (topic, doc), NaN where not judged.

    Most docs are judged for one topic only: those are looked up by doc code (gathers); docs judged
    for several topics go through a hash lookup of (topic, doc).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(doc)
    U = len(dictionary)
    if not len(q_doc_names) or not n:
        return np.full(n, np.nan)
    if not isinstance(q_doc_names, (pa.Array, pa.ChunkedArray)):
        q_doc_names = pa.array(q_doc_names, type=pa.large_string())
    qd = pc.index_in(q_doc_names, value_set=dictionary.cast(pa.large_string()))
    qd = np.asarray(qd.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    ok = qd >= 0
    qt, qdd, ql = q_top[ok], qd[ok], q_lab[ok].astype(float)
    cnt = np.bincount(qdd, minlength=U)
    one = cnt[qdd] == 1
    top_of = np.full(U, -1, dtype=np.int32)
    lab_of = np.full(U, np.nan)
    top_of[qdd[one]] = qt[one]
    lab_of[qdd[one]] = ql[one]
    label = lab_of[doc]
    row_top = np.repeat(g_top.astype(np.int32), np.bincount(grp, minlength=len(g_top)))  # grp is sorted
    label[top_of[doc] != row_top] = np.nan
    if (~one).any():
        multi = np.flatnonzero(cnt[doc] > 1)
        if len(multi):
            qkey = qt[~one] * np.int64(U) + qdd[~one]
            rkey = g_top[grp[multi]].astype(np.int64) * np.int64(U) + doc[multi]
            li = pd.Index(qkey).get_indexer(rkey)
            label[multi] = np.where(li >= 0, ql[~one][np.maximum(li, 0)], np.nan)
    return label


@dataclass
class _View:
    grp: np.ndarray      # group of each row (rows of a group are contiguous, in rank order)
    pos: np.ndarray      # 0-based rank within the group
    label: np.ndarray    # float label; NaN = not in the qrels
    n_groups: int
    g_len: np.ndarray    # rows per group


class _Ranking:
    """Ranked rows of some groups (contiguous, in rank order) with their labels; computes the fast measures.

    Attributes: ``grp`` (group of each row, 0-based here), ``pos`` (0-based rank within the group),
    ``label`` (float; NaN = not in the qrels), ``g_len`` (rows per group), ``g_top`` (topic index of
    each group), ``prep`` (the _Prepared with the per-topic qrels figures).
    """

    def __init__(self, grp, pos, label, g_len, g_top, prep):
        self.grp, self.pos, self.label = grp, pos, label
        self.g_len, self.g_top, self.prep = g_len, g_top, prep
        self.n_groups = len(g_len)
        self._views, self._tops = {}, {}

    def view(self, gains=None, judged_only=False) -> _View:
        """The ranking as trec_eval scores it: all rows, or only judged ones (condensed lists)."""
        key = (gains, judged_only)
        if key in self._views:
            return self._views[key]
        label = self.label if gains is None else _map_gains(self.label, gains)
        if not judged_only:
            v = _View(self.grp, self.pos, label, self.n_groups, self.g_len)
        else:
            keep = label >= 0  # NaN (not in the qrels) and negative labels are dropped, as trec_eval
            grp = self.grp[keep]
            g_len = np.bincount(grp, minlength=self.n_groups).astype(np.int64)
            g_start = np.concatenate([[0], np.cumsum(g_len)[:-1]]).astype(np.int64)
            pos = (np.arange(len(grp), dtype=np.int64) - np.repeat(g_start, g_len)).astype(np.int32)
            v = _View(grp, pos, label[keep], self.n_groups, g_len)
        self._views[key] = v
        return v

    def _top(self, v: _View, vkey, k):
        """``(grp, pos, label)`` of the rows ranked above k (all rows for k None), cached.

        The rows of a group are contiguous and in rank order, so the top k of every group are ranges:
        the work is proportional to the rows kept, not to the whole ranking.
        """
        if k is None:
            return v.grp, v.pos, v.label
        key = (vkey, k)
        if key not in self._tops:
            m = np.minimum(v.g_len, k)
            start = np.concatenate([[0], np.cumsum(v.g_len)[:-1]])
            off = np.concatenate([[0], np.cumsum(m)[:-1]])
            i = np.repeat(start - off, m) + np.arange(int(m.sum()))
            self._tops[key] = (v.grp[i], v.pos[i], v.label[i])
        return self._tops[key]

    def _relevant(self, v: _View, vkey, k, rel):
        """Indices (into ``_top(v, vkey, k)``) of the rows labelled ``rel`` or more, cached."""
        key = ("rel", vkey, k, rel)
        if key not in self._tops:
            self._tops[key] = np.flatnonzero(self._top(v, vkey, k)[2] >= rel)
        return self._tops[key]

    # -- the fast measures --------------------------------------------------------------------
    def compute(self, spec) -> np.ndarray:
        """Per-group values of a fast measure (see _fast_spec), with trec_eval's arithmetic.

        Sums run in rank order (np.bincount adds its weights in input order, as trec_eval's loops do)
        and the discounts come from C's log2, so the values equal pytrec_eval's bit for bit.
        """
        kind, k, arg, jo = spec
        G = self.n_groups
        gtop = self.g_top
        if kind == "ndcg":
            v = self.view(arg, jo)
            grp, pos, lab = self._top(v, (arg, jo), k)
            sel = np.flatnonzero(lab > 0)  # NaN > 0 is False; negative labels have no gain
            logt = _log2_table(int(pos.max()) + 1 if len(pos) else 1)
            dcg = np.bincount(grp[sel], weights=lab[sel] / logt[pos[sel]], minlength=G)
            idcg = self.prep.ideal_dcg(arg, k)[gtop]
            out = np.zeros(G)
            ok = idcg > 0
            out[ok] = dcg[ok] / idcg[ok]
            return out
        if kind == "judged":
            v = self.view(None, False)
            grp, _, lab = self._top(v, (None, False), k)
            c = np.bincount(grp[~np.isnan(lab)], minlength=G)
            denom = v.g_len if k is None else np.minimum(v.g_len, k)
            out = np.zeros(G)
            ok = denom > 0
            out[ok] = c[ok] / denom[ok]
            return out
        rel = arg
        v = self.view(None, jo)
        grp, pos, lab = self._top(v, (None, jo), k)
        ri = self._relevant(v, (None, jo), k, rel)  # NaN compares False; rel >= 0: negative labels never count
        num_rel = self.prep.num_rel(rel)[gtop]
        out = np.zeros(G)
        if kind in ("p", "r", "success"):
            c = np.bincount(grp[ri], minlength=G)
            if kind == "p":
                return c / k
            if kind == "success":
                return (c > 0).astype(float)
            ok = num_rel > 0
            out[ok] = c[ok] / num_rel[ok]
            return out
        if not len(ri):
            return out
        gr = grp[ri]
        if kind == "rr":
            first = np.concatenate([[True], gr[1:] != gr[:-1]])
            out[gr[first]] = 1.0 / (pos[ri[first]].astype(np.int64) + 1).astype(float)
            return out
        if kind == "ap":
            cnt = np.bincount(gr, minlength=G)
            j = np.arange(len(ri)) - np.repeat(np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt)
            prec = (j + 1).astype(float) / (pos[ri].astype(np.int64) + 1).astype(float)
            s = np.bincount(gr, weights=prec, minlength=G)
            ok = cnt > 0
            out[ok] = s[ok] / num_rel[ok].astype(float)
            return out
        raise AssertionError(kind)  # pragma: no cover - _fast_spec returns only the kinds above



# -- the steps that prepare qrels and runs (each reports what it changed in ``det``) ----------------
# Warnings raised by a step point at the caller of system_scores: step -> _Prepared.__init__ ->
# system_scores -> caller, hence stacklevel=4.

class _Judgments(NamedTuple):
    """The qrels as arrays, one entry per input row."""

    topic: np.ndarray     # query ids (object)
    doc: np.ndarray       # doc ids (object)
    label: np.ndarray     # int64 labels
    repeated: np.ndarray  # bool: the (query, doc) pair occurs more than once in the input


def _read_judgments(qrels) -> _Judgments:
    """Qrels, read and validate: a frame or file (:func:`_load_qrels`) as arrays, repeated pairs marked."""
    q = _load_qrels(qrels)
    topic = q["query_id"].to_numpy(dtype=object)
    doc = q["doc_id"].to_numpy(dtype=object)
    label = q["relevance"].to_numpy().astype(np.int64)
    return _Judgments(topic, doc, label, pd.MultiIndex.from_arrays([topic, doc]).duplicated(keep=False))


def _count_repeats(topic, doc, label, det: _Details, issue: str, conflict_issue: str) -> int:
    """Report (topic, doc) keys that occur more than once among the given rows.

    Per topic: the extra rows under ``issue`` and the keys whose labels differ under ``conflict_issue``.
    Returns the number of extra rows.
    """
    g = pd.DataFrame({"q": topic, "d": doc, "l": label}).groupby(["q", "d"], sort=False)["l"]
    per = pd.DataFrame({"n": g.size(), "k": g.nunique()}).reset_index()
    extra = per.groupby("q")["n"].sum() - per.groupby("q").size()
    det.add("qrels", issue, extra.to_numpy(), query_id=extra.index.to_numpy(dtype=object))
    conf = per.loc[per["k"] > 1].groupby("q").size()
    det.add("qrels", conflict_issue, conf.to_numpy(), query_id=conf.index.to_numpy(dtype=object))
    return int(extra.sum())


def _report_repeated_judgments(j: _Judgments, det: _Details) -> None:
    """Qrels, exact repeats: (query, doc) pairs judged more than once are reported and warned about.

    Which label is kept (the highest) is decided in :func:`_one_label_per_doc`.
    """
    if j.repeated.any():
        r = j.repeated
        n = _count_repeats(j.topic[r], j.doc[r], j.label[r], det, "duplicate_judgment", "conflicting_judgment")
        warnings.warn(f"the qrels judge {n} (query, doc) pair(s) more than once; the highest label is kept "
                      "(see .report)", MetaevalWarning, stacklevel=4)


def _merge_near_duplicates(j: _Judgments, dm, det: _Details) -> np.ndarray:
    """Qrels, near-duplicates: every judged doc id replaced by its canonical id (``duplicates_map``).

    Judgments that now fall on the same (query, canonical doc) -- and were not exact repeats already --
    are reported as merged (and as conflicting where their labels differ). Returns the doc ids.
    """
    if dm is None:
        return j.doc
    mapping, per_topic = dm
    if per_topic:
        mapped = np.array([mapping.get((t, d), d) for t, d in zip(j.topic, j.doc)], dtype=object)
    else:
        mapped = np.array([mapping.get(d, d) for d in j.doc], dtype=object)
    if (mapped != j.doc).any():
        multi = pd.MultiIndex.from_arrays([j.topic, mapped]).duplicated(keep=False) & ~j.repeated
        if multi.any():
            _count_repeats(j.topic[multi], mapped[multi], j.label[multi], det, "duplicate_merged",
                           "duplicate_conflict")
    return mapped


def _one_label_per_doc(j: _Judgments, docs: np.ndarray, merged: bool, det: _Details) -> pd.DataFrame:
    """Qrels, one label per (query, doc): the highest; negative labels (pooled, unjudged) reported.

    Returns a frame ``q, d, l`` (query, canonical doc, label).
    """
    qq = pd.DataFrame({"q": j.topic, "d": docs, "l": j.label})
    if j.repeated.any() or merged:
        qq = qq.groupby(["q", "d"], sort=False, as_index=False)["l"].max()
    neg = qq["l"].to_numpy() < 0
    if neg.any():
        c = qq.loc[neg].groupby("q").size()
        det.add("qrels", "negative_label", c.to_numpy(), query_id=c.index.to_numpy(dtype=object))
    return qq


def _topic_set(topics, reference_qrels, judged: set, det: _Details) -> tuple[np.ndarray, str]:
    """Topic policy: the sorted topic set the systems are scored on, and the policy's name.

    ``topics`` is ``"own"`` (the judged topics), ``"intersection"`` (judged here and in
    ``reference_qrels``; ``"own"`` without a reference), ``"reference"`` (the reference's topics) or a
    list (``"list"``). Judged topics left out and topics of the set these qrels do not judge are
    reported.
    """
    if isinstance(topics, str) and topics not in ("intersection", "own", "reference"):
        raise InputError(f"topics={topics!r}", source="topics",
                         expected="'intersection', 'own', 'reference' or a list of topic ids")
    ref_topics = None
    if reference_qrels is not None:
        if isinstance(reference_qrels, pd.DataFrame) and "query_id" in reference_qrels.columns:
            ref_topics = set(reference_qrels["query_id"].astype("str"))
        else:
            ref_topics = set(_load_qrels(reference_qrels, "reference_qrels")["query_id"])
    if isinstance(topics, str):
        if topics == "reference" and ref_topics is None:
            raise InputError("topics='reference' needs reference_qrels", source="topics",
                             fix="pass reference_qrels=, or use topics='own'")
        if topics == "own" or ref_topics is None:
            tset = set(judged)
        elif topics == "intersection":
            tset = judged & ref_topics
        else:
            tset = set(ref_topics)
        policy = topics
    else:
        tset = {str(t) for t in topics}
        policy = "list"
    T = np.array(sorted(tset), dtype=object)
    if not len(T):
        raise InputError(f"the topic set is empty (topics={topics if isinstance(topics, str) else list(topics)!r}; "
                         f"{len(judged)} judged topic(s), {len(ref_topics) if ref_topics is not None else 0} in the "
                         "reference)", source="topics", expected="at least one topic to score the systems on",
                         fix="check that the topic ids of the qrels (and the reference) match")
    excluded = sorted(judged - tset)
    det.add("qrels", "topic_excluded", np.ones(len(excluded)), query_id=np.array(excluded, dtype=object))
    unjudged = sorted(tset - judged)
    det.add("qrels", "topic_not_judged", np.ones(len(unjudged)), query_id=np.array(unjudged, dtype=object))
    return T, policy


def _read_run_rows(runs):
    """Runs, read and validate: ``(run ids, topic ids, doc ids, scores, ranks)``, one entry per row.

    The ids are pyarrow string arrays (zero-copy for pandas' Arrow-backed strings); ranks are kept
    (for the report only) when the run has an integer rank column that fits in 32 bits, else None.
    """
    r = _load_runs(runs)
    ra = _arrow_strings(r["run_id"], "run_id")
    qa = _arrow_strings(r["query_id"], "query_id")
    da = _arrow_strings(r["doc_id"], "doc_id")
    score = r["score"].to_numpy(dtype=np.float64)
    rank = None
    if "rank" in r.columns and r["rank"].dtype.kind in "iu":
        rank = r["rank"].to_numpy()
        if len(rank) and (rank.max() >= 2**31 or rank.min() < -2**31):
            rank = None
    return ra, qa, da, score, rank


@dataclass
class _Groups:
    """The (run, topic) groups of the run rows.

    The rows come in segments of consecutive rows with the same (run, topic); a group is a distinct
    (run, topic), and a file that lists a run's topic twice has two segments in one group.
    """

    seg_start: np.ndarray  # first row of each segment
    seg_len: np.ndarray    # rows of each segment
    seg_grp: np.ndarray    # group of each segment
    run_names: np.ndarray  # sorted run ids (object)
    sys: np.ndarray        # per group: run index
    top: np.ndarray        # per group: topic index in the topic set, -1 outside it
    topname: np.ndarray    # per group: topic id (object)
    judged: np.ndarray     # per group: the qrels judge the topic

    @property
    def n(self) -> int:
        return len(self.sys)

    @cached_property
    def names(self) -> tuple[np.ndarray, np.ndarray]:
        """(run id, topic id) of each group, as the report wants them."""
        return self.run_names[self.sys], self.topname


def _group_rows(ra, qa, tpos: dict, judged: set) -> _Groups:
    """Runs, grouping: segments of consecutive rows with the same (run, topic), and the distinct groups."""
    import pyarrow.compute as pc

    n = len(ra)
    if n > 1:
        bnd = pc.or_(pc.not_equal(ra.slice(1), ra.slice(0, n - 1)), pc.not_equal(qa.slice(1), qa.slice(0, n - 1)))
        seg_start = np.flatnonzero(np.concatenate([[True], _bool_numpy(bnd)]))
        del bnd
    else:
        seg_start = np.zeros(1, dtype=np.int64)
    seg_run = _take_strings(ra, seg_start)
    seg_top = _take_strings(qa, seg_start)
    run_codes, run_names = pd.factorize(seg_run, sort=True)
    run_names = np.asarray(run_names, dtype=object)
    top_codes, top_names = pd.factorize(seg_top, sort=False)
    top_names = np.asarray(top_names, dtype=object)
    seg_grp, pair_u = pd.factorize(run_codes.astype(np.int64) * len(top_names) + top_codes, sort=False)
    G = len(pair_u)
    topname = top_names[pair_u % len(top_names)]
    return _Groups(seg_start=seg_start, seg_len=np.diff(np.append(seg_start, n)), seg_grp=seg_grp,
                   run_names=run_names, sys=(pair_u // len(top_names)).astype(np.int64),
                   top=np.fromiter((tpos.get(t, -1) for t in topname), dtype=np.int64, count=G),
                   topname=topname, judged=np.fromiter((t in judged for t in topname), dtype=bool, count=G))


def _rows_not_scored(score: np.ndarray, g: _Groups, det: _Details):
    """Runs, rows left out: NaN scores (warned), rows of topics not judged or outside the topic set.

    Returns ``(nan_at, rows, dropped)``: the NaN rows (None without any), per group the rows that
    are not NaN, and per group whether all its rows are dropped (its topic is not scored).
    """
    G = g.n
    nan_at = None
    isnan = np.isnan(score)
    if isnan.any():
        nan_at = np.flatnonzero(isnan)
        det.add("runs", "nan_score", np.bincount(np.repeat(g.seg_grp, g.seg_len)[nan_at], minlength=G), *g.names)
        warnings.warn(f"{len(nan_at)} run row(s) have a NaN score and were dropped (see .report)",
                      MetaevalWarning, stacklevel=4)
    del isnan
    rows = np.bincount(g.seg_grp, weights=g.seg_len, minlength=G).astype(np.int64)
    if nan_at is not None:
        rows = rows - np.bincount(np.repeat(g.seg_grp, g.seg_len)[nan_at], minlength=G)
    unj, exc = ~g.judged, g.judged & (g.top < 0)
    det.add("runs", "unjudged_topic", np.where(unj, rows, 0), *g.names)
    det.add("runs", "excluded_topic", np.where(exc, rows, 0), *g.names)
    return nan_at, rows, unj | exc


def _topic_major(g: _Groups, nT: int) -> np.ndarray:
    """The group order topic by topic (then system); topics outside the set come last.

    Rows of one topic then sit together, so that the doc ids of a topic stay in the CPU cache while
    they are encoded and looked up.
    """
    top_key = np.where(g.top >= 0, g.top, nT + pd.factorize(g.topname)[0])
    return np.lexsort((g.sys, top_key))


def _kept_rows(g: _Groups, gorder: np.ndarray, rows: np.ndarray, dropped: np.ndarray, nan_at):
    """Where the kept rows of each group are, the groups taken in ``gorder``: ``(g_first, g_rows, rows_at)``.

    Group i (in the new order) keeps ``g_rows[i]`` rows: input rows ``g_first[i]`` on when
    ``rows_at`` is None (every (run, topic) is one block of rows and no score is NaN), else
    ``rows_at[g_first[i]:g_first[i] + g_rows[i]]`` (file order within a group).
    """
    g_rows = np.where(dropped[gorder], 0, rows[gorder])
    if len(g.seg_start) == g.n and nan_at is None:
        return g.seg_start[np.argsort(g.seg_grp)][gorder], g_rows, None
    newid = np.empty(g.n, dtype=np.int64)
    newid[gorder] = np.arange(g.n)
    new_of_row = newid[np.repeat(g.seg_grp, g.seg_len)]
    rows_at = np.argsort(new_of_row, kind="stable")
    rows_at = rows_at[~dropped[gorder][new_of_row[rows_at]]]
    if nan_at is not None:
        rows_at = rows_at[~np.isin(rows_at, nan_at)]
    return np.concatenate([[0], np.cumsum(g_rows)[:-1]]), g_rows, rows_at


class _Prepared:
    """Qrels and runs cleaned, restricted to the topic set and put in trec_eval's order.

    The steps, in order (each a function above that reports what it changed in ``det``):
    qrels -- :func:`_read_judgments`, :func:`_report_repeated_judgments`,
    :func:`_merge_near_duplicates`, :func:`_one_label_per_doc`; topics -- :func:`_topic_set`,
    :meth:`_index_qrels`; runs -- :func:`_read_run_rows`, :func:`_group_rows`,
    :func:`_rows_not_scored`, :func:`_topic_major`, :func:`_kept_rows`; ranking and the fast measures
    -- :meth:`_rank` (chunk by chunk, :meth:`_rank_chunk`); then :meth:`_report_missing_topics`.
    """

    def __init__(self, qrels, runs, *, duplicates_map, topics, reference_qrels, depth=None, need_docs=True,
                 specs=()):
        import pyarrow as pa

        self.need_docs = need_docs  # the ranked rows (and doc ids) are kept for the ir-measures fallback
        self.specs = list(dict.fromkeys(specs))  # fast measures computed chunk by chunk while ranking
        self._stats, self._values = {}, {}
        self.det = det = _Details()
        # ---- qrels: one label per (query, canonical doc) ----
        j = _read_judgments(qrels)
        self.dup_map = dm = _load_dup_map(duplicates_map)
        _report_repeated_judgments(j, det)
        qq = _one_label_per_doc(j, _merge_near_duplicates(j, dm, det), dm is not None, det)
        del j
        judged = set(pd.unique(qq["q"].to_numpy(dtype=object)))
        self.judged_topics = tuple(sorted(judged))
        # ---- the topic set, and the qrels indexed by it ----
        T, self.topic_policy = _topic_set(topics, reference_qrels, judged, det)
        self.topics, self.nT = tuple(T), len(T)
        self.topic_judged = np.array([t in judged for t in T], dtype=bool)
        self._index_qrels(qq, T, det)
        del qq
        # ---- runs: rows grouped by (run, topic), the rows that are scored, groups topic by topic ----
        ra, qa, da, score, rank = _read_run_rows(runs)
        g = _group_rows(ra, qa, {t: i for i, t in enumerate(T)}, judged)
        del ra, qa
        self.systems = tuple(g.run_names)
        nan_at, rows, dropped = _rows_not_scored(score, g, det)
        gorder = _topic_major(g, self.nT)
        g_first, g_rows, rows_at = _kept_rows(g, gorder, rows, dropped, nan_at)
        g_sys, g_top = g.sys[gorder], g.top[gorder]
        gnames = (g.names[0][gorder], g.names[1][gorder])
        if isinstance(da, pa.ChunkedArray):  # one array: a take from a chunked array walks all of it
            da = da.combine_chunks() if da.num_chunks != 1 else da.chunk(0)
        # ---- ranking (trec_eval's order) and the fast measures, chunk by chunk ----
        ranked = self._rank(g_first, g_rows, rows_at, depth, score, rank, da, dm, g.n, gnames, g_top)
        del da, score, rank, rows_at
        det.parts.extend(ranked["det"].parts)
        n_rep = ranked["det"].total("duplicate_doc")
        if n_rep:
            warnings.warn(f"{int(n_rep)} repeated doc id(s) within a topic of a run were dropped (the best-ranked "
                          "occurrence is kept; see .report)", MetaevalWarning, stacklevel=3)
        self.depth = depth
        self.doc_map_used = ranked["doc_map_used"]
        self.g_sys, self.g_top = g_sys, np.maximum(g_top, 0)
        self.present = (ranked["g_len"] > 0) & (g_top >= 0)
        self.nS = len(g.run_names)
        self._report_missing_topics(g.run_names, T)
        self._dictionary = ranked["dictionary"]
        self._values = dict(ranked["values"])
        if need_docs:
            self.label, self.grp, self.doc, self.pos = ranked["label"], ranked["grp"], ranked["dc"], ranked["pos"]
        else:
            self.label = self.grp = self.doc = self.pos = None
        self.g_len, self.g_start = ranked["g_len"], ranked["g_start"]
        self.n_groups = g.n

    def _index_qrels(self, qq: pd.DataFrame, T: np.ndarray, det: _Details) -> None:
        """The qrels of the topic set, topic by topic (``q_off[t]:q_off[t + 1]``), with topic indices.

        Judged topics of the set without a relevant document are reported.
        """
        import pyarrow as pa

        tpos = {t: i for i, t in enumerate(T)}
        qq = qq.loc[qq["q"].isin(set(T))]
        q_top = np.fromiter((tpos[t] for t in qq["q"].to_numpy(dtype=object)), dtype=np.int64, count=len(qq))
        o = np.argsort(q_top, kind="stable")
        self.q_top = q_top[o]
        self.q_doc_names = qq["d"].to_numpy(dtype=object)[o]
        self.q_lab = qq["l"].to_numpy().astype(np.int64)[o]
        self.q_off = np.concatenate([[0], np.cumsum(np.bincount(self.q_top, minlength=len(T)))])
        self.q_docs_arrow = pa.array(self.q_doc_names, type=pa.large_string())
        norel = np.ones(len(T), dtype=bool)
        norel[self.q_top[self.q_lab >= 1]] = False
        norel &= self.topic_judged
        det.add("qrels", "topic_without_relevant", np.ones(int(norel.sum())), query_id=T[norel])

    def _report_missing_topics(self, run_names: np.ndarray, T: np.ndarray) -> None:
        """(system, topic) cells of judged topics in the set that a run does not retrieve."""
        have = np.zeros((self.nS, self.nT), dtype=bool)
        have[self.g_sys[self.present], self.g_top[self.present]] = True
        miss = ~have & self.topic_judged[None, :]
        if miss.any():
            si, ti = np.nonzero(miss)
            self.det.add("runs", "missing_topic", np.ones(len(si)), run_names[si], T[ti])

    def _rank(self, g_first, g_rows, rows_at, depth, score, rank, da, dm, G, gnames, g_top) -> dict:
        """Every group's rows in trec_eval's order, with their labels, and the fast measures.

        Group g's rows are ``rows_at[g_first[g]:g_first[g] + g_rows[g]]`` (or, without ``rows_at``, the
        input rows from ``g_first[g]`` on). Groups go through :meth:`_rank_chunk` a few hundred thousand
        rows at a time, topic after topic, so that each step works on data that stays in the CPU cache;
        each chunk has its own doc dictionary (doc identity only matters within a topic) and its fast
        measures are computed before the next chunk. With ``depth``, only each group's rows down to
        that rank (ties at the cut included) are ranked; a group in which a repeated doc was dropped is
        then ranked again in full (a row from below the cut moves up).
        """
        import pyarrow as pa

        ends = np.cumsum(g_rows)
        n = int(ends[-1]) if G else 0
        targets = np.arange(1, -(-n // _CHUNK_ROWS)) * _CHUNK_ROWS
        cuts = np.unique(np.searchsorted(ends, targets, side="left") + 1) if len(targets) else []
        edges = [0] + [int(g) for g in cuts if 0 < g < G] + [G]
        out_g_len = np.zeros(G, dtype=np.int64)
        dicts, det = [], _Details()
        keep = self.need_docs  # the ranked rows are kept for the ir-measures fallback
        parts = []
        values = {spec: np.zeros(G) for spec in self.specs}
        offset, doc_map_used = 0, False
        for g0, g1 in zip(edges[:-1], edges[1:]):
            ln = g_rows[g0:g1]
            if not ln.sum():
                continue
            local = np.repeat(np.arange(g1 - g0, dtype=np.int32), ln)  # group of each row, from 0
            within = np.arange(int(ln.sum())) - np.repeat(np.cumsum(ln) - ln, ln)  # row number in its group
            at = np.repeat(g_first[g0:g1], ln) + within
            if rows_at is not None:
                at = rows_at[at]
            full = np.ones(len(at), dtype=bool)
            sel = full
            if depth is not None and (ln > depth).any():
                with np.errstate(over="ignore"):
                    f32 = score[at].astype(np.float32)
                sel = f32 >= _kth_largest(f32, ln, depth)[local]  # ties at the cut all stay
            while True:
                rows = at if sel is full else at[sel]
                c = self._rank_chunk(score[rows], da.take(pa.array(rows, type=pa.int64())),
                                     None if rank is None else rank[rows].astype(np.int64, copy=False),
                                     local if sel is full else local[sel], dm, g1 - g0,
                                     (gnames[0][g0:g1], gnames[1][g0:g1]), g_top[g0:g1])
                if sel is full:
                    break
                # repeats dropped in a truncated group: rank that group again, in full
                short = c["dropped_groups"][c["n_selected"][c["dropped_groups"]] < ln[c["dropped_groups"]]]
                if not len(short):
                    break
                sel = sel | np.isin(local, short)
                if sel.all():
                    sel = full
            m = len(c["grp"])
            gl = c["g_len"]
            pos_c = np.arange(m, dtype=np.int32) - np.repeat((np.cumsum(gl) - gl).astype(np.int32), gl)
            if self.specs:  # the fast measures, on this chunk while it is in cache
                rk = _Ranking(c["grp"], pos_c, c["label"], gl, np.maximum(g_top[g0:g1], 0), self)
                for spec in self.specs:
                    values[spec][g0:g1] = rk.compute(spec)
            if keep:
                parts.append((c["grp"] + g0, pos_c, c["dc"] + offset, c["label"]))
                dicts.append(c["dictionary"])
                offset += len(c["dictionary"])
            out_g_len[g0:g1] = gl
            det.parts.extend(c["det"].parts)
            doc_map_used |= c["doc_map_used"]
        if parts:
            grp_o, pos_o, dc_o, label = (np.concatenate([p[i] for p in parts]) for i in range(4))
            dictionary = pa.chunked_array([x.cast(pa.large_string()) for x in dicts]).combine_chunks()
        else:
            grp_o, pos_o, dc_o, label = (np.zeros(0, dtype=t) for t in (np.int32, np.int32, np.int64, float))
            dictionary = pa.array([], type=pa.large_string())
        g_start = np.concatenate([[0], np.cumsum(out_g_len)[:-1]]).astype(np.int64)
        return {"grp": grp_o, "pos": pos_o, "dc": dc_o, "label": label, "dictionary": dictionary,
                "g_len": out_g_len, "g_start": g_start, "values": values, "det": det,
                "doc_map_used": doc_map_used}

    def _rank_chunk(self, score_s, da, rank_s, grp_s, dm, G, gnames, g_top) -> dict:
        """One chunk of :meth:`_rank` (groups numbered from 0 within the chunk).

        Doc ids are encoded (and mapped to canonical ids); each group is sorted by float32 score
        descending then doc id descending (the doc code is recovered from the sorted key, so nothing
        else moves); a doc repeated within a group keeps its best-ranked row; ties, repeats and
        rank-column disagreements are counted; labels are looked up in the qrels of the chunk's topics.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        det = _Details()
        d, dictionary = _dictionary_encode(da)
        dc = d
        doc_map_used = False
        if dm is not None:
            mapping, per_topic = dm
            names = np.asarray(dictionary.to_numpy(zero_copy_only=False), dtype=object)
            if not per_topic:
                new = np.array([mapping.get(x, x) for x in names], dtype=object)
                if (new != names).any():
                    codes, cnames = pd.factorize(new, sort=False)
                    dc = codes.astype(np.int32)[d]
                    doc_map_used = True
            else:
                pk = pd.MultiIndex.from_arrays([gnames[1][grp_s], d])
                codes, uniq = pk.factorize()
                ut = uniq.get_level_values(0).to_numpy(dtype=object)
                ud = uniq.get_level_values(1).to_numpy()
                new = np.array([mapping.get((t, names[x]), names[x]) for t, x in zip(ut, ud)], dtype=object)
                if (new != names[ud]).any():
                    c2, cnames = pd.factorize(np.concatenate([names, new]), sort=False)
                    dc = c2[len(names):].astype(np.int32)[codes]
                    doc_map_used = True
            if doc_map_used:
                dictionary = pa.array(np.asarray(cnames, dtype=object), type=pa.large_string())

        def bounds(g_len):
            g_start = np.concatenate([[0], np.cumsum(g_len)[:-1]]).astype(np.int64)
            cut = g_start[1:][g_len[1:] > 0] - 1  # pairs (i, i + 1) of rows in different groups
            return g_len, g_start, cut[cut >= 0]

        def within(pairs):  # a mask over adjacent pairs, with pairs across groups switched off
            pairs[cut] = False
            return pairs

        def per_group(pairs):  # flagged adjacent pairs counted per group
            return np.bincount(grp_s[1:][pairs], minlength=G)

        def groups_of(pairs):  # the groups in which some adjacent pair is flagged
            return np.flatnonzero(per_group(pairs)) if pairs.any() else np.zeros(0, dtype=np.int64)

        g_len, g_start, cut = bounds(np.bincount(grp_s, minlength=G).astype(np.int64))
        n_selected = g_len
        n = len(grp_s)
        # ---- trec_eval's order: float32 score descending, then doc id descending (byte order) ----
        U = len(dictionary)
        # the doc codes from the last id to the first in byte order; desc[code] = position in that list
        from_last = np.asarray(pc.sort_indices(dictionary), dtype=np.int32)[::-1].copy()
        desc = np.empty(U, dtype=np.uint32)
        desc[from_last] = np.arange(U, dtype=np.uint32)
        combo = _trec_key(score_s, desc[dc])
        del desc
        unsorted = groups_of(within(combo[1:] < combo[:-1])) if n > 1 else np.zeros(0, dtype=np.int64)
        if len(unsorted):
            _sort_groups_inplace(combo, g_start, g_len, unsorted)
        dc_sorted = from_last[combo & np.uint64(0xFFFFFFFF)]  # the doc codes, recovered from the sorted keys
        # ---- the rank column: does it order the documents as trec_eval does? (reported only) ----
        if rank_s is not None and n > 1:
            differs = np.zeros(G, dtype=bool)
            differs[unsorted] = True  # the file is not in trec_eval's order ...
            odd = groups_of(within(rank_s[1:] <= rank_s[:-1]))  # ... nor, in these groups, in rank order
            if len(odd):
                differs[odd] = False
                moves = _sort_groups(rank_s.astype(np.int64), g_start, g_len, odd)
                by_rank = dc.copy()
                for dest, src in moves:
                    by_rank[dest] = dc[src]
                rows_odd = np.concatenate([np.arange(g_start[g], g_start[g] + g_len[g]) for g in odd])
                mism = rows_odd[by_rank[rows_odd] != dc_sorted[rows_odd]]
                differs[np.unique(grp_s[mism])] = True
            det.add("runs", "rank_order_differs", differs.astype(np.int64), *gnames)
        # ---- float32 precision: distinct float64 scores that become equal as float32 ----
        if n > 1:
            hi = combo >> np.uint64(32)
            tie = within(hi[1:] == hi[:-1])
            del hi
            if tie.any():
                n_tie = per_group(tie)
                tied = np.flatnonzero(n_tie)
                n32 = g_len[tied] - n_tie[tied]
                n64 = _distinct_per_group(score_s, g_start, g_len, tied)
                c = np.zeros(G, dtype=np.int64)
                c[tied] = n64 - n32
                det.add("runs", "float32_tie", c, *gnames)
        # ---- a doc repeated within a group: keep its first (best-ranked) row ----
        dropped_groups = np.zeros(0, dtype=np.int64)
        if n > 1:
            dup_groups = _groups_with_repeats(dc_sorted, g_start, g_len)
            if len(dup_groups):
                at = np.flatnonzero(np.isin(grp_s, dup_groups))
                sub = pd.DataFrame({"g": grp_s[at], "dc": dc_sorted[at]})
                later = sub.duplicated(["g", "dc"], keep="first").to_numpy()
                n_drop = np.bincount(sub["g"].to_numpy()[later], minlength=G)
                # repeats of the same original id (a group holds the same rows before and after the sort);
                # the rest were collapsed by the near-duplicate map
                orig = pd.DataFrame({"g": grp_s[at], "d": d[at]}).groupby("g")["d"]
                n_raw = orig.size() - orig.nunique()
                raw = np.zeros(G, dtype=np.int64)
                raw[n_raw.index.to_numpy()] = n_raw.to_numpy()
                det.add("runs", "duplicate_doc", raw, *gnames)
                det.add("runs", "duplicate_canonical", n_drop - raw, *gnames)
                keep2 = np.ones(n, dtype=bool)
                keep2[at[later]] = False
                grp_s, combo, dc_sorted = grp_s[keep2], combo[keep2], dc_sorted[keep2]
                g_len, g_start, cut = bounds(np.bincount(grp_s, minlength=G).astype(np.int64))
                n = len(grp_s)
                dropped_groups = np.flatnonzero(n_drop)
        # ---- ties (trec_eval's order is already applied) ----
        if n > 1:
            if len(dropped_groups):  # the rows changed: tied neighbours again
                hi = combo >> np.uint64(32)
                tie = within(hi[1:] == hi[:-1])
                del hi
            if tie.any():
                det.add("runs", "score_tie", per_group(tie), *gnames)
        # ---- labels: (topic, canonical doc) looked up in the qrels of the chunk's topics ----
        topics = np.unique(g_top[(g_top >= 0) & (g_len > 0)])
        if len(topics):
            qi = np.concatenate([np.arange(self.q_off[t], self.q_off[t + 1]) for t in topics])
        else:
            qi = np.zeros(0, dtype=np.int64)
        label = _lookup_labels(self.q_top[qi], self.q_docs_arrow.take(pa.array(qi, type=pa.int64())),
                               self.q_lab[qi], dictionary, np.maximum(g_top, 0), grp_s, dc_sorted)
        return {"grp": grp_s, "dc": dc_sorted, "label": label, "dictionary": dictionary, "g_len": g_len,
                "det": det, "dropped_groups": dropped_groups, "doc_map_used": doc_map_used,
                "n_selected": n_selected}

    @property
    def doc_names(self) -> np.ndarray:
        """The (canonical) doc ids as Python strings, indexed by doc code (built on first use)."""
        if getattr(self, "_doc_names", None) is None:
            self._doc_names = np.asarray(self._dictionary.to_numpy(zero_copy_only=False), dtype=object)
        return self._doc_names

    # -- per-topic figures of the qrels (shared by every chunk) --------------------------------
    def qrels_labels(self, gains=None):
        return self.q_lab.astype(float) if gains is None else _map_gains(self.q_lab.astype(float), gains)

    def ideal_dcg(self, gains, k) -> np.ndarray:
        """Per topic: the DCG of the ideal ranking (the topic's positive gains, largest first), cut at k."""
        key = ("idcg", gains, k)
        if key not in self._stats:
            ql = self.qrels_labels(gains)
            pos_q = ql > 0
            t, g = self.q_top[pos_q], ql[pos_q]
            o = np.lexsort((-g, t))
            t, g = t[o], g[o]
            cnt = np.bincount(t, minlength=self.nT)
            j = np.arange(len(t)) - np.repeat(np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt)
            if k is not None:
                s2 = j < k
                t, g, j = t[s2], g[s2], j[s2]
            logt = _log2_table(int(j.max()) + 1 if len(j) else 1)
            self._stats[key] = np.bincount(t, weights=g / logt[j], minlength=self.nT)  # sums in order
        return self._stats[key]

    def num_rel(self, rel) -> np.ndarray:
        """Per topic: the number of judged documents labelled ``rel`` or more."""
        key = ("num_rel", rel)
        if key not in self._stats:
            self._stats[key] = np.bincount(self.q_top[self.q_lab >= rel], minlength=self.nT)
        return self._stats[key]

    def compute(self, spec) -> np.ndarray:
        """Per-group values of a fast measure: computed chunk by chunk while ranking, or on the kept rows."""
        if spec not in self._values:
            if self.grp is None:
                raise AssertionError(f"{spec} was not computed while ranking")  # pragma: no cover
            self._values[spec] = _Ranking(self.grp, self.pos, self.label, self.g_len, self.g_top, self).compute(spec)
        return self._values[spec]

    # -- the fallback -----------------------------------------------------------------------
    def ir_measures_values(self, measures) -> dict:
        """Per-group values of measures computed by ir-measures on the cleaned ranking."""
        ir = _ir()
        qrels = {}
        for t, d, lab in zip(self.q_top.tolist(), self.q_doc_names.tolist(), self.q_lab.tolist()):
            qrels.setdefault(self.topics[t], {})[d] = int(lab)
        evaluators = [ir.evaluator(ms, qrels) for ms in _safe_batches(measures)]
        out = {str(m): np.zeros(self.n_groups) for m in measures}
        key_of = {str(m): str(m) for m in measures}
        names = self.doc_names
        top = max(int(self.g_len.max()) if self.n_groups else 0, 1)
        sc = (top - self.pos).astype(float)  # strictly decreasing within a group: trec_eval's order
        gidx = {}
        for s in range(self.nS):
            gs = np.flatnonzero((self.g_sys == s) & self.present)
            run = {}
            for g in gs:
                a, b = self.g_start[g], self.g_start[g] + self.g_len[g]
                run[self.topics[self.g_top[g]]] = dict(zip(names[self.doc[a:b]].tolist(), sc[a:b].tolist()))
                gidx[(s, self.topics[self.g_top[g]])] = g
            if not run:
                continue
            for ev in evaluators:
                for metric in ev.iter_calc(run):
                    g = gidx.get((s, metric.query_id))
                    if g is not None:
                        out[key_of[str(metric.measure)]][g] = float(metric.value)
        return out


def _safe_batches(measures) -> list:
    """The measures split into batches that ir-measures evaluates correctly together.

    ir-measures 0.4.3 (pytrec_eval provider) files an nDCG without ``gains=`` under whichever
    pytrec_eval call it created first (gains included), and keys its results by trec_eval name only:
    with ``nDCG@10`` and ``nDCG(gains=...)@10`` in one call, one of them gets the other's value (or
    0), depending on the hash seed of the process. Every nDCG with ``gains=`` therefore gets an
    evaluator of its own.
    """
    gains = [[m] for m in measures if m.NAME == "nDCG" and m.params.get("gains") is not None]
    rest = [m for m in measures if not (m.NAME == "nDCG" and m.params.get("gains") is not None)]
    return gains + ([rest] if rest else [])


def _map_gains(labels: np.ndarray, gains) -> np.ndarray:
    """ir-measures' gains= mapping applied to labels (unmapped labels keep their value; NaN stays NaN)."""
    out = labels.copy()
    for a, b in gains:
        out[labels == a] = b
    return out


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------

def system_scores(qrels: QrelsLike, runs: RunsLike, measures: MeasureLike | Iterable[MeasureLike] = "nDCG@10", *,
                  judged_only: bool = False, duplicates_map: pd.DataFrame | Mapping | PathLike | None = None,
                  topics: str | Sequence[str] = "intersection", reference_qrels: QrelsLike | None = None,
                  missing_topics: str = "zero",
                  judged_at: int | Sequence[int] = (10, 100), backend: str = "auto") -> SystemScores:
    """Score every run on every topic under one qrels set, as trec_eval (via ir-measures) would.

    Parameters
    ----------
    qrels : DataFrame or path
        ``query_id, doc_id, relevance`` (as :func:`metaeval.read_qrels` returns), or a qrels file.
    runs : DataFrame, path, list of paths, directory, or dict
        ``query_id, doc_id, score, run_id`` (as :func:`metaeval.read_runs` returns; without
        ``run_id`` the frame is one run called ``"run"``), run file(s), a directory of runs, or a
        dict run name → frame or path.
    measures : str, ir_measures measure, or a sequence of them
        ``"nDCG@10"`` (default), ``"AP"``, ``"P@10"``, ``"RR"``, ``"R@100"``, ``"Judged@10"``,
        ``"AP(rel=2)"``, ``"nDCG(judged_only=True)@10"`` ... (any measure ir-measures knows; trec_eval
        names such as ``"ndcg_cut_10"`` are accepted).
    judged_only : bool
        Condensed evaluation (Sakai 2007): unjudged documents are removed from each ranking before
        scoring (``judged_only=True`` on every measure that has the parameter, i.e. trec_eval's
        ``-J``). Judged@k is unaffected.
    duplicates_map : DataFrame, dict or path, optional
        Near-duplicates: ``doc_id → canonical_doc_id`` (a frame with those columns, optionally with
        ``query_id`` for a per-topic map, or a dict). Applied to qrels and runs alike: in the qrels a
        duplicate's judgment moves to its canonical doc (conflicting labels: the highest is kept,
        and reported); in a ranking, only the best-ranked doc of each canonical group is kept, under
        the canonical id.
    topics : {"intersection", "own", "reference"} or sequence of str
        The topic set the systems are scored on. ``"own"``: every topic these qrels judge.
        ``"intersection"`` (default): the topics judged by both these qrels and ``reference_qrels``
        (the same as ``"own"`` without a reference). ``"reference"``: the reference's judged topics
        (those these qrels do not judge get NaN, and are reported). A list: exactly those topics.
        Judged topics left out are reported.
    reference_qrels : DataFrame or path, optional
        The qrels the topic set is compared with (usually the human qrels, when these are a judge's).
    missing_topics : {"zero", "nan"}
        A topic of the set that a run does not retrieve scores 0 (``"zero"``: ``trec_eval -c`` and
        ir-measures) or NaN (``"nan"``: plain trec_eval, whose mean leaves it out).
    judged_at : sequence of int
        Depths k of the Judged@k table in ``.judged``.
    backend : {"auto", "fast", "ir_measures"}
        ``"auto"``: the vectorized path for measures that have one (:func:`has_fast_path`),
        ir-measures for the others. ``"fast"``: raise if a measure has no fast path.
        ``"ir_measures"``: every measure by ir-measures (slow; for checking).

    Returns
    -------
    SystemScores
        ``.frame`` (``system, query_id, measure, value``), ``.matrix(measure)``, ``.means()``,
        ``.judged``, ``.report``, ``.topics``, ``.judged_topics``.

    Notes
    -----
    With trec_eval's ranking (see the module docstring: float32 scores descending, ties by doc id
    descending), for a topic with qrels labels :math:`\\ell`, rank :math:`i = 1, 2, \\dots`, relevance
    threshold :math:`r` (``rel``, default 1) and :math:`R = \\#\\{d: \\ell_d \\ge r\\}`:

    * nDCG@k :math:`= \\sum_{i \\le k} g_i / \\log_2(i + 1) \\,/\\, \\sum_{i \\le k} g^*_i / \\log_2(i + 1)`,
      gain :math:`g` = the label (or ``gains=``; negative and unjudged = 0), :math:`g^*` the
      topic's positive labels sorted descending (all judged documents, retrieved or not); 0 when
      the ideal is 0.
    * P@k :math:`= \\#\\{i \\le k: \\ell_i \\ge r\\} / k` (always divided by k);
      R@k :math:`= \\#\\{i \\le k: \\ell_i \\ge r\\} / R`; Success@k = 1 if any.
    * RR :math:`= 1 / \\min\\{i: \\ell_i \\ge r\\}` (0 if none).
    * AP(@k) :math:`= \\frac{1}{R} \\sum_{i (\\le k): \\ell_i \\ge r} \\#\\{j \\le i: \\ell_j \\ge r\\} / i`.
    * Judged@k (ir-measures): the share of the top :math:`\\min(k, n)` that has a qrels entry.

    The fast path performs trec_eval's floating-point operations in trec_eval's order (sums in rank
    order, ``log2`` from the C library), so its values equal pytrec_eval's bit for bit; the tests
    check this against ``ir_measures.iter_calc`` on the bundled ``trec_dl_like`` runs and on random
    qrels/runs with ties, NaN scores, repeated ids, unjudged documents and negative labels, and
    against NIST's official nDCG@10 and nDCG@100 for the 159 TREC DL 2019–2021 passage runs.
    ir-measures' own Judged breaks score ties by doc id *ascending*; here Judged@k is computed on
    trec_eval's ranking, so that it describes the same top k as the other measures.

    References
    ----------
    trec_eval (https://github.com/usnistgov/trec_eval) and ir-measures (MacAvaney, Macdonald &
    Ounis, ECIR 2022): every per-topic value equals ``ir_measures.iter_calc``'s
    (tests/test_evaluation.py); NIST's official nDCG@10 and nDCG@100 of the 159 TREC DL 2019–2021
    passage runs are reproduced in tests/test_evaluation_realdata.py. Condensed evaluation: Sakai,
    T. (2007). Alternatives to bpref. SIGIR 2007, 71–78.

    Examples
    --------
    >>> from metaeval import datasets
    >>> d = datasets.load("trec_dl_like")
    >>> s = system_scores(d.qrels_human, d.runs, ["nDCG@10", "AP(rel=2)"])
    >>> s.matrix("nDCG@10").shape
    (30, 40)
    >>> round(float(s.means("nDCG@10")["run_01"]), 4) == round(float(s.matrix("nDCG@10").loc["run_01"].mean()), 4)
    True
    """
    if backend not in ("auto", "fast", "ir_measures"):
        raise InputError(f"backend={backend!r}", source="backend", expected="'auto', 'fast' or 'ir_measures'")
    if missing_topics not in ("zero", "nan"):
        raise InputError(f"missing_topics={missing_topics!r}", source="missing_topics", expected="'zero' or 'nan'")
    asked = parse_measures(measures)
    evaluated = [_with_judged_only(m) if judged_only else m for m in asked]
    aliases = {str(a): str(e) for a, e in zip(asked, evaluated) if str(a) != str(e)}
    if isinstance(judged_at, (int, np.integer)):
        judged_at = (int(judged_at),)
    judged_at = tuple(int(k) for k in judged_at)
    if any(k <= 0 for k in judged_at):
        raise InputError(f"judged_at={judged_at}", source="judged_at", expected="positive depths, e.g. (10, 100)")
    specs = {str(m): _fast_spec(m) for m in evaluated}
    if backend == "fast":
        slow = [m for m, s in specs.items() if s is None]
        if slow:
            raise InputError(f"no fast path for {', '.join(slow)}", source="measures",
                             fix="use backend='auto' (ir-measures computes those) or drop them")
    # the deepest rank any requested value looks at (None: the whole ranking)
    depth = None
    if backend != "ir_measures" and all(s is not None for s in specs.values()):
        ks = [s[1] for s in specs.values()] + list(judged_at)
        if all(k is not None for k in ks) and not any(s[3] for s in specs.values()):
            depth = max(ks)
    fast = [s for s in specs.values() if s is not None] if backend != "ir_measures" else []
    prep = _Prepared(qrels, runs, duplicates_map=duplicates_map, topics=topics, reference_qrels=reference_qrels,
                     depth=depth, need_docs=backend == "ir_measures" or any(s is None for s in specs.values()),
                     specs=fast + [("judged", k, None, False) for k in judged_at])
    values, backends = {}, {}
    slow = [m for m in evaluated if backend == "ir_measures" or specs[str(m)] is None]
    for m in evaluated:
        if m not in slow:
            values[str(m)] = prep.compute(specs[str(m)])
            backends[str(m)] = "fast"
    if slow:
        values.update(prep.ir_measures_values(slow))
        backends.update({str(m): "ir_measures" for m in slow})
    fill_missing = missing_topics == "zero"
    pr = prep.present
    matrices = {}
    for m in evaluated:
        name = str(m)
        M = np.full((prep.nS, prep.nT), np.nan)
        M[:, prep.topic_judged] = float(getattr(m, "DEFAULT", 0.0)) if fill_missing else np.nan
        M[prep.g_sys[pr], prep.g_top[pr]] = values[name][pr]
        matrices[name] = M
    # Judged@k table
    jcols = {}
    for k in judged_at:
        M = np.full((prep.nS, prep.nT), np.nan)
        M[:, prep.topic_judged] = 0.0 if fill_missing else np.nan
        M[prep.g_sys[pr], prep.g_top[pr]] = prep.compute(("judged", k, None, False))[pr]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            jcols[f"Judged@{k}"] = np.nanmean(M, axis=1) if prep.nT else np.full(prep.nS, np.nan)
    judged = pd.DataFrame(jcols, index=pd.Index(prep.systems, name="system", dtype="str"))
    settings = {"judged_only": judged_only, "topics": prep.topic_policy, "missing_topics": missing_topics,
                "duplicates_map": prep.dup_map is not None, "backend": backend, "depth": depth}
    report = ScoreReport(prep.det.frame(), prep.nS, prep.nT, prep.topics, prep.judged_topics, settings)
    return SystemScores(matrices, prep.systems, prep.topics, judged_topics=prep.judged_topics, judged=judged,
                        report=report, backends=backends, aliases=aliases)


def scores_from_table(table: pd.DataFrame | PathLike, *,
                      measures: MeasureLike | Iterable[MeasureLike] | None = None, qrels_source: str | Sequence[str] | None = None,
                      topics: Sequence[str] | None = None, systems: Sequence[str] | None = None) -> SystemScores:
    """A :class:`SystemScores` from precomputed per-query scores (no qrels or runs needed).

    Parameters
    ----------
    table : DataFrame or path
        ``system, query_id, measure, value`` rows as :func:`metaeval.read_score_table` returns
        (``trec_eval -q`` output, CSV/TSV tables with the usual aliases ``run_id``, ``qid``,
        ``metric``); a path is read with it. trec_eval measure names are renamed to ir-measures'
        (``ndcg_cut_10`` → ``nDCG@10``, ``map`` → ``AP``, ``P_10`` → ``P@10``, ``recip_rank`` → ``RR``);
        the original names still work in :meth:`SystemScores.matrix`.
    measures : str or sequence, optional
        Keep only these measures (default: all in the table).
    qrels_source : str or sequence of str, optional
        When the table has a ``qrels_source`` column (as SynDL's per-query results do), the source(s)
        to keep. Required when the column holds several sources, since their rows would collide.
    topics, systems : sequence of str, optional
        Keep only these topics / systems.

    Returns
    -------
    SystemScores
        Topics are every topic with a value (for any system); a (system, topic) without a value is
        NaN in the matrices and counted in the report (``missing_cell``). ``.judged`` holds Judged@k
        means when the table has Judged measures.

    Raises
    ------
    InputError
        Several qrels sources without ``qrels_source=``, an unknown measure, no rows left after
        the filters, or a (system, query_id, measure) with two different values.

    References
    ----------
    ``trec_eval -q`` output format; tests/test_evaluation.py checks that a table written from
    :func:`system_scores` reads back to the same matrices, and tests/test_ranking_realdata.py reads
    SynDL's per-query results.

    Examples
    --------
    >>> import metaeval as me
    >>> d = me.datasets.load("trec_dl_like")
    >>> table = me.system_scores(d.qrels_human, d.runs, ["nDCG@10", "AP"]).to_frame()
    >>> s = scores_from_table(table, measures="map")          # the trec_eval name of AP
    >>> s, s.means("AP").head(2).round(4).tolist()
    (SystemScores(30 systems x 40 topics; measures: AP), [0.5803, 0.5539])
    """
    from ..data import io as mio
    det = _Details()
    if isinstance(table, pd.DataFrame) and {"system", "query_id", "measure", "value"} <= set(table.columns) \
            and pd.api.types.is_string_dtype(table["system"].dtype) and table["value"].dtype.kind == "f":
        df = table
        n_all = int(table.attrs.get("dropped_all_rows", 0) or 0)
        if (df["query_id"].astype("str") == "all").any():
            n_all += int((df["query_id"].astype("str") == "all").sum())
            df = df.loc[df["query_id"].astype("str") != "all"]
    else:
        df = mio.read_score_table(table)
        n_all = int(df.attrs.get("dropped_all_rows", 0) or 0)
    det.add("table", "all_rows", n_all)
    if "qrels_source" in df.columns:
        srcs = sorted(pd.unique(df["qrels_source"].astype("str")))
        if qrels_source is None:
            if len(srcs) > 1:
                raise InputError(f"the table holds scores under {len(srcs)} qrels sources ({', '.join(srcs)})",
                                 source="table", expected="one qrels source per SystemScores",
                                 fix=f"pass qrels_source=, e.g. qrels_source={srcs[0]!r}")
        else:
            want = [qrels_source] if isinstance(qrels_source, str) else [str(s) for s in qrels_source]
            absent = [s for s in want if s not in srcs]
            if absent:
                raise InputError(f"qrels_source {', '.join(absent)} is not in the table", source="table",
                                 expected=f"one of {', '.join(srcs)}")
            keep = df["qrels_source"].astype("str").isin(want)
            det.add("table", "filtered_rows", int((~keep).sum()))
            df = df.loc[keep]
    elif qrels_source is not None:
        raise InputError("qrels_source= given, but the table has no qrels_source column", source="table",
                         fix="drop qrels_source=, or filter the table yourself")
    df = df[["system", "query_id", "measure", "value"] + [c for c in df.columns
                                                          if c not in ("system", "query_id", "measure", "value")]]
    # measure names: ir-measures spelling
    raw_names = pd.unique(df["measure"].astype("str"))
    canon = {m: _canonical_name(m) for m in raw_names}
    df = df.assign(measure=df["measure"].astype("str").map(canon), system=df["system"].astype("str"),
                   query_id=df["query_id"].astype("str"), value=df["value"].astype(float))
    aliases = {m: c for m, c in canon.items() if m != c}
    if measures is not None:
        want = [str(m) for m in parse_measures(measures)]
        have = set(df["measure"])
        absent = [m for m in want if m not in have]
        if absent:
            raise InputError(f"measure(s) {', '.join(absent)} are not in the table", source="table",
                             expected=f"one of {', '.join(sorted(have))}")
        df = df.loc[df["measure"].isin(want)]
        order = want
    else:
        order = list(dict.fromkeys(canon[m] for m in raw_names))
    if systems is not None:
        df = df.loc[df["system"].isin({str(s) for s in ([systems] if isinstance(systems, str) else systems)})]
    if topics is not None:
        df = df.loc[df["query_id"].isin({str(t) for t in ([topics] if isinstance(topics, str) else topics)})]
    if not len(df):
        raise InputError("no scores left", source="table", fix="check the measures=, topics=, systems= filters")
    key = ["system", "query_id", "measure"]
    dup = df.duplicated(key, keep=False)
    if dup.any():
        nuniq = df.loc[dup].groupby(key)["value"].nunique(dropna=False)
        if (nuniq > 1).any():
            ex = nuniq[nuniq > 1].index[0]
            other = [c for c in df.columns if c not in key + ["value"]]
            raise InputError(f"{int((nuniq > 1).sum())} (system, query_id, measure) have several different values",
                             source="table", text=" ".join(ex),
                             expected="one value per system, topic and measure",
                             fix=("filter the table on " + ", ".join(other)) if other
                             else "remove the repeated rows")
        first = df.duplicated(key, keep="first")
        c = df.loc[first].groupby("system").size()
        det.add("table", "duplicate_row", c.to_numpy(), system=c.index.to_numpy(dtype=object))
        df = df.loc[~first]
    nanv = df["value"].isna()
    if nanv.any():
        c = df.loc[nanv].groupby(["system", "query_id"]).size()
        det.add("table", "nan_value", c.to_numpy(), system=c.index.get_level_values(0).to_numpy(dtype=object),
                query_id=c.index.get_level_values(1).to_numpy(dtype=object))
    sys_names = sorted(pd.unique(df["system"]))
    top_names = sorted(pd.unique(df["query_id"]))
    si = pd.Index(sys_names).get_indexer(df["system"])
    ti = pd.Index(top_names).get_indexer(df["query_id"])
    matrices = {}
    mcol = df["measure"].to_numpy(dtype=object)
    vals = df["value"].to_numpy(dtype=float)
    for m in order:
        sel = mcol == m
        M = np.full((len(sys_names), len(top_names)), np.nan)
        M[si[sel], ti[sel]] = vals[sel]
        have = np.zeros(M.shape, dtype=bool)
        have[si[sel], ti[sel]] = True
        if (~have).any():
            a, b = np.nonzero(~have)
            det.add("table", "missing_cell", np.ones(len(a)), system=np.asarray(sys_names, dtype=object)[a],
                    query_id=np.asarray(top_names, dtype=object)[b])
        matrices[m] = M
    jcols = {}
    for m in order:
        if m.startswith("Judged"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                jcols[m] = np.nanmean(matrices[m], axis=1)
    judged = pd.DataFrame(jcols, index=pd.Index(sys_names, name="system", dtype="str"))
    report = ScoreReport(det.frame(), len(sys_names), len(top_names), tuple(top_names), tuple(top_names),
                         {"qrels_source": qrels_source, "source": str(df.attrs.get("source", "<DataFrame>"))})
    return SystemScores(matrices, sys_names, top_names, judged_topics=top_names, judged=judged, report=report,
                        backends={m: "table" for m in order}, aliases=aliases)
