"""System scores (metaeval.evaluation): equal to pytrec_eval / ir-measures, and every drop reported.

Sources of the expected numbers:
* ``ir_measures.iter_calc`` and ``pytrec_eval.RelevanceEvaluator`` (pytrec-eval-terrier, which runs
  trec_eval's own C code) on the same inputs: the fast path must give identical values.
* A brute-force Python implementation of the trec_eval definitions below (``_brute``), written from
  trec_eval's sources (form_res_rels.c, m_ndcg_cut.c, m_map.c, m_P.c, m_recip_rank.c, m_recall.c).
* Hand-computed values, with the arithmetic in the comments.
"""

from __future__ import annotations

import itertools
import math
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metaeval
from metaeval import InputError, MetaevalWarning
from metaeval.systems.evaluation import (
    ISSUES,
    SystemScores,
    has_fast_path,
    parse_measures,
    scores_from_table,
    system_scores,
)

FAST = ["nDCG@10", "nDCG@5", "nDCG", "P@10", "P(rel=2)@5", "RR", "RR(rel=2)", "AP", "AP(rel=2)", "AP@20",
        "R@20", "R(rel=2)@10", "Success@3", "Judged@10", "Judged", "nDCG(judged_only=True)@10",
        "AP(judged_only=True)", "P(judged_only=True)@5", "nDCG(gains={0:0,1:1,2:3,3:7})@10"]


def _iter_calc(measures, qrels, run):
    """ir_measures.iter_calc, with each nDCG(gains=...) on its own: ir-measures 0.4.3 mixes up nDCG@k
    and nDCG(gains=...)@k evaluated in one call (which one is wrong depends on the hash seed;
    metaeval.systems.evaluation._safe_batches documents it)."""
    from metaeval.systems.evaluation import _safe_batches

    for batch in _safe_batches(parse_measures(measures)):
        yield from ir_measures.iter_calc(batch, qrels, run)


def _qrels(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]).astype(
        {"query_id": "str", "doc_id": "str", "relevance": "int64"})


def _run(rows, run_id="r1"):
    df = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]).astype(
        {"query_id": "str", "doc_id": "str", "score": "float64"})
    df["run_id"] = run_id
    return df


@pytest.fixture(scope="module")
def dl():
    return metaeval.datasets.load("trec_dl_like")


# --------------------------------------------------------------------------------------------
# a brute-force trec_eval (pure Python, one topic at a time)
# --------------------------------------------------------------------------------------------

def _trec_order(docs_scores):
    """trec_eval's ranking: NaN dropped, one row per doc (its best score), float32 score descending,
    ties by doc id descending (byte order)."""
    best = {}
    for d, s in docs_scores:
        if math.isnan(s):
            continue
        with np.errstate(over="ignore"):
            f = float(np.float32(s)) + 0.0
        if d not in best or f > best[d]:
            best[d] = f
    return [d for d, _ in sorted(best.items(), key=lambda x: (x[1], x[0].encode()), reverse=True)]


