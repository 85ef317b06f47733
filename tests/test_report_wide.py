"""Wide tables drop nothing: a study of eight judges renders every column and every judge in LaTeX,
HTML and Markdown, and its report.tex compiles.

The study is synthetic (a human and eight judges on 12 topics x 20 passages, each judge copying the
human label with its own probability, seeded below): the expected columns are the ones the library
computes (``judge_panel(...).to_frame()``, the 8 x 8 judge matrices, ``jury_vs_best`` and
``select_jury``'s tables), counted in every rendering.
"""

from __future__ import annotations

import html as _html
import re

import numpy as np
import pandas as pd
import pytest
from test_report_tex import _compile

from metaeval.output.report import Report, paper_table, to_latex
from metaeval.output.study import run_study

JUDGES = [f"llama70b_judge_{i}" if i % 2 else f"gpt4_rts_variant_{i}" for i in range(8)]


def _labels(seed=5, n_topics=12, per=20):
    rng = np.random.default_rng(seed)
    n = n_topics * per
    topic = np.repeat(np.arange(n_topics), per)
    human = rng.choice(4, size=n, p=[0.5, 0.2, 0.2, 0.1])
    labels = {"human": human}
    for i, name in enumerate(JUDGES):
        kept = rng.random(n) < 0.3 + 0.07 * i
        labels[name] = np.where(kept, human, rng.integers(0, 4, n))
    return pd.DataFrame([(f"q{topic[i]:02d}", f"d{i:04d}", r, int(lab[i])) for r, lab in labels.items()
                         for i in range(n)], columns=["query_id", "doc_id", "rater", "label"])


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("eight")
    _labels().to_csv(folder / "labels.csv", index=False)
    (folder / "study.toml").write_text("""
title = "Eight judges"
seed = 3
n_resamples = 60
[data.labels]
kind = "frame"
path = "labels.csv"
[[analysis]]
type = "panel"
name = "panel"
data = "labels"
cluster = "query_id"
scale = [0, 1, 2, 3]
[[analysis]]
type = "jury"
name = "jury"
data = "labels"
methods = ["majority", "dawid_skene"]
cluster = "query_id"
max_judges = 2
""")
    rep = run_study(folder / "study.toml", folder / "out")
    return rep, folder / "out"


def _tex_headers(tex: str) -> list[list[str]]:
    """The header cells of every part (table or longtable) of a LaTeX table file."""
    heads = re.findall(r"\\toprule\n(.*?) \\\\\n\\midrule\n(?!\\endhead)", tex)
    return [h.split(" & ") for h in heads]


def _tex_rows(tex: str) -> list[list[list[str]]]:
    """The body rows of every part."""
    parts = re.findall(r"\\midrule\n(?:\\endfirsthead.*?\\endlastfoot\n)?(.*?)\n(?:\\bottomrule|\\end\{longtable\})",
                       tex, flags=re.S)
    return [[ln[:-3].split(" & ") for ln in p.splitlines() if ln.endswith(" \\\\")] for p in parts]


def _md_table(md: str, name: str) -> tuple[list[str], list[list[str]]]:
    block = md.split(f"`tables/{name}.csv`", 1)[1].split("\n\n", 2)[1]
    rows = [[c.strip() for c in ln.strip("|").split(" | ")] for ln in block.splitlines()]
    return rows[0], rows[2:]


def _html_table(page: str, name: str) -> tuple[list[str], list[list[str]]]:
    table = page.split(f"<code>tables/{name}.csv</code>", 1)[1].split("</table>", 1)[0]
    head = [_html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", table)]
    rows = [[_html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
            for r in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1])]
    return head, rows


# the columns each table shows: what the library computed, in the paper's shape (intervals in one cell)
EXPECTED = {
    "panel_panel": ["judge", "estimate [95% CI]", "rank [95% CI]", "rank_marginal [95% CI]", "difference [95% CI]",
                    "difference_pvalue", "tied_with_best"],
    "panel_error_correlation": ["judge", *JUDGES],
    "panel_agreement": ["judge", *JUDGES],
    "jury_jury_vs_best": ["method", "set", "statistic", "estimate [95% CI]", "pvalue", "best_member",
                          "cross_fitted"],
    "jury_selection": ["n_judges", "judges", "statistic", "estimate", "apparent", "optimism", "stable", "search"],
}


