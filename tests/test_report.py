"""Reports: tables as CSV and booktabs LaTeX, self-contained HTML that a real browser renders."""

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from metaeval.output.report import to_latex
from metaeval.output.study import load_study, run_study

STUDY = Path(__file__).resolve().parents[1] / "data_samples" / "demo_study.toml"


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    """The demo study's agreement and prevalence analyses, with few resamples."""
    s = load_study(STUDY)
    s["analysis"] = [a for a in s["analysis"] if a["type"] in ("agreement", "prevalence")][:3]
    s["n_resamples"] = 200
    out = tmp_path_factory.mktemp("report")
    run_study(s, out)
    return out


def latex_is_booktabs_and_escaped_test():
    tex = to_latex(pd.DataFrame({"stat_name": ["kappa & co"], "estimate": [0.60334]}), caption="a_b")
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"kappa \& co" in tex and r"stat\_name" in tex and "0.6033" in tex and r"\caption{a\_b}" in tex
    assert r"\begin{tabular}{lr}" in tex


def report_folder_contents_test(small_report):
    names = sorted(p.name for p in small_report.iterdir())
    # report.tex inputs every table (compiled in tests/test_report_tex.py)
    assert names == [".metaeval-output.json", "figures", "report.html", "report.md", "report.tex", "results.json",
                     "tables"]
    csvs = sorted(p.stem for p in (small_report / "tables").glob("*.csv"))
    texs = sorted(p.stem for p in (small_report / "tables").glob("*.tex"))
    assert csvs == texs and len(csvs) >= 6
    pngs = sorted((small_report / "figures").glob("*.png"))
    html = (small_report / "report.html").read_text()
    # self-contained: every figure embedded, nothing fetched from elsewhere (links within the page
    # such as href="#notes" fetch nothing)
    assert html.count("data:image/png;base64,") == len(pngs) >= 3
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", html)
    md = (small_report / "report.md").read_text()
    assert all(f"figures/{p.name}" in md for p in pngs)
    # the alignment's 3 unmatched human rows (data_samples/README.md: 7,734 human, 7,731 judge rows) are a note
    assert "\n## Notes\n" in md and '<h2 id="notes">Notes</h2>' in html
    notes = json.loads((small_report / "results.json").read_text())["notes"]
    assert {"analysis": "data.trec", "category": "alignment", "times": 1,
            "message": "human (trec_dl_like/qrels.human.txt): 3 of 7734 rows left out of the pairs as unmatched "
                       "(the key is not in the other set)"} in notes


def report_is_byte_identical_test(small_report, tmp_path):
    s = load_study(STUDY)
    s["analysis"] = [a for a in s["analysis"] if a["type"] in ("agreement", "prevalence")][:3]
    s["n_resamples"] = 200
    run_study(s, tmp_path)

    def digests(folder):
        return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.rglob("*")) if p.is_file()}

    assert digests(small_report) == digests(tmp_path)


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def report_renders_in_a_real_browser_test(small_report, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs Debian's chromium")
        pytest.skip("chromium not installed (apt-get install chromium)")
    url = (small_report / "report.html").resolve().as_uri()
    dom = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp_path / 'u1'}", "--enable-logging=stderr", "--v=0",
                          "--virtual-time-budget=5000", "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout).group(0)
    n_png = len(list((small_report / "figures").glob("*.png")))
    # the page's own script marks whether every image decoded (naturalWidth > 0)
    assert f'data-images="{n_png}"' in body and 'data-images-loaded="true"' in body, body
    console_errors = [ln for ln in dom.stderr.splitlines() if "CONSOLE" in ln and ("Error" in ln or "Uncaught" in ln)]
    assert console_errors == []
    shot = small_report / "screenshot.png"
    r = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp_path / 'u2'}", f"--screenshot={shot}",
                        "--window-size=1200,1800", url], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and shot.stat().st_size > 10_000
    keep = Path(os.environ.get("METAEVAL_ARTIFACTS", Path(__file__).resolve().parents[1] / "build"))
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, keep / "report-screenshot.png")  # kept for people to look at


def progress_bar_only_on_a_terminal_test(monkeypatch):
    import io as _io

    from metaeval.output.report import progress

    class Tty(_io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("CI", raising=False)
    tty = Tty()
    assert list(progress(range(3), desc="x", stream=tty)) == [0, 1, 2]
    assert "3/3" in tty.getvalue() and "#" in tty.getvalue()
    piped = _io.StringIO()
    assert list(progress(range(3), desc="x", stream=piped)) == [0, 1, 2]
    assert piped.getvalue() == ""          # quiet when piped
    monkeypatch.setenv("CI", "true")
    tty2 = Tty()
    list(progress(range(3), stream=tty2))
    assert tty2.getvalue() == ""           # quiet in CI
