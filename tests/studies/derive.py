"""Tables the corpus studies read that are not files of ../shared/data, derived from its files.

The study format reads a data set's file as it is (``[data.NAME]`` names the columns it uses); a few
released files are in another shape (wide annotator columns, JSON records, one TSV holding every
judge). A study names such a table ``derived/NAME.csv``; :func:`derive` writes it from
../shared/data into a scratch folder (tests/test_study_corpus.py points the study there). Nothing
here computes a statistic: each function only selects and renames columns, as its docstring says.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd

_GPT = {"1": 1, "2": 2, "Tie": 0, "garbage": 0}   # PandaLM repository's compute_metrics mapping


def _pandalm(data: Path):
    base = data / "pandalm"
    test = json.loads((base / "testset-v1.json").read_text(encoding="utf-8"))
    gpt = {r["idx"]: _GPT[r["gpt_result"]] for r in
           json.loads((base / "gpt-3.5-turbo-testset-v1.json").read_text(encoding="utf-8"))}
    pandalm = {r["idx"]: int(r["pandalm_result"]) for r in
               json.loads((base / "pandalm-7b-testset-v1.json").read_text(encoding="utf-8"))}
    return test, gpt, pandalm


def _majority(labels: list[int]) -> int:
    """The label of at least two of the three annotators; 0 (tie) when all three differ."""
    for v in set(labels):
        if labels.count(v) >= 2:
            return v
    return 0


def pandalm_long(data: Path) -> pd.DataFrame:
    """PandaLM: ``item_id, rater, label``: the three annotators, GPT-3.5 and PandaLM-7B (0 tie, 1, 2)."""
    test, gpt, pandalm = _pandalm(data)
    rows = [(r["idx"], a, int(r[a])) for a in ("annotator1", "annotator2", "annotator3") for r in test]
    rows += [(i, "gpt-3.5-turbo", v) for i, v in gpt.items()]
    rows += [(i, "pandalm-7b", v) for i, v in pandalm.items()]
    return pd.DataFrame(rows, columns=["item_id", "rater", "label"])


def pandalm_battles(data: Path) -> pd.DataFrame:
    """PandaLM as battles: ``item_id, model_a, model_b, judge, outcome``; the models from ``cmp_key``
    (``bloom-7b_llama-7b``: response1 by bloom-7b); judge ``human`` is the annotators' majority."""
    test, gpt, pandalm = _pandalm(data)
    out = {0: "tie", 1: "A", 2: "B"}
    rows = []
    for r in test:
        a, b = r["cmp_key"].split("_", 1)
        human = _majority([int(r[k]) for k in ("annotator1", "annotator2", "annotator3")])
        for judge, v in (("human", human), ("gpt-3.5-turbo", gpt[r["idx"]]), ("pandalm-7b", pandalm[r["idx"]])):
            rows.append((r["idx"], a, b, judge, out[v]))
    return pd.DataFrame(rows, columns=["item_id", "model_a", "model_b", "judge", "outcome"])


def pandalm_scores(data: Path) -> pd.DataFrame:
    """PandaLM per response: ``item_id, rater, score, prompt_id, generator, length``.

    Each comparison gives each of its two responses a score from each rater: 1 when the rater
    preferred it, 0.5 for a tie, 0 otherwise (human: the annotators' majority; judge: PandaLM-7B);
    ``length`` is the response's length in characters; empty responses are left out.
    """
    test, _, pandalm = _pandalm(data)
    rows = []
    for r in test:
        gens = r["cmp_key"].split("_", 1)
        human = _majority([int(r[k]) for k in ("annotator1", "annotator2", "annotator3")])
        for k in (1, 2):
            text = r[f"response{k}"] if isinstance(r[f"response{k}"], str) else ""
            if not text.strip():            # an empty response (54 in the file) has no length to regress on
                continue
            for rater, v in (("human", human), ("pandalm-7b", pandalm[r["idx"]])):
                score = 0.5 if v == 0 else float(v == k)
                rows.append((f"{r['idx']}-{k}", rater, score, r["idx"], gens[k - 1], len(text)))
    return pd.DataFrame(rows, columns=["item_id", "rater", "score", "prompt_id", "generator", "length"])


