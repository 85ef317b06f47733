"""find_claims and check_found: judge-validation claims in the prose of published judge papers.

The text of ``REAL`` is built from sentences quoted verbatim from published judge papers (each with
its source); ``ISSUE`` holds the phrasings of metaeval issue #25 (its item 10), which paraphrase the
claims a reviewer meets (κ with its n and margins, a correlation with n and p, a share of a count).
Every found claim is listed with its verdict; each expected number comes from an independent
computation cited beside it (exact rational arithmetic, scipy, statsmodels).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import metaeval
from metaeval import InputError
from metaeval.review.prose import UNCHECKED, check_found, find_claims

# (sentence, source) — quoted verbatim
REAL = [
    ("To evaluate agreement between the MLLM and human judgments, we use Cohen's Kappa, achieving a substantial "
     "agreement score of 0.6, comparable to inter-annotator agreement typically observed in multimodal retrieval "
     "tasks.",
     "Pires, Nunes & Teixeira (2025), Expanding Relevance Judgments for Medical Case-based Retrieval Task with "
     "Multimodal LLMs, LLM4Eval@SIGIR; abstract, https://arxiv.org/abs/2506.17782"),
    ("Starting from the original 15,028 manual judgments (4.72% relevant) across 35 topics, our MLLM-based approach "
     "expanded the dataset by over 37x to 558,653 judgments, increasing relevant annotations to 5,950.",
     "the same abstract, https://arxiv.org/abs/2506.17782"),
    ("The results reveal that strong LLM judges like GPT-4 can match both controlled and crowdsourced human "
     "preferences well, achieving over 80% agreement, the same level of agreement between humans.",
     "Zheng et al. (2023), Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena, NeurIPS; abstract, "
     "https://arxiv.org/abs/2306.05685"),
    ("We show that G-Eval with GPT-4 as the backbone model achieves a Spearman correlation of 0.514 with human on "
     "summarization task, outperforming all previous methods by a large margin.",
     "Liu et al. (2023), G-Eval: NLG Evaluation using GPT-4 with Better Human Alignment, EMNLP; abstract, "
     "https://arxiv.org/abs/2303.16634"),
    ("Our IntJudge achieves an agreement rate of 82.42% with human judgments, outperforming GPT-based evaluators by "
     "11.34%.",
     "Zhou et al. (2025), OpenING, CVPR; abstract, https://arxiv.org/abs/2411.18499 (the clause 'our IntJudge "
     "achieves …', its first letter capitalised)"),
    ("Prometheus-Vision 13B's feedback is as good as or better than GPT-4V's feedback 57.78% of the time.",
     "Lee et al. (2024), Prometheus-Vision, Findings of ACL; project page, section 'Simulating Human Evaluators', "
     "https://prometheus-eval.github.io/prometheus-vision"),
    ("This methodology reveals that 27 out of 54 tested LLMs achieve Tier 1 performance: 23 models exhibit "
     "human-like patterns that preserve the nuances of human judgment, while 4 models demonstrate super-consistent "
     "behavior.",
     "Han et al. (2025), Judge's Verdict: A Comprehensive Analysis of LLM Judge Capability Through Human Agreement; "
     "abstract, https://arxiv.org/abs/2510.09738 (the sentence up to 'behavior')"),
    ("Based on our simulation experiments conducted on three TREC DL datasets, in the extreme scenario of retaining "
     "only 10% of judgments, our method achieves a Kendall correlation of 0.87 and 0.92 on an average for "
     "Vicuña-7B and GPT-3.5 respectively.",
     "Abbasiantaeb et al. (2024), LLMs Can Patch Up Missing Relevance Judgments in Evaluation; abstract, "
     "https://arxiv.org/abs/2405.04727"),
    ("We find that incorporating richer item metadata and longer user histories improves alignment, and that "
     "LLM-judge yields high agreement with human-based rankings (Kendall's tau = 0.87).",
     "Do LLM-judges Align with Human Relevance in Cranfield-style Recommender Evaluation? (2025); abstract, "
     "https://arxiv.org/abs/2509.12382"),
]
TEXT = " ".join(s for s, _ in REAL)


def _sentence_of(c):
    return next(i for i, (s, _) in enumerate(REAL) if " ".join(s.split()) == c["sentence"])


def real_sentences_claims_and_verdicts_test():
    found = find_claims(TEXT)
    got = [(_sentence_of(c), c["kind"], c.get("method"), c["value"], c.get("n"), c.get("count"), c.get("approximate"))
           for c in found]
    assert got == [
        (0, "kappa", None, "0.6", None, None, None),               # κ = 0.6 without its n
        (1, "proportion", None, "0.0472", 15028, None, None),      # "4.72% relevant" of the 15,028 judgments
        (2, "accuracy", None, "0.80", None, None, "over"),         # "over 80% agreement": a bound
        (3, "correlation", "spearman", "0.514", None, None, None),
        (4, "accuracy", None, "0.8242", None, None, None),         # "by 11.34%" is a difference: not a claim
        (5, "proportion", None, "0.5778", None, None, None),       # "57.78% of the time"
        (6, "proportion", None, 0.5, 54, 27, None),                # "27 out of 54"; "23 models", "4 models": no claim
        (7, "correlation", "kendall", "0.87", None, None, None),   # "10% of judgments" is a design choice: no claim
        (7, "correlation", "kendall", "0.92", None, None, None),
        (8, "correlation", "kendall", "0.87", None, None, None),
    ]
    res = check_found(found)
    assert res["verdict"].tolist() == [UNCHECKED, "consistent", UNCHECKED, UNCHECKED, "not supported",
                                       "not supported", "consistent", UNCHECKED, UNCHECKED, UNCHECKED]
    # what could not be checked says why
    reasons = res["reason"].tolist()
    assert "no number of items (n)" in reasons[0]
    assert "approximate or a bound ('over'" in reasons[2]
    assert all("no number of pairs (n)" in reasons[i] for i in (3, 7, 8, 9))
    assert "the number of items is not reported" in reasons[4] and "the number of items is not reported" in reasons[5]
    # 4.72% of 15,028: 709/15028 = 0.047178… prints as 0.0472 (exact rational arithmetic); Wilson interval as
    # statsmodels' proportion_confint
    assert Fraction(709, 15028) * 10_000 == pytest.approx(471.78, abs=0.01)
    assert round(Fraction(709, 15028) * 10_000) == 472
    lo, hi = proportion_confint(709, 15028, alpha=0.05, method="wilson")
    assert (res.loc[1, "ci_low"], res.loc[1, "ci_high"]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    # 27 of 54: Wilson interval (statsmodels)
    lo, hi = proportion_confint(27, 54, alpha=0.05, method="wilson")
    assert (res.loc[6, "ci_low"], res.loc[6, "ci_high"]) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    # 57.78% with no n: the smallest n that can print as 0.5778 (exact search: k/n rounds to 5778/10000)
    exact = [n for n in range(1, 300) if any(abs(Fraction(k, n) - Fraction(5778, 10000)) <= Fraction(1, 20000)
                                             for k in range(n + 1))][:5]
    assert res.loc[5, "details"]["possible_n"] == exact and exact[0] == 45     # 26/45 = 0.57777…
    # every row keeps its sentence and the position of the sentence in the text
    for c, (_, row) in zip(found, res.iterrows()):
        assert row["sentence"] == c["sentence"] and " ".join(TEXT[c["start"]:c["end"]].split()) == c["sentence"]


ISSUE = ("Cohen's κ = 0.6 on 202 judgments (97 relevant, 105 not), ~80% agreement. "
         "Judge scores correlate with human scores, r = 0.639 (n = 15), p = .01. "
         "The judge's feedback was preferred in 57.78% of 135 comparisons.")


def issue_examples_test():
    """The phrasings of issue #25 item 10: κ with n and one rater's margins, r with n and p, a share of a count."""
    found = find_claims(ISSUE)
    assert [(c["kind"], c["value"], c.get("n")) for c in found] == [
        ("kappa", "0.6", 202), ("accuracy", "0.80", 202), ("correlation", "0.639", 15), ("proportion", "0.5778", 135)]
    k = found[0]
    assert k["reference_margins"] == [105, 97] and "percent_agreement" not in k       # "~80%": approximate, not used
    assert found[1]["approximate"] == "~" and found[2]["p"] == "= .01" and found[2]["method"] == "pearson"
    res = check_found(found)
    assert res["verdict"].tolist() == ["consistent", UNCHECKED, "consistent", "consistent"]
    # r = .639 with n = 15: two-sided p of the t(13) test (scipy) is 0.0103, which prints as .01
    t = 0.639 * math.sqrt(13 / (1 - 0.639 ** 2))
    assert res.loc[2, "p_recomputed"] == pytest.approx(2 * stats.t.sf(t, 13), rel=1e-9)
    # 57.78% of 135: 78/135 = 0.57777… prints as 0.5778 (exact)
    assert round(Fraction(78, 135) * 10_000) == 5778
    # the margins the text gives are stated, not silently replaced
    assert "one rater's margins [105, 97]" in res.loc[0, "reason"]


