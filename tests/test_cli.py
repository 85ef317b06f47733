"""The command line: thin wrappers; bad input prints one line and exits with status 2."""

import subprocess
import sys

import pytest

from metaeval import datasets
from metaeval.cli import main


def inspect_qrels_test(capsys):
    p = datasets.path("trec_dl_like") / "qrels.judge.txt"
    assert main(["inspect", str(p), "--scale", "0,1,2"]) == 0
    out = capsys.readouterr().out
    assert "kind: qrels" in out and "rows: 7731" in out
    # the judge file uses level 3, which a declared 0-2 scale does not hold: reported as a problem
    assert "labels outside the scale (0, 1, 2)" in out


def inspect_reports_ties_and_invalid_outcomes_test(capsys):
    assert main(["inspect", str(datasets.path("trec_dl_like") / "runs" / "run_07.txt.gz")]) == 0
    assert "18 tied score(s)" in capsys.readouterr().out
    assert main(["inspect", str(datasets.path("battles_like") / "battles.csv")]) == 0
    out = capsys.readouterr().out
    assert "kind: battles" in out and "8 invalid outcome(s)" in out


def align_prints_report_test(capsys):
    f = datasets.path("trec_dl_like")
    assert main(["align", str(f / "qrels.human.txt"), str(f / "qrels.judge.txt"), "--scale", "0,1,2,3"]) == 0
    out = capsys.readouterr().out
    assert "Alignment: 7731 pairs" in out and "unmatched" in out


def bad_input_exits_2_with_one_line_test(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 0 d1 1\nq1 0 d2 x\n")
    assert main(["inspect", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.txt, line 2" in err and "relevance" in err
    assert main(["align", str(bad), str(bad)]) == 2
    assert main(["inspect", str(tmp_path / "missing.txt")]) == 2


def console_script_runs_test():
    r = subprocess.run([sys.executable, "-m", "metaeval.cli", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "inspect" in r.stdout and "demo" in r.stdout
    with pytest.raises(SystemExit):
        main(["nonsense"])
