"""Benchmark: ``metaeval.review_text`` on a 10,000-word methods section with ~100 APA-style results.

Run as ``python benchmarks/bench_review.py [--words 10000] [--results 100] [--repeats 20] [--seed 0]
[--statcheck-src DIR]``.

The text is synthetic and seeded: sentences of a judge-validation methods and results section (design,
annotation, statistics) with APA results spliced in: t, F, r, chi-square with N, z, Q / Q-within /
Q-between; exact, ``<`` and ``ns`` p-values; about one in six misreported (the p of another
statistic), and the variants PDFs produce (U+2212 minus, χ², line breaks and double spaces inside a
result, no-break spaces).

What is timed (wall clock, ``time.perf_counter``): ``review_text(text)`` end to end (regular-expression
scan, p-values, checks, DataFrame), after one warm-up call that pays the lazy imports (pandas, scipy);
the mean, minimum and maximum of ``--repeats`` calls are printed. Target: mean under 1 s.

With ``--statcheck-src`` (a checkout of github.com/MicheleNuijten/statcheck; needs Rscript), the same
text is also run through statcheck itself (its R sources, see tests/reference/make_reference_statcheck.R),
timed inside R, and the two result lists are compared: results found by both, by one only (with the
reason), and agreement of the recomputed p, ``error`` and ``decision_error`` on the shared ones.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_S = 1.0

PROSE = [
    "Each response was rated by two trained annotators who were blind to the condition and to the judge's verdict.",
    "Disagreements were resolved by a third annotator, whose label was taken as the reference.",
    "The judge model was prompted with the same rubric as the annotators, with the scale anchored at 1 and 5.",
    "We sampled items uniformly within each topic so that every topic contributed at least twenty items.",
    "Position bias was controlled by presenting every pair in both orders and averaging the two verdicts.",
    "Length was measured in tokens of the reference tokenizer and entered as a covariate in all models.",
    "Agreement was computed on the items that both annotators completed; skipped items were excluded.",
    "Scores were standardized within annotator before the analyses to remove differences in scale use.",
    "The pilot study used a smaller pool of prompts, which we did not reuse in the main study.",
    "All analyses were preregistered, and deviations from the plan are reported in the supplement.",
    "We report two-sided tests throughout unless a directional hypothesis was stated in advance.",
    "Participants were recruited from a crowdsourcing platform and paid above the local minimum wage.",
    "Items with missing judgments were dropped listwise, which removed fewer than two percent of the data.",
    "The order of systems was randomized for every annotator and every session.",
    "Inter-annotator agreement was high on factual questions and lower on open-ended creative tasks.",
    "The judge preferred longer answers, in line with earlier reports on verbosity bias.",
    "Because rankings of systems matter more than absolute scores, we also report rank correlations.",
    "The validation subset was stratified by prevalence so that rare labels were not underrepresented.",
    "A manipulation check confirmed that the annotators noticed the difference between the two prompts.",
    "Confidence intervals were obtained by a cluster bootstrap over topics with ten thousand resamples.",
]
LEADS = ["The difference was significant", "The effect of judge size was reliable", "This pattern held",
         "Agreement differed across domains", "The correlation with human scores was positive",
         "The interaction did not reach significance", "Heterogeneity between studies was substantial",
         "The preference for the longer answer was robust", "The association between label and topic was clear"]


def _p_text(p: float, rng) -> tuple[str, str]:
    """(comparison, printed p) for a p-value, the way papers print it."""
    if p < 0.001:
        return "<", ".001"
    if p > 0.05 and rng.random() < 0.25:
        return "ns", ""
    if rng.random() < 0.2 and p < 0.05:
        return "<", ".05" if p > 0.01 else ".01"
    digits = 3 if rng.random() < 0.3 else 2
    s = f"{p:.{digits}f}"
    return "=", s[1:] if s.startswith("0") else s


def _result(rng) -> str:
    from scipy import stats

    kind = rng.choice(["t", "F", "r", "chi2", "z", "Q", "Qw", "Qb"], p=[.3, .2, .15, .12, .1, .05, .04, .04])
    if kind == "t":
        df = int(rng.integers(10, 400))
        x = round(float(rng.normal(0, 2.5)), 2)
        head, p = f"t({df})", 2 * stats.t.sf(abs(x), df)
    elif kind == "F":
        d1, d2 = int(rng.integers(1, 5)), int(rng.integers(20, 300))
        x = round(float(rng.gamma(2, 2)), 2)
        head, p = f"F({d1}, {d2})", stats.f.sf(x, d1, d2)
    elif kind == "r":
        df = int(rng.integers(20, 500))
        x = round(float(np.tanh(rng.normal(0, 0.3))), 2)
        t = x / np.sqrt((1 - x * x) / df)
        head, p = f"r({df})", 2 * stats.t.sf(abs(t), df)
    elif kind == "chi2":
        df, n = int(rng.integers(1, 8)), int(rng.integers(50, 20000))
        x = round(float(rng.chisquare(df) * rng.uniform(0.5, 3)), 2)
        name = rng.choice(["χ2", "χ²", "chi2", "X2"])
        head, p = f"{name}({df}, N = {n:,})", stats.chi2.sf(x, df)
    elif kind == "z":
        x = round(float(rng.normal(0, 2.2)), 2)
        head, p = rng.choice(["z", "Z"]), 2 * stats.norm.sf(abs(x))
    else:
        df = int(rng.integers(1, 30))
        x = round(float(rng.chisquare(df) * rng.uniform(0.5, 2.5)), 2)
        name = {"Q": "Q", "Qw": rng.choice(["Qw", "Q-within"]), "Qb": rng.choice(["Qb", "Q-between"])}[kind]
        head, p = f"{name}({df})", stats.chi2.sf(x, df)
    if rng.random() < 1 / 6:                                   # misreported: another result's p
        p = float(rng.uniform(0.0005, 0.6))
    comp, pv = _p_text(p, rng)
    value = f"{x:.2f}"
    if kind == "r":
        value = value.replace("0.", ".")
    if x < 0 and rng.random() < 0.4:
        value = "\u2212" + value[1:]                           # U+2212 minus, as PDFs print it
    sep = rng.choice([" ", " ", " ", "\n", "  ", "\u00a0"])    # PDF line breaks, double and no-break spaces
    tail = "ns" if comp == "ns" else f"p {comp} {pv}"
    return f"{head} = {value},{sep}{tail}"


def make_text(words: int = 10_000, results: int = 100, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    prose_words = words - 10 * results
    sentences, n = [], 0
    while n < prose_words:
        s = PROSE[int(rng.integers(len(PROSE)))]
        sentences.append(s)
        n += len(s.split())
    slots = np.sort(rng.choice(len(sentences), size=results, replace=False))
    for i in slots[::-1]:
        sentences.insert(int(i) + 1, f"{LEADS[int(rng.integers(len(LEADS)))]}, {_result(rng)}.")
    text = " ".join(sentences)
    return text


def time_review(text: str, repeats: int):
    import metaeval

    first = time.perf_counter()
    res = metaeval.review_text(text)
    first = time.perf_counter() - first
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        metaeval.review_text(text)
        times.append(time.perf_counter() - t0)
    return res, first, np.array(times)


R_SCRIPT = r"""
args <- commandArgs(TRUE)
sc <- new.env()
for (f in list.files(file.path(args[1], "R"), full.names = TRUE)) sys.source(f, envir = sc)
txt <- readChar(args[2], file.info(args[2])$size, useBytes = FALSE)
Encoding(txt) <- "UTF-8"
invisible(sc$statcheck(txt, messages = FALSE))
t0 <- proc.time()[["elapsed"]]
for (i in 1:5) res <- sc$statcheck(txt, messages = FALSE)
el <- (proc.time()[["elapsed"]] - t0) / 5
out <- list(seconds = el, rows = lapply(seq_len(nrow(res)), function(i) list(raw = res$raw[i],
  type = as.character(res$test_type[i]), computed_p = sprintf("%.17g", res$computed_p[i]),
  error = res$error[i], decision_error = res$decision_error[i])))
