"""The documentation site: it builds with warnings as errors, every public name has a page, and it
works in a real browser (search finds ``cohen_kappa``, images load, no console errors).

The slow tests build ``docs/`` once into a temporary folder (about a minute with the gallery), or
use an existing build when ``METAEVAL_DOCS_HTML`` names one (CI builds the site first with the
README's command and points the tests at it). The browser test needs Debian's chromium; the checks
themselves live in ``docs/check_site.py``, which CI also runs as a script. The fast tests check the
small Sphinx extensions of ``docs/_ext`` directly.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install -e '.[docs]')")
pytest.importorskip("sphinx_gallery", reason="the docs extra is not installed (pip install -e '.[docs]')")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))


def _load_check_site():
    spec = importlib.util.spec_from_file_location("metaeval_check_site", DOCS / "check_site.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


check_site = _load_check_site()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    given = os.environ.get("METAEVAL_DOCS_HTML")
    if given:
        html = Path(given)
        assert (html / "index.html").is_file(), f"METAEVAL_DOCS_HTML={given} holds no built site"
        return html
    out = tmp_path_factory.mktemp("docs")
    cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-d", str(out / "doctrees"), str(DOCS),
           str(out / "html")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert r.returncode == 0, f"sphinx-build -W failed:\n{r.stderr[-6000:]}"
    return out / "html"


# -- the built site ------------------------------------------------------------------------------

@pytest.mark.slow
def test_every_public_name_has_a_page(site):
    fails = check_site.check_files(site)
    assert fails == [], "\n".join(fails)


@pytest.mark.slow
def test_site_in_headless_chromium(site, tmp_path):
    chromium = check_site.find_chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run installs it)")
    fails, seen = check_site.check_browser(site, tmp_path, chromium)
    assert fails == [], "\n".join(fails)
    assert seen["search_results"] > 0
    assert any("metaeval.cohen_kappa.html" in h for h in seen["search_links"])
    assert seen["images"]["gallery/index.html"] >= len(list((ROOT / "figures").glob("fig_*.py")))
    shot = Path(seen["screenshots"][0])
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the checks can fail ---------------------------------------------------------------------------

def test_expected_pages_cover_the_public_api():
    import metaeval

    pages = check_site.expected_pages()
    for name in metaeval.__all__:
        if name != "__version__":
            assert f"metaeval.{name}" in pages
    for name in metaeval.figures.__all__ + metaeval.datasets.__all__:
        assert any(k.endswith("." + name) for k in pages)
    assert pages["metaeval.figures.plot_forest"] == "api/generated/metaeval.figures.plot_forest.html"
    assert pages["metaeval.figures.OKABE_ITO"].endswith("metaeval.figures.html#metaeval.figures.OKABE_ITO")


def test_check_files_reports_missing_pages(tmp_path):
    (tmp_path / "index.html").write_text("<html></html>")
    fails = check_site.check_files(tmp_path)
    assert any("metaeval.cohen_kappa" in f for f in fails)
    assert any("figures/fig_bootstrap.py" in f for f in fails)
    assert "cli.html is missing" in fails


# -- the extensions ------------------------------------------------------------------------------

def test_api_index_lists_every_name_once():
    from metaeval_apigen import render

    import metaeval

    text = render()
    listed = [line.strip() for line in text.splitlines() if re.fullmatch(r"   \w+", line)]
    assert ".. currentmodule:: metaeval" in text
    assert sorted(listed) == sorted(n for n in metaeval.__all__ if n != "__version__")
    assert len(listed) == len(set(listed))
    assert text.index("Reading and writing files") < text.index("Agreement of two raters")


def test_api_groups_never_drop_a_name():
    from metaeval_apigen import group_of

    assert group_of("agreement.coefficients") == "Agreement of two raters"
    assert group_of("agreement.somewhere_new") == "Agreement: more"
    assert group_of("brand_new.module") == "More: metaeval.brand_new"


def test_gallery_titles():
    from metaeval_gallery import _title, with_title

    src = '"""The topic-cluster bootstrap distribution of Cohen\'s kappa on trec_dl_like, with its BCa interval."""\n\nx = 1\n'
    out = with_title(src)
    assert out.startswith('"""\nThe topic-cluster bootstrap distribution of Cohen\'s kappa on trec_dl_like\n====')
    assert out.endswith('with its BCa interval.\n"""\n\nx = 1\n')
    titled = '"""\nA title\n=======\n\nText.\n"""\n'
    assert with_title(titled) == titled
    assert _title("Forest plot: Cohen's kappa, Gwet's AC1 and PABAK across the sample datasets, from a long tail.") \
        == "Forest plot: Cohen's kappa"
    with pytest.raises(ValueError, match="docstring"):
        with_title("x = 1\n")


