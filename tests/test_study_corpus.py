"""The real-data study corpus (tests/studies/*.toml over ../shared/data): every study runs, its
report.tex compiles with pdflatex into a PDF that includes every figure, and its report.md renders.

The studies together use every analysis type of the study format
(:data:`metaeval.output.study_schema.ANALYSIS_TYPES`) on the data sets' real sizes. Their paths are
relative to the study file (``../../../shared/data/...``); ``METAEVAL_SHARED_DATA`` points elsewhere.
Skipped when the data folder is absent; the demo's report (tests/test_report_tex.py) runs everywhere.

Data a study reads that is not a file of ../shared/data (a path starting with ``derived/``) is
derived from ../shared/data into a temporary folder by tests/studies/derive.py (columns selected
and renamed only: PandaLM's annotators as a long table or as battles, LLMBar's gold label and GPT-4
as battles, TREC DL 2021's binary labels as a table).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from metaeval.output.study import load_study, run_study
from metaeval.output.study_schema import ANALYSIS_TYPES

STUDIES = Path(__file__).resolve().parent / "studies"
DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
PREFIX = "../../../shared/data"          # how the study files name the data folder
pytestmark = pytest.mark.realdata

CORPUS = sorted(p.stem for p in STUDIES.glob("*.toml"))


def _derive_module():
    spec = importlib.util.spec_from_file_location("corpus_derive", STUDIES / "derive.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


derive = _derive_module().derive


def _paths(study: dict, fix) -> None:
    """Apply ``fix`` to every path of the study's data sets (and prevalence_from tables)."""
    for entry in study.get("data", {}).values():
        for key in ("path", "reference", "candidate"):
            if isinstance(entry.get(key), str) and (key == "path" or entry.get("kind") == "pair"):
                entry[key] = fix(entry[key])
    for a in study.get("analysis", []):
        if isinstance(a.get("prevalence_from"), dict):
            a["prevalence_from"]["path"] = fix(a["prevalence_from"]["path"])
        if a.get("type") == "inspect":
            a["paths"] = [fix(p) for p in a.get("paths", [])]


def load_corpus_study(name: str, scratch: Path) -> dict:
    """The study ``tests/studies/NAME.toml``, its data paths pointing at DATA and at derived files."""
    study = load_study(STUDIES / f"{name}.toml")
    derived = scratch / "derived"

    def fix(p: str) -> str:
        if p.startswith("derived/"):
            target = derived / p.removeprefix("derived/")
            if not target.is_file():
                derive(target.name, DATA, target)
            return str(target)
        if p.startswith(PREFIX + "/") and DATA.resolve() != (STUDIES / PREFIX).resolve():
            return str(DATA / p.removeprefix(PREFIX + "/"))
        return p

    _paths(study, fix)
    return study


def run_corpus_study(name: str, out: Path, scratch: Path):
    """Run one study of the corpus into ``out``; return the report and the seconds it took."""
    study = load_corpus_study(name, scratch)
    t0 = time.perf_counter()
    rep = run_study(study, out)
    return rep, time.perf_counter() - t0


def compile_tex(folder: Path) -> tuple[int, str]:
    """pdflatex report.tex in ``folder`` (twice: longtable's column widths settle on the second run)."""
    pdflatex = shutil.which("pdflatex")
    rc = 0
    for _ in range(2):
        r = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=folder,
                           capture_output=True, text=True, timeout=600)
        rc = r.returncode
        if rc:
            break
    return rc, (folder / "report.log").read_text(errors="replace") if (folder / "report.log").is_file() else ""


def overfull(log: str, limit: float = 10.0) -> list[str]:
    """The overfull boxes of a LaTeX log wider than ``limit`` points."""
    return [m.group(0) for m in re.finditer(r"Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\)[^\n]*", log)
            if float(m.group(1)) > limit]


def corpus_uses_every_analysis_type_test():
    used = set()
    for name in CORPUS:
        import tomllib

        with open(STUDIES / f"{name}.toml", "rb") as fh:
            used |= {a["type"] for a in tomllib.load(fh)["analysis"]}
    assert used == set(ANALYSIS_TYPES), sorted(set(ANALYSIS_TYPES) - used)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("corpus")


@pytest.mark.parametrize("name", CORPUS)
def study_compiles_and_renders_test(name, scratch):
    if not DATA.is_dir():
        pytest.skip(f"real data not found at {DATA} (set METAEVAL_SHARED_DATA)")
    out = scratch / name
    rep, seconds = run_corpus_study(name, out, scratch)
    print(f"{name}: {seconds:.1f} s, {len(rep.tables)} tables, {len(rep.figures)} figures")
    assert rep.tables, name

    # report.md renders (CommonMark + tables) and shows every table and figure
    from markdown_it import MarkdownIt

    md = (out / "report.md").read_text(encoding="utf-8")
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert html.count("<table>") >= len([b for b in rep.blocks if b[0] == "table"]) > 0
    for fig in rep.figures:
        assert f'src="figures/{fig}.png"' in html, fig

    # report.tex: every table and every figure, each also a standalone file
    tex = (out / "report.tex").read_text(encoding="utf-8")
    assert sorted(re.findall(r"\\input\{tables/([^}]+)\.tex\}", tex)) == sorted(rep.tables)
    assert sorted(re.findall(r"\\input\{figures/([^}]+)\.tex\}", tex)) == sorted(rep.figures)
    for fig in rep.figures:
        assert f"\\includegraphics[width=\\linewidth,height=0.8\\textheight,keepaspectratio]{{figures/{fig}.pdf}}" \
            in (out / "figures" / f"{fig}.tex").read_text(encoding="utf-8"), fig

    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is not installed; .ci/run installs Debian's texlive-latex-recommended")
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-recommended)")
    rc, log = compile_tex(out)
    errors = [ln for ln in log.splitlines() if ln.startswith("!")]
    assert rc == 0 and not errors, (errors, log[-3000:])
    assert "Float too large" not in log
    assert not overfull(log), overfull(log)
    # every figure's PDF was read by pdflatex (the log names each file it includes)
    flat = log.replace("\n", "")
    for fig in rep.figures:
        assert f"figures/{fig}.pdf" in flat, fig
    assert (out / "report.pdf").stat().st_size > 10_000
