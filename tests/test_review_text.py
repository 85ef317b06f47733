"""review_text against statcheck (R package 1.6.0) on statcheck's own test cases.

Reference: tests/reference/statcheck_values.json, written by tests/reference/make_reference_statcheck.R,
which sources statcheck's R code (github.com/MicheleNuijten/statcheck @ b288d94) and runs every
statcheck() call of its test files tests/testthat/test-*.R, recording each expectation
(expect_true / expect_false / expect_equal / expect_output) with its file and line, the texts exactly
as the tests built them (paste0 of qt() values included), and statcheck's full output.

* ``statcheck_expectation_test``: one test per expectation, id ``<statcheck test file>:<line>``: the
  count of results found, the recomputed p, ``error``, ``decision_error`` and the parsed fields the
  expectation looks at, compared with the value the statcheck test expects. The expectations where
  review_text deliberately or numerically differs are listed in ``DIFFERENCES`` with the reason, and
  their own behaviour is asserted instead.
* ``statcheck_output_test``: every row statcheck returned for those calls, field by field.
* ``manual_coding_test``: the results coded by hand in statcheck's inst/test_materials csv files.
* the rest: the variants real PDFs produce, positions, options and input errors.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metaeval
from metaeval import InputError, review_text

REF = json.loads((Path(__file__).parent / "reference" / "statcheck_values.json").read_text(encoding="utf-8"))
CALLS = {c["id"]: c for c in REF["calls"]}
OPTIONS = {"alpha": "alpha", "OneTailedTests": "one_tailed", "OneTailedTxt": "one_tailed_in_text",
           "pEqualAlphaSig": "p_equal_alpha_significant", "pZeroError": "p_zero_is_error"}
TYPES = {"Z": "z", "Chi2": "chi2"}
COLUMN = {"VAR_TYPE": "test", "VAR_DF1": "df1", "VAR_DF2": "df2", "VAR_TEST_COMPARISON": "test_comparison",
          "VAR_TEST_VALUE": "statistic", "VAR_P_COMPARISON": "comparison", "VAR_REPORTED_P": "reported_p",
          "VAR_COMPUTED_P": "computed_p", "VAR_RAW": "raw", "VAR_ERROR": "error", "VAR_DEC_ERROR": "decision_error",
          "VAR_SOURCE": "source"}

# Expectations of statcheck's tests that are outside review_text's scope (not run):
OUT_OF_SCOPE = {
    # statcheck(..., AllPValues = TRUE) lists every p-value of a text, results or not: review_text
    # returns test results only.
    "tests/testthat/test-extract-pvalues.R": "AllPValues (every p-value in the text) is not part of review_text",
    # trim() is statcheck's column selector for printing
    "tests/testthat/test-S3-methods.R:60": "statcheck's trim() column names",
}

# Expectations where review_text differs, with the reason; the test asserts review_text's behaviour.
DIFFERENCES = {
    "tests/testthat/test-extract-t-tests.R:83":
        "statcheck(NA) finds nothing; review_text(None) raises InputError (a text must be a str)",
    "tests/testthat/test-extract-t-tests.R:119":
        "' t(553) = − 4.46, p < .0001': statcheck cannot turn a minus followed by a space into a number and "
        "drops the result; review_text reads t = -4.46 (a minus sign and a space is what PDF converters produce)",
    "tests/testthat/test-extract-chi2-tests.R:19":
        "statcheck's raw text starts one character into 'chi2' ('i2(28) = ...'); review_text's starts at the name",
    "tests/testthat/test-error.R:150":
        "'t(28) = 2.2, p < 0.0324934361512091' puts the reported p between R's pt() (0.03249343615120915) and "
        "scipy's t.sf (0.032493436151209074) for the smallest p t = 2.25 allows; mpmath gives "
        "0.0324934361512091648, so statcheck's error = TRUE is right and review_text, with scipy, is 2.8e-15 "
        "(relative) short of seeing it. A case at the 15th significant digit, not a definition",
}


def _run(call) -> pd.DataFrame:
    """review_text on each text of a statcheck call, stacked, with statcheck's 'source' (1-based text number)."""
    if call["id"] not in _CACHE:
        _CACHE[call["id"]] = _review_call(call)
    return _CACHE[call["id"]].copy()


_CACHE: dict[int, pd.DataFrame] = {}


