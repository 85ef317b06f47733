"""The CLI's --engine: the same accounting and the same agreement table from every engine (#11)."""

import pytest

import metaeval as me
from metaeval.cli import main

D = me.datasets.path("trec_dl_like")


def _agree(capsys, engine, *extra):
    assert main(["agree", str(D / "qrels.human.txt"), str(D / "qrels.judge.txt"), "--cluster", "query_id",
                 "--n-resamples", "300", "--format", "csv", "--engine", engine, *extra]) == 0
    return capsys.readouterr().out


def test_agree_duckdb_equals_pandas(capsys):
    # the pandas engine is the reference: same pairs, same per-topic tables, same seed -> same table
    pandas_out = _agree(capsys, "pandas")
    duck_out = _agree(capsys, "duckdb")
    assert duck_out == pandas_out
    assert "cohen_kappa," in duck_out and "clusters" in duck_out


def test_align_duckdb_prints_the_same_accounting(capsys):
    outs = []
    for engine in ("pandas", "duckdb"):
        assert main(["align", str(D / "qrels.human.txt"), str(D / "qrels.judge.txt"), "--engine", engine]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert "unmatched                      3" in outs[0]      # the sample's 3 reference-only rows


def test_agree_unknown_cluster_column_is_one_line_in_cli_syntax(capsys):
    assert main(["agree", str(D / "qrels.human.txt"), str(D / "qrels.judge.txt"), "--cluster", "topic",
                 "--engine", "duckdb"]) == 2
    err = capsys.readouterr().err
    assert "no column 'topic'" in err and "Fix: --cluster query_id" in err and err.count("\n") == 1


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_agree_missing_file_is_one_line(capsys, tmp_path, engine):
    assert main(["agree", str(tmp_path / "nope.parquet"), str(D / "qrels.judge.txt"), "--engine", engine]) == 2
    err = capsys.readouterr().err
    assert "nope.parquet" in err and err.count("\n") == 1
