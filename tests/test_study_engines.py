"""A study's `pair` data set with `engine = "duckdb"`: the same agreement table as the pandas engine (#11)."""

from pathlib import Path

import pandas as pd

import metaeval as me

D = me.datasets.path("trec_dl_like")


def _study(engine):
    return {
        "title": "engines", "seed": 7, "n_resamples": 300,
        "data": {"trec": {"kind": "pair", "reference": str(D / "qrels.human.txt"),
                          "candidate": str(D / "qrels.judge.txt"), "scale": [0, 1, 2, 3],
                          "names": ["human", "judge"], "engine": engine}},
        "analysis": [{"type": "agreement", "name": "kappa", "data": "trec", "cluster": "query_id"}],
    }


def _table(out: Path) -> pd.DataFrame:
    csvs = sorted(out.rglob("*.csv"))
    assert csvs, f"no table written in {out}"
    return pd.concat([pd.read_csv(p) for p in csvs if "kappa" in p.name], ignore_index=True)


def test_study_pair_duckdb_equals_pandas(tmp_path):
    # the pandas engine is the reference: the same per-topic tables and seed give the same numbers
    me.run_study(_study("pandas"), tmp_path / "pandas")
    me.run_study(_study("duckdb"), tmp_path / "duckdb")
    a, b = _table(tmp_path / "pandas"), _table(tmp_path / "duckdb")
    assert len(a) > 0
    pd.testing.assert_frame_equal(a, b)


def test_study_rejects_an_unknown_engine(tmp_path):
    import pytest

    with pytest.raises(me.InputError, match="engine"):
        me.run_study(_study("polars"), tmp_path / "x")
