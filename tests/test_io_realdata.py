"""The readers on the real public data in ../shared/data: every qrels, run and score table there.

Expected numbers come from each folder's PROVENANCE.md (cited beside each number). Line counts are
also taken independently of the readers (plain ``gzip`` + ``bytes.splitlines``). The folder is found
at ``$METAEVAL_SHARED_DATA`` or ``<repo>/../shared/data``; without it every test here skips.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval

pytestmark = pytest.mark.realdata


def _find_data() -> tuple[Path | None, str]:
    env = os.environ.get("METAEVAL_SHARED_DATA")
    default = Path(__file__).resolve().parents[2] / "shared" / "data"
    if env:
        return (Path(env), "") if Path(env).is_dir() else (None, f"METAEVAL_SHARED_DATA={env} is not a directory")
    if default.is_dir():
        return default, ""
    return None, f"real data not found at {default} (set METAEVAL_SHARED_DATA to its location)"


DATA, WHY_MISSING = _find_data()


def folder(name: str) -> Path:
    if DATA is None:
        pytest.skip(WHY_MISSING)
    p = DATA / name
    if not p.is_dir():
        pytest.skip(f"{p} is absent")
    return p


def raw_lines(path: Path) -> list[bytes]:
    """The file's lines, decompressed if gzipped, counted without metaeval."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.splitlines()


def assert_rows_match_lines(df: pd.DataFrame, path: Path, *, header: bool = False) -> list[bytes]:
    lines = raw_lines(path)
    nonblank = [ln for ln in lines if ln.strip()]
    assert len(df) == len(nonblank) - header, path
    return nonblank


def assert_qrels_frame(df: pd.DataFrame) -> None:
    assert list(df.columns) == ["query_id", "doc_id", "relevance"]
    assert pd.api.types.is_string_dtype(df["query_id"].dtype) and pd.api.types.is_string_dtype(df["doc_id"].dtype)
    assert df["relevance"].dtype == np.int64


def label_counts(df: pd.DataFrame) -> dict:
    return {int(k): int(v) for k, v in df["relevance"].value_counts().sort_index().items()}


# --------------------------------------------------------------------------------------------
# trec_dl_passage
# --------------------------------------------------------------------------------------------

# trec_dl_passage/PROVENANCE.md, "Files": qrels/human/qrels.dlYY-passage.txt
DL_HUMAN = {
    "dl19": (9_260, 43, {0: 5158, 1: 1601, 2: 1804, 3: 697}),   # PROVENANCE.md: "DL19: 9,260 pairs / 43 topics (0:5158 1:1601 2:1804 3:697)"
    "dl20": (11_386, 54, {0: 7780, 1: 1940, 2: 1020, 3: 646}),  # PROVENANCE.md: "DL20: 11,386 / 54 (0:7780 1:1940 2:1020 3:646)"
    "dl21": (10_828, 53, {0: 4338, 1: 3063, 2: 2341, 3: 1086}),  # PROVENANCE.md: "DL21: 10,828 / 53 (0:4338 1:3063 2:2341 3:1086)"
}
# trec_dl_passage/PROVENANCE.md, "Files": qrels/llm/*.dlYY.txt -- pairs missing from the human pool
DL_LLM_MISSING = {
    "umbrela-zeroshot-gpt-4o": {"dl19": 0, "dl20": 0, "dl21": 0},  # PROVENANCE.md: "Labels 0-3, complete."
    "umbrela-zeroshot-gpt-4": {"dl19": 0, "dl20": 0, "dl21": 0},   # PROVENANCE.md: "Labels 0-3, complete."
    "binary-gpt-4o": {"dl19": 4, "dl20": 5, "dl21": 4},            # PROVENANCE.md: "DL19 is missing 4 pairs, DL20 5, DL21 4."
    "binary-gpt-4": {"dl19": 2, "dl20": 32, "dl21": 7},            # PROVENANCE.md: "Missing 2 / 32 / 7 pairs."
    "binary-llama3.2": {"dl19": 0, "dl20": 0, "dl21": 0},          # PROVENANCE.md: "Llama-3.2 (3B). Complete."
}
DL_RUNS = {"dl19": 37, "dl20": 59, "dl21": 63}  # PROVENANCE.md: "37 DL19, 59 DL20, 63 DL21 runs"


