"""System scores on the real TREC DL data in ../shared/data: NIST's official numbers, reproduced.

Expected numbers and where they come from:
* ``trec_dl_passage/reference/official_nist_run_summaries.tsv``: NIST's per-run nDCG@10 and nDCG@100
  (columns ``ndcg_cut_10_passages_eval``, ``ndcg_cut_100_passages_eval``) for the 159 official runs;
  reference_numbers.txt §A says they are reproduced exactly (4 decimals) with trec_eval's rules.
* ``trec_dl_passage/reference/ndcg_cut_10.per_topic.human_qrels.dlYY.csv``: trec_eval's per-topic
  nDCG@10 (Arabzadeh & Clarke), §B.
* PROVENANCE.md: with float64 scores, DL21 ielab-uniCOIL topic 300986 gives 0.5943 instead of 0.6532.
* reference_numbers.txt §E: Kendall tau-b / Spearman rho of mean nDCG@10, human vs each LLM qrels
  (collector-computed with scipy, "for regression tests").
* syndl/per_query_results: SynDL's own trec_eval ``-q`` output under the NIST qrels (an independent
  run of trec_eval on the uncut runs) for the runs both folders share.

The folder is found at ``$METAEVAL_SHARED_DATA`` or ``<repo>/../shared/data``; without it these skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import metaeval
from metaeval.systems.evaluation import scores_from_table, system_scores

pytestmark = pytest.mark.realdata

YEARS = ("dl19", "dl20", "dl21")
LLM = ("umbrela-zeroshot-gpt-4o", "umbrela-zeroshot-gpt-4", "binary-gpt-4o", "binary-gpt-4", "binary-llama3.2")


def _data() -> Path:
    env = os.environ.get("METAEVAL_SHARED_DATA")
    root = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    if not root.is_dir():
        pytest.skip(f"real data not found at {root} (set METAEVAL_SHARED_DATA to its location)")
    return root


def _dl() -> Path:
    p = _data() / "trec_dl_passage"
    if not p.is_dir():
        pytest.skip(f"{p} is absent")
    return p


@pytest.fixture(scope="module")
def runs():
    d = _dl()
    return {y: metaeval.read_runs(d / "runs" / y) for y in YEARS}


@pytest.fixture(scope="module")
def human(runs):
    d = _dl()
    return {y: system_scores(d / "qrels" / "human" / f"qrels.{y}-passage.txt", runs[y], ["nDCG@10", "nDCG@100"])
            for y in YEARS}


def nist_official_ndcg_for_all_159_runs_test(human):
    ref = pd.read_csv(_dl() / "reference" / "official_nist_run_summaries.tsv", sep="\t",
                      dtype={"run_id": "str", "year": "str"})
    assert len(ref) == 159
    n = 0
    for y in YEARS:
        r = ref[ref["year"] == y].set_index("run_id")
        s = human[y]
        assert set(s.systems) == set(r.index)  # 37 / 59 / 63 runs
        for m, col in (("nDCG@10", "ndcg_cut_10_passages_eval"), ("nDCG@100", "ndcg_cut_100_passages_eval")):
            got = s.means(m).reindex(r.index)
            # equal to 4 decimals: NIST prints rounded values
            assert (got - r[col]).abs().max() <= 5e-5 + 1e-12, (y, m)
            assert (got.round(4) == r[col]).all(), (y, m)
        n += len(r)
    assert n == 159


def per_topic_ndcg10_equals_trec_eval_test(human):
    total = 0
    for y in YEARS:
        ref = pd.read_csv(_dl() / "reference" / f"ndcg_cut_10.per_topic.human_qrels.{y}.csv",
                          dtype={"runid": "str", "topic": "str"})
        avg = ref[ref["topic"] == "average"].set_index("runid")["ndcg_cut_10"]
        ref = ref[ref["topic"] != "average"]
        got = human[y].matrix("nDCG@10").stack().rename("ours").reset_index()
        m = ref.merge(got, left_on=["runid", "topic"], right_on=["system", "query_id"], how="outer")
        assert m["ours"].notna().all() and m["ndcg_cut_10"].notna().all()  # the same (run, topic) cells
        assert (m["ours"] - m["ndcg_cut_10"]).abs().max() <= 5e-5 + 1e-12
        assert (human[y].means("nDCG@10").reindex(avg.index) - avg).abs().max() <= 5e-5 + 1e-12
        total += len(m)
    assert total == 1591 + 3186 + 3339  # reference_numbers.txt §A


def float32_scores_matter_on_dl21_test(human, runs):
    """PROVENANCE.md: with float64 scores, ielab-uniCOIL topic 300986 gives 0.6532 instead of trec_eval's
    0.5943 (reference_numbers.txt §A: float32 makes all 3,339 DL21 topic values match)."""
    assert human["dl21"].matrix("nDCG@10").loc["ielab-uniCOIL", "300986"] == pytest.approx(0.5943, abs=5e-5)
    assert human["dl21"].report.count("float32_tie", "ielab-uniCOIL") > 0
    # the float64 order (score, then doc id, descending), handed over as distinct scores
    r = runs["dl21"]
    r = r[(r["run_id"] == "ielab-uniCOIL") & (r["query_id"] == "300986")]
    r = r.sort_values(["score", "doc_id"], ascending=False).assign(score=-np.arange(len(r), dtype=float))
    q = metaeval.read_qrels(_dl() / "qrels" / "human" / "qrels.dl21-passage.txt")
    assert system_scores(q, r, "nDCG@10").matrix().loc["ielab-uniCOIL", "300986"] == pytest.approx(0.6532, abs=5e-5)


def llm_qrels_rank_correlations_match_reference_test(runs, human):
    """reference_numbers.txt §E: tau-b and rho of mean nDCG@10, human vs LLM qrels (unjudged = 0)."""
    expected = {  # (tau_b, rho) for DL19, DL20, DL21
        "umbrela-zeroshot-gpt-4o": [(0.9159, 0.9844), (0.9462, 0.9936), (0.9395, 0.9932)],
        "umbrela-zeroshot-gpt-4": [(0.8498, 0.9687), (0.9474, 0.9943), (0.9241, 0.9903)],
        "binary-gpt-4o": [(0.8520, 0.9611), (0.9155, 0.9864), (0.9056, 0.9858)],
        "binary-gpt-4": [(0.7919, 0.9390), (0.9202, 0.9888), (0.8964, 0.9831)],
        "binary-llama3.2": [(0.7829, 0.9364), (0.8584, 0.9684), (0.7826, 0.9326)],
    }
    d = _dl()
    for i, y in enumerate(YEARS):
        h = human[y]
        for name in LLM:
            s = system_scores(d / "qrels" / "llm" / f"{name}.{y}.txt", runs[y], "nDCG@10",
                              reference_qrels=d / "qrels" / "human" / f"qrels.{y}-passage.txt")
            assert s.topics == h.topics  # the LLM qrels cover the same pool
            a, b = h.means("nDCG@10"), s.means()
            tau = scipy.stats.kendalltau(a, b)[0]
            rho = scipy.stats.spearmanr(a, b)[0]
            assert (round(tau, 4), round(rho, 4)) == expected[name][i], (y, name)


def syndl_table_equals_our_scores_test(human):
    """SynDL's trec_eval output (uncut runs, NIST qrels) equals our per-topic nDCG@10 for DL19 and
    DL20, and each qrels source gives the run and topic counts of syndl/PROVENANCE.md."""
    root = _data() / "syndl" / "per_query_results"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    counts = {"2019": (36, 43, 192), "2020": (59, 54, 194), "2021": (63, 53, 424), "2022": (100, 76, 424),
              "2023": (35, 82, 618)}  # runs; topics under human and syndl_full qrels
    for year, (n_runs, n_h, n_full) in counts.items():
        tab = metaeval.read_score_table(root / f"per_query_results.dl{year}.tsv.gz")
        with pytest.raises(metaeval.InputError, match="qrels sources"):
            scores_from_table(tab)
        h = scores_from_table(tab, qrels_source="human")
        f = scores_from_table(tab, qrels_source="syndl_full")
        assert h.measures == ("nDCG@5", "nDCG@10", "nDCG@100", "AP")  # from ndcg_cut_5, ..., map
        assert (len(h.systems), len(h.topics), len(f.topics)) == (n_runs, n_h, n_full)
        assert h.report.count("missing_cell") == 0  # trec_eval -c: every cell
        if year in ("2019", "2020"):
            ours = human["dl" + year[2:]]
            common = sorted(set(h.systems) & set(ours.systems))
            assert len(common) == n_runs
            diff = (h.matrix("ndcg_cut_10", systems=common) - ours.matrix("nDCG@10", systems=common)).abs()
            assert diff.to_numpy().max() <= 5e-5 + 1e-12