def _review_call(call) -> pd.DataFrame:
    kw = {OPTIONS[k]: v for k, v in call["options"].items()}
    parts = []
    for i, text in enumerate(call["texts"], start=1):
        if text is None:
            continue
        res = review_text(text, **kw)
        parts.append(res.assign(source=i))
    return pd.concat(parts, ignore_index=True) if parts else review_text("").assign(source=pd.Series(dtype=int))


def _ids(items):
    return [f"{e['file']}:{e['line']}" for e in items]


EXPECTATIONS = [e for e in REF["expectations"]
                if e["file"] not in OUT_OF_SCOPE and f"{e['file']}:{e['line']}" not in OUT_OF_SCOPE]


def _quantity(expr: str, res: pd.DataFrame):
    """The value of review_text's result that statcheck's expectation expression looks at."""
    if expr.startswith("nrow("):
        if "summary" in expr:
            return res["source"].nunique() + 1           # one row per text, plus 'Total'
        return len(res)
    var = expr.split("[[")[-1].split("]]")[0]
    if var.startswith("VAR_NR_"):                         # statcheck's summary(): per text, then the total
        per = res.groupby("source")
        col = {"VAR_NR_PVALUES": per.size(), "VAR_NR_ERRORS": per["error"].sum(),
               "VAR_NR_DEC_ERRORS": per["decision_error"].sum()}[var]
        return [*col.tolist(), col.sum()]
    values = res[COLUMN[var]].tolist()
    if expr.startswith("is.na("):
        return all(pd.isna(v) for v in values)
    if var == "VAR_TYPE":
        return values
    if var == "VAR_SOURCE" and "summary" in expr:
        return [*sorted(set(values)), "Total"]
    return values


def _same(mine, expected, var) -> bool:
    mine = mine if isinstance(mine, list) else [mine]
    expected = expected if isinstance(expected, list) else [expected]
    if len(mine) != len(expected):
        return False
    for a, b in zip(mine, expected):
        if var == "VAR_TYPE":
            b = TYPES.get(b, b)
        if var == "VAR_SOURCE":
            a, b = str(a), str(b)
            a, b = (a, b) if "Total" in (a, b) else (int(a), int(b))
        if isinstance(b, float) or (isinstance(a, float) and isinstance(b, int) and not isinstance(b, bool)):
            if not math.isclose(float(a), float(b), rel_tol=1e-13, abs_tol=0.0):
                return False
        elif a != b:
            return False
    return True


@pytest.mark.parametrize("exp", EXPECTATIONS, ids=_ids(EXPECTATIONS))
def statcheck_expectation_test(exp):
    key = f"{exp['file']}:{exp['line']}"
    call = CALLS[exp["call_ids"][-1]]
    if key == "tests/testthat/test-extract-t-tests.R:83":
        with pytest.raises(InputError, match="one string"):
            review_text(None)
        return
    res = _run(call)
    expr = exp["expr"]
    if exp["kind"] == "expect_output":                    # "statcheck did not find any results"
        assert exp["expected"] == "did not find any results"
        if key == "tests/testthat/test-extract-t-tests.R:119":
            assert res[["test", "df2", "statistic", "comparison", "reported_p"]].values.tolist() == \
                [["t", 553.0, -4.46, "<", 0.0001]]
            return
        assert len(res) == 0, res
        return
    var = expr.split("[[")[-1].split("]]")[0] if "[[" in expr else None
    mine = _quantity(expr, res)
    if key == "tests/testthat/test-extract-chi2-tests.R:19":
        assert exp["expected"] == "i2(28) = 2.20, p = .03" and mine == ["chi2(28) = 2.20, p = .03"]
        return
    if key == "tests/testthat/test-error.R:150":
        row = res.iloc[0]
        assert exp["expected"] is True and not row["error"]
        smallest = 2 * stats.t.sf(2.25, 28)                # the p of the far end of 2.2's rounding interval
        assert abs(row["reported_p"] - smallest) / smallest < 5e-15
        return
    assert _same(mine, exp["expected"], var), (key, expr, mine, exp["expected"])


def statcheck_expectation_count_test():
    """Every expectation of statcheck's result-level test files is either checked or listed as out of scope."""
    assert len(REF["expectations"]) == 364
    assert len(EXPECTATIONS) == 364 - 8                   # test-extract-pvalues.R (7), trim() (1)
    assert {e["kind"] for e in EXPECTATIONS} == {"expect_true", "expect_false", "expect_equal", "expect_output"}
    assert set(DIFFERENCES) <= set(_ids(EXPECTATIONS))