@pytest.mark.parametrize("sentence, expected", [
    ("κ = 0.60 with 80.2% raw agreement on 202 items.",
     [("kappa", "0.60", 202, {"percent_agreement": "0.802"})]),
    ("Fleiss' kappa was 0.41 across 300 items.", [("fleiss_kappa", "0.41", None, {})]),
    ("Krippendorff's alpha = 0.71 on 120 items.", [("krippendorff_alpha", "0.71", 120, {})]),
    ("Agreement was 82.4% (164/199).", [("accuracy", "0.824", 199, {"count": 164})]),
    ("The judge reaches an accuracy of 0.770 on 202 items.", [("accuracy", "0.770", 202, {})]),
    ("The judge's ranking matches the official one: τ = 0.920 over 37 runs.",
     [("rank_correlation", "0.920", None, {"systems": 37, "ties": True})]),
    ("Pearson's r = \u22120.42 (n = 60), p < .001.", [("correlation", "-0.42", 60, {"p": "< .001"})]),
    ("The correlation was 0.5 on 40 items.", [("correlation", "0.5", 40, {"assumed": "the method is not named: "
                                                                                    "Pearson's r assumed"})]),
    ("It outperforms the baseline by 11.34% and costs 12% less.", []),
    ("We report t(28) = 2.20, p = .03 and r(46) = .34, p = .02.", []),       # APA results: review_text's
    ("Of 3 annotators, 2 agreed.", []),
])
def patterns_test(sentence, expected):
    found = find_claims(sentence)
    got = [(c["kind"], c["value"], c.get("n"), {k: c[k] for k in e}) for c, (*_, e) in zip(found, expected)]
    assert len(found) == len(expected) and got == [tuple(x) for x in expected]