def _brute(measure: str, ranking, qrels: dict) -> float:
    m = ir_measures.parse_measure(measure)
    p = m.params
    k = p.get("cutoff")
    rel = p.get("rel", 1)
    if p.get("judged_only"):
        ranking = [d for d in ranking if qrels.get(d, -1) >= 0]
    lab = [qrels.get(d) for d in ranking]
    if m.NAME == "Judged":
        top = lab if k is None else lab[:k]
        return sum(x is not None for x in top) / len(top)
    if m.NAME == "nDCG":
        gains = p.get("gains") or {}
        g = lambda x: gains.get(x, x)  # noqa: E731
        gl = [g(x) if x is not None and x >= 0 else None for x in lab]
        top = gl if k is None else gl[:k]
        dcg = 0.0
        for i, x in enumerate(top):
            if x is not None and x > 0:
                dcg += x / math.log2(i + 2)
        ideal = sorted((g(v) for v in qrels.values() if v >= 0 and g(v) > 0), reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = 0.0
        for i, x in enumerate(ideal):
            idcg += x / math.log2(i + 2)
        return dcg / idcg if idcg > 0 else 0.0
    isrel = [x is not None and x >= rel for x in lab]
    num_rel = sum(1 for v in qrels.values() if v >= rel)
    if m.NAME == "P":
        return sum(isrel[:k]) / k
    if m.NAME == "Success":
        return float(any(isrel[:k]))
    if m.NAME == "R":
        return sum(isrel[:k]) / num_rel if num_rel else 0.0
    if m.NAME == "RR":
        return next((1.0 / (i + 1) for i, r in enumerate(isrel) if r), 0.0)
    if m.NAME == "AP":
        s, c = 0.0, 0
        for i, r in enumerate(isrel if k is None else isrel[:k]):
            if r:
                c += 1
                s += c / (i + 1)
        return s / num_rel if c else 0.0
    raise AssertionError(measure)


def _pytrec(measure: str, ranking, qrels: dict) -> float | None:
    """The value pytrec_eval (trec_eval's C code) gives on the ranking, or None for non-trec_eval measures.

    The ranking goes in as strictly decreasing scores, so trec_eval's own sort reproduces it.
    """
    m = ir_measures.parse_measure(measure)
    p = m.params
    if m.NAME == "Judged":
        return None
    k, rel = p.get("cutoff"), p.get("rel", 1)
    name = {"nDCG": "ndcg" if k is None else f"ndcg_cut_{k}", "P": f"P_{k}", "RR": "recip_rank",
            "AP": "map" if k is None else f"map_cut_{k}", "R": f"recall_{k}", "Success": f"success_{k}"}[m.NAME]
    q = dict(qrels)
    if p.get("gains"):
        q = {d: p["gains"].get(v, v) for d, v in q.items()}
    # a fresh query id for every call (trec_eval keeps the last query's state in static variables)
    qid = f"q{next(_QIDS)}"
    ev = pytrec_eval.RelevanceEvaluator({qid: q}, {name}, relevance_level=int(rel),
                                        judged_docs_only_flag=1 if p.get("judged_only") else 0)
    run = {qid: {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    return ev.evaluate(run)[qid][name]


_QIDS = itertools.count()


# --------------------------------------------------------------------------------------------
# equality with ir-measures / pytrec_eval on the bundled data
# --------------------------------------------------------------------------------------------

def fast_path_equals_ir_measures_on_trec_dl_like_test(dl):
    """Every fast measure equals ir_measures.iter_calc on the raw frames (30 runs x 40 topics, two runs
    with tied scores): ir-measures/pytrec_eval sort and break ties themselves."""
    s = system_scores(dl.qrels_human, dl.runs, FAST, backend="fast")
    assert set(s.backends.values()) == {"fast"}
    ms = parse_measures(FAST)
    worst = 0.0
    for rid, g in dl.runs.groupby("run_id"):
        for met in _iter_calc(ms, dl.qrels_human, g[["query_id", "doc_id", "score"]]):
            got = s.matrix(str(met.measure)).loc[rid, met.query_id]
            worst = max(worst, abs(got - met.value))
    assert worst <= 1e-12
    assert s.matrix("nDCG@10").shape == (30, 40)


def fast_and_ir_measures_backends_agree_test(dl):
    """backend='ir_measures' (every value from ir-measures) equals the fast path exactly, with a
    near-duplicate map and condensed lists in play."""
    kw = dict(duplicates_map=dl.dups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        a = system_scores(dl.qrels_judge, dl.runs, FAST, **kw)
        b = system_scores(dl.qrels_judge, dl.runs, FAST, backend="ir_measures", **kw)
    assert set(b.backends.values()) == {"ir_measures"}
    for m in a.measures:
        np.testing.assert_array_equal(a.values(m), b.values(m), err_msg=m)
    pd.testing.assert_frame_equal(a.report.details, b.report.details)


def fallback_measure_goes_to_ir_measures_test(dl):
    """RR@10 has no fast path (ir-measures uses its msmarco provider); its values equal ir-measures'."""
    assert not has_fast_path("RR@10") and has_fast_path("RR")
    s = system_scores(dl.qrels_human, dl.runs, ["RR@10", "nDCG@10"])
    assert s.backends == {"RR@10": "ir_measures", "nDCG@10": "fast"}
    g = dl.runs[dl.runs["run_id"] == "run_05"]
    ref = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.RR @ 10], dl.qrels_human,
                                                               g[["query_id", "doc_id", "score"]])}
    got = s.matrix("RR@10").loc["run_05"]
    assert max(abs(got[q] - v) for q, v in ref.items()) == 0.0
    with pytest.raises(InputError, match="no fast path for RR@10"):
        system_scores(dl.qrels_human, dl.runs, ["RR@10"], backend="fast")


def depth_pruned_path_equals_full_test(dl):
    """With cutoff measures only, rows below the deepest cutoff are never ranked (report setting
    ``depth``); the values equal those of the full ranking (the ir_measures backend ranks everything)."""
    runs = dl.runs.copy()
    # a repeated doc above the cut in one group, so that the truncated group must be ranked again in full
    first = runs[(runs["run_id"] == "run_03")].sort_values(["query_id", "rank"]).iloc[0]
    extra = first.copy()
    extra["score"] = first["score"] + 5
    runs = pd.concat([runs, extra.to_frame().T.astype(runs.dtypes.to_dict())], ignore_index=True)
    ms = ["nDCG@5", "P@3", "Judged@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        a = system_scores(dl.qrels_human, runs, ms, judged_at=(5,))
        b = system_scores(dl.qrels_human, runs, ms, judged_at=(5,), backend="ir_measures")
    assert a.report.settings["depth"] == 5 and b.report.settings["depth"] is None
    for m in ms:
        np.testing.assert_array_equal(a.values(m), b.values(m), err_msg=m)
    assert a.report.count("duplicate_doc") == 1 == b.report.count("duplicate_doc")


# --------------------------------------------------------------------------------------------
# property test: random qrels and runs, with every kind of trouble
# --------------------------------------------------------------------------------------------

DOCS = ["a", "b", "B", "c", "d10", "d2", "d#1", "é", "z", "zz", "0", "1"]
TOPICS = ["1", "10", "2", "q#3"]
# scores with ties, float32-only ties (1.0 vs 1.0 + 1e-9), signed zeros, huge values and NaN
SCORES = [1.0, 1.0 + 1e-9, 2.0, 0.0, -0.0, -1.5, 3.25, 1e300, -1e300, 7.0, 7.0, np.nan]


@st.composite
def _data(draw, few_scores=True):
    qrows = draw(st.lists(st.tuples(st.sampled_from(TOPICS[:3]), st.sampled_from(DOCS),
                                    st.sampled_from([-1, 0, 0, 1, 2, 3])), min_size=1, max_size=30))
    runs = []
    for r in range(draw(st.integers(1, 3))):
        # few distinct scores per run, so that ties are common (or many, so that rankings are deep)
        pool = SCORES if few_scores else SCORES + [round(0.37 * i, 2) for i in range(-20, 20)]
        scores = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5 if few_scores else 40))
        rows = draw(st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS), st.sampled_from(scores)),
                             min_size=1, max_size=40))
        runs += [(q, d, s, f"run{r}") for q, d, s in rows]
    return qrows, runs


