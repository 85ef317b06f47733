"""Paper-ready output: the demo's report.tex compiles with pdflatex; tables in a paper's shape."""

import csv
import os
import re
import shutil
import subprocess

import pandas as pd
import pytest

from metaeval.output.demo import run_demo
from metaeval.output.report import Report, paper_table, to_latex


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    run_demo(out, seed=7, n_resamples=60)
    return out


def _tabular_columns(tex: str) -> int:
    spec = re.search(r"\\begin\{(?:tabular|longtable)\}\{(.*)\}\n", tex).group(1)
    return len(re.findall(r"[lrc]|p\{[^}]*\}", spec))


def demo_report_tex_inputs_every_table_test(demo):
    tex = (demo / "report.tex").read_text()
    inputs = re.findall(r"\\input\{tables/([^}]+)\.tex\}", tex)
    assert sorted(inputs) == sorted(p.stem for p in (demo / "tables").glob("*.csv"))
    assert r"\usepackage{booktabs}" in tex


def demo_tables_show_every_paper_column_test(demo):
    md = (demo / "report.md").read_text()
    for p in sorted((demo / "tables").glob("*.tex")):
        tex = p.read_text()
        n = _tabular_columns(tex)
        header = tex.split(r"\toprule")[1].split(r"\\")[0]
        # no column is dropped: the LaTeX table has the columns of the table on the pages
        md_header = md.split(f"`tables/{p.stem}.csv`", 1)[1].split("\n\n", 2)[1].splitlines()[0]
        assert header.count("&") == n - 1 and n == md_header.count(" | ") + 1, p.name
        # the resampling settings are in the caption, not in columns
        assert not re.search(r"\b(n\\_resamples|seed|ci\\_method|ci\\_low)\b", header), p.name


def demo_csv_keeps_every_column_test(demo):
    with open(demo / "tables" / "trec_agreement.csv") as f:
        header = next(csv.reader(f))
    # the CSV is machine-readable: every column of ResultSet.to_frame() (metaeval.core.results.FRAME_COLUMNS)
    from metaeval.core.results import FRAME_COLUMNS
    assert header == FRAME_COLUMNS


def demo_agreement_table_is_paper_shaped_test(demo):
    tex = (demo / "tables" / "trec_agreement.tex").read_text()
    # labels from the registry (metaeval.core.registry.resolve("cohen_kappa").label == "Cohen's κ")
    assert "Cohen's $\\kappa$ (quadratic) & " in tex and "cohen\\_kappa" not in tex
    # estimate [low, high] in one cell; the note names method, B, unit and seed
    assert re.search(r"Cohen's \$\\kappa\$ & 0\.\d{4} \[0\.\d{4}, 0\.\d{4}\] \\\\", tex)
    cap = re.search(r"\\caption\{(.*)\}", tex).group(1)
    assert "B = 60" in cap and "seed 7" in cap and "40 query\\_id clusters resampled" in cap
    md = (demo / "report.md").read_text()
    # counts print as integers: the alignment counts of data_samples/README.md (7,731 pairs)
    assert "| human | matched | 7731 |" in md and "7731.0000" not in md
    # and the significance summary's counts (30 runs: 435 pairs)
    assert "| pairs | 435 | t | holm |" in md


def demo_report_tex_compiles_with_pdflatex_test(demo, tmp_path):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is not installed; .ci/run installs Debian's texlive-latex-recommended")
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-recommended)")
    work = tmp_path / "tex"
    shutil.copytree(demo, work)
    r = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=work,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:]
    assert (work / "report.pdf").stat().st_size > 10_000
    log = (work / "report.log").read_text(errors="replace")
    assert "Missing character" not in log and "Undefined control sequence" not in log
    # long text wraps (the inspection's problems column): no line runs off the page
    assert "Overfull \\hbox" not in log


def latex_escapes_special_characters_and_greek_test():
    tex = to_latex(pd.DataFrame({"a_b": ["x & y % 50$ #1 ~ ^ {κ} – α"]}), caption="judge_1 τ")
    assert r"a\_b" in tex and r"\caption{judge\_1 $\tau$}" in tex
    assert r"x \& y \% 50\$ \#1 \textasciitilde{} \textasciicircum{} \{$\kappa$\} -- $\alpha$" in tex
    assert all(ord(ch) < 128 for ch in tex)


def paper_table_shape_test():
    df = pd.DataFrame({"method": ["kendall_b"], "statistic": ["kendall_b"], "estimate": [0.8],
                       "ci_low": [0.7], "ci_high": [0.9], "confidence_level": [0.9], "ci_method": ["bca"],
                       "se": [0.05], "bias": [0.0], "pvalue": [float("nan")], "n": [30.0], "unit": ["items"],
                       "n_units": [30], "n_resamples": [2000], "seed": [1]})
    table, note = paper_table(df)
    # the duplicated statistic column, se, bias, the empty p-value and the resampling columns are gone
    assert list(table.columns) == ["method", "estimate [90% CI]", "n"]
    assert table.iloc[0].tolist() == ["Kendall's τ_b", "0.8000 [0.7000, 0.9000]", "30"]   # the registry's label
    assert note == "90% intervals: BCa bootstrap, B = 2000, 30 items resampled, seed 1."
    wide = pd.DataFrame({f"c{i}": [i] for i in range(9)})
    assert paper_table(wide)[0].shape == (1, 9)                 # nothing dropped