OUTPUT_CALLS = [c for c in REF["calls"] if not c["all_p_values"] and any(t is not None for t in c["texts"])]


@pytest.mark.parametrize("call", OUTPUT_CALLS, ids=[f"call{c['id']}" for c in OUTPUT_CALLS])
def statcheck_output_test(call):
    """Each row statcheck returned: type, df, statistic, comparisons, reported and recomputed p, error, decision error."""
    res = _run(call)
    texts = [t for t in call["texts"] if t is not None]
    if texts == [" t(553) = − 4.46, p < .0001"]:          # DIFFERENCES, test-extract-t-tests.R:119
        assert call["n"] == 0 and len(res) == 1
        return
    assert len(res) == call["n"], (texts, res)
    for mine, r in zip(res.to_dict("records"), call["rows"]):
        assert mine["test"] == TYPES.get(r["test_type"], r["test_type"])
        for col, key in (("df1", "df1"), ("df2", "df2"), ("statistic", "test_value"), ("reported_p", "reported_p")):
            if r[key] is None:
                assert np.isnan(mine[col]), col
            else:
                assert math.isclose(mine[col], r[key], rel_tol=1e-13), (col, mine[col], r[key])
        assert (mine["test_comparison"], mine["comparison"]) == (r["test_comp"], r["p_comp"])
        assert math.isclose(mine["computed_p"], float(r["computed_p"]), rel_tol=1e-12), (mine["computed_p"], r["computed_p"])
        assert mine["one_tailed_in_text"] == r["one_tailed_in_txt"]
        if mine["raw"] == "t(28) = 2.2, p < 0.0324934361512091":   # DIFFERENCES, test-error.R:150
            assert r["error"] and not mine["error"]
            continue
        assert (mine["error"], mine["decision_error"]) == (r["error"], r["decision_error"]), (mine["raw"], r)
        assert mine["raw"] == r["raw"] or (r["test_type"] == "Chi2" and mine["raw"].endswith(r["raw"]))


MANUAL = REF["manual"]


@pytest.mark.parametrize("row", MANUAL, ids=[f"{m['path'].split('/')[-1]}:row{m['csv_row']}" for m in MANUAL])
def manual_coding_test(row):
    """Results coded by hand in statcheck's test materials: error and decision error, two-tailed and with
    one-tailed detection (the papers say one-tailed; here " (one-tailed)" is appended to the result)."""
    res = review_text(row["raw_result"])
    assert len(res) == 1
    kind = {"Z": "z", "Chi2": "chi2"}.get(row["test_type"], row["test_type"])
    if row["raw_result"].startswith("B2") or row["raw_result"].startswith("G2"):
        kind = "chi2"                                   # coded as the paper prints it; both are chi-square tests
    assert res["test"].iloc[0] == kind
    assert math.isclose(res["statistic"].iloc[0], row["test_value"])
    assert bool(res["error"].iloc[0]) == bool(row["error"])
    assert bool(res["decision_error"].iloc[0]) == bool(row["decision_error"])
    one = review_text(row["raw_result"] + " (one-tailed)", one_tailed_in_text=True)
    assert bool(one["error"].iloc[0]) == bool(row["error_1tail"])
    assert bool(one["decision_error"].iloc[0]) == bool(row["decision_error_1tail"])
    if row["rows"]:                                      # and what statcheck makes of the same string
        assert (bool(res["error"].iloc[0]), bool(res["decision_error"].iloc[0])) == \
            (row["rows"][0]["error"], row["rows"][0]["decision_error"])
        assert math.isclose(res["computed_p"].iloc[0], float(row["rows"][0]["computed_p"]), rel_tol=1e-12)
    else:
        # "Z = 1.54, p = .14;" alone: statcheck needs a character before a z; in the paper there is one.
        assert row["raw_result"].startswith("Z = ")


