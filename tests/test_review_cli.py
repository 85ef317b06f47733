"""`metaeval review CLAIMS.toml --out DIR` and `metaeval review paper.txt --out DIR`: the reviewer's note.

The note (review.md, review.html, review.tex, review.json) is written through the package's atomic
output folder (metaeval.output.folder) and every piece of text through metaeval.output.escape.
review.tex is compiled with ``pdflatex -halt-on-error``; review.md is rendered with markdown-it-py
(CommonMark + tables) and python-markdown; review.html is parsed with html.parser. The expected
p-values of the text rows are review_text's own (checked against statcheck in test_review_text.py),
and the claims rows are check_claims' (test_review_claims.py): here only the note is tested.
"""

from __future__ import annotations

import hashlib
import html.parser
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from metaeval import check_claims, review_text
from metaeval.cli import main
from metaeval.review.claims import to_records
from metaeval.review.note import text_records, write_review

ROOT = Path(__file__).resolve().parents[1]
IMAGECLEF = ROOT / "data_samples" / "claims" / "imageclef.toml"

#: HTML, LaTeX (a file read by \input, math, comments) and Markdown (table cell, emphasis, link) syntax.
PAYLOADS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", r"ok}\input{/etc/hostname}%",
            r"$x^2$ 100% & # _ ~ \ ", r"\end{document}", "a | b *em* [l](http://x) `c`"]

PAPER = ("Judges agreed more after calibration, t(28) = 2.20, p = .04, and the effect of length was absent, "
         "F(2, 56) = 1.203, p < .001; \u03c7\u00b2(1, N = 226) = 6.90, p = .03. Scores correlated, r(48) = .30, "
         "p = .03, and Q(3) = 2.1, ns.\n")


def _pdflatex(tex: Path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    r = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "-no-shell-escape", tex.name],
                       cwd=tex.parent, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (tex.parent / "review.pdf").stat().st_size > 1000
    return (tex.parent / "review.log").read_text(encoding="latin-1")


class _Elements(html.parser.HTMLParser):
    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _shows_as_text(rendered: str, payloads, *, allowed=("table", "thead", "tbody", "tr", "th", "td", "h1", "h2",
                                                          "p", "html", "head", "meta", "title", "style", "body")):
    """No element but the note's own; every payload in the document's text."""
    doc = _Elements(rendered)
    tags = {t for t, _ in doc.tags}
    assert tags <= set(allowed), tags - set(allowed)
    assert not any(k.startswith("on") for _, a in doc.tags for k in a)
    text = " ".join(" ".join(doc.text).split())
    for s in payloads:
        assert " ".join(s.split()) in text, s


def _digests(folder: Path) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


# --------------------------------------------------------------------------------------------
# a claims file
# --------------------------------------------------------------------------------------------

