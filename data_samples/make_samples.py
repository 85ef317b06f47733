"""Deterministic generator for the synthetic sample data shipped in
``metaeval.data_samples``.

Everything written by this script is synthetic.  It imitates the *shape* and
the headline statistics of four kinds of LLM-judge meta-evaluation data:

* ``trec_dl_like``   - TREC Deep Learning style graded qrels (human vs an
  UMBRELA-like LLM judge), 30 runs, a near-duplicate map and passage lengths;
* ``imageclef_like`` - ImageCLEFmed style binary qrels with an LLM-judge
  validation subset, a large judge-only expansion and the few-shot examples;
* ``rubric_like``    - Prometheus-Vision style 1-5 rubric scores by a human
  and by a judge sampled three times, with planted self-preference and
  length-preference effects;
* ``battles_like``   - OpenING style pairwise battles judged by humans and by
  a judge, with planted position bias and length bias.

Usage::

    python data_samples/make_samples.py            # writes beside this file
    python data_samples/make_samples.py OUTDIR     # writes into OUTDIR

Each ``make_*`` function takes a ``numpy.random.Generator`` and returns a dict
mapping a file name (relative to the set's folder) to a ``pandas.DataFrame``
whose columns are exactly the file's columns.  ``write_all`` seeds one
generator per set from :data:`SEEDS`, so the output is byte-identical on every
run (fixed float formatting, sorted rows, ``\\n`` line endings, gzip with
mtime=0 and no file name in the header).

Ids are always strings.  Rows are sorted by plain string comparison of the id
columns (so ``"10"`` sorts before ``"2"``), except that run files are sorted
by query id then rank.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np
import pandas as pd

# One fixed seed per set.  ``write_all`` uses ``np.random.default_rng(seed)``.
SEEDS = {
    "trec_dl_like": 20240611,
    "imageclef_like": 20240612,
    "rubric_like": 20240613,
    "battles_like": 20240614,
    "panel_like": 20240615,
    "monitor_like": 20261202,
}

# Planted effect sizes (documented in README.md).
RUBRIC_SELF_PREFERENCE = 0.5      # latent points added for generator "gpt-4v"
RUBRIC_LENGTH_SLOPE = 0.4         # latent points per unit of ln(length) ...
RUBRIC_LENGTH_CENTER = np.log(100.0)  # ... centred at ln(100 tokens)
BATTLE_POSITION_BIAS = 0.40       # judge utility bonus for the first-shown answer
BATTLE_HUMAN_LENGTH_SLOPE = 0.25  # human utility per unit of ln(length_a/length_b)
BATTLE_JUDGE_EXTRA_LENGTH_SLOPE = 0.35  # judge's extra slope on top of the human's


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------

def _sorted_df(rows: dict, by: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df = df.sort_values(by, kind="mergesort").reset_index(drop=True)
    return df


def _str_ids(values) -> list[str]:
    return [str(v) for v in values]


# --------------------------------------------------------------------------
# 1. TREC DL like
# --------------------------------------------------------------------------

TREC_BASE_MIX = np.array([0.55, 0.20, 0.15, 0.10])
# P(judge label | human label), rows = human 0..3, cols = judge 0..3.
# Diagonal follows UMBRELA's reported per-class accuracy (~75/50/30/45 %);
# errors go mostly to adjacent grades, the judge over-uses 1 and 2 for human
# 0 and under-uses 3.
TREC_JUDGE_CONFUSION = np.array([
    [0.75, 0.17, 0.07, 0.01],
    [0.22, 0.50, 0.23, 0.05],
    [0.10, 0.45, 0.30, 0.15],
    [0.03, 0.17, 0.35, 0.45],
])
N_TREC_RUNS = 30
TREC_TIE_RUNS = ("run_07", "run_22")


def _msmarco_v21_segment_ids(rng, n_docs: int, segs_per_doc: list[int]) -> list[str]:
    out = []
    for k in range(n_docs):
        shard = int(rng.integers(0, 59))
        offset = int(rng.integers(10_000, 2_000_000_000))
        seg_starts = np.sort(rng.choice(np.arange(0, 40), size=segs_per_doc[k], replace=False))
        base = int(rng.integers(0, 900_000_000))  # byte offset of segment 0
        for s in seg_starts:
            seg_offset = base + 1_700 * int(s) + int(rng.integers(0, 400))
            out.append(f"msmarco_v2.1_doc_{shard:02d}_{offset}#{int(s)}_{seg_offset}")
    return out


def make_trec_dl_like(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """TREC DL 2019/2020-like graded qrels, judge qrels, runs, dups, lengths."""
    n_topics = 40
    # Query ids: numeric strings of mixed width, as in TREC DL.
    q7 = rng.choice(np.arange(1_000_000, 1_200_000), size=32, replace=False)
    q6 = rng.choice(np.arange(100_000, 1_000_000), size=6, replace=False)
    q5 = rng.choice(np.arange(10_000, 100_000), size=2, replace=False)
    qids = sorted(_str_ids(np.concatenate([q7, q6, q5])))
    assert len(set(qids)) == n_topics

    pool_sizes = rng.integers(100, 301, size=n_topics)
    n_unjudged_cand = 400
    n_ids = int(pool_sizes.sum()) + n_topics * n_unjudged_cand
    all_ids = _str_ids(rng.choice(8_841_823, size=n_ids, replace=False))
    id_iter = iter(all_ids)

    # ---- pool with human labels -------------------------------------------
    topic_docs: dict[str, list[str]] = {}
    topic_rel: dict[str, np.ndarray] = {}
    for q, n in zip(qids, pool_sizes):
        mix = rng.dirichlet(40.0 * TREC_BASE_MIX)
        topic_rel[q] = rng.choice(4, size=int(n), p=mix)
        topic_docs[q] = [next(id_iter) for _ in range(int(n))]

    # MS MARCO v2.1 segment ids (contain '#') for a few pool docs of 3 topics
    seg_topics = [qids[i] for i in sorted(rng.choice(n_topics, size=3, replace=False))]
    for q in seg_topics:
        seg_ids = _msmarco_v21_segment_ids(rng, 2, [3, 2])
        pos = np.sort(rng.choice(len(topic_docs[q]), size=len(seg_ids), replace=False))
        for p, sid in zip(pos, seg_ids):
            topic_docs[q][int(p)] = sid

    # ---- near-duplicates (~2% of pool docs, canonical in the same topic) ---
    dup_rows = {"doc_id": [], "canonical_doc_id": []}
    dup_of: dict[str, str] = {}
    for q in qids:
        docs, rel = topic_docs[q], topic_rel[q]
        n = len(docs)
        n_dup = max(1, int(rng.binomial(n, 0.02)))
        idx = rng.permutation(n)
        dups, canon_pool = idx[:n_dup], idx[n_dup:]
        for d in dups:
            c = int(rng.choice(canon_pool))
            dup_rows["doc_id"].append(docs[int(d)])
            dup_rows["canonical_doc_id"].append(docs[c])
            dup_of[docs[int(d)]] = docs[c]
            # humans usually (85%) give a near-duplicate the same grade
            if rng.random() < 0.85:
                rel[int(d)] = rel[c]
            else:
                rel[int(d)] = int(np.clip(rel[c] + rng.choice([-1, 1]), 0, 3))

    # ---- judge labels --------------------------------------------------------
    topic_judge = {}
    for q in qids:
        conf = np.vstack([rng.dirichlet(150.0 * row) for row in TREC_JUDGE_CONFUSION])
        rel = topic_rel[q]
        u = rng.random(len(rel))
        cum = np.cumsum(conf, axis=1)[rel]
        topic_judge[q] = (u[:, None] > cum[:, :3]).sum(axis=1)

    # ---- passage lengths ---------------------------------------------------
    length: dict[str, int] = {}

    def _len(r):
        return int(np.clip(round(float(np.exp(np.log(60.0) + 0.06 * r + 0.45 * rng.standard_normal()))), 8, 512))

    for q in qids:
        for d, r in zip(topic_docs[q], topic_rel[q]):
            length[d] = _len(int(r))
    for d, c in zip(dup_rows["doc_id"], dup_rows["canonical_doc_id"]):
        length[d] = max(8, length[c] + int(rng.integers(-3, 4)))

    # ---- unjudged candidates (hidden relevance) ----------------------------
    unj_docs: dict[str, list[str]] = {}
    unj_rel: dict[str, np.ndarray] = {}
    for q in qids:
        unj_docs[q] = [next(id_iter) for _ in range(n_unjudged_cand)]
        unj_rel[q] = rng.choice(4, size=n_unjudged_cand, p=[0.85, 0.10, 0.04, 0.01])
    # a few '#'-segment ids among unjudged candidates as well
    for q in seg_topics[:2]:
        seg_ids = _msmarco_v21_segment_ids(rng, 1, [2])
        pos = np.sort(rng.choice(n_unjudged_cand, size=len(seg_ids), replace=False))
        for p, sid in zip(pos, seg_ids):
            unj_docs[q][int(p)] = sid

    # shared "lexical match" feature, correlated with relevance
    feat = {q: 0.5 * topic_rel[q] + rng.standard_normal(len(topic_rel[q])) for q in qids}
    ufeat = {q: 0.5 * unj_rel[q] + rng.standard_normal(n_unjudged_cand) for q in qids}

    # ---- runs ----------------------------------------------------------------
    run_ids = [f"run_{k:02d}" for k in range(1, N_TREC_RUNS + 1)]
    quality = rng.uniform(0.05, 1.1, size=N_TREC_RUNS)
    lex_w = rng.uniform(0.2, 0.8, size=N_TREC_RUNS)
    unj_frac = rng.uniform(0.10, 0.30, size=N_TREC_RUNS)
    run_frames = {}
    retrieved_unjudged: list[str] = []
    for r, tag in enumerate(run_ids):
        tie_topics = set()
        if tag in TREC_TIE_RUNS:
            tie_topics = {qids[i] for i in rng.choice(n_topics, size=6, replace=False)}
        rows = {"query_id": [], "q0": [], "doc_id": [], "rank": [], "score": [], "tag": []}
        for q in qids:
            n_u = int(min(rng.binomial(100, unj_frac[r]), 60))
            n_j = 100 - n_u
            rel, ur = topic_rel[q], unj_rel[q]
            raw_j = quality[r] * rel + lex_w[r] * feat[q] + rng.standard_normal(len(rel))
            raw_u = quality[r] * ur + lex_w[r] * ufeat[q] + rng.standard_normal(n_unjudged_cand) - 1.5
            top_j = np.argsort(-raw_j, kind="stable")[:n_j]
            top_u = np.argsort(-raw_u, kind="stable")[:n_u]
            docs = [topic_docs[q][int(i)] for i in top_j] + [unj_docs[q][int(i)] for i in top_u]
            raw = np.concatenate([raw_j[top_j], raw_u[top_u]])
            ticks = np.round((30.0 + 3.0 * raw) * 10_000).astype(np.int64)
            order = sorted(range(100), key=lambda i: (-int(ticks[i]), docs[i]))
            docs = [docs[i] for i in order]
            ticks = [int(ticks[i]) for i in order]
            for i in range(1, 100):  # strictly decreasing scores
                if ticks[i] >= ticks[i - 1]:
                    ticks[i] = ticks[i - 1] - 1
            if q in tie_topics:  # plant ties; tied docs are written in doc_id order
                for i in sorted(rng.choice(np.arange(1, 100), size=3, replace=False)):
                    ticks[int(i)] = ticks[int(i) - 1]
                order = sorted(range(100), key=lambda i: (-ticks[i], docs[i]))
                docs = [docs[i] for i in order]
                ticks = [ticks[i] for i in order]
            retrieved_unjudged.extend(unj_docs[q][int(i)] for i in top_u)
            rows["query_id"] += [q] * 100
            rows["q0"] += ["Q0"] * 100
            rows["doc_id"] += docs
            rows["rank"] += list(range(1, 101))
            rows["score"] += [t / 10_000 for t in ticks]
            rows["tag"] += [tag] * 100
        run_frames[f"runs/{tag}.txt.gz"] = _sorted_df(rows, ["query_id", "rank"])

    # lengths of retrieved unjudged docs
    unj_rel_map = {d: int(r) for q in qids for d, r in zip(unj_docs[q], unj_rel[q])}
    for d in sorted(set(retrieved_unjudged)):
        if d not in length:
            length[d] = _len(unj_rel_map[d])

    # ---- assemble -----------------------------------------------------------
    hq = {"query_id": [], "iteration": [], "doc_id": [], "relevance": []}
    jq = {"query_id": [], "iteration": [], "doc_id": [], "relevance": []}
    for q in qids:
        n = len(topic_docs[q])
        hq["query_id"] += [q] * n
        hq["iteration"] += ["0"] * n
        hq["doc_id"] += topic_docs[q]
        hq["relevance"] += [int(x) for x in topic_rel[q]]
        jq["query_id"] += [q] * n
        jq["iteration"] += ["0"] * n
        jq["doc_id"] += topic_docs[q]
        jq["relevance"] += [int(x) for x in topic_judge[q]]
    human = _sorted_df(hq, ["query_id", "doc_id"])
    judge = _sorted_df(jq, ["query_id", "doc_id"])
    # three pairs left unjudged by the judge
    drop = np.sort(rng.choice(len(judge), size=3, replace=False))
    judge = judge.drop(index=drop).reset_index(drop=True)

    dups = _sorted_df(dup_rows, ["doc_id"])
    passages = _sorted_df({"doc_id": list(length.keys()), "length": list(length.values())}, ["doc_id"])

    out = {
        "qrels.human.txt": human,
        "qrels.judge.txt": judge,
        "dups.tsv": dups,
        "passages.tsv": passages,
    }
    out.update(run_frames)
    return out


# --------------------------------------------------------------------------
# 2. ImageCLEFmed like
# --------------------------------------------------------------------------

# BioMed Central style ISSNs used to build image ids like "1471-2105-10-123-2"
_BMC_ISSN = ["1471-2105", "1471-2334", "1471-2407", "1471-2458", "1471-2474",
             "1471-2431", "1471-2393", "1471-2342", "1471-2482", "1471-230X",
             "1471-2490", "1471-2466", "1752-1947", "1477-7819", "1749-8090"]


def _image_ids(rng, n: int) -> list[str]:
    n_vol, n_art, n_fig = 14, 700, 8
    codes = rng.choice(len(_BMC_ISSN) * n_vol * n_art * n_fig, size=n, replace=False)
    out = []
    for c in codes:
        c = int(c)
        fig = c % n_fig + 1
        c //= n_fig
        art = c % n_art + 1
        c //= n_art
        vol = c % n_vol + 1
        c //= n_vol
        out.append(f"{_BMC_ISSN[c]}-{vol}-{art}-{fig}")
    return out


def make_imageclef_like(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """ImageCLEFmed-like binary qrels expanded by an LLM judge."""
    n_topics = 35
    qids = [str(k) for k in range(1, n_topics + 1)]
    collection = _image_ids(rng, 120_000)
    coll_idx = np.arange(len(collection))

    # ---- original human pool ------------------------------------------------
    pool_n = rng.integers(180, 460, size=n_topics)
    rel_frac = rng.beta(1.3, 12.0, size=n_topics)
    orig = {}  # q -> (doc index array, label array)
    for t, q in enumerate(qids):
        n = int(pool_n[t])
        docs = np.sort(rng.choice(coll_idx, size=n, replace=False))
        n_rel = int(np.clip(rng.binomial(n, rel_frac[t]), 6, n // 2))
        lab = np.zeros(n, dtype=int)
        lab[rng.choice(n, size=n_rel, replace=False)] = 1
        orig[q] = (docs, lab)

    # ---- validation subset: 97 relevant + 105 non-relevant ------------------
    n_rel_t = np.full(n_topics, 2)
    while n_rel_t.sum() < 97:  # spread the rest, at most 5 relevant per topic
        t = int(rng.integers(n_topics))
        if n_rel_t[t] < 5:
            n_rel_t[t] += 1
    n_non_t = np.full(n_topics, 3)
    moves = rng.choice(n_topics, size=(8, 2), replace=True)
    for a, b in moves:  # shuffle some mass, keep total 105 and >=2 per topic
        if a != b and n_non_t[a] > 2:
            n_non_t[a] -= 1
            n_non_t[b] += 1
    assert n_rel_t.sum() == 97 and n_non_t.sum() == 105

    # few-shot example topics inside validation
    fs_in_val = set(int(i) for i in rng.choice(n_topics, size=10, replace=False))
    fs_label = (rng.random(n_topics) < 0.8).astype(int)

    val = {"query_id": [], "doc_id": [], "human": [], "few_shot": []}
    fs_rows = {"query_id": [], "doc_id": [], "label": []}
    used_in_pool = {}
    for t, q in enumerate(qids):
        docs, lab = orig[q]
        rel_i = rng.permutation(np.flatnonzero(lab == 1))
        non_i = rng.permutation(np.flatnonzero(lab == 0))
        v_rel, v_non = rel_i[: n_rel_t[t]], non_i[: n_non_t[t]]
        if t in fs_in_val:
            fs_idx = v_rel[0] if fs_label[t] == 1 else v_non[0]
        else:
            fs_idx = rel_i[n_rel_t[t]] if fs_label[t] == 1 else non_i[n_non_t[t]]
        fs_rows["query_id"].append(q)
        fs_rows["doc_id"].append(collection[int(docs[fs_idx])])
        fs_rows["label"].append(int(lab[fs_idx]))
        for i in np.concatenate([v_rel, v_non]):
            val["query_id"].append(q)
            val["doc_id"].append(collection[int(docs[i])])
            val["human"].append(int(lab[i]))
            val["few_shot"].append(int(i == fs_idx))
        used_in_pool[q] = docs

    val = _sorted_df(val, ["query_id", "doc_id"])
    n_val = len(val)
    human = val["human"].to_numpy()
    fs = val["few_shot"].to_numpy()
    judge = human.copy()
    refusal = np.zeros(n_val, dtype=int)
    # exact table [[85, 20], [20, 77]]: 20 FP among human 0, 20 FN among human 1.
    # Few-shot rows are always judged correctly (the judge saw them).
    cand0 = np.flatnonzero((human == 0) & (fs == 0))
    cand1 = np.flatnonzero((human == 1) & (fs == 0))
    fp = rng.choice(cand0, size=20, replace=False)
    fn = rng.choice(cand1, size=20, replace=False)
    judge[fp] = 1
    judge[fn] = 0
    # two refusals (~1%), recorded as judge=0: one human-1 row (one of the FNs)
    # and one human-0 row (a true negative)
    tn = np.setdiff1d(cand0, fp)
    ref = [int(rng.choice(fn)), int(rng.choice(tn))]
    refusal[ref] = 1
    val["judge"] = judge
    val["refusal"] = refusal
    val = val[["query_id", "doc_id", "human", "judge", "few_shot", "refusal"]]

    # ---- original qrels ------------------------------------------------------
    oq = {"query_id": [], "iteration": [], "doc_id": [], "relevance": []}
    for q in qids:
        docs, lab = orig[q]
        oq["query_id"] += [q] * len(docs)
        oq["iteration"] += ["0"] * len(docs)
        oq["doc_id"] += [collection[int(d)] for d in docs]
        oq["relevance"] += [int(x) for x in lab]
    original = _sorted_df(oq, ["query_id", "doc_id"])

    # ---- expansion: 50,000 judge-only labels, 535 positives (1.07%) ---------
    n_exp, n_pos = 50_000, 535
    w = rng.lognormal(0.0, 0.35, size=n_topics)
    exp_n = np.floor(n_exp * w / w.sum()).astype(int)
    for t in rng.choice(n_topics, size=n_exp - exp_n.sum(), replace=False):
        exp_n[t] += 1
    prev = rng.lognormal(0.0, 0.9, size=n_topics)
    pos_t = rng.multinomial(n_pos, prev * exp_n / (prev * exp_n).sum())
    pos_t = np.minimum(pos_t, exp_n // 4)
    while pos_t.sum() < n_pos:  # (re)place any mass removed by the cap
        t = int(rng.choice(n_topics, p=prev * exp_n / (prev * exp_n).sum()))
        if pos_t[t] < exp_n[t] // 4:
            pos_t[t] += 1
    refusal_rate = np.clip(rng.lognormal(np.log(0.01), 0.5, size=n_topics), 0.002, 0.04)
    ex = {"query_id": [], "doc_id": [], "judge": [], "refusal": []}
    for t, q in enumerate(qids):
        avail = np.setdiff1d(coll_idx, used_in_pool[q], assume_unique=True)
        docs = rng.choice(avail, size=int(exp_n[t]), replace=False)
        j = np.zeros(exp_n[t], dtype=int)
        j[: pos_t[t]] = 1
        r = np.zeros(exp_n[t], dtype=int)
        r[pos_t[t]:] = (rng.random(exp_n[t] - pos_t[t]) < refusal_rate[t]).astype(int)
        ex["query_id"] += [q] * int(exp_n[t])
        ex["doc_id"] += [collection[int(d)] for d in docs]
        ex["judge"] += [int(x) for x in j]
        ex["refusal"] += [int(x) for x in r]
    expansion = _sorted_df(ex, ["query_id", "doc_id"])

    few_shot = _sorted_df(fs_rows, ["query_id", "doc_id"])
    return {
        "validation.csv": val,
        "expansion.tsv.gz": expansion,
        "few_shot.tsv": few_shot,
        "original_qrels.txt": original,
    }


# --------------------------------------------------------------------------
# 3. Rubric (Prometheus-Vision like)
# --------------------------------------------------------------------------

RUBRIC_GENERATORS = ["gpt-4v", "llava-13b", "instructblip"]
_RUBRIC_GEN_QUALITY = {"gpt-4v": 0.45, "llava-13b": 0.0, "instructblip": -0.45}
_RUBRIC_GEN_LOGLEN = {"gpt-4v": np.log(190.0), "llava-13b": np.log(110.0), "instructblip": np.log(45.0)}


def _to_likert(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x), 1, 5).astype(int)


def make_rubric_like(rng: np.random.Generator, planted: bool = True) -> dict[str, pd.DataFrame]:
    """Prometheus-Vision-like 1-5 rubric scores; human once, judge three times.

    Data-generating process (latent, continuous scale; observed score =
    clip(round(latent), 1, 5)):

    * true quality  T = 3.4 + g_gen + d_prompt + 0.3*(ln L - mu_gen) + e_item,
      d_prompt ~ N(0, 0.55), e_item ~ N(0, 0.45);
      ln L ~ N(mu_gen, 0.35) with median length 190 / 110 / 45 tokens;
    * human latent  H = T + N(0, 0.55);
    * judge latent  J_s = T + u_item + N(0, 0.35) for samples s = 1, 2, 3,
      u_item ~ N(0, 0.55) (shared by the three samples),
      plus, if ``planted``:  + 0.5 * [generator == "gpt-4v"]
                             + 0.4 * (ln(length) - ln(100)).

    The random draws do not depend on ``planted``: with the same seed the
    control set has identical lengths, human scores and judge noise.
    """
    n_prompts = 300
    prompt_ids = [f"pv_{k:04d}" for k in range(1, n_prompts + 1)]
    d_prompt = rng.normal(0.0, 0.55, size=n_prompts)
    rows = {"item_id": [], "prompt_id": [], "generator": [], "length": [],
            "rater": [], "sample": [], "score": []}
    for p, pid in enumerate(prompt_ids):
        for g in RUBRIC_GENERATORS:
            z = rng.standard_normal(6)
            loglen = _RUBRIC_GEN_LOGLEN[g] + 0.35 * z[0]
            length = int(np.clip(round(float(np.exp(loglen))), 3, 1500))
            loglen = np.log(length)
            true_q = (3.4 + _RUBRIC_GEN_QUALITY[g] + d_prompt[p]
                      + 0.3 * (loglen - _RUBRIC_GEN_LOGLEN[g]) + 0.45 * z[1])
            h = true_q + 0.55 * z[2]
            j_item = true_q + 0.55 * z[3]
            if planted:
                j_item = (j_item + RUBRIC_SELF_PREFERENCE * (g == "gpt-4v")
                          + RUBRIC_LENGTH_SLOPE * (loglen - RUBRIC_LENGTH_CENTER))
            j = j_item + 0.35 * rng.standard_normal(3)
            item = f"{pid}:{g}"
            scores = [int(_to_likert(np.array([h]))[0])] + [int(v) for v in _to_likert(j)]
            for rater, sample, sc in zip(["human", "judge", "judge", "judge"], [1, 1, 2, 3], scores):
                rows["item_id"].append(item)
                rows["prompt_id"].append(pid)
                rows["generator"].append(g)
                rows["length"].append(length)
                rows["rater"].append(rater)
                rows["sample"].append(sample)
                rows["score"].append(sc)
    return {"scores.csv": _sorted_df(rows, ["item_id", "rater", "sample"])}


# --------------------------------------------------------------------------
# 4. Battles (OpenING like)
# --------------------------------------------------------------------------

BATTLE_MODELS = {
    # name: (Bradley-Terry log-strength, seen by the judge in training, median length)
    "gpt-4o+dalle-3": (1.00, 1, 260.0),
    "gemini-1.5+flux": (0.75, 1, 230.0),
    "emu3": (0.35, 0, 150.0),
    "anole-7b": (0.10, 1, 180.0),
    "seed-llama-14b": (-0.10, 1, 120.0),
    "vila-u": (-0.30, 0, 110.0),
    "show-o": (-0.55, 0, 90.0),
    "minigpt-5": (-0.90, 1, 140.0),
}
BATTLE_TIE_CUTS = (0.37, 0.64)  # |u| < c1: tie; c1 <= |u| < c2: leaning tie


def _battle_outcome(u: np.ndarray) -> np.ndarray:
    c1, c2 = BATTLE_TIE_CUTS
    out = np.where(u >= c2, "A", np.where(u >= c1, "tie_a", np.where(u > -c1, "tie",
                   np.where(u > -c2, "tie_b", "B"))))
    return out.astype(object)


def make_battles_like(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """OpenING-like pairwise battles judged by humans and by a judge.

    Latent utility of "A better than B" (standard normal noises):

    * shared content difference  D = s_a - s_b + N(0, 0.3)
    * human:  u_h = D + 0.25*ln(len_a/len_b) + N(0, 1.4)
    * judge, answer X shown first:  u_j = D_X + (0.25 + 0.35)*ln(len_X/len_Y)
      + xi_X + N(0, 0.3) + 0.40, where xi ~ N(0, 1.2) if both models are seen
      by the judge, N(0, 1.6) otherwise; xi is shared by the original and
      the swapped presentation (xi_b = -xi_a).

    Outcome: u >= 0.64 -> A, 0.37 <= u < 0.64 -> tie_a, |u| < 0.37 -> tie,
    symmetric for tie_b / B.
    """
    names = list(BATTLE_MODELS)
    strength = np.array([BATTLE_MODELS[m][0] for m in names])
    seen = np.array([BATTLE_MODELS[m][1] for m in names])
    medlen = np.array([BATTLE_MODELS[m][2] for m in names])
    n_items = 400
    pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]

    battles = []  # (item_id, a, b)
    for k in range(1, n_items + 1):
        n_b = 1 + int(rng.random() < 0.5)
        chosen = rng.choice(len(pairs), size=n_b, replace=False)
        for c in chosen:
            a, b = pairs[int(c)]
            if rng.random() < 0.5:
                a, b = b, a
            battles.append((f"op_{k:04d}", a, b))
    n_bat = len(battles)
    swap_set = set(int(i) for i in rng.choice(n_bat, size=round(0.25 * n_bat), replace=False))

    rows = {"battle_id": [], "item_id": [], "model_a": [], "model_b": [], "judge": [],
            "outcome": [], "swapped": [], "seen_a": [], "seen_b": [], "length_a": [], "length_b": []}

    def add(bid, item, a, b, who, outcome, swapped, la, lb):
        rows["battle_id"].append(bid)
        rows["item_id"].append(item)
        rows["model_a"].append(names[a])
        rows["model_b"].append(names[b])
        rows["judge"].append(who)
        rows["outcome"].append(outcome)
        rows["swapped"].append(swapped)
        rows["seen_a"].append(int(seen[a]))
        rows["seen_b"].append(int(seen[b]))
        rows["length_a"].append(la)
        rows["length_b"].append(lb)

    js = BATTLE_HUMAN_LENGTH_SLOPE + BATTLE_JUDGE_EXTRA_LENGTH_SLOPE
    for i, (item, a, b) in enumerate(battles):
        bid = f"b{i + 1:04d}"
        z = rng.standard_normal(7)
        la = int(np.clip(round(float(medlen[a] * np.exp(0.5 * z[0]))), 5, 2000))
        lb = int(np.clip(round(float(medlen[b] * np.exp(0.5 * z[1]))), 5, 2000))
        lr = np.log(la / lb)
        d = strength[a] - strength[b] + 0.3 * z[2]
        u_h = d + BATTLE_HUMAN_LENGTH_SLOPE * lr + 1.4 * z[3]
        xi_sd = 1.2 if (seen[a] and seen[b]) else 1.6
        xi = xi_sd * z[4]
        u_j = d + js * lr + xi + 0.3 * z[5] + BATTLE_POSITION_BIAS
        # swapped presentation: b shown first; utility of "new A (= b) better"
        u_js = -(d + js * lr + xi) + 0.3 * z[6] + BATTLE_POSITION_BIAS
        add(bid, item, a, b, "human", _battle_outcome(np.array([u_h]))[0], 0, la, lb)
        add(bid, item, a, b, "judge", _battle_outcome(np.array([u_j]))[0], 0, la, lb)
        if i in swap_set:
            add(bid, item, b, a, "judge", _battle_outcome(np.array([u_js]))[0], 1, lb, la)

    df = _sorted_df(rows, ["battle_id", "judge", "swapped"])
    # ~1% of judge rows: unparseable judge output
    judge_rows = np.flatnonzero(df["judge"].to_numpy() == "judge")
    bad = rng.choice(judge_rows, size=round(0.01 * len(judge_rows)), replace=False)
    outcome = df["outcome"].to_numpy(dtype=object).copy()
    outcome[np.sort(bad)] = "parse_error"
    df["outcome"] = outcome
    return {"battles.csv": df}


# --------------------------------------------------------------------------
# 5. A panel of relevance judges
# --------------------------------------------------------------------------

# Each judge keeps the human grade with probability PANEL_KEEP[judge] + a topic effect
# (N(0, PANEL_TOPIC_SD), shared by the judges: some topics are hard for all), else says a
# uniformly random grade. "strong_lenient" is "strong" calling every 1 a 2 (its errors include
# all of strong's). Names in the file's rater column; the human rater is "human".
PANEL_KEEP = {"strong": 0.55, "mid_a": 0.45, "mid_b": 0.45, "weak": 0.25}
PANEL_TOPIC_SD = 0.1


def make_panel_like(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """Graded labels of 20 topics x 30 passages by a human and five judges, long form."""
    n_topics, per_topic = 20, 30
    qids = sorted(_str_ids(rng.choice(np.arange(100_000, 1_000_000), size=n_topics, replace=False)))
    docs = _str_ids(rng.choice(8_841_823, size=n_topics * per_topic, replace=False))
    topic = np.repeat(np.arange(n_topics), per_topic)
    n = n_topics * per_topic
    human = rng.choice(4, size=n, p=TREC_BASE_MIX)
    effect = rng.normal(0.0, PANEL_TOPIC_SD, n_topics)[topic]
    labels = {"human": human}
    for name, keep in PANEL_KEEP.items():
        kept = rng.random(n) < np.clip(keep + effect, 0.0, 1.0)
        labels[name] = np.where(kept, human, rng.integers(0, 4, n))
    labels["strong_lenient"] = np.where(labels["strong"] == 1, 2, labels["strong"])
    rows = {"query_id": [], "doc_id": [], "rater": [], "label": []}
    for rater, lab in labels.items():
        rows["query_id"] += [qids[t] for t in topic]
        rows["doc_id"] += docs
        rows["rater"] += [rater] * n
        rows["label"] += [int(v) for v in lab]
    return {"labels.csv": _sorted_df(rows, ["query_id", "doc_id", "rater"])}


def make_monitor_like(rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """A deployed binary judge: baseline pairs, a 30-day stream, and five gradings of 200 items.

    baseline.csv: 500 validation pairs (human, judge) with a judge agreeing 85% of the time.
    baseline_production.csv: the judge's calls on 1,000 production items before deployment.
    stream.csv: 30 days; each day 100 anchor items (human and judge label) and 300 production items
    (judge label only, the human label empty), shuffled within the day. From day 20 on the judge is
    replaced by one that agrees 65% of the time (anchors and production alike).
    grades.csv: a rubric judge grading 200 items 5 times each (1-5, item SD 1, run-to-run SD 0.6,
    a small shift per run).
    """
    prev = 0.35
    h = (rng.random(500) < prev).astype(int)
    base = pd.DataFrame({"reference": h, "candidate": np.where(rng.random(500) < 0.85, h, 1 - h)})
    prod0 = pd.DataFrame({"candidate": (rng.random(1000) < prev * 0.85 + (1 - prev) * 0.15).astype(int)})
    rows = {"day": [], "order": [], "reference": [], "candidate": []}
    k = 0
    for day in range(30):
        acc = 0.85 if day < 20 else 0.65
        ha = (rng.random(100) < prev).astype(int)
        ja = np.where(rng.random(100) < acc, ha, 1 - ha)
        hp = (rng.random(300) < prev).astype(int)
        jp = np.where(rng.random(300) < acc, hp, 1 - hp)
        idx = rng.permutation(400)
        ref = np.r_[ha.astype(str), np.full(300, "")][idx]
        cand = np.r_[ja, jp][idx]
        for r, c in zip(ref, cand):
            k += 1
            rows["day"].append(day + 1)
            rows["order"].append(k)
            rows["reference"].append(str(r))
            rows["candidate"].append(int(c))
    item = np.repeat(np.arange(200), 5)
    run = np.tile(np.arange(1, 6), 200)
    grade = np.clip(np.round(3 + rng.normal(0, 1, 200)[item] + rng.normal(0, 0.15, 5)[run - 1]
                             + rng.normal(0, 0.6, 1000)), 1, 5).astype(int)
    grades = pd.DataFrame({"item": [f"item{i:03d}" for i in item], "run": run, "grade": grade})
    return {"baseline.csv": base, "baseline_production.csv": prod0, "stream.csv": pd.DataFrame(rows),
            "grades.csv": grades}


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------

def _format_column(s: pd.Series) -> list[str]:
    if pd.api.types.is_float_dtype(s):
        return [f"{x:.4f}" for x in s.to_numpy()]
    return [str(x) for x in s.to_numpy()]


def _serialize(name: str, df: pd.DataFrame) -> bytes:
    base = name[:-3] if name.endswith(".gz") else name
    if base.endswith(".csv"):
        sep, header = ",", True
    elif base.endswith(".tsv"):
        sep, header = "\t", True
    elif base.endswith(".txt"):
        sep, header = " ", False  # TREC formats: whitespace separated, no header
    else:
        raise ValueError(f"unknown file type: {name}")
    cols = [_format_column(df[c]) for c in df.columns]
    for c, vals in zip(df.columns, cols):
        bad = [v for v in vals if sep in v or "\n" in v or '"' in v or (sep == " " and "\t" in v)]
        if bad:
            raise ValueError(f"{name}:{c}: value needs quoting: {bad[0]!r}")
    lines = [sep.join(df.columns)] if header else []
    lines.extend(sep.join(vals) for vals in zip(*cols))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        with open(path, "wb") as fh:
            # filename="" -> no FNAME field in the header; mtime=0 -> fixed header
            with gzip.GzipFile(filename="", mode="wb", fileobj=fh, compresslevel=9, mtime=0) as gz:
                gz.write(data)
    else:
        path.write_bytes(data)


def make_all() -> dict[str, dict[str, pd.DataFrame]]:
    """All six sets, each generated from its own fixed seed in :data:`SEEDS`."""
    return {
        "trec_dl_like": make_trec_dl_like(np.random.default_rng(SEEDS["trec_dl_like"])),
        "imageclef_like": make_imageclef_like(np.random.default_rng(SEEDS["imageclef_like"])),
        "rubric_like": make_rubric_like(np.random.default_rng(SEEDS["rubric_like"]), planted=True),
        "battles_like": make_battles_like(np.random.default_rng(SEEDS["battles_like"])),
        "panel_like": make_panel_like(np.random.default_rng(SEEDS["panel_like"])),
        "monitor_like": make_monitor_like(np.random.default_rng(SEEDS["monitor_like"])),
    }


def write_all(outdir) -> list[Path]:
    """Generate every set and write it under ``outdir``; returns written paths."""
    outdir = Path(outdir)
    written = []
    for set_name, files in make_all().items():
        for fname in sorted(files):
            path = outdir / set_name / fname
            _write(path, _serialize(fname, files[fname]))
            written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for p in write_all(target):
        print(p)