@pytest.mark.parametrize("year", sorted(DL_HUMAN))
def trec_dl_human_qrels_test(year):
    path = folder("trec_dl_passage") / "qrels" / "human" / f"qrels.{year}-passage.txt"
    df = metaeval.read_qrels(path)
    assert_qrels_frame(df)
    rows, topics, labels = DL_HUMAN[year]
    assert len(df) == rows
    assert df["query_id"].nunique() == topics
    assert label_counts(df) == labels
    assert_rows_match_lines(df, path)


@pytest.mark.parametrize("judge", sorted(DL_LLM_MISSING))
@pytest.mark.parametrize("year", sorted(DL_HUMAN))
def trec_dl_llm_qrels_test(year, judge):
    base = folder("trec_dl_passage") / "qrels"
    df = metaeval.read_qrels(base / "llm" / f"{judge}.{year}.txt")
    assert_qrels_frame(df)
    assert len(df) == DL_HUMAN[year][0] - DL_LLM_MISSING[judge][year]
    assert_rows_match_lines(df, base / "llm" / f"{judge}.{year}.txt")
    assert set(df["relevance"]) <= ({0, 1} if judge.startswith("binary") else {0, 1, 2, 3})
    human = metaeval.read_qrels(base / "human" / f"qrels.{year}-passage.txt")
    keys = set(zip(human["query_id"], human["doc_id"]))
    assert set(zip(df["query_id"], df["doc_id"])) <= keys  # "on the same pool as the human qrels"


@pytest.mark.parametrize("year", sorted(DL_RUNS))
def trec_dl_runs_test(year):
    d = folder("trec_dl_passage") / "runs" / year
    files = sorted(p for p in d.iterdir() if p.is_file() and not p.name.startswith("."))
    assert len(files) == DL_RUNS[year]
    df = metaeval.read_runs(d)
    assert list(df.columns) == ["query_id", "doc_id", "score", "rank", "run_id"]
    assert df["rank"].dtype == np.int64 and df["score"].dtype == np.float64
    assert df["run_id"].nunique() == DL_RUNS[year]
    per_file = {p.name.removesuffix(".trec.gz"): raw_lines(p) for p in files}
    # PROVENANCE.md: "The file name is the NIST run id and equals the tag column."
    assert set(df["run_id"]) == set(per_file)
    counts = df["run_id"].value_counts()
    for run, lines in per_file.items():
        assert counts[run] == len(lines), run
    assert len(df) == sum(len(v) for v in per_file.values())
    hashed = sum(1 for v in per_file.values() for ln in v if b"#" in ln)
    assert int((df["doc_id"].str.contains("#", regex=False) | df["query_id"].str.contains("#", regex=False)
                | df["run_id"].str.contains("#", regex=False)).sum()) == hashed
    # file order and the original text are kept: spot-check the first line of every run
    firsts = df.groupby("run_id", sort=False).head(1)
    for r in firsts.itertuples():
        toks = per_file[r.run_id][0].decode().split()
        assert (toks[0], toks[2], int(toks[3])) == (r.query_id, r.doc_id, r.rank)
        assert float(toks[4]) == pytest.approx(r.score, rel=1e-15, abs=0)


# --------------------------------------------------------------------------------------------
# llmjudge
# --------------------------------------------------------------------------------------------

# llmjudge/PROVENANCE.md: "Quirks: RMITIR-llama70B.txt has two labels of 5 and h2oloo-zeroshot2.txt has one label of 10."
LLMJUDGE_OUT_OF_SCALE = {"RMITIR-llama70B": (5, 2), "h2oloo-zeroshot2": (10, 1)}


def llmjudge_human_qrels_test():
    d = folder("llmjudge") / "human_qrels"
    dev = metaeval.read_qrels(d / "llm4eval_dev_qrel_2024.txt")
    assert_qrels_frame(dev)
    # PROVENANCE.md: "7,263 rows, 25 queries (q0..q49 style ids), labels 0:4538, 1:1403, 2:625, 3:697"
    assert len(dev) == 7_263 and dev["query_id"].nunique() == 25
    assert label_counts(dev) == {0: 4538, 1: 1403, 2: 625, 3: 697}
    test = metaeval.read_qrels(d / "llmjudge_test_qrel_idx.txt")
    # PROVENANCE.md: "The same 4,423 test pairs with the human labels ... Labels 0:2005, 1:1233, 2:808, 3:377."
    assert len(test) == 4_423 and test["query_id"].nunique() == 25  # PROVENANCE.md: "4,423 rows, 25 queries"
    assert label_counts(test) == {0: 2005, 1: 1233, 2: 808, 3: 377}
    assert_rows_match_lines(test, d / "llmjudge_test_qrel_idx.txt")


