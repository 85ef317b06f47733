"""The command line in a pipeline: stdout holds the requested format alone (#20 finding 3).

``metaeval agree --format json > f.json`` must write valid JSON and ``--format csv`` a valid CSV;
the alignment accounting and the engine go to stderr (and into the JSON document); the p-value of
kappa = 0 is the one the statistic's own function reports, checked against statsmodels'
``cohens_kappa(...).pvalue_two_sided`` (the z-test with the variance under H0, Fleiss, Cohen &
Everitt 1969). ``metaeval report`` prints where report.tex (and with --pdf report.pdf) is.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import metaeval as me
from metaeval.cli import compile_pdf, main
from metaeval.core.results import FRAME_COLUMNS

TREC = me.datasets.path("trec_dl_like")
HUMAN, JUDGE = str(TREC / "qrels.human.txt"), str(TREC / "qrels.judge.txt")
ROOT = Path(__file__).resolve().parents[1]


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def agree_json_on_stdout_parses_test(engine):
    # a real process: nothing else (progress, warnings, the accounting) may reach stdout
    r = subprocess.run([sys.executable, "-m", "metaeval.cli", "agree", HUMAN, JUDGE, "--scale", "0,1,2,3",
                        "--cluster", "query_id", "--n-resamples", "100", "--seed", "7", "--engine", engine,
                        "--format", "json"], capture_output=True, text=True, env=_env(), timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["engine"] == engine
    assert doc["alignment"]["pairs"] == 7731
    ref = doc["alignment"]["sides"]["reference"]
    assert ref["rows"] == 7734 and ref["fates"] == {"matched": 7731, "unmatched": 3}
    assert sum(ref["fates"].values()) == ref["rows"]                       # the accounting identity
    # the results equal the library's, p-values included
    paired = me.align(HUMAN, JUDGE, scale=me.Scale((0, 1, 2, 3)))
    lib = me.agreement_report(paired, cluster="query_id", n_resamples=100, rng=7).to_frame()
    got = pd.DataFrame(doc["results"])
    assert list(got.columns) == FRAME_COLUMNS
    assert list(got["statistic"]) == list(lib["statistic"])
    pd.testing.assert_series_equal(got["estimate"], lib["estimate"].astype(float), rtol=1e-12)
    pd.testing.assert_series_equal(got["ci_high"], lib["ci_high"].astype(float), rtol=1e-12)
    kappa = got.set_index("statistic").loc["cohen_kappa"]
    own = me.cohen_kappa(paired, cluster="query_id", n_resamples=100, rng=7)
    assert kappa["pvalue"] is not None and kappa["pvalue"] == pytest.approx(own.pvalue, abs=1e-15)
    # stderr: the accounting line with the engine
    assert f"aligned 7731 pairs by the {engine} engine: reference " in r.stderr
    assert "7734 rows (7731 matched, 3 unmatched)" in r.stderr


@pytest.fixture
def small_files(tmp_path):
    """120 pairs of the sample (kappa ≈ 0.37), so that the z-test's p-value is not 0 in floating point."""
    paired = me.align(HUMAN, JUDGE, scale=me.Scale((0, 1, 2, 3)))
    sub = paired.data.iloc[:120]
    h, j = tmp_path / "h.txt", tmp_path / "j.txt"
    for path, col in ((h, "reference"), (j, "candidate")):
        path.write_text("".join(f"{q} 0 {d} {v}\n" for q, d, v in zip(sub.query_id, sub.doc_id, sub[col])))
    table = pd.crosstab(sub.reference, sub.candidate).reindex(index=range(4), columns=range(4), fill_value=0)
    return str(h), str(j), table.to_numpy()


