"""Length-bias analyses on real judgments, through the public API, printed with intervals.

Data (read-only, outside the repository: ``$METAEVAL_SHARED_DATA`` or ``<repo>/../shared/data``):

* ``trec_dl_passage`` (PROVENANCE.md): NIST human qrels of TREC DL 2019/2020 passage ranking and
  UMBRELA (GPT-4o, 0-3) / binary (GPT-4o) LLM qrels on the same pools; passage texts in
  ``passages/judged_passages.dlYY.tsv.gz`` whose row i is row i of the human qrels (checked here).
  Length = whitespace tokens of the passage.
* ``alpaca_eval`` (PROVENANCE.md): the weighted GPT-4-Turbo judge's soft preferences (1 = the
  baseline gpt4_1106_preview better, 2 = the model better) with both output lengths in characters,
  for 26 models including concise / default / verbose variants of the same model. No per-item
  human labels exist here, so the analysis is the judge's P(prefer the longer output).
  PROVENANCE.md gives the published win rates of gpt-3.5-turbo-1106 concise / default / verbose,
  7.42 / 9.18 / 12.76, used to check that the file is read as intended.
* ``pandalm`` (PROVENANCE.md): 999 pairs with 3 human annotators and GPT-3.5's verdicts; P(prefer
  the longer response) for humans (majority) and for GPT-3.5 on the same pairs.
* ``syndl`` (PROVENANCE.md): per-query nDCG@10 of the 35 TREC DL 2023 runs under NIST and under
  GPT-4 qrels, and which runs use GPT-4: the system-level self-enhancement (rank change).

Every regression is checked against statsmodels fitted directly on the same rows; the partial
Spearman against pingouin; the pairwise shares against a direct count. The printed intervals are
the record (no published numbers exist for these analyses).
"""

from __future__ import annotations

import gzip
import json
import os
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
import statsmodels.api as sm
from statsmodels.miscmodels.ordinal_model import OrderedModel

import metaeval
from metaeval.checks.bias import length_bias, prefer_longer, rank_change

DATA = Path(os.environ.get("METAEVAL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
TRECDL = DATA / "trec_dl_passage"
ALPACA = DATA / "alpaca_eval"
PANDALM = DATA / "pandalm"

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not (TRECDL / "PROVENANCE.md").is_file(),
                       reason=f"shared data not found at {DATA} (set METAEVAL_SHARED_DATA to the shared/data folder)"),
]


def _need(path):
    if not path.exists():
        pytest.skip(f"{path} not found")


