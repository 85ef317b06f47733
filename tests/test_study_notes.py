"""Warnings that reach the reader: every warning raised while a study runs lands under Notes.

Issue 10, item 8 and its "Done when": "A study over 3 topics with a cluster bootstrap shows the
warning in report.md". The studies here are built from slices of the bundled ``trec_dl_like`` qrels
(``data_samples/trec_dl_like``), written to ``tmp_path``; every expected count is taken from those
files with pandas, and every expected message from the code that raises it (named at each test).
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from metaeval.data import datasets
from metaeval.output.report import NOTE_FIELDS, Report
from metaeval.output.study import run_study

QRELS = ["query_id", "iter", "doc_id", "relevance"]


def _qrels():
    base = datasets.path("trec_dl_like")
    h = pd.read_csv(base / "qrels.human.txt", sep=" ", names=QRELS, dtype=str)
    j = pd.read_csv(base / "qrels.judge.txt", sep=" ", names=QRELS, dtype=str)
    return h, j


def _write(df, path):
    df[QRELS].to_csv(path, sep=" ", header=False, index=False)


def _study(folder, analyses, n_resamples=200):
    return {"title": "notes test", "seed": 3, "n_resamples": n_resamples, "_base": str(folder),
            "data": {"d": {"kind": "pair", "reference": "h.txt", "candidate": "j.txt", "scale": [0, 1, 2, 3],
                           "names": ["human", "judge"]}},
            "analysis": analyses}


def _notes_table(md: str) -> list[list[str]]:
    """The rows of the Notes table of report.md."""
    assert "\n## Notes\n" in md, md[-2000:]
    part = md.split("\n## Notes\n", 1)[1]
    rows = [ln for ln in part.splitlines() if ln.startswith("| ")]
    # report.md escapes Markdown's specials (metaeval.output.escape.markdown_cell): read the cells as text
    cells = [[html.unescape(re.sub(r"\\(.)", r"\1", c.strip())) for c in r.strip("|").split(" | ")] for r in rows]
    assert cells[0] == list(NOTE_FIELDS)
    return cells[1:]


@pytest.fixture(scope="module")
def three_topics():
    """The first three topics of trec_dl_like (sorted ids), both sides."""
    h, j = _qrels()
    topics = sorted(h["query_id"].unique())[:3]
    return h[h["query_id"].isin(topics)], j[j["query_id"].isin(topics)], topics


def three_topic_cluster_bootstrap_warns_in_report_md_test(three_topics, tmp_path):
    # issue 10, "Done when": a study over 3 topics with a cluster bootstrap shows the warning in report.md.
    # The engine (metaeval.core.resample._warn_few_clusters) warns below MIN_CLUSTERS = 7 clusters.
    from metaeval.core.resample import MIN_CLUSTERS

    h, j, topics = three_topics
    assert len(topics) == 3 < MIN_CLUSTERS
    _write(h, tmp_path / "h.txt")
    _write(j, tmp_path / "j.txt")
    study = _study(tmp_path, [{"type": "agreement", "name": "three", "data": "d", "cluster": "query_id"}])
    rep = run_study(study, tmp_path / "out")
    md = (tmp_path / "out" / "report.md").read_text()
    small = [r for r in _notes_table(md) if r[1] == "SmallSampleWarning"]
    assert len(small) == 1, small          # deduplicated: every interval of the analysis raised it
    analysis, _, message, times = small[0]
    assert analysis == "three" and int(times) > 1
    assert message.startswith("cluster bootstrap over few clusters: only 3 clusters. The interval is trustworthy "
                              f"from {MIN_CLUSTERS} clusters on")
    # the table beside it says the same unit and number of clusters
    agr = rep.tables["three_agreement"]
    assert set(agr["unit"]) == {"clusters"} and set(agr["n_units"]) == {3}
    assert "SmallSampleWarning" in (tmp_path / "out" / "report.html").read_text()


def one_class_kappa_is_a_note_test(three_topics, tmp_path):
    # only the pairs both sides label 0: chance agreement is 1 and kappa is undefined; the message is
    # the one metaeval.agreement.coefficients._check_defined writes
    h, j, _ = three_topics
    m = h.merge(j, on=["query_id", "iter", "doc_id"], suffixes=("", "_j"))
    m = m[(m["relevance"] == "0") & (m["relevance_j"] == "0")]
    assert len(m) > 50
    _write(m, tmp_path / "h.txt")
    _write(m.drop(columns="relevance").rename(columns={"relevance_j": "relevance"}), tmp_path / "j.txt")
    study = _study(tmp_path, [{"type": "agreement", "name": "zeros", "data": "d", "thresholds": False}])
    rep = run_study(study, tmp_path / "out")
    md = (tmp_path / "out" / "report.md").read_text()
    rows = _notes_table(md)
    kappa = [r for r in rows if r[1] == "UndefinedStatisticWarning" and r[2].startswith("cohen_kappa is undefined")]
    assert len(kappa) == 1 and kappa[0][0] == "zeros"
    assert "the reference uses 1 and the candidate 1 of 4 levels (one class only)" in kappa[0][2]
    # the pointer under the title, the HTML page and results.json say the same
    n = len(rows)
    assert f"*{n} note{'' if n == 1 else 's'} (warnings, rows left out) at the end" in md.split("\n## ", 1)[0]
    page = (tmp_path / "out" / "report.html").read_text()
    assert '<h2 id="notes">Notes</h2>' in page and "cohen_kappa is undefined" in page
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [list(r) for r in res["notes"]] == [sorted(NOTE_FIELDS)] * n
    assert [[r[f] for f in NOTE_FIELDS[:3]] for r in res["notes"]] == [r[:3] for r in rows]
    assert res["notes"] == json.loads(rep.notes.to_json(orient="records"))


def dropped_rows_are_notes_test(three_topics, tmp_path):
    # the judge never saw 5 of the human's documents: the alignment leaves 5 human rows unmatched
    h, j, topics = three_topics
    gone = h["doc_id"].iloc[[0, 10, 20, 30, 40]]
    _write(h, tmp_path / "h.txt")
    _write(j[~j["doc_id"].isin(gone)], tmp_path / "j.txt")
    n_dropped = len(h) - int(h["doc_id"].isin(j[~j["doc_id"].isin(gone)]["doc_id"]).sum())
    assert n_dropped == 5
    study = _study(tmp_path, [{"type": "correlation", "name": "corr", "data": "d"}])
    rep = run_study(study, tmp_path / "out")
    rows = _notes_table((tmp_path / "out" / "report.md").read_text())
    align = [r for r in rows if r[1] == "alignment"]
    assert align == [["data.d", "alignment", f"human (h.txt): 5 of {len(h)} rows left out of the pairs as "
                      "unmatched (the key is not in the other set)", "1"]]
    # the path is relative to the study folder: the report does not depend on where it ran
    assert str(tmp_path) not in (tmp_path / "out" / "report.md").read_text()
    assert rep.notes["analysis"].iloc[0] == "data.d"


def notes_are_deduplicated_and_ordered_test():
    r = Report("t")
    r.note("b", "SmallSampleWarning", "few clusters")
    r.note("a", "UndefinedStatisticWarning", "kappa\nundefined")
    r.note("b", "SmallSampleWarning", "few clusters")
    r.note("b", "RuntimeWarning", "invalid value")
    got = r.notes.values.tolist()
    assert got == [["b", "SmallSampleWarning", "few clusters", 2], ["a", "UndefinedStatisticWarning",
                                                                    "kappa undefined", 1],
                   ["b", "RuntimeWarning", "invalid value", 1]]
    with pytest.raises(ValueError, match="reserved"):
        r.table("notes", pd.DataFrame({"x": [1]}))


def notes_repeat_byte_for_byte_test(three_topics, tmp_path):
    # two runs of a study that warns (the one-class slice plus the correlation of the same data)
    h, j, _ = three_topics
    m = h.merge(j, on=["query_id", "iter", "doc_id"], suffixes=("", "_j"))
    m = m[(m["relevance"] == "0") & (m["relevance_j"] == "0")]
    _write(m, tmp_path / "h.txt")
    _write(m.drop(columns="relevance").rename(columns={"relevance_j": "relevance"}), tmp_path / "j.txt")
    study = _study(tmp_path, [{"type": "agreement", "name": "zeros", "data": "d", "thresholds": False,
                               "per_class": False},
                              {"type": "correlation", "name": "corr", "data": "d"}], n_resamples=50)
    a = run_study(dict(study), tmp_path / "a")
    b = run_study(dict(study), tmp_path / "b")
    assert len(a.notes) >= 2 and a.notes.equals(b.notes)
    assert (tmp_path / "a" / "report.md").read_bytes() == (tmp_path / "b" / "report.md").read_bytes()
    assert not a.notes.duplicated(subset=["analysis", "category", "message"]).any()
    # in the order the analyses ran (the data set loads within the first analysis)
    rank = a.notes["analysis"].map({"data.d": 0, "zeros": 0, "corr": 1})
    assert rank.notna().all() and rank.is_monotonic_increasing and set(rank) == {0, 1}


def repr_html_is_the_report_body_test(tmp_path):
    from metaeval.output import figures as fg

    r = Report("Jupyter <check>", intro="A & B")
    r.section("Agreement")
    r.table("kappa", pd.DataFrame({"statistic": ["cohen_kappa"], "estimate": [0.60334]}))
    fig, ax = fg.subplots()
    fg.plot_confusion([[85, 20], [20, 77]], ax=ax)
    r.figure("confusion", fig, "a table")
    r.note("kappa", "SmallSampleWarning", "3 clusters")
    r.write(tmp_path)
    page = (tmp_path / "report.html").read_text()
    body = re.search(r"<body>\n(.*)\n</body>", page, flags=re.S).group(1)
    got = r._repr_html_()
    assert got.startswith('<div class="metaeval-report"><style>') and got.endswith(f"\n{body}\n</div>")
    # the style is scoped to the output cell (nothing restyles the notebook around it)
    css = re.search(r"<style>(.*?)</style>", got, flags=re.S).group(1)
    assert all(sel.strip().startswith("div.metaeval-report") for rule in css.splitlines()
               for sel in rule.split("{")[0].split(","))
    assert "0.6033" in got and "Jupyter &lt;check&gt;" in got and "data:image/png;base64," in got
    assert r.to_html() == page


def report_command_prints_the_notes_test(three_topics, tmp_path):
    h, j, _ = three_topics
    gone = h["doc_id"].iloc[[0, 1]]
    _write(h, tmp_path / "h.txt")
    _write(j[~j["doc_id"].isin(gone)], tmp_path / "j.txt")
    (tmp_path / "study.toml").write_text(
        'title = "cli"\nseed = 1\nn_resamples = 50\n[data.d]\nkind = "pair"\nreference = "h.txt"\n'
        'candidate = "j.txt"\nscale = [0, 1, 2, 3]\nnames = ["human", "judge"]\n'
        '[[analysis]]\ntype = "correlation"\nname = "corr"\ndata = "d"\n')
    r = subprocess.run([sys.executable, "-m", "metaeval.cli", "report", str(tmp_path / "study.toml"), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "figures written to" in r.stdout
    assert "1 note (warnings, rows left out), listed under Notes:" in r.stdout
    assert f"  - data.d: alignment: human (h.txt): 2 of {len(h)} rows left out" in r.stdout
