"""Hostile input at the package's front door and in everything it writes (issue #19, findings 1, 2, 3, 7,
11 and the study-file / command-line part of 12).

Each test fails on 33264bd (before metaeval.output.escape, the transactional report folder and the
study checks) and passes now. Study files use few resamples to stay quick.
"""

from __future__ import annotations

import gc
import hashlib
import html.parser
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from metaeval import InputError
from metaeval.cli import main
from metaeval.output import escape as esc
from metaeval.output.study import load_study, run_study

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data_samples"
VALIDATION = SAMPLES / "imageclef_like" / "validation.csv"
BATTLES = SAMPLES / "battles_like" / "battles.csv"

#: The payloads of the issue: HTML, LaTeX and mathtext injection, and every LaTeX special character.
PAYLOADS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", r"ok}\input{^^2fetc^^2fhostname}%",
            r"# % & $ _ ^ ~ \ ", "a$_$b"]


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "metaeval.cli", *map(str, args)], capture_output=True, text=True,
                          env=_env(), timeout=timeout)


def _study_text(n_analyses: int = 1, *, name: str | None = None, extra_top: str = "", data_extra: str = "",
                n_resamples: int = 30) -> str:
    lines = ['title = "t"', "seed = 1", f"n_resamples = {n_resamples}", extra_top, "",
             "[data.v]", 'kind = "table"', f'path = "{VALIDATION.as_posix()}"', 'key = ["query_id", "doc_id"]',
             'reference = "human"', 'candidate = "judge"', "scale = [0, 1]", data_extra, ""]
    for i in range(n_analyses):
        lines += ["[[analysis]]", 'type = "agreement"', f'name = {name!r}' if name is not None and i == 0
                  else f'name = "a{i:03d}"', 'data = "v"', 'cluster = "query_id"', "thresholds = false", ""]
    return "\n".join(lines)


def _quick_study() -> str:
    """A study that runs in a moment (one inspect analysis: a table, no figure)."""
    return "\n".join(['title = "quick"', "seed = 1", "n_resamples = 30", "", "[[analysis]]", 'type = "inspect"',
                      'name = "files"', f'paths = ["{VALIDATION.as_posix()}"]', ""])


def _write(tmp_path, text: str, name="study.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _digests(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _toml_str(s: str) -> str:
    """``s`` as a TOML basic string."""
    body = s.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 32 or ord(c) == 127 else c for c in body) + '"'


# --------------------------------------------------------------------------------------------
# finding 1: an analysis name is a path
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../x", "/abs/x", "a/b", "a\\b", "a\x00b", "x" * 300, ".hidden", "",
                                  "ok}\\input{^^2fetc^^2fhostname}%", "# % &"])