def test_every_figure_script_gets_a_title():
    from metaeval_gallery import with_title

    for path in sorted((ROOT / "figures").glob("fig_*.py")):
        lines = with_title(path.read_text(encoding="utf-8")).splitlines()
        assert lines[0] == '"""' and set(lines[2]) == {"="} and len(lines[2]) == len(lines[1]), path.name


def test_mathml_rewrites_and_reports():
    from metaeval_mathml import to_mathml

    assert "<math" in to_mathml(r"i = 1, 2, \dots", False)
    assert "…" in to_mathml(r"\dots", False)
    block = to_mathml(r"a &= b \\ c &= d", True)
    assert 'display="block"' in block and "<mtable" in block
    with pytest.raises(Exception):  # noqa: B017 - docutils raises its own error types
        to_mathml(r"\nosuchcommand{x}", False)


def test_cli_rows_come_from_the_parser():
    from metaeval_cli import _arg_rows, _subparsers

    from metaeval.cli import build_parser

    subs = _subparsers(build_parser())
    assert list(subs) == ["inspect", "align", "agree", "report", "review", "monitor", "demo"]
    rows = _arg_rows(subs["align"][0])
    names = [r[0].astext() for r in rows]
    assert "--out-of-scale OUT_OF_SCALE" in names
    row = rows[names.index("--out-of-scale OUT_OF_SCALE")]
    assert row[1].astext() == "error"
    assert "majority" not in " ".join(n.astext() for n in row[2])
    dup = rows[names.index("--duplicates DUPLICATES")]
    assert "majority" in " ".join(n.astext() for n in dup[2])