# ------------------------------------------------------------------------- variants and options
@pytest.mark.parametrize("text, expected", [
    ("t(28) = \u22122.20, p = .03", ("t", np.nan, 28.0, -2.20)),                # U+2212 minus
    ("t(28) = \u2013 2.20, p = .03", ("t", np.nan, 28.0, -2.20)),               # en dash and a space
    ("t(28)\u00a0=\u00a02.20,\u00a0p\u00a0=\u00a0.03", ("t", np.nan, 28.0, 2.20)),   # no-break spaces
    ("F(1,\n 76)\n= 23.95,\n  p <.001", ("F", 1.0, 76.0, 23.95)),                # line breaks, double spaces
    ("F(l, 76) \u2afd 23.95, p \u2b0d .001", ("F", 1.0, 76.0, 23.95)),            # PDF code points for = and <
    ("\u03c7\u00b2(1, N = 226) = 6.90, p < .01", ("chi2", 1.0, np.nan, 6.90)),   # χ² with superscript two
    ("\u03c72(1, N = 226) = 6.90, p < .01", ("chi2", 1.0, np.nan, 6.90)),
    ("Chi-square(2, N = 1,024) = 7.20, p = .03", ("chi2", 2.0, np.nan, 7.20)),
    ("?2(374, N = 488) = 1,224.08, p < .001", ("chi2", 374.0, np.nan, 1224.08)),  # a chi lost in conversion
    ("QBetween(1) = 14.59, p < .001", ("Qb", 1.0, np.nan, 14.59)),
    ("Q\u2010within(12) = 9.20, p = .69", ("Qw", 12.0, np.nan, 9.20)),
    ("z = 2.17, p = .03", ("z", np.nan, np.nan, 2.17)),                          # z at the start of the text
    ("t(28) = +2.20, p = .03", ("t", np.nan, 28.0, 2.20)),
])
def pdf_variant_test(text, expected):
    res = review_text(text)
    assert len(res) == 1, res
    got = tuple(res[["test", "df1", "df2", "statistic"]].iloc[0])
    assert got[0] == expected[0]
    np.testing.assert_allclose(got[1:], expected[1:])


def pdf_variant_values_test():
    """n of a chi-square, and recomputed p of each test type against scipy directly."""
    text = ("chi2(2, N = 1,024) = 7.20, p = .03; Q(28) = 22.20, p = .79, r(46) = \u2212.34, p = .02, "
            "F(2.1, 28.1) = 2.20, p = .13, and z = \u22121.54, p = .14.")
    res = review_text(text)
    assert res["test"].tolist() == ["chi2", "Q", "r", "F", "z"]
    assert res["n"].iloc[0] == 1024 and res["n"].iloc[1:].isna().all()
    t = -0.34 / math.sqrt((1 - 0.34 ** 2) / 46)
    expected = [stats.chi2.sf(7.2, 2), stats.chi2.sf(22.2, 28), 2 * stats.t.cdf(t, 46),
                stats.f.sf(2.2, 2.1, 28.1), 2 * stats.norm.cdf(-1.54)]
    np.testing.assert_allclose(res["computed_p"], expected, rtol=1e-12)
    # Q(28) = 22.20 gives .77, not .79 (statcheck's test-error.R:12); r = -.34 with 46 df gives .018:
    # p = .02 is consistent; z = -1.54 gives .124: p = .14 is not
    assert res["error"].tolist() == [False, True, False, False, True]


def not_read_test():
    """What statcheck does not read is not read: semicolon, square brackets, capital T, >=, p <= and p > 1."""
    for text in ("t(28) = 2.20; p = .03", "t[28] = 2.20, p = .03", "T(28) = 2.20, p = .03",
                 "t(38) >= 2.25, p = .03", "t(38) = 2.25, p \u2264 .03", "t(28) = 2.20, p = 1.03",
                 "r(16) = 26.05, p = .10", "the sample (n = 28) was small, p. 12"):
        assert review_text(text).empty, text


def positions_and_columns_test():
    text = "First, t(28) = 2.20, p = .03. Then\n F(2, 56) = 1.203,\np < .001^ and z = 1.2, ns."
    res = review_text(text)
    assert list(res.columns) == ["test", "df1", "df2", "n", "test_comparison", "statistic", "comparison",
                                 "reported_p", "computed_p", "one_tailed", "error", "decision_error",
                                 "one_tailed_in_text", "raw", "start", "end"]
    assert [text[s:e].strip() for s, e in zip(res["start"], res["end"])] == res["raw"].tolist()
    assert res["comparison"].tolist() == ["=", "<", "ns"]
    assert np.isnan(res["reported_p"].iloc[2])
    # t = 2.20 allows .0356-.0369, i.e. .04 at two decimals, not .03 (statcheck's test-error.R:7); ns is
    # p > .05 and z = 1.2 gives .23: consistent
    assert res["error"].tolist() == [True, True, False] and res["decision_error"].tolist() == [False, True, False]
    empty = review_text("No tests here.")
    assert empty.empty and list(empty.columns) == list(res.columns)
    assert empty["error"].dtype == bool