def llmjudge_unlabelled_pool_rejected_test():
    path = folder("llmjudge") / "human_qrels" / "llm4eval_test_qrel_2024.txt"
    # PROVENANCE.md: "`qid 0 docid`. 4,423 rows, 25 queries. These are the **unlabelled** test pairs"
    assert len(raw_lines(path)) == 4_423
    with pytest.raises(metaeval.InputError) as ei:
        metaeval.read_qrels(path)
    e = ei.value
    assert e.line == 1 and "line 1" in str(e) and str(path) in str(e)
    assert "unlabelled pool" in str(e) and "read_judgments" in str(e)


def _judge_files() -> list[Path]:
    return sorted((folder("llmjudge") / "llm_judgments").glob("*.txt"))


def llmjudge_judge_files_test():
    files = _judge_files()
    assert len(files) == 33  # PROVENANCE.md: "33 files with 4,423 rows each"
    test = metaeval.read_qrels(folder("llmjudge") / "human_qrels" / "llmjudge_test_qrel_idx.txt")
    keys = set(zip(test["query_id"], test["doc_id"]))
    for f in files:
        df = metaeval.read_qrels(f)
        assert_qrels_frame(df)
        assert len(df) == 4_423, f.name  # PROVENANCE.md: "33 files with 4,423 rows each, on the same keys as the test qrels"
        assert set(zip(df["query_id"], df["doc_id"])) == keys, f.name
        assert_rows_match_lines(df, f)


def llmjudge_align_out_of_scale_test():
    human_path = folder("llmjudge") / "human_qrels" / "llmjudge_test_qrel_idx.txt"
    human = metaeval.read_qrels(human_path)
    scale = metaeval.Scale((0, 1, 2, 3))
    found = {}
    for f in _judge_files():
        p = metaeval.align(human, f, scale=scale, out_of_scale="clip")
        oos = p.report.out_of_scale
        assert list(oos.columns) == ["side", "value", "count", "first_line", "policy"]
        if len(oos):
            assert len(oos) == 1 and oos["side"].iloc[0] == "candidate" and oos["policy"].iloc[0] == "clip", f.name
            value, count, first = int(oos["value"].iloc[0]), int(oos["count"].iloc[0]), int(oos["first_line"].iloc[0])
            found[f.stem] = (value, count)
            # the first line carrying that label, found without metaeval
            lines = raw_lines(f)
            want_first = next(i for i, ln in enumerate(lines, 1) if ln.split()[-1] == str(value).encode())
            assert first == want_first, f.name
        # every input row of both sides is accounted for exactly once
        fr = p.report.to_frame()
        assert list(fr.columns) == ["side", "category", "count"]
        per_side = fr.groupby("side")["count"].sum().to_dict()
        assert per_side == {"reference": len(human), "candidate": len(raw_lines(f))}, f.name
        assert len(p) == 4_423, f.name
        assert set(np.unique(p.candidate)) <= {0, 1, 2, 3}, f.name  # clipped into [0, 3]
    assert found == LLMJUDGE_OUT_OF_SCALE


# --------------------------------------------------------------------------------------------
# trec_rag25_umbrela
# --------------------------------------------------------------------------------------------

RAG25 = {
    # PROVENANCE.md: "10,284 rows, 22 topics. Label scale 0-4: 0:3619, 1:1499, 2:3760, 3:1318, 4:88."
    "qrels.rag25.test.human.txt": (10_284, 22, {0: 3619, 1: 1499, 2: 3760, 3: 1318, 4: 88}),
    # PROVENANCE.md: "Exactly the same 10,284 keys. 0:2524, 1:2399, 2:3790, 3:1263, 4:308."
    "qrels.rag25.test.umbrela2.txt": (10_284, 22, {0: 2524, 1: 2399, 2: 3790, 3: 1263, 4: 308}),
}


def rag25_qrels_test():
    d = folder("trec_rag25_umbrela")
    keys = []
    for name, (rows, topics, labels) in RAG25.items():
        df = metaeval.read_qrels(d / name)
        assert_qrels_frame(df)
        assert len(df) == rows and df["query_id"].nunique() == topics
        assert label_counts(df) == labels
        lines = assert_rows_match_lines(df, d / name)
        # segment ids contain '#': count those lines independently, nothing may be lost or cut
        with_hash = sum(1 for ln in lines if b"#" in ln)
        assert with_hash > 0
        assert int(df["doc_id"].str.contains("#", regex=False).sum()) == with_hash
        assert df["doc_id"].tolist() == [ln.split()[2].decode() for ln in lines]
        keys.append(set(zip(df["query_id"], df["doc_id"])))
    assert keys[0] == keys[1]  # PROVENANCE.md: "Exactly the same 10,284 keys."


