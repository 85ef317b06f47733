"""Many judges on real data: the LLMJudge panel, juries of LLM judges, PandaLM and LLMBar juries.

LLMJudge (SIGIR 2024 LLM4Eval challenge, ../shared/data/llmjudge): the 33 released judges against the
TREC DL 2023 human labels on 4,423 query–passage pairs in 25 queries, 4-level relevance, judge labels
clipped into 0-3 as the challenge paper did (Rahmani et al., arXiv:2502.13908).

* ``judge_panel`` for Cohen's kappa and ordinal Krippendorff's alpha (the statistics of the paper's
  Tables 4 and 5; tests/test_panel_realdata.py checks all 33 values of each), from one shared
  query-cluster bootstrap draw: interval, simultaneous rank set, difference to the best of the
  others with its simultaneous (all-pairs max-T) interval and p-value, and the set of judges tied
  with the best; the judges' error correlation.
* Juries of k = 3, 4, 5 judges: majority vote, Dawid–Skene (unsupervised), and the two that learn
  from human labels, a weighted vote with learned weights and Dawid–Skene with the human labels of
  the training queries (``dawid_skene_supervised``). **The members are chosen on held-out queries:**
  the 25 queries are dealt into 5 folds (whole queries; ``metaeval.panels.jury._folds``, the rule
  ``jury`` and ``select_jury`` use); for each fold the k judges with the highest kappa on the other
  four folds' queries are the jury, and the jury labels this fold's items (a learning jury learns only
  from the other folds' human labels, cross-fitted again inside by ``jury(..., cluster=)``). The
  pooled labels never used an item's human label, neither to pick the members nor to fit the jury.
  Also the jury of all 33 judges (no selection). ``jury_vs_best`` then compares each jury with the
  best of all 33 single judges, the best chosen again in every bootstrap draw of queries (so the
  comparison is tilted towards the single judge, not the jury). ``select_jury`` gives the nested
  cross-fitted curve "kappa vs number of judges" of the best majority jury found by search.
* The fold split and the bootstrap are random: ``--seeds N`` repeats the jury comparison with seeds
  0..N-1 and reports the mean over seeds with its Monte-Carlo standard error.

PandaLM (../shared/data/pandalm; see analyses/pandalm_alt_test.py): a jury of GPT-3.5 and PandaLM-7B
(majority vote with the stated tie rule "the two disagree → tie"; and Dawid–Skene), the alt-test of
the jury against the three human annotators, and jury_vs_best against the annotators' majority label.

LLMBar (../shared/data/llmbar): the six judges (GPT-4, ChatGPT, ChatGPT-0301, LLaMA2, PaLM2, Falcon;
strategy Vanilla_NoRules, original order, first sample) on the 419 items of the five LLMBar subsets;
juries over the six judges vs the best judge, accuracy against the gold labels (items resampled).

    python analyses/llmjudge_panel.py [--data ../shared/data] [--out DIR] [--n-resamples 2000] [--seeds 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import metaeval as me
from metaeval.panels.jury import _folds  # the fold rule of jury() and select_jury(): whole topics

SCALE = me.Scale((0, 1, 2, 3))
KEYS = ["query_id", "doc_id"]
JURY_METHODS = ("majority", "dawid_skene", "weighted", "dawid_skene_supervised")
LEARNS = {"weighted", "dawid_skene_supervised"}


# --------------------------------------------------------------------------------------------
# LLMJudge
# --------------------------------------------------------------------------------------------

def llmjudge_files(data: Path) -> tuple[Path, Path]:
    folder = data / "llmjudge"
    return folder / "human_qrels" / "llmjudge_test_qrel_idx.txt", folder / "llm_judgments"


def llmjudge_panels(data: Path, *, n_resamples: int = 2000, seed: int = 0) -> dict[str, me.PanelResult]:
    """``judge_panel`` of the 33 judges for 4-level Cohen's kappa and ordinal Krippendorff's alpha."""
    human, folder = llmjudge_files(data)
    out = {}
    for stat in ("cohen_kappa", "krippendorff_alpha_ordinal"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", me.MetaevalWarning)
            out[stat] = me.judge_panel(human, folder, statistic=stat, scale=SCALE, out_of_scale="clip",
                                       cluster="query_id", n_resamples=n_resamples, rng=seed)
    return out


def llmjudge_votes(data: Path) -> tuple[pd.DataFrame, pd.Series, dict[str, pd.DataFrame], pd.DataFrame]:
    """Items × judges (labels clipped into 0-3; index ``query_id/doc_id``), the human labels on the
    same index, the judges' clipped judgment sets (for jury_vs_best) and the human judgment set."""
    human_path, folder = llmjudge_files(data)
    human = me.read_qrels(human_path)
    frames = {}
    for f in sorted(folder.glob("*.txt")):
        j = me.read_qrels(f)
        frames[f.stem] = j.assign(relevance=j["relevance"].clip(0, 3))
    index = human["query_id"] + "/" + human["doc_id"]
    votes = pd.DataFrame({name: j.set_index(j["query_id"] + "/" + j["doc_id"])["relevance"].reindex(index).to_numpy()
                          for name, j in frames.items()}, index=pd.Index(index, name="item"))
    truth = pd.Series(human["relevance"].to_numpy(), index=votes.index, name="human")
    return votes, truth, frames, human