def report_tex_uses_study_caption_test(tmp_path):
    r = Report("R")
    r.table("k", pd.DataFrame({"statistic": ["gwet_ac1"], "estimate": [0.5], "ci_low": [0.4], "ci_high": [0.6],
                               "ci_method": ["percentile"], "n_resamples": [100], "seed": [3]}), "My caption")
    out = r.write(tmp_path)
    tex = (out / "tables" / "k.tex").read_text()
    assert r"\caption{My caption. Intervals: percentile bootstrap, B = 100, seed 3.}" in tex
    assert "Gwet's AC1 & 0.5000 [0.4000, 0.6000]" in tex


def namespace_shows_only_the_public_api_test():
    import metaeval.output.report  # binds metaeval.output, which dir() must not show
    assert dir(metaeval) == sorted(metaeval.__all__)


# --------------------------------------------------------------------------------------------
# LaTeX that fits a paper (issue #20): long tables, wide tables, figures, labels carrying LaTeX
# --------------------------------------------------------------------------------------------

def _frame(n, wide=False):
    if wide:   # six columns of intervals (which cannot wrap): wider than a portrait page at \footnotesize
        return pd.DataFrame({f"estimate [95% CI] {k}": [f"-0.{k}{i:03d} [-0.1000, 0.9000]" for i in range(n)]
                             for k in range(6)})
    return pd.DataFrame({"run": [f"run_{i}" for i in range(n)], "estimate": [i / 1000 for i in range(n)]})


def latex_rows_rule_test():
    from metaeval.output.report import LONGTABLE_ROWS, MAX_LATEX_ROWS

    assert (LONGTABLE_ROWS, MAX_LATEX_ROWS) == (40, 200)
    short = to_latex(_frame(40))
    assert short.startswith("\\begin{table}") and short.count("run\\_") == 40 and "longtable" not in short
    long = to_latex(_frame(41), caption="c", label="tab:l")
    assert long.startswith("\\begin{longtable}") and long.count("run\\_") == 41
    # the header repeats on every page after the first
    assert long.count("run & estimate \\\\") == 2 and "\\endfirsthead" in long and "\\endhead" in long
    assert long.count("run\\_") == 41 and "\\caption{c}\\label{tab:l}" in long
    cut = to_latex(_frame(201), caption="Scores", csv="tables/s.csv")
    assert cut.startswith("\\begin{table}") and cut.count("run\\_") == 40
    assert "\\caption{Scores The first 40 of 201 rows; every row in tables/s.csv.}" in cut


def latex_cell_with_own_latex_is_kept_test():
    class Label:               # a registry label carrying LaTeX math (metaeval.core.registry)
        latex = r"Kendall's $\tau_b$"

        def __str__(self):
            return "Kendall's τ_b"

    tex = to_latex(pd.DataFrame({"statistic": [Label(), "a $x$ b"], "estimate": [0.5, 0.25]}))
    assert r"Kendall's $\tau_b$ & 0.5000" in tex
    assert r"a \$x\$ b & 0.2500" in tex          # any other text is escaped


def _compile(folder, tmp_name="doc.tex"):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is not installed; .ci/run installs Debian's texlive-latex-recommended")
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-recommended)")
    for _ in range(2):      # longtable settles its column widths on the second run
        r = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", tmp_name], cwd=folder,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout[-3000:]
    return (folder / tmp_name).with_suffix(".log").read_text(errors="replace")


def report_with_long_wide_tables_and_figures_compiles_test(tmp_path):
    from metaeval import figures

    r = Report("Fit")
    r.section("Tables")
    r.table("long", _frame(150), "A longtable")
    r.table("cut", _frame(1953), "Cut to its first rows")
    r.table("wide", _frame(12, wide=True), "Wide: smaller or landscape")
    r.table("wide_long", _frame(60, wide=True), "Wide and long")
    r.table("text", pd.DataFrame({"file": ["a.txt"] * 3, "problems": ["a long message " * 30] * 3,
                                  "more": ["another long message " * 12] * 3}), "Text wraps")
    fig, ax = figures.subplots()
    figures.plot_confusion([[85, 20], [20, 77]], ax=ax)
    r.figure("confusion", fig, "Confusion matrix")
    out = r.write(tmp_path / "out")
    tex = (out / "report.tex").read_text()
    assert "\\input{figures/confusion.tex}" in tex and "\\usepackage{longtable}" in tex
    fig_tex = (out / "figures" / "confusion.tex").read_text()
    assert ("\\includegraphics[width=\\linewidth,height=0.8\\textheight,keepaspectratio]{figures/confusion.pdf}"
            in fig_tex and "\\caption{Confusion matrix}" in fig_tex and "\\label{fig:confusion}" in fig_tex)
    assert "\\begin{landscape}" in (out / "tables" / "wide.tex").read_text()
    assert "\\begin{longtable}" in (out / "tables" / "wide_long.tex").read_text()
    log = _compile(out, "report.tex")
    assert "Float too large" not in log and "figures/confusion.pdf" in log.replace("\n", "")
    over = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert all(w <= 10 for w in over), over