def llmbar_battles(data: Path, evaluator: str = "GPT-4", strategy: str = "Vanilla") -> pd.DataFrame:
    """LLMBar as battles: the gold label (judge ``human``) and one evaluator and strategy in both orders.

    ``item_id`` is ``subset#instance``; the two outputs are the models ``output_1`` and ``output_2``.
    A row with ``swap = True`` showed the outputs swapped: ``model_a = output_2`` and ``swapped = 1``
    (the file's ``winner`` names the output in the original order).
    """
    with gzip.open(data / "llmbar" / "judge_predictions.tsv.gz", "rt", encoding="utf-8") as fh:
        p = pd.read_csv(fh, sep="\t", dtype=str)
    p = p[(p["evaluator"] == evaluator) & (p["strategy"] == strategy) & (p["sample_idx"] == "0")]
    item = p["subset"] + "#" + p["instance_idx"]
    gold = pd.DataFrame({"item_id": item, "model_a": "output_1", "model_b": "output_2", "judge": "human",
                         "outcome": p["gold_label"].map({"1": "A", "2": "B"}), "swapped": 0}).drop_duplicates("item_id")
    swap = p["swap"] == "True"
    judge = pd.DataFrame({"item_id": item, "model_a": swap.map({True: "output_2", False: "output_1"}),
                          "model_b": swap.map({True: "output_1", False: "output_2"}), "judge": evaluator,
                          "outcome": [("A" if (w == "1") != s else "B") if w in ("1", "2") else "invalid"
                                      for w, s in zip(p["winner"], swap)],
                          "swapped": swap.astype(int)})
    return pd.concat([gold, judge], ignore_index=True)