def _kappa(truth: np.ndarray, labels: np.ndarray) -> float:
    ok = ~pd.isna(labels)
    return me.cohen_kappa(truth[ok].astype(int), labels[ok].astype(int), ci_method=None).estimate


def cross_fitted_jury(votes: pd.DataFrame, truth: pd.Series, groups, *, method: str, k: int | None,
                      statistic=_kappa, n_folds: int = 5, seed: int = 0, ties=None):
    """Jury labels whose members (the top k judges by ``statistic``) and weights come from other folds.

    Returns the pooled labels (a Series on ``votes.index``) and the members chosen in each fold.
    ``k=None`` takes every judge (no selection)."""
    gen = np.random.default_rng(seed)
    groups = np.asarray(groups)
    fold = _folds(len(votes), groups, n_folds, gen)
    labels = pd.Series(np.nan, index=votes.index, dtype=object)
    chosen = []
    base = "dawid_skene" if method == "dawid_skene_supervised" else method
    kw = {} if ties is None else {"ties": ties}
    for f in range(int(fold.max()) + 1):
        test = fold == f
        train = ~test
        if k is None:
            members = list(votes.columns)
        else:
            score = {j: statistic(truth.to_numpy()[train], votes[j].to_numpy()[train]) for j in votes.columns}
            members = sorted(score, key=lambda j: (-score[j], j))[:k]
        chosen.append(members)
        if method in LEARNS:
            ref = truth.where(train)                     # this fold's human labels are not seen
            res = me.jury(votes[members], method=base, reference=ref, cluster=groups, rng=gen, **kw)
        else:
            res = me.jury(votes[members], method=base, rng=gen, **kw)
        labels[test] = res.labels.reindex(votes.index)[test].to_numpy()
        if k is None and method not in LEARNS:          # no selection, nothing learned: one fit for all folds
            labels[:] = res.labels.reindex(votes.index).to_numpy()
            break
    return labels, chosen


def _as_keys(labels: pd.Series) -> pd.Series:
    """``query_id/doc_id`` index → the MultiIndex jury_vs_best matches on."""
    parts = labels.index.str.split("/", n=1)
    idx = pd.MultiIndex.from_tuples([tuple(p) for p in parts], names=KEYS)
    return pd.Series(labels.to_numpy(), index=idx).astype(float)


