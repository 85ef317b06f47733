"""Alignment: every input row is accounted for (property-tested), and each policy does what it says."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metaeval as me
from metaeval.data.alignment import FATES


def _qrels(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def _sums_match(p, ref, cand):
    f = p.report.to_frame()
    got = f.groupby("side")["count"].sum().to_dict()
    return got == {p.names[0]: len(ref), p.names[1]: len(cand)}


# --- property: fates add up to the input rows, for every policy -----------------------------

row = st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["d1", "d2", "d3", "d#4"]),
                st.one_of(st.sampled_from([0, 1, 2, 3, 5, -1]), st.just(np.nan)))


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(ref=st.lists(row, max_size=25), cand=st.lists(row, max_size=25),
       dup=st.sampled_from(["first", "last", "majority", "mean"]),
       oos=st.sampled_from(["clip", "drop", "missing"]),
       unj=st.sampled_from(["drop", "keep", 0]),
       refusals=st.sampled_from(["keep", "drop", 0]))
def fates_add_up_to_input_rows_test(ref, cand, dup, oos, unj, refusals):
    r, c = _qrels(ref), _qrels(cand)
    p = me.align(r, c, scale=me.Scale((0, 1, 2, 3)), duplicates=dup, out_of_scale=oos, unjudged=unj,
                 refusal_value=-1, refusals=refusals)
    assert _sums_match(p, r, c)
    f = p.report.to_frame()
    assert set(f["category"]) <= set(FATES)
    matched = f[(f["category"] == "matched")].set_index("side")["count"]
    # one pair per matched key (one representative row per side), plus filled unjudged items
    n_filled = p.report.counts.get(("reference", "unjudged_filled"), 0)
    assert matched["reference"] == matched["candidate"]
    assert len(p) == matched["candidate"] + n_filled
    keys_r = set(map(tuple, r.dropna(subset=["relevance"])[["query_id", "doc_id"]].to_numpy()))
    keys_c = set(map(tuple, c.dropna(subset=["relevance"])[["query_id", "doc_id"]].to_numpy()))
    paired_keys = set(map(tuple, p.data[["query_id", "doc_id"]].to_numpy()))
    assert len(paired_keys) == len(p)  # no key twice
    if oos == "clip" and refusals == "keep":
        # every key labelled on both sides is paired
        assert keys_r & keys_c <= paired_keys
    # labels in the pairs are in the scale, and never NaN
    if dup != "mean":
        assert np.isin(p.data[["reference", "candidate"]], [0, 1, 2, 3]).all()
    assert not p.data[["reference", "candidate"]].isna().any().any()


# --- each policy, on hand-made data ---------------------------------------------------------

def unmatched_and_unjudged_test():
    ref = _qrels([("1", "a", 0), ("1", "b", 2), ("2", "a", 3)])
    cand = _qrels([("1", "a", 1), ("1", "b", 2), ("9", "z", 1)])
    p = me.align(ref, cand)
    assert len(p) == 2
    assert p.report.counts[("reference", "unmatched")] == 1
    assert p.report.counts[("candidate", "unmatched")] == 1
    p = me.align(ref, cand, unjudged="keep")
    assert p.report.counts[("reference", "unjudged")] == 1 and len(p.unjudged) == 1
    assert p.unjudged["doc_id"].tolist() == ["a"] and p.unjudged["reference"].tolist() == [3.0]
    p = me.align(ref, cand, unjudged=0)
    assert len(p) == 3 and p.report.counts[("reference", "unjudged_filled")] == 1
    assert p.data.set_index(["query_id", "doc_id"]).loc[("2", "a"), "candidate"] == 0


def duplicates_policies_test():
    ref = _qrels([("1", "a", 0), ("1", "a", 0), ("1", "b", 1), ("1", "b", 3), ("1", "b", 3)])
    cand = _qrels([("1", "a", 1), ("1", "b", 2)])
    with pytest.raises(me.InputError) as e:
        me.align(ref, cand)
    assert "line" in str(e.value) and "duplicates=" in str(e.value)
    for policy, expect in [("first", 1), ("last", 3), ("majority", 3), ("mean", 7 / 3)]:
        p = me.align(ref, cand, duplicates=policy)
        got = p.data.set_index("doc_id").loc["b", "reference"]
        assert got == pytest.approx(expect), policy
        assert p.report.counts[("reference", "duplicate_identical")] == 1
        assert p.report.counts[("reference", "duplicate_conflict")] == 2
        assert _sums_match(p, ref, cand)
    assert len(me.align(ref, cand, duplicates="first").report.conflicts) == 1


def majority_tie_goes_to_earliest_test():
    ref = _qrels([("1", "a", 2), ("1", "a", 1), ("1", "a", 1), ("1", "a", 2)])
    cand = _qrels([("1", "a", 1)])
    assert me.align(ref, cand, duplicates="majority").data["reference"].tolist() == [2.0]


def out_of_scale_policies_test():
    ref = _qrels([("1", "a", 0), ("1", "b", 2), ("1", "c", 3)])
    cand = _qrels([("1", "a", 5), ("1", "b", 10), ("1", "c", 3)])
    s = me.Scale((0, 1, 2, 3))
    with pytest.raises(me.InputError, match=r"outside the scale.*5 \(x1\), 10 \(x1\)"):
        me.align(ref, cand, scale=s)
    p = me.align(ref, cand, scale=s, out_of_scale="clip")
    assert p.candidate.tolist() == [3, 3, 3]
    assert p.report.notes[("candidate", "out-of-scale labels clipped")] == 2
    assert p.report.out_of_scale[["value", "count"]].to_numpy().tolist() == [[5, 1], [10, 1]]
    p = me.align(ref, cand, scale=s, out_of_scale="drop")
    assert len(p) == 1 and p.report.counts[("candidate", "out_of_scale_dropped")] == 2
    p = me.align(ref, cand, scale=s, out_of_scale="missing", unjudged="keep")
    assert p.report.counts[("candidate", "out_of_scale_missing")] == 2
    assert p.report.counts[("reference", "unjudged")] == 2


def refusals_test():
    ref = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"), "relevance": [1, 0, 1, 0]})
    cand = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"), "relevance": [1, 0, 0, 0],
                         "refused": [0, 0, 1, "true"]})
    p = me.align(ref, cand, refusal_flag="refused")
    assert len(p) == 4 and p.report.notes[("candidate", "refusals kept as recorded")] == 2
    p = me.align(ref, cand, refusal_flag="refused", refusals="drop")
    assert len(p) == 2 and p.report.counts[("candidate", "refusal_dropped")] == 2
    p = me.align(ref, cand, refusal_flag="refused", refusals=1)
    assert p.candidate.tolist() == [1, 0, 1, 1]
    with pytest.raises(me.InputError, match="refusal flag"):
        me.align(ref, cand, refusal_flag="nope")


def missing_labels_and_keys_test():
    ref = pd.DataFrame({"query_id": ["1", "1", None], "doc_id": ["a", "b", "c"], "relevance": [1, np.nan, 2]})
    cand = _qrels([("1", "a", 1), ("1", "b", 1)])
    p = me.align(ref, cand)
    assert p.report.counts[("reference", "missing_label")] == 1
    assert p.report.counts[("reference", "missing_key")] == 1
    assert p.report.counts[("candidate", "unmatched")] == 1
    assert _sums_match(p, ref, cand)


def metadata_kept_and_report_prints_test():
    ref = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 2], "length": [10, 20]})
    cand = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["b", "a"], "relevance": [2, 0], "length": [99, 98],
                         "model": ["m", "m"]})
    p = me.align(ref, cand, names=("human", "judge"))
    assert p.data["length"].tolist() == [10, 20]          # reference order, reference metadata
    assert p.data["length_judge"].tolist() == [98, 99]    # candidate metadata, suffixed on collision
    assert p.data["model"].tolist() == ["m", "m"]
    text = str(p.report)
    assert "human" in text and "judge" in text and "matched" in text


def align_from_files_test(tmp_path):
    (tmp_path / "h.txt").write_text("q1 0 msmarco_v2.1_doc_1#2_3 2\nq1 0 d2 0\n")
    (tmp_path / "j.txt").write_text("q1 0 msmarco_v2.1_doc_1#2_3 3\nq1 0 d2 1\nq1 0 d2 1\n")
    p = me.align(tmp_path / "h.txt", tmp_path / "j.txt")
    assert len(p) == 2 and p.report.counts[("candidate", "duplicate_identical")] == 1
    assert p.data["doc_id"].tolist() == ["msmarco_v2.1_doc_1#2_3", "d2"]
    assert p.table().tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    (tmp_path / "j.csv").write_text("query_id,doc_id,relevance\nq1,d2,x\n")
    with pytest.raises(me.InputError, match=r"j.csv, line 2"):
        me.align(tmp_path / "h.txt", tmp_path / "j.csv")


def paired_table_and_binarize_test():
    ref = _qrels([("1", "a", 0), ("1", "b", 1), ("2", "c", 2), ("2", "d", 3)])
    cand = _qrels([("1", "a", 0), ("1", "b", 2), ("2", "c", 2), ("2", "d", 1)])
    p = me.align(ref, cand, scale=me.Scale((0, 1, 2, 3)))
    t = p.table()
    assert t.shape == (4, 4) and t.sum() == 4 and t[1, 2] == 1 and t[3, 1] == 1
    assert p.table(cluster="query_id").shape == (2, 4, 4)
    b = p.binarize(2)
    assert b.reference.tolist() == [0, 0, 1, 1] and b.candidate.tolist() == [0, 1, 1, 0]
    assert b.table().tolist() == [[1, 1], [1, 1]]


def paired_table_matches_sklearn_test():
    """Paired.table (metaeval.contingency) equals sklearn.metrics.confusion_matrix, pooled and per topic."""
    from sklearn.metrics import confusion_matrix

    d = me.datasets.load("trec_dl_like")
    p = me.align(d.qrels_human, d.qrels_judge, scale=me.Scale((0, 1, 2, 3)))
    levels = [0, 1, 2, 3]
    np.testing.assert_array_equal(p.table(), confusion_matrix(p.reference, p.candidate, labels=levels))
    per = p.table(cluster="query_id")
    topics = sorted(p.data["query_id"].unique())
    for t in (0, 17, len(topics) - 1):
        sel = (p.data["query_id"] == topics[t]).to_numpy()
        np.testing.assert_array_equal(per[t], confusion_matrix(p.reference[sel], p.candidate[sel], labels=levels))
    np.testing.assert_array_equal(per.sum(axis=0), p.table())
    # binarized at 2 (UMBRELA's relevant = 2 or 3)
    b = p.binarize(2)
    np.testing.assert_array_equal(b.table(), confusion_matrix(p.reference >= 2, p.candidate >= 2, labels=[False, True]))


def bad_arguments_test():
    ref = _qrels([("1", "a", 0)])
    with pytest.raises(ValueError):
        me.align(ref, ref, duplicates="any")
    with pytest.raises(ValueError):
        me.align(ref, ref, out_of_scale="ignore")
    with pytest.raises(me.InputError, match="no key column"):
        me.align(ref, ref, on=("topic", "doc_id"))


def agreement_by_groups_and_warns_on_small_groups_test():
    # per-topic kappa equals cohen_kappa on that topic's pairs (a property of the grouping);
    # a 3-pair topic and a one-class topic are named in the SmallSampleWarning
    rng = np.random.default_rng(3)
    rows_r, rows_c = [], []
    for q, n in (("big", 200), ("tiny", 3)):
        x = rng.integers(0, 2, n)
        y = np.where(rng.random(n) < 0.8, x, 1 - x)
        rows_r += [(q, f"d{i}", int(v)) for i, v in enumerate(x)]
        rows_c += [(q, f"d{i}", int(v)) for i, v in enumerate(y)]
    rows_r += [("flat", f"d{i}", 1) for i in range(40)]
    rows_c += [("flat", f"d{i}", 1) for i in range(40)]
    p = me.align(_qrels(rows_r), _qrels(rows_c))
    with pytest.warns(me.SmallSampleWarning, match=r"tiny \(n=3\).*|flat \(n=40, one class\)"):
        f = me.agreement_by(p, "query_id", n_resamples=200, rng=0)
    assert list(f.columns[:2]) == ["query_id", "statistic"]
    big = f[(f["query_id"] == "big") & (f["statistic"] == "cohen_kappa")]["estimate"].item()
    sub = p.subset(p.data["query_id"].to_numpy() == "big")
    assert big == pytest.approx(me.cohen_kappa(sub, ci_method="analytic").estimate, abs=1e-12)
    assert np.isnan(f[(f["query_id"] == "flat") & (f["statistic"] == "cohen_kappa")]["estimate"].item())


def refusals_true_is_refused_by_every_engine_test():
    # align and the SQL plan now share one set of argument checks (engines.plan.check_policies);
    # before, align took refusals=True as the label 1 while the DuckDB and Spark engines refused it
    ref = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    for engine in ("pandas", "duckdb"):
        with pytest.raises(ValueError, match="refusals must be"):
            me.align(ref, ref, refusals=True, engine=engine)