def eight_judge_study_renders_every_column_and_judge_test(study):
    rep, out = study
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    assert set(EXPECTED) == set(rep.tables)
    # the matrices are 8 x 8 and the panel has a row per judge (what judge_panel computed)
    for name in ("panel_error_correlation", "panel_agreement"):
        assert rep.tables[name]["judge"].tolist() == JUDGES and list(rep.tables[name].columns[1:]) == JUDGES
    assert sorted(rep.tables["panel_panel"]["judge"]) == sorted(JUDGES)
    for name, cols in EXPECTED.items():
        show, _ = paper_table(rep.tables[name], _columns(rep, name))
        assert list(show.columns) == cols, name
        # Markdown and HTML: one table with every column, every row
        for head, rows in (_md_table(md, name), _html_table(page, name)):
            assert [re.sub(r"\\(.)", r"\1", _html.unescape(h)) for h in head] == cols, name
            assert len(rows) == len(rep.tables[name]) and all(len(r) == len(cols) for r in rows), name
        # LaTeX: every column in some part, the key column in every part, every row in every part
        tex = (out / "tables" / f"{name}.tex").read_text()
        heads, bodies = _tex_headers(tex), _tex_rows(tex)
        latex_cols, _ = paper_table(rep.tables[name], _columns(rep, name), fmt="latex")
        assert len(heads) == len(bodies) >= 1
        seen = [c for h in heads for c in h[1:]]
        assert [heads[0][0]] + seen == list(latex_cols.columns), name
        assert all(h[0] == heads[0][0] for h in heads)
        assert all(len(b) == len(rep.tables[name]) for b in bodies), name
    # every judge, by name, in every rendering of the matrices (8 columns + 8 rows)
    for name in ("panel_error_correlation", "panel_agreement"):
        tex = (out / "tables" / f"{name}.tex").read_text()
        for j in JUDGES:
            assert tex.count(j.replace("_", "\\_")) == 2, (name, j)
    for j in JUDGES:
        assert j.replace("_", "\\_") in (out / "tables" / "panel_panel.tex").read_text()


def _columns(rep, name):
    return next(b[3] for b in rep.blocks if b[0] == "table" and b[1] == name)


def eight_judge_report_compiles_test(study, tmp_path):
    import shutil

    _, out = study
    work = tmp_path / "tex"
    shutil.copytree(out, work)
    log = _compile(work, "report.tex")
    assert "Float too large" not in log
    over = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert all(w <= 10 for w in over), over


def too_wide_for_landscape_splits_into_parts_test(tmp_path):
    """21 judges: a 22-column matrix cannot fit a landscape page; it is split, the key repeated."""
    names = [f"judge_model_{i:02d}" for i in range(21)]
    rng = np.random.default_rng(0)
    m = pd.DataFrame(rng.uniform(-1, 1, (21, 21)).round(4), columns=names)
    m.insert(0, "judge", names)
    tex = to_latex(m, caption="Error correlation", label="tab:m")
    heads, bodies = _tex_headers(tex), _tex_rows(tex)
    assert len(heads) >= 2
    # each judge column exactly once across the parts, in order; the key column first in every part
    assert [c for h in heads for c in h[1:]] == [n.replace("_", "\\_") for n in names]
    assert all(h[0] == "judge" for h in heads) and all(len(b) == 21 for b in bodies)
    caps = re.findall(r"\\caption\{(.*?)\}\n", tex)
    assert len(caps) == len(heads)
    for k, (cap, h) in enumerate(zip(caps, heads), start=1):
        assert cap.startswith("Error correlation Part") and f"Part {k} of {len(heads)}" in cap
        assert "columns " + ", ".join(h[1:]) in cap          # the caption names the part's columns
    assert tex.count("\\label{tab:m}") == 1 and "\\label{tab:m:part2}" in tex
    # a report holding it compiles, within the page
    r = Report("Wide")
    r.table("m", m, "Error correlation")
    out = r.write(tmp_path / "out")
    log = _compile(out, "report.tex")
    over = [float(w) for w in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    assert all(w <= 10 for w in over), over