def llmjudge_juries(data: Path, *, sizes=(3, 4, 5), methods=JURY_METHODS, n_resamples: int = 2000, seed: int = 0,
                    votes=None) -> pd.DataFrame:
    """One row per jury: its kappa, the best single judge's (best of 33, chosen in every draw), the
    difference with its one-sided 95% lower bound and p-value, and the members picked per fold."""
    votes, truth, frames, human = votes or llmjudge_votes(data)
    groups = votes.index.str.split("/").str[0]
    rows = []
    configs = [(m, k) for m in methods for k in sizes] + [(m, None) for m in ("majority", "dawid_skene")]
    for method, k in configs:
        labels, chosen = cross_fitted_jury(votes, truth, groups, method=method, k=k, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", me.MetaevalWarning)
            cmp = me.jury_vs_best(human, frames, _as_keys(labels), statistic="cohen_kappa", scale=SCALE,
                                  cluster="query_id", n_resamples=n_resamples, rng=seed)
        d, j, b = (cmp.get(set=s) for s in ("jury - best member", "jury", "best member"))
        members = sorted({m for c in chosen for m in c})
        rows.append({"method": method, "k": "all 33" if k is None else k, "seed": seed, "jury": j.estimate,
                     "best_single": b.estimate, "difference": d.estimate, "difference_low": d.ci.low,
                     "pvalue": d.pvalue, "best_judge": cmp.best_member,
                     "share_best": float(cmp.selection.max()),
                     "distinct_members": len(members),
                     "members_fold0": "all" if k is None else " + ".join(chosen[0])})
    return pd.DataFrame(rows)


def summarize_seeds(t: pd.DataFrame, by=("method", "k"),
                    cols=("jury", "best_single", "difference", "difference_low", "pvalue")) -> pd.DataFrame:
    """Mean over seeds and its Monte-Carlo standard error (SD / sqrt(seeds)) per jury."""
    cols = list(cols)
    g = t.groupby(list(by), sort=False)
    mean = g[cols].mean()
    se = g[cols].std(ddof=1) / np.sqrt(g.size().to_numpy()[:, None])
    out = mean.join(se.add_suffix("_mc_se"))
    out["share_p_below_0.05"] = g["pvalue"].apply(lambda p: float((p < 0.05).mean()))
    out["seeds"] = g.size()
    return out.reset_index()


def llmjudge_selection(votes, truth, *, max_judges: int = 5, seed: int = 0) -> pd.DataFrame:
    """select_jury's nested curve: the best majority jury of each size found by search over the 33."""
    groups = votes.index.str.split("/").str[0]
    sel = me.select_jury(votes, truth, method="majority", cluster=np.asarray(groups), max_judges=max_judges,
                         rng=seed)
    return sel.curve


def panel_table(res: me.PanelResult) -> pd.DataFrame:
    cols = ["judge", "estimate", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "difference",
            "difference_low", "difference_high", "difference_pvalue", "tied_with_best"]
    return res.to_frame()[cols].sort_values("estimate", ascending=False).reset_index(drop=True)


def most_correlated(res: me.PanelResult, n: int = 10) -> pd.DataFrame:
    """The judge pairs whose errors correlate most (and the least), from the error-correlation matrix."""
    m = res.error_correlation
    iu = np.triu_indices(len(m), 1)
    pairs = pd.DataFrame({"judge_a": m.index[iu[0]], "judge_b": m.columns[iu[1]],
                          "error_correlation": m.to_numpy()[iu], "agreement": res.agreement.to_numpy()[iu]})
    pairs = pairs.sort_values("error_correlation", ascending=False)
    return pd.concat([pairs.head(n), pairs.tail(3)]).reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# PandaLM
# --------------------------------------------------------------------------------------------

def pandalm_juries(data: Path, *, epsilons=(0.2, 0.15, 0.1), n_resamples: int = 2000, seed: int = 0):
    """Alt-test of GPT-3.5, PandaLM-7B and their juries; jury_vs_best against the annotators' majority."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pandalm_alt_test import ANNOTATORS, load_pandalm

    humans, judges = load_pandalm(data)
    pair = {"gpt-3.5-turbo": judges["gpt-3.5-turbo"], "pandalm-7b": judges["pandalm-7b"]}
    votes = pd.DataFrame({k: v.astype(int) for k, v in pair.items()})
    # two judges: where they disagree the majority is a tie of votes; the rule "disagree → tie (0)"
    juries = {"jury: majority (disagree → tie)": me.jury(votes, method="majority", ties=[0, 1, 2]).labels,
              "jury: Dawid–Skene": me.jury(votes, method="dawid_skene").labels}
    alt_rows = []
    for name, lab in {**pair, **juries}.items():
        for eps in epsilons:
            r = me.alt_test(humans, lab, epsilon=eps)
            row = {"judge": name, **r.row()}
            for p in r.pvalues.itertuples(index=False):
                row[f"p_{p.annotator}"] = p.pvalue
            alt_rows.append(row)
    # reference for jury_vs_best: the annotators' majority label (items where all three differ dropped)
    wide = humans.pivot(index="item_id", columns="annotator", values="label")[list(ANNOTATORS)]
    mode = wide.mode(axis=1)
    ref = mode[0].where(mode.notna().sum(axis=1) == 1).dropna().astype(int)
    ref_frame = pd.DataFrame({"item_id": ref.index.astype(str), "label": ref.to_numpy()})
    member_frames = {k: pd.DataFrame({"item_id": v.index.astype(str), "label": v.astype(int).to_numpy()})
                     for k, v in pair.items()}
    cmp_rows = []
    for name, lab in juries.items():
        s = pd.Series(lab.astype(int).to_numpy(), index=pd.Index(lab.index.astype(str), name="item_id"))
        for stat in ("observed_agreement", "cohen_kappa"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", me.MetaevalWarning)
                c = me.jury_vs_best(ref_frame, member_frames, s, statistic=stat, on="item_id", label="label",
                                    n_resamples=n_resamples, rng=seed)
            d, j, b = (c.get(set=x) for x in ("jury - best member", "jury", "best member"))
            cmp_rows.append({"jury": name, "statistic": stat, "n_items": c.design["n_items"], "jury_value": j.estimate,
                             "best_member_value": b.estimate, "best_member": c.best_member,
                             "difference": d.estimate, "difference_low": d.ci.low, "pvalue": d.pvalue})
    agree = float((votes.iloc[:, 0] == votes.iloc[:, 1]).mean())
    return pd.DataFrame(alt_rows), pd.DataFrame(cmp_rows), agree


# --------------------------------------------------------------------------------------------
# LLMBar
# --------------------------------------------------------------------------------------------

def llmbar_votes(data: Path, strategy: str = "Vanilla_NoRules"):
    """Items × the six judges (winner 1 or 2; NaN = unparsable) and the gold labels, LLMBar subsets."""
    d = pd.read_csv(data / "llmbar" / "judge_predictions.tsv.gz", sep="\t")
    d = d[(d["strategy"] == strategy) & (~d["swap"]) & d["subset"].str.startswith("LLMBar/")]
    d = d[d["sample_idx"] == d.groupby(["subset", "evaluator", "instance_idx"])["sample_idx"].transform("min")]
    d = d.assign(item=d["subset"].str.replace("LLMBar/", "", regex=False) + ":" + d["instance_idx"].astype(str))
    votes = d.pivot(index="item", columns="evaluator", values="winner")
    gold = d.groupby("item")["gold_label"].first().reindex(votes.index)
    return votes.dropna(how="all"), gold.astype(int)


def _accuracy(truth: np.ndarray, labels: np.ndarray) -> float:
    ok = ~pd.isna(labels)
    return float(np.mean(truth[ok].astype(int) == labels[ok].astype(int)))


def llmbar_juries(data: Path, *, n_resamples: int = 2000, seed: int = 0):
    votes, gold = llmbar_votes(data)
    frames = {j: pd.DataFrame({"item_id": votes.index[votes[j].notna()],
                               "label": votes[j].dropna().astype(int).to_numpy()}) for j in votes.columns}
    ref = pd.DataFrame({"item_id": gold.index, "label": gold.to_numpy()})
    groups = np.arange(len(votes))                         # no topics: items are the units
    rows = []
    configs = [("majority", None), ("dawid_skene", None), ("weighted", None), ("dawid_skene_supervised", None),
               ("majority", 3), ("majority", 5)]
    for method, k in configs:
        # an even jury's 3-3 split goes to output 1 (ties="lowest", the package default)
        labels, chosen = cross_fitted_jury(votes, gold, groups, method=method, k=k, statistic=_accuracy, seed=seed)
        s = pd.Series(labels.astype(float).to_numpy(), index=pd.Index(votes.index, name="item_id"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", me.MetaevalWarning)
            c = me.jury_vs_best(ref, frames, s.dropna(), statistic="observed_agreement", on="item_id", label="label",
                                n_resamples=n_resamples, rng=seed)
        d, j, b = (c.get(set=x) for x in ("jury - best member", "jury", "best member"))
        rows.append({"method": method, "k": "all 6" if k is None else k, "n_items": c.design["n_items"],
                     "jury_accuracy": j.estimate, "best_single": b.estimate, "best_judge": c.best_member,
                     "difference": d.estimate, "difference_low": d.ci.low, "pvalue": d.pvalue})
    single = pd.Series({j: _accuracy(gold.to_numpy()[votes[j].notna().to_numpy()], votes[j].dropna().to_numpy())
                        for j in votes.columns}, name="accuracy").sort_values(ascending=False)
    return pd.DataFrame(rows), single, len(votes)


# --------------------------------------------------------------------------------------------

def _print(title: str, t: pd.DataFrame) -> None:
    print(f"\n== {title}")
    with pd.option_context("display.width", 250, "display.max_rows", 200, "display.max_columns", 30):
        print(t.round(4).to_string(index=False))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--out", default=None, help="write the tables and figures (a report) into this folder")
    ap.add_argument("--n-resamples", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=1, help="repeat the jury comparison with seeds 0..N-1")
    ap.add_argument("--only", choices=("llmjudge", "pandalm", "llmbar"), nargs="*", default=None)
    args = ap.parse_args(argv)
    data = Path(args.data)
    parts = args.only or ["llmjudge", "pandalm", "llmbar"]
    have = {p: (data / p).is_dir() for p in parts}
    if not any(have.values()):
        print(f"none of {', '.join(parts)} found under {data}; nothing to do", file=sys.stderr)
        return 0
    from metaeval.output.report import Report

    rep = Report("Many judges: panels and juries on LLMJudge, PandaLM and LLMBar",
                 intro="judge_panel, jury, jury_vs_best and select_jury (issue #22); "
                       f"B = {args.n_resamples} bootstrap draws, seeds 0..{args.seeds - 1}.")
    figures = []
    if have.get("llmjudge"):
        panels = llmjudge_panels(data, n_resamples=args.n_resamples)
        kp, ap_ = panels["cohen_kappa"], panels["krippendorff_alpha_ordinal"]
        tied = None
        if args.seeds > 1:
            sizes = {st: [len(r.tied) for r in (panels[st],)] for st in panels}
            for s in range(1, args.seeds):
                for st, r in llmjudge_panels(data, n_resamples=args.n_resamples, seed=s).items():
                    sizes[st].append(len(r.tied))
            tied = pd.DataFrame([{"statistic": st, "seeds": len(v), "tied_mean": np.mean(v),
                                  "tied_mc_se": np.std(v, ddof=1) / np.sqrt(len(v)), "tied_min": min(v),
                                  "tied_max": max(v)} for st, v in sizes.items()])
            _print(f"LLMJudge: size of the set tied with the best over {args.seeds} bootstrap seeds", tied)

        tk, ta = panel_table(kp), panel_table(ap_)
        _print(f"LLMJudge: Cohen's kappa, 33 judges (best {kp.best}; {len(kp.tied)} tied with the best)", tk)
        _print(f"LLMJudge: ordinal Krippendorff's alpha (best {ap_.best}; {len(ap_.tied)} tied with the best)", ta)
        corr = most_correlated(kp)
        _print("LLMJudge: judge pairs by error correlation (errors = label differs from the human's)", corr)
        votes = llmjudge_votes(data)
        runs = [llmjudge_juries(data, n_resamples=args.n_resamples, seed=s, votes=votes) for s in range(args.seeds)]
        juries = pd.concat(runs, ignore_index=True)
        _print("LLMJudge: juries (members picked on held-out queries) vs the best of the 33 judges, seed 0",
               juries[juries["seed"] == 0].drop(columns="seed"))
        summary = summarize_seeds(juries) if args.seeds > 1 else None
        if summary is not None:
            _print(f"LLMJudge juries: mean over {args.seeds} seeds (Monte-Carlo SE)", summary)
        curve = llmjudge_selection(votes[0], votes[1])
        _print("LLMJudge: select_jury (majority), nested cross-fitted kappa vs number of judges", curve)
        rep.section("LLMJudge: 33 judges against the TREC DL 2023 human labels")
        rep.table("llmjudge_panel_kappa", tk, f"Cohen's kappa; best {kp.best}; {len(kp.tied)} of 33 tied with it")
        rep.table("llmjudge_panel_alpha", ta, f"Ordinal alpha; best {ap_.best}; {len(ap_.tied)} of 33 tied with it")
        if tied is not None:
            rep.table("llmjudge_tied_set_seeds", tied, "Size of the tied set over bootstrap seeds")
        rep.table("llmjudge_error_correlation_pairs", corr, "Most and least correlated errors")
        rep.table("llmjudge_juries", juries, "Juries vs the best single judge (per seed)")
        if summary is not None:
            rep.table("llmjudge_juries_summary", summary, "Mean over seeds, Monte-Carlo SE")
        rep.table("llmjudge_select_jury", curve, "select_jury nested curve (majority)")
        figures += [("llmjudge_forest_kappa", kp, "forest"), ("llmjudge_forest_alpha", ap_, "forest"),
                    ("llmjudge_error_correlation", kp, "error_correlation"),
                    ("llmjudge_agreement", kp, "agreement")]
    if have.get("pandalm"):
        alt, cmp, agree = pandalm_juries(data, n_resamples=args.n_resamples)
        _print(f"PandaLM: alt-test (GPT-3.5 and PandaLM-7B agree on {agree:.3f} of the items)", alt)
        _print("PandaLM: jury vs its best member, against the annotators' majority label", cmp)
        if args.seeds > 1:
            runs = [cmp.assign(seed=0)] + [pandalm_juries(data, n_resamples=args.n_resamples, seed=s)[1].assign(seed=s)
                                           for s in range(1, args.seeds)]
            pm = summarize_seeds(pd.concat(runs), by=("jury", "statistic"),
                                 cols=("jury_value", "best_member_value", "difference", "difference_low", "pvalue"))
            _print(f"PandaLM juries: mean over {args.seeds} seeds (Monte-Carlo SE)", pm)
        rep.section("PandaLM: a jury of GPT-3.5 and PandaLM-7B")
        rep.table("pandalm_jury_alt_test", alt, "Alt-test (accuracy, q = 0.05) of the judges and juries")
        rep.table("pandalm_jury_vs_best", cmp, "Jury minus its best member")
        if args.seeds > 1:
            rep.table("pandalm_jury_vs_best_seeds", pm, "Mean over seeds, Monte-Carlo SE")
    if have.get("llmbar"):
        lb, single, n = llmbar_juries(data, n_resamples=args.n_resamples)
        _print(f"LLMBar: the six judges' accuracy on {n} items (Vanilla_NoRules)", single.reset_index())
        _print("LLMBar: juries vs the best single judge (accuracy)", lb)
        if args.seeds > 1:
            runs = [lb.assign(seed=0)] + [llmbar_juries(data, n_resamples=args.n_resamples, seed=s)[0].assign(seed=s)
                                          for s in range(1, args.seeds)]
            lm = summarize_seeds(pd.concat(runs), cols=("jury_accuracy", "best_single", "difference",
                                                         "difference_low", "pvalue"))
            _print(f"LLMBar juries: mean over {args.seeds} seeds (Monte-Carlo SE)", lm)
        rep.section("LLMBar: juries over six judges")
        rep.table("llmbar_single", single.rename_axis("judge").reset_index(), "Accuracy of each judge")
        rep.table("llmbar_juries", lb, "Juries vs the best single judge")
        if args.seeds > 1:
            rep.table("llmbar_juries_seeds", lm, "Mean over seeds, Monte-Carlo SE")
    if args.out:
        import matplotlib

        matplotlib.use("Agg")
        from metaeval import figures as fg

        for name, res, kind in figures:
            if kind == "forest":
                fig, ax = fg.subplots(figsize=(7, 9))
                fg.plot_panel_forest(res, ax=ax)
            else:
                fig, ax = fg.subplots(figsize=(10, 9))
                fg.plot_panel_heatmap(res, which=kind, ax=ax, vmin=None if kind == "error_correlation" else 0.0)
            rep.figure(name, fig, name.replace("_", " "))
        rep.write(args.out)
        (Path(args.out) / "design.json").write_text(json.dumps({"n_resamples": args.n_resamples,
                                                                 "seeds": args.seeds}, indent=1))
        print(f"\nwritten to {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
