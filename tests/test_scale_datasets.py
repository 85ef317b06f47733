"""Scales and the bundled sample data."""

import numpy as np
import pytest

import metaeval as me
from metaeval import datasets


def scale_binarize_and_codes_test():
    s = me.Scale((0, 1, 2, 3))
    assert s.thresholds() == [1, 2, 3]
    b = s.binarize(2)
    assert b.levels == (0, 1) and b.map([0, 1, 2, 3, np.nan])[:4].tolist() == [0, 0, 1, 1]
    assert np.isnan(b.map([np.nan])[0])
    assert s.codes([3, 0, 5, np.nan]).tolist() == [3, 0, -1, -1]
    assert s.out_of_scale([0, 5, np.nan, 10]).tolist() == [False, True, False, True]
    assert s.clip([5, -1]).tolist() == [3, 0]
    m = s.merge({0: 0, 1: 0, 2: 1, 3: 2})
    assert m.levels == (0, 1, 2) and m.map([1, 3]).tolist() == [0, 2]
    with pytest.raises(ValueError):
        me.Scale((0,))
    with pytest.raises(ValueError):
        me.Scale((2, 1), kind="ordinal")
    with pytest.raises(ValueError):
        s.binarize(0)


def datasets_load_every_set_test():
    assert sorted(datasets.names()) == ["battles_like", "imageclef_like", "rubric_like", "trec_dl_like"]
    d = datasets.load("trec_dl_like")
    # sizes from data_samples/README.md
    assert len(d.qrels_human) == 7734 and d.qrels_human["query_id"].nunique() == 40
    assert d.runs["run_id"].nunique() == 30 and len(d.runs) == 120_000
    assert d.qrels_human["doc_id"].str.contains("#").sum() > 0
    v = datasets.load("imageclef_like").validation
    assert len(v) == 202 and int(v["human"].sum()) == 97
    t = me.contingency(v["human"], v["judge"])
    assert t.tolist() == [[85, 20], [20, 77]]
    e = datasets.load("imageclef_like").expansion
    assert len(e) == 50_000 and int(e["judge"].sum()) == 535
    s = datasets.load("rubric_like").scores
    assert set(s["rater"]) == {"human", "judge"} and s["score"].between(1, 5).all()
    b = datasets.load("battles_like").battles
    assert set(b["outcome"]) <= set(__import__("metaeval.data.io", fromlist=["OUTCOMES"]).OUTCOMES)
    with pytest.raises(me.InputError):
        datasets.load("nope")


def sample_generator_is_deterministic_test():
    import importlib
    gen = importlib.import_module("metaeval.data_samples.make_samples")
    rng1 = np.random.default_rng(20240613)
    rng2 = np.random.default_rng(20240613)
    a = gen.make_rubric_like(rng1)
    b = gen.make_rubric_like(rng2)
    for k in a:
        assert a[k].equals(b[k])