def one_tailed_options_test():
    """one_tailed halves t, r and z (not F or chi2); one_tailed_in_text only corrects what it makes consistent."""
    text = "t(28) = 2.20, p = .018, F(2, 28) = 2.20, p = .13, t(28) = 2.20, p = .01"
    two = review_text(text)
    one = review_text(text, one_tailed=True)
    np.testing.assert_allclose(one["computed_p"], [stats.t.sf(2.2, 28), stats.f.sf(2.2, 2, 28), stats.t.sf(2.2, 28)])
    np.testing.assert_allclose(two["computed_p"].iloc[[0, 2]], 2 * stats.t.sf(2.2, 28))
    assert one["one_tailed"].all() and not two["one_tailed"].any()
    assert not two["one_tailed_in_text"].any()
    said = review_text(text + " (one-sided tests)", one_tailed_in_text=True)
    assert said["one_tailed_in_text"].all()
    assert two["error"].tolist() == [True, False, True]
    assert said["one_tailed"].tolist() == [True, False, False]     # p = .01 is an error either way
    assert said["error"].tolist() == [False, False, True]


def correlation_at_one_test():
    """r = 1.0 printed with one decimal: the rounding interval is cut at 1 (statcheck stops with an error)."""
    res = review_text("r(10) = 1.0, p < .001, r(10) = .99, p < .001")
    assert res["computed_p"].iloc[0] == 0.0
    assert not res["error"].any()


def alpha_and_zero_test():
    txt = "t(28) = 22.20, p = .000"
    assert review_text(txt)["error"].item()
    assert not review_text(txt, p_zero_is_error=False)["error"].item()
    assert review_text("t(28) = 2.20, p = .11", alpha=0.10)["decision_error"].item()


@pytest.mark.parametrize("bad, kwargs, match", [
    (None, {}, "one string"),
    (b"t(28) = 2.2, p = .03", {}, "one string"),
    (["t(28) = 2.2, p = .03"], {}, "one string"),
    ("t(28) = 2.2, p = .03", {"alpha": 5}, "alpha"),
    ("t(28) = 2.2, p = .03", {"alpha": "0.05"}, "alpha"),
    ("t(28) = 2.2, p = .03", {"one_tailed": "yes"}, "one_tailed"),
    ("t(28) = 2.2, p = .03", {"p_zero_is_error": 1}, "p_zero_is_error"),
])
def input_error_test(bad, kwargs, match):
    with pytest.raises(InputError, match=match):
        review_text(bad, **kwargs)


def lazy_export_test():
    assert metaeval.review_text is review_text
    from metaeval.review import review_text as again
    assert again is review_text


def long_runs_linear_test():
    """Runs of digits or spaces (tables, bad OCR) are scanned in linear time: no catastrophic backtracking."""
    import time

    review_text("t(28) = 2.20, p = .04")                  # imports
    for text in ("t(28) = " + "1" * 50_000 + " p", "Q" + " " * 50_000 + "(2) = 1", "F(1" + " " * 50_000,
                 "chi2(1, N = " + "1," * 25_000, "t(28) =" + " -" * 25_000, "t(28) = 2.2, p = ." + "1" * 50_000):
        t0 = time.perf_counter()
        review_text(text)
        assert time.perf_counter() - t0 < 2.0, text[:20]


# ------------------------------------------------------------------ invisible characters, size, chunks
FORMAT_CHARS = ["\u00ad", "\u200b", "\ufeff", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e", "\u2060",
                "\u2066", "\u2069", "\u180e", "\U000e0001", "\x01", "\x1b", "\x7f"]


@pytest.mark.parametrize("ch", FORMAT_CHARS, ids=[f"U+{ord(c):04X}" for c in FORMAT_CHARS])
def invisible_character_is_not_a_minus_test(ch):
    """F(1, 20) = <soft hyphen>4.5 is F = 4.5: a format or control character is removed, never read as a sign."""
    text = f"as predicted, F(1, 20) = {ch}4.5, p = .05"
    res = review_text(text)
    assert len(res) == 1
    row = res.iloc[0]
    assert row["statistic"] == 4.5
    # upper tail of F(1, 20) at 4.5 (scipy): 0.0466, which prints as .05: consistent
    assert row["computed_p"] == pytest.approx(stats.f.sf(4.5, 1, 20), rel=1e-12)
    assert not row["error"] and not row["decision_error"]
    # the position still points into the original text, which holds the invisible character
    assert text[row["start"]:row["end"]].replace(ch, "") == row["raw"]
    # anywhere inside the result, the character changes nothing (checked at every position for three of them)
    for i in range(text.index("F"), len(text) + 1) if ch in "\u00ad\u200b\ufeff" else ():
        assert review_text(text[:i] + ch + text[i:])[["test", "statistic", "reported_p"]].equals(
            res[["test", "statistic", "reported_p"]])