@cache
def trec_items(year: str, llm: str) -> pd.DataFrame:
    """One row per judged passage: human label, LLM label, passage length in whitespace tokens."""
    qrels = TRECDL / "qrels" / "human" / f"qrels.{year}-passage.txt"
    llm_path = TRECDL / "qrels" / "llm" / f"{llm}.{year}.txt"
    texts = TRECDL / "passages" / f"judged_passages.{year}.tsv.gz"
    for p in (qrels, llm_path, texts):
        _need(p)
    human = metaeval.read_qrels(qrels)
    with gzip.open(texts, "rt", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t", 1) for line in fh]
    doc = [r[0] for r in rows]
    length = [len(r[1].split()) if len(r) > 1 else 0 for r in rows]
    assert len(doc) == len(human) and doc == human["doc_id"].tolist(), "row i of the texts is not row i of the qrels"
    human = human.assign(length=length)
    judge = metaeval.read_qrels(llm_path)[["query_id", "doc_id", "relevance"]].rename(columns={"relevance": "judge"})
    items = human.rename(columns={"relevance": "human"}).merge(judge, on=["query_id", "doc_id"], how="inner")
    return items[items["length"] > 0].reset_index(drop=True)


def _sm_cluster(y, X, groups):
    return sm.OLS(np.asarray(y, dtype=float), X).fit(cov_type="cluster", use_t=True,
                                                      cov_kwds={"groups": pd.factorize(groups, sort=True)[0]})


@pytest.mark.parametrize("year", ["dl19", "dl20"])
def trec_dl_length_bias_umbrela_test(year):
    it = trec_items(year, "umbrela-zeroshot-gpt-4o")
    r = length_bias(it, cluster="query_id", n_resamples=1000, rng=0)
    print(f"\nTREC {year} passages, human vs UMBRELA GPT-4o (0-3), {len(it)} pairs, "
          f"{it['query_id'].nunique()} topics; length = whitespace tokens")
    print(r)
    print(r.tables["by_label"].round(2).to_string(index=False))
    # the regressions, fitted directly
    X = pd.DataFrame({"const": 1.0, "log_length": np.log(it["length"])})
    for test, y in (("ols_difference", it["judge"] - it["human"]), ("ols_candidate", it["judge"]),
                    ("ols_reference", it["human"])):
        fit = _sm_cluster(y, X, it["query_id"])
        e = r[test]
        lo, hi = fit.conf_int(alpha=0.05).loc["log_length"]
        assert e.estimate == pytest.approx(fit.params["log_length"], abs=1e-10)
        assert (e.ci.low, e.ci.high) == pytest.approx((lo, hi), abs=1e-10)
        assert e.pvalue == pytest.approx(fit.pvalues["log_length"], rel=1e-8, abs=1e-300)
    ex = pd.get_dummies(it["human"].map(lambda v: f"{v:g}"), prefix="reference", drop_first=True, dtype=float)
    ex["log_length"] = np.log(it["length"])
    om = OrderedModel(pd.Series(pd.Categorical(it["judge"], ordered=True)), ex, distr="logit").fit(
        method="newton", maxiter=200, disp=0, cov_type="cluster", cov_kwds={"groups": pd.factorize(it["query_id"])[0]})
    e = r["ordinal_logit_log_length"]
    assert e.estimate == pytest.approx(om.params["log_length"], abs=1e-4)
    assert e.se == pytest.approx(om.bse["log_length"], rel=1e-3)
    pc = pg.partial_corr(data=it, x="length", y="judge", covar="human", method="spearman")
    assert r["partial_spearman"].estimate == pytest.approx(float(pc["r"].iloc[0]), abs=1e-12)
    for e in r.results:
        assert e.ci.low <= e.estimate <= e.ci.high


def trec_dl_length_bias_binary_test():
    it = trec_items("dl19", "binary-gpt-4o")
    it = it.assign(human_rel=(it["human"] >= 2).astype(int))
    r = length_bias(it, reference="human_rel", cluster="query_id", n_resamples=1000, rng=0)
    print(f"\nTREC dl19 passages, human (>= 2) vs binary GPT-4o, {len(it)} pairs")
    print(r)
    X = pd.DataFrame({"const": 1.0, "log_length": np.log(it["length"])})
    fit = _sm_cluster(it["judge"] - it["human_rel"], X, it["query_id"])
    assert r.estimate == pytest.approx(fit.params["log_length"], abs=1e-10)
    assert r.ci.low == pytest.approx(fit.conf_int().loc["log_length", 0], abs=1e-10)


@cache
def alpaca() -> pd.DataFrame:
    p = ALPACA / "annotations_weighted_alpaca_eval_gpt4_turbo.compact.tsv.gz"
    _need(p)
    return pd.read_csv(p, sep="\t", dtype={"model": str, "generator_1": str, "generator_2": str})


def _direct_soft(d):
    la, lb, p = d["len_chars_output_1"].to_numpy(), d["len_chars_output_2"].to_numpy(), d["preference"].to_numpy()
    keep = la != lb
    share = np.where(lb > la, p - 1, 2 - p)
    return share[keep].mean(), int(keep.sum())


def alpaca_eval_prefer_longer_test():
    a = alpaca()
    # reading check against PROVENANCE.md: published win rates of the gpt-3.5-turbo-1106 triplet
    wr = a.groupby("model")["preference"].apply(lambda p: 100 * (p - 1).mean())
    assert [round(wr[m], 2) for m in ("gpt-3.5-turbo-1106_concise", "gpt-3.5-turbo-1106",
                                      "gpt-3.5-turbo-1106_verbose")] == [7.42, 9.18, 12.76]
    kw = dict(outcome="preference", length_a="len_chars_output_1", length_b="len_chars_output_2")
    pooled = prefer_longer(a[a["model"] != "gpt4_1106_preview"], cluster="instruction_idx", n_resamples=1000,
                           rng=0, **kw)
    print(f"\nAlpacaEval 2.0, weighted GPT-4-Turbo judge, all models but the baseline itself "
          f"({pooled.n} pairs of unequal length, clustered by instruction):")
    print(pooled)
    p, n = _direct_soft(a[a["model"] != "gpt4_1106_preview"])
    assert pooled.estimate == pytest.approx(p, abs=1e-12) and pooled.n == n
    assert pooled.primary.unit == "clusters" and pooled.primary.n_units == 805
    rows = []
    for base in ("gpt-3.5-turbo-1106", "alpaca-7b", "claude-2.1"):
        for variant in ("_concise", "", "_verbose"):
            m = base + variant
            d = a[a["model"] == m]
            if d.empty:
                continue
            r = prefer_longer(d, n_resamples=1000, rng=0, **kw)
            assert r.estimate == pytest.approx(_direct_soft(d)[0], abs=1e-12)
            rows.append({"model": m, "mean_chars": d["len_chars_output_2"].mean(),
                         "share_longer_than_baseline": (d["len_chars_output_2"] > d["len_chars_output_1"]).mean(),
                         "win_rate": 100 * (d["preference"] - 1).mean(), "p_prefer_longer": r.estimate,
                         "ci_low": r.ci.low, "ci_high": r.ci.high})
    t = pd.DataFrame(rows)
    print("Verbosity variants of the same model (judge only; win rate against gpt4_1106_preview):")
    print(t.round(3).to_string(index=False))
    lb = pd.read_csv(ALPACA / "leaderboards" / "evaluators_leaderboard.csv")
    row = lb[lb.iloc[:, 0].astype(str).str.contains("weighted_alpaca_eval_gpt4_turbo")]
    if len(row) and "Proba. prefer longer" in lb.columns:
        print(f"(context, other data: the evaluators leaderboard reports P(prefer longer) = "
              f"{row['Proba. prefer longer'].iloc[0]} for this judge on the AlpacaFarm human cross-annotation set)")
    gpt = t[t["model"].str.startswith("gpt-3.5-turbo-1106")].set_index("model")
    assert gpt.loc["gpt-3.5-turbo-1106_verbose", "mean_chars"] > gpt.loc["gpt-3.5-turbo-1106_concise", "mean_chars"]


def _majority(row):
    v = [row["annotator1"], row["annotator2"], row["annotator3"]]
    vals, cnt = np.unique(v, return_counts=True)
    return int(vals[np.argmax(cnt)]) if cnt.max() >= 2 else 0


def pandalm_prefer_longer_human_vs_judge_test():
    _need(PANDALM / "testset-v1.json")
    t = pd.DataFrame(json.loads((PANDALM / "testset-v1.json").read_text()))
    g = pd.DataFrame(json.loads((PANDALM / "gpt-3.5-turbo-testset-v1.json").read_text()))
    code = {0: "tie", 1: "A", 2: "B"}
    human = t.assign(judge="human", outcome=t.apply(_majority, axis=1).map(code))
    gmap = {"1": "A", "2": "B", "Tie": "tie", "garbage": "invalid"}
    judge = t.assign(judge="judge", outcome=g.set_index("idx").loc[t["idx"], "gpt_result"].map(gmap).to_numpy())
    b = pd.concat([human, judge], ignore_index=True)
    b["length_a"] = b["response1"].map(lambda s: len(str(s).split()))
    b["length_b"] = b["response2"].map(lambda s: len(str(s).split()))
    r = prefer_longer(b, battle="idx", ties="drop", n_resamples=2000, rng=0)
    print("\nPandaLM test set: P(prefer the longer response), humans (majority of 3) vs GPT-3.5, ties left out")
    print(r)
    for who, key in (("human", "reference"), ("judge", "candidate")):
        d = b[(b["judge"] == who) & b["outcome"].isin(["A", "B"]) & (b["length_a"] != b["length_b"])]
        direct = np.mean(np.where(d["outcome"] == "A", d["length_a"] > d["length_b"], d["length_b"] > d["length_a"]))
        assert r[key].estimate == pytest.approx(direct, abs=1e-12) and r[key].n == len(d)
    assert r.primary.n_units == 999


def syndl_rank_change_of_gpt4_systems_test():
    """SynDL's question on TREC DL 2023 (shared/data/syndl, PROVENANCE.md): do runs that use GPT-4
    move up when ranked by nDCG@10 under the GPT-4 qrels instead of NIST's? The two qrels cover
    different queries (82 NIST, 618 GPT-4), so each side's topics are resampled on their own."""
    syn = DATA / "syndl"
    _need(syn / "per_query_results" / "per_query_results.dl2023.tsv.gz")
    d = pd.read_csv(syn / "per_query_results" / "per_query_results.dl2023.tsv.gz", sep="\t", dtype=str)
    d = d[(d["metric"] == "ndcg_cut_10") & (d["qid"] != "all")].assign(value=lambda x: x["value"].astype(float))
    M = {s: d[d["qrels_source"] == s].pivot(index="run_id", columns="qid", values="value")
         for s in ("human", "syndl_full")}
    meta = pd.read_csv(syn / "metadata" / "dl2023_run_llm_usage.tsv", sep="\t")
    own = [r for r in meta.loc[meta["LLM"].str.contains("GPT-4", na=False), "run_id"] if r in M["human"].index]
    r = rank_change(M["human"], M["syndl_full"], own=own, rng=0, n_resamples=2000)
    print(f"\nSynDL DL2023: {len(M['human'])} runs, {len(own)} use GPT-4 ({', '.join(own)})")
    print(r)
    print(r.per_system[r.per_system["own"]].round(3).to_string(index=False))
    gain = M["human"].mean(axis=1).rank(ascending=False) - M["syndl_full"].mean(axis=1).rank(ascending=False)
    assert r.estimate == pytest.approx(gain[own].mean() - gain.drop(own).mean(), abs=1e-12)
    assert M["human"].shape == (35, 82) and M["syndl_full"].shape == (35, 618)      # PROVENANCE.md
    assert r.primary.unit == "clusters" and r.primary.n_units == 82 + 618 and 0 <= r.pvalue <= 1
