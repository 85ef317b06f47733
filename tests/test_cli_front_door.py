"""The front door (issue 14, items 2 and 3): empty and unusable inputs, fix hints in CLI syntax,
``metaeval agree`` and the headline numbers of ``metaeval report``.

Expected numbers come from the library itself: ``metaeval agree`` must print what
:func:`metaeval.align` + :func:`metaeval.agreement_report` return for the same arguments and seed.
"""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

import metaeval as me
from metaeval.cli import cli_syntax, headlines, main
from metaeval.core.errors import InputError, MetaevalWarning
from metaeval.data.inspect import inspect_file

TREC = me.datasets.path("trec_dl_like")


def _write(path, text: str):
    path.write_text(text)
    return str(path)


# ---- (2) empty and unusable inputs -------------------------------------------------------------

@pytest.mark.parametrize("name,text", [("h.csv", "query_id,doc_id,relevance\n"),
                                       ("h.tsv", "query_id\tdoc_id\trelevance\n"),
                                       ("hb.csv", "query_id,doc_id,relevance\n\n  \n")])
def header_only_table_is_an_input_error_test(tmp_path, name, text):
    path = _write(tmp_path / name, text)
    with pytest.raises(InputError, match="only a header line") as e:
        me.read_judgments(path, item=("query_id", "doc_id"), label="relevance")
    assert e.value.source.endswith(name) and e.value.line == 1
    assert "query_id, doc_id, relevance" in e.value.problem
    # align reads the same way: no Paired(0 pairs) followed by a numpy error
    with pytest.raises(InputError, match="only a header line"):
        me.align(path, path)


def empty_qrels_is_an_input_error_test(tmp_path):
    with pytest.raises(InputError, match="empty") as e:
        me.align(_write(tmp_path / "q.txt", ""), TREC / "qrels.judge.txt")
    assert e.value.source.endswith("q.txt")


def align_of_an_empty_frame_says_so_test():
    empty = pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []})
    full = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.warns(MetaevalWarning, match="reference side has no rows"):
        p = me.align(empty, full)
    assert len(p) == 0
    with pytest.warns(MetaevalWarning, match="candidate side has no rows"):
        me.align(full, empty)


def inspect_suggests_the_mapping_test(tmp_path):
    path = _write(tmp_path / "w.csv", "qid,docno,rel\nq1,d1,1\nq1,d2,0\n")
    i = inspect_file(path)
    assert i.mapping == {"on": ("qid", "docno"), "label": "rel"}
    assert i.problems == ["cannot find the key and label column(s) (keys query_id and doc_id, or item_id; a label "
                          "named label or relevance); columns qid, docno, rel: pass on=('qid', 'docno'), label='rel'"]
    # the suggestion works: align with it pairs both rows
    assert len(me.align(path, path, on=i.mapping["on"], label=i.mapping["label"])) == 2
    # a table with a known key and no label column
    i = inspect_file(_write(tmp_path / "k.csv", "item_id,grade\na,1\nb,2\n"))
    assert i.mapping == {"on": ("item_id",), "label": "grade"} and "pass on='item_id', label='grade'" in i.problems[0]
    # a usable table has no mapping and no such problem
    assert inspect_file(TREC / "qrels.human.txt").mapping is None


def inspect_cli_prints_the_mapping_as_flags_test(tmp_path, capsys):
    path = _write(tmp_path / "w.csv", "qid,docno,rel\nq1,d1,1\n")
    assert main(["inspect", path]) == 0
    out = capsys.readouterr().out
    assert "columns qid, docno, rel: pass --on qid,docno --label rel" in out
    assert "problems: none found" not in out


# ---- (3) fix hints in the CLI's syntax ---------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("Fix: pass out_of_scale='clip', 'drop' or 'missing' to choose a policy",
     "Fix: pass --out-of-scale clip, drop or missing to choose a policy"),
    ("Fix: pass duplicates='first', 'last', 'majority' or 'mean'", "Fix: pass --duplicates first, last, majority or mean"),
    ("pass on=('qid', 'docno'), label='rel'", "pass --on qid,docno --label rel"),
    ("pass on='item_id', label='grade'", "pass --on item_id --label grade"),
    ("rename the column or pass on=", "rename the column or pass --on"),
    ("check refusal_flag=", "check --refusal-flag"),
    ("pass unjudged=0 or n_resamples=2000", "pass --unjudged 0 or --n-resamples 2000"),
    # not a keyword of the table: left alone
    ("map text labels to numbers first, or pass numeric=False", "map text labels to numbers first, or pass numeric=False"),
    ("pass format=", "pass format="),
])
def cli_syntax_test(text, expected):
    assert cli_syntax(text) == expected


def _bad(tmp_path):
    """The five bad inputs of issue 14: (argv, file named, line named, flag in the fix)."""
    ok = _write(tmp_path / "ok.txt", "1 0 d1 2\n1 0 d2 1\n")
    return [
        (["agree", _write(tmp_path / "hdr.csv", "query_id,doc_id,relevance\n"), ok], "hdr.csv", "line 1", None),
        (["agree", _write(tmp_path / "empty.txt", ""), ok], "empty.txt", None, None),
        (["agree", _write(tmp_path / "wrong.csv", "qid,docno,rel\nq1,d1,1\n"), ok], "wrong.csv", "line 1",
         "--on qid,docno --label rel"),
        (["agree", _write(tmp_path / "oos.txt", "1 0 d1 5\n1 0 d2 1\n"), ok, "--scale", "0,1,2,3"], "oos.txt", "line 1",
         "--out-of-scale clip"),
        (["align", ok, ok, "--out-of-scale", "clp"], None, None, "--out-of-scale clip"),
    ]


