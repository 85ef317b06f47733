"""Hypothesis fuzz tests of the metaeval readers: realistic corruptions of valid files.

Every reader gets at least 500 generated inputs. The contract checked on each one:

* the reader returns a frame with the canonical columns and exactly the expected rows, or
* it raises :class:`metaeval.InputError` whose message names the file (or stream) and, unless the
  problem concerns the whole file (empty file, corrupt gzip, JSON that is not a table), a line:
  ``.line`` is an int, the message says ``line N`` and N is a line that really has a problem;
* no other exception type escapes.

For the whitespace formats (qrels, runs, ``trec_eval -q`` output) the expected outcome comes from an
independent oracle that parses the final bytes by the documented rules (lines end at ``\\n``, ``\\r\\n``
or ``\\r``; fields are runs of spaces/tabs; blank lines are skipped; ``#`` is ordinary). For the
table formats (CSV, TSV, JSONL) each generated file records which line a corruption went to.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import metaeval
from metaeval import InputError
from metaeval.core.errors import _shorten

FUZZ = settings(max_examples=500, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example, HealthCheck.filter_too_much])

# --------------------------------------------------------------------------------------------
# building blocks
# --------------------------------------------------------------------------------------------

_ID_SPECIAL = ["#hash", "a#b", "msmarco_v2.1_doc_26_1828280420#8_3138708572", '"quoted"', "it's", '"', "'",
               "q,1", "NaN", "null", "None", "NA", "-", "0", "1e5", "007", "TRUE", "\u00e9t\u00e9", "\u4e2d\u6587",
               "\U0001F600", "a\u00a0b", "x\u3000y", "\u200b", "\\", "{}", "[1]", "a\u2028b", "q\x85", "v\x0bt",
               "\x0c", "all", "runid"]
_UNICODE = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters=" \t"),
                   min_size=1, max_size=10)
ID = st.one_of(
    st.from_regex(r"[0-9]{1,8}", fullmatch=True),
    st.builds(lambda a, b, c, d: f"msmarco_v2.1_doc_{a:02d}_{b}#{c}_{d}", st.integers(0, 99),
              st.integers(0, 10**10), st.integers(0, 99), st.integers(0, 10**10)),
    st.builds(lambda a, b: f"msmarco_passage_{a:02d}_{b}", st.integers(0, 69), st.integers(0, 10**9)),
    st.sampled_from(_ID_SPECIAL),
    _UNICODE,
    st.builds(lambda n: "d" * n, st.integers(1_000, 120_000)),   # extremely long id
)

# numbers: good, and corruptions (the oracle decides what is valid; these are only candidates)
INT_TOKENS = ["0", "1", "2", "3", "-1", "+2", "01", "1.0", "2e0", "1e-400", "3.", "1.5", "x", "rel", "relevance",
              "nan", "NaN", "inf", "-inf", "\u0661", "0x1", "1_0", "99999999999999999999", ".5", "TRUE", "None",
              "\u00bd", "1/2", "--1", "1e400", "9007199254740993"]
FLOAT_TOKENS = ["0.5", "1", "-3.25", "1e-3", "4.0694156", "nan", "NaN", "inf", "-Infinity", "+.5e-3", "1.", "x",
                "score", "1,5", "1.2.3", "0x1", "-nan", ".", "e5", "\u0661", "1e400"]

_FLOAT_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INF = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


def int_value(tok: str):
    """The integer a token stands for, or None (the readers' rule: a finite integral number, |x| <= 2**53)."""
    if not (tok.isascii() and _FLOAT_RE.fullmatch(tok)):
        return None
    v = float(tok)
    return int(v) if math.isfinite(v) and v == round(v) and abs(v) <= 2**53 else None


def float_value(tok: str):
    """The float a token stands for (NaN for a literal nan), or None."""
    if tok.isascii() and _FLOAT_RE.fullmatch(tok):
        return float(tok)
    if tok.lower() in _INF:
        return float(tok)
    if tok.lower() == "nan":
        return math.nan
    return None


BAD_UTF8 = [b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80", b"\xf8\x88\x80\x80\x80"]
JUNK = st.binary(min_size=1, max_size=40)


def bstream(data: bytes, name: str) -> io.BytesIO:
    bio = io.BytesIO(data)
    bio.name = name
    return bio


def expect_error(e: InputError, name: str, bad_lines, header_line: int | None = None) -> None:
    """An InputError that names the source and, unless whole-file, a line with a problem."""
    msg = str(e)
    assert type(e) is InputError
    assert name in msg, msg
    if bad_lines is None:                      # whole-file problem: no line needed
        assert e.line is None or e.line == header_line, msg
        return
    assert isinstance(e.line, int), msg
    assert f"line {e.line}" in msg, msg
    assert e.line in bad_lines, f"line {e.line} not among the bad lines {sorted(bad_lines)}: {msg}"


def call(reader, *args, **kw):
    """Run a reader; return (frame, None) or (None, InputError). Anything else fails the test."""
    try:
        return reader(*args, **kw), None
    except InputError as e:
        return None, e
    except Exception as e:  # noqa: BLE001 - exactly what is being tested
        pytest.fail(f"{type(e).__name__} escaped from {getattr(reader, '__name__', reader)}: {e}")


# --------------------------------------------------------------------------------------------
# whitespace formats: generator + independent oracle
# --------------------------------------------------------------------------------------------

_NEWLINE = re.compile(rb"\r\n|\r|\n")
_FIELDS = re.compile(r"[ \t]+")


def split_lines(data: bytes) -> list[bytes]:
    parts = _NEWLINE.split(data)
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def ws_oracle(raw: bytes, kind: str):
    """Expected result of reading ``raw``: ("ok", rows, lines, n_all) or ("error", bad_lines or None, why)."""
    data = raw
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:  # noqa: BLE001
            return ("error", None, "gzip")
    if not data.strip(b" \t\n\r\x0b\x0c"):
        return ("error", None, "empty")
    lines = split_lines(data)
    for i, ln in enumerate(lines, 1):
        if b"\x00" in ln:
            return ("error", {i}, "nul")
    for i, ln in enumerate(lines, 1):
        try:
            ln.decode("utf-8")
        except UnicodeDecodeError:
            return ("error", {i}, "utf8")
    text = [ln.decode("utf-8") for ln in lines]
    if text and text[0].startswith("\ufeff"):
        text[0] = text[0][1:]
    n = {"qrels": 4, "run": 6, "score": 3}[kind]
    rows, row_lines, bad_count, bad_value, runids = [], [], set(), set(), []
    for i, ln in enumerate(text, 1):
        s = ln.strip(" \t")
        if not s:
            continue
        toks = _FIELDS.split(s)
        if len(toks) != n:
            bad_count.add(i)
            continue
        if kind == "qrels":
            rel = int_value(toks[3])
            if rel is None:
                bad_value.add(i)
            rows.append((toks[0], toks[2], rel))
        elif kind == "run":
            rank, score = int_value(toks[3]), float_value(toks[4])
            if rank is None or score is None:
                bad_value.add(i)
            rows.append((toks[0], toks[2], score, rank, toks[5]))
        else:
            if toks[0] == "runid":
                runids.append((i, toks[2]))
                continue
            val = float_value(toks[2])
            if val is None:
                bad_value.add(i)
            rows.append((toks[1], toks[0], val))
        row_lines.append(i)
    if bad_count:
        return ("error", bad_count, "fields")
    if kind == "score" and len({r for _, r in runids}) > 1:
        return ("error", {i for i, r in runids if r != runids[0][1]}, "runid")
    if bad_value:
        return ("error", bad_value, "value")
    if kind == "score":
        system = runids[0][1] if runids else None
        keep = [(r, ln) for r, ln in zip(rows, row_lines) if r[0] != "all"]
        return ("ok", [(system,) + r for r, _ in keep], [ln for _, ln in keep], len(rows) - len(keep))
    return ("ok", rows, row_lines, 0)


def _base_rows(kind: str, draw) -> list[list[str]]:
    n = draw(st.integers(1, 10))
    if kind == "qrels":
        return [[draw(ID), draw(st.sampled_from(["0", "Q0"])), draw(ID), draw(st.sampled_from("0123"))]
                for _ in range(n)]
    if kind == "run":
        tag = draw(st.sampled_from(["ICT-BERT2", "bm25", "run#1", "p_\u00e9"]))
        return [[draw(ID), "Q0", draw(ID), str(r + 1), draw(st.sampled_from(["4.0694156", "-1.5", "0", "12", "nan"])),
                 tag] for r in range(n)]
    measures = st.sampled_from(["ndcg_cut_10", "map", "P_10", "recall_1000", "num_q"])
    rows = [[draw(measures), draw(st.one_of(ID, st.just("all"))), draw(st.sampled_from(["0.1600", "1", "0", "nan"]))]
            for _ in range(n)]
    if draw(st.booleans()):
        rows.insert(0, ["runid", "all", draw(st.sampled_from(["ICT-BERT2", "r#1"]))])
    return rows


_HEADERS = {"qrels": ["query_id iteration doc_id relevance", "qid Q0 docno rel", "qid docno rel"],
            "run": ["qid Q0 docno rank score tag", "query_id Q0 doc_id rank score run_id"],
            "score": ["measure query_id value", "metric qid score"]}
_NUM_COLS = {"qrels": {3: INT_TOKENS}, "run": {3: INT_TOKENS, 4: FLOAT_TOKENS}, "score": {2: FLOAT_TOKENS}}


@st.composite
def whitespace_file(draw, kind: str) -> bytes:
    """A valid qrels / run / trec_eval file, then 0-3 realistic corruptions."""
    # each line: [tokens or raw bytes, byte insertions [(position, bytes)]]
    lines: list = [[list(r), []] for r in _base_rows(kind, draw)]
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["extra_field", "drop_field", "number", "number", "header", "blank", "blank",
                                   "nul", "utf8", "junk", "long", "quote", "hash", "lone_cr", "spaces_in_id"]))
        i = draw(st.integers(0, len(lines) - 1))
        tok_lines = [k for k, ln in enumerate(lines) if isinstance(ln[0], list) and ln[0]]
        toks = lines[draw(st.sampled_from(tok_lines))][0] if tok_lines else None
        if op == "extra_field" and toks is not None:
            toks.insert(draw(st.integers(0, len(toks))), draw(st.sampled_from(["0", "x", "extra", "#"])))
        elif op == "drop_field" and toks is not None:
            toks.pop(draw(st.integers(0, len(toks) - 1)))
        elif op == "number" and toks is not None:
            cols = [c for c in _NUM_COLS[kind] if c < len(toks)]
            if cols:
                c = draw(st.sampled_from(cols))
                toks[c] = draw(st.sampled_from(_NUM_COLS[kind][c]))
        elif op == "header":
            lines.insert(0, [draw(st.sampled_from(_HEADERS[kind])).split(), []])
        elif op == "blank":
            lines.insert(draw(st.integers(0, len(lines))),
                         [draw(st.sampled_from([b"", b"   ", b"\t", b" \t \t"])), []])
        elif op == "junk":
            lines[i] = [draw(JUNK), []]
        elif op == "long" and toks is not None:
            toks[0] = toks[0] + "z" * draw(st.integers(10_000, 150_000))
        elif op == "quote" and toks is not None:
            toks[0] = draw(st.sampled_from(['"', "'", '""'])) + toks[0]
        elif op == "hash" and toks is not None:
            toks[min(2, len(toks) - 1)] += "#" + draw(st.sampled_from(["", "8_3138708572", "#"]))
        elif op == "spaces_in_id" and toks is not None:
            toks[0] = toks[0] + " " + toks[0]
        elif op in ("nul", "utf8", "lone_cr"):
            ins = {"nul": b"\x00", "lone_cr": b"\r", "utf8": draw(st.sampled_from(BAD_UTF8))}[op]
            lines[i][1].append((draw(st.integers(0, 10**6)), ins))
    # render: clean files (one separator, as real files are) or messy whitespace
    style = draw(st.sampled_from(["space", "space", "tab", "messy"]))
    seps = st.sampled_from([" ", " ", "\t", "  ", " \t "]) if style == "messy" else st.just(
        " " if style == "space" else "\t")
    out = []
    for content, inserts in lines:
        if isinstance(content, bytes):
            b = content
        else:
            lead = draw(st.sampled_from(["", "", "", " ", "\t"])) if style == "messy" else ""
            trail = draw(st.sampled_from(["", "", "", " ", "\t "])) if style == "messy" else ""
            b = (lead + draw(seps).join(content) + trail).encode()
        for pos, ins in inserts:
            p = pos % (len(b) + 1)
            b = b[:p] + ins + b[p:]
        out.append(b)
    eol = draw(st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"]))
    data = eol.join(out) + (eol if draw(st.booleans()) else b"")
    whole = draw(st.sampled_from(["none"] * 12 + ["empty", "whitespace", "gzip", "gzip", "truncated_gzip", "bom"]))
    if whole == "empty":
        data = b""
    elif whole == "whitespace":
        data = draw(st.sampled_from([b" ", b"\n\n", b"\t\r\n  \n", b"\x0c\x0b\n"]))
    elif whole == "gzip":
        data = gzip.compress(data, mtime=0)
    elif whole == "truncated_gzip":
        gz = gzip.compress(data, mtime=0)
        data = gz[: draw(st.integers(10, len(gz) - 1))]
    elif whole == "bom":
        data = b"\xef\xbb\xbf" + data
    return data


def _check_ws(reader, kind, data, name, tmp_dir, use_file, **kw):
    expected = ws_oracle(data, kind)
    event(f"oracle: {expected[0]}" + (f" ({expected[2]})" if expected[0] == "error" else ""))
    if use_file:
        path = tmp_dir / name
        path.write_bytes(data)
        src, name = path, str(path)
    else:
        src = bstream(data, name)
    df, err = call(reader, src, **kw)
    if err is not None:
        assert expected[0] == "error", f"valid input rejected: {err}\n{data[:300]!r}"
        expect_error(err, name, expected[1])
        if err.line is not None and err.text is not None:  # the text shown is that line's
            raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
            want = split_lines(raw)[err.line - 1].decode("utf-8", errors="replace")
            # the reader may show the line with its \r (CRLF files) and without a byte-order mark
            shown = {_shorten(w + end) for w in (want, want.removeprefix("\ufeff")) for end in ("", "\r")}
            assert err.text in shown, (err.text, want)
        if expected[2] == "gzip":
            assert "gzip" in str(err)
        if expected[2] == "empty":
            assert "empty" in str(err)
        return
    assert expected[0] == "ok", \
        f"expected an error ({expected[2]} at {expected[1]}), got {len(df)} rows\n{data[:300]!r}"
    _, rows, lines, n_all = expected
    assert len(df) == len(rows)
    assert list(df.attrs["lines"]) == lines
    return df, rows, n_all


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("io_fuzz")


@FUZZ
@given(data=whitespace_file("qrels"), use_file=st.booleans())
def read_qrels_fuzz_test(fuzz_dir, data, use_file):
    res = _check_ws(metaeval.read_qrels, "qrels", data, "fuzz.qrels", fuzz_dir, use_file)
    if res:
        df, rows, _ = res
        assert list(df.columns) == ["query_id", "doc_id", "relevance"]
        assert df["relevance"].dtype == np.int64
        assert df["query_id"].tolist() == [r[0] for r in rows]
        assert df["doc_id"].tolist() == [r[1] for r in rows]      # '#' and quotes kept verbatim
        assert df["relevance"].tolist() == [r[2] for r in rows]


@FUZZ
@given(data=whitespace_file("run"), use_file=st.booleans())
def read_run_fuzz_test(fuzz_dir, data, use_file):
    res = _check_ws(metaeval.read_run, "run", data, "fuzz.run", fuzz_dir, use_file)
    if res:
        df, rows, _ = res
        assert list(df.columns) == ["query_id", "doc_id", "score", "rank", "run_id"]
        assert df["rank"].dtype == np.int64 and df["score"].dtype == np.float64
        assert df["query_id"].tolist() == [r[0] for r in rows]
        assert df["doc_id"].tolist() == [r[1] for r in rows]
        np.testing.assert_allclose(df["score"].to_numpy(), [r[2] for r in rows], rtol=1e-12)
        assert df["rank"].tolist() == [r[3] for r in rows]
        assert df["run_id"].tolist() == [r[4] for r in rows]


@FUZZ
@given(data=whitespace_file("score"), use_file=st.booleans())
def read_score_table_trec_eval_fuzz_test(fuzz_dir, data, use_file):
    res = _check_ws(metaeval.read_score_table, "score", data, "fuzz.ndcg_cut", fuzz_dir, use_file)
    if res:
        df, rows, n_all = res
        assert list(df.columns) == ["system", "query_id", "measure", "value"]
        assert df.attrs["dropped_all_rows"] == n_all
        for got, want in zip(df["system"], [r[0] for r in rows]):
            assert got == (want if want is not None else got)
        assert df["query_id"].tolist() == [r[1] for r in rows]
        assert df["measure"].tolist() == [r[2] for r in rows]
        np.testing.assert_allclose(df["value"].to_numpy(), [r[3] for r in rows], rtol=1e-12)


@FUZZ
@given(data=whitespace_file("qrels"))
def read_qrels_fast_and_pandas_paths_agree_fuzz_test(data):
    """A leading blank line forces the pandas path; clean files take the pyarrow one. Same answer."""
    fast = metaeval.data.io._fast_split(data, metaeval.data.io._QRELS_FIELDS) is not None
    event(f"fast path taken: {fast}")
    a, ea = call(metaeval.read_qrels, bstream(data, "a"))
    if data[:2] == b"\x1f\x8b" or data.startswith(b"\xef\xbb\xbf"):
        return
    b, eb = call(metaeval.read_qrels, bstream(b"\n" + data, "a"))
    assert (ea is None) == (eb is None)
    if ea is None:
        pd.testing.assert_frame_equal(a, b)
        assert list(b.attrs["lines"]) == [x + 1 for x in a.attrs["lines"]]
    else:
        assert eb.line == (ea.line + 1 if ea.line is not None else None), (str(ea), str(eb))


# --------------------------------------------------------------------------------------------
# table formats (CSV, TSV, JSONL): generator that records where each corruption went
# --------------------------------------------------------------------------------------------

TABLE_ID = st.one_of(
    st.from_regex(r"[A-Za-z0-9_]{1,10}", fullmatch=True),
    st.sampled_from(["#hash", "a#b", "msmarco_v2.1_doc_26_1828280420#8_3138708572", '"quoted"', "it's",
                     "a,b", "x\ty", "007", "NaN", "null", "\u00e9t\u00e9", "\U0001F600", "a\u2028b", "q\x85"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Zs")), min_size=1, max_size=8),
    st.builds(lambda n: "L" * n, st.integers(1_000, 60_000)),
)
GOOD_LABELS = {"0": 0.0, "1": 1.0, "2": 2.0, "3": 3.0, "2.5": 2.5, "-1": -1.0, "1e0": 1.0, "": math.nan,
               "NA": math.nan, "nan": math.nan, "null": math.nan, "None": math.nan, "n/a": math.nan}
BAD_LABELS = ["high", "x", "1..2", "TRUE", "0x1", "\u00bd", "3 stars", "--1"]
OUTCOME_GOOD = {"A": "A", "model_a": "A", "B": "B", "Model_B": "B", "tie": "tie", "draw": "tie", "Tie (A)": "tie_a",
                "tie_b": "tie_b", "parse_error": "invalid", "refusal": "invalid", "1": "A", "2": "B", "0": "tie",
                "a>b": "A", "": None}
OUTCOME_BAD = ["wins", "A>>B", "?", "3", "left-ish", "tie?"]


def _render_row(values: list, fmt: str, columns: list[str]) -> bytes:
    if fmt == "jsonl":
        rec = {}
        for c, v in zip(columns, values):
            if v is not _MISSING:
                rec[c] = v
        return json.dumps(rec, ensure_ascii=False).encode()
    buf = io.StringIO()
    csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n").writerow(
        ["" if v is None else v for v in values])
    return buf.getvalue()[:-1].encode()


_MISSING = object()


@st.composite
def table_file(draw, kind: str):
    """(bytes, fmt, kw for the reader, expected rows or None, bad lines or None, whole-file kind)."""
    fmt = draw(st.sampled_from(["csv", "tsv", "jsonl"]))
    n = draw(st.integers(1, 8))
    if kind == "judgments":
        columns = ["item_id", "label", "response"]
        rows = [[draw(TABLE_ID), draw(st.sampled_from(sorted(GOOD_LABELS))),
                 draw(st.sampled_from(["ok", "a,b", 'x"y', "", "\u00e9"]))] for _ in range(n)]
        bad_value = BAD_LABELS
    elif kind == "battles":
        columns = ["item_id", "model_a", "model_b", "outcome", "judge"]
        rows = [[draw(TABLE_ID), draw(st.sampled_from(["gpt-4", "llama#3"])), draw(st.sampled_from(["claude", "m,2"])),
                 draw(st.sampled_from(sorted(OUTCOME_GOOD))), "j1"] for _ in range(n)]
        bad_value = OUTCOME_BAD
    else:
        columns = ["qrels_source", "run_id", "qid", "metric", "value"]
        rows = [["human", draw(st.sampled_from(["r1", "r#2"])), draw(st.one_of(TABLE_ID, st.just("all"))),
                 draw(st.sampled_from(["map", "ndcg_cut_10"])), draw(st.sampled_from(["0.5", "1", "0", "", "nan"]))]
                for _ in range(n)]
        bad_value = ["high", "x", "1..2", "0x1"]
    value_col = {"judgments": 1, "battles": 3, "score": 4}[kind]
    id_col = {"judgments": 0, "battles": 0, "score": 2}[kind]
    # physical lines: ("header",), ("row", k), ("blank", bytes)
    layout = [("header",)] + [("row", k) for k in range(n)]
    for _ in range(draw(st.integers(0, 3))):
        blank = draw(st.sampled_from([b"", b"", b"   "] + ([b"\t", b" \t "] if fmt == "csv" else [])))
        layout.insert(draw(st.integers(0, len(layout))), ("blank", blank))
    bad = draw(st.sampled_from(["none"] * 6 + ["value", "empty_id", "nul", "utf8", "extra_field", "short",
                                               "unclosed_quote", "dup_header", "missing_column", "invalid_json",
                                               "not_object", "deep", "empty", "junk", "truncated_gzip"]))
    target = draw(st.integers(0, n - 1))
    if bad == "value":
        rows[target][value_col] = draw(st.sampled_from(bad_value))
    elif bad == "empty_id":
        rows[target][id_col] = "" if fmt != "jsonl" else draw(st.sampled_from(["", None]))
    header = list(columns)
    if bad == "dup_header":
        header[-1] = header[0]
    elif bad == "missing_column":
        header[value_col] = header[value_col] + "_renamed"
    out, row_lines, target_line = [], [], None
    for ln_no, item in enumerate(layout, 1):
        if item[0] == "header":
            if fmt == "jsonl":
                continue
            header_line = ln_no
            b = _render_row(header, fmt, header)
        elif item[0] == "blank":
            b = item[1]
        else:
            k = item[1]
            vals = list(rows[k])
            if fmt == "jsonl":
                b = _render_row(vals, fmt, header if bad == "missing_column" else columns)
            else:
                b = _render_row(vals, fmt, header)
            if k == target:
                target_line = ln_no if fmt != "jsonl" else None
                if bad == "nul":
                    b = b + b"\x00"
                elif bad == "utf8":
                    b = b + draw(st.sampled_from(BAD_UTF8))
                elif bad == "extra_field" and fmt != "jsonl":
                    b = b + (b"," if fmt == "csv" else b"\t") + b"extra"
                elif bad == "short" and fmt != "jsonl":
                    b = (b"," if fmt == "csv" else b"\t").join(b.split(b"," if fmt == "csv" else b"\t")[:-1])
                elif bad == "unclosed_quote" and fmt != "jsonl":
                    b = b'"' + b
                elif bad == "invalid_json" and fmt == "jsonl":
                    b = b[: draw(st.integers(1, len(b) - 1))]
                elif bad == "not_object" and fmt == "jsonl":
                    b = draw(st.sampled_from([b"[1, 2]", b'"text"', b"3", b"null", b"true"]))
                elif bad == "deep" and fmt == "jsonl":
                    b = b'{"item_id": "a", "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
                elif bad == "junk":
                    b = draw(JUNK).replace(b"\n", b"").replace(b"\r", b"")
            row_lines.append(ln_no)
        out.append(b)
    eol = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    data = eol.join(out) + (eol if draw(st.booleans()) else b"")
    if fmt == "jsonl":
        # physical line numbers: recount without the (absent) header line
        phys = [i for i, item in enumerate(layout) if item[0] != "header"]
        row_lines = [phys.index(layout.index(("row", k))) + 1 for k in range(n)]
        target_line = row_lines[target]
        header_line = None
    else:
        target_line = row_lines[target]
    if draw(st.integers(0, 9)) == 0 or bad == "truncated_gzip":
        data = gzip.compress(data, mtime=0)
    if bad == "truncated_gzip":
        data = data[: draw(st.integers(10, len(data) - 1))]
    if bad == "empty":
        data = draw(st.sampled_from([b"", b"\n", b"  \r\n"]))
    # what is expected
    effective = bad
    if bad in ("extra_field", "short", "unclosed_quote", "dup_header") and fmt == "jsonl":
        effective = "none"
    if bad in ("invalid_json", "not_object", "deep") and fmt != "jsonl":
        effective = "none"
    row_bytes = _render_row(list(rows[target]), fmt, columns)
    if effective == "unclosed_quote" and (b'"' in row_bytes or any(
            b'"' in x for x in out[layout.index(("row", target)) + 1:])):
        effective = "garbled"  # another quote closes it: the file may parse into something else
    if effective == "short":
        # pandas pads a short row with an empty value, which may be fine; quoted fields make it garbled
        effective = "garbled" if b'"' in row_bytes else "ambiguous"
    if effective == "junk":
        effective = "garbled"
    return data, fmt, columns, rows, row_lines, header_line, effective, target_line


def _expected_rows(kind, rows):
    out = []
    for r in rows:
        if kind == "judgments":
            out.append((r[0], GOOD_LABELS.get(r[1], None), r[2]))
        elif kind == "battles":
            out.append((r[0], r[1], r[2], OUTCOME_GOOD.get(r[3], "?")))
        else:
            out.append((r[1], r[2], r[3], math.nan if r[4] in ("", "nan") else float(r[4])))
    return out


def _check_table(kind, reader, generated, fuzz_dir, how, id_cols=None, **kw):
    data, fmt, columns, rows, row_lines, header_line, bad, target_line = generated
    name = f"fuzz_{kind}.{fmt}"
    if how == "file":
        path = fuzz_dir / name
        path.write_bytes(data)
        src, shown = path, str(path)
    elif how == "stream_ext":
        src, shown = bstream(data, name), name
    else:
        src, shown = bstream(data, "fuzz-stream"), "fuzz-stream"
        kw["format"] = fmt
    df, err = call(reader, src, **kw)
    event(f"{fmt}: {bad}: {'error' if err is not None else 'ok'}")
    id_cols = id_cols or [{"judgments": 0, "battles": 0, "score": 2}[kind]]
    id_is_empty = [any(r[c] in ("", None) for c in id_cols) for r in rows]
    if bad in ("none",) and not any(id_is_empty):
        assert err is None, f"valid {fmt} rejected: {err}\n{data[:400]!r}"
    if err is not None:
        if bad == "garbled":  # the contract only: a line-bearing InputError (or a whole-file one)
            n_lines = len(split_lines(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data))
            assert shown in str(err), str(err)
            if err.line is not None:
                assert 1 <= err.line <= n_lines and f"line {err.line}" in str(err), str(err)
            else:
                assert any(w in str(err) for w in ("empty", "no records", "not a table", "missing column")), str(err)
        elif bad == "ambiguous":
            expect_error(err, shown, {target_line} | ({header_line} if header_line else set())
                         | {ln for ln, e in zip(row_lines, id_is_empty) if e})
        elif bad in ("empty", "truncated_gzip"):
            expect_error(err, shown, None)
            assert ("gzip" if bad == "truncated_gzip" else "empty") in str(err), str(err)
        elif bad == "missing_column":
            assert "missing column" in str(err) and shown in str(err)
            assert err.line in (None, 1, header_line)
        elif bad == "dup_header":
            expect_error(err, shown, {header_line})
        elif bad == "deep":
            expect_error(err, shown, {target_line})
        else:
            bad_lines = {target_line} if bad != "none" else set()
            bad_lines |= {ln for ln, e in zip(row_lines, id_is_empty) if e}
            expect_error(err, shown, bad_lines)
        return
    assert bad in ("none", "ambiguous", "garbled"), f"expected an error ({bad} at line {target_line})\n{data[:400]!r}"
    assert df.columns.is_unique
    if bad == "garbled":
        return df, _expected_rows(kind, rows), bad
    # score tables drop trec_eval's own "all" rows
    kept = [k for k, r in enumerate(rows) if not (kind == "score" and r[2] == "all")]
    assert len(df) == len(kept)
    if bad == "none":
        assert list(df.attrs["lines"]) == [row_lines[k] for k in kept]
    return df, _expected_rows(kind, rows), bad


@FUZZ
@given(generated=table_file("judgments"), how=st.sampled_from(["file", "stream_ext", "stream_fmt"]))
def read_judgments_fuzz_test(fuzz_dir, generated, how):
    res = _check_table("judgments", metaeval.read_judgments, generated, fuzz_dir, how)
    if res:
        df, want, bad = res
        assert list(df.columns)[:2] == ["item_id", "label"]
        assert pd.api.types.is_string_dtype(df["item_id"].dtype)
        if bad == "none":
            assert df["item_id"].tolist() == [w[0] for w in want]
            np.testing.assert_array_equal(df["label"].to_numpy(dtype=float), [w[1] for w in want])


@FUZZ
@given(generated=table_file("judgments"))
def read_judgments_tuple_key_fuzz_test(fuzz_dir, generated):
    res = _check_table("judgments", metaeval.read_judgments, generated, fuzz_dir, "stream_ext", id_cols=[0, 2],
                       item=("item_id", "response"), judge="fuzzer")
    if res:
        df, want, bad = res
        assert list(df.columns) == ["item_id", "response", "label", "judge"]
        assert set(df["judge"]) <= {"fuzzer"}


@FUZZ
@given(generated=table_file("battles"), how=st.sampled_from(["file", "stream_ext", "stream_fmt"]))
def read_battles_fuzz_test(fuzz_dir, generated, how):
    res = _check_table("battles", metaeval.read_battles, generated, fuzz_dir, how)
    if res:
        df, want, bad = res
        assert list(df.columns) == ["item_id", "model_a", "model_b", "judge", "outcome"]
        assert set(df["outcome"].dropna()) <= set(metaeval.data.io.OUTCOMES)
        if bad == "none":
            assert df["item_id"].tolist() == [w[0] for w in want]
            assert [None if pd.isna(v) else v for v in df["outcome"]] == [w[3] for w in want]


@FUZZ
@given(generated=table_file("score"), how=st.sampled_from(["file", "stream_ext", "stream_fmt"]))
def read_score_table_table_fuzz_test(fuzz_dir, generated, how):
    res = _check_table("score", metaeval.read_score_table, generated, fuzz_dir, how)
    if res:
        df, want, bad = res
        assert list(df.columns)[:4] == ["system", "query_id", "measure", "value"]
        if bad == "none":
            keep = [w for w in want if w[1] != "all"]
            assert df.attrs["dropped_all_rows"] == len(want) - len(keep)
            assert df["query_id"].tolist() == [w[1] for w in keep]
            np.testing.assert_array_equal(df["value"].to_numpy(), [w[3] for w in keep])


# --------------------------------------------------------------------------------------------
# runs directories
# --------------------------------------------------------------------------------------------

@settings(FUZZ, max_examples=500)
@given(files=st.lists(whitespace_file("run"), min_size=1, max_size=3))
def read_runs_fuzz_test(tmp_path_factory, files):
    d = tmp_path_factory.mktemp("runs")
    for k, data in enumerate(files):
        (d / f"run{k}.txt").write_bytes(data)
    df, err = call(metaeval.read_runs, d)
    results = [ws_oracle(data, "run") for data in files]
    if err is not None:
        assert "run" in str(err)
        first_bad = next((k for k, r in enumerate(results) if r[0] == "error"), None)
        if first_bad is not None and str(d / f"run{first_bad}.txt") in str(err):
            expect_error(err, str(d / f"run{first_bad}.txt"), results[first_bad][1])
        else:  # the same tag in two files
            assert "also occurs" in str(err) and isinstance(err.line, int), str(err)
        return
    assert all(r[0] == "ok" for r in results)
    assert len(df) == sum(len(r[1]) for r in results)
    assert list(df.columns) == ["query_id", "doc_id", "score", "rank", "run_id"]