def agree_csv_parses_and_carries_the_pvalues_test(small_files, capsys):
    from statsmodels.stats.inter_rater import cohens_kappa

    h, j, table = small_files
    assert main(["agree", h, j, "--scale", "0,1,2,3", "--n-resamples", "200", "--seed", "3", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    got = pd.read_csv(io.StringIO(captured.out)).set_index("statistic")      # stdout is the CSV alone
    assert captured.out.splitlines()[0] == ",".join(FRAME_COLUMNS)
    assert captured.err.startswith("aligned 120 pairs by the pandas engine: reference ")
    # items resampled: the z-test with the variance under H0, as statsmodels computes it
    for name, wt in (("cohen_kappa", None), ("cohen_kappa_linear", "linear"), ("cohen_kappa_quadratic", "quadratic")):
        sm = cohens_kappa(table, wt=wt)
        assert got.loc[name, "estimate"] == pytest.approx(sm.kappa, rel=1e-12)
        assert 0 < got.loc[name, "pvalue"] < 1e-9
        assert got.loc[name, "pvalue"] == pytest.approx(sm.pvalue_two_sided, rel=1e-6)
    # statistics without a test of 0 in the package stay empty, as in their own functions
    assert pd.isna(got.loc["observed_agreement", "pvalue"]) and pd.isna(got.loc["kappa_max", "pvalue"])
    assert me.gwet_ac1(table=table, n_resamples=50, rng=0).pvalue is None


def agree_table_output_is_the_table_alone_test(small_files, capsys):
    h, j, _ = small_files
    assert main(["agree", h, j, "--n-resamples", "100"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].split()[:2] == ["statistic", "estimate"]
    assert "aligned" not in captured.out and captured.err.count("\n") == 1


def agreement_report_pvalues_equal_the_single_functions_test():
    # one definition: the report's p-value of each kappa is its own function's (same seed, same replicates)
    paired = me.align(HUMAN, JUDGE, scale=me.Scale((0, 1, 2, 3)))
    rep = me.agreement_report(paired, cluster="query_id", n_resamples=150, rng=11)
    for name, w in (("cohen_kappa", None), ("cohen_kappa_linear", "linear"), ("cohen_kappa_quadratic", "quadratic")):
        own = me.cohen_kappa(paired, weights=w, cluster="query_id", n_resamples=150, rng=11)
        assert rep[name].pvalue == own.pvalue and rep[name].extra["se0"] == own.extra["se0"]


# ---- metaeval report ---------------------------------------------------------------------------

def _study(tmp_path) -> Path:
    study = tmp_path / "study.toml"
    study.write_text(f"""title = "Pipeline check"
seed = 1
n_resamples = 100

[data.qrels]
kind = "pair"
reference = {json.dumps(HUMAN)}
candidate = {json.dumps(JUDGE)}
scale = [0, 1, 2, 3]

[[analysis]]
type = "agreement"
name = "kappa"
data = "qrels"
cluster = "query_id"
thresholds = false
per_class = false
""")
    return study


def report_help_points_to_the_study_keys_test(capsys):
    from metaeval.output.study_schema import SCHEMA

    with pytest.raises(SystemExit) as e:
        main(["report", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "docs/guide/study-files.md" in out and "--keys" in out and "metaeval.study" not in out
    with pytest.raises(SystemExit) as e:
        main(["report", "--keys"])          # no study or --out needed, like --version
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.count("| key | default | meaning |") == len(SCHEMA)
    assert '[[analysis]] with type = "agreement"' in out and "| `cluster` | none (items) |" in out


def report_pdf_without_pdflatex_is_one_line_before_the_study_runs_test(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    out = tmp_path / "out"
    assert main(["report", str(_study(tmp_path)), "--out", str(out), "--pdf"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--pdf needs pdflatex" in err and "texlive" in err
    assert not out.exists()                 # refused before any analysis ran


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed (apt-get install texlive-latex-recommended)")
def report_pdf_compiles_and_prints_the_paths_test(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", str(_study(tmp_path)), "--out", str(out), "--pdf"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"LaTeX: {out / 'report.tex'}" in lines and f"PDF: {out / 'report.pdf'}" in lines
    assert (out / "report.pdf").read_bytes()[:5] == b"%PDF-"
    # the compiled folder is still a report folder (report.aux/.log/.pdf): a second run may replace it
    from metaeval.output.folder import check_out

    assert check_out(out) == out


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def compile_pdf_names_the_latex_error_test(tmp_path):
    tex = tmp_path / "report.tex"
    tex.write_text("\\documentclass{article}\n\\begin{document}\nfine\n\\undefinedmacro\n\\end{document}\n")
    pdf, error = compile_pdf(tex)
    assert pdf is None and error == "Undefined control sequence. (report.tex l.4)"