def test_directives_render_from_the_code(tmp_path):
    """A small MyST project using every directive of docs/_ext: the output shows the registry,
    the coverage table and the parser, and an unknown statistic or constant fails the build."""
    from metaeval.core import registry
    from metaeval.core.resample import CLUSTER_COVERAGE, MIN_CLUSTERS

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['myst_parser', 'metaeval_mathml', 'metaeval_cli', 'metaeval_stats']\n"
        "myst_enable_extensions = ['dollarmath']\n")
    (src / "index.md").write_text(
        "# Site\n\n## Kappa\n\n```{metaeval-statistic} cohen_kappa\n```\n\n## All\n\n```{metaeval-statistics}\n```\n\n"
        "## Coverage\n\n```{metaeval-coverage}\n```\n\n## CLI\n\n```{metaeval-cli}\n:no-sections:\n```\n\n"
        "See {ref}`statistic-cohen_kappa`; $\\kappa = (p_o - p_e)/(1 - p_e)$.\n")
    cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(src), str(tmp_path / "out")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    for name in registry.names():
        assert f">{name}<" in html
    assert 'id="statistic-cohen_kappa"' in html and 'href="#statistic-cohen_kappa"' in html
    assert registry.get("cohen_kappa").reference in html
    for t, cov in CLUSTER_COVERAGE.items():
        assert f"<p>{t}</p>" in html and f"{cov:.3f}" in html
    assert f"MIN_CLUSTERS = {MIN_CLUSTERS}" in html
    assert "metaeval demo" in html and "--n-resamples" in html
    assert "<math" in html and "tex-mml-chtml" not in html and "cdn.jsdelivr" not in html  # MathML, no MathJax

    (src / "index.md").write_text("# Site\n\n```{metaeval-statistic} no_such_statistic\n```\n")
    r = subprocess.run(cmd + ["-E"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "no_such_statistic" in r.stderr
    (src / "index.md").write_text("# Site\n\n```{metaeval-coverage} metaeval.core.resample.NO_SUCH\n```\n")
    r = subprocess.run(cmd + ["-E"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "NO_SUCH" in r.stderr


def test_constant_table_shapes():
    from metaeval_stats import constant_table

    assert constant_table({3: 0.9071, 5: 0.92}) == (["key", "value"], [["3", "0.907"], ["5", "0.920"]])
    header, rows = constant_table({("bca", 50): {"coverage": 0.94, "width": 0.1}, ("delta", 50): {"coverage": 0.91}},
                                  ["method", "n"])
    assert header == ["method", "n", "coverage", "width"]
    assert rows == [["bca", "50", "0.940", "0.100"], ["delta", "50", "0.910", "—"]]


def test_browser_check_catches_broken_pages(tmp_path):
    """The browser check fails on a missing image, a console error, an uncaught exception, a 404
    and a search without results (a tiny hand-made site, no Sphinx)."""
    chromium = check_site.find_chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run installs it)")
    html = tmp_path / "site"
    html.mkdir()
    (html / "index.html").write_text(
        '<html><head><link rel="icon" href="data:,"></head><body><img src="missing.png">'
        '<script>console.error("boom"); undefined_function();</script>'
        '<script src="nowhere.js"></script></body></html>')
    (html / "search.html").write_text(
        '<html><head><link rel="icon" href="data:,"></head><body><div id="search-results">'
        '<p class="search-summary">Your search did not match any documents.</p></div></body></html>')
    fails, seen = check_site.check_browser(html, tmp_path / "shots", chromium)
    text = "\n".join(fails)
    assert "search for 'cohen_kappa' returned no results" in text
    assert "index.html: image does not load: missing.png" in text
    assert "console.error: boom" in text
    assert "uncaught exception: ReferenceError" in text
    assert "HTTP 404" in text and "nowhere.js" in text
    assert "api/generated/metaeval.cohen_kappa.html is missing" in text
    assert (tmp_path / "shots" / "search_cohen_kappa.png").is_file()


def test_gallery_reruns_when_its_dependencies_change(tmp_path):
    """Staging copies every figure script (titled) and drops sphinx-gallery's checksums when
    _gallery.py or the package changed since the last build, so no figure is left stale."""
    from metaeval_gallery import dependency_digest, stage_gallery

    staged, gallery = tmp_path / "src", tmp_path / "gallery"
    gallery.mkdir()
    (gallery / "fig_x.py.md5").write_text("old")
    stage_gallery(ROOT / "figures", staged, gallery)
    assert sorted(p.name for p in staged.glob("fig_*.py")) == sorted(p.name for p in (ROOT / "figures").glob("fig_*.py"))
    assert (staged / "GALLERY_HEADER.rst").is_file() and (staged / "_gallery.py").is_file()
    assert not (gallery / "fig_x.py.md5").exists()  # first build: everything runs
    (gallery / "fig_x.py.md5").write_text("current")
    stage_gallery(ROOT / "figures", staged, gallery)
    assert (gallery / "fig_x.py.md5").exists()  # nothing changed: the checksum stays
    (staged / ".dependencies").write_text("a different library")
    stage_gallery(ROOT / "figures", staged, gallery)
    assert not (gallery / "fig_x.py.md5").exists()
    assert (staged / ".dependencies").read_text() == dependency_digest(ROOT / "figures")