def unsafe_analysis_names_are_refused_at_load_test(tmp_path, capsys, name):
    text = _study_text(name="PLACEHOLDER").replace("'PLACEHOLDER'", _toml_str(name))
    (tmp_path / "s").mkdir()
    study = _write(tmp_path / "s", text)
    with pytest.raises(InputError) as info:
        load_study(study)
    msg = str(info.value)
    assert msg.startswith(str(study)) and "[[analysis]] #1" in msg and "type = 'agreement'" in msg
    assert "letters, digits, '-', '_' and '.'" in msg and "Fix:" in msg
    # and through the command line: one line, exit 2, nothing written anywhere
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert main(["report", str(study), "--out", str(tmp_path / "s" / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("metaeval: error: ") and err.count("\n") == 1, err
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before
    assert not Path("/abs/x_agreement.csv").exists()


def duplicate_analysis_names_ignoring_case_are_refused_test(tmp_path):
    text = _study_text(2).replace('name = "a000"', 'name = "trec"').replace('name = "a001"', 'name = "TREC"')
    with pytest.raises(InputError, match=r"'trec' and 'TREC' name the same files"):
        load_study(_write(tmp_path, text))


def report_table_and_figure_names_are_file_stems_test(tmp_path):
    from metaeval.output.report import Report

    r = Report("t")
    for bad in ("../x", "/abs/x", "a\x00", "y" * 101, "ok}\\input{x}"):
        with pytest.raises(InputError, match="not a safe file name"):
            r.table(bad, pd.DataFrame({"a": [1]}))
    r.table("k", pd.DataFrame({"a": [1]}))
    with pytest.raises(InputError, match="duplicate table name"):
        r.table("K", pd.DataFrame({"a": [1]}))


# --------------------------------------------------------------------------------------------
# findings 2 and 3: every text field carries the payloads as text (Markdown, HTML, LaTeX)
# --------------------------------------------------------------------------------------------

class _Elements(html.parser.HTMLParser):
    """The start tags (with attributes) and the text of an HTML document."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def payload_report(tmp_path_factory):
    """A study whose title, description, section titles and texts, pair names, ids and model names are the
    payloads (analysis names cannot be: they are file stems, refused above)."""
    tmp = tmp_path_factory.mktemp("payload")
    val = pd.read_csv(VALIDATION, dtype=str)
    topics = sorted(val["query_id"].unique())
    val["query_id"] = val["query_id"].map({t: f"{PAYLOADS[i % len(PAYLOADS)]} {i}" for i, t in enumerate(topics)})
    val.to_csv(tmp / "validation.csv", index=False)
    bat = pd.read_csv(BATTLES, dtype=str)
    models = sorted(set(bat["model_a"]) | set(bat["model_b"]))
    ren = {m: PAYLOADS[i] for i, m in enumerate(models[:len(PAYLOADS)])}
    bat["model_a"], bat["model_b"] = bat["model_a"].replace(ren), bat["model_b"].replace(ren)
    bat.to_csv(tmp / "battles.csv", index=False)
    p = PAYLOADS
    text = "\n".join([
        f"title = {_toml_str(' | '.join(p))}", f"description = {_toml_str(p[0] + ' ' + p[1])}", "seed = 1",
        "n_resamples = 30", "",
        "[data.v]", 'kind = "table"', 'path = "validation.csv"', 'key = ["query_id", "doc_id"]',
        'reference = "human"', 'candidate = "judge"', "scale = [0, 1]",
        f"names = [{_toml_str(p[0])}, {_toml_str(p[4])}]", "",
        "[data.b]", 'kind = "battles"', 'path = "battles.csv"', "",
        "[[analysis]]", 'type = "agreement"', 'name = "agree"', f"title = {_toml_str(p[2])}",
        f"text = {_toml_str(p[3] + ' ' + p[1])}", 'data = "v"', 'cluster = "query_id"', "",
        "[[analysis]]", 'type = "pairwise"', 'name = "battles"', f"title = {_toml_str(p[1])}", 'data = "b"', ""])
    study = _write(tmp, text)
    out = tmp / "out"
    r = _cli("report", study, "--out", out)
    assert r.returncode == 0, r.stderr
    return out


def _no_live_elements(rendered: str, *, scripts_allowed: int = 0) -> _Elements:
    doc = _Elements(rendered)
    scripts = [t for t, _ in doc.tags if t == "script"]
    assert len(scripts) == scripts_allowed, scripts
    for tag, attrs in doc.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        if tag == "img":
            assert attrs.get("src", "").startswith(("figures/", "data:image/png;base64,")), attrs
    return doc


def _carries(doc: _Elements, payloads=PAYLOADS):
    text = " ".join(" ".join(doc.text).split())
    for s in payloads:
        assert " ".join(s.split()) in text, s


def report_md_renders_the_payloads_as_text_test(payload_report):
    import markdown
    from markdown_it import MarkdownIt

    md = (payload_report / "report.md").read_text(encoding="utf-8")
    renders = {"markdown-it": MarkdownIt("commonmark").enable("table").render(md),
               "markdown-it gfm": MarkdownIt("gfm-like").render(md) if _has_linkify() else None,
               "python-markdown": markdown.markdown(md, extensions=["tables", "fenced_code"]),
               "python-markdown bare": markdown.markdown(md)}
    for name, rendered in renders.items():
        if rendered is None:
            continue
        doc = _no_live_elements(rendered)
        _carries(doc), name


def _has_linkify() -> bool:
    try:
        import linkify_it  # noqa: F401
    except ImportError:
        return False
    return True


def report_html_carries_the_payloads_as_text_test(payload_report):
    page = (payload_report / "report.html").read_text(encoding="utf-8")
    _carries(_no_live_elements(page, scripts_allowed=1))        # (the page's own script: the image check)


def report_tex_compiles_and_carries_the_payloads_test(payload_report, tmp_path):
    tex_files = [payload_report / "report.tex", *sorted((payload_report / "tables").glob("*.tex"))]
    tex = "\n".join(p.read_text(encoding="utf-8") for p in tex_files)
    assert "\\input{^^2f" not in tex and "^^2f" not in tex.replace(r"\textasciicircum{}", "")
    for s in PAYLOADS:                                            # every payload, escaped, is in the document
        assert esc.latex(" ".join(s.split())).strip() in tex, s
    for line in (payload_report / "report.tex").read_text().splitlines():
        if line.startswith("\\input"):                         # tables/NAME.tex or figures/NAME.tex, NAME a safe stem
            m = re.fullmatch(r"\\input\{(tables|figures)/(.+)\.tex\}", line)
            assert m and esc.file_stem(m.group(2))
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-recommended)")
    work = tmp_path / "tex"
    shutil.copytree(payload_report, work)
    r = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "report.tex"],
                       cwd=work, capture_output=True, text=True, timeout=120)
    log = (work / "report.log").read_text(errors="replace")
    assert r.returncode == 0, r.stdout[-3000:]
    assert "/etc/hostname" not in log and (work / "report.pdf").stat().st_size > 1000
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "report.pdf", "-"], cwd=work, capture_output=True, text=True).stdout
        assert "onerror=alert(1)" in text and "input{" in text


def latex_label_and_input_take_only_stems_test():
    from metaeval.output.report import to_latex

    with pytest.raises(InputError, match="LaTeX label"):
        to_latex(pd.DataFrame({"a": [1]}), label="tab:x}\\input{y")


def figure_text_with_dollars_is_literal_test(tmp_path):
    from metaeval import figures

    df = pd.DataFrame({"model": ["a$_$b", "gpt$4$-turbo"], "tie_rule": ["all", "all"], "estimate": [0.4, 0.6],
                       "ci_low": [0.3, 0.5], "ci_high": [0.5, 0.7]})
    ax = figures.plot_win_rates(df)
    figures.save(ax, tmp_path / "w")                        # 33264bd: ValueError from mathtext for a$_$b
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(labels) == sorted([r"a\$_\$b", r"gpt\$4\$-turbo"])
    assert not any(t._preprocess_math(t.get_text())[1] for t in ax.get_yticklabels())   # drawn as text, not math
    assert esc.mpl_text("$x$", math=True) == "$x$"


# --------------------------------------------------------------------------------------------
# finding 7: the report folder is a transaction
# --------------------------------------------------------------------------------------------

def a_second_run_on_the_same_out_is_refused_test(tmp_path):
    from metaeval.output.folder import output_folder

    study = _write(tmp_path, _quick_study())
    out = tmp_path / "out"
    with output_folder(out):                                   # this process holds the lock
        r = _cli("report", study, "--out", out)
    assert r.returncode == 2 and f"pid {os.getpid()}" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not out.exists() or [p.name for p in out.iterdir()] == [".metaeval-output.json"]   # (the block wrote none)
    # two command lines at once on one --out: one is refused, the other writes the report
    procs = [subprocess.Popen([sys.executable, "-m", "metaeval.cli", "report", str(study), "--out", str(out),
                               "--seed", str(s)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for s in (1, 2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    codes = sorted(rc for rc, _ in results)
    assert codes in ([0, 0], [0, 2]), results                  # (the second may start after the first ended)
    if codes == [0, 2]:
        assert any("another metaeval run (pid" in err for _, err in results)
    import json

    assert json.loads((out / "results.json").read_text())["_meta"]["seed"] in (1, 2)   # one run's files


def a_killed_run_leaves_the_previous_report_intact_test(tmp_path):
    study = _write(tmp_path, _quick_study())
    out = tmp_path / "out"
    assert main(["report", str(study), "--out", str(out)]) == 0
    before = _digests(out)
    slow = _write(tmp_path, _study_text(40), name="slow.toml")
    p = subprocess.Popen([sys.executable, "-m", "metaeval.cli", "report", str(slow), "--out", str(out)], env=_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list(tmp_path.glob(".out.tmp-*/figures/*.png")):
        time.sleep(0.1)
    assert list(tmp_path.glob(".out.tmp-*/figures/*.png")), "the run did not start writing"
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    assert _digests(out) == before                             # the previous report, byte for byte
    assert not [f for f in out.rglob("*") if f.is_file() and f.stat().st_size == 0]
    assert main(["report", str(study), "--out", str(out), "--seed", "2"]) == 0    # the stale lock is taken over
    assert not list(tmp_path.glob(".out.*"))                   # and the killed run's temporary folder removed
    import json

    assert json.loads((out / "results.json").read_text())["_meta"]["seed"] == 2


def sigint_prints_one_line_and_exits_130_test(tmp_path):
    slow = _write(tmp_path, _study_text(40), name="slow.toml")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "metaeval.cli", "report", str(slow), "--out", str(out)], env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list(tmp_path.glob(".out.tmp-*/figures/*.png")):
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err == "metaeval: interrupted\n", err
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


# --------------------------------------------------------------------------------------------
# finding 11: figures are written and released as each analysis finishes
# --------------------------------------------------------------------------------------------

def figures_are_released_as_each_analysis_finishes_test(tmp_path):
    from matplotlib.figure import Figure

    def live():
        gc.collect()
        return sum(isinstance(o, Figure) for o in gc.get_objects())

    before = live()
    rep = run_study(load_study(_write(tmp_path, _study_text(2))), tmp_path / "out")
    assert len(rep.figures) == 4 and live() - before == 0
    fig = rep.figures["a001_confusion"]                        # read back when asked for
    assert isinstance(fig, Figure) and fig.axes[0].get_title() == "counts"
    assert sorted(p.name for p in (tmp_path / "out" / "figures").glob("*.png")) == sorted(f"{n}.png" for n in rep.figures)


# --------------------------------------------------------------------------------------------
# finding 12 (study file and command line): one line, exit 2, before any analysis runs
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("top, data_extra, want", [
    ("seed = -1", "", "seed must be a whole number from 0"),
    ("n_resamples = 0", "", "n_resamples must be a whole number from 1 to 10000000"),
    ("n_resamples = -5", "", "n_resamples must be a whole number from 1"),
    ("n_resamples = 1000000000000", "", "n_resamples must be a whole number from 1"),
    ("", "scale = []", "scale must list at least two distinct levels"),
    ("", "scale = [1]", "scale must list at least two distinct levels"),
    ("", "scale = [[0, 1], 2]", "levels must be numbers or strings"),
    ("", "scale = [nan, inf, 0]", "levels must be finite numbers"),
])
def bad_study_values_are_one_line_errors_test(tmp_path, capsys, top, data_extra, want):
    text = _study_text(extra_top=top)
    if data_extra:
        text = text.replace("scale = [0, 1]", data_extra)
    study = _write(tmp_path, text.replace("seed = 1\n", "") if "seed" in top else
                   text.replace("n_resamples = 30\n", "") if "n_resamples" in top else text)
    assert main(["report", str(study), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"metaeval: error: {study}") and want in err and "Fix:" in err, err
    assert not (tmp_path / "out").exists()


def bad_toml_bytes_and_nesting_are_one_line_errors_test(tmp_path, capsys):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'title = "caf\xe9"\n')
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 1000 + "]" * 1000 + "\n")
    for study, want in ((bad, "not valid UTF-8"), (deep, "nests arrays or tables too deeply")):
        assert main(["report", str(study), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and want in err and str(study) in err and "Fix:" in err, err


def out_that_is_a_file_is_refused_before_any_analysis_test(tmp_path, capsys):
    # the data file does not exist: an analysis that ran would fail on it first
    study = _write(tmp_path, _study_text().replace(VALIDATION.as_posix(), "missing.csv"))
    (tmp_path / "out.txt").write_text("keep me")
    assert main(["report", str(study), "--out", str(tmp_path / "out.txt")]) == 2
    err = capsys.readouterr().err
    assert "the output folder is an existing file" in err and "missing" not in err
    assert (tmp_path / "out.txt").read_text() == "keep me"
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "thesis.tex").write_text("mine")               # a folder of other files is not replaced
    assert main(["report", str(study), "--out", str(tmp_path / "o")]) == 2
    assert "thesis.tex" in capsys.readouterr().err and (tmp_path / "o" / "thesis.tex").read_text() == "mine"


@pytest.mark.parametrize("flags, want", [(["--seed", "-1"], "--seed must be"), (["--n-resamples", "0"], "--n-resamples must be"),
                                         (["--n-resamples", str(10**12)], "--n-resamples must be")])
def bad_resampling_flags_are_one_line_errors_test(tmp_path, capsys, flags, want):
    study = _write(tmp_path, _study_text())
    assert main(["report", str(study), "--out", str(tmp_path / "out"), *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("metaeval: error: the command line: ") and want in err and err.count("\n") == 1
    assert main(["agree", str(VALIDATION), str(VALIDATION), *flags]) == 2


def bootstrap_bounds_n_resamples_and_seed_test():
    import numpy as np

    from metaeval.core.resample import bootstrap, table_units

    units = table_units(np.array([[5, 1], [2, 6]]))
    for bad in (0, -5, 10**12):
        with pytest.raises(InputError, match="n_resamples must be a whole number"):
            bootstrap(lambda S: S[:, 0], units, n_resamples=bad, rng=0)
    with pytest.raises(InputError, match="rng must be a whole number from 0"):
        bootstrap(lambda S: S[:, 0], units, n_resamples=10, rng=-1)
