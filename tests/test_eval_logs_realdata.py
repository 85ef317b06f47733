"""read_eval_log on the public example logs of ../shared/data/eval_logs: each harness's own aggregate, exactly.

Every expected number is a line of ``eval_logs/reference_numbers.txt`` (quoted beside it, with the file);
each is recomputed here the harness's way from the rows read_eval_log returns, and compared with ``==``
(floats included: the reference lists them in full repr). The folder is found at
``$METAEVAL_SHARED_DATA/eval_logs`` or ``<repo>/../shared/data/eval_logs``; without it every test skips.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metaeval

pytestmark = pytest.mark.realdata


def _root() -> Path | None:
    env = os.environ.get("METAEVAL_SHARED_DATA")
    base = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    p = base / "eval_logs"
    return p if p.is_dir() else None


ROOT = _root()


def path(rel: str) -> Path:
    if ROOT is None:
        pytest.skip("../shared/data/eval_logs not found (set METAEVAL_SHARED_DATA)")
    p = ROOT / rel
    if not p.exists():
        pytest.skip(f"{p} not found")
    return p


def _accounted(frame):
    rep = frame.attrs["report"]
    for src, n in rep.n_records.items():
        assert sum(v for (s, _), v in rep.counts.items() if s == src) == n
    assert rep.n_rows == len(frame)
    return rep


# --------------------------------------------------------------------------------------------
# Inspect AI: accuracy() and stderr() over the epoch-reduced (mean) values, on the nine logs with samples
# --------------------------------------------------------------------------------------------

#: reference_numbers.txt, "inspect_ai/..." lines: (accuracy, stderr), stored and recomputed with inspect_ai 0.3.285.
INSPECT = {
    "inspect_ai/log_read_sample.json": ("match", 1.0, 0.0),
    "inspect_ai/log_read_sample.eval": ("match", 1.0, 0.0),
    "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json": ("model_graded_fact", 1.0, 0.0),
    "inspect_ai/2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json": ("model_graded_fact", 1.0, 0.0),
    "inspect_ai/log_streaming.eval": ("match", 0.75, 0.25),
    "inspect_ai/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval": ("match", 0.8, 0.13333333333333333),
    "inspect_ai/2025-05-12T20-28-13-04-00_popularity.json": ("match", 0.6666666666666666, 0.33333333333333337),
    "inspect_ai/mmlu-summary-choices.eval": ("choice", 0.0, 0.0),
    "inspect_ai/log_message_deduplication.eval": ("closeness_log", 0.0, 0.0),
}


def _inspect_metrics(frame, scorer_name):
    """Inspect's way: reduce each sample's epochs with the mean reducer, then accuracy() = mean and
    stderr() = sd(ddof=1)/sqrt(n) (0 for one sample)."""
    rows = frame[frame["scorer_name"] == scorer_name]
    reduced = rows.groupby("item", sort=False)["score"].mean().to_numpy()
    n = len(reduced)
    acc = float(np.mean(reduced))
    se = 0.0 if n < 2 else float(np.std(reduced, ddof=1) / np.sqrt(n))
    return acc, se, n


@pytest.mark.parametrize("rel", list(INSPECT))
def inspect_accuracy_and_stderr_test(rel):
    frame = metaeval.read_eval_log(path(rel))
    rep = _accounted(frame)
    scorer, acc, se = INSPECT[rel]
    got_acc, got_se, n = _inspect_metrics(frame, scorer)
    assert (got_acc, got_se) == (acc, se)
    stored = rep.stored[str(path(rel))]
    assert (stored[f"{scorer}/accuracy"], stored[f"{scorer}/stderr"]) == (acc, se)
    # the stored reductions are the per-sample means of the epochs read
    red = stored["reductions"][scorer]
    mine = frame[frame["scorer_name"] == scorer].groupby("item")["score"].mean()
    assert {k: float(v) for k, v in red.items()} == {k: float(v) for k, v in mine.items()}
    assert set(frame["format"]) == {"inspect_ai"}


def inspect_rows_equal_what_inspect_reads_test():
    # tests/reference/eval_log_reducers.json ("logs"): inspect_ai 0.3.285's read_eval_log on the same files,
    # each sample-epoch's scores with value_to_float of them
    ref = json.loads((Path(__file__).resolve().parent / "reference" / "eval_log_reducers.json").read_text())["logs"]
    assert len(ref) == 9
    for name, rows in ref.items():
        f = metaeval.read_eval_log(path(f"inspect_ai/{name}"))
        mine = sorted((r.item, int(r.epoch), r.scorer_name, str(r.value), float(r.score)) for r in f.itertuples())
        theirs = sorted((r["id"], r["epoch"], r["scorer"], str(r["value"]), float(r["float"])) for r in rows)
        assert mine == theirs, name


def inspect_epochs_and_status_test():
    # log_streaming.eval: "total_samples 4 (counts sample x epoch); reductions have 2 samples";
    # "per-epoch values sample1 I,C / sample2 C,C"
    f = metaeval.read_eval_log(path("inspect_ai/log_streaming.eval"))
    assert len(f) == 4 and f["item"].nunique() == 2
    by = f.sort_values(["item", "epoch"]).groupby("item")["value"].apply(list).to_dict()
    assert by == {"1": ["I", "C"], "2": ["C", "C"]}
    m = metaeval.data.logs.epoch_matrix(f)
    assert m.shape == (2, 2) and m.loc["1"].tolist() == [0.0, 1.0]
    # the repeated-samples input of score_correlation: items x epochs
    assert m.to_numpy().tolist() == [[0.0, 1.0], [1.0, 1.0]]
    # popularity.json: status "cancelled" although its 3 samples were scored
    g = metaeval.read_eval_log(path("inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"))
    assert any("'cancelled'" in n for n in g.attrs["report"].notes)
    # the journal-only-era .eval, log version 3, and the 0.3.154 writer's history: []
    v3 = metaeval.read_eval_log(path("inspect_ai/log_message_deduplication.eval"))
    assert v3.attrs["report"].facts[str(path("inspect_ai/log_message_deduplication.eval"))]["version"] == 3


def inspect_model_graded_grader_test():
    # PROVENANCE §1: model_graded_fact without a grader model grades with the evaluated model,
    # openai/gpt-4o-mini; the header-only log names google/gemini-2.0-flash-001 and its template
    f = metaeval.read_eval_log(path("inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"))
    assert set(f["grader_model"]) == {"openai/gpt-4o-mini"} and set(f["value"]) == {"C"}
    assert set(f["scorer"]) == {"model_graded_fact@openai/gpt-4o-mini"}
    # the custom rubric (results.scores[0].params.instructions) is hashed into the scorer's identity
    g = metaeval.read_eval_log(path("inspect_ai/2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json"))
    assert g["scorer"].iloc[0].startswith("model_graded_fact@openai/gpt-4o-mini")
    h = metaeval.read_eval_log(path("inspect_ai/data_with_llm_scoring.json"))
    rep = h.attrs["report"]
    assert len(h) == 0 and sum(rep.n_records.values()) == 0
    src = str(path("inspect_ai/data_with_llm_scoring.json"))
    assert rep.facts[src]["graders"] == {"simpleqa_scorer": "google/gemini-2.0-flash-001"}
    # reference: stderr 0.01566794448817344 = numpy std(431 ones + 569 zeros, ddof=1)/sqrt(1000), n = scored_samples
    st = rep.stored[src]
    n = st["simpleqa_scorer/scored_samples"]
    k = round(st["simpleqa_scorer/accuracy"] * n)
    v = np.r_[np.ones(k), np.zeros(n - k)]
    assert (k, n) == (431, 1000)
    assert float(np.std(v, ddof=1) / np.sqrt(n)) == st["simpleqa_scorer/stderr"] == 0.01566794448817344
    assert any("header only" in x for x in rep.notes)


# --------------------------------------------------------------------------------------------
# lm-evaluation-harness, OpenAI evals
# --------------------------------------------------------------------------------------------

def lm_eval_test():
    # "mean(exact_match) over rows | 0.0 (10 of 10 rows = 0)": truncated fixture of doc_id 0-9
    f = metaeval.read_eval_log(path("lm_eval/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"))
    _accounted(f)
    assert len(f) == 10 and f["item"].tolist() == [str(i) for i in range(10)]
    assert set(f["scorer"]) == {"exact_match"} and f["score"].mean() == 0.0
    assert set(f["task"]) == {"math_perturbed_full"}
    r = metaeval.read_eval_log(path("lm_eval/results_2026-01-21T03-44-18.458309.json"))
    st = r.attrs["report"].stored[str(path("lm_eval/results_2026-01-21T03-44-18.458309.json"))]
    # "math_rephrased_full exact_match,none 0.0004; stderr 0.0002828144211304471; n = 5000 (2 hits)"
    assert st["math_rephrased_full/exact_match,none"] == 0.0004 and st["math_rephrased_full/n"] == 5000
    v = np.r_[np.ones(2), np.zeros(4998)]
    # lm_eval mean_stderr = sample_stddev/sqrt(n): equal to the stored value to 1e-16 (summation order)
    assert abs(float(np.std(v, ddof=1) / np.sqrt(5000)) - st["math_rephrased_full/exact_match_stderr,none"]) < 1e-16


def openai_evals_test():
    # "final_report.accuracy | 0.3333333333333333 | recomputed = mean(data.correct) over the 3 match events"
    p = path("openai_evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl")
    f = metaeval.read_eval_log(p)
    rep = _accounted(f)
    assert len(f) == 3 and f["score"].mean() == 0.3333333333333333 == rep.stored[str(p)]["accuracy"]
    assert rep.counts[(str(p), "context")] == 5        # spec, final_report, 3 sampling events
    # Evals API items: "passes.Relevance true / rows | 1 / 2"; grades.Relevance = 6, 1
    g = metaeval.read_eval_log(path("openai_evals/openai-evals-items.jsonl"))
    rel = g[g["scorer"] == "Relevance"]
    assert rel["score"].sum() == 1 and len(rel) == 2 and rel["value"].tolist() == [6, 1]
    # multi-run: "rows with passes[...] true | 1 (of 2; the other row has sample.error and empty grades)"
    p3 = path("openai_evals/openai-evals-multi-run-items.jsonl")
    h = metaeval.read_eval_log(p3)
    rep3 = _accounted(h)
    assert rep3.counts[(str(p3), "errored")] == 1
    match = h[h["scorer"] == "Match output to human label"]
    assert match["score"].tolist() == [1.0]
    ref = h[h["role"] == "reference"]
    assert ref["value"].tolist() == ["Hardware"]       # item.correct_label, the human label


# --------------------------------------------------------------------------------------------
# promptfoo, deepeval
# --------------------------------------------------------------------------------------------

def promptfoo_stats_test():
    p = path("promptfoo/sample-export.json")
    f = metaeval.read_eval_log(p)
    rep = _accounted(f)
    res = f.groupby(["model", "item"], sort=False)
    # each result's score is the (weighted) mean of its components; success is the AND of their passes
    per = pd.DataFrame({"score": res.apply(lambda g: float(np.average(g["score"], weights=g["weight"]))),
                        "success": res["passed"].all() if "passed" in f else res["value"].all()})
    # "results.stats.successes / failures / errors | 0 / 4 / 0"
    assert (int(per["success"].sum()), int((~per["success"]).sum()),
            rep.counts.get((str(p), "errored"), 0)) == (0, 4, 0)
    # "metrics.score | 1.1666666666666665" (gpt-5) and "1.4166666666666665" (gpt-5-mini): sums per provider
    assert sum(per.loc["openai:gpt-5", "score"]) == 1.1666666666666665
    assert sum(per.loc["openai:gpt-5-mini", "score"]) == 1.4166666666666665
    # "assertPassCount / assertFailCount | 4 / 3" and "5 / 2"
    counts = f.groupby("model")["value"].agg(lambda v: (int(v.sum()), int((~v.astype(bool)).sum())))
    assert counts["openai:gpt-5"] == (4, 3) and counts["openai:gpt-5-mini"] == (5, 2)
    # "llm-rubric componentResults passing | 4 of 4"
    rub = f[f["assertion_type"] == "llm-rubric"]
    assert len(rub) == 4 and rub["value"].all()
    assert rep.stored[str(p)]["openai:gpt-5/score"] == 1.1666666666666665


def deepeval_counts_test():
    p = path("deepeval/test_run_sample.json")
    f = metaeval.read_eval_log(p)
    _accounted(f)
    cases = f.drop_duplicates("record")
    # "testPassed / testFailed | 0 / 1": count of testCases[].success
    assert (int(cases["test_success"].sum()), int((~cases["test_success"].astype(bool)).sum())) == (0, 1)
    # "metricsScores[Answer Relevancy] scores / passes / fails | [0.92] / 1 / 0"
    ar = f[f["metric"] == "Answer Relevancy"]
    assert (ar["score"].tolist(), int(ar["passed"].sum()), int((~ar["passed"]).sum())) == ([0.92], 1, 0)
    # "metricsScores[Faithfulness] | [0.45, 0.91, 0.88] / 2 / 1": test case + llmSpans[0] + llmSpans[3]
    fa = f[f["metric"] == "Faithfulness"]
    assert (fa["score"].tolist(), int(fa["passed"].sum()), int((~fa["passed"]).sum())) == ([0.45, 0.91, 0.88], 2, 1)
    assert set(f["grader_model"]) == {"gpt-5.4"}
    q = path("deepeval/beeai-framework__latest_test_run.json")
    g = metaeval.read_eval_log(q)
    # "testRunData.testPassed / testFailed | 0 / 1"; scores [0.0], [0.0], [0.0], [1.0], [0.0]; passes 0,0,0,1,0
    assert g["test_success"].iloc[0] is False or g["test_success"].iloc[0] == 0
    tc = g[g["level"] == "test_case"]
    assert tc["score"].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert tc["passed"].astype(int).tolist() == [0, 0, 0, 1, 0]
    stored = g.attrs["report"].stored[str(q)]["metricsScores"]
    assert [v["scores"] for v in stored.values()] == [[s] for s in tc["score"]]
    assert "Contextual Recall@llama3.1:8b (ollama)" in set(g["scorer"])


# --------------------------------------------------------------------------------------------
# FastChat MT-Bench
# --------------------------------------------------------------------------------------------

def fastchat_single_test():
    # "mean score, model gpt-3.5-turbo, turn 1 | 9.6" (show_result.py --mode single)
    f = metaeval.read_eval_log(path("fastchat_mt_bench/gpt-4_single.jsonl"))
    _accounted(f)
    sel = f[(f["model"] == "gpt-3.5-turbo") & (f["turn"] == 1) & (f["score"] != -1)]
    assert sel["score"].mean() == 9.6


def fastchat_pairwise_test():
    f = metaeval.read_eval_log(path("fastchat_mt_bench/gpt-4_pair.jsonl"))
    _accounted(f)
    assert len(f) == 20 and set(f["position"]) == {1, 2}
    # show_result.py --mode pairwise-baseline: per line, tie if g1 == "tie" or g1 != g2 (no dedup)
    wins = {"gpt-4": [0, 0, 0], "gpt-3.5-turbo": [0, 0, 0]}
    for _, g in f.groupby("record", sort=False):
        g1 = g.loc[g["position"] == 1].iloc[0]
        g2 = g.loc[g["position"] == 2].iloc[0]
        if g1["value"] == "tie" or g1["value"] != g2["value"]:
            for m in wins:
                wins[m][2] += 1
        else:
            winner = g1["model_1"] if g1["value"] == "model_1" else g1["model_2"]
            loser = g1["model_2"] if winner == g1["model_1"] else g1["model_1"]
            wins[winner][0] += 1
            wins[loser][1] += 1
    w, lo, t = wins["gpt-4"]
    # "gpt-4 vs baseline gpt-3.5-turbo: win / loss / tie | 3 / 2 / 5"; "win_rate / loss_rate / adjusted | 0.3 / 0.2 / 0.55"
    assert (w, lo, t) == (3, 2, 5)
    assert (w / (w + lo + t), lo / (w + lo + t), (w + 0.5 * t) / (w + lo + t)) == (0.3, 0.2, 0.55)
    # "gpt-3.5-turbo win / loss / tie / win_rate_adjusted | 2 / 3 / 5 / 0.45" (pairwise-all)
    w, lo, t = wins["gpt-3.5-turbo"]
    assert (w, lo, t, (w + 0.5 * t) / (w + lo + t)) == (2, 3, 5, 0.45)
    # the two orders are the position-swapped repeats combine_swaps understands: one run at a time it
    # gives FastChat's verdicts (an inconsistent pair is a tie)
    for epoch in (1, 2):
        run = f[f["epoch"] == epoch]
        comb = metaeval.combine_swaps(run[["item_id", "model_a", "model_b", "outcome", "judge"]])
        assert len(comb) == 5
        for _, g in run.groupby("record"):
            g1, g2 = g.sort_values("position")["value"].tolist()
            c = comb[comb["item_id"] == g["item_id"].iloc[0]].iloc[0]
            expect = "tie" if g1 == "tie" or g1 != g2 else g1
            got = c["outcome"] if c["model_a"] == g["model_1"].iloc[0] else {"A": "B", "B": "A"}.get(c["outcome"], c["outcome"])
            assert {"A": "model_1", "B": "model_2", "tie": "tie"}[got] == expect


# --------------------------------------------------------------------------------------------
# Label Studio, Prodigy, Every Eval Ever
# --------------------------------------------------------------------------------------------

def label_studio_agreement_test():
    p = path("label_studio/csv_test.json")
    f = metaeval.read_eval_log(p)
    _accounted(f)
    # "tasks[].agreement | 100.0, 100.0": share of agreeing pairs among each task's annotation and prediction
    agree = {}
    for task, g in f.groupby("item"):
        vals = g["value"].tolist()
        pairs = [(a, b) for i, a in enumerate(vals) for b in vals[i + 1:]]
        agree[task] = 100.0 * sum(a == b for a, b in pairs) / len(pairs)
    assert agree == {"1": 100.0, "2": 100.0} == f.attrs["report"].stored[str(p)]["agreement"]
    assert set(f.loc[f["role"] == "judge", "scorer"]) == {"model:model 0"}
    # each annotation has a reviewer entry with accepted: false (PROVENANCE §8a)
    assert f.loc[f["role"] == "human", "review_accepted"].tolist() == [False, False]
    # "annotations per task | 2, 1"
    g = metaeval.read_eval_log(path("label_studio/test_export_yolo_data.json"))
    assert g.groupby("item").size().to_dict() == {"1": 2, "2": 1}


def label_studio_two_annotators_agreement_test():
    # the two annotators of test_export_yolo_data.json rate one task in common (task 1), with the same
    # label set; on the tasks both rated (what statsmodels' fleiss_kappa needs: the same number of
    # ratings per item) alpha and Fleiss' kappa are undefined, in metaeval as in the references
    import warnings

    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    f = metaeval.read_eval_log(path("label_studio/test_export_yolo_data.json"),
                               labels={"parasites, white": 0, "white": 1})
    assert set(f["scorer"]) == {"annotator:1", "annotator:2"}
    both = f.groupby("item").filter(lambda g: len(g) == 2)
    assert both["item"].unique().tolist() == ["1"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = metaeval.rater_agreement(both, item="item", rater="scorer", value="score", ci_method=None,
                                       statistics=["fleiss_kappa", "krippendorff_alpha"])
    assert any(issubclass(w.category, metaeval.UndefinedStatisticWarning) for w in caught)
    est = res.to_frame().set_index("statistic")["estimate"]
    m = both.pivot_table(index="scorer", columns="item", values="score", aggfunc="first").to_numpy()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref_alpha = krippendorff.alpha(reliability_data=m, level_of_measurement="nominal")
        except ValueError:                     # "There has to be more than one value in the domain."
            ref_alpha = np.nan
        tab = both.pivot_table(index="item", columns="score", values="scorer", aggfunc="count", fill_value=0)
        ref_fleiss = fleiss_kappa(tab.to_numpy())
    assert np.isnan(ref_alpha) and np.isnan(ref_fleiss)
    assert np.isnan(est.filter(like="krippendorff").iloc[0]) and np.isnan(est["fleiss_kappa"])


def prodigy_counts_test():
    p = path("prodigy/pydata-ams-2023.jsonl")
    f = metaeval.read_eval_log(p)
    rep = _accounted(f)
    # "rows / items (_input_hash) / annotators (_annotator_id) | 3372 / 117 / 42"
    assert (rep.n_records[str(p)], f["item"].nunique(), f["scorer"].nunique()) == (3372, 117, 42)
    # "(task_hash, annotator) pairs occurring twice | 55"
    assert rep.counts[(str(p), "duplicate")] == 55
    # "answer accept / reject / ignore | 1705 / 1388 / 279", counted over every line: the rows plus the
    # repeats (counted independently here, from the file)
    seen, repeats = set(), {"accept": 0, "reject": 0, "ignore": 0}
    for line in open(p, encoding="utf-8"):
        r = json.loads(line)
        key = (r["_task_hash"], r["_annotator_id"])
        if key in seen:
            repeats[r["answer"]] += 1
        seen.add(key)
    vc = f["value"].value_counts()
    assert [vc[a] + repeats[a] for a in ("accept", "reject", "ignore")] == [1705, 1388, 279]
    # accept = 1, reject = 0, ignore = missing
    assert f.groupby("value")["score"].first().fillna(-1).to_dict() == {"accept": 1.0, "ignore": -1.0, "reject": 0.0}
    # github-issues textcat: "accept / reject / ignore | 261 / 525 / 44";
    # "meta.score>=0.5 vs answer (ignore excluded): TP / FP / FN / TN | 134 / 90 / 127 / 435"
    g = metaeval.read_eval_log(path("prodigy/annotated_github-issues-DOCUMENTATION-textcat.jsonl"))
    hum = g[g["role"] == "human"].set_index("record")
    mod = g[g["role"] == "judge"].set_index("record")
    vc = hum["value"].value_counts()
    assert [vc["accept"], vc["reject"], vc["ignore"]] == [261, 525, 44]
    both = hum[["score"]].merge(mod[["score"]].rename(columns={"score": "score_model"}), left_index=True,
                                right_index=True).dropna()
    pred, truth = both["score_model"] >= 0.5, both["score"] == 1
    assert [int((pred & truth).sum()), int((pred & ~truth).sum()), int((~pred & truth).sum()),
            int((~pred & ~truth).sum())] == [134, 90, 127, 435]


def prodigy_many_rater_agreement_test():
    # 42 annotators on 117 items: Krippendorff's alpha through rater_agreement equals the krippendorff
    # package (0.15.0, nominal); Fleiss' kappa equals statsmodels' fleiss_kappa on a balanced subset
    # (statsmodels needs the same number of ratings per item: the first 10 of each item with at least 10)
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    f = metaeval.read_eval_log(path("prodigy/pydata-ams-2023.jsonl"))
    h = f[f["score"].notna()]                          # ignore = no rating
    est = metaeval.rater_agreement(h, item="item", rater="scorer", value="score", ci_method=None,
                                   statistics=["krippendorff_alpha"]).to_frame()["estimate"].iloc[0]
    m = h.pivot_table(index="scorer", columns="item", values="score", aggfunc="first").to_numpy()
    assert m.shape == (42, 117)
    assert est == pytest.approx(krippendorff.alpha(reliability_data=m, level_of_measurement="nominal"), abs=1e-12)
    g = h.groupby("item").head(10)
    size = g.groupby("item").size()
    g = g[g["item"].isin(size[size == 10].index)]
    tab = g.pivot_table(index="item", columns="score", values="scorer", aggfunc="count", fill_value=0).to_numpy()
    res = metaeval.rater_agreement(g, item="item", rater="scorer", value="score", ci_method=None,
                                   statistics=["fleiss_kappa", "krippendorff_alpha"]).to_frame().set_index("statistic")
    assert res.loc["fleiss_kappa", "estimate"] == pytest.approx(fleiss_kappa(tab), abs=1e-12)
    m2 = g.pivot_table(index="scorer", columns="item", values="score", aggfunc="first").to_numpy()
    assert res["estimate"].filter(like="krippendorff").iloc[0] == pytest.approx(
        krippendorff.alpha(reliability_data=m2, level_of_measurement="nominal"), abs=1e-12)


def eee_test():
    p = path("every_eval_ever/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json")
    f = metaeval.read_eval_log(p)
    rep = f.attrs["report"]
    # "score_details.score | 0.75" (stored; not derivable from the 1-row instance file)
    assert rep.stored[str(p)] == {"demo-source.demo_bench": 0.75}
    # "checksum (sha256) / total_rows | 6bbefcb1... / 1": the linked instance file beside it matches
    assert rep.facts[str(p)]["checksum_ok"] is True and rep.facts[str(p)]["instance_rows"] == 1
    s = metaeval.read_eval_log(path("every_eval_ever/f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl"))
    # "evaluation.score / is_correct | 1.0 / true"
    assert s[["item", "score", "is_correct"]].values.tolist() == [["demo_0001", 1.0, True]]
    q = path("every_eval_ever/98ea850e-7019-4728-a558-8b1819ec47c2.json")
    st = metaeval.read_eval_log(q).attrs["report"].stored[str(q)]
    assert list(st.values()) == [0.4486, 0.4224, 0.0249, 0.2743, 0.419, 0.1946]


def whole_folder_test():
    # every file of every folder: each record accounted for; schemas, question lists and licences are
    # not logs (fate unrecognized, or not read by name)
    f = metaeval.read_eval_log([path(d) for d in ("inspect_ai", "fastchat_mt_bench", "every_eval_ever", "prodigy")])
    rep = _accounted(f)
    unrec = {os.path.basename(s) for (s, fate) in rep.counts if fate == "unrecognized"}
    assert unrec == {"question.jsonl", "eval.schema.json", "instance_level_eval.schema.json"}
    assert set(f["format"]) == {"inspect_ai", "fastchat", "eee", "prodigy"}