def review_imageclef_test(tmp_path, capsys):
    out = tmp_path / "note"
    assert main(["review", str(IMAGECLEF), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 claims: 2 consistent, 0 inconsistent, 1 not supported" in printed
    assert sorted(p.name for p in out.iterdir()) == [".metaeval-output.json", "review.html", "review.json", "review.md",
                                                     "review.tex"]
    # review.json holds exactly what check_claims returns for the file (same seed)
    doc = json.loads((out / "review.json").read_text(encoding="utf-8"))
    # (plus what the other formats print: "what follows" with its table and warnings)
    noted = [{k: v for k, v in r.items() if k not in ("what_follows", "warnings")} for r in doc["claims"]]
    assert noted == json.loads(json.dumps(to_records(check_claims(IMAGECLEF))))
    assert doc["tests"] == []
    # one Markdown table row per claim, with the header's number of cells
    md = (out / "review.md").read_text(encoding="utf-8").splitlines()
    rows = [line for line in md if line.startswith("| ") and not line.startswith("| #")]
    assert len(rows) == 3 and "κ = 0.061" in rows[0]
    _pdflatex(out / "review.tex")
    # a second run replaces the note, pdflatex's files included (a note folder holds review.* only)
    assert main(["review", str(IMAGECLEF), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".metaeval-output.json", "review.html", "review.json", "review.md",
                                                     "review.tex"]


def review_hostile_claims_test(tmp_path):
    """A claim's sentence and the note's title with HTML, LaTeX and Markdown syntax stay text in every format."""
    claims = tmp_path / "c.toml"
    sentence = " ".join(PAYLOADS)
    claims.write_text('[[claim]]\nkind = "accuracy"\nvalue = "0.770"\nn = 202\n'
                      f"sentence = {json.dumps(sentence)}\n", encoding="utf-8")
    out = tmp_path / "o"
    title = "<b>note</b> $\\alpha$ 50% \\input{x}"
    assert main(["review", str(claims), "--out", str(out), "--title", title]) == 0
    md = (out / "review.md").read_text(encoding="utf-8")
    row = [line for line in md.splitlines() if line.startswith("| 1 ")][0]
    assert row.count("|") == 9                                        # 8 cells: the | of the text is an entity
    import markdown
    from markdown_it import MarkdownIt

    for rendered in (MarkdownIt("commonmark").enable("table").render(md),
                     markdown.markdown(md, extensions=["tables"])):
        _shows_as_text(rendered, PAYLOADS + [title])
    html = (out / "review.html").read_text(encoding="utf-8")
    assert "<script>" not in html and "&lt;script&gt;" in html
    _shows_as_text(html, PAYLOADS + [title])
    log = _pdflatex(out / "review.tex")
    assert "/etc/hostname" not in log.replace("\\input{/etc/hostname}", "")   # nothing was read
    # the JSON keeps the text as given
    assert json.loads((out / "review.json").read_text(encoding="utf-8"))["claims"][0]["sentence"] == sentence


def review_bad_input_test(tmp_path, capsys):
    assert main(["review", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    assert main(["review", str(pdf), "--out", str(tmp_path / "o")]) == 2
    assert "pdftotext" in capsys.readouterr().err
    latin = tmp_path / "latin.txt"
    latin.write_bytes("t(28) = 2.20, p = .03, caf\xe9".encode("latin-1"))
    assert main(["review", str(latin), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not UTF-8" in err and "byte 26" in err
    bad = tmp_path / "bad.toml"
    bad.write_text('[[claim]]\nkind = "kapa"\nvalue = 0.5\n', encoding="utf-8")
    assert main(["review", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "unknown kind 'kapa'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------------------------
# --out: checked as `metaeval report` checks it, written as a transaction
# --------------------------------------------------------------------------------------------

def review_out_is_checked_first_test(tmp_path, capsys, monkeypatch):
    import metaeval.review.claims as claims_mod

    called = []
    monkeypatch.setattr(claims_mod, "check_claims", lambda *a, **k: called.append(1))
    afile = tmp_path / "notes.txt"
    afile.write_text("mine", encoding="utf-8")
    assert main(["review", str(IMAGECLEF), "--out", str(afile)]) == 2
    assert "existing file" in capsys.readouterr().err
    other = tmp_path / "thesis"
    other.mkdir()
    (other / "chapter1.tex").write_text("mine", encoding="utf-8")
    assert main(["review", str(IMAGECLEF), "--out", str(other)]) == 2
    err = capsys.readouterr().err
    assert "not a metaeval review" in err and "chapter1.tex" in err
    # a report folder is not a review folder: a note never replaces a report
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "report.md").write_text("# report", encoding="utf-8")
    assert main(["review", str(IMAGECLEF), "--out", str(rep)]) == 2
    assert "report.md" in capsys.readouterr().err
    assert main(["review", str(IMAGECLEF), "--out", str(tmp_path / "o"), "--n-resamples", "0"]) == 2
    assert "--n-resamples" in capsys.readouterr().err
    assert called == [] and afile.read_text(encoding="utf-8") == "mine"
    assert [p.name for p in other.iterdir()] == ["chapter1.tex"] and not (tmp_path / "o").exists()


def review_failure_keeps_the_previous_note_test(tmp_path, monkeypatch):
    import metaeval.review.note as note

    out = tmp_path / "note"
    df = check_claims([{"kind": "accuracy", "value": 0.77, "n": 202}])
    write_review(df, out)
    before = _digests(out)

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(note, "_latex", boom)
    with pytest.raises(RuntimeError):
        write_review(check_claims([{"kind": "accuracy", "value": 0.5, "n": 10}]), out)
    assert _digests(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note"]             # no temporary folder left


# --------------------------------------------------------------------------------------------
# a paper's text
# --------------------------------------------------------------------------------------------

def review_text_file_test(tmp_path, capsys):
    paper = tmp_path / "paper.txt"
    paper.write_text(PAPER, encoding="utf-8")
    out = tmp_path / "note"
    assert main(["review", str(paper), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    # review_text's docstring example: t consistent, F a decision error, χ² an error; r(48) = .30 gives
    # p = .0343 (consistent); Q(3) = 2.1 gives p = .55, so "ns" is right
    assert "5 test results found: 2 errors, 1 decision error (α = 0.05)" in printed
    doc = json.loads((out / "review.json").read_text(encoding="utf-8"))
    assert doc["claims"] == []
    assert doc["tests"] == json.loads(json.dumps(text_records(review_text(PAPER))))
    assert [t["test"] for t in doc["tests"]] == ["t", "F", "chi2", "r", "Q"]
    assert [t["error"] for t in doc["tests"]] == [False, True, True, False, False]
    assert [t["decision_error"] for t in doc["tests"]] == [False, True, False, False, False]
    assert doc["tests"][1]["decision_error_text"].startswith("yes: significant as reported, not as recomputed")
    assert doc["tests"][0]["assumption"] == "two-tailed (the text does not say one-tailed)"
    assert doc["tests"][2]["assumption"] == "upper tail of χ²(df)"
    assert doc["tests"][4]["assumption"] == "upper tail of χ²(df); ns read as p > 0.05"
    md = (out / "review.md").read_text(encoding="utf-8")
    rows = [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    assert len(rows) == 5 and all(r.count("|") == 8 for r in rows)
    assert rows[1].startswith("| 2 | F(2, 56) = 1.203, p &lt; .001 | p &lt; 0.001 | 0.3079 | yes | yes")
    _shows_as_text((out / "review.html").read_text(encoding="utf-8"), ["F(2, 56) = 1.203, p < .001"])
    _pdflatex(out / "review.tex")


def review_text_one_tailed_test(tmp_path, capsys):
    """t(20) = 1.80 gives two-tailed p = .087: "p = .04" is a decision error, unless the text's one-tailed
    test is honoured (one-tailed p = .043, consistent), as statcheck's OneTailedTxt does."""
    paper = tmp_path / "paper.md"
    paper.write_text("We used one-tailed tests: t(20) = 1.80, p = .04.", encoding="utf-8")
    assert main(["review", str(paper), "--out", str(tmp_path / "a")]) == 0
    assert "1 test result found: 1 error, 1 decision error" in capsys.readouterr().out
    a = json.loads((tmp_path / "a" / "review.json").read_text(encoding="utf-8"))["tests"][0]
    assert a["assumption"].startswith("two-tailed, although the text mentions one-tailed tests")
    assert main(["review", str(paper), "--out", str(tmp_path / "b"), "--one-tailed-in-text"]) == 0
    assert "1 test result found: 0 errors, 0 decision errors" in capsys.readouterr().out
    b = json.loads((tmp_path / "b" / "review.json").read_text(encoding="utf-8"))["tests"][0]
    assert b["one_tailed"] and b["assumption"].startswith("one-tailed: the text says one-tailed")
    assert b["computed_p"] == pytest.approx(a["computed_p"] / 2)


def review_text_without_results_test(tmp_path, capsys):
    paper = tmp_path / "paper.txt"
    paper.write_text("The judge agreed with humans (kappa 0.6). <script>x</script> $5 100%", encoding="utf-8")
    out = tmp_path / "o"
    assert main(["review", str(paper), "--out", str(out), "--title", "<script>x</script> 100%"]) == 0
    printed = capsys.readouterr().out
    assert "0 test results found" in printed
    md = (out / "review.md").read_text(encoding="utf-8")
    assert "No result (t, F, r, χ², z or Q" in md and "| # | result as printed" not in md
    # the κ in the prose is found, and said to be unchecked for want of an n
    assert "1 claim found in the text: 0 consistent, 0 inconsistent, 0 not supported, 1 not checked" in printed
    found = json.loads((out / "review.json").read_text(encoding="utf-8"))["found_claims"]
    assert [(r["kind"], r["reported"], r["verdict"]) for r in found] == [("kappa", 0.6, "not checked")]
    assert "no number of items (n)" in found[0]["reason"]
    _pdflatex(out / "review.tex")


def write_review_claims_and_text_test(tmp_path):
    """One note with both sections; a review_text frame alone is recognised by its columns."""
    df = check_claims([{"kind": "accuracy", "value": 0.77, "n": 202}])
    tests = review_text(PAPER)
    write_review(df, tmp_path / "both", tests=tests)
    doc = json.loads((tmp_path / "both" / "review.json").read_text(encoding="utf-8"))
    assert len(doc["claims"]) == 1 and len(doc["tests"]) == 5
    md = (tmp_path / "both" / "review.md").read_text(encoding="utf-8")
    assert md.index("## Claims") < md.index("## Reported test results")
    write_review(tests, tmp_path / "text")
    assert json.loads((tmp_path / "text" / "review.json").read_text(encoding="utf-8"))["tests"] == doc["tests"]
    _pdflatex(tmp_path / "both" / "review.tex")


def claims_file_with_text_entries_test(tmp_path, capsys):
    """[[text]] entries (file = … relative to the claims file, or text = …) are read with review_text and
    written as the note's second section, each row labelled with its entry."""
    (tmp_path / "paper.txt").write_text(PAPER, encoding="utf-8")
    claims = tmp_path / "c.toml"
    claims.write_text('[[claim]]\nkind = "accuracy"\nvalue = 0.77\nn = 202\n\n[[text]]\nfile = "paper.txt"\n\n'
                      '[[text]]\nlabel = "Table 2"\ntext = "z = 1.70, p = .045"\n', encoding="utf-8")
    out = tmp_path / "o"
    assert main(["review", str(claims), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 claim: 1 consistent" in printed and "6 test results found: 3 errors, 2 decision errors" in printed
    doc = json.loads((out / "review.json").read_text(encoding="utf-8"))
    assert len(doc["claims"]) == 1
    expected = text_records(review_text(PAPER).assign(source="paper.txt"))
    assert doc["tests"][:5] == json.loads(json.dumps(expected))
    assert doc["tests"][5]["source"] == "Table 2" and doc["tests"][5]["decision_error"]
    md = (out / "review.md").read_text(encoding="utf-8")
    assert "| 6 | Table 2: z = 1.70, p = .045 |" in md
    # a file of [[text]] entries only
    only = tmp_path / "t.toml"
    only.write_text('[[text]]\ntext = "F(1, 20) = 9.1, p = .01"\n', encoding="utf-8")
    assert main(["review", str(only), "--out", str(tmp_path / "o2")]) == 0
    assert "1 test result found: 0 errors" in capsys.readouterr().out
    # errors name the entry
    bad = tmp_path / "b.toml"
    for body, msg in (('[[text]]\nlabel = "x"\n', "[[text]] #1 needs either file"),
                      ('[[text]]\nfile = "nope.txt"\n', "[[text]] #1: no such file 'nope.txt'")):
        bad.write_text(body, encoding="utf-8")
        assert main(["review", str(bad), "--out", str(tmp_path / "o3")]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1


# ------------------------------------------------------------------ the note never reasons from NaN; warnings
# A κ with n but no margins and a threshold: check_claims has no interval (it needs the margins or the table), its
# "what follows" rests on the table the feasibility search picked, and the judge-corrected prevalence
# (Rogan–Gladen) clips at 0 with a warning: the ImageCLEFmed numbers of data_samples/claims/imageclef.toml.
NAN_CLAIM = ('[[claim]]\nkind = "kappa"\nsentence = "κ = 0.6 on 202 judgments, substantial"\nvalue = "0.6"\nn = 202\n'
             'above = 0.6\nprevalence = 0.0107\njudge_positives = 5950\njudge_total = 558653\n')


def _formats(out: Path) -> dict:
    return {f: (out / f"review.{f}").read_text(encoding="utf-8") for f in ("md", "html", "tex", "json")}


def note_never_reasons_from_nan_and_prints_every_warning_test(tmp_path, capsys):
    import re

    claims = tmp_path / "c.toml"
    claims.write_text(NAN_CLAIM, encoding="utf-8")
    raw = to_records(check_claims(claims))[0]
    assert "[nan, nan]" in raw["reason"]                      # what check_claims says; the note must not
    assert raw["details"]["corrected_prevalence"]["estimate"] == 0.0 and raw["details"]["corrected_prevalence"]["warnings"]
    out = tmp_path / "note"
    assert main(["review", str(claims), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    texts = _formats(out)
    doc = json.loads(texts["json"])
    rec = doc["claims"][0]
    for fmt, text in texts.items():
        body = "\n".join(ln for ln in text.splitlines() if "Reviewed:" not in ln and '"source":' not in ln)
        assert not re.search(r"(?<![A-Za-z])nan(?![A-Za-z])", body, re.IGNORECASE), fmt
        assert "no interval could be computed" in text, fmt
        # "what follows" names the table it used and says its margins are assumed: reference 109/93, judge 82/120
        assert "are assumed, not reported" in text, fmt
        assert "fell outside" in text and "clipped" in text, fmt            # the Rogan–Gladen warning, every format
    assert rec["verdict"] == "not supported" and rec["warnings"] == raw["details"]["corrected_prevalence"]["warnings"]
    t = rec["details"]["feasibility"]["table"]
    assert f"reference {sum(t[0])}/{sum(t[1])}, judge {t[0][0] + t[1][0]}/{t[0][1] + t[1][1]}" in rec["what_follows"]
    assert "warning: the corrected prevalence fell outside" in printed        # and on stdout
    _pdflatex(out / "review.tex")


def what_follows_uses_the_given_margins_test(tmp_path):
    df = check_claims([{"kind": "kappa", "value": "0.60", "n": 202, "margins": [[105, 97], [105, 97]],
                        "percent_agreement": "0.802", "prevalence": 0.0107}])
    write_review(df, tmp_path / "o")
    rec = json.loads((tmp_path / "o" / "review.json").read_text(encoding="utf-8"))["claims"][0]
    assert "which has the reported margins" in rec["what_follows"] and "assumed" not in rec["what_follows"]
    t = rec["details"]["feasibility"]["table"]
    assert [sum(r) for r in t] == [105, 97] and [sum(c) for c in zip(*t)] == [105, 97]


def no_nan_test():
    from metaeval.review.note import no_nan

    assert no_nan("fine [0.1, 0.2]") == "fine [0.1, 0.2]"
    assert no_nan("κ = nan [nan, nan]") == "κ = not computable (no interval could be computed)"
    assert no_nan("financial nancy") == "financial nancy"


def review_text_file_is_bounded_and_special_files_refused_test(tmp_path, capsys, monkeypatch):
    import os

    fifo = tmp_path / "paper.txt"
    os.mkfifo(fifo)
    assert main(["review", str(fifo), "--out", str(tmp_path / "o1")]) == 2
    err = capsys.readouterr().err
    assert "FIFO (named pipe), not a regular file" in err and err.count("\n") == 1
    claims = tmp_path / "c.toml"
    claims.write_text('[[text]]\nfile = "paper.txt"\n', encoding="utf-8")    # a FIFO as a [[text]]: the same refusal
    assert main(["review", str(claims), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert "[[text]] #1: 'paper.txt' is a FIFO (named pipe), not a regular file" in err and err.count("\n") == 1
    big = tmp_path / "big.txt"
    big.write_text("t(28) = 2.20, p = .04. " * 10, encoding="utf-8")
    monkeypatch.setenv("METAEVAL_MAX_TEXT_BYTES", "100")
    assert main(["review", str(big), "--out", str(tmp_path / "o3")]) == 2
    err = capsys.readouterr().err
    assert "the text has 230 bytes, more than the limit of 100" in err and err.count("\n") == 1
    assert not (tmp_path / "o3").exists()


def review_paper_reports_tests_and_found_claims_test(tmp_path, capsys):
    """`metaeval review paper.txt`: the APA results and the claims in the prose, in one note."""
    paper = tmp_path / "paper.txt"
    paper.write_text("Judges agreed with annotators: Cohen's κ = 0.60 with 80.2% raw agreement on 202 items. "
                     "Longer answers scored higher, t(28) = 2.20, p = .04. "
                     "We use Cohen's Kappa, achieving a substantial agreement score of 0.6.", encoding="utf-8")
    out = tmp_path / "o"
    assert main(["review", str(paper), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 test result found: 0 errors" in printed
    assert "2 claims found in the text: 1 consistent, 0 inconsistent, 0 not supported, 1 not checked" in printed
    doc = json.loads((out / "review.json").read_text(encoding="utf-8"))
    assert [(r["kind"], r["verdict"]) for r in doc["found_claims"]] == [("kappa", "consistent"), ("kappa", "not checked")]
    # κ = 0.60 and p_o = 0.802 on 202 items: the table [[71, 20], [20, 91]] gives them (κ = 0.6000, p_o = 162/202)
    assert "p_o = 0.8020" in doc["found_claims"][0]["reason"]
    assert "## Claims found in the text" in (out / "review.md").read_text(encoding="utf-8")
    _pdflatex(out / "review.tex")