def real_minus_after_invisible_character_test():
    # U+2212 then a zero-width space: still a minus (statcheck reads a minus sign)
    assert review_text("t(28) = \u2212\u200b2.20, p = .04")["statistic"].tolist() == [-2.20]
    # a hyphen-minus and an en dash as statcheck reads them
    assert review_text("t(28) = -2.20, p = .04; t(28) = \u2013 2.20, p = .04")["statistic"].tolist() == [-2.2, -2.2]


def text_size_limit_test(monkeypatch, tmp_path):
    from metaeval.review.text import MAX_TEXT_BYTES, max_text_bytes, read_text

    assert max_text_bytes() == MAX_TEXT_BYTES == 2 ** 22
    monkeypatch.setenv("METAEVAL_MAX_TEXT_BYTES", "30")
    assert len(review_text("t(28) = 2.20, p = .04" + " " * 9)) == 1          # 30 bytes: accepted
    with pytest.raises(InputError, match="31 bytes, more than the limit of 30"):
        review_text("t(28) = 2.20, p = .04" + " " * 10)
    with pytest.raises(InputError, match="32 bytes"):
        review_text("é" * 16)                                               # 16 characters, 32 bytes of UTF-8
    f = tmp_path / "big.txt"
    f.write_text("x" * 100, encoding="utf-8")
    with pytest.raises(InputError, match="100 bytes, more than the limit of 30") as e:
        read_text(f)
    assert "METAEVAL_MAX_TEXT_BYTES" in str(e.value)
    for bad in ("abc", "0", "-5"):
        monkeypatch.setenv("METAEVAL_MAX_TEXT_BYTES", bad)
        with pytest.raises(InputError, match="METAEVAL_MAX_TEXT_BYTES is not a positive whole number"):
            review_text("t(28) = 2.20, p = .04")


def chunked_reading_finds_what_whole_reading_finds_test(monkeypatch):
    """Paragraph chunks give the same rows (positions included) as one piece, whatever the chunk size."""
    import metaeval.review.text as T

    paragraphs = [
        "t(28) = \u22122.20, p = .03 and F(1,\n 76)\n= 23.95,\n  p <.001", "\u03c7\u00b2(1, N = 226) = 6.90, p < .01",
        "QBetween(1) = 14.59, p < .001 but z = 2.17, p = .03", "F(1, 20) = \u00ad4.5, p = .05 (soft hyphen)",
    ] * 3 + ["plain prose without results\n"] * 5
    text = "\n\n".join(paragraphs) + "\n \n" + "t(28) =\n2.20,\np = .04"
    whole = review_text(text)
    assert len(whole) == 3 * 6 + 1
    for size in (1, 17, 200, 5000):
        monkeypatch.setattr(T, "CHUNK_CHARS", size)
        assert list(T.chunks(text))[0][0] == 0 and "".join(p for _, p in T.chunks(text)) == text
        pd.testing.assert_frame_equal(review_text(text), whole)


def one_line_break_but_not_a_blank_line_test():
    assert len(review_text("t(28) =\n2.20,\n p = .04")) == 1
    assert len(review_text("t(28) = 2.20,\n\np = .04")) == 0                 # a paragraph ends at a blank line
    assert len(review_text("t(28) = 2.20,\r\n\r\np = .04")) == 0


def read_text_refuses_special_files_test(tmp_path):
    import os

    from metaeval.review.text import read_text

    fifo = tmp_path / "paper.txt"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):                        # refused before it is opened: no hang
        read_text(fifo)
    with pytest.raises(InputError, match="character device"):
        read_text("/dev/zero")
    with pytest.raises(InputError, match="no such file"):
        read_text(tmp_path / "none.txt")
    with pytest.raises(InputError, match="is a directory"):
        read_text(tmp_path)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("t(28) = 2.20, p = .04 caf\xe9".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_text(bad)