def invisible_characters_test():
    """A soft hyphen or a zero-width space never makes a value negative nor splits it."""
    for ch in ("\u00ad", "\u200b", "\ufeff", "\u200e", "\u2060"):
        found = find_claims(f"Cohen's κ = {ch}0.6{ch}1 on 2{ch}02 items.")
        assert [(c["kind"], c["value"], c["n"]) for c in found] == [("kappa", "0.61", 202)]


def check_found_never_raises_on_refused_numbers_test():
    res = check_found(find_claims("Cohen's κ = 0.6 on 0 items."))
    assert res.loc[0, "verdict"] == UNCHECKED and "the check refused the numbers" in res.loc[0, "reason"]


def find_claims_input_errors_test(monkeypatch):
    with pytest.raises(InputError, match="one string"):
        find_claims(b"kappa 0.6")
    monkeypatch.setenv("METAEVAL_MAX_TEXT_BYTES", "10")
    with pytest.raises(InputError, match="more than the limit of 10"):
        find_claims("Cohen's κ = 0.6 on 202 items.")


def public_name_test():
    assert metaeval.find_claims is find_claims and "find_claims" in metaeval.__all__


def long_text_is_linear_test():
    """Reading a text 16 times longer costs about 16 times more (paragraph chunks; no quadratic step)."""
    import time

    unit = TEXT + "\n\n"
    times = []
    for k in (8, 128):
        t0 = time.perf_counter()
        n = len(find_claims(unit * k))
        times.append(time.perf_counter() - t0)
        assert n == 10 * k
    assert times[1] < 16 * times[0] * 3 + 0.5
    assert np.isfinite(times).all()