def _clean_qrels(qrows):
    q = {}
    for t, d, v in qrows:
        q.setdefault(t, {})
        q[t][d] = max(v, q[t].get(d, v))
    return q


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=_data(), missing=st.sampled_from(["zero", "nan"]))
def random_data_equals_pytrec_eval_and_brute_force_test(data, missing):
    qrows, rrows = data
    qrels = _qrels(qrows)
    runs = pd.DataFrame(rrows, columns=["query_id", "doc_id", "score", "run_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        s = system_scores(qrels, runs, FAST, missing_topics=missing)
    qd = _clean_qrels(qrows)
    assert s.topics == tuple(sorted(qd)) == s.judged_topics
    assert s.systems == tuple(sorted(runs["run_id"].unique()))
    for rid, g in runs.groupby("run_id"):
        for t in s.topics:
            pairs = list(zip(g.loc[g["query_id"] == t, "doc_id"], g.loc[g["query_id"] == t, "score"]))
            ranking = _trec_order(pairs)
            for m in FAST:
                got = s.matrix(m).loc[rid, t]
                if not ranking:  # the run does not retrieve the topic (or only NaN scores)
                    assert (got == 0.0) if missing == "zero" else np.isnan(got)
                    continue
                assert got == pytest.approx(_brute(m, ranking, qd[t]), abs=1e-12), (m, rid, t)
                # trec_eval reads uninitialised memory (and can loop for minutes) when every label of a
                # topic is negative: num_rel_levels is never set in form_res_rels.c. Only the brute force then.
                ref = _pytrec(m, ranking, qd[t]) if max(qd[t].values()) >= 0 else None
                if ref is not None:
                    assert got == ref, (m, rid, t)  # bit for bit


CUTOFF_ONLY = ["nDCG@3", "P@2", "R(rel=2)@3", "Success@1", "AP@3", "Judged@2"]


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=_data(few_scores=False))
def random_data_with_a_depth_cut_equals_brute_force_test(data):
    """Cutoff measures only: rows below rank 3 are never ranked (ties at the cut, repeated ids above
    it and NaN scores in play); the values still equal the brute force on the whole ranking."""
    qrows, rrows = data
    runs = pd.DataFrame(rrows, columns=["query_id", "doc_id", "score", "run_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        s = system_scores(_qrels(qrows), runs, CUTOFF_ONLY, judged_at=(2,))
    assert s.report.settings["depth"] == 3
    qd = _clean_qrels(qrows)
    for rid, g in runs.groupby("run_id"):
        for t in s.topics:
            ranking = _trec_order(zip(g.loc[g["query_id"] == t, "doc_id"], g.loc[g["query_id"] == t, "score"]))
            for m in CUTOFF_ONLY:
                want = _brute(m, ranking, qd[t]) if ranking else 0.0
                assert s.matrix(m).loc[rid, t] == pytest.approx(want, abs=1e-12), (m, rid, t)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=_data())
def random_data_equals_ir_measures_on_raw_frames_test(data):
    """ir_measures.iter_calc on the raw frames (it sorts and breaks ties itself) gives the same values,
    once NaN rows and repeated ids are removed as documented (trec_eval cannot take them)."""
    qrows, rrows = data
    qrels = _qrels(qrows)
    runs = pd.DataFrame(rrows, columns=["query_id", "doc_id", "score", "run_id"])
    trec_measures = [m for m in FAST if not m.startswith("Judged")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        s = system_scores(qrels, runs, trec_measures)
    clean = runs.dropna(subset=["score"]).sort_values("score", ascending=False)
    clean = clean.drop_duplicates(["run_id", "query_id", "doc_id"])
    # topics whose labels are all negative are left out: trec_eval's ndcg reads uninitialised memory there
    q1 = pd.DataFrame([(t, d, v) for t, dd in _clean_qrels(qrows).items() if max(dd.values()) >= 0
                       for d, v in dd.items()], columns=["query_id", "doc_id", "relevance"])
    if not len(q1):
        return
    ms = parse_measures(trec_measures)
    for rid in s.systems:
        g = clean[clean["run_id"] == rid][["query_id", "doc_id", "score"]]
        if not len(g):
            continue
        for met in _iter_calc(ms, q1, g):
            assert s.matrix(str(met.measure)).loc[rid, met.query_id] == met.value


# --------------------------------------------------------------------------------------------
# trec_eval's ranking rules, by hand
# --------------------------------------------------------------------------------------------

def float32_ties_break_by_doc_id_descending_test():
    """1.0 and 1.0 + 1e-12 are one float32: trec_eval puts doc 'b' above 'a' (doc id descending)."""
    q = _qrels([("q", "a", 1), ("q", "b", 0)])
    r = _run([("q", "a", 1.0 + 1e-12), ("q", "b", 1.0)])
    s = system_scores(q, r, ["RR", "P@1"])
    assert s.matrix("RR").iloc[0, 0] == 0.5  # 'a' is second: RR = 1/2
    assert s.report.count("score_tie") == 1 and s.report.count("float32_tie") == 1
    # as float64 'a' would be first; pytrec_eval agrees with float32
    ev = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"recip_rank"})
    assert ev.evaluate({"q": {"a": 1.0 + 1e-12, "b": 1.0}})["q"]["recip_rank"] == 0.5


def ndcg_by_hand_test():
    """Gain = label, discount 1/log2(rank + 1), ideal from every judged label of the topic.

    Ranking c(2), x(unjudged), a(0), b(3); qrels a0 b3 c2 e1 (e not retrieved).
    DCG@10 = 2 + 3/log2(5); IDCG@10 = 3 + 2/log2(3) + 1/log2(4).
    """
    q = _qrels([("q", "a", 0), ("q", "b", 3), ("q", "c", 2), ("q", "e", 1)])
    r = _run([("q", "c", 4.0), ("q", "x", 3.0), ("q", "a", 2.0), ("q", "b", 1.0)])
    s = system_scores(q, r, ["nDCG@10", "nDCG@2", "nDCG(judged_only=True)@10", "Judged@2"])
    dcg, idcg = 2 + 3 / math.log2(5), 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert s.matrix("nDCG@10").iloc[0, 0] == pytest.approx(dcg / idcg, abs=1e-15)
    assert s.matrix("nDCG@2").iloc[0, 0] == pytest.approx(2 / (3 + 2 / math.log2(3)), abs=1e-15)
    # condensed: c, a, b -> DCG = 2 + 3/log2(4)
    assert s.matrix("nDCG(judged_only=True)@10").iloc[0, 0] == pytest.approx((2 + 3 / 2) / idcg, abs=1e-15)
    assert s.matrix("Judged@2").iloc[0, 0] == 0.5
    assert s.judged.loc["r1", "Judged@10"] == 0.75  # 3 of the 4 retrieved (fewer than 10: / 4)


def negative_labels_are_unjudged_in_the_pool_test():
    """A negative label (trec_eval: in the pool, unjudged) is never relevant, has no gain, is left out
    of the ideal ranking and dropped from condensed lists, but counts as judged for Judged@k."""
    q = _qrels([("q", "a", -1), ("q", "b", 1)])
    r = _run([("q", "a", 2.0), ("q", "b", 1.0)])
    s = system_scores(q, r, ["P(rel=0)@1", "P(judged_only=True)@1", "nDCG@10", "Judged@2"])
    assert s.matrix("P(rel=0)@1").iloc[0, 0] == 0.0
    assert s.matrix("P(judged_only=True)@1").iloc[0, 0] == 1.0
    assert s.matrix("nDCG@10").iloc[0, 0] == pytest.approx(1 / math.log2(3), abs=1e-15)
    assert s.matrix("Judged@2").iloc[0, 0] == 1.0
    assert s.report.count("negative_label") == 1


# --------------------------------------------------------------------------------------------
# the report: what was dropped, merged or noticed
# --------------------------------------------------------------------------------------------

def report_counts_every_problem_test():
    q = _qrels([("1", "a", 1), ("1", "a", 2), ("1", "b", 0), ("1", "b", 0), ("2", "c", 0)])
    r = pd.concat([
        _run([("1", "a", 3.0), ("1", "b", np.nan), ("1", "c", 2.0), ("1", "a", 1.0), ("1", "d", 2.0),
              ("9", "a", 1.0), ("9", "b", 1.0)], "r1"),
        _run([("1", "a", 1.0)], "r2"),
    ], ignore_index=True)
    r["rank"] = [1, 2, 3, 4, 5, 1, 2, 1]
    with pytest.warns(MetaevalWarning) as w:
        s = system_scores(q, r, "P@2")
    msgs = " ".join(str(x.message) for x in w)
    assert "NaN score" in msgs and "repeated doc id" in msgs and "more than once" in msgs
    rep = s.report
    assert rep.count("nan_score") == 1
    assert rep.count("duplicate_doc") == 1  # the second 'a' of r1 in topic 1
    assert rep.count("duplicate_judgment") == 2 and rep.count("conflicting_judgment") == 1
    assert rep.count("unjudged_topic") == 2 and rep.count("unjudged_topic", "r1") == 2
    assert rep.count("score_tie") == 1  # c and d at 2.0: d above c (doc id descending)
    assert rep.count("rank_order_differs") == 1  # rank says c (3) before d (5)
    assert rep.count("missing_topic") == 2  # r1 and r2 do not retrieve topic 2
    assert rep.count("topic_without_relevant") == 1  # topic 2 has only a 0
    summary = rep.to_frame()
    assert set(summary["issue"]) <= set(ISSUES)
    assert summary.set_index("issue").loc["missing_topic", "n_systems"] == 2
    assert "nan_score" in str(rep)
    # r1, topic 1: a(3.0), d(2.0), c(2.0): qrels a=2 (max of 1, 2) -> P@2 = 1/2
    assert s.matrix().loc["r1", "1"] == 0.5
    assert s.matrix().loc["r1", "2"] == 0.0 and s.matrix().loc["r2", "2"] == 0.0


def missing_topics_nan_policy_test():
    q = _qrels([("1", "a", 1), ("2", "b", 1)])
    r = _run([("1", "a", 1.0)])
    z = system_scores(q, r, "P@1")
    n = system_scores(q, r, "P@1", missing_topics="nan")
    assert z.matrix().loc["r1", "2"] == 0.0 and np.isnan(n.matrix().loc["r1", "2"])
    assert z.means()["r1"] == 0.5 and n.means()["r1"] == 1.0  # trec_eval -c vs plain trec_eval
    assert len(n.frame) == 1 and len(z.frame) == 2


def duplicates_map_merges_qrels_and_runs_test():
    """a2 duplicates a; in the qrels its label merges into a (max, conflict reported); in the run only
    the best-ranked of a and a2 stays, under the id a."""
    q = _qrels([("q", "a", 1), ("q", "a2", 3), ("q", "b", 2)])
    r = _run([("q", "a2", 3.0), ("q", "a", 2.0), ("q", "b", 1.0)])
    dups = pd.DataFrame({"doc_id": ["a2"], "canonical_doc_id": ["a"]})
    s = system_scores(q, r, ["nDCG@10", "P@2"], duplicates_map=dups)
    # ranking: a (label max(1, 3) = 3), b (2); ideal 3, 2: nDCG = 1
    assert s.matrix("nDCG@10").iloc[0, 0] == 1.0
    assert s.matrix("P@2").iloc[0, 0] == 1.0
    assert s.report.count("duplicate_merged") == 1 and s.report.count("duplicate_conflict") == 1
    assert s.report.count("duplicate_canonical") == 1 and s.report.count("duplicate_doc") == 0
    # without the map: a2 (3), a (1), b (2) -> P@2 = 1, nDCG below 1
    s0 = system_scores(q, r, ["nDCG@10"])
    assert s0.matrix().iloc[0, 0] < 1.0
    # a dict and a per-topic frame do the same
    s1 = system_scores(q, r, ["nDCG@10"], duplicates_map={"a2": "a"})
    s2 = system_scores(q, r, ["nDCG@10"], duplicates_map=dups.assign(query_id="q"))
    assert s1.matrix().iloc[0, 0] == 1.0 == s2.matrix().iloc[0, 0]


def duplicates_map_on_trec_dl_like_equals_manual_mapping_test(dl):
    """Applying the bundled dups map equals mapping the frames by hand and scoring with ir-measures."""
    dmap = dict(zip(dl.dups["doc_id"], dl.dups["canonical_doc_id"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetaevalWarning)
        s = system_scores(dl.qrels_human, dl.runs, ["nDCG@10", "AP"], duplicates_map=dl.dups)
    q = dl.qrels_human.assign(doc_id=dl.qrels_human["doc_id"].map(lambda d: dmap.get(d, d)))
    q = q.groupby(["query_id", "doc_id"], as_index=False)["relevance"].max()
    runs = dl.runs.assign(doc_id=dl.runs["doc_id"].map(lambda d: dmap.get(d, d)))
    runs = runs.assign(f=runs["score"].astype(np.float32)).sort_values(["f", "doc_id"], ascending=False)
    runs = runs.drop_duplicates(["run_id", "query_id", "doc_id"])
    ms = parse_measures(["nDCG@10", "AP"])
    worst = 0.0
    for rid, g in runs.groupby("run_id"):
        for met in _iter_calc(ms, q, g[["query_id", "doc_id", "score"]]):
            worst = max(worst, abs(s.matrix(str(met.measure)).loc[rid, met.query_id] - met.value))
    assert worst == 0.0
    assert s.report.count("duplicate_merged") > 0
    # 140 duplicates: every qrels row of a duplicate merges into its canonical doc
    assert s.report.count("duplicate_merged") == len(dl.dups)


def duplicates_map_cycle_and_conflict_are_errors_test():
    q = _qrels([("q", "a", 1)])
    r = _run([("q", "a", 1.0)])
    with pytest.raises(InputError, match="cycle"):
        system_scores(q, r, duplicates_map={"a": "b", "b": "a"})
    with pytest.raises(InputError, match="several canonical"):
        system_scores(q, r, duplicates_map=pd.DataFrame({"doc_id": ["a", "a"], "canonical_doc_id": ["b", "c"]}))


# --------------------------------------------------------------------------------------------
# topic sets
# --------------------------------------------------------------------------------------------

def topic_set_policies_test():
    cand = _qrels([("1", "a", 1), ("2", "a", 1), ("3", "a", 1)])
    ref = _qrels([("2", "a", 1), ("3", "a", 1), ("4", "a", 1)])
    r = _run([("1", "a", 1.0), ("2", "a", 1.0), ("4", "a", 1.0)])
    own = system_scores(cand, r, "P@1", topics="own", reference_qrels=ref)
    inter = system_scores(cand, r, "P@1", reference_qrels=ref)
    refp = system_scores(cand, r, "P@1", topics="reference", reference_qrels=ref)
    lst = system_scores(cand, r, "P@1", topics=["3", "1"])
    assert own.topics == ("1", "2", "3") and own.judged_topics == ("1", "2", "3")
    assert inter.topics == ("2", "3")
    assert inter.report.count("topic_excluded") == 1 and inter.report.count("excluded_topic") == 1
    assert refp.topics == ("2", "3", "4")
    assert np.isnan(refp.matrix().loc["r1", "4"]) and refp.report.count("topic_not_judged") == 1
    assert refp.report.count("unjudged_topic") == 1  # the run's rows for topic 4 (and 1)... topic 4 only
    assert lst.topics == ("1", "3")
    assert inter.matrix().loc["r1"].tolist() == [1.0, 0.0]
    # matrix() restricted to a topic list (what a comparison of two qrels sets does)
    common = sorted(set(own.topics) & set(refp.topics))
    assert own.matrix(topics=common).columns.tolist() == common
    with pytest.raises(InputError, match="not in this topic set"):
        inter.matrix(topics=["1"])
    with pytest.raises(InputError, match="needs reference_qrels"):
        system_scores(cand, r, "P@1", topics="reference")
    with pytest.raises(InputError, match="topics="):
        system_scores(cand, r, "P@1", topics="everything")


# --------------------------------------------------------------------------------------------
# inputs, measures, the result object
# --------------------------------------------------------------------------------------------

def measures_parse_as_ir_measures_values_test():
    ms = parse_measures(["nDCG@10", "map", "P_10", "ndcg_cut_10", ir_measures.AP(rel=2), "recip_rank"])
    assert [str(m) for m in ms] == ["nDCG@10", "AP", "P@10", "AP(rel=2)", "RR"]  # duplicates removed
    with pytest.raises(InputError, match="unknown measure"):
        parse_measures("nDCG@ten")
    with pytest.raises(InputError, match="invalid measure"):
        parse_measures("P@10.5")
    with pytest.raises(InputError, match="no measures"):
        parse_measures([])


def judged_only_flag_rewrites_measures_test(dl):
    s = system_scores(dl.qrels_human, dl.runs, ["nDCG@10", "Judged@10"], judged_only=True)
    assert s.measures == ("nDCG(judged_only=True)@10", "Judged@10")
    # the name asked for still works, and equals the explicit measure
    t = system_scores(dl.qrels_human, dl.runs, ["nDCG(judged_only=True)@10"])
    np.testing.assert_array_equal(s.values("nDCG@10"), t.values("nDCG(judged_only=True)@10"))
    # condensed lists score at least as well here (unjudged docs only push judged ones down)
    assert (s.means("nDCG@10") >= system_scores(dl.qrels_human, dl.runs).means() - 1e-12).all()


def result_object_views_test(dl):
    s = system_scores(dl.qrels_human, dl.runs, ["nDCG@10", "P@10"])
    f = s.frame
    assert list(f.columns) == ["system", "query_id", "measure", "value"]
    assert len(f) == 2 * 30 * 40 and f["query_id"].dtype == "str"
    M = s.matrix("nDCG@10")
    assert list(M.index) == sorted(M.index) and list(M.columns) == sorted(M.columns)
    piv = f[f["measure"] == "nDCG@10"].pivot(index="system", columns="query_id", values="value")
    pd.testing.assert_frame_equal(M, piv, check_names=False, check_index_type=False, check_column_type=False)
    assert s.means("nDCG@10")["run_01"] == pytest.approx(M.loc["run_01"].mean(), abs=1e-15)
    assert list(s.judged.columns) == ["Judged@10", "Judged@100"]
    # README of data_samples: 1.8%-7.5% of a run's top 10 is unjudged
    assert s.judged["Judged@10"].between(1 - 0.08, 1 - 0.015).all()
    sub = s.subset(topics=list(s.topics[:5]), systems=["run_01", "run_02"])
    assert sub.matrix("P@10").shape == (2, 5)
    with pytest.raises(InputError, match="several measures"):
        s.matrix()
    with pytest.raises(InputError, match="no scores for measure"):
        s.matrix("AP")
    assert "30 systems x 40 topics" in repr(s)


def inputs_from_paths_dicts_and_plain_frames_test(dl, tmp_path):
    folder = metaeval.datasets.path("trec_dl_like")
    a = system_scores(folder / "qrels.human.txt", folder / "runs", "nDCG@10")
    b = system_scores(dl.qrels_human, {rid: g.drop(columns="run_id") for rid, g in dl.runs.groupby("run_id")},
                      "nDCG@10")
    np.testing.assert_array_equal(a.values(), b.values())
    # a frame without run_id is one run; ids given as numbers become strings
    one = dl.runs[dl.runs["run_id"] == "run_01"].drop(columns=["run_id", "rank"])
    c = system_scores(dl.qrels_human, one, "nDCG@10")
    assert c.systems == ("run",)
    np.testing.assert_array_equal(c.values(), a.values(systems=["run_01"]))
    qn = pd.DataFrame({"query_id": [1, 1], "doc_id": [10, 11], "relevance": [1, 0]})
    rn = pd.DataFrame({"query_id": [1, 1], "doc_id": [11, 10], "score": [2.0, 1.0]})
    assert system_scores(qn, rn, "RR").matrix().loc["run", "1"] == 0.5
    # the caller's frame is not reordered or changed
    before = dl.runs.copy()
    system_scores(dl.qrels_human, dl.runs.iloc[::-1], "AP")
    pd.testing.assert_frame_equal(before, dl.runs)


def bad_inputs_raise_input_errors_test(dl):
    with pytest.raises(InputError, match="lacks column"):
        system_scores(dl.qrels_human.drop(columns="relevance"), dl.runs)
    with pytest.raises(InputError, match="lacks column"):
        system_scores(dl.qrels_human, dl.runs.drop(columns="score"))
    with pytest.raises(InputError, match="score is not a number"):
        system_scores(dl.qrels_human, dl.runs.assign(score="high"))
    with pytest.raises(InputError, match="backend"):
        system_scores(dl.qrels_human, dl.runs, backend="trec_eval")
    with pytest.raises(InputError, match="missing_topics"):
        system_scores(dl.qrels_human, dl.runs, missing_topics="drop")
    with pytest.raises(InputError, match="empty id"):
        system_scores(dl.qrels_human, dl.runs.assign(doc_id=None))
    with pytest.raises(InputError, match="judged_at"):
        system_scores(dl.qrels_human, dl.runs, judged_at=(0,))
    with pytest.raises(InputError, match="topic set is empty"):
        system_scores(dl.qrels_human, dl.runs, topics=[])


# --------------------------------------------------------------------------------------------
# precomputed per-query scores
# --------------------------------------------------------------------------------------------

def scores_from_table_round_trip_test(dl):
    s = system_scores(dl.qrels_human, dl.runs, ["nDCG@10", "AP"])
    t = scores_from_table(s.frame)
    assert isinstance(t, SystemScores) and t.measures == s.measures and t.backends["AP"] == "table"
    for m in s.measures:
        np.testing.assert_array_equal(t.values(m), s.values(m))
    # trec_eval -q names become ir-measures names; the old names still work
    trec = s.frame.replace({"measure": {"nDCG@10": "ndcg_cut_10", "AP": "map"}}).rename(
        columns={"system": "run_id", "query_id": "qid", "measure": "metric"})
    u = scores_from_table(trec, measures=["nDCG@10"])
    assert u.measures == ("nDCG@10",)
    np.testing.assert_array_equal(u.values("ndcg_cut_10"), s.values("nDCG@10"))


def scores_from_table_trec_eval_file_test(tmp_path):
    p = tmp_path / "run.q.txt"
    p.write_text("runid\tall\tmyrun\nndcg_cut_10\t1\t0.5000\nndcg_cut_10\t2\t0.2500\n"
                 "map\t1\t0.1000\nndcg_cut_10\tall\t0.3750\n")
    s = scores_from_table(p)
    assert s.systems == ("myrun",) and s.topics == ("1", "2")
    assert s.matrix("nDCG@10").loc["myrun"].tolist() == [0.5, 0.25]
    assert np.isnan(s.matrix("AP").loc["myrun", "2"])
    assert s.report.count("missing_cell") == 1 and s.report.count("all_rows") == 1


def scores_from_table_sources_and_conflicts_test():
    tab = pd.DataFrame({"system": ["s"] * 4, "query_id": ["1", "2", "1", "2"], "measure": ["map"] * 4,
                        "value": [0.1, 0.2, 0.3, 0.4], "qrels_source": ["human", "human", "llm", "llm"]})
    with pytest.raises(InputError, match="qrels sources"):
        scores_from_table(tab)
    s = scores_from_table(tab, qrels_source="llm")
    assert s.matrix("AP").loc["s"].tolist() == [0.3, 0.4] and s.report.count("filtered_rows") == 2
    with pytest.raises(InputError, match="not in the table"):
        scores_from_table(tab, qrels_source="gpt")
    with pytest.raises(InputError, match="several different values"):
        scores_from_table(tab.drop(columns="qrels_source"))
    same = pd.concat([tab[:2], tab[:2]]).drop(columns="qrels_source")
    assert scores_from_table(same).report.count("duplicate_row") == 2
    with pytest.raises(InputError, match="no qrels_source column"):
        scores_from_table(same, qrels_source="human")


def ir_measures_backend_is_immune_to_the_gains_mix_up_test(tmp_path):
    """ir-measures 0.4.3 gives nDCG@10 the value of nDCG(gains=...)@10 (or 0 to the latter) when both
    are asked in one call, depending on the hash seed (PYTHONHASHSEED=1 shows it with these two
    measures). backend='ir_measures' asks for each nDCG separately, so it still equals the fast path
    in processes with any of these seeds."""
    import subprocess
    import sys

    code = (
        "import numpy as np, metaeval\n"
        "from metaeval.systems.evaluation import system_scores\n"
        "d = metaeval.datasets.load('trec_dl_like')\n"
        "ms = ['nDCG@10', 'nDCG(gains={0:0,1:1,2:3,3:7})@10']\n"
        "a = system_scores(d.qrels_human, d.runs, ms)\n"
        "b = system_scores(d.qrels_human, d.runs, ms, backend='ir_measures')\n"
        "print(all(np.array_equal(a.values(m), b.values(m)) for m in a.measures))\n")
    for seed in ("1", "2", "3"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                             env={**__import__("os").environ, "PYTHONHASHSEED": seed})
        assert out.stdout.strip() == "True", (seed, out.stderr[-500:])