def five_bad_inputs_one_line_each_in_cli_syntax_test(tmp_path, capsys):
    for argv, fname, line, flag in _bad(tmp_path):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse rejects a bad flag value before any file is read
            status = exc.code
        err = capsys.readouterr().err
        assert status == 2, argv
        assert err.count("\n") == 1 and err.startswith("metaeval"), err
        assert "error:" in err and "Fix: " in err, err
        assert "='" not in err and "=(" not in err, err  # no Python keyword syntax
        if fname:
            assert fname in err, err
        if line:
            assert line in err, err
        if flag:
            assert flag in err, err


def misspelled_values_and_flags_test(capsys):
    ok = str(TREC / "qrels.judge.txt")
    for argv, fix in ((["align", ok, ok, "--unjudged", "dorp"], "Fix: --unjudged drop"),
                      (["align", ok, ok, "--refusals", "kep"], "Fix: --refusals keep"),
                      (["agree", ok, ok, "--format", "jsn"], "Fix: --format json"),
                      (["agree", ok, ok, "--clustr", "query_id"], "Fix: --cluster")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and fix in err, err


# ---- metaeval agree ----------------------------------------------------------------------------

def _library(cluster="query_id", binarize=None, n_resamples=200, seed=7):
    p = me.align(TREC / "qrels.human.txt", TREC / "qrels.judge.txt", scale=me.Scale((0, 1, 2, 3)))
    if binarize is not None:
        p = p.binarize(binarize)
    return p, me.agreement_report(p, cluster=cluster, n_resamples=n_resamples, rng=seed).to_frame()


def agree_prints_kappa_with_cluster_intervals_test(capsys):
    argv = ["agree", str(TREC / "qrels.human.txt"), str(TREC / "qrels.judge.txt"), "--scale", "0,1,2,3",
            "--cluster", "query_id", "--n-resamples", "200", "--seed", "7"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    out, err = captured.out.splitlines(), captured.err.splitlines()
    p, lib = _library()
    # the alignment accounting, one line on stderr (the counts of AlignmentReport, and the engine)
    assert err[0].startswith(f"aligned {p.report.n_pairs} pairs by the pandas engine: reference ")
    assert "7734 rows (7731 matched, 3 unmatched)" in err[0] and "7731 rows (7731 matched)" in err[0]
    assert out[0].split() == ["statistic", "estimate", "95%", "low", "95%", "high", "n"]
    kappa = lib.set_index("statistic").loc["cohen_kappa"]
    line = next(x for x in out if x.split()[:1] == ["cohen_kappa"])
    assert line.split()[1:4] == [f"{kappa.estimate:.4f}", f"{kappa.ci_low:.4f}", f"{kappa.ci_high:.4f}"]
    assert kappa.unit == "clusters" and kappa.n_units == 40  # topic-cluster intervals: 40 topics
    assert out[-1] == "bca intervals from 200 resamples of 40 clusters (seed 7)"


def agree_csv_and_json_equal_the_library_test(capsys):
    base = ["agree", str(TREC / "qrels.human.txt"), str(TREC / "qrels.judge.txt"), "--binarize", "2",
            "--n-resamples", "200", "--seed", "7", "--cluster", "query_id"]
    _, lib = _library(binarize=2)
    assert main(base + ["--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))     # stdout is the CSV alone
    assert list(got.columns) == list(lib.columns)
    pd.testing.assert_series_equal(got["estimate"], lib["estimate"].astype(float), check_exact=False, rtol=1e-12)
    pd.testing.assert_series_equal(got["ci_low"], lib["ci_low"].astype(float), check_exact=False, rtol=1e-12)
    assert main(base + ["--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)["results"]     # stdout is the JSON alone
    assert [r["statistic"] for r in records] == list(lib["statistic"])
    assert records[1]["estimate"] == pytest.approx(lib["estimate"].iloc[1], rel=1e-12)


def agree_with_no_common_keys_or_unknown_cluster_test(tmp_path, capsys):
    a = _write(tmp_path / "a.txt", "1 0 d1 2\n")
    b = _write(tmp_path / "b.txt", "2 0 d9 2\n")
    assert main(["agree", a, b]) == 2
    err = capsys.readouterr().err
    # the shared message of Paired._require_pairs, written for the CLI: both sides' keys and the flag
    assert "no pair was matched" in err and "('1', 'd1')" in err and "('2', 'd9')" in err
    assert "check --on (the key columns: query_id, doc_id)" in err and err.count("\n") == 1
    assert main(["agree", a, a, "--cluster", "topic"]) == 2
    err = capsys.readouterr().err
    assert "no column 'topic'" in err and "Fix: --cluster query_id" in err


# ---- metaeval report: headline numbers ---------------------------------------------------------

def headlines_pick_the_headline_statistic_test():
    frame = me.agreement_report(table=[[85, 20], [20, 77]], ci_method=None).to_frame()
    counts = pd.DataFrame({"side": ["reference"], "category": ["matched"], "count": [7731]})
    lines = headlines({"agreement": frame, "alignment": counts})
    assert len(lines) == 1 and lines[0].startswith("agreement: cohen_kappa 0.6033 (n=202")  # kappa of the table: 0.6033
    grouped = frame.assign(tie_rule="fdt")[["tie_rule", *frame.columns]]
    assert headlines({"g": grouped})[0].startswith("g: tie_rule=fdt cohen_kappa 0.6033")