cat(jsonlite::toJSON(out, auto_unbox = TRUE))
"""


def compare_statcheck(text: str, res, src: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tp, rp = Path(tmp) / "text.txt", Path(tmp) / "run.R"
        tp.write_text(text, encoding="utf-8")
        rp.write_text(R_SCRIPT)
        proc = subprocess.run(["Rscript", str(rp), src, str(tp)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(f"statcheck (R) failed: {proc.stderr[-500:]}")
        return
    out = json.loads(proc.stdout)
    rrows = out["rows"]
    print(f"statcheck (R, sourced): {len(rrows)} results, {out['seconds'] * 1000:.0f} ms per call (mean of 5)")

    def key(raw):                                              # the p part identifies a result in both outputs
        return " ".join(raw.split())[-24:]

    mine = {key(r["raw"]): r for r in res.to_dict("records")}
    theirs = {key(r["raw"]): r for r in rrows}
    both = sorted(set(mine) & set(theirs), key=lambda k: mine[k]["start"])
    only_mine = [mine[k]["raw"] for k in mine if k not in theirs]
    only_r = [theirs[k]["raw"] for k in theirs if k not in mine]
    same = sum(mine[k]["error"] == theirs[k]["error"] and mine[k]["decision_error"] == theirs[k]["decision_error"]
               for k in both)
    pdiff = max((abs(mine[k]["computed_p"] - float(theirs[k]["computed_p"])) / max(float(theirs[k]["computed_p"]), 1e-300)
                 for k in both), default=0.0)
    print(f"  found by both: {len(both)}; error and decision_error equal on {same}; "
          f"largest relative difference of computed p: {pdiff:.1e}")
    print(f"  found by review_text only: {len(only_mine)} (two spaces or a "
          f"no-break space or a χ² with a superscript two: statcheck reads at most one ASCII space there and a 2)")
    for raw in only_mine[:5]:
        print(f"    {raw!r}")
    print(f"  found by statcheck only: {len(only_r)}")
    for raw in only_r[:5]:
        print(f"    {raw!r}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=10_000)
    ap.add_argument("--results", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--statcheck-src", default=None, help="statcheck checkout: also run statcheck (R) on the text")
    ap.add_argument("--out", default=None, help="also write the report to this file (e.g. benchmarks/results/bench_review.txt)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _measure import Tee, machine_header

    tee = Tee(Path(args.out) if args.out else None)
    sys.stdout = tee
    try:
        print(machine_header(packages=("metaeval", "numpy", "pandas", "scipy")))
        return _run(args)
    finally:
        sys.stdout = tee.stdout
        tee.close()


def _run(args):
    text = make_text(args.words, args.results, args.seed)
    print(f"text: {len(text.split()):,} words, {len(text):,} characters, {args.results} results spliced in "
          f"(seed {args.seed})")
    res, first, times = time_review(text, args.repeats)
    print(f"review_text: {len(res)} results found, {int(res['error'].sum())} errors, "
          f"{int(res['decision_error'].sum())} decision errors")
    print(f"first call (imports pandas/scipy): {first * 1000:.0f} ms")
    print(f"review_text, {args.repeats} calls: mean {times.mean() * 1000:.1f} ms, min {times.min() * 1000:.1f} ms, "
          f"max {times.max() * 1000:.1f} ms  (target < {TARGET_S:.0f} s: {'PASS' if times.mean() < TARGET_S else 'FAIL'})")
    if len(res) != args.results:
        print(f"WARNING: {args.results} results were spliced in, {len(res)} found")
    if args.statcheck_src:
        compare_statcheck(text, res, args.statcheck_src)
    return 0 if times.mean() < TARGET_S and len(res) == args.results else 1


if __name__ == "__main__":
    sys.exit(main())
