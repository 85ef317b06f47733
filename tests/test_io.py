"""Deterministic unit tests of metaeval.io: canonical columns, dtypes, line numbers in errors, writers."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest

import metaeval
from metaeval import InputError
from metaeval.data import io as mio

V21 = "msmarco_v2.1_doc_26_1828280420#8_3138708572"  # an MS MARCO v2.1 segment id


def stream(data: bytes, name: str = "test.txt") -> io.BytesIO:
    bio = io.BytesIO(data)
    bio.name = name
    return bio


def is_str_column(s: pd.Series) -> bool:
    return pd.api.types.is_string_dtype(s.dtype) and all(isinstance(v, str) for v in s)


def raises_at(line: int | None, fn, *args, match: str | None = None, **kw) -> InputError:
    with pytest.raises(InputError) as ei:
        fn(*args, **kw)
    e = ei.value
    assert e.line == line, str(e)
    if line is not None:
        assert f"line {line}" in str(e)
    if match is not None:
        assert match.lower() in str(e).lower(), str(e)
    return e


# --------------------------------------------------------------------------------------------
# qrels
# --------------------------------------------------------------------------------------------

def read_qrels_columns_and_dtypes_test():
    df = metaeval.read_qrels(stream(b"19335 0 1017759 0\n19335 Q0 0082489 3\nq2 0 d 1\n"))
    assert list(df.columns) == ["query_id", "doc_id", "relevance"]
    assert is_str_column(df["query_id"]) and is_str_column(df["doc_id"])
    assert df["relevance"].dtype == np.int64
    # numeric-looking ids stay strings exactly as written (leading zeros kept)
    assert df["doc_id"].tolist() == ["1017759", "0082489", "d"]
    assert df["relevance"].tolist() == [0, 3, 1]
    assert df.attrs["source"] == "test.txt"
    assert list(df.attrs["lines"]) == [1, 2, 3]


def read_qrels_hash_in_segment_ids_kept_test():
    data = f"14 0 {V21} 2\n#15 0 #lead 1\n16 0 a#b#c 0\n".encode()
    df = metaeval.read_qrels(stream(data))
    assert df["doc_id"].tolist() == [V21, "#lead", "a#b#c"]
    assert df["query_id"].tolist() == ["14", "#15", "16"]


def read_qrels_gzip_path_and_stream_test(tmp_path):
    text = f"1 0 {V21} 2\n1 0 p2 0\n"
    p = tmp_path / "q.txt.gz"
    p.write_bytes(gzip.compress(text.encode()))
    for src in (p, str(p), stream(gzip.compress(text.encode()), "q.gz")):
        df = metaeval.read_qrels(src)
        assert df.to_dict("records") == [{"query_id": "1", "doc_id": V21, "relevance": 2},
                                         {"query_id": "1", "doc_id": "p2", "relevance": 0}]


def read_qrels_corrupt_gzip_test():
    gz = gzip.compress(b"1 0 d 1\n" * 100)
    e = raises_at(None, metaeval.read_qrels, stream(gz[: len(gz) // 2], "cut.gz"), match="gzip")
    assert "cut.gz" in str(e)


def read_qrels_blank_lines_skipped_and_counted_test():
    data = b"\n  \n1 0 a 1\n\n1 0 b 2\n\t\n1 0 c x\n"
    e = raises_at(7, metaeval.read_qrels, stream(data), match="not an integer")
    assert "1 0 c x" in str(e)
    df = metaeval.read_qrels(stream(data.replace(b" x", b" 0")))
    assert len(df) == 3
    assert list(df.attrs["lines"]) == [3, 5, 7]


def read_qrels_leading_blank_lines_test():
    # regression: a blank first line made pandas see zero columns ("the file is empty")
    df = metaeval.read_qrels(stream(b"\n\n1 0 a 1\n1 0 b 2\n"))
    assert df["doc_id"].tolist() == ["a", "b"] and list(df.attrs["lines"]) == [3, 4]
    raises_at(4, metaeval.read_qrels, stream(b"\n\n1 0 a 1\n1 0 b 2 9\n"), match="5 fields")


def read_qrels_crlf_tabs_and_mixed_whitespace_test():
    want = [{"query_id": "1", "doc_id": "a", "relevance": 1}, {"query_id": "2", "doc_id": "b", "relevance": 0}]
    for data in (b"1 0 a 1\r\n2 0 b 0\r\n", b"1\t0\ta\t1\n2\t0\tb\t0\n", b"  1 \t0  a 1  \n2 0\tb 0",
                 b"1 0 a 1\r2 0 b 0\r"):
        assert metaeval.read_qrels(stream(data)).to_dict("records") == want, data


def read_qrels_header_rejected_test():
    e = raises_at(1, metaeval.read_qrels, stream(b"qid iter docno rel\n1 0 a 1\n"), match="header")
    assert "delete the header line" in str(e)
    # a 3-field header on a 4-field file is reported on line 1 too
    raises_at(1, metaeval.read_qrels, stream(b"qid docno rel\n1 0 a 1\n1 0 b 2\n"), match="found 3 fields")


def read_qrels_pool_file_rejected_test():
    e = raises_at(1, metaeval.read_qrels, stream(b"q1 0 p1\nq1 0 p2\n", "pool.txt"), match="unlabelled pool")
    assert "read_judgments" in str(e) and "pool.txt" in str(e)


def read_qrels_field_count_errors_name_the_line_test():
    raises_at(2, metaeval.read_qrels, stream(b"1 0 a 1\n1 0 b\n1 0 c 2\n"), match="found 3 fields")
    raises_at(3, metaeval.read_qrels, stream(b"1 0 a 1\n1 0 b 2\n1 0 c 2 extra\n"), match="found 5 fields")
    raises_at(1, metaeval.read_qrels, stream(b"1 0 a 1 x\n1 0 b 2\n"), match="found 5 fields")
    raises_at(2, metaeval.read_qrels, stream(b'1 0 a 1\n1 0 "b c" 2\n'), match="fields")


def read_qrels_relevance_values_test():
    df = metaeval.read_qrels(stream(b"1 0 a -1\n1 0 b 2.0\n1 0 c +3\n1 0 d 1e0\n1 0 e 01\n"))
    assert df["relevance"].tolist() == [-1, 2, 3, 1, 1]
    for bad in (b"1.5", b"nan", b"inf", b"0x1", b"two", b"99999999999999999999"):
        raises_at(2, metaeval.read_qrels, stream(b"1 0 a 1\n1 0 b " + bad + b"\n"), match="not an integer")
    # a non-integer number on line 1 is not called a header
    e = raises_at(1, metaeval.read_qrels, stream(b"1 0 a 1.5\n"))
    assert "header" not in str(e)


def read_qrels_binary_and_encoding_test():
    raises_at(2, metaeval.read_qrels, stream(b"1 0 a 1\n1 0 b\x00 1\n"), match="NUL")
    raises_at(3, metaeval.read_qrels, stream(b"1 0 a 1\n\n1 0 \xff 1\n"), match="UTF-8")
    df = metaeval.read_qrels(stream("1 0 caf\u00e9\U0001F600 1\n".encode()))
    assert df["doc_id"].tolist() == ["caf\u00e9\U0001F600"]
    df = metaeval.read_qrels(stream(b"\xef\xbb\xbf1 0 a 1\n"))  # a UTF-8 byte-order mark
    assert df["query_id"].tolist() == ["1"]


def read_qrels_whole_file_problems_test(tmp_path):
    raises_at(None, metaeval.read_qrels, stream(b""), match="empty")
    raises_at(None, metaeval.read_qrels, stream(b" \n\t\n\r\n"), match="empty")
    raises_at(None, metaeval.read_qrels, tmp_path / "nope.txt", match="not found")
    raises_at(None, metaeval.read_qrels, tmp_path, match="directory")


def read_qrels_dataframe_input_test():
    df = metaeval.read_qrels(pd.DataFrame({"query_id": [1, 2], "doc_id": ["a", "b"], "relevance": [1.0, 0.0]}))
    assert df["query_id"].tolist() == ["1", "2"] and df["relevance"].dtype == np.int64
    with pytest.raises(InputError, match="relevance"):
        metaeval.read_qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1.5]}))


def fast_and_pandas_paths_agree_test():
    # clean files take a pyarrow fast path; a leading blank line forces the pandas path
    rng = np.random.default_rng(0)
    lines = [f"{rng.integers(1, 10**6)}\t0\tmsmarco_v2.1_doc_{i:02d}#{i}_{rng.integers(10**9)}\t{rng.integers(0, 4)}"
             for i in range(300)]
    data = ("\n".join(lines) + "\n").encode()
    fast = metaeval.read_qrels(stream(data))
    slow = metaeval.read_qrels(stream(b"\n" + data))
    pd.testing.assert_frame_equal(fast, slow)
    assert list(slow.attrs["lines"]) == [i + 2 for i in range(300)]
    assert mio._fast_split(data, mio._QRELS_FIELDS) is not None
    assert mio._fast_split(data.replace(b"\t", b"  "), mio._QRELS_FIELDS) is None


# --------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------

RUN = b"19335 Q0 8412682 1 4.0694156 ICT-BERT2\n19335 Q0 84#12 2 nan ICT-BERT2\n19336\tQ0\tx\t1\t-1e3\tICT-BERT2\n"


def read_run_columns_and_dtypes_test():
    df = metaeval.read_run(stream(RUN))
    assert list(df.columns) == ["query_id", "doc_id", "score", "rank", "run_id"]
    assert is_str_column(df["query_id"]) and is_str_column(df["doc_id"]) and is_str_column(df["run_id"])
    assert df["score"].dtype == np.float64 and df["rank"].dtype == np.int64
    assert df["doc_id"].tolist() == ["8412682", "84#12", "x"]
    assert df["score"].iloc[0] == 4.0694156 and np.isnan(df["score"].iloc[1]) and df["score"].iloc[2] == -1000.0
    assert df["run_id"].unique().tolist() == ["ICT-BERT2"]
    assert metaeval.read_run(stream(RUN), run_id="mine")["run_id"].unique().tolist() == ["mine"]


def read_run_errors_test():
    raises_at(1, metaeval.read_run, stream(b"qid Q0 docno rank score tag\n1 Q0 a 1 1.0 t\n"), match="header")
    raises_at(2, metaeval.read_run, stream(b"1 Q0 a 1 1.0 t\n1 Q0 b 2.5 1.0 t\n"), match="rank is not an integer")
    raises_at(2, metaeval.read_run, stream(b"1 Q0 a 1 1.0 t\n1 Q0 b 2 high t\n"), match="score is not a number")
    raises_at(1, metaeval.read_run, stream(b"1 0 a 1\n"), match="found 4 fields")


def read_runs_directory_and_duplicate_tags_test(tmp_path):
    (tmp_path / "r1.txt").write_bytes(b"1 Q0 a 1 2.0 r1\n1 Q0 b 2 1.0 r1\n")
    with gzip.open(tmp_path / "r2.txt.gz", "wb") as fh:
        fh.write(b"1 Q0 a 1 2.0 r2\n")
    (tmp_path / ".hidden").write_bytes(b"junk")
    df = metaeval.read_runs(tmp_path)
    assert len(df) == 3 and df["run_id"].tolist() == ["r1", "r1", "r2"]
    assert df.attrs["source"] == [str(tmp_path / "r1.txt"), str(tmp_path / "r2.txt.gz")]
    (tmp_path / "r3.txt").write_bytes(b"\n1 Q0 a 1 2.0 r1\n")
    e = raises_at(2, metaeval.read_runs, tmp_path, match="also occurs")
    assert "r3.txt" in str(e)
    raises_at(None, metaeval.read_runs, [], match="no run files")
    empty = tmp_path / "empty"
    empty.mkdir()
    raises_at(None, metaeval.read_runs, empty, match="no run files")


# --------------------------------------------------------------------------------------------
# score tables
# --------------------------------------------------------------------------------------------

TREC_EVAL_Q = b"""runid                 \tall\tICT-BERT2
num_q                 \tall\t43
ndcg_cut_10           \t1037798\t0.1600
ndcg_cut_10           \t104861\t1.0000
ndcg_cut_10           \tall\t0.5800
map                   \t104861\tnan
"""


def read_score_table_trec_eval_test():
    df = metaeval.read_score_table(stream(TREC_EVAL_Q, "run.ndcg"))
    assert list(df.columns) == ["system", "query_id", "measure", "value"]
    assert df["system"].unique().tolist() == ["ICT-BERT2"]
    assert df["query_id"].tolist() == ["1037798", "104861", "104861"]
    assert df.attrs["dropped_all_rows"] == 2
    assert list(df.attrs["lines"]) == [3, 4, 6]
    assert np.isnan(df["value"].iloc[2])
    kept = metaeval.read_score_table(stream(TREC_EVAL_Q), keep_all=True)
    assert len(kept) == 5 and kept.attrs["dropped_all_rows"] == 0
    assert metaeval.read_score_table(stream(TREC_EVAL_Q), system="x")["system"].unique().tolist() == ["x"]


def read_score_table_trec_eval_errors_test():
    raises_at(3, metaeval.read_score_table, stream(b"runid all a\nmap 1 0.5\nrunid all b\n"), match="several runid")
    raises_at(2, metaeval.read_score_table, stream(b"map 1 0.5\nmap 2 high\n"), match="value is not a number")
    raises_at(1, metaeval.read_score_table, stream(b"map 1 0.5 extra\n"), match="found 4 fields")


def read_score_table_table_test(tmp_path):
    p = tmp_path / "per_query.tsv"
    p.write_text("qrels_source\trun_id\tqid\tmetric\tvalue\nhuman\tr1\t1\tmap\t0.5\nhuman\tr1\tall\tmap\t0.5\n"
                 "syndl\tr1\t0023\tmap\t\n")
    df = metaeval.read_score_table(p)
    assert list(df.columns) == ["system", "query_id", "measure", "value", "qrels_source"]
    assert df["query_id"].tolist() == ["1", "0023"] and df.attrs["dropped_all_rows"] == 1
    assert np.isnan(df["value"].iloc[1])
    # format= on a stream (regression: it used to be ignored and the table parsed as trec_eval output)
    df = metaeval.read_score_table(stream(b"system,query_id,measure,value\nr,q,m,1\n", "scores"), format="csv")
    assert df.to_dict("records") == [{"system": "r", "query_id": "q", "measure": "m", "value": 1.0}]
    bad = tmp_path / "s.csv"
    bad.write_text("system,query,metric,value\nr,1,map,high\n")
    raises_at(2, metaeval.read_score_table, bad, match="not a number")
    miss = tmp_path / "m.csv"
    miss.write_text("system,qid,value\nr,1,0.5\n")
    e = raises_at(1, metaeval.read_score_table, miss, match="missing column")
    assert "system, qid, value" in str(e)


# --------------------------------------------------------------------------------------------
# judgments
# --------------------------------------------------------------------------------------------

def read_judgments_single_key_renamed_test(tmp_path):
    p = tmp_path / "j.csv"
    p.write_text("id,score,response,generator\n007,3,hello,gpt\nx#1,,bye,claude\n")
    df = metaeval.read_judgments(p, item="id", label="score")
    assert list(df.columns) == ["item_id", "label", "response", "generator"]
    assert df["item_id"].tolist() == ["007", "x#1"] and is_str_column(df["item_id"])
    assert df["label"].dtype == np.float64 and df["label"].iloc[0] == 3 and np.isnan(df["label"].iloc[1])
    assert df["response"].tolist() == ["hello", "bye"]
    assert list(df.attrs["lines"]) == [2, 3]


def read_judgments_tuple_key_and_judge_test(tmp_path):
    p = tmp_path / "j.tsv"
    p.write_text("query_id\tdoc_id\tlabel\tmodel\tlatency\n1\ta\t2\tgpt-4o\t0.3\n1\tb\t0\tllama\t0.1\n")
    df = metaeval.read_judgments(p, item=("query_id", "doc_id"), judge="model")
    assert list(df.columns) == ["query_id", "doc_id", "label", "judge", "latency"]
    assert df["judge"].tolist() == ["gpt-4o", "llama"]
    const = metaeval.read_judgments(p, item=["query_id", "doc_id"], judge="umbrela")
    assert const["judge"].tolist() == ["umbrela", "umbrela"]
    assert "model" in const.columns  # metadata kept
    text = metaeval.read_judgments(p, item=("query_id", "doc_id"), label="model", numeric=False)
    assert text["label"].tolist() == ["gpt-4o", "llama"]


def read_judgments_missing_column_names_available_test(tmp_path):
    p = tmp_path / "j.csv"
    p.write_text("qid,docid,rel\n1,a,1\n")
    e = raises_at(1, metaeval.read_judgments, p, item=("query_id", "doc_id"), label="rel", match="missing column")
    assert "'query_id'" in str(e) and "qid, docid, rel" in str(e)


def read_judgments_errors_name_the_line_test(tmp_path):
    raises_at(4, metaeval.read_judgments, stream(b"item_id,label\na,1\n\nb,high\n"), format="csv",
              match="not a number")
    raises_at(4, metaeval.read_judgments, stream(b"item_id,label\na,1\n   \n,2\n"), format="csv",
              match="empty id")  # whitespace-only line 3 is skipped: the empty id is on line 4
    # whitespace-only lines are skipped by pandas: the line numbers must still count them
    raises_at(4, metaeval.read_judgments, stream(b"item_id,label\na,1\n   \nb,x\n"), format="csv")
    raises_at(3, metaeval.read_judgments, stream(b"item_id,label\na,1\nb,2,3\n"), format="csv", match="3 fields")
    # regression: one extra field on the first data row became a silent index column
    raises_at(2, metaeval.read_judgments, stream(b"item_id,label\na,1,3\nb,2\n"), format="csv", match="3 fields")
    # regression: a never-closed quote had no line
    raises_at(3, metaeval.read_judgments, stream(b'item_id,label\na,1\n"b,2\nc,3\n'), format="csv",
              match="quote")
    # regression: pandas renames a repeated column (label -> label.1) silently
    raises_at(1, metaeval.read_judgments, stream(b"item_id,label,label\na,1,2\n"), format="csv", match="repeated")
    raises_at(1, metaeval.read_judgments, stream(b"item_id,,label\na,1,2\n"), format="csv", match="empty or repeated")
    raises_at(2, metaeval.read_judgments, stream(b"item_id,label\na\x00,1\n"), format="csv", match="NUL")
    raises_at(None, metaeval.read_judgments, stream(b"item_id,label\n", "data"), match="format")  # no extension
    raises_at(None, metaeval.read_judgments, stream(b""), format="csv", match="empty")


def read_judgments_header_with_dotted_name_is_fine_test():
    df = metaeval.read_judgments(stream(b"a,a.1\nx,1\n"), item="a", label="a.1", format="csv")
    assert df.to_dict("records") == [{"item_id": "x", "label": 1.0}]


def read_judgments_jsonl_and_json_test():
    data = '{"item_id": 1, "label": 2, "text": "a\u2028b"}\n\n{"item_id": "x#2", "label": null}\r\n'.encode()
    df = metaeval.read_judgments(stream(data), format="jsonl")
    assert df["item_id"].tolist() == ["1", "x#2"]
    assert df["text"].iloc[0] == "a\u2028b"  # regression: splitlines() split at U+2028
    assert list(df.attrs["lines"]) == [1, 3]
    assert metaeval.read_judgments(stream(b"\xef\xbb\xbf" + data), format="jsonl")["item_id"].tolist() == ["1", "x#2"]
    raises_at(2, metaeval.read_judgments, stream(b'{"item_id": 1, "label": 2}\n{"item_id": 2,\n'), format="jsonl",
              match="invalid JSON")
    raises_at(1, metaeval.read_judgments, stream(b"[1, 2]\n"), format="jsonl", match="not an object")
    deep = b'{"item_id": 1, "label": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    raises_at(1, metaeval.read_judgments, stream(deep), format="jsonl", match="nested")  # was RecursionError
    raises_at(None, metaeval.read_judgments, stream(b"[" * 100_000 + b"]" * 100_000), format="json", match="nested")
    recs = json.dumps([{"item_id": "a", "label": 1}, {"item_id": "b", "label": 0}]).encode()
    assert metaeval.read_judgments(stream(recs), format="json")["label"].tolist() == [1.0, 0.0]
    cols = json.dumps({"item_id": ["a", "b"], "label": [1, 0]}).encode()
    assert metaeval.read_judgments(stream(cols), format="json")["item_id"].tolist() == ["a", "b"]
    raises_at(2, metaeval.read_judgments, stream(b'[{"item_id": "a",\n "label": 1]'), format="json", match="JSON")


def read_judgments_parquet_test(tmp_path):
    p = tmp_path / "j.parquet"
    pd.DataFrame({"item_id": [1, 2], "label": [0.0, None], "note": ["a", "b"]}).to_parquet(p)
    df = metaeval.read_judgments(p)
    assert df["item_id"].tolist() == ["1", "2"] and np.isnan(df["label"].iloc[1])
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet")
    raises_at(None, metaeval.read_judgments, bad, match="Parquet")


def read_judgments_dataframe_test():
    df = metaeval.read_judgments(pd.DataFrame({"q": [1, 2], "lab": [0, 1], "extra": ["u", "v"]}), item="q", label="lab")
    assert list(df.columns) == ["item_id", "label", "extra"] and df["item_id"].tolist() == ["1", "2"]


# --------------------------------------------------------------------------------------------
# battles
# --------------------------------------------------------------------------------------------

BATTLES = b"""item_id,model_a,model_b,outcome,judge,length_a
1,gpt,llama,model_a,j,10
2,gpt,llama,B,j,11
3,gpt,llama,draw,j,12
4,gpt,llama,Tie (A),j,13
5,gpt,llama,tie_b,j,14
6,gpt,llama,parse_error,j,15
7,gpt,llama,,j,16
8,gpt,llama,a>b,j,17
9,gpt,llama,refusal,j,18
"""


def read_battles_normalization_test():
    df = metaeval.read_battles(stream(BATTLES, "b.csv"))
    assert list(df.columns) == ["item_id", "model_a", "model_b", "judge", "outcome", "length_a"]
    out = df["outcome"].tolist()
    assert out[:6] == ["A", "B", "tie", "tie_a", "tie_b", "invalid"]
    assert pd.isna(out[6]) and out[7:] == ["A", "invalid"]
    assert set(df["outcome"].dropna()) <= set(metaeval.data.io.OUTCOMES)
    assert df["length_a"].tolist()[0] == "10"  # metadata columns are kept unchanged


def read_battles_unknown_outcome_test():
    data = b"item_id,model_a,model_b,outcome\n1,a,b,A\n2,a,b,wins\n3,a,b,wins\n4,a,b,??\n"
    e = raises_at(3, metaeval.read_battles, stream(data, "b.csv"), match="unknown outcome")
    assert "'wins' (2)" in str(e) and "'??' (1)" in str(e)
    df = metaeval.read_battles(stream(data, "b.csv"), outcomes={"WINS": "A", "??": "invalid"})
    assert df["outcome"].tolist() == ["A", "A", "A", "invalid"]
    with pytest.raises(InputError, match="maps to"):
        metaeval.read_battles(stream(data, "b.csv"), outcomes={"wins": "C"})


def read_battles_columns_and_judge_test(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_text('{"id": 1, "m1": "x", "m2": "y", "winner": 1}\n{"id": 2, "m1": "x", "m2": "y", "winner": null}\n'
                 '{"id": 3, "m1": "x", "m2": "y", "winner": 2}\n')
    df = metaeval.read_battles(p, item="id", model_a="m1", model_b="m2", outcome="winner", judge="gpt-4")
    assert df["judge"].unique().tolist() == ["gpt-4"]
    # regression: numeric outcomes with a null came back as 1.0 and were "unknown"
    assert df["outcome"].tolist()[0] == "A" and pd.isna(df["outcome"].iloc[1]) and df["outcome"].iloc[2] == "B"
    e = raises_at(1, metaeval.read_battles, p, match="missing column")
    assert "id, m1, m2, winner" in str(e)


# --------------------------------------------------------------------------------------------
# writers
# --------------------------------------------------------------------------------------------

def write_read_qrels_round_trip_test(tmp_path):
    q = pd.DataFrame({"query_id": ["1", "q#2", "007"], "doc_id": [V21, "p1", "\u00e9t\u00e9"], "relevance": [0, 3, -1]})
    for name in ("q.txt", "q.txt.gz"):
        metaeval.write_qrels(q, tmp_path / name)
        back = metaeval.read_qrels(tmp_path / name)
        pd.testing.assert_frame_equal(back, q, check_dtype=False)
        assert back["relevance"].dtype == np.int64
    assert (tmp_path / "q.txt").read_text().splitlines()[0] == f"1 0 {V21} 0"


def write_read_run_round_trip_test(tmp_path):
    r = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", V21, "b"], "score": [0.1 + 0.2, -1e-300, 12.5],
                      "rank": [1, 2, 1], "run_id": ["t", "t", "t"]})
    for name in ("r.txt", "r.txt.gz"):
        metaeval.write_run(r, tmp_path / name)
        back = metaeval.read_run(tmp_path / name)
        pd.testing.assert_frame_equal(back[r.columns.tolist()], r, check_dtype=False)
        assert back["score"].tolist() == r["score"].tolist()  # repr() round-trips floats exactly


@pytest.mark.parametrize("ext", ["csv", "tsv", "jsonl", "parquet", "csv.gz"])
def write_table_round_trip_test(tmp_path, ext):
    df = pd.DataFrame({"system": ["r1", "r1", "r2"], "query_id": ["007", "q#1", "\u00fc"],
                       "measure": ["ndcg_cut_10"] * 3, "value": [0.25, 1.0, 0.0], "note": ["a,b", 'say "hi"', "x\ty"]})
    p = tmp_path / f"t.{ext}"
    metaeval.write_table(df, p)
    back = metaeval.read_score_table(p)
    assert back["query_id"].tolist() == ["007", "q#1", "\u00fc"]
    assert back["value"].tolist() == [0.25, 1.0, 0.0]
    assert back["note"].astype(str).tolist() == ["a,b", 'say "hi"', "x\ty"]
    j = metaeval.read_judgments(p, item=("system", "query_id"), label="value")
    assert j["label"].tolist() == [0.25, 1.0, 0.0]
    if ext != "parquet":
        first = p.read_bytes() if ext != "csv.gz" else gzip.decompress(p.read_bytes())
        metaeval.write_table(df, tmp_path / f"again.{ext}")
        again = (tmp_path / f"again.{ext}").read_bytes()
        assert (again if ext != "csv.gz" else gzip.decompress(again)) == first  # deterministic


def large_file_fast_path_matches_full_path_test(tmp_path):
    """Plain files of 1 MB or more are memory-mapped and parsed by pyarrow (metaeval.data.io._fast_file);
    the result must equal the full path's (used for streams), and any defect must fall back to the
    full path so that the error names the right line."""
    import io as _io

    rng = np.random.default_rng(5)
    n = 40_000
    lines = [f"{q} 0 msmarco_v2.1_doc_{d}#{d % 7}_{d} {r}" for q, d, r in
             zip(rng.integers(1000, 2000, n), rng.integers(0, 10**9, n), rng.integers(0, 4, n))]
    text = ("\n".join(lines) + "\n").encode()
    assert len(text) > (1 << 20)
    path = tmp_path / "big.qrels"
    path.write_bytes(text)
    assert metaeval.data.io._fast_file(path, metaeval.data.io._QRELS_FIELDS, ("relevance",)) is not None
    fast = metaeval.read_qrels(path)
    full = metaeval.read_qrels(_io.BytesIO(text))
    pd.testing.assert_frame_equal(fast, full)
    assert fast.attrs["lines"].tolist() == full.attrs["lines"].tolist()
    # a defect deep in the file: a header-like relevance, a NUL byte, an extra field, a hex label
    for bad_line, err in ((30_000, "relevance is not an integer"), (25_000, "NUL"), (20_001, "found 5 fields"),
                          (35_000, "relevance is not an integer")):
        broken = list(lines)
        if err == "NUL":
            broken[bad_line - 1] = broken[bad_line - 1].replace(" 0 ", " 0\x00 ")
        elif "5 fields" in err:
            broken[bad_line - 1] += " extra"
        elif bad_line == 35_000:
            broken[bad_line - 1] = broken[bad_line - 1].rsplit(" ", 1)[0] + " 0x1"
        else:
            broken[bad_line - 1] = broken[bad_line - 1].rsplit(" ", 1)[0] + " high"
        p = tmp_path / f"bad{bad_line}.qrels"
        p.write_bytes(("\n".join(broken) + "\n").encode())
        with pytest.raises(metaeval.InputError, match=err) as e:
            metaeval.read_qrels(p)
        assert e.value.line == bad_line


def frames_from_readers_concatenate_test():
    """pandas 3 compares attrs on concat; the line numbers must not make that fail (found by the
    figure gallery: pd.concat of two slices of read_battles output raised)."""
    from metaeval import datasets

    b = datasets.load("battles_like").battles
    both = pd.concat([b.iloc[:10], b.iloc[10:25]])
    assert len(both) == 25
    q = datasets.load("trec_dl_like").qrels_human
    assert len(pd.concat([q.iloc[:5], q.iloc[5:9]])) == 9


def write_table_parquet_of_a_reader_frame_test(tmp_path):
    # a reader's frame carries its line numbers in attrs; Parquet metadata cannot hold them (it raised
    # "LineNumbers is not JSON serializable"); the rows round-trip and the frame keeps its attrs
    q = metaeval.datasets.load("trec_dl_like").qrels_human
    metaeval.write_table(q, tmp_path / "q.parquet")
    back = pd.read_parquet(tmp_path / "q.parquet")
    pd.testing.assert_frame_equal(back, q.reset_index(drop=True), check_dtype=False)
    assert "lines" in q.attrs