def dl21_binary(data: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TREC DL 2021 binary: the validation table ``query_id, doc_id, human, judge`` (human: NIST label
    at least 2, the track's binary relevance; judge: the binary GPT-4o qrels) and the judge's labels
    on every pair of its qrels ``query_id, doc_id, judge``."""
    def qrels(p):
        return pd.read_csv(p, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rel"],
                           dtype={"query_id": str, "doc_id": str})
    base = data / "trec_dl_passage" / "qrels"
    human = qrels(base / "human" / "qrels.dl21-passage.txt")
    judge = qrels(base / "llm" / "binary-gpt-4o.dl21.txt")
    val = human.merge(judge, on=["query_id", "doc_id"], suffixes=("_h", "_j"))
    table = pd.DataFrame({"query_id": val["query_id"], "doc_id": val["doc_id"], "human": (val["rel_h"] >= 2).astype(int),
                          "judge": val["rel_j"].astype(int)})
    return table, judge.rename(columns={"rel": "judge"})[["query_id", "doc_id", "judge"]]


def llmjudge_long(data: Path) -> pd.DataFrame:
    """LLMJudge: ``query_id, doc_id, rater, label``: the human qrels (rater ``human``) and each of the 33
    judges' files (rater = the file's stem), labels clipped into 0-3 as the challenge paper did."""
    def qrels(p, rater):
        q = pd.read_csv(p, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "label"],
                        dtype={"query_id": str, "doc_id": str})
        return q.assign(rater=rater, label=q["label"].clip(0, 3))[["query_id", "doc_id", "rater", "label"]]
    base = data / "llmjudge"
    parts = [qrels(base / "human_qrels" / "llmjudge_test_qrel_idx.txt", "human")]
    parts += [qrels(f, f.stem) for f in sorted((base / "llm_judgments").glob("*.txt"))]
    return pd.concat(parts, ignore_index=True)


def _llmjudge_binary(data: Path, judge: str) -> pd.Series:
    """The judge's binary labels (label at least 2, the track's binary relevance) on the human test pairs."""
    def qrels(p):
        return pd.read_csv(p, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "label"],
                           dtype={"query_id": str, "doc_id": str}).set_index(["query_id", "doc_id"])["label"]
    human = qrels(data / "llmjudge" / "human_qrels" / "llmjudge_test_qrel_idx.txt")
    lab = human if judge == "human" else qrels(data / "llmjudge" / "llm_judgments" / f"{judge}.txt").reindex(human.index)
    return (lab >= 2).astype(int)


def llmjudge_monitoring(data: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """LLMJudge as a deployed judge: the 4,423 test pairs in a seeded random order (seed 20261202).

    baseline: the first 500 pairs, ``reference`` (NIST, binary) and ``candidate`` (willia-umbrela1);
    baseline_production: the judge's labels on the next 1,000 pairs; stream: the remaining 2,923
    pairs in order (column ``order``), every fourth an anchor with its human label (the others with
    an empty one), judged by willia-umbrela1 for the first half and by TREMA-other (the submission
    with the lowest binary agreement) for the second: rows are selected and relabelled, nothing is
    computed."""
    import numpy as np

    h = _llmjudge_binary(data, "human")
    strong, weak = _llmjudge_binary(data, "willia-umbrela1"), _llmjudge_binary(data, "TREMA-other")
    order = np.random.default_rng(20261202).permutation(len(h))
    base, prod, rest = order[:500], order[500:1500], order[1500:]
    baseline = pd.DataFrame({"reference": h.iloc[base].to_numpy(), "candidate": strong.iloc[base].to_numpy()})
    production = pd.DataFrame({"candidate": strong.iloc[prod].to_numpy()})
    half = len(rest) // 2
    judge = np.r_[strong.iloc[rest[:half]].to_numpy(), weak.iloc[rest[half:]].to_numpy()]
    anchor = np.arange(len(rest)) % 4 == 0
    stream = pd.DataFrame({"order": np.arange(1, len(rest) + 1),
                           "reference": pd.Series(h.iloc[rest].to_numpy()).where(anchor).astype("Int64"),
                           "candidate": judge})
    return baseline, production, stream


def llmbar_repeats(data: Path, evaluator: str = "Falcon", strategy: str = "Swap") -> pd.DataFrame:
    """LLMBar's repeated samples: ``item, run, score`` for one evaluator and strategy, the items
    (``subset#instance#swap``) sampled twice; ``score`` is 1 when the judge picked output 1 (its
    ``winner``), a row per sample (``run`` = ``sample_idx``); parse failures and items without both
    samples left out."""
    with gzip.open(data / "llmbar" / "judge_predictions.tsv.gz", "rt", encoding="utf-8") as fh:
        p = pd.read_csv(fh, sep="\t", dtype=str)
    p = p[(p["evaluator"] == evaluator) & (p["strategy"] == strategy) & p["winner"].isin(["1", "2"])
          & p["sample_idx"].isin(["0", "1"])]
    p = p.assign(item=p["subset"] + "#" + p["instance_idx"] + "#" + p["swap"])
    both = p.groupby("item")["sample_idx"].transform("nunique") == 2
    p = p[both].drop_duplicates(["item", "sample_idx"])
    return pd.DataFrame({"item": p["item"], "run": p["sample_idx"].astype(int) + 1,
                         "score": (p["winner"] == "1").astype(int)}).sort_values(["item", "run"])


def hanna_levels(data: Path) -> pd.DataFrame:
    """HANNA's 10 systems × 96 stories: ``system, item, human`` (the Coherence ratings) and three
    metrics (BLEU, chrF, BERTScore F1), renamed; one row per system and story, from the per-story lists
    of ``hanna_metric_scores.csv`` (the Human row, which has no metric scores, left out)."""
    raw = pd.read_csv(data / "hanna" / "hanna_metric_scores.csv", encoding="utf-8")
    raw = raw[raw["Model"] != "Human"]
    cols = {"Coherence": "human", "BLEU Ξ§": "bleu", "chrF Ξ§": "chrf", "BERTScore F1 Ξε": "bertscore_f1"}
    rows = []
    for _, r in raw.iterrows():
        values = {new: json.loads(r[old]) for old, new in cols.items()}
        for i in range(len(values["human"])):
            rows.append({"system": r["Model"], "item": i, **{k: v[i] for k, v in values.items()}})
    return pd.DataFrame(rows)


def derive(name: str, data: Path, target: Path) -> Path:
    """Write the derived table ``name`` (``derived/NAME``) from ``data`` to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if name == "pandalm_long.csv":
        df = pandalm_long(data)
    elif name == "pandalm_battles.csv":
        df = pandalm_battles(data)
    elif name == "pandalm_scores.csv":
        df = pandalm_scores(data)
    elif name == "llmjudge_long.csv":
        df = llmjudge_long(data)
    elif name == "llmbar_battles.csv":
        df = llmbar_battles(data)
    elif name in ("llmjudge_baseline.csv", "llmjudge_baseline_production.csv", "llmjudge_stream.csv"):
        df = llmjudge_monitoring(data)[("llmjudge_baseline.csv", "llmjudge_baseline_production.csv",
                                        "llmjudge_stream.csv").index(name)]
    elif name == "hanna_levels.csv":
        df = hanna_levels(data)
    elif name == "llmbar_repeats.csv":
        df = llmbar_repeats(data)
    elif name in ("dl21_binary_validation.csv", "dl21_binary_judge.csv"):
        df = dl21_binary(data)[0 if name == "dl21_binary_validation.csv" else 1]
    else:
        raise KeyError(f"no derivation for derived/{name}")
    df.to_csv(target, index=False)
    return target