# --------------------------------------------------------------------------------------------
# syndl
# --------------------------------------------------------------------------------------------

SYNDL_YEARS = (2019, 2020, 2021, 2022, 2023)
# syndl/PROVENANCE.md, gpt4_judgments: "Pairs: 10,772 / 18,224 / 66,093 / 56,475 / 45,282." and
# "Queries: 157 / 146 / 424 / 424 / 618."
SYNDL_GPT4 = {2019: (10_772, 157), 2020: (18_224, 146), 2021: (66_093, 424), 2022: (56_475, 424),
              2023: (45_282, 618)}
# syndl/PROVENANCE.md, per_query_results: "Rows (incl. header): 63,181 / 106,614 / 241,354 / 401,501 / 196,526."
SYNDL_PER_QUERY_ROWS = {2019: 63_181, 2020: 106_614, 2021: 241_354, 2022: 401_501, 2023: 196_526}
# syndl/PROVENANCE.md: "Runs per year: DL19 36 (idst_bert_p1 is absent from SynDL), DL20 59, DL21 63, DL22 100, DL23 35."
SYNDL_RUNS = {2019: 36, 2020: 59, 2021: 63, 2022: 100, 2023: 35}
# syndl/PROVENANCE.md: "Queries with values: human 43/54/53/76/82. syndl_full 192/194/424/424/618."
SYNDL_QUERIES = {2019: (43, 192), 2020: (54, 194), 2021: (53, 424), 2022: (76, 424), 2023: (82, 618)}


@pytest.mark.parametrize("year", (2019, 2020, 2021, 2023))
def syndl_human_qrels_test(year):
    path = folder("syndl") / "human_qrels" / f"qrels-pass.dl{year}.txt.gz"
    df = metaeval.read_qrels(path)
    assert_qrels_frame(df)
    assert_rows_match_lines(df, path)
    assert set(df["relevance"]) <= {0, 1, 2, 3}
    if year == 2023:
        # PROVENANCE.md: "The DL23 file has 22,327 pairs / 82 queries and contains all LLMJudge pairs"
        assert len(df) == 22_327 and df["query_id"].nunique() == 82


@pytest.mark.parametrize("year", SYNDL_YEARS)
def syndl_gpt4_judgments_test(year):
    path = folder("syndl") / "gpt4_judgments" / f"gpt4_judgments_dl{year}.txt.gz"
    df = metaeval.read_qrels(path)
    assert_qrels_frame(df)
    pairs, queries = SYNDL_GPT4[year]
    assert len(df) == pairs and df["query_id"].nunique() == queries
    assert set(df["relevance"]) <= {0, 1, 2, 3}  # PROVENANCE.md: "`qid 0 docid label` (0-3)"
    assert_rows_match_lines(df, path)


@pytest.mark.parametrize("year", SYNDL_YEARS)
def syndl_per_query_results_test(year):
    path = folder("syndl") / "per_query_results" / f"per_query_results.dl{year}.tsv.gz"
    assert len(raw_lines(path)) == SYNDL_PER_QUERY_ROWS[year]  # the file itself, counted without metaeval
    df = metaeval.read_score_table(path)
    assert list(df.columns) == ["system", "query_id", "measure", "value", "qrels_source"]
    assert len(df) + df.attrs["dropped_all_rows"] == SYNDL_PER_QUERY_ROWS[year] - 1  # minus the header
    assert df.attrs["dropped_all_rows"] > 0 and (df["query_id"] != "all").all()
    assert df["value"].dtype == np.float64 and df["value"].notna().all()
    assert df["system"].nunique() == SYNDL_RUNS[year]
    assert set(df["qrels_source"]) == {"human", "syndl_full", "syndl_partial"}
    assert set(df["measure"]) <= {"ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_100", "map", "num_q"}
    queries = df.groupby("qrels_source")["query_id"].nunique()
    assert (queries["human"], queries["syndl_full"]) == SYNDL_QUERIES[year]
    keep_all = metaeval.read_score_table(path, keep_all=True)
    assert len(keep_all) == SYNDL_PER_QUERY_ROWS[year] - 1 and keep_all.attrs["dropped_all_rows"] == 0
